//! The `crd-validation/` cases: `validation_test.go` of `pkg/apis/apiextensions/validation`,
//! run on the internal CRD model exactly as the Go tests call the functions: internal CRDs
//! (the data's v1beta1-style shape) straight into `ValidateCustomResourceDefinition(Update)`,
//! schemas into `validateCustomResourceDefinitionValidation` with the test's options.

use serde_json::Value;

use super::{fail, skip, Problem};
use crate::cel::RuleCompiler;
use crate::crd::apiext::{
    self, field_path::valid_field_path, internal::CustomResourceValidation, Hooks, InternalCrd,
    ValidationOptions,
};
use crate::documents::field_error::FieldError;
use crate::documents::path::FieldPath;
use crate::schema::{JsonSchemaProps, Structural};
use crate::{FieldErrorReport, KubernetesVersion};

/// The CEL rule compiler the CRD cases share (its base environments are built once; its
/// version is the server's default).
pub struct CrdCompiler {
    cel: RuleCompiler,
}

impl Default for CrdCompiler {
    fn default() -> CrdCompiler {
        CrdCompiler {
            cel: RuleCompiler::new(KubernetesVersion::DEFAULT),
        }
    }
}

impl CrdCompiler {
    /// The hooks the cases run with: default values validated with the engine's OpenAPI
    /// validation (without CEL); rules compiled with the engine's CEL compiler.
    fn hooks<'a>(&'a self, defaults: &'a apiext::defaults::DefaultsValidation<'a>) -> Hooks<'a> {
        Hooks {
            cel: Some(&self.cel),
            defaults: Some(defaults),
        }
    }

    /// `ValidateCustomResourceDefinition` of an internal CRD, after the create tests' own
    /// preparation (webhook conversion without review versions gets `["v1beta1"]`).
    pub fn validate_crd(&self, crd: &Value) -> Result<Vec<FieldErrorReport>, Problem> {
        let mut crd = internal_crd(crd)?;
        if let Some(c) = crd.spec.conversion.as_mut() {
            if c.strategy == "Webhook" && c.conversion_review_versions.is_empty() {
                c.conversion_review_versions = vec!["v1beta1".to_owned()];
            }
        }
        let defaults = apiext::defaults::DefaultsValidation::without_cel();
        Ok(reports(&apiext::validate_crd(&crd, self.hooks(&defaults))))
    }

    /// `ValidateCustomResourceDefinitionUpdate` of two internal CRDs.
    pub fn validate_crd_update(
        &self,
        new: &Value,
        old: &Value,
    ) -> Result<Vec<FieldErrorReport>, Problem> {
        let new = internal_crd(new)?;
        let old = internal_crd(old)?;
        let defaults = apiext::defaults::DefaultsValidation::without_cel();
        Ok(reports(&apiext::validate_crd_update(
            &new,
            &old,
            self.hooks(&defaults),
        )))
    }

    /// `validateCustomResourceDefinitionValidation` of a schema (`null`: none) under the path
    /// `prefix`, with the status flag and the test's options (Go field names).
    pub fn schema_validation(
        &self,
        schema: &Value,
        prefix: &str,
        status_enabled: bool,
        options: &Value,
    ) -> Result<Vec<FieldErrorReport>, Problem> {
        let props = read_schema(schema)?;
        let validation = CustomResourceValidation {
            open_api_v3_schema: props.map(Box::new),
        };
        let defaults = apiext::defaults::DefaultsValidation::without_cel();
        Ok(reports(&apiext::validate_crd_validation(
            Some(&validation),
            status_enabled,
            &validation_options(options),
            &FieldPath::parse(prefix),
            self.hooks(&defaults),
        )))
    }
}

/// The engine's errors as the comparison wants them (an empty field is Go's `<nil>`).
pub(crate) fn reports(errors: &[FieldError]) -> Vec<FieldErrorReport> {
    errors
        .iter()
        .map(|e| {
            let field = e.field.to_string();
            FieldErrorReport {
                error_type: e.error_type,
                field: if field.is_empty() {
                    "<nil>".to_owned()
                } else {
                    field
                },
                detail: e.detail.clone(),
                error: e.error(),
                line: None,
                column: None,
            }
        })
        .collect()
}

/// An internal CRD of the data; a CRD the engine cannot decode is a failure.
fn internal_crd(v: &Value) -> Result<InternalCrd, Problem> {
    let (crd, problems) = apiext::from_internal_json(v);
    if let Some(p) = problems.iter().find(|p| !p.unknown_field) {
        return fail(format!(
            "the engine cannot read the CRD: {}: {}",
            p.path, p.message
        ));
    }
    if let Some(p) = problems.first() {
        return skip(format!(
            "the case's CRD has a field the model does not know: {}",
            p.path
        ));
    }
    Ok(crd)
}

/// A schema of the data (`null`: none).
fn read_schema(v: &Value) -> Result<Option<JsonSchemaProps>, Problem> {
    if v.is_null() {
        return Ok(None);
    }
    let (props, errors) = JsonSchemaProps::from_json(v);
    if let Some(e) = errors.first() {
        return fail(format!(
            "the engine cannot read the schema: {}: {}",
            e.path, e.message
        ));
    }
    Ok(Some(props))
}

/// `validationOptions` from the test's Go field names.
fn validation_options(v: &Value) -> ValidationOptions {
    let b = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
    ValidationOptions {
        allow_defaults: b("allowDefaults"),
        disallow_defaults_reason: v
            .get("disallowDefaultsReason")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        require_recognized_conversion_review_version: b("requireRecognizedConversionReviewVersion"),
        require_immutable_names: b("requireImmutableNames"),
        require_open_api_schema: b("requireOpenAPISchema"),
        require_valid_property_type: b("requireValidPropertyType"),
        require_structural_schema: b("requireStructuralSchema"),
        require_pruned_defaults: b("requirePrunedDefaults"),
        require_atomic_set_type: b("requireAtomicSetType"),
        require_map_list_keys_map_set_validation: b("requireMapListKeysMapSetValidation"),
        cel_environment_version: v
            .get("celEnvironmentCompatibilityVersion")
            .and_then(Value::as_str)
            .map(str::to_owned),
        allow_invalid_ca_bundle: b("allowInvalidCABundle"),
        ..ValidationOptions::default()
    }
}

/// `ValidateCustomResourceDefinitionStoredVersions` of the versions (`name`, `served`,
/// `storage` each) and the stored version names.
pub fn stored_versions(spec_versions: &Value, stored: &Value) -> Vec<FieldErrorReport> {
    let versions: Vec<apiext::internal::CrdVersion> = spec_versions
        .as_array()
        .map(|a| {
            a.iter()
                .map(|v| apiext::internal::CrdVersion {
                    name: v
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    storage: v.get("storage").and_then(Value::as_bool).unwrap_or(false),
                    served: v.get("served").and_then(Value::as_bool).unwrap_or(false),
                    ..apiext::internal::CrdVersion::default()
                })
                .collect()
        })
        .unwrap_or_default();
    let stored: Vec<String> = stored
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    reports(&apiext::validate_stored_versions(
        &stored,
        &versions,
        &FieldPath::new("status").child("storedVersions"),
    ))
}

/// `ValidFieldPath(path, schema)` with `allowMetadata`: the resolved path or the error text.
/// A nil schema is skipped; one the engine cannot make structural fails.
pub fn field_path(schema: &Value, path: &str) -> Result<Result<String, String>, Problem> {
    let Some(props) = read_schema(schema)? else {
        return skip("nil schema");
    };
    let ss = match Structural::from_props(&props) {
        Ok(s) => s,
        Err(e) => {
            return fail(format!(
                "the engine cannot make the schema structural: {}",
                e.0
            ))
        }
    };
    Ok(valid_field_path(path, &ss, true).map(|(resolved, _)| resolved.to_string()))
}

/// `validateDeprecationWarning(deprecated, warning)`: the messages.
pub fn deprecation_warning(deprecated: bool, warning: Option<&str>) -> Vec<String> {
    apiext::validate_deprecation_warning(deprecated, warning)
}
