//! `--kubernetes-version` with a list or range (`1.30..1.37`, `all`): the run at each minor
//! (objects included: their findings and verdicts are the newest minor's in the report),
//! then per CRD its verdict at each minor, the oldest minor from which every later one
//! accepts it, and the first error that differs from the newest minor's.

use crd_studio_engine::{KubernetesVersion, Severity};

use super::run::Report;
use crate::Error;

/// `--kubernetes-version`'s value: one version, a list, a range or `all`.
pub(crate) fn parse_list(text: &str) -> Result<Vec<KubernetesVersion>, Error> {
    KubernetesVersion::parse_set(text)
        .map_err(|e| Error::Usage(format!("--kubernetes-version: {e}")))
}

/// One CRD across versions.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Row {
    /// The CRD's file.
    pub file: String,
    /// `metadata.name`.
    pub name: String,
    /// The CRD's verdict at each version.
    pub accepted: Vec<bool>,
    /// The oldest version at and after which every later one accepts it.
    pub oldest: Option<KubernetesVersion>,
    /// The first version (oldest first) whose errors differ from the newest's, and the
    /// first error that differs.
    pub first_difference: Option<(KubernetesVersion, String)>,
}

/// The CRDs across the versions of a run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Across {
    /// The versions, oldest first.
    pub versions: Vec<KubernetesVersion>,
    /// One row per CRD reported (in the report's order).
    pub rows: Vec<Row>,
}

impl Across {
    /// Whether every CRD is accepted at every version.
    pub(crate) fn all_accepted(&self) -> bool {
        self.rows.iter().all(|r| r.accepted.iter().all(|a| *a))
    }

    /// The one line about a row: `accepted by 1.31–1.37; 1.30 rejects: …`.
    pub(crate) fn line(&self, row: &Row) -> String {
        let first = self.versions.first().copied();
        let last = self.versions.last().copied();
        let mut out = match (row.oldest, first, last) {
            (None, _, _) => "rejected by every version checked".to_owned(),
            (Some(o), Some(f), Some(l)) if o == f => {
                if f == l {
                    format!("accepted by {f}")
                } else {
                    format!("accepted by {f}–{l}")
                }
            }
            (Some(o), _, Some(l)) if o == l => format!("accepted by {l}"),
            (Some(o), _, Some(l)) => format!("accepted by {o}–{l}"),
            (Some(o), _, None) => format!("accepted by {o}"),
        };
        if let Some((v, message)) = &row.first_difference {
            let i = self.versions.iter().position(|x| x == v);
            let verdict = i.and_then(|i| row.accepted.get(i)).copied().unwrap_or(true);
            out.push_str(&format!(
                "; {v} {}: {message}",
                if verdict { "differs" } else { "rejects" }
            ));
        }
        out
    }
}

/// The errors about one CRD in a run.
fn errors(report: &Report, file: usize, document: usize) -> Vec<String> {
    report
        .findings
        .iter()
        .filter(|x| x.finding.severity == Severity::Error)
        .filter(|x| (x.file, x.document()) == (file, document))
        // The plain-words summary when the engine gives one, else the message's first line.
        .map(|x| {
            x.finding
                .summary
                .clone()
                .unwrap_or_else(|| x.finding.message.lines().next().unwrap_or("").to_owned())
        })
        .collect()
}

/// The rows from one report per version (oldest first; the newest is the reference).
pub(crate) fn across(reports: &[(KubernetesVersion, Report)]) -> Across {
    let versions: Vec<KubernetesVersion> = reports.iter().map(|(v, _)| *v).collect();
    let Some((_, newest)) = reports.last() else {
        return Across {
            versions,
            rows: Vec::new(),
        };
    };
    let rows = newest
        .crds
        .iter()
        .map(|crd| {
            let verdict = |r: &Report| {
                r.crds
                    .iter()
                    .find(|c| c.file == crd.file && c.document == crd.document)
                    .is_some_and(|c| c.accepted)
            };
            let accepted: Vec<bool> = reports.iter().map(|(_, r)| verdict(r)).collect();
            // The oldest version from which every later one accepts.
            let from = accepted.iter().rposition(|a| !a).map_or(0, |i| i + 1);
            let oldest = versions.get(from).copied();
            let reference = errors(newest, crd.file, crd.document);
            let first_difference = reports.iter().find_map(|(v, r)| {
                let these = errors(r, crd.file, crd.document);
                these
                    .iter()
                    .find(|m| !reference.contains(m))
                    .or_else(|| reference.iter().find(|m| !these.contains(m)))
                    .map(|m| (*v, m.clone()))
            });
            Row {
                file: newest.files.get(crd.file).cloned().unwrap_or_default(),
                name: crd.name.clone(),
                accepted,
                oldest,
                first_difference,
            }
        })
        .collect();
    Across { versions, rows }
}
