//! Stage 6, printing: what `kubectl get` shows. client-go's JSONPath ([`jsonpath`]), the
//! CRD table convertor and kubectl's printer ([`table`]), `--field-selector`
//! ([`field_selector`]) and the `/scale` subresource ([`scale`]).
//!
//! Uses [`crate::documents`], [`crate::schema`], [`crate::object`] and [`crate::crd`].

pub mod field_selector;
pub mod jsonpath;
pub mod scale;
pub mod table;
