//! Runtime values, as cel-go's `common/types` models them, with Kubernetes' JSON-backed values.
//!
//! - [`Value`]: null, bool, int, uint, double, string (sizes in code points), bytes, list, map,
//!   timestamp, duration, type values, optionals, the Kubernetes library values ([`Opaque`]),
//!   "unknown preserved" JSON, and error values carrying cel-go's exact messages
//!   (`no such key: x`, `no such overload`, `division by zero`, `integer overflow`, ...).
//! - Lists and maps are either owned (built by an expression) or borrowed from a
//!   `serde_json::Value` together with its runtime [`Schema`](crate::unstructured::Schema), the way
//!   Kubernetes' `UnstructuredToVal` exposes custom resources without copying them: fields and
//!   elements are converted lazily, and list-set / list-map semantics apply to equality and `+`.
//! - [`equal`] is cel-go's heterogeneous equality (`types.Equal`), [`compare`] its ordering
//!   (`traits.Comparer`, numeric across int, uint and double).
//!
//! Values borrow the JSON they were bound from (`'a`); everything an expression builds is
//! reference counted, so cloning a value is cheap.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::rc::Rc;

use crate::unstructured::{JsonList, JsonMap};

/// Type names as cel-go's `TypeName()` gives them (`type(x)` values compare by these names).
pub mod type_names {
    /// `null_type`.
    pub const NULL: &str = "null_type";
    /// `bool`.
    pub const BOOL: &str = "bool";
    /// `int`.
    pub const INT: &str = "int";
    /// `uint`.
    pub const UINT: &str = "uint";
    /// `double`.
    pub const DOUBLE: &str = "double";
    /// `string`.
    pub const STRING: &str = "string";
    /// `bytes`.
    pub const BYTES: &str = "bytes";
    /// `list`.
    pub const LIST: &str = "list";
    /// `map`.
    pub const MAP: &str = "map";
    /// `google.protobuf.Timestamp`.
    pub const TIMESTAMP: &str = "google.protobuf.Timestamp";
    /// `google.protobuf.Duration`.
    pub const DURATION: &str = "google.protobuf.Duration";
    /// `type`.
    pub const TYPE: &str = "type";
    /// `optional_type`.
    pub const OPTIONAL: &str = "optional_type";
    /// `error`.
    pub const ERROR: &str = "error";
    /// `unknown` (values preserved by `x-kubernetes-preserve-unknown-fields`).
    pub const UNKNOWN: &str = "unknown";
    /// `dyn`.
    pub const DYN: &str = "dyn";
    /// Kubernetes' URL type.
    pub const URL: &str = "kubernetes.URL";
    /// Kubernetes' IP type.
    pub const IP: &str = "net.IP";
    /// Kubernetes' CIDR type.
    pub const CIDR: &str = "net.CIDR";
    /// Kubernetes' Quantity type.
    pub const QUANTITY: &str = "kubernetes.Quantity";
    /// Kubernetes' Semver type.
    pub const SEMVER: &str = "kubernetes.Semver";
    /// Kubernetes' named format type.
    pub const FORMAT: &str = "kubernetes.NamedFormat";
}

/// A string value: borrowed from the bound JSON, or owned.
#[derive(Clone, Debug)]
pub enum Str<'a> {
    /// Borrowed from the activation's JSON.
    Borrowed(&'a str),
    /// Built by the expression.
    Owned(Rc<str>),
}

impl<'a> Str<'a> {
    /// The text.
    pub fn as_str(&self) -> &str {
        match self {
            Str::Borrowed(s) => s,
            Str::Owned(s) => s,
        }
    }
}

/// An error value. `message` is cel-go's text (what `err.Error()` prints).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CelError {
    /// The message.
    pub message: String,
}

/// A timestamp (Go's `time.Time` with a fixed offset).
pub use crd_studio_gostd::time::Timestamp;

/// A duration in nanoseconds (Go's `time.Duration`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Duration(pub i64);

/// The Kubernetes library values (opaque to the language).
#[derive(Clone, Debug, PartialEq)]
pub enum Opaque {
    /// `url(...)`.
    Url(crd_studio_gostd::url::Url),
    /// `ip(...)`.
    Ip(crate::k8s_net::Ip),
    /// `cidr(...)`.
    Cidr(crate::k8s_net::Cidr),
    /// `quantity(...)`.
    Quantity(crate::k8s_quantity::Quantity),
    /// `semver(...)`.
    Semver(crate::k8s_semver::Semver),
    /// `format.named(...)`, `format.dns1123Label()`, ...
    Format(&'static str),
}

impl Opaque {
    /// The type name.
    pub fn type_name(&self) -> &'static str {
        match self {
            Opaque::Url(_) => type_names::URL,
            Opaque::Ip(_) => type_names::IP,
            Opaque::Cidr(_) => type_names::CIDR,
            Opaque::Quantity(_) => type_names::QUANTITY,
            Opaque::Semver(_) => type_names::SEMVER,
            Opaque::Format(_) => type_names::FORMAT,
        }
    }
}

/// How a list compares and concatenates (Kubernetes' `x-kubernetes-list-type`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListKind {
    /// Ordinary (atomic) list.
    Plain,
    /// `set`: equality ignores order; `+` is a union keeping the left order.
    Set,
    /// `map` with these escaped key names: equality by keys ignoring order; `+` merges.
    Map(Rc<[String]>),
}

/// A list built by an expression.
#[derive(Debug, Clone)]
pub struct OwnedList<'a> {
    /// The elements.
    pub items: Vec<Value<'a>>,
    /// Set / map semantics, when the list came from a `+` on such a list.
    pub kind: ListKind,
}

/// A list value.
#[derive(Clone, Debug)]
pub enum List<'a> {
    /// Built by the expression.
    Owned(Rc<OwnedList<'a>>),
    /// A JSON array with its schema.
    Json(JsonList<'a>),
}

/// A map key (CEL keys are int, uint, bool or string; doubles are looked up numerically).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Int(i64),
    Uint(u64),
    Bool(bool),
    Str(Box<str>),
    /// Any other value (only reachable without a type checker): compared by equality.
    Other(u64),
}

/// A map built by an expression.
#[derive(Debug, Default, Clone)]
pub struct OwnedMap<'a> {
    entries: Vec<(Value<'a>, Value<'a>)>,
    index: HashMap<Key, usize>,
}

/// A map value.
#[derive(Clone, Debug)]
pub enum Map<'a> {
    /// Built by the expression.
    Owned(Rc<OwnedMap<'a>>),
    /// A JSON object with its schema.
    Json(JsonMap<'a>),
}

/// A type value (`type(x)`, `int`, ...), compared by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeName(pub std::borrow::Cow<'static, str>);

/// A CEL runtime value.
#[derive(Debug)]
pub enum Value<'a> {
    /// `null`.
    Null,
    /// A bool.
    Bool(bool),
    /// A signed 64-bit integer.
    Int(i64),
    /// An unsigned 64-bit integer.
    Uint(u64),
    /// A double.
    Double(f64),
    /// A string.
    String(Str<'a>),
    /// Bytes.
    Bytes(Rc<[u8]>),
    /// A list.
    List(List<'a>),
    /// A map.
    Map(Map<'a>),
    /// A timestamp.
    Timestamp(Timestamp),
    /// A duration.
    Duration(Duration),
    /// A type value.
    Type(TypeName),
    /// An optional (`None` is `optional.none()`).
    Optional(Option<Rc<Value<'a>>>),
    /// A Kubernetes library value.
    Opaque(Rc<Opaque>),
    /// JSON kept by `x-kubernetes-preserve-unknown-fields` where the schema has no type: only
    /// equality is defined on it.
    Preserved(&'a serde_json::Value),
    /// An error.
    Error(Rc<CelError>),
}

impl Clone for Value<'_> {
    /// In line for the values evaluation copies most (scalars, strings, JSON-backed lists and
    /// maps: a copy or a reference count), out of line for the others.
    #[inline]
    fn clone(&self) -> Self {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(*b),
            Value::Int(i) => Value::Int(*i),
            Value::Uint(u) => Value::Uint(*u),
            Value::Double(d) => Value::Double(*d),
            Value::String(Str::Borrowed(s)) => Value::String(Str::Borrowed(s)),
            Value::String(Str::Owned(s)) => Value::String(Str::Owned(Rc::clone(s))),
            Value::List(List::Json(l)) => Value::List(List::Json(*l)),
            Value::Map(Map::Json(m)) => Value::Map(Map::Json(*m)),
            _ => self.clone_other(),
        }
    }
}

impl Value<'_> {
    /// Drops a value, skipping the drop glue's call for the values that own nothing (scalars,
    /// borrowed strings, JSON-backed lists and maps): the evaluator drops one or two values per
    /// step of a comprehension.
    #[inline]
    pub fn discard(self) {
        match self {
            Value::Null
            | Value::Bool(_)
            | Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::String(Str::Borrowed(_))
            | Value::List(List::Json(_))
            | Value::Map(Map::Json(_))
            | Value::Duration(_)
            | Value::Preserved(_) => std::mem::forget(self),
            other => drop(other),
        }
    }

    #[inline(never)]
    fn clone_other(&self) -> Self {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(*b),
            Value::Int(i) => Value::Int(*i),
            Value::Uint(u) => Value::Uint(*u),
            Value::Double(d) => Value::Double(*d),
            Value::String(s) => Value::String(s.clone()),
            Value::Bytes(b) => Value::Bytes(Rc::clone(b)),
            Value::List(l) => Value::List(l.clone()),
            Value::Map(m) => Value::Map(m.clone()),
            Value::Timestamp(t) => Value::Timestamp(*t),
            Value::Duration(d) => Value::Duration(*d),
            Value::Type(t) => Value::Type(t.clone()),
            Value::Optional(o) => Value::Optional(o.clone()),
            Value::Opaque(o) => Value::Opaque(Rc::clone(o)),
            Value::Preserved(j) => Value::Preserved(j),
            Value::Error(e) => Value::Error(Rc::clone(e)),
        }
    }
}

/// cel-go's `no such overload` error.
pub const NO_SUCH_OVERLOAD: &str = "no such overload";

impl<'a> Value<'a> {
    /// An error value with this message.
    pub fn error(message: impl Into<String>) -> Self {
        Value::Error(Rc::new(CelError {
            message: message.into(),
        }))
    }

    /// cel-go's `NoSuchOverloadErr()`.
    pub fn no_such_overload() -> Self {
        Value::error(NO_SUCH_OVERLOAD)
    }

    /// cel-go's `MaybeNoSuchOverloadErr(v)`: `v` itself when it is an error, else `no such
    /// overload`.
    pub fn maybe_no_such_overload(v: &Value<'a>) -> Self {
        match v {
            Value::Error(_) => v.clone(),
            _ => Value::no_such_overload(),
        }
    }

    /// An owned string.
    pub fn string(s: impl AsRef<str>) -> Self {
        Value::String(Str::Owned(Rc::from(s.as_ref())))
    }

    /// Owned bytes.
    pub fn bytes(b: &[u8]) -> Self {
        Value::Bytes(Rc::from(b))
    }

    /// A plain owned list.
    pub fn list(items: Vec<Value<'a>>) -> Self {
        Value::List(List::Owned(Rc::new(OwnedList {
            items,
            kind: ListKind::Plain,
        })))
    }

    /// An owned map from entries (a repeated key keeps the last value, as a Go map does).
    pub fn map(entries: Vec<(Value<'a>, Value<'a>)>) -> Self {
        let mut m = OwnedMap::default();
        for (k, v) in entries {
            m.insert(k, v);
        }
        Value::Map(Map::Owned(Rc::new(m)))
    }

    /// A type value.
    pub fn type_value(name: &'static str) -> Self {
        Value::Type(TypeName(std::borrow::Cow::Borrowed(name)))
    }

    /// `optional.of(v)`.
    pub fn optional_of(v: Value<'a>) -> Self {
        Value::Optional(Some(Rc::new(v)))
    }

    /// `optional.none()`.
    pub fn optional_none() -> Self {
        Value::Optional(None)
    }

    /// An opaque library value.
    pub fn opaque(o: Opaque) -> Self {
        Value::Opaque(Rc::new(o))
    }

    /// Whether this is an error value.
    pub fn is_error(&self) -> bool {
        matches!(self, Value::Error(_))
    }

    /// The error, if this is one.
    pub fn as_error(&self) -> Option<&CelError> {
        match self {
            Value::Error(e) => Some(e),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        }
    }

    /// The bool, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The int, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The runtime type name (cel-go's `Type().TypeName()`).
    pub fn type_name(&self) -> &str {
        match self {
            Value::Null => type_names::NULL,
            Value::Bool(_) => type_names::BOOL,
            Value::Int(_) => type_names::INT,
            Value::Uint(_) => type_names::UINT,
            Value::Double(_) => type_names::DOUBLE,
            Value::String(_) => type_names::STRING,
            Value::Bytes(_) => type_names::BYTES,
            Value::List(_) => type_names::LIST,
            Value::Map(_) => type_names::MAP,
            Value::Timestamp(_) => type_names::TIMESTAMP,
            Value::Duration(_) => type_names::DURATION,
            Value::Type(_) => type_names::TYPE,
            Value::Optional(_) => type_names::OPTIONAL,
            Value::Opaque(o) => o.type_name(),
            Value::Preserved(_) => type_names::UNKNOWN,
            Value::Error(_) => type_names::ERROR,
        }
    }

    /// The value's type as a type value (`type(x)`).
    pub fn type_of(&self) -> Value<'static> {
        match self {
            Value::Opaque(o) => Value::type_value(o.type_name()),
            Value::Error(e) => Value::Error(e.clone()),
            _ => {
                let name: &'static str = match self {
                    Value::Null => type_names::NULL,
                    Value::Bool(_) => type_names::BOOL,
                    Value::Int(_) => type_names::INT,
                    Value::Uint(_) => type_names::UINT,
                    Value::Double(_) => type_names::DOUBLE,
                    Value::String(_) => type_names::STRING,
                    Value::Bytes(_) => type_names::BYTES,
                    Value::List(_) => type_names::LIST,
                    Value::Map(_) => type_names::MAP,
                    Value::Timestamp(_) => type_names::TIMESTAMP,
                    Value::Duration(_) => type_names::DURATION,
                    Value::Type(_) => type_names::TYPE,
                    Value::Optional(_) => type_names::OPTIONAL,
                    _ => type_names::UNKNOWN,
                };
                Value::type_value(name)
            }
        }
    }

    /// `traits.Sizer`: the size of strings (code points), bytes, lists and maps.
    pub fn size(&self) -> Option<i64> {
        let n = match self {
            Value::String(s) => rune_count(s.as_str()),
            Value::Bytes(b) => b.len(),
            Value::List(l) => l.len(),
            Value::Map(m) => m.len(),
            _ => return None,
        };
        Some(i64::try_from(n).unwrap_or(i64::MAX))
    }

    /// The size of a string value with this text ([`Value::actual_size`] of it: its code
    /// points).
    #[inline]
    pub fn string_size(s: &str) -> u64 {
        rune_count(s) as u64
    }

    /// cel-go's `actualSize` for cost: the size of sizers, the size of an optional's value,
    /// and 1 for everything else.
    pub fn actual_size(&self) -> u64 {
        match self {
            Value::Optional(Some(v)) => v.actual_size(),
            _ => self.size().map(|n| n.max(0) as u64).unwrap_or(1),
        }
    }

    /// Whether the value is a zero value (for `optional.ofNonZeroValue`).
    pub fn is_zero_value(&self) -> bool {
        match self {
            Value::Null => true,
            Value::Bool(b) => !*b,
            Value::Int(i) => *i == 0,
            Value::Uint(u) => *u == 0,
            Value::Double(d) => *d == 0.0,
            Value::String(s) => s.as_str().is_empty(),
            Value::Bytes(b) => b.is_empty(),
            Value::List(l) => l.is_empty(),
            Value::Map(m) => m.is_empty(),
            Value::Timestamp(t) => {
                t.secs == crd_studio_gostd::time::GO_ZERO_TIME_SECS && t.nanos == 0
            }
            Value::Duration(d) => d.0 == 0,
            Value::Optional(o) => o.is_none(),
            _ => false,
        }
    }
}

/// The number of code points of a string (`chars().count()`, with ASCII text, the common
/// case in rules and in the cost of every string comparison, counted by its length).
fn rune_count(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

impl<'a> List<'a> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            List::Owned(l) => l.items.len(),
            List::Json(j) => j.len(),
        }
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element at `i` (`None` when out of range).
    pub fn get(&self, i: usize) -> Option<Value<'a>> {
        match self {
            List::Owned(l) => l.items.get(i).cloned(),
            List::Json(j) => j.get(i),
        }
    }

    /// The elements, in order.
    pub fn iter(&self) -> ListIter<'_, 'a> {
        ListIter { list: self, pos: 0 }
    }

    /// The list's set/map semantics.
    pub fn kind(&self) -> ListKind {
        match self {
            List::Owned(l) => l.kind.clone(),
            List::Json(j) => j.kind(),
        }
    }

    /// All elements as a vector.
    pub fn to_vec(&self) -> Vec<Value<'a>> {
        self.iter().collect()
    }
}

/// Iterator over a list's elements.
pub struct ListIter<'l, 'a> {
    list: &'l List<'a>,
    pos: usize,
}

impl<'a> Iterator for ListIter<'_, 'a> {
    type Item = Value<'a>;
    fn next(&mut self) -> Option<Value<'a>> {
        let v = self.list.get(self.pos)?;
        self.pos += 1;
        Some(v)
    }
}

fn key_of(v: &Value<'_>) -> Key {
    match v {
        Value::Int(i) => Key::Int(*i),
        Value::Uint(u) => Key::Uint(*u),
        Value::Bool(b) => Key::Bool(*b),
        Value::String(s) => Key::Str(Box::from(s.as_str())),
        Value::Double(d) => Key::Other(d.to_bits()),
        _ => Key::Other(0),
    }
}

impl<'a> OwnedMap<'a> {
    /// Inserts (or replaces) an entry.
    pub fn insert(&mut self, k: Value<'a>, v: Value<'a>) {
        let key = key_of(&k);
        if let Key::Other(_) = key {
            for e in self.entries.iter_mut() {
                if equal(&e.0, &k).as_bool() == Some(true) {
                    e.1 = v;
                    return;
                }
            }
            self.entries.push((k, v));
            return;
        }
        if let Some(&i) = self.index.get(&key) {
            if let Some(e) = self.entries.get_mut(i) {
                e.1 = v;
                return;
            }
        }
        self.index.insert(key, self.entries.len());
        self.entries.push((k, v));
    }

    /// Whether the exact key (same type) is present.
    pub fn contains_exact(&self, k: &Value<'a>) -> bool {
        self.index.contains_key(&key_of(k))
    }

    fn get_exact(&self, key: &Key) -> Option<&Value<'a>> {
        let i = *self.index.get(key)?;
        self.entries.get(i).map(|e| &e.1)
    }

    /// cel-go's `Find`: exact key, then the numerically equal int/uint key.
    pub fn find(&self, k: &Value<'a>) -> Option<Value<'a>> {
        let key = key_of(k);
        if let Key::Other(_) = key {
            if let Value::Double(d) = k {
                if let Some(i) = crate::stdlib_rt::double_to_int_lossless(*d) {
                    if let Some(v) = self.get_exact(&Key::Int(i)) {
                        return Some(v.clone());
                    }
                }
                if let Some(u) = crate::stdlib_rt::double_to_uint_lossless(*d) {
                    return self.get_exact(&Key::Uint(u)).cloned();
                }
                return None;
            }
            return self
                .entries
                .iter()
                .find(|e| equal(&e.0, k).as_bool() == Some(true))
                .map(|e| e.1.clone());
        }
        if let Some(v) = self.get_exact(&key) {
            return Some(v.clone());
        }
        match key {
            Key::Int(i) if i >= 0 => self.get_exact(&Key::Uint(i as u64)).cloned(),
            Key::Uint(u) if u <= i64::MAX as u64 => self.get_exact(&Key::Int(u as i64)).cloned(),
            _ => None,
        }
    }

    /// The entries in insertion order.
    pub fn entries(&self) -> &[(Value<'a>, Value<'a>)] {
        &self.entries
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<'a> Map<'a> {
    /// The number of entries (for a JSON object: every key present in the JSON).
    pub fn len(&self) -> usize {
        match self {
            Map::Owned(m) => m.len(),
            Map::Json(j) => j.len(),
        }
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// cel-go's `Find`: `Ok(Some(v))` when present, `Ok(None)` when absent, `Err(error value)`
    /// when the key cannot be looked up (a non-string key on a JSON object).
    pub fn find(&self, k: &Value<'a>) -> Result<Option<Value<'a>>, Value<'a>> {
        match self {
            Map::Owned(m) => Ok(m.find(k)),
            Map::Json(j) => j.find(k),
        }
    }

    /// The keys, in iteration order (for JSON objects with properties: the escaped names of the
    /// declared properties present).
    pub fn keys(&self) -> Vec<Value<'a>> {
        match self {
            Map::Owned(m) => m.entries.iter().map(|e| e.0.clone()).collect(),
            Map::Json(j) => j.keys(),
        }
    }

    /// `m[k]`: the value or cel-go's `no such key: k`.
    pub fn get(&self, k: &Value<'a>) -> Value<'a> {
        match self.find(k) {
            Ok(Some(v)) => v,
            Ok(None) => Value::error(format!("no such key: {}", format_v(k))),
            Err(e) => e,
        }
    }
}

/// `types.Equal(a, b)`: heterogeneous equality. The result is a bool, or an error value (from
/// Kubernetes' JSON-backed values, or when `a` is an error).
pub fn equal<'a>(a: &Value<'a>, b: &Value<'a>) -> Value<'a> {
    let an = matches!(a, Value::Null);
    let bn = matches!(b, Value::Null);
    if an || bn {
        return Value::Bool(an == bn);
    }
    value_equal(a, b)
}

/// `a.Equal(b)` (no null special case).
pub fn value_equal<'a>(a: &Value<'a>, b: &Value<'a>) -> Value<'a> {
    let r = match (a, b) {
        (Value::Error(_), _) => return a.clone(),
        (Value::Null, _) => matches!(b, Value::Null),
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(_) | Value::Uint(_) | Value::Double(_), _) => numeric_equal(a, b),
        (Value::String(x), Value::String(y)) => x.as_str() == y.as_str(),
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        (Value::Timestamp(x), Value::Timestamp(y)) => x.secs == y.secs && x.nanos == y.nanos,
        (Value::Duration(x), Value::Duration(y)) => x == y,
        (Value::Type(x), Value::Type(y)) => x == y,
        (Value::Optional(x), Value::Optional(y)) => match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => return value_equal(x, y),
            _ => false,
        },
        (Value::Optional(_), _) => false,
        (Value::List(l), _) => return list_equal(l, b),
        (Value::Map(m), _) => return map_equal(m, b),
        (Value::Opaque(x), Value::Opaque(y)) => return opaque_equal(x, y),
        (Value::Opaque(_), _) => return Value::maybe_no_such_overload(b),
        (Value::Preserved(j), _) => crate::unstructured::preserved_equal(j, b),
        _ => false,
    };
    Value::Bool(r)
}

fn opaque_equal<'a>(a: &Opaque, b: &Opaque) -> Value<'a> {
    Value::Bool(match (a, b) {
        (Opaque::Url(x), Opaque::Url(y)) => x == y,
        (Opaque::Ip(x), Opaque::Ip(y)) => x == y,
        (Opaque::Cidr(x), Opaque::Cidr(y)) => x == y,
        // Go's `Quantity.Equal` asserts a `Quantity` value: the pointer results of `add`/`sub`
        // on the right are "no such overload".
        (Opaque::Quantity(_), Opaque::Quantity(y)) if y.by_pointer => {
            return Value::no_such_overload()
        }
        (Opaque::Quantity(x), Opaque::Quantity(y)) => x.cmp_value(y) == Ordering::Equal,
        (Opaque::Semver(x), Opaque::Semver(y)) => x == y,
        (Opaque::Format(x), Opaque::Format(y)) => x == y,
        _ => false,
    })
}

fn numeric_equal(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::Double(x), _) if x.is_nan() => false,
        (_, Value::Double(y)) if y.is_nan() => false,
        (Value::Int(_) | Value::Uint(_) | Value::Double(_), Value::Int(_))
        | (Value::Int(_) | Value::Uint(_) | Value::Double(_), Value::Uint(_))
        | (Value::Int(_) | Value::Uint(_) | Value::Double(_), Value::Double(_)) => {
            numeric_cmp(a, b) == Some(Ordering::Equal)
        }
        _ => false,
    }
}

/// Ordering between numbers of any of int, uint, double (cel-go's cross-type comparisons).
/// `None` when either is not a number or is NaN.
pub fn numeric_cmp(a: &Value<'_>, b: &Value<'_>) -> Option<Ordering> {
    Some(match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Uint(x), Value::Uint(y)) => x.cmp(y),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y)?,
        (Value::Int(x), Value::Uint(y)) => cmp_int_uint(*x, *y),
        (Value::Uint(x), Value::Int(y)) => cmp_int_uint(*y, *x).reverse(),
        (Value::Double(x), Value::Int(y)) => cmp_double_int(*x, *y)?,
        (Value::Int(x), Value::Double(y)) => cmp_double_int(*y, *x)?.reverse(),
        (Value::Double(x), Value::Uint(y)) => cmp_double_uint(*x, *y)?,
        (Value::Uint(x), Value::Double(y)) => cmp_double_uint(*y, *x)?.reverse(),
        _ => return None,
    })
}

fn cmp_int_uint(i: i64, u: u64) -> Ordering {
    if i < 0 || u > i64::MAX as u64 {
        return Ordering::Less;
    }
    i.cmp(&(u as i64))
}

fn cmp_double_int(d: f64, i: i64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < i64::MIN as f64 {
        return Some(Ordering::Less);
    }
    if d > i64::MAX as f64 {
        return Some(Ordering::Greater);
    }
    d.partial_cmp(&(i as f64))
}

fn cmp_double_uint(d: f64, u: u64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < 0.0 {
        return Some(Ordering::Less);
    }
    if d > u64::MAX as f64 {
        return Some(Ordering::Greater);
    }
    d.partial_cmp(&(u as f64))
}

/// `traits.Comparer.Compare`: the ordering, or cel-go's error value (`no such overload`,
/// `NaN values cannot be ordered`).
pub fn compare<'a>(a: &Value<'a>, b: &Value<'a>) -> Result<Ordering, Value<'a>> {
    const NAN: &str = "NaN values cannot be ordered";
    match (a, b) {
        (Value::Int(_) | Value::Uint(_) | Value::Double(_), _) => {
            let nan = matches!(a, Value::Double(x) if x.is_nan())
                || matches!(b, Value::Double(y) if y.is_nan());
            match numeric_cmp(a, b) {
                Some(o) => Ok(o),
                None if nan && matches!(b, Value::Int(_) | Value::Uint(_) | Value::Double(_)) => {
                    Err(Value::error(NAN))
                }
                None if matches!(a, Value::Double(x) if x.is_nan()) => Err(Value::error(NAN)),
                None => Err(Value::maybe_no_such_overload(b)),
            }
        }
        (Value::Bool(x), Value::Bool(y)) => Ok(x.cmp(y)),
        (Value::String(x), Value::String(y)) => Ok(x.as_str().cmp(y.as_str())),
        (Value::Bytes(x), Value::Bytes(y)) => Ok(x.as_ref().cmp(y.as_ref())),
        (Value::Timestamp(x), Value::Timestamp(y)) => Ok((x.secs, x.nanos).cmp(&(y.secs, y.nanos))),
        (Value::Duration(x), Value::Duration(y)) => Ok(x.cmp(y)),
        (Value::Error(_), _) => Err(a.clone()),
        _ => Err(Value::maybe_no_such_overload(b)),
    }
}

fn list_equal<'a>(l: &List<'a>, other: &Value<'a>) -> Value<'a> {
    match l {
        List::Json(j) => crate::unstructured::json_list_equal(j, other),
        List::Owned(o) => match &o.kind {
            ListKind::Plain => base_list_equal(l, other),
            ListKind::Set => set_list_equal(l, other),
            ListKind::Map(keys) => crate::unstructured::owned_map_list_equal(l, keys, other),
        },
    }
}

/// cel-go's `baseList.Equal`: element-wise `types.Equal`; only a false element makes it false
/// (element errors are ignored).
fn base_list_equal<'a>(l: &List<'a>, other: &Value<'a>) -> Value<'a> {
    let Value::List(o) = other else {
        return Value::Bool(false);
    };
    if l.len() != o.len() {
        return Value::Bool(false);
    }
    for (x, y) in l.iter().zip(o.iter()) {
        if let Value::Bool(false) = equal(&x, &y) {
            return Value::Bool(false);
        }
    }
    Value::Bool(true)
}

/// A Go map key for set-list semantics (`setElementKey`): scalars only.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SetKey {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(u64),
    Str(String),
    Bytes(Vec<u8>),
    Time(i64, u32),
    Dur(i64),
    Other(String),
}

/// `setElementKey`: the raw scalar as a key, or the listSet error for lists and maps.
pub(crate) fn set_element_key<'a>(v: &Value<'a>) -> Result<SetKey, Value<'a>> {
    Ok(match v {
        Value::List(_) | Value::Map(_) => {
            return Err(Value::error(
                "listSet operations are only supported on lists of scalar values",
            ))
        }
        Value::Null => SetKey::Null,
        Value::Bool(b) => SetKey::Bool(*b),
        Value::Int(i) => SetKey::Int(*i),
        Value::Uint(u) => SetKey::Uint(*u),
        Value::Double(d) => SetKey::Double(if *d == 0.0 { 0 } else { d.to_bits() }),
        Value::String(s) => SetKey::Str(s.as_str().to_string()),
        Value::Bytes(b) => SetKey::Bytes(b.to_vec()),
        Value::Timestamp(t) => SetKey::Time(t.secs, t.nanos),
        Value::Duration(d) => SetKey::Dur(d.0),
        Value::Error(_) => return Err(v.clone()),
        other => SetKey::Other(format_v(other)),
    })
}

/// Set-list equality (Kubernetes' `unstructuredSetList` / `refValSetList`).
pub(crate) fn set_list_equal<'a>(l: &List<'a>, other: &Value<'a>) -> Value<'a> {
    let Value::List(o) = other else {
        return Value::maybe_no_such_overload(other);
    };
    if l.len() != o.len() {
        return Value::Bool(false);
    }
    let mut set = std::collections::HashSet::new();
    for x in l.iter() {
        match set_element_key(&x) {
            Ok(k) => {
                set.insert(k);
            }
            Err(e) => return e,
        }
    }
    let mut seen = std::collections::HashSet::new();
    for y in o.iter() {
        match set_element_key(&y) {
            Ok(k) => {
                if !set.contains(&k) {
                    return Value::Bool(false);
                }
                seen.insert(k);
            }
            Err(e) => return e,
        }
    }
    Value::Bool(seen.len() == set.len())
}

fn map_equal<'a>(m: &Map<'a>, other: &Value<'a>) -> Value<'a> {
    match m {
        Map::Json(j) => crate::unstructured::json_map_equal(j, other),
        Map::Owned(om) => {
            // cel-go's baseMap.Equal.
            let Value::Map(o) = other else {
                return Value::Bool(false);
            };
            if om.len() != o.len() {
                return Value::Bool(false);
            }
            for (k, v) in om.entries() {
                match o.find(k) {
                    Ok(Some(ov)) => {
                        if let Value::Bool(false) = equal(v, &ov) {
                            return Value::Bool(false);
                        }
                    }
                    _ => return Value::Bool(false),
                }
            }
            Value::Bool(true)
        }
    }
}

/// Concatenation `a + b` of lists, with Kubernetes' set (union) and map (merge) semantics when
/// the left list has them.
pub fn list_add<'a>(a: &List<'a>, b: &Value<'a>) -> Value<'a> {
    let Value::List(bl) = b else {
        return Value::maybe_no_such_overload(b);
    };
    match a.kind() {
        ListKind::Plain => {
            if bl.is_empty() {
                return Value::List(a.clone());
            }
            if a.is_empty() {
                if let List::Owned(_) = a {
                    return b.clone();
                }
            }
            let mut items = a.to_vec();
            items.extend(bl.iter());
            Value::list(items)
        }
        ListKind::Set => {
            let mut items = a.to_vec();
            let mut set = std::collections::HashSet::new();
            for e in &items {
                match set_element_key(e) {
                    Ok(k) => {
                        set.insert(k);
                    }
                    Err(e) => return e,
                }
            }
            for v in bl.iter() {
                match set_element_key(&v) {
                    Ok(k) => {
                        if set.insert(k) {
                            items.push(v);
                        }
                    }
                    Err(e) => return e,
                }
            }
            Value::List(List::Owned(Rc::new(OwnedList {
                items,
                kind: ListKind::Set,
            })))
        }
        ListKind::Map(keys) => crate::unstructured::map_list_add(a.to_vec(), bl, keys),
    }
}

/// `traits.Container.Contains` on a list: `x in list`.
pub fn list_contains<'a>(l: &List<'a>, x: &Value<'a>) -> Value<'a> {
    match l {
        List::Json(j) => j.contains(x),
        List::Owned(o) => {
            for e in &o.items {
                if let Value::Bool(true) = value_equal(x, e) {
                    return Value::Bool(true);
                }
            }
            Value::Bool(false)
        }
    }
}

/// Formats a value as Go's `%v` prints a cel-go value (used in error messages).
pub fn format_v(v: &Value<'_>) -> String {
    let mut s = String::new();
    write_v(&mut s, v);
    s
}

fn write_v(s: &mut String, v: &Value<'_>) {
    match v {
        Value::Null => s.push_str("NULL_VALUE"),
        Value::Bool(b) => {
            let _ = write!(s, "{b}");
        }
        Value::Int(i) => {
            let _ = write!(s, "{i}");
        }
        Value::Uint(u) => {
            let _ = write!(s, "{u}");
        }
        Value::Double(d) => s.push_str(&crd_studio_gostd::strconv::format_float_g(*d)),
        Value::String(x) => s.push_str(x.as_str()),
        Value::Bytes(b) => s.push_str(&String::from_utf8_lossy(b)),
        Value::List(l) => {
            s.push('[');
            for (i, e) in l.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                write_v(s, &e);
            }
            s.push(']');
        }
        Value::Map(m) => {
            s.push_str("map[");
            for (i, k) in m.keys().iter().enumerate() {
                if i > 0 {
                    s.push(' ');
                }
                write_v(s, k);
                s.push(':');
                write_v(s, &m.get(k));
            }
            s.push(']');
        }
        Value::Timestamp(t) => s.push_str(&crd_studio_gostd::time::format_rfc3339_nano(t)),
        Value::Duration(d) => s.push_str(&crd_studio_gostd::time::format_duration(d.0)),
        Value::Type(t) => s.push_str(&t.0),
        Value::Optional(Some(x)) => {
            s.push_str("optional(");
            write_v(s, x);
            s.push(')');
        }
        Value::Optional(None) => s.push_str("optional.none()"),
        Value::Opaque(o) => match o.as_ref() {
            Opaque::Url(u) => s.push_str(&u.to_string()),
            Opaque::Ip(ip) => s.push_str(&ip.to_string()),
            Opaque::Cidr(c) => s.push_str(&c.to_string()),
            Opaque::Quantity(q) => s.push_str(&q.to_string()),
            Opaque::Semver(v) => s.push_str(&v.to_string()),
            Opaque::Format(n) => s.push_str(n),
        },
        Value::Preserved(j) => s.push_str(&j.to_string()),
        Value::Error(e) => s.push_str(&e.message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(v: Value<'_>) -> Option<bool> {
        v.as_bool()
    }

    #[test]
    fn values_stay_small() {
        // Every evaluation step moves values: keep them at 32 bytes (four words on 64-bit
        // targets; a large variant, such as a fat reference in `JsonList`, would make it 40).
        assert!(std::mem::size_of::<Value<'static>>() <= 32);
    }

    #[test]
    fn string_sizes_count_code_points() {
        for s in [
            "",
            "abc",
            "Rook takes 👑",
            "é",
            "ǅx",
            &"é".repeat(40),
            &"a".repeat(40),
        ] {
            assert_eq!(rune_count(s), s.chars().count(), "{s}");
        }
    }

    #[test]
    fn heterogeneous_numeric_equality() {
        let cases: Vec<(Value, Value, bool)> = vec![
            (Value::Int(1), Value::Double(1.0), true),
            (Value::Int(1), Value::Uint(1), true),
            (Value::Int(-1), Value::Uint(u64::MAX), false),
            (Value::Uint(u64::MAX), Value::Double(u64::MAX as f64), true),
            (Value::Double(f64::NAN), Value::Double(f64::NAN), false),
            (Value::Int(1), Value::string("1"), false),
            (Value::Null, Value::Null, true),
            (Value::Null, Value::Int(0), false),
            (Value::string("a"), Value::string("a"), true),
            (
                Value::list(vec![Value::Int(1), Value::Double(2.0)]),
                Value::list(vec![Value::Uint(1), Value::Int(2)]),
                true,
            ),
            (
                Value::map(vec![(Value::Int(1), Value::string("a"))]),
                Value::map(vec![(Value::Uint(1), Value::string("a"))]),
                true,
            ),
            (Value::optional_none(), Value::optional_none(), true),
            (
                Value::optional_of(Value::Int(1)),
                Value::optional_none(),
                false,
            ),
            (Value::type_value("int"), Value::Int(1).type_of(), true),
        ];
        for (a, bb, want) in cases {
            assert_eq!(b(equal(&a, &bb)), Some(want), "{a:?} == {bb:?}");
        }
    }

    #[test]
    fn list_equality_ignores_element_errors() {
        let a = Value::list(vec![Value::error("x")]);
        let c = Value::list(vec![Value::Int(1)]);
        assert_eq!(b(equal(&a, &c)), Some(true));
    }

    #[test]
    fn comparisons() {
        assert_eq!(
            compare(&Value::Int(1), &Value::Double(1.5)).ok(),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(&Value::Uint(2), &Value::Int(-1)).ok(),
            Some(Ordering::Greater)
        );
        let e = compare(&Value::Double(f64::NAN), &Value::Int(1)).unwrap_err();
        assert_eq!(
            e.as_error().unwrap().message,
            "NaN values cannot be ordered"
        );
        let e = compare(&Value::Int(1), &Value::string("a")).unwrap_err();
        assert_eq!(e.as_error().unwrap().message, "no such overload");
    }

    #[test]
    fn map_lookup_is_numeric() {
        let Value::Map(m) = Value::map(vec![
            (Value::Int(1), Value::string("a")),
            (Value::string("k"), Value::Int(2)),
        ]) else {
            panic!()
        };
        assert!(matches!(m.find(&Value::Uint(1)), Ok(Some(_))));
        assert!(matches!(m.find(&Value::Double(1.0)), Ok(Some(_))));
        assert!(matches!(m.find(&Value::Double(1.5)), Ok(None)));
        assert_eq!(
            m.get(&Value::string("x")).as_error().unwrap().message,
            "no such key: x"
        );
    }

    #[test]
    fn set_semantics() {
        let s = List::Owned(Rc::new(OwnedList {
            items: vec![Value::Int(1), Value::Int(2)],
            kind: ListKind::Set,
        }));
        let r = list_add(&s, &Value::list(vec![Value::Int(2), Value::Int(3)]));
        let Value::List(r) = r else { panic!() };
        assert_eq!(r.len(), 3);
        assert_eq!(
            b(equal(
                &Value::List(s),
                &Value::list(vec![Value::Int(2), Value::Int(1)])
            )),
            Some(true)
        );
    }

    #[test]
    fn sizes_in_code_points() {
        assert_eq!(Value::string("é👑").size(), Some(2));
        assert_eq!(Value::bytes("é".as_bytes()).size(), Some(2));
        assert_eq!(Value::Int(3).actual_size(), 1);
        assert_eq!(Value::optional_of(Value::string("abc")).actual_size(), 3);
    }
}
