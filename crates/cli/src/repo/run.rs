//! The engine over a repository: one task per CRD (compiled once there, then every object of
//! this shard that belongs to it), the tasks in parallel on rayon's pool, the results put
//! back in a stable order (file, then document, then place).
//!
//! Each engine call gets a file's text with only the documents it is about left in it
//! (`DocumentTexts::keep_only`), so the findings' locations are the file's own.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::{Arc, OnceLock};

use crd_studio_engine::{
    Analysis, ChangeSeverity, CompiledCrd, CrdChange, Finding, KubernetesVersion, Options,
    PreviousCrd, Severity, SourceId, TimeZoneDb,
};
use rayon::prelude::*;

use super::discover::{Role, Tree};
use super::matching::Plan;
use super::RepoCheck;

/// A finding in a file of the tree.
#[derive(Clone, Debug)]
pub(crate) struct Located {
    /// The file (index in the tree).
    pub file: usize,
    /// The finding; its location (when it has one) is in that file.
    pub finding: Finding,
}

impl Located {
    /// The document it is about (0 without a location).
    pub(crate) fn document(&self) -> usize {
        self.finding.location.map_or(0, |l| l.document)
    }
}

/// A CRD's verdict.
#[derive(Clone, Debug)]
pub(crate) struct CrdResult {
    /// File and document.
    pub file: usize,
    /// Its document.
    pub document: usize,
    /// `metadata.name`.
    pub name: String,
    /// Whether the server accepts it (as an update of its previous revision with
    /// `--old-crds`).
    pub accepted: bool,
    /// The previous revision's file, when checked as an update.
    pub old_file: Option<usize>,
    /// The changes from the previous revision.
    pub changes: Vec<CrdChange>,
    /// With several `--kubernetes-version`s: the engine's verdict and findings at each other
    /// version where they may differ from this run's (the CRD compiled again there), and this
    /// run's engine findings about the CRD beside them (see [`super::versions`]).
    pub other_versions: Vec<AtVersion>,
    /// This run's engine findings about the CRD, when `other_versions` has any.
    pub own_findings: Vec<Finding>,
}

/// A CRD compiled at another Kubernetes version than the run's.
#[derive(Clone, Debug)]
pub(crate) struct AtVersion {
    /// The version.
    pub version: KubernetesVersion,
    /// The engine's verdict there.
    pub accepted: bool,
    /// The engine's findings there, in its order.
    pub findings: Vec<Located>,
}

/// An object's verdict.
#[derive(Clone, Debug)]
pub(crate) struct ObjectResult {
    /// File.
    pub file: usize,
    /// Its document.
    pub document: usize,
    /// `example.com/v1 Widget ns/name`.
    pub title: String,
    /// Its CRD's name, when there is one.
    pub crd: Option<String>,
    /// `create` or `update`.
    pub operation: String,
    /// Accepted (no CRD: not accepted, unless ignored).
    pub accepted: bool,
    /// No CRD, and `--ignore-missing-crds`: not checked.
    pub ignored: bool,
}

/// What a run found.
#[derive(Clone, Debug, Default)]
pub(crate) struct Report {
    /// Every file's name (index: the tree's).
    pub files: Vec<String>,
    /// Which files are checked (not `--old` or `--old-crds` trees).
    pub checked: Vec<bool>,
    /// The CRDs of this shard, in order.
    pub crds: Vec<CrdResult>,
    /// The objects of this shard, in order.
    pub objects: Vec<ObjectResult>,
    /// Every finding, in order.
    pub findings: Vec<Located>,
    /// Built-in kinds left out (`apps/v1 Deployment` → how many).
    pub built_in: BTreeMap<String, usize>,
    /// Documents without `apiVersion` or `kind` left out.
    pub not_objects: usize,
    /// Which CRD changes fail the run (`--fail-on`; none: `None`).
    pub fail_on: Option<ChangeSeverity>,
}

/// Whether a change of severity `s` is at or above `at` (breaking > risky > compatible).
pub(crate) fn at_least(s: ChangeSeverity, at: ChangeSeverity) -> bool {
    let rank = |s: ChangeSeverity| match s {
        ChangeSeverity::Breaking => 2,
        ChangeSeverity::Risky => 1,
        ChangeSeverity::Compatible => 0,
    };
    rank(s) >= rank(at)
}

impl Report {
    /// The changes at or above `--fail-on` (with `--old-crds`).
    pub(crate) fn failing_changes(&self) -> usize {
        self.crds
            .iter()
            .flat_map(|c| &c.changes)
            .filter(|c| self.fail_on.is_some_and(|at| at_least(c.severity, at)))
            .count()
    }

    /// Whether nothing would be rejected.
    pub(crate) fn accepted(&self) -> bool {
        self.failing_changes() == 0
            && self.crds.iter().all(|c| c.accepted)
            && self.objects.iter().all(|o| o.accepted)
            && !self
                .findings
                .iter()
                .any(|f| f.finding.severity == Severity::Error)
    }

    /// How many findings have this severity.
    pub(crate) fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.finding.severity == severity)
            .count()
    }
}

/// The time-zone database, loaded once per process the first time it is asked for.
pub(crate) fn time_zones() -> Arc<TimeZoneDb> {
    static DB: OnceLock<Arc<TimeZoneDb>> = OnceLock::new();
    DB.get_or_init(|| Arc::new(crate::time_zones())).clone()
}

/// What one CRD's task found.
struct TaskResult {
    crd: Option<CrdResult>,
    /// (object index in the plan, accepted, operation).
    objects: Vec<(usize, bool, String)>,
    findings: Vec<Located>,
}

/// Runs the plan (this shard's share) at `options`.
pub(crate) fn run(tree: &Tree, plan: &Plan, check: &RepoCheck, options: &Options) -> Report {
    let name = |f: usize| tree.files.get(f).map_or("", |f| f.name.as_str());
    let owns = |file: usize, doc: usize| check.shard.is_none_or(|s| s.owns(name(file), doc));
    // The objects of this shard, by CRD.
    let mut by_crd: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, o) in plan.objects.iter().enumerate() {
        if let Some(c) = o.crd.filter(|_| owns(o.file, o.document)) {
            by_crd.entry(c).or_default().push(i);
        }
    }
    let tasks: Vec<usize> = (0..plan.crds.len())
        .filter(|&c| {
            by_crd.contains_key(&c)
                || plan
                    .crds
                    .get(c)
                    .is_some_and(|crd| owns(crd.file, crd.document))
        })
        .collect();
    let results: Vec<TaskResult> = tasks
        .par_iter()
        .map(|&c| {
            let objects = by_crd.get(&c).map(Vec::as_slice).unwrap_or_default();
            crd_task(tree, plan, c, objects, &owns, options, &check.versions)
        })
        .collect();

    let mut report = Report {
        files: tree.files.iter().map(|f| f.name.clone()).collect(),
        checked: tree
            .files
            .iter()
            .map(|f| matches!(f.role, Role::Main | Role::Crds))
            .collect(),
        built_in: plan.built_in.clone(),
        not_objects: plan.not_objects,
        fail_on: check.fail_on,
        ..Report::default()
    };
    let mut verdicts: HashMap<usize, (bool, String)> = HashMap::new();
    for r in results {
        report.crds.extend(r.crd);
        for (i, accepted, operation) in r.objects {
            let v = verdicts.entry(i).or_insert((true, operation));
            v.0 &= accepted;
        }
        report.findings.extend(r.findings);
    }
    // A second CRD for a group and kind: checked, but its objects go to the first.
    for &(i, first) in &plan.duplicates {
        let (Some(crd), Some(earlier)) = (plan.crds.get(i), plan.crds.get(first)) else {
            continue;
        };
        let Some(file) = tree
            .files
            .get(crd.file)
            .filter(|_| owns(crd.file, crd.document))
        else {
            continue;
        };
        let at = file.docs.range(crd.document).map_or(0, |r| r.start);
        let finding = Finding::warning(
            "studio.duplicate-crd",
            format!(
                "another CRD for {} {} comes first ({} in {}): objects of this kind are checked against that one",
                crd.group,
                crd.kind,
                earlier.name,
                name(earlier.file)
            ),
        );
        for finding in crd_studio_engine::locate_findings(
            &file.text,
            SourceId::Object(0),
            vec![(at..at, finding)],
        ) {
            report.findings.push(Located {
                file: crd.file,
                finding,
            });
        }
    }
    // Documents no CRD matched.
    for o in plan.objects.iter().filter(|o| o.crd.is_none()) {
        if !owns(o.file, o.document) || check.ignore_missing_crds {
            continue;
        }
        let Some(file) = tree.files.get(o.file) else {
            continue;
        };
        let at = file.docs.range(o.document).map_or(0, |r| r.start);
        let finding = Finding::error(
            "studio.no-crd",
            format!(
                "no CRD for {} {} (none among the CRDs found; add its CRD with --crds PATH, or --ignore-missing-crds)",
                o.api_version, o.kind
            ),
        );
        for finding in crd_studio_engine::locate_findings(
            &file.text,
            SourceId::Object(0),
            vec![(at..at, finding)],
        ) {
            report.findings.push(Located {
                file: o.file,
                finding,
            });
        }
    }
    // What reading the files found about documents the engine was not handed, and where
    // kubectl reads other characters than the bytes.
    for (f, file) in tree.files.iter().enumerate() {
        let handed = plan.handed.get(f).map(Vec::as_slice).unwrap_or_default();
        let mut found: Vec<&Finding> = file.encoding.iter().collect();
        if file.role == Role::Main {
            found.extend(
                file.docs
                    .findings
                    .iter()
                    .filter(|x| !handed.contains(&x.location.map_or(0, |l| l.document))),
            );
        }
        for x in found {
            let doc = x.location.map_or(0, |l| l.document);
            if owns(f, doc) && (file.role == Role::Main || handed.contains(&doc)) {
                report.findings.push(Located {
                    file: f,
                    finding: x.clone(),
                });
            }
        }
    }
    // Verdicts: the engine's, and no error in the object's document.
    let errors: std::collections::HashSet<(usize, usize)> = report
        .findings
        .iter()
        .filter(|x| x.finding.severity == Severity::Error)
        .map(|x| (x.file, x.document()))
        .collect();
    for (i, o) in plan.objects.iter().enumerate() {
        if !owns(o.file, o.document) {
            continue;
        }
        let crd = o.crd.and_then(|c| plan.crds.get(c)).map(|c| c.name.clone());
        let (accepted, operation) = match verdicts.get(&i) {
            Some((a, op)) => (*a, op.clone()),
            None => (
                false,
                if o.old.is_some() { "update" } else { "create" }.to_owned(),
            ),
        };
        let ignored = crd.is_none() && check.ignore_missing_crds;
        report.objects.push(ObjectResult {
            file: o.file,
            document: o.document,
            title: o.title(),
            crd,
            operation,
            accepted: ignored || (accepted && !errors.contains(&(o.file, o.document))),
            ignored,
        });
    }
    for c in &mut report.crds {
        c.accepted &= !errors.contains(&(c.file, c.document));
    }
    // A stable order: file, document, then place (a note after its document's findings).
    report.crds.sort_by_key(|c| (c.file, c.document));
    report.objects.sort_by_key(|o| (o.file, o.document));
    report.findings.sort_by_key(order_key);
    report
        .findings
        .dedup_by(|a, b| a.file == b.file && a.finding == b.finding);
    report
}

/// The order of a report's findings: file, document, then place (a note after its
/// document's findings); a stable sort keeps the order found among equals.
pub(crate) fn order_key(x: &Located) -> (usize, usize, bool, Option<(usize, usize)>) {
    let l = x.finding.location;
    (
        x.file,
        x.document(),
        x.finding.note,
        l.map(|l| (l.span.start.line, l.span.start.column)),
    )
}

/// One engine call of a task: the files (each with the objects, indices in the plan, it is
/// about) and the previous object's file and document (then it is about one object).
type Call = (Vec<(usize, Vec<usize>)>, Option<(usize, usize)>);

/// One CRD's task: compile it once (as an update of its previous revision when there is
/// one), its own verdict when this shard reports it, then its objects.
fn crd_task(
    tree: &Tree,
    plan: &Plan,
    c: usize,
    objects: &[usize],
    owns: &(dyn Fn(usize, usize) -> bool + Sync),
    options: &Options,
    versions: &[KubernetesVersion],
) -> TaskResult {
    let mut out = TaskResult {
        crd: None,
        objects: Vec::new(),
        findings: Vec::new(),
    };
    let Some(crd) = plan.crds.get(c) else {
        return out;
    };
    let Some(file) = tree.files.get(crd.file) else {
        return out;
    };
    let text = file.docs.keep_only(&file.text, &[crd.document]);
    let old_text = crd.old.and_then(|(f, d)| {
        let old = tree.files.get(f)?;
        Some((f, old.docs.keep_only(&old.text, &[d])))
    });
    let previous = old_text
        .as_ref()
        .map(|(_, t)| Rc::new(PreviousCrd::compile(t, options)));
    let mut compiled = CompiledCrd::compile(&text, options).with_previous(&text, previous);
    let old_file = old_text.as_ref().map(|(f, _)| *f);
    let located = |findings: Vec<Finding>| -> Vec<Located> {
        findings
            .into_iter()
            .filter_map(|finding| {
                let file = match finding.location.map(|l| l.source) {
                    Some(SourceId::OldCrd) => old_file,
                    _ => Some(crd.file),
                };
                file.map(|file| Located { file, finding })
            })
            .collect()
    };
    if owns(crd.file, crd.document) {
        let analysis = compiled.analyze_objects(&[], None);
        // The other versions: compiled again only where something may differ (the engine's
        // `same_verdict_at` compiles the version-gated rule sites alone).
        let plan = compiled.recheck_plan();
        let other_versions: Vec<AtVersion> = versions
            .iter()
            .filter(|&&v| v != options.kubernetes_version && !compiled.same_verdict_at(&plan, v))
            .map(|&v| {
                let at = Options {
                    kubernetes_version: v,
                    ..options.clone()
                };
                let previous = old_text
                    .as_ref()
                    .map(|(_, t)| Rc::new(PreviousCrd::compile(t, &at)));
                let again = CompiledCrd::compile(&text, &at).with_previous(&text, previous);
                let analysis = again.analyze_objects(&[], None);
                AtVersion {
                    version: v,
                    accepted: analysis.crd.accepted,
                    findings: located(analysis.findings),
                }
            })
            .collect();
        let own_findings = if other_versions.is_empty() {
            Vec::new()
        } else {
            analysis.findings.clone()
        };
        out.crd = Some(CrdResult {
            file: crd.file,
            document: crd.document,
            name: crd.name.clone(),
            accepted: analysis.crd.accepted,
            old_file,
            changes: analysis.changes.clone(),
            other_versions,
            own_findings,
        });
        out.findings.extend(located(analysis.findings));
    }
    // One call for the objects without a previous one (a text per file), then one call per
    // object with one.
    let mut calls: Vec<Call> = vec![(Vec::new(), None)];
    for &i in objects {
        let Some(o) = plan.objects.get(i) else {
            continue;
        };
        match o.old {
            Some(old) => calls.push((vec![(o.file, vec![i])], Some(old))),
            None => {
                let Some((files, _)) = calls.first_mut() else {
                    continue;
                };
                match files.iter_mut().find(|(f, _)| *f == o.file) {
                    Some((_, members)) => members.push(i),
                    None => files.push((o.file, vec![i])),
                }
            }
        }
    }
    for (files, old) in calls {
        if files.is_empty() {
            continue;
        }
        let texts: Vec<String> = files
            .iter()
            .map(|(f, members)| {
                let docs: Vec<usize> = members
                    .iter()
                    .filter_map(|&i| plan.objects.get(i).map(|o| o.document))
                    .collect();
                tree.files
                    .get(*f)
                    .map(|file| file.docs.keep_only(&file.text, &docs))
                    .unwrap_or_default()
            })
            .collect();
        let old_text = old.and_then(|(of, od)| {
            let old = tree.files.get(of)?;
            Some(old.docs.keep_only(&old.text, &[od]))
        });
        let mut analysis: Analysis = compiled.analyze_objects(&texts, old_text.as_deref());
        if analysis.needs_time_zones {
            compiled.set_time_zones(Some(time_zones()));
            analysis = compiled.analyze_objects(&texts, old_text.as_deref());
        }
        for report in &analysis.objects {
            let member = files.get(report.source).and_then(|(_, members)| {
                members.iter().copied().find(|&i| {
                    plan.objects
                        .get(i)
                        .is_some_and(|o| o.document == report.document)
                })
            });
            if let Some(i) = member {
                out.objects
                    .push((i, report.accepted, report.operation.clone()));
            }
        }
        for finding in analysis.findings {
            // The CRD's own findings come with every analysis: reported above.
            let source = finding.location.map(|l| l.source);
            let file = match source {
                Some(SourceId::Object(k)) => files.get(k).map(|(f, _)| *f),
                Some(SourceId::OldObject) => old.map(|(of, _)| of),
                _ => None,
            };
            if let Some(file) = file {
                out.findings.push(Located { file, finding });
            }
        }
    }
    out
}
