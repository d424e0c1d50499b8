//! Kubernetes' `TestCelCostStability` (from `../shared/conformance/cel-cost`): each rule is
//! evaluated with `self` bound from the case's object at the resource root, parse-only and
//! type-checked, and the runtime cost must equal Kubernetes' (`RuntimeCELCostBudget - remaining
//! budget`). Skips when `../shared` is missing; fails when fewer cases than the recorded floors
//! pass.

mod common;

use common::{fixture, run_rule, Mode, Outcome};
use serde_json::Value as Json;

fn run(cases: &[Json], mode: Mode) -> (usize, Vec<String>) {
    let mut pass = 0;
    let mut failures = Vec::new();
    for case in cases.iter().filter(|c| {
        c.pointer("/source/test").and_then(Json::as_str) == Some("TestCelCostStability")
    }) {
        let name = case.get("name").and_then(Json::as_str).unwrap_or("");
        let want = case.pointer("/expect/runtimeCost").and_then(Json::as_u64);
        let rules: Vec<Json> = case
            .pointer("/schema/x-kubernetes-validations")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default();
        let mut total = 0u64;
        let mut errors = Vec::new();
        for r in &rules {
            match run_rule(case, r, mode, true) {
                Outcome::Ok { cost } => total += cost,
                Outcome::Skipped => {}
                Outcome::Error(e) => errors.push(e),
            }
        }
        if errors.is_empty() && want == Some(total) {
            pass += 1;
        } else {
            failures.push(format!("{name}: want {want:?}, got {total} {errors:?}"));
        }
    }
    (pass, failures)
}

#[test]
fn cel_cost_stability() {
    let Some(cases) = fixture("cel-cost/celcoststability_test.json") else {
        eprintln!("skipped: ../shared/conformance is missing");
        return;
    };
    for mode in [Mode::Parsed, Mode::Checked] {
        let (pass, failures) = run(&cases, mode);
        eprintln!(
            "TestCelCostStability ({mode:?}): {pass} pass, {} fail",
            failures.len()
        );
        for f in &failures {
            eprintln!("FAIL ({mode:?}) {f}");
        }
        let floor = 239;
        assert!(pass >= floor, "{mode:?}: only {pass} cases pass");
    }
}
