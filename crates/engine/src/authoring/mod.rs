//! Stage 11, help while writing, read from a compiled CRD: completion and hover in both
//! editors and inside CEL rules, the fixes attached to findings ([`assist`]), `kubectl
//! explain` ([`explain`]) and sample objects ([`sample`]). Shells reach it through the front
//! door's methods on `CompiledCrd` (`complete`, `hover`, `explain`, `sample`).
//!
//! Uses the report (stage 10) and every earlier stage.

pub mod assist;
pub mod explain;
pub mod sample;
