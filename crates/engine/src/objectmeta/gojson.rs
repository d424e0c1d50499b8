//! Go's `encoding/json` as the server uses it on ObjectMeta: `json.Marshal` of decoded JSON
//! (the text `GetObjectMeta` decodes, and field-error values), `fmt`'s `%v` and `%T` of such
//! values, and the bookkeeping of `sigs.k8s.io/json`'s case-sensitive decoder into typed
//! structs: the first type error wins and names the innermost struct and the field path
//! (`json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string`),
//! and unknown fields are collected for strict decoding (`ownerReferences[0].foo`, at most
//! 100, each once).

use std::collections::HashSet;

use serde_json::{Number, Value as Json};

use crate::field_error::go_float_v;

/// The text `json.Marshal` writes for a number the server holds as int64 or float64.
pub fn number_text(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    float_text(n.as_f64().unwrap_or(0.0))
}

/// `json.Marshal` of a float64: shortest digits, exponent form below 1e-6 or from 1e21.
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

/// `json.Marshal` of a string (HTML-safe escaping, as the default encoder does).
pub fn string_text(s: &str) -> String {
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

/// `json.Marshal` of decoded JSON (map keys sorted, as Go sorts them).
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
                out.push_str(&string_text(k));
                out.push(':');
            }
            Step::Value(v) => match v {
                Json::Null => out.push_str("null"),
                Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Json::Number(n) => out.push_str(&number_text(n)),
                Json::String(s) => out.push_str(&string_text(s)),
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

/// `%T` of a decoded JSON value.
pub fn go_type(v: &Json) -> &'static str {
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
pub fn go_v(v: &Json) -> String {
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
                None => out.push_str(&go_float_v(n.as_f64().unwrap_or(0.0))),
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

/// The most strict-decoding errors `sigs.k8s.io/json` keeps.
const MAX_STRICT_ERRORS: usize = 100;

/// Decoding state: error context, the first saved type error, strict unknown fields.
#[derive(Default)]
pub struct Decoder {
    /// Whether unknown fields are collected (`UnmarshalStrict`).
    pub strict: bool,
    saved: Option<String>,
    unknown: Vec<String>,
    seen: HashSet<String>,
    context_struct: Option<&'static str>,
    field_stack: Vec<&'static str>,
    strict_stack: Vec<String>,
}

/// An error that stops decoding at once (what an `UnmarshalJSON` method returns).
#[derive(Debug)]
pub struct Abort(pub String);

/// Where a struct field's decoding started, to restore the context after it.
pub struct Mark {
    context_struct: Option<&'static str>,
    fields: usize,
    strict: usize,
}

impl Decoder {
    /// A decoder; `strict` collects unknown fields.
    pub fn new(strict: bool) -> Decoder {
        Decoder {
            strict,
            ..Decoder::default()
        }
    }

    /// The rendered `UnmarshalTypeError` for `value` (the JSON kind, or `number 1.5`) into
    /// the Go type `type_name`, with the current context.
    pub fn type_error_text(&self, value: &str, type_name: &str) -> String {
        match self.context_struct {
            Some(st) => format!(
                "json: cannot unmarshal {value} into Go struct field {st}.{} of type {type_name}",
                self.field_stack.join(".")
            ),
            None if !self.field_stack.is_empty() => format!(
                "json: cannot unmarshal {value} into Go struct field .{} of type {type_name}",
                self.field_stack.join(".")
            ),
            None => format!("json: cannot unmarshal {value} into Go value of type {type_name}"),
        }
    }

    /// Saves a type error unless one is saved already (decoding goes on).
    pub fn type_error(&mut self, value: &str, type_name: &str) {
        if self.saved.is_none() {
            self.saved = Some(self.type_error_text(value, type_name));
        }
    }

    /// Enters the struct field `name` of the Go struct `struct_name`.
    pub fn enter_field(&mut self, struct_name: &'static str, name: &'static str) -> Mark {
        let mark = self.mark();
        self.context_struct = Some(struct_name);
        self.field_stack.push(name);
        self.push_strict_key(name);
        mark
    }

    fn mark(&self) -> Mark {
        Mark {
            context_struct: self.context_struct,
            fields: self.field_stack.len(),
            strict: self.strict_stack.len(),
        }
    }

    /// Enters a map key (only the strict path changes).
    pub fn enter_key(&mut self, key: &str) -> Mark {
        let mark = self.mark();
        self.push_strict_key(key);
        mark
    }

    /// Enters a list element.
    pub fn enter_index(&mut self, i: usize) -> Mark {
        let mark = self.mark();
        if self.strict {
            self.strict_stack.push(format!("[{i}]"));
        }
        mark
    }

    fn push_strict_key(&mut self, key: &str) {
        if !self.strict {
            return;
        }
        if self.strict_stack.is_empty() {
            self.strict_stack.push(key.to_owned());
        } else {
            self.strict_stack.push(format!(".{key}"));
        }
    }

    /// Leaves what `mark` entered.
    pub fn leave(&mut self, mark: Mark) {
        self.context_struct = mark.context_struct;
        self.field_stack.truncate(mark.fields);
        self.strict_stack.truncate(mark.strict);
    }

    /// Records an unknown field `key` at the current place.
    pub fn unknown_field(&mut self, key: &str) {
        if !self.strict || self.unknown.len() >= MAX_STRICT_ERRORS {
            return;
        }
        let path = if self.strict_stack.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.strict_stack.concat())
        };
        if self.seen.insert(path.clone()) {
            self.unknown.push(path);
        }
    }

    /// The decoding's outcome: the first saved type error, else the unknown fields.
    pub fn finish(self) -> Result<Vec<String>, String> {
        match self.saved {
            Some(e) => Err(e),
            None => Ok(self.unknown),
        }
    }

    /// `string` (or a named string type): the value, `None` to leave the field as it is.
    pub fn string(&mut self, v: &Json, type_name: &str) -> Option<String> {
        match v {
            Json::Null => None,
            Json::String(s) => Some(s.clone()),
            other => {
                self.type_error(json_kind(other), type_name);
                None
            }
        }
    }

    /// `int64`.
    pub fn int64(&mut self, v: &Json) -> Option<i64> {
        match v {
            Json::Null => None,
            Json::Number(n) => {
                let text = number_text(n);
                match text.parse::<i64>() {
                    Ok(i) => Some(i),
                    Err(_) => {
                        self.type_error(&format!("number {text}"), "int64");
                        None
                    }
                }
            }
            other => {
                self.type_error(json_kind(other), "int64");
                None
            }
        }
    }

    /// `bool`.
    pub fn bool(&mut self, v: &Json) -> Option<bool> {
        match v {
            Json::Null => None,
            Json::Bool(b) => Some(*b),
            other => {
                self.type_error(json_kind(other), "bool");
                None
            }
        }
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
        assert_eq!(
            go_v(&json!({"a": [1, "x"], "b": 2.5})),
            "map[a:[1 x] b:2.5]"
        );
        assert_eq!(go_type(&json!([1])), "[]interface {}");
    }

    #[test]
    fn decoder_context_and_strict_paths() {
        let mut d = Decoder::new(true);
        let m = d.enter_field("ObjectMeta", "ownerReferences");
        let i = d.enter_index(0);
        d.unknown_field("foo");
        let f = d.enter_field("OwnerReference", "uid");
        assert_eq!(d.int64(&json!(1.5)), None);
        d.leave(f);
        d.leave(i);
        d.leave(m);
        d.unknown_field("bar");
        assert_eq!(
            d.type_error_text("x", "y"),
            "json: cannot unmarshal x into Go value of type y"
        );
        assert_eq!(
            d.finish(),
            Err("json: cannot unmarshal number 1.5 into Go struct field OwnerReference.ownerReferences.uid of type int64".to_owned())
        );
    }
}
