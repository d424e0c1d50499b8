//! Kubernetes' CEL libraries at runtime (`k8s.io/apiserver/pkg/cel/library`): lists
//! (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`, `includes`), regex (`find`,
//! `findAll`), URLs, quantities, IP addresses and CIDRs, named formats and semantic versions.
//! Overload ids are Kubernetes' (`list_int_sum_int`, `string_find_string`, `cidr_ip`, ...).

use std::cmp::Ordering;
use std::rc::Rc;

use crate::k8s_net::{Cidr, Ip};
use crate::k8s_quantity::Quantity;
use crate::k8s_semver::Semver;
use crate::stdlib_rt::{no_overload, CallInfo};
use crate::value::{compare, value_equal, Duration, List, Opaque, Value};
use crd_studio_gostd::url::Url;

type Out<'a> = (Value<'a>, Option<&'static str>);

fn err<'a>(m: impl Into<String>) -> Value<'a> {
    Value::error(m)
}

/// Operators on library values (none are defined: Kubernetes' types only have equality).
pub fn operator<'a>(_f: &str, _a: &Value<'a>, _b: &Value<'a>) -> Option<Out<'a>> {
    None
}

/// `string(ip)`, `string(cidr)`.
pub fn to_string<'a>(v: &Value<'a>) -> Option<Out<'a>> {
    let Value::Opaque(o) = v else {
        return None;
    };
    match o.as_ref() {
        Opaque::Ip(ip) => Some((Value::string(ip.to_string()), Some("ip_to_string"))),
        Opaque::Cidr(c) => Some((Value::string(c.to_string()), Some("cidr_to_string"))),
        _ => None,
    }
}

fn opaque<'a, 'v>(v: &'v Value<'a>) -> Option<&'v Opaque> {
    match v {
        Value::Opaque(o) => Some(o.as_ref()),
        _ => None,
    }
}

/// Runs a Kubernetes library function, or `None` when the name is not one of them.
pub fn call<'a>(info: &CallInfo, args: &[Value<'a>]) -> Option<Out<'a>> {
    let f = info.function.as_str();
    if let Some(name) = f.strip_prefix("format.") {
        if name != "named" {
            let key = crate::k8s_format::lookup(name)?;
            return Some(match args {
                [] => (
                    Value::opaque(Opaque::Format(key)),
                    Some(static_format_id(key)),
                ),
                _ => (no_overload(f, args), None),
            });
        }
    }
    Some(match f {
        "isSorted" | "sum" | "min" | "max" | "indexOf" | "lastIndexOf" | "includes" => {
            lists(info, args)
        }
        "find" | "findAll" => regex(info, args),
        "url" | "isURL" | "getScheme" | "getHost" | "getHostname" | "getPort"
        | "getEscapedPath" | "getQuery" => urls(f, args),
        "quantity" | "isQuantity" | "sign" | "asApproximateFloat" | "asInteger" | "isInteger"
        | "add" | "sub" => quantities(f, args),
        "isGreaterThan" | "isLessThan" | "compareTo" => match args.first().and_then(opaque) {
            Some(Opaque::Semver(_)) => semvers(f, args),
            _ => quantities(f, args),
        },
        "ip"
        | "isIP"
        | "ip.isCanonical"
        | "family"
        | "isUnspecified"
        | "isLoopback"
        | "isLinkLocalMulticast"
        | "isLinkLocalUnicast"
        | "isGlobalUnicast" => ips(f, args),
        "cidr" | "isCIDR" | "containsIP" | "containsCIDR" | "masked" | "prefixLength" => {
            cidrs(f, args)
        }
        "format.named" => match args {
            [Value::String(s)] => (
                match crate::k8s_format::lookup(s.as_str()) {
                    Some(k) => Value::optional_of(Value::opaque(Opaque::Format(k))),
                    None => Value::optional_none(),
                },
                Some("format-named"),
            ),
            _ => (no_overload(f, args), None),
        },
        "validate" => match args {
            [Value::Opaque(o), Value::String(s)] => match o.as_ref() {
                Opaque::Format(name) => {
                    let errs = crate::k8s_format::validate(name, s.as_str());
                    (
                        if errs.is_empty() {
                            Value::optional_none()
                        } else {
                            Value::optional_of(Value::list(
                                errs.into_iter().map(Value::string).collect(),
                            ))
                        },
                        Some("format-validate"),
                    )
                }
                _ => (no_overload(f, args), None),
            },
            _ => (no_overload(f, args), None),
        },
        "semver" | "isSemver" | "major" | "minor" | "patch" => semvers(f, args),
        _ => return None,
    })
}

fn static_format_id(key: &str) -> &'static str {
    match key {
        "dns1123Label" => "format.dns1123Label",
        "dns1123Subdomain" => "format.dns1123Subdomain",
        "dns1035Label" => "format.dns1035Label",
        "qualifiedName" => "format.qualifiedName",
        "dns1123LabelPrefix" => "format.dns1123LabelPrefix",
        "dns1123SubdomainPrefix" => "format.dns1123SubdomainPrefix",
        "dns1035LabelPrefix" => "format.dns1035LabelPrefix",
        "labelValue" => "format.labelValue",
        "uri" => "format.uri",
        "uuid" => "format.uuid",
        "byte" => "format.byte",
        "date" => "format.date",
        _ => "format.datetime",
    }
}

/// The element type name used in the lists library's overload ids.
fn elem_id_name(v: &Value<'_>) -> Option<&'static str> {
    Some(match v {
        Value::Int(_) => "int",
        Value::Uint(_) => "uint",
        Value::Double(_) => "double",
        Value::Bool(_) => "bool",
        Value::Duration(_) => "duration",
        Value::Timestamp(_) => "timestamp",
        Value::String(_) => "string",
        Value::Bytes(_) => "bytes",
        _ => return None,
    })
}

fn list_id(f: &str, l: &List<'_>) -> Option<&'static str> {
    let t = match l.get(0) {
        Some(v) => elem_id_name(&v)?,
        None => "int",
    };
    const IDS: &[&str] = &[
        "list_int_is_sorted_bool",
        "list_uint_is_sorted_bool",
        "list_double_is_sorted_bool",
        "list_bool_is_sorted_bool",
        "list_duration_is_sorted_bool",
        "list_timestamp_is_sorted_bool",
        "list_string_is_sorted_bool",
        "list_bytes_is_sorted_bool",
        "list_int_sum_int",
        "list_uint_sum_uint",
        "list_double_sum_double",
        "list_duration_sum_duration",
        "list_int_max_int",
        "list_uint_max_uint",
        "list_double_max_double",
        "list_bool_max_bool",
        "list_duration_max_duration",
        "list_timestamp_max_timestamp",
        "list_string_max_string",
        "list_bytes_max_bytes",
        "list_int_min_int",
        "list_uint_min_uint",
        "list_double_min_double",
        "list_bool_min_bool",
        "list_duration_min_duration",
        "list_timestamp_min_timestamp",
        "list_string_min_string",
        "list_bytes_min_bytes",
    ];
    let id = match f {
        "isSorted" => format!("list_{t}_is_sorted_bool"),
        _ => format!("list_{t}_{f}_{t}"),
    };
    IDS.iter().copied().find(|x| *x == id)
}

fn is_comparer(v: &Value<'_>) -> bool {
    matches!(
        v,
        Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::Bool(_)
            | Value::String(_)
            | Value::Bytes(_)
            | Value::Timestamp(_)
            | Value::Duration(_)
    )
}

fn lists<'a>(info: &CallInfo, args: &[Value<'a>]) -> Out<'a> {
    let f = info.function.as_str();
    if f == "includes" {
        let [target, arg] = args else {
            return (no_overload(f, args), None);
        };
        let r = match target {
            Value::List(l) => l
                .iter()
                .any(|item| matches!(value_equal(&item, arg), Value::Bool(true))),
            other => matches!(value_equal(other, arg), Value::Bool(true)),
        };
        return (Value::Bool(r), Some("list_includes_dyn_dyn"));
    }
    let Some(Value::List(l)) = args.first() else {
        return (no_overload(f, args), None);
    };
    match (f, args.get(1)) {
        ("isSorted", None) => {
            let mut prev: Option<Value<'a>> = None;
            for next in l.iter() {
                if !is_comparer(&next) {
                    return (Value::maybe_no_such_overload(&next), list_id(f, l));
                }
                if let Some(p) = &prev {
                    match compare(p, &next) {
                        Ok(Ordering::Greater) => return (Value::Bool(false), list_id(f, l)),
                        Ok(_) => {}
                        Err(_) => {}
                    }
                }
                prev = Some(next);
            }
            (Value::Bool(true), list_id(f, l))
        }
        ("sum", None) => {
            // The zero of the checked overload, else of the first element's type.
            let mut acc = match (info.overload.as_deref(), l.get(0)) {
                (Some("list_uint_sum_uint"), _) | (None, Some(Value::Uint(_))) => Value::Uint(0),
                (Some("list_double_sum_double"), _) | (None, Some(Value::Double(_))) => {
                    Value::Double(0.0)
                }
                (Some("list_duration_sum_duration"), _) | (None, Some(Value::Duration(_))) => {
                    Value::Duration(Duration(0))
                }
                _ => Value::Int(0),
            };
            for next in l.iter() {
                let info = CallInfo::new("_+_".into(), None, false);
                acc = crate::stdlib_rt::call(&info, &[acc, next]).0;
                if acc.is_error() {
                    break;
                }
            }
            (acc, list_id(f, l))
        }
        ("min", None) | ("max", None) => {
            let prefer = if f == "min" {
                Ordering::Greater
            } else {
                Ordering::Less
            };
            let mut result: Option<Value<'a>> = None;
            for next in l.iter() {
                if !is_comparer(&next) {
                    return (Value::maybe_no_such_overload(&next), list_id(f, l));
                }
                match &result {
                    None => result = Some(next),
                    Some(r) => {
                        if compare(r, &next).ok() == Some(prefer) {
                            result = Some(next);
                        }
                    }
                }
            }
            (
                result.unwrap_or_else(|| err(format!("{f} called on empty list"))),
                list_id(f, l),
            )
        }
        ("indexOf", Some(item)) => {
            let r = l
                .iter()
                .position(|e| matches!(value_equal(&e, item), Value::Bool(true)))
                .map_or(-1, |i| i as i64);
            (Value::Int(r), Some("list_a_index_of_int"))
        }
        ("lastIndexOf", Some(item)) => {
            let items = l.to_vec();
            let r = items
                .iter()
                .rposition(|e| matches!(value_equal(e, item), Value::Bool(true)))
                .map_or(-1, |i| i as i64);
            (Value::Int(r), Some("list_a_last_index_of_int"))
        }
        _ => (no_overload(f, args), None),
    }
}

fn regex<'a>(info: &CallInfo, args: &[Value<'a>]) -> Out<'a> {
    let f = info.function.as_str();
    let (s, n, id) = match (f, args) {
        ("find", [Value::String(s), Value::String(_)]) => (s, -1, "string_find_string"),
        ("findAll", [Value::String(s), Value::String(_)]) => (s, -1, "string_find_all_string"),
        ("findAll", [Value::String(s), Value::String(_), Value::Int(n)]) => {
            (s, *n, "string_find_all_string_int")
        }
        _ => return (no_overload(f, args), None),
    };
    let re = match &info.regex {
        Some(r) => Rc::clone(r),
        None => {
            let Some(Value::String(p)) = args.get(1) else {
                return (no_overload(f, args), None);
            };
            match info.regex_for(p.as_str()) {
                Ok(r) => r,
                Err(e) => return (err(format!("Illegal regex: {e}")), Some(id)),
            }
        }
    };
    if f == "find" {
        return match re.find(s.as_str()) {
            Some(m) => (Value::string(m.unwrap_or("")), Some(id)),
            None => (err("regular expression too complex to evaluate"), Some(id)),
        };
    }
    match re.find_all(s.as_str(), n) {
        Some(all) => (
            Value::list(all.into_iter().map(Value::string).collect()),
            Some(id),
        ),
        None => (err("regular expression too complex to evaluate"), Some(id)),
    }
}

fn url_of<'v>(v: &'v Value<'_>) -> Option<&'v Url> {
    match opaque(v)? {
        Opaque::Url(u) => Some(u),
        _ => None,
    }
}

fn urls<'a>(f: &str, args: &[Value<'a>]) -> Out<'a> {
    match (f, args) {
        ("url", [Value::String(s)]) => {
            let s = s.as_str();
            let r = Url::parse_request_uri(s).and_then(|_| Url::parse(s));
            (
                match r {
                    Ok(u) => Value::opaque(Opaque::Url(u)),
                    Err(e) => err(format!(
                        "URL parse error during conversion from string: {e}"
                    )),
                },
                Some("string_to_url"),
            )
        }
        ("isURL", [Value::String(s)]) => (
            Value::Bool(Url::parse_request_uri(s.as_str()).is_ok()),
            Some("is_url_string"),
        ),
        (_, [v]) => {
            let Some(u) = url_of(v) else {
                return (Value::maybe_no_such_overload(v), None);
            };
            match f {
                "getScheme" => (Value::string(u.scheme()), Some("url_get_scheme")),
                "getHost" => (Value::string(u.host()), Some("url_get_host")),
                "getHostname" => (Value::string(u.hostname()), Some("url_get_hostname")),
                "getPort" => (Value::string(u.port()), Some("url_get_port")),
                "getEscapedPath" => (
                    Value::string(u.escaped_path()),
                    Some("url_get_escaped_path"),
                ),
                "getQuery" => (
                    Value::map(
                        u.query()
                            .into_iter()
                            .map(|(k, vs)| {
                                (
                                    Value::string(k),
                                    Value::list(vs.into_iter().map(Value::string).collect()),
                                )
                            })
                            .collect(),
                    ),
                    Some("url_get_query"),
                ),
                _ => (no_overload(f, args), None),
            }
        }
        _ => (no_overload(f, args), None),
    }
}

fn quantity_of<'v>(v: &'v Value<'_>) -> Option<&'v Quantity> {
    match opaque(v)? {
        Opaque::Quantity(q) => Some(q),
        _ => None,
    }
}

fn quantities<'a>(f: &str, args: &[Value<'a>]) -> Out<'a> {
    match (f, args) {
        ("quantity", [Value::String(s)]) => (
            match Quantity::parse(s.as_str()) {
                Ok(q) => Value::opaque(Opaque::Quantity(q)),
                Err(e) => err(e),
            },
            Some("string_to_quantity"),
        ),
        ("isQuantity", [Value::String(s)]) => (
            Value::Bool(Quantity::parse(s.as_str()).is_ok()),
            Some("is_quantity_string"),
        ),
        (_, [a]) => {
            let Some(q) = quantity_of(a) else {
                return (Value::maybe_no_such_overload(a), None);
            };
            match f {
                "sign" => (Value::Int(q.sign()), Some("quantity_sign")),
                "asApproximateFloat" => (
                    Value::Double(q.as_approximate_float()),
                    Some("quantity_get_float"),
                ),
                "asInteger" => (
                    q.as_i64()
                        .map_or_else(|| err("cannot convert value to integer"), Value::Int),
                    Some("quantity_get_int"),
                ),
                "isInteger" => (
                    Value::Bool(q.as_i64().is_some()),
                    Some("quantity_is_integer"),
                ),
                _ => (no_overload(f, args), None),
            }
        }
        (_, [a, b]) => {
            let Some(q) = quantity_of(a) else {
                return (Value::maybe_no_such_overload(a), None);
            };
            if let ("add" | "sub", Value::Int(i)) = (f, b) {
                let other = Quantity::from_i64(*i);
                let r = if f == "add" {
                    q.add(&other)
                } else {
                    q.sub(&other)
                };
                let id = if f == "add" {
                    "quantity_add_int"
                } else {
                    "quantity_sub_int"
                };
                return (Value::opaque(Opaque::Quantity(r)), Some(id));
            }
            let Some(q2) = quantity_of(b) else {
                return (Value::maybe_no_such_overload(a), None);
            };
            match f {
                "isGreaterThan" => (
                    Value::Bool(q.cmp_value(q2) == Ordering::Greater),
                    Some("quantity_is_greater_than"),
                ),
                "isLessThan" => (
                    Value::Bool(q.cmp_value(q2) == Ordering::Less),
                    Some("quantity_is_less_than"),
                ),
                "compareTo" => (
                    Value::Int(match q.cmp_value(q2) {
                        Ordering::Less => -1,
                        Ordering::Equal => 0,
                        Ordering::Greater => 1,
                    }),
                    Some("quantity_compare_to"),
                ),
                "add" => (
                    Value::opaque(Opaque::Quantity(q.add(q2))),
                    Some("quantity_add"),
                ),
                "sub" => (
                    Value::opaque(Opaque::Quantity(q.sub(q2))),
                    Some("quantity_sub"),
                ),
                _ => (no_overload(f, args), None),
            }
        }
        _ => (no_overload(f, args), None),
    }
}

fn ip_of<'v>(v: &'v Value<'_>) -> Option<&'v Ip> {
    match opaque(v)? {
        Opaque::Ip(ip) => Some(ip),
        _ => None,
    }
}

fn cidr_of<'v>(v: &'v Value<'_>) -> Option<&'v Cidr> {
    match opaque(v)? {
        Opaque::Cidr(c) => Some(c),
        _ => None,
    }
}

fn ips<'a>(f: &str, args: &[Value<'a>]) -> Out<'a> {
    match (f, args) {
        ("ip", [Value::String(s)]) => (
            match crate::k8s_net::parse_ip(s.as_str()) {
                Ok(ip) => Value::opaque(Opaque::Ip(ip)),
                Err(e) => err(e),
            },
            Some("string_to_ip"),
        ),
        ("ip", [v]) => match cidr_of(v) {
            Some(c) => (Value::opaque(Opaque::Ip(c.ip())), Some("cidr_ip")),
            None => (Value::maybe_no_such_overload(v), None),
        },
        ("isIP", [Value::String(s)]) => (
            Value::Bool(crate::k8s_net::parse_ip(s.as_str()).is_ok()),
            Some("is_ip"),
        ),
        ("ip.isCanonical", [Value::String(s)]) => (
            match crate::k8s_net::parse_ip(s.as_str()) {
                Ok(ip) => Value::Bool(ip.to_string() == s.as_str()),
                Err(e) => err(e),
            },
            Some("ip_is_canonical"),
        ),
        (_, [v]) => {
            let Some(ip) = ip_of(v) else {
                return (Value::maybe_no_such_overload(v), None);
            };
            match f {
                "family" => (Value::Int(ip.family()), Some("ip_family")),
                "isUnspecified" => (Value::Bool(ip.is_unspecified()), Some("ip_is_unspecified")),
                "isLoopback" => (Value::Bool(ip.is_loopback()), Some("ip_is_loopback")),
                "isLinkLocalMulticast" => (
                    Value::Bool(ip.is_link_local_multicast()),
                    Some("ip_is_link_local_multicast"),
                ),
                "isLinkLocalUnicast" => (
                    Value::Bool(ip.is_link_local_unicast()),
                    Some("ip_is_link_local_unicast"),
                ),
                "isGlobalUnicast" => (
                    Value::Bool(ip.is_global_unicast()),
                    Some("ip_is_global_unicast"),
                ),
                _ => (no_overload(f, args), None),
            }
        }
        _ => (no_overload(f, args), None),
    }
}

fn parse_cidr_value<'a>(s: &str) -> Value<'a> {
    match crate::k8s_net::parse_cidr(s) {
        Ok(c) => Value::opaque(Opaque::Cidr(c)),
        Err(e) => err(format!(
            "network address parse error during conversion from string: {e}"
        )),
    }
}

fn cidrs<'a>(f: &str, args: &[Value<'a>]) -> Out<'a> {
    match (f, args) {
        ("cidr", [Value::String(s)]) => (parse_cidr_value(s.as_str()), Some("string_to_cidr")),
        ("isCIDR", [Value::String(s)]) => (
            Value::Bool(crate::k8s_net::parse_cidr(s.as_str()).is_ok()),
            Some("is_cidr"),
        ),
        ("containsIP", [cv, other]) => {
            let Some(c) = cidr_of(cv) else {
                return (Value::maybe_no_such_overload(other), None);
            };
            let (ip, id) = match other {
                Value::String(s) => (
                    match crate::k8s_net::parse_ip(s.as_str()) {
                        Ok(ip) => Value::opaque(Opaque::Ip(ip)),
                        Err(e) => err(e),
                    },
                    "cidr_contains_ip_string",
                ),
                v => (v.clone(), "cidr_contains_ip_ip"),
            };
            match ip_of(&ip) {
                Some(ip) => (Value::Bool(c.contains_ip(ip)), Some(id)),
                // `cidrContainsIP` hands the CIDR (not the failed IP) to
                // `MaybeNoSuchOverloadErr`: an unparsable string is "no such overload".
                None => (Value::maybe_no_such_overload(cv), Some(id)),
            }
        }
        ("containsCIDR", [c, other]) => {
            let Some(c) = cidr_of(c) else {
                return (Value::maybe_no_such_overload(other), None);
            };
            let (o, id) = match other {
                Value::String(s) => (parse_cidr_value(s.as_str()), "cidr_contains_cidr_string"),
                v => (v.clone(), "cidr_contains_cidr"),
            };
            match cidr_of(&o) {
                Some(o) => (Value::Bool(crate::k8s_net::contains_cidr(c, o)), Some(id)),
                None => (Value::maybe_no_such_overload(&o), Some(id)),
            }
        }
        (_, [v]) => {
            let Some(c) = cidr_of(v) else {
                return (Value::maybe_no_such_overload(v), None);
            };
            match f {
                "masked" => (Value::opaque(Opaque::Cidr(c.masked())), Some("cidr_masked")),
                "prefixLength" => (Value::Int(c.prefix_length()), Some("cidr_prefix_length")),
                _ => (no_overload(f, args), None),
            }
        }
        _ => (no_overload(f, args), None),
    }
}

fn semver_of<'v>(v: &'v Value<'_>) -> Option<&'v Semver> {
    match opaque(v)? {
        Opaque::Semver(s) => Some(s),
        _ => None,
    }
}

fn semvers<'a>(f: &str, args: &[Value<'a>]) -> Out<'a> {
    match (f, args) {
        ("semver", [Value::String(s)]) => (
            Semver::parse(s.as_str()).map_or_else(err, |v| Value::opaque(Opaque::Semver(v))),
            Some("string_to_semver"),
        ),
        ("semver", [Value::String(s), Value::Bool(norm)]) => (
            if *norm {
                Semver::parse_normalized(s.as_str())
            } else {
                Semver::parse(s.as_str())
            }
            .map_or_else(err, |v| Value::opaque(Opaque::Semver(v))),
            Some("string_bool_to_semver"),
        ),
        ("isSemver", [Value::String(s)]) => (
            Value::Bool(Semver::parse(s.as_str()).is_ok()),
            Some("is_semver_string"),
        ),
        ("isSemver", [Value::String(s), Value::Bool(norm)]) => (
            Value::Bool(if *norm {
                Semver::parse_normalized(s.as_str()).is_ok()
            } else {
                Semver::parse(s.as_str()).is_ok()
            }),
            Some("is_semver_string_bool"),
        ),
        (_, [v]) => {
            let Some(s) = semver_of(v) else {
                return (Value::maybe_no_such_overload(v), None);
            };
            match f {
                "major" => (Value::Int(s.major as i64), Some("semver_major")),
                "minor" => (Value::Int(s.minor as i64), Some("semver_minor")),
                "patch" => (Value::Int(s.patch as i64), Some("semver_patch")),
                _ => (no_overload(f, args), None),
            }
        }
        (_, [a, b]) => {
            let (Some(x), Some(y)) = (semver_of(a), semver_of(b)) else {
                return (Value::maybe_no_such_overload(a), None);
            };
            let o = x.cmp_value(y);
            match f {
                "isGreaterThan" => (
                    Value::Bool(o == Ordering::Greater),
                    Some("semver_is_greater_than"),
                ),
                "isLessThan" => (
                    Value::Bool(o == Ordering::Less),
                    Some("semver_is_less_than"),
                ),
                "compareTo" => (
                    Value::Int(match o {
                        Ordering::Less => -1,
                        Ordering::Equal => 0,
                        Ordering::Greater => 1,
                    }),
                    Some("semver_compare_to"),
                ),
                _ => (no_overload(f, args), None),
            }
        }
        _ => (no_overload(f, args), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c<'a>(f: &str, args: &[Value<'a>]) -> Value<'a> {
        call(&CallInfo::new(f.to_string(), None, false), args)
            .unwrap()
            .0
    }

    fn s(x: &str) -> Value<'static> {
        Value::string(x)
    }

    #[test]
    fn lists_library() {
        let l = Value::list(vec![Value::Int(3), Value::Int(1), Value::Int(2)]);
        assert_eq!(c("sum", std::slice::from_ref(&l)).as_int(), Some(6));
        assert_eq!(c("min", std::slice::from_ref(&l)).as_int(), Some(1));
        assert_eq!(c("max", std::slice::from_ref(&l)).as_int(), Some(3));
        assert_eq!(
            c("isSorted", std::slice::from_ref(&l)).as_bool(),
            Some(false)
        );
        assert_eq!(c("indexOf", &[l.clone(), Value::Int(2)]).as_int(), Some(2));
        assert_eq!(
            c("min", &[Value::list(vec![])]).as_error().unwrap().message,
            "min called on empty list"
        );
    }

    #[test]
    fn regex_library() {
        assert_eq!(c("find", &[s("abc123"), s("[0-9]+")]).as_str(), Some("123"));
        let Value::List(all) = c("findAll", &[s("a1b22c333"), s("[0-9]+"), Value::Int(2)]) else {
            panic!()
        };
        assert_eq!(all.len(), 2);
        assert_eq!(
            c("find", &[s("x"), s(")")]).as_error().unwrap().message,
            "Illegal regex: error parsing regexp: unexpected ): `)`"
        );
    }

    #[test]
    fn values_and_equality() {
        let u = c("url", &[s("https://example.com:80/")]);
        assert_eq!(c("getPort", &[u]).as_str(), Some("80"));
        let a = c("cidr", &[s("192.168.0.0/24")]);
        let m = c("masked", std::slice::from_ref(&a));
        assert_eq!(crate::value::equal(&a, &m).as_bool(), Some(true));
        let q = c("quantity", &[s("50k")]);
        assert_eq!(c("isInteger", &[q]).as_bool(), Some(true));
        let v = c("semver", &[s("1.2.3")]);
        assert_eq!(c("minor", &[v]).as_int(), Some(2));
        let f = c("format.named", &[s("dns1123Label")]);
        assert!(matches!(f, Value::Optional(Some(_))));
    }
}
