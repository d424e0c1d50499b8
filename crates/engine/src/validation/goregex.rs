//! Go's `regexp` (RE2 syntax and error texts) on the `regex` crate: one implementation, shared
//! with the CEL crate (which also needs `find`/`findAll`), re-exported here for the OpenAPI
//! `pattern` keyword and the format checkers.

pub use cel_core::goregex::*;
