//! The page's entry point: Trunk builds this binary for `wasm32-unknown-unknown`.
//!
//! The same module runs the engine's Web Worker (`static/worker.js` loads it): there is no
//! window there, and the worker calls `crd_studio_web::worker` instead. On a docs page the
//! embed script (`static/crd-studio-embed.js`) loads it too, after setting
//! `globalThis.__crdStudioEmbed = true`: the page is not the studio's, so nothing is rendered
//! into its body; the script mounts each playground with `mount_embed`.

#[cfg(target_arch = "wasm32")]
fn main() {
    let embedded = js_sys::Reflect::get(&js_sys::global(), &"__crdStudioEmbed".into())
        .is_ok_and(|v| v.as_bool() == Some(true));
    if web_sys::window().is_some() && !embedded {
        yew::Renderer::<crd_studio_web::App>::new().render();
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "crd-studio-web is the browser app: build it with `trunk build index.html --release`"
    );
}
