//! Defaulting and null pruning: `Default` from apiextensions-apiserver
//! `pkg/apiserver/schema/defaulting/algorithm.go` and `PruneNonNullableNullsWithoutDefaults`
//! from `pkg/apiserver/schema/defaulting/prunenulls.go`.
//!
//! Order in the server (`pkg/apiserver/customresource_handler.go`): when an object is decoded
//! (request body or storage), `unstructuredSchemaCoercer.apply` prunes unknown fields
//! ([`crate::object::pruning::prune`]), then removes the nulls this module's
//! [`prune_non_nullable_nulls_without_defaults`] removes, then coerces embedded ObjectMeta
//! ([`crate::object::objectmeta`]); afterwards the versioning codec calls `unstructuredDefaulter`,
//! that is [`default`]. So a non-nullable null with a default is left by the null pruning
//! and replaced by its default here.
//!
//! Both walks use an explicit stack, so deep objects cannot overflow the call stack.

use serde_json::Value as Json;

use crate::documents::path::FieldPath;
use crate::schema::Structural;

/// `isNonNullableNull`: `x` is null and its schema exists and is not nullable.
fn is_non_nullable_null(x: &Json, s: Option<&Structural>) -> bool {
    x.is_null() && s.is_some_and(|s| !s.generic.nullable)
}

/// The default value of a schema as the server stores it (`Default.Object`; `nil` when none).
fn default_of(s: &Structural) -> Json {
    s.generic.default.clone().unwrap_or(Json::Null)
}

/// `Default(x, s)`: fills in the defaults `s` gives. For an object, every property with a
/// default that is missing, or null while the property is not nullable, gets a copy of the
/// default; then every field is defaulted by its property (or `additionalProperties`)
/// schema, a non-nullable null `additionalProperties` value or list item first becoming its
/// schema's default (null when there is none). Defaults put in are defaulted in turn.
/// `s = None` (a nil schema) does nothing. The server defaults only objects of the CRD's
/// group and kind (see [`crate::object::objectmeta::SchemaCoercer::defaults_apply_to`]).
pub fn default(x: &mut Json, s: Option<&Structural>) {
    let Some(s) = s else { return };
    let mut stack: Vec<(&mut Json, &Structural)> = vec![(x, s)];
    while let Some((x, s)) = stack.pop() {
        match x {
            Json::Object(map) => {
                for (k, prop) in &s.properties {
                    let Some(d) = &prop.generic.default else {
                        continue;
                    };
                    let replace = match map.get(k) {
                        None => true,
                        Some(v) => is_non_nullable_null(v, Some(prop)),
                    };
                    if replace {
                        map.insert(k.clone(), d.clone());
                    }
                }
                for (k, v) in map.iter_mut() {
                    if let Some(prop) = s.properties.get(k) {
                        stack.push((v, prop));
                    } else if let Some(ap) = &s.additional_properties {
                        if let Some(aps) = ap.structural.as_deref() {
                            if is_non_nullable_null(v, Some(aps)) {
                                *v = default_of(aps);
                            }
                            stack.push((v, aps));
                        }
                    }
                }
            }
            Json::Array(items) => {
                let Some(item_schema) = s.items.as_deref() else {
                    continue;
                };
                for v in items.iter_mut() {
                    if is_non_nullable_null(v, Some(item_schema)) {
                        *v = default_of(item_schema);
                    }
                    stack.push((v, item_schema));
                }
            }
            _ => {}
        }
    }
}

/// A schema default that [`default`] left out, in a case a person may wonder about.
#[derive(Clone, Debug, PartialEq)]
pub enum SkippedDefault {
    /// `parent` is absent (or null and nullable) and has no default of its own, so the
    /// defaults of its fields were not applied: `Default` fills in fields only of objects
    /// that exist. `fields` are the parent's fields with a default, with that default.
    ParentAbsent {
        /// The absent object.
        parent: FieldPath,
        /// Whether it is present as a (nullable) `null` rather than absent.
        null: bool,
        /// Its fields that have a default, and the defaults.
        fields: Vec<(String, Json)>,
    },
    /// `field` is `null` and `nullable: true`: the null is kept, its default is not applied.
    NullableNull {
        /// The null field.
        field: FieldPath,
        /// Its default.
        default: Json,
    },
}

/// At most this many skipped defaults are reported per object.
pub const MAX_SKIPPED_DEFAULTS: usize = 20;

/// The defaults [`default`] did not apply to the defaulted object `x`, as far as a person
/// may wonder why ([`SkippedDefault`]); a field present with a value of its own is not
/// reported. `skip_root_status` leaves out the root `status` (the status subresource resets
/// it anyway). At most [`MAX_SKIPPED_DEFAULTS`], in the order of the walk (properties by name).
pub fn skipped_defaults(
    x: &Json,
    s: Option<&Structural>,
    skip_root_status: bool,
) -> Vec<SkippedDefault> {
    let mut out = Vec::new();
    let Some(s) = s else { return out };
    let mut stack: Vec<(FieldPath, &Json, &Structural)> = vec![(FieldPath::root(), x, s)];
    while let Some((path, x, s)) = stack.pop() {
        if out.len() >= MAX_SKIPPED_DEFAULTS {
            break;
        }
        match x {
            Json::Object(map) => {
                for (k, prop) in &s.properties {
                    if path.0.is_empty() && skip_root_status && k == "status" {
                        continue;
                    }
                    let value = map.get(k);
                    let null = matches!(value, Some(Json::Null));
                    if value.is_some() && !(null && prop.generic.nullable) {
                        continue;
                    }
                    if let (true, Some(d)) = (null, &prop.generic.default) {
                        out.push(SkippedDefault::NullableNull {
                            field: path.child_name(k),
                            default: d.clone(),
                        });
                        continue;
                    }
                    if prop.generic.default.is_some() {
                        continue;
                    }
                    let fields: Vec<(String, Json)> = prop
                        .properties
                        .iter()
                        .filter_map(|(name, p)| {
                            p.generic
                                .default
                                .as_ref()
                                .map(|d| (name.clone(), d.clone()))
                        })
                        .collect();
                    if !fields.is_empty() {
                        out.push(SkippedDefault::ParentAbsent {
                            parent: path.child_name(k),
                            null,
                            fields,
                        });
                    }
                }
                // Children in reverse name order on the stack: popped by name.
                let mut children: Vec<(FieldPath, &Json, &Structural)> = Vec::new();
                for (k, v) in map {
                    if path.0.is_empty() && skip_root_status && k == "status" {
                        continue;
                    }
                    let schema = match s.properties.get(k) {
                        Some(p) => Some(&**p),
                        None => s
                            .additional_properties
                            .as_ref()
                            .and_then(|ap| ap.structural.as_deref()),
                    };
                    if let Some(schema) = schema {
                        children.push((path.child_name(k), v, schema));
                    }
                }
                stack.extend(children.into_iter().rev());
            }
            Json::Array(items) => {
                if let Some(item_schema) = s.items.as_deref() {
                    stack.extend(
                        items
                            .iter()
                            .enumerate()
                            .rev()
                            .map(|(i, v)| (path.index(i), v, item_schema)),
                    );
                }
            }
            _ => {}
        }
    }
    out.truncate(MAX_SKIPPED_DEFAULTS);
    out
}

/// `PruneNonNullableNullsWithoutDefaults(x, s)`: removes the object fields whose value is
/// null while their schema (property, else `additionalProperties`) exists, is not nullable
/// and has no default. Fields without a schema, list items and nulls with a default are
/// kept (the latter are defaulted later by [`default`]).
pub fn prune_non_nullable_nulls_without_defaults(x: &mut Json, s: Option<&Structural>) {
    let Some(s) = s else { return };
    let mut stack: Vec<(&mut Json, &Structural)> = vec![(x, s)];
    while let Some((x, s)) = stack.pop() {
        match x {
            Json::Object(map) => {
                let field_schema = |k: &str| -> Option<&Structural> {
                    match s.properties.get(k) {
                        Some(p) => Some(p),
                        None => s
                            .additional_properties
                            .as_ref()
                            .and_then(|ap| ap.structural.as_deref()),
                    }
                };
                map.retain(|k, v| {
                    let fs = field_schema(k);
                    !(is_non_nullable_null(v, fs)
                        && fs.is_some_and(|f| f.generic.default.is_none()))
                });
                for (k, v) in map.iter_mut() {
                    // With no schema the server's walk goes on but can change nothing.
                    if let Some(fs) = field_schema(k) {
                        stack.push((v, fs));
                    }
                }
            }
            Json::Array(items) => {
                if let Some(item_schema) = s.items.as_deref() {
                    for v in items.iter_mut() {
                        stack.push((v, item_schema));
                    }
                }
            }
            _ => {}
        }
    }
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
    fn defaults_table() {
        let cases = [
            (
                "missing and null non-nullable fields get defaults, nullable nulls stay",
                json!({"type": "object", "properties": {
                    "a": {"type": "string", "default": "A"},
                    "b": {"type": "string", "default": "B"},
                    "c": {"type": "string", "nullable": true, "default": "C"},
                    "d": {"type": "string"}}}),
                json!({"b": null, "c": null, "d": null}),
                json!({"a": "A", "b": "B", "c": null, "d": null}),
            ),
            (
                "defaults are defaulted in turn",
                json!({"type": "object", "properties": {"o": {"type": "object", "default": {},
                    "properties": {"x": {"type": "integer", "default": 1}}}}}),
                json!({}),
                json!({"o": {"x": 1}}),
            ),
            (
                "list items and additionalProperties values",
                json!({"type": "object", "properties": {
                    "l": {"type": "array", "items": {"type": "object", "default": {"k": "v"},
                        "properties": {"n": {"type": "integer", "default": 2}}}},
                    "m": {"type": "object", "additionalProperties": {"type": "string"}}}}),
                json!({"l": [null, {}], "m": {"x": null}}),
                json!({"l": [{"k": "v", "n": 2}, {"n": 2}], "m": {"x": null}}),
            ),
            (
                "scalars and unknown fields are left alone",
                json!({"type": "object", "properties": {"a": {"type": "object"}}}),
                json!({"a": 1, "z": {"y": null}}),
                json!({"a": 1, "z": {"y": null}}),
            ),
        ];
        for (name, s, obj, want) in cases {
            let s = schema(s);
            let mut obj = obj;
            default(&mut obj, Some(&s));
            assert_eq!(obj, want, "{name}");
        }
        let mut obj = json!({"a": null});
        default(&mut obj, None);
        assert_eq!(obj, json!({"a": null}));
    }

    #[test]
    fn prune_nulls_table() {
        let s = schema(json!({"type": "object", "properties": {
            "plain": {"type": "string"},
            "nullable": {"type": "string", "nullable": true},
            "defaulted": {"type": "string", "default": "x"},
            "list": {"type": "array", "items": {"type": "object", "properties": {"p": {"type": "string"}}}},
            "map": {"type": "object", "additionalProperties": {"type": "string"}}}}));
        let mut obj = json!({
            "plain": null, "nullable": null, "defaulted": null, "unknown": null,
            "list": [null, {"p": null, "q": null}],
            "map": {"k": null}});
        prune_non_nullable_nulls_without_defaults(&mut obj, Some(&s));
        assert_eq!(
            obj,
            json!({"nullable": null, "defaulted": null, "unknown": null,
                "list": [null, {"q": null}], "map": {}})
        );
    }

    #[test]
    fn skipped_defaults_table() {
        let s = schema(json!({
            "type": "object",
            "properties": {
                "spec": {"type": "object", "properties": {
                    "backup": {"type": "object", "properties": {
                        "retain": {"type": "integer", "default": 3},
                        "other": {"type": "string"}
                    }},
                    "label": {"type": "string", "nullable": true, "default": "none"},
                    "opt": {"type": "object", "nullable": true, "properties": {
                        "x": {"type": "integer", "default": 1}
                    }},
                    "withDefault": {"type": "object", "default": {}, "properties": {
                        "y": {"type": "integer", "default": 2}
                    }},
                    "list": {"type": "array", "items": {"type": "object", "properties": {
                        "inner": {"type": "object", "properties": {"z": {"type": "integer", "default": 0}}}
                    }}}
                }},
                "status": {"type": "object", "properties": {
                    "detail": {"type": "object", "properties": {"c": {"type": "integer", "default": 0}}}
                }}
            }
        }));
        let absent =
            |parent: &str, null: bool, fields: Vec<(&str, Json)>| SkippedDefault::ParentAbsent {
                parent: FieldPath::parse(parent),
                null,
                fields: fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
            };
        let cases = [
            // Nothing present under spec: backup's and opt's defaults wait for their parents;
            // withDefault is defaulted itself.
            (
                json!({"spec": {}}),
                false,
                vec![
                    absent("spec.backup", false, vec![("retain", json!(3))]),
                    absent("spec.opt", false, vec![("x", json!(1))]),
                ],
            ),
            // Present parents, present fields: nothing to say.
            (
                json!({"spec": {"backup": {}, "label": "x", "opt": {}}}),
                false,
                vec![],
            ),
            // A nullable null keeps its null: its own default, or its fields' defaults.
            (
                json!({"spec": {"backup": {}, "label": null, "opt": null}}),
                false,
                vec![
                    SkippedDefault::NullableNull {
                        field: FieldPath::parse("spec.label"),
                        default: json!("none"),
                    },
                    absent("spec.opt", true, vec![("x", json!(1))]),
                ],
            ),
            // List items are walked.
            (
                json!({"spec": {"backup": {}, "opt": {}, "list": [{}]}}),
                false,
                vec![absent("spec.list[0].inner", false, vec![("z", json!(0))])],
            ),
            // No spec: the classic case.
            (
                json!({}),
                false,
                vec![absent(
                    "spec",
                    false,
                    vec![("label", json!("none")), ("withDefault", json!({}))],
                )],
            ),
            // status: reported unless the status subresource resets it.
            (
                json!({"spec": {"backup": {}, "opt": {}}, "status": {}}),
                false,
                vec![absent("status.detail", false, vec![("c", json!(0))])],
            ),
            (
                json!({"spec": {"backup": {}, "opt": {}}, "status": {}}),
                true,
                vec![],
            ),
        ];
        for (obj, skip_status, want) in cases {
            let mut x = obj.clone();
            default(&mut x, Some(&s));
            assert_eq!(skipped_defaults(&x, Some(&s), skip_status), want, "{obj}");
        }
    }
}
