//! Places in the user's text for the fields an [`ObjectReport`] names by path: the fields
//! pruning dropped, the fields defaulting set, and the values each CEL rule ran on. The
//! engine finds them while it still holds the object's parsed tree (with positions), so no
//! shell parses an object again or counts columns: each place is a [`Location`] with line,
//! column and UTF-16 column.
//!
//! Each lookup walks the path down the tree ([`locate`]), the same walk the findings use;
//! nothing here reads the whole document.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::documents::document::Node;
use crate::documents::finding::{Location, SourceId};
use crate::documents::path::{locate, FieldPath};
use crate::documents::position::{Pos, Span};
use crate::report::analysis::ObjectReport;

/// A field of an object, by the server's path, and where it is in the object's text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldPlace {
    /// The server's path (`spec.items[0].name`; `<root>` for the object itself).
    pub path: String,
    /// Where it is: the field's key, or (not [`FieldPlace::exact`]) the nearest field above
    /// it that is in the text.
    pub location: Location,
    /// Whether the path itself is in the text.
    pub exact: bool,
}

/// The object's places, as [`ObjectReport::places`] holds them.
///
/// Serialized compactly (an object can have tens of thousands, and the analysis crosses the
/// worker boundary on every keystroke): the source and document once, then each place as
/// `[path, [start offset, line, column, UTF-16 column, end offset, line, column, UTF-16
/// column], exact]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(from = "PlacesWire")]
pub struct ObjectPlaces {
    /// Every pruned field in the text (of the request's version, the storage version on
    /// write and each served version on read, each path once): only the fields found
    /// exactly. Pruned paths of other versions name the request's fields too: the None
    /// strategy changes only `apiVersion` (a webhook conversion has no stored object).
    pub pruned: Vec<FieldPlace>,
    /// Each defaulted path ([`ObjectReport::defaulted_paths`]) at its nearest field in the
    /// text (a defaulted field is not in the text: the object it is added to is).
    pub defaulted: Vec<FieldPlace>,
    /// Each value a CEL rule ran on ([`crate::CelRuleResult::path`], each path once) at its
    /// nearest field in the text.
    pub values: Vec<FieldPlace>,
}

impl ObjectPlaces {
    /// The place of the pruned field `path`, when it is in the text.
    pub fn pruned(&self, path: &str) -> Option<&FieldPlace> {
        self.pruned.iter().find(|p| p.path == path)
    }

    /// The place of the value a CEL rule ran on at `path`.
    pub fn value(&self, path: &str) -> Option<&FieldPlace> {
        self.values.iter().find(|p| p.path == path)
    }
}

/// One place as it travels: path, start and end (offset, line, column, UTF-16 column), exact.
type WirePlace<P> = (P, [usize; 8], bool);

/// [`ObjectPlaces`] as it travels (`P`: the path, borrowed when written).
#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
struct PlacesWire<P = String> {
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<SourceId>,
    #[serde(skip_serializing_if = "is_zero")]
    document: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pruned: Vec<WirePlace<P>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    defaulted: Vec<WirePlace<P>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    values: Vec<WirePlace<P>>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Serialize for ObjectPlaces {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let first = self
            .pruned
            .iter()
            .chain(&self.defaulted)
            .chain(&self.values)
            .next();
        PlacesWire {
            source: first.map(|f| f.location.source),
            document: first.map_or(0, |f| f.location.document),
            pruned: wire(&self.pruned),
            defaulted: wire(&self.defaulted),
            values: wire(&self.values),
        }
        .serialize(serializer)
    }
}

/// Places as they travel, their paths borrowed.
fn wire(places: &[FieldPlace]) -> Vec<WirePlace<&str>> {
    places
        .iter()
        .map(|f| {
            let (s, e) = (f.location.span.start, f.location.span.end);
            let at = [
                s.offset,
                s.line,
                s.column,
                s.utf16_column,
                e.offset,
                e.line,
                e.column,
                e.utf16_column,
            ];
            (f.path.as_str(), at, f.exact)
        })
        .collect()
}

impl From<PlacesWire> for ObjectPlaces {
    fn from(w: PlacesWire) -> ObjectPlaces {
        let source = w.source.unwrap_or(SourceId::Object(0));
        let document = w.document;
        let places = |wire: Vec<WirePlace<String>>| -> Vec<FieldPlace> {
            wire.into_iter()
                .map(|(path, [o, l, c, u, eo, el, ec, eu], exact)| FieldPlace {
                    path,
                    location: Location {
                        source,
                        document,
                        span: Span {
                            start: Pos {
                                offset: o,
                                line: l,
                                column: c,
                                utf16_column: u,
                            },
                            end: Pos {
                                offset: eo,
                                line: el,
                                column: ec,
                                utf16_column: eu,
                            },
                        },
                    },
                    exact,
                })
                .collect()
        };
        ObjectPlaces {
            pruned: places(w.pruned),
            defaulted: places(w.defaulted),
            values: places(w.values),
        }
    }
}

/// The place of `path` (a server path; `<root>` is the object) in the document `root`.
fn place(root: &Node, source: SourceId, document: usize, path: &str) -> FieldPlace {
    let hit = if path == "<root>" {
        locate(root, &FieldPath::root())
    } else {
        locate(root, &FieldPath::parse(path))
    };
    FieldPlace {
        path: path.to_owned(),
        location: Location {
            source,
            document,
            span: hit.span,
        },
        exact: hit.exact,
    }
}

/// Finds the places of `report`'s pruned, defaulted and evaluated fields in `root`, the
/// parsed document the report was made from.
pub fn place_object(root: &Node, report: &ObjectReport) -> ObjectPlaces {
    let source = SourceId::Object(report.source);
    let document = report.document;
    let mut seen = HashSet::new();
    let pruned = report
        .pruned_paths
        .iter()
        .chain(&report.stored_pruned_paths)
        .chain(report.served_as.iter().flat_map(|s| &s.pruned_paths))
        .filter(|p| seen.insert(p.as_str()))
        .map(|p| place(root, source, document, p))
        .filter(|p| p.exact)
        .collect();
    let mut seen = HashSet::new();
    let defaulted = report
        .defaulted_paths
        .iter()
        .filter(|p| seen.insert(p.as_str()))
        .map(|p| place(root, source, document, p))
        .collect();
    let mut seen = HashSet::new();
    let values = report
        .cel_results
        .iter()
        .filter(|r| seen.insert(r.path.as_str()))
        .map(|r| place(root, source, document, &r.path))
        .collect();
    ObjectPlaces {
        pruned,
        defaulted,
        values,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::document::parse;

    fn first_root(text: &str) -> Node {
        let parsed = parse(text, SourceId::Object(0));
        let root = parsed.values().next().map(|(_, r)| r.clone()).unwrap();
        root
    }

    /// Line, column, UTF-16 column, exact.
    type At = (usize, usize, usize, bool);

    /// A text, its pruned paths, and the places expected.
    type Case = (
        &'static str,
        &'static [&'static str],
        &'static [(&'static str, At)],
    );

    fn at(p: &FieldPlace) -> At {
        let s = p.location.span.start;
        (s.line, s.column, s.utf16_column, p.exact)
    }

    /// (text, pruned paths, expected places of the pruned fields found).
    #[test]
    fn pruned_fields_found_exactly_each_once() {
        let cases: &[Case] = &[
            (
                "spec:\n  extra: 1\n",
                &["spec.extra", "spec.nope"],
                &[("spec.extra", (2, 3, 3, true))],
            ),
            // Columns count characters and UTF-16 units: 'é' is one of each, '😀' two units.
            (
                "spec: {é: 1, 😀: 2, x: 3}\n",
                &["spec.x", "spec.x"],
                &[("spec.x", (1, 20, 21, true))],
            ),
            ("a: 1\n", &[], &[]),
        ];
        for (text, paths, want) in cases {
            let root = first_root(text);
            let report = ObjectReport {
                pruned_paths: paths.iter().map(|p| (*p).to_owned()).collect(),
                ..ObjectReport::default()
            };
            let places = place_object(&root, &report);
            let got: Vec<(&str, _)> = places
                .pruned
                .iter()
                .map(|p| (p.path.as_str(), at(p)))
                .collect();
            assert_eq!(&got, want, "{text}");
        }
    }

    #[test]
    fn values_and_defaults_at_their_nearest_field() {
        let text = "spec:\n  items:\n  - name: a\n";
        let root = first_root(text);
        let result = |path: &str| crate::CelRuleResult {
            path: path.to_owned(),
            ..crate::CelRuleResult::default()
        };
        let report = ObjectReport {
            document: 0,
            defaulted_paths: vec!["spec.items[0].size".to_owned()],
            cel_results: vec![
                result("<root>"),
                result("spec.items[0]"),
                result("spec.items[0]"),
                result("spec.items[0].name"),
                result("spec.other"),
            ],
            ..ObjectReport::default()
        };
        let places = place_object(&root, &report);
        let got: Vec<(&str, _)> = places
            .values
            .iter()
            .map(|p| (p.path.as_str(), at(p)))
            .collect();
        assert_eq!(
            got,
            [
                ("<root>", (1, 1, 1, true)),
                ("spec.items[0]", (3, 5, 5, true)),
                ("spec.items[0].name", (3, 5, 5, true)),
                ("spec.other", (1, 1, 1, false)),
            ]
        );
        assert_eq!(places.value("spec.items[0]").map(at), Some((3, 5, 5, true)));
        assert_eq!(
            places.defaulted.iter().map(at).collect::<Vec<_>>(),
            [(3, 5, 5, false)]
        );
    }

    /// The compact form reads back as written.
    #[test]
    fn places_travel_compactly_and_read_back() {
        let root = first_root("a: 1\nb: {c: é😀}\n");
        let report = ObjectReport {
            source: 2,
            document: 3,
            pruned_paths: vec!["b.c".to_owned()],
            defaulted_paths: vec!["b.d".to_owned()],
            ..ObjectReport::default()
        };
        let places = place_object(&root, &report);
        let json = serde_json::to_string(&places).unwrap();
        assert_eq!(
            json,
            r#"{"source":{"kind":"object","index":2},"document":3,"pruned":[["b.c",[9,2,5,5,10,2,6,6],true]],"defaulted":[["b.d",[5,2,1,1,6,2,2,2],false]]}"#
        );
        assert_eq!(serde_json::from_str::<ObjectPlaces>(&json).unwrap(), places);
        let empty = serde_json::to_string(&ObjectPlaces::default()).unwrap();
        assert_eq!(empty, "{}");
        assert_eq!(
            serde_json::from_str::<ObjectPlaces>(&empty).unwrap(),
            ObjectPlaces::default()
        );
    }

    /// Through the analysis: each object document's pruned fields are placed in that
    /// document, the storage version's too.
    #[test]
    fn the_analysis_places_pruned_fields_in_their_document() {
        let crd = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
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
              size: {type: integer, default: 1}
            x-kubernetes-validations:
            - rule: self.size > 0
";
        let object = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {}\n";
        let request = crate::Request {
            crd: crd.to_owned(),
            objects: vec![format!("{object}---\n{object}  extra: 1\n")
                .replace("spec: {}\n  extra", "spec:\n  extra")],
            options: crate::Options {
                field_validation: crate::FieldValidation::Ignore,
                ..crate::Options::default()
            },
            ..crate::Request::default()
        };
        let a = crate::analyze(&request);
        assert_eq!(a.objects.len(), 2);
        assert_eq!(a.objects[0].places.pruned, []);
        let second = &a.objects[1];
        assert_eq!(second.pruned_paths, ["spec.extra"]);
        let p = second.places.pruned("spec.extra").unwrap();
        assert_eq!(p.location.source, SourceId::Object(0));
        assert_eq!(p.location.document, 1);
        assert_eq!(at(p), (10, 3, 3, true));
        // The rule ran on `spec` (line 9) and defaulting set spec.size there.
        assert_eq!(second.places.value("spec").map(at), Some((9, 1, 1, true)));
        assert_eq!(
            second
                .places
                .defaulted
                .iter()
                .map(|p| (p.path.as_str(), at(p)))
                .collect::<Vec<_>>(),
            [("spec.size", (9, 1, 1, false))]
        );
    }
}
