//! Fixes: text edits attached to the findings that have an obvious repair
//! ([`crate::finding::Finding::fixes`]). Each fix is meant to remove its finding and add
//! none; `tests` applies each one and analyses again.
//!
//! - CRD: a schema node without `type` (inferred from `properties`, `items`, `enum`,
//!   `default`); an undefined field in a CEL rule (the nearest declared name); a printer
//!   column's JSONPath that can never match (the nearest field of the schema).
//! - Objects: an unknown field (the nearest field of the schema, or removing it); a value
//!   not in the enum (the nearest allowed one); a rule's `no such key` (the rule guarded
//!   with `has()`).
//!
//! In a JSON document ([`json_context::is_json`]) each fix writes JSON: `"type": "T",` as
//! the node's first member, a renamed key and a changed enum value quoted, a removed member
//! taken out with its comma, a guarded rule written as a JSON string.

use crate::documents::finding::{Finding, Fix, SourceId, TextEdit};
use crate::documents::position::{LineIndex, Span};
use crate::pipeline::CompiledVersion;
use crate::report::analysis::CompiledCrd;
use crate::schema::Structural;

use super::cel_assist;
use super::json_context;
use super::yaml_context::Place;

/// At most this many findings of a text get fixes: each fix reads the text around its
/// finding (the lines above it, a rule's scalar), so a text with thousands of findings does
/// not pay thousands of scans.
pub const MAX_FIXED: usize = 100;

/// Names longer than this get no "nearest name" (distance is quadratic in the length).
const MAX_NAME: usize = 128;

/// Levenshtein distance between two strings (case-insensitive), by characters.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut row = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev.get(j).copied().unwrap_or(0) + usize::from(ca != cb);
            let del = prev.get(j + 1).copied().unwrap_or(0) + 1;
            let ins = row.get(j).copied().unwrap_or(0) + 1;
            row.push(sub.min(del).min(ins));
        }
        prev = row;
    }
    prev.last().copied().unwrap_or(0)
}

/// The candidate nearest `word`, when it is near enough to be what was meant.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    if word.len() > MAX_NAME {
        return None;
    }
    let limit = (word.chars().count() / 2).max(2);
    candidates
        .into_iter()
        .filter(|c| *c != word && c.len() <= MAX_NAME)
        .map(|c| (distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

fn edit(text: &str, lines: &LineIndex, start: usize, end: usize, new_text: String) -> TextEdit {
    TextEdit {
        span: Span {
            start: lines.pos_at_offset(text, start),
            end: lines.pos_at_offset(text, end),
        },
        new_text,
    }
}

fn fix(title: String, edits: Vec<TextEdit>) -> Fix {
    Fix {
        title,
        source: None,
        edits,
    }
}

/// A YAML plain scalar can hold `s` as it is (else it is written as a JSON string).
fn yaml_scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        && !matches!(
            s.to_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n" | "~"
        )
        && s.parse::<f64>().is_err();
    if plain {
        s.to_owned()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

// ----------------------------------------------------------------------------------------
// CRD findings
// ----------------------------------------------------------------------------------------

/// Adds the fixes of the CRD's findings (`text` is the CRD text).
pub fn add_crd_fixes(findings: &mut [Finding], text: &str, compiled: &[CompiledVersion]) {
    let mut lines: Option<LineIndex> = None;
    let mut fixed = 0;
    for f in findings.iter_mut() {
        if fixed >= MAX_FIXED {
            break;
        }
        let Some(loc) = f.location.filter(|l| l.source == SourceId::Crd) else {
            continue;
        };
        let is_missing_type = f.code == "crd.invalid"
            && f.field.as_deref().is_some_and(|p| p.ends_with(".type"))
            && f.message.contains("Required value: must not be empty");
        let undefined = f
            .message
            .split("undefined field '")
            .nth(1)
            .and_then(|r| r.split('\'').next())
            .map(str::to_owned);
        let column =
            f.code == "crd.printer-column" && f.message.contains("the schema has no field `");
        let unsupported = unsupported_value(&f.message);
        if !is_missing_type && undefined.is_none() && !column && unsupported.is_none() {
            continue;
        }
        let lines = lines.get_or_insert_with(|| LineIndex::new(text));
        fixed += 1;
        let (start, end) = (loc.span.start.offset, loc.span.end.offset);
        let found = if is_missing_type && json_context::is_json(text, start) {
            missing_type_json(text, lines, start)
        } else if is_missing_type {
            missing_type(text, lines, start)
        } else if let Some(name) = undefined {
            undefined_field(text, lines, compiled, start, &name)
        } else if let Some((bad, supported)) = unsupported {
            nearest_supported(text, lines, start, &bad, &supported)
        } else {
            column_path(text, lines, compiled, f, start, end)
        };
        f.fixes.extend(found);
    }
}

/// The value and the supported values of a `field.NotSupported` message
/// (`Unsupported value: "strin": supported values: "array", "boolean", …`).
fn unsupported_value(message: &str) -> Option<(String, Vec<String>)> {
    let rest = message.split("Unsupported value: \"").nth(1)?;
    let (bad, rest) = rest.split_once("\": supported values: ")?;
    let supported: Vec<String> = rest
        .lines()
        .next()?
        .split(", ")
        .filter_map(|v| v.strip_prefix('"')?.strip_suffix('"'))
        .map(str::to_owned)
        .collect();
    (!bad.is_empty() && !supported.is_empty()).then(|| (bad.to_owned(), supported))
}

/// "Change to `string`": the supported value nearest the one written (`type: strin`),
/// replaced where it is written on the finding's line.
fn nearest_supported(
    text: &str,
    lines: &LineIndex,
    at: usize,
    bad: &str,
    supported: &[String],
) -> Option<Fix> {
    let best = nearest(bad, supported.iter().map(String::as_str))?;
    let line_start = text.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
    let line_end = text.get(at..)?.find('\n').map_or(text.len(), |i| at + i);
    let line = text.get(line_start..line_end)?;
    // The value's own occurrence: a whole word, nearest the finding's column.
    let rel = at - line_start;
    let found = line
        .match_indices(bad)
        .map(|(i, _)| i)
        .filter(|&i| {
            let before = line.get(..i).and_then(|b| b.chars().next_back());
            let after = line.get(i + bad.len()..).and_then(|r| r.chars().next());
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !word(before) && !word(after)
        })
        .min_by_key(|&i| i.abs_diff(rel))?;
    let start = line_start + found;
    Some(fix(
        format!("Change to `{best}`"),
        vec![edit(text, lines, start, start + bad.len(), best.to_owned())],
    ))
}

/// The type a scalar's YAML text reads as.
fn scalar_type(v: &str) -> Option<&'static str> {
    let v = v.trim();
    if v.is_empty() {
        return None;
    }
    Some(if v.starts_with('{') {
        "object"
    } else if v.starts_with('[') {
        "array"
    } else if v.starts_with(['"', '\'']) {
        "string"
    } else if v == "true" || v == "false" {
        "boolean"
    } else if v.parse::<i64>().is_ok() {
        "integer"
    } else if v.parse::<f64>().is_ok() {
        "number"
    } else {
        "string"
    })
}

/// `type: T` for the schema node whose key is at `key_at`, T inferred from its children.
fn missing_type(text: &str, lines: &LineIndex, key_at: usize) -> Option<Fix> {
    let line_end = text.get(key_at..)?.find('\n').map(|i| key_at + i)?;
    let key_line_start = text.get(..key_at)?.rfind('\n').map_or(0, |i| i + 1);
    let key_indent = key_at - key_line_start;
    let body_start = line_end + 1;
    let mut child_indent = None;
    let mut inferred = None;
    let mut pos = body_start;
    let mut first_child = None;
    for line in text.get(body_start..)?.split('\n') {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let content = line.trim();
        if content.is_empty() || content.starts_with('#') {
            pos += line.len() + 1;
            continue;
        }
        if indent <= key_indent {
            break;
        }
        let ci = *child_indent.get_or_insert(indent);
        if first_child.is_none() {
            first_child = Some(pos);
        }
        if indent == ci {
            let (k, v) = content.split_once(':').unwrap_or((content, ""));
            let t = match k.trim() {
                "properties" | "additionalProperties" => Some("object"),
                "items" => Some("array"),
                "enum" => {
                    let v = v.trim();
                    if let Some(inner) = v.strip_prefix('[') {
                        scalar_type(inner.split([',', ']']).next().unwrap_or(""))
                    } else {
                        // A block list: the next line's item.
                        let next = text.get(pos + line.len() + 1..).unwrap_or("");
                        next.lines()
                            .next()
                            .and_then(|l| l.trim().strip_prefix("- "))
                            .and_then(scalar_type)
                    }
                }
                "default" => scalar_type(v),
                _ => None,
            };
            if inferred.is_none() {
                inferred = t;
            }
        }
        pos += line.len() + 1;
    }
    let t = inferred?;
    let at = first_child?;
    let indent = " ".repeat(child_indent?);
    Some(fix(
        format!("Add `type: {t}`"),
        vec![edit(text, lines, at, at, format!("{indent}type: {t}\n"))],
    ))
}

/// The JSON type name of a value, as a schema's `type`.
fn json_type(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Object(_) => "object",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::Null => "object",
    }
}

/// The offset of a JSON member's value, its key (a string or a word) at `key`.
fn member_value(text: &str, key: usize) -> Option<usize> {
    let after_key = json_context::value_end(text, key)?;
    let rest = text.get(after_key..)?;
    let colon = rest.len() - rest.trim_start().len();
    let rest = rest.get(colon..)?.strip_prefix(':')?;
    let spaces = rest.len() - rest.trim_start().len();
    Some(after_key + colon + 1 + spaces)
}

/// In JSON: `"type": "T",` as the first member of the node whose key is at `key_at`, T
/// inferred from its members as [`missing_type`] does.
fn missing_type_json(text: &str, lines: &LineIndex, key_at: usize) -> Option<Fix> {
    let open = if text.get(key_at..)?.starts_with('{') {
        key_at
    } else {
        member_value(text, key_at)?
    };
    let end = json_context::value_end(text, open)?;
    let node: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(text.get(open..end)?).ok()?;
    let t = if node.contains_key("properties") || node.contains_key("additionalProperties") {
        "object"
    } else if node.contains_key("items") {
        "array"
    } else if let Some(first) = node
        .get("enum")
        .and_then(|e| e.as_array())
        .and_then(|e| e.first())
    {
        json_type(first)
    } else {
        json_type(node.get("default")?)
    };
    // Before the first member, with the whitespace that precedes it.
    let inner = text.get(open + 1..end)?;
    let lead = inner.len() - inner.trim_start().len();
    let at = open + 1 + lead;
    let sep = text.get(open + 1..at)?;
    let sep = if sep.is_empty() { " " } else { sep };
    Some(fix(
        format!("Add `type: {t}`"),
        vec![edit(
            text,
            lines,
            at,
            at,
            format!("\"type\": \"{t}\",{sep}"),
        )],
    ))
}

/// The rule's node, the chain before `name` and the candidates, for an undefined field at
/// `at` (inside a rule).
fn undefined_field(
    text: &str,
    lines: &LineIndex,
    compiled: &[CompiledVersion],
    at: usize,
    name: &str,
) -> Option<Fix> {
    // The field's own occurrence: at or after the error's column, on its line.
    let line_end = text.get(at..)?.find('\n').map_or(text.len(), |i| at + i);
    let line_start = text.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
    let line = text.get(line_start..line_end)?;
    let rel = at - line_start;
    let needle = format!(".{name}");
    let found = line
        .match_indices(&needle)
        .map(|(i, _)| i)
        .filter(|&i| {
            let after = line.get(i + needle.len()..).and_then(|r| r.chars().next());
            !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
        .min_by_key(|&i| i.abs_diff(rel))?;
    let start = line_start + found + 1;
    let ctx = super::context_at(text, start)?;
    let Place::Value {
        start: rule_start, ..
    } = ctx.place
    else {
        return None;
    };
    let place = super::schema_place(&ctx.path)?;
    let node = schema_node_in(compiled, &place);
    let receiver = text.get(rule_start..start - 1)?;
    let receiver = receiver.strip_prefix(['"', '\'']).unwrap_or(receiver);
    let chain: &str = {
        let n: usize = receiver
            .chars()
            .rev()
            .take_while(|&c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            .map(char::len_utf8)
            .sum();
        receiver.get(receiver.len() - n..)?
    };
    let target = cel_assist::resolve(node, chain)?;
    let names: Vec<String> = target
        .properties
        .keys()
        .filter_map(|k| crate::cel::decl_type::escape(k))
        .collect();
    let best = nearest(name, names.iter().map(String::as_str))?;
    Some(fix(
        format!("Did you mean `{best}`?"),
        vec![edit(
            text,
            lines,
            start,
            start + name.len(),
            best.to_owned(),
        )],
    ))
}

fn schema_node_in<'a>(
    compiled: &'a [CompiledVersion],
    place: &super::SchemaPlace,
) -> Option<&'a Structural> {
    let find = |v: &'a CompiledVersion| super::walk_steps(v.structural.as_deref()?, &place.steps);
    place
        .version
        .and_then(|i| compiled.get(i))
        .and_then(find)
        .or_else(|| compiled.iter().find_map(find))
}

/// A printer column's JSONPath naming a field the schema lacks: the nearest field there.
fn column_path(
    text: &str,
    lines: &LineIndex,
    compiled: &[CompiledVersion],
    f: &Finding,
    start: usize,
    end: usize,
) -> Option<Fix> {
    let rest = f.message.split("the schema has no field `").nth(1)?;
    let (missing, rest) = rest.split_once('`')?;
    let parent = rest
        .split("under `")
        .nth(1)
        .and_then(|r| r.split('`').next())
        .unwrap_or("");
    let version: usize = f
        .field
        .as_deref()?
        .strip_prefix("spec.versions[")?
        .split(']')
        .next()?
        .parse()
        .ok()?;
    let mut node = compiled.get(version)?.structural.as_deref()?;
    for step in parent.split('.').filter(|s| !s.is_empty()) {
        let step = step.split('[').next().unwrap_or(step);
        node = node
            .properties
            .get(step)
            .or_else(|| node.items.as_deref().and_then(|i| i.properties.get(step)))?;
    }
    if node.generic.type_ == "array" {
        node = node.items.as_deref()?;
    }
    let best = nearest(missing, node.properties.keys().map(String::as_str))?;
    let value = text.get(start..end)?;
    let at = value.rfind(missing)?;
    Some(fix(
        format!("Use `{best}`"),
        vec![edit(
            text,
            lines,
            start + at,
            start + at + missing.len(),
            best.to_owned(),
        )],
    ))
}

// ----------------------------------------------------------------------------------------
// Object findings
// ----------------------------------------------------------------------------------------

/// Adds the fixes of the objects' findings.
pub fn add_object_fixes(findings: &mut [Finding], objects: &[String], crd: &CompiledCrd) {
    let mut indexes: Vec<Option<LineIndex>> = vec![None; objects.len()];
    let mut fixed = vec![0usize; objects.len()];
    let mut crd_lines: Option<LineIndex> = None;
    let mut guards: Vec<(String, Option<Fix>)> = Vec::new();
    for f in findings.iter_mut() {
        let Some(loc) = f.location else { continue };
        let SourceId::Object(i) = loc.source else {
            continue;
        };
        let Some(text) = objects.get(i) else { continue };
        let (start, end) = (loc.span.start.offset, loc.span.end.offset);
        let unknown = f.code == "object.unknown-field";
        let not_supported =
            f.message.contains(": Unsupported value: ") && f.message.contains("supported values: ");
        let no_such_key =
            f.message.contains("no such key: ") && f.message.contains(" evaluating rule: ");
        if !unknown && !not_supported && !no_such_key {
            continue;
        }
        match fixed.get_mut(i) {
            Some(n) if *n < MAX_FIXED => *n += 1,
            _ => continue,
        }
        let Some(lines) = indexes
            .get_mut(i)
            .map(|l| l.get_or_insert_with(|| LineIndex::new(text)))
        else {
            continue;
        };
        if unknown {
            f.fixes.extend(unknown_field(text, lines, crd, start, end));
        } else if not_supported {
            f.fixes
                .extend(enum_value(text, lines, &f.message, start, end));
        } else {
            // One rule fails the same way in many objects: its fix is worked out once.
            let found = match guards.iter().find(|(m, _)| *m == f.message) {
                Some((_, g)) => g.clone(),
                None => {
                    let g = guard_rule(crd, &f.message, &mut crd_lines);
                    guards.push((f.message.clone(), g.clone()));
                    g
                }
            };
            f.fixes.extend(found);
        }
    }
}

fn unknown_field(
    text: &str,
    lines: &LineIndex,
    crd: &CompiledCrd,
    start: usize,
    end: usize,
) -> Vec<Fix> {
    let mut out = Vec::new();
    let Some(key) = text.get(start..end) else {
        return out;
    };
    let json = json_context::is_json(text, start);
    // A JSON key's span has its quotes.
    let quoted = json && key.len() >= 2 && key.starts_with('"') && key.ends_with('"');
    let key = if quoted {
        key.get(1..key.len() - 1).unwrap_or(key)
    } else {
        key
    };
    let Some(ctx) = super::context_at(text, start) else {
        return out;
    };
    if let Some(parent) = super::walk(super::object_root(crd, text, start), &ctx.path) {
        let free: Vec<&str> = parent
            .properties
            .keys()
            .map(String::as_str)
            .filter(|k| !ctx.siblings.iter().any(|s| s == k))
            .collect();
        if let Some(best) = nearest(key, free) {
            let new_text = if json {
                serde_json::to_string(best).unwrap_or_default()
            } else {
                best.to_owned()
            };
            out.push(fix(
                format!("Rename to `{best}`"),
                vec![edit(text, lines, start, end, new_text)],
            ));
        }
    }
    if json {
        out.extend(remove_member_json(text, lines, key, start));
        return out;
    }
    // Remove: the key's line and the lines under it, when the key starts its line.
    let line_start = text
        .get(..start)
        .and_then(|t| t.rfind('\n'))
        .map_or(0, |i| i + 1);
    let indent = start - line_start;
    if text
        .get(line_start..start)
        .is_some_and(|p| p.chars().all(|c| c == ' '))
    {
        let mut stop = text
            .get(start..)
            .and_then(|t| t.find('\n'))
            .map_or(text.len(), |i| start + i + 1);
        while let Some(rest) = text.get(stop..).filter(|r| !r.is_empty()) {
            let line = rest.split('\n').next().unwrap_or("");
            let li = line.len() - line.trim_start_matches(' ').len();
            if line.trim().is_empty()
                || li > indent
                || (li == indent && line.trim_start().starts_with("- "))
            {
                stop = (stop + line.len() + 1).min(text.len());
            } else {
                break;
            }
        }
        out.push(fix(
            format!("Remove `{key}`"),
            vec![edit(text, lines, line_start, stop, String::new())],
        ));
    }
    out
}

/// In JSON: the member whose key is at `start` removed with its comma (the one after it, or
/// before it when it is the last member).
fn remove_member_json(text: &str, lines: &LineIndex, key: &str, start: usize) -> Option<Fix> {
    let value = member_value(text, start)?;
    let value_end = json_context::value_end(text, value)?;
    let after = text.get(value_end..)?;
    let gap = after.len() - after.trim_start().len();
    let (from, to) = if after.get(gap..)?.starts_with(',') {
        let rest = text.get(value_end + gap + 1..)?;
        let ws = rest.len() - rest.trim_start().len();
        (start, value_end + gap + 1 + ws)
    } else {
        let before = text.get(..start)?.trim_end();
        let comma = before.strip_suffix(',').map(str::len);
        (comma.unwrap_or(start), value_end)
    };
    Some(fix(
        format!("Remove `{key}`"),
        vec![edit(text, lines, from, to, String::new())],
    ))
}

fn enum_value(
    text: &str,
    lines: &LineIndex,
    message: &str,
    start: usize,
    end: usize,
) -> Option<Fix> {
    let list = message.rsplit("supported values: ").next()?;
    let json = json_context::is_json(text, start);
    let values: Vec<String> = list
        .split(", ")
        .filter_map(|v| serde_json::from_str::<String>(v.trim()).ok())
        .collect();
    // The location may be the key (`mode`) of `mode: value`: the value is after the colon.
    let json_value = if json {
        member_value(text, start).and_then(|v| Some((v, json_context::value_end(text, v)?)))
    } else {
        None
    };
    let (start, end) = match text.get(end..).and_then(|r| r.strip_prefix(':')) {
        _ if json_value.is_some() => json_value.unwrap_or((start, end)),
        Some(after) => {
            let line = after.split('\n').next().unwrap_or("");
            let line = line.split(" #").next().unwrap_or(line);
            let lead = line.len() - line.trim_start().len();
            let v = line.trim();
            if v.is_empty() {
                return None;
            }
            (end + 1 + lead, end + 1 + lead + v.len())
        }
        None => (start, end),
    };
    let got = text.get(start..end)?;
    let got_plain = got.trim_matches(['"', '\'']);
    let best = values
        .iter()
        .map(|v| (distance(got_plain, v), v))
        .min_by_key(|(d, v)| (*d, (*v).clone()))
        .map(|(_, v)| v)?;
    Some(fix(
        format!("Change to `{best}`"),
        vec![edit(
            text,
            lines,
            start,
            end,
            if json {
                serde_json::to_string(best).unwrap_or_default()
            } else {
                yaml_scalar(best)
            },
        )],
    ))
}

/// `no such key: K evaluating rule: R`: the rule in the CRD, guarded with `has()`.
fn guard_rule(crd: &CompiledCrd, message: &str, lines: &mut Option<LineIndex>) -> Option<Fix> {
    let rest = message.split("no such key: ").nth(1)?;
    let (key, rule) = rest.split_once(" evaluating rule: ")?;
    let text = crd.text();
    // The receiver: the chain before `.key` in the rule.
    let needle = format!(".{key}");
    let at = rule.find(&needle)?;
    let before = rule.get(..at)?;
    let n: usize = before
        .chars()
        .rev()
        .take_while(|&c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        .map(char::len_utf8)
        .sum();
    let chain = before.get(before.len() - n..)?;
    if !(chain == "self"
        || chain.starts_with("self.")
        || chain == "oldSelf"
        || chain.starts_with("oldSelf."))
    {
        return None;
    }
    let guarded = format!("!has({chain}.{key}) || ({rule})");
    let lines = lines.get_or_insert_with(|| LineIndex::new(text));
    // In JSON: `"rule": "R"`, the string read with its escapes.
    // Whether the document of the last match is JSON, until its end (one scan a document).
    let mut doc: Option<(usize, bool)> = None;
    for (pos, _) in text.match_indices("\"rule\"") {
        let json = match doc {
            Some((end, json)) if pos < end => json,
            _ => {
                let (_, end) = json_context::document_range(text, pos);
                let json = json_context::is_json(text, pos);
                doc = Some((end, json));
                json
            }
        };
        if !json {
            continue;
        }
        let Some(v) = member_value(text, pos) else {
            continue;
        };
        let Some(e) = json_context::value_end(text, v) else {
            continue;
        };
        let value = text.get(v..e)?;
        if serde_json::from_str::<String>(value).ok().as_deref() == Some(rule) {
            return Some(Fix {
                title: format!("Guard the rule with `has({chain}.{key})`"),
                source: Some(SourceId::Crd),
                edits: vec![edit(
                    text,
                    lines,
                    v,
                    e,
                    serde_json::to_string(&guarded).ok()?,
                )],
            });
        }
    }
    // The rule's scalar in the CRD text: `rule: R`, `rule: "R"` or `rule: 'R'`.
    for (pos, _) in text.match_indices("rule:") {
        let after = text.get(pos + 5..)?;
        let spaces = after.len() - after.trim_start_matches(' ').len();
        let vstart = pos + 5 + spaces;
        let value = text.get(vstart..)?.split('\n').next().unwrap_or("");
        let value = value.trim_end();
        let double = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .and_then(|v| serde_json::from_str::<String>(&format!("\"{v}\"")).ok());
        let (new_text, len) = if value == rule || double.as_deref() == Some(rule) {
            (serde_json::to_string(&guarded).ok()?, value.len())
        } else if value
            .strip_prefix('\'')
            .and_then(|v| v.strip_suffix('\''))
            .map(|v| v.replace("''", "'"))
            .as_deref()
            == Some(rule)
        {
            (format!("'{}'", guarded.replace('\'', "''")), value.len())
        } else {
            continue;
        };
        return Some(Fix {
            title: format!("Guard the rule with `has({chain}.{key})`"),
            source: Some(SourceId::Crd),
            edits: vec![edit(text, lines, vstart, vstart + len, new_text)],
        });
    }
    None
}
