//! JUnit XML (the schema CI systems read, `tests/data/junit.xsd`): one test suite per file,
//! one test case per CRD and per object (named by file and document, so that the files of
//! `--shard` jobs merge without duplicates). A case fails with its document's error findings;
//! an object without a CRD under `--ignore-missing-crds` is skipped; findings about documents
//! that are neither (a syntax error, say) fail a case of their own for their document.

use crd_studio_engine::Severity;

use super::run::Report;
use super::text::{change_line, finding_line, summary_line};

/// Escapes text for XML content and attribute values (double-quoted). Characters XML 1.0
/// does not allow become U+FFFD.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// One test case.
struct Case {
    name: String,
    /// The error lines (a failure when any).
    failures: Vec<String>,
    /// Warning lines (system-out).
    others: Vec<String>,
    skipped: bool,
}

/// The JUnit XML report.
pub(crate) fn junit(report: &Report) -> String {
    let mut suites = Vec::new();
    let (mut tests, mut failures, mut skipped) = (0, 0, 0);
    for (f, file) in report.files.iter().enumerate() {
        let mut cases: Vec<(usize, Case)> = Vec::new();
        for c in report.crds.iter().filter(|c| c.file == f) {
            let mut failures = if c.accepted {
                Vec::new()
            } else {
                vec![format!("CRD {} rejected", c.name)]
            };
            let mut others = Vec::new();
            for change in &c.changes {
                let failing = report
                    .fail_on
                    .is_some_and(|at| super::run::at_least(change.severity, at));
                if failing { &mut failures } else { &mut others }.push(change_line(change));
            }
            cases.push((
                c.document,
                Case {
                    name: format!("{file}#{} CustomResourceDefinition {}", c.document, c.name),
                    failures,
                    others,
                    skipped: false,
                },
            ));
        }
        for o in report.objects.iter().filter(|o| o.file == f) {
            cases.push((
                o.document,
                Case {
                    name: format!("{file}#{} {}", o.document, o.title),
                    failures: if o.accepted {
                        Vec::new()
                    } else {
                        vec![format!("{} rejected ({})", o.title, o.operation)]
                    },
                    others: Vec::new(),
                    skipped: o.ignored,
                },
            ));
        }
        for x in report.findings.iter().filter(|x| x.file == f) {
            let line = finding_line(report, x);
            let doc = x.document();
            let case = match cases.iter_mut().find(|(d, _)| *d == doc) {
                Some((_, case)) => case,
                None => {
                    cases.push((
                        doc,
                        Case {
                            name: format!("{file}#{doc}"),
                            failures: Vec::new(),
                            others: Vec::new(),
                            skipped: false,
                        },
                    ));
                    match cases.last_mut() {
                        Some((_, case)) => case,
                        None => continue,
                    }
                }
            };
            if x.finding.severity == Severity::Error {
                case.failures.push(line);
            } else {
                case.others.push(line);
            }
        }
        if cases.is_empty() {
            continue;
        }
        cases.sort_by_key(|(d, _)| *d);
        let suite_failures = cases.iter().filter(|(_, c)| !c.failures.is_empty()).count();
        let suite_skipped = cases.iter().filter(|(_, c)| c.skipped).count();
        tests += cases.len();
        failures += suite_failures;
        skipped += suite_skipped;
        let mut s = format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{suite_failures}\" errors=\"0\" skipped=\"{suite_skipped}\">\n",
            escape(file),
            cases.len()
        );
        for (_, c) in cases {
            s.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\">\n",
                escape(file),
                escape(&c.name)
            ));
            if c.skipped {
                s.push_str("      <skipped message=\"no CRD (--ignore-missing-crds)\"/>\n");
            }
            if let Some(first) = c.failures.first() {
                s.push_str(&format!(
                    "      <failure message=\"{}\" type=\"rejected\">{}</failure>\n",
                    escape(first),
                    escape(&c.failures.join("\n"))
                ));
            }
            if !c.others.is_empty() {
                s.push_str(&format!(
                    "      <system-out>{}</system-out>\n",
                    escape(&c.others.join("\n"))
                ));
            }
            s.push_str("    </testcase>\n");
        }
        s.push_str("  </testsuite>\n");
        suites.push(s);
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"crd-studio check: {}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">\n{}</testsuites>\n",
        escape(&summary_line(report)),
        suites.concat()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
        assert_eq!(escape("x\u{1}y\n"), "x\u{fffd}y\n");
    }
}
