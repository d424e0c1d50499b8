//! # crd-studio-web
//!
//! The CRD Studio page: a Yew app compiled to WebAssembly and served by Trunk. It holds no
//! Kubernetes logic; it sends the texts to the engine (through [`worker_boundary`], the only
//! place that calls it) and shows the findings.
//!
//! The modules that touch the DOM only exist on `wasm32`; [`view_model`], [`stored_view`],
//! [`cel_model`] and [`worker_boundary`] compile everywhere, so `cargo test` checks them natively.

pub mod cel_model;
pub mod preview_model;
pub mod stored_view;
pub mod view_model;
pub mod worker_boundary;

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod cel_view;
#[cfg(target_arch = "wasm32")]
mod conversion_view;
#[cfg(target_arch = "wasm32")]
pub mod editor;
#[cfg(target_arch = "wasm32")]
mod get_view;
#[cfg(target_arch = "wasm32")]
mod stored_panel;

#[cfg(target_arch = "wasm32")]
pub use app::{App, CRD_KEY, FIELD_VALIDATION_KEY, OBJECT_KEY, OLD_OBJECT_KEY};
