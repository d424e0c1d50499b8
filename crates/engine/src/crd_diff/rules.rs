//! CEL rules (`x-kubernetes-validations`) of one schema node, old against new: rules added,
//! changed, removed, their options, and estimated cost increases (the cel stage's compiler and
//! estimator: the numbers the CRD analysis reports).

use crate::cel::RuleCompiler;
use crate::crd::apiext::hooks::CelStep;
use crate::crd::apiext::internal::{from_v1_json, InternalCrd};
use crate::documents::document::Node;
use crate::documents::kube_version::KubernetesVersion;
use crate::schema::props::JsonSchemaProps;

use super::sites::SchemaStep;
use super::ChangeSeverity::{self, Compatible, Risky};

/// One rule difference at a schema node.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleChange {
    /// The change code without the `crd.change.` prefix.
    pub code: &'static str,
    /// How bad it is.
    pub severity: ChangeSeverity,
    /// What changed.
    pub message: String,
    /// The old rule's node.
    pub old_index: Option<usize>,
    /// The new rule's node.
    pub new_index: Option<usize>,
    /// The old and new estimated costs, when the change is about cost.
    pub costs: Option<(u64, u64)>,
}

/// A CRD revision as the server holds it, for cost estimates.
pub struct CostModel {
    crd: Option<InternalCrd>,
    compiler: RuleCompiler,
}

impl CostModel {
    /// Decodes the CRD (`root`) as the server does; no estimates when it does not decode.
    /// Rules compile in the CEL environment a server of `kube` compiles new expressions in
    /// (its compatibility version, one minor behind).
    pub fn new(root: &Node, kube: KubernetesVersion) -> CostModel {
        let (crd, _problems) = from_v1_json(&root.to_json());
        CostModel {
            crd: Some(crd),
            compiler: RuleCompiler::new(kube),
        }
    }

    /// The compiler the estimates come from.
    #[cfg(any(test, feature = "conformance"))]
    pub(crate) fn compiler(&self) -> &RuleCompiler {
        &self.compiler
    }

    /// The version's `openAPIV3Schema` as the server holds it.
    pub(crate) fn schema(&self, version: &str) -> Option<&JsonSchemaProps> {
        let crd = self.crd.as_ref()?;
        let v = crd.spec.versions.iter().find(|v| v.name == version)?;
        v.schema
            .as_ref()
            .or(crd.spec.validation.as_ref())
            .and_then(|s| s.open_api_v3_schema.as_deref())
    }

    /// The estimated cost (`MaxCost × cardinality`, as the CRD analysis reports it) of each
    /// rule of the node at `steps` in `version`; `None` when the node's rules cannot be
    /// estimated (no type information, a path through combinators), and `None` for a rule
    /// that does not compile.
    pub fn costs(&self, version: &str, steps: &[SchemaStep]) -> Option<Vec<Option<u64>>> {
        let root = self.schema(version)?;
        let cel_steps: Option<Vec<CelStep>> = steps
            .iter()
            .map(|s| match s {
                SchemaStep::Property(n) => Some(CelStep::Property(n.clone())),
                SchemaStep::Items => Some(CelStep::Items),
                SchemaStep::AdditionalProperties => Some(CelStep::AdditionalProperties),
                _ => None,
            })
            .collect();
        let (compilations, cardinality) = self.compiler.compile_at(root, &cel_steps?).ok()?;
        Some(
            compilations
                .iter()
                .map(|c| {
                    c.error
                        .is_none()
                        .then(|| crate::cel::rule_cost(c, cardinality).estimated_cost)
                })
                .collect(),
        )
    }
}

fn rule_text(r: &Node) -> &str {
    r.get("rule").and_then(Node::as_str).unwrap_or_default()
}

fn is_transition(rule: &str) -> bool {
    rule.contains("oldSelf")
}

fn opt(r: &Node, k: &str) -> Option<serde_json::Value> {
    r.get(k).map(Node::to_json)
}

/// The rule differences between two nodes' `x-kubernetes-validations` (rules matched by
/// their text; an unmatched new rule where an unmatched old rule was at the same index is a
/// change of that rule).
pub fn rule_changes(
    old: &Node,
    new: &Node,
    old_costs: Option<&[Option<u64>]>,
    new_costs: Option<&[Option<u64>]>,
) -> Vec<RuleChange> {
    let empty: &[Node] = &[];
    let orules = old
        .get("x-kubernetes-validations")
        .and_then(Node::as_seq)
        .unwrap_or(empty);
    let nrules = new
        .get("x-kubernetes-validations")
        .and_then(Node::as_seq)
        .unwrap_or(empty);
    let mut out = Vec::new();
    let mut old_used = vec![false; orules.len()];
    let mut pairs: Vec<(Option<usize>, usize)> = Vec::new();
    for (j, r) in nrules.iter().enumerate() {
        let m = orules.iter().enumerate().position(|(i, o)| {
            !old_used.get(i).copied().unwrap_or(true) && rule_text(o) == rule_text(r)
        });
        if let Some(i) = m {
            if let Some(u) = old_used.get_mut(i) {
                *u = true;
            }
        }
        pairs.push((m, j));
    }
    let cost = |c: Option<&[Option<u64>]>, i: usize| c.and_then(|c| c.get(i).copied().flatten());
    for (m, j) in pairs.iter().copied() {
        let Some(r) = nrules.get(j) else { continue };
        let text = rule_text(r);
        let new_cost = cost(new_costs, j);
        let cost_note = new_cost
            .map(|c| format!(" (estimated cost {c})"))
            .unwrap_or_default();
        match m {
            None => {
                let same_index_free =
                    orules.get(j).is_some() && !old_used.get(j).copied().unwrap_or(true);
                if same_index_free {
                    if let Some(u) = old_used.get_mut(j) {
                        *u = true;
                    }
                    let old_text = orules.get(j).map(rule_text).unwrap_or_default();
                    out.push(RuleChange {
                        code: "rule-changed",
                        severity: Risky,
                        message: format!(
                            "CEL rule changed from `{old_text}` to `{text}`{cost_note}: objects valid before may be rejected{}",
                            if is_transition(text) { " on update" } else { "" }
                        ),
                        old_index: Some(j),
                        new_index: Some(j),
                        costs: None,
                    });
                } else {
                    out.push(RuleChange {
                        code: "rule-added",
                        severity: Risky,
                        message: if is_transition(text) {
                            format!("transition rule `{text}` added{cost_note}: updates it rejects fail, creates are not checked")
                        } else {
                            format!("CEL rule `{text}` added{cost_note}: objects it rejects are refused on create, and on update unless the value is unchanged (ratcheting)")
                        },
                        old_index: None,
                        new_index: Some(j),
                        costs: None,
                    });
                }
            }
            Some(i) => {
                let Some(o) = orules.get(i) else { continue };
                if opt(o, "optionalOldSelf") != opt(r, "optionalOldSelf") {
                    out.push(RuleChange {
                        code: "rule-changed",
                        severity: Risky,
                        message: format!(
                            "optionalOldSelf of CEL rule `{text}` changed: the rule now runs on {}",
                            if opt(r, "optionalOldSelf").and_then(|v| v.as_bool()) == Some(true) {
                                "creates too (oldSelf optional)"
                            } else {
                                "updates only"
                            }
                        ),
                        old_index: Some(i),
                        new_index: Some(j),
                        costs: None,
                    });
                }
                let details = ["message", "messageExpression", "reason", "fieldPath"];
                let changed: Vec<&str> = details
                    .iter()
                    .copied()
                    .filter(|k| opt(o, k) != opt(r, k))
                    .collect();
                if !changed.is_empty() {
                    out.push(RuleChange {
                        code: "rule-message-changed",
                        severity: Compatible,
                        message: format!("{} of CEL rule `{text}` changed", changed.join(", ")),
                        old_index: Some(i),
                        new_index: Some(j),
                        costs: None,
                    });
                }
                if let (Some(a), Some(b)) = (cost(old_costs, i), new_cost) {
                    if b > a {
                        out.push(RuleChange {
                            code: "rule-cost-increased",
                            severity: Risky,
                            message: format!(
                                "estimated cost of CEL rule `{text}` rose from {a} to {b} (limit 10000000 per rule, 100000000 per CRD)"
                            ),
                            old_index: Some(i),
                            new_index: Some(j),
                            costs: Some((a, b)),
                        });
                    }
                }
            }
        }
    }
    for (i, used) in old_used.iter().enumerate() {
        if !used {
            let text = orules.get(i).map(rule_text).unwrap_or_default();
            out.push(RuleChange {
                code: "rule-removed",
                severity: Compatible,
                message: format!("CEL rule `{text}` removed: objects it rejected are accepted"),
                old_index: Some(i),
                new_index: None,
                costs: None,
            });
        }
    }
    out
}
