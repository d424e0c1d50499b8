//! List-type invariants (apiextensions-apiserver `pkg/apiserver/schema/listtype`,
//! `ValidateListSetsAndMaps`): items of an `x-kubernetes-list-type: set` list are unique, and
//! items of a `map` list are objects (or null) with unique map keys. A repeated value is
//! reported once, at its second appearance, as `Duplicate value`. Like the OpenAPI validation,
//! the walk stops at [`crate::object::validation::MAX_VALIDATION_DEPTH`].

use std::collections::BTreeMap;

use serde_json::Value as Json;

use crate::documents::field_error::{BadValue, FieldError};
use crate::documents::path::FieldPath;
use crate::schema::Structural;

/// `ValidateListSetsAndMaps(fldPath, s, obj)`: walks the object along the schema's
/// properties and `additionalProperties`. `None` for either is a nil schema or object. An
/// empty `fld_path` is the server's nil path.
pub fn validate_list_sets_and_maps(
    fld_path: &FieldPath,
    s: Option<&Structural>,
    obj: Option<&serde_json::Map<String, Json>>,
) -> Vec<FieldError> {
    let (Some(s), Some(obj)) = (s, obj) else {
        return Vec::new();
    };
    let mut errs = Vec::new();
    walk_map(fld_path, s, obj, &mut errs, 0);
    errs
}

fn walk_map(
    path: &FieldPath,
    s: &Structural,
    obj: &serde_json::Map<String, Json>,
    errs: &mut Vec<FieldError>,
    depth: usize,
) {
    if depth > crate::object::validation::MAX_VALIDATION_DEPTH {
        return;
    }
    if let Some(ap) = s.additional_properties_schema() {
        for (k, v) in obj {
            walk(&path.key(k), ap, v, errs, depth + 1);
        }
    }
    for (k, v) in obj {
        if let Some(sub) = s.properties.get(k) {
            walk(&child(path, k), sub, v, errs, depth + 1);
        }
    }
}

/// `fldPath.Child(name)` (a nil path's child is the name alone).
fn child(path: &FieldPath, name: &str) -> FieldPath {
    let mut p = path.clone();
    p.0.push(crate::documents::path::Segment::Field(name.to_owned()));
    p
}

fn walk(path: &FieldPath, s: &Structural, obj: &Json, errs: &mut Vec<FieldError>, depth: usize) {
    match obj {
        Json::Array(items) => walk_array(path, s, items, errs, depth),
        Json::Object(m) => walk_map(path, s, m, errs, depth),
        _ => {}
    }
}

fn walk_array(
    path: &FieldPath,
    s: &Structural,
    items: &[Json],
    errs: &mut Vec<FieldError>,
    depth: usize,
) {
    match s.extensions.x_list_type.as_deref() {
        Some("set") => {
            for i in non_unique(items.iter().map(SetKey::of)) {
                let value = items.get(i).unwrap_or(&Json::Null);
                errs.push(FieldError::duplicate(path.index(i), bad_value(value)));
            }
        }
        Some("map") => errs.extend(validate_list_map(path, s, items)),
        _ => {}
    }
    if let Some(item_schema) = &s.items {
        for (i, item) in items.iter().enumerate() {
            walk(&path.index(i), item_schema, item, errs, depth + 1);
        }
    }
}

/// The bad value of a duplicate: `field.Error` prints compound values with `json.Marshal`.
fn bad_value(v: &Json) -> BadValue {
    match v {
        Json::Array(_) | Json::Object(_) => {
            BadValue::Raw(crate::object::validation::json_marshal(v))
        }
        other => BadValue::from_json(other),
    }
}

/// How `validateListSet` tells values apart: scalars by Go type and value (an int64 never
/// equals a float64), compound values by their JSON encoding (where `1` and `1.0` are alike).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum SetKey {
    /// The "unspecified key" marker of map lists.
    Unspecified,
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
    Compound(String),
}

impl SetKey {
    fn of(v: &Json) -> SetKey {
        match v {
            Json::Null => SetKey::Null,
            Json::Bool(b) => SetKey::Bool(*b),
            Json::String(s) => SetKey::Str(s.clone()),
            Json::Number(n) => match n.as_i64() {
                Some(i) => SetKey::Int(i),
                None => {
                    let f = n.as_f64().unwrap_or(0.0);
                    SetKey::Float(if f == 0.0 { 0 } else { f.to_bits() })
                }
            },
            Json::Array(_) | Json::Object(_) => {
                SetKey::Compound(crate::object::validation::json_marshal(v))
            }
        }
    }
}

/// `validateListSet`: the index of each value's second appearance.
fn non_unique(keys: impl Iterator<Item = SetKey>) -> Vec<usize> {
    let mut seen: BTreeMap<SetKey, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, k) in keys.enumerate() {
        let times = seen.entry(k).or_insert(0);
        *times += 1;
        if *times == 2 {
            out.push(i);
        }
    }
    out
}

fn validate_list_map(path: &FieldPath, s: &Structural, items: &[Json]) -> Vec<FieldError> {
    for (i, x) in items.iter().enumerate() {
        if !matches!(x, Json::Null | Json::Object(_)) {
            return vec![FieldError::invalid(
                path.index(i),
                bad_value(x),
                "must be an object for an array of list-type map",
            )];
        }
    }
    if items.len() <= 1 {
        return Vec::new();
    }
    let keys_of = &s.extensions.x_list_map_keys;
    if let [key_field] = keys_of.as_slice() {
        let keys: Vec<Option<&Json>> = items
            .iter()
            .map(|x| match x {
                Json::Object(m) => m.get(key_field),
                _ => None,
            })
            .collect();
        let set_keys = keys.iter().map(|k| match k {
            None => SetKey::Unspecified,
            Some(v) => SetKey::of(v),
        });
        return non_unique(set_keys)
            .into_iter()
            .map(|i| {
                let mut m = serde_json::Map::new();
                if let Some(Some(v)) = keys.get(i) {
                    m.insert(key_field.clone(), (*v).clone());
                }
                FieldError::duplicate(path.index(i), bad_value(&Json::Object(m)))
            })
            .collect();
    }
    let keys: Vec<Json> = items
        .iter()
        .map(|x| {
            let mut key = serde_json::Map::new();
            if let Json::Object(m) = x {
                for f in keys_of {
                    if let Some(v) = m.get(f) {
                        key.insert(f.clone(), v.clone());
                    }
                }
            }
            Json::Object(key)
        })
        .collect();
    non_unique(keys.iter().map(SetKey::of))
        .into_iter()
        .map(|i| {
            let key = keys.get(i).unwrap_or(&Json::Null);
            FieldError::duplicate(path.index(i), bad_value(key))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::finding::ErrorType;
    use crate::schema::JsonSchemaProps;
    use serde_json::json;

    fn structural(v: Json) -> Structural {
        let (p, errs) = JsonSchemaProps::from_json(&v);
        assert!(errs.is_empty(), "{errs:?}");
        Structural::from_props(&p).unwrap()
    }

    fn run(schema: Json, obj: Json) -> Vec<(ErrorType, String)> {
        let s = structural(schema);
        let Json::Object(m) = obj else { panic!() };
        validate_list_sets_and_maps(&FieldPath::new("root"), Some(&s), Some(&m))
            .into_iter()
            .map(|e| (e.error_type, e.field.to_string()))
            .collect()
    }

    #[test]
    fn sets_report_second_appearances() {
        let got = run(
            json!({"type": "object", "properties": {"s": {"type": "array", "x-kubernetes-list-type": "set", "items": {}}}}),
            json!({"s": [1, 1.0, 1, [1], [1.0], "a", "a", "a"]}),
        );
        assert_eq!(
            got,
            vec![
                (ErrorType::FieldValueDuplicate, "root.s[2]".to_owned()),
                (ErrorType::FieldValueDuplicate, "root.s[4]".to_owned()),
                (ErrorType::FieldValueDuplicate, "root.s[6]".to_owned()),
            ]
        );
    }

    #[test]
    fn maps_check_items_and_keys() {
        let schema = json!({"type": "object", "additionalProperties": {
            "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
            "items": {"type": "object"}}});
        let got = run(
            schema.clone(),
            json!({"m": [{"k": "a"}, null, {"k": "a"}, {}]}),
        );
        assert_eq!(
            got,
            vec![
                (ErrorType::FieldValueDuplicate, "root[m][2]".to_owned()),
                (ErrorType::FieldValueDuplicate, "root[m][3]".to_owned()),
            ]
        );
        let got = run(schema, json!({"m": [{"k": "a"}, "x"]}));
        assert_eq!(
            got,
            vec![(ErrorType::FieldValueInvalid, "root[m][1]".to_owned())]
        );
    }

    #[test]
    fn deep_objects_do_not_exhaust_the_stack() {
        let mut s = structural(json!({"type": "array", "x-kubernetes-list-type": "set"}));
        let mut obj = json!([1, 1]);
        for _ in 0..3000 {
            let mut p = Structural::default();
            p.generic.type_ = "object".into();
            p.properties.insert("n".into(), Box::new(s));
            s = p;
            let mut m = serde_json::Map::new();
            m.insert("n".into(), obj);
            obj = Json::Object(m);
        }
        let errs = validate_list_sets_and_maps(&FieldPath::root(), Some(&s), obj.as_object());
        assert!(errs.is_empty());
        std::mem::forget((s, obj));
    }

    #[test]
    fn duplicate_values_print_as_json() {
        let s = structural(json!({"type": "object", "properties": {"m": {
            "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["a", "b"],
            "items": {"type": "object"}}}}));
        let obj = json!({"m": [{"a": 1, "b": "x"}, {"b": "x", "a": 1}]});
        let errs = validate_list_sets_and_maps(&FieldPath::root(), Some(&s), obj.as_object());
        assert_eq!(
            errs.iter().map(FieldError::error).collect::<Vec<_>>(),
            vec![r#"m[1]: Duplicate value: {"a":1,"b":"x"}"#.to_owned()]
        );
    }
}
