//! Edge cases of the list libraries (Kubernetes' `library.Lists` — isSorted, sum, min, max,
//! indexOf, lastIndexOf, includes — and cel-go's `ext.Lists` at version 3 — slice, flatten,
//! distinct, reverse, sort, `lists.range`), of `ext.Sets`, and of Kubernetes' regex library
//! (`find`, `findAll`). Expectations come from reading `k8s.io/apiserver/pkg/cel/library/lists.go`
//! and `regex.go`, and cel-go's `ext/lists.go`, `ext/sets.go` and `common/types/list.go`.

mod support;

use support::{check_table, STORED};

#[test]
fn kubernetes_list_functions() {
    check_table(
        STORED,
        &[
            // isSorted: non-decreasing order, any comparable element type.
            ("[1, 2, 2, 3].isSorted()", "true"),
            ("[2.0, 1.0].isSorted()", "false"),
            ("['a', 'b', 'b', 'c'].isSorted()", "true"),
            ("[b'a', b'B'].isSorted()", "false"),
            ("[false, true].isSorted()", "true"),
            ("[duration('1s'), duration('1m')].isSorted()", "true"),
            ("[1].isSorted()", "true"),
            ("[].isSorted()", "true"),
            // sum: the zero of the element type; overflow is an error.
            ("[1, 3].sum()", "4"),
            ("[1u, 3u].sum()", "4u"),
            ("[1.5, 3.0].sum()", "4.5"),
            (
                "[duration('1m'), duration('1s')].sum()",
                "duration(61000000000ns)",
            ),
            ("[].sum()", "0"),
            ("[9223372036854775807, 1].sum()", "error: integer overflow"),
            (
                "[18446744073709551615u, 1u].sum()",
                "error: unsigned integer overflow",
            ),
            // min and max: an empty list is an error.
            ("[3, 1, 2].min()", "1"),
            ("[3, 1, 2].max()", "3"),
            ("['b', 'a', 'c'].min()", "'a'"),
            ("[true, false].max()", "true"),
            ("[1].min()", "1"),
            ("[].min()", "error: min called on empty list"),
            ("[].max()", "error: max called on empty list"),
            ("([0] + []).min()", "0"),
            // A list of dyn compares across numeric types.
            ("[dyn(1), dyn(0.5), dyn(2u)].min()", "0.5"),
            ("[dyn(1), dyn(0.5), dyn(2u)].max()", "2u"),
            // indexOf / lastIndexOf: -1 when absent, heterogeneous equality under dyn.
            ("[1, 2, 2, 3].indexOf(2)", "1"),
            ("[1, 2, 2, 3].lastIndexOf(2)", "2"),
            ("[1.0].indexOf(1.1)", "-1"),
            ("[].indexOf('x')", "-1"),
            ("[].lastIndexOf('x')", "-1"),
            ("[dyn(1), dyn(2u)].indexOf(dyn(2.0))", "1"),
            ("[[1], [2]].indexOf([2])", "1"),
            ("[{'a': 1}, {'a': 1}].lastIndexOf({'a': 1})", "1"),
            // includes (lists library version 1): lists by membership, other values by equality.
            ("[1, 2, 3].includes(2)", "true"),
            ("[1, 2, 3].includes(4)", "false"),
            ("'model-a'.includes('model-a')", "true"),
            ("'model-a'.includes('model')", "false"),
            ("[1, 2].includes(2.0)", "true"),
        ],
    );
}

#[test]
fn kubernetes_list_functions_need_comparable_elements() {
    check_table(
        STORED,
        &[
            (
                "[[1], [2]].isSorted()",
                "compile: found no matching overload for 'isSorted' applied to 'list(list(int)).()'",
            ),
            (
                "[{'a': 1}].min()",
                "compile: found no matching overload for 'min' applied to 'list(map(string, int)).()'",
            ),
            (
                "['a'].sum()",
                "compile: found no matching overload for 'sum' applied to 'list(string).()'",
            ),
            (
                "[1, 2].indexOf('a')",
                "compile: found no matching overload for 'indexOf' applied to 'list(int).(string)'",
            ),
        ],
    );
}

#[test]
fn ext_lists_slice_flatten_distinct_reverse_range() {
    check_table(
        STORED,
        &[
            ("[1, 2, 3, 4].slice(1, 3)", "[2, 3]"),
            ("[1, 2, 3, 4].slice(4, 4)", "[]"),
            ("[1, 2, 3, 4].slice(0, 4)", "[1, 2, 3, 4]"),
            (
                "[1, 2, 3].slice(-1, 2)",
                "error: cannot slice(-1, 2), negative indexes not supported",
            ),
            (
                "[1, 2, 3].slice(1, -2)",
                "error: cannot slice(1, -2), negative indexes not supported",
            ),
            (
                "[1, 2, 3].slice(2, 1)",
                "error: cannot slice(2, 1), start index must be less than or equal to end index",
            ),
            (
                "[1, 2, 3].slice(1, 4)",
                "error: cannot slice(1, 4), list is length 3",
            ),
            // flatten: one level by default; a depth flattens that many levels.
            ("[[1], [2, 3], []].flatten()", "[1, 2, 3]"),
            ("[[[1]], [[2, 3]]].flatten()", "[[1], [2, 3]]"),
            ("[dyn(1), dyn([2, 3])].flatten()", "[1, 2, 3]"),
            (
                "[dyn(1), dyn([dyn(2), dyn([dyn(3), dyn([4])])])].flatten(2)",
                "[1, 2, 3, [4]]",
            ),
            (
                "[dyn(1), dyn([dyn(2), dyn([dyn(3), dyn([4])])])].flatten(10)",
                "[1, 2, 3, 4]",
            ),
            ("[dyn(1), dyn([2])].flatten(0)", "[1, [2]]"),
            ("[[1]].flatten(-1)", "error: level must be non-negative"),
            (
                "[1, 2].flatten()",
                "compile: found no matching overload for 'flatten' applied to 'list(int).()'",
            ),
            // distinct keeps the first of equal elements (heterogeneous equality).
            ("[1, 2, 2, 3, 3, 3].distinct()", "[1, 2, 3]"),
            ("['b', 'b', 'c', 'a', 'c'].distinct()", "['b', 'c', 'a']"),
            (
                "[dyn(1), dyn(1.0), dyn(1u), dyn('1')].distinct()",
                "[1, '1']",
            ),
            ("[[1], [1], [2]].distinct()", "[[1], [2]]"),
            ("[].distinct()", "[]"),
            ("[5, 3, 1, 2].reverse()", "[2, 1, 3, 5]"),
            ("[].reverse()", "[]"),
            ("lists.range(4)", "[0, 1, 2, 3]"),
            ("lists.range(0)", "[]"),
            ("lists.range(-3)", "[]"),
        ],
    );
}

#[test]
fn ext_lists_sort() {
    check_table(
        STORED,
        &[
            ("[3, 2, 1].sort()", "[1, 2, 3]"),
            ("['b', 'c', 'a'].sort()", "['a', 'b', 'c']"),
            ("[true, false, true].sort()", "[false, true, true]"),
            ("[b'b', b'a'].sort()", "[b'a', b'b']"),
            ("[2.5, -1.0, 0.0].sort()", "[-1.0, 0.0, 2.5]"),
            (
                "[duration('2s'), duration('1s')].sort()",
                "[duration(1000000000ns), duration(2000000000ns)]",
            ),
            ("[].sort()", "[]"),
            // Elements must share one comparable type.
            (
                "[[1], [2]].sort()",
                "compile: found no matching overload for 'sort' applied to 'list(list(int)).()'",
            ),
            (
                "[dyn(1), dyn('b')].sort()",
                "error: list elements must have the same type",
            ),
            (
                "[dyn(1), dyn(2u)].sort()",
                "error: list elements must have the same type",
            ),
            (
                "dyn([[2], [1]]).sort()",
                "error: list elements must be comparable",
            ),
        ],
    );
}

#[test]
fn sets() {
    check_table(
        STORED,
        &[
            ("sets.contains([], [])", "true"),
            ("sets.contains([1, 2], [])", "true"),
            ("sets.contains([], [1])", "false"),
            ("sets.contains([1, 2, 3], [3, 1, 1])", "true"),
            ("sets.contains([1, 2], [2, 4])", "false"),
            ("sets.contains([[1], [2]], [[2]])", "true"),
            ("sets.contains([dyn(1)], [dyn(1.0)])", "true"),
            ("sets.equivalent([], [])", "true"),
            ("sets.equivalent(['a', 'a', 'b'], ['b', 'a'])", "true"),
            ("sets.equivalent(['a'], ['a', 'b'])", "false"),
            ("sets.equivalent([dyn(1), dyn(2u)], [dyn(2.0), dyn(1)])", "true"),
            ("sets.intersects([], [])", "false"),
            ("sets.intersects([1], [])", "false"),
            ("sets.intersects([1, 2], [2, 3])", "true"),
            ("sets.intersects([1, 2], [3])", "false"),
            ("sets.intersects([{'a': 1}], [{'a': 1}])", "true"),
            (
                "sets.contains([1], [1.0])",
                "compile: found no matching overload for 'sets.contains' applied to '(list(int), list(double))'",
            ),
        ],
    );
}

#[test]
fn regex_find_and_find_all() {
    check_table(
        STORED,
        &[
            ("'abc 123'.find('[0-9]+')", "'123'"),
            ("'abc'.find('[0-9]+')", "''"),
            ("'abc'.find('')", "''"),
            // Leftmost-first, as Go's RE2.
            ("'abcd'.find('b|bc')", "'b'"),
            ("'123 abc 456'.findAll('[0-9]+')", "['123', '456']"),
            ("'123 abc 456'.findAll('[0-9]+', 1)", "['123']"),
            ("'123 abc 456'.findAll('[0-9]+', 0)", "[]"),
            ("'123 abc 456'.findAll('[0-9]+', -1)", "['123', '456']"),
            ("'123 abc 456'.findAll('[0-9]+', 5)", "['123', '456']"),
            ("'abc'.findAll('x')", "[]"),
            // Empty matches between characters (not right after a previous match).
            ("'ab'.findAll('x*')", "['', '', '']"),
            ("'héllo'.find('[^a-z]')", "'é'"),
            // A constant invalid pattern fails when the program is built...
            (
                "'abc'.find('(')",
                "plan: error parsing regexp: missing closing ): `(`",
            ),
            (
                "'abc'.findAll('[a-', 2)",
                "plan: error parsing regexp: missing closing ]: `[a-`",
            ),
            // ...a computed one when it runs.
            (
                "'abc'.find('(' + '')",
                "error: Illegal regex: error parsing regexp: missing closing ): `(`",
            ),
            (
                "'abc'.findAll('a**' + '')",
                "error: Illegal regex: error parsing regexp: invalid nested repetition operator: `**`",
            ),
            // `matches` is validated by the checker (since 1.29) and matches anywhere.
            ("'abc'.matches('(')", "compile: invalid matches argument"),
            ("'abc'.matches('b')", "true"),
            ("'abc'.matches('^b')", "false"),
            (
                "'abc'.matches('(' + '')",
                "error: error parsing regexp: missing closing ): `(`",
            ),
        ],
    );
}

#[test]
fn ext_lists_sort_by() {
    check_table(
        STORED,
        &[
            ("[3, 1, 2].sortBy(x, -x)", "[3, 2, 1]"),
            ("['bb', 'a', 'ccc'].sortBy(s, size(s))", "['a', 'bb', 'ccc']"),
            ("[{'k': 2}, {'k': 1}].sortBy(m, m.k).map(m, m.k)", "[1, 2]"),
            // Equal keys keep their order in short lists (Go sorts them by insertion).
            (
                "[[1, 0], [0, 1], [1, 2]].sortBy(p, p[0]).map(p, p[1])",
                "[1, 0, 2]",
            ),
            ("[].sortBy(x, x)", "[]"),
            // Keys must be one comparable type.
            (
                "[[1], [2]].sortBy(x, x)",
                "compile: found no matching overload for '@sortByAssociatedKeys' applied to 'list(list(int)).(list(list(int)))'",
            ),
            (
                "[1, 2].sortBy(x, x == 1 ? dyn('a') : dyn(1))",
                "error: list elements must have the same type",
            ),
            ("[dyn([1]), dyn([2])].sortBy(x, x)", "error: list elements must be comparable"),
            // The macro's target must be a list-like expression.
            (
                "1.sortBy(x, x)",
                "compile: sortBy can only be applied to a list, identifier, comprehension, call or select expression",
            ),
        ],
    );
}

#[test]
fn regex_syntax_is_go_re2() {
    // Go's regexp/syntax: its flags, classes and quoting, and its error texts for what RE2
    // leaves out (back-references, look-around, `\Z`, `\C`, possessive repetition).
    let e = |p: &str, msg: &str| {
        (
            format!("'x'.find('{p}' + '')"),
            format!("error: Illegal regex: error parsing regexp: {msg}"),
        )
    };
    let mut cases: Vec<(String, String)> = vec![
        ("'aBc'.find('(?i)b')".into(), "'B'".into()),
        ("'aaa'.find('(?U)a+')".into(), "'a'".into()),
        ("'a.b'.find('\\\\Q.\\\\E')".into(), "'.'".into()),
        ("'ab1'.find('[[:alpha:]]+')".into(), "'ab'".into()),
        ("'é'.find('\\\\pL')".into(), "'é'".into()),
        ("'😀'.find('.')".into(), "'😀'".into()),
        ("'ab\\ncd'.findAll('^.')".into(), "['a']".into()),
        ("'ab\\ncd'.findAll('(?m)^.')".into(), "['a', 'c']".into()),
        ("'ab'.find('(?P<n>b)')".into(), "'b'".into()),
        ("'1x'.find('(?P<1a>x)')".into(), "'x'".into()),
        // Go 1.22 and later also take `(?<name>...)`.
        ("'ab'.find('(?<n>b)')".into(), "'b'".into()),
    ];
    for (p, msg) in [
        ("\\\\Z", "invalid escape sequence: `\\Z`"),
        ("(a)\\\\1", "invalid escape sequence: `\\1`"),
        ("\\\\C", "invalid escape sequence: `\\C`"),
        ("(?=a)", "invalid or unsupported Perl syntax: `(?=`"),
        ("(?i", "invalid or unsupported Perl syntax: `(?i`"),
        (")", "unexpected ): `)`"),
        ("a{1001}", "invalid repeat count: `{1001}`"),
        ("a{2}{3}", "invalid nested repetition operator: `{2}{3}`"),
        ("a++", "invalid nested repetition operator: `++`"),
        ("[z-a]", "invalid character class range: `z-a`"),
        ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
        ("\\\\pX", "invalid character class range: `\\pX`"),
        ("(?P<>a)", "invalid named capture: `(?P<>`"),
    ] {
        cases.push(e(p, msg));
    }
    let cases: Vec<(&str, &str)> = cases
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    check_table(STORED, &cases);
}
