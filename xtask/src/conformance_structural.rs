//! The `structural/` checker: structural-schema rules (`pkg/apiserver/schema/validation.go`,
//! `complete.go`), the NonStructuralSchema condition, and the `requireStructuralSchema`
//! subset of the CRD schema validation cases.

use crd_studio_engine::conformance::structural;
use serde_json::Value;

use super::conformance_crd::schema_validation;
use super::{expect, fail, Case, Checked, Ctx};

/// The `structural/` area.
pub(super) fn check(ctx: &mut Ctx, case: &Case) -> Checked {
    match ctx.test.as_str() {
        "crd_validation_requireStructuralSchema.subset" => schema_validation(case),
        "validation_test.TestValidateStructuralCompleteness" => {
            let schema = case.schema();
            let errors = structural::completeness(schema, case.input("options")?)?;
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
            let errors = structural::metadata_invariants(
                case.schema(),
                case.input_bool("checkMetadata", true),
                case.input_opt("level").and_then(Value::as_str),
            )?;
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
            let got = structural::non_structural_condition(case.input("crd")?);
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
