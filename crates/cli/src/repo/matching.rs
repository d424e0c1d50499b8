//! Who checks what: each CRD document found, each other document matched to its CRD by the
//! group of its `apiVersion` and its `kind` (the version is the engine's to judge: an
//! unserved version gets the server's own message), built-in Kubernetes kinds set aside,
//! previous objects matched by group, kind, namespace and name, previous CRDs by name.

use std::collections::{BTreeMap, HashMap};

use crd_studio_engine::{DocumentTexts, SourceId};
use serde_json::Value;

use super::discover::{Role, Tree};
use super::RepoCheck;

/// The API groups the Kubernetes API server serves itself (kube-apiserver's built-in groups,
/// the legacy core group `""` first) and the client-side configuration kinds' groups (never
/// sent to a server): documents of these groups are not custom objects.
const BUILT_IN_GROUPS: &[&str] = &[
    "",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "apiregistration.k8s.io",
    "apps",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "coordination.k8s.io",
    "discovery.k8s.io",
    "events.k8s.io",
    "extensions",
    "flowcontrol.apiserver.k8s.io",
    "internal.apiserver.k8s.io",
    "networking.k8s.io",
    "node.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "resource.k8s.io",
    "scheduling.k8s.io",
    "storage.k8s.io",
    "storagemigration.k8s.io",
    // Client-side configuration: kustomize's files.
    "kustomize.config.k8s.io",
    "config.kubernetes.io",
];

/// A CRD document.
#[derive(Clone, Debug)]
pub(crate) struct CrdDoc {
    /// Its file (index in the tree).
    pub file: usize,
    /// Its document in the file.
    pub document: usize,
    /// `metadata.name`.
    pub name: String,
    /// `spec.group`.
    pub group: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// The previous revision (`--old-crds`): file and document.
    pub old: Option<(usize, usize)>,
}

/// A document that is not a CRD nor of a built-in kind.
#[derive(Clone, Debug)]
pub(crate) struct ObjectDoc {
    /// Its file (index in the tree).
    pub file: usize,
    /// Its document in the file.
    pub document: usize,
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `metadata.namespace` (empty when not set).
    pub namespace: String,
    /// `metadata.name` (empty when not set).
    pub name: String,
    /// Its CRD (index in [`Plan::crds`]), or none found.
    pub crd: Option<usize>,
    /// The previous object (`--old`): file and document.
    pub old: Option<(usize, usize)>,
}

impl ObjectDoc {
    /// How it is named in reports: `example.com/v1 Widget ns/name`.
    pub(crate) fn title(&self) -> String {
        let name = match (self.namespace.as_str(), self.name.as_str()) {
            (_, "") => "(no name)".to_owned(),
            ("", n) => n.to_owned(),
            (ns, n) => format!("{ns}/{n}"),
        };
        format!("{} {} {name}", self.api_version, self.kind)
    }
}

/// What the run does.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    /// Every CRD found in the checked paths and `--crds`.
    pub crds: Vec<CrdDoc>,
    /// Every custom object of the checked paths, with its CRD when there is one.
    pub objects: Vec<ObjectDoc>,
    /// Documents of built-in kinds left out, by `apiVersion kind`.
    pub built_in: BTreeMap<String, usize>,
    /// Documents with no `apiVersion` or `kind` (not Kubernetes objects) left out.
    pub not_objects: usize,
    /// Each file's documents handed to the engine (their findings come from it).
    pub handed: Vec<Vec<usize>>,
    /// CRDs of a group and kind an earlier CRD already has (index, the earlier one's index):
    /// objects go to the earlier one.
    pub duplicates: Vec<(usize, usize)>,
}

/// `apiVersion`'s group (`""` for the core group's `v1`).
pub(crate) fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

fn text_at<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    let mut at = v;
    for key in path {
        at = at.get(key).unwrap_or(&Value::Null);
    }
    at.as_str().unwrap_or("")
}

/// Whether a document is a CustomResourceDefinition.
pub(crate) fn is_crd(v: &Value) -> bool {
    text_at(v, &["kind"]) == "CustomResourceDefinition"
        && group_of(text_at(v, &["apiVersion"])) == "apiextensions.k8s.io"
}

/// Whether a text holds several documents, a CRD among them (a bundle, not one CRD).
pub(crate) fn is_bundle(text: &str) -> bool {
    // Parsing a 3 MB CRD only to find it holds one document cost a third of a single-CRD
    // check: a text that cannot hold a second document is not read here.
    if !may_hold_several_documents(text) {
        return false;
    }
    let docs = DocumentTexts::read_heads(text, SourceId::Object(0));
    docs.values.len() > 1 && docs.values.iter().any(|(_, v)| is_crd(v))
}

/// Whether `text` may hold more than one YAML document, by a look at its lines only.
///
/// In libyaml (and go-yaml v2) only the first document of a stream may start without a
/// `---`, and the scanner takes `---` as a document marker only at column 0 (after the
/// stream's start, its byte-order mark, or a line break: `\n`, `\r`, NEL, LS, PS). So a text
/// without such a `---`, or whose only one has nothing but blank, comment and directive
/// lines before it, holds one document at most. Anything else (a `---` inside a block scalar
/// too) answers `true`, and the caller parses.
fn may_hold_several_documents(text: &str) -> bool {
    let is_break = |c: char| matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}');
    let body = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut markers = body.match_indices("---").filter(|(at, _)| {
        *at == 0
            || body
                .get(..*at)
                .and_then(|b| b.chars().next_back())
                .is_some_and(is_break)
    });
    let Some((first, _)) = markers.next() else {
        return false;
    };
    if markers.next().is_some() {
        return true;
    }
    // One marker: a second document only if content comes before it.
    body.get(..first)
        .unwrap_or(body)
        .split(is_break)
        .any(|line| {
            let trimmed = line.trim_start_matches([' ', '\t']);
            !(trimmed.is_empty() || trimmed.starts_with('#') || line.starts_with('%'))
        })
}

/// Matches every document of the tree.
pub(crate) fn plan(tree: &Tree, _check: &RepoCheck) -> Plan {
    let mut plan = Plan {
        handed: vec![Vec::new(); tree.files.len()],
        ..Plan::default()
    };
    let mut old_crds: HashMap<String, (usize, usize)> = HashMap::new();
    let mut old_objects: HashMap<(String, String, String, String), (usize, usize)> = HashMap::new();
    for (f, file) in tree.files.iter().enumerate() {
        for (doc, v) in &file.docs.values {
            match file.role {
                Role::OldCrds if is_crd(v) => {
                    old_crds
                        .entry(text_at(v, &["metadata", "name"]).to_owned())
                        .or_insert((f, *doc));
                }
                Role::Old if !is_crd(v) => {
                    old_objects.entry(key(v)).or_insert((f, *doc));
                }
                Role::Main | Role::Crds if is_crd(v) => plan.crds.push(CrdDoc {
                    file: f,
                    document: *doc,
                    name: text_at(v, &["metadata", "name"]).to_owned(),
                    group: text_at(v, &["spec", "group"]).to_owned(),
                    kind: text_at(v, &["spec", "names", "kind"]).to_owned(),
                    old: None,
                }),
                _ => {}
            }
        }
    }
    let mut by_kind: HashMap<(String, String), usize> = HashMap::new();
    for (i, crd) in plan.crds.iter_mut().enumerate() {
        crd.old = old_crds.get(&crd.name).copied();
        // The first CRD of a group and kind wins (files in order).
        let first = *by_kind
            .entry((crd.group.clone(), crd.kind.clone()))
            .or_insert(i);
        if first != i {
            plan.duplicates.push((i, first));
        }
        if let Some(h) = plan.handed.get_mut(crd.file) {
            h.push(crd.document);
        }
        if let Some((f, d)) = crd.old {
            if let Some(h) = plan.handed.get_mut(f) {
                h.push(d);
            }
        }
    }
    for (f, file) in tree.files.iter().enumerate() {
        if file.role != Role::Main {
            continue;
        }
        for (doc, v) in &file.docs.values {
            if is_crd(v) {
                continue;
            }
            let api_version = text_at(v, &["apiVersion"]);
            let kind = text_at(v, &["kind"]);
            if api_version.is_empty() || kind.is_empty() {
                plan.not_objects += 1;
                continue;
            }
            let group = group_of(api_version);
            let crd = by_kind.get(&(group.to_owned(), kind.to_owned())).copied();
            if crd.is_none() && BUILT_IN_GROUPS.contains(&group) {
                *plan
                    .built_in
                    .entry(format!("{api_version} {kind}"))
                    .or_insert(0) += 1;
                continue;
            }
            let old = old_objects.get(&key(v)).copied();
            if crd.is_some() {
                if let Some(h) = plan.handed.get_mut(f) {
                    h.push(*doc);
                }
                if let Some((of, od)) = old {
                    if let Some(h) = plan.handed.get_mut(of) {
                        h.push(od);
                    }
                }
            }
            plan.objects.push(ObjectDoc {
                file: f,
                document: *doc,
                api_version: api_version.to_owned(),
                kind: kind.to_owned(),
                namespace: text_at(v, &["metadata", "namespace"]).to_owned(),
                name: text_at(v, &["metadata", "name"]).to_owned(),
                crd,
                old,
            });
        }
    }
    plan
}

/// An object's identity for `--old`: group, kind, namespace, name.
fn key(v: &Value) -> (String, String, String, String) {
    (
        group_of(text_at(v, &["apiVersion"])).to_owned(),
        text_at(v, &["kind"]).to_owned(),
        text_at(v, &["metadata", "namespace"]).to_owned(),
        text_at(v, &["metadata", "name"]).to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups() {
        for (api_version, group) in [
            ("v1", ""),
            ("apps/v1", "apps"),
            ("example.com/v1", "example.com"),
        ] {
            assert_eq!(group_of(api_version), group);
        }
    }

    #[test]
    fn bundles() {
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n";
        assert!(!is_bundle(crd));
        assert!(is_bundle(&format!("{crd}---\n{crd}")));
        assert!(is_bundle(&format!("{crd}---\napiVersion: v1\nkind: X\n")));
        assert!(!is_bundle(
            "apiVersion: v1\nkind: X\n---\napiVersion: v1\nkind: Y\n"
        ));
        // Line breaks libyaml knows, a byte-order mark, comments and directives first.
        for sep in ["\r", "\r\n"] {
            assert!(is_bundle(&format!("{crd}---\n{crd}").replace('\n', sep)));
        }
        assert!(is_bundle(&format!("\u{FEFF}{crd}---\n{crd}")));
        assert!(is_bundle(&format!("---\n{crd}---\n{crd}")));
        assert!(!is_bundle(&format!("# c\n%YAML 1.1\n---\n{crd}")));
        assert!(!is_bundle(&format!("{crd}metadata:\n  x: a---b\n")));
    }

    #[test]
    fn several_documents_by_lines() {
        for (text, several) in [
            ("a: 1\n", false),
            ("---\na: 1\n", false),
            ("\u{FEFF}---\na: 1\n", false),
            ("# c\n  # d\n\n%YAML 1.1\n---\na: 1\n", false),
            ("a: 1\n---\nb: 2\n", true),
            ("---\na: 1\n---\n", true),
            ("a: |\n  x\n---\n", true),
            ("a: 1\n--- b\n", true),
            ("a: ---\n", false),
            ("a: 1\r---\n", true),
            ("a: 1\u{85}---\n", true),
            ("a: 1\u{2028}---\n", true),
            ("a: 1\u{2029}---\n", true),
        ] {
            assert_eq!(may_hold_several_documents(text), several, "{text:?}");
        }
    }
}
