//! Edge cases of cel-go's strings extension as Kubernetes configures it (`ext.Strings` at
//! version 2: no `reverse` on strings, the version-1 `format` with the `en_US` printer and its
//! compile-time validator). Expectations come from reading cel-go's `ext/strings.go`,
//! `ext/formatting.go` and `ext/guards.go`, Go's `strings` package semantics (`SplitN`,
//! `Replace`, `TrimSpace`) and, for `%e`, Kubernetes' own validation test (x/text v0.40 prints no
//! narrow spaces around `×`).

mod support;

use support::{check_table, STORED};

#[test]
fn char_at_counts_code_points() {
    check_table(
        STORED,
        &[
            ("'hello'.charAt(0)", "'h'"),
            ("'hello'.charAt(4)", "'o'"),
            // The index one past the end is allowed and yields the empty string.
            ("'hello'.charAt(5)", "''"),
            ("'hello'.charAt(6)", "error: index out of range: 6"),
            ("'hello'.charAt(-1)", "error: index out of range: -1"),
            ("''.charAt(0)", "''"),
            ("''.charAt(1)", "error: index out of range: 1"),
            // Code points, not bytes.
            ("'😀ab'.charAt(1)", "'a'"),
            ("'é😀'.charAt(1)", "'😀'"),
            ("'é😀'.charAt(2)", "''"),
        ],
    );
}

#[test]
fn index_of_with_offsets_and_unicode() {
    check_table(
        STORED,
        &[
            ("'hello mellow'.indexOf('')", "0"),
            ("'hello mellow'.indexOf('ello')", "1"),
            ("'hello mellow'.indexOf('jello')", "-1"),
            ("'hello mellow'.indexOf('ello', 2)", "7"),
            ("'hello mellow'.indexOf('ello', 7)", "7"),
            ("'hello mellow'.indexOf('ello', 8)", "-1"),
            // An offset at or past the end finds nothing (no error).
            ("'abc'.indexOf('c', 3)", "-1"),
            ("'abc'.indexOf('c', 30)", "-1"),
            ("'abc'.indexOf('c', -1)", "error: index out of range: -1"),
            // The empty needle matches at the offset.
            ("'abc'.indexOf('', 2)", "2"),
            ("'abc'.indexOf('', 3)", "3"),
            // A needle longer than the haystack.
            ("'ab'.indexOf('abc')", "-1"),
            // Positions count code points.
            ("'😀a😀b'.indexOf('😀', 1)", "2"),
            ("'😀a😀b'.indexOf('b')", "3"),
            ("'ça va'.indexOf('va')", "3"),
        ],
    );
}

#[test]
fn last_index_of_with_offsets_and_unicode() {
    check_table(
        STORED,
        &[
            // The empty needle matches at the end (length in code points).
            ("'hello mellow'.lastIndexOf('')", "12"),
            ("'😀😀'.lastIndexOf('')", "2"),
            ("'hello mellow'.lastIndexOf('ello')", "7"),
            ("'hello mellow'.lastIndexOf('jello')", "-1"),
            // The offset is the last position a match may start at.
            ("'hello mellow'.lastIndexOf('ello', 6)", "1"),
            ("'hello mellow'.lastIndexOf('ello', 7)", "7"),
            ("'hello mellow'.lastIndexOf('ello', 0)", "-1"),
            ("'hello mellow'.lastIndexOf('h', 0)", "0"),
            // An offset at or past the length finds nothing, even when the needle is there.
            ("'abc'.lastIndexOf('c', 3)", "-1"),
            ("'abc'.lastIndexOf('c', 2)", "2"),
            (
                "'abc'.lastIndexOf('a', -1)",
                "error: index out of range: -1",
            ),
            ("'abc'.lastIndexOf('', 1)", "1"),
            // A needle longer than the haystack.
            ("'ab'.lastIndexOf('abc')", "-1"),
            ("'😀a😀b'.lastIndexOf('😀')", "2"),
            ("'😀a😀b'.lastIndexOf('😀', 1)", "0"),
        ],
    );
}

#[test]
fn ascii_case_mapping_leaves_other_letters_alone() {
    check_table(
        STORED,
        &[
            ("'TacoCat'.lowerAscii()", "'tacocat'"),
            ("'TacoCÆt Xii'.lowerAscii()", "'tacocÆt xii'"),
            ("'TacoCat'.upperAscii()", "'TACOCAT'"),
            ("'tacocæt xii'.upperAscii()", "'TACOCæT XII'"),
            ("'straße'.upperAscii()", "'STRAßE'"),
            ("'ÀÉ'.lowerAscii()", "'ÀÉ'"),
            ("''.upperAscii()", "''"),
        ],
    );
}

#[test]
fn replace_with_a_limit() {
    check_table(
        STORED,
        &[
            ("'hello hello'.replace('he', 'we')", "'wello wello'"),
            ("'hello hello'.replace('he', 'we', -1)", "'wello wello'"),
            ("'hello hello'.replace('he', 'we', 1)", "'wello hello'"),
            ("'hello hello'.replace('he', 'we', 0)", "'hello hello'"),
            ("'hello hello'.replace('he', 'we', 5)", "'wello wello'"),
            ("'hello hello'.replace('h', '')", "'ello ello'"),
            // An empty search string matches before every code point and at the end.
            ("'abc'.replace('', '-')", "'-a-b-c-'"),
            ("'abc'.replace('', '-', 2)", "'-a-bc'"),
            ("'é'.replace('', '.')", "'.é.'"),
            ("'aaa'.replace('aa', 'b')", "'ba'"),
        ],
    );
}

#[test]
fn split_with_a_limit() {
    check_table(
        STORED,
        &[
            ("'a b c'.split(' ')", "['a', 'b', 'c']"),
            ("'a b c'.split(' ', 0)", "[]"),
            ("'a b c'.split(' ', 1)", "['a b c']"),
            ("'a b c'.split(' ', 2)", "['a', 'b c']"),
            ("'a b c'.split(' ', 9)", "['a', 'b', 'c']"),
            ("'a b c'.split(' ', -1)", "['a', 'b', 'c']"),
            // No separator found: the whole string.
            ("'abc'.split(',')", "['abc']"),
            // An empty string splits into one empty string...
            ("''.split(',')", "['']"),
            // ...but with an empty separator into nothing.
            ("''.split('')", "[]"),
            // An empty separator splits between code points.
            ("'a😀c'.split('')", "['a', '😀', 'c']"),
            ("'abc'.split('', 2)", "['a', 'bc']"),
            // Adjacent and trailing separators give empty strings.
            ("'a,,b,'.split(',')", "['a', '', 'b', '']"),
        ],
    );
}

#[test]
fn substring_bounds() {
    check_table(
        STORED,
        &[
            ("'tacocat'.substring(4)", "'cat'"),
            ("'tacocat'.substring(7)", "''"),
            ("'tacocat'.substring(8)", "error: index out of range: 8"),
            ("'tacocat'.substring(-1)", "error: index out of range: -1"),
            ("'tacocat'.substring(0, 4)", "'taco'"),
            ("'tacocat'.substring(2, 2)", "''"),
            ("'tacocat'.substring(0, 7)", "'tacocat'"),
            // The order check comes first, then the start, then the end.
            (
                "'tacocat'.substring(2, 1)",
                "error: invalid substring range. start: 2, end: 1",
            ),
            (
                "'tacocat'.substring(9, 1)",
                "error: invalid substring range. start: 9, end: 1",
            ),
            (
                "'tacocat'.substring(-1, 3)",
                "error: index out of range: -1",
            ),
            ("'tacocat'.substring(8, 9)", "error: index out of range: 8"),
            ("'tacocat'.substring(0, 8)", "error: index out of range: 8"),
            // Code points.
            ("'héllo😀'.substring(1, 3)", "'él'"),
            ("'héllo😀'.substring(5)", "'😀'"),
        ],
    );
}

#[test]
fn trim_uses_unicode_white_space() {
    check_table(
        STORED,
        &[
            ("'  \\ttrim\\n    '.trim()", "'trim'"),
            ("'\\v\\f\\r x \\r'.trim()", "'x'"),
            // NEL, NO-BREAK SPACE, IDEOGRAPHIC SPACE are white space...
            ("'\\u0085\\u00a0x\\u3000'.trim()", "'x'"),
            // ...a ZERO WIDTH SPACE is not.
            ("'\\u200bx'.trim() == '\\u200bx'", "true"),
            ("'   '.trim()", "''"),
            ("'a b'.trim()", "'a b'"),
        ],
    );
}

#[test]
fn join_and_quote() {
    check_table(
        STORED,
        &[
            ("['a', 'b', 'c'].join()", "'abc'"),
            ("['a', 'b', 'c'].join(', ')", "'a, b, c'"),
            ("[].join()", "''"),
            ("[].join('-')", "''"),
            ("['x'].join('-')", "'x'"),
            ("['', ''].join('-')", "'-'"),
            // A list of dyn passes the checker; a non-string element fails at runtime.
            (
                "[dyn('a'), dyn(1)].join('-')",
                "error: join: invalid input: 1",
            ),
            // (A literal mixing string and dyn is not homogeneous.)
            (
                "['a', dyn(1)].join('-')",
                "compile: expected type 'string' but found 'dyn'",
            ),
            ("strings.quote('plain')", "'\"plain\"'"),
            ("strings.quote('say \"hi\"')", "'\"say \\\"hi\\\"\"'"),
            ("strings.quote('a\\\\b')", "'\"a\\\\b\"'"),
            (
                "strings.quote('\\a\\b\\f\\n\\r\\t\\v')",
                "'\"\\a\\b\\f\\n\\r\\t\\v\"'",
            ),
            ("strings.quote('é😀')", "'\"é😀\"'"),
            ("strings.quote('')", "'\"\"'"),
        ],
    );
}

#[test]
fn string_reverse_is_not_in_the_kubernetes_strings_version() {
    // ext.Strings(version 2): `reverse` arrived at version 3. `reverse` exists for lists
    // (ext.Lists), so the checker finds the function but no overload for a string.
    check_table(
        STORED,
        &[
            (
                "'abc'.reverse()",
                "compile: found no matching overload for 'reverse' applied to 'string.()'",
            ),
            ("[1, 2, 3].reverse()", "[3, 2, 1]"),
        ],
    );
}

#[test]
fn format_verbs() {
    check_table(
        STORED,
        &[
            ("'no substitution'.format([])", "'no substitution'"),
            ("'%% and %%'.format([])", "'% and %'"),
            ("'%%%s%%'.format(['x'])", "'%x%'"),
            // %s on scalars: Go's text of each type.
            ("'%s'.format(['text'])", "'text'"),
            ("'%s %s'.format([true, false])", "'true false'"),
            ("'%s'.format([-42])", "'-42'"),
            ("'%s'.format([42u])", "'42'"),
            ("'%s'.format([2.5])", "'2.5'"),
            ("'%s'.format([1.0])", "'1'"),
            ("'%s'.format([0.000000002])", "'2e-09'"),
            ("'%s'.format([1e21])", "'1e+21'"),
            ("'%s'.format([double('NaN')])", "'NaN'"),
            ("'%s'.format([double('Infinity')])", "'+Inf'"),
            ("'%s'.format([-double('Infinity')])", "'-Inf'"),
            ("'%s'.format([b'xyz'])", "'xyz'"),
            ("'%s'.format([null])", "'null'"),
            ("'%s'.format([type(1)])", "'int'"),
            ("'%s'.format([string])", "'string'"),
            ("'%s'.format([duration('1h45m47s')])", "'6347s'"),
            ("'%s'.format([duration('1ms')])", "'0.001s'"),
            (
                // A timestamp keeps the offset it was written with.
                "'%s'.format([timestamp('2023-02-03T23:31:20+01:00')])",
                "'2023-02-03T23:31:20+01:00'",
            ),
            // Inside lists and maps: CEL-literal forms; doubles with six decimals.
            (
                "'%s'.format([['abc', 3.5, null, [1], b'x', true]])",
                "'[\"abc\", 3.500000, null, [1], b\"x\", true]'",
            ),
            (
                "'%s'.format([[duration('2s'), timestamp('2000-01-01T00:00:00Z')]])",
                "'[duration(\"2s\"), timestamp(\"2000-01-01T00:00:00Z\")]'",
            ),
            ("'%s'.format([[double('NaN')]])", "'[\"NaN\"]'"),
            // (Go's plain `%.6f` there: no locale grouping.)
            ("'%s'.format([[1234.5]])", "'[1234.500000]'"),
            ("'%s'.format([[int]])", "'[int]'"),
            // Map entries sorted by their formatted key, `key:value`, `, ` between.
            ("'%s'.format([{'b': 2, 'a': 1}])", "'{\"a\":1, \"b\":2}'"),
            ("'%s'.format([{2: 'x', 10: 'y'}])", "'{10:\"y\", 2:\"x\"}'"),
            ("'%s'.format([{true: 1.5}])", "'{true:1.500000}'"),
            // %d: integers only.
            ("'%d %d'.format([-7, 7u])", "'-7 7'"),
            // %f: default precision 6, locale grouping, half-even rounding of the exact value.
            ("'%f'.format([2.71828])", "'2.718280'"),
            ("'%.3f'.format([1.2345])", "'1.234'"),
            ("'%.0f'.format([2.5])", "'2'"),
            ("'%.2f'.format([0.125])", "'0.12'"),
            ("'%.2f'.format([1234567.891])", "'1,234,567.89'"),
            ("'%.1f'.format([-1234.56])", "'-1,234.6'"),
            ("'%.1f'.format([999.96])", "'1,000.0'"),
            // A negative number keeps its sign when it rounds to zero; negative zero has none.
            ("'%.2f'.format([-0.0001])", "'-0.00'"),
            ("'%.2f'.format([-0.0])", "'0.00'"),
            ("'%e'.format([-0.0])", "'0.000000×10⁰⁰'"),
            // `%.<p>e` is x/text's `%<p>e` (cel-go `ext/formatting.go` `Scientific`): a width,
            // the precision stays 6.
            ("'%.1e'.format([-0.00001])", "'-1.000000×10⁻⁰⁵'"),
            ("'%.1e'.format([9.96])", "'9.960000×10⁰⁰'"),
            ("'%f'.format(['NaN'])", "'NaN'"),
            ("'%f'.format(['Infinity'])", "'∞'"),
            ("'%f'.format(['-Infinity'])", "'-∞'"),
            ("'%.2f'.format([double('-Infinity')])", "'-∞'"),
            // %e: the en_US printer's superscript exponent, at least two digits.
            ("'%e'.format([3.14])", "'3.140000×10⁰⁰'"),
            ("'%.2e'.format([1052.032911275])", "'1.052033×10⁰³'"),
            ("'%.1e'.format([0.000123])", "'1.230000×10⁻⁰⁴'"),
            // The default `%6e`: NaN padded to six runes (`number.Formatter.Render`).
            ("'%e'.format(['NaN'])", "'   NaN'"),
            // %b, %o, %x, %X.
            ("'%b'.format([5])", "'101'"),
            ("'%b'.format([-5])", "'-101'"),
            ("'%b'.format([64u])", "'1000000'"),
            ("'%b %b'.format([true, false])", "'1 0'"),
            ("'%o'.format([11])", "'13'"),
            ("'%o'.format([-11])", "'-13'"),
            ("'%o'.format([65535u])", "'177777'"),
            ("'%x'.format([30])", "'1e'"),
            ("'%X'.format([30])", "'1E'"),
            ("'%x'.format([-30])", "'-1e'"),
            ("'%X'.format([6000u])", "'1770'"),
            ("'%x'.format(['Hi!'])", "'486921'"),
            ("'%X'.format([b'\\x00\\xff'])", "'00FF'"),
            ("'%x'.format(['é'])", "'c3a9'"),
        ],
    );
}

#[test]
fn format_errors_found_by_the_checker() {
    // A literal format string with a literal argument list is checked at compile time.
    check_table(
        STORED,
        &[
            (
                "'%d'.format([1.5])",
                "compile: error during formatting: decimal clause can only be used on integers, was given double",
            ),
            (
                "'%f'.format([1])",
                "compile: error during formatting: fixed-point clause can only be used on doubles, was given int",
            ),
            (
                "'%e'.format([true])",
                "compile: error during formatting: scientific clause can only be used on doubles, was given bool",
            ),
            (
                "'%b'.format(['x'])",
                "compile: error during formatting: only integers and bools can be formatted as binary, was given string",
            ),
            (
                "'%o'.format([1.0])",
                "compile: error during formatting: octal clause can only be used on integers, was given double",
            ),
            (
                "'%x'.format([1.0])",
                "compile: error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double",
            ),
            (
                "'%a'.format([1])",
                "compile: could not parse formatting clause: unrecognized formatting clause \"a\"",
            ),
            (
                "'%s %s'.format(['a', 'b', 'c'])",
                "compile: too many arguments supplied to string.format (expected 2, got 3)",
            ),
            ("'%s %s'.format(['a'])", "compile: index 1 out of range"),
            ("'trailing %'.format(['a'])", "compile: unexpected end of string"),
            (
                "'%.3'.format([1.0])",
                "compile: could not parse formatting clause: error while parsing precision: could not find end of precision specifier",
            ),
        ],
    );
}

#[test]
fn format_errors_at_runtime() {
    // `dyn(...)` hides the argument list from the validator: the same clauses fail when run.
    check_table(
        STORED,
        &[
            (
                "'%d'.format(dyn([1.5]))",
                "error: error during formatting: decimal clause can only be used on integers, was given double",
            ),
            (
                "'%f'.format(dyn(['abc']))",
                "error: error during formatting: fixed-point clause can only be used on doubles, was given string",
            ),
            (
                "'%x'.format(dyn([[1]]))",
                "error: error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given list",
            ),
            ("'%s %s'.format(dyn(['a']))", "error: index 1 out of range"),
            // The missing argument is reported before the dangling `%`.
            ("'%'.format(dyn([]))", "error: index 0 out of range"),
            ("'%'.format(dyn([1]))", "error: unexpected end of string"),
            (
                "'%q'.format(dyn([1]))",
                "error: could not parse formatting clause: unrecognized formatting clause \"q\"",
            ),
            (
                "'%.f'.format(dyn([1.0]))",
                "error: could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax",
            ),
            // Surplus arguments are ignored at runtime.
            ("'%s'.format(dyn(['a', 'b']))", "'a'"),
        ],
    );
}
