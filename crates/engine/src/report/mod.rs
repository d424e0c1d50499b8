//! Stage 10, the report: the public API ([`analysis`]: `Request`, `Options`, `CompiledCrd`,
//! `analyze`, the `Analysis` and its reports, server errors turned into located findings),
//! `kubectl get -f` over the analysed objects ([`get`]), and help while writing (issue 15):
//! completion, hover and fixes ([`assist`]), `kubectl explain` ([`explain`]) and sample objects
//! ([`sample`]).
//!
//! Uses every earlier stage.

pub mod analysis;
pub mod assist;
pub mod explain;
pub mod get;
pub mod sample;
