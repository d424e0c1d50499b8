//! The "Tests" tab: the studio's test cases (`*.crdtest.yaml` cases: an object, maybe an
//! old object, and what the server must do with it), each run again in the worker after
//! every edit, pass or fail at a glance with each failed expectation (expected, got, and its
//! line in the file "Download tests" writes). "Save as test case" makes the Object (and the
//! old object) with its verdict now a case; "Open tests…" loads a test file's CRD and cases.
//! The worker reads, writes and runs the test files (the engine's `CaseSuite`,
//! `write_test_file`, `read_test_file`): this view only shows and sends.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

use crd_studio_engine::{CaseResult, CaseTexts, Editor};

use crate::assist::{AssistAnswer, AssistKind, AssistRequest};
use crate::editor_text::EditorText;
use crate::studio_ctx::{Pending, StudioCtx};
use crate::studio_live::old_object_of;
use crate::studio_state::StudioState;

/// Properties of [`TestsPanel`].
#[derive(Properties, PartialEq)]
pub(crate) struct TestsPanelProps {
    /// The studio's shared state.
    pub(crate) ctx: StudioCtx,
    /// Whether another tab is showing.
    pub(crate) hidden: bool,
}

/// The cases' results shown, when the answer shown ran the cases as they are now.
pub(crate) fn results(ctx: &StudioCtx) -> Option<Vec<CaseResult>> {
    let shown = (*ctx.shown).clone()?;
    let n = ctx.live.borrow().tests.len();
    (shown.reply.tests.len() == n).then(|| shown.reply.tests.clone())
}

/// The tab's badge: cases, and how many fail (`None` while they run).
pub(crate) fn badge(ctx: &StudioCtx) -> (usize, Option<usize>) {
    let n = ctx.live.borrow().tests.len();
    let failing = results(ctx).map(|r| r.iter().filter(|c| !c.failures.is_empty()).count());
    (n, failing)
}

/// A request about tests to the studio's worker.
fn request(ctx: &StudioCtx, kind: AssistKind) -> AssistRequest {
    AssistRequest {
        studio: ctx.analyser.studio.to_string(),
        id: 0,
        kind,
        editor: Editor::Object,
        offset: 0,
        text: String::new(),
        case: None,
        tests: Vec::new(),
    }
}

/// Loads a test file's CRD and cases (asking first when that replaces the user's work).
fn open_file(ctx: &StudioCtx, text: String, name: String, message: UseStateHandle<Option<String>>) {
    let read = request(ctx, AssistKind::ReadTests);
    let ctx = ctx.clone();
    let done = Box::new(move |answer: AssistAnswer| {
        let Some(opened) = answer.opened else {
            return;
        };
        let now = ctx.current();
        let mut said = Vec::new();
        if let Some(path) = &opened.crd_path {
            said.push(format!(
                "its CRD is the file {path}: the CRD editor's text is kept"
            ));
        }
        said.extend(opened.left_out.iter().cloned());
        let next = StudioState {
            crd: opened.crd.clone().unwrap_or_else(|| now.crd.clone()),
            field_validation: opened.field_validation.unwrap_or(now.field_validation),
            kubernetes_version: opened.kubernetes_version.unwrap_or(now.kubernetes_version),
            tests: opened.cases.clone(),
            tab: "tests".into(),
            ..now
        };
        message
            .set((!said.is_empty()).then(|| format!("Left out of {name}: {}.", said.join("; "))));
        let count = opened.cases.len();
        ctx.ask_then_load(Pending {
            title: format!("Open the tests of {name}?"),
            confirm: "Open tests".into(),
            next,
            what: format!(
                "Opened {name} ({count} case{}).",
                if count == 1 { "" } else { "s" }
            ),
        });
    });
    crate::worker_client::assist(read, Some(EditorText::from_rust(text)), done);
}

/// Starts a download of `text` named `name`.
fn download(text: &str, name: &str) {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/yaml");
    let Ok(url) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)
        .and_then(|blob| web_sys::Url::create_object_url_with_blob(&blob))
    else {
        return;
    };
    let document = gloo::utils::document();
    if let Ok(a) = document.create_element("a") {
        let _ = a.set_attribute("href", &url);
        let _ = a.set_attribute("download", name);
        if let Ok(a) = a.dyn_into::<web_sys::HtmlElement>() {
            a.click();
        }
    }
}

/// The panel.
#[component]
pub(crate) fn TestsPanel(props: &TestsPanelProps) -> Html {
    let ctx = &props.ctx;
    // What the last action said (a case that could not be saved, what a file left out).
    let message = use_state(|| None::<String>);
    let file_input = use_node_ref();
    // An embed's test file: its cases are loaded once.
    {
        let ctx = ctx.clone();
        use_effect_with((), move |_| {
            if let Some(file) = ctx.tests_file.clone() {
                let me = ctx.clone();
                crate::worker_client::assist(
                    request(&ctx, AssistKind::ReadTests),
                    Some(EditorText::from_rust(file)),
                    Box::new(move |answer: AssistAnswer| {
                        if let Some(opened) = answer.opened {
                            me.set_tests(opened.cases);
                        }
                    }),
                );
            }
        });
    }
    let tests = ctx.live.borrow().tests.clone();
    let results = results(ctx);
    let on_save = {
        let ctx = ctx.clone();
        let message = message.clone();
        Callback::from(move |_: MouseEvent| {
            let mut req = request(&ctx, AssistKind::SaveCase);
            {
                let live = ctx.live.borrow();
                req.case = Some(CaseTexts {
                    name: format!("case {}", live.tests.len() + 1),
                    object: live.texts.object.rust().to_string(),
                    old_object: old_object_of(&live.texts.old_object),
                    expect: serde_json::Value::Null,
                });
            }
            let (ctx, message) = (ctx.clone(), message.clone());
            crate::worker_client::assist(
                req,
                None,
                Box::new(move |answer: AssistAnswer| match answer.case {
                    Some(Ok(mut case)) => {
                        let verdict = case.expect["verdict"].as_str().unwrap_or("").to_owned();
                        case.name = format!("{} ({verdict})", case.name);
                        let mut tests = ctx.live.borrow().tests.clone();
                        tests.push(case);
                        message.set(None);
                        ctx.set_tests(tests);
                    }
                    Some(Err(why)) => message.set(Some(why)),
                    None => {}
                }),
            );
        })
    };
    let on_download = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| {
            let mut req = request(&ctx, AssistKind::WriteTests);
            req.tests = ctx.live.borrow().tests.clone();
            let crd = ctx.live.borrow().texts.crd.clone();
            let name = (*ctx.shown)
                .as_ref()
                .and_then(|s| s.reply.analysis.crd.name.clone())
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| "crd".into());
            crate::worker_client::assist(
                req,
                Some(crd),
                Box::new(move |answer: AssistAnswer| {
                    if let Some(file) = answer.file {
                        download(&file, &format!("{name}.crdtest.yaml"));
                    }
                }),
            );
        })
    };
    let on_open_click = {
        let file_input = file_input.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(input) = file_input.cast::<web_sys::HtmlElement>() {
                input.click();
            }
        })
    };
    let on_file = {
        let ctx = ctx.clone();
        let message = message.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e.target() else {
                return;
            };
            let file = js_sys::Reflect::get(&input, &"files".into())
                .and_then(|files| js_sys::Reflect::get(&files, &0.into()))
                .ok()
                .filter(|f| !f.is_undefined() && !f.is_null());
            let _ = js_sys::Reflect::set(&input, &"value".into(), &"".into());
            let Some(file) = file else {
                return;
            };
            let name = js_sys::Reflect::get(&file, &"name".into())
                .ok()
                .and_then(|n| n.as_string())
                .unwrap_or_default();
            let text = js_sys::Reflect::get(&file, &"text".into())
                .ok()
                .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
                .and_then(|f| f.call0(&file).ok())
                .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
            let Some(text) = text else {
                return;
            };
            let (ctx, message) = (ctx.clone(), message.clone());
            let read = Closure::once(move |value: JsValue| {
                open_file(&ctx, value.as_string().unwrap_or_default(), name, message);
            });
            let _ = text.then(&read);
            read.forget();
        })
    };
    let rename = |i: usize| {
        let ctx = ctx.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let mut tests = ctx.live.borrow().tests.clone();
            if let Some(case) = tests.get_mut(i) {
                case.name = input.value();
            }
            ctx.set_tests(tests);
        })
    };
    let delete = |i: usize| {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| {
            let mut tests = ctx.live.borrow().tests.clone();
            if i < tests.len() {
                tests.remove(i);
            }
            ctx.set_tests(tests);
        })
    };
    let (passed, failed) = results.as_ref().map_or((0, 0), |r| {
        let failed = r.iter().filter(|c| !c.failures.is_empty()).count();
        (r.len() - failed, failed)
    });
    let summary = match &results {
        _ if tests.is_empty() => String::new(),
        None => "Running…".to_owned(),
        Some(_) if failed == 0 => format!("All {passed} passed"),
        Some(_) => format!("{failed} failed, {passed} passed"),
    };
    let cases = tests.iter().enumerate().map(|(i, case)| {
        let result = results.as_ref().and_then(|r| r.get(i));
        let (class, mark, word) = match result {
            None => ("case running", "…", "running"),
            Some(r) if r.failures.is_empty() => ("case pass", "✓", "passes"),
            Some(_) => ("case fail", "✗", "fails"),
        };
        let failures = result.map(|r| r.failures.clone()).unwrap_or_default();
        let name = if case.name.is_empty() { format!("case {}", i + 1) } else { case.name.clone() };
        html! {
            <li class={class} data-testid="test-case">
                <div class="case-head">
                    <span class="case-mark" aria-hidden="true">{ mark }</span>
                    <input type="text" class="case-name" spellcheck="false"
                        aria-label={format!("Name of case {}", i + 1)}
                        value={case.name.clone()} onchange={rename(i)} />
                    <span class="case-verdict">{ word }</span>
                    <button type="button" class="small" aria-label={format!("Delete case {name}")}
                        onclick={delete(i)}>{ "Delete" }</button>
                </div>
                if !failures.is_empty() {
                    <ul class="case-failures" aria-label={format!("Failed expectations of {name}")}>
                        { for failures.iter().map(|f| html! {
                            <li>
                                <code class="case-expectation">{ f.expectation.clone() }</code>
                                <span class="muted">{ format!(" (line {})", f.place.start.line) }</span>
                                <div class="case-diff">
                                    <span class="case-label">{ "expected" }</span><code>{ f.expected.clone() }</code>
                                    <span class="case-label">{ "got" }</span><code>{ f.got.clone() }</code>
                                </div>
                            </li>
                        }) }
                    </ul>
                }
            </li>
        }
    });
    html! {
        <section id="panel-tests" class="panel tests" role="region" aria-label="Tests"
            hidden={props.hidden}>
            <div class="stored-toolbar tests-toolbar">
                <button type="button" class="small" onclick={on_save}
                    title="Add the Object (and the old object) with its verdict now as a case">
                    { "Save as test case" }</button>
                <button type="button" class="small" onclick={on_download} disabled={tests.is_empty()}
                    title="Download the CRD and the cases as a .crdtest.yaml (crd-studio test runs it)">
                    { "Download tests" }</button>
                if !ctx.embed {
                    <button type="button" class="small" onclick={on_open_click}
                        title="Open a .crdtest.yaml: its CRD and cases">{ "Open tests…" }</button>
                    <input type="file" class="visually-hidden" tabindex="-1" aria-hidden="true"
                        accept=".yaml,.yml,application/yaml" ref={file_input} onchange={on_file} />
                }
                <span class="tests-summary" role="status" data-testid="tests-summary">{ summary }</span>
            </div>
            if let Some(m) = &*message {
                <p class="tests-message" role="alert">{ m.clone() }</p>
            }
            <div class="preview-body" tabindex="-1">
                if tests.is_empty() {
                    <p class="empty">{ "No test cases yet. \"Save as test case\" keeps the Object (and the old object) with what the server does with it now; every case runs again after each edit, and \"Download tests\" writes them for crd-studio test." }</p>
                } else {
                    <ol class="test-cases" aria-label="Test cases">{ for cases }</ol>
                }
            </div>
        </section>
    }
}
