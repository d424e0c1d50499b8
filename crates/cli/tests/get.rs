//! Runs `crd-studio get` on small files: the seed's CronTab columns, `-o wide`, the default
//! AGE column, an object the server would reject, and usage errors.

use std::path::Path;
use std::process::Output;

mod common;
use common::{run_in, temp_dir, text, TempDir};

const CRD: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
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
            properties:
              cronSpec: {type: string}
              image: {type: string}
              replicas: {type: integer, maximum: 10}
    additionalPrinterColumns:
    - name: Spec
      type: string
      description: The cron spec defining the interval a CronJob is run
      jsonPath: .spec.cronSpec
    - name: Replicas
      type: integer
      description: The number of jobs launched by the CronJob
      jsonPath: .spec.replicas
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    - name: Image
      type: string
      priority: 1
      jsonPath: .spec.image
";

const OBJECTS: &str = "\
apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-new-cron-object
  creationTimestamp: '2026-11-21T19:59:53Z'
spec:
  cronSpec: '* * * * *'
  image: my-awesome-cron-image
  replicas: 1
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: fresh}
spec: {cronSpec: '0 * * * *'}
";

fn dir_with(test: &str, files: &[(&str, &str)]) -> TempDir {
    temp_dir("get", test, files)
}

fn run(dir: &Path, args: &[&str]) -> Output {
    run_in(dir, &[&["get"], args].concat())
}

const NOW: &str = "--now=2026-11-21T20:00:00Z";

#[test]
fn prints_the_columns_as_kubectl() {
    let dir = dir_with("columns", &[("crd.yaml", CRD), ("o.yaml", OBJECTS)]);
    let out = run(&dir.0, &["crd.yaml", "o.yaml", NOW]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "NAME                 SPEC        REPLICAS   AGE\n\
         my-new-cron-object   * * * * *   1          7s\n\
         fresh                0 * * * *              0s\n"
    );
    let out = run(&dir.0, &["crd.yaml", "o.yaml", NOW, "-o", "wide"]);
    assert_eq!(
        text(&out.stdout),
        "NAME                 SPEC        REPLICAS   AGE   IMAGE\n\
         my-new-cron-object   * * * * *   1          7s    my-awesome-cron-image\n\
         fresh                0 * * * *              0s    \n"
    );
    let out = run(&dir.0, &["crd.yaml", "o.yaml", NOW, "--no-headers"]);
    assert_eq!(
        text(&out.stdout),
        "my-new-cron-object   * * * * *   1     7s\nfresh                0 * * * *         0s\n"
    );
}

#[test]
fn default_age_column_and_rejected_objects() {
    let crd = CRD
        .split("    additionalPrinterColumns:")
        .next()
        .unwrap_or(CRD)
        .to_owned();
    let bad = OBJECTS.replace("replicas: 1", "replicas: 11");
    let dir = dir_with("default", &[("crd.yaml", &crd), ("o.yaml", &bad)]);
    let out = run(&dir.0, &["crd.yaml", "o.yaml", NOW]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "NAME                 AGE\nmy-new-cron-object   7s\nfresh                0s\n"
    );
    assert!(
        text(&out.stderr).contains("o.yaml: document 0: the API server would reject this object (spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10)"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn usage_errors() {
    let dir = dir_with("usage", &[("crd.yaml", CRD), ("o.yaml", OBJECTS)]);
    assert_eq!(run(&dir.0, &["crd.yaml"]).status.code(), Some(2));
    assert_eq!(
        run(&dir.0, &["crd.yaml", "o.yaml", "-o", "yaml"])
            .status
            .code(),
        Some(2)
    );
    let out = run(&dir.0, &["crd.yaml", "o.yaml", "--now", "yesterday"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--now: parsing time"),
        "{}",
        text(&out.stderr)
    );
}

/// Issue 14, item 7a: `--field-selector` lists only the objects it keeps, as `kubectl get
/// <plural>.<group> --field-selector` does; none kept prints kubectl's message.
#[test]
fn field_selector_lists_only_the_kept_objects() {
    let dir = dir_with("selector", &[("crd.yaml", CRD), ("o.yaml", OBJECTS)]);
    let out = run(
        &dir.0,
        &[
            "crd.yaml",
            "o.yaml",
            NOW,
            "--field-selector",
            "metadata.name=fresh",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "NAME    SPEC        REPLICAS   AGE\nfresh   0 * * * *              0s\n"
    );
    let none = run(
        &dir.0,
        &[
            "crd.yaml",
            "o.yaml",
            NOW,
            "--field-selector=metadata.name=nope",
        ],
    );
    assert_eq!(none.status.code(), Some(0));
    assert_eq!(text(&none.stdout), "");
    assert_eq!(
        text(&none.stderr),
        "No resources found in default namespace.\n"
    );
}

/// Issue 14, item 7e: an object without a row says what is missing, at the object (no more
/// `no table for version ""`).
#[test]
fn objects_without_a_row_say_what_is_missing() {
    let no_version = "kind: CronTab\nmetadata: {name: a}\n";
    let undecodable = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: 5\n";
    let dir = dir_with(
        "missing",
        &[
            ("crd.yaml", CRD),
            ("a.yaml", no_version),
            ("b.yaml", undecodable),
        ],
    );
    let out = run(&dir.0, &["crd.yaml", "a.yaml", "b.yaml", NOW]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(!err.contains("no table"), "{err}");
    assert!(
        err.contains("a.yaml:1:1: error: the object has no apiVersion; this CRD serves stable.example.com/v1\n"),
        "{err}"
    );
    assert!(
        err.contains("b.yaml:1:1: error: the server cannot decode the object, so nothing is stored to list: "),
        "{err}"
    );
}

/// Issue 17, item 9: a broken later document is reported, located, with exit 1 (before: it
/// was dropped silently and the table printed with exit 0).
#[test]
fn a_broken_later_document_is_reported() {
    let text_with_bad = format!(
        "{OBJECTS}---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: [\n"
    );
    let dir = dir_with(
        "broken-doc",
        &[("crd.yaml", CRD), ("o.yaml", &text_with_bad)],
    );
    let out = run(&dir.0, &["crd.yaml", "o.yaml", NOW]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(
        err.contains("o.yaml:") && err.contains(": error: yaml: line "),
        "{err}"
    );
}
