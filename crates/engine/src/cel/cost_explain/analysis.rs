//! The analysis of one schema, without its text: each expression's cost, the cardinality
//! of its node and the bounds (`maxItems`, `maxLength`, ...) that drive it, as the server's
//! estimator computes them.

use super::*;

/// One expression of the schema.
#[derive(Clone, Debug)]
pub(super) struct Expr {
    /// Index of its node in [`Estimates::nodes`].
    pub(super) node: usize,
    /// The rule's index at the node.
    pub(super) index: usize,
    pub(super) kind: ExpressionKind,
    pub(super) text: String,
    pub(super) optional_old_self: bool,
    /// The figures CRD validation found.
    pub(super) base: RuleCost,
    /// Its cost (rule: `estimated_cost`; messageExpression: its max cost).
    pub(super) cost: u64,
}

/// A node that a bound could be added to (or lowered on).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Candidate {
    pub(super) steps: Vec<CelStep>,
    pub(super) kind: BoundKind,
    pub(super) current: Option<u64>,
    /// `MaxElements` as the estimator sees the node.
    pub(super) assumed: u64,
    /// For a list or map, the `MinSerializedSize` of its elements.
    pub(super) element_min_size: Option<u64>,
    /// The smallest bound allowed.
    pub(super) floor: u64,
    /// Bounds from here on do not lower the size (exclusive).
    pub(super) upper: u64,
}

/// A driver found for an expression (candidate index, role, cost at minimum, single fix).
#[derive(Clone, Debug)]
pub(super) struct Driver {
    pub(super) cand: usize,
    pub(super) role: DriverRole,
    pub(super) cost_at_minimum: u64,
    pub(super) fix: Option<SingleFix>,
}

/// The explanation of one expression.
#[derive(Clone, Debug, Default)]
pub(super) struct Explained {
    pub(super) drivers: Vec<Driver>,
    /// The suggestion: (candidate, value) pairs, and the cost.
    pub(super) suggestion: Option<Plan>,
    pub(super) note: Option<String>,
    pub(super) expensive_call: Option<ExpensiveCall>,
}

/// The analysis of one schema, before it is placed in a version's text.
#[derive(Clone, Debug)]
pub(super) struct Analysis {
    pub(super) nodes: Vec<Vec<CelStep>>,
    pub(super) exprs: Vec<Expr>,
    pub(super) cands: Vec<Candidate>,
    pub(super) explained: Vec<Explained>,
    pub(super) total: TotalCost,
    pub(super) fix: Option<Plan>,
    pub(super) fix_note: Option<String>,
}

/// Bound values by candidate index.
pub(super) type Assign = Vec<(usize, u64)>;

/// Bounds and the cost they give.
pub(super) type Plan = (Assign, u64);

/// One bound that is enough alone: the round value, the largest value that fits (when
/// searched), the cost.
pub(super) type SingleFix = (u64, Option<u64>, u64);

/// A predicate on bounds: the cost they give when it fits.
pub(super) type Fits<'f> = dyn FnMut(&[(usize, u64)]) -> Option<u64> + 'f;

/// A bound value meaning "leave the node as it is" (the top of every joint ladder).
pub(super) const UNCHANGED: u64 = u64::MAX;

/// Re-estimates expressions with bounds added to a copy of the schema.
pub(super) struct Estimates<'a> {
    pub(super) compiler: &'a RuleCompiler,
    pub(super) root: &'a JsonSchemaProps,
    pub(super) nodes: Vec<Vec<CelStep>>,
    pub(super) exprs: Vec<Expr>,
    pub(super) cands: Vec<Candidate>,
    /// The compile results of a node's rules with bounds inside its subtree.
    pub(super) memo: RefCell<HashMap<(usize, Assign), Vec<CelCompilation>>>,
    /// How many more compilations the searches may do (see [`MAX_ESTIMATES`]).
    pub(super) budget: std::cell::Cell<usize>,
}

/// The expressions of a schema with the figures CRD validation found for them; `None` when
/// no rule compiled.
pub(super) fn estimates<'a>(
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

pub(super) fn analyze_schema(
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
pub(super) fn rule_nodes(schema: &JsonSchemaProps) -> Vec<(Vec<CelStep>, &JsonSchemaProps)> {
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
pub(super) fn node_at<'s>(
    root: &'s JsonSchemaProps,
    steps: &[CelStep],
) -> Option<&'s JsonSchemaProps> {
    let mut node = root;
    for step in steps {
        node = child(node, step)?;
    }
    Some(node)
}

pub(super) fn child<'s>(node: &'s JsonSchemaProps, step: &CelStep) -> Option<&'s JsonSchemaProps> {
    match step {
        CelStep::Property(name) => node.properties.get(name).map(Box::as_ref),
        CelStep::Items => node.items_schema(),
        CelStep::AdditionalProperties => node
            .additional_properties
            .as_ref()
            .and_then(|a| a.schema.as_deref()),
    }
}

pub(super) fn node_at_mut<'s>(
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
pub(super) fn set_bound(node: &mut JsonSchemaProps, kind: BoundKind, v: u64) {
    let v = i64::try_from(v).unwrap_or(i64::MAX);
    match kind {
        BoundKind::MaxItems => node.max_items = Some(v),
        BoundKind::MaxProperties => node.rare.max_properties = Some(v),
        BoundKind::MaxLength => node.max_length = Some(v),
    }
}

/// Whether one path is a prefix of the other (a bound at one can change the cost of rules at
/// the other: the rule's type covers its subtree, its cardinality its ancestors).
pub(super) fn related(a: &[CelStep], b: &[CelStep]) -> bool {
    let n = a.len().min(b.len());
    a.get(..n) == b.get(..n)
}

/// The relative path of a node (`properties[spec].items`; empty for the root).
pub(super) fn schema_path(steps: &[CelStep]) -> String {
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
pub(super) fn value_path(steps: &[CelStep]) -> String {
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
pub(super) fn expr_field(nodes: &[Vec<CelStep>], e: &Expr) -> String {
    let steps = nodes.get(e.node).map(Vec::as_slice).unwrap_or_default();
    format!("{}.{}", rule_key(steps, e.index), e.kind.field())
}

/// What bounds a node, its current bound and the smallest bound allowed; `None` for nodes no
/// bound makes smaller (objects with properties, scalars, strings of fixed-size formats or
/// with an `enum`).
pub(super) fn boundable(s: &JsonSchemaProps) -> Option<(BoundKind, Option<i64>, u64)> {
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
            s.rare.max_properties,
            min(s.rare.min_properties).max(default_len(&|d| d.as_object().map(|m| m.len()))),
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
pub(super) fn assumed_size(s: &JsonSchemaProps) -> Option<(u64, Option<u64>)> {
    let ss = Structural::from_props(s).ok()?;
    let t = schema_decl_type(&ss, false)?;
    let element = t.elem().map(|e| e.min_serialized_size.max(0) as u64);
    Some((t.max_elements.max(0) as u64, element))
}

/// The largest power of two counted as round.
pub(super) const ROUND_POWER_OF_TWO_MAX: u64 = 4096;

/// The round bound values: 1, 2, 5 × 10ⁿ and the powers of two from 16 to 4096.
pub(super) fn is_round(v: u64) -> bool {
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
pub(super) fn ladder(floor: u64, upper: u64) -> Vec<u64> {
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
pub(super) fn largest_fitting(
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
pub(super) fn bisect(lo: u64, hi: u64, fits: &mut dyn FnMut(u64) -> Option<u64>) -> u64 {
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
    pub(super) fn expr(&self, e: usize) -> Option<&Expr> {
        self.exprs.get(e)
    }

    pub(super) fn steps_of(&self, e: &Expr) -> &[CelStep] {
        self.nodes
            .get(e.node)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// The index of a candidate (added on first sight); `None` for nodes no bound shrinks.
    pub(super) fn candidate(&mut self, steps: &[CelStep]) -> Option<usize> {
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
    pub(super) fn compile_node(
        &self,
        n: usize,
        inner: &[(usize, u64)],
    ) -> Option<Vec<CelCompilation>> {
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
    pub(super) fn stopped(&self) -> bool {
        self.budget.get() == 0
    }

    /// An expression's cost with the bounds of `assign`: bounds above a rule's node change
    /// its cardinality, bounds in the node's subtree its estimate.
    pub(super) fn expr_cost(&self, e: usize, assign: &[(usize, u64)]) -> u64 {
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
    pub(super) fn expr_fits(&self, e: usize, assign: &[(usize, u64)], limit: u64) -> Option<u64> {
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
    pub(super) fn all_fit(&self, assign: &[(usize, u64)]) -> Option<u64> {
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
    pub(super) fn candidates_of(&mut self, e: usize, over: bool) -> Vec<(usize, DriverRole)> {
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
    pub(super) fn paths_in_self(&self, x: &Expr, steps: &[CelStep]) -> Vec<Vec<CelStep>> {
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
        crd_studio_gostd::sort::stable(&mut paths);
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
                        .find(|p| crate::cel::decl_type::escape(p).as_deref() == Some(f))
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
    pub(super) fn explain(&mut self, e: usize) -> Explained {
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
        crd_studio_gostd::sort::stable_by_key(&mut drivers, |d| match d.role {
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
    pub(super) fn expensive_call(&self, x: &Expr, steps: &[CelStep]) -> Option<ExpensiveCall> {
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
    pub(super) fn suggest(
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
    pub(super) fn joint(
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
    pub(super) fn union_of_suggestions(
        &self,
        explained: &[Explained],
        limit: u64,
        also: &[usize],
    ) -> Assign {
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
    pub(super) fn fix_all(
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
            crd_studio_gostd::sort::stable_by_key(&mut order, |i| {
                std::cmp::Reverse(self.expr(*i).map_or(0, |x| x.cost))
            });
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
pub(super) fn choose(singles: &[(usize, u64, u64)], joint: Option<Plan>) -> Option<Plan> {
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
