//! The engine's public API: texts and options in, an [`Analysis`] out.
//!
//! The CRD changes rarely and objects change on every keystroke, so the work is split:
//! [`CompiledCrd::compile`] does everything that depends only on the CRD text (parsing, the
//! typed model, CRD validation, and later structural schemas and compiled CEL programs), and
//! [`CompiledCrd::analyze_objects`] runs the per-object pipeline against it. [`analyze`] does
//! both for callers that hold only texts (the CLI, tests).
//!
//! Everything that crosses the API is plain data with `serde` derives, so the web app can move
//! the engine into a Web Worker and pass [`Request`] and [`Analysis`] as JSON without change.

use serde::{Deserialize, Serialize};

use crate::crd::{self, Crd};
use crate::document::{self, Node, ParsedText};
use crate::finding::{sort_findings, ErrorType, Finding, Location, Severity, SourceId};
use crate::path::{locate, FieldPath};

/// How the server treats unknown and duplicate fields (`kubectl --validate=...`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FieldValidation {
    /// Reject the request (`kubectl`'s default).
    #[default]
    Strict,
    /// Accept it and return warnings.
    Warn,
    /// Accept it silently.
    Ignore,
}

/// Options of an analysis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Options {
    /// Unknown/duplicate field handling.
    pub field_validation: FieldValidation,
    /// The Kubernetes minor version whose rules apply (CEL environment compatibility), e.g. `1.36`.
    pub kubernetes_version: String,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            field_validation: FieldValidation::Strict,
            kubernetes_version: "1.36".to_owned(),
        }
    }
}

/// Everything an analysis needs: the texts and the options.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Request {
    /// The CRD text (YAML or JSON).
    pub crd: String,
    /// Object texts; each may hold several YAML documents.
    pub objects: Vec<String>,
    /// The old object (update path, ratcheting), if any.
    pub old_object: Option<String>,
    /// Options.
    pub options: Options,
}

/// One `field.Error` as the oracle writes it, plus where it is in the user's text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldErrorReport {
    /// The error type, e.g. `FieldValueRequired`.
    #[serde(rename = "type")]
    pub error_type: ErrorType,
    /// The field path.
    pub field: String,
    /// The detail.
    pub detail: String,
    /// The full `Error()` text.
    pub error: String,
    /// 1-based line in the user's text, when located.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column in the user's text, when located.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl FieldErrorReport {
    fn from_finding(f: &Finding) -> Option<FieldErrorReport> {
        Some(FieldErrorReport {
            error_type: f.error_type?,
            field: f.field.clone().unwrap_or_else(|| "<nil>".to_owned()),
            detail: f.detail.clone().unwrap_or_default(),
            error: f.message.clone(),
            line: f.location.map(|l| l.span.start.line),
            column: f.location.map(|l| l.span.start.column),
        })
    }
}

/// The verdict on the CRD itself.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdReport {
    /// `metadata.name`, when there is one.
    pub name: Option<String>,
    /// Whether the server would accept the CRD.
    pub accepted: bool,
    /// The server's validation errors.
    pub errors: Vec<FieldErrorReport>,
}

/// One version of the CRD.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionReport {
    /// The version name.
    pub name: String,
    /// Whether it is served.
    pub served: bool,
    /// Whether it is the storage version.
    pub storage: bool,
    /// Where the server reports its schema errors (`spec.validation.openAPIV3Schema` for a
    /// CRD whose versions share one schema, else `spec.versions[i].schema.openAPIV3Schema`).
    pub schema_path: String,
    /// Whether the version has a schema.
    pub has_schema: bool,
}

/// The result for one custom object (one YAML document).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectReport {
    /// Which object text (0-based).
    pub source: usize,
    /// Which document of that text (0-based).
    pub document: usize,
    /// Set when the document could not be analysed (unreadable, not served by this CRD).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_error: Option<String>,
    /// `create`, or `update` when an old object was given.
    pub operation: String,
    /// The object's `apiVersion`.
    pub api_version: String,
    /// The object's `kind`.
    pub kind: String,
    /// `metadata.name`.
    pub name: String,
    /// Paths of the fields the server would drop.
    pub pruned_paths: Vec<String>,
    /// The object after pruning.
    pub pruned: serde_json::Value,
    /// The object after pruning and defaulting.
    pub defaulted: serde_json::Value,
    /// Paths of the fields defaulting set (absent before, present after).
    pub defaulted_paths: Vec<String>,
    /// The object the server would persist (after the create/update strategy: `status`
    /// dropped when the status subresource is on, `metadata.generation` set, ...).
    pub stored: serde_json::Value,
    /// The object as each served version would return it (None conversion: only
    /// `apiVersion` changes, then that version's pruning and defaulting).
    pub served_as: Vec<ServedObject>,
    /// Warnings the server would return with the response (unknown fields under `Warn`,
    /// deprecated version, finalizer names, ...), in its words.
    pub warnings: Vec<String>,
    /// Schema (OpenAPI, list-type, metadata) errors.
    pub schema_errors: Vec<FieldErrorReport>,
    /// CEL rule errors.
    pub cel_errors: Vec<FieldErrorReport>,
    /// Runtime CEL cost spent on the object.
    pub cel_runtime_cost: u64,
    /// All errors, as the server would return them.
    pub errors: Vec<FieldErrorReport>,
    /// Whether the server would accept the object.
    pub accepted: bool,
    /// The `kubectl get` row.
    pub table: TableRow,
}

/// An object as one served version returns it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServedObject {
    /// The version.
    pub version: String,
    /// The object as read in that version.
    pub object: serde_json::Value,
    /// Fields that version's schema drops.
    pub pruned_paths: Vec<String>,
    /// Fields that version's defaults set.
    pub defaulted_paths: Vec<String>,
}

/// A `kubectl get` row for one object.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    /// Column names.
    pub columns: Vec<String>,
    /// Cells (`null` where the server leaves the cell empty).
    pub cells: Vec<serde_json::Value>,
}

/// Everything the engine found, as plain data.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    /// The CRD verdict.
    pub crd: CrdReport,
    /// Per-version facts.
    pub versions: Vec<VersionReport>,
    /// One entry per custom object document.
    pub objects: Vec<ObjectReport>,
    /// Every finding, with its location, sorted by location.
    pub findings: Vec<Finding>,
}

impl Analysis {
    /// Whether the CRD and every object would be accepted.
    pub fn accepted(&self) -> bool {
        self.crd.accepted
            && self.objects.iter().all(|o| o.accepted)
            && !self.findings.iter().any(|f| f.severity == Severity::Error)
    }
}

/// A CRD read and checked once, reused for every object analysis.
#[derive(Clone, Debug)]
pub struct CompiledCrd {
    parsed: ParsedText,
    model: Option<Crd>,
    findings: Vec<Finding>,
    report: CrdReport,
    versions: Vec<VersionReport>,
    options: Options,
}

impl CompiledCrd {
    /// Reads and validates a CRD text. Never fails: problems become findings.
    pub fn compile(text: &str, options: &Options) -> CompiledCrd {
        let parsed = document::parse(text, SourceId::Crd);
        let mut findings = parsed.findings.clone();
        let mut model = None;
        let mut seen = false;
        for (doc, root) in parsed.values() {
            if seen {
                findings.push(
                    Finding::new(
                        Severity::Info,
                        "crd.extra-document",
                        "only the first CustomResourceDefinition of the CRD text is analysed",
                    )
                    .at(Location {
                        source: SourceId::Crd,
                        document: doc.index,
                        span: root.span,
                    }),
                );
                continue;
            }
            seen = true;
            let (crd, mut crd_findings) = crd::read(root, doc.index);
            findings.append(&mut crd_findings);
            model = crd;
        }
        if !seen && !findings.iter().any(|f| f.severity == Severity::Error) {
            findings.push(Finding::error(
                "crd.empty",
                "the CRD text holds no document",
            ));
        }
        let versions = model
            .as_ref()
            .map(|m| {
                let shared = m.versions.len() == 1 || m.versions_share_schema();
                m.versions
                    .iter()
                    .enumerate()
                    .map(|(i, v)| VersionReport {
                        name: v.name.value.clone(),
                        served: v.served,
                        storage: v.storage,
                        schema_path: if shared {
                            "spec.validation.openAPIV3Schema".to_owned()
                        } else {
                            format!("spec.versions[{i}].schema.openAPIV3Schema")
                        },
                        has_schema: v.schema.is_some(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        sort_findings(&mut findings);
        let report = CrdReport {
            name: model
                .as_ref()
                .and_then(|m| m.name.as_ref().map(|n| n.value.clone())),
            accepted: !findings.iter().any(|f| f.severity == Severity::Error),
            errors: findings
                .iter()
                .filter_map(FieldErrorReport::from_finding)
                .collect(),
        };
        CompiledCrd {
            parsed,
            model,
            findings,
            report,
            versions,
            options: options.clone(),
        }
    }

    /// The typed model, when the text held a readable CRD.
    pub fn model(&self) -> Option<&Crd> {
        self.model.as_ref()
    }

    /// Findings about the CRD text.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The parsed CRD text.
    pub fn parsed(&self) -> &ParsedText {
        &self.parsed
    }

    /// The options the CRD was compiled with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The source location of a server field path in the CRD text (nearest existing parent).
    pub fn locate(&self, path: &FieldPath) -> Option<Location> {
        let doc = self.parsed.values().next()?;
        let hit = locate(doc.1, path);
        Some(Location {
            source: SourceId::Crd,
            document: doc.0.index,
            span: hit.span,
        })
    }

    /// Analyses object texts against this CRD. `old_object` switches to the update path.
    pub fn analyze_objects(&self, objects: &[String], old_object: Option<&str>) -> Analysis {
        let mut findings = self.findings.clone();
        let mut reports = Vec::new();
        let old = old_object.map(|t| document::parse(t, SourceId::OldObject));
        if let Some(old) = &old {
            findings.extend(old.findings.iter().cloned());
        }
        for (i, text) in objects.iter().enumerate() {
            let parsed = document::parse(text, SourceId::Object(i));
            findings.extend(
                parsed
                    .findings
                    .iter()
                    .filter_map(|f| apply_field_validation(f, self.options.field_validation)),
            );
            for (doc, root) in parsed.values() {
                let (report, mut object_findings) =
                    self.analyze_object(i, doc.index, root, old.is_some());
                findings.append(&mut object_findings);
                reports.push(report);
            }
        }
        sort_findings(&mut findings);
        Analysis {
            crd: self.report.clone(),
            versions: self.versions.clone(),
            objects: reports,
            findings,
        }
    }

    fn analyze_object(
        &self,
        source: usize,
        document: usize,
        root: &Node,
        update: bool,
    ) -> (ObjectReport, Vec<Finding>) {
        let mut findings = Vec::new();
        let loc = |span| Location {
            source: SourceId::Object(source),
            document,
            span,
        };
        let api_version = root.get("apiVersion").and_then(Node::as_str).unwrap_or("");
        let kind = root.get("kind").and_then(Node::as_str).unwrap_or("");
        let name = root
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Node::as_str)
            .unwrap_or("");
        let mut report = ObjectReport {
            source,
            document,
            operation: if update { "update" } else { "create" }.to_owned(),
            api_version: api_version.to_owned(),
            kind: kind.to_owned(),
            name: name.to_owned(),
            ..ObjectReport::default()
        };
        if let Some(model) = &self.model {
            if let Some(problem) = model.serves(api_version) {
                let span = root
                    .entry("apiVersion")
                    .map(|e| e.value.span)
                    .unwrap_or(root.span);
                findings.push(Finding::error("object.not-served", problem.clone()).at(loc(span)));
                report.object_error = Some(problem);
                return (report, findings);
            }
        }
        let json = root.to_json();
        report.pruned = json.clone();
        report.stored = json.clone();
        report.defaulted = json;
        report.accepted = true;
        (report, findings)
    }
}

/// Duplicate keys are strict-decoding problems: an error under `Strict`, a warning (the
/// server's warning text) under `Warn`, nothing under `Ignore`.
fn apply_field_validation(f: &Finding, mode: FieldValidation) -> Option<Finding> {
    if f.code != "yaml.duplicate-key" {
        return Some(f.clone());
    }
    match mode {
        FieldValidation::Strict => Some(f.clone()),
        FieldValidation::Warn => {
            let mut w = f.clone();
            w.severity = Severity::Warning;
            Some(w)
        }
        FieldValidation::Ignore => None,
    }
}

/// Compiles the CRD and analyses every object: the one-call form of the engine.
pub fn analyze(request: &Request) -> Analysis {
    let compiled = CompiledCrd::compile(&request.crd, &request.options);
    compiled.analyze_objects(&request.objects, request.old_object.as_deref())
}
