//! Kubernetes' `TestCelCostStability` (from `../shared/conformance/cel-cost`): each rule is
//! evaluated on parsed (not type-checked) ASTs with `self` bound from the case's object at the
//! resource root, and the runtime cost must equal Kubernetes' (`RuntimeCELCostBudget - remaining
//! budget`). Skips when `../shared` is missing; fails when fewer cases than the recorded floor
//! pass.

use std::path::PathBuf;

use cel_core::interp::{Activation, CostTracker, PlanOptions, Program};
use cel_core::unstructured::Schema;
use cel_core::value::Value;
use cel_core::{MacroSet, Parser, ParserOptions};
use serde_json::Value as Json;

const PER_CALL_LIMIT: u64 = 1_000_000;

fn fixture() -> Option<Vec<Json>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance/cel-cost/celcoststability_test.json");
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

fn parser() -> Parser {
    Parser::new(ParserOptions {
        enable_optional_syntax: true,
        macros: MacroSet::standard()
            .with_two_var_comprehensions()
            .with_optional(1),
        ..ParserOptions::default()
    })
}

/// Whether an identifier `name` occurs in the expression (Kubernetes' `UsesOldSelf`).
fn mentions(e: &cel_core::Expr, name: &str) -> bool {
    use cel_core::ExprKind as K;
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match &e.kind {
            K::Ident(n) if n == name => return true,
            K::Select(s) => stack.push(&s.operand),
            K::Call(c) => {
                stack.extend(c.target.iter());
                stack.extend(c.args.iter());
            }
            K::List(l) => stack.extend(l.elements.iter()),
            K::Map(m) => {
                for en in &m.entries {
                    stack.push(&en.key);
                    stack.push(&en.value);
                }
            }
            K::Struct(s) => stack.extend(s.fields.iter().map(|f| &f.value)),
            K::Comprehension(c) => stack.extend([
                &c.iter_range,
                &c.accu_init,
                &c.loop_condition,
                &c.loop_step,
                &c.result,
            ]),
            _ => {}
        }
    }
    false
}

/// The outcome Kubernetes' validator would report for one rule.
enum Outcome {
    Ok { cost: u64 },
    Skipped,
    Error(String),
}

fn run_rule(case: &Json, rule: &Json) -> Outcome {
    let text = rule.get("rule").and_then(Json::as_str).unwrap_or("");
    let schema_json = case.get("schema").cloned().unwrap_or(Json::Null);
    let input = case.get("input").cloned().unwrap_or(Json::Null);
    let root = input
        .get("isResourceRoot")
        .and_then(Json::as_bool)
        .unwrap_or(true);
    let mut schema = Schema::from_json(&schema_json);
    if root {
        schema = schema.with_type_and_object_meta();
    }
    let parsed = match parser().parse_text(text) {
        Ok(p) => p,
        Err(f) => return Outcome::Error(format!("compilation failed: {f}")),
    };
    let uses_old_self = mentions(&parsed.expr, "oldSelf");
    let object = input.get("object").cloned().unwrap_or(Json::Null);
    let old = input.get("oldObject").cloned();
    if uses_old_self && old.is_none() {
        return Outcome::Skipped;
    }
    let program = match Program::new(&parsed.expr, None, PlanOptions::default()) {
        Ok(p) => p,
        Err(e) => {
            return Outcome::Error(format!(
                "rule compile error: compile error: program instantiation failed: {e}"
            ))
        }
    };
    let mut act = Activation::new();
    act.bind_json("self", &object, &schema);
    if let Some(old) = &old {
        act.bind_json("oldSelf", old, &schema);
    }
    let mut tracker = CostTracker::kubernetes(Some(PER_CALL_LIMIT));
    match program.eval(&act, &mut tracker) {
        Err(e) => Outcome::Error(format!(
            "'{e}': no further validation rules will be run due to call cost exceeds limit for rule: {text}"
        )),
        Ok(Value::Bool(true)) => Outcome::Ok {
            cost: tracker.actual_cost(),
        },
        Ok(Value::Error(e)) => {
            if e.message.starts_with("no such overload") {
                Outcome::Error(format!("'{}': call arguments did not match a supported operator, function or macro signature for rule: {text}", e.message))
            } else {
                Outcome::Error(format!("{} evaluating rule: {text}", e.message))
            }
        }
        Ok(Value::Bool(false)) => {
            let msg = rule
                .get("message")
                .and_then(Json::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| format!("failed rule: {text}"));
            Outcome::Error(msg)
        }
        Ok(other) => Outcome::Error(format!(
            "cel expression must evaluate to a bool, got {}",
            other.type_name()
        )),
    }
}

#[test]
fn cel_cost_stability() {
    let Some(cases) = fixture() else {
        eprintln!("skipped: ../shared/conformance is missing");
        return;
    };
    let (mut pass, mut fail) = (0, 0);
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
            match run_rule(case, r) {
                Outcome::Ok { cost } => total += cost,
                Outcome::Skipped => {}
                Outcome::Error(e) => errors.push(e),
            }
        }
        if errors.is_empty() && want == Some(total) {
            pass += 1;
        } else {
            fail += 1;
            failures.push(format!("{name}: want {want:?}, got {total} {errors:?}"));
        }
    }
    eprintln!("TestCelCostStability: {pass} pass, {fail} fail");
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(pass >= 239, "only {pass} cases pass");
}
