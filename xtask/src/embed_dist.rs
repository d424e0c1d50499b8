//! The embed script's manifest: `dist/crd-studio-embed.json` names the files Trunk built with
//! hashed names (the wasm-bindgen JS glue, the wasm, the CSS), so `crd-studio-embed.js`, which
//! a docs page loads by a fixed name, finds them beside itself. [`write`] runs after every
//! `trunk build` that produces `dist/` (build, e2e, bench --browser); `trunk serve` rebuilds
//! `dist/` without it, and the script then reads the same names from `index.html`.
//!
//! It also prints what a page with embeds downloads (script, manifest, glue, wasm, CSS,
//! CodeMirror bundle), raw and gzipped, against the budget ([`BUDGET_GZIP`], 1.42 MB gzip;
//! `e2e/embed.test.mjs` asserts the same; `tzdb.bin` only loads when a rule names a time zone).
//!
//! # The payload budget
//!
//! Issue 11 set 1.2 MB gzip. Issues 15 and 16 took it from 1.18 MB to 1.31 MB: the update path
//! and `crd_diff` (+45 KB raw wasm), the assist module and fixes (+30 KB, and
//! `@codemirror/autocomplete` +10 KB gzip in `editor.js`), Explain and samples (+27 KB), their
//! views and serde code. The budget was raised to 1.35 MB as a measured, deliberate
//! regression. A second wasm module loaded on first use (as `tzdb.bin` is) was weighed and set
//! aside: the page and the worker run one module, and the parts that grew need the engine's
//! parser, schema compiler and CEL checker, so a lazily loaded module would carry its own copy
//! of the engine (about 0.9 MB gzip) to save about 0.1 MB for the first load, and completion,
//! which fires 300 ms into a pause in typing, would fetch it for nearly every user. The way
//! back is code size: measured on the way, `opt-level = "s"` makes the wasm 19% larger than
//! `"z"` and extra `wasm-opt` passes gain under 0.1%; the largest generic families are
//! serde_json's `deserialize_seq` (38 instances, 150 KB raw: the report's `Vec<T>` types the
//! page reads) and the stable sort (34 instances, 110 KB raw). The browser's wasm is also
//! built without `regex-automata`'s lazy DFA (about 30 KB gzip; `crates/gostd/Cargo.toml`).

use std::path::Path;

/// The manifest's file name, beside the script in `dist/`.
pub const MANIFEST: &str = "crd-studio-embed.json";

/// What a page with embeds may download in total, gzipped. Issue 11 set 1.2 MB; the help
/// while writing (issue 15: completion, hover, fixes, Explain, samples) and the CRD update
/// path (issue 16: the Previous CRD, breaking changes, stored-object effects) took the wasm to
/// 1.31 MB. Raised to 1.35 MB: a deliberate, measured regression, not a drift (why no second,
/// lazily loaded module: the module doc). Raised to 1.36 MB for issues 24 and 28 (the
/// engine's places in every result, the front door, the fidelity classes: the embed page
/// measured 1,353,762 bytes, the main page 1,338,909). Raised to 1.38 MB for issue 30 (the
/// splitter, the version notes, the newcomer guidance: the e2e embed page measured 1,369,915,
/// the main page 1,353,753); issue 29 brings it to 1 MB and lowers this budget with it.
/// Raised to 1.42 MB for issue 27 (the Tests tab: the test-file reader, checker and writer in
/// the worker, the tab; +38 KB gzip of wasm: `cargo xtask build` measured 1,396,666, the e2e
/// embed page 1,411,710).
const BUDGET_GZIP: usize = 1_420_000;

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

/// Gzip's size of `bytes` at level 9: the deflate stream plus gzip's 18-byte frame.
fn gzip_size(bytes: &[u8]) -> usize {
    miniz_oxide::deflate::compress_to_vec(bytes, 9).len() + 18
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
    for fixed in ["crd-studio-embed.js", "editor.js", "worker.js"] {
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

    println!("embed payload (what a page with <crd-studio> elements downloads):");
    let (mut raw, mut gz) = (0, 0);
    for name in ["crd-studio-embed.js", MANIFEST, js, wasm, css, "editor.js"] {
        let bytes = std::fs::read(dist.join(name)).map_err(|e| format!("reading {name}: {e}"))?;
        let g = gzip_size(&bytes);
        println!("  {name:<44} {:>9} bytes {:>9} gzip", bytes.len(), g);
        raw += bytes.len();
        gz += g;
    }
    println!(
        "  {:<44} {raw:>9} bytes {gz:>9} gzip ({:.0}% of the {} KB budget)",
        "total",
        gz as f64 * 100.0 / BUDGET_GZIP as f64,
        BUDGET_GZIP / 1000
    );
    if gz > BUDGET_GZIP {
        println!("  warning: over the budget");
    }
    Ok(())
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
