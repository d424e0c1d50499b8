use super::*;
use crate::view_model::Pane;
use crate::view_model::{EXAMPLE_CRD, EXAMPLE_OBJECT};
use crd_studio_engine::{analyze, Location, Pos, Request, Span};
use crd_studio_engine::{BoundKind, ExpressionKind, SourceId, STATIC_ESTIMATED_COST_LIMIT};
use crd_studio_engine::{FieldPlace, ObjectPlaces};

/// A rule iterating an unbounded list of unbounded strings, and a cheap one.
const OVER_BUDGET_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              names:
                type: array
                items:
                  type: string
                x-kubernetes-validations:
                - rule: \"self.all(x, x.matches('^a+$'))\"
                  message: every name is made of a
              replicas:
                type: integer
                x-kubernetes-validations:
                - rule: self >= 0
";
const OVER_BUDGET_OBJECT: &str =
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  names: [aa, aaa]\n  replicas: 2\n";

fn run(crd: &str, object: &str, old: Option<&str>) -> Analysis {
    analyze(&Request {
        crd: crd.to_owned(),
        objects: vec![object.to_owned()],
        old_object: old.map(str::to_owned),
        ..Request::default()
    })
}

fn result(path: &str, outcome: CelOutcome, cost: u64) -> CelRuleResult {
    CelRuleResult {
        rule: "properties[spec].properties[items].items.x-kubernetes-validations[0]".to_owned(),
        version: "v1".to_owned(),
        path: path.to_owned(),
        outcome,
        message: (outcome == CelOutcome::Failed)
            .then(|| format!("{path}: Invalid value: \"object\": too big")),
        detail: (outcome == CelOutcome::Skipped).then(|| "no old value".to_owned()),
        cost,
    }
}

#[test]
fn evaluations_are_grouped_by_outcome_and_summarised() {
    let results = [
        result("spec.items[0]", CelOutcome::Passed, 2),
        result("spec.items[1]", CelOutcome::Passed, 3),
        result("spec.items[2]", CelOutcome::Failed, 4),
        result("spec.items[3]", CelOutcome::Passed, 2),
    ];
    let groups = group_results(&results, |p| {
        Some(FocusTarget {
            pane: Pane::Object,
            line: p.len(),
            utf16_column: 1,
        })
    });
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0].outcome, CelOutcome::Passed);
    assert_eq!(groups[0].evaluations.len(), 3);
    assert_eq!(groups[0].cost_range(), (2, 3));
    assert_eq!(groups[0].cost_text(), "cost 2–3 each");
    assert_eq!(groups[1].cost_text(), "cost 4");
    assert_eq!(
        groups[1].evaluations[0].message.as_deref(),
        Some("spec.items[2]: Invalid value: \"object\": too big")
    );
    assert_eq!(groups[1].evaluations[0].target.map(|t| t.line), Some(13));
    assert_eq!(
        outcome_summary(&groups),
        "3 × passed, 1 × failed at spec.items[2]"
    );

    // Many failures: a few named, the rest counted; skipped grouped by reason.
    let mut many: Vec<CelRuleResult> = (0..5)
        .map(|i| result(&format!("spec.items[{i}]"), CelOutcome::Failed, 1))
        .collect();
    many.push(result("spec.a", CelOutcome::Skipped, 0));
    let mut other = result("spec.b", CelOutcome::Skipped, 0);
    other.detail = Some("gated".to_owned());
    many.push(other);
    let groups = group_results(&many, |_| None);
    assert_eq!(
        outcome_summary(&groups),
        "5 × failed at spec.items[0], spec.items[1], spec.items[2] (+2 more), \
             1 × skipped at spec.a, 1 × skipped at spec.b"
    );
    assert_eq!(groups[0].cost_text(), "cost 1 each");
    assert_eq!(outcome_summary(&[]), "");
    // The same failure text on every item is shown once; a skip reason stays.
    assert!(groups[0].same_message());
    assert!(!groups[1].same_message());
    assert_eq!(groups[1].shown_detail(), Some("no old value"));
    let mut g = groups[0].clone();
    g.evaluations[1].message = Some("spec.items[1]: Invalid value: \"object\": other".to_owned());
    assert!(!g.same_message());
    g.detail = Some("Invalid value".to_owned());
    assert_eq!(g.shown_detail(), None);
    g.evaluations.truncate(1);
    assert!(!g.same_message());
}

#[test]
fn summary_line() {
    let s = Summary {
        rules: 3,
        compile_errors: 1,
        over_limit: 0,
        failing: 2,
        samples: 1,
        runtime_cost: 7,
    };
    assert_eq!(
        s.text(),
        "3 rules · 1 compile error · 2 failing on the sample"
    );
    let s = Summary {
        rules: 1,
        compile_errors: 0,
        over_limit: 0,
        failing: 0,
        samples: 2,
        runtime_cost: 0,
    };
    assert_eq!(
        s.text(),
        "1 rule · 0 compile errors · 0 failing on the samples"
    );
    let s = Summary { over_limit: 2, ..s };
    assert_eq!(
        s.text(),
        "1 rule · 0 compile errors · 0 failing on the samples · 2 over the cost limit"
    );
}

#[test]
fn digit_groups() {
    assert_eq!(digits(0), "0");
    assert_eq!(digits(999), "999");
    assert_eq!(digits(1000), "1,000");
    assert_eq!(digits(1_048_575), "1,048,575");
    assert_eq!(digits(100_000_000), "100,000,000");
    assert_eq!(digits(u64::MAX), "18,446,744,073,709,551,615");
}

/// The factor reads as the server's message writes it, on both sides of each branch.
#[test]
fn factors_as_the_server_words_them() {
    use crd_studio_engine::cost_error_message;
    let limit = STATIC_ESTIMATED_COST_LIMIT;
    for value in [
        10_000_001,
        12_000_000,
        14_999_999,
        15_000_000,
        15_000_001,
        33_333_333,
        999_999_999,
        1_000_000_000,
        1_000_000_001,
        u64::MAX,
    ] {
        let server = cost_error_message("estimated rule cost", value, limit);
        let ours = format!(
            "exceeds budget by factor of {} (",
            factor_text(value, limit)
        );
        assert!(server.contains(&ours), "{value}: {server} / {ours}");
    }
    assert_eq!(factor_text(12_000_000, limit), "1.200000x");
    assert_eq!(factor_text(33_000_000, limit), "3.3x");
    assert_eq!(factor_text(1_000_000_001, limit), "more than 100x");
}

#[test]
fn shares_and_bars() {
    let s = |v| Share::of_rule_limit(v);
    assert_eq!(s(0).text(), "0%");
    assert_eq!(s(3).text(), "<0.1%");
    assert_eq!(s(12_345).text(), "0.1%");
    assert_eq!(s(250_000).text(), "2.5%");
    assert_eq!(s(8_215_002).text(), "82.2%");
    assert_eq!(s(10_000_000).text(), "100.0%");
    assert!(!s(10_000_000).over());
    assert!(s(10_000_001).over());
    assert_eq!(s(10_000_001).text(), "factor of 1.000000x");
    assert_eq!(s(33_000_000).text(), "factor of 3.3x");
    assert_eq!(s(12_345).long_text(), "12,345 of 10,000,000 (0.1%)");
    assert_eq!(s(0).bar_width(), 0.0);
    assert_eq!(s(2_500_000).bar_width(), 25.0);
    assert_eq!(s(u64::MAX).bar_width(), 100.0);
    let t = Share::of_total_limit(50_000_000);
    assert_eq!(t.limit, 100_000_000);
    assert_eq!(t.text(), "50.0%");
    assert_eq!(
        Share::of_total_limit(329_857_577_779).long_text(),
        "329,857,577,779 of 100,000,000 (factor of more than 100x)"
    );
}

#[test]
fn rule_cost_figures() {
    let mut r = CelRuleReport::default();
    let c = RuleCost::of(&r);
    assert_eq!(c.head_text(), "cost: —");
    assert_eq!(c.formula_text(), None);
    assert_eq!(c.cardinality, None);
    r.max_cost = Some(12);
    r.cardinality = Some(5_000);
    r.estimated_cost = Some(60_000);
    r.max_cardinality = Some(1_048_576);
    let c = RuleCost::of(&r);
    assert_eq!(c.head_text(), "est. cost 60,000");
    assert_eq!(
        c.formula_text().as_deref(),
        Some("12 per evaluation × cardinality 5,000")
    );
    assert_eq!(c.rule.map(|s| s.text()).as_deref(), Some("0.6%"));
    r.cardinality = None;
    r.estimated_cost = Some(12 * 1_048_576);
    r.message_expression_max_cost = Some(7);
    let c = RuleCost::of(&r);
    assert_eq!(
        c.formula_text().as_deref(),
        Some("12 per evaluation × cardinality ∞ (assumed 1,048,576)")
    );
    assert!(c.rule.unwrap().over());
    assert_eq!(c.message_expression, Some(Share::of_rule_limit(7)));
    assert_eq!(Cardinality::Unbounded { assumed: None }.text(), "∞");
    assert_eq!(Cardinality::Bounded(1).text(), "1");
}

#[test]
fn driver_sizes() {
    assert_eq!(
        driver_size_text(BoundKind::MaxItems, None, 1_048_575),
        "unbounded list, assumed 1,048,575 items"
    );
    assert_eq!(
        driver_size_text(BoundKind::MaxProperties, None, 393_215),
        "unbounded map, assumed 393,215 entries"
    );
    assert_eq!(
        driver_size_text(BoundKind::MaxLength, None, 3_145_726),
        "unbounded string, assumed size 3,145,726"
    );
    assert_eq!(
        driver_size_text(BoundKind::MaxItems, Some(5000), 5000),
        "list with maxItems: 5000"
    );
    assert_eq!(
        driver_size_text(BoundKind::MaxLength, Some(64), 256),
        "string with maxLength: 64, assumed size 256"
    );
}

#[test]
fn edits_are_applied_only_where_they_fit() {
    let text = "a: 1\nb: é\n";
    assert_eq!(
        apply_edits(text, &[(5, 5, "x: 0\n")]).as_deref(),
        Some("a: 1\nx: 0\nb: é\n")
    );
    // Several, given in any order; a replacement.
    assert_eq!(
        apply_edits(text, &[(11, 11, "c: 2\n"), (0, 1, "A")]).as_deref(),
        Some("A: 1\nb: é\nc: 2\n")
    );
    assert_eq!(apply_edits(text, &[]).as_deref(), Some(text));
    // Out of range, inside a character, backwards, overlapping: nothing.
    assert_eq!(apply_edits(text, &[(99, 99, "x")]), None);
    assert_eq!(apply_edits(text, &[(9, 9, "x")]), None);
    assert_eq!(apply_edits(text, &[(3, 2, "x")]), None);
    assert_eq!(apply_edits(text, &[(0, 3, "x"), (2, 4, "y")]), None);
}

/// A rule iterating an unbounded list of unbounded strings: the server's cost errors at
/// the rule are on its card (not as a compile error), and the total is over its limit.
#[test]
fn an_over_budget_rule_shows_the_servers_error() {
    let a = run(OVER_BUDGET_CRD, OVER_BUDGET_OBJECT, None);
    assert!(!a.crd.accepted);
    let view = cel_view(&a, None);
    assert_eq!(view.rules.len(), 2);
    let r = &view.rules[0];
    assert!(!r.has_compile_error(), "{r:#?}");
    assert!(r.over_limit());
    let share = r.cost.rule.unwrap();
    assert!(share.over());
    assert_eq!(share.text(), "factor of more than 100x");
    // In the server's order: the rule's own budget, then its part in the total's.
    let messages: Vec<&str> = r.errors.iter().map(|e| e.detail.as_str()).collect();
    assert_eq!(messages.len(), 2, "{messages:#?}");
    assert!(
        messages[0]
            .starts_with("estimated rule cost exceeds budget by factor of more than 100x (try"),
        "{messages:#?}"
    );
    assert_eq!(
        messages[1],
        "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
    );
    assert!(r.errors.iter().all(|e| e.label == "rule: Forbidden"));
    // The error points at the rule in the CRD.
    let line = r.errors[0].target.unwrap().line;
    assert!(OVER_BUDGET_CRD
        .lines()
        .nth(line - 1)
        .unwrap()
        .contains("rule:"));
    // The cheap rule has no error.
    assert!(view.rules[1].errors.is_empty());
    assert!(!view.rules[1].over_limit());
    assert_eq!(
        view.summary.text(),
        "2 rules · 0 compile errors · 0 failing on the sample · 1 over the cost limit"
    );
    let total = view.total.unwrap();
    assert!(total.share.over());
    assert!(total.share.value >= share.value);
    assert!(total
            .message
            .as_deref()
            .unwrap()
            .starts_with("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x"));
    // The server names the rule among the most expensive.
    assert_eq!(total.contributors.len(), 1);
    assert_eq!(total.contributors[0].rule, Some(1));
    assert_eq!(total.contributors[0].label, ".spec.names");
    assert_eq!(total.contributors[0].cost, share.value);
    assert_eq!(total.contributors[0].target, r.target);
    // Sorted by cost, the expensive rule comes first either way; the cheap one after.
    assert_eq!(rule_order(&view.rules, true), vec![0, 1]);
    assert_eq!(tab_badge(&a), (2, true));

    // The explanation: the list and its strings, unbounded, drive the cost; each node
    // is located at its schema in the CRD.
    let x = &r.explanations[0];
    assert_eq!(x.kind, ExpressionKind::Rule);
    assert!(x.over);
    let list = x
        .drivers
        .iter()
        .find(|d| d.value_path == ".spec.names")
        .unwrap();
    assert_eq!(list.size, "unbounded list, assumed 1,048,575 items");
    assert_eq!(list.role, "read by the rule");
    // (At the node's key.)
    let line = list.target.unwrap().line;
    assert_eq!(
        OVER_BUDGET_CRD.lines().nth(line - 1).unwrap().trim(),
        "names:"
    );
    let strings = x
        .drivers
        .iter()
        .find(|d| d.value_path == ".spec.names[*]")
        .unwrap();
    assert!(
        strings.size.starts_with("unbounded string, assumed size "),
        "{strings:?}"
    );
    // The suggestion brings the rule under its limit; applying it makes the CRD accepted
    // with the cost the engine promised.
    let fix = x.suggestion.as_ref().unwrap();
    assert!(!fix.cost.over());
    assert!(fix.text().starts_with("add max"), "{}", fix.text());
    assert!(fix.result_text("cost").starts_with("→ cost "));
    let edits = fix.edits().unwrap();
    let edits: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| (e.start, e.end, e.text.as_str()))
        .collect();
    let fixed = apply_edits(OVER_BUDGET_CRD, &edits).unwrap();
    let a = run(&fixed, OVER_BUDGET_OBJECT, None);
    assert!(a.crd.accepted, "{fixed}\n{:#?}", a.findings);
    let view = cel_view(&a, None);
    assert_eq!(view.rules[0].cost.rule, Some(fix.cost));
    assert!(view.rules[0].errors.is_empty());
    assert_eq!(view.summary.over_limit, 0);
    // A bound alone that is enough is offered too.
    let alone = x.drivers.iter().find_map(|d| d.fix.as_ref()).unwrap();
    let e = alone.edit.clone().unwrap();
    let fixed = apply_edits(OVER_BUDGET_CRD, &[(e.start, e.end, e.text.as_str())]).unwrap();
    let a = run(&fixed, OVER_BUDGET_OBJECT, None);
    assert!(a.crd.accepted, "{fixed}\n{:#?}", a.findings);
    // The fix of the total, the same way.
    let total_fix = total.fix.as_ref().unwrap();
    assert!(!total_fix.cost.over());

    // Bounded, the rule is accepted and cheap.
    let bounded = OVER_BUDGET_CRD
        .replace(
            "type: array\n",
            "type: array\n                maxItems: 20\n",
        )
        .replace(
            "type: string\n",
            "type: string\n                  maxLength: 10\n",
        );
    let a = run(&bounded, OVER_BUDGET_OBJECT, None);
    assert!(a.crd.accepted, "{:#?}", a.findings);
    let view = cel_view(&a, None);
    let r = &view.rules[0];
    assert!(r.errors.is_empty());
    assert!(!r.cost.rule.unwrap().over());
    assert!(!view.total.unwrap().share.over());
}

#[test]
fn rules_sort_by_cost() {
    let rule = |cost: Option<u64>, message: Option<u64>| {
        let report = CelRuleReport {
            max_cost: cost,
            estimated_cost: cost,
            cardinality: Some(1),
            message_expression_max_cost: message,
            ..CelRuleReport::default()
        };
        RuleView {
            number: 0,
            key: String::new(),
            value_path: String::new(),
            crd_path: String::new(),
            place: String::new(),
            target: None,
            cost: RuleCost::of(&report),
            report,
            errors: Vec::new(),
            explanations: Vec::new(),
            failing: false,
            samples: Vec::new(),
        }
    };
    let rules = [
        rule(None, None),
        rule(Some(5), None),
        rule(Some(50), None),
        rule(Some(5), None),
        rule(Some(1), Some(70)),
    ];
    assert_eq!(rule_order(&rules, false), vec![0, 1, 2, 3, 4]);
    assert_eq!(rule_order(&rules, true), vec![4, 2, 1, 3, 0]);
}

/// A hand-made analysis: two rules, one failing on list items, one that does not compile.
#[test]
fn view_of_a_hand_made_analysis() {
    let at = |source, line, column, utf16_column| Location {
        source,
        document: 0,
        span: Span::point(Pos {
            offset: 0,
            line,
            column,
            utf16_column,
        }),
    };
    let mut a = Analysis::default();
    a.versions.push(crd_studio_engine::VersionReport {
            name: "v1".to_owned(),
            served: true,
            storage: true,
            has_schema: true,
            rules: vec![
                CelRuleReport {
                    key: "properties[spec].properties[items].items.x-kubernetes-validations[0]"
                        .to_owned(),
                    value_path: ".spec.items[*]".to_owned(),
                    rule: "self < 10".to_owned(),
                    line: Some(3),
                    column: Some(9),
                    text_range: Some((21, 30)),
                    // Line 3 of the CRD text starts with a two-unit character.
                    location: Some(at(SourceId::Crd, 3, 9, 10)),
                    ..CelRuleReport::default()
                },
                CelRuleReport {
                    key: "x-kubernetes-validations[0]".to_owned(),
                    rule: "self.nope".to_owned(),
                    compile_error: Some("compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope\n | ....^".to_owned()),
                    ..CelRuleReport::default()
                },
            ],
            ..Default::default()
        });
    a.objects.push(ObjectReport {
        source: 0,
        document: 0,
        operation: "create".to_owned(),
        api_version: "example.com/v1".to_owned(),
        kind: "Foo".to_owned(),
        name: "a".to_owned(),
        cel_runtime_cost: 6,
        cel_results: vec![
            result("spec.items[0]", CelOutcome::Passed, 3),
            result("spec.items[1]", CelOutcome::Failed, 3),
        ],
        places: ObjectPlaces {
            values: vec![FieldPlace {
                path: "spec.items[1]".to_owned(),
                location: at(SourceId::Object(0), 8, 5, 5),
                exact: true,
            }],
            ..ObjectPlaces::default()
        },
        ..ObjectReport::default()
    });
    let view = cel_view(&a, None);
    assert_eq!(view.version, Some(0));
    assert_eq!(
        view.summary.text(),
        "2 rules · 1 compile error · 1 failing on the sample"
    );
    assert_eq!(view.summary.runtime_cost, 6);
    let r = &view.rules[0];
    assert_eq!(r.number, 1);
    assert_eq!(r.value_path, ".spec.items[*]");
    assert_eq!(r.place, "crd.yaml:3:9");
    assert_eq!(
        r.target,
        Some(FocusTarget {
            pane: Pane::Crd,
            line: 3,
            utf16_column: 10,
        })
    );
    assert_eq!(r.cost.head_text(), "cost: —");
    assert!(r.failing);
    let s = &r.samples[0];
    assert_eq!(s.object, "Foo a");
    assert_eq!(s.summary, "1 × passed, 1 × failed at spec.items[1]");
    // The failing item is where the engine found it.
    let failed = &s.groups[1].evaluations[0];
    assert_eq!(
        failed.target,
        Some(FocusTarget {
            pane: Pane::Object,
            line: 8,
            utf16_column: 5,
        })
    );
    let r = &view.rules[1];
    assert!(r.has_compile_error());
    assert!(!r.failing);
    assert_eq!(r.value_path, ".");
    assert_eq!(r.target, None);
    assert_eq!(
        r.samples[0].note.as_deref(),
        Some("not run: the object has no value at .")
    );

    assert_eq!(tab_badge(&a), (2, true));
    // A version the object is not in.
    a.versions.push(crd_studio_engine::VersionReport {
        name: "v2".to_owned(),
        rules: vec![CelRuleReport::default()],
        ..Default::default()
    });
    let v2 = cel_view(&a, Some(1));
    assert_eq!(v2.version, Some(1));
    assert_eq!(
        v2.rules[0].samples[0].note.as_deref(),
        Some("not run: the object is v1, not v2")
    );
    assert_eq!(v2.versions.len(), 2);
    assert_eq!(v2.versions[1].rules, 1);
    // Out of range: back to the default.
    assert_eq!(cel_view(&a, Some(9)).version, Some(0));
}

#[test]
fn the_example_has_rules_that_run_on_the_sample() {
    let a = run(EXAMPLE_CRD, EXAMPLE_OBJECT, None);
    let view = cel_view(&a, None);
    assert!(view.rules.len() >= 2, "{view:#?}");
    assert_eq!(view.summary.compile_errors, 0, "{view:#?}");
    assert_eq!(view.summary.failing, 0, "{view:#?}");
    assert_eq!(tab_badge(&a), (view.rules.len(), false));
    assert!(view.rules.iter().any(|r| r.report.transition));
    // Every rule is located in the CRD, and its place is its scalar.
    for r in &view.rules {
        let (start, end) = r.report.text_range.unwrap();
        let t = r.target.unwrap();
        let at = r.report.location.unwrap().span.start;
        assert_eq!(at.offset, start);
        assert_eq!((t.line, t.utf16_column), (at.line, at.utf16_column));
        assert!(EXAMPLE_CRD[start..end].contains(r.report.rule.as_str()));
    }
    // A transition rule is skipped on create, runs on update.
    let transition = view.rules.iter().find(|r| r.report.transition).unwrap();
    assert_eq!(transition.samples[0].groups[0].outcome, CelOutcome::Skipped);
    let a = run(EXAMPLE_CRD, EXAMPLE_OBJECT, Some(EXAMPLE_OBJECT));
    let view = cel_view(&a, None);
    let transition = view.rules.iter().find(|r| r.report.transition).unwrap();
    assert_eq!(transition.samples[0].operation, "update");
    assert_eq!(transition.samples[0].summary, "1 × passed");
    let target = transition.samples[0].groups[0].evaluations[0]
        .target
        .unwrap();
    let line = EXAMPLE_OBJECT.lines().nth(target.line - 1).unwrap();
    assert!(line.trim_start().starts_with("image:"), "{line}");
}
