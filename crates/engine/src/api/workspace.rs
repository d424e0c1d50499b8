//! What an editor's workspace needs beside the analysis (the language server's index and
//! its go to definition): each document's header (`apiVersion`, `kind`, the group and kind
//! a CRD defines), one document of a text on its own with its places unchanged, and the
//! schema node of the CRD an object's field comes from.

use crate::documents::document::{parse, Node, Value};
use crate::documents::finding::SourceId;
use crate::documents::path::Segment;
use crate::documents::position::Span;
use crate::report::analysis::CompiledCrd;

/// The header of one document of a text: what an index files it under.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocumentHeader {
    /// 0-based index of the document in its text (as the findings' locations count).
    pub index: usize,
    /// Where the document is.
    pub span: Span,
    /// `apiVersion`, when a string.
    pub api_version: Option<String>,
    /// `kind`, when a string.
    pub kind: Option<String>,
    /// Where `kind`'s value is.
    pub kind_span: Option<Span>,
    /// `metadata.name`, when a string.
    pub name: Option<String>,
    /// For a CustomResourceDefinition: the group and kind it defines (`spec.group`,
    /// `spec.names.kind`), when both are strings.
    pub defines: Option<(String, String)>,
}

impl DocumentHeader {
    /// The group of `apiVersion` (`""` for the core group).
    pub fn group(&self) -> Option<&str> {
        let v = self.api_version.as_deref()?;
        Some(v.rsplit_once('/').map_or("", |(g, _)| g))
    }
}

/// The headers of every document of `text` that has a value (YAML, possibly several, or
/// JSON).
pub fn document_headers(text: &str) -> Vec<DocumentHeader> {
    let parsed = parse(text, SourceId::Object(0));
    parsed
        .values()
        .map(|(doc, root)| {
            let kind = field(root, "kind");
            let is_crd = kind.and_then(string) == Some("CustomResourceDefinition")
                && field(root, "apiVersion")
                    .and_then(string)
                    .is_some_and(|v| v.starts_with("apiextensions.k8s.io/"));
            let defines = is_crd
                .then(|| {
                    let spec = field(root, "spec")?;
                    let group = field(spec, "group").and_then(string)?;
                    let kind = field(field(spec, "names")?, "kind").and_then(string)?;
                    Some((group.to_owned(), kind.to_owned()))
                })
                .flatten();
            DocumentHeader {
                index: doc.index,
                span: doc.span,
                api_version: field(root, "apiVersion")
                    .and_then(string)
                    .map(str::to_owned),
                kind: kind.and_then(string).map(str::to_owned),
                kind_span: kind.map(|k| k.span),
                name: field(root, "metadata")
                    .and_then(|m| field(m, "name"))
                    .and_then(string)
                    .map(str::to_owned),
                defines,
            }
        })
        .collect()
}

/// `text` with every byte outside `span` (but line breaks) made a space: one document of a
/// multi-document text on its own, at the same byte offsets, lines and columns, so that what
/// the engine says about it points into the original text.
pub fn isolate_document(text: &str, span: Span) -> String {
    let (start, end) = (span.start.offset, span.end.offset.max(span.start.offset));
    let mut out = Vec::with_capacity(text.len());
    for (i, b) in text.bytes().enumerate() {
        out.push(if (start..end).contains(&i) || b == b'\n' || b == b'\r' {
            b
        } else {
            b' '
        });
    }
    // Only whole characters are kept (a span starts and ends on character boundaries), the
    // rest are ASCII spaces.
    String::from_utf8(out).unwrap_or_default()
}

impl CompiledCrd {
    /// Go to definition from byte `offset` of an object text: for a field, its schema node
    /// in this CRD (the key under `properties` in the version the object's `apiVersion`
    /// names, or the nearest node above it); for `kind`'s value, `spec.names.kind`; for
    /// `apiVersion`'s value, the version's `name`. A span of [`CompiledCrd::text`].
    pub fn definition(&self, object_text: &str, offset: usize) -> Option<Span> {
        let object = parse(object_text, SourceId::Object(0));
        let (_, root) = object
            .values()
            .find(|(d, _)| d.span.start.offset <= offset && offset <= d.span.end.offset)?;
        let path = path_at(root, offset)?;
        let version = field(root, "apiVersion")
            .and_then(string)
            .map(|v| v.rsplit_once('/').map_or(v, |(_, v)| v).to_owned());
        let (_, crd_root) = self.parsed().values().next()?;
        let spec = field(crd_root, "spec")?;
        if let [Segment::Field(top)] = path.as_slice() {
            if top == "kind" {
                return field(field(spec, "names")?, "kind").map(|n| n.span);
            }
            if top == "apiVersion" {
                return field(version_entry(spec, version.as_deref()?)?, "name").map(|n| n.span);
            }
        }
        schema_node(spec, version.as_deref()?, &path)
    }

    /// The schema node in this CRD's text that field `field` (the server's path, e.g.
    /// `spec.tags[0].name`) of an object of version `version` comes from, or the nearest
    /// node above it: the key under `properties` (`items` for an element,
    /// `additionalProperties` for a map's key).
    pub fn schema_node(&self, version: &str, field_path: &str) -> Option<Span> {
        let (_, crd_root) = self.parsed().values().next()?;
        let path = crate::documents::path::FieldPath::parse(field_path);
        schema_node(field(crd_root, "spec")?, version, &path.0)
    }
}

fn version_entry<'a>(spec: &'a Node, version: &str) -> Option<&'a Node> {
    let Some(Value::Seq(versions)) = field(spec, "versions").map(|v| &v.value) else {
        return None;
    };
    versions
        .iter()
        .find(|v| field(v, "name").and_then(string) == Some(version))
}

fn schema_node(spec: &Node, version: &str, path: &[Segment]) -> Option<Span> {
    let entry = version_entry(spec, version)?;
    let (mut span, mut node) = entry_key(field(entry, "schema")?, "openAPIV3Schema")?;
    for seg in path {
        let next = match seg {
            Segment::Field(name) | Segment::Key(name) => field(node, "properties")
                .and_then(|p| entry_key(p, name))
                .or_else(|| entry_key(node, "additionalProperties")),
            Segment::Index(_) => entry_key(node, "items"),
        };
        match next {
            Some((s, n)) => {
                span = s;
                node = n;
            }
            None => break,
        }
    }
    Some(span)
}

/// The path of the deepest key or element of `root` whose range holds `offset` (a key's
/// range: its key and its value).
fn path_at(root: &Node, offset: usize) -> Option<Vec<Segment>> {
    let mut path = Vec::new();
    let mut node = root;
    loop {
        let next = match &node.value {
            Value::Map(entries) => entries.iter().find_map(|e| {
                let start = e.key_span.start.offset;
                let end = e.value.span.end.offset.max(e.key_span.end.offset);
                (start <= offset && offset <= end)
                    .then(|| (Segment::Field(e.key.clone()), &e.value))
            }),
            Value::Seq(items) => items.iter().enumerate().find_map(|(i, n)| {
                (n.span.start.offset <= offset && offset <= n.span.end.offset)
                    .then_some((Segment::Index(i), n))
            }),
            _ => None,
        };
        match next {
            Some((seg, n)) => {
                path.push(seg);
                node = n;
            }
            None => break,
        }
    }
    (!path.is_empty()).then_some(path)
}

fn field<'a>(node: &'a Node, name: &str) -> Option<&'a Node> {
    entry_key(node, name).map(|(_, n)| n)
}

fn entry_key<'a>(node: &'a Node, name: &str) -> Option<(Span, &'a Node)> {
    match &node.value {
        Value::Map(entries) => entries
            .iter()
            .find(|e| e.key == name)
            .map(|e| (e.key_span, &e.value)),
        _ => None,
    }
}

fn string(node: &Node) -> Option<&str> {
    match &node.value {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// What an outline entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    /// A document (`Kind name`).
    Document,
    /// A CRD version.
    Version,
    /// A field: an object's, or a schema's property.
    Field,
    /// A CEL rule (`x-kubernetes-validations`).
    Rule,
}

/// One entry of a text's outline.
#[derive(Clone, Debug, PartialEq)]
pub struct Symbol {
    /// What is shown.
    pub name: String,
    /// Beside it: a schema type, `served`/`storage`, a rule's message.
    pub detail: String,
    /// What it is.
    pub kind: SymbolKind,
    /// Its whole extent.
    pub span: Span,
    /// The part to select (a key).
    pub selection: Span,
    /// What it holds.
    pub children: Vec<Symbol>,
}

/// The outline of `text`: per document, a CRD's versions with their schema trees and rules,
/// or an object's fields (at most `MAX_SYMBOL_DEPTH` levels).
pub fn document_symbols(text: &str) -> Vec<Symbol> {
    let parsed = parse(text, SourceId::Object(0));
    let headers = document_headers(text);
    parsed
        .values()
        .map(|(doc, root)| {
            let h = headers.iter().find(|h| h.index == doc.index);
            let kind = h.and_then(|h| h.kind.clone()).unwrap_or_default();
            let name = h.and_then(|h| h.name.clone()).unwrap_or_default();
            let children = match h.filter(|h| h.defines.is_some() || is_crd_kind(h)) {
                Some(_) => crd_versions(root),
                None => object_fields(root, 0),
            };
            Symbol {
                name: format!("{kind} {name}").trim().to_owned(),
                detail: h.and_then(|h| h.api_version.clone()).unwrap_or_default(),
                kind: SymbolKind::Document,
                span: doc.span,
                selection: h.and_then(|h| h.kind_span).unwrap_or(root.span),
                children,
            }
        })
        .collect()
}

/// How deep an object's outline goes.
const MAX_SYMBOL_DEPTH: usize = 8;

fn is_crd_kind(h: &DocumentHeader) -> bool {
    h.kind.as_deref() == Some("CustomResourceDefinition")
}

fn object_fields(node: &Node, depth: usize) -> Vec<Symbol> {
    if depth >= MAX_SYMBOL_DEPTH {
        return Vec::new();
    }
    match &node.value {
        Value::Map(entries) => entries
            .iter()
            .map(|e| Symbol {
                name: e.key.clone(),
                detail: String::new(),
                kind: SymbolKind::Field,
                span: Span {
                    start: e.key_span.start,
                    end: e.value.span.end.max(e.key_span.end),
                },
                selection: e.key_span,
                children: object_fields(&e.value, depth + 1),
            })
            .collect(),
        Value::Seq(items) => items
            .iter()
            .enumerate()
            .map(|(i, n)| Symbol {
                name: format!("[{i}]"),
                detail: String::new(),
                kind: SymbolKind::Field,
                span: n.span,
                selection: n.span,
                children: object_fields(n, depth + 1),
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn crd_versions(root: &Node) -> Vec<Symbol> {
    let Some(Value::Seq(versions)) = field(root, "spec")
        .and_then(|s| field(s, "versions"))
        .map(|v| &v.value)
    else {
        return Vec::new();
    };
    versions
        .iter()
        .map(|v| {
            let flag = |k: &str| matches!(field(v, k).map(|n| &n.value), Some(Value::Bool(true)));
            let detail = [("served", flag("served")), ("storage", flag("storage"))]
                .iter()
                .filter(|(_, on)| *on)
                .map(|(k, _)| *k)
                .collect::<Vec<_>>()
                .join(", ");
            let schema = field(v, "schema").and_then(|s| entry_key(s, "openAPIV3Schema"));
            Symbol {
                name: field(v, "name").and_then(string).unwrap_or("?").to_owned(),
                detail,
                kind: SymbolKind::Version,
                span: v.span,
                selection: field(v, "name").map_or(v.span, |n| n.span),
                children: schema
                    .map(|(_, s)| schema_children(s, 0))
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// A schema node's rules and properties (`items` and `additionalProperties` looked
/// through).
fn schema_children(node: &Node, depth: usize) -> Vec<Symbol> {
    if depth >= 64 {
        return Vec::new();
    }
    let mut out = Vec::new();
    if let Some(Value::Seq(rules)) = field(node, "x-kubernetes-validations").map(|r| &r.value) {
        for r in rules {
            let rule = field(r, "rule");
            out.push(Symbol {
                name: rule.and_then(string).unwrap_or("?").to_owned(),
                detail: field(r, "message")
                    .and_then(string)
                    .unwrap_or("")
                    .to_owned(),
                kind: SymbolKind::Rule,
                span: r.span,
                selection: rule.map_or(r.span, |n| n.span),
                children: Vec::new(),
            });
        }
    }
    for through in ["items", "additionalProperties"] {
        if let Some(inner) = field(node, through) {
            out.extend(schema_children(inner, depth + 1));
        }
    }
    if let Some(Value::Map(props)) = field(node, "properties").map(|p| &p.value) {
        for e in props {
            out.push(Symbol {
                name: e.key.clone(),
                detail: field(&e.value, "type")
                    .and_then(string)
                    .unwrap_or("")
                    .to_owned(),
                kind: SymbolKind::Field,
                span: Span {
                    start: e.key_span.start,
                    end: e.value.span.end.max(e.key_span.end),
                },
                selection: e.key_span,
                children: schema_children(&e.value, depth + 1),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Options;

    const CRD: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
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
              size: {type: integer}
              tags:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
";

    #[test]
    fn headers_of_each_document() {
        let text = format!("{CRD}---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: a}}\n---\n---\napiVersion: v1\nkind: ConfigMap\n");
        let h = document_headers(&text);
        let got: Vec<_> = h
            .iter()
            .map(|d| {
                (
                    d.index,
                    d.kind.as_deref(),
                    d.group(),
                    d.name.as_deref(),
                    d.defines.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    0,
                    Some("CustomResourceDefinition"),
                    Some("apiextensions.k8s.io"),
                    Some("widgets.example.com"),
                    Some(("example.com".to_owned(), "Widget".to_owned()))
                ),
                (1, Some("Widget"), Some("example.com"), Some("a"), None),
                (3, Some("ConfigMap"), Some(""), None, None),
            ]
        );
        assert_eq!(h[1].kind_span.unwrap().start.line, CRD.lines().count() + 3);
        assert!(document_headers("{\"kind\": 3}")[0].kind.is_none());
        assert!(document_headers("{").is_empty());
    }

    #[test]
    fn isolated_document_keeps_places() {
        let text = "a: é\n---\nb: 2\n";
        let h = document_headers(text);
        let one = isolate_document(text, h[1].span);
        assert_eq!(one.len(), text.len());
        assert_eq!(one.lines().count(), text.lines().count());
        let again = document_headers(&one);
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].span.start.offset, h[1].span.start.offset);
    }

    #[test]
    fn definitions() {
        let crd = CompiledCrd::compile(CRD, &Options::default());
        let object = "apiVersion: example.com/v1\nkind: Widget\nspec:\n  size: 3\n  tags:\n  - name: x\n  other: 1\n";
        let at = |needle: &str| object.find(needle).unwrap() + 1;
        let line_of = |s: Option<Span>| s.map(|s| CRD[s.start.offset..s.end.offset].to_owned());
        let cases: &[(&str, Option<&str>)] = &[
            ("size", Some("size")),
            ("name: x", Some("name")),
            ("tags", Some("tags")),
            ("spec:", Some("spec")),
            ("other", Some("spec")),
            ("Widget", Some("Widget")),
            ("example.com/v1", Some("v1")),
        ];
        for (needle, want) in cases {
            assert_eq!(
                line_of(crd.definition(object, at(needle))).as_deref(),
                *want,
                "{needle}"
            );
        }
        let other_version = "apiVersion: example.com/v2\nkind: Widget\nspec: {}\n";
        assert_eq!(crd.definition(other_version, 50), None);
        assert_eq!(crd.definition("", 0), None);
        let node = |v: &str, f: &str| line_of(crd.schema_node(v, f));
        assert_eq!(node("v1", "spec.tags[0].name").as_deref(), Some("name"));
        assert_eq!(node("v1", "spec.nope").as_deref(), Some("spec"));
        assert_eq!(node("v1", "<root>").as_deref(), Some("openAPIV3Schema"));
        assert_eq!(node("v9", "spec"), None);
    }

    #[test]
    fn outlines() {
        fn flat(s: &[Symbol], depth: usize, out: &mut Vec<String>) {
            for x in s {
                out.push(format!(
                    "{}{:?} {} ({})",
                    "  ".repeat(depth),
                    x.kind,
                    x.name,
                    x.detail
                ));
                flat(&x.children, depth + 1, out);
            }
        }
        let crd = CRD.replace(
            "              size: {type: integer}",
            "              size:\n                type: integer\n                x-kubernetes-validations: [{rule: self > 0, message: positive}]",
        );
        let text = format!("{crd}---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: a}}\nspec: {{tags: [{{name: x}}]}}\n");
        let mut got = Vec::new();
        flat(&document_symbols(&text), 0, &mut got);
        assert_eq!(
            got,
            [
                "Document CustomResourceDefinition widgets.example.com (apiextensions.k8s.io/v1)",
                "  Version v1 (served, storage)",
                "    Field spec (object)",
                "      Field size (integer)",
                "        Rule self > 0 (positive)",
                "      Field tags (array)",
                "        Field name (string)",
                "Document Widget a (example.com/v1)",
                "  Field apiVersion ()",
                "  Field kind ()",
                "  Field metadata ()",
                "    Field name ()",
                "  Field spec ()",
                "    Field tags ()",
                "      Field [0] ()",
                "        Field name ()",
            ]
        );
    }
}
