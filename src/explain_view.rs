//! The "Explain" tab: `kubectl explain` for the CRD's resource at a field path, for the first
//! object's version (or the preferred one). The text is the engine's; the first-level field
//! names are buttons that descend into the field, and "Up" goes back one level.

use std::rc::Rc;

use yew::prelude::*;

use crate::copy_button::CopyButton;
use crate::explain_model::{ascend, descend, lines, ExplainLine};
use crate::shown::Shown;

/// Properties of [`ExplainPanel`].
#[derive(Properties, PartialEq)]
pub struct ExplainPanelProps {
    /// The newest analysis shown.
    pub shown: Option<Rc<Shown>>,
    /// Whether another tab is showing.
    pub hidden: bool,
    /// The field path.
    pub path: AttrValue,
    /// `--recursive`.
    pub recursive: bool,
    /// Called with a new path and recursive flag.
    pub on_change: Callback<(String, bool)>,
}

/// The panel.
#[component]
pub fn ExplainPanel(props: &ExplainPanelProps) -> Html {
    let recursive = props.recursive;
    let on_input = props.on_change.reform(move |e: InputEvent| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        (input.value(), recursive)
    });
    let path = props.path.to_string();
    let on_recursive = {
        let path = path.clone();
        props.on_change.reform(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            (path.clone(), input.checked())
        })
    };
    let on_up = {
        let path = path.clone();
        props
            .on_change
            .reform(move |_: MouseEvent| (ascend(&path), recursive))
    };
    let preview = props
        .shown
        .as_ref()
        .and_then(|s| s.reply.previews.explain.clone());
    // The CRD's name is `<plural>.<group>`.
    let crd_name = props
        .shown
        .as_ref()
        .and_then(|s| s.reply.analysis.crd.name.clone())
        .unwrap_or_default();
    let (plural, group) = crd_name
        .split_once('.')
        .unwrap_or(("<resource>", "<group>"));
    let command = {
        let version = preview
            .as_ref()
            .map(|p| p.version.clone())
            .unwrap_or_default();
        let mut c = format!("kubectl explain {plural}");
        if !path.trim().is_empty() {
            c.push('.');
            c.push_str(path.trim());
        }
        if !version.is_empty() {
            c.push_str(&format!(" --api-version={group}/{version}"));
        }
        if recursive {
            c.push_str(" --recursive");
        }
        c
    };
    let body = match (&props.shown, preview) {
        (None, _) => html! { <p class="empty">{ "Analysing…" }</p> },
        (Some(_), _) if props.hidden => html! {},
        (Some(_), None) => {
            html! { <p class="empty">{ "No CustomResourceDefinition to explain." }</p> }
        }
        (Some(_), Some(p)) => match (p.text, p.error) {
            (Some(text), _) => {
                let rows = lines(&text).into_iter().map(|l| match l {
                    ExplainLine::Text(t) => html! { <>{ t }{ "\n" }</> },
                    ExplainLine::Field { indent, name, rest } if !recursive => {
                        let next = descend(&path, &name);
                        let on_click = props
                            .on_change
                            .reform(move |_: MouseEvent| (next.clone(), false));
                        html! {
                            <>{ indent }<button type="button" class="explain-field link"
                                title={format!("Explain {name}")} onclick={on_click}>{ name.clone() }</button>{ rest }{ "\n" }</>
                        }
                    }
                    ExplainLine::Field { indent, name, rest } => html! { <>{ indent }{ name }{ rest }{ "\n" }</> },
                });
                html! {
                    <>
                        <div class="explain-actions"><CopyButton text={AttrValue::from(text.clone())} label="Copy" /></div>
                        <pre class="explain-text" aria-label="kubectl explain output">{ for rows }</pre>
                    </>
                }
            }
            (None, Some(e)) => {
                html! { <p class="explain-error" role="note">{ format!("error: {e}") }</p> }
            }
            (None, None) => html! {},
        },
    };
    html! {
        <section id="panel-explain" class="panel explain" role="region" aria-label="Explain"
            hidden={props.hidden}>
            <div class="stored-toolbar">
                <label class="option selector-input">
                    <span>{ "Field path" }</span>
                    <input type="text" aria-label="Field path" spellcheck="false"
                        placeholder="spec.replicas"
                        value={props.path.clone()} oninput={on_input} />
                </label>
                <button type="button" class="small" onclick={on_up} disabled={path.trim().is_empty()}>{ "Up" }</button>
                <label class="option">
                    <input type="checkbox" checked={recursive} onchange={on_recursive} />
                    <span>{ "--recursive" }</span>
                </label>
            </div>
            <p class="command"><code>{ command }</code></p>
            <div class="preview-body" tabindex="0">{ body }</div>
        </section>
    }
}
