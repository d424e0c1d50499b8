//! Runs `crd-studio convert` on small files: the None strategy, the webhook request, a
//! response the server accepts and one it rejects.

use std::path::Path;
use std::process::{Command, Output};

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
  names: {plural: crontabs, singular: crontab, kind: CronTab, listKind: CronTabList}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig: {url: 'https://example.com/convert'}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {hostPort: {type: string}}}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {host: {type: string}, port: {type: string}}}
";

const OBJECT: &str = "\
apiVersion: stable.example.com/v1beta1
kind: CronTab
metadata: {name: local-crontab}
spec: {hostPort: 'localhost:1234'}
";

fn response(name: &str) -> String {
    format!(
        r#"{{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
  "response": {{"uid": "u-1", "result": {{"status": "Success"}},
    "convertedObjects": [{{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
      "metadata": {{"name": "{name}", "namespace": "default"}},
      "spec": {{"host": "localhost", "port": "1234"}}}}]}}}}"#
    )
}

fn dir_with(test: &str, files: &[(&str, &str)]) -> TempDir {
    temp_dir("convert", test, files)
}

fn run(dir: &Path, args: &[&str]) -> Output {
    run_in(dir, &[&["convert"], args].concat())
}

#[test]
fn none_prints_the_converted_object() {
    let none = CRD.replace(
        "    strategy: Webhook\n    webhook:\n      conversionReviewVersions: [v1]\n      clientConfig: {url: 'https://example.com/convert'}\n",
        "    strategy: None\n",
    );
    let dir = dir_with("none", &[("crd.yaml", &none), ("o.yaml", OBJECT)]);
    let out = run(
        &dir,
        &["crd.yaml", "o.yaml", "--to", "v1", "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["apiVersion"], "stable.example.com/v1");
    assert_eq!(v["spec"], serde_json::json!({}));
    assert!(text(&out.stderr).contains("drops spec.hostPort"));
    let bad = run(&dir, &["crd.yaml", "o.yaml", "--to", "v9"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stderr)
        .contains("request to convert CR to an invalid group/version: stable.example.com/v9"));
}

#[test]
fn webhook_request_and_response() {
    let dir = dir_with(
        "webhook",
        &[
            ("crd.yaml", CRD),
            ("o.yaml", OBJECT),
            ("ok.json", &response("local-crontab")),
            ("renamed.json", &response("renamed")),
        ],
    );
    let request = run(
        &dir,
        &[
            "crd.yaml", "o.yaml", "--to", "v1", "--uid", "u-1", "--format", "json",
        ],
    );
    assert_eq!(request.status.code(), Some(0), "{}", text(&request.stderr));
    let v: serde_json::Value = serde_json::from_slice(&request.stdout).expect("JSON");
    assert_eq!(v["kind"], "ConversionReview");
    assert_eq!(v["request"]["uid"], "u-1");
    assert_eq!(v["request"]["desiredAPIVersion"], "stable.example.com/v1");
    let ok = run(
        &dir,
        &[
            "crd.yaml",
            "o.yaml",
            "--to",
            "v1",
            "--uid",
            "u-1",
            "--review-response",
            "ok.json",
        ],
    );
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(text(&ok.stdout).contains("host: localhost"));
    let renamed = run(
        &dir,
        &[
            "crd.yaml",
            "o.yaml",
            "--to",
            "v1",
            "--uid",
            "u-1",
            "--review-response",
            "renamed.json",
        ],
    );
    assert_eq!(renamed.status.code(), Some(1));
    assert!(text(&renamed.stderr).contains(
        "renamed.json:4:20: error: conversion webhook for stable.example.com/v1beta1, Kind=CronTab returned invalid object: must have the same name: local-crontab != renamed"
    ), "{}", text(&renamed.stderr));
    // Without --uid the uid is derived from the inputs: the response's "u-1" does not match.
    let other = run(
        &dir,
        &[
            "crd.yaml",
            "o.yaml",
            "--to",
            "v1",
            "--review-response",
            "ok.json",
        ],
    );
    assert_eq!(other.status.code(), Some(1));
    assert!(text(&other.stderr).contains("expected response.uid="));
}

/// Without `--uid` the request carries the engine's uid derived from the request, the same
/// the studio's Conversion tab shows for these texts (`src/preview_model.rs` checks the same
/// literal for the same example), so the example's webhook response is accepted by both.
#[test]
fn default_uid_is_the_studios() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/webhook-conversion");
    let request = Command::new(env!("CARGO_BIN_EXE_crd-studio"))
        .args([
            "convert",
            "crd.yaml",
            "object.yaml",
            "--to",
            "v2",
            "--format",
            "json",
        ])
        .current_dir(&example)
        .output()
        .expect("run crd-studio");
    assert_eq!(request.status.code(), Some(0), "{}", text(&request.stderr));
    let v: serde_json::Value = serde_json::from_slice(&request.stdout).expect("JSON");
    assert_eq!(v["request"]["uid"], "9aec6431-9e20-8826-b563-96703cb782a5");
    let checked = Command::new(env!("CARGO_BIN_EXE_crd-studio"))
        .args(["convert", "crd.yaml", "object.yaml", "--to", "v2"])
        .args(["--review-response", "webhook-response.yaml"])
        .current_dir(&example)
        .output()
        .expect("run crd-studio");
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stderr));
}

/// Issue 17, item 9: a broken object text is reported, located, with exit 1 — a syntax error
/// (before: "no object to convert", exit 2, no reason) and a broken second document (before:
/// dropped silently, the first converted, exit 0).
#[test]
fn broken_object_text_is_reported_at_its_place() {
    let good_doc = OBJECT.trim_end();
    let second = format!(
        "{good_doc}\n---\napiVersion: stable.example.com/v2\nkind: CronTab\nmetadata:\n  name: [\n"
    );
    let dir = dir_with(
        "broken",
        &[
            ("crd.yaml", CRD),
            (
                "syntax.yaml",
                "apiVersion: stable.example.com/v2\nkind: CronTab\nmetadata:\n  name: bad: x\n",
            ),
            ("second.yaml", &second),
        ],
    );
    let out = run(&dir, &["crd.yaml", "syntax.yaml", "--to", "v1"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(
            "syntax.yaml:4:12: error: yaml: line 4: mapping values are not allowed in this context"
        ),
        "{}",
        text(&out.stderr)
    );
    let out = run(&dir, &["crd.yaml", "second.yaml", "--to", "v1"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "nothing converted");
    assert!(
        text(&out.stderr).contains("second.yaml:"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains(": error: yaml: line "),
        "{}",
        text(&out.stderr)
    );
}
