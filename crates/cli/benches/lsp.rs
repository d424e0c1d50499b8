//! `cargo bench --profile cli -p crd-studio-cli --bench lsp` (part of `cargo xtask bench`): the language
//! server as an editor meets it, over stdio. Prints figures and never fails on them:
//!
//! - edit → diagnostics (p50/p95/max): a keystroke in an object and the diagnostics of that
//!   version, for the CronTab and for argo-workflows' Workflow CRD (2.8 MB) with the object
//!   in another file; a keystroke in the CRD and the object's diagnostics published again;
//! - indexing `../shared/corpus` as a workspace: the time to the index and to every file
//!   checked, and the server's peak memory (VmHWM) at each.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "../tests/common/lsp_client.rs"]
mod lsp_client;
use lsp_client::{url, Client};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus = root.join("../shared/corpus");
    let crontab = std::fs::read_to_string(root.join("examples/crontab/crd.yaml")).unwrap();
    let object = std::fs::read_to_string(root.join("examples/crontab/object.yaml")).unwrap();
    edits("CronTab", &crontab, &object, "my-awesome-cron-image", 60);
    let argo = corpus.join("crds/argo-workflows/full-argoproj.io_workflows.yaml");
    match std::fs::read_to_string(&argo) {
        Ok(crd) => {
            let obj = std::fs::read_to_string(
                corpus.join("objects/argo-workflows/examples__coinflip.yaml"),
            )
            .unwrap();
            edits(
                "argo-workflows Workflow (2.8 MB CRD)",
                &crd,
                &obj,
                "entrypoint: coinflip",
                30,
            );
        }
        Err(e) => println!("argo-workflows: skipped, because {}: {e}", argo.display()),
    }
    if corpus.is_dir() {
        index(&corpus);
    } else {
        println!(
            "corpus indexing: skipped, because {} is absent",
            corpus.display()
        );
    }
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "crd-studio-lsp-bench-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("crds")).unwrap();
    std::fs::create_dir_all(dir.join("objects")).unwrap();
    dir
}

/// Edits of the object (`needle` gets a suffix) and of the CRD (the first `description:`).
fn edits(name: &str, crd: &str, object: &str, needle: &str, rounds: i32) {
    let dir = temp("edits");
    let crd_path = dir.join("crds/crd.yaml");
    let obj_path = dir.join("objects/object.yaml");
    std::fs::write(&crd_path, crd).unwrap();
    std::fs::write(&obj_path, object).unwrap();
    let mut c = Client::start(&dir, Value::Null);
    c.open(&obj_path, object, 1);
    c.wait_within("first diagnostics", Duration::from_secs(300), |v| {
        is_publish(v, &obj_path, Some(1))
    });
    let mut times = Vec::new();
    for v in 2..2 + rounds {
        let text = object.replacen(needle, &format!("{needle}{v}"), 1);
        let t = Instant::now();
        c.change(&obj_path, &text, v);
        c.wait("diagnostics", |m| is_publish(m, &obj_path, Some(v)));
        times.push(t.elapsed());
    }
    report(
        &format!("{name}: object keystroke -> its diagnostics"),
        &mut times,
    );
    // Keystrokes in the CRD: a description changes; the object is checked again.
    c.open(&crd_path, crd, 1);
    c.wait_within("CRD diagnostics", Duration::from_secs(300), |v| {
        is_publish(v, &crd_path, Some(1))
    });
    let at = crd.find("description: ").map(|i| i + "description: ".len());
    let mut times = Vec::new();
    for v in 2..2 + rounds.min(20) {
        let text = match at {
            Some(i) => format!("{}x{v}{}", &crd[..i], &crd[i..]),
            None => format!("{crd}\n# {v}\n"),
        };
        let t = Instant::now();
        c.change(&crd_path, &text, v);
        c.wait_within("object re-checked", Duration::from_secs(120), |m| {
            is_publish(m, &obj_path, Some(rounds + 1))
        });
        times.push(t.elapsed());
    }
    report(
        &format!("{name}: CRD keystroke -> the object's diagnostics"),
        &mut times,
    );
    c.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

fn is_publish(v: &Value, path: &Path, version: Option<i32>) -> bool {
    v["method"] == "textDocument/publishDiagnostics"
        && v["params"]["uri"] == url(path)
        && version.is_none_or(|n| v["params"]["version"] == json!(n))
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let pick = |q: f64| ms(times[((times.len() as f64 - 1.0) * q).round() as usize]);
    println!(
        "{what}: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms ({} edits)",
        pick(0.5),
        pick(0.95),
        ms(*times.last().unwrap()),
        times.len()
    );
}

fn peak_kib(pid: u32, key: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// `../shared/corpus` as a workspace.
fn index(corpus: &Path) {
    let t = Instant::now();
    let mut c = Client::start(corpus, Value::Null);
    let log = c.wait_within("the index", Duration::from_secs(120), |v| {
        v["method"] == "window/logMessage"
            && v["params"]["message"]
                .as_str()
                .is_some_and(|m| m.contains(" files, "))
    });
    let indexed = t.elapsed();
    let pid = c.child.id();
    println!(
        "corpus: indexed in {:.2} s ({}), peak memory {:.0} MiB",
        indexed.as_secs_f64(),
        log["params"]["message"].as_str().unwrap_or(""),
        peak_kib(pid, "VmHWM:") as f64 / 1024.0
    );
    // Every file checked: the server says so in its log.
    let mut published = 0;
    while t.elapsed() < Duration::from_secs(900) {
        match c.try_next(Duration::from_secs(60)) {
            Some(v) if v["method"] == "textDocument/publishDiagnostics" => published += 1,
            Some(v)
                if v["method"] == "window/logMessage"
                    && v["params"]["message"]
                        .as_str()
                        .is_some_and(|m| m.starts_with("crd-studio: checked ")) =>
            {
                break
            }
            Some(_) => {}
            None => break,
        }
    }
    let last = Instant::now();
    println!(
        "corpus: every file checked in {:.1} s ({published} files with diagnostics), peak memory {:.0} MiB, now {:.0} MiB",
        (last - t).as_secs_f64(),
        peak_kib(pid, "VmHWM:") as f64 / 1024.0,
        peak_kib(pid, "VmRSS:") as f64 / 1024.0
    );
    c.stop();
}
