//! Schema-level ratcheting (apiextensions-apiserver `pkg/apiserver/validation/ratcheting.go`
//! with `k8s.io/apiserver/pkg/cel/common` correlation): on update, a value whose old value
//! can be correlated and is unchanged keeps validating, but its errors become warnings.
//!
//! Correlation follows the new object: a property correlates with the old object's property
//! of the same name when the schema declares it (or has an `additionalProperties` schema); a
//! list item correlates only in `x-kubernetes-list-type: map` lists, with the first old item
//! having the same map keys. At the root, `kind` and `apiVersion` never ratchet. Unchanged
//! means deep-equal, except that a map key the schema does not describe, or a map-list item
//! without an old partner, makes the values differ.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use super::openapi::{self, GoPath, OaResult, MAX_VALIDATION_DEPTH};
use super::schema::{Items, OaSchema};
use crd_studio_gostd::strconv::quote as go_quote;
use crd_studio_gostd::value::{deep_equal, GoNum};

/// A correlated old value and the schema the correlation follows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Corr<'a> {
    pub old: &'a Json,
    pub schema: &'a OaSchema,
}

impl<'a> Corr<'a> {
    /// `CorrelatedObject.Key(field)` for the new map `new_map`.
    pub fn key(self, new_map: &serde_json::Map<String, Json>, key: &str) -> Option<Corr<'a>> {
        let Json::Object(old_map) = self.old else {
            return None;
        };
        let old = old_map.get(key)?;
        if !new_map.contains_key(key) {
            return None;
        }
        let schema = self.schema.properties.get(key).or_else(|| {
            self.schema
                .additional_properties
                .as_ref()
                .and_then(|a| a.schema.as_deref())
        })?;
        Some(Corr { old, schema })
    }
}

/// A map-list key (`keyStrategy.CompositeKeyFor`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum MapKey {
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
    Composite(String),
}

fn scalar_key(v: &Json) -> Option<MapKey> {
    Some(match v {
        Json::Bool(b) => MapKey::Bool(*b),
        Json::String(s) => MapKey::Str(s.clone()),
        Json::Number(_) => match GoNum::of(v)? {
            GoNum::Int(i) => MapKey::Int(i),
            // Go compares float keys with ==: -0 equals 0.
            GoNum::Float(f) => MapKey::Float(if f == 0.0 { 0 } else { f.to_bits() }),
        },
        _ => return None,
    })
}

fn composite_key(keys: &[String], obj: &serde_json::Map<String, Json>) -> Option<MapKey> {
    if let [single] = keys {
        return scalar_key(obj.get(single)?);
    }
    let mut out = String::new();
    for k in keys {
        let v = obj.get(k)?;
        out.push('\0');
        match v {
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::String(s) => out.push_str(&go_quote(s)),
            Json::Number(_) => match GoNum::of(v)? {
                GoNum::Int(i) => out.push_str(&i.to_string()),
                GoNum::Float(f) => out.push_str(&format!("{f:.6}")),
            },
            _ => return None,
        }
    }
    Some(MapKey::Composite(out))
}

/// `MakeMapList` over the old list: the first old item for each key.
struct OldMapList<'a> {
    keys: &'a [String],
    first: BTreeMap<MapKey, &'a Json>,
}

impl<'a> OldMapList<'a> {
    fn new(schema: &'a OaSchema, old_items: &'a [Json]) -> Option<OldMapList<'a>> {
        let keys = schema.rare().list_map_keys.as_deref()?;
        if schema.types.first().map(|t| &**t) != Some("array")
            || schema.rare().list_type.as_deref() != Some("map")
            || keys.is_empty()
            || old_items.is_empty()
        {
            return None;
        }
        let mut first = BTreeMap::new();
        for item in old_items {
            if let Json::Object(m) = item {
                if let Some(k) = composite_key(keys, m) {
                    first.entry(k).or_insert(item);
                }
            }
        }
        Some(OldMapList { keys, first })
    }

    fn get(&self, new_item: &Json) -> Option<&'a Json> {
        let Json::Object(m) = new_item else {
            return None;
        };
        let k = composite_key(self.keys, m)?;
        self.first.get(&k).copied()
    }
}

/// `CorrelatedObject.Index(i)` for the items of one new list.
pub(crate) struct IndexCorrelation<'a> {
    item_schema: &'a OaSchema,
    map_list: OldMapList<'a>,
}

impl<'a> IndexCorrelation<'a> {
    /// The correlation of a new list's items, when the list is a correlatable map list.
    pub fn new(corr: Option<Corr<'a>>, _new_items: &[Json]) -> Option<IndexCorrelation<'a>> {
        let c = corr?;
        let Json::Array(old_items) = c.old else {
            return None;
        };
        if c.schema.rare().list_type.as_deref() != Some("map") {
            return None;
        }
        let Some(Items::Schema(item_schema)) = &c.schema.items else {
            return None;
        };
        let map_list = OldMapList::new(c.schema, old_items)?;
        Some(IndexCorrelation {
            item_schema,
            map_list,
        })
    }

    /// The correlated old item for the new item at an index.
    pub fn child(&self, _i: usize, new_item: &Json) -> Option<Corr<'a>> {
        let old = self.map_list.get(new_item)?;
        Some(Corr {
            old,
            schema: self.item_schema,
        })
    }
}

/// `CorrelatedObject.CachedDeepEqual`.
pub(crate) fn correlated_equal(new: &Json, old: &Json, schema: &OaSchema, depth: usize) -> bool {
    if depth > MAX_VALIDATION_DEPTH {
        return false;
    }
    match (old, new) {
        (Json::Null, Json::Null) => true,
        (Json::Null, _) | (_, Json::Null) => false,
        (Json::Array(o), Json::Array(n)) => {
            if o.len() != n.len() {
                return false;
            }
            let is_map_list = schema.rare().list_type.as_deref() == Some("map");
            let correlation = IndexCorrelation::new(Some(Corr { old, schema }), n);
            for (i, item) in n.iter().enumerate() {
                match correlation.as_ref().and_then(|c| c.child(i, item)) {
                    None => {
                        return if is_map_list {
                            false
                        } else {
                            deep_equal(old, new)
                        };
                    }
                    Some(c) => {
                        if !correlated_equal(item, c.old, c.schema, depth + 1) {
                            return false;
                        }
                    }
                }
            }
            true
        }
        (Json::Object(o), Json::Object(n)) => {
            if o.len() != n.len() {
                return false;
            }
            let corr = Corr { old, schema };
            for (k, v) in n {
                match corr.key(n, k) {
                    None => return false,
                    Some(c) => {
                        if !correlated_equal(v, c.old, c.schema, depth + 1) {
                            return false;
                        }
                    }
                }
            }
            true
        }
        (Json::Array(_) | Json::Object(_), _) | (_, Json::Array(_) | Json::Object(_)) => false,
        _ => deep_equal(old, new),
    }
}

/// `ratchetingValueValidator.Validate`: validate with correlated children; when the result
/// has errors but the value is unchanged, they become warnings.
pub(crate) fn validate_ratcheting(
    s: &OaSchema,
    path: &GoPath,
    new: &Json,
    corr: Corr<'_>,
    depth: usize,
) -> OaResult {
    let mut res = OaResult::default();
    openapi::validate_into(s, path, new, Some(corr), depth, &mut res);
    if res.is_valid() {
        return res;
    }
    if correlated_equal(new, corr.old, corr.schema, depth) {
        return res.into_warnings();
    }
    res
}
