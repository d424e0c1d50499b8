//! Hostile one-line CEL rules through `analyze` (issue 17, item 1): each ends in a clear
//! finding (the rule's own verdict, the server's cost-limit text or the CRD's estimated-cost
//! error) within a generous time, with no panic and no runaway allocation. Before the fix the
//! format precisions panicked in Rust's float formatter and the growth cases built gigabytes.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::time::{Duration, Instant};

use crd_studio_engine::{analyze, Analysis, Request};

fn crd(rule: &str) -> String {
    format!(
        r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {{plural: widgets, singular: widget, kind: Widget}}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-validations:
                - rule: {rule:?}
                  message: hostile rule failed
              properties:
                f: {{type: string, maxLength: 40}}
                s: {{type: string, maxLength: 200000}}
                t: {{type: string, maxLength: 2000}}
                count: {{type: integer}}
"#
    )
}

fn run(rule: &str, spec: &str) -> (Analysis, Duration) {
    let start = Instant::now();
    let a = analyze(&Request {
        crd: crd(rule),
        objects: vec![format!(
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec: {spec}\n"
        )],
        ..Request::default()
    });
    (a, start.elapsed())
}

fn messages(a: &Analysis) -> Vec<String> {
    a.findings.iter().map(|f| f.message.clone()).collect()
}

const CALL_LIMIT: &str =
    "no further validation rules will be run due to call cost exceeds limit for rule";

#[test]
fn hostile_rules_end_in_clear_findings() {
    let long_s = "a".repeat(100_000);
    let long_t = "b".repeat(1_000);
    let cases: Vec<(String, String, &str)> = vec![
        // Go prints all 65,535 digits: the rule is evaluated and fails as written.
        (
            "'%.65535e'.format([1.0]).size() == 0".into(),
            "{}".into(),
            "spec: Invalid value: hostile rule failed",
        ),
        (
            "self.f.format([1.0]).size() == 0".into(),
            "{f: '%.65535e'}".into(),
            "spec: Invalid value: hostile rule failed",
        ),
        // 10^11 digits: the cost limit, before the memory.
        (
            "self.f.format([1.0]).size() == 0".into(),
            "{f: '%.99999999999f'}".into(),
            CALL_LIMIT,
        ),
        // 100 MB built for a cost of 20,000.
        (
            "self.s.replace('', self.t).size() == 0".into(),
            format!("{{s: {long_s}, t: {long_t}}}"),
            CALL_LIMIT,
        ),
        // Repeated growth.
        (
            "'a'.replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').size() == 0".into(),
            "{}".into(),
            CALL_LIMIT,
        ),
        // Doubling at a cost of 1 per step: hex formatting, list concatenation.
        (
            format!(
                "{}'ab'{}.size() == 0",
                "'%x'.format([".repeat(40),
                "])".repeat(40)
            ),
            "{}".into(),
            CALL_LIMIT,
        ),
        (
            format!("[[1, 2]]{}[0].size() == 0", ".map(a, a + a)".repeat(40)),
            "{}".into(),
            CALL_LIMIT,
        ),
        // lists.range of an unbounded count never compiles (its estimated cost).
        (
            "lists.range(self.count).size() == 0".into(),
            "{count: 9223372036854775807}".into(),
            "estimated rule cost exceeds budget",
        ),
    ];
    for (rule, spec, want) in cases {
        let (a, took) = run(&rule, &spec);
        let m = messages(&a);
        assert!(
            m.iter().any(|m| m.contains(want)),
            "{rule}: want {want:?} in {m:#?}"
        );
        assert!(took < Duration::from_secs(30), "{rule}: {took:?}");
    }
}
