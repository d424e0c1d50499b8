//! Kubernetes' `TestOptionalOldSelf`, `TestOptionalOldSelfCheckForNull` and
//! `TestOptionalOldSelfIsOptionalType` (from `../shared/conformance/cel-eval`): rules with
//! `optionalOldSelf: true`, where `oldSelf` is `optional_type(T)` and `optional.none()` without an
//! old object. Parse-only mode cannot produce the type checker's errors, so those cases run
//! type-checked only. Skips when `../shared` is missing.

mod common;

use common::{fixture, run_rule_with, Mode, Outcome};
use serde_json::Value as Json;

fn passes(case: &Json, mode: Mode) -> bool {
    let rules: Vec<Json> = case
        .pointer("/schema/x-kubernetes-validations")
        .and_then(Json::as_array)
        .cloned()
        .unwrap_or_default();
    let errors: Vec<String> = rules
        .iter()
        .filter_map(|r| match run_rule_with(case, r, mode, false, true) {
            Outcome::Error(e) => Some(e),
            _ => None,
        })
        .collect();
    let expect = case.get("expect").cloned().unwrap_or(Json::Null);
    let mut wanted: Vec<String> = expect
        .get("errorsContainUnordered")
        .and_then(Json::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if errors.len() != wanted.len() {
        return false;
    }
    for e in &errors {
        match wanted.iter().position(|w| e.contains(w.as_str())) {
            Some(i) => {
                wanted.remove(i);
            }
            None => return false,
        }
    }
    true
}

#[test]
fn optional_old_self() {
    let mut total = 0;
    let mut checked_pass = 0;
    let mut parsed_pass = 0;
    let mut parsed_runtime = 0;
    for file in [
        "cel-eval/validation_test.TestOptionalOldSelf.json",
        "cel-eval/validation_test.TestOptionalOldSelfCheckForNull.json",
        "cel-eval/validation_test.TestOptionalOldSelfIsOptionalType.json",
    ] {
        let Some(cases) = fixture(file) else {
            eprintln!("skipped: ../shared/conformance is missing");
            return;
        };
        for case in &cases {
            total += 1;
            let name = case.get("name").and_then(Json::as_str).unwrap_or("");
            if passes(case, Mode::Checked) {
                checked_pass += 1;
            } else {
                eprintln!("FAIL (checked) {name}");
            }
            if !file.contains("IsOptionalType") {
                parsed_runtime += 1;
                if passes(case, Mode::Parsed) {
                    parsed_pass += 1;
                } else {
                    eprintln!("FAIL (parsed) {name}");
                }
            }
        }
    }
    eprintln!(
        "optionalOldSelf: checked {checked_pass}/{total}, parse-only {parsed_pass}/{parsed_runtime}"
    );
    assert_eq!(checked_pass, total);
    assert_eq!(parsed_pass, parsed_runtime);
}
