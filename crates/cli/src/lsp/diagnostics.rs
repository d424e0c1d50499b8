//! Diagnostics of one file: its CRDs compiled (cached, recompiled incrementally after an
//! edit), its custom objects analysed against the CRD of their group and kind, each finding
//! turned into a protocol diagnostic with the server's exact message.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crd_studio_engine::{
    isolate_document, read_documents, CompiledCrd, Finding, Severity, SourceId, TimeZoneDb,
};
use lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Url,
};
use serde_json::json;

use super::index::{is_builtin_group, is_crd, CrdRef, Index};
use super::position::range;
use super::settings::Settings;

/// The compiled CRDs, by document.
#[derive(Default)]
pub(crate) struct Compiled {
    crds: HashMap<CrdRef, CompiledCrd>,
    time_zones: Option<Arc<TimeZoneDb>>,
}

impl Compiled {
    /// Forgets every compiled CRD (the options changed).
    pub fn clear(&mut self) {
        self.crds.clear();
    }

    /// Forgets the CRDs of files that are gone or changed their documents.
    pub fn retain(&mut self, index: &Index) {
        self.crds.retain(|(p, i), _| {
            index
                .files
                .get(p)
                .is_some_and(|f| f.headers.iter().any(|h| h.index == *i && is_crd(h)))
        });
    }

    /// Forgets the compiled CRDs of file `path` (just checked, not open) that no object in
    /// the workspace needs: a workspace of many CRDs keeps only those in use.
    pub fn forget_unused(&mut self, index: &Index, path: &Path) {
        let kinds = index.defines(path);
        if kinds.is_empty() || index.files_with_objects_of(&kinds).is_empty() {
            self.crds.retain(|(p, _), _| p != path);
        }
    }

    /// The compiled CRD of document `crd`: cached while its text is the same, recompiled
    /// from the cached one after an edit.
    pub fn get(
        &mut self,
        index: &Index,
        settings: &Settings,
        crd: &CrdRef,
    ) -> Option<&CompiledCrd> {
        let file = index.files.get(&crd.0)?;
        let header = file.headers.iter().find(|h| h.index == crd.1)?;
        let text = if file.headers.len() == 1 && header.index == 0 {
            file.text.clone()
        } else {
            isolate_document(&file.text, header.span)
        };
        let time_zones = self
            .time_zones
            .get_or_insert_with(|| Arc::new(crate::time_zones()))
            .clone();
        let options = settings.options();
        let fresh = match self.crds.remove(crd) {
            Some(old) if old.text() == text => old,
            Some(old) => old.recompile(&text, &options),
            None => CompiledCrd::compile(&text, &options),
        };
        let mut fresh = fresh;
        fresh.set_time_zones(Some(time_zones));
        self.crds.insert(crd.clone(), fresh);
        self.crds.get(crd)
    }
}

/// A finding shown in a file, and the file its fixes' `Crd` edits go to.
pub(crate) struct Shown {
    pub finding: Finding,
    pub crd_file: Option<PathBuf>,
}

/// What checking one file gives.
#[derive(Default)]
pub(crate) struct FileDiagnostics {
    pub diagnostics: Vec<Diagnostic>,
    pub shown: Vec<Shown>,
    /// Built-in kinds met (for the log, once).
    pub builtin_kinds: BTreeSet<String>,
}

/// Checks file `path`.
pub(crate) fn check_file(
    index: &Index,
    settings: &Settings,
    compiled: &mut Compiled,
    path: &Path,
) -> FileDiagnostics {
    let mut out = FileDiagnostics::default();
    let Some(file) = index.files.get(path) else {
        return out;
    };
    let uri = url(path);
    let mut covered = BTreeSet::new();
    // The CRDs.
    for h in file.headers.iter().filter(|h| is_crd(h)) {
        covered.insert(h.index);
        let crd: CrdRef = (path.to_owned(), h.index);
        if let Some(c) = compiled.get(index, settings, &crd) {
            for f in c.findings() {
                if f.location.is_some_and(|l| l.source == SourceId::Crd) {
                    out.push(f.clone(), &uri, Vec::new(), None);
                }
            }
        }
        if let Some(defines) = &h.defines {
            let all = index.crds.get(defines).map(Vec::as_slice).unwrap_or(&[]);
            if all.len() > 1 {
                let others: Vec<&CrdRef> = all.iter().filter(|r| **r != crd).collect();
                let message = format!(
                    "group {} kind {} is also defined in {}: objects of this kind are checked against the first ({})",
                    defines.0,
                    defines.1,
                    others.iter().map(|r| r.0.display().to_string()).collect::<Vec<_>>().join(", "),
                    all.first().map(|r| r.0.display().to_string()).unwrap_or_default()
                );
                let related = others
                    .iter()
                    .filter_map(|r| crd_location(index, r, "defined here"))
                    .collect();
                out.raw(
                    h.kind_span.or(Some(h.span)),
                    DiagnosticSeverity::WARNING,
                    "studio.crd-defined-twice",
                    message,
                    related,
                );
            }
        }
    }
    // The objects, by (group, kind).
    let mut kinds: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for h in file.headers.iter().filter(|h| !is_crd(h)) {
        let (Some(kind), Some(group)) = (h.kind.clone(), h.group()) else {
            continue;
        };
        let key = (group.to_owned(), kind);
        if !index.crds.contains_key(&key) && is_builtin_group(group) {
            out.builtin_kinds.insert(key.1);
            continue;
        }
        kinds.entry(key).or_default().push(h.index);
    }
    let old_path = settings.old_object_of(index.root.as_deref(), path, &file.text);
    let old_text = old_path.as_ref().and_then(|p| {
        index
            .files
            .get(p)
            .map(|f| f.text.clone())
            .or_else(|| std::fs::read_to_string(p).ok())
    });
    if let (Some(p), None) = (&old_path, &old_text) {
        let message = format!("the old object {} (named for this file) could not be read: objects are checked as created", p.display());
        out.raw(
            None,
            DiagnosticSeverity::WARNING,
            "studio.old-object-missing",
            message,
            Vec::new(),
        );
    }
    for ((group, kind), docs) in kinds {
        let headers: Vec<_> = file
            .headers
            .iter()
            .filter(|h| docs.contains(&h.index))
            .collect();
        let Some(crds) = index.crds.get(&(group.clone(), kind.clone())) else {
            for h in headers {
                covered.insert(h.index);
                let message = format!(
                    "no CustomResourceDefinition in the workspace defines kind {kind} in group {group} (add its CRD to the workspace or to the crdPaths setting)"
                );
                out.raw(
                    h.kind_span.or(Some(h.span)),
                    DiagnosticSeverity::WARNING,
                    "studio.crd-not-found",
                    message,
                    Vec::new(),
                );
            }
            continue;
        };
        let Some(first) = crds.first() else { continue };
        if crds.len() > 1 {
            for h in &headers {
                let message = format!(
                    "{} CustomResourceDefinitions in the workspace define kind {kind} in group {group}: checked against the first, {}",
                    crds.len(),
                    first.0.display()
                );
                let related = crds
                    .iter()
                    .filter_map(|r| crd_location(index, r, "defined here"))
                    .collect();
                out.raw(
                    h.kind_span.or(Some(h.span)),
                    DiagnosticSeverity::WARNING,
                    "studio.crd-defined-twice",
                    message,
                    related,
                );
            }
        }
        let Some(crd) = compiled.get(index, settings, first) else {
            continue;
        };
        covered.extend(docs.iter().copied());
        let analysis = crd.analyze_objects(std::slice::from_ref(&file.text), old_text.as_deref());
        let versions: HashMap<usize, String> = headers
            .iter()
            .filter_map(|h| {
                let v = h.api_version.as_deref()?;
                Some((h.index, v.rsplit_once('/').map_or(v, |(_, v)| v).to_owned()))
            })
            .collect();
        let crd_uri = url(&first.0);
        let rules = rule_places(&analysis, &crd_uri);
        for f in analysis.findings {
            let Some(loc) = f.location else { continue };
            if loc.source != SourceId::Object(0) || !docs.contains(&loc.document) {
                continue;
            }
            let mut related: Vec<DiagnosticRelatedInformation> = rules
                .get(&(loc.document, f.message.clone()))
                .cloned()
                .into_iter()
                .collect();
            if let Some(schema) = f
                .field
                .as_deref()
                .zip(versions.get(&loc.document))
                .and_then(|(field, v)| crd.schema_node(v, field))
            {
                related.push(DiagnosticRelatedInformation {
                    location: Location {
                        uri: crd_uri.clone(),
                        range: range(&schema),
                    },
                    message: format!("schema of {}", f.field.as_deref().unwrap_or("the object")),
                });
            }
            out.push(f, &uri, related, Some(first.0.clone()));
        }
    }
    // Reading problems of the other documents (built-in kinds, documents without a kind),
    // shown when the file holds something of ours or is open.
    if !covered.is_empty() || file.version.is_some() {
        for f in read_documents(&file.text, SourceId::Object(0)).findings {
            if f.location.is_some_and(|l| !covered.contains(&l.document)) {
                out.push(f, &uri, Vec::new(), None);
            }
        }
    }
    out
}

/// Where each failed CEL rule of the analysed objects is in the CRD, by (document, the
/// server's message): the rule's place from the engine's report of the object's version.
fn rule_places(
    analysis: &crd_studio_engine::Analysis,
    crd_uri: &Url,
) -> HashMap<(usize, String), DiagnosticRelatedInformation> {
    let mut out = HashMap::new();
    for o in analysis.objects.iter().filter(|o| o.source == 0) {
        for r in &o.cel_results {
            let Some(message) = &r.message else { continue };
            let rule = analysis
                .versions
                .iter()
                .filter(|v| v.name == r.version)
                .flat_map(|v| &v.rules)
                .find(|rule| rule.key == r.rule);
            let Some((rule, place)) = rule.and_then(|rule| Some((rule, rule.location?))) else {
                continue;
            };
            out.entry((o.document, message.clone())).or_insert_with(|| {
                DiagnosticRelatedInformation {
                    location: Location {
                        uri: crd_uri.clone(),
                        range: range(&place.span),
                    },
                    message: format!("rule: {}", rule.rule),
                }
            });
        }
    }
    out
}

fn crd_location(index: &Index, r: &CrdRef, message: &str) -> Option<DiagnosticRelatedInformation> {
    let h = index
        .files
        .get(&r.0)?
        .headers
        .iter()
        .find(|h| h.index == r.1)?;
    Some(DiagnosticRelatedInformation {
        location: Location {
            uri: url(&r.0),
            range: range(&h.kind_span.unwrap_or(h.span)),
        },
        message: message.to_owned(),
    })
}

/// The URI of a path.
pub(crate) fn url(path: &Path) -> Url {
    Url::from_file_path(path)
        .unwrap_or_else(|()| Url::parse("file:///").expect("a constant URL parses"))
}

impl FileDiagnostics {
    fn push(
        &mut self,
        f: Finding,
        uri: &Url,
        crd: Vec<DiagnosticRelatedInformation>,
        crd_file: Option<PathBuf>,
    ) {
        let Some(loc) = f.location else { return };
        let r = range(&loc.span);
        let mut related = Vec::new();
        if let Some(summary) = f.summary.as_ref().filter(|s| **s != f.message) {
            related.push(DiagnosticRelatedInformation {
                location: Location {
                    uri: uri.clone(),
                    range: r,
                },
                message: summary.clone(),
            });
        }
        // The version note (issue 30): a line after the server's message, and the place.
        let mut message = f.message.clone();
        if let Some(note) = &f.newer_version {
            message.push('\n');
            message.push_str(&note.text);
            related.push(DiagnosticRelatedInformation {
                location: Location {
                    uri: uri.clone(),
                    range: r,
                },
                message: note.text.clone(),
            });
        }
        related.extend(crd);
        self.diagnostics.push(Diagnostic {
            range: r,
            severity: Some(match f.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
                Severity::Info if f.note => DiagnosticSeverity::HINT,
                Severity::Info => DiagnosticSeverity::INFORMATION,
            }),
            code: Some(NumberOrString::String(f.code.clone())),
            source: Some("crd-studio".into()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            data: Some(json!({
                "summary": f.summary,
                "field": f.field,
                "fixes": f.fixes.len(),
            })),
            ..Diagnostic::default()
        });
        self.shown.push(Shown {
            finding: f,
            crd_file,
        });
    }

    fn raw(
        &mut self,
        span: Option<crd_studio_engine::Span>,
        severity: DiagnosticSeverity,
        code: &str,
        message: String,
        related: Vec<DiagnosticRelatedInformation>,
    ) {
        self.diagnostics.push(Diagnostic {
            range: span.as_ref().map(range).unwrap_or_default(),
            severity: Some(severity),
            code: Some(NumberOrString::String(code.into())),
            source: Some("crd-studio".into()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            ..Diagnostic::default()
        });
    }
}
