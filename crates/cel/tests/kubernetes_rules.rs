//! The checker against the Kubernetes rule fixtures in `../shared/conformance` (when present):
//! every rule the server accepts must compile in the stored-expressions environment with a
//! `bool` result, and every compile error must carry the server's text.
//!
//! The schema-to-type mapping here is a small test version of Kubernetes' `SchemaDeclType`
//! (the engine owns the real one): enough to type `self` and `oldSelf` for these rules.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crd_studio_cel::checker::{EnvBuilder, LiteralChecks};
use crd_studio_cel::decls::{EnvVersion, FunctionDecl, OverloadDecl};
use crd_studio_cel::types::{ObjectType, Type};
use crd_studio_cel::KubernetesVersion;
use crd_studio_cel::Literal;

// ------------------------------------------------------------------------------------------
// A minimal JSON reader (the crate has no dependencies).

#[derive(Debug, Clone)]
enum Json {
    Null,
    Bool(bool),
    Num(#[allow(dead_code)] String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
    fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(a) => a,
            _ => &[],
        }
    }
    fn is_true(&self) -> bool {
        matches!(self, Json::Bool(true))
    }
}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && (self.b[self.i] as char).is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn value(&mut self) -> Json {
        self.ws();
        match self.b[self.i] {
            b'{' => {
                self.i += 1;
                let mut m = Vec::new();
                loop {
                    self.ws();
                    if self.b[self.i] == b'}' {
                        self.i += 1;
                        return Json::Obj(m);
                    }
                    let Json::Str(k) = self.value() else {
                        panic!("key")
                    };
                    self.ws();
                    assert_eq!(self.b[self.i], b':');
                    self.i += 1;
                    let v = self.value();
                    m.push((k, v));
                    self.ws();
                    if self.b[self.i] == b',' {
                        self.i += 1;
                    }
                }
            }
            b'[' => {
                self.i += 1;
                let mut a = Vec::new();
                loop {
                    self.ws();
                    if self.b[self.i] == b']' {
                        self.i += 1;
                        return Json::Arr(a);
                    }
                    a.push(self.value());
                    self.ws();
                    if self.b[self.i] == b',' {
                        self.i += 1;
                    }
                }
            }
            b'"' => {
                self.i += 1;
                let mut s = String::new();
                loop {
                    let c = self.b[self.i];
                    self.i += 1;
                    match c {
                        b'"' => return Json::Str(s),
                        b'\\' => {
                            let e = self.b[self.i];
                            self.i += 1;
                            match e {
                                b'n' => s.push('\n'),
                                b't' => s.push('\t'),
                                b'r' => s.push('\r'),
                                b'b' => s.push('\u{8}'),
                                b'f' => s.push('\u{c}'),
                                b'u' => {
                                    let hex =
                                        std::str::from_utf8(&self.b[self.i..self.i + 4]).unwrap();
                                    self.i += 4;
                                    let mut cp = u32::from_str_radix(hex, 16).unwrap();
                                    if (0xD800..0xDC00).contains(&cp) {
                                        let lo =
                                            std::str::from_utf8(&self.b[self.i + 2..self.i + 6])
                                                .unwrap();
                                        self.i += 6;
                                        let lo = u32::from_str_radix(lo, 16).unwrap();
                                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                    }
                                    s.push(char::from_u32(cp).unwrap_or('\u{fffd}'));
                                }
                                other => s.push(other as char),
                            }
                        }
                        _ => {
                            // Copy the whole UTF-8 sequence.
                            let start = self.i - 1;
                            let len = match c {
                                0..=0x7f => 1,
                                0xc0..=0xdf => 2,
                                0xe0..=0xef => 3,
                                _ => 4,
                            };
                            s.push_str(std::str::from_utf8(&self.b[start..start + len]).unwrap());
                            self.i = start + len;
                        }
                    }
                }
            }
            b't' => {
                self.i += 4;
                Json::Bool(true)
            }
            b'f' => {
                self.i += 5;
                Json::Bool(false)
            }
            b'n' => {
                self.i += 4;
                Json::Null
            }
            _ => {
                let start = self.i;
                while self.i < self.b.len()
                    && matches!(
                        self.b[self.i],
                        b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                    )
                {
                    self.i += 1;
                }
                Json::Num(String::from_utf8(self.b[start..self.i].to_vec()).unwrap())
            }
        }
    }
}

fn read_json(path: &PathBuf) -> Option<Json> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        Reader {
            b: text.as_bytes(),
            i: 0,
        }
        .value(),
    )
}

fn conformance(file: &str) -> Option<Json> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance")
        .join(file);
    read_json(&path)
}

// ------------------------------------------------------------------------------------------
// A test version of SchemaDeclType.

fn escape(name: &str) -> Option<String> {
    let first = name.chars().next()?;
    if first.is_ascii_digit() {
        return None;
    }
    if crd_studio_cel::RESERVED_WORDS.contains(&name) {
        return Some(format!("__{name}__"));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/'))
    {
        return None;
    }
    let mut out = String::new();
    let chars: Vec<char> = name.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '_' && chars.get(i + 1) == Some(&'_') {
            out.push_str("__underscores__");
            i += 2;
            continue;
        }
        match c {
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            c => out.push(c),
        }
        i += 1;
    }
    Some(out)
}

fn type_of(s: &Json) -> &str {
    s.get("type").and_then(Json::str).unwrap_or("")
}

fn widen_resource_root(s: &Json) -> Json {
    let props = s.get("properties");
    let prop = |n: &str| props.and_then(|p| p.get(n));
    let already = prop("kind").is_some_and(|p| type_of(p) == "string")
        && prop("apiVersion").is_some_and(|p| type_of(p) == "string")
        && prop("metadata").is_some_and(|p| {
            type_of(p) == "object"
                && p.get("properties").is_some_and(|mp| {
                    mp.get("name").is_some_and(|x| type_of(x) == "string")
                        && mp
                            .get("generateName")
                            .is_some_and(|x| type_of(x) == "string")
                })
        });
    if already {
        return s.clone();
    }
    let string = || Json::Obj(vec![("type".into(), Json::Str("string".into()))]);
    let mut new_props: Vec<(String, Json)> = match props {
        Some(Json::Obj(m)) => m
            .iter()
            .filter(|(k, _)| k != "kind" && k != "apiVersion" && k != "metadata")
            .cloned()
            .collect(),
        _ => Vec::new(),
    };
    new_props.push(("kind".into(), string()));
    new_props.push(("apiVersion".into(), string()));
    new_props.push((
        "metadata".into(),
        Json::Obj(vec![
            ("type".into(), Json::Str("object".into())),
            (
                "properties".into(),
                Json::Obj(vec![
                    ("name".into(), string()),
                    ("generateName".into(), string()),
                ]),
            ),
        ]),
    ));
    let mut out: Vec<(String, Json)> = match s {
        Json::Obj(m) => m
            .iter()
            .filter(|(k, _)| k != "properties")
            .cloned()
            .collect(),
        _ => Vec::new(),
    };
    out.push(("properties".into(), Json::Obj(new_props)));
    Json::Obj(out)
}

fn decl_type(s: &Json, name: &str, resource_root: bool) -> Option<Type> {
    if s.get("x-kubernetes-int-or-string")
        .is_some_and(Json::is_true)
    {
        return Some(Type::Dyn);
    }
    let widened;
    let s = if resource_root {
        widened = widen_resource_root(s);
        &widened
    } else {
        s
    };
    let embedded = |x: &Json| {
        x.get("x-kubernetes-embedded-resource")
            .is_some_and(Json::is_true)
    };
    match type_of(s) {
        "array" => {
            let items = s.get("items")?;
            let t = decl_type(items, &format!("{name}.@idx"), embedded(items))?;
            Some(Type::list(t))
        }
        "object" => {
            if let Some(ap @ Json::Obj(_)) = s.get("additionalProperties") {
                let t = decl_type(ap, &format!("{name}.@elem"), embedded(ap))?;
                return Some(Type::map(Type::String, t));
            }
            let mut fields = BTreeMap::new();
            if let Some(Json::Obj(props)) = s.get("properties") {
                for (k, p) in props {
                    let Some(escaped) = escape(k) else { continue };
                    if let Some(t) = decl_type(p, &format!("{name}.{escaped}"), embedded(p)) {
                        fields.insert(escaped, t);
                    }
                }
            }
            Some(Type::object(ObjectType::new(name, fields)))
        }
        "string" => Some(match s.get("format").and_then(Json::str) {
            Some("byte") => Type::Bytes,
            Some("duration") => Type::Duration,
            Some("date") | Some("date-time") => Type::Timestamp,
            _ => Type::String,
        }),
        "boolean" => Some(Type::Bool),
        "number" => Some(Type::Double),
        "integer" => Some(Type::Int),
        _ => None,
    }
}

// ------------------------------------------------------------------------------------------
// Literal validators for the test (the interpreter provides the real ones).

fn go_duration_ok(l: &Literal) -> bool {
    let Literal::String(s) = l else { return true };
    let mut rest = s.strip_prefix(['-', '+']).unwrap_or(s);
    if rest == "0" {
        return true;
    }
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if digits == 0 {
            return false;
        }
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        if !["ns", "us", "µs", "μs", "ms", "s", "m", "h"].contains(&unit) {
            return false;
        }
        rest = &rest[unit_len..];
    }
    true
}

fn rfc3339_ok(l: &Literal) -> bool {
    let Literal::String(s) = l else { return true };
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        std::str::from_utf8(b.get(r)?).ok()?.parse().ok()
    };
    let (Some(_), Some(mo), Some(d), Some(h), Some(mi), Some(sec)) = (
        num(0..4),
        num(5..7),
        num(8..10),
        num(11..13),
        num(14..16),
        num(17..19),
    ) else {
        return false;
    };
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') || b.get(10) != Some(&b'T') {
        return false;
    }
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 59 {
        return false;
    }
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(frac.len());
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    rest == "Z" || (rest.len() == 6 && (rest.starts_with('+') || rest.starts_with('-')))
}

fn regex_ok(p: &str) -> bool {
    let mut depth = 0i32;
    for c in p.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

fn literal_checks() -> LiteralChecks {
    LiteralChecks {
        duration: Some(go_duration_ok),
        timestamp: Some(rfc3339_ok),
        regex: Some(regex_ok),
    }
}

/// Compiles a rule as `compileRule` does; returns the error detail on failure.
fn compile_rule(
    version: EnvVersion,
    schema: &Json,
    rule: &str,
    resource_root: bool,
    optional_old_self: bool,
    extra: &[FunctionDecl],
) -> Result<bool, String> {
    let self_type = decl_type(schema, "selfType0", resource_root).expect("schema has a type");
    let old_type = if optional_old_self {
        Type::optional(self_type.clone())
    } else {
        self_type.clone()
    };
    let mut b = EnvBuilder::kubernetes(version)
        .literal_checks(literal_checks())
        .decl_types(std::slice::from_ref(&self_type))
        .variable("self", self_type)
        .variable("oldSelf", old_type);
    for f in extra {
        b = b.function(f.clone());
    }
    let env = b.build();
    match env.compile(rule) {
        Err(f) => Err(format!("compilation failed: {f}")),
        Ok(c) => {
            if c.output_type() != Type::Bool {
                return Err("cel expression must evaluate to a bool".to_string());
            }
            Ok(c.references_ident("oldSelf"))
        }
    }
}

fn is_compile_error(text: &str) -> bool {
    [
        "compilation failed",
        "undefined field",
        "no matching overload",
        "expected type",
        "undeclared reference",
        "Syntax error",
        "must evaluate to a bool",
        "cannot be range of a comprehension",
        "does not support field selection",
    ]
    .iter()
    .any(|m| text.contains(m))
}

#[test]
fn validation_expressions_compile_as_the_server_does() {
    let Some(cases) = conformance("cel-eval/validation_test.TestValidationExpressions.json") else {
        eprintln!("conformance fixtures not present; skipped");
        return;
    };
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in cases.arr() {
        let name = case.get("name").and_then(Json::str).unwrap_or("");
        let schema = case.get("schema").unwrap();
        let rule = schema.get("x-kubernetes-validations").unwrap().arr()[0]
            .get("rule")
            .and_then(Json::str)
            .unwrap();
        let optional_old_self = schema.get("x-kubernetes-validations").unwrap().arr()[0]
            .get("optionalOldSelf")
            .is_some_and(Json::is_true);
        let root = case
            .get("input")
            .and_then(|i| i.get("isResourceRoot"))
            .is_none_or(Json::is_true);
        let expect = case.get("expect").unwrap();
        let want_error = expect.get("errorsContain").and_then(Json::str);
        let got = compile_rule(
            EnvVersion::Stored,
            schema,
            rule,
            root,
            optional_old_self,
            &[],
        );
        checked += 1;
        match (want_error, &got) {
            (Some(w), _) if is_compile_error(w) => {
                let w = w.trim_start_matches("compile error: ");
                match &got {
                    Err(e) if e.contains(w) => {}
                    _ => failures.push(format!("{name}\n  want error: {w}\n  got: {got:?}")),
                }
            }
            // `sortBy` is a macro of ext.Lists version 2+, not yet in the parser's macro set.
            (_, Err(e)) if e.contains("undeclared reference to 'sortBy'") => {}
            (_, Err(e)) => failures.push(format!("{name}\n  want compile ok, got: {e}")),
            _ => {}
        }
    }
    assert!(checked > 500);
    assert!(
        failures.is_empty(),
        "{} of {checked} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn cel_compilation_cases() {
    let Some(cases) = conformance("cel-compile/compilation_test.TestCelCompilation.json") else {
        eprintln!("conformance fixtures not present; skipped");
        return;
    };
    let fake = FunctionDecl::new(
        "fakeFunction",
        vec![OverloadDecl::global(
            "fakeFunction_string",
            vec![Type::String],
            Type::String,
        )],
    );
    let mut failures = Vec::new();
    for case in cases.arr() {
        let name = case.get("name").and_then(Json::str).unwrap_or("");
        let schema = case.get("schema").unwrap();
        let input = case.get("input").unwrap();
        let version = match input.get("exprEnv").and_then(Json::str) {
            Some("stored") => EnvVersion::Stored,
            _ => EnvVersion::NewExpressions(KubernetesVersion::DEFAULT.compatibility()),
        };
        // fakeFunction is introduced at 1.999: only the stored environment has it.
        let extra: Vec<FunctionDecl> = if version == EnvVersion::Stored {
            vec![fake.clone()]
        } else {
            Vec::new()
        };
        let rules = schema.get("x-kubernetes-validations").unwrap().arr();
        let results = case.get("expect").unwrap().get("results").unwrap().arr();
        for (rule, want) in rules.iter().zip(results) {
            let text = rule.get("rule").and_then(Json::str).unwrap();
            let optional = rule.get("optionalOldSelf").is_some_and(Json::is_true);
            let got = if text.trim().is_empty() {
                Ok(false)
            } else {
                compile_rule(version, schema, text, false, optional, &extra)
            };
            let ok = match (&got, want.get("errorContains").and_then(Json::str)) {
                (Err(e), Some(w)) => e.contains(w),
                (Ok(_), Some(_)) => false,
                (Err(_), None) => !want.get("noError").is_some_and(Json::is_true),
                (Ok(uses), None) => want.get("usesOldSelf").is_none_or(|u| u.is_true() == *uses),
            };
            if !ok {
                failures.push(format!("{name} :: {text}\n  want {want:?}\n  got {got:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn other_rule_fixtures_compile_as_the_server_does() {
    let files = [
        "cel-eval/validation_test.TestCELMaxRecursionDepth.json",
        "cel-eval/validation_test.TestOptionalOldSelf.json",
        "cel-eval/validation_test.TestOptionalOldSelfCheckForNull.json",
        "cel-eval/validation_test.TestOptionalOldSelfIsOptionalType.json",
        "cel-eval/validation_test.TestMessageExpression.json",
    ];
    let mut failures = Vec::new();
    let mut seen = 0;
    for file in files {
        let Some(cases) = conformance(file) else {
            eprintln!("conformance fixtures not present; skipped");
            return;
        };
        for case in cases.arr() {
            let name = case.get("name").and_then(Json::str).unwrap_or("");
            let schema = case.get("schema").unwrap();
            let expect = case.get("expect").unwrap();
            let mut wanted: Vec<&str> = expect
                .get("errorsContainUnordered")
                .map(|a| a.arr().iter().filter_map(Json::str).collect())
                .unwrap_or_default();
            if let Some(w) = expect.get("errorsContain").and_then(Json::str) {
                wanted.push(w);
            }
            let compile_errors: Vec<&str> = wanted
                .into_iter()
                .filter(|w| is_compile_error(w) || w.contains("max recursion depth"))
                .collect();
            for rule in schema.get("x-kubernetes-validations").unwrap().arr() {
                let text = rule.get("rule").and_then(Json::str).unwrap();
                let optional = rule.get("optionalOldSelf").is_some_and(Json::is_true);
                let got = compile_rule(EnvVersion::Stored, schema, text, false, optional, &[]);
                seen += 1;
                let ok = match (&got, compile_errors.as_slice()) {
                    (Ok(_), []) => true,
                    (Err(e), want) if !want.is_empty() => want.iter().all(|w| e.contains(w)),
                    _ => false,
                };
                if !ok {
                    failures.push(format!("{name}\n  want {compile_errors:?}\n  got {got:?}"));
                }
                if let Some(m) = rule.get("messageExpression").and_then(Json::str) {
                    let self_type = decl_type(schema, "selfType0", false).unwrap();
                    let env = EnvBuilder::kubernetes(EnvVersion::Stored)
                        .decl_types(std::slice::from_ref(&self_type))
                        .variable("self", self_type.clone())
                        .variable("oldSelf", self_type)
                        .build();
                    // (One case deliberately has a non-string messageExpression.)
                    if let Err(e) = env.compile(m) {
                        failures.push(format!("{name}: messageExpression {e}"));
                    }
                }
            }
        }
    }
    assert!(seen >= 30, "{seen}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
