//! The versions of a CRD as clients meet them: the kube-aware priority order, the version
//! `kubectl` uses by default, served/storage facts, the deprecation warning every request to a
//! deprecated version gets, and what removing a version from `spec.versions` would mean.
//!
//! From the reference:
//!
//! * Priority: apimachinery `version.CompareKubeAwareVersionStrings`. Names matching
//!   `^v(\d+)(?:(alpha|beta)(\d+))?$` sort first, GA before beta before alpha, then by major,
//!   then by minor, largest first; other names sort after them, alphabetically (`foo1` before
//!   `foo10`). Discovery lists the served versions in that order and its first is the group's
//!   `preferredVersion`, the one `kubectl get <plural>` reads.
//! * Deprecation: a served `deprecated: true` version answers every request with a warning:
//!   `deprecationWarning` when set, else `defaultDeprecationWarning` of the custom-resource
//!   handler: `<group>/<version> <Kind> is deprecated`, followed by `; use <group>/<v> <Kind>`
//!   naming the highest-priority served, non-deprecated version that sorts above it, when there
//!   is one.
//! * Removal: the CRD update is validated with `status.storedVersions` kept from the stored CRD
//!   (`PrepareForUpdate` adds the new storage version), so a version still listed there cannot
//!   leave `spec.versions` (`ValidateCustomResourceDefinitionStoredVersions`), and exactly one
//!   version must stay the storage version. [`overview`] runs those checks on the CRD text with
//!   each version removed and returns the server's errors.
//!
//! Where `status.storedVersions` comes from: the CRD text's `status.storedVersions` when it has
//! one (a CRD copied from a cluster), else what the server records on create (the storage
//! version).

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::crd::apiext::internal::spec_versions_json;
use crate::crd::apiext::{from_v1_json, validate_stored_versions, InternalCrd};
use crate::documents::field_error::{BadValue, FieldError};
use crate::documents::path::FieldPath;

/// The stability of a kube-like version name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Stability {
    /// `v1alpha1`.
    Alpha,
    /// `v1beta1`.
    Beta,
    /// `v1`.
    Ga,
}

/// A version name parsed as apimachinery's `parseKubeVersion` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KubeVersion {
    /// The number after `v`.
    pub major: i64,
    /// GA, beta or alpha.
    pub stability: Stability,
    /// The number after `alpha`/`beta` (0 for GA).
    pub minor: i64,
}

/// `parseKubeVersion`: `None` for names that do not match `^v(\d+)(?:(alpha|beta)(\d+))?$`
/// (Go's `\d` is ASCII) or whose numbers overflow.
pub fn parse_kube_version(v: &str) -> Option<KubeVersion> {
    let rest = v.strip_prefix('v')?;
    let major_len = rest.bytes().take_while(u8::is_ascii_digit).count();
    if major_len == 0 {
        return None;
    }
    let major = crd_studio_gostd::strconv::atoi(rest.get(..major_len)?).ok()?;
    let tail = rest.get(major_len..)?;
    if tail.is_empty() {
        return Some(KubeVersion {
            major,
            stability: Stability::Ga,
            minor: 0,
        });
    }
    let (stability, digits) = if let Some(d) = tail.strip_prefix("alpha") {
        (Stability::Alpha, d)
    } else if let Some(d) = tail.strip_prefix("beta") {
        (Stability::Beta, d)
    } else {
        return None;
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(KubeVersion {
        major,
        stability,
        minor: crd_studio_gostd::strconv::atoi(digits).ok()?,
    })
}

/// `CompareKubeAwareVersionStrings(a, b)` as an ordering: `Greater` when `a` has the higher
/// priority.
pub fn compare_kube_aware(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    match (parse_kube_version(a), parse_kube_version(b)) {
        // Not kube-like: alphabetical, the smaller string first (higher priority).
        (None, None) => b.cmp(a),
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => x
            .stability
            .cmp(&y.stability)
            .then(x.major.cmp(&y.major))
            .then(x.minor.cmp(&y.minor)),
    }
}

/// Names sorted by priority, highest first (a stable sort: names Go compares equal, such as
/// `v1` and `v01`, keep their order).
pub fn sort_by_priority<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    let mut out: Vec<String> = names.iter().map(|n| n.as_ref().to_owned()).collect();
    crd_studio_gostd::sort::stable_by(&mut out, |a, b| compare_kube_aware(b, a));
    out
}

/// `defaultDeprecationWarning(version, spec)`.
pub fn default_deprecation_warning(crd: &InternalCrd, deprecated_version: &str) -> String {
    let spec = &crd.spec;
    let mut msg = format!(
        "{}/{} {} is deprecated",
        spec.group, deprecated_version, spec.names.kind
    );
    let better: Vec<&str> = spec
        .versions
        .iter()
        .filter(|v| {
            v.served
                && !v.deprecated
                && compare_kube_aware(deprecated_version, &v.name) == Ordering::Less
        })
        .map(|v| v.name.as_str())
        .collect();
    if let Some(best) = sort_by_priority(&better).first() {
        msg.push_str(&format!(
            "; use {}/{} {}",
            spec.group, best, spec.names.kind
        ));
    }
    msg
}

/// The warning a request to `version` gets (`None` unless it is deprecated): its
/// `deprecationWarning`, or the default text.
pub fn deprecation_warning(crd: &InternalCrd, version: &str) -> Option<String> {
    let v = crd.spec.versions.iter().find(|v| v.name == version)?;
    if !v.deprecated {
        return None;
    }
    Some(
        v.deprecation_warning
            .clone()
            .unwrap_or_else(|| default_deprecation_warning(crd, &v.name)),
    )
}

/// The preferred version: the highest-priority served version (discovery's
/// `preferredVersion`, what `kubectl get <plural>` reads when no version is named).
pub fn preferred_version(crd: &InternalCrd) -> Option<String> {
    let served: Vec<&str> = crd
        .spec
        .versions
        .iter()
        .filter(|v| v.served)
        .map(|v| v.name.as_str())
        .collect();
    sort_by_priority(&served).into_iter().next()
}

/// One server error, as the version view shows it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerError {
    /// The field path (`status.storedVersions[0]`).
    pub field: String,
    /// The detail.
    pub detail: String,
    /// The full `Error()` text.
    pub error: String,
}

impl ServerError {
    fn from_field_error(e: &FieldError) -> ServerError {
        ServerError {
            field: e.field.to_string(),
            detail: e.detail.clone(),
            error: e.error(),
        }
    }
}

/// What removing a version from `spec.versions` would mean.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Removal {
    /// Whether the server would accept the CRD update that removes it (as far as the
    /// version rules go).
    pub allowed: bool,
    /// The errors the CRD update would get, in the server's words.
    pub errors: Vec<ServerError>,
    /// What the removal means for clients and stored objects (studio notes, not server text).
    pub notes: Vec<String>,
}

/// The facts of one version.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionFacts {
    /// The version name.
    pub name: String,
    /// 0-based place in the priority order (0 = highest).
    pub priority: usize,
    /// Whether the name is kube-like (`v2`, `v1beta1`); other names sort last, alphabetically.
    pub kube_like: bool,
    /// Whether it is served.
    pub served: bool,
    /// Whether it is the storage version.
    pub storage: bool,
    /// Whether it is the preferred version (`kubectl`'s default).
    pub preferred: bool,
    /// Whether it is listed in `status.storedVersions` (objects may be stored in it).
    pub stored: bool,
    /// `deprecated: true`.
    pub deprecated: bool,
    /// The warning every request to it gets (`kubectl` prints `Warning: <text>`), when it is
    /// deprecated and served.
    pub warning: Option<String>,
    /// Whether [`VersionFacts::warning`] is the server's default text (no
    /// `deprecationWarning`).
    pub default_warning: bool,
    /// What removing it from `spec.versions` would mean.
    pub removal: Removal,
}

/// The versions of a CRD as clients meet them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionOverview {
    /// Every version name, highest priority first.
    pub order: Vec<String>,
    /// The preferred version (`None` when no version is served).
    pub preferred: Option<String>,
    /// The storage version (`None` when there is not exactly one).
    pub storage: Option<String>,
    /// `status.storedVersions` as the studio assumes it (see the module docs).
    pub stored_versions: Vec<String>,
    /// Whether [`VersionOverview::stored_versions`] comes from the CRD text's status.
    pub stored_versions_from_text: bool,
    /// One entry per version, in `spec.versions` order.
    pub versions: Vec<VersionFacts>,
}

/// The version overview of a CRD: `v1` is the CRD text as JSON (for the removal checks, which
/// re-read it without each version), `crd` its internal form.
pub fn overview(v1: &Json, crd: &InternalCrd) -> VersionOverview {
    let names: Vec<&str> = crd.spec.versions.iter().map(|v| v.name.as_str()).collect();
    let order = sort_by_priority(&names);
    let preferred = preferred_version(crd);
    let storages: Vec<&str> = crd
        .spec
        .versions
        .iter()
        .filter(|v| v.storage)
        .map(|v| v.name.as_str())
        .collect();
    let storage = match storages.as_slice() {
        [one] => Some((*one).to_owned()),
        _ => None,
    };
    let from_text = v1
        .get("status")
        .and_then(|s| s.get("storedVersions"))
        .and_then(Json::as_array)
        .is_some_and(|a| !a.is_empty());
    let stored_versions = crd.status.stored_versions.clone();
    let versions = crd
        .spec
        .versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let warning = if v.served {
                deprecation_warning(crd, &v.name)
            } else {
                None
            };
            VersionFacts {
                name: v.name.clone(),
                priority: order.iter().position(|n| n == &v.name).unwrap_or(i),
                kube_like: parse_kube_version(&v.name).is_some(),
                served: v.served,
                storage: v.storage,
                preferred: preferred.as_deref() == Some(v.name.as_str()),
                stored: stored_versions.contains(&v.name),
                deprecated: v.deprecated,
                default_warning: warning.is_some() && v.deprecation_warning.is_none(),
                warning,
                removal: removal(v1, crd, i),
            }
        })
        .collect();
    VersionOverview {
        order,
        preferred,
        storage,
        stored_versions,
        stored_versions_from_text: from_text,
        versions,
    }
}

/// The CRD text without `spec.versions[index]`.
fn without_version(v1: &Json, index: usize) -> Json {
    // Copied without the removed version (rather than copied whole, then the version
    // dropped): the copy of a large CRD's only schema was a tenth of its compile's peak
    // memory.
    let without = |versions: &Vec<Json>| {
        Json::Array(
            versions
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != index)
                .map(|(_, v)| v.clone())
                .collect(),
        )
    };
    let spec_without = |spec: &serde_json::Map<String, Json>| {
        Json::Object(
            spec.iter()
                .map(|(k, v)| match v {
                    Json::Array(versions) if k == "versions" => (k.clone(), without(versions)),
                    _ => (k.clone(), v.clone()),
                })
                .collect(),
        )
    };
    match v1 {
        Json::Object(root) => Json::Object(
            root.iter()
                .map(|(k, v)| match v {
                    Json::Object(spec) if k == "spec" => (k.clone(), spec_without(spec)),
                    _ => (k.clone(), v.clone()),
                })
                .collect(),
        ),
        _ => v1.clone(),
    }
}

/// What removing `spec.versions[index]` means: the version checks of the CRD update (the
/// storage-version count, `status.storedVersions` kept from the stored CRD plus the new
/// storage version), and notes.
fn removal(v1: &Json, crd: &InternalCrd, index: usize) -> Removal {
    let Some(version) = crd.spec.versions.get(index) else {
        return Removal::default();
    };
    let name = &version.name;
    let (new, _) = from_v1_json(&without_version(v1, index));
    let mut errors = Vec::new();
    // PrepareForUpdate: the stored CRD's status, plus the new storage version.
    let mut stored = crd.status.stored_versions.clone();
    if let Some(s) = new.spec.versions.iter().find(|v| v.storage) {
        if !stored.contains(&s.name) {
            stored.push(s.name.clone());
        }
    }
    // The storage-version count, only when removing the version breaks it.
    let storage_count = new.spec.versions.iter().filter(|v| v.storage).count();
    let old_count = crd.spec.versions.iter().filter(|v| v.storage).count();
    if storage_count != 1 && old_count == 1 {
        errors.push(FieldError::invalid(
            FieldPath::new("spec").child("versions"),
            BadValue::Raw(spec_versions_json(&new.spec)),
            "must have exactly one version marked as storage version",
        ));
    }
    let before: Vec<String> = validate_stored_versions(
        &stored,
        &crd.spec.versions,
        &FieldPath::new("status").child("storedVersions"),
    )
    .iter()
    .map(FieldError::error)
    .collect();
    for e in validate_stored_versions(
        &stored,
        &new.spec.versions,
        &FieldPath::new("status").child("storedVersions"),
    ) {
        if !before.contains(&e.error()) {
            errors.push(e);
        }
    }

    let group = &crd.spec.group;
    let mut notes = Vec::new();
    if version.storage {
        notes.push(format!(
            "{name} is the storage version: mark another version `storage: true` first; new and updated objects are then stored in it"
        ));
    }
    if crd.status.stored_versions.contains(name) {
        notes.push(format!(
            "{name} is in status.storedVersions: objects may still be stored as {name}. Migrate them (read and write back every object, or run the storage version migrator) so they are stored in the storage version, then remove {name} from status.storedVersions (kubectl patch customresourcedefinitions {} --subresource=status --type=merge -p '{{\"status\":{{\"storedVersions\":[...]}}}}') before removing it from spec.versions",
            crd.metadata.name
        ));
    } else {
        notes.push(format!(
            "{name} is not in status.storedVersions: no object is stored as {name}"
        ));
    }
    if version.served {
        notes.push(format!(
            "requests to {group}/{name} fail with NotFound once it is removed (or set `served: false` first to find the clients that still use it)"
        ));
        if let Some(next) = preferred_version(&new) {
            if preferred_version(crd).as_deref() == Some(name.as_str()) {
                notes.push(format!(
                    "{name} is the preferred version: kubectl would read {group}/{next} by default"
                ));
            }
        }
    }
    Removal {
        allowed: errors.is_empty(),
        errors: errors.iter().map(ServerError::from_field_error).collect(),
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn without_version_drops_only_that_version() {
        let v1 = json!({
            "kind": "CustomResourceDefinition",
            "spec": {"group": "g", "versions": [{"name": "a"}, {"name": "b"}, {"name": "c"}]},
        });
        let cases = [
            (0, json!([{"name": "b"}, {"name": "c"}])),
            (1, json!([{"name": "a"}, {"name": "c"}])),
            (2, json!([{"name": "a"}, {"name": "b"}])),
            (3, json!([{"name": "a"}, {"name": "b"}, {"name": "c"}])),
        ];
        for (index, versions) in cases {
            let mut want = v1.clone();
            want["spec"]["versions"] = versions;
            assert_eq!(without_version(&v1, index), want, "{index}");
        }
        // Anything else is copied as it is.
        for other in [
            json!(null),
            json!({"spec": 1}),
            json!({"spec": {"versions": {}}}),
        ] {
            assert_eq!(without_version(&other, 0), other);
        }
    }

    #[test]
    fn priority_order_is_the_documented_one() {
        let names = [
            "foo10",
            "v11alpha2",
            "v1",
            "v3beta1",
            "v10",
            "v12alpha1",
            "foo1",
            "v2",
            "v10beta3",
            "v11beta2",
        ];
        assert_eq!(
            sort_by_priority(&names),
            [
                "v10",
                "v2",
                "v1",
                "v11beta2",
                "v10beta3",
                "v3beta1",
                "v12alpha1",
                "v11alpha2",
                "foo1",
                "foo10"
            ]
        );
        assert_eq!(sort_by_priority(&["v1beta1", "v1"]), ["v1", "v1beta1"]);
    }

    #[test]
    fn kube_like_names() {
        let p = |s: &str| parse_kube_version(s);
        assert_eq!(
            p("v2beta3"),
            Some(KubeVersion {
                major: 2,
                stability: Stability::Beta,
                minor: 3
            })
        );
        // A suffix without its number, capitals, other words and overflows are not kube-like.
        for s in [
            "v1beta",
            "v1Beta1",
            "v1gamma1",
            "v",
            "1",
            "vv1",
            "v1.0",
            "v99999999999999999999",
            "v1alpha99999999999999999999",
            "v١",
        ] {
            assert_eq!(p(s), None, "{s}");
        }
        // Leading zeros parse (Atoi), so v01 and v1 compare equal.
        assert_eq!(compare_kube_aware("v01", "v1"), Ordering::Equal);
        assert_eq!(compare_kube_aware("v1beta", "v1alpha1"), Ordering::Less);
        assert_eq!(compare_kube_aware("a", "b"), Ordering::Greater);
    }

    fn crd(versions: Json, status: Option<Json>) -> (Json, InternalCrd) {
        let mut v1 = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "crontabs.example.com"},
            "spec": {
                "group": "example.com",
                "scope": "Namespaced",
                "names": {"plural": "crontabs", "kind": "CronTab"},
                "versions": versions,
            }
        });
        if let Some(s) = status {
            v1["status"] = s;
        }
        let (c, problems) = from_v1_json(&v1);
        assert!(problems.is_empty(), "{problems:?}");
        (v1, c)
    }

    fn v(name: &str, served: bool, storage: bool) -> Json {
        json!({"name": name, "served": served, "storage": storage,
               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}})
    }

    #[test]
    fn deprecation_warnings_as_the_handler_writes_them() {
        let mut a = v("v1alpha1", true, false);
        a["deprecated"] = json!(true);
        a["deprecationWarning"] = json!("example.com/v1alpha1 CronTab is deprecated; see http://example.com/v1alpha1-v1 for instructions to migrate to example.com/v1 CronTab");
        let mut b = v("v1beta1", true, false);
        b["deprecated"] = json!(true);
        let (j, c) = crd(json!([a, b, v("v1", true, true)]), None);
        let o = overview(&j, &c);
        assert_eq!(o.order, ["v1", "v1beta1", "v1alpha1"]);
        assert_eq!(o.preferred.as_deref(), Some("v1"));
        assert_eq!(
            o.versions[1].warning.as_deref(),
            Some("example.com/v1beta1 CronTab is deprecated; use example.com/v1 CronTab")
        );
        assert!(o.versions[1].default_warning);
        assert!(!o.versions[0].default_warning);
        assert!(o.versions[0]
            .warning
            .as_deref()
            .unwrap()
            .starts_with("example.com/v1alpha1 CronTab is deprecated; see"));
        assert_eq!(o.versions[2].warning, None);
    }

    #[test]
    fn default_warning_names_only_better_served_undeprecated_versions() {
        // v2 is deprecated, v1 sorts below it, v3 is not served: no suggestion.
        let mut d = v("v2", true, true);
        d["deprecated"] = json!(true);
        let (_, c) = crd(
            json!([v("v1", true, false), d, v("v3", false, false)]),
            None,
        );
        assert_eq!(
            default_deprecation_warning(&c, "v2"),
            "example.com/v2 CronTab is deprecated"
        );
        // The highest-priority candidate is named.
        let mut d = v("v1alpha1", true, false);
        d["deprecated"] = json!(true);
        let (_, c) = crd(
            json!([d, v("v1beta1", true, false), v("v1", true, true)]),
            None,
        );
        assert_eq!(
            default_deprecation_warning(&c, "v1alpha1"),
            "example.com/v1alpha1 CronTab is deprecated; use example.com/v1 CronTab"
        );
    }

    #[test]
    fn removing_a_stored_version_is_refused() {
        let (j, c) = crd(
            json!([v("v1beta1", true, false), v("v1", true, true)]),
            Some(json!({"storedVersions": ["v1beta1", "v1"]})),
        );
        let o = overview(&j, &c);
        assert!(o.stored_versions_from_text);
        let beta = &o.versions[0];
        assert!(beta.stored);
        assert!(!beta.removal.allowed);
        assert_eq!(beta.removal.errors.len(), 1);
        assert_eq!(
            beta.removal.errors[0].error,
            "status.storedVersions[0]: Invalid value: \"v1beta1\": missing from spec.versions; v1beta1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1beta1 and removes v1beta1 from status.storedVersions"
        );
        // Removing the storage version breaks the storage count and the stored versions.
        let ga = &o.versions[1];
        let fields: Vec<&str> = ga.removal.errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["spec.versions", "status.storedVersions[1]"]);
        assert!(ga.removal.errors[0]
            .detail
            .contains("must have exactly one version marked as storage version"));
    }

    #[test]
    fn removing_a_never_stored_version_is_allowed() {
        let (j, c) = crd(
            json!([v("v1beta1", true, false), v("v1", true, true)]),
            None,
        );
        let o = overview(&j, &c);
        assert!(!o.stored_versions_from_text);
        assert_eq!(o.stored_versions, ["v1"]);
        assert!(o.versions[0].removal.allowed, "{:?}", o.versions[0].removal);
        assert!(o.versions[0]
            .removal
            .notes
            .iter()
            .any(|n| n.contains("NotFound")));
        assert_eq!(o.storage.as_deref(), Some("v1"));
        assert_eq!(o.versions[1].priority, 0);
        assert!(o.versions[1].preferred);
    }

    #[test]
    fn no_served_version_no_preferred() {
        let (j, c) = crd(json!([v("v1", false, true)]), None);
        assert_eq!(overview(&j, &c).preferred, None);
    }
}
