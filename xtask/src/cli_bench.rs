//! `cargo xtask bench --cli [BINARY]` (and the last part of `cargo xtask bench`): the whole
//! `../shared/corpus` through `crd-studio check` in one repository-mode run (every CRD
//! compiled once, the objects matched by group and kind, rayon over the cores), in objects
//! per second and per core (also with one thread, `RAYON_NUM_THREADS=1`), beside the same
//! files through one `crd-studio check CRD OBJECT...` process per CRD (today's way, each
//! CRD's object files from the corpus index). Before that, the corpus's ten largest CRDs, each
//! with its first object, one `crd-studio check` process each: whole-process CPU and peak
//! memory (`/usr/bin/time`), beside parsing the same YAML in this process (issue 29's goal:
//! at least 5x the server's code, peak memory at most 20x the input). Prints figures, never
//! fails on them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::ci::cpu_seconds;
use crate::{cmd, root, run, step, target_dir};

/// Builds the CLI as installed and shipped (the `cli` profile: optimized for speed; the
/// `release` profile is the page's, optimized for size) and gives its path.
pub fn shipped_cli() -> Result<PathBuf, String> {
    step("cargo build --profile cli -p crd-studio-cli");
    run(cmd("cargo").args([
        "build",
        "--profile",
        "cli",
        "--locked",
        "-p",
        "crd-studio-cli",
    ]))?;
    Ok(target_dir().join("cli/crd-studio"))
}

/// The task: builds the CLI as shipped unless a binary is named, then measures.
pub fn run_task(args: &[String]) -> Result<bool, String> {
    let binary = match args.iter().find(|a| !a.starts_with("--")) {
        Some(b) => PathBuf::from(b),
        None => shipped_cli()?,
    };
    let corpus = root().join("../shared/corpus");
    if !corpus.join("index.json").is_file() {
        println!("skipped: ../shared/corpus is absent");
        return Ok(true);
    }
    measure(&binary, &corpus)?;
    Ok(true)
}

/// One timed run: wall seconds, CPU seconds (the process's user + system: the figure that
/// does not depend on what else the machine runs) and the JSON report's object count.
fn one_run(
    binary: &Path,
    corpus: &Path,
    threads: Option<usize>,
) -> Result<(f64, f64, u64), String> {
    let mut c = Command::new(binary);
    c.current_dir(corpus).args([
        "check",
        "crds",
        "objects",
        "--ignore-missing-crds",
        "--format",
        "json",
        "--now",
        "2026-01-01T00:00:00Z",
    ]);
    if let Some(n) = threads {
        c.env("RAYON_NUM_THREADS", n.to_string());
    }
    let t = Instant::now();
    let cpu = cpu_seconds();
    let out = c
        .output()
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    let secs = t.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "the run's JSON: {e} ({})",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let objects = v["summary"]["objects"].as_u64().unwrap_or(0);
    Ok((secs, cpu, objects))
}

/// The ten largest CRDs (by file size) with their first object file, from the corpus index.
fn largest_crds(index: &serde_json::Value) -> Vec<(String, Option<String>)> {
    let empty = Vec::new();
    let objects = index["objects"].as_array().unwrap_or(&empty);
    let mut crds: Vec<(u64, String, Option<String>)> = index["crds"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .filter_map(|c| {
            let file = c["file"].as_str()?;
            let object = objects
                .iter()
                .find(|o| {
                    o["crds"].as_array().is_some_and(|cs| {
                        cs.iter()
                            .any(|x| x["group"] == c["group"] && x["kind"] == c["kind"])
                    })
                })
                .and_then(|o| o["file"].as_str())
                .map(str::to_owned);
            Some((c["size_bytes"].as_u64()?, file.to_owned(), object))
        })
        .collect();
    crds.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    crds.into_iter().take(10).map(|(_, f, o)| (f, o)).collect()
}

/// One `crd-studio check CRD [OBJECT]` under `/usr/bin/time`: the best CPU seconds (user +
/// system) of three runs and that run's peak resident memory in bytes.
fn timed_check(
    binary: &Path,
    corpus: &Path,
    crd: &str,
    object: Option<&str>,
) -> Option<(f64, u64)> {
    let mut best: Option<(f64, u64)> = None;
    for _ in 0..3 {
        let out = Command::new("/usr/bin/time")
            .current_dir(corpus)
            .args(["-f", "%U %S %M"])
            .arg(binary)
            .args(["check", crd])
            .args(object)
            .args(["--now", "2026-01-01T00:00:00Z"])
            .output()
            .ok()?;
        let err = String::from_utf8_lossy(&out.stderr);
        let fields: Vec<f64> = err
            .lines()
            .last()?
            .split_whitespace()
            .filter_map(|f| f.parse().ok())
            .collect();
        let [user, sys, kb] = fields[..] else {
            return None;
        };
        let run = (user + sys, (kb * 1024.0) as u64);
        if best.is_none_or(|b| run.0 < b.0) {
            best = Some(run);
        }
    }
    best
}

/// The ten largest CRDs, one process each, beside parsing their YAML here.
fn largest(binary: &Path, corpus: &Path, index: &serde_json::Value) {
    step("the ten largest CRDs, one `crd-studio check CRD OBJECT` process each");
    if !Path::new("/usr/bin/time").is_file() {
        println!("skipped: /usr/bin/time is absent");
        return;
    }
    println!(
        "{:<58} {:>9} {:>9} {:>8} {:>7} {:>9} {:>6}",
        "CRD (+ first object)", "input KB", "parse ms", "CPU ms", "x parse", "peak MB", "x input"
    );
    for (crd, object) in largest_crds(index) {
        let size = |f: &str| std::fs::metadata(corpus.join(f)).map_or(0, |m| m.len());
        let input = size(&crd) + object.as_deref().map_or(0, size);
        let text = std::fs::read_to_string(corpus.join(&crd)).unwrap_or_default();
        let mut parse = f64::MAX;
        for _ in 0..3 {
            let t = Instant::now();
            std::hint::black_box(crd_studio_engine::DocumentTexts::read(
                &text,
                crd_studio_engine::SourceId::Crd,
            ));
            parse = parse.min(t.elapsed().as_secs_f64());
        }
        let name = crd.rsplit('/').next().unwrap_or(&crd);
        match timed_check(binary, corpus, &crd, object.as_deref()) {
            Some((cpu, rss)) => println!(
                "{:<58} {:>9} {:>9.0} {:>8.0} {:>7.1} {:>9.1} {:>6.1}",
                format!("{name}{}", if object.is_some() { " + 1" } else { "" }),
                input / 1024,
                parse * 1e3,
                cpu * 1e3,
                cpu / parse.max(1e-9),
                rss as f64 / 1e6,
                rss as f64 / input.max(1) as f64
            ),
            None => println!("{name}: could not be measured"),
        }
    }
    println!(
        "(parse ms: DocumentTexts::read in this xtask process, the engine as `cargo xtask` builds \
         it; CPU ms and peak MB: the CLI binary, best of three runs by CPU)"
    );
}

fn measure(binary: &Path, corpus: &Path) -> Result<(), String> {
    if let Ok(index) = std::fs::read_to_string(corpus.join("index.json")) {
        if let Ok(index) = serde_json::from_str(&index) {
            largest(binary, corpus, &index);
        }
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    step(&format!(
        "crd-studio check on the whole corpus, one run ({})",
        binary.display()
    ));
    // A first run warms the file cache.
    one_run(binary, corpus, None)?;
    let (all, all_cpu, objects) = one_run(binary, corpus, None)?;
    let (single, single_cpu, _) = one_run(binary, corpus, Some(1))?;
    let n = objects as f64;
    println!(
        "one run, {cores} threads: {objects} objects in {all:.2} s ({:.0} objects/s), CPU {all_cpu:.2} s = {:.0} objects per CPU-second",
        n / all,
        n / all_cpu
    );
    println!(
        "one run, 1 thread: {single:.2} s ({:.0} objects/s per core), CPU {single_cpu:.2} s = {:.0} objects per CPU-second",
        n / single,
        n / single_cpu
    );

    step("the same files, one `crd-studio check CRD OBJECT...` process per CRD");
    let index: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(corpus.join("index.json")).map_err(|e| format!("index: {e}"))?,
    )
    .map_err(|e| format!("index.json: {e}"))?;
    let empty = Vec::new();
    let crds = index["crds"].as_array().unwrap_or(&empty);
    let objects_index = index["objects"].as_array().unwrap_or(&empty);
    let t = Instant::now();
    let cpu = cpu_seconds();
    let mut processes = 0;
    for crd in crds {
        let (Some(file), Some(group), Some(kind)) = (
            crd["file"].as_str(),
            crd["group"].as_str(),
            crd["kind"].as_str(),
        ) else {
            continue;
        };
        let files: Vec<&str> = objects_index
            .iter()
            .filter(|o| {
                o["crds"]
                    .as_array()
                    .is_some_and(|cs| cs.iter().any(|c| c["group"] == group && c["kind"] == kind))
            })
            .filter_map(|o| o["file"].as_str())
            .collect();
        Command::new(binary)
            .current_dir(corpus)
            .arg("check")
            .arg(file)
            .args(&files)
            .args(["--format", "json", "--now", "2026-01-01T00:00:00Z"])
            .output()
            .map_err(|e| format!("{}: {e}", binary.display()))?;
        processes += 1;
    }
    let per_crd = t.elapsed().as_secs_f64();
    let per_crd_cpu = cpu_seconds() - cpu;
    println!(
        "{processes} processes, one per CRD: {per_crd:.2} s ({:.0} objects/s), CPU {per_crd_cpu:.2} s = {:.0} objects per CPU-second",
        n / per_crd,
        n / per_crd_cpu
    );
    println!(
        "one run against one process per CRD: {:.1}x the wall time, {:.1}x the CPU time",
        per_crd / all,
        per_crd_cpu / all_cpu
    );
    Ok(())
}
