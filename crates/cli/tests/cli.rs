//! Runs the built `crd-studio` binary on small files: exit codes, the text format, JSON keys,
//! standard input.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

mod common;
use common::{temp_dir, TempDir};

const CRD: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    listKind: CronTabList
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
";

const GOOD: &str = "\
apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: every-five
spec:
  cronSpec: '*/5 * * * *'
";

/// Line 4, column 12 is the second `:` of `name: bad: x`, which YAML does not allow there.
const SYNTAX_ERROR: &str = "\
apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: bad: x
";

/// A fresh directory with the given files, removed when dropped.
fn dir_with(test: &str, files: &[(&str, &str)]) -> TempDir {
    temp_dir("cli", test, files)
}

fn crd_studio(dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crd-studio"))
        .args(args)
        .current_dir(dir)
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
        // A run that fails on its arguments exits without reading standard input: a broken
        // pipe here is expected then, and the exit status tells the rest.
        if let Err(e) = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes())
        {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
        }
    }
    child.wait_with_output().expect("wait for crd-studio")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn accepted_objects_exit_zero() {
    let dir = dir_with("ok", &[("crd.yaml", CRD), ("cron.yaml", GOOD)]);
    let out = crd_studio(&dir, &["check", "crd.yaml", "cron.yaml"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out)
        .lines()
        .last()
        .is_some_and(|l| l.starts_with("accepted:")));
}

#[test]
fn a_yaml_syntax_error_is_located_and_exits_one() {
    let dir = dir_with(
        "syntax",
        &[
            ("crd.yaml", CRD),
            ("bad.yaml", SYNTAX_ERROR),
            ("cron.yaml", GOOD),
        ],
    );
    let out = crd_studio(&dir, &["check", "crd.yaml", "cron.yaml", "bad.yaml"], None);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let first = text.lines().next().unwrap_or("");
    assert!(first.starts_with("bad.yaml:4:12: error: "), "{text}");
    assert!(
        text.lines()
            .last()
            .is_some_and(|l| l.starts_with("rejected:")),
        "{text}"
    );
}

#[test]
fn findings_have_the_file_line_col_shape() {
    let not_a_crd = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";
    let dir = dir_with("shape", &[("cm.yaml", not_a_crd)]);
    let out = crd_studio(&dir, &["check", "cm.yaml"], None);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 2, "{text}");
    for line in &lines[..lines.len() - 1] {
        let mut parts = line.splitn(4, ':');
        assert_eq!(parts.next(), Some("cm.yaml"), "{line}");
        let line_no = parts.next().and_then(|p| p.parse::<usize>().ok());
        let col_no = parts.next().and_then(|p| p.parse::<usize>().ok());
        assert!(line_no.is_some() && col_no.is_some(), "{line}");
        let rest = parts.next().unwrap_or("");
        assert!(
            rest.starts_with(" error: ")
                || rest.starts_with(" warning: ")
                || rest.starts_with(" info: "),
            "{line}"
        );
    }
}

#[test]
fn usage_and_io_errors_exit_two() {
    let dir = dir_with("usage", &[("crd.yaml", CRD)]);
    for args in [
        &[][..],
        &["check"][..],
        &["lint", "crd.yaml"][..],
        &["check", "crd.yaml", "--format", "xml"][..],
        &["check", "crd.yaml", "--field-validation", "Loose"][..],
        &["check", "crd.yaml", "--bogus"][..],
        &["check", "-", "-"][..],
        &["check", "missing.yaml"][..],
        &["check", "crd.yaml", "missing.yaml"][..],
    ] {
        let out = crd_studio(&dir, args, Some(GOOD));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}: no message on stderr");
    }
}

#[test]
fn help_and_version_exit_zero() {
    let dir = dir_with("help", &[]);
    for args in [
        &["--help"][..],
        &["-h"][..],
        &["check", "--help"][..],
        &["--version"][..],
    ] {
        let out = crd_studio(&dir, args, None);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
    let version = stdout(&crd_studio(&dir, &["--version"], None));
    assert!(version.starts_with("crd-studio "), "{version}");
}

#[test]
fn json_output_has_the_oracle_keys() {
    let dir = dir_with(
        "json",
        &[
            ("crd.yaml", CRD),
            ("cron.yaml", GOOD),
            ("bad.yaml", SYNTAX_ERROR),
        ],
    );
    let out = crd_studio(
        &dir,
        &[
            "check",
            "crd.yaml",
            "cron.yaml",
            "bad.yaml",
            "--format",
            "json",
            "--field-validation",
            "Warn",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(doc["crd"]["file"], "crd.yaml");
    assert_eq!(doc["crd"]["name"], "crontabs.stable.example.com");
    assert_eq!(doc["crd"]["accepted"], true);
    assert!(doc["crd"]["errors"].is_array());
    assert_eq!(doc["versions"][0]["name"], "v1");
    let object = &doc["objects"][0];
    assert_eq!(object["file"], "cron.yaml");
    for key in [
        "document",
        "apiVersion",
        "kind",
        "name",
        "operation",
        "prunedPaths",
        "pruned",
        "defaulted",
        "schemaErrors",
        "celErrors",
        "celRuntimeCost",
        "errors",
        "accepted",
        "table",
    ] {
        assert!(
            object.get(key).is_some(),
            "objects[0] has no {key}: {object}"
        );
    }
    assert!(object.get("source").is_none());
    let findings = doc["findings"].as_array().expect("findings");
    assert!(
        findings.iter().any(|f| f["file"] == "bad.yaml"),
        "{findings:?}"
    );
}

#[test]
fn standard_input_is_read_for_dash() {
    let dir = dir_with("stdin", &[("crd.yaml", CRD)]);
    let out = crd_studio(&dir, &["check", "crd.yaml", "-"], Some(SYNTAX_ERROR));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).starts_with("<stdin>:4:12: error: "),
        "{}",
        stdout(&out)
    );
    let out = crd_studio(&dir, &["check", "-", "--format=json"], Some(CRD));
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["crd"]["file"], "<stdin>");
}

/// `check` computes the table rows' ages against a clock (`--now`, by default the current
/// time), as the server's table convertor does against its own
/// (apiextensions-apiserver `tableconvertor.cellForJSONValue` → apimachinery
/// `table.ConvertToHumanReadableDateType` → `duration.HumanDuration(time.Since(t))`): a date
/// more than a second in the future reads `<invalid>`, a past one its age.
#[test]
fn table_dates_are_aged_against_a_clock() {
    let crd = CRD.replace(
        "    schema:\n",
        "    additionalPrinterColumns:\n    - {name: Next, type: date, jsonPath: .spec.cronSpec}\n    schema:\n",
    );
    let objects = "\
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: future}
spec: {cronSpec: '2030-01-01T00:00:00Z'}
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: past}
spec: {cronSpec: '2026-11-20T10:00:00Z'}
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: almost-now}
spec: {cronSpec: '2026-11-25T10:00:01Z'}
";
    let dir = dir_with("dates", &[("crd.yaml", &crd), ("o.yaml", objects)]);
    let cells = |extra: &[&str]| -> Vec<serde_json::Value> {
        let mut args = vec!["check", "crd.yaml", "o.yaml", "--format", "json"];
        args.extend_from_slice(extra);
        let out = crd_studio(&dir, &args, None);
        assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        doc["objects"]
            .as_array()
            .expect("objects")
            .iter()
            .map(|o| o["table"]["cells"][1].clone())
            .collect()
    };
    assert_eq!(
        cells(&["--now", "2026-11-25T10:00:00Z"]),
        [
            serde_json::json!("<invalid>"),
            serde_json::json!("5d"),
            serde_json::json!("0s")
        ]
    );
    // The current time: 2030 is still ahead.
    assert_eq!(cells(&[])[0], serde_json::json!("<invalid>"));
    let out = crd_studio(&dir, &["check", "crd.yaml", "--now", "soon"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_cel_gate_follows_the_errors_and_json_has_summaries() {
    let crd = CRD.replace(
        "              cronSpec:\n                type: string\n",
        "              cronSpec:\n                type: string\n                maxLength: 3\n                x-kubernetes-validations:\n                - rule: self.size() > 0\n",
    );
    let dir = dir_with("gate", &[("crd.yaml", &crd), ("ok.yaml", GOOD)]);
    let out = crd_studio(&dir, &["check", "crd.yaml", "ok.yaml"], None);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    // The text is the server's; the gate comes after the error it is about.
    assert!(
        lines[0].starts_with(
            "ok.yaml:6:3: error: spec.cronSpec: Too long: may not be more than 3 bytes"
        ),
        "{text}"
    );
    assert!(
        lines[1].starts_with("ok.yaml:1:1: error: <nil>: Invalid value: null: some validation rules were not checked"),
        "{text}"
    );
    let out = crd_studio(
        &dir,
        &["check", "crd.yaml", "ok.yaml", "--format", "json"],
        None,
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = json["findings"].as_array().unwrap();
    assert_eq!(
        findings[0]["summary"],
        "spec.cronSpec is too long: may not be more than 3 bytes"
    );
    assert_eq!(findings[1]["note"], true);
}

/// Issue 17, item 8: a file over the request limit is refused without being read whole. The
/// object is a sparse 64 GiB file (it takes no disk space); before, the CLI tried to read it
/// into memory and aborted on allocation.
#[test]
fn a_huge_file_is_refused_without_reading_it_whole() {
    let dir = dir_with("huge", &[("crd.yaml", CRD)]);
    let huge = std::fs::File::create(dir.join("huge.yaml")).expect("create");
    huge.set_len(1 << 36).expect("sparse 64 GiB file");
    drop(huge);
    let out = crd_studio(&dir, &["check", "crd.yaml", "huge.yaml"], None);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("huge.yaml:1:1: error: Request entity too large: limit is 3145728"),
        "{}",
        stdout(&out)
    );
}

/// cli-runtime `pkg/resource/visitor.go` `FileVisitor.Visit`: kubectl reads a file through
/// golang.org/x/text's `unicode.BOMOverride(unicode.UTF8.NewDecoder())`: a UTF-16 file with
/// its byte-order mark is decoded, invalid UTF-8 becomes U+FFFD. Neither is refused (exit 2
/// was "not UTF-8 text"): the file is analysed, each replaced place is a located warning.
#[test]
fn files_are_read_as_kubectl_reads_them() {
    let utf16 = |big: bool| {
        let mut b: Vec<u8> = if big {
            vec![0xFE, 0xFF]
        } else {
            vec![0xFF, 0xFE]
        };
        for u in GOOD.encode_utf16() {
            b.extend(if big {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            });
        }
        b
    };
    let mut bom8 = vec![0xEF, 0xBB, 0xBF];
    bom8.extend(GOOD.as_bytes());
    let bad = GOOD
        .replace("every-five", "every-\u{1}five")
        .replace('\u{1}', "\u{7f}");
    let mut bad = bad.into_bytes();
    // `metadata.name: every-<ff>five` (line 4, column 15 is the byte after `every-`).
    let at = bad.iter().position(|b| *b == 0x7f).unwrap();
    bad[at] = 0xff;
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("crd.yaml", CRD.as_bytes().to_vec()),
        ("le.yaml", utf16(false)),
        ("be.yaml", utf16(true)),
        ("bom8.yaml", bom8),
        ("bad.yaml", bad),
    ];
    let dir = temp_dir("cli", "kubectl-read", &files);
    for f in ["le.yaml", "be.yaml", "bom8.yaml"] {
        let out = crd_studio(&dir, &["check", "crd.yaml", f], None);
        assert_eq!(out.status.code(), Some(0), "{f}: {}", stdout(&out));
        assert!(
            !stdout(&out).contains(": warning:"),
            "{f}: {}",
            stdout(&out)
        );
    }
    let out = crd_studio(&dir, &["check", "crd.yaml", "bad.yaml"], None);
    let text = stdout(&out);
    assert!(
        text.contains("bad.yaml:4:15: warning: invalid UTF-8 (bytes ff): kubectl's file reader"),
        "{text}"
    );
    // The name with U+FFFD is what the server judges.
    assert!(text.contains("every-\u{FFFD}five"), "{text}");
    assert_eq!(out.status.code(), Some(1), "{text}");
}
