//! Custom-resource data as CEL sees it: Kubernetes' `UnstructuredToVal`
//! (`k8s.io/apiserver/pkg/cel/common/valuesunstructured.go`) over a `serde_json::Value`,
//! without copying it.
//!
//! - [`Schema`]: the runtime view of a structural schema node (type, format, nullable,
//!   int-or-string, embedded resource, preserve-unknown-fields, properties,
//!   additionalProperties, items, list type and map keys). Build it with
//!   [`Schema::from_json`] from the OpenAPI JSON, or fill the fields directly.
//! - [`to_value`]: a JSON value under a schema as a [`Value`]; objects and arrays stay borrowed
//!   ([`JsonMap`], [`JsonList`]) and convert their fields and elements when they are read.
//! - Property names are escaped as [`escape`] / [`unescape`] do (`x-y` is `x__dash__y`).
//!
//! Equality follows Kubernetes: list-type `set` compares as a set, list-type `map` by key, objects
//! by their declared properties (falling back to raw JSON equality for undeclared ones), and
//! preserved unknown JSON by deep equality.

use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::Value as Json;

use crate::value::{set_element_key, value_equal, List, ListKind, Map, OwnedList, Str, Value};

/// The runtime view of a structural schema node.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schema {
    /// `type`: `object`, `array`, `string`, `number`, `integer`, `boolean`, or empty.
    pub type_: String,
    /// `format`.
    pub format: String,
    /// `nullable`.
    pub nullable: bool,
    /// `x-kubernetes-int-or-string`.
    pub int_or_string: bool,
    /// `x-kubernetes-embedded-resource`.
    pub embedded_resource: bool,
    /// `x-kubernetes-preserve-unknown-fields`.
    pub preserve_unknown_fields: bool,
    /// `properties` (`None` when absent, as Go's nil map). The schemas are boxed: a map's
    /// node holds eleven values whatever its length, and most maps are short (a large CRD's
    /// schemas would cost several times as much inline).
    pub properties: Option<BTreeMap<String, Box<Schema>>>,
    /// `additionalProperties` when it is a schema.
    pub additional_properties: Option<Box<Schema>>,
    /// `items`.
    pub items: Option<Box<Schema>>,
    /// `x-kubernetes-list-type`.
    pub list_type: Option<String>,
    /// `x-kubernetes-list-map-keys`.
    pub list_map_keys: Vec<String>,
    /// `enum` (kept for the type checker's benefit; not used at runtime).
    pub enum_values: Vec<Json>,
}

impl Schema {
    /// Reads the schema fields CEL needs from OpenAPI v3 JSON. Embedded resources get the
    /// `apiVersion`, `kind` and `metadata` properties Kubernetes adds to them
    /// ([`Schema::with_type_and_object_meta`]).
    pub fn from_json(j: &Json) -> Schema {
        let mut s = Schema::default();
        let Json::Object(o) = j else {
            return s;
        };
        let str_of = |k: &str| o.get(k).and_then(Json::as_str).unwrap_or("").to_string();
        let bool_of = |k: &str| o.get(k).and_then(Json::as_bool).unwrap_or(false);
        s.type_ = str_of("type");
        s.format = str_of("format");
        s.nullable = bool_of("nullable");
        s.int_or_string = bool_of("x-kubernetes-int-or-string");
        s.embedded_resource = bool_of("x-kubernetes-embedded-resource");
        s.preserve_unknown_fields = bool_of("x-kubernetes-preserve-unknown-fields");
        if let Some(Json::Object(props)) = o.get("properties") {
            s.properties = Some(
                props
                    .iter()
                    .map(|(k, v)| (k.clone(), Box::new(Schema::from_json(v))))
                    .collect(),
            );
        }
        if let Some(ap @ Json::Object(_)) = o.get("additionalProperties") {
            s.additional_properties = Some(Box::new(Schema::from_json(ap)));
        }
        if let Some(items @ Json::Object(_)) = o.get("items") {
            s.items = Some(Box::new(Schema::from_json(items)));
        }
        s.list_type = o
            .get("x-kubernetes-list-type")
            .and_then(Json::as_str)
            .map(str::to_string);
        if let Some(Json::Array(keys)) = o.get("x-kubernetes-list-map-keys") {
            s.list_map_keys = keys
                .iter()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect();
        }
        if let Some(Json::Array(e)) = o.get("enum") {
            s.enum_values = e.clone();
        }
        if s.embedded_resource {
            s = s.with_type_and_object_meta();
        }
        s
    }

    /// Kubernetes' `WithTypeAndObjectMeta`: unless `kind`, `apiVersion`, `metadata.name` and
    /// `metadata.generateName` are all declared, a copy with `kind` and `apiVersion` strings and a
    /// `metadata` object holding only `name` and `generateName`. Use it for the schema of the
    /// resource root (embedded resources get it from [`Schema::from_json`]).
    pub fn with_type_and_object_meta(&self) -> Schema {
        fn get<'a>(m: &'a BTreeMap<String, Box<Schema>>, k: &str) -> Option<&'a Schema> {
            m.get(k).map(Box::as_ref)
        }
        let is = |s: Option<&Schema>, t: &str| s.is_some_and(|s| s.type_ == t);
        if let Some(p) = &self.properties {
            let meta = get(p, "metadata");
            let mp = meta.and_then(|m| m.properties.as_ref());
            if is(get(p, "kind"), "string")
                && is(get(p, "apiVersion"), "string")
                && is(meta, "object")
                && mp.is_some()
                && is(mp.and_then(|m| get(m, "name")), "string")
                && is(mp.and_then(|m| get(m, "generateName")), "string")
            {
                return self.clone();
            }
        }
        let string = Schema {
            type_: "string".into(),
            ..Schema::default()
        };
        let mut props = self.properties.clone().unwrap_or_default();
        props.insert("kind".into(), Box::new(string.clone()));
        props.insert("apiVersion".into(), Box::new(string.clone()));
        let mut mprops = BTreeMap::new();
        mprops.insert("name".into(), Box::new(string.clone()));
        mprops.insert("generateName".into(), Box::new(string));
        props.insert(
            "metadata".into(),
            Box::new(Schema {
                type_: "object".into(),
                properties: Some(mprops),
                ..Schema::default()
            }),
        );
        Schema {
            properties: Some(props),
            ..self.clone()
        }
    }
}

/// Kubernetes' `Escape`: the CEL name of a property, or `None` when it cannot be accessed.
pub fn escape(ident: &str) -> Option<String> {
    let first = ident.bytes().next()?;
    if first.is_ascii_digit() {
        return None;
    }
    if crate::RESERVED_WORDS.contains(&ident) {
        return Some(format!("__{ident}__"));
    }
    let mut out = String::with_capacity(ident.len());
    let b = ident.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'_' && b.get(i + 1) == Some(&b'_') {
            out.push_str("__underscores__");
            i += 2;
            continue;
        }
        match c {
            b'.' => out.push_str("__dot__"),
            b'-' => out.push_str("__dash__"),
            b'/' => out.push_str("__slash__"),
            c if c.is_ascii_alphanumeric() || c == b'_' => out.push(char::from(c)),
            _ => return None,
        }
        i += 1;
    }
    Some(out)
}

/// Kubernetes' `Unescape`.
pub fn unescape(escaped: &str) -> Option<String> {
    let b = escaped.as_bytes();
    let mut out = String::with_capacity(escaped.len());
    let mut i = 0;
    let mut last = 0;
    while i + 1 < b.len() {
        if b.get(i) == Some(&b'_') && b.get(i + 1) == Some(&b'_') {
            let mut j = i + 2;
            while b.get(j).is_some_and(|&c| c != b'_') {
                j += 1;
            }
            if j > i + 2 && b.get(j) == Some(&b'_') && b.get(j + 1) == Some(&b'_') {
                let contents = escaped.get(i + 2..j)?;
                out.push_str(escaped.get(last..i)?);
                match contents {
                    "underscores" => out.push_str("__"),
                    "dot" => out.push('.'),
                    "dash" => out.push('-'),
                    "slash" => out.push('/'),
                    c if crate::RESERVED_WORDS.contains(&c) => {
                        if j + 2 - i != escaped.len() {
                            return None;
                        }
                        out.push_str(c);
                    }
                    _ => return None,
                }
                i = j + 2;
                last = i;
                continue;
            }
        }
        i += 1;
    }
    out.push_str(escaped.get(last..)?);
    Some(out)
}

/// Go's `%T` of a decoded JSON value.
fn go_type(j: &Json) -> &'static str {
    match j {
        Json::Null => "<nil>",
        Json::Bool(_) => "bool",
        Json::Number(n) => {
            if n.is_i64() {
                "int64"
            } else {
                "float64"
            }
        }
        Json::String(_) => "string",
        Json::Array(_) => "[]interface {}",
        Json::Object(_) => "map[string]interface {}",
    }
}

/// A JSON integer as Go decodes it into an `int64` (`None` for floats and integers beyond
/// int64, which Go decodes as `float64`).
fn json_int(n: &serde_json::Number) -> Option<i64> {
    n.as_i64()
}

fn json_f64(n: &serde_json::Number) -> f64 {
    n.as_f64().unwrap_or(0.0)
}

/// A schema's `type`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TypeKind {
    Object,
    Array,
    String,
    Number,
    Integer,
    Boolean,
    Other,
}

/// The `type` compared as fixed-size arrays (in line: converting each element of a list in a
/// comprehension asks, where a string `match` calls `memcmp`).
#[inline]
fn type_kind(t: &str) -> TypeKind {
    fn is<const N: usize>(b: &[u8], word: &[u8; N]) -> bool {
        <&[u8; N]>::try_from(b).is_ok_and(|a| a == word)
    }
    let b = t.as_bytes();
    if is(b, b"string") {
        TypeKind::String
    } else if is(b, b"object") {
        TypeKind::Object
    } else if is(b, b"array") {
        TypeKind::Array
    } else if is(b, b"integer") {
        TypeKind::Integer
    } else if is(b, b"number") {
        TypeKind::Number
    } else if is(b, b"boolean") {
        TypeKind::Boolean
    } else {
        TypeKind::Other
    }
}

/// `UnstructuredToVal(json, schema)`.
pub fn to_value<'a>(j: &'a Json, s: &'a Schema) -> Value<'a> {
    // The scalars most fields and list elements hold, in line; the rest (and every error)
    // out of line.
    if !s.int_or_string {
        match (j, type_kind(&s.type_)) {
            (Json::String(x), TypeKind::String) if s.format.is_empty() => {
                return Value::String(Str::Borrowed(x))
            }
            (Json::Bool(b), TypeKind::Boolean) => return Value::Bool(*b),
            (Json::Number(n), TypeKind::Integer) => {
                if let Some(i) = json_int(n) {
                    return Value::Int(i);
                }
            }
            _ => {}
        }
    }
    to_value_general(j, s)
}

#[inline(never)]
fn to_value_general<'a>(j: &'a Json, s: &'a Schema) -> Value<'a> {
    if let Json::Null = j {
        if s.nullable {
            return Value::Null;
        }
        return Value::error("invalid data, got null for schema with nullable=false");
    }
    if s.int_or_string {
        return match j {
            Json::String(x) => Value::String(Str::Borrowed(x)),
            Json::Number(n) => match json_int(n) {
                Some(i) => Value::Int(i),
                None => Value::error(
                    "invalid data, expected XIntOrString value to be either a string or integer",
                ),
            },
            _ => Value::error(
                "invalid data, expected XIntOrString value to be either a string or integer",
            ),
        };
    }
    match type_kind(&s.type_) {
        TypeKind::Object => {
            let Json::Object(m) = j else {
                return Value::error(
                    "invalid data, expected a map for the provided schema with type=object",
                );
            };
            let mode = if s.embedded_resource || s.properties.is_some() {
                MapMode::Object
            } else if s.additional_properties.is_some() {
                MapMode::Additional
            } else {
                MapMode::Empty
            };
            Value::Map(Map::Json(JsonMap {
                obj: m,
                schema: s,
                mode,
            }))
        }
        TypeKind::Array => {
            let Json::Array(items) = j else {
                return Value::error(
                    "invalid data, expected an array for the provided schema with type=array",
                );
            };
            let Some(item_schema) = s.items.as_deref() else {
                return Value::error("invalid array type, expected Items with a non-empty Schema");
            };
            match s.list_type.as_deref() {
                None | Some("") | Some("atomic") | Some("set") | Some("map") => {}
                Some(other) => {
                    return Value::error(format!(
                    "invalid x-kubernetes-list-type, expected 'map', 'set' or 'atomic' but got {other}"
                ))
                }
            }
            Value::List(List::Json(JsonList {
                items,
                schema: s,
                item_schema,
            }))
        }
        TypeKind::String => {
            let Json::String(x) = j else {
                return Value::error(format!("invalid data, expected string, got {}", go_type(j)));
            };
            match s.format.as_str() {
                "duration" => match crate::rt_time::parse_strfmt_duration(x) {
                    Ok(d) => Value::Duration(crate::value::Duration(d)),
                    Err(e) => Value::error(format!("Invalid duration {x}: {e}")),
                },
                "date" => match crate::rt_time::parse_date(x) {
                    Ok(t) => Value::Timestamp(t),
                    Err(e) => Value::error(format!("Invalid date formatted string {x}: {e}")),
                },
                "date-time" => match crate::rt_time::parse_strfmt_date_time(x) {
                    Ok(t) => Value::Timestamp(t),
                    Err(e) => Value::error(format!("Invalid date-time formatted string {x}: {e}")),
                },
                "byte" => match crd_studio_gostd::base64::decode(x) {
                    Some(b) => Value::Bytes(Rc::from(b)),
                    None => Value::error(format!(
                        "Invalid byte formatted string {x}: illegal base64 data at input byte {}",
                        crd_studio_gostd::base64::decode_error_offset(x)
                    )),
                },
                _ => Value::String(Str::Borrowed(x)),
            }
        }
        TypeKind::Number => match j {
            Json::Number(n) => Value::Double(json_f64(n)),
            _ => Value::error(format!("invalid data, expected float, got {}", go_type(j))),
        },
        TypeKind::Integer => match j {
            Json::Number(n) => match json_int(n) {
                Some(i) => Value::Int(i),
                None => Value::error("invalid data, expected int, got float64"),
            },
            _ => Value::error(format!("invalid data, expected int, got {}", go_type(j))),
        },
        TypeKind::Boolean => match j {
            Json::Bool(b) => Value::Bool(*b),
            _ => Value::error(format!("invalid data, expected bool, got {}", go_type(j))),
        },
        _ => {
            if s.preserve_unknown_fields {
                return Value::Preserved(j);
            }
            Value::error(format!(
                "invalid type, expected object, array, number, integer, boolean or string, or no type with x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true, got {}",
                s.type_
            ))
        }
    }
}

/// How a JSON object's keys map to schemas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapMode {
    /// An object with properties (or an embedded resource): declared properties only, keys
    /// escaped, null fields absent.
    Object,
    /// `additionalProperties`: every key, unescaped.
    Additional,
    /// Neither: no key has a schema.
    Empty,
}

/// A JSON object seen through its schema.
#[derive(Clone, Copy, Debug)]
pub struct JsonMap<'a> {
    obj: &'a serde_json::Map<String, Json>,
    schema: &'a Schema,
    mode: MapMode,
}

impl<'a> JsonMap<'a> {
    fn prop_schema(&self, key: &str) -> Option<&'a Schema> {
        match self.mode {
            MapMode::Object => self.schema.properties.as_ref()?.get(key).map(Box::as_ref),
            MapMode::Additional => self.schema.additional_properties.as_deref(),
            MapMode::Empty => None,
        }
    }

    /// The number of keys in the JSON (declared or not).
    pub fn len(&self) -> usize {
        self.obj.len()
    }

    /// Whether the JSON object is empty.
    pub fn is_empty(&self) -> bool {
        self.obj.is_empty()
    }

    /// The raw JSON.
    pub fn raw(&self) -> &'a serde_json::Map<String, Json> {
        self.obj
    }

    /// `Find`: string keys only (others are a `no such overload` error); object keys are
    /// unescaped; null fields of objects are absent.
    pub fn find(&self, key: &Value<'a>) -> Result<Option<Value<'a>>, Value<'a>> {
        let Value::String(k) = key else {
            return Err(Value::maybe_no_such_overload(key));
        };
        let owned;
        let k: &str = if self.mode == MapMode::Object
            && k.as_str().as_bytes().windows(2).any(|w| w == b"__")
        {
            // Only `__` sequences are escapes: other names are their own unescaped form.
            match unescape(k.as_str()) {
                Some(u) => {
                    owned = u;
                    &owned
                }
                None => return Ok(None),
            }
        } else {
            k.as_str()
        };
        self.find_raw(k)
    }

    fn find_raw(&self, k: &str) -> Result<Option<Value<'a>>, Value<'a>> {
        let Some(v) = self.obj.get(k) else {
            return Ok(None);
        };
        if self.mode == MapMode::Object && v.is_null() {
            return Ok(None);
        }
        match self.prop_schema(k) {
            Some(ps) => Ok(Some(to_value(v, ps))),
            None => Ok(None),
        }
    }

    /// The keys iterated by comprehensions: those with a schema, escaped for objects.
    pub fn keys(&self) -> Vec<Value<'a>> {
        let mut out = Vec::new();
        for k in self.obj.keys() {
            if self.prop_schema(k).is_none() {
                continue;
            }
            if self.mode == MapMode::Object {
                if let Some(e) = escape(k) {
                    if e != *k {
                        out.push(Value::string(e));
                        continue;
                    }
                }
            }
            out.push(Value::String(Str::Borrowed(k)));
        }
        out
    }
}

/// A JSON array seen through its schema.
#[derive(Clone, Copy, Debug)]
pub struct JsonList<'a> {
    /// The array (a thin reference: it keeps [`Value`] at 32 bytes).
    items: &'a Vec<Json>,
    schema: &'a Schema,
    item_schema: &'a Schema,
}

impl<'a> JsonList<'a> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the array is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The element at `i`, converted.
    pub fn get(&self, i: usize) -> Option<Value<'a>> {
        self.items.get(i).map(|j| to_value(j, self.item_schema))
    }

    /// The raw JSON elements.
    pub fn raw(&self) -> &'a [Json] {
        self.items.as_slice()
    }

    /// Set/map semantics from `x-kubernetes-list-type`.
    pub fn kind(&self) -> ListKind {
        match self.schema.list_type.as_deref() {
            Some("set") => ListKind::Set,
            Some("map") => ListKind::Map(self.escaped_keys()),
            _ => ListKind::Plain,
        }
    }

    fn escaped_keys(&self) -> Rc<[String]> {
        self.schema
            .list_map_keys
            .iter()
            .map(|k| escape(k).unwrap_or_else(|| k.clone()))
            .collect()
    }

    /// `Contains` (`x in list`): any element equal; an element comparison error is returned
    /// when nothing matched.
    pub fn contains(&self, x: &Value<'a>) -> Value<'a> {
        if x.is_error() {
            return x.clone();
        }
        let mut err = None;
        for j in self.items {
            let e = to_value(j, self.item_schema);
            match value_equal(&e, x) {
                Value::Bool(true) => return Value::Bool(true),
                Value::Bool(false) => {}
                other => {
                    if err.is_none() {
                        err = Some(Value::maybe_no_such_overload(&other));
                    }
                }
            }
        }
        err.unwrap_or(Value::Bool(false))
    }
}

/// Equality of a JSON list with another value: atomic lists element-wise (stopping at the first
/// non-true comparison, errors included), sets as sets, maps by key.
pub(crate) fn json_list_equal<'a>(l: &JsonList<'a>, other: &Value<'a>) -> Value<'a> {
    match l.kind() {
        ListKind::Set => crate::value::set_list_equal(&List::Json(*l), other),
        ListKind::Map(keys) => json_map_list_equal(l, &keys, other),
        ListKind::Plain => {
            let Value::List(o) = other else {
                return Value::maybe_no_such_overload(other);
            };
            if l.len() != o.len() {
                return Value::Bool(false);
            }
            for (i, j) in l.items.iter().enumerate() {
                let a = to_value(j, l.item_schema);
                let b = o.get(i).unwrap_or(Value::Null);
                match value_equal(&a, &b) {
                    Value::Bool(true) => {}
                    r => return r,
                }
            }
            Value::Bool(true)
        }
    }
}

/// A Go map key for map-list semantics.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum RawKey {
    Missing,
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
    Other(String),
    /// An element that is not a JSON object (never equal to anything).
    Invalid(usize),
}

fn raw_key_of_json(v: Option<&Json>) -> RawKey {
    match v {
        None | Some(Json::Null) => RawKey::Missing,
        Some(Json::Bool(b)) => RawKey::Bool(*b),
        Some(Json::Number(n)) => match n.as_i64() {
            Some(i) => RawKey::Int(i),
            None => RawKey::Float(n.as_f64().unwrap_or(0.0).to_bits()),
        },
        Some(Json::String(s)) => RawKey::Str(s.clone()),
        Some(other) => RawKey::Other(other.to_string()),
    }
}

/// `unstructuredMapList.toMapKey` of a raw element: key properties looked up by their escaped
/// names in the raw object (as Kubernetes does).
fn json_element_key(e: &Json, keys: &[String], salt: usize) -> Vec<RawKey> {
    match e {
        Json::Object(o) => keys.iter().map(|k| raw_key_of_json(o.get(k))).collect(),
        _ => vec![RawKey::Invalid(salt)],
    }
}

/// `refValMapKey`: the key properties of a CEL element.
fn value_element_key(e: &Value<'_>, keys: &[String]) -> Vec<RawKey> {
    keys.iter()
        .map(|k| {
            let found = match e {
                Value::Map(m) => m.find(&Value::string(k)).ok().flatten(),
                _ => None,
            };
            match found {
                None | Some(Value::Error(_)) => RawKey::Missing,
                Some(Value::Null) => RawKey::Null,
                Some(Value::Bool(b)) => RawKey::Bool(b),
                Some(Value::Int(i)) => RawKey::Int(i),
                Some(Value::Uint(u)) => RawKey::Other(format!("u{u}")),
                Some(Value::Double(d)) => RawKey::Float(d.to_bits()),
                Some(Value::String(s)) => RawKey::Str(s.as_str().to_string()),
                Some(other) => RawKey::Other(crate::value::format_v(&other)),
            }
        })
        .collect()
}

/// The key Kubernetes computes for an element of the *other* list in a map-list equality:
/// `toMapKey(v.Value())`, which only understands raw JSON objects.
fn other_element_key(v: &Value<'_>, keys: &[String], salt: usize) -> Vec<RawKey> {
    match v {
        Value::Map(Map::Json(j)) => keys
            .iter()
            .map(|k| raw_key_of_json(j.raw().get(k)))
            .collect(),
        _ => vec![RawKey::Invalid(salt)],
    }
}

fn json_map_list_equal<'a>(l: &JsonList<'a>, keys: &[String], other: &Value<'a>) -> Value<'a> {
    let Value::List(o) = other else {
        return Value::maybe_no_such_overload(other);
    };
    if l.len() != o.len() {
        return Value::Bool(false);
    }
    let mut map: std::collections::HashMap<Vec<RawKey>, &Json> = Default::default();
    for (i, e) in l.items.iter().enumerate() {
        map.insert(json_element_key(e, keys, i), e);
    }
    let mut seen = std::collections::HashSet::new();
    for (i, v) in o.iter().enumerate() {
        let k = other_element_key(&v, keys, usize::MAX - i);
        let Some(tv) = map.get(&k) else {
            return Value::Bool(false);
        };
        match value_equal(&to_value(tv, l.item_schema), &v) {
            Value::Bool(true) => {}
            r => return r,
        }
        seen.insert(k);
    }
    Value::Bool(seen.len() == map.len())
}

/// Equality of an owned map-list (the result of `+` on a map list, Kubernetes'
/// `refValMapList.Equal`): by key, ignoring order.
pub(crate) fn owned_map_list_equal<'a>(
    l: &List<'a>,
    keys: &[String],
    other: &Value<'a>,
) -> Value<'a> {
    let Value::List(o) = other else {
        return Value::maybe_no_such_overload(other);
    };
    if l.len() != o.len() {
        return Value::Bool(false);
    }
    let mut by_key: std::collections::HashMap<Vec<RawKey>, Value<'a>> = Default::default();
    for e in l.iter() {
        by_key.insert(value_element_key(&e, keys), e);
    }
    let mut seen = std::collections::HashSet::new();
    for v in o.iter() {
        let k = value_element_key(&v, keys);
        let Some(e) = by_key.get(&k) else {
            return Value::Bool(false);
        };
        match value_equal(e, &v) {
            Value::Bool(true) => {}
            r => return r,
        }
        seen.insert(k);
    }
    Value::Bool(seen.len() == by_key.len())
}

/// `addToMapList`: elements of `other` with a key already present replace it in place, others
/// are appended.
pub(crate) fn map_list_add<'a>(
    mut elements: Vec<Value<'a>>,
    other: &List<'a>,
    keys: Rc<[String]>,
) -> Value<'a> {
    let mut idx: std::collections::HashMap<Vec<RawKey>, usize> = Default::default();
    for (i, e) in elements.iter().enumerate() {
        idx.insert(value_element_key(e, &keys), i);
    }
    for v in other.iter() {
        let k = value_element_key(&v, &keys);
        match idx.get(&k).copied() {
            Some(i) => {
                if let Some(slot) = elements.get_mut(i) {
                    *slot = v;
                }
            }
            None => {
                idx.insert(k, elements.len());
                elements.push(v);
            }
        }
    }
    Value::List(List::Owned(Rc::new(OwnedList {
        items: elements,
        kind: ListKind::Map(keys),
    })))
}

/// Equality of a JSON object with another value (`unstructuredMap.Equal`).
pub(crate) fn json_map_equal<'a>(m: &JsonMap<'a>, other: &Value<'a>) -> Value<'a> {
    let Value::Map(om) = other else {
        return Value::maybe_no_such_overload(other);
    };
    if m.len() != om.len() {
        return Value::Bool(false);
    }
    for (key, value) in m.obj {
        if m.prop_schema(key).is_some() {
            let kv = Value::String(Str::Borrowed(key));
            let v = match m.find(&kv) {
                Ok(v) => v,
                Err(e) => return e,
            };
            let ov = match om.find(&kv) {
                Ok(v) => v,
                Err(e) => return e,
            };
            match (v, ov) {
                (None, None) => continue,
                (Some(v), Some(ov)) => match value_equal(&v, &ov) {
                    Value::Bool(true) => {}
                    r => return r,
                },
                _ => return Value::Bool(false),
            }
        } else {
            let Map::Json(oj) = om else {
                return Value::no_such_overload();
            };
            if let Some(ov) = oj.obj.get(key) {
                if !json_deep_equal(value, ov) {
                    return Value::Bool(false);
                }
            }
        }
    }
    Value::Bool(true)
}

/// Deep equality of decoded JSON, as Go's `reflect.DeepEqual` on unstructured data (an integer
/// and a float are different values).
pub fn json_deep_equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(p), Some(q)) => p == q,
            (None, None) => x.as_f64() == y.as_f64(),
            _ => false,
        },
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_deep_equal(p, q))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_deep_equal(v, w)))
        }
        _ => a == b,
    }
}

/// `unknownPreserved.Equal`: deep equality of the raw data with the other value's raw data.
pub(crate) fn preserved_equal(j: &Json, other: &Value<'_>) -> bool {
    match other {
        Value::Preserved(o) => json_deep_equal(j, o),
        Value::Map(Map::Json(m)) => {
            matches!(j, Json::Object(o) if json_deep_equal(&Json::Object(o.clone()), &Json::Object(m.raw().clone())))
        }
        Value::List(List::Json(l)) => {
            matches!(j, Json::Array(a) if a.len() == l.raw().len() && a.iter().zip(l.raw()).all(|(p, q)| json_deep_equal(p, q)))
        }
        Value::Null => j.is_null(),
        Value::Bool(b) => j.as_bool() == Some(*b),
        Value::Int(i) => matches!(j, Json::Number(n) if n.as_i64() == Some(*i)),
        Value::Double(d) => {
            matches!(j, Json::Number(n) if n.as_i64().is_none() && n.as_f64() == Some(*d))
        }
        Value::String(s) => j.as_str() == Some(s.as_str()),
        _ => false,
    }
}

/// Set-element keys of a JSON list are the converted elements' keys (used by the sets library
/// through [`set_element_key`]).
#[allow(dead_code)]
pub(crate) fn json_set_keys<'a>(l: &JsonList<'a>) -> Result<Vec<crate::value::SetKey>, Value<'a>> {
    l.items
        .iter()
        .map(|j| set_element_key(&to_value(j, l.item_schema)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::equal;
    use serde_json::json;

    #[test]
    fn escaping_table() {
        let cases = [
            ("a", Some("a")),
            ("namespace", Some("__namespace__")),
            (
                "x-kubernetes.io/a__b",
                Some("x__dash__kubernetes__dot__io__slash__a__underscores__b"),
            ),
            ("1a", None),
            ("", None),
            ("a b", None),
            ("a_b", Some("a_b")),
            ("__a", Some("__underscores__a")),
        ];
        for (i, want) in cases {
            assert_eq!(escape(i).as_deref(), want, "{i}");
            if let Some(w) = want {
                assert_eq!(unescape(w).as_deref(), Some(i), "unescape {w}");
            }
        }
        assert_eq!(unescape("__foo__"), None);
        assert_eq!(unescape("a__in__"), None);
        assert_eq!(unescape("__in__").as_deref(), Some("in"));
    }

    #[test]
    fn values_follow_the_schema() {
        let schema = Schema::from_json(&json!({
            "type": "object",
            "properties": {
                "i": {"type": "integer"},
                "n": {"type": "number"},
                "s": {"type": "string", "nullable": true},
                "x-y": {"type": "string"},
                "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "ios": {"x-kubernetes-int-or-string": true},
                "d": {"type": "string", "format": "duration"},
            }
        }));
        let data = json!({"i": 3, "n": 2, "s": null, "x-y": "z", "set": ["a", "b"], "ios": "50%", "d": "1m"});
        let v = to_value(&data, &schema);
        let Value::Map(m) = &v else { panic!() };
        let get = |k: &str| m.find(&Value::string(k)).unwrap();
        assert!(matches!(get("i"), Some(Value::Int(3))));
        assert!(matches!(get("n"), Some(Value::Double(d)) if d == 2.0));
        assert!(get("s").is_none());
        assert!(matches!(get("x__dash__y"), Some(Value::String(_))));
        assert!(matches!(get("ios"), Some(Value::String(_))));
        assert!(matches!(
            get("d"),
            Some(Value::Duration(crate::value::Duration(60_000_000_000)))
        ));
        let set = get("set").unwrap();
        let other = Value::list(vec![Value::string("b"), Value::string("a")]);
        assert_eq!(equal(&set, &other).as_bool(), Some(true));
        assert_eq!(m.len(), 7);
        assert_eq!(m.keys().len(), 7);
    }

    #[test]
    fn invalid_data_errors() {
        let s = Schema::from_json(&json!({"type": "object"}));
        let d = json!([1]);
        assert_eq!(
            to_value(&d, &s).as_error().unwrap().message,
            "invalid data, expected a map for the provided schema with type=object"
        );
        let s = Schema::from_json(&json!({"type": "integer"}));
        let d = json!(null);
        assert_eq!(
            to_value(&d, &s).as_error().unwrap().message,
            "invalid data, got null for schema with nullable=false"
        );
    }

    #[test]
    fn type_kinds_are_exact_names() {
        let cases = [
            ("string", TypeKind::String),
            ("object", TypeKind::Object),
            ("array", TypeKind::Array),
            ("integer", TypeKind::Integer),
            ("number", TypeKind::Number),
            ("boolean", TypeKind::Boolean),
            ("", TypeKind::Other),
            ("strinG", TypeKind::Other),
            ("strings", TypeKind::Other),
            ("arra", TypeKind::Other),
            ("Object", TypeKind::Other),
            ("int", TypeKind::Other),
        ];
        for (name, want) in cases {
            assert!(type_kind(name) == want, "{name}");
        }
    }

    #[test]
    fn resource_root_gets_metadata() {
        let s = Schema::from_json(
            &json!({"type": "object", "properties": {"spec": {"type": "object"}}}),
        )
        .with_type_and_object_meta();
        let p = s.properties.as_ref().unwrap();
        assert!(p.contains_key("kind") && p.contains_key("metadata") && p.contains_key("spec"));
    }
}
