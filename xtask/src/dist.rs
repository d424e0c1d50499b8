//! What `cargo xtask` adds to a `dist/` that Trunk built: the service worker with the build's
//! file list and version (`static/sw.js` is its template).
//!
//! `dist/` works at any path and offline: Trunk writes relative asset URLs (`public_url =
//! "./"` in `Trunk.toml`), and the service worker, byte-different for every build (a version
//! hashed from the files' bytes), caches the new files and deletes older caches. Navigations
//! go to the network first and fall back to the cache; every other file is served from the
//! cache first (Trunk's names carry content hashes). The page registers it with
//! `updateViaCache: 'none'`; where there is no `sw.js` (Trunk's dev server) registration fails
//! quietly.

use std::collections::hash_map::DefaultHasher;
use std::fs;
use std::hash::Hasher;
use std::path::{Path, PathBuf};

/// Finishes a built `dist/`: writes `sw.js`.
pub fn finish(dist: &Path, template: &Path) -> Result<(), String> {
    let mut files = Vec::new();
    list(dist, dist, &mut files)?;
    files.retain(|f| f != "sw.js");
    files.sort();
    // The version: a hash of every file's name and bytes (a new build, a new worker).
    let mut hasher = DefaultHasher::new();
    for f in &files {
        hasher.write(f.as_bytes());
        let bytes = fs::read(dist.join(f)).map_err(|e| format!("{f}: {e}"))?;
        hasher.write(&bytes);
    }
    let version = format!("{:016x}", hasher.finish());
    let mut assets = vec!["./".to_owned()];
    assets.extend(files.iter().map(|f| format!("./{f}")));
    let list = serde_json::to_string(&assets).map_err(|e| e.to_string())?;
    let template =
        fs::read_to_string(template).map_err(|e| format!("{}: {e}", template.display()))?;
    let sw = template
        .replace("'__VERSION__'", &format!("'{version}'"))
        .replace("__ASSETS__", &list);
    fs::write(dist.join("sw.js"), sw).map_err(|e| format!("sw.js: {e}"))?;
    println!(
        "service worker: dist/sw.js caches {} files, version {version}",
        files.len()
    );
    Ok(())
}

/// The files under `dir`, as paths relative to `root` with `/` separators.
fn list(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path: PathBuf = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            list(root, &path, out)?;
        } else if let Ok(rel) = path.strip_prefix(root) {
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(parts.join("/"));
        }
    }
    Ok(())
}
