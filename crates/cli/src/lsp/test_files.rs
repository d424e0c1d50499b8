//! Test files (`*.crdtest.yaml`) in the editor: their cases run as `crd-studio test` runs
//! them (the same code, `crate::crdtest`), each failed expectation a diagnostic at the
//! expectation's place in the test file (the engine's places), each problem reading the file
//! one at its place. The texts a test file names come from the workspace (an open buffer
//! wins over the disk), so editing the CRD or an object file re-runs the cases.

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use crd_studio_engine::{CompiledCrd, TestSource};
use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString};

use super::diagnostics::FileDiagnostics;
use super::index::Index;
use super::position::range;
use super::settings::Settings;
use crate::crdtest::{self, Loaded};

/// The CRDs test files name, compiled, by test file and version.
#[derive(Default)]
pub(crate) struct TestCrds {
    compiled: HashMap<(PathBuf, usize), Rc<CompiledCrd>>,
    /// Per test file, the CRD its newest version compiled last: completion in a half-typed
    /// test file (whose `crd` cannot be read now) uses it.
    last: HashMap<PathBuf, Rc<CompiledCrd>>,
    time_zones: Option<std::sync::Arc<crd_studio_engine::TimeZoneDb>>,
}

impl TestCrds {
    /// Forgets everything (the settings changed).
    pub fn clear(&mut self) {
        self.compiled.clear();
        self.last.clear();
    }

    /// The CRD `text` compiled for test file `test` at version index `v` with `options`:
    /// cached while the text and options are the same, recompiled from the cached one after
    /// an edit.
    fn get(
        &mut self,
        test: &Path,
        v: usize,
        text: &str,
        options: &crd_studio_engine::Options,
    ) -> Rc<CompiledCrd> {
        let key = (test.to_owned(), v);
        let time_zones = self
            .time_zones
            .get_or_insert_with(|| std::sync::Arc::new(crate::time_zones()))
            .clone();
        let fresh = match self.compiled.get(&key) {
            Some(old) if old.text() == text && old.options() == options => old.clone(),
            other => {
                let mut c = match other {
                    Some(old) => old.recompile(text, options),
                    None => CompiledCrd::compile(text, options),
                };
                c.set_time_zones(Some(time_zones));
                Rc::new(c)
            }
        };
        self.compiled.insert(key, fresh.clone());
        fresh
    }
}

/// `path` with `.` and `..` taken out (no disk access: the workspace's paths are joined the
/// same way).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The files a test file's sources name (its CRD, objects, old objects, old CRDs).
fn referenced(path: &Path, loaded_suite: &crd_studio_engine::TestSuite) -> BTreeSet<PathBuf> {
    let base = path.parent().unwrap_or(Path::new(""));
    let cases = loaded_suite
        .cases
        .iter()
        .flat_map(|c| [&c.object, &c.old_object, &c.old_crd]);
    std::iter::once(&loaded_suite.crd)
        .chain(cases)
        .filter_map(|s| match s {
            Some(TestSource::Path(p)) => Some(normalize(&base.join(p))),
            _ => None,
        })
        .collect()
}

/// Reads test file `path` with the texts it names (the workspace's, else the disk's).
fn load(index: &Index, settings: &Settings, path: &Path, text: &str) -> Loaded {
    let base = path.parent().unwrap_or(Path::new("")).to_owned();
    let read = |s: &TestSource| match s {
        TestSource::Inline(t) => Ok(t.clone()),
        TestSource::Path(p) => {
            let full = normalize(&base.join(p));
            match index.files.get(&full) {
                Some(f) => Ok(f.text.clone()),
                None => std::fs::read_to_string(&full).map_err(|e| format!("{p}: {e}")),
            }
        }
    };
    crdtest::load_with(
        path.display().to_string(),
        text.to_owned(),
        &read,
        (vec![settings.kubernetes_version], true),
        settings.field_validation,
    )
}

/// Runs test file `path` and gives its diagnostics, and the files it names (to run it again
/// when one changes).
pub(crate) fn check_test_file(
    index: &Index,
    settings: &Settings,
    crds: &mut TestCrds,
    path: &Path,
) -> (FileDiagnostics, BTreeSet<PathBuf>) {
    let mut out = FileDiagnostics::default();
    let Some(file) = index.files.get(path) else {
        return (out, BTreeSet::new());
    };
    let loaded = load(index, settings, path, &file.text);
    let refs = referenced(path, &loaded.suite);
    let cache = std::cell::RefCell::new(&mut *crds);
    let newest = loaded.versions.len().saturating_sub(1);
    let outcomes = crdtest::run_suite(&loaded, &|v, crd| {
        let mut c = cache.borrow_mut();
        let compiled = c.get(path, v, crd, &crdtest::options(&loaded, v));
        if v == newest {
            c.last.insert(path.to_owned(), compiled.clone());
        }
        compiled
    });
    let several = loaded.versions.len() > 1;
    let mut seen = BTreeSet::new();
    for o in &outcomes {
        for x in &o.failures {
            let problem = x.expectation == "test file";
            let message = if problem {
                x.got.clone()
            } else {
                let at = if several {
                    format!(" [{}]", o.version)
                } else {
                    String::new()
                };
                format!(
                    "{}{at}: {}: expected {}, got {}",
                    o.case, x.expectation, x.expected, x.got
                )
            };
            let r = range(&x.place);
            if !seen.insert((r.start, r.end, message.clone())) {
                continue;
            }
            out.diagnostics.push(Diagnostic {
                range: r,
                severity: Some(DiagnosticSeverity::ERROR),
                code: Some(NumberOrString::String(
                    if problem {
                        "crd-test.invalid"
                    } else {
                        "crd-test.failed"
                    }
                    .into(),
                )),
                source: Some("crd-studio".into()),
                message,
                ..Diagnostic::default()
            });
        }
    }
    (out, refs)
}

/// The CRD under test of test file `path` at its newest version, for completion and hover
/// (the last one compiled when the file cannot be read now).
pub(crate) fn test_crd(
    index: &Index,
    settings: &Settings,
    crds: &mut TestCrds,
    path: &Path,
) -> Option<Rc<CompiledCrd>> {
    let file = index.files.get(path)?;
    let loaded = load(index, settings, path, &file.text);
    match &loaded.crd {
        Ok(text) => {
            let v = loaded.versions.len().saturating_sub(1);
            let c = crds.get(path, v, text, &crdtest::options(&loaded, v));
            crds.last.insert(path.to_owned(), c.clone());
            Some(c)
        }
        Err(_) => crds.last.get(path).cloned(),
    }
}

/// Whether `path` names a test file.
pub(crate) fn is_test_file(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| crdtest::is_test_file(&n.to_string_lossy()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes() {
        assert_eq!(
            normalize(Path::new("/w/examples/a/../crd.yaml")),
            PathBuf::from("/w/examples/crd.yaml")
        );
        assert_eq!(
            normalize(Path::new("/w/./a/b.yaml")),
            PathBuf::from("/w/a/b.yaml")
        );
    }
}
