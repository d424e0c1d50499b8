//! Runs `crd-studio diff` (and `--format sarif` of `check`, `cost` and `diff`) on small CRDs:
//! exit codes per `--fail-on`, the text lines, the JSON shape, objects checked against the new
//! revision, and SARIF output valid against the SARIF 2.1.0 JSON schema.

use std::process::Output;

mod common;
use common::{run_in, temp_dir, text, TempDir};

/// A CRD whose `spec` has the given properties (YAML, indented under `properties:`).
fn crd(scope: &str, props: &str) -> String {
    let props: String = props
        .lines()
        .map(|l| format!("              {l}\n"))
        .collect();
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {{kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}}
  scope: {scope}
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
{props}"
    )
}

const OLD_PROPS: &str = "size:\n  type: integer\n  maximum: 10\nmode:\n  type: string\n";
/// `mode` removed (breaking), maximum lowered (risky).
const BREAKING_PROPS: &str = "size:\n  type: integer\n  maximum: 5\n";
/// Only the maximum lowered (risky).
const RISKY_PROPS: &str = "size:\n  type: integer\n  maximum: 5\nmode:\n  type: string\n";
/// Only the maximum raised (compatible).
const COMPATIBLE_PROPS: &str = "size:\n  type: integer\n  maximum: 20\nmode:\n  type: string\n";

const OBJECT: &str = "apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  size: 7
";

fn dir() -> TempDir {
    let test = std::thread::current()
        .name()
        .unwrap_or("t")
        .replace("::", "-");
    let files = [
        ("old.yaml", crd("Namespaced", OLD_PROPS)),
        ("breaking.yaml", crd("Namespaced", BREAKING_PROPS)),
        ("risky.yaml", crd("Namespaced", RISKY_PROPS)),
        ("compatible.yaml", crd("Namespaced", COMPATIBLE_PROPS)),
        ("object.yaml", OBJECT.to_owned()),
        ("not-a-crd.yaml", "a: [1\n".to_owned()),
    ];
    temp_dir("diff", &test, &files)
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

#[test]
fn exit_codes_follow_fail_on() {
    let d = dir();
    let cases: &[(&str, &str, i32)] = &[
        ("breaking.yaml", "breaking", 1),
        ("breaking.yaml", "risky", 1),
        ("breaking.yaml", "none", 0),
        ("risky.yaml", "breaking", 0),
        ("risky.yaml", "risky", 1),
        ("risky.yaml", "none", 0),
        ("compatible.yaml", "breaking", 0),
        ("compatible.yaml", "risky", 0),
        ("old.yaml", "risky", 0),
    ];
    for (new, fail_on, want) in cases {
        let out = run_in(&d, &["diff", "old.yaml", new, "--fail-on", fail_on]);
        assert_eq!(
            code(&out),
            *want,
            "{new} --fail-on {fail_on}: {}",
            text(&out.stdout)
        );
    }
    // The default threshold is breaking.
    assert_eq!(code(&run_in(&d, &["diff", "old.yaml", "breaking.yaml"])), 1);
    assert_eq!(code(&run_in(&d, &["diff", "old.yaml", "risky.yaml"])), 0);
}

#[test]
fn usage_and_read_errors_exit_two() {
    let d = dir();
    for args in [
        &["diff", "old.yaml"][..],
        &["diff", "old.yaml", "risky.yaml", "--fail-on", "sometimes"],
        &["diff", "old.yaml", "risky.yaml", "--format", "xml"],
        &["diff", "old.yaml", "missing.yaml"],
        &["diff", "old.yaml", "not-a-crd.yaml"],
    ] {
        let out = run_in(&d, args);
        assert_eq!(code(&out), 2, "{args:?}: {}", text(&out.stderr));
        assert!(!text(&out.stderr).is_empty());
    }
}

#[test]
fn text_lines_name_file_line_column_severity_and_code() {
    let d = dir();
    let out = run_in(&d, &["diff", "old.yaml", "breaking.yaml"]);
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.first(), Some(&"version v1:"), "{stdout}");
    // `mode` was at line 23 of the old file; the new file keeps its parent `spec` at 17.
    assert!(
        stdout.contains("breaking.yaml:17:11: breaking: .spec.mode removed from v1")
            && stdout.contains("(previously old.yaml:23:15) [crd.change.field-removed]"),
        "{stdout}"
    );
    assert!(
        stdout.contains("breaking.yaml:22:17: risky: .spec.size: maximum lowered from 10 to 5")
            && stdout.contains("[crd.change.bound-tightened]"),
        "{stdout}"
    );
    assert_eq!(
        lines.last(),
        Some(&"failed: 2 changes: 1 breaking, 1 risky, 0 compatible"),
        "{stdout}"
    );
}

#[test]
fn json_has_changes_with_both_locations() {
    let d = dir();
    let out = run_in(
        &d,
        &["diff", "old.yaml", "breaking.yaml", "--format", "json"],
    );
    assert_eq!(code(&out), 1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["old"], "old.yaml");
    assert_eq!(v["new"], "breaking.yaml");
    assert_eq!(v["failOn"], "breaking");
    assert_eq!(v["failed"], true);
    assert_eq!(v["summary"]["breaking"], 1);
    assert_eq!(v["summary"]["risky"], 1);
    let changes = v["changes"].as_array().expect("changes");
    let removed = changes
        .iter()
        .find(|c| c["code"] == "crd.change.field-removed")
        .expect("field-removed");
    assert_eq!(removed["severity"], "breaking");
    assert_eq!(removed["version"], "v1");
    assert_eq!(removed["field"], ".spec.mode");
    assert_eq!(removed["old"]["source"]["kind"], "oldCrd");
    assert_eq!(removed["old"]["span"]["start"]["line"], 23);
    assert_eq!(removed["new"]["source"]["kind"], "crd");
    assert_eq!(removed["oldFile"], "old.yaml");
    assert_eq!(removed["newFile"], "breaking.yaml");
    assert!(v["objects"].is_null());
}

#[test]
fn objects_are_checked_against_the_new_revision() {
    let d = dir();
    // size 7 is over the new maximum 5: rejected, so even a risky-only diff fails.
    let out = run_in(&d, &["diff", "old.yaml", "risky.yaml", "object.yaml"]);
    let stdout = text(&out.stdout);
    assert_eq!(code(&out), 1, "{stdout}");
    assert!(stdout.contains("objects under risky.yaml:"), "{stdout}");
    assert!(stdout.contains("object.yaml:6:3: error: spec.size: Invalid value: 7: spec.size in body should be less than or equal to 5"), "{stdout}");
    assert!(
        stdout.contains("1 of 1 objects rejected by the new revision"),
        "{stdout}"
    );
    let out = run_in(
        &d,
        &[
            "diff",
            "old.yaml",
            "compatible.yaml",
            "object.yaml",
            "--format",
            "json",
        ],
    );
    assert_eq!(code(&out), 0);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["objects"][0]["accepted"], true);
    assert_eq!(v["objects"][0]["file"], "object.yaml");
    // --fail-on none never fails.
    let out = run_in(
        &d,
        &[
            "diff",
            "old.yaml",
            "risky.yaml",
            "object.yaml",
            "--fail-on",
            "none",
        ],
    );
    assert_eq!(code(&out), 0);
}

/// Validates `out` against the SARIF 2.1.0 JSON schema; returns the log.
#[test]
fn the_kubernetes_version_decides_the_rules_and_the_objects() {
    // `isIP` compiles from the 1.31 server on (CEL compatibility version 1.30).
    let d = dir();
    let rule = |max: &str, rule: &str| {
        crd(
            "Namespaced",
            &format!("addr:\n  type: string\n{max}  x-kubernetes-validations:\n  - rule: {rule}\n"),
        )
    };
    let write = |name: &str, text: String| std::fs::write(d.join(name), text).unwrap();
    write("ip-old.yaml", rule("  maxLength: 10\n", "isIP(self)"));
    write("ip-new.yaml", rule("", "isIP(self)"));
    write("ip-was-size.yaml", rule("", "self.size() > 0"));
    write(
        "ip-object.yaml",
        OBJECT.replace("size: 7", "addr: 10.0.0.1"),
    );
    let diff = |old: &str, new: &str, object: Option<&str>, kube: &str| {
        let mut args = vec!["diff", old, new, "--fail-on", "none"];
        args.extend(object);
        args.extend(["--kubernetes-version", kube]);
        text(&run_in(&d, &args).stdout)
    };
    // The cost estimates compared are the selected server's: a 1.30 server has none.
    let now = diff("ip-old.yaml", "ip-new.yaml", None, "1.37");
    assert!(now.contains("[crd.change.rule-cost-increased]"), "{now}");
    let then = diff("ip-old.yaml", "ip-new.yaml", None, "1.30");
    assert!(!then.contains("[crd.change.rule-cost-increased]"), "{then}");
    // A changed rule compiles in the selected server's environment on update.
    let now = diff(
        "ip-was-size.yaml",
        "ip-new.yaml",
        Some("ip-object.yaml"),
        "1.37",
    );
    assert!(!now.contains("undeclared reference to 'isIP'"), "{now}");
    let then = diff(
        "ip-was-size.yaml",
        "ip-new.yaml",
        Some("ip-object.yaml"),
        "1.30",
    );
    assert!(then.contains("undeclared reference to 'isIP'"), "{then}");
    assert!(
        then.contains("update of ip-was-size.yaml to ip-new.yaml: rejected"),
        "{then}"
    );
    // Without objects too, and a refused update fails the run.
    let out = run_in(
        &d,
        &[
            "diff",
            "ip-was-size.yaml",
            "ip-new.yaml",
            "--kubernetes-version",
            "1.30",
        ],
    );
    assert_eq!(code(&out), 1);
    assert!(text(&out.stdout).contains("undeclared reference to 'isIP'"));
    let out = run_in(&d, &["diff", "ip-was-size.yaml", "ip-new.yaml"]);
    assert_eq!(code(&out), 0, "{}", text(&out.stdout));
}

fn valid_sarif(out: &Output) -> serde_json::Value {
    // The schema's `run.language` pattern has a lone `]`, a literal in ECMA-262 regexes but a
    // syntax error for the validator's Rust regex engine: escaped here (same meaning), the
    // vendored file stays as published.
    let text = include_str!("data/sarif-schema-2.1.0.json")
        .replace("[a-zA-Z]{2}]?$", "[a-zA-Z]{2}\\\\]?$");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("schema JSON");
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("schema compiles");
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).expect("SARIF is JSON");
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not valid SARIF 2.1.0: {errors:#?}\n{log:#}"
    );
    assert_eq!(log["version"], "2.1.0");
    log
}

#[test]
fn diff_sarif_is_schema_valid_with_rules_and_locations() {
    let d = dir();
    let out = run_in(
        &d,
        &[
            "diff",
            "old.yaml",
            "breaking.yaml",
            "object.yaml",
            "--format",
            "sarif",
        ],
    );
    assert_eq!(code(&out), 1);
    let log = valid_sarif(&out);
    let run0 = &log["runs"][0];
    let results = run0["results"].as_array().expect("results");
    let removed = results
        .iter()
        .find(|r| r["ruleId"] == "crd.change.field-removed")
        .expect("field-removed result");
    assert_eq!(removed["level"], "error");
    let loc = &removed["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "breaking.yaml");
    assert_eq!(loc["region"]["startLine"], 17);
    assert_eq!(loc["region"]["startColumn"], 11);
    let was = &removed["relatedLocations"][0]["physicalLocation"];
    assert_eq!(was["artifactLocation"]["uri"], "old.yaml");
    assert_eq!(was["region"]["startLine"], 23);
    let risky = results
        .iter()
        .find(|r| r["ruleId"] == "crd.change.bound-tightened")
        .expect("bound-tightened");
    assert_eq!(risky["level"], "warning");
    // The rule list names each code once, and ruleIndex points into it.
    let rules = run0["tool"]["driver"]["rules"].as_array().expect("rules");
    for r in results {
        let i = r["ruleIndex"].as_u64().expect("index") as usize;
        assert_eq!(rules[i]["id"], r["ruleId"]);
    }
    // The object's finding under the new revision is a result too.
    assert!(results.iter().any(
        |r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "object.yaml"
    ));
}

#[test]
fn check_sarif_is_schema_valid() {
    let d = dir();
    let out = run_in(
        &d,
        &["check", "risky.yaml", "object.yaml", "--format", "sarif"],
    );
    assert_eq!(code(&out), 1);
    let log = valid_sarif(&out);
    let results = log["runs"][0]["results"].as_array().expect("results");
    let r = results
        .iter()
        .find(|r| r["level"] == "error")
        .expect("an error result");
    assert_eq!(r["ruleId"], "object.invalid");
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "object.yaml");
    assert_eq!(loc["region"]["startLine"], 6);
    assert_eq!(loc["region"]["startColumn"], 3);
    assert_eq!(loc["region"]["endLine"], 6);
    assert!(loc["region"]["endColumn"].as_u64() > Some(3));
}

#[test]
fn cost_sarif_is_schema_valid() {
    let d = dir();
    let rule = crd(
        "Namespaced",
        "names:\n  type: array\n  items:\n    type: string\n  x-kubernetes-validations:\n  - rule: self.all(n, n.matches('^[a-z]+$'))\n",
    );
    std::fs::write(d.join("rules.yaml"), rule).expect("write");
    let out = run_in(&d, &["cost", "rules.yaml", "--format", "sarif"]);
    assert_eq!(code(&out), 1, "{}", text(&out.stderr));
    let log = valid_sarif(&out);
    let results = log["runs"][0]["results"].as_array().expect("results");
    let r = results
        .iter()
        .find(|r| r["ruleId"] == "cel.cost.expression")
        .expect("cost result");
    assert_eq!(r["level"], "error");
    assert_eq!(
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "rules.yaml"
    );
    assert_eq!(
        r["locations"][0]["physicalLocation"]["region"]["startLine"],
        25
    );
}
