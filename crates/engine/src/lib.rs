//! # crd-studio-engine
//!
//! What the Kubernetes API server does with a CustomResourceDefinition and its objects, as
//! pure functions: texts and options in, an [`Analysis`] out. No I/O, no clock, no randomness,
//! no global state, and no panics on user input: every problem is a [`Finding`] with the
//! server's field path and message and a location in the user's text.
//!
//! Start at [`analyze`], or [`CompiledCrd`] to reuse one CRD for many object analyses.

#![deny(unsafe_code)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

pub mod analysis;
pub mod apiext;
pub mod authored_conversion;
pub mod cel;
pub mod conversion;
pub mod crd;
pub mod defaulting;
pub mod document;
pub mod field_error;
pub mod field_selector;
pub mod finding;
pub mod get;
pub mod jsonpath;
pub mod listtype;
pub mod objectmeta;
pub mod path;
pub mod pipeline;
pub mod position;
pub mod pruning;
pub mod scalar_pos;
pub mod scale;
pub mod schema;
pub mod table;
pub mod validation;
pub mod versions;
pub mod yaml_events;

/// CEL's time-zone database (named zones), given by the caller: see
/// [`CompiledCrd::set_time_zones`].
pub use cel_core::tz::TimeZoneDb;

pub use analysis::{
    analyze, analyze_with_time_zones, rule_key, Analysis, CelOutcome, CelRuleReport, CelRuleResult,
    CompiledCrd, CrdReport, FieldErrorReport, FieldValidation, ObjectReport, Options, Request,
    TableRow, VersionReport,
};
pub use finding::{ErrorType, Finding, Location, Severity, SourceId};
pub use path::FieldPath;
pub use position::{Pos, Span};
