//! The `cel` rule's values: JSON into CEL and back (optionals, timestamps, durations, bytes),
//! the environment and one evaluation.

use super::*;

/// How deep a value may nest when converted (the documents nest at most 512 levels).
pub(super) const MAX_DEPTH: usize = 600;

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
pub(super) fn double_json(f: f64) -> Result<Json, String> {
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
