//! Go's `encoding/json` output (`json.Marshal`): of decoded JSON (`interface{}`: map keys
//! sorted, numbers as `int64` or `float64`), of strings (HTML-safe escaping), of float64s
//! (shortest digits, Go's exponent rules), and of typed structs and slices ([`Obj`], [`list`],
//! [`strings`], [`bytes`]), whose Go field names are the keys when they have no JSON tags.

use serde_json::{Number, Value as Json};

/// The text `json.Marshal` writes for a decoded number: an `int64` when it is an integer that
/// fits, else a `float64` (see [`crate::value::GoNum`]).
pub fn number_text(n: &Number) -> String {
    match n.as_i64() {
        Some(i) => i.to_string(),
        None => float_text(n.as_f64().unwrap_or(0.0)),
    }
}

/// `json.Marshal` of a finite float64: shortest digits, exponent form below 1e-6 or from 1e21
/// (`1e+21`, `1e-7`). Not for NaN and infinities, which `json.Marshal` refuses (see [`float`]).
pub fn float_text(f: f64) -> String {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let e = format!("{f:e}");
        let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        if exp < 0 {
            format!("{mantissa}e-{}", exp.unsigned_abs())
        } else {
            format!("{mantissa}e+{exp:02}")
        }
    } else {
        // Rust's Display is the shortest round-trip digits without an exponent, as Go's 'f'.
        format!("{f}")
    }
}

/// `json.Marshal` of a string: `"`, `\\` and control characters escaped, and `<`, `>`, `&`,
/// U+2028 and U+2029 as `\\u003c`, ... (HTML-safe escaping, as the default encoder does).
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `json.Marshal` of decoded JSON (`interface{}`): map keys sorted, as Go sorts them, numbers
/// as [`number_text`]. Iterative: values can be deep.
pub fn marshal(v: &Json) -> String {
    let mut out = String::new();
    // An explicit stack: values can be deep.
    enum Step<'a> {
        Value(&'a Json),
        Text(&'static str),
        Key(&'a str),
    }
    let mut stack = vec![Step::Value(v)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Text(t) => out.push_str(t),
            Step::Key(k) => {
                out.push_str(&string(k));
                out.push(':');
            }
            Step::Value(v) => match v {
                Json::Null => out.push_str("null"),
                Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Json::Number(n) => out.push_str(&number_text(n)),
                Json::String(s) => out.push_str(&string(s)),
                Json::Array(items) => {
                    out.push('[');
                    stack.push(Step::Text("]"));
                    for (i, item) in items.iter().enumerate().rev() {
                        stack.push(Step::Value(item));
                        if i > 0 {
                            stack.push(Step::Text(","));
                        }
                    }
                }
                Json::Object(map) => {
                    out.push('{');
                    stack.push(Step::Text("}"));
                    for (i, (k, item)) in map.iter().enumerate().rev() {
                        stack.push(Step::Value(item));
                        stack.push(Step::Key(k));
                        if i > 0 {
                            stack.push(Step::Text(","));
                        }
                    }
                }
            },
        }
    }
    out
}

/// A float64 field of a struct as Go writes it: plain decimal digits (shortest round trip),
/// or exponent form (`1e+21`, `1e-7`) below 1e-6 or from 1e21 on; NaN and infinities, which
/// `json.Marshal` refuses, as `%v` prints them (callers fall back to `%#v` there).
pub fn float(f: f64) -> String {
    if !f.is_finite() {
        // json.Marshal fails on these; the caller then falls back to `%#v`.
        return crate::strconv::format_float_g(f);
    }
    float_text(f)
}

/// A list of strings (`[]string`); an empty list is Go's nil slice, `null`.
pub fn strings(items: &[String]) -> String {
    if items.is_empty() {
        return "null".to_owned();
    }
    let quoted: Vec<String> = items.iter().map(|s| string(s)).collect();
    format!("[{}]", quoted.join(","))
}

/// A `[]byte`: base64 (standard alphabet, padded) in a JSON string; empty is `null`.
pub fn bytes(b: &[u8]) -> String {
    if b.is_empty() {
        return "null".to_owned();
    }
    string(&crate::base64::encode(b))
}

/// The word Go's decoder uses for the JSON value it found (`UnmarshalTypeError.Value`).
pub fn json_kind(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "bool",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

/// Builds a Go struct's JSON (`{"Field":value,...}`), fields in declaration order.
#[derive(Default)]
pub struct Obj {
    out: String,
}

impl Obj {
    /// An empty struct.
    pub fn new() -> Obj {
        Obj::default()
    }

    /// Adds a field with its already-marshalled value.
    pub fn raw(mut self, name: &str, value: impl AsRef<str>) -> Obj {
        self.out.push(if self.out.is_empty() { '{' } else { ',' });
        self.out.push_str(&string(name));
        self.out.push(':');
        self.out.push_str(value.as_ref());
        self
    }

    /// Adds a string field.
    pub fn str(self, name: &str, value: &str) -> Obj {
        let v = string(value);
        self.raw(name, v)
    }

    /// Adds a `*string` field.
    pub fn opt_str(self, name: &str, value: Option<&str>) -> Obj {
        let v = value.map(string).unwrap_or_else(|| "null".to_owned());
        self.raw(name, v)
    }

    /// Adds a bool field.
    pub fn bool(self, name: &str, value: bool) -> Obj {
        self.raw(name, if value { "true" } else { "false" })
    }

    /// Adds a `*bool` field.
    pub fn opt_bool(self, name: &str, value: Option<bool>) -> Obj {
        self.raw(
            name,
            match value {
                Some(true) => "true",
                Some(false) => "false",
                None => "null",
            },
        )
    }

    /// Adds an integer field.
    pub fn int(self, name: &str, value: i64) -> Obj {
        self.raw(name, value.to_string())
    }

    /// Adds a `*int64` field.
    pub fn opt_int(self, name: &str, value: Option<i64>) -> Obj {
        self.raw(
            name,
            value
                .map(|v| v.to_string())
                .unwrap_or_else(|| "null".into()),
        )
    }

    /// Adds a `*float64` field.
    pub fn opt_float(self, name: &str, value: Option<f64>) -> Obj {
        self.raw(name, value.map(float).unwrap_or_else(|| "null".into()))
    }

    /// The JSON text.
    pub fn finish(self) -> String {
        if self.out.is_empty() {
            "{}".to_owned()
        } else {
            let mut s = self.out;
            s.push('}');
            s
        }
    }
}

/// A slice of already-marshalled elements; empty is Go's nil slice, `null`.
pub fn list(items: impl IntoIterator<Item = String>) -> String {
    let items: Vec<String> = items.into_iter().collect();
    if items.is_empty() {
        "null".to_owned()
    } else {
        format!("[{}]", items.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn marshal_like_go() {
        assert_eq!(
            marshal(&json!({"b": [1, 1.5, 1e21, 1e-7, true, null], "a": "<&>\u{1}"})),
            r#"{"a":"\u003c\u0026\u003e\u0001","b":[1,1.5,1e+21,1e-7,true,null]}"#
        );
        assert_eq!(float_text(100000000000000000000.0), "100000000000000000000");
    }

    #[test]
    fn strings_and_numbers_like_go() {
        assert_eq!(string("a<b>&\"\n"), r#""a\u003cb\u003e\u0026\"\n""#);
        assert_eq!(float(1.5), "1.5");
        assert_eq!(float(100.0), "100");
        assert_eq!(float(1e21), "1e+21");
        assert_eq!(float(1.5e-7), "1.5e-7");
        assert_eq!(float(0.000001), "0.000001");
        assert_eq!(
            marshal(&json!({"b": [1, 2.5, null], "a": "x"})),
            r#"{"a":"x","b":[1,2.5,null]}"#
        );
        assert_eq!(strings(&["v1".into(), "v2".into()]), r#"["v1","v2"]"#);
        assert_eq!(strings(&[]), "null");
    }

    #[test]
    fn json_marshal_like_go() {
        assert_eq!(
            marshal(&json!({"b": [1, 1.5, 1e21, 1e-7], "a": "<&>"})),
            r#"{"a":"\u003c\u0026\u003e","b":[1,1.5,1e+21,1e-7]}"#
        );
        assert_eq!(marshal(&json!(100.0)), "100");
        assert_eq!(float_text(0.000001), "0.000001");
    }

    #[test]
    fn structs_in_field_order() {
        let s = Obj::new()
            .str("Name", "v1")
            .bool("Served", true)
            .opt_str("DeprecationWarning", None)
            .finish();
        assert_eq!(
            s,
            r#"{"Name":"v1","Served":true,"DeprecationWarning":null}"#
        );
        assert_eq!(Obj::new().finish(), "{}");
    }
}
