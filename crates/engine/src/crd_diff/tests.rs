//! Table tests: one old/new snippet per kind of change, with the expected code, severity and
//! the line of each location.

use super::*;

const K: KubernetesVersion = KubernetesVersion::DEFAULT;

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
    diff_crds(old, new, K)
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
        (base.clone(), crd("Namespaced", "            required: [size]\n", SIZE), "required-added", Breaking, ".spec", 21, 23),
        (base.clone(), crd("Namespaced", "            x-kubernetes-preserve-unknown-fields: true\n", SIZE), "preserve-unknown-fields-changed", Compatible, ".spec", 21, 23),
        (crd("Namespaced", "            x-kubernetes-map-type: atomic\n", SIZE), base.clone(), "map-type-changed", Risky, ".spec", 23, 21),
        (base.clone(), crd("Namespaced", "            x-kubernetes-validations:\n            - rule: self.size > 0\n", SIZE), "rule-added", Risky, ".spec", 21, 24),
        (base.clone(), crd("Namespaced", "", "              size:\n                type: integer\n              extra:\n                type: string\n"), "field-added", Compatible, ".spec.extra", 21, 26),
        (base.clone(), crd("Namespaced", "            required: [extra]\n", "              size:\n                type: integer\n              extra:\n                type: string\n"), "required-field-added", Breaking, ".spec.extra", 21, 27),
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
    let got = diff_crds_detailed(Some(&rule("                maxLength: 10\n")), &rule(""), K);
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
fn rule_costs_come_from_the_selected_servers_cel_environment() {
    // `isIP` is in the CEL environment from compatibility version 1.30 (the 1.31 server).
    let rule = |max: &str| {
        crd(
            "Namespaced",
            "",
            &format!("              s:\n                type: string\n{max}                x-kubernetes-validations:\n                - rule: isIP(self)\n"),
        )
    };
    let (old, new) = (rule("                maxLength: 10\n"), rule(""));
    let cost_change = |kube: KubernetesVersion| {
        diff_crds_detailed(Some(&old), &new, kube)
            .into_iter()
            .any(|d| d.change.code == "crd.change.rule-cost-increased")
    };
    assert!(cost_change(KubernetesVersion::parse("1.31").unwrap()));
    assert!(cost_change(K));
    // A 1.30 server does not compile the rule: no estimate to compare.
    assert!(!cost_change(KubernetesVersion::parse("1.30").unwrap()));
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
    assert!(diff_crds("a: [", "b: {", K).is_empty());
}

/// The change with `code` exists with `sev`, located in both texts.
fn has(old: &str, new: &str, code: &str, sev: ChangeSeverity) {
    let got = diff_crds(old, new, K);
    let found = got
        .iter()
        .find(|c| c.code == format!("crd.change.{code}"))
        .unwrap_or_else(|| panic!("no {code} in {got:#?}"));
    assert_eq!(found.severity, sev, "{code}: {found:#?}");
    let (o, n) = (
        found.old.expect("old location"),
        found.new.expect("new location"),
    );
    assert_eq!(o.source, SourceId::OldCrd);
    assert_eq!(n.source, SourceId::Crd);
    assert!(o.span.start.line > 0 && n.span.start.line > 0);
}

fn prop(extra: &str) -> String {
    crd(
        "Namespaced",
        "",
        &format!("              m:\n                type: string\n{extra}"),
    )
}

#[test]
fn every_keyword_change_kind() {
    use ChangeSeverity::*;
    let k = |s: &str| format!("                {s}\n");
    let rows: Vec<(String, String, &str, ChangeSeverity)> = vec![
        (
            prop(""),
            prop(&k("format: date-time")),
            "format-changed",
            Risky,
        ),
        (
            prop(&k("format: date-time")),
            prop(""),
            "format-changed",
            Compatible,
        ),
        (
            prop(&k("default: a")),
            prop(&k("default: b")),
            "default-changed",
            Risky,
        ),
        (prop(&k("default: a")), prop(""), "default-removed", Risky),
        (prop(""), prop(&k("enum: [a]")), "enum-added", Risky),
        (
            prop(&k("enum: [a]")),
            prop(&k("enum: [a, b]")),
            "enum-values-added",
            Compatible,
        ),
        (prop(&k("enum: [a]")), prop(""), "enum-removed", Compatible),
        (prop(""), prop(&k("pattern: ^a$")), "pattern-added", Risky),
        (
            prop(&k("pattern: ^a$")),
            prop(""),
            "pattern-removed",
            Compatible,
        ),
        (
            prop(""),
            prop(&k("nullable: true")),
            "nullable-added",
            Compatible,
        ),
        (
            prop(&k("description: a")),
            prop(&k("description: b")),
            "description-changed",
            Compatible,
        ),
        (prop(""), prop(&k("title: t")), "doc-changed", Compatible),
        (prop(""), prop(&k("maxLength: 3")), "bound-added", Risky),
        (
            prop(&k("maxLength: 3")),
            prop(""),
            "bound-removed",
            Compatible,
        ),
        (
            prop(&k("minLength: 3")),
            prop(&k("minLength: 4")),
            "bound-tightened",
            Risky,
        ),
        (
            prop(&k("maximum: 3")),
            prop(&k("maximum: 3\n                exclusiveMaximum: true")),
            "bound-tightened",
            Risky,
        ),
        (
            prop(""),
            prop(&k("multipleOf: 2")),
            "multiple-of-changed",
            Risky,
        ),
        (
            prop(""),
            prop(&k("uniqueItems: true")),
            "unique-items-changed",
            Risky,
        ),
        (
            prop(""),
            prop(&k("x-kubernetes-embedded-resource: true")),
            "embedded-resource-changed",
            Risky,
        ),
        (
            prop(&k("x-kubernetes-int-or-string: true")),
            prop(""),
            "int-or-string-changed",
            Breaking,
        ),
        (
            prop(&k("x-kubernetes-preserve-unknown-fields: true")),
            prop(""),
            "preserve-unknown-fields-changed",
            Breaking,
        ),
        (
            prop(""),
            prop(&k("x-kubernetes-list-map-keys: [a]")),
            "list-map-keys-changed",
            Risky,
        ),
        (
            prop(""),
            prop(&k("additionalProperties: false")),
            "additional-properties-changed",
            Risky,
        ),
        (prop(""), prop(&k("x-custom: 1")), "schema-changed", Risky),
    ];
    for (old, new, code, sev) in rows {
        has(&old, &new, code, sev);
    }
}

#[test]
fn rule_changes() {
    use ChangeSeverity::*;
    let rules = |r: &str| prop(&format!("                x-kubernetes-validations:\n{r}"));
    let a = rules("                - rule: self.size() > 1\n");
    has(
        &a,
        &rules("                - rule: self.size() > 2\n"),
        "rule-changed",
        Risky,
    );
    has(
        &a,
        &prop("                x-kubernetes-validations: []\n"),
        "rule-removed",
        Compatible,
    );
    has(
        &a,
        &rules("                - rule: self.size() > 1\n                  message: too short\n"),
        "rule-message-changed",
        Compatible,
    );
    has(
        &a,
        &rules(
            "                - rule: self.size() > 1\n                  optionalOldSelf: true\n",
        ),
        "rule-changed",
        Risky,
    );
    let got = diff_crds(
        &a,
        &rules(
            "                - rule: self.size() > 1\n                - rule: self == oldSelf\n",
        ),
        K,
    );
    let added = got
        .iter()
        .find(|c| c.code == "crd.change.rule-added")
        .expect("rule-added");
    assert!(
        added.message.contains("transition rule"),
        "{}",
        added.message
    );
    assert_eq!(added.new.map(|l| l.span.start.line), Some(28));
}

#[test]
fn version_and_crd_settings() {
    use ChangeSeverity::*;
    let base = crd("Namespaced", "", SIZE);
    let two = base.replace(
        "  - name: v1\n    served: true\n    storage: true\n",
        "  - name: v0\n    served: true\n    storage: false\n    schema: {openAPIV3Schema: {type: object}}\n  - name: v1\n    served: true\n    storage: true\n",
    );
    // v0 removed while the storage version is v1: breaking because it is served.
    has(&two, &base, "version-removed", Breaking);
    let stored = format!("{two}status:\n  storedVersions: [v0, v1]\n");
    let got = diff_crds_detailed(Some(&stored), &base, K);
    let removed = got
        .iter()
        .find(|d| d.change.code == "crd.change.version-removed")
        .expect("removed");
    assert!(
        removed.change.message.contains("status.storedVersions"),
        "{}",
        removed.change.message
    );
    assert_eq!(removed.after, Some(Json::Bool(true)));
    let swapped = two
        .replace("storage: false", "storage: X")
        .replace("storage: true", "storage: false")
        .replace("storage: X", "storage: true");
    has(&two, &swapped, "storage-version-changed", Risky);
    has(
        &base,
        &base.replace("kind: Widget\n", "kind: Gadget\n"),
        "names-changed",
        Breaking,
    );
    has(
        &base,
        &base.replace("group: example.com", "group: example.org"),
        "group-changed",
        Breaking,
    );
    let with = |extra: &str| {
        base.replace(
            "    storage: true\n",
            &format!("    storage: true\n{extra}"),
        )
    };
    has(
        &base,
        &with("    subresources:\n      status: {}\n"),
        "subresource-changed",
        Risky,
    );
    let col = |p: &str| {
        with(&format!("    additionalPrinterColumns:\n    - name: Size\n      type: integer\n      jsonPath: {p}\n"))
    };
    has(
        &col(".spec.size"),
        &col(".spec.other"),
        "printer-column-changed",
        Risky,
    );
    has(
        &col(".spec.size"),
        &with(""),
        "printer-column-removed",
        Risky,
    );
    let sel = with("    selectableFields:\n    - jsonPath: .spec.size\n");
    has(&sel, &with(""), "selectable-field-removed", Risky);
    let conv = base.replacen(
        "spec:\n  group",
        "spec:\n  conversion: {strategy: Webhook}\n  group",
        1,
    );
    has(&base, &conv, "conversion-changed", Risky);
}

#[test]
fn cost_facts_of_a_rule() {
    let text = crd(
        "Namespaced",
        "",
        "              list:\n                type: array\n                maxItems: 10\n                items:\n                  type: string\n                  maxLength: 5\n                  x-kubernetes-validations:\n                  - rule: self.startsWith('a')\n",
    );
    let facts = cost_budget::cost_facts(&text, K);
    let v = facts.first().expect("v1");
    let n = v.nodes.first().expect("node with a rule");
    assert_eq!(n.location, "^.spec.list[*]");
    assert_eq!(n.schema_path, "^.properties[spec].properties[list].items");
    assert_eq!(n.cardinality, Some(10));
    assert_eq!(n.max_length, Some(5));
    let r = n.rules.first().expect("rule");
    assert_eq!(r.estimated_cost, r.raw_cost * 10);
    assert_eq!(v.total, r.estimated_cost);
    assert!(r.error.is_none());
}

/// Kubernetes' API change guidelines (kubernetes/community
/// `contributors/devel/sig-architecture/api_changes.md`, "On compatibility": a compatible
/// change "does not add a new required field" and does not change "which fields are
/// required"): a field made required, or a new field required from an existing object, in an
/// existing version is breaking; the message keeps what ratcheting does for stored objects.
#[test]
fn new_required_fields_are_breaking() {
    let base = crd("Namespaced", "", SIZE);
    let cases = [
        (crd("Namespaced", "            required: [size]\n", SIZE), "crd.change.required-added"),
        (
            crd(
                "Namespaced",
                "            required: [extra]\n",
                "              size:\n                type: integer\n              extra:\n                type: string\n",
            ),
            "crd.change.required-field-added",
        ),
    ];
    for (new, code) in cases {
        let changes = diff_crds(&base, &new, K);
        let c = changes
            .iter()
            .find(|c| c.code == code)
            .unwrap_or_else(|| panic!("{code}: {changes:#?}"));
        assert_eq!(c.severity, ChangeSeverity::Breaking, "{code}");
        assert!(
            c.message
                .contains("every client that creates objects without it is rejected")
                && c.message.contains("(ratcheting)"),
            "{code}: {}",
            c.message
        );
    }
}
