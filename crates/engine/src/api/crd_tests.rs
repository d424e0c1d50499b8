//! Tests for CRDs: a `*.crdtest.yaml` file read into a [`TestSuite`] (its CRD, options and
//! cases, each part with its place in the file), and each case's expectations checked against
//! the engine's result ([`check_case`], [`check_crd`]) as [`TestFailure`]s that say which
//! expectation failed, what it expected, what the engine gave and where the expectation is.
//!
//! Pure: the shells (the CLI's `test`, later the studio's worker) read the files a suite names
//! and call the engine; these functions only read the suite's text and compare results.
//! The format is documented in the README and `schemas/crdtest.schema.json`.

use crate::documents::document::{self, Entry, Node, Value};
use crate::{
    Analysis, FieldErrorReport, FieldValidation, KubernetesVersion, ObjectReport, SourceId, Span,
};

/// Where a text comes from: a path (relative to the test file), or written in the test file.
#[derive(Clone, Debug, PartialEq)]
pub enum TestSource {
    /// A file to read, relative to the test file's folder.
    Path(String),
    /// The value written in the test file, as JSON text.
    Inline(String),
}

/// A message expected from the server, with the field path it must be about.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageExpect {
    /// The field path (`spec.size`; `<nil>` for none), when given.
    pub path: Option<String>,
    /// How the message must read.
    pub matcher: Matcher,
    /// Where the expectation is in the test file.
    pub place: Span,
}

/// How an expected message is matched.
#[derive(Clone, Debug, PartialEq)]
pub enum Matcher {
    /// Equal to the detail (`must be positive`) or to the whole error text.
    Exact(String),
    /// A part of the whole error text.
    Contains(String),
    /// A Go (RE2) regular expression found in the whole error text.
    Regex(String),
    /// Any message (only `path` given).
    Any,
}

/// A value expected, with its place.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed<T> {
    /// The value.
    pub value: T,
    /// Where it is in the test file.
    pub place: Span,
}

/// An expected `kubectl get` cell: the column's name and the cell's text.
pub type Cell = (String, Placed<String>);

/// What a case expects of its object.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaseExpect {
    /// `verdict: accepted | rejected` (true: accepted).
    pub accepted: Option<Placed<bool>>,
    /// Every error, in any order.
    pub errors: Option<Placed<Vec<MessageExpect>>>,
    /// Every warning, in any order.
    pub warnings: Option<Placed<Vec<MessageExpect>>>,
    /// A part of the object after pruning and defaulting (`null`: absent).
    pub fields: Option<Placed<serde_json::Value>>,
    /// A part of the object stored (storage version; `null`: absent).
    pub stored: Option<Placed<serde_json::Value>>,
    /// `kubectl get` cells by column name.
    pub columns: Option<Placed<Vec<Cell>>>,
    /// The CEL runtime cost spent on the object at most this.
    pub max_cost: Option<Placed<u64>>,
}

/// What the suite expects of the CRD itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrdExpect {
    /// Whether the server accepts the CRD.
    pub accepted: Option<Placed<bool>>,
    /// Every error about the CRD, in any order.
    pub messages: Option<Placed<Vec<MessageExpect>>>,
    /// Every rule's estimated cost at most this.
    pub max_rule_cost: Option<Placed<u64>>,
}

/// One case: an object (and maybe an old object or old CRD) and what it expects.
#[derive(Clone, Debug, PartialEq)]
pub struct TestCase {
    /// `name`.
    pub name: String,
    /// Where the case is (its list item).
    pub place: Span,
    /// The object (one document).
    pub object: Option<TestSource>,
    /// The old object (the update path).
    pub old_object: Option<TestSource>,
    /// The previous revision of the CRD (the object stored under it).
    pub old_crd: Option<TestSource>,
    /// `snapshot: true`: `--update` writes the current result as `expect`.
    pub snapshot: bool,
    /// The expectations.
    pub expect: CaseExpect,
    /// Byte range of the `expect` entry (key to value's end), when written.
    pub expect_range: Option<std::ops::Range<usize>>,
    /// Byte offset and column (1-based) of the case's first key, where `--update` inserts
    /// an `expect` entry when there is none.
    pub first_key: Option<(usize, usize)>,
}

/// A problem reading the test file, at its place.
#[derive(Clone, Debug, PartialEq)]
pub struct TestProblem {
    /// What is wrong.
    pub message: String,
    /// Where.
    pub place: Span,
}

/// A test file, read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TestSuite {
    /// The CRD under test.
    pub crd: Option<TestSource>,
    /// Where `crd` is (its value; the file's start when there is none).
    pub crd_place: Span,
    /// `kubernetesVersions` (empty: the caller's).
    pub kubernetes_versions: Vec<KubernetesVersion>,
    /// `fieldValidation` (none: the caller's).
    pub field_validation: Option<FieldValidation>,
    /// `crdExpect`.
    pub crd_expect: Option<CrdExpect>,
    /// The cases, in order.
    pub cases: Vec<TestCase>,
    /// Problems reading the file (the suite fails with them).
    pub problems: Vec<TestProblem>,
}

/// One expectation that did not hold.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TestFailure {
    /// Which expectation (`expect.errors[1]`, `crdExpect.accepted`).
    pub expectation: String,
    /// What it expected.
    pub expected: String,
    /// What the engine gave.
    pub got: String,
    /// Where the expectation is in the test file.
    pub place: Span,
}

impl TestSuite {
    /// Reads a test file's text (YAML or JSON, one document). Never fails: problems are in
    /// [`TestSuite::problems`].
    pub fn read(text: &str) -> TestSuite {
        let parsed = document::parse(text, SourceId::Object(0));
        let mut suite = TestSuite::default();
        let mut r = Reader {
            problems: Vec::new(),
        };
        for f in &parsed.findings {
            if f.severity == crate::Severity::Error {
                let place = f.location.map(|l| l.span).unwrap_or_default();
                r.problem(place, f.message.clone());
            }
        }
        let Some((_, root)) = parsed.values().next() else {
            if r.problems.is_empty() {
                r.problem(Span::default(), "the test file is empty".into());
            }
            suite.problems = r.problems;
            return suite;
        };
        let Some(map) = root.as_map() else {
            r.problem(root.span, "a test file is a mapping".into());
            suite.problems = r.problems;
            return suite;
        };
        for e in map {
            match e.key.as_str() {
                "crd" => {
                    suite.crd = r.source(&e.value);
                    suite.crd_place = e.value.span;
                }
                "kubernetesVersions" => {
                    let text = match &e.value.value {
                        Value::Seq(items) => {
                            items.iter().map(scalar_text).collect::<Vec<_>>().join(",")
                        }
                        _ => scalar_text(&e.value),
                    };
                    match KubernetesVersion::parse_set(&text) {
                        Ok(v) => suite.kubernetes_versions = v,
                        Err(m) => r.problem(e.value.span, m),
                    }
                }
                "fieldValidation" => match FieldValidation::parse(&scalar_text(&e.value)) {
                    Ok(v) => suite.field_validation = Some(v),
                    Err(m) => r.problem(e.value.span, m),
                },
                "crdExpect" => suite.crd_expect = Some(r.crd_expect(&e.value)),
                "cases" => match e.value.as_seq() {
                    Some(items) => suite.cases = items.iter().map(|c| r.case(c)).collect(),
                    None => r.problem(e.value.span, "`cases` is a list".into()),
                },
                other => r.unknown(e, other),
            }
        }
        if suite.crd.is_none() {
            r.problem(
                root.span,
                "`crd` is required (a path or the CRD itself)".into(),
            );
        }
        suite.problems = r.problems;
        suite
    }
}

/// The text of a scalar as written (numbers and booleans too).
fn scalar_text(node: &Node) -> String {
    match &node.value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        _ => node.to_json().to_string(),
    }
}

/// Reads the parts of a test file, collecting problems.
struct Reader {
    problems: Vec<TestProblem>,
}

impl Reader {
    fn problem(&mut self, place: Span, message: String) {
        self.problems.push(TestProblem { message, place });
    }

    fn unknown(&mut self, e: &Entry, other: &str) {
        self.problem(e.key_span, format!("unknown field `{other}`"));
    }

    fn source(&mut self, node: &Node) -> Option<TestSource> {
        match &node.value {
            Value::String(p) => Some(TestSource::Path(p.clone())),
            Value::Map(_) => Some(TestSource::Inline(
                serde_json::to_string_pretty(&node.to_json()).unwrap_or_default(),
            )),
            _ => {
                self.problem(node.span, "a path or a mapping".into());
                None
            }
        }
    }

    fn bool(&mut self, node: &Node) -> Option<Placed<bool>> {
        match node.value {
            Value::Bool(b) => Some(Placed {
                value: b,
                place: node.span,
            }),
            _ => {
                self.problem(node.span, "true or false".into());
                None
            }
        }
    }

    fn count(&mut self, node: &Node) -> Option<Placed<u64>> {
        match node.value {
            Value::Int(n) if n >= 0 => Some(Placed {
                value: n.unsigned_abs(),
                place: node.span,
            }),
            _ => {
                self.problem(node.span, "a whole number, 0 or more".into());
                None
            }
        }
    }

    fn messages(&mut self, node: &Node, with_path: bool) -> Option<Placed<Vec<MessageExpect>>> {
        let Some(items) = node.as_seq() else {
            self.problem(node.span, "a list".into());
            return None;
        };
        let mut out = Vec::new();
        for item in items {
            if let Value::String(s) = &item.value {
                out.push(MessageExpect {
                    path: None,
                    matcher: Matcher::Exact(s.clone()),
                    place: item.span,
                });
                continue;
            }
            let Some(map) = item.as_map() else {
                self.problem(item.span, "a message, or a mapping".into());
                continue;
            };
            let mut path = None;
            let mut matchers = Vec::new();
            for e in map {
                let text = scalar_text(&e.value);
                match e.key.as_str() {
                    "path" if with_path => path = Some(text),
                    "message" => matchers.push(Matcher::Exact(text)),
                    "contains" => matchers.push(Matcher::Contains(text)),
                    "regex" => match crd_studio_gostd::regexp::check(&text) {
                        Ok(()) => matchers.push(Matcher::Regex(text)),
                        Err(m) => self.problem(e.value.span, m),
                    },
                    other => self.unknown(e, other),
                }
            }
            if matchers.len() > 1 {
                self.problem(item.span, "one of `message`, `contains`, `regex`".into());
            }
            out.push(MessageExpect {
                path,
                matcher: matchers.into_iter().next().unwrap_or(Matcher::Any),
                place: item.span,
            });
        }
        Some(Placed {
            value: out,
            place: node.span,
        })
    }

    fn crd_expect(&mut self, node: &Node) -> CrdExpect {
        let mut x = CrdExpect::default();
        let Some(map) = node.as_map() else {
            self.problem(node.span, "a mapping".into());
            return x;
        };
        for e in map {
            match e.key.as_str() {
                "accepted" => x.accepted = self.bool(&e.value),
                "messages" => x.messages = self.messages(&e.value, true),
                "maxRuleCost" => x.max_rule_cost = self.count(&e.value),
                other => self.unknown(e, other),
            }
        }
        x
    }

    fn expect(&mut self, node: &Node) -> CaseExpect {
        let mut x = CaseExpect::default();
        let Some(map) = node.as_map() else {
            self.problem(node.span, "a mapping".into());
            return x;
        };
        for e in map {
            let v = &e.value;
            let place = v.span;
            match e.key.as_str() {
                "verdict" => match v.as_str() {
                    Some("accepted") => x.accepted = Some(Placed { value: true, place }),
                    Some("rejected") => {
                        x.accepted = Some(Placed {
                            value: false,
                            place,
                        })
                    }
                    _ => self.problem(v.span, "`accepted` or `rejected`".into()),
                },
                "errors" => x.errors = self.messages(v, true),
                "warnings" => x.warnings = self.messages(v, false),
                "fields" => {
                    x.fields = Some(Placed {
                        value: v.to_json(),
                        place,
                    })
                }
                "stored" => {
                    x.stored = Some(Placed {
                        value: v.to_json(),
                        place,
                    })
                }
                "columns" => match v.as_map() {
                    Some(cells) => {
                        let cells = cells
                            .iter()
                            .map(|c| {
                                let value = scalar_text(&c.value);
                                let place = c.value.span;
                                (c.key.clone(), Placed { value, place })
                            })
                            .collect();
                        x.columns = Some(Placed {
                            value: cells,
                            place,
                        });
                    }
                    None => self.problem(v.span, "a mapping of column names to cells".into()),
                },
                "maxCost" => x.max_cost = self.count(v),
                other => self.unknown(e, other),
            }
        }
        x
    }

    fn case(&mut self, node: &Node) -> TestCase {
        let mut case = TestCase {
            name: String::new(),
            place: node.span,
            object: None,
            old_object: None,
            old_crd: None,
            snapshot: false,
            expect: CaseExpect::default(),
            expect_range: None,
            first_key: None,
        };
        let Some(map) = node.as_map() else {
            self.problem(node.span, "a case is a mapping".into());
            return case;
        };
        case.first_key = map
            .first()
            .map(|e| (e.key_span.start.offset, e.key_span.start.column));
        for e in map {
            match e.key.as_str() {
                "name" => case.name = scalar_text(&e.value),
                "object" => case.object = self.source(&e.value),
                "oldObject" => case.old_object = self.source(&e.value),
                "oldCrd" => case.old_crd = self.source(&e.value),
                "snapshot" => case.snapshot = self.bool(&e.value).is_some_and(|b| b.value),
                "expect" => {
                    case.expect = self.expect(&e.value);
                    case.expect_range = Some(e.key_span.start.offset..e.value.span.end.offset);
                }
                other => self.unknown(e, other),
            }
        }
        if case.object.is_none() {
            self.problem(node.span, "a case needs an `object`".into());
        }
        case
    }
}

/// The message of an error as the server returns it: `(path, detail, whole text)`.
fn error_texts(e: &FieldErrorReport) -> (&str, &str, &str) {
    (&e.field, &e.detail, &e.error)
}

fn matches(m: &Matcher, detail: &str, whole: &str) -> bool {
    match m {
        Matcher::Exact(s) => s == detail || s == whole,
        Matcher::Contains(s) => whole.contains(s.as_str()),
        Matcher::Regex(r) => crd_studio_gostd::regexp::compile(r)
            .ok()
            .and_then(|re| re.is_match(whole))
            .unwrap_or(false),
        Matcher::Any => true,
    }
}

fn describe(m: &MessageExpect) -> String {
    let msg = match &m.matcher {
        Matcher::Exact(s) => format!("{s:?}"),
        Matcher::Contains(s) => format!("containing {s:?}"),
        Matcher::Regex(r) => format!("matching /{r}/"),
        Matcher::Any => "any message".to_owned(),
    };
    match &m.path {
        Some(p) => format!("{p}: {msg}"),
        None => msg,
    }
}

/// Matches expected messages to actual ones (each actual used once, first fit): a failure per
/// expected message without a match and one per actual message no expectation matched.
/// `actual` holds `(path, detail, whole text)`.
fn check_messages(
    name: &str,
    expected: &Placed<Vec<MessageExpect>>,
    actual: &[(&str, &str, &str)],
    out: &mut Vec<TestFailure>,
) {
    let mut used = vec![false; actual.len()];
    for (i, m) in expected.value.iter().enumerate() {
        let found = actual.iter().zip(used.iter_mut()).find(|((p, d, w), u)| {
            !**u && m.path.as_deref().is_none_or(|want| want == *p) && matches(&m.matcher, d, w)
        });
        match found {
            Some((_, u)) => *u = true,
            None => out.push(TestFailure {
                expectation: format!("{name}[{i}]"),
                expected: describe(m),
                got: if actual.is_empty() {
                    "none".to_owned()
                } else {
                    actual
                        .iter()
                        .map(|(_, _, w)| *w)
                        .collect::<Vec<_>>()
                        .join("\n")
                },
                place: m.place,
            }),
        }
    }
    for ((_, _, w), u) in actual.iter().zip(used) {
        if !u {
            out.push(TestFailure {
                expectation: name.to_owned(),
                expected: "no other".to_owned(),
                got: (*w).to_owned(),
                place: expected.place,
            });
        }
    }
}

/// Whether `got` has everything `want` has: mappings by key (`null` in `want`: the key is
/// absent or null), lists item by item with the same length, scalars equal. Returns the
/// path of the first difference.
fn partial_match(want: &serde_json::Value, got: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value as J;
    match (want, got) {
        (J::Object(w), J::Object(g)) => w.iter().find_map(|(k, wv)| {
            let p = format!("{path}.{k}");
            match (wv, g.get(k)) {
                (J::Null, None | Some(J::Null)) => None,
                (_, None) => Some(p),
                (wv, Some(gv)) => partial_match(wv, gv, &p),
            }
        }),
        (J::Array(w), J::Array(g)) if w.len() == g.len() => w
            .iter()
            .zip(g)
            .enumerate()
            .find_map(|(i, (wv, gv))| partial_match(wv, gv, &format!("{path}[{i}]"))),
        (w, g) if w == g => None,
        _ => Some(if path.is_empty() {
            "<root>".into()
        } else {
            path.into()
        }),
    }
}

fn lookup<'a>(value: &'a serde_json::Value, path: &str) -> Option<&'a serde_json::Value> {
    let mut v = value;
    for part in path.trim_start_matches('.').split('.') {
        if part.is_empty() || part == "<root>" {
            continue;
        }
        let (key, index) = match part.split_once('[') {
            Some((k, rest)) => (k, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        v = v.get(key)?;
        if let Some(i) = index {
            v = v.get(i)?;
        }
    }
    Some(v)
}

fn check_partial(
    name: &str,
    want: &Placed<serde_json::Value>,
    got: &serde_json::Value,
    out: &mut Vec<TestFailure>,
) {
    if let Some(at) = partial_match(&want.value, got, "") {
        let show = |v: Option<&serde_json::Value>| {
            v.map_or("absent".to_owned(), |v| {
                serde_json::to_string(v).unwrap_or_default()
            })
        };
        out.push(TestFailure {
            expectation: format!("{name} {at}"),
            expected: show(lookup(&want.value, &at)),
            got: show(lookup(got, &at)),
            place: want.place,
        });
    }
}

/// A `kubectl get` cell as text (a string as it is, `null` empty, other values as JSON).
fn cell_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        v => v.to_string(),
    }
}

/// The errors of an object as the server returns them (its decode error when nothing was
/// validated).
fn object_errors(o: &ObjectReport) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = o
        .errors
        .iter()
        .map(|e| {
            let (p, d, w) = error_texts(e);
            (p.to_owned(), d.to_owned(), w.to_owned())
        })
        .collect();
    for m in o.decode_error.iter().chain(&o.object_error) {
        if out.is_empty() {
            out.push((String::new(), m.clone(), m.clone()));
        }
    }
    out
}

/// Checks a case's expectations against the engine's report on its object. A case without
/// expectations expects the object to be accepted.
pub fn check_case(case: &TestCase, object: &ObjectReport) -> Vec<TestFailure> {
    let x = &case.expect;
    let mut out = Vec::new();
    let verdict = |b: bool| if b { "accepted" } else { "rejected" }.to_owned();
    let errors = object_errors(object);
    let errors: Vec<(&str, &str, &str)> = errors
        .iter()
        .map(|(p, d, w)| (p.as_str(), d.as_str(), w.as_str()))
        .collect();
    let default_accepted = Placed {
        value: true,
        place: case.place,
    };
    let want = x.accepted.as_ref().or(if *x == CaseExpect::default() {
        Some(&default_accepted)
    } else {
        None
    });
    if let Some(want) = want {
        if want.value != object.accepted {
            out.push(TestFailure {
                expectation: "expect.verdict".into(),
                expected: verdict(want.value),
                got: match errors.first() {
                    Some((_, _, w)) if !object.accepted => format!("rejected: {w}"),
                    _ => verdict(object.accepted),
                },
                place: want.place,
            });
        }
    }
    if let Some(want) = &x.errors {
        check_messages("expect.errors", want, &errors, &mut out);
    }
    if let Some(want) = &x.warnings {
        let got: Vec<(&str, &str, &str)> = object
            .warnings
            .iter()
            .map(|w| ("", w.as_str(), w.as_str()))
            .collect();
        check_messages("expect.warnings", want, &got, &mut out);
    }
    if let Some(want) = &x.fields {
        check_partial(
            "expect.fields",
            want,
            &object.defaulted.to_value(),
            &mut out,
        );
    }
    if let Some(want) = &x.stored {
        check_partial("expect.stored", want, &object.stored.to_value(), &mut out);
    }
    if let Some(want) = &x.columns {
        for (name, cell) in &want.value {
            let i = object.table.columns.iter().position(|c| c == name);
            let got = i.and_then(|i| object.table.cells.get(i)).map(cell_text);
            if got.as_deref() != Some(cell.value.as_str()) {
                out.push(TestFailure {
                    expectation: format!("expect.columns.{name}"),
                    expected: format!("{:?}", cell.value),
                    got: got.map_or_else(
                        || format!("no column {name:?} ({})", object.table.columns.join(", ")),
                        |g| format!("{g:?}"),
                    ),
                    place: cell.place,
                });
            }
        }
    }
    if let Some(want) = &x.max_cost {
        if object.cel_runtime_cost > want.value {
            out.push(TestFailure {
                expectation: "expect.maxCost".into(),
                expected: format!("at most {}", want.value),
                got: object.cel_runtime_cost.to_string(),
                place: want.place,
            });
        }
    }
    out
}

/// Checks the suite's expectations of the CRD against an analysis of it.
pub fn check_crd(expect: &CrdExpect, analysis: &Analysis) -> Vec<TestFailure> {
    let mut out = Vec::new();
    let crd = &analysis.crd;
    if let Some(want) = &expect.accepted {
        if want.value != crd.accepted {
            out.push(TestFailure {
                expectation: "crdExpect.accepted".into(),
                expected: want.value.to_string(),
                got: match crd.errors.first() {
                    Some(e) if !crd.accepted => format!("false: {}", e.error),
                    _ => crd.accepted.to_string(),
                },
                place: want.place,
            });
        }
    }
    if let Some(want) = &expect.messages {
        let got: Vec<(&str, &str, &str)> = crd.errors.iter().map(error_texts).collect();
        check_messages("crdExpect.messages", want, &got, &mut out);
    }
    if let Some(want) = &expect.max_rule_cost {
        for v in &analysis.versions {
            for rule in &v.rules {
                if let Some(cost) = rule.estimated_cost.filter(|c| *c > want.value) {
                    out.push(TestFailure {
                        expectation: "crdExpect.maxRuleCost".into(),
                        expected: format!("at most {}", want.value),
                        got: format!("{cost} for {} ({}: {})", rule.crd_path, v.name, rule.rule),
                        place: want.place,
                    });
                }
            }
        }
    }
    out
}

/// The expectations that describe `object` as the engine reports it now (what `--update`
/// writes for a `snapshot: true` case): its verdict, errors (path and message) and warnings.
pub fn snapshot_expect(object: &ObjectReport) -> serde_json::Value {
    let mut x = serde_json::Map::new();
    let verdict = if object.accepted {
        "accepted"
    } else {
        "rejected"
    };
    x.insert("verdict".into(), verdict.into());
    let errors: Vec<serde_json::Value> = object_errors(object)
        .into_iter()
        .map(|(p, d, _)| serde_json::json!({"path": p, "message": d}))
        .collect();
    if !errors.is_empty() {
        x.insert("errors".into(), errors.into());
    }
    if !object.warnings.is_empty() {
        x.insert("warnings".into(), object.warnings.clone().into());
    }
    serde_json::Value::Object(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{analyze, Options, Request};

    const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
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
              size: {type: integer, default: 1, minimum: 0}
"#;

    fn object(text: &str) -> ObjectReport {
        let a = analyze(&Request {
            crd: CRD.into(),
            objects: vec![text.into()],
            options: Options::default(),
            ..Request::default()
        });
        a.objects.into_iter().next().expect("one object")
    }

    fn suite(cases: &str) -> TestSuite {
        TestSuite::read(&format!("crd: crd.yaml\ncases:\n{cases}"))
    }

    const SMALL: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {}\n";
    const EXTRA: &str =
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {extra: 1}\n";
    const BIG: &str =
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {size: 11}\n";

    #[test]
    fn reads_a_suite_with_places() {
        let s = TestSuite::read(
            "crd: crd.yaml\nkubernetesVersions: 1.30..1.31\nfieldValidation: warn\ncases:\n- name: a\n  object: {kind: Widget}\n  expect:\n    verdict: rejected\n    errors:\n    - {path: spec, contains: at most}\n",
        );
        assert_eq!(s.problems, vec![]);
        assert_eq!(s.crd, Some(TestSource::Path("crd.yaml".into())));
        assert_eq!((s.crd_place.start.line, s.crd_place.start.column), (1, 6));
        assert_eq!(s.kubernetes_versions.len(), 2);
        assert_eq!(s.field_validation, Some(FieldValidation::Warn));
        let case = &s.cases[0];
        assert_eq!(case.name, "a");
        assert!(matches!(case.object, Some(TestSource::Inline(_))));
        let v = case.expect.accepted.as_ref().unwrap();
        assert!(!v.value);
        assert_eq!((v.place.start.line, v.place.start.column), (8, 14));
        let e = &case.expect.errors.as_ref().unwrap().value[0];
        assert_eq!((e.place.start.line, e.place.start.column), (10, 7));
        assert_eq!(e.matcher, Matcher::Contains("at most".into()));
    }

    #[test]
    fn reading_problems_have_places() {
        // (text, the problem's message, its line and column)
        let cases: &[(&str, &str, usize, usize)] = &[
            ("cases: []\n", "`crd` is required", 1, 1),
            ("crd: a\nbogus: 1\n", "unknown field `bogus`", 2, 1),
            ("crd: a\nkubernetesVersions: 2.0\n", "", 2, 21),
            (
                "crd: a\ncases:\n- name: x\n",
                "a case needs an `object`",
                3,
                3,
            ),
            (
                "crd: a\ncases:\n- object: {}\n  expect: {verdict: maybe}\n",
                "`accepted`",
                4,
                21,
            ),
            (
                "crd: a\ncrdExpect: {maxRuleCost: -1}\n",
                "a whole number",
                2,
                26,
            ),
        ];
        for (text, message, line, column) in cases {
            let s = TestSuite::read(text);
            let p = s.problems.first().unwrap_or_else(|| panic!("{text:?}"));
            assert!(p.message.contains(message), "{text:?}: {}", p.message);
            assert_eq!(
                (p.place.start.line, p.place.start.column),
                (*line, *column),
                "{text:?}"
            );
        }
    }

    #[test]
    fn checks_each_expectation_kind() {
        // (the case's expect, object, the failed expectations; empty: passes)
        let cases: &[(&str, &str, &[&str])] = &[
            ("", SMALL, &[]),
            ("", BIG, &["expect.verdict"]),
            ("verdict: accepted", SMALL, &[]),
            ("verdict: rejected", SMALL, &["expect.verdict"]),
            ("errors: [size must be at most 10]", BIG, &[]),
            (
                "errors: [{path: spec, message: size must be at most 10}]",
                BIG,
                &[],
            ),
            (
                "errors: [{path: spec.size, message: size must be at most 10}]",
                BIG,
                &["expect.errors[0]", "expect.errors"],
            ),
            ("errors: [{contains: at most 10}]", BIG, &[]),
            ("errors: [{regex: 'at most [0-9]+$'}]", BIG, &[]),
            (
                "errors: [{regex: 'at least'}]",
                BIG,
                &["expect.errors[0]", "expect.errors"],
            ),
            ("errors: []", BIG, &["expect.errors"]),
            ("errors: []", SMALL, &[]),
            ("warnings: []", SMALL, &[]),
            ("fields: {spec: {size: 1}}", SMALL, &[]),
            (
                "fields: {spec: {size: 2}}",
                SMALL,
                &["expect.fields .spec.size"],
            ),
            ("fields: {spec: {other: null}}", SMALL, &[]),
            (
                "stored: {apiVersion: example.com/v1, spec: {size: 1}}",
                SMALL,
                &[],
            ),
            ("columns: {Size: '1'}", SMALL, &[]),
            ("columns: {Size: 2}", SMALL, &["expect.columns.Size"]),
            ("columns: {Colour: x}", SMALL, &["expect.columns.Colour"]),
            (
                "errors: [{contains: 'unknown field \"spec.extra\"'}]",
                EXTRA,
                &[],
            ),
            ("verdict: accepted", EXTRA, &["expect.verdict"]),
            ("maxCost: 100", BIG, &[]),
            ("maxCost: 0", BIG, &["expect.maxCost"]),
        ];
        for (expect, obj, want) in cases {
            let s = suite(&format!(
                "- name: c\n  object: o.yaml\n  expect: {{{expect}}}\n"
            ));
            assert_eq!(s.problems, vec![], "{expect}");
            let failures = check_case(&s.cases[0], &object(obj));
            let got: Vec<&str> = failures.iter().map(|f| f.expectation.as_str()).collect();
            assert_eq!(&got, want, "{expect}: {failures:#?}");
        }
    }

    #[test]
    fn a_failure_says_expected_got_and_place() {
        let s = suite("- name: c\n  object: o.yaml\n  expect:\n    errors:\n    - {path: spec, message: too big}\n");
        let f = check_case(&s.cases[0], &object(BIG));
        assert_eq!(f[0].expected, "spec: \"too big\"");
        assert!(f[0].got.contains("size must be at most 10"), "{}", f[0].got);
        assert_eq!((f[0].place.start.line, f[0].place.start.column), (7, 7));
    }

    #[test]
    fn crd_expectations() {
        let a = analyze(&Request {
            crd: CRD.into(),
            ..Request::default()
        });
        // (crdExpect, the failed expectations)
        let cases: &[(&str, &[&str])] = &[
            ("{accepted: true}", &[]),
            ("{accepted: false}", &["crdExpect.accepted"]),
            ("{messages: []}", &[]),
            ("{maxRuleCost: 1000}", &[]),
            ("{maxRuleCost: 0}", &["crdExpect.maxRuleCost"]),
        ];
        for (expect, want) in cases {
            let s = TestSuite::read(&format!("crd: a\ncrdExpect: {expect}\n"));
            let failures = check_crd(s.crd_expect.as_ref().unwrap(), &a);
            let got: Vec<&str> = failures.iter().map(|f| f.expectation.as_str()).collect();
            assert_eq!(&got, want, "{expect}: {failures:#?}");
        }
    }

    #[test]
    fn a_snapshot_passes_its_own_case() {
        for obj in [SMALL, BIG] {
            let report = object(obj);
            let expect = serde_json::to_string(&snapshot_expect(&report)).unwrap();
            let s = suite(&format!(
                "- name: c\n  object: o.yaml\n  expect: {expect}\n"
            ));
            assert_eq!(s.problems, vec![]);
            assert_eq!(check_case(&s.cases[0], &report), vec![], "{expect}");
        }
    }
}
