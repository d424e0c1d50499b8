//! Scalars as `sigs.k8s.io/yaml` reads them: map keys as JSON strings, Go's float texts, the
//! YAML 1.1 resolution of plain scalars and the surprises it holds.

use super::*;

/// How `sigs.k8s.io/yaml` writes a scalar map key as a JSON string.
pub(super) fn scalar_key_text(value: &Value) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Int(i) => Ok(i.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Float(f) => Ok(format_float_key(*f)),
        Value::Null => Err(
            "error converting YAML to JSON: unsupported map key of type: %!s(<nil>), key: <nil>"
                .to_owned(),
        ),
        Value::Seq(_) | Value::Map(_) => Err("yaml: invalid map key".to_owned()),
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)` for the values a YAML key can hold.
pub(super) fn format_float_key(f: f64) -> String {
    let f32v = f as f32;
    if f32v.is_nan() {
        return ".nan".to_owned();
    }
    if f32v.is_infinite() {
        return if f32v > 0.0 { ".inf" } else { "-.inf" }.to_owned();
    }
    crd_studio_gostd::strconv::format_float_g32(f32v)
}

pub(super) fn go_float_name(f: f64) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "+Inf"
    } else {
        "-Inf"
    }
}

/// A float as it reaches the server: Go's JSON encoder writes integral values below 1e21
/// without a fraction or exponent, and the server then decodes them as integers.
pub(super) fn json_number(f: f64) -> Value {
    if f.fract() == 0.0
        && f.abs() < 1e21
        && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f)
    {
        Value::Int(f as i64)
    } else {
        Value::Float(f)
    }
}

/// The result of resolving a plain scalar.
#[derive(Debug, PartialEq)]
pub(super) enum Resolved {
    Str,
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
}

/// go-yaml v2's `resolve` for a plain scalar, followed by the JSON round trip.
pub(super) fn resolve_plain(s: &str) -> Resolved {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return Resolved::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return Resolved::Bool(false)
        }
        ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Resolved::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Resolved::Float(f64::NEG_INFINITY),
        _ => {}
    }
    let Some(first) = s.chars().next() else {
        return Resolved::Null;
    };
    match first {
        '.' => match crd_studio_gostd::strconv::parse_float(s) {
            Some(f) => Resolved::Float(f),
            None => Resolved::Str,
        },
        '0'..='9' | '+' | '-' => {
            if looks_like_timestamp(s) {
                // A timestamp decoded into an interface stays the original string.
                return Resolved::Str;
            }
            let plain: String = s.chars().filter(|&c| c != '_').collect();
            if let Ok(i) = crd_studio_gostd::strconv::parse_int(&plain, 0) {
                return Resolved::Int(i);
            }
            if let Ok(u) = crd_studio_gostd::strconv::parse_uint(&plain, 0) {
                // Too big for int64: the server's JSON decoder makes it a float.
                return Resolved::Float(u as f64);
            }
            if yaml_style_float(&plain) {
                if let Some(f) = crd_studio_gostd::strconv::parse_float(&plain) {
                    return Resolved::Float(f);
                }
            }
            if let Some(rest) = plain.strip_prefix("0b") {
                if let Ok(i) = crd_studio_gostd::strconv::parse_int(rest, 2) {
                    return Resolved::Int(i);
                }
            } else if let Some(rest) = plain.strip_prefix("-0b") {
                if let Ok(i) = crd_studio_gostd::strconv::parse_int(&format!("-{rest}"), 2) {
                    return Resolved::Int(i);
                }
            }
            Resolved::Str
        }
        _ => Resolved::Str,
    }
}

/// Integers YAML 1.1 reads differently from what JSON/YAML 1.2 readers expect.
pub(super) fn looks_surprising_int(text: &str) -> bool {
    let t = text.trim_start_matches(['+', '-']);
    text.contains('_')
        || t.starts_with("0b")
        || t.starts_with("0o")
        || (t.len() > 1 && t.starts_with('0') && !t.starts_with("0x") && !t.starts_with("0X"))
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
pub(super) fn yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while matches!(b.get(*i), Some(c) if c.is_ascii_digit()) {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// go-yaml v2's timestamp forms: `YYYY-MM-DD` optionally followed by a time.
pub(super) fn looks_like_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    // Go requires a 4-digit year, '-', then month and day (1 or 2 digits each).
    if b.len() < 8 {
        return false;
    }
    let year_ok = b.iter().take(4).all(u8::is_ascii_digit) && b.get(4) == Some(&b'-');
    if !year_ok {
        return false;
    }
    let rest = s.get(5..).unwrap_or("");
    let mut parts = rest.splitn(2, '-');
    let month = parts.next().unwrap_or("");
    let tail = parts.next().unwrap_or("");
    let day: String = tail.chars().take_while(char::is_ascii_digit).collect();
    let after = tail.get(day.len()..).unwrap_or("");
    let small = |p: &str| !p.is_empty() && p.len() <= 2 && p.bytes().all(|c| c.is_ascii_digit());
    if !small(month) || !small(&day) {
        return false;
    }
    // Date only, or date followed by 'T'/'t'/space and a time.
    after.is_empty() || (after.starts_with(['T', 't', ' ']) && after.len() > 1)
}
