//! GitHub Actions workflow commands: one `::error file=…,line=…,col=…::message` (or
//! `::warning`, `::notice`) per finding, so that findings show inline in a pull request,
//! then the summary lines as plain text.

use crd_studio_engine::Severity;

use super::run::Report;
use super::text::{built_in_line, change_line, summary_line};
use super::versions::Across;

/// Escapes a command's message (`%`, CR, LF).
pub(crate) fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a command's property value (also `:` and `,`).
pub(crate) fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The workflow commands and summary.
pub(crate) fn github(report: &Report, across: Option<&Across>) -> String {
    let mut out = String::new();
    for x in &report.findings {
        let f = &x.finding;
        let command = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let file = report.files.get(x.file).map_or("", String::as_str);
        let mut props = vec![format!("file={}", escape_property(file))];
        if let Some(l) = f.location {
            let (start, end) = (l.span.start, l.span.end);
            props.push(format!("line={}", start.line));
            props.push(format!("col={}", start.column));
            if end.line >= start.line && end.offset > start.offset {
                props.push(format!("endLine={}", end.line));
                if end.line == start.line {
                    props.push(format!("endColumn={}", end.column));
                }
            }
        }
        props.push(format!("title={}", escape_property(&f.code)));
        let message = match &f.field {
            Some(field) if !f.message.starts_with(field.as_str()) => {
                format!("{field}: {}", f.message)
            }
            _ => f.message.clone(),
        };
        out.push_str(&format!(
            "::{command} {}::{}\n",
            props.join(","),
            escape_data(&message)
        ));
    }
    for c in &report.crds {
        for change in &c.changes {
            let failing = report
                .fail_on
                .is_some_and(|at| super::run::at_least(change.severity, at));
            let command = if failing { "error" } else { "notice" };
            let file = report.files.get(c.file).map_or("", String::as_str);
            let place = change
                .new
                .map(|l| format!(",line={},col={}", l.span.start.line, l.span.start.column))
                .unwrap_or_default();
            out.push_str(&format!(
                "::{command} file={}{place},title={}::{}\n",
                escape_property(file),
                escape_property(&change.code),
                escape_data(&format!("CRD {}: {}", c.name, change_line(change)))
            ));
        }
    }
    if let Some(line) = built_in_line(report) {
        out.push_str(&line);
        out.push('\n');
    }
    if let Some(a) = across {
        for row in &a.rows {
            let line = format!("{}: {}", row.name, a.line(row));
            if row.span.all_accepted() {
                out.push_str(&line);
                out.push('\n');
            } else {
                out.push_str(&format!(
                    "::error file={},title=kubernetes-versions::{}\n",
                    escape_property(&row.file),
                    escape_data(&line)
                ));
            }
        }
    }
    out.push_str(&summary_line(report));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_data("50% a\nb\r"), "50%25 a%0Ab%0D");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
