//! Which Kubernetes version brings which library or option into the environment for new
//! expressions (`k8s.io/apiserver/pkg/cel/environment/base.go`): before its version a function
//! is an undeclared reference (or a syntax the parser refuses); the stored-expressions
//! environment has everything.

mod support;

use support::{at, eval, STORED};

/// `(version, expression, expected)`: the expected rendering at that version.
const CASES: &[(u32, &str, &str)] = &[
    // Always there: the URL, regex and lists (version 0) libraries, homogeneous literals.
    (26, "url('/x').getScheme()", "''"),
    (26, "'abc'.find('b')", "'b'"),
    (26, "[1].isSorted()", "true"),
    // isSorted is a method only.
    (
        26,
        "isSorted([1])",
        "compile: found no matching overload for 'isSorted' applied to '(list(int))'",
    ),
    (
        27,
        "[1, 'a']",
        "compile: expected type 'int' but found 'string'",
    ),
    // 1.28: optional types and syntax, quantity, cross-type numeric comparisons.
    (
        27,
        "quantity('1')",
        "compile: undeclared reference to 'quantity' (in container '')",
    ),
    (28, "quantity('1').isInteger()", "true"),
    (27, "{'a': 1}.?a", "compile: unsupported syntax '.?'"),
    (28, "{'a': 1}.?a", "optional.of(1)"),
    (
        27,
        "optional.of(1)",
        "compile: undeclared reference to 'optional' (in container '')",
    ),
    (
        27,
        "1 < 1.5",
        "compile: found no matching overload for '_<_' applied to '(int, double)'",
    ),
    (28, "1 < 1.5", "true"),
    // 1.29: literal validators; strings version 2 (format, quote); sets.
    (
        28,
        "duration('1d')",
        "plan: type conversion error from 'string' to 'google.protobuf.Duration'",
    ),
    (29, "duration('1d')", "compile: invalid duration argument"),
    (
        28,
        "'abc'.matches('(')",
        "plan: error parsing regexp: missing closing ): `(`",
    ),
    (
        29,
        "'abc'.matches('(')",
        "compile: invalid matches argument",
    ),
    (28, "'A'.lowerAscii()", "'a'"),
    (28, "['a', 'b'].join('-')", "'a-b'"),
    (
        28,
        "'%d'.format([1])",
        "compile: undeclared reference to 'format' (in container '')",
    ),
    (29, "'%d'.format([1])", "'1'"),
    (
        28,
        "strings.quote('a')",
        "compile: undeclared reference to 'strings' (in container '')",
    ),
    (29, "strings.quote('a')", "'\"a\"'"),
    (
        28,
        "sets.contains([1], [1])",
        "compile: undeclared reference to 'sets' (in container '')",
    ),
    (29, "sets.contains([1], [1])", "true"),
    // 1.30: IP and CIDR.
    (
        29,
        "ip('1.2.3.4')",
        "compile: undeclared reference to 'ip' (in container '')",
    ),
    (
        29,
        "isCIDR('1.2.3.4/8')",
        "compile: undeclared reference to 'isCIDR' (in container '')",
    ),
    (30, "ip('1.2.3.4').family()", "4"),
    (30, "cidr('10.0.0.0/8').containsIP('10.1.2.3')", "true"),
    // 1.31: named formats.
    (
        30,
        "format.dns1123Label()",
        "compile: undeclared reference to 'format' (in container '')",
    ),
    (
        31,
        "format.dns1123Label().validate('a').hasValue()",
        "false",
    ),
    // 1.32: two-variable comprehensions.
    (
        31,
        "[1].all(i, v, v > 0)",
        "compile: undeclared reference to 'all' (in container '')",
    ),
    (32, "[1].all(i, v, v > 0)", "true"),
    (32, "{'a': 1}.transformMap(k, v, v + 1)", "{'a': 2}"),
    // 1.33: semver.
    (
        32,
        "semver('1.0.0')",
        "compile: undeclared reference to 'semver' (in container '')",
    ),
    (33, "semver('1.0.0', true).major()", "1"),
    // 1.34: ext lists version 3.
    (
        33,
        "[3, 1].sort()",
        "compile: undeclared reference to 'sort' (in container '')",
    ),
    (
        33,
        "lists.range(2)",
        "compile: undeclared reference to 'lists' (in container '')",
    ),
    (34, "[3, 1].sort()", "[1, 3]"),
    (
        33,
        "[3, 1].sortBy(x, -x)",
        "compile: undeclared reference to 'sortBy' (in container '')",
    ),
    (34, "[3, 1].sortBy(x, -x)", "[3, 1]"),
    (34, "[1, 1].distinct()", "[1]"),
    // 1.37: Kubernetes lists version 1 (includes); 1.36 is the default for new expressions.
    (
        36,
        "[1].includes(1)",
        "compile: undeclared reference to 'includes' (in container '')",
    ),
    (37, "[1].includes(1)", "true"),
    // Never in the Kubernetes environment: cel.bind, ext math, encoders.
    (
        37,
        "cel.bind(x, 1, x + 1)",
        "compile: undeclared reference to 'cel' (in container '')",
    ),
    (
        37,
        "math.greatest(1, 2)",
        "compile: undeclared reference to 'math' (in container '')",
    ),
    (
        37,
        "base64.encode(b'a')",
        "compile: undeclared reference to 'base64' (in container '')",
    ),
];

#[test]
fn functions_arrive_at_their_versions() {
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|&(minor, expr, want)| {
            let got = eval(at(minor), expr);
            (got != want).then(|| format!("  1.{minor}: {expr}\n    want: {want}\n    got:  {got}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn stored_expressions_have_everything() {
    for (_, expr, want) in CASES {
        if want.starts_with("compile: undeclared") || want.starts_with("compile: unsupported") {
            let got = eval(STORED, expr);
            let absent_everywhere = ["cel.bind", "math.", "base64."]
                .iter()
                .any(|p| expr.starts_with(p));
            assert_eq!(
                got.starts_with("compile:"),
                absent_everywhere,
                "stored: {expr} gave {got}"
            );
        }
    }
}
