//! Stage 10, the report: the analysis ([`analysis`]: `Request`, `Options`, `CompiledCrd`, the
//! `Analysis` and its reports, server errors turned into located findings) and `kubectl get
//! -f` over the analysed objects ([`get`]). The fixes on its findings are added by the front
//! door (`crate::api`) from the authoring stage, which comes after this one.
//!
//! Uses every earlier stage.

pub mod analysis;
pub mod get;
pub mod places;

// `CompiledCrd::recompile` against a fresh compile, `document::reparse_tracked` against `parse`.
#[cfg(test)]
#[path = "tests/incremental.rs"]
mod incremental_tests;
