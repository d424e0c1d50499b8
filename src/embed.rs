//! Embedded playgrounds: the studios that `static/crd-studio-embed.js` mounts into the
//! `<crd-studio>` elements of a docs page, each in its element's shadow root.
//!
//! The script loads this module once per page (with `globalThis.__crdStudioEmbed` set, so
//! `main` renders nothing into the page), names the worker's assets
//! ([`crate::worker_client::configure_assets`]) and calls [`mount_embed`] for each element
//! as it scrolls into view. Every embed is a studio of its own name (`embed-1`, `embed-2`,
//! ...): the page's one worker keeps a compiled CRD per name, and an embed never reads or
//! writes the main page's autosave.
//!
//! - **Assets** are resolved against the script's own URL (`import.meta.url`), never the
//!   page's: `crd-studio-embed.json` beside it names the files Trunk hashes (JS glue, wasm,
//!   CSS); `xtask/src/embed_dist.rs` writes it after every `trunk build`. `trunk serve`
//!   rebuilds `dist/` without it, so the script falls back to the links in `index.html`.
//!   `editor.js` (CodeMirror, imported as a module: it only sets `window.CrdEditor`) and
//!   `worker.js` have fixed names; `configure_assets(worker, glue)` tells `worker_client` where
//!   they are, since a docs page has no preload links.
//! - **One wasm, one worker**: the first element near the viewport (IntersectionObserver, 200
//!   px ahead) loads everything once: the script imports the glue and initialises it with the
//!   wasm URL. Every playground is then a Yew app (`Renderer::with_root_and_props`) in the
//!   same instance, on the page's one worker, which gets the compiled module, not a second
//!   download. Removing an element destroys its app and `forget`s its studio in the worker.
//! - **Shadow DOM**: each element gets an open shadow root. The studio's CSS is fetched once
//!   and shared by every root as a constructable stylesheet, with `:root` rewritten to
//!   `:host`; `:host { all: initial }` stops the page's inherited styles. CodeMirror mounts its
//!   own styles into the shadow root; Yew delegates events from the root element inside it.
//!   Element ids are per shadow root, so several studios on a page do not clash. No inline
//!   style is needed, so the demo page (`static/demo/`) runs with `style-src 'self'`.
//! - **Before and without JavaScript** the element's own text is the content: until it is
//!   mounted, the shadow root shows it through a `<slot>` in a preformatted box; without
//!   JavaScript the page's own CSS (README) keeps its lines.
//! - The iframe embed (`?embed`) touches no autosave, can make the CRD editor read-only, and a
//!   `ResizeObserver` posts `{type: "crd-studio:height", name, height}` to the parent frame.

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
        tests_file: Some(options.tests.clone())
            .filter(|t| !t.trim().is_empty())
            .map(AttrValue::from),
    };
    let app = yew::Renderer::<Mounted>::with_root_and_props(root, props).render();
    EmbedHandle {
        app: Some(app),
        name,
    }
}
