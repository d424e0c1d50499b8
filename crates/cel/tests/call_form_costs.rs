//! Estimated and runtime costs of the functions whose cost depends on a size, in both call
//! forms where CEL declares both (`matches(s, re)` and `s.matches(re)`), and the global-only or
//! member-only forms otherwise. Each expectation follows the reference code:
//!
//! * estimates: cel-go `checker/cost.go` (`coster.costCall`, `coster.functionCost`: the overload
//!   estimators, then the host's `EstimateCallCost`, then the switch on overload ids: `matches` in
//!   both forms (cel-go v0.29.2, #1350), the member `contains_string`, and `args[0]` for the
//!   global `string_to_bytes`, `bytes_to_string`, `strings_quote`), and Kubernetes
//!   `staging/src/k8s.io/apiserver/pkg/cel/library/cost.go` (`CostEstimator.EstimateCallCost`,
//!   keyed by function name: `target` for list/string receivers, `args[0]` for `url`, `cidr`,
//!   `isIP`, `isCIDR`, `ip`, `ip.isCanonical`, `quantity`, `isQuantity`, `semver`, `isSemver`,
//!   `validate`, `containsIP`, `containsCIDR`);
//! * runtime: cel-go `interpreter/runtimecost.go` (`CostTracker.costCall`: arguments with the
//!   receiver first) and Kubernetes' `CostEstimator.CallCost`.
//!
//! The size estimator gives the variable `s` (string) and `b` (bytes) the size `[0, 1000]` (a
//! `maxLength: 1000` property), `l` (list of strings) `[0, 10]` with elements `[0, 1000]`;
//! identifiers cost 1, constants 0. `ceil(x)` below is Go's `math.Ceil` in
//! `SizeEstimate.MultiplyByCostFactor`.

use crd_studio_cel::checker::EnvBuilder;
use crd_studio_cel::cost_est::{estimate_cost, AstNode, CostEstimator, CostOptions, SizeEstimate};
use crd_studio_cel::decls::EnvVersion;
use crd_studio_cel::interp::{Activation, CostTracker, PlanOptions, Program};
use crd_studio_cel::k8s_cost_est::KubernetesCostEstimator;
use crd_studio_cel::types::Type;
use crd_studio_cel::value::Value;

struct Sizes;

impl CostEstimator for Sizes {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        let path = node.path();
        match path.first().map(String::as_str) {
            Some("s") | Some("b") if path.len() == 1 => Some(SizeEstimate::new(0, 1000)),
            Some("l") if path.len() == 1 => Some(SizeEstimate::new(0, 10)),
            Some("l") if path.len() == 2 => Some(SizeEstimate::new(0, 1000)),
            _ => None,
        }
    }
}

fn env() -> crd_studio_cel::checker::Env {
    EnvBuilder::kubernetes(EnvVersion::Stored)
        .build()
        .extend()
        .variable("s", Type::String)
        .variable("b", Type::Bytes)
        .variable("l", Type::list(Type::String))
        .build()
}

fn estimate(expr: &str) -> (u64, u64) {
    let checked = env().compile(expr).unwrap();
    let sizes = Sizes;
    let est = KubernetesCostEstimator::new(&sizes);
    let c = estimate_cost(&checked, &est, &CostOptions::KUBERNETES);
    (c.min, c.max)
}

fn runtime(expr: &str) -> u64 {
    let checked = env().compile(expr).unwrap();
    let mut refs = crd_studio_cel::interp::References::new();
    for (id, r) in &checked.references {
        let info = match r {
            crd_studio_cel::checker::Reference::Ident(n) => crd_studio_cel::interp::ReferenceInfo {
                name: n.clone(),
                overload_ids: Vec::new(),
            },
            crd_studio_cel::checker::Reference::Function(ids) => {
                crd_studio_cel::interp::ReferenceInfo {
                    name: String::new(),
                    overload_ids: ids.clone(),
                }
            }
        };
        refs.insert(*id, info);
    }
    let program =
        Program::new(&checked.expr, Some(&refs), PlanOptions { optimize: false }).unwrap();
    let long = "a".repeat(1000);
    let mut act = Activation::new();
    act.bind("s", Value::string(long.as_str()));
    act.bind("b", Value::bytes(long.as_bytes()));
    act.bind(
        "l",
        Value::list(vec![Value::string("ab"), Value::string("cd")]),
    );
    let mut tracker = CostTracker::new(None, true, true);
    let _ = program.eval(&act, &mut tracker);
    tracker.actual_cost()
}

/// `(expression, estimated [min, max], runtime cost with s = 1000 × "a", l = ["ab", "cd"])`.
const CASES: &[(&str, (u64, u64), u64)] = &[
    // cel-go v0.29.2 (#1350) `functionCost`: `case overloads.Matches, overloads.MatchesString`,
    // the global form sized on `args[0]` and `args[1]` (`target == nil && len(args) == 2`);
    // `CostTracker.costCall` the same case: as the member form below.
    ("matches(s, 'abcd')", (2, 102), 102),
    // `matches_string`: strCost = ceil(([0,1000]+1)·0.1) = [1, 101], regexCost = ceil(4·0.25)
    // = 1; + target 1. Runtime: ceil(1001·0.1)·1 + 1.
    ("s.matches('abcd')", (2, 102), 102),
    // `size_string` / `string_size`: O(1) in both forms.
    ("size(s)", (2, 2), 2),
    ("s.size()", (2, 2), 2),
    // Global-only conversions on `args[0]`: [0,1000]·0.1 + 1.
    ("bytes(s)", (1, 101), 101),
    ("string(b)", (1, 101), 101),
    ("strings.quote(s)", (1, 101), 101),
    // Member-only: `contains_string` on target × arg; `starts_with_string` on args[0] (the
    // prefix, ceil(2·0.1) = 1).
    ("s.contains('ab')", (1, 101), 101),
    ("s.startsWith('ab')", (2, 2), 2),
    ("s.endsWith('ab')", (2, 2), 2),
    // Kubernetes global functions, `args[0]` (cost.go `EstimateCallCost` / `CallCost`).
    ("url(s)", (1, 101), 101),
    // `isURL` has no case in cost.go: cel-go's default 1.
    ("isURL(s)", (2, 2), 2),
    ("isIP(s)", (1, 101), 101),
    ("ip(s)", (1, 101), 101),
    ("cidr(s)", (1, 101), 101),
    ("isCIDR(s)", (1, 101), 101),
    ("ip.isCanonical(s)", (1, 201), 201),
    ("quantity(s)", (1, 101), 101),
    ("isQuantity(s)", (1, 101), 101),
    ("semver(s)", (1, 101), 101),
    ("isSemver(s)", (1, 101), 101),
    // `validate`: args[0]·0.1·(MaxNameFormatRegexSize 128 · 0.25) + s + the format call (1).
    ("format.dns1123Label().validate(s)", (2, 3202), 810),
    // `containsIP`/`containsCIDR` with a string: [4,16]+[4,16] traversed, + args[0]·0.1.
    ("cidr('10.0.0.0/8').containsIP(s)", (3, 106), 103),
    ("cidr('10.0.0.0/8').containsCIDR(s)", (5, 109), 105),
    // Member-only Kubernetes string functions on the target.
    ("s.lowerAscii()", (1, 101), 101),
    ("s.upperAscii()", (1, 101), 101),
    ("s.trim()", (1, 101), 101),
    ("s.substring(1)", (1, 101), 101),
    ("s.indexOf('a')", (1, 101), 101),
    ("s.lastIndexOf('a')", (1, 101), 101),
    ("s.split(',')", (1, 201), 201),
    ("s.replace('a', 'b')", (1, 201), 201),
    ("s.find('abcd')", (2, 102), 102),
    ("s.findAll('abcd')", (2, 102), 102),
    // `join`: [0,10]·[0,1000] + 1·[0,9], ·0.1, + target; runtime on the result "ab,cd".
    ("l.join(',')", (1, 1002), 2),
    // `in_list`: args[1]'s size + both arguments.
    ("s in l", (2, 12), 4),
    // Kubernetes lists library on a list target: elements cost 1 + their traversal
    // ([0,1000]·0.1), times the list's size [0,10]; runtime `traversalCost` truncates each
    // string's 0.2 to 0.
    ("l.indexOf('a')", (1, 1011), 1),
    ("l.isSorted()", (1, 1011), 1),
    // cel-go ext sets (global only), `estimateSetsCost(1)`: |l|·|['a']|·1 + 1, + arguments
    // (l: 1, the list literal: 10); runtime `trackSetsCost`: 2·1 + 1.
    ("sets.contains(l, ['a'])", (12, 22), 14),
    // cel-go ext lists (`ext/lists.go` estimators and trackers): a global and member forms,
    // each allocating a list: size·factor + 1 (the call) + 10 (`ListCreateBaseCost`).
    ("lists.range(3)", (14, 14), 14),
    ("l.reverse()", (12, 22), 14),
    ("l.distinct()", (12, 212), 20),
    // `string_format` on the target ('%s', 2 bytes) + the list literal (10 + 1).
    ("'%s'.format([s])", (12, 12), 12),
];

#[test]
fn both_call_forms_estimated() {
    let mut failures = Vec::new();
    for (expr, want, _) in CASES {
        let got = estimate(expr);
        if got != *want {
            failures.push(format!("{expr}: want {want:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn both_call_forms_runtime() {
    let mut failures = Vec::new();
    for (expr, _, want) in CASES {
        let got = runtime(expr);
        if got != *want {
            failures.push(format!("{expr}: want {want}, got {got}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
