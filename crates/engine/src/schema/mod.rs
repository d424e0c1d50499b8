//! Stage 2, schemas: the CRD's OpenAPI v3 schema as decoded ([`props`]) and its structural
//! form ([`structural`]), which pruning, defaulting and validation walk.
//!
//! Uses [`crate::documents`].

pub mod props;
pub mod structural;

pub use props::JsonSchemaProps;
pub use structural::Structural;
