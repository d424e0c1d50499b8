//! The `crd-validation/` checker: the cases of `validation_test.go` of
//! `pkg/apis/apiextensions/validation`, run on the engine's internal CRD model
//! ([`crd_studio_engine::crd::apiext`]) exactly as the Go tests call the functions: internal CRDs
//! (the data's v1beta1-style shape) straight into `ValidateCustomResourceDefinition(Update)`,
//! schemas into `validateCustomResourceDefinitionValidation` with the test's options.

use crd_studio_engine::crd::apiext::{
    self, field_path::valid_field_path, internal::CustomResourceValidation, Hooks, InternalCrd,
    ValidationOptions,
};
use crd_studio_engine::documents::field_error::FieldError;
use crd_studio_engine::documents::path::FieldPath;
use crd_studio_engine::schema::{JsonSchemaProps, Structural};
use crd_studio_engine::FieldErrorReport;
use serde_json::{json, Value};

use super::{expect, fail, skip, Case, Checked, Ctx, Problem};

thread_local! {
    /// The CEL rule compiler the cases share (its base environments are built once); the
    /// compiler's default version is the server's default (1.36).
    static CEL: &'static crd_studio_engine::cel::RuleCompiler =
        Box::leak(Box::new(crd_studio_engine::cel::RuleCompiler::new(crd_studio_engine::KubernetesVersion::DEFAULT)));
}

/// The hooks the cases run with: default values validated with the engine's OpenAPI
/// validation (without CEL); rules compiled with the engine's CEL compiler.
fn hooks<'a>(defaults: &'a apiext::defaults::DefaultsValidation<'a>) -> Hooks<'a> {
    Hooks {
        cel: Some(CEL.with(|c| *c)),
        defaults: Some(defaults),
    }
}

/// The engine's errors as the comparison wants them.
pub(super) fn reports(errors: &[FieldError]) -> Vec<FieldErrorReport> {
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
fn schema(v: &Value) -> Result<Option<JsonSchemaProps>, Problem> {
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
fn options(v: &Value) -> ValidationOptions {
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

/// `validateCustomResourceDefinitionValidation` with the case's schema, status flag and
/// options (also used by the `structural/` subset).
pub(super) fn schema_validation(case: &Case) -> Checked {
    let props = schema(case.schema())?;
    let prefix = case
        .input_opt("fieldPathPrefix")
        .and_then(Value::as_str)
        .unwrap_or("spec.validation");
    let validation = CustomResourceValidation {
        open_api_v3_schema: props.map(Box::new),
    };
    let errors = apiext::validate_crd_validation(
        Some(&validation),
        case.input_bool("statusEnabled", false),
        &options(case.input("options")?),
        &FieldPath::parse(prefix),
        hooks(&apiext::defaults::DefaultsValidation::without_cel()),
    );
    expect::field_errors_multiset(case.expect_array("errors")?, &reports(&errors))
}

/// The create tests' own preparation: webhook conversion without review versions gets
/// `["v1beta1"]`.
fn create_test_defaults(crd: &mut InternalCrd) {
    if let Some(c) = crd.spec.conversion.as_mut() {
        if c.strategy == "Webhook" && c.conversion_review_versions.is_empty() {
            c.conversion_review_versions = vec!["v1beta1".to_owned()];
        }
    }
}

fn stored_versions(case: &Case) -> Checked {
    let versions: Vec<apiext::internal::CrdVersion> = case
        .input("specVersions")?
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
    let stored: Vec<String> = case
        .input("storedVersions")?
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let errors = apiext::validate_stored_versions(
        &stored,
        &versions,
        &FieldPath::new("status").child("storedVersions"),
    );
    expect::field_errors_multiset(case.expect_array("errors")?, &reports(&errors))
}

fn field_path(case: &Case) -> Checked {
    let Some(props) = schema(case.schema())? else {
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
    let path = case.input_str("fieldPath")?;
    let valid = case.expect("valid")?.as_bool().unwrap_or(false);
    match valid_field_path(path, &ss, true) {
        Ok((resolved, _)) if !valid => {
            fail(format!("accepted (resolved to {resolved}), want an error"))
        }
        Ok(_) => Ok(()),
        Err(e) if valid => fail(format!("rejected: {e}")),
        Err(e) => match case.expect_opt("errorContains").and_then(Value::as_str) {
            Some(sub) if !e.contains(sub) => fail(format!("error {e:?} does not contain {sub:?}")),
            _ => Ok(()),
        },
    }
}

/// The `crd-validation/` area.
pub(super) fn check(ctx: &mut Ctx, case: &Case) -> Checked {
    match ctx.test.as_str() {
        "validation_test.TestValidateCustomResourceDefinition"
        | "validation_test.TestSelectableFields" => {
            let mut crd = internal_crd(case.input("crd")?)?;
            create_test_defaults(&mut crd);
            let errors = apiext::validate_crd(
                &crd,
                hooks(&apiext::defaults::DefaultsValidation::without_cel()),
            );
            expect::field_errors_multiset(case.expect_array("errors")?, &reports(&errors))
        }
        "validation_test.TestValidateCustomResourceDefinitionUpdate" => {
            let new = internal_crd(case.input("crd")?)?;
            let old = internal_crd(case.input("oldCrd")?)?;
            let errors = apiext::validate_crd_update(
                &new,
                &old,
                hooks(&apiext::defaults::DefaultsValidation::without_cel()),
            );
            expect::field_errors_multiset(case.expect_array("errors")?, &reports(&errors))
        }
        "validation_test.TestValidateCustomResourceDefinitionValidation" => schema_validation(case),
        "validation_test.TestValidateCustomResourceDefinitionStoredVersions" => {
            stored_versions(case)
        }
        "validation_test.TestValidateFieldPath" => field_path(case),
        "validation_test.Test_validateDeprecationWarning" => {
            let got = apiext::validate_deprecation_warning(
                case.input_bool("deprecated", false),
                case.input_opt("deprecationWarning").and_then(Value::as_str),
            );
            expect::json_eq(
                "messages",
                &json!(case.expect_strings("errorMessages")?),
                &json!(got),
            )
        }
        _ => ctx.unknown_test("crd-validation"),
    }
}
