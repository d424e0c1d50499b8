//! The planner (cel-go's `planner`): an AST becomes a tree of [`Node`]s, with select chains
//! as attributes and qualifiers, constants folded, constant sets and regular expressions
//! prepared, and calls bound to their overloads.

use std::rc::Rc;

use super::eval::Evaluator;
use super::{
    Activation, AttrBase, AttrNode, CallKind, CallNode, CostTracker, FoldNode, ListNode, Local,
    LocalSlot, MapNode, Node, PlanError, Qual, QualKind, ReferenceInfo, References, SetElem,
    COST_LIMIT_EXCEEDED,
};
use crate::ast::{CallExpr, ComprehensionExpr, Expr, ExprKind, Literal};
use crate::cost_rt::CostRule;
use crate::stdlib_rt::{self, CallInfo};
use crate::value::{List, Value};

pub(super) struct Planner<'r> {
    pub(super) refs: Option<&'r References>,
    pub(super) locals: Vec<String>,
    /// The comprehensions in scope, innermost last (their variables resolve to slots).
    pub(super) folds: Vec<PlanFold>,
    pub(super) optimize: bool,
    /// The container unchecked names resolve in (cel-go's `Container`); checked expressions
    /// come with their names resolved.
    pub(super) container: &'r str,
}

/// A comprehension in scope while planning.
pub(super) struct PlanFold {
    accu: String,
    iter: String,
    iter2: String,
    /// Planning its result: the iteration variables are out of scope.
    in_result: bool,
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

    /// The comprehension variable `name` denotes, searched as the evaluator's frames are
    /// (innermost first, the accumulator before the iteration variables, which the result
    /// does not see).
    fn resolve_local(&self, name: &str) -> Option<Local> {
        for (up, f) in self.folds.iter().rev().enumerate() {
            let slot = if f.accu == name {
                LocalSlot::Accu
            } else if f.in_result {
                continue;
            } else if f.iter == name {
                LocalSlot::Iter
            } else if !f.iter2.is_empty() && f.iter2 == name {
                LocalSlot::Iter2
            } else {
                continue;
            };
            return Some(Local {
                up: u32::try_from(up).ok()?,
                slot,
                name: Rc::from(name),
            });
        }
        None
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
    pub(super) fn plan(&mut self, e: &Expr) -> Result<Node, PlanError> {
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
            match self.resolve_local(name) {
                Some(l) => AttrBase::Local(l),
                None => AttrBase::Var(Rc::from(name)),
            }
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
        self.folds.push(PlanFold {
            accu: c.accu_var.clone(),
            iter: c.iter_var.clone(),
            iter2: c.iter_var2.clone(),
            in_result: false,
        });
        let cond = self.plan(&c.loop_condition);
        let step = self.plan(&c.loop_step);
        // Pop the iteration variables, keep the accumulator for the result.
        let n_iter = pushed.len().saturating_sub(1);
        for _ in 0..n_iter {
            self.locals.pop();
        }
        if let Some(f) = self.folds.last_mut() {
            f.in_result = true;
        }
        let result = self.plan(&c.result);
        self.locals.pop();
        self.folds.pop();
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
        // What `try_accumulate` takes: the innermost comprehension's accumulator, bare.
        let accumulates = matches!(info.function.as_str(), "_+_" | "cel.@mapInsert")
            && matches!(args.first(), Some(Node::Attr(a)) if a.quals.is_empty() && matches!(&a.base, AttrBase::Local(l) if l.up == 0 && l.slot == LocalSlot::Accu));
        let overload = match kind {
            CallKind::Eq => Some("equals"),
            CallKind::Ne => Some("not_equals"),
            CallKind::Normal if checked => Some(info.overload.as_deref().unwrap_or("")),
            CallKind::Normal => None,
        };
        let cost = overload.map(|o| {
            (
                CostRule::new(&info.function, o, false),
                CostRule::new(&info.function, o, true),
            )
        });
        let node = CallNode {
            builtin: stdlib_rt::Builtin::of(&info.function),
            non_strict: info.non_strict(),
            precharges: crate::cost_rt::may_precharge(&info.function),
            info,
            args,
            stop_at_error,
            kind,
            accumulates,
            cost,
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
        stack: Vec::new(),
    };
    ev.eval(n).map_err(|_| plan_err(COST_LIMIT_EXCEEDED))
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
