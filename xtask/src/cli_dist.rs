//! `cargo xtask dist [--target TRIPLE]`: the `crd-studio` command line as a static Linux
//! binary for CI (default `x86_64-unknown-linux-musl`; `aarch64-unknown-linux-musl` builds the
//! same way where a linker for it is installed, e.g. `CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER=aarch64-linux-gnu-gcc`),
//! in `<target>/cli-dist/`: `crd-studio-<triple>`, the same file as `kubectl-crd_studio-<triple>`
//! (on `PATH` as `kubectl-crd_studio`, `kubectl crd-studio …` runs it), a krew manifest from
//! `packaging/krew/crd-studio.yaml` with the archive's SHA-256, and `SHA256SUMS`. The task
//! checks that the binary is static (no ELF interpreter) and runs it once.
//!
//! The binary is built with the `cli` profile (root `Cargo.toml`), never `release`: the
//! release profile aborts on panic (it is the page's), and the shipped `crd-studio lsp` must
//! unwind to catch a panic in one analysis and go on. The task checks that the profile unwinds.
//!
//! The Rust standard library for the musl target comes from `rustup target add`; no C
//! toolchain is needed (Rust links musl binaries with its own self-contained CRT).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::{cmd, root, run, step, target_dir};

/// The default target.
pub const DEFAULT_TARGET: &str = "x86_64-unknown-linux-musl";

/// The cargo profile the shipped binary is built with (also in the Dockerfile, the action's
/// and the pre-commit hook's source builds).
pub const PROFILE: &str = "cli";

/// The task.
pub fn run_task(args: &[String]) -> Result<bool, String> {
    let target = match args {
        [] => DEFAULT_TARGET.to_owned(),
        [flag, t] if flag == "--target" => t.clone(),
        _ => return Err("usage: cargo xtask dist [--target TRIPLE]".into()),
    };
    let started = Instant::now();
    let out = build(&target)?;
    println!(
        "built {} in {:.0} s",
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(true)
}

/// Builds, checks and packages the binary for `target`; returns the folder.
pub fn build(target: &str) -> Result<PathBuf, String> {
    let installed = cmd("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l == target)
        })
        .unwrap_or(false);
    if !installed {
        step(&format!("rustup target add {target}"));
        run(cmd("rustup").args(["target", "add", target]))?;
    }
    let manifest =
        fs::read_to_string(root().join("Cargo.toml")).map_err(|e| format!("Cargo.toml: {e}"))?;
    match profile_panic(&manifest, PROFILE).as_deref() {
        Some("unwind") => {}
        other => {
            return Err(format!(
                "profile {PROFILE} in Cargo.toml must set panic = \"unwind\" (found {other:?}): the language server catches panics"
            ))
        }
    }
    step(&format!(
        "cargo build --profile {PROFILE} -p crd-studio-cli --target {target}"
    ));
    run(cmd("cargo").args([
        "build",
        "--profile",
        PROFILE,
        "--locked",
        "-p",
        "crd-studio-cli",
        "--target",
        target,
    ]))?;
    let built = target_dir().join(target).join(PROFILE).join("crd-studio");
    let bytes = fs::read(&built).map_err(|e| format!("{}: {e}", built.display()))?;
    if has_interpreter(&bytes) {
        return Err(format!(
            "{} is dynamically linked (it has an ELF interpreter)",
            built.display()
        ));
    }
    let dir = target_dir().join("cli-dist");
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let name = format!("crd-studio-{target}");
    let plugin = format!("kubectl-crd_studio-{target}");
    for n in [&name, &plugin] {
        copy_executable(&built, &dir.join(n))?;
    }
    // The krew archive: the plugin binary under its plugin name.
    let archive = format!("kubectl-crd_studio-{target}.tar.gz");
    let stage = dir.join(format!("stage-{target}"));
    let _ = fs::remove_dir_all(&stage);
    fs::create_dir_all(&stage).map_err(|e| format!("{}: {e}", stage.display()))?;
    copy_executable(&built, &stage.join("kubectl-crd_studio"))?;
    run(cmd("tar")
        .arg("-czf")
        .arg(dir.join(&archive))
        .arg("-C")
        .arg(&stage)
        .arg("."))?;
    let _ = fs::remove_dir_all(&stage);
    let version = String::from_utf8_lossy(
        &cmd(&dir.join(&name).display().to_string())
            .arg("--version")
            .output()
            .map_err(|e| format!("{name} --version: {e}"))?
            .stdout,
    )
    .trim()
    .to_owned();
    println!("{name}: {version}, {} bytes, static", bytes.len());
    // SHA-256 of every file but the list itself.
    let mut names: Vec<String> = fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "SHA256SUMS" && !n.ends_with(".krew.yaml"))
        .collect();
    names.sort();
    let sums = cmd("sha256sum")
        .args(&names)
        .current_dir(&dir)
        .output()
        .map_err(|e| format!("sha256sum: {e}"))?;
    if !sums.status.success() {
        return Err("sha256sum failed".into());
    }
    let sums = String::from_utf8_lossy(&sums.stdout).into_owned();
    fs::write(dir.join("SHA256SUMS"), &sums).map_err(|e| format!("SHA256SUMS: {e}"))?;
    // The krew manifest with this archive's checksum.
    let sha = sums
        .lines()
        .find(|l| l.ends_with(&archive))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_default();
    let template = fs::read_to_string(root().join("packaging/krew/crd-studio.yaml"))
        .map_err(|e| format!("packaging/krew/crd-studio.yaml: {e}"))?;
    let manifest = template
        .replace("{{VERSION}}", env!("CARGO_PKG_VERSION"))
        .replace(
            "{{REPOSITORY}}",
            &std::env::var("GITHUB_REPOSITORY").unwrap_or_else(|_| "OWNER/crd-studio".into()),
        )
        .replace("{{SHA256_LINUX_AMD64}}", sha);
    fs::write(dir.join("crd-studio.krew.yaml"), manifest)
        .map_err(|e| format!("krew manifest: {e}"))?;
    print!("{sums}");
    Ok(dir)
}

fn copy_executable(from: &Path, to: &Path) -> Result<(), String> {
    fs::copy(from, to).map_err(|e| format!("{} -> {}: {e}", from.display(), to.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(to, fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("{}: {e}", to.display()))?;
    }
    Ok(())
}

/// The `panic` setting written in profile `name`'s own table of a Cargo manifest
/// (`[profile.NAME]`), unquoted; `None` when the table does not set it.
pub fn profile_panic(manifest: &str, name: &str) -> Option<String> {
    let header = format!("[profile.{name}]");
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == header;
        } else if inside {
            if let Some((key, value)) = line.split_once('=') {
                if key.trim() == "panic" {
                    let value = value.split('#').next().unwrap_or_default();
                    return Some(value.trim().trim_matches('"').to_owned());
                }
            }
        }
    }
    None
}

/// Whether a 64-bit little-endian ELF file has a `PT_INTERP` program header (a dynamic
/// loader): a static binary has none.
pub fn has_interpreter(elf: &[u8]) -> bool {
    let u16_at = |o: usize| {
        elf.get(o..o + 2)
            .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]) as usize)
    };
    let u64_at = |o: usize| {
        elf.get(o..o + 8).map_or(0, |b| {
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            u64::from_le_bytes(a) as usize
        })
    };
    if elf.get(..4) != Some(b"\x7fELF") || elf.get(4) != Some(&2) {
        return false;
    }
    let (phoff, phentsize, phnum) = (u64_at(0x20), u16_at(0x36), u16_at(0x38));
    (0..phnum).any(|i| {
        let at = phoff + i * phentsize;
        elf.get(at..at + 4) == Some(&3u32.to_le_bytes()[..])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_test_binary_is_dynamic_or_static_as_built() {
        // The test binary itself (a glibc build) has an interpreter; a file that is not ELF
        // has none.
        let exe = std::env::current_exe()
            .and_then(fs::read)
            .unwrap_or_default();
        if cfg!(all(target_os = "linux", target_env = "gnu")) {
            assert!(has_interpreter(&exe));
        }
        assert!(!has_interpreter(b"#!/bin/sh\n"));
    }

    #[test]
    fn the_shipped_profile_unwinds() {
        let manifest = fs::read_to_string(root().join("Cargo.toml")).unwrap();
        assert_eq!(profile_panic(&manifest, PROFILE).as_deref(), Some("unwind"));
        assert_eq!(
            profile_panic(&manifest, "release").as_deref(),
            Some("abort")
        );
        let toml = "[profile.a]\npanic = \"abort\" # no\n[profile.b]\nopt-level = 3\n";
        assert_eq!(profile_panic(toml, "a").as_deref(), Some("abort"));
        assert_eq!(profile_panic(toml, "b"), None);
        // The other ways the binary is built use the same profile.
        for (file, needle) in [
            ("Dockerfile", "--profile cli"),
            ("Dockerfile", "x86_64-unknown-linux-musl/cli/crd-studio"),
            ("packaging/pre-commit.sh", "--profile cli"),
            ("packaging/action.sh", "--profile cli"),
        ] {
            let text = fs::read_to_string(root().join(file)).unwrap();
            assert!(text.contains(needle), "{file} lacks {needle}");
        }
    }
}
