//! Validation of the CustomResourceDefinition itself, as the API server does it on create and
//! update (`k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation`), including the
//! structural-schema rules (`pkg/apiserver/schema/validation.go`, `complete.go`).
//!
//! # Use
//!
//! (The unit test `use_example` runs this.)
//!
//! ```text
//! let v1 = serde_json::json!({
//!     "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
//!     "metadata": {"name": "widgets.example.com"},
//!     "spec": {"group": "example.com", "scope": "Namespaced",
//!              "names": {"plural": "widgets", "kind": "Widget"},
//!              "versions": [{"name": "v1", "served": true, "storage": true,
//!                            "schema": {"openAPIV3Schema": {"type": "object",
//!                                       "properties": {"spec": {}}}}}]}
//! });
//! let (crd, decode_problems) = apiext::from_v1_json(&v1);
//! assert!(decode_problems.is_empty());
//! let errors = apiext::validate_create(&crd, apiext::Hooks::default());
//! assert_eq!(errors[0].field.to_string(), "spec.validation.openAPIV3Schema.properties[spec].type");
//! // Where that is in the user's text:
//! let v1_path = apiext::v1_path(&errors[0].field, Some(&v1));
//! assert_eq!(v1_path.to_string(), "spec.versions[0].schema.openAPIV3Schema.properties.spec.type");
//! ```
//!
//! * [`from_v1_json`] reads a v1 CRD (decoding problems, v1 defaulting, v1 → internal
//!   conversion); [`from_internal_json`] reads the conformance data's internal shape.
//! * [`validate_create`] = `PrepareForCreate` + `ValidateCustomResourceDefinition`;
//!   [`validate_update`] = `PrepareForUpdate` + `ValidateCustomResourceDefinitionUpdate`.
//!   [`validate_crd`] / [`validate_crd_update`] validate as given (the Go functions).
//!   [`validate_create_with_cache`] leaves the structural forms of the schemas in a
//!   [`StructuralCache`] for the caller (each schema is converted once).
//! * [`warnings_on_create`] / [`warnings_on_update`]: the API warnings (unrecognized formats,
//!   `x-kubernetes-list-type: set` of non-scalars).
//! * [`v1_path`] maps an internal error path to the v1 field in the user's text.
//! * Lower level: [`validate_crd_validation`] (one schema, explicit
//!   [`ValidationOptions`]), [`validate_stored_versions`], [`validate_deprecation_warning`],
//!   [`structural_validation`], [`field_path::valid_field_path`],
//!   [`non_structural_schema_condition`].
//!
//! CEL compilation and cost limits, and the validation of `default` values, are done by other
//! modules through [`Hooks`]; with `Hooks::default()` they report nothing.

pub mod defaults;
pub mod field_path;
pub mod hooks;
pub mod internal;
mod lazy_path;
pub mod paths;
pub mod schema_validation;
pub mod structural_validation;
pub mod validation;
pub mod webhook;

// Every corpus CRD passes CRD validation.
#[cfg(test)]
#[path = "tests/corpus.rs"]
mod corpus_tests;

use std::collections::BTreeSet;

#[cfg(any(test, feature = "conformance"))]
use serde_json::Value as Json;

use crate::documents::field_error::FieldError;
use crate::documents::path::FieldPath;
use crate::schema::props::JsonSchemaProps;
#[cfg(any(test, feature = "conformance"))]
use crate::schema::structural::Structural;

pub use hooks::{
    CelCompilation, CelCompileFailure, CelCompiler, CelErrorKind, CelRuleSite, CelStep, Hooks,
    PreexistingExpressions,
};
#[cfg(feature = "conformance")]
pub use internal::from_internal_json;
pub use internal::{from_v1_json, prepare_for_update, DecodeProblem, InternalCrd};
pub use paths::v1_path;
pub use schema_validation::StructuralCache;
#[cfg(feature = "conformance")]
pub use schema_validation::{validate_crd_validation, ValidationOptions};
#[cfg(feature = "conformance")]
pub use validation::{validate_crd, validate_deprecation_warning};
pub use validation::{validate_crd_update, validate_stored_versions};

/// Create: `PrepareForCreate` (status reset, stored version recorded) then
/// `ValidateCustomResourceDefinition`.
#[cfg(test)]
pub fn validate_create(crd: &InternalCrd, hooks: Hooks<'_>) -> Vec<FieldError> {
    validate_create_with_cache(crd, hooks, &StructuralCache::new())
}

/// [`validate_create`], taking the structural forms of the CRD's schemas from `cache` and
/// leaving there those it converted, for the caller to reuse.
pub fn validate_create_with_cache<'a>(
    crd: &'a InternalCrd,
    hooks: Hooks<'_>,
    cache: &StructuralCache<'a>,
) -> Vec<FieldError> {
    // `PrepareForCreate` changes only the metadata and the status: prepare copies of those
    // and validate them with the spec as it is.
    let mut metadata = crd.metadata.clone();
    let mut status = internal::CrdStatus::default();
    internal::prepare_parts_for_create(&mut metadata, &crd.spec, &mut status);
    validation::validate_crd_parts(&metadata, &crd.spec, &status, hooks, cache)
}

/// Update as `rest.BeforeUpdate` (apiserver `pkg/registry/rest/update.go`) runs it:
/// `PrepareForUpdate` (status kept from the old CRD), `validateCommonFields`
/// (`ValidateObjectMetaAccessor` with path-segment names, cluster-scoped, then
/// `ValidateObjectMetaAccessorUpdate`), then the strategy's `ValidateUpdate`
/// (`ValidateCustomResourceDefinitionUpdate`, whose own `ValidateObjectMetaUpdate` reports
/// the same metadata errors again). The list is the server's causes, repeats included.
pub fn validate_update(new: &InternalCrd, old: &InternalCrd, hooks: Hooks<'_>) -> Vec<FieldError> {
    use crate::object::objectmeta::validation::{
        validate_object_meta, validate_object_meta_update, NameRule,
    };
    let mut new = new.clone();
    prepare_for_update(&mut new, old);
    let path = FieldPath::new("metadata");
    let mut errs = validate_object_meta(&new.metadata, false, NameRule::PathSegment, &path);
    errs.extend(validate_object_meta_update(
        &new.metadata,
        &old.metadata,
        &path,
    ));
    errs.extend(validate_crd_update(&new, old, hooks));
    errs
}

/// The `NonStructuralSchema` condition the server sets on a stored v1 CRD
/// (`nonstructuralschema.calculateCondition`), or `None` when every schema is structural.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg(any(test, feature = "conformance"))]
pub struct Condition {
    /// `type`: `NonStructuralSchema`.
    pub type_: String,
    /// `status`: `True`, or `Unknown` when a schema could not be converted.
    pub status: String,
    /// `reason`: `Violations` or `StructuralError`.
    pub reason: String,
    /// `message`.
    pub message: String,
}

/// `ErrorList.ToAggregate().Error()`: one message as is, several in `[a, b]`, duplicates once.
pub fn aggregate_error(errors: &[FieldError]) -> String {
    let mut seen = BTreeSet::new();
    let mut msgs = Vec::new();
    for e in errors {
        let m = e.error();
        if seen.insert(m.clone()) {
            msgs.push(m);
        }
    }
    match msgs.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// `calculateCondition` for a v1 CRD (as JSON; the versions are read as written, not
/// converted).
#[cfg(any(test, feature = "conformance"))]
pub fn non_structural_schema_condition(v1: &Json) -> Option<Condition> {
    let spec = v1.get("spec");
    let mut errs = Vec::new();
    if spec
        .and_then(|s| s.get("preserveUnknownFields"))
        .and_then(Json::as_bool)
        == Some(true)
    {
        errs.push(FieldError::invalid(
            FieldPath::new("spec").child("preserveUnknownFields"),
            crate::documents::field_error::BadValue::Bool(true),
            "must be false",
        ));
    }
    let versions = spec
        .and_then(|s| s.get("versions"))
        .and_then(Json::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, v) in versions.iter().enumerate() {
        let Some(schema) = v
            .get("schema")
            .and_then(|s| s.get("openAPIV3Schema"))
            .filter(|s| !s.is_null())
        else {
            continue;
        };
        let (props, _) = JsonSchemaProps::from_json(schema);
        let name = v.get("name").and_then(Json::as_str).unwrap_or("");
        match Structural::from_props(&props) {
            Err(e) => {
                return Some(Condition {
                    type_: "NonStructuralSchema".to_owned(),
                    status: "Unknown".to_owned(),
                    reason: "StructuralError".to_owned(),
                    message: format!(
                        "failed to check validation schema for version {name}: {}",
                        e.0
                    ),
                })
            }
            Ok(ss) => {
                let path = FieldPath::new("spec")
                    .child("versions")
                    .index(i)
                    .child("schema")
                    .child("openAPIV3Schema");
                errs.extend(structural_validation::validate_structural(&path, &ss));
            }
        }
    }
    if errs.is_empty() {
        return None;
    }
    Some(Condition {
        type_: "NonStructuralSchema".to_owned(),
        status: "True".to_owned(),
        reason: "Violations".to_owned(),
        message: aggregate_error(&errs),
    })
}

/// `GetUnrecognizedFormats` for one schema node.
fn unrecognized_format(s: &JsonSchemaProps) -> Option<String> {
    if s.format.is_empty() {
        return None;
    }
    let known = match s.type_.as_str() {
        // The formats the server knows at its default compatibility version.
        "" | "string" => crate::object::validation::formats::supported_at(
            &s.format,
            crate::documents::kube_version::KubernetesVersion::DEFAULT.compatibility(),
        ),
        "integer" => s.format == "int32" || s.format == "int64",
        "number" => s.format == "float" || s.format == "double",
        _ => false,
    };
    (!known).then(|| s.format.clone())
}

fn unrecognized_formats(crd: &InternalCrd) -> Vec<String> {
    let out = std::cell::RefCell::new(Vec::new());
    for s in crd.spec.schemas() {
        schema_validation::schema_has(s, &|n| {
            if let Some(f) = unrecognized_format(n) {
                out.borrow_mut().push(f);
            }
            false
        });
    }
    out.into_inner()
}

fn list_type_set_warnings(crd: &InternalCrd) -> Vec<String> {
    let seen = std::cell::RefCell::new(BTreeSet::new());
    for s in crd.spec.schemas() {
        schema_validation::schema_has(s, &|n| {
            if n.x_list_type.as_deref() == Some("set") {
                if let Some(is) = n.items_schema() {
                    if is.type_ == "object" || is.type_ == "array" {
                        seen.borrow_mut().insert(format!(
                            "x-kubernetes-list-type: set for items of type {} is not supported by server-side apply or CEL validation rules",
                            crd_studio_gostd::strconv::quote(&is.type_)
                        ));
                    }
                }
            }
            false
        });
    }
    seen.into_inner().into_iter().collect()
}

/// `strategy.WarningsOnCreate`: the warnings the server returns with a created CRD.
pub fn warnings_on_create(crd: &InternalCrd) -> Vec<String> {
    let mut w: Vec<String> = unrecognized_formats(crd)
        .into_iter()
        .map(|f| {
            format!(
                "unrecognized format {}",
                crd_studio_gostd::strconv::quote(&f)
            )
        })
        .collect();
    w.extend(list_type_set_warnings(crd));
    w
}

/// `strategy.WarningsOnUpdate`: warnings for what the update newly introduces.
pub fn warnings_on_update(new: &InternalCrd, old: &InternalCrd) -> Vec<String> {
    let old_formats: BTreeSet<String> = unrecognized_formats(old).into_iter().collect();
    let mut w: Vec<String> = unrecognized_formats(new)
        .into_iter()
        .filter(|f| !old_formats.contains(f))
        .map(|f| {
            format!(
                "unrecognized format {}",
                crd_studio_gostd::strconv::quote(&f)
            )
        })
        .collect();
    let old_sets: BTreeSet<String> = list_type_set_warnings(old).into_iter().collect();
    w.extend(
        list_type_set_warnings(new)
            .into_iter()
            .filter(|x| !old_sets.contains(x)),
    );
    w
}

#[cfg(test)]
mod tests {
    #[test]
    fn use_example() {
        let v1 = serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"plural": "widgets", "kind": "Widget"},
                     "versions": [{"name": "v1", "served": true, "storage": true,
                                   "schema": {"openAPIV3Schema": {"type": "object",
                                              "properties": {"spec": {}}}}}]}
        });
        let (crd, decode_problems) = super::from_v1_json(&v1);
        assert!(decode_problems.is_empty());
        let errors = super::validate_create(&crd, super::Hooks::default());
        assert_eq!(
            errors[0].field.to_string(),
            "spec.validation.openAPIV3Schema.properties[spec].type"
        );
        // Where that is in the user's text:
        let v1_path = super::v1_path(&errors[0].field, Some(&v1));
        assert_eq!(
            v1_path.to_string(),
            "spec.versions[0].schema.openAPIV3Schema.properties.spec.type"
        );
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn condition_for_non_structural_versions() {
        assert_eq!(
            non_structural_schema_condition(&json!({"spec": {"preserveUnknownFields": false}})),
            None
        );
        let c = non_structural_schema_condition(&json!({"spec": {"versions": [
            {"name": "v1", "schema": {"openAPIV3Schema": {"type": "object", "properties": {"a": {}}}}}
        ]}}))
        .unwrap();
        assert_eq!(c.reason, "Violations");
        assert_eq!(c.message, "spec.versions[0].schema.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields");
    }

    #[test]
    fn warnings() {
        let (crd, _) = from_v1_json(&json!({
            "spec": {"versions": [{"name": "v1", "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object", "properties": {
                    "a": {"type": "string", "format": "date-time"},
                    "b": {"type": "string", "format": "ip"},
                    "c": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}}}}}}]}
        }));
        assert_eq!(
            warnings_on_create(&crd),
            vec![
                "unrecognized format \"ip\"".to_owned(),
                "x-kubernetes-list-type: set for items of type \"object\" is not supported by server-side apply or CEL validation rules".to_owned(),
            ]
        );
    }
}
