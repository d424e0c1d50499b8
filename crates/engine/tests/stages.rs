//! The engine's stage folders form a pipeline: a stage may use earlier stages, never later
//! ones. This test reads every source file under `src/<stage>/`, finds the `crate::…` paths in
//! its code (imports, and paths written inline; not comments, not `#[cfg(test)] mod tests`,
//! not `tests.rs` files or `tests/` folders) and fails on a path into a later stage. Paths
//! through the old module names that `lib.rs` re-exports (`crate::analysis`, ...) count as the
//! stage they are re-exported from, read from `lib.rs` itself. It also checks that `lib.rs`
//! declares the stages in this order: `documents` → `schema` → `object` → `crd` → `cel` →
//! `printing` → `pipeline` → `versions` → `crd_diff` → `report`.
//!
//! So each folder can be read knowing only the folders above it. Report types live in the
//! earliest stage that fills them (`Finding` and `FieldError` in `documents`, the CEL and version
//! reports in `cel/report.rs`, `FieldErrorReport` and `ServedObject` in `versions/report.rs`);
//! `report::analysis` re-exports them. The one place a stage needs something a later stage
//! builds, the compiled CRD that conversion reads, goes through a trait of the earlier stage
//! (`versions::conversion::CompiledCrdParts`, which `report::analysis::CompiledCrd` implements).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The stages, in pipeline order (the order of `pub mod`/`mod` in `lib.rs` must match).
const STAGES: [&str; 12] = [
    "documents",
    "schema",
    "object",
    "crd",
    "cel",
    "printing",
    "pipeline",
    "versions",
    "crd_diff",
    "report",
    "authoring",
    "api",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "tests" {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            out.push(path);
        }
    }
}

/// The code of a file without its unit-test module and without comments.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]")
            && lines
                .get(i + 1)
                .is_some_and(|next| next.trim_start().starts_with("mod tests"))
        {
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        let code = match line.find("//") {
            // A `//` inside a string literal is rare in paths; cutting there only drops text.
            Some(at) => &line[..at],
            None => line,
        };
        out.push((i + 1, code.to_owned()));
    }
    out
}

/// The names `lib.rs` re-exports from a stage: `pub use versions::{conversion, ...};`.
fn aliases(lib: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in lib.lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let rest = rest.trim_end_matches(';');
        let Some((stage, names)) = rest.split_once("::") else {
            continue;
        };
        if !STAGES.contains(&stage) {
            continue;
        }
        let names = names.trim_start_matches('{').trim_end_matches('}');
        for name in names.split(',') {
            let name = name.trim();
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                out.insert(name.to_owned(), stage.to_owned());
            }
        }
    }
    out
}

/// The stage a path after `crate::` starts in (`crate::cel::…`, `crate::analysis::…`,
/// `crate::{object, cel}` gives each).
fn stages_named(after: &str, aliases: &BTreeMap<String, String>) -> Vec<String> {
    let names: Vec<&str> = if let Some(group) = after.strip_prefix('{') {
        group
            .split(['}', ';'])
            .next()
            .unwrap_or("")
            .split(',')
            .map(|n| n.trim().split("::").next().unwrap_or(""))
            .collect()
    } else {
        vec![after
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("")]
    };
    names
        .into_iter()
        .filter_map(|n| {
            if STAGES.contains(&n) {
                Some(n.to_owned())
            } else {
                aliases.get(n).cloned()
            }
        })
        .collect()
}

#[test]
fn stages_use_only_earlier_stages() {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| {
            l.strip_prefix("pub mod ")
                .or_else(|| l.strip_prefix("mod "))
        })
        .map(|l| l.trim_end_matches(';'))
        .collect();
    assert_eq!(
        declared, STAGES,
        "lib.rs declares the stages in pipeline order"
    );
    let aliases = aliases(&lib);
    let mut violations = Vec::new();
    let mut files = 0;
    for (rank, stage) in STAGES.iter().enumerate() {
        let mut paths = Vec::new();
        rust_files(&src().join(stage), &mut paths);
        assert!(!paths.is_empty(), "no files in src/{stage}");
        for path in paths {
            files += 1;
            let text = fs::read_to_string(&path).unwrap();
            for (line_no, line) in code_lines(&text) {
                for (at, _) in line.match_indices("crate::") {
                    let after = &line[at + "crate::".len()..];
                    for used in stages_named(after, &aliases) {
                        let used_rank = STAGES.iter().position(|s| *s == used).unwrap();
                        if used_rank > rank {
                            violations.push(format!(
                                "{}:{line_no}: stage `{stage}` uses the later stage `{used}`: {}",
                                path.strip_prefix(src()).unwrap().display(),
                                line.trim()
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(files > 50, "read only {files} files");
    assert!(
        violations.is_empty(),
        "a stage uses a later stage:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_checker_sees_a_later_stage() {
    let lib = "pub use report::{analysis, get};\npub use crd::apiext;\n";
    let aliases = aliases(lib);
    assert_eq!(
        stages_named("analysis::CompiledCrd", &aliases),
        vec!["report"]
    );
    assert_eq!(
        stages_named("{object, cel::report}", &aliases),
        vec!["object", "cel"]
    );
    assert_eq!(stages_named("apiext::InternalCrd", &aliases), vec!["crd"]);
    assert!(stages_named("documents_x", &aliases).is_empty());
    let code = code_lines(
        "use crate::cel;\n// crate::report\n#[cfg(test)]\nmod tests {\n use crate::report;\n}\n",
    );
    assert_eq!(code, vec![(1, "use crate::cel;".to_owned())]);
}
