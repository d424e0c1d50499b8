//! The studio page: two editors, the status line and the Problems panel.

use std::rc::Rc;

use crd_studio_engine::{Analysis, Request, Severity};
use gloo::storage::{LocalStorage, Storage};
use gloo::timers::callback::Timeout;
use yew::prelude::*;

use crate::editor::{CodeEditor, EditorControl};
use crate::view_model::{
    editor_diagnostics, problem_rows, status, EditorDiagnostic, Pane, ProblemRow, Status,
    EXAMPLE_CRD, EXAMPLE_OBJECT,
};
use crate::worker_boundary;

/// localStorage key of the CRD text.
pub const CRD_KEY: &str = "crd-studio.crd";
/// localStorage key of the object text.
pub const OBJECT_KEY: &str = "crd-studio.object";
/// Quiet time after the last edit before the texts are analysed again.
const DEBOUNCE_MS: u32 = 150;

/// The texts being edited.
#[derive(Clone, PartialEq)]
struct Texts {
    crd: AttrValue,
    object: AttrValue,
    /// Bumped when the app replaces the texts (the editors then reload them).
    generation: u32,
}

enum Edit {
    Crd(String),
    Object(String),
    ResetExample,
}

impl Reducible for Texts {
    type Action = Edit;

    fn reduce(self: Rc<Self>, action: Edit) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Edit::Crd(text) => next.crd = text.into(),
            Edit::Object(text) => next.object = text.into(),
            Edit::ResetExample => {
                next.crd = AttrValue::Static(EXAMPLE_CRD);
                next.object = AttrValue::Static(EXAMPLE_OBJECT);
                next.generation += 1;
            }
        }
        Rc::new(next)
    }
}

fn load_texts() -> Texts {
    let crd: Option<String> = LocalStorage::get(CRD_KEY).ok();
    let object: Option<String> = LocalStorage::get(OBJECT_KEY).ok();
    Texts {
        crd: crd.map_or(AttrValue::Static(EXAMPLE_CRD), AttrValue::from),
        object: object.map_or(AttrValue::Static(EXAMPLE_OBJECT), AttrValue::from),
        generation: 0,
    }
}

fn save_texts(crd: &str, object: &str) {
    for (key, text) in [(CRD_KEY, crd), (OBJECT_KEY, object)] {
        if let Err(e) = LocalStorage::set(key, text) {
            gloo::console::warn!(format!("could not save {key}: {e}"));
        }
    }
}

/// What the page shows for one analysis, computed once when it arrives.
#[derive(PartialEq)]
struct Shown {
    status: Status,
    rows: Vec<ProblemRow>,
    crd_marks: Rc<Vec<EditorDiagnostic>>,
    object_marks: Rc<Vec<EditorDiagnostic>>,
}

impl Shown {
    fn of(analysis: &Analysis) -> Shown {
        Shown {
            status: status(analysis),
            rows: problem_rows(analysis),
            crd_marks: Rc::new(editor_diagnostics(analysis, Pane::Crd)),
            object_marks: Rc::new(editor_diagnostics(analysis, Pane::Object)),
        }
    }
}

/// The whole studio page.
#[component]
pub fn App() -> Html {
    let texts = use_reducer(load_texts);
    let shown = use_state(|| None::<Rc<Shown>>);
    let latest_request = use_mut_ref(|| 0_u64);
    let crd_control = use_memo((), |_| EditorControl::default());
    let object_control = use_memo((), |_| EditorControl::default());

    // Autosave on every change.
    use_effect_with(
        (texts.crd.clone(), texts.object.clone()),
        |(crd, object)| save_texts(crd, object),
    );

    // Re-analyse after a quiet moment; only the newest request's answer is shown.
    {
        let shown = shown.clone();
        let first = shown.is_none();
        use_effect_with(
            (texts.crd.clone(), texts.object.clone()),
            move |(crd, object)| {
                let id = {
                    let mut n = latest_request.borrow_mut();
                    *n += 1;
                    *n
                };
                let request = Request {
                    crd: crd.to_string(),
                    objects: vec![object.to_string()],
                    ..Request::default()
                };
                let timeout = Timeout::new(if first { 0 } else { DEBOUNCE_MS }, move || {
                    yew::platform::spawn_local(async move {
                        let analysis = worker_boundary::run(request).await;
                        if *latest_request.borrow() == id {
                            shown.set(Some(Rc::new(Shown::of(&analysis))));
                        }
                    });
                });
                move || drop(timeout)
            },
        );
    }

    let on_crd = {
        let texts = texts.dispatcher();
        Callback::from(move |text: String| texts.dispatch(Edit::Crd(text)))
    };
    let on_object = {
        let texts = texts.dispatcher();
        Callback::from(move |text: String| texts.dispatch(Edit::Object(text)))
    };
    let on_reset = {
        let texts = texts.dispatcher();
        Callback::from(move |_: MouseEvent| texts.dispatch(Edit::ResetExample))
    };
    let on_problem = {
        let crd_control = crd_control.clone();
        let object_control = object_control.clone();
        Callback::from(move |row: ProblemRow| {
            if let Some(t) = row.target {
                let control = match t.pane {
                    Pane::Crd => &crd_control,
                    Pane::Object => &object_control,
                };
                control.focus_at(t.line, t.utf16_column);
            }
        })
    };

    let empty = Rc::new(Vec::new());
    let (crd_marks, object_marks) = match &*shown {
        Some(s) => (s.crd_marks.clone(), s.object_marks.clone()),
        None => (empty.clone(), empty),
    };
    let status_line = match &*shown {
        Some(s) => {
            let class = if s.status.accepted {
                "status ok"
            } else {
                "status bad"
            };
            html! { <p class={class} role="status">{ s.status.text.clone() }</p> }
        }
        None => html! { <p class="status" role="status">{ "Analysing…" }</p> },
    };

    html! {
        <div class="studio">
            <header class="topbar">
                <h1>{ "CRD Studio" }</h1>
                { status_line }
                <button type="button" class="reset" onclick={on_reset}>{ "Reset example" }</button>
            </header>
            <main class="editors">
                <section class="pane" aria-labelledby="crd-title">
                    <h2 id="crd-title">{ "CustomResourceDefinition" }<span class="file">{ "crd.yaml" }</span></h2>
                    <CodeEditor
                        label={Pane::Crd.label()}
                        text={texts.crd.clone()}
                        generation={texts.generation}
                        diagnostics={crd_marks}
                        on_change={on_crd}
                        control={(*crd_control).clone()}
                    />
                </section>
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
            </main>
            <ProblemsPanel rows={shown.as_ref().map(|s| s.clone())} on_select={on_problem} />
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ProblemsProps {
    rows: Option<Rc<Shown>>,
    on_select: Callback<ProblemRow>,
}

#[component]
fn ProblemsPanel(props: &ProblemsProps) -> Html {
    let rows: &[ProblemRow] = props.rows.as_ref().map_or(&[], |s| &s.rows);
    let body = if props.rows.is_none() {
        html! { <p class="empty">{ "Analysing…" }</p> }
    } else if rows.is_empty() {
        html! { <p class="empty">{ "No problems: the server would accept both texts." }</p> }
    } else {
        html! {
            <ul class="problem-list" role="list">
                { for rows.iter().map(|row| problem_item(row, &props.on_select)) }
            </ul>
        }
    };
    html! {
        <section class="problems" role="region" aria-label="Problems">
            <h2>{ "Problems" }<span class="count">{ rows.len() }</span></h2>
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
