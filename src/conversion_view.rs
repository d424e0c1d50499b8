//! The "Conversion" tab: the CRD's strategy; for None, each sample as every served version
//! returns it and what pruning drops; for Webhook, the `ConversionReview` the server sends,
//! an editor for the webhook's response checked as the server checks it, and the objects the
//! server ends up with; for both, the authored mapping editor with the converted objects, the
//! generated response and the round trip. Every verdict is the engine's.

use std::rc::Rc;

use crd_studio_engine::{ConversionPreview, ConvertedObject, ResponseCheck, Strategy};
use wasm_bindgen::JsValue;
use yew::prelude::*;

use crate::copy_button::CopyButton;
use crate::preview_model::{
    object_label, place, strategy_name, value_text, version_names, yaml_text,
};
use crate::shown::Shown;
use crate::worker_boundary::{PreviewQuery, WebhookPreview};

/// Properties of [`ConversionPanel`].
#[derive(Properties, PartialEq)]
pub struct ConversionPanelProps {
    /// The newest analysis shown.
    pub shown: Option<Rc<Shown>>,
    /// Whether another tab is showing.
    pub hidden: bool,
    /// The user's texts (target, webhook response, mappings).
    pub query: PreviewQuery,
    /// Called with the changed query.
    pub on_query: Callback<PreviewQuery>,
}

fn text_of(e: &Event) -> String {
    e.target()
        .and_then(|t| js_sys::Reflect::get(&t, &JsValue::from_str("value")).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// The panel.
#[component]
pub fn ConversionPanel(props: &ConversionPanelProps) -> Html {
    let body = match &props.shown {
        None => html! { <p class="empty">{ "Analysing…" }</p> },
        Some(_) if props.hidden => html! {},
        Some(shown) => content(shown, &props.query, &props.on_query),
    };
    html! {
        <section id="panel-conversion" class="panel conversion" role="region" aria-label="Conversion"
            hidden={props.hidden}>
            { body }
        </section>
    }
}

fn content(shown: &Shown, query: &PreviewQuery, on_query: &Callback<PreviewQuery>) -> Html {
    let analysis = &shown.reply.analysis;
    let previews = &shown.reply.previews;
    let Some(strategy) = &previews.strategy else {
        return html! { <p class="empty">{ "No readable CRD: fix the CRD first." }</p> };
    };
    let on_target = {
        let query = query.clone();
        on_query.reform(move |e: Event| PreviewQuery {
            target: text_of(&e),
            ..query.clone()
        })
    };
    let toolbar = html! {
        <div class="stored-toolbar">
            <span>{ "Strategy " }<span class="pill">{ strategy_name(strategy) }</span></span>
            <label class="option">
                <span>{ "Target version" }</span>
                <select aria-label="Target version" onchange={on_target}>
                    { for version_names(analysis).into_iter().map(|v| {
                        let selected = v == previews.target;
                        html! { <option value={v.clone()} {selected}>{ v }</option> }
                    }) }
                </select>
            </label>
        </div>
    };
    let served = served_section(shown);
    let webhook = match (strategy, &previews.webhook) {
        (Strategy::Webhook { .. }, Some(w)) => webhook_section(shown, w, query, on_query),
        _ => html! {},
    };
    let authored = authored_section(shown, previews.authored.as_ref(), query, on_query);
    html! {
        <>
            { toolbar }
            // Focusable: a keyboard user scrolls it (axe: scrollable-region-focusable).
            <div class="preview-body conversion-body" tabindex="0">
                if let Strategy::Unknown { name } = strategy {
                    <p class="banner">{ format!("Unknown strategy {name}: the server builds no converter.") }</p>
                }
                { webhook }
                { served }
                { authored }
            </div>
        </>
    }
}

/// Each accepted sample as every served version returns it (None strategy, or versions the
/// webhook is not needed for).
fn served_section(shown: &Shown) -> Html {
    let analysis = &shown.reply.analysis;
    let items: Vec<Html> = analysis
        .objects
        .iter()
        .filter(|o| o.accepted && !o.served_as.is_empty())
        .flat_map(|o| {
            let label = object_label(analysis, o.source, o.document);
            o.served_as.iter().map(move |s| {
                html! {
                    <div class="conv-card">
                        <h4>{ format!("{label} as {}", s.version) }</h4>
                        <pre class="code">{ yaml_text(&s.object.to_value()) }</pre>
                        if !s.pruned_paths.is_empty() {
                            <p class="pruned-note">{ format!("Pruned: {}", s.pruned_paths.join(", ")) }</p>
                        }
                    </div>
                }
            })
        })
        .collect();
    html! {
        <section class="conv-section" aria-label="Served versions">
            <h3>{ "As each served version returns it" }</h3>
            if items.is_empty() {
                <p class="empty">{ "No accepted sample, or every other version needs the webhook." }</p>
            } else {
                <div class="conv-cards">{ for items }</div>
            }
        </section>
    }
}

fn webhook_section(
    shown: &Shown,
    w: &WebhookPreview,
    query: &PreviewQuery,
    on_query: &Callback<PreviewQuery>,
) -> Html {
    let on_response = {
        let query = query.clone();
        on_query.reform(move |e: InputEvent| PreviewQuery {
            webhook_response: text_of(&e),
            ..query.clone()
        })
    };
    let on_template = {
        let query = query.clone();
        let template = w.template.clone().unwrap_or_default();
        on_query.reform(move |_: MouseEvent| PreviewQuery {
            webhook_response: template.clone(),
            ..query.clone()
        })
    };
    let request = w.request_text.clone();
    let request_html = match (&w.error, &request) {
        (Some(e), _) => html! { <p class="banner" role="alert">{ e.clone() }</p> },
        (None, Some(text)) => html! {
            <div class="code-wrap">
                <CopyButton text={text.clone()} title="Copy the request body" />
                <pre class="code" aria-label="ConversionReview request">{ text.clone() }</pre>
                <p class="muted">{ "The empty " }<code>{ "response" }</code>{ " is sent too: the server's request struct carries one (Go encodes it even when empty). Your webhook fills in its own." }</p>
            </div>
        },
        (None, None) => html! {
            <p class="empty">{ "No call: every sample is already in the target version." }</p>
        },
    };
    html! {
        <section class="conv-section" aria-label="Webhook">
            <h3>{ "Webhook: the request the server sends" }</h3>
            { request_html }
            <h3>
                { "The webhook's response" }
                if w.template.is_some() {
                    <button type="button" class="small" onclick={on_template}
                        title="Replace the response with a correct one that only changes apiVersion">{ "Insert a template" }</button>
                }
            </h3>
            <textarea class="code-input" aria-label="Webhook response" spellcheck="false"
                placeholder="Paste or write the ConversionReview response (JSON or YAML)"
                value={query.webhook_response.clone()} oninput={on_response} />
            if let Some(check) = &w.check {
                { check_html(shown, check, "Webhook response verdict") }
            }
        </section>
    }
}

fn check_html(shown: &Shown, check: &ResponseCheck, label: &str) -> Html {
    let analysis = &shown.reply.analysis;
    let _ = analysis;
    html! {
        <div class="check" aria-label={label.to_owned()}>
            if check.accepted {
                <p class="verdict ok">{ "The server accepts the response." }</p>
            } else {
                <div class="banner request-fails" role="alert">
                    <strong>{ "The request fails: the server converts no object and returns this error." }</strong>
                    if let Some(e) = check.error() {
                        <pre class="server-error">{ e.message.clone() }</pre>
                    }
                </div>
                <ul class="problem-list check-issues" role="list">
                    { for check.issues.iter().map(|i| html! {
                        <li class={classes!("problem", if i.studio { "warning" } else { "error" })}>
                            <div class="problem-button">
                                <span class={classes!("sev", if i.studio { "warning" } else { "error" })}>{ if i.studio { "studio" } else { "server" } }</span>
                                <span class="place">{ i.span.as_ref().map(place).unwrap_or_default() }</span>
                                <span class="field">{ i.response_path.clone().unwrap_or_default() }</span>
                                <span class="message">{ i.message.clone() }</span>
                            </div>
                        </li>
                    }) }
                </ul>
            }
            if check.accepted && !check.objects.is_empty() {
                <div class="conv-cards">
                    { for check.objects.iter().map(converted_card) }
                </div>
            }
        </div>
    }
}

fn converted_card(o: &ConvertedObject) -> Html {
    let name = o
        .object
        .pointer("/metadata/name")
        .and_then(|v| v.as_str())
        .unwrap_or("object")
        .to_owned();
    html! {
        <div class="conv-card">
            <h4>{ format!("{name} · the server ends up with{}", if o.sent { "" } else { " (not sent)" }) }</h4>
            <pre class="code">{ yaml_text(&o.object) }</pre>
            if !o.pruned_paths.is_empty() {
                <p class="pruned-note">{ format!("Pruned: {}", o.pruned_paths.join(", ")) }</p>
            }
            if !o.discarded_metadata.is_empty() {
                <p class="pruned-note">{ format!("Metadata put back: {}", o.discarded_metadata.join(", ")) }</p>
            }
            if let Some(e) = &o.decode_error {
                <p class="banner">{ e.clone() }</p>
            }
            { for o.target_errors.iter().map(|e| html! { <p class="pruned-note">{ format!("If written in the target version: {}", e.error) }</p> }) }
        </div>
    }
}

fn authored_section(
    shown: &Shown,
    preview: Option<&ConversionPreview>,
    query: &PreviewQuery,
    on_query: &Callback<PreviewQuery>,
) -> Html {
    let analysis = &shown.reply.analysis;
    let on_mappings = {
        let query = query.clone();
        on_query.reform(move |e: InputEvent| PreviewQuery {
            mappings: text_of(&e),
            ..query.clone()
        })
    };
    let result = match preview {
        None => html! {
            <p class="empty">{ "Write mappings (from, to, rules: move/copy/set/cel/drop) to convert the samples and check the round trip." }</p>
        },
        Some(p) => html! {
            <>
                if let Some(e) = &p.error {
                    <p class="banner" role="alert">{ e.clone() }</p>
                }
                if !p.issues.is_empty() {
                    <ul class="problem-list mapping-issues" role="list" aria-label="Mapping issues">
                        { for p.issues.iter().map(|i| {
                            let sev = format!("{:?}", i.severity).to_lowercase();
                            html! {
                                <li class={classes!("problem", sev.clone())}>
                                    <div class="problem-button" title={i.code.clone()}>
                                        <span class={classes!("sev", sev.clone())}>{ sev.clone() }</span>
                                        <span class="place">{ i.location.as_ref().map(|l| place(&l.span)).unwrap_or_default() }</span>
                                        <span class="field"></span>
                                        <span class="message">{ i.message.clone() }</span>
                                    </div>
                                </li>
                            }
                        }) }
                    </ul>
                }
                if !p.round_trips.is_empty() {
                    <ul class="round-trips" aria-label="Round trips">
                        { for p.round_trips.iter().map(|r| html! {
                            <li class={classes!("round-trip", if r.lossless { "ok" } else { "bad" })}>
                                <span class={classes!("pill", if r.lossless { "ok" } else { "bad" })}>{ if r.lossless { "lossless" } else { "lossy" } }</span>
                                <span class="name">{ format!("{} {} → {} → {}", object_label(analysis, r.source, r.document), r.from, r.via, r.from) }</span>
                                if let Some(d) = &r.difference {
                                    <span class="diff">
                                        { "first difference at " }<code>{ d.path.clone() }</code>
                                        { ": before " }<code>{ value_text(d.before.as_ref()) }</code>
                                        { ", after " }<code>{ value_text(d.after.as_ref()) }</code>
                                    </span>
                                }
                                if let Some(e) = &r.error {
                                    <span class="diff">{ e.clone() }</span>
                                }
                            </li>
                        }) }
                    </ul>
                }
                if let Some(check) = &p.check {
                    { check_html(shown, check, "Authored conversion verdict") }
                }
                if let Some(text) = &p.response_text {
                    <details class="generated">
                        <summary>{ "The response the mappings produce" }</summary>
                        <pre class="code">{ text.clone() }</pre>
                    </details>
                }
            </>
        },
    };
    html! {
        <section class="conv-section" aria-label="Authored conversion">
            <h3>{ "Authored conversion (mappings)" }</h3>
            <textarea class="code-input" aria-label="Conversion mappings" spellcheck="false"
                placeholder={"from: v1\nto: v2\nrules:\n  - move: {from: .spec.a, to: .spec.b}\n---\nfrom: v2\nto: v1\nrules:\n  - move: {from: .spec.b, to: .spec.a}"}
                value={query.mappings.clone()} oninput={on_mappings} />
            { result }
        </section>
    }
}
