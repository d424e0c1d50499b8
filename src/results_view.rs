//! A studio's result tabs: the tab row (Problems with its count, Stored object, CEL rules
//! with its badge, kubectl get, Conversion, Changes with its badge, Explain) and the panel
//! of each; a panel's links put the cursor in the editors.

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::cel_view::CelPanel;
use crate::changes_view::ChangesPanel;
use crate::conversion_view::ConversionPanel;
use crate::explain_view::ExplainPanel;
use crate::get_view::GetPanel;
use crate::problems_view::ProblemsPanel;
use crate::stored_view::StoredPanel;
use crate::studio_ctx::StudioCtx;
use crate::studio_live::{BottomTab, Replace};
use crate::studio_state::StudioState;
use crate::view_model::{row_counts, EditorEdit, EditorFix, Pane, ProblemRow};
use crate::worker_boundary::PreviewQuery;
use crd_studio_engine::selectable_field_fix;

/// Properties of [`Results`].
#[derive(Properties, PartialEq)]
pub(crate) struct ResultsProps {
    /// The studio's shared state.
    pub(crate) ctx: StudioCtx,
}

/// The bottom area (`section.bottom`): the tabs and their panels.
#[component]
pub(crate) fn Results(props: &ResultsProps) -> Html {
    let ctx = &props.ctx;
    let (shown, query, bottom, working) =
        ((*ctx.shown).clone(), &ctx.query, *ctx.bottom, *ctx.working);
    let focus = ctx.focus();
    // A finding's repair, applied in its editor as the user's own edit (Undo takes it back).
    let on_fix = {
        let controls = ctx.controls.clone();
        Callback::from(move |(pane, fix): (Pane, EditorFix)| controls.of(pane).apply_fix(&fix))
    };
    let on_problem = {
        let focus = focus.clone();
        Callback::from(move |row: ProblemRow| {
            if let Some(t) = row.target {
                focus.emit(t);
            }
        })
    };
    let on_rewrite_crd = {
        let ctx = ctx.clone();
        Callback::from(move |text: String| ctx.replace(Replace::Crd(text)))
    };
    let on_open_old_crd = {
        let old_crd_open = ctx.old_crd_open.clone();
        Callback::from(move |()| old_crd_open.set(true))
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
    // kubectl's "field label not supported": list the field in the version's selectableFields.
    let on_selectable = {
        let ctx = ctx.clone();
        Callback::from(move |(version, label): (String, String)| {
            let crd = ctx.live.borrow().texts.crd.rust();
            if let Some(edit) = selectable_field_fix(&crd, &version, &label) {
                let fix = EditorFix {
                    title: format!("Add .{label} to selectableFields"),
                    edits: vec![EditorEdit::of(&edit)],
                };
                ctx.controls.of(Pane::Crd).apply_fix(&fix);
            }
        })
    };
    let on_version = {
        let ctx = ctx.clone();
        Callback::from(move |version: AttrValue| {
            ctx.live.borrow_mut().version = version;
            ctx.rerender.force_update();
        })
    };
    let on_tab = |tab: BottomTab| {
        let bottom = ctx.bottom.clone();
        Callback::from(move |_: MouseEvent| bottom.set(tab))
    };
    // The ARIA tabs pattern: one Tab stop (the selected tab), the arrow keys, Home and End
    // move between the tabs, and the focused tab is shown.
    let on_tab_key = {
        let bottom_state = ctx.bottom.clone();
        Callback::from(move |e: KeyboardEvent| {
            let at = TAB_ORDER.iter().position(|t| *t == bottom).unwrap_or(0);
            let last = TAB_ORDER.len() - 1;
            let next = match e.key().as_str() {
                "ArrowRight" => Some(if at == last { 0 } else { at + 1 }),
                "ArrowLeft" => Some(if at == 0 { last } else { at - 1 }),
                "Home" => Some(0),
                "End" => Some(last),
                _ => None,
            };
            if let Some(tab) = next.and_then(|i| TAB_ORDER.get(i)) {
                e.prevent_default();
                bottom_state.set(*tab);
                if let Some(el) = gloo::utils::document()
                    .get_element_by_id(&format!("tab-{}", tab.name()))
                    .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
                {
                    let _ = el.focus();
                }
            }
        })
    };
    let texts = ctx.live.borrow().texts.clone();
    let selected_version = ctx.live.borrow().version.clone();
    let counts = shown
        .as_ref()
        .map(|s| row_counts(&s.rows))
        .unwrap_or_default();
    let (cel_rules, cel_bad) = shown.as_ref().map(|s| s.cel_badge).unwrap_or_default();
    let changes_badge = shown.as_ref().map(|s| s.changes_badge).unwrap_or_default();
    let (tests_count, tests_failing) = crate::tests_view::badge(ctx);
    let count_class = if counts.errors > 0 {
        "count error"
    } else if counts.warnings > 0 {
        "count warning"
    } else {
        "count"
    };
    html! {
        <section class={classes!("bottom", (working || ctx.stopped.is_some()).then_some("stale"))} aria-busy={if working { "true" } else { "false" }}>
            <div class="tabs" role="tablist" aria-label="Results" onfocusin={Callback::from(reveal_tab)}
                onkeydown={on_tab_key}>
                <button type="button" role="tab" id="tab-problems" aria-controls="panel-problems"
                    aria-selected={if bottom == BottomTab::Problems { "true" } else { "false" }}
                    tabindex={if bottom == BottomTab::Problems { "0" } else { "-1" }}
                    onclick={on_tab(BottomTab::Problems)}>
                    { "Problems" }<span class={count_class}>{ counts.errors + counts.warnings + counts.infos }</span>
                </button>
                <button type="button" role="tab" id="tab-stored" aria-controls="panel-stored"
                    aria-selected={if bottom == BottomTab::Stored { "true" } else { "false" }}
                    tabindex={if bottom == BottomTab::Stored { "0" } else { "-1" }}
                    onclick={on_tab(BottomTab::Stored)}>
                    { "Stored object" }
                </button>
                <button type="button" role="tab" id="tab-cel" aria-controls="panel-cel"
                    title="The x-kubernetes-validations rules and what they do on the objects"
                    aria-selected={if bottom == BottomTab::Cel { "true" } else { "false" }}
                    tabindex={if bottom == BottomTab::Cel { "0" } else { "-1" }}
                    onclick={on_tab(BottomTab::Cel)}>
                    { "CEL rules" }<span class={if cel_bad { "count error" } else { "count" }}>{ cel_rules }</span>
                </button>
                <button type="button" role="tab" id="tab-get" aria-controls="panel-get"
                    title="What kubectl get prints, field selectors, versions and /scale"
                    aria-selected={if bottom == BottomTab::Get { "true" } else { "false" }}
                    tabindex={if bottom == BottomTab::Get { "0" } else { "-1" }}
                    onclick={on_tab(BottomTab::Get)}>
                    { "kubectl get" }
                </button>
                <button type="button" role="tab" id="tab-conversion" aria-controls="panel-conversion"
                    title="The conversion strategy, the webhook's ConversionReview and authored mappings"
                    aria-selected={if bottom == BottomTab::Conversion { "true" } else { "false" }}
                    tabindex={if bottom == BottomTab::Conversion { "0" } else { "-1" }}
                    onclick={on_tab(BottomTab::Conversion)}>
                    { "Conversion" }
                </button>
                <button type="button" role="tab" id="tab-changes" aria-controls="panel-changes"
                    title="The CRD as an update of the Previous CRD: the server's verdict, the changes, and the objects already stored"
                    aria-selected={if bottom == BottomTab::Changes { "true" } else { "false" }}
                    tabindex={if bottom == BottomTab::Changes { "0" } else { "-1" }}
                    onclick={on_tab(BottomTab::Changes)}>
                    { "Changes" }
                    if changes_badge > 0 {
                        <span class="count error">{ changes_badge }</span>
                    }
                </button>
                <button type="button" role="tab" id="tab-tests" aria-controls="panel-tests"
                    title="Test cases: objects and what the server must do with them, run after every edit"
                    aria-selected={if bottom == BottomTab::Tests { "true" } else { "false" }}
                    tabindex={if bottom == BottomTab::Tests { "0" } else { "-1" }}
                    onclick={on_tab(BottomTab::Tests)}>
                    { "Tests" }
                    if tests_count > 0 {
                        <span class={if tests_failing.unwrap_or(0) > 0 { "count error" } else { "count ok" }}
                            aria-label={match tests_failing {
                                Some(0) => format!("{tests_count} cases, all pass"),
                                Some(f) => format!("{tests_count} cases, {f} failing"),
                                None => format!("{tests_count} cases"),
                            }}>
                            { tests_failing.filter(|f| *f > 0).unwrap_or(tests_count) }</span>
                    }
                </button>
                <button type="button" role="tab" id="tab-explain" aria-controls="panel-explain"
                    title="What kubectl explain prints for the resource, field by field"
                    aria-selected={if bottom == BottomTab::Explain { "true" } else { "false" }}
                    tabindex={if bottom == BottomTab::Explain { "0" } else { "-1" }}
                    onclick={on_tab(BottomTab::Explain)}>
                    { "Explain" }
                </button>
            </div>
            <ProblemsPanel
                shown={shown.clone()}
                hidden={bottom != BottomTab::Problems}
                on_select={on_problem}
                {on_fix}
                on_kubernetes_version={{
                    let kubernetes_version = ctx.kubernetes_version.clone();
                    Callback::from(move |v| kubernetes_version.set(v))
                }}
                blank={texts.crd.is_blank() && texts.object.is_blank()}
                on_start={{
                    let ctx = ctx.clone();
                    // Blank texts: nothing to put aside.
                    Callback::from(move |()| {
                        let example = crate::studio_live::example_state();
                        ctx.replace(Replace::State(Box::new(StudioState {
                            crd: example.crd,
                            object: example.object,
                            ..ctx.current()
                        })));
                    })
                }}
                on_move={{
                    let ctx = ctx.clone();
                    Callback::from(move |(start, end): (usize, usize)| {
                        let (crd, object) = {
                            let live = ctx.live.borrow();
                            (live.texts.crd.rust().to_string(), live.texts.object.rust().to_string())
                        };
                        if let Some((crd, object)) = crate::view_model::move_document(&crd, &object, start, end) {
                            ctx.replace(Replace::Crd(crd));
                            ctx.replace(Replace::Object(object));
                        }
                    })
                }}
                on_cost_fix={{
                    let bottom = ctx.bottom.clone();
                    Callback::from(move |()| bottom.set(BottomTab::Cel))
                }}
                paused={*ctx.paused}
            />
            <StoredPanel
                shown={shown.clone()}
                hidden={bottom != BottomTab::Stored}
                on_jump={focus.clone()}
                version={selected_version}
                {on_version}
            />
            <CelPanel
                shown={shown.clone()}
                crd={texts.crd.clone()}
                hidden={bottom != BottomTab::Cel}
                on_jump={focus.clone()}
                on_rewrite={on_rewrite_crd}
            />
            <GetPanel
                shown={shown.clone()}
                hidden={bottom != BottomTab::Get}
                selector={AttrValue::from(query.field_selector.clone())}
                {on_selector}
                {on_selectable}
            />
            <ConversionPanel
                shown={shown.clone()}
                hidden={bottom != BottomTab::Conversion}
                query={(**query).clone()}
                {on_query}
            />
            <ChangesPanel
                shown={shown.clone()}
                hidden={bottom != BottomTab::Changes}
                on_jump={focus.clone()}
                on_open_previous={on_open_old_crd}
            />
            <crate::tests_view::TestsPanel ctx={ctx.clone()} hidden={bottom != BottomTab::Tests} />
            <ExplainPanel
                shown={shown.clone()}
                hidden={bottom != BottomTab::Explain}
                path={AttrValue::from(query.explain_path.clone())}
                recursive={query.explain_recursive}
                on_change={on_explain}
            />
        </section>
    }
}

/// The result tabs in their order on the page.
const TAB_ORDER: [BottomTab; 8] = [
    BottomTab::Problems,
    BottomTab::Stored,
    BottomTab::Cel,
    BottomTab::Get,
    BottomTab::Conversion,
    BottomTab::Changes,
    BottomTab::Tests,
    BottomTab::Explain,
];

/// The tab row scrolls sideways on a narrow screen: a tab the keyboard focuses is scrolled
/// into view whole (a browser leaves a partly visible one where it is).
fn reveal_tab(e: FocusEvent) {
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
}
