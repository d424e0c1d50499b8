//! `cargo bench -p crd-studio-engine` (or `cargo xtask bench`): time of a full analysis of the
//! largest corpus CRDs as a ratio to merely parsing the same YAML. The goal is at most 3x.
//!
//! Figures are ratios measured in one run (absolute times depend on the machine).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crd_studio_engine::{CompiledCrd, DocumentTrees, Options, SourceId};

const CRDS: &[&str] = &[
    "argo-workflows/full-argoproj.io_workflows.yaml",
    "argo-workflows/full-argoproj.io_cronworkflows.yaml",
    "prometheus-operator/monitoring.coreos.com_alertmanagerconfigs.yaml",
    "prometheus-operator/monitoring.coreos.com_prometheuses.yaml",
];

/// Median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times.get(runs / 2).copied().unwrap_or_default()
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

fn main() {
    let dir = corpus_dir();
    if !dir.exists() {
        println!("bench: skipped: {} not found", dir.display());
        return;
    }
    let options = Options::default();
    println!(
        "{:<70} {:>9} {:>10} {:>10} {:>7}",
        "CRD", "bytes", "parse ms", "full ms", "ratio"
    );
    let mut worst: f64 = 0.0;
    for name in CRDS {
        let Ok(text) = std::fs::read_to_string(dir.join("crds").join(name)) else {
            println!("{name}: missing");
            continue;
        };
        let parse_time = median(7, || {
            std::hint::black_box(DocumentTrees::parse(&text, SourceId::Crd));
        });
        let full_time = median(7, || {
            let compiled = CompiledCrd::compile(&text, &options);
            std::hint::black_box(compiled.analyze_objects(&[], None));
        });
        let ratio = full_time.as_secs_f64() / parse_time.as_secs_f64().max(1e-9);
        worst = worst.max(ratio);
        println!(
            "{:<70} {:>9} {:>10.1} {:>10.1} {:>6.2}x",
            name,
            text.len(),
            parse_time.as_secs_f64() * 1e3,
            full_time.as_secs_f64() * 1e3,
            ratio
        );
    }
    println!("worst full-analysis / parse ratio: {worst:.2}x (goal: at most 3x)");
    edits(&dir, &options);
}

/// The CRD text after a description inside the schema gets one more character (the first
/// `description: ` after `openAPIV3Schema`), or `None` when there is none.
fn description_edit(text: &str) -> Option<String> {
    let schema = text.find("openAPIV3Schema")?;
    let at = schema + text.get(schema..)?.find("description: ")? + "description: ".len();
    Some(format!("{}X{}", text.get(..at)?, text.get(at..)?))
}

/// Full compile vs `CompiledCrd::recompile` after (a) typing an unknown top-level field at the
/// first line (the last keystroke of `zabc: 1`; and the slowest keystroke of typing it one
/// character at a time) and (b) an edit of a description inside the schema. Printed, never
/// asserted.
fn edits(dir: &Path, options: &Options) {
    println!();
    println!(
        "{:<70} {:>9} {:>10} {:>10} {:>10}",
        "CRD edit (compile → recompile)",
        "full ms",
        "top ms",
        "desc ms",
        "slowest key ms, reparsed, reused"
    );
    for name in CRDS {
        let Ok(text) = std::fs::read_to_string(dir.join("crds").join(name)) else {
            continue;
        };
        let base = CompiledCrd::compile(&text, options);
        // After a first `---` line, when there is one.
        let at = if text.starts_with("---\n") { 4 } else { 0 };
        let (head, tail) = text.split_at(at);
        let top_before = format!("{head}zabc: \n{tail}");
        let top = format!("{head}zabc: 1\n{tail}");
        let typed = base.recompile(&top_before, options);
        // Every keystroke of `zabc: 1⏎`, each recompiled from the previous one: the slowest.
        let mut previous = CompiledCrd::compile(&text, options);
        let mut slowest = Duration::ZERO;
        let field = "zabc: 1\n";
        for n in 1..=field.len() {
            let typed = format!("{head}{}{tail}", field.get(..n).unwrap_or(""));
            let t = Instant::now();
            let next = previous.recompile(&typed, options);
            slowest = slowest.max(t.elapsed());
            previous = next;
        }
        let desc = description_edit(&text).unwrap_or_else(|| text.clone());
        let full_time = median(5, || {
            std::hint::black_box(CompiledCrd::compile(&top, options));
        });
        let top_time = median(5, || {
            std::hint::black_box(typed.recompile(&top, options));
        });
        let desc_time = median(5, || {
            std::hint::black_box(base.recompile(&desc, options));
        });
        println!(
            "{:<70} {:>9.1} {:>10.1} {:>10.1}   {:.1}; top {}/{}, desc {}/{}",
            name,
            full_time.as_secs_f64() * 1e3,
            top_time.as_secs_f64() * 1e3,
            desc_time.as_secs_f64() * 1e3,
            slowest.as_secs_f64() * 1e3,
            typed.recompile(&top, options).reparsed(),
            typed.recompile(&top, options).content_reused(),
            base.recompile(&desc, options).reparsed(),
            base.recompile(&desc, options).content_reused(),
        );
    }
}
