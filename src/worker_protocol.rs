//! The messages between the page and the engine's Web Worker, and the two small state
//! machines that decide what crosses: [`Channel`] on the page (one per studio) and [`Inbox`]
//! in the worker (one per worker).
//!
//! One worker serves every studio of a page (the main studio, or several embedded
//! playgrounds): each message names its studio, and the worker keeps one compiled CRD per
//! studio ([`crate::worker_boundary::Engine`]).
//!
//! - The page numbers each studio's requests (`seq`) and keeps at most one in flight per
//!   studio; an edit made while one is running waits as the studio's *pending* job, and a
//!   newer edit replaces it (coalescing: only the newest runs). A reply whose `seq` is not the
//!   newest request's is dropped ([`Channel::on_reply`]).
//! - The CRD text is sent only when it differs from the one the worker holds for that studio
//!   (`crd: None` means "the same as before"); a restarted worker holds nothing, so
//!   [`Channel::reset`] makes the next job carry it again.
//! - The worker queues what arrives while it analyses and runs only the newest job of each
//!   studio ([`Inbox`]), carrying a dropped job's CRD text into the job that replaces it.
//!
//! - A job without a CRD text uses the worker's copy, neither copied nor compared
//!   (`Engine::answer_known`). Messages are a string (`crate::wire_json`: JSON with structs
//!   as arrays) plus the CRD text as a separate string (no escaping of megabytes); replies
//!   are `wire_json` strings.
//!
//! Everything here is plain data and pure logic, tested natively.

use std::collections::VecDeque;
use std::rc::Rc;

use crd_studio_engine::Options;
use serde::{Deserialize, Serialize};

use crate::worker_boundary::{PreviewQuery, Reply};

/// One analysis a studio asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    /// The studio that asks (any string unique on the page).
    pub studio: String,
    /// The studio's request number, increasing.
    pub seq: u64,
    /// The CRD text; `None`: the text this studio's previous job carried.
    pub crd: Option<String>,
    /// The object texts.
    pub objects: Vec<String>,
    /// The old object (update path), if any.
    pub old_object: Option<String>,
    /// The previous revision of the CRD (the CRD's update path, the Changes tab), if any.
    #[serde(default)]
    pub old_crd: Option<String>,
    /// The analysis options.
    pub options: Options,
    /// What the kubectl get and Conversion tabs ask.
    pub query: PreviewQuery,
    /// The Tests tab's cases, run after the analysis (none: nothing is run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<crd_studio_engine::CaseTexts>,
}

/// A message to the worker.
///
/// Enums here are externally tagged (`{"analyze": {…}}`): an internally tagged enum makes
/// serde buffer the whole message and deserialize every type inside it a second way, which
/// cost about 90 KB of wasm for the reply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToWorker {
    /// Analyse.
    Analyze(Box<Job>),
    /// Completion or hover in an editor (answered with [`Outcome::Assist`], its `seq` the
    /// request's `id`; never coalesced, never cancels an analysis).
    Assist(Box<crate::assist::AssistRequest>),
    /// The studio is gone: drop its compiled CRD.
    Forget {
        /// The studio.
        studio: String,
    },
}

/// What the worker answers to a job (externally tagged, as [`ToWorker`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    /// The analysis.
    Reply(Box<Reply>),
    /// The analysis, without its version reports: the same as the ones last sent to the
    /// studio (`crate::reply_delta`; the page puts them back).
    ReplySameVersions(Box<Reply>),
    /// The engine panicked on this job (a bug): the worker must be restarted.
    Panic {
        /// The panic message and place.
        message: String,
    },
    /// The answer to an [`ToWorker::Assist`] request.
    Assist(Box<crate::assist::AssistAnswer>),
    /// The CRD across Kubernetes versions, computed after the reply to the job (`seq`: the
    /// studio's newest answered job) that did not carry it.
    Versions(crate::versions_line::VersionsLine),
    /// The job's CRD text came as a [`Splice`] of a text this worker does not hold (a bug
    /// guarded against): the page sends the job again with the whole text.
    ResendCrd,
    /// Not an answer yet: how far the job is (sent during long analyses).
    Progress {
        /// Object documents analysed.
        done: usize,
        /// Object documents known so far.
        total: usize,
    },
}

/// A message from the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FromWorker {
    /// The studio the answer is for.
    pub studio: String,
    /// The job it answers.
    pub seq: u64,
    /// The answer.
    pub outcome: Outcome,
}

/// A CRD text as the page holds it. The page keeps the CRD editor's own JavaScript string
/// (a keystroke in a 2.8 MB CRD then never copies it into wasm and back); tests use
/// `Rc<str>`.
pub trait CrdText: Clone {
    /// Whether two texts are equal. Implementations look at identity first: the same
    /// allocation is recognised without comparing megabytes.
    fn same(&self, other: &Self) -> bool;

    /// How this text differs from `base`, an earlier text of the same editor, when that is
    /// known without comparing them: the worker then gets only the changed middle.
    fn splice_from(&self, _base: &Self) -> Option<Splice> {
        None
    }
}

/// A text as an earlier one (the worker's) with its middle replaced: the first `keep_start`
/// and the last `keep_end` UTF-16 code units of the earlier text, `base_len` units long, stay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Splice {
    /// The earlier text's length in UTF-16 code units (the worker checks it holds that one).
    pub base_len: u32,
    /// The UTF-16 code units kept at the start.
    pub keep_start: u32,
    /// The UTF-16 code units kept at the end.
    pub keep_end: u32,
}

impl Splice {
    /// `base` with its middle replaced by `middle`, or `None` when `base` is not `base_len`
    /// UTF-16 code units long or a kept part would end inside a character.
    pub fn apply(&self, base: &str, middle: &str) -> Option<String> {
        let (start, end) = if base.is_ascii() {
            if base.len() != self.base_len as usize {
                return None;
            }
            let end = base.len().checked_sub(self.keep_end as usize)?;
            (self.keep_start as usize, end)
        } else {
            // Byte scans, not `char_indices`: a big CRD with one non-ASCII character is
            // spliced on every keystroke (decoding 2.8 MB character by character took tens
            // of milliseconds in the worker).
            let total = utf16_len(base);
            if total != self.base_len as usize {
                return None;
            }
            let end_units = total.checked_sub(self.keep_end as usize)?;
            let keep_start = self.keep_start as usize;
            if keep_start > end_units {
                return None;
            }
            let start = byte_at(base, 0, 0, keep_start)?;
            // From the start: only the replaced part is scanned again.
            (start, byte_at(base, start, keep_start, end_units)?)
        };
        if start > end {
            return None;
        }
        let mut out = String::with_capacity(start + middle.len() + (base.len() - end));
        out.push_str(base.get(..start)?);
        out.push_str(middle);
        out.push_str(base.get(end..)?);
        Some(out)
    }
}

/// UTF-16 code units of one UTF-8 byte: 1 for a character's first byte (2 when it starts a
/// four-byte character: a surrogate pair), 0 for a continuation byte.
fn units_of(b: u8) -> usize {
    usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0)
}

/// `text`'s length in UTF-16 code units.
fn utf16_len(text: &str) -> usize {
    text.bytes().map(units_of).sum()
}

/// The byte offset in `text` of UTF-16 offset `units`, if that falls between characters,
/// scanning from byte `from` (a character boundary at UTF-16 offset `from_units`).
fn byte_at(text: &str, from: usize, from_units: usize, units: usize) -> Option<usize> {
    let mut seen = from_units;
    for (at, &b) in text.as_bytes().get(from..)?.iter().enumerate() {
        if b & 0xC0 == 0x80 {
            continue;
        }
        if seen == units {
            return Some(from + at);
        }
        if seen > units {
            return None;
        }
        seen += units_of(b);
    }
    (seen == units).then_some(text.len())
}

impl CrdText for Rc<str> {
    fn same(&self, other: &Rc<str>) -> bool {
        Rc::ptr_eq(self, other) || **self == **other
    }
}

/// A job to post, and the CRD text to send beside it when the worker does not hold it yet
/// (the job's own `crd` stays `None`: the text travels as a separate string).
#[derive(Clone, Debug, PartialEq)]
pub struct Outgoing<C> {
    /// The job.
    pub job: Job,
    /// The CRD text to send with it, if the worker does not hold it.
    pub crd: Option<C>,
    /// The text the worker holds for the studio when `crd` is sent (an earlier one): the
    /// page may send `crd` as a [`Splice`] of it.
    pub base: Option<C>,
}

impl<C> std::ops::Deref for Outgoing<C> {
    type Target = Job;

    fn deref(&self) -> &Job {
        &self.job
    }
}

/// The page's side of one studio's conversation with the worker.
#[derive(Clone, Debug)]
pub struct Channel<C = Rc<str>> {
    studio: String,
    last_seq: u64,
    in_flight: Option<u64>,
    /// The job in flight with its CRD text, to post again when the worker is restarted under
    /// it ([`Channel::restart`]).
    in_flight_job: Option<(Job, C)>,
    pending: Option<(Job, C)>,
    /// The CRD text the worker holds for this studio (what the last posted job left there).
    worker_crd: Option<C>,
    /// Jobs replaced before they were posted.
    coalesced: u64,
}

/// What the page does with a reply ([`Channel::on_reply`]).
#[derive(Debug, PartialEq)]
pub struct Delivery<C = Rc<str>> {
    /// Show the reply: it answers the newest request.
    pub show: bool,
    /// Post this job now (the pending one).
    pub post: Option<Outgoing<C>>,
}

impl<C: CrdText> Channel<C> {
    /// A channel for `studio`.
    pub fn new(studio: impl Into<String>) -> Channel<C> {
        Channel {
            studio: studio.into(),
            last_seq: 0,
            in_flight: None,
            in_flight_job: None,
            pending: None,
            worker_crd: None,
            coalesced: 0,
        }
    }

    /// The studio's name.
    pub fn studio(&self) -> &str {
        &self.studio
    }

    /// A new request with its CRD text: the job to post now, or `None` when one is in flight
    /// (this one then waits, replacing any older waiting one). The posted job carries the CRD
    /// text only when the worker does not already hold it.
    pub fn submit(&mut self, mut job: Job, crd: C) -> Option<Outgoing<C>> {
        self.last_seq += 1;
        job.seq = self.last_seq;
        job.studio = self.studio.clone();
        if self.in_flight.is_some() {
            if self.pending.replace((job, crd)).is_some() {
                self.coalesced += 1;
            }
            return None;
        }
        Some(self.post(job, crd))
    }

    fn post(&mut self, mut job: Job, crd: C) -> Outgoing<C> {
        self.in_flight = Some(job.seq);
        job.crd = None;
        self.in_flight_job = Some((job.clone(), crd.clone()));
        let held = self.worker_crd.as_ref().is_some_and(|w| w.same(&crd));
        let send = (!held).then(|| crd.clone());
        let base = if held {
            None
        } else {
            self.worker_crd.replace(crd)
        };
        Outgoing {
            job,
            crd: send,
            base,
        }
    }

    /// A reply to job `seq` arrived.
    pub fn on_reply(&mut self, seq: u64) -> Delivery<C> {
        if self.in_flight == Some(seq) {
            self.in_flight = None;
            self.in_flight_job = None;
        }
        let show = seq == self.last_seq;
        let post = match (self.in_flight, self.pending.take()) {
            (None, Some((job, crd))) => Some(self.post(job, crd)),
            (_, pending) => {
                self.pending = pending;
                None
            }
        };
        Delivery { show, post }
    }

    /// Whether a job is in flight.
    pub fn busy(&self) -> bool {
        self.in_flight.is_some()
    }

    /// The job in flight, if any.
    pub fn in_flight(&self) -> Option<u64> {
        self.in_flight
    }

    /// The worker was restarted under this studio's jobs (to cancel a long analysis, of this
    /// studio or another): the job to post to the new worker, which holds no CRD text yet —
    /// the waiting job if there is one (it is newer), else the one that was in flight.
    pub fn restart(&mut self) -> Option<Outgoing<C>> {
        self.worker_crd = None;
        self.in_flight = None;
        let again = self.pending.take().or_else(|| self.in_flight_job.take());
        self.in_flight_job = None;
        again.map(|(job, crd)| self.post(job, crd))
    }

    /// The CRD text the worker holds for this studio (that of the last job posted), if any.
    pub fn worker_crd(&self) -> Option<&C> {
        self.worker_crd.as_ref()
    }

    /// The newest request number.
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// Jobs replaced by newer ones before they were posted.
    pub fn coalesced(&self) -> u64 {
        self.coalesced
    }

    /// The worker was restarted: nothing is in flight and it holds no CRD text. The pending
    /// job (if any) is dropped too; the caller decides what to send next.
    pub fn reset(&mut self) {
        self.in_flight = None;
        self.in_flight_job = None;
        self.pending = None;
        self.worker_crd = None;
    }
}

/// The worker's queue: what arrived while an analysis ran.
#[derive(Debug, Default)]
pub struct Inbox {
    queue: VecDeque<ToWorker>,
    coalesced: u64,
}

impl Inbox {
    /// Queues a message. An analysis replaces the queued analysis of the same studio (its CRD
    /// text is carried over when the newer job has none); a `Forget` drops the studio's
    /// queued analysis.
    pub fn push(&mut self, message: ToWorker) {
        match message {
            ToWorker::Analyze(mut job) => {
                if let Some(at) = self.queued_job(&job.studio) {
                    if let Some(ToWorker::Analyze(old)) = self.queue.remove(at) {
                        if job.crd.is_none() {
                            job.crd = old.crd;
                        }
                        self.coalesced += 1;
                    }
                }
                self.queue.push_back(ToWorker::Analyze(job));
            }
            ToWorker::Assist(request) => self.queue.push_back(ToWorker::Assist(request)),
            ToWorker::Forget { studio } => {
                if let Some(at) = self.queued_job(&studio) {
                    self.queue.remove(at);
                }
                self.queue.push_back(ToWorker::Forget { studio });
            }
        }
    }

    /// Queues an older job again (one that waited): dropped when a job of the same studio is
    /// queued already (that one is newer).
    pub fn push_front_unless_newer(&mut self, job: Job) {
        if self.queued_job(&job.studio).is_none() {
            self.queue.push_front(ToWorker::Analyze(Box::new(job)));
        }
    }

    fn queued_job(&self, studio: &str) -> Option<usize> {
        self.queue
            .iter()
            .position(|m| matches!(m, ToWorker::Analyze(j) if j.studio == studio))
    }

    /// The CRD text carried by the studio's queued analysis, if one is queued with one.
    pub fn queued_crd(&self, studio: &str) -> Option<&str> {
        self.queue.iter().find_map(|m| match m {
            ToWorker::Analyze(j) if j.studio == studio => j.crd.as_deref(),
            _ => None,
        })
    }

    /// The next message to handle.
    pub fn pop(&mut self) -> Option<ToWorker> {
        self.queue.pop_front()
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Jobs dropped because a newer one of the same studio arrived.
    pub fn coalesced(&self) -> u64 {
        self.coalesced
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(object: &str) -> Job {
        Job {
            objects: vec![object.to_owned()],
            ..Job::default()
        }
    }

    fn text(s: &str) -> Rc<str> {
        Rc::from(s)
    }

    #[test]
    fn one_job_in_flight_and_only_the_newest_waits() {
        let mut c: Channel = Channel::new("main");
        let first = c.submit(job("a"), text("crd")).expect("posted at once");
        assert_eq!((first.studio.as_str(), first.seq), ("main", 1));
        assert_eq!(first.crd.as_deref(), Some("crd"));
        // Two edits while the first runs: the second replaces the first.
        assert_eq!(c.submit(job("ab"), text("crd")), None);
        assert_eq!(c.submit(job("abc"), text("crd")), None);
        assert_eq!(c.coalesced(), 1);
        // The reply to 1 is superseded (3 is newest): dropped, and 3 is posted.
        let d = c.on_reply(1);
        assert!(!d.show);
        let next = d.post.expect("the pending job is posted");
        assert_eq!(next.seq, 3);
        assert_eq!(next.objects, ["abc"]);
        // The worker already holds this CRD text: it is not sent again.
        assert_eq!(next.crd, None);
        let d = c.on_reply(3);
        assert!(d.show);
        assert_eq!(d.post, None);
        assert!(!c.busy());
    }

    #[test]
    fn a_stray_reply_changes_nothing() {
        let mut c: Channel = Channel::new("s");
        c.submit(job("a"), text("crd"));
        c.submit(job("b"), text("crd"));
        // A reply for a job this channel never had in flight.
        let d = c.on_reply(7);
        assert!(!d.show);
        assert_eq!(d.post, None);
        assert!(c.busy());
    }

    #[test]
    fn the_crd_text_is_sent_when_it_changes_and_after_a_restart() {
        let mut c: Channel = Channel::new("s");
        let j = c.submit(job("o"), text("v1")).expect("posted");
        assert_eq!(j.crd.as_deref(), Some("v1"));
        c.on_reply(j.seq);
        let j = c.submit(job("o"), text("v2")).expect("posted");
        assert_eq!(j.crd.as_deref(), Some("v2"));
        c.on_reply(j.seq);
        let j = c.submit(job("o2"), text("v2")).expect("posted");
        assert_eq!(j.crd, None);
        // The worker crashed and was restarted.
        c.reset();
        assert!(!c.busy());
        let j = c.submit(job("o3"), text("v2")).expect("posted");
        assert_eq!(j.crd.as_deref(), Some("v2"));
        assert_eq!(j.base, None, "a new worker holds no text to splice");
        assert!(j.seq > 3, "numbers keep increasing across restarts");
    }

    /// A text sent to a worker that holds an earlier one names that one as its base.
    #[test]
    fn a_new_crd_text_names_the_one_the_worker_holds() {
        let mut c: Channel = Channel::new("s");
        let j = c.submit(job("o"), text("v1")).expect("posted");
        assert_eq!(j.base, None);
        c.on_reply(j.seq);
        let j = c.submit(job("o"), text("v2")).expect("posted");
        assert_eq!(j.base.as_deref(), Some("v1"));
        c.on_reply(j.seq);
        let j = c.submit(job("o"), text("v2")).expect("posted");
        assert_eq!((j.crd.as_deref(), j.base.as_deref()), (None, None));
    }

    #[test]
    fn a_splice_rebuilds_the_text_or_refuses() {
        let splice = |base_len, keep_start, keep_end| Splice {
            base_len,
            keep_start,
            keep_end,
        };
        // (base, splice, middle, expected)
        let cases = [
            ("abcdef", splice(6, 2, 2), "XY", Some("abXYef")),
            ("abcdef", splice(6, 6, 0), "g", Some("abcdefg")),
            ("abcdef", splice(6, 0, 6), "_", Some("_abcdef")),
            ("abcdef", splice(6, 0, 0), "", Some("")),
            ("abcdef", splice(6, 3, 3), "", Some("abcdef")),
            // The worker holds another text: the lengths differ.
            ("abcdefg", splice(6, 2, 2), "XY", None),
            // Kept parts that overlap.
            ("abcdef", splice(6, 4, 4), "", None),
            // UTF-16: é is one unit (two bytes), 😀 two units (four bytes).
            ("aé😀b", splice(5, 2, 1), "c", Some("aécb")),
            ("aé😀b", splice(5, 4, 1), "", Some("aé😀b")),
            ("aé😀b", splice(5, 1, 0), "", Some("a")),
            // A kept part ending inside 😀.
            ("aé😀b", splice(5, 3, 1), "", None),
            ("aé😀b", splice(5, 2, 2), "", None),
            ("aé😀b", splice(4, 2, 1), "", None),
        ];
        for (base, s, middle, want) in cases {
            assert_eq!(
                s.apply(base, middle).as_deref(),
                want,
                "{base:?} {s:?} {middle:?}"
            );
        }
    }

    #[test]
    fn a_splice_agrees_with_utf16_slicing_at_every_offset() {
        for base in ["", "a", "é", "😀", "aé😀b", "😀😀", "x😀éy", "ab€"] {
            let units: Vec<u16> = base.encode_utf16().collect();
            let n = units.len();
            for keep_start in 0..=n + 1 {
                for keep_end in 0..=n + 1 {
                    let want = (keep_start + keep_end <= n)
                        .then(|| {
                            let head = String::from_utf16(units.get(..keep_start)?).ok()?;
                            let tail = String::from_utf16(units.get(n - keep_end..)?).ok()?;
                            Some(format!("{head}M{tail}"))
                        })
                        .flatten();
                    let splice = Splice {
                        base_len: n as u32,
                        keep_start: keep_start as u32,
                        keep_end: keep_end as u32,
                    };
                    assert_eq!(splice.apply(base, "M"), want, "{base:?} {splice:?}");
                }
            }
        }
    }

    #[test]
    fn a_restart_posts_the_newest_job_again_with_its_crd_text() {
        let mut c: Channel = Channel::new("s");
        let first = c.submit(job("slow"), text("crd")).expect("posted");
        // Restarted under the job in flight, nothing newer: the same job goes again, with
        // the CRD text (the new worker holds none).
        let again = c.restart().expect("posted again");
        assert_eq!(
            (again.seq, again.objects.as_slice()),
            (first.seq, &["slow".to_owned()][..])
        );
        assert_eq!(again.crd.as_deref(), Some("crd"));
        // A newer edit waits; a restart posts it instead of the one in flight.
        assert_eq!(c.submit(job("newer"), text("crd")), None);
        let next = c.restart().expect("posted");
        assert_eq!(next.objects, ["newer"]);
        assert_eq!(next.crd.as_deref(), Some("crd"));
        assert!(c.on_reply(next.seq).show);
        // Nothing in flight and nothing waiting: nothing to post.
        assert_eq!(c.restart(), None);
        assert!(!c.busy());
        // Stopped (reset): the job in flight is forgotten, the next one is fresh.
        c.submit(job("x"), text("crd"));
        c.reset();
        assert_eq!(c.restart(), None);
    }

    /// What a completion request in the CRD editor may leave out: the CRD text of the last
    /// job posted ([`Channel::worker_crd`]), which the worker finds in that job while it is
    /// queued ([`Inbox::queued_crd`]) and keeps after running it.
    #[test]
    fn the_crd_text_the_worker_holds_is_known_on_both_sides() {
        let mut c: Channel = Channel::new("main");
        assert_eq!(c.worker_crd(), None);
        let first = c.submit(job("a"), text("crd-1")).expect("posted at once");
        assert_eq!(c.worker_crd().map(|t| &**t), Some("crd-1"));
        // A waiting job's text is not the worker's yet.
        assert_eq!(c.submit(job("a"), text("crd-2")), None);
        assert_eq!(c.worker_crd().map(|t| &**t), Some("crd-1"));
        let next = c.on_reply(first.seq).post.expect("posted");
        assert_eq!(next.crd.as_deref(), Some("crd-2"));
        assert_eq!(c.worker_crd().map(|t| &**t), Some("crd-2"));
        c.reset();
        assert_eq!(c.worker_crd(), None);

        let mut inbox = Inbox::default();
        let mk = |studio: &str, crd: Option<&str>| {
            ToWorker::Analyze(Box::new(Job {
                studio: studio.to_owned(),
                crd: crd.map(str::to_owned),
                ..Job::default()
            }))
        };
        assert_eq!(inbox.queued_crd("a"), None);
        inbox.push(mk("a", Some("crd-a")));
        inbox.push(mk("b", None));
        assert_eq!(inbox.queued_crd("a"), Some("crd-a"));
        assert_eq!(inbox.queued_crd("b"), None);
        // A newer job without a text carries the queued one's.
        inbox.push(mk("a", None));
        assert_eq!(inbox.queued_crd("a"), Some("crd-a"));
    }

    #[test]
    fn the_inbox_runs_only_the_newest_job_of_each_studio() {
        let mut inbox = Inbox::default();
        let mk = |studio: &str, seq: u64, crd: Option<&str>| {
            ToWorker::Analyze(Box::new(Job {
                studio: studio.to_owned(),
                seq,
                crd: crd.map(str::to_owned),
                ..Job::default()
            }))
        };
        inbox.push(mk("a", 1, Some("crd-a")));
        inbox.push(mk("b", 1, Some("crd-b")));
        inbox.push(mk("a", 2, None));
        inbox.push(mk("a", 3, None));
        assert_eq!(inbox.coalesced(), 2);
        // b first (it came first), then a's newest, carrying a's CRD text.
        assert_eq!(inbox.pop(), Some(mk("b", 1, Some("crd-b"))));
        assert_eq!(inbox.pop(), Some(mk("a", 3, Some("crd-a"))));
        assert!(inbox.is_empty());
        // A newer CRD text wins over the carried one.
        inbox.push(mk("a", 4, Some("old")));
        inbox.push(mk("a", 5, Some("new")));
        assert_eq!(inbox.pop(), Some(mk("a", 5, Some("new"))));
        // A job that waited goes first, unless its studio has a newer one queued.
        inbox.push(mk("b", 2, None));
        if let ToWorker::Analyze(j) = mk("a", 4, None) {
            inbox.push_front_unless_newer(*j);
        }
        if let ToWorker::Analyze(j) = mk("b", 1, None) {
            inbox.push_front_unless_newer(*j);
        }
        assert_eq!(inbox.pop(), Some(mk("a", 4, None)));
        assert_eq!(inbox.pop(), Some(mk("b", 2, None)));
        // Forget drops the queued job.
        inbox.push(mk("a", 6, None));
        inbox.push(ToWorker::Forget {
            studio: "a".to_owned(),
        });
        assert_eq!(
            inbox.pop(),
            Some(ToWorker::Forget {
                studio: "a".to_owned()
            })
        );
        assert_eq!(inbox.pop(), None);
    }

    #[test]
    fn messages_round_trip_as_json() {
        let m = ToWorker::Analyze(Box::new(Job {
            crd: Some("c".to_owned()),
            ..job("o")
        }));
        let text = crate::wire_json::to_string(&m).expect("serializes");
        assert!(text.starts_with(r#"{"analyze":["",0,"c",["o"]"#), "{text}");
        assert_eq!(crate::wire_json::from_str::<ToWorker>(&text).ok(), Some(m));
        let reply = FromWorker {
            studio: "s".to_owned(),
            seq: 2,
            outcome: Outcome::Panic {
                message: "boom".to_owned(),
            },
        };
        let text = crate::wire_json::to_string(&reply).expect("serializes");
        assert_eq!(
            crate::wire_json::from_str::<FromWorker>(&text).ok(),
            Some(reply)
        );
    }
}
