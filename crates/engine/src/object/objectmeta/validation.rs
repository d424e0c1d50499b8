//! Validation of ObjectMeta and embedded resources: apimachinery
//! `pkg/api/validation/objectmeta.go` (`ValidateObjectMeta`, `ValidateObjectMetaUpdate` —
//! what `ValidateObjectMetaDeclaratively` returns, its declarative rules being alpha and so
//! not enforced), the name and label checks of `pkg/util/validation` and
//! `pkg/api/validate/content`, apiextensions-apiserver `pkg/apiserver/schema/objectmeta`
//! `Validate` (embedded resources), and the custom-resource validator's `ValidateTypeMeta`
//! and root ObjectMeta check (`pkg/registry/customresource/validator.go`).
//!
//! Go walks maps (labels, annotations, object fields) in random order; here they go in key
//! order.

use serde_json::Value as Json;

use super::{bad_value, decode_object_meta, parse_group_version, ObjectMeta, OwnerReference};
use crate::documents::field_error::{BadValue, FieldError};
use crate::documents::path::{FieldPath, Segment};
use crate::schema::Structural;
use crd_studio_gostd::strconv::quote as go_quote;

// The name and label checks are apimachinery's, kept once in the CEL crate (its format library
// calls them too).
pub use crd_studio_cel::k8s_names::{
    is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, is_qualified_name,
    is_valid_label_value, mask_trailing_dash,
};

/// `content.IsPathSegmentPrefix`.
pub fn is_path_segment_prefix(name: &str) -> Vec<String> {
    ["/", "%"]
        .iter()
        .filter(|c| name.contains(*c))
        .map(|c| format!("may not contain '{c}'"))
        .collect()
}

/// `content.IsPathSegmentName`.
pub fn is_path_segment_name(name: &str) -> Vec<String> {
    if name == "." || name == ".." {
        return vec![format!("may not be '{name}'")];
    }
    is_path_segment_prefix(name)
}

/// `IsValidPortNum`.
pub fn is_valid_port_num(port: i64) -> Vec<String> {
    if (1..=65535).contains(&port) {
        Vec::new()
    } else {
        vec!["must be between 1 and 65535, inclusive".to_owned()]
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

/// A `ValidateNameFunc`: how `metadata.name` (and `generateName`, as a prefix) are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// `NameIsDNSSubdomain`: custom resources at the root.
    DnsSubdomain,
    /// `validatePathSegment`: embedded resources.
    PathSegment,
}

impl NameRule {
    /// The messages for `name` (`prefix`: it is a `generateName`).
    pub fn check(self, name: &str, prefix: bool) -> Vec<String> {
        match self {
            NameRule::DnsSubdomain if prefix => is_dns1123_subdomain(&mask_trailing_dash(name)),
            NameRule::DnsSubdomain => is_dns1123_subdomain(name),
            NameRule::PathSegment if prefix => is_path_segment_prefix(name),
            NameRule::PathSegment => is_path_segment_name(name),
        }
    }
}

// ------------------------------------------------------------------------------------------
// ObjectMeta
// ------------------------------------------------------------------------------------------

fn child(p: &FieldPath, name: &str) -> FieldPath {
    let mut p = p.clone();
    p.0.push(Segment::Field(name.to_owned()));
    p
}

/// `ValidateFieldManager`.
fn validate_field_manager(manager: &str, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if manager.len() > 128 {
        errs.push(FieldError::too_long(path.clone(), 128));
    }
    for (i, c) in manager.char_indices() {
        // `unicode.IsPrint` is `strconv.IsPrint`.
        if !crd_studio_gostd::strconv::is_print(c) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str(manager.to_owned()),
                format!("invalid character U+{:04X} (at position {i})", c as u32),
            ));
        }
    }
    errs
}

/// `json.Marshal` of a string list.
fn json_strings(list: &[String]) -> String {
    let items: Vec<String> = list
        .iter()
        .map(|s| crd_studio_gostd::json::string(s))
        .collect();
    format!("[{}]", items.join(","))
}

/// `ValidateOwnerReferences`.
fn validate_owner_references(refs: &[OwnerReference], path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut first_controller: Option<String> = None;
    for (i, r) in refs.iter().enumerate() {
        let p = path.index(i);
        let gv = parse_group_version(&r.api_version);
        if r.api_version.is_empty() {
            errs.push(FieldError::required(
                child(&p, "apiVersion"),
                "must not be empty",
            ));
        } else if gv.as_ref().map_or(true, |(_, v)| v.is_empty()) {
            errs.push(FieldError::invalid(
                child(&p, "apiVersion"),
                BadValue::Str(r.api_version.clone()),
                "must be <group>/<version> or <version>",
            ));
        }
        for (name, value) in [("kind", &r.kind), ("name", &r.name), ("uid", &r.uid)] {
            if value.is_empty() {
                errs.push(FieldError::required(child(&p, name), "must not be empty"));
            }
        }
        let (group, version) = gv.unwrap_or_default();
        if group.is_empty() && version == "v1" && r.kind == "Event" {
            errs.push(FieldError::invalid(
                p.clone(),
                BadValue::Raw(r.go_json()),
                format!(
                    "{group}/{version}, Kind={} is disallowed from being an owner",
                    r.kind
                ),
            ));
        }
        if r.controller == Some(true) {
            let current = format!("{}/{}", r.kind, r.name);
            match &first_controller {
                Some(first) => {
                    let all: Vec<String> = refs.iter().map(OwnerReference::go_json).collect();
                    errs.push(FieldError::invalid(
                        path.clone(),
                        BadValue::Raw(format!("[{}]", all.join(","))),
                        format!("Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"),
                    ));
                }
                None => first_controller = Some(current),
            }
        }
    }
    errs
}

/// The checks common to create and update: labels, annotations, owner references, managed
/// fields.
fn validate_labels(meta: &ObjectMeta, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let lp = child(path, "labels");
    for (k, v) in &meta.labels {
        for m in is_qualified_name(k) {
            errs.push(FieldError::invalid(lp.clone(), BadValue::Str(k.clone()), m));
        }
        for m in is_valid_label_value(v) {
            errs.push(FieldError::invalid(lp.clone(), BadValue::Str(v.clone()), m));
        }
    }
    errs
}

fn validate_annotations(meta: &ObjectMeta, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let ap = child(path, "annotations");
    let mut total: usize = 0;
    for (k, v) in &meta.annotations {
        let lower: String = k.chars().map(go_to_lower).collect();
        for m in is_qualified_name(&lower) {
            errs.push(FieldError::invalid(ap.clone(), BadValue::Str(k.clone()), m));
        }
        total = total.saturating_add(k.len()).saturating_add(v.len());
    }
    if total > 256 * 1024 {
        errs.push(FieldError::too_long(ap, 256 * 1024));
    }
    errs
}

/// Go's `unicode.ToLower` of one rune.
fn go_to_lower(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

fn validate_managed_fields(meta: &ObjectMeta, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, e) in meta.managed_fields.iter().enumerate() {
        let p = child(path, "managedFields").index(i);
        match e.operation.as_str() {
            "" => errs.push(FieldError::required(
                child(&p, "operation"),
                "must not be empty",
            )),
            "Apply" | "Update" => {}
            other => errs.push(FieldError::not_supported(
                child(&p, "operation"),
                BadValue::Raw(crd_studio_gostd::json::string(other)),
                &["Apply", "Update"],
            )),
        }
        if !e.fields_type.is_empty() && e.fields_type != "FieldsV1" {
            errs.push(FieldError::invalid(
                child(&p, "fieldsType"),
                BadValue::Str(e.fields_type.clone()),
                "must be `FieldsV1`",
            ));
        }
        errs.extend(validate_field_manager(&e.manager, &child(&p, "manager")));
        if e.subresource.len() > 256 {
            errs.push(FieldError::too_long(child(&p, "subresource"), 256));
        }
    }
    errs
}

/// `ValidateObjectMeta(meta, requiresNamespace, nameFn, path)` (create).
pub fn validate_object_meta(
    meta: &ObjectMeta,
    requires_namespace: bool,
    name_rule: NameRule,
    path: &FieldPath,
) -> Vec<FieldError> {
    validate_object_meta_with(
        meta,
        requires_namespace,
        &|name, prefix| name_rule.check(name, prefix),
        path,
    )
}

/// `ValidateObjectMeta` with any `ValidateNameFunc` (`(name, prefix) -> messages`): the CRD
/// strategy's checks that the name is `spec.names.plural + "." + spec.group`, for instance.
pub fn validate_object_meta_with(
    meta: &ObjectMeta,
    requires_namespace: bool,
    name_fn: &dyn Fn(&str, bool) -> Vec<String>,
    path: &FieldPath,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if !meta.generate_name.is_empty() {
        for m in name_fn(&meta.generate_name, true) {
            errs.push(FieldError::invalid(
                child(path, "generateName"),
                BadValue::Str(meta.generate_name.clone()),
                m,
            ));
        }
    }
    if meta.name.is_empty() {
        errs.push(FieldError::required(
            child(path, "name"),
            "name or generateName is required",
        ));
    } else {
        for m in name_fn(&meta.name, false) {
            errs.push(FieldError::invalid(
                child(path, "name"),
                BadValue::Str(meta.name.clone()),
                m,
            ));
        }
    }
    if requires_namespace {
        if meta.namespace.is_empty() {
            errs.push(FieldError::required(child(path, "namespace"), ""));
        } else {
            for m in is_dns1123_label(&meta.namespace) {
                errs.push(FieldError::invalid(
                    child(path, "namespace"),
                    BadValue::Str(meta.namespace.clone()),
                    m,
                ));
            }
        }
    } else if !meta.namespace.is_empty() {
        errs.push(FieldError::forbidden(
            child(path, "namespace"),
            "not allowed on this type",
        ));
    }
    if meta.generation < 0 {
        errs.push(FieldError::invalid(
            child(path, "generation"),
            BadValue::Int(meta.generation),
            "must be greater than or equal to 0",
        ));
    }
    errs.extend(validate_labels(meta, path));
    errs.extend(validate_annotations(meta, path));
    errs.extend(validate_owner_references(
        &meta.owner_references,
        &child(path, "ownerReferences"),
    ));
    // ValidateFinalizers
    let fp = child(path, "finalizers");
    for f in &meta.finalizers {
        for m in is_qualified_name(f) {
            errs.push(FieldError::invalid(fp.clone(), BadValue::Str(f.clone()), m));
        }
    }
    let has = |name: &str| meta.finalizers.iter().any(|f| f == name);
    if has("orphan") && has("foregroundDeletion") {
        errs.push(FieldError::invalid(
            fp,
            BadValue::Raw(json_strings(&meta.finalizers)),
            "finalizer orphan and foregroundDeletion cannot be both set",
        ));
    }
    errs.extend(validate_managed_fields(meta, path));
    errs
}

fn time_go_json(t: &Option<super::Time>) -> String {
    match t {
        Some(t) if !t.is_zero() => format!("\"{}\"", t.rfc3339()),
        _ => "null".to_owned(),
    }
}

/// `ValidateObjectMetaUpdate(new, old, path)`.
pub fn validate_object_meta_update(
    new: &ObjectMeta,
    old: &ObjectMeta,
    path: &FieldPath,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if old.deletion_timestamp.is_some() {
        let mut extra: Vec<&String> = new
            .finalizers
            .iter()
            .filter(|f| !old.finalizers.contains(f))
            .collect();
        crd_studio_gostd::sort::stable(&mut extra);
        extra.dedup();
        if !extra.is_empty() {
            let quoted: Vec<String> = extra.iter().map(|f| go_quote(f)).collect();
            errs.push(FieldError::forbidden(
                child(path, "finalizers"),
                format!(
                    "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
                    quoted.join(", ")
                ),
            ));
        }
    }
    if new.resource_version.is_empty() {
        errs.push(FieldError::invalid(
            child(path, "resourceVersion"),
            BadValue::Str(String::new()),
            "must be specified for an update",
        ));
    }
    if new.generation < 0 {
        errs.push(FieldError::invalid(
            child(path, "generation"),
            BadValue::Int(new.generation),
            "must be greater than or equal to 0",
        ));
    }
    if new.generation < old.generation {
        errs.push(FieldError::invalid(
            child(path, "generation"),
            BadValue::Int(new.generation),
            "must not be decremented",
        ));
    }
    let immutable = |errs: &mut Vec<FieldError>, name: &str, changed: bool, value: BadValue| {
        if changed {
            errs.push(FieldError::invalid(
                child(path, name),
                value,
                "field is immutable",
            ));
        }
    };
    immutable(
        &mut errs,
        "name",
        new.name != old.name,
        BadValue::Str(new.name.clone()),
    );
    immutable(
        &mut errs,
        "namespace",
        new.namespace != old.namespace,
        BadValue::Str(new.namespace.clone()),
    );
    immutable(
        &mut errs,
        "uid",
        new.uid != old.uid,
        BadValue::Raw(crd_studio_gostd::json::string(&new.uid)),
    );
    immutable(
        &mut errs,
        "creationTimestamp",
        new.creation_timestamp != old.creation_timestamp,
        BadValue::Raw(time_go_json(&Some(new.creation_timestamp))),
    );
    immutable(
        &mut errs,
        "deletionTimestamp",
        new.deletion_timestamp != old.deletion_timestamp,
        BadValue::Raw(time_go_json(&new.deletion_timestamp)),
    );
    immutable(
        &mut errs,
        "deletionGracePeriodSeconds",
        new.deletion_grace_period_seconds != old.deletion_grace_period_seconds,
        BadValue::Raw(
            new.deletion_grace_period_seconds
                .map_or_else(|| "null".to_owned(), |s| s.to_string()),
        ),
    );
    errs.extend(validate_labels(new, path));
    errs.extend(validate_annotations(new, path));
    errs.extend(validate_owner_references(
        &new.owner_references,
        &child(path, "ownerReferences"),
    ));
    errs.extend(validate_managed_fields(new, path));
    errs
}

// ------------------------------------------------------------------------------------------
// Custom resources
// ------------------------------------------------------------------------------------------

/// The root metadata of a custom resource as `customResourceValidator.getObjectMeta` reads
/// it: absent or null is empty; not an object, or not decodable, is an error on `metadata`.
pub fn root_object_meta(obj: &Json) -> Result<ObjectMeta, FieldError> {
    let raw = obj.get("metadata").unwrap_or(&Json::Null);
    match raw {
        Json::Null => Ok(ObjectMeta::default()),
        Json::Object(_) => decode_object_meta(raw, false)
            .map(|(m, _)| m)
            .map_err(|e| FieldError::invalid(FieldPath::new("metadata"), bad_value(raw), e)),
        other => Err(FieldError::invalid(
            FieldPath::new("metadata"),
            bad_value(other),
            format!(
                "expected map[string]interface{{}}, got {}",
                crd_studio_gostd::fmt::type_name(other)
            ),
        )),
    }
}

/// The custom-resource validator's check of the root metadata on create:
/// `ValidateObjectMeta(meta, namespaceScoped, NameIsDNSSubdomain, "metadata")`.
pub fn validate_root_object_meta(obj: &Json, namespace_scoped: bool) -> Vec<FieldError> {
    match root_object_meta(obj) {
        Ok(meta) => validate_object_meta(
            &meta,
            namespace_scoped,
            NameRule::DnsSubdomain,
            &FieldPath::new("metadata"),
        ),
        Err(e) => vec![e],
    }
}

/// `ValidateObjectMetaAccessor(meta, namespaceScoped, nameFn, "metadata")` of the root
/// metadata with the given name rule (`rest.ValidateCreate` runs it with
/// `validatePathSegment` once the strategy found nothing).
pub fn validate_root_object_meta_with(
    obj: &Json,
    namespace_scoped: bool,
    name_rule: NameRule,
) -> Vec<FieldError> {
    match root_object_meta(obj) {
        Ok(meta) => validate_object_meta(
            &meta,
            namespace_scoped,
            name_rule,
            &FieldPath::new("metadata"),
        ),
        // The strategy reports metadata it cannot read.
        Err(_) => Vec::new(),
    }
}

/// `validateCommonFields(obj, old, strategy)` (apiserver `pkg/registry/rest/update.go`,
/// run by `rest.ValidateUpdate` before the strategy's `ValidateUpdate`):
/// `ValidateObjectMetaAccessor(new, namespaceScoped, validatePathSegment, "metadata")` then
/// `ValidateObjectMetaAccessorUpdate(new, old, "metadata")`. The strategy runs
/// `ValidateObjectMetaUpdate` again, so the server returns those errors twice.
pub fn validate_update_common_fields(
    obj: &Json,
    old: &Json,
    namespace_scoped: bool,
) -> Vec<FieldError> {
    match (root_object_meta(obj), root_object_meta(old)) {
        (Ok(new), Ok(old)) => {
            let path = FieldPath::new("metadata");
            let mut errs =
                validate_object_meta(&new, namespace_scoped, NameRule::PathSegment, &path);
            errs.extend(validate_object_meta_update(&new, &old, &path));
            errs
        }
        // The strategy reports metadata it cannot read.
        _ => Vec::new(),
    }
}

/// The same on update: `ValidateObjectMetaUpdate(new, old, "metadata")`.
pub fn validate_root_object_meta_update(obj: &Json, old: &Json) -> Vec<FieldError> {
    match (root_object_meta(obj), root_object_meta(old)) {
        (Ok(new), Ok(old)) => validate_object_meta_update(&new, &old, &FieldPath::new("metadata")),
        (Err(e), _) | (_, Err(e)) => vec![e],
    }
}

/// The custom-resource strategy's warnings on create and update
/// (`generateWarningsFromObj`): for each finalizer added (all of them on create, sorted),
/// `metadata.finalizers: "<name>": <message>` for a malformed name and a nudge towards
/// domain-qualified names for those without `/` that are not Kubernetes' own.
pub fn finalizer_warnings(new: &ObjectMeta, old: Option<&ObjectMeta>) -> Vec<String> {
    let mut added: Vec<&String> = new
        .finalizers
        .iter()
        .filter(|f| old.is_none_or(|o| !o.finalizers.contains(f)))
        .collect();
    crd_studio_gostd::sort::stable(&mut added);
    added.dedup();
    let mut warnings = Vec::new();
    for f in added {
        let q = go_quote(f);
        for m in is_qualified_name(f) {
            warnings.push(format!("metadata.finalizers: {q}: {m}"));
        }
        let standard = matches!(f.as_str(), "orphan" | "foregroundDeletion" | "kubernetes");
        if !f.contains('/') && !standard {
            if f.contains('.') {
                warnings.push(format!("metadata.finalizers: {q}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"));
            } else {
                warnings.push(format!("metadata.finalizers: {q}: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"));
            }
        }
    }
    warnings
}

/// `ValidateTypeMeta`: `kind` must be the CRD's kind and `apiVersion` `group/version`.
pub fn validate_type_meta(obj: &Json, group: &str, version: &str, kind: &str) -> Vec<FieldError> {
    let get = |k: &str| obj.get(k).and_then(Json::as_str).unwrap_or("").to_owned();
    let mut errs = Vec::new();
    let got_kind = get("kind");
    if got_kind != kind {
        errs.push(FieldError::invalid(
            FieldPath::new("kind"),
            BadValue::Str(got_kind),
            format!("must be {kind}"),
        ));
    }
    let want = format!("{group}/{version}");
    let got_version = get("apiVersion");
    if got_version != want {
        errs.push(FieldError::invalid(
            FieldPath::new("apiVersion"),
            BadValue::Str(got_version),
            format!("must be {want}"),
        ));
    }
    errs
}

/// `validateEmbeddedResource`: `apiVersion` and `kind` required and well formed, metadata
/// valid (its name checked as a path segment, `fakename` when empty).
fn validate_embedded_resource(
    pth: &FieldPath,
    x: &serde_json::Map<String, Json>,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if !x.contains_key("apiVersion") {
        errs.push(FieldError::required(child(pth, "apiVersion"), ""));
    }
    if !x.contains_key("kind") {
        errs.push(FieldError::required(child(pth, "kind"), ""));
    }
    if let Some(v) = x.get("apiVersion") {
        let p = child(pth, "apiVersion");
        match v {
            Json::String(s) if s.is_empty() => errs.push(FieldError::invalid(
                p,
                BadValue::Str(String::new()),
                "must not be empty",
            )),
            Json::String(s) => {
                if let Err(e) = parse_group_version(s) {
                    errs.push(FieldError::invalid(p, BadValue::Str(s.clone()), e));
                }
            }
            other => errs.push(FieldError::invalid(p, bad_value(other), "must be a string")),
        }
    }
    if let Some(v) = x.get("kind") {
        let p = child(pth, "kind");
        match v {
            Json::String(s) if s.is_empty() => errs.push(FieldError::invalid(
                p,
                BadValue::Str(String::new()),
                "must not be empty",
            )),
            Json::String(s) => {
                let lower: String = s.chars().map(go_to_lower).collect();
                let msgs = is_dns1035_label(&lower);
                if !msgs.is_empty() {
                    errs.push(FieldError::invalid(
                        p,
                        BadValue::Str(s.clone()),
                        format!(
                            "may have mixed case, but should otherwise match: {}",
                            msgs.join(",")
                        ),
                    ));
                }
            }
            other => errs.push(FieldError::invalid(p, bad_value(other), "must be a string")),
        }
    }
    if let Some(v) = x.get("metadata") {
        let p = child(pth, "metadata");
        match decode_object_meta(v, false) {
            Err(e) => errs.push(FieldError::invalid(p, bad_value(v), e)),
            Ok((mut meta, _)) => {
                if meta.name.is_empty() {
                    meta.name = "fakename".to_owned();
                }
                let namespaced = !meta.namespace.is_empty();
                errs.extend(validate_object_meta(
                    &meta,
                    namespaced,
                    NameRule::PathSegment,
                    &p,
                ));
            }
        }
    }
    errs
}

/// `objectmeta.Validate(path, obj, s, isResourceRoot)`: the checks of every
/// `x-kubernetes-embedded-resource` object (and of the root with `is_resource_root`). The
/// custom-resource strategy calls it with the nil path and `is_resource_root = false`.
pub fn validate_embedded(
    path: &FieldPath,
    obj: &Json,
    s: Option<&Structural>,
    is_resource_root: bool,
) -> Vec<FieldError> {
    let empty = Structural::default();
    let root_schema = match (s, is_resource_root) {
        (None, true) => Some(&empty),
        (s, _) => s,
    };
    let mut errs = Vec::new();
    let mut stack: Vec<(&Json, &Structural, FieldPath, bool)> = Vec::new();
    if let Some(rs) = root_schema {
        let embedded = is_resource_root || rs.extensions.x_embedded_resource;
        stack.push((obj, rs, path.clone(), embedded));
    }
    while let Some((x, s, pth, embedded)) = stack.pop() {
        match x {
            Json::Object(map) => {
                if embedded {
                    errs.extend(validate_embedded_resource(&pth, map));
                }
                let mut children = Vec::new();
                for (k, v) in map {
                    if let Some(prop) = s.properties.get(k).map(Box::as_ref) {
                        let embedded = prop.extensions.x_embedded_resource;
                        children.push((v, prop, child(&pth, k), embedded));
                    } else if let Some(ap) = s.additional_properties_schema() {
                        let embedded = ap.extensions.x_embedded_resource;
                        children.push((v, ap, pth.key(k), embedded));
                    }
                }
                stack.extend(children.into_iter().rev());
            }
            Json::Array(items) => {
                if let Some(item_schema) = s.items.as_deref() {
                    let embedded = item_schema.extensions.x_embedded_resource;
                    let children: Vec<_> = items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (v, item_schema, pth.index(i), embedded))
                        .collect();
                    stack.extend(children.into_iter().rev());
                }
            }
            _ => {}
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::JsonSchemaProps;
    use serde_json::json;

    fn errors(list: Vec<FieldError>) -> Vec<String> {
        list.iter().map(FieldError::error).collect()
    }

    #[test]
    fn name_checks_word_like_the_server() {
        assert_eq!(
            is_dns1123_subdomain("Foo"),
            ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]
        );
        assert_eq!(is_dns1123_label("a.b"), ["must not contain dots"]);
        assert!(NameRule::DnsSubdomain.check("abc-", true).is_empty());
        assert_eq!(
            NameRule::PathSegment.check("..", false),
            ["may not be '..'"]
        );
        assert_eq!(is_qualified_name("/a"), ["prefix part must be non-empty"]);
        assert_eq!(is_qualified_name("a/").len(), 2);
        assert_eq!(
            is_valid_label_value("-x"),
            ["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]
        );
    }

    #[test]
    fn object_meta_on_create() {
        let (meta, _) = decode_object_meta(
            &json!({"generateName": "x_", "namespace": "ns", "generation": -1,
                "labels": {"ok": "-bad"}, "finalizers": ["orphan", "foregroundDeletion"],
                "ownerReferences": [{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1", "controller": true},
                                    {"apiVersion": "a/b/c", "kind": "K", "name": "n", "uid": "2", "controller": true}],
                "managedFields": [{"operation": "Patch", "manager": "m\u{7}"}]}),
            false,
        )
        .unwrap();
        let got = errors(validate_object_meta(
            &meta,
            false,
            NameRule::DnsSubdomain,
            &FieldPath::new("metadata"),
        ));
        assert_eq!(got.len(), 11, "{got:#?}");
        assert_eq!(
            got[1],
            "metadata.name: Required value: name or generateName is required"
        );
        assert_eq!(
            got[2],
            "metadata.namespace: Forbidden: not allowed on this type"
        );
        assert_eq!(
            got[3],
            "metadata.generation: Invalid value: -1: must be greater than or equal to 0"
        );
        assert_eq!(got[5], "metadata.ownerReferences[0]: Invalid value: {\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"e\",\"uid\":\"1\",\"controller\":true}: /v1, Kind=Event is disallowed from being an owner");
        assert_eq!(got[6], "metadata.ownerReferences[1].apiVersion: Invalid value: \"a/b/c\": must be <group>/<version> or <version>");
        assert!(got[7].starts_with("metadata.ownerReferences: Invalid value: [{"));
        assert!(got[7].ends_with("Found \"true\" in references for Event/e and K/n"));
        assert_eq!(got[8], "metadata.finalizers: Invalid value: [\"orphan\",\"foregroundDeletion\"]: finalizer orphan and foregroundDeletion cannot be both set");
        assert_eq!(got[9], "metadata.managedFields[0].operation: Unsupported value: \"Patch\": supported values: \"Apply\", \"Update\"");
        assert_eq!(got[10], "metadata.managedFields[0].manager: Invalid value: \"m\\a\": invalid character U+0007 (at position 1)");
    }

    #[test]
    fn object_meta_on_update() {
        let (old, _) = decode_object_meta(
            &json!({"name": "a", "generation": 3, "deletionTimestamp": "2020-01-01T00:00:00Z", "uid": "u"}),
            false,
        )
        .unwrap();
        let (new, _) = decode_object_meta(
            &json!({"name": "b", "generation": 2, "finalizers": ["x/y"], "uid": "v",
                "deletionTimestamp": "2020-01-01T00:00:00Z", "resourceVersion": "1"}),
            false,
        )
        .unwrap();
        assert_eq!(
            errors(validate_object_meta_update(&new, &old, &FieldPath::new("metadata"))),
            [
                "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"x/y\"}",
                "metadata.generation: Invalid value: 2: must not be decremented",
                "metadata.name: Invalid value: \"b\": field is immutable",
                "metadata.uid: Invalid value: \"v\": field is immutable",
            ]
        );
    }

    /// apiserver `pkg/registry/rest/update.go` `validateCommonFields`:
    /// `ValidateObjectMetaAccessor(new, namespaceScoped, validatePathSegment)` (names checked
    /// as path segments, not as DNS subdomains), then `ValidateObjectMetaAccessorUpdate`
    /// (apimachinery `pkg/api/validation/objectmeta.go`).
    #[test]
    fn common_fields_on_update() {
        let old = json!({"metadata": {"name": "a", "namespace": "ns", "resourceVersion": "1"}});
        let cases: [(serde_json::Value, bool, &[&str]); 4] = [
            (
                json!({"metadata": {"name": "a", "namespace": "ns", "resourceVersion": "1"}}),
                true,
                &[],
            ),
            (
                json!({"metadata": {"name": "A/b", "namespace": "ns", "resourceVersion": "1"}}),
                true,
                &[
                    "metadata.name: Invalid value: \"A/b\": may not contain '/'",
                    "metadata.name: Invalid value: \"A/b\": field is immutable",
                ],
            ),
            (
                json!({"metadata": {"name": "a", "resourceVersion": "1",
                    "finalizers": ["orphan", "foregroundDeletion"]}}),
                true,
                &[
                    "metadata.namespace: Required value",
                    "metadata.finalizers: Invalid value: [\"orphan\",\"foregroundDeletion\"]: finalizer orphan and foregroundDeletion cannot be both set",
                    "metadata.namespace: Invalid value: \"\": field is immutable",
                ],
            ),
            (
                json!({"metadata": {"name": "a", "namespace": "ns", "resourceVersion": "1"}}),
                false,
                &["metadata.namespace: Forbidden: not allowed on this type"],
            ),
        ];
        for (new, namespaced, want) in cases {
            assert_eq!(
                errors(validate_update_common_fields(&new, &old, namespaced)),
                want,
                "{new}"
            );
        }
    }

    #[test]
    fn embedded_resources() {
        let (props, _) = JsonSchemaProps::from_json(&json!({"type": "object", "properties": {
            "e": {"type": "object", "x-kubernetes-embedded-resource": true,
                  "x-kubernetes-preserve-unknown-fields": true}}}));
        let s = Structural::from_props(&props).unwrap();
        let obj = json!({"e": {"apiVersion": "a/b/c", "kind": "My_Kind",
            "metadata": {"name": "a/b", "namespace": "Bad"}}});
        assert_eq!(
            errors(validate_embedded(&FieldPath::root(), &obj, Some(&s), false)),
            [
                "e.apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c",
                "e.kind: Invalid value: \"My_Kind\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
                "e.metadata.name: Invalid value: \"a/b\": may not contain '/'",
                "e.metadata.namespace: Invalid value: \"Bad\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
            ]
        );
        let (meta, _) = decode_object_meta(
            &json!({"finalizers": ["a.b", "x", "orphan", "ex.com/y", "x"]}),
            false,
        )
        .unwrap();
        assert_eq!(
            finalizer_warnings(&meta, None),
            [
                "metadata.finalizers: \"a.b\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers",
                "metadata.finalizers: \"x\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers",
            ]
        );
        let missing = json!({"e": {}});
        assert_eq!(
            errors(validate_embedded(
                &FieldPath::root(),
                &missing,
                Some(&s),
                false
            )),
            ["e.apiVersion: Required value", "e.kind: Required value"]
        );
        assert_eq!(
            errors(validate_type_meta(
                &json!({"kind": "Bar", "apiVersion": "x/v1"}),
                "x",
                "v1",
                "Foo"
            )),
            ["kind: Invalid value: \"Bar\": must be Foo"]
        );
    }

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
        assert_eq!(
            is_dns1035_label(&"a".repeat(64)),
            vec!["must be no more than 63 characters".to_owned()]
        );
        assert!(is_valid_port_num(65535).is_empty());
        assert_eq!(is_valid_port_num(0).len(), 1);
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
    fn object_meta_of_a_cluster_scoped_object() {
        let meta = ObjectMeta {
            name: "Bad".into(),
            namespace: "ns".into(),
            ..ObjectMeta::default()
        };
        let errs = validate_object_meta(
            &meta,
            false,
            NameRule::DnsSubdomain,
            &FieldPath::new("metadata"),
        );
        let fields: Vec<String> = errs.iter().map(|e| e.field.to_string()).collect();
        assert_eq!(fields, vec!["metadata.name", "metadata.namespace"]);
        assert_eq!(mask_trailing_dash("abc-"), b"aba".to_vec());
    }
}
