//! The report types the CEL stage fills, which the [`crate::report`] stage returns: each
//! version's [`VersionReport`] (its rules, table columns and cost report), each rule's
//! [`CelRuleReport`] keyed by [`rule_key`], and each evaluation's [`CelRuleResult`].

use serde::{Deserialize, Serialize};

use crate::crd::apiext::CelStep;
use crate::documents::finding::Location;

/// One version of the CRD.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionReport {
    /// The version name.
    pub name: String,
    /// Whether it is served.
    pub served: bool,
    /// Whether it is the storage version.
    pub storage: bool,
    /// Where the server reports its schema errors (`spec.validation.openAPIV3Schema` for a
    /// CRD whose versions share one schema, else `spec.versions[i].schema.openAPIV3Schema`).
    pub schema_path: String,
    /// Whether the version has a schema.
    pub has_schema: bool,
    /// The columns of the version's `kubectl get` table as the server serves them: the
    /// implicit Name column, then the declared `additionalPrinterColumns` (or the default
    /// Age column when none is declared), up to the first JSONPath the server cannot parse.
    #[serde(default)]
    pub columns: Vec<TableColumnReport>,
    /// Every `x-kubernetes-validations` rule of the version's schema, in [`rule_key`] order
    /// (pre-order: a node's rules, then its properties by name, `items`,
    /// `additionalProperties`).
    #[serde(default)]
    pub rules: Vec<CelRuleReport>,
    /// The estimated CEL cost of the version's rules as CRD validation checks it, with what
    /// drives each cost and the bounds that would bring it under the limits
    /// ([`crate::cel::cost_explain`]); `None` when no rule compiled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<crate::cel::cost_explain::CostReport>,
}

/// Where a rule is inside a version's `openAPIV3Schema`, as the server writes the path
/// of its CRD errors (relative to `openAPIV3Schema`): `x-kubernetes-validations[0]` for a
/// root rule, `properties[spec].items.x-kubernetes-validations[1]` deeper. This key ties a
/// [`CelRuleResult`] to its [`CelRuleReport`].
pub fn rule_key(steps: &[CelStep], index: usize) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            CelStep::Property(name) => {
                out.push_str("properties[");
                out.push_str(name);
                out.push_str("].");
            }
            CelStep::Items => out.push_str("items."),
            CelStep::AdditionalProperties => out.push_str("additionalProperties."),
        }
    }
    out.push_str(&format!("x-kubernetes-validations[{index}]"));
    out
}

/// One `x-kubernetes-validations` rule, as the CEL view lists it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CelRuleReport {
    /// [`rule_key`]: the rule's place relative to `openAPIV3Schema`.
    pub key: String,
    /// The full field path of the rule in the CRD (`spec.versions[0].schema.openAPIV3Schema.
    /// properties[spec].x-kubernetes-validations[0]`), as the server reports its errors.
    pub crd_path: String,
    /// Where the rule's values are in an object, `self` at the root: `.spec.items[*]`,
    /// `.spec.labels[*]` (map values), `` for the root.
    pub value_path: String,
    /// `rule`.
    pub rule: String,
    /// `message`.
    pub message: String,
    /// `messageExpression`.
    pub message_expression: String,
    /// `reason` (empty when unset).
    pub reason: String,
    /// `fieldPath` (empty when unset).
    pub field_path: String,
    /// `optionalOldSelf: true`.
    pub optional_old_self: bool,
    /// Whether the rule refers to `oldSelf` (a transition rule).
    pub transition: bool,
    /// The compile error of the rule, in the server's words, when it does not compile.
    pub compile_error: Option<String>,
    /// The compile error of `messageExpression`, when it does not compile.
    pub message_expression_error: Option<String>,
    /// 1-based line of the rule's text in the CRD text.
    pub line: Option<usize>,
    /// 1-based column of the rule's text in the CRD text.
    pub column: Option<usize>,
    /// Byte range of the rule's YAML/JSON scalar (quotes and block indicators included) in
    /// the CRD text, for editors that rewrite the rule.
    pub text_range: Option<(usize, usize)>,
    /// Where the rule's scalar is in the CRD text (line, column, UTF-16 column), for the
    /// shells that put a cursor on it.
    pub location: Option<Location>,
    /// The rule's estimated cost as CRD validation checks it against the per-rule limit
    /// (10,000,000): `max_cost × cardinality`, or `max_cost × max_cardinality` when the
    /// cardinality is unbounded (`None` when the rule did not compile).
    pub estimated_cost: Option<u64>,
    /// The schema cardinality of the rule's node: the product of `maxItems`/`maxProperties`
    /// of the lists and maps above it (`None`: unbounded, or the rule did not compile).
    pub cardinality: Option<u64>,
    /// The estimated maximum cost of one evaluation (`MaxCost`; `None` when the rule did not
    /// compile).
    pub max_cost: Option<u64>,
    /// The worst-case number of values of the rule's node in one request, from their minimum
    /// JSON size (`MaxCardinality`), which replaces an unbounded cardinality.
    pub max_cardinality: Option<u64>,
    /// The estimated maximum cost of the `messageExpression` (`None` when there is none or it
    /// did not compile).
    pub message_expression_max_cost: Option<u64>,
}

/// What happened when a rule ran on one value of an object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CelOutcome {
    /// The rule returned true.
    #[default]
    Passed,
    /// The rule returned false: the server returns `message` (or the evaluated
    /// `messageExpression`).
    Failed,
    /// The evaluation failed (no such key, overflow, cost limit ...).
    Error,
    /// The rule did not run (a transition rule without an old value, or the object had
    /// blocking schema errors, or the budget ran out).
    Skipped,
}

/// One evaluation of a rule on one value of an object (create, or update with the old
/// object).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CelRuleResult {
    /// The [`CelRuleReport::key`] of the rule, in the object's version.
    pub rule: String,
    /// The object's version whose rule ran.
    pub version: String,
    /// The value the rule ran on (`self`), as a field path (`spec.items[0]`; `<root>` for
    /// the object itself).
    pub path: String,
    /// The outcome.
    pub outcome: CelOutcome,
    /// The error the server returns for it (`Failed`, `Error`), in its words.
    pub message: Option<String>,
    /// Why it was skipped, or the evaluation error's detail.
    pub detail: Option<String>,
    /// The runtime cost of this evaluation.
    pub cost: u64,
}

/// One column of a version's `kubectl get` table (`metav1.TableColumnDefinition`, plus
/// where it comes from).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TableColumnReport {
    /// `name` (kubectl prints it upper-cased).
    pub name: String,
    /// `type`: `string`, `integer`, `number`, `boolean` or `date`.
    #[serde(rename = "type")]
    pub type_: String,
    /// `format` (`name` for the Name column).
    pub format: String,
    /// `description` (the server's default text when the CRD gives none).
    pub description: String,
    /// `priority`: 0 is shown by `kubectl get`, more only by `kubectl get -o wide`.
    pub priority: i64,
    /// The JSONPath the cells come from (`.metadata.name` for the Name column, which the
    /// server reads from the object's metadata).
    pub json_path: String,
    /// Whether the server adds the column itself (Name; Age when none is declared).
    pub implicit: bool,
    /// 1-based line of the column's `jsonPath` in the CRD text (declared columns).
    pub line: Option<usize>,
    /// 1-based column of the column's `jsonPath` in the CRD text (declared columns).
    pub column: Option<usize>,
}
