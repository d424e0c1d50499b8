//! The "Stored object" panel: what the server would persist for the selected object
//! document, per served version, with defaults and pruned fields marked. The layout comes
//! from [`crate::stored_model`]; this file only renders it.

use std::rc::Rc;

use yew::prelude::*;

use crate::shown::Shown;
use crate::stored_model::{
    object_choices, object_view, object_warnings, quiet_notes, version_tabs, LineMark, ObjectView,
    QuietNote, VersionTab, VersionTabInfo, YamlLine,
};
use crate::view_model::{object_rejected, FocusTarget};

/// Properties of [`StoredPanel`].
#[derive(Properties, PartialEq)]
pub struct StoredPanelProps {
    /// The newest analysis shown.
    pub shown: Option<Rc<Shown>>,
    /// Whether another tab is showing (nothing is computed then).
    pub hidden: bool,
    /// Puts the cursor in an editor (a pruned field's place in the Object editor).
    pub on_jump: Callback<FocusTarget>,
    /// The version selected (its name; blank: the stored object). A name the object is not
    /// served in shows the stored object.
    #[prop_or_default]
    pub version: AttrValue,
    /// Called with the version the user selects (blank: the stored object).
    #[prop_or_default]
    pub on_version: Callback<AttrValue>,
}

/// What the panel shows for the selected document and tab.
#[derive(PartialEq)]
struct Computed {
    choices: Vec<(usize, String)>,
    selected: usize,
    tabs: Vec<VersionTabInfo>,
    /// The version each tab selects (blank: the stored object), in the order of `tabs`.
    tab_versions: Vec<AttrValue>,
    tab: VersionTab,
    view: ObjectView,
    operation: String,
    rejected: bool,
    object_error: Option<String>,
    warnings: Vec<String>,
    /// What the server did quietly: (a few words, the explanation).
    notes: Vec<QuietNote>,
}

fn compute(shown: &Shown, selected: usize, version: &str) -> Option<Computed> {
    let analysis = &shown.reply.analysis;
    let choices = object_choices(analysis);
    let selected = selected.min(choices.len().checked_sub(1)?);
    let report = analysis.objects.get(choices.get(selected)?.report)?;
    let tab = report
        .served_as
        .iter()
        .position(|s| !version.is_empty() && s.version == version)
        .map_or(VersionTab::Stored, VersionTab::Served);
    let tab_versions = std::iter::once(AttrValue::Static(""))
        .chain(
            report
                .served_as
                .iter()
                .map(|s| AttrValue::from(s.version.clone())),
        )
        .collect();
    Some(Computed {
        choices: choices
            .iter()
            .enumerate()
            .map(|(i, c)| (i, c.label.clone()))
            .collect(),
        selected,
        tabs: version_tabs(analysis, report),
        tab_versions,
        tab,
        view: object_view(report, tab),
        operation: report.operation.clone(),
        rejected: object_rejected(analysis, report),
        object_error: report.object_error.clone(),
        warnings: object_warnings(analysis, report),
        notes: quiet_notes(report),
    })
}

/// The panel.
#[component]
pub fn StoredPanel(props: &StoredPanelProps) -> Html {
    let selected = use_state(|| 0_usize);
    let flash = use_state(|| None::<usize>);
    let computed = {
        let shown = props.shown.clone();
        let seq = shown.as_ref().map(|s| s.seq);
        use_memo(
            (seq, *selected, props.version.clone(), props.hidden),
            move |(_, selected, version, hidden)| {
                if *hidden {
                    return None;
                }
                shown.and_then(|s| compute(&s, *selected, version))
            },
        )
    };

    let body = match (&props.shown, &*computed) {
        _ if props.hidden => html! {},
        (None, _) => html! { <p class="empty">{ "Analysing…" }</p> },
        (Some(_), None) => html! {
            <p class="empty">{ "No object to show: the Object editor holds no document." }</p>
        },
        (Some(_), Some(c)) => {
            let on_select = {
                let selected = selected.clone();
                let flash = flash.clone();
                Callback::from(move |e: Event| {
                    let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
                    selected.set(select.value().parse().unwrap_or(0));
                    flash.set(None);
                })
            };
            let doc_select = if c.choices.len() > 1 {
                html! {
                    <label class="option">
                        <span>{ "Document" }</span>
                        <select aria-label="Document" onchange={on_select}>
                            { for c.choices.iter().map(|(i, label)| html! {
                                <option value={i.to_string()} selected={*i == c.selected}>{ label.clone() }</option>
                            }) }
                        </select>
                    </label>
                }
            } else {
                html! {}
            };
            let tabs = html! {
                <div class="version-tabs" role="group" aria-label="Version">
                    { for c.tabs.iter().zip(&c.tab_versions).map(|(t, version)| {
                        let onclick = {
                            let on_version = props.on_version.clone();
                            let flash = flash.clone();
                            let version = version.clone();
                            Callback::from(move |_: MouseEvent| { on_version.emit(version.clone()); flash.set(None); })
                        };
                        html! {
                            <button type="button" class="seg" title={t.title.clone()}
                                aria-pressed={if t.tab == c.tab { "true" } else { "false" }} {onclick}>
                                { t.label.clone() }
                            </button>
                        }
                    }) }
                </div>
            };
            let verdict = if c.object_error.is_some() || c.rejected {
                html! { <span class="pill bad">{ "rejected" }</span> }
            } else {
                html! { <span class="pill ok">{ "accepted" }</span> }
            };
            let banner = if c.rejected && c.object_error.is_none() {
                html! {
                    <p class="banner">
                        { "The server would reject this object (see Problems) and store nothing. \
                           Shown: what it would have stored." }
                    </p>
                }
            } else {
                html! {}
            };
            let on_default = {
                let flash = flash.clone();
                Callback::from(move |line: usize| {
                    flash.set(Some(line));
                    if let Some(el) =
                        gloo::utils::document().get_element_by_id(&format!("stored-line-{line}"))
                    {
                        el.scroll_into_view_with_bool(false);
                    }
                })
            };
            html! {
                <>
                    <div class="stored-toolbar">
                        { doc_select }
                        { tabs }
                        <span class="pill op" title="The request the server handles: create, or update when an old object is given">
                            { format!("operation: {}", c.operation) }
                        </span>
                        { verdict }
                    </div>
                    { banner }
                    <div class="stored-body">
                        { yaml_view(&c.view, *flash) }
                        { side(c, &props.on_jump, &on_default) }
                    </div>
                </>
            }
        }
    };
    html! {
        <section id="panel-stored" class="panel stored" role="region" aria-label="Stored object"
            hidden={props.hidden}>
            { body }
        </section>
    }
}

fn yaml_view(view: &ObjectView, flash: Option<usize>) -> Html {
    if let Some(note) = &view.note {
        return html! { <p class="empty yaml-note">{ note.clone() }</p> };
    }
    html! {
        <div class="yaml" role="document" aria-label="Stored object YAML" tabindex="0">
            { for view.lines.iter().enumerate().map(|(n, l)| yaml_line(n, l, flash == Some(n))) }
            if view.hidden_lines > 0 {
                <div class="yl more">{ format!("… {} more lines not shown", view.hidden_lines) }</div>
            }
        </div>
    }
}

fn yaml_line(n: usize, l: &YamlLine, flash: bool) -> Html {
    let (class, badge) = match l.mark {
        LineMark::Plain => (None, false),
        LineMark::Defaulted { badge } => (Some("defaulted"), badge),
    };
    html! {
        <div id={format!("stored-line-{n}")} class={classes!("yl", class, flash.then_some("flash"))}
            title={l.path.clone()}>
            <span class="lead">{ l.lead.clone() }</span>
            if let Some(k) = &l.key {
                <span class="k">{ k.clone() }</span>{ ":" }
                if l.value.is_some() { { " " } }
            }
            if let Some(v) = &l.value {
                <span class="v">{ v.clone() }</span>
            }
            if badge {
                <span class="badge default" data-badge="default" title="Set by the schema's default"></span>
            }
        </div>
    }
}

fn side(c: &Computed, on_jump: &Callback<FocusTarget>, on_default: &Callback<usize>) -> Html {
    let pruned = &c.view.pruned;
    let defaulted = &c.view.defaulted;
    html! {
        <aside class="stored-side" tabindex="0" aria-label="What the server did">
            if !c.notes.is_empty() {
                <h3>{ "What the server did quietly" }<span class="count">{ c.notes.len() }</span></h3>
                <ul class="marks quiet-notes">
                    { for c.notes.iter().map(|n| html! {
                        <li>
                            <span class="note-title">{ n.title.clone() }</span>{ " " }
                            <span class="path">{ n.field.clone() }</span>{ ": " }{ n.message.clone() }
                        </li>
                    }) }
                </ul>
            }
            <h3>{ "Pruned fields" }<span class="count">{ pruned.len() }</span></h3>
            if pruned.is_empty() {
                <p class="muted">{ "None: the schema knows every field." }</p>
            } else {
                <ul class="marks">
                    { for pruned.iter().map(|p| {
                        let content = html! {
                            <>
                                <s class="path">{ p.path.clone() }</s>
                                <span class="badge pruned" data-badge="pruned"></span>
                                <span class="place">{ p.place.clone() }</span>
                            </>
                        };
                        let why = format!("Dropped by the server: not in {}", p.dropped_by);
                        match p.target {
                            Some(t) => {
                                let onclick = on_jump.reform(move |_: MouseEvent| t);
                                let title = format!("{why}. Click to see it in the Object editor.");
                                html! {
                                    <li class="pruned">
                                        <button type="button" class="mark-button" {title} {onclick}>{ content }</button>
                                    </li>
                                }
                            }
                            None => html! {
                                <li class="pruned"><div class="mark-button" title={why}>{ content }</div></li>
                            },
                        }
                    }) }
                </ul>
            }
            <h3>{ "Defaults applied" }<span class="count">{ defaulted.len() }</span></h3>
            if defaulted.is_empty() {
                <p class="muted">{ "None." }</p>
            } else {
                <ul class="marks">
                    { for defaulted.iter().map(|d| {
                        let content = html! {
                            <>
                                <span class="path">{ d.path.clone() }</span>
                                <span class="badge default" data-badge="default"></span>
                            </>
                        };
                        match d.line {
                            Some(line) => {
                                let onclick = on_default.reform(move |_: MouseEvent| line);
                                html! { <li><button type="button" class="mark-button" title="Show it in the object" {onclick}>{ content }</button></li> }
                            }
                            None => html! { <li><div class="mark-button">{ content }</div></li> },
                        }
                    }) }
                </ul>
            }
            <h3>{ "Warnings" }<span class="count">{ c.warnings.len() }</span></h3>
            if c.warnings.is_empty() {
                <p class="muted">{ "None." }</p>
            } else {
                <ul class="marks warnings">
                    { for c.warnings.iter().map(|w| html! { <li><span class="sev warning">{ "warning" }</span>{ " " }{ w.clone() }</li> }) }
                </ul>
            }
        </aside>
    }
}
