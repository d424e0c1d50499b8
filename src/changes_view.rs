//! The "Changes" panel: the CRD checked as an update of the Previous CRD, the changes between
//! the revisions by version, and what happens to the sample objects as stored under the
//! previous revision. The content comes from [`crate::changes_model`]; this file renders it.

use std::rc::Rc;

use crd_studio_engine::Severity;
use yew::prelude::*;

use crate::changes_model::{changes_model, ChangeRow, ChangesModel, EffectRow, Place, VerdictRow};
use crate::shown::Shown;
use crate::view_model::FocusTarget;

/// Properties of [`ChangesPanel`].
#[derive(Properties, PartialEq)]
pub struct ChangesPanelProps {
    /// The newest analysis shown.
    pub shown: Option<Rc<Shown>>,
    /// Whether another tab is showing (nothing is computed then).
    pub hidden: bool,
    /// Puts the cursor in an editor (opening the Previous CRD editor when needed).
    pub on_jump: Callback<FocusTarget>,
    /// Opens the Previous CRD editor (the empty state's button).
    pub on_open_previous: Callback<()>,
}

/// A link to a place in an editor: a button when the text is on the page.
fn place_link(label: &str, place: &Place, on_jump: &Callback<FocusTarget>) -> Html {
    match place.target {
        Some(t) => {
            let onclick = on_jump.reform(move |_: MouseEvent| t);
            html! {
                <button type="button" class="link place" {onclick}
                    aria-label={format!("{label}: go to {}", place.text)}>
                    <span class="place-label">{ label }</span>{ " " }{ place.text.clone() }
                </button>
            }
        }
        None => html! {
            <span class="place"><span class="place-label">{ label }</span>{ " " }{ place.text.clone() }</span>
        },
    }
}

fn change_item(row: &ChangeRow, on_jump: &Callback<FocusTarget>) -> Html {
    html! {
        <li class={classes!("change", row.severity_label)}>
            <span class={classes!("sev", row.severity_label)}>{ row.severity_label }</span>
            <span class="change-text">
                if let Some(field) = &row.field {
                    <code class="field">{ field.clone() }</code>{ " " }
                }
                { row.message.clone() }
            </span>
            <span class="places">
                if let Some(p) = &row.old {
                    { place_link("previous", p, on_jump) }
                }
                if let Some(p) = &row.new {
                    { place_link("new", p, on_jump) }
                }
            </span>
        </li>
    }
}

fn verdict(label: &str, v: &VerdictRow) -> Html {
    html! {
        <li class={classes!("effect-row", if v.accepted { "ok" } else { "bad" })}>
            <span class="effect-label">{ label }</span>
            <span class={classes!("pill", if v.accepted { "ok" } else { "bad" })}>
                { if v.accepted { "accepted" } else { "rejected" } }
            </span>
            if !v.accepted {
                <span class="why">{ v.text.trim_start_matches("rejected: ").to_owned() }</span>
            }
        </li>
    }
}

fn effect_item(e: &EffectRow, on_jump: &Callback<FocusTarget>) -> Html {
    let lost = if e.lost.is_empty() {
        html! { <li class="effect-row ok"><span class="effect-label">{ "Read" }</span><span class="pill ok">{ "no data lost" }</span></li> }
    } else {
        html! {
            <li class="effect-row bad">
                <span class="effect-label">{ "Read" }</span>
                <span class="pill bad">{ format!("data lost: {} field{}", e.lost.len(), if e.lost.len() == 1 { "" } else { "s" }) }</span>
                <ul class="lost-fields" role="list" aria-label="Fields a read drops">
                    { for e.lost.iter().map(|(path, place)| html! {
                        <li>
                            <code>{ path.clone() }</code>
                            if let Some(p) = place {
                                { " " }{ place_link("in", p, on_jump) }
                            }
                        </li>
                    }) }
                </ul>
            </li>
        }
    };
    html! {
        <li class="effect">
            <h4>{ e.title.clone() }</h4>
            if let Some(note) = &e.note {
                <p class="note">{ note.clone() }</p>
            } else {
                <ul class="effect-rows" role="list">
                    { lost }
                    if !e.defaulted.is_empty() {
                        <li class="effect-row"><span class="effect-label">{ "Defaults" }</span>
                            <span class="why">{ format!("the new revision sets {} on read", e.defaulted.join(", ")) }</span></li>
                    }
                    { verdict("Unchanged update (kubectl apply)", &e.update) }
                    { verdict("Create", &e.create) }
                </ul>
            }
            if !e.previously_accepted && e.note.is_none() {
                <p class="note">{ "The previous revision rejects this object too: it is taken as stored anyway (it may predate a rule)." }</p>
            }
        </li>
    }
}

fn body(m: &ChangesModel, props: &ChangesPanelProps) -> Html {
    let on_jump = &props.on_jump;
    let findings = if m.findings.is_empty() {
        html! { <p class="empty-line">{ "No errors or warnings: the server accepts the update." }</p> }
    } else {
        html! {
            <ul class="change-findings" role="list">
                { for m.findings.iter().map(|f| {
                    let sev = match f.severity { Severity::Error => "error", Severity::Warning => "warning", Severity::Info => "info" };
                    let head = match f.target {
                        Some(t) => {
                            let onclick = on_jump.reform(move |_: MouseEvent| t);
                            html! { <button type="button" class="link place" {onclick}>{ f.place.clone() }</button> }
                        }
                        None => html! { <span class="place">{ f.place.clone() }</span> },
                    };
                    html! {
                        <li class={classes!("change", sev)} title={f.code.clone()}>
                            <span class={classes!("sev", sev)}>{ if sev == "info" { "note" } else { sev } }</span>
                            <span class="change-text">{ f.message.clone() }</span>
                            <span class="places">{ head }</span>
                        </li>
                    }
                }) }
            </ul>
        }
    };
    let changes = if m.groups.is_empty() {
        html! { <p class="empty-line">{ "No changes found between the two revisions." }</p> }
    } else {
        html! {
            { for m.groups.iter().map(|g| html! {
                <section class="change-group" aria-label={g.title.clone()}>
                    <h4>{ g.title.clone() }</h4>
                    <ul class="change-list" role="list">
                        { for g.rows.iter().map(|r| change_item(r, on_jump)) }
                    </ul>
                </section>
            }) }
        }
    };
    let effects = if m.effects.is_empty() {
        html! { <p class="empty-line">{ "No sample object: put objects in the Object editor to see what the new revision does to them once stored." }</p> }
    } else {
        html! {
            <ul class="effects" role="list">
                { for m.effects.iter().map(|e| effect_item(e, on_jump)) }
            </ul>
        }
    };
    html! {
        <>
            <section class="changes-part" aria-labelledby="changes-update">
                <h3 id="changes-update">{ "The CRD update" }
                    <span class={classes!("pill", if m.accepted { "ok" } else { "bad" })}>
                        { if m.accepted { "accepted" } else { "rejected" } }
                    </span>
                </h3>
                { findings }
            </section>
            <section class="changes-part" aria-labelledby="changes-list">
                <h3 id="changes-list">{ "Changes by version" }</h3>
                { changes }
            </section>
            <section class="changes-part" aria-labelledby="changes-stored">
                <h3 id="changes-stored">{ "Objects stored under the previous revision" }</h3>
                { effects }
            </section>
        </>
    }
}

/// The panel.
#[component]
pub fn ChangesPanel(props: &ChangesPanelProps) -> Html {
    let model = {
        let shown = props.shown.clone();
        let seq = shown.as_ref().map(|s| s.seq);
        use_memo((seq, props.hidden), move |(_, hidden)| {
            if *hidden {
                return None;
            }
            shown.map(|s| changes_model(&s.reply.analysis))
        })
    };
    let content = match (&props.shown, &*model) {
        _ if props.hidden => html! {},
        (None, _) | (_, None) => html! { <p class="empty">{ "Analysing…" }</p> },
        (Some(_), Some(m)) if !m.update => {
            let open = props.on_open_previous.reform(|_: MouseEvent| ());
            html! {
                <div class="empty">
                    <p>{ "Paste the previous revision in Previous CRD to see what changes: the server's verdict on the update, the breaking changes, and what happens to the objects already stored." }</p>
                    <button type="button" class="small" onclick={open}>{ "Open Previous CRD" }</button>
                </div>
            }
        }
        (Some(_), Some(m)) => body(m, props),
    };
    html! {
        <section id="panel-changes" class="panel changes" role="region" aria-label="Changes"
            hidden={props.hidden}>
            { content }
        </section>
    }
}

/// What the Previous CRD editor's section needs.
pub struct PreviousCrdPane {
    /// Whether it is expanded.
    pub open: bool,
    /// Whether it holds a text (the CRD is then checked as an update).
    pub in_use: bool,
    /// Its text.
    pub text: crate::editor_text::EditorText,
    /// Bumped when the app replaces the text.
    pub generation: u32,
    /// The findings in it.
    pub marks: Rc<Vec<crate::view_model::EditorDiagnostic>>,
    /// Expands or collapses it.
    pub on_toggle: Callback<MouseEvent>,
    /// Copies the CRD into it.
    pub on_copy: Callback<()>,
    /// An edit.
    pub on_change: Callback<crate::editor_text::EditorText>,
    /// Moves its cursor.
    pub control: crate::editor::EditorControl,
}

/// The Previous CRD editor under the CRD editor, collapsed by default like the Old object's
/// (the editor exists only while open).
pub fn previous_crd_pane(p: PreviousCrdPane) -> Html {
    use crate::view_model::Pane;
    let state = if p.in_use {
        html! { <span class="pill update" title="The CRD is checked as an update of this previous revision (see the Changes tab)">{ "update" }</span> }
    } else {
        html! { <span class="pill" title="Empty: the CRD is checked as a create">{ "off · create" }</span> }
    };
    html! {
        <section class={classes!("pane", "old-pane", (!p.open).then_some("collapsed"))} aria-labelledby="old-crd-title">
            <h2>
                <button type="button" id="old-crd-title" class="disclosure"
                    aria-expanded={if p.open { "true" } else { "false" }}
                    aria-controls="old-crd-body"
                    onclick={p.on_toggle}>
                    <span class="chevron" aria-hidden="true">{ if p.open { "▾" } else { "▸" } }</span>
                    { "Previous CRD" }
                </button>
                <span class="file">{ "previous-crd.yaml" }</span>
                { state }
                <span class="spacer"></span>
                <crate::copy_button::CopyButton on_copy={p.on_copy} label="Copy from CRD"
                    title="Use the current CRD as the previous revision, then edit the CRD to see the update" />
            </h2>
            if p.open {
                <div id="old-crd-body" class="old-body">
                    <crate::editor::CodeEditor
                        label={Pane::OldCrd.label()}
                        text={p.text}
                        generation={p.generation}
                        diagnostics={p.marks}
                        on_change={p.on_change}
                        control={p.control}
                    />
                </div>
            }
        </section>
    }
}
