//! Replies without what the page already has: the analysis's version reports
//! (`Analysis::versions`: the rules, their costs and the printer columns) depend on the CRD
//! alone, yet are most of a reply on a big CRD (argo-workflows: 109 KB of a 115 KB reply),
//! serialized by the worker and parsed by the page on every object keystroke. Without them an
//! argo object keystroke's reply is 5–8 KB, a CronTab's 4–6 KB (was 10–12 KB).
//!
//! The worker ([`SentVersions`]) sends a studio's version reports only when they differ from
//! the ones it sent that studio last; otherwise the answer is
//! [`Outcome::ReplySameVersions`] with empty `versions`. The page ([`ReceivedVersions`])
//! keeps the reports of every reply it reads (before deciding whether to show it: a reply
//! that is not shown still updates the copy) and puts them back into a `ReplySameVersions`.
//! Messages from one worker arrive in order and a new worker starts with nothing sent, so
//! the page's copy is always the one the worker compared against: the page sees exactly the
//! replies it saw before.

use std::collections::HashMap;

use crd_studio_engine::VersionReport;

use crate::worker_protocol::Outcome;

/// The worker's side: the version reports last sent to each studio.
#[derive(Default)]
pub struct SentVersions(HashMap<String, Vec<VersionReport>>);

impl SentVersions {
    /// The outcome to send to `studio`: a reply whose version reports are the ones sent last
    /// becomes [`Outcome::ReplySameVersions`] without them; any other outcome is unchanged.
    pub fn thin(&mut self, studio: &str, outcome: Outcome) -> Outcome {
        let Outcome::Reply(mut reply) = outcome else {
            return outcome;
        };
        match self.0.get(studio) {
            Some(sent) if *sent == reply.analysis.versions => {
                reply.analysis.versions = Vec::new();
                Outcome::ReplySameVersions(reply)
            }
            _ => {
                self.0
                    .insert(studio.to_owned(), reply.analysis.versions.clone());
                Outcome::Reply(reply)
            }
        }
    }

    /// The studio is gone.
    pub fn forget(&mut self, studio: &str) {
        self.0.remove(studio);
    }
}

/// The page's side: the version reports of the last reply read for each studio.
#[derive(Default)]
pub struct ReceivedVersions(HashMap<String, Vec<VersionReport>>);

impl ReceivedVersions {
    /// The outcome as the worker computed it: a [`Outcome::ReplySameVersions`] gets the
    /// studio's version reports back (an [`Outcome::Reply`]); a reply's reports are kept.
    pub fn fill(&mut self, studio: &str, outcome: Outcome) -> Outcome {
        match outcome {
            Outcome::Reply(reply) => {
                self.0
                    .insert(studio.to_owned(), reply.analysis.versions.clone());
                Outcome::Reply(reply)
            }
            Outcome::ReplySameVersions(mut reply) => {
                reply.analysis.versions = self.0.get(studio).cloned().unwrap_or_default();
                Outcome::Reply(reply)
            }
            other => other,
        }
    }

    /// The studio is gone.
    pub fn forget(&mut self, studio: &str) {
        self.0.remove(studio);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker_boundary::Reply;

    fn reply(versions: &[&str], findings: usize) -> Outcome {
        let mut r = Reply::default();
        r.analysis.versions = versions
            .iter()
            .map(|n| VersionReport {
                name: (*n).to_owned(),
                ..VersionReport::default()
            })
            .collect();
        r.analysis.findings = (0..findings)
            .map(|i| crd_studio_engine::Finding::error("test", format!("finding {i}")))
            .collect();
        Outcome::Reply(Box::new(r))
    }

    fn is_thin(o: &Outcome) -> bool {
        matches!(o, Outcome::ReplySameVersions(r) if r.analysis.versions.is_empty())
    }

    #[test]
    fn the_page_sees_every_reply_as_the_worker_computed_it() {
        let mut sent = SentVersions::default();
        let mut received = ReceivedVersions::default();
        // (studio, versions, findings, thinned on the way)
        let steps: &[(&str, &[&str], usize, bool)] = &[
            ("a", &["v1"], 0, false),
            ("a", &["v1"], 1, true),
            ("b", &["v1"], 2, false),
            ("a", &["v1"], 3, true),
            ("a", &["v1", "v2"], 3, false),
            ("a", &["v1", "v2"], 4, true),
            ("b", &["v1"], 5, true),
            ("a", &[], 0, false),
            ("a", &[], 1, true),
        ];
        for (studio, versions, findings, thinned) in steps {
            let computed = reply(versions, *findings);
            let wire = sent.thin(studio, computed.clone());
            assert_eq!(is_thin(&wire), *thinned, "{studio} {versions:?} {findings}");
            // Through JSON, as between the threads.
            let text = crate::wire_json::to_string(&wire).unwrap_or_default();
            let read: Outcome = crate::wire_json::from_str(&text)
                .unwrap_or(Outcome::Progress { done: 0, total: 0 });
            assert_eq!(received.fill(studio, read), computed);
        }
    }

    #[test]
    fn a_forgotten_studio_is_sent_everything_again() {
        let mut sent = SentVersions::default();
        assert!(!is_thin(&sent.thin("a", reply(&["v1"], 0))));
        assert!(is_thin(&sent.thin("a", reply(&["v1"], 0))));
        sent.forget("a");
        assert!(!is_thin(&sent.thin("a", reply(&["v1"], 0))));
        let mut received = ReceivedVersions::default();
        received.fill("a", reply(&["v1"], 0));
        received.forget("a");
        let thin = Outcome::ReplySameVersions(Box::default());
        assert_eq!(received.fill("a", thin), reply(&[], 0));
    }

    #[test]
    fn other_outcomes_pass_unchanged() {
        let mut sent = SentVersions::default();
        let mut received = ReceivedVersions::default();
        let progress = Outcome::Progress { done: 1, total: 2 };
        assert_eq!(sent.thin("a", progress.clone()), progress);
        assert_eq!(received.fill("a", progress.clone()), progress);
    }
}
