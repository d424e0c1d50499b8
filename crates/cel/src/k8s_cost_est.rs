//! Kubernetes' static call-cost estimator (`k8s.io/apiserver/pkg/cel/library/cost.go`,
//! `CostEstimator.EstimateCallCost`), keyed by function name, delegating variable sizes to a
//! host size estimator (the apiextensions schema walker, for CRD rules).
//!
//! ```
//! use crd_studio_cel::checker::EnvBuilder;
//! use crd_studio_cel::cost_est::{estimate_cost, CostOptions, NoEstimator};
//! use crd_studio_cel::decls::EnvVersion;
//! use crd_studio_cel::k8s_cost_est::KubernetesCostEstimator;
//!
//! let env = EnvBuilder::kubernetes(EnvVersion::Stored).build();
//! let checked = env.compile("'abc'.lowerAscii() == 'abc'").unwrap();
//! let estimator = KubernetesCostEstimator::new(&NoEstimator);
//! let cost = estimate_cost(&checked, &estimator, &CostOptions::KUBERNETES);
//! assert_eq!((cost.min, cost.max), (2, 2));
//! ```

use crate::cost_est::{
    AstNode, CallEstimate, CostEstimate, CostEstimator, GoPath, SizeEstimate,
    LIST_CREATE_BASE_COST, REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR,
    STRUCT_CREATE_BASE_COST,
};
use std::ops::Add;

use crate::ast::{ExprKind, Literal};
use crate::types::{Kind, Type};

/// `cel.MaxFormatSize`.
pub const MAX_FORMAT_SIZE: u64 = 64;
/// `cel.MaxNameFormatRegexSize`.
pub const MAX_NAME_FORMAT_REGEX_SIZE: u64 = 128;

/// `selectorLengthToRequirementCount`.
const SELECTOR_LENGTH_TO_REQUIREMENT_COUNT: f64 = 0.5;
/// `costPerRequirement`.
const COST_PER_REQUIREMENT: f64 = (LIST_CREATE_BASE_COST + STRUCT_CREATE_BASE_COST) as f64;

/// Kubernetes' `library.CostEstimator`: its call costs, and variable sizes from `sizes`
/// (`SizeEstimator`).
#[derive(Clone, Copy)]
pub struct KubernetesCostEstimator<'s> {
    sizes: &'s dyn CostEstimator,
}

impl std::fmt::Debug for KubernetesCostEstimator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KubernetesCostEstimator")
    }
}

impl<'s> KubernetesCostEstimator<'s> {
    /// The estimator with a size estimator for variables.
    pub fn new(sizes: &'s dyn CostEstimator) -> KubernetesCostEstimator<'s> {
        KubernetesCostEstimator { sizes }
    }

    /// `sizeEstimate`: the node's computed size, else the size estimator's, else unknown.
    fn size_estimate(&self, node: &AstNode<'_>) -> SizeEstimate {
        node.computed_size()
            .or_else(|| self.sizes.estimate_size(node))
            .unwrap_or(SizeEstimate::UNKNOWN)
    }

    /// `listElementNode`: a node for a list's elements (path `+ @items` when the list has a
    /// path), `None` when the type has no parameters.
    fn list_element_node<'a>(&self, list: &AstNode<'a>) -> Option<AstNode<'a>> {
        let elem = list.ty().params().first()?.clone();
        let path = list.path();
        let path = if path.is_empty() {
            GoPath::nil()
        } else {
            GoPath::from_elems(path.iter().map(String::as_str).chain(["@items"]))
        };
        Some(AstNode::new(path, elem, None, None))
    }
}

/// `selectorCostEstimate`.
fn selector_cost(len: SizeEstimate) -> CostEstimate {
    let parse = len.multiply_by_cost_factor(STRING_TRAVERSAL_COST_FACTOR);
    let count = len.multiply_by_cost_factor(SELECTOR_LENGTH_TO_REQUIREMENT_COUNT);
    let reqs = count.multiply_by_cost_factor(COST_PER_REQUIREMENT);
    CostEstimate::fixed(LIST_CREATE_BASE_COST)
        .add(parse)
        .add(reqs)
}

/// The Kubernetes library types whose equality costs 1 (`cel.QuantityType`, the authz types,
/// `cel.SemverType`).
const UNIT_EQUALITY_STRUCTS: &[&str] = &[
    "kubernetes.Quantity",
    "kubernetes.authorization.Authorizer",
    "kubernetes.authorization.PathCheck",
    "kubernetes.authorization.GroupCheck",
    "kubernetes.authorization.ResourceCheck",
    "kubernetes.authorization.Decision",
    "kubernetes.Semver",
];

fn fixed(n: u64) -> Option<CallEstimate> {
    Some(CallEstimate::cost(CostEstimate::fixed(n)))
}

impl CostEstimator for KubernetesCostEstimator<'_> {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        self.sizes.estimate_size(node)
    }

    fn estimate_call_cost(
        &self,
        function: &str,
        overload_id: &str,
        target: Option<&AstNode<'_>>,
        args: &[AstNode<'_>],
    ) -> Option<CallEstimate> {
        let stf = STRING_TRAVERSAL_COST_FACTOR;
        let a0 = args.first();
        match function {
            "check" => fixed(350_000),
            "serviceAccount" | "path" | "group" | "resource" | "subresource" | "namespace"
            | "name" | "allowed" | "reason" | "error" | "errored" => fixed(1),
            "fieldSelector" | "labelSelector" => match args {
                [a] => Some(CallEstimate::cost(selector_cost(self.size_estimate(a)))),
                _ => None,
            },
            "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" | "includes" => {
                let t = target?;
                let mut el_cost = CostEstimate::fixed(1);
                if let Some(el) = self.list_element_node(t) {
                    if matches!(el.ty().kind(), Kind::String | Kind::Bytes) {
                        let sz = self.size_estimate(&el);
                        el_cost = el_cost.add(sz.multiply_by_cost_factor(stf));
                    }
                    Some(CallEstimate::cost(
                        self.size_estimate(t).multiply_by_cost(el_cost),
                    ))
                } else if function == "includes" {
                    Some(CallEstimate::cost(
                        self.size_estimate(t).multiply_by_cost(el_cost),
                    ))
                } else {
                    Some(CallEstimate::cost(
                        self.size_estimate(t).multiply_by_cost_factor(stf),
                    ))
                }
            }
            "url" | "jsonpatch.escapeKey" => match args {
                [a] => {
                    let sz = self.size_estimate(a);
                    Some(CallEstimate {
                        cost: sz.multiply_by_cost_factor(stf),
                        result_size: Some(sz),
                    })
                }
                _ => None,
            },
            "lowerAscii" | "upperAscii" | "substring" | "trim" => {
                let t = target?;
                let sz = self.size_estimate(t);
                Some(CallEstimate {
                    cost: sz.multiply_by_cost_factor(stf),
                    result_size: Some(sz),
                })
            }
            "replace" => {
                let t = target?;
                let (Some(search), Some(with)) = (args.first(), args.get(1)) else {
                    return None;
                };
                let sz = self.size_estimate(t);
                let to_replace = self.size_estimate(search);
                let replace_with = self.size_estimate(with);
                let mut count = SizeEstimate::default();
                let mut retained = SizeEstimate::default();
                // The longest result.
                if to_replace.min == 0 {
                    count.max = if sz.max < u64::MAX {
                        sz.max + 1
                    } else {
                        sz.max
                    };
                    retained.max = sz.max;
                } else if replace_with.max <= to_replace.min {
                    count.max = 0;
                    retained.max = sz.max;
                } else {
                    count.max = crate::cost_est::go_float_to_u64(
                        (sz.max as f64 / to_replace.min as f64).ceil(),
                    );
                }
                // The shortest result.
                if to_replace.max == 0 {
                    count.min = if sz.min < u64::MAX {
                        sz.min + 1
                    } else {
                        sz.min
                    };
                    retained.min = sz.min;
                } else if to_replace.max <= replace_with.min {
                    count.min = 0;
                    retained.min = sz.min;
                } else {
                    count.min = crate::cost_est::go_float_to_u64(
                        (sz.min as f64 / to_replace.max as f64).ceil(),
                    );
                }
                let size = count.multiply(replace_with).add(retained);
                Some(CallEstimate {
                    cost: sz.multiply_by_cost_factor(2.0 * stf),
                    result_size: Some(size),
                })
            }
            "split" => {
                let t = target?;
                let sz = self.size_estimate(t);
                let mut max = sz.max;
                if let Some(limit) = args.get(1) {
                    if let Some(ExprKind::Literal(Literal::Int(i))) = limit.expr().map(|e| &e.kind)
                    {
                        max = *i as u64;
                    }
                }
                Some(CallEstimate {
                    cost: sz.multiply_by_cost_factor(2.0 * stf),
                    result_size: Some(SizeEstimate::new(0, max)),
                })
            }
            "join" => {
                let t = target?;
                let mut sz = SizeEstimate::default();
                let list_size = self.size_estimate(t);
                if let Some(el) = self.list_element_node(t) {
                    let elem_size = self.size_estimate(&el);
                    sz = list_size.multiply(elem_size);
                }
                if let Some(sep) = a0 {
                    let sep_size = self.size_estimate(sep);
                    let min_seps = list_size.min.saturating_sub(1);
                    let max_seps = list_size.max.saturating_sub(1);
                    sz = sz.add(sep_size.multiply(SizeEstimate::new(min_seps, max_seps)));
                }
                Some(CallEstimate {
                    cost: sz.multiply_by_cost_factor(stf),
                    result_size: Some(sz),
                })
            }
            "find" | "findAll" => {
                let (Some(t), Some(re)) = (target, a0) else {
                    return None;
                };
                let sz = self.size_estimate(t);
                let str_cost = sz.add(SizeEstimate::fixed(1)).multiply_by_cost_factor(stf);
                let regex_cost = self
                    .size_estimate(re)
                    .multiply_by_cost_factor(REGEX_STRING_LENGTH_COST_FACTOR);
                Some(CallEstimate {
                    cost: str_cost.multiply(regex_cost),
                    result_size: Some(SizeEstimate::new(0, sz.max)),
                })
            }
            "cidr" | "isIP" | "isCIDR" | "quantity" | "isQuantity" | "semver" | "isSemver" => {
                let a = a0?;
                Some(CallEstimate::cost(
                    self.size_estimate(a).multiply_by_cost_factor(stf),
                ))
            }
            "ip" => {
                if overload_id == "cidr_ip" {
                    return fixed(1);
                }
                let a = a0?;
                Some(CallEstimate::cost(
                    self.size_estimate(a).multiply_by_cost_factor(stf),
                ))
            }
            "ip.isCanonical" => {
                let a = a0?;
                Some(CallEstimate::cost(
                    self.size_estimate(a).multiply_by_cost_factor(2.0 * stf),
                ))
            }
            "masked"
            | "prefixLength"
            | "family"
            | "isUnspecified"
            | "isLoopback"
            | "isLinkLocalMulticast"
            | "isLinkLocalUnicast"
            | "isGlobalUnicast" => fixed(1),
            "containsIP" | "containsCIDR" => {
                let a = a0?;
                let sz = SizeEstimate::new(4, 16);
                let mut cost = sz.add(sz).multiply_by_cost_factor(stf);
                if function == "containsCIDR" {
                    cost = cost.add(sz.multiply_by_cost_factor(stf));
                    cost = cost.add(CostEstimate::fixed(1));
                }
                let string_overload = if function == "containsIP" {
                    "cidr_contains_ip_string"
                } else {
                    "cidr_contains_cidr_string"
                };
                if overload_id == string_overload {
                    cost = cost.add(self.size_estimate(a).as_cost().multiply_by_cost_factor(stf));
                }
                Some(CallEstimate::cost(cost))
            }
            "validate" => {
                let a = a0?;
                Some(CallEstimate::cost(
                    self.size_estimate(a)
                        .multiply_by_cost_factor(stf)
                        .multiply_by_cost_factor(
                            MAX_NAME_FORMAT_REGEX_SIZE as f64 * REGEX_STRING_LENGTH_COST_FACTOR,
                        ),
                ))
            }
            "format.named" => fixed(1),
            "sign" | "asInteger" | "isInteger" | "asApproximateFloat" | "isGreaterThan"
            | "isLessThan" | "compareTo" | "add" | "sub" | "major" | "minor" | "patch" => fixed(1),
            "getScheme" | "getHostname" | "getHost" | "getPort" | "getEscapedPath" | "getQuery" => {
                fixed(1)
            }
            "_==_" => {
                let [lhs, rhs] = args else { return None };
                equality_cost(lhs, rhs)
            }
            _ => None,
        }
    }
}

/// `_==_` of two values of the same Kubernetes library type.
fn equality_cost(lhs: &AstNode<'_>, rhs: &AstNode<'_>) -> Option<CallEstimate> {
    // `lhs.Type().Equal(rhs.Type())`: cel-go compares type names.
    let t: &Type = lhs.ty();
    if t.type_name() != rhs.ty().type_name() {
        return None;
    }
    match t.kind() {
        Kind::Opaque if matches!(t.type_name(), "net.IP" | "net.CIDR") => fixed(1),
        Kind::Struct => {
            let name = t.type_name();
            if UNIT_EQUALITY_STRUCTS.contains(&name) {
                return fixed(1);
            }
            match name {
                "kubernetes.NamedFormat" => Some(CallEstimate::cost(
                    CostEstimate::new(1, MAX_FORMAT_SIZE)
                        .multiply_by_cost_factor(STRING_TRAVERSAL_COST_FACTOR),
                )),
                "kubernetes.URL" => {
                    // The server reads the right-hand side's size twice.
                    let mut size = SizeEstimate::fixed(1);
                    if let (Some(r), Some(l)) = (rhs.computed_size(), rhs.computed_size()) {
                        size = r.union(l);
                    }
                    Some(CallEstimate::cost(
                        CostEstimate::new(1, size.max)
                            .multiply_by_cost_factor(STRING_TRAVERSAL_COST_FACTOR),
                    ))
                }
                _ => None,
            }
        }
        _ => None,
    }
}
