//! Stage 9, the report: the public API ([`analysis`]: `Request`, `Options`, `CompiledCrd`,
//! `analyze`, the `Analysis` and its reports, server errors turned into located findings) and
//! `kubectl get -f` over the analysed objects ([`get`]).
//!
//! Uses every earlier stage.

pub mod analysis;
pub mod assist;
pub mod explain;
pub mod get;
pub mod places;
pub mod sample;
