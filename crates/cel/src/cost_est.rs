//! The static cost estimate, as cel-go v0.29's `checker.Cost` computes it (`checker/cost.go`,
//! `common/cost.go`, and the overload estimators of `ext/sets.go` and `ext/lists.go`), over a
//! [`CheckedExpr`].
//!
//! Costs and sizes are ranges `[min, max]` of `u64` with saturating arithmetic. Every node
//! gets a cost; nodes also get a *path* (the variable, then field names and `@items`,
//! `@values`, `@keys`, `@indices`) that the host's [`CostEstimator::estimate_size`] resolves
//! to a size (Kubernetes walks the schema's declared type), and calls may be priced by the
//! host's [`CostEstimator::estimate_call_cost`] (Kubernetes' library estimator lives in
//! [`crate::k8s_cost_est`]).
//!
//! Fidelity notes:
//! * The order of evaluation is cel-go's (a call's arguments before its target, sizes
//!   computed and cached when cel-go computes them), because the size cache and the paths
//!   depend on it.
//! * Paths are Go slices in cel-go: `append` writes into a shared backing array when it has
//!   room, so two selections from the same local variable may overwrite each other's last
//!   path element. [`GoPath`] reproduces that (Go's growth: capacity 1, 2, 4, 8, ... for
//!   `[]string`).
//! * Estimates are independent of the environment otherwise: the overload estimators of ext
//!   Sets and ext Lists (version 3) are keyed by overload ids that only those libraries
//!   declare.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Add;
use std::rc::Rc;

use crate::ast::{ComprehensionExpr, Expr, ExprKind, Literal};
use crate::checker::CheckedExpr;
use crate::types::{Kind, Type, OPTIONAL_TYPE_NAME};

/// `common.SelectAndIdentCost`.
pub const SELECT_AND_IDENT_COST: u64 = 1;
/// `common.ConstCost`.
pub const CONST_COST: u64 = 0;
/// `common.ListCreateBaseCost`.
pub const LIST_CREATE_BASE_COST: u64 = 10;
/// `common.MapCreateBaseCost`.
pub const MAP_CREATE_BASE_COST: u64 = 30;
/// `common.StructCreateBaseCost`.
pub const STRUCT_CREATE_BASE_COST: u64 = 40;
/// `common.StringTraversalCostFactor`.
pub const STRING_TRAVERSAL_COST_FACTOR: f64 = 0.1;
/// `common.RegexStringLengthCostFactor`.
pub const REGEX_STRING_LENGTH_COST_FACTOR: f64 = 0.25;

/// cel-go's hidden accumulator name (`parser.HiddenAccumulatorName`).
const HIDDEN_ACCUMULATOR_NAME: &str = "@result";
/// cel-go's accumulator name (`parser.AccumulatorName`).
const ACCUMULATOR_NAME: &str = "__result__";

// ------------------------------------------------------------------------------------------
// Arithmetic
// ------------------------------------------------------------------------------------------

/// `addUint64NoOverflow`.
fn add_sat(x: u64, y: u64) -> u64 {
    x.saturating_add(y)
}

/// `multiplyUint64NoOverflow`.
fn mul_sat(x: u64, y: u64) -> u64 {
    x.saturating_mul(y)
}

/// `2^64` as a float.
const TWO_TO_64: f64 = 18_446_744_073_709_551_616.0;

/// `multiplyByCostFactor`: `ceil(x·y)`, `u64::MAX` when it does not fit.
pub fn multiply_by_cost_factor(x: u64, y: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && y > 0.0 && xf > TWO_TO_64 / y {
        return u64::MAX;
    }
    let ceil = (xf * y).ceil();
    if ceil >= TWO_TO_64 {
        return u64::MAX;
    }
    go_float_to_u64(ceil)
}

/// Go's `uint64(f)` conversion as the amd64 compiler emits it: values from 2^63 on are
/// converted as `int64(f - 2^63) | 1<<63`, and an out-of-range `int64` conversion gives
/// `1<<63`; so 2^64 and above give 2^63 (not a saturated value). Negative values and NaN
/// follow the same instruction sequence.
pub fn go_float_to_u64(f: f64) -> u64 {
    const TWO_TO_63: f64 = 9_223_372_036_854_775_808.0;
    // `cvttsd2si`: out of range (or NaN) gives the "integer indefinite" 0x8000000000000000.
    let cvt = |v: f64| -> u64 {
        if v.is_nan() || !(-TWO_TO_63..TWO_TO_63).contains(&v) {
            1u64 << 63
        } else {
            (v as i64) as u64
        }
    };
    if f < TWO_TO_63 {
        cvt(f)
    } else {
        cvt(f - TWO_TO_63) | (1u64 << 63)
    }
}

/// An estimated size (`checker.SizeEstimate`): the range of `size()` of a value (code points
/// of a string, bytes, entries of a list or map).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SizeEstimate {
    /// The smallest size.
    pub min: u64,
    /// The largest size.
    pub max: u64,
}

/// An estimated cost (`checker.CostEstimate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CostEstimate {
    /// The smallest cost.
    pub min: u64,
    /// The largest cost.
    pub max: u64,
}

impl SizeEstimate {
    /// `[0, u64::MAX]` (`UnknownSizeEstimate`).
    pub const UNKNOWN: SizeEstimate = SizeEstimate {
        min: 0,
        max: u64::MAX,
    };

    /// `[min, max]`.
    pub const fn new(min: u64, max: u64) -> SizeEstimate {
        SizeEstimate { min, max }
    }

    /// `[n, n]` (`FixedSizeEstimate`).
    pub const fn fixed(n: u64) -> SizeEstimate {
        SizeEstimate { min: n, max: n }
    }

    /// Saturating product.
    pub fn multiply(self, o: SizeEstimate) -> SizeEstimate {
        SizeEstimate::new(mul_sat(self.min, o.min), mul_sat(self.max, o.max))
    }

    /// `ceil(size · factor)` as a cost (`MultiplyByCostFactor`).
    pub fn multiply_by_cost_factor(self, factor: f64) -> CostEstimate {
        CostEstimate::new(
            multiply_by_cost_factor(self.min, factor),
            multiply_by_cost_factor(self.max, factor),
        )
    }

    /// Saturating product with a cost (`MultiplyByCost`).
    pub fn multiply_by_cost(self, c: CostEstimate) -> CostEstimate {
        CostEstimate::new(mul_sat(self.min, c.min), mul_sat(self.max, c.max))
    }

    /// The range covering both.
    pub fn union(self, o: SizeEstimate) -> SizeEstimate {
        SizeEstimate::new(self.min.min(o.min), self.max.max(o.max))
    }

    /// The same range as a cost (`AsCost`, and Go's `checker.CostEstimate(size)`).
    pub fn as_cost(self) -> CostEstimate {
        CostEstimate::new(self.min, self.max)
    }
}

impl CostEstimate {
    /// `[0, u64::MAX]`.
    pub const UNKNOWN: CostEstimate = CostEstimate {
        min: 0,
        max: u64::MAX,
    };

    /// `[min, max]`.
    pub const fn new(min: u64, max: u64) -> CostEstimate {
        CostEstimate { min, max }
    }

    /// `[n, n]` (`FixedCostEstimate`).
    pub const fn fixed(n: u64) -> CostEstimate {
        CostEstimate { min: n, max: n }
    }

    /// Saturating product.
    pub fn multiply(self, o: CostEstimate) -> CostEstimate {
        CostEstimate::new(mul_sat(self.min, o.min), mul_sat(self.max, o.max))
    }

    /// `ceil(cost · factor)`.
    pub fn multiply_by_cost_factor(self, factor: f64) -> CostEstimate {
        CostEstimate::new(
            multiply_by_cost_factor(self.min, factor),
            multiply_by_cost_factor(self.max, factor),
        )
    }

    /// The range covering both.
    pub fn union(self, o: CostEstimate) -> CostEstimate {
        CostEstimate::new(self.min.min(o.min), self.max.max(o.max))
    }
}

impl Add for SizeEstimate {
    type Output = SizeEstimate;

    /// Saturating sum (`SizeEstimate.Add`).
    fn add(self, o: SizeEstimate) -> SizeEstimate {
        SizeEstimate::new(add_sat(self.min, o.min), add_sat(self.max, o.max))
    }
}

impl Add for CostEstimate {
    type Output = CostEstimate;

    /// Saturating sum (`CostEstimate.Add`).
    fn add(self, o: CostEstimate) -> CostEstimate {
        CostEstimate::new(add_sat(self.min, o.min), add_sat(self.max, o.max))
    }
}

/// A call's estimate (`checker.CallEstimate`): its own cost and, for calls producing a
/// string, bytes, list or map, the result's size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallEstimate {
    /// The call's cost (without its arguments).
    pub cost: CostEstimate,
    /// The size of the result, when known.
    pub result_size: Option<SizeEstimate>,
}

impl CallEstimate {
    /// A cost without a result size.
    pub fn cost(cost: CostEstimate) -> CallEstimate {
        CallEstimate {
            cost,
            result_size: None,
        }
    }
}

// ------------------------------------------------------------------------------------------
// Paths as Go slices
// ------------------------------------------------------------------------------------------

/// A field path as a Go `[]string`: a view (`len`) of a shared backing array whose length is
/// the slice's capacity. `append` writes in place when there is room, as Go does.
#[derive(Clone, Debug, Default)]
pub struct GoPath {
    arr: Option<Rc<RefCell<Vec<Rc<str>>>>>,
    len: usize,
}

/// Go's `growslice` capacity for a `[]string` (16-byte elements) growing from `old_cap` to
/// hold `new_len`: doubling below 256, then by a quarter plus 192, rounded up to the size
/// classes (exact powers of two below 4 KiB, where every realistic path stays).
fn go_grow(old_cap: usize, new_len: usize) -> usize {
    let double = old_cap.saturating_mul(2);
    let mut cap = if new_len > double {
        new_len
    } else if old_cap < 256 {
        double
    } else {
        let mut c = old_cap;
        while c > 0 && c < new_len {
            c = c.saturating_add((c.saturating_add(3 * 256)) >> 2);
        }
        if c == 0 {
            new_len
        } else {
            c
        }
    };
    // Size classes for 16-byte elements: powers of two up to 4096 bytes are classes, so a
    // capacity below 256 elements is rounded up to the next multiple the class allows.
    if cap <= 256 {
        cap = cap.next_power_of_two().max(1);
    }
    cap
}

impl GoPath {
    /// A nil slice.
    pub fn nil() -> GoPath {
        GoPath::default()
    }

    /// `[]string{elems...}` (capacity = length).
    pub fn from_elems<I: IntoIterator<Item = S>, S: AsRef<str>>(elems: I) -> GoPath {
        let v: Vec<Rc<str>> = elems.into_iter().map(|s| Rc::from(s.as_ref())).collect();
        if v.is_empty() {
            return GoPath::nil();
        }
        let len = v.len();
        GoPath {
            arr: Some(Rc::new(RefCell::new(v))),
            len,
        }
    }

    /// `append(p, elem)`.
    pub fn append(&self, elem: &str) -> GoPath {
        let elem: Rc<str> = Rc::from(elem);
        match &self.arr {
            None => GoPath {
                arr: Some(Rc::new(RefCell::new(vec![elem]))),
                len: 1,
            },
            Some(arr) => {
                let cap = arr.borrow().len();
                if self.len < cap {
                    if let Some(slot) = arr.borrow_mut().get_mut(self.len) {
                        *slot = elem;
                    }
                    GoPath {
                        arr: Some(Rc::clone(arr)),
                        len: self.len + 1,
                    }
                } else {
                    let new_cap = go_grow(cap, self.len + 1);
                    let mut v: Vec<Rc<str>> = Vec::with_capacity(new_cap);
                    v.extend(arr.borrow().iter().take(self.len).cloned());
                    v.push(elem);
                    while v.len() < new_cap {
                        v.push(Rc::from(""));
                    }
                    GoPath {
                        arr: Some(Rc::new(RefCell::new(v))),
                        len: self.len + 1,
                    }
                }
            }
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a nil or empty slice.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements as they are now.
    pub fn to_vec(&self) -> Vec<String> {
        match &self.arr {
            None => Vec::new(),
            Some(a) => a
                .borrow()
                .iter()
                .take(self.len)
                .map(|s| s.to_string())
                .collect(),
        }
    }

    /// The first element as it is now.
    pub fn first(&self) -> Option<String> {
        if self.len == 0 {
            return None;
        }
        self.arr
            .as_ref()
            .and_then(|a| a.borrow().first().map(|s| s.to_string()))
    }
}

// ------------------------------------------------------------------------------------------
// The host interface
// ------------------------------------------------------------------------------------------

/// A node as the estimators see it (`checker.AstNode`).
#[derive(Clone, Debug)]
pub struct AstNode<'a> {
    path: GoPath,
    ty: Type,
    expr: Option<&'a Expr>,
    computed_size: Option<SizeEstimate>,
}

impl<'a> AstNode<'a> {
    /// A node (for hosts that build their own, such as Kubernetes' list element node).
    pub fn new(
        path: GoPath,
        ty: Type,
        expr: Option<&'a Expr>,
        computed_size: Option<SizeEstimate>,
    ) -> AstNode<'a> {
        AstNode {
            path,
            ty,
            expr,
            computed_size,
        }
    }

    /// `Path()`: the variable then field names, `@items`, `@keys`, `@values`, `@indices`;
    /// empty when the node is not reachable from a variable (as its elements are now, see
    /// [`GoPath`]).
    pub fn path(&self) -> Vec<String> {
        self.path.to_vec()
    }

    /// The path as a Go slice.
    pub fn go_path(&self) -> &GoPath {
        &self.path
    }

    /// `Type()`.
    pub fn ty(&self) -> &Type {
        &self.ty
    }

    /// `Expr()`; `None` for synthetic nodes.
    pub fn expr(&self) -> Option<&'a Expr> {
        self.expr
    }

    /// `ComputedSize()`: the size derived from the expression itself (literals, results of
    /// calls with a known result size, ...).
    pub fn computed_size(&self) -> Option<SizeEstimate> {
        self.computed_size
    }
}

/// The host's estimator (`checker.CostEstimator`).
pub trait CostEstimator {
    /// `EstimateSize`: the size of a node the expression alone does not size (a variable or
    /// a field of one), or `None`.
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate>;

    /// `EstimateCallCost`: the cost of a call (without its arguments), or `None` for cel-go's
    /// default.
    fn estimate_call_cost(
        &self,
        function: &str,
        overload_id: &str,
        target: Option<&AstNode<'_>>,
        args: &[AstNode<'_>],
    ) -> Option<CallEstimate> {
        let _ = (function, overload_id, target, args);
        None
    }
}

/// An estimator that knows nothing (every variable size unknown, cel-go's call defaults).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoEstimator;

impl CostEstimator for NoEstimator {
    fn estimate_size(&self, _node: &AstNode<'_>) -> Option<SizeEstimate> {
        None
    }
}

/// Cost options (`checker.CostOption`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostOptions {
    /// The cost of a `has()` test (`PresenceTestHasCost`): 1 by default, 0 as Kubernetes
    /// configures it.
    pub presence_test_cost: u64,
    /// Whether the overload estimators of ext Sets and ext Lists (version 3) apply (they are
    /// registered by those libraries; their overload ids exist only with them).
    pub library_estimators: bool,
}

impl Default for CostOptions {
    fn default() -> Self {
        CostOptions {
            presence_test_cost: 1,
            library_estimators: true,
        }
    }
}

impl CostOptions {
    /// Kubernetes' options: `PresenceTestHasCost(false)`, the library estimators on.
    pub const KUBERNETES: CostOptions = CostOptions {
        presence_test_cost: 0,
        library_estimators: true,
    };
}

/// The estimate with the cost of every node (the subtree cost cel-go's `cost(e)` returned
/// for it), for explanations.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CostDetails {
    /// The whole expression's estimate.
    pub total: CostEstimate,
    /// Each node's subtree cost, by node id.
    pub nodes: HashMap<i64, CostEstimate>,
    /// The sizes cel-go computed and kept for nodes (call results, comprehensions, sizes the
    /// host estimated), by node id.
    pub sizes: HashMap<i64, SizeEstimate>,
    /// The path of each node that has one, as it was when the walk ended.
    pub paths: HashMap<i64, Vec<String>>,
}

/// `checker.Cost`: the estimated cost of a checked expression.
pub fn estimate_cost(
    checked: &CheckedExpr,
    estimator: &dyn CostEstimator,
    options: &CostOptions,
) -> CostEstimate {
    let mut c = Coster::new(checked, estimator, options, false);
    c.cost(&checked.expr)
}

/// [`estimate_cost`] keeping every node's cost and size.
pub fn estimate_cost_details(
    checked: &CheckedExpr,
    estimator: &dyn CostEstimator,
    options: &CostOptions,
) -> CostDetails {
    let mut c = Coster::new(checked, estimator, options, true);
    let total = c.cost(&checked.expr);
    CostDetails {
        total,
        nodes: std::mem::take(&mut c.node_costs),
        sizes: c.computed_sizes.clone(),
        paths: c
            .expr_paths
            .iter()
            .filter(|(_, p)| !p.is_empty())
            .map(|(id, p)| (*id, p.to_vec()))
            .collect(),
    }
}

// ------------------------------------------------------------------------------------------
// The walk
// ------------------------------------------------------------------------------------------

/// `entrySizeEstimate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EntrySize {
    container: Kind,
    key: SizeEstimate,
    val: SizeEstimate,
}

fn entry_union(a: Option<EntrySize>, b: Option<EntrySize>) -> Option<EntrySize> {
    let (a, b) = (a?, b?);
    Some(EntrySize {
        container: a.container,
        key: a.key.union(b.key),
        val: a.val.union(b.val),
    })
}

/// `localVar`.
#[derive(Clone, Debug)]
struct LocalVar {
    path: GoPath,
    size: Option<SizeEstimate>,
    entry_size: Option<EntrySize>,
}

struct Coster<'a> {
    checked: &'a CheckedExpr,
    estimator: &'a dyn CostEstimator,
    options: CostOptions,
    expr_paths: HashMap<i64, GoPath>,
    local_vars: HashMap<String, Vec<LocalVar>>,
    computed_sizes: HashMap<i64, SizeEstimate>,
    computed_entry_sizes: HashMap<i64, EntrySize>,
    keep_details: bool,
    node_costs: HashMap<i64, CostEstimate>,
}

fn is_accumulator_var(name: &str) -> bool {
    name == ACCUMULATOR_NAME || name == HIDDEN_ACCUMULATOR_NAME
}

/// `computeExprSize`: the sizes a literal, list or map expression has by itself.
fn compute_expr_size(e: &Expr) -> Option<SizeEstimate> {
    let v = match &e.kind {
        ExprKind::Literal(l) => match l {
            Literal::String(s) => s.chars().count() as u64,
            Literal::Bytes(b) => b.len() as u64,
            Literal::Bool(_)
            | Literal::Double(_)
            | Literal::Int(_)
            | Literal::Uint(_)
            | Literal::Null => 1,
        },
        ExprKind::List(l) => l.elements.len() as u64,
        ExprKind::Map(m) => m.entries.len() as u64,
        _ => return None,
    };
    Some(SizeEstimate::fixed(v))
}

/// `isScalar`.
fn is_scalar(t: &Type) -> bool {
    match t {
        Type::Bool | Type::Double | Type::Duration | Type::Int | Type::Timestamp | Type::Uint => {
            true
        }
        Type::Opaque(n, p) if &**n == OPTIONAL_TYPE_NAME => p.first().is_some_and(is_scalar),
        _ => false,
    }
}

/// `computeTypeSize`.
fn compute_type_size(t: &Type) -> Option<SizeEstimate> {
    is_scalar(t).then_some(SizeEstimate::fixed(1))
}

/// Something whose size cel-go's `sizeOrUnknown` takes: an expression or a node.
enum Sized<'n, 'a> {
    Expr(&'a Expr),
    Node(&'n AstNode<'a>),
}

impl<'a> Coster<'a> {
    fn new(
        checked: &'a CheckedExpr,
        estimator: &'a dyn CostEstimator,
        options: &CostOptions,
        keep_details: bool,
    ) -> Coster<'a> {
        Coster {
            checked,
            estimator,
            options: *options,
            expr_paths: HashMap::new(),
            local_vars: HashMap::new(),
            computed_sizes: HashMap::new(),
            computed_entry_sizes: HashMap::new(),
            keep_details,
            node_costs: HashMap::new(),
        }
    }

    fn get_type(&self, e: &Expr) -> Type {
        self.checked.types.get(&e.id).cloned().unwrap_or(Type::Dyn)
    }

    fn peek_local_var(&self, name: &str) -> Option<&LocalVar> {
        self.local_vars.get(name).and_then(|s| s.last())
    }

    fn push_local(&mut self, name: &str, v: LocalVar) {
        self.local_vars.entry(name.to_owned()).or_default().push(v);
    }

    fn pop_local_var(&mut self, name: &str) {
        if let Some(s) = self.local_vars.get_mut(name) {
            s.pop();
        }
    }

    fn get_path(&self, e: &Expr) -> GoPath {
        if let ExprKind::Ident(n) = &e.kind {
            if let Some(v) = self.peek_local_var(n) {
                return v.path.clone();
            }
        }
        self.expr_paths.get(&e.id).cloned().unwrap_or_default()
    }

    fn add_path(&mut self, e: &Expr, path: GoPath) {
        self.expr_paths.insert(e.id, path);
    }

    fn set_size(&mut self, e: &Expr, size: Option<SizeEstimate>) {
        if let Some(s) = size {
            self.computed_sizes.insert(e.id, s);
        }
    }

    fn set_entry_size(&mut self, e: &Expr, size: Option<EntrySize>) {
        if let Some(s) = size {
            self.computed_entry_sizes.insert(e.id, s);
        }
    }

    /// `computeSize`.
    fn compute_size(&mut self, e: &'a Expr) -> Option<SizeEstimate> {
        if let Some(s) = self.computed_sizes.get(&e.id) {
            return Some(*s);
        }
        if let Some(s) = compute_expr_size(e) {
            return Some(s);
        }
        let node = AstNode::new(self.get_path(e), self.get_type(e), Some(e), None);
        if let Some(s) = self.estimator.estimate_size(&node) {
            self.computed_sizes.insert(e.id, s);
            return Some(s);
        }
        if let Some(s) = compute_type_size(&node.ty) {
            return Some(s);
        }
        if let ExprKind::Ident(n) = &e.kind {
            if let Some(s) = self.peek_local_var(n).and_then(|v| v.size) {
                return Some(s);
            }
        }
        None
    }

    /// `computeEntrySize`.
    fn compute_entry_size(&self, e: &Expr) -> Option<EntrySize> {
        if let Some(s) = self.computed_entry_sizes.get(&e.id) {
            return Some(*s);
        }
        if let ExprKind::Ident(n) = &e.kind {
            if let Some(s) = self.peek_local_var(n).and_then(|v| v.entry_size) {
                return Some(s);
            }
        }
        None
    }

    fn size_or_unknown(&mut self, x: Sized<'_, 'a>) -> SizeEstimate {
        match x {
            Sized::Expr(e) => self.compute_size(e),
            Sized::Node(n) => n.computed_size,
        }
        .unwrap_or(SizeEstimate::UNKNOWN)
    }

    /// `newAstNode`.
    fn new_ast_node(&mut self, e: &'a Expr) -> AstNode<'a> {
        let mut path = self.get_path(e);
        if path.first().is_some_and(|f| is_accumulator_var(&f)) {
            path = GoPath::nil();
        }
        let computed = self.compute_size(e);
        AstNode::new(path, self.get_type(e), Some(e), computed)
    }

    fn push_local_var(&mut self, name: &str, e: &'a Expr) {
        let path = self.get_path(e);
        let entry_size = self.compute_entry_size(e);
        let size = self.compute_size(e);
        self.push_local(
            name,
            LocalVar {
                path,
                size,
                entry_size,
            },
        );
    }

    /// The container kind of a range (`entrySize.container()`, else the range's type).
    fn container_of(&self, entry: Option<EntrySize>, range: &Expr) -> Kind {
        match entry {
            Some(e) => e.container,
            None => self.get_type(range).kind(),
        }
    }

    fn push_iter_key(&mut self, name: &str, range: &'a Expr) {
        let entry = self.compute_entry_size(range);
        let size = entry.map(|e| e.key);
        let path = self.get_path(range);
        let sub = if self.container_of(entry, range) == Kind::List {
            "@indices"
        } else {
            "@keys"
        };
        let path = path.append(sub);
        self.push_local(
            name,
            LocalVar {
                path,
                size,
                entry_size: None,
            },
        );
    }

    fn push_iter_value(&mut self, name: &str, range: &'a Expr) {
        let entry = self.compute_entry_size(range);
        let size = entry.map(|e| e.val);
        let path = self.get_path(range);
        let sub = if self.container_of(entry, range) == Kind::List {
            "@items"
        } else {
            "@values"
        };
        let path = path.append(sub);
        self.push_local(
            name,
            LocalVar {
                path,
                size,
                entry_size: None,
            },
        );
    }

    fn push_iter_single(&mut self, name: &str, range: &'a Expr) {
        let entry = self.compute_entry_size(range);
        let (size, sub) = if self.container_of(entry, range) == Kind::List {
            (entry.map(|e| e.val), "@items")
        } else {
            (entry.map(|e| e.key), "@keys")
        };
        let path = self.get_path(range).append(sub);
        self.push_local(
            name,
            LocalVar {
                path,
                size,
                entry_size: None,
            },
        );
    }

    fn cost(&mut self, e: &'a Expr) -> CostEstimate {
        let c = match &e.kind {
            ExprKind::Literal(_) => CostEstimate::fixed(CONST_COST),
            ExprKind::Ident(n) => self.cost_ident(e, n),
            ExprKind::Select(s) => {
                if s.test_only {
                    CostEstimate::fixed(self.options.presence_test_cost).add(self.cost(&s.operand))
                } else {
                    let mut sum = self.cost(&s.operand);
                    if matches!(
                        self.get_type(&s.operand).kind(),
                        Kind::Map | Kind::Struct | Kind::TypeParam
                    ) {
                        sum = sum.add(CostEstimate::fixed(SELECT_AND_IDENT_COST));
                    }
                    let p = self.get_path(&s.operand).append(&s.field);
                    self.add_path(e, p);
                    sum
                }
            }
            ExprKind::Call(_) => self.cost_call(e),
            ExprKind::List(l) => {
                let mut sum = CostEstimate::default();
                let mut item = SizeEstimate::new(u64::MAX, 0);
                if l.elements.is_empty() {
                    item.min = 0;
                }
                for el in &l.elements {
                    sum = sum.add(self.cost(el));
                    let s = self.size_or_unknown(Sized::Expr(el));
                    item = item.union(s);
                }
                self.set_entry_size(
                    e,
                    Some(EntrySize {
                        container: Kind::List,
                        key: SizeEstimate::fixed(1),
                        val: item,
                    }),
                );
                sum.add(CostEstimate::fixed(LIST_CREATE_BASE_COST))
            }
            ExprKind::Map(m) => {
                let mut sum = CostEstimate::default();
                let mut key = SizeEstimate::new(u64::MAX, 0);
                let mut val = SizeEstimate::new(u64::MAX, 0);
                if m.entries.is_empty() {
                    key.min = 0;
                    val.min = 0;
                }
                for en in &m.entries {
                    sum = sum.add(self.cost(&en.key));
                    sum = sum.add(self.cost(&en.value));
                    let ks = self.size_or_unknown(Sized::Expr(&en.key));
                    key = key.union(ks);
                    let vs = self.size_or_unknown(Sized::Expr(&en.value));
                    val = val.union(vs);
                }
                self.set_entry_size(
                    e,
                    Some(EntrySize {
                        container: Kind::Map,
                        key,
                        val,
                    }),
                );
                sum.add(CostEstimate::fixed(MAP_CREATE_BASE_COST))
            }
            ExprKind::Struct(s) => {
                let mut sum = CostEstimate::default();
                for f in &s.fields {
                    sum = sum.add(self.cost(&f.value));
                }
                sum.add(CostEstimate::fixed(STRUCT_CREATE_BASE_COST))
            }
            ExprKind::Comprehension(c) => {
                if is_bind(c) {
                    self.cost_bind(e, c)
                } else {
                    self.cost_comprehension(e, c)
                }
            }
            ExprKind::Unspecified => CostEstimate::default(),
        };
        if self.keep_details {
            self.node_costs.insert(e.id, c);
        }
        c
    }

    fn cost_ident(&mut self, e: &Expr, name: &str) -> CostEstimate {
        let path = match self.peek_local_var(name) {
            Some(v) => v.path.clone(),
            None => GoPath::from_elems([name]),
        };
        self.add_path(e, path);
        CostEstimate::fixed(SELECT_AND_IDENT_COST)
    }

    fn cost_call(&mut self, e: &'a Expr) -> CostEstimate {
        let ExprKind::Call(call) = &e.kind else {
            return CostEstimate::default();
        };
        if call.function == "dyn" {
            if let Some(arg) = call.args.first() {
                let arg_cost = self.cost(arg);
                let size = self.compute_size(arg);
                self.set_size(e, size);
                let entry = self.compute_entry_size(arg);
                self.set_entry_size(e, entry);
                return CostEstimate::fixed(1).add(arg_cost);
            }
        }
        let mut arg_nodes: Vec<AstNode<'a>> = Vec::with_capacity(call.args.len());
        let mut arg_costs: Vec<CostEstimate> = Vec::with_capacity(call.args.len());
        for arg in &call.args {
            arg_costs.push(self.cost(arg));
            arg_nodes.push(self.new_ast_node(arg));
        }
        let overload_ids: Vec<String> = self.checked.overload_ids(e.id).to_vec();
        if overload_ids.is_empty() {
            return CostEstimate::default();
        }
        let mut sum = CostEstimate::default();
        let mut target_node: Option<AstNode<'a>> = None;
        if let Some(t) = &call.target {
            sum = sum.add(self.cost(t));
            target_node = Some(self.new_ast_node(t));
        }
        let mut fn_cost = CostEstimate::new(u64::MAX, 0);
        let mut result_size: Option<SizeEstimate> = None;
        for overload in &overload_ids {
            let oc = self.function_cost(
                e,
                &call.function,
                overload,
                target_node.as_ref(),
                &arg_nodes,
                &arg_costs,
            );
            fn_cost = fn_cost.union(oc.cost);
            if let Some(rs) = oc.result_size {
                result_size = Some(match result_size {
                    None => rs,
                    Some(r) => r.union(rs),
                });
            }
            match overload.as_str() {
                "index_list" | "index_map" => {
                    if let Some(a0) = call.args.first() {
                        result_size = self.compute_entry_size(a0).map(|s| s.val);
                        let sub = if overload == "index_list" {
                            "@items"
                        } else {
                            "@values"
                        };
                        let p = self.get_path(a0).append(sub);
                        self.add_path(e, p);
                    }
                }
                _ => {}
            }
            if result_size.is_none() {
                result_size = self.compute_size(e);
            }
        }
        self.set_size(e, result_size);
        sum.add(fn_cost)
    }

    fn cost_comprehension(&mut self, e: &'a Expr, comp: &'a ComprehensionExpr) -> CostEstimate {
        let mut sum = CostEstimate::default();
        sum = sum.add(self.cost(&comp.iter_range));
        sum = sum.add(self.cost(&comp.accu_init));
        self.push_local_var(&comp.accu_var, &comp.accu_init);
        let two = !comp.iter_var2.is_empty();
        if two {
            self.push_iter_key(&comp.iter_var, &comp.iter_range);
            self.push_iter_value(&comp.iter_var2, &comp.iter_range);
        } else {
            self.push_iter_single(&comp.iter_var, &comp.iter_range);
        }
        let loop_cost = self.cost(&comp.loop_condition);
        let step_cost = self.cost(&comp.loop_step);
        self.pop_local_var(&comp.iter_var);
        if two {
            self.pop_local_var(&comp.iter_var2);
        }
        sum = sum.add(self.cost(&comp.result));
        self.pop_local_var(&comp.accu_var);
        let range_cnt = self.size_or_unknown(Sized::Expr(&comp.iter_range));
        let range_cost = range_cnt.multiply_by_cost(step_cost.add(loop_cost));
        sum = sum.add(range_cost);
        match &comp.accu_init.kind {
            ExprKind::Literal(_) => {
                let s = self.compute_size(&comp.accu_init);
                self.set_size(e, s);
            }
            ExprKind::List(_) | ExprKind::Map(_) => {
                self.set_size(e, Some(range_cnt));
                let step_entry = self.compute_entry_size(&comp.loop_step);
                self.set_entry_size(e, step_entry);
            }
            _ => {}
        }
        sum
    }

    fn cost_bind(&mut self, e: &'a Expr, comp: &'a ComprehensionExpr) -> CostEstimate {
        let mut sum = CostEstimate::default();
        sum = sum.add(self.cost(&comp.iter_range));
        sum = sum.add(self.cost(&comp.accu_init));
        self.push_local_var(&comp.accu_var, &comp.accu_init);
        sum = sum.add(self.cost(&comp.result));
        self.pop_local_var(&comp.accu_var);
        let size = self.compute_size(&comp.result);
        self.set_size(e, size);
        let entry = self.compute_entry_size(&comp.result);
        self.set_entry_size(e, entry);
        sum
    }

    #[allow(clippy::too_many_arguments)]
    fn function_cost(
        &mut self,
        e: &'a Expr,
        function: &str,
        overload: &str,
        target: Option<&AstNode<'a>>,
        args: &[AstNode<'a>],
        arg_costs: &[CostEstimate],
    ) -> CallEstimate {
        let arg_sum = || {
            arg_costs
                .iter()
                .fold(CostEstimate::default(), |s, c| s.add(*c))
        };
        if self.options.library_estimators {
            if let Some(est) = library_estimate(self.estimator, overload, target, args) {
                return CallEstimate {
                    cost: est.cost.add(arg_sum()),
                    result_size: est.result_size,
                };
            }
        }
        if let Some(est) = self
            .estimator
            .estimate_call_cost(function, overload, target, args)
        {
            return CallEstimate {
                cost: est.cost.add(arg_sum()),
                result_size: est.result_size,
            };
        }
        let stf = STRING_TRAVERSAL_COST_FACTOR;
        match overload {
            "string_format" => {
                if let Some(t) = target {
                    return CallEstimate::cost(
                        self.size_or_unknown(Sized::Node(t))
                            .multiply_by_cost_factor(stf)
                            .add(arg_sum()),
                    );
                }
            }
            "string_to_bytes" => {
                if let [a0] = args {
                    let sz = self.size_or_unknown(Sized::Node(a0));
                    return CallEstimate {
                        cost: sz.multiply_by_cost_factor(stf).add(arg_sum()),
                        result_size: Some(SizeEstimate::new(sz.min, sz.max.wrapping_mul(4))),
                    };
                }
            }
            "bytes_to_string" => {
                if let [a0] = args {
                    let sz = self.size_or_unknown(Sized::Node(a0));
                    return CallEstimate {
                        cost: sz.multiply_by_cost_factor(stf).add(arg_sum()),
                        result_size: Some(SizeEstimate::new(sz.min / 4, sz.max)),
                    };
                }
            }
            "strings_quote" => {
                if let [a0] = args {
                    let sz = self.size_or_unknown(Sized::Node(a0));
                    return CallEstimate {
                        cost: sz.multiply_by_cost_factor(stf).add(arg_sum()),
                        result_size: Some(SizeEstimate::new(
                            sz.min.wrapping_add(2),
                            sz.max.wrapping_mul(2).wrapping_add(2),
                        )),
                    };
                }
            }
            "starts_with_string" | "ends_with_string" => {
                if let [a0] = args {
                    return CallEstimate::cost(
                        self.size_or_unknown(Sized::Node(a0))
                            .multiply_by_cost_factor(stf)
                            .add(arg_sum()),
                    );
                }
            }
            "in_list" => {
                if let [_, a1] = args {
                    return CallEstimate::cost(
                        self.size_or_unknown(Sized::Node(a1))
                            .multiply_by_cost_factor(1.0)
                            .add(arg_sum()),
                    );
                }
            }
            // cel-go v0.29.2 `functionCost`: `case overloads.Matches, overloads.MatchesString`
            // (cel-go #1350): the global form `matches(s, re)` costs what `s.matches(re)` costs.
            "matches_string" | "matches" => {
                let operands = match (overload, target, args) {
                    ("matches_string", Some(t), [a0]) => Some((t, a0)),
                    ("matches", None, [a0, a1]) => Some((a0, a1)),
                    _ => None,
                };
                if let Some((s, re)) = operands {
                    let str_cost = self
                        .size_or_unknown(Sized::Node(s))
                        .add(SizeEstimate::fixed(1))
                        .multiply_by_cost_factor(stf);
                    let regex_cost = self
                        .size_or_unknown(Sized::Node(re))
                        .multiply_by_cost_factor(REGEX_STRING_LENGTH_COST_FACTOR);
                    return CallEstimate::cost(str_cost.multiply(regex_cost).add(arg_sum()));
                }
            }
            "contains_string" => {
                if let (Some(t), [a0]) = (target, args) {
                    let str_cost = self
                        .size_or_unknown(Sized::Node(t))
                        .multiply_by_cost_factor(stf);
                    let sub_cost = self
                        .size_or_unknown(Sized::Node(a0))
                        .multiply_by_cost_factor(stf);
                    return CallEstimate::cost(str_cost.multiply(sub_cost).add(arg_sum()));
                }
            }
            "logical_or" | "logical_and" => {
                let lhs = arg_costs.first().copied().unwrap_or_default();
                let rhs = arg_costs.get(1).copied().unwrap_or_default();
                return CallEstimate::cost(CostEstimate::new(lhs.min, lhs.add(rhs).max));
            }
            "conditional" => {
                if let [_, a1, a2] = args {
                    let size = self
                        .size_or_unknown(Sized::Node(a1))
                        .union(self.size_or_unknown(Sized::Node(a2)));
                    let entry = match (a1.expr, a2.expr) {
                        (Some(x1), Some(x2)) => {
                            entry_union(self.compute_entry_size(x1), self.compute_entry_size(x2))
                        }
                        _ => None,
                    };
                    self.set_entry_size(e, entry);
                    let cond = arg_costs.first().copied().unwrap_or_default();
                    let t = arg_costs.get(1).copied().unwrap_or_default();
                    let f = arg_costs.get(2).copied().unwrap_or_default();
                    return CallEstimate {
                        cost: cond.add(t.union(f)),
                        result_size: Some(size),
                    };
                }
            }
            "add_string" | "add_bytes" | "add_list" => {
                if let [a0, a1] = args {
                    let lhs = self.size_or_unknown(Sized::Node(a0));
                    let rhs = self.size_or_unknown(Sized::Node(a1));
                    let result = lhs.add(rhs);
                    let e0 = a0.expr.and_then(|x| self.compute_entry_size(x));
                    let e1 = a1.expr.and_then(|x| self.compute_entry_size(x));
                    let entry = entry_union(e0, e1);
                    self.set_entry_size(e, entry);
                    let cost = if overload == "add_list" {
                        CostEstimate::fixed(1).add(arg_sum())
                    } else {
                        result.multiply_by_cost_factor(stf).add(arg_sum())
                    };
                    return CallEstimate {
                        cost,
                        result_size: Some(result),
                    };
                }
            }
            "less_string"
            | "greater_string"
            | "less_equals_string"
            | "greater_equals_string"
            | "less_bytes"
            | "greater_bytes"
            | "less_equals_bytes"
            | "greater_equals_bytes"
            | "equals"
            | "not_equals" => {
                let lhs = match args.first() {
                    Some(a) => self.size_or_unknown(Sized::Node(a)),
                    None => SizeEstimate::UNKNOWN,
                };
                let rhs = match args.get(1) {
                    Some(a) => self.size_or_unknown(Sized::Node(a)),
                    None => SizeEstimate::UNKNOWN,
                };
                let smallest_max = lhs.max.min(rhs.max);
                let min = u64::from(smallest_max > 0);
                return CallEstimate::cost(
                    CostEstimate::new(min, smallest_max)
                        .multiply_by_cost_factor(stf)
                        .add(arg_sum()),
                );
            }
            _ => {}
        }
        CallEstimate::cost(CostEstimate::fixed(1).add(arg_sum()))
    }
}

/// `isBind`: `cel.bind`'s comprehension (an empty list range, a literal `false` condition,
/// an accumulator other than `__result__`).
fn is_bind(comp: &ComprehensionExpr) -> bool {
    matches!(&comp.iter_range.kind, ExprKind::List(l) if l.elements.is_empty())
        && matches!(
            &comp.loop_condition.kind,
            ExprKind::Literal(Literal::Bool(false))
        )
        && comp.accu_var != ACCUMULATOR_NAME
}

// ------------------------------------------------------------------------------------------
// Library overload estimators (ext Sets, ext Lists version 3)
// ------------------------------------------------------------------------------------------

/// The ext libraries' `estimateSize`: the computed size, else the host's, else unknown.
pub fn node_size(estimator: &dyn CostEstimator, node: &AstNode<'_>) -> SizeEstimate {
    node.computed_size
        .or_else(|| estimator.estimate_size(node))
        .unwrap_or(SizeEstimate::UNKNOWN)
}

/// `nodeAsUintValue`: an int literal as `u64` (negative: 0), else `default`.
fn node_as_uint(node: &AstNode<'_>, default: u64) -> u64 {
    match node.expr.map(|e| &e.kind) {
        Some(ExprKind::Literal(Literal::Int(i))) => {
            if *i < 0 {
                0
            } else {
                *i as u64
            }
        }
        _ => default,
    }
}

/// `estimateListCall(costFactor, listSize, allocates=true)`.
fn allocating_list_call(factor: f64, list_size: SizeEstimate) -> CallEstimate {
    CallEstimate {
        cost: list_size
            .multiply_by_cost_factor(factor)
            .add(CostEstimate::fixed(1))
            .add(CostEstimate::fixed(LIST_CREATE_BASE_COST)),
        result_size: Some(list_size),
    }
}

fn list_sort_cost(estimator: &dyn CostEstimator, node: &AstNode<'_>, elem: &str) -> CallEstimate {
    let sz = node_size(estimator, node);
    let mut factor = 2.0;
    if elem == "string" || elem == "bytes" {
        factor += STRING_TRAVERSAL_COST_FACTOR;
    }
    allocating_list_call(factor, sz.multiply(sz))
}

/// The overload estimators registered by ext Sets and ext Lists (version 3).
fn library_estimate(
    estimator: &dyn CostEstimator,
    overload: &str,
    target: Option<&AstNode<'_>>,
    args: &[AstNode<'_>],
) -> Option<CallEstimate> {
    let sets = |factor: f64| -> Option<CallEstimate> {
        let [a0, a1] = args else { return None };
        let s0 = node_size(estimator, a0);
        let s1 = node_size(estimator, a1);
        Some(CallEstimate::cost(
            s0.multiply(s1)
                .multiply_by_cost_factor(factor)
                .add(CostEstimate::fixed(1)),
        ))
    };
    match overload {
        "list_sets_contains_list" | "list_sets_intersects_list" => sets(1.0),
        "list_sets_equivalent_list" => sets(2.0),
        "list_slice" => {
            let (Some(t), [a0, a1]) = (target, args) else {
                return None;
            };
            let sz = node_size(estimator, t);
            let start = node_as_uint(a0, 0);
            let end = node_as_uint(a1, sz.max);
            Some(allocating_list_call(
                1.0,
                SizeEstimate::fixed(end.wrapping_sub(start)),
            ))
        }
        "lists_range" => {
            let (None, [a0]) = (target, args) else {
                return None;
            };
            Some(allocating_list_call(
                1.0,
                SizeEstimate::fixed(node_as_uint(a0, u64::MAX)),
            ))
        }
        "list_reverse" => {
            let (Some(t), []) = (target, args) else {
                return None;
            };
            Some(allocating_list_call(1.0, node_size(estimator, t)))
        }
        "list_flatten" | "list_flatten_int" => {
            let t = target?;
            if args.len() > 1 {
                return None;
            }
            let depth = match args.first() {
                Some(a) => node_as_uint(a, u64::MAX),
                None => 1,
            };
            Some(allocating_list_call(depth as f64, node_size(estimator, t)))
        }
        "list_distinct" => {
            let (Some(t), []) = (target, args) else {
                return None;
            };
            let sz = node_size(estimator, t);
            Some(allocating_list_call(2.0, sz.multiply(sz)))
        }
        o => {
            let elem = o.strip_prefix("list_")?;
            if let Some(t) = elem.strip_suffix("_sortByAssociatedKeys") {
                if !SORTABLE.contains(&t) {
                    return None;
                }
                let (Some(_), [a0]) = (target, args) else {
                    return None;
                };
                return Some(list_sort_cost(estimator, a0, t));
            }
            if let Some(t) = elem.strip_suffix("_sort") {
                if !SORTABLE.contains(&t) {
                    return None;
                }
                let (Some(tn), []) = (target, args) else {
                    return None;
                };
                return Some(list_sort_cost(estimator, tn, t));
            }
            None
        }
    }
}

/// The type names of ext Lists' `comparableTypes` (`list_<TypeName>_sort` overloads).
const SORTABLE: &[&str] = &[
    "int",
    "uint",
    "double",
    "bool",
    "google.protobuf.Duration",
    "google.protobuf.Timestamp",
    "string",
    "bytes",
];

#[cfg(test)]
mod tests {
    use super::*;

    use crate::checker::EnvBuilder;
    use crate::decls::Library;

    /// cel-go's `testCostEstimator`: sizes from hints keyed by the joined path, bytes
    /// `[0, 12]`, `getFullYear` costs 7.
    struct Hints(Vec<(&'static str, u64)>);

    impl CostEstimator for Hints {
        fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
            let p = node.path().join(".");
            if let Some((_, l)) = self.0.iter().find(|(k, _)| *k == p) {
                return Some(SizeEstimate::new(0, *l));
            }
            matches!(node.ty(), Type::Bytes).then_some(SizeEstimate::new(0, 12))
        }

        fn estimate_call_cost(
            &self,
            _function: &str,
            overload_id: &str,
            _target: Option<&AstNode<'_>>,
            _args: &[AstNode<'_>],
        ) -> Option<CallEstimate> {
            (overload_id == "timestamp_to_year")
                .then_some(CallEstimate::cost(CostEstimate::fixed(7)))
        }
    }

    /// cel-go's `checker.TestCost` (the cases without protobuf messages; object-typed
    /// variables are maps, whose selections cost the same).
    #[test]
    fn cel_go_cost_cases() {
        let list = |t: Type| Type::list(t);
        let map = |t: Type| Type::map(Type::String, t);
        let obj = map(Type::Int);
        type Case = (
            &'static str,
            Vec<(&'static str, Type)>,
            Vec<(&'static str, u64)>,
            (u64, u64),
        );
        let cases: Vec<Case> = vec![
            (r#""Hello World!""#, vec![], vec![], (0, 0)),
            ("input", vec![("input", list(Type::Int))], vec![], (1, 1)),
            ("input['key']", vec![("input", map(Type::String))], vec![], (2, 2)),
            ("has(input.testAttr.nestedAttr)", vec![("input", map(map(obj.clone())))], vec![], (3, 3)),
            ("input.getFullYear()", vec![("input", Type::Timestamp)], vec![], (8, 8)),
            ("[1, 2, 3]", vec![], vec![], (10, 10)),
            (r#"{"a": 1, "b": 2, "c": 3}"#, vec![], vec![], (30, 30)),
            ("input.all(x, true)", vec![("input", list(obj.clone()))], vec![("input", 100)], (2, 302)),
            (
                "input.all(x, x.all(y, true))",
                vec![("input", list(list(obj.clone())))],
                vec![("input", 50), ("input.@items", 10)],
                (2, 1752),
            ),
            ("[1, 2, 3].all(x, true)", vec![], vec![], (20, 20)),
            ("input.matches('[0-9]')", vec![("input", Type::String)], vec![("input", 500)], (3, 103)),
            ("'123'.matches('[0-9]')", vec![], vec![], (2, 2)),
            ("true || false", vec![], vec![], (0, 0)),
            (
                "a || b || c || d",
                vec![("a", Type::Bool), ("b", Type::Bool), ("c", Type::Bool), ("d", Type::Bool)],
                vec![],
                (1, 4),
            ),
            ("true && false", vec![], vec![], (0, 0)),
            (
                "a && b && c && d",
                vec![("a", Type::Bool), ("b", Type::Bool), ("c", Type::Bool), ("d", Type::Bool)],
                vec![],
                (1, 4),
            ),
            ("1 < 2", vec![], vec![], (1, 1)),
            ("1 <= 2", vec![], vec![], (1, 1)),
            ("1 == 2", vec![], vec![], (1, 1)),
            ("2 > 1", vec![], vec![], (1, 1)),
            ("2 >= 1", vec![], vec![], (1, 1)),
            ("2 in [1, 2, 3]", vec![], vec![], (13, 13)),
            ("1 + 1", vec![], vec![], (1, 1)),
            ("1 - 1", vec![], vec![], (1, 1)),
            ("1 / 1", vec![], vec![], (1, 1)),
            ("1 * 1", vec![], vec![], (1, 1)),
            ("1 % 1", vec![], vec![], (1, 1)),
            ("true ? 1 : 2", vec![], vec![], (0, 0)),
            (r#"size("123")"#, vec![], vec![], (1, 1)),
            (r#"size(b"123")"#, vec![], vec![], (1, 1)),
            ("string(input)", vec![("input", Type::Bytes)], vec![("input", 500)], (1, 51)),
            ("string(input) == string(input)", vec![("input", Type::Bytes)], vec![("input", 500)], (3, 152)),
            ("bytes(input)", vec![("input", Type::String)], vec![("input", 500)], (1, 51)),
            ("bytes(input) == bytes(input)", vec![("input", Type::String)], vec![("input", 500)], (3, 302)),
            ("string(1)", vec![], vec![], (1, 1)),
            (
                "input.contains(arg1)",
                vec![("input", Type::String), ("arg1", Type::String)],
                vec![("input", 500), ("arg1", 500)],
                (2, 2502),
            ),
            (r"input.matches('\\d+a\\d+b')", vec![("input", Type::String)], vec![("input", 500)], (3, 103)),
            // cel-go v0.29.2 checker/cost_test.go "matches global" (cel-go #1350).
            (r"matches(input, '\\d+a\\d+b')", vec![("input", Type::String)], vec![("input", 500)], (3, 103)),
            (
                "input.startsWith(arg1)",
                vec![("input", Type::String), ("arg1", Type::String)],
                vec![("arg1", 500)],
                (2, 52),
            ),
            (
                "input.endsWith(arg1)",
                vec![("input", Type::String), ("arg1", Type::String)],
                vec![("arg1", 500)],
                (2, 52),
            ),
            ("input.size()", vec![("input", Type::String)], vec![], (2, 2)),
            ("size(input)", vec![("input", Type::String)], vec![], (2, 2)),
            (
                "(x > 2 ? input1 : input2).all(y, true)",
                vec![("x", Type::Int), ("input1", list(obj.clone())), ("input2", list(obj.clone()))],
                vec![("input1", 1), ("input2", 1)],
                (4, 7),
            ),
            (
                "input.all(k, input[k].single_int32 > 3)",
                vec![("input", map(obj.clone()))],
                vec![("input", 10)],
                (2, 82),
            ),
            (
                "input.all(k, input[k].all(x, true))",
                vec![("input", map(map(obj.clone())))],
                vec![("input", 5), ("input.@values", 10)],
                (2, 187),
            ),
            (
                "input.all(k, k.contains(k))",
                vec![("input", map(map(obj.clone())))],
                vec![("input", 5), ("input.@keys", 10)],
                (2, 32),
            ),
            (
                "input.all(k, input[k].all(k, true) && k.contains(k))",
                vec![("input", map(map(obj.clone())))],
                vec![("input", 2), ("input.@values", 2), ("input.@keys", 5)],
                (2, 34),
            ),
            (
                "(list1 + list2).all(x, true)",
                vec![("list1", list(Type::Int)), ("list2", list(Type::Int))],
                vec![("list1", 10), ("list2", 10)],
                (4, 64),
            ),
            (
                r#""abcdefg".contains(str1 + str2)"#,
                vec![("str1", Type::String), ("str2", Type::String)],
                vec![("str1", 10), ("str2", 10)],
                (2, 6),
            ),
            (
                "list1.size() == list2.size()",
                vec![("list1", list(Type::Int)), ("list2", list(Type::Int))],
                vec![],
                (5, 5),
            ),
            (
                "x > y ? list1.size() : list2.size()",
                vec![("x", Type::Int), ("y", Type::Int), ("list1", list(Type::Int)), ("list2", list(Type::Int))],
                vec![],
                (5, 5),
            ),
            (
                "([x, y] + list1 + list2).size()",
                vec![("x", Type::Int), ("y", Type::Int), ("list1", list(Type::Int)), ("list2", list(Type::Int))],
                vec![("list1", 10), ("list2", 20)],
                (17, 17),
            ),
            (
                "[list1, list2].exists(l, l.exists(v, v.startsWith('hi')))",
                vec![("list1", list(Type::String)), ("list2", list(Type::String))],
                vec![("list1", 10), ("list1.@items", 64), ("list2", 20), ("list2.@items", 128)],
                (21, 265),
            ),
            (
                r#"str1.endsWith("abcdefghijklmnopqrstuvwxyz") == str2.endsWith("abcdefghijklmnopqrstuvwxyz")"#,
                vec![("str1", Type::String), ("str2", Type::String)],
                vec![],
                (9, 9),
            ),
            ("((5 != 6) == (1 == 2)) == ((3 <= 4) == (9 != 9))", vec![], vec![], (7, 7)),
            (
                "string(timestamp1) == string(timestamp2)",
                vec![("timestamp1", Type::Timestamp), ("timestamp2", Type::Timestamp)],
                vec![],
                (5, 1_844_674_407_370_955_268),
            ),
            (
                "timestamp1 == timestamp2",
                vec![("timestamp1", Type::Timestamp), ("timestamp2", Type::Timestamp)],
                vec![],
                (3, 3),
            ),
            (
                "duration1 != duration2",
                vec![("duration1", Type::Duration), ("duration2", Type::Duration)],
                vec![],
                (3, 3),
            ),
            ("[1,2,3,4,5].filter(x, x % 2 == 0)", vec![], vec![], (41, 101)),
            ("[1,2,3,4,5].map(x, x)", vec![], vec![], (86, 86)),
            ("[1,2,3,4,5].map(x, x).filter(x, x % 2 == 0)", vec![], vec![], (117, 177)),
            ("[1,2,3,4,5].map(x, x).exists(x, x == 5) == true", vec![], vec![], (108, 118)),
            ("[1,2,3,4,5].map(x, x).map(x, x)", vec![], vec![], (162, 162)),
            ("[1,2,3,4,5].map(x, x)[4]", vec![], vec![], (87, 87)),
            ("[[1,2],[1,2],[1,2],[1,2],[1,2]][4]", vec![], vec![], (61, 61)),
            ("{'a': [1,2], 'b': [1,2], 'c': [1,2], 'd': [1,2], 'e': [1,2]}.b", vec![], vec![], (81, 81)),
            ("[[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]].all(y, y.all(y, y == 1))", vec![], vec![], (76, 136)),
            ("[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))", vec![], vec![], (157, 217)),
            (
                r#"["a", "ab", "abc", "abcd", "abcde"].map(x, [x, x]).all(y, y.all(y, y.startsWith('a')))"#,
                vec![],
                vec![],
                (157, 217),
            ),
            (
                "input.map(x, [x, x]).all(y, y.all(y, y.startsWith('a')))",
                vec![("input", list(Type::String))],
                vec![("input", 5), ("input.@items", 10)],
                (13, 208),
            ),
            ("[1,2,3,4,5].map(x, x).map(x, x) + [1]", vec![], vec![], (173, 173)),
            ("[1,2,3].all(i, i in [1,2,3].map(j, j + j))", vec![], vec![], (20, 230)),
            ("dyn([1,2,3]).all(i, i in dyn([1,2,3]).map(j, j + j))", vec![], vec![], (21, 234)),
            ("{'hello': 'hi'}['hello'] != {'hello': 'bye'}['hello']", vec![], vec![], (63, 63)),
            ("['hello', 'hi'][0] != ['hello', 'bye'][1]", vec![], vec![], (23, 23)),
            ("type(1)", vec![], vec![], (1, 1)),
            ("type(self.val1)", vec![("self", map(Type::Int))], vec![], (3, 3)),
            (
                "type(self.val1) == int",
                vec![("self", map(Type::Int))],
                vec![],
                (5, 1_844_674_407_370_955_268),
            ),
            ("type(1) == int", vec![], vec![], (3, 1_844_674_407_370_955_266)),
            ("self.val1 == 1.0", vec![("self.val1", Type::Double)], vec![], (2, 2)),
            ("self.val1 == 1.0", vec![("self", map(Type::Double))], vec![], (3, 3)),
            (
                "self.val1 == timestamp('2011-08-18T00:00:00.000+01:00') + duration('19h3m37s10ms')",
                vec![("self", map(Type::Timestamp))],
                vec![],
                (6, 6),
            ),
            (
                "timestamp(self.val1) == timestamp('2011-08-18T00:00:00.000+01:00') + duration('19h3m37s10ms')",
                vec![("self", map(Type::Timestamp))],
                vec![],
                (7, 7),
            ),
            ("self.val1 != self.val2", vec![("self", map(Type::Bool))], vec![], (5, 5)),
            ("self.val1 != true", vec![("self", map(Type::Bool))], vec![], (3, 3)),
        ];
        let mut failures = Vec::new();
        for (expr, vars, hints, want) in cases {
            let mut b = EnvBuilder::new().library(Library::Std);
            for (n, t) in vars {
                b = b.variable(n, t);
            }
            let env = b.build();
            let checked = match env.compile(expr) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{expr}: {e}"));
                    continue;
                }
            };
            let got = estimate_cost(&checked, &Hints(hints), &CostOptions::default());
            if (got.min, got.max) != want {
                failures.push(format!(
                    "{expr}: want {want:?}, got ({}, {})",
                    got.min, got.max
                ));
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }

    /// The deepest expressions the parser accepts are estimated within 1 MiB of stack (the
    /// browser's) in debug builds.
    #[test]
    fn deepest_expressions_fit_a_small_stack() {
        let exprs = [
            vec!["x"; 250].join(" == "),
            format!("{}x{}", "[".repeat(240), "]".repeat(240)),
            format!("{}x{}", "(".repeat(240), ")".repeat(240)),
            format!("{}true{}", "[x].all(y, ".repeat(60), ")".repeat(60)),
        ];
        for e in exprs {
            let checked = std::thread::Builder::new()
                .stack_size(64 << 20)
                .spawn(move || {
                    EnvBuilder::new()
                        .library(Library::Std)
                        .variable("x", Type::Bool)
                        .build()
                        .compile(&e)
                        .unwrap()
                })
                .unwrap()
                .join()
                .unwrap();
            let cost = std::thread::Builder::new()
                .stack_size(1 << 20)
                .spawn(move || estimate_cost(&checked, &NoEstimator, &CostOptions::KUBERNETES))
                .unwrap()
                .join()
                .unwrap();
            assert!(cost.max > 0);
        }
    }

    #[test]
    fn go_slices_share_backing_arrays() {
        let base = GoPath::from_elems(["self"]).append("a"); // len 2, cap 2
        let items = base.append("@items"); // len 3, cap 4
        let x_b = items.append("b"); // in place: slot 3
        assert_eq!(x_b.to_vec(), ["self", "a", "@items", "b"]);
        let x_c = items.append("c"); // overwrites slot 3
        assert_eq!(x_c.to_vec(), ["self", "a", "@items", "c"]);
        assert_eq!(x_b.to_vec(), ["self", "a", "@items", "c"]);
        // A full slice grows into a new array.
        let full = x_b.append("d");
        let other = x_b.append("e");
        assert_eq!(full.to_vec(), ["self", "a", "@items", "c", "d"]);
        assert_eq!(other.to_vec(), ["self", "a", "@items", "c", "e"]);
    }

    #[test]
    fn cost_factor_rounding() {
        assert_eq!(multiply_by_cost_factor(3_145_727, 0.1), 314_573);
        assert_eq!(multiply_by_cost_factor(9, 0.25), 3);
        assert_eq!(
            multiply_by_cost_factor(u64::MAX, 0.1),
            1_844_674_407_370_955_264
        );
        assert_eq!(multiply_by_cost_factor(u64::MAX, 1.0), u64::MAX);
        assert_eq!(go_float_to_u64(TWO_TO_64), 1 << 63);
        assert_eq!(go_float_to_u64(1.5e19), 15_000_000_000_000_000_000);
    }
}
