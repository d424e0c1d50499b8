//! The `crd-validation/` checker: the cases of `validation_test.go` of
//! `pkg/apis/apiextensions/validation`, run through the engine's harness functions
//! ([`crd_studio_engine::conformance::crd`]) exactly as the Go tests call the functions:
//! internal CRDs (the data's v1beta1-style shape) straight into
//! `ValidateCustomResourceDefinition(Update)`, schemas into
//! `validateCustomResourceDefinitionValidation` with the test's options.

use crd_studio_engine::conformance::crd::{self, CrdCompiler};
use serde_json::{json, Value};

use super::{expect, fail, Case, Checked, Ctx};

thread_local! {
    /// The compiler the cases share (its CEL base environments are built once).
    static COMPILER: &'static CrdCompiler = Box::leak(Box::default());
}

fn compiler() -> &'static CrdCompiler {
    COMPILER.with(|c| *c)
}

/// `validateCustomResourceDefinitionValidation` with the case's schema, status flag and
/// options (also used by the `structural/` subset).
pub(super) fn schema_validation(case: &Case) -> Checked {
    let prefix = case
        .input_opt("fieldPathPrefix")
        .and_then(Value::as_str)
        .unwrap_or("spec.validation");
    let errors = compiler().schema_validation(
        case.schema(),
        prefix,
        case.input_bool("statusEnabled", false),
        case.input("options")?,
    )?;
    expect::field_errors_multiset(case.expect_array("errors")?, &errors)
}

fn field_path(case: &Case) -> Checked {
    let path = case.input_str("fieldPath")?;
    let got = crd::field_path(case.schema(), path)?;
    let valid = case.expect("valid")?.as_bool().unwrap_or(false);
    match got {
        Ok(resolved) if !valid => fail(format!("accepted (resolved to {resolved}), want an error")),
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
            let errors = compiler().validate_crd(case.input("crd")?)?;
            expect::field_errors_multiset(case.expect_array("errors")?, &errors)
        }
        "validation_test.TestValidateCustomResourceDefinitionUpdate" => {
            let errors =
                compiler().validate_crd_update(case.input("crd")?, case.input("oldCrd")?)?;
            expect::field_errors_multiset(case.expect_array("errors")?, &errors)
        }
        "validation_test.TestValidateCustomResourceDefinitionValidation" => schema_validation(case),
        "validation_test.TestValidateCustomResourceDefinitionStoredVersions" => {
            let errors =
                crd::stored_versions(case.input("specVersions")?, case.input("storedVersions")?);
            expect::field_errors_multiset(case.expect_array("errors")?, &errors)
        }
        "validation_test.TestValidateFieldPath" => field_path(case),
        "validation_test.Test_validateDeprecationWarning" => {
            let got = crd::deprecation_warning(
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
