//! Field paths as the server writes them (`field.Path.String()`), and their way back to the
//! user's text.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::documents::document::{Node, Value};
use crate::documents::position::Span;

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Segment {
    /// `.name`: a field of an object.
    Field(String),
    /// `[3]`: an element of a list.
    Index(usize),
    /// `[key]`: a key of a map (written without quotes, as the server does).
    Key(String),
}

/// A field path such as `spec.versions[0].schema.openAPIV3Schema.properties[spec].type`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FieldPath(pub Vec<Segment>);

impl FieldPath {
    /// The empty path.
    pub fn root() -> FieldPath {
        FieldPath(Vec::new())
    }

    /// A path starting with the field `name`.
    pub fn new(name: &str) -> FieldPath {
        FieldPath(vec![Segment::Field(name.to_owned())])
    }

    /// This path followed by `.name` (several names may be given with dots: `a.b`).
    pub fn child(&self, name: &str) -> FieldPath {
        let mut p = self.clone();
        p.0.extend(name.split('.').map(|n| Segment::Field(n.to_owned())));
        p
    }

    /// This path followed by `.name`, taken as one field name even if it holds dots.
    pub fn child_name(&self, name: &str) -> FieldPath {
        let mut p = self.clone();
        p.0.push(Segment::Field(name.to_owned()));
        p
    }

    /// This path followed by `[i]`.
    pub fn index(&self, i: usize) -> FieldPath {
        let mut p = self.clone();
        p.0.push(Segment::Index(i));
        p
    }

    /// This path followed by `[key]`.
    pub fn key(&self, key: &str) -> FieldPath {
        let mut p = self.clone();
        p.0.push(Segment::Key(key.to_owned()));
        p
    }

    /// Reads the server's text form back (`a.b[0][key]`). Brackets holding only digits are
    /// indexes, others are keys.
    pub fn parse(text: &str) -> FieldPath {
        let mut segs = Vec::new();
        let mut cur = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '.' => {
                    if !cur.is_empty() {
                        segs.push(Segment::Field(std::mem::take(&mut cur)));
                    }
                }
                '[' => {
                    if !cur.is_empty() {
                        segs.push(Segment::Field(std::mem::take(&mut cur)));
                    }
                    let mut inner = String::new();
                    for d in chars.by_ref() {
                        if d == ']' {
                            break;
                        }
                        inner.push(d);
                    }
                    match inner.parse::<usize>() {
                        Ok(i) if !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_digit()) => {
                            segs.push(Segment::Index(i))
                        }
                        _ => segs.push(Segment::Key(inner)),
                    }
                }
                c => cur.push(c),
            }
        }
        if !cur.is_empty() {
            segs.push(Segment::Field(cur));
        }
        FieldPath(segs)
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Segment::Field(name) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(name)?;
                }
                Segment::Index(n) => write!(f, "[{n}]")?,
                Segment::Key(k) => write!(f, "[{k}]")?,
            }
        }
        Ok(())
    }
}

/// Where a path leads in a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Located {
    /// The span of the deepest node reached (the key, for an object field, so the marker sits
    /// on the name the user wrote).
    pub span: Span,
    /// Whether every segment was found; `false` means `span` is the nearest existing parent.
    pub exact: bool,
}

/// Follows `path` from `root`, stopping at the nearest existing parent when a segment is
/// missing. A field's location is its key; an element's is the element.
pub fn locate(root: &Node, path: &FieldPath) -> Located {
    let mut node = root;
    let mut span = root.span;
    for seg in &path.0 {
        let next = match (seg, &node.value) {
            (Segment::Field(name) | Segment::Key(name), Value::Map(entries)) => entries
                .iter()
                .find(|e| &e.key == name)
                .map(|e| (&e.value, e.key_span)),
            (Segment::Index(i), Value::Seq(items)) => items.get(*i).map(|n| (n, n.span)),
            // `[key]` on a list of maps never matches; a numeric key on a map may.
            (Segment::Index(i), Value::Map(entries)) => {
                let k = i.to_string();
                entries
                    .iter()
                    .find(|e| e.key == k)
                    .map(|e| (&e.value, e.key_span))
            }
            _ => None,
        };
        match next {
            Some((n, s)) => {
                node = n;
                span = s;
            }
            None => return Located { span, exact: false },
        }
    }
    Located { span, exact: true }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::document::parse;
    use crate::documents::finding::SourceId;

    #[test]
    fn renders_like_the_server() {
        let p = FieldPath::new("spec")
            .child("versions")
            .index(0)
            .child("schema.openAPIV3Schema")
            .child("properties")
            .key("spec")
            .child("type");
        assert_eq!(
            p.to_string(),
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].type"
        );
        assert_eq!(FieldPath::parse(&p.to_string()), p);
        assert_eq!(FieldPath::root().to_string(), "");
        assert_eq!(FieldPath::root().index(2).to_string(), "[2]");
    }

    #[test]
    fn locates_fields_and_nearest_parents() {
        let text = "spec:\n  versions:\n  - name: v1\n    served: true\n";
        let parsed = parse(text, SourceId::Crd);
        let root = parsed.documents.first().and_then(|d| d.root.as_ref());
        let Some(root) = root else { panic!("no root") };
        let hit = locate(root, &FieldPath::parse("spec.versions[0].served"));
        assert!(hit.exact);
        assert_eq!((hit.span.start.line, hit.span.start.column), (4, 5));
        let miss = locate(
            root,
            &FieldPath::parse("spec.versions[0].schema.openAPIV3Schema"),
        );
        assert!(!miss.exact);
        assert_eq!((miss.span.start.line, miss.span.start.column), (3, 5));
        let miss_index = locate(root, &FieldPath::parse("spec.versions[3].name"));
        assert_eq!(miss_index.span.start.line, 2);
    }
}
