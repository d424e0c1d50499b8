use super::*;
use crate::documents::document::parse;
use crate::documents::finding::SourceId;
use crate::report::analysis::{Analysis, CompiledCrd, Options};

/// A CRD with one version whose `openAPIV3Schema` is `schema` (YAML).
fn crd(schema: &str) -> String {
    let schema: String = schema.lines().map(|l| format!("        {l}\n")).collect();
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    listKind: WidgetList
    plural: widgets
    singular: widget
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
{schema}"
    )
}

fn analysis(text: &str) -> Analysis {
    CompiledCrd::compile(text, &Options::default()).analyze_objects(&[], None)
}

fn report(a: &Analysis) -> &CostReport {
    a.versions[0].cost.as_ref().expect("a cost report")
}

fn expression<'a>(r: &'a CostReport, field: &str) -> &'a ExpressionCost {
    r.expressions
        .iter()
        .find(|e| e.field == field)
        .unwrap_or_else(|| panic!("no expression {field} in {:#?}", r.expressions))
}

fn edits(fix: &Fix) -> Vec<TextEdit> {
    fix.bounds
        .iter()
        .map(|b| b.edit.clone().expect("an edit"))
        .collect()
}

/// Applies the suggestion of the expression `field` (over its limit) to the CRD text: the
/// CRD is then accepted, and the expression's cost is the suggestion's. Returns the new text.
fn check_suggestion(text: &str, field: &str) -> String {
    let a = analysis(text);
    assert!(!a.crd.accepted, "the CRD must be rejected first");
    let r = report(&a);
    let e = expression(r, field);
    assert!(e.over_limit, "{e:#?}");
    let message = e.message.as_deref().unwrap();
    assert!(
        a.crd.errors.iter().any(|x| x.detail == message),
        "the server's message {message:?} in {:#?}",
        a.crd.errors
    );
    let fix = e.suggestion.as_ref().unwrap_or_else(|| panic!("{e:#?}"));
    assert!(fix.cost <= STATIC_ESTIMATED_COST_LIMIT);
    let fixed = apply_edits(text, &edits(fix));
    let b = analysis(&fixed);
    assert!(b.crd.accepted, "{fixed}\n{:#?}", b.crd.errors);
    let after = expression(report(&b), field);
    assert_eq!(after.estimated_cost, fix.cost, "{fixed}");
    assert!(!after.over_limit);
    // The rule list shows the same figure.
    let rule = b.versions[0]
        .rules
        .iter()
        .find(|r| format!("{}.rule", r.key) == field);
    if let Some(rule) = rule {
        assert_eq!(rule.estimated_cost, Some(fix.cost));
    }
    // Each single-bound fix of a driver works alone, too.
    for d in &e.drivers {
        if let Some(f) = &d.fix {
            let one = apply_edits(text, &[f.edit.clone().unwrap()]);
            let c = analysis(&one);
            let got = expression(report(&c), field).estimated_cost;
            assert!(got <= STATIC_ESTIMATED_COST_LIMIT, "{one}");
            assert!(c.crd.accepted, "{one}\n{:#?}", c.crd.errors);
            // The next round value, or the largest that fits plus one, does not fit.
            if let Some(largest) = f.largest {
                assert!(largest >= f.value);
            }
        }
    }
    fixed
}

/// A rule iterating an unbounded list of unbounded strings.
const LIST_OF_STRINGS: &str = r#"type: object
properties:
  spec:
    type: object
    properties:
      names:
        type: array
        items:
          type: string
        x-kubernetes-validations:
        - rule: self.all(n, n.matches('^[a-z]+$'))
"#;

#[test]
fn list_of_unbounded_strings() {
    let text = crd(LIST_OF_STRINGS);
    let a = analysis(&text);
    let r = report(&a);
    let field = "properties[spec].properties[names].x-kubernetes-validations[0].rule";
    let e = expression(r, field);
    // 1,048,575 strings of 3,145,726 characters: each `matches` costs
    // ceil(3,145,727 × 0.1) × ceil(8 × 0.25) = 629,146, plus 4 per iteration, plus 2.
    assert_eq!(e.max_cost, 2 + 1_048_575 * (629_146 + 4));
    assert_eq!(e.cardinality, Some(1));
    assert_eq!(e.estimated_cost, e.max_cost);
    assert_eq!(
        e.message.as_deref(),
        Some("estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)")
    );
    // Both the list and its strings drive the cost; bounding the list helps most.
    let drivers: Vec<(BoundKind, &str, Option<u64>, u64)> = e
        .drivers
        .iter()
        .map(|d| (d.bound, d.path.as_str(), d.current, d.assumed_size))
        .collect();
    assert_eq!(
        drivers,
        vec![
            (
                BoundKind::MaxItems,
                "properties[spec].properties[names]",
                None,
                1_048_575
            ),
            (
                BoundKind::MaxLength,
                "properties[spec].properties[names].items",
                None,
                3_145_726
            ),
        ]
    );
    assert!(e.drivers.iter().all(|d| d.role == DriverRole::InSelf));
    // At the `names:` key; each string takes at least 2 bytes (`""`).
    assert_eq!(
        (e.drivers[0].line, e.drivers[0].column),
        (Some(24), Some(15))
    );
    assert_eq!(e.drivers[0].element_min_size, Some(2));
    assert_eq!(
        (e.drivers[1].line, e.drivers[1].column),
        (Some(26), Some(17))
    );
    assert_eq!(e.drivers[1].element_min_size, None);
    // Each driver's location is the same place, with its UTF-16 column (ASCII: the same).
    for d in &e.drivers {
        let at = d.location.unwrap();
        assert_eq!(at.source, crate::documents::finding::SourceId::Crd);
        let s = at.span.start;
        assert_eq!(
            (Some(s.line), Some(s.column), s.utf16_column),
            (d.line, d.column, d.column.unwrap())
        );
    }
    // Alone, the list bound must be tiny (10 strings of 3 MiB); together both are sensible.
    let alone = e.drivers[0].fix.as_ref().unwrap();
    assert_eq!((alone.value, alone.largest), (10, Some(15)));
    let s = e.suggestion.as_ref().unwrap();
    let bounds: Vec<(BoundKind, u64)> = s.bounds.iter().map(|b| (b.bound, b.value)).collect();
    assert_eq!(
        bounds,
        vec![(BoundKind::MaxItems, 5000), (BoundKind::MaxLength, 2048)]
    );
    // 5000 × (ceil(8193 × 0.1) × 2 + 4) + 2.
    assert_eq!(s.cost, 5000 * (820 * 2 + 4) + 2);
    let fixed = check_suggestion(&text, field);
    assert!(fixed
        .contains("      names:\n                maxItems: 5000\n                type: array\n"));
    assert!(fixed.contains("maxLength: 2048\n                  type: string\n"));
}

/// Nested `all()` over unbounded lists.
const NESTED_ALL: &str = r#"type: object
properties:
  spec:
    type: object
    properties:
      matrix:
        type: array
        items:
          type: array
          items:
            type: integer
    x-kubernetes-validations:
    - rule: self.matrix.all(row, row.all(x, x >= 0))
"#;

#[test]
fn nested_all_over_unbounded_lists() {
    let text = crd(NESTED_ALL);
    let a = analysis(&text);
    let field = "properties[spec].x-kubernetes-validations[0].rule";
    let e = expression(report(&a), field);
    assert!(e.over_limit);
    let paths: Vec<&str> = e.drivers.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        vec![
            "properties[spec].properties[matrix]",
            "properties[spec].properties[matrix].items"
        ]
    );
    check_suggestion(&text, field);
}

/// A rule on maps that are items of a list: the cardinality is unbounded (both the list and
/// the maps above the values are).
const LIST_OF_MAPS: &str = r#"type: object
properties:
  spec:
    type: object
    properties:
      groups:
        type: array
        items:
          type: object
          additionalProperties:
            type: string
            x-kubernetes-validations:
            - rule: self.startsWith('a') && self.endsWith('z')
"#;

#[test]
fn rule_under_a_list_of_maps() {
    let text = crd(LIST_OF_MAPS);
    let a = analysis(&text);
    let field = "properties[spec].properties[groups].items.additionalProperties.x-kubernetes-validations[0].rule";
    let e = expression(report(&a), field);
    assert_eq!(e.cardinality, None);
    // 3 MiB / ("" + 1).
    assert_eq!(e.max_cardinality, 3_145_728 / 3);
    assert_eq!(e.multiplier, e.max_cardinality);
    assert_eq!(e.estimated_cost, e.max_cost * e.max_cardinality);
    let drivers: Vec<(DriverRole, BoundKind, &str)> = e
        .drivers
        .iter()
        .map(|d| (d.role, d.bound, d.path.as_str()))
        .collect();
    assert_eq!(
        drivers,
        vec![
            (
                DriverRole::Cardinality,
                BoundKind::MaxItems,
                "properties[spec].properties[groups]"
            ),
            (
                DriverRole::Cardinality,
                BoundKind::MaxProperties,
                "properties[spec].properties[groups].items"
            ),
        ]
    );
    if e.over_limit {
        // Neither bound alone makes the cardinality bounded.
        assert!(e.drivers.iter().all(|d| d.fix.is_none()));
        assert_eq!(e.suggestion.as_ref().unwrap().bounds.len(), 2);
        check_suggestion(&text, field);
    }
}

/// The same with a costly rule, so it is over the limit.
#[test]
fn costly_rule_under_a_list_of_maps() {
    let text = crd(&LIST_OF_MAPS.replace(
        "self.startsWith('a') && self.endsWith('z')",
        "self.matches('^[a-z]+$')",
    ));
    let field = "properties[spec].properties[groups].items.additionalProperties.x-kubernetes-validations[0].rule";
    let a = analysis(&text);
    let e = expression(report(&a), field);
    assert!(e.over_limit);
    let roles: Vec<DriverRole> = e.drivers.iter().map(|d| d.role).collect();
    assert_eq!(
        roles,
        vec![
            DriverRole::Cardinality,
            DriverRole::Cardinality,
            DriverRole::InSelf
        ]
    );
    check_suggestion(&text, field);
}

/// Bounds suggested for one rule must not push another over its limit: bounding two nested
/// lists above a rule multiplies its cardinality, which can exceed the request-size estimate
/// used while one of them is unbounded.
#[test]
fn a_suggestion_breaks_no_other_rule() {
    // B: 9 per value × 1,048,576 values of 3 MiB / 3 bytes = 9,437,184, within the limit
    // while the lists above are unbounded; 9 × groups × members once both are bounded.
    let text = crd(r#"type: object
properties:
  spec:
    type: object
    properties:
      groups:
        type: array
        items:
          type: object
          properties:
            members:
              type: array
              items:
                type: string
                x-kubernetes-validations:
                - rule: self.startsWith('abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz')
          x-kubernetes-validations:
          - rule: self.members.all(m, m != '')
"#);
    let a_field = "properties[spec].properties[groups].items.x-kubernetes-validations[0].rule";
    let b_field = "properties[spec].properties[groups].items.properties[members].items.x-kubernetes-validations[0].rule";
    let a = analysis(&text);
    let r = report(&a);
    let b = expression(r, b_field);
    assert_eq!((b.cardinality, b.max_cost), (None, 9));
    assert!(!b.over_limit);
    let fixed = check_suggestion(&text, a_field);
    let after = analysis(&fixed);
    assert!(!report(&after).over_limit(), "{fixed}");
}

/// Rules each under the per-rule limit whose total is over 100,000,000: the fix bounds them
/// all.
#[test]
fn total_over_the_limit() {
    let mut rules = String::new();
    for i in 0..24 {
        rules.push_str(&format!("        - rule: self.all(x, x.size() > {i})\n"));
    }
    let text = crd(&format!(
        "type: object
properties:
  spec:
    type: object
    properties:
      a:
        type: array
        items:
          type: string
          maxLength: 10
        x-kubernetes-validations:
{rules}"
    ));
    let a = analysis(&text);
    let r = report(&a);
    assert!(r.total_over_limit);
    assert!(r.expressions.iter().all(|e| !e.over_limit));
    assert_eq!(
        r.total,
        r.expressions.iter().map(|e| e.estimated_cost).sum::<u64>()
    );
    assert_eq!(r.top_contributors.len(), 4);
    assert_eq!(
        r.total_message.as_deref(),
        a.crd
            .errors
            .iter()
            .find(|e| e.field == "spec.validation.openAPIV3Schema")
            .map(|e| e.detail.as_str())
    );
    let fix = r.fix.as_ref().unwrap();
    let fixed = apply_edits(&text, &edits(fix));
    let b = analysis(&fixed);
    assert!(b.crd.accepted, "{fixed}\n{:#?}", b.crd.errors);
    assert_eq!(report(&b).total, fix.cost);
    assert!(!report(&b).over_limit());
}

/// Under the limits: figures, no suggestion, and cheap rules are not explained.
#[test]
fn costs_under_the_limits() {
    let text = crd(r#"type: object
x-kubernetes-validations:
- rule: has(self.spec)
  messageExpression: "'spec is ' + self.spec.name"
properties:
  spec:
    type: object
    properties:
      name:
        type: string
        maxLength: 10
      items:
        type: array
        maxItems: 10
        items:
          type: object
          properties:
            name:
              type: string
          x-kubernetes-validations:
          - rule: self.name.contains('x')
"#);
    let a = analysis(&text);
    assert!(a.crd.accepted, "{:#?}", a.crd.errors);
    let r = report(&a);
    assert!(!r.over_limit());
    assert!(r.fix.is_none());
    let fields: Vec<&str> = r.expressions.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        vec![
            "x-kubernetes-validations[0].rule",
            "x-kubernetes-validations[0].messageExpression",
            "properties[spec].properties[items].items.x-kubernetes-validations[0].rule",
        ]
    );
    let root = &r.expressions[0];
    assert!(root.drivers.is_empty());
    assert_eq!((root.line, root.column), (Some(21), Some(17)));
    let msg = &r.expressions[1];
    assert_eq!(msg.kind, ExpressionKind::MessageExpression);
    assert_eq!(msg.cardinality, Some(1));
    // The items' rule: 10 × (2 + ceil(3,145,726 × 0.1) × ceil(1 × 0.1)): the unbounded
    // name is the driver; the list above it is bounded and counted.
    let items = &r.expressions[2];
    assert_eq!(items.cardinality, Some(10));
    assert_eq!(items.max_cost, 2 + 314_573);
    assert_eq!(items.estimated_cost, 10 * (2 + 314_573));
    assert!(!items.over_limit);
    let d: Vec<(DriverRole, &str)> = items
        .drivers
        .iter()
        .map(|d| (d.role, d.path.as_str()))
        .collect();
    assert_eq!(
        d,
        vec![
            (
                DriverRole::Cardinality,
                "properties[spec].properties[items]"
            ),
            (
                DriverRole::InSelf,
                "properties[spec].properties[items].items.properties[name]"
            ),
        ]
    );
    assert_eq!(items.drivers[0].current, Some(10));
    assert!(items.suggestion.is_none() && items.drivers.iter().all(|d| d.fix.is_none()));
    // The report's figures equal the rule list's.
    for rule in &a.versions[0].rules {
        let e = expression(r, &format!("{}.rule", rule.key));
        assert_eq!(Some(e.estimated_cost), rule.estimated_cost);
        assert_eq!(e.cardinality, rule.cardinality);
    }
}

/// A bound is never suggested below the schema's minimum or the default's size, and an
/// existing bound is lowered in place.
#[test]
fn existing_bounds_and_minimums() {
    let text = crd(r#"type: object
properties:
  spec:
    type: object
    properties:
      names:
        type: array
        maxItems: 100000
        minItems: 20
        items:
          type: string
          maxLength: 100000
        x-kubernetes-validations:
        - rule: self.all(n, n.matches('^[a-z]+$'))
"#);
    let field = "properties[spec].properties[names].x-kubernetes-validations[0].rule";
    let a = analysis(&text);
    let e = expression(report(&a), field);
    assert!(e.over_limit);
    let of = |b: BoundKind| e.drivers.iter().find(|d| d.bound == b).unwrap();
    assert_eq!(of(BoundKind::MaxItems).current, Some(100_000));
    assert_eq!(of(BoundKind::MaxItems).assumed_size, 100_000);
    assert_eq!(of(BoundKind::MaxLength).current, Some(100_000));
    assert_eq!(of(BoundKind::MaxLength).assumed_size, 400_000);
    for d in &e.drivers {
        let f = d.fix.as_ref();
        if let Some(f) = f {
            if f.bound == BoundKind::MaxItems {
                assert!(f.value >= 20);
            }
            let edit = f.edit.as_ref().unwrap();
            assert_ne!(edit.start, edit.end, "a replacement of the existing value");
        }
    }
    let fixed = check_suggestion(&text, field);
    assert!(!fixed.contains("100000"), "{fixed}");
}

/// A rule that no bound can fix gets a note.
#[test]
fn no_bound_helps() {
    // A list literal of 1,000,000 elements is too long to write; a bounded ancestor with a
    // huge cardinality and a fixed-cost rule: lowering the ancestor is the only lever.
    let text = crd(r#"type: object
properties:
  spec:
    type: object
    properties:
      a:
        type: array
        maxItems: 20000000
        items:
          type: integer
          x-kubernetes-validations:
          - rule: self >= 0
"#);
    let field = "properties[spec].properties[a].items.x-kubernetes-validations[0].rule";
    let a = analysis(&text);
    let e = expression(report(&a), field);
    assert!(e.over_limit);
    assert_eq!(e.cardinality, Some(20_000_000));
    assert_eq!(e.drivers.len(), 1);
    assert_eq!(e.drivers[0].role, DriverRole::Cardinality);
    check_suggestion(&text, field);
    // `string(int)` has no size bound: the concatenation's estimate is unbounded whatever
    // the schema says.
    let text = crd(r#"type: object
x-kubernetes-validations:
- rule: has(self.spec)
  messageExpression: "'count is ' + string(self.spec.count)"
properties:
  spec:
    type: object
    properties:
      count:
        type: integer
"#);
    let a = analysis(&text);
    let r = report(&a);
    let e = expression(r, "x-kubernetes-validations[0].messageExpression");
    assert!(e.over_limit);
    assert_eq!(e.cardinality, Some(1));
    assert!(e.drivers.is_empty() && e.suggestion.is_none());
    // Issue 14, item 7g: the note names the expensive call, where it is, its share, and
    // what to do, instead of a dead end.
    let call = e.expensive_call.as_ref().expect("the expensive call");
    assert_eq!(
        (
            call.function.as_str(),
            call.cel_function.as_str(),
            call.line,
            call.column
        ),
        ("+", "_+_", 1, 13)
    );
    assert!(call.share > 0.99, "{call:?}");
    assert_eq!(call.unbounded_operands, [("string".to_owned(), 1, 15)]);
    assert_eq!(
        e.note.as_deref(),
        Some(format!(
            "no list, map or string bound lowers this cost: the expensive call is the + operator at 1:13 of the expression, about 100% of its estimated cost ({}); the estimator cannot bound the size of string(…) at 1:15, so it assumes the largest string a request can hold; use a fixed `message` instead, or leave that value out of the message",
            call.cost
        ).as_str())
    );
    assert!(r.fix.is_none());
    assert_eq!(
        r.fix_note.as_deref(),
        Some("no list, map or string bound lowers these costs: simplify the expressions (x-kubernetes-validations[0].messageExpression spends it in + at 1:13)")
    );
}

/// The same CRD written as JSON: the edits are JSON.
#[test]
fn json_crd() {
    let yaml = crd(LIST_OF_STRINGS);
    let parsed = parse(&yaml, SourceId::Crd);
    let value = parsed.values().next().unwrap().1.to_json();
    let text = serde_json::to_string_pretty(&value).unwrap();
    let field = "properties[spec].properties[names].x-kubernetes-validations[0].rule";
    let fixed = check_suggestion(&text, field);
    assert!(fixed.contains("\"maxItems\": 5000,\n"), "{fixed}");
    let compact = serde_json::to_string(&value).unwrap();
    let fixed = check_suggestion(&compact, field);
    assert!(fixed.contains("{\"maxItems\": 5000, \"items\""), "{fixed}");
}

// ------------------------------------------------------------------------------------------
// The text edit
// ------------------------------------------------------------------------------------------

/// `text` with `keyword: value` set in the mapping at `path` (keys from the root).
fn edit_at(text: &str, path: &[&str], keyword: &str, value: u64) -> Option<String> {
    let parsed = parse(text, SourceId::Crd);
    let mut node = parsed.values().next()?.1;
    for key in path {
        node = node.get(key)?;
    }
    bound_edit(text, node, keyword, value).map(|e| e.apply(text))
}

#[test]
fn bound_edit_table() {
    let cases: &[(&str, &[&str], Option<&str>)] = &[
        // A block mapping: a line of its own, same indentation.
        (
            "a:\n  type: array\n  items: {}\n",
            &["a"],
            Some("a:\n  maxItems: 8\n  type: array\n  items: {}\n"),
        ),
        // Comments and blank lines before the first key stay where they are.
        (
            "a: # the list\n\n    type: array\n",
            &["a"],
            Some("a: # the list\n\n    maxItems: 8\n    type: array\n"),
        ),
        // The first key after `- `.
        (
            "l:\n- type: array\n  items: {}\n",
            &["l", "0"],
            None, // sequences are not walked by `edit_at`
        ),
        // An existing bound is replaced.
        (
            "a:\n  type: array\n  maxItems: 100000 # big\n",
            &["a"],
            Some("a:\n  type: array\n  maxItems: 8 # big\n"),
        ),
        // A flow mapping, inline.
        (
            "a: {type: array, items: {}}\n",
            &["a"],
            Some("a: {maxItems: 8, type: array, items: {}}\n"),
        ),
        // An empty flow mapping.
        ("a: {}\n", &["a"], Some("a: {maxItems: 8}\n")),
        // JSON, compact and pretty.
        (
            "{\"a\": {\"type\": \"array\"}}",
            &["a"],
            Some("{\"a\": {\"maxItems\": 8, \"type\": \"array\"}}"),
        ),
        (
            "{\n  \"a\": {\n    \"type\": \"array\"\n  }\n}\n",
            &["a"],
            Some("{\n  \"a\": {\n    \"maxItems\": 8,\n    \"type\": \"array\"\n  }\n}\n"),
        ),
        // An alias: the mapping is written elsewhere (and shared).
        ("x: &s\n  type: array\na: *s\n", &["a"], None),
        // Not a mapping.
        ("a: 1\n", &["a"], None),
        // CRLF line breaks are kept.
        (
            "a:\r\n  type: array\r\n",
            &["a"],
            Some("a:\r\n  maxItems: 8\r\n  type: array\r\n"),
        ),
        // An explicit key: not offered.
        ("a:\n  ? type\n  : array\n", &["a"], None),
        // A quoted block key.
        (
            "a:\n  \"type\": array\n",
            &["a"],
            Some("a:\n  maxItems: 8\n  \"type\": array\n"),
        ),
    ];
    for (text, path, want) in cases {
        assert_eq!(
            edit_at(text, path, "maxItems", 8).as_deref(),
            *want,
            "{text:?}"
        );
    }
    // The first key after `- `: the new line is indented to the key's column.
    let text = "l:\n- type: array\n  items: {}\n";
    let parsed = parse(text, SourceId::Crd);
    let item = &parsed
        .values()
        .next()
        .unwrap()
        .1
        .get("l")
        .unwrap()
        .as_seq()
        .unwrap()[0];
    let out = bound_edit(text, item, "maxItems", 8).unwrap().apply(text);
    assert_eq!(out, "l:\n- maxItems: 8\n  type: array\n  items: {}\n");
    // Every edited text parses to the same value with the bound added.
    for (text, path, want) in cases {
        let Some(want) = want else { continue };
        let before = parse(text, SourceId::Crd)
            .values()
            .next()
            .unwrap()
            .1
            .to_json();
        let after = parse(want, SourceId::Crd)
            .values()
            .next()
            .unwrap()
            .1
            .to_json();
        let mut expected = before.clone();
        let mut target = &mut expected;
        for key in *path {
            target = target.get_mut(*key).unwrap();
        }
        target
            .as_object_mut()
            .unwrap()
            .insert("maxItems".to_owned(), serde_json::json!(8));
        assert_eq!(after, expected, "{want:?}");
    }
}

#[test]
fn ladder_values() {
    assert_eq!(
        ladder(1, 1000),
        vec![1, 2, 5, 10, 16, 20, 32, 50, 64, 100, 128, 200, 256, 500, 512]
    );
    assert_eq!(ladder(3, 17), vec![3, 5, 10, 16]);
    assert_eq!(ladder(5, 5), Vec::<u64>::new());
    assert!(ladder(1, u64::MAX).len() > 60);
    assert!(is_round(2048) && is_round(5000) && !is_round(4000) && !is_round(8192));
}

#[test]
fn server_cost_helpers() {
    let (chain, _) = JsonSchemaProps::from_json(&serde_json::json!({
        "type": "array", "maxItems": 5}));
    let (map, _) = JsonSchemaProps::from_json(&serde_json::json!({
        "type": "object", "maxProperties": 3, "additionalProperties": {"type": "string"}}));
    let (open, _) = JsonSchemaProps::from_json(&serde_json::json!({"type": "array"}));
    let (leaf, _) = JsonSchemaProps::from_json(&serde_json::json!({"type": "string"}));
    assert_eq!(
        chain_cardinality(&[chain.clone(), map.clone(), leaf.clone()]),
        Some(15)
    );
    assert_eq!(chain_cardinality(&[chain, open, map, leaf.clone()]), None);
    assert_eq!(chain_cardinality(&[leaf]), Some(1));
    assert_eq!(
        total_cost(&[5, 2_000_000, 1_000_000, 999_999, 3_000_000, 4_000_000, 2_500_000]),
        (13_500_004, vec![4_000_000, 3_000_000, 2_500_000, 2_000_000])
    );
    assert_eq!(total_cost(&[u64::MAX, 1]).0, u64::MAX);
}

/// The re-estimates compile a node's rules on their own (its subtree) and compute the
/// cardinality from the bounds above it: with no bound, that gives what CRD validation found
/// for every rule and messageExpression of the corpus.
#[test]
fn corpus_rules_compiled_on_their_own_cost_the_same() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/crds");
    let mut files = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml" || x == "json") {
                files.push(p);
            }
        }
    }
    if files.is_empty() {
        eprintln!("no corpus: skipped");
        return;
    }
    let compiler = RuleCompiler::new(crate::documents::kube_version::KubernetesVersion::DEFAULT);
    let mut checked = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let c = CompiledCrd::compile(&text, &Options::default());
        let Some(internal) = c.internal() else {
            continue;
        };
        let versions = c.analyze_objects(&[], None).versions;
        for (v, report) in internal.spec.versions.iter().zip(&versions) {
            let Some(schema) = v
                .schema
                .as_ref()
                .or(internal.spec.validation.as_ref())
                .and_then(|s| s.open_api_v3_schema.as_deref())
            else {
                continue;
            };
            let Some(est) = estimates(&compiler, schema, &report.rules) else {
                continue;
            };
            for x in &est.exprs {
                let compiled = est.compile_node(x.node, &[]).unwrap();
                let c = &compiled[x.index];
                let what = format!("{f:?} {}", expr_field(&est.nodes, x));
                match x.kind {
                    ExpressionKind::Rule => assert_eq!(c.max_cost, x.base.max_cost, "{what}"),
                    ExpressionKind::MessageExpression => {
                        assert_eq!(c.message_expression_max_cost, x.cost, "{what}")
                    }
                }
                assert_eq!(c.max_cardinality, x.base.max_cardinality, "{what}");
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

/// Versions with the same schema (held once, as `spec.validation`) each get the report, with
/// the places and edits of their own copy in the text.
#[test]
fn versions_sharing_a_schema() {
    let one = crd(LIST_OF_STRINGS);
    let (head, schema) = one.split_at(one.find("  - name: v1").unwrap());
    let v2 = schema
        .replace("- name: v1", "- name: v2")
        .replace("storage: true", "storage: false");
    let text = format!("{head}{schema}{v2}");
    let a = analysis(&text);
    assert_eq!(a.versions.len(), 2);
    let field = "properties[spec].properties[names].x-kubernetes-validations[0].rule";
    let e1 = expression(a.versions[0].cost.as_ref().unwrap(), field);
    let e2 = expression(a.versions[1].cost.as_ref().unwrap(), field);
    assert_eq!(e1.estimated_cost, e2.estimated_cost);
    assert_eq!(
        e2.crd_path,
        format!("spec.versions[1].schema.openAPIV3Schema.{field}")
    );
    assert!(e2.line.unwrap() > e1.line.unwrap());
    let (f1, f2) = (
        e1.suggestion.as_ref().unwrap(),
        e2.suggestion.as_ref().unwrap(),
    );
    assert_eq!(f1.cost, f2.cost);
    assert!(f2.bounds[0].edit.as_ref().unwrap().start > f1.bounds[0].edit.as_ref().unwrap().start);
    // Both versions fixed: accepted.
    let mut all = edits(f1);
    all.extend(edits(f2));
    let fixed = apply_edits(&text, &all);
    let b = analysis(&fixed);
    assert!(b.crd.accepted, "{fixed}\n{:#?}", b.crd.errors);
}

/// Many expressions over their limits, whose own suggestions together would exceed the
/// total: the schema's fix gives each a fair share and is accepted.
#[test]
fn many_rules_over_their_limits() {
    let mut props = String::new();
    for i in 0..12 {
        props.push_str(&format!(
            "      l{i}:\n        type: array\n        items:\n          type: object\n          properties:\n            s:\n              type: string\n            t:\n              type: array\n              items:\n                type: string\n        x-kubernetes-validations:\n        - rule: self.all(x, x.s.matches('^a') && x.t.all(y, y.contains('b')))\n          messageExpression: \"'bad ' + self[0].s\"\n"
        ));
    }
    let text = crd(&format!(
        "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n{props}"
    ));
    let a = analysis(&text);
    let r = report(&a);
    assert_eq!(r.expressions.iter().filter(|e| e.over_limit).count(), 12);
    // Each suggestion alone is fine, all of them together exceed the total.
    let mut own = Vec::new();
    for e in r.expressions.iter().filter(|e| e.over_limit) {
        own.extend(edits(e.suggestion.as_ref().unwrap()));
    }
    let together = analysis(&apply_edits(&text, &own));
    assert!(report(&together).total_over_limit);
    assert!(report(&together).expressions.iter().all(|e| !e.over_limit));
    let fix = r.fix.as_ref().unwrap();
    let fixed = apply_edits(&text, &edits(fix));
    let b = analysis(&fixed);
    assert!(b.crd.accepted, "{fixed}\n{:#?}", b.crd.errors);
    assert_eq!(report(&b).total, fix.cost);
}

/// cel-go v0.29.2 `checker/cost.go` `functionCost` and `interpreter/runtimecost.go`
/// `costCall`: `case overloads.Matches, overloads.MatchesString` (cel-go #1350): the global
/// form `matches(s, re)` is sized like `s.matches(re)`, estimated and at runtime.
#[test]
fn matches_function_form_costs_the_member_form() {
    let text = crd(r#"type: object
properties:
  spec:
    type: object
    properties:
      a:
        type: string
        x-kubernetes-validations:
        - rule: matches(self, '^a.*$')
      b:
        type: string
        x-kubernetes-validations:
        - rule: self.matches('^a.*$')
      c:
        type: string
        maxLength: 10
        x-kubernetes-validations:
        - rule: matches(self, '^a.*$')
"#);
    let compiled = CompiledCrd::compile(&text, &Options::default());
    let object = "apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  a: abcdefghijklmnopqrstuvwxyz0123456789
  b: abcdefghijklmnopqrstuvwxyz0123456789
";
    let a = compiled.analyze_objects(&[object.to_string()], None);
    // (a, b) unbounded: 1 + ceil(3,145,727 × 0.1) × ceil(5 × 0.25) = 629,147; c:
    // 1 + ceil(11 × 0.1) × 2 = 11.
    let costs: Vec<Option<u64>> = a.versions[0]
        .rules
        .iter()
        .map(|r| r.estimated_cost)
        .collect();
    assert_eq!(costs, [Some(629_147), Some(629_147), Some(11)]);
    // 36 characters: 1 (self) + ceil(37 × 0.1) × ceil(5 × 0.25) = 9, in both forms.
    let runtime: Vec<(String, u64)> = a.objects[0]
        .cel_results
        .iter()
        .map(|r| (r.path.clone(), r.cost))
        .collect();
    assert_eq!(
        runtime,
        [("spec.a".to_string(), 9), ("spec.b".to_string(), 9)]
    );
}
