//! The messages between a studio's top bar and its editors: what Share said, the two-tab
//! conflict, a failed save, the texts waiting after a crash, a stopped analysis, the notice
//! after a link or an example (with Restore), and the engine's crash ([`Notices`]); and the
//! dialog that asks before the texts are replaced ([`ConfirmDialog`]).

use std::rc::Rc;

use gloo::storage::{LocalStorage, Storage};
use yew::prelude::*;

use crate::storage::{save, saved_state, BACKUP_KEY, SET_ASIDE_ON_CLOSE_KEY};
use crate::studio_ctx::{Notice, StudioCtx};
use crate::studio_live::Replace;
use crate::studio_state::StudioState;

/// Properties of [`Notices`] and [`ConfirmDialog`].
#[derive(Properties, PartialEq)]
pub(crate) struct NoticesProps {
    /// The studio's shared state.
    pub(crate) ctx: StudioCtx,
}

/// The messages above the editors (an embed shows only the stopped analysis and the crash).
#[component]
pub(crate) fn Notices(props: &NoticesProps) -> Html {
    let ctx = &props.ctx;
    let stopped_bar = ctx.stopped.map(|after| {
        let ctx = ctx.clone();
        let again = Callback::from(move |_: MouseEvent| ctx.analyse());
        html! {
            <div class="notice" role="alert">
                <span>{ format!("You stopped the analysis after {after} s. Your texts are kept; the results below are from before your last edit. Editing a text analyses it again.") }</span>
                <button type="button" class="small" onclick={again}>{ "Analyse now" }</button>
            </div>
        }
    });
    let crash_alert = (*ctx.crash)
        .clone()
        .map(|message| html! { <p class="crash" role="alert">{ message }</p> });
    if ctx.embed {
        return html! {
            <>
                { stopped_bar }
                { crash_alert }
            </>
        };
    }
    let share_feedback = (*ctx.share_message).clone().map(|(text, download)| {
        html! {
            <p class="share-message" aria-live="polite">
                { text }
                if let Some(href) = download {
                    { " " }
                    <a href={href} download="crd-studio-texts.yaml">{ "Download the texts (crd-studio-texts.yaml)" }</a>
                }
            </p>
        }
    });
    let conflict_bar = (*ctx.conflict).then(|| {
        html! {
            <div class="notice conflict" role="alert">
                <span>{ "Another tab of the studio saved different texts. This tab stops saving until you choose:" }</span>
                <button type="button" class="small" onclick={on_take_theirs(ctx)}>{ "Load the other tab's texts" }</button>
                <button type="button" class="small" onclick={on_keep_mine(ctx)}>{ "Keep this tab's texts" }</button>
            </div>
        }
    });
    let save_bar = (*ctx.save_error).clone().map(|(why, href)| {
        html! {
            <div class="notice conflict" role="alert">
                <span>{ format!("Your texts could not be saved in this browser: {why}. They are kept in this tab only; saving is tried again after each edit.") }</span>
                <a href={href} download="crd-studio-texts.yaml">{ "Download the texts (crd-studio-texts.yaml)" }</a>
            </div>
        }
    });
    let paused_bar = (*ctx.paused).then(|| {
        let ctx = ctx.clone();
        let on_analyse_anyway = Callback::from(move |_: MouseEvent| ctx.analyse());
        html! {
            <div class="notice conflict" role="alert">
                <span>{ "Last time, the engine crashed on these texts, so they are not analysed until you ask (editing a text analyses it too)." }</span>
                <button type="button" class="small" onclick={on_analyse_anyway}>{ "Analyse now" }</button>
            </div>
        }
    });
    let notice_bar = (*ctx.notice).clone().map(|n| {
        let notice = ctx.notice.clone();
        let on_dismiss = Callback::from(move |_: MouseEvent| notice.set(None));
        html! {
            <div class="notice" aria-live="polite">
                <span>{ n.text }</span>
                if n.restorable {
                    <button type="button" class="small" onclick={on_restore(ctx)}>{ "Restore my previous work" }</button>
                }
                <button type="button" class="small quiet" aria-label="Dismiss this message" onclick={on_dismiss}>{ "Dismiss" }</button>
            </div>
        }
    });
    html! {
        <>
            { share_feedback }
            { conflict_bar }
            { save_bar }
            { paused_bar }
            { stopped_bar }
            { notice_bar }
            { crash_alert }
        </>
    }
}

/// The two-tab choice, first way: load the texts the other tab saved (this tab's are put
/// aside).
fn on_take_theirs(ctx: &StudioCtx) -> Callback<MouseEvent> {
    let ctx = ctx.clone();
    Callback::from(move |_: MouseEvent| {
        let now = ctx.current();
        save(BACKUP_KEY, &now);
        LocalStorage::delete(SET_ASIDE_ON_CLOSE_KEY);
        let theirs = saved_state();
        ctx.autosave.release();
        ctx.replace(Replace::State(Box::new(StudioState {
            tab: now.tab,
            ..theirs
        })));
        ctx.conflict.set(false);
        ctx.notice.set(Some(Notice {
            text: "Loaded the texts the other tab saved. This tab's texts are kept:".to_owned(),
            restorable: true,
        }));
    })
}

/// The two-tab choice, second way: save this tab's texts over the other tab's (theirs are
/// put aside).
fn on_keep_mine(ctx: &StudioCtx) -> Callback<MouseEvent> {
    let ctx = ctx.clone();
    Callback::from(move |_: MouseEvent| {
        save(BACKUP_KEY, &saved_state());
        LocalStorage::delete(SET_ASIDE_ON_CLOSE_KEY);
        ctx.autosave.save_all_now(ctx.live.borrow().texts.clone());
        ctx.conflict.set(false);
        ctx.notice.set(Some(Notice {
            text: "Saved this tab's texts. The texts the other tab saved are kept:".to_owned(),
            restorable: true,
        }));
    })
}

/// Swaps the current work with the work put aside.
fn on_restore(ctx: &StudioCtx) -> Callback<MouseEvent> {
    let ctx = ctx.clone();
    Callback::from(move |_: MouseEvent| {
        let Ok(aside) = LocalStorage::get::<StudioState>(BACKUP_KEY) else {
            ctx.notice.set(Some(Notice {
                text: "There is no work put aside to restore.".to_owned(),
                restorable: false,
            }));
            return;
        };
        save(BACKUP_KEY, &ctx.current());
        ctx.replace(Replace::State(Box::new(aside)));
        ctx.notice.set(Some(Notice {
            text: "Your previous work is back. What it replaced is kept too:".to_owned(),
            restorable: true,
        }));
    })
}

/// The modal dialog that asks before the texts are replaced (an example, Reset); nothing is
/// replaced until the user says so. Escape cancels.
#[component]
pub(crate) fn ConfirmDialog(props: &NoticesProps) -> Html {
    let ctx = &props.ctx;
    let pending = &ctx.pending;
    let dialog = use_node_ref();
    {
        let dialog = dialog.clone();
        use_effect_with(pending.is_some(), move |&open| {
            if let Some(d) = dialog.cast::<web_sys::HtmlDialogElement>() {
                if open && !d.open() {
                    let _ = d.show_modal();
                } else if !open && d.open() {
                    d.close();
                }
            }
        });
    }
    let on_confirm = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(ask) = (*ctx.pending).clone() {
                ctx.pending.set(None);
                let ask = Rc::unwrap_or_clone(ask);
                ctx.load(ask.next, ask.what);
            }
        })
    };
    let on_cancel = {
        let pending = pending.clone();
        Callback::from(move |_: MouseEvent| pending.set(None))
    };
    // Escape closes the dialog too.
    let on_dialog_close = {
        let pending = pending.clone();
        Callback::from(move |_: Event| pending.set(None))
    };
    let ask = (**pending).clone();
    let title = ask.as_ref().map(|a| a.title.clone()).unwrap_or_default();
    let confirm = ask.as_ref().map(|a| a.confirm.clone()).unwrap_or_default();
    html! {
        <dialog class="confirm" ref={dialog} aria-labelledby="confirm-title"
            aria-describedby="confirm-text" onclose={on_dialog_close}>
            <h2 id="confirm-title">{ title }</h2>
            <p id="confirm-text">{ "Your CRD, object, old object and Previous CRD texts are replaced. They are put aside: \
                “Restore my previous work” brings them back." }</p>
            <div class="actions">
                <button type="button" class="small" onclick={on_cancel} autofocus=true>{ "Cancel" }</button>
                <button type="button" class="small primary" onclick={on_confirm}>{ confirm }</button>
            </div>
        </dialog>
    }
}
