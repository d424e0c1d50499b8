//! The Problems tab: each finding as a headline in plain words (a button that goes to its
//! place), the exact text beneath it with a Copy button, and its one-click fixes.

use std::rc::Rc;

use crd_studio_engine::Severity;
use gloo::timers::callback::Timeout;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsValue;
use yew::prelude::*;

use crate::shown::Shown;
use crate::view_model::{EditorFix, Pane, ProblemRow};

/// Properties of [`ProblemsPanel`].
#[derive(Properties, PartialEq)]
pub(crate) struct ProblemsProps {
    /// The newest analysis shown.
    pub(crate) shown: Option<Rc<Shown>>,
    /// Whether another tab is showing.
    pub(crate) hidden: bool,
    /// Goes to a finding's place.
    pub(crate) on_select: Callback<ProblemRow>,
    /// Applies a finding's repair.
    pub(crate) on_fix: Callback<(Pane, EditorFix)>,
    /// Selects a Kubernetes version (`1.31`).
    pub(crate) on_kubernetes_version: Callback<crd_studio_engine::KubernetesVersion>,
    /// Opens the CEL rules tab (where a cost over its budget has its bounds).
    pub(crate) on_cost_fix: Callback<()>,
    /// Moves a document (its byte range) from the CRD text to the Object editor.
    pub(crate) on_move: Callback<(usize, usize)>,
    /// Both the CRD and the Object editors are blank (the panel shows how to start).
    pub(crate) blank: bool,
    /// Loads the CronTab example into blank editors.
    pub(crate) on_start: Callback<()>,
    /// The texts wait for the user after a crash.
    pub(crate) paused: bool,
}

/// The Problems tab's panel.
#[component]
pub(crate) fn ProblemsPanel(props: &ProblemsProps) -> Html {
    let rows: &[ProblemRow] = props.shown.as_ref().map_or(&[], |s| &s.rows);
    let body = if props.shown.is_none() {
        if props.paused {
            html! { <p class="empty">{ "Not analysed: the engine crashed on these texts last time (see above)." }</p> }
        } else {
            html! { <p class="empty">{ "Analysing…" }</p> }
        }
    } else if props.blank {
        html! {
            <div class="start-here">
                <p>{ "Nothing to analyse yet. To start:" }</p>
                <ul>
                    <li>{ "paste a CustomResourceDefinition into the CRD editor (and an object of it into the Object editor);" }</li>
                    <li>{ "or pick one from Examples, at the top;" }</li>
                    <li>{ "or start from the CronTab example: " }
                        <button type="button" class="small" onclick={props.on_start.reform(|_: MouseEvent| ())}>
                            { "Load the CronTab example" }
                        </button>
                    </li>
                </ul>
                <p class="muted">{ "With a CRD in place, Generate sample (above the Object editor) writes an object the schema accepts." }</p>
            </div>
        }
    } else if rows.is_empty() {
        html! { <p class="empty">{ "No problems: the server would accept these texts." }</p> }
    } else {
        html! {
            <ul class="problem-list" role="list">
                { for rows.iter().map(|row| problem_item(row, props)) }
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

/// One finding's list item.
fn problem_item(row: &ProblemRow, props: &ProblemsProps) -> Html {
    html! {
        <ProblemItem row={row.clone()} on_select={props.on_select.clone()}
            on_fix={props.on_fix.clone()} on_kubernetes_version={props.on_kubernetes_version.clone()}
            on_cost_fix={props.on_cost_fix.clone()} on_move={props.on_move.clone()} />
    }
}

/// Properties of [`ProblemItem`].
#[derive(Properties, PartialEq)]
struct ProblemItemProps {
    row: ProblemRow,
    on_select: Callback<ProblemRow>,
    on_fix: Callback<(Pane, EditorFix)>,
    on_kubernetes_version: Callback<crd_studio_engine::KubernetesVersion>,
    on_cost_fix: Callback<()>,
    on_move: Callback<(usize, usize)>,
}

/// The server's words for a CEL cost over its budget (a rule's, or the schema's total).
const OVER_BUDGET: &str = "exceeds budget by factor of";

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
    // One word for the studio's notes everywhere (the tally counts "notes"): an info finding's
    // badge reads "note" too (its class stays `info`).
    let (class, badge) = if row.note && row.severity != Severity::Info {
        ("note", "note")
    } else if row.severity == Severity::Info {
        (severity, "note")
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
        <li class={classes!("problem", class, row.follows_from.map(|_| "consequence"))}>
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
            if let Some(line) = row.follows_from {
                <p class="follows-from muted">{ format!("follows from the CRD error at line {line}") }</p>
            }
            if let Some((note, version)) = &row.newer_version {
                <p class="version-note">
                    { fix_title(note) }
                    { " " }
                    <button type="button" class="small fix" onclick={{
                        let version = *version;
                        props.on_kubernetes_version.reform(move |_: MouseEvent| version)
                    }}>{ format!("Switch to Kubernetes {version}") }</button>
                </p>
            }
            if let Some((kind, start, end)) = &row.movable {
                <div class="problem-fixes">
                    <button type="button" class="small fix" onclick={{
                        let range = (*start, *end);
                        props.on_move.reform(move |_: MouseEvent| range)
                    }}>{ format!("Move the {kind} to the Object editor") }</button>
                </div>
            }
            if row.message.contains(OVER_BUDGET) {
                <div class="problem-fixes">
                    <button type="button" class="small fix"
                        onclick={props.on_cost_fix.reform(|_: MouseEvent| ())}>
                        { "Show the bounds that fix it (CEL rules tab)" }
                    </button>
                </div>
            }
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
