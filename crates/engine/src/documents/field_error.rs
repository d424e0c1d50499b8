//! `field.Error` from `k8s.io/apimachinery/pkg/util/validation/field`: the server's error
//! type, path, bad value and detail, rendered exactly as its `Error()` method does.

use serde_json::Value as Json;

use crate::documents::finding::{ErrorType, Finding, Severity};
use crate::documents::path::FieldPath;

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
            BadValue::Str(s) => Some(crd_studio_gostd::strconv::quote(s)),
            BadValue::Int(i) => Some(i.to_string()),
            BadValue::Float(f) => Some(crd_studio_gostd::strconv::format_float_g(*f)),
            BadValue::Bool(b) => Some(b.to_string()),
            BadValue::Json(j) => Some(crd_studio_gostd::json::marshal(j)),
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
            let quoted: Vec<String> = valid
                .iter()
                .map(|v| crd_studio_gostd::strconv::quote(v))
                .collect();
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

    /// What is wrong in plain words, on one line ([`Finding::summary`]): `path` is the field
    /// as the user wrote it (empty for the object itself), the bad value is shown as readable
    /// text (a CEL rule as its expression, JSON without Go's HTML escapes) and only the first
    /// line of the detail is kept (a caret diagram stays in the exact text).
    pub fn summary(&self, path: &str) -> String {
        self.summary_with(path, true)
    }

    /// [`FieldError::summary`] without the bad value, for errors whose value only names a
    /// type (a failed CEL rule's `"object"`).
    pub fn summary_without_value(&self, path: &str) -> String {
        self.summary_with(path, false)
    }

    fn summary_with(&self, path: &str, show_value: bool) -> String {
        let subject = if path.is_empty() || path == "<nil>" {
            "the object".to_owned()
        } else {
            path.to_owned()
        };
        let detail = plain_detail(&self.detail);
        let with_detail = |head: String, sep: &str| {
            if detail.is_empty() {
                head
            } else {
                format!("{head}{sep}{detail}")
            }
        };
        // A type error's value is the type found, already in the plain detail.
        let value = if show_value && !detail.starts_with("must be of type ") {
            readable_value(&self.bad_value)
        } else {
            None
        };
        match self.error_type {
            ErrorType::FieldValueRequired => with_detail(format!("{subject} is required"), ": "),
            ErrorType::FieldValueForbidden => {
                with_detail(format!("{subject} is not allowed"), ": ")
            }
            ErrorType::FieldValueTooLong => with_detail(format!("{subject} is too long"), ": "),
            ErrorType::FieldValueTooMany => match value {
                Some(v) => with_detail(format!("{subject} has too many items ({v})"), ": "),
                None => with_detail(format!("{subject} has too many items"), ": "),
            },
            ErrorType::FieldValueDuplicate => match value {
                Some(v) => with_detail(format!("{subject} holds the value {v} twice"), ": "),
                None => with_detail(format!("{subject} holds a value twice"), ": "),
            },
            ErrorType::FieldValueNotFound => match value {
                Some(v) => with_detail(format!("{subject}: {v} was not found"), ": "),
                None => with_detail(format!("{subject} was not found"), ": "),
            },
            ErrorType::FieldValueNotSupported => match value {
                Some(v) => with_detail(format!("{subject}: the value {v} is not supported"), "; "),
                None => with_detail(format!("{subject}: the value is not supported"), "; "),
            },
            ErrorType::InternalError => with_detail(format!("{subject}: internal error"), ": "),
            ErrorType::FieldValueInvalid | ErrorType::FieldValueTypeInvalid => {
                if let Some(rule) = rule_text(&self.bad_value) {
                    let rule = shorten(&rule, 120);
                    return match detail.strip_prefix("does not compile: ") {
                        Some(why) => {
                            format!("{subject}: the rule `{rule}` does not compile: {why}")
                        }
                        None if detail.is_empty() => {
                            format!("{subject}: the rule `{rule}` is invalid")
                        }
                        None => format!("{subject}: the rule `{rule}`: {detail}"),
                    };
                }
                match (value, detail.is_empty()) {
                    (Some(v), true) => format!("{subject} has an invalid value {v}"),
                    // The detail often quotes the value already.
                    (Some(v), false) if detail.contains(v.as_str()) => {
                        format!("{subject}: {detail}")
                    }
                    (Some(v), false) => format!("{subject}: {detail} (the value is {v})"),
                    (None, true) => format!("{subject} has an invalid value"),
                    (None, false) => format!("{subject}: {detail}"),
                }
            }
        }
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

/// The expression of a bad value that is an `x-kubernetes-validations` rule (the server
/// prints the Go struct `{"Rule":"…","Message":"",…}`).
fn rule_text(v: &BadValue) -> Option<String> {
    let parsed;
    let json = match v {
        BadValue::Json(j) => j,
        BadValue::Raw(text) => {
            parsed = serde_json::from_str::<Json>(text).ok()?;
            &parsed
        }
        _ => return None,
    };
    json.get("Rule").and_then(Json::as_str).map(str::to_owned)
}

/// A bad value as a person reads it: strings quoted, JSON without Go's `\u003c` escapes,
/// long values cut; `None` when the server prints none.
fn readable_value(v: &BadValue) -> Option<String> {
    let text = match v {
        BadValue::Omit => return None,
        BadValue::Json(j) => serde_json::to_string(j).unwrap_or_default(),
        // Go's JSON (`\u003c` for `<`), read back and written plainly; other text as is.
        BadValue::Raw(text) => match serde_json::from_str::<Json>(text) {
            Ok(j) => serde_json::to_string(&j).unwrap_or_default(),
            Err(_) => text.clone(),
        },
        BadValue::Str(s) => serde_json::to_string(s).unwrap_or_default(),
        other => other.render()?,
    };
    Some(shorten(&text, 80))
}

/// `s` cut to `max` characters, with `…` when cut.
pub fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The first line of a detail, with a CEL compile error's `compilation failed: ERROR:
/// <input>:L:C: ` worded as `does not compile: ` (the caret diagram below it is left to the
/// exact text).
fn plain_detail(detail: &str) -> String {
    let mut first = detail.lines().next().unwrap_or("").trim_end();
    // kube-openapi repeats the path: `spec.x in body must be …`.
    if let Some((_, rest)) = first.split_once(" in body ") {
        first = rest;
    }
    // `must be of type string: "integer"` names the type found.
    if let Some((want, found)) = first
        .strip_prefix("must be of type ")
        .and_then(|r| r.split_once(": "))
    {
        return format!("must be of type {want}, not {}", found.trim_matches('"'));
    }
    let (before, rest) = match first.split_once("compilation failed: ") {
        Some(parts) => parts,
        None => return first.to_owned(),
    };
    let rest = match rest.strip_prefix("ERROR: <input>:") {
        // Skip `L:C: `.
        Some(r) => r.splitn(3, ':').nth(2).map(str::trim_start).unwrap_or(r),
        None => rest,
    };
    match before {
        "" => format!("does not compile: {rest}"),
        "rule compile error: " => format!("the rule does not compile: {rest}"),
        "messageExpression compile error: " => {
            format!("the messageExpression does not compile: {rest}")
        }
        other => format!("{other}does not compile: {rest}"),
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
    fn summaries_in_plain_words() {
        let p = |s: &str| FieldPath::parse(s);
        let rule = BadValue::Raw(
            "{\"Rule\":\"self.szie \\u003c= 10\",\"Message\":\"\",\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}".to_owned(),
        );
        let cases: Vec<(FieldError, &str, &str)> = vec![
            (FieldError::required(p("spec.image"), ""), "spec.image", "spec.image is required"),
            (
                FieldError::required(p("metadata.name"), "name or generateName is required"),
                "metadata.name",
                "metadata.name is required: name or generateName is required",
            ),
            (FieldError::forbidden(p("a"), "not allowed here"), "a", "a is not allowed: not allowed here"),
            (FieldError::too_long(p("a"), 3), "a", "a is too long: may not be more than 3 bytes"),
            (FieldError::too_many(p("a"), 3, 1), "a", "a has too many items (3): must have at most 1 item"),
            (FieldError::duplicate(p("a[1]"), BadValue::Str("x".into())), "a[1]", "a[1] holds the value \"x\" twice"),
            (
                FieldError::not_supported(p("m"), BadValue::Str("C".into()), &["A", "B"]),
                "m",
                "m: the value \"C\" is not supported; supported values: \"A\", \"B\"",
            ),
            (
                FieldError::invalid(p("spec.r"), BadValue::Int(20), "should be less than or equal to 10"),
                "spec.r",
                "spec.r: should be less than or equal to 10 (the value is 20)",
            ),
            (
                FieldError::invalid(
                    p("spec.c"),
                    BadValue::Str("integer".into()),
                    "spec.c in body must be of type string: \"integer\"",
                ),
                "spec.c",
                "spec.c: must be of type string, not integer",
            ),
            (
                FieldError::invalid(p("spec.n"), BadValue::Str("ab".into()), "spec.n in body should match '^a$'"),
                "spec.n",
                "spec.n: should match '^a$' (the value is \"ab\")",
            ),
            (
                FieldError::invalid(p("spec.q"), BadValue::Str("ab".into()), "\"ab\" is not a valid name"),
                "spec.q",
                "spec.q: \"ab\" is not a valid name",
            ),
            (
                FieldError::invalid(p("s"), BadValue::Json(serde_json::json!({"a": "<x>"})), ""),
                "s",
                "s has an invalid value {\"a\":\"<x>\"}",
            ),
            (FieldError::invalid(FieldPath::root(), BadValue::Null, "oops"), "", "the object: oops (the value is null)"),
            (
                FieldError::invalid(
                    p("spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule"),
                    rule.clone(),
                    "compilation failed: ERROR: <input>:1:6: undefined field 'szie'\n | self.szie <= 10\n | .....^",
                ),
                "spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule",
                "spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: the rule `self.szie <= 10` does not compile: undefined field 'szie'",
            ),
            (
                FieldError::invalid(p("r"), rule, "estimated rule cost exceeds budget by factor of 2x"),
                "r",
                "r: the rule `self.szie <= 10`: estimated rule cost exceeds budget by factor of 2x",
            ),
            (
                FieldError::invalid(
                    p("spec.c"),
                    BadValue::Str("string".into()),
                    "rule compile error: compilation failed: ERROR: <input>:1:6: undefined field 'szie'\n | self.szie\n | .....^",
                ),
                "spec.c",
                "spec.c: the rule does not compile: undefined field 'szie' (the value is \"string\")",
            ),
        ];
        for (e, path, want) in cases {
            assert_eq!(e.summary(path), want, "{}", e.error());
        }
        let e = FieldError::invalid(
            p("spec.c"),
            BadValue::Str("string".into()),
            "rule compile error: compilation failed: ERROR: <input>:1:6: undefined field 'szie'",
        );
        assert_eq!(
            e.summary_without_value("spec.c"),
            "spec.c: the rule does not compile: undefined field 'szie'"
        );
        // The exact text keeps Go's escapes and every line.
        assert!(e.error().contains("ERROR: <input>:1:6:"));
    }
}
