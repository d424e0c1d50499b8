//! The Web Worker's side: the functions `static/worker.js` calls after loading this same wasm
//! module in a dedicated worker.
//!
//! `worker.js` hands each message to [`worker_receive`] (which queues it in an
//! [`Inbox`], coalescing a studio's older job away) and calls [`worker_step`] at once when
//! idle, posting each answer back to the page. After each job it waits one task before
//! choosing the next, so messages that arrived during a long analysis reach the inbox first
//! and only the newest job of each studio runs.
//!
//! A panic (an engine bug) is reported to the page by the panic hook, naming the studio and
//! job, before the module traps; the page then restarts the worker.

use std::cell::{Cell, RefCell};

use crd_studio_engine::Request;
use wasm_bindgen::prelude::*;

use crate::versions_line::Spans;
use crate::worker_boundary::Engine;
use crate::worker_protocol::{FromWorker, Inbox, Job, Outcome, ToWorker};

thread_local! {
    static INBOX: RefCell<Inbox> = RefCell::new(Inbox::default());
    static ENGINE: RefCell<Engine> = RefCell::new(Engine::default());
    /// Each studio's CRD across Kubernetes versions, one version per idle step.
    static SPANS: RefCell<Spans> = RefCell::new(Spans::default());
    /// Each studio's CRD text as last received (jobs carry it only when it changed).
    static CRDS: RefCell<std::collections::HashMap<String, String>> = RefCell::default();
    /// The job running now, for the panic hook.
    static RUNNING: Cell<Option<u64>> = const { Cell::new(None) };
    static RUNNING_STUDIO: RefCell<String> = const { RefCell::new(String::new()) };
    /// Jobs whose analysis needed CEL's time-zone database, run again once it is loaded.
    static WAITING_FOR_ZONES: RefCell<Vec<Job>> = const { RefCell::new(Vec::new()) };
    /// Whether `worker.js` was asked for the database (asked once; a failed load then
    /// lets the answers through with the "unknown time zone" errors).
    static ZONES_ASKED: Cell<bool> = const { Cell::new(false) };
    /// The version reports last sent to each studio (a reply leaves them out when the same).
    static SENT: RefCell<crate::reply_delta::SentVersions> = RefCell::default();
}

/// What [`worker_step`] returns when a job waits for CEL's time-zone database: `worker.js`
/// then fetches `tzdb.bin` and hands it to [`worker_time_zones`].
pub const NEED_TIME_ZONES: &str = "needTimeZones";

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = self, js_name = postMessage)]
    fn post_message(message: &str);
}

/// Starts the worker side: installs the panic hook.
#[wasm_bindgen]
pub fn worker_start() {
    std::panic::set_hook(Box::new(|info| {
        let seq = RUNNING.with(|r| r.get()).unwrap_or(0);
        let studio = RUNNING_STUDIO
            .with(|s| s.try_borrow().map(|s| s.clone()))
            .unwrap_or_default();
        let message = FromWorker {
            studio,
            seq,
            outcome: Outcome::Panic {
                message: info.to_string(),
            },
        };
        if let Ok(text) = crate::wire_json::to_string(&message) {
            post_message(&text);
        }
    }));
}

/// Queues a message from the page: `meta` is a [`ToWorker`] (`crate::wire_json` text) without
/// the CRD text, `crd` the CRD text when the job carries one.
#[wasm_bindgen]
pub fn worker_receive(meta: &str, crd: Option<String>) {
    let Ok(mut message) = crate::wire_json::from_str::<ToWorker>(meta) else {
        return;
    };
    match &mut message {
        ToWorker::Analyze(job) => job.crd = crd,
        ToWorker::Assist(request) => {
            request.text = match crd {
                Some(text) => text,
                // Completion or hover in the CRD editor without a text: the page saw that its
                // text is the one it last sent with an analysis (`worker_client::assist`),
                // i.e. the one the studio's queued analysis carries, or else the one held.
                None if held_crd_request(request) => INBOX
                    .with(|i| i.borrow().queued_crd(&request.studio).map(str::to_owned))
                    .or_else(|| CRDS.with(|c| c.borrow().get(&request.studio).cloned()))
                    .unwrap_or_default(),
                None => String::new(),
            }
        }
        ToWorker::Forget { .. } => {}
    }
    INBOX.with(|i| i.borrow_mut().push(message));
}

/// Queues an analysis whose CRD text comes as a splice of the one the worker holds for the
/// studio (`crate::worker_protocol::Splice`): the held text with its middle replaced by
/// `middle`. When the worker holds another text, the page is asked for the whole one.
#[wasm_bindgen]
pub fn worker_receive_splice(
    meta: &str,
    base_len: u32,
    keep_start: u32,
    keep_end: u32,
    middle: &str,
) {
    let Ok(ToWorker::Analyze(mut job)) = crate::wire_json::from_str::<ToWorker>(meta) else {
        return;
    };
    let splice = crate::worker_protocol::Splice {
        base_len,
        keep_start,
        keep_end,
    };
    let studio = job.studio.clone();
    let text = INBOX
        .with(|i| {
            i.borrow()
                .queued_crd(&studio)
                .map(|base| splice.apply(base, middle))
        })
        .or_else(|| {
            CRDS.with(|c| {
                c.borrow()
                    .get(&studio)
                    .map(|base| splice.apply(base, middle))
            })
        })
        .flatten();
    match text {
        Some(text) => {
            job.crd = Some(text);
            INBOX.with(|i| i.borrow_mut().push(ToWorker::Analyze(job)));
        }
        None => {
            let message = FromWorker {
                studio,
                seq: job.seq,
                outcome: Outcome::ResendCrd,
            };
            if let Ok(text) = crate::wire_json::to_string(&message) {
                post_message(&text);
            }
        }
    }
}

/// Whether an assist request without a text stands for the CRD text the worker holds: a
/// completion or hover in the CRD editor (`worker_client::assist` sends no other without one
/// but the Tests tab's, which are not in an editor).
pub(crate) fn held_crd_request(request: &crate::assist::AssistRequest) -> bool {
    use crate::assist::AssistKind;
    request.editor == crd_studio_engine::Editor::Crd
        && matches!(request.kind, AssistKind::Complete | AssistKind::Hover)
}

/// Whether messages wait, a replaced compile to drop, or a CRD's span across Kubernetes
/// versions.
#[wasm_bindgen]
pub fn worker_pending() -> bool {
    INBOX.with(|i| !i.borrow().is_empty())
        || ENGINE.with(|e| e.borrow().has_retired())
        || SPANS.with(|s| s.borrow().pending())
}

/// Handles the next queued message; the answer to post (a [`FromWorker`] as
/// `crate::wire_json` text), if any.
#[wasm_bindgen]
pub fn worker_step() -> Option<String> {
    let Some(message) = INBOX.with(|i| i.borrow_mut().pop()) else {
        // Idle: first the compile the last edit replaced is dropped (its answer is posted),
        // then one version of a CRD's span (each message waiting goes first).
        if ENGINE.with(|e| e.borrow().has_retired()) {
            ENGINE.with(|e| e.borrow_mut().drop_retired());
            return None;
        }
        let (studio, seq, line) =
            ENGINE.with(|e| SPANS.with(|s| s.borrow_mut().step(&e.borrow())))?;
        let message = FromWorker {
            studio,
            seq,
            outcome: Outcome::Versions(line),
        };
        return crate::wire_json::to_string(&message).ok();
    };
    match message {
        ToWorker::Forget { studio } => {
            SPANS.with(|s| s.borrow_mut().forget(&studio));
            ENGINE.with(|e| e.borrow_mut().forget(&studio));
            CRDS.with(|c| c.borrow_mut().remove(&studio));
            SENT.with(|s| s.borrow_mut().forget(&studio));
            None
        }
        ToWorker::Assist(request) => crate::wire_json::to_string(&run_assist(&request)).ok(),
        ToWorker::Analyze(mut job) => {
            // The job as it would run again (the CRD text stays in CRDS).
            let crd = job.crd.take();
            let again = (*job).clone();
            job.crd = crd;
            let answer = run(*job, true);
            RUNNING.with(|r| r.set(None));
            let needs_zones = matches!(&answer.outcome,
                Outcome::Reply(r) if r.analysis.needs_time_zones)
                && !ENGINE.with(|e| e.borrow().has_time_zones());
            if needs_zones && !ZONES_ASKED.with(|a| a.get()) {
                WAITING_FOR_ZONES.with(|w| w.borrow_mut().push(again));
                ZONES_ASKED.with(|a| a.set(true));
                return Some(NEED_TIME_ZONES.to_owned());
            }
            if needs_zones && WAITING_FOR_ZONES.with(|w| !w.borrow().is_empty()) {
                // The database is on its way: this job runs again when it arrives.
                WAITING_FOR_ZONES.with(|w| w.borrow_mut().push(again));
                return None;
            }
            let FromWorker {
                studio,
                seq,
                outcome,
            } = answer;
            let outcome = SENT.with(|s| s.borrow_mut().thin(&studio, outcome));
            crate::wire_json::to_string(&FromWorker {
                studio,
                seq,
                outcome,
            })
            .ok()
        }
    }
}

/// CEL's time-zone database arrived (`None`: it could not be loaded): the jobs that waited
/// for it are queued again.
#[wasm_bindgen]
pub fn worker_time_zones(bundle: Option<Vec<u8>>) {
    let db = bundle.and_then(|b| crd_studio_engine::TimeZoneDb::from_bundle(&b).ok());
    if let Some(db) = db {
        ENGINE.with(|e| e.borrow_mut().set_time_zones(std::sync::Arc::new(db)));
    }
    let waiting = WAITING_FOR_ZONES.with(|w| std::mem::take(&mut *w.borrow_mut()));
    INBOX.with(|i| {
        let mut inbox = i.borrow_mut();
        // Older than anything queued since: a newer job of the same studio replaces it.
        for job in waiting {
            inbox.push_front_unless_newer(job);
        }
    });
}

/// Runs one job in the page (only when no worker can start there): no progress messages.
pub(crate) fn run_job(job: Job) -> FromWorker {
    let answer = run(job, false);
    RUNNING.with(|r| r.set(None));
    ENGINE.with(|e| e.borrow_mut().drop_retired());
    answer
}

/// Answers a completion or hover request (in the worker, or in the page without one).
pub(crate) fn run_assist(request: &crate::assist::AssistRequest) -> FromWorker {
    let answer = ENGINE.with(|e| e.borrow().assist(request));
    FromWorker {
        studio: request.studio.clone(),
        seq: request.id,
        outcome: Outcome::Assist(Box::new(answer)),
    }
}

/// A long analysis tells the page how far it is: first after this long, then at most this
/// often (the page shows it, and offers Stop after 2 s).
const PROGRESS_EVERY_MS: f64 = 250.0;

fn run(job: Job, tell_progress: bool) -> FromWorker {
    let Job {
        studio,
        seq,
        crd,
        objects,
        old_object,
        old_crd,
        options,
        query,
        tests,
    } = job;
    RUNNING.with(|r| r.set(Some(seq)));
    RUNNING_STUDIO.with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            s.clone_from(&studio);
        }
    });
    // The studio's CRD text is moved out of CRDS for the analysis and back after it: no
    // copy, and no comparison when the job carried none (the text is the previous one).
    let crd_unchanged = crd.is_none();
    let crd = match crd {
        Some(text) => text,
        None => CRDS.with(|c| c.borrow_mut().remove(&studio).unwrap_or_default()),
    };
    #[cfg(feature = "test-hooks")]
    if crd.contains("crd-studio-test: panic") {
        panic!("deliberate panic (test-hooks build): the CRD text asks for one");
    }
    let request = Request {
        crd,
        objects,
        old_object,
        old_crd,
        options,
    };
    let mut next_report = js_sys::Date::now() + PROGRESS_EVERY_MS;
    let mut progress = |p: crd_studio_engine::Progress| {
        if !tell_progress || js_sys::Date::now() < next_report {
            return;
        }
        next_report = js_sys::Date::now() + PROGRESS_EVERY_MS;
        let message = FromWorker {
            studio: studio.clone(),
            seq,
            outcome: Outcome::Progress {
                done: p.done,
                total: p.total,
            },
        };
        if let Ok(text) = crate::wire_json::to_string(&message) {
            post_message(&text);
        }
    };
    let mut reply = ENGINE.with(|e| {
        let mut engine = e.borrow_mut();
        let mut reply =
            engine.answer_known(&studio, &request, &query, crd_unchanged, &mut progress);
        reply.tests = engine.run_tests(&studio, &tests);
        reply
    });
    // The span across versions when known for this CRD; else it follows (`worker_step`).
    if tell_progress {
        reply.versions = ENGINE.with(|e| {
            let e = e.borrow();
            let compiled = e.compiled_crd(&studio)?;
            SPANS.with(|s| {
                s.borrow_mut()
                    .after_job(&studio, seq, !crd_unchanged, &request.options, compiled)
            })
        });
    }
    CRDS.with(|c| c.borrow_mut().insert(studio.clone(), request.crd));
    FromWorker {
        studio,
        seq,
        outcome: Outcome::Reply(Box::new(reply)),
    }
}
