//! Stage 3, objects: what the server does to one object against a structural schema, each
//! step on its own: pruning ([`pruning`]), defaulting ([`defaulting`]), OpenAPI validation
//! with formats and ratcheting ([`validation`]), list types ([`listtype`]), and ObjectMeta
//! (read, write, coerce and validate: [`objectmeta`]). The per-object pipeline that runs them
//! in the server's order is [`crate::pipeline`].
//!
//! Uses [`crate::documents`] and [`crate::schema`].

pub mod defaulting;
pub mod listtype;
pub mod objectmeta;
pub mod pruning;
pub mod validation;
