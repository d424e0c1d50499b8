//! Shared harness for the Kubernetes fixtures: a rule compiled either parse-only (runtime
//! dispatch) or type-checked (`self`/`oldSelf` typed from the schema as Kubernetes'
//! `SchemaDeclType` types them), evaluated with `self` bound from the case's object, and the
//! outcome Kubernetes' validator would report.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use crd_studio_cel::checker::{Env, EnvBuilder};
use crd_studio_cel::decls::EnvVersion;
use crd_studio_cel::interp::{Activation, CostTracker, PlanOptions, Program};
use crd_studio_cel::types::{ObjectType, Type};
use crd_studio_cel::unstructured::{escape, Schema};
use crd_studio_cel::value::Value;
use crd_studio_cel::KubernetesVersion;
use crd_studio_cel::{MacroSet, Parser, ParserOptions};
use serde_json::Value as Json;

/// Kubernetes' `PerCallLimit`.
pub const PER_CALL_LIMIT: u64 = 1_000_000;

/// Reads a fixture file under `../shared/conformance`, or `None` when it is missing.
pub fn fixture(rel: &str) -> Option<Vec<Json>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance")
        .join(rel);
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// How rules are compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Parse only; overloads chosen by runtime types.
    Parsed,
    /// Type-checked against the schema's declared types.
    Checked,
}

/// The outcome Kubernetes' validator would report for one rule.
pub enum Outcome {
    /// True, with the runtime cost.
    Ok { cost: u64 },
    /// A transition rule without an old object.
    Skipped,
    /// The error text.
    Error(String),
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
fn mentions(e: &crd_studio_cel::Expr, name: &str) -> bool {
    use crd_studio_cel::ExprKind as K;
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

/// Kubernetes' `SchemaDeclType` as a checker type (`None`: not exposed), collecting object
/// types.
fn decl_type(s: &Schema, name: &str, objects: &mut Vec<Type>) -> Option<Type> {
    if s.int_or_string {
        return Some(Type::Dyn);
    }
    match s.type_.as_str() {
        "array" => {
            let items = s.items.as_deref()?;
            let items = if items.embedded_resource {
                items.with_type_and_object_meta()
            } else {
                items.clone()
            };
            Some(Type::List(Box::new(decl_type(
                &items,
                &format!("{name}.@idx"),
                objects,
            )?)))
        }
        "object" => {
            if let Some(ap) = s.additional_properties.as_deref() {
                let v = decl_type(ap, &format!("{name}.@elem"), objects)?;
                return Some(Type::Map(Box::new([Type::String, v])));
            }
            let mut fields = BTreeMap::new();
            for (k, p) in s.properties.iter().flatten() {
                let Some(escaped) = escape(k) else {
                    continue;
                };
                if let Some(t) = decl_type(p, &format!("{name}.{k}"), objects) {
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

fn env_for(schema: &Schema, optional_old_self: bool) -> Env {
    let base = EnvBuilder::kubernetes(EnvVersion::NewExpressions(
        KubernetesVersion::DEFAULT.compatibility(),
    ))
    .literal_checks(crd_studio_cel::stdlib_rt::literal_checks())
    .build();
    let mut objects = Vec::new();
    let t = decl_type(schema, "selfType", &mut objects);
    let mut b = base.extend().decl_types(&objects);
    if let Some(t) = t {
        let old = if optional_old_self {
            Type::Opaque(
                crd_studio_cel::types::OPTIONAL_TYPE_NAME.into(),
                vec![t.clone()],
            )
        } else {
            t.clone()
        };
        b = b.variable("self", t).variable("oldSelf", old);
    }
    b.build()
}

/// Compiles and evaluates one rule of a case.
pub fn run_rule(case: &Json, rule: &Json, mode: Mode, default_root: bool) -> Outcome {
    let optional = rule
        .get("optionalOldSelf")
        .and_then(Json::as_bool)
        .unwrap_or(false);
    run_rule_with(case, rule, mode, default_root, optional)
}

/// [`run_rule`], with `oldSelf` optional (`optionalOldSelf: true`): typed `optional_type(T)`,
/// bound to `optional.none()` without an old object, never skipped.
pub fn run_rule_with(
    case: &Json,
    rule: &Json,
    mode: Mode,
    default_root: bool,
    optional_old_self: bool,
) -> Outcome {
    let text = rule.get("rule").and_then(Json::as_str).unwrap_or("");
    let schema_json = case.get("schema").cloned().unwrap_or(Json::Null);
    let input = case.get("input").cloned().unwrap_or(Json::Null);
    let root = input
        .get("isResourceRoot")
        .and_then(Json::as_bool)
        .unwrap_or(default_root);
    let mut schema = Schema::from_json(&schema_json);
    if root {
        schema = schema.with_type_and_object_meta();
    }
    let object = input.get("object").cloned().unwrap_or(Json::Null);
    let old = input.get("oldObject").cloned();
    let (program, uses_old_self) = match mode {
        Mode::Parsed => {
            let parsed = match parser().parse_text(text) {
                Ok(p) => p,
                Err(f) => {
                    return Outcome::Error(format!(
                        "rule compile error: compile error: compilation failed: {f}"
                    ))
                }
            };
            let uses = mentions(&parsed.expr, "oldSelf");
            (
                Program::new(&parsed.expr, None, PlanOptions::default()),
                uses,
            )
        }
        Mode::Checked => {
            let env = env_for(&schema, optional_old_self);
            let checked = match env.compile(text) {
                Ok(c) => c,
                Err(f) => {
                    return Outcome::Error(format!(
                        "rule compile error: compile error: compilation failed: {f}"
                    ))
                }
            };
            let uses = checked.references_ident("oldSelf");
            (Program::from_checked(&checked), uses)
        }
    };
    if uses_old_self && old.is_none() && !optional_old_self {
        return Outcome::Skipped;
    }
    let program = match program {
        Ok(p) => p,
        Err(e) => {
            return Outcome::Error(format!(
                "rule compile error: compile error: program instantiation failed: {e}"
            ))
        }
    };
    let mut act = Activation::new();
    act.bind_json("self", &object, &schema);
    match (&old, optional_old_self) {
        (Some(old), false) => {
            act.bind_json("oldSelf", old, &schema);
        }
        (Some(old), true) => {
            act.bind(
                "oldSelf",
                Value::optional_of(crd_studio_cel::unstructured::to_value(old, &schema)),
            );
        }
        (None, true) => {
            act.bind("oldSelf", Value::optional_none());
        }
        (None, false) => {}
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
