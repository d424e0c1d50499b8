//! How Go sees the JSON values the validators work on: `int64` versus `float64` numbers,
//! `reflect.DeepEqual`, `strconv.FormatFloat(f, 'f', -1, 64)`, `json.Marshal`, and the
//! float-to-integer conversions of the amd64 server. Everything here is iterative (or bounded),
//! so deeply nested user data cannot exhaust the stack.

use serde_json::Value as Json;

/// A JSON number as the server holds it after decoding an object: `int64` when the text was
/// an integer that fits, else `float64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GoNum {
    /// An `int64`.
    Int(i64),
    /// A `float64`.
    Float(f64),
}

impl GoNum {
    /// The number held by a JSON value, if it is one.
    pub fn of(v: &Json) -> Option<GoNum> {
        match v {
            Json::Number(n) => Some(match n.as_i64() {
                Some(i) => GoNum::Int(i),
                None => GoNum::Float(n.as_f64().unwrap_or(0.0)),
            }),
            _ => None,
        }
    }

    /// `float64(x)`.
    pub fn as_f64(self) -> f64 {
        match self {
            GoNum::Int(i) => i as f64,
            GoNum::Float(f) => f,
        }
    }

    /// The JSON value for this number, keeping its Go type.
    pub fn to_json(self) -> Json {
        match self {
            GoNum::Int(i) => Json::from(i),
            GoNum::Float(f) => float_json(f),
        }
    }
}

/// A JSON number holding a `float64` (JSON has no NaN or infinity: those become 0).
pub fn float_json(f: f64) -> Json {
    serde_json::Number::from_f64(f)
        .map(Json::Number)
        .unwrap_or_else(|| Json::from(0.0_f64))
}

/// Go's `int64(f)` on amd64: truncation toward zero, and the "integer indefinite" value
/// (`math.MinInt64`) for NaN and out-of-range values.
pub fn f64_to_i64(f: f64) -> i64 {
    if f.is_nan() || !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`: the shortest digits that round-trip, never with an
/// exponent (Rust's `Display` for `f64` prints exactly this).
pub fn format_float_f(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    format!("{f}")
}

/// Go's `reflect.DeepEqual` on two decoded JSON values: an `int64` never equals a `float64`,
/// map order does not matter. Iterative.
pub fn deep_equal(a: &Json, b: &Json) -> bool {
    let mut stack: Vec<(&Json, &Json)> = vec![(a, b)];
    while let Some((x, y)) = stack.pop() {
        match (x, y) {
            (Json::Null, Json::Null) => {}
            (Json::Bool(p), Json::Bool(q)) => {
                if p != q {
                    return false;
                }
            }
            (Json::String(p), Json::String(q)) => {
                if p != q {
                    return false;
                }
            }
            (Json::Number(_), Json::Number(_)) => match (GoNum::of(x), GoNum::of(y)) {
                (Some(GoNum::Int(p)), Some(GoNum::Int(q))) if p == q => {}
                (Some(GoNum::Float(p)), Some(GoNum::Float(q))) if p == q => {}
                _ => return false,
            },
            (Json::Array(p), Json::Array(q)) => {
                if p.len() != q.len() {
                    return false;
                }
                stack.extend(p.iter().zip(q.iter()));
            }
            (Json::Object(p), Json::Object(q)) => {
                if p.len() != q.len() {
                    return false;
                }
                for (k, v) in p {
                    match q.get(k) {
                        Some(w) => stack.push((v, w)),
                        None => return false,
                    }
                }
            }
            _ => return false,
        }
    }
    true
}

/// Go's `encoding/json` text for a float64 (`1e+21`, `1e-7`, `0.5`, `100`).
pub fn json_float(f: f64) -> String {
    if !f.is_finite() {
        return "null".to_owned();
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        // 'e' format with the shortest digits, exponent at least two digits, then Go's
        // clean-up of "e-09" to "e-9".
        let e = format!("{f:e}");
        let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        let digits = exp.unsigned_abs();
        let exp_text = if sign == '-' {
            format!("{digits}")
        } else {
            format!("{digits:02}")
        };
        format!("{mantissa}e{sign}{exp_text}")
    } else {
        format_float_f(f)
    }
}

/// Appends Go's `encoding/json` encoding of a string (HTML-safe escaping, as `json.Marshal`).
fn json_string(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' => {
                out.push_str("\\u00");
                let b = c as u32;
                out.push(char::from(
                    HEX.get((b >> 4) as usize).copied().unwrap_or(b'0'),
                ));
                out.push(char::from(
                    HEX.get((b & 0xf) as usize).copied().unwrap_or(b'0'),
                ));
            }
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if (c as u32) < 0x20 => {
                let b = c as u32;
                out.push_str("\\u00");
                out.push(char::from(
                    HEX.get((b >> 4) as usize).copied().unwrap_or(b'0'),
                ));
                out.push(char::from(
                    HEX.get((b & 0xf) as usize).copied().unwrap_or(b'0'),
                ));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Go's `json.Marshal` of a decoded JSON value: map keys sorted, HTML characters escaped,
/// Go's float formatting. Iterative.
pub fn json_marshal(v: &Json) -> String {
    enum Item<'a> {
        Value(&'a Json),
        Text(&'static str),
        Key(&'a str),
    }
    let mut out = String::new();
    let mut stack = vec![Item::Value(v)];
    while let Some(item) = stack.pop() {
        match item {
            Item::Text(t) => out.push_str(t),
            Item::Key(k) => {
                json_string(k, &mut out);
                out.push(':');
            }
            Item::Value(v) => match v {
                Json::Null => out.push_str("null"),
                Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Json::String(s) => json_string(s, &mut out),
                Json::Number(_) => match GoNum::of(v) {
                    Some(GoNum::Int(i)) => out.push_str(&i.to_string()),
                    Some(GoNum::Float(f)) => out.push_str(&json_float(f)),
                    None => out.push_str("null"),
                },
                Json::Array(items) => {
                    out.push('[');
                    stack.push(Item::Text("]"));
                    for (i, item) in items.iter().enumerate().rev() {
                        stack.push(Item::Value(item));
                        if i > 0 {
                            stack.push(Item::Text(","));
                        }
                    }
                }
                Json::Object(m) => {
                    out.push('{');
                    stack.push(Item::Text("}"));
                    let mut keys: Vec<&String> = m.keys().collect();
                    keys.sort();
                    for (i, k) in keys.iter().enumerate().rev() {
                        if let Some(item) = m.get(k.as_str()) {
                            stack.push(Item::Value(item));
                        }
                        stack.push(Item::Key(k));
                        if i > 0 {
                            stack.push(Item::Text(","));
                        }
                    }
                }
            },
        }
    }
    out
}

/// swag's `IsFloat64AJSONInteger` (go-openapi/swag v0.27.1).
pub fn is_float64_a_json_integer(f: f64) -> bool {
    const MAX_JSON_FLOAT: f64 = 9_007_199_254_740_991.0;
    if f.is_nan() || f.is_infinite() || !(-MAX_JSON_FLOAT..=MAX_JSON_FLOAT).contains(&f) {
        return false;
    }
    let rounded = f.round();
    if f == rounded {
        return true;
    }
    if rounded == 0.0 {
        return false;
    }
    let diff = (f - rounded).abs();
    if diff == 0.0 {
        return true;
    }
    diff < 1e-9 * rounded.abs()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn int_and_float_differ_like_go() {
        assert!(!deep_equal(&json!(1), &json!(1.0)));
        assert!(deep_equal(&json!({"a": [1, "x"]}), &json!({"a": [1, "x"]})));
        assert!(!deep_equal(
            &json!({"a": [1]}),
            &json!({"a": [1], "b": null})
        ));
    }

    #[test]
    fn json_marshal_like_go() {
        assert_eq!(
            json_marshal(&json!({"b": [1, 1.5, 1e21, 1e-7], "a": "<&>"})),
            r#"{"a":"\u003c\u0026\u003e","b":[1,1.5,1e+21,1e-7]}"#
        );
        assert_eq!(json_marshal(&json!(100.0)), "100");
        assert_eq!(json_float(0.000001), "0.000001");
    }

    #[test]
    fn go_float_conversions() {
        assert_eq!(
            format_float_f(-1.0145709240540254e19),
            "-10145709240540254000"
        );
        assert_eq!(f64_to_i64(1e20), i64::MIN);
        assert_eq!(f64_to_i64(-2.7), -2);
        assert!(is_float64_a_json_integer(3.0));
        assert!(!is_float64_a_json_integer(3.5));
        assert!(!is_float64_a_json_integer(1e300));
    }
}
