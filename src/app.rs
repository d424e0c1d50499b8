//! The studio page: the CRD, Object and Old object editors, the status line, the field
//! validation selector, and the Problems / Stored object / CEL rules panels.

use std::rc::Rc;

use crd_studio_engine::{FieldValidation, Options, Severity};
use gloo::storage::{LocalStorage, Storage};
use gloo::timers::callback::Timeout;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::cel_model::tab_badge;
use crate::cel_view::CelPanel;
use crate::conversion_view::ConversionPanel;
use crate::editor::{CodeEditor, EditorControl};
use crate::get_view::GetPanel;
use crate::shared_text::SharedText;
use crate::stored_panel::StoredPanel;
use crate::view_model::{
    editor_diagnostics, problem_rows, row_counts, status, EditorDiagnostic, FocusTarget, Pane,
    ProblemRow, Status, EXAMPLE_CRD, EXAMPLE_OBJECT,
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
/// localStorage key of the field validation mode.
pub const FIELD_VALIDATION_KEY: &str = "crd-studio.field-validation";
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
/// This studio's name in the worker protocol (embedded studios have their own).
const STUDIO: &str = "main";

/// The texts being edited.
#[derive(Clone, PartialEq)]
struct Texts {
    crd: AttrValue,
    object: AttrValue,
    /// Empty when there is no old object.
    old_object: AttrValue,
    /// Bumped when the app replaces the CRD and object texts (the editors then reload them).
    generation: u32,
    /// Bumped when the app replaces the CRD text (the example, a rule edited in the CEL
    /// panel): the CRD editor reloads it.
    crd_generation: u32,
    /// The same for the old object text.
    old_generation: u32,
}

enum Edit {
    Crd(String),
    /// Sets the CRD text from the app (a rule edited in the CEL panel).
    ReplaceCrd(String),
    Object(String),
    OldObject(String),
    /// Sets the old object text from the app (copy of the object, or cleared).
    ReplaceOldObject(AttrValue),
    ResetExample,
}

impl Reducible for Texts {
    type Action = Edit;

    fn reduce(self: Rc<Self>, action: Edit) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Edit::Crd(text) => next.crd = text.into(),
            Edit::ReplaceCrd(text) => {
                next.crd = text.into();
                next.crd_generation += 1;
            }
            Edit::Object(text) => next.object = text.into(),
            Edit::OldObject(text) => next.old_object = text.into(),
            Edit::ReplaceOldObject(text) => {
                next.old_object = text;
                next.old_generation += 1;
            }
            Edit::ResetExample => {
                next.crd = AttrValue::Static(EXAMPLE_CRD);
                next.object = AttrValue::Static(EXAMPLE_OBJECT);
                next.old_object = AttrValue::Static("");
                next.generation += 1;
                next.crd_generation += 1;
                next.old_generation += 1;
            }
        }
        Rc::new(next)
    }
}

fn load_texts() -> Texts {
    let load = |key: &str| LocalStorage::get::<String>(key).ok().map(AttrValue::from);
    Texts {
        crd: load(CRD_KEY).unwrap_or(AttrValue::Static(EXAMPLE_CRD)),
        object: load(OBJECT_KEY).unwrap_or(AttrValue::Static(EXAMPLE_OBJECT)),
        old_object: load(OLD_OBJECT_KEY).unwrap_or_default(),
        generation: 0,
        crd_generation: 0,
        old_generation: 0,
    }
}

fn load_query() -> PreviewQuery {
    let load = |key: &str| LocalStorage::get::<String>(key).unwrap_or_default();
    PreviewQuery {
        field_selector: load(FIELD_SELECTOR_KEY),
        target: load(CONVERSION_TARGET_KEY),
        webhook_response: load(WEBHOOK_RESPONSE_KEY),
        mappings: load(MAPPINGS_KEY),
        now: String::new(),
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
fn old_object_of(text: &str) -> Option<String> {
    (!text.trim().is_empty()).then(|| text.to_owned())
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
    /// The CEL tab's badge: rules, and whether one is broken or failing.
    cel_badge: (usize, bool),
    pub(crate) reply: Reply,
    /// The CRD text the analysis was made from.
    pub(crate) crd: AttrValue,
}

impl PartialEq for Shown {
    fn eq(&self, other: &Shown) -> bool {
        self.seq == other.seq
    }
}

impl Shown {
    fn of(seq: u64, reply: Reply, crd: AttrValue) -> Shown {
        let analysis = &reply.analysis;
        Shown {
            cel_badge: tab_badge(analysis),
            seq,
            status: status(analysis),
            rows: problem_rows(analysis),
            crd_marks: Rc::new(editor_diagnostics(analysis, Pane::Crd)),
            object_marks: Rc::new(editor_diagnostics(analysis, Pane::Object)),
            old_marks: Rc::new(editor_diagnostics(analysis, Pane::OldObject)),
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
}

fn field_validation_name(mode: FieldValidation) -> &'static str {
    match mode {
        FieldValidation::Strict => "Strict",
        FieldValidation::Warn => "Warn",
        FieldValidation::Ignore => "Ignore",
    }
}

/// The whole studio page.
#[component]
pub fn App() -> Html {
    let texts = use_reducer(load_texts);
    let field_validation = use_state(|| {
        LocalStorage::get::<FieldValidation>(FIELD_VALIDATION_KEY).unwrap_or_default()
    });
    let query = use_state(load_query);
    let shown = use_state(|| None::<Rc<Shown>>);
    // Numbers the analyses shown (Shown::seq).
    let shown_seq = use_mut_ref(|| 0_u64);
    // Whether the newest analysis has run for more than SLOW_MS.
    let working = use_state(|| false);
    // The engine's crash message, until the next answer.
    let crash = use_state(|| None::<String>);
    let slow_timer = use_mut_ref(|| None::<Timeout>);
    use_effect_with((), |_| {
        worker_client::warm_up();
        || ()
    });
    let old_open = use_state(|| false);
    let bottom = use_state(|| BottomTab::Problems);
    let crd_control = use_memo((), |_| EditorControl::default());
    let object_control = use_memo((), |_| EditorControl::default());
    let old_control = use_memo((), |_| EditorControl::default());

    // Autosave shortly after the last change (a big CRD costs milliseconds to store, which a
    // keystroke should not pay), and at once when the page is hidden or closed.
    {
        let pending = use_mut_ref(|| None::<(Timeout, Rc<dyn Fn()>)>);
        // The texts as loaded are not saved back (another tab may have saved newer ones).
        let loaded = use_mut_ref(|| true);
        // The texts as last saved (CRD, object, old object).
        let saved = use_mut_ref(|| (None::<SharedText>, None::<SharedText>, None::<SharedText>));
        {
            let pending = pending.clone();
            use_effect_with(
                (
                    SharedText(texts.crd.clone()),
                    SharedText(texts.object.clone()),
                    SharedText(texts.old_object.clone()),
                ),
                move |(crd, object, old)| {
                    if std::mem::replace(&mut *loaded.borrow_mut(), false) {
                        return;
                    }
                    // Storing megabytes blocks the page for tens of milliseconds: while such a
                    // text is being typed, wait for a longer pause.
                    let big = [crd, object, old].iter().any(|t| t.len() > BIG_TEXT);
                    let delay = if big { AUTOSAVE_BIG_MS } else { AUTOSAVE_MS };
                    let (crd, object, old) = (crd.clone(), object.clone(), old.clone());
                    let saved = saved.clone();
                    // Only the texts that changed since they were last saved are written:
                    // storing a big CRD costs milliseconds of the page's time.
                    let write: Rc<dyn Fn()> = Rc::new(move || {
                        let mut guard = saved.borrow_mut();
                        let saved = &mut *guard;
                        for (key, text, last) in [
                            (CRD_KEY, &crd, &mut saved.0),
                            (OBJECT_KEY, &object, &mut saved.1),
                            (OLD_OBJECT_KEY, &old, &mut saved.2),
                        ] {
                            if last.as_ref() != Some(text) {
                                save(key, &&**text);
                                *last = Some(text.clone());
                            }
                        }
                    });
                    let timer = {
                        let pending = pending.clone();
                        Timeout::new(delay, move || {
                            if let Some((_, write)) = pending.borrow_mut().take() {
                                write();
                            }
                        })
                    };
                    // A change before the timer fired replaces the unsaved one.
                    *pending.borrow_mut() = Some((timer, write));
                },
            );
        }
        use_effect_with((), move |_| {
            let flush = Closure::<dyn FnMut()>::new(move || {
                if let Some((_, write)) = pending.borrow_mut().take() {
                    write();
                }
            });
            let window = gloo::utils::window();
            let _ =
                window.add_event_listener_with_callback("pagehide", flush.as_ref().unchecked_ref());
            let _ = gloo::utils::document().add_event_listener_with_callback(
                "visibilitychange",
                flush.as_ref().unchecked_ref(),
            );
            flush.forget();
            || ()
        });
    }
    use_effect_with(*field_validation, |mode| save(FIELD_VALIDATION_KEY, mode));
    use_effect_with((*query).clone(), |q| {
        save(FIELD_SELECTOR_KEY, &q.field_selector);
        save(CONVERSION_TARGET_KEY, &q.target);
        save(WEBHOOK_RESPONSE_KEY, &q.webhook_response);
        save(MAPPINGS_KEY, &q.mappings);
    });

    // Analyse on every change, in the worker. Its channel keeps one job in flight and lets
    // only the newest waiting one run next; only the newest job's answer is shown. The texts
    // of that job are what the answer is shown with.
    {
        let shown = shown.clone();
        let working = working.clone();
        let crash = crash.clone();
        let slow_timer = slow_timer.clone();
        use_effect_with(
            (
                SharedText(texts.crd.clone()),
                SharedText(texts.object.clone()),
                SharedText(texts.old_object.clone()),
                *field_validation,
                (*query).clone(),
            ),
            move |(crd, object, old, mode, query)| {
                // The CRD text goes separately: the channel sends it only when the worker does
                // not hold it yet.
                let job = Job {
                    objects: vec![object.to_string()],
                    old_object: old_object_of(old),
                    options: Options {
                        field_validation: *mode,
                        ..Options::default()
                    },
                    query: PreviewQuery {
                        now: browser_now(),
                        ..query.clone()
                    },
                    ..Job::default()
                };
                let crd_text = crd.to_rc();
                let analysed_crd = crd.0.clone();
                let analysed_object = object.0.clone();
                // After 100 ms without an answer the status says the engine is working and
                // the results are dimmed (never emptied).
                if slow_timer.borrow().is_none() {
                    let working = working.clone();
                    *slow_timer.borrow_mut() =
                        Some(Timeout::new(SLOW_MS, move || working.set(true)));
                }
                let listener: Rc<dyn Fn(WorkerEvent)> = {
                    let shown = shown.clone();
                    let shown_seq = shown_seq.clone();
                    let working = working.clone();
                    let crash = crash.clone();
                    let slow_timer = slow_timer.clone();
                    Rc::new(move |event: WorkerEvent| {
                        slow_timer.borrow_mut().take();
                        working.set(false);
                        match event {
                            WorkerEvent::Reply(reply) => {
                                let seq = {
                                    let mut n = shown_seq.borrow_mut();
                                    *n += 1;
                                    *n
                                };
                                let crd = analysed_crd.clone();
                                shown.set(Some(Rc::new(Shown::of(seq, *reply, crd))));
                                crash.set(None);
                            }
                            WorkerEvent::Crashed { own, message, .. } => {
                                let what = if own {
                                    let (crd, object) = (&analysed_crd, &analysed_object);
                                    format!(
                                        "while analysing the CRD text ({} lines) and the \
                                         Object text ({} lines) as they were at your last edit",
                                        crd.lines().count(),
                                        object.lines().count()
                                    )
                                } else {
                                    "while analysing another studio on this page".to_owned()
                                };
                                crash.set(Some(format!(
                                    "The engine crashed {what}: {message}. It has been restarted \
                                     and your texts are kept; edit a text to analyse again."
                                )));
                            }
                        }
                    })
                };
                worker_client::submit(STUDIO, job, crd_text, listener);
                || ()
            },
        );
    }

    let on_crd = {
        let texts = texts.dispatcher();
        Callback::from(move |text: String| texts.dispatch(Edit::Crd(text)))
    };
    let on_rewrite_crd = {
        let texts = texts.dispatcher();
        Callback::from(move |text: String| texts.dispatch(Edit::ReplaceCrd(text)))
    };
    let on_object = {
        let texts = texts.dispatcher();
        Callback::from(move |text: String| texts.dispatch(Edit::Object(text)))
    };
    let on_old_object = {
        let texts = texts.dispatcher();
        Callback::from(move |text: String| texts.dispatch(Edit::OldObject(text)))
    };
    let on_reset = {
        let texts = texts.dispatcher();
        Callback::from(move |_: MouseEvent| texts.dispatch(Edit::ResetExample))
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
    let on_toggle_old = {
        let old_open = old_open.clone();
        Callback::from(move |_: MouseEvent| old_open.set(!*old_open))
    };
    let on_copy_object = {
        let texts_handle = texts.clone();
        let old_open = old_open.clone();
        Callback::from(move |_: MouseEvent| {
            texts_handle.dispatch(Edit::ReplaceOldObject(texts_handle.object.clone()));
            old_open.set(true);
        })
    };
    let on_clear_old = {
        let texts = texts.dispatcher();
        Callback::from(move |_: MouseEvent| {
            texts.dispatch(Edit::ReplaceOldObject(AttrValue::Static("")))
        })
    };
    // Puts the cursor in an editor; the old object editor is opened first when collapsed
    // (it exists only while open, so the focus waits for the next render).
    let focus = {
        let crd_control = crd_control.clone();
        let object_control = object_control.clone();
        let old_control = old_control.clone();
        let old_open = old_open.clone();
        Callback::from(move |t: FocusTarget| {
            let control = match t.pane {
                Pane::Crd => (*crd_control).clone(),
                Pane::Object => (*object_control).clone(),
                Pane::OldObject => (*old_control).clone(),
            };
            if t.pane == Pane::OldObject && !*old_open {
                old_open.set(true);
                Timeout::new(0, move || control.focus_at(t.line, t.utf16_column)).forget();
            } else {
                control.focus_at(t.line, t.utf16_column);
            }
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
    let on_selector = {
        let query = query.clone();
        Callback::from(move |field_selector: String| {
            query.set(PreviewQuery {
                field_selector,
                ..(*query).clone()
            })
        })
    };
    let on_tab = |tab: BottomTab| {
        let bottom = bottom.clone();
        Callback::from(move |_: MouseEvent| bottom.set(tab))
    };

    let empty = Rc::new(Vec::new());
    let (crd_marks, object_marks, old_marks) = match &*shown {
        Some(s) => (
            s.crd_marks.clone(),
            s.object_marks.clone(),
            s.old_marks.clone(),
        ),
        None => (empty.clone(), empty.clone(), empty),
    };
    let status_line = match &*shown {
        Some(_) if *working => {
            html! { <p class="status working" role="status" title="The engine is analysing the newest edit">{ "Analysing…" }</p> }
        }
        Some(s) => {
            let class = if s.status.accepted {
                "status ok"
            } else {
                "status bad"
            };
            html! { <p class={class} role="status" title={s.status.text.clone()}>{ s.status.text.clone() }</p> }
        }
        None => html! { <p class="status" role="status">{ "Analysing…" }</p> },
    };
    let mode_name = field_validation_name(*field_validation);
    let old_in_use = old_object_of(&texts.old_object).is_some();
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
    let count_class = if counts.errors > 0 {
        "count error"
    } else if counts.warnings > 0 {
        "count warning"
    } else {
        "count"
    };

    html! {
        <div class="studio">
            <header class="topbar">
                <h1>{ "CRD Studio" }</h1>
                { status_line }
                <label class="option" title="How the server treats unknown and duplicate fields, like kubectl --validate">
                    <span>{ "Field validation" }</span>
                    <select aria-label="Field validation" onchange={on_field_validation}>
                        { for [FieldValidation::Strict, FieldValidation::Warn, FieldValidation::Ignore].into_iter().map(|m| {
                            let name = field_validation_name(m);
                            html! { <option value={name} selected={name == mode_name}>{ name }</option> }
                        }) }
                    </select>
                </label>
                <button type="button" class="reset" onclick={on_reset}>{ "Reset example" }</button>
            </header>
            if let Some(message) = (*crash).clone() {
                <p class="crash" role="alert">{ message }</p>
            }
            <main class="editors">
                <section class="pane" aria-labelledby="crd-title">
                    <h2 id="crd-title">{ "CustomResourceDefinition" }<span class="file">{ "crd.yaml" }</span></h2>
                    <CodeEditor
                        label={Pane::Crd.label()}
                        text={texts.crd.clone()}
                        generation={texts.crd_generation}
                        diagnostics={crd_marks}
                        on_change={on_crd}
                        control={(*crd_control).clone()}
                    />
                </section>
                <div class={classes!("object-column", (*old_open).then_some("old-open"))}>
                    <section class="pane" aria-labelledby="object-title">
                        <h2 id="object-title">{ "Object" }<span class="file">{ "object.yaml" }</span></h2>
                        <CodeEditor
                            label={Pane::Object.label()}
                            text={texts.object.clone()}
                            generation={texts.generation}
                            diagnostics={object_marks}
                            on_change={on_object}
                            control={(*object_control).clone()}
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
                            <button type="button" class="small" onclick={on_copy_object}
                                title="Use the current Object as the old object, then edit the Object to see the update">
                                { "Copy from Object" }
                            </button>
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
                                    generation={texts.old_generation}
                                    diagnostics={old_marks}
                                    on_change={on_old_object}
                                    control={(*old_control).clone()}
                                />
                            </div>
                        }
                    </section>
                </div>
            </main>
            <section class={classes!("bottom", working.then_some("stale"))} aria-busy={if *working { "true" } else { "false" }}>
                <div class="tabs" role="tablist" aria-label="Results">
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
                        aria-label="CEL rules" title="The x-kubernetes-validations rules and what they do on the objects"
                        aria-selected={if *bottom == BottomTab::Cel { "true" } else { "false" }}
                        onclick={on_tab(BottomTab::Cel)}>
                        { "CEL" }<span class={if cel_bad { "count error" } else { "count" }}>{ cel_rules }</span>
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
                </div>
                <ProblemsPanel
                    shown={(*shown).clone()}
                    hidden={*bottom != BottomTab::Problems}
                    on_select={on_problem}
                />
                <StoredPanel
                    shown={(*shown).clone()}
                    hidden={*bottom != BottomTab::Stored}
                    on_jump={focus.clone()}
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
            </section>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ProblemsProps {
    shown: Option<Rc<Shown>>,
    hidden: bool,
    on_select: Callback<ProblemRow>,
}

#[component]
fn ProblemsPanel(props: &ProblemsProps) -> Html {
    let rows: &[ProblemRow] = props.shown.as_ref().map_or(&[], |s| &s.rows);
    let body = if props.shown.is_none() {
        html! { <p class="empty">{ "Analysing…" }</p> }
    } else if rows.is_empty() {
        html! { <p class="empty">{ "No problems: the server would accept these texts." }</p> }
    } else {
        html! {
            <ul class="problem-list" role="list">
                { for rows.iter().map(|row| problem_item(row, &props.on_select)) }
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

fn problem_item(row: &ProblemRow, on_select: &Callback<ProblemRow>) -> Html {
    let severity = match row.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    };
    let content = html! {
        <>
            <span class={classes!("sev", severity)}>{ severity }</span>
            <span class="place">{ row.place.clone() }</span>
            <span class="field">{ row.field.clone().unwrap_or_default() }</span>
            <span class="message">{ row.message.clone() }</span>
        </>
    };
    let item = if row.target.is_some() {
        let onclick = {
            let row = row.clone();
            on_select.reform(move |_: MouseEvent| row.clone())
        };
        html! {
            <button type="button" class="problem-button" title={row.code.clone()} {onclick}>{ content }</button>
        }
    } else {
        html! { <div class="problem-button" title={row.code.clone()}>{ content }</div> }
    };
    html! { <li class={classes!("problem", severity)}>{ item }</li> }
}
