//! Completion and hover in a test file (`*.crdtest.yaml`), for the editors (the language
//! server): the format's own keys and values from [`FORMAT`], the engine's description of the
//! format (a test checks it against `schemas/crdtest.schema.json` and the reader), and inside
//! a case's inline `object`/`oldObject` (or an inline `crd`) the object's (or CRD's) own
//! completion and hover with the CRD under test.
//!
//! The cursor's place comes from the indentation of the lines above it (the assist's YAML
//! context), so half-typed files complete. An inline object is handed to the object editor's
//! completion as a text of its own: its block's lines, less the block's indentation; the
//! answer's ranges are mapped back. Offsets here are UTF-16 code units, as editors count.

use crate::authoring::assist::yaml_context::{self, Place, Seg};
use crate::authoring::assist::{self, CompletionItem, Completions, Editor, Hover};
use crate::documents::position::{byte_offset, utf16_offset};
use crate::report::analysis::CompiledCrd;

/// One key of the format: its name, what it takes, one line of documentation.
pub type FormatKey = (&'static str, &'static str, &'static str);

/// Where in a test file: the path of mappings (`[]` the top, `case`, `expect`, `crdExpect`,
/// `message`: an item of `errors`, `warnings` or `messages`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Top,
    CrdExpect,
    Case,
    Expect,
    Message,
}

/// The format's keys at each level: the engine's description of `*.crdtest.yaml`.
const FORMAT: &[(Level, &[FormatKey])] = &[
    (
        Level::Top,
        &[
            ("crd", "path | CRD · required", "The CRD under test: a path relative to this file, or the CRD itself."),
            ("kubernetesVersions", "version | list | range", "The Kubernetes versions every case runs at (1.37, 1.30..1.37, all). Default 1.37."),
            ("fieldValidation", "Strict | Warn | Ignore", "How the server treats unknown and duplicate fields. Default Strict."),
            ("crdExpect", "mapping", "What the server does with the CRD itself: accepted, messages, maxRuleCost."),
            ("cases", "list", "The cases: each an object (and maybe an old object or old CRD) and what it expects."),
        ],
    ),
    (
        Level::CrdExpect,
        &[
            ("accepted", "boolean", "Whether the server accepts the CRD."),
            ("messages", "list of messages", "Every error about the CRD (none: []), in any order."),
            ("maxRuleCost", "integer", "Every CEL rule's estimated cost at most this."),
        ],
    ),
    (
        Level::Case,
        &[
            ("name", "string", "The case's name in the report."),
            ("object", "path | object · required", "The object (one document): a path relative to this file, or the object itself."),
            ("oldObject", "path | object", "The object before: the case is an update (transition rules, ratcheting)."),
            ("oldCrd", "path | CRD", "The previous revision of the CRD (the object stored under it)."),
            ("snapshot", "boolean", "`crd-studio test --update` writes the current result as this case's expect."),
            ("expect", "mapping", "What the server does with the object. Without expect, the object must be accepted."),
        ],
    ),
    (
        Level::Expect,
        &[
            ("verdict", "accepted | rejected", "Whether the server accepts the object."),
            ("errors", "list of messages", "Every error (none: []), in any order."),
            ("warnings", "list of messages", "Every warning (none: []), in any order."),
            ("fields", "partial object", "A part of the object after pruning and defaulting (null: absent)."),
            ("stored", "partial object", "A part of the object as stored (the storage version)."),
            ("columns", "mapping", "kubectl get cells by column name."),
            ("maxCost", "integer", "The CEL runtime cost spent on the object at most this."),
        ],
    ),
    (
        Level::Message,
        &[
            ("path", "string", "The field path the server names (spec.size; <nil> for none)."),
            ("message", "string", "The message: the detail or the whole error text, exactly."),
            ("contains", "string", "A part of the whole error text."),
            ("regex", "string", "A Go (RE2) regular expression found in the whole error text."),
        ],
    ),
];

/// The values a key takes, when they are a few words.
const VALUES: &[(Level, &str, &[&str])] = &[
    (Level::Top, "fieldValidation", &["Strict", "Warn", "Ignore"]),
    (Level::Top, "kubernetesVersions", &["all"]),
    (Level::CrdExpect, "accepted", &["true", "false"]),
    (Level::Case, "snapshot", &["true", "false"]),
    (Level::Expect, "verdict", &["accepted", "rejected"]),
];

/// The level of a mapping at `path`, when it is one of the format's.
fn level(path: &[Seg]) -> Option<Level> {
    let keys: Vec<Option<&str>> = path.iter().map(Seg::key).collect();
    Some(match keys.as_slice() {
        [] => Level::Top,
        [Some("crdExpect")] => Level::CrdExpect,
        [Some("crdExpect"), Some("messages"), None] => Level::Message,
        [Some("cases"), None] => Level::Case,
        [Some("cases"), None, Some("expect")] => Level::Expect,
        [Some("cases"), None, Some("expect"), Some("errors" | "warnings"), None] => Level::Message,
        _ => return None,
    })
}

fn keys_of(level: Level) -> &'static [FormatKey] {
    FORMAT
        .iter()
        .find(|(l, _)| *l == level)
        .map_or(&[], |(_, k)| *k)
}

/// Which embedded document the cursor is in: an object's or a CRD's, with the block's place.
struct Embedded {
    editor: Editor,
    /// The block's own text (its lines less the block's indentation).
    text: String,
    /// The cursor in `text` (bytes).
    offset: usize,
    /// Per line of `text`: where it starts in `text` and in the test file (bytes).
    lines: Vec<(usize, usize)>,
}

impl Embedded {
    /// A byte offset of the block's text as a byte offset of the test file.
    fn outer(&self, inner: usize) -> usize {
        self.lines
            .iter()
            .rev()
            .find(|(i, _)| *i <= inner)
            .map_or(inner, |(i, o)| o + (inner - i))
    }
}

/// Which inline document the cursor's mapping `path` is in: the editor, and which segment
/// of the path is the document's key.
fn embedded_editor(path: &[Seg]) -> Option<(Editor, usize)> {
    let keys: Vec<Option<&str>> = path.iter().map(Seg::key).collect();
    match keys.as_slice() {
        [Some("crd"), ..] => Some((Editor::Crd, 0)),
        [Some("cases"), None, Some("object" | "oldObject"), ..] => Some((Editor::Object, 2)),
        _ => None,
    }
}

/// The inline document around byte `offset` of `text`, its key being the `depth`-th segment
/// of the cursor's path.
fn embedded(text: &str, offset: usize, editor: Editor, depth: usize) -> Option<Embedded> {
    let ctx = yaml_context::context(text, offset)?;
    let want_parent: Vec<Seg> = ctx.path.get(..depth)?.to_vec();
    let want_key = ctx.path.get(depth)?.key()?.to_owned();
    // The key's line: the nearest line above whose key is it, in the right mapping.
    let line_start = text.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
    let mut key_line = None;
    let mut at = line_start;
    while at > 0 {
        let prev = text.get(..at - 1)?.rfind('\n').map_or(0, |i| i + 1);
        at = prev;
        let line = text.get(prev..)?.lines().next().unwrap_or("");
        let trimmed = line.trim_start_matches([' ', '-']);
        if !trimmed.starts_with(want_key.as_str()) {
            continue;
        }
        if let Some((path, key, key_start, _)) = yaml_context::key_at(text, prev + line.len()) {
            if key == want_key && path == want_parent {
                let value = line.get(key_start - prev + key.len()..).unwrap_or("");
                let value = value.trim_start_matches([':', '"', '\'']).trim();
                if !value.is_empty() && !value.starts_with('#') {
                    return None; // a path or a flow mapping on the key's line
                }
                key_line = Some((prev, key_start - prev));
                break;
            }
        }
    }
    let (key_at, key_col) = key_line?;
    // The block: the lines after the key's line more indented than the key.
    let body_start = key_at + text.get(key_at..)?.find('\n')? + 1;
    let indent_of = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let cursor_line = text.get(line_start..)?.lines().next().unwrap_or("");
    let mut lines = Vec::new();
    let mut block_indent = None;
    let mut pos = body_start;
    for line in text.get(body_start..)?.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let blank = content.trim().is_empty() || content.trim_start().starts_with('#');
        if !blank && indent_of(content) <= key_col && pos != line_start {
            break;
        }
        if !blank && block_indent.is_none() {
            block_indent = Some(indent_of(content));
        }
        lines.push((pos, line));
        pos += line.len();
    }
    let n = block_indent
        .unwrap_or_else(|| indent_of(cursor_line).max(offset - line_start))
        .max(key_col + 1);
    let mut out = Embedded {
        editor,
        text: String::new(),
        offset: 0,
        lines: Vec::new(),
    };
    let mut cursor = None;
    for (start, line) in lines {
        let cut = indent_of(line).min(n);
        if (start..start + line.len().max(1)).contains(&offset) || start + line.len() == offset {
            cursor.get_or_insert(out.text.len() + offset.saturating_sub(start + cut));
        }
        out.lines.push((out.text.len(), start + cut));
        out.text.push_str(line.get(cut..).unwrap_or(""));
    }
    out.offset = cursor?;
    Some(out)
}

fn item(label: &str, kind: &str, detail: &str, info: &str) -> CompletionItem {
    CompletionItem {
        label: label.to_owned(),
        kind: kind.to_owned(),
        detail: detail.to_owned(),
        info: info.to_owned(),
        apply: None,
        filter_text: None,
    }
}

/// Completion at byte `offset` of test file `text`: the format's keys and values, or in an
/// inline object (CRD) the object's (CRD's) completion with `crd`, the CRD under test.
pub fn crd_test_complete(
    text: &str,
    offset: usize,
    crd: Option<&CompiledCrd>,
) -> Option<Completions> {
    let ctx = yaml_context::context(text, offset)?;
    if let Some((editor, depth)) = embedded_editor(&ctx.path) {
        let e = embedded(text, offset, editor, depth)?;
        let mut c = assist::complete(crd?, e.editor, &e.text, e.offset)?;
        c.from = e.outer(c.from);
        c.to = e.outer(c.to);
        c.comma_at = c.comma_at.map(|b| e.outer(b));
        return Some(c);
    }
    let level = level(&ctx.path)?;
    let partial = ctx.partial.to_lowercase();
    let fits = |label: &str| {
        let l = label.to_lowercase();
        partial.chars().all(|ch| l.contains(ch))
    };
    let items = match &ctx.place {
        Place::Key => keys_of(level)
            .iter()
            .filter(|(k, _, _)| !ctx.siblings.iter().any(|s| s == k) && fits(k))
            .map(|(k, detail, info)| CompletionItem {
                apply: Some(format!("{k}: ")),
                ..item(k, "property", detail, info)
            })
            .collect(),
        Place::Value { key, .. } => VALUES
            .iter()
            .filter(|(l, k, _)| *l == level && k == key)
            .flat_map(|(_, _, values)| values.iter())
            .filter(|v| fits(v))
            .map(|v| item(v, "enum", "", ""))
            .collect(),
    };
    Some(Completions {
        from: ctx.from,
        to: offset,
        items,
        comma_at: None,
    })
}

/// Hover at byte `offset` of test file `text`: a format key's documentation, or in an inline
/// object (CRD) the object's (CRD's) hover with `crd`.
pub fn crd_test_hover(text: &str, offset: usize, crd: Option<&CompiledCrd>) -> Option<Hover> {
    let ctx = yaml_context::context(text, offset)?;
    if let Some((editor, depth)) = embedded_editor(&ctx.path) {
        let e = embedded(text, offset, editor, depth)?;
        let mut h = assist::hover(crd?, e.editor, &e.text, e.offset)?;
        h.from = e.outer(h.from);
        h.to = e.outer(h.to);
        return Some(h);
    }
    let (path, key, from, to) = yaml_context::key_at(text, offset)?;
    let (_, detail, info) = keys_of(level(&path)?).iter().find(|(k, _, _)| *k == key)?;
    Some(Hover {
        from,
        to,
        title: format!("{key} ({detail})"),
        lines: vec![(*info).to_owned()],
    })
}

/// [`crd_test_complete`] in UTF-16 code units (the cursor and the answer's ranges).
pub fn crd_test_complete_utf16(
    text: &str,
    offset: usize,
    crd: Option<&CompiledCrd>,
) -> Option<Completions> {
    let mut c = crd_test_complete(text, byte_offset(text, offset), crd)?;
    c.from = utf16_offset(text, c.from);
    c.to = utf16_offset(text, c.to);
    c.comma_at = c.comma_at.map(|b| utf16_offset(text, b));
    Some(c)
}

/// [`crd_test_hover`] in UTF-16 code units.
pub fn crd_test_hover_utf16(text: &str, offset: usize, crd: Option<&CompiledCrd>) -> Option<Hover> {
    let mut h = crd_test_hover(text, byte_offset(text, offset), crd)?;
    h.from = utf16_offset(text, h.from);
    h.to = utf16_offset(text, h.to);
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Options, TestSuite};

    const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, description: how big}
              colour: {type: string}
"#;

    fn labels(text: &str) -> (Vec<String>, String) {
        let offset = text.find('|').unwrap();
        let t = text.replacen('|', "", 1);
        let crd = CompiledCrd::compile(CRD, &Options::default());
        let c = crd_test_complete(&t, offset, Some(&crd)).unwrap_or_default();
        let replaced = t.get(c.from..c.to).unwrap_or("?").to_owned();
        (c.items.into_iter().map(|i| i.label).collect(), replaced)
    }

    #[test]
    fn completes_the_format_and_the_objects() {
        // (text with the cursor `|`, labels offered (a subset, in order), the replaced text)
        let cases: &[(&str, &[&str], &str)] = &[
            ("|", &["crd", "kubernetesVersions", "fieldValidation", "crdExpect", "cases"], ""),
            ("crd: a.yaml\nca|", &["cases"], "ca"),
            ("crd: a.yaml\n|", &["kubernetesVersions"], ""),
            ("crd: a.yaml\ncases:\n- name: a\n  |", &["object", "oldObject"], ""),
            ("crd: a.yaml\ncases:\n- name: a\n  expect:\n    v|", &["verdict"], "v"),
            ("crd: a.yaml\ncases:\n- name: a\n  expect:\n    verdict: |", &["accepted", "rejected"], ""),
            ("crd: a.yaml\ncases:\n- name: a\n  expect:\n    errors:\n    - pa|", &["path"], "pa"),
            ("crd: a.yaml\ncrdExpect:\n  |", &["accepted", "messages", "maxRuleCost"], ""),
            ("crd: a.yaml\nfieldValidation: |", &["Strict", "Warn", "Ignore"], ""),
            // The inline object: the CRD's fields.
            (
                "crd: a.yaml\ncases:\n- name: a\n  object:\n    apiVersion: example.com/v1\n    kind: Widget\n    spec:\n      si|\n  expect: {}\n",
                &["size"],
                "si",
            ),
            (
                "crd: a.yaml\ncases:\n- name: a\n  object:\n    apiVersion: example.com/v1\n    kind: Widget\n    spec:\n      size: 1\n      |",
                &["colour"],
                "",
            ),
            (
                "crd: a.yaml\ncases:\n- name: a\n  oldObject:\n    kind: Widget\n    |",
                &["spec"],
                "",
            ),
            ("crd: a.yaml\ncases:\n- name: a\n  object:\n    |", &["apiVersion", "kind"], ""),
            // An inline CRD: the CRD's own fields.
            (
                "crd:\n  apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  spec:\n    gr|",
                &["group"],
                "gr",
            ),
        ];
        for (text, want, replaced) in cases {
            let (got, r) = labels(text);
            let mut rest = got.iter();
            for w in *want {
                assert!(rest.any(|g| g == w), "{text:?}: {w} in {got:?}");
            }
            assert_eq!(r, *replaced, "{text:?}");
        }
        // Keys written already are not offered again; a path value has no items.
        assert!(!labels("crd: a.yaml\n|").0.contains(&"crd".to_owned()));
        assert_eq!(
            labels("crd: a.yaml\ncases:\n- object: |").0,
            Vec::<String>::new()
        );
    }

    #[test]
    fn hovers_keys_and_fields() {
        let crd = CompiledCrd::compile(CRD, &Options::default());
        let text = "crd: a.yaml\ncases:\n- name: a\n  object:\n    apiVersion: example.com/v1\n    kind: Widget\n    spec:\n      size: 1\n  expect:\n    verdict: accepted\n";
        let at = |word: &str| text.find(word).unwrap() + 1;
        let h = crd_test_hover(text, at("verdict"), Some(&crd)).unwrap();
        assert!(h.title.starts_with("verdict"), "{h:?}");
        let h = crd_test_hover(text, at("size"), Some(&crd)).unwrap();
        assert!(h.title.starts_with("size"), "{h:?}");
        assert_eq!(text.get(h.from..h.to), Some("size"));
    }

    /// The description agrees with the JSON Schema (the same keys at every level) and every
    /// key is one the reader knows.
    #[test]
    fn the_format_matches_the_schema_and_the_reader() {
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../../../schemas/crdtest.schema.json")).unwrap();
        let resolve = |v: &serde_json::Value| -> serde_json::Value {
            let mut v = v.clone();
            if let Some(r) = v.get("$ref").and_then(|r| r.as_str()) {
                let name = r.trim_start_matches("#/$defs/");
                v = schema["$defs"][name].clone();
            }
            if let Some(alts) = v.get("oneOf").and_then(|a| a.as_array()) {
                if let Some(obj) = alts.iter().find(|a| a.get("properties").is_some()) {
                    v = obj.clone();
                }
            }
            v
        };
        let props = |v: &serde_json::Value| -> Vec<String> {
            let mut k: Vec<String> = resolve(v)["properties"]
                .as_object()
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default();
            k.sort();
            k
        };
        let case = resolve(&schema["properties"]["cases"]["items"]);
        let levels = [
            (Level::Top, props(&schema)),
            (Level::CrdExpect, props(&schema["properties"]["crdExpect"])),
            (Level::Case, props(&case)),
            (Level::Expect, props(&case["properties"]["expect"])),
            (
                Level::Message,
                props(&schema["properties"]["crdExpect"]["properties"]["messages"]["items"]),
            ),
        ];
        for (level, want) in levels {
            let mut got: Vec<String> = keys_of(level).iter().map(|k| k.0.to_owned()).collect();
            got.sort();
            assert_eq!(got, want, "{level:?}");
        }
        // The reader knows every key (an unknown one is a problem at its place).
        let all = "crd: a\nkubernetesVersions: '1.37'\nfieldValidation: Strict\ncrdExpect:\n  accepted: true\n  messages: [{path: a, message: b}, {contains: c}, {regex: d}]\n  maxRuleCost: 1\ncases:\n- name: a\n  object: o.yaml\n  oldObject: o.yaml\n  oldCrd: c.yaml\n  snapshot: false\n  expect:\n    verdict: accepted\n    errors: []\n    warnings: []\n    fields: {}\n    stored: {}\n    columns: {}\n    maxCost: 1\n";
        assert_eq!(TestSuite::read(all).problems, vec![]);
    }

    #[test]
    fn utf16_ranges() {
        let text = "crd: é.yaml\nca";
        let c = crd_test_complete_utf16(text, text.encode_utf16().count(), None).unwrap();
        assert_eq!((c.from, c.to), (12, 14));
    }
}
