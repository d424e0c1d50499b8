//! The CRD's `x-kubernetes-validations` rules as the CEL view lists them
//! ([`CelRuleReport`]s, one list per version), and compile errors located inside the rule's
//! text.
//!
//! The rules are collected from the server's internal schema (per version, or shared by every
//! version) in [`rule_key`] order; the compile results come from the CRD validation that just
//! ran: [`RecordingCompiler`] keeps what the rule compiler returned for every schema node, and
//! the validation errors give the server's texts. Positions come from the user's v1 text,
//! where every version has its own copy of the schema.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use crd_studio_cel::ast::{Expr, ExprKind};
use crd_studio_cel::{Parser, ParserOptions};

use crate::cel::report::{rule_key, CelRuleReport};
use crate::crd::apiext::{CelCompilation, CelCompileFailure, CelCompiler, CelRuleSite, CelStep};
use crate::documents::document::{Node, Value};
use crate::documents::field_error::FieldError;
use crate::documents::finding::{Location, SourceId};
use crate::documents::path::{FieldPath, Segment};
use crate::documents::position::{LineIndex, Span};
use crate::documents::scalar_pos::ScalarText;
use crate::schema::props::{JsonSchemaProps, SchemaOrArray};

use super::{rule_cost, OLD_SCOPED_VAR_NAME};
use crate::crd::apiext::schema_validation::child_cardinality;

/// What the rule compiler returned for each schema node it compiled, by the node's internal
/// field path (`spec.validation.openAPIV3Schema.properties[spec]`).
pub type CompileRecords = BTreeMap<String, Vec<CelCompilation>>;

/// A [`CelCompiler`] that passes every call to another one and keeps the results, so the
/// analysis can show what CRD validation compiled without compiling twice.
pub struct RecordingCompiler<'a> {
    inner: &'a dyn CelCompiler,
    records: RefCell<CompileRecords>,
}

impl std::fmt::Debug for RecordingCompiler<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordingCompiler")
            .field("records", &self.records.borrow().len())
            .finish()
    }
}

impl<'a> RecordingCompiler<'a> {
    /// Records what `inner` compiles.
    pub fn new(inner: &'a dyn CelCompiler) -> RecordingCompiler<'a> {
        RecordingCompiler {
            inner,
            records: RefCell::new(BTreeMap::new()),
        }
    }

    /// The results, by node path.
    pub fn into_records(self) -> CompileRecords {
        self.records.into_inner()
    }
}

impl CelCompiler for RecordingCompiler<'_> {
    fn compile(&self, site: &CelRuleSite<'_>) -> Result<Vec<CelCompilation>, CelCompileFailure> {
        let result = self.inner.compile(site);
        if let Ok(results) = &result {
            self.records
                .borrow_mut()
                .insert(site.path.to_string(), results.clone());
        }
        result
    }
}

/// What [`version_rules`] reads besides the schema and the CRD validation errors.
#[derive(Clone, Copy, Debug)]
pub struct RulesInput<'a> {
    /// The CRD text.
    pub text: &'a str,
    /// The root of the CRD document as written (v1), when there is one.
    pub root: Option<&'a Node>,
    /// The index of that document in the CRD text.
    pub document: usize,
    /// The rule compiler's results.
    pub records: &'a CompileRecords,
}

/// The errors by field path text, for the lookups of one CRD.
pub fn errors_by_path(errors: &[FieldError]) -> HashMap<String, Vec<&FieldError>> {
    let mut out: HashMap<String, Vec<&FieldError>> = HashMap::new();
    for e in errors {
        out.entry(e.field.to_string()).or_default().push(e);
    }
    out
}

/// The schema node of version `version_index` in the CRD text
/// (`spec.versions[i].schema.openAPIV3Schema`).
fn version_schema_node(root: Option<&Node>, version_index: usize) -> Option<&Node> {
    root.and_then(|r| r.get("spec"))
        .and_then(|s| s.get("versions"))
        .and_then(Node::as_seq)
        .and_then(|vs| vs.get(version_index))
        .and_then(|v| v.get("schema"))
        .and_then(|s| s.get("openAPIV3Schema"))
}

/// Where each rule of [`version_rules_with_steps`] is: its node's steps from the schema root
/// and its index among the node's rules.
pub type RuleSteps = Vec<(Vec<CelStep>, usize)>;

/// [`version_rules`], and each rule's [`RuleSteps`] entry (same order), so that the rules'
/// places in another text can be found again ([`place_rules`]).
pub fn version_rules_with_steps(
    input: &RulesInput<'_>,
    errors: &HashMap<String, Vec<&FieldError>>,
    schema: &JsonSchemaProps,
    version_index: usize,
    schema_path: &str,
) -> (Vec<CelRuleReport>, RuleSteps) {
    let mut out = Vec::new();
    let mut places = Vec::new();
    let version_node = version_schema_node(input.root, version_index);
    // Pre-order with an explicit stack: (node, steps from the root, its node in the text, its
    // schema cardinality).
    type Entry<'s> = (
        &'s JsonSchemaProps,
        Vec<CelStep>,
        Option<&'s Node>,
        Option<u64>,
    );
    let mut stack: Vec<Entry<'_>> = vec![(schema, Vec::new(), version_node, Some(1))];
    while let Some((node, steps, text_node, card)) = stack.pop() {
        let node_path = node_path(schema_path, &steps);
        let record = input.records.get(&node_path);
        let rules_node = text_node
            .and_then(|n| n.get("x-kubernetes-validations"))
            .and_then(Node::as_seq);
        let node_failure = errors
            .get(&format!("{node_path}.x-kubernetes-validations"))
            .and_then(|v| v.first());
        for (j, rule) in node.x_validations.iter().enumerate() {
            let key = rule_key(&steps, j);
            let internal = format!("{schema_path}.{key}");
            let detail_at = |field: &str| {
                errors
                    .get(&format!("{internal}.{field}"))
                    .and_then(|v| v.first())
                    .map(|e| e.detail.clone())
            };
            let compiled = record.and_then(|r| r.get(j));
            let cost = compiled
                .filter(|c| c.error.is_none())
                .map(|c| rule_cost(c, card));
            let scalar = rules_node
                .and_then(|rs| rs.get(j))
                .and_then(|r| r.get("rule"));
            let text_range = scalar.map(|s| scalar_range(input.text, s));
            out.push(CelRuleReport {
                crd_path: format!("spec.versions[{version_index}].schema.openAPIV3Schema.{key}"),
                value_path: value_path(&steps),
                rule: rule.rule.clone(),
                message: rule.message.clone(),
                message_expression: rule.message_expression.clone(),
                reason: rule.reason.clone().unwrap_or_default(),
                field_path: rule.field_path.clone(),
                optional_old_self: rule.optional_old_self == Some(true),
                transition: match compiled {
                    Some(c) => c.uses_old_self,
                    None => mentions_old_self(&rule.rule),
                },
                compile_error: detail_at("rule").or_else(|| node_failure.map(|e| e.detail.clone())),
                message_expression_error: detail_at("messageExpression"),
                line: scalar.map(|s| s.span.start.line),
                column: scalar.map(|s| s.span.start.column),
                text_range,
                location: scalar.map(|s| crd_location(input.document, s)),
                estimated_cost: cost.map(|c| c.estimated_cost),
                cardinality: cost.and_then(|c| c.cardinality),
                max_cost: cost.map(|c| c.max_cost),
                max_cardinality: cost.map(|c| c.max_cardinality),
                message_expression_max_cost: cost.and_then(|c| c.message_expression_max_cost),
                key,
            });
            places.push((steps.clone(), j));
        }
        // Children pushed in reverse so they pop in order.
        let child = |name: &str| text_node.and_then(|n| n.get(name));
        let child_card = child_cardinality(node, card);
        if let Some(ap) = node
            .additional_properties
            .as_ref()
            .and_then(|a| a.schema.as_deref())
        {
            let mut s = steps.clone();
            s.push(CelStep::AdditionalProperties);
            stack.push((ap, s, child("additionalProperties"), child_card));
        }
        if let Some(SchemaOrArray::Schema(items)) = &node.items {
            let mut s = steps.clone();
            s.push(CelStep::Items);
            stack.push((items, s, child("items"), child_card));
        }
        // The text's properties by name: one lookup each, not a scan per property (a schema
        // may have 100,000).
        let props: HashMap<&str, &Node> = child("properties")
            .and_then(Node::as_map)
            .map(|entries| entries.iter().map(|e| (e.key.as_str(), &e.value)).collect())
            .unwrap_or_default();
        for (name, prop) in node.properties.iter().rev() {
            let mut s = steps.clone();
            s.push(CelStep::Property(name.clone()));
            stack.push((prop, s, props.get(name.as_str()).copied(), child_card));
        }
    }
    (out, places)
}

/// Sets the text positions (`line`, `column`, `text_range`) of `rules`, the rules of version
/// `version_index` listed with their [`RuleSteps`] by [`version_rules_with_steps`], in the CRD
/// text `text` whose root is `root`: the same walk of the text as [`version_rules_with_steps`]
/// (`properties` → name, `items`, `additionalProperties`, then
/// `x-kubernetes-validations[j].rule`), so the positions are those it would find.
pub fn place_rules(
    text: &str,
    document: usize,
    root: Option<&Node>,
    version_index: usize,
    rules: &mut [CelRuleReport],
    steps: &RuleSteps,
) {
    let version_node = version_schema_node(root, version_index);
    // Each `properties` map of the text indexed by name once (keyed by the node's address),
    // so many rules under a wide schema cost no scan each.
    let mut by_name: HashMap<*const Node, HashMap<&str, &Node>> = HashMap::new();
    for (rule, (steps, j)) in rules.iter_mut().zip(steps) {
        let mut node = version_node;
        for step in steps {
            node = match step {
                CelStep::Property(name) => node.and_then(|n| n.get("properties")).and_then(|p| {
                    by_name
                        .entry(std::ptr::from_ref(p))
                        .or_insert_with(|| {
                            p.as_map()
                                .unwrap_or(&[])
                                .iter()
                                .map(|e| (e.key.as_str(), &e.value))
                                .collect()
                        })
                        .get(name.as_str())
                        .copied()
                }),
                CelStep::Items => node.and_then(|n| n.get("items")),
                CelStep::AdditionalProperties => node.and_then(|n| n.get("additionalProperties")),
            };
        }
        let scalar = node
            .and_then(|n| n.get("x-kubernetes-validations"))
            .and_then(Node::as_seq)
            .and_then(|rs| rs.get(*j))
            .and_then(|r| r.get("rule"));
        rule.line = scalar.map(|s| s.span.start.line);
        rule.column = scalar.map(|s| s.span.start.column);
        rule.text_range = scalar.map(|s| scalar_range(text, s));
        rule.location = scalar.map(|s| crd_location(document, s));
    }
}

/// The place of a rule's scalar in document `document` of the CRD text.
fn crd_location(document: usize, scalar: &Node) -> Location {
    Location {
        source: SourceId::Crd,
        document,
        span: scalar.span,
    }
}

/// The internal path of a schema node (`spec.validation.openAPIV3Schema.properties[spec]`).
fn node_path(schema_path: &str, steps: &[CelStep]) -> String {
    let mut out = schema_path.to_owned();
    for step in steps {
        match step {
            CelStep::Property(name) => {
                out.push_str(".properties[");
                out.push_str(name);
                out.push(']');
            }
            CelStep::Items => out.push_str(".items"),
            CelStep::AdditionalProperties => out.push_str(".additionalProperties"),
        }
    }
    out
}

/// Where a node's values are in an object, `self` at the root: `.spec.items[*]`.
fn value_path(steps: &[CelStep]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            CelStep::Property(name) => {
                out.push('.');
                out.push_str(name);
            }
            CelStep::Items | CelStep::AdditionalProperties => out.push_str("[*]"),
        }
    }
    out
}

/// The byte range of a scalar as written: libyaml ends a block scalar after its trailing
/// line breaks and the next line's indentation; those are left out.
fn scalar_range(text: &str, node: &Node) -> (usize, usize) {
    let start = node.span.start.offset;
    let mut end = node.span.end.offset.max(start);
    let first = text.as_bytes().get(start).copied();
    if matches!(first, Some(b'|' | b'>' | b'!' | b'&')) {
        let written = text.get(start..end).unwrap_or("");
        end = start + written.trim_end().len();
    }
    (start, end)
}

/// Whether a rule refers to `oldSelf` (for rules the compiler did not reach): any identifier
/// of that name, as the checker's reference map would hold it.
fn mentions_old_self(rule: &str) -> bool {
    let options = ParserOptions {
        enable_optional_syntax: true,
        ..ParserOptions::default()
    };
    let Ok(parsed) = Parser::new(options).parse_text(rule) else {
        return false;
    };
    let mut stack: Vec<&Expr> = vec![&parsed.expr];
    while let Some(e) = stack.pop() {
        match &e.kind {
            ExprKind::Ident(name) => {
                if name == OLD_SCOPED_VAR_NAME {
                    return true;
                }
            }
            ExprKind::Select(s) => stack.push(&s.operand),
            ExprKind::Call(c) => {
                stack.extend(c.target.iter());
                stack.extend(c.args.iter());
            }
            ExprKind::List(l) => stack.extend(l.elements.iter()),
            ExprKind::Map(m) => {
                for entry in &m.entries {
                    stack.push(&entry.key);
                    stack.push(&entry.value);
                }
            }
            ExprKind::Struct(s) => stack.extend(s.fields.iter().map(|f| &f.value)),
            ExprKind::Comprehension(c) => {
                stack.extend([
                    &c.iter_range,
                    &c.accu_init,
                    &c.loop_condition,
                    &c.loop_step,
                    &c.result,
                ]);
            }
            ExprKind::Literal(_) | ExprKind::Unspecified => {}
        }
    }
    false
}

/// The first CEL error location of an error detail (`... ERROR: <input>:2:7: ...`): 1-based
/// line, and the column as cel-go prints it (0-based code-point column plus one; 0 when the
/// error has no column).
pub fn cel_error_location(detail: &str) -> Option<(usize, usize)> {
    const MARK: &str = "ERROR: <input>:";
    let rest = detail.get(detail.find(MARK)? + MARK.len()..)?;
    let (line, rest) = rest.split_once(':')?;
    let (column, _) = rest.split_once(':')?;
    Some((line.parse().ok()?, column.parse().ok()?))
}

/// The code-point index in `expression` of a CEL line and printed column (see
/// [`cel_error_location`]). Lines are split at `\n`, as cel-go's source does.
pub fn code_point_index(expression: &str, line: usize, column: usize) -> Option<usize> {
    if line == 0 {
        return None;
    }
    let mut index = 0;
    let mut current = 1;
    for c in expression.chars() {
        if current == line {
            break;
        }
        index += 1;
        if c == '\n' {
            current += 1;
        }
    }
    (current == line).then(|| index + column.saturating_sub(1))
}

/// The node at a v1 field path in the CRD text.
fn node_at<'a>(root: &'a Node, path: &FieldPath) -> Option<&'a Node> {
    let mut node = root;
    for seg in &path.0 {
        node = match (seg, &node.value) {
            (Segment::Field(name) | Segment::Key(name), Value::Map(_)) => node.get(name)?,
            (Segment::Index(i), Value::Seq(items)) => items.get(*i)?,
            _ => return None,
        };
    }
    Some(node)
}

/// For a CRD error about a rule's or `messageExpression`'s compilation (`...
/// x-kubernetes-validations[0].rule`, detail with `ERROR: <input>:L:C:`), the span of the
/// character the CEL error points at inside the expression's scalar in the CRD text. `path`
/// is the error's v1 path.
pub fn cel_error_span(
    text: &str,
    lines: &LineIndex,
    root: &Node,
    path: &FieldPath,
    detail: &str,
) -> Option<Span> {
    let n = path.0.len();
    match path.0.get(n.checked_sub(1)?)? {
        Segment::Field(f) if f == "rule" || f == "messageExpression" => {}
        _ => return None,
    }
    match (
        path.0.get(n.checked_sub(2)?)?,
        path.0.get(n.checked_sub(3)?)?,
    ) {
        (Segment::Index(_), Segment::Field(f)) if f == "x-kubernetes-validations" => {}
        _ => return None,
    }
    let (line, column) = cel_error_location(detail)?;
    let scalar = node_at(root, path)?;
    let expression = scalar.as_str()?;
    let index = code_point_index(expression, line, column)?;
    let read = ScalarText::read(
        text,
        scalar.span.start.offset,
        scalar.span.end.offset,
        expression,
    )?;
    let (from, to) = caret_token(expression, index);
    let (start, _) = read.source_of(from)?;
    let end = match to.checked_sub(1) {
        Some(last) if to > from => read.source_of(last)?.1,
        _ => start,
    };
    Some(Span {
        start: lines.pos_at_offset(text, start),
        end: lines.pos_at_offset(text, end.max(start)),
    })
}

/// The code points a CEL caret at `index` marks: the character, or when it starts a field
/// selection (`.foo`) or an identifier, the whole of it. Past the end: the empty range at the
/// end.
fn caret_token(expression: &str, index: usize) -> (usize, usize) {
    let chars: Vec<char> = expression.chars().collect();
    let Some(&first) = chars.get(index) else {
        return (chars.len(), chars.len());
    };
    let ident = |c: &char| c.is_ascii_alphanumeric() || *c == '_';
    let mut to = index + 1;
    if first == '.' || ident(&first) {
        while chars.get(to).is_some_and(ident) {
            to += 1;
        }
    }
    (index, to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::finding::Finding;
    use crate::{analyze, Request};

    fn crd(versions: &str) -> String {
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
{versions}"
        )
    }

    /// One version entry, its schema indented under `openAPIV3Schema:`.
    fn version(name: &str, storage: bool, schema: &str) -> String {
        let schema: String = schema.lines().map(|l| format!("        {l}\n")).collect();
        format!(
            "  - name: {name}
    served: true
    storage: {storage}
    schema:
      openAPIV3Schema:
{schema}"
        )
    }

    const SCHEMA: &str = r#"type: object
x-kubernetes-validations:
- rule: "has(self.spec)"
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: 'self.b == oldSelf.b'
      message: b is immutable
    - rule: self.b != ''
      messageExpression: "'b is ' + self.b"
      reason: FieldValueForbidden
      fieldPath: .b
    properties:
      m:
        type: object
        maxProperties: 5
        additionalProperties:
          type: integer
          x-kubernetes-validations:
          - rule: |
              self >= 0
      b:
        type: string
        maxLength: 10
        x-kubernetes-validations:
        - rule: self.size() < 10
      a:
        type: array
        maxItems: 5
        items:
          type: string
          maxLength: 5
          x-kubernetes-validations:
          - rule: self != "x"
"#;

    fn compile(text: &str) -> crate::report::analysis::Analysis {
        analyze(&Request {
            crd: text.to_owned(),
            ..Request::default()
        })
    }

    fn crd_errors(a: &crate::report::analysis::Analysis) -> Vec<&Finding> {
        a.findings
            .iter()
            .filter(|f| f.severity == crate::documents::finding::Severity::Error)
            .collect()
    }

    #[test]
    fn keys_order_and_fields() {
        let text = crd(&version("v1", true, SCHEMA));
        let a = compile(&text);
        assert!(crd_errors(&a).is_empty(), "{:#?}", a.findings);
        let rules = &a.versions.first().unwrap().rules;
        let got: Vec<(&str, &str, &str)> = rules
            .iter()
            .map(|r| (r.key.as_str(), r.value_path.as_str(), r.rule.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("x-kubernetes-validations[0]", "", "has(self.spec)"),
                (
                    "properties[spec].x-kubernetes-validations[0]",
                    ".spec",
                    "self.b == oldSelf.b"
                ),
                (
                    "properties[spec].x-kubernetes-validations[1]",
                    ".spec",
                    "self.b != ''"
                ),
                (
                    "properties[spec].properties[a].items.x-kubernetes-validations[0]",
                    ".spec.a[*]",
                    "self != \"x\""
                ),
                (
                    "properties[spec].properties[b].x-kubernetes-validations[0]",
                    ".spec.b",
                    "self.size() < 10"
                ),
                (
                    "properties[spec].properties[m].additionalProperties.x-kubernetes-validations[0]",
                    ".spec.m[*]",
                    "self >= 0\n"
                ),
            ]
        );
        let spec0 = rules.get(1).unwrap();
        assert_eq!(
            spec0.crd_path,
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]"
        );
        assert!(spec0.transition);
        assert_eq!(spec0.message, "b is immutable");
        let spec1 = rules.get(2).unwrap();
        assert!(!spec1.transition);
        assert_eq!(spec1.message_expression, "'b is ' + self.b");
        assert_eq!(spec1.reason, "FieldValueForbidden");
        assert_eq!(spec1.field_path, ".b");
        assert!(rules.iter().all(|r| r.compile_error.is_none()
            && r.message_expression_error.is_none()
            && !r.optional_old_self));
        // Where each rule's scalar is written: line, column, byte range (quotes and block
        // indicators included, a block scalar's trailing break left out).
        for r in rules {
            let (start, end) = r.text_range.unwrap();
            let written = &text[start..end];
            let line = text[..start].matches('\n').count() + 1;
            assert_eq!(r.line, Some(line), "{}", r.key);
            assert_eq!(
                r.column,
                Some(start - text[..start].rfind('\n').unwrap()),
                "{}",
                r.key
            );
            let want = match r.key.as_str() {
                "x-kubernetes-validations[0]" => "\"has(self.spec)\"",
                "properties[spec].x-kubernetes-validations[0]" => "'self.b == oldSelf.b'",
                "properties[spec].properties[m].additionalProperties.x-kubernetes-validations[0]" => {
                    assert!(written.starts_with("|\n "), "{written:?}");
                    assert!(!written.ends_with('\n'), "{written:?}");
                    assert_eq!(written.trim_start_matches(['|', '\n', ' ']), "self >= 0");
                    written
                }
                _ => r.rule.as_str(),
            };
            assert_eq!(written, want, "{}", r.key);
        }
    }

    #[test]
    fn rule_costs() {
        let a = compile(&crd(&version("v1", true, SCHEMA)));
        let rules = &a.versions.first().unwrap().rules;
        type Row<'r> = (&'r str, Option<u64>, Option<u64>, Option<u64>, Option<u64>);
        let got: Vec<Row<'_>> = rules
            .iter()
            .map(|r| {
                (
                    r.value_path.as_str(),
                    r.max_cost,
                    r.cardinality,
                    r.estimated_cost,
                    r.message_expression_max_cost,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("", Some(1), Some(1), Some(1), None),
                (".spec", Some(8), Some(1), Some(8), None),
                (".spec", Some(2), Some(1), Some(2), Some(7)),
                (".spec.a[*]", Some(2), Some(5), Some(10), None),
                (".spec.b", Some(3), Some(1), Some(3), None),
                (".spec.m[*]", Some(2), Some(5), Some(10), None),
            ]
        );
        // The root's `{}` is 2 bytes: 3 MiB / 3.
        assert_eq!(rules.first().unwrap().max_cardinality, Some(1_048_576));
    }

    #[test]
    fn shared_and_per_version_schemas() {
        // The same schema in both versions: the server holds one shared schema and reports
        // its errors at spec.validation; each version's rules are where the user wrote them.
        let text = crd(&format!(
            "{}{}",
            version("v1", true, SCHEMA),
            version("v2", false, SCHEMA)
        ));
        let a = compile(&text);
        assert!(crd_errors(&a).is_empty(), "{:#?}", a.findings);
        assert_eq!(a.versions.len(), 2);
        for (i, v) in a.versions.iter().enumerate() {
            assert_eq!(v.schema_path, "spec.validation.openAPIV3Schema");
            assert_eq!(v.rules.len(), 6);
            let r = v.rules.get(4).unwrap();
            assert_eq!(
                r.crd_path,
                format!("spec.versions[{i}].schema.openAPIV3Schema.properties[spec].properties[b].x-kubernetes-validations[0]")
            );
            // Each version's rule is located in its own copy.
            let (start, _) = r.text_range.unwrap();
            let nth = text.match_indices("self.size() < 10").nth(i).unwrap().0;
            assert_eq!(start, nth);
        }
        // Different schemas: each version's own.
        let other = SCHEMA.replace("self.size() < 10", "self.size() < 9");
        let text = crd(&format!(
            "{}{}",
            version("v1", true, SCHEMA),
            version("v2", false, &other)
        ));
        let a = compile(&text);
        assert!(crd_errors(&a).is_empty(), "{:#?}", a.findings);
        let v2 = a.versions.get(1).unwrap();
        assert_eq!(v2.schema_path, "spec.versions[1].schema.openAPIV3Schema");
        let r = v2.rules.get(4).unwrap();
        assert_eq!(r.rule, "self.size() < 9");
        assert_eq!(
            r.crd_path,
            "spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[b].x-kubernetes-validations[0]"
        );
        assert_eq!(r.text_range.map(|(s, _)| s), text.find("self.size() < 9"));
    }

    /// The rule `self.foo == 1` on an object without `foo`: the finding points at `.foo`
    /// inside the rule's text, in every scalar style.
    #[test]
    fn compile_errors_point_inside_the_rule() {
        let cases = [
            "\"self.foo == 1\"",
            "'self.foo == 1'",
            "self.foo == 1",
            "|\n  self.foo == 1",
            ">-\n  self.foo\n  == 1",
            "\"\\u0073elf.foo == 1\"",
            "\"self\\\n  .foo == 1\"",
        ];
        for written in cases {
            let schema = format!(
                "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      bar:\n        type: integer\n    x-kubernetes-validations:\n    - rule: {}\n",
                written.replace('\n', "\n      ")
            );
            let text = crd(&version("v1", true, &schema));
            let a = compile(&text);
            let errors = crd_errors(&a);
            assert_eq!(errors.len(), 1, "{written}: {:#?}", a.findings);
            let f = errors.first().unwrap();
            assert_eq!(
                f.field.as_deref(),
                Some("spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule")
            );
            assert!(
                f.message
                    .contains("compilation failed: ERROR: <input>:1:5: undefined field 'foo'"),
                "{}",
                f.message
            );
            let loc = f.location.unwrap();
            let rule_at = text.find("- rule: ").unwrap() + "- rule: ".len();
            let dot = text[rule_at..].find(".foo").unwrap() + rule_at;
            assert_eq!(loc.span.start.offset, dot, "{written}");
            assert_eq!(loc.span.end.offset, dot + 4, "{written}");
            assert_eq!(&text[dot..dot + 4], ".foo");
            assert_eq!(loc.span.start.line, text[..dot].matches('\n').count() + 1);
            assert_eq!(
                loc.span.start.column,
                dot - text[..dot].rfind('\n').unwrap()
            );
            // The CRD report carries the same place, and the rule's compile error.
            let report = a.crd.errors.first().unwrap();
            assert_eq!(report.line, Some(loc.span.start.line));
            assert_eq!(report.column, Some(loc.span.start.column));
            let rule = a.versions.first().unwrap().rules.first().unwrap();
            assert!(rule
                .compile_error
                .as_deref()
                .unwrap()
                .starts_with("compilation failed: ERROR: <input>:1:5: undefined field 'foo'"));
        }
    }

    #[test]
    fn message_expression_and_later_line_errors() {
        let schema = "type: object
properties:
  spec:
    type: object
    properties:
      bar:
        type: integer
    x-kubernetes-validations:
    - rule: |
        self.bar == 1 &&
          self.baz == 2
      message: two lines
    - rule: self.bar == 1
      messageExpression: \"'bar is ' + string(self.qux)\"
";
        let text = crd(&version("v1", true, schema));
        let a = compile(&text);
        let errors = crd_errors(&a);
        assert_eq!(errors.len(), 2, "{:#?}", a.findings);
        let at = |needle: &str| text.find(needle).unwrap();
        let find = |suffix: &str| {
            errors
                .iter()
                .find(|f| f.field.as_deref().unwrap().ends_with(suffix))
                .unwrap()
                .location
                .unwrap()
                .span
        };
        let rule = find("x-kubernetes-validations[0].rule");
        assert_eq!(rule.start.offset, at(".baz"));
        let msg = find("x-kubernetes-validations[1].messageExpression");
        assert_eq!(msg.start.offset, at(".qux"));
        let rules = &a.versions.first().unwrap().rules;
        assert!(rules.first().unwrap().compile_error.is_some());
        let second = rules.get(1).unwrap();
        assert!(second.compile_error.is_none());
        assert!(second
            .message_expression_error
            .as_deref()
            .unwrap()
            .starts_with("messageExpression compilation failed: ERROR: <input>:1:24:"));
    }

    #[test]
    fn rules_on_nodes_that_did_not_compile() {
        // A schema error at the node: the server compiles nothing there; the rule is listed,
        // its transition read from the expression.
        let schema = "type: object
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: self == oldSelf
      message: \" \"
";
        let text = crd(&version("v1", true, schema));
        let a = compile(&text);
        assert!(!crd_errors(&a).is_empty());
        let rules = &a.versions.first().unwrap().rules;
        assert_eq!(rules.len(), 1);
        assert!(rules.first().unwrap().transition);
        assert!(rules.first().unwrap().compile_error.is_none());
        assert!(mentions_old_self("self.all(x, oldSelf.exists(y, y == x))"));
        assert!(!mentions_old_self("self.oldSelf == 1"));
        assert!(!mentions_old_self("self.("));
    }

    #[test]
    fn cel_locations() {
        let d = "compilation failed: ERROR: <input>:2:7: undeclared reference to 'x' (in container '')\n | ...";
        assert_eq!(cel_error_location(d), Some((2, 7)));
        assert_eq!(cel_error_location("no location"), None);
        assert_eq!(cel_error_location("ERROR: <input>:-1:0: boom"), None);
        // Columns count code points; lines split at \n.
        assert_eq!(code_point_index("é + x", 1, 5), Some(4));
        assert_eq!(code_point_index("a\nbé\nc", 3, 1), Some(5));
        assert_eq!(code_point_index("a\nb", 2, 0), Some(2));
        assert_eq!(code_point_index("a", 3, 1), None);
        assert_eq!(code_point_index("a", 0, 1), None);
        assert_eq!(caret_token("self.foo == 1", 4), (4, 8));
        assert_eq!(caret_token("self.foo == 1", 9), (9, 10));
        assert_eq!(caret_token("ab", 5), (2, 2));
    }

    #[test]
    fn json_crd_errors_point_inside_the_rule() {
        let text = r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "widgets.example.com"},
 "spec": {"group": "example.com", "scope": "Namespaced",
  "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
  "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
   "type": "object",
   "x-kubernetes-validations": [{"rule": "self.metadata.name == \"\u00e9\" && self.foo == 1"}]}}}]}}"#;
        let a = compile(text);
        let errors = crd_errors(&a);
        assert_eq!(errors.len(), 1, "{:#?}", a.findings);
        let span = errors.first().unwrap().location.unwrap().span;
        let dot = text.find(".foo").unwrap();
        assert_eq!((span.start.offset, span.end.offset), (dot, dot + 4));
        let rule = a.versions.first().unwrap().rules.first().unwrap();
        assert_eq!(rule.line, Some(7));
        assert_eq!(
            rule.text_range.map(|(s, e)| &text[s..e]),
            Some(r#""self.metadata.name == \"\u00e9\" && self.foo == 1""#)
        );
    }

    /// The recorder's keys are the node paths [`version_rules`] looks up.
    #[test]
    fn records_are_keyed_by_node_path() {
        let text = crd(&version("v1", true, SCHEMA));
        let parsed =
            crate::documents::document::parse(&text, crate::documents::finding::SourceId::Crd);
        let (_, root) = parsed.values().next().unwrap();
        let (icrd, problems) = crate::crd::apiext::from_v1_json(&root.to_json());
        assert!(problems.is_empty());
        let compiler = crate::cel::RuleCompiler::new(
            crate::documents::kube_version::KubernetesVersion::DEFAULT,
        );
        let recorder = RecordingCompiler::new(&compiler);
        let cache = crate::crd::apiext::StructuralCache::new();
        let errors = crate::crd::apiext::validate_create_with_cache(
            &icrd,
            crate::crd::apiext::Hooks {
                cel: Some(&recorder),
                defaults: None,
            },
            &cache,
        );
        assert!(errors.is_empty(), "{errors:?}");
        let records = recorder.into_records();
        let root = "spec.validation.openAPIV3Schema";
        let spec = CelStep::Property("spec".into());
        let want: Vec<String> = [
            vec![],
            vec![spec.clone()],
            vec![spec.clone(), CelStep::Property("a".into()), CelStep::Items],
            vec![spec.clone(), CelStep::Property("b".into())],
            vec![
                spec,
                CelStep::Property("m".into()),
                CelStep::AdditionalProperties,
            ],
        ]
        .iter()
        .map(|steps| node_path(root, steps))
        .collect();
        let mut got: Vec<String> = records.keys().cloned().collect();
        got.sort();
        let mut want_sorted = want.clone();
        want_sorted.sort();
        assert_eq!(got, want_sorted);
        let spec_rules = records.get(want.get(1).unwrap()).unwrap();
        assert_eq!(
            spec_rules
                .iter()
                .map(|c| c.uses_old_self)
                .collect::<Vec<_>>(),
            vec![true, false]
        );
    }
}
