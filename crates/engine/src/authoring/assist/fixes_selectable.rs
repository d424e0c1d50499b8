//! The fix for a field selector on a field the CRD does not make selectable (kubectl's
//! "field label not supported: spec.color"): add the field to the version's
//! `selectableFields`, as an insertion in the CRD's YAML text.
//!
//! - The version's entry is found by `name` in the first document's `spec.versions`.
//! - A block list `selectableFields` gets one more `- jsonPath: .spec.color` line after its
//!   last line, indented like its other items; a flow list (`[]`, `[{jsonPath: .a}]`) gets
//!   one more element before its `]`.
//! - A version without `selectableFields` gets the key after its last line, indented like
//!   its other keys.
//!
//! `None` for JSON texts, flow-style versions, a field already listed and anything else
//! that has no obvious place.

use crate::documents::document::{parse, Node};
use crate::documents::finding::{SourceId, TextEdit};
use crate::documents::position::{LineIndex, Span};

/// The edit that adds `.{label}` to the `selectableFields` of `version` in the CRD `text`
/// (`label` as kubectl names it, e.g. `spec.color`).
pub fn add_selectable_field(text: &str, version: &str, label: &str) -> Option<TextEdit> {
    let label = label.trim().trim_start_matches('.');
    if label.is_empty() || label.contains(char::is_whitespace) {
        return None;
    }
    let json_path = format!(".{label}");
    let parsed = parse(text, SourceId::Crd);
    let (_, root) = parsed.values().next()?;
    let entry = root
        .get("spec")?
        .get("versions")?
        .as_seq()?
        .iter()
        .find(|v| v.get("name").and_then(Node::as_str) == Some(version))?;
    if text.get(entry.span.start.offset..)?.starts_with('{') {
        return None;
    }
    let (at, new_text) = match entry.entry("selectableFields") {
        Some(list) => {
            let items = list.value.as_seq()?;
            let listed = items
                .iter()
                .any(|i| i.get("jsonPath").and_then(Node::as_str) == Some(json_path.as_str()));
            if listed {
                return None;
            }
            let span = list.value.span;
            let written = text.get(span.start.offset..span.end.offset)?;
            if written.starts_with('[') {
                let close = span.end.offset.checked_sub(1)?;
                if text.get(close..span.end.offset)? != "]" {
                    return None;
                }
                let sep = if items.is_empty() { "" } else { ", " };
                (close, format!("{sep}{{jsonPath: {json_path}}}"))
            } else if written.starts_with('-') {
                let (at, newline) = after_last_line(text, span.end.offset);
                let indent = " ".repeat(indent_of(text, span.start.offset)?);
                (at, format!("{newline}{indent}- jsonPath: {json_path}\n"))
            } else {
                return None;
            }
        }
        None => {
            let (at, newline) = after_last_line(text, entry.span.end.offset);
            let indent = " ".repeat(indent_of(text, entry.span.start.offset)?);
            (
                at,
                format!("{newline}{indent}selectableFields:\n{indent}- jsonPath: {json_path}\n"),
            )
        }
    };
    let lines = LineIndex::new(text);
    let pos = lines.pos_at_offset(text, at);
    Some(TextEdit {
        span: Span {
            start: pos,
            end: pos,
        },
        new_text,
    })
}

/// The column (in bytes, the text before it being the line's indentation and `- ` markers)
/// of `offset` on its line.
fn indent_of(text: &str, offset: usize) -> Option<usize> {
    let before = text.get(..offset)?;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let lead = before.get(start..)?;
    lead.chars()
        .all(|c| c == ' ' || c == '-')
        .then_some(offset - start)
}

/// Where a line after the node ending at `end` starts: after the newline that ends its last
/// non-blank line, and whether a newline has to come first (the text's last line).
fn after_last_line(text: &str, end: usize) -> (usize, &'static str) {
    let head = text.get(..end).unwrap_or(text);
    let last = head.trim_end().len();
    match text.get(last..).and_then(|r| r.find('\n')) {
        Some(i) => (last + i + 1, ""),
        None => (text.len(), "\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::finding::apply_text_edits;

    const VERSIONS: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
";

    fn fixed(text: &str, version: &str, label: &str) -> Option<String> {
        let edit = add_selectable_field(text, version, label)?;
        apply_text_edits(text, &[edit])
    }

    #[test]
    fn table() {
        let with = |tail: &str| format!("{VERSIONS}{tail}");
        let cases: Vec<(String, &str, &str, Option<String>)> = vec![
            // No selectableFields: the key after the version's last line.
            (
                with("  - name: v2\n    served: false\n    storage: false\n"),
                "v1",
                "spec.color",
                Some(with(
                    "    selectableFields:\n    - jsonPath: .spec.color\n  - name: v2\n    served: false\n    storage: false\n",
                )),
            ),
            // The last version, at the end of a text without a final newline.
            (
                VERSIONS.trim_end().to_owned(),
                "v1",
                ".spec.color",
                Some(format!(
                    "{}\n    selectableFields:\n    - jsonPath: .spec.color\n",
                    VERSIONS.trim_end()
                )),
            ),
            // A block list: one more item.
            (
                with("    selectableFields:\n      - jsonPath: .spec.size\n"),
                "v1",
                "spec.color",
                Some(with(
                    "    selectableFields:\n      - jsonPath: .spec.size\n      - jsonPath: .spec.color\n",
                )),
            ),
            // Flow lists.
            (
                with("    selectableFields: []\n"),
                "v1",
                "spec.color",
                Some(with("    selectableFields: [{jsonPath: .spec.color}]\n")),
            ),
            (
                with("    selectableFields: [{jsonPath: .spec.size}]\n"),
                "v1",
                "spec.color",
                Some(with(
                    "    selectableFields: [{jsonPath: .spec.size}, {jsonPath: .spec.color}]\n",
                )),
            ),
            // Already listed, an unknown version, a label with spaces, JSON.
            (
                with("    selectableFields:\n    - jsonPath: .spec.color\n"),
                "v1",
                "spec.color",
                None,
            ),
            (VERSIONS.to_owned(), "v9", "spec.color", None),
            (VERSIONS.to_owned(), "v1", "spec. color", None),
            (
                r#"{"spec": {"versions": [{"name": "v1"}]}}"#.to_owned(),
                "v1",
                "spec.color",
                None,
            ),
        ];
        for (text, version, label, want) in cases {
            assert_eq!(fixed(&text, version, label), want, "{text}");
        }
    }

    #[test]
    fn the_fixed_text_parses_with_the_field_listed() {
        let out = fixed(VERSIONS, "v1", "spec.color").unwrap_or_default();
        let parsed = parse(&out, SourceId::Crd);
        assert!(parsed.findings.is_empty(), "{:?}", parsed.findings);
        let listed = parsed
            .values()
            .next()
            .and_then(|(_, r)| r.get("spec")?.get("versions")?.as_seq()?.first().cloned())
            .and_then(|v| {
                v.get("selectableFields")?
                    .as_seq()?
                    .first()?
                    .get("jsonPath")
                    .cloned()
            });
        assert_eq!(
            listed
                .and_then(|n| n.as_str().map(str::to_owned))
                .as_deref(),
            Some(".spec.color")
        );
    }
}
