//! The "CEL rules" panel, computed from an [`Analysis`] without touching the DOM.
//!
//! For the selected CRD version the panel lists every `x-kubernetes-validations` rule the
//! engine reports (`VersionReport::rules`) with what happened when it ran on each sample object
//! (`ObjectReport::cel_results`). Nothing here decides what the server does: the engine says
//! whether a rule compiles, passes, fails or is skipped, and with which message; this module
//! groups and labels it. Every place it links to (a rule, a schema node, a value a rule ran
//! on) is the engine's `Location`.
//!
//! Costs: the engine estimates each rule as CRD validation does (`CelRuleReport::max_cost`,
//! `cardinality`, `estimated_cost`); this module writes the figures (digit groups, shares of
//! the server's limits, the server's "factor of" wording) and ties the CRD errors the server
//! reports at a rule (an over-budget rule, for one) to the rule's card. The engine's cost
//! report (`VersionReport::cost`) says what drives each cost and which bounds would fix it,
//! with the text edits that write them; [`Explanation`] and [`CostTotal`] label them.
//!
//! [`apply_edits`] applies the engine's suggested text edits (a bound inserted into the
//! schema); the inline rule editor's edit comes from the engine too
//! (`crd_studio_engine::rule_edit`).

use std::collections::HashMap;

use crd_studio_engine::{Analysis, CelOutcome, CelRuleReport, CelRuleResult, ObjectReport};

use crate::stored_model::object_choices;
use crate::view_model::FocusTarget;

mod costs;
#[cfg(test)]
mod tests;

use costs::rule_errors;

pub use costs::{
    apply_edits, digits, driver_size_text, factor_text, BoundView, Cardinality, ContributorView,
    CostTotal, DriverView, Edit, Explanation, FixView, RuleCost, RuleError, Share,
};

/// Evaluations listed at most per group; the rest are counted.
pub const MAX_LISTED: usize = 20;
/// Paths named at most in a one-line outcome summary.
const MAX_NAMED: usize = 3;

/// A CRD version the panel can show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionChoice {
    /// Index into `Analysis::versions`.
    pub index: usize,
    /// The version name.
    pub name: String,
    /// How many rules its schema has.
    pub rules: usize,
}

/// The versions of the CRD, in the CRD's order.
pub fn version_choices(analysis: &Analysis) -> Vec<VersionChoice> {
    analysis
        .versions
        .iter()
        .enumerate()
        .map(|(index, v)| VersionChoice {
            index,
            name: v.name.clone(),
            rules: v.rules.len(),
        })
        .collect()
}

/// The version shown first: the one the first sample object's rules ran in, else the
/// version its `apiVersion` names, else the storage version, else the first.
pub fn default_version(analysis: &Analysis) -> Option<usize> {
    let find = |name: &str| analysis.versions.iter().position(|v| v.name == name);
    let samples = || analysis.objects.iter().filter(|o| o.source == 0);
    samples()
        .flat_map(|o| o.cel_results.first())
        .find_map(|r| find(&r.version))
        .or_else(|| samples().find_map(|o| find(object_version(o))))
        .or_else(|| analysis.versions.iter().position(|v| v.storage))
        .or_else(|| (!analysis.versions.is_empty()).then_some(0))
}

/// The version part of an object's `apiVersion` (`v1` of `stable.example.com/v1`).
fn object_version(o: &ObjectReport) -> &str {
    o.api_version
        .rsplit_once('/')
        .map_or(o.api_version.as_str(), |(_, v)| v)
}

/// The tab's badge: how many rules the default version has, and whether one of them does
/// not compile or fails on a sample.
pub fn tab_badge(analysis: &Analysis) -> (usize, bool) {
    let Some(v) = default_version(analysis).and_then(|i| analysis.versions.get(i)) else {
        return (0, false);
    };
    let compile = v
        .rules
        .iter()
        .any(|r| r.compile_error.is_some() || r.message_expression_error.is_some());
    let failing = analysis
        .objects
        .iter()
        .filter(|o| o.source == 0)
        .flat_map(|o| &o.cel_results)
        .any(|r| {
            r.version == v.name && matches!(r.outcome, CelOutcome::Failed | CelOutcome::Error)
        });
    (v.rules.len(), compile || failing)
}

/// The one-line tally at the top of the panel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Rules in the version.
    pub rules: usize,
    /// Rules whose `rule` or `messageExpression` does not compile.
    pub compile_errors: usize,
    /// Rules whose estimated cost (or their `messageExpression`'s) exceeds the server's
    /// per-expression limit.
    pub over_limit: usize,
    /// Rules that failed (or could not be evaluated) on a sample object.
    pub failing: usize,
    /// Sample objects (documents of the Object editor).
    pub samples: usize,
    /// The runtime CEL cost the server counts for the samples, summed.
    pub runtime_cost: u64,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Summary {
    /// `3 rules · 1 compile error · 2 failing on the sample`, and `· 1 over the cost limit`
    /// when a rule is.
    pub fn text(&self) -> String {
        let sample = if self.samples == 1 {
            "the sample"
        } else {
            "the samples"
        };
        let mut out = format!(
            "{} · {} · {} failing on {sample}",
            plural(self.rules, "rule", "rules"),
            plural(self.compile_errors, "compile error", "compile errors"),
            self.failing
        );
        if self.over_limit > 0 {
            out.push_str(&format!(" · {} over the cost limit", self.over_limit));
        }
        out
    }
}

/// One evaluation of a rule, as listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    /// The value the rule ran on, as the server writes its path (`spec.items[2]`, `<root>`).
    pub path: String,
    /// The error the server returns for it (failed, error).
    pub message: Option<String>,
    /// Its runtime cost.
    pub cost: u64,
    /// Where the value is in the Object editor.
    pub target: Option<FocusTarget>,
}

/// Evaluations of one rule on one object with the same outcome and the same explanation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutcomeGroup {
    /// The outcome.
    pub outcome: CelOutcome,
    /// Why it was skipped, the evaluation error's detail, or a note on a failure (ratcheting).
    pub detail: Option<String>,
    /// The evaluations, in the order the server ran them.
    pub evaluations: Vec<Evaluation>,
}

impl OutcomeGroup {
    /// The smallest and largest cost of one evaluation.
    pub fn cost_range(&self) -> (u64, u64) {
        let costs = self.evaluations.iter().map(|e| e.cost);
        (costs.clone().min().unwrap_or(0), costs.max().unwrap_or(0))
    }

    /// The detail worth showing: `None` when every evaluation's message already says it.
    pub fn shown_detail(&self) -> Option<&str> {
        let d = self.detail.as_deref()?;
        let said = self
            .evaluations
            .iter()
            .all(|e| e.message.as_deref().is_some_and(|m| m.contains(d)));
        (!said).then_some(d)
    }

    /// Whether the evaluations (more than one) return the same message but for the path
    /// each starts with: the panel then shows it once.
    pub fn same_message(&self) -> bool {
        let mut rests = self.evaluations.iter().map(|e| {
            e.message
                .as_deref()
                .and_then(|m| m.strip_prefix(e.path.as_str()))
        });
        let Some(Some(first)) = rests.next() else {
            return false;
        };
        self.evaluations.len() > 1 && rests.all(|r| r == Some(first))
    }

    /// `cost 3`, `cost 2 each`, `cost 2–5 each`.
    pub fn cost_text(&self) -> String {
        let (lo, hi) = self.cost_range();
        match (self.evaluations.len(), lo == hi) {
            (1, _) => format!("cost {lo}"),
            (_, true) => format!("cost {lo} each"),
            (_, false) => format!("cost {lo}–{hi} each"),
        }
    }
}

/// The word for an outcome.
pub fn outcome_name(outcome: CelOutcome) -> &'static str {
    match outcome {
        CelOutcome::Passed => "passed",
        CelOutcome::Failed => "failed",
        CelOutcome::Error => "error",
        CelOutcome::Skipped => "skipped",
    }
}

/// Groups evaluations by outcome and detail, in order of first appearance.
pub fn group_results<'a>(
    results: impl IntoIterator<Item = &'a CelRuleResult>,
    mut target: impl FnMut(&str) -> Option<FocusTarget>,
) -> Vec<OutcomeGroup> {
    let mut groups: Vec<OutcomeGroup> = Vec::new();
    for r in results {
        let evaluation = Evaluation {
            path: r.path.clone(),
            message: r.message.clone(),
            cost: r.cost,
            target: target(&r.path),
        };
        match groups
            .iter_mut()
            .find(|g| g.outcome == r.outcome && g.detail == r.detail)
        {
            Some(g) => g.evaluations.push(evaluation),
            None => groups.push(OutcomeGroup {
                outcome: r.outcome,
                detail: r.detail.clone(),
                evaluations: vec![evaluation],
            }),
        }
    }
    groups
}

/// The groups in one line: `3 × passed, 1 × failed at spec.items[2]`. Paths are named for
/// outcomes other than passed (a few, then a count).
pub fn outcome_summary(groups: &[OutcomeGroup]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for g in groups {
        let mut part = format!("{} × {}", g.evaluations.len(), outcome_name(g.outcome));
        if g.outcome != CelOutcome::Passed {
            let named: Vec<&str> = g
                .evaluations
                .iter()
                .take(MAX_NAMED)
                .map(|e| e.path.as_str())
                .collect();
            part.push_str(" at ");
            part.push_str(&named.join(", "));
            let more = g.evaluations.len().saturating_sub(MAX_NAMED);
            if more > 0 {
                part.push_str(&format!(" (+{more} more)"));
            }
        }
        parts.push(part);
    }
    parts.join(", ")
}

/// What one rule did on one sample object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampleResults {
    /// The object, as the Stored object panel names it (`CronTab my-cron`).
    pub object: String,
    /// `create`, or `update` with the old object.
    pub operation: String,
    /// The evaluations, grouped.
    pub groups: Vec<OutcomeGroup>,
    /// [`outcome_summary`] of the groups.
    pub summary: String,
    /// Why the rule has no evaluation on this object, when it has none.
    pub note: Option<String>,
}

/// One rule, as the panel shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleView {
    /// 1-based number in the version.
    pub number: usize,
    /// The engine's key of the rule (`properties[spec].x-kubernetes-validations[0]`).
    pub key: String,
    /// Where the rule's values are in an object (`.spec.items[*]`; `.` for the root).
    pub value_path: String,
    /// The rule's full path in the CRD.
    pub crd_path: String,
    /// `crd.yaml:line:col`, when the engine located the rule.
    pub place: String,
    /// Where clicking the place puts the cursor (the CRD editor).
    pub target: Option<FocusTarget>,
    /// The engine's report of the rule.
    pub report: CelRuleReport,
    /// Its estimated cost, as CRD validation checks it.
    pub cost: RuleCost,
    /// The CRD errors the server reports at the rule (its `rule`, `messageExpression`, ...)
    /// other than the compile errors shown with the rule: an estimated cost over the limit,
    /// say. The same errors are listed in Problems.
    pub errors: Vec<RuleError>,
    /// What drives the estimated cost of the rule and of its `messageExpression`, and the
    /// bounds that would bring it under the limit (the engine explains costs of at least 1%
    /// of the limit).
    pub explanations: Vec<Explanation>,
    /// Whether the rule failed or could not be evaluated on a sample.
    pub failing: bool,
    /// One entry per sample object.
    pub samples: Vec<SampleResults>,
}

impl RuleView {
    /// The compile error of the rule: the error the server reports at `rule` when the rule did
    /// not compile (a rule that compiled has a cost estimate; an error at `rule` then is
    /// about something else, its cost for one, and is among [`RuleView::errors`]).
    pub fn rule_compile_error(&self) -> Option<&str> {
        self.report
            .compile_error
            .as_deref()
            .filter(|_| self.report.max_cost.is_none())
    }

    /// The compile error of the `messageExpression`, the same way.
    pub fn message_expression_compile_error(&self) -> Option<&str> {
        self.report
            .message_expression_error
            .as_deref()
            .filter(|_| self.report.message_expression_max_cost.is_none())
    }

    /// Whether the rule or its message expression does not compile.
    pub fn has_compile_error(&self) -> bool {
        self.rule_compile_error().is_some() || self.message_expression_compile_error().is_some()
    }

    /// Whether the rule's estimated cost or its `messageExpression`'s exceeds the server's
    /// per-expression limit.
    pub fn over_limit(&self) -> bool {
        self.cost.rule.as_ref().is_some_and(Share::over)
            || self
                .cost
                .message_expression
                .as_ref()
                .is_some_and(Share::over)
    }

    /// What sorting by cost sorts on: the larger of the rule's and its `messageExpression`'s
    /// estimated costs (`None`: not estimated).
    pub fn sort_cost(&self) -> Option<u64> {
        let rule = self.cost.rule.as_ref().map(|s| s.value);
        let message = self.cost.message_expression.as_ref().map(|s| s.value);
        rule.max(message)
    }
}

/// The whole panel for one version.
#[derive(Clone, Debug, PartialEq)]
pub struct CelView {
    /// The versions to choose from.
    pub versions: Vec<VersionChoice>,
    /// The version shown (index into `Analysis::versions`), if the CRD has any.
    pub version: Option<usize>,
    /// The tally.
    pub summary: Summary,
    /// The estimated cost of all the version's rules against the server's limit for a
    /// schema (`None`: no rule has an estimate).
    pub total: Option<CostTotal>,
    /// The rules, in the engine's order.
    pub rules: Vec<RuleView>,
}

/// The order the rules are listed in: the engine's, or by estimated cost, most expensive
/// first (rules without an estimate last; ties keep the engine's order). Indices into
/// `rules`.
pub fn rule_order(rules: &[RuleView], by_cost: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rules.len()).collect();
    if by_cost {
        crd_studio_gostd::sort::stable_by_key(&mut order, |&i| {
            std::cmp::Reverse(rules.get(i).and_then(RuleView::sort_cost))
        });
    }
    order
}

/// Where the engine found the values the rules ran on in the text of the object report `o`,
/// by path.
fn value_targets(o: &ObjectReport) -> HashMap<&str, FocusTarget> {
    o.places
        .values
        .iter()
        .filter_map(|p| Some((p.path.as_str(), FocusTarget::at(p.location)?)))
        .collect()
}

/// Why a rule has no evaluation on an object.
fn no_result_note(o: &ObjectReport, version: &str, rule: &CelRuleReport) -> String {
    if let Some(e) = &o.object_error {
        return format!("not run: {e}");
    }
    if let Some(e) = &o.decode_error {
        return format!("not run: the server refuses the request before validation ({e})");
    }
    let v = object_version(o);
    if !v.is_empty() && v != version {
        return format!("not run: the object is {v}, not {version}");
    }
    let at = if rule.value_path.is_empty() {
        ".".to_owned()
    } else {
        rule.value_path.clone()
    };
    format!("not run: the object has no value at {at}")
}

/// The panel for `version` (clamped; `None`: [`default_version`]). The editors' positions
/// (rules, schema nodes, the values the rules ran on) are the engine's.
pub fn cel_view(analysis: &Analysis, version: Option<usize>) -> CelView {
    let versions = version_choices(analysis);
    let version = version
        .filter(|v| *v < analysis.versions.len())
        .or_else(|| default_version(analysis));
    let samples: Vec<(&ObjectReport, String, HashMap<&str, FocusTarget>)> =
        object_choices(analysis)
            .into_iter()
            .filter_map(|c| {
                let o = analysis.objects.get(c.report)?;
                Some((o, c.label, value_targets(o)))
            })
            .collect();
    let mut summary = Summary {
        samples: samples.len(),
        runtime_cost: samples.iter().map(|(o, _, _)| o.cel_runtime_cost).sum(),
        ..Summary::default()
    };
    let Some(report) = version.and_then(|v| analysis.versions.get(v)) else {
        return CelView {
            versions,
            version,
            summary,
            total: None,
            rules: Vec::new(),
        };
    };
    let rules: Vec<RuleView> = report
        .rules
        .iter()
        .enumerate()
        .map(|(i, rule)| {
            let samples: Vec<SampleResults> = samples
                .iter()
                .map(|(o, label, targets)| {
                    let results = o
                        .cel_results
                        .iter()
                        .filter(|r| r.version == report.name && r.rule == rule.key);
                    let groups = group_results(results, |path| targets.get(path).copied());
                    let note = groups
                        .is_empty()
                        .then(|| no_result_note(o, &report.name, rule));
                    SampleResults {
                        object: label.clone(),
                        operation: o.operation.clone(),
                        summary: outcome_summary(&groups),
                        groups,
                        note,
                    }
                })
                .collect();
            let failing = samples.iter().any(|s| {
                s.groups
                    .iter()
                    .any(|g| matches!(g.outcome, CelOutcome::Failed | CelOutcome::Error))
            });
            let target = rule.location.and_then(FocusTarget::at);
            let place = match (rule.line, rule.column) {
                (Some(l), Some(c)) => format!("crd.yaml:{l}:{c}"),
                (Some(l), None) => format!("crd.yaml:{l}"),
                _ => String::new(),
            };
            RuleView {
                number: i + 1,
                key: rule.key.clone(),
                value_path: if rule.value_path.is_empty() {
                    ".".to_owned()
                } else {
                    rule.value_path.clone()
                },
                crd_path: rule.crd_path.clone(),
                place,
                target,
                report: rule.clone(),
                cost: RuleCost::of(rule),
                errors: Vec::new(),
                explanations: Vec::new(),
                failing,
                samples,
            }
        })
        .collect();
    let mut rules = rules;
    for r in &mut rules {
        r.errors = rule_errors(analysis, report, r);
        r.explanations = report
            .cost
            .iter()
            .flat_map(|c| &c.expressions)
            .filter(|e| e.key == r.key)
            .filter_map(Explanation::of)
            .collect();
    }
    summary.rules = rules.len();
    summary.compile_errors = rules.iter().filter(|r| r.has_compile_error()).count();
    summary.over_limit = rules.iter().filter(|r| r.over_limit()).count();
    summary.failing = rules.iter().filter(|r| r.failing).count();
    let total = report.cost.as_ref().map(|c| CostTotal::of(c, &rules));
    CelView {
        versions,
        version,
        summary,
        total,
        rules,
    }
}
