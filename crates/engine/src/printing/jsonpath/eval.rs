//! The evaluator (client-go `jsonpath/jsonpath.go`): the values it walks (`reflect.Value`
//! as it sees them), each node's results, filters, and the printing of results.

use super::*;

/// A `reflect.Value` as the evaluator sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// The zero `reflect.Value` (`reflect.ValueOf(nil)`).
    Invalid,
    /// A decoded JSON value. `iface` is true for a value read out of a map or a list (an
    /// `interface{}`; `null` there is a nil interface).
    Json {
        /// The value.
        value: &'a Json,
        /// Whether this is an interface value.
        iface: bool,
    },
    /// A string from a text node.
    Text(String),
    /// A Go `int` from a number node.
    Int(i64),
    /// A `float64` from a number node.
    Float(f64),
    /// A `bool` from a `true`/`false` node.
    Bool(bool),
    /// A `uint8`: a byte of a string, from `.*` or `..`.
    Byte(u8),
}

/// A value with interfaces looked through: what Go's `Kind()` switches on.
#[derive(Clone, Copy, Debug)]
pub(super) enum Concrete<'v> {
    Invalid,
    NilInterface,
    Map(&'v Map<String, Json>),
    Slice(&'v [Json]),
    Str(&'v str),
    Int64(i64),
    Float64(f64),
    Bool(bool),
    Int(i64),
    Uint8(u8),
}

impl<'a> Value<'a> {
    /// `reflect.ValueOf(data)` for decoded JSON (not an interface; `null` is invalid).
    pub fn of(data: &'a Json) -> Value<'a> {
        match data {
            Json::Null => Value::Invalid,
            value => Value::Json {
                value,
                iface: false,
            },
        }
    }

    /// `reflect.ValueOf(v.Interface())`: the value outside its interface (a nil interface
    /// becomes the zero value).
    pub fn interface(&self) -> Value<'a> {
        match self {
            Value::Json { value, .. } => Value::of(value),
            other => other.clone(),
        }
    }

    /// The JSON value, when this is one.
    pub fn json(&self) -> Option<&'a Json> {
        match self {
            Value::Json { value, .. } => Some(value),
            _ => None,
        }
    }

    pub(super) fn concrete(&self) -> Concrete<'_> {
        match self {
            Value::Invalid => Concrete::Invalid,
            Value::Json { value, iface } => match value {
                Json::Null if *iface => Concrete::NilInterface,
                Json::Null => Concrete::Invalid,
                Json::Bool(b) => Concrete::Bool(*b),
                Json::Number(n) => match n.as_i64() {
                    Some(i) => Concrete::Int64(i),
                    // Kubernetes decodes integers beyond int64 as float64.
                    None => Concrete::Float64(n.as_f64().unwrap_or(0.0)),
                },
                Json::String(s) => Concrete::Str(s),
                Json::Array(items) => Concrete::Slice(items),
                Json::Object(map) => Concrete::Map(map),
            },
            Value::Text(s) => Concrete::Str(s),
            Value::Int(i) => Concrete::Int(*i),
            Value::Float(f) => Concrete::Float64(*f),
            Value::Bool(b) => Concrete::Bool(*b),
            Value::Byte(b) => Concrete::Uint8(*b),
        }
    }
}

impl Concrete<'_> {
    /// `Type().String()`.
    pub(super) fn type_name(&self) -> &'static str {
        match self {
            Concrete::Invalid => "<invalid reflect.Value>",
            Concrete::NilInterface => "interface {}",
            Concrete::Map(_) => "map[string]interface {}",
            Concrete::Slice(_) => "[]interface {}",
            Concrete::Str(_) => "string",
            Concrete::Int64(_) => "int64",
            Concrete::Float64(_) => "float64",
            Concrete::Bool(_) => "bool",
            Concrete::Int(_) => "int",
            Concrete::Uint8(_) => "uint8",
        }
    }
}

/// `fmt.Fprint` of a concrete value.
pub(super) fn go_print(c: &Concrete) -> String {
    match c {
        Concrete::Invalid => "<invalid reflect.Value>".to_owned(),
        Concrete::NilInterface => "<nil>".to_owned(),
        Concrete::Map(m) => crd_studio_gostd::fmt::v(&Json::Object((*m).clone())),
        Concrete::Slice(items) => crd_studio_gostd::fmt::v(&Json::Array(items.to_vec())),
        Concrete::Str(s) => (*s).to_owned(),
        Concrete::Int64(i) | Concrete::Int(i) => i.to_string(),
        Concrete::Float64(f) => go_float_v(*f),
        Concrete::Bool(b) => b.to_string(),
        Concrete::Uint8(b) => b.to_string(),
    }
}

/// `PrintResults(results)`: maps and lists as compact JSON (keys sorted, HTML-escaped, as
/// `json.Marshal` writes them), other values as `fmt.Fprint` prints them (a nil interface
/// read from the data is `null`, the zero value `<no value>`), separated by spaces.
pub fn print_results(results: &[Value]) -> Result<String, String> {
    let mut out = String::new();
    for (i, r) in results.iter().enumerate() {
        let text = match r {
            Value::Json {
                value: value @ (Json::Object(_) | Json::Array(_)),
                ..
            } => crd_studio_gostd::json::marshal(&as_go_numbers(value)),
            Value::Invalid => "<no value>".to_owned(),
            Value::Json {
                value: Json::Null, ..
            } => "null".to_owned(),
            other => go_print(&other.concrete()),
        };
        out.push_str(&text);
        if i + 1 != results.len() {
            out.push(' ');
        }
    }
    Ok(out)
}

/// The value with integers beyond int64 as float64, as Kubernetes decodes them (so
/// `json.Marshal` writes `12345678901234567000`).
pub(super) fn as_go_numbers(v: &Json) -> std::borrow::Cow<'_, Json> {
    fn has_big(v: &Json) -> bool {
        match v {
            Json::Number(n) => n.is_u64() && n.as_i64().is_none(),
            Json::Array(items) => items.iter().any(has_big),
            Json::Object(map) => map.values().any(has_big),
            _ => false,
        }
    }
    fn convert(v: &Json) -> Json {
        match v {
            Json::Number(n) if n.is_u64() && n.as_i64().is_none() => n
                .as_f64()
                .and_then(serde_json::Number::from_f64)
                .map_or(Json::Null, Json::Number),
            Json::Array(items) => Json::Array(items.iter().map(convert).collect()),
            Json::Object(map) => {
                Json::Object(map.iter().map(|(k, x)| (k.clone(), convert(x))).collect())
            }
            other => other.clone(),
        }
    }
    if has_big(v) {
        std::borrow::Cow::Owned(convert(v))
    } else {
        std::borrow::Cow::Borrowed(v)
    }
}

// ---------------------------------------------------------------------------------------
// Evaluator

/// An evaluation error with the values Go returns beside it (an `exists` filter keeps an
/// element whose left side failed with a non-empty partial result).
pub(super) struct Fail<'a> {
    pub(super) partial: Vec<Value<'a>>,
    pub(super) message: String,
}

pub(super) type Step<'a> = Result<Vec<Value<'a>>, Fail<'a>>;

pub(super) fn fail<'a>(partial: Vec<Value<'a>>, message: impl Into<String>) -> Step<'a> {
    Err(Fail {
        partial,
        message: message.into(),
    })
}

pub(super) struct Eval {
    pub(super) allow_missing_keys: bool,
    pub(super) begin_range: u32,
    pub(super) in_range: u32,
    pub(super) end_range: u32,
    /// The absolute index of the last `{end}` list met (`lastEndNode`).
    pub(super) last_end: Option<usize>,
    pub(super) produced: usize,
}

impl Eval {
    /// `FindResults` on the top-level nodes from `start` on (`Root.Nodes = nodes[i+1:]`).
    pub(super) fn find_results<'a>(
        &mut self,
        root: &[Node],
        start: usize,
        data: Value<'a>,
        depth: usize,
    ) -> Result<Vec<Vec<Value<'a>>>, String> {
        if depth > MAX_DEPTH {
            return Err("jsonpath ranges nested too deeply".to_owned());
        }
        let cur = vec![data];
        let nodes = root.get(start..).unwrap_or_default();
        let mut full = Vec::new();
        let mut i = 0;
        while let Some(node) = nodes.get(i) {
            let results = self.walk(&cur, node).map_err(|f| f.message)?;
            if self.end_range > 0 && self.end_range <= self.in_range {
                self.end_range -= 1;
                self.last_end = Some(start + i);
                break;
            }
            if self.begin_range > 0 {
                self.begin_range -= 1;
                self.in_range += 1;
                if results.is_empty() {
                    self.find_results(root, start + i + 1, Value::Invalid, depth + 1)?;
                } else {
                    for value in &results {
                        let next =
                            self.find_results(root, start + i + 1, value.interface(), depth + 1)?;
                        full.extend(next);
                    }
                }
                self.in_range -= 1;
                if let Some(k) = (i + 1..nodes.len()).find(|k| Some(start + k) == self.last_end) {
                    i = k;
                }
                i += 1;
                continue;
            }
            full.push(results);
            i += 1;
        }
        Ok(full)
    }

    pub(super) fn count<'a>(&mut self, values: Vec<Value<'a>>) -> Step<'a> {
        self.produced = self.produced.saturating_add(values.len());
        if self.produced > MAX_VALUES {
            return fail(Vec::new(), "jsonpath evaluation produced too many values");
        }
        Ok(values)
    }

    pub(super) fn walk<'a>(&mut self, input: &[Value<'a>], node: &Node) -> Step<'a> {
        let out = match node {
            Node::List(nodes) => return self.eval_list(input, nodes),
            Node::Text(t) => Ok(vec![Value::Text(t.clone())]),
            Node::Field(name) => self.eval_field(input, name),
            Node::Array(params) => eval_array(input, params),
            Node::Filter {
                left,
                right,
                operator,
            } => self.eval_filter(input, left, right, operator),
            Node::Int(i) => Ok(vec![Value::Int(*i); input.len()]),
            Node::Float(f) => Ok(vec![Value::Float(*f); input.len()]),
            Node::Bool(b) => Ok(vec![Value::Bool(*b); input.len()]),
            Node::Wildcard => Ok(eval_wildcard(input)),
            Node::Recursive => Ok(eval_recursive(input)),
            Node::Union(lists) => self.eval_union(input, lists),
            Node::Identifier(name) => self.eval_identifier(input, name),
        }?;
        self.count(out)
    }

    pub(super) fn eval_list<'a>(&mut self, input: &[Value<'a>], nodes: &[Node]) -> Step<'a> {
        let mut cur = input.to_vec();
        for node in nodes {
            cur = self.walk(&cur, node)?;
        }
        Ok(cur)
    }

    pub(super) fn eval_identifier<'a>(&mut self, input: &[Value<'a>], name: &str) -> Step<'a> {
        match name {
            "range" => {
                self.begin_range += 1;
                Ok(input.to_vec())
            }
            "end" => {
                if self.in_range > 0 {
                    self.end_range += 1;
                    Ok(Vec::new())
                } else {
                    fail(Vec::new(), "not in range, nothing to end")
                }
            }
            _ => fail(input.to_vec(), format!("unrecognized identifier {name}")),
        }
    }

    pub(super) fn eval_field<'a>(&mut self, input: &[Value<'a>], name: &str) -> Step<'a> {
        let mut results = Vec::new();
        if input.is_empty() {
            return Ok(results);
        }
        for value in input {
            if let Value::Json {
                value: Json::Object(map),
                ..
            } = value
            {
                if let Some(v) = map.get(name) {
                    results.push(Value::Json {
                        value: v,
                        iface: true,
                    });
                }
            }
        }
        if results.is_empty() && !self.allow_missing_keys {
            return fail(results, format!("{name} is not found"));
        }
        Ok(results)
    }

    pub(super) fn eval_union<'a>(&mut self, input: &[Value<'a>], lists: &[Vec<Node>]) -> Step<'a> {
        let mut result = Vec::new();
        for list in lists {
            match self.eval_list(input, list) {
                Ok(values) => result.extend(values),
                Err(f) => return fail(input.to_vec(), f.message),
            }
        }
        Ok(result)
    }

    pub(super) fn eval_filter<'a>(
        &mut self,
        input: &[Value<'a>],
        left: &[Node],
        right: &[Node],
        operator: &str,
    ) -> Step<'a> {
        let mut results = Vec::new();
        for value in input {
            let items: &'a [Json] = match value {
                Value::Json {
                    value: Json::Array(items),
                    ..
                } => items,
                other => {
                    return fail(
                        input.to_vec(),
                        format!(
                            "{} is not array or slice and cannot be filtered",
                            go_print(&other.concrete())
                        ),
                    )
                }
            };
            for item in items {
                let temp = [Value::Json {
                    value: item,
                    iface: true,
                }];
                let lefts = self.eval_list(&temp, left);
                if operator == "exists" {
                    let found = match &lefts {
                        Ok(v) => !v.is_empty(),
                        Err(f) => !f.partial.is_empty(),
                    };
                    if found {
                        results.push(Value::Json {
                            value: item,
                            iface: true,
                        });
                    }
                    continue;
                }
                let lefts = match lefts {
                    Ok(v) => v,
                    Err(f) => return fail(input.to_vec(), f.message),
                };
                let l = match lefts.as_slice() {
                    [] => continue,
                    [one] => one.interface(),
                    _ => return fail(input.to_vec(), "can only compare one element at a time"),
                };
                let rights = match self.eval_list(&temp, right) {
                    Ok(v) => v,
                    Err(f) => return fail(input.to_vec(), f.message),
                };
                let r = match rights.as_slice() {
                    [] => continue,
                    [one] => one.interface(),
                    _ => return fail(input.to_vec(), "can only compare one element at a time"),
                };
                let (lc, rc) = (l.concrete(), r.concrete());
                let pass = match operator {
                    "<" => less(&lc, &rc),
                    ">" => less_equal(&lc, &rc).map(|b| !b),
                    "==" => equal(&lc, &rc),
                    "!=" => equal(&lc, &rc).map(|b| !b),
                    "<=" => less_equal(&lc, &rc),
                    ">=" => less(&lc, &rc).map(|b| !b),
                    _ => return fail(results, format!("unrecognized filter operator {operator}")),
                };
                match pass {
                    Ok(true) => results.push(Value::Json {
                        value: item,
                        iface: true,
                    }),
                    Ok(false) => {}
                    Err(e) => return fail(results, e),
                }
            }
        }
        Ok(results)
    }
}

pub(super) fn eval_array<'a>(input: &[Value<'a>], node: &[Param; 3]) -> Step<'a> {
    let mut result = Vec::new();
    for value in input {
        let items: &'a [Json] = match value {
            Value::Json {
                value: Json::Array(items),
                ..
            } => items,
            Value::Json {
                value: Json::Null,
                iface: true,
            } => continue,
            other => {
                return fail(
                    input.to_vec(),
                    format!("{} is not array or slice", other.concrete().type_name()),
                )
            }
        };
        let [mut p0, mut p1, p2] = *node;
        let len = items.len() as i64;
        if !p0.known {
            p0.value = 0;
        }
        if p0.value < 0 {
            p0.value += len;
        }
        if !p1.known {
            p1.value = len;
        }
        if p1.value < 0 || (p1.value == 0 && p1.derived) {
            p1.value += len;
        }
        if p1.value == p0.value {
            return Ok(result);
        }
        if p0.value >= len || p0.value < 0 {
            return fail(
                input.to_vec(),
                format!(
                    "array index out of bounds: index {}, length {len}",
                    p0.value
                ),
            );
        }
        if p1.value > len || p1.value < 0 {
            return fail(
                input.to_vec(),
                format!(
                    "array index out of bounds: index {}, length {len}",
                    p1.value - 1
                ),
            );
        }
        if p0.value > p1.value {
            return fail(
                input.to_vec(),
                format!(
                    "starting index {} is greater than ending index {}",
                    p0.value, p1.value
                ),
            );
        }
        let slice = items
            .get(p0.value as usize..p1.value as usize)
            .unwrap_or_default();
        let step = if p2.known {
            if p2.value <= 0 {
                return fail(input.to_vec(), "step must be > 0");
            }
            p2.value as usize
        } else {
            1
        };
        result.extend(slice.iter().step_by(step).map(|v| Value::Json {
            value: v,
            iface: true,
        }));
    }
    Ok(result)
}

/// The children `.*` and `..` visit: map values (keys sorted), list items, string bytes.
pub(super) fn children<'a>(value: &Value<'a>) -> Vec<Value<'a>> {
    match value {
        Value::Json {
            value: Json::Object(map),
            ..
        } => map
            .values()
            .map(|v| Value::Json {
                value: v,
                iface: true,
            })
            .collect(),
        Value::Json {
            value: Json::Array(items),
            ..
        } => items
            .iter()
            .map(|v| Value::Json {
                value: v,
                iface: true,
            })
            .collect(),
        Value::Json {
            value: Json::String(s),
            ..
        } => s.bytes().map(Value::Byte).collect(),
        Value::Text(s) => s.bytes().map(Value::Byte).collect(),
        _ => Vec::new(),
    }
}

pub(super) fn eval_wildcard<'a>(input: &[Value<'a>]) -> Vec<Value<'a>> {
    input.iter().flat_map(children).collect()
}

/// `..`: every value that has children, before its descendants (pre-order).
pub(super) fn eval_recursive<'a>(input: &[Value<'a>]) -> Vec<Value<'a>> {
    let mut result = Vec::new();
    let mut stack: Vec<Value<'a>> = input.iter().rev().cloned().collect();
    while let Some(value) = stack.pop() {
        let kids = children(&value);
        if kids.is_empty() {
            continue;
        }
        result.push(value.interface());
        stack.extend(kids.into_iter().rev());
    }
    result
}

// text/template's comparison functions (`eq`, `lt`, ...) on basic kinds.

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum BasicKind {
    Bool,
    Int,
    Float,
    Str,
    Uint,
}

pub(super) const BAD_TYPE: &str = "invalid type for comparison";
pub(super) const BAD_COMPARISON: &str = "incompatible types for comparison";

pub(super) fn basic_kind(c: &Concrete) -> Result<BasicKind, String> {
    match c {
        Concrete::Bool(_) => Ok(BasicKind::Bool),
        Concrete::Int64(_) | Concrete::Int(_) => Ok(BasicKind::Int),
        Concrete::Uint8(_) => Ok(BasicKind::Uint),
        Concrete::Float64(_) => Ok(BasicKind::Float),
        Concrete::Str(_) => Ok(BasicKind::Str),
        _ => Err(BAD_TYPE.to_owned()),
    }
}

pub(super) fn as_int(c: &Concrete) -> i64 {
    match c {
        Concrete::Int64(i) | Concrete::Int(i) => *i,
        _ => 0,
    }
}

pub(super) fn as_uint(c: &Concrete) -> u64 {
    match c {
        Concrete::Uint8(b) => u64::from(*b),
        _ => 0,
    }
}

pub(super) fn equal(a: &Concrete, b: &Concrete) -> Result<bool, String> {
    let (k1, k2) = (basic_kind(a)?, basic_kind(b)?);
    if k1 != k2 {
        return match (k1, k2) {
            (BasicKind::Int, BasicKind::Uint) => {
                Ok(as_int(a) >= 0 && as_int(a) as u64 == as_uint(b))
            }
            (BasicKind::Uint, BasicKind::Int) => {
                Ok(as_int(b) >= 0 && as_uint(a) == as_int(b) as u64)
            }
            _ => Err(BAD_COMPARISON.to_owned()),
        };
    }
    Ok(match (a, b) {
        (Concrete::Bool(x), Concrete::Bool(y)) => x == y,
        (Concrete::Float64(x), Concrete::Float64(y)) => x == y,
        (Concrete::Str(x), Concrete::Str(y)) => x == y,
        (Concrete::Uint8(x), Concrete::Uint8(y)) => x == y,
        _ => as_int(a) == as_int(b),
    })
}

pub(super) fn less(a: &Concrete, b: &Concrete) -> Result<bool, String> {
    let (k1, k2) = (basic_kind(a)?, basic_kind(b)?);
    if k1 != k2 {
        return match (k1, k2) {
            (BasicKind::Int, BasicKind::Uint) => {
                Ok(as_int(a) < 0 || (as_int(a) as u64) < as_uint(b))
            }
            (BasicKind::Uint, BasicKind::Int) => {
                Ok(as_int(b) >= 0 && as_uint(a) < as_int(b) as u64)
            }
            _ => Err(BAD_COMPARISON.to_owned()),
        };
    }
    Ok(match (a, b) {
        (Concrete::Bool(_), _) => return Err(BAD_TYPE.to_owned()),
        (Concrete::Float64(x), Concrete::Float64(y)) => x < y,
        (Concrete::Str(x), Concrete::Str(y)) => x < y,
        (Concrete::Uint8(x), Concrete::Uint8(y)) => x < y,
        _ => as_int(a) < as_int(b),
    })
}

pub(super) fn less_equal(a: &Concrete, b: &Concrete) -> Result<bool, String> {
    let lt = less(a, b)?;
    if lt {
        return Ok(true);
    }
    equal(a, b)
}
