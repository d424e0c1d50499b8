//! Hostile one-line rules (issue 17, item 1): calls whose result can be far larger than their
//! cost. cel-go builds the result and then charges the call, so in the API server these either
//! succeed (Go's `strconv` prints any precision), end with "operation cancelled: actual cost
//! limit exceeded" after the memory is spent, or run the server out of memory. Here each ends
//! in a value or the cost-limit error, without a panic and without the memory.
//!
//! Every test here failed before the fix (checked by running it on the old sources under a
//! 4 GB memory limit): Rust's float formatter asserted `ndigits > 0` past precision 65,534;
//! `lists.range` of a huge count overflowed the capacity; `join` aborted on allocation;
//! `replace` built 100 MB and answered; list doubling aborted; `'%x'` doubling ran on
//! allocating for more than a minute.

mod support;

use serde_json::json;
use support::{check_table, eval_self, STORED};

const LIMIT: &str = "error: operation cancelled: actual cost limit exceeded";

#[test]
fn format_precision_past_the_float_formatters_assertion() {
    // Go prints every requested digit: the exact expansion, then zeros.
    check_table(
        STORED,
        &[
            // `%e`'s precision is x/text's width (cel-go `ext/formatting.go` builds `%<p>e`):
            // 13 runes padded with spaces to 65,535.
            ("'%.65535e'.format([1.0]).size()", "65535"),
            (
                "'%.65535e'.format([1.0]).endsWith(' 1.000000×10⁰⁰')",
                "true",
            ),
            ("'%.65535e'.format([1.0]).startsWith('    ')", "true"),
            ("'%.70000f'.format([2.5]).size()", "70002"),
            ("'%.70000f'.format([2.5]).startsWith('2.5000')", "true"),
        ],
    );
}

#[test]
fn format_string_from_the_object() {
    let schema = json!({"type": "object", "properties": {"f": {"type": "string"}}});
    for (f, want) in [
        ("%.65535e", "65535"),
        ("%.65536f", "65538"),
        // 10^11 digits: past the growth cap, cancelled before formatting.
        ("%.99999999999f", LIMIT),
        // Past Go's int: strconv.Atoi's error, as cel-go reports it.
        (
            "%.99999999999999999999f",
            "error: could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"99999999999999999999\": value out of range",
        ),
    ] {
        let got = eval_self(&schema, &json!({"f": f}), None, "self.f.format([1.0]).size()");
        assert_eq!(got, want, "{f}");
    }
}

#[test]
fn lists_range_past_the_cost_limit_allocates_nothing() {
    let start = std::time::Instant::now();
    check_table(
        STORED,
        &[
            ("lists.range(9223372036854775807).size()", LIMIT),
            ("lists.range(100000000).size()", LIMIT),
            // The limit is 1,000,000: the call costs n + 11.
            ("lists.range(999980).size()", "999980"),
            ("lists.range(-5).size()", "0"),
        ],
    );
    // Building 10^8 values (3.2 GB) took seconds before the cost was charged.
    assert!(start.elapsed().as_secs() < 20);
}

#[test]
fn replace_growth_is_capped() {
    let schema =
        json!({"type": "object", "properties": {"s": {"type": "string"}, "t": {"type": "string"}}});
    let object = json!({"s": "a".repeat(100_000), "t": "b".repeat(1_000)});
    let cases = [
        // 100,001 insertions of 1,000 bytes: 100 MB for a cost of 20,000.
        ("self.s.replace('', self.t).size()", LIMIT),
        // Repeated growth: 11^k bytes at each step.
        (
            "'a'.replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').size()",
            LIMIT,
        ),
        // Ordinary replacements are untouched.
        ("self.s.replace('a', 'bb', 3).size()", "100003"),
        ("self.t.replace('b', '').size()", "0"),
    ];
    for (rule, want) in cases {
        assert_eq!(eval_self(&schema, &object, None, rule), want, "{rule}");
    }
}

#[test]
fn join_charges_its_result_before_building_it() {
    let schema = json!({"type": "object", "properties": {"s": {"type": "string"}}});
    let object = json!({"s": "x".repeat(1 << 20)});
    // 10,000 copies of 1 MiB: cel-go builds 10 GB, then charges 0.2 per rune and cancels.
    assert_eq!(
        eval_self(
            &schema,
            &object,
            None,
            "lists.range(10000).map(i, self.s).join().size()"
        ),
        LIMIT
    );
    assert_eq!(
        eval_self(&schema, &object, None, "[self.s, self.s].join('-').size()"),
        "2097153"
    );
}

/// `[[1, 2]].map(a, a + a).map(a, a + a)...[0].size()`: 2^(n+1) elements.
fn doubling_lists(n: usize) -> String {
    format!("[[1, 2]]{}[0].size()", ".map(a, a + a)".repeat(n))
}

#[test]
fn list_concatenation_growth_is_capped() {
    // cel-go concatenates lists lazily at a cost of 1; here each `+` copies, so the doubling is
    // charged against the growth cap: 2^41 elements end in the cost-limit error, not an abort.
    check_table(
        STORED,
        &[(&doubling_lists(10), "2048"), (&doubling_lists(40), LIMIT)],
    );
}

/// `'%x'.format(['%x'.format([... 'ab' ...])])`: each level doubles the string at a cost of 1.
fn doubling_hex(n: usize) -> String {
    format!("{}'ab'{}.size()", "'%x'.format([".repeat(n), "])".repeat(n))
}

#[test]
fn format_argument_growth_is_capped() {
    check_table(
        STORED,
        &[(&doubling_hex(4), "32"), (&doubling_hex(40), LIMIT)],
    );
}
