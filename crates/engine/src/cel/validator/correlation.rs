//! Correlation of old values for ratcheting (`common.CorrelatedObject`): which old value a
//! new value is compared with, by the schema's list types and map keys.

use super::*;

/// A value and its correlated old value, with the schema deciding how children correlate.
pub(super) struct Corr<'a> {
    pub(super) new: &'a Json,
    pub(super) old: &'a Json,
    pub(super) schema: Option<&'a Structural>,
    pub(super) equal: Cell<Option<bool>>,
}

impl<'a> Corr<'a> {
    pub(super) fn new(new: &'a Json, old: &'a Json, schema: Option<&'a Structural>) -> Corr<'a> {
        Corr {
            new,
            old,
            schema,
            equal: Cell::new(None),
        }
    }

    /// `Key(field)`.
    pub(super) fn key(&self, field: &str) -> Option<Corr<'a>> {
        let schema = self.schema?;
        let (Json::Object(n), Json::Object(o)) = (self.new, self.old) else {
            return None;
        };
        let (nv, ov) = (n.get(field)?, o.get(field)?);
        let prop = schema
            .properties
            .get(field)
            .map(Box::as_ref)
            .or_else(|| schema.additional_properties_schema())?;
        Some(Corr::new(nv, ov, Some(prop)))
    }

    /// `Index(i)`.
    pub(super) fn index(&self, i: usize) -> Option<Corr<'a>> {
        let schema = self.schema?;
        let (Json::Array(n), Json::Array(o)) = (self.new, self.old) else {
            return None;
        };
        let item = n.get(i)?;
        if schema.extensions.x_list_type.as_deref() != Some("map") {
            return None;
        }
        let old_item = MapList::new(schema, o).get(item)?;
        let items = schema.items.as_deref()?;
        Some(Corr::new(item, old_item, Some(items)))
    }

    /// `CachedDeepEqual`.
    pub(super) fn deep_equal(&self) -> bool {
        if let Some(e) = self.equal.get() {
            return e;
        }
        let e = correlated_equal(self.new, self.old, self.schema, 0);
        self.equal.set(Some(e));
        e
    }
}

/// `CachedDeepEqual` without the cache: objects compare field by field through the schema
/// (a field without a schema makes them unequal), `x-kubernetes-list-type: map` lists item by
/// key, other lists and scalars as `reflect.DeepEqual`.
pub(super) fn correlated_equal(
    new: &Json,
    old: &Json,
    schema: Option<&Structural>,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH {
        return new == old;
    }
    match (new, old) {
        (Json::Null, Json::Null) => true,
        (Json::Null, _) | (_, Json::Null) => false,
        (Json::Array(n), Json::Array(o)) => {
            if n.len() != o.len() {
                return false;
            }
            if n.is_empty() {
                return true;
            }
            let Some(s) = schema else { return n == o };
            if s.extensions.x_list_type.as_deref() != Some("map") {
                return n == o;
            }
            let list = MapList::new(s, o);
            let items = s.items.as_deref();
            n.iter().all(|item| match (list.get(item), items) {
                (Some(old_item), Some(is)) => correlated_equal(item, old_item, Some(is), depth + 1),
                _ => false,
            })
        }
        (Json::Object(n), Json::Object(o)) => {
            if n.len() != o.len() {
                return false;
            }
            let Some(s) = schema else {
                return n.is_empty();
            };
            n.iter().all(|(k, v)| {
                let Some(ov) = o.get(k) else { return false };
                let Some(prop) = s
                    .properties
                    .get(k)
                    .map(Box::as_ref)
                    .or_else(|| s.additional_properties_schema())
                else {
                    return false;
                };
                correlated_equal(v, ov, Some(prop), depth + 1)
            })
        }
        (Json::Array(_), _) | (_, Json::Array(_)) | (Json::Object(_), _) | (_, Json::Object(_)) => {
            false
        }
        _ => new == old,
    }
}

/// `ratchetingOptions`: the current correlation and the nearest correlatable parent.
#[derive(Clone, Copy, Default)]
pub(super) struct Ratchet<'c, 'a> {
    pub(super) current: Option<&'c Corr<'a>>,
    pub(super) parent: Option<&'c Corr<'a>>,
}

impl Ratchet<'_, '_> {
    /// `shouldRatchetError`.
    pub(super) fn should_ratchet(&self) -> bool {
        match (self.current, self.parent) {
            (Some(c), _) => c.deep_equal(),
            (None, Some(p)) => p.deep_equal(),
            (None, None) => false,
        }
    }
}

// ------------------------------------------------------------------------------------------
// x-kubernetes-list-type: map lookups (`common.MakeMapList`)
// ------------------------------------------------------------------------------------------

/// A composite key of a map-list item, compared as the server compares them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum MapKey {
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
    Multi(String),
}

/// Old items of an `x-kubernetes-list-type: map` list by key (the first item with a key
/// wins); empty for any other schema.
pub(super) struct MapList<'a> {
    pub(super) keys: &'a [String],
    pub(super) items: HashMap<MapKey, &'a Json>,
}

impl<'a> MapList<'a> {
    pub(super) fn new(s: &'a Structural, items: &'a [Json]) -> MapList<'a> {
        let mut list = MapList {
            keys: &s.extensions.x_list_map_keys,
            items: HashMap::new(),
        };
        if s.generic.type_ != "array"
            || s.extensions.x_list_type.as_deref() != Some("map")
            || list.keys.is_empty()
        {
            list.keys = &[];
            return list;
        }
        for item in items {
            if let Some(k) = list.key(item) {
                list.items.entry(k).or_insert(item);
            }
        }
        list
    }

    /// `CompositeKeyFor`.
    pub(super) fn key(&self, item: &Json) -> Option<MapKey> {
        let Json::Object(m) = item else { return None };
        if let [single] = self.keys {
            return match m.get(single)? {
                Json::Bool(b) => Some(MapKey::Bool(*b)),
                Json::Number(n) => Some(match n.as_i64() {
                    Some(i) => MapKey::Int(i),
                    None => {
                        let f = n.as_f64().unwrap_or(0.0);
                        MapKey::Float(if f == 0.0 { 0 } else { f.to_bits() })
                    }
                }),
                Json::String(s) => Some(MapKey::Str(s.clone())),
                _ => None,
            };
        }
        let mut out = String::new();
        for k in self.keys {
            out.push('\0');
            match m.get(k)? {
                Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Json::Number(n) => match n.as_i64() {
                    Some(i) => out.push_str(&i.to_string()),
                    None => out.push_str(&format!("{:.6}", n.as_f64().unwrap_or(0.0))),
                },
                Json::String(s) => out.push_str(&go_quote(s)),
                _ => return None,
            }
        }
        Some(MapKey::Multi(out))
    }

    /// `Get`: the old item with the same key as `item`.
    pub(super) fn get(&self, item: &Json) -> Option<&'a Json> {
        if self.keys.is_empty() {
            return None;
        }
        let k = self.key(item)?;
        self.items.get(&k).copied()
    }
}
