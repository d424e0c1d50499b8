//! `crd-studio check --old-crd FILE`: the CRD as an update of its previous revision, and the
//! objects as stored under it (text and JSON output, exit codes).

mod common;
use common::{run_in, temp_dir, TempDir};

const OLD: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    kind: CronTab
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
              cronSpec:
                type: string
              image:
                type: string
";

const OBJECT: &str = "\
apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: every-five
spec:
  cronSpec: '*/5 * * * *'
  image: busybox
";

/// A fresh directory with the given files, removed when dropped.
fn dir_with(test: &str, files: &[(&str, String)]) -> TempDir {
    temp_dir("cli-old-crd", test, files)
}

fn new_without_image() -> String {
    OLD.replace("              image:\n                type: string\n", "")
}

#[test]
fn a_removed_field_is_data_lost_on_read() {
    let dir = dir_with(
        "removed",
        &[
            ("old.yaml", OLD.to_owned()),
            ("crd.yaml", new_without_image()),
            ("obj.yaml", OBJECT.to_owned()),
        ],
    );
    let out = run_in(
        &dir.0,
        &["check", "crd.yaml", "obj.yaml", "--old-crd", "old.yaml"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // The object itself now names an unknown field: rejected (exit 1).
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("CRD update of old.yaml to crd.yaml: accepted\n"),
        "{text}"
    );
    assert!(text.contains("obj.yaml:7:3: warning: spec.image: stored under the previous revision, but the new revision's schema does not have it"), "{text}");
    assert!(
        text.contains("  obj.yaml#1 CronTab/every-five: read drops spec.image (data lost); unchanged update rejected (CronTab in version \"v1\" cannot be handled as a CronTab: strict decoding error: unknown field \"spec.image\"); create rejected ("),
        "{text}"
    );
    // The summary stays the last line.
    assert!(
        text.lines().last().unwrap().starts_with("rejected: "),
        "{text}"
    );

    let out = run_in(
        &dir.0,
        &[
            "check",
            "crd.yaml",
            "obj.yaml",
            "--old-crd",
            "old.yaml",
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["crd"]["operation"], "update");
    assert_eq!(v["crd"]["accepted"], true);
    assert_eq!(v["previousFile"], "old.yaml");
    assert!(v["changes"].is_array());
    let e = &v["storedEffects"][0];
    assert_eq!(e["file"], "obj.yaml");
    assert_eq!(e["storedVersion"], "v1");
    assert_eq!(e["readPruned"], serde_json::json!(["spec.image"]));
    assert_eq!(e["update"]["accepted"], false);
    assert_eq!(e["create"]["accepted"], false);
    assert_eq!(
        e["read"]["spec"],
        serde_json::json!({"cronSpec": "*/5 * * * *"})
    );
}

#[test]
fn a_refused_update_exits_one_and_names_the_server_error() {
    let dir = dir_with(
        "scope",
        &[
            ("old.yaml", OLD.to_owned()),
            (
                "crd.yaml",
                OLD.replace("scope: Namespaced", "scope: Cluster"),
            ),
        ],
    );
    let out = run_in(&dir.0, &["check", "crd.yaml", "--old-crd", "old.yaml"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "crd.yaml:7:3: error: spec.scope: Invalid value: \"Cluster\": field is immutable"
        ),
        "{text}"
    );
    assert!(
        text.contains("CRD update of old.yaml to crd.yaml: rejected"),
        "{text}"
    );
    // The same CRD as a create is fine.
    let out = run_in(&dir.0, &["check", "crd.yaml"]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn an_unchanged_crd_and_object_exit_zero() {
    let dir = dir_with(
        "same",
        &[
            ("old.yaml", OLD.to_owned()),
            ("crd.yaml", OLD.to_owned()),
            ("obj.yaml", OBJECT.to_owned()),
        ],
    );
    let out = run_in(
        &dir.0,
        &["check", "crd.yaml", "obj.yaml", "--old-crd", "old.yaml"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("  obj.yaml#1 CronTab/every-five: read keeps every field; unchanged update accepted; create accepted\n"),
        "{text}"
    );
    let missing = run_in(&dir.0, &["check", "crd.yaml", "--old-crd", "nope.yaml"]);
    assert_eq!(missing.status.code(), Some(2));
}
