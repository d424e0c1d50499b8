//! `cargo xtask bench --crdtest [BINARY]` (and a part of `cargo xtask bench`): 1,000 test
//! cases against the argo-workflows `Workflow` CRD of `../shared/corpus` (2.8 MB, 38 CEL
//! rules) through `crd-studio test`, in one test file (the CRD compiled once per thread), in
//! cases per second and total time (also with one thread), beside one
//! `crd-studio check CRD OBJECT` process per case: 50 such processes timed and extrapolated to
//! 1,000. The cases are generated into a temporary folder at bench time: accepted workflows of
//! 1 to 5 templates, and rejected ones (a CEL rule broken, a wrong type, an unknown field).
//! Prints figures, never fails on them (a case that does not pass is reported).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::ci::cpu_seconds;
use crate::{root, step};

/// The CRD under test, in `../shared/corpus`.
const CRD: &str = "crds/argo-workflows/full-argoproj.io_workflows.yaml";
/// How many cases.
const CASES: usize = 1000;
/// How many `crd-studio check` processes are timed (extrapolated to [`CASES`]).
const PROCESSES: usize = 50;

/// The task: builds the CLI as shipped unless a binary is named, then measures.
pub fn run_task(args: &[String]) -> Result<bool, String> {
    let binary = match args.iter().find(|a| !a.starts_with("--")) {
        Some(b) => PathBuf::from(b),
        None => crate::cli_bench::shipped_cli()?,
    };
    let crd = root().join("../shared/corpus").join(CRD);
    if !crd.is_file() {
        println!("skipped: ../shared/corpus/{CRD} is absent");
        return Ok(true);
    }
    let dir = std::env::temp_dir().join(format!("crd-studio-crdtest-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let result = generate(&dir, &crd).and_then(|objects| measure(&binary, &dir, &crd, &objects));
    let _ = std::fs::remove_dir_all(&dir);
    result.map(|()| true)
}

/// Case `i`'s object (YAML, one line per field so that a file and the test file's inline
/// form read the same) and its expectation.
fn case(i: usize) -> (String, String) {
    let templates = i % 5 + 1;
    let mut t = String::new();
    for k in 0..templates {
        let c = k + 1;
        let _ = write!(
            t,
            "\n    - name: step-{k}\n      container:\n        image: registry.example.com/tool:{i}.{k}\n        command: [sh, -c]\n        args: [\"echo {i} {k}\"]\n        resources: {{limits: {{cpu: {c}00m, memory: {c}Mi}}}}"
        );
    }
    let head = format!(
        "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata:\n  name: bench-{i}\n  labels: {{bench: \"{i}\"}}\nspec:\n  entrypoint: step-0\n  serviceAccountName: runner\n"
    );
    match i % 4 {
        // Accepted.
        0 | 1 => (
            format!("{head}  parallelism: {templates}\n  templates:{t}\n"),
            "verdict: accepted".into(),
        ),
        // A CEL rule: two template types in one template.
        2 => (
            format!(
                "{head}  templates:{t}\n      script:\n        image: python:3\n        source: print({i})\n"
            ),
            "verdict: rejected\n      errors:\n        - path: spec.templates\n          message: template must have at most one template type".into(),
        ),
        // A wrong type, and an unknown field (Strict).
        _ if i % 8 == 3 => (
            format!("{head}  parallelism: many-{i}\n  templates:{t}\n"),
            "verdict: rejected\n      errors:\n        - path: spec.parallelism\n          contains: must be of type integer\n        - path: <nil>\n          contains: some validation rules were not checked".into(),
        ),
        _ => (
            format!("{head}  entrypointt: step-{i}\n  templates:{t}\n"),
            "verdict: rejected\n      errors:\n        - contains: unknown field \"spec.entrypointt\"".into(),
        ),
    }
}

/// Writes the test file and each case's object file; returns the object files.
fn generate(dir: &Path, crd: &Path) -> Result<Vec<PathBuf>, String> {
    let mut suite = format!("crd: {}\ncases:\n", crd.display());
    let mut objects = Vec::new();
    for i in 0..CASES {
        let (object, expect) = case(i);
        let inline: String = object.lines().map(|l| format!("\n      {l}")).collect();
        let _ = write!(
            suite,
            "  - name: case {i}\n    object:{inline}\n    expect:\n      {expect}\n"
        );
        let path = dir.join(format!("object-{i}.yaml"));
        std::fs::write(&path, object).map_err(|e| format!("{}: {e}", path.display()))?;
        objects.push(path);
    }
    let path = dir.join("argo-workflows.crdtest.yaml");
    std::fs::write(&path, suite).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(objects)
}

/// One timed `crd-studio test` run: wall and CPU seconds, and (passed, failed) from the JSON.
fn test_run(
    binary: &Path,
    dir: &Path,
    threads: Option<usize>,
) -> Result<(f64, f64, u64, u64), String> {
    let mut c = Command::new(binary);
    c.current_dir(dir).args(["test", ".", "--format", "json"]);
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
    if v["failed"].as_u64().unwrap_or(0) > 0 {
        let first = v["cases"]
            .as_array()
            .and_then(|c| {
                c.iter()
                    .find(|c| c["failures"].as_array().is_some_and(|f| !f.is_empty()))
            })
            .cloned()
            .unwrap_or_default();
        println!("a case failed (the figures still stand): {first}");
    }
    Ok((
        secs,
        cpu,
        v["passed"].as_u64().unwrap_or(0),
        v["failed"].as_u64().unwrap_or(0),
    ))
}

fn measure(binary: &Path, dir: &Path, crd: &Path, objects: &[PathBuf]) -> Result<(), String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    step(&format!(
        "crd-studio test: {CASES} cases against the argo-workflows Workflow CRD ({})",
        binary.display()
    ));
    test_run(binary, dir, None)?; // warms the file cache
    let (all, all_cpu, passed, failed) = test_run(binary, dir, None)?;
    let (single, single_cpu, _, _) = test_run(binary, dir, Some(1))?;
    let n = CASES as f64;
    println!(
        "crd-studio test, {cores} threads: {CASES} cases ({passed} passed, {failed} failed) in {all:.2} s = {:.0} cases/s, CPU {all_cpu:.2} s = {:.0} cases per CPU-second",
        n / all,
        n / all_cpu
    );
    println!(
        "crd-studio test, 1 thread (the CRD compiled once): {single:.2} s = {:.0} cases/s, CPU {single_cpu:.2} s = {:.0} cases per CPU-second",
        n / single,
        n / single_cpu
    );

    step(&format!(
        "one `crd-studio check CRD OBJECT` process per case: {PROCESSES} timed, extrapolated to {CASES}"
    ));
    let t = Instant::now();
    let cpu = cpu_seconds();
    for object in objects.iter().take(PROCESSES) {
        Command::new(binary)
            .current_dir(dir)
            .arg("check")
            .arg(crd)
            .arg(object)
            .args(["--format", "json"])
            .output()
            .map_err(|e| format!("{}: {e}", binary.display()))?;
    }
    let each = t.elapsed().as_secs_f64() / PROCESSES as f64;
    let each_cpu = (cpu_seconds() - cpu) / PROCESSES as f64;
    let total = each * n;
    println!(
        "crd-studio check per case: {PROCESSES} processes in {:.2} s ({:.3} s each); {CASES} extrapolated: {total:.1} s = {:.1} cases/s, CPU {:.1} s = {:.1} cases per CPU-second",
        each * PROCESSES as f64,
        each,
        1.0 / each,
        each_cpu * n,
        1.0 / each_cpu
    );
    println!(
        "crd-studio test against one check per case: {:.0}x faster (wall), {:.0}x less CPU",
        total / all,
        each_cpu * n / all_cpu
    );
    Ok(())
}
