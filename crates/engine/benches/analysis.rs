//! `cargo bench -p crd-studio-engine` (or `cargo xtask bench`): time of a full analysis of the
//! largest corpus CRDs as a ratio to merely parsing the same YAML. The goal is at most 3x.
//!
//! Figures are ratios measured in one run (absolute times depend on the machine).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crd_studio_engine::document::parse;
use crd_studio_engine::{CompiledCrd, Options, SourceId};

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
            std::hint::black_box(parse(&text, SourceId::Crd));
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
}
