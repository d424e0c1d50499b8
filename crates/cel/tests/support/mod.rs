//! A small table harness for the edge-case tests: an expression is compiled in a Kubernetes
//! environment (a compatibility version, or the stored-expressions environment), planned as
//! Kubernetes plans it, evaluated, and its outcome rendered as one line of text:
//!
//! - a value: `3`, `3u`, `3.5`, `'text'`, `b'\x00'`, `true`, `null`, `[1, 2]`, `{'a': 1}`,
//!   `optional.of(1)`, `optional.none()`, `type(int)`, `duration(1000000000ns)`,
//!   `timestamp(0s, 0ns)`, or an opaque value by its type name (`kubernetes.URL`);
//! - `error: <message>` for an evaluation error (the text of cel-go's `err.Error()`);
//! - `compile: <message>` for a parse or type-check error (the first issue, without its
//!   `ERROR: <input>:L:C: ` prefix);
//! - `plan: <message>` for a program instantiation error.
//!
//! Tables are lists of `(expression, expected rendering)`; a case whose expectation ends with
//! `…` matches by prefix. All mismatches of a table are reported together.

#![allow(dead_code)]

use std::collections::BTreeMap;

use crd_studio_cel::checker::{Env, EnvBuilder};
use crd_studio_cel::decls::EnvVersion;
use crd_studio_cel::interp::{Activation, CostTracker, Program};
use crd_studio_cel::types::{ObjectType, Type};
use crd_studio_cel::unstructured::{escape, to_value, Schema};
use crd_studio_cel::value::{List, Map, Value};
use crd_studio_cel::KubernetesVersion;
use serde_json::Value as Json;

/// The stored-expressions environment: every library Kubernetes knows.
pub const STORED: EnvVersion = EnvVersion::Stored;

/// New expressions at a compatibility version `1.minor`.
pub fn at(minor: u32) -> EnvVersion {
    EnvVersion::NewExpressions(KubernetesVersion::new(minor))
}

/// The base environment of a version, with the runtime's literal validators.
pub fn env(version: EnvVersion) -> Env {
    EnvBuilder::kubernetes(version)
        .literal_checks(crd_studio_cel::stdlib_rt::literal_checks())
        .build()
}

/// Renders a value (see the module documentation).
pub fn show(v: &Value<'_>) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => format!("{u}u"),
        Value::Double(d) => {
            if d.is_finite() && d.fract() == 0.0 && d.abs() < 1e16 {
                format!("{d:.1}")
            } else {
                format!("{d}")
            }
        }
        Value::String(s) => format!("'{}'", s.as_str()),
        Value::Bytes(b) => {
            let mut out = String::from("b'");
            for &c in b.iter() {
                if c.is_ascii_graphic() || c == b' ' {
                    out.push(char::from(c));
                } else {
                    out.push_str(&format!("\\x{c:02x}"));
                }
            }
            out.push('\'');
            out
        }
        Value::List(l) => show_list(l),
        Value::Map(m) => show_map(m),
        Value::Timestamp(t) => format!("timestamp({}s, {}ns)", t.secs, t.nanos),
        Value::Duration(d) => format!("duration({}ns)", d.0),
        Value::Type(t) => format!("type({})", t.0),
        Value::Optional(None) => "optional.none()".into(),
        Value::Optional(Some(v)) => format!("optional.of({})", show(v)),
        Value::Opaque(o) => o.type_name().to_string(),
        Value::Preserved(j) => format!("json({j})"),
        Value::Error(e) => format!("error: {}", e.message),
    }
}

fn show_list(l: &List<'_>) -> String {
    let items: Vec<String> = l.iter().map(|v| show(&v)).collect();
    format!("[{}]", items.join(", "))
}

fn show_map(m: &Map<'_>) -> String {
    let items: Vec<String> = m
        .keys()
        .iter()
        .map(|k| format!("{}: {}", show(k), show(&m.get(k))))
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// The first issue of a compile failure, without its location prefix.
fn first_issue(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    match line.strip_prefix("ERROR: <input>:") {
        Some(rest) => {
            // `L:C: message`
            let mut parts = rest.splitn(3, ':');
            let _ = parts.next();
            let _ = parts.next();
            parts.next().unwrap_or("").trim_start().to_string()
        }
        None => line.to_string(),
    }
}

/// Compiles in `env` and evaluates with `act`.
pub fn eval_in(env: &Env, expr: &str, act: &Activation<'_>) -> String {
    let checked = match env.compile(expr) {
        Ok(c) => c,
        Err(f) => return format!("compile: {}", first_issue(&f.to_string())),
    };
    let program = match Program::from_checked(&checked) {
        Ok(p) => p,
        Err(e) => return format!("plan: {e}"),
    };
    let mut tracker = CostTracker::kubernetes(Some(1_000_000));
    match program.eval(act, &mut tracker) {
        Ok(v) => show(&v),
        Err(e) => format!("error: {e}"),
    }
}

/// Compiles and evaluates an expression without variables in a version's environment.
pub fn eval(version: EnvVersion, expr: &str) -> String {
    eval_in(&env(version), expr, &Activation::new())
}

/// The full compile error text (all issues, with locations), or `None` when it compiles.
pub fn compile_error(version: EnvVersion, expr: &str) -> Option<String> {
    env(version).compile(expr).err().map(|f| f.to_string())
}

fn matches(got: &str, want: &str) -> bool {
    match want.strip_suffix('…') {
        Some(prefix) => got.starts_with(prefix),
        None => got == want,
    }
}

/// Runs a table in one environment; panics listing every mismatch.
pub fn check_table(version: EnvVersion, cases: &[(&str, &str)]) {
    let e = env(version);
    let act = Activation::new();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(expr, want)| {
            let got = eval_in(&e, expr, &act);
            (!matches(&got, want)).then(|| format!("  {expr}\n    want: {want}\n    got:  {got}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// A test version of Kubernetes' `SchemaDeclType`: the declared CEL type of a schema node
/// (`None` when the node is not visible to CEL), registering object types in `objects`.
pub fn decl_type(s: &Schema, name: &str, objects: &mut Vec<Type>) -> Option<Type> {
    if s.int_or_string {
        return Some(Type::Dyn);
    }
    match s.type_.as_str() {
        "array" => {
            let items = s.items.as_deref()?;
            let t = decl_type(items, &format!("{name}.@idx"), objects)?;
            Some(Type::list(t))
        }
        "object" => {
            if let Some(ap) = s.additional_properties.as_deref() {
                let t = decl_type(ap, &format!("{name}.@elem"), objects)?;
                return Some(Type::map(Type::String, t));
            }
            let mut fields = BTreeMap::new();
            for (k, p) in s.properties.iter().flatten() {
                let Some(escaped) = escape(k) else { continue };
                if let Some(t) = decl_type(p, &format!("{name}.{escaped}"), objects) {
                    fields.insert(escaped, t);
                }
            }
            let t = Type::object(ObjectType::new(name, fields));
            objects.push(t.clone());
            Some(t)
        }
        "string" => Some(match s.format.as_str() {
            "byte" => Type::Bytes,
            "duration" => Type::Duration,
            "date" | "date-time" => Type::Timestamp,
            _ => Type::String,
        }),
        "boolean" => Some(Type::Bool),
        "number" => Some(Type::Double),
        "integer" => Some(Type::Int),
        _ => None,
    }
}

/// A rule's environment: `self` (and `oldSelf`) typed from the schema.
pub fn rule_env(version: EnvVersion, schema: &Schema) -> Env {
    let mut objects = Vec::new();
    let t = decl_type(schema, "selfType", &mut objects).unwrap_or(Type::Dyn);
    env(version)
        .extend()
        .decl_types(&objects)
        .variable("self", t.clone())
        .variable("oldSelf", t)
        .build()
}

/// Evaluates `expr` with `self` bound to `object` under the OpenAPI `schema`
/// (and `oldSelf` to `old` when given), in the stored-expressions environment.
pub fn eval_self(schema: &Json, object: &Json, old: Option<&Json>, expr: &str) -> String {
    eval_self_at(STORED, schema, object, old, expr)
}

/// [`eval_self`] at a version.
pub fn eval_self_at(
    version: EnvVersion,
    schema: &Json,
    object: &Json,
    old: Option<&Json>,
    expr: &str,
) -> String {
    let s = Schema::from_json(schema);
    let e = rule_env(version, &s);
    let mut act = Activation::new();
    act.bind("self", to_value(object, &s));
    if let Some(old) = old {
        act.bind("oldSelf", to_value(old, &s));
    }
    eval_in(&e, expr, &act)
}

/// Runs a table of rules against one schema and object (and old object).
pub fn check_self_table(schema: &Json, object: &Json, old: Option<&Json>, cases: &[(&str, &str)]) {
    let s = Schema::from_json(schema);
    let e = rule_env(STORED, &s);
    let mut act = Activation::new();
    act.bind("self", to_value(object, &s));
    if let Some(old) = old {
        act.bind("oldSelf", to_value(old, &s));
    }
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(expr, want)| {
            let got = eval_in(&e, expr, &act);
            (!matches(&got, want)).then(|| format!("  {expr}\n    want: {want}\n    got:  {got}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
