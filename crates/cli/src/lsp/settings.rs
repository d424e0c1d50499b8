//! The server's settings: from `.crd-studio.yaml` at the workspace root, then the client's
//! `initializationOptions` and `workspace/configuration` (section `crd-studio`), later ones
//! winning key by key. Keys (camelCase, as VS Code settings are written):
//!
//! - `kubernetesVersion`: `"1.37"` (1.30 to 1.37); `fieldValidation`: Strict, Warn, Ignore;
//! - `include` / `exclude`: globs relative to the root (`*`, `?`, `**` for any folders);
//! - `crdPaths`: CRD files or folders outside the workspace (absolute, or relative to it);
//! - `oldObjects`: `{"objects/new.yaml": "objects/old.yaml"}`: check the first file's objects
//!   as an update of the second's (a `# crd-studio: old=PATH` comment line in the file does
//!   the same, PATH relative to the file).

use std::path::{Path, PathBuf};

use crd_studio_engine::{FieldValidation, KubernetesVersion, Options};
use serde_json::Value;

/// The settings in force.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub kubernetes_version: KubernetesVersion,
    pub field_validation: FieldValidation,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub crd_paths: Vec<String>,
    pub old_objects: Vec<(String, String)>,
    /// What could not be read, for the log.
    pub problems: Vec<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            kubernetes_version: Options::default().kubernetes_version,
            field_validation: FieldValidation::Strict,
            include: vec!["**/*.yaml".into(), "**/*.yml".into(), "**/*.json".into()],
            exclude: vec![
                "**/node_modules/**".into(),
                "**/.git/**".into(),
                "**/target/**".into(),
            ],
            crd_paths: Vec::new(),
            old_objects: Vec::new(),
            problems: Vec::new(),
        }
    }
}

impl Settings {
    /// The engine's options.
    pub fn options(&self) -> Options {
        Options {
            kubernetes_version: self.kubernetes_version,
            field_validation: self.field_validation,
            ..Options::default()
        }
    }

    /// Applies the keys `value` has (a JSON object; anything else is ignored).
    pub fn merge(&mut self, value: &Value) {
        let Some(map) = value.as_object() else {
            return;
        };
        for (key, v) in map {
            match key.as_str() {
                "kubernetesVersion" => {
                    let text = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    match KubernetesVersion::parse(&text) {
                        Ok(k) => self.kubernetes_version = k,
                        Err(e) => self.problems.push(format!("kubernetesVersion: {e}")),
                    }
                }
                "fieldValidation" => match v.as_str().map(FieldValidation::parse) {
                    Some(Ok(f)) => self.field_validation = f,
                    Some(Err(e)) => self.problems.push(format!("fieldValidation: {e}")),
                    None => self.problems.push("fieldValidation: not a string".into()),
                },
                "include" => self.include = strings(v),
                "exclude" => self.exclude = strings(v),
                "crdPaths" => self.crd_paths = strings(v),
                "oldObjects" => {
                    self.old_objects = v
                        .as_object()
                        .map(|m| {
                            m.iter()
                                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                                .collect()
                        })
                        .unwrap_or_default()
                }
                _ => {}
            }
        }
    }

    /// Whether `relative` (a path under the root, `/`-separated) is one of the workspace's
    /// files.
    pub fn includes(&self, relative: &str) -> bool {
        self.include.iter().any(|g| glob_match(g, relative))
            && !self.exclude.iter().any(|g| glob_match(g, relative))
    }

    /// The old object named for `file` (settings first, then its modeline), as a path.
    pub fn old_object_of(&self, root: Option<&Path>, file: &Path, text: &str) -> Option<PathBuf> {
        if let Some(root) = root {
            if let Ok(rel) = file.strip_prefix(root) {
                let rel = rel.to_string_lossy().replace('\\', "/");
                if let Some((_, old)) = self.old_objects.iter().find(|(n, _)| *n == rel) {
                    return Some(root.join(old));
                }
            }
        }
        modeline_old(text).map(|old| file.parent().unwrap_or(Path::new("")).join(old))
    }
}

/// The `old=PATH` of a `# crd-studio: old=PATH` comment line.
fn modeline_old(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix('#')?.trim_start();
        let rest = rest.strip_prefix("crd-studio:")?.trim();
        rest.strip_prefix("old=").map(|p| p.trim().to_owned())
    })
}

fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether `path` (`/`-separated) matches `glob`: `*` and `?` within a segment, `**` for
/// any number of segments.
pub(crate) fn glob_match(glob: &str, path: &str) -> bool {
    let g: Vec<&str> = glob.split('/').filter(|s| !s.is_empty()).collect();
    let p: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    segments_match(&g, &p)
}

fn segments_match(g: &[&str], p: &[&str]) -> bool {
    match g.split_first() {
        None => p.is_empty(),
        Some((&"**", rest)) => {
            (0..=p.len()).any(|i| segments_match(rest, p.get(i..).unwrap_or(&[])))
        }
        Some((first, rest)) => match p.split_first() {
            Some((seg, prest)) => {
                let gc: Vec<char> = first.chars().collect();
                let sc: Vec<char> = seg.chars().collect();
                chars_match(&gc, &sc) && segments_match(rest, prest)
            }
            None => false,
        },
    }
}

fn chars_match(g: &[char], s: &[char]) -> bool {
    match g.split_first() {
        None => s.is_empty(),
        Some(('*', rest)) => (0..=s.len()).any(|i| chars_match(rest, s.get(i..).unwrap_or(&[]))),
        Some((c, rest)) => match s.split_first() {
            Some((sc, srest)) => (*c == '?' || c == sc) && chars_match(rest, srest),
            None => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        let cases = [
            ("**/*.yaml", "a.yaml", true),
            ("**/*.yaml", "x/y/a.yaml", true),
            ("**/*.yaml", "x/y/a.yml", false),
            ("crds/*.yaml", "crds/a.yaml", true),
            ("crds/*.yaml", "crds/x/a.yaml", false),
            ("**/node_modules/**", "web/node_modules/p/x.json", true),
            ("a?.json", "ab.json", true),
            ("**", "anything/at/all", true),
        ];
        for (g, p, want) in cases {
            assert_eq!(glob_match(g, p), want, "{g} {p}");
        }
    }

    #[test]
    fn merge_and_old_objects() {
        let mut s = Settings::default();
        s.merge(&serde_json::json!({
            "kubernetesVersion": "1.31", "fieldValidation": "Warn", "exclude": "vendor/**",
            "oldObjects": {"o/new.yaml": "o/old.yaml"}, "crdPaths": ["/x"]
        }));
        assert_eq!(s.options().field_validation, FieldValidation::Warn);
        assert!(s.includes("o/new.yaml") && !s.includes("vendor/a.yaml"));
        assert!(s.problems.is_empty());
        let root = Path::new("/w");
        assert_eq!(
            s.old_object_of(Some(root), Path::new("/w/o/new.yaml"), ""),
            Some(PathBuf::from("/w/o/old.yaml"))
        );
        assert_eq!(
            s.old_object_of(
                Some(root),
                Path::new("/w/p/a.yaml"),
                "# crd-studio: old=b.yaml\nx: 1"
            ),
            Some(PathBuf::from("/w/p/b.yaml"))
        );
        s.merge(&serde_json::json!({"kubernetesVersion": "9.9"}));
        assert_eq!(s.problems.len(), 1);
    }
}
