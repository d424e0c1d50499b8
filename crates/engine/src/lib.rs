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

// The pipeline's stages, in order (one group each, so that rustfmt keeps the order): a stage
// uses earlier stages only; `tests/stages.rs` checks it, ARCHITECTURE.md has the map.

// 1. YAML/JSON texts → trees with positions; field paths; findings and field errors.
pub mod documents;

// 2. Decoded schemas and their structural form.
pub mod schema;

// 3. One object against a schema: pruning, defaulting, validation, list types, ObjectMeta.
pub mod object;

// 4. The CRD: typed model, internal CRD and its validation.
pub mod crd;

// 5. CEL rules: declared types, compiler, validator, costs.
pub mod cel;

// 6. What `kubectl get` shows: JSONPath, tables, field selectors, /scale.
pub mod printing;

// 7. The per-object pipeline in the server's order.
pub mod pipeline;

// 8. Versions and conversion.
pub mod versions;

// 9. Changes between two revisions of a CRD (breaking-change analysis).
pub mod crd_diff;

// 10. The public API: compiled CRD, analysis, reports.
pub mod report;

// The modules by their names before the stage folders, for callers.
pub use crd::apiext;
pub use documents::{
    document, field_error, finding, kube_version, path, position, scalar_pos, yaml_events,
};
pub use object::{defaulting, listtype, objectmeta, pruning, validation};
pub use printing::{field_selector, jsonpath, scale, table};
pub use report::{analysis, get, places};
pub use versions::{authored_conversion, conversion};

/// CEL's time-zone database (named zones), given by the caller: see
/// [`CompiledCrd::set_time_zones`].
pub use cel_core::tz::TimeZoneDb;

pub use analysis::{
    analyze, analyze_with_time_zones, rule_key, Analysis, CelOutcome, CelRuleReport, CelRuleResult,
    CompiledCrd, CrdReport, FieldErrorReport, FieldValidation, ObjectReport, Options, Progress,
    Request, TableRow, VersionReport,
};
pub use documents::json_text::JsonText;
pub use finding::{ErrorType, Finding, Location, Severity, SourceId};
pub use path::FieldPath;
pub use position::{Pos, Span};
