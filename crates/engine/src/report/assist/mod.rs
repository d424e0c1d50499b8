//! Help while writing (placeholder)
pub mod yaml_context;
