//! Hostile input (issue 17): the classic cases (billion laughs, merge-key loops, NUL bytes, a
//! BOM, 1e400, 2^64, deeply nested CEL, 5,000 rules, a huge messageExpression result) and texts
//! built to make the engine spend unbounded time or memory end in a clear finding (or a result)
//! within a generous deadline. Each case runs in a thread and
//! the test fails when the thread has not answered by its deadline; the times are printed
//! (`cargo test -- --nocapture`), never asserted.
//!
//! # The bounds these cases exercise (each past its bound ends in a finding, never runs on)
//!
//! - Every text (CRD, object file, old object) at most 3 MiB (`MAX_REQUEST_BYTES`, the
//!   server's `Request entity too large`; the CLI reads one byte past it, no more). The number
//!   of objects per call is bounded only by that (each object is analysed within the
//!   per-object CEL budget); a share link expands to at most 16 MiB.
//! - Nesting: documents nest at most 512 levels (`studio.too-deep`; the browser's call stack is
//!   the limit, not the server's 10,000; reading stops there, since libyaml's scanner works
//!   per open flow level on every token, so a million `[` would take quadratic time); schema
//!   walks stop at `MAX_VALIDATION_DEPTH`, 512.
//! - Aliases: go-yaml's alias-expansion ratio on nodes, and ours on bytes: aliases may add at
//!   most 24 MiB (8 × the request limit; etcd stores nothing over 1.5 MiB anyway) to a
//!   document, checked at the alias before copying (`studio.alias-expansion`).
//! - Lookups per schema property go through maps, never a scan of the text's `properties`
//!   (100,000 properties in a few seconds).
//! - CEL as the server: per-expression estimated cost 10⁷ and per CRD 10⁸
//!   (`STATIC_ESTIMATED_*_COST_LIMIT`), per call 10⁶ (`PER_CALL_LIMIT`) and per object 10⁷
//!   (`RUNTIME_CEL_COST_BUDGET`) at run time; string and list growth capped at 64 MiB
//!   (`MAX_GROWTH_BYTES`).
//! - Regular expressions search in linear time natively (the lazy DFA, a 16 MiB cache per
//!   expression). The browser's wasm is built without the lazy DFA (payload budget;
//!   `crates/gostd/Cargo.toml`): there every search is the NFA simulation, in the Web Worker,
//!   which the user can stop. A pattern whose NFA is estimated past 150,000 states runs the
//!   NFA simulation, bounded at 2·10¹⁰ text bytes × NFA bytes unless anchored at the start;
//!   past 600,000 states (or past a schema's budget of 2,000,000 states for all its patterns,
//!   `PATTERN_STATES_BUDGET`) it is not built: valid in Go, it cannot be evaluated here and
//!   accepts every value, and the object gets a `studio.pattern-not-evaluated` note naming the
//!   pattern (the same for a search past its work bound; `matches` gives `regular expression
//!   too complex to evaluate`). A schema's patterns are compiled on first use, once per
//!   distinct text; CRD validation only parses them. A CEL pattern taken from the object is
//!   compiled once per call site while it stays the same.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crd_studio_engine::{analyze, Analysis, Request};

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
";

const OBJECT: &str =
    "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {p1: x}\n";

/// Runs `f` in a thread; panics when it has not finished within `deadline`.
fn within<T: Send + 'static>(
    name: &str,
    deadline: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(deadline) {
        Ok(v) => {
            println!("{name}: {:.2?}", start.elapsed());
            v
        }
        Err(_) => panic!("{name}: no answer within {deadline:?}"),
    }
}

fn run(crd: String, object: String) -> Analysis {
    analyze(&Request {
        crd,
        objects: vec![object],
        ..Request::default()
    })
}

fn codes(a: &Analysis) -> Vec<String> {
    a.findings.iter().map(|f| f.code.clone()).collect()
}

/// A 1 MB scalar aliased 4,000 times: 4 GB if expanded. Few alias nodes, so go-yaml's alias
/// ratio passes it; the byte bound stops it at the alias, before the copies.
fn scalar_alias_bomb() -> String {
    let mut text = String::from("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\n");
    text.push_str("spec:\n  s: &a \"");
    text.push_str(&"x".repeat(1_000_000));
    text.push_str("\"\n  l: [");
    text.push_str(&vec!["*a"; 4_000].join(","));
    text.push_str("]\n");
    text
}

#[test]
fn scalar_alias_amplification_is_refused_at_the_alias() {
    for as_crd in [false, true] {
        let text = scalar_alias_bomb();
        let a = within(
            if as_crd {
                "scalar alias bomb as CRD"
            } else {
                "scalar alias bomb as object"
            },
            Duration::from_secs(60),
            move || {
                if as_crd {
                    run(text, OBJECT.to_owned())
                } else {
                    run(CRD.to_owned(), text)
                }
            },
        );
        let f = a
            .findings
            .iter()
            .find(|f| f.code == "studio.alias-expansion")
            .unwrap_or_else(|| panic!("no alias finding: {:?}", codes(&a)));
        assert!(
            f.message.contains("25165824 bytes"),
            "the finding names the limit: {}",
            f.message
        );
        // Located at the alias that crosses the limit (line 6: `l: [*a,*a,...]`).
        let span = f.location.as_ref().unwrap().span;
        assert_eq!(span.start.line, 6);
        assert!(span.start.column > 5);
        assert!(!a.accepted());
    }
}

#[test]
fn the_alias_bound_holds_for_the_whole_text() {
    // Forty documents, each 1 KB aliased 1,000 times (1 MB): the text's total is bounded, not
    // each document's.
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&format!(
            "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: a{i}}}\nspec:\n  s: &a \"{}\"\n  l: [{}]\n",
            "x".repeat(1_000),
            vec!["*a"; 1_000].join(",")
        ));
    }
    let a = within(
        "40 documents of 1 MB aliases",
        Duration::from_secs(120),
        move || run(CRD.to_owned(), text),
    );
    let refused = a
        .findings
        .iter()
        .filter(|f| f.code == "studio.alias-expansion")
        .count();
    // 24 documents fit in 24 MiB; the later ones are refused.
    assert!((10..40).contains(&refused), "{refused}: {:?}", codes(&a));
}

#[test]
fn aliases_within_the_bound_still_expand() {
    // 100 KB aliased 100 times: 10 MB, under the 24 MiB bound.
    let mut text = String::from("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\n");
    text.push_str("spec:\n  s: &a \"");
    text.push_str(&"x".repeat(100_000));
    text.push_str("\"\n  l: [");
    text.push_str(&vec!["*a"; 100].join(","));
    text.push_str("]\n");
    let a = within("10 MB of aliases", Duration::from_secs(120), move || {
        run(CRD.to_owned(), text)
    });
    assert!(
        !codes(&a).iter().any(|c| c == "studio.alias-expansion"),
        "{:?}",
        codes(&a)
    );
}

#[test]
fn a_million_flow_levels_stop_at_the_depth_limit() {
    let levels = 1_000_000;
    let head = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: ";
    let seq = format!("{head}{}{}\n", "[".repeat(levels), "]".repeat(levels));
    let map = format!(
        "{head}{}1{}\n",
        "{\"a\":".repeat(levels / 3),
        "}".repeat(levels / 3)
    );
    for (name, text) in [("1,000,000 x [", seq), ("333,333 x {\"a\":", map)] {
        for as_crd in [false, true] {
            let text = text.clone();
            let a = within(name, Duration::from_secs(60), move || {
                if as_crd {
                    run(text, OBJECT.to_owned())
                } else {
                    run(CRD.to_owned(), text)
                }
            });
            let f = a
                .findings
                .iter()
                .find(|f| f.code == "studio.too-deep")
                .unwrap_or_else(|| panic!("{name}: no depth finding: {:?}", codes(&a)));
            assert!(f.message.contains("512"), "{}", f.message);
            assert_eq!(f.location.as_ref().unwrap().span.start.line, 4);
            assert!(!a.accepted());
        }
    }
}

/// A CRD whose `spec` has `n` string properties (flow style, about 24 bytes each) and two
/// rules on `spec`.
fn wide_crd(n: usize) -> String {
    let props: Vec<String> = (0..n).map(|i| format!("p{i}: {{type: string}}")).collect();
    CRD.replace(
        "        x-kubernetes-preserve-unknown-fields: true\n",
        &format!(
            "        properties:\n          spec:\n            type: object\n            \
             x-kubernetes-validations: [{{rule: \"self.p1 == 'x'\"}}, \
             {{rule: \"!has(self.p2) || self.p2.size() < 20\"}}]\n            \
             properties: {{{}}}\n",
            props.join(", ")
        ),
    )
}

#[test]
fn wide_schemas_take_linear_time() {
    // 100,000 properties took more than 20 s (a scan of the text's `properties` per
    // property); now about 4 s in a release build and 10 s in a debug build. The deadline is
    // generous; the quadratic version needed minutes.
    for n in [10_000, 100_000] {
        let crd = wide_crd(n);
        let a = within(
            &format!("{n} properties ({} bytes)", crd.len()),
            Duration::from_secs(120),
            move || run(crd, OBJECT.to_owned()),
        );
        assert!(a.crd.accepted, "{:?}", a.crd.errors.first());
        assert!(a.accepted(), "{:?}", codes(&a));
        // Both rules are listed with their places in the text.
        let rules = &a.versions[0].rules;
        assert_eq!(rules.len(), 2);
        assert!(rules.iter().all(|r| r.line == Some(19)));
    }
}

/// A CRD whose `spec.s` has `schema` (flow-style JSON) and an object whose `s` is `value`.
fn string_case(schema: &str, value: &str) -> (String, String) {
    let crd = CRD.replace(
        "        x-kubernetes-preserve-unknown-fields: true\n",
        &format!(
            "        properties:\n          spec:\n            type: object\n            \
             properties: {{s: {schema}}}\n"
        ),
    );
    let object = format!(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: a}}\nspec: {{s: \"{value}\"}}\n"
    );
    (crd, object)
}

#[test]
fn patterns_and_matches_on_3_mb_take_linear_time() {
    // Item 5: the `regex` crate ran without its lazy DFA, so a repeated class searched a 3 MB
    // value in the NFA simulation: `[\w\W]{500}b` took minutes (more than 20 s in the
    // release build). Now each case takes well under a second in a release build.
    let big = "a".repeat(3_000_000);
    let cases = [
        (
            "pattern [\\w\\W]{500}b",
            r#"{type: string, pattern: '[\w\W]{500}b'}"#,
            "spec.s in body should match '[\\w\\W]{500}b'",
        ),
        (
            "pattern ^[\\p{L}\\p{N}]{0,1000}b",
            r#"{type: string, pattern: '^[\p{L}\p{N}]{0,1000}b'}"#,
            "spec.s in body should match '^[\\p{L}\\p{N}]{0,1000}b'",
        ),
        (
            "matches [\\w\\W]{500}b",
            r#"{type: string, x-kubernetes-validations: [{rule: "self.matches('[\\\\w\\\\W]{500}b')"}]}"#,
            "failed rule: self.matches('[\\\\w\\\\W]{500}b')",
        ),
    ];
    for (name, schema, want) in cases {
        let (crd, object) = string_case(schema, &big);
        let a = within(name, Duration::from_secs(120), move || run(crd, object));
        assert!(a.crd.accepted, "{name}: {:?}", a.crd.errors.first());
        assert!(
            a.findings.iter().any(|f| f.message.contains(want)),
            "{name}: {:?}",
            a.findings.iter().map(|f| &f.message).collect::<Vec<_>>()
        );
        assert!(!a.accepted());
    }
}

#[test]
fn many_patterns_compile_once_each_within_a_budget() {
    // Item 5: 5,000 properties sharing one pattern compile it once; 100 distinct patterns of a
    // Unicode class repeated 1,000 times (one instruction each in Go, some 300,000 NFA states
    // here, a third of a second and 15 MB each) stop compiling at the schema's pattern budget
    // instead of taking minutes and gigabytes.
    let same: Vec<String> = (0..5_000)
        .map(|i| format!("p{i}: {{type: string, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'}}"))
        .collect();
    let big: Vec<String> = (0..100)
        .map(|i| format!("q{i}: {{type: string, pattern: '^[\\p{{L}}\\p{{N}}]{{1,1000}}{i}$'}}"))
        .collect();
    let crd = CRD.replace(
        "        x-kubernetes-preserve-unknown-fields: true\n",
        &format!(
            "        properties:\n          spec:\n            type: object\n            \
             properties: {{{}, {}}}\n",
            same.join(", "),
            big.join(", ")
        ),
    );
    let mut fields: Vec<String> = (0..5_000).map(|i| format!("p{i}: ab{i}")).collect();
    fields.extend((0..100).map(|i| format!("q{i}: ab{i}")));
    fields.push("p0: Bad".to_owned());
    fields.swap_remove(0);
    let object = format!(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: a}}\nspec: {{{}}}\n",
        fields.join(", ")
    );
    let a = within("5,100 patterns", Duration::from_secs(120), move || {
        run(crd, object)
    });
    assert!(a.crd.accepted, "{:?}", a.crd.errors.first());
    let bad: Vec<&str> = a
        .findings
        .iter()
        .filter(|f| f.message.contains("should match"))
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        bad,
        ["spec.p0: Invalid value: \"Bad\": spec.p0 in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'"]
    );
    // The patterns past the budget were not evaluated: each says so, once, as a note.
    let skipped: Vec<&str> = a
        .findings
        .iter()
        .filter(|f| f.code == "studio.pattern-not-evaluated")
        .map(|f| f.message.as_str())
        .collect();
    assert!(
        !skipped.is_empty() && skipped.len() < 100,
        "{}",
        skipped.len()
    );
    assert!(
        skipped
            .iter()
            .all(|m| m.starts_with("pattern '^[\\p{L}\\p{N}]{1,1000}")
                && m.contains("the server checks them")),
        "{skipped:?}"
    );
    let mut distinct = skipped.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), skipped.len());
}

/// A CRD whose `spec` has an integer `x`, a string `s` and `rules` (YAML flow mappings, one
/// a line).
fn rules_crd(rules: &[String]) -> String {
    CRD.replace(
        "        x-kubernetes-preserve-unknown-fields: true\n",
        &format!(
            "        properties:\n          spec:\n            type: object\n            \
             properties: {{x: {{type: integer}}, s: {{type: string}}}}\n            \
             x-kubernetes-validations:\n{}",
            rules
                .iter()
                .map(|r| format!("            - {r}\n"))
                .collect::<String>()
        ),
    )
}

fn object(spec: &str) -> String {
    format!("apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: a}}\nspec: {spec}\n")
}

#[test]
fn the_classic_hostile_inputs_end_in_located_findings() {
    // Billion laughs: nine levels of ten aliases each (10^9 nodes if expanded).
    let mut laughs = String::from("a0: &a0 [lol]\n");
    for i in 1..10 {
        laughs.push_str(&format!(
            "a{i}: &a{i} [{}]\n",
            vec![format!("*a{}", i - 1); 10].join(",")
        ));
    }
    let laughs = format!(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: a}}\nspec:\n{}",
        laughs
            .lines()
            .map(|l| format!("  {l}\n"))
            .collect::<String>()
    );
    let deep_cel = |n: usize| format!("{}1{} == 1", "(".repeat(n), ")".repeat(n));
    let many_rules: Vec<String> = (0..5_000)
        .map(|i| format!("{{rule: \"self.x != {i}\"}}"))
        .collect();
    // `None`: the verdict is not asserted, only that the analysis ends in time.
    let cases: Vec<(&str, String, String, Option<bool>)> = vec![
        ("billion laughs", CRD.to_owned(), laughs, Some(false)),
        (
            "merge-key loop",
            CRD.to_owned(),
            object("&a {b: 1, <<: *a}"),
            Some(false),
        ),
        ("NUL byte", CRD.to_owned(), object("{s: \"a\u{0}b\"}\n\u{0}"), Some(false)),
        ("BOM", CRD.to_owned(), format!("\u{feff}{}", object("{s: a}")), Some(true)),
        (
            "1e400 in JSON",
            CRD.to_owned(),
            r#"{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "a"}, "spec": {"num": 1e400}}"#.to_owned(),
            None,
        ),
        ("2^64", CRD.to_owned(), object("{num: 18446744073709551616}"), Some(true)),
        (
            "120 nested parentheses (under cel-go's 250 levels)",
            rules_crd(&[format!("{{rule: \"{}\"}}", deep_cel(120))]),
            object("{x: 1}"),
            Some(true),
        ),
        (
            "251 nested parentheses",
            rules_crd(&[format!("{{rule: \"{}\"}}", deep_cel(251))]),
            object("{x: 1}"),
            Some(false),
        ),
        (
            "10,000 nested parentheses",
            rules_crd(&[format!("{{rule: \"{}\"}}", deep_cel(10_000))]),
            object("{x: 1}"),
            Some(false),
        ),
        ("5,000 rules", rules_crd(&many_rules), object("{x: 4999}"), Some(false)),
        (
            "huge messageExpression",
            rules_crd(&["{rule: \"false\", messageExpression: \"self.s + self.s\"}".to_owned()]),
            object(&format!("{{s: \"{}\"}}", "y".repeat(1_000_000))),
            Some(false),
        ),
    ];
    for (name, crd, object, accepted) in cases {
        let a = within(name, Duration::from_secs(120), move || run(crd, object));
        let Some(accepted) = accepted else {
            println!("  {name}: accepted {}", a.accepted());
            continue;
        };
        assert_eq!(a.accepted(), accepted, "{name}: {:?}", codes(&a));
        if !accepted {
            let errors: Vec<_> = a
                .findings
                .iter()
                .filter(|f| f.severity == crd_studio_engine::Severity::Error)
                .collect();
            assert!(!errors.is_empty(), "{name}: no error finding");
            assert!(
                errors.iter().all(|f| f.location.is_some()),
                "{name}: a finding without a location: {:?}",
                errors.iter().map(|f| &f.message).collect::<Vec<_>>()
            );
            println!(
                "  {name}: {}",
                errors[0].message.chars().take(160).collect::<String>()
            );
        }
    }
}
