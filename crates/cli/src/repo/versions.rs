//! `--kubernetes-version` with a list or range (`1.30..1.37`, `all`): the run at the newest
//! minor (objects' findings and verdicts are its), then per CRD its verdict at each minor, the
//! oldest minor from which every later one accepts it, and the first error that differs from
//! the newest minor's. A CRD is compiled again at another minor only where the engine finds
//! something that may differ there (`CompiledCrd::same_verdict_at`: rules naming
//! version-gated CEL names, `selectableFields` across their gate); elsewhere its verdict is
//! the run's, as a run at that minor would give it.

use crd_studio_engine::{KubernetesVersion, Severity, VersionSpan, VersionVerdict};

use super::run::{self, Located, Report};
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

/// The plain words of the errors among findings: the engine's summary when it gives one,
/// else the message's first line.
fn plain_errors<'a>(findings: impl Iterator<Item = &'a Located>) -> Vec<String> {
    findings
        .filter(|x| x.finding.severity == Severity::Error)
        .map(|x| {
            x.finding
                .summary
                .clone()
                .unwrap_or_else(|| x.finding.message.lines().next().unwrap_or("").to_owned())
        })
        .collect()
}

/// One CRD's verdict at a version compiled again ([`run::AtVersion`]): the report's findings
/// about its document with the run's engine findings replaced by that version's, in the
/// report's order (as a run at that version orders them).
fn verdict_again(report: &Report, crd: &run::CrdResult, at: &run::AtVersion) -> VersionVerdict {
    let mut own: Vec<&crd_studio_engine::Finding> = crd.own_findings.iter().collect();
    let mut findings: Vec<Located> = at
        .findings
        .iter()
        .filter(|x| (x.file, x.document()) == (crd.file, crd.document))
        .cloned()
        .collect();
    for x in report
        .findings
        .iter()
        .filter(|x| (x.file, x.document()) == (crd.file, crd.document))
    {
        match own.iter().position(|f| **f == x.finding) {
            Some(i) => {
                own.remove(i);
            }
            None => findings.push(x.clone()),
        }
    }
    findings.sort_by_key(run::order_key);
    findings.dedup_by(|a, b| a.file == b.file && a.finding == b.finding);
    let errors = plain_errors(findings.iter());
    VersionVerdict {
        version: at.version,
        accepted: at.accepted && errors.is_empty(),
        errors,
    }
}

/// The rows of the run at the newest of `versions`, each CRD's verdict at the others from
/// this run where the engine found nothing that differs, else from its compile there.
pub(crate) fn across(report: &Report, versions: &[KubernetesVersion]) -> Across {
    let rows = report
        .crds
        .iter()
        .map(|crd| {
            let verdicts: Vec<VersionVerdict> =
                versions
                    .iter()
                    .map(
                        |v| match crd.other_versions.iter().find(|a| a.version == *v) {
                            Some(at) => verdict_again(report, crd, at),
                            None => VersionVerdict {
                                version: *v,
                                accepted: crd.accepted,
                                errors: plain_errors(report.findings.iter().filter(|x| {
                                    (x.file, x.document()) == (crd.file, crd.document)
                                })),
                            },
                        },
                    )
                    .collect();
            Row {
                file: report.files.get(crd.file).cloned().unwrap_or_default(),
                name: crd.name.clone(),
                span: VersionSpan::from_verdicts(&verdicts),
            }
        })
        .collect();
    Across {
        versions: versions.to_vec(),
        rows,
    }
}
