//! A CRD revision read for comparison: the CRD document of a text, its versions, and each
//! version's schema flattened into *sites* (one per schema node, keyed by its path from the
//! `openAPIV3Schema` root), each with the node and where its key is written.

use std::collections::HashMap;

use crate::documents::document::{parse, Node, ParsedText};
use crate::documents::finding::{Location, SourceId};
use crate::documents::position::Span;

/// One step from a schema node to a child schema.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "step", content = "at")]
pub enum SchemaStep {
    /// `properties[name]`.
    Property(String),
    /// `items` (one schema for every element).
    Items,
    /// `items[i]` (a tuple's element schema).
    TupleItem(usize),
    /// `additionalProperties` (a schema).
    AdditionalProperties,
    /// `allOf[i]`.
    AllOf(usize),
    /// `anyOf[i]`.
    AnyOf(usize),
    /// `oneOf[i]`.
    OneOf(usize),
    /// `not`.
    Not,
    /// `patternProperties[pattern]`.
    PatternProperties(String),
    /// `additionalItems`.
    AdditionalItems,
    /// `definitions[name]`.
    Definitions(String),
    /// `dependencies[name]` (a schema).
    Dependencies(String),
}

/// The schema keywords that hold child schemas (compared at the children's own sites).
pub const CHILD_KEYWORDS: &[&str] = &[
    "properties",
    "items",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "patternProperties",
    "additionalItems",
    "definitions",
    "dependencies",
];

/// A schema path as crdify writes it: `^` for the root, `.name` per property, `.items`,
/// `.items[i]`, `.additionalProperties`, `.allOf[i]`, …
pub fn schema_path_text(steps: &[SchemaStep]) -> String {
    let mut s = String::from("^");
    for step in steps {
        match step {
            SchemaStep::Property(n) => {
                s.push('.');
                s.push_str(n);
            }
            SchemaStep::Items => s.push_str(".items"),
            SchemaStep::TupleItem(i) => s.push_str(&format!(".items[{i}]")),
            SchemaStep::AdditionalProperties => s.push_str(".additionalProperties"),
            SchemaStep::AllOf(i) => s.push_str(&format!(".allOf[{i}]")),
            SchemaStep::AnyOf(i) => s.push_str(&format!(".anyOf[{i}]")),
            SchemaStep::OneOf(i) => s.push_str(&format!(".oneOf[{i}]")),
            SchemaStep::Not => s.push_str(".not"),
            SchemaStep::PatternProperties(p) => s.push_str(&format!(".patternProperties[{p}]")),
            SchemaStep::AdditionalItems => s.push_str(".additionalItems"),
            SchemaStep::Definitions(n) => s.push_str(&format!(".definitions[{n}]")),
            SchemaStep::Dependencies(n) => s.push_str(&format!(".dependencies[{n}]")),
        }
    }
    s
}

/// The object field a schema path describes, as the server writes field paths: `.spec.list[*]`
/// (`[*]` for list elements and map values; combinators add nothing). `.` for the root.
pub fn field_text(steps: &[SchemaStep]) -> String {
    let mut s = String::new();
    for step in steps {
        match step {
            SchemaStep::Property(n) => {
                s.push('.');
                s.push_str(n);
            }
            SchemaStep::Items | SchemaStep::AdditionalProperties => s.push_str("[*]"),
            SchemaStep::TupleItem(i) => s.push_str(&format!("[{i}]")),
            _ => {}
        }
    }
    if s.is_empty() {
        s.push('.');
    }
    s
}

/// One schema node of a version.
#[derive(Debug)]
pub struct Site<'a> {
    /// The path from the version's `openAPIV3Schema`.
    pub steps: Vec<SchemaStep>,
    /// The schema node.
    pub node: &'a Node,
    /// Where the node is named (its property key, its keyword key, or the node itself).
    pub key_span: Span,
    /// The index of the parent site (`None` for the root).
    pub parent: Option<usize>,
}

/// The sites of one version's schema, in text order (parents before children).
#[derive(Debug, Default)]
pub struct Sites<'a> {
    /// The sites.
    pub list: Vec<Site<'a>>,
    /// Site index by [`schema_path_text`].
    pub by_path: HashMap<String, usize>,
}

impl<'a> Sites<'a> {
    /// Flattens the schema `root` (named at `key_span`), without recursion.
    pub fn of(root: &'a Node, key_span: Span) -> Sites<'a> {
        let mut out = Sites::default();
        let mut stack: Vec<(Vec<SchemaStep>, &'a Node, Span, Option<usize>)> =
            vec![(Vec::new(), root, key_span, None)];
        while let Some((steps, node, span, parent)) = stack.pop() {
            let index = out.list.len();
            out.by_path.insert(schema_path_text(&steps), index);
            let mut children = Vec::new();
            for entry in node.as_map().unwrap_or_default() {
                let v = &entry.value;
                let child = |step: SchemaStep| {
                    let mut s = steps.clone();
                    s.push(step);
                    s
                };
                match entry.key.as_str() {
                    "properties" | "patternProperties" | "definitions" | "dependencies" => {
                        for e in v.as_map().unwrap_or_default() {
                            if e.value.as_map().is_none() {
                                continue;
                            }
                            let step = match entry.key.as_str() {
                                "properties" => SchemaStep::Property(e.key.clone()),
                                "patternProperties" => SchemaStep::PatternProperties(e.key.clone()),
                                "definitions" => SchemaStep::Definitions(e.key.clone()),
                                _ => SchemaStep::Dependencies(e.key.clone()),
                            };
                            children.push((child(step), &e.value, e.key_span));
                        }
                    }
                    "items" => {
                        if v.as_map().is_some() {
                            children.push((child(SchemaStep::Items), v, entry.key_span));
                        } else {
                            for (i, item) in v.as_seq().unwrap_or_default().iter().enumerate() {
                                if item.as_map().is_some() {
                                    children.push((
                                        child(SchemaStep::TupleItem(i)),
                                        item,
                                        item.span,
                                    ));
                                }
                            }
                        }
                    }
                    "allOf" | "anyOf" | "oneOf" => {
                        for (i, item) in v.as_seq().unwrap_or_default().iter().enumerate() {
                            if item.as_map().is_none() {
                                continue;
                            }
                            let step = match entry.key.as_str() {
                                "allOf" => SchemaStep::AllOf(i),
                                "anyOf" => SchemaStep::AnyOf(i),
                                _ => SchemaStep::OneOf(i),
                            };
                            children.push((child(step), item, item.span));
                        }
                    }
                    "additionalProperties" | "not" | "additionalItems" if v.as_map().is_some() => {
                        let step = match entry.key.as_str() {
                            "additionalProperties" => SchemaStep::AdditionalProperties,
                            "not" => SchemaStep::Not,
                            _ => SchemaStep::AdditionalItems,
                        };
                        children.push((child(step), v, entry.key_span));
                    }
                    _ => {}
                }
            }
            out.list.push(Site {
                steps,
                node,
                key_span: span,
                parent,
            });
            for (s, n, sp) in children.into_iter().rev() {
                stack.push((s, n, sp, Some(index)));
            }
        }
        out
    }

    /// The site at `path` ([`schema_path_text`]).
    pub fn get(&self, path: &str) -> Option<&Site<'a>> {
        self.by_path.get(path).and_then(|i| self.list.get(*i))
    }
}

/// One version of a CRD revision.
#[derive(Debug)]
pub struct VersionNode<'a> {
    /// `name`.
    pub name: String,
    /// The version's node in `spec.versions`.
    pub node: &'a Node,
    /// Its schema's sites (empty without a schema).
    pub sites: Sites<'a>,
}

/// A CRD revision: the CRD document of a text.
#[derive(Debug)]
pub struct Revision<'a> {
    /// Which text.
    pub source: SourceId,
    /// The CRD document's index in the text.
    pub document: usize,
    /// Its root.
    pub root: &'a Node,
    /// `spec.versions`, in order.
    pub versions: Vec<VersionNode<'a>>,
}

/// Parses a text for [`Revision::read`].
pub fn parse_text(text: &str, source: SourceId) -> ParsedText {
    parse(text, source)
}

impl<'a> Revision<'a> {
    /// The first document of `parsed` that is a CustomResourceDefinition (or, failing that,
    /// the first object with a `spec`).
    pub fn read(parsed: &'a ParsedText) -> Option<Revision<'a>> {
        let mut candidates = parsed.values().filter(|(_, r)| r.as_map().is_some());
        let chosen = parsed
            .values()
            .find(|(_, r)| r.get("kind").and_then(Node::as_str) == Some("CustomResourceDefinition"))
            .or_else(|| candidates.find(|(_, r)| r.get("spec").is_some()))?;
        let (doc, root) = chosen;
        let versions = root
            .get("spec")
            .and_then(|s| s.get("versions"))
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .filter_map(|v| {
                let name = v.get("name")?.as_str()?.to_owned();
                let sites = v
                    .get("schema")
                    .and_then(|s| s.entry("openAPIV3Schema"))
                    .filter(|e| e.value.as_map().is_some())
                    .map(|e| Sites::of(&e.value, e.key_span))
                    .unwrap_or_default();
                Some(VersionNode {
                    name,
                    node: v,
                    sites,
                })
            })
            .collect();
        Some(Revision {
            source: parsed.source,
            document: doc.index,
            root,
            versions,
        })
    }

    /// The version named `name`.
    pub fn version(&self, name: &str) -> Option<&VersionNode<'a>> {
        self.versions.iter().find(|v| v.name == name)
    }

    /// A location in this revision's text.
    pub fn at(&self, span: Span) -> Location {
        Location {
            source: self.source,
            document: self.document,
            span,
        }
    }

    /// The node at `keys` below the root.
    pub fn get(&self, keys: &[&str]) -> Option<&'a Node> {
        let mut n = self.root;
        for k in keys {
            n = n.get(k)?;
        }
        Some(n)
    }

    /// Where `keys` below the root is written: the entry from key to value, else the nearest
    /// existing parent's key, else the document root.
    pub fn span_of(&self, keys: &[&str]) -> Span {
        let mut n = self.root;
        let mut span = self.root.span;
        for k in keys {
            match n.entry(k) {
                Some(e) => {
                    span = entry_span(e.key_span, &e.value);
                    n = &e.value;
                }
                None => break,
            }
        }
        span
    }
}

/// The span of an entry: from its key to the end of its value (the key alone when the value
/// is a block over several lines).
pub fn entry_span(key: Span, value: &Node) -> Span {
    if value.span.end.line == key.start.line && value.span.end.offset >= key.start.offset {
        Span {
            start: key.start,
            end: value.span.end,
        }
    } else {
        key
    }
}
