//! `--kubernetes-version` with a list or range (`1.30..1.37`, `all`): the run at each minor
//! (objects included: their findings and verdicts are the newest minor's in the report),
//! then per CRD its verdict at each minor, the oldest minor from which every later one
//! accepts it, and the first error that differs from the newest minor's.

use crd_studio_engine::{KubernetesVersion, Severity, VersionSpan, VersionVerdict};

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
    /// Its verdicts, oldest accepting version and first difference (the engine's).
    pub span: VersionSpan,
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
        self.rows.iter().all(|r| r.span.all_accepted())
    }

    /// The one line about a row: `accepted by 1.31–1.37; 1.30 rejects: …`.
    pub(crate) fn line(&self, row: &Row) -> String {
        row.span.line()
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
            let verdicts: Vec<VersionVerdict> = reports
                .iter()
                .map(|(v, r)| VersionVerdict {
                    version: *v,
                    accepted: r
                        .crds
                        .iter()
                        .find(|c| c.file == crd.file && c.document == crd.document)
                        .is_some_and(|c| c.accepted),
                    errors: errors(r, crd.file, crd.document),
                })
                .collect();
            Row {
                file: newest.files.get(crd.file).cloned().unwrap_or_default(),
                name: crd.name.clone(),
                span: VersionSpan::from_verdicts(&verdicts),
            }
        })
        .collect();
    Across { versions, rows }
}
