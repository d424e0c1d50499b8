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

mod analysis;
use analysis::*;

mod place;
pub use place::*;

mod edit;
pub use edit::*;

#[cfg(test)]
mod tests;
