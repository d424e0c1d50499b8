//! `ValidateCustomResourceDefinition` and `ValidateCustomResourceDefinitionUpdate`
//! (`pkg/apis/apiextensions/validation/validation.go`): metadata, spec (group, scope, names,
//! versions, per-version and top-level schemas, subresources, printer columns, selectable
//! fields, conversion), status and stored versions, API approval, `preserveUnknownFields`.
//! Errors come in the server's order, with its paths (internal ones: `spec.validation...`,
//! `additionalPrinterColumns[i].JSONPath`) and messages.

use std::collections::{BTreeMap, BTreeSet};

use crate::documents::field_error::{BadValue, FieldError};
use crate::documents::path::FieldPath;
use crate::schema::structural::Structural;

use super::field_path::valid_field_path;
use super::hooks::{Hooks, PreexistingExpressions};
use super::internal::{
    spec_versions_json, ColumnDefinition, Conversion, CrdSpec, CrdStatus, CrdVersion, InternalCrd,
    Names, ObjectMeta, SelectableField, Subresources,
};
use super::schema_validation::{
    collect_expressions, has_invalid_map_list_keys_map_set, has_non_atomic_set_type,
    schema_has_defaults, schema_has_invalid_types, schema_has_kubernetes_extensions,
    schema_is_non_structural, validate_crd_validation_cached, StructuralCache, ValidationOptions,
};
use super::webhook::{
    ca_bundle_error, validate_ca_bundle, validate_webhook_service, validate_webhook_url,
};
use crate::object::objectmeta::validation::{
    is_dns1035_label, is_dns1123_subdomain, validate_immutable_str, validate_object_meta_update,
    validate_object_meta_with, NameRule,
};

/// `MaxSelectableFields`.
pub const MAX_SELECTABLE_FIELDS: usize = 8;

/// The options `ValidateCustomResourceDefinition` uses on create: every check on.
pub fn create_options() -> ValidationOptions {
    ValidationOptions {
        allow_defaults: true,
        require_recognized_conversion_review_version: true,
        require_immutable_names: false,
        require_open_api_schema: true,
        require_valid_property_type: true,
        require_structural_schema: true,
        require_pruned_defaults: true,
        require_atomic_set_type: true,
        require_map_list_keys_map_set_validation: true,
        allow_invalid_ca_bundle: true,
        ..ValidationOptions::default()
    }
}

/// `ValidateCustomResourceDefinition`: the errors of a CRD on create (after
/// `PrepareForCreate`).
#[cfg(any(test, feature = "conformance"))]
pub fn validate_crd(crd: &InternalCrd, hooks: Hooks<'_>) -> Vec<FieldError> {
    validate_crd_parts(
        &crd.metadata,
        &crd.spec,
        &crd.status,
        hooks,
        &StructuralCache::new(),
    )
}

/// [`validate_crd`] of the CRD made of `metadata`, `spec` and `status`, taking the structural
/// forms of its schemas from `cache`.
pub(crate) fn validate_crd_parts<'a>(
    metadata: &ObjectMeta,
    spec: &'a CrdSpec,
    status: &CrdStatus,
    hooks: Hooks<'_>,
    cache: &StructuralCache<'a>,
) -> Vec<FieldError> {
    let opts = create_options();
    let required_name = format!("{}.{}", spec.names.plural, spec.group);
    let name_fn = |name: &str, prefix: bool| {
        let mut ret = NameRule::DnsSubdomain.check(name, prefix);
        if name != required_name {
            ret.push("must be spec.names.plural+\".\"+spec.group".to_owned());
        }
        ret
    };
    let mut errs =
        validate_object_meta_with(metadata, false, &name_fn, &FieldPath::new("metadata"));
    errs.extend(validate_spec_cached(
        spec,
        &opts,
        &FieldPath::new("spec"),
        hooks,
        cache,
    ));
    errs.extend(validate_status(status, &FieldPath::new("status")));
    errs.extend(validate_stored_versions(
        &status.stored_versions,
        &spec.versions,
        &FieldPath::new("status").child("storedVersions"),
    ));
    errs.extend(validate_api_approval(metadata, spec, None));
    errs.extend(validate_preserve_unknown_fields(spec, None));
    errs
}

/// The options `ValidateCustomResourceDefinitionUpdate` uses: checks the old CRD already
/// failed are relaxed so that it can still be updated.
pub fn update_options(new: &InternalCrd, old: &InternalCrd, hooks: Hooks<'_>) -> ValidationOptions {
    let old_spec = &old.spec;
    let mut preexisting = PreexistingExpressions::default();
    for s in old_spec.schemas() {
        collect_expressions(s, &mut preexisting);
    }
    ValidationOptions {
        allow_defaults: true,
        require_recognized_conversion_review_version: match &old_spec.conversion {
            None => true,
            Some(c) => {
                c.conversion_review_versions.is_empty()
                    || c.conversion_review_versions
                        .iter()
                        .any(|v| is_accepted_conversion_review_version(v))
            }
        },
        require_immutable_names: old.condition_true("Established"),
        require_open_api_schema: all_versions_specify_open_api_schema(old_spec),
        require_valid_property_type: !old_spec.schemas().any(schema_has_invalid_types),
        require_structural_schema: !old_spec.schemas().any(schema_is_non_structural),
        require_pruned_defaults: require_pruned_defaults(old_spec, hooks),
        require_atomic_set_type: !old_spec.schemas().any(has_non_atomic_set_type),
        require_map_list_keys_map_set_validation: !old_spec
            .schemas()
            .any(has_invalid_map_list_keys_map_set),
        preexisting_expressions: Some(preexisting),
        versions_with_unchanged_schemas: versions_with_unchanged_schemas(new, old),
        allow_invalid_ca_bundle: allow_invalid_ca_bundle(old),
        allow_too_many_selectable_fields: too_many_selectable_fields_allowed(new, old),
        ..ValidationOptions::default()
    }
}

/// `ValidateCustomResourceDefinitionUpdate`: the errors of a CRD update (after
/// `PrepareForUpdate`).
pub fn validate_crd_update(
    new: &InternalCrd,
    old: &InternalCrd,
    hooks: Hooks<'_>,
) -> Vec<FieldError> {
    let opts = update_options(new, old, hooks);
    validate_crd_update_with(new, old, &opts, hooks)
}

/// `validateCustomResourceDefinitionUpdate` with explicit options.
pub fn validate_crd_update_with(
    new: &InternalCrd,
    old: &InternalCrd,
    opts: &ValidationOptions,
    hooks: Hooks<'_>,
) -> Vec<FieldError> {
    let mut errs =
        validate_object_meta_update(&new.metadata, &old.metadata, &FieldPath::new("metadata"));
    errs.extend(validate_spec_update(
        &new.spec,
        &old.spec,
        opts,
        &FieldPath::new("spec"),
        hooks,
    ));
    errs.extend(validate_status(&new.status, &FieldPath::new("status")));
    errs.extend(validate_stored_versions(
        &new.status.stored_versions,
        &new.spec.versions,
        &FieldPath::new("status").child("storedVersions"),
    ));
    errs.extend(validate_api_approval(&new.metadata, &new.spec, Some(old)));
    errs.extend(validate_preserve_unknown_fields(&new.spec, Some(old)));
    errs
}

fn all_versions_specify_open_api_schema(spec: &CrdSpec) -> bool {
    if spec
        .validation
        .as_ref()
        .is_some_and(|v| v.open_api_v3_schema.is_some())
    {
        return true;
    }
    spec.versions.iter().all(|v| {
        v.schema
            .as_ref()
            .is_some_and(|s| s.open_api_v3_schema.is_some())
    })
}

fn require_pruned_defaults(old: &CrdSpec, hooks: Hooks<'_>) -> bool {
    let Some(d) = hooks.defaults else { return true };
    for s in old.schemas() {
        if !schema_has_defaults(s) {
            continue;
        }
        let Ok(ss) = Structural::from_props(s) else {
            continue;
        };
        if !super::structural_validation::validate_structural(&FieldPath::root(), &ss).is_empty() {
            continue;
        }
        if d.has_unpruned_defaults(&ss) == Some(true) {
            return false;
        }
    }
    true
}

/// `findVersionsWithUnchangedSchemas`.
fn versions_with_unchanged_schemas(new: &InternalCrd, old: &InternalCrd) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for v in &new.spec.versions {
        let (Some(n), Some(o)) = (
            new.schema_for_version(&v.name),
            old.schema_for_version(&v.name),
        ) else {
            continue;
        };
        if n == o {
            out.insert(v.name.clone());
        }
    }
    out
}

/// `allowInvalidCABundle`.
fn allow_invalid_ca_bundle(old: &InternalCrd) -> bool {
    if !old.condition_true("Established") {
        return true;
    }
    let Some(cc) = old
        .spec
        .conversion
        .as_ref()
        .and_then(|c| c.webhook_client_config.as_ref())
    else {
        return false;
    };
    if cc.ca_bundle.is_empty() {
        return false;
    }
    ca_bundle_error(&cc.ca_bundle).is_some()
}

/// `findTooManySelectableFieldsAllowed`.
fn too_many_selectable_fields_allowed(new: &InternalCrd, old: &InternalCrd) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if old.spec.selectable_fields.len() > MAX_SELECTABLE_FIELDS
        && new.spec.selectable_fields == old.spec.selectable_fields
    {
        out.insert(String::new());
    }
    let old_versions: BTreeMap<&str, &CrdVersion> = old
        .spec
        .versions
        .iter()
        .map(|v| (v.name.as_str(), v))
        .collect();
    for v in &new.spec.versions {
        if let Some(ov) = old_versions.get(v.name.as_str()) {
            if ov.selectable_fields.len() > MAX_SELECTABLE_FIELDS
                && v.selectable_fields == ov.selectable_fields
            {
                out.insert(v.name.clone());
            }
        }
    }
    out
}

/// `ValidateCustomResourceDefinitionStoredVersions`.
pub fn validate_stored_versions(
    stored: &[String],
    versions: &[CrdVersion],
    path: &FieldPath,
) -> Vec<FieldError> {
    if stored.is_empty() {
        return vec![FieldError::invalid(
            path.clone(),
            BadValue::Raw(crd_studio_gostd::json::strings(stored)),
            "must have at least one stored version",
        )];
    }
    let mut errs = Vec::new();
    let mut remaining: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, v) in stored.iter().enumerate() {
        remaining.insert(v.as_str(), i);
    }
    for v in versions {
        let present = remaining.contains_key(v.name.as_str());
        if v.storage && !present {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Raw(crd_studio_gostd::json::strings(stored)),
                format!("must have the storage version {}", v.name),
            ));
        }
        if present {
            remaining.remove(v.name.as_str());
        }
    }
    let mut missing: Vec<(usize, &str)> = remaining.into_iter().map(|(v, i)| (i, v)).collect();
    crd_studio_gostd::sort::stable(&mut missing);
    for (i, v) in missing {
        errs.push(FieldError::invalid(
            path.index(i),
            BadValue::Str(v.to_owned()),
            format!("missing from spec.versions; {v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in {v} and removes {v} from status.storedVersions"),
        ));
    }
    errs
}

/// Go's `unicode.IsPrint`, approximated without Unicode tables: controls, format characters,
/// separators other than the ASCII space, private use and noncharacters are not printable.
fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let n = c as u32;
    let format_chars = matches!(n,
        0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x180e | 0x200b..=0x200f
        | 0x2028..=0x202e | 0x2060..=0x2064 | 0x2066..=0x206f | 0xfeff | 0xfff9..=0xfffb
        | 0x110bd | 0x1d173..=0x1d17a | 0xe0001 | 0xe0020..=0xe007f);
    let private = matches!(n, 0xe000..=0xf8ff | 0xf0000..=0x10ffff);
    let nonchar = (0xfdd0..=0xfdef).contains(&n) || (n & 0xfffe) == 0xfffe;
    !(format_chars || private || nonchar)
}

/// `validateDeprecationWarning`: the messages for a version's `deprecationWarning`.
pub fn validate_deprecation_warning(deprecated: bool, warning: Option<&str>) -> Vec<String> {
    let Some(w) = warning else {
        return Vec::new();
    };
    if !deprecated {
        return vec!["can only be set for deprecated versions".to_owned()];
    }
    let mut errs = Vec::new();
    if w.len() > 256 {
        errs.push("must be <= 256 characters long".to_owned());
    }
    if w.is_empty() {
        errs.push("must not be an empty string".to_owned());
    }
    for (i, c) in w.char_indices() {
        if !is_print(c) {
            errs.push(format!("must only contain printable UTF-8 characters; non-printable character found at index {i}"));
            break;
        }
    }
    errs
}

/// `getSubresourcesForVersion`.
fn subresources_for_version<'a>(spec: &'a CrdSpec, version: &str) -> Option<&'a Subresources> {
    if !spec.versions.iter().any(|v| v.subresources.is_some()) {
        return spec.subresources.as_ref();
    }
    spec.versions
        .iter()
        .find(|v| v.name == version)
        .and_then(|v| v.subresources.as_ref())
}

fn has_status(s: Option<&Subresources>) -> bool {
    s.is_some_and(|s| s.status)
}

/// `validateCustomResourceDefinitionVersion`.
fn validate_version<'a>(
    version: &'a CrdVersion,
    path: &FieldPath,
    status_enabled: bool,
    opts: &ValidationOptions,
    hooks: Hooks<'_>,
    cache: &StructuralCache<'a>,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for e in
        validate_deprecation_warning(version.deprecated, version.deprecation_warning.as_deref())
    {
        errs.push(FieldError::invalid(
            path.child("deprecationWarning"),
            version
                .deprecation_warning
                .as_ref()
                .map(|w| BadValue::Raw(crd_studio_gostd::json::string(w)))
                .unwrap_or(BadValue::Null),
            e,
        ));
    }
    let mut vopts = opts.clone();
    if opts.versions_with_unchanged_schemas.contains(&version.name) {
        vopts.suppress_per_expression_cost = true;
    }
    errs.extend(validate_crd_validation_cached(
        version.schema.as_ref(),
        status_enabled,
        &vopts,
        &path.child("schema"),
        hooks,
        cache,
    ));
    errs.extend(validate_subresources(
        version.subresources.as_ref(),
        &path.child("subresources"),
    ));
    for (i, c) in version.additional_printer_columns.iter().enumerate() {
        errs.extend(validate_column(
            c,
            &path.child("additionalPrinterColumns").index(i),
        ));
    }
    if !version.selectable_fields.is_empty() {
        match version
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_deref())
        {
            None => errs.push(FieldError::invalid(
                path.child("selectableFields"),
                BadValue::Str(String::new()),
                "may only be set when `version.schema.openAPIV3Schema` is not included",
            )),
            Some(schema) => {
                let ss = match cache.get(schema) {
                    Ok(ss) => Some(ss),
                    Err(e) => {
                        errs.push(FieldError::invalid(
                            schema_dot_path(path),
                            BadValue::Str(String::new()),
                            e.0,
                        ));
                        None
                    }
                };
                errs.extend(validate_selectable_fields(
                    &version.selectable_fields,
                    ss.as_deref(),
                    &path.child("selectableFields"),
                    opts,
                    &version.name,
                ));
            }
        }
    }
    errs
}

/// `fldPath.Child("schema.openAPIV3Schema")`: one path element with a dot in it.
fn schema_dot_path(path: &FieldPath) -> FieldPath {
    let mut p = path.clone();
    p.0.push(crate::documents::path::Segment::Field(
        "schema.openAPIV3Schema".to_owned(),
    ));
    p
}

/// `ValidateCustomResourceSelectableFields`.
pub fn validate_selectable_fields(
    fields: &[SelectableField],
    schema: Option<&Structural>,
    path: &FieldPath,
    opts: &ValidationOptions,
    version: &str,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut unique = BTreeSet::new();
    for (i, f) in fields.iter().enumerate() {
        let jp = path.index(i).child("jsonPath");
        if f.json_path.is_empty() {
            errs.push(FieldError::required(jp, ""));
            continue;
        }
        let bad = || BadValue::Str(f.json_path.clone());
        let resolved = match schema {
            Some(s) => valid_field_path(&f.json_path, s, false),
            None => Err("does not refer to a valid field".to_owned()),
        };
        let (fp, found) = match resolved {
            Ok(r) => r,
            Err(e) => {
                errs.push(FieldError::invalid(
                    jp,
                    bad(),
                    format!("is an invalid path: {e}"),
                ));
                continue;
            }
        };
        let root_is_metadata = matches!(
            fp.0.first(),
            Some(crate::documents::path::Segment::Field(n)) if n == "metadata"
        );
        if root_is_metadata {
            errs.push(FieldError::invalid(
                jp.clone(),
                bad(),
                "must not point to fields in metadata",
            ));
        }
        let allowed = found
            .is_some_and(|s| matches!(s.generic.type_.as_str(), "string" | "boolean" | "integer"));
        if !allowed {
            errs.push(FieldError::invalid(
                jp.clone(),
                bad(),
                "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
            ));
        }
        if !unique.insert(fp.to_string()) {
            errs.push(FieldError::duplicate(jp, bad()));
        }
    }
    if unique.len() > MAX_SELECTABLE_FIELDS
        && !opts.allow_too_many_selectable_fields.contains(version)
    {
        errs.push(FieldError::too_many(
            path.clone(),
            unique.len() as i64,
            MAX_SELECTABLE_FIELDS as i64,
        ));
    }
    errs
}

fn validate_enum(path: &FieldPath, value: &str, accepted: &[&str]) -> Vec<FieldError> {
    if value.is_empty() {
        return vec![FieldError::required(path.clone(), "")];
    }
    if accepted.contains(&value) {
        return Vec::new();
    }
    vec![FieldError::not_supported(
        path.clone(),
        BadValue::Str(value.to_owned()),
        accepted,
    )]
}

fn is_accepted_conversion_review_version(v: &str) -> bool {
    v == "v1" || v == "v1beta1"
}

fn preserve_unknown_fields_off(spec: &CrdSpec) -> bool {
    spec.preserve_unknown_fields != Some(true)
}

/// `validateCustomResourceDefinitionSpec`.
pub fn validate_spec(
    spec: &CrdSpec,
    opts: &ValidationOptions,
    path: &FieldPath,
    hooks: Hooks<'_>,
) -> Vec<FieldError> {
    validate_spec_cached(spec, opts, path, hooks, &StructuralCache::new())
}

/// [`validate_spec`], taking the structural forms of the schemas from `cache`.
fn validate_spec_cached<'a>(
    spec: &'a CrdSpec,
    opts: &ValidationOptions,
    path: &FieldPath,
    hooks: Hooks<'_>,
    cache: &StructuralCache<'a>,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut opts = opts.clone();
    if spec.group.is_empty() {
        errs.push(FieldError::required(path.child("group"), ""));
    } else {
        let e = is_dns1123_subdomain(spec.group.as_bytes());
        if !e.is_empty() {
            errs.push(FieldError::invalid(
                path.child("group"),
                BadValue::Str(spec.group.clone()),
                e.join(","),
            ));
        } else if spec.group.split('.').count() < 2 {
            errs.push(FieldError::invalid(
                path.child("group"),
                BadValue::Str(spec.group.clone()),
                "should be a domain with at least one dot",
            ));
        }
    }
    errs.extend(validate_enum(
        &path.child("scope"),
        &spec.scope,
        &["Cluster", "Namespaced"],
    ));
    if preserve_unknown_fields_off(spec) {
        opts.require_structural_schema = true;
    }
    let top_schema = spec
        .validation
        .as_ref()
        .is_some_and(|v| v.open_api_v3_schema.is_some());
    let version_has_schema = |v: &CrdVersion| {
        v.schema
            .as_ref()
            .is_some_and(|s| s.open_api_v3_schema.is_some())
    };
    if opts.require_open_api_schema {
        if !top_schema {
            for (i, v) in spec.versions.iter().enumerate() {
                if !version_has_schema(v) {
                    errs.push(FieldError::required(
                        path.child("versions")
                            .index(i)
                            .child("schema.openAPIV3Schema"),
                        "",
                    ));
                }
            }
        }
    } else if preserve_unknown_fields_off(spec) && !top_schema {
        for (i, v) in spec.versions.iter().enumerate() {
            if v.served && !version_has_schema(v) {
                errs.push(FieldError::required(
                    path.child("versions")
                        .index(i)
                        .child("schema.openAPIV3Schema"),
                    "because otherwise all fields are pruned",
                ));
            }
        }
    }
    if opts.allow_defaults && spec.schemas().any(schema_has_defaults) {
        opts.require_structural_schema = true;
        if spec.preserve_unknown_fields != Some(false) {
            errs.push(FieldError::invalid(
                path.child("preserveUnknownFields"),
                BadValue::Bool(true),
                "must be false in order to use defaults in the schema",
            ));
        }
    }
    if spec.schemas().any(schema_has_kubernetes_extensions) {
        opts.require_structural_schema = true;
    }

    let mut storage_count = 0;
    let mut seen = BTreeSet::new();
    let mut unique_names = true;
    for (i, v) in spec.versions.iter().enumerate() {
        if v.storage {
            storage_count += 1;
        }
        if !seen.insert(v.name.as_str()) {
            unique_names = false;
        }
        let e = is_dns1035_label(v.name.as_bytes());
        if !e.is_empty() {
            errs.push(FieldError::invalid(
                path.child("versions").index(i).child("name"),
                BadValue::Str(v.name.clone()),
                e.join(","),
            ));
        }
        let sub = subresources_for_version(spec, &v.name);
        errs.extend(validate_version(
            v,
            &path.child("versions").index(i),
            has_status(sub),
            &opts,
            hooks,
            cache,
        ));
    }
    if spec.validation.is_some() && spec.versions.iter().any(|v| v.schema.is_some()) {
        errs.push(FieldError::forbidden(
            path.child("validation"),
            "top-level and per-version schemas are mutually exclusive",
        ));
    }
    if spec.subresources.is_some() && spec.versions.iter().any(|v| v.subresources.is_some()) {
        errs.push(FieldError::forbidden(
            path.child("subresources"),
            "top-level and per-version subresources are mutually exclusive",
        ));
    }
    if !spec.additional_printer_columns.is_empty()
        && spec
            .versions
            .iter()
            .any(|v| !v.additional_printer_columns.is_empty())
    {
        errs.push(FieldError::forbidden(
            path.child("additionalPrinterColumns"),
            "top-level and per-version additionalPrinterColumns are mutually exclusive",
        ));
    }
    let versions_value = || BadValue::Raw(spec_versions_json(spec));
    if let Some(first) = spec.versions.first() {
        if spec
            .versions
            .iter()
            .all(|v| v.schema.is_some() && v.schema == first.schema)
        {
            errs.push(FieldError::invalid(
                path.child("versions"),
                versions_value(),
                "per-version schemas may not all be set to identical values (top-level validation should be used instead)",
            ));
        }
        if spec
            .versions
            .iter()
            .all(|v| v.subresources.is_some() && v.subresources == first.subresources)
        {
            errs.push(FieldError::invalid(
                path.child("versions"),
                versions_value(),
                "per-version subresources may not all be set to identical values (top-level subresources should be used instead)",
            ));
        }
        if spec.versions.iter().all(|v| {
            !v.additional_printer_columns.is_empty()
                && v.additional_printer_columns == first.additional_printer_columns
        }) {
            errs.push(FieldError::invalid(
                path.child("versions"),
                versions_value(),
                "per-version additionalPrinterColumns may not all be set to identical values (top-level additionalPrinterColumns should be used instead)",
            ));
        }
    }
    if !unique_names {
        errs.push(FieldError::invalid(
            path.child("versions"),
            versions_value(),
            "must contain unique version names",
        ));
    }
    if storage_count != 1 {
        errs.push(FieldError::invalid(
            path.child("versions"),
            versions_value(),
            "must have exactly one version marked as storage version",
        ));
    }
    if !spec.version.is_empty() {
        let e = is_dns1035_label(spec.version.as_bytes());
        if !e.is_empty() {
            errs.push(FieldError::invalid(
                path.child("version"),
                BadValue::Str(spec.version.clone()),
                e.join(","),
            ));
        }
        if spec
            .versions
            .first()
            .is_some_and(|v| v.name != spec.version)
        {
            errs.push(FieldError::invalid(
                path.child("version"),
                BadValue::Str(spec.version.clone()),
                "must match the first version in spec.versions",
            ));
        }
    }
    for (field, value) in [
        ("plural", &spec.names.plural),
        ("singular", &spec.names.singular),
        ("kind", &spec.names.kind),
        ("listKind", &spec.names.list_kind),
    ] {
        if value.is_empty() {
            errs.push(FieldError::required(path.child("names").child(field), ""));
        }
    }
    errs.extend(validate_names(&spec.names, &path.child("names")));
    let any_status = has_status(spec.subresources.as_ref())
        || spec
            .versions
            .iter()
            .any(|v| has_status(v.subresources.as_ref()));
    let mut top_opts = opts.clone();
    if opts.versions_with_unchanged_schemas.contains(&spec.version) {
        top_opts.suppress_per_expression_cost = true;
    }
    errs.extend(validate_crd_validation_cached(
        spec.validation.as_ref(),
        any_status,
        &top_opts,
        &path.child("validation"),
        hooks,
        cache,
    ));
    errs.extend(validate_subresources(
        spec.subresources.as_ref(),
        &path.child("subresources"),
    ));
    for (i, c) in spec.additional_printer_columns.iter().enumerate() {
        errs.extend(validate_column(
            c,
            &path.child("additionalPrinterColumns").index(i),
        ));
    }
    if !spec.selectable_fields.is_empty() {
        match &spec.validation {
            None => errs.push(FieldError::invalid(
                path.child("selectableFields"),
                BadValue::Str(String::new()),
                "may only be set when validations.schema is included",
            )),
            Some(v) => {
                let ss = match v.open_api_v3_schema.as_deref().map(|s| cache.get(s)) {
                    Some(Ok(ss)) => Some(ss),
                    Some(Err(e)) => {
                        errs.push(FieldError::invalid(
                            schema_dot_path(path),
                            BadValue::Str(String::new()),
                            e.0,
                        ));
                        None
                    }
                    None => None,
                };
                errs.extend(validate_selectable_fields(
                    &spec.selectable_fields,
                    ss.as_deref(),
                    &path.child("selectableFields"),
                    &opts,
                    "",
                ));
            }
        }
    }
    if let Some(c) = &spec.conversion {
        if c.strategy != "None" && spec.preserve_unknown_fields != Some(false) {
            errs.push(FieldError::invalid(
                path.child("conversion").child("strategy"),
                BadValue::Str(c.strategy.clone()),
                "must be None if spec.preserveUnknownFields is true",
            ));
        }
    }
    errs.extend(validate_conversion(
        spec.conversion.as_ref(),
        opts.require_recognized_conversion_review_version,
        &path.child("conversion"),
        &opts,
    ));
    errs
}

/// `validateCustomResourceDefinitionSpecUpdate`.
fn validate_spec_update(
    spec: &CrdSpec,
    old: &CrdSpec,
    opts: &ValidationOptions,
    path: &FieldPath,
    hooks: Hooks<'_>,
) -> Vec<FieldError> {
    let mut errs = validate_spec(spec, opts, path, hooks);
    if opts.require_immutable_names {
        errs.extend(validate_immutable_str(
            &spec.scope,
            &old.scope,
            &path.child("scope"),
        ));
        errs.extend(validate_immutable_str(
            &spec.names.kind,
            &old.names.kind,
            &path.child("names").child("kind"),
        ));
    }
    errs.extend(validate_immutable_str(
        &spec.group,
        &old.group,
        &path.child("group"),
    ));
    errs.extend(validate_immutable_str(
        &spec.names.plural,
        &old.names.plural,
        &path.child("names").child("plural"),
    ));
    errs
}

/// `validateCustomResourceConversion`.
fn validate_conversion(
    conversion: Option<&Conversion>,
    require_recognized: bool,
    path: &FieldPath,
    opts: &ValidationOptions,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(c) = conversion else { return errs };
    errs.extend(validate_enum(
        &path.child("strategy"),
        &c.strategy,
        &["None", "Webhook"],
    ));
    if c.strategy == "Webhook" {
        match &c.webhook_client_config {
            None => errs.push(FieldError::required(
                path.child("webhookClientConfig"),
                "required when strategy is set to Webhook",
            )),
            Some(cc) => {
                let wp = path.child("webhookClientConfig");
                match (&cc.url, &cc.service) {
                    (Some(url), None) => {
                        errs.extend(validate_webhook_url(&wp.child("url"), url, true))
                    }
                    (None, Some(s)) => errs.extend(validate_webhook_service(
                        &wp.child("service"),
                        &s.namespace,
                        &s.name,
                        s.path.as_deref(),
                        s.port,
                    )),
                    _ => errs.push(FieldError::required(
                        wp.clone(),
                        "exactly one of url or service is required",
                    )),
                }
                if !cc.ca_bundle.is_empty() && !opts.allow_invalid_ca_bundle {
                    errs.extend(validate_ca_bundle(&wp.child("caBundle"), &cc.ca_bundle));
                }
            }
        }
        errs.extend(validate_conversion_review_versions(
            &c.conversion_review_versions,
            require_recognized,
            &path.child("conversionReviewVersions"),
        ));
    } else {
        if c.webhook_client_config.is_some() {
            errs.push(FieldError::forbidden(
                path.child("webhookClientConfig"),
                "should not be set when strategy is not set to Webhook",
            ));
        }
        if !c.conversion_review_versions.is_empty() {
            errs.push(FieldError::forbidden(
                path.child("conversionReviewVersions"),
                "should not be set when strategy is not set to Webhook",
            ));
        }
    }
    errs
}

/// `validateConversionReviewVersions`.
fn validate_conversion_review_versions(
    versions: &[String],
    require_recognized: bool,
    path: &FieldPath,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if versions.is_empty() {
        errs.push(FieldError::required(path.clone(), ""));
        return errs;
    }
    let mut seen = BTreeSet::new();
    let mut has_accepted = false;
    for (i, v) in versions.iter().enumerate() {
        if !seen.insert(v.as_str()) {
            errs.push(FieldError::invalid(
                path.index(i),
                BadValue::Str(v.clone()),
                "duplicate version",
            ));
            continue;
        }
        for e in is_dns1035_label(v.as_bytes()) {
            errs.push(FieldError::invalid(
                path.index(i),
                BadValue::Str(v.clone()),
                e,
            ));
        }
        if is_accepted_conversion_review_version(v) {
            has_accepted = true;
        }
    }
    if require_recognized && !has_accepted {
        errs.push(FieldError::invalid(
            path.clone(),
            BadValue::Raw(crd_studio_gostd::json::strings(versions)),
            "must include at least one of v1, v1beta1",
        ));
    }
    errs
}

/// `ValidateCustomResourceDefinitionStatus`.
fn validate_status(status: &CrdStatus, path: &FieldPath) -> Vec<FieldError> {
    validate_names(&status.accepted_names, &path.child("acceptedNames"))
}

/// `ValidateCustomResourceDefinitionNames`.
pub fn validate_names(names: &Names, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let label = |value: &str, field: &str, errs: &mut Vec<FieldError>| {
        let e = is_dns1035_label(value.as_bytes());
        if !value.is_empty() && !e.is_empty() {
            errs.push(FieldError::invalid(
                path.child(field),
                BadValue::Str(value.to_owned()),
                e.join(","),
            ));
        }
    };
    label(&names.plural, "plural", &mut errs);
    label(&names.singular, "singular", &mut errs);
    for (value, field) in [(&names.kind, "kind"), (&names.list_kind, "listKind")] {
        let e = is_dns1035_label(value.to_lowercase().as_bytes());
        if !value.is_empty() && !e.is_empty() {
            errs.push(FieldError::invalid(
                path.child(field),
                BadValue::Str(value.clone()),
                format!(
                    "may have mixed case, but should otherwise match: {}",
                    e.join(",")
                ),
            ));
        }
    }
    for (i, s) in names.short_names.iter().enumerate() {
        let e = is_dns1035_label(s.as_bytes());
        if !e.is_empty() {
            errs.push(FieldError::invalid(
                path.child("shortNames").index(i),
                BadValue::Str(s.clone()),
                e.join(","),
            ));
        }
    }
    if !names.kind.is_empty() && names.kind == names.list_kind {
        errs.push(FieldError::invalid(
            path.child("listKind"),
            BadValue::Str(names.list_kind.clone()),
            "kind and listKind may not be the same",
        ));
    }
    for (i, c) in names.categories.iter().enumerate() {
        let e = is_dns1035_label(c.as_bytes());
        if !e.is_empty() {
            errs.push(FieldError::invalid(
                path.child("categories").index(i),
                BadValue::Str(c.clone()),
                e.join(","),
            ));
        }
    }
    errs
}

const PRINTER_COLUMN_TYPES: &[&str] = &["boolean", "date", "integer", "number", "string"];
const PRINTER_COLUMN_FORMATS: &[&str] = &[
    "byte",
    "date",
    "date-time",
    "double",
    "float",
    "int32",
    "int64",
    "password",
];

/// `ValidateCustomResourceColumnDefinition`.
pub fn validate_column(col: &ColumnDefinition, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if col.name.is_empty() {
        errs.push(FieldError::required(path.child("name"), ""));
    }
    let types = format!("must be one of {}", PRINTER_COLUMN_TYPES.join(","));
    if col.type_.is_empty() {
        errs.push(FieldError::required(path.child("type"), types));
    } else if !PRINTER_COLUMN_TYPES.contains(&col.type_.as_str()) {
        errs.push(FieldError::invalid(
            path.child("type"),
            BadValue::Str(col.type_.clone()),
            types,
        ));
    }
    if !col.format.is_empty() && !PRINTER_COLUMN_FORMATS.contains(&col.format.as_str()) {
        errs.push(FieldError::invalid(
            path.child("format"),
            BadValue::Str(col.format.clone()),
            format!("must be one of {}", PRINTER_COLUMN_FORMATS.join(",")),
        ));
    }
    if col.json_path.is_empty() {
        errs.push(FieldError::required(path.child("JSONPath"), ""));
    } else {
        errs.extend(validate_simple_json_path(
            &col.json_path,
            &path.child("JSONPath"),
        ));
    }
    errs
}

/// `validateSimpleJSONPath`.
fn validate_simple_json_path(s: &str, path: &FieldPath) -> Vec<FieldError> {
    if s.is_empty() {
        return vec![FieldError::invalid(
            path.clone(),
            BadValue::Str(String::new()),
            "must not be empty",
        )];
    }
    if !s.starts_with('.') {
        return vec![FieldError::invalid(
            path.clone(),
            BadValue::Str(s.to_owned()),
            "must be a simple json path starting with .",
        )];
    }
    Vec::new()
}

/// `ValidateCustomResourceDefinitionSubresources`.
pub fn validate_subresources(s: Option<&Subresources>, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(scale) = s.and_then(|s| s.scale.as_ref()) else {
        return errs;
    };
    for (value, field, prefix, what) in [
        (
            &scale.spec_replicas_path,
            "scale.specReplicasPath",
            ".spec.",
            "should be a json path under .spec",
        ),
        (
            &scale.status_replicas_path,
            "scale.statusReplicasPath",
            ".status.",
            "should be a json path under .status",
        ),
    ] {
        let p = path.child(field);
        if value.is_empty() {
            errs.push(FieldError::required(p, ""));
        } else {
            let e = validate_simple_json_path(value, &p);
            if !e.is_empty() {
                errs.extend(e);
            } else if !value.starts_with(prefix) {
                errs.push(FieldError::invalid(p, BadValue::Str(value.clone()), what));
            }
        }
    }
    if let Some(ls) = scale
        .label_selector_path
        .as_deref()
        .filter(|l| !l.is_empty())
    {
        let p = path.child("scale.labelSelectorPath");
        let e = validate_simple_json_path(ls, &p);
        if !e.is_empty() {
            errs.extend(e);
        } else if !ls.starts_with(".spec.") && !ls.starts_with(".status.") {
            errs.push(FieldError::invalid(
                p,
                BadValue::Raw(crd_studio_gostd::json::string(ls)),
                "should be a json path under either .spec or .status",
            ));
        }
    }
    errs
}

/// `apihelpers.IsProtectedCommunityGroup`.
pub fn is_protected_community_group(group: &str) -> bool {
    group == "k8s.io"
        || group.ends_with(".k8s.io")
        || group == "kubernetes.io"
        || group.ends_with(".kubernetes.io")
}

const APPROVAL_ANNOTATION: &str = "api-approved.kubernetes.io";

/// `APIApprovalState`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Approval {
    Invalid,
    Missing,
    Approved,
    Bypassed,
}

/// `apihelpers.GetAPIApprovalState`.
fn approval_state(annotations: &BTreeMap<String, String>) -> (Approval, String) {
    let a = annotations
        .get(APPROVAL_ANNOTATION)
        .map(String::as_str)
        .unwrap_or("");
    if a.is_empty() {
        return (
            Approval::Missing,
            format!("protected groups must have approval annotation \"{APPROVAL_ANNOTATION}\", see https://github.com/kubernetes/enhancements/pull/1111"),
        );
    }
    if a.starts_with("unapproved") {
        return (
            Approval::Bypassed,
            format!("not approved: {}", crd_studio_gostd::strconv::quote(a)),
        );
    }
    if let Ok(u) = crd_studio_gostd::url::Url::parse_request_uri(a) {
        if !u.host().is_empty() && !u.scheme().is_empty() {
            return (Approval::Approved, format!("approved in {a}"));
        }
    }
    (
        Approval::Invalid,
        format!("protected groups must have approval annotation \"{APPROVAL_ANNOTATION}\" with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111"),
    )
}

/// `validateAPIApproval`.
fn validate_api_approval(
    metadata: &ObjectMeta,
    spec: &CrdSpec,
    old: Option<&InternalCrd>,
) -> Vec<FieldError> {
    if !is_protected_community_group(&spec.group) {
        return Vec::new();
    }
    let old_state = old.map(|o| approval_state(&o.metadata.annotations).0);
    let (state, reason) = approval_state(&metadata.annotations);
    if old_state == Some(state) {
        return Vec::new();
    }
    let path = FieldPath::new("metadata")
        .child("annotations")
        .key(APPROVAL_ANNOTATION);
    let value = metadata
        .annotations
        .get(APPROVAL_ANNOTATION)
        .cloned()
        .unwrap_or_default();
    match state {
        Approval::Missing => vec![FieldError::required(path, reason)],
        Approval::Invalid => vec![FieldError::invalid(path, BadValue::Str(value), reason)],
        Approval::Approved | Approval::Bypassed => Vec::new(),
    }
}

/// `validatePreserveUnknownFields`.
fn validate_preserve_unknown_fields(spec: &CrdSpec, old: Option<&InternalCrd>) -> Vec<FieldError> {
    if old.is_some_and(|o| o.spec.preserve_unknown_fields == Some(true)) {
        return Vec::new();
    }
    if spec.preserve_unknown_fields == Some(true) {
        return vec![FieldError::invalid(
            FieldPath::new("spec").child("preserveUnknownFields"),
            BadValue::Bool(true),
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        )];
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crd::apiext::internal::{from_v1_json, prepare_for_create};
    use serde_json::json;

    fn crd(spec_extra: serde_json::Value) -> InternalCrd {
        let mut v = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "scope": "Namespaced",
                "names": {"plural": "widgets", "kind": "Widget"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                              "schema": {"openAPIV3Schema": {"type": "object"}}}],
            }
        });
        if let (Some(spec), Some(extra)) = (v["spec"].as_object_mut(), spec_extra.as_object()) {
            for (k, x) in extra {
                spec.insert(k.clone(), x.clone());
            }
        }
        let (mut c, problems) = from_v1_json(&v);
        assert!(problems.is_empty(), "{problems:?}");
        prepare_for_create(&mut c);
        c
    }

    fn errors(c: &InternalCrd) -> Vec<String> {
        validate_crd(c, Hooks::default())
            .iter()
            .map(FieldError::error)
            .collect()
    }

    #[test]
    fn a_good_crd_has_no_errors() {
        assert_eq!(errors(&crd(json!({}))), Vec::<String>::new());
    }

    #[test]
    fn names_and_group() {
        let c = crd(
            json!({"group": "Example", "names": {"plural": "Widgets", "kind": "Widget", "listKind": "Widget"}}),
        );
        let fields: Vec<String> = validate_crd(&c, Hooks::default())
            .iter()
            .map(|e| e.field.to_string())
            .collect();
        assert_eq!(
            fields,
            vec![
                "metadata.name",
                "spec.group",
                "spec.names.plural",
                "spec.names.listKind"
            ]
        );
    }

    #[test]
    fn webhook_conversion_needs_a_client_config() {
        let c = crd(
            json!({"conversion": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v2"]}}}),
        );
        assert_eq!(
            errors(&c),
            vec![
                "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
                "spec.conversion.conversionReviewVersions: Invalid value: [\"v2\"]: must include at least one of v1, v1beta1",
            ]
        );
    }

    #[test]
    fn schema_errors_use_internal_paths() {
        let c = crd(
            json!({"versions": [{"name": "v1", "served": true, "storage": true,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {}}}}}]}),
        );
        assert_eq!(
            errors(&c),
            vec!["spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields"]
        );
    }

    #[test]
    fn embedded_resources_and_rule_field_paths() {
        let c = crd(
            json!({"versions": [{"name": "v1", "served": true, "storage": true,
            "schema": {"openAPIV3Schema": {"type": "object",
                "x-kubernetes-validations": [{"rule": "true", "fieldPath": ".l[0].b"}, {"rule": "true", "fieldPath": ".e.x"}],
                "properties": {
                    "l": {"type": "array", "items": {"type": "object", "properties": {"b": {"type": "string"}}}},
                    "e": {"type": "object", "x-kubernetes-embedded-resource": true,
                          "additionalProperties": {"type": "string"}},
                    "p": {"type": "object", "x-kubernetes-embedded-resource": true,
                          "x-kubernetes-preserve-unknown-fields": true,
                          "additionalProperties": {"type": "string"}}}}}}]}),
        );
        let fields: Vec<String> = validate_crd(&c, Hooks::default())
            .iter()
            .map(|e| format!("{} {:?}", e.field, e.error_type))
            .collect();
        assert_eq!(
            fields,
            vec![
                "spec.validation.openAPIV3Schema.properties[e].additionalProperties FieldValueForbidden",
                "spec.validation.openAPIV3Schema.properties[e].properties FieldValueRequired",
                "spec.validation.openAPIV3Schema.properties[p].additionalProperties FieldValueForbidden",
                "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].fieldPath FieldValueInvalid",
            ]
        );
        // A map key after additionalProperties is a valid field path; a list index is not.
        let c = crd(
            json!({"versions": [{"name": "v1", "served": true, "storage": true,
            "schema": {"openAPIV3Schema": {"type": "object",
                "x-kubernetes-validations": [{"rule": "true", "fieldPath": ".l[0].b"}, {"rule": "true", "fieldPath": ".m.k"}],
                "properties": {
                    "l": {"type": "array", "items": {"type": "object", "properties": {"b": {"type": "string"}}}},
                    "m": {"type": "object", "additionalProperties": {"type": "string"}}}}}}]}),
        );
        assert_eq!(
            errors(&c),
            vec!["spec.validation.openAPIV3Schema.x-kubernetes-validations[0].fieldPath: Invalid value: \".l[0].b\": must be a valid path"]
        );
    }

    #[test]
    fn stored_versions() {
        let versions = vec![CrdVersion {
            name: "v1".into(),
            storage: true,
            ..CrdVersion::default()
        }];
        let p = FieldPath::new("status").child("storedVersions");
        let errs: Vec<String> = validate_stored_versions(&["v1alpha".into()], &versions, &p)
            .iter()
            .map(FieldError::error)
            .collect();
        assert_eq!(
            errs[0],
            "status.storedVersions: Invalid value: [\"v1alpha\"]: must have the storage version v1"
        );
        assert!(errs[1].starts_with(
            "status.storedVersions[0]: Invalid value: \"v1alpha\": missing from spec.versions"
        ));
    }

    #[test]
    fn deprecation_warnings() {
        assert!(validate_deprecation_warning(true, Some("use v2")).is_empty());
        assert_eq!(
            validate_deprecation_warning(false, Some("x")),
            vec!["can only be set for deprecated versions"]
        );
        assert_eq!(
            validate_deprecation_warning(true, Some("Test message\u{8}")),
            vec!["must only contain printable UTF-8 characters; non-printable character found at index 12"]
        );
    }

    #[test]
    fn protected_groups_need_approval() {
        let mut c = crd(json!({"group": "things.k8s.io"}));
        c.metadata.name = "widgets.things.k8s.io".into();
        let errs = errors(&c);
        assert_eq!(errs.len(), 1);
        assert!(
            errs[0].starts_with("metadata.annotations[api-approved.kubernetes.io]: Required value")
        );
        c.metadata.annotations.insert(
            APPROVAL_ANNOTATION.into(),
            "https://github.com/kubernetes/kubernetes/pull/1".into(),
        );
        assert!(errors(&c).is_empty());
    }
}
