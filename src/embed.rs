//! Embedded playgrounds: the studios that `static/crd-studio-embed.js` mounts into the
//! `<crd-studio>` elements of a docs page, each in its element's shadow root.
//!
//! The script loads this module once per page (with `globalThis.__crdStudioEmbed` set, so
//! `main` renders nothing into the page), names the worker's assets
//! ([`crate::worker_client::configure_assets`]) and calls [`mount_embed`] for each element
//! as it scrolls into view. Every embed is a studio of its own name (`embed-1`, `embed-2`,
//! ...): the page's one worker keeps a compiled CRD per name, and an embed never reads or
//! writes the main page's autosave.

use std::rc::Rc;

use wasm_bindgen::prelude::*;
use web_sys::Element;
use yew::{AppHandle, AttrValue};

use crate::embed_options::{initial_state, EmbedOptions};
use crate::studio::{Studio, StudioProps};

/// The component an embed mounts: the studio, compact.
type Mounted = Studio;

/// A mounted playground. `destroy()` unmounts it and lets the worker drop its compiled CRD
/// (the script calls it when the element leaves the page).
#[wasm_bindgen]
pub struct EmbedHandle {
    app: Option<AppHandle<Mounted>>,
    name: String,
}

#[wasm_bindgen]
impl EmbedHandle {
    /// Unmounts the studio and forgets its CRD in the worker. Calling it again does nothing.
    pub fn destroy(&mut self) {
        if let Some(app) = self.app.take() {
            app.destroy();
            crate::worker_client::forget(&self.name);
        }
    }
}

/// Renders a studio named `name` (unique on the page) into `root` (an element in the
/// embed's shadow root), starting with the texts `crd` and `object` and the embed's
/// `options_json` ([`EmbedOptions`] as JSON). Unreadable options are ignored with a console
/// warning, as are values that are not understood: an embed always shows its texts.
#[wasm_bindgen]
pub fn mount_embed(
    root: Element,
    name: String,
    crd: String,
    object: String,
    options_json: &str,
) -> EmbedHandle {
    let options = serde_json::from_str::<EmbedOptions>(options_json).unwrap_or_else(|e| {
        gloo::console::warn!(format!(
            "<crd-studio>: unreadable options ({e}); using the defaults"
        ));
        EmbedOptions::default()
    });
    let (state, notes) = initial_state(crd, object, &options);
    for note in notes {
        gloo::console::warn!(format!("<crd-studio>: {note}"));
    }
    let props = StudioProps {
        name: AttrValue::from(name.clone()),
        initial: Some(Rc::new(state)),
        embed: true,
        lock_crd: options.lock_crd,
        open_url: AttrValue::from(options.open_url),
        notice: None,
        // The page around a drop-in embed sizes it itself.
        report_height: false,
    };
    let app = yew::Renderer::<Mounted>::with_root_and_props(root, props).render();
    EmbedHandle {
        app: Some(app),
        name,
    }
}
