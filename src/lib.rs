//! # crd-studio-web
//!
//! The CRD Studio page: a Yew app compiled to WebAssembly and served by Trunk. It holds no
//! Kubernetes logic; it sends the texts to the engine, which runs in a Web Worker (the same
//! wasm module, started by `static/worker.js`: `worker`, `worker_client`, and the protocol
//! in [`worker_protocol`]; [`worker_boundary`] is the only place that calls the engine), and
//! shows the findings.
//!
//! The same module is the playground that `static/crd-studio-embed.js` mounts into the
//! `<crd-studio>` elements of a docs page (`embed`, with [`embed_options`]).
//!
//! The page itself: `app` reads the address and renders a `studio`, the component that owns
//! the state its parts share (`studio_ctx`, over `studio_live`'s texts and settings,
//! `storage`'s autosave and `analyser`'s jobs); its parts are `status_view` (the verdict),
//! `settings_view` (field validation, Kubernetes version, theme), `share_view` (examples,
//! Share, Reset, Open in CRD Studio), `notices_view` (the messages and the confirmation
//! dialog), `editors_view` and `results_view` (the tabs; each tab's panel is a `*_view`,
//! laid out by its `*_model`). The analysis as shown is `shown::Shown`.
//!
//! The modules that touch the DOM only exist on `wasm32`; [`view_model`], [`stored_model`],
//! [`cel_model`], [`gallery`] (the curated examples), [`embed_options`], [`theme`] (the
//! colour theme's choice), [`worker_protocol`] and [`worker_boundary`] compile everywhere, so
//! `cargo test` checks them natively.

pub mod assist;
pub mod cel_model;
pub mod changes_model;
pub mod embed_options;
pub mod explain_model;
pub mod gallery;
pub mod preview_model;
pub mod reply_delta;
pub mod stored_model;
pub mod studio_state;
pub mod theme;
pub mod versions_line;
pub mod view_model;
pub mod wire_json;
pub mod worker_boundary;
pub mod worker_protocol;

#[cfg(target_arch = "wasm32")]
mod analyser;
#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod cel_view;
#[cfg(target_arch = "wasm32")]
mod changes_view;
#[cfg(target_arch = "wasm32")]
mod conversion_view;
#[cfg(target_arch = "wasm32")]
mod copy_button;
#[cfg(target_arch = "wasm32")]
pub mod editor;
#[cfg(target_arch = "wasm32")]
pub mod editor_text;
#[cfg(target_arch = "wasm32")]
mod editors_view;
#[cfg(target_arch = "wasm32")]
pub mod embed;
#[cfg(target_arch = "wasm32")]
mod explain_view;
#[cfg(target_arch = "wasm32")]
mod get_view;
#[cfg(target_arch = "wasm32")]
mod notices_view;
#[cfg(target_arch = "wasm32")]
mod problems_view;
#[cfg(target_arch = "wasm32")]
mod results_view;
#[cfg(target_arch = "wasm32")]
mod settings_view;
#[cfg(target_arch = "wasm32")]
mod share_view;
#[cfg(target_arch = "wasm32")]
mod shown;
#[cfg(target_arch = "wasm32")]
mod splitter_view;
#[cfg(target_arch = "wasm32")]
mod status_view;
#[cfg(target_arch = "wasm32")]
mod storage;
#[cfg(target_arch = "wasm32")]
mod stored_view;
#[cfg(target_arch = "wasm32")]
mod studio;
#[cfg(target_arch = "wasm32")]
mod studio_ctx;
#[cfg(target_arch = "wasm32")]
mod studio_live;
#[cfg(target_arch = "wasm32")]
mod tests_view;
#[cfg(target_arch = "wasm32")]
pub mod worker;
#[cfg(target_arch = "wasm32")]
pub mod worker_client;

#[cfg(target_arch = "wasm32")]
pub use app::App;
#[cfg(target_arch = "wasm32")]
pub use storage::{BACKUP_KEY, CRD_KEY, FIELD_VALIDATION_KEY, OBJECT_KEY, OLD_OBJECT_KEY};
#[cfg(target_arch = "wasm32")]
pub use studio::{Studio, StudioProps};
#[cfg(target_arch = "wasm32")]
pub use studio_ctx::Notice;
