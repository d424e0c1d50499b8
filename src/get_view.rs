//! The "kubectl get" tab: the printer-column table of the samples (normal and `-o wide`),
//! `--field-selector` over them, the version order with the preferred version and deprecation
//! warnings, and the `/scale` object per sample. Rows come from [`crate::preview_model`].

use std::rc::Rc;

use yew::prelude::*;

use crate::copy_button::CopyButton;
use crate::preview_model::{object_label, place, selector_rows, yaml_text};
use crate::shown::Shown;

/// Properties of [`GetPanel`].
#[derive(Properties, PartialEq)]
pub struct GetPanelProps {
    /// The newest analysis shown.
    pub shown: Option<Rc<Shown>>,
    /// Whether another tab is showing.
    pub hidden: bool,
    /// The `--field-selector` text.
    pub selector: AttrValue,
    /// Called with the new selector text.
    pub on_selector: Callback<String>,
    /// Called with (version, field label) to list the field in the version's
    /// `selectableFields` (the CRD editor's own edit).
    pub on_selectable: Callback<(String, String)>,
}

/// The panel.
#[component]
pub fn GetPanel(props: &GetPanelProps) -> Html {
    let wide = use_state(|| false);
    let on_input = props.on_selector.reform(|e: InputEvent| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        input.value()
    });
    let body = match &props.shown {
        None => html! { <p class="empty">{ "Analysing…" }</p> },
        Some(_) if props.hidden => html! {},
        Some(shown) => content(shown, &props.selector, *wide, &props.on_selectable),
    };
    let seg = |value: bool, label: &'static str| {
        let wide = wide.clone();
        html! {
            <button type="button" class="seg" aria-pressed={if *wide == value { "true" } else { "false" }}
                onclick={Callback::from(move |_: MouseEvent| wide.set(value))}>{ label }</button>
        }
    };
    html! {
        <section id="panel-get" class="panel get" role="region" aria-label="kubectl get"
            hidden={props.hidden}>
            <div class="stored-toolbar">
                <span class="version-tabs" role="group" aria-label="Output">
                    { seg(false, "normal") }
                    { seg(true, "-o wide") }
                </span>
                <label class="option selector-input">
                    <span>{ "--field-selector" }</span>
                    <input type="text" aria-label="Field selector" spellcheck="false"
                        placeholder="metadata.name=my-object"
                        value={props.selector.clone()} oninput={on_input} />
                </label>
            </div>
            // Focusable: a keyboard user scrolls it (axe: scrollable-region-focusable).
            <div class="preview-body" tabindex="0">{ body }</div>
        </section>
    }
}

fn content(
    shown: &Shown,
    selector: &str,
    wide: bool,
    on_selectable: &Callback<(String, String)>,
) -> Html {
    let analysis = &shown.reply.analysis;
    let previews = &shown.reply.previews;
    let text = if wide {
        previews.kubectl_get_wide.as_ref()
    } else {
        previews.kubectl_get.as_ref()
    };
    let list = if wide {
        previews.kubectl_list_wide.as_ref()
    } else {
        previews.kubectl_list.as_ref()
    };
    let list = list.filter(|_| !selector.trim().is_empty());
    // The command the output is of, ready to copy.
    let command = match list {
        Some(l) => l.command.clone(),
        None => format!(
            "kubectl get -f object.yaml{}",
            if wide { " -o wide" } else { "" }
        ),
    };
    let command_html = html! {
        <div class="command-line">
            <code aria-label="Command line">{ format!("$ {command}") }</code>
            <CopyButton text={command.clone()} title="Copy the command line" />
        </div>
    };
    let table_html = match (list, text) {
        (Some(l), _) if !l.text.is_empty() => html! {
            <pre class="code kubectl-table" aria-label="kubectl get output" data-wide={wide.to_string()}>
                { l.text.trim_end().to_owned() }
            </pre>
        },
        (Some(l), _) => {
            let error = l.preview.selection.error.is_some();
            html! {
                <pre class={classes!("code", "kubectl-stderr", error.then_some("selector-error"))}
                    aria-label="kubectl get output" role={error.then_some("alert")}>
                    { l.stderr.trim_end().to_owned() }
                </pre>
            }
        }
        (None, Some(text)) => html! {
            <pre class="code kubectl-table" aria-label="kubectl get output" data-wide={wide.to_string()}>
                { text.trim_end().to_owned() }
            </pre>
        },
        (None, None) => html! {
            <p class="empty">{ "No resources found: no sample object the server would list." }</p>
        },
    };
    // Samples without a row in `kubectl get -f`: what is missing, and where.
    let left_out_html = if list.is_none() && !previews.kubectl_get_left_out.is_empty() {
        html! {
            <ul class="left-out" aria-label="Objects not printed">
                { for previews.kubectl_get_left_out.iter().map(|l| html! {
                    <li class="problem error">
                        <span class="sev error">{ "not printed" }</span>
                        <span class="name">{ object_label(analysis, l.source, l.document) }</span>
                        <span class="place">{ l.span.as_ref().map(|s| format!("object.yaml:{}", place(s))).unwrap_or_default() }</span>
                        <span class="message">{ l.reason.clone() }</span>
                    </li>
                }) }
            </ul>
        }
    } else {
        html! {}
    };
    let selector_html = match &previews.field_selector {
        None if selector.trim().is_empty() => html! {},
        None => html! { <p class="empty">{ "No readable CRD." }</p> },
        Some(p) => {
            if let Some(e) = &p.selection.error {
                // A field the CRD does not make selectable: say how it becomes one.
                let hint = e
                    .kubectl
                    .split("field label not supported: ")
                    .nth(1)
                    .and_then(|r| r.split_whitespace().next())
                    .map(|label| {
                        let label = label.trim_start_matches('.').to_owned();
                        let onclick = on_selectable
                            .reform({
                                let pair = (p.version.clone(), label.clone());
                                move |_: MouseEvent| pair.clone()
                            });
                        let title = format!("Fix: add .{label} to the selectableFields of {}", p.version);
                        html! {
                            <div class="selector-hint">
                                <p class="muted">
                                    { "Only " }<code>{ "metadata.name" }</code>{ ", " }<code>{ "metadata.namespace" }</code>
                                    { " and the fields a version lists in " }<code>{ "selectableFields" }</code>
                                    { " can be selected. To select by this one, add to the version in the CRD: " }
                                    <code>{ format!("selectableFields: [{{jsonPath: .{label}}}]") }</code>
                                </p>
                                <div class="problem-fixes">
                                    <button type="button" class="small fix" aria-label={title.clone()} title={title} {onclick}>
                                        { format!("Add to selectableFields of {}", p.version) }
                                    </button>
                                </div>
                            </div>
                        }
                    });
                // The output above is the error when the list was made.
                if list.is_some() {
                    html! { <>{ hint }</> }
                } else {
                    html! {
                        <>
                            <p class="banner selector-error" role="alert">{ e.kubectl.clone() }</p>
                            { hint }
                        </>
                    }
                }
            } else {
                let rows = selector_rows(analysis, p);
                html! {
                    <>
                        <p class="muted small">{ if p.namespace.is_empty() {
                            format!("Listed in {} · supported fields: {}", p.version, p.selection.supported_fields.join(", "))
                        } else {
                            format!("Listed in {}, namespace {} · supported fields: {}", p.version, p.namespace, p.selection.supported_fields.join(", "))
                        } }</p>
                        <ul class="selector-rows" aria-label="Field selector matches">
                            { for rows.iter().map(|r| {
                                let (class, verdict) = match r.matches {
                                    Some(true) => ("ok", "listed"),
                                    Some(false) => ("off", "filtered out"),
                                    None => ("skip", "not checked"),
                                };
                                html! {
                                    <li class={classes!("selector-row", class)}>
                                        <span class={classes!("pill", (class == "ok").then_some("ok"))}>{ verdict }</span>
                                        <span class="name">{ r.label.clone() }</span>
                                        <span class="fields">{ r.fields.clone() }</span>
                                        <span class="note">{ r.note.clone() }</span>
                                    </li>
                                }
                            }) }
                        </ul>
                    </>
                }
            }
        }
    };
    let versions_html = match &analysis.version_overview {
        None => html! {},
        Some(o) => html! {
            <ul class="version-list" aria-label="Versions">
                { for o.order.iter().filter_map(|name| o.versions.iter().find(|v| &v.name == name)).map(|v| html! {
                    <li>
                        <span class="name">{ v.name.clone() }</span>
                        if v.preferred { <span class="pill ok" title="kubectl get reads this version">{ "preferred" }</span> }
                        if v.storage { <span class="pill">{ "storage" }</span> }
                        if !v.served { <span class="pill">{ "not served" }</span> }
                        if v.deprecated { <span class="pill bad">{ "deprecated" }</span> }
                        if let Some(w) = &v.warning { <span class="warning-text">{ format!("Warning: {w}") }</span> }
                    </li>
                }) }
            </ul>
        },
    };
    let scales: Vec<Html> = analysis
        .objects
        .iter()
        .filter_map(|o| Some((o, o.subresources.as_ref()?)))
        .flat_map(|(o, s)| {
            let label = object_label(analysis, o.source, o.document);
            s.scale.iter().map(move |r| {
                let body = match (&r.scale, &r.error) {
                    (_, Some(e)) => {
                        html! { <p class="banner">{ format!("{} ({})", e.message, e.code) }</p> }
                    }
                    (Some(v), None) => html! { <pre class="code">{ yaml_text(v) }</pre> },
                    (None, None) => html! {},
                };
                html! {
                    <div class="scale-card">
                        <h4>{ format!("{label} · {} /scale", r.version) }</h4>
                        { body }
                    </div>
                }
            })
        })
        .collect();
    html! {
        <div class="get-grid">
            <div class="get-main">
                <h3>{ "kubectl get" }</h3>
                { command_html }
                { table_html }
                { left_out_html }
                { selector_html }
            </div>
            <aside class="stored-side">
                <h3>{ "Versions" }</h3>
                { versions_html }
                if !scales.is_empty() {
                    <h3>{ "/scale" }</h3>
                    { for scales }
                }
            </aside>
        </div>
    }
}
