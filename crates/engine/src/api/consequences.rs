//! Object errors that only follow from a broken CRD: with the CRD rejected, an object's error
//! at a field whose schema node (or an ancestor of it) a CRD error is about ("must be of type
//! strin" under `type: strin`) gets [`Finding::follows_from`], the CRD error's location. The
//! messages stay the server's.
//!
//! The CRD error's field is the server's path into the schema,
//! `spec.validation.openAPIV3Schema.properties[spec].properties[image].type` (or
//! `spec.versions[0].schema.openAPIV3Schema…`): its node is the longest run of
//! `properties[x]`, `items` and `additionalProperties` after `openAPIV3Schema`. The object
//! error's field, `spec.list[0].image`, names the schema node `properties[spec]
//! .properties[list].items.properties[image]` (a non-numeric `[key]` is a map key:
//! `additionalProperties`).

use crate::documents::finding::{Finding, Location, Severity, SourceId};

/// Marks the object errors of `findings` that follow from one of its CRD errors.
pub(crate) fn mark(findings: &mut [Finding]) {
    let causes: Vec<(Vec<String>, Location)> = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .filter_map(|f| {
            let loc = f.location.filter(|l| l.source == SourceId::Crd)?;
            Some((schema_node(f.field.as_deref()?)?, loc))
        })
        .collect();
    if causes.is_empty() {
        return;
    }
    for f in findings.iter_mut() {
        let is_object = matches!(
            f.location.map(|l| l.source),
            Some(SourceId::Object(_) | SourceId::OldObject)
        );
        if f.severity != Severity::Error || !is_object {
            continue;
        }
        let Some(node) = f.field.as_deref().and_then(object_node) else {
            continue;
        };
        f.follows_from = causes
            .iter()
            .find(|(cause, _)| node.starts_with(cause))
            .map(|(_, loc)| *loc);
    }
}

/// The path's segments: `a.b[0].c` is `a`, `b`, `[0]`, `c` (dots inside brackets kept).
fn segments(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in path.chars() {
        match c {
            '[' if depth == 0 => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                depth = 1;
                current.push(c);
            }
            ']' if depth == 1 => {
                depth = 0;
                current.push(c);
                out.push(std::mem::take(&mut current));
            }
            '.' if depth == 0 => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            _ => current.push(c),
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The schema node a CRD error is about, as `properties[x]` / `items` /
/// `additionalProperties` segments; `None` when the error is not inside a schema.
fn schema_node(field: &str) -> Option<Vec<String>> {
    let segs = segments(field);
    let at = segs.iter().position(|s| s == "openAPIV3Schema")?;
    let mut node = Vec::new();
    let mut rest = segs.get(at + 1..).unwrap_or_default().iter().peekable();
    while let Some(s) = rest.next() {
        match s.as_str() {
            "items" | "additionalProperties" => node.push(s.clone()),
            "properties" => match rest.peek() {
                Some(key) if key.starts_with('[') => {
                    node.push(format!("properties{key}"));
                    rest.next();
                }
                _ => break,
            },
            _ => break,
        }
    }
    Some(node)
}

/// The schema node an object's field path names.
fn object_node(field: &str) -> Option<Vec<String>> {
    if field.is_empty() || field == "<nil>" {
        return None;
    }
    Some(
        segments(field)
            .into_iter()
            .map(
                |s| match s.strip_prefix('[').and_then(|k| k.strip_suffix(']')) {
                    Some(k) if k.parse::<usize>().is_ok() => "items".to_owned(),
                    Some(_) => "additionalProperties".to_owned(),
                    None => format!("properties[{s}]"),
                },
            )
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::position::{Pos, Span};

    #[test]
    fn schema_nodes() {
        let cases: &[(&str, Option<&[&str]>)] = &[
            (
                "spec.validation.openAPIV3Schema.properties[spec].properties[image].type",
                Some(&["properties[spec]", "properties[image]"]),
            ),
            (
                "spec.versions[1].schema.openAPIV3Schema.properties[a.b].items.format",
                Some(&["properties[a.b]", "items"]),
            ),
            ("spec.validation.openAPIV3Schema.type", Some(&[])),
            ("spec.names.kind", None),
        ];
        for (field, want) in cases {
            let want = want.map(|w| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
            assert_eq!(schema_node(field), want, "{field}");
        }
    }

    #[test]
    fn object_nodes() {
        let cases: &[(&str, Option<&[&str]>)] = &[
            (
                "spec.image",
                Some(&["properties[spec]", "properties[image]"]),
            ),
            (
                "spec.list[0].labels[app.kubernetes.io/name]",
                Some(&[
                    "properties[spec]",
                    "properties[list]",
                    "items",
                    "properties[labels]",
                    "additionalProperties",
                ]),
            ),
            ("<nil>", None),
        ];
        for (field, want) in cases {
            let want = want.map(|w| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
            assert_eq!(object_node(field), want, "{field}");
        }
    }

    fn at(source: SourceId, line: usize) -> Location {
        let pos = Pos {
            offset: line * 10,
            line,
            column: 1,
            utf16_column: 1,
        };
        Location {
            source,
            document: 0,
            span: Span {
                start: pos,
                end: pos,
            },
        }
    }

    fn error(source: SourceId, line: usize, field: &str) -> Finding {
        let mut f = Finding::error("x", "m").at(at(source, line));
        f.field = Some(field.to_owned());
        f
    }

    #[test]
    fn marks_errors_under_the_broken_node_only() {
        let crd = "spec.validation.openAPIV3Schema.properties[spec].properties[image].type";
        let mut findings = vec![
            error(SourceId::Crd, 27, crd),
            error(SourceId::Object(0), 7, "spec.image"),
            error(SourceId::Object(0), 8, "spec.replicas"),
            error(SourceId::Object(0), 9, "<nil>"),
        ];
        let mut warning = error(SourceId::Object(0), 7, "spec.image");
        warning.severity = Severity::Warning;
        findings.push(warning);
        mark(&mut findings);
        let marked: Vec<Option<usize>> = findings
            .iter()
            .map(|f| f.follows_from.map(|l| l.span.start.line))
            .collect();
        assert_eq!(marked, [None, Some(27), None, None, None]);
    }

    #[test]
    fn no_crd_error_no_marks() {
        let mut findings = vec![error(SourceId::Object(0), 7, "spec.image")];
        mark(&mut findings);
        assert_eq!(findings.first().and_then(|f| f.follows_from), None);
    }
}
