//! The page's entry point: Trunk builds this binary for `wasm32-unknown-unknown`.

#[cfg(target_arch = "wasm32")]
fn main() {
    yew::Renderer::<crd_studio_web::App>::new().render();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "crd-studio-web is the browser app: build it with `trunk build index.html --release`"
    );
}
