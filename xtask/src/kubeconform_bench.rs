//! `cargo xtask bench --kubeconform [BINARY]`: kubeconform beside `crd-studio check` on the
//! same `../shared/corpus` files, in objects per CPU-second (per core).
//!
//! - kubeconform is built from its public source, never committed: a git directory
//!   (`KUBECONFORM_GIT_DIR`, default `../.mirror/yannh+kubeconform/repo`, as the `fetch`
//!   tool leaves it) is archived into `target/kubeconform/src` and built with the local Go
//!   (`-mod=vendor`, no module proxy). When the newest revision needs a newer Go than the
//!   one installed, the revisions that changed `go.mod` are tried newest first.
//! - The corpus CRDs become JSON Schemas as kubeconform's `openapi2jsonschema.py` writes
//!   them (our own converter, [`to_json_schema`]): one file per served schema,
//!   `{group}/{kind}_{version}.json` lowercased (the CRDs-catalog layout, so that kinds of
//!   different groups do not collide), `additionalProperties: false` on every object with
//!   `properties` below the root, `format: int-or-string` as `oneOf` string or integer.
//! - kubeconform runs with `-strict -ignore-missing-schemas -summary` at `-n 1` and `-n`
//!   cores; `crd-studio check` in repository mode with one thread, on the CRDs alone (the
//!   compile) and on the CRDs and objects, so objects per CPU-second are given with and
//!   without the compile.
//!
//! Skipped with a message when Go, the sources or the corpus are missing. Prints figures,
//! never fails on them.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crd_studio_engine::{read_documents, SourceId};
use serde_json::{Map, Value};

use crate::ci::cpu_seconds;
use crate::{root, step, target_dir};

/// At most this many `go.mod` revisions are tried.
const REVISIONS_TRIED: usize = 8;

/// The task.
pub fn run_task(args: &[String]) -> Result<bool, String> {
    let corpus = root().join("../shared/corpus");
    if !corpus.join("index.json").is_file() {
        println!("skipped: ../shared/corpus is absent");
        return Ok(true);
    }
    let Some(kubeconform) = build_kubeconform()? else {
        return Ok(true);
    };
    let binary = match args.iter().find(|a| !a.starts_with("--")) {
        Some(b) => PathBuf::from(b),
        None => crate::cli_bench::shipped_cli()?,
    };
    let schemas = target_dir().join("kubeconform/schemas");
    step(&format!(
        "JSON Schemas from the corpus CRDs ({})",
        schemas.display()
    ));
    let written = write_schemas(&corpus.join("crds"), &schemas)?;
    println!("{written} schema files");
    measure(&kubeconform, &binary, &corpus, &schemas)
}

/// Builds kubeconform, or `None` (with the reason printed) when it cannot be.
fn build_kubeconform() -> Result<Option<PathBuf>, String> {
    step("kubeconform from its source");
    let go = Command::new("go").arg("version").output();
    match go {
        Ok(out) if out.status.success() => {
            print!("{}", String::from_utf8_lossy(&out.stdout));
        }
        _ => {
            println!("skipped: no Go toolchain (`go` on PATH; e.g. apt-get install golang-go)");
            return Ok(None);
        }
    }
    let git_dir = std::env::var_os("KUBECONFORM_GIT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../.mirror/yannh+kubeconform/repo"));
    if !git_dir.join("HEAD").is_file() {
        println!(
            "skipped: no kubeconform sources at {} (set KUBECONFORM_GIT_DIR to a git directory \
             of github.com/yannh/kubeconform)",
            git_dir.display()
        );
        return Ok(None);
    }
    let out_dir = target_dir().join("kubeconform");
    let binary = out_dir.join("kubeconform");
    // The newest revision first, then those that changed go.mod (older Go requirements).
    let log = Command::new("git")
        .arg("--git-dir")
        .arg(&git_dir)
        .args(["log", "--format=%H", "-n", "20", "HEAD", "--", "go.mod"])
        .output()
        .map_err(|e| format!("git log: {e}"))?;
    let mut revisions = vec!["HEAD".to_owned()];
    // Each go.mod change's parent holds the go.mod before it.
    revisions.extend(
        String::from_utf8_lossy(&log.stdout)
            .lines()
            .map(|c| format!("{c}^")),
    );
    for rev in revisions.iter().take(REVISIONS_TRIED) {
        let src = out_dir.join("src");
        let _ = std::fs::remove_dir_all(&src);
        std::fs::create_dir_all(&src).map_err(|e| format!("{}: {e}", src.display()))?;
        let archive = Command::new("git")
            .arg("--git-dir")
            .arg(&git_dir)
            .args([
                "archive",
                "--format=tar",
                rev,
                "cmd",
                "pkg",
                "vendor",
                "go.mod",
                "go.sum",
            ])
            .stdout(Stdio::piped())
            // A snapshot may lack large files outside these paths: git says so, harmlessly.
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("git archive: {e}"))?;
        let Some(stdout) = archive.stdout else {
            return Err("git archive: no output".into());
        };
        let untar = Command::new("tar")
            .arg("-x")
            .arg("-C")
            .arg(&src)
            .stdin(stdout)
            .status()
            .map_err(|e| format!("tar: {e}"))?;
        if !untar.success() {
            println!("{rev}: cannot be archived");
            continue;
        }
        let describe = Command::new("git")
            .arg("--git-dir")
            .arg(&git_dir)
            .args(["describe", "--tags", "--always", rev])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default();
        let build = Command::new("go")
            .current_dir(&src)
            .args(["build", "-o"])
            .arg(&binary)
            .arg("./cmd/kubeconform")
            .env("GOFLAGS", "-mod=vendor")
            .env("GOPROXY", "off")
            .env("GOTOOLCHAIN", "local")
            .env("GOPATH", out_dir.join("gopath"))
            .env("GOCACHE", out_dir.join("gocache"))
            .output()
            .map_err(|e| format!("go build: {e}"))?;
        if build.status.success() {
            println!("built kubeconform {describe} ({rev})");
            return Ok(Some(binary));
        }
        let err = String::from_utf8_lossy(&build.stderr);
        println!(
            "kubeconform {describe} does not build with this Go: {}",
            err.lines().next().unwrap_or("")
        );
    }
    println!("skipped: no kubeconform revision tried builds with this Go");
    Ok(None)
}

/// Writes the JSON Schemas of every CRD under `crds` into `out`; the number written. The
/// first CRD (in path order) of a group, kind and version wins.
fn write_schemas(crds: &Path, out: &Path) -> Result<usize, String> {
    let _ = std::fs::remove_dir_all(out);
    let mut files = Vec::new();
    collect_yaml(crds, &mut files);
    files.sort();
    let mut written = 0;
    for file in files {
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        for (_, doc) in read_documents(&text, SourceId::Crd).values {
            if doc["kind"] != "CustomResourceDefinition" {
                continue;
            }
            for (name, schema) in to_json_schema(&doc) {
                let path = out.join(&name);
                if path.exists() {
                    continue;
                }
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                }
                let json = serde_json::to_string_pretty(&schema).map_err(|e| e.to_string())?;
                std::fs::write(&path, json).map_err(|e| format!("{}: {e}", path.display()))?;
                written += 1;
            }
        }
    }
    Ok(written)
}

fn collect_yaml(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_yaml(&p, out);
        } else if p
            .extension()
            .is_some_and(|x| x == "yaml" || x == "yml" || x == "json")
        {
            out.push(p);
        }
    }
}

/// A CRD's JSON Schemas as `openapi2jsonschema.py` writes them: (relative file name,
/// schema) per version with a schema (its own, or the CRD's `spec.validation`).
pub(crate) fn to_json_schema(crd: &Value) -> Vec<(String, Value)> {
    let spec = &crd["spec"];
    let group = spec["group"].as_str().unwrap_or("").to_lowercase();
    let kind = spec["names"]["kind"].as_str().unwrap_or("").to_lowercase();
    let shared = &spec["validation"]["openAPIV3Schema"];
    let mut out = Vec::new();
    let versions = spec["versions"].as_array().cloned().unwrap_or_default();
    for v in &versions {
        let schema = match &v["schema"]["openAPIV3Schema"] {
            Value::Null => shared,
            s => s,
        };
        let Some(name) = v["name"].as_str() else {
            continue;
        };
        if schema.is_null() {
            continue;
        }
        let mut schema = schema.clone();
        additional_properties(&mut schema, true);
        replace_int_or_string(&mut schema);
        out.push((
            format!("{group}/{kind}_{}.json", name.to_lowercase()),
            schema,
        ));
    }
    out
}

/// `additionalProperties: false` on every object with `properties` and no
/// `additionalProperties` (the root skipped, as the script does by default), at any depth
/// of the JSON (the script walks every object, schema or not).
fn additional_properties(v: &mut Value, skip: bool) {
    // The script does not descend into lists.
    if let Value::Object(map) = v {
        if map.contains_key("properties") && !skip && !map.contains_key("additionalProperties") {
            map.insert("additionalProperties".into(), Value::Bool(false));
        }
        for (_, child) in map.iter_mut() {
            additional_properties(child, false);
        }
    }
}

/// Every object value with `format: int-or-string` becomes `oneOf` string or integer.
fn replace_int_or_string(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (_, child) in map.iter_mut() {
                if child.get("format").and_then(Value::as_str) == Some("int-or-string") {
                    let mut one = Map::new();
                    one.insert(
                        "oneOf".into(),
                        serde_json::json!([{"type": "string"}, {"type": "integer"}]),
                    );
                    *child = Value::Object(one);
                } else {
                    replace_int_or_string(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(replace_int_or_string),
        _ => {}
    }
}

/// One timed kubeconform run: wall seconds, CPU seconds, resources validated (valid,
/// invalid, errors) and skipped.
fn kubeconform_run(
    kubeconform: &Path,
    corpus: &Path,
    schemas: &Path,
    workers: usize,
) -> Result<(f64, f64, u64, u64, u64), String> {
    let location = format!(
        "{}/{{{{ .Group }}}}/{{{{ .ResourceKind }}}}_{{{{ .ResourceAPIVersion }}}}.json",
        schemas.display()
    );
    let t = Instant::now();
    let cpu = cpu_seconds();
    let out = Command::new(kubeconform)
        .current_dir(corpus)
        .args([
            "-strict",
            "-ignore-missing-schemas",
            "-summary",
            "-output",
            "json",
        ])
        .args(["-schema-location", &location])
        .args(["-n", &workers.to_string()])
        .arg("objects")
        .output()
        .map_err(|e| format!("{}: {e}", kubeconform.display()))?;
    let secs = t.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    let v: Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "kubeconform's JSON: {e} ({})",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let n = |k: &str| v["summary"][k].as_u64().unwrap_or(0);
    Ok((
        secs,
        cpu,
        n("valid") + n("invalid") + n("errors"),
        n("invalid") + n("errors"),
        n("skipped"),
    ))
}

/// One timed `crd-studio check` run with one thread: CPU seconds and objects.
fn studio_run(binary: &Path, corpus: &Path, paths: &[&str]) -> Result<(f64, u64), String> {
    let cpu = cpu_seconds();
    let out = Command::new(binary)
        .current_dir(corpus)
        .arg("check")
        .args(paths)
        .args(["--ignore-missing-crds", "--format", "json"])
        .args(["--now", "2026-01-01T00:00:00Z"])
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    let cpu = cpu_seconds() - cpu;
    let v: Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "the run's JSON: {e} ({})",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    Ok((cpu, v["summary"]["objects"].as_u64().unwrap_or(0)))
}

/// Runs of each measurement; the best (least CPU) counts.
const RUNS: usize = 3;

fn measure(
    kubeconform: &Path,
    binary: &Path,
    corpus: &Path,
    schemas: &Path,
) -> Result<bool, String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    step("kubeconform on ../shared/corpus/objects");
    // A first run warms the file cache; each figure is then the best of three runs (CPU
    // time on a shared machine only ever grows with noise).
    kubeconform_run(kubeconform, corpus, schemas, 1)?;
    let mut kc_per_core = 0.0;
    let mut kc_count = 0;
    for workers in [1, cores] {
        let mut best = kubeconform_run(kubeconform, corpus, schemas, workers)?;
        for _ in 1..RUNS {
            let again = kubeconform_run(kubeconform, corpus, schemas, workers)?;
            if again.1 < best.1 {
                best = again;
            }
        }
        let (secs, cpu, n, bad, skipped) = best;
        println!(
            "kubeconform -n {workers}: {n} resources ({bad} invalid or errors, {skipped} skipped) \
             in {secs:.2} s = {:.0}/s, CPU {cpu:.2} s = {:.0} per CPU-second",
            n as f64 / secs,
            n as f64 / cpu
        );
        if workers == 1 {
            kc_per_core = n as f64 / cpu;
            kc_count = n;
        }
    }
    step(&format!(
        "crd-studio check, one thread ({})",
        binary.display()
    ));
    studio_run(binary, corpus, &["crds"])?;
    let best = |paths: &[&str]| -> Result<(f64, u64), String> {
        let mut best = studio_run(binary, corpus, paths)?;
        for _ in 1..RUNS {
            let again = studio_run(binary, corpus, paths)?;
            if again.0 < best.0 {
                best = again;
            }
        }
        Ok(best)
    };
    let (compile_cpu, _) = best(&["crds"])?;
    let (all_cpu, n) = best(&["crds", "objects"])?;
    let with_compile = n as f64 / all_cpu;
    println!(
        "crd-studio: {n} objects; CPU {all_cpu:.2} s with the 107 CRDs' compile \
         ({compile_cpu:.2} s alone) = {with_compile:.0} objects per CPU-second"
    );
    let objects_cpu = all_cpu - compile_cpu;
    if objects_cpu > 0.05 * all_cpu {
        println!(
            "  objects only: {objects_cpu:.2} s = {:.0} per CPU-second",
            n as f64 / objects_cpu
        );
    } else {
        println!("  objects only: under the runs' noise (the compile is nearly all of it)");
    }
    println!(
        "per core, crd-studio / kubeconform: {:.2} with the compile ({:.2} counting only \
         kubeconform's {kc_count} resources for both)",
        with_compile / kc_per_core,
        kc_count as f64 / all_cpu / kc_per_core
    );
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn converts_as_openapi2jsonschema() {
        let crd = json!({
            "kind": "CustomResourceDefinition",
            "spec": {
                "group": "Example.com",
                "names": {"kind": "Widget"},
                "versions": [
                    {"name": "v1", "schema": {"openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {"type": "object", "properties": {
                                "port": {"format": "int-or-string"},
                                "m": {"type": "object", "additionalProperties": true,
                                      "properties": {}}
                            }}
                        }
                    }}},
                    {"name": "v1beta1"}
                ],
                "validation": {"openAPIV3Schema": {"type": "object"}}
            }
        });
        let out = to_json_schema(&crd);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].0, "example.com/widget_v1.json");
        assert_eq!(
            out[0].1,
            json!({
                "type": "object",
                "properties": {
                    "spec": {"type": "object", "additionalProperties": false, "properties": {
                        "port": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                        "m": {"type": "object", "additionalProperties": true, "properties": {}}
                    }}
                }
            })
        );
        assert_eq!(
            out[1],
            (
                "example.com/widget_v1beta1.json".into(),
                json!({"type": "object"})
            )
        );
    }
}
