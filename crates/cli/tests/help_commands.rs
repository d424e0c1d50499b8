//! Issue 15: `--kubernetes-version` on every command, `crd-studio explain` and
//! `crd-studio sample`.

mod common;
use common::{run_in, temp_dir, text, TempDir};

const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: A widget.
        type: object
        properties:
          spec:
            description: The desired state.
            type: object
            required: [address]
            x-kubernetes-validations:
            - rule: isIP(self.address)
            properties:
              address:
                description: An IP address.
                type: string
                maxLength: 45
              replicas:
                type: integer
                minimum: 1
"#;

const OBJECT: &str =
    "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {address: 10.0.0.1}\n";

fn dir_with(test: &str) -> TempDir {
    temp_dir("help", test, &[("crd.yaml", CRD), ("o.yaml", OBJECT)])
}

#[test]
fn kubernetes_version_changes_the_verdict() {
    let dir = dir_with("kv");
    let new = run_in(
        &dir.0,
        &[
            "check",
            "crd.yaml",
            "o.yaml",
            "--kubernetes-version",
            "1.37",
        ],
    );
    assert_eq!(new.status.code(), Some(0), "{}", text(&new.stdout));
    let old = run_in(
        &dir.0,
        &["check", "crd.yaml", "o.yaml", "--kubernetes-version=1.30"],
    );
    assert_eq!(old.status.code(), Some(1), "{}", text(&old.stdout));
    assert!(
        text(&old.stdout).contains("undeclared reference to 'isIP'"),
        "{}",
        text(&old.stdout)
    );
}

#[test]
fn kubernetes_version_is_checked_on_every_command() {
    let dir = dir_with("kv-bad");
    for args in [
        vec!["check", "crd.yaml", "o.yaml"],
        vec!["get", "crd.yaml", "o.yaml"],
        vec!["convert", "crd.yaml", "o.yaml", "--to", "v1"],
        vec!["cost", "crd.yaml"],
        vec!["explain", "crd.yaml"],
        vec!["sample", "crd.yaml"],
        vec!["diff", "crd.yaml", "crd.yaml"],
    ] {
        let mut bad = args.clone();
        bad.extend(["--kubernetes-version", "1.29"]);
        let out = run_in(&dir.0, &bad);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(
                "--kubernetes-version: unsupported Kubernetes version \"1.29\": the modelled versions are 1.30, 1.31, 1.32, 1.33, 1.34, 1.35, 1.36, 1.37"
            ),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let mut good = args.clone();
        good.extend(["--kubernetes-version", "1.31"]);
        let out = run_in(&dir.0, &good);
        assert_ne!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn explain_prints_kubectls_text() {
    let dir = dir_with("explain");
    let out = run_in(&dir.0, &["explain", "crd.yaml", "widgets.spec"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "GROUP:      example.com
KIND:       Widget
VERSION:    v1

FIELD: spec <Object>


DESCRIPTION:
    The desired state.
    
FIELDS:
  address\t<string> -required-
    An IP address.

  replicas\t<integer>
    <no description>


"
    );
    let rec = run_in(
        &dir.0,
        &[
            "explain",
            "crd.yaml",
            "--recursive",
            "--api-version",
            "example.com/v1",
        ],
    );
    assert!(
        text(&rec.stdout).contains(
            "  spec\t<Object>\n    address\t<string> -required-\n    replicas\t<integer>\n"
        ),
        "{}",
        text(&rec.stdout)
    );
    let missing = run_in(&dir.0, &["explain", "crd.yaml", "spec.nope"]);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(
        text(&missing.stderr),
        "error: field \"nope\" does not exist\n"
    );
    let version = run_in(&dir.0, &["explain", "crd.yaml", "--api-version=v9"]);
    assert_eq!(version.status.code(), Some(1));
    assert_eq!(
        text(&version.stderr),
        "error: couldn't find resource for \"example.com/v9, Resource=widgets\"\n"
    );
}

#[test]
fn explain_goes_into_metadata() {
    let dir = dir_with("explain-meta");
    let out = run_in(&dir.0, &["explain", "crd.yaml", "widgets.metadata.labels"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "GROUP:      example.com
KIND:       Widget
VERSION:    v1

FIELD: labels <map[string]string>


DESCRIPTION:
    Map of string keys and values that can be used to organize and categorize
    (scope and select) objects. May match selectors of replication controllers
    and services. More info:
    https://kubernetes.io/docs/concepts/overview/working-with-objects/labels
    

"
    );
    let owners = run_in(
        &dir.0,
        &["explain", "crd.yaml", "widget.metadata.ownerReferences"],
    );
    assert_eq!(owners.status.code(), Some(0), "{}", text(&owners.stderr));
    let o = text(&owners.stdout);
    assert!(
        o.contains("FIELD: ownerReferences <[]OwnerReference>\n")
            && o.contains("    one managing controller.\n    OwnerReference contains enough information to let you identify an owning\n")
            && o.contains("FIELDS:\n  apiVersion\t<string> -required-\n    API version of the referent.\n\n"),
        "{o}"
    );
    let rec = run_in(&dir.0, &["explain", "crd.yaml", "widgets", "--recursive"]);
    assert!(
        text(&rec.stdout)
            .contains("  metadata\t<ObjectMeta>\n    annotations\t<map[string]string>\n")
            && text(&rec.stdout).contains(
                "    ownerReferences\t<[]OwnerReference>\n      apiVersion\t<string> -required-\n"
            ),
        "{}",
        text(&rec.stdout)
    );
    let missing = run_in(&dir.0, &["explain", "crd.yaml", "widgets.metadata.nope"]);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(
        text(&missing.stderr),
        "error: field \"nope\" does not exist\n"
    );
}

#[test]
fn sample_prints_an_accepted_object() {
    let dir = dir_with("sample");
    let out = run_in(&dir.0, &["sample", "crd.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let yaml = text(&out.stdout);
    assert!(yaml.starts_with("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: widget-sample\nspec:\n  address: "), "{yaml}");
    let all = run_in(
        &dir.0,
        &["sample", "crd.yaml", "--all-fields", "--format", "json"],
    );
    let v: serde_json::Value = serde_json::from_slice(&all.stdout).expect("JSON");
    assert_eq!(v["spec"]["replicas"], 1);
    let bad = run_in(&dir.0, &["sample", "crd.yaml", "--version", "v2"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stderr).contains("the CRD has no version `v2` (it has v1)"));
}
