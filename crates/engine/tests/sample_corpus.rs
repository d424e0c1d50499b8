//! Issue 15, part 5: over every version of every corpus CRD (`../shared/corpus/crds`), the
//! share of generated samples (minimal and all-fields) the engine accepts, with the rest
//! counted by reason. Prints the figures (`cargo test -p crd-studio-engine --test
//! sample_corpus -- --nocapture`); asserts only a floor. Skips when the corpus is absent.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crd_studio_engine::{analyze, CompiledCrd, Options, Request, Severity, SourceId};

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            out.push(p);
        }
    }
}

/// Why a sample was rejected, in a few words: `CEL rule`, or the first schema error's type
/// and the detail's first words.
fn reason(report: &crd_studio_engine::ObjectReport) -> String {
    if let Some(e) = report.schema_errors.first() {
        let detail: String = e.detail.chars().take(70).collect();
        return format!("schema: {:?}: {detail}", e.error_type);
    }
    if !report.cel_errors.is_empty() {
        return "a CEL rule decides".to_owned();
    }
    if let Some(e) = report.errors.first() {
        let detail: String = e.detail.chars().take(70).collect();
        return format!("{:?}: {detail}", e.error_type);
    }
    report
        .decode_error
        .clone()
        .or(report.object_error.clone())
        .unwrap_or_else(|| "other".to_owned())
}

#[test]
fn corpus_samples_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/crds");
    if !dir.is_dir() {
        println!("skipped: {} not found", dir.display());
        return;
    }
    let mut files = Vec::new();
    yaml_files(&dir, &mut files);
    files.sort();
    let options = Options::default();
    for all in [false, true] {
        let (mut total, mut accepted, mut cel) = (0usize, 0usize, 0usize);
        let mut reasons: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let compiled = CompiledCrd::compile(&text, &options);
            let Some(crd) = compiled.facts() else {
                continue;
            };
            if compiled.findings().iter().any(|x| {
                x.severity == Severity::Error && x.location.map(|l| l.source) == Some(SourceId::Crd)
            }) {
                continue;
            }
            for v in crd.versions.iter().filter(|v| v.served) {
                total += 1;
                let sample = match compiled.sample(Some(&v.name), all) {
                    Ok(s) => s,
                    Err(e) => {
                        reasons
                            .entry(format!("no sample: {e}"))
                            .or_default()
                            .push(v.name.clone());
                        continue;
                    }
                };
                let a = analyze(&Request {
                    crd: text.clone(),
                    objects: vec![serde_json::to_string(&sample).unwrap_or_default()],
                    options: options.clone(),
                    ..Request::default()
                });
                let Some(report) = a.objects.first() else {
                    reasons
                        .entry("no object report".into())
                        .or_default()
                        .push(v.name.clone());
                    continue;
                };
                if report.accepted {
                    accepted += 1;
                } else {
                    let r = reason(report);
                    if r == "a CEL rule decides" {
                        cel += 1;
                    }
                    let name = f.strip_prefix(&dir).unwrap_or(f).display().to_string();
                    reasons
                        .entry(r)
                        .or_default()
                        .push(format!("{name} {}", v.name));
                }
            }
        }
        let share = |n: usize, d: usize| {
            if d == 0 {
                100.0
            } else {
                100.0 * n as f64 / d as f64
            }
        };
        println!(
            "{} samples: {accepted}/{total} accepted ({:.1}%); without the {cel} a CEL rule decides: {:.1}%",
            if all { "all-fields" } else { "minimal" },
            share(accepted, total),
            share(accepted, total - cel),
        );
        for (r, items) in &reasons {
            println!(
                "  {} × {r} (e.g. {})",
                items.len(),
                items.first().map_or("", String::as_str)
            );
        }
        // 100% of both at the last measurement (issue 15); a little room for a change that
        // trades one sample for a better engine elsewhere.
        let floor = if all { 97.0 } else { 99.0 };
        assert!(
            share(accepted, total) >= floor,
            "the share fell below the floor"
        );
    }
}
