//! The studio page (`index.html`): [`App`] reads the address (a share link, `?embed`,
//! `lock=`, `tab=`, `theme=`), rescues saved texts that cannot be read, registers the
//! service worker, and renders the [`Studio`].

use std::rc::Rc;

use gloo::storage::{LocalStorage, Storage};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

use crate::storage::{
    rescue_unreadable, save, saved_state, store_state, BACKUP_KEY, SET_ASIDE_ON_CLOSE_KEY,
};
use crate::studio::{Studio, StudioProps, MAIN_STUDIO};
use crate::studio_ctx::Notice;
use crate::studio_live::{example_state, is_unchanged_example};
use crate::studio_state::{self, StudioState};
use crate::theme::{self, Theme};

/// The studio page (`index.html`): reads the address. `?embed` shows the compact studio of
/// an iframe (with `lock=crd` and `tab=…`); a fragment holding a share link opens that state.
#[component]
pub fn App() -> Html {
    let props = use_memo((), |_| props_from_location());
    use_effect_with((), |_| register_service_worker());
    html! { <Studio ..(*props).clone() /> }
}

/// Registers the service worker that keeps the studio working offline (`sw.js`, written into
/// dist/ by `cargo xtask build`). Where there is none (Trunk's dev server) or the browser
/// refuses, the page works as before, online.
fn register_service_worker() {
    let window = gloo::utils::window();
    if !window.is_secure_context() {
        return;
    }
    let navigator = window.navigator();
    let Ok(container) = js_sys::Reflect::get(&navigator, &"serviceWorker".into()) else {
        return;
    };
    let Some(register) = js_sys::Reflect::get(&container, &"register".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    else {
        return;
    };
    let options = js_sys::Object::new();
    // Always ask the server for a newer sw.js (a new build), never the HTTP cache.
    let _ = js_sys::Reflect::set(&options, &"updateViaCache".into(), &"none".into());
    if let Ok(promise) = register
        .call2(&container, &"sw.js".into(), &options)
        .and_then(|p| p.dyn_into::<js_sys::Promise>())
    {
        // Ask for a newer build at every load: a deployed build replaces the cached one on
        // the next visit, not only when the browser gets round to checking.
        let update = Closure::once(|registration: JsValue| {
            if let Some(f) = js_sys::Reflect::get(&registration, &"update".into())
                .ok()
                .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            {
                if let Ok(p) = f
                    .call0(&registration)
                    .and_then(|p| p.dyn_into::<js_sys::Promise>())
                {
                    let ignore = Closure::once(|_: JsValue| ());
                    let _ = p.catch(&ignore);
                    ignore.forget();
                }
            }
        });
        let ignore = Closure::once(|_: JsValue| ());
        let _ = promise.then(&update).catch(&ignore);
        update.forget();
        ignore.forget();
    }
}

/// The [`StudioProps`] the page's address asks for.
fn props_from_location() -> StudioProps {
    let location = gloo::utils::window().location();
    let search = location.search().unwrap_or_default();
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok();
    let param = |name: &str| params.as_ref().and_then(|p| p.get(name));
    let embed = params.as_ref().is_some_and(|p| p.has("embed"));
    // The theme: an iframe embed's `?theme=`, or the page's remembered choice.
    theme::apply(if embed {
        Theme::parse(&param("theme").unwrap_or_default())
    } else {
        theme::stored()
    });
    let hash = location.hash().unwrap_or_default();
    let fragment = hash.strip_prefix('#').unwrap_or(&hash);
    let open_url = location.pathname().map(AttrValue::from).unwrap_or_default();
    let mut props = StudioProps {
        name: AttrValue::Static(MAIN_STUDIO),
        initial: None,
        embed,
        lock_crd: param("lock").is_some_and(|l| l.split(',').any(|p| p == "crd")),
        open_url,
        notice: None,
        report_height: embed,
        tests_file: None,
    };
    let tab = param("tab");
    if studio_state::is_link(fragment) {
        match studio_state::decode(fragment) {
            Ok(mut state) => {
                if let Some(tab) = tab {
                    state.tab = tab;
                }
                if !embed {
                    props.notice = open_link(&state);
                    // The link is now the autosaved work: a reload keeps it (and any edit).
                    let _ = gloo::utils::window().history().and_then(|h| {
                        h.replace_state_with_url(
                            &JsValue::NULL,
                            "",
                            Some(&format!("{}{search}", props.open_url)),
                        )
                    });
                }
                props.initial = Some(Rc::new(state));
            }
            Err(e) => {
                props.notice = Some(Notice {
                    text: format!("This link could not be opened: {e}."),
                    restorable: false,
                });
            }
        }
    } else if embed {
        let mut state = example_state();
        if let Some(tab) = tab {
            state.tab = tab;
        }
        props.initial = Some(Rc::new(state));
    } else if let names @ [_, ..] = rescue_unreadable().as_slice() {
        props.notice = Some(Notice {
            text: format!(
                "The saved {} could not be read; it is kept unchanged in this browser's storage \
                 under crd-studio.…unreadable, and the example is shown instead.",
                names.join(" and ")
            ),
            restorable: false,
        });
    } else if LocalStorage::get::<bool>(SET_ASIDE_ON_CLOSE_KEY).unwrap_or(false) {
        LocalStorage::delete(SET_ASIDE_ON_CLOSE_KEY);
        props.notice = Some(Notice {
            text: "A studio tab was closed while another tab had saved different texts; the \
                   closed tab's texts were put aside:"
                .to_owned(),
            restorable: true,
        });
    }
    props
}

/// Opens a share link in the full studio: the autosaved work is put aside (restorable), and
/// the link's state becomes the autosaved one.
fn open_link(state: &StudioState) -> Option<Notice> {
    let mine = saved_state();
    if mine.crd == state.crd && mine.object == state.object && mine.old_object == state.old_object {
        return None;
    }
    // Restore is offered only when something is put aside: a fresh browser (or one showing an
    // unchanged example) has nothing to keep, unless an earlier backup is there.
    let have_backup = LocalStorage::raw()
        .get_item(BACKUP_KEY)
        .ok()
        .flatten()
        .is_some();
    let nothing_to_keep = is_unchanged_example(&mine);
    if !nothing_to_keep {
        save(BACKUP_KEY, &mine);
    }
    store_state(state);
    Some(match (nothing_to_keep, have_backup) {
        (false, _) => Notice {
            text: "You opened a shared link. Your own work is kept:".to_owned(),
            restorable: true,
        },
        (true, true) => Notice {
            text: "You opened a shared link. Your work from before is still kept:".to_owned(),
            restorable: true,
        },
        (true, false) => Notice {
            text: "You opened a shared link.".to_owned(),
            restorable: false,
        },
    })
}
