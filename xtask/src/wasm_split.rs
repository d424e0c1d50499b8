//! The page's second wasm module (issue 29): what the first paint never runs moves out of the
//! wasm Trunk built into a module fetched on first use, with binaryen's `wasm-split`.
//!
//! [`run`] takes `dist/` after `trunk build`:
//!
//! 1. `wasm-split --instrument` the module, serve a copy of `dist/` with it and run
//!    `e2e/split-profile.mjs` in headless Chromium: the first paint of the main page (with
//!    its service worker, and the gallery's CronTab) and of the embed demo's first playground
//!    (both threads), then, on the page's thread only, every gallery example, result tab and
//!    demo playground, a completion list and a slow analysis. Each instance writes which
//!    functions ran (`__write_profile`).
//! 2. `wasm-split --split --profile`: the primary keeps every function that ran, the
//!    secondary (`crd-studio-web-<hash>_split.wasm`) gets the rest; both share the primary's
//!    memory and function table. Each moved function's table slot holds a placeholder, an
//!    import of the `placeholder` namespace named by the slot's index.
//! 3. The wasm-bindgen glue gets the placeholders (`SPLIT_LOADER`): the first call of one
//!    loads the secondary (in the worker, where the engine runs; the page's thread too if it
//!    ever needs it, which the profile avoids), instantiates it against the primary's exports
//!    (its element segments fill the table with the real functions) and calls on. Nothing
//!    changes in the Rust code: a call into moved code is an indirect call through the table.
//!    The load is synchronous: the bytes the service worker cached (the glue reads them from
//!    the Cache API while the primary compiles: a window's synchronous request never reaches
//!    the service worker, so offline it would fail; the worker compiles them in the
//!    background), else a synchronous request.
//! 4. The glue and both modules get new names (a hash of their bytes), `index.html` follows.
//!
//! Debian's binaryen (108) has `wasm-split`; npm's has none. Version 108 predates wasm-bindgen's
//! `table.fill` and writes every table export as table 0: the module goes through the newer
//! `wasm-dis`/`wasm-as` (npm's, as Trunk's `wasm-opt`) with `table.fill` replaced by a loop
//! ([`without_table_fill`]), and the table exports are put back ([`fix_table_exports`]).
//! The profile must come from the very module that is split (`wasm-split` checks a hash), so it
//! is measured on every build (about a minute).

use std::collections::hash_map::DefaultHasher;
use std::fs;
use std::hash::Hasher;
use std::path::{Path, PathBuf};

use crate::{cmd, run};

/// The features of the page's wasm (its `target_features` section), for the tools that do not
/// read them from a module without that section.
const FEATURES: [&str; 6] = [
    "--enable-bulk-memory",
    "--enable-multivalue",
    "--enable-mutable-globals",
    "--enable-nontrapping-float-to-int",
    "--enable-reference-types",
    "--enable-sign-ext",
];

/// The placeholder import namespace and the secondary's import namespace.
const PLACEHOLDERS: &str = "placeholder";
const PRIMARY: &str = "primary";

/// The loader added to the wasm-bindgen glue; `__SPLIT__` is the secondary's file name.
const SPLIT_LOADER: &str = r#"
// The second wasm module (xtask/src/wasm_split.rs): a call of a function the first paint never
// runs lands in a placeholder, which loads the module, instantiates it against this module's
// exports (it fills the function table) and calls the real function. Calls into wasm are
// synchronous, so is the load: the bytes the service worker cached (read while the first
// module compiles, so the studio works offline) or else a synchronous request.
const __splitUrl = new URL('__SPLIT__', import.meta.url).href;
let __splitLoaded = false;
let __splitBytes = null;
let __splitModule = null;
const __splitCached = (async () => {
    try {
        if (typeof caches === 'undefined') return;
        const response = await caches.match(__splitUrl);
        if (response && response.ok) __splitBytes = new Uint8Array(await response.arrayBuffer());
    } catch (_) {
        // No cache (a sandboxed frame, storage disabled): the request below.
    }
    // In the worker, where the moved code runs, cached bytes are compiled in the background:
    // the first use then only instantiates them (no keystroke waits for a compile).
    if (__splitBytes !== null && typeof document === 'undefined') {
        WebAssembly.compile(__splitBytes).then((m) => { __splitModule = m; }, () => {});
    }
})();
function __splitFetch() {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', __splitUrl, false);
    // A window's synchronous request cannot ask for an ArrayBuffer: read bytes as text.
    const inWindow = typeof document !== 'undefined';
    if (inWindow) xhr.overrideMimeType('text/plain; charset=x-user-defined');
    else xhr.responseType = 'arraybuffer';
    xhr.send();
    if (xhr.status !== 200) throw new Error(`loading ${__splitUrl}: HTTP ${xhr.status}`);
    if (!inWindow) return new Uint8Array(xhr.response);
    const text = xhr.responseText;
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
    return bytes;
}
function __splitLoad(index) {
    if (__splitLoaded) return;
    const how = __splitModule !== null ? 'compiled' : __splitBytes !== null ? 'cached' : 'fetched';
    const module = __splitModule ?? new WebAssembly.Module(__splitBytes ?? __splitFetch());
    __splitBytes = null;
    __splitModule = null;
    new WebAssembly.Instance(module, { primary: wasm });
    __splitLoaded = true;
    console.debug(`CRD Studio: second wasm module loaded (${how}, first call: table slot ${index})`);
}
function __splitPlaceholders() {
    return new Proxy({}, {
        get(_, name) {
            const index = Number(name);
            return function (...args) {
                __splitLoad(index);
                return wasm['%table'].get(index)(...args);
            };
        },
    });
}
"#;

/// Splits the wasm of `dist` (see the module doc). `work` is a scratch folder.
pub fn run_split(dist: &Path, work: &Path) -> Result<(), String> {
    let _ = fs::remove_dir_all(work);
    fs::create_dir_all(work).map_err(|e| format!("{}: {e}", work.display()))?;
    let names = file_names(dist)?;
    let glue_name = one(&names, "crd-studio-web-", ".js")?;
    let wasm_name = one(&names, "crd-studio-web-", "_bg.wasm")?;
    let glue =
        fs::read_to_string(dist.join(&glue_name)).map_err(|e| format!("{glue_name}: {e}"))?;

    // 1. A module wasm-split 108 reads.
    let wat = work.join("input.wat");
    run(cmd("wasm-dis")
        .arg(dist.join(&wasm_name))
        .arg("-o")
        .arg(&wat))?;
    let text = fs::read_to_string(&wat).map_err(|e| format!("{}: {e}", wat.display()))?;
    fs::write(&wat, without_table_fill(&text)?).map_err(|e| e.to_string())?;
    let input = work.join("input.wasm");
    run(cmd("wasm-as")
        .arg("--mvp-features")
        .args(FEATURES)
        .arg(&wat)
        .arg("-o")
        .arg(&input))?;
    let source = fs::read(&input).map_err(|e| e.to_string())?;

    // 2. The profile.
    let instrumented = work.join("instrumented.wasm");
    run(cmd("wasm-split")
        .arg("--instrument")
        .args(FEATURES)
        .arg(&input)
        .arg("-o")
        .arg(&instrumented))?;
    fix_table_exports(&instrumented, &source)?;
    let served = work.join("dist");
    copy_dir(dist, &served)?;
    fs::copy(&instrumented, served.join(&wasm_name)).map_err(|e| e.to_string())?;
    let exposed = replace_once(
        &glue,
        "wasm = instance.exports;",
        "wasm = instance.exports; globalThis.__crdStudioWasm = wasm;",
    )?;
    fs::write(served.join(&glue_name), exposed).map_err(|e| e.to_string())?;
    // The page registers its service worker: the profile must see that too.
    crate::dist::finish(&served, &crate::root().join("static/sw.js"))?;
    let profiles = work.join("profiles");
    fs::create_dir_all(&profiles).map_err(|e| e.to_string())?;
    run(cmd("node")
        .arg("split-profile.mjs")
        .current_dir(crate::root().join("e2e"))
        .env("DIST_DIR", &served)
        .env("PROFILE_DIR", &profiles))?;
    let mut merge = cmd("wasm-split");
    merge.arg("--merge-profiles");
    let mut count = 0;
    for entry in fs::read_dir(&profiles).map_err(|e| e.to_string())? {
        merge.arg(entry.map_err(|e| e.to_string())?.path());
        count += 1;
    }
    if count < 4 {
        return Err(format!(
            "split-profile.mjs wrote {count} profiles, expected 4 or more"
        ));
    }
    let profile = work.join("merged.prof");
    run(merge.arg("-o").arg(&profile))?;

    // 3. The split.
    let primary = work.join("primary.wasm");
    let secondary = work.join("secondary.wasm");
    run(cmd("wasm-split")
        .arg("--split")
        .args(FEATURES)
        .arg("--profile")
        .arg(&profile)
        .arg(&input)
        .args(["--placeholder-namespace", PLACEHOLDERS])
        .args(["--import-namespace", PRIMARY])
        .args(["--export-prefix", "%"])
        .arg("-o1")
        .arg(&primary)
        .arg("-o2")
        .arg(&secondary))?;
    fix_table_exports(&primary, &source)?;
    let primary_bytes = fs::read(&primary).map_err(|e| e.to_string())?;
    let secondary_bytes = fs::read(&secondary).map_err(|e| e.to_string())?;

    // 4. New names, the glue, index.html.
    let mut hasher = DefaultHasher::new();
    hasher.write(glue.as_bytes());
    hasher.write(&primary_bytes);
    hasher.write(&secondary_bytes);
    let stem = format!("crd-studio-web-{:016x}", hasher.finish());
    let split_name = format!("{stem}_split.wasm");
    let new_glue = glue_with_placeholders(&glue, &split_name)?;
    for old in [&glue_name, &wasm_name] {
        fs::remove_file(dist.join(old)).map_err(|e| format!("{old}: {e}"))?;
    }
    fs::write(dist.join(format!("{stem}.js")), new_glue).map_err(|e| e.to_string())?;
    fs::write(dist.join(format!("{stem}_bg.wasm")), &primary_bytes).map_err(|e| e.to_string())?;
    fs::write(dist.join(&split_name), &secondary_bytes).map_err(|e| e.to_string())?;
    let index = dist.join("index.html");
    let html = fs::read_to_string(&index).map_err(|e| e.to_string())?;
    let old_stem = glue_name.trim_end_matches(".js");
    if !html.contains(old_stem) {
        return Err(format!("index.html does not name {old_stem}"));
    }
    fs::write(&index, html.replace(old_stem, &stem)).map_err(|e| e.to_string())?;
    println!(
        "wasm split: primary {} bytes, {} on first use ({split_name})",
        primary_bytes.len(),
        secondary_bytes.len()
    );
    let _ = fs::remove_dir_all(work);
    Ok(())
}

/// `text` (a `wasm-dis` module) with each `table.fill` of the externref table replaced by a call
/// of a function that fills in a loop (wasm-bindgen emits one; binaryen 108 cannot read it).
fn without_table_fill(text: &str) -> Result<String, String> {
    if !text.contains("(table.fill ") {
        return Ok(text.to_owned());
    }
    let table = text
        .lines()
        .find_map(|l| {
            let rest = l.trim().strip_prefix("(table ")?;
            l.trim_end()
                .ends_with("externref)")
                .then(|| rest.split_whitespace().next().map(str::to_owned))?
        })
        .ok_or("table.fill, but no externref table")?;
    let fill = format!("(table.fill {table}");
    if text.matches("(table.fill ").count() != text.matches(&fill).count() {
        return Err("table.fill of a table other than the externref table".into());
    }
    let helper = format!(
        " (func $__split_table_fill (param $i i32) (param $v externref) (param $n i32)\n  \
         (block $done (loop $next\n   (br_if $done (i32.eqz (local.get $n)))\n   \
         (table.set {table} (local.get $i) (local.get $v))\n   \
         (local.set $i (i32.add (local.get $i) (i32.const 1)))\n   \
         (local.set $n (i32.sub (local.get $n) (i32.const 1)))\n   (br $next))))\n"
    );
    let replaced = text.replace(&fill, "(call $__split_table_fill");
    let end = replaced
        .trim_end()
        .rfind(')')
        .ok_or("wasm-dis printed no module")?;
    Ok(format!("{}{helper})\n", &replaced[..end]))
}

/// Reads an unsigned LEB128 at `*at`.
fn leb(bytes: &[u8], at: &mut usize) -> Result<u32, String> {
    let mut value: u32 = 0;
    let mut shift = 0;
    loop {
        let byte = *bytes.get(*at).ok_or("truncated wasm")?;
        *at += 1;
        value |= u32::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
        if byte & 0x80 == 0 {
            return Ok(value);
        }
        shift += 7;
    }
}

/// The table exports of a module: (name, offset of the index byte, index).
fn table_exports(bytes: &[u8]) -> Result<Vec<(String, usize, u32)>, String> {
    let mut out = Vec::new();
    let mut at = 8;
    while at < bytes.len() {
        let id = bytes[at];
        at += 1;
        let size = leb(bytes, &mut at)? as usize;
        let end = at + size;
        if id == 7 {
            let mut p = at;
            let count = leb(bytes, &mut p)?;
            for _ in 0..count {
                let len = leb(bytes, &mut p)? as usize;
                let name = String::from_utf8_lossy(bytes.get(p..p + len).ok_or("bad export")?)
                    .into_owned();
                p += len;
                let kind = *bytes.get(p).ok_or("bad export")?;
                p += 1;
                let index_at = p;
                let index = leb(bytes, &mut p)?;
                if kind == 1 {
                    out.push((name, index_at, index));
                }
            }
        }
        at = end;
    }
    Ok(out)
}

/// Gives each table export of the module at `path` the table index it has in `source`
/// (binaryen 108 writes 0 for every one); the new `%table` export must be the function table.
fn fix_table_exports(path: &Path, source: &[u8]) -> Result<(), String> {
    let want = table_exports(source)?;
    let mut bytes = fs::read(path).map_err(|e| e.to_string())?;
    for (name, at, index) in table_exports(&bytes)? {
        let target = match want.iter().find(|(n, _, _)| *n == name) {
            Some((_, _, i)) => *i,
            None if name == "%table" => 0,
            None => return Err(format!("wasm-split exported an unknown table {name}")),
        };
        if target != index {
            if target > 0x7f || bytes[at] > 0x7f {
                return Err(format!("table export {name}: index too large to patch"));
            }
            bytes[at] = target as u8;
        }
    }
    fs::write(path, bytes).map_err(|e| e.to_string())
}

/// The line of the wasm-bindgen glue's async `__wbg_init` that instantiates the module.
const INIT_RETURN: &str =
    "const { instance, module } = await __wbg_load(await module_or_path, imports);";

/// The glue with the placeholder namespace among its imports and the loader.
fn glue_with_placeholders(glue: &str, split_name: &str) -> Result<String, String> {
    let marker = "\"./crd-studio-web_bg.js\": import0,";
    let with_import = replace_once(
        glue,
        marker,
        &format!("{marker}\n        {PLACEHOLDERS}: __splitPlaceholders(),"),
    )?;
    // The cached bytes are read before the first module starts (its start may call moved code).
    let with_import = replace_once(
        &with_import,
        INIT_RETURN,
        &format!("{INIT_RETURN}\n    await __splitCached;"),
    )?;
    Ok(format!(
        "{with_import}{}",
        SPLIT_LOADER.replace("__SPLIT__", split_name)
    ))
}

fn replace_once(text: &str, from: &str, to: &str) -> Result<String, String> {
    match text.matches(from).count() {
        1 => Ok(text.replacen(from, to, 1)),
        n => Err(format!(
            "the wasm-bindgen glue has {n} times {from:?}, expected once"
        )),
    }
}

fn file_names(dir: &Path) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names)
}

fn one(names: &[String], prefix: &str, suffix: &str) -> Result<String, String> {
    let found: Vec<&String> = names
        .iter()
        .filter(|n| n.starts_with(prefix) && n.ends_with(suffix))
        .collect();
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        other => Err(format!("dist/ has {} files {prefix}*{suffix}", other.len())),
    }
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    fs::create_dir_all(to).map_err(|e| e.to_string())?;
    for entry in fs::read_dir(from).map_err(|e| e.to_string())? {
        let entry = entry.map_err(|e| e.to_string())?;
        let target: PathBuf = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_fill_becomes_a_call_of_a_loop() {
        let text = concat!(
            "(module\n (table $0 1 1 funcref)\n (table $1 1024 externref)\n (func $f\n",
            "  (table.fill $1\n   (i32.const 0)\n   (ref.null noextern)\n   (i32.const 1)\n",
            "  )\n )\n)\n"
        );
        let out = without_table_fill(text).unwrap();
        assert!(!out.contains("table.fill"));
        assert!(out.contains("(call $__split_table_fill"));
        assert!(out.contains("(table.set $1 (local.get $i) (local.get $v))"));
        assert!(out.trim_end().ends_with("(br $next))))\n)"));
    }

    #[test]
    fn without_table_fill_leaves_other_modules() {
        assert_eq!(without_table_fill("(module)\n").unwrap(), "(module)\n");
    }

    #[test]
    fn glue_gets_the_placeholder_namespace_once() {
        let glue = concat!(
            "return {\n        \"./crd-studio-web_bg.js\": import0,\n    };\n",
            "    const { instance, module } = await __wbg_load(await module_or_path, imports);\n"
        );
        let out = glue_with_placeholders(glue, "x_split.wasm").unwrap();
        assert!(out.contains("placeholder: __splitPlaceholders(),"));
        assert!(out.contains("new URL('x_split.wasm', import.meta.url)"));
        assert!(out.contains("imports);\n    await __splitCached;\n"));
        assert!(glue_with_placeholders("nothing", "x").is_err());
    }
}
