//! The CEL cost facts of a CRD revision, rule by rule, as CRD validation estimates them (the
//! cel stage's compiler and estimator): each rule's raw cost, the cardinality of its node (or
//! the parents that leave it unbounded), the estimated cost against the 10,000,000 per-rule
//! limit, compile errors, the bounds of the node itself, and each version's total against
//! 100,000,000. Adapters render them in a peer tool's words (crd-schema-checker's
//! `MustNotExceedCostBudget`).

use crate::crd::apiext::hooks::{CelErrorKind, CelStep};
use crate::crd::apiext::internal::rule_json;
use crate::schema::props::{JsonSchemaProps, SchemaOrArray};
use crate::schema::structural::Structural;

use super::rules::CostModel;
use super::sites::{parse_text, Revision};
use crate::documents::finding::SourceId;
use crate::documents::kube_version::KubernetesVersion;

/// The per-rule limit (`StaticEstimatedCostLimit`).
#[cfg(feature = "conformance")]
pub const RULE_LIMIT: u64 = 10_000_000;
/// The per-CRD limit (`StaticEstimatedCRDCostLimit`).
#[cfg(feature = "conformance")]
pub const TOTAL_LIMIT: u64 = 100_000_000;

/// One rule of a node.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleFacts {
    /// Its index in the node's `x-kubernetes-validations`.
    pub index: usize,
    /// `MaxCost`: one evaluation's estimated worst case.
    pub raw_cost: u64,
    /// CEL's own worst-case cardinality of the node (`MaxCardinality`).
    pub max_cardinality: u64,
    /// `MaxCost × cardinality` (CEL's cardinality when the schema's is unbounded), saturating.
    pub estimated_cost: u64,
    /// The compile error: `true` for a `Required` error, and the detail.
    pub error: Option<(bool, String)>,
    /// The rule as Go's JSON prints the internal `ValidationRule` (the bad value of an
    /// `Invalid` error).
    pub rule_json: String,
    /// The `messageExpression` compile error.
    pub message_expression_error: Option<String>,
    /// The `messageExpression`'s estimated cost, when it has one that compiled.
    pub message_expression_cost: Option<u64>,
}

/// A schema node with rules.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeFacts {
    /// The node's location: `^.spec.list[*].name`.
    pub location: String,
    /// Its full schema path: `^.properties[spec].properties[list].items.properties[name]`.
    pub schema_path: String,
    /// `type`.
    pub type_: String,
    /// Whether it has an `enum`.
    pub has_enum: bool,
    /// `maxLength`.
    pub max_length: Option<i64>,
    /// `maxItems`.
    pub max_items: Option<i64>,
    /// The size CEL assumes for it without a bound (`MaxElements` of its own declared type).
    pub assumed_size: i64,
    /// The schema cardinality (product of the parents' `maxItems`/`maxProperties`); `None`
    /// when unbounded.
    pub cardinality: Option<u64>,
    /// The parents without a bound, by location.
    pub unbounded_parents: Vec<String>,
    /// The rules.
    pub rules: Vec<RuleFacts>,
}

/// One version.
#[derive(Clone, Debug, PartialEq)]
pub struct VersionFacts {
    /// The version's name.
    pub version: String,
    /// The nodes with rules.
    pub nodes: Vec<NodeFacts>,
    /// The sum of the estimated costs (rules and message expressions), saturating.
    pub total: u64,
}

fn unbounded(s: &JsonSchemaProps) -> bool {
    match s.type_.as_str() {
        "object" => s.additional_properties.is_some() && s.rare.max_properties.is_none(),
        "array" => s.max_items.is_none(),
        _ => false,
    }
}

/// The cost facts of every version of the CRD in `text` (none when it is not a CRD), with
/// rules compiled as a server of `kube` compiles them.
pub fn cost_facts(text: &str, kube: KubernetesVersion) -> Vec<VersionFacts> {
    let parsed = parse_text(text, SourceId::Crd);
    let Some(rev) = Revision::read(&parsed) else {
        return Vec::new();
    };
    let model = CostModel::new(rev.root, kube);
    let mut out = Vec::new();
    for v in &rev.versions {
        let Some(root) = model.schema(&v.name) else {
            continue;
        };
        let mut facts = VersionFacts {
            version: v.name.clone(),
            nodes: Vec::new(),
            total: 0,
        };
        // (node, steps, location, schema path, ancestors' (schema, location))
        type Frame<'a> = (
            &'a JsonSchemaProps,
            Vec<CelStep>,
            String,
            String,
            Vec<(&'a JsonSchemaProps, String)>,
        );
        let mut stack: Vec<Frame<'_>> =
            vec![(root, Vec::new(), "^".to_owned(), "^".to_owned(), Vec::new())];
        while let Some((node, steps, loc, path, ancestors)) = stack.pop() {
            let mut up = ancestors.clone();
            up.push((node, loc.clone()));
            if let Some(SchemaOrArray::Schema(items)) = &node.items {
                let mut s = steps.clone();
                s.push(CelStep::Items);
                stack.push((
                    items,
                    s,
                    format!("{loc}[*]"),
                    format!("{path}.items"),
                    up.clone(),
                ));
            }
            if let Some(add) = node
                .additional_properties
                .as_ref()
                .and_then(|a| a.schema.as_deref())
            {
                let mut s = steps.clone();
                s.push(CelStep::AdditionalProperties);
                stack.push((
                    add,
                    s,
                    format!("{loc}[*]"),
                    format!("{path}.additionalProperties"),
                    up.clone(),
                ));
            }
            for (name, child) in node.properties.iter().rev() {
                let mut s = steps.clone();
                s.push(CelStep::Property(name.clone()));
                stack.push((
                    child,
                    s,
                    format!("{loc}.{name}"),
                    format!("{path}.properties[{name}]"),
                    up.clone(),
                ));
            }
            if node.x_validations.is_empty() {
                continue;
            }
            let Ok((compiled, cardinality)) = model.compiler().compile_at(root, &steps) else {
                continue;
            };
            let assumed_size = Structural::from_props(node)
                .ok()
                .and_then(|s| crate::cel::decl_type::schema_decl_type(&s, steps.is_empty()))
                .map(|d| d.max_elements)
                .unwrap_or(0);
            let rules: Vec<RuleFacts> = compiled
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let cost = crate::cel::rule_cost(c, cardinality);
                    RuleFacts {
                        index: i,
                        raw_cost: c.max_cost,
                        max_cardinality: c.max_cardinality,
                        estimated_cost: cost.estimated_cost,
                        error: c
                            .error
                            .as_ref()
                            .map(|(k, d)| (matches!(k, CelErrorKind::Required), d.clone())),
                        rule_json: node.x_validations.get(i).map(rule_json).unwrap_or_default(),
                        message_expression_error: c.message_expression_error.clone(),
                        message_expression_cost: cost.message_expression_max_cost,
                    }
                })
                .collect();
            for r in &rules {
                facts.total = facts
                    .total
                    .saturating_add(r.estimated_cost)
                    .saturating_add(r.message_expression_cost.unwrap_or(0));
            }
            facts.nodes.push(NodeFacts {
                location: loc,
                schema_path: path,
                type_: node.type_.clone(),
                has_enum: !node.enum_.is_empty(),
                max_length: node.max_length,
                max_items: node.max_items,
                assumed_size,
                cardinality,
                unbounded_parents: ancestors
                    .iter()
                    .filter(|(s, _)| unbounded(s))
                    .map(|(_, l)| l.clone())
                    .collect(),
                rules,
            });
        }
        out.push(facts);
    }
    out
}
