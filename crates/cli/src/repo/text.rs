//! Repository mode's text, JSON and SARIF: the findings (`file:line:col: severity: …`, as
//! today's check prints them), each CRD's verdict, a line per file, the built-in kinds left
//! out, the versions' lines, and the summary.

use crd_studio_engine::Severity;
use serde_json::{json, Value};

use super::run::{Located, Report};
use super::versions::Across;
use crate::sarif;

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn verdict(accepted: bool) -> &'static str {
    if accepted {
        "accepted"
    } else {
        "rejected"
    }
}

/// A finding's line: `file:line:col: severity: field: message`.
pub(crate) fn finding_line(report: &Report, x: &Located) -> String {
    let file = report.files.get(x.file).map_or("", String::as_str);
    let f = &x.finding;
    let place = match f.location {
        Some(l) => format!("{file}:{}:{}", l.span.start.line, l.span.start.column),
        None => file.to_owned(),
    };
    let message = match &f.field {
        Some(field) => f
            .message
            .strip_prefix(&format!("{field}: "))
            .unwrap_or(&f.message),
        None => &f.message,
    };
    let field = f
        .field
        .as_deref()
        .map(|p| format!("{p}: "))
        .unwrap_or_default();
    format!("{place}: {}: {field}{message}", f.severity.as_str())
}

/// A CRD change on one line: `breaking: v1: .spec.x: message [code]`.
pub(crate) fn change_line(c: &crd_studio_engine::CrdChange) -> String {
    format!(
        "{}: {}{}{} [{}]",
        crate::changes::severity_word(c.severity),
        c.version
            .as_deref()
            .map(|v| format!("{v}: "))
            .unwrap_or_default(),
        c.field
            .as_deref()
            .filter(|f| !c.message.starts_with(f))
            .map(|f| format!("{f}: "))
            .unwrap_or_default(),
        c.message,
        c.code
    )
}

/// The built-in kinds left out, on one line (none: `None`).
pub(crate) fn built_in_line(report: &Report) -> Option<String> {
    let total: usize = report.built_in.values().sum();
    (total > 0).then(|| {
        let kinds: Vec<String> = report
            .built_in
            .iter()
            .map(|(k, n)| {
                if *n == 1 {
                    k.clone()
                } else {
                    format!("{k} ×{n}")
                }
            })
            .collect();
        format!(
            "skipped {} of built-in kinds: {}",
            plural(total, "document"),
            kinds.join(", ")
        )
    })
}

/// The summary line.
pub(crate) fn summary_line(report: &Report) -> String {
    let crds_rejected = report.crds.iter().filter(|c| !c.accepted).count();
    let checked: Vec<_> = report.objects.iter().filter(|o| !o.ignored).collect();
    let rejected = checked.iter().filter(|o| !o.accepted).count();
    let ignored = report.objects.len() - checked.len();
    let failing = report.failing_changes();
    format!(
        "{}: {}, {}{}; {}, {crds_rejected} rejected; {}, {rejected} rejected{}",
        verdict(report.accepted()),
        plural(report.count(Severity::Error), "error"),
        plural(report.count(Severity::Warning), "warning"),
        if failing > 0 {
            format!(", {} at or above --fail-on", plural(failing, "CRD change"))
        } else {
            String::new()
        },
        plural(report.crds.len(), "CRD"),
        plural(checked.len(), "object"),
        if ignored > 0 {
            format!("; {} without a CRD ignored", plural(ignored, "object"))
        } else {
            String::new()
        }
    )
}

/// The text report.
pub(crate) fn text(report: &Report, across: Option<&Across>) -> String {
    let mut out = String::new();
    for x in &report.findings {
        out.push_str(&finding_line(report, x));
        out.push('\n');
    }
    for c in &report.crds {
        let file = report.files.get(c.file).map_or("", String::as_str);
        let update = c
            .old_file
            .and_then(|f| report.files.get(f))
            .map(|old| format!(" (update of {old}: {})", plural(c.changes.len(), "change")))
            .unwrap_or_default();
        out.push_str(&format!(
            "{file}: CRD {} {}{update}\n",
            c.name,
            verdict(c.accepted)
        ));
        for change in &c.changes {
            out.push_str(&format!("  {}\n", change_line(change)));
        }
    }
    for (f, name) in report.files.iter().enumerate() {
        if !report.checked.get(f).copied().unwrap_or(false) {
            continue;
        }
        let objects: Vec<_> = report
            .objects
            .iter()
            .filter(|o| o.file == f && !o.ignored)
            .collect();
        if objects.is_empty() {
            continue;
        }
        let rejected = objects.iter().filter(|o| !o.accepted).count();
        out.push_str(&format!(
            "{name}: {}, {rejected} rejected\n",
            plural(objects.len(), "object")
        ));
    }
    if let Some(line) = built_in_line(report) {
        out.push_str(&line);
        out.push('\n');
    }
    if report.not_objects > 0 {
        out.push_str(&format!(
            "skipped {} without apiVersion and kind\n",
            plural(report.not_objects, "document")
        ));
    }
    if let Some(a) = across {
        let versions: Vec<String> = a.versions.iter().map(ToString::to_string).collect();
        out.push_str(&format!("Kubernetes versions {}:\n", versions.join(", ")));
        for row in &a.rows {
            out.push_str(&format!("  {} ({}): {}\n", row.name, row.file, a.line(row)));
        }
    }
    out.push_str(&summary_line(report));
    out.push('\n');
    out
}

/// The JSON report: the summary, each CRD and object with its verdict, the findings.
pub(crate) fn json(report: &Report, across: Option<&Across>) -> String {
    let file = |f: usize| report.files.get(f).cloned().unwrap_or_default();
    let crds: Vec<Value> = report
        .crds
        .iter()
        .map(|c| {
            json!({
                "file": file(c.file),
                "document": c.document,
                "name": c.name,
                "accepted": c.accepted,
                "previous": c.old_file.map(file),
                "changes": c.changes,
                "failingChanges": c.changes.iter()
                    .filter(|x| report.fail_on.is_some_and(|at| super::run::at_least(x.severity, at)))
                    .count(),
            })
        })
        .collect();
    let objects: Vec<Value> = report
        .objects
        .iter()
        .map(|o| {
            json!({
                "file": file(o.file),
                "document": o.document,
                "object": o.title,
                "crd": o.crd,
                "operation": o.operation,
                "accepted": o.accepted,
                "ignored": o.ignored,
            })
        })
        .collect();
    let findings: Vec<Value> = report
        .findings
        .iter()
        .map(|x| {
            let mut v = serde_json::to_value(&x.finding).unwrap_or(Value::Null);
            if let Value::Object(map) = &mut v {
                // The engine's source ids name its inputs, not the repository's files.
                if let Some(Value::Object(location)) = map.get_mut("location") {
                    location.remove("source");
                }
                map.insert("file".into(), json!(file(x.file)));
            }
            v
        })
        .collect();
    let checked: Vec<_> = report.objects.iter().filter(|o| !o.ignored).collect();
    let mut doc = json!({
        "accepted": report.accepted(),
        "summary": {
            "crds": report.crds.len(),
            "crdsRejected": report.crds.iter().filter(|c| !c.accepted).count(),
            "objects": checked.len(),
            "objectsRejected": checked.iter().filter(|o| !o.accepted).count(),
            "objectsIgnored": report.objects.len() - checked.len(),
            "errors": report.count(Severity::Error),
            "warnings": report.count(Severity::Warning),
            "builtIn": report.built_in,
            "notObjects": report.not_objects,
        },
        "crds": crds,
        "objects": objects,
        "findings": findings,
    });
    if let (Some(a), Some(map)) = (across, doc.as_object_mut()) {
        let rows: Vec<Value> = a
            .rows
            .iter()
            .map(|r| {
                json!({
                    "file": r.file,
                    "name": r.name,
                    "verdicts": a.versions.iter().zip(&r.span.accepted)
                        .map(|(v, ok)| (v.to_string(), json!(ok)))
                        .collect::<serde_json::Map<String, Value>>(),
                    "oldestAccepting": r.span.oldest.map(|v| v.to_string()),
                    "firstDifference": r.span.first_difference.as_ref().map(|(v, m)| json!({
                        "version": v.to_string(),
                        "message": m,
                    })),
                    "line": a.line(r),
                })
            })
            .collect();
        map.insert("kubernetesVersions".into(), json!(rows));
    }
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// A file name as a relative URI reference (SARIF's `artifactLocation.uri`): bytes other
/// than unreserved characters and `/` percent-encoded (`<stdin>` is `%3Cstdin%3E`).
fn uri_reference(name: &str) -> String {
    let mut out = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// SARIF 2.1.0: one result per finding.
pub(crate) fn sarif(report: &Report) -> String {
    let mut b = sarif::Builder::default();
    for x in &report.findings {
        let f = &x.finding;
        let level = match f.severity {
            Severity::Error => sarif::Level::Error,
            Severity::Warning => sarif::Level::Warning,
            Severity::Info => sarif::Level::Note,
        };
        let uri = uri_reference(report.files.get(x.file).map_or("", String::as_str));
        let place = sarif::Place {
            file: &uri,
            span: f.location.map(|l| l.span),
            label: None,
        };
        b.add(&f.code, level, f.message.clone(), Some(place), Vec::new());
    }
    b.finish()
}
