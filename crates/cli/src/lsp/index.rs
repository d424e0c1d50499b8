//! The workspace model: every YAML/JSON file of the workspace (and the extra CRD paths), its
//! text (an open buffer wins over the disk) and the header of each document, with the CRDs
//! indexed by the group and kind they define.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crd_studio_engine::{document_headers, DocumentHeader};

use super::settings::Settings;

/// One file the server knows.
pub(crate) struct File {
    /// Its text (the buffer's when open).
    pub text: String,
    /// The buffer's version when open.
    pub version: Option<i32>,
    /// Each document's header.
    pub headers: Vec<DocumentHeader>,
    /// The headers of the last text that had as many documents with a value: what a
    /// half-typed (unreadable) document was, for completion and hover inside it.
    pub last_headers: Vec<DocumentHeader>,
    /// Found through `crdPaths` (outside the workspace): indexed for its CRDs, diagnosed
    /// only when open.
    pub extra: bool,
}

/// A CRD document: the file and the document's index.
pub(crate) type CrdRef = (PathBuf, usize);

/// The files and the CRD index.
#[derive(Default)]
pub(crate) struct Index {
    pub root: Option<PathBuf>,
    pub files: BTreeMap<PathBuf, File>,
    /// (group, kind) → the CRD documents that define it, in path order.
    pub crds: HashMap<(String, String), Vec<CrdRef>>,
}

/// Whether `header` is a CustomResourceDefinition.
pub(crate) fn is_crd(h: &DocumentHeader) -> bool {
    h.kind.as_deref() == Some("CustomResourceDefinition")
        && h.api_version
            .as_deref()
            .is_some_and(|v| v.starts_with("apiextensions.k8s.io/"))
}

/// Whether a kind of `group` that no CRD defines is one of Kubernetes' own (core, `apps`,
/// `*.k8s.io`, ...): left alone.
pub(crate) fn is_builtin_group(group: &str) -> bool {
    !group.contains('.') || group.ends_with(".k8s.io")
}

/// The largest file read from disk (the engine's own limit says why a bigger buffer fails).
const MAX_FILE_BYTES: u64 = 8 << 20;

impl Index {
    /// Reads the workspace: every file under the root the settings include, and the extra
    /// CRD paths. Keeps open buffers.
    pub fn scan(&mut self, settings: &Settings) -> Vec<String> {
        let mut log = Vec::new();
        let open: BTreeMap<PathBuf, File> = std::mem::take(&mut self.files)
            .into_iter()
            .filter(|(_, f)| f.version.is_some())
            .collect();
        if let Some(root) = self.root.clone() {
            let mut found = Vec::new();
            walk(&root, &root, settings, &mut found, 0);
            for path in found {
                self.load(&path, false, &mut log);
            }
            for extra in &settings.crd_paths {
                let p = root.join(extra);
                let mut files = Vec::new();
                if p.is_dir() {
                    let all = Settings::default();
                    walk(&p, &p, &all, &mut files, 0);
                } else {
                    files.push(p.clone());
                }
                for f in files {
                    self.load(&f, true, &mut log);
                }
            }
        }
        for (path, file) in open {
            self.files.insert(path, file);
        }
        self.reindex();
        log
    }

    fn load(&mut self, path: &Path, extra: bool, log: &mut Vec<String>) {
        match read(path) {
            Ok(text) => {
                let headers = document_headers(&text);
                self.files.insert(
                    path.to_owned(),
                    File {
                        text,
                        version: None,
                        last_headers: headers.clone(),
                        headers,
                        extra,
                    },
                );
            }
            Err(e) => log.push(format!("{}: {e}", path.display())),
        }
    }

    /// Sets a file's text (an open buffer's, or the disk's when `version` is `None`), or
    /// forgets it (`None` text). Returns the (group, kind) pairs its CRDs defined before and
    /// after: whose objects to check again.
    pub fn set(
        &mut self,
        path: &Path,
        text: Option<String>,
        version: Option<i32>,
    ) -> BTreeSet<(String, String)> {
        let mut touched = self.defines(path);
        match text {
            Some(text) => {
                let headers = document_headers(&text);
                let old = self.files.get(path);
                let extra = old.is_some_and(|f| f.extra);
                let last_headers = match old {
                    Some(f) if f.last_headers.len() > headers.len() => f.last_headers.clone(),
                    _ => headers.clone(),
                };
                self.files.insert(
                    path.to_owned(),
                    File {
                        text,
                        version,
                        headers,
                        last_headers,
                        extra,
                    },
                );
            }
            None => {
                self.files.remove(path);
            }
        }
        touched.extend(self.defines(path));
        if !touched.is_empty() || self.crds.values().flatten().any(|(p, _)| p == path) {
            self.reindex();
        }
        touched
    }

    /// A file's text as on disk, or `None` when it is not a workspace file.
    pub fn disk_text(&self, path: &Path, settings: &Settings) -> Option<String> {
        let inside = match &self.root {
            Some(root) => path
                .strip_prefix(root)
                .is_ok_and(|rel| settings.includes(&rel.to_string_lossy().replace('\\', "/"))),
            None => false,
        };
        let extra = self.files.get(path).is_some_and(|f| f.extra);
        (inside || extra).then(|| read(path).ok()).flatten()
    }

    /// The (group, kind) pairs the CRDs of `path` define.
    pub fn defines(&self, path: &Path) -> BTreeSet<(String, String)> {
        self.files
            .get(path)
            .map(|f| f.headers.iter().filter_map(|h| h.defines.clone()).collect())
            .unwrap_or_default()
    }

    fn reindex(&mut self) {
        self.crds.clear();
        for (path, file) in &self.files {
            for h in &file.headers {
                if let (true, Some(d)) = (is_crd(h), &h.defines) {
                    self.crds
                        .entry(d.clone())
                        .or_default()
                        .push((path.clone(), h.index));
                }
            }
        }
    }

    /// The files holding objects of one of `kinds` (group, kind).
    pub fn files_with_objects_of(&self, kinds: &BTreeSet<(String, String)>) -> Vec<PathBuf> {
        self.files
            .iter()
            .filter(|(_, f)| {
                f.headers.iter().any(|h| {
                    !is_crd(h)
                        && h.kind
                            .as_ref()
                            .zip(h.group())
                            .is_some_and(|(k, g)| kinds.contains(&(g.to_owned(), k.clone())))
                })
            })
            .map(|(p, _)| p.clone())
            .collect()
    }
}

fn read(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!("skipped: {} bytes", meta.len()));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn walk(root: &Path, dir: &Path, settings: &Settings, out: &mut Vec<PathBuf>, depth: usize) {
    if depth > 32 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let Ok(kind) = e.file_type() else { continue };
        let rel = path
            .strip_prefix(root)
            .map(|r| r.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        if kind.is_dir() {
            let probe = format!("{rel}/x");
            if !settings
                .exclude
                .iter()
                .any(|g| super::settings::glob_match(g, &probe))
            {
                walk(root, &path, settings, out, depth + 1);
            }
        } else if kind.is_file() && settings.includes(&rel) {
            out.push(path);
        }
    }
}
