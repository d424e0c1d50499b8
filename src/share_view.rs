//! What the top bar does with the work as a whole: load a curated example ([`WorkActions`]'s
//! Examples), put everything into a share link and copy it (Share), go back to the CronTab
//! example (Reset example), and, in an embed, open the work in the full studio
//! ([`OpenInStudio`]). Replacing the user's texts asks first (see [`StudioCtx::ask_then_load`]).

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

use crate::gallery;
use crate::storage::download_text;
use crate::studio_ctx::{Notice, Pending, StudioCtx};
use crate::studio_live::example_state;
use crate::studio_state::{self, StudioState};

/// Properties of [`WorkActions`] and [`OpenInStudio`].
#[derive(Properties, PartialEq)]
pub(crate) struct WorkActionsProps {
    /// The studio's shared state.
    pub(crate) ctx: StudioCtx,
}

/// The Examples selector, the Share button and the Reset example button.
#[component]
pub(crate) fn WorkActions(props: &WorkActionsProps) -> Html {
    let ctx = &props.ctx;
    let on_reset = {
        let ctx = ctx.clone();
        // The texts only: the settings and the open tab stay.
        Callback::from(move |_: MouseEvent| {
            let example = example_state();
            let now = ctx.current();
            if now.crd == example.crd
                && now.object == example.object
                && now.old_object == example.old_object
                && now.old_crd.trim().is_empty()
            {
                ctx.notice.set(Some(Notice {
                    text: "The texts are the CronTab example already.".to_owned(),
                    restorable: false,
                }));
                return;
            }
            ctx.ask_then_load(Pending {
                title: "Reset to the CronTab example?".to_owned(),
                confirm: "Reset".to_owned(),
                next: StudioState {
                    crd: example.crd,
                    object: example.object,
                    old_object: example.old_object,
                    old_crd: String::new(),
                    ..now
                },
                what: "The CronTab example is back.".to_owned(),
            })
        })
    };
    let on_example = {
        let ctx = ctx.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let chosen = gallery::by_slug(&select.value());
            select.set_value("");
            if let Some(example) = chosen {
                ctx.ask_then_load(Pending {
                    title: format!("Load the example “{}”?", example.title),
                    confirm: "Load example".to_owned(),
                    next: example.state(),
                    what: format!("Loaded the example “{}”.", example.title),
                });
            }
        })
    };
    let on_share = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| {
            let state = ctx.current();
            let fragment = studio_state::encode(&state);
            if fragment.len() > studio_state::MAX_LINK_CHARS {
                ctx.share_message.set(Some((
                    format!(
                        "Too big for a link ({} characters after compression; links stop at {}). Download the texts instead:",
                        fragment.len(),
                        studio_state::MAX_LINK_CHARS
                    ),
                    Some(download_text(&state)),
                )));
                return;
            }
            let location = gloo::utils::window().location();
            let base = format!(
                "{}{}{}",
                location.origin().unwrap_or_default(),
                location.pathname().unwrap_or_default(),
                location.search().unwrap_or_default()
            );
            let link = format!("{base}#{fragment}");
            // The address bar shows the link too (no reload, no new history entry).
            let _ = gloo::utils::window()
                .history()
                .and_then(|h| h.replace_state_with_url(&JsValue::NULL, "", Some(&link)));
            copy_to_clipboard(&link, &ctx.share_message, fragment.len());
        })
    };
    html! {
        <>
            <label class="option examples" title="Load a curated example (your work is put aside, restorable)">
                <span class="visually-hidden">{ "Examples" }</span>
                <select aria-label="Examples" onchange={on_example}>
                    <option value="" selected=true>{ "Examples…" }</option>
                    { for gallery::all().iter().map(|ex| html! {
                        <option value={ex.slug} title={ex.summary}>{ ex.title }</option>
                    }) }
                </select>
            </label>
            <button type="button" class="share" onclick={on_share}
                title="Put everything into a link (in the address bar) and copy it">{ "Share" }</button>
            <button type="button" class="reset" onclick={on_reset}>{ "Reset example" }</button>
        </>
    }
}

/// An embed's "Open in CRD Studio" link: it carries the state as it is when clicked.
#[component]
pub(crate) fn OpenInStudio(props: &WorkActionsProps) -> Html {
    let ctx = &props.ctx;
    let open_in_studio = {
        let ctx = ctx.clone();
        Callback::from(move |e: MouseEvent| {
            // The link carries the state as it is when clicked.
            // Yew delegates events: the anchor is the target's closest `a`, not the current
            // target.
            let anchor = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|t| t.closest("a").ok().flatten());
            if let Some(a) = anchor {
                let href = format!("{}#{}", ctx.open_url, studio_state::encode(&ctx.current()));
                let _ = a.set_attribute("href", &href);
            }
        })
    };
    html! {
        <a class="open-studio" href={ctx.open_url.clone()} target="_blank" rel="noopener" onclick={open_in_studio}>
            { "Open in CRD Studio" }
        </a>
    }
}

thread_local! {
    /// Counts Share's messages: a message's timer clears it only if no newer one came.
    static SHARE_MESSAGES: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// How long "Link copied" stays up (ms) when nothing else clears it first.
const SHARE_MESSAGE_MS: u32 = 6_000;

/// The next edit or load after Share: the link in the address bar no longer holds the work,
/// so the fragment goes (the history entry is replaced, none added: a reload keeps the
/// autosaved work), and so does Share's message. Cheap when there is no link (one read of the
/// address), as it runs on every keystroke.
pub(crate) fn forget_stale_link(message: &UseStateHandle<Option<(String, Option<String>)>>) {
    let window = gloo::utils::window();
    let location = window.location();
    let hash = location.hash().unwrap_or_default();
    if !studio_state::is_link(hash.strip_prefix('#').unwrap_or(&hash)) {
        return;
    }
    let plain = format!(
        "{}{}",
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    );
    let _ = window
        .history()
        .and_then(|h| h.replace_state_with_url(&JsValue::NULL, "", Some(&plain)));
    SHARE_MESSAGES.with(|n| n.set(n.get().wrapping_add(1)));
    message.set(None);
}

/// Copies a share link to the clipboard and says how it went.
fn copy_to_clipboard(
    link: &str,
    message: &UseStateHandle<Option<(String, Option<String>)>>,
    chars: usize,
) {
    let fallback = "The link is in the address bar: copy it from there (the browser did not \
                    let the page write to the clipboard)."
        .to_owned();
    let Ok(promise) = crate::copy_button::write_clipboard(link) else {
        message.set(Some((fallback, None)));
        return;
    };
    let done = {
        let message = message.clone();
        Closure::once(move |_: JsValue| {
            message.set(Some((
                format!(
                    "Link copied to the clipboard ({chars} characters). It is in the address \
                     bar until your next edit."
                ),
                None,
            )));
            let mine = SHARE_MESSAGES.with(|n| {
                n.set(n.get().wrapping_add(1));
                n.get()
            });
            gloo::timers::callback::Timeout::new(SHARE_MESSAGE_MS, move || {
                if SHARE_MESSAGES.with(std::cell::Cell::get) == mine {
                    message.set(None);
                }
            })
            .forget();
        })
    };
    let failed = {
        let message = message.clone();
        Closure::once(move |_: JsValue| message.set(Some((fallback, None))))
    };
    let _ = promise.then2(&done, &failed);
    // Each runs at most once, when the clipboard answers.
    done.forget();
    failed.forget();
}
