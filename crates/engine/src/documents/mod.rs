//! Stage 1, documents: texts become value trees that keep their positions. YAML/JSON as
//! `sigs.k8s.io/yaml` reads it ([`document`], over libyaml through [`yaml_events`]), byte ↔
//! line/column mapping ([`position`]), a scalar's characters back to the text
//! ([`scalar_pos`]), the server's field paths and where they point ([`path`]), and the report
//! types every later stage fills: [`finding::Finding`] and apimachinery's `field.Error`
//! ([`field_error`]); [`json_text::JsonText`], the compact form reports keep objects in.
//!
//! Uses no other stage.

pub mod document;
pub mod field_error;
pub mod finding;
pub mod json_text;
pub mod kube_version;
pub mod path;
pub mod position;
pub mod scalar_pos;
pub mod yaml_events;
