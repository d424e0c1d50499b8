//! What the CLI tests share: a temporary directory of test files, removed on drop, and the
//! `crd-studio` binary run in it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A temporary directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

/// A fresh directory for test `test` of suite `suite` (unique per process), holding `files`.
pub fn temp_dir<T: AsRef<[u8]>>(suite: &str, test: &str, files: &[(&str, T)]) -> TempDir {
    let dir =
        std::env::temp_dir().join(format!("crd-studio-{suite}-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("write test file");
    }
    TempDir(dir)
}

/// `crd-studio ARGS` run in `dir`, standard input closed.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crd-studio"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run crd-studio")
}

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
