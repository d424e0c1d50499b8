use super::*;
use crate::schema::JsonSchemaProps;
use serde_json::json;

fn validator(schema: Json, root: bool) -> Validator {
    let (p, e) = JsonSchemaProps::from_json(&schema);
    assert!(e.is_empty(), "{e:?}");
    let s = Structural::from_props(&p).unwrap();
    Validator::new(Arc::new(s), root, PER_CALL_LIMIT).unwrap()
}

fn run(v: &Validator, obj: Json, old: Option<Json>) -> Evaluation {
    v.validate(
        &FieldPath::new("root"),
        &obj,
        old.as_ref(),
        RUNTIME_CEL_COST_BUDGET,
        ValidateOptions::default(),
    )
}

fn texts(e: &Evaluation) -> Vec<String> {
    e.errors.iter().map(FieldError::error).collect()
}

#[test]
fn transition_rules_need_an_old_value() {
    let v = validator(
        json!({"type": "object", "properties": {"size": {"type": "integer",
            "x-kubernetes-validations": [{"rule": "self >= oldSelf", "message": "may not shrink"}]}}}),
        false,
    );
    let created = run(&v, json!({"size": 1}), None);
    assert!(created.errors.is_empty());
    assert_eq!(created.remaining_budget, RUNTIME_CEL_COST_BUDGET);
    assert_eq!(
        created.results.first().map(|r| r.outcome),
        Some(CelOutcome::Skipped)
    );
    let shrunk = run(&v, json!({"size": 1}), Some(json!({"size": 4})));
    assert_eq!(
        texts(&shrunk),
        vec!["root.size: Invalid value: 1: may not shrink"]
    );
    let grown = run(&v, json!({"size": 5}), Some(json!({"size": 4})));
    assert!(grown.errors.is_empty());
    assert!(grown.remaining_budget < RUNTIME_CEL_COST_BUDGET);
}

#[test]
fn map_lists_correlate_old_items_by_key() {
    let v = validator(
        json!({"type": "object", "properties": {"ports": {"type": "array",
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "properties": {
                "name": {"type": "string"},
                "port": {"type": "integer", "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "immutable"}]}}}}}}),
        false,
    );
    // Reordered items keep their old values; a new item has none.
    let old = json!({"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}]});
    let new = json!({"ports": [{"name": "b", "port": 2}, {"name": "c", "port": 9}, {"name": "a", "port": 3}]});
    assert_eq!(
        texts(&run(&v, new, Some(old))),
        vec!["root.ports[2].port: Invalid value: 3: immutable"]
    );
    // An atomic list does not correlate: the rule never runs on its items.
    let v = validator(
        json!({"type": "object", "properties": {"xs": {"type": "array",
            "items": {"type": "integer", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}),
        false,
    );
    let e = run(&v, json!({"xs": [2]}), Some(json!({"xs": [1]})));
    assert!(e.errors.is_empty());
    assert_eq!(e.remaining_budget, RUNTIME_CEL_COST_BUDGET);
}

#[test]
fn optional_old_self_is_none_without_an_old_value() {
    let v = validator(
        json!({"type": "object", "properties": {"mode": {"type": "string",
            "x-kubernetes-validations": [{"rule": "oldSelf.hasValue() || self == 'initial'",
                "message": "must start as initial", "optionalOldSelf": true}]}}}),
        false,
    );
    assert_eq!(
        texts(&run(&v, json!({"mode": "other"}), None)),
        vec!["root.mode: Invalid value: \"other\": must start as initial"]
    );
    assert!(run(&v, json!({"mode": "initial"}), None).errors.is_empty());
    assert!(run(
        &v,
        json!({"mode": "other"}),
        Some(json!({"mode": "initial"}))
    )
    .errors
    .is_empty());
}

#[test]
fn message_expression_problems_fall_back_to_the_message() {
    let schema = |expr: &str| {
        json!({"type": "object", "properties": {"s": {"type": "string"}},
            "x-kubernetes-validations": [{"rule": "false", "message": "static", "messageExpression": expr}]})
    };
    // Evaluated: its text is the detail, its cost is charged.
    let v = validator(schema("'bad s: ' + self.s"), false);
    let e = run(&v, json!({"s": "x"}), None);
    assert_eq!(texts(&e), vec!["root: Invalid value: bad s: x"]);
    assert!(e.log.is_empty());
    assert!(e.remaining_budget < RUNTIME_CEL_COST_BUDGET);
    // An evaluation error is logged and the static message used.
    let v = validator(schema("['a'][3]"), false);
    let e = run(&v, json!({"s": "x"}), None);
    assert_eq!(texts(&e), vec!["root: Invalid value: static"]);
    assert_eq!(e.log.len(), 1);
    assert!(
        e.log[0].contains("messageExpression evaluation failed due to"),
        "{:?}",
        e.log
    );
    // Blank and multi-line results are refused.
    for (expr, why) in [
        ("'  '", "non-empty string"),
        ("'two\\nlines'", "line breaks"),
    ] {
        let e = run(&validator(schema(expr), false), json!({"s": "x"}), None);
        assert_eq!(texts(&e), vec!["root: Invalid value: static"]);
        assert!(e.log[0].contains(why), "{:?}", e.log);
    }
    // Out of budget in the message: reported, and validation stops.
    let v = validator(schema("'a' + 'b' + self.s"), false);
    let e = v.validate(
        &FieldPath::new("root"),
        &json!({"s": "x"}),
        None,
        1,
        ValidateOptions::default(),
    );
    assert_eq!(e.remaining_budget, -1);
    assert!(texts(&e)[0]
        .contains("messageExpression evaluation failed due to running out of cost budget"));
}

#[test]
fn reason_and_field_path() {
    let v = validator(
        json!({"type": "object", "properties": {
            "a": {"type": "string"}, "m": {"type": "object", "additionalProperties": {"type": "string"}}},
            "x-kubernetes-validations": [
                {"rule": "self.a != 'x'", "reason": "FieldValueForbidden", "fieldPath": ".a", "message": "no x"},
                {"rule": "self.a != 'x'", "reason": "FieldValueRequired", "message": "needs y"},
                {"rule": "self.a != 'x'", "reason": "FieldValueDuplicate", "fieldPath": ".m['k.1']"},
                {"rule": "self.a != 'x'", "fieldPath": ".nope", "message": "bad path stays at the node"}]}),
        false,
    );
    assert_eq!(
        texts(&run(&v, json!({"a": "x"}), None)),
        vec![
            "root.a: Forbidden: no x",
            "root: Required value: needs y",
            "root.m[k.1]: Duplicate value",
            "root: Invalid value: bad path stays at the node",
        ]
    );
}

#[test]
fn the_budget_runs_out_in_walk_order() {
    // Each rule costs 2 here; the budget covers the first property only. The rules of
    // additionalProperties values run before those of declared properties.
    let v = validator(
        json!({"type": "object", "properties": {
            "a": {"type": "string", "x-kubernetes-validations": [{"rule": "self == 'a'"}]},
            "b": {"type": "string", "x-kubernetes-validations": [{"rule": "self == 'b'"}]}}}),
        false,
    );
    let e = v.validate(
        &FieldPath::new("root"),
        &json!({"b": "b", "a": "a"}),
        None,
        2,
        ValidateOptions::default(),
    );
    assert_eq!(
        texts(&e),
        vec![format!(
            "root.b: Invalid value: \"string\": {OUT_OF_BUDGET}"
        )]
    );
    assert_eq!(e.remaining_budget, -1);
    let e = v.validate(
        &FieldPath::new("root"),
        &json!({"b": "b", "a": "a"}),
        None,
        0,
        ValidateOptions::default(),
    );
    assert_eq!(
        texts(&e),
        vec![format!(
            "root.a: Invalid value: \"string\": {OUT_OF_BUDGET}"
        )]
    );
    // The per-call limit stops everything.
    let v2 = Validator::new(Arc::new(v.schema().clone()), false, 0).unwrap();
    let e = run(&v2, json!({"a": "a", "b": "b"}), None);
    assert_eq!(e.errors.len(), 1);
    assert!(texts(&e)[0].contains("no further validation rules will be run due to call cost exceeds limit for rule: self == 'a'"));
}

#[test]
fn int_or_string_values() {
    let v = validator(
        json!({"type": "object", "properties": {"port": {"x-kubernetes-int-or-string": true,
            "x-kubernetes-validations": [{"rule": "type(self) == int ? self > 0 : self.endsWith('%')"}]}}}),
        false,
    );
    assert!(run(&v, json!({"port": 8}), None).errors.is_empty());
    assert!(run(&v, json!({"port": "50%"}), None).errors.is_empty());
    assert_eq!(
        texts(&run(&v, json!({"port": "http"}), None)),
        vec!["root.port: Invalid value: \"http\": failed rule: type(self) == int ? self > 0 : self.endsWith('%')"]
    );
    // A string operation on an int is a runtime overload error.
    let v = validator(
        json!({"type": "object", "properties": {"port": {"x-kubernetes-int-or-string": true,
            "x-kubernetes-validations": [{"rule": "self.endsWith('%')"}]}}}),
        false,
    );
    let t = texts(&run(&v, json!({"port": 8}), None));
    assert_eq!(t.len(), 1);
    assert!(
        t[0].starts_with("root.port: Invalid value: \"\": 'no such overload"),
        "{t:?}"
    );
}

#[test]
fn set_lists_compare_as_sets() {
    let v = validator(
        json!({"type": "object", "properties": {
            "a": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "b": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}},
            "x-kubernetes-validations": [{"rule": "self.a == self.b", "message": "differ"}]}),
        false,
    );
    assert!(run(&v, json!({"a": ["x", "y"], "b": ["y", "x"]}), None)
        .errors
        .is_empty());
    assert_eq!(
        texts(&run(&v, json!({"a": ["x"], "b": ["y", "x"]}), None)),
        vec!["root: Invalid value: differ"]
    );
}

#[test]
fn ratcheting_turns_unchanged_failures_into_warnings() {
    let v = validator(
        json!({"type": "object", "properties": {
            "a": {"type": "string", "x-kubernetes-validations": [{"rule": "self == 'ok'"}]},
            "b": {"type": "string", "x-kubernetes-validations": [{"rule": "self == 'ok'"}]}}}),
        false,
    );
    let e = v.validate(
        &FieldPath::root(),
        &json!({"a": "bad", "b": "bad"}),
        Some(&json!({"a": "bad", "b": "was ok"})),
        RUNTIME_CEL_COST_BUDGET,
        ValidateOptions {
            ratcheting: true,
            ..ValidateOptions::default()
        },
    );
    assert_eq!(
        texts(&e),
        vec!["b: Invalid value: \"bad\": failed rule: self == 'ok'"]
    );
    assert_eq!(
        e.warnings,
        vec!["a: Invalid value: \"bad\": failed rule: self == 'ok'"]
    );
}

#[test]
fn embedded_resources_see_type_and_object_meta() {
    let v = validator(
        json!({"type": "object", "properties": {"template": {"type": "object",
            "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true,
            "x-kubernetes-validations": [{"rule": "self.kind == 'Pod' && self.metadata.name.startsWith('p')"}]}}}),
        true,
    );
    assert!(run(
        &v,
        json!({"template": {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p1"}}}),
        None
    )
    .errors
    .is_empty());
    assert_eq!(
        run(
            &v,
            json!({"template": {"kind": "Svc", "metadata": {"name": "p1"}}}),
            None
        )
        .errors
        .len(),
        1
    );
}

#[test]
fn result_keys_are_rule_keys() {
    use crate::crd::apiext::CelStep;
    let v = validator(
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "list": {"type": "array", "items": {"type": "object",
                "additionalProperties": {"type": "string", "x-kubernetes-validations": [
                    {"rule": "self != 'x'"}, {"rule": "self != 'y'"}]}}}}}}}),
        true,
    );
    let e = run(&v, json!({"spec": {"list": [{"a": "x", "b": "z"}]}}), None);
    let key = |i| {
        crate::report::analysis::rule_key(
            &[
                CelStep::Property("spec".into()),
                CelStep::Property("list".into()),
                CelStep::Items,
                CelStep::AdditionalProperties,
            ],
            i,
        )
    };
    let got: Vec<(String, String, CelOutcome)> = e
        .results
        .iter()
        .map(|r| (r.rule.clone(), r.path.clone(), r.outcome))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                key(0),
                "root.spec.list[0][a]".to_owned(),
                CelOutcome::Failed
            ),
            (
                key(1),
                "root.spec.list[0][a]".to_owned(),
                CelOutcome::Passed
            ),
            (
                key(0),
                "root.spec.list[0][b]".to_owned(),
                CelOutcome::Passed
            ),
            (
                key(1),
                "root.spec.list[0][b]".to_owned(),
                CelOutcome::Passed
            ),
        ]
    );
    // Skipped results (CEL gated) cover the same rules and values.
    let skipped = v.skipped(
        &FieldPath::new("root"),
        &json!({"spec": {"list": [{"a": "x", "b": "z"}]}}),
        None,
        "gated",
    );
    assert_eq!(skipped.len(), 4);
    assert!(skipped
        .iter()
        .all(|r| r.outcome == CelOutcome::Skipped && r.cost == 0));
}
