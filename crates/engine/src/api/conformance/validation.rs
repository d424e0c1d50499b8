//! The conformance cases of `validation/` (OpenAPI validation of objects, `ValidateCustomResource`
//! with `NewSchemaValidatorForVersion`), `listtype/` (`ValidateListSetsAndMaps`) and
//! `ratcheting/` (`NewRatchetingSchemaValidator(...).ValidateUpdate(..., WithRatcheting(nil))`).

use crate::cel::validator::{ValidateOptions, Validator};
use crate::documents::path::FieldPath;
use crate::object::listtype;
use crate::object::validation::{Options, SchemaValidator};
use crate::schema::{JsonSchemaProps, Structural};
use crate::FieldErrorReport;
use crate::KubernetesVersion;
use serde_json::Value;

use super::crd::reports;
use super::{fail, Problem};

fn props(schema: &Value) -> Result<JsonSchemaProps, Problem> {
    let (p, errors) = JsonSchemaProps::from_json(schema);
    if let Some(e) = errors.iter().find(|e| !e.unknown_field) {
        return fail(format!(
            "the engine cannot read the schema: {}: {}",
            e.path, e.message
        ));
    }
    Ok(p)
}

/// Whether a schema holds CEL rules anywhere.
fn has_cel_rules(v: &Value) -> bool {
    let mut stack = vec![v];
    while let Some(x) = stack.pop() {
        match x {
            Value::Object(m) => {
                if m.get("x-kubernetes-validations")
                    .and_then(Value::as_array)
                    .is_some_and(|a| !a.is_empty())
                {
                    return true;
                }
                stack.extend(m.values());
            }
            Value::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
    false
}

/// The `Error()` texts of `ValidateCustomResource(nil, object, validator)`, then those of
/// `cel.NewValidator(NewStructural(schema), false, PerCallLimit).Validate(nil, object, old,
/// RuntimeCELCostBudget)`.
pub fn validate_custom_resource(
    schema: &Value,
    object: &Value,
    old: Option<&Value>,
    compat: Option<&str>,
) -> Result<Vec<String>, Problem> {
    let mut out = openapi_errors(schema, object, compat)?;
    if schema.is_null() {
        return Ok(out);
    }
    let structural = match Structural::from_props(&props(schema)?) {
        Ok(s) => s,
        // A schema without rules needs no structural form (only OpenAPI validation runs).
        Err(_) if !has_cel_rules(schema) => return Ok(out),
        Err(e) => {
            return fail(format!(
                "the engine cannot make the schema structural: {}",
                e.0
            ))
        }
    };
    if let Some(v) = Validator::new(
        std::sync::Arc::new(structural),
        false,
        crate::cel::validator::PER_CALL_LIMIT,
    ) {
        let run = v.validate(
            &FieldPath::root(),
            object,
            old,
            crate::cel::validator::RUNTIME_CEL_COST_BUDGET,
            ValidateOptions::default(),
        );
        out.extend(run.errors.iter().map(|e| e.error()));
    }
    Ok(out)
}

/// The OpenAPI part: `ValidateCustomResource(nil, object, NewSchemaValidatorForVersion(...))`.
fn openapi_errors(
    schema: &Value,
    object: &Value,
    compat: Option<&str>,
) -> Result<Vec<String>, Problem> {
    let version = match compat {
        None => KubernetesVersion::DEFAULT.compatibility(),
        Some(text) => match KubernetesVersion::parse_any(text) {
            Some(v) => v,
            None => return fail(format!("unreadable compatibilityVersion {text:?}")),
        },
    };
    let options = Options {
        compatibility_version: version,
    };
    let validator = if schema.is_null() {
        SchemaValidator::new(None, &options)
    } else {
        SchemaValidator::new(Some(&props(schema)?), &options)
    };
    Ok(validator
        .validate(&FieldPath::root(), object)
        .iter()
        .map(|e| e.error())
        .collect())
}

/// `ValidateListSetsAndMaps(path "root", schema, object)`.
pub fn validate_list_sets_and_maps(
    schema: &Value,
    object: &Value,
) -> Result<Vec<FieldErrorReport>, Problem> {
    let s = if schema.is_null() {
        None
    } else {
        let p = props(schema)?;
        match Structural::from_props(&p) {
            Ok(s) => Some(s),
            Err(e) => {
                return fail(format!(
                    "the engine cannot make the schema structural: {}",
                    e.0
                ))
            }
        }
    };
    let errors = listtype::validate_list_sets_and_maps(
        &FieldPath::new("root"),
        s.as_ref(),
        object.as_object(),
    );
    Ok(reports(&errors))
}

/// `NewRatchetingSchemaValidator(schema).ValidateUpdate(object, old, WithRatcheting(nil))
/// .IsValid()`, the schema being a kube-openapi `spec.Schema` as written.
pub fn ratcheting_validate_update(
    schema: &Value,
    object: &Value,
    old: &Value,
) -> Result<bool, Problem> {
    let validator = SchemaValidator::from_openapi(&props(schema)?);
    Ok(validator
        .validate_update(&FieldPath::root(), object, old, true)
        .is_empty())
}
