//! `crd-studio test`: the fixture suite in `tests/data/crdtest/` (every expectation kind,
//! passing in `pass/`, failing in `fail/`, `snapshot/` for `--update`) in every format, the
//! JUnit output validated against `tests/data/junit.xsd` (python's `xmlschema`, when
//! installed) and the SARIF output against the SARIF 2.1.0 schema.

mod ci_formats;
mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use ci_formats::{valid_sarif, validate_junit_with_xsd};
use common::{run_in, text};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/crdtest")
}

fn run(args: &[&str]) -> Output {
    run_in(&fixtures(), &[&["test"], args].concat())
}

#[test]
fn passing_cases_pass_at_every_version() {
    let out = run(&["pass"]);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{report}{}", text(&out.stderr));
    // The file's versions (1.33..1.34): the CRD's expectations and four cases, each twice.
    assert!(report.ends_with("10 passed, 0 failed\n"), "{report}");
    assert!(
        report.contains("  ok   a big widget is rejected [1.34]\n"),
        "{report}"
    );
    let out = run(&["pass", "--kubernetes-version", "1.30,1.35..1.37"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).ends_with("20 passed, 0 failed\n"));
}

#[test]
fn each_failed_expectation_is_reported_with_its_place() {
    let out = run(&["fail"]);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{report}");
    for line in [
        "fail/widget.crdtest.yaml:4:13 crdExpect.accepted\n         expected: false\n         got:      true\n",
        "fail/widget.crdtest.yaml:5:16 crdExpect.maxRuleCost\n",
        "fail/widget.crdtest.yaml:9:21 expect.verdict\n         expected: accepted\n         got:      rejected: spec: Invalid value: size must be at most 10\n",
        "fail/widget.crdtest.yaml:14:7 expect.errors[0]\n         expected: spec.size: \"too big\"\n",
        "fail/widget.crdtest.yaml:18:16 expect.warnings[0]\n         expected: \"a warning\"\n         got:      none\n",
        "fail/widget.crdtest.yaml:22:13 expect.fields .spec.size\n         expected: 2\n         got:      1\n",
        "fail/widget.crdtest.yaml:26:13 expect.stored .spec.size\n         expected: 3\n         got:      1\n",
        "fail/widget.crdtest.yaml:30:21 expect.columns.Size\n         expected: \"4\"\n         got:      \"1\"\n",
        "fail/widget.crdtest.yaml:34:14 expect.maxCost\n         expected: at most 0\n         got:      3\n",
        "fail/widget.crdtest.yaml:35:3 object\n         expected: a readable file\n",
    ] {
        assert!(report.contains(line), "{line}\nnot in\n{report}");
    }
    assert!(report.ends_with("0 passed, 9 failed\n"), "{report}");
}

#[test]
fn json_counts_and_places() {
    let out = run(&["pass", "fail", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        (v["passed"].as_u64(), v["failed"].as_u64()),
        (Some(10), Some(9))
    );
    let first = &v["cases"][0];
    assert_eq!(first["file"], "fail/widget.crdtest.yaml");
    assert_eq!(first["failures"][0]["expectation"], "crdExpect.accepted");
    assert_eq!(first["failures"][0]["place"]["start"]["line"], 4);
}

#[test]
fn github_commands_point_at_the_expectation() {
    let out = run(&["fail", "--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    assert!(
        report.contains("::error file=fail/widget.crdtest.yaml,line=30,col=21,title=columns%3A expect.columns.Size::expected \"4\", got \"1\"\n"),
        "{report}"
    );
}

#[test]
fn junit_is_valid() {
    let out = run(&["pass", "fail", "--format", "junit"]);
    assert_eq!(out.status.code(), Some(1));
    let xml = text(&out.stdout);
    assert_eq!(xml.matches("<testcase ").count(), 19, "{xml}");
    assert_eq!(xml.matches("<failure ").count(), 9, "{xml}");
    validate_junit_with_xsd(&xml);
}

#[test]
fn sarif_is_schema_valid() {
    let out = run(&["fail", "--format", "sarif"]);
    assert_eq!(out.status.code(), Some(1));
    let log = valid_sarif(&out.stdout);
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 12);
    let region = &results[0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startLine"].as_u64(), region["startColumn"].as_u64()),
        (Some(4), Some(13))
    );
}

#[test]
fn update_writes_snapshots_and_says_so() {
    let dir = common::temp_dir("crdtest", "update", &[] as &[(&str, &str)]);
    std::fs::create_dir_all(dir.join("snapshot")).expect("dir");
    for f in [
        "widget-crd.yaml",
        "big-widget.yaml",
        "snapshot/widget.crdtest.yaml",
    ] {
        std::fs::copy(fixtures().join(f), dir.join(f)).expect("copy");
    }
    let before = run_in(&dir, &["test", "snapshot"]);
    assert_eq!(before.status.code(), Some(1));
    let out = run_in(&dir, &["test", "snapshot", "--update"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let changes = text(&out.stderr);
    assert!(changes.contains("snapshot/widget.crdtest.yaml: updated case \"big\"\n  - expect:\n  -     verdict: accepted\n  + expect:\n  +     verdict: rejected\n  +     errors:\n  +     - path: spec\n  +       message: size must be at most 10\n"), "{changes}");
    assert!(changes.contains("updated case \"new\""), "{changes}");
    let after = run_in(&dir, &["test", "snapshot"]);
    assert_eq!(after.status.code(), Some(0), "{}", text(&after.stdout));
    // Nothing left to change: nothing printed.
    let again = run_in(&dir, &["test", "snapshot", "--update"]);
    assert_eq!(text(&again.stderr), "");
}

#[test]
fn usage_errors() {
    for (args, message) in [
        (&["--format", "xml"][..], "unknown format `xml`"),
        (
            &["--kubernetes-version", "1.99"][..],
            "--kubernetes-version",
        ),
        (&["no-such-dir/*.crdtest.yaml"][..], "no file matches"),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(message),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn fixtures_follow_the_json_schema() {
    let schema_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/crdtest.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).expect("schema")).expect("JSON");
    let validator = jsonschema::options()
        .build(&schema)
        .expect("schema compiles");
    for file in ["pass", "fail", "snapshot"] {
        let path = fixtures().join(file).join("widget.crdtest.yaml");
        let text = std::fs::read_to_string(&path).expect("fixture");
        let docs = crd_studio_engine::read_documents(&text, crd_studio_engine::SourceId::Crd);
        let value = &docs.values[0].1;
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{file}: {errors:#?}");
    }
    let bad =
        serde_json::json!({"crd": "x", "cases": [{"object": "o", "expect": {"verdict": "ok"}}]});
    assert!(!validator.is_valid(&bad));
}

#[test]
fn a_bad_test_file_fails_with_its_places() {
    let out = run(&["invalid"]);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{report}");
    for line in [
        "invalid/typos.crdtest.yaml:2:1 test file\n         expected: a valid test file\n         got:      unknown field `casse`\n",
        "invalid/typos.crdtest.yaml:6:31 test file\n         expected: a valid test file\n         got:      unknown field `error`\n",
        "invalid/typos.crdtest.yaml:1:6 crd\n         expected: a readable CRD\n",
    ] {
        assert!(report.contains(line), "{line}\nnot in\n{report}");
    }
}

/// The gallery's test files (`examples/*/*.crdtest.yaml`): every case passes through
/// `crd-studio test`, and each file follows the JSON Schema. `cargo xtask test` runs this with
/// the other native tests.
#[test]
fn the_gallery_test_files_pass() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let out = run_in(&examples, &["test", "."]);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{report}{}", text(&out.stderr));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&examples)
        .expect("examples")
        .filter_map(|e| e.ok())
        .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten())
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".crdtest.yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "{files:?}");
    for f in &files {
        let name = f.strip_prefix(&examples).unwrap_or(f).display().to_string();
        assert!(
            report.contains(&format!("./{name}\n")) || report.contains(&format!("{name}\n")),
            "{name} not run:\n{report}"
        );
    }
    let schema_path = examples.join("../schemas/crdtest.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).expect("schema")).expect("JSON");
    let validator = jsonschema::options()
        .build(&schema)
        .expect("schema compiles");
    for f in &files {
        let text = std::fs::read_to_string(f).expect("test file");
        let docs = crd_studio_engine::read_documents(&text, crd_studio_engine::SourceId::Crd);
        let errors: Vec<String> = validator
            .iter_errors(&docs.values[0].1)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", f.display());
    }
}

#[test]
fn rules_naming_a_time_zone_evaluate() {
    let out = run(&["timezone"]);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{report}{}", text(&out.stderr));
    assert!(report.ends_with("2 passed, 0 failed\n"), "{report}");
}
