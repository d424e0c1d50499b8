//! The split between the editors and the results (the full studio only): a separator to drag,
//! or to move with the arrow keys (Home and End for the extremes), whose height the browser
//! remembers (`crd-studio.results-height`). It sets `--results-height` on the studio, which
//! the wide layout gives the results panel; narrow layouts keep their own heights.

use gloo::storage::{LocalStorage, Storage};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Where the results' height is remembered (pixels).
const RESULTS_HEIGHT_KEY: &str = "crd-studio.results-height";
/// The smallest results panel (px), as the stylesheet's `min-height`.
const MIN: f64 = 160.0;
/// One arrow key press (px).
const STEP: f64 = 32.0;

/// The largest results panel: the editors keep 220 px and the top bar.
fn max_height() -> f64 {
    let inner = gloo::utils::window()
        .inner_height()
        .ok()
        .and_then(|h| h.as_f64())
        .unwrap_or(800.0);
    (inner - 320.0).max(MIN)
}

/// Sets the studio's `--results-height`.
fn apply(height: f64) {
    if let Some(studio) = gloo::utils::document()
        .query_selector(".studio:not(.embed)")
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = studio
            .style()
            .set_property("--results-height", &format!("{height:.0}px"));
    }
}

/// The results panel's height now (px).
fn current_height() -> f64 {
    gloo::utils::document()
        .query_selector(".studio:not(.embed) > .bottom")
        .ok()
        .flatten()
        .map_or(MIN, |e| e.get_bounding_client_rect().height())
}

/// The separator between the editors and the results.
#[component]
pub(crate) fn Splitter() -> Html {
    let height = use_state(|| LocalStorage::get::<f64>(RESULTS_HEIGHT_KEY).ok());
    let dragging = use_mut_ref(|| false);
    use_effect_with(*height, |h| {
        if let Some(h) = h {
            apply(*h);
        }
    });
    let set = {
        let height = height.clone();
        move |h: f64| {
            let h = h.clamp(MIN, max_height());
            height.set(Some(h));
            LocalStorage::set(RESULTS_HEIGHT_KEY, h).ok();
        }
    };
    let on_down = {
        let dragging = dragging.clone();
        Callback::from(move |e: PointerEvent| {
            if let Some(t) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            {
                let _ = t.set_pointer_capture(e.pointer_id());
            }
            *dragging.borrow_mut() = true;
            e.prevent_default();
        })
    };
    let on_move = {
        let dragging = dragging.clone();
        let set = set.clone();
        Callback::from(move |e: PointerEvent| {
            if !*dragging.borrow() {
                return;
            }
            let bottom = gloo::utils::document()
                .query_selector(".studio:not(.embed) > .bottom")
                .ok()
                .flatten()
                .map(|b| b.get_bounding_client_rect().bottom());
            if let Some(bottom) = bottom {
                set(bottom - f64::from(e.client_y()));
            }
        })
    };
    let on_up = {
        let dragging = dragging.clone();
        Callback::from(move |_: PointerEvent| *dragging.borrow_mut() = false)
    };
    let on_key = {
        let set = set.clone();
        Callback::from(move |e: KeyboardEvent| {
            let now = current_height();
            let next = match e.key().as_str() {
                "ArrowUp" => now + STEP,
                "ArrowDown" => now - STEP,
                "Home" => MIN,
                "End" => max_height(),
                _ => return,
            };
            e.prevent_default();
            set(next);
        })
    };
    let now = height.unwrap_or(0.0).round();
    html! {
        <div class="splitter" role="separator" aria-orientation="horizontal" tabindex="0"
            aria-label="Height of the results (arrow keys)"
            aria-valuemin={format!("{MIN:.0}")} aria-valuemax={format!("{:.0}", max_height())}
            aria-valuenow={format!("{:.0}", if now > 0.0 { now } else { current_height() })}
            title="Drag, or use the arrow keys, to give the results more or less room"
            onpointerdown={on_down} onpointermove={on_move} onpointerup={on_up.clone()}
            onpointercancel={on_up} onkeydown={on_key}>
            <span aria-hidden="true"></span>
        </div>
    }
}
