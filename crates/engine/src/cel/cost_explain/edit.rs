//! The text edit of a bound fix: `keyword: value` set in a schema node of the YAML or JSON
//! text.

use super::*;

/// The edit that sets `keyword: value` in the mapping `node` of the YAML or JSON `text`:
/// the existing `keyword`'s value replaced, or a new entry written before the node's first
/// key, in the node's style — a new line with the same indentation in a block mapping (after
/// a `- ` too), `keyword: value, ` in a flow mapping (`"keyword": value,` when its keys are
/// quoted, as in JSON, on a line of its own when the first key starts its line), `{keyword:
/// value}` in an empty flow mapping. `None` when `node` is not a mapping written inside its
/// own span (a YAML alias, a merged key) or the existing value is not an integer.
pub fn bound_edit(text: &str, node: &Node, keyword: &str, value: u64) -> Option<TextEdit> {
    let Value::Map(entries) = &node.value else {
        return None;
    };
    let (start, end) = (node.span.start.offset, node.span.end.offset);
    let inside = |o: usize| o >= start && o < end.max(start + 1);
    if let Some(e) = entries.iter().find(|e| e.key == keyword) {
        if !inside(e.key_span.start.offset) || !matches!(e.value.value, Value::Int(_)) {
            return None;
        }
        return Some(TextEdit {
            start: e.value.span.start.offset,
            end: e.value.span.end.offset,
            text: value.to_string(),
        });
    }
    let first = entries
        .iter()
        .map(|e| e.key_span.start.offset)
        .filter(|o| inside(*o))
        .min();
    let Some(k) = first else {
        // An empty mapping: only a flow one (`{}`) can be empty.
        if !entries.is_empty() {
            return None;
        }
        let brace = start + text.get(start..end)?.find('{')?;
        return Some(TextEdit {
            start: brace + 1,
            end: brace + 1,
            text: format!("{keyword}: {value}"),
        });
    };
    let before = text.get(..k)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let prefix = before.get(line_start..)?;
    let starts_line = prefix.chars().all(|c| c == ' ' || c == '\t');
    // An explicit key (`? key`) has no room for an entry before it.
    if prefix.trim_end().ends_with('?') {
        return None;
    }
    // The text's own line breaks.
    let nl = if before.get(..line_start)?.ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let flow = before.trim_end().ends_with('{');
    if flow {
        let quoted = text.get(k..)?.starts_with('"');
        let key = if quoted {
            format!("\"{keyword}\"")
        } else {
            keyword.to_owned()
        };
        let text = if starts_line {
            format!("{key}: {value},{nl}{prefix}")
        } else {
            format!("{key}: {value}, ")
        };
        return Some(TextEdit {
            start: k,
            end: k,
            text,
        });
    }
    // A block mapping: a line of its own at the first key's column.
    let indent: String = if starts_line {
        prefix.to_owned()
    } else {
        " ".repeat(prefix.chars().count())
    };
    Some(TextEdit {
        start: k,
        end: k,
        text: format!("{keyword}: {value}{nl}{indent}"),
    })
}
