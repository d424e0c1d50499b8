//! The page's side of the Web Worker: one worker per page, shared by every studio on it.
//!
//! [`submit`] hands a studio's job to its [`Channel`] (at most one job in flight per studio,
//! the newest waiting) and posts what the channel lets through; answers come back to the
//! studio's callback. The worker is `static/worker.js`, a module worker that imports this
//! module's JS glue (its URL read from the preload link Trunk writes, or given by
//! [`configure_assets`]) and instantiates the page's own compiled `WebAssembly.Module`, sent
//! in the boot message (the wasm is downloaded and compiled once per page), then calls
//! `crate::worker`.
//!
//! Where no worker can start (a page opened from `file://`, the wasm test runner's page), the
//! jobs run in the page through the worker's own code (`crate::worker::run_job`), with a
//! console warning; everything else is the same.
//!
//! When the engine panics (or the worker dies), every studio gets [`Event::Crashed`] naming
//! the job that caused it, the next job starts a fresh worker, and the studios' channels
//! are reset: nothing the user typed lives in the worker, so nothing is lost.
//!
//! A long analysis is cancelled by restarting the worker (the engine cannot be interrupted
//! mid-analysis): when a newer edit arrives and the job in flight has run for
//! [`CANCEL_AFTER_MS`], or when the user presses Stop ([`stop`]). The other studios' jobs
//! that were in flight are posted again to the new worker.
//!
//! # Timings (ARCHITECTURE.md keeps only the map)
//!
//! - **No debounce**: a job is posted on every keystroke; the one-in-flight rule is the only
//!   batching. After 100 ms without an answer the status line says "Analysing…" and the result
//!   tabs are dimmed (`aria-busy`), never emptied. Autosave waits 300 ms after the last edit
//!   (2 s when a text is over 1 MB: storing megabytes blocks the page for tens of
//!   milliseconds), runs at once when the page is hidden, and writes only the texts that
//!   changed.
//! - **Main-thread cost per keystroke**: an edit does not re-render the page. The editor's
//!   change handler updates the studio's current texts and posts the job at once, before
//!   CodeMirror redraws (`editor.js` calls it from `dispatchTransactions`): the worker
//!   analyses while the typed character's frame is drawn, and its answer is ready for the
//!   next frame instead of missing it now and then. Only the answer renders. Completion or
//!   hover in the CRD editor sends no text when it is the one the worker got with the last
//!   job (`editor.js` hands over the same string; a big CRD is then not copied twice per
//!   keystroke). Texts are `EditorText`s (`editor_text.rs`), compared by identity;
//!   `Shown` compares by its number. Diagnostics reach CodeMirror in the answer's own task
//!   (their marks grow with a character typed at their end, so the answer's marks usually
//!   change no DOM: `web/build.mjs`), and the editors use the browser's own caret
//!   (CodeMirror's drawn cursor is measured after every keystroke).
//! - **Time zones**: CEL's zone database (`tzdb.bin`, 221 KB, 57 KB gzipped) is not part of
//!   the first load: when an analysis reports `needsTimeZones` the worker answers
//!   `needTimeZones` to `worker.js`, which fetches the file, hands it to the engine and
//!   re-queues the jobs that waited (`worker_time_zones`); until then the page keeps showing
//!   the previous answer.
//! - **Long analyses**: the worker posts `Outcome::Progress` (object documents done of those
//!   known, from `CompiledCrd::analyze_objects_with_progress`) at most every 250 ms; the page
//!   shows it beside "Analysing…" with the seconds, and after 2 s a Stop button (the studio's
//!   jobs are dropped, its results stay, dimmed, with "Analyse now"). A newer edit cancels
//!   the job in flight once it has run for [`CANCEL_AFTER_MS`] (1 s; shorter jobs finish, as a
//!   restart compiles the CRD again). The live status stays "Analysing…" (a screen reader is
//!   not told every second).
//! - **Crashes**: a test build (`--features test-hooks`) panics on a CRD holding
//!   `crd-studio-test: panic`, which the end-to-end test uses.
//!
//! # Measured
//!
//! `cargo xtask bench --browser`, headless Chromium on the 2-core dev machine, ms, 30
//! keystrokes per case, each changing the findings. The echo page is a bare textarea; the
//! worker echo page sends each input to a trivial Web Worker and shows its answer: the floor
//! of any page whose findings come from a worker. "Main thread" was the last build with the
//! engine on the main thread and a 150 ms debounce; "worker" the first worker build; "now"
//! adds posting from the change handler without a re-render, diagnostics at the next frame,
//! the browser's own caret, and CRD texts kept as JavaScript strings.
//!
//! | case | main thread p50 / p95 | worker p50 / p95 | now p50 / p95 | long tasks (longest) |
//! | --- | --- | --- | --- | --- |
//! | echo page | 2.8 / 5.7 | 2.3 / 3.2 | 2.0 / 3.6 | 0 |
//! | worker echo page (the floor) | – | – | 21.0 / 22.1 | 0 |
//! | CronTab, typing in the object | 171 / 176 | 37 / 39 | 22 / 37 | 0 |
//! | argo `workflows` (2.8 MB), object | 257 / 305 | 38 / 44 | 28 / 37 | 11 (88) → 0 |
//! | argo `workflows`, typing in the CRD | 1032 / 1216 | 86 / 105 | 78 / 103 | 64 (977) → 0 |
//!
//! Cold load → first findings: CronTab 328–495 ms, argo 1.1–1.2 s. After loading argo the
//! worker's wasm memory is 74 MB and the page's 17 MB (85 MB on the page alone before). A
//! worker round trip costs a frame: even the trivial worker echo updates one frame after the
//! typed character (p95 18 ms over the echo page), so no worker-based page can land within
//! 16 ms of the echo page. The CronTab is at that floor at p50 and one frame over it at p95.
//! What is left is the typed character's own frame: CodeMirror's input handling (it puts the
//! caret back after redrawing the line, a forced layout of about 2 ms) and the frame's paint.
//!
//! Traced (`e2e/latency-trace.mjs`): Chromium draws the typed character's frame right after
//! the keystroke's task and only then runs the worker's answer, even one that arrived during
//! that task; the answer shows in the next frame at the earliest, about 16.7 ms after the
//! keystroke's task ends. So the floor is the keystroke's task plus one frame, and "within
//! 16 ms of the echo page" is out of reach for any answer from a worker (the worker echo page
//! itself is 19–21 ms at p95). Posting before CodeMirror redraws moved the job's start from
//! about 12 ms after the keydown to about 3 (CronTab), so the answer waits for that next frame
//! instead of missing it now and then. Beside the base build, back to back on a loaded
//! machine (load 7–15), p50/p95 ms: CronTab 22.7/67.1, 25.0/39.8, 31.4/64.4 before and
//! 33.5/73.1, 22.6/36.6, 26.4/34.8 after (within the noise); argo typing inside its schema
//! (an unknown field, the decoded CRD unchanged: the content work reused) 1071.7/2308.1,
//! 1214.7/2073.6, 1226.0/3004.0 before and 582.9/975.6, 571.0/1284.2, 704.3/1612.6 after.
//!
//! Issue 29 (CronTab keystrokes; timers around `editor.js`'s calls, median of 30 keystrokes,
//! loaded machine): the lint marks were end-exclusive, so a character typed at the end of a
//! flagged word was split off the mark (CodeMirror redrew the line and put the caret back, a
//! forced layout) and the answer's mark over the longer word redrew it once more. End-inclusive
//! marks (`web/build.mjs`): CodeMirror's update per keystroke 3.3-4.6 → 1.2-2.3 ms,
//! `setDiagnostics` 2.2-2.7 → 0.7-0.9 ms, now in the answer's own task. What is left per
//! keystroke: CodeMirror about 2 ms, the change handler and post 0.5, the answer's render about
//! 2 (spread over the whole studio's re-render). Browser benchmark, six runs alternating with
//! the base build (load 4-8), medians of p50/p95: CronTab 29.5/45.4 → 21.4/38.2 (worker echo
//! page 19-21/22-31); the argo cases within the noise (their time is the worker's).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::assist::{AssistAnswer, AssistRequest};
use crate::editor_text::EditorText;
use crate::worker_boundary::Reply;
use crate::worker_protocol::{Channel, CrdText, FromWorker, Job, Outcome, Outgoing, ToWorker};

/// What a studio hears from the worker.
pub enum Event {
    /// The answer to the studio's newest job.
    Reply(Box<Reply>),
    /// The CRD across Kubernetes versions (after the reply that did not carry it).
    Versions(crate::versions_line::VersionsLine),
    /// How far the job in flight is (during long analyses).
    Progress {
        /// Object documents analysed.
        done: usize,
        /// Object documents known so far.
        total: usize,
    },
    /// The engine crashed on a job (`Some(seq)` when it is known which); the worker was
    /// restarted.
    Crashed {
        /// The job that crashed the engine, when known.
        seq: Option<u64>,
        /// Whether that job was this studio's.
        own: bool,
        /// The panic message, or the worker's error.
        message: String,
    },
}

type Listener = Rc<dyn Fn(Event)>;

struct Studio {
    channel: Channel<EditorText>,
    listener: Listener,
    /// When the job in flight was posted (`Date.now()`).
    posted_at: f64,
}

/// A newer edit cancels the job in flight when it has run this long (ms): shorter jobs are
/// left to finish, as restarting the worker and compiling the CRD again costs more.
pub const CANCEL_AFTER_MS: f64 = 1000.0;

struct Client {
    worker: Option<Worker>,
    /// The worker could not be started here (a page opened from `file://`, the wasm test
    /// runner): jobs run in the page instead, through the worker's own code.
    in_page: bool,
    studios: HashMap<String, Studio>,
    // Kept alive as long as the worker.
    _on_message: Option<Closure<dyn FnMut(MessageEvent)>>,
    _on_error: Option<Closure<dyn FnMut(web_sys::ErrorEvent)>>,
}

thread_local! {
    static CLIENT: RefCell<Client> = RefCell::new(Client {
        worker: None,
        in_page: false,
        studios: HashMap::new(),
        _on_message: None,
        _on_error: None,
    });
}

/// Where the worker's script and the wasm-bindgen JS glue are, when the page said so
/// ([`configure_assets`]); otherwise they are found from the page itself.
#[derive(Clone)]
struct Assets {
    worker: String,
    js: String,
}

thread_local! {
    /// The version reports of each studio's last reply (replies leave them out when unchanged).
    static RECEIVED: RefCell<crate::reply_delta::ReceivedVersions> = RefCell::default();
}

thread_local! {
    static ASSETS: RefCell<Option<Assets>> = const { RefCell::new(None) };
}

/// Names the engine worker's script (`worker.js`) and this module's wasm-bindgen JS glue, as
/// absolute URLs. The embed script (`crd-studio-embed.js`) calls it before mounting a studio:
/// on a docs page there is no Trunk preload link to read them from, and `worker.js` is
/// beside the script, not beside the page. Without it, `worker.js` is looked up relative to
/// the page and the glue from the `modulepreload` link Trunk writes into `index.html`.
#[wasm_bindgen]
pub fn configure_assets(worker_url: String, js_url: String) {
    ASSETS.with(|a| {
        *a.borrow_mut() = Some(Assets {
            worker: worker_url,
            js: js_url,
        })
    });
}

/// The `href` of the first element matching `selector`.
fn link_href(selector: &str) -> Option<String> {
    let document = gloo::utils::document();
    let element = document.query_selector(selector).ok()??;
    element.get_attribute("href").and_then(|href| {
        let base = document.base_uri().ok()??;
        web_sys::Url::new_with_base(&href, &base)
            .ok()
            .map(|u| u.href())
    })
}

/// The worker script and JS glue: as configured, or read from the page Trunk wrote.
fn assets() -> Result<Assets, JsValue> {
    if let Some(assets) = ASSETS.with(|a| a.borrow().clone()) {
        return Ok(assets);
    }
    let document = gloo::utils::document();
    let base = document.base_uri()?.unwrap_or_default();
    let worker = web_sys::Url::new_with_base("worker.js", &base)?.href();
    let js = link_href("link[rel=modulepreload][href*='crd-studio-web']")
        .ok_or_else(|| JsValue::from_str("the page has no module preload link for its script"))?;
    Ok(Assets { worker, js })
}

/// Starts the worker and sends it the boot message: the JS glue's URL and this module's
/// compiled `WebAssembly.Module` (a module crosses to a dedicated worker without being
/// downloaded or compiled again; the worker only instantiates it). The wasm URL goes along
/// for a glue that cannot say which module it loaded.
fn start_worker() -> Result<Worker, JsValue> {
    let assets = assets()?;
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    options.set_name("crd-studio-engine");
    let worker = Worker::new_with_options(&assets.worker, &options)?;
    let boot = js_sys::Object::new();
    js_sys::Reflect::set(&boot, &"type".into(), &"boot".into())?;
    js_sys::Reflect::set(&boot, &"js".into(), &assets.js.into())?;
    let module = wasm_bindgen::module();
    if module.is_instance_of::<js_sys::WebAssembly::Module>() {
        js_sys::Reflect::set(&boot, &"module".into(), &module)?;
    } else {
        let wasm = link_href("link[rel=preload][href$='.wasm']")
            .ok_or_else(|| JsValue::from_str("the page has no preload link for its wasm"))?;
        js_sys::Reflect::set(&boot, &"wasm".into(), &wasm.into())?;
    }
    worker.post_message(&boot)?;
    Ok(worker)
}

/// Makes sure a worker runs, starting one (with its handlers) if needed.
fn ensure_worker(client: &mut Client) -> Option<Worker> {
    if let Some(w) = &client.worker {
        return Some(w.clone());
    }
    if client.in_page {
        return None;
    }
    let worker = match start_worker() {
        Ok(w) => w,
        Err(e) => {
            gloo::console::warn!(
                "the engine's worker cannot start here; analysing in the page instead",
                e
            );
            client.in_page = true;
            return None;
        }
    };
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| {
        if let Some(text) = e.data().as_string() {
            on_answer(&text);
        } else if let Ok(kind) = js_sys::Reflect::get(&e.data(), &"type".into()) {
            if kind.as_string().as_deref() == Some("bootError") {
                let message = js_sys::Reflect::get(&e.data(), &"message".into())
                    .ok()
                    .and_then(|m| m.as_string())
                    .unwrap_or_default();
                crashed(None, None, format!("the engine could not start: {message}"));
            }
        }
    });
    let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(|e: web_sys::ErrorEvent| {
        e.prevent_default();
        crashed(None, None, e.message());
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    client.worker = Some(worker.clone());
    client._on_message = Some(on_message);
    client._on_error = Some(on_error);
    Some(worker)
}

/// Starts the worker now (at page load), so the first analysis does not wait for it.
pub fn warm_up() {
    CLIENT.with(|c| {
        ensure_worker(&mut c.borrow_mut());
    });
}

/// Runs a job in the page when there is no worker (the same code the worker runs), answering
/// in a later task as the worker would.
fn run_in_page(out: Outgoing<EditorText>) {
    let Outgoing { mut job, crd, .. } = out;
    job.crd = crd.map(|c| c.rust().to_string());
    gloo::timers::callback::Timeout::new(0, move || {
        let answer = crate::worker::run_job(job);
        if let Ok(text) = crate::wire_json::to_string(&answer) {
            on_answer(&text);
        }
    })
    .forget();
}

/// Posts a studio's job to the worker (starting one if needed), or runs it in the page.
fn dispatch(client: &mut Client, out: Outgoing<EditorText>) {
    if let Some(s) = client.studios.get_mut(&out.studio) {
        s.posted_at = js_sys::Date::now();
    }
    match ensure_worker(client) {
        Some(w) => post(&w, out),
        None => run_in_page(out),
    }
}

/// Ends the worker without a word (no crash is reported).
fn end_worker(client: &mut Client) {
    // A new worker has sent nothing yet: its first reply to each studio is whole.
    RECEIVED.with(|r| *r.borrow_mut() = Default::default());
    if let Some(w) = client.worker.take() {
        w.set_onmessage(None);
        w.set_onerror(None);
        w.terminate();
    }
    client._on_message = None;
    client._on_error = None;
}

/// Replaces the worker, cancelling whatever it runs, and posts each studio's newest job to
/// the new one; `stopped` (if any) is the studio whose jobs are dropped instead.
fn restart_worker(client: &mut Client, stopped: Option<&str>) {
    end_worker(client);
    let mut again = Vec::new();
    for (name, s) in client.studios.iter_mut() {
        if stopped == Some(name.as_str()) {
            s.channel.reset();
        } else if let Some(out) = s.channel.restart() {
            again.push(out);
        }
    }
    for out in again {
        dispatch(client, out);
    }
}

fn post(worker: &Worker, out: Outgoing<EditorText>) {
    let Outgoing { job, crd, base } = out;
    let Ok(meta) = crate::wire_json::to_string(&ToWorker::Analyze(Box::new(job))) else {
        return;
    };
    let message = js_sys::Array::new();
    message.push(&JsValue::from_str(&meta));
    let splice = crd
        .as_ref()
        .zip(base.as_ref())
        .and_then(|(crd, base)| CrdText::splice_from(crd, base));
    match (splice, &crd) {
        // A keystroke in a big CRD: only what changed since the worker's text travels
        // (`static/worker.js` hands it to `worker_receive_splice`).
        (Some(s), Some(crd)) => {
            let len = crd.len16();
            let middle = crd.slice(s.keep_start, len.saturating_sub(s.keep_end));
            message.push(&JsValue::NULL);
            let splice = js_sys::Array::of4(
                &s.base_len.into(),
                &s.keep_start.into(),
                &s.keep_end.into(),
                &middle,
            );
            message.push(&splice);
        }
        // The CRD text goes as the editor's own string: never copied into this wasm and back.
        _ => {
            message.push(&crd.map_or(JsValue::NULL, |c| c.js().into()));
        }
    }
    if let Err(e) = worker.post_message(&message) {
        gloo::console::error!("could not post to the engine's worker", e);
    }
}

/// Sends a studio's job with its CRD text; `listener` hears the answers.
pub fn submit(studio: &str, job: Job, crd: EditorText, listener: Listener) {
    CLIENT.with(|c| {
        let mut client = c.borrow_mut();
        let entry = client
            .studios
            .entry(studio.to_owned())
            .or_insert_with(|| Studio {
                channel: Channel::new(studio),
                listener: listener.clone(),
                posted_at: 0.0,
            });
        entry.listener = listener;
        match entry.channel.submit(job, crd) {
            Some(job) => dispatch(&mut client, job),
            None => {
                // A job is in flight: this one waits, unless the one in flight has run long
                // enough to be worth cancelling.
                let long = js_sys::Date::now() - entry.posted_at >= CANCEL_AFTER_MS;
                if long && client.worker.is_some() {
                    restart_worker(&mut client, None);
                }
            }
        }
    });
}

/// Stops the studio's analysis in flight (the Stop control): the worker is replaced, the
/// studio's jobs are dropped (the next edit analyses again), the other studios' jobs go to
/// the new worker.
pub fn stop(studio: &str) {
    CLIENT.with(|c| {
        let mut client = c.borrow_mut();
        if client.worker.is_some() {
            restart_worker(&mut client, Some(studio));
            // Ready for the next edit.
            ensure_worker(&mut client);
        } else if let Some(s) = client.studios.get_mut(studio) {
            s.channel.reset();
        }
    });
}

/// The studio is gone (an embed removed from the page): the worker drops its compiled CRD.
pub fn forget(studio: &str) {
    CLIENT.with(|c| {
        let mut client = c.borrow_mut();
        client.studios.remove(studio);
        RECEIVED.with(|r| r.borrow_mut().forget(studio));
        if let Some(w) = &client.worker {
            if let Ok(meta) = crate::wire_json::to_string(&ToWorker::Forget {
                studio: studio.to_owned(),
            }) {
                let message = js_sys::Array::of2(&JsValue::from_str(&meta), &JsValue::NULL);
                let _ = w.post_message(&message);
            }
        }
    });
}

/// Hears the answer to a completion or hover request.
type AssistDone = Box<dyn FnOnce(AssistAnswer)>;

thread_local! {
    /// The completion and hover requests waiting for their answer, by id.
    static ASSISTS: RefCell<(u64, HashMap<u64, AssistDone>)> = RefCell::new((0, HashMap::new()));
}

/// Asks the worker for completion or hover in an editor of `request.studio` (`text`: the
/// editor's text, sent beside the request unless the worker holds it); `done` hears the
/// answer. It waits behind an analysis in flight, and never cancels one.
pub fn assist(
    mut request: AssistRequest,
    text: Option<EditorText>,
    done: Box<dyn FnOnce(AssistAnswer)>,
) {
    let id = ASSISTS.with(|a| {
        let mut a = a.borrow_mut();
        a.0 += 1;
        let id = a.0;
        // Requests the worker never answered (it was replaced meanwhile) are dropped.
        a.1.retain(|k, _| id.saturating_sub(*k) < 32);
        a.1.insert(id, done);
        id
    });
    request.id = id;
    let (worker, held) = CLIENT.with(|c| {
        let mut client = c.borrow_mut();
        let worker = ensure_worker(&mut client);
        // Completion while typing in a big CRD: the text is most often the one the worker
        // got with the keystroke's analysis (the same JavaScript string: `editor.js` hands
        // it over again), so it is not copied to the worker a second time.
        let held = crate::worker::held_crd_request(&request)
            && client
                .studios
                .get(&request.studio)
                .and_then(|s| s.channel.worker_crd())
                .zip(text.as_ref())
                .is_some_and(|(crd, text)| crd.same_source(text));
        (worker, held)
    });
    match worker {
        Some(w) => {
            let Ok(meta) = crate::wire_json::to_string(&ToWorker::Assist(Box::new(request))) else {
                return;
            };
            let text = match text {
                Some(text) if !held => text.js().into(),
                _ => JsValue::NULL,
            };
            let message = js_sys::Array::of2(&JsValue::from_str(&meta), &text);
            if let Err(e) = w.post_message(&message) {
                gloo::console::error!("could not post to the engine's worker", e);
            }
        }
        None => {
            request.text = text.map(|t| t.rust().to_string()).unwrap_or_default();
            gloo::timers::callback::Timeout::new(0, move || {
                let answer = crate::worker::run_assist(&request);
                if let Ok(text) = crate::wire_json::to_string(&answer) {
                    on_answer(&text);
                }
            })
            .forget();
        }
    }
}

fn on_answer(text: &str) {
    let Ok(answer) = crate::wire_json::from_str::<FromWorker>(text) else {
        gloo::console::error!("unreadable answer from the engine's worker");
        return;
    };
    let FromWorker {
        studio,
        seq,
        outcome,
    } = answer;
    // Every reply read (shown or not) keeps the version reports the worker compares with.
    let outcome = RECEIVED.with(|r| r.borrow_mut().fill(&studio, outcome));
    let reply = match outcome {
        Outcome::Reply(reply) | Outcome::ReplySameVersions(reply) => reply,
        Outcome::Assist(answer) => {
            if let Some(done) = ASSISTS.with(|a| a.borrow_mut().1.remove(&seq)) {
                done(*answer);
            }
            return;
        }
        Outcome::Panic { message } => {
            crashed(Some(&studio), Some(seq), message);
            return;
        }
        Outcome::Versions(line) => {
            // Only for the newest request: an older one's CRD may be gone.
            let listener = CLIENT.with(|c| {
                let client = c.borrow();
                let entry = client.studios.get(&studio)?;
                (entry.channel.last_seq() == seq).then(|| entry.listener.clone())
            });
            if let Some(listener) = listener {
                listener(Event::Versions(line));
            }
            return;
        }
        Outcome::ResendCrd => {
            CLIENT.with(|c| {
                let mut client = c.borrow_mut();
                let again = client
                    .studios
                    .get_mut(&studio)
                    .filter(|entry| entry.channel.in_flight() == Some(seq))
                    .and_then(|entry| entry.channel.restart());
                if let Some(job) = again {
                    dispatch(&mut client, job);
                }
            });
            return;
        }
        Outcome::Progress { done, total } => {
            let listener = CLIENT.with(|c| {
                let client = c.borrow();
                let entry = client.studios.get(&studio)?;
                (entry.channel.in_flight() == Some(seq)).then(|| entry.listener.clone())
            });
            if let Some(listener) = listener {
                listener(Event::Progress { done, total });
            }
            return;
        }
    };
    let delivery = CLIENT.with(|c| {
        let mut client = c.borrow_mut();
        let entry = client.studios.get_mut(&studio)?;
        let delivery = entry.channel.on_reply(seq);
        let listener = entry.listener.clone();
        if let Some(job) = delivery.post {
            dispatch(&mut client, job);
        }
        Some((delivery.show, listener))
    });
    if let Some((true, listener)) = delivery {
        listener(Event::Reply(reply));
    }
}

/// The worker crashed: replace it, reset every channel, tell every studio.
fn crashed(studio: Option<&str>, seq: Option<u64>, message: String) {
    let listeners: Vec<(String, Listener)> = CLIENT.with(|c| {
        let mut client = c.borrow_mut();
        end_worker(&mut client);
        for s in client.studios.values_mut() {
            s.channel.reset();
        }
        client
            .studios
            .iter()
            .map(|(name, s)| (name.clone(), s.listener.clone()))
            .collect()
    });
    // The next job starts a fresh worker (not now: a worker that cannot even start would
    // otherwise be restarted in a loop).
    for (name, listener) in listeners {
        listener(Event::Crashed {
            seq,
            own: studio.is_none_or(|s| s == name),
            message: message.clone(),
        });
    }
}
