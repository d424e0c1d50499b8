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

use crd_studio_engine::{
    Analysis, CelOutcome, CelRuleReport, CelRuleResult, ObjectReport, Severity, SourceId,
    VersionReport,
};
use crd_studio_engine::{
    BoundFix, BoundKind, CostDriver, CostReport, DriverRole, ExpressionCost, ExpressionKind, Fix,
    STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT,
};

use crate::stored_model::object_choices;
use crate::view_model::{FocusTarget, ProblemRow};

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

// ---------------------------------------------------------------------------------------
// Costs.

/// `n` with its digits in groups of three: `1,048,575`.
pub fn digits(n: u64) -> String {
    let plain = n.to_string();
    let mut out = String::with_capacity(plain.len() + plain.len() / 3);
    for (i, c) in plain.chars().enumerate() {
        if i > 0 && (plain.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// How many times `value` exceeds `limit`, worded as the server words it in "exceeds budget
/// by factor of …" (`getCostErrorMessage`): `more than 100x` above 100, six decimals below
/// 1.5 (`1.200000x`), else one (`3.3x`).
pub fn factor_text(value: u64, limit: u64) -> String {
    let factor = value as f64 / limit.max(1) as f64;
    if factor > 100.0 {
        "more than 100x".to_owned()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    }
}

/// A cost against one of the server's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    /// The estimated cost.
    pub value: u64,
    /// The limit it is checked against.
    pub limit: u64,
}

impl Share {
    /// Against the per-expression limit (10,000,000).
    pub fn of_rule_limit(value: u64) -> Share {
        Share {
            value,
            limit: STATIC_ESTIMATED_COST_LIMIT,
        }
    }

    /// Against the limit of a whole schema (100,000,000).
    pub fn of_total_limit(value: u64) -> Share {
        Share {
            value,
            limit: STATIC_ESTIMATED_CRD_COST_LIMIT,
        }
    }

    /// Whether the cost exceeds the limit (the server rejects the CRD).
    pub fn over(&self) -> bool {
        self.value > self.limit
    }

    /// The share in percent.
    pub fn percent(&self) -> f64 {
        self.value as f64 * 100.0 / self.limit.max(1) as f64
    }

    /// The width of the bar, in percent of its track (0–100).
    pub fn bar_width(&self) -> f64 {
        self.percent().clamp(0.0, 100.0)
    }

    /// `0%`, `<0.1%`, `2.5%`, `82.2%`, `100.0%`; over the limit, the server's factor:
    /// `factor of 3.3x`.
    pub fn text(&self) -> String {
        if self.over() {
            return format!("factor of {}", factor_text(self.value, self.limit));
        }
        let p = self.percent();
        if self.value == 0 {
            "0%".to_owned()
        } else if p < 0.1 {
            "<0.1%".to_owned()
        } else {
            format!("{p:.1}%")
        }
    }

    /// `12,345 of 10,000,000 (0.1%)`; over: `… (factor of 3.3x)`.
    pub fn long_text(&self) -> String {
        format!(
            "{} of {} ({})",
            digits(self.value),
            digits(self.limit),
            self.text()
        )
    }
}

/// How many times a rule runs in one request, as the server counts it for the estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cardinality {
    /// The product of the `maxItems`/`maxProperties` above the rule's node.
    Bounded(u64),
    /// A list or map above the rule's node has no bound: the server assumes as many values
    /// as fit in one request (`None`: not known).
    Unbounded {
        /// The size the server assumes.
        assumed: Option<u64>,
    },
}

impl Cardinality {
    /// `1`, `5,000`, `∞ (assumed 1,048,576)`.
    pub fn text(&self) -> String {
        match self {
            Cardinality::Bounded(n) => digits(*n),
            Cardinality::Unbounded { assumed: Some(n) } => format!("∞ (assumed {})", digits(*n)),
            Cardinality::Unbounded { assumed: None } => "∞".to_owned(),
        }
    }
}

/// A rule's estimated cost, as the CEL panel shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleCost {
    /// The estimated cost of one evaluation (`None`: not estimated, the rule did not compile).
    pub per_evaluation: Option<u64>,
    /// How many times the rule runs in one request.
    pub cardinality: Option<Cardinality>,
    /// The cost CRD validation checks against the per-rule limit: per evaluation ×
    /// cardinality (or × the assumed cardinality when it is unbounded).
    pub rule: Option<Share>,
    /// The estimated cost of the `messageExpression`, checked against the same limit.
    pub message_expression: Option<Share>,
}

impl RuleCost {
    /// The figures of one rule report.
    pub fn of(rule: &CelRuleReport) -> RuleCost {
        let per_evaluation = rule.max_cost;
        let cardinality = per_evaluation.map(|_| match rule.cardinality {
            Some(n) => Cardinality::Bounded(n),
            None => Cardinality::Unbounded {
                assumed: rule.max_cardinality,
            },
        });
        RuleCost {
            per_evaluation,
            cardinality,
            rule: rule
                .estimated_cost
                .filter(|_| per_evaluation.is_some())
                .map(Share::of_rule_limit),
            message_expression: rule.message_expression_max_cost.map(Share::of_rule_limit),
        }
    }

    /// The head of a rule card: `est. cost 12,345`, or `cost: —` without an estimate.
    pub fn head_text(&self) -> String {
        match &self.rule {
            Some(s) => format!("est. cost {}", digits(s.value)),
            None => "cost: —".to_owned(),
        }
    }

    /// How the estimate is made: `3 per evaluation × cardinality ∞ (assumed 1,048,576)`.
    pub fn formula_text(&self) -> Option<String> {
        let per = self.per_evaluation?;
        let card = self.cardinality?;
        Some(format!(
            "{} per evaluation × cardinality {}",
            digits(per),
            card.text()
        ))
    }
}

/// One of the CRD errors the server reports at a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    /// The rule's field it is at and the server's error type: `rule: Forbidden`.
    pub label: String,
    /// The server's detail (`estimated rule cost exceeds budget by factor of 3.3x (try …)`).
    pub detail: String,
    /// The whole message, as Problems lists it.
    pub message: String,
    /// Where it is in the CRD editor.
    pub target: Option<FocusTarget>,
}

/// The CRD errors at `rule` (at its `x-kubernetes-validations` entry or one of its fields,
/// as the version's `schema_path` writes the server's paths), but for the compile errors
/// the card shows with the rule.
fn rule_errors(analysis: &Analysis, version: &VersionReport, rule: &RuleView) -> Vec<RuleError> {
    let base = format!("{}.{}", version.schema_path, rule.key);
    let shown: Vec<&str> = [
        rule.rule_compile_error(),
        rule.message_expression_compile_error(),
    ]
    .into_iter()
    .flatten()
    .collect();
    // In the server's order (the findings are sorted by place).
    let server_order = |f: &&crd_studio_engine::Finding| {
        analysis
            .crd
            .errors
            .iter()
            .position(|e| {
                Some(e.field.as_str()) == f.field.as_deref() && Some(&e.detail) == f.detail.as_ref()
            })
            .unwrap_or(usize::MAX)
    };
    let mut findings: Vec<&crd_studio_engine::Finding> = analysis.findings.iter().collect();
    findings.sort_by_key(server_order);
    findings
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .filter(|f| f.location.is_none_or(|l| l.source == SourceId::Crd))
        .filter_map(|f| {
            let field = f.field.as_deref()?;
            let rest = field.strip_prefix(base.as_str())?;
            let sub = match rest {
                "" => "",
                r => r.strip_prefix('.')?,
            };
            let detail = f.detail.clone().unwrap_or_else(|| f.message.clone());
            if shown.contains(&detail.as_str()) {
                return None;
            }
            let kind = f.error_type.map(|t| t.text()).unwrap_or("error");
            let label = if sub.is_empty() {
                kind.to_owned()
            } else {
                format!("{sub}: {kind}")
            };
            Some(RuleError {
                label,
                detail,
                message: f.message.clone(),
                target: ProblemRow::from_finding(f).target,
            })
        })
        .collect()
}

/// The estimated cost of all the rules of a version, as CRD validation adds them up.
#[derive(Clone, Debug, PartialEq)]
pub struct CostTotal {
    /// The total against the limit for a schema (100,000,000).
    pub share: Share,
    /// The server's error detail when the total is over its limit.
    pub message: Option<String>,
    /// The expressions the server names when the total is over its limit, most expensive
    /// first.
    pub contributors: Vec<ContributorView>,
    /// Bounds that bring every expression and the total under their limits.
    pub fix: Option<FixView>,
    /// Why there is no fix although a limit is exceeded.
    pub fix_note: Option<String>,
}

/// One of the expressions the server names as the most expensive.
#[derive(Clone, Debug, PartialEq)]
pub struct ContributorView {
    /// The rule's number in the version (`None`: not in the list).
    pub rule: Option<usize>,
    /// Where the rule's values are (`.spec.items[*]`), and `messageExpression` for one.
    pub label: String,
    /// The expression's estimated cost.
    pub cost: u64,
    /// The rule in the CRD editor.
    pub target: Option<FocusTarget>,
}

impl CostTotal {
    /// The total of the engine's cost report, its contributors tied to the listed rules.
    pub fn of(report: &CostReport, rules: &[RuleView]) -> CostTotal {
        let contributors = report
            .top_contributors
            .iter()
            .map(|c| {
                let (key, kind) = match c.field.rsplit_once('.') {
                    Some((key, "messageExpression")) => (key, ExpressionKind::MessageExpression),
                    Some((key, _)) => (key, ExpressionKind::Rule),
                    None => (c.field.as_str(), ExpressionKind::Rule),
                };
                let rule = rules.iter().find(|r| r.key == key);
                let mut label = rule.map_or_else(|| c.field.clone(), |r| r.value_path.clone());
                if kind == ExpressionKind::MessageExpression {
                    label.push_str(" messageExpression");
                }
                ContributorView {
                    rule: rule.map(|r| r.number),
                    label,
                    cost: c.cost,
                    target: rule.and_then(|r| r.target),
                }
            })
            .collect();
        CostTotal {
            share: Share {
                value: report.total,
                limit: report.total_limit,
            },
            message: report.total_message.clone(),
            contributors,
            fix: report
                .fix
                .as_ref()
                .map(|f| FixView::of(f, Share::of_total_limit(f.cost), &report_drivers(report))),
            fix_note: report.fix_note.clone(),
        }
    }
}

/// Every driver of a report (to name the nodes a fix bounds).
fn report_drivers(report: &CostReport) -> Vec<&CostDriver> {
    report.expressions.iter().flat_map(|e| &e.drivers).collect()
}

/// Where a schema node's values are, for the panel: `.spec.items`, `.` for the root.
fn shown_value_path(value_path: &str) -> String {
    if value_path.is_empty() {
        ".".to_owned()
    } else {
        value_path.to_owned()
    }
}

/// A text edit as the panel applies it: bytes `start..end` of the analysed CRD text replaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// First byte replaced.
    pub start: usize,
    /// After the last byte replaced.
    pub end: usize,
    /// The new text.
    pub text: String,
}

/// A bound to write into the schema, as the panel offers it.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundView {
    /// `maxItems: 20`.
    pub setting: String,
    /// The node's values (`.spec.names`).
    pub value_path: String,
    /// For a bound that is enough alone: the largest value that still fits.
    pub largest: Option<u64>,
    /// The edit that writes it (`None`: not offered, e.g. a node reached through an alias).
    pub edit: Option<Edit>,
    /// The schema node in the CRD editor.
    pub target: Option<FocusTarget>,
}

impl BoundView {
    fn of(b: &BoundFix, drivers: &[&CostDriver]) -> BoundView {
        let driver = drivers.iter().find(|d| d.path == b.path);
        BoundView {
            setting: format!("{}: {}", b.bound.keyword(), b.value),
            value_path: driver
                .map_or_else(|| b.crd_path.clone(), |d| shown_value_path(&d.value_path)),
            largest: b.largest,
            edit: b.edit.as_ref().map(|e| Edit {
                start: e.start,
                end: e.end,
                text: e.text.clone(),
            }),
            target: driver.and_then(|d| d.location).and_then(FocusTarget::at),
        }
    }
}

/// Bounds that together bring a cost under its limit, and the cost they give.
#[derive(Clone, Debug, PartialEq)]
pub struct FixView {
    /// The bounds.
    pub bounds: Vec<BoundView>,
    /// The re-estimated cost against its limit.
    pub cost: Share,
}

impl FixView {
    fn of(f: &Fix, cost: Share, drivers: &[&CostDriver]) -> FixView {
        FixView {
            bounds: f.bounds.iter().map(|b| BoundView::of(b, drivers)).collect(),
            cost,
        }
    }

    /// Every bound's edit, when each bound has one (one click applies them all).
    pub fn edits(&self) -> Option<Vec<Edit>> {
        self.bounds.iter().map(|b| b.edit.clone()).collect()
    }

    /// `add maxItems: 5000 to .spec.names and maxLength: 4096 to .spec.names[*]`.
    pub fn text(&self) -> String {
        let parts: Vec<String> = self
            .bounds
            .iter()
            .map(|b| format!("{} to {}", b.setting, b.value_path))
            .collect();
        let joined = match parts.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => parts.join(""),
        };
        format!("add {joined}")
    }

    /// `→ cost 12,345 (0.1%)`.
    pub fn result_text(&self, what: &str) -> String {
        format!(
            "→ {what} {} ({})",
            digits(self.cost.value),
            self.cost.text()
        )
    }
}

/// A schema node that drives an expression's cost.
#[derive(Clone, Debug, PartialEq)]
pub struct DriverView {
    /// The node's values (`.spec.names`, `.` for the root).
    pub value_path: String,
    /// `unbounded list, assumed 1,048,575 items`, `list with maxItems: 5000`.
    pub size: String,
    /// How it drives the cost: `each item runs the rule` (above the rule's node) or `read by
    /// the rule` (inside `self`).
    pub role: String,
    /// The schema node in the CRD editor.
    pub target: Option<FocusTarget>,
    /// A bound on this node alone that brings the expression under its limit.
    pub fix: Option<BoundView>,
}

/// `unbounded list, assumed 1,048,575 items`; `list with maxItems: 5000`; `unbounded string,
/// assumed size 3,145,726`; `string with maxLength: 64, assumed size 256` (the estimator's
/// size of a string: 4 per character).
pub fn driver_size_text(bound: BoundKind, current: Option<u64>, assumed: u64) -> String {
    let noun = bound.noun();
    match current {
        Some(n) if n == assumed => format!("{noun} with {}: {n}", bound.keyword()),
        Some(n) => format!(
            "{noun} with {}: {n}, assumed size {}",
            bound.keyword(),
            digits(assumed)
        ),
        None => match bound {
            BoundKind::MaxItems => format!("unbounded {noun}, assumed {} items", digits(assumed)),
            BoundKind::MaxProperties => {
                format!("unbounded {noun}, assumed {} entries", digits(assumed))
            }
            BoundKind::MaxLength => format!("unbounded {noun}, assumed size {}", digits(assumed)),
        },
    }
}

/// What drives one expression's cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// The rule or its `messageExpression`.
    pub kind: ExpressionKind,
    /// Whether the expression's cost is over its limit.
    pub over: bool,
    /// The nodes that drive the cost, the biggest lever first.
    pub drivers: Vec<DriverView>,
    /// The bounds the engine suggests (over the limit only).
    pub suggestion: Option<FixView>,
    /// Why there is no suggestion although the cost is over the limit.
    pub note: Option<String>,
}

impl Explanation {
    /// The explanation of one expression of the engine's report (`None`: nothing to say).
    pub fn of(e: &ExpressionCost) -> Option<Explanation> {
        if e.drivers.is_empty() && e.suggestion.is_none() && e.note.is_none() {
            return None;
        }
        let drivers: Vec<&CostDriver> = e.drivers.iter().collect();
        let runs = match e.kind {
            ExpressionKind::Rule => "the rule",
            ExpressionKind::MessageExpression => "the messageExpression",
        };
        Some(Explanation {
            kind: e.kind,
            over: e.over_limit,
            drivers: e
                .drivers
                .iter()
                .map(|d| DriverView {
                    value_path: shown_value_path(&d.value_path),
                    size: driver_size_text(d.bound, d.current, d.assumed_size),
                    role: match (d.role, d.bound) {
                        (DriverRole::Cardinality, BoundKind::MaxProperties) => {
                            format!("each entry runs {runs}")
                        }
                        (DriverRole::Cardinality, _) => format!("each item runs {runs}"),
                        (DriverRole::InSelf, _) => format!("read by {runs}"),
                    },
                    target: d.location.and_then(FocusTarget::at),
                    fix: d.fix.as_ref().map(|b| BoundView::of(b, &drivers)),
                })
                .collect(),
            suggestion: e
                .suggestion
                .as_ref()
                .map(|f| FixView::of(f, Share::of_rule_limit(f.cost), &drivers)),
            note: e.note.clone(),
        })
    }
}

/// The order the rules are listed in: the engine's, or by estimated cost, most expensive
/// first (rules without an estimate last; ties keep the engine's order). Indices into
/// `rules`.
pub fn rule_order(rules: &[RuleView], by_cost: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rules.len()).collect();
    if by_cost {
        order.sort_by_key(|&i| std::cmp::Reverse(rules.get(i).and_then(RuleView::sort_cost)));
    }
    order
}

/// Applies text edits (byte ranges of `text` replaced by new text, as the engine suggests
/// them) to `text`. `None` when a range is not in the text, does not fall on character
/// boundaries, or overlaps another.
pub fn apply_edits(text: &str, edits: &[(usize, usize, &str)]) -> Option<String> {
    let mut sorted: Vec<&(usize, usize, &str)> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.0, e.1));
    let mut out =
        String::with_capacity(text.len() + edits.iter().map(|e| e.2.len()).sum::<usize>());
    let mut at = 0;
    for &&(start, end, new) in &sorted {
        if start < at || end < start {
            return None;
        }
        out.push_str(text.get(at..start)?);
        text.get(start..end)?;
        out.push_str(new);
        at = end;
    }
    out.push_str(text.get(at..)?);
    Some(out)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view_model::Pane;
    use crate::view_model::{EXAMPLE_CRD, EXAMPLE_OBJECT};
    use crd_studio_engine::{analyze, Location, Pos, Request, Span};
    use crd_studio_engine::{FieldPlace, ObjectPlaces};

    /// A rule iterating an unbounded list of unbounded strings, and a cheap one.
    const OVER_BUDGET_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
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
              names:
                type: array
                items:
                  type: string
                x-kubernetes-validations:
                - rule: \"self.all(x, x.matches('^a+$'))\"
                  message: every name is made of a
              replicas:
                type: integer
                x-kubernetes-validations:
                - rule: self >= 0
";
    const OVER_BUDGET_OBJECT: &str =
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  names: [aa, aaa]\n  replicas: 2\n";

    fn run(crd: &str, object: &str, old: Option<&str>) -> Analysis {
        analyze(&Request {
            crd: crd.to_owned(),
            objects: vec![object.to_owned()],
            old_object: old.map(str::to_owned),
            ..Request::default()
        })
    }

    fn result(path: &str, outcome: CelOutcome, cost: u64) -> CelRuleResult {
        CelRuleResult {
            rule: "properties[spec].properties[items].items.x-kubernetes-validations[0]".to_owned(),
            version: "v1".to_owned(),
            path: path.to_owned(),
            outcome,
            message: (outcome == CelOutcome::Failed)
                .then(|| format!("{path}: Invalid value: \"object\": too big")),
            detail: (outcome == CelOutcome::Skipped).then(|| "no old value".to_owned()),
            cost,
        }
    }

    #[test]
    fn evaluations_are_grouped_by_outcome_and_summarised() {
        let results = [
            result("spec.items[0]", CelOutcome::Passed, 2),
            result("spec.items[1]", CelOutcome::Passed, 3),
            result("spec.items[2]", CelOutcome::Failed, 4),
            result("spec.items[3]", CelOutcome::Passed, 2),
        ];
        let groups = group_results(&results, |p| {
            Some(FocusTarget {
                pane: Pane::Object,
                line: p.len(),
                utf16_column: 1,
            })
        });
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].outcome, CelOutcome::Passed);
        assert_eq!(groups[0].evaluations.len(), 3);
        assert_eq!(groups[0].cost_range(), (2, 3));
        assert_eq!(groups[0].cost_text(), "cost 2–3 each");
        assert_eq!(groups[1].cost_text(), "cost 4");
        assert_eq!(
            groups[1].evaluations[0].message.as_deref(),
            Some("spec.items[2]: Invalid value: \"object\": too big")
        );
        assert_eq!(groups[1].evaluations[0].target.map(|t| t.line), Some(13));
        assert_eq!(
            outcome_summary(&groups),
            "3 × passed, 1 × failed at spec.items[2]"
        );

        // Many failures: a few named, the rest counted; skipped grouped by reason.
        let mut many: Vec<CelRuleResult> = (0..5)
            .map(|i| result(&format!("spec.items[{i}]"), CelOutcome::Failed, 1))
            .collect();
        many.push(result("spec.a", CelOutcome::Skipped, 0));
        let mut other = result("spec.b", CelOutcome::Skipped, 0);
        other.detail = Some("gated".to_owned());
        many.push(other);
        let groups = group_results(&many, |_| None);
        assert_eq!(
            outcome_summary(&groups),
            "5 × failed at spec.items[0], spec.items[1], spec.items[2] (+2 more), \
             1 × skipped at spec.a, 1 × skipped at spec.b"
        );
        assert_eq!(groups[0].cost_text(), "cost 1 each");
        assert_eq!(outcome_summary(&[]), "");
        // The same failure text on every item is shown once; a skip reason stays.
        assert!(groups[0].same_message());
        assert!(!groups[1].same_message());
        assert_eq!(groups[1].shown_detail(), Some("no old value"));
        let mut g = groups[0].clone();
        g.evaluations[1].message =
            Some("spec.items[1]: Invalid value: \"object\": other".to_owned());
        assert!(!g.same_message());
        g.detail = Some("Invalid value".to_owned());
        assert_eq!(g.shown_detail(), None);
        g.evaluations.truncate(1);
        assert!(!g.same_message());
    }

    #[test]
    fn summary_line() {
        let s = Summary {
            rules: 3,
            compile_errors: 1,
            over_limit: 0,
            failing: 2,
            samples: 1,
            runtime_cost: 7,
        };
        assert_eq!(
            s.text(),
            "3 rules · 1 compile error · 2 failing on the sample"
        );
        let s = Summary {
            rules: 1,
            compile_errors: 0,
            over_limit: 0,
            failing: 0,
            samples: 2,
            runtime_cost: 0,
        };
        assert_eq!(
            s.text(),
            "1 rule · 0 compile errors · 0 failing on the samples"
        );
        let s = Summary { over_limit: 2, ..s };
        assert_eq!(
            s.text(),
            "1 rule · 0 compile errors · 0 failing on the samples · 2 over the cost limit"
        );
    }

    #[test]
    fn digit_groups() {
        assert_eq!(digits(0), "0");
        assert_eq!(digits(999), "999");
        assert_eq!(digits(1000), "1,000");
        assert_eq!(digits(1_048_575), "1,048,575");
        assert_eq!(digits(100_000_000), "100,000,000");
        assert_eq!(digits(u64::MAX), "18,446,744,073,709,551,615");
    }

    /// The factor reads as the server's message writes it, on both sides of each branch.
    #[test]
    fn factors_as_the_server_words_them() {
        use crd_studio_engine::cost_error_message;
        let limit = STATIC_ESTIMATED_COST_LIMIT;
        for value in [
            10_000_001,
            12_000_000,
            14_999_999,
            15_000_000,
            15_000_001,
            33_333_333,
            999_999_999,
            1_000_000_000,
            1_000_000_001,
            u64::MAX,
        ] {
            let server = cost_error_message("estimated rule cost", value, limit);
            let ours = format!(
                "exceeds budget by factor of {} (",
                factor_text(value, limit)
            );
            assert!(server.contains(&ours), "{value}: {server} / {ours}");
        }
        assert_eq!(factor_text(12_000_000, limit), "1.200000x");
        assert_eq!(factor_text(33_000_000, limit), "3.3x");
        assert_eq!(factor_text(1_000_000_001, limit), "more than 100x");
    }

    #[test]
    fn shares_and_bars() {
        let s = |v| Share::of_rule_limit(v);
        assert_eq!(s(0).text(), "0%");
        assert_eq!(s(3).text(), "<0.1%");
        assert_eq!(s(12_345).text(), "0.1%");
        assert_eq!(s(250_000).text(), "2.5%");
        assert_eq!(s(8_215_002).text(), "82.2%");
        assert_eq!(s(10_000_000).text(), "100.0%");
        assert!(!s(10_000_000).over());
        assert!(s(10_000_001).over());
        assert_eq!(s(10_000_001).text(), "factor of 1.000000x");
        assert_eq!(s(33_000_000).text(), "factor of 3.3x");
        assert_eq!(s(12_345).long_text(), "12,345 of 10,000,000 (0.1%)");
        assert_eq!(s(0).bar_width(), 0.0);
        assert_eq!(s(2_500_000).bar_width(), 25.0);
        assert_eq!(s(u64::MAX).bar_width(), 100.0);
        let t = Share::of_total_limit(50_000_000);
        assert_eq!(t.limit, 100_000_000);
        assert_eq!(t.text(), "50.0%");
        assert_eq!(
            Share::of_total_limit(329_857_577_779).long_text(),
            "329,857,577,779 of 100,000,000 (factor of more than 100x)"
        );
    }

    #[test]
    fn rule_cost_figures() {
        let mut r = CelRuleReport::default();
        let c = RuleCost::of(&r);
        assert_eq!(c.head_text(), "cost: —");
        assert_eq!(c.formula_text(), None);
        assert_eq!(c.cardinality, None);
        r.max_cost = Some(12);
        r.cardinality = Some(5_000);
        r.estimated_cost = Some(60_000);
        r.max_cardinality = Some(1_048_576);
        let c = RuleCost::of(&r);
        assert_eq!(c.head_text(), "est. cost 60,000");
        assert_eq!(
            c.formula_text().as_deref(),
            Some("12 per evaluation × cardinality 5,000")
        );
        assert_eq!(c.rule.map(|s| s.text()).as_deref(), Some("0.6%"));
        r.cardinality = None;
        r.estimated_cost = Some(12 * 1_048_576);
        r.message_expression_max_cost = Some(7);
        let c = RuleCost::of(&r);
        assert_eq!(
            c.formula_text().as_deref(),
            Some("12 per evaluation × cardinality ∞ (assumed 1,048,576)")
        );
        assert!(c.rule.unwrap().over());
        assert_eq!(c.message_expression, Some(Share::of_rule_limit(7)));
        assert_eq!(Cardinality::Unbounded { assumed: None }.text(), "∞");
        assert_eq!(Cardinality::Bounded(1).text(), "1");
    }

    #[test]
    fn driver_sizes() {
        assert_eq!(
            driver_size_text(BoundKind::MaxItems, None, 1_048_575),
            "unbounded list, assumed 1,048,575 items"
        );
        assert_eq!(
            driver_size_text(BoundKind::MaxProperties, None, 393_215),
            "unbounded map, assumed 393,215 entries"
        );
        assert_eq!(
            driver_size_text(BoundKind::MaxLength, None, 3_145_726),
            "unbounded string, assumed size 3,145,726"
        );
        assert_eq!(
            driver_size_text(BoundKind::MaxItems, Some(5000), 5000),
            "list with maxItems: 5000"
        );
        assert_eq!(
            driver_size_text(BoundKind::MaxLength, Some(64), 256),
            "string with maxLength: 64, assumed size 256"
        );
    }

    #[test]
    fn edits_are_applied_only_where_they_fit() {
        let text = "a: 1\nb: é\n";
        assert_eq!(
            apply_edits(text, &[(5, 5, "x: 0\n")]).as_deref(),
            Some("a: 1\nx: 0\nb: é\n")
        );
        // Several, given in any order; a replacement.
        assert_eq!(
            apply_edits(text, &[(11, 11, "c: 2\n"), (0, 1, "A")]).as_deref(),
            Some("A: 1\nb: é\nc: 2\n")
        );
        assert_eq!(apply_edits(text, &[]).as_deref(), Some(text));
        // Out of range, inside a character, backwards, overlapping: nothing.
        assert_eq!(apply_edits(text, &[(99, 99, "x")]), None);
        assert_eq!(apply_edits(text, &[(9, 9, "x")]), None);
        assert_eq!(apply_edits(text, &[(3, 2, "x")]), None);
        assert_eq!(apply_edits(text, &[(0, 3, "x"), (2, 4, "y")]), None);
    }

    /// A rule iterating an unbounded list of unbounded strings: the server's cost errors at
    /// the rule are on its card (not as a compile error), and the total is over its limit.
    #[test]
    fn an_over_budget_rule_shows_the_servers_error() {
        let a = run(OVER_BUDGET_CRD, OVER_BUDGET_OBJECT, None);
        assert!(!a.crd.accepted);
        let view = cel_view(&a, None);
        assert_eq!(view.rules.len(), 2);
        let r = &view.rules[0];
        assert!(!r.has_compile_error(), "{r:#?}");
        assert!(r.over_limit());
        let share = r.cost.rule.unwrap();
        assert!(share.over());
        assert_eq!(share.text(), "factor of more than 100x");
        // In the server's order: the rule's own budget, then its part in the total's.
        let messages: Vec<&str> = r.errors.iter().map(|e| e.detail.as_str()).collect();
        assert_eq!(messages.len(), 2, "{messages:#?}");
        assert!(
            messages[0]
                .starts_with("estimated rule cost exceeds budget by factor of more than 100x (try"),
            "{messages:#?}"
        );
        assert_eq!(
            messages[1],
            "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
        );
        assert!(r.errors.iter().all(|e| e.label == "rule: Forbidden"));
        // The error points at the rule in the CRD.
        let line = r.errors[0].target.unwrap().line;
        assert!(OVER_BUDGET_CRD
            .lines()
            .nth(line - 1)
            .unwrap()
            .contains("rule:"));
        // The cheap rule has no error.
        assert!(view.rules[1].errors.is_empty());
        assert!(!view.rules[1].over_limit());
        assert_eq!(
            view.summary.text(),
            "2 rules · 0 compile errors · 0 failing on the sample · 1 over the cost limit"
        );
        let total = view.total.unwrap();
        assert!(total.share.over());
        assert!(total.share.value >= share.value);
        assert!(total
            .message
            .as_deref()
            .unwrap()
            .starts_with("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x"));
        // The server names the rule among the most expensive.
        assert_eq!(total.contributors.len(), 1);
        assert_eq!(total.contributors[0].rule, Some(1));
        assert_eq!(total.contributors[0].label, ".spec.names");
        assert_eq!(total.contributors[0].cost, share.value);
        assert_eq!(total.contributors[0].target, r.target);
        // Sorted by cost, the expensive rule comes first either way; the cheap one after.
        assert_eq!(rule_order(&view.rules, true), vec![0, 1]);
        assert_eq!(tab_badge(&a), (2, true));

        // The explanation: the list and its strings, unbounded, drive the cost; each node
        // is located at its schema in the CRD.
        let x = &r.explanations[0];
        assert_eq!(x.kind, ExpressionKind::Rule);
        assert!(x.over);
        let list = x
            .drivers
            .iter()
            .find(|d| d.value_path == ".spec.names")
            .unwrap();
        assert_eq!(list.size, "unbounded list, assumed 1,048,575 items");
        assert_eq!(list.role, "read by the rule");
        // (At the node's key.)
        let line = list.target.unwrap().line;
        assert_eq!(
            OVER_BUDGET_CRD.lines().nth(line - 1).unwrap().trim(),
            "names:"
        );
        let strings = x
            .drivers
            .iter()
            .find(|d| d.value_path == ".spec.names[*]")
            .unwrap();
        assert!(
            strings.size.starts_with("unbounded string, assumed size "),
            "{strings:?}"
        );
        // The suggestion brings the rule under its limit; applying it makes the CRD accepted
        // with the cost the engine promised.
        let fix = x.suggestion.as_ref().unwrap();
        assert!(!fix.cost.over());
        assert!(fix.text().starts_with("add max"), "{}", fix.text());
        assert!(fix.result_text("cost").starts_with("→ cost "));
        let edits = fix.edits().unwrap();
        let edits: Vec<(usize, usize, &str)> = edits
            .iter()
            .map(|e| (e.start, e.end, e.text.as_str()))
            .collect();
        let fixed = apply_edits(OVER_BUDGET_CRD, &edits).unwrap();
        let a = run(&fixed, OVER_BUDGET_OBJECT, None);
        assert!(a.crd.accepted, "{fixed}\n{:#?}", a.findings);
        let view = cel_view(&a, None);
        assert_eq!(view.rules[0].cost.rule, Some(fix.cost));
        assert!(view.rules[0].errors.is_empty());
        assert_eq!(view.summary.over_limit, 0);
        // A bound alone that is enough is offered too.
        let alone = x.drivers.iter().find_map(|d| d.fix.as_ref()).unwrap();
        let e = alone.edit.clone().unwrap();
        let fixed = apply_edits(OVER_BUDGET_CRD, &[(e.start, e.end, e.text.as_str())]).unwrap();
        let a = run(&fixed, OVER_BUDGET_OBJECT, None);
        assert!(a.crd.accepted, "{fixed}\n{:#?}", a.findings);
        // The fix of the total, the same way.
        let total_fix = total.fix.as_ref().unwrap();
        assert!(!total_fix.cost.over());

        // Bounded, the rule is accepted and cheap.
        let bounded = OVER_BUDGET_CRD
            .replace(
                "type: array\n",
                "type: array\n                maxItems: 20\n",
            )
            .replace(
                "type: string\n",
                "type: string\n                  maxLength: 10\n",
            );
        let a = run(&bounded, OVER_BUDGET_OBJECT, None);
        assert!(a.crd.accepted, "{:#?}", a.findings);
        let view = cel_view(&a, None);
        let r = &view.rules[0];
        assert!(r.errors.is_empty());
        assert!(!r.cost.rule.unwrap().over());
        assert!(!view.total.unwrap().share.over());
    }

    #[test]
    fn rules_sort_by_cost() {
        let rule = |cost: Option<u64>, message: Option<u64>| {
            let report = CelRuleReport {
                max_cost: cost,
                estimated_cost: cost,
                cardinality: Some(1),
                message_expression_max_cost: message,
                ..CelRuleReport::default()
            };
            RuleView {
                number: 0,
                key: String::new(),
                value_path: String::new(),
                crd_path: String::new(),
                place: String::new(),
                target: None,
                cost: RuleCost::of(&report),
                report,
                errors: Vec::new(),
                explanations: Vec::new(),
                failing: false,
                samples: Vec::new(),
            }
        };
        let rules = [
            rule(None, None),
            rule(Some(5), None),
            rule(Some(50), None),
            rule(Some(5), None),
            rule(Some(1), Some(70)),
        ];
        assert_eq!(rule_order(&rules, false), vec![0, 1, 2, 3, 4]);
        assert_eq!(rule_order(&rules, true), vec![4, 2, 1, 3, 0]);
    }

    /// A hand-made analysis: two rules, one failing on list items, one that does not compile.
    #[test]
    fn view_of_a_hand_made_analysis() {
        let at = |source, line, column, utf16_column| Location {
            source,
            document: 0,
            span: Span::point(Pos {
                offset: 0,
                line,
                column,
                utf16_column,
            }),
        };
        let mut a = Analysis::default();
        a.versions.push(crd_studio_engine::VersionReport {
            name: "v1".to_owned(),
            served: true,
            storage: true,
            has_schema: true,
            rules: vec![
                CelRuleReport {
                    key: "properties[spec].properties[items].items.x-kubernetes-validations[0]"
                        .to_owned(),
                    value_path: ".spec.items[*]".to_owned(),
                    rule: "self < 10".to_owned(),
                    line: Some(3),
                    column: Some(9),
                    text_range: Some((21, 30)),
                    // Line 3 of the CRD text starts with a two-unit character.
                    location: Some(at(SourceId::Crd, 3, 9, 10)),
                    ..CelRuleReport::default()
                },
                CelRuleReport {
                    key: "x-kubernetes-validations[0]".to_owned(),
                    rule: "self.nope".to_owned(),
                    compile_error: Some("compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope\n | ....^".to_owned()),
                    ..CelRuleReport::default()
                },
            ],
            ..Default::default()
        });
        a.objects.push(ObjectReport {
            source: 0,
            document: 0,
            operation: "create".to_owned(),
            api_version: "example.com/v1".to_owned(),
            kind: "Foo".to_owned(),
            name: "a".to_owned(),
            cel_runtime_cost: 6,
            cel_results: vec![
                result("spec.items[0]", CelOutcome::Passed, 3),
                result("spec.items[1]", CelOutcome::Failed, 3),
            ],
            places: ObjectPlaces {
                values: vec![FieldPlace {
                    path: "spec.items[1]".to_owned(),
                    location: at(SourceId::Object(0), 8, 5, 5),
                    exact: true,
                }],
                ..ObjectPlaces::default()
            },
            ..ObjectReport::default()
        });
        let view = cel_view(&a, None);
        assert_eq!(view.version, Some(0));
        assert_eq!(
            view.summary.text(),
            "2 rules · 1 compile error · 1 failing on the sample"
        );
        assert_eq!(view.summary.runtime_cost, 6);
        let r = &view.rules[0];
        assert_eq!(r.number, 1);
        assert_eq!(r.value_path, ".spec.items[*]");
        assert_eq!(r.place, "crd.yaml:3:9");
        assert_eq!(
            r.target,
            Some(FocusTarget {
                pane: Pane::Crd,
                line: 3,
                utf16_column: 10,
            })
        );
        assert_eq!(r.cost.head_text(), "cost: —");
        assert!(r.failing);
        let s = &r.samples[0];
        assert_eq!(s.object, "Foo a");
        assert_eq!(s.summary, "1 × passed, 1 × failed at spec.items[1]");
        // The failing item is where the engine found it.
        let failed = &s.groups[1].evaluations[0];
        assert_eq!(
            failed.target,
            Some(FocusTarget {
                pane: Pane::Object,
                line: 8,
                utf16_column: 5,
            })
        );
        let r = &view.rules[1];
        assert!(r.has_compile_error());
        assert!(!r.failing);
        assert_eq!(r.value_path, ".");
        assert_eq!(r.target, None);
        assert_eq!(
            r.samples[0].note.as_deref(),
            Some("not run: the object has no value at .")
        );

        assert_eq!(tab_badge(&a), (2, true));
        // A version the object is not in.
        a.versions.push(crd_studio_engine::VersionReport {
            name: "v2".to_owned(),
            rules: vec![CelRuleReport::default()],
            ..Default::default()
        });
        let v2 = cel_view(&a, Some(1));
        assert_eq!(v2.version, Some(1));
        assert_eq!(
            v2.rules[0].samples[0].note.as_deref(),
            Some("not run: the object is v1, not v2")
        );
        assert_eq!(v2.versions.len(), 2);
        assert_eq!(v2.versions[1].rules, 1);
        // Out of range: back to the default.
        assert_eq!(cel_view(&a, Some(9)).version, Some(0));
    }

    #[test]
    fn the_example_has_rules_that_run_on_the_sample() {
        let a = run(EXAMPLE_CRD, EXAMPLE_OBJECT, None);
        let view = cel_view(&a, None);
        assert!(view.rules.len() >= 2, "{view:#?}");
        assert_eq!(view.summary.compile_errors, 0, "{view:#?}");
        assert_eq!(view.summary.failing, 0, "{view:#?}");
        assert_eq!(tab_badge(&a), (view.rules.len(), false));
        assert!(view.rules.iter().any(|r| r.report.transition));
        // Every rule is located in the CRD, and its place is its scalar.
        for r in &view.rules {
            let (start, end) = r.report.text_range.unwrap();
            let t = r.target.unwrap();
            let at = r.report.location.unwrap().span.start;
            assert_eq!(at.offset, start);
            assert_eq!((t.line, t.utf16_column), (at.line, at.utf16_column));
            assert!(EXAMPLE_CRD[start..end].contains(r.report.rule.as_str()));
        }
        // A transition rule is skipped on create, runs on update.
        let transition = view.rules.iter().find(|r| r.report.transition).unwrap();
        assert_eq!(transition.samples[0].groups[0].outcome, CelOutcome::Skipped);
        let a = run(EXAMPLE_CRD, EXAMPLE_OBJECT, Some(EXAMPLE_OBJECT));
        let view = cel_view(&a, None);
        let transition = view.rules.iter().find(|r| r.report.transition).unwrap();
        assert_eq!(transition.samples[0].operation, "update");
        assert_eq!(transition.samples[0].summary, "1 × passed");
        let target = transition.samples[0].groups[0].evaluations[0]
            .target
            .unwrap();
        let line = EXAMPLE_OBJECT.lines().nth(target.line - 1).unwrap();
        assert!(line.trim_start().starts_with("image:"), "{line}");
    }
}
