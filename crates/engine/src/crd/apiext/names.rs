//! Name checks of `k8s.io/apimachinery/pkg/util/validation` (DNS labels and subdomains,
//! qualified names, label values, ports) and the `ObjectMeta` validation of
//! `k8s.io/apimachinery/pkg/api/validation`, with the server's messages.

use crate::documents::field_error::{BadValue, FieldError};
use crate::documents::path::FieldPath;

use super::internal::ObjectMeta;

/// `MaxLenError` of `util/validation` ("characters").
pub fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// `RegexError`.
pub fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{fmt}')");
    }
    let mut s = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push_str(&format!("'{e}', "));
    }
    s.push_str(&format!("regex used for validation is '{fmt}')"));
    s
}

/// `IsDNS1123Label`.
pub fn is_dns1123_label(value: &str) -> Vec<String> {
    crate::object::objectmeta::validation::is_dns1123_label(value.as_bytes())
}

/// `IsDNS1123Subdomain`.
pub fn is_dns1123_subdomain(value: &str) -> Vec<String> {
    crate::object::objectmeta::validation::is_dns1123_subdomain(value.as_bytes())
}

/// `IsDNS1035Label`.
pub fn is_dns1035_label(value: &str) -> Vec<String> {
    crate::object::objectmeta::validation::is_dns1035_label(value.as_bytes())
}

/// `IsQualifiedName` (`content.IsLabelKey`).
pub fn is_qualified_name(value: &str) -> Vec<String> {
    crate::object::objectmeta::validation::is_qualified_name(value)
}

/// `IsValidLabelValue`.
pub fn is_valid_label_value(value: &str) -> Vec<String> {
    crate::object::objectmeta::validation::is_valid_label_value(value)
}

/// `IsValidPortNum`.
pub fn is_valid_port_num(port: i64) -> Vec<String> {
    if (1..=65535).contains(&port) {
        Vec::new()
    } else {
        vec!["must be between 1 and 65535, inclusive".to_owned()]
    }
}

/// `maskTrailingDash` (Go replaces the last two characters with `a`).
fn mask_trailing_dash(name: &str) -> String {
    if name.len() > 1 && name.ends_with('-') {
        format!("{}a", name.get(..name.len() - 2).unwrap_or(""))
    } else {
        name.to_owned()
    }
}

/// `NameIsDNSSubdomain`.
pub fn name_is_dns_subdomain(name: &str, prefix: bool) -> Vec<String> {
    if prefix {
        is_dns1123_subdomain(&mask_trailing_dash(name))
    } else {
        is_dns1123_subdomain(name)
    }
}

/// `ValidateImmutableField` for strings.
pub fn validate_immutable_str(new: &str, old: &str, path: &FieldPath) -> Vec<FieldError> {
    if new == old {
        Vec::new()
    } else {
        vec![FieldError::invalid(
            path.clone(),
            BadValue::Str(new.to_owned()),
            "field is immutable",
        )]
    }
}

fn validate_labels(meta: &ObjectMeta, path: &FieldPath, errs: &mut Vec<FieldError>) {
    for (k, v) in &meta.labels {
        for m in is_qualified_name(k) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str(k.clone()),
                m,
            ));
        }
        for m in is_valid_label_value(v) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str(v.clone()),
                m,
            ));
        }
    }
}

fn validate_annotations(meta: &ObjectMeta, path: &FieldPath, errs: &mut Vec<FieldError>) {
    let mut total = 0usize;
    for (k, v) in &meta.annotations {
        for m in is_qualified_name(&k.to_lowercase()) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str(k.clone()),
                m,
            ));
        }
        total += k.len() + v.len();
    }
    if total > 256 * 1024 {
        errs.push(FieldError::too_long(path.clone(), 256 * 1024));
    }
}

fn validate_owner_references(meta: &ObjectMeta, path: &FieldPath, errs: &mut Vec<FieldError>) {
    let mut first_controller = String::new();
    for (i, r) in meta.owner_references.iter().enumerate() {
        let p = path.index(i);
        // schema.ParseGroupVersion: "v1", "group/version"; more slashes are an error.
        let slashes = r.api_version.matches('/').count();
        let version = r.api_version.rsplit('/').next().unwrap_or("");
        if r.api_version.is_empty() {
            errs.push(FieldError::required(
                p.child("apiVersion"),
                "must not be empty",
            ));
        } else if slashes > 1 || version.is_empty() {
            errs.push(FieldError::invalid(
                p.child("apiVersion"),
                BadValue::Str(r.api_version.clone()),
                "must be <group>/<version> or <version>",
            ));
        }
        if r.kind.is_empty() {
            errs.push(FieldError::required(p.child("kind"), "must not be empty"));
        }
        if r.name.is_empty() {
            errs.push(FieldError::required(p.child("name"), "must not be empty"));
        }
        if r.uid.is_empty() {
            errs.push(FieldError::required(p.child("uid"), "must not be empty"));
        }
        if r.api_version == "v1" && r.kind == "Event" {
            errs.push(FieldError::invalid(
                p.clone(),
                BadValue::Raw(owner_reference_json(r)),
                "/v1, Kind=Event is disallowed from being an owner",
            ));
        }
        if r.controller == Some(true) {
            let cur = format!("{}/{}", r.kind, r.name);
            if !first_controller.is_empty() {
                errs.push(FieldError::invalid(
                    path.clone(),
                    BadValue::Raw(owner_references_json(&meta.owner_references)),
                    format!("Only one reference can have Controller set to true. Found \"true\" in references for {first_controller} and {cur}"),
                ));
            } else {
                first_controller = cur;
            }
        }
    }
}

/// `metav1.OwnerReference` as JSON (its JSON tags; `controller` and `blockOwnerDeletion` are
/// left out when unset).
fn owner_reference_json(r: &super::internal::OwnerReference) -> String {
    let mut o = gostd::json::Obj::new()
        .str("apiVersion", &r.api_version)
        .str("kind", &r.kind)
        .str("name", &r.name)
        .str("uid", &r.uid);
    if let Some(c) = r.controller {
        o = o.bool("controller", c);
    }
    if let Some(b) = r.block_owner_deletion {
        o = o.bool("blockOwnerDeletion", b);
    }
    o.finish()
}

fn owner_references_json(refs: &[super::internal::OwnerReference]) -> String {
    gostd::json::list(refs.iter().map(owner_reference_json))
}

fn validate_finalizers(meta: &ObjectMeta, path: &FieldPath, errs: &mut Vec<FieldError>) {
    let mut orphan = false;
    let mut delete = false;
    for f in &meta.finalizers {
        for m in is_qualified_name(f) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str(f.clone()),
                m,
            ));
        }
        orphan |= f == "orphan";
        delete |= f == "foregroundDeletion";
    }
    if orphan && delete {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Raw(gostd::json::strings(&meta.finalizers)),
            "finalizer orphan and foregroundDeletion cannot be both set",
        ));
    }
}

/// `ValidateObjectMeta` on create for a cluster-scoped object, with the name check `name_fn`
/// (`(name, prefix) -> messages`).
pub fn validate_object_meta(
    meta: &ObjectMeta,
    name_fn: &dyn Fn(&str, bool) -> Vec<String>,
    path: &FieldPath,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if !meta.generate_name.is_empty() {
        for m in name_fn(&meta.generate_name, true) {
            errs.push(FieldError::invalid(
                path.child("generateName"),
                BadValue::Str(meta.generate_name.clone()),
                m,
            ));
        }
    }
    if meta.name.is_empty() {
        errs.push(FieldError::required(
            path.child("name"),
            "name or generateName is required",
        ));
    } else {
        for m in name_fn(&meta.name, false) {
            errs.push(FieldError::invalid(
                path.child("name"),
                BadValue::Str(meta.name.clone()),
                m,
            ));
        }
    }
    errs.extend(common(meta, path));
    errs
}

fn common(meta: &ObjectMeta, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if !meta.namespace.is_empty() {
        errs.push(FieldError::forbidden(
            path.child("namespace"),
            "not allowed on this type",
        ));
    }
    if meta.generation < 0 {
        errs.push(FieldError::invalid(
            path.child("generation"),
            BadValue::Int(meta.generation),
            "must be greater than or equal to 0",
        ));
    }
    validate_labels(meta, &path.child("labels"), &mut errs);
    validate_annotations(meta, &path.child("annotations"), &mut errs);
    validate_owner_references(meta, &path.child("ownerReferences"), &mut errs);
    validate_finalizers(meta, &path.child("finalizers"), &mut errs);
    errs
}

/// `ValidateObjectMetaUpdate`.
pub fn validate_object_meta_update(
    new: &ObjectMeta,
    old: &ObjectMeta,
    path: &FieldPath,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if old.deletion_timestamp.is_some() {
        let extra: Vec<&String> = new
            .finalizers
            .iter()
            .filter(|f| !old.finalizers.contains(f))
            .collect();
        if !extra.is_empty() {
            let mut names: Vec<String> = extra.into_iter().cloned().collect();
            names.sort();
            names.dedup();
            let quoted: Vec<String> = names.iter().map(|n| gostd::strconv::quote(n)).collect();
            errs.push(FieldError::forbidden(
                path.child("finalizers"),
                format!(
                    "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
                    quoted.join(", ")
                ),
            ));
        }
    }
    if new.resource_version.is_empty() {
        errs.push(FieldError::invalid(
            path.child("resourceVersion"),
            BadValue::Str(String::new()),
            "must be specified for an update",
        ));
    }
    if new.generation < 0 {
        errs.push(FieldError::invalid(
            path.child("generation"),
            BadValue::Int(new.generation),
            "must be greater than or equal to 0",
        ));
    }
    if new.generation < old.generation {
        errs.push(FieldError::invalid(
            path.child("generation"),
            BadValue::Int(new.generation),
            "must not be decremented",
        ));
    }
    errs.extend(validate_immutable_str(
        &new.name,
        &old.name,
        &path.child("name"),
    ));
    errs.extend(validate_immutable_str(
        &new.namespace,
        &old.namespace,
        &path.child("namespace"),
    ));
    errs.extend(validate_immutable_str(
        &new.uid,
        &old.uid,
        &path.child("uid"),
    ));
    if new.creation_timestamp != old.creation_timestamp {
        errs.push(FieldError::invalid(
            path.child("creationTimestamp"),
            new.creation_timestamp
                .as_ref()
                .map(|t| BadValue::Str(t.clone()))
                .unwrap_or(BadValue::Null),
            "field is immutable",
        ));
    }
    if new.deletion_timestamp != old.deletion_timestamp {
        errs.push(FieldError::invalid(
            path.child("deletionTimestamp"),
            new.deletion_timestamp
                .as_ref()
                .map(|t| BadValue::Str(t.clone()))
                .unwrap_or(BadValue::Null),
            "field is immutable",
        ));
    }
    if new.deletion_grace_period_seconds != old.deletion_grace_period_seconds {
        errs.push(FieldError::invalid(
            path.child("deletionGracePeriodSeconds"),
            new.deletion_grace_period_seconds
                .map(BadValue::Int)
                .unwrap_or(BadValue::Null),
            "field is immutable",
        ));
    }
    validate_labels(new, &path.child("labels"), &mut errs);
    validate_annotations(new, &path.child("annotations"), &mut errs);
    validate_owner_references(new, &path.child("ownerReferences"), &mut errs);
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_names() {
        assert!(is_dns1035_label("my-name").is_empty());
        assert_eq!(is_dns1035_label("1abc").len(), 1);
        assert!(is_dns1035_label("")
            .first()
            .is_some_and(|m| m.starts_with("a DNS-1035 label")));
        assert!(is_dns1123_subdomain("group.com").is_empty());
        assert_eq!(
            is_dns1123_subdomain("Group.com"),
            vec!["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_owned()]
        );
        assert_eq!(
            is_dns1123_label("a.b"),
            vec!["must not contain dots".to_owned()]
        );
        assert_eq!(is_dns1035_label(&"a".repeat(64)), vec![max_len_error(63)]);
    }

    #[test]
    fn qualified_names_and_label_values() {
        assert!(is_qualified_name("example.com/my-key").is_empty());
        assert_eq!(
            is_qualified_name("/x"),
            vec!["prefix part must be non-empty".to_owned()]
        );
        assert_eq!(is_qualified_name("a/b/c").len(), 1);
        assert!(is_valid_label_value("").is_empty());
        assert_eq!(is_valid_label_value("-x").len(), 1);
    }

    #[test]
    fn object_meta() {
        let meta = ObjectMeta {
            name: "Bad".into(),
            namespace: "ns".into(),
            ..ObjectMeta::default()
        };
        let errs = validate_object_meta(
            &meta,
            &|n, p| name_is_dns_subdomain(n, p),
            &FieldPath::new("metadata"),
        );
        let fields: Vec<String> = errs.iter().map(|e| e.field.to_string()).collect();
        assert_eq!(fields, vec!["metadata.name", "metadata.namespace"]);
        assert_eq!(mask_trailing_dash("abc-"), "aba");
    }
}
