//! `field.Error` from `k8s.io/apimachinery/pkg/util/validation/field`: the server's error
//! type, path, bad value and detail, rendered exactly as its `Error()` method does.

use serde_json::Value as Json;

use crate::finding::{ErrorType, Finding, Severity};
use crate::path::FieldPath;

/// The bad value of a field error, kept as the Go value it would be, so it prints the same.
#[derive(Clone, Debug, PartialEq)]
pub enum BadValue {
    /// No value is printed (`field.Required`, `Forbidden`, ... or `omitValue`).
    Omit,
    /// Go `nil`: prints `null`.
    Null,
    /// A Go string: printed quoted (`%q`).
    Str(String),
    /// A Go int64 or int32: printed with `%v`.
    Int(i64),
    /// A Go float64: printed with `%v`.
    Float(f64),
    /// A Go bool.
    Bool(bool),
    /// Any other value (maps, slices, structs): printed as Go's `json.Marshal` writes it.
    Json(Json),
    /// Text already formatted as the server prints it.
    Raw(String),
}

impl BadValue {
    /// The bad value for a JSON value as the server holds it in an unstructured object.
    pub fn from_json(v: &Json) -> BadValue {
        match v {
            Json::Null => BadValue::Null,
            Json::Bool(b) => BadValue::Bool(*b),
            Json::String(s) => BadValue::Str(s.clone()),
            Json::Number(n) => match n.as_i64() {
                Some(i) => BadValue::Int(i),
                None => BadValue::Float(n.as_f64().unwrap_or(0.0)),
            },
            other => BadValue::Json(other.clone()),
        }
    }

    /// The text the server writes for the value, or `None` when no value is printed.
    pub fn render(&self) -> Option<String> {
        match self {
            BadValue::Omit => None,
            BadValue::Null => Some("null".to_owned()),
            BadValue::Str(s) => Some(go_quote(s)),
            BadValue::Int(i) => Some(i.to_string()),
            BadValue::Float(f) => Some(go_float_v(*f)),
            BadValue::Bool(b) => Some(b.to_string()),
            BadValue::Json(j) => Some(crate::objectmeta::gojson::marshal(j)),
            BadValue::Raw(s) => Some(s.clone()),
        }
    }
}

/// A server field error.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// The error type.
    pub error_type: ErrorType,
    /// The field path.
    pub field: FieldPath,
    /// The bad value.
    pub bad_value: BadValue,
    /// The detail.
    pub detail: String,
}

impl FieldError {
    /// A field error.
    pub fn new(
        error_type: ErrorType,
        field: FieldPath,
        bad_value: BadValue,
        detail: impl Into<String>,
    ) -> FieldError {
        FieldError {
            error_type,
            field,
            bad_value,
            detail: detail.into(),
        }
    }

    /// `field.Required(path, detail)`.
    pub fn required(field: FieldPath, detail: impl Into<String>) -> FieldError {
        FieldError::new(ErrorType::FieldValueRequired, field, BadValue::Omit, detail)
    }

    /// `field.Invalid(path, value, detail)`.
    pub fn invalid(field: FieldPath, value: BadValue, detail: impl Into<String>) -> FieldError {
        FieldError::new(ErrorType::FieldValueInvalid, field, value, detail)
    }

    /// `field.Forbidden(path, detail)`.
    pub fn forbidden(field: FieldPath, detail: impl Into<String>) -> FieldError {
        FieldError::new(
            ErrorType::FieldValueForbidden,
            field,
            BadValue::Omit,
            detail,
        )
    }

    /// `field.Duplicate(path, value)`.
    pub fn duplicate(field: FieldPath, value: BadValue) -> FieldError {
        FieldError::new(ErrorType::FieldValueDuplicate, field, value, "")
    }

    /// `field.NotSupported(path, value, validValues)`: the detail lists the supported values,
    /// each quoted, as the server words it.
    pub fn not_supported(field: FieldPath, value: BadValue, valid: &[&str]) -> FieldError {
        let detail = if valid.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = valid.iter().map(|v| go_quote(v)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        FieldError::new(ErrorType::FieldValueNotSupported, field, value, detail)
    }

    /// `field.TooLong(path, value, maxLength)`.
    pub fn too_long(field: FieldPath, max_length: i64) -> FieldError {
        let detail = match max_length {
            1 => "may not be more than 1 byte".to_owned(),
            n if n >= 0 => format!("may not be more than {n} bytes"),
            _ => "value is too long".to_owned(),
        };
        FieldError::new(ErrorType::FieldValueTooLong, field, BadValue::Omit, detail)
    }

    /// `field.TooMany(path, actual, max)`.
    pub fn too_many(field: FieldPath, actual: i64, max: i64) -> FieldError {
        let detail = match max {
            1 => "must have at most 1 item".to_owned(),
            n if n >= 0 => format!("must have at most {n} items"),
            _ => "has too many items".to_owned(),
        };
        let value = if actual >= 0 {
            BadValue::Int(actual)
        } else {
            BadValue::Omit
        };
        FieldError::new(ErrorType::FieldValueTooMany, field, value, detail)
    }

    /// `field.InternalError(path, err)`.
    pub fn internal(field: FieldPath, detail: impl Into<String>) -> FieldError {
        FieldError::new(ErrorType::InternalError, field, BadValue::Omit, detail)
    }

    /// `ErrorBody()`: the message without the path.
    pub fn body(&self) -> String {
        let t = self.error_type.text();
        let mut s = match self.error_type {
            ErrorType::FieldValueRequired
            | ErrorType::FieldValueForbidden
            | ErrorType::FieldValueTooLong
            | ErrorType::InternalError => t.to_owned(),
            _ => match self.bad_value.render() {
                Some(v) => format!("{t}: {v}"),
                None => t.to_owned(),
            },
        };
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }

    /// `Error()`: `<path>: <body>`; an empty path prints as `<nil>`.
    pub fn error(&self) -> String {
        let path = self.field.to_string();
        let path = if path.is_empty() {
            "<nil>".to_owned()
        } else {
            path
        };
        format!("{path}: {}", self.body())
    }

    /// The error as a [`Finding`] with the given code (location still to be set).
    pub fn to_finding(&self, code: &str) -> Finding {
        let mut f = Finding::new(Severity::Error, code, self.error());
        f.error_type = Some(self.error_type);
        let path = self.field.to_string();
        f.field = Some(if path.is_empty() {
            "<nil>".to_owned()
        } else {
            path
        });
        f.detail = Some(self.detail.clone());
        f
    }
}

/// Go's `strconv.Quote`: printable characters as they are, the rest escaped.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() || c == '\u{feff}' => {
                let n = c as u32;
                if n <= 0xffff {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `%v` for a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`): the shortest digits that
/// round-trip, in exponent form when the decimal exponent is below -4 or at least 6.
pub fn go_float_v(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    // Rust's `{:e}` gives the shortest round-trip digits.
    let e = format!("{f:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let body = if !(-4..6).contains(&exp) {
        let mut m = String::new();
        let mut it = digits.chars();
        if let Some(c) = it.next() {
            m.push(c);
        }
        let rest: String = it.collect();
        if !rest.is_empty() {
            m.push('.');
            m.push_str(&rest);
        }
        format!(
            "{m}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.unsigned_abs()
        )
    } else if exp < 0 {
        format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            format!("{digits}{}", "0".repeat(int_len - digits.len()))
        } else {
            let (a, b) = digits.split_at(int_len);
            format!("{a}.{b}")
        }
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_apimachinery() {
        let p = FieldPath::parse("spec.replicas");
        assert_eq!(
            FieldError::required(p.clone(), "").error(),
            "spec.replicas: Required value"
        );
        assert_eq!(
            FieldError::invalid(p.clone(), BadValue::Str("x".into()), "must be an integer").error(),
            "spec.replicas: Invalid value: \"x\": must be an integer"
        );
        assert_eq!(
            FieldError::not_supported(p.clone(), BadValue::Str("Foo".into()), &["A", "B"]).error(),
            "spec.replicas: Unsupported value: \"Foo\": supported values: \"A\", \"B\""
        );
        assert_eq!(
            FieldError::invalid(FieldPath::root(), BadValue::Null, "oops").error(),
            "<nil>: Invalid value: null: oops"
        );
        assert_eq!(
            FieldError::forbidden(p, "not allowed").error(),
            "spec.replicas: Forbidden: not allowed"
        );
        assert_eq!(
            FieldError::invalid(
                FieldPath::parse("spec.ports"),
                BadValue::Json(serde_json::json!([{"a": "<x>"}, 1.5])),
                "bad"
            )
            .error(),
            "spec.ports: Invalid value: [{\"a\":\"\\u003cx\\u003e\"},1.5]: bad"
        );
        assert_eq!(
            FieldError::too_many(FieldPath::parse("a"), 3, 1).error(),
            "a: Too many: 3: must have at most 1 item"
        );
    }

    #[test]
    fn go_number_formatting() {
        assert_eq!(go_float_v(1.5), "1.5");
        assert_eq!(go_float_v(100000.0), "100000");
        assert_eq!(go_float_v(1e6), "1e+06");
        assert_eq!(go_float_v(1234567.0), "1.234567e+06");
        assert_eq!(go_float_v(1e21), "1e+21");
        assert_eq!(go_float_v(0.0001), "0.0001");
        assert_eq!(go_float_v(0.00001), "1e-05");
        assert_eq!(go_float_v(-2.25), "-2.25");
    }
}
