//! Every real CRD of the shared corpus (`../shared/corpus/crds/**/*.yaml`) is accepted by the
//! server (`../shared/corpus/oracle/crds.json`), so CRD validation must report no error for
//! any of them (default values checked with the engine's OpenAPI validation; no CEL yet).
//! Skips with a message when the corpus is not there.

use std::path::{Path, PathBuf};

use crate::crd::apiext::{self, defaults::DefaultsValidation, Hooks};
use crate::documents::document::parse;
use crate::SourceId;

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

#[test]
fn corpus_crds_are_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/crds");
    if !dir.is_dir() {
        println!("skipped: {} not found", dir.display());
        return;
    }
    let mut files = Vec::new();
    yaml_files(&dir, &mut files);
    files.sort();
    let defaults = DefaultsValidation::without_cel();
    let hooks = Hooks {
        cel: None,
        defaults: Some(&defaults),
    };
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let parsed = parse(&text, SourceId::Crd);
        for (_, root) in parsed.values() {
            let json = root.to_json();
            if json.get("kind").and_then(|k| k.as_str()) != Some("CustomResourceDefinition") {
                continue;
            }
            checked += 1;
            let (crd, problems) = apiext::from_v1_json(&json);
            for p in &problems {
                failures.push(format!("{}: decode: {}", f.display(), p.message));
            }
            for e in apiext::validate_create(&crd, hooks) {
                failures.push(format!("{}: {}", f.display(), e.error()));
            }
        }
    }
    assert!(
        checked >= 100,
        "only {checked} CRDs found under {}",
        dir.display()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
