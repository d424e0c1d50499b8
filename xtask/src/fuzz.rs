//! `cargo xtask fuzz [TARGET] [--seconds N] [--runs N] [--committed-only]`: coverage-guided
//! fuzzing of the targets in `fuzz/` with cargo-fuzz (libFuzzer) on the stable toolchain
//! (`RUSTC_BOOTSTRAP=1`, `--sanitizer none`; why: `fuzz/src/lib.rs`).
//!
//! Each target runs on its committed corpus (`fuzz/corpus/<target>/`) and, unless
//! `--committed-only`, on seeds taken at run time from `../shared/corpus` and
//! `../shared/conformance` (written outside the work tree; skipped, with a note, when absent).
//! New inputs go to a scratch directory, never into the committed corpus. Per target it prints
//! the executions, exec/s, libFuzzer's final coverage (`cov`: edges, `ft`: features) and the
//! crashes (the saved input's path); a crash, timeout (10 s) or out-of-memory (2 GB) fails.
//!
//! The fuzz build has its own target directory: `$CARGO_TARGET_DIR-fuzz` when
//! `CARGO_TARGET_DIR` is set (its flags differ, so sharing would rebuild both), else
//! `fuzz/target`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

use serde_json::Value;

use crate::{cargo_tool, cmd, root, run, step};

/// The targets, in the order they run (`fuzz/Cargo.toml` has one `[[bin]]` each).
pub const TARGETS: [&str; 9] = [
    "documents",
    "crd",
    "object",
    "crd_object",
    "cel",
    "jsonpath",
    "field_selector",
    "conversion_response",
    "share_link",
];

/// The cargo-fuzz release this repository is tested with.
const CARGO_FUZZ_VERSION: &str = "0.13.2";

/// libFuzzer's per-input time limit (seconds) and memory limit (MB): a slower or bigger
/// input is a finding.
const TIMEOUT_S: u32 = 10;
const RSS_LIMIT_MB: u32 = 2048;

/// Seeds taken from the shared data per target, at most.
const MAX_SEEDS: usize = 400;

/// What one target's run found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The target.
    pub target: String,
    /// Inputs executed (libFuzzer's `stat::number_of_executed_units`).
    pub executions: u64,
    /// Executions per second.
    pub exec_per_sec: u64,
    /// Edge coverage and features of the last status line.
    pub cov: u64,
    /// Features.
    pub ft: u64,
    /// Peak memory (MB).
    pub peak_rss_mb: u64,
    /// What failed (crash, timeout, out-of-memory, leak), with the saved input.
    pub failure: Option<String>,
    /// The full log.
    pub log: PathBuf,
}

/// The command line task.
pub fn run_task(args: &[String]) -> Result<bool, String> {
    let mut seconds = 20u64;
    let mut runs: Option<u64> = None;
    let mut committed_only = false;
    let mut targets = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seconds" => {
                seconds = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .ok_or("--seconds needs a number")?;
            }
            "--runs" => {
                runs = Some(
                    it.next()
                        .and_then(|s| s.parse().ok())
                        .ok_or("--runs needs a number")?,
                );
            }
            "--committed-only" => committed_only = true,
            t if TARGETS.contains(&t) => targets.push(t.to_owned()),
            other => {
                return Err(format!(
                    "unknown argument `{other}`; targets: {}",
                    TARGETS.join(", ")
                ))
            }
        }
    }
    if targets.is_empty() {
        targets = TARGETS.iter().map(|t| (*t).to_owned()).collect();
    }
    fuzz(&targets, seconds, runs, !committed_only)
}

/// Builds the targets, runs each, prints the table; `Ok(false)` when any found something.
pub fn fuzz(
    targets: &[String],
    seconds: u64,
    runs: Option<u64>,
    shared_seeds: bool,
) -> Result<bool, String> {
    step("fuzz: cargo-fuzz");
    install()?;
    let target_dir = fuzz_target_dir();
    let scratch = target_dir.join("xtask-fuzz");
    step(&format!(
        "fuzz: build ({} targets, target dir {})",
        targets.len(),
        target_dir.display()
    ));
    let t = Instant::now();
    if targets.len() == TARGETS.len() {
        run(fuzz_cmd(&target_dir).args(["build", "--sanitizer", "none", "--fuzz-dir", "fuzz"]))?;
    } else {
        // `cargo fuzz build` takes one target or all: the chosen ones one by one (their
        // dependencies are built once).
        for target in targets {
            run(fuzz_cmd(&target_dir).args([
                "build",
                "--sanitizer",
                "none",
                "--fuzz-dir",
                "fuzz",
                target,
            ]))?;
        }
    }
    println!("built in {:.0} s", t.elapsed().as_secs_f64());
    let seeds = if shared_seeds {
        step("fuzz: seeds from ../shared");
        Some(shared_seed_dirs(&scratch.join("seeds"))?)
    } else {
        None
    };
    let mut outcomes = Vec::new();
    for target in targets {
        step(&format!("fuzz: {target} ({seconds} s)"));
        let outcome = run_target(
            &target_dir,
            &scratch,
            target,
            seconds,
            runs,
            seeds.is_some(),
        )?;
        println!(
            "{target}: {} executions, {} exec/s, cov {}, ft {}{}",
            outcome.executions,
            outcome.exec_per_sec,
            outcome.cov,
            outcome.ft,
            match &outcome.failure {
                Some(f) => format!(", FOUND: {f} (log {})", outcome.log.display()),
                None => String::new(),
            }
        );
        outcomes.push(outcome);
    }
    println!(
        "\n{:<20} {:>12} {:>8} {:>7} {:>7} {:>7}  crashes",
        "target", "executions", "exec/s", "cov", "ft", "rss MB"
    );
    for o in &outcomes {
        println!(
            "{:<20} {:>12} {:>8} {:>7} {:>7} {:>7}  {}",
            o.target,
            o.executions,
            o.exec_per_sec,
            o.cov,
            o.ft,
            o.peak_rss_mb,
            o.failure.as_deref().unwrap_or("0")
        );
    }
    Ok(outcomes.iter().all(|o| o.failure.is_none()))
}

/// Installs cargo-fuzz unless it is there (`cargo xtask setup --fuzz`, and `cargo xtask
/// test` with the other tools).
pub fn install() -> Result<(), String> {
    cargo_tool("cargo-fuzz", CARGO_FUZZ_VERSION, "cargo-fuzz")
}

/// How many parts `brief_targets` cuts the targets into: each run fuzzes one.
const BRIEF_PARTS: usize = 3;

/// The targets `cargo xtask test` fuzzes briefly: a third of them, a different third each day
/// (UTC), so three days' runs cover them all.
pub fn brief_targets() -> Vec<&'static str> {
    let day = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400);
    brief_targets_of_day(day)
}

fn brief_targets_of_day(day: u64) -> Vec<&'static str> {
    let part = usize::try_from(day % BRIEF_PARTS as u64).unwrap_or(0);
    TARGETS
        .iter()
        .enumerate()
        .filter(|(i, _)| i % BRIEF_PARTS == part)
        .map(|(_, t)| *t)
        .collect()
}

/// `$CARGO_TARGET_DIR-fuzz`, or `fuzz/target`.
fn fuzz_target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => {
            let mut d = dir;
            d.push("-fuzz");
            PathBuf::from(d)
        }
        _ => root().join("fuzz/target"),
    }
}

fn fuzz_cmd(target_dir: &Path) -> std::process::Command {
    let mut c = cmd("cargo");
    c.arg("fuzz")
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", target_dir);
    c
}

fn run_target(
    target_dir: &Path,
    scratch: &Path,
    target: &str,
    seconds: u64,
    runs: Option<u64>,
    with_seeds: bool,
) -> Result<Outcome, String> {
    let work = scratch.join("corpus").join(target);
    let artifacts = scratch.join("artifacts");
    let logs = scratch.join("logs");
    for d in [&work, &artifacts, &logs] {
        fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    let log = logs.join(format!("{target}.log"));
    let log_file = fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
    let mut c = fuzz_cmd(target_dir);
    c.args(["run", "--sanitizer", "none", "--fuzz-dir", "fuzz", target])
        .arg(&work)
        .arg(root().join("fuzz/corpus").join(target));
    let seeds = scratch.join("seeds").join(target);
    if with_seeds && seeds.is_dir() {
        c.arg(&seeds);
    }
    c.arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-timeout={TIMEOUT_S}"))
        .arg(format!("-rss_limit_mb={RSS_LIMIT_MB}"))
        .arg("-print_final_stats=1")
        .arg(format!(
            "-artifact_prefix={}/{target}-",
            artifacts.display()
        ));
    if let Some(n) = runs {
        c.arg(format!("-runs={n}"));
    }
    let out_file = log_file
        .try_clone()
        .map_err(|e| format!("{}: {e}", log.display()))?;
    c.stdout(Stdio::from(out_file))
        .stderr(Stdio::from(log_file));
    let status = c
        .status()
        .map_err(|e| format!("cargo fuzz run {target}: {e}"))?;
    let text = fs::read_to_string(&log).unwrap_or_default();
    let mut outcome = parse_log(target, &text);
    outcome.log = log;
    if !status.success() && outcome.failure.is_none() {
        outcome.failure = Some(format!("cargo fuzz exited with {status}"));
    }
    Ok(outcome)
}

/// The figures and the finding in a libFuzzer log.
fn parse_log(target: &str, text: &str) -> Outcome {
    let mut o = Outcome {
        target: target.to_owned(),
        ..Outcome::default()
    };
    let number_after = |line: &str, key: &str| -> Option<u64> {
        let rest = &line[line.find(key)? + key.len()..];
        rest.split_whitespace().next()?.parse().ok()
    };
    let mut kind: Option<String> = None;
    let mut saved: Option<String> = None;
    for line in text.lines() {
        if let (Some(cov), Some(ft)) = (number_after(line, "cov: "), number_after(line, "ft: ")) {
            o.cov = cov;
            o.ft = ft;
        }
        if let Some(n) = number_after(line, "stat::number_of_executed_units:") {
            o.executions = n;
        }
        if let Some(n) = number_after(line, "stat::average_exec_per_sec:") {
            o.exec_per_sec = n;
        }
        if let Some(n) = number_after(line, "stat::peak_rss_mb:") {
            o.peak_rss_mb = n;
        }
        if kind.is_none() {
            if line.contains("ERROR: libFuzzer: timeout") {
                kind = Some("timeout".into());
            } else if line.contains("ERROR: libFuzzer: out-of-memory") {
                kind = Some("out-of-memory".into());
            } else if line.contains("ERROR: libFuzzer: deadly signal")
                || line.contains("panicked at")
            {
                kind = Some(format!("crash ({})", line.trim()));
            } else if line.contains("ERROR: libFuzzer") {
                kind = Some(line.trim().to_owned());
            }
        }
        if let Some(i) = line.find("Test unit written to ") {
            saved = Some(line[i + "Test unit written to ".len()..].trim().to_owned());
        }
    }
    if let Some(k) = kind {
        o.failure = Some(match saved {
            Some(s) => format!("{k}; input saved to {s}"),
            None => k,
        });
    }
    o
}

/// Writes seeds per target from `../shared/corpus` and `../shared/conformance` into `dir`
/// (emptied first); says what it skipped.
fn shared_seed_dirs(dir: &Path) -> Result<(), String> {
    let _ = fs::remove_dir_all(dir);
    let shared = root().join("../shared");
    let mut seeds: Seeds = Seeds::default();
    let corpus = shared.join("corpus");
    if corpus.is_dir() {
        for f in files_under(&corpus.join("crds")) {
            if let Some(text) = small_text(&f, 64 * 1024) {
                seeds.add("crd", text.as_bytes());
                seeds.add("documents", text.as_bytes());
                seeds.add("crd_object", text.as_bytes());
            }
        }
        for f in files_under(&corpus.join("objects")) {
            if let Some(text) = small_text(&f, 16 * 1024) {
                seeds.add("documents", text.as_bytes());
                let mut object = vec![0u8];
                object.extend_from_slice(text.as_bytes());
                seeds.add("object", &object);
            }
        }
    } else {
        println!("skipped: {} is absent", corpus.display());
    }
    let conformance = shared.join("conformance");
    if conformance.is_dir() {
        for f in files_under(&conformance) {
            let Some(text) = small_text(&f, 8 * 1024 * 1024) else {
                continue;
            };
            let Ok(value) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            let area = f
                .strip_prefix(&conformance)
                .ok()
                .and_then(|p| p.components().next())
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .unwrap_or_default();
            walk(&value, &area, &mut seeds);
        }
    } else {
        println!("skipped: {} is absent", conformance.display());
    }
    seeds.write(dir)
}

#[derive(Default)]
struct Seeds {
    by_target: std::collections::BTreeMap<&'static str, Vec<Vec<u8>>>,
}

impl Seeds {
    fn add(&mut self, target: &'static str, data: &[u8]) {
        let list = self.by_target.entry(target).or_default();
        if list.len() < MAX_SEEDS && !list.iter().any(|d| d == data) {
            list.push(data.to_vec());
        }
    }

    fn write(&self, dir: &Path) -> Result<(), String> {
        for (target, list) in &self.by_target {
            let d = dir.join(target);
            fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
            for (i, data) in list.iter().enumerate() {
                let f = d.join(format!("shared-{i:04}"));
                fs::write(&f, data).map_err(|e| format!("{}: {e}", f.display()))?;
            }
            println!("{target}: {} seeds", list.len());
        }
        Ok(())
    }
}

/// Collects seeds from a conformance value: CRDs, ConversionReviews and small objects as
/// documents, JSONPath templates of printer columns and selectable fields.
fn walk(v: &Value, area: &str, seeds: &mut Seeds) {
    match v {
        Value::Object(map) => {
            let kind = map.get("kind").and_then(Value::as_str);
            let text = || serde_json::to_string(v).unwrap_or_default();
            match kind {
                Some("CustomResourceDefinition") => {
                    let t = text();
                    seeds.add("crd", t.as_bytes());
                    seeds.add("crd_object", t.as_bytes());
                }
                Some("ConversionReview") if map.contains_key("response") => {
                    let mut d = vec![0u8];
                    d.extend_from_slice(text().as_bytes());
                    seeds.add("conversion_response", &d);
                }
                Some(_) if map.contains_key("apiVersion") => {
                    let t = text();
                    if t.len() < 16 * 1024 {
                        seeds.add("documents", t.as_bytes());
                    }
                }
                _ => {}
            }
            for (k, child) in map {
                if let (Some(s), true) = (child.as_str(), k == "jsonPath" || k == "JSONPath") {
                    seeds.add("jsonpath", s.as_bytes());
                    if area == "crd-validation" {
                        seeds.add(
                            "field_selector",
                            format!("{}=x", s.trim_start_matches('.')).as_bytes(),
                        );
                    }
                }
                walk(child, area, seeds);
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(item, area, seeds);
            }
        }
        Value::String(s)
            if area == "printer-columns" && (s.starts_with('.') || s.starts_with('{')) =>
        {
            seeds.add("jsonpath", s.as_bytes());
        }
        _ => {}
    }
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn small_text(path: &Path, max: u64) -> Option<String> {
    let len = fs::metadata(path).ok()?.len();
    (len <= max)
        .then(|| fs::read_to_string(path).ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_days_of_brief_fuzzing_cover_every_target_once() {
        let mut seen: Vec<&str> = (0..3).flat_map(brief_targets_of_day).collect();
        assert_eq!(brief_targets_of_day(7), brief_targets_of_day(10));
        assert_eq!(brief_targets_of_day(0).len(), TARGETS.len() / BRIEF_PARTS);
        seen.sort_unstable();
        let mut all = TARGETS.to_vec();
        all.sort_unstable();
        assert_eq!(seen, all);
    }

    #[test]
    fn parses_libfuzzer_figures_and_findings() {
        let log = "#1024\tpulse  cov: 812 ft: 2301 corp: 40/2Kb exec/s: 512 rss: 40Mb\n\
                   ==12== ERROR: libFuzzer: deadly signal\n\
                   artifact_prefix='a/'; Test unit written to a/crash-abc\n\
                   stat::number_of_executed_units: 1100\n\
                   stat::average_exec_per_sec:     550\n\
                   stat::peak_rss_mb:              41\n";
        let o = parse_log("documents", log);
        assert_eq!(
            (o.cov, o.ft, o.executions, o.exec_per_sec, o.peak_rss_mb),
            (812, 2301, 1100, 550, 41)
        );
        let failure = o.failure.unwrap_or_default();
        assert!(
            failure.contains("deadly signal") && failure.ends_with("a/crash-abc"),
            "{failure}"
        );
        assert!(parse_log("x", "Done 10 runs in 1 second(s)\n")
            .failure
            .is_none());
    }
}
