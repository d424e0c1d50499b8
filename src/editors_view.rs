//! A studio's editors: the CRD editor with the collapsed Previous CRD editor under it
//! (from [`crate::changes_view`]), the Object editor with Generate sample, and the
//! collapsed Old object editor (Copy from Object, Clear). Edits go to
//! [`StudioCtx::edit`]; a text the app replaces reloads through its generation.

use std::rc::Rc;

use crd_studio_engine::Editor as AssistEditor;
use yew::prelude::*;

use crate::copy_button::CopyButton;
use crate::editor::CodeEditor;
use crate::editor_text::EditorText;
use crate::studio_ctx::StudioCtx;
use crate::studio_live::Replace;
use crate::view_model::Pane;

/// Properties of [`Editors`].
#[derive(Properties, PartialEq)]
pub(crate) struct EditorsProps {
    /// The studio's shared state.
    pub(crate) ctx: StudioCtx,
}

/// The editors' area (`main.editors`).
#[component]
pub(crate) fn Editors(props: &EditorsProps) -> Html {
    let ctx = &props.ctx;
    let shown = &*ctx.shown;
    let studio = ctx.analyser.studio.clone();
    let (old_open, old_crd_open, old_in_use) = (*ctx.old_open, *ctx.old_crd_open, *ctx.old_in_use);
    let on_toggle_old_crd = {
        let old_crd_open = ctx.old_crd_open.clone();
        Callback::from(move |_: MouseEvent| old_crd_open.set(!*old_crd_open))
    };
    let on_copy_crd = {
        let ctx = ctx.clone();
        Callback::from(move |()| {
            let crd = ctx.live.borrow().texts.crd.clone();
            ctx.replace(Replace::OldCrd(crd));
            ctx.old_crd_open.set(true);
        })
    };
    let on_toggle_old = {
        let old_open = ctx.old_open.clone();
        Callback::from(move |_: MouseEvent| old_open.set(!*old_open))
    };
    let on_copy_object = {
        let ctx = ctx.clone();
        Callback::from(move |()| {
            let object = ctx.live.borrow().texts.object.clone();
            ctx.replace(Replace::OldObject(object));
            ctx.old_open.set(true);
        })
    };
    let on_clear_old = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| ctx.replace(Replace::OldObject(EditorText::default())))
    };
    // "Generate sample": the engine's minimal sample for the object's version, added as a
    // new document (or in place of a blank text: nothing typed is lost).
    let sample_text = shown.as_ref().and_then(|s| s.reply.previews.sample.clone());
    let all_fields_text = shown
        .as_ref()
        .and_then(|s| s.reply.previews.sample_all_fields.clone());
    let add_sample = |text: Option<String>| {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(sample) = &text {
                let current = ctx.live.borrow().texts.object.rust().to_string();
                ctx.replace(Replace::Object(crate::explain_model::with_sample(
                    &current, sample,
                )));
            }
        })
    };
    let on_sample = add_sample(sample_text.clone());
    let on_all_fields = add_sample(all_fields_text.clone());
    let empty = Rc::new(Vec::new());
    let (crd_marks, object_marks, old_marks, old_crd_marks) = match shown {
        Some(s) => (
            s.crd_marks.clone(),
            s.object_marks.clone(),
            s.old_marks.clone(),
            s.old_crd_marks.clone(),
        ),
        None => (empty.clone(), empty.clone(), empty.clone(), empty),
    };
    let texts = ctx.live.borrow().texts.clone();
    let generations = *ctx.generations.borrow();
    let controls = &ctx.controls;
    let old_state = if old_in_use {
        html! { <span class="pill update" title="The Object is analysed as an update of this old object">{ "update" }</span> }
    } else {
        html! { <span class="pill" title="Empty: the Object is analysed as a create">{ "off · create" }</span> }
    };
    html! {
        <main class="editors">

            <div class={classes!("object-column", "crd-column", old_crd_open.then_some("old-open"))}>
            <section class="pane" aria-labelledby="crd-title">
                <h2 id="crd-title">{ "CustomResourceDefinition" }<span class="file">{ "crd.yaml" }</span>
                    <span class="hint" title="In the editors, Tab and Shift+Tab move the focus on; Ctrl+] and Ctrl+[ indent and outdent the line">{ "Tab moves on · Ctrl+] indents" }</span></h2>
                <CodeEditor
                    label={Pane::Crd.label()}
                    text={texts.crd.clone()}
                    generation={generations.crd}
                    diagnostics={crd_marks}
                    on_change={ctx.edit(Pane::Crd)}
                    control={controls.crd.clone()}
                    read_only={ctx.lock_crd}
                    assist={Some((studio.clone(), AssistEditor::Crd))}
                />
            </section>
            { crate::changes_view::previous_crd_pane(crate::changes_view::PreviousCrdPane {
                open: old_crd_open,
                in_use: !texts.old_crd.is_blank(),
                text: texts.old_crd.clone(),
                generation: generations.old_crd,
                marks: old_crd_marks,
                on_toggle: on_toggle_old_crd,
                on_copy: on_copy_crd,
                on_change: ctx.edit(Pane::OldCrd),
                control: controls.old_crd.clone(),
            }) }
            </div>
            <div class={classes!("object-column", old_open.then_some("old-open"))}>
                <section class="pane" aria-labelledby="object-title">
                    <h2 id="object-title">{ "Object" }<span class="file">{ "object.yaml" }</span>
                        <button type="button" class="small generate-sample" onclick={on_sample}
                            disabled={sample_text.is_none()}
                            title="Add a minimal object the schema accepts (required fields, enums, bounds) as a new document">{ "Generate sample" }</button>
                        <button type="button" class="small all-fields-sample" onclick={on_all_fields}
                            disabled={all_fields_text.is_none()}
                            title="Add an object with every field of the schema (like crd-studio sample --all-fields) as a new document">{ "All fields" }</button></h2>
                    <CodeEditor
                        label={Pane::Object.label()}
                        text={texts.object.clone()}
                        generation={generations.object}
                        diagnostics={object_marks}
                        on_change={ctx.edit(Pane::Object)}
                        control={controls.object.clone()}
                        assist={Some((studio.clone(), AssistEditor::Object))}
                    />
                </section>
                <section class={classes!("pane", "old-pane", (!old_open).then_some("collapsed"))} aria-labelledby="old-title">
                    <h2>
                        <button type="button" id="old-title" class="disclosure"
                            aria-expanded={if old_open { "true" } else { "false" }}
                            aria-controls="old-object-body"
                            onclick={on_toggle_old}>
                            <span class="chevron" aria-hidden="true">{ if old_open { "▾" } else { "▸" } }</span>
                            { "Old object" }
                        </button>
                        <span class="file">{ "old-object.yaml" }</span>
                        { old_state }
                        <span class="spacer"></span>
                        <CopyButton on_copy={on_copy_object} label="Copy from Object"
                            title="Use the current Object as the old object, then edit the Object to see the update" />
                        if old_in_use {
                            <button type="button" class="small" onclick={on_clear_old}
                                title="Empty the old object: back to the create path">
                                { "Clear" }
                            </button>
                        }
                    </h2>
                    if old_open {
                        <div id="old-object-body" class="old-body">
                            <CodeEditor
                                label={Pane::OldObject.label()}
                                text={texts.old_object.clone()}
                                generation={generations.old}
                                diagnostics={old_marks}
                                on_change={ctx.edit(Pane::OldObject)}
                                control={controls.old.clone()}
                                assist={Some((studio.clone(), AssistEditor::Object))}
                            />
                        </div>
                    }
                </section>
            </div>
        </main>
    }
}
