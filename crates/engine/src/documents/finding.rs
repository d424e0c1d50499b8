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
    /// What is wrong in plain words, on one line, with the path as the user wrote it (the
    /// CRD's v1 path where the server names its internal one) and Go values made readable
    /// (a CEL rule as its text): a headline above [`Finding::message`], which stays the
    /// server's exact text. `None` when the message already is the plain text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// A note about the findings around it rather than about a place in the text (the
    /// server's "rules were not checked" error, a default the server did not apply): editors
    /// mark nothing for it and lists show it after the other findings of its document; its
    /// location is only where a click goes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub note: bool,
    /// Repairs: each a set of text edits that removes this finding (and adds none), when the
    /// repair is obvious (`authoring::assist::fixes`, added by the front door).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<Fix>,
    /// The studio's note on a CEL name the selected Kubernetes version does not have yet
    /// (the server's "undeclared reference to 'isIP'"): the oldest version that has it
    /// (added by the front door, with the fixes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newer_version: Option<VersionNote>,
    /// Where the CRD error is that this object error only follows from (an object's "must be
    /// of type strin" under the schema node a CRD error is about, when the CRD is rejected):
    /// lists show it after its cause (added by the front door).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follows_from: Option<Location>,
}

/// A CEL function or macro that arrives in a later Kubernetes version than the selected one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionNote {
    /// The name, e.g. `isIP`.
    pub name: String,
    /// The oldest modelled server version that has it.
    pub available_from: crd_studio_cel::KubernetesVersion,
    /// The version the analysis modelled.
    pub selected: crd_studio_cel::KubernetesVersion,
    /// The note in plain words: "`isIP` is available from Kubernetes 1.31 (selected: 1.30)".
    pub text: String,
}

/// One repair of a finding: what it does, and the edits that do it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fix {
    /// What the repair does, e.g. "Change to `replicas`".
    pub title: String,
    /// The text the edits apply to, when not the finding's own (a CEL rule in the CRD
    /// repairing an object's finding).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceId>,
    /// The edits (non-overlapping).
    pub edits: Vec<TextEdit>,
}

/// A replacement of a span of a text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextEdit {
    /// What is replaced (empty: an insertion).
    pub span: Span,
    /// The new text.
    pub new_text: String,
}

/// `text` with the edits applied; `None` when they overlap or fall outside it.
pub fn apply_text_edits(text: &str, edits: &[TextEdit]) -> Option<String> {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    crd_studio_gostd::sort::stable_by_key(&mut sorted, |e| {
        (e.span.start.offset, e.span.end.offset)
    });
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in sorted {
        let (start, end) = (e.span.start.offset, e.span.end.offset);
        if start < at || end < start {
            return None;
        }
        out.push_str(text.get(at..start)?);
        text.get(start..end)?;
        out.push_str(&e.new_text);
        at = end;
    }
    out.push_str(text.get(at..)?);
    Some(out)
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
            summary: None,
            note: false,
            fixes: Vec::new(),
            newer_version: None,
            follows_from: None,
        }
    }

    /// An info finding (a studio note: what the server did, no verdict attached).
    pub fn info(code: impl Into<String>, message: impl Into<String>) -> Finding {
        Finding::new(Severity::Info, code, message)
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

    /// Sets the plain-words summary.
    pub fn with_summary(mut self, summary: impl Into<String>) -> Finding {
        self.summary = Some(summary.into());
        self
    }

    /// Makes the finding a note ([`Finding::note`]).
    pub fn as_note(mut self) -> Finding {
        self.note = true;
        self
    }

    /// The one-line headline of the finding: its summary, else the first line of its message.
    pub fn headline(&self) -> &str {
        match &self.summary {
            Some(s) => s,
            None => self.message.lines().next().unwrap_or(""),
        }
    }

    /// The sort key used for stable output: source, document, notes after the rest, line,
    /// column, then message.
    pub fn sort_key(&self) -> (Option<LocationKey>, &str, &str) {
        (
            self.location.map(|l| {
                (
                    l.source,
                    l.document,
                    self.note,
                    l.span.start.line,
                    l.span.start.column,
                )
            }),
            self.field.as_deref().unwrap_or(""),
            &self.message,
        )
    }
}

/// Source, document, whether the finding is a note, line and column, for sorting.
pub type LocationKey = (SourceId, usize, bool, usize, usize);

/// Sorts findings by location (a document's notes after its other findings), then field path,
/// then message.
pub fn sort_findings(findings: &mut [Finding]) {
    crd_studio_gostd::sort::stable_by(findings, |a, b| a.sort_key().cmp(&b.sort_key()));
}
