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

use crate::ast::Expr;
use crate::cost_rt::CostRule;
use crate::stdlib_rt::{Builtin, CallInfo};
use crate::value::Value;

#[cfg(test)]
mod depth_tests;
mod eval;
mod plan;
#[cfg(test)]
mod tests;

use eval::Evaluator;
use plan::Planner;

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
    /// A variable of the activation (no comprehension in scope binds the name).
    Var(Rc<str>),
    /// A comprehension variable, resolved when planning: `up` comprehensions out from the
    /// innermost one in scope, its accumulator or iteration variable.
    Local(Local),
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

/// A comprehension variable resolved by the planner (see [`AttrBase::Local`]).
#[derive(Debug, Clone)]
struct Local {
    up: u32,
    slot: LocalSlot,
    name: Rc<str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LocalSlot {
    Accu,
    Iter,
    Iter2,
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
    /// The cost rules (cel-go's alone, with Kubernetes' estimator) when the overload is known
    /// when planning (checked calls, `==`, `!=`); unchecked calls price the overload that ran.
    cost: Option<(CostRule, CostRule)>,
    /// The implementation the function name dispatches to.
    builtin: Builtin,
    /// [`CallInfo::non_strict`].
    non_strict: bool,
    /// [`crate::cost_rt::may_precharge`].
    precharges: bool,
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
            folds: Vec::new(),
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
            stack: Vec::new(),
        };
        let r = ev.eval(&self.root);
        if ev.frames.capacity() == 0 && ev.stack.capacity() == 0 {
            // Nothing was allocated (no comprehension, no call of three arguments or more):
            // skip the vectors' drop glue, a tenth of a small expression's evaluation.
            std::mem::forget(ev);
        }
        r
    }
}
