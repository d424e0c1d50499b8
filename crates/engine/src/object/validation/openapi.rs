//! kube-openapi's schema validator (`pkg/validation/validate` at d427ff9ee9ad): the type,
//! schema-props (`allOf`/`anyOf`/`oneOf`/`not`/`dependencies`), string, format, number,
//! slice, common (`enum`) and object validators, run in that order on every value, with the
//! result bookkeeping that decides which errors survive `anyOf`/`oneOf` (match counts,
//! message de-duplication). Errors carry kube-openapi's exact message texts
//! (`pkg/validation/errors`).
//!
//! Ratcheting hooks in where kube-openapi lets the apiserver inject validators for
//! properties and items: see [`super::ratcheting`].

use std::collections::BTreeSet;

use serde_json::Value as Json;

use super::ratcheting::{self, Corr};
use super::schema::{Dependency, Items, OaSchema};
use crate::documents::path::FieldPath;
use crd_studio_gostd::strconv::format_float_f;
use crd_studio_gostd::strconv::{format_float_g as go_float_v, quote as go_quote};
use crd_studio_gostd::value::{deep_equal, f64_to_i64, is_float64_a_json_integer, GoNum};

pub(crate) use super::MAX_VALIDATION_DEPTH;

/// kube-openapi's error codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Code {
    InvalidType,
    Required,
    TooLong,
    TooShort,
    Pattern,
    Enum,
    MultipleOf,
    Max,
    Min,
    Unique,
    MaxItems,
    MinItems,
    TooFewProperties,
    TooManyProperties,
    UnallowedProperty,
    MultipleOfMustBePositive,
}

/// An `*errors.Validation`.
#[derive(Clone, Debug)]
pub(crate) struct Validation {
    pub code: Code,
    /// The Go path text (`spec.replicas`, `.key` at the root of additionalProperties).
    pub name: String,
    /// The same path as segments.
    pub field: FieldPath,
    /// `Value` (JSON null is Go nil).
    pub value: Json,
    /// `Valid`, when it is an int64.
    pub valid: Option<i64>,
    /// `Values` (enum).
    pub values: Vec<Json>,
    pub message: String,
}

/// An error of a kube-openapi result.
#[derive(Clone, Debug)]
pub(crate) enum OaError {
    Validation(Box<Validation>),
    /// Any other error (`errors.New`, `fmt.Errorf`): only a message.
    Plain(String),
}

impl OaError {
    pub fn message(&self) -> &str {
        match self {
            OaError::Validation(v) => &v.message,
            OaError::Plain(m) => m,
        }
    }
}

/// `validate.Result`: errors and warnings de-duplicated by message, and the match count.
#[derive(Clone, Debug, Default)]
pub(crate) struct OaResult {
    pub errors: Vec<OaError>,
    pub warnings: Vec<OaError>,
    pub match_count: i64,
    seen_errors: BTreeSet<String>,
    seen_warnings: BTreeSet<String>,
}

impl OaResult {
    fn with_error(e: OaError) -> OaResult {
        let mut r = OaResult::default();
        r.add_error(e);
        r
    }

    pub fn add_error(&mut self, e: OaError) {
        if self.seen_errors.insert(e.message().to_owned()) {
            self.errors.push(e);
        }
    }

    fn add_warning(&mut self, e: OaError) {
        if self.seen_warnings.insert(e.message().to_owned()) {
            self.warnings.push(e);
        }
    }

    /// `Merge`.
    pub fn merge(&mut self, other: OaResult) {
        for e in other.errors {
            self.add_error(e);
        }
        for w in other.warnings {
            self.add_warning(w);
        }
        self.match_count += other.match_count;
    }

    /// `MergeAsWarnings` into a fresh result.
    pub fn into_warnings(self) -> OaResult {
        let mut r = OaResult::default();
        for e in self.errors {
            r.add_warning(e);
        }
        for w in self.warnings {
            r.add_warning(w);
        }
        r.match_count = self.match_count;
        r
    }

    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    fn inc(&mut self) {
        self.match_count += 1;
    }

    /// `keepRelevantErrors`: errors whose message starts with "IMPORTANT!", stripped.
    fn keep_relevant(&self) -> OaResult {
        let mut r = OaResult::default();
        for e in &self.errors {
            if let Some(m) = e.message().strip_prefix("IMPORTANT!") {
                r.add_error(OaError::Plain(m.to_owned()));
            }
        }
        for w in &self.warnings {
            if let Some(m) = w.message().strip_prefix("IMPORTANT!") {
                r.add_warning(OaError::Plain(m.to_owned()));
            }
        }
        r
    }
}

/// A kube-openapi path: its Go text and its segments.
#[derive(Clone, Debug, Default)]
pub(crate) struct GoPath {
    pub text: String,
    pub field: FieldPath,
}

impl GoPath {
    /// A regular property: `path.name`, or `name` at the root.
    fn property(&self, name: &str) -> GoPath {
        let text = if self.text.is_empty() {
            name.to_owned()
        } else {
            format!("{}.{name}", self.text)
        };
        GoPath {
            text,
            field: self.field.key_field(name),
        }
    }

    /// An additional/pattern property or a required one: always `path.name`.
    fn dotted(&self, name: &str) -> GoPath {
        GoPath {
            text: format!("{}.{name}", self.text),
            field: self.field.key_field(name),
        }
    }

    fn index(&self, i: usize) -> GoPath {
        GoPath {
            text: format!("{}[{i}]", self.text),
            field: self.field.index(i),
        }
    }
}

trait KeyField {
    fn key_field(&self, name: &str) -> FieldPath;
}

impl KeyField for FieldPath {
    fn key_field(&self, name: &str) -> FieldPath {
        let mut p = self.clone();
        p.0.push(crate::documents::path::Segment::Field(name.to_owned()));
        p
    }
}

const IN: &str = "body";

fn validation(code: Code, path: &GoPath, value: Json, message: String) -> OaError {
    OaError::Validation(Box::new(Validation {
        code,
        name: path.text.clone(),
        field: path.field.clone(),
        value,
        valid: None,
        values: Vec::new(),
        message,
    }))
}

/// `errors.InvalidType(path, "body", typeName, value)` for a string value.
fn invalid_type(path: &GoPath, type_name: &str, value: &str) -> OaError {
    validation(
        Code::InvalidType,
        path,
        Json::String(value.to_owned()),
        format!(
            "{} in {IN} must be of type {type_name}: {}",
            path.text,
            go_quote(value)
        ),
    )
}

/// Go's `%v` of a number as the error templates print it.
fn num_v(n: GoNum) -> String {
    match n {
        GoNum::Int(i) => i.to_string(),
        GoNum::Float(f) => go_float_v(f),
    }
}

/// The kind of a decoded JSON value, as `reflect.Kind` sees it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    String,
    Int,
    Float,
    Slice,
    Map,
}

fn kind_of(v: &Json) -> Option<Kind> {
    Some(match v {
        Json::Null => return None,
        Json::Bool(_) => Kind::Bool,
        Json::String(_) => Kind::String,
        Json::Number(_) => match GoNum::of(v) {
            Some(GoNum::Int(_)) => Kind::Int,
            _ => Kind::Float,
        },
        Json::Array(_) => Kind::Slice,
        Json::Object(_) => Kind::Map,
    })
}

/// `SchemaValidator.Validate(data)`; `corr` is the correlated old value when this node is a
/// ratcheting one (its children may then ratchet too).
pub(crate) fn validate(
    s: &OaSchema,
    path: &GoPath,
    data: &Json,
    corr: Option<Corr<'_>>,
    depth: usize,
) -> OaResult {
    let mut out = OaResult::default();
    validate_into(s, path, data, corr, depth, &mut out);
    out
}

/// [`validate`], merging into `out` (the same as merging a separate result: errors are
/// de-duplicated by message and match counts add up). The checks that do not recurse run in
/// their own functions, so the recursive frames stay small.
pub(crate) fn validate_into(
    s: &OaSchema,
    path: &GoPath,
    data: &Json,
    corr: Option<Corr<'_>>,
    depth: usize,
    out: &mut OaResult,
) {
    if depth > MAX_VALIDATION_DEPTH {
        return;
    }
    let Some(kind) = kind_of(data) else {
        null_checks(s, path, data, out);
        return;
    };
    type_check(s, path, data, kind, out);
    schema_props_validate(s, path, data, depth, out);
    out.inc();
    value_checks(s, path, data, kind, out);
    if let Json::Array(items) = data {
        slice_validate(s, path, items, corr, depth, out);
        out.inc();
    }
    common_check(s, path, data, out);
    if let Json::Object(map) = data {
        object_validate(s, path, map, corr, depth, out);
        out.inc();
    }
    out.inc();
}

#[inline(never)]
fn null_checks(s: &OaSchema, path: &GoPath, data: &Json, out: &mut OaResult) {
    out.merge(type_validate_null(s, path));
    out.merge(common_validate(s, path, data));
}

#[inline(never)]
fn type_check(s: &OaSchema, path: &GoPath, data: &Json, kind: Kind, out: &mut OaResult) {
    if !s.types.is_empty() || !s.rare().format.is_empty() {
        out.merge(type_validate(s, path, data, kind));
        out.inc();
    }
}

/// The string, format and number validators.
#[inline(never)]
fn value_checks(s: &OaSchema, path: &GoPath, data: &Json, kind: Kind, out: &mut OaResult) {
    if let Json::String(text) = data {
        out.merge(string_validate(s, path, text));
        out.inc();
        if s.rare().format_checker.is_some() {
            out.merge(format_validate(s, path, text));
            out.inc();
        }
    }
    if kind == Kind::Int || kind == Kind::Float {
        if let Some(n) = GoNum::of(data) {
            out.merge(number_validate(s, path, n));
            out.inc();
        }
    }
}

#[inline(never)]
fn common_check(s: &OaSchema, path: &GoPath, data: &Json, out: &mut OaResult) {
    out.merge(common_validate(s, path, data));
    out.inc();
}

/// The validator for a property or item: a ratcheting one when the old value correlates.
fn child(
    s: &OaSchema,
    path: &GoPath,
    data: &Json,
    corr: Option<Corr<'_>>,
    depth: usize,
    out: &mut OaResult,
) {
    match corr {
        Some(c) => out.merge(ratcheting::validate_ratcheting(s, path, data, c, depth + 1)),
        None => validate_into(s, path, data, None, depth + 1, out),
    }
}

fn type_validate_null(s: &OaSchema, path: &GoPath) -> OaResult {
    let mut r = OaResult::default();
    if !s.types.is_empty() && !s.types.iter().any(|t| t == "null") && !s.nullable {
        return OaResult::with_error(invalid_type(path, &s.types.join(","), "null"));
    }
    r.inc();
    r
}

fn type_validate(s: &OaSchema, path: &GoPath, data: &Json, kind: Kind) -> OaResult {
    let mut r = OaResult::default();
    r.inc();
    let (sch_type, format) = match kind {
        Kind::Bool => ("boolean", ""),
        Kind::String => ("string", ""),
        Kind::Int => ("integer", "int64"),
        Kind::Float => ("number", "float64"),
        Kind::Slice => ("array", ""),
        Kind::Map => ("object", ""),
    };
    let contains = |t: &str| s.types.iter().any(|x| x == t);
    let is_float_int = kind == Kind::Float
        && GoNum::of(data).is_some_and(|n| is_float64_a_json_integer(n.as_f64()))
        && contains("integer");
    let is_int_float = kind == Kind::Int && contains("number");
    if kind != Kind::String
        && kind != Kind::Slice
        && !s.rare().format.is_empty()
        && !(contains(sch_type) || format == s.rare().format || is_float_int || is_int_float)
    {
        return OaResult::with_error(invalid_type(path, &s.rare().format, format));
    }
    if !(contains("number") || contains("integer") || s.rare().format.is_empty())
        && (kind == Kind::String || kind == Kind::Slice)
    {
        return r;
    }
    if !(contains(sch_type) || is_float_int || is_int_float) {
        return OaResult::with_error(invalid_type(path, &s.types.join(","), sch_type));
    }
    r
}

fn plain(message: String) -> OaError {
    OaError::Plain(message)
}

fn schema_props_validate(
    s: &OaSchema,
    path: &GoPath,
    data: &Json,
    depth: usize,
    main: &mut OaResult,
) {
    let mut keep_any = OaResult::default();
    let mut keep_one = OaResult::default();
    let mut keep_all = OaResult::default();
    let quoted = go_quote(&path.text);
    let sub = |x: &OaSchema| validate(x, path, data, None, depth + 1);

    if !s.rare().any_of.is_empty() {
        let mut best: Option<OaResult> = None;
        let mut first_success: Option<OaResult> = None;
        let mut succeeded = false;
        for x in &s.rare().any_of {
            let r = sub(x);
            keep_any.merge(r.keep_relevant());
            if r.is_valid() {
                best = None;
                succeeded = true;
                if first_success.is_none() {
                    first_success = Some(r);
                }
                keep_any = OaResult::default();
                break;
            }
            if best.as_ref().is_none_or(|b| r.match_count > b.match_count) {
                best = Some(r);
            }
        }
        if !succeeded {
            main.add_error(plain(format!(
                "{quoted} must validate at least one schema (anyOf)"
            )));
        }
        if let Some(b) = best {
            main.merge(b);
        } else if let Some(f) = first_success {
            main.merge(f);
        }
    }

    if !s.rare().one_of.is_empty() {
        let mut best: Option<OaResult> = None;
        let mut first_success: Option<OaResult> = None;
        let mut validated = 0;
        for x in &s.rare().one_of {
            let r = sub(x);
            keep_one.merge(r.keep_relevant());
            if r.is_valid() {
                validated += 1;
                best = None;
                if first_success.is_none() {
                    first_success = Some(r);
                }
                keep_one = OaResult::default();
                continue;
            }
            if validated == 0 && best.as_ref().is_none_or(|b| r.match_count > b.match_count) {
                best = Some(r);
            }
        }
        if validated != 1 {
            let additional = if validated == 0 {
                "Found none valid".to_owned()
            } else {
                format!("Found {validated} valid alternatives")
            };
            main.add_error(plain(format!(
                "{quoted} must validate one and only one schema (oneOf). {additional}"
            )));
            if let Some(b) = best {
                main.merge(b);
            }
        } else if let Some(f) = first_success {
            main.merge(f);
        }
    }

    if !s.rare().all_of.is_empty() {
        let mut validated = 0;
        for x in &s.rare().all_of {
            let r = sub(x);
            keep_all.merge(r.keep_relevant());
            if r.is_valid() {
                validated += 1;
            }
            main.merge(r);
        }
        if validated != s.rare().all_of.len() {
            let additional = if validated == 0 {
                ". None validated"
            } else {
                ""
            };
            main.add_error(plain(format!(
                "{quoted} must validate all the schemas (allOf){additional}"
            )));
        }
    }

    if let Some(not) = &s.rare().not {
        if sub(not).is_valid() {
            main.add_error(plain(format!(
                "{quoted} must not validate the schema (not)"
            )));
        }
    }

    if let Json::Object(map) = data {
        if !s.rare().dependencies.is_empty() {
            for key in map.keys() {
                match s.rare().dependencies.get(key) {
                    Some(Dependency::Schema(dep)) => {
                        let p = GoPath {
                            text: format!("{}.{key}", path.text),
                            field: path.field.key_field(key),
                        };
                        validate_into(dep, &p, data, None, depth + 1, main);
                    }
                    Some(Dependency::Properties(names)) => {
                        for dep_key in names {
                            if !map.contains_key(dep_key) {
                                main.add_error(plain(format!(
                                    "{quoted} has a dependency on {dep_key}"
                                )));
                            }
                        }
                    }
                    None => {}
                }
            }
        }
    }

    main.inc();
    main.merge(keep_all);
    main.merge(keep_one);
    main.merge(keep_any);
}

fn string_validate(s: &OaSchema, path: &GoPath, data: &str) -> OaResult {
    let len = data.chars().count() as i64;
    let value = || Json::String(data.to_owned());
    if let Some(max) = s.limits().max_length {
        if len > max {
            let mut e = validation(
                Code::TooLong,
                path,
                value(),
                format!("{} in {IN} should be at most {max} chars long", path.text),
            );
            if let OaError::Validation(v) = &mut e {
                v.valid = Some(max);
            }
            return OaResult::with_error(e);
        }
    }
    if let Some(min) = s.limits().min_length {
        if len < min {
            let mut e = validation(
                Code::TooShort,
                path,
                value(),
                format!("{} in {IN} should be at least {min} chars long", path.text),
            );
            if let OaError::Validation(v) = &mut e {
                v.valid = Some(min);
            }
            return OaResult::with_error(e);
        }
    }
    if let Some(p) = &s.pattern {
        let shown = match p.compiled() {
            Err(e) => Some(format!("{}, but pattern is invalid: {e}", p.text)),
            Ok(re) => match re.is_match(data) {
                Some(false) => Some(p.text.clone()),
                Some(true) => None,
                // Cannot be evaluated here: counted, and the analysis says so.
                None => {
                    p.note_unevaluated();
                    None
                }
            },
        };
        if let Some(shown) = shown {
            return OaResult::with_error(validation(
                Code::Pattern,
                path,
                value(),
                format!("{} in {IN} should match '{shown}'", path.text),
            ));
        }
    }
    OaResult::default()
}

fn format_validate(s: &OaSchema, path: &GoPath, data: &str) -> OaResult {
    match &s.rare().format_checker {
        Some(c) if !c.validates(data) => {
            OaResult::with_error(invalid_type(path, &s.rare().format, data))
        }
        _ => OaResult::default(),
    }
}

/// The type and format the number validator checks against: only for a single `integer`
/// (int32/int64) or `number` (float/double) type.
fn number_type(s: &OaSchema) -> (&'static str, &'static str) {
    if s.types.len() != 1 {
        return ("", "");
    }
    match s.types.first().map(|t| &**t) {
        Some("integer") => (
            "integer",
            match s.rare().format.as_str() {
                "int32" => "int32",
                "int64" => "int64",
                _ => "",
            },
        ),
        Some("number") => (
            "number",
            match s.rare().format.as_str() {
                "float" => "float",
                "double" => "double",
                _ => "",
            },
        ),
        _ => ("", ""),
    }
}

/// `IsValueValidAgainstRange`: `Err(message)` when the value does not fit the type/format.
fn value_in_range(
    v: GoNum,
    type_name: &str,
    format: &str,
    prefix: &str,
    path: &str,
) -> Result<(), String> {
    let rep = match v {
        GoNum::Int(i) => i.to_string(),
        GoNum::Float(f) => format_float_f(f),
    };
    let ok = match type_name {
        "integer" => match format {
            "int32" => rep.parse::<i32>().is_ok(),
            "uint32" => rep.parse::<u32>().is_ok(),
            "uint64" => rep.parse::<u64>().is_ok(),
            _ => rep.parse::<i64>().is_ok(),
        },
        _ => match format {
            "float" | "float32" => rep.parse::<f32>().is_ok_and(f32::is_finite),
            _ => true,
        },
    };
    if ok {
        Ok(())
    } else if !format.is_empty() {
        Err(format!(
            "{prefix} value must be of type {type_name} with format {format} in {path}"
        ))
    } else {
        Err(format!(
            "{prefix} value must be of type {type_name} (default format) in {path}"
        ))
    }
}

fn number_validate(s: &OaSchema, path: &GoPath, val: GoNum) -> OaResult {
    let (type_name, format) = number_type(s);
    let data = val.as_f64();
    let mut res = OaResult::default();
    let mut res_multiple = OaResult::default();
    let mut res_minimum = OaResult::default();
    let mut res_maximum = OaResult::default();
    let value = val.to_json();
    let p = &path.text;

    if let Err(m) = value_in_range(val, type_name, format, "Checked", p) {
        res.add_error(plain(m));
    }

    if let Some(factor) = s.limits().multiple_of {
        match value_in_range(GoNum::Float(factor), type_name, format, "MultipleOf", p) {
            Ok(()) => {
                if let Some(e) = multiple_of_native(path, val, factor) {
                    res_multiple.add_error(e);
                }
            }
            Err(m) => {
                res_multiple.add_error(plain(m));
                if let Some(e) = multiple_of_float(path, data, factor) {
                    res_multiple.add_error(e);
                }
            }
        }
    }

    if let Some(max) = s.limits().maximum {
        let excl = s.limits().exclusive_maximum;
        let fails = |d: GoNum, m: GoNum| match (d, m) {
            (GoNum::Int(d), GoNum::Int(m)) => (!excl && d > m) || (excl && d >= m),
            _ => {
                let (d, m) = (d.as_f64(), m.as_f64());
                (!excl && d > m) || (excl && d >= m)
            }
        };
        let (d, m) =
            match value_in_range(GoNum::Float(max), type_name, format, "Maximum boundary", p) {
                Ok(()) => match val {
                    GoNum::Int(i) => (GoNum::Int(i), GoNum::Int(f64_to_i64(max))),
                    GoNum::Float(f) => (GoNum::Float(f), GoNum::Float(max)),
                },
                Err(msg) => {
                    res_maximum.add_error(plain(msg));
                    (GoNum::Float(data), GoNum::Float(max))
                }
            };
        if fails(d, m) {
            let word = if excl {
                "less than"
            } else {
                "less than or equal to"
            };
            res_maximum.add_error(validation(
                Code::Max,
                path,
                d.to_json(),
                format!("{p} in {IN} should be {word} {}", num_v(m)),
            ));
        }
    }

    if let Some(min) = s.limits().minimum {
        let excl = s.limits().exclusive_minimum;
        let fails = |d: GoNum, m: GoNum| match (d, m) {
            (GoNum::Int(d), GoNum::Int(m)) => (!excl && d < m) || (excl && d <= m),
            _ => {
                let (d, m) = (d.as_f64(), m.as_f64());
                (!excl && d < m) || (excl && d <= m)
            }
        };
        let (d, m) =
            match value_in_range(GoNum::Float(min), type_name, format, "Minimum boundary", p) {
                Ok(()) => match val {
                    GoNum::Int(i) => (GoNum::Int(i), GoNum::Int(f64_to_i64(min))),
                    GoNum::Float(f) => (GoNum::Float(f), GoNum::Float(min)),
                },
                Err(msg) => {
                    res_minimum.add_error(plain(msg));
                    (GoNum::Float(data), GoNum::Float(min))
                }
            };
        if fails(d, m) {
            let word = if excl {
                "greater than"
            } else {
                "greater than or equal to"
            };
            res_minimum.add_error(validation(
                Code::Min,
                path,
                d.to_json(),
                format!("{p} in {IN} should be {word} {}", num_v(m)),
            ));
        }
    }

    let _ = value;
    res.merge(res_multiple);
    res.merge(res_minimum);
    res.merge(res_maximum);
    res.inc();
    res
}

/// `MultipleOfNativeType`.
fn multiple_of_native(path: &GoPath, val: GoNum, factor: f64) -> Option<OaError> {
    match val {
        GoNum::Int(data) => {
            let f = f64_to_i64(factor);
            if f <= 0 {
                return Some(must_be_positive(path, GoNum::Int(f)));
            }
            let mult = data.wrapping_div(f);
            if mult.wrapping_mul(f) != data {
                return Some(not_multiple(path, GoNum::Int(f), GoNum::Int(data)));
            }
            None
        }
        GoNum::Float(data) => multiple_of_float(path, data, factor),
    }
}

/// `MultipleOf` on float64 values.
fn multiple_of_float(path: &GoPath, data: f64, factor: f64) -> Option<OaError> {
    if factor <= 0.0 {
        return Some(must_be_positive(path, GoNum::Float(factor)));
    }
    let mult = if factor < 1.0 {
        1.0 / factor * data
    } else {
        data / factor
    };
    if !is_float64_a_json_integer(mult) {
        return Some(not_multiple(path, GoNum::Float(factor), GoNum::Float(data)));
    }
    None
}

fn must_be_positive(path: &GoPath, factor: GoNum) -> OaError {
    validation(
        Code::MultipleOfMustBePositive,
        path,
        factor.to_json(),
        format!(
            "factor MultipleOf declared for {} must be positive: {}",
            path.text,
            num_v(factor)
        ),
    )
}

fn not_multiple(path: &GoPath, factor: GoNum, data: GoNum) -> OaError {
    validation(
        Code::MultipleOf,
        path,
        data.to_json(),
        format!(
            "{} in {IN} should be a multiple of {}",
            path.text,
            num_v(factor)
        ),
    )
}

fn slice_validate(
    s: &OaSchema,
    path: &GoPath,
    items: &[Json],
    corr: Option<Corr<'_>>,
    depth: usize,
    result: &mut OaResult,
) {
    let size = items.len();
    let index_corr = ratcheting::IndexCorrelation::new(corr, items);
    match &s.items {
        Some(Items::Schema(item_schema)) => {
            for (i, item) in items.iter().enumerate() {
                let c = index_corr.as_ref().and_then(|ic| ic.child(i, item));
                child(item_schema, &path.index(i), item, c, depth, result);
            }
        }
        Some(Items::Array(schemas)) => {
            for (i, (item_schema, item)) in schemas.iter().zip(items.iter()).enumerate() {
                // A tuple has no single items schema to correlate with.
                child(item_schema, &path.index(i), item, None, depth, result);
            }
        }
        None => {}
    }
    let items_size = match &s.items {
        Some(Items::Array(schemas)) if !schemas.is_empty() => schemas.len(),
        _ => 0,
    };
    if let Some(ai) = &s.rare().additional_items {
        if items_size < size {
            if matches!(&s.items, Some(Items::Array(a)) if !a.is_empty()) && !ai.allows {
                result.add_error(plain("array doesn't allow for additional items".into()));
            }
            if let Some(schema) = &ai.schema {
                // kube-openapi's bound, kept within the slice.
                let end = (size + 1).saturating_sub(items_size).min(size);
                for (i, item) in items.iter().enumerate().take(end).skip(items_size) {
                    let c = index_corr.as_ref().and_then(|ic| ic.child(i, item));
                    child(schema, &path.index(i), item, c, depth, result);
                }
            }
        }
    }
    if let Some(min) = s.limits().min_items {
        if (size as i64) < min {
            let mut e = validation(
                Code::MinItems,
                path,
                Json::from(size as i64),
                format!("{} in {IN} should have at least {min} items", path.text),
            );
            if let OaError::Validation(v) = &mut e {
                v.valid = Some(min);
            }
            result.add_error(e);
        }
    }
    if let Some(max) = s.limits().max_items {
        if (size as i64) > max {
            let mut e = validation(
                Code::MaxItems,
                path,
                Json::from(size as i64),
                format!("{} in {IN} should have at most {max} items", path.text),
            );
            if let OaError::Validation(v) = &mut e {
                v.valid = Some(max);
            }
            result.add_error(e);
        }
    }
    if s.unique_items && has_duplicates(items) {
        result.add_error(validation(
            Code::Unique,
            path,
            Json::Null,
            format!("{} in {IN} shouldn't contain duplicates", path.text),
        ));
    }
    result.inc();
}

fn has_duplicates(items: &[Json]) -> bool {
    for (i, a) in items.iter().enumerate() {
        for b in items.iter().take(i) {
            if deep_equal(a, b) {
                return true;
            }
        }
    }
    false
}

/// Whether `data` equals an enum value under Go's rules: `reflect.DeepEqual` after
/// converting `data` to the enum value's type when Go can (an int64 converts to float64, and
/// to string as a rune).
fn enum_matches(data: &Json, e: &Json) -> bool {
    if deep_equal(data, e) {
        return true;
    }
    match (e, data) {
        (Json::Number(_), Json::Number(_)) => match (GoNum::of(e), GoNum::of(data)) {
            (Some(GoNum::Float(ef)), Some(d)) => d.as_f64() == ef,
            (Some(GoNum::Int(ei)), Some(GoNum::Float(df))) => f64_to_i64(df) == ei,
            _ => false,
        },
        (Json::String(es), Json::Number(_)) => match GoNum::of(data) {
            Some(GoNum::Int(i)) => {
                // reflect's int-to-string conversion: the rune, or U+FFFD when out of range.
                let r = i32::try_from(i)
                    .ok()
                    .and_then(|r| u32::try_from(r).ok())
                    .and_then(char::from_u32)
                    .unwrap_or('\u{FFFD}');
                es.chars().eq(std::iter::once(r))
            }
            _ => false,
        },
        _ => false,
    }
}

fn common_validate(s: &OaSchema, path: &GoPath, data: &Json) -> OaResult {
    if s.rare().enum_.is_empty() {
        return OaResult::default();
    }
    if !data.is_null()
        && s.rare()
            .enum_
            .iter()
            .any(|e| !e.is_null() && enum_matches(data, e))
    {
        return OaResult::default();
    }
    let mut e = validation(
        Code::Enum,
        path,
        data.clone(),
        format!(
            "{} in {IN} should be one of {}",
            path.text,
            enum_v(&s.rare().enum_)
        ),
    );
    if let OaError::Validation(v) = &mut e {
        v.values = s.rare().enum_.clone();
    }
    OaResult::with_error(e)
}

/// `%v` of `[]interface{}` holding decoded JSON values (only in the unused enum message).
fn enum_v(values: &[Json]) -> String {
    let parts: Vec<String> = values
        .iter()
        .map(|v| match v {
            Json::String(s) => s.clone(),
            Json::Null => "<nil>".into(),
            other => match GoNum::of(other) {
                Some(n) => num_v(n),
                None => crd_studio_gostd::json::marshal(other),
            },
        })
        .collect();
    format!("[{}]", parts.join(" "))
}

fn pattern_matches(p: &super::schema::Pattern, key: &str) -> bool {
    // An invalid pattern never matches.
    match p.compiled() {
        Err(_) => false,
        Ok(r) => r.is_match(key).unwrap_or_else(|| {
            p.note_unevaluated();
            false
        }),
    }
}

fn object_validate(
    s: &OaSchema,
    path: &GoPath,
    map: &serde_json::Map<String, Json>,
    corr: Option<Corr<'_>>,
    depth: usize,
    res: &mut OaResult,
) {
    property_count_checks(s, path, map, res);

    // The child correlation for a key (only at a ratcheting node).
    let key_corr = |key: &str| -> Option<Corr<'_>> {
        let c = corr?;
        if path.text.is_empty() && (key == "kind" || key == "apiVersion") {
            return None;
        }
        c.key(map, key)
    };

    let ap = s.additional_properties.as_ref();
    if ap.is_some_and(|a| !a.allows) {
        unallowed_property_checks(s, path, map, res);
    } else {
        for (key, value) in map {
            let regular = s.properties.contains_key(key);
            let matched = validate_pattern_properties(s, path, key, value, &key_corr, depth, res);
            if !(regular || matched) {
                if let Some(schema) = ap.and_then(|a| a.schema.as_deref()) {
                    child(schema, &path.dotted(key), value, key_corr(key), depth, res);
                }
            }
        }
    }

    for (name, prop) in s.properties.iter() {
        if let Some(v) = map.get(name) {
            child(prop, &path.property(name), v, key_corr(name), depth, res);
        }
    }

    required_checks(s, path, map, res);

    if !s.rare().pattern_properties.is_empty() {
        for (key, value) in map {
            let regular = s.properties.contains_key(key);
            let matched = validate_pattern_properties(s, path, key, value, &key_corr, depth, res);
            if !regular && matched {
                for (_, re, schema) in &s.rare().pattern_properties {
                    if pattern_matches(re, key) {
                        child(schema, &path.dotted(key), value, key_corr(key), depth, res);
                    }
                }
            }
        }
    }
}

#[inline(never)]
fn property_count_checks(
    s: &OaSchema,
    path: &GoPath,
    map: &serde_json::Map<String, Json>,
    res: &mut OaResult,
) {
    let num_keys = map.len() as i64;
    if let Some(min) = s.limits().min_properties {
        if num_keys < min {
            let mut e = validation(
                Code::TooFewProperties,
                path,
                Json::from(num_keys),
                format!(
                    "{} in {IN} should have at least {min} properties",
                    path.text
                ),
            );
            if let OaError::Validation(v) = &mut e {
                v.valid = Some(min);
            }
            res.add_error(e);
        }
    }
    if let Some(max) = s.limits().max_properties {
        if num_keys > max {
            let mut e = validation(
                Code::TooManyProperties,
                path,
                Json::from(num_keys),
                format!("{} in {IN} should have at most {max} properties", path.text),
            );
            if let OaError::Validation(v) = &mut e {
                v.valid = Some(max);
            }
            res.add_error(e);
        }
    }
}

/// `additionalProperties: false`: keys that are neither properties nor pattern matches.
#[inline(never)]
fn unallowed_property_checks(
    s: &OaSchema,
    path: &GoPath,
    map: &serde_json::Map<String, Json>,
    res: &mut OaResult,
) {
    for key in map.keys() {
        let regular = s.properties.contains_key(key);
        let matched = s
            .rare()
            .pattern_properties
            .iter()
            .any(|(_, re, _)| pattern_matches(re, key));
        if !regular && !matched {
            res.add_error(validation(
                Code::UnallowedProperty,
                path,
                Json::String(key.clone()),
                format!("{}.{key} in {IN} is a forbidden property", path.text),
            ));
        }
    }
}

#[inline(never)]
fn required_checks(
    s: &OaSchema,
    path: &GoPath,
    map: &serde_json::Map<String, Json>,
    res: &mut OaResult,
) {
    for k in &s.rare().required {
        if !map.contains_key(k) {
            let p = path.dotted(k);
            res.add_error(validation(
                Code::Required,
                &p,
                Json::Null,
                format!("{} in {IN} is required", p.text),
            ));
        }
    }
}

/// `validatePatternProperty`: validates `value` against every matching pattern property,
/// merging into `res`; whether any matched.
fn validate_pattern_properties<'a>(
    s: &OaSchema,
    path: &GoPath,
    key: &str,
    value: &Json,
    key_corr: &dyn Fn(&str) -> Option<Corr<'a>>,
    depth: usize,
    res: &mut OaResult,
) -> bool {
    let mut matched = false;
    for (_, re, schema) in &s.rare().pattern_properties {
        if pattern_matches(re, key) {
            matched = true;
            child(schema, &path.dotted(key), value, key_corr(key), depth, res);
        }
    }
    matched
}
