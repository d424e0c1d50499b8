//! The conformance checkers: one per area of `../shared/conformance`, dispatching on the test
//! where the README gives a file its own `expect` semantics; each reads its case, asks the
//! engine's harness functions and compares with the matchers of `conformance_expect.rs`.

use super::engine::{self, CelRequest, ExprEnv};
use super::expect;
use super::*;

/// `PerCallLimit` (k8s.io/apiserver/pkg/apis/cel/config.go).
const PER_CALL_LIMIT: u64 = 1_000_000;
/// `RuntimeCELCostBudget`.
const RUNTIME_BUDGET: i64 = 10_000_000;

pub(super) fn cel_cost(ctx: &mut Ctx, case: &Case) -> Checked {
    match ctx.test.as_str() {
        "celcoststability_test" => {
            if let Some(want) = case.expect_opt("runtimeCost") {
                let run = engine::cel_validate(&CelRequest {
                    schema: case.schema(),
                    object: case.input("object")?,
                    old_object: None,
                    is_resource_root: true,
                    cost_budget: RUNTIME_BUDGET,
                    per_call_limit: PER_CALL_LIMIT,
                    ratcheting: false,
                })?;
                expect::field_errors_multiset(case.expect_array("errors")?, &run.errors)?;
                expect::json_eq(
                    "runtime cost",
                    want,
                    &json!(RUNTIME_BUDGET - run.remaining_budget),
                )
            } else if let Some(want) = case.expect_opt("estimatedMaxCost") {
                let rules = engine::compile_rules(case.schema(), false, ExprEnv::New)?;
                let rule = only_rule(&rules, true)?;
                if let Some(e) = &rule.error {
                    return fail(format!("compile error: {e}"));
                }
                expect::json_eq("estimated max cost", want, &json!(rule.max_cost))
            } else {
                skip("expect has neither runtimeCost nor estimatedMaxCost")
            }
        }
        "compilation_test.TestCostEstimation" => {
            let rules = engine::compile_rules(case.schema(), false, ExprEnv::New)?;
            let rule = only_rule(&rules, false)?;
            let want_errors = case.expect_strings("compileErrors")?;
            let got_errors: Vec<String> = rule.error.iter().map(ToString::to_string).collect();
            if want_errors.is_empty() {
                if let Some(e) = got_errors.first() {
                    return fail(format!("compile error: {e}"));
                }
            } else {
                expect::each_contained_somewhere(&want_errors, &got_errors)?;
            }
            if let Some(at_least) = case.expect_opt("estimatedMaxCostAtLeast") {
                let min = at_least.as_u64().unwrap_or(u64::MAX);
                if rule.max_cost < min {
                    return fail(format!("max cost {} < {min}", rule.max_cost));
                }
                Ok(())
            } else if case.expect_opt("unchecked") == Some(&Value::Bool(true)) {
                Ok(()) // the Go test skips the comparison when it expects 0
            } else {
                expect::json_eq(
                    "estimated max cost",
                    case.expect("estimatedMaxCost")?,
                    &json!(rule.max_cost),
                )
            }
        }
        "validation_test.TestCostInfo" => {
            let Some(chain) = case.schema().as_array() else {
                return skip("schema is not the list of nested schemas");
            };
            let got = engine::max_cardinality(chain)?;
            expect::json_eq(
                "max cardinality",
                case.expect("maxCardinality")?,
                &json!(got),
            )
        }
        "validation_test.TestPerCRDEstimatedCost" => {
            let costs: Vec<u64> = case
                .input("expressionCosts")?
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default();
            let (total, most) = engine::per_crd_estimated_cost(&costs)?;
            expect::json_eq("total", case.expect("total")?, &json!(total))?;
            expect::json_eq(
                "most expensive",
                case.expect("mostExpensive")?,
                &json!(most),
            )
        }
        _ => ctx.unknown_test("cel-cost"),
    }
}

/// The one rule of a schema (at the root when `root_only`).
fn only_rule(
    rules: &[engine::CompiledRule],
    root_only: bool,
) -> Result<&engine::CompiledRule, Problem> {
    let rules: Vec<&engine::CompiledRule> = rules
        .iter()
        .filter(|r| !root_only || r.schema_path.is_empty())
        .collect();
    match rules.as_slice() {
        [rule] => Ok(rule),
        _ => fail(format!(
            "expected exactly one compiled rule, got {}",
            rules.len()
        )),
    }
}

pub(super) fn pruning(ctx: &mut Ctx, case: &Case) -> Checked {
    match ctx.test.as_str() {
        "algorithm_test" => {
            let (object, paths) = engine::prune(
                case.schema(),
                case.input("object")?,
                case.input_bool("isResourceRoot", false),
            )?;
            expect::json_eq("pruned object", case.expect("object")?, &object)?;
            expect::json_eq("pruned paths", case.expect("prunedPaths")?, &json!(paths))
        }
        _ => ctx.unknown_test("pruning"),
    }
}

pub(super) fn defaulting(ctx: &mut Ctx, case: &Case) -> Checked {
    match ctx.test.as_str() {
        "algorithm_test" => {
            let got = engine::default(case.schema(), case.input("object")?)?;
            expect::json_eq("defaulted object", case.expect("object")?, &got)
        }
        "prunenulls_test" => {
            let got = engine::prune_non_nullable_nulls(case.schema(), case.input("object")?)?;
            expect::json_eq("object", case.expect("object")?, &got)
        }
        "validation_test" => {
            let type_meta = case.input("rootTypeMeta")?;
            let prefix = case
                .input_opt("pathPrefix")
                .and_then(Value::as_str)
                .unwrap_or("");
            if let Some(by_budget) = case.expect_opt("byCostBudget") {
                for entry in by_budget.as_array().map(Vec::as_slice).unwrap_or_default() {
                    let budget = entry
                        .get("costBudget")
                        .and_then(Value::as_i64)
                        .unwrap_or(RUNTIME_BUDGET);
                    let errors =
                        engine::validate_defaults(case.schema(), type_meta, prefix, budget)
                            .map_err(|p| with_context(p, &format!("budget {budget}")))?;
                    check_budget_entry(entry, &errors)
                        .map_err(|p| with_context(p, &format!("budget {budget}")))?;
                }
                Ok(())
            } else {
                let budget = case.input_i64("costBudget", RUNTIME_BUDGET);
                let errors = engine::validate_defaults(case.schema(), type_meta, prefix, budget)?;
                let want = case.expect_strings("errorsContain")?;
                let got: Vec<String> = errors.iter().map(|e| e.error.clone()).collect();
                expect::each_contains_one_of(&got, &want)?;
                expect::each_contained_somewhere(&want, &got)
            }
        }
        _ => ctx.unknown_test("defaulting"),
    }
}

fn check_budget_entry(entry: &Value, errors: &[FieldErrorReport]) -> Checked {
    if let Some(want) = entry.get("errors") {
        return expect::field_errors_multiset(
            want.as_array().map(Vec::as_slice).unwrap_or_default(),
            errors,
        );
    }
    let Some(counts) = entry
        .get("errorsContainingCount")
        .and_then(Value::as_object)
    else {
        return skip("byCostBudget entry has neither errors nor errorsContainingCount");
    };
    if let Some(t) = entry.get("errorType").and_then(Value::as_str) {
        expect::all_of_type(errors, t)?;
    }
    for (substring, n) in counts {
        let got = errors
            .iter()
            .filter(|e| e.error.contains(substring.as_str()))
            .count();
        if Some(got as u64) != n.as_u64() {
            return fail(format!(
                "{got} errors contain {substring:?}, want {n}; errors: {}",
                expect::show_errors(errors)
            ));
        }
    }
    Ok(())
}

fn with_context(p: Problem, context: &str) -> Problem {
    match p {
        Problem::Fail(r) => Problem::Fail(format!("{context}: {r}")),
        Problem::Skip(r) => Problem::Skip(format!("{context}: {r}")),
    }
}

pub(super) fn cel_eval(ctx: &mut Ctx, case: &Case) -> Checked {
    let test = ctx.test.as_str();
    if test.ends_with("TestValidateFieldPath") {
        return field_path(case, true);
    }
    const VALIDATOR_TESTS: &[&str] = &[
        "validation_test.TestValidationExpressions",
        "validation_test.TestCELMaxRecursionDepth",
        "validation_test.TestValidationExpressionsAtSchemaLevels",
        "validation_test.TestOptionalOldSelf",
        "validation_test.TestOptionalOldSelfIsOptionalType",
        "validation_test.TestOptionalOldSelfCheckForNull",
        "validation_test.TestReasonAndFldPath",
        "validation_test.TestMessageExpression",
        "validation_test.TestCELValidationLimit",
        "validation_test.TestRatcheting",
    ];
    if !VALIDATOR_TESTS.contains(&test) {
        return ctx.unknown_test("cel-eval");
    }
    let failing = case
        .expect_opt("errorsContain")
        .is_some_and(Value::is_string);
    let request = CelRequest {
        schema: case.schema(),
        object: case.input("object")?,
        old_object: case.input_opt("oldObject"),
        // The README: failing TestValidationExpressions cases run with isResourceRoot=true.
        is_resource_root: (failing && test == "validation_test.TestValidationExpressions")
            || case.input_bool("isResourceRoot", false),
        cost_budget: case.input_i64("costBudget", RUNTIME_BUDGET),
        per_call_limit: case
            .input_opt("perCallLimit")
            .and_then(Value::as_u64)
            .unwrap_or(PER_CALL_LIMIT),
        ratcheting: case.input_bool("ratcheting", false),
    };
    let wanted_type = case
        .expect_opt("errorType")
        .and_then(Value::as_str)
        .unwrap_or("FieldValueInvalid");
    match test {
        "validation_test.TestValidationExpressions"
        | "validation_test.TestCELMaxRecursionDepth" => {
            let run = engine::cel_validate(&request)?;
            if let Some(sub) = case.expect_opt("errorsContain").and_then(Value::as_str) {
                if run.errors.is_empty() {
                    return fail(format!("no errors, want one containing {sub:?}"));
                }
                expect::all_of_type(&run.errors, wanted_type)?;
                expect::all_contain(&run.errors, sub)
            } else {
                expect::field_errors_multiset(case.expect_array("errors")?, &run.errors)?;
                let cost = request.cost_budget - run.remaining_budget;
                if case.expect_opt("skipped") == Some(&Value::Bool(true)) && cost != 0 {
                    return fail(format!("the rule should not run, but cost {cost}"));
                }
                match case.expect_opt("runtimeCost") {
                    Some(want) => expect::json_eq("runtime cost", want, &json!(cost)),
                    None => Ok(()),
                }
            }
        }
        "validation_test.TestValidationExpressionsAtSchemaLevels"
        | "validation_test.TestOptionalOldSelf"
        | "validation_test.TestOptionalOldSelfIsOptionalType" => {
            let run = engine::cel_validate(&request)?;
            expect::all_of_type(&run.errors, wanted_type)?;
            let want = case.expect_strings("errorsContainUnordered")?;
            let got: Vec<String> = run.errors.iter().map(|e| e.error.clone()).collect();
            expect::consume_substrings(&want, &got)
        }
        "validation_test.TestOptionalOldSelfCheckForNull" => {
            let run = engine::cel_validate(&request)?;
            expect::field_errors_multiset(case.expect_array("errors")?, &run.errors)
        }
        "validation_test.TestReasonAndFldPath" => {
            let run = engine::cel_validate(&request)?;
            expect::field_errors_multiset(case.expect_array("errorsExact")?, &run.errors)
        }
        "validation_test.TestMessageExpression" => {
            let run = engine::cel_validate(&request)?;
            expect::count("errors", case.expect_opt("errorCount"), run.errors.len())?;
            if let Some(sub) = case.expect_opt("errorContains").and_then(Value::as_str) {
                expect::all_contain(&run.errors, sub)?;
            }
            let log = run.log.join("\n");
            if let Some(sub) = case.expect_opt("logContains").and_then(Value::as_str) {
                if !log.contains(sub) {
                    return fail(format!("log {log:?} does not contain {sub:?}"));
                }
            }
            if case.expect_opt("logEmpty") == Some(&Value::Bool(true)) && !log.is_empty() {
                return fail(format!("log should be empty: {log:?}"));
            }
            match case.expect_opt("remainingBudget") {
                Some(want) => {
                    expect::json_eq("remaining budget", want, &json!(run.remaining_budget))
                }
                None => Ok(()),
            }
        }
        "validation_test.TestCELValidationLimit" => {
            let run = engine::cel_validate(&request)?;
            expect::all_of_type(&run.errors, wanted_type)?;
            expect::count("errors", case.expect_opt("errorCount"), run.errors.len())?;
            if let Some(sub) = case
                .expect_opt("errorsContainExactlyOnce")
                .and_then(Value::as_str)
            {
                let n = run.errors.iter().filter(|e| e.error.contains(sub)).count();
                if n != 1 {
                    return fail(format!(
                        "{n} errors contain {sub:?}, want exactly 1: {}",
                        expect::show_errors(&run.errors)
                    ));
                }
            }
            if let Some(sub) = case.expect_opt("someErrorContains").and_then(Value::as_str) {
                if !run.errors.iter().any(|e| e.error.contains(sub)) {
                    return fail(format!(
                        "no error contains {sub:?}: {}",
                        expect::show_errors(&run.errors)
                    ));
                }
            }
            Ok(())
        }
        "validation_test.TestRatcheting" => {
            let run = engine::cel_validate(&request)?;
            expect::count("errors", case.expect_opt("errorCount"), run.errors.len())?;
            expect::count(
                "warnings",
                case.expect_opt("warningCount"),
                run.warnings.len(),
            )?;
            let errors: Vec<String> = run.errors.iter().map(|e| e.error.clone()).collect();
            expect::each_contained_somewhere(&case.expect_strings("errorsContain")?, &errors)?;
            for want in case.expect_strings("warningsExact")? {
                if !run.warnings.iter().any(|w| w == want) {
                    return fail(format!("no warning {want:?} in {:?}", run.warnings));
                }
            }
            Ok(())
        }
        _ => ctx.unknown_test("cel-eval"),
    }
}

/// `ValidFieldPath`: `expect.valid`, `errorContains`, `resolvedPath`.
fn field_path(case: &Case, with_resolved: bool) -> Checked {
    let path = case.input_str("fieldPath")?;
    let prefix = case
        .input_opt("pathOfFieldPath")
        .and_then(Value::as_str)
        .unwrap_or("");
    let got = engine::valid_field_path(case.schema(), path, prefix)?;
    let valid = case.expect("valid")?.as_bool().unwrap_or(false);
    match got {
        Ok(resolved) => {
            if !valid {
                return fail(format!(
                    "accepted (resolved to {resolved:?}), want an error"
                ));
            }
            match case.expect_opt("resolvedPath").filter(|_| with_resolved) {
                Some(want) => expect::json_eq("resolved path", want, &json!(resolved)),
                None => Ok(()),
            }
        }
        Err(error) => {
            if valid {
                return fail(format!("rejected: {error}"));
            }
            match case.expect_opt("errorContains").and_then(Value::as_str) {
                Some(sub) if !error.contains(sub) => {
                    fail(format!("error {error:?} does not contain {sub:?}"))
                }
                _ => Ok(()),
            }
        }
    }
}

pub(super) fn printer_columns(ctx: &mut Ctx, case: &Case) -> Checked {
    match ctx.test.as_str() {
        "tableconvertor_test.Test_cellForJSONValue" => {
            let (cell, go_type) = engine::cell_for_json_value(
                case.input_str("columnType")?,
                case.input("value")?,
                case.input_opt("goValueType")
                    .and_then(Value::as_str)
                    .unwrap_or(""),
            )?;
            expect::json_eq("cell", case.expect("cell")?, &cell)?;
            match case.expect_opt("cellGoType") {
                Some(want) => expect::json_eq("cell Go type", want, &json!(go_type)),
                None => Ok(()),
            }
        }
        "tableconvertor_test.Test_convertor_ConvertToTable" => {
            let no_headers = case
                .input_opt("tableOptions")
                .and_then(|o| o.get("noHeaders"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let got = engine::convert_to_table(
                case.input("headers")?,
                case.input("additionalColumns")?,
                case.input("object")?,
                no_headers,
            )?;
            let want_error = case
                .expect_opt("error")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let table = match (got, want_error) {
                (Err(e), false) => return fail(format!("error: {e}")),
                (Err(_), true) => return Ok(()),
                (Ok(_), true) => return fail("no error, want one"),
                (Ok(table), false) => table,
            };
            expect::json_eq(
                "column definitions",
                case.expect("columnDefinitions")?,
                &table.column_definitions,
            )?;
            let want_rows = case.expect_array("rows")?;
            let want_cells: Vec<&Value> = want_rows
                .iter()
                .map(|r| r.get("cells").unwrap_or(&NULL))
                .collect();
            expect::json_eq("row cells", &json!(want_cells), &json!(table.rows))
        }
        "integration.table_test" => table_integration(case),
        _ => ctx.unknown_test("printer-columns"),
    }
}

/// A CRD serving `servedVersion` with the given columns and an allow-all schema; the object
/// is read at that version (None conversion changes only `apiVersion`).
fn table_integration(case: &Case) -> Checked {
    let columns = case.input("additionalPrinterColumns")?;
    let version = case.input_str("servedVersion")?;
    let mut object = case.input("object")?.clone();
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let group = api_version
        .split_once('/')
        .map(|(g, _)| g)
        .unwrap_or("")
        .to_owned();
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if let Some(map) = object.as_object_mut() {
        map.insert("apiVersion".into(), json!(format!("{group}/{version}")));
    }
    let plural = format!("{}s", kind.to_lowercase());
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {
            "group": group,
            "scope": "Cluster",
            "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind, "listKind": format!("{kind}List")},
            "versions": [{
                "name": version, "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                "additionalPrinterColumns": columns,
            }],
        },
    });
    // The test creates the object through an API server, which sets
    // `metadata.creationTimestamp` to the request time; the engine fills no system fields
    // and has no clock, so both are given.
    let now = "2026-01-01T00:00:00Z";
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("creationTimestamp".into(), json!(now));
    }
    let options = Options {
        now: crd_studio_engine::Time::parse_rfc3339(now).ok(),
        ..Options::default()
    };
    let compiled = CompiledCrd::compile(&crd.to_string(), &options);
    let analysis = compiled.analyze_objects(&[object.to_string()], None);
    let Some(report) = analysis.objects.first() else {
        return fail("the engine reported no object");
    };
    if let Some(e) = &report.object_error {
        return fail(format!("object error: {e}"));
    }
    let want_count = case.expect("columnCount")?.as_u64().unwrap_or(0) as usize;
    expect::count(
        "columns",
        Some(&json!(want_count)),
        report.table.columns.len(),
    )?;
    let want_defs = case.expect_array("columnDefinitionsFromIndex1")?;
    let want_names: Vec<&Value> = want_defs
        .iter()
        .map(|d| d.get("name").unwrap_or(&NULL))
        .collect();
    expect::json_eq(
        "column names",
        &json!(want_names),
        &json!(report.table.columns.get(1..).unwrap_or_default()),
    )?;
    let want_rows = case.expect_array("rows")?;
    let want_cells = want_rows
        .first()
        .and_then(|r| r.get("cells"))
        .and_then(Value::as_array);
    let Some(want_cells) = want_cells else {
        return skip("expect.rows[0].cells missing");
    };
    expect::cells(want_cells, &report.table.cells)?;
    // Type, format, description and priority of the columns: the engine's TableRow has
    // only names.
    engine::column_definitions(&analysis, version).and_then(|defs| {
        expect::json_eq(
            "column definitions",
            &Value::Array(want_defs.to_vec()),
            &Value::Array(defs.get(1..).unwrap_or_default().to_vec()),
        )
    })
}

pub(super) fn conversion(ctx: &mut Ctx, case: &Case) -> Checked {
    match ctx.test.as_str() {
        "converter_test.TestConversion" => {
            let got = engine::convert_none(
                case.input("servedVersions")?,
                case.input_bool("clusterScoped", false),
                case.input_str("toVersion")?,
                case.input("object")?,
                case.input_bool("objectIsList", false),
            )?;
            result_or_error(case, "object", got)
        }
        "webhook_converter_test.TestRestoreObjectMeta" => {
            let (converted, error) =
                engine::restore_object_meta(case.input("original")?, case.input("converted")?)?;
            expect::json_eq("error", case.expect("error")?, &json!(error))?;
            expect::json_eq("converted", case.expect("converted")?, &converted)
        }
        "webhook_converter_test.TestGetObjectsToConvert" => {
            let got = engine::objects_to_convert(
                case.input("object")?,
                case.input_bool("objectIsList", false),
                case.input_str("apiVersion")?,
            )?;
            let got = if got.is_empty() {
                Value::Null
            } else {
                Value::Array(got)
            };
            expect::json_eq("objects", case.expect("objects")?, &got)
        }
        "webhook_converter_test.TestCreateConversionReviewObjects" => {
            let got = engine::create_conversion_review(
                case.input("conversionReviewVersions")?,
                case.input("objects")?,
                case.input_str("desiredAPIVersion")?,
                case.input_str("uid")?,
            )?;
            match (
                got,
                case.expect_opt("errorContains").and_then(Value::as_str),
            ) {
                (Err(e), Some(sub)) if e.contains(sub) => Ok(()),
                (Err(e), _) => fail(format!("error: {e}")),
                (Ok(_), Some(sub)) => fail(format!("no error, want one containing {sub:?}")),
                (Ok((request, response)), None) => {
                    expect::json_eq("request", case.expect("request")?, &request)?;
                    expect::json_eq("response", case.expect("response")?, &response)
                }
            }
        }
        "webhook_converter_test.TestGetConvertedObjectsFromResponse" => {
            let got = engine::converted_objects_from_response(
                case.input_str("expectedUID")?,
                case.input("response")?,
            )?;
            result_or_error(
                case,
                "objects",
                got.map(|o| o.map_or(Value::Null, Value::Array)),
            )
        }
        _ => ctx.unknown_test("conversion"),
    }
}

/// `expect.<key>` on success, or `expect.errorContains`.
fn result_or_error(case: &Case, key: &str, got: Result<Value, String>) -> Checked {
    match (
        got,
        case.expect_opt("errorContains").and_then(Value::as_str),
    ) {
        (Err(e), Some(sub)) if e.contains(sub) => Ok(()),
        (Err(e), Some(sub)) => fail(format!("error {e:?} does not contain {sub:?}")),
        (Err(e), None) => fail(format!("error: {e}")),
        (Ok(v), Some(sub)) => fail(format!(
            "got {}, want an error containing {sub:?}",
            expect::show(&v)
        )),
        (Ok(v), None) => expect::json_eq(key, case.expect(key)?, &v),
    }
}

pub(super) fn validation(ctx: &mut Ctx, case: &Case) -> Checked {
    let compat = case
        .input_opt("compatibilityVersion")
        .and_then(Value::as_str);
    let errors = || {
        engine::validate_custom_resource(
            case.schema(),
            case.input("object")?,
            case.input_opt("oldObject"),
            compat,
        )
    };
    match ctx.test.as_str() {
        "validation_test.TestValidateCustomResource" => {
            let got = errors()?;
            if let Some(want) = case.expect_opt("errorStringsExact") {
                let want: BTreeSet<&str> = want
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let got: BTreeSet<&str> = got.iter().map(String::as_str).collect();
                if want != got {
                    return fail(format!("errors {got:?}, want {want:?}"));
                }
                Ok(())
            } else if case.expect_array("errors")?.is_empty() {
                match got.is_empty() {
                    true => Ok(()),
                    false => fail(format!("unexpected errors {got:?}")),
                }
            } else {
                skip("expect.errors is not empty: the README defines only errorStringsExact for failures")
            }
        }
        "validation_test.TestItemsProperty" => {
            let got = errors()?;
            let want = case.expect("hasErrors")?.as_bool().unwrap_or(false);
            if want == got.is_empty() {
                return fail(format!("hasErrors {want}, got {got:?}"));
            }
            Ok(())
        }
        _ => ctx.unknown_test("validation"),
    }
}

pub(super) fn listtype(ctx: &mut Ctx, case: &Case) -> Checked {
    match ctx.test.as_str() {
        "validation_test" => {
            let errors = engine::validate_list_sets_and_maps(case.schema(), case.input("object")?)?;
            expect::field_errors_multiset(case.expect_array("errors")?, &errors)
        }
        _ => ctx.unknown_test("listtype"),
    }
}

pub(super) fn ratcheting(ctx: &mut Ctx, case: &Case) -> Checked {
    match ctx.test.as_str() {
        "ratcheting_test" => {
            let valid = engine::ratcheting_validate_update(
                case.schema(),
                case.input("object")?,
                case.input("oldObject")?,
            )?;
            expect::json_eq("valid", case.expect("valid")?, &json!(valid))
        }
        _ => ctx.unknown_test("ratcheting"),
    }
}

pub(super) fn cel_compile(ctx: &mut Ctx, case: &Case) -> Checked {
    match ctx.test.as_str() {
        "compilation_test.TestCelCompilation" => {
            let env = match case.input_opt("exprEnv").and_then(Value::as_str) {
                Some("stored") => ExprEnv::Stored,
                _ => ExprEnv::New,
            };
            let rules = engine::compile_rules(case.schema(), false, env)?;
            let root: Vec<&engine::CompiledRule> =
                rules.iter().filter(|r| r.schema_path.is_empty()).collect();
            let want = case.expect_array("results")?;
            if root.len() != want.len() {
                return fail(format!("{} results, want {}", root.len(), want.len()));
            }
            for (i, (want, got)) in want.iter().zip(root).enumerate() {
                compile_result(want, got).map_err(|p| with_context(p, &format!("rule {i}")))?;
            }
            Ok(())
        }
        _ => ctx.unknown_test("cel-compile"),
    }
}

fn compile_result(want: &Value, got: &engine::CompiledRule) -> Checked {
    let flag = |k: &str| want.get(k).and_then(Value::as_bool);
    if flag("noError") == Some(true) {
        if let Some(e) = &got.error {
            return fail(format!("compile error: {e}"));
        }
    }
    let check_error =
        |kind_key: &str, text_key: &str, error: &Option<engine::CelError>| -> Checked {
            let kind = want.get(kind_key).and_then(Value::as_str);
            let text = want.get(text_key).and_then(Value::as_str);
            if kind.is_none() && text.is_none() {
                return Ok(());
            }
            let Some(e) = error else {
                return fail(format!("no error, want {kind:?} containing {text:?}"));
            };
            if kind.is_some_and(|k| k != e.kind) {
                return fail(format!("error type {}, want {kind:?}", e.kind));
            }
            if text.is_some_and(|t| !e.detail.contains(t)) {
                return fail(format!("error {e} does not contain {text:?}"));
            }
            Ok(())
        };
    check_error("errorType", "errorContains", &got.error)?;
    check_error(
        "messageExpressionErrorType",
        "messageExpressionErrorContains",
        &got.message_expression_error,
    )?;
    if let Some(want) = flag("usesOldSelf") {
        if want != got.uses_old_self {
            return fail(format!("usesOldSelf {}, want {want}", got.uses_old_self));
        }
    }
    if let Some(want) = flag("programIsNil") {
        if want != got.program_is_nil {
            return fail(format!("programIsNil {}, want {want}", got.program_is_nil));
        }
    }
    Ok(())
}

pub(super) fn kubectl_validate(ctx: &mut Ctx, case: &Case) -> Checked {
    match ctx.test.as_str() {
        "testcases" => kubectl::check(ctx, case),
        _ => ctx.unknown_test("kubectl-validate"),
    }
}
