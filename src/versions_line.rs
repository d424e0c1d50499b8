//! The CRD across Kubernetes versions, one line under the verdict ("accepted by 1.31–1.37;
//! 1.30 rejects: isIP needs 1.31"), computed in the worker after the CRD's reply.
//!
//! The engine says what can differ at each version ([`CompiledCrd::recheck_plan`]: the rule
//! sites naming a version-gated CEL name, the field-selector gate) and checks one version at
//! a time ([`CompiledCrd::verdict_at_with`]). The worker runs the span in steps *after*
//! posting the reply, and only while no message waits (`worker.rs`): the reply is never
//! delayed, a queued keystroke goes first, and a newer CRD content starts the span over.
//! A step takes every version that needs nothing compiled at once, and at most one that
//! does (its gated rule sites compiled again, or, where they differ, one CRD validation), so
//! a CRD whose rules name nothing gated (argo-workflows) has its line in one cheap step.
//! Object keystrokes never recompute it: the span belongs to the CRD's content and options
//! and rides on every later reply ([`Spans::after_job`]).

use std::collections::HashMap;

use crd_studio_engine::{
    CompiledCrd, KubernetesVersion, Options, RecheckPlan, VersionSpan, VersionVerdict,
};
use serde::{Deserialize, Serialize};

use crate::worker_boundary::Engine;

/// The line the page shows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionsLine {
    /// `accepted by 1.31–1.37; 1.30 rejects: isIP needs 1.31`.
    pub line: String,
    /// Whether every modelled version accepts the CRD.
    pub all_accepted: bool,
    /// Whether every modelled version gives the same verdict and errors (the page then
    /// says it more quietly).
    pub uniform: bool,
}

impl VersionsLine {
    /// The line of a span.
    pub fn of(span: &VersionSpan) -> VersionsLine {
        VersionsLine {
            line: span.line(),
            all_accepted: span.all_accepted(),
            uniform: span.first_difference.is_none(),
        }
    }

    /// The line as a screen reader should say it: "1.31 to 1.37" for the dash.
    pub fn spoken(&self) -> String {
        format!("Kubernetes versions: {}", self.line.replace('–', " to "))
    }
}

/// One studio's span: done, or the verdicts so far.
#[derive(Debug)]
struct Span {
    options: Options,
    /// What can differ at other versions (from the first step).
    plan: Option<RecheckPlan>,
    verdicts: Vec<VersionVerdict>,
    done: Option<VersionsLine>,
    /// The studio's newest answered job (the line is posted for it).
    seq: u64,
}

/// Every studio's span (the worker keeps one).
#[derive(Debug, Default)]
pub struct Spans {
    studios: HashMap<String, Span>,
}

impl Spans {
    /// After the studio's analysis job `seq`: the line when known. It starts over when the
    /// job carried a CRD text whose content differs from the compiled one's previous
    /// (`crd_sent` and not [`CompiledCrd::content_reused`]) or the options changed.
    pub fn after_job(
        &mut self,
        studio: &str,
        seq: u64,
        crd_sent: bool,
        options: &Options,
        compiled: &CompiledCrd,
    ) -> Option<VersionsLine> {
        let fresh = || Span {
            options: options.clone(),
            plan: None,
            verdicts: Vec::new(),
            done: None,
            seq,
        };
        let span = self.studios.entry(studio.to_owned()).or_insert_with(fresh);
        if (crd_sent && !compiled.content_reused()) || span.options != *options {
            *span = fresh();
        }
        span.seq = seq;
        span.done.clone()
    }

    /// Whether a span waits for a step.
    pub fn pending(&self) -> bool {
        self.studios.values().any(|s| s.done.is_none())
    }

    /// Checks the next versions of one unfinished span with the engine's compiled CRD of its
    /// studio (those that need nothing compiled, and at most one that does); when that
    /// finishes it, the studio, its newest job and the line.
    pub fn step(&mut self, engine: &Engine) -> Option<(String, u64, VersionsLine)> {
        let (studio, span) = self.studios.iter_mut().find(|(_, s)| s.done.is_none())?;
        let Some(crd) = engine.compiled_crd(studio) else {
            span.done = Some(VersionsLine::default());
            return None;
        };
        let plan = span.plan.get_or_insert_with(|| crd.recheck_plan());
        let count = KubernetesVersion::all().count();
        while let Some(v) = KubernetesVersion::all().nth(span.verdicts.len()) {
            let compiles = plan.needs_recheck(v);
            span.verdicts.push(crd.verdict_at_with(plan, v));
            if compiles && span.verdicts.len() < count {
                return None;
            }
        }
        let line =
            VersionsLine::of(&VersionSpan::from_verdicts(&span.verdicts).with_short_difference());
        span.done = Some(line.clone());
        Some((studio.clone(), span.seq, line))
    }

    /// Drops a studio's span.
    pub fn forget(&mut self, studio: &str) {
        self.studios.remove(studio);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crd_studio_engine::Request;

    fn crd(rule: &str) -> String {
        format!(
            "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {{kind: Widget, plural: widgets}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              a: {{type: string, maxLength: 40}}
            x-kubernetes-validations:
            - rule: \"{rule}\"
"
        )
    }

    /// Runs a job as the worker does: the reply's line, or the steps until it comes.
    fn job(
        engine: &mut Engine,
        spans: &mut Spans,
        seq: u64,
        crd: &str,
        sent: bool,
    ) -> (
        Option<VersionsLine>,
        usize,
        Option<(String, u64, VersionsLine)>,
    ) {
        let request = Request {
            crd: crd.to_owned(),
            ..Request::default()
        };
        engine.answer_known("s", &request, &Default::default(), !sent, &mut |_| {});
        let compiled = engine.compiled_crd("s").expect("compiled");
        let known = spans.after_job("s", seq, sent, &request.options, compiled);
        let mut steps = 0;
        let mut done = None;
        while spans.pending() {
            steps += 1;
            done = spans.step(engine);
        }
        (known, steps, done)
    }

    #[test]
    fn steps_only_for_what_depends_on_the_version_then_kept_until_the_content_changes() {
        let (mut engine, mut spans) = (Engine::default(), Spans::default());
        let plain = crd("self.a.size() > 0");
        let (known, steps, done) = job(&mut engine, &mut spans, 1, &plain, true);
        assert_eq!(known, None);
        // Nothing in the rule depends on the version: one step, nothing compiled.
        assert_eq!(steps, 1);
        let (studio, seq, line) = done.expect("the line");
        assert_eq!((studio.as_str(), seq), ("s", 1));
        assert_eq!(line.line, "accepted by 1.30–1.37");
        assert!(line.all_accepted && line.uniform);
        // An object keystroke: the line rides on the reply, no step.
        let (known, steps, _) = job(&mut engine, &mut spans, 2, &plain, false);
        assert_eq!(known.map(|l| l.line), Some("accepted by 1.30–1.37".into()));
        assert_eq!(steps, 0);
        // The same content with other spacing: kept.
        let spaced = plain.replace(
            "type: object\n        properties",
            "type:   object\n        properties",
        );
        let (known, steps, _) = job(&mut engine, &mut spans, 3, &spaced, true);
        assert!(known.is_some());
        assert_eq!(steps, 0);
        // A newer function: computed again, for the newest job, one version compiled per
        // step (its one rule site at each version but the compiled one).
        let (known, steps, done) = job(&mut engine, &mut spans, 4, &crd("isIP(self.a)"), true);
        assert_eq!(known, None);
        assert_eq!(steps, KubernetesVersion::all().count());
        let (_, seq, line) = done.expect("the line");
        assert_eq!(seq, 4);
        assert_eq!(
            line.line,
            "accepted by 1.31–1.37; 1.30 rejects: isIP needs 1.31"
        );
        assert!(!line.all_accepted && !line.uniform);
        assert_eq!(
            line.spoken(),
            "Kubernetes versions: accepted by 1.31 to 1.37; 1.30 rejects: isIP needs 1.31"
        );
    }
}
