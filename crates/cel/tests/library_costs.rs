//! Runtime costs of the Kubernetes libraries, as `k8s.io/apiserver/pkg/cel/library/cost_test.go`
//! asserts them (`expectRuntimeCost`): type-checked in the environment with every library,
//! planned without cel-go's `OptOptimize` (as that test's `env.Program` is), evaluated with
//! Kubernetes' `CallCost`; and their estimated costs (`expectEstimatedCost`, min and max), with
//! that test's size estimator (strings and bytes `[0, 12]`).

use crd_studio_cel::checker::EnvBuilder;
use crd_studio_cel::cost_est::{estimate_cost, AstNode, CostEstimator, CostOptions, SizeEstimate};
use crd_studio_cel::decls::EnvVersion;
use crd_studio_cel::interp::{Activation, CostTracker, PlanOptions, Program};
use crd_studio_cel::k8s_cost_est::KubernetesCostEstimator;
use crd_studio_cel::types::Type;
use crd_studio_cel::value::Value;

fn runtime_cost(expr: &str) -> Result<u64, String> {
    let env = EnvBuilder::kubernetes(EnvVersion::Stored)
        .literal_checks(crd_studio_cel::stdlib_rt::literal_checks())
        .build();
    let checked = match env.compile(expr) {
        Ok(c) => c,
        // That test's environment does not enforce homogeneous literals (`[1, 2u]`): run such
        // expressions parse-only (overloads from the runtime types).
        Err(e) if e.to_string().contains("expected type") => {
            let parsed = crd_studio_cel::Parser::new(env.parser_options().clone())
                .parse_text(expr)
                .map_err(|e| e.to_string())?;
            let program = Program::new(&parsed.expr, None, PlanOptions { optimize: false })
                .map_err(|e| e.to_string())?;
            let mut tracker = CostTracker::new(None, true, true);
            program
                .eval(&Activation::new(), &mut tracker)
                .map_err(|e| e.to_string())?;
            return Ok(tracker.actual_cost());
        }
        Err(e) => return Err(e.to_string()),
    };
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
    let program = Program::new(&checked.expr, Some(&refs), PlanOptions { optimize: false })
        .map_err(|e| e.to_string())?;
    let mut tracker = CostTracker::new(None, true, true);
    let v = program
        .eval(&Activation::new(), &mut tracker)
        .map_err(|e| e.to_string())?;
    if let Value::Error(e) = v {
        return Err(e.message.clone());
    }
    Ok(tracker.actual_cost())
}

const INT_LIST: &str = "[1, 2, 3, 4, 5]";
const UINT_LIST: &str = "[uint(1), uint(2), uint(3), uint(4), uint(5)]";
const DOUBLE_LIST: &str = "[1.0, 2.0, 3.0, 4.0, 5.0]";
const BOOL_LIST: &str = "[false, true, false, true, false]";
const STRING_LIST: &str =
    "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']";
const BYTES_LIST: &str = "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901')]";
const DURATION_LIST: &str =
    "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')]";
const TIMESTAMP_LIST: &str = "[timestamp('2011-01-01T00:00:00.000+01:00'), timestamp('2011-01-02T00:00:00.000+01:00'), timestamp('2011-01-03T00:00:00.000+01:00'), timestamp('2011-01-04T00:00:00.000+01:00'), timestamp('2011-01-05T00:00:00.000+01:00')]";
const STRING: &str = "'01234567890123456789012345678901234567890123456789'";

/// One case: the expression, the runtime cost (`None`: not run here) and the estimated
/// `[min, max]` of `testCost`.
struct Case {
    expr: String,
    runtime: Option<u64>,
    estimated: (u64, u64),
}

fn cases() -> Vec<Case> {
    let mut c: Vec<Case> = Vec::new();
    let mut add = |e: String, cost: u64, est: (u64, u64)| {
        c.push(Case {
            expr: e,
            runtime: Some(cost),
            estimated: est,
        })
    };
    // TestListsCost
    for (l, cost, est) in [
        (INT_LIST, 15, (15, 15)),
        (UINT_LIST, 20, (20, 20)),
        (DOUBLE_LIST, 15, (15, 15)),
        (DURATION_LIST, 20, (20, 20)),
    ] {
        add(format!("{l}.sum()"), cost, est);
    }
    for op in [".isSorted()", ".max()", ".min()"] {
        for (l, cost, est) in [
            (INT_LIST, 15, (15, 15)),
            (UINT_LIST, 20, (20, 20)),
            (DOUBLE_LIST, 15, (15, 15)),
            (BOOL_LIST, 15, (15, 15)),
            (STRING_LIST, 15, (15, 25)),
            (BYTES_LIST, 25, (25, 35)),
            (DURATION_LIST, 20, (20, 20)),
            (TIMESTAMP_LIST, 20, (20, 20)),
        ] {
            add(format!("{l}{op}"), cost, est);
        }
    }
    // TestIndexOfCost, TestIncludesCost
    let params = [
        (INT_LIST, "3", 15, (15, 15)),
        (UINT_LIST, "uint(3)", 21, (21, 21)),
        (DOUBLE_LIST, "3.0", 15, (15, 15)),
        (BOOL_LIST, "true", 15, (15, 15)),
        (STRING_LIST, "'x'", 15, (15, 25)),
        (BYTES_LIST, "bytes('x')", 26, (26, 36)),
        (DURATION_LIST, "duration('3s')", 21, (21, 21)),
        (
            TIMESTAMP_LIST,
            "timestamp('2011-01-03T00:00:00.000+01:00')",
            21,
            (21, 21),
        ),
    ];
    for op in ["indexOf", "lastIndexOf", "includes"] {
        for (l, p, cost, est) in params {
            add(format!("{l}.{op}({p})"), cost, est);
        }
    }
    add(format!("{STRING}.indexOf('123')"), 5, (5, 5));
    add(format!("{STRING}.lastIndexOf('123')"), 5, (5, 5));
    add(format!("{STRING}.includes('123')"), 5, (50, 50));
    // TestURLsCost
    let url = "url('https:://kubernetes.io/')";
    for op in [
        ".getScheme()",
        ".getHostname()",
        ".getHost()",
        ".getPort()",
        ".getEscapedPath()",
        ".getQuery()",
    ] {
        add(format!("{url}{op}"), 4, (4, 4));
    }
    add(
        format!("{url} == url('https:://kubernetes.io/')"),
        7,
        (7, 9),
    );
    add(format!("{url} == url('http://x.b')"), 5, (5, 5));
    // TestIPCost
    for (ip, base, est) in [
        ("ip('192.168.0.1')", 2, 2),
        ("ip('2001:db8:3333:4444:5555:6666:7777:8888')", 4, 4),
    ] {
        add(ip.to_string(), base, (est, est));
        for op in [
            ".family()",
            ".isUnspecified()",
            ".isLoopback()",
            ".isLinkLocalMulticast()",
            ".isLinkLocalUnicast()",
            ".isGlobalUnicast()",
        ] {
            add(format!("{ip}{op}"), base + 1, (est + 1, est + 1));
        }
        add(
            format!("{ip} == ip('192.168.0.1')"),
            base + 2 + 1,
            (est + 3, est + 3),
        );
    }
    // TestIPIsCanonicalCost
    add("ip.isCanonical('192.168.0.1')".into(), 3, (3, 3));
    add(
        "ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')".into(),
        8,
        (8, 8),
    );
    add("ip.isCanonical('2001:db8::abcd')".into(), 3, (3, 3));
    // TestCIDRCost
    let v4 = "cidr('192.168.0.0/16')";
    let v6 = "cidr('2001:db8::/32')";
    for cidr in [v4, v6] {
        add(cidr.to_string(), 2, (2, 2));
        for op in [".ip()", ".prefixLength()", ".masked()"] {
            add(format!("{cidr}{op}"), 3, (3, 3));
        }
        add(format!("{cidr} == cidr('2001:db8::/32')"), 5, (5, 5));
    }
    for (op, plus, est) in [
        (".containsCIDR(cidr('192.0.0.0/30'))", 5, (5, 9)),
        (".containsCIDR(cidr('192.168.0.0/16'))", 5, (5, 9)),
        (".containsCIDR('192.0.0.0/30')", 5, (5, 9)),
        (".containsCIDR('192.168.0.0/16')", 5, (5, 9)),
        (".containsIP(ip('192.0.0.1'))", 2, (2, 5)),
        (".containsIP(ip('192.169.0.1'))", 3, (3, 6)),
        (".containsIP(ip('192.169.169.250'))", 3, (3, 6)),
        (".containsIP('192.0.0.1')", 2, (2, 5)),
        (".containsIP('192.169.0.1')", 3, (3, 6)),
    ] {
        add(format!("{v4}{op}"), 2 + plus, (2 + est.0, 2 + est.1));
    }
    for (op, plus, est) in [
        (".containsCIDR(cidr('2001:db8::/126'))", 5, (5, 9)),
        (".containsCIDR(cidr('2001:db8::/32'))", 5, (5, 9)),
        (".containsCIDR('2001:db8::/126')", 5, (5, 9)),
        (".containsCIDR('2001:db8::/32')", 5, (5, 9)),
        (
            ".containsIP(ip('2001:db8:3333:4444:5555:6666:7777:8888'))",
            5,
            (5, 8),
        ),
        (".containsIP(ip('2001:db8::1'))", 3, (3, 6)),
        (
            ".containsIP('2001:db8:3333:4444:5555:6666:7777:8888')",
            5,
            (5, 8),
        ),
        (".containsIP('2001:db8::1')", 3, (3, 6)),
    ] {
        add(format!("{v6}{op}"), 2 + plus, (2 + est.0, 2 + est.1));
    }
    type Fixed = (&'static str, u64, (u64, u64));
    let fixed: &[Fixed] = &[
        // TestStringLibrary
        ("'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3, (3, 3)),
        ("'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", 9, (7, 9)),
        ("'ABCDEFGHIJ abcdefghij'.upperAscii()", 3, (3, 3)),
        ("'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()", 9, (7, 9)),
        ("strings.quote('ABCDEFGHIJ abcdefghij')", 3, (3, 3)),
        ("strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')", 9, (7, 11)),
        ("'abc 123 def 123'.replace('123', '456')", 3, (3, 3)),
        ("'abc 123 def 123'.replace('', 'x')", 3, (3, 3)),
        ("'abc 123 def 123'.replace('123', '')", 3, (3, 3)),
        ("'abc 123 def 123'.replace('123', '456', 1)", 3, (3, 3)),
        ("'abc 123 def 123'.split(' ')", 3, (3, 3)),
        ("'abc 123 def 123'.split(' ', 1)", 3, (3, 3)),
        ("'abc 123 def 123'.substring(5)", 2, (2, 2)),
        ("'abc 123 def 123'.substring(5, 8)", 2, (2, 2)),
        ("' abc 123 def 123 '.trim()", 2, (2, 2)),
        ("['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')", 15, (11, 23)),
        ("['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()", 13, (10, 22)),
        ("'abc 123 def 123'.find('123')", 2, (2, 2)),
        ("'abc 123 def 123'.findAll('123')", 2, (2, 2)),
        ("'abc 123 def 123'.findAll('123', 1)", 2, (2, 2)),
        // TestQuantityCost
        ("quantity(\"12Mi\")", 1, (1, 1)),
        ("isQuantity(\"20\")", 1, (1, 1)),
        ("isQuantity(\"20M\")", 1, (1, 1)),
        ("quantity(\"200M\") == quantity(\"200M\")", 3, (3, 3)),
        ("quantity(\"200M\") == quantity(\"0.2G\") && quantity(\"0.2G\") == quantity(\"200M\")", 6, (3, 6)),
        ("quantity(\"2M\") == quantity(\"0.002G\") && quantity(\"2000k\") == quantity(\"2M\") && quantity(\"0.002G\") == quantity(\"2000k\")", 9, (3, 9)),
        ("quantity(\"50M\").isLessThan(quantity(\"50Mi\"))", 3, (3, 3)),
        ("quantity(\"50Mi\").isGreaterThan(quantity(\"50M\"))", 3, (3, 3)),
        ("quantity(\"200M\").compareTo(quantity(\"0.2G\")) > 0", 4, (4, 4)),
        ("quantity(\"50k\").add(quantity(\"20\")) == quantity(\"50.02k\")", 5, (5, 5)),
        ("quantity(\"50k\").sub(quantity(\"20\")) == quantity(\"49.98k\")", 5, (5, 5)),
        ("quantity(\"50k\").sub(20) == quantity(\"49980\")", 4, (4, 4)),
        ("quantity(\"50k\").add(20).sub(quantity(\"100k\")).asInteger() > 0", 6, (6, 6)),
        ("quantity(\"50k\").add(20).sub(quantity(\"100k\")).sub(-50000).asInteger() > 0", 7, (7, 7)),
        ("quantity(\"50k\").asInteger() > 0", 3, (3, 3)),
        ("quantity(\"50\").isInteger()", 2, (2, 2)),
        ("quantity(\"50.703k\").asApproximateFloat() > 0.0", 3, (3, 3)),
        // TestNameFormatCost
        ("format.named(\"dns1123subdomain\")", 1, (1, 1)),
        ("format.named(\"dns1123Subdomain\").value().validate(\"my-name\")", 17, (34, 34)),
        ("format.named(\"dns1123Label\").value().validate(\"my-name\")", 10, (34, 34)),
        ("format.named(\"dns1123Label\").value() == format.named(\"dns1123Label\").value()", 5, (5, 11)),
        // TestSetsCost
        ("sets.contains([], [])", 21, (21, 21)),
        ("sets.contains([1], [])", 21, (21, 21)),
        ("sets.contains([1], [1])", 22, (22, 22)),
        ("sets.contains([1], [1, 1])", 23, (23, 23)),
        ("sets.contains([1, 1], [1])", 23, (23, 23)),
        ("sets.contains([2, 1], [1])", 23, (23, 23)),
        ("sets.contains([1, 2, 3, 4], [2, 3])", 29, (29, 29)),
        ("sets.contains([1], [1.0, 1])", 23, (23, 23)),
        ("sets.contains([1, 2], [2u, 2.0])", 25, (25, 25)),
        ("sets.contains([1, 2u], [2, 2.0])", 25, (25, 25)),
        ("sets.contains([1, 2.0, 3u], [1.0, 2u, 3])", 30, (30, 30)),
        ("sets.contains([[1], [2, 3]], [[2, 3.0]])", 53, (53, 53)),
        ("!sets.contains([1], [2])", 23, (23, 23)),
        ("!sets.contains([1], [1, 2])", 24, (24, 24)),
        ("!sets.contains([1], [\"1\", 1])", 24, (24, 24)),
        ("!sets.contains([1], [1.1, 1u])", 24, (24, 24)),
        ("sets.equivalent([], [])", 21, (21, 21)),
        ("sets.equivalent([1], [1])", 23, (23, 23)),
        ("sets.equivalent([1], [1, 1])", 25, (25, 25)),
        ("sets.equivalent([1, 1], [1])", 25, (25, 25)),
        ("sets.equivalent([1], [1u, 1.0])", 25, (25, 25)),
        ("sets.equivalent([1, 2, 3], [3u, 2.0, 1])", 39, (39, 39)),
        ("sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])", 69, (69, 69)),
        ("!sets.equivalent([2, 1], [1])", 26, (26, 26)),
        ("!sets.equivalent([1], [1, 2])", 26, (26, 26)),
        ("!sets.equivalent([1, 2], [2u, 2, 2.0])", 34, (34, 34)),
        ("!sets.equivalent([1, 2], [1u, 2, 2.3])", 34, (34, 34)),
        ("sets.intersects([1], [1])", 22, (22, 22)),
        ("sets.intersects([1], [1, 1])", 23, (23, 23)),
        ("sets.intersects([1, 1], [1])", 23, (23, 23)),
        ("sets.intersects([2, 1], [1])", 23, (23, 23)),
        ("sets.intersects([1], [1, 2])", 23, (23, 23)),
        ("sets.intersects([1], [1.0, 2])", 23, (23, 23)),
        ("sets.intersects([1, 2], [2u, 2, 2.0])", 27, (27, 27)),
        ("sets.intersects([1, 2], [1u, 2, 2.3])", 27, (27, 27)),
        ("sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])", 65, (65, 65)),
        ("!sets.intersects([], [])", 22, (22, 22)),
        ("!sets.intersects([1], [])", 22, (22, 22)),
        ("!sets.intersects([1], [2])", 23, (23, 23)),
        ("!sets.intersects([1], [\"1\", 2])", 24, (24, 24)),
        ("!sets.intersects([1], [1.1, 2u])", 24, (24, 24)),
        // TestSemverCost
        ("semver(\"1.0.0\")", 1, (1, 1)),
        ("semver(\"1234.56789012345.67890123456789\")", 4, (4, 4)),
        ("isSemver(\"1.0.0\")", 1, (1, 1)),
        ("isSemver(\"1234.56789012345.67890123456789\")", 4, (4, 4)),
        ("semver(\"1.2.3\").major()", 2, (2, 2)),
        ("semver(\"1.2.3\").minor()", 2, (2, 2)),
        ("semver(\"1.2.3\").patch()", 2, (2, 2)),
        ("semver(\"1.0.0\").isLessThan(semver(\"1.1.0\"))", 3, (3, 3)),
        ("semver(\"1.1.0\").isGreaterThan(semver(\"1.0.0\"))", 3, (3, 3)),
        ("semver(\"1.0.0\").compareTo(semver(\"1.2.3\"))", 3, (3, 3)),
        // TestTwoVariableComprehensionCost
        ("{'a': 1, 'b': 2}.all(k, v, v > 0)", 41, (37, 41)),
        ("{'a': 1, 'b': 2}.exists(k, v, v > 0)", 40, (39, 43)),
        ("{'a': 1, 'b': 2}.existsOne(k, v, v > 0)", 40, (38, 40)),
        ("{'a': 1, 'b': 2}.transformMap(k, v, v + 1)", 71, (71, 71)),
        ("{'a': 1, 'b': 2}.transformMap(k, v, v < 5, v + 1)", 75, (67, 75)),
        ("{'a': 1, 'b': 2}.transformMapEntry(k, v, {k: v + 1})", 131, (131, 131)),
        ("{'a': 1, 'b': 2}.transformMapEntry(k, v, v < 5, {k: v + 1})", 135, (67, 135)),
        ("[1, 2].all(i, v, v > 0)", 21, (17, 21)),
        ("[1, 2].exists(i, v, v > 0)", 20, (19, 23)),
        ("[1, 2].existsOne(i, v, v > 0)", 20, (18, 20)),
        ("[1, 2].transformList(i, v, v + 1)", 49, (49, 49)),
        ("[1, 2].transformList(i, v, v < 5, v + 1)", 53, (27, 53)),
    ];
    for (e, cost, est) in fixed {
        add((*e).to_string(), *cost, *est);
    }
    // TestAuthzLibraryCost (estimated only here: the runtime needs an authorizer).
    for (e, est) in [
        ("authorizer.path('/healthz')", 2),
        ("authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')", 6),
        ("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')", 1821),
        ("authorizer.group('').resource('pods').labelSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')", 1821),
        ("authorizer.path('/healthz').check('get').allowed()", 350_003),
        ("authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()", 350_007),
        ("authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').errored()", 350_007),
        ("authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').error()", 350_007),
    ] {
        c.push(Case {
            expr: e.to_string(),
            runtime: None,
            estimated: (est, est),
        });
    }
    c
}

/// `testCostEstimator`: strings and bytes are `[0, 12]`, nothing else has a size.
struct TestSizes;

impl CostEstimator for TestSizes {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        matches!(node.ty(), Type::String | Type::Bytes).then_some(SizeEstimate::new(0, 12))
    }
}

fn estimated_cost(expr: &str) -> Result<(u64, u64), String> {
    let env = EnvBuilder::kubernetes(EnvVersion::Stored)
        .literal_checks(crd_studio_cel::stdlib_rt::literal_checks())
        .build()
        .extend()
        .variable(
            "authorizer",
            Type::named_object("kubernetes.authorization.Authorizer"),
        )
        .build();
    let parsed = crd_studio_cel::Parser::new(env.parser_options().clone())
        .parse_text(expr)
        .map_err(|e| e.to_string())?;
    // That test's environment does not validate homogeneous literals (`[1, 2u]` is a
    // `list(dyn)`): the checked expression is the same, so only that validator's errors are
    // ignored.
    let (checked, errors) = crd_studio_cel::checker::check(&parsed, &env);
    let source = crd_studio_cel::Source::new(expr);
    let text = errors.to_display_string(&source);
    if !errors.is_empty() && !text.contains("expected type") {
        return Err(text);
    }
    let sizes = TestSizes;
    let est = KubernetesCostEstimator::new(&sizes);
    let c = estimate_cost(&checked, &est, &CostOptions::KUBERNETES);
    Ok((c.min, c.max))
}

#[test]
fn library_estimated_costs() {
    let mut failures = Vec::new();
    let all = cases();
    for case in &all {
        match estimated_cost(&case.expr) {
            Ok(got) if got == case.estimated => {}
            Ok(got) => failures.push(format!(
                "{}: want {:?}, got {got:?}",
                case.expr, case.estimated
            )),
            Err(e) => failures.push(format!("{}: {e}", case.expr)),
        }
    }
    eprintln!(
        "library estimated costs: {} of {} match",
        all.len() - failures.len(),
        all.len()
    );
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(failures.is_empty());
}

#[test]
fn library_runtime_costs() {
    let mut failures = Vec::new();
    let all: Vec<(String, u64)> = cases()
        .into_iter()
        .filter_map(|c| Some((c.expr, c.runtime?)))
        .collect();
    for (expr, want) in &all {
        match runtime_cost(expr) {
            Ok(got) if got == *want => {}
            Ok(got) => failures.push(format!("{expr}: want {want}, got {got}")),
            Err(e) => failures.push(format!("{expr}: {e}")),
        }
    }
    eprintln!(
        "library runtime costs: {} of {} match",
        all.len() - failures.len(),
        all.len()
    );
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(failures.is_empty());
}
