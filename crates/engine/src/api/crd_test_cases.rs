//! The studio's tests: cases held in memory as texts ([`CaseTexts`]), written as a
//! `*.crdtest.yaml` ([`write_test_file`]), read back from one ([`read_test_file`]), and run
//! against a CRD already compiled ([`CaseSuite::run`]) with the reader and the checks of
//! `crd-studio test` ([`TestSuite::read`], [`check_case`]).
//!
//! The written file puts the cases first and the CRD last, so the cases' part is the same
//! text whether the CRD is in it or not: the worker reads only that part on each keystroke,
//! and the places of its failures are the places in the file "Download tests" writes.

use serde::{Deserialize, Serialize};

use super::crd_tests::{check_case, snapshot_expect, TestFailure, TestSource, TestSuite};
use crate::documents::document::{self, Node, Value};
use crate::{CompiledCrd, FieldValidation, KubernetesVersion, ObjectReport, SourceId};

/// One case as a shell holds it: the object's text (and the old object's), and the `expect`
/// mapping as JSON (`null`: none, which expects the object to be accepted).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CaseTexts {
    /// The case's name.
    pub name: String,
    /// The object's text (one YAML or JSON document).
    pub object: String,
    /// The old object's text (the update path), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_object: Option<String>,
    /// The `expect` mapping.
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub expect: serde_json::Value,
}

/// The result of one case: the expectations that did not hold (empty: it passes), with
/// their places in the written test file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CaseResult {
    /// The failed expectations.
    pub failures: Vec<TestFailure>,
    /// Line (1-based) of the case in the written test file.
    pub line: usize,
}

/// A test file read for the studio: the CRD and the cases it can hold.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OpenedTests {
    /// The CRD as YAML, when it is written in the file.
    pub crd: Option<String>,
    /// The CRD's path, when the file names one instead.
    pub crd_path: Option<String>,
    /// The cases.
    pub cases: Vec<CaseTexts>,
    /// The file's `fieldValidation`.
    pub field_validation: Option<FieldValidation>,
    /// The newest of the file's `kubernetesVersions`.
    pub kubernetes_version: Option<KubernetesVersion>,
    /// What was left out (cases with objects in other files, an `oldCrd`, `crdExpect`) and
    /// the file's problems, in plain words.
    pub left_out: Vec<String>,
}

/// The first line of a written test file.
const HEADER: &str =
    "# CRD Studio tests (`crd-studio test FILE` runs them): the cases, then the CRD.\n";

/// The cases part of a test file (the header and `cases:`).
fn cases_text(cases: &[CaseTexts]) -> String {
    let mut out = String::from(HEADER);
    if cases.is_empty() {
        out.push_str("cases: []\n");
        return out;
    }
    out.push_str("cases:\n");
    for c in cases {
        out.push_str(&format!("- name: {}\n", scalar(&c.name.as_str().into())));
        out.push_str("  object:");
        out.push_str(&inline_text(&c.object, 4));
        if let Some(old) = &c.old_object {
            out.push_str("  oldObject:");
            out.push_str(&inline_text(old, 4));
        }
        if !c.expect.is_null() {
            out.push_str("  expect:");
            out.push_str(&yaml_block(&c.expect, 4));
            out.push('\n');
        }
    }
    out
}

/// A `*.crdtest.yaml` for the CRD text and the cases: the cases first, then the options,
/// then the CRD written in the file (as typed when that reads back the same, else as YAML
/// made from its value).
pub fn write_test_file(
    crd: &str,
    cases: &[CaseTexts],
    field_validation: FieldValidation,
    kubernetes_version: KubernetesVersion,
) -> String {
    let mut out = cases_text(cases);
    out.push_str(&format!("fieldValidation: {}\n", field_validation.name()));
    out.push_str(&format!("kubernetesVersions: [\"{kubernetes_version}\"]\n"));
    out.push_str("crd:");
    out.push_str(&inline_text(crd, 2));
    out
}

/// The one value of a text (`None` when it has errors or is not one document).
fn one_value(text: &str) -> Option<serde_json::Value> {
    let parsed = document::parse(text, SourceId::Object(0));
    if parsed
        .findings
        .iter()
        .any(|f| f.severity == crate::Severity::Error)
    {
        return None;
    }
    let mut values = parsed.values();
    let (_, root) = values.next()?;
    values.next().is_none().then(|| root.to_json())
}

/// A text as the value of a key at `indent - 2` (starting after the colon, ending with a
/// line break): its lines indented as typed when they read back as the same value (comments
/// and layout kept), else YAML made from its value, else the JSON `null`.
fn inline_text(text: &str, indent: usize) -> String {
    let Some(value) = one_value(text) else {
        return " null\n".into();
    };
    let pad = " ".repeat(indent);
    let body = text.strip_prefix("---\n").unwrap_or(text).trim_end();
    if value.is_object() && !body.is_empty() {
        let mut typed = String::from("\n");
        for line in body.lines() {
            if !line.is_empty() {
                typed.push_str(&pad);
            }
            typed.push_str(line);
            typed.push('\n');
        }
        let wrapped = format!("x:{typed}");
        if one_value(&wrapped).and_then(|v| v.get("x").cloned()) == Some(value.clone()) {
            return typed;
        }
    }
    let mut out = yaml_block(&value, indent);
    out.push('\n');
    out
}

/// The order expectations' keys are written in (others after them).
const KEY_ORDER: [&str; 5] = ["verdict", "errors", "warnings", "path", "message"];

/// A scalar as YAML: plain when YAML (1.1 and 1.2) reads it back as the same string, else
/// JSON (which YAML reads the same).
fn scalar(v: &serde_json::Value) -> String {
    if let serde_json::Value::String(s) = v {
        let plain = s.starts_with(|c: char| c.is_ascii_alphabetic())
            && !s.ends_with(' ')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '.' | '_' | '/' | '-'))
            && !["y", "n", "yes", "no", "on", "off", "true", "false", "null"]
                .iter()
                .any(|w| s.eq_ignore_ascii_case(w));
        if plain {
            return s.clone();
        }
    }
    serde_json::to_string(v).unwrap_or_default()
}

/// A JSON value as the YAML value of a key (starting right after the colon: a line break
/// and a block at `indent`, or a space and a scalar; no final line break).
fn yaml_block(value: &serde_json::Value, indent: usize) -> String {
    let pad = " ".repeat(indent);
    match value {
        serde_json::Value::Object(m) if !m.is_empty() => {
            let mut entries: Vec<_> = m.iter().collect();
            entries.sort_by_key(|(k, _)| KEY_ORDER.iter().position(|o| o == k));
            entries
                .into_iter()
                .map(|(k, v)| {
                    let k = scalar(&k.as_str().into());
                    match v {
                        serde_json::Value::Object(m) if !m.is_empty() => {
                            format!("\n{pad}{k}:{}", yaml_block(v, indent + 2))
                        }
                        v => format!("\n{pad}{k}:{}", yaml_block(v, indent)),
                    }
                })
                .collect()
        }
        serde_json::Value::Array(a) if !a.is_empty() => a
            .iter()
            .map(|v| match v {
                serde_json::Value::Object(m) if !m.is_empty() => {
                    let inner = yaml_block(v, indent + 2);
                    format!("\n{pad}- {}", inner.trim_start())
                }
                serde_json::Value::Array(a) if !a.is_empty() => {
                    format!("\n{pad}- {}", serde_json::to_string(v).unwrap_or_default())
                }
                v => format!("\n{pad}- {}", scalar(v)),
            })
            .collect(),
        v => format!(" {}", scalar(v)),
    }
}

/// The cases of a test file the studio can hold, and what it leaves out.
pub fn read_test_file(text: &str) -> OpenedTests {
    let suite = TestSuite::read(text);
    let mut out = OpenedTests {
        field_validation: suite.field_validation,
        kubernetes_version: suite.kubernetes_versions.iter().max().copied(),
        ..OpenedTests::default()
    };
    for p in &suite.problems {
        out.left_out
            .push(format!("line {}: {}", p.place.start.line.max(1), p.message));
    }
    let parsed = document::parse(text, SourceId::Object(0));
    let Some(map) = parsed.values().next().and_then(|(_, root)| root.as_map()) else {
        return out;
    };
    let yaml = |node: &Node| own_text(text, node);
    for e in map {
        match e.key.as_str() {
            "crd" => match &e.value.value {
                Value::String(p) => out.crd_path = Some(p.clone()),
                Value::Map(_) => out.crd = Some(yaml(&e.value)),
                _ => {}
            },
            "crdExpect" => out
                .left_out
                .push("crdExpect (the studio shows the CRD's verdict itself)".into()),
            _ => {}
        }
    }
    let items = map
        .iter()
        .find(|e| e.key == "cases")
        .and_then(|e| e.value.as_seq())
        .unwrap_or_default();
    for (i, item) in items.iter().enumerate() {
        let Some(fields) = item.as_map() else {
            continue;
        };
        let mut case = CaseTexts::default();
        let mut why = None;
        for e in fields {
            let v = &e.value;
            match (e.key.as_str(), &v.value) {
                ("name", _) => case.name = v.as_str().map(str::to_owned).unwrap_or_default(),
                ("object", Value::Map(_)) => case.object = yaml(v),
                ("oldObject", Value::Map(_)) => case.old_object = Some(yaml(v)),
                ("object" | "oldObject", Value::String(p)) => {
                    why = Some(format!("its object is in another file ({p})"))
                }
                ("oldCrd", _) => why = Some("it has an oldCrd".to_owned()),
                ("expect", _) => case.expect = v.to_json(),
                _ => {}
            }
        }
        if case.name.is_empty() {
            case.name = format!("case {}", i + 1);
        }
        match why {
            Some(why) => out.left_out.push(format!("case {:?}: {why}", case.name)),
            None if case.object.is_empty() => {}
            None => out.cases.push(case),
        }
    }
    out
}

/// A mapping of a test file as a text of its own: its lines as written (comments and key
/// order kept), less the indentation before it, when they read back as the same value; else
/// YAML made from its value.
fn own_text(text: &str, node: &Node) -> String {
    let value = node.to_json();
    let cut = node.span.start.column.saturating_sub(1);
    if let Some(part) = text.get(node.span.start.offset..node.span.end.offset) {
        let mut out = String::new();
        for (i, line) in part.trim_end().lines().enumerate() {
            let spaces = line.len() - line.trim_start_matches(' ').len();
            let from = if i == 0 { 0 } else { spaces.min(cut) };
            out.push_str(line.get(from..).unwrap_or(line));
            out.push('\n');
        }
        if one_value(&out).as_ref() == Some(&value) {
            return out;
        }
    }
    let body = yaml_block(&value, 0);
    format!("{}\n", body.trim_start_matches('\n'))
}

/// The cases of a studio read once, to be run after each edit of the CRD.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaseSuite {
    cases: Vec<CaseTexts>,
    suite: TestSuite,
}

impl CaseSuite {
    /// Reads the cases as [`write_test_file`] writes them.
    pub fn new(cases: &[CaseTexts]) -> CaseSuite {
        CaseSuite {
            cases: cases.to_vec(),
            suite: TestSuite::read(&cases_text(cases)),
        }
    }

    /// The cases it was read from.
    pub fn cases(&self) -> &[CaseTexts] {
        &self.cases
    }

    /// Runs every case against `crd` (compiled with the studio's options).
    pub fn run(&self, crd: &CompiledCrd) -> Vec<CaseResult> {
        self.suite
            .cases
            .iter()
            .map(|case| CaseResult {
                line: case.place.start.line,
                failures: match report(crd, case) {
                    Ok(report) => check_case(case, &report),
                    Err(f) => vec![*f],
                },
            })
            .collect()
    }

    /// A new case of `object` (and `old_object`) expecting what `crd` does with it now:
    /// its verdict, errors with their paths, and warnings. It passes when run at once.
    pub fn snapshot(
        crd: &CompiledCrd,
        name: &str,
        object: &str,
        old_object: Option<&str>,
    ) -> Result<CaseTexts, String> {
        if !one_value(object).is_some_and(|v| v.is_object()) {
            return Err("the Object must be one YAML mapping to be saved as a case".into());
        }
        let mut case = CaseTexts {
            name: name.to_owned(),
            object: object.to_owned(),
            old_object: old_object.map(str::to_owned),
            expect: serde_json::Value::Null,
        };
        let suite = CaseSuite::new(std::slice::from_ref(&case));
        let read = suite
            .suite
            .cases
            .first()
            .ok_or("the case could not be read")?;
        let report = report(crd, read).map_err(|f| format!("{}: {}", f.expected, f.got))?;
        case.expect = snapshot_expect(&report);
        Ok(case)
    }
}

/// The engine's report on a case's object, or why there is none.
fn report(
    crd: &CompiledCrd,
    case: &super::crd_tests::TestCase,
) -> Result<ObjectReport, Box<TestFailure>> {
    let fail = |expected: &str, got: String| {
        Box::new(TestFailure {
            expectation: "object".into(),
            expected: expected.into(),
            got,
            place: case.place,
        })
    };
    let inline = |s: &Option<TestSource>| match s {
        Some(TestSource::Inline(t)) => Some(t.clone()),
        _ => None,
    };
    let object = inline(&case.object).ok_or_else(|| fail("an object", "none".into()))?;
    let old = inline(&case.old_object);
    let analysis = crd.analyze_objects(&[object], old.as_deref());
    let count = analysis.objects.len();
    analysis
        .objects
        .into_iter()
        .next()
        .filter(|_| count == 1)
        .ok_or_else(|| fail("one object of the CRD", format!("{count} objects")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;

    const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
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
            x-kubernetes-validations:
            - rule: self.size <= 10
              message: size must be at most 10
            properties:
              size: {type: integer}
";

    fn object(size: u32) -> String {
        format!("apiVersion: example.com/v1\n# a widget\nkind: Widget\nmetadata:\n  name: a\nspec:\n  size: {size}\n")
    }

    #[test]
    fn a_snapshot_passes_and_flips_with_the_crd() {
        let crd = CompiledCrd::compile(CRD, &Options::default());
        let big = CaseSuite::snapshot(&crd, "too big", &object(11), None).unwrap();
        let small = CaseSuite::snapshot(&crd, "small", &object(1), None).unwrap();
        assert_eq!(big.expect["verdict"], "rejected");
        let suite = CaseSuite::new(&[big, small]);
        let results = suite.run(&crd);
        assert!(
            results.iter().all(|r| r.failures.is_empty()),
            "{results:#?}"
        );
        let looser = CompiledCrd::compile(&CRD.replace("<= 10", "<= 20"), &Options::default());
        let results = suite.run(&looser);
        assert_eq!(results[0].failures[0].expectation, "expect.verdict");
        assert!(results[1].failures.is_empty());
        // The failure's place is in the file Download tests writes.
        let file = write_test_file(
            CRD,
            suite.cases(),
            FieldValidation::Strict,
            Default::default(),
        );
        let line = results[0].failures[0].place.start.line;
        let text = file.lines().nth(line - 1).unwrap();
        assert!(text.contains("verdict: rejected"), "{line}: {text}\n{file}");
    }

    #[test]
    fn the_written_file_reads_back_the_same() {
        let crd = CompiledCrd::compile(CRD, &Options::default());
        let mut cases = vec![
            CaseSuite::snapshot(&crd, "too big", &object(11), None).unwrap(),
            CaseSuite::snapshot(&crd, "yes", &object(2), Some(&object(1))).unwrap(),
        ];
        // A JSON object and a name that needs quotes.
        cases.push(CaseTexts {
            name: "#3: json".into(),
            object:
                r#"{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "b"}}"#
                    .into(),
            ..CaseTexts::default()
        });
        let file = write_test_file(
            CRD,
            &cases,
            FieldValidation::Warn,
            KubernetesVersion::new(33),
        );
        let suite = TestSuite::read(&file);
        assert_eq!(suite.problems, vec![], "{file}");
        assert_eq!(suite.cases.len(), 3);
        assert!(matches!(&suite.crd, Some(TestSource::Inline(_))));
        assert!(file.contains("# a widget"), "comments are kept:\n{file}");
        let opened = read_test_file(&file);
        assert_eq!(opened.left_out, Vec::<String>::new());
        assert!(
            opened.cases[0].object.contains("v1\n# a widget\nkind"),
            "{}",
            opened.cases[0].object
        );
        assert!(opened
            .crd
            .as_deref()
            .unwrap_or_default()
            .starts_with("apiVersion: apiextensions"));
        assert_eq!(opened.field_validation, Some(FieldValidation::Warn));
        assert_eq!(opened.kubernetes_version, Some(KubernetesVersion::new(33)));
        assert_eq!(opened.cases.len(), 3);
        assert_eq!(opened.cases[2].name, "#3: json");
        assert_eq!(opened.cases[0].expect, cases[0].expect);
        let again = CompiledCrd::compile(opened.crd.as_deref().unwrap(), &Options::default());
        let results = CaseSuite::new(&opened.cases).run(&again);
        assert!(
            results.iter().all(|r| r.failures.is_empty()),
            "{results:#?}"
        );
    }

    #[test]
    fn what_the_studio_cannot_hold_is_named() {
        let opened = read_test_file(
            "crd: crd.yaml\ncrdExpect: {accepted: true}\ncases:\n- name: a\n  object: a.yaml\n- name: b\n  object: {kind: X}\n  oldCrd: old.yaml\n",
        );
        assert_eq!(opened.crd_path.as_deref(), Some("crd.yaml"));
        assert_eq!(opened.cases, vec![]);
        assert_eq!(opened.left_out.len(), 3, "{:?}", opened.left_out);
    }

    #[test]
    fn a_broken_object_is_not_a_case() {
        let crd = CompiledCrd::compile(CRD, &Options::default());
        assert!(CaseSuite::snapshot(&crd, "x", "a: [", None).is_err());
        assert!(CaseSuite::snapshot(&crd, "x", "- 1\n", None).is_err());
    }
}
