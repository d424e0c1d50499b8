//! cel-go's extension libraries as Kubernetes enables them, at runtime: strings (version 2:
//! `charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`, `replace`, `split`,
//! `substring`, `trim`, `join`, `format`, `strings.quote`), lists (version 3: `slice`,
//! `flatten`, `distinct`, `reverse`, `sort`, `@sortByAssociatedKeys`, `lists.range`), sets
//! (`sets.contains`, `sets.equivalent`, `sets.intersects`), the optional library
//! (`optional.of`, `optional.ofNonZeroValue`, `optional.none`, `optional.unwrap`, `value`,
//! `hasValue`, `first`, `last`, `unwrapOpt`), and the two-variable comprehensions' helper
//! `cel.@mapInsert`.

use std::cmp::Ordering;
use std::rc::Rc;

use crate::stdlib_rt::{no_overload, CallInfo};
use crate::value::{
    compare, equal, format_v, list_contains, value_equal, List, Map, OwnedMap, Value,
};

type Out<'a> = (Value<'a>, Option<&'static str>);

fn err<'a>(m: impl Into<String>) -> Value<'a> {
    Value::error(m)
}

/// Runs an extension function, or `None` when the name is not one of them.
pub fn call<'a>(info: &CallInfo, args: &[Value<'a>]) -> Option<Out<'a>> {
    let f = info.function.as_str();
    Some(match f {
        "charAt" | "lowerAscii" | "upperAscii" | "replace" | "split" | "substring" | "trim"
        | "strings.quote" | "format" => strings(f, args)?,
        "indexOf" | "lastIndexOf" => match args.first() {
            Some(Value::String(_)) => strings(f, args)?,
            _ => return None,
        },
        "join" => join(args),
        "slice"
        | "flatten"
        | "distinct"
        | "reverse"
        | "sort"
        | "@sortByAssociatedKeys"
        | "lists.range" => lists(f, args),
        "sets.contains" | "sets.equivalent" | "sets.intersects" => sets(f, args),
        "optional.of"
        | "optional.ofNonZeroValue"
        | "optional.none"
        | "optional.unwrap"
        | "value"
        | "hasValue"
        | "first"
        | "last"
        | "unwrapOpt" => optional(f, args)?,
        "cel.@mapInsert" => map_insert(args),
        _ => return None,
    })
}

fn runes(s: &str) -> Vec<char> {
    s.chars().collect()
}

fn strings<'a>(f: &str, args: &[Value<'a>]) -> Option<Out<'a>> {
    use Value as V;
    let s = match args.first() {
        Some(V::String(s)) => s.as_str().to_string(),
        _ => return Some((no_overload(f, args), None)),
    };
    let out = |r: Result<Value<'a>, String>| r.unwrap_or_else(err);
    Some(match (f, args.get(1..).unwrap_or(&[])) {
        ("charAt", [V::Int(i)]) => {
            let r = runes(&s);
            let v = if *i < 0 || *i as u64 > r.len() as u64 {
                err(format!("index out of range: {i}"))
            } else {
                V::string(
                    r.get(*i as usize)
                        .map(|c| c.to_string())
                        .unwrap_or_default(),
                )
            };
            (v, Some("string_char_at_int"))
        }
        ("indexOf", [V::String(sub)]) => (
            out(index_of(&s, sub.as_str(), 0).map(V::Int)),
            Some("string_index_of_string"),
        ),
        ("indexOf", [V::String(sub), V::Int(off)]) => (
            out(index_of(&s, sub.as_str(), *off).map(V::Int)),
            Some("string_index_of_string_int"),
        ),
        ("lastIndexOf", [V::String(sub)]) => {
            let n = s.chars().count() as i64;
            let r = if sub.as_str().is_empty() {
                Ok(n)
            } else if s.len() < sub.as_str().len() {
                Ok(-1)
            } else {
                last_index_of(&s, sub.as_str(), n - 1)
            };
            (out(r.map(V::Int)), Some("string_last_index_of_string"))
        }
        ("lastIndexOf", [V::String(sub), V::Int(off)]) => (
            out(last_index_of(&s, sub.as_str(), *off).map(V::Int)),
            Some("string_last_index_of_string_int"),
        ),
        ("lowerAscii", []) => (
            V::string(s.to_ascii_lowercase()),
            Some("string_lower_ascii"),
        ),
        ("upperAscii", []) => (
            V::string(s.to_ascii_uppercase()),
            Some("string_upper_ascii"),
        ),
        ("replace", [V::String(old), V::String(new)]) => (
            V::string(go_replace(&s, old.as_str(), new.as_str(), -1)),
            Some("string_replace_string_string"),
        ),
        ("replace", [V::String(old), V::String(new), V::Int(n)]) => (
            V::string(go_replace(&s, old.as_str(), new.as_str(), *n)),
            Some("string_replace_string_string_int"),
        ),
        ("split", [V::String(sep)]) => (
            string_list(go_split(&s, sep.as_str(), -1)),
            Some("string_split_string"),
        ),
        ("split", [V::String(sep), V::Int(n)]) => (
            string_list(go_split(&s, sep.as_str(), *n)),
            Some("string_split_string_int"),
        ),
        ("substring", [V::Int(start)]) => {
            let r = runes(&s);
            let v = if *start < 0 || *start as u64 > r.len() as u64 {
                err(format!("index out of range: {start}"))
            } else {
                V::string(
                    r.get(*start as usize..)
                        .unwrap_or(&[])
                        .iter()
                        .collect::<String>(),
                )
            };
            (v, Some("string_substring_int"))
        }
        ("substring", [V::Int(start), V::Int(end)]) => {
            let r = runes(&s);
            let l = r.len() as i64;
            let v = if start > end {
                err(format!(
                    "invalid substring range. start: {start}, end: {end}"
                ))
            } else if *start < 0 || *start > l {
                err(format!("index out of range: {start}"))
            } else if *end < 0 || *end > l {
                err(format!("index out of range: {end}"))
            } else {
                V::string(
                    r.get(*start as usize..*end as usize)
                        .unwrap_or(&[])
                        .iter()
                        .collect::<String>(),
                )
            };
            (v, Some("string_substring_int_int"))
        }
        ("trim", []) => (V::string(s.trim()), Some("string_trim")),
        ("strings.quote", []) => (V::string(quote(&s)), Some("strings_quote")),
        ("format", [V::List(l)]) => (
            out(crate::ext_format::format(&s, l).map(V::string)),
            Some("string_format"),
        ),
        _ => (no_overload(f, args), None),
    })
}

fn string_list<'a>(v: Vec<String>) -> Value<'a> {
    Value::list(v.into_iter().map(Value::string).collect())
}

fn index_of(s: &str, sub: &str, off: i64) -> Result<i64, String> {
    if off < 0 {
        return Err(format!("index out of range: {off}"));
    }
    let r = runes(s);
    let n = r.len() as i64;
    if sub.is_empty() {
        return Ok(if off > n { n } else { off });
    }
    let sr = runes(sub);
    if off >= n {
        return Ok(-1);
    }
    let last = n - (sr.len() as i64 - 1);
    let mut i = off;
    while i < last {
        let start = i as usize;
        if r.get(start..start + sr.len()) == Some(&sr[..]) {
            return Ok(i);
        }
        i += 1;
    }
    Ok(-1)
}

fn last_index_of(s: &str, sub: &str, off: i64) -> Result<i64, String> {
    if off < 0 {
        return Err(format!("index out of range: {off}"));
    }
    let r = runes(s);
    let n = r.len() as i64;
    if sub.is_empty() {
        return Ok(if off > n { n } else { off });
    }
    let sr = runes(sub);
    if off >= n {
        return Ok(-1);
    }
    let mut i = off.min(n - sr.len() as i64);
    while i >= 0 {
        let start = i as usize;
        if r.get(start..start + sr.len()) == Some(&sr[..]) {
            return Ok(i);
        }
        i -= 1;
    }
    Ok(-1)
}

/// The length in bytes of `go_replace(s, old, new, n)`, counted without building it.
pub fn replace_len(s: &str, old: &str, new: &str, n: i64) -> u64 {
    let len = s.len() as u64;
    if n == 0 || old == new {
        return len;
    }
    let mut count: u64 = if old.is_empty() {
        // Before every rune and at the end.
        (s.chars().count() as u64).saturating_add(1)
    } else {
        s.matches(old).count() as u64
    };
    if n >= 0 {
        count = count.min(n as u64);
    }
    len.saturating_sub(count.saturating_mul(old.len() as u64))
        .saturating_add(count.saturating_mul(new.len() as u64))
}

/// Go's `strings.Replace(s, old, new, n)` (n < 0: all).
pub fn go_replace(s: &str, old: &str, new: &str, n: i64) -> String {
    if n == 0 || old == new {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut count = 0i64;
    if old.is_empty() {
        // Insert before every rune and at the end, up to n times.
        for (i, c) in s.chars().enumerate() {
            if n < 0 || count < n {
                out.push_str(new);
                count += 1;
            }
            out.push(c);
            let _ = i;
        }
        if n < 0 || count < n {
            out.push_str(new);
        }
        return out;
    }
    let mut rest = s;
    while let Some(pos) = rest.find(old) {
        if n >= 0 && count >= n {
            break;
        }
        out.push_str(rest.get(..pos).unwrap_or(""));
        out.push_str(new);
        rest = rest.get(pos + old.len()..).unwrap_or("");
        count += 1;
    }
    out.push_str(rest);
    out
}

/// Go's `strings.SplitN(s, sep, n)` (n < 0: all; n == 0: none).
pub fn go_split(s: &str, sep: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    if sep.is_empty() {
        let chars: Vec<String> = s.chars().map(|c| c.to_string()).collect();
        if n < 0 || chars.len() as i64 <= n {
            return chars;
        }
        let mut out: Vec<String> = chars.iter().take((n - 1) as usize).cloned().collect();
        let consumed: usize = out.iter().map(String::len).sum();
        out.push(s.get(consumed..).unwrap_or("").to_string());
        return out;
    }
    let mut out = Vec::new();
    let mut rest = s;
    while n < 0 || (out.len() as i64) < n - 1 {
        match rest.find(sep) {
            Some(pos) => {
                out.push(rest.get(..pos).unwrap_or("").to_string());
                rest = rest.get(pos + sep.len()..).unwrap_or("");
            }
            None => break,
        }
    }
    out.push(rest.to_string());
    out
}

/// ext strings' `strings.quote`.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn join<'a>(args: &[Value<'a>]) -> Out<'a> {
    let (l, sep, id) = match args {
        [Value::List(l)] => (l, "", "list_join"),
        [Value::List(l), Value::String(s)] => (l, s.as_str(), "list_join_string"),
        _ => return (no_overload("join", args), None),
    };
    let mut out = String::new();
    for (i, e) in l.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        match &e {
            Value::String(s) => out.push_str(s.as_str()),
            other => {
                return (
                    err(format!("join: invalid input: {}", format_v(other))),
                    Some(id),
                )
            }
        }
    }
    (Value::string(out), Some(id))
}

fn lists<'a>(f: &str, args: &[Value<'a>]) -> Out<'a> {
    use Value as V;
    match (f, args) {
        ("slice", [V::List(l), V::Int(start), V::Int(end)]) => {
            let n = l.len() as i64;
            let v = if *start < 0 || *end < 0 {
                err(format!(
                    "cannot slice({start}, {end}), negative indexes not supported"
                ))
            } else if start > end {
                err(format!(
                    "cannot slice({start}, {end}), start index must be less than or equal to end index"
                ))
            } else if n < *end {
                err(format!("cannot slice({start}, {end}), list is length {n}"))
            } else {
                V::list((*start..*end).filter_map(|i| l.get(i as usize)).collect())
            };
            (v, Some("list_slice"))
        }
        ("flatten", [V::List(l)]) => (flatten(l, 1), Some("list_flatten")),
        ("flatten", [V::List(l), V::Int(d)]) => (flatten(l, *d), Some("list_flatten_int")),
        ("flatten", [a, ..]) => (
            Value::maybe_no_such_overload(a)
                .as_error()
                .map(|_| err(format!("no such overload: {}.flatten()", a.type_name())))
                .unwrap_or_else(Value::no_such_overload),
            None,
        ),
        ("reverse", [V::List(l)]) => {
            let mut v = l.to_vec();
            v.reverse();
            (V::list(v), Some("list_reverse"))
        }
        ("distinct", [V::List(l)]) => {
            if l.is_empty() {
                return (V::List(l.clone()), Some("list_distinct"));
            }
            let mut out: Vec<Value<'a>> = Vec::new();
            for v in l.iter() {
                let seen = out
                    .iter()
                    .any(|o| matches!(value_equal(&v, o), V::Bool(true)));
                if !seen {
                    out.push(v);
                }
            }
            (V::list(out), Some("list_distinct"))
        }
        ("sort", [V::List(l)]) => (sort_by_keys(l, l), sort_id(l, "sort")),
        ("@sortByAssociatedKeys", [V::List(l), V::List(keys)]) => {
            (sort_by_keys(l, keys), sort_id(keys, "sortByAssociatedKeys"))
        }
        // The runtime cancels a range past the cost limit or the growth cap before it
        // calls here; an unlimited direct call is bounded by the same cap.
        ("lists.range", [V::Int(n)]) => {
            let max = (crate::cost_rt::MAX_GROWTH_BYTES
                / std::mem::size_of::<Value<'static>>() as u64) as i64;
            if *n > max {
                (
                    err(format!(
                        "lists.range: {n} elements exceed the limit of {max}"
                    )),
                    Some("lists_range"),
                )
            } else {
                (
                    V::list((0..(*n).max(0)).map(V::Int).collect()),
                    Some("lists_range"),
                )
            }
        }
        _ => (no_overload(f, args), None),
    }
}

fn sort_id(l: &List<'_>, what: &str) -> Option<&'static str> {
    // An empty list sorts with any overload: the cost is the same.
    let t = l
        .get(0)
        .map(|v| v.type_name().to_string())
        .unwrap_or_else(|| "int".to_string());
    let id = format!("list_{t}_{what}");
    const IDS: &[&str] = &[
        "list_int_sort",
        "list_uint_sort",
        "list_double_sort",
        "list_bool_sort",
        "list_google.protobuf.Duration_sort",
        "list_google.protobuf.Timestamp_sort",
        "list_string_sort",
        "list_bytes_sort",
        "list_int_sortByAssociatedKeys",
        "list_uint_sortByAssociatedKeys",
        "list_double_sortByAssociatedKeys",
        "list_bool_sortByAssociatedKeys",
        "list_google.protobuf.Duration_sortByAssociatedKeys",
        "list_google.protobuf.Timestamp_sortByAssociatedKeys",
        "list_string_sortByAssociatedKeys",
        "list_bytes_sortByAssociatedKeys",
    ];
    IDS.iter().copied().find(|x| *x == id)
}

fn flatten<'a>(l: &List<'a>, depth: i64) -> Value<'a> {
    if depth < 0 {
        return err("level must be non-negative");
    }
    let mut out = Vec::new();
    // Explicit stack of (list, position, depth) to keep recursion off the call stack.
    let mut stack: Vec<(List<'a>, usize, i64)> = vec![(l.clone(), 0, depth)];
    while let Some((cur, pos, d)) = stack.pop() {
        let Some(v) = cur.get(pos) else {
            continue;
        };
        stack.push((cur, pos + 1, d));
        match v {
            Value::List(inner) if d > 0 => stack.push((inner, 0, d - 1)),
            other => out.push(other),
        }
    }
    Value::list(out)
}

fn sort_by_keys<'a>(l: &List<'a>, keys: &List<'a>) -> Value<'a> {
    let n = l.len();
    if n != keys.len() {
        return err(format!(
            "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got {} and {} elements respectively",
            n,
            keys.len()
        ));
    }
    if n == 0 {
        return Value::List(l.clone());
    }
    let ks = keys.to_vec();
    let Some(first) = ks.first() else {
        return Value::List(l.clone());
    };
    let comparable = matches!(
        first,
        Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::Bool(_)
            | Value::String(_)
            | Value::Bytes(_)
            | Value::Timestamp(_)
            | Value::Duration(_)
    );
    if !comparable {
        return err("list elements must be comparable");
    }
    let ty = first.type_name().to_string();
    if ks.iter().any(|k| k.type_name() != ty) {
        return err("list elements must have the same type");
    }
    let mut idx: Vec<usize> = (0..n).collect();
    crd_studio_gostd::sort::stable_by(&mut idx, |&a, &b| match (ks.get(a), ks.get(b)) {
        (Some(x), Some(y)) => compare(x, y).unwrap_or(Ordering::Equal),
        _ => Ordering::Equal,
    });
    Value::list(idx.into_iter().filter_map(|i| l.get(i)).collect())
}

fn sets<'a>(f: &str, args: &[Value<'a>]) -> Out<'a> {
    let [Value::List(a), Value::List(b)] = args else {
        return (no_overload(f, args), None);
    };
    match f {
        "sets.contains" => (sets_contains(a, b), Some("list_sets_contains_list")),
        "sets.equivalent" => {
            let r = sets_contains(a, b);
            let r = if matches!(r, Value::Bool(true)) {
                sets_contains(b, a)
            } else {
                r
            };
            (r, Some("list_sets_equivalent_list"))
        }
        _ => {
            for x in a.iter() {
                if matches!(list_contains(b, &x), Value::Bool(true)) {
                    return (Value::Bool(true), Some("list_sets_intersects_list"));
                }
            }
            (Value::Bool(false), Some("list_sets_intersects_list"))
        }
    }
}

fn sets_contains<'a>(l: &List<'a>, sub: &List<'a>) -> Value<'a> {
    for x in sub.iter() {
        let r = list_contains(l, &x);
        if !matches!(r, Value::Bool(true)) {
            return r;
        }
    }
    Value::Bool(true)
}

fn optional<'a>(f: &str, args: &[Value<'a>]) -> Option<Out<'a>> {
    use Value as V;
    Some(match (f, args) {
        ("optional.of", [v]) => (V::optional_of(v.clone()), Some("optional_of")),
        ("optional.ofNonZeroValue", [v]) => (
            if v.is_zero_value() {
                V::optional_none()
            } else {
                V::optional_of(v.clone())
            },
            Some("optional_ofNonZeroValue"),
        ),
        ("optional.none", []) => (V::optional_none(), Some("optional_none")),
        ("value", [V::Optional(o)]) => (
            match o {
                Some(v) => (**v).clone(),
                None => err("optional.none() dereference"),
            },
            Some("optional_value"),
        ),
        ("hasValue", [V::Optional(o)]) => (V::Bool(o.is_some()), Some("optional_hasValue")),
        ("first", [V::List(l)]) => (
            l.get(0).map_or_else(V::optional_none, V::optional_of),
            Some("list_first"),
        ),
        ("last", [V::List(l)]) => (
            l.len()
                .checked_sub(1)
                .and_then(|i| l.get(i))
                .map_or_else(V::optional_none, V::optional_of),
            Some("list_last"),
        ),
        ("optional.unwrap", [V::List(l)]) | ("unwrapOpt", [V::List(l)]) => {
            let id = if f == "unwrapOpt" {
                "optional_unwrapOpt"
            } else {
                "optional_unwrap"
            };
            let mut out = Vec::new();
            for v in l.iter() {
                match v {
                    V::Optional(Some(x)) => out.push((*x).clone()),
                    V::Optional(None) => {}
                    other => {
                        return Some((
                            err(format!("value {} is not optional", format_v(&other))),
                            Some(id),
                        ))
                    }
                }
            }
            (V::list(out), Some(id))
        }
        ("value" | "hasValue" | "first" | "last", _) => return None,
        _ => (no_overload(f, args), None),
    })
}

fn map_insert<'a>(args: &[Value<'a>]) -> Out<'a> {
    match args {
        [Value::Map(m), k, v] => (insert(m, k, v), Some("@mapInsert_map_key_value")),
        [Value::Map(m), Value::Map(u)] => {
            let mut cur = Value::Map(m.clone());
            for (k, v) in crate::stdlib_rt::map_entries(u) {
                let Value::Map(cm) = &cur else {
                    break;
                };
                let next = insert(cm, &k, &v);
                if next.is_error() {
                    return (next, Some("@mapInsert_map_map"));
                }
                cur = next;
            }
            (cur, Some("@mapInsert_map_map"))
        }
        _ => (no_overload("cel.@mapInsert", args), None),
    }
}

/// `types.InsertMapKeyValue`: a copy of the map with the entry, or `insert failed: key k
/// already exists`.
fn insert<'a>(m: &Map<'a>, k: &Value<'a>, v: &Value<'a>) -> Value<'a> {
    if let Ok(Some(_)) = m.find(k) {
        return err(format!("insert failed: key {} already exists", format_v(k)));
    }
    match m {
        Map::Owned(o) => {
            let mut o = Rc::clone(o);
            Rc::make_mut(&mut o).insert(k.clone(), v.clone());
            Value::Map(Map::Owned(o))
        }
        Map::Json(_) => {
            let mut out = OwnedMap::default();
            for (kk, vv) in crate::stdlib_rt::map_entries(m) {
                out.insert(kk, vv);
            }
            out.insert(k.clone(), v.clone());
            Value::Map(Map::Owned(Rc::new(out)))
        }
    }
}

#[allow(dead_code)]
fn eq<'a>(a: &Value<'a>, b: &Value<'a>) -> bool {
    matches!(equal(a, b), Value::Bool(true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c<'a>(f: &str, args: &[Value<'a>]) -> Value<'a> {
        call(&CallInfo::new(f.to_string(), None, false), args)
            .unwrap()
            .0
    }

    fn s(x: &str) -> Value<'static> {
        Value::string(x)
    }

    #[test]
    fn string_functions() {
        assert_eq!(
            c("charAt", &[s("héllo"), Value::Int(1)]).as_str(),
            Some("é")
        );
        assert_eq!(c("charAt", &[s("ab"), Value::Int(2)]).as_str(), Some(""));
        assert_eq!(
            c("charAt", &[s("ab"), Value::Int(3)])
                .as_error()
                .unwrap()
                .message,
            "index out of range: 3"
        );
        assert_eq!(c("indexOf", &[s("hello"), s("l")]).as_int(), Some(2));
        assert_eq!(c("lastIndexOf", &[s("hello"), s("l")]).as_int(), Some(3));
        assert_eq!(c("indexOf", &[s("hello"), s("")]).as_int(), Some(0));
        assert_eq!(c("lastIndexOf", &[s("hello"), s("")]).as_int(), Some(5));
        assert_eq!(
            c("replace", &[s("aaa"), s("a"), s("b"), Value::Int(2)]).as_str(),
            Some("bba")
        );
        assert_eq!(
            c("replace", &[s("ab"), s(""), s("-")]).as_str(),
            Some("-a-b-")
        );
        assert_eq!(
            c("substring", &[s("héllo"), Value::Int(1), Value::Int(3)]).as_str(),
            Some("él")
        );
        assert_eq!(
            c("substring", &[s("abc"), Value::Int(2), Value::Int(1)])
                .as_error()
                .unwrap()
                .message,
            "invalid substring range. start: 2, end: 1"
        );
        assert_eq!(
            c("strings.quote", &[s("a\"b\n")]).as_str(),
            Some("\"a\\\"b\\n\"")
        );
        let Value::List(l) = c("split", &[s("a,b,c"), s(","), Value::Int(2)]) else {
            panic!()
        };
        assert_eq!(
            l.to_vec()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect::<Vec<_>>(),
            ["a", "b,c"]
        );
        assert_eq!(
            c("join", &[Value::list(vec![s("a"), s("b")]), s("-")]).as_str(),
            Some("a-b")
        );
    }

    #[test]
    fn list_functions() {
        let l = Value::list(vec![Value::Int(3), Value::Int(1), Value::Int(2)]);
        let Value::List(sorted) = c("sort", std::slice::from_ref(&l)) else {
            panic!()
        };
        assert_eq!(
            sorted
                .to_vec()
                .iter()
                .filter_map(Value::as_int)
                .collect::<Vec<_>>(),
            [1, 2, 3]
        );
        assert_eq!(
            c("slice", &[l.clone(), Value::Int(3), Value::Int(0)])
                .as_error()
                .unwrap()
                .message,
            "cannot slice(3, 0), start index must be less than or equal to end index"
        );
        let nested = Value::list(vec![
            Value::list(vec![Value::Int(1), Value::list(vec![Value::Int(2)])]),
            Value::Int(3),
        ]);
        let Value::List(f) = c("flatten", std::slice::from_ref(&nested)) else {
            panic!()
        };
        assert_eq!(f.len(), 3);
        let Value::List(f) = c("flatten", &[nested, Value::Int(2)]) else {
            panic!()
        };
        assert_eq!(f.len(), 3);
        assert_eq!(f.get(1).unwrap().as_int(), Some(2));
        let mixed = Value::list(vec![s("d"), Value::Int(3)]);
        assert_eq!(
            c("sort", &[mixed]).as_error().unwrap().message,
            "list elements must have the same type"
        );
        let Value::List(r) = c("lists.range", &[Value::Int(3)]) else {
            panic!()
        };
        assert_eq!(r.len(), 3);
    }

    #[test]
    fn sets_and_optionals() {
        let a = Value::list(vec![Value::Int(1), Value::Int(2)]);
        let b = Value::list(vec![Value::Double(2.0)]);
        assert_eq!(
            c("sets.contains", &[a.clone(), b.clone()]).as_bool(),
            Some(true)
        );
        assert_eq!(
            c("sets.equivalent", &[a.clone(), b.clone()]).as_bool(),
            Some(false)
        );
        assert_eq!(c("sets.intersects", &[a, b]).as_bool(), Some(true));
        assert!(matches!(
            c("optional.ofNonZeroValue", &[s("")]),
            Value::Optional(None)
        ));
        assert_eq!(
            c("value", &[Value::optional_none()])
                .as_error()
                .unwrap()
                .message,
            "optional.none() dereference"
        );
    }
}
