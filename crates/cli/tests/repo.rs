//! `crd-studio check PATH...` on the repository fixture `tests/data/repo`: several CRDs (two
//! in one file), manifests in nested folders (YAML and JSON), a stream on standard input, an
//! object without its CRD, built-in kinds, and a previous tree (`old/`) for the update path.
//! The same run in every format gives the same summary; JUnit is checked against
//! `tests/data/junit.xsd` (with python's `xmlschema` when installed, and structurally here),
//! SARIF against the SARIF 2.1.0 schema, and the GitHub workflow commands line by line.

mod ci_formats;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use ci_formats::{valid_sarif, validate_junit_with_xsd};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/repo")
}

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crd-studio"))
        .args(args)
        .current_dir(fixture())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run crd-studio");
    if let Some(text) = stdin {
        let _ = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes());
    }
    child.wait_with_output().expect("wait")
}

fn stream() -> String {
    std::fs::read_to_string(fixture().join("stream.yaml")).expect("stream.yaml")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The whole repository and the stream: what each format must agree on.
const ALL: &[&str] = &["check", "config", "manifests", "-"];

const SUMMARY: &str = "rejected: 5 errors, 0 warnings; 4 CRDs, 0 rejected; 7 objects, 4 rejected";

#[test]
fn text_report_of_the_repository() {
    let out = run(ALL, Some(&stream()));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let want = format!(
        "\
<stdin>:41:3: error: spec.count: Invalid value: -1: spec.count in body should be greater than or equal to 0
manifests/app/widgets.yaml:23:3: error: spec.size: Invalid value: 12: spec.size in body should be less than or equal to 10
manifests/app/widgets.yaml:24:3: error: spec.address: Invalid value: \"not-an-ip\": address must be an IP address
manifests/missing.yaml:1:1: error: no CRD for other.example.net/v1 Thing (none among the CRDs found; add its CRD with --crds PATH, or --ignore-missing-crds)
manifests/nested/deep/gadget.json:5:12: error: spec.mode: Unsupported value: \"warp\": supported values: \"fast\", \"slow\"
<stdin>: CRD doodads.stream.example.com accepted
config/crd/gadgets.yaml: CRD gadgets.example.com accepted
config/crd/gadgets.yaml: CRD gizmos.tools.example.org accepted
config/crd/widgets.yaml: CRD widgets.example.com accepted
<stdin>: 2 objects, 1 rejected
manifests/app/widgets.yaml: 2 objects, 1 rejected
manifests/missing.yaml: 1 object, 1 rejected
manifests/nested/deep/gadget.json: 1 object, 1 rejected
manifests/nested/gizmo.yml: 1 object, 0 rejected
skipped 3 documents of built-in kinds: apps/v1 Deployment, v1 ConfigMap, v1 Service
{SUMMARY}
"
    );
    assert_eq!(text(&out.stdout), want);
}

#[test]
fn globs_and_crds_from_elsewhere() {
    // The manifests by glob, the CRDs by --crds: the same verdicts as the directories.
    let out = run(
        &[
            "check",
            "manifests/**/*.y*ml",
            "--crds",
            "config",
            "--ignore-missing-crds",
        ],
        None,
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.ends_with(
            "rejected: 2 errors, 0 warnings; 3 CRDs, 0 rejected; 3 objects, 1 rejected; 1 object without a CRD ignored\n"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("gadget.json"), "{stdout}");
    // Exit codes as today: 0 when everything is accepted.
    let out = run(
        &["check", "manifests/nested/gizmo.yml", "--crds", "config"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout)
        .ends_with("accepted: 0 errors, 0 warnings; 3 CRDs, 0 rejected; 1 object, 0 rejected\n"));
}

#[test]
fn json_summary() {
    let out = run(&[ALL, &["--format", "json"]].concat(), Some(&stream()));
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let s = &v["summary"];
    assert_eq!(v["accepted"], false);
    assert_eq!(
        (s["crds"].as_u64(), s["crdsRejected"].as_u64()),
        (Some(4), Some(0))
    );
    assert_eq!(
        (s["objects"].as_u64(), s["objectsRejected"].as_u64()),
        (Some(7), Some(4))
    );
    assert_eq!(
        (s["errors"].as_u64(), s["warnings"].as_u64()),
        (Some(5), Some(0))
    );
    assert_eq!(s["builtIn"]["apps/v1 Deployment"], 1);
    assert_eq!(v["findings"].as_array().map(Vec::len), Some(5));
    assert_eq!(v["findings"][0]["file"], "<stdin>");
    assert_eq!(v["findings"][0]["location"]["span"]["start"]["line"], 41);
}

#[test]
fn sarif_is_schema_valid() {
    let out = run(&[ALL, &["--format", "sarif"]].concat(), Some(&stream()));
    assert_eq!(out.status.code(), Some(1));
    let log = valid_sarif(&out.stdout);
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 5);
    let uris: BTreeSet<&str> = results
        .iter()
        .filter_map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str())
        .collect();
    assert!(
        uris.contains("manifests/nested/deep/gadget.json"),
        "{uris:?}"
    );
}

/// The attribute `name="…"` of an XML start tag.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let rest = tag.get(at..)?;
    rest.get(..rest.find('"')?)
}

/// The JUnit XML's test case names, checked structurally: balanced elements, and each
/// suite's and the root's counts match their cases.
fn junit_cases(xml: &str) -> Vec<String> {
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
    assert!(xml.ends_with("</testsuites>\n"));
    for element in ["testsuite", "testcase", "failure", "system-out"] {
        let opened = xml.matches(&format!("<{element} ")).count()
            + xml.matches(&format!("<{element}>")).count();
        assert_eq!(
            opened,
            xml.matches(&format!("</{element}>")).count(),
            "{element}"
        );
    }
    let (mut names, mut total, mut failed) = (Vec::new(), 0, 0);
    for suite in xml.split("<testsuite ").skip(1) {
        let head = suite.get(..suite.find('>').unwrap_or(0)).unwrap_or("");
        let cases: Vec<&str> = suite.split("<testcase ").skip(1).collect();
        let failures = cases.iter().filter(|c| c.contains("<failure ")).count();
        assert_eq!(attr(head, "tests"), Some(cases.len().to_string().as_str()));
        assert_eq!(attr(head, "failures"), Some(failures.to_string().as_str()));
        total += cases.len();
        failed += failures;
        names.extend(
            cases
                .iter()
                .filter_map(|c| attr(&format!(" {c}"), "name").map(String::from)),
        );
    }
    let root = xml.get(..xml.find("\">\n").unwrap_or(0)).unwrap_or("");
    assert_eq!(attr(root, "tests"), Some(total.to_string().as_str()));
    assert_eq!(attr(root, "failures"), Some(failed.to_string().as_str()));
    names
}

#[test]
fn junit_is_valid_with_a_case_per_crd_and_object() {
    let out = run(&[ALL, &["--format", "junit"]].concat(), Some(&stream()));
    assert_eq!(out.status.code(), Some(1));
    let xml = text(&out.stdout);
    assert!(
        xml.contains(&format!("crd-studio check: {SUMMARY}")),
        "{xml}"
    );
    validate_junit_with_xsd(&xml);
    let names = junit_cases(&xml);
    // 4 CRDs and 7 objects.
    assert_eq!(names.len(), 11, "{names:#?}");
    assert!(names.contains(&"manifests/app/widgets.yaml#2 example.com/v1 Widget shop/big".into()));
    assert!(names
        .contains(&"&lt;stdin&gt;#0 CustomResourceDefinition doodads.stream.example.com".into()));
    assert_eq!(xml.matches("<failure ").count(), 4);
}

#[test]
fn shards_split_the_documents_and_merge_without_duplicates() {
    let all = junit_cases(&text(
        &run(&["check", "config", "manifests", "--format", "junit"], None).stdout,
    ));
    let mut merged = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let out = run(
            &[
                "check",
                "config",
                "manifests",
                "--format",
                "junit",
                "--shard",
                &shard,
            ],
            None,
        );
        merged.extend(junit_cases(&text(&out.stdout)));
    }
    let unique: BTreeSet<&String> = merged.iter().collect();
    assert_eq!(
        unique.len(),
        merged.len(),
        "a case in two shards: {merged:#?}"
    );
    let mut all_sorted = all.clone();
    all_sorted.sort();
    merged.sort();
    assert_eq!(merged, all_sorted);
}

#[test]
fn github_workflow_commands() {
    let out = run(&[ALL, &["--format", "github"]].concat(), Some(&stream()));
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let want_first = [
        "::error file=<stdin>,line=41,col=3,endLine=41,endColumn=8,title=object.invalid::spec.count: Invalid value: -1: spec.count in body should be greater than or equal to 0",
        "::error file=manifests/app/widgets.yaml,line=23,col=3,endLine=23,endColumn=7,title=object.invalid::spec.size: Invalid value: 12: spec.size in body should be less than or equal to 10",
        "::error file=manifests/app/widgets.yaml,line=24,col=3,endLine=24,endColumn=10,title=object.invalid::spec.address: Invalid value: \"not-an-ip\": address must be an IP address",
        "::error file=manifests/missing.yaml,line=1,col=1,title=studio.no-crd::no CRD for other.example.net/v1 Thing (none among the CRDs found; add its CRD with --crds PATH, or --ignore-missing-crds)",
        "::error file=manifests/nested/deep/gadget.json,line=5,col=12,endLine=5,endColumn=18,title=object.invalid::spec.mode: Unsupported value: \"warp\": supported values: \"fast\", \"slow\"",
    ];
    assert_eq!(lines.get(..5), Some(&want_first[..]), "{stdout}");
    assert_eq!(lines.last(), Some(&SUMMARY));
}

#[test]
fn update_tree_and_previous_crds() {
    let out = run(
        &[
            "check",
            "config",
            "manifests",
            "--old",
            "old/manifests",
            "--old-crds",
            "old/config",
            "--ignore-missing-crds",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    for want in [
        // The unchanged invalid value is ratcheted; the rule's failure is only a warning.
        "manifests/app/widgets.yaml:23:3: info: spec.size: accepted although invalid, because the value is unchanged from the old object (validation ratcheting)",
        "manifests/app/widgets.yaml:24:3: warning: spec.address: Invalid value: \"not-an-ip\"",
        "config/crd/widgets.yaml: CRD widgets.example.com accepted (update of old/config/crd/widgets.yaml: 3 changes)\n  breaking: v1: .spec.color removed from v1",
        "manifests/app/widgets.yaml: 2 objects, 0 rejected\n",
        "rejected: 1 error, 1 warning, 1 CRD change at or above --fail-on; 3 CRDs, 0 rejected; 4 objects, 1 rejected; 1 object without a CRD ignored\n",
    ] {
        assert!(stdout.contains(want), "{want}\n---\n{stdout}");
    }
    // With --fail-on none the breaking change is listed but does not fail the run.
    let out = run(
        &[
            "check",
            "config/crd/widgets.yaml",
            "manifests/app",
            "--old",
            "old/manifests",
            "--old-crds",
            "old/config",
            "--fail-on",
            "none",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

#[test]
fn kubernetes_version_range() {
    let out = run(
        &["check", "config", "--kubernetes-version", "1.30..1.32"],
        None,
    );
    // widgets' isIP rule needs 1.31: the range fails.
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    for want in [
        "Kubernetes versions 1.30, 1.31, 1.32:\n",
        "  gizmos.tools.example.org (config/crd/gadgets.yaml): accepted by 1.30–1.32\n",
        "  widgets.example.com (config/crd/widgets.yaml): accepted by 1.31–1.32; 1.30 rejects: ",
        "undeclared reference to 'isIP'",
    ] {
        assert!(stdout.contains(want), "{want}\n---\n{stdout}");
    }
    let out = run(
        &[
            "check",
            "config",
            "--kubernetes-version",
            "1.31..1.37",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let rows = v["kubernetesVersions"].as_array().expect("rows");
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[2]["oldestAccepting"], "1.31");
    assert_eq!(rows[2]["verdicts"]["1.37"], true);
}

#[test]
fn usage_errors() {
    for (args, want) in [
        (
            &["check", "config", "--shard", "4/3"][..],
            "--shard: expected K/N",
        ),
        (
            &["check", "config", "--kubernetes-version", "1.29..1.31"],
            "unsupported Kubernetes version",
        ),
        (
            &["check", "config", "--old-object", "x.yaml"],
            "--old-object is for one CRD",
        ),
        (&["check", "nothing/*.yaml"], "no file matches"),
    ] {
        let out = run(args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(want),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_second_crd_for_a_kind_is_a_warning() {
    let out = run(
        &["check", "config", "manifests/app", "--crds", "old/config"],
        None,
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("manifests/app/widgets.yaml:23:3: error: spec.size: Invalid value: 12: spec.size in body should be less than or equal to 10\n"),
        "objects go to the first CRD (config/, maximum 10): {stdout}"
    );
    assert!(
        stdout.contains("old/config/crd/widgets.yaml:1:1: warning: another CRD for example.com Widget comes first (widgets.example.com in config/crd/widgets.yaml)"),
        "{stdout}"
    );
}
