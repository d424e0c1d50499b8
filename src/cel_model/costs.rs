//! The CEL tab's cost figures: digit groups, shares of the server's limits, the server's
//! "factor of" wording, the CRD errors at a rule, what drives a cost and which bounds fix it,
//! and [`apply_edits`] for the bounds' text edits.

use crd_studio_engine::{Analysis, CelRuleReport, Severity, SourceId, VersionReport};
use crd_studio_engine::{
    BoundFix, BoundKind, CostDriver, CostReport, DriverRole, ExpressionCost, ExpressionKind, Fix,
    STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT,
};

use super::RuleView;
use crate::view_model::{FocusTarget, ProblemRow};

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
pub(super) fn rule_errors(
    analysis: &Analysis,
    version: &VersionReport,
    rule: &RuleView,
) -> Vec<RuleError> {
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
    crd_studio_gostd::sort::stable_by_key(&mut findings, server_order);
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

/// Applies text edits (byte ranges of `text` replaced by new text, as the engine suggests
/// them) to `text`. `None` when a range is not in the text, does not fall on character
/// boundaries, or overlaps another.
pub fn apply_edits(text: &str, edits: &[(usize, usize, &str)]) -> Option<String> {
    let mut sorted: Vec<&(usize, usize, &str)> = edits.iter().collect();
    crd_studio_gostd::sort::stable_by_key(&mut sorted, |e| (e.0, e.1));
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
