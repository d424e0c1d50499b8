//! How Go sees decoded JSON values (`interface{}`): `int64` versus `float64` numbers,
//! `reflect.DeepEqual`, the float-to-integer conversion of amd64, and go-openapi/swag's
//! `IsFloat64AJSONInteger`. Everything here is iterative (or bounded),
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
    fn go_float_conversions() {
        assert_eq!(f64_to_i64(1e20), i64::MIN);
        assert_eq!(f64_to_i64(-2.7), -2);
        assert!(is_float64_a_json_integer(3.0));
        assert!(!is_float64_a_json_integer(3.5));
        assert!(!is_float64_a_json_integer(1e300));
    }
}
