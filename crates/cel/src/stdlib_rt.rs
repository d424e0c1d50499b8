//! The standard library at runtime (cel-go's `common/stdlib` and `common/types`): operators with
//! overflow checks, cross-type numeric comparisons, conversions with Go's parsing and formatting
//! rules, string functions, `size`, `in`, timestamp and duration accessors, and the dispatcher
//! that routes every call to its implementation ([`call`]), the extensions
//! ([`crate::ext_rt`]) and the Kubernetes libraries ([`crate::k8s_rt`]).
//!
//! Each implementation reports the overload id it ran (cel-go's ids: `add_int64`,
//! `size_string`, ...), which the cost tracker uses when the AST was not type-checked.

use std::cmp::Ordering;
use std::rc::Rc;

use crate::rt_time;
use crate::value::{compare, format_v, list_add, list_contains, Duration, Map, Timestamp, Value};
use crd_studio_gostd::regexp::GoRegexp;

/// A planned call: the function, the overload the checker resolved (if exactly one), and a
/// precompiled constant regular expression.
#[derive(Debug, Clone)]
pub struct CallInfo {
    /// The function name (namespaced functions fully qualified: `optional.of`).
    pub function: String,
    /// The single overload id the checker resolved.
    pub overload: Option<String>,
    /// Whether the AST was type-checked (then a missing overload id means several applied).
    pub checked: bool,
    /// The compiled constant pattern of `matches`, `find` or `findAll`.
    pub regex: Option<Rc<GoRegexp>>,
    /// The last pattern this call compiled at run time, by text: a pattern taken from the
    /// object (`l.all(x, x.matches(self.p))`) is compiled once, not once per element.
    pub last_regex: std::cell::RefCell<Option<(String, Rc<GoRegexp>)>>,
}

impl CallInfo {
    /// The call's regular expression: the constant one, or `pattern` compiled (once per
    /// distinct text in a row), or Go's compile error text.
    pub fn regex_for(&self, pattern: &str) -> Result<Rc<GoRegexp>, String> {
        if let Some(r) = &self.regex {
            return Ok(Rc::clone(r));
        }
        if let Ok(last) = self.last_regex.try_borrow() {
            if let Some((text, re)) = last.as_ref() {
                if text == pattern {
                    return Ok(Rc::clone(re));
                }
            }
        }
        let re = Rc::new(crd_studio_gostd::regexp::compile(pattern)?);
        if let Ok(mut last) = self.last_regex.try_borrow_mut() {
            *last = Some((pattern.to_owned(), Rc::clone(&re)));
        }
        Ok(re)
    }
}

impl CallInfo {
    /// A call of `function`.
    pub fn new(function: String, overload: Option<String>, checked: bool) -> Self {
        CallInfo {
            function,
            overload,
            checked,
            regex: None,
            last_regex: std::cell::RefCell::new(None),
        }
    }

    /// Functions that receive error arguments (`@not_strictly_false`).
    pub fn non_strict(&self) -> bool {
        matches!(
            self.function.as_str(),
            "@not_strictly_false" | "__not_strictly_false__"
        )
    }
}

/// Global functions with dotted names (for resolving `ns.fn(x)` written as a receiver call).
pub fn is_global_function(name: &str) -> bool {
    matches!(
        name,
        "optional.of"
            | "optional.ofNonZeroValue"
            | "optional.none"
            | "optional.unwrap"
            | "strings.quote"
            | "sets.contains"
            | "sets.equivalent"
            | "sets.intersects"
            | "lists.range"
            | "ip.isCanonical"
            | "format.named"
            | "cel.@mapInsert"
    ) || crate::k8s_format::is_format_function(name)
}

type Out<'a> = (Value<'a>, Option<&'static str>);

fn err<'a>(m: impl Into<String>) -> Value<'a> {
    Value::error(m)
}

/// cel-go's `no such overload: f(type, type)` for functions dispatched over several overloads.
pub fn no_overload<'a>(function: &str, args: &[Value<'a>]) -> Value<'a> {
    if let Some(e) = args.iter().find(|a| a.is_error()) {
        return e.clone();
    }
    let types: Vec<&str> = args.iter().map(|a| a.type_name()).collect();
    err(format!(
        "no such overload: {function}({})",
        types.join(", ")
    ))
}

/// [`call`], with the time-zone database named zones resolve in; `needed` is set when a
/// named zone was asked for and no database was given.
pub fn call_with_zones<'a>(
    info: &CallInfo,
    args: &[Value<'a>],
    zones: Option<&crate::tz::TimeZoneDb>,
    needed: &std::cell::Cell<bool>,
) -> Out<'a> {
    call_builtin(Builtin::of(&info.function), info, args, zones, needed)
}

/// Calls a function on evaluated arguments (receiver first), returning the result and the
/// overload id that ran. Named time zones need [`call_with_zones`].
pub fn call<'a>(info: &CallInfo, args: &[Value<'a>]) -> Out<'a> {
    let f = info.function.as_str();
    match Builtin::of(f) {
        // Without a database, even the two-argument form resolves no named zone.
        Builtin::Time => time_accessor(f, args, None, &std::cell::Cell::new(false)),
        b => call_builtin(b, info, args, None, &std::cell::Cell::new(false)),
    }
}

/// Which implementation a function name dispatches to, chosen once from the name (the
/// interpreter keeps it in the planned call, so evaluation compares no names to find it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// `_+_`.
    Add,
    /// `_-_`.
    Sub,
    /// `_*_`, `_/_`, `_%_`.
    Arith,
    /// `-_`.
    Negate,
    /// `!_`.
    Not,
    /// `@not_strictly_false`.
    NotStrictlyFalse,
    /// `_<_`, `_<=_`, `_>_`, `_>=_`: the results of less and equal that make it true.
    Relation(std::cmp::Ordering, bool),
    /// `_==_`, `_!=_`.
    Equality,
    /// `@in`.
    In,
    /// `size`.
    Size,
    /// `type`.
    Type,
    /// `dyn`.
    Dyn,
    /// The type conversions (`int`, `string`, ...).
    Convert,
    /// `contains`, `startsWith`, `endsWith`.
    StringTest,
    /// `matches`.
    Matches,
    /// The timestamp accessors (`getHours`, ...).
    Time,
    /// The extension and Kubernetes libraries.
    Other,
}

impl Builtin {
    /// The implementation of function `f`.
    pub fn of(f: &str) -> Builtin {
        match f {
            "_+_" => Builtin::Add,
            "_-_" => Builtin::Sub,
            "_*_" | "_/_" | "_%_" => Builtin::Arith,
            "-_" => Builtin::Negate,
            "!_" => Builtin::Not,
            "@not_strictly_false" | "__not_strictly_false__" => Builtin::NotStrictlyFalse,
            "_<_" => Builtin::Relation(Ordering::Less, false),
            "_<=_" => Builtin::Relation(Ordering::Less, true),
            "_>_" => Builtin::Relation(Ordering::Greater, false),
            "_>=_" => Builtin::Relation(Ordering::Greater, true),
            "_==_" | "_!=_" => Builtin::Equality,
            "@in" | "_in_" | "in" => Builtin::In,
            "size" => Builtin::Size,
            "type" => Builtin::Type,
            "dyn" => Builtin::Dyn,
            "int" | "uint" | "double" | "string" | "bytes" | "bool" | "duration" | "timestamp" => {
                Builtin::Convert
            }
            "contains" | "startsWith" | "endsWith" => Builtin::StringTest,
            "matches" => Builtin::Matches,
            "getFullYear" | "getMonth" | "getDayOfYear" | "getDayOfMonth" | "getDate"
            | "getDayOfWeek" | "getHours" | "getMinutes" | "getSeconds" | "getMilliseconds" => {
                Builtin::Time
            }
            _ => Builtin::Other,
        }
    }
}

/// [`call_with_zones`] with the implementation already chosen (`b` is
/// [`Builtin::of`]`(&info.function)`).
pub fn call_builtin<'a>(
    b: Builtin,
    info: &CallInfo,
    args: &[Value<'a>],
    zones: Option<&crate::tz::TimeZoneDb>,
    needed: &std::cell::Cell<bool>,
) -> Out<'a> {
    let f = info.function.as_str();
    match b {
        Builtin::Add => match args {
            [Value::Int(x), Value::Int(y)] => (
                x.checked_add(*y).map_or_else(int_overflow, Value::Int),
                Some("add_int64"),
            ),
            _ => arith(f, args),
        },
        Builtin::Sub => match args {
            [Value::Int(x), Value::Int(y)] => (
                x.checked_sub(*y).map_or_else(int_overflow, Value::Int),
                Some("subtract_int64"),
            ),
            _ => arith(f, args),
        },
        Builtin::Arith => arith(f, args),
        Builtin::Negate => negate(args),
        Builtin::Not => match args {
            [Value::Bool(b)] => (Value::Bool(!b), Some("logical_not")),
            [v] => (Value::maybe_no_such_overload(v), None),
            _ => (no_overload(f, args), None),
        },
        Builtin::NotStrictlyFalse => match args {
            [Value::Bool(b)] => (Value::Bool(*b), Some("not_strictly_false")),
            _ => (Value::Bool(true), Some("not_strictly_false")),
        },
        Builtin::Relation(order, or_equal) => match args {
            // The common case, without building the overload id from type names.
            [Value::Int(x), Value::Int(y)] => {
                let o = x.cmp(y);
                let id = match (order, or_equal) {
                    (Ordering::Less, false) => "less_int64",
                    (Ordering::Less, true) => "less_equals_int64",
                    (_, false) => "greater_int64",
                    (_, true) => "greater_equals_int64",
                };
                (
                    Value::Bool(o == order || (or_equal && o == Ordering::Equal)),
                    Some(id),
                )
            }
            _ => relation(f, args),
        },
        Builtin::Equality => {
            let (Some(a), Some(b)) = (args.first(), args.get(1)) else {
                return (no_overload(f, args), None);
            };
            let eq = crate::value::equal(a, b);
            if f == "_==_" {
                (eq, Some("equals"))
            } else {
                (
                    Value::Bool(!matches!(eq, Value::Bool(true))),
                    Some("not_equals"),
                )
            }
        }
        Builtin::In => in_aggregate(args),
        Builtin::Size => size(args),
        Builtin::Type => match args {
            [v] => (v.type_of(), Some("type")),
            _ => (no_overload(f, args), None),
        },
        Builtin::Dyn => match args {
            [v] => (v.clone(), Some("to_dyn")),
            _ => (no_overload(f, args), None),
        },
        Builtin::Convert => convert(f, args),
        Builtin::StringTest => string_test(f, args),
        Builtin::Matches => matches(info, args),
        Builtin::Time => match args {
            [_, _] => time_accessor(f, args, zones, needed),
            _ => time_accessor(f, args, None, &std::cell::Cell::new(false)),
        },
        Builtin::Other => match crate::ext_rt::call(info, args) {
            Some(r) => r,
            None => match crate::k8s_rt::call(info, args) {
                Some(r) => r,
                None => (err(format!("no such overload: {f}")), None),
            },
        },
    }
}

fn int_overflow<'a>() -> Value<'a> {
    err("integer overflow")
}

fn uint_overflow<'a>() -> Value<'a> {
    err("unsigned integer overflow")
}

fn arith<'a>(f: &str, args: &[Value<'a>]) -> Out<'a> {
    let [a, b] = args else {
        return (no_overload(f, args), None);
    };
    use Value as V;
    match (f, a, b) {
        ("_+_", V::Int(x), V::Int(y)) => (
            x.checked_add(*y).map_or_else(int_overflow, V::Int),
            Some("add_int64"),
        ),
        ("_+_", V::Uint(x), V::Uint(y)) => (
            x.checked_add(*y).map_or_else(uint_overflow, V::Uint),
            Some("add_uint64"),
        ),
        ("_+_", V::Double(x), V::Double(y)) => (V::Double(x + y), Some("add_double")),
        ("_+_", V::String(x), V::String(y)) => {
            let mut s = String::with_capacity(x.as_str().len() + y.as_str().len());
            s.push_str(x.as_str());
            s.push_str(y.as_str());
            (V::string(s), Some("add_string"))
        }
        ("_+_", V::Bytes(x), V::Bytes(y)) => {
            let mut v = x.to_vec();
            v.extend_from_slice(y);
            (V::Bytes(Rc::from(v)), Some("add_bytes"))
        }
        ("_+_", V::List(l), _) => (list_add(l, b), Some("add_list")),
        ("_+_", V::Duration(x), V::Duration(y)) => (
            x.0.checked_add(y.0)
                .map_or_else(int_overflow, |d| V::Duration(Duration(d))),
            Some("add_duration_duration"),
        ),
        ("_+_", V::Duration(d), V::Timestamp(t)) => {
            (ts_add(t, d.0), Some("add_duration_timestamp"))
        }
        ("_+_", V::Timestamp(t), V::Duration(d)) => {
            (ts_add(t, d.0), Some("add_timestamp_duration"))
        }
        ("_-_", V::Int(x), V::Int(y)) => (
            x.checked_sub(*y).map_or_else(int_overflow, V::Int),
            Some("subtract_int64"),
        ),
        ("_-_", V::Uint(x), V::Uint(y)) => (
            x.checked_sub(*y).map_or_else(uint_overflow, V::Uint),
            Some("subtract_uint64"),
        ),
        ("_-_", V::Double(x), V::Double(y)) => (V::Double(x - y), Some("subtract_double")),
        ("_-_", V::Duration(x), V::Duration(y)) => (
            x.0.checked_sub(y.0)
                .map_or_else(int_overflow, |d| V::Duration(Duration(d))),
            Some("subtract_duration_duration"),
        ),
        ("_-_", V::Timestamp(t), V::Duration(d)) => (
            match d.0.checked_neg() {
                Some(n) => ts_add(t, n),
                None => int_overflow(),
            },
            Some("subtract_timestamp_duration"),
        ),
        ("_-_", V::Timestamp(x), V::Timestamp(y)) => (
            match rt_time::sub_timestamps(x, y) {
                Ok(d) => V::Duration(Duration(d)),
                Err(e) => err(e),
            },
            Some("subtract_timestamp_timestamp"),
        ),
        ("_*_", V::Int(x), V::Int(y)) => (
            x.checked_mul(*y).map_or_else(int_overflow, V::Int),
            Some("multiply_int64"),
        ),
        ("_*_", V::Uint(x), V::Uint(y)) => (
            x.checked_mul(*y).map_or_else(uint_overflow, V::Uint),
            Some("multiply_uint64"),
        ),
        ("_*_", V::Double(x), V::Double(y)) => (V::Double(x * y), Some("multiply_double")),
        ("_/_", V::Int(x), V::Int(y)) => (
            if *y == 0 {
                err("division by zero")
            } else {
                x.checked_div(*y).map_or_else(int_overflow, V::Int)
            },
            Some("divide_int64"),
        ),
        ("_/_", V::Uint(x), V::Uint(y)) => (
            if *y == 0 {
                err("division by zero")
            } else {
                V::Uint(x / y)
            },
            Some("divide_uint64"),
        ),
        ("_/_", V::Double(x), V::Double(y)) => (V::Double(x / y), Some("divide_double")),
        ("_%_", V::Int(x), V::Int(y)) => (
            if *y == 0 {
                err("modulus by zero")
            } else {
                x.checked_rem(*y).map_or_else(int_overflow, V::Int)
            },
            Some("modulo_int64"),
        ),
        ("_%_", V::Uint(x), V::Uint(y)) => (
            if *y == 0 {
                err("modulus by zero")
            } else {
                V::Uint(x % y)
            },
            Some("modulo_uint64"),
        ),
        _ => {
            // The singleton bindings check the left operand's trait, then the method checks the
            // right operand's type.
            let has_trait = match f {
                "_+_" => matches!(
                    a,
                    V::Int(_)
                        | V::Uint(_)
                        | V::Double(_)
                        | V::String(_)
                        | V::Bytes(_)
                        | V::List(_)
                        | V::Timestamp(_)
                        | V::Duration(_)
                ),
                "_-_" => matches!(
                    a,
                    V::Int(_) | V::Uint(_) | V::Double(_) | V::Timestamp(_) | V::Duration(_)
                ),
                "_*_" | "_/_" => matches!(a, V::Int(_) | V::Uint(_) | V::Double(_)),
                _ => matches!(a, V::Int(_) | V::Uint(_)),
            };
            if has_trait {
                (Value::maybe_no_such_overload(b), None)
            } else if let Some(r) = crate::k8s_rt::operator(f, a, b) {
                r
            } else {
                (err(format!("no such overload: {f}")), None)
            }
        }
    }
}

fn ts_add<'a>(t: &Timestamp, d: i64) -> Value<'a> {
    match rt_time::add_duration(t, d) {
        Ok(t) => Value::Timestamp(t),
        Err(e) => err(e),
    }
}

fn negate<'a>(args: &[Value<'a>]) -> Out<'a> {
    match args {
        [Value::Int(i)] => (
            i.checked_neg().map_or_else(int_overflow, Value::Int),
            Some("negate_int64"),
        ),
        [Value::Double(d)] => (Value::Double(-d), Some("negate_double")),
        [Value::Duration(d)] => (
            d.0.checked_neg()
                .map_or_else(int_overflow, |x| Value::Duration(Duration(x))),
            None,
        ),
        [v @ Value::Bool(_)] => (Value::maybe_no_such_overload(v), None),
        _ => (err("no such overload: -_"), None),
    }
}

fn type_suffix(v: &Value<'_>) -> &'static str {
    match v {
        Value::Bool(_) => "bool",
        Value::Int(_) => "int64",
        Value::Uint(_) => "uint64",
        Value::Double(_) => "double",
        Value::String(_) => "string",
        Value::Bytes(_) => "bytes",
        Value::Timestamp(_) => "timestamp",
        Value::Duration(_) => "duration",
        _ => "",
    }
}

/// The overload id of a relation, e.g. `less_int64_double`.
fn relation_id(f: &str, a: &Value<'_>, b: &Value<'_>) -> Option<&'static str> {
    let prefix = match f {
        "_<_" => "less",
        "_<=_" => "less_equals",
        "_>_" => "greater",
        _ => "greater_equals",
    };
    let (x, y) = (type_suffix(a), type_suffix(b));
    if x.is_empty() || y.is_empty() {
        return None;
    }
    let numeric = |s: &str| matches!(s, "int64" | "uint64" | "double");
    let second = if x == y {
        ""
    } else if numeric(x) && numeric(y) {
        y
    } else {
        return None;
    };
    static_id(prefix, x, second)
}

/// Interns the overload ids of relations, `{prefix}_{x}` or `{prefix}_{x}_{y}` when `y` is
/// not empty (a closed set), without building the text.
fn static_id(prefix: &str, x: &str, y: &str) -> Option<&'static str> {
    let is = |id: &str| -> bool {
        let Some(rest) = id.strip_prefix(prefix).and_then(|r| r.strip_prefix('_')) else {
            return false;
        };
        let Some(rest) = rest.strip_prefix(x) else {
            return false;
        };
        if y.is_empty() {
            return rest.is_empty();
        }
        rest.strip_prefix('_') == Some(y)
    };
    const IDS: &[&str] = &[
        "less_bool",
        "less_int64",
        "less_int64_double",
        "less_int64_uint64",
        "less_uint64",
        "less_uint64_double",
        "less_uint64_int64",
        "less_double",
        "less_double_int64",
        "less_double_uint64",
        "less_string",
        "less_bytes",
        "less_timestamp",
        "less_duration",
        "less_equals_bool",
        "less_equals_int64",
        "less_equals_int64_double",
        "less_equals_int64_uint64",
        "less_equals_uint64",
        "less_equals_uint64_double",
        "less_equals_uint64_int64",
        "less_equals_double",
        "less_equals_double_int64",
        "less_equals_double_uint64",
        "less_equals_string",
        "less_equals_bytes",
        "less_equals_timestamp",
        "less_equals_duration",
        "greater_bool",
        "greater_int64",
        "greater_int64_double",
        "greater_int64_uint64",
        "greater_uint64",
        "greater_uint64_double",
        "greater_uint64_int64",
        "greater_double",
        "greater_double_int64",
        "greater_double_uint64",
        "greater_string",
        "greater_bytes",
        "greater_timestamp",
        "greater_duration",
        "greater_equals_bool",
        "greater_equals_int64",
        "greater_equals_int64_double",
        "greater_equals_int64_uint64",
        "greater_equals_uint64",
        "greater_equals_uint64_double",
        "greater_equals_uint64_int64",
        "greater_equals_double",
        "greater_equals_double_int64",
        "greater_equals_double_uint64",
        "greater_equals_string",
        "greater_equals_bytes",
        "greater_equals_timestamp",
        "greater_equals_duration",
    ];
    IDS.iter().copied().find(|id| is(id))
}

fn relation<'a>(f: &str, args: &[Value<'a>]) -> Out<'a> {
    let [a, b] = args else {
        return (no_overload(f, args), None);
    };
    let comparable = matches!(
        a,
        Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::String(_)
            | Value::Bytes(_)
            | Value::Bool(_)
            | Value::Timestamp(_)
            | Value::Duration(_)
    );
    if !comparable {
        return (err(format!("no such overload: {f}")), None);
    }
    let id = relation_id(f, a, b);
    let r = match compare(a, b) {
        Ok(o) => Value::Bool(match f {
            "_<_" => o == Ordering::Less,
            "_<=_" => o != Ordering::Greater,
            "_>_" => o == Ordering::Greater,
            _ => o != Ordering::Less,
        }),
        Err(e) => e,
    };
    (r, id)
}

fn in_aggregate<'a>(args: &[Value<'a>]) -> Out<'a> {
    let [x, c] = args else {
        return (no_overload("@in", args), None);
    };
    match c {
        Value::List(l) => (list_contains(l, x), Some("in_list")),
        Value::Map(m) => (
            match m.find(x) {
                Ok(v) => Value::Bool(v.is_some()),
                Err(e) => e,
            },
            Some("in_map"),
        ),
        _ => (Value::maybe_no_such_overload(c), None),
    }
}

fn size<'a>(args: &[Value<'a>]) -> Out<'a> {
    match args {
        [v] => {
            let id = match v {
                Value::String(_) => "size_string",
                Value::Bytes(_) => "size_bytes",
                Value::List(_) => "size_list",
                Value::Map(_) => "size_map",
                _ => return (err("no such overload: size"), None),
            };
            (Value::Int(v.size().unwrap_or(0)), Some(id))
        }
        _ => (no_overload("size", args), None),
    }
}

/// `double_to_int64` lossless check (cel-go's `doubleToInt64Lossless`).
pub fn double_to_int_lossless(d: f64) -> Option<i64> {
    let i = double_to_int_checked(d)?;
    (i as f64 == d).then_some(i)
}

/// cel-go's `doubleToUint64Lossless`.
pub fn double_to_uint_lossless(d: f64) -> Option<u64> {
    let u = double_to_uint_checked(d)?;
    (u as f64 == d).then_some(u)
}

fn double_to_int_checked(d: f64) -> Option<i64> {
    if d.is_nan() || d.is_infinite() || d <= i64::MIN as f64 || d >= i64::MAX as f64 {
        return None;
    }
    Some(d as i64)
}

fn double_to_uint_checked(d: f64) -> Option<u64> {
    if d.is_nan() || !(0.0..18_446_744_073_709_551_616.0).contains(&d) {
        return None;
    }
    Some(d as u64)
}

fn conversion_error<'a>(from: &str, to: &str) -> Value<'a> {
    err(format!("type conversion error from '{from}' to '{to}'"))
}

fn convert<'a>(f: &str, args: &[Value<'a>]) -> Out<'a> {
    use crate::value::type_names as t;
    let [v] = args else {
        return (no_overload(f, args), None);
    };
    match (f, v) {
        ("int", Value::Int(_)) => (v.clone(), Some("int64_to_int64")),
        ("int", Value::Uint(u)) => (
            i64::try_from(*u).map_or_else(|_| int_overflow(), Value::Int),
            Some("uint64_to_int64"),
        ),
        ("int", Value::Double(d)) => (
            double_to_int_checked(*d).map_or_else(int_overflow, Value::Int),
            Some("double_to_int64"),
        ),
        ("int", Value::String(s)) => (
            s.as_str()
                .parse::<i64>()
                .map_or_else(|_| conversion_error(t::STRING, t::INT), Value::Int),
            Some("string_to_int64"),
        ),
        ("int", Value::Timestamp(ts)) => (Value::Int(ts.secs), Some("timestamp_to_int64")),
        ("int", Value::Duration(d)) => (Value::Int(d.0), Some("duration_to_int64")),
        ("uint", Value::Uint(_)) => (v.clone(), Some("uint64_to_uint64")),
        ("uint", Value::Int(i)) => (
            u64::try_from(*i).map_or_else(|_| uint_overflow(), Value::Uint),
            Some("int64_to_uint64"),
        ),
        ("uint", Value::Double(d)) => (
            double_to_uint_checked(*d).map_or_else(uint_overflow, Value::Uint),
            Some("double_to_uint64"),
        ),
        ("uint", Value::String(s)) => (
            if s.as_str().starts_with('+') {
                conversion_error(t::STRING, t::UINT)
            } else {
                s.as_str()
                    .parse::<u64>()
                    .map_or_else(|_| conversion_error(t::STRING, t::UINT), Value::Uint)
            },
            Some("string_to_uint64"),
        ),
        ("double", Value::Double(_)) => (v.clone(), Some("double_to_double")),
        ("double", Value::Int(i)) => (Value::Double(*i as f64), Some("int64_to_double")),
        ("double", Value::Uint(u)) => (Value::Double(*u as f64), Some("uint64_to_double")),
        ("double", Value::String(s)) => (
            crd_studio_gostd::strconv::parse_float(s.as_str())
                .map_or_else(|| conversion_error(t::STRING, t::DOUBLE), Value::Double),
            Some("string_to_double"),
        ),
        ("string", Value::String(_)) => (v.clone(), Some("string_to_string")),
        ("string", Value::Bool(b)) => (Value::string(b.to_string()), Some("bool_to_string")),
        ("string", Value::Int(i)) => (Value::string(i.to_string()), Some("int64_to_string")),
        ("string", Value::Uint(u)) => (Value::string(u.to_string()), Some("uint64_to_string")),
        ("string", Value::Double(d)) => (
            Value::string(crd_studio_gostd::strconv::format_float_g(*d)),
            Some("double_to_string"),
        ),
        ("string", Value::Bytes(b)) => (
            match std::str::from_utf8(b) {
                Ok(s) => Value::string(s),
                Err(_) => err("invalid UTF-8 in bytes, cannot convert to string"),
            },
            Some("bytes_to_string"),
        ),
        ("string", Value::Timestamp(ts)) => (
            Value::string(crd_studio_gostd::time::format_rfc3339_nano(ts)),
            Some("timestamp_to_string"),
        ),
        ("string", Value::Duration(d)) => (
            Value::string(rt_time::duration_to_cel_string(d.0)),
            Some("duration_to_string"),
        ),
        ("string", Value::Opaque(_)) => match crate::k8s_rt::to_string(v) {
            Some(r) => r,
            None => (no_overload(f, args), None),
        },
        ("bytes", Value::Bytes(_)) => (v.clone(), Some("bytes_to_bytes")),
        ("bytes", Value::String(s)) => {
            (Value::bytes(s.as_str().as_bytes()), Some("string_to_bytes"))
        }
        ("bool", Value::Bool(_)) => (v.clone(), Some("bool_to_bool")),
        ("bool", Value::String(s)) => (
            crd_studio_gostd::strconv::parse_bool(s.as_str())
                .map_or_else(|| conversion_error(t::STRING, t::BOOL), Value::Bool),
            Some("string_to_bool"),
        ),
        ("duration", Value::Duration(_)) => (v.clone(), Some("duration_to_duration")),
        ("duration", Value::String(s)) => (
            match crd_studio_gostd::time::parse_duration(s.as_str()) {
                Ok(d) => Value::Duration(Duration(d)),
                Err(_) => conversion_error(t::STRING, t::DURATION),
            },
            Some("string_to_duration"),
        ),
        ("timestamp", Value::Timestamp(_)) => (v.clone(), Some("timestamp_to_timestamp")),
        ("timestamp", Value::Int(i)) => (
            if (rt_time::GO_ZERO_TIME_SECS..=rt_time::MAX_UNIX_SECS).contains(i) {
                Value::Timestamp(Timestamp {
                    secs: *i,
                    nanos: 0,
                    offset: 0,
                })
            } else {
                err("timestamp overflow")
            },
            Some("int64_to_timestamp"),
        ),
        ("timestamp", Value::String(s)) => (
            match crd_studio_gostd::time::parse_rfc3339(s.as_str()) {
                Some(ts) if rt_time::in_range(&ts) => Value::Timestamp(ts),
                Some(_) => err("timestamp overflow"),
                None => conversion_error(t::STRING, t::TIMESTAMP),
            },
            Some("string_to_timestamp"),
        ),
        _ => (no_overload(f, args), None),
    }
}

fn string_test<'a>(f: &str, args: &[Value<'a>]) -> Out<'a> {
    let [a, b] = args else {
        return (no_overload(f, args), None);
    };
    let (Value::String(s), Value::String(x)) = (a, b) else {
        let bad = if matches!(a, Value::String(_)) { b } else { a };
        return (Value::maybe_no_such_overload(bad), None);
    };
    let (s, x) = (s.as_str(), x.as_str());
    match f {
        "contains" => (Value::Bool(s.contains(x)), Some("contains_string")),
        "startsWith" => (Value::Bool(s.starts_with(x)), Some("starts_with_string")),
        _ => (Value::Bool(s.ends_with(x)), Some("ends_with_string")),
    }
}

fn matches<'a>(info: &CallInfo, args: &[Value<'a>]) -> Out<'a> {
    let [a, b] = args else {
        return (no_overload("matches", args), None);
    };
    let Value::String(s) = a else {
        return (err("no such overload: matches"), None);
    };
    let Value::String(p) = b else {
        return (Value::maybe_no_such_overload(b), None);
    };
    let id = Some("matches_string");
    let re = match info.regex_for(p.as_str()) {
        Ok(r) => r,
        Err(e) => return (err(e), id),
    };
    match re.is_match(s.as_str()) {
        Some(m) => (Value::Bool(m), id),
        None => (err("regular expression too complex to evaluate"), id),
    }
}

fn time_accessor<'a>(
    f: &str,
    args: &[Value<'a>],
    zones: Option<&crate::tz::TimeZoneDb>,
    needed: &std::cell::Cell<bool>,
) -> Out<'a> {
    let (v, tz) = match args {
        [v] => (v, None),
        [v, tz] => (v, Some(tz)),
        _ => return (no_overload(f, args), None),
    };
    if let Value::Duration(d) = v {
        if tz.is_some() {
            return (no_overload(f, args), None);
        }
        let n = d.0;
        // Go's `Hours()`, `Minutes()` and `Seconds()` are float64 (whole units plus the
        // remainder's fraction), truncated by cel-go's `Int(...)`: near a unit boundary the sum
        // rounds up. `Milliseconds()` is integer division.
        let units = |unit: i64| crd_studio_gostd::time::duration_units(n, unit) as i64;
        let (r, id) = match f {
            "getHours" => (units(3_600_000_000_000), "duration_to_hours"),
            "getMinutes" => (units(60_000_000_000), "duration_to_minutes"),
            "getSeconds" => (units(1_000_000_000), "duration_to_seconds"),
            "getMilliseconds" => (n / 1_000_000, "duration_to_milliseconds"),
            _ => return (no_overload(f, args), None),
        };
        return (Value::Int(r), Some(id));
    }
    let Value::Timestamp(t) = v else {
        return (no_overload(f, args), None);
    };
    let offset = match tz {
        None => 0,
        Some(Value::String(z)) => match crate::tz::resolve(z.as_str(), zones) {
            Ok(zone) => zone.offset_at(t.secs),
            Err(e) => {
                if matches!(e, crate::tz::ZoneError::NeedsDatabase(_)) {
                    needed.set(true);
                }
                return (err(e.message()), None);
            }
        },
        Some(other) => return (Value::maybe_no_such_overload(other), None),
    };
    let c = crd_studio_gostd::time::civil(t, offset);
    let with_tz = tz.is_some();
    let (r, id, id_tz) = match f {
        "getFullYear" => (c.year, "timestamp_to_year", "timestamp_to_year_with_tz"),
        "getMonth" => (
            i64::from(c.month) - 1,
            "timestamp_to_month",
            "timestamp_to_month_with_tz",
        ),
        "getDayOfYear" => (
            i64::from(c.yday) - 1,
            "timestamp_to_day_of_year",
            "timestamp_to_day_of_year_with_tz",
        ),
        "getDayOfMonth" => (
            i64::from(c.day) - 1,
            "timestamp_to_day_of_month",
            "timestamp_to_day_of_month_with_tz",
        ),
        "getDate" => (
            i64::from(c.day),
            "timestamp_to_day_of_month_1_based",
            "timestamp_to_day_of_month_1_based_with_tz",
        ),
        "getDayOfWeek" => (
            i64::from(c.weekday),
            "timestamp_to_day_of_week",
            "timestamp_to_day_of_week_with_tz",
        ),
        "getHours" => (
            i64::from(c.hour),
            "timestamp_to_hours",
            "timestamp_to_hours_with_tz",
        ),
        "getMinutes" => (
            i64::from(c.minute),
            "timestamp_to_minutes",
            "timestamp_to_minutes_with_tz",
        ),
        "getSeconds" => (
            i64::from(c.second),
            "timestamp_to_seconds",
            "timestamp_to_seconds_tz",
        ),
        _ => (
            i64::from(c.nanos / 1_000_000),
            "timestamp_to_milliseconds",
            "timestamp_to_milliseconds_with_tz",
        ),
    };
    (Value::Int(r), Some(if with_tz { id_tz } else { id }))
}

/// The checker's literal validators backed by this runtime (cel-go's AST validators evaluate
/// `duration('...')` and `timestamp(...)` and compile `matches` patterns): plug into
/// [`crate::checker::EnvBuilder::literal_checks`].
pub fn literal_checks() -> crate::checker::LiteralChecks {
    crate::checker::LiteralChecks {
        duration: Some(|l| match l {
            crate::Literal::String(s) => crd_studio_gostd::time::parse_duration(s).is_ok(),
            _ => true,
        }),
        timestamp: Some(|l| match l {
            crate::Literal::String(s) => {
                crd_studio_gostd::time::parse_rfc3339(s).is_some_and(|t| rt_time::in_range(&t))
            }
            crate::Literal::Int(i) => {
                (rt_time::GO_ZERO_TIME_SECS..=rt_time::MAX_UNIX_SECS).contains(i)
            }
            _ => true,
        }),
        regex: Some(|p| crd_studio_gostd::regexp::check(p).is_ok()),
    }
}

/// Reads a map's entries as (key, value) pairs (used by libraries).
pub fn map_entries<'a>(m: &Map<'a>) -> Vec<(Value<'a>, Value<'a>)> {
    m.keys()
        .into_iter()
        .map(|k| {
            let v = m.get(&k);
            (k, v)
        })
        .collect()
}

/// Formats a value for messages.
pub fn describe(v: &Value<'_>) -> String {
    format_v(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c<'a>(f: &str, args: &[Value<'a>]) -> Value<'a> {
        call(&CallInfo::new(f.to_string(), None, false), args).0
    }

    fn msg(v: Value<'_>) -> String {
        v.as_error().map(|e| e.message.clone()).unwrap_or_default()
    }

    #[test]
    fn arithmetic_errors() {
        let cases: Vec<(&str, Vec<Value>, &str)> = vec![
            (
                "_+_",
                vec![Value::Int(i64::MAX), Value::Int(1)],
                "integer overflow",
            ),
            (
                "_-_",
                vec![Value::Uint(0), Value::Uint(1)],
                "unsigned integer overflow",
            ),
            (
                "_/_",
                vec![Value::Int(1), Value::Int(0)],
                "division by zero",
            ),
            ("_%_", vec![Value::Int(1), Value::Int(0)], "modulus by zero"),
            (
                "_/_",
                vec![Value::Int(i64::MIN), Value::Int(-1)],
                "integer overflow",
            ),
            ("-_", vec![Value::Int(i64::MIN)], "integer overflow"),
            (
                "_+_",
                vec![Value::Int(1), Value::string("a")],
                "no such overload",
            ),
            (
                "_+_",
                vec![Value::Bool(true), Value::Bool(true)],
                "no such overload: _+_",
            ),
            (
                "_%_",
                vec![Value::Double(1.0), Value::Double(1.0)],
                "no such overload: _%_",
            ),
        ];
        for (f, args, want) in cases {
            assert_eq!(msg(c(f, &args)), want, "{f} {args:?}");
        }
    }

    #[test]
    fn conversions() {
        let cases: Vec<(&str, Value, &str)> = vec![
            ("string", Value::Double(1.5), "1.5"),
            ("string", Value::Double(1e21), "1e+21"),
            ("string", Value::Double(123456.0), "123456"),
            ("string", Value::Double(1234567.0), "1.234567e+06"),
            ("string", Value::Double(0.0001), "0.0001"),
            ("string", Value::Double(0.00001), "1e-05"),
            ("string", Value::Int(-3), "-3"),
            ("string", Value::Duration(Duration(1_500_000_000)), "1.5s"),
        ];
        for (f, v, want) in cases {
            assert_eq!(
                c(f, std::slice::from_ref(&v)).as_str(),
                Some(want),
                "{f}({v:?})"
            );
        }
        assert_eq!(msg(c("int", &[Value::Double(1e19)])), "integer overflow");
        assert_eq!(
            msg(c("uint", &[Value::Int(-1)])),
            "unsigned integer overflow"
        );
        assert_eq!(
            msg(c("int", &[Value::string("x")])),
            "type conversion error from 'string' to 'int'"
        );
        assert_eq!(
            msg(c("int", &[Value::Bool(true)])),
            "no such overload: int(bool)"
        );
        assert!(matches!(
            c("timestamp", &[Value::string("2021-01-01T00:00:00Z")]),
            Value::Timestamp(_)
        ));
        assert_eq!(
            msg(c("duration", &[Value::string("1d")])),
            "type conversion error from 'string' to 'google.protobuf.Duration'"
        );
    }

    #[test]
    fn comparisons_and_strings() {
        assert_eq!(
            c("_<_", &[Value::Int(1), Value::Double(1.5)]).as_bool(),
            Some(true)
        );
        assert_eq!(
            c("_>=_", &[Value::Uint(1), Value::Int(-1)]).as_bool(),
            Some(true)
        );
        assert_eq!(
            c("contains", &[Value::string("abc"), Value::string("b")]).as_bool(),
            Some(true)
        );
        assert_eq!(
            c("matches", &[Value::string("abc"), Value::string("^a.c$")]).as_bool(),
            Some(true)
        );
        assert_eq!(c("size", &[Value::string("añb")]).as_int(), Some(3));
    }

    #[test]
    fn accessors() {
        let t = crd_studio_gostd::time::parse_rfc3339("2024-03-01T23:30:00Z").unwrap();
        let ts = Value::Timestamp(t);
        assert_eq!(c("getDate", std::slice::from_ref(&ts)).as_int(), Some(1));
        assert_eq!(
            c("getDate", &[ts.clone(), Value::string("+01:00")]).as_int(),
            Some(2)
        );
        assert_eq!(c("getMonth", std::slice::from_ref(&ts)).as_int(), Some(2));
        assert_eq!(c("getDayOfWeek", &[ts]).as_int(), Some(5));
        assert_eq!(
            c("getHours", &[Value::Duration(Duration(7_200_000_000_000))]).as_int(),
            Some(2)
        );
    }
}
