//! The embed script's manifest: `dist/crd-studio-embed.json` names the files Trunk built with
//! hashed names (the wasm-bindgen JS glue, the wasm, the CSS), so `crd-studio-embed.js`, which
//! a docs page loads by a fixed name, finds them beside itself. [`write`] runs after every
//! `trunk build` that produces `dist/` (build, e2e, bench --browser); `trunk serve` rebuilds
//! `dist/` without it, and the script then reads the same names from `index.html`.
//!
//! It also prints what the main page and a page with embeds download (script, manifest, glue,
//! wasm, CSS, CodeMirror bundle, worker script; the main page's HTML and starter), raw and
//! gzipped, and fails above the budget ([`BUDGET_GZIP`]; `e2e/embed.test.mjs` asserts the
//! same; `tzdb.bin` only loads when a rule names a time zone, the second wasm module
//! (`*_split.wasm`) on first use).
//!
//! # The payload budget
//!
//! Issue 11 set 1.2 MB gzip. Issues 15 and 16 took it from 1.18 MB to 1.31 MB: the update path
//! and `crd_diff` (+45 KB raw wasm), the assist module and fixes (+30 KB, and
//! `@codemirror/autocomplete` +10 KB gzip in `editor.js`), Explain and samples (+27 KB), their
//! views and serde code. The budget was raised to 1.35 MB as a measured, deliberate
//! regression (later 1.38 MB). The browser's wasm is built without `regex-automata`'s lazy
//! DFA (about 30 KB gzip; `crates/gostd/Cargo.toml`).
//!
//! Issue 29 asks for 1 MB. Measured on its way (names from the cargo output before
//! `wasm-opt`, raw bytes; the page's 1.36 MB gzip is 1.20 MB wasm, 130 KB `editor.js`): code
//! 3.1 MB and data 445 KB (168 KB deflated). By crate: the engine 776 KB, CEL 350 KB, the
//! page's views 335 KB, `core` 334 KB (of it the stable sort 174 KB in 34 instances), serde_json
//! 263 KB and serde 82 KB (mostly the page reading the worker's report: 38 `deserialize_seq`
//! instances, one per `Vec<T>`), yew 178 KB, regex 145 KB. `editor.js` is minified and uses
//! every package it bundles (`@codemirror/view` 183 KB of its 395 KB). Cut: the sort, now
//! compiled once (`crd_studio_gostd::sort`): 174 KB to 86 KB raw, 14.3 KB gzip (measured
//! earlier: `opt-level = "s"` makes the wasm 19% larger than `"z"`, and `wasm-opt` passes
//! beyond `-Oz` gain under 0.1%). The second module, weighed
//! again: what runs only on demand (assist 36 KB, Explain 26 KB, samples 14 KB, authored
//! conversion 34 KB, `crd_diff` 45 KB, the update path 12 KB, fixes 11 KB, the page's assist
//! 15 KB: about 190 KB raw, 60 KB gzip) all works on a `CompiledCrd`, so that module carries
//! the engine's parser, schema compiler and CEL checker again (about 0.9 MB gzip) and fetches
//! it on the first completion; and Explain and the samples are computed with every analysis
//! (`src/worker_boundary.rs`), so they would first have to become requests of their own.
//! Reaching 1 MB takes changes of that size: the report's deserialization in the page, the
//! on-demand requests, then the split.
//!
//! The report's deserialization is done: the messages between the page and the worker are
//! read and written by `src/wire_json.rs` (one out-of-line tokenizer, small generic methods,
//! structs as arrays of their fields), not `serde_json`, whose parsing was inlined into every
//! type's instance (about 400 KB of the 3.4 MB code before `wasm-opt`). The
//! wasm went from 3,073,149 to 2,893,640 bytes (1,232,335 to 1,180,253 gzip) with the reader
//! alone, to 2,836,092 (1,158,579 gzip) with the writer and structs as arrays; see
//! `BUDGET_GZIP` for the page. What is left is spread out (pre-`wasm-opt`, raw):
//! the engine about 800 KB, the page's views 370 KB, CEL 350 KB, `core`/`alloc` 450 KB (the
//! drop glue 66 KB, `BTreeMap` 85 KB, the remaining sort instances 56 KB: `BTreeMap`'s
//! `from_iter` and the engine's own `sort_by_key` calls), yew 190 KB, regex 185 KB, data
//! 450 KB (170 KB deflated: the gallery's texts, `ObjectMeta`'s explain text, Unicode
//! tables). `cargo tree -d` for the wasm finds no duplicated crate (only `syn`, a build
//! dependency).
//!
//! The second module, done (`wasm_split.rs`): binaryen's `wasm-split` moves every function
//! that a profile of the first paint (the main page and the embed demo, both threads; the
//! page's thread also through every gallery example and result tab) never ran into
//! `crd-studio-web-<hash>_split.wasm`. It shares the first module's memory and function table;
//! the first call of a moved function (in the worker: completion, hover, fixes, Explain, the
//! other examples' analyses, the update path, ...) fetches it synchronously and instantiates
//! it. Measured (`gzip -9`): the wasm's 1,172,954 bytes became 815 KB for the first paint
//! (2.02 MB raw) and 406 KB on first use (0.96 MB raw); the embed page 975,716 bytes, the main
//! page 973,556. A profile of the worker through every gallery example too keeps 943 KB in the
//! first module (the page about 1.1 MB); a split by the names of the on-demand code moves
//! about 80 KB (estimated above), so only the profile of the first paint reaches 1 MB and the
//! other examples' analyses, like completion, fetch the second module. The e2e test
//! `e2e/split.test.mjs` watches the network.

use std::path::Path;

/// The manifest's file name, beside the script in `dist/`.
pub const MANIFEST: &str = "crd-studio-embed.json";

/// What the main page and a page with embeds may each download, gzipped; `cargo xtask build`
/// fails above it. Issue 11 set 1.2 MB; issues 15 and 16 (help while writing, the CRD update
/// path) raised it to 1.35 MB, later issues to 1.41 MB; issue 29's `src/wire_json.rs` took it
/// back to 1.36 MB, and its second wasm module (`wasm_split.rs`) to 1 MB, its goal. Counted
/// with `gzip -9 -n`, after `web/minify.mjs` (the glue, scripts and CSS: about 10 KB gzip):
/// the embed page measured 973,888 bytes, the main page 972,727. `e2e/embed.test.mjs` gzips
/// what the browser downloads from a test-hooks build with the same command: 973,745.
const BUDGET_GZIP: usize = 1_000_000;

/// The one file of `names` that starts with `prefix` and ends with `suffix`.
fn one<'a>(names: &'a [String], prefix: &str, suffix: &str, what: &str) -> Result<&'a str, String> {
    let found: Vec<&String> = names
        .iter()
        .filter(|n| n.starts_with(prefix) && n.ends_with(suffix))
        .collect();
    match found.as_slice() {
        [one] => Ok(one.as_str()),
        [] => Err(format!("dist/ has no {what} ({prefix}*{suffix})")),
        many => Err(format!("dist/ has several {what}s: {many:?}")),
    }
}

/// A JSON string literal (the names are plain file names, but quote them properly).
fn json_string(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// Gzip's size of the file at `path`: `gzip -9 -n`'s output (GNU gzip, on every Debian system).
/// `e2e/embed.test.mjs` gzips what the browser downloads with the same command, so the two
/// counts differ only by the test build's hooks.
fn gzip_size(path: &Path) -> Result<usize, String> {
    let out = std::process::Command::new("gzip")
        .args(["-9", "-n", "-c"])
        .arg(path)
        .output()
        .map_err(|e| format!("running gzip: {e}"))?;
    if !out.status.success() {
        return Err(format!("gzip {}: {}", path.display(), out.status));
    }
    Ok(out.stdout.len())
}

/// Writes `crd-studio-embed.json` into `dist` (a Trunk build of `index.html`) and prints the
/// embed payload.
pub fn write(dist: &Path) -> Result<(), String> {
    let mut names: Vec<String> = std::fs::read_dir(dist)
        .map_err(|e| format!("reading {}: {e}", dist.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    let js = one(&names, "crd-studio-web-", ".js", "wasm-bindgen script")?;
    let wasm = one(&names, "crd-studio-web-", "_bg.wasm", "wasm module")?;
    let css = one(&names, "style", ".css", "stylesheet")?;
    for fixed in [
        "crd-studio-embed.js",
        "editor.js",
        "worker.js",
        "start.js",
        "index.html",
    ] {
        if !names.iter().any(|n| n == fixed) {
            return Err(format!("dist/ has no {fixed} (index.html copies it)"));
        }
    }
    let manifest = format!(
        "{{\"js\":{},\"wasm\":{},\"css\":{},\"editor\":\"editor.js\",\"worker\":\"worker.js\"}}\n",
        json_string(js),
        json_string(wasm),
        json_string(css)
    );
    std::fs::write(dist.join(MANIFEST), &manifest)
        .map_err(|e| format!("writing {MANIFEST}: {e}"))?;

    let embed_page = [
        "crd-studio-embed.js",
        MANIFEST,
        js,
        wasm,
        css,
        "editor.js",
        "worker.js",
    ];
    let main_page = [
        "index.html",
        "start.js",
        js,
        wasm,
        css,
        "editor.js",
        "worker.js",
    ];
    if let Some(split) = names.iter().find(|n| n.ends_with("_split.wasm")) {
        print_payload(dist, "on first use (not counted)", &[split.as_str()])?;
    }
    let mut over = Vec::new();
    for (what, files) in [
        (
            "embed page (what a page with <crd-studio> elements downloads)",
            &embed_page[..],
        ),
        ("main page (index.html's first load)", &main_page[..]),
    ] {
        let gz = print_payload(dist, what, files)?;
        if gz > BUDGET_GZIP {
            over.push(format!("the {what}: {gz} bytes gzip"));
        }
    }
    if over.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "over the payload budget of {BUDGET_GZIP} bytes gzip: {}",
            over.join("; ")
        ))
    }
}

/// Prints each of `files` (in `dist`) raw and gzipped, and their total; the gzipped total.
fn print_payload(dist: &Path, what: &str, files: &[&str]) -> Result<usize, String> {
    println!("{what}:");
    let (mut raw, mut gz) = (0, 0);
    for name in files {
        let path = dist.join(name);
        let len = std::fs::metadata(&path)
            .map_err(|e| format!("reading {name}: {e}"))?
            .len() as usize;
        let g = gzip_size(&path)?;
        println!("  {name:<44} {len:>9} bytes {g:>9} gzip");
        raw += len;
        gz += g;
    }
    println!(
        "  {:<44} {raw:>9} bytes {gz:>9} gzip ({:.0}% of the {} KB budget)",
        "total",
        gz as f64 * 100.0 / BUDGET_GZIP as f64,
        BUDGET_GZIP / 1000
    );
    Ok(gz)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_names_the_hashed_files() {
        let dir =
            std::env::temp_dir().join(format!("crd-studio-embed-dist-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            "index.html",
            "crd-studio-web-1a2b.js",
            "crd-studio-web-1a2b_bg.wasm",
            "style-3c4d.css",
            "crd-studio-embed.js",
            "editor.js",
            "worker.js",
            "start.js",
        ] {
            std::fs::write(dir.join(name), name).unwrap();
        }
        write(&dir).unwrap();
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(MANIFEST)).unwrap()).unwrap();
        assert_eq!(manifest["js"], "crd-studio-web-1a2b.js");
        assert_eq!(manifest["wasm"], "crd-studio-web-1a2b_bg.wasm");
        assert_eq!(manifest["css"], "style-3c4d.css");
        std::fs::remove_file(dir.join("worker.js")).unwrap();
        assert!(write(&dir).unwrap_err().contains("worker.js"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
