//! Stage 4, the CRD: the typed `apiextensions.k8s.io/v1` model with spans, for the UI and
//! "not a CRD" findings ([`model`], re-exported here), and the server's internal CRD with
//! `ValidateCustomResourceDefinition` ([`apiext`]: decoding, defaulting, v1 → internal,
//! names, versions, subresources, columns, selectable fields, conversion, schemas, defaults;
//! hooks through which [`crate::cel`] compiles the rules).
//!
//! Uses [`crate::documents`], [`crate::schema`] and [`crate::object`] (defaults are pruned and
//! validated as objects are).

pub mod apiext;
pub mod model;

pub use model::*;
