//! Pruning of unknown fields: `PruneWithOptions` from apiextensions-apiserver
//! `pkg/apiserver/schema/pruning/algorithm.go`, with `TrackUnknownFieldPaths` on.
//!
//! Every object field that the structural schema does not specify (no property, no
//! `additionalProperties`) is removed, except below `x-kubernetes-preserve-unknown-fields`,
//! and except `apiVersion`, `kind` and `metadata` at the resource root and in
//! `x-kubernetes-embedded-resource` objects (ObjectMeta is handled by
//! [`crate::object::objectmeta`]). The removed fields are returned as the server writes them in its
//! `unknown field "…"` warnings and strict-decoding errors: `spec.foo`, `items[0].bar`
//! (keys joined with `.`, indexes as `[i]`, keys written raw), sorted bytewise.
//!
//! In the request pipeline (`unstructuredSchemaCoercer.apply` in
//! `pkg/apiserver/customresource_handler.go`) the server calls this at the root with
//! `is_resource_root = true`, unless the CRD has `preserveUnknownFields: true`, and then
//! [`crate::object::defaulting::prune_non_nullable_nulls_without_defaults`].
//!
//! The walk uses an explicit stack, so deeply nested objects cannot overflow the call stack.

use serde_json::Value as Json;

use crate::schema::Structural;

/// The fields kept at the resource root and in embedded resources (`metaFields`).
fn is_meta_field(k: &str) -> bool {
    matches!(k, "apiVersion" | "kind" | "metadata")
}

/// One step of the path to a node, kept in an arena so a path costs one entry per node.
enum Step {
    Root,
    Key(usize, String),
    Index(usize, usize),
}

/// Paths of visited nodes: `(parent, step)` entries; entry 0 is the root.
struct Paths {
    steps: Vec<Step>,
}

impl Paths {
    fn new() -> Paths {
        Paths {
            steps: vec![Step::Root],
        }
    }

    fn key(&mut self, parent: usize, key: &str) -> usize {
        self.steps.push(Step::Key(parent, key.to_owned()));
        self.steps.len() - 1
    }

    fn index(&mut self, parent: usize, i: usize) -> usize {
        self.steps.push(Step::Index(parent, i));
        self.steps.len() - 1
    }

    /// The text of `node`'s path followed by the key `last`, as `UnknownFieldPathOptions`
    /// builds it: a key is preceded by `.` unless it is the first piece, an index is `[i]`.
    fn render(&self, node: usize, last: &str) -> String {
        enum Piece<'a> {
            Key(&'a str),
            Index(usize),
        }
        let mut pieces = vec![Piece::Key(last)];
        let mut at = node;
        loop {
            match self.steps.get(at) {
                Some(Step::Key(parent, k)) => {
                    pieces.push(Piece::Key(k));
                    at = *parent;
                }
                Some(Step::Index(parent, i)) => {
                    pieces.push(Piece::Index(*i));
                    at = *parent;
                }
                Some(Step::Root) | None => break,
            }
        }
        let mut out = String::new();
        for (n, piece) in pieces.iter().rev().enumerate() {
            match piece {
                Piece::Key(k) => {
                    if n > 0 {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                Piece::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
            }
        }
        out
    }
}

/// Which of the server's two walkers handles a node.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `prune`: unknown fields are removed.
    Prune,
    /// `skipPrune`: below `x-kubernetes-preserve-unknown-fields`, unknown fields are kept but
    /// specified ones are still pruned inside.
    Preserve,
}

struct Work<'a, 's> {
    value: &'a mut Json,
    schema: Option<&'s Structural>,
    /// `XEmbeddedResource`, also forced on for the root when it is a resource root.
    embedded: bool,
    mode: Mode,
    path: usize,
}

/// `PruneWithOptions(obj, s, isResourceRoot, {TrackUnknownFieldPaths: true})`: removes the
/// fields of `obj` that `s` does not specify (`s = None` is a nil schema: everything below
/// the root goes) and returns their paths, sorted. With `is_resource_root`, the root is
/// treated as an embedded resource: its `apiVersion`, `kind` and `metadata` stay.
pub fn prune(obj: &mut Json, s: Option<&Structural>, is_resource_root: bool) -> Vec<String> {
    let empty = Structural::default();
    let root_schema = match (s, is_resource_root) {
        (None, true) => Some(&empty),
        (s, _) => s,
    };
    let mut paths = Paths::new();
    let mut pruned: Vec<String> = Vec::new();
    let mut stack = vec![Work {
        value: obj,
        schema: root_schema,
        embedded: is_resource_root || root_schema.is_some_and(|s| s.extensions.x_embedded_resource),
        mode: Mode::Prune,
        path: 0,
    }];
    while let Some(w) = stack.pop() {
        let mode = match w.schema {
            Some(s) if w.mode == Mode::Prune && s.extensions.x_preserve_unknown_fields => {
                Mode::Preserve
            }
            _ => w.mode,
        };
        // `skipPrune(x, nil)` does nothing.
        if mode == Mode::Preserve && w.schema.is_none() {
            continue;
        }
        match w.value {
            Json::Object(map) => {
                let Some(s) = w.schema else {
                    for k in map.keys() {
                        pruned.push(paths.render(w.path, k));
                    }
                    map.clear();
                    continue;
                };
                if mode == Mode::Prune {
                    let at_top = w.path == 0;
                    map.retain(|k, _| {
                        let known = (w.embedded && is_meta_field(k))
                            || s.properties.contains_key(k)
                            || s.additional_properties.is_some();
                        if !known && (!is_meta_field(k) || !at_top) {
                            pruned.push(paths.render(w.path, k));
                        }
                        known
                    });
                }
                for (k, v) in map.iter_mut() {
                    if w.embedded && is_meta_field(k) {
                        continue;
                    }
                    let child = if let Some(prop) = s.properties.get(k) {
                        Some(&**prop)
                    } else if let Some(ap) = &s.additional_properties {
                        ap.structural.as_deref()
                    } else {
                        continue;
                    };
                    let path = paths.key(w.path, k);
                    stack.push(Work {
                        value: v,
                        schema: child,
                        embedded: child.is_some_and(|c| c.extensions.x_embedded_resource),
                        mode: Mode::Prune,
                        path,
                    });
                }
            }
            Json::Array(items) => {
                let item_schema = w.schema.and_then(|s| s.items.as_deref());
                for (i, v) in items.iter_mut().enumerate() {
                    let path = paths.index(w.path, i);
                    stack.push(Work {
                        value: v,
                        schema: item_schema,
                        embedded: item_schema.is_some_and(|c| c.extensions.x_embedded_resource),
                        mode,
                        path,
                    });
                }
            }
            _ => {}
        }
    }
    crd_studio_gostd::sort::stable(&mut pruned);
    pruned
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::JsonSchemaProps;
    use serde_json::json;

    fn schema(v: Json) -> Structural {
        let (props, errors) = JsonSchemaProps::from_json(&v);
        assert!(errors.is_empty(), "{errors:?}");
        Structural::from_props(&props).unwrap()
    }

    #[test]
    fn table() {
        struct Case {
            name: &'static str,
            schema: Option<Json>,
            root: bool,
            obj: Json,
            want: Json,
            paths: &'static [&'static str],
        }
        let cases = [
            Case {
                name: "unknown fields go, known stay, nested in lists",
                schema: Some(json!({"type": "object", "properties": {
                    "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}}}},
                    "keep": {"type": "string"}}})),
                root: false,
                obj: json!({"keep": "k", "drop": 1, "list": [{"x": "1", "y": 2}, {"z": {"deep": true}}]}),
                want: json!({"keep": "k", "list": [{"x": "1"}, {}]}),
                paths: &["drop", "list[0].y", "list[1].z"],
            },
            Case {
                name: "nil schema drops every field of every object, records top keys only",
                schema: None,
                root: false,
                obj: json!([[{"a": {"b": 1}}], 3]),
                want: json!([[{}], 3]),
                paths: &["[0][0].a"],
            },
            Case {
                name: "meta fields at the top are dropped silently unless resource root",
                schema: Some(json!({"type": "object"})),
                root: false,
                obj: json!({"apiVersion": "v1", "kind": "K", "metadata": {}, "x": 1}),
                want: json!({}),
                paths: &["x"],
            },
            Case {
                name: "resource root keeps meta fields, nil schema",
                schema: None,
                root: true,
                obj: json!({"apiVersion": "v1", "kind": "K", "metadata": {"odd": 1}, "spec": {}}),
                want: json!({"apiVersion": "v1", "kind": "K", "metadata": {"odd": 1}}),
                paths: &["spec"],
            },
            Case {
                name: "preserve unknown fields keeps unknown, prunes inside known",
                schema: Some(
                    json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                    "properties": {"known": {"type": "object", "properties": {"a": {"type": "string"}}}}}),
                ),
                root: false,
                obj: json!({"other": {"b": 1}, "known": {"a": "x", "b": 2}}),
                want: json!({"other": {"b": 1}, "known": {"a": "x"}}),
                paths: &["known.b"],
            },
            Case {
                name: "additionalProperties true without schema prunes below",
                schema: Some(json!({"type": "object", "additionalProperties": true})),
                root: false,
                obj: json!({"m": {"a": 1}, "n": 2}),
                want: json!({"m": {}, "n": 2}),
                paths: &["m.a"],
            },
            Case {
                name: "dotted keys and empty keys are written raw",
                schema: Some(json!({"type": "object", "properties": {"a": {"type": "object"}}})),
                root: false,
                obj: json!({"a": {"b.c": 1, "": 2}}),
                want: json!({"a": {}}),
                paths: &["a.", "a.b.c"],
            },
            Case {
                name: "embedded resource below keeps its meta fields",
                schema: Some(
                    json!({"type": "object", "properties": {"e": {"type": "object",
                    "x-kubernetes-embedded-resource": true, "properties": {"spec": {"type": "object"}}}}}),
                ),
                root: false,
                obj: json!({"e": {"apiVersion": 1, "kind": "K", "metadata": {"x": 1}, "spec": {"y": 1}, "z": 1}}),
                want: json!({"e": {"apiVersion": 1, "kind": "K", "metadata": {"x": 1}, "spec": {}}}),
                paths: &["e.spec.y", "e.z"],
            },
        ];
        for c in cases {
            let s = c.schema.map(schema);
            let mut obj = c.obj;
            let got = prune(&mut obj, s.as_ref(), c.root);
            assert_eq!(obj, c.want, "{}", c.name);
            assert_eq!(got, c.paths, "{}", c.name);
        }
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let mut v = json!({"a": 1});
        for _ in 0..20_000 {
            v = Json::Array(vec![v]);
        }
        let got = prune(&mut v, None, false);
        assert_eq!(got.len(), 1);
        assert!(got[0].ends_with("[0].a"));
        // Drop iteratively too: serde_json's recursive Drop would overflow on this value.
        let mut cur = v;
        while let Json::Array(mut items) = cur {
            cur = items.pop().unwrap_or(Json::Null);
        }
    }
}
