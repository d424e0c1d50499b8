//! Table tests: one old/new snippet per kind of change, with the expected code, severity and
//! the line of each location.

use super::*;

/// A one-version CRD whose `spec` schema has `props` (indented 16 spaces, under
/// `properties:` of `spec`) and `extra` lines under the version.
fn crd(scope: &str, spec_extra: &str, props: &str) -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: {scope}
  names:
    plural: widgets
    singular: widget
    kind: Widget
    listKind: WidgetList
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
{spec_extra}            properties:
{props}"
    )
}

/// (code, severity, field, old line, new line) of a change.
type Row = (
    String,
    ChangeSeverity,
    Option<String>,
    Option<usize>,
    Option<usize>,
);

/// The rows of the shown changes.
fn run(old: &str, new: &str) -> Vec<Row> {
    diff_crds(old, new)
        .into_iter()
        .map(|c| {
            (
                c.code,
                c.severity,
                c.field,
                c.old.map(|l| l.span.start.line),
                c.new.map(|l| l.span.start.line),
            )
        })
        .collect()
}

fn one(
    old: &str,
    new: &str,
    code: &str,
    sev: ChangeSeverity,
    field: &str,
    old_line: usize,
    new_line: usize,
) {
    let got = run(old, new);
    let want = (
        format!("crd.change.{code}"),
        sev,
        Some(field.to_owned()),
        Some(old_line),
        Some(new_line),
    );
    assert!(got.contains(&want), "want {want:?}, got {got:?}");
}

const SIZE: &str = "              size:\n                type: integer\n";

#[test]
fn identical_texts_have_no_changes() {
    let a = crd("Namespaced", "", SIZE);
    assert_eq!(run(&a, &a), vec![]);
}

#[test]
fn table() {
    use ChangeSeverity::*;
    let base = crd("Namespaced", "", SIZE);
    // Field removed: old at the key, new at the parent.
    let cases: Vec<(String, String, &str, ChangeSeverity, &str, usize, usize)> = vec![
        (base.clone(), crd("Namespaced", "", "              other:\n                type: string\n"), "field-removed", Breaking, ".spec.size", 24, 21),
        (base.clone(), crd("Namespaced", "", "              size:\n                type: string\n"), "type-changed", Breaking, ".spec.size", 25, 25),
        (base.clone(), crd("Namespaced", "", "              size:\n                type: integer\n                maximum: 5\n"), "bound-added", Risky, ".spec.size", 24, 26),
        (crd("Namespaced", "", "              size:\n                type: integer\n                maximum: 10\n"), crd("Namespaced", "", "              size:\n                type: integer\n                maximum: 5\n"), "bound-tightened", Risky, ".spec.size", 26, 26),
        (crd("Namespaced", "", "              size:\n                type: integer\n                minimum: 10\n"), crd("Namespaced", "", "              size:\n                type: integer\n                minimum: 5\n"), "bound-loosened", Compatible, ".spec.size", 26, 26),
        (crd("Namespaced", "", "              m:\n                type: string\n                enum: [a, b]\n"), crd("Namespaced", "", "              m:\n                type: string\n                enum: [a]\n"), "enum-values-removed", Risky, ".spec.m", 26, 26),
        (crd("Namespaced", "", "              m:\n                type: string\n                pattern: a\n"), crd("Namespaced", "", "              m:\n                type: string\n                pattern: b\n"), "pattern-changed", Risky, ".spec.m", 26, 26),
        (crd("Namespaced", "", "              m:\n                type: string\n                nullable: true\n"), crd("Namespaced", "", "              m:\n                type: string\n"), "nullable-removed", Risky, ".spec.m", 26, 24),
        (base.clone(), crd("Namespaced", "", "              size:\n                type: integer\n                default: 1\n"), "default-added", Risky, ".spec.size", 24, 26),
        (base.clone(), crd("Namespaced", "            required: [size]\n", SIZE), "required-added", Risky, ".spec", 21, 23),
        (base.clone(), crd("Namespaced", "            x-kubernetes-preserve-unknown-fields: true\n", SIZE), "preserve-unknown-fields-changed", Compatible, ".spec", 21, 23),
        (crd("Namespaced", "            x-kubernetes-map-type: atomic\n", SIZE), base.clone(), "map-type-changed", Risky, ".spec", 23, 21),
        (base.clone(), crd("Namespaced", "            x-kubernetes-validations:\n            - rule: self.size > 0\n", SIZE), "rule-added", Risky, ".spec", 21, 24),
        (base.clone(), crd("Namespaced", "", "              size:\n                type: integer\n              extra:\n                type: string\n"), "field-added", Compatible, ".spec.extra", 21, 26),
        (base.clone(), crd("Namespaced", "            required: [extra]\n", "              size:\n                type: integer\n              extra:\n                type: string\n"), "required-field-added", Risky, ".spec.extra", 21, 27),
        (crd("Namespaced", "", "              l:\n                type: array\n                x-kubernetes-list-type: atomic\n                items: {type: string}\n"), crd("Namespaced", "", "              l:\n                type: array\n                x-kubernetes-list-type: set\n                items: {type: string}\n"), "list-type-changed", Risky, ".spec.l", 26, 26),
    ];
    for (old, new, code, sev, field, ol, nl) in cases {
        one(&old, &new, code, sev, field, ol, nl);
    }
}

#[test]
fn crd_level_changes() {
    use ChangeSeverity::*;
    let base = crd("Namespaced", "", SIZE);
    let got = run(&base, &crd("Cluster", "", SIZE));
    assert_eq!(
        got,
        vec![(
            "crd.change.scope-changed".to_owned(),
            Breaking,
            None,
            Some(7),
            Some(7)
        )]
    );
    let renamed = base.replace("- name: v1", "- name: v2");
    let got = run(&base, &renamed);
    assert!(
        got.iter()
            .any(|c| c.0 == "crd.change.version-removed" && c.1 == Breaking && c.3 == Some(14)),
        "{got:?}"
    );
    assert!(
        got.iter()
            .any(|c| c.0 == "crd.change.version-added" && c.1 == Compatible && c.4 == Some(14)),
        "{got:?}"
    );
    let unserved = base.replace("served: true", "served: false");
    let got = run(&base, &unserved);
    assert_eq!(
        got,
        vec![(
            "crd.change.version-unserved".to_owned(),
            Breaking,
            None,
            Some(15),
            Some(15)
        )]
    );
}

#[test]
fn rule_cost_increase_uses_the_estimator() {
    let rule = |max: &str| {
        crd(
            "Namespaced",
            "",
            &format!("              s:\n                type: string\n{max}                x-kubernetes-validations:\n                - rule: self.matches('^a+$')\n"),
        )
    };
    let got = diff_crds_detailed(Some(&rule("                maxLength: 10\n")), &rule(""));
    let cost = got
        .iter()
        .find(|d| d.change.code == "crd.change.rule-cost-increased")
        .expect("cost change");
    let (a, b) = (
        cost.before.as_ref().and_then(Json::as_u64).unwrap(),
        cost.after.as_ref().and_then(Json::as_u64).unwrap(),
    );
    assert!(b > a, "{a} -> {b}");
}

#[test]
fn conventions_ratchet() {
    let flag = "              flag:\n                type: boolean\n";
    let with_flag = crd("Namespaced", "", &format!("{SIZE}{flag}"));
    let base = crd("Namespaced", "", SIZE);
    assert!(run(&base, &with_flag)
        .iter()
        .any(|c| c.0 == "crd.change.convention-boolean"));
    assert!(!run(&with_flag, &with_flag)
        .iter()
        .any(|c| c.0 == "crd.change.convention-boolean"));
}

#[test]
fn not_a_crd_gives_nothing() {
    assert!(diff_crds("a: [", "b: {").is_empty());
}
