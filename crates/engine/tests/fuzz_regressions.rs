//! The fuzz targets' inputs as regression tests (issue 17): every file of the committed fuzz
//! corpora (`fuzz/corpus/<target>/`) and every minimized input a fuzz run found a problem
//! with (`tests/fuzz-regressions/<target>/`, named after what it found) goes through the
//! same engine calls as its target in `fuzz/fuzz_targets/<target>.rs`, in a thread with a
//! deadline: no panic, no runaway time. The input formats are the targets' (parts split at
//! the byte 0xFF); `cel` inputs are stored as the texts the `cel` target derived from its
//! `arbitrary` input: `version 0xFF crd 0xFF object [0xFF old-object]`. The share-link
//! target's inputs are tested in the web crate (`studio_state`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use crd_studio_engine::{
    analyze, check_conversion_response, conversion_review, jsonpath, read_documents,
    select_by_field_selector, CompiledCrd, KubernetesVersion, Options, Request, SelectorVersion,
    SourceId,
};
use serde_json::Value;

/// Generous for a debug build on a loaded machine; the fuzz runs allow 10 s in release.
const DEADLINE: Duration = Duration::from_secs(60);

/// The gallery examples the object targets use, in `fuzz/src/lib.rs`'s order.
const EXAMPLES: [&str; 10] = [
    "crontab",
    "cel-cost-budget",
    "cel-messages-ratcheting",
    "defaulting-pruning",
    "http-route",
    "list-types",
    "multi-version",
    "non-structural",
    "printer-columns-scale",
    "webhook-conversion",
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn example(index: usize, file: &str) -> String {
    let name = EXAMPLES[index % EXAMPLES.len()];
    fs::read_to_string(repo().join("examples").join(name).join(file)).unwrap()
}

fn options() -> Options {
    Options {
        now: crd_studio_engine::Time::parse_rfc3339("2026-01-01T00:00:00Z").ok(),
        ..Options::default()
    }
}

fn parts(data: &[u8]) -> Vec<String> {
    data.split(|b| *b == 0xff)
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect()
}

/// One input through its target's calls.
fn run_target(target: &str, data: &[u8]) {
    let text = String::from_utf8_lossy(data).into_owned();
    match target {
        "documents" => {
            let _ = read_documents(&text, SourceId::Object(0));
        }
        "crd" => {
            let _ = CompiledCrd::compile(&text, &options()).analyze_objects(&[], None);
        }
        "object" => {
            let Some((first, rest)) = data.split_first() else {
                return;
            };
            let compiled =
                CompiledCrd::compile(&example(usize::from(first & 0x7f), "crd.yaml"), &options());
            let mut p = parts(rest).into_iter();
            let object = p.next().unwrap_or_default();
            let old = if first & 0x80 != 0 { p.next() } else { None };
            let _ = compiled.analyze_objects(&[object], old.as_deref());
        }
        "crd_object" | "cel" => {
            let mut p = parts(data).into_iter();
            let mut options = options();
            if target == "cel" {
                options.kubernetes_version =
                    KubernetesVersion::parse(&p.next().unwrap_or_default()).unwrap_or_default();
            }
            let crd = p.next().unwrap_or_default();
            let objects = p.next().into_iter().collect();
            let old_object = p.next();
            let _ = analyze(&Request {
                crd,
                objects,
                old_object,
                old_crd: None,
                options,
            });
        }
        "jsonpath" => {
            let mut p = parts(data).into_iter();
            let template = p.next().unwrap_or_default();
            let json: Value = p
                .next()
                .and_then(|d| serde_json::from_str(&d).ok())
                .unwrap_or_else(|| serde_json::json!({"metadata": {"name": "n"}, "spec": {"list": [1, "a", null]}}));
            let _ = jsonpath(&template, &json, false);
            let _ = jsonpath(&template, &json, true);
        }
        "field_selector" => {
            let mut p = parts(data).into_iter();
            let selector = p.next().unwrap_or_default();
            let selectable_fields = match p.next() {
                Some(f) => f.lines().map(str::to_owned).collect(),
                None => vec![".spec.region".to_owned(), ".spec.machineType".to_owned()],
            };
            let version = SelectorVersion {
                group: "compute.example.com".to_owned(),
                version: "v1".to_owned(),
                plural: "workerpools".to_owned(),
                namespaced: true,
                selectable_fields,
            };
            let objects: Vec<Value> = p
                .next()
                .and_then(|o| serde_json::from_str(&o).ok())
                .unwrap_or_else(|| {
                    let object = example(8, "object.yaml");
                    let documents = read_documents(&object, SourceId::Object(0));
                    documents.values.into_iter().map(|(_, v)| v).collect()
                });
            let _ = select_by_field_selector(&version, &selector, &objects);
        }
        "conversion_response" => {
            let Some((first, rest)) = data.split_first() else {
                return;
            };
            let compiled = CompiledCrd::compile(&example(9, "crd.yaml"), &options());
            let object = example(9, "object.yaml");
            let documents = read_documents(&object, SourceId::Object(0));
            let objects: Vec<Value> = documents.values.into_iter().map(|(_, v)| v).collect();
            let to = if first & 1 == 0 { "v2" } else { "v1" };
            let response = String::from_utf8_lossy(rest).into_owned();
            if let Ok(call) = conversion_review(&compiled, &objects, to, None) {
                let _ = check_conversion_response(&compiled, &call, &response);
            }
        }
        other => panic!("unknown fuzz target {other}"),
    }
}

/// Every file of `dir/<target>/` through its target, each within the deadline.
fn run_dir(dir: &Path) -> usize {
    let mut count = 0;
    let Ok(targets) = fs::read_dir(dir) else {
        return 0;
    };
    let mut targets: Vec<PathBuf> = targets
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    targets.sort();
    for target_dir in targets {
        let target = target_dir
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if target == "share_link" {
            continue;
        }
        let mut files: Vec<PathBuf> = fs::read_dir(&target_dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        for file in files {
            if file.extension().is_some_and(|e| e == "md")
                || target == "cel" && dir.ends_with("corpus")
            {
                // The committed `cel` corpus holds `arbitrary` bytes, not texts.
                continue;
            }
            let data = fs::read(&file).unwrap();
            let (tx, rx) = mpsc::channel();
            let t = target.clone();
            thread::Builder::new()
                .stack_size(8 << 20)
                .spawn(move || {
                    run_target(&t, &data);
                    let _ = tx.send(());
                })
                .unwrap();
            match rx.recv_timeout(DEADLINE) {
                Ok(()) => count += 1,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    panic!("{}: no answer within {DEADLINE:?}", file.display())
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    panic!("{}: the engine panicked", file.display())
                }
            }
        }
    }
    count
}

#[test]
fn fuzz_regressions() {
    let n = run_dir(&repo().join("crates/engine/tests/fuzz-regressions"));
    println!("{n} regression inputs");
}

#[test]
fn committed_fuzz_corpora() {
    let n = run_dir(&repo().join("fuzz/corpus"));
    assert!(n > 10, "the committed fuzz corpora are missing: {n} inputs");
}
