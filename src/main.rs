//! The page's entry point: Trunk builds this binary for `wasm32-unknown-unknown`.
//!
//! The same module runs the engine's Web Worker (`static/worker.js` loads it): there is no
//! window there, and the worker calls `crd_studio_web::worker` instead.

#[cfg(target_arch = "wasm32")]
fn main() {
    if web_sys::window().is_some() {
        yew::Renderer::<crd_studio_web::App>::new().render();
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "crd-studio-web is the browser app: build it with `trunk build index.html --release`"
    );
}
