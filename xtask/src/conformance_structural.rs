//! The `structural/` checker: structural-schema rules (`pkg/apiserver/schema/validation.go`,
//! `complete.go`), the NonStructuralSchema condition, and the `requireStructuralSchema`
//! subset of the CRD schema validation cases.

use crd_studio_engine::crd::apiext::{self, structural_validation as sv};
use crd_studio_engine::documents::path::FieldPath;
use crd_studio_engine::schema::{JsonSchemaProps, Structural};
use serde_json::{json, Value};

use super::conformance_crd::{reports, schema_validation};
use super::{expect, fail, Case, Checked, Ctx, Problem};

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

/// The `structural/` area.
pub(super) fn check(ctx: &mut Ctx, case: &Case) -> Checked {
    match ctx.test.as_str() {
        "crd_validation_requireStructuralSchema.subset" => schema_validation(case),
        "validation_test.TestValidateStructuralCompleteness" => {
            let s = structural(case.schema())?;
            let o = case.input("options")?;
            let b = |k: &str| o.get(k).and_then(Value::as_bool).unwrap_or(false);
            let opts = sv::StructuralOptions {
                allow_nested_additional_properties: b("AllowNestedAdditionalProperties"),
                allow_nested_x_validations: b("AllowNestedXValidations"),
                allow_validation_properties_with_additional_properties: b(
                    "AllowValidationPropertiesWithAdditionalProperties",
                ),
            };
            let errors = reports(&sv::validate_structural_completeness(
                &FieldPath::root(),
                &s,
                opts,
            ));
            if case.expect_opt("valid").and_then(Value::as_bool) == Some(true) {
                return expect::no_errors(&errors);
            }
            match case.expect_opt("errorContains").and_then(Value::as_str) {
                Some(sub) if !errors.iter().any(|e| e.error.contains(sub)) => fail(format!(
                    "no error contains {sub:?}: {}",
                    expect::show_errors(&errors)
                )),
                Some(_) => Ok(()),
                None if errors.is_empty() => fail("no errors, want some"),
                None => Ok(()),
            }
        }
        "validation_test.TestValidateStructuralMetadataInvariants" => {
            let s = structural(case.schema())?;
            let level = match case.input_opt("level").and_then(Value::as_str) {
                Some("item") | Some("itemLevel") => sv::Level::Item,
                Some("field") | Some("fieldLevel") => sv::Level::Field,
                _ => sv::Level::Root,
            };
            let errors = reports(&sv::validate_structural_metadata_invariants(
                &s,
                case.input_bool("checkMetadata", true),
                level,
                &FieldPath::root(),
            ));
            let want = case.expect("hasErrors")?.as_bool().unwrap_or(false);
            if want == errors.is_empty() {
                return fail(format!(
                    "hasErrors {want}, got {}",
                    expect::show_errors(&errors)
                ));
            }
            Ok(())
        }
        "nonstructuralschema_controller_test.Test_calculateCondition" => {
            let got = apiext::non_structural_schema_condition(case.input("crd")?).map(|c| {
                json!({"type": c.type_, "status": c.status, "reason": c.reason, "message": c.message})
            });
            match (case.expect("condition")?, got) {
                (Value::Null, None) => Ok(()),
                (Value::Null, Some(c)) => fail(format!("unexpected condition {c}")),
                (want, None) => fail(format!("no condition, want {want}")),
                (want, Some(got)) => expect::json_subset("condition", want, &got),
            }
        }
        _ => ctx.unknown_test("structural"),
    }
}
