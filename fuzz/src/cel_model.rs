//! The `cel` target's input: a small structural schema with `x-kubernetes-validations` rules
//! (expressions from a small grammar over the schema's field names and the CEL libraries
//! Kubernetes enables, or raw text), an object and maybe an old object, rendered as a CRD and
//! object texts (JSON) that go through the whole engine: schema → CEL types, parse, check,
//! cost estimate, evaluation with the runtime cost limit.

use std::fmt::Write as _;

use arbitrary::Arbitrary;

use crate::json_str;

/// Field names the schema and the object share (so that rules and values meet).
const NAMES: [&str; 8] = ["a", "b", "items", "name", "spec", "key", "self", "x-y"];

/// A field name: one of [`NAMES`] or any text.
#[derive(Arbitrary, Debug)]
pub enum Name {
    /// One of the shared names.
    Known(u8),
    /// Any text.
    Other(String),
}

impl Name {
    fn text(&self) -> &str {
        match self {
            Name::Known(i) => NAMES
                .get(usize::from(*i) % NAMES.len())
                .copied()
                .unwrap_or("a"),
            Name::Other(s) => s,
        }
    }
}

/// `format` values the rules may meet.
const FORMATS: [&str; 8] = [
    "",
    "date-time",
    "date",
    "duration",
    "byte",
    "int-or-string",
    "ipv4",
    "uri",
];

/// A schema node.
#[derive(Arbitrary, Debug)]
pub struct Schema {
    /// Its type and children.
    pub kind: Kind,
    /// Rules on this node (at most two are written).
    pub rules: Vec<Rule>,
    /// `nullable`.
    pub nullable: bool,
    /// `maxLength` / `maxItems` / `maxProperties`, as fits the type.
    pub max: Option<u32>,
    /// A `default`.
    pub default: Option<Val>,
}

/// A schema node's type.
#[derive(Arbitrary, Debug)]
pub enum Kind {
    /// `type: string` with a format index into [`FORMATS`] and maybe an `enum`.
    Str(u8, Vec<String>),
    /// `type: integer`, maybe with a minimum.
    Int(Option<i64>),
    /// `type: number`.
    Num,
    /// `type: boolean`.
    Bool,
    /// `type: array`, with a `x-kubernetes-list-type` choice (0 none, 1 atomic, 2 set, 3 map
    /// keyed by `name`).
    List(Box<Schema>, u8),
    /// `type: object` with `additionalProperties`.
    Map(Box<Schema>),
    /// `type: object` with properties.
    Object(Vec<(Name, Schema)>),
    /// `x-kubernetes-int-or-string`.
    IntOrString,
    /// `x-kubernetes-preserve-unknown-fields` object.
    Preserve,
    /// `x-kubernetes-embedded-resource`.
    Embedded,
}

/// A rule.
#[derive(Arbitrary, Debug)]
pub struct Rule {
    /// `rule`.
    pub rule: Expr,
    /// `messageExpression`.
    pub message_expression: Option<Expr>,
    /// `optionalOldSelf`.
    pub optional_old_self: bool,
    /// `fieldPath` (as written).
    pub field_path: Option<String>,
}

/// Functions called on a receiver (`x.f(args)`).
const MEMBER: [&str; 40] = [
    "size",
    "contains",
    "startsWith",
    "endsWith",
    "matches",
    "format",
    "split",
    "join",
    "replace",
    "lowerAscii",
    "upperAscii",
    "indexOf",
    "lastIndexOf",
    "substring",
    "trim",
    "charAt",
    "isSorted",
    "sum",
    "min",
    "max",
    "indexOf",
    "reverse",
    "slice",
    "flatten",
    "distinct",
    "sort",
    "orValue",
    "hasValue",
    "value",
    "getScheme",
    "getHost",
    "isCanonical",
    "compareTo",
    "asInteger",
    "add",
    "sub",
    "isGreaterThan",
    "quote",
    "getHours",
    "all",
];

/// Global functions (`f(args)`).
const GLOBAL: [&str; 28] = [
    "size",
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "bool",
    "duration",
    "timestamp",
    "type",
    "dyn",
    "quantity",
    "isQuantity",
    "url",
    "isURL",
    "ip",
    "isIP",
    "cidr",
    "semver",
    "lists.range",
    "sets.contains",
    "sets.equivalent",
    "sets.intersects",
    "optional.of",
    "optional.none",
    "base64.encode",
    "strings.quote",
    "math.greatest",
];

/// Comprehension macros.
const MACROS: [&str; 7] = [
    "all",
    "exists",
    "exists_one",
    "map",
    "filter",
    "transformMap",
    "existsOne",
];

/// Binary operators.
const OPS: [&str; 14] = [
    "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "in",
];

/// An expression of the rule grammar.
#[derive(Arbitrary, Debug)]
pub enum Expr {
    /// `self`.
    SelfRef,
    /// `oldSelf`.
    OldSelf,
    /// The comprehension variable `x`.
    Var,
    /// `e.f`.
    Field(Box<Expr>, Name),
    /// `has(e.f)`.
    Has(Box<Expr>, Name),
    /// `e[i]`.
    Index(Box<Expr>, Box<Expr>),
    /// `e.?f` (optional select).
    OptField(Box<Expr>, Name),
    /// An integer.
    Int(i64),
    /// A double.
    Double(f64),
    /// A string literal.
    Str(String),
    /// `true`/`false`.
    Bool(bool),
    /// `null`.
    Null,
    /// `[a, b, ...]`.
    List(Vec<Expr>),
    /// `{k: v, ...}`.
    Map(Vec<(Expr, Expr)>),
    /// `a op b`.
    Bin(u8, Box<Expr>, Box<Expr>),
    /// `!e`.
    Not(Box<Expr>),
    /// `-e`.
    Neg(Box<Expr>),
    /// `c ? a : b`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `e.f(args)`.
    Member(u8, Box<Expr>, Vec<Expr>),
    /// `f(args)`.
    Global(u8, Vec<Expr>),
    /// `e.m(x, body)` or, for two-variable ones, `e.m(x, y, body)`.
    Macro(u8, Box<Expr>, Box<Expr>, bool),
    /// Raw text.
    Raw(String),
}

/// How deep rendering goes (deeper subtrees are written as `self`).
const MAX_DEPTH: usize = 8;

impl Expr {
    /// The expression's text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        if depth > MAX_DEPTH {
            out.push_str("self");
            return;
        }
        let d = depth + 1;
        match self {
            Expr::SelfRef => out.push_str("self"),
            Expr::OldSelf => out.push_str("oldSelf"),
            Expr::Var => out.push('x'),
            Expr::Field(e, n) => {
                e.write(out, d);
                let _ = write!(out, ".{}", n.text());
            }
            Expr::Has(e, n) => {
                out.push_str("has(");
                e.write(out, d);
                let _ = write!(out, ".{})", n.text());
            }
            Expr::Index(e, i) => {
                e.write(out, d);
                out.push('[');
                i.write(out, d);
                out.push(']');
            }
            Expr::OptField(e, n) => {
                e.write(out, d);
                let _ = write!(out, ".?{}", n.text());
            }
            Expr::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Expr::Double(f) => {
                let _ = write!(out, "{f:?}");
            }
            Expr::Str(s) => json_str(out, s),
            Expr::Bool(b) => {
                let _ = write!(out, "{b}");
            }
            Expr::Null => out.push_str("null"),
            Expr::List(items) => {
                out.push('[');
                for (i, e) in items.iter().take(6).enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    e.write(out, d);
                }
                out.push(']');
            }
            Expr::Map(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().take(4).enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write(out, d);
                    out.push_str(": ");
                    v.write(out, d);
                }
                out.push('}');
            }
            Expr::Bin(op, a, b) => {
                out.push('(');
                a.write(out, d);
                let _ = write!(out, " {} ", pick(&OPS, *op));
                b.write(out, d);
                out.push(')');
            }
            Expr::Not(e) => {
                out.push('!');
                e.write(out, d);
            }
            Expr::Neg(e) => {
                out.push('-');
                e.write(out, d);
            }
            Expr::Cond(c, a, b) => {
                out.push('(');
                c.write(out, d);
                out.push_str(" ? ");
                a.write(out, d);
                out.push_str(" : ");
                b.write(out, d);
                out.push(')');
            }
            Expr::Member(f, e, args) => {
                e.write(out, d);
                let _ = write!(out, ".{}(", pick(&MEMBER, *f));
                write_args(out, args, d);
                out.push(')');
            }
            Expr::Global(f, args) => {
                let _ = write!(out, "{}(", pick(&GLOBAL, *f));
                write_args(out, args, d);
                out.push(')');
            }
            Expr::Macro(m, e, body, two) => {
                e.write(out, d);
                let _ = write!(out, ".{}(x, ", pick(&MACROS, *m));
                if *two {
                    out.push_str("y, ");
                }
                body.write(out, d);
                out.push(')');
            }
            Expr::Raw(s) => out.push_str(s),
        }
    }
}

fn write_args(out: &mut String, args: &[Expr], depth: usize) {
    for (i, a) in args.iter().take(3).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        a.write(out, depth);
    }
}

fn pick<'a>(list: &[&'a str], i: u8) -> &'a str {
    list.get(usize::from(i) % list.len().max(1))
        .copied()
        .unwrap_or("")
}

/// A JSON value of the object.
#[derive(Arbitrary, Debug)]
pub enum Val {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A number.
    Num(f64),
    /// A string.
    Str(String),
    /// A list.
    List(Vec<Val>),
    /// A map.
    Map(Vec<(Name, Val)>),
}

impl Val {
    /// The value as JSON text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        if depth > MAX_DEPTH {
            out.push_str("null");
            return;
        }
        match self {
            Val::Null => out.push_str("null"),
            Val::Bool(b) => {
                let _ = write!(out, "{b}");
            }
            Val::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Val::Num(f) if f.is_finite() => {
                let _ = write!(out, "{f:?}");
            }
            Val::Num(_) => out.push_str("1e400"),
            Val::Str(s) => json_str(out, s),
            Val::List(items) => {
                out.push('[');
                for (i, v) in items.iter().take(8).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out, depth + 1);
                }
                out.push(']');
            }
            Val::Map(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().take(8).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    json_str(out, k.text());
                    out.push(':');
                    v.write(out, depth + 1);
                }
                out.push('}');
            }
        }
    }
}

impl Schema {
    fn write(&self, out: &mut String, depth: usize) {
        out.push('{');
        if depth > MAX_DEPTH {
            out.push_str("\"type\":\"string\"}");
            return;
        }
        let d = depth + 1;
        match &self.kind {
            Kind::Str(f, enums) => {
                out.push_str("\"type\":\"string\"");
                let format = pick(&FORMATS, *f);
                if !format.is_empty() {
                    let _ = write!(out, ",\"format\":\"{format}\"");
                }
                if !enums.is_empty() {
                    out.push_str(",\"enum\":[");
                    for (i, e) in enums.iter().take(4).enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        json_str(out, e);
                    }
                    out.push(']');
                }
                if let Some(m) = self.max {
                    let _ = write!(out, ",\"maxLength\":{m}");
                }
            }
            Kind::Int(min) => {
                out.push_str("\"type\":\"integer\"");
                if let Some(m) = min {
                    let _ = write!(out, ",\"minimum\":{m}");
                }
            }
            Kind::Num => out.push_str("\"type\":\"number\""),
            Kind::Bool => out.push_str("\"type\":\"boolean\""),
            Kind::List(items, list_type) => {
                out.push_str("\"type\":\"array\",\"items\":");
                items.write(out, d);
                match list_type % 4 {
                    1 => out.push_str(",\"x-kubernetes-list-type\":\"atomic\""),
                    2 => out.push_str(",\"x-kubernetes-list-type\":\"set\""),
                    3 => out.push_str(
                        ",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"name\"]",
                    ),
                    _ => {}
                }
                if let Some(m) = self.max {
                    let _ = write!(out, ",\"maxItems\":{m}");
                }
            }
            Kind::Map(values) => {
                out.push_str("\"type\":\"object\",\"additionalProperties\":");
                values.write(out, d);
                if let Some(m) = self.max {
                    let _ = write!(out, ",\"maxProperties\":{m}");
                }
            }
            Kind::Object(props) => {
                out.push_str("\"type\":\"object\",\"properties\":{");
                for (i, (n, s)) in props.iter().take(6).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    json_str(out, n.text());
                    out.push(':');
                    s.write(out, d);
                }
                out.push('}');
            }
            Kind::IntOrString => out.push_str("\"x-kubernetes-int-or-string\":true"),
            Kind::Preserve => {
                out.push_str("\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true")
            }
            Kind::Embedded => out.push_str(
                "\"type\":\"object\",\"x-kubernetes-embedded-resource\":true,\"x-kubernetes-preserve-unknown-fields\":true",
            ),
        }
        if self.nullable {
            out.push_str(",\"nullable\":true");
        }
        if let Some(v) = &self.default {
            out.push_str(",\"default\":");
            v.write(out, d);
        }
        if !self.rules.is_empty() {
            out.push_str(",\"x-kubernetes-validations\":[");
            for (i, r) in self.rules.iter().take(2).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str("{\"rule\":");
                json_str(out, &r.rule.render());
                if let Some(m) = &r.message_expression {
                    out.push_str(",\"messageExpression\":");
                    json_str(out, &m.render());
                }
                if r.optional_old_self {
                    out.push_str(",\"optionalOldSelf\":true");
                }
                if let Some(p) = &r.field_path {
                    out.push_str(",\"fieldPath\":");
                    json_str(out, p);
                }
                out.push('}');
            }
            out.push(']');
        }
        out.push('}');
    }
}

/// The whole input of the `cel` target.
#[derive(Arbitrary, Debug)]
pub struct CelCase {
    /// The schema of `spec`.
    pub spec: Schema,
    /// The object's `spec`.
    pub object: Val,
    /// The old object's `spec` (an update) or none (a create).
    pub old: Option<Val>,
    /// The Kubernetes version (index into a few).
    pub version: u8,
}

const VERSIONS: [&str; 4] = ["1.36", "1.32", "1.28", "1.25"];

impl CelCase {
    /// The CRD text.
    pub fn crd(&self) -> String {
        let mut out = String::from(
            "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\
             \"metadata\":{\"name\":\"widgets.fuzz.example.com\"},\"spec\":{\"group\":\"fuzz.example.com\",\
             \"names\":{\"plural\":\"widgets\",\"singular\":\"widget\",\"kind\":\"Widget\",\"listKind\":\"WidgetList\"},\
             \"scope\":\"Namespaced\",\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true,\
             \"schema\":{\"openAPIV3Schema\":{\"type\":\"object\",\"properties\":{\"spec\":",
        );
        self.spec.write(&mut out, 0);
        out.push_str("}}}}]}}");
        out
    }

    /// An object text with `spec`.
    pub fn object_text(spec: &Val) -> String {
        format!(
            "{{\"apiVersion\":\"fuzz.example.com/v1\",\"kind\":\"Widget\",\"metadata\":{{\"name\":\"w\"}},\"spec\":{}}}",
            spec.render()
        )
    }

    /// The Kubernetes version of the environment.
    pub fn version(&self) -> &'static str {
        pick(&VERSIONS, self.version)
    }
}
