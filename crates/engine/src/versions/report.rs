//! The report types the versions stage fills, which the [`crate::report`] stage returns:
//! located server field errors ([`FieldErrorReport`], first needed by conversion's checks)
//! and objects as each served version returns them ([`ServedObject`]).

use serde::{Deserialize, Serialize};

use crate::documents::field_error::FieldError;
use crate::documents::finding::{ErrorType, Location};
use crate::documents::json_text::JsonText;

/// One `field.Error` as the oracle writes it, plus where it is in the user's text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldErrorReport {
    /// The error type, e.g. `FieldValueRequired`.
    #[serde(rename = "type")]
    pub error_type: ErrorType,
    /// The field path.
    pub field: String,
    /// The detail.
    pub detail: String,
    /// The full `Error()` text.
    pub error: String,
    /// 1-based line in the user's text, when located.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column in the user's text, when located.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl FieldErrorReport {
    /// The report of a server field error found at `location`.
    pub fn from_field_error(e: &FieldError, location: Option<Location>) -> FieldErrorReport {
        let field = e.field.to_string();
        FieldErrorReport {
            error_type: e.error_type,
            field: if field.is_empty() {
                "<nil>".to_owned()
            } else {
                field
            },
            detail: e.detail.clone(),
            error: e.error(),
            line: location.map(|l| l.span.start.line),
            column: location.map(|l| l.span.start.column),
        }
    }
}

/// An object as one served version returns it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServedObject {
    /// The version.
    pub version: String,
    /// The object as read in that version.
    pub object: JsonText,
    /// Fields lost on the way: those the storage version's schema drops on write, then those
    /// the read version's schema drops.
    pub pruned_paths: Vec<String>,
    /// How many of [`ServedObject::pruned_paths`] (the first ones) the storage version's
    /// schema dropped on write; the rest the read version's schema dropped.
    #[serde(default)]
    pub pruned_on_write: usize,
    /// Fields the storage version's defaults set when the object is read.
    pub defaulted_paths: Vec<String>,
}
