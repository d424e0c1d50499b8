//! The [`Analyser`]: posts a studio's analysis jobs to the worker and shows their answers,
//! with the clocks around them ("Analysing…" after a moment, the seconds a long one has run,
//! Stop), and remembers the texts the engine crashed on.

use std::cell::RefCell;
use std::rc::Rc;

use crd_studio_engine::Options;
use gloo::storage::{LocalStorage, Storage};
use gloo::timers::callback::{Interval, Timeout};
use yew::prelude::*;

use crate::shown::Shown;
use crate::storage::{fingerprint, save, CRASHED_ON_KEY};
use crate::studio_live::{old_object_of, Live};
use crate::versions_line::VersionsLine;
use crate::worker_boundary::PreviewQuery;
use crate::worker_client::{self, Event as WorkerEvent};
use crate::worker_protocol::Job;

thread_local! {
    /// Whether the remembered crash was deleted from storage since the last one was saved.
    static CRASH_FORGOTTEN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// How long an analysis may run before the status line says the engine is working.
const SLOW_MS: u32 = 100;
/// After this many seconds a running analysis offers Stop.
pub(crate) const STOP_AFTER_S: u32 = 2;

/// The browser's clock, RFC 3339 to the second (for the table's ages).
fn browser_now() -> String {
    let iso = String::from(js_sys::Date::new_0().to_iso_string());
    match iso.get(..19) {
        Some(seconds) => format!("{seconds}Z"),
        None => String::new(),
    }
}

/// Test builds (`--features test-hooks`) tell the end-to-end tests, at once, whether the
/// studio's newest edit is still unanswered (`globalThis.__crdStudioUnanswered[studio]`): the
/// status line says "Analysing…" only after SLOW_MS, and a slow test machine could read the
/// previous verdict in between.
#[cfg(feature = "test-hooks")]
fn signal_unanswered(studio: &str, unanswered: bool) {
    let global = js_sys::global();
    let key = wasm_bindgen::JsValue::from_str("__crdStudioUnanswered");
    let map = match js_sys::Reflect::get(&global, &key) {
        Ok(map) if map.is_object() => map,
        _ => {
            let map: wasm_bindgen::JsValue = js_sys::Object::new().into();
            let _ = js_sys::Reflect::set(&global, &key, &map);
            map
        }
    };
    let _ = js_sys::Reflect::set(
        &map,
        &wasm_bindgen::JsValue::from_str(studio),
        &unanswered.into(),
    );
}

#[cfg(not(feature = "test-hooks"))]
fn signal_unanswered(_: &str, _: bool) {}

/// Posts analysis jobs to the worker and shows their answers. Its channel keeps one job in
/// flight and lets only the newest waiting one run next; only the newest job's answer is
/// shown, with the texts of that job.
#[derive(Clone)]
pub(crate) struct Analyser {
    /// The studio's name in the worker protocol.
    pub(crate) studio: AttrValue,
    pub(crate) shown: UseStateHandle<Option<Rc<Shown>>>,
    /// Numbers the analyses shown (Shown::seq).
    pub(crate) shown_seq: Rc<RefCell<u64>>,
    /// Whether the newest analysis has run for more than SLOW_MS.
    pub(crate) working: UseStateHandle<bool>,
    /// The engine's crash message, until the next answer.
    pub(crate) crash: UseStateHandle<Option<String>>,
    pub(crate) slow_timer: Rc<RefCell<Option<Timeout>>>,
    /// How long (whole seconds) the analyses not answered yet have been running; ticks
    /// while one runs.
    pub(crate) elapsed: UseStateHandle<u32>,
    /// When the oldest unanswered analysis was asked for, and the ticker that updates
    /// `elapsed`.
    pub(crate) ticker: Rc<RefCell<Option<(f64, Interval)>>>,
    /// How far the analysis in flight is (object documents done, known), during long ones.
    pub(crate) progress: UseStateHandle<Option<(usize, usize)>>,
    /// The user stopped the analysis after this many seconds; the results shown are from
    /// earlier texts. Cleared by the next analysis.
    pub(crate) stopped: UseStateHandle<Option<u32>>,
    /// The CRD across Kubernetes versions, for the shown CRD (`None`: not known yet).
    pub(crate) versions: UseStateHandle<Option<VersionsLine>>,
    /// Whether a crash is remembered for the next load (the page's studio; embeds never
    /// touch the storage).
    pub(crate) remember_crash: bool,
    /// Whether the texts wait for the user's go: the engine crashed on them last time.
    pub(crate) paused: UseStateHandle<bool>,
}

impl Analyser {
    /// The analysis is answered, crashed or stopped: the clocks stop.
    pub(crate) fn settled(&self) {
        signal_unanswered(&self.studio, false);
        self.slow_timer.borrow_mut().take();
        self.ticker.borrow_mut().take();
        self.working.set(false);
        self.elapsed.set(0);
        self.progress.set(None);
    }

    /// Stops the analysis in flight (the Stop control): the worker is restarted, the texts
    /// and the results shown stay.
    pub(crate) fn stop(&self) {
        worker_client::stop(&self.studio);
        let after = *self.elapsed;
        self.settled();
        self.stopped.set(Some(after));
    }

    /// Analyses the texts and settings as they are now.
    pub(crate) fn run(&self, live: &Live) {
        signal_unanswered(&self.studio, true);
        self.stopped.set(None);
        let texts = &live.texts;
        // The CRD text goes separately: the channel sends it only when the worker does not
        // hold it yet.
        let job = Job {
            objects: vec![texts.object.rust().to_string()],
            old_object: old_object_of(&texts.old_object),
            old_crd: old_object_of(&texts.old_crd),
            options: {
                Options {
                    field_validation: live.mode,
                    kubernetes_version: live.kubernetes_version,
                    ..Options::default()
                }
            },
            query: PreviewQuery {
                now: browser_now(),
                ..live.query.clone()
            },
            tests: live.tests.clone(),
            ..Job::default()
        };
        let crd_text = texts.crd.clone();
        let analysed_crd = texts.crd.clone();
        let analysed_object = texts.object.clone();
        let analysed_old = texts.old_object.clone();
        // After 100 ms without an answer the status says the engine is working and the
        // results are dimmed (never emptied).
        if self.slow_timer.borrow().is_none() {
            let working = self.working.clone();
            *self.slow_timer.borrow_mut() = Some(Timeout::new(SLOW_MS, move || working.set(true)));
        }
        // The seconds since the oldest unanswered edit, shown beside "Analysing…" (with
        // Stop after STOP_AFTER_S).
        if self.ticker.borrow().is_none() {
            let started = js_sys::Date::now();
            let elapsed = self.elapsed.clone();
            let tick = Interval::new(1000, move || {
                elapsed.set(((js_sys::Date::now() - started) / 1000.0) as u32);
            });
            *self.ticker.borrow_mut() = Some((started, tick));
        }
        let me = self.clone();
        let listener: Rc<dyn Fn(WorkerEvent)> = Rc::new(move |event: WorkerEvent| {
            if let WorkerEvent::Progress { done, total } = event {
                me.progress.set(Some((done, total)));
                return;
            }
            if let WorkerEvent::Versions(line) = event {
                me.versions.set(Some(line));
                return;
            }
            me.settled();
            match event {
                WorkerEvent::Progress { .. } | WorkerEvent::Versions(_) => {}
                WorkerEvent::Reply(reply) => {
                    me.versions.set(reply.versions.clone());
                    let seq = {
                        let mut n = me.shown_seq.borrow_mut();
                        *n += 1;
                        *n
                    };
                    let crd = analysed_crd.clone();
                    me.shown.set(Some(Rc::new(Shown::of(seq, *reply, crd))));
                    me.crash.set(None);
                    me.paused.set(false);
                    // Once per page load, and after each crash remembered: a storage call
                    // on every answer costs the keystroke's frame most of a millisecond.
                    if me.remember_crash && !CRASH_FORGOTTEN.with(|f| f.replace(true)) {
                        LocalStorage::delete(CRASHED_ON_KEY);
                    }
                }
                WorkerEvent::Crashed { own, message, .. } => {
                    let what = if own {
                        let (crd, object) = (analysed_crd.rust(), analysed_object.rust());
                        format!(
                            "while analysing the CRD text ({} lines) and the Object text ({} \
                             lines) as they were at your last edit",
                            crd.lines().count(),
                            object.lines().count()
                        )
                    } else {
                        "while analysing another studio on this page".to_owned()
                    };
                    me.crash.set(Some(format!(
                        "The engine crashed {what}: {message}. It has been restarted and your \
                         texts are kept; edit a text to analyse again."
                    )));
                    // A reload must not run the same texts into the same crash.
                    if own && me.remember_crash {
                        let texts = [&analysed_crd, &analysed_object, &analysed_old];
                        save(CRASHED_ON_KEY, &fingerprint(texts.map(|t| t.rust())));
                        CRASH_FORGOTTEN.with(|f| f.set(false));
                    }
                }
            }
        });
        worker_client::submit(&self.studio, job, crd_text, listener);
    }
}
