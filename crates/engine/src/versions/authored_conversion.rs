//! Authored conversions: a small declarative mapping per version pair, written in the studio,
//! that stands in for a conversion webhook. It goes beyond the server (which only ever calls a
//! webhook); everything around it is the server's: the `ConversionReview` request the server
//! would send, the response the mapping produces, the server's checks of that response, the
//! target version's decoding step, and a round trip check (A → B → A equals A, the lesson of
//! *Programming Kubernetes* ch. 8: conversions must be lossless).
//!
//! # The mapping format
//!
//! A mapping text is YAML (or JSON) holding one mapping per document:
//!
//! ```yaml
//! from: v1            # the source version
//! to: v2              # the target version
//! rules:              # applied in order
//!   - move: {from: .spec.cronSpec, to: .spec.schedule}
//!   - copy: {from: .spec.image, to: .spec.template.image}
//!   - set: {path: .spec.mode, value: auto}
//!   - cel: {path: .spec.replicas, expr: "self.spec.size * 2"}
//!   - drop: .spec.legacy
//! ---
//! from: v2
//! to: v1
//! rules:
//!   - move: {from: .spec.schedule, to: .spec.cronSpec}
//! ```
//!
//! * The output starts as a copy of the source object with `apiVersion` set to
//!   `<group>/<to>`. Rules **read the source object** (as it was before any rule) and **write
//!   the output**, in order; so rules do not see each other's results, and
//!   `move a → b` + `move b → a` swaps two fields.
//! * `move: {from, to}`: the value at `from` is written at `to` and `from` is removed from the
//!   output. Nothing happens when the source has no value at `from`.
//! * `copy: {from, to}`: as `move`, without removing `from`.
//! * `set: {path, value}`: writes the (YAML) value.
//! * `cel: {path, expr}`: evaluates the CEL expression with `self` = the source object (`dyn`:
//!   maps, lists, ints, doubles, strings, bools, null) in Kubernetes' CEL environment (the
//!   studio's Kubernetes version; per-call cost limit 1,000,000) and writes the result.
//!   `optional.none()` removes the field; `optional.of(x)` writes `x`; timestamps and durations
//!   are written as their `string()` texts; bytes as base64 (as Go's JSON does). A value that
//!   cannot be JSON (a quantity, a type, NaN) is an error.
//! * `drop: <path>` (or `drop: {path: <path>}`): removes the field from the output.
//! * Paths: `.a.b`, `['key.with.dots']` for keys that are not plain names (`\'` and `\\`
//!   escapes), `[N]` for a list element: `.metadata.annotations['example.com/mode']`,
//!   `.spec.ports[0].name`. Writing creates missing objects on the way (not lists); writing
//!   through a scalar, or to a list element that does not exist, is an error.
//! * A rule that fails fails the object: the webhook would answer `Failed` with the message, and
//!   the server fails the request (`conversion webhook for <gvk> failed: <message>`).
//!
//! Metadata: the server keeps only `labels` and `annotations` from a converted object (other
//! metadata changes are ignored; a changed name, namespace or uid fails the request), so
//! mappings may carry data in annotations to make a round trip lossless.
//!
//! # The round trip
//!
//! For every sample stored at version A and every version B with mappings A → B and B → A, the
//! object goes A → B → A the way the server would move it: mapping, the server's response
//! checks and metadata restore, the target version's decoding step (pruning, defaulting); then
//! back. The result is compared with the stored object; the first difference (path, value
//! before, value after, in sorted key order) is reported, located at the rule of either mapping
//! that touches that path (else at the mapping itself).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

use crd_studio_cel::checker::{Env, EnvBuilder};
use crd_studio_cel::decls::EnvVersion;
use crd_studio_cel::interp::{Activation, CostTracker, Program};
use crd_studio_cel::types::Type;
use crd_studio_cel::value::Value;
use crd_studio_cel::KubernetesVersion;

use crate::documents::document::{self, Node};
use crate::documents::finding::{Severity, SourceId};
use crate::documents::position::{LineIndex, Span};
use crate::documents::scalar_pos::ScalarText;

// ------------------------------------------------------------------------------------------
// Paths
// ------------------------------------------------------------------------------------------

/// One step of a mapping path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    /// An object field.
    Key(String),
    /// A list element.
    Index(usize),
}

/// Parses a mapping path (`.a.b['x.y'][0]`).
pub fn parse_path(text: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    if chars.first() != Some(&'.') && chars.first() != Some(&'[') {
        return Err(format!("path {text:?} must start with '.'"));
    }
    while let Some(&c) = chars.get(i) {
        match c {
            '.' => {
                i += 1;
                let start = i;
                while let Some(&d) = chars.get(i) {
                    if d == '.' || d == '[' {
                        break;
                    }
                    i += 1;
                }
                let name: String = chars.get(start..i).unwrap_or(&[]).iter().collect();
                if name.is_empty() {
                    return Err(format!("path {text:?} has an empty field name"));
                }
                if name.contains(']') {
                    return Err(format!("path {text:?} has an unexpected ']'"));
                }
                steps.push(Step::Key(name));
            }
            '[' => {
                i += 1;
                match chars.get(i) {
                    Some('\'') => {
                        i += 1;
                        let mut key = String::new();
                        loop {
                            match chars.get(i) {
                                None => {
                                    return Err(format!("path {text:?} has an unterminated quote"))
                                }
                                Some('\\') => {
                                    match chars.get(i + 1) {
                                        Some(&e @ ('\'' | '\\')) => key.push(e),
                                        _ => {
                                            return Err(format!(
                                            "path {text:?}: only \\' and \\\\ escapes are allowed"
                                        ))
                                        }
                                    }
                                    i += 2;
                                }
                                Some('\'') => {
                                    i += 1;
                                    break;
                                }
                                Some(&d) => {
                                    key.push(d);
                                    i += 1;
                                }
                            }
                        }
                        if chars.get(i) != Some(&']') {
                            return Err(format!("path {text:?}: expected ']' after a quoted key"));
                        }
                        i += 1;
                        steps.push(Step::Key(key));
                    }
                    _ => {
                        let start = i;
                        while chars.get(i).is_some_and(char::is_ascii_digit) {
                            i += 1;
                        }
                        let digits: String = chars.get(start..i).unwrap_or(&[]).iter().collect();
                        if digits.is_empty() || chars.get(i) != Some(&']') {
                            return Err(format!(
                                "path {text:?}: expected a list index or a quoted key inside []"
                            ));
                        }
                        i += 1;
                        let n = digits
                            .parse::<usize>()
                            .map_err(|_| format!("path {text:?}: index {digits} is too large"))?;
                        steps.push(Step::Index(n));
                    }
                }
            }
            _ => return Err(format!("path {text:?}: expected '.' or '['")),
        }
    }
    if steps.is_empty() {
        return Err(format!("path {text:?} names no field"));
    }
    Ok(steps)
}

/// The text of a path, as [`parse_path`] reads it.
pub fn path_text(steps: &[Step]) -> String {
    let mut out = String::new();
    for s in steps {
        match s {
            Step::Key(k) => {
                let plain = !k.is_empty() && !k.contains(['.', '[', ']', '\'', '\\']);
                if plain {
                    out.push('.');
                    out.push_str(k);
                } else {
                    out.push_str("['");
                    for c in k.chars() {
                        if c == '\'' || c == '\\' {
                            out.push('\\');
                        }
                        out.push(c);
                    }
                    out.push_str("']");
                }
            }
            Step::Index(n) => out.push_str(&format!("[{n}]")),
        }
    }
    out
}

/// The value at a path.
pub fn get_path<'a>(root: &'a Json, steps: &[Step]) -> Option<&'a Json> {
    let mut cur = root;
    for s in steps {
        cur = match (cur, s) {
            (Json::Object(m), Step::Key(k)) => m.get(k)?,
            (Json::Array(a), Step::Index(i)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn describe(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "an object",
    }
}

/// Writes `value` at a path, creating missing (or null) objects on the way.
pub fn set_path(root: &mut Json, steps: &[Step], value: Json) -> Result<(), String> {
    let Some((last, parents)) = steps.split_last() else {
        return Err("the path names no field".to_owned());
    };
    let mut cur = root;
    for (depth, s) in parents.iter().enumerate() {
        let here = path_text(steps.get(..depth).unwrap_or(&[]));
        if cur.is_null() {
            if let Step::Key(_) = s {
                *cur = Json::Object(Map::new());
            }
        }
        cur = match (cur, s) {
            (Json::Object(m), Step::Key(k)) => {
                let next_is_index = matches!(steps.get(depth + 1), Some(Step::Index(_)));
                let slot = m.entry(k.clone()).or_insert(Json::Null);
                if slot.is_null() && next_is_index {
                    return Err(format!(
                        "{} is missing: a list is not created by index",
                        path_text(steps.get(..=depth).unwrap_or(&[]))
                    ));
                }
                slot
            }
            (Json::Array(a), Step::Index(i)) => {
                let len = a.len();
                a.get_mut(*i).ok_or_else(|| {
                    format!("{here}[{i}] does not exist: the list has {len} items")
                })?
            }
            (other, step) => {
                return Err(format!(
                    "cannot write {}: {} is {}",
                    path_text(steps),
                    if here.is_empty() { "the object" } else { &here },
                    match step {
                        Step::Key(_) => describe(other),
                        Step::Index(_) => describe(other),
                    }
                ))
            }
        };
    }
    let parent_text = path_text(parents);
    if cur.is_null() {
        if let Step::Key(_) = last {
            *cur = Json::Object(Map::new());
        }
    }
    match (cur, last) {
        (Json::Object(m), Step::Key(k)) => {
            m.insert(k.clone(), value);
            Ok(())
        }
        (Json::Array(a), Step::Index(i)) => {
            let len = a.len();
            match a.get_mut(*i) {
                Some(slot) => {
                    *slot = value;
                    Ok(())
                }
                None => Err(format!(
                    "{parent_text}[{i}] does not exist: the list has {len} items"
                )),
            }
        }
        (other, _) => Err(format!(
            "cannot write {}: {} is {}",
            path_text(steps),
            if parent_text.is_empty() {
                "the object"
            } else {
                &parent_text
            },
            describe(other)
        )),
    }
}

/// Removes the value at a path (nothing when it is missing).
pub fn remove_path(root: &mut Json, steps: &[Step]) -> Option<Json> {
    let (last, parents) = steps.split_last()?;
    let mut cur = root;
    for s in parents {
        cur = match (cur, s) {
            (Json::Object(m), Step::Key(k)) => m.get_mut(k)?,
            (Json::Array(a), Step::Index(i)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    match (cur, last) {
        (Json::Object(m), Step::Key(k)) => m.remove(k),
        (Json::Array(a), Step::Index(i)) if *i < a.len() => Some(a.remove(*i)),
        _ => None,
    }
}

// ------------------------------------------------------------------------------------------
// CEL values
// ------------------------------------------------------------------------------------------

/// How deep a value may nest when converted (the documents nest at most 512 levels).
const MAX_DEPTH: usize = 600;

/// A JSON value as a CEL `dyn` value: objects are maps with string keys, numbers that fit
/// int64 are ints (others doubles), as Kubernetes decodes unstructured JSON.
pub fn json_to_cel(j: &Json) -> Value<'static> {
    fn inner(j: &Json, depth: usize) -> Value<'static> {
        if depth > MAX_DEPTH {
            return Value::error("the value nests too deeply");
        }
        match j {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Double(n.as_f64().unwrap_or(0.0)),
            },
            Json::String(s) => Value::string(s),
            Json::Array(items) => Value::list(items.iter().map(|i| inner(i, depth + 1)).collect()),
            Json::Object(m) => Value::map(
                m.iter()
                    .map(|(k, v)| (Value::string(k), inner(v, depth + 1)))
                    .collect(),
            ),
        }
    }
    inner(j, 0)
}

/// A double as the JSON number the wire carries: Go writes integral doubles below 1e21
/// without a fraction, and the server reads those back as integers.
fn double_json(f: f64) -> Result<Json, String> {
    if !f.is_finite() {
        return Err(format!(
            "{} cannot be written as JSON",
            crd_studio_gostd::strconv::format_float_g(f)
        ));
    }
    // Go writes them as integers (below 1e21), which read back as int64 when they fit.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.fract() == 0.0 && (-TWO_63..TWO_63).contains(&f) {
        return Ok(Json::from(f as i64));
    }
    serde_json::Number::from_f64(f)
        .map(Json::Number)
        .ok_or_else(|| "the number cannot be written as JSON".to_owned())
}

/// A CEL result as JSON: `Ok(None)` for `optional.none()` (the field is removed).
pub fn cel_to_json(v: &Value<'_>) -> Result<Option<Json>, String> {
    fn inner(v: &Value<'_>, depth: usize) -> Result<Option<Json>, String> {
        if depth > MAX_DEPTH {
            return Err("the value nests too deeply".to_owned());
        }
        Ok(Some(match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(i) => Json::from(*i),
            Value::Uint(u) => Json::from(*u),
            Value::Double(f) => double_json(*f)?,
            Value::String(s) => Json::String(s.as_str().to_owned()),
            Value::Bytes(b) => Json::String(crd_studio_gostd::base64::encode(b)),
            Value::Timestamp(t) => Json::String(crd_studio_gostd::time::format_rfc3339_nano(t)),
            Value::Duration(d) => {
                Json::String(crd_studio_cel::rt_time::duration_to_cel_string(d.0))
            }
            Value::List(l) => {
                let mut out = Vec::with_capacity(l.len());
                for item in l.iter() {
                    match inner(&item, depth + 1)? {
                        Some(j) => out.push(j),
                        None => return Err("a list holds optional.none()".to_owned()),
                    }
                }
                Json::Array(out)
            }
            Value::Map(m) => {
                let mut out = Map::new();
                for (k, val) in crd_studio_cel::stdlib_rt::map_entries(m) {
                    let Value::String(k) = k else {
                        return Err(format!(
                            "a map key of type {} cannot be a JSON field name",
                            k.type_name()
                        ));
                    };
                    if let Some(j) = inner(&val, depth + 1)? {
                        out.insert(k.as_str().to_owned(), j);
                    }
                }
                Json::Object(out)
            }
            Value::Optional(None) => return Ok(None),
            Value::Optional(Some(x)) => return inner(x, depth + 1),
            Value::Preserved(j) => (*j).clone(),
            Value::Error(e) => return Err(e.message.clone()),
            other => {
                return Err(format!(
                    "a value of type {} cannot be written as JSON (convert it with string())",
                    other.type_name()
                ))
            }
        }))
    }
    inner(v, 0)
}

/// The CEL environment of mapping expressions: Kubernetes' (new expressions as a server of
/// this version compiles them) with `self` declared `dyn`.
pub fn cel_env(server: KubernetesVersion) -> Env {
    EnvBuilder::kubernetes(EnvVersion::NewExpressions(server.compatibility()))
        .literal_checks(crd_studio_cel::stdlib_rt::literal_checks())
        .variable("self", Type::Dyn)
        .build()
}

/// The per-expression cost limit (the server's per-call limit for validation rules).
pub const COST_LIMIT: u64 = 1_000_000;

/// Evaluates a compiled expression with `self` = `source`: `Ok(None)` for `optional.none()`.
pub fn eval_cel(program: &Program, source: &Json) -> Result<Option<Json>, String> {
    let mut act = Activation::new();
    act.bind("self", json_to_cel(source));
    let mut tracker = CostTracker::kubernetes(Some(COST_LIMIT));
    match program.eval(&act, &mut tracker) {
        Ok(v) => cel_to_json(&v),
        Err(_) => Err("operation cancelled: actual cost limit exceeded".to_owned()),
    }
}

// ------------------------------------------------------------------------------------------
// Mappings
// ------------------------------------------------------------------------------------------

/// Where something is in the mapping texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MappingLocation {
    /// Which mapping text (0-based).
    pub mapping: usize,
    /// The range in that text.
    pub span: Span,
}

/// A problem or note about the mappings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MappingIssue {
    /// Error, warning or info.
    pub severity: Severity,
    /// A stable code (`mapping.syntax`, `mapping.cel`, `conversion.round-trip`, ...).
    pub code: String,
    /// The message.
    pub message: String,
    /// Where it is, when it is in a mapping text.
    pub location: Option<MappingLocation>,
}

impl MappingIssue {
    fn new(
        severity: Severity,
        code: &str,
        message: impl Into<String>,
        location: Option<MappingLocation>,
    ) -> MappingIssue {
        MappingIssue {
            severity,
            code: code.to_owned(),
            message: message.into(),
            location,
        }
    }
}

/// What a rule does.
#[derive(Clone, Debug)]
pub enum RuleKind {
    /// `move: {from, to}`.
    Move {
        /// Read from the source, removed from the output.
        from: Vec<Step>,
        /// Written.
        to: Vec<Step>,
    },
    /// `copy: {from, to}`.
    Copy {
        /// Read from the source.
        from: Vec<Step>,
        /// Written.
        to: Vec<Step>,
    },
    /// `set: {path, value}`.
    Set {
        /// Written.
        path: Vec<Step>,
        /// The value.
        value: Json,
    },
    /// `cel: {path, expr}`.
    Cel {
        /// Written.
        path: Vec<Step>,
        /// The compiled program.
        program: Box<Program>,
    },
    /// `drop: path`.
    Drop {
        /// Removed from the output.
        path: Vec<Step>,
    },
}

/// One rule of a mapping.
#[derive(Clone, Debug)]
pub struct Rule {
    /// What it does.
    pub kind: RuleKind,
    /// Where the rule item is.
    pub location: MappingLocation,
}

impl Rule {
    /// A short text: `move .spec.a → .spec.b`.
    pub fn summary(&self) -> String {
        match &self.kind {
            RuleKind::Move { from, to } => format!("move {} → {}", path_text(from), path_text(to)),
            RuleKind::Copy { from, to } => format!("copy {} → {}", path_text(from), path_text(to)),
            RuleKind::Set { path, .. } => format!("set {}", path_text(path)),
            RuleKind::Cel { path, .. } => format!("cel {}", path_text(path)),
            RuleKind::Drop { path } => format!("drop {}", path_text(path)),
        }
    }

    /// The paths the rule reads in the source (its "from" side).
    fn reads(&self) -> Vec<&[Step]> {
        match &self.kind {
            RuleKind::Move { from, .. } | RuleKind::Copy { from, .. } => vec![from],
            RuleKind::Drop { path } => vec![path],
            _ => Vec::new(),
        }
    }

    /// The paths the rule writes in the output.
    fn writes(&self) -> Vec<&[Step]> {
        match &self.kind {
            RuleKind::Move { from, to } => vec![to, from],
            RuleKind::Copy { to, .. } => vec![to],
            RuleKind::Set { path, .. } | RuleKind::Cel { path, .. } | RuleKind::Drop { path } => {
                vec![path]
            }
        }
    }
}

/// One mapping (a version pair).
#[derive(Clone, Debug)]
pub struct Mapping {
    /// The source version.
    pub from: String,
    /// The target version.
    pub to: String,
    /// The rules, in order.
    pub rules: Vec<Rule>,
    /// Where the mapping document is.
    pub location: MappingLocation,
}

/// The mappings of all texts, and what is wrong with them.
#[derive(Clone, Debug, Default)]
pub struct MappingSet {
    /// The valid mappings.
    pub mappings: Vec<Mapping>,
    /// Problems found reading them.
    pub issues: Vec<MappingIssue>,
}

impl MappingSet {
    /// The mapping from one version to another.
    pub fn find(&self, from: &str, to: &str) -> Option<&Mapping> {
        self.mappings.iter().find(|m| m.from == from && m.to == to)
    }
}

struct Reader<'a> {
    mapping: usize,
    text: &'a str,
    lines: &'a LineIndex,
    issues: Vec<MappingIssue>,
    env: &'a Env,
    versions: &'a [String],
}

impl Reader<'_> {
    fn at(&self, span: Span) -> Option<MappingLocation> {
        Some(MappingLocation {
            mapping: self.mapping,
            span,
        })
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        let loc = self.at(span);
        self.issues.push(MappingIssue::new(
            Severity::Error,
            "mapping.invalid",
            message,
            loc,
        ));
    }

    fn string<'n>(&mut self, node: &'n Node, what: &str) -> Option<&'n str> {
        match node.as_str() {
            Some(s) => Some(s),
            None => {
                self.error(
                    node.span,
                    format!("{what} must be a string, not {}", node.type_name()),
                );
                None
            }
        }
    }

    fn path(&mut self, node: &Node, what: &str) -> Option<Vec<Step>> {
        let text = self.string(node, what)?;
        match parse_path(text) {
            Ok(p) => Some(p),
            Err(e) => {
                self.error(node.span, e);
                None
            }
        }
    }

    /// The fields of a rule's map, checking that only `allowed` ones are given and `required`
    /// ones are.
    fn fields<'n>(
        &mut self,
        node: &'n Node,
        kind: &str,
        allowed: &[&str],
    ) -> Option<Vec<Option<&'n Node>>> {
        let Some(entries) = node.as_map() else {
            self.error(
                node.span,
                format!(
                    "{kind} takes a map with {}",
                    allowed
                        .iter()
                        .map(|a| format!("`{a}`"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
            );
            return None;
        };
        let mut ok = true;
        for e in entries {
            if !allowed.contains(&e.key.as_str()) {
                self.error(
                    e.key_span,
                    format!(
                        "unknown field {:?} in {kind} (expected {})",
                        e.key,
                        allowed.join(", ")
                    ),
                );
                ok = false;
            }
        }
        let mut out = Vec::new();
        for a in allowed {
            let v = node.get(a);
            if v.is_none() {
                self.error(node.span, format!("{kind} needs `{a}`"));
                ok = false;
            }
            out.push(v);
        }
        ok.then_some(out)
    }

    fn rule(&mut self, item: &Node) -> Option<Rule> {
        let location = MappingLocation {
            mapping: self.mapping,
            span: item.span,
        };
        let Some(entries) = item.as_map() else {
            self.error(
                item.span,
                "a rule is a map with one of move, copy, set, cel, drop",
            );
            return None;
        };
        let [entry] = entries else {
            self.error(
                item.span,
                "a rule has exactly one of move, copy, set, cel, drop",
            );
            return None;
        };
        let v = &entry.value;
        let kind = match entry.key.as_str() {
            k @ ("move" | "copy") => {
                let f = self.fields(v, k, &["from", "to"])?;
                let from = self.path(f.first().copied().flatten()?, "from")?;
                let to = self.path(f.get(1).copied().flatten()?, "to")?;
                if k == "move" {
                    RuleKind::Move { from, to }
                } else {
                    RuleKind::Copy { from, to }
                }
            }
            "set" => {
                let f = self.fields(v, "set", &["path", "value"])?;
                let path = self.path(f.first().copied().flatten()?, "path")?;
                let value = f.get(1).copied().flatten()?.to_json();
                RuleKind::Set { path, value }
            }
            "cel" => {
                let f = self.fields(v, "cel", &["path", "expr"])?;
                let path = self.path(f.first().copied().flatten()?, "path")?;
                let expr_node = f.get(1).copied().flatten()?;
                let expr = self.string(expr_node, "expr")?.to_owned();
                let program = self.compile(expr_node, &expr)?;
                RuleKind::Cel {
                    path,
                    program: Box::new(program),
                }
            }
            "drop" => {
                let node = if v.as_map().is_some() {
                    self.fields(v, "drop", &["path"])?
                        .first()
                        .copied()
                        .flatten()?
                } else {
                    v
                };
                RuleKind::Drop {
                    path: self.path(node, "drop")?,
                }
            }
            other => {
                self.error(
                    entry.key_span,
                    format!("unknown rule {other:?} (expected move, copy, set, cel or drop)"),
                );
                return None;
            }
        };
        Some(Rule { kind, location })
    }

    fn compile(&mut self, node: &Node, expr: &str) -> Option<Program> {
        let checked = match self.env.compile(expr) {
            Ok(c) => c,
            Err(e) => {
                let message = e.to_string();
                let span = cel_error_span(self.text, self.lines, node, expr, &message)
                    .unwrap_or(node.span);
                let loc = self.at(span);
                self.issues.push(MappingIssue::new(
                    Severity::Error,
                    "mapping.cel",
                    format!("compilation failed: {message}"),
                    loc,
                ));
                return None;
            }
        };
        match Program::from_checked(&checked) {
            Ok(p) => Some(p),
            Err(e) => {
                self.error(node.span, format!("compilation failed: {e:?}"));
                None
            }
        }
    }

    fn mapping(&mut self, root: &Node) -> Option<Mapping> {
        let location = MappingLocation {
            mapping: self.mapping,
            span: root.span,
        };
        let Some(entries) = root.as_map() else {
            self.error(
                root.span,
                "a mapping is a map with `from`, `to` and `rules`",
            );
            return None;
        };
        for e in entries {
            if !matches!(e.key.as_str(), "from" | "to" | "rules") {
                self.error(
                    e.key_span,
                    format!(
                        "unknown field {:?} in a mapping (expected from, to, rules)",
                        e.key
                    ),
                );
            }
        }
        let version = |this: &mut Self, key: &str| -> Option<String> {
            let Some(node) = root.get(key) else {
                this.error(root.span, format!("a mapping needs `{key}`"));
                return None;
            };
            let v = this.string(node, key)?.to_owned();
            if !this.versions.contains(&v) {
                let known = this.versions.join(", ");
                this.error(
                    node.span,
                    format!("{v} is not a version of the CRD ({known})"),
                );
                return None;
            }
            Some(v)
        };
        let from = version(self, "from");
        let to = version(self, "to");
        let mut rules = Vec::new();
        match root.get("rules") {
            None => {}
            Some(node) => match node.as_seq() {
                Some(items) => {
                    for item in items {
                        if let Some(r) = self.rule(item) {
                            rules.push(r);
                        }
                    }
                }
                None if matches!(node.value, document::Value::Null) => {}
                None => self.error(node.span, "rules must be a list"),
            },
        }
        let (from, to) = (from?, to?);
        if from == to {
            self.error(
                root.span,
                format!("a mapping from {from} to itself is never used"),
            );
            return None;
        }
        Some(Mapping {
            from,
            to,
            rules,
            location,
        })
    }
}

/// The span of a CEL compile error (`ERROR: <input>:L:C: ...`) inside the expression's
/// scalar, when it can be located.
fn cel_error_span(
    text: &str,
    lines: &LineIndex,
    node: &Node,
    expr: &str,
    message: &str,
) -> Option<Span> {
    let (line, column) = crate::cel::rules_view::cel_error_location(message)?;
    let index = crate::cel::rules_view::code_point_index(expr, line, column)?;
    let read = ScalarText::read(text, node.span.start.offset, node.span.end.offset, expr)?;
    let (start, end) = read.source_of(index)?;
    Some(Span {
        start: lines.pos_at_offset(text, start),
        end: lines.pos_at_offset(text, end.max(start)),
    })
}

/// Reads the mapping texts against the CRD's version names, compiling the CEL expressions
/// in the environment of a Kubernetes server of `kubernetes_version`.
pub fn read_mappings(
    texts: &[String],
    versions: &[String],
    kubernetes_version: KubernetesVersion,
) -> MappingSet {
    let env = cel_env(kubernetes_version);
    let mut set = MappingSet::default();
    for (i, text) in texts.iter().enumerate() {
        let parsed = document::parse(text, SourceId::Crd);
        for f in &parsed.findings {
            set.issues.push(MappingIssue::new(
                f.severity,
                "mapping.syntax",
                f.message.clone(),
                f.location.map(|l| MappingLocation {
                    mapping: i,
                    span: l.span,
                }),
            ));
        }
        let mut reader = Reader {
            mapping: i,
            text,
            lines: &parsed.lines,
            issues: Vec::new(),
            env: &env,
            versions,
        };
        for (_, root) in parsed.values() {
            if matches!(root.value, document::Value::Null) {
                continue;
            }
            if let Some(m) = reader.mapping(root) {
                if let Some(prev) = set
                    .mappings
                    .iter()
                    .find(|p| p.from == m.from && p.to == m.to)
                {
                    let first = prev.location;
                    reader.issues.push(MappingIssue::new(
                        Severity::Error,
                        "mapping.duplicate",
                        format!(
                            "a second mapping from {} to {}: the first one (text {}, line {}) is used",
                            m.from,
                            m.to,
                            first.mapping + 1,
                            first.span.start.line
                        ),
                        Some(m.location),
                    ));
                } else {
                    set.mappings.push(m);
                }
            }
        }
        set.issues.append(&mut reader.issues);
    }
    set
}

/// Why a mapping failed on an object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleFailure {
    /// 0-based rule index.
    pub rule: usize,
    /// The message (what the webhook would answer with `Failed`).
    pub message: String,
    /// Where the rule is (`None`: no mapping exists for the version pair).
    pub location: Option<MappingLocation>,
}

/// Applies a mapping to a source object: the output object, and notes (rules that found
/// nothing to move or copy).
pub fn apply(
    mapping: &Mapping,
    source: &Json,
    group: &str,
) -> Result<(Json, Vec<String>), RuleFailure> {
    let mut out = source.clone();
    let mut notes = Vec::new();
    // The places earlier rules wrote: a move does not remove what they wrote.
    let mut written: Vec<&[Step]> = Vec::new();
    if let Json::Object(m) = &mut out {
        m.insert(
            "apiVersion".to_owned(),
            Json::String(format!("{group}/{}", mapping.to)),
        );
    }
    for (i, rule) in mapping.rules.iter().enumerate() {
        let fail = |message: String| RuleFailure {
            rule: i,
            message: format!("rule {} ({}): {message}", i + 1, rule.summary()),
            location: Some(rule.location),
        };
        match &rule.kind {
            RuleKind::Move { from, to } | RuleKind::Copy { from, to } => {
                match get_path(source, from) {
                    Some(v) => {
                        let v = v.clone();
                        let overwritten = written.iter().any(|w| related(w, from));
                        if matches!(rule.kind, RuleKind::Move { .. }) && !overwritten {
                            remove_path(&mut out, from);
                        }
                        set_path(&mut out, to, v).map_err(fail)?;
                    }
                    None => notes.push(format!(
                        "rule {} ({}): {} is missing; nothing to {}",
                        i + 1,
                        rule.summary(),
                        path_text(from),
                        if matches!(rule.kind, RuleKind::Move { .. }) {
                            "move"
                        } else {
                            "copy"
                        }
                    )),
                }
            }
            RuleKind::Set { path, value } => {
                set_path(&mut out, path, value.clone()).map_err(fail)?
            }
            RuleKind::Cel { path, program, .. } => match eval_cel(program, source).map_err(fail)? {
                Some(v) => set_path(&mut out, path, v).map_err(fail)?,
                None => {
                    remove_path(&mut out, path);
                }
            },
            RuleKind::Drop { path } => {
                remove_path(&mut out, path);
            }
        }
        if let RuleKind::Move { to, .. }
        | RuleKind::Copy { to, .. }
        | RuleKind::Set { path: to, .. }
        | RuleKind::Cel { path: to, .. } = &rule.kind
        {
            written.push(to);
        }
    }
    Ok((out, notes))
}

// ------------------------------------------------------------------------------------------
// Differences
// ------------------------------------------------------------------------------------------

/// The first difference between two objects.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Difference {
    /// Where (a mapping path: `.spec.a['b.c'][0]`).
    pub path: String,
    /// The value in the original (`None`: absent).
    pub before: Option<Json>,
    /// The value after the round trip (`None`: absent).
    pub after: Option<Json>,
}

/// The first difference between `before` and `after`, walking object keys in sorted order
/// (the union of both sides) and list elements in order.
pub fn first_difference(before: &Json, after: &Json) -> Option<(Vec<Step>, Difference)> {
    let mut stack: Vec<(Vec<Step>, Option<&Json>, Option<&Json>)> =
        vec![(Vec::new(), Some(before), Some(after))];
    while let Some((path, b, a)) = stack.pop() {
        match (b, a) {
            (Some(Json::Object(bm)), Some(Json::Object(am))) => {
                let keys: BTreeSet<&String> = bm.keys().chain(am.keys()).collect();
                for k in keys.into_iter().rev() {
                    let mut p = path.clone();
                    p.push(Step::Key(k.clone()));
                    stack.push((p, bm.get(k), am.get(k)));
                }
            }
            (Some(Json::Array(bl)), Some(Json::Array(al))) if bl.len() == al.len() => {
                for i in (0..bl.len()).rev() {
                    let mut p = path.clone();
                    p.push(Step::Index(i));
                    stack.push((p, bl.get(i), al.get(i)));
                }
            }
            (b, a) => {
                if b != a {
                    let diff = Difference {
                        path: if path.is_empty() {
                            ".".to_owned()
                        } else {
                            path_text(&path)
                        },
                        before: b.cloned(),
                        after: a.cloned(),
                    };
                    return Some((path, diff));
                }
            }
        }
    }
    None
}

/// Whether one path is a prefix of the other (the rule touches the place).
fn related(a: &[Step], b: &[Step]) -> bool {
    let n = a.len().min(b.len());
    a.get(..n) == b.get(..n)
}

/// The rule to blame for a round-trip difference at `path` (in the source version's
/// coordinates), `via` being the object in the other version (after the way out) and
/// `via_schema` that version's schema, when known:
///
/// 1. a rule of the way back that writes `path` but reads a place `via` has no value at and
///    the other version's schema has no place for (so no way-out rule could fill it): its
///    source is wrong (a typo in the reverse mapping); or a rule of the way back that drops
///    the field;
/// 2. else the first rule of the way out that reads `path`: when it moves or copies the value
///    to `q` and a rule of the way back reads `q` but writes elsewhere, that rule's target is
///    wrong (a typo in the reverse mapping); otherwise the way-out rule;
/// 3. else the first rule of the way back that writes there; else the mapping out.
pub fn blame(
    out: &Mapping,
    back: &Mapping,
    path: &[Step],
    via: Option<&Json>,
    via_schema: Option<&crate::schema::structural::Structural>,
) -> MappingLocation {
    let touches = |paths: Vec<&[Step]>, at: &[Step]| paths.into_iter().any(|p| related(p, at));
    for b in &back.rules {
        let (targets, source): (Vec<&[Step]>, Option<&[Step]>) = match &b.kind {
            RuleKind::Move { from, to } | RuleKind::Copy { from, to } => (vec![to], Some(from)),
            RuleKind::Drop { path } => (vec![path], None),
            RuleKind::Set { .. } | RuleKind::Cel { .. } => continue,
        };
        if !touches(targets, path) {
            continue;
        }
        let reads_nothing = match (source, via) {
            (Some(from), Some(via)) => {
                get_path(via, from).is_none()
                    && match via_schema {
                        Some(schema) => unknown_in_schema(schema, from).is_some(),
                        None => !out.rules.iter().any(|r| touches(r.writes(), from)),
                    }
            }
            (Some(_), None) => false,
            // A drop on the way back removes what came back.
            (None, _) => true,
        };
        if reads_nothing {
            return b.location;
        }
    }
    if let Some(r) = out.rules.iter().find(|r| touches(r.reads(), path)) {
        if let RuleKind::Move { to, .. } | RuleKind::Copy { to, .. } = &r.kind {
            let reverse = back
                .rules
                .iter()
                .find(|b| touches(b.reads(), to) && !matches!(b.kind, RuleKind::Drop { .. }));
            if let Some(b) = reverse {
                if !touches(b.writes(), path) {
                    return b.location;
                }
            }
        }
        return r.location;
    }
    if let Some(r) = back.rules.iter().find(|r| touches(r.writes(), path)) {
        return r.location;
    }
    out.location
}

/// Whether a schema node lets any field in without a schema of its own.
fn open_object(s: &crate::schema::structural::Structural) -> bool {
    s.extensions.x_preserve_unknown_fields
        || s.additional_properties
            .as_ref()
            .is_some_and(|a| a.structural.is_none() && a.bool_)
}

/// Where a mapping path leaves `schema` (the root of a version's structural schema): the
/// path of the first step the schema has no place for, and what the schema has there
/// instead. `None` when the schema has a place for the whole path (or leaves it open:
/// `x-kubernetes-preserve-unknown-fields`, maps, `metadata`, `apiVersion`, `kind`).
pub fn unknown_in_schema(
    schema: &crate::schema::structural::Structural,
    path: &[Step],
) -> Option<(String, String)> {
    // The server handles these itself; every object has them.
    if let Some(Step::Key(first)) = path.first() {
        if matches!(first.as_str(), "apiVersion" | "kind" | "metadata") {
            return None;
        }
    }
    let mut node = schema;
    for (i, step) in path.iter().enumerate() {
        let so_far = || path_text(path.get(..=i).unwrap_or(path));
        let parent = || {
            if i == 0 {
                "the root".to_owned()
            } else {
                path_text(path.get(..i).unwrap_or(path))
            }
        };
        if node.extensions.x_preserve_unknown_fields || node.extensions.x_int_or_string {
            return None;
        }
        match step {
            Step::Key(k) => {
                if let Some(next) = node.properties.get(k) {
                    node = next;
                    continue;
                }
                if let Some(next) = node
                    .additional_properties
                    .as_ref()
                    .and_then(|a| a.structural.as_deref())
                {
                    node = next;
                    continue;
                }
                if open_object(node)
                    || (node.extensions.x_embedded_resource
                        && matches!(k.as_str(), "apiVersion" | "kind" | "metadata"))
                {
                    return None;
                }
                let kind = node.generic.type_.as_str();
                let what = if kind.is_empty() || kind == "object" {
                    let known: Vec<&str> = node.properties.keys().map(String::as_str).collect();
                    if known.is_empty() {
                        format!("{} has no properties", parent())
                    } else {
                        format!("{} has {}", parent(), known.join(", "))
                    }
                } else {
                    format!("{} is of type {kind}", parent())
                };
                return Some((so_far(), what));
            }
            Step::Index(_) => match node.items.as_deref() {
                Some(next) => node = next,
                None => {
                    let kind = node.generic.type_.as_str();
                    return Some((
                        so_far(),
                        format!("{} is of type {kind}, not a list", parent()),
                    ));
                }
            },
        }
    }
    None
}

/// The paths a rule writes in the target version (its targets), and the ones it reads in
/// the source version.
fn targets_and_sources(rule: &Rule) -> (Vec<&[Step]>, Vec<&[Step]>) {
    match &rule.kind {
        RuleKind::Move { from, to } | RuleKind::Copy { from, to } => (vec![to], vec![from]),
        RuleKind::Set { path, .. } | RuleKind::Cel { path, .. } => (vec![path], Vec::new()),
        // Removing a field the target schema does not have is harmless (pruning would).
        RuleKind::Drop { .. } => (Vec::new(), Vec::new()),
    }
}

/// Checks every rule's paths against the versions' schemas: a target the target version's
/// schema has no place for (the server would prune what the rule writes), a source the
/// source version's schema has none for (the rule reads nothing there). `schema_of` gives a
/// version's structural schema.
pub fn check_paths<'s>(
    set: &MappingSet,
    schema_of: impl Fn(&str) -> Option<&'s crate::schema::structural::Structural>,
) -> Vec<MappingIssue> {
    let mut issues = Vec::new();
    for m in &set.mappings {
        for rule in &m.rules {
            let (targets, sources) = targets_and_sources(rule);
            if let Some(schema) = schema_of(&m.to) {
                for t in targets {
                    if let Some((at, what)) = unknown_in_schema(schema, t) {
                        issues.push(MappingIssue::new(
                            Severity::Error,
                            "mapping.unknown-target",
                            format!(
                                "{}: target field {at} is not in the schema of {} ({what}): the server would prune what the rule writes",
                                rule.summary(),
                                m.to
                            ),
                            Some(rule.location),
                        ));
                    }
                }
            }
            if let Some(schema) = schema_of(&m.from) {
                for src in sources {
                    if let Some((at, what)) = unknown_in_schema(schema, src) {
                        issues.push(MappingIssue::new(
                            Severity::Warning,
                            "mapping.unknown-source",
                            format!(
                                "{}: source field {at} is not in the schema of {} ({what}): the rule never finds a value there",
                                rule.summary(),
                                m.from
                            ),
                            Some(rule.location),
                        ));
                    }
                }
            }
        }
    }
    issues
}

// ------------------------------------------------------------------------------------------
// The preview
// ------------------------------------------------------------------------------------------

/// A sample object to convert: the object as stored (the create strategy's output).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sample {
    /// Which object text (0-based).
    pub source: usize,
    /// Which document of that text.
    pub document: usize,
    /// The stored object.
    pub object: Json,
}

/// What the mapping did to one sample on the way to the target version.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthoredObject {
    /// Which object text.
    pub source: usize,
    /// Which document.
    pub document: usize,
    /// `metadata.name`.
    pub name: String,
    /// The version it is stored in.
    pub from: String,
    /// Whether it is sent for conversion (`false` when already in the target version).
    pub sent: bool,
    /// What the mapping produced (the webhook's answer for it).
    pub mapped: Option<Json>,
    /// Why the mapping failed on it.
    pub failure: Option<RuleFailure>,
    /// Rules that found nothing to move or copy.
    pub notes: Vec<String>,
}

/// One round trip of one sample.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoundTrip {
    /// Which object text.
    pub source: usize,
    /// Which document.
    pub document: usize,
    /// `metadata.name`.
    pub name: String,
    /// The version it is stored in (A).
    pub from: String,
    /// The version it goes through (B).
    pub via: String,
    /// Whether A → B → A gave the stored object back.
    pub lossless: bool,
    /// The first difference.
    pub difference: Option<Difference>,
    /// The object after the round trip.
    pub result: Option<Json>,
    /// Why the round trip could not be completed (a rule failed, the server refused the
    /// answer).
    pub error: Option<String>,
    /// The rule (or mapping) to look at.
    pub location: Option<MappingLocation>,
}

/// The authored conversion of the samples to a target version.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversionPreview {
    /// The target version.
    pub target: String,
    /// Problems in the mappings, failed rules and lossy round trips, located in the mapping
    /// texts where they can be.
    pub issues: Vec<MappingIssue>,
    /// The server's error before any webhook call (an unknown target version, ...).
    pub error: Option<String>,
    /// The conversion as the server makes it (inputs, the `ConversionReview` request).
    pub call: Option<crate::versions::conversion::WebhookCall>,
    /// The request body, indented.
    pub request_text: Option<String>,
    /// The `ConversionReview` response the mappings produce.
    pub response: Option<Json>,
    /// The response as text (the spans of [`ConversionPreview::check`] point into it).
    pub response_text: Option<String>,
    /// The server's verdict on the response, and the objects it ends up with (metadata
    /// restored, pruned by the target schema, with the errors a write in the target version
    /// would meet).
    pub check: Option<crate::versions::conversion::ResponseCheck>,
    /// Per sample, what the mapping did.
    pub objects: Vec<AuthoredObject>,
    /// Per sample and per version with mappings both ways, the round trip.
    pub round_trips: Vec<RoundTrip>,
}

fn version_of(obj: &Json) -> String {
    obj.get("apiVersion")
        .and_then(Json::as_str)
        .and_then(|av| av.rsplit_once('/'))
        .map(|(_, v)| v.to_owned())
        .unwrap_or_default()
}

fn name_of(obj: &Json) -> String {
    obj.get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Json::as_str)
        .unwrap_or("")
        .to_owned()
}

/// The webhook call the server makes for `objects` to `target` (with the CRD's review
/// versions; `v1` when the CRD's strategy is not `Webhook`).
fn prepare(
    crd: &dyn crate::versions::conversion::CompiledCrdParts,
    objects: &[Json],
    target: &str,
) -> Result<crate::versions::conversion::WebhookCall, String> {
    use crate::versions::conversion::{valid_versions, webhook, GroupVersion, Strategy};
    let Some(internal) = crd.internal() else {
        return Err("there is no readable CRD".to_owned());
    };
    let review_versions = match Strategy::of(internal) {
        Strategy::Webhook {
            conversion_review_versions,
        } => conversion_review_versions,
        _ => vec!["v1".to_owned()],
    };
    webhook::prepare_call(
        &valid_versions(crd),
        &review_versions,
        &internal.spec.names.kind,
        objects,
        &GroupVersion::new(&internal.spec.group, target),
        None,
    )
}

/// The mapped objects of a call's request, or the first failure.
fn map_request(
    set: &MappingSet,
    call: &crate::versions::conversion::WebhookCall,
    group: &str,
    target: &str,
) -> Vec<Result<(Json, Vec<String>), RuleFailure>> {
    let Some(request) = &call.request else {
        return Vec::new();
    };
    request
        .objects
        .iter()
        .map(|obj| {
            let from = version_of(obj);
            match set.find(&from, target) {
                Some(m) => apply(m, obj, group),
                None => Err(RuleFailure {
                    rule: 0,
                    message: format!("no mapping from {from} to {target}"),
                    location: None,
                }),
            }
        })
        .collect()
}

/// The response a webhook running the mappings gives: success with every mapped object, or
/// failure with the first rule failure's message.
fn respond(
    call: &crate::versions::conversion::WebhookCall,
    mapped: &[Result<(Json, Vec<String>), RuleFailure>],
) -> Option<Json> {
    let request = call.request.as_ref()?;
    let mut converted = Vec::new();
    for m in mapped {
        match m {
            Ok((obj, _)) => converted.push(obj.clone()),
            Err(f) => return Some(request.failure_response(&f.message)),
        }
    }
    Some(request.success_response(&converted))
}

/// One conversion of one object through the server: the object it ends up with, or the
/// error (and the rule to blame).
fn convert_one(
    crd: &dyn crate::versions::conversion::CompiledCrdParts,
    set: &MappingSet,
    obj: &Json,
    target: &str,
) -> Result<Json, (String, Option<MappingLocation>)> {
    let group = crd
        .internal()
        .map(|c| c.spec.group.clone())
        .unwrap_or_default();
    let call = prepare(crd, std::slice::from_ref(obj), target).map_err(|e| (e, None))?;
    let mapped = map_request(set, &call, &group, target);
    if let Some(Err(f)) = mapped.first() {
        return Err((f.message.clone(), f.location));
    }
    let Some(response) = respond(&call, &mapped) else {
        // Not sent: already in the target version.
        return Ok(obj.clone());
    };
    let text = serde_json::to_string_pretty(&response).unwrap_or_default();
    let check = crate::versions::conversion::check_conversion_response(crd, &call, &text);
    if let Some(e) = check.error() {
        return Err((e.message.clone(), None));
    }
    check
        .objects
        .into_iter()
        .next()
        .map(|o| o.object)
        .ok_or_else(|| ("the server returned no object".to_owned(), None))
}

fn json_text(v: &Option<Json>) -> String {
    match v {
        Some(j) => serde_json::to_string(j).unwrap_or_default(),
        None => "(absent)".to_owned(),
    }
}

/// The authored conversion of `samples` to `target` with the mapping texts: the request the
/// server sends, the response the mappings give, the server's verdict, and the round trips.
pub fn preview(
    crd: &dyn crate::versions::conversion::CompiledCrdParts,
    samples: &[Sample],
    mappings: &[String],
    target: &str,
) -> ConversionPreview {
    let mut out = ConversionPreview {
        target: target.to_owned(),
        ..ConversionPreview::default()
    };
    let Some(internal) = crd.internal() else {
        out.error = Some("there is no readable CRD".to_owned());
        return out;
    };
    let group = internal.spec.group.clone();
    let versions: Vec<String> = internal
        .spec
        .versions
        .iter()
        .map(|v| v.name.clone())
        .collect();
    let set = read_mappings(mappings, &versions, crd.kubernetes_version());
    out.issues = set.issues.clone();
    let compiled = crd.compiled_versions();
    out.issues.extend(check_paths(&set, |v| {
        compiled
            .iter()
            .find(|c| c.name == v)
            .and_then(|c| c.structural.as_deref())
    }));
    if !matches!(
        crate::versions::conversion::Strategy::of(internal),
        crate::versions::conversion::Strategy::Webhook { .. }
    ) {
        out.issues.push(MappingIssue::new(
            Severity::Info,
            "conversion.strategy",
            "the CRD's conversion strategy is not Webhook: the server only rewrites apiVersion; this preview shows what a webhook running these mappings would do",
            None,
        ));
    }

    // The conversion to the target.
    let objects: Vec<Json> = samples.iter().map(|s| s.object.clone()).collect();
    match prepare(crd, &objects, target) {
        Err(e) => out.error = Some(e),
        Ok(call) => {
            let mapped = map_request(&set, &call, &group, target);
            let mut next = 0usize;
            for (i, s) in samples.iter().enumerate() {
                let sent = call.sent.get(i).copied().flatten().is_some();
                let mut obj = AuthoredObject {
                    source: s.source,
                    document: s.document,
                    name: name_of(&s.object),
                    from: version_of(&s.object),
                    sent,
                    ..AuthoredObject::default()
                };
                if sent {
                    match mapped.get(next) {
                        Some(Ok((m, notes))) => {
                            obj.mapped = Some(m.clone());
                            obj.notes = notes.clone();
                        }
                        Some(Err(f)) => {
                            out.issues.push(MappingIssue::new(
                                Severity::Error,
                                if f.location.is_some() {
                                    "conversion.rule-failed"
                                } else {
                                    "mapping.missing"
                                },
                                format!("{} ({} → {}): {}", obj.name, obj.from, target, f.message),
                                f.location,
                            ));
                            obj.failure = Some(f.clone());
                        }
                        None => {}
                    }
                    next += 1;
                }
                out.objects.push(obj);
            }
            if let Some(response) = respond(&call, &mapped) {
                let text = serde_json::to_string_pretty(&response).unwrap_or_default();
                out.check = Some(crate::versions::conversion::check_conversion_response(
                    crd, &call, &text,
                ));
                out.response = Some(response);
                out.response_text = Some(text);
            }
            out.request_text = call.request.as_ref().map(|r| r.pretty());
            out.call = Some(call);
        }
    }

    // The round trips: every sample, every version with mappings both ways.
    for s in samples {
        let from = version_of(&s.object);
        for via in &versions {
            let (Some(there), Some(back)) = (set.find(&from, via), set.find(via, &from)) else {
                continue;
            };
            let mut rt = RoundTrip {
                source: s.source,
                document: s.document,
                name: name_of(&s.object),
                from: from.clone(),
                via: via.clone(),
                ..RoundTrip::default()
            };
            let mut via_obj = None;
            let result = convert_one(crd, &set, &s.object, via).and_then(|b| {
                let back = convert_one(crd, &set, &b, &from);
                via_obj = Some(b);
                back
            });
            match result {
                Err((e, loc)) => {
                    rt.error = Some(e.clone());
                    rt.location = loc.or(Some(there.location));
                    out.issues.push(MappingIssue::new(
                        Severity::Error,
                        "conversion.round-trip",
                        format!("round trip {from} → {via} → {from} of {}: {e}", rt.name),
                        rt.location,
                    ));
                }
                Ok(back_obj) => {
                    match first_difference(&s.object, &back_obj) {
                        None => rt.lossless = true,
                        Some((path, diff)) => {
                            let via_schema = compiled
                                .iter()
                                .find(|c| &c.name == via)
                                .and_then(|c| c.structural.as_deref());
                            let loc = blame(there, back, &path, via_obj.as_ref(), via_schema);
                            out.issues.push(MappingIssue::new(
                                Severity::Warning,
                                "conversion.round-trip",
                                format!(
                                    "round trip {from} → {via} → {from} of {} changes {}: {} → {}",
                                    rt.name,
                                    diff.path,
                                    json_text(&diff.before),
                                    json_text(&diff.after)
                                ),
                                Some(loc),
                            ));
                            rt.location = Some(loc);
                            rt.difference = Some(diff);
                        }
                    }
                    rt.result = Some(back_obj);
                }
            }
            out.round_trips.push(rt);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set(texts: &[&str]) -> MappingSet {
        let texts: Vec<String> = texts.iter().map(|t| (*t).to_owned()).collect();
        read_mappings(
            &texts,
            &["v1".to_owned(), "v2".to_owned()],
            KubernetesVersion::DEFAULT,
        )
    }

    fn messages(s: &MappingSet) -> Vec<String> {
        s.issues.iter().map(|i| i.message.clone()).collect()
    }

    const V1_TO_V2: &str = r#"from: v1
to: v2
rules:
  - move: {from: .spec.cronSpec, to: .spec.schedule}
  - set: {path: .spec.mode, value: "auto"}
  - cel: {path: .spec.replicas, expr: "self.spec.size * 2"}
  - drop: .spec.legacy
"#;

    #[test]
    fn paths() {
        let p = parse_path(".metadata.annotations['example.com/mode'][0].x").unwrap();
        assert_eq!(
            p,
            [
                Step::Key("metadata".into()),
                Step::Key("annotations".into()),
                Step::Key("example.com/mode".into()),
                Step::Index(0),
                Step::Key("x".into())
            ]
        );
        assert_eq!(
            path_text(&p),
            ".metadata.annotations['example.com/mode'][0].x"
        );
        assert_eq!(
            parse_path(r".a['it\'s']").unwrap()[1],
            Step::Key("it's".into())
        );
        for bad in [
            "spec", ".", ".a..b", ".a[x]", ".a['x'", ".a['x']y", ".a[]", ".a]",
        ] {
            assert!(parse_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn set_and_remove() {
        let mut o = json!({"spec": {"l": [1, 2], "s": "x", "n": null}});
        set_path(&mut o, &parse_path(".spec.a.b").unwrap(), json!(1)).unwrap();
        set_path(&mut o, &parse_path(".spec.l[1]").unwrap(), json!(3)).unwrap();
        set_path(&mut o, &parse_path(".spec.n.x").unwrap(), json!(true)).unwrap();
        assert_eq!(
            o,
            json!({"spec": {"l": [1, 3], "s": "x", "a": {"b": 1}, "n": {"x": true}}})
        );
        assert_eq!(
            set_path(&mut o, &parse_path(".spec.s.x").unwrap(), json!(1)),
            Err("cannot write .spec.s.x: .spec.s is a string".into())
        );
        assert_eq!(
            set_path(&mut o, &parse_path(".spec.l[5]").unwrap(), json!(1)),
            Err(".spec.l[5] does not exist: the list has 2 items".into())
        );
        assert_eq!(
            set_path(&mut o, &parse_path(".spec.m[0]").unwrap(), json!(1)),
            Err(".spec.m is missing: a list is not created by index".into())
        );
        assert_eq!(
            remove_path(&mut o, &parse_path(".spec.l[0]").unwrap()),
            Some(json!(1))
        );
        assert_eq!(
            remove_path(&mut o, &parse_path(".spec.zz.y").unwrap()),
            None
        );
    }

    #[test]
    fn the_documented_mapping_applies() {
        let s = set(&[V1_TO_V2]);
        assert!(s.issues.is_empty(), "{:?}", messages(&s));
        let m = s.find("v1", "v2").unwrap();
        assert_eq!(m.rules.len(), 4);
        let src = json!({"apiVersion": "example.com/v1", "kind": "CronTab",
                         "metadata": {"name": "a"},
                         "spec": {"cronSpec": "* * * * */5", "size": 3, "legacy": true}});
        let (out, notes) = apply(m, &src, "example.com").unwrap();
        assert!(notes.is_empty());
        assert_eq!(
            out,
            json!({"apiVersion": "example.com/v2", "kind": "CronTab", "metadata": {"name": "a"},
                   "spec": {"schedule": "* * * * */5", "mode": "auto", "size": 3, "replicas": 6}})
        );
        // A missing source is a note; a CEL error fails the object.
        let src = json!({"apiVersion": "example.com/v1", "kind": "CronTab", "spec": {}});
        let e = apply(m, &src, "example.com").unwrap_err();
        assert_eq!(e.rule, 2);
        assert_eq!(e.message, "rule 3 (cel .spec.replicas): no such key: size");
        assert_eq!(e.location.unwrap().span.start.line, 6);
    }

    #[test]
    fn rules_read_the_source_so_moves_swap() {
        let s = set(&[
            "from: v1\nto: v2\nrules:\n- move: {from: .a, to: .b}\n- move: {from: .b, to: .a}\n",
        ]);
        let m = s.find("v1", "v2").unwrap();
        let (out, _) = apply(m, &json!({"a": 1, "b": 2}), "g").unwrap();
        assert_eq!(out, json!({"apiVersion": "g/v2", "a": 2, "b": 1}));
    }

    #[test]
    fn cel_values() {
        let s = set(&[r#"from: v1
to: v2
rules:
- cel: {path: .a, expr: "optional.none()"}
- cel: {path: .b, expr: "optional.of(self.x)"}
- cel: {path: .c, expr: "duration('1h30m')"}
- cel: {path: .d, expr: "timestamp('2024-01-02T03:04:05Z')"}
- cel: {path: .e, expr: "{'k': [2.0, 2.5]}"}
- cel: {path: .h, expr: "[dyn(1), dyn('x'), dyn(null), dyn(true)]"}
- cel: {path: .f, expr: "b'hi'"}
- cel: {path: .g, expr: "self.metadata.labels['app.kubernetes.io/name'] + '-x'"}
"#]);
        assert!(s.issues.is_empty(), "{:?}", messages(&s));
        let m = s.find("v1", "v2").unwrap();
        let src =
            json!({"a": 1, "x": {"y": 1}, "metadata": {"labels": {"app.kubernetes.io/name": "n"}}});
        let (out, _) = apply(m, &src, "g").unwrap();
        assert_eq!(out.get("a"), None);
        assert_eq!(out["b"], json!({"y": 1}));
        assert_eq!(out["c"], json!("5400s"));
        assert_eq!(out["d"], json!("2024-01-02T03:04:05Z"));
        assert_eq!(out["e"], json!({"k": [2, 2.5]}));
        assert_eq!(out["h"], json!([1, "x", null, true]));
        assert_eq!(out["f"], json!("aGk="));
        assert_eq!(out["g"], json!("n-x"));
        let s = set(&["from: v1\nto: v2\nrules:\n- cel: {path: .a, expr: \"quantity('1Gi')\"}\n"]);
        let e = apply(s.find("v1", "v2").unwrap(), &json!({}), "g").unwrap_err();
        assert!(
            e.message.contains("cannot be written as JSON"),
            "{}",
            e.message
        );
    }

    #[test]
    fn reading_errors_are_located() {
        let s = set(&[r#"from: v1
to: v3
rules:
- move: {from: spec.a, to: .b}
- cel: {path: .a, expr: "self.x +"}
- frob: .a
- set: {path: .a}
"#]);
        let m = messages(&s);
        assert!(
            m.iter()
                .any(|x| x == "v3 is not a version of the CRD (v1, v2)"),
            "{m:?}"
        );
        assert!(m.iter().any(|x| x.contains("must start with '.'")), "{m:?}");
        assert!(
            m.iter()
                .any(|x| x.starts_with("compilation failed: ERROR: <input>:1:9: Syntax error")),
            "{m:?}"
        );
        assert!(
            m.iter().any(|x| x.starts_with("unknown rule \"frob\"")),
            "{m:?}"
        );
        assert!(m.iter().any(|x| x == "set needs `value`"), "{m:?}");
        let cel = s.issues.iter().find(|i| i.code == "mapping.cel").unwrap();
        let span = cel.location.unwrap().span;
        // Line 5, at the end of the expression inside the quotes.
        assert_eq!((span.start.line, span.start.column), (5, 34));
        assert!(s.mappings.is_empty());
    }

    #[test]
    fn duplicates_and_yaml_errors() {
        let s = set(&[V1_TO_V2, V1_TO_V2, "from: [v1\n"]);
        assert_eq!(s.mappings.len(), 1);
        assert!(s.issues.iter().any(|i| i.code == "mapping.duplicate"));
        assert!(s
            .issues
            .iter()
            .any(|i| i.code == "mapping.syntax" && i.location.map(|l| l.mapping) == Some(2)));
    }

    #[test]
    fn first_differences() {
        let a = json!({"spec": {"a": 1, "b": [1, 2], "c": "x"}});
        assert_eq!(first_difference(&a, &a), None);
        let b = json!({"spec": {"a": 1, "b": [1, 3], "c": "y"}});
        let (_, d) = first_difference(&a, &b).unwrap();
        assert_eq!(d.path, ".spec.b[1]");
        assert_eq!((d.before, d.after), (Some(json!(2)), Some(json!(3))));
        let c = json!({"spec": {"a": 1, "b": [1, 2], "c": "x", "aa": 0}});
        let (_, d) = first_difference(&a, &c).unwrap();
        assert_eq!(d.path, ".spec.aa");
        assert_eq!(d.before, None);
    }

    #[test]
    fn blame_prefers_the_rule_that_reads_the_lost_field() {
        let s = set(&[
            V1_TO_V2,
            "from: v2\nto: v1\nrules:\n- move: {from: .spec.schedule, to: .spec.cronSpec}\n",
        ]);
        let out = s.find("v1", "v2").unwrap();
        let back = s.find("v2", "v1").unwrap();
        let loc = blame(out, back, &parse_path(".spec.legacy").unwrap(), None, None);
        assert_eq!((loc.mapping, loc.span.start.line), (0, 7));
        let loc = blame(
            out,
            back,
            &parse_path(".spec.cronSpec").unwrap(),
            None,
            None,
        );
        assert_eq!(loc.span.start.line, 4);
        let loc = blame(out, back, &parse_path(".spec.other").unwrap(), None, None);
        assert_eq!(loc.span.start.line, 1);
    }

    const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: crontabs, kind: CronTab}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: ["v1"]
      clientConfig: {url: "https://example.com/convert"}
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
              cronSpec: {type: string}
              size: {type: integer}
              legacy: {type: boolean}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              schedule: {type: string, minLength: 3}
              replicas: {type: integer}
"#;

    const THERE_AND_BACK: &str = r#"from: v1
to: v2
rules:
- move: {from: .spec.cronSpec, to: .spec.schedule}
- cel: {path: .spec.replicas, expr: "self.spec.size * 2"}
- drop: .spec.size
---
from: v2
to: v1
rules:
- move: {from: .spec.schedule, to: .spec.cronSpec}
- cel: {path: .spec.size, expr: "self.spec.replicas / 2"}
- drop: .spec.replicas
"#;

    fn samples(objects: &[&str]) -> (crate::report::analysis::CompiledCrd, Vec<Sample>) {
        let crd = crate::report::analysis::CompiledCrd::compile(
            CRD,
            &crate::report::analysis::Options::default(),
        );
        assert!(crd.findings().is_empty(), "{:?}", crd.findings());
        let texts: Vec<String> = objects.iter().map(|o| (*o).to_owned()).collect();
        let a = crd.analyze_objects(&texts, None);
        let samples = a
            .objects
            .iter()
            .map(|o| Sample {
                source: o.source,
                document: o.document,
                object: o.prepared.to_value(),
            })
            .collect();
        (crd, samples)
    }

    const SAMPLE: &str = "apiVersion: example.com/v1\nkind: CronTab\nmetadata: {name: a, namespace: ns}\nspec: {cronSpec: '* * * * *', size: 3}\n";

    #[test]
    fn preview_converts_through_the_server_and_round_trips() {
        let (crd, samples) = samples(&[SAMPLE]);
        let p = preview(&crd, &samples, &[THERE_AND_BACK.to_owned()], "v2");
        assert!(p.issues.is_empty(), "{:?}", p.issues);
        assert_eq!(p.error, None);
        // The engine's uid of the request, the one the CLI and the webhook check use too.
        let uid = crate::versions::conversion::webhook::request_uid(
            "example.com/v2",
            &[samples[0].object.clone()],
        );
        assert!(p.request_text.as_deref().unwrap().contains(&uid));
        let check = p.check.unwrap();
        assert!(check.accepted, "{:?}", check.issues);
        assert_eq!(
            check.objects[0].object["spec"],
            json!({"schedule": "* * * * *", "replicas": 6})
        );
        assert_eq!(p.objects[0].from, "v1");
        assert!(p.objects[0].sent);
        assert_eq!(p.round_trips.len(), 1);
        assert!(p.round_trips[0].lossless, "{:?}", p.round_trips[0]);
        assert_eq!(p.round_trips[0].result.as_ref(), Some(&samples[0].object));
    }

    #[test]
    fn a_field_the_target_schema_drops_is_a_lossy_round_trip() {
        let obj = "apiVersion: example.com/v1\nkind: CronTab\nmetadata: {name: a}\nspec: {cronSpec: '* * * * *', size: 3, legacy: true}\n";
        let (crd, samples) = samples(&[obj]);
        let p = preview(&crd, &samples, &[THERE_AND_BACK.to_owned()], "v2");
        let rt = &p.round_trips[0];
        assert!(!rt.lossless);
        let d = rt.difference.as_ref().unwrap();
        assert_eq!(d.path, ".spec.legacy");
        assert_eq!(
            (d.before.clone(), d.after.clone()),
            (Some(json!(true)), None)
        );
        // No rule reads or writes it: the mapping out is to blame.
        assert_eq!(rt.location.unwrap().span.start.line, 1);
        let issue = p
            .issues
            .iter()
            .find(|i| i.code == "conversion.round-trip")
            .unwrap();
        assert_eq!(
            issue.message,
            "round trip v1 → v2 → v1 of a changes .spec.legacy: true → (absent)"
        );
        // The conversion itself is accepted: the server prunes the field.
        let check = p.check.unwrap();
        assert!(check.accepted);
        assert_eq!(check.objects[0].pruned_paths, ["spec.legacy"]);
    }

    #[test]
    fn failures_become_failed_responses() {
        let obj = "apiVersion: example.com/v1\nkind: CronTab\nmetadata: {name: a}\nspec: {cronSpec: '* * * * *'}\n";
        let (crd, samples) = samples(&[obj]);
        let p = preview(&crd, &samples, &[THERE_AND_BACK.to_owned()], "v2");
        assert_eq!(
            p.response.as_ref().unwrap()["response"]["result"],
            json!({"status": "Failed", "message": "rule 2 (cel .spec.replicas): no such key: size"})
        );
        let check = p.check.unwrap();
        assert!(!check.accepted);
        assert_eq!(
            check.error().unwrap().message,
            "conversion webhook for example.com/v1, Kind=CronTab failed: rule 2 (cel .spec.replicas): no such key: size"
        );
        let issue = p
            .issues
            .iter()
            .find(|i| i.code == "conversion.rule-failed")
            .unwrap();
        assert_eq!(issue.location.unwrap().span.start.line, 5);
        // No mapping for the pair at all.
        let p = preview(&crd, &samples, &[], "v2");
        assert!(p
            .issues
            .iter()
            .any(|i| i.code == "mapping.missing"
                && i.message == "a (v1 → v2): no mapping from v1 to v2"));
        assert!(p.round_trips.is_empty());
        // An unknown target version is the converter's error.
        let p = preview(&crd, &samples, &[], "v9");
        assert!(p.error.is_some());
    }

    #[test]
    fn metadata_changes_are_restored_but_annotations_carry_data() {
        let mapping = r#"from: v1
to: v2
rules:
- move: {from: .spec.cronSpec, to: .spec.schedule}
- cel: {path: .spec.replicas, expr: "self.spec.size * 2"}
- drop: .spec.size
- copy: {from: .spec.legacy, to: ".metadata.annotations['example.com/legacy']"}
- cel: {path: ".metadata.annotations['example.com/legacy']", expr: "string(self.spec.legacy)"}
- drop: .spec.legacy
- set: {path: .metadata.generation, value: 7}
---
from: v2
to: v1
rules:
- move: {from: .spec.schedule, to: .spec.cronSpec}
- cel: {path: .spec.size, expr: "self.spec.replicas / 2"}
- drop: .spec.replicas
- cel: {path: .spec.legacy, expr: "self.metadata.annotations['example.com/legacy'] == 'true'"}
- drop: .metadata.annotations
"#;
        let obj = "apiVersion: example.com/v1\nkind: CronTab\nmetadata: {name: a}\nspec: {cronSpec: '* * * * *', size: 3, legacy: true}\n";
        let (crd, samples) = samples(&[obj]);
        let p = preview(&crd, &samples, &[mapping.to_owned()], "v2");
        let check = p.check.as_ref().unwrap();
        assert!(check.accepted, "{:?}", check.issues);
        let converted = &check.objects[0];
        assert_eq!(
            converted.object["metadata"]["annotations"],
            json!({"example.com/legacy": "true"})
        );
        assert_eq!(converted.object["metadata"]["generation"], json!(1));
        assert!(p.round_trips[0].lossless, "{:?}", p.round_trips[0]);
    }

    #[test]
    fn objects_already_in_the_target_are_not_sent() {
        let v2 = "apiVersion: example.com/v2\nkind: CronTab\nmetadata: {name: b}\nspec: {schedule: '1 * * * *', replicas: 4}\n";
        let (crd, samples) = samples(&[SAMPLE, v2]);
        let p = preview(&crd, &samples, &[THERE_AND_BACK.to_owned()], "v2");
        assert!(p.issues.is_empty(), "{:?}", p.issues);
        let call = p.call.as_ref().unwrap();
        assert!(call.list);
        assert_eq!(call.request.as_ref().unwrap().objects.len(), 1);
        assert_eq!(
            p.objects.iter().map(|o| o.sent).collect::<Vec<_>>(),
            [true, false]
        );
        let check = p.check.unwrap();
        assert!(check.accepted, "{:?}", check.issues);
        assert_eq!(check.objects.len(), 2);
        assert_eq!(check.objects[1].object["spec"]["replicas"], json!(4));
        // Both samples round-trip: v1 through v2, v2 through v1.
        let trips: Vec<(&str, &str, bool)> = p
            .round_trips
            .iter()
            .map(|r| (r.from.as_str(), r.via.as_str(), r.lossless))
            .collect();
        assert_eq!(trips, [("v1", "v2", true), ("v2", "v1", true)]);
    }

    const FORWARD: &str = "from: v1\nto: v2\nrules:\n- move: {from: .spec.cronSpec, to: .spec.schedule}\n- move: {from: .spec.size, to: .spec.replicas}\n";

    fn reverse(second_rule: &str) -> String {
        format!("from: v2\nto: v1\nrules:\n- move: {{from: .spec.schedule, to: .spec.cronSpec}}\n- {second_rule}\n")
    }

    /// The round trip's warning and the line of the rule it is located at.
    fn round_trip_blame(mappings: &[String]) -> (String, usize, usize) {
        let (crd, samples) = samples(&[SAMPLE]);
        let p = preview(&crd, &samples, mappings, "v2");
        let rt = p
            .issues
            .iter()
            .find(|i| i.code == "conversion.round-trip")
            .unwrap_or_else(|| panic!("no round-trip issue: {:?}", p.issues));
        let loc = rt.location.unwrap();
        (rt.message.clone(), loc.mapping, loc.span.start.line)
    }

    /// Issue 14, item 7f: a typo in the reverse mapping is blamed on the reverse rule, at its
    /// line, not on the forward rule that moved the field.
    #[test]
    fn a_typo_in_the_reverse_mapping_is_blamed_on_the_reverse_rule() {
        // A typo in the reverse rule's source: line 5 of the second text.
        let typo_from = reverse("move: {from: .spec.replicsa, to: .spec.size}");
        let (message, mapping, line) = round_trip_blame(&[FORWARD.to_owned(), typo_from]);
        assert!(
            message.contains("changes .spec.size: 3 → (absent)"),
            "{message}"
        );
        assert_eq!((mapping, line), (1, 5), "{message}");
        // A typo in the reverse rule's target.
        let typo_to = reverse("move: {from: .spec.replicas, to: .spec.sise}");
        let (_, mapping, line) = round_trip_blame(&[FORWARD.to_owned(), typo_to]);
        assert_eq!((mapping, line), (1, 5));
        // A typo in the forward rule's target stays the forward rule's.
        let forward_typo = FORWARD.replace("to: .spec.replicas", "to: .spec.replcias");
        let good_back = reverse("move: {from: .spec.replicas, to: .spec.size}");
        let (_, mapping, line) = round_trip_blame(&[forward_typo, good_back]);
        assert_eq!((mapping, line), (0, 5));
        // A field the way back drops is blamed on the drop.
        let drops = format!(
            "{}- drop: .spec.size\n",
            reverse("move: {from: .spec.replicas, to: .spec.size}")
        );
        let (_, mapping, line) = round_trip_blame(&[FORWARD.to_owned(), drops]);
        assert_eq!((mapping, line), (1, 6));
    }

    /// Issue 14, item 7f: mapping targets are checked against the target version's schema
    /// (an error at the rule naming the field and the version); sources against the source's.
    #[test]
    fn mapping_paths_are_checked_against_the_schemas() {
        let (crd, samples) = samples(&[SAMPLE]);
        let texts = [
            FORWARD.replace("to: .spec.replicas", "to: .spec.replcias"),
            reverse("move: {from: .spec.replicsa, to: .spec.size}"),
        ];
        let p = preview(&crd, &samples, &texts, "v2");
        let found: Vec<(String, String, usize, usize)> = p
            .issues
            .iter()
            .filter(|i| i.code.starts_with("mapping.unknown"))
            .map(|i| {
                let l = i.location.unwrap();
                (
                    i.code.clone(),
                    i.message.clone(),
                    l.mapping,
                    l.span.start.line,
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    "mapping.unknown-target".to_owned(),
                    "move .spec.size → .spec.replcias: target field .spec.replcias is not in the schema of v2 (.spec has replicas, schedule): the server would prune what the rule writes".to_owned(),
                    0,
                    5
                ),
                (
                    "mapping.unknown-source".to_owned(),
                    "move .spec.replicsa → .spec.size: source field .spec.replicsa is not in the schema of v2 (.spec has replicas, schedule): the rule never finds a value there".to_owned(),
                    1,
                    5
                ),
            ]
        );
        // Metadata is the server's; a path through a scalar has no place either.
        let p = preview(
            &crd,
            &samples,
            &["from: v1\nto: v2\nrules:\n- set: {path: .metadata.labels.x, value: y}\n- set: {path: .spec.schedule.x, value: 1}\n".to_owned()],
            "v2",
        );
        let found: Vec<&str> = p
            .issues
            .iter()
            .filter(|i| i.code.starts_with("mapping.unknown"))
            .map(|i| i.message.as_str())
            .collect();
        assert_eq!(
            found,
            ["set .spec.schedule.x: target field .spec.schedule.x is not in the schema of v2 (.spec.schedule is of type string): the server would prune what the rule writes"]
        );
    }
}
