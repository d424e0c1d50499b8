//! Go's `encoding/json` output (`json.Marshal`), which `field.Error` uses to print bad values
//! that are neither strings nor plain numbers: lists of names, internal structs (whose Go field
//! names are the JSON keys, since the internal API types have no JSON tags), byte slices.

use serde_json::Value as Json;

/// A JSON string as Go writes it: `"`, `\` and control characters escaped, and `<`, `>`, `&`,
/// U+2028 and U+2029 escaped as `\u003c`, ... (Go escapes HTML characters by default).
pub fn string(s: &str) -> String {
    crate::objectmeta::gojson::string_text(s)
}

/// A float64 as Go's `encoding/json` writes it: plain decimal digits (shortest round trip),
/// or exponent form (`1e+21`, `1e-7`) below 1e-6 or from 1e21 on.
pub fn float(f: f64) -> String {
    if !f.is_finite() {
        // json.Marshal fails on these; the caller then falls back to `%#v`.
        return crate::field_error::go_float_v(f);
    }
    crate::objectmeta::gojson::float_text(f)
}

/// A decoded JSON value (`interface{}`) as Go writes it: object keys sorted.
pub fn value(v: &Json) -> String {
    crate::objectmeta::gojson::marshal(v)
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
    string(&base64_encode(b))
}

/// Standard base64 with padding.
pub fn base64_encode(b: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(b.len().div_ceil(3) * 4);
    for chunk in b.chunks(3) {
        let b0 = chunk.first().copied().unwrap_or(0) as u32;
        let b1 = chunk.get(1).copied().unwrap_or(0) as u32;
        let b2 = chunk.get(2).copied().unwrap_or(0) as u32;
        let n = (b0 << 16) | (b1 << 8) | b2;
        let idx = |shift: u32| ALPHABET.get(((n >> shift) & 63) as usize).copied();
        for (i, shift) in [18u32, 12, 6, 0].iter().enumerate() {
            if i <= chunk.len() {
                if let Some(c) = idx(*shift) {
                    out.push(c as char);
                }
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Go's `base64.StdEncoding.DecodeString` (which `encoding/json` uses for `[]byte`): standard
/// alphabet, padding required, `\r` and `\n` ignored. `None` when the text is not base64.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let clean: Vec<u8> = s.bytes().filter(|b| *b != b'\r' && *b != b'\n').collect();
    if !clean.len().is_multiple_of(4) {
        return None;
    }
    let val = |c: u8| -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some((c - b'A') as u32),
            b'a'..=b'z' => Some((c - b'a') as u32 + 26),
            b'0'..=b'9' => Some((c - b'0') as u32 + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    };
    let mut out = Vec::with_capacity(clean.len() / 4 * 3);
    let chunks: Vec<&[u8]> = clean.chunks(4).collect();
    for (ci, chunk) in chunks.iter().enumerate() {
        let last = ci + 1 == chunks.len();
        let pad = chunk.iter().rev().take_while(|c| **c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            let v = if i >= 4 - pad { 0 } else { val(*c)? };
            n = (n << 6) | v;
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(bytes.get(..3 - pad).unwrap_or(&[]));
    }
    Some(out)
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
    fn strings_and_numbers_like_go() {
        assert_eq!(string("a<b>&\"\n"), r#""a\u003cb\u003e\u0026\"\n""#);
        assert_eq!(float(1.5), "1.5");
        assert_eq!(float(100.0), "100");
        assert_eq!(float(1e21), "1e+21");
        assert_eq!(float(1.5e-7), "1.5e-7");
        assert_eq!(float(0.000001), "0.000001");
        assert_eq!(
            value(&json!({"b": [1, 2.5, null], "a": "x"})),
            r#"{"a":"x","b":[1,2.5,null]}"#
        );
        assert_eq!(strings(&["v1".into(), "v2".into()]), r#"["v1","v2"]"#);
        assert_eq!(strings(&[]), "null");
    }

    #[test]
    fn base64_round_trip() {
        assert_eq!(base64_encode(b"\n"), "Cg==");
        assert_eq!(base64_encode(b"abcd"), "YWJjZA==");
        assert_eq!(base64_decode("YWJjZA==").as_deref(), Some(&b"abcd"[..]));
        assert_eq!(base64_decode("Cg==").as_deref(), Some(&b"\n"[..]));
        assert_eq!(base64_decode("-----BEGIN"), None);
        assert_eq!(bytes(b"\n"), "\"Cg==\"");
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
