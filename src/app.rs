//! The studio page: the CRD, Object and Old object editors, the status line, the field
//! validation selector, and the Problems / Stored object / CEL rules panels.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crd_studio_engine::report::assist::Editor as AssistEditor;
use crd_studio_engine::{FieldValidation, Options, Severity};
use gloo::storage::{LocalStorage, Storage};
use gloo::timers::callback::{Interval, Timeout};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

use crate::cel_model::tab_badge;
use crate::cel_view::CelPanel;
use crate::changes_view::ChangesPanel;
use crate::conversion_view::ConversionPanel;
use crate::copy_button::CopyButton;
use crate::editor::{CodeEditor, EditorControl};
use crate::editor_text::EditorText;
use crate::explain_view::ExplainPanel;
use crate::gallery;
use crate::get_view::GetPanel;
use crate::stored_view::StoredPanel;
use crate::studio_state::{self, StudioState};
use crate::theme::{self, Theme};
use crate::view_model::{
    editor_diagnostics, problem_rows, row_counts, status, EditorDiagnostic, EditorFix, FocusTarget,
    Pane, ProblemRow, Status, EXAMPLE_CRD, EXAMPLE_OBJECT,
};
use crate::worker_boundary::{PreviewQuery, Reply};
use crate::worker_client::{self, Event as WorkerEvent};
use crate::worker_protocol::Job;

/// localStorage key of the CRD text.
pub const CRD_KEY: &str = "crd-studio.crd";
/// localStorage key of the object text.
pub const OBJECT_KEY: &str = "crd-studio.object";
/// localStorage key of the old object text (empty: no old object, the create path).
pub const OLD_OBJECT_KEY: &str = "crd-studio.old-object";
/// localStorage key of the Previous CRD text (empty: the CRD is checked as a create).
pub const OLD_CRD_KEY: &str = "crd-studio.old-crd";
/// localStorage key of the field validation mode.
pub const FIELD_VALIDATION_KEY: &str = "crd-studio.field-validation";
/// localStorage key of the Kubernetes version to model (blank: the engine's default).
pub const KUBERNETES_VERSION_KEY: &str = "crd-studio.kubernetes-version";
/// localStorage key of the kubectl get tab's `--field-selector` text.
pub const FIELD_SELECTOR_KEY: &str = "crd-studio.field-selector";
/// localStorage key of the Conversion tab's target version.
pub const CONVERSION_TARGET_KEY: &str = "crd-studio.conversion-target";
/// localStorage key of the Conversion tab's webhook response text.
pub const WEBHOOK_RESPONSE_KEY: &str = "crd-studio.webhook-response";
/// localStorage key of the Conversion tab's mapping text.
pub const MAPPINGS_KEY: &str = "crd-studio.mappings";
/// Quiet time after the last edit before the texts are saved.
const AUTOSAVE_MS: u32 = 300;
/// The same when a text is over [`BIG_TEXT`] bytes.
const AUTOSAVE_BIG_MS: u32 = 2_000;
/// A text whose saving takes the page long enough to be felt while typing.
const BIG_TEXT: usize = 1 << 20;
/// How long an analysis may run before the status line says the engine is working.
const SLOW_MS: u32 = 100;
/// After this many seconds a running analysis offers Stop.
const STOP_AFTER_S: u32 = 2;
/// The page's studio's name in the worker protocol (embedded studios have their own).
const MAIN_STUDIO: &str = "main";
/// localStorage key of the work a link, an example or a restore put aside (a
/// [`StudioState`] as JSON), restorable in one click.
pub const BACKUP_KEY: &str = "crd-studio.backup";
/// A fingerprint of the texts the engine last crashed on (the page's studio): a reload with
/// the same texts waits for the user instead of crashing again.
const CRASHED_ON_KEY: &str = "crd-studio.crashed-on";
/// Set when a tab was closed holding texts it could not save (another tab had saved different
/// ones): they were put aside, and the next load offers them back.
const SET_ASIDE_ON_CLOSE_KEY: &str = "crd-studio.set-aside-on-close";

/// The texts being edited, as they are now. The editors own what the user types and report
/// each edit here without a re-render of the page (a keystroke costs the page only the job it
/// posts); the app's own replacements bump [`Generations`] so the editors reload.
#[derive(Clone, Default)]
struct Texts {
    crd: EditorText,
    object: EditorText,
    /// Empty when there is no old object.
    old_object: EditorText,
    /// The Previous CRD; empty when there is none.
    old_crd: EditorText,
}

/// Bumped when the app replaces a text (the example, a rule edited in the CEL panel, the
/// old object copied or cleared): the editor showing it reloads it.
#[derive(Clone, Copy, Default, PartialEq)]
struct Generations {
    object: u32,
    crd: u32,
    old: u32,
    old_crd: u32,
}

/// What the callbacks read between renders: the texts and the settings as they are now.
struct Live {
    texts: Texts,
    mode: FieldValidation,
    query: PreviewQuery,
    /// The Kubernetes minor version to model (blank: the engine's default).
    kubernetes_version: String,
    /// The version selected in the Stored object tab (blank: the stored object).
    version: AttrValue,
}

/// A text the app puts in place of the user's.
enum Replace {
    Crd(String),
    /// The Object text (a generated sample added).
    Object(String),
    OldObject(EditorText),
    /// Every text and setting (an example, restored work).
    State(Box<StudioState>),
}

fn load_texts() -> Texts {
    Texts {
        crd: load_text(CRD_KEY).unwrap_or_else(|| EditorText::from_rust(EXAMPLE_CRD)),
        object: load_text(OBJECT_KEY).unwrap_or_else(|| EditorText::from_rust(EXAMPLE_OBJECT)),
        old_object: load_text(OLD_OBJECT_KEY).unwrap_or_default(),
        old_crd: load_text(OLD_CRD_KEY).unwrap_or_default(),
    }
}

/// A saved editor text, parsed by the browser's `JSON.parse` into the JavaScript string the
/// editor takes: a text holding a lone surrogate (which the editor accepts and
/// `JSON.stringify` escapes) loads as it was saved; serde would refuse it.
fn load_text(key: &str) -> Option<EditorText> {
    let raw = LocalStorage::raw().get_item(key).ok()??;
    let value = js_sys::JSON::parse(&raw).ok()?;
    if let Some(packed) = packed_of(&value) {
        return studio_state::unpack_text(&packed).map(EditorText::from_rust);
    }
    value
        .dyn_into::<js_sys::JsString>()
        .ok()
        .map(EditorText::from_js)
}

/// The packed text of a saved value `{"packed": "…"}` (a big text, saved compressed).
fn packed_of(value: &JsValue) -> Option<String> {
    if !value.is_object() {
        return None;
    }
    js_sys::Reflect::get(value, &"packed".into())
        .ok()?
        .as_string()
}

/// Saved texts that cannot be read are moved aside (`KEY.unreadable`, never overwritten),
/// so the next save cannot destroy them; returns the texts' names.
fn rescue_unreadable() -> Vec<&'static str> {
    let storage = LocalStorage::raw();
    let mut moved = Vec::new();
    for (key, name) in [
        (CRD_KEY, "CRD"),
        (OBJECT_KEY, "object"),
        (OLD_OBJECT_KEY, "old object"),
        (OLD_CRD_KEY, "previous CRD"),
    ] {
        let Ok(Some(raw)) = storage.get_item(key) else {
            continue;
        };
        let readable = js_sys::JSON::parse(&raw).ok().is_some_and(|v| {
            v.is_string() || packed_of(&v).is_some_and(|p| studio_state::unpack_text(&p).is_some())
        });
        if readable {
            continue;
        }
        let aside = format!("{key}.unreadable");
        if storage.get_item(&aside).ok().flatten().is_none() {
            let _ = storage.set_item(&aside, &raw);
        }
        let _ = storage.remove_item(key);
        moved.push(name);
    }
    moved
}

fn load_query() -> PreviewQuery {
    let load = |key: &str| LocalStorage::get::<String>(key).unwrap_or_default();
    PreviewQuery {
        field_selector: load(FIELD_SELECTOR_KEY),
        target: load(CONVERSION_TARGET_KEY),
        webhook_response: load(WEBHOOK_RESPONSE_KEY),
        mappings: load(MAPPINGS_KEY),
        ..PreviewQuery::default()
    }
}

/// The browser's clock, RFC 3339 to the second (for the table's ages).
fn browser_now() -> String {
    let iso = String::from(js_sys::Date::new_0().to_iso_string());
    match iso.get(..19) {
        Some(seconds) => format!("{seconds}Z"),
        None => String::new(),
    }
}

fn save(key: &str, value: &impl serde::Serialize) {
    if let Err(e) = LocalStorage::set(key, value) {
        gloo::console::warn!(format!("could not save {key}: {e}"));
    }
}

/// The old object to send: `None` (the create path) when its text is blank.
fn old_object_of(text: &EditorText) -> Option<String> {
    (!text.is_blank()).then(|| text.rust().to_string())
}

/// Saves an editor text: a Rust string as usual; the editor's own JavaScript string with
/// `JSON.stringify`, so a big CRD is not copied into wasm to be saved.
fn save_text(key: &str, text: &EditorText) -> Result<(), String> {
    // `Storage.setItem` called with the JavaScript string itself: web-sys's binding takes a
    // `&str`, which would copy the JSON into wasm and back out (and could not hold a lone
    // surrogate, which `JSON.stringify` escapes).
    // A big text is saved compressed, as `{"packed": "…"}` (see `studio_state::pack_text`).
    let json = if text.rough_len() > studio_state::PACK_TEXT_OVER {
        let packed = studio_state::pack_text(&text.rust());
        js_sys::JsString::from(serde_json::json!({ "packed": packed }).to_string())
    } else {
        js_sys::JSON::stringify(&text.js()).map_err(|_| "the text could not be encoded")?
    };
    let storage = js_sys::Reflect::get(&gloo::utils::window(), &"localStorage".into())
        .map_err(|_| "this browser gives the page no storage")?;
    let set_item = js_sys::Reflect::get(&storage, &"setItem".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or("this browser gives the page no storage")?;
    set_item
        .call2(&storage, &JsValue::from_str(key), &json)
        .map(|_| ())
        .map_err(|e| {
            // A full storage throws a `QuotaExceededError` DOMException.
            let name = js_sys::Reflect::get(&e, &"name".into())
                .ok()
                .and_then(|n| n.as_string())
                .unwrap_or_default();
            if name == "QuotaExceededError" {
                format!(
                    "the browser's storage is full ({} MB of text)",
                    (text.rough_len() + 500_000) / 1_000_000
                )
            } else {
                format!("the browser refused to store it ({name})")
            }
        })
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

/// The texts of a state as one YAML file (the CRD, then the objects; `kubectl apply -f`
/// takes it as it is), as a download address.
fn download_text(state: &StudioState) -> String {
    let mut text =
        String::from("# CRD Studio: the CRD (crd.yaml), then the objects (object.yaml)\n");
    text.push_str(state.crd.trim_end());
    text.push_str("\n---\n");
    text.push_str(state.object.trim_end());
    text.push('\n');
    if !state.old_object.trim().is_empty() {
        text.push_str("---\n# The old object (old-object.yaml):\n");
        text.push_str(state.old_object.trim_end());
        text.push('\n');
    }
    if !state.old_crd.trim().is_empty() {
        text.push_str("---\n# The previous revision of the CRD (previous-crd.yaml):\n");
        text.push_str(state.old_crd.trim_end());
        text.push('\n');
    }
    let parts = js_sys::Array::of1(&JsValue::from_str(&text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/yaml");
    web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)
        .and_then(|blob| web_sys::Url::create_object_url_with_blob(&blob))
        .unwrap_or_default()
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
                     bar too."
                ),
                None,
            )))
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

/// What the page shows for one analysis, computed once when it arrives. Two are equal when
/// they show the same analysis (`seq`): panels compare them on every render, and comparing
/// the texts and the analysis itself would cost milliseconds per keystroke on a big CRD.
pub(crate) struct Shown {
    /// Counts the analyses shown, so panels can tell a new one cheaply.
    pub(crate) seq: u64,
    status: Status,
    rows: Vec<ProblemRow>,
    crd_marks: Rc<Vec<EditorDiagnostic>>,
    object_marks: Rc<Vec<EditorDiagnostic>>,
    old_marks: Rc<Vec<EditorDiagnostic>>,
    old_crd_marks: Rc<Vec<EditorDiagnostic>>,
    /// The CEL tab's badge: rules, and whether one is broken or failing.
    cel_badge: (usize, bool),
    /// The Changes tab's badge: breaking changes and stored objects that lose data or
    /// cannot be updated.
    changes_badge: usize,
    pub(crate) reply: Reply,
    /// The CRD text the analysis was made from.
    pub(crate) crd: EditorText,
}

impl PartialEq for Shown {
    fn eq(&self, other: &Shown) -> bool {
        self.seq == other.seq
    }
}

impl Shown {
    fn of(seq: u64, reply: Reply, crd: EditorText) -> Shown {
        let analysis = &reply.analysis;
        Shown {
            cel_badge: tab_badge(analysis),
            changes_badge: crate::changes_model::changes_model(analysis).breaking,
            seq,
            status: status(analysis),
            rows: problem_rows(analysis),
            crd_marks: Rc::new(editor_diagnostics(analysis, Pane::Crd)),
            object_marks: Rc::new(editor_diagnostics(analysis, Pane::Object)),
            old_marks: Rc::new(editor_diagnostics(analysis, Pane::OldObject)),
            old_crd_marks: Rc::new(editor_diagnostics(analysis, Pane::OldCrd)),
            reply,
            crd,
        }
    }
}

/// The tabs of the bottom area.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BottomTab {
    Problems,
    Stored,
    Cel,
    Get,
    Conversion,
    Changes,
    Explain,
}

fn field_validation_name(mode: FieldValidation) -> &'static str {
    match mode {
        FieldValidation::Strict => "Strict",
        FieldValidation::Warn => "Warn",
        FieldValidation::Ignore => "Ignore",
    }
}

/// Saves the texts shortly after the last edit (a big CRD costs milliseconds to store, which
/// a keystroke should not pay), and at once when the page is hidden or closed. Only the texts
/// that changed since they were last saved are written; the texts as loaded are not saved
/// back (another tab may have saved newer ones).
#[derive(Clone, Default)]
struct Autosave {
    /// The timer and the texts it will save.
    pending: Rc<RefCell<Option<(Timeout, Texts)>>>,
    /// The texts as last saved (CRD, object, old object, previous CRD).
    saved: Rc<RefCell<[Option<EditorText>; 4]>>,
    /// Set while another tab has saved texts that differ from this tab's: nothing is written
    /// (it would overwrite them silently) until the user chooses whose texts to keep.
    held: Rc<Cell<bool>>,
    /// Told after each save: why it failed, or `None` when everything was saved.
    report: Rc<RefCell<Option<Callback<Option<String>>>>>,
}

impl Autosave {
    /// Saves `texts` after a quiet time (longer while a text is big); a later call replaces
    /// the unsaved texts.
    fn schedule(&self, texts: Texts) {
        // Storing megabytes blocks the page for tens of milliseconds: while such a text is
        // being typed, wait for a longer pause.
        let big = [&texts.crd, &texts.object, &texts.old_object, &texts.old_crd]
            .iter()
            .any(|t| t.rough_len() > BIG_TEXT);
        let delay = if big { AUTOSAVE_BIG_MS } else { AUTOSAVE_MS };
        let me = self.clone();
        let timer = Timeout::new(delay, move || me.flush());
        *self.pending.borrow_mut() = Some((timer, texts));
    }

    /// Saves the unsaved texts now (unless held).
    fn flush(&self) {
        if self.held.get() {
            return;
        }
        let Some((_, texts)) = self.pending.borrow_mut().take() else {
            return;
        };
        let mut saved = self.saved.borrow_mut();
        let all = [
            (CRD_KEY, texts.crd),
            (OBJECT_KEY, texts.object),
            (OLD_OBJECT_KEY, texts.old_object),
            (OLD_CRD_KEY, texts.old_crd),
        ];
        let mut failure = None;
        for ((key, text), last) in all.into_iter().zip(saved.iter_mut()) {
            if last.as_ref() != Some(&text) {
                match save_text(key, &text) {
                    Ok(()) => *last = Some(text),
                    // Not marked saved: the next flush tries again.
                    Err(e) => failure = Some(e),
                }
            }
        }
        drop(saved);
        if let Some(report) = self.report.borrow().as_ref() {
            report.emit(failure);
        }
    }
}

impl Autosave {
    /// Stops writing: another tab saved different texts.
    fn hold(&self) {
        self.held.set(true);
    }

    /// Saves every text now, over whatever another tab saved, and writes again after edits.
    fn save_all_now(&self, texts: Texts) {
        self.held.set(false);
        *self.saved.borrow_mut() = Default::default();
        let timer = Timeout::new(0, || ());
        *self.pending.borrow_mut() = Some((timer, texts));
        self.flush();
    }

    /// Writes again after edits, without saving now (the texts are the saved ones).
    fn release(&self) {
        self.held.set(false);
    }
}

/// Posts analysis jobs to the worker and shows their answers. Its channel keeps one job in
/// flight and lets only the newest waiting one run next; only the newest job's answer is
/// shown, with the texts of that job.
#[derive(Clone)]
struct Analyser {
    /// The studio's name in the worker protocol.
    studio: AttrValue,
    shown: UseStateHandle<Option<Rc<Shown>>>,
    /// Numbers the analyses shown (Shown::seq).
    shown_seq: Rc<RefCell<u64>>,
    /// Whether the newest analysis has run for more than SLOW_MS.
    working: UseStateHandle<bool>,
    /// The engine's crash message, until the next answer.
    crash: UseStateHandle<Option<String>>,
    slow_timer: Rc<RefCell<Option<Timeout>>>,
    /// How long (whole seconds) the analyses not answered yet have been running; ticks
    /// while one runs.
    elapsed: UseStateHandle<u32>,
    /// When the oldest unanswered analysis was asked for, and the ticker that updates
    /// `elapsed`.
    ticker: Rc<RefCell<Option<(f64, Interval)>>>,
    /// How far the analysis in flight is (object documents done, known), during long ones.
    progress: UseStateHandle<Option<(usize, usize)>>,
    /// The user stopped the analysis after this many seconds; the results shown are from
    /// earlier texts. Cleared by the next analysis.
    stopped: UseStateHandle<Option<u32>>,
    /// Whether a crash is remembered for the next load (the page's studio; embeds never
    /// touch the storage).
    remember_crash: bool,
    /// Whether the texts wait for the user's go: the engine crashed on them last time.
    paused: UseStateHandle<bool>,
}

impl Analyser {
    /// The analysis is answered, crashed or stopped: the clocks stop.
    fn settled(&self) {
        self.slow_timer.borrow_mut().take();
        self.ticker.borrow_mut().take();
        self.working.set(false);
        self.elapsed.set(0);
        self.progress.set(None);
    }

    /// Stops the analysis in flight (the Stop control): the worker is restarted, the texts
    /// and the results shown stay.
    fn stop(&self) {
        worker_client::stop(&self.studio);
        let after = *self.elapsed;
        self.settled();
        self.stopped.set(Some(after));
    }

    /// Analyses the texts and settings as they are now.
    fn run(&self, live: &Live) {
        self.stopped.set(None);
        let texts = &live.texts;
        // The CRD text goes separately: the channel sends it only when the worker does not
        // hold it yet.
        let job = Job {
            objects: vec![texts.object.rust().to_string()],
            old_object: old_object_of(&texts.old_object),
            old_crd: old_object_of(&texts.old_crd),
            options: {
                let mut options = Options {
                    field_validation: live.mode,
                    ..Options::default()
                };
                if !live.kubernetes_version.is_empty() {
                    options.kubernetes_version = live.kubernetes_version.clone();
                }
                options
            },
            query: PreviewQuery {
                now: browser_now(),
                ..live.query.clone()
            },
            ..Job::default()
        };
        let crd_text = texts.crd.clone();
        let analysed_crd = texts.crd.clone();
        let analysed_object = texts.object.clone();
        let analysed_old = texts.old_object.clone();
        // After 100 ms without an answer the status says the engine is working and the
        // results are dimmed (never emptied).
        if self.slow_timer.borrow().is_none() {
            let working = self.working.clone();
            *self.slow_timer.borrow_mut() = Some(Timeout::new(SLOW_MS, move || working.set(true)));
        }
        // The seconds since the oldest unanswered edit, shown beside "Analysing…" (with
        // Stop after STOP_AFTER_S).
        if self.ticker.borrow().is_none() {
            let started = js_sys::Date::now();
            let elapsed = self.elapsed.clone();
            let tick = Interval::new(1000, move || {
                elapsed.set(((js_sys::Date::now() - started) / 1000.0) as u32);
            });
            *self.ticker.borrow_mut() = Some((started, tick));
        }
        let me = self.clone();
        let listener: Rc<dyn Fn(WorkerEvent)> = Rc::new(move |event: WorkerEvent| {
            if let WorkerEvent::Progress { done, total } = event {
                me.progress.set(Some((done, total)));
                return;
            }
            me.settled();
            match event {
                WorkerEvent::Progress { .. } => {}
                WorkerEvent::Reply(reply) => {
                    let seq = {
                        let mut n = me.shown_seq.borrow_mut();
                        *n += 1;
                        *n
                    };
                    let crd = analysed_crd.clone();
                    me.shown.set(Some(Rc::new(Shown::of(seq, *reply, crd))));
                    me.crash.set(None);
                    me.paused.set(false);
                    if me.remember_crash {
                        LocalStorage::delete(CRASHED_ON_KEY);
                    }
                }
                WorkerEvent::Crashed { own, message, .. } => {
                    let what = if own {
                        let (crd, object) = (analysed_crd.rust(), analysed_object.rust());
                        format!(
                            "while analysing the CRD text ({} lines) and the Object text ({} \
                             lines) as they were at your last edit",
                            crd.lines().count(),
                            object.lines().count()
                        )
                    } else {
                        "while analysing another studio on this page".to_owned()
                    };
                    me.crash.set(Some(format!(
                        "The engine crashed {what}: {message}. It has been restarted and your \
                         texts are kept; edit a text to analyse again."
                    )));
                    // A reload must not run the same texts into the same crash.
                    if own && me.remember_crash {
                        let texts = [&analysed_crd, &analysed_object, &analysed_old];
                        save(CRASHED_ON_KEY, &fingerprint(texts.map(|t| t.rust())));
                    }
                }
            }
        });
        worker_client::submit(&self.studio, job, crd_text, listener);
    }
}

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
}

/// A message above the editors, optionally with a button bringing back the work a link or
/// an example put aside.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    /// What happened, in plain words.
    pub text: String,
    /// Whether the work put aside can be restored (shows a "Restore" button).
    pub restorable: bool,
}

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
    save(BACKUP_KEY, &mine);
    store_state(state);
    Some(Notice {
        text: "You opened a shared link. Your own work is kept:".to_owned(),
        restorable: true,
    })
}

/// The first-visit example as a state.
fn example_state() -> StudioState {
    StudioState {
        crd: EXAMPLE_CRD.to_owned(),
        object: EXAMPLE_OBJECT.to_owned(),
        ..StudioState::default()
    }
}

/// The autosaved work as a state.
fn saved_state() -> StudioState {
    let texts = load_texts();
    let query = load_query();
    StudioState {
        crd: texts.crd.rust().to_string(),
        object: texts.object.rust().to_string(),
        old_object: texts.old_object.rust().to_string(),
        old_crd: texts.old_crd.rust().to_string(),
        field_validation: LocalStorage::get::<FieldValidation>(FIELD_VALIDATION_KEY)
            .unwrap_or_default(),
        kubernetes_version: LocalStorage::get::<String>(KUBERNETES_VERSION_KEY).unwrap_or_default(),
        field_selector: query.field_selector,
        conversion_target: query.target,
        webhook_response: query.webhook_response,
        mappings: query.mappings,
        ..StudioState::default()
    }
}

/// Makes `state` the autosaved work.
fn store_state(state: &StudioState) {
    save(CRD_KEY, &state.crd);
    save(OBJECT_KEY, &state.object);
    save(OLD_OBJECT_KEY, &state.old_object);
    save(OLD_CRD_KEY, &state.old_crd);
    save(FIELD_VALIDATION_KEY, &state.field_validation);
    save(KUBERNETES_VERSION_KEY, &state.kubernetes_version);
    save(FIELD_SELECTOR_KEY, &state.field_selector);
    save(CONVERSION_TARGET_KEY, &state.conversion_target);
    save(WEBHOOK_RESPONSE_KEY, &state.webhook_response);
    save(MAPPINGS_KEY, &state.mappings);
}

/// A short fingerprint of texts (64-bit FNV-1a over them, separated), to recognise the texts
/// the engine crashed on without storing them twice.
fn fingerprint(texts: [AttrValue; 3]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for t in &texts {
        for b in t.as_bytes().iter().chain(std::iter::once(&0xff)) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// The state of a studio's texts and settings, with the open tab.
fn state_of(live: &Live, tab: BottomTab) -> StudioState {
    StudioState {
        crd: live.texts.crd.rust().to_string(),
        object: live.texts.object.rust().to_string(),
        old_object: live.texts.old_object.rust().to_string(),
        old_crd: live.texts.old_crd.rust().to_string(),
        field_validation: live.mode,
        kubernetes_version: live.kubernetes_version.clone(),
        version: live.version.to_string(),
        tab: tab_name(tab).to_owned(),
        field_selector: live.query.field_selector.clone(),
        conversion_target: live.query.target.clone(),
        webhook_response: live.query.webhook_response.clone(),
        mappings: live.query.mappings.clone(),
    }
}

/// Whether a state's texts are an example's, unchanged (nothing to lose by replacing them).
fn is_unchanged_example(state: &StudioState) -> bool {
    // No example has a Previous CRD: one typed is the user's work.
    gallery::is_unchanged_example(&state.crd, &state.object, &state.old_object)
        && state.old_crd.trim().is_empty()
}

/// A replacement of the user's texts waiting for the user's yes.
#[derive(Clone)]
struct Pending {
    /// The dialog's question.
    title: String,
    /// The confirming button's label.
    confirm: String,
    /// What replaces the current state.
    next: StudioState,
    /// The notice after the replacement.
    what: String,
}

/// The tab a state names (unknown names: Problems).
fn tab_of(name: &str) -> BottomTab {
    match name {
        "stored" => BottomTab::Stored,
        "cel" => BottomTab::Cel,
        "get" => BottomTab::Get,
        "conversion" => BottomTab::Conversion,
        "changes" => BottomTab::Changes,
        "explain" => BottomTab::Explain,
        _ => BottomTab::Problems,
    }
}

/// A tab's name in a state.
fn tab_name(tab: BottomTab) -> &'static str {
    match tab {
        BottomTab::Problems => "problems",
        BottomTab::Stored => "stored",
        BottomTab::Cel => "cel",
        BottomTab::Get => "get",
        BottomTab::Conversion => "conversion",
        BottomTab::Changes => "changes",
        BottomTab::Explain => "explain",
    }
}

/// The settings part of a state as the preview query.
fn query_of(state: &StudioState) -> PreviewQuery {
    PreviewQuery {
        field_selector: state.field_selector.clone(),
        target: state.conversion_target.clone(),
        webhook_response: state.webhook_response.clone(),
        mappings: state.mappings.clone(),
        ..PreviewQuery::default()
    }
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
            Some(state) => state.kubernetes_version.clone(),
            None => LocalStorage::get::<String>(KUBERNETES_VERSION_KEY).unwrap_or_default(),
        })
    };
    let live = {
        let (mode, query) = (*field_validation, (*query).clone());
        let kube_initial = (*kubernetes_version).clone();
        let initial = initial.clone();
        use_mut_ref(move || Live {
            texts: match &initial {
                Some(state) => Texts {
                    crd: EditorText::from_rust(state.crd.clone()),
                    object: EditorText::from_rust(state.object.clone()),
                    old_object: EditorText::from_rust(state.old_object.clone()),
                    old_crd: EditorText::from_rust(state.old_crd.clone()),
                },
                None => load_texts(),
            },
            mode,
            query,
            kubernetes_version: kube_initial,
            version: initial
                .as_ref()
                .map(|s| AttrValue::from(s.version.clone()))
                .unwrap_or_default(),
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
    let analyser = {
        let (shown, working, crash) = (shown.clone(), working.clone(), crash.clone());
        let studio = props.name.clone();
        let remember_crash = !props.embed;
        let paused = paused.clone();
        let (elapsed, progress, stopped) = (elapsed.clone(), progress.clone(), stopped.clone());
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
    let old_crd_control = use_memo((), |_| EditorControl::default());
    let bottom = {
        let initial = initial.clone();
        use_state(move || {
            initial
                .as_deref()
                .map_or(BottomTab::Problems, |s| tab_of(&s.tab))
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
    let crd_control = use_memo((), |_| EditorControl::default());
    let object_control = use_memo((), |_| EditorControl::default());
    let old_control = use_memo((), |_| EditorControl::default());

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
    use_effect_with((*kubernetes_version).clone(), move |v| {
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
            (
                *field_validation,
                (*query).clone(),
                (*kubernetes_version).clone(),
            ),
            move |(mode, query, kube)| {
                {
                    let mut live = live.borrow_mut();
                    live.mode = *mode;
                    live.query = query.clone();
                    live.kubernetes_version = kube.clone();
                }
                if !*paused {
                    analyser.run(&live.borrow());
                }
            },
        );
    }
    let on_analyse_anyway = {
        let live = live.clone();
        let analyser = analyser.clone();
        Callback::from(move |_: MouseEvent| analyser.run(&live.borrow()))
    };

    // An edit in an editor: the job is posted at once, from the editor's change handler, and
    // the page does not re-render (only the answer does); saving waits for a pause.
    let edit = |pane: Pane| {
        let live = live.clone();
        let analyser = analyser.clone();
        let autosave = autosave.clone();
        let old_in_use = old_in_use.clone();
        Callback::from(move |text: EditorText| {
            let mut state = live.borrow_mut();
            let slot = match pane {
                Pane::Crd => &mut state.texts.crd,
                Pane::Object => &mut state.texts.object,
                Pane::OldObject => &mut state.texts.old_object,
                Pane::OldCrd => &mut state.texts.old_crd,
            };
            *slot = text;
            analyser.run(&state);
            if !embed {
                autosave.schedule(state.texts.clone());
            }
            if pane == Pane::OldObject {
                old_in_use.set(old_object_of(&state.texts.old_object).is_some());
            }
        })
    };
    let on_crd = edit(Pane::Crd);
    let on_object = edit(Pane::Object);
    let on_old_object = edit(Pane::OldObject);
    let on_old_crd = edit(Pane::OldCrd);
    // The app puts a text in place of the user's: the editor reloads it.
    let replace = {
        let live = live.clone();
        let generations = generations.clone();
        let analyser = analyser.clone();
        let autosave = autosave.clone();
        let old_in_use = old_in_use.clone();
        let rerender = rerender.clone();
        let (field_validation, query, bottom) =
            (field_validation.clone(), query.clone(), bottom.clone());
        let kubernetes_version = kubernetes_version.clone();
        Rc::new(move |what: Replace| {
            {
                let mut state = live.borrow_mut();
                let mut g = generations.borrow_mut();
                match what {
                    Replace::Crd(text) => {
                        state.texts.crd = EditorText::from_rust(text);
                        g.crd += 1;
                    }
                    Replace::OldObject(text) => {
                        state.texts.old_object = text;
                        g.old += 1;
                    }
                    Replace::Object(text) => {
                        state.texts.object = EditorText::from_rust(text);
                        g.object += 1;
                    }
                    Replace::State(next) => {
                        state.texts = Texts {
                            crd: EditorText::from_rust(next.crd.clone()),
                            object: EditorText::from_rust(next.object.clone()),
                            old_object: EditorText::from_rust(next.old_object.clone()),
                            old_crd: EditorText::from_rust(next.old_crd.clone()),
                        };
                        state.mode = next.field_validation;
                        state.query = query_of(&next);
                        state.kubernetes_version = next.kubernetes_version.clone();
                        state.version = next.version.clone().into();
                        field_validation.set(next.field_validation);
                        kubernetes_version.set(next.kubernetes_version.clone());
                        query.set(query_of(&next));
                        bottom.set(tab_of(&next.tab));
                        g.object += 1;
                        g.crd += 1;
                        g.old += 1;
                        g.old_crd += 1;
                    }
                }
            }
            let state = live.borrow();
            analyser.run(&state);
            if !embed {
                autosave.schedule(state.texts.clone());
            }
            old_in_use.set(old_object_of(&state.texts.old_object).is_some());
            rerender.force_update();
        })
    };
    let on_rewrite_crd = {
        let replace = replace.clone();
        Callback::from(move |text: String| replace(Replace::Crd(text)))
    };
    // "Generate sample": the engine's minimal sample for the object's version, added as a
    // new document (or in place of a blank text: nothing typed is lost).
    let sample_text = (*shown)
        .as_ref()
        .and_then(|s| s.reply.previews.sample.clone());
    let on_sample = {
        let replace = replace.clone();
        let live = live.clone();
        let sample_text = sample_text.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(sample) = &sample_text {
                let current = live.borrow().texts.object.rust().to_string();
                replace(Replace::Object(crate::explain_model::with_sample(
                    &current, sample,
                )));
            }
        })
    };
    // The state as it is now (for Share, and to put aside before a replacement).
    let current = {
        let live = live.clone();
        let bottom = bottom.clone();
        Rc::new(move || state_of(&live.borrow(), *bottom))
    };
    // Replaces everything, putting the current work aside (restorable in one click). An
    // unchanged example is not put aside: it would push the user's own work out of the slot.
    let load = {
        let replace = replace.clone();
        let current = current.clone();
        let notice = notice.clone();
        Rc::new(move |next: StudioState, what: String| {
            let now = current();
            let have_backup = LocalStorage::raw()
                .get_item(BACKUP_KEY)
                .ok()
                .flatten()
                .is_some();
            let text = if have_backup && is_unchanged_example(&now) {
                format!("{what} Your work from before is still kept:")
            } else {
                save(BACKUP_KEY, &now);
                format!("{what} Your previous work is kept:")
            };
            replace(Replace::State(Box::new(next)));
            notice.set(Some(Notice {
                text,
                restorable: true,
            }));
        })
    };
    // What the confirmation dialog asks about: nothing is replaced until the user says so.
    let pending = use_state(|| None::<Rc<Pending>>);
    let dialog = use_node_ref();
    {
        let dialog = dialog.clone();
        use_effect_with(pending.is_some(), move |&open| {
            if let Some(d) = dialog.cast::<web_sys::HtmlDialogElement>() {
                if open && !d.open() {
                    let _ = d.show_modal();
                } else if !open && d.open() {
                    d.close();
                }
            }
        });
    }
    // Replaces the texts with `next` after asking, when they are the user's own work.
    let ask_then_load = {
        let load = load.clone();
        let current = current.clone();
        let pending = pending.clone();
        Rc::new(move |ask: Pending| {
            if is_unchanged_example(&current()) {
                load(ask.next, ask.what);
            } else {
                pending.set(Some(Rc::new(ask)));
            }
        })
    };
    let on_reset = {
        let ask_then_load = ask_then_load.clone();
        let current = current.clone();
        let notice = notice.clone();
        // The texts only: the settings and the open tab stay.
        Callback::from(move |_: MouseEvent| {
            let example = example_state();
            let now = current();
            if now.crd == example.crd
                && now.object == example.object
                && now.old_object == example.old_object
                && now.old_crd.trim().is_empty()
            {
                notice.set(Some(Notice {
                    text: "The texts are the CronTab example already.".to_owned(),
                    restorable: false,
                }));
                return;
            }
            ask_then_load(Pending {
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
        let ask_then_load = ask_then_load.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let chosen = gallery::by_slug(&select.value());
            select.set_value("");
            if let Some(example) = chosen {
                ask_then_load(Pending {
                    title: format!("Load the example “{}”?", example.title),
                    confirm: "Load example".to_owned(),
                    next: example.state(),
                    what: format!("Loaded the example “{}”.", example.title),
                });
            }
        })
    };
    let on_confirm = {
        let pending = pending.clone();
        let load = load.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(ask) = (*pending).clone() {
                pending.set(None);
                let ask = Rc::unwrap_or_clone(ask);
                load(ask.next, ask.what);
            }
        })
    };
    let on_cancel = {
        let pending = pending.clone();
        Callback::from(move |_: MouseEvent| pending.set(None))
    };
    // Escape closes the dialog too.
    let on_dialog_close = {
        let pending = pending.clone();
        Callback::from(move |_: Event| pending.set(None))
    };
    // The two-tab choice: load the texts the other tab saved (this tab's are put aside), or
    // save this tab's over them (theirs are put aside).
    let on_take_theirs = {
        let replace = replace.clone();
        let current = current.clone();
        let notice = notice.clone();
        let conflict = conflict.clone();
        let autosave = autosave.clone();
        Callback::from(move |_: MouseEvent| {
            let now = current();
            save(BACKUP_KEY, &now);
            LocalStorage::delete(SET_ASIDE_ON_CLOSE_KEY);
            let theirs = saved_state();
            autosave.release();
            replace(Replace::State(Box::new(StudioState {
                tab: now.tab,
                ..theirs
            })));
            conflict.set(false);
            notice.set(Some(Notice {
                text: "Loaded the texts the other tab saved. This tab's texts are kept:".to_owned(),
                restorable: true,
            }));
        })
    };
    let on_keep_mine = {
        let live = live.clone();
        let notice = notice.clone();
        let conflict = conflict.clone();
        let autosave = autosave.clone();
        Callback::from(move |_: MouseEvent| {
            save(BACKUP_KEY, &saved_state());
            LocalStorage::delete(SET_ASIDE_ON_CLOSE_KEY);
            autosave.save_all_now(live.borrow().texts.clone());
            conflict.set(false);
            notice.set(Some(Notice {
                text: "Saved this tab's texts. The texts the other tab saved are kept:".to_owned(),
                restorable: true,
            }));
        })
    };
    // Swaps the current work with the work put aside.
    let on_restore = {
        let replace = replace.clone();
        let current = current.clone();
        let notice = notice.clone();
        Callback::from(move |_: MouseEvent| {
            let Ok(aside) = LocalStorage::get::<StudioState>(BACKUP_KEY) else {
                notice.set(Some(Notice {
                    text: "There is no work put aside to restore.".to_owned(),
                    restorable: false,
                }));
                return;
            };
            save(BACKUP_KEY, &current());
            replace(Replace::State(Box::new(aside)));
            notice.set(Some(Notice {
                text: "Your previous work is back. What it replaced is kept too:".to_owned(),
                restorable: true,
            }));
        })
    };
    let on_dismiss = {
        let notice = notice.clone();
        Callback::from(move |_: MouseEvent| notice.set(None))
    };
    let on_share = {
        let current = current.clone();
        let share_message = share_message.clone();
        Callback::from(move |_: MouseEvent| {
            let state = current();
            let fragment = studio_state::encode(&state);
            if fragment.len() > studio_state::MAX_LINK_CHARS {
                share_message.set(Some((
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
            copy_to_clipboard(&link, &share_message, fragment.len());
        })
    };
    let on_field_validation = {
        let field_validation = field_validation.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let mode = match select.value().as_str() {
                "Warn" => FieldValidation::Warn,
                "Ignore" => FieldValidation::Ignore,
                _ => FieldValidation::Strict,
            };
            field_validation.set(mode);
        })
    };
    let on_kubernetes_version = {
        let kubernetes_version = kubernetes_version.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            kubernetes_version.set(select.value());
        })
    };
    let kube_shown =
        crd_studio_engine::kube_version::KubernetesVersion::parse_or_default(&kubernetes_version)
            .to_string();
    let theme_choice = use_state(theme::stored);
    let on_theme = {
        let theme_choice = theme_choice.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let chosen = Theme::parse(&select.value());
            theme::store(chosen);
            theme::apply(chosen);
            theme_choice.set(chosen);
        })
    };
    let on_toggle_old_crd = {
        let old_crd_open = old_crd_open.clone();
        Callback::from(move |_: MouseEvent| old_crd_open.set(!*old_crd_open))
    };
    let on_open_old_crd = {
        let old_crd_open = old_crd_open.clone();
        Callback::from(move |()| old_crd_open.set(true))
    };
    let on_toggle_old = {
        let old_open = old_open.clone();
        Callback::from(move |_: MouseEvent| old_open.set(!*old_open))
    };
    let on_copy_object = {
        let replace = replace.clone();
        let live = live.clone();
        let old_open = old_open.clone();
        Callback::from(move |()| {
            let object = live.borrow().texts.object.clone();
            replace(Replace::OldObject(object));
            old_open.set(true);
        })
    };
    let on_clear_old = {
        let replace = replace.clone();
        Callback::from(move |_: MouseEvent| replace(Replace::OldObject(EditorText::default())))
    };
    // Puts the cursor in an editor; the old object editor is opened first when collapsed
    // (it exists only while open, so the focus waits for the next render).
    let focus = {
        let crd_control = crd_control.clone();
        let object_control = object_control.clone();
        let old_control = old_control.clone();
        let old_open = old_open.clone();
        let old_crd_control = old_crd_control.clone();
        let old_crd_open = old_crd_open.clone();
        Callback::from(move |t: FocusTarget| {
            let control = match t.pane {
                Pane::Crd => (*crd_control).clone(),
                Pane::Object => (*object_control).clone(),
                Pane::OldObject => (*old_control).clone(),
                Pane::OldCrd => (*old_crd_control).clone(),
            };
            if t.pane == Pane::OldCrd && !*old_crd_open {
                old_crd_open.set(true);
                Timeout::new(0, move || control.focus_at(t.line, t.utf16_column)).forget();
            } else if t.pane == Pane::OldObject && !*old_open {
                old_open.set(true);
                Timeout::new(0, move || control.focus_at(t.line, t.utf16_column)).forget();
            } else {
                control.focus_at(t.line, t.utf16_column);
            }
        })
    };
    let focus_changes = focus.clone();
    // A finding's repair, applied in its editor as the user's own edit (Undo takes it back).
    let on_fix = {
        let crd_control = crd_control.clone();
        let object_control = object_control.clone();
        let old_control = old_control.clone();
        let old_crd_control = old_crd_control.clone();
        Callback::from(move |(pane, fix): (Pane, EditorFix)| match pane {
            Pane::Crd => crd_control.apply_fix(&fix),
            Pane::Object => object_control.apply_fix(&fix),
            Pane::OldObject => old_control.apply_fix(&fix),
            Pane::OldCrd => old_crd_control.apply_fix(&fix),
        })
    };
    let on_problem = {
        let focus = focus.clone();
        Callback::from(move |row: ProblemRow| {
            if let Some(t) = row.target {
                focus.emit(t);
            }
        })
    };
    let on_query = {
        let query = query.clone();
        Callback::from(move |q: PreviewQuery| query.set(q))
    };
    let on_explain = {
        let query = query.clone();
        Callback::from(move |(explain_path, explain_recursive): (String, bool)| {
            query.set(PreviewQuery {
                explain_path,
                explain_recursive,
                ..(*query).clone()
            })
        })
    };
    let on_selector = {
        let query = query.clone();
        Callback::from(move |field_selector: String| {
            query.set(PreviewQuery {
                field_selector,
                ..(*query).clone()
            })
        })
    };
    // The tab row scrolls sideways on a narrow screen: a tab the keyboard focuses is
    // scrolled into view whole (a browser leaves a partly visible one where it is).
    let reveal_tab = Callback::from(|e: FocusEvent| {
        if let Some(tab) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        {
            let options = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&options, &"block".into(), &"nearest".into());
            let _ = js_sys::Reflect::set(&options, &"inline".into(), &"nearest".into());
            if let Some(f) = js_sys::Reflect::get(&tab, &"scrollIntoView".into())
                .ok()
                .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            {
                let _ = f.call1(&tab, &options);
            }
        }
    });
    let on_tab = |tab: BottomTab| {
        let bottom = bottom.clone();
        Callback::from(move |_: MouseEvent| bottom.set(tab))
    };

    let empty = Rc::new(Vec::new());
    let (crd_marks, object_marks, old_marks, old_crd_marks) = match &*shown {
        Some(s) => (
            s.crd_marks.clone(),
            s.object_marks.clone(),
            s.old_marks.clone(),
            s.old_crd_marks.clone(),
        ),
        None => (empty.clone(), empty.clone(), empty.clone(), empty),
    };
    // A long analysis shows how far it is and how long it has run, and can be stopped. The
    // live status itself stays "Analysing…" (a screen reader is not told every second).
    let on_stop = {
        let analyser = analyser.clone();
        Callback::from(move |_: MouseEvent| analyser.stop())
    };
    // Always rendered (hidden when idle): a child that comes and goes would shift the
    // header's children, and Yew, matching them from the end, would replace the status
    // element instead of updating it.
    let running = {
        let active = *working || (shown.is_none() && !*paused && stopped.is_none());
        let detail = if active {
            running_detail(*progress, *elapsed)
        } else {
            String::new()
        };
        let stop = active && *elapsed >= STOP_AFTER_S;
        html! {
            <span class="running" hidden={detail.is_empty() && !stop}>
                if !detail.is_empty() {
                    <span class="progress">{ detail }</span>
                }
                if stop {
                    <button type="button" class="small stop" onclick={on_stop}
                        title="Stop this analysis (the engine is restarted; your texts stay)">{ "Stop" }</button>
                }
            </span>
        }
    };
    let status_line = match &*shown {
        Some(_) if *working => {
            html! { <p class="status working" role="status" title="The engine is analysing the newest edit">{ "Analysing…" }</p> }
        }
        _ if stopped.is_some() => {
            let after = stopped.unwrap_or_default();
            html! { <p class="status stopped" role="status">{ format!("Stopped after {after} s: not analysed") }</p> }
        }
        Some(s) => {
            let class = if s.status.accepted {
                "status ok"
            } else {
                "status bad"
            };
            html! { <p class={class} role="status" title={s.status.text.clone()}>{ s.status.text.clone() }</p> }
        }
        None if *paused => {
            html! { <p class="status" role="status">{ "Not analysed (the engine crashed on these texts)" }</p> }
        }
        None => html! { <p class="status" role="status">{ "Analysing…" }</p> },
    };
    let mode_name = field_validation_name(*field_validation);
    let old_in_use = *old_in_use;
    let texts = live.borrow().texts.clone();
    let selected_version = live.borrow().version.clone();
    let on_version = {
        let live = live.clone();
        let rerender = rerender.clone();
        Callback::from(move |version: AttrValue| {
            live.borrow_mut().version = version;
            rerender.force_update();
        })
    };
    let generations = *generations.borrow();
    let old_state = if old_in_use {
        html! { <span class="pill update" title="The Object is analysed as an update of this old object">{ "update" }</span> }
    } else {
        html! { <span class="pill" title="Empty: the Object is analysed as a create">{ "off · create" }</span> }
    };
    let counts = shown
        .as_ref()
        .map(|s| row_counts(&s.rows))
        .unwrap_or_default();
    let (cel_rules, cel_bad) = shown.as_ref().map(|s| s.cel_badge).unwrap_or_default();
    let changes_badge = shown.as_ref().map(|s| s.changes_badge).unwrap_or_default();
    let count_class = if counts.errors > 0 {
        "count error"
    } else if counts.warnings > 0 {
        "count warning"
    } else {
        "count"
    };

    let editors = html! {
        <main class="editors">

            <div class={classes!("object-column", "crd-column", (*old_crd_open).then_some("old-open"))}>
            <section class="pane" aria-labelledby="crd-title">
                <h2 id="crd-title">{ "CustomResourceDefinition" }<span class="file">{ "crd.yaml" }</span>
                    <span class="hint" title="In the editors, Tab and Shift+Tab move the focus on; Ctrl+] and Ctrl+[ indent and outdent the line">{ "Tab moves on · Ctrl+] indents" }</span></h2>
                <CodeEditor
                    label={Pane::Crd.label()}
                    text={texts.crd.clone()}
                    generation={generations.crd}
                    diagnostics={crd_marks}
                    on_change={on_crd}
                    control={(*crd_control).clone()}
                    read_only={props.lock_crd}
                    assist={Some((analyser.studio.clone(), AssistEditor::Crd))}
                />
            </section>
            { crate::changes_view::previous_crd_pane(crate::changes_view::PreviousCrdPane {
                open: *old_crd_open,
                in_use: !texts.old_crd.is_blank(),
                text: texts.old_crd.clone(),
                generation: generations.old_crd,
                marks: old_crd_marks,
                on_toggle: on_toggle_old_crd,
                on_change: on_old_crd,
                control: (*old_crd_control).clone(),
            }) }
            </div>
            <div class={classes!("object-column", (*old_open).then_some("old-open"))}>
                <section class="pane" aria-labelledby="object-title">
                    <h2 id="object-title">{ "Object" }<span class="file">{ "object.yaml" }</span>
                        <button type="button" class="small generate-sample" onclick={on_sample}
                            disabled={sample_text.is_none()}
                            title="Add a minimal object the schema accepts (required fields, enums, bounds) as a new document">{ "Generate sample" }</button></h2>
                    <CodeEditor
                        label={Pane::Object.label()}
                        text={texts.object.clone()}
                        generation={generations.object}
                        diagnostics={object_marks}
                        on_change={on_object}
                        control={(*object_control).clone()}
                        assist={Some((analyser.studio.clone(), AssistEditor::Object))}
                    />
                </section>
                <section class={classes!("pane", "old-pane", (!*old_open).then_some("collapsed"))} aria-labelledby="old-title">
                    <h2>
                        <button type="button" id="old-title" class="disclosure"
                            aria-expanded={if *old_open { "true" } else { "false" }}
                            aria-controls="old-object-body"
                            onclick={on_toggle_old}>
                            <span class="chevron" aria-hidden="true">{ if *old_open { "▾" } else { "▸" } }</span>
                            { "Old object" }
                        </button>
                        <span class="file">{ "old-object.yaml" }</span>
                        { old_state }
                        <span class="spacer"></span>
                        <CopyButton on_copy={on_copy_object} label="Copy from Object"
                            title="Use the current Object as the old object, then edit the Object to see the update" />
                        if old_in_use {
                            <button type="button" class="small" onclick={on_clear_old}
                                title="Empty the old object: back to the create path">
                                { "Clear" }
                            </button>
                        }
                    </h2>
                    if *old_open {
                        <div id="old-object-body" class="old-body">
                            <CodeEditor
                                label={Pane::OldObject.label()}
                                text={texts.old_object.clone()}
                                generation={generations.old}
                                diagnostics={old_marks}
                                on_change={on_old_object}
                                control={(*old_control).clone()}
                                assist={Some((analyser.studio.clone(), AssistEditor::Object))}
                            />
                        </div>
                    }
                </section>
            </div>
        </main>
    };
    let bottom_area = html! {
        <section class={classes!("bottom", (*working || stopped.is_some()).then_some("stale"))} aria-busy={if *working { "true" } else { "false" }}>
            <div class="tabs" role="tablist" aria-label="Results" onfocusin={reveal_tab}>
                <button type="button" role="tab" id="tab-problems" aria-controls="panel-problems"
                    aria-selected={if *bottom == BottomTab::Problems { "true" } else { "false" }}
                    onclick={on_tab(BottomTab::Problems)}>
                    { "Problems" }<span class={count_class}>{ counts.errors + counts.warnings + counts.infos }</span>
                </button>
                <button type="button" role="tab" id="tab-stored" aria-controls="panel-stored"
                    aria-selected={if *bottom == BottomTab::Stored { "true" } else { "false" }}
                    onclick={on_tab(BottomTab::Stored)}>
                    { "Stored object" }
                </button>
                <button type="button" role="tab" id="tab-cel" aria-controls="panel-cel"
                    title="The x-kubernetes-validations rules and what they do on the objects"
                    aria-selected={if *bottom == BottomTab::Cel { "true" } else { "false" }}
                    onclick={on_tab(BottomTab::Cel)}>
                    { "CEL rules" }<span class={if cel_bad { "count error" } else { "count" }}>{ cel_rules }</span>
                </button>
                <button type="button" role="tab" id="tab-get" aria-controls="panel-get"
                    title="What kubectl get prints, field selectors, versions and /scale"
                    aria-selected={if *bottom == BottomTab::Get { "true" } else { "false" }}
                    onclick={on_tab(BottomTab::Get)}>
                    { "kubectl get" }
                </button>
                <button type="button" role="tab" id="tab-conversion" aria-controls="panel-conversion"
                    title="The conversion strategy, the webhook's ConversionReview and authored mappings"
                    aria-selected={if *bottom == BottomTab::Conversion { "true" } else { "false" }}
                    onclick={on_tab(BottomTab::Conversion)}>
                    { "Conversion" }
                </button>
                <button type="button" role="tab" id="tab-changes" aria-controls="panel-changes"
                    title="The CRD as an update of the Previous CRD: the server's verdict, the changes, and the objects already stored"
                    aria-selected={if *bottom == BottomTab::Changes { "true" } else { "false" }}
                    onclick={on_tab(BottomTab::Changes)}>
                    { "Changes" }
                    if changes_badge > 0 {
                        <span class="count error">{ changes_badge }</span>
                    }
                </button>
                <button type="button" role="tab" id="tab-explain" aria-controls="panel-explain"
                    title="What kubectl explain prints for the resource, field by field"
                    aria-selected={if *bottom == BottomTab::Explain { "true" } else { "false" }}
                    onclick={on_tab(BottomTab::Explain)}>
                    { "Explain" }
                </button>
            </div>
            <ProblemsPanel
                shown={(*shown).clone()}
                hidden={*bottom != BottomTab::Problems}
                on_select={on_problem}
                {on_fix}
                paused={*paused}
            />
            <StoredPanel
                shown={(*shown).clone()}
                hidden={*bottom != BottomTab::Stored}
                on_jump={focus.clone()}
                version={selected_version}
                {on_version}
            />
            <CelPanel
                shown={(*shown).clone()}
                crd={texts.crd.clone()}
                hidden={*bottom != BottomTab::Cel}
                on_jump={focus}
                on_rewrite={on_rewrite_crd}
            />
            <GetPanel
                shown={(*shown).clone()}
                hidden={*bottom != BottomTab::Get}
                selector={AttrValue::from(query.field_selector.clone())}
                {on_selector}
            />
            <ConversionPanel
                shown={(*shown).clone()}
                hidden={*bottom != BottomTab::Conversion}
                query={(*query).clone()}
                {on_query}
            />
            <ChangesPanel
                shown={(*shown).clone()}
                hidden={*bottom != BottomTab::Changes}
                on_jump={focus_changes}
                on_open_previous={on_open_old_crd}
            />
            <ExplainPanel
                shown={(*shown).clone()}
                hidden={*bottom != BottomTab::Explain}
                path={AttrValue::from(query.explain_path.clone())}
                recursive={query.explain_recursive}
                on_change={on_explain}
            />
        </section>
    };
    let crash_alert = (*crash)
        .clone()
        .map(|message| html! { <p class="crash" role="alert">{ message }</p> });
    let open_in_studio = {
        let current = current.clone();
        let open_url = props.open_url.clone();
        Callback::from(move |e: MouseEvent| {
            // The link carries the state as it is when clicked.
            // Yew delegates events: the anchor is the target's closest `a`, not the current
            // target.
            let anchor = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|t| t.closest("a").ok().flatten());
            if let Some(a) = anchor {
                let href = format!("{}#{}", open_url, studio_state::encode(&current()));
                let _ = a.set_attribute("href", &href);
            }
        })
    };
    let save_bar = (*save_error).clone().map(|(why, href)| {
        html! {
            <div class="notice conflict" role="alert">
                <span>{ format!("Your texts could not be saved in this browser: {why}. They are kept in this tab only; saving is tried again after each edit.") }</span>
                <a href={href} download="crd-studio-texts.yaml">{ "Download the texts (crd-studio-texts.yaml)" }</a>
            </div>
        }
    });
    let stopped_bar = stopped.map(|after| {
        let analyser = analyser.clone();
        let live = live.clone();
        let again = Callback::from(move |_: MouseEvent| analyser.run(&live.borrow()));
        html! {
            <div class="notice" role="alert">
                <span>{ format!("You stopped the analysis after {after} s. Your texts are kept; the results below are from before your last edit. Editing a text analyses it again.") }</span>
                <button type="button" class="small" onclick={again}>{ "Analyse now" }</button>
            </div>
        }
    });
    let paused_bar = (*paused).then(|| {
        html! {
            <div class="notice conflict" role="alert">
                <span>{ "Last time, the engine crashed on these texts, so they are not analysed until you ask (editing a text analyses it too)." }</span>
                <button type="button" class="small" onclick={on_analyse_anyway}>{ "Analyse now" }</button>
            </div>
        }
    });
    let notice_bar = (*notice).clone().map(|n| {
        html! {
            <div class="notice" aria-live="polite">
                <span>{ n.text }</span>
                if n.restorable {
                    <button type="button" class="small" onclick={on_restore}>{ "Restore my previous work" }</button>
                }
                <button type="button" class="small quiet" aria-label="Dismiss this message" onclick={on_dismiss}>{ "Dismiss" }</button>
            </div>
        }
    });
    let conflict_bar = (*conflict).then(|| {
        html! {
            <div class="notice conflict" role="alert">
                <span>{ "Another tab of the studio saved different texts. This tab stops saving until you choose:" }</span>
                <button type="button" class="small" onclick={on_take_theirs}>{ "Load the other tab's texts" }</button>
                <button type="button" class="small" onclick={on_keep_mine}>{ "Keep this tab's texts" }</button>
            </div>
        }
    });
    let confirm_dialog = {
        let ask = (*pending).clone();
        let title = ask.as_ref().map(|a| a.title.clone()).unwrap_or_default();
        let confirm = ask.as_ref().map(|a| a.confirm.clone()).unwrap_or_default();
        html! {
            <dialog class="confirm" ref={dialog} aria-labelledby="confirm-title"
                aria-describedby="confirm-text" onclose={on_dialog_close}>
                <h2 id="confirm-title">{ title }</h2>
                <p id="confirm-text">{ "Your CRD, object, old object and Previous CRD texts are replaced. They are put aside: \
                    “Restore my previous work” brings them back." }</p>
                <div class="actions">
                    <button type="button" class="small" onclick={on_cancel} autofocus=true>{ "Cancel" }</button>
                    <button type="button" class="small primary" onclick={on_confirm}>{ confirm }</button>
                </div>
            </dialog>
        }
    };
    let share_feedback = (*share_message).clone().map(|(text, download)| {
        html! {
            <p class="share-message" aria-live="polite">
                { text }
                if let Some(href) = download {
                    { " " }
                    <a href={href} download="crd-studio-texts.yaml">{ "Download the texts (crd-studio-texts.yaml)" }</a>
                }
            </p>
        }
    });
    if embed {
        return html! {
            <div class="studio embed" ref={root}>
                <header class="topbar">
                    { status_line }
                    { running.clone() }
                    <a class="open-studio" href={props.open_url.clone()} target="_blank" rel="noopener" onclick={open_in_studio}>
                        { "Open in CRD Studio" }
                    </a>
                </header>
                { stopped_bar.clone() }
                { crash_alert }
                { editors }
                { bottom_area }
            </div>
        };
    }
    html! {
        <div class="studio" ref={root}>
            <header class="topbar">
                <h1>{ "CRD Studio" }</h1>
                { status_line }
                { running }
                <label class="option" title="How the server treats unknown and duplicate fields, like kubectl --validate">
                    <span>{ "Field validation" }</span>
                    <select aria-label="Field validation" onchange={on_field_validation}>
                        { for [FieldValidation::Strict, FieldValidation::Warn, FieldValidation::Ignore].into_iter().map(|m| {
                            let name = field_validation_name(m);
                            html! { <option value={name} selected={name == mode_name}>{ name }</option> }
                        }) }
                    </select>
                </label>
                <label class="option" title="The Kubernetes version whose API server is modelled: its CEL libraries, formats and feature gates">
                    <span>{ "Kubernetes" }</span>
                    <select aria-label="Kubernetes version" onchange={on_kubernetes_version}>
                        { for crd_studio_engine::kube_version::KubernetesVersion::all().rev().map(|v| {
                            let name = v.to_string();
                            html! { <option value={name.clone()} selected={name == kube_shown}>{ name }</option> }
                        }) }
                    </select>
                </label>
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
                <label class="option theme" title="Light or dark colours; System theme follows your system's setting">
                    <span>{ "Theme" }</span>
                    <select aria-label="Theme" onchange={on_theme}>
                        { for Theme::ALL.into_iter().map(|t| html! {
                            <option value={t.name()} selected={t == *theme_choice}>{ t.label() }</option>
                        }) }
                    </select>
                </label>
            </header>
            { share_feedback }
            { conflict_bar }
            { save_bar }
            { paused_bar }
            { stopped_bar }
            { notice_bar }
            { crash_alert }
            { editors }
            { bottom_area }
            { confirm_dialog }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ProblemsProps {
    shown: Option<Rc<Shown>>,
    hidden: bool,
    on_select: Callback<ProblemRow>,
    /// Applies a finding's repair.
    on_fix: Callback<(Pane, EditorFix)>,
    /// The texts wait for the user after a crash.
    paused: bool,
}

#[component]
fn ProblemsPanel(props: &ProblemsProps) -> Html {
    let rows: &[ProblemRow] = props.shown.as_ref().map_or(&[], |s| &s.rows);
    let body = if props.shown.is_none() {
        if props.paused {
            html! { <p class="empty">{ "Not analysed: the engine crashed on these texts last time (see above)." }</p> }
        } else {
            html! { <p class="empty">{ "Analysing…" }</p> }
        }
    } else if rows.is_empty() {
        html! { <p class="empty">{ "No problems: the server would accept these texts." }</p> }
    } else {
        html! {
            <ul class="problem-list" role="list">
                { for rows.iter().map(|row| problem_item(row, &props.on_select, &props.on_fix)) }
            </ul>
        }
    };
    html! {
        <section id="panel-problems" class="panel problems" role="region" aria-label="Problems"
            hidden={props.hidden}>
            { body }
        </section>
    }
}

fn problem_item(
    row: &ProblemRow,
    on_select: &Callback<ProblemRow>,
    on_fix: &Callback<(Pane, EditorFix)>,
) -> Html {
    html! { <ProblemItem row={row.clone()} on_select={on_select.clone()} on_fix={on_fix.clone()} /> }
}

#[derive(Properties, PartialEq)]
struct ProblemItemProps {
    row: ProblemRow,
    on_select: Callback<ProblemRow>,
    on_fix: Callback<(Pane, EditorFix)>,
}

/// One finding: a headline in plain words (a button that goes to the place), the exact text
/// beneath it with its lines kept, and a Copy button for that text.
#[component]
fn ProblemItem(props: &ProblemItemProps) -> Html {
    let row = &props.row;
    // None: not copied yet; Some(true): copied; Some(false): the browser refused.
    let copied = use_state(|| None::<bool>);
    let severity = match row.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    };
    // A note (the server's "rules were not checked") reads as a note, whatever its severity.
    let (class, badge) = if row.note && row.severity != Severity::Info {
        ("note", "note")
    } else {
        (severity, severity)
    };
    let content = html! {
        <>
            <span class={classes!("sev", class)}>{ badge }</span>
            <span class="place">{ row.place.clone() }</span>
            <span class="summary">{ row.summary.clone() }</span>
        </>
    };
    let head = if row.target.is_some() {
        let onclick = {
            let row = row.clone();
            props.on_select.reform(move |_: MouseEvent| row.clone())
        };
        html! {
            <button type="button" class="problem-button" title={row.code.clone()} {onclick}>{ content }</button>
        }
    } else {
        html! { <div class="problem-button" title={row.code.clone()}>{ content }</div> }
    };
    let on_copy = {
        let copied = copied.clone();
        let text = row.message.clone();
        Callback::from(move |_: MouseEvent| copy_with_feedback(&text, &copied))
    };
    let (copy_label, copy_class) = match *copied {
        None => ("Copy", None),
        Some(true) => ("Copied", Some("done")),
        Some(false) => ("Select the text to copy", Some("failed")),
    };
    let who = if row.code.starts_with("studio.") {
        "the studio's text"
    } else {
        "the server's exact text"
    };
    html! {
        <li class={classes!("problem", class)}>
            <div class="problem-head">
                { head }
                <button type="button" class={classes!("copy-exact", copy_class)} onclick={on_copy}
                    title={format!("Copy {who}")} aria-label={format!("Copy {who}")}>
                    { copy_label }
                </button>
                <span class="visually-hidden" aria-live="polite">
                    { if *copied == Some(true) { "Copied" } else { "" } }
                </span>
            </div>
            if !row.fixes.is_empty() {
                <div class="problem-fixes">
                    { for row.fixes.iter().map(|(pane, fix)| {
                        let onclick = {
                            let pair = (*pane, fix.clone());
                            props.on_fix.reform(move |_: MouseEvent| pair.clone())
                        };
                        let label = format!("Fix: {}", fix.title.replace('`', ""));
                        html! {
                            <button type="button" class="small fix" title={label.clone()} aria-label={label} {onclick}>
                                { fix_title(&fix.title) }
                            </button>
                        }
                    }) }
                </div>
            }
            if row.show_exact {
                <pre class="exact" aria-label={who}>{ row.message.clone() }</pre>
            }
        </li>
    }
}

/// A fix's title with its `code` parts as code.
fn fix_title(title: &str) -> Html {
    html! {
        <>{ for title.split('`').enumerate().map(|(i, part)| if i % 2 == 1 {
            html! { <code>{ part.to_owned() }</code> }
        } else {
            html! { { part.to_owned() } }
        }) }</>
    }
}

/// Copies `text` to the clipboard and says how it went in `state`.
fn copy_with_feedback(text: &str, state: &UseStateHandle<Option<bool>>) {
    let Ok(promise) = crate::copy_button::write_clipboard(text) else {
        state.set(Some(false));
        return;
    };
    // The feedback stays two seconds, then the button reads "Copy" again.
    let show = |ok: bool, state: UseStateHandle<Option<bool>>| {
        state.set(Some(ok));
        Timeout::new(2000, move || state.set(None)).forget();
    };
    let done = {
        let state = state.clone();
        Closure::once(move |_: JsValue| show(true, state))
    };
    let failed = {
        let state = state.clone();
        Closure::once(move |_: JsValue| show(false, state))
    };
    let _ = promise.then2(&done, &failed);
    // Each runs at most once, when the clipboard answers.
    done.forget();
    failed.forget();
}

/// The words beside "Analysing…" for a long analysis: how far it is (when there is more
/// than one object document) and, after a second, how long it has run.
fn running_detail(progress: Option<(usize, usize)>, elapsed: u32) -> String {
    let mut parts = Vec::new();
    if let Some((done, total)) = progress.filter(|p| p.1 > 1) {
        parts.push(format!("{done} of {total} objects"));
    }
    if elapsed >= 1 {
        parts.push(format!("{elapsed} s"));
    }
    parts.join(", ")
}
