//! A studio: the editors, the status line and the result tabs, for the page or an embed
//! ([`Studio`]). This component owns the state its parts share: it loads the texts and
//! settings, keeps them saved, analyses them on every change, and hands a [`StudioCtx`] to
//! its parts (the top bar's status, settings and work actions, the notices, the editors,
//! the result tabs and the confirmation dialog).

use std::rc::Rc;

use crd_studio_engine::FieldValidation;
use gloo::storage::{LocalStorage, Storage};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

use crate::analyser::Analyser;
use crate::editors_view::Editors;
use crate::notices_view::{ConfirmDialog, Notices};
use crate::results_view::Results;
use crate::settings_view::{Settings, ThemeSelect};
use crate::share_view::{OpenInStudio, WorkActions};
use crate::shown::Shown;
use crate::status_view::StatusLine;
use crate::storage::{
    download_text, fingerprint, load_query, load_texts, save, stored_kubernetes_version, Autosave,
    BACKUP_KEY, CONVERSION_TARGET_KEY, CRASHED_ON_KEY, CRD_KEY, FIELD_SELECTOR_KEY,
    FIELD_VALIDATION_KEY, KUBERNETES_VERSION_KEY, MAPPINGS_KEY, OBJECT_KEY, OLD_CRD_KEY,
    OLD_OBJECT_KEY, SET_ASIDE_ON_CLOSE_KEY, WEBHOOK_RESPONSE_KEY,
};
use crate::studio_ctx::{Controls, Notice, Pending, StudioCtx};
use crate::studio_live::{old_object_of, query_of, state_of, BottomTab, Generations, Live, Texts};
use crate::studio_state::StudioState;
use crate::worker_client;

/// The page's studio's name in the worker protocol (embedded studios have their own).
pub(crate) const MAIN_STUDIO: &str = "main";

/// What a page or an embed gives a [`Studio`].
#[derive(Properties, PartialEq, Clone)]
pub struct StudioProps {
    /// The studio's name in the worker protocol (each studio of a page has its own).
    #[prop_or(AttrValue::Static(MAIN_STUDIO))]
    pub name: AttrValue,
    /// The state to open with (a share link, an embed); `None`: the autosaved texts, or the
    /// first-visit example.
    #[prop_or_default]
    pub initial: Option<Rc<StudioState>>,
    /// Embedded in another page: compact (no page header), never reads or writes the
    /// autosave, links to the full studio.
    #[prop_or_default]
    pub embed: bool,
    /// The CRD editor is read-only.
    #[prop_or_default]
    pub lock_crd: bool,
    /// The address of the full studio (`index.html`), for "Open in CRD Studio".
    #[prop_or_default]
    pub open_url: AttrValue,
    /// A message to show above the editors when the studio opens (a link that could not be
    /// read, a link that replaced the autosaved work).
    #[prop_or_default]
    pub notice: Option<Notice>,
    /// Tell the parent frame the studio's height (`crd-studio:height` messages): the
    /// studio fills an iframe of its own.
    #[prop_or_default]
    pub report_height: bool,
    /// An embed's test file: its cases fill the Tests tab.
    #[prop_or_default]
    pub tests_file: Option<AttrValue>,
}

/// A studio: the editors, the status line and the result tabs, for the page or an embed.
#[component]
pub fn Studio(props: &StudioProps) -> Html {
    let initial = props.initial.clone();
    let field_validation = {
        let initial = initial.clone();
        use_state(move || match &initial {
            Some(state) => state.field_validation,
            None => LocalStorage::get::<FieldValidation>(FIELD_VALIDATION_KEY).unwrap_or_default(),
        })
    };
    let query = {
        let initial = initial.clone();
        use_state(move || initial.as_deref().map_or_else(load_query, query_of))
    };
    let kubernetes_version = {
        let initial = initial.clone();
        use_state(move || match &initial {
            Some(state) => state.kubernetes_version,
            None => stored_kubernetes_version(),
        })
    };
    let live = {
        let (mode, query) = (*field_validation, (*query).clone());
        let kube_initial = *kubernetes_version;
        let initial = initial.clone();
        use_mut_ref(move || Live {
            texts: initial.as_deref().map_or_else(load_texts, Texts::of),
            mode,
            query,
            kubernetes_version: kube_initial,
            version: initial
                .as_ref()
                .map(|s| AttrValue::from(s.version.clone()))
                .unwrap_or_default(),
            tests: initial
                .as_deref()
                .map_or_else(crate::storage::load_tests, |s| s.tests.clone()),
        })
    };
    let generations = use_mut_ref(Generations::default);
    let rerender = use_force_update();
    let old_in_use = use_state_eq(|| old_object_of(&live.borrow().texts.old_object).is_some());
    let shown = use_state(|| None::<Rc<Shown>>);
    // Both are set from callbacks holding the first render's handles, which compare with the
    // current value (use_state_eq), so an unchanged value does not re-render.
    let working = use_state_eq(|| false);
    let crash = use_state_eq(|| None::<String>);
    let elapsed = use_state_eq(|| 0u32);
    let progress = use_state_eq(|| None::<(usize, usize)>);
    let stopped = use_state_eq(|| None::<u32>);
    // The engine crashed on these very texts last time (the page's studio only): they are
    // not analysed until the user asks or edits.
    let paused = {
        let live = live.clone();
        let embed = props.embed;
        use_state_eq(move || {
            !embed && {
                let live = live.borrow();
                let texts = [&live.texts.crd, &live.texts.object, &live.texts.old_object];
                LocalStorage::get::<String>(CRASHED_ON_KEY)
                    .is_ok_and(|f| f == fingerprint(texts.map(|t| t.rust())))
            }
        })
    };
    let versions = use_state_eq(|| None::<crate::versions_line::VersionsLine>);
    let analyser = {
        let (shown, working, crash) = (shown.clone(), working.clone(), crash.clone());
        let studio = props.name.clone();
        let remember_crash = !props.embed;
        let paused = paused.clone();
        let (elapsed, progress, stopped) = (elapsed.clone(), progress.clone(), stopped.clone());
        let versions = versions.clone();
        use_memo((), move |_| Analyser {
            studio,
            shown,
            shown_seq: Rc::default(),
            working,
            crash,
            slow_timer: Rc::default(),
            elapsed,
            ticker: Rc::default(),
            progress,
            stopped,
            remember_crash,
            paused,
            versions,
        })
    };
    let autosave = use_memo((), |_| Autosave::default());
    // Why the last save failed (shown until a save succeeds), with a download of the texts.
    let save_error = use_state_eq(|| None::<(String, String)>);
    {
        let save_error = save_error.clone();
        let live = live.clone();
        *autosave.report.borrow_mut() = Some(Callback::from(move |failure: Option<String>| {
            match failure {
                None => save_error.set(None),
                // One download per failure: the link holds the texts as they were then.
                Some(why) if save_error.is_none() => {
                    let href = download_text(&state_of(&live.borrow(), BottomTab::Problems));
                    save_error.set(Some((why, href)));
                }
                Some(_) => {}
            }
        }));
    }
    use_effect_with((), |_| {
        worker_client::warm_up();
        || ()
    });
    let old_open = use_state(|| false);
    // The Previous CRD editor: collapsed by default, like the Old object's.
    let old_crd_open = use_state(|| false);
    let bottom = {
        let initial = initial.clone();
        use_state(move || {
            initial
                .as_deref()
                .map_or(BottomTab::Problems, |s| BottomTab::of(&s.tab))
        })
    };
    let embed = props.embed;
    let notice = {
        let first = props.notice.clone();
        use_state(move || first)
    };
    let root = use_node_ref();
    // An embed in an iframe tells the page around it its height, so the page can size the
    // frame: `{type: "crd-studio:height", name, height}` (CSS pixels) on every change.
    {
        let root = root.clone();
        let name = props.name.clone();
        use_effect_with(props.report_height, move |&report| {
            let observer = if report {
                report_height(&root, &name)
            } else {
                None
            };
            move || {
                if let Some((observer, _closure)) = observer {
                    observer.disconnect();
                }
            }
        });
    }
    // What the Share button last said (for screen readers too).
    let share_message = use_state(|| None::<(String, Option<String>)>);
    let controls = use_memo((), |_| Controls::default());

    // Whether another tab saved texts that differ from this tab's (the user chooses whose to
    // keep; until then this tab saves nothing).
    let conflict = use_state_eq(|| false);
    // Unsaved texts are saved at once when the page is hidden or closed. A tab closed while
    // another tab's texts are saved puts its own aside instead (the next load offers them).
    {
        let autosave = autosave.clone();
        let live = live.clone();
        use_effect_with((), move |_| {
            // An embed has nothing to save.
            if embed {
                return;
            }
            let flush = {
                let autosave = autosave.clone();
                Closure::<dyn FnMut()>::new(move || autosave.flush())
            };
            let close = Closure::<dyn FnMut()>::new(move || {
                if autosave.held.get() && autosave.pending.borrow().is_some() {
                    save(BACKUP_KEY, &state_of(&live.borrow(), BottomTab::Problems));
                    save(SET_ASIDE_ON_CLOSE_KEY, &true);
                } else {
                    autosave.flush();
                }
            });
            let window = gloo::utils::window();
            let _ =
                window.add_event_listener_with_callback("pagehide", close.as_ref().unchecked_ref());
            let _ = gloo::utils::document().add_event_listener_with_callback(
                "visibilitychange",
                flush.as_ref().unchecked_ref(),
            );
            flush.forget();
            close.forget();
        });
    }
    // Another tab of the studio saved a text: when it differs from this tab's, say so and stop
    // saving here.
    {
        let autosave = autosave.clone();
        let live = live.clone();
        let conflict = conflict.clone();
        use_effect_with((), move |_| {
            if embed {
                return;
            }
            let on_storage = Closure::<dyn FnMut(web_sys::StorageEvent)>::new(
                move |e: web_sys::StorageEvent| {
                    let Some(key) = e.key() else {
                        return;
                    };
                    let live = live.borrow();
                    let ours = match key.as_str() {
                        CRD_KEY => &live.texts.crd,
                        OBJECT_KEY => &live.texts.object,
                        OLD_OBJECT_KEY => &live.texts.old_object,
                        OLD_CRD_KEY => &live.texts.old_crd,
                        _ => return,
                    };
                    let theirs: String = e
                        .new_value()
                        .and_then(|v| serde_json::from_str(&v).ok())
                        .unwrap_or_default();
                    if ours.rust().as_str() != theirs {
                        autosave.hold();
                        conflict.set(true);
                    }
                },
            );
            let _ = gloo::utils::window()
                .add_event_listener_with_callback("storage", on_storage.as_ref().unchecked_ref());
            on_storage.forget();
        });
    }
    // An embed never writes the autosave.
    use_effect_with(*field_validation, move |mode| {
        if !embed {
            save(FIELD_VALIDATION_KEY, mode)
        }
    });
    use_effect_with(*kubernetes_version, move |v| {
        if !embed {
            save(KUBERNETES_VERSION_KEY, v)
        }
    });
    use_effect_with((*query).clone(), move |q| {
        if !embed {
            save(FIELD_SELECTOR_KEY, &q.field_selector);
            save(CONVERSION_TARGET_KEY, &q.target);
            save(WEBHOOK_RESPONSE_KEY, &q.webhook_response);
            save(MAPPINGS_KEY, &q.mappings);
        }
    });
    // A settings change (and the first render) analyses again; not while the texts wait
    // after a crash.
    {
        let live = live.clone();
        let analyser = analyser.clone();
        let paused = paused.clone();
        use_effect_with(
            (*field_validation, (*query).clone(), *kubernetes_version),
            move |(mode, query, kube)| {
                {
                    let mut live = live.borrow_mut();
                    live.mode = *mode;
                    live.query = query.clone();
                    live.kubernetes_version = *kube;
                }
                if !*paused {
                    analyser.run(&live.borrow());
                }
            },
        );
    }
    // What the confirmation dialog asks about: nothing is replaced until the user says so.
    let pending = use_state(|| None::<Rc<Pending>>);
    let ctx = StudioCtx {
        embed,
        lock_crd: props.lock_crd,
        open_url: props.open_url.clone(),
        tests_file: props.tests_file.clone(),
        live,
        generations,
        rerender,
        analyser,
        autosave,
        controls,
        shown,
        working,
        crash,
        elapsed,
        progress,
        stopped,
        paused,
        field_validation,
        kubernetes_version,
        query,
        bottom,
        old_in_use,
        old_open,
        old_crd_open,
        notice,
        share_message,
        pending,
        conflict,
        save_error,
    };
    if embed {
        return html! {
            <div class="studio embed" ref={root}>
                <header class="topbar">
                    <StatusLine ctx={ctx.clone()} versions={(*versions).clone()} />
                    <OpenInStudio ctx={ctx.clone()} />
                </header>
                <Notices ctx={ctx.clone()} />
                <Editors ctx={ctx.clone()} />
                <Results {ctx} />
            </div>
        };
    }
    html! {
        <div class="studio" ref={root}>
            <header class="topbar">
                <h1>{ "CRD Studio" }</h1>
                <StatusLine ctx={ctx.clone()} versions={(*versions).clone()} />
                <Settings ctx={ctx.clone()} />
                <WorkActions ctx={ctx.clone()} />
                <ThemeSelect />
            </header>
            <Notices ctx={ctx.clone()} />
            <Editors ctx={ctx.clone()} />
            <crate::splitter_view::Splitter />
            <Results ctx={ctx.clone()} />
            <ConfirmDialog {ctx} />
        </div>
    }
}

/// An observer of the studio's size, and the callback it calls.
type HeightReporter = (web_sys::ResizeObserver, Closure<dyn FnMut(js_sys::Array)>);

/// Posts the studio's height to the page around its iframe whenever it changes.
fn report_height(root: &NodeRef, name: &AttrValue) -> Option<HeightReporter> {
    let window = gloo::utils::window();
    let parent = window.parent().ok()??;
    if parent == window {
        return None;
    }
    let element = root.cast::<web_sys::Element>()?;
    let name = name.to_string();
    let target = element.clone();
    let closure = Closure::<dyn FnMut(js_sys::Array)>::new(move |_entries: js_sys::Array| {
        let height = target.scroll_height().max(0);
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"type".into(), &"crd-studio:height".into());
        let _ = js_sys::Reflect::set(&message, &"name".into(), &JsValue::from_str(&name));
        let _ = js_sys::Reflect::set(&message, &"height".into(), &JsValue::from(height));
        let _ = parent.post_message(&message, "*");
    });
    let observer = web_sys::ResizeObserver::new(closure.as_ref().unchecked_ref()).ok()?;
    observer.observe(&element);
    Some((observer, closure))
}
