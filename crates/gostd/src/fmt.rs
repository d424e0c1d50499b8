//! Go's `fmt` verbs for decoded JSON values (`interface{}`): `%v` (`map[k:v]` with sorted keys,
//! `[a b]`, strings bare, floats as `strconv.FormatFloat(f, 'g', -1, 64)`) and `%T`. `%q` is
//! [`crate::strconv::quote`].

use serde_json::Value as Json;

/// `%T` of a decoded JSON value.
pub fn type_name(v: &Json) -> &'static str {
    match v {
        Json::Null => "<nil>",
        Json::Bool(_) => "bool",
        Json::Number(n) if n.as_i64().is_some() => "int64",
        Json::Number(_) => "float64",
        Json::String(_) => "string",
        Json::Array(_) => "[]interface {}",
        Json::Object(_) => "map[string]interface {}",
    }
}

/// `%v` of a decoded JSON value: `map[k:v]` (keys sorted), `[a b]`, strings bare.
pub fn v(v: &Json) -> String {
    fn inner(v: &Json, out: &mut String, depth: usize) {
        if depth > 1000 {
            out.push_str("...");
            return;
        }
        match v {
            Json::Null => out.push_str("<nil>"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => match n.as_i64() {
                Some(i) => out.push_str(&i.to_string()),
                None => out.push_str(&crate::strconv::format_float_g(n.as_f64().unwrap_or(0.0))),
            },
            Json::String(s) => out.push_str(s),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    inner(item, out, depth + 1);
                }
                out.push(']');
            }
            Json::Object(map) => {
                out.push_str("map[");
                for (i, (k, item)) in map.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    out.push_str(k);
                    out.push(':');
                    inner(item, out, depth + 1);
                }
                out.push(']');
            }
        }
    }
    let mut out = String::new();
    inner(v, &mut out, 0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn verbs_like_go() {
        assert_eq!(v(&json!({"a": [1, "x"], "b": 2.5})), "map[a:[1 x] b:2.5]");
        assert_eq!(v(&json!(1e6)), "1e+06");
        assert_eq!(v(&json!(null)), "<nil>");
        assert_eq!(type_name(&json!([1])), "[]interface {}");
        assert_eq!(type_name(&json!(1.5)), "float64");
    }
}
