//! ARCHITECTURE.md stays a ten-minute read that matches the tree (issue 24): at most
//! [`MAX_WORDS`] words, no line over [`MAX_LINE`] characters, and every repository path it names
//! exists. A path is a backticked span (or a code-map table's first cell) that contains `/` or
//! ends in one of [`FILE_ENDINGS`]. Not paths: spans with spaces, `<placeholders>`, `*` globs,
//! `::` or URLs; `../` (the shared data beside the repository); a first segment with a dot inside
//! (`k8s.io/...`, a Go import path: upstream files are named in plain text); `/scale` (an API
//! path); and build output ([`GENERATED`]). A bare file name (`main.rs`) is found under the
//! folder its table row or list item names first, else anywhere in the repository.

use std::path::{Path, PathBuf};

/// The word budget: about ten minutes of reading.
const MAX_WORDS: usize = 2_500;
/// The longest line, in characters.
const MAX_LINE: usize = 100;
/// File names ending so are paths even without a `/`.
const FILE_ENDINGS: &[&str] = &[
    ".rs", ".mjs", ".js", ".toml", ".md", ".yaml", ".json", ".html", ".css",
];

/// Folders the build writes, which a fresh clone does not have.
const GENERATED: &[&str] = &["dist/", "test-output/", "target/"];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn architecture() -> String {
    let path = repo_root().join("ARCHITECTURE.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The backticked spans of a line, in order.
fn code_spans(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

/// Whether a code span names a repository path.
fn is_path(span: &str) -> bool {
    let span = span.trim();
    if span.is_empty()
        || span.contains(char::is_whitespace)
        || span.contains([
            '<', '>', '*', '(', ')', '{', '}', '=', '|', '@', '$', '"', '\'',
        ])
        || span.contains("::")
        || span.contains("://")
        || span.starts_with("../")
        || span.starts_with('-')
        || span.starts_with('/')
        || FILE_ENDINGS.contains(&span)
        || GENERATED.iter().any(|g| span.starts_with(g))
    {
        return false;
    }
    let first = span.split('/').next().unwrap_or_default();
    if span.contains('/') && first.trim_start_matches('.').contains('.') {
        return false;
    }
    span.contains('/') || FILE_ENDINGS.iter().any(|e| span.ends_with(e))
}

/// Every file and folder of the repository, relative, with `/` separators (skipping build output
/// and dependencies).
fn repository_entries(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if matches!(
                name.as_str(),
                ".git" | "target" | "node_modules" | "dist" | "test-output"
            ) {
                continue;
            }
            if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    out
}

/// Whether `span` exists: as a path from the root, under `folder`, or (a bare file name) anywhere.
fn exists(root: &Path, entries: &[String], folder: Option<&str>, span: &str) -> bool {
    let span = span.trim_end_matches('/');
    if root.join(span).exists() {
        return true;
    }
    if let Some(folder) = folder {
        if root.join(folder).join(span).exists() {
            return true;
        }
    }
    if !span.contains('/') {
        return entries.iter().any(|e| e.rsplit('/').next() == Some(span));
    }
    // A path relative to some folder (`report/mod.rs`, `src/lib.rs` of a crate).
    entries.iter().any(|e| e.ends_with(&format!("/{span}")))
}

#[test]
fn architecture_is_short() {
    let text = architecture();
    let words = text.split_whitespace().count();
    assert!(
        words <= MAX_WORDS,
        "ARCHITECTURE.md has {words} words, more than {MAX_WORDS}: move details into the \
         modules' doc comments"
    );
    let long: Vec<String> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.chars().count() > MAX_LINE)
        .map(|(i, l)| format!("line {}: {} characters", i + 1, l.chars().count()))
        .collect();
    assert!(
        long.is_empty(),
        "ARCHITECTURE.md lines over {MAX_LINE} characters:\n{}",
        long.join("\n")
    );
}

#[test]
fn architecture_names_only_paths_that_exist() {
    let root = repo_root();
    let entries = repository_entries(&root);
    let text = architecture();
    let mut missing = Vec::new();
    let mut checked = 0;
    for (i, line) in text.lines().enumerate() {
        let spans = code_spans(line);
        // The first folder a table row or list item names is where its bare file names live.
        let folder = spans
            .iter()
            .map(|s| s.trim())
            .find(|s| is_path(s) && s.ends_with('/'))
            .map(|s| s.trim_end_matches('/'));
        for span in spans {
            let span = span.trim();
            if !is_path(span) {
                continue;
            }
            checked += 1;
            if !exists(&root, &entries, folder, span) {
                missing.push(format!("line {}: `{span}`", i + 1));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} paths found: is the parser right?"
    );
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn path_detection() {
    for p in [
        "crates/engine/src/lib.rs",
        "e2e/",
        "main.rs",
        "Trunk.toml",
        "static/style.css",
        ".ci/run",
        ".cargo/config.toml",
    ] {
        assert!(is_path(p), "{p}");
    }
    for p in [
        "cargo xtask build",
        "../shared/cel-spec",
        "crates/<name>",
        "crd_diff::diff_crds",
        "https://example.com/a",
        "--format",
        "self",
        "x-kubernetes-list-type",
        "fuzz_targets/*.rs",
        "sigs.k8s.io/yaml",
        "/scale",
        "dist/sw.js",
        ".rs",
    ] {
        assert!(!is_path(p), "{p}");
    }
}
