//! Finding and reading a repository's files: files as named, directories walked recursively
//! (`.yaml`, `.yml` and `.json` files; hidden entries such as `.git` left out), globs (`*`,
//! `?`, `**` for any folders) and `-` for a stream on standard input. Each file is read once,
//! as kubectl reads it (`kubectl_read`), and its documents once (`DocumentTexts::read_heads`:
//! only the fields that match a document to its CRD).

use std::io::Read;
use std::path::Path;
use std::sync::OnceLock;

use crd_studio_engine::{DocumentTexts, Finding, SourceId};

use super::RepoCheck;
use crate::Error;

/// Which tree a file came from.
#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord)]
pub(crate) enum Role {
    /// The paths checked: CRDs and objects.
    Main,
    /// `--crds`: CRDs only.
    Crds,
    /// `--old`: previous objects.
    Old,
    /// `--old-crds`: previous CRDs.
    OldCrds,
}

/// One file read.
pub(crate) struct File {
    /// The name it is shown under (as found; `<stdin>` for standard input).
    pub name: String,
    /// Its text as kubectl reads it.
    pub text: String,
    /// Its documents.
    pub docs: DocumentTexts,
    /// Which tree it is in.
    pub role: Role,
    /// Where kubectl reads differently from the bytes (located warnings).
    pub encoding: Vec<Finding>,
}

/// Every file of a run, sorted by role then name (no name twice in a role).
pub(crate) struct Tree {
    /// The files.
    pub files: Vec<File>,
}

/// Standard input, read once, whichever mode reads it.
static STDIN: OnceLock<Vec<u8>> = OnceLock::new();

/// Standard input's bytes (read now if not yet), at most one byte past the request limit.
pub(crate) fn stdin_bytes() -> &'static [u8] {
    STDIN.get_or_init(|| {
        let limit = crd_studio_engine::MAX_REQUEST_BYTES as u64 + 1;
        let mut buf = Vec::new();
        let _ = std::io::stdin().take(limit).read_to_end(&mut buf);
        buf
    })
}

/// Standard input when it was already read (to decide the mode), for today's check.
pub(crate) fn preloaded_stdin() -> Option<Vec<u8>> {
    STDIN.get().cloned()
}

/// Standard input as text (for a first look at its documents).
pub(crate) fn stdin_text() -> String {
    String::from_utf8_lossy(stdin_bytes()).into_owned()
}

/// Whether a path is a glob pattern (and not a file of that name).
pub(crate) fn is_glob(path: &str) -> bool {
    path.contains(['*', '?']) && !Path::new(path).exists()
}

/// Reads every file the command line names, in a stable order.
pub(crate) fn read_trees(check: &RepoCheck) -> Result<Tree, Error> {
    let mut names: Vec<(Role, String)> = Vec::new();
    for (role, paths) in [
        (Role::Main, &check.paths),
        (Role::Crds, &check.crds),
        (Role::Old, &check.old),
        (Role::OldCrds, &check.old_crds),
    ] {
        for p in paths {
            for name in expand(p)? {
                names.push((role, name));
            }
        }
    }
    names.sort();
    names.dedup();
    // A file given both to check and as `--crds` is checked.
    let main: std::collections::BTreeSet<String> = names
        .iter()
        .filter(|(r, _)| *r == Role::Main)
        .map(|(_, n)| n.clone())
        .collect();
    names.retain(|(r, n)| *r != Role::Crds || !main.contains(n));
    let mut stdin_used = false;
    let mut files = Vec::with_capacity(names.len());
    for (role, name) in names {
        if name == "-" && stdin_used {
            return Err(Error::Usage(
                "`-` (standard input) may be given only once".into(),
            ));
        }
        let input = crate::read_input(&name, &mut stdin_used)?;
        let encoding = input.encoding_findings(SourceId::Object(0));
        let docs = DocumentTexts::read_heads(&input.text, SourceId::Object(0));
        files.push(File {
            name: input.name,
            text: input.text,
            docs,
            role,
            encoding,
        });
    }
    Ok(Tree { files })
}

/// The files a path names: itself, the manifests under a directory, a glob's matches (sorted).
fn expand(path: &str) -> Result<Vec<String>, Error> {
    expand_keeping(path, &is_manifest)
}

/// The files a path names: itself, the files under a directory whose name `keep` accepts, a
/// glob's matches (sorted).
pub(crate) fn expand_keeping(
    path: &str,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Vec<String>, Error> {
    if path == "-" {
        return Ok(vec![path.to_owned()]);
    }
    let p = Path::new(path);
    if p.is_dir() {
        let mut out = Vec::new();
        walk(p, &mut out, keep);
        out.sort();
        return Ok(out);
    }
    if is_glob(path) {
        let (base, pattern) = split_glob(path);
        let mut out = Vec::new();
        let base_dir = if base.is_empty() { "." } else { base.as_str() };
        walk(Path::new(base_dir), &mut out, &|_| true);
        let mut matched: Vec<String> = out
            .into_iter()
            .filter_map(|f| {
                let rel = if base.is_empty() {
                    f.strip_prefix("./").unwrap_or(&f).to_owned()
                } else {
                    f.strip_prefix(&format!("{}/", base.trim_end_matches('/')))
                        .unwrap_or(&f)
                        .to_owned()
                };
                glob_match(&pattern, &rel).then_some(if base.is_empty() { rel } else { f })
            })
            .collect();
        matched.sort();
        if matched.is_empty() {
            return Err(Error::Io(format!("{path}: no file matches")));
        }
        return Ok(matched);
    }
    Ok(vec![path.to_owned()])
}

/// Whether a file name is a manifest's (`.yaml`, `.yml`, `.json`).
fn is_manifest(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".yaml", ".yml", ".json"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// Every file under `dir` whose name `keep` accepts, hidden entries left out.
fn walk(dir: &Path, out: &mut Vec<String>, keep: &dyn Fn(&str) -> bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = e.path();
        if path.is_dir() {
            walk(&path, out, keep);
        } else if keep(&name) {
            out.push(path.to_string_lossy().into_owned());
        }
    }
}

/// A glob's folder without wildcards, and the rest of the pattern (relative to it).
fn split_glob(path: &str) -> (String, String) {
    let parts: Vec<&str> = path.split('/').collect();
    let literal = parts.iter().take_while(|c| !c.contains(['*', '?'])).count();
    let base = parts.get(..literal).unwrap_or_default().join("/");
    let rest = parts.get(literal..).unwrap_or_default().join("/");
    (base, rest)
}

/// Matches a relative path against a glob: `*` and `?` within one path component, `**` for
/// any number of components.
pub(crate) fn glob_match(pattern: &str, path: &str) -> bool {
    let pat: Vec<&str> = pattern.split('/').collect();
    let comps: Vec<&str> = path.split('/').collect();
    match_components(&pat, &comps)
}

fn match_components(pat: &[&str], comps: &[&str]) -> bool {
    match pat.split_first() {
        None => comps.is_empty(),
        Some((&"**", rest)) => (0..=comps.len())
            .any(|skip| match_components(rest, comps.get(skip..).unwrap_or_default())),
        Some((p, rest)) => match comps.split_first() {
            Some((c, more)) => {
                match_name(p.as_bytes(), c.as_bytes()) && match_components(rest, more)
            }
            None => false,
        },
    }
}

fn match_name(p: &[u8], s: &[u8]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some((b'*', rest)) => {
            (0..=s.len()).any(|i| match_name(rest, s.get(i..).unwrap_or_default()))
        }
        Some((b'?', rest)) => s
            .split_first()
            .is_some_and(|(_, more)| match_name(rest, more)),
        Some((c, rest)) => s
            .split_first()
            .is_some_and(|(d, more)| c == d && match_name(rest, more)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        let cases = [
            ("*.yaml", "a.yaml", true),
            ("*.yaml", "d/a.yaml", false),
            ("**/*.yaml", "a.yaml", true),
            ("**/*.yaml", "d/e/a.yaml", true),
            ("config/**/crd-?.yaml", "config/x/crd-1.yaml", true),
            ("config/**/crd-?.yaml", "config/crd-12.yaml", false),
            ("*", "a.json", true),
        ];
        for (p, s, want) in cases {
            assert_eq!(glob_match(p, s), want, "{p} {s}");
        }
    }

    #[test]
    fn glob_bases() {
        assert_eq!(
            split_glob("config/crd/*.yaml"),
            ("config/crd".into(), "*.yaml".into())
        );
        assert_eq!(split_glob("**/*.yaml"), (String::new(), "**/*.yaml".into()));
    }
}
