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
// uses earlier stages only; `tests/stages.rs` checks it, ARCHITECTURE.md has the map. The
// stages are private: every caller (the CLI, the page, xtask, the fuzz targets, the
// integration tests) goes through the front door (stage 12, exported below); the conformance
// harness's engine side is in it, behind the feature `conformance`.

// 1. YAML/JSON texts → trees with positions; field paths; findings and field errors.
mod documents;

// 2. Decoded schemas and their structural form.
mod schema;

// 3. One object against a schema: pruning, defaulting, validation, list types, ObjectMeta.
mod object;

// 4. The CRD: typed model, internal CRD and its validation.
mod crd;

// 5. CEL rules: declared types, compiler, validator, costs.
mod cel;

// 6. What `kubectl get` shows: JSONPath, tables, field selectors, /scale.
mod printing;

// 7. The per-object pipeline in the server's order.
mod pipeline;

// 8. Versions and conversion.
mod versions;

// 9. Changes between two revisions of a CRD (breaking-change analysis).
mod crd_diff;

// 10. The report: compiled CRD, analysis, reports, `kubectl get -f`.
mod report;

// 11. Authoring help: completion, hover, fixes, explain, samples.
mod authoring;

// 12. The front door: the public API, everything a shell needs.
mod api;

pub use api::*;
