use super::*;
use crate::report::analysis::Options;

pub(super) const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
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
            required: [replicas]
            x-kubernetes-validations:
            - rule: self.replicas > 0
            properties:
              replicas:
                type: integer
                minimum: 1
                description: How many copies run.
              mode:
                type: string
                enum: [Fast, Slow]
                default: Fast
              paused:
                type: boolean
              my-label:
                type: string
              tags:
                type: array
                items:
                  type: string
              zones:
                type: array
                items:
                  type: string
                  enum: [east, west]
"#;

fn compiled() -> CompiledCrd {
    CompiledCrd::compile(CRD, &Options::default())
}

/// Completion labels at the `|` of `text`.
fn labels(crd: &CompiledCrd, editor: Editor, text: &str) -> Vec<String> {
    let at = text.find('|').unwrap();
    let t = text.replacen('|', "", 1);
    complete(crd, editor, &t, at)
        .map(|c| c.items.into_iter().map(|i| i.label).collect())
        .unwrap_or_default()
}

fn has(list: &[String], want: &[&str]) -> bool {
    want.iter().all(|w| list.iter().any(|l| l == w))
}

#[test]
fn object_completion() {
    let crd = compiled();
    let obj = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  |";
    let l = labels(&crd, Editor::Object, obj);
    assert!(
        has(&l, &["replicas", "mode", "paused", "my-label", "tags"]),
        "{l:?}"
    );
    // Required first.
    assert_eq!(l.first().map(String::as_str), Some("replicas"));
    let l = labels(
        &crd,
        Editor::Object,
        "apiVersion: example.com/v1\nspec:\n  replicas: 1\n  |",
    );
    assert!(
        !l.contains(&"replicas".to_owned()),
        "present keys are not offered: {l:?}"
    );
    let l = labels(&crd, Editor::Object, "spec:\n  mode: |");
    assert_eq!(l, vec!["Fast", "Slow"]);
    let l = labels(&crd, Editor::Object, "spec:\n  paused: |");
    assert_eq!(l, vec!["true", "false"]);
    let l = labels(&crd, Editor::Object, "apiVersion: |");
    assert_eq!(l, vec!["example.com/v1"]);
    let l = labels(&crd, Editor::Object, "kind: |");
    assert_eq!(l, vec!["Widget"]);
    let l = labels(&crd, Editor::Object, "metadata:\n  |");
    assert!(
        has(&l, &["name", "namespace", "labels", "annotations"]),
        "{l:?}"
    );
    let l = labels(&crd, Editor::Object, "|");
    assert!(
        has(&l, &["apiVersion", "kind", "metadata", "spec"]),
        "{l:?}"
    );
    // Half-typed, broken YAML below and above.
    let l = labels(&crd, Editor::Object, "spec:\n  tags: [a,\n  rep|\n  : :\n");
    assert_eq!(l, vec!["replicas"]);
}

#[test]
fn list_items_offer_the_items_values() {
    let crd = compiled();
    let text = "apiVersion: example.com/v1\nkind: Widget\nspec:\n  zones:\n  - |\n";
    assert_eq!(labels(&crd, Editor::Object, text), vec!["east", "west"]);
    let at = text.find('|').unwrap();
    let c = complete(&crd, Editor::Object, &text.replacen('|', "", 1), at).unwrap();
    assert!(c.items.iter().all(|i| i.apply.is_none()), "{c:?}");
    let text = "apiVersion: example.com/v1\nkind: Widget\nspec:\n  zones:\n  - east\n  - w|\n";
    assert_eq!(labels(&crd, Editor::Object, text), vec!["west"]);
}

#[test]
fn object_hover() {
    let crd = compiled();
    let t = "apiVersion: example.com/v1\nspec:\n  replicas: 0\n";
    let h = hover(&crd, Editor::Object, t, t.find("plicas").unwrap()).unwrap();
    assert_eq!(h.title, "replicas: integer");
    assert_eq!(
        h.lines,
        vec!["How many copies run.", "required · minimum: 1"]
    );
    assert_eq!(t.get(h.from..h.to), Some("replicas"));
    let h = hover(&crd, Editor::Object, t, t.find("Version").unwrap()).unwrap();
    assert!(h.title.starts_with("apiVersion"), "{h:?}");
}

#[test]
fn crd_completion() {
    let crd = compiled();
    let at_node = CRD.replace(
        "              paused:\n",
        "              paused:\n                |\n",
    );
    let l = labels(&crd, Editor::Crd, &at_node);
    assert!(
        has(
            &l,
            &[
                "description",
                "enum",
                "x-kubernetes-validations",
                "maxLength"
            ]
        ),
        "{l:?}"
    );
    assert!(
        !l.contains(&"type".to_owned()),
        "type is there already: {l:?}"
    );
    let l = labels(
        &crd,
        Editor::Crd,
        "spec:\n  versions:\n  - schema:\n      openAPIV3Schema:\n        type: |",
    );
    assert!(
        has(
            &l,
            &["object", "array", "string", "integer", "number", "boolean"]
        ),
        "{l:?}"
    );
    let l = labels(
        &crd,
        Editor::Crd,
        "spec:\n  versions:\n  - schema:\n      openAPIV3Schema:\n        format: |",
    );
    assert!(has(&l, &["date-time", "uri", "int64"]), "{l:?}");
    let l = labels(&crd, Editor::Crd, "spec:\n  versions:\n  - schema:\n      openAPIV3Schema:\n        x-kubernetes-list-type: |");
    assert_eq!(l, vec!["atomic", "set", "map"]);
    let l = labels(&crd, Editor::Crd, "spec:\n  |");
    assert!(
        has(&l, &["group", "names", "scope", "versions", "conversion"]),
        "{l:?}"
    );
    let l = labels(&crd, Editor::Crd, "spec:\n  versions:\n  - name: v1\n    |");
    assert!(
        has(
            &l,
            &[
                "served",
                "storage",
                "schema",
                "subresources",
                "additionalPrinterColumns"
            ]
        ),
        "{l:?}"
    );
    assert!(!l.contains(&"name".to_owned()));
    let l = labels(&crd, Editor::Crd, "spec:\n  scope: |");
    assert_eq!(l, vec!["Namespaced", "Cluster"]);
}

#[test]
fn cel_completion() {
    let crd = compiled();
    let text = CRD.replace("rule: self.replicas > 0", "rule: self.|");
    let l = labels(&crd, Editor::Crd, &text);
    assert!(
        has(&l, &["replicas", "mode", "my__dash__label", "tags"]),
        "{l:?}"
    );
    let text = CRD.replace("rule: self.replicas > 0", "rule: self.tags.|");
    let l = labels(&crd, Editor::Crd, &text);
    assert!(has(&l, &["all", "exists", "size", "isSorted"]), "{l:?}");
    assert!(!l.contains(&"startsWith".to_owned()), "{l:?}");
    let text = CRD.replace("rule: self.replicas > 0", "rule: self.mode.st|");
    let l = labels(&crd, Editor::Crd, &text);
    assert!(l.contains(&"startsWith".to_owned()), "{l:?}");
    // Nothing inside a number or a string literal (issue 30: `10` matched `dns1035Label`).
    for inside in [
        "self.replicas <= 10|",
        "self.replicas <= 1|",
        "self.replicas <= 1123|",
        "self.replicas < 1.5|",
        "self.replicas < 1.|",
        "self.replicas < 0x1F|",
        "self.replicas < 3u|",
        "self.mode == 'Fa|",
        "self.mode == 'a b.|",
        "self.mode == '''x|",
        "self.mode.matches('^[a-z]|",
    ] {
        let text = CRD.replace("rule: self.replicas > 0", &format!("rule: \"{inside}\""));
        let l = labels(&crd, Editor::Crd, &text);
        assert!(l.is_empty(), "{inside}: {l:?}");
    }
    // After a closed string or a number, completion works again.
    for after in [
        "self.mode == 'x' && self.|",
        "self.replicas <= 10 && self.|",
    ] {
        let text = CRD.replace("rule: self.replicas > 0", &format!("rule: \"{after}\""));
        let l = labels(&crd, Editor::Crd, &text);
        assert!(has(&l, &["replicas", "mode"]), "{after}: {l:?}");
    }
    let text = CRD.replace("rule: self.replicas > 0", "rule: |");
    let l = labels(&crd, Editor::Crd, &text);
    assert!(
        has(&l, &["self", "oldSelf", "has", "size", "quantity"]),
        "{l:?}"
    );
    // A function of a later version is not offered at an earlier one.
    let old = CompiledCrd::compile(
        CRD,
        &Options {
            kubernetes_version: crate::KubernetesVersion::new(30),
            ..Options::default()
        },
    );
    // A 1.30 server compiles new expressions at compatibility version 1.29
    // (`DefaultCompatibilityVersion`), where the IP library (introduced at 1.30) is not yet
    // declared: `ip` is offered from 1.31 on, as CRD validation accepts it.
    let l = labels(&old, Editor::Crd, &text);
    assert!(
        !l.contains(&"semver".to_owned())
            && !l.contains(&"ip".to_owned())
            && l.contains(&"quantity".to_owned()),
        "{l:?}"
    );
    let l = labels(&crd, Editor::Crd, &text);
    assert!(
        l.contains(&"semver".to_owned()) && l.contains(&"ip".to_owned()),
        "{l:?}"
    );
}

#[test]
fn cel_hover() {
    let crd = compiled();
    let at = CRD.find("replicas > 0").unwrap() + 2;
    let h = hover(&crd, Editor::Crd, CRD, at).unwrap();
    assert_eq!(h.title, "replicas: integer");
    assert_eq!(CRD.get(h.from..h.to), Some("replicas"));
    let text = CRD.replace("rule: self.replicas > 0", "rule: self.mode.startsWith('F')");
    let h = hover(
        &crd,
        Editor::Crd,
        &text,
        text.find("startsWith").unwrap() + 3,
    )
    .unwrap();
    assert_eq!(h.title, "string.startsWith(string) -> bool");
    assert_eq!(
        h.lines.first().map(String::as_str),
        Some("Whether the string starts with the prefix.")
    );
}

#[test]
fn crd_hover() {
    let crd = compiled();
    let h = hover(&crd, Editor::Crd, CRD, CRD.find("replicas:\n").unwrap() + 1).unwrap();
    assert_eq!(h.title, "replicas: integer");
    let h = hover(&crd, Editor::Crd, CRD, CRD.find("minimum").unwrap() + 1).unwrap();
    assert!(h.title.starts_with("minimum (number)"), "{h:?}");
    // The keyword of a broken value (issue 30): the title is not `type: string`.
    let broken = CRD.replace(
        "paused:\n                type: boolean",
        "paused:\n                type: strin",
    );
    let at = broken.find("type: strin").unwrap() + 1;
    let h = hover(&crd, Editor::Crd, &broken, at).unwrap();
    assert_eq!(h.title, "type (string)");
    let h = hover(&crd, Editor::Crd, CRD, CRD.find("scope").unwrap() + 1).unwrap();
    assert!(h.lines.first().unwrap().contains("Namespaced or Cluster"));
}

mod fixes_table {
    use super::CRD;
    use crate::documents::finding::{apply_text_edits, Finding, SourceId};
    use crate::{analyze, Analysis, Options, Request};

    const OBJECT: &str =
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  replicas: 2\n";

    fn run(crd: &str, object: &str) -> Analysis {
        analyze(&Request {
            crd: crd.to_owned(),
            objects: vec![object.to_owned()],
            options: Options::default(),
            ..Request::default()
        })
    }

    fn key(f: &Finding) -> (String, Option<String>, String) {
        (f.code.clone(), f.field.clone(), f.message.clone())
    }

    /// Applies each fix of the finding with `code` and checks the finding is gone and nothing
    /// new came; returns the fixes' titles.
    fn check(crd: &str, object: &str, code: &str) -> Vec<String> {
        let before = run(crd, object);
        let f = before
            .findings
            .iter()
            .find(|f| f.code == code && !f.fixes.is_empty())
            .unwrap_or_else(|| panic!("no fixable {code}: {:#?}", before.findings));
        let mut titles = Vec::new();
        for fix in &f.fixes {
            let source = fix.source.or(f.location.map(|l| l.source)).unwrap();
            let (c, o) = match source {
                SourceId::Crd => (
                    apply_text_edits(crd, &fix.edits).unwrap(),
                    object.to_owned(),
                ),
                _ => (
                    crd.to_owned(),
                    apply_text_edits(object, &fix.edits).unwrap(),
                ),
            };
            let after = run(&c, &o);
            let old: Vec<_> = before.findings.iter().map(key).collect();
            let gone = !after.findings.iter().any(|g| key(g) == key(f));
            let added: Vec<&Finding> = after
                .findings
                .iter()
                .filter(|g| !old.contains(&key(g)))
                .filter(|g| !g.note)
                .collect();
            assert!(
                gone,
                "{}: the finding stays after `{}`:\n{c}\n{o}",
                code, fix.title
            );
            assert!(
                added.is_empty(),
                "{}: `{}` adds {added:#?}\n{c}\n{o}",
                code,
                fix.title
            );
            titles.push(fix.title.clone());
        }
        titles
    }

    #[test]
    fn each_fix_removes_its_finding_and_adds_none() {
        // Missing type, inferred from properties / enum / items / default.
        let crd = CRD.replace("              paused:\n                type: boolean\n", "              paused:\n                properties:\n                  a:\n                    type: string\n");
        assert_eq!(
            check(&crd, OBJECT, "crd.invalid"),
            vec!["Add `type: object`"]
        );
        let crd = CRD.replace(
            "              mode:\n                type: string\n",
            "              mode:\n",
        );
        assert_eq!(
            check(&crd, OBJECT, "crd.invalid"),
            vec!["Add `type: string`"]
        );
        let crd = CRD.replace(
            "              tags:\n                type: array\n",
            "              tags:\n",
        );
        assert_eq!(
            check(&crd, OBJECT, "crd.invalid"),
            vec!["Add `type: array`"]
        );
        let crd = CRD.replace(
            "              paused:\n                type: boolean\n",
            "              paused:\n                default: 3\n",
        );
        assert_eq!(
            check(&crd, OBJECT, "crd.invalid"),
            vec!["Add `type: integer`"]
        );
        // An undefined CEL field.
        let crd = CRD.replace("rule: self.replicas > 0", "rule: self.replica > 0");
        assert_eq!(
            check(&crd, OBJECT, "crd.invalid"),
            vec!["Did you mean `replicas`?"]
        );
        let crd = CRD.replace(
            "rule: self.replicas > 0",
            "rule: \"self.mode == 'Fast' || self.replicsa > 1\"",
        );
        assert_eq!(
            check(&crd, OBJECT, "crd.invalid"),
            vec!["Did you mean `replicas`?"]
        );
        // A printer column that can never show a value.
        let crd = CRD.replace("    schema:\n", "    additionalPrinterColumns:\n    - name: Mode\n      type: string\n      jsonPath: .spec.mdoe\n    schema:\n");
        assert_eq!(
            check(&crd, OBJECT, "crd.printer-column"),
            vec!["Use `mode`"]
        );
        // A misspelt type, and a quoted one (issue 30): the nearest supported value.
        let crd = CRD.replace(
            "              paused:\n                type: boolean\n",
            "              paused:\n                type: boolan\n",
        );
        assert_eq!(
            check(&crd, OBJECT, "crd.invalid"),
            vec!["Change to `boolean`"]
        );
        let crd = CRD.replace(
            "              my-label:\n                type: string\n",
            "              my-label:\n                type: \"strin\"\n",
        );
        assert_eq!(
            check(&crd, OBJECT, "crd.invalid"),
            vec!["Change to `string`"]
        );
        // An unknown field: renamed, or removed.
        let obj = format!("{OBJECT}  pasued: true\n");
        assert_eq!(
            check(CRD, &obj, "object.unknown-field"),
            vec!["Rename to `paused`", "Remove `pasued`"]
        );
        let obj = format!("{OBJECT}  zzz:\n    deep: 1\n  mode: Fast\n");
        assert_eq!(
            check(CRD, &obj, "object.unknown-field"),
            vec!["Remove `zzz`"]
        );
        // An enum value.
        let obj = format!("{OBJECT}  mode: fats\n");
        assert_eq!(check(CRD, &obj, "object.invalid"), vec!["Change to `Fast`"]);
        // `no such key` at runtime: the rule guarded with has().
        let crd = CRD
            .replace("rule: self.replicas > 0", "rule: self.mode.size() > 0")
            .replace("                default: Fast\n", "");
        assert_eq!(
            check(&crd, OBJECT, "object.invalid"),
            vec!["Guard the rule with `has(self.mode)`"]
        );
        let crd = CRD
            .replace("rule: self.replicas > 0", "rule: 'self.mode != ''x'''")
            .replace("                default: Fast\n", "");
        assert_eq!(
            check(&crd, OBJECT, "object.invalid"),
            vec!["Guard the rule with `has(self.mode)`"]
        );
    }
}
