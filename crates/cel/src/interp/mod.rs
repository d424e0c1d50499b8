//! The interpreter: cel-go's planner and evaluator, with its runtime cost tracker.
//!
//! [`Program::new`] plans an AST (parsed, or checked when the checker's [`References`] are
//! given) the way cel-go's planner does with Kubernetes' program options (`OptOptimize`,
//! cost tracking): select chains become one *attribute* with *qualifiers*, constant list and
//! map literals and type conversions of constants are folded, `in` on a constant list becomes
//! a set lookup, constant regular expressions are compiled (an invalid one is a plan error, as
//! cel-go's "program instantiation failed"), `optional.or`/`orValue` short-circuit.
//!
//! [`Program::eval`] evaluates with an [`Activation`] and a [`CostTracker`], counting cost
//! exactly where cel-go's `CostObserver` counts it on that plan: 1 per attribute and 1 per
//! qualifier evaluated (but not for the operands a ternary resolves, nor for the variable of an
//! attribute used as an index), 0 for constants, `&&`, `||`, `?:` and comprehensions themselves,
//! 10 / 30 for list / map literals, and for calls the overload trackers (sets, ext lists), then
//! Kubernetes' `CallCost` on the actual arguments, then cel-go's defaults
//! ([`crate::cost_rt`]). A presence test (`has()`) costs only its qualifiers
//! (`PresenceTestHasCost(false)` in Kubernetes; configurable). When the cost passes the limit,
//! evaluation stops with [`CostLimitExceeded`] (`operation cancelled: actual cost limit
//! exceeded`).
//!
//! Evaluation semantics are cel-go's: strict calls return their first error argument,
//! `&&`/`||` absorb errors when the other side decides, the ternary propagates a non-bool
//! condition as `no such overload`, comprehensions stop when the loop condition is `false`
//! (errors in the condition do not stop them), the accumulator is initialised lazily, and
//! `@not_strictly_false` turns errors into `true`.
//!
//! Recursion is bounded by the AST's depth (250 by the parser's limit) and each level keeps a
//! small stack frame; deep data (JSON up to the engine's 512 levels) is walked by the value
//! functions, not by this evaluator.

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::ast::{CallExpr, ComprehensionExpr, Expr, ExprKind, Literal};
use crate::stdlib_rt::{self, CallInfo};
use crate::value::{equal, List, ListKind, Map, OwnedMap, Str, Value};

/// cel-go's message when the per-call cost limit is exceeded.
pub const COST_LIMIT_EXCEEDED: &str = "operation cancelled: actual cost limit exceeded";

/// Evaluation was cancelled because the cost limit was exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CostLimitExceeded;

impl std::fmt::Display for CostLimitExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(COST_LIMIT_EXCEEDED)
    }
}

impl std::error::Error for CostLimitExceeded {}

/// What the type checker resolved for a node (cel-go's `ast.ReferenceInfo`): for identifiers
/// the declared name, for calls the overload ids that may apply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReferenceInfo {
    /// The (fully qualified) name of the variable or function.
    pub name: String,
    /// The overload ids (calls only; one when the checker could decide).
    pub overload_ids: Vec<String>,
}

/// The checker's reference map: node id to reference.
pub type References = BTreeMap<i64, ReferenceInfo>;

/// The variables of an evaluation.
#[derive(Debug, Clone, Default)]
pub struct Activation<'a> {
    vars: Vec<(String, Value<'a>)>,
    time_zones: Option<&'a crate::tz::TimeZoneDb>,
    time_zones_needed: std::cell::Cell<bool>,
}

impl<'a> Activation<'a> {
    /// No variables.
    pub fn new() -> Self {
        Activation::default()
    }

    /// The time-zone database named zones (`getHours('America/New_York')`) resolve in.
    /// Without one, a named zone is `unknown time zone NAME` and
    /// [`Activation::time_zones_needed`] turns true.
    pub fn with_time_zones(&mut self, db: Option<&'a crate::tz::TimeZoneDb>) -> &mut Self {
        self.time_zones = db;
        self
    }

    /// The time-zone database, if any.
    pub fn time_zones(&self) -> Option<&'a crate::tz::TimeZoneDb> {
        self.time_zones
    }

    /// True once an evaluation with this activation asked for a named zone that only a
    /// time-zone database could resolve, and none was given (the caller can load one and
    /// evaluate again).
    pub fn time_zones_needed(&self) -> bool {
        self.time_zones_needed.get()
    }

    /// Binds (or rebinds) a variable.
    pub fn bind(&mut self, name: impl Into<String>, value: Value<'a>) -> &mut Self {
        let name = name.into();
        if let Some(slot) = self.vars.iter_mut().find(|(n, _)| *n == name) {
            slot.1 = value;
        } else {
            self.vars.push((name, value));
        }
        self
    }

    /// Binds a JSON value under a runtime schema (Kubernetes' `UnstructuredToVal`), without
    /// copying it.
    pub fn bind_json(
        &mut self,
        name: impl Into<String>,
        json: &'a serde_json::Value,
        schema: &'a crate::unstructured::Schema,
    ) -> &mut Self {
        self.bind(name, crate::unstructured::to_value(json, schema))
    }

    /// The value of a variable.
    pub fn resolve(&self, name: &str) -> Option<&Value<'a>> {
        self.vars.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// Cost tracking state for one evaluation (cel-go's `CostTracker`).
#[derive(Debug, Clone)]
pub struct CostTracker {
    cost: u64,
    /// Bytes built by the calls that can grow past their cost (see
    /// [`crate::cost_rt::MAX_GROWTH_BYTES`]).
    grown: u64,
    limit: Option<u64>,
    presence_test_has_cost: bool,
    kubernetes_estimator: bool,
}

impl CostTracker {
    /// Kubernetes' tracker: its `CallCost` estimator, `PresenceTestHasCost(false)`, and a
    /// per-call limit (`PerCallLimit` is 1,000,000).
    pub fn kubernetes(limit: Option<u64>) -> Self {
        CostTracker {
            cost: 0,
            grown: 0,
            limit,
            presence_test_has_cost: false,
            kubernetes_estimator: true,
        }
    }

    /// A tracker with explicit options: the limit, whether a presence test costs 1
    /// (`PresenceTestHasCost`), and whether Kubernetes' `CallCost` estimator is used.
    pub fn new(
        limit: Option<u64>,
        presence_test_has_cost: bool,
        kubernetes_estimator: bool,
    ) -> Self {
        CostTracker {
            cost: 0,
            grown: 0,
            limit,
            presence_test_has_cost,
            kubernetes_estimator,
        }
    }

    /// cel-go's default tracker (no library estimator, presence tests cost 1).
    pub fn cel_go(limit: Option<u64>) -> Self {
        CostTracker {
            cost: 0,
            grown: 0,
            limit,
            presence_test_has_cost: true,
            kubernetes_estimator: false,
        }
    }

    /// The cost so far.
    pub fn actual_cost(&self) -> u64 {
        self.cost
    }

    /// The limit.
    pub fn limit(&self) -> Option<u64> {
        self.limit
    }

    /// Resets the cost to zero (to reuse the tracker for another evaluation).
    pub fn reset(&mut self) {
        self.cost = 0;
        self.grown = 0;
    }

    /// Before a call that can build a large result: cancels when the cost cel-go will charge
    /// for it passes the limit (cel-go builds the result first, then charges and cancels:
    /// the same outcome and cost, without the memory), or when the bytes it builds pass
    /// [`crate::cost_rt::MAX_GROWTH_BYTES`].
    fn precharge(&mut self, function: &str, args: &[Value<'_>]) -> Result<(), CostLimitExceeded> {
        let Some(p) = crate::cost_rt::precharge(function, args, self.kubernetes_estimator) else {
            return Ok(());
        };
        if let Some(l) = self.limit {
            if self.cost.saturating_add(p.cost) > l {
                self.cost = self.cost.saturating_add(p.cost);
                return Err(CostLimitExceeded);
            }
        }
        self.grown = self.grown.saturating_add(p.bytes);
        if self.grown > crate::cost_rt::MAX_GROWTH_BYTES {
            return Err(CostLimitExceeded);
        }
        Ok(())
    }

    #[inline]
    fn add(&mut self, n: u64) -> Result<(), CostLimitExceeded> {
        self.cost = self.cost.saturating_add(n);
        match self.limit {
            Some(l) if self.cost > l => Err(CostLimitExceeded),
            _ => Ok(()),
        }
    }
}

/// A planning failure (cel-go's program instantiation errors: an invalid constant regular
/// expression, a failing constant conversion, an unknown message type).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError {
    /// cel-go's message (`error parsing regexp: ...`).
    pub message: String,
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PlanError {}

/// Planning options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanOptions {
    /// cel-go's `OptOptimize` (constant folding; Kubernetes sets it).
    pub optimize: bool,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions { optimize: true }
    }
}

/// A planned program.
#[derive(Debug, Clone)]
pub struct Program {
    root: Node,
}

type R<'a> = Result<Value<'a>, CostLimitExceeded>;

#[derive(Debug, Clone)]
enum Node {
    Const(Value<'static>),
    Attr(Box<AttrNode>),
    Call(Box<CallNode>),
    And(Box<(Node, Node)>),
    Or(Box<(Node, Node)>),
    OptOr(Box<(Node, Node)>, bool),
    List(Box<ListNode>),
    Map(Box<MapNode>),
    Fold(Box<FoldNode>),
    SetMembership(Box<(Node, Vec<SetElem>)>),
}

#[derive(Debug, Clone, PartialEq)]
enum SetElem {
    Int(i64),
    Uint(u64),
    Double(u64),
    Bool(bool),
    Str(Rc<str>),
}

#[derive(Debug, Clone)]
struct AttrNode {
    base: AttrBase,
    quals: Vec<Qual>,
    test_only: bool,
}

#[derive(Debug, Clone)]
enum AttrBase {
    Var(Rc<str>),
    /// A variable written with a leading dot (`.y`): resolved in the activation only, never
    /// as a comprehension variable (the checker keeps the dot when a local shadows the name).
    Global(Rc<str>),
    /// An unchecked (qualified) name, cel-go's `maybeAttribute`: candidate variables, most
    /// specific first, each with the number of the attribute's qualifiers its name already
    /// covers (`a.b.c` tries `a.b.c`, then `a.b` with `.c`, then `a` with `.b.c`; in a container
    /// `x`, `x.a` before `a`). The first one bound wins. With a leading dot (`.a.b`) the
    /// candidates ignore the container and comprehension variables (`true`).
    Maybe(Rc<[(Rc<str>, usize)]>, bool),
    Rel(Node),
    Cond(Box<(Node, AttrNode, AttrNode)>),
}

#[derive(Debug, Clone)]
struct Qual {
    kind: QualKind,
    optional: bool,
    test_only: bool,
}

#[derive(Debug, Clone)]
enum QualKind {
    Const(Value<'static>),
    Attr(Box<AttrNode>),
}

#[derive(Debug, Clone)]
struct CallNode {
    info: CallInfo,
    args: Vec<Node>,
    /// cel-go's `evalVarArgs`: stop at the first error argument (and then no call cost).
    stop_at_error: bool,
    kind: CallKind,
    /// `_+_` or `cel.@mapInsert` with a bare identifier first (a comprehension accumulator
    /// candidate for in-place appends).
    accumulates: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallKind {
    Normal,
    Eq,
    Ne,
}

#[derive(Debug, Clone)]
struct ListNode {
    elems: Vec<Node>,
    optionals: Vec<bool>,
}

#[derive(Debug, Clone)]
struct MapNode {
    entries: Vec<(Node, Node, bool)>,
}

#[derive(Debug, Clone)]
struct FoldNode {
    accu_var: Rc<str>,
    iter_var: Rc<str>,
    iter_var2: Option<Rc<str>>,
    iter_range: Node,
    accu_init: Node,
    cond: Node,
    step: Node,
    result: Node,
    /// The initial accumulator is an empty list or map (cel-go then appends in place).
    mutable_accu: bool,
}

/// Names of types an identifier can denote (cel-go's standard type identifiers plus the
/// optional and Kubernetes library types).
fn type_ident(name: &str) -> Option<&'static str> {
    use crate::value::type_names as t;
    Some(match name {
        "bool" => t::BOOL,
        "bytes" => t::BYTES,
        "double" => t::DOUBLE,
        "google.protobuf.Duration" => t::DURATION,
        "int" => t::INT,
        "list" => t::LIST,
        "map" => t::MAP,
        "null_type" => t::NULL,
        "string" => t::STRING,
        "google.protobuf.Timestamp" => t::TIMESTAMP,
        "type" => t::TYPE,
        "uint" => t::UINT,
        "optional_type" => t::OPTIONAL,
        "kubernetes.URL" => t::URL,
        "net.IP" => t::IP,
        "net.CIDR" => t::CIDR,
        "kubernetes.Quantity" => t::QUANTITY,
        "kubernetes.Semver" => t::SEMVER,
        "kubernetes.NamedFormat" => t::FORMAT,
        _ => return None,
    })
}

struct Planner<'r> {
    refs: Option<&'r References>,
    locals: Vec<String>,
    optimize: bool,
    /// The container unchecked names resolve in (cel-go's `Container`); checked expressions
    /// come with their names resolved.
    container: &'r str,
}

fn literal_value(l: &Literal) -> Value<'static> {
    match l {
        Literal::Null => Value::Null,
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Int(i) => Value::Int(*i),
        Literal::Uint(u) => Value::Uint(*u),
        Literal::Double(d) => Value::Double(*d),
        Literal::String(s) => Value::string(s),
        Literal::Bytes(b) => Value::bytes(b),
    }
}

fn plan_err(m: impl Into<String>) -> PlanError {
    PlanError { message: m.into() }
}

impl Planner<'_> {
    fn is_local(&self, name: &str) -> bool {
        self.locals.iter().any(|l| l == name)
    }

    /// The dotted name of an identifier/select chain, if it is one (and not a local).
    fn qualified_name(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Ident(n) => {
                if self.is_local(n) {
                    return None;
                }
                Some(n.trim_start_matches('.').to_string())
            }
            ExprKind::Select(s) if !s.test_only => {
                let q = self.qualified_name(&s.operand)?;
                Some(format!("{q}.{}", s.field))
            }
            _ => None,
        }
    }

    /// Plans a node. Each kind is planned out of line so that the frames live while children
    /// recurse stay small.
    fn plan(&mut self, e: &Expr) -> Result<Node, PlanError> {
        match &e.kind {
            ExprKind::Unspecified => Err(plan_err("unsupported expr: unspecified")),
            ExprKind::Literal(l) => Ok(Node::Const(literal_value(l))),
            ExprKind::Ident(name) => Ok(self.plan_ident(name)),
            ExprKind::Select(s) => self.plan_select(e, s),
            ExprKind::Call(c) => self.plan_call(e.id, c),
            ExprKind::List(l) => self.plan_list(l),
            ExprKind::Map(m) => self.plan_map(m),
            ExprKind::Struct(s) => Err(plan_err(format!("unknown type: {}", s.type_name))),
            ExprKind::Comprehension(c) => self.plan_fold(c),
        }
    }

    #[inline(never)]
    fn plan_ident(&mut self, name: &str) -> Node {
        let global = name.starts_with('.');
        let name = name.trim_start_matches('.');
        if global || !self.is_local(name) {
            if let Some(t) = type_ident(name) {
                return Node::Const(Value::type_value(t));
            }
        }
        let base = if global {
            AttrBase::Global(Rc::from(name))
        } else if self.refs.is_none() && !self.container.is_empty() && !self.is_local(name) {
            AttrBase::Maybe(self.candidates(&[name], self.container), false)
        } else {
            AttrBase::Var(Rc::from(name))
        };
        Node::Attr(Box::new(AttrNode {
            base,
            quals: Vec::new(),
            test_only: false,
        }))
    }

    /// The candidate variables of an unchecked name made of `parts` in a container (see
    /// [`AttrBase::Maybe`]).
    fn candidates(&self, parts: &[&str], container: &str) -> Rc<[(Rc<str>, usize)]> {
        let mut out = Vec::new();
        for k in (1..=parts.len()).rev() {
            let name = parts.get(..k).unwrap_or(&[]).join(".");
            let covered = k - 1;
            if container.is_empty() {
                out.push((Rc::from(name.as_str()), covered));
                continue;
            }
            let mut cont = container;
            loop {
                out.push((Rc::from(format!("{cont}.{name}").as_str()), covered));
                match cont.rfind('.') {
                    Some(i) => cont = cont.get(..i).unwrap_or(""),
                    None => break,
                }
            }
            out.push((Rc::from(name.as_str()), covered));
        }
        Rc::from(out)
    }

    #[inline(never)]
    fn plan_select(&mut self, e: &Expr, s: &crate::ast::SelectExpr) -> Result<Node, PlanError> {
        if !s.test_only {
            if let Some(q) = self.qualified_name(e) {
                if let Some(t) = type_ident(&q) {
                    return Ok(Node::Const(Value::type_value(t)));
                }
                // Unchecked `a.b.c`: the longest bound prefix (cel-go's maybe attributes).
                if self.refs.is_none()
                    && !matches!(&e.kind, ExprKind::Ident(n) if n.starts_with('.'))
                {
                    if let Some(node) = self.plan_maybe(e) {
                        return Ok(node);
                    }
                }
            }
        }
        let op = self.plan(&s.operand)?;
        Ok(select_node(op, &s.field, s.test_only))
    }

    /// An unchecked select chain on a global name as a [`AttrBase::Maybe`] attribute.
    fn plan_maybe(&self, e: &Expr) -> Option<Node> {
        let mut fields = Vec::new();
        let mut cur = e;
        let root = loop {
            match &cur.kind {
                ExprKind::Select(s) if !s.test_only => {
                    fields.push(s.field.as_str());
                    cur = &s.operand;
                }
                ExprKind::Ident(n) => break n.as_str(),
                _ => return None,
            }
        };
        let global = root.starts_with('.');
        let root = root.trim_start_matches('.');
        if !global && self.is_local(root) {
            return None;
        }
        fields.reverse();
        let mut parts = vec![root];
        parts.extend(fields.iter().copied());
        let quals = fields
            .iter()
            .map(|f| Qual {
                kind: QualKind::Const(Value::string(f)),
                optional: false,
                test_only: false,
            })
            .collect();
        Some(Node::Attr(Box::new(AttrNode {
            base: AttrBase::Maybe(
                self.candidates(&parts, if global { "" } else { self.container }),
                global,
            ),
            quals,
            test_only: false,
        })))
    }

    #[inline(never)]
    fn plan_list(&mut self, l: &crate::ast::ListExpr) -> Result<Node, PlanError> {
        let mut elems = Vec::with_capacity(l.elements.len());
        for el in &l.elements {
            elems.push(self.plan(el)?);
        }
        finish_list(elems, &l.optional_indices, self.optimize)
    }

    #[inline(never)]
    fn plan_map(&mut self, m: &crate::ast::MapExpr) -> Result<Node, PlanError> {
        let mut entries = Vec::with_capacity(m.entries.len());
        for en in &m.entries {
            let k = self.plan(&en.key)?;
            let v = self.plan(&en.value)?;
            entries.push((k, v, en.optional));
        }
        finish_map(entries, self.optimize)
    }

    fn plan_fold(&mut self, c: &ComprehensionExpr) -> Result<Node, PlanError> {
        let accu_init = self.plan(&c.accu_init)?;
        let iter_range = self.plan(&c.iter_range)?;
        let pushed: Vec<String> = [&c.accu_var, &c.iter_var, &c.iter_var2]
            .into_iter()
            .filter(|n| !n.is_empty())
            .cloned()
            .collect();
        self.locals.extend(pushed.iter().cloned());
        let cond = self.plan(&c.loop_condition);
        let step = self.plan(&c.loop_step);
        // Pop the iteration variables, keep the accumulator for the result.
        let n_iter = pushed.len().saturating_sub(1);
        for _ in 0..n_iter {
            self.locals.pop();
        }
        let result = self.plan(&c.result);
        self.locals.pop();
        let (cond, step, result) = (cond?, step?, result?);
        let mutable_accu = match &accu_init {
            Node::Const(Value::List(l)) => l.is_empty(),
            Node::Const(Value::Map(m)) => m.is_empty(),
            _ => false,
        };
        Ok(Node::Fold(Box::new(FoldNode {
            accu_var: Rc::from(c.accu_var.as_str()),
            iter_var: Rc::from(c.iter_var.as_str()),
            iter_var2: (!c.iter_var2.is_empty()).then(|| Rc::from(c.iter_var2.as_str())),
            iter_range,
            accu_init,
            cond,
            step,
            result,
            mutable_accu,
        })))
    }

    #[inline(never)]
    fn plan_sort_by(&mut self, c: &CallExpr) -> Option<Result<Node, PlanError>> {
        let expanded = expand_sort_by(c)?;
        Some(self.plan(&expanded))
    }

    /// Plans a call: resolves the function and plans the arguments here (the frame live during
    /// the recursion), the rest out of line.
    #[inline(never)]
    fn plan_call(&mut self, id: i64, c: &CallExpr) -> Result<Node, PlanError> {
        if c.function == "sortBy" {
            if let Some(r) = self.plan_sort_by(c) {
                return r;
            }
        }
        let reference = self.refs.and_then(|r| r.get(&id));
        // Resolve a namespaced function written as a receiver call (`optional.of(x)`).
        let mut target = c.target.as_ref();
        let mut function = c.function.trim_start_matches('.').to_string();
        if let Some(r) = reference {
            if !r.name.is_empty() && r.name != function && stdlib_rt::is_global_function(&r.name) {
                function = r.name.clone();
                target = None;
            }
        }
        if let Some(t) = target {
            if let Some(q) = self.qualified_name(t) {
                let candidate = format!("{q}.{function}");
                if stdlib_rt::is_global_function(&candidate) {
                    function = candidate;
                    target = None;
                }
            }
        }
        let mut args = Vec::with_capacity(c.args.len() + 1);
        if let Some(t) = target {
            args.push(self.plan(t)?);
        }
        for a in &c.args {
            args.push(self.plan(a)?);
        }
        self.finish_call_plan(reference, function, args)
    }

    #[inline(never)]
    fn finish_call_plan(
        &mut self,
        reference: Option<&ReferenceInfo>,
        function: String,
        args: Vec<Node>,
    ) -> Result<Node, PlanError> {
        let overload = reference.and_then(|r| {
            if r.overload_ids.len() == 1 {
                r.overload_ids.first().cloned()
            } else {
                None
            }
        });
        let checked = reference.is_some();
        match (function.as_str(), args.len()) {
            ("_&&_", 2) => {
                let mut it = args.into_iter();
                if let (Some(a), Some(b)) = (it.next(), it.next()) {
                    return Ok(Node::And(Box::new((a, b))));
                }
                return Err(plan_err("invalid call"));
            }
            ("_||_", 2) => {
                let mut it = args.into_iter();
                if let (Some(a), Some(b)) = (it.next(), it.next()) {
                    return Ok(Node::Or(Box::new((a, b))));
                }
                return Err(plan_err("invalid call"));
            }
            ("_?_:_", 3) => {
                let mut it = args.into_iter();
                if let (Some(c), Some(t), Some(f)) = (it.next(), it.next(), it.next()) {
                    return Ok(Node::Attr(Box::new(AttrNode {
                        base: AttrBase::Cond(Box::new((c, *into_attr(t), *into_attr(f)))),
                        quals: Vec::new(),
                        test_only: false,
                    })));
                }
                return Err(plan_err("invalid call"));
            }
            ("_[_]", 2) | ("_[?_]", 2) | ("_?._", 2) => {
                let optional = function != "_[_]";
                let mut it = args.into_iter();
                if let (Some(op), Some(ind)) = (it.next(), it.next()) {
                    let mut attr = into_attr(op);
                    let kind = match ind {
                        Node::Const(v) => QualKind::Const(v),
                        other => QualKind::Attr(into_attr(other)),
                    };
                    add_qual(
                        &mut attr,
                        Qual {
                            kind,
                            optional,
                            test_only: false,
                        },
                    );
                    return Ok(Node::Attr(attr));
                }
                return Err(plan_err("invalid call"));
            }
            ("or", 2) | ("orValue", 2)
                if overload.is_none()
                    || overload.as_deref() == Some("optional_or_optional")
                    || overload.as_deref() == Some("optional_orValue_value") =>
            {
                let is_value = function == "orValue";
                let mut it = args.into_iter();
                if let (Some(a), Some(b)) = (it.next(), it.next()) {
                    return Ok(Node::OptOr(Box::new((a, b)), is_value));
                }
                return Err(plan_err("invalid call"));
            }
            _ => {}
        }
        let kind = match function.as_str() {
            "_==_" if args.len() == 2 => CallKind::Eq,
            "_!=_" if args.len() == 2 => CallKind::Ne,
            _ => CallKind::Normal,
        };
        let mut info = CallInfo::new(function, overload, checked);
        // Compile constant regular expressions now (cel-go's regex optimizations).
        let mut stop_at_error = args.len() >= 3;
        if matches!(info.function.as_str(), "matches" | "find" | "findAll") && self.optimize {
            let pattern = match (
                info.function.as_str(),
                args.len(),
                args.first(),
                args.get(1),
            ) {
                (_, n, _, Some(Node::Const(Value::String(p)))) if n >= 2 => Some(p),
                _ => None,
            };
            if let Some(p) = pattern {
                let re = crd_studio_gostd::regexp::compile(p.as_str()).map_err(plan_err)?;
                info.regex = Some(Rc::new(re));
                stop_at_error = true;
            }
        }
        let accumulates = matches!(info.function.as_str(), "_+_" | "cel.@mapInsert")
            && matches!(args.first(), Some(Node::Attr(a)) if a.quals.is_empty() && matches!(a.base, AttrBase::Var(_)));
        let node = CallNode {
            info,
            args,
            stop_at_error,
            kind,
            accumulates,
        };
        if self.optimize {
            // Fold type conversions of constants (cel-go's maybeOptimizeConstUnary).
            if is_type_conversion(&node.info.function)
                && node.args.len() == 1
                && matches!(node.args.first(), Some(Node::Const(_)))
            {
                let v = const_eval(&Node::Call(Box::new(node.clone())))?;
                if let Value::Error(e) = v {
                    return Err(plan_err(e.message.clone()));
                }
                return Ok(Node::Const(v));
            }
            // `x in [constants]` as a set lookup (cel-go's maybeOptimizeSetMembership).
            if node.info.function == "@in"
                && node.args.len() == 2
                && (node.info.overload.as_deref() == Some("in_list")
                    || (!node.info.checked
                        && matches!(node.args.get(1), Some(Node::Const(Value::List(_))))))
            {
                let set = match node.args.get(1) {
                    Some(Node::Const(Value::List(l))) => set_elems(l),
                    _ => None,
                };
                if let Some(set) = set {
                    if set.is_empty() {
                        return Ok(Node::Const(Value::Bool(false)));
                    }
                    let mut it = node.args.into_iter();
                    if let Some(arg) = it.next() {
                        return Ok(Node::SetMembership(Box::new((arg, set))));
                    }
                    return Err(plan_err("invalid in"));
                }
            }
        }
        Ok(Node::Call(Box::new(node)))
    }
}

/// Adds a field selection to an operand (cel-go's `planSelect`).
#[inline(never)]
fn select_node(op: Node, field: &str, test_only: bool) -> Node {
    let mut attr = into_attr(op);
    add_qual(
        &mut attr,
        Qual {
            kind: QualKind::Const(Value::string(field)),
            optional: false,
            test_only,
        },
    );
    if test_only {
        attr.test_only = true;
    }
    Node::Attr(attr)
}

#[inline(never)]
fn finish_list(
    elems: Vec<Node>,
    optional_indices: &[i32],
    optimize: bool,
) -> Result<Node, PlanError> {
    let mut optionals = vec![false; elems.len()];
    for &i in optional_indices {
        match usize::try_from(i).ok().and_then(|i| optionals.get_mut(i)) {
            Some(slot) => *slot = true,
            None => {
                return Err(plan_err(format!(
                    "optional index {i} out of element bounds [0, {}]",
                    elems.len()
                )))
            }
        }
    }
    let node = ListNode { elems, optionals };
    if optimize && node.elems.iter().all(|n| matches!(n, Node::Const(_))) {
        return Ok(Node::Const(const_eval(&Node::List(Box::new(node)))?));
    }
    Ok(Node::List(Box::new(node)))
}

#[inline(never)]
fn finish_map(entries: Vec<(Node, Node, bool)>, optimize: bool) -> Result<Node, PlanError> {
    let node = MapNode { entries };
    if optimize
        && node
            .entries
            .iter()
            .all(|(k, v, _)| matches!(k, Node::Const(_)) && matches!(v, Node::Const(_)))
    {
        return Ok(Node::Const(const_eval(&Node::Map(Box::new(node)))?));
    }
    Ok(Node::Map(Box::new(node)))
}

/// ext lists' `sortBy` macro, when the parser left `r.sortBy(e, key)` as a call (its macro set
/// may lack it): the same expansion as cel-go's `sortByMacro`, so the cost is the same.
fn expand_sort_by(c: &CallExpr) -> Option<Expr> {
    use crate::ast::ListExpr;
    if c.function != "sortBy" || c.args.len() != 2 {
        return None;
    }
    let target = c.target.as_ref()?;
    let var = c.args.first()?.as_ident()?.to_string();
    let key = c.args.get(1)?.clone();
    let e = |kind| Expr::new(0, kind);
    let input = "@__sortBy_input__";
    let ident = |n: &str| e(ExprKind::Ident(n.to_string()));
    let empty = || {
        e(ExprKind::List(ListExpr {
            elements: Vec::new(),
            optional_indices: Vec::new(),
        }))
    };
    let accu = crate::HIDDEN_ACCUMULATOR_NAME;
    let step = e(ExprKind::Call(Box::new(CallExpr {
        function: "_+_".into(),
        target: None,
        args: vec![
            ident(accu),
            e(ExprKind::List(ListExpr {
                elements: vec![key],
                optional_indices: Vec::new(),
            })),
        ],
    })));
    let map = e(ExprKind::Comprehension(Box::new(ComprehensionExpr {
        iter_range: ident(input),
        iter_var: var,
        iter_var2: String::new(),
        accu_var: accu.into(),
        accu_init: empty(),
        loop_condition: e(ExprKind::Literal(Literal::Bool(true))),
        loop_step: step,
        result: ident(accu),
    })));
    let call = e(ExprKind::Call(Box::new(CallExpr {
        function: "@sortByAssociatedKeys".into(),
        target: Some(ident(input)),
        args: vec![map],
    })));
    Some(e(ExprKind::Comprehension(Box::new(ComprehensionExpr {
        iter_range: empty(),
        iter_var: "#unused".into(),
        iter_var2: String::new(),
        accu_var: input.into(),
        accu_init: target.clone(),
        loop_condition: e(ExprKind::Literal(Literal::Bool(false))),
        loop_step: ident(input),
        result: call,
    }))))
}

fn is_type_conversion(f: &str) -> bool {
    matches!(
        f,
        "bool"
            | "bytes"
            | "double"
            | "duration"
            | "dyn"
            | "int"
            | "string"
            | "timestamp"
            | "type"
            | "uint"
    )
}

/// The set of a constant list for `in`: primitives only (no bytes), with the lossless numeric
/// conversions cel-go adds.
fn set_elems(l: &List<'static>) -> Option<Vec<SetElem>> {
    let mut out = Vec::new();
    for v in l.iter() {
        match v {
            Value::Bool(b) => out.push(SetElem::Bool(b)),
            Value::String(s) => out.push(SetElem::Str(Rc::from(s.as_str()))),
            Value::Int(i) => {
                out.push(SetElem::Int(i));
                out.push(SetElem::Double((i as f64).to_bits()));
                if i >= 0 {
                    out.push(SetElem::Uint(i as u64));
                }
            }
            Value::Uint(u) => {
                out.push(SetElem::Uint(u));
                out.push(SetElem::Double((u as f64).to_bits()));
                if u <= i64::MAX as u64 {
                    out.push(SetElem::Int(u as i64));
                }
            }
            Value::Double(d) => {
                out.push(SetElem::Double(d.to_bits()));
                if let Some(i) = stdlib_rt::double_to_int_lossless(d) {
                    out.push(SetElem::Int(i));
                }
                if let Some(u) = stdlib_rt::double_to_uint_lossless(d) {
                    out.push(SetElem::Uint(u));
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Turns a node into an attribute (cel-go's `relativeAttr` when it is not one).
fn into_attr(n: Node) -> Box<AttrNode> {
    match n {
        Node::Attr(a) => a,
        other => Box::new(AttrNode {
            base: AttrBase::Rel(other),
            quals: Vec::new(),
            test_only: false,
        }),
    }
}

/// `AddQualifier`: on a conditional attribute, to both branches.
fn add_qual(a: &mut AttrNode, q: Qual) {
    if let AttrBase::Cond(c) = &mut a.base {
        add_qual(&mut c.1, q.clone());
        add_qual(&mut c.2, q);
        return;
    }
    a.quals.push(q);
}

/// Evaluates a node made of constants (plan-time folding).
fn const_eval(n: &Node) -> Result<Value<'static>, PlanError> {
    let act = Activation::new();
    let mut tracker = CostTracker::cel_go(None);
    let mut ev = Evaluator {
        act: &act,
        tracker: &mut tracker,
        frames: Vec::new(),
        scope: None,
    };
    ev.eval(n).map_err(|_| plan_err(COST_LIMIT_EXCEEDED))
}

impl Program {
    /// Plans a parsed or checked expression. With `references` (the checker's reference map),
    /// calls use the overload ids it resolved (for cost, as cel-go does); without, overloads are
    /// chosen from the runtime argument types.
    pub fn new(
        expr: &Expr,
        references: Option<&References>,
        options: PlanOptions,
    ) -> Result<Program, PlanError> {
        Program::new_in(expr, references, options, "")
    }

    /// [`Program::new`] for an expression whose unchecked names resolve in a container
    /// (cel-go's `cel.Container`; Kubernetes uses none): `y` in container `x` is `x.y` when
    /// that is bound, else `y`; a dotted name binds its longest bound prefix.
    pub fn new_in(
        expr: &Expr,
        references: Option<&References>,
        options: PlanOptions,
        container: &str,
    ) -> Result<Program, PlanError> {
        let mut p = Planner {
            refs: references,
            locals: Vec::new(),
            optimize: options.optimize,
            container,
        };
        Ok(Program {
            root: p.plan(expr)?,
        })
    }

    /// Plans a type-checked expression (the checker's rewritten AST and its references) with
    /// Kubernetes' options: calls carry the overload ids the checker resolved, as cel-go's
    /// planner does, so costs follow the static types.
    pub fn from_checked(checked: &crate::checker::CheckedExpr) -> Result<Program, PlanError> {
        use crate::checker::Reference;
        let refs: References = checked
            .references
            .iter()
            .map(|(id, r)| {
                let info = match r {
                    Reference::Ident(name) => ReferenceInfo {
                        name: name.clone(),
                        overload_ids: Vec::new(),
                    },
                    Reference::Function(ids) => ReferenceInfo {
                        name: String::new(),
                        overload_ids: ids.clone(),
                    },
                };
                (*id, info)
            })
            .collect();
        Program::new(&checked.expr, Some(&refs), PlanOptions::default())
    }

    /// Plans a parsed expression with Kubernetes' options.
    pub fn from_parsed(expr: &Expr) -> Result<Program, PlanError> {
        Program::new(expr, None, PlanOptions::default())
    }

    /// Evaluates. The result is a value (possibly an error value); the cost accumulates in
    /// `tracker`; exceeding its limit cancels the evaluation.
    pub fn eval<'a>(
        &self,
        activation: &Activation<'a>,
        tracker: &mut CostTracker,
    ) -> Result<Value<'a>, CostLimitExceeded> {
        let mut ev = Evaluator {
            act: activation,
            tracker,
            frames: Vec::new(),
            scope: None,
        };
        ev.eval(&self.root)
    }
}

struct Frame<'p, 'a> {
    parent: Option<usize>,
    accu_var: &'p str,
    accu: Option<Value<'a>>,
    init: &'p Node,
    iter_var: &'p str,
    iter_var2: Option<&'p str>,
    it1: Value<'a>,
    it2: Value<'a>,
    compute_result: bool,
    mutable: bool,
}

struct Evaluator<'p, 'a, 't> {
    act: &'p Activation<'a>,
    tracker: &'t mut CostTracker,
    frames: Vec<Frame<'p, 'a>>,
    /// The innermost comprehension frame in scope (frames chain through `parent`).
    scope: Option<usize>,
}

/// cel-go's `%T` of a value in "expected iterable type" errors.
fn go_type_of(v: &Value<'_>) -> &'static str {
    match v {
        Value::Null => "types.Null",
        Value::Bool(_) => "types.Bool",
        Value::Int(_) => "types.Int",
        Value::Uint(_) => "types.Uint",
        Value::Double(_) => "types.Double",
        Value::String(_) => "types.String",
        Value::Bytes(_) => "types.Bytes",
        Value::Timestamp(_) => "types.Timestamp",
        Value::Duration(_) => "types.Duration",
        Value::Type(_) => "*types.Type",
        Value::Optional(_) => "*types.Optional",
        _ => "ref.Val",
    }
}

enum Qualified<'a> {
    Present(Value<'a>),
    Absent,
    Err(Value<'a>),
}

impl<'p, 'a> Evaluator<'p, 'a, '_> {
    fn eval(&mut self, n: &'p Node) -> R<'a> {
        match n {
            Node::Const(v) => Ok(v.clone()),
            Node::Attr(a) => self.eval_attr(a),
            Node::Call(c) => self.eval_call(c),
            Node::And(t) => self.eval_and_or(&t.0, &t.1, false),
            Node::Or(t) => self.eval_and_or(&t.0, &t.1, true),
            Node::OptOr(t, is_value) => self.eval_opt_or(&t.0, &t.1, *is_value),
            Node::List(l) => self.eval_list(l),
            Node::Map(m) => self.eval_map(m),
            Node::Fold(f) => self.eval_fold(f),
            Node::SetMembership(s) => self.eval_set(&s.0, &s.1),
        }
    }

    #[inline(never)]
    fn eval_attr(&mut self, a: &'p AttrNode) -> R<'a> {
        let v = self.resolve_attr(a)?;
        if !matches!(a.base, AttrBase::Cond(_)) {
            let cost = if a.test_only && !self.tracker.presence_test_has_cost {
                0
            } else {
                1
            };
            self.tracker.add(cost)?;
        }
        if a.test_only {
            if let Value::Optional(o) = &v {
                return Ok(Value::Bool(o.is_some()));
            }
        }
        Ok(v)
    }

    fn lookup(&mut self, name: &str) -> R<'a> {
        Ok(match self.try_lookup(name)? {
            Some(v) => v,
            None => Value::error(format!("no such attribute(s): {name}")),
        })
    }

    /// A variable (comprehension variables first), or `None` when it is not bound.
    fn try_lookup(&mut self, name: &str) -> Result<Option<Value<'a>>, CostLimitExceeded> {
        let mut cur = self.scope;
        while let Some(i) = cur {
            let Some(f) = self.frames.get(i) else {
                break;
            };
            cur = f.parent;
            if f.accu_var == name {
                if f.accu.is_none() {
                    let init = f.init;
                    let saved = self.scope;
                    self.scope = f.parent;
                    let v = self.eval(init);
                    self.scope = saved;
                    let v = v?;
                    if let Some(f) = self.frames.get_mut(i) {
                        f.accu = Some(v);
                    }
                }
                return Ok(Some(
                    self.frames
                        .get(i)
                        .and_then(|f| f.accu.clone())
                        .unwrap_or(Value::Null),
                ));
            }
            if !f.compute_result {
                if f.iter_var == name {
                    return Ok(Some(f.it1.clone()));
                }
                if f.iter_var2 == Some(name) {
                    return Ok(Some(f.it2.clone()));
                }
            }
        }
        Ok(self.act.resolve(name).cloned())
    }

    fn resolve_attr(&mut self, a: &'p AttrNode) -> R<'a> {
        let base = match &a.base {
            AttrBase::Var(name) => self.lookup(name)?,
            AttrBase::Global(name) => match self.act.resolve(name) {
                Some(v) => v.clone(),
                None => Value::error(format!("no such attribute(s): {name}")),
            },
            AttrBase::Maybe(cands, global) => {
                for (name, covered) in cands.iter() {
                    let found = if *global {
                        self.act.resolve(name).cloned()
                    } else {
                        self.try_lookup(name)?
                    };
                    if let Some(v) = found {
                        let rest = a.quals.get(*covered..).unwrap_or(&[]);
                        if v.is_error() || rest.is_empty() {
                            return Ok(v);
                        }
                        return self.apply_quals(v, rest);
                    }
                }
                let names: Vec<&str> = cands.iter().map(|(n, _)| &**n).collect();
                return Ok(Value::error(format!(
                    "no such attribute(s): {}",
                    names.join(", ")
                )));
            }
            AttrBase::Rel(n) => self.eval(n)?,
            AttrBase::Cond(c) => {
                let cond = self.eval(&c.0)?;
                return match cond {
                    Value::Bool(true) => self.resolve_attr(&c.1),
                    Value::Bool(false) => self.resolve_attr(&c.2),
                    other => Ok(Value::maybe_no_such_overload(&other)),
                };
            }
        };
        if base.is_error() || a.quals.is_empty() {
            return Ok(base);
        }
        self.apply_quals(base, &a.quals)
    }

    fn apply_quals(&mut self, base: Value<'a>, quals: &'p [Qual]) -> R<'a> {
        let mut obj = base;
        let mut is_opt = false;
        if let Value::Optional(o) = &obj {
            match o {
                None => return Ok(obj),
                Some(v) => {
                    let v = (**v).clone();
                    obj = v;
                    is_opt = true;
                }
            }
        }
        for q in quals {
            is_opt = is_opt || q.optional;
            let key = match &q.kind {
                QualKind::Const(k) => k.clone(),
                QualKind::Attr(attr) => {
                    let k = self.resolve_attr(attr)?;
                    if k.is_error() {
                        if !is_opt {
                            self.tracker.add(1)?;
                        }
                        return Ok(k);
                    }
                    k
                }
            };
            let presence_only = q.test_only;
            match qualify(&obj, &key, is_opt || presence_only) {
                Qualified::Present(v) => {
                    self.tracker.add(1)?;
                    obj = if presence_only { Value::Bool(true) } else { v };
                }
                Qualified::Absent => {
                    // `Qualify` (plain presence test) is always observed; `QualifyIfPresent`
                    // (optional path) only when present.
                    if presence_only && !is_opt {
                        self.tracker.add(1)?;
                        obj = Value::Bool(false);
                        continue;
                    }
                    return Ok(Value::optional_none());
                }
                Qualified::Err(e) => {
                    if !is_opt {
                        self.tracker.add(1)?;
                    }
                    return Ok(e);
                }
            }
        }
        if is_opt {
            return Ok(Value::optional_of(obj));
        }
        Ok(obj)
    }

    #[inline(never)]
    fn eval_and_or(&mut self, a: &'p Node, b: &'p Node, is_or: bool) -> R<'a> {
        let mut err: Option<Value<'a>> = None;
        for t in [a, b] {
            let v = self.eval(t)?;
            match v {
                Value::Bool(x) if x == is_or => return Ok(Value::Bool(is_or)),
                Value::Bool(_) => {}
                other => {
                    if err.is_none() {
                        err = Some(Value::maybe_no_such_overload(&other));
                    }
                }
            }
        }
        Ok(err.unwrap_or(Value::Bool(!is_or)))
    }

    #[inline(never)]
    fn eval_opt_or(&mut self, a: &'p Node, b: &'p Node, is_value: bool) -> R<'a> {
        let lhs = self.eval(a)?;
        match lhs {
            Value::Error(_) => Ok(lhs),
            Value::Optional(Some(v)) => {
                if is_value {
                    Ok((*v).clone())
                } else {
                    Ok(Value::Optional(Some(v)))
                }
            }
            Value::Optional(None) => self.eval(b),
            _ => Ok(Value::no_such_overload()),
        }
    }

    #[inline(never)]
    fn eval_set(&mut self, arg: &'p Node, set: &[SetElem]) -> R<'a> {
        let v = self.eval(arg)?;
        let key = match &v {
            Value::Error(_) => return Ok(v),
            Value::Int(i) => SetElem::Int(*i),
            Value::Uint(u) => SetElem::Uint(*u),
            Value::Double(d) => SetElem::Double(d.to_bits()),
            Value::Bool(b) => SetElem::Bool(*b),
            Value::String(s) => SetElem::Str(Rc::from(s.as_str())),
            _ => return Ok(Value::Bool(false)),
        };
        Ok(Value::Bool(set.contains(&key)))
    }

    #[inline(never)]
    fn eval_list(&mut self, l: &'p ListNode) -> R<'a> {
        let mut items = Vec::with_capacity(l.elems.len());
        let mut result = None;
        for (i, e) in l.elems.iter().enumerate() {
            let v = self.eval(e)?;
            if v.is_error() {
                result = Some(v);
                break;
            }
            if l.optionals.get(i).copied().unwrap_or(false) {
                match v {
                    Value::Optional(None) => continue,
                    Value::Optional(Some(x)) => items.push((*x).clone()),
                    other => {
                        result = Some(Value::error(format!(
                            "cannot initialize optional list element from non-optional value {}",
                            crate::value::format_v(&other)
                        )));
                        break;
                    }
                }
            } else {
                items.push(v);
            }
        }
        self.tracker.add(10)?;
        Ok(result.unwrap_or_else(|| Value::list(items)))
    }

    #[inline(never)]
    fn eval_map(&mut self, m: &'p MapNode) -> R<'a> {
        let mut map = OwnedMap::default();
        let mut result = None;
        for (k, v, optional) in &m.entries {
            let kv = self.eval(k)?;
            if kv.is_error() {
                result = Some(kv);
                break;
            }
            let vv = self.eval(v)?;
            if vv.is_error() {
                result = Some(vv);
                break;
            }
            if *optional {
                match vv {
                    Value::Optional(None) => {
                        map = remove_key(map, &kv);
                        continue;
                    }
                    Value::Optional(Some(x)) => map.insert(kv, (*x).clone()),
                    other => {
                        result = Some(Value::error(format!(
                            "cannot initialize optional entry '{}' from non-optional value {}",
                            crate::value::format_v(&kv),
                            crate::value::format_v(&other)
                        )));
                        break;
                    }
                }
            } else {
                map.insert(kv, vv);
            }
        }
        self.tracker.add(30)?;
        Ok(result.unwrap_or_else(|| Value::Map(Map::Owned(Rc::new(map)))))
    }

    /// Evaluates a call. Only the argument loop is live while the arguments recurse: the rest
    /// is out of line to keep this frame small (deep expressions, small browser stacks).
    #[inline(never)]
    fn eval_call(&mut self, c: &'p CallNode) -> R<'a> {
        if c.accumulates {
            if let Some(v) = self.try_accumulate(c)? {
                return Ok(v);
            }
        }
        let mut args: Vec<Value<'a>> = Vec::with_capacity(c.args.len());
        for a in &c.args {
            let v = self.eval(a)?;
            if c.stop_at_error && v.is_error() && !c.info.non_strict() {
                return Ok(v);
            }
            args.push(v);
        }
        self.finish_call(c, args)
    }

    #[inline(never)]
    fn finish_call(&mut self, c: &'p CallNode, args: Vec<Value<'a>>) -> R<'a> {
        let (result, overload) = match c.kind {
            CallKind::Eq | CallKind::Ne => {
                let r = match (args.first(), args.get(1)) {
                    (Some(l), _) if l.is_error() => l.clone(),
                    (_, Some(r)) if r.is_error() => r.clone(),
                    (Some(l), Some(r)) => {
                        let eq = equal(l, r);
                        if c.kind == CallKind::Eq {
                            eq
                        } else {
                            Value::Bool(!matches!(eq, Value::Bool(true)))
                        }
                    }
                    _ => Value::no_such_overload(),
                };
                let id = if c.kind == CallKind::Eq {
                    "equals"
                } else {
                    "not_equals"
                };
                (r, Some(id))
            }
            CallKind::Normal => {
                if !c.info.non_strict() {
                    if let Some(e) = args.iter().find(|a| a.is_error()) {
                        let e = e.clone();
                        let cost = self.call_cost(c, &args, &e, None);
                        self.tracker.add(cost)?;
                        return Ok(e);
                    }
                }
                self.tracker.precharge(&c.info.function, &args)?;
                stdlib_rt::call_with_zones(
                    &c.info,
                    &args,
                    self.act.time_zones,
                    &self.act.time_zones_needed,
                )
            }
        };
        let cost = self.call_cost(c, &args, &result, overload);
        self.tracker.add(cost)?;
        Ok(result)
    }

    fn call_cost(
        &self,
        c: &CallNode,
        args: &[Value<'a>],
        result: &Value<'a>,
        resolved: Option<&str>,
    ) -> u64 {
        let overload = if c.info.checked {
            c.info.overload.as_deref()
        } else {
            resolved.or(c.info.overload.as_deref())
        };
        let overload = match c.kind {
            CallKind::Eq => Some("equals"),
            CallKind::Ne => Some("not_equals"),
            CallKind::Normal => overload,
        };
        crate::cost_rt::call_cost(
            &c.info.function,
            overload.unwrap_or(""),
            args,
            result,
            self.tracker.kubernetes_estimator,
        )
    }

    /// `@result + [x]` / `cel.@mapInsert(@result, ...)` on the innermost comprehension's empty
    /// initial aggregate: appends in place instead of copying (same result, same cost).
    #[inline(never)]
    fn try_accumulate(&mut self, c: &'p CallNode) -> Result<Option<Value<'a>>, CostLimitExceeded> {
        let is_add = c.info.function == "_+_";
        let is_insert = c.info.function == "cel.@mapInsert";
        if !(is_add || is_insert) || c.args.len() < 2 {
            return Ok(None);
        }
        let Some(Node::Attr(a)) = c.args.first() else {
            return Ok(None);
        };
        let AttrBase::Var(name) = &a.base else {
            return Ok(None);
        };
        if !a.quals.is_empty() {
            return Ok(None);
        }
        let Some(top) = self.scope else {
            return Ok(None);
        };
        let ok = self
            .frames
            .get(top)
            .is_some_and(|f| f.mutable && f.accu_var == &**name && f.accu.is_some());
        if !ok {
            return Ok(None);
        }
        // Take the accumulator out (it is replaced by the step's result).
        let acc = self
            .frames
            .get_mut(top)
            .and_then(|f| f.accu.take())
            .unwrap_or(Value::Null);
        self.tracker.add(1)?;
        let mut rest = Vec::with_capacity(c.args.len() - 1);
        for n in c.args.iter().skip(1) {
            let v = self.eval(n)?;
            if c.stop_at_error && v.is_error() {
                return Ok(Some(v));
            }
            rest.push(v);
        }
        let mut all = Vec::with_capacity(c.args.len());
        all.push(acc);
        all.extend(rest);
        let (result, overload) = if let Some(e) = all.iter().find(|v| v.is_error()) {
            (e.clone(), None)
        } else {
            match (is_add, &mut all[..]) {
                (true, [Value::List(List::Owned(l)), Value::List(other)])
                    if l.kind == ListKind::Plain =>
                {
                    let other = other.clone();
                    Rc::make_mut(l).items.extend(other.iter());
                    (Value::List(List::Owned(l.clone())), Some("add_list"))
                }
                _ => stdlib_rt::call(&c.info, &all),
            }
        };
        let cost = self.call_cost(c, &all, &result, overload);
        self.tracker.add(cost)?;
        Ok(Some(result))
    }

    #[inline(never)]
    fn eval_fold(&mut self, f: &'p FoldNode) -> R<'a> {
        let range = self.eval(&f.iter_range)?;
        if range.is_error() {
            return Ok(range);
        }
        let two = f.iter_var2.is_some();
        let iterable = matches!(range, Value::List(_) | Value::Map(_));
        if !iterable {
            return Ok(if two {
                Value::error(format!(
                    "unsupported comprehension range type: {}",
                    go_type_of(&range)
                ))
            } else {
                Value::error(format!(
                    "got '{}', expected iterable type",
                    go_type_of(&range)
                ))
            });
        }
        let me = self.frames.len();
        self.frames.push(Frame {
            parent: self.scope,
            accu_var: &f.accu_var,
            accu: None,
            init: &f.accu_init,
            iter_var: &f.iter_var,
            iter_var2: f.iter_var2.as_deref(),
            it1: Value::Null,
            it2: Value::Null,
            compute_result: false,
            mutable: f.mutable_accu,
        });
        let saved = self.scope;
        self.scope = Some(me);
        let r = self.run_fold(f, &range, me);
        self.scope = saved;
        self.frames.truncate(me);
        r
    }

    fn run_fold(&mut self, f: &'p FoldNode, range: &Value<'a>, me: usize) -> R<'a> {
        let two = f.iter_var2.is_some();
        let items: Box<dyn Iterator<Item = (Value<'a>, Value<'a>)> + '_> = match range {
            Value::List(l) => {
                let l = l.clone();
                let n = l.len();
                Box::new((0..n).map(move |i| {
                    let v = l.get(i).unwrap_or(Value::Null);
                    if two {
                        (Value::Int(i as i64), v)
                    } else {
                        (v, Value::Null)
                    }
                }))
            }
            Value::Map(m) => {
                let m = m.clone();
                let keys = m.keys();
                Box::new(keys.into_iter().map(move |k| {
                    let v = if two { m.get(&k) } else { Value::Null };
                    (k, v)
                }))
            }
            _ => Box::new(std::iter::empty()),
        };
        for (a, b) in items {
            if let Some(fr) = self.frames.get_mut(me) {
                fr.it1 = a;
                fr.it2 = b;
            }
            let cond = self.eval(&f.cond)?;
            if let Value::Bool(false) = cond {
                break;
            }
            let step = self.eval(&f.step)?;
            if let Some(fr) = self.frames.get_mut(me) {
                fr.accu = Some(step);
            }
        }
        if let Some(fr) = self.frames.get_mut(me) {
            fr.compute_result = true;
        }
        self.eval(&f.result)
    }
}

/// Removes a key from an owned map under construction (`{?k: none}` deletes an earlier `k`).
fn remove_key<'a>(map: OwnedMap<'a>, k: &Value<'a>) -> OwnedMap<'a> {
    if !map.contains_exact(k) {
        return map;
    }
    let mut out = OwnedMap::default();
    for (kk, vv) in map.entries() {
        if !(matches!(equal(kk, k), Value::Bool(true)) && kk.type_name() == k.type_name()) {
            out.insert(kk.clone(), vv.clone());
        }
    }
    out
}

/// cel-go's `IndexOrError`.
fn index_of(k: &Value<'_>) -> Result<i64, String> {
    match k {
        Value::Int(i) => Ok(*i),
        Value::Uint(u) => i64::try_from(*u).map_err(|_| {
            format!(
                "unsupported index value {} in list",
                crate::value::format_v(k)
            )
        }),
        Value::Double(d) => stdlib_rt::double_to_int_lossless(*d).ok_or_else(|| {
            format!(
                "unsupported index value {} in list",
                crate::value::format_v(k)
            )
        }),
        other => Err(format!(
            "unsupported index type '{}' in list",
            other.type_name()
        )),
    }
}

/// One qualification step (cel-go's `refQualify`): present with the value, absent (only when
/// testing presence), or an error.
fn qualify<'a>(obj: &Value<'a>, key: &Value<'a>, presence: bool) -> Qualified<'a> {
    match obj {
        Value::Error(_) => Qualified::Err(obj.clone()),
        Value::Map(m) => match m.find(key) {
            Ok(Some(v)) if v.is_error() => Qualified::Err(v),
            Ok(Some(v)) => Qualified::Present(v),
            Ok(None) if presence => Qualified::Absent,
            Ok(None) => Qualified::Err(Value::error(format!(
                "no such key: {}",
                crate::value::format_v(key)
            ))),
            Err(e) => Qualified::Err(e),
        },
        Value::List(l) => match index_of(key) {
            Err(m) => Qualified::Err(Value::error(m)),
            Ok(i) if i >= 0 && (i as u64) < l.len() as u64 => {
                Qualified::Present(l.get(i as usize).unwrap_or(Value::Null))
            }
            Ok(_) if presence => Qualified::Absent,
            Ok(_) => Qualified::Err(Value::error(format!(
                "index out of bounds: {}",
                crate::value::format_v(key)
            ))),
        },
        _ if presence => Qualified::Absent,
        _ => Qualified::Err(Value::error(format!(
            "no such key: {}",
            crate::value::format_v(key)
        ))),
    }
}

#[allow(dead_code)]
fn str_value(s: &str) -> Value<'static> {
    Value::String(Str::Owned(Rc::from(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> (Value<'static>, u64) {
        let p = crate::Parser::new(crate::ParserOptions {
            enable_optional_syntax: true,
            macros: crate::MacroSet::standard()
                .with_two_var_comprehensions()
                .with_optional(1),
            ..Default::default()
        })
        .parse_text(src)
        .unwrap();
        let prog = Program::from_parsed(&p.expr).unwrap();
        let act = Activation::new();
        let mut t = CostTracker::kubernetes(None);
        let v = prog.eval(&act, &mut t).unwrap();
        (v, t.actual_cost())
    }

    #[test]
    fn short_circuit_and_error_absorption() {
        let cases = [
            ("false && 1/0 == 1", Some(false)),
            ("1/0 == 1 && false", Some(false)),
            ("true || 1/0 == 1", Some(true)),
            ("1/0 == 1 || true", Some(true)),
            ("[1,0].exists(x, 1/x == 1)", Some(true)),
            ("[0,2].all(x, 1/x == 1)", Some(false)),
            ("[0,1].all(x, 1/x == 1)", None),
            ("[1,2,3].exists_one(x, x > 2)", Some(true)),
            ("true ? true : 1/0 == 1", Some(true)),
        ];
        for (src, want) in cases {
            let (v, _) = run(src);
            assert_eq!(v.as_bool(), want, "{src}: {v:?}");
        }
    }

    #[test]
    fn runtime_costs() {
        let cases = [
            ("1 + 1 == 2", 2),
            ("[1, 2, 3].all(x, x > 0)", 0),
            ("1 in [1, 2, 3]", 0),
            ("'abc'.startsWith('a')", 1),
            ("[1, 2].map(x, x * 2) == [2, 4]", 0),
        ];
        for (src, want) in cases {
            let (v, c) = run(src);
            assert!(!v.is_error(), "{src}: {v:?}");
            if want > 0 {
                assert_eq!(c, want, "{src}");
            }
        }
    }

    #[test]
    fn optional_chains_and_presence() {
        let mut act = Activation::new();
        act.bind(
            "o",
            Value::optional_of(Value::map(vec![(Value::string("a"), Value::Int(1))])),
        );
        act.bind("n", Value::optional_none());
        let cases = [
            ("has(o.a)", Some(true), 1),
            ("has(o.b)", Some(false), 0),
            ("has(n.a)", Some(false), 0),
            ("o.a.orValue(5) == 1", Some(true), 3),
            ("n.a.orValue(5) == 5", Some(true), 2),
            ("o.?b.orValue(7) == 7", Some(true), 2),
        ];
        for (src, want, cost) in cases {
            let p = crate::Parser::new(crate::ParserOptions {
                enable_optional_syntax: true,
                ..Default::default()
            })
            .parse_text(src)
            .unwrap();
            let prog = Program::from_parsed(&p.expr).unwrap();
            let mut t = CostTracker::kubernetes(None);
            let v = prog.eval(&act, &mut t).unwrap();
            assert_eq!(v.as_bool(), want, "{src}: {v:?}");
            assert_eq!(t.actual_cost(), cost, "{src}");
        }
    }

    #[test]
    fn cost_limit_cancels() {
        let p = crate::parse("[1,2,3,4,5,6,7,8,9,10].map(x, x * 2).size() > 0").unwrap();
        let prog = Program::from_parsed(&p.expr).unwrap();
        let act = Activation::new();
        let mut t = CostTracker::kubernetes(Some(5));
        assert!(matches!(prog.eval(&act, &mut t), Err(CostLimitExceeded)));
    }

    #[test]
    fn plan_errors() {
        let p = crate::parse("'x'.matches(')')").unwrap();
        let e = Program::from_parsed(&p.expr).unwrap_err();
        assert_eq!(e.message, "error parsing regexp: unexpected ): `)`");
        let p = crate::parse("int('x') == 1").unwrap();
        let e = Program::from_parsed(&p.expr).unwrap_err();
        assert_eq!(e.message, "type conversion error from 'string' to 'int'");
    }
}

#[cfg(test)]
mod depth_tests {
    use super::*;

    /// Parses on a big stack, then evaluates on `stack` bytes.
    fn eval_on_stack(src: String, stack: usize) -> bool {
        let p = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || crate::parse(&src).unwrap())
            .unwrap()
            .join()
            .unwrap();
        std::thread::Builder::new()
            .stack_size(stack)
            .spawn(move || {
                let prog = Program::from_parsed(&p.expr).unwrap();
                let mut act = Activation::new();
                act.bind("x", Value::Bool(true));
                let mut t = CostTracker::kubernetes(None);
                prog.eval(&act, &mut t).unwrap().as_bool() == Some(true)
            })
            .unwrap()
            .join()
            .unwrap_or(false)
    }

    #[test]
    fn deepest_parsable_expressions_fit_a_small_stack() {
        // Kubernetes' TestCELMaxRecursionDepth (249 nested `==`), nested parentheses and
        // ternaries: planned and evaluated within 1 MiB (the browser's stack) in debug builds
        // (release needs about 0.5 KiB per level).
        let chain = vec!["x"; 250].join(" == ");
        assert!(eval_on_stack(chain, 1 << 20));
        let nested = format!("{}x{}", "(".repeat(240), ")".repeat(240));
        assert!(eval_on_stack(nested, 1 << 20));
        let ternaries = format!("{}x{}", "true ? (".repeat(120), " ) : false".repeat(120));
        assert!(eval_on_stack(ternaries, 1 << 20));
    }

    #[test]
    fn deep_data_equality_fits_a_small_stack() {
        // 500 nested arrays (the engine accepts documents up to 512 levels).
        let mut json = serde_json::json!(1);
        let mut schema = serde_json::json!({"type": "integer"});
        for _ in 0..500 {
            json = serde_json::Value::Array(vec![json]);
            schema = serde_json::json!({"type": "array", "items": schema});
        }
        let ok = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || {
                let schema = crate::unstructured::Schema::from_json(&schema);
                let p = crate::parse("self == oldSelf && self != []").unwrap();
                let prog = Program::from_parsed(&p.expr).unwrap();
                let mut act = Activation::new();
                act.bind_json("self", &json, &schema);
                act.bind_json("oldSelf", &json, &schema);
                let mut t = CostTracker::kubernetes(None);
                let r = prog.eval(&act, &mut t).unwrap().as_bool() == Some(true);
                // Drop the deep trees on this thread's stack too.
                drop(act);
                r
            })
            .unwrap()
            .join()
            .unwrap_or(false);
        assert!(ok);
    }
}
