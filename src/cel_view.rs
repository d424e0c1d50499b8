//! The "CEL rules" panel: every `x-kubernetes-validations` rule of a CRD version, whether it
//! compiles, what it costs against the server's limits (what drives the cost, and bounds that
//! fix it in one click), and what it did on each sample object. The layout comes from
//! [`crate::cel_model`]; this file renders it and runs the inline rule editor.
//!
//! A suggested bound is a text edit of the CRD text the analysis was made from: it is applied
//! only while the editor still holds that text, and goes the way of an edited rule.
//!
//! Editing a rule here applies the engine's edit of its scalar in the CRD text
//! ([`rule_edit`]: the style and quoting are the engine's) and hands the new text to the
//! page, which re-analyses it as it does for any CRD edit and reloads the CRD editor. The
//! byte range of the scalar comes from the newest analysis when it was made from the current
//! CRD text, else from this panel's own previous rewrite; a keystroke that has neither (the
//! CRD editor changed the text a moment ago) waits for the next analysis.

use std::collections::HashMap;
use std::rc::Rc;

use crd_studio_engine::{
    apply_text_edits, rule_edit, scalar_style, CelOutcome, ExpressionKind, ScalarStyle,
};
use yew::prelude::*;

use crate::cel_model::{
    apply_edits, cel_view, digits, factor_text, outcome_name, rule_order, BoundView, CelView,
    CostTotal, DriverView, Edit, Evaluation, Explanation, FixView, OutcomeGroup, RuleError,
    RuleView, SampleResults, Share, MAX_LISTED,
};
use crate::editor_text::EditorText;
use crate::shown::Shown;
use crate::view_model::FocusTarget;

/// Properties of [`CelPanel`].
#[derive(Properties)]
pub struct CelPanelProps {
    /// The newest analysis shown.
    pub shown: Option<Rc<Shown>>,
    /// The CRD text now in the editor (newer than the analysis while the user types).
    pub crd: EditorText,
    /// Whether another tab is showing (nothing is computed then).
    pub hidden: bool,
    /// Puts the cursor in an editor (the rule in the CRD, a value in the Object).
    pub on_jump: Callback<FocusTarget>,
    /// Replaces the CRD text (an edited rule).
    pub on_rewrite: Callback<String>,
}

impl PartialEq for CelPanelProps {
    fn eq(&self, other: &CelPanelProps) -> bool {
        // The CRD text compares by identity (see crate::editor_text).
        self.shown == other.shown
            && self.crd == other.crd
            && self.hidden == other.hidden
            && self.on_jump == other.on_jump
            && self.on_rewrite == other.on_rewrite
    }
}

/// A rule's identity across analyses: its version and key.
fn rule_id(version: usize, key: &str) -> String {
    format!("{version}/{key}")
}

/// The panel's previous rewrite: the CRD text it produced and where the rule is in it.
struct LastWrite {
    crd: String,
    id: String,
    range: (usize, usize),
    /// Whether the rule was a plain scalar when its editing began (plain is kept if it can be).
    plain: bool,
}

/// What the inline editors remember between renders.
#[derive(Default)]
struct EditState {
    /// The CRD text as of the newest prop or own rewrite (shared, not copied: CRDs can be
    /// megabytes and this runs on every keystroke).
    crd: EditorText,
    /// The newest `crd` prop seen.
    seen: EditorText,
    last: Option<LastWrite>,
    /// A typed rule that could not be written yet: (id, text).
    pending: Option<(String, String)>,
}

/// Writes `text` as the rule `id` into the current CRD text, if the rule's place is known.
/// Returns the new CRD text.
fn write_rule(
    state: &mut EditState,
    shown: Option<&Shown>,
    view: Option<&CelView>,
    id: &str,
    text: &str,
) -> Option<String> {
    let (range, plain) = match &state.last {
        Some(l) if l.crd == state.crd.rust().as_str() && l.id == id => (l.range, l.plain),
        _ => {
            let shown = shown.filter(|s| s.crd.same_text(&state.crd))?;
            let view = view?;
            let version = view.version?;
            let rule = view.rules.iter().find(|r| rule_id(version, &r.key) == id)?;
            let range = rule.report.text_range?;
            let analysed = shown.crd.rust();
            let written = analysed.get(range.0..range.1)?;
            (range, scalar_style(written) == ScalarStyle::Plain)
        }
    };
    let crd = state.crd.rust();
    let edit = rule_edit(&crd, range, text, plain)?;
    let new = apply_text_edits(&crd, std::slice::from_ref(&edit.edit))?;
    state.crd = EditorText::from_rust(new.clone());
    state.last = Some(LastWrite {
        crd: new.clone(),
        id: id.to_owned(),
        range: edit.range,
        plain,
    });
    Some(new)
}

/// The panel.
#[component]
pub fn CelPanel(props: &CelPanelProps) -> Html {
    let version = use_state(|| None::<usize>);
    let by_cost = use_state(|| false);
    let drafts = use_state(HashMap::<String, String>::new);
    let edit = use_mut_ref(EditState::default);
    let computed = {
        let shown = props.shown.clone();
        let seq = shown.as_ref().map(|s| s.seq);
        use_memo(
            (seq, *version, props.hidden),
            move |(_, version, hidden)| {
                if *hidden {
                    return None;
                }
                shown.map(|s| cel_view(&s.reply.analysis, *version))
            },
        )
    };

    // A CRD text that is not this panel's own rewrite (typed in the CRD editor, the example
    // reset) ends the inline edits: the editors show the rules as analysed again.
    {
        let mut state = edit.borrow_mut();
        if state.seen != props.crd {
            state.seen = props.crd.clone();
            state.crd = props.crd.clone();
            // Own rewrites come back as Rust strings; a typed text (JavaScript's) is never
            // one of them, and is not copied to find out.
            let own = state
                .last
                .as_ref()
                .zip(state.crd.rust_if_ready())
                .is_some_and(|(l, crd)| l.crd == crd.as_str());
            if !own {
                state.last = None;
                state.pending = None;
            }
        }
    }
    {
        let drafts = drafts.clone();
        let edit = edit.clone();
        use_effect_with(props.crd.clone(), move |_| {
            let own = edit.borrow().last.is_some();
            if !own && !drafts.is_empty() {
                drafts.set(HashMap::new());
            }
        });
    }
    // A rule typed while the analysis was behind the text is written once it catches up.
    {
        let edit = edit.clone();
        let shown = props.shown.clone();
        let computed = computed.clone();
        let on_rewrite = props.on_rewrite.clone();
        let seq = props.shown.as_ref().map(|s| s.seq);
        use_effect_with((seq, computed.is_some()), move |_| {
            let mut state = edit.borrow_mut();
            if let Some((id, text)) = state.pending.take() {
                match write_rule(
                    &mut state,
                    shown.as_deref(),
                    computed.as_ref().as_ref(),
                    &id,
                    &text,
                ) {
                    Some(crd) => on_rewrite.emit(crd),
                    None => state.pending = Some((id, text)),
                }
            }
        });
    }

    let body = match (&props.shown, &*computed) {
        _ if props.hidden => html! {},
        (None, _) | (Some(_), None) => html! { <p class="empty">{ "Analysing…" }</p> },
        (Some(_), Some(view)) => {
            let on_edit = {
                let drafts = drafts.clone();
                let edit = edit.clone();
                let shown = props.shown.clone();
                let computed = computed.clone();
                let on_rewrite = props.on_rewrite.clone();
                Callback::from(move |(id, text): (String, String)| {
                    let mut next = (*drafts).clone();
                    next.insert(id.clone(), text.clone());
                    drafts.set(next);
                    let mut state = edit.borrow_mut();
                    match write_rule(
                        &mut state,
                        shown.as_deref(),
                        computed.as_ref().as_ref(),
                        &id,
                        &text,
                    ) {
                        Some(crd) => {
                            state.pending = None;
                            drop(state);
                            on_rewrite.emit(crd);
                        }
                        None => state.pending = Some((id, text)),
                    }
                })
            };
            let on_version = {
                let version = version.clone();
                Callback::from(move |v: usize| version.set(Some(v)))
            };
            let on_sort = {
                let by_cost = by_cost.clone();
                Callback::from(move |_: MouseEvent| by_cost.set(!*by_cost))
            };
            // A suggested bound is written into the CRD text the analysis was made from; the
            // offsets are only good for that text.
            let can_apply = props
                .shown
                .as_ref()
                .is_some_and(|s| s.crd.same_text(&props.crd));
            let on_apply = {
                let shown = props.shown.clone();
                let crd = props.crd.clone();
                let on_rewrite = props.on_rewrite.clone();
                Callback::from(move |edits: Vec<Edit>| {
                    let Some(s) = shown.as_ref().filter(|s| s.crd.same_text(&crd)) else {
                        return;
                    };
                    let edits: Vec<(usize, usize, &str)> = edits
                        .iter()
                        .map(|e| (e.start, e.end, e.text.as_str()))
                        .collect();
                    if let Some(text) = apply_edits(&s.crd.rust(), &edits) {
                        on_rewrite.emit(text);
                    }
                })
            };
            let actions = Actions {
                on_jump: props.on_jump.clone(),
                on_apply,
                can_apply,
            };
            let ctx = BodyContext {
                drafts: &drafts,
                by_cost: *by_cost,
                on_edit: &on_edit,
                on_version: &on_version,
                on_sort: &on_sort,
                actions: &actions,
            };
            panel_body(view, &ctx)
        }
    };
    html! {
        <section id="panel-cel" class="panel cel" role="region" aria-label="CEL rules"
            hidden={props.hidden}>
            { body }
        </section>
    }
}

/// What the panel's body needs besides the view.
struct BodyContext<'a> {
    drafts: &'a HashMap<String, String>,
    /// Whether the rules are sorted by estimated cost.
    by_cost: bool,
    on_edit: &'a Callback<(String, String)>,
    on_version: &'a Callback<usize>,
    on_sort: &'a Callback<MouseEvent>,
    actions: &'a Actions,
}

/// What the cost parts of the panel can do.
struct Actions {
    /// Puts the cursor in an editor.
    on_jump: Callback<FocusTarget>,
    /// Writes text edits (suggested bounds) into the analysed CRD text.
    on_apply: Callback<Vec<Edit>>,
    /// Whether the analysis was made from the CRD text now in the editor (else the edits'
    /// offsets are stale and the buttons wait).
    can_apply: bool,
}

impl Actions {
    /// A "show in CRD" link to a schema node.
    fn show_in_crd(&self, target: Option<FocusTarget>, what: &str) -> Html {
        match target {
            Some(t) => {
                let onclick = self.on_jump.reform(move |_: MouseEvent| t);
                html! {
                    <button type="button" class="link show" title={format!("Show the schema of {what} in the CRD editor")} {onclick}>
                        { "show in CRD" }
                    </button>
                }
            }
            None => html! {},
        }
    }

    /// The button that applies edits (none when an edit is missing).
    fn apply_button(
        &self,
        edits: Option<Vec<Edit>>,
        label: &str,
        secondary: bool,
        title: String,
    ) -> Html {
        let Some(edits) = edits else {
            return html! {
                <span class="muted" title="The engine could not place this edit in the text (an alias, a merged key): add the bound by hand">{ "(by hand)" }</span>
            };
        };
        let onclick = self.on_apply.reform(move |_: MouseEvent| edits.clone());
        let title = if self.can_apply {
            title
        } else {
            "The CRD text changed since the analysis: wait a moment".to_owned()
        };
        html! {
            <button type="button" class={classes!("small", "apply", secondary.then_some("secondary"))}
                disabled={!self.can_apply} {title} {onclick}>
                { label.to_owned() }
            </button>
        }
    }
}

/// A horizontal bar: the share of a limit, red past it.
fn share_bar(share: &Share, class: &'static str) -> Html {
    html! {
        <ShareBar class={classes!("bar", class, share.over().then_some("over"))}
            some={share.value > 0} width={format!("{:.2}%", share.bar_width())} />
    }
}

#[derive(Properties, PartialEq)]
struct ShareBarProps {
    class: Classes,
    some: bool,
    /// The fill's CSS width, e.g. `12.50%`.
    width: String,
}

/// The bar's element. The fill's width is set through the CSSOM (`element.style`), not a
/// `style` attribute, which the page's Content-Security-Policy refuses in an embed (a docs
/// page allows no inline styles).
#[function_component(ShareBar)]
fn share_bar_element(props: &ShareBarProps) -> Html {
    let fill = use_node_ref();
    {
        let fill = fill.clone();
        use_effect_with(props.width.clone(), move |width| {
            if let Some(el) = fill.cast::<web_sys::HtmlElement>() {
                let _ = el.style().set_property("width", width);
            }
        });
    }
    html! {
        <span class={props.class.clone()} aria-hidden="true">
            <span ref={fill} class={classes!("fill", props.some.then_some("some"))}></span>
        </span>
    }
}

/// The version's total cost in the toolbar.
fn total_spot(total: &CostTotal) -> Html {
    let share = &total.share;
    let title = format!(
        "Estimated cost of all rules of the version: {} — the server rejects a CRD whose schema's rules add up to more than {}",
        share.long_text(),
        digits(share.limit)
    );
    html! {
        <span class={classes!("cost-total", share.over().then_some("over"))} data-testid="cel-total" {title}>
            <span class="k">{ "CRD total" }</span>
            { share_bar(share, "total") }
            <span class="v">{ share.text() }</span>
        </span>
    }
}

/// Under the toolbar when the total exceeds its limit: the server's most expensive
/// expressions and the bounds that fix the whole schema.
fn total_banner(total: &CostTotal, actions: &Actions) -> Html {
    let share = &total.share;
    if !share.over() {
        return html! {};
    }
    let title = total.message.clone().unwrap_or_default();
    html! {
        <div class="cost-banner" role="note">
            <div {title}>
                <strong>{ "Over the limit for a schema: " }</strong>
                { format!(
                    "the rules' estimated costs add up to {}, a factor of {} the limit of {}; the server rejects the CRD.",
                    digits(share.value),
                    factor_text(share.value, share.limit),
                    digits(share.limit)
                ) }
            </div>
            if !total.contributors.is_empty() {
                <div class="contributors">
                    <span class="k" title="The expressions the server names in its errors (the most expensive, at least 1% of the limit each)">{ "Most expensive:" }</span>
                    { for total.contributors.iter().map(|c| {
                        let text = match c.rule {
                            Some(n) => format!("#{n} {} {}", c.label, digits(c.cost)),
                            None => format!("{} {}", c.label, digits(c.cost)),
                        };
                        match c.target {
                            Some(t) => {
                                let onclick = actions.on_jump.reform(move |_: MouseEvent| t);
                                html! { <button type="button" class="link contributor" title="Show the rule in the CRD editor" {onclick}>{ text }</button> }
                            }
                            None => html! { <span class="contributor">{ text }</span> },
                        }
                    }) }
                </div>
            }
            if let Some(fix) = &total.fix {
                <div class="suggestion">
                    <span class="k">{ "Fix:" }</span>
                    { fix_text(fix, "total", actions) }
                </div>
            } else if let Some(note) = &total.fix_note {
                <div class="muted">{ note.clone() }</div>
            }
        </div>
    }
}

/// `add maxItems: 5000 to .spec.names → cost 8,215,002 (82%)` with its Apply button.
fn fix_text(fix: &FixView, what: &str, actions: &Actions) -> Html {
    let n = fix.bounds.len();
    html! {
        <>
            <span>{ "add " }</span>
            { for fix.bounds.iter().enumerate().map(|(i, b)| html! {
                <>
                    <code class="setting">{ b.setting.clone() }</code>
                    <span>{ " to " }</span>
                    { bound_place(b, actions) }
                    if i + 2 < n { <span>{ ", " }</span> } else if i + 2 == n { <span>{ " and " }</span> }
                </>
            }) }
            <span class={classes!("result", fix.cost.over().then_some("over"))}>{ format!(" {}", fix.result_text(what)) }</span>
            { actions.apply_button(
                fix.edits(),
                "Apply",
                false,
                format!("Write {} into the CRD", fix.bounds.iter().map(|b| b.setting.as_str()).collect::<Vec<_>>().join(", ")),
            ) }
        </>
    }
}

/// A bound's node: its value path, a link to its schema in the CRD.
fn bound_place(b: &BoundView, actions: &Actions) -> Html {
    match b.target {
        Some(t) => {
            let onclick = actions.on_jump.reform(move |_: MouseEvent| t);
            html! { <button type="button" class="vpath link" title="Show the schema node in the CRD editor" {onclick}>{ b.value_path.clone() }</button> }
        }
        None => html! { <span class="vpath">{ b.value_path.clone() }</span> },
    }
}

/// What drives an expression's cost, and the bounds the engine suggests.
fn explanation(x: &Explanation, actions: &Actions) -> Html {
    // A suggestion of one bound on a listed node is said on that node's line.
    let inline = x
        .suggestion
        .as_ref()
        .filter(|f| f.bounds.len() == 1)
        .and_then(|f| {
            let b = f.bounds.first()?;
            let i = x
                .drivers
                .iter()
                .position(|d| d.value_path == b.value_path)?;
            Some((i, f))
        });
    let driver_row = |(i, d): (usize, &DriverView)| {
        let here = inline.filter(|(j, _)| *j == i).map(|(_, f)| f);
        html! {
            <li>
                <div class="driver-line">
                    <span class="k">{ "driven by" }</span>
                    <code class="vpath">{ d.value_path.clone() }</code>
                    <span class="muted desc">{ format!("({}; {})", d.size, d.role) }</span>
                    { actions.show_in_crd(d.target, &d.value_path) }
                </div>
                if let Some(f) = here {
                    <span class="suggest-inline">
                        <span>{ "add " }</span>
                        <code class="setting">{ f.bounds.first().map(|b| b.setting.clone()).unwrap_or_default() }</code>
                        <span>{ " here" }</span>
                        <span class={classes!("result", f.cost.over().then_some("over"))}>{ f.result_text("cost") }</span>
                        { actions.apply_button(f.edits(), "Apply", false, format!("Write {} into the CRD", f.bounds.first().map(|b| b.setting.as_str()).unwrap_or(""))) }
                    </span>
                } else if let Some(b) = d.fix.as_ref().filter(|_| x.over) {
                    <span class="suggest-inline alone">
                        <span>{ "alone, " }</span>
                        <code class="setting">{ b.setting.clone() }</code>
                        <span>{ " here is enough" }</span>
                        if let Some(l) = b.largest {
                            <span class="muted" title={format!("The largest {} that brings the cost under the limit alone", b.setting.split(':').next().unwrap_or(""))}>{ format!("(at most {})", digits(l)) }</span>
                        }
                        { actions.apply_button(b.edit.clone().map(|e| vec![e]), "Apply", true, format!("Write {} into the CRD", b.setting)) }
                    </span>
                }
            </li>
        }
    };
    let separate = x.suggestion.as_ref().filter(|_| inline.is_none());
    html! {
        <div class={classes!("cost-explain", x.over.then_some("over"))}>
            if x.kind == ExpressionKind::MessageExpression {
                <div class="k">{ "messageExpression" }</div>
            }
            if !x.drivers.is_empty() {
                <ul class="drivers">
                    { for x.drivers.iter().enumerate().map(driver_row) }
                </ul>
            }
            if let Some(f) = separate {
                <div class="suggestion">
                    <span class="k">{ "Suggested:" }</span>
                    { fix_text(f, "cost", actions) }
                </div>
            }
            if let Some(note) = &x.note {
                <div class="muted">{ note.clone() }</div>
            }
        </div>
    }
}

fn panel_body(view: &CelView, ctx: &BodyContext<'_>) -> Html {
    let BodyContext {
        drafts,
        by_cost,
        on_edit,
        on_version,
        on_sort,
        actions,
    } = ctx;
    let versions = if view.versions.len() > 1 {
        html! {
            <div class="version-tabs" role="group" aria-label="Version">
                { for view.versions.iter().map(|v| {
                    let index = v.index;
                    let onclick = on_version.reform(move |_: MouseEvent| index);
                    html! {
                        <button type="button" class="seg"
                            title={format!("The rules of version {} ({})", v.name, v.rules)}
                            aria-pressed={if Some(v.index) == view.version { "true" } else { "false" }}
                            {onclick}>
                            { v.name.clone() }
                        </button>
                    }
                }) }
            </div>
        }
    } else {
        html! {}
    };
    let s = &view.summary;
    let summary_class = if s.compile_errors > 0 || s.failing > 0 || s.over_limit > 0 {
        "cel-summary bad"
    } else {
        "cel-summary"
    };
    let version_name = view
        .version
        .and_then(|v| view.versions.get(v))
        .map(|v| v.name.clone());
    let toolbar = html! {
        <div class="stored-toolbar cel-toolbar">
            { versions }
            <span class={summary_class} data-testid="cel-summary">{ s.text() }</span>
            <span class="spacer"></span>
            if let Some(t) = &view.total { { total_spot(t) } }
            if view.rules.len() > 1 {
                <button type="button" class="small toggle" onclick={(*on_sort).clone()}
                    aria-pressed={if *by_cost { "true" } else { "false" }}
                    title="List the rules by estimated cost, most expensive first">
                    { "Sort by cost" }
                </button>
            }
            <span class="pill op" title="The runtime cost the server counts for the CEL rules on the sample objects">
                { format!("runtime cost {}", s.runtime_cost) }
            </span>
        </div>
    };
    let banner = view
        .total
        .as_ref()
        .map(|t| total_banner(t, actions))
        .unwrap_or_default();
    let list = match (&version_name, view.rules.is_empty()) {
        (None, _) => html! { <p class="empty">{ "The CRD has no version to show." }</p> },
        (Some(name), true) => html! {
            <p class="empty">
                { format!("Version {name} has no x-kubernetes-validations rules. Add one to a schema node, e.g. ") }
                <code>{ "x-kubernetes-validations: [{rule: \"self.minReplicas <= self.maxReplicas\"}]" }</code>
            </p>
        },
        (Some(_), false) => {
            let version = view.version.unwrap_or(0);
            html! {
                <ol class="rule-list" role="list">
                    { for rule_order(&view.rules, *by_cost).into_iter().filter_map(|i| view.rules.get(i)).map(|r| {
                        let id = rule_id(version, &r.key);
                        let draft = drafts.get(&id).cloned();
                        rule_card(r, id, draft, on_edit, actions)
                    }) }
                </ol>
            }
        }
    };
    html! {
        <>
            { toolbar }
            { banner }
            { list }
        </>
    }
}

fn rule_card(
    r: &RuleView,
    id: String,
    draft: Option<String>,
    on_edit: &Callback<(String, String)>,
    actions: &Actions,
) -> Html {
    let on_jump = &actions.on_jump;
    let rep = &r.report;
    let text = draft.unwrap_or_else(|| rep.rule.clone());
    let rows = text.lines().count().clamp(1, 6).to_string();
    let oninput = {
        let id = id.clone();
        on_edit.reform(move |e: InputEvent| {
            let ta: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
            (id.clone(), ta.value())
        })
    };
    let place = match r.target {
        Some(t) if !r.place.is_empty() => {
            let onclick = on_jump.reform(move |_: MouseEvent| t);
            html! {
                <button type="button" class="place link" title={format!("{}: show it in the CRD editor", r.crd_path)} {onclick}>
                    { r.place.clone() }
                </button>
            }
        }
        _ => html! { <span class="place" title={r.crd_path.clone()}>{ r.place.clone() }</span> },
    };
    let compile = match (r.rule_compile_error(), r.message_expression_compile_error()) {
        (None, None) => {
            html! { <div class="compile ok"><span class="tick">{ "✓" }</span>{ " compiles" }</div> }
        }
        (rule_error, message_error) => html! {
            <>
                if let Some(e) = rule_error {
                    <div class="compile bad">
                        <span class="sev error">{ "compile error" }</span>
                        <pre class={server_text_class(e)}>{ e }</pre>
                    </div>
                }
                if let Some(e) = message_error {
                    <div class="compile bad">
                        <span class="sev error">{ "messageExpression" }</span>
                        <pre class={server_text_class(e)}>{ e }</pre>
                    </div>
                }
            </>
        },
    };
    let meta: Vec<(&str, &str, bool)> = [
        ("message", rep.message.as_str(), false),
        ("messageExpression", rep.message_expression.as_str(), true),
        ("reason", rep.reason.as_str(), false),
        ("fieldPath", rep.field_path.as_str(), true),
    ]
    .into_iter()
    .filter(|(_, v, _)| !v.is_empty())
    .collect();
    let class = classes!(
        "rule-card",
        r.failing.then_some("failing"),
        r.has_compile_error().then_some("broken"),
        r.over_limit().then_some("over")
    );
    let cost_spot = match &r.cost.rule {
        Some(share) => html! {
            <span class={classes!("cost", share.over().then_some("over"))}
                title={format!("Estimated cost as CRD validation checks it against the per-rule limit: {}", share.long_text())}>
                <span class="cost-figure">{ r.cost.head_text() }</span>
                { share_bar(share, "rule") }
                <span class="cost-share">{ share.text() }</span>
            </span>
        },
        None => html! {
            <span class="cost" title="No estimate: the rule did not compile">{ r.cost.head_text() }</span>
        },
    };
    let formula = r.cost.formula_text();
    let message_cost = r.cost.message_expression;
    html! {
        <li class={class} key={id.clone()}>
            <div class="rule-head">
                <span class="rule-no">{ format!("#{}", r.number) }</span>
                <span class="vpath" title="Where the rule runs in an object (self)">{ r.value_path.clone() }</span>
                { place }
                if rep.transition {
                    <span class="tag transition" title="The rule uses oldSelf: it runs on updates, when the old object has the value">{ "transition rule" }</span>
                }
                if rep.optional_old_self {
                    <span class="tag" title="optionalOldSelf: true — the rule also runs without an old value (oldSelf is an optional)">{ "optionalOldSelf" }</span>
                }
                <span class="spacer"></span>
                { cost_spot }
            </div>
            <div class="rule-main">
            <textarea class="rule-input" rows={rows} spellcheck="false" autocomplete="off"
                aria-label={format!("Rule {}", r.number)}
                title="Edit the rule: the CRD text is rewritten and checked again"
                value={text} {oninput} />
            { compile }
            { for r.errors.iter().map(|e| rule_error_row(e, on_jump)) }
            if formula.is_some() || message_cost.is_some() {
                <div class="cost-detail">
                    if let Some(f) = formula {
                        <span title="The estimated cost of one evaluation, times how many values of the node one request can hold">{ f }</span>
                    }
                    if let Some(m) = message_cost {
                        <span class={classes!(m.over().then_some("over"))}
                            title={format!("The messageExpression's estimated cost, checked against the same limit: {}", m.long_text())}>
                            { format!("messageExpression est. cost {} ({})", digits(m.value), m.text()) }
                        </span>
                    }
                </div>
            }
            if !meta.is_empty() {
                <dl class="rule-meta">
                    { for meta.into_iter().map(|(k, v, code)| html! {
                        <>
                            <dt>{ k }</dt>
                            <dd class={classes!(code.then_some("code"))}>{ v }</dd>
                        </>
                    }) }
                </dl>
            }
            </div>
            <div class="samples">
                { for r.samples.iter().map(|s| sample(s, on_jump)) }
            </div>
            { for r.explanations.iter().map(|x| explanation(x, actions)) }
        </li>
    }
}

/// A CRD error the server reports at the rule (also in Problems); its label jumps to it.
fn rule_error_row(e: &RuleError, on_jump: &Callback<FocusTarget>) -> Html {
    let label = match e.target {
        Some(t) => {
            let onclick = on_jump.reform(move |_: MouseEvent| t);
            html! {
                <button type="button" class="sev error link-sev" title={format!("{} — show it in the CRD editor", e.message)} {onclick}>
                    { e.label.clone() }
                </button>
            }
        }
        None => {
            html! { <span class="sev error" title={e.message.clone()}>{ e.label.clone() }</span> }
        }
    };
    html! {
        <div class="compile bad rule-error">
            { label }
            <pre class={server_text_class(&e.detail)}>{ e.detail.clone() }</pre>
        </div>
    }
}

fn sample(s: &SampleResults, on_jump: &Callback<FocusTarget>) -> Html {
    html! {
        <div class="sample">
            <div class="sample-head">
                <span class="sample-name">{ s.object.clone() }</span>
                <span class="pill op">{ s.operation.clone() }</span>
                if s.groups.iter().map(|g| g.evaluations.len()).sum::<usize>() > 1 {
                    <span class="sample-summary">{ s.summary.clone() }</span>
                }
            </div>
            if let Some(note) = &s.note {
                <p class="muted note">{ note.clone() }</p>
            }
            if !s.groups.is_empty() {
                <ul class="outcomes">
                    { for s.groups.iter().map(|g| group(g, on_jump)) }
                </ul>
            }
        </div>
    }
}

/// Server text is shown as written; text with a CEL caret line (` | ....^`) is not wrapped,
/// so the caret stays under the character it points at.
fn server_text_class(text: &str) -> Classes {
    classes!("server-text", text.contains("\n | ").then_some("carets"))
}

fn outcome_class(o: CelOutcome) -> &'static str {
    match o {
        CelOutcome::Passed => "passed",
        CelOutcome::Failed => "failed",
        CelOutcome::Error => "error",
        CelOutcome::Skipped => "skipped",
    }
}

fn path_button(e: &Evaluation, on_jump: &Callback<FocusTarget>) -> Html {
    match e.target {
        Some(t) => {
            let onclick = on_jump.reform(move |_: MouseEvent| t);
            html! {
                <button type="button" class="vpath link" title={format!("cost {} · show the value in the Object editor", e.cost)} {onclick}>
                    { e.path.clone() }
                </button>
            }
        }
        None => {
            html! { <span class="vpath" title={format!("cost {}", e.cost)}>{ e.path.clone() }</span> }
        }
    }
}

fn group(g: &OutcomeGroup, on_jump: &Callback<FocusTarget>) -> Html {
    let name = outcome_name(g.outcome);
    let count = g.evaluations.len();
    let listed = &g.evaluations[..count.min(MAX_LISTED)];
    let more = count - listed.len();
    let with_messages = listed.iter().any(|e| e.message.is_some());
    let once = g.same_message();
    let first_message = listed
        .first()
        .and_then(|e| e.message.clone())
        .unwrap_or_default();
    let chips = html! {
        <span class="paths">
            { for listed.iter().map(|e| path_button(e, on_jump)) }
            if more > 0 { <span class="muted">{ format!("+{more} more") }</span> }
        </span>
    };
    html! {
        <li class={classes!("outcome", outcome_class(g.outcome))}>
            <div class="outcome-line">
                <span class={classes!("verdict", outcome_class(g.outcome))}>{ name }</span>
                if count > 1 {
                    <span class="times">{ format!("{count} ×") }</span>
                }
                if !with_messages || once { { chips } }
                <span class="eval-cost">{ g.cost_text() }</span>
            </div>
            if let Some(d) = g.shown_detail() {
                <pre class={classes!("detail", d.contains("\n | ").then_some("carets"))}>{ d }</pre>
            }
            if once {
                <pre class={server_text_class(&first_message)}>{ first_message.clone() }</pre>
                <p class="detail">{ "Each value gets this message, with its own path." }</p>
            } else if with_messages {
                <ul class="evals">
                    { for listed.iter().map(|e| html! {
                        <li>
                            { path_button(e, on_jump) }
                            if let Some(m) = &e.message {
                                <pre class={server_text_class(m)}>{ m.clone() }</pre>
                            }
                        </li>
                    }) }
                    if more > 0 { <li class="muted">{ format!("… and {more} more") }</li> }
                </ul>
            }
        </li>
    }
}
