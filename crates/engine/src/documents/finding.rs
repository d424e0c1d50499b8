//! The one finding type every part of the engine reports with.

use serde::{Deserialize, Serialize};

use crate::documents::position::Span;

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The server would reject the request.
    Error,
    /// The server would accept it, but warns (or the studio thinks the user should know).
    Warning,
    /// Context: what the server did, with no verdict attached.
    Info,
}

impl Severity {
    /// The lowercase word used in text output.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// The `k8s.io/apimachinery/pkg/util/validation/field` error types, named as the server
/// serialises them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ErrorType {
    /// "Not found".
    FieldValueNotFound,
    /// "Required value".
    FieldValueRequired,
    /// "Duplicate value".
    FieldValueDuplicate,
    /// "Invalid value".
    FieldValueInvalid,
    /// "Unsupported value".
    FieldValueNotSupported,
    /// "Forbidden".
    FieldValueForbidden,
    /// "Too long".
    FieldValueTooLong,
    /// "Too many".
    FieldValueTooMany,
    /// "Internal error".
    InternalError,
    /// "Invalid value" (a type mismatch).
    FieldValueTypeInvalid,
}

impl ErrorType {
    /// The text the server writes for this type (`field.ErrorType.String()`).
    pub fn text(self) -> &'static str {
        match self {
            ErrorType::FieldValueNotFound => "Not found",
            ErrorType::FieldValueRequired => "Required value",
            ErrorType::FieldValueDuplicate => "Duplicate value",
            ErrorType::FieldValueInvalid => "Invalid value",
            ErrorType::FieldValueNotSupported => "Unsupported value",
            ErrorType::FieldValueForbidden => "Forbidden",
            ErrorType::FieldValueTooLong => "Too long",
            ErrorType::FieldValueTooMany => "Too many",
            ErrorType::InternalError => "Internal error",
            ErrorType::FieldValueTypeInvalid => "Invalid value",
        }
    }
}

/// Which of the user's texts a location is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "index")]
pub enum SourceId {
    /// The CRD text.
    Crd,
    /// The n-th object text (0-based).
    Object(usize),
    /// The old object text (update path).
    OldObject,
    /// The old CRD text (CRD update path).
    OldCrd,
}

/// Where in the user's text a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Location {
    /// Which text.
    pub source: SourceId,
    /// Which YAML document of that text (0-based).
    pub document: usize,
    /// The range the finding is about.
    pub span: Span,
}

/// One thing the engine has to say: an error the server would return, a warning it would send,
/// or a note from the studio.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Error, warning or info.
    pub severity: Severity,
    /// A stable identifier of the rule that produced the finding, e.g. `yaml.syntax`.
    pub code: String,
    /// The server's error type, for findings the server reports as a `field.Error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_type: Option<ErrorType>,
    /// The server's field path (`field.Path.String()`), e.g. `spec.versions[0].name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The `detail` part of a `field.Error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The full message, exactly as the server words it where it has one
    /// (for a `field.Error`, its `Error()` text).
    pub message: String,
    /// Where the finding points in the user's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

impl Finding {
    /// A finding with a message and nothing else.
    pub fn new(severity: Severity, code: impl Into<String>, message: impl Into<String>) -> Finding {
        Finding {
            severity,
            code: code.into(),
            error_type: None,
            field: None,
            detail: None,
            message: message.into(),
            location: None,
        }
    }

    /// An error finding.
    pub fn error(code: impl Into<String>, message: impl Into<String>) -> Finding {
        Finding::new(Severity::Error, code, message)
    }

    /// A warning finding.
    pub fn warning(code: impl Into<String>, message: impl Into<String>) -> Finding {
        Finding::new(Severity::Warning, code, message)
    }

    /// Sets the location.
    pub fn at(mut self, location: Location) -> Finding {
        self.location = Some(location);
        self
    }

    /// Sets the location if there is one.
    pub fn at_opt(mut self, location: Option<Location>) -> Finding {
        self.location = location;
        self
    }

    /// Sets the server's field path.
    pub fn with_field(mut self, field: impl Into<String>) -> Finding {
        self.field = Some(field.into());
        self
    }

    /// The sort key used for stable output: source, document, line, column, then message.
    pub fn sort_key(&self) -> (Option<LocationKey>, &str, &str) {
        (
            self.location
                .map(|l| (l.source, l.document, l.span.start.line, l.span.start.column)),
            self.field.as_deref().unwrap_or(""),
            &self.message,
        )
    }
}

/// Source, document, line and column of a location, for sorting.
pub type LocationKey = (SourceId, usize, usize, usize);

/// Sorts findings by location, then field path, then message.
pub fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
}
