//! The `structural/` cases: structural-schema rules (`pkg/apiserver/schema/validation.go`,
//! `complete.go`) and the NonStructuralSchema condition.

use serde_json::{json, Value};

use super::crd::reports;
use super::{fail, Problem};
use crate::crd::apiext::{self, structural_validation as sv};
use crate::documents::path::FieldPath;
use crate::schema::{JsonSchemaProps, Structural};
use crate::FieldErrorReport;

fn structural(v: &Value) -> Result<Structural, Problem> {
    let (props, errors) = JsonSchemaProps::from_json(v);
    if let Some(e) = errors.first() {
        return fail(format!(
            "the engine cannot read the schema: {}: {}",
            e.path, e.message
        ));
    }
    Structural::from_props(&props).or_else(|e| {
        fail(format!(
            "the engine cannot make the schema structural: {}",
            e.0
        ))
    })
}

/// `validateStructuralCompleteness(path root, schema, options)` with the test's options (Go
/// field names).
pub fn completeness(schema: &Value, options: &Value) -> Result<Vec<FieldErrorReport>, Problem> {
    let s = structural(schema)?;
    let b = |k: &str| options.get(k).and_then(Value::as_bool).unwrap_or(false);
    let opts = sv::StructuralOptions {
        allow_nested_additional_properties: b("AllowNestedAdditionalProperties"),
        allow_nested_x_validations: b("AllowNestedXValidations"),
        allow_validation_properties_with_additional_properties: b(
            "AllowValidationPropertiesWithAdditionalProperties",
        ),
    };
    Ok(reports(&sv::validate_structural_completeness(
        &FieldPath::root(),
        &s,
        opts,
    )))
}

/// `validateStructuralMetadataInvariants(schema, checkMetadata, level, path root)`; `level`
/// is `item`/`itemLevel`, `field`/`fieldLevel`, or else the root level.
pub fn metadata_invariants(
    schema: &Value,
    check_metadata: bool,
    level: Option<&str>,
) -> Result<Vec<FieldErrorReport>, Problem> {
    let s = structural(schema)?;
    let level = match level {
        Some("item") | Some("itemLevel") => sv::Level::Item,
        Some("field") | Some("fieldLevel") => sv::Level::Field,
        _ => sv::Level::Root,
    };
    Ok(reports(&sv::validate_structural_metadata_invariants(
        &s,
        check_metadata,
        level,
        &FieldPath::root(),
    )))
}

/// `calculateCondition(crd)` of the NonStructuralSchema controller: the condition (`type`,
/// `status`, `reason`, `message`), or `None`.
pub fn non_structural_condition(crd: &Value) -> Option<Value> {
    apiext::non_structural_schema_condition(crd).map(
        |c| json!({"type": c.type_, "status": c.status, "reason": c.reason, "message": c.message}),
    )
}
