//! Timestamps parsed by Go's `time.Parse` in CEL: the `timestamp()` conversion and its compile-
//! time literal check (cel-go `common/types/string.go` `String.ConvertToType` with
//! `time.RFC3339`, `cel/validator.go` `ValidateTimestampLiterals`), and the `date` / `date-time`
//! string formats bound as timestamps (Kubernetes
//! `staging/src/k8s.io/apiserver/pkg/cel/common/valuesunstructured.go` `UnstructuredToVal`:
//! `time.Parse(strfmt.RFC3339FullDate, …)` and kube-openapi `strfmt.ParseDateTime`, which tries
//! its five `dateTimeFormats` in order (`pkg/validation/strfmt/time.go`: `RFC3339Micro`,
//! `RFC3339Millis`, `time.RFC3339`, `time.RFC3339Nano`, `ISO8601LocalTime`) and returns the
//! last layout's error). Error texts follow Go
//! `src/time/format.go` (`parse`, `ParseError.Error`, the time package's `quote`).

mod support;

use serde_json::json;
use support::{check_self_table, check_table, STORED};

#[test]
fn timestamp_conversion_uses_go_layout_parser() {
    check_table(
        STORED,
        &[
            // Go's general parser (after the fast RFC 3339 path fails) reads `15` as one or two
            // digits and takes a comma before the fraction.
            (
                "timestamp('2023-01-01T1:02:03Z') == timestamp('2023-01-01T01:02:03Z')",
                "true",
            ),
            (
                "timestamp('2023-01-01T01:02:03,25Z') == timestamp('2023-01-01T01:02:03.25Z')",
                "true",
            ),
            // Offsets up to 24 hours are read (the range check is `hr > 24`).
            (
                "timestamp('2023-01-01T00:00:00+24:00') == timestamp('2022-12-31T00:00:00Z')",
                "true",
            ),
            // Rejected literals fail the compile-time check...
            (
                "timestamp('2023-01-01T01:02:03+25:00')",
                "compile: invalid timestamp argument",
            ),
            (
                "timestamp('2023-01-01 01:02:03Z')",
                "compile: invalid timestamp argument",
            ),
            // ...and, computed at runtime, the conversion error (no Go text: cel-go drops it).
            (
                "timestamp('2023-01-01 01:02:03Z' + '')",
                "error: type conversion error from 'string' to 'google.protobuf.Timestamp'",
            ),
        ],
    );
}

#[test]
fn date_format_errors() {
    let schema = json!({"type": "string", "format": "date"});
    let check = |value: &str, want: &str| {
        check_self_table(&schema, &json!(value), None, &[("self", want)]);
    };
    let ok = |value: &str, rule: &str| {
        check_self_table(&schema, &json!(value), None, &[(rule, "true")]);
    };
    ok("2023-02-28", "self == timestamp('2023-02-28T00:00:00Z')");
    check(
        "2023-02-30",
        r#"error: Invalid date formatted string 2023-02-30: parsing time "2023-02-30": day out of range"#,
    );
    check(
        "2023-13-01",
        r#"error: Invalid date formatted string 2023-13-01: parsing time "2023-13-01": month out of range"#,
    );
    check(
        "2023/01/01",
        r#"error: Invalid date formatted string 2023/01/01: parsing time "2023/01/01" as "2006-01-02": cannot parse "/01/01" as "-""#,
    );
    check(
        "2023-1-01",
        r#"error: Invalid date formatted string 2023-1-01: parsing time "2023-1-01" as "2006-01-02": cannot parse "1-01" as "01""#,
    );
    check(
        "2023-01-01T00:00:00Z",
        r#"error: Invalid date formatted string 2023-01-01T00:00:00Z: parsing time "2023-01-01T00:00:00Z": extra text: "T00:00:00Z""#,
    );
}

#[test]
fn date_time_format_errors_name_the_last_layout() {
    let schema = json!({"type": "string", "format": "date-time"});
    let check = |value: &str, want: &str| {
        check_self_table(&schema, &json!(value), None, &[("self", want)]);
    };
    // The last layout is `ISO8601LocalTime` ("2006-01-02T15:04:05"): a zone after the seconds
    // is extra text, a space for the `T` cannot be parsed (go-openapi's longer list, with
    // `ISO8601TimeUniversalSortableDateTimePattern` last, is not Kubernetes').
    check(
        "2023-01-01T01:02:03.5+0100",
        r#"error: Invalid date-time formatted string 2023-01-01T01:02:03.5+0100: parsing time "2023-01-01T01:02:03.5+0100": extra text: "+0100""#,
    );
    check(
        "2023-01-01 25:00:00",
        r#"error: Invalid date-time formatted string 2023-01-01 25:00:00: parsing time "2023-01-01 25:00:00" as "2006-01-02T15:04:05": cannot parse " 25:00:00" as "T""#,
    );
    check(
        "2023-01-01 01:02",
        r#"error: Invalid date-time formatted string 2023-01-01 01:02: parsing time "2023-01-01 01:02" as "2006-01-02T15:04:05": cannot parse " 01:02" as "T""#,
    );
    check(
        "2023-04-31T01:02:03",
        r#"error: Invalid date-time formatted string 2023-04-31T01:02:03: parsing time "2023-04-31T01:02:03": day out of range"#,
    );
    check(
        "2023-01-01T01:02",
        r#"error: Invalid date-time formatted string 2023-01-01T01:02: parsing time "2023-01-01T01:02" as "2006-01-02T15:04:05": cannot parse "" as ":""#,
    );
    let ok = |value: &str, rule: &str| {
        check_self_table(&schema, &json!(value), None, &[(rule, "true")]);
    };
    // RFC3339Micro, the first layout.
    ok(
        "2023-01-01T01:02:03.123456+01:00",
        "self == timestamp('2023-01-01T00:02:03.123456Z')",
    );
    // `ParseDateTime("")` is `NewDateTime()`, the Unix epoch (`time.Unix(0, 0).UTC()`).
    ok("", "self == timestamp(0)");
    // ISO8601LocalTime with an undeclared fraction (Go reads it after the seconds).
    ok(
        "2023-01-01T01:02:03.5",
        "self == timestamp('2023-01-01T01:02:03.5Z')",
    );
}
