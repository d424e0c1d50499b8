//! The one Copy button of the app: it writes a text to the clipboard (or runs the caller's
//! own copy), then says "Copied" (or the clipboard's error) for [`FEEDBACK_MS`], announced
//! through a polite live region, and returns to its label.

use gloo::timers::callback::Timeout;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// How long the button says what happened.
pub const FEEDBACK_MS: u32 = 2_000;

/// Properties of [`CopyButton`].
#[derive(Properties, PartialEq)]
pub struct CopyButtonProps {
    /// The text written to the clipboard (when `on_copy` is not given).
    #[prop_or_default]
    pub text: AttrValue,
    /// A copy the caller does itself (no clipboard): it always succeeds.
    #[prop_or_default]
    pub on_copy: Option<Callback<()>>,
    /// The button's label.
    #[prop_or(AttrValue::Static("Copy"))]
    pub label: AttrValue,
    /// Its tooltip.
    #[prop_or_default]
    pub title: AttrValue,
    /// Extra classes.
    #[prop_or_default]
    pub class: Classes,
}

/// What the button says now.
#[derive(Clone, Debug, PartialEq)]
enum Feedback {
    Idle,
    Copied,
    Failed(String),
}

/// The clipboard's `writeText` promise, or why there is none.
pub(crate) fn write_clipboard(text: &str) -> Result<js_sys::Promise, String> {
    let navigator = gloo::utils::window().navigator();
    let clipboard = js_sys::Reflect::get(&navigator, &"clipboard".into())
        .ok()
        .filter(JsValue::is_object)
        .ok_or("this page may not use the clipboard")?;
    let write = js_sys::Reflect::get(&clipboard, &"writeText".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or("this browser cannot write to the clipboard")?;
    write
        .call1(&clipboard, &JsValue::from_str(text))
        .map_err(|e| error_text(&e))?
        .dyn_into::<js_sys::Promise>()
        .map_err(|_| "the clipboard did not answer".to_owned())
}

/// A rejection's message (a `DOMException`'s `message`, else its text).
fn error_text(e: &JsValue) -> String {
    js_sys::Reflect::get(e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .filter(|m| !m.is_empty())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the browser refused".to_owned())
}

/// The button.
#[component]
pub fn CopyButton(props: &CopyButtonProps) -> Html {
    let feedback = use_state(|| Feedback::Idle);
    // The timer that puts the label back; replaced on every click, dropped (cancelled) with
    // the component.
    let timer = use_mut_ref(|| None::<Timeout>);
    let show = {
        let feedback = feedback.clone();
        let timer = timer.clone();
        Callback::from(move |f: Feedback| {
            feedback.set(f);
            let feedback = feedback.clone();
            *timer.borrow_mut() = Some(Timeout::new(FEEDBACK_MS, move || {
                feedback.set(Feedback::Idle)
            }));
        })
    };
    let onclick = {
        let text = props.text.clone();
        let on_copy = props.on_copy.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(on_copy) = &on_copy {
                on_copy.emit(());
                show.emit(Feedback::Copied);
                return;
            }
            match write_clipboard(&text) {
                Err(e) => show.emit(Feedback::Failed(e)),
                Ok(promise) => {
                    let done = {
                        let show = show.clone();
                        Closure::once(move |_: JsValue| show.emit(Feedback::Copied))
                    };
                    let failed = {
                        let show = show.clone();
                        Closure::once(move |e: JsValue| show.emit(Feedback::Failed(error_text(&e))))
                    };
                    let _ = promise.then2(&done, &failed);
                    // Each runs at most once, when the clipboard answers.
                    done.forget();
                    failed.forget();
                }
            }
        })
    };
    let (label, said, state) = match &*feedback {
        Feedback::Idle => (props.label.to_string(), String::new(), "idle"),
        Feedback::Copied => ("Copied".to_owned(), "Copied".to_owned(), "copied"),
        Feedback::Failed(e) => (
            "Copy failed".to_owned(),
            format!("Copy failed: {e}"),
            "failed",
        ),
    };
    html! {
        <span class="copy-wrap">
            <button type="button" class={classes!("small", "copy", props.class.clone())}
                data-copy={state} onclick={onclick} title={props.title.clone()}>{ label }</button>
            <span class={classes!("copy-said", (state != "failed").then_some("visually-hidden"))}
                aria-live="polite">{ said }</span>
        </span>
    }
}
