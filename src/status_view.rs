//! The status line of a studio's top bar: the verdict on the texts (accepted, rejected,
//! analysing, stopped, not analysed after a crash), and beside it how far a long analysis
//! is, how long it has run, and its Stop button.

use yew::prelude::*;

use crate::analyser::STOP_AFTER_S;
use crate::studio_ctx::StudioCtx;
use crate::versions_line::VersionsLine;

/// Properties of [`StatusLine`].
#[derive(Properties, PartialEq)]
pub(crate) struct StatusLineProps {
    /// The studio's shared state.
    pub(crate) ctx: StudioCtx,
    /// The CRD across Kubernetes versions, when known for the shown CRD.
    #[prop_or_default]
    pub(crate) versions: Option<VersionsLine>,
}

/// The verdict and, during a long analysis, its progress and Stop.
#[component]
pub(crate) fn StatusLine(props: &StatusLineProps) -> Html {
    let ctx = &props.ctx;
    let (shown, working, stopped, paused) = (&ctx.shown, *ctx.working, *ctx.stopped, *ctx.paused);
    // A long analysis shows how far it is and how long it has run, and can be stopped. The
    // live status itself stays "Analysing…" (a screen reader is not told every second).
    let on_stop = {
        let analyser = ctx.analyser.clone();
        Callback::from(move |_: MouseEvent| analyser.stop())
    };
    // Always rendered (hidden when idle): a child that comes and goes would shift the
    // header's children, and Yew, matching them from the end, would replace the status
    // element instead of updating it.
    let running = {
        let active = working || (shown.is_none() && !paused && stopped.is_none());
        let detail = if active {
            running_detail(*ctx.progress, *ctx.elapsed)
        } else {
            String::new()
        };
        let stop = active && *ctx.elapsed >= STOP_AFTER_S;
        html! {
            <span class="running" hidden={detail.is_empty() && !stop}>
                if !detail.is_empty() {
                    <span class="progress">{ detail }</span>
                }
                if stop {
                    <button type="button" class="small stop" onclick={on_stop}
                        title="Stop this analysis (the engine is restarted; your texts stay)">{ "Stop" }</button>
                }
            </span>
        }
    };
    let status_line = match &**shown {
        Some(_) if working => {
            html! { <p class="status working" role="status" title="The engine is analysing the newest edit">{ "Analysing…" }</p> }
        }
        _ if stopped.is_some() => {
            let after = stopped.unwrap_or_default();
            html! { <p class="status stopped" role="status">{ format!("Stopped after {after} s: not analysed") }</p> }
        }
        Some(s) => {
            let class = if s.status.accepted {
                "status ok"
            } else {
                "status bad"
            };
            html! { <p class={class} role="status" title={s.status.text.clone()}>{ s.status.text.clone() }</p> }
        }
        None if paused => {
            html! { <p class="status" role="status">{ "Not analysed (the engine crashed on these texts)" }</p> }
        }
        None => html! { <p class="status" role="status">{ "Analysing…" }</p> },
    };
    // Under the verdict: the CRD across Kubernetes versions (not while analysing, and not
    // when every version rejects it alike: the verdict says that already). Always rendered,
    // hidden when empty, for the same reason as `running`.
    let versions = props
        .versions
        .as_ref()
        .filter(|_| shown.is_some() && !working && stopped.is_none())
        .filter(|v| !v.line.is_empty() && (v.all_accepted || !v.uniform));
    let versions = match versions {
        Some(v) => {
            let class = if v.all_accepted {
                "versions ok"
            } else {
                "versions bad"
            };
            // Screen readers get "1.31 to 1.37" for the dash.
            html! {
                <p class={class}>
                    <span aria-hidden="true">
                        <span class="versions-head">{ "Kubernetes versions: " }</span>
                        { v.line.clone() }
                    </span>
                    <span class="visually-hidden">{ v.spoken() }</span>
                </p>
            }
        }
        None => html! { <p class="versions" hidden=true></p> },
    };
    html! {
        <>
            { status_line }
            { running }
            { versions }
        </>
    }
}

/// The words beside "Analysing…" for a long analysis: how far it is (when there is more
/// than one object document) and, after a second, how long it has run.
fn running_detail(progress: Option<(usize, usize)>, elapsed: u32) -> String {
    let mut parts = Vec::new();
    if let Some((done, total)) = progress.filter(|p| p.1 > 1) {
        parts.push(format!("{done} of {total} objects"));
    }
    if elapsed >= 1 {
        parts.push(format!("{elapsed} s"));
    }
    parts.join(", ")
}
