//! CEL cost the user can act on: for every `x-kubernetes-validations` expression of a
//! version's schema, the estimated cost as CRD validation checks it, what drives it, and the
//! bounds that would bring it under the limits.
//!
//! The figures are the server's (`validation.go`, `cel_validation.go`; cel-notes C.4):
//!
//! * a rule costs `MaxCost × cardinality`, where the cardinality is the product of the
//!   `maxItems`/`maxProperties` of the lists and maps above the rule's node, or, when one of
//!   them has none, `MaxCardinality` (how many values of the node fit in a 3 MiB request);
//!   it must not exceed 10,000,000 ([`STATIC_ESTIMATED_COST_LIMIT`]);
//! * a `messageExpression` costs its `MaxCost`, with the same limit;
//! * all of them add up to the schema's total, which must not exceed 100,000,000
//!   ([`STATIC_ESTIMATED_CRD_COST_LIMIT`]); the server names the four most expensive
//!   expressions of at least 1% of that limit.
//!
//! **Drivers.** An expression is explained (when it costs at least [`EXPLAIN_THRESHOLD`]) by the
//! schema nodes whose sizes its cost depends on:
//! * [`DriverRole::Cardinality`]: the lists and maps above a rule's node (each multiplies the
//!   cardinality; one without a bound makes it unbounded);
//! * [`DriverRole::InSelf`]: the lists, maps and strings inside `self` that the expression
//!   iterates or reads, found from the paths the cost estimator followed (cel-go's
//!   `checker/cost.go`), kept when bounding them actually lowers the estimate.
//!
//! Each driver has its place in the schema and in the CRD text, its current bound, and the size
//! the estimator assumes (its `MaxElements`: the bound, or what fits in 3 MiB given the
//! minimum JSON size of an element; a string's size is 4 bytes per allowed character, or
//! 3,145,726 without `maxLength`).
//!
//! **Suggestions** (only for costs over a limit). Bounds are found by adding them to a copy
//! of the schema and estimating again through the same [`RuleCompiler`] (no formula of ours):
//! the rules of the node are compiled on their own (their type depends only on the node's
//! subtree), and bounds above the node change only its cardinality (no bound changes a
//! `MinSerializedSize`, so `MaxCardinality` stays as CRD validation found it); a test checks
//! that this gives CRD validation's figures for every rule of the corpus.
//!
//! * One bound: the largest *round* value that fits (1, 2, 5 × 10ⁿ and the powers of two from
//!   16 to 4096, plus the smallest value the schema allows), and by bisection the largest
//!   value that fits at all (shown, not suggested).
//! * Several bounds together, when no single one is enough or a single one would be tighter
//!   than needed: the largest round level that fits for all of them, then each node left as
//!   it is where that still fits, then each bound raised as far as it still fits.
//! * "Fits" means: the expression within its limit, and no other limit that held broken (a
//!   large bound on two nested lists can cost more than the request-size estimate used while
//!   one of them is unbounded).
//! * The whole schema ([`CostReport::fix`]): every expression and the total within their
//!   limits, starting from the expressions' own suggestions together (each brought to a fair
//!   share of the total's limit when together they exceed it).
//! * A bound is never set below the schema's `minItems`/`minProperties`/`minLength` or the
//!   size of the node's `default`; each comes with the text edit that writes it into the CRD
//!   text ([`bound_edit`]).
//! * The searches share a budget of [`MAX_ESTIMATES`] re-estimates per schema (a note says
//!   when it ran out), so a CRD with very many costly rules stays quick to analyse.

use std::cell::RefCell;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::cel::report::{rule_key, CelRuleReport, VersionReport};
use crate::crd::apiext::schema_validation::{
    cost_error_message, TotalCost, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT,
};
use crate::crd::apiext::{CelCompilation, CelCompiler, CelRuleSite, CelStep, InternalCrd};
use crate::documents::document::{Node, Value};
use crate::documents::finding::{Location, SourceId};
use crate::documents::kube_version::KubernetesVersion;
use crate::documents::path::FieldPath;
use crate::schema::props::{JsonSchemaProps, SchemaOrArray};
use crate::schema::structural::Structural;

use super::decl_type::schema_decl_type;
use super::{RuleCompiler, RuleCost};

/// Expressions estimated below this cost (1% of the per-expression limit) are listed without
/// an explanation.
pub const EXPLAIN_THRESHOLD: u64 = STATIC_ESTIMATED_COST_LIMIT / 100;

/// At most this many candidate nodes are tried per expression (each costs estimates).
const MAX_CANDIDATES: usize = 16;

/// At most this many candidate nodes are bounded together in the fix of a whole schema.
const MAX_FIX_CANDIDATES: usize = 128;

/// At most this many re-estimates (compilations of a node's rules) per schema: the searches
/// stop there (a note says so), so a CRD with very many costly rules stays quick to analyse.
pub const MAX_ESTIMATES: usize = 2000;

/// The note of a search stopped by [`MAX_ESTIMATES`].
const STOPPED: &str = "the search for bounds stopped after 2000 estimates (too many costly expressions): bound the lists, maps and strings named above";

// ------------------------------------------------------------------------------------------
// The report
// ------------------------------------------------------------------------------------------

/// The estimated CEL cost of one version's schema, expression by expression, with the
/// schema's total.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CostReport {
    /// The limit of one expression (`StaticEstimatedCostLimit`, 10,000,000).
    pub expression_limit: u64,
    /// The limit of the schema's total (`StaticEstimatedCRDCostLimit`, 100,000,000).
    pub total_limit: u64,
    /// Every rule and `messageExpression` that compiled, in [`rule_key`] order (a rule, then
    /// its `messageExpression`).
    pub expressions: Vec<ExpressionCost>,
    /// The schema's total (saturating sum of every expression's cost).
    pub total: u64,
    /// `total / total_limit`.
    pub total_share: f64,
    /// Whether the total exceeds its limit (the CRD is rejected).
    pub total_over_limit: bool,
    /// The server's error detail for the total, when it exceeds its limit.
    pub total_message: Option<String>,
    /// The expressions the server names as the most expensive (at most 4, each at least 1%
    /// of the total limit), most expensive first.
    pub top_contributors: Vec<Contributor>,
    /// When an expression or the total exceeds its limit: bounds that together bring every
    /// expression under its limit and the total under its limit, and the total they give.
    pub fix: Option<Fix>,
    /// Why there is no `fix` although a limit is exceeded.
    pub fix_note: Option<String>,
}

impl CostReport {
    /// Whether an expression or the total exceeds its limit.
    pub fn over_limit(&self) -> bool {
        self.total_over_limit || self.expressions.iter().any(|e| e.over_limit)
    }
}

/// Which expression of a rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ExpressionKind {
    /// `rule`.
    #[default]
    Rule,
    /// `messageExpression`.
    MessageExpression,
}

impl ExpressionKind {
    /// The field name (`rule`, `messageExpression`).
    pub fn field(self) -> &'static str {
        match self {
            ExpressionKind::Rule => "rule",
            ExpressionKind::MessageExpression => "messageExpression",
        }
    }
}

/// One expression's estimated cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ExpressionCost {
    /// The rule's [`rule_key`] (`properties[spec].x-kubernetes-validations[0]`).
    pub key: String,
    /// Rule or `messageExpression`.
    pub kind: ExpressionKind,
    /// The expression's field relative to `openAPIV3Schema`, as the server names it in its
    /// errors (`properties[spec].x-kubernetes-validations[0].rule`).
    pub field: String,
    /// The full field path in the CRD (`spec.versions[0].schema.openAPIV3Schema.<field>`).
    pub crd_path: String,
    /// Where the rule's values are in an object (`.spec.items[*]`; empty for the root).
    pub value_path: String,
    /// The expression's text.
    pub expression: String,
    /// 1-based line of the expression in the CRD text.
    pub line: Option<usize>,
    /// 1-based column of the expression in the CRD text.
    pub column: Option<usize>,
    /// `MaxCost`: the estimated worst-case cost of one evaluation.
    pub max_cost: u64,
    /// The schema cardinality of the rule's node (`None`: unbounded). Always `Some(1)` for a
    /// `messageExpression`, which the server checks without it.
    pub cardinality: Option<u64>,
    /// `MaxCardinality`: how many values of the node fit in one request; replaces an
    /// unbounded cardinality.
    pub max_cardinality: u64,
    /// What `max_cost` is multiplied with: the cardinality, or `max_cardinality` when it is
    /// unbounded (1 for a `messageExpression`).
    pub multiplier: u64,
    /// The estimated cost as the server checks it and adds it to the total.
    pub estimated_cost: u64,
    /// The limit (10,000,000).
    pub limit: u64,
    /// `estimated_cost / limit`.
    pub share: f64,
    /// Whether the cost exceeds the limit (the CRD is rejected).
    pub over_limit: bool,
    /// The server's error detail, when over the limit.
    pub message: Option<String>,
    /// What drives the cost (only for costs of at least [`EXPLAIN_THRESHOLD`]): the lists
    /// and maps that make the cardinality large or unbounded first, outermost first, then
    /// what the expression reads inside `self`, the biggest lever first.
    pub drivers: Vec<CostDriver>,
    /// When over the limit: the bounds that bring the expression under it (one bound when
    /// one is enough), with the cost they give.
    pub suggestion: Option<Fix>,
    /// Why there is no suggestion although the cost is over the limit.
    pub note: Option<String>,
    /// When over the limit and no bound lowers the cost: the call that costs the most.
    pub expensive_call: Option<ExpensiveCall>,
}

/// The call of an expression whose own estimated cost is the largest (the cost of its
/// subtree minus its operands'): what to change when no schema bound helps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ExpensiveCall {
    /// The function as written (`+`, `string`, `matches`, ...).
    pub function: String,
    /// cel-go's name of the overload's function (`_+_`, `string`).
    pub cel_function: String,
    /// 1-based line of the call in the expression.
    pub line: usize,
    /// 1-based column (code points) of the call in the expression (the operator of an
    /// operator, the name of a function).
    pub column: usize,
    /// The call's own estimated worst-case cost (one evaluation).
    pub cost: u64,
    /// Its share of the expression's estimated worst-case cost (0..1).
    pub share: f64,
    /// The operands whose size no schema bound limits (a call's result, such as
    /// `string(...)`), as (function, line, column): they make the call's estimate huge.
    pub unbounded_operands: Vec<(String, usize, usize)>,
    /// What the user can do, in words.
    pub advice: String,
}

/// Why a schema node drives an expression's cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DriverRole {
    /// A list or map above the rule's node: it multiplies how many times the rule runs.
    #[default]
    Cardinality,
    /// A list, map or string inside `self` that the expression iterates or reads.
    InSelf,
}

/// The schema keyword that bounds a node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BoundKind {
    /// `maxItems` (a list).
    #[default]
    #[serde(rename = "maxItems")]
    MaxItems,
    /// `maxProperties` (a map: an object with `additionalProperties`).
    #[serde(rename = "maxProperties")]
    MaxProperties,
    /// `maxLength` (a string).
    #[serde(rename = "maxLength")]
    MaxLength,
}

impl BoundKind {
    /// The schema keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            BoundKind::MaxItems => "maxItems",
            BoundKind::MaxProperties => "maxProperties",
            BoundKind::MaxLength => "maxLength",
        }
    }

    /// What the node is (`list`, `map`, `string`).
    pub fn noun(self) -> &'static str {
        match self {
            BoundKind::MaxItems => "list",
            BoundKind::MaxProperties => "map",
            BoundKind::MaxLength => "string",
        }
    }
}

/// A schema node whose size drives an expression's cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CostDriver {
    /// Above the rule's node or inside `self`.
    pub role: DriverRole,
    /// The keyword that bounds it.
    pub bound: BoundKind,
    /// The node relative to `openAPIV3Schema` (`properties[spec].properties[items]`; empty
    /// for the root).
    pub path: String,
    /// The node's full path in the CRD.
    pub crd_path: String,
    /// Where its values are in an object (`.spec.items`).
    pub value_path: String,
    /// 1-based line of the schema node in the CRD text (its key: `names:` under
    /// `properties`, `items:`, `additionalProperties:`; the node itself for the root).
    pub line: Option<usize>,
    /// 1-based column of the schema node in the CRD text.
    pub column: Option<usize>,
    /// Where the schema node is in the CRD text (line, column, UTF-16 column).
    pub location: Option<Location>,
    /// The bound it has now (`None`: unbounded).
    pub current: Option<u64>,
    /// The size the estimator assumes (`MaxElements`): items, entries, or for a string its
    /// largest size (4 per character of `maxLength`; 3,145,726 without one).
    pub assumed_size: u64,
    /// For a list or map, the fewest JSON bytes one of its elements takes
    /// (`MinSerializedSize`): without a bound, the estimator assumes as many as fit in a
    /// 3 MiB request at that size (plus a comma, and for a map a key).
    pub element_min_size: Option<u64>,
    /// The expression's cost with this node bounded as tightly as the schema allows (1, or
    /// its `minItems`/`minLength`/... or default's size): how much it can help alone.
    pub cost_at_minimum: u64,
    /// When the expression is over its limit: the bound that alone brings it under, if one
    /// does.
    pub fix: Option<BoundFix>,
}

/// A bound to write into the schema.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BoundFix {
    /// The keyword.
    pub bound: BoundKind,
    /// The node relative to `openAPIV3Schema` (empty for the root).
    pub path: String,
    /// The node's full path in the CRD.
    pub crd_path: String,
    /// The suggested value: the largest round value that fits.
    pub value: u64,
    /// For a bound that is enough alone: the largest value that still fits (bisection).
    pub largest: Option<u64>,
    /// The edit that writes the bound into the CRD text (`None` where it is not offered: a
    /// node reached through a YAML alias, or not found in the text).
    pub edit: Option<TextEdit>,
}

/// A set of bounds and what they give.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Fix {
    /// The bounds (apply every edit).
    pub bounds: Vec<BoundFix>,
    /// The re-estimated cost with these bounds: the expression's (for a suggestion) or the
    /// schema total (for [`CostReport::fix`]).
    pub cost: u64,
}

/// One of the server's most expensive expressions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Contributor {
    /// The expression's field relative to `openAPIV3Schema`.
    pub field: String,
    /// Its full path in the CRD.
    pub crd_path: String,
    /// Its cost.
    pub cost: u64,
}

/// A replacement of the bytes `start..end` of a text by `text` (an insertion when
/// `start == end`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TextEdit {
    /// Byte offset of the first byte replaced.
    pub start: usize,
    /// Byte offset after the last byte replaced.
    pub end: usize,
    /// The new text.
    pub text: String,
}

impl TextEdit {
    /// `text` with this edit applied (unchanged when the range is not in it).
    pub fn apply(&self, text: &str) -> String {
        match (text.get(..self.start), text.get(self.end..)) {
            (Some(a), Some(b)) if self.start <= self.end => format!("{a}{}{b}", self.text),
            _ => text.to_owned(),
        }
    }
}

/// `text` with several edits applied (non-overlapping; any order).
#[cfg(test)]
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> String {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse(e.start));
    let mut out = text.to_owned();
    for e in sorted {
        out = e.apply(&out);
    }
    out
}

// ------------------------------------------------------------------------------------------
// The server's cost computations, for the conformance adapters
// ------------------------------------------------------------------------------------------

/// The cardinality of the last schema of a chain (`RootCELContext(chain[0])`, then
/// `childContext` of each next one): the product of the `maxItems`/`maxProperties` of the
/// schemas before it (1 for objects with properties and scalars), saturating; `None` when one
/// of them is an unbounded list or map.
#[cfg(any(test, feature = "conformance"))]
pub fn chain_cardinality(chain: &[JsonSchemaProps]) -> Option<u64> {
    let mut card = Some(1u64);
    for parent in chain.iter().take(chain.len().saturating_sub(1)) {
        card = crate::crd::apiext::schema_validation::child_cardinality(parent, card);
    }
    card
}

/// `TotalCost.ObserveExpressionCost` for each cost in order: the saturating total and the
/// most expensive costs the server names (at most 4, descending, each at least 1% of the
/// total limit).
#[cfg(any(test, feature = "conformance"))]
pub fn total_cost(costs: &[u64]) -> (u64, Vec<u64>) {
    let mut t = TotalCost::default();
    for c in costs {
        t.observe(FieldPath::default(), *c);
    }
    (t.total, t.most_expensive.iter().map(|(_, c)| *c).collect())
}

// ------------------------------------------------------------------------------------------
// Building the reports of a CRD
// ------------------------------------------------------------------------------------------

/// The text-free part of a CRD's cost reports: each version's cost analysis (`None` for a
/// version without a schema), from the CRD and its version reports' rules. It depends only on
/// the CRD's content and the rules' costs, never on positions, so it can be kept while the
/// CRD's content stays the same.
#[derive(Clone, Debug, Default)]
pub struct SchemaCosts(Vec<Option<Option<Analysis>>>);

/// The [`SchemaCosts`] of the versions of `crd` (`versions` are their reports, with rules).
pub fn schema_costs(
    versions: &[VersionReport],
    crd: &InternalCrd,
    kubernetes_version: KubernetesVersion,
) -> SchemaCosts {
    let compiler = RuleCompiler::new(kubernetes_version);
    let mut done: Vec<(*const JsonSchemaProps, Option<Analysis>)> = Vec::new();
    let mut out = Vec::new();
    for (report, v) in versions.iter().zip(&crd.spec.versions) {
        let Some(schema) = v
            .schema
            .as_ref()
            .or(crd.spec.validation.as_ref())
            .and_then(|s| s.open_api_v3_schema.as_deref())
        else {
            out.push(None);
            continue;
        };
        let key: *const JsonSchemaProps = schema;
        let analysis = match done.iter().find(|(k, _)| std::ptr::eq(*k, key)) {
            Some((_, a)) => a.clone(),
            None => {
                let a = analyze_schema(&compiler, schema, &report.rules);
                done.push((key, a.clone()));
                a
            }
        };
        out.push(Some(analysis));
    }
    SchemaCosts(out)
}

/// The positional part of a CRD's cost reports: each version's [`CostReport`] rendered
/// from its analysis in `costs`, placed in the CRD text `text` whose root is `root`, the
/// root of its document `document`.
pub fn place_cost_reports(
    versions: &mut [VersionReport],
    costs: &SchemaCosts,
    text: &str,
    document: usize,
    root: Option<&Node>,
) {
    for (i, (report, analysis)) in versions.iter_mut().zip(&costs.0).enumerate() {
        let Some(Some(analysis)) = analysis else {
            continue;
        };
        let text_node = root
            .and_then(|r| r.get("spec"))
            .and_then(|s| s.get("versions"))
            .and_then(Node::as_seq)
            .and_then(|vs| vs.get(i))
            .and_then(|v| v.get("schema"))
            .and_then(|s| s.get("openAPIV3Schema"));
        let place = Place {
            text,
            document,
            schema_node: text_node,
            crd_prefix: format!("spec.versions[{i}].schema.openAPIV3Schema"),
        };
        report.cost = Some(render(analysis, &place));
    }
}

// ------------------------------------------------------------------------------------------
// The analysis of one schema (no text)
// ------------------------------------------------------------------------------------------

/// One expression of the schema.
#[derive(Clone, Debug)]
struct Expr {
    /// Index of its node in [`Estimates::nodes`].
    node: usize,
    /// The rule's index at the node.
    index: usize,
    kind: ExpressionKind,
    text: String,
    optional_old_self: bool,
    /// The figures CRD validation found.
    base: RuleCost,
    /// Its cost (rule: `estimated_cost`; messageExpression: its max cost).
    cost: u64,
}

/// A node that a bound could be added to (or lowered on).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Candidate {
    steps: Vec<CelStep>,
    kind: BoundKind,
    current: Option<u64>,
    /// `MaxElements` as the estimator sees the node.
    assumed: u64,
    /// For a list or map, the `MinSerializedSize` of its elements.
    element_min_size: Option<u64>,
    /// The smallest bound allowed.
    floor: u64,
    /// Bounds from here on do not lower the size (exclusive).
    upper: u64,
}

/// A driver found for an expression (candidate index, role, cost at minimum, single fix).
#[derive(Clone, Debug)]
struct Driver {
    cand: usize,
    role: DriverRole,
    cost_at_minimum: u64,
    fix: Option<SingleFix>,
}

/// The explanation of one expression.
#[derive(Clone, Debug, Default)]
struct Explained {
    drivers: Vec<Driver>,
    /// The suggestion: (candidate, value) pairs, and the cost.
    suggestion: Option<Plan>,
    note: Option<String>,
    expensive_call: Option<ExpensiveCall>,
}

/// The analysis of one schema, before it is placed in a version's text.
#[derive(Clone, Debug)]
struct Analysis {
    nodes: Vec<Vec<CelStep>>,
    exprs: Vec<Expr>,
    cands: Vec<Candidate>,
    explained: Vec<Explained>,
    total: TotalCost,
    fix: Option<Plan>,
    fix_note: Option<String>,
}

/// Bound values by candidate index.
type Assign = Vec<(usize, u64)>;

/// Bounds and the cost they give.
type Plan = (Assign, u64);

/// One bound that is enough alone: the round value, the largest value that fits (when
/// searched), the cost.
type SingleFix = (u64, Option<u64>, u64);

/// A predicate on bounds: the cost they give when it fits.
type Fits<'f> = dyn FnMut(&[(usize, u64)]) -> Option<u64> + 'f;

/// A bound value meaning "leave the node as it is" (the top of every joint ladder).
const UNCHANGED: u64 = u64::MAX;

/// Re-estimates expressions with bounds added to a copy of the schema.
struct Estimates<'a> {
    compiler: &'a RuleCompiler,
    root: &'a JsonSchemaProps,
    nodes: Vec<Vec<CelStep>>,
    exprs: Vec<Expr>,
    cands: Vec<Candidate>,
    /// The compile results of a node's rules with bounds inside its subtree.
    memo: RefCell<HashMap<(usize, Assign), Vec<CelCompilation>>>,
    /// How many more compilations the searches may do (see [`MAX_ESTIMATES`]).
    budget: std::cell::Cell<usize>,
}

/// The expressions of a schema with the figures CRD validation found for them; `None` when
/// no rule compiled.
fn estimates<'a>(
    compiler: &'a RuleCompiler,
    schema: &'a JsonSchemaProps,
    rules: &[CelRuleReport],
) -> Option<Estimates<'a>> {
    let by_key: HashMap<&str, &CelRuleReport> = rules.iter().map(|r| (r.key.as_str(), r)).collect();
    let mut nodes = Vec::new();
    let mut exprs = Vec::new();
    for (steps, node) in rule_nodes(schema) {
        let n = nodes.len();
        for (j, rule) in node.x_validations.iter().enumerate() {
            let Some(report) = by_key.get(rule_key(&steps, j).as_str()) else {
                continue;
            };
            let (Some(max_cost), Some(estimated)) = (report.max_cost, report.estimated_cost) else {
                continue;
            };
            let base = RuleCost {
                max_cost,
                max_cardinality: report.max_cardinality.unwrap_or(0),
                cardinality: report.cardinality,
                estimated_cost: estimated,
                message_expression_max_cost: report.message_expression_max_cost,
            };
            exprs.push(Expr {
                node: n,
                index: j,
                kind: ExpressionKind::Rule,
                text: rule.rule.clone(),
                optional_old_self: rule.optional_old_self == Some(true),
                base,
                cost: estimated,
            });
            if let Some(m) = report.message_expression_max_cost {
                exprs.push(Expr {
                    node: n,
                    index: j,
                    kind: ExpressionKind::MessageExpression,
                    text: rule.message_expression.clone(),
                    optional_old_self: rule.optional_old_self == Some(true),
                    base,
                    cost: m,
                });
            }
        }
        nodes.push(steps);
    }
    if exprs.is_empty() {
        return None;
    }
    Some(Estimates {
        compiler,
        root: schema,
        nodes,
        exprs,
        cands: Vec::new(),
        memo: RefCell::new(HashMap::new()),
        budget: std::cell::Cell::new(MAX_ESTIMATES),
    })
}

fn analyze_schema(
    compiler: &RuleCompiler,
    schema: &JsonSchemaProps,
    rules: &[CelRuleReport],
) -> Option<Analysis> {
    let mut est = estimates(compiler, schema, rules)?;
    let mut total = TotalCost::default();
    for e in &est.exprs {
        total.observe(FieldPath::new(&expr_field(&est.nodes, e)), e.cost);
    }
    let mut explained = Vec::with_capacity(est.exprs.len());
    for i in 0..est.exprs.len() {
        explained.push(est.explain(i));
    }
    let over = total.total > STATIC_ESTIMATED_CRD_COST_LIMIT
        || est
            .exprs
            .iter()
            .any(|e| e.cost > STATIC_ESTIMATED_COST_LIMIT);
    let (fix, mut fix_note) = if over {
        est.fix_all(&explained, &total)
    } else {
        (None, None)
    };
    // Where no bound helps, point at the expressions' expensive calls.
    if fix.is_none() {
        let calls: Vec<String> = est
            .exprs
            .iter()
            .zip(&explained)
            .filter_map(|(x, ex)| {
                let c = ex.expensive_call.as_ref()?;
                let field = expr_field(&est.nodes, x);
                Some(format!(
                    "{field} spends it in {} at {}:{}",
                    c.function, c.line, c.column
                ))
            })
            .collect();
        if let (Some(note), false) = (&mut fix_note, calls.is_empty()) {
            note.push_str(&format!(" ({})", calls.join("; ")));
        }
    }
    Some(Analysis {
        nodes: est.nodes,
        exprs: est.exprs,
        cands: est.cands,
        explained,
        total,
        fix,
        fix_note,
    })
}

/// Every node with rules, in [`rule_key`] order (pre-order: a node, its properties by name,
/// `items`, `additionalProperties`), with its steps from the root.
fn rule_nodes(schema: &JsonSchemaProps) -> Vec<(Vec<CelStep>, &JsonSchemaProps)> {
    let mut out = Vec::new();
    let mut stack: Vec<(&JsonSchemaProps, Vec<CelStep>)> = vec![(schema, Vec::new())];
    while let Some((node, steps)) = stack.pop() {
        if steps.len() > crate::schema::props::MAX_SCHEMA_DEPTH {
            continue;
        }
        if let Some(ap) = node
            .additional_properties
            .as_ref()
            .and_then(|a| a.schema.as_deref())
        {
            let mut s = steps.clone();
            s.push(CelStep::AdditionalProperties);
            stack.push((ap, s));
        }
        if let Some(SchemaOrArray::Schema(items)) = &node.items {
            let mut s = steps.clone();
            s.push(CelStep::Items);
            stack.push((items, s));
        }
        for (name, prop) in node.properties.iter().rev() {
            let mut s = steps.clone();
            s.push(CelStep::Property(name.clone()));
            stack.push((prop, s));
        }
        if !node.x_validations.is_empty() {
            out.push((steps, node));
        }
    }
    out
}

/// The schema node `steps` below `root`.
fn node_at<'s>(root: &'s JsonSchemaProps, steps: &[CelStep]) -> Option<&'s JsonSchemaProps> {
    let mut node = root;
    for step in steps {
        node = child(node, step)?;
    }
    Some(node)
}

fn child<'s>(node: &'s JsonSchemaProps, step: &CelStep) -> Option<&'s JsonSchemaProps> {
    match step {
        CelStep::Property(name) => node.properties.get(name),
        CelStep::Items => node.items_schema(),
        CelStep::AdditionalProperties => node
            .additional_properties
            .as_ref()
            .and_then(|a| a.schema.as_deref()),
    }
}

fn node_at_mut<'s>(
    root: &'s mut JsonSchemaProps,
    steps: &[CelStep],
) -> Option<&'s mut JsonSchemaProps> {
    let mut node = root;
    for step in steps {
        node = match step {
            CelStep::Property(name) => node.properties.get_mut(name)?,
            CelStep::Items => match &mut node.items {
                Some(SchemaOrArray::Schema(s)) => s,
                _ => return None,
            },
            CelStep::AdditionalProperties => node
                .additional_properties
                .as_mut()
                .and_then(|a| a.schema.as_deref_mut())?,
        };
    }
    Some(node)
}

/// Sets a bound on a schema node.
fn set_bound(node: &mut JsonSchemaProps, kind: BoundKind, v: u64) {
    let v = i64::try_from(v).unwrap_or(i64::MAX);
    match kind {
        BoundKind::MaxItems => node.max_items = Some(v),
        BoundKind::MaxProperties => node.max_properties = Some(v),
        BoundKind::MaxLength => node.max_length = Some(v),
    }
}

/// Whether one path is a prefix of the other (a bound at one can change the cost of rules at
/// the other: the rule's type covers its subtree, its cardinality its ancestors).
fn related(a: &[CelStep], b: &[CelStep]) -> bool {
    let n = a.len().min(b.len());
    a.get(..n) == b.get(..n)
}

/// The relative path of a node (`properties[spec].items`; empty for the root).
fn schema_path(steps: &[CelStep]) -> String {
    let mut parts = Vec::with_capacity(steps.len());
    for step in steps {
        parts.push(match step {
            CelStep::Property(name) => format!("properties[{name}]"),
            CelStep::Items => "items".to_owned(),
            CelStep::AdditionalProperties => "additionalProperties".to_owned(),
        });
    }
    parts.join(".")
}

/// Where a node's values are in an object (`.spec.items[*]`).
fn value_path(steps: &[CelStep]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            CelStep::Property(name) => {
                out.push('.');
                out.push_str(name);
            }
            CelStep::Items | CelStep::AdditionalProperties => out.push_str("[*]"),
        }
    }
    out
}

/// An expression's field relative to `openAPIV3Schema`.
fn expr_field(nodes: &[Vec<CelStep>], e: &Expr) -> String {
    let steps = nodes.get(e.node).map(Vec::as_slice).unwrap_or_default();
    format!("{}.{}", rule_key(steps, e.index), e.kind.field())
}

/// What bounds a node, its current bound and the smallest bound allowed; `None` for nodes no
/// bound makes smaller (objects with properties, scalars, strings of fixed-size formats or
/// with an `enum`).
fn boundable(s: &JsonSchemaProps) -> Option<(BoundKind, Option<i64>, u64)> {
    let default_len = |f: &dyn Fn(&serde_json::Value) -> Option<usize>| -> u64 {
        s.default.as_ref().and_then(f).unwrap_or(0) as u64
    };
    let min = |m: Option<i64>| m.unwrap_or(0).max(0) as u64;
    let (kind, current, floor) = match s.type_.as_str() {
        "array" => (
            BoundKind::MaxItems,
            s.max_items,
            min(s.min_items).max(default_len(&|d| d.as_array().map(Vec::len))),
        ),
        "object" if s.additional_properties.is_some() => (
            BoundKind::MaxProperties,
            s.max_properties,
            min(s.min_properties).max(default_len(&|d| d.as_object().map(|m| m.len()))),
        ),
        "string" | "" if s.type_ == "string" || s.x_int_or_string => {
            if matches!(s.format.as_str(), "duration" | "date" | "date-time") || !s.enum_.is_empty()
            {
                return None;
            }
            (
                BoundKind::MaxLength,
                s.max_length,
                min(s.min_length).max(default_len(&|d| d.as_str().map(|t| t.chars().count()))),
            )
        }
        _ => return None,
    };
    Some((kind, current, floor.max(1)))
}

/// `MaxElements` of a node as the estimator's declared type has it.
/// With it, for a list or map, the fewest JSON bytes an element takes (`MinSerializedSize`):
/// without a bound, the estimator assumes as many elements as fit in 3 MiB at that size plus
/// a comma (plus a key for a map).
fn assumed_size(s: &JsonSchemaProps) -> Option<(u64, Option<u64>)> {
    let ss = Structural::from_props(s).ok()?;
    let t = schema_decl_type(&ss, false)?;
    let element = t.elem().map(|e| e.min_serialized_size.max(0) as u64);
    Some((t.max_elements.max(0) as u64, element))
}

/// The largest power of two counted as round.
const ROUND_POWER_OF_TWO_MAX: u64 = 4096;

/// The round bound values: 1, 2, 5 × 10ⁿ and the powers of two from 16 to 4096.
fn is_round(v: u64) -> bool {
    if (16..=ROUND_POWER_OF_TWO_MAX).contains(&v) && v.is_power_of_two() {
        return true;
    }
    let mut m = v;
    while m >= 10 && m.is_multiple_of(10) {
        m /= 10;
    }
    matches!(m, 1 | 2 | 5)
}

/// The values tried for a bound: `floor`, then the round values above it, below `upper`.
fn ladder(floor: u64, upper: u64) -> Vec<u64> {
    let mut out = Vec::new();
    if floor >= upper {
        return out;
    }
    out.push(floor);
    let mut decade: u64 = 1;
    let mut candidates = Vec::new();
    loop {
        for m in [1u64, 2, 5] {
            if let Some(v) = decade.checked_mul(m) {
                candidates.push(v);
            }
        }
        match decade.checked_mul(10) {
            Some(d) if d < upper => decade = d,
            _ => break,
        }
    }
    let mut p: u64 = 16;
    while p < upper && p <= ROUND_POWER_OF_TWO_MAX {
        candidates.push(p);
        p *= 2;
    }
    candidates.sort_unstable();
    candidates.dedup();
    out.extend(candidates.into_iter().filter(|v| *v > floor && *v < upper));
    debug_assert!(out.iter().all(|v| *v == floor || is_round(*v)));
    out
}

/// The largest index of `values` (ascending) for which `fits` gives a cost, with the cost;
/// `fits` is monotone (fits below a value that fits). `None` when the first does not fit.
fn largest_fitting(
    values: &[u64],
    fits: &mut dyn FnMut(u64) -> Option<u64>,
) -> Option<(usize, u64)> {
    let first = fits(*values.first()?)?;
    let (mut lo, mut lo_cost) = (0usize, first);
    let mut hi = values.len();
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        match values.get(mid).and_then(|v| fits(*v)) {
            Some(c) => {
                lo = mid;
                lo_cost = c;
            }
            None => hi = mid,
        }
    }
    Some((lo, lo_cost))
}

/// The largest value in `[lo, hi)` that fits, `lo` fitting and `hi` not.
fn bisect(lo: u64, hi: u64, fits: &mut dyn FnMut(u64) -> Option<u64>) -> u64 {
    let (mut lo, mut hi) = (lo, hi);
    while hi.saturating_sub(lo) > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid).is_some() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

impl Estimates<'_> {
    fn expr(&self, e: usize) -> Option<&Expr> {
        self.exprs.get(e)
    }

    fn steps_of(&self, e: &Expr) -> &[CelStep] {
        self.nodes
            .get(e.node)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// The index of a candidate (added on first sight); `None` for nodes no bound shrinks.
    fn candidate(&mut self, steps: &[CelStep]) -> Option<usize> {
        let node = node_at(self.root, steps)?;
        let (kind, current, floor) = boundable(node)?;
        if let Some(i) = self
            .cands
            .iter()
            .position(|c| c.steps == steps && c.kind == kind)
        {
            return Some(i);
        }
        let (assumed, element_min_size) = assumed_size(node)?;
        // A string's size is 4 per character (1 per byte for `format: byte`).
        let per_unit = if kind == BoundKind::MaxLength && node.format != "byte" {
            4
        } else {
            1
        };
        let current = current.map(|c| c.max(0) as u64);
        let upper = match current {
            Some(c) => c,
            None => assumed.div_ceil(per_unit),
        };
        self.cands.push(Candidate {
            steps: steps.to_vec(),
            kind,
            current,
            assumed,
            element_min_size,
            floor,
            upper,
        });
        Some(self.cands.len() - 1)
    }

    /// The site of the rules of node `n` compiled on their own: the node's subtree is all
    /// their type depends on (`SchemaDeclType` is compositional; a resource root when it is
    /// the schema root or an embedded resource), and no bound changes `MinSerializedSize`,
    /// so `MaxCardinality` stays as CRD validation found it.
    ///
    /// `None` when the budget of re-estimates is spent.
    fn compile_node(&self, n: usize, inner: &[(usize, u64)]) -> Option<Vec<CelCompilation>> {
        let key = (n, inner.to_vec());
        if let Some(found) = self.memo.borrow().get(&key) {
            return Some(found.clone());
        }
        let left = self.budget.get();
        if left == 0 {
            return None;
        }
        self.budget.set(left - 1);
        let steps = self.nodes.get(n).map(Vec::as_slice).unwrap_or_default();
        let Some(node) = node_at(self.root, steps) else {
            return Some(Vec::new());
        };
        let mut copy = node.clone();
        for (c, v) in inner {
            let Some(cand) = self.cands.get(*c) else {
                continue;
            };
            let rel = cand.steps.get(steps.len()..).unwrap_or_default();
            if let Some(target) = node_at_mut(&mut copy, rel) {
                set_bound(target, cand.kind, *v);
            }
        }
        let path = FieldPath::default();
        let site = CelRuleSite {
            schema: &copy,
            path: &path,
            scope_root: &copy,
            scope_root_is_resource_root: steps.is_empty() || copy.x_embedded_resource,
            steps: Vec::new(),
            preexisting: None,
            environment_version: None,
            scope_cache: None,
        };
        let compiled = self.compiler.compile(&site).unwrap_or_default();
        self.memo.borrow_mut().insert(key, compiled.clone());
        Some(compiled)
    }

    /// Whether the budget of re-estimates is spent.
    fn stopped(&self) -> bool {
        self.budget.get() == 0
    }

    /// An expression's cost with the bounds of `assign`: bounds above a rule's node change
    /// its cardinality, bounds in the node's subtree its estimate.
    fn expr_cost(&self, e: usize, assign: &[(usize, u64)]) -> u64 {
        let Some(x) = self.expr(e) else {
            return 0;
        };
        let steps = self.steps_of(x);
        let mut above = Vec::new();
        let mut inner = Vec::new();
        for (c, v) in assign {
            let Some(cand) = self.cands.get(*c) else {
                continue;
            };
            if *v == UNCHANGED || !related(&cand.steps, steps) {
                continue;
            }
            if cand.steps.len() < steps.len() {
                above.push((cand, *v));
            } else {
                inner.push((*c, *v));
            }
        }
        if above.is_empty() && inner.is_empty() {
            return x.cost;
        }
        let is_rule = x.kind == ExpressionKind::Rule;
        if !is_rule && inner.is_empty() {
            return x.cost;
        }
        let (max_cost, message_cost) = if inner.is_empty() {
            (x.base.max_cost, x.base.message_expression_max_cost)
        } else {
            inner.sort_unstable();
            // Out of budget: unknown, so nothing fits.
            let Some(compiled) = self.compile_node(x.node, &inner) else {
                return u64::MAX;
            };
            match compiled.get(x.index) {
                Some(c) => (
                    c.max_cost,
                    (c.has_message_expression && c.message_expression_error.is_none())
                        .then_some(c.message_expression_max_cost),
                ),
                None => (0, None),
            }
        };
        if !is_rule {
            return message_cost.unwrap_or(0);
        }
        // The cardinality, with the bounds above the node.
        let mut card = Some(1u64);
        let mut node = Some(self.root);
        for (i, step) in steps.iter().enumerate() {
            let Some(parent) = node else {
                card = None;
                break;
            };
            let bound = above
                .iter()
                .find(|(cand, _)| cand.steps.len() == i)
                .map(|(_, v)| *v);
            card = match bound {
                Some(v) => card.map(|c| if c == 0 { 0 } else { c.saturating_mul(v) }),
                None => crate::crd::apiext::schema_validation::child_cardinality(parent, card),
            };
            node = child(parent, step);
        }
        crate::crd::apiext::schema_validation::expression_cost(
            max_cost,
            x.base.max_cardinality,
            card,
        )
    }

    /// Expression `e`'s cost with the bounds of `assign`, when it is at most `limit` and no
    /// other limit that held is broken by them (another expression's, the total's).
    fn expr_fits(&self, e: usize, assign: &[(usize, u64)], limit: u64) -> Option<u64> {
        let cost = self.expr_cost(e, assign);
        if cost > limit {
            return None;
        }
        let (mut before, mut after) = (0u64, 0u64);
        for (o, x) in self.exprs.iter().enumerate() {
            let c = if o == e {
                cost
            } else {
                self.expr_cost(o, assign)
            };
            if o != e && x.cost <= STATIC_ESTIMATED_COST_LIMIT && c > STATIC_ESTIMATED_COST_LIMIT {
                return None;
            }
            before = before.saturating_add(x.cost);
            after = after.saturating_add(c);
        }
        let limit = STATIC_ESTIMATED_CRD_COST_LIMIT;
        (before > limit || after <= limit).then_some(cost)
    }

    /// The schema total with the bounds of `assign`, when every expression fits its limit and
    /// the total fits its own.
    fn all_fit(&self, assign: &[(usize, u64)]) -> Option<u64> {
        let mut total: u64 = 0;
        for e in 0..self.exprs.len() {
            let c = self.expr_cost(e, assign);
            if c > STATIC_ESTIMATED_COST_LIMIT {
                return None;
            }
            total = total.saturating_add(c);
        }
        (total <= STATIC_ESTIMATED_CRD_COST_LIMIT).then_some(total)
    }

    /// The candidates an expression's cost may depend on: the lists and maps above a rule's
    /// node, then the ends of the paths its estimate followed inside `self`.
    fn candidates_of(&mut self, e: usize, over: bool) -> Vec<(usize, DriverRole)> {
        let Some(x) = self.expr(e).cloned() else {
            return Vec::new();
        };
        let steps = self.steps_of(&x).to_vec();
        let mut out: Vec<(usize, DriverRole)> = Vec::new();
        if x.kind == ExpressionKind::Rule {
            for i in 0..steps.len() {
                let prefix = steps.get(..i).unwrap_or_default();
                let Some(node) = node_at(self.root, prefix) else {
                    continue;
                };
                let multiplies = node.type_ == "array"
                    || (node.type_ == "object" && node.additional_properties.is_some());
                if !multiplies {
                    continue;
                }
                if let Some(c) = self.candidate(prefix) {
                    if !out.iter().any(|(o, _)| *o == c) {
                        out.push((c, DriverRole::Cardinality));
                    }
                }
            }
        }
        for rel in self.paths_in_self(&x, &steps) {
            if out.len() >= MAX_CANDIDATES {
                break;
            }
            let mut full = steps.clone();
            full.extend(rel);
            let Some(c) = self.candidate(&full) else {
                continue;
            };
            let bounded = self.cands.get(c).is_some_and(|c| c.current.is_some());
            if (bounded && !over) || out.iter().any(|(o, _)| *o == c) {
                continue;
            }
            out.push((c, DriverRole::InSelf));
        }
        out
    }

    /// The schema steps (relative to the rule's node) of the ends of the paths the
    /// estimator followed.
    fn paths_in_self(&self, x: &Expr, steps: &[CelStep]) -> Vec<Vec<CelStep>> {
        let Some(node) = node_at(self.root, steps) else {
            return Vec::new();
        };
        // The node on its own, as in `compile_node`.
        let Ok((_, details)) = self.compiler.cost_details(
            &CelRuleSite {
                schema: node,
                path: &FieldPath::default(),
                scope_root: node,
                scope_root_is_resource_root: steps.is_empty() || node.x_embedded_resource,
                steps: Vec::new(),
                preexisting: None,
                environment_version: None,
                scope_cache: None,
            },
            &x.text,
            x.optional_old_self,
        ) else {
            return Vec::new();
        };
        let mut paths: Vec<Vec<String>> = details.paths.into_values().collect();
        paths.sort();
        paths.dedup();
        let mut out: Vec<Vec<CelStep>> = Vec::new();
        for path in paths {
            let mut cur = node;
            let mut rel = Vec::new();
            let mut ok = true;
            for name in path.iter().skip(1) {
                let step = match name.as_str() {
                    "@items" => CelStep::Items,
                    "@values" => CelStep::AdditionalProperties,
                    f => match cur
                        .properties
                        .keys()
                        .find(|p| super::decl_type::escape(p).as_deref() == Some(f))
                    {
                        Some(p) => CelStep::Property(p.clone()),
                        None => {
                            ok = false;
                            break;
                        }
                    },
                };
                match child(cur, &step) {
                    Some(c) => cur = c,
                    None => {
                        ok = false;
                        break;
                    }
                }
                rel.push(step);
            }
            if ok && !out.contains(&rel) {
                out.push(rel);
            }
        }
        out
    }

    /// The drivers of one expression and, when it is over its limit, its suggestion.
    fn explain(&mut self, e: usize) -> Explained {
        let Some(x) = self.expr(e).cloned() else {
            return Explained::default();
        };
        if x.cost < EXPLAIN_THRESHOLD {
            return Explained::default();
        }
        let over = x.cost > STATIC_ESTIMATED_COST_LIMIT;
        let cands = self.candidates_of(e, over);
        let mut drivers = Vec::new();
        for (c, role) in &cands {
            let Some(cand) = self.cands.get(*c) else {
                continue;
            };
            if cand.floor >= cand.upper {
                continue;
            }
            let at_min = self.expr_cost(e, &[(*c, cand.floor)]);
            let unbounded = cand.current.is_none();
            let helps = at_min < x.cost;
            // An unbounded list or map above the rule makes the cardinality unbounded even when
            // bounding it alone changes nothing (another one stays unbounded).
            if helps
                || (*role == DriverRole::Cardinality && unbounded && x.base.cardinality.is_none())
            {
                drivers.push(Driver {
                    cand: *c,
                    role: *role,
                    cost_at_minimum: at_min,
                    fix: None,
                });
            }
        }
        // Several nodes may matter only together (the larger of two strings, say).
        if !drivers.iter().any(|d| d.role == DriverRole::InSelf) {
            let in_self: Vec<usize> = cands
                .iter()
                .filter(|(c, role)| {
                    *role == DriverRole::InSelf
                        && self.cands.get(*c).is_some_and(|c| c.floor < c.upper)
                })
                .map(|(c, _)| *c)
                .collect();
            if in_self.len() > 1 {
                let assign: Vec<(usize, u64)> = in_self
                    .iter()
                    .filter_map(|c| self.cands.get(*c).map(|cand| (*c, cand.floor)))
                    .collect();
                let together = self.expr_cost(e, &assign);
                if together < x.cost {
                    for c in in_self {
                        let alone = self
                            .cands
                            .get(c)
                            .map(|cand| self.expr_cost(e, &[(c, cand.floor)]))
                            .unwrap_or(x.cost);
                        drivers.push(Driver {
                            cand: c,
                            role: DriverRole::InSelf,
                            cost_at_minimum: alone,
                            fix: None,
                        });
                    }
                }
            }
        }
        // Cardinality drivers outermost first; then the biggest lever first.
        drivers.sort_by_key(|d| match d.role {
            DriverRole::Cardinality => (0, 0, d.cand),
            DriverRole::InSelf => (1, d.cost_at_minimum, d.cand),
        });
        let mut out = Explained {
            drivers,
            suggestion: None,
            note: None,
            expensive_call: None,
        };
        if !over {
            return out;
        }
        let (suggestion, fixes) = self.suggest(e, &out.drivers, STATIC_ESTIMATED_COST_LIMIT);
        for (d, f) in out.drivers.iter_mut().zip(fixes) {
            d.fix = f;
        }
        match suggestion {
            Some(s) => out.suggestion = Some(s),
            None if self.stopped() => out.note = Some(STOPPED.to_owned()),
            None => {
                let lead = if out.drivers.is_empty() {
                    "no list, map or string bound lowers this cost"
                } else {
                    "even the tightest bounds leave this cost over the limit"
                };
                let steps = self.steps_of(&x).to_vec();
                out.expensive_call = self.expensive_call(&x, &steps);
                out.note = Some(match &out.expensive_call {
                    Some(c) => format!("{lead}: {}", expensive_call_text(c)),
                    None => format!("{lead}: simplify the expression"),
                });
            }
        }
        out
    }

    /// The call of `x` with the largest own estimated cost (see [`ExpensiveCall`]).
    fn expensive_call(&self, x: &Expr, steps: &[CelStep]) -> Option<ExpensiveCall> {
        let node = node_at(self.root, steps)?;
        let (checked, details) = self
            .compiler
            .cost_details(
                &CelRuleSite {
                    schema: node,
                    path: &FieldPath::default(),
                    scope_root: node,
                    scope_root_is_resource_root: steps.is_empty() || node.x_embedded_resource,
                    steps: Vec::new(),
                    preexisting: None,
                    environment_version: None,
                    scope_cache: None,
                },
                &x.text,
                x.optional_old_self,
            )
            .ok()?;
        let cost_of = |id: i64| details.nodes.get(&id).map_or(0, |c| c.max);
        let mut best: Option<(
            u64,
            &crd_studio_cel::ast::Expr,
            &crd_studio_cel::ast::CallExpr,
        )> = None;
        let mut stack = vec![&checked.expr];
        while let Some(e) = stack.pop() {
            let children = expr_children(e);
            if let crd_studio_cel::ast::ExprKind::Call(call) = &e.kind {
                let operands: u64 = children
                    .iter()
                    .map(|c| cost_of(c.id))
                    .fold(0, u64::saturating_add);
                let own = cost_of(e.id).saturating_sub(operands);
                if best.as_ref().is_none_or(|(b, _, _)| own > *b) {
                    best = Some((own, e, call));
                }
            }
            stack.extend(children);
        }
        let (own, e, call) = best?;
        let total = details.total.max.max(1);
        let at = |id: i64| {
            let l = checked.source_info.start_location(id);
            (
                usize::try_from(l.line).unwrap_or(0),
                usize::try_from(l.column).map_or(0, |c| c + 1),
            )
        };
        // cel-go places a function call at its `(`: point at the name when it is written
        // just before.
        let lines: Vec<Vec<char>> = x.text.split('\n').map(|l| l.chars().collect()).collect();
        let at_name = |id: i64, function: &str| {
            let (l, c) = at(id);
            let name: Vec<char> = function.chars().collect();
            let start = c.saturating_sub(name.len());
            let written = lines
                .get(l.saturating_sub(1))
                .and_then(|chars| chars.get(start.saturating_sub(1)..c.saturating_sub(1)));
            if start > 0 && written == Some(name.as_slice()) {
                (l, start)
            } else {
                (l, c)
            }
        };
        let (line, column) = at_name(e.id, &call.function);
        // Operands whose size nothing bounds: a call's result the estimator cannot size.
        let unbounded_operands: Vec<(String, usize, usize)> = call
            .target
            .iter()
            .chain(&call.args)
            .filter(|a| {
                let sized = matches!(
                    checked.types.get(&a.id),
                    Some(crd_studio_cel::types::Type::String | crd_studio_cel::types::Type::Bytes)
                        | Some(
                            crd_studio_cel::types::Type::List(_)
                                | crd_studio_cel::types::Type::Map(..)
                        )
                );
                // No size kept for a call's result: the estimator has none (cel-go's
                // unbounded size).
                sized
                    && details
                        .sizes
                        .get(&a.id)
                        .is_none_or(|s| s.max >= UNBOUNDED_SIZE)
            })
            .filter_map(|a| match &a.kind {
                crd_studio_cel::ast::ExprKind::Call(c) => {
                    let (l, col) = at_name(a.id, &c.function);
                    Some((display_function(&c.function), l, col))
                }
                _ => None,
            })
            .collect();
        let function = display_function(&call.function);
        let advice = if unbounded_operands.is_empty() {
            format!("rewrite the expression so that it calls {function} on smaller values, or fewer times")
        } else {
            let names: Vec<String> = unbounded_operands
                .iter()
                .map(|(f, l, c)| format!("{f}(…) at {l}:{c}"))
                .collect();
            let message = if x.kind == ExpressionKind::MessageExpression {
                "use a fixed `message` instead, or "
            } else {
                ""
            };
            format!(
                "the estimator cannot bound the size of {}, so it assumes the largest string a request can hold; {message}leave that value out of the {}",
                names.join(" and "),
                if x.kind == ExpressionKind::MessageExpression { "message" } else { "expression" }
            )
        };
        Some(ExpensiveCall {
            function,
            cel_function: call.function.clone(),
            line,
            column,
            cost: own,
            share: own as f64 / total as f64,
            unbounded_operands,
            advice,
        })
    }

    /// Bounds that bring expression `e` to `limit` or below (breaking no other limit that
    /// held), from its drivers: the chosen plan, and each driver's single-bound fix (largest
    /// round value, largest value by bisection, cost).
    fn suggest(
        &self,
        e: usize,
        drivers: &[Driver],
        limit: u64,
    ) -> (Option<Plan>, Vec<Option<SingleFix>>) {
        let mut singles: Vec<(usize, u64, u64)> = Vec::new();
        let mut fixes = Vec::with_capacity(drivers.len());
        for d in drivers {
            fixes.push(None);
            if d.cost_at_minimum > limit {
                continue;
            }
            let Some(cand) = self.cands.get(d.cand).cloned() else {
                continue;
            };
            let values = ladder(cand.floor, cand.upper);
            let c = d.cand;
            let mut fits = |v: u64| self.expr_fits(e, &[(c, v)], limit);
            let Some((i, cost)) = largest_fitting(&values, &mut fits) else {
                continue;
            };
            let Some(&value) = values.get(i) else {
                continue;
            };
            // The bisection only for the expression's own report (not for fair shares).
            let largest = (limit == STATIC_ESTIMATED_COST_LIMIT).then(|| {
                let next = values.get(i + 1).copied().unwrap_or(cand.upper);
                bisect(value, next, &mut fits)
            });
            if let Some(slot) = fixes.last_mut() {
                *slot = Some((value, largest, cost));
            }
            singles.push((c, value, cost));
        }
        let all: Vec<usize> = drivers.iter().map(|d| d.cand).collect();
        let mut fits = |assign: &[(usize, u64)]| self.expr_fits(e, assign, limit);
        let joint = if all.len() > 1 {
            self.joint(&all, None, &mut fits)
        } else {
            None
        };
        (choose(&singles, joint), fixes)
    }

    /// Bounds for several candidates together: the largest common round level that fits,
    /// then each bound raised in turn as far as it still fits (up to leaving it unchanged).
    fn joint(
        &self,
        cands: &[usize],
        start: Option<&[(usize, u64)]>,
        fits: &mut Fits<'_>,
    ) -> Option<Plan> {
        let ladders: Vec<(usize, Vec<u64>)> = cands
            .iter()
            .filter_map(|c| {
                let cand = self.cands.get(*c)?;
                let mut l = ladder(cand.floor, cand.upper);
                if l.is_empty() {
                    return None;
                }
                l.push(UNCHANGED);
                Some((*c, l))
            })
            .collect();
        if ladders.is_empty() {
            return None;
        }
        let mut levels: Vec<u64> = ladders
            .iter()
            .flat_map(|(_, l)| l.iter().copied())
            .filter(|v| *v != UNCHANGED)
            .collect();
        levels.sort_unstable();
        levels.dedup();
        // Each candidate at the largest value of its ladder not above the level.
        let at_level = |level: u64| -> Vec<usize> {
            ladders
                .iter()
                .map(|(_, l)| l.iter().rposition(|v| *v <= level).unwrap_or(0))
                .collect()
        };
        let assign_of = |pos: &[usize]| -> Vec<(usize, u64)> {
            ladders
                .iter()
                .zip(pos)
                .filter_map(|((c, l), p)| l.get(*p).map(|v| (*c, *v)))
                .collect()
        };
        // From `start` when it fits (each candidate at its value there, else unchanged), else
        // from the largest common level that fits.
        let from_start = start.map(|start| -> Vec<usize> {
            ladders
                .iter()
                .map(|(c, l)| {
                    let top = l.len().saturating_sub(1);
                    start
                        .iter()
                        .find(|(sc, _)| sc == c)
                        .and_then(|(_, v)| l.iter().position(|lv| lv == v))
                        .unwrap_or(top)
                })
                .collect()
        });
        let (mut pos, mut cost) =
            match from_start.and_then(|pos| fits(&assign_of(&pos)).map(|cost| (pos, cost))) {
                Some(found) => found,
                None => {
                    let mut level_fits = |level: u64| fits(&assign_of(&at_level(level)));
                    let (li, _) = largest_fitting(&levels, &mut level_fits)?;
                    let pos = at_level(levels.get(li).copied().unwrap_or(0));
                    let cost = fits(&assign_of(&pos))?;
                    (pos, cost)
                }
            };
        // Leaving a node as it is comes first (a large bound on a list above a rule can cost
        // more than the estimate without one, so "unchanged" is tried on its own, not as the
        // top of a monotone ladder); then each bound is raised as far as it fits.
        let with = |pos: &[usize], k: usize, p: usize| -> Vec<usize> {
            let mut trial = pos.to_vec();
            if let Some(slot) = trial.get_mut(k) {
                *slot = p;
            }
            trial
        };
        for (k, (_, l)) in ladders.iter().enumerate() {
            let top = l.len().saturating_sub(1);
            if let Some(c) = fits(&assign_of(&with(&pos, k, top))) {
                pos = with(&pos, k, top);
                cost = c;
            }
        }
        for (k, (_, l)) in ladders.iter().enumerate() {
            let from = pos.get(k).copied().unwrap_or(0);
            let top = l.len().saturating_sub(1);
            if from >= top {
                continue;
            }
            let idx: Vec<u64> = (from..top).map(|p| p as u64).collect();
            let mut raise = |p: u64| fits(&assign_of(&with(&pos, k, p as usize)));
            if let Some((i, c)) = largest_fitting(&idx, &mut raise) {
                if let Some(p) = idx.get(i) {
                    pos = with(&pos, k, *p as usize);
                    cost = c;
                }
            }
        }
        let assign: Vec<(usize, u64)> = assign_of(&pos)
            .into_iter()
            .filter(|(_, v)| *v != UNCHANGED)
            .collect();
        Some((assign, cost))
    }

    /// The union (tightest bound where they meet) of the suggestions bringing each
    /// expression over its limit, and each of `also`, to `limit`: the suggestions already made
    /// when `limit` is the expressions' limit, else new searches.
    fn union_of_suggestions(&self, explained: &[Explained], limit: u64, also: &[usize]) -> Assign {
        let mut start: Assign = Vec::new();
        for (i, x) in self.exprs.iter().enumerate() {
            if x.cost <= limit || (x.cost <= STATIC_ESTIMATED_COST_LIMIT && !also.contains(&i)) {
                continue;
            }
            let Some(ex) = explained.get(i) else {
                continue;
            };
            let plan = if limit == STATIC_ESTIMATED_COST_LIMIT {
                ex.suggestion.clone()
            } else {
                self.suggest(i, &ex.drivers, limit).0
            };
            for (c, v) in plan.map(|p| p.0).unwrap_or_default() {
                match start.iter_mut().find(|(sc, _)| *sc == c) {
                    Some(slot) => slot.1 = slot.1.min(v),
                    None => start.push((c, v)),
                }
            }
        }
        start
    }

    /// Bounds that bring every expression and the total under their limits: from the drivers
    /// of the expressions over their limit and of the server's most expensive ones.
    fn fix_all(
        &self,
        explained: &[Explained],
        total: &TotalCost,
    ) -> (Option<Plan>, Option<String>) {
        let top: Vec<String> = total
            .most_expensive
            .iter()
            .map(|(p, _)| p.to_string())
            .collect();
        let mut cands: Vec<usize> = Vec::new();
        for (i, x) in self.exprs.iter().enumerate() {
            let field = expr_field(&self.nodes, x);
            let matters = x.cost > STATIC_ESTIMATED_COST_LIMIT
                || (total.total > STATIC_ESTIMATED_CRD_COST_LIMIT && top.contains(&field));
            if !matters {
                continue;
            }
            for d in explained
                .get(i)
                .map(|x| x.drivers.as_slice())
                .unwrap_or_default()
            {
                if !cands.contains(&d.cand) {
                    cands.push(d.cand);
                }
            }
        }
        // The expressions' own suggestions together, the tightest bound where they meet:
        // those over their limit, and when the total is over, the most expensive ones too,
        // each brought to a fair share of what the others leave of the total's limit.
        let mut start = self.union_of_suggestions(explained, STATIC_ESTIMATED_COST_LIMIT, &[]);
        if self.all_fit(&start).is_none() && total.total > STATIC_ESTIMATED_CRD_COST_LIMIT {
            let mut order: Vec<usize> = (0..self.exprs.len()).collect();
            order.sort_by_key(|i| std::cmp::Reverse(self.expr(*i).map_or(0, |x| x.cost)));
            let mut rest: u128 = self.exprs.iter().map(|x| u128::from(x.cost)).sum();
            let mut chosen = Vec::new();
            for i in order {
                if rest <= u128::from(STATIC_ESTIMATED_CRD_COST_LIMIT / 2) {
                    break;
                }
                rest = rest.saturating_sub(self.expr(i).map_or(0, |x| u128::from(x.cost)));
                chosen.push(i);
            }
            if !chosen.is_empty() {
                let rest = u64::try_from(rest).unwrap_or(u64::MAX);
                let room = STATIC_ESTIMATED_CRD_COST_LIMIT.saturating_sub(rest);
                let share = (room / chosen.len() as u64).min(STATIC_ESTIMATED_COST_LIMIT);
                start = self.union_of_suggestions(explained, share, &chosen);
            }
        }
        // The candidates of those suggestions first.
        let mut ordered: Vec<usize> = start.iter().map(|(c, _)| *c).collect();
        ordered.extend(
            cands
                .iter()
                .filter(|c| !start.iter().any(|(sc, _)| sc == *c)),
        );
        let mut cands = ordered;
        cands.truncate(MAX_FIX_CANDIDATES.max(start.len()));
        let mut singles: Vec<(usize, u64, u64)> = Vec::new();
        for c in cands.iter().take(MAX_CANDIDATES) {
            let Some(cand) = self.cands.get(*c).cloned() else {
                continue;
            };
            let values = ladder(cand.floor, cand.upper);
            let mut fits = |v: u64| self.all_fit(&[(*c, v)]);
            if let Some((i, cost)) = largest_fitting(&values, &mut fits) {
                if let Some(&v) = values.get(i) {
                    singles.push((*c, v, cost));
                }
            }
        }
        let mut fits = |assign: &[(usize, u64)]| self.all_fit(assign);
        let joint = if cands.len() > 1 {
            self.joint(&cands, (!start.is_empty()).then_some(&start), &mut fits)
        } else {
            None
        };
        match choose(&singles, joint) {
            Some(s) => (Some(s), None),
            None if self.stopped() => (None, Some(STOPPED.to_owned())),
            None => (
                None,
                Some(if cands.is_empty() {
                    "no list, map or string bound lowers these costs: simplify the expressions"
                        .to_owned()
                } else {
                    "even the tightest bounds leave a cost over its limit: simplify the expressions"
                        .to_owned()
                }),
            ),
        }
    }
}

/// The suggestion among single bounds (candidate, value, cost) and a joint fix: the single
/// bound with the largest value among those no tighter on their node than the joint fix (so
/// it is better: one edit, nothing tighter); else the joint fix; else the single bound with
/// the largest value.
fn choose(singles: &[(usize, u64, u64)], joint: Option<Plan>) -> Option<Plan> {
    let largest = |ok: &dyn Fn(&(usize, u64, u64)) -> bool| {
        singles
            .iter()
            .filter(|s| ok(s))
            .fold(None, |best: Option<&(usize, u64, u64)>, s| match best {
                Some(b) if b.1 >= s.1 => Some(b),
                _ => Some(s),
            })
            .map(|(c, v, cost)| (vec![(*c, *v)], *cost))
    };
    match joint {
        Some((assign, cost)) => {
            let no_tighter =
                |(c, v, _): &(usize, u64, u64)| assign.iter().any(|(jc, jv)| jc == c && jv <= v);
            largest(&no_tighter).or(Some((assign, cost)))
        }
        None => largest(&|_| true),
    }
}

// ------------------------------------------------------------------------------------------
// Placing the analysis in a version's text
// ------------------------------------------------------------------------------------------

/// Where a schema is in the CRD text.
struct Place<'a> {
    text: &'a str,
    /// The index of the CRD's document in `text`.
    document: usize,
    schema_node: Option<&'a Node>,
    crd_prefix: String,
}

impl Place<'_> {
    fn node(&self, steps: &[CelStep]) -> Option<&Node> {
        let mut node = self.schema_node?;
        for step in steps {
            node = match step {
                CelStep::Property(name) => node.get("properties")?.get(name)?,
                CelStep::Items => node.get("items")?,
                CelStep::AdditionalProperties => node.get("additionalProperties")?,
            };
        }
        Some(node)
    }

    /// Where a node is written: the key it is the value of (the node itself for the root).
    fn key_span(&self, steps: &[CelStep]) -> Option<crate::documents::position::Span> {
        let Some((last, parent_steps)) = steps.split_last() else {
            return self.schema_node.map(|n| n.span);
        };
        let parent = self.node(parent_steps)?;
        let entry = match last {
            CelStep::Property(name) => parent.get("properties")?.entry(name)?,
            CelStep::Items => parent.entry("items")?,
            CelStep::AdditionalProperties => parent.entry("additionalProperties")?,
        };
        Some(entry.key_span)
    }

    fn crd_path(&self, relative: &str) -> String {
        if relative.is_empty() {
            self.crd_prefix.clone()
        } else {
            format!("{}.{relative}", self.crd_prefix)
        }
    }

    fn bound_fix(&self, cand: &Candidate, value: u64, largest: Option<u64>) -> BoundFix {
        let path = schema_path(&cand.steps);
        BoundFix {
            bound: cand.kind,
            crd_path: self.crd_path(&path),
            path,
            value,
            largest,
            edit: self
                .node(&cand.steps)
                .and_then(|n| bound_edit(self.text, n, cand.kind.keyword(), value)),
        }
    }

    fn fix(&self, cands: &[Candidate], fix: &Plan) -> Fix {
        Fix {
            bounds: fix
                .0
                .iter()
                .filter_map(|(c, v)| cands.get(*c).map(|cand| self.bound_fix(cand, *v, None)))
                .collect(),
            cost: fix.1,
        }
    }
}

/// A size the estimator gives a value it cannot bound (cel-go's `math.MaxUint64`, and
/// anything beyond what a 3 MiB request can hold).
const UNBOUNDED_SIZE: u64 = 3 * 1024 * 1024 * 4;

/// The operands of a node (a call's receiver and arguments, a list's elements, ...).
fn expr_children(e: &crd_studio_cel::ast::Expr) -> Vec<&crd_studio_cel::ast::Expr> {
    use crd_studio_cel::ast::ExprKind;
    match &e.kind {
        ExprKind::Call(c) => c.target.iter().chain(&c.args).collect(),
        ExprKind::Select(s) => vec![&s.operand],
        ExprKind::List(l) => l.elements.iter().collect(),
        ExprKind::Map(m) => m
            .entries
            .iter()
            .flat_map(|en| [&en.key, &en.value])
            .collect(),
        ExprKind::Struct(s) => s.fields.iter().map(|f| &f.value).collect(),
        ExprKind::Comprehension(c) => vec![
            &c.iter_range,
            &c.accu_init,
            &c.loop_condition,
            &c.loop_step,
            &c.result,
        ],
        _ => Vec::new(),
    }
}

/// A function as the user writes it: operators without cel-go's underscores (`_+_` → `+`,
/// `!_` → `!`, `_[_]` → `[]`), other functions by name.
fn display_function(name: &str) -> String {
    match name {
        "_[_]" | "_[?_]" => "[]".to_owned(),
        "_?_:_" => "?:".to_owned(),
        n if n.starts_with('_') || n.ends_with('_') => n.trim_matches('_').to_owned(),
        n => n.to_owned(),
    }
}

/// The note's sentence about an expensive call.
pub fn expensive_call_text(c: &ExpensiveCall) -> String {
    let what = if c
        .function
        .chars()
        .all(|ch| ch.is_alphanumeric() || ch == '.')
    {
        format!("{}(…)", c.function)
    } else {
        format!("the {} operator", c.function)
    };
    format!(
        "the expensive call is {what} at {}:{} of the expression, about {:.0}% of its estimated cost ({}); {}",
        c.line,
        c.column,
        c.share * 100.0,
        c.cost,
        c.advice
    )
}

fn share(cost: u64, limit: u64) -> f64 {
    cost as f64 / limit as f64
}

fn render(a: &Analysis, place: &Place<'_>) -> CostReport {
    let limit = STATIC_ESTIMATED_COST_LIMIT;
    let mut expressions = Vec::with_capacity(a.exprs.len());
    for (i, x) in a.exprs.iter().enumerate() {
        let steps = a.nodes.get(x.node).map(Vec::as_slice).unwrap_or_default();
        let field = expr_field(&a.nodes, x);
        let scalar = place
            .node(steps)
            .and_then(|n| n.get("x-kubernetes-validations"))
            .and_then(Node::as_seq)
            .and_then(|rs| rs.get(x.index))
            .and_then(|r| r.get(x.kind.field()));
        let is_rule = x.kind == ExpressionKind::Rule;
        let multiplier = if is_rule {
            x.base.cardinality.unwrap_or(x.base.max_cardinality)
        } else {
            1
        };
        let ex = a.explained.get(i).cloned().unwrap_or_default();
        let drivers = ex
            .drivers
            .iter()
            .filter_map(|d| {
                let cand = a.cands.get(d.cand)?;
                let path = schema_path(&cand.steps);
                let at = place.key_span(&cand.steps);
                Some(CostDriver {
                    role: d.role,
                    bound: cand.kind,
                    crd_path: place.crd_path(&path),
                    path,
                    value_path: value_path(&cand.steps),
                    line: at.map(|s| s.start.line),
                    column: at.map(|s| s.start.column),
                    location: at.map(|span| Location {
                        source: SourceId::Crd,
                        document: place.document,
                        span,
                    }),
                    current: cand.current,
                    assumed_size: cand.assumed,
                    element_min_size: cand.element_min_size,
                    cost_at_minimum: d.cost_at_minimum,
                    fix: d
                        .fix
                        .map(|(value, largest, _)| place.bound_fix(cand, value, largest)),
                })
            })
            .collect();
        let over = x.cost > limit;
        expressions.push(ExpressionCost {
            key: rule_key(steps, x.index),
            kind: x.kind,
            crd_path: place.crd_path(&field),
            field,
            value_path: value_path(steps),
            expression: x.text.clone(),
            line: scalar.map(|s| s.span.start.line),
            column: scalar.map(|s| s.span.start.column),
            max_cost: if is_rule { x.base.max_cost } else { x.cost },
            cardinality: if is_rule { x.base.cardinality } else { Some(1) },
            max_cardinality: x.base.max_cardinality,
            multiplier,
            estimated_cost: x.cost,
            limit,
            share: share(x.cost, limit),
            over_limit: over,
            message: over.then(|| {
                let name = if is_rule {
                    "estimated rule cost"
                } else {
                    "estimated messageExpression cost"
                };
                cost_error_message(name, x.cost, limit)
            }),
            drivers,
            suggestion: ex.suggestion.as_ref().map(|s| {
                // A single bound keeps its bisection figure.
                let mut f = place.fix(&a.cands, s);
                if let ([b], [(c, _)]) = (f.bounds.as_mut_slice(), s.0.as_slice()) {
                    b.largest = ex
                        .drivers
                        .iter()
                        .find(|d| d.cand == *c)
                        .and_then(|d| d.fix)
                        .and_then(|(_, l, _)| l);
                }
                f
            }),
            note: ex.note.clone(),
            expensive_call: ex.expensive_call.clone(),
        });
    }
    let total_limit = STATIC_ESTIMATED_CRD_COST_LIMIT;
    let total_over = a.total.total > total_limit;
    let prefix = format!("{}.", place.crd_prefix);
    CostReport {
        expression_limit: limit,
        total_limit,
        expressions,
        total: a.total.total,
        total_share: share(a.total.total, total_limit),
        total_over_limit: total_over,
        total_message: total_over.then(|| {
            cost_error_message(
                "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                a.total.total,
                total_limit,
            )
        }),
        top_contributors: a
            .total
            .most_expensive
            .iter()
            .map(|(p, cost)| {
                let field = p.to_string();
                Contributor {
                    crd_path: format!("{prefix}{field}"),
                    field,
                    cost: *cost,
                }
            })
            .collect(),
        fix: a.fix.as_ref().map(|f| place.fix(&a.cands, f)),
        fix_note: a.fix_note.clone(),
    }
}

// ------------------------------------------------------------------------------------------
// The text edit
// ------------------------------------------------------------------------------------------

/// The edit that sets `keyword: value` in the mapping `node` of the YAML or JSON `text`:
/// the existing `keyword`'s value replaced, or a new entry written before the node's first
/// key, in the node's style — a new line with the same indentation in a block mapping (after
/// a `- ` too), `keyword: value, ` in a flow mapping (`"keyword": value,` when its keys are
/// quoted, as in JSON, on a line of its own when the first key starts its line), `{keyword:
/// value}` in an empty flow mapping. `None` when `node` is not a mapping written inside its
/// own span (a YAML alias, a merged key) or the existing value is not an integer.
pub fn bound_edit(text: &str, node: &Node, keyword: &str, value: u64) -> Option<TextEdit> {
    let Value::Map(entries) = &node.value else {
        return None;
    };
    let (start, end) = (node.span.start.offset, node.span.end.offset);
    let inside = |o: usize| o >= start && o < end.max(start + 1);
    if let Some(e) = entries.iter().find(|e| e.key == keyword) {
        if !inside(e.key_span.start.offset) || !matches!(e.value.value, Value::Int(_)) {
            return None;
        }
        return Some(TextEdit {
            start: e.value.span.start.offset,
            end: e.value.span.end.offset,
            text: value.to_string(),
        });
    }
    let first = entries
        .iter()
        .map(|e| e.key_span.start.offset)
        .filter(|o| inside(*o))
        .min();
    let Some(k) = first else {
        // An empty mapping: only a flow one (`{}`) can be empty.
        if !entries.is_empty() {
            return None;
        }
        let brace = start + text.get(start..end)?.find('{')?;
        return Some(TextEdit {
            start: brace + 1,
            end: brace + 1,
            text: format!("{keyword}: {value}"),
        });
    };
    let before = text.get(..k)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let prefix = before.get(line_start..)?;
    let starts_line = prefix.chars().all(|c| c == ' ' || c == '\t');
    // An explicit key (`? key`) has no room for an entry before it.
    if prefix.trim_end().ends_with('?') {
        return None;
    }
    // The text's own line breaks.
    let nl = if before.get(..line_start)?.ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let flow = before.trim_end().ends_with('{');
    if flow {
        let quoted = text.get(k..)?.starts_with('"');
        let key = if quoted {
            format!("\"{keyword}\"")
        } else {
            keyword.to_owned()
        };
        let text = if starts_line {
            format!("{key}: {value},{nl}{prefix}")
        } else {
            format!("{key}: {value}, ")
        };
        return Some(TextEdit {
            start: k,
            end: k,
            text,
        });
    }
    // A block mapping: a line of its own at the first key's column.
    let indent: String = if starts_line {
        prefix.to_owned()
    } else {
        " ".repeat(prefix.chars().count())
    };
    Some(TextEdit {
        start: k,
        end: k,
        text: format!("{keyword}: {value}{nl}{indent}"),
    })
}

#[cfg(test)]
mod tests;
