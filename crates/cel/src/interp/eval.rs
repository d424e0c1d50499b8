//! The evaluator (cel-go's `interpreter` over a plan): [`Node`]s evaluated with an
//! [`Activation`], the cost counted in a [`CostTracker`], comprehensions run in frames.

use std::cmp::Ordering;
use std::rc::Rc;

use super::{
    Activation, AttrBase, AttrNode, CallKind, CallNode, CostLimitExceeded, CostTracker, FoldNode,
    ListNode, Local, LocalSlot, MapNode, Node, Qual, QualKind, SetElem, R,
};
use crate::stdlib_rt;
use crate::value::{equal, List, ListKind, Map, OwnedMap, Str, Value};

pub(super) struct Frame<'p, 'a> {
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

pub(super) struct Evaluator<'p, 'a, 't> {
    pub(super) act: &'p Activation<'a>,
    pub(super) tracker: &'t mut CostTracker,
    pub(super) frames: Vec<Frame<'p, 'a>>,
    /// The innermost comprehension frame in scope (frames chain through `parent`).
    pub(super) scope: Option<usize>,
    /// The evaluated arguments of the calls being evaluated.
    pub(super) stack: Vec<Value<'a>>,
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

/// The cost of `==` / `!=` on two values that are not sizers (cel-go's `ceil(1·0.1)`).
const MIN_SCALAR_COST: u64 = 1;

/// A value evaluated in place or borrowed from the plan or the activation.
enum Operand<'p, 'a> {
    Ref(&'p Value<'a>),
    Own(Value<'a>),
}

impl<'a> Operand<'_, 'a> {
    /// The value, cloned when borrowed.
    #[inline]
    fn into_value(self) -> Value<'a> {
        match self {
            Operand::Ref(v) => v.clone(),
            Operand::Own(v) => v,
        }
    }

    /// Drops it ([`Value::discard`]).
    #[inline]
    fn discard(self) {
        if let Operand::Own(v) = self {
            v.discard();
        }
    }

    #[inline]
    fn get(&self) -> &Value<'a> {
        match self {
            Operand::Ref(v) => v,
            Operand::Own(v) => v,
        }
    }
}

enum Qualified<'a> {
    Present(Value<'a>),
    Absent,
    Err(Value<'a>),
}

impl<'p, 'a> Evaluator<'p, 'a, '_> {
    pub(super) fn eval(&mut self, n: &'p Node) -> R<'a> {
        match n {
            Node::Const(v) => Ok(v.clone()),
            Node::Attr(a) => self.eval_attr(a),
            // `==` and `!=` straight to their comparison.
            Node::Call(c) => match (c.kind, c.args.as_slice()) {
                (CallKind::Eq | CallKind::Ne, [x, y]) => self.eval_eq(c, x, y),
                _ => self.eval_call(c),
            },
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
        // A bare variable (most attributes in loops): its value, cost 1.
        if a.quals.is_empty() && !a.test_only {
            let v = match &a.base {
                AttrBase::Var(name) => match self.act.resolve(name) {
                    Some(v) => v.clone(),
                    None => Value::error(format!("no such attribute(s): {name}")),
                },
                AttrBase::Local(l) => self.local(l)?,
                // A ternary (its attribute costs nothing itself).
                AttrBase::Cond(c) => return self.eval_cond(c),
                _ => return self.eval_attr_general(a),
            };
            self.tracker.add(1)?;
            return Ok(v);
        }
        // `x.f` on a variable holding a map with that field (fields in loops): read where the
        // map is, the attribute and its qualifier costing 1 each.
        if let (false, [q]) = (a.test_only, a.quals.as_slice()) {
            if let (QualKind::Const(key), false, false) = (&q.kind, q.optional, q.test_only) {
                if let Some(v) = self.field(&a.base, key) {
                    self.tracker.add(1)?;
                    self.tracker.add(1)?;
                    return Ok(v);
                }
            }
        }
        self.eval_attr_general(a)
    }

    /// The field `key` of the map a variable holds, when present and not an error (what
    /// [`Evaluator::resolve_attr`] gives then); `None` leaves every other case to it.
    #[inline]
    fn field(&self, base: &AttrBase, key: &Value<'a>) -> Option<Value<'a>> {
        let obj = match base {
            AttrBase::Var(name) => self.act.resolve(name)?,
            AttrBase::Local(l) => local_ref(&self.frames, self.scope, l)?,
            _ => return None,
        };
        let Value::Map(m) = obj else {
            return None;
        };
        match m.find(key) {
            Ok(Some(v)) if !v.is_error() => Some(v),
            _ => None,
        }
    }

    /// A ternary without qualifiers: the condition, then the branch it picks (as
    /// [`Evaluator::resolve_attr`] resolves it, a bare comprehension variable in line).
    fn eval_cond(&mut self, c: &'p (Node, AttrNode, AttrNode)) -> R<'a> {
        let branch = match self.eval(&c.0)? {
            Value::Bool(true) => &c.1,
            Value::Bool(false) => &c.2,
            other => return Ok(Value::maybe_no_such_overload(&other)),
        };
        if let (AttrBase::Local(l), true) = (&branch.base, branch.quals.is_empty()) {
            return self.local(l);
        }
        self.resolve_attr(branch)
    }

    fn eval_attr_general(&mut self, a: &'p AttrNode) -> R<'a> {
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

    /// A comprehension variable the planner resolved: the frame `up` out from the innermost
    /// one in scope (by name, as before planning resolved it, should the frames disagree).
    #[inline]
    fn local(&mut self, l: &Local) -> R<'a> {
        match local_ref(&self.frames, self.scope, l) {
            Some(v) => Ok(v.clone()),
            None => self.local_slow(l),
        }
    }

    /// [`Evaluator::local`] when the frames do not hold the value: an accumulator initialised
    /// now, or a name looked up.
    #[inline(never)]
    fn local_slow(&mut self, l: &Local) -> R<'a> {
        let mut cur = self.scope;
        for _ in 0..l.up {
            cur = cur.and_then(|i| self.frames.get(i)).and_then(|f| f.parent);
        }
        let Some(i) = cur else {
            return self.lookup(&l.name);
        };
        let Some(f) = self.frames.get(i) else {
            return self.lookup(&l.name);
        };
        match l.slot {
            LocalSlot::Iter => Ok(f.it1.clone()),
            LocalSlot::Iter2 => Ok(f.it2.clone()),
            LocalSlot::Accu => {
                if let Some(v) = &f.accu {
                    return Ok(v.clone());
                }
                let (init, parent) = (f.init, f.parent);
                let saved = self.scope;
                self.scope = parent;
                let v = self.eval(init);
                self.scope = saved;
                let v = v?;
                if let Some(f) = self.frames.get_mut(i) {
                    f.accu = Some(v.clone());
                }
                Ok(v)
            }
        }
    }

    fn resolve_attr(&mut self, a: &'p AttrNode) -> R<'a> {
        let base = match &a.base {
            AttrBase::Var(name) => match self.act.resolve(name) {
                Some(v) => v.clone(),
                None => Value::error(format!("no such attribute(s): {name}")),
            },
            AttrBase::Local(l) => self.local(l)?,
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
            let computed;
            let key = match &q.kind {
                QualKind::Const(k) => k,
                QualKind::Attr(attr) => {
                    let k = self.resolve_attr(attr)?;
                    if k.is_error() {
                        if !is_opt {
                            self.tracker.add(1)?;
                        }
                        return Ok(k);
                    }
                    computed = k;
                    &computed
                }
            };
            let presence_only = q.test_only;
            match qualify(&obj, key, is_opt || presence_only) {
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
        // (`==` and `!=` with two arguments go to `eval_eq` from `eval`.)
        if c.accumulates {
            if let Some(v) = self.try_accumulate(c)? {
                return Ok(v);
            }
        }
        match c.args.as_slice() {
            [x, y] => return self.eval_call2(c, x, y),
            [x] => return self.eval_call1(c, x),
            _ => {}
        }
        // The arguments go on the evaluator's stack (no allocation per call); an early return
        // with `?` ends the evaluation, so only the `Ok` paths pop them.
        let base = self.stack.len();
        for a in &c.args {
            let v = self.eval(a)?;
            if c.stop_at_error && v.is_error() && !c.non_strict {
                self.stack.truncate(base);
                return Ok(v);
            }
            self.stack.push(v);
        }
        let args = self.stack.get(base..).unwrap_or(&[]);
        let r = finish_call(self.tracker, self.act, c, args);
        self.stack.truncate(base);
        r
    }

    /// A call with two arguments (most of them): evaluated into locals.
    #[inline(never)]
    fn eval_call2(&mut self, c: &'p CallNode, x: &'p Node, y: &'p Node) -> R<'a> {
        let a = self.operand(x)?;
        if c.stop_at_error && a.get().is_error() && !c.non_strict {
            return Ok(a.into_value());
        }
        let b = self.operand(y)?;
        if c.stop_at_error && b.get().is_error() && !c.non_strict {
            a.discard();
            return Ok(b.into_value());
        }
        // Integer orderings (most comparisons in rules) in line, when their cost is fixed.
        if let (stdlib_rt::Builtin::Relation(order, or_equal), Value::Int(l), Value::Int(r)) =
            (c.builtin, a.get(), b.get())
        {
            if let Some(cost) = fixed_cost(self.tracker, c) {
                let o = l.cmp(r);
                self.tracker.add(cost)?;
                return Ok(Value::Bool(
                    o == order || (or_equal && o == Ordering::Equal),
                ));
            }
        }
        finish_call(self.tracker, self.act, c, &[a.into_value(), b.into_value()])
    }

    /// `==` / `!=` (planned with two arguments): constants and variables of the activation
    /// are compared where they are (no clone), with the result and the cost [`finish_call`]
    /// gives (cel-go's `ceil(min(|a0|, |a1|)·0.1)`; the opaque values Kubernetes prices
    /// otherwise go there).
    #[inline(never)]
    fn eval_eq(&mut self, c: &'p CallNode, x: &'p Node, y: &'p Node) -> R<'a> {
        let eq = c.kind == CallKind::Eq;
        // Both operands where they are (constants, variables, comprehension variables).
        if let (Some((l, lc)), Some((r, rc))) = (
            peek(self.act, &self.frames, self.scope, x),
            peek(self.act, &self.frames, self.scope, y),
        ) {
            if let Some((result, cost)) = equality(l, r, eq) {
                if lc {
                    self.tracker.add(1)?;
                }
                if rc {
                    self.tracker.add(1)?;
                }
                self.tracker.add(cost)?;
                return Ok(result);
            }
        }
        let a = self.operand(x)?;
        let b = self.operand(y)?;
        let (l, r) = (a.get(), b.get());
        let r = match equality(l, r, eq) {
            Some((result, cost)) => self.tracker.add(cost).map(|()| result),
            None => {
                let args = [l.clone(), r.clone()];
                finish_call(self.tracker, self.act, c, &args)
            }
        };
        a.discard();
        b.discard();
        r
    }

    /// An operand of a comparison: a constant or an activation variable by reference (a bare
    /// variable costs 1, as in [`Evaluator::eval_attr`]), anything else evaluated.
    #[inline]
    fn operand(&mut self, n: &'p Node) -> Result<Operand<'p, 'a>, CostLimitExceeded> {
        match n {
            Node::Const(v) => Ok(Operand::Ref(v)),
            Node::Attr(a) if a.quals.is_empty() && !a.test_only => {
                if let AttrBase::Var(name) = &a.base {
                    if let Some(v) = self.act.resolve(name) {
                        self.tracker.add(1)?;
                        return Ok(Operand::Ref(v));
                    }
                }
                Ok(Operand::Own(self.eval_attr(a)?))
            }
            _ => Ok(Operand::Own(self.eval(n)?)),
        }
    }

    /// A call with one argument: evaluated into a local.
    #[inline(never)]
    fn eval_call1(&mut self, c: &'p CallNode, x: &'p Node) -> R<'a> {
        let a = self.eval(x)?;
        if c.stop_at_error && a.is_error() && !c.non_strict {
            return Ok(a);
        }
        // `!b` and the comprehensions' `@not_strictly_false(b)` on a bool in line, when their
        // cost is fixed.
        if let Value::Bool(b) = a {
            let r = match c.builtin {
                stdlib_rt::Builtin::Not => Some(!b),
                stdlib_rt::Builtin::NotStrictlyFalse => Some(b),
                _ => None,
            };
            if let (Some(r), Some(cost)) = (r, fixed_cost(self.tracker, c)) {
                self.tracker.add(cost)?;
                return Ok(Value::Bool(r));
            }
        }
        finish_call(self.tracker, self.act, c, std::slice::from_ref(&a))
    }

    /// `@result + [x]` / `cel.@mapInsert(@result, ...)` on the innermost comprehension's empty
    /// initial aggregate: appends in place instead of copying (same result, same cost).
    #[inline(never)]
    fn try_accumulate(&mut self, c: &'p CallNode) -> Result<Option<Value<'a>>, CostLimitExceeded> {
        // `accumulates` is only planned for these two functions.
        let is_add = c.builtin == stdlib_rt::Builtin::Add;
        let is_insert = !is_add && c.info.function == "cel.@mapInsert";
        if !(is_add || is_insert) || c.args.len() < 2 {
            return Ok(None);
        }
        let Some(Node::Attr(a)) = c.args.first() else {
            return Ok(None);
        };
        if !matches!(&a.base, AttrBase::Local(l) if l.up == 0 && l.slot == LocalSlot::Accu) {
            return Ok(None);
        }
        if !a.quals.is_empty() {
            return Ok(None);
        }
        let Some(top) = self.scope else {
            return Ok(None);
        };
        let ok = self
            .frames
            .get(top)
            .is_some_and(|f| f.mutable && f.accu.is_some());
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
        let cost = call_cost(self.tracker, c, &all, &result, overload);
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
        match range {
            Value::List(l) => {
                for i in 0..l.len() {
                    let v = l.get(i).unwrap_or(Value::Null);
                    let (a, b) = if two {
                        (Value::Int(i as i64), v)
                    } else {
                        (v, Value::Null)
                    };
                    if !self.fold_step(f, me, a, b)? {
                        break;
                    }
                }
            }
            Value::Map(m) => {
                for k in m.keys() {
                    let v = if two { m.get(&k) } else { Value::Null };
                    if !self.fold_step(f, me, k, v)? {
                        break;
                    }
                }
            }
            _ => {}
        }
        if let Some(fr) = self.frames.get_mut(me) {
            fr.compute_result = true;
        }
        self.eval(&f.result)
    }

    /// One iteration: binds the iteration variables, tests the loop condition (`false` stops
    /// the loop: `Ok(false)`), evaluates the step into the accumulator.
    fn fold_step(
        &mut self,
        f: &'p FoldNode,
        me: usize,
        a: Value<'a>,
        b: Value<'a>,
    ) -> Result<bool, CostLimitExceeded> {
        if let Some(fr) = self.frames.get_mut(me) {
            std::mem::replace(&mut fr.it1, a).discard();
            // One iteration variable: the second stays null.
            if f.iter_var2.is_some() {
                std::mem::replace(&mut fr.it2, b).discard();
            } else {
                b.discard();
            }
        }
        // A constant `true` condition (`exists_one`, `map`, `filter`) costs nothing: not
        // evaluated.
        if !matches!(f.cond, Node::Const(Value::Bool(true))) {
            let cond = self.eval(&f.cond)?;
            if let Value::Bool(false) = cond {
                return Ok(false);
            }
            cond.discard();
        }
        let step = self.eval(&f.step)?;
        if let Some(fr) = self.frames.get_mut(me) {
            if let Some(old) = fr.accu.replace(step) {
                old.discard();
            }
        }
        Ok(true)
    }
}

/// A comparison operand that needs no evaluation: a constant, a bound variable of the
/// activation or a comprehension variable, by reference, and whether it is an attribute
/// (cost 1).
#[inline]
fn peek<'x, 'p: 'x, 'a>(
    act: &'p Activation<'a>,
    frames: &'x [Frame<'p, 'a>],
    scope: Option<usize>,
    n: &'p Node,
) -> Option<(&'x Value<'a>, bool)> {
    match n {
        Node::Const(v) => Some((v, false)),
        Node::Attr(a) if a.quals.is_empty() && !a.test_only => match &a.base {
            AttrBase::Var(name) => Some((act.resolve(name)?, true)),
            AttrBase::Local(l) => Some((local_ref(frames, scope, l)?, true)),
            _ => None,
        },
        _ => None,
    }
}

/// A comprehension variable in the frames (`None` for an accumulator not initialised yet, or
/// frames that do not match the plan).
#[inline]
fn local_ref<'x, 'p, 'a>(
    frames: &'x [Frame<'p, 'a>],
    scope: Option<usize>,
    l: &Local,
) -> Option<&'x Value<'a>> {
    let mut f = frames.get(scope?)?;
    for _ in 0..l.up {
        f = frames.get(f.parent?)?;
    }
    match l.slot {
        LocalSlot::Iter => Some(&f.it1),
        LocalSlot::Iter2 => Some(&f.it2),
        LocalSlot::Accu => f.accu.as_ref(),
    }
}

/// `==` (`eq`) or `!=` on two values: the result and the call's cost as [`finish_call`] gives
/// them, or `None` for an opaque left operand (Kubernetes prices those).
#[inline]
fn equality<'a>(l: &Value<'a>, r: &Value<'a>, eq: bool) -> Option<(Value<'a>, u64)> {
    use crate::cost_rt::min_size_cost;
    let (same, cost) = match (l, r) {
        (Value::String(l), Value::String(r)) => {
            let (l, r) = (l.as_str(), r.as_str());
            let same = l == r;
            let shorter = l.len().min(r.len());
            // Equal strings have one size; up to 10 bytes (code points), the cost is 1 but for
            // an empty string (`ceil(n·0.1)` for `n` in 1..=10 is 1).
            let cost = if shorter <= 10 {
                u64::from(shorter > 0)
            } else if same {
                let n = Value::string_size(l);
                min_size_cost(n, n)
            } else {
                min_size_cost(Value::string_size(l), Value::string_size(r))
            };
            (same, cost)
        }
        (Value::Int(l), Value::Int(r)) => (l == r, MIN_SCALAR_COST),
        (Value::Uint(l), Value::Uint(r)) => (l == r, MIN_SCALAR_COST),
        (Value::Bool(l), Value::Bool(r)) => (l == r, MIN_SCALAR_COST),
        (Value::Opaque(_), _) => return None,
        _ => {
            let result = if l.is_error() {
                l.clone()
            } else if r.is_error() {
                r.clone()
            } else {
                let e = equal(l, r);
                if eq {
                    e
                } else {
                    Value::Bool(!matches!(e, Value::Bool(true)))
                }
            };
            return Some((result, min_size_cost(l.actual_size(), r.actual_size())));
        }
    };
    Some((Value::Bool(same == eq), cost))
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

/// The cost of a call (see [`crate::cost_rt::call_cost`]): the overload the checker resolved
/// (or, unchecked, the one that ran).
fn call_cost<'a>(
    tracker: &CostTracker,
    c: &CallNode,
    args: &[Value<'a>],
    result: &Value<'a>,
    resolved: Option<&str>,
) -> u64 {
    if let Some((plain, kubernetes)) = &c.cost {
        let rule = if tracker.kubernetes_estimator {
            kubernetes
        } else {
            plain
        };
        return rule.cost(args, result);
    }
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
        tracker.kubernetes_estimator,
    )
}

/// The call's cost when its rule does not depend on the arguments or the result.
#[inline]
fn fixed_cost(tracker: &CostTracker, c: &CallNode) -> Option<u64> {
    let (plain, kubernetes) = c.cost.as_ref()?;
    if tracker.kubernetes_estimator {
        kubernetes.fixed()
    } else {
        plain.fixed()
    }
}

/// Calls the function on its evaluated arguments and charges the call's cost.
#[inline(never)]
fn finish_call<'a>(
    tracker: &mut CostTracker,
    act: &Activation<'a>,
    c: &CallNode,
    args: &[Value<'a>],
) -> R<'a> {
    let (result, overload) = match c.kind {
        CallKind::Eq | CallKind::Ne => {
            let r = match (args.first(), args.get(1)) {
                // The common cases, without the heterogeneous equality's dispatch.
                (Some(Value::String(l)), Some(Value::String(r))) => {
                    Value::Bool((l.as_str() == r.as_str()) == (c.kind == CallKind::Eq))
                }
                (Some(Value::Int(l)), Some(Value::Int(r))) => {
                    Value::Bool((l == r) == (c.kind == CallKind::Eq))
                }
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
            if !c.non_strict {
                if let Some(e) = args.iter().find(|a| a.is_error()) {
                    let e = e.clone();
                    let cost = call_cost(tracker, c, args, &e, None);
                    tracker.add(cost)?;
                    return Ok(e);
                }
            }
            // `_+_` precharges list concatenations only.
            if c.precharges
                && (c.builtin != stdlib_rt::Builtin::Add
                    || matches!(args, [Value::List(_), Value::List(_)]))
            {
                tracker.precharge(&c.info.function, args)?;
            }
            stdlib_rt::call_builtin(
                c.builtin,
                &c.info,
                args,
                act.time_zones,
                &act.time_zones_needed,
            )
        }
    };
    let cost = call_cost(tracker, c, args, &result, overload);
    tracker.add(cost)?;
    Ok(result)
}
