//! Placing an analysis in a version's text: the rules' and bounds' locations, the rendered
//! [`CostReport`].

use super::*;

/// Where a schema is in the CRD text.
pub(super) struct Place<'a> {
    pub(super) text: &'a str,
    /// The index of the CRD's document in `text`.
    pub(super) document: usize,
    pub(super) schema_node: Option<&'a Node>,
    pub(super) crd_prefix: String,
}

impl Place<'_> {
    pub(super) fn node(&self, steps: &[CelStep]) -> Option<&Node> {
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
    pub(super) fn key_span(&self, steps: &[CelStep]) -> Option<crate::documents::position::Span> {
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

    pub(super) fn crd_path(&self, relative: &str) -> String {
        if relative.is_empty() {
            self.crd_prefix.clone()
        } else {
            format!("{}.{relative}", self.crd_prefix)
        }
    }

    pub(super) fn bound_fix(&self, cand: &Candidate, value: u64, largest: Option<u64>) -> BoundFix {
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

    pub(super) fn fix(&self, cands: &[Candidate], fix: &Plan) -> Fix {
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
pub(super) const UNBOUNDED_SIZE: u64 = 3 * 1024 * 1024 * 4;

/// The operands of a node (a call's receiver and arguments, a list's elements, ...).
pub(super) fn expr_children(e: &crd_studio_cel::ast::Expr) -> Vec<&crd_studio_cel::ast::Expr> {
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
pub(super) fn display_function(name: &str) -> String {
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

pub(super) fn share(cost: u64, limit: u64) -> f64 {
    cost as f64 / limit as f64
}

pub(super) fn render(a: &Analysis, place: &Place<'_>) -> CostReport {
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
