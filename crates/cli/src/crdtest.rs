//! `crd-studio test [PATH...]`: runs the cases of `*.crdtest.yaml` files (directories and
//! globs searched for them) through the engine, every case at every Kubernetes version in
//! parallel, and reports the failed expectations (`--format text|json|junit|github|sarif`).
//! `--update` writes the current result as the `expect` of the cases marked `snapshot: true`
//! and prints each change.
//!
//! The engine reads the test files and checks the expectations (`TestSuite`, `check_case`,
//! `check_crd`): the places reported are its places in the test file. This module reads the
//! files a suite names, calls the engine and writes the report.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;
use std::rc::Rc;

use rayon::prelude::*;
use serde::Serialize;

use crd_studio_engine::{
    analyze, check_case, check_crd, snapshot_expect, CompiledCrd, FieldValidation,
    KubernetesVersion, Options, Request, Span, TestFailure, TestSource, TestSuite,
};

use crate::repo::{discover, github, junit, versions};
use crate::{args, sarif, Error};

/// The usage of `crd-studio test`.
pub(crate) const USAGE: &str = "\
usage: crd-studio test [PATH...] [options]

Runs the cases of *.crdtest.yaml files (PATH: files, directories searched for
*.crdtest.yaml and *.crdtest.yml, globs; default: the current directory).

options:
  --format text|json|junit|github|sarif   the report (default text)
  --kubernetes-version V     one version, a list or range (1.30..1.37, all): every case
                             runs at each; default: the file's kubernetesVersions, else 1.37
  --field-validation MODE    Strict, Warn or Ignore, for files that name none (default Strict)
  --update                   write the current result as the expect of cases marked
                             `snapshot: true`, printing every change
Exit status: 0 when every case passes, 1 when one fails, 2 on a usage or read error.";

/// The report formats.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Format {
    Text,
    Json,
    Junit,
    Github,
    Sarif,
}

/// One test file, read with the texts it names.
pub(crate) struct Loaded {
    /// The name it is shown under.
    name: String,
    text: String,
    pub(crate) suite: TestSuite,
    /// The CRD's text, or why it could not be read.
    pub(crate) crd: Result<String, String>,
    /// Per case: object, old object, old CRD texts (or why one could not be read).
    cases: Vec<[Option<Result<String, String>>; 3]>,
    /// The versions its cases run at, oldest first.
    pub(crate) versions: Vec<KubernetesVersion>,
    pub(crate) field_validation: FieldValidation,
}

/// What a unit of work is about.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Target {
    /// The suite's reading problems and its CRD expectations.
    Crd,
    /// A case.
    Case(usize),
}

/// The result of one unit: a case (or the CRD) at one version.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Outcome {
    file: String,
    /// The case's name (`crd` for the CRD's expectations).
    pub(crate) case: String,
    pub(crate) version: String,
    /// Where the case is.
    line: usize,
    column: usize,
    pub(crate) failures: Vec<TestFailure>,
    #[serde(skip)]
    index: (usize, Option<usize>),
    /// `--update`'s expectations for a snapshot case.
    #[serde(skip)]
    snapshot: Option<serde_json::Value>,
}

/// Runs `crd-studio test`.
pub(crate) fn run(rest: &[String]) -> Result<ExitCode, Error> {
    let mut paths = Vec::new();
    let mut format = Format::Text;
    let mut version_override = None;
    let mut field_validation = FieldValidation::Strict;
    let mut update = false;
    let mut line = args::CommandLine::new(rest);
    while let Some((name, inline)) = line.next_option(&mut paths) {
        match name.as_str() {
            "--help" | "-h" => {
                println!("{USAGE}");
                return Ok(ExitCode::SUCCESS);
            }
            "--format" => {
                format = match line.value(&name, inline)?.as_str() {
                    "text" => Format::Text,
                    "json" => Format::Json,
                    "junit" => Format::Junit,
                    "github" => Format::Github,
                    "sarif" => Format::Sarif,
                    other => {
                        return Err(Error::Usage(format!(
                            "unknown format `{other}` (text, json, junit, github or sarif)"
                        )))
                    }
                }
            }
            "--kubernetes-version" => {
                version_override = Some(versions::parse_list(&line.value(&name, inline)?)?)
            }
            "--field-validation" => {
                field_validation = args::field_validation(&line.value(&name, inline)?)?
            }
            "--update" => update = true,
            other => return Err(args::unknown(other)),
        }
    }
    if paths.is_empty() {
        paths.push(".".to_owned());
    }
    let mut names = Vec::new();
    for p in &paths {
        names.extend(discover::expand_keeping(p, &is_test_file)?);
    }
    names.sort();
    names.dedup();
    if names.is_empty() {
        return Err(Error::Io(format!(
            "no *.crdtest.yaml file in {}",
            paths.join(", ")
        )));
    }
    let mut loaded = Vec::with_capacity(names.len());
    for name in names {
        let text = std::fs::read_to_string(&name).map_err(|e| Error::Io(format!("{name}: {e}")))?;
        loaded.push(load(
            name,
            text,
            version_override.as_deref(),
            field_validation,
        ));
    }
    let mut outcomes = run_all(&loaded, update);
    let mut failed = outcomes.iter().any(|o| !o.failures.is_empty());
    if update {
        let (changed, pending) = write_snapshots(&loaded, &outcomes)?;
        for c in &changed {
            eprintln!("{c}");
        }
        for o in outcomes.iter_mut().filter(|o| o.snapshot.is_some()) {
            o.failures.clear();
        }
        failed = pending;
    }
    let out = match format {
        Format::Text => text(&outcomes, update),
        Format::Json => json(&outcomes),
        Format::Junit => junit_report(&outcomes),
        Format::Github => github_report(&outcomes),
        Format::Sarif => sarif_report(&outcomes),
    };
    print!("{out}");
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Whether a file name is a test file's.
pub(crate) fn is_test_file(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".crdtest.yaml") || lower.ends_with(".crdtest.yml")
}

/// Reads a source relative to the test file's folder.
fn resolve(base: &Path, source: &TestSource) -> Result<String, String> {
    match source {
        TestSource::Inline(text) => Ok(text.clone()),
        TestSource::Path(p) => {
            let path = base.join(p);
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
        }
    }
}

fn load(
    name: String,
    text: String,
    version_override: Option<&[KubernetesVersion]>,
    field_validation: FieldValidation,
) -> Loaded {
    let base = Path::new(&name)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let versions = version_override.map_or_else(
        || vec![Options::default().kubernetes_version],
        <[KubernetesVersion]>::to_vec,
    );
    let from_file = version_override.is_none();
    load_with(
        name,
        text,
        &|s| resolve(&base, s),
        (versions, from_file),
        field_validation,
    )
}

/// A test file read with the texts it names (`read` gives each source's text): the CLI reads
/// them from disk, the language server from its workspace. `versions`: the versions to run
/// at, and whether the file's `kubernetesVersions` wins over them.
pub(crate) fn load_with(
    name: String,
    text: String,
    read: &dyn Fn(&TestSource) -> Result<String, String>,
    (versions, from_file): (Vec<KubernetesVersion>, bool),
    field_validation: FieldValidation,
) -> Loaded {
    let suite = TestSuite::read(&text);
    let crd = suite
        .crd
        .as_ref()
        .map_or_else(|| Err("no CRD".to_owned()), read);
    let cases = suite
        .cases
        .iter()
        .map(|c| [&c.object, &c.old_object, &c.old_crd].map(|s| s.as_ref().map(read)))
        .collect();
    let versions = if from_file && !suite.kubernetes_versions.is_empty() {
        suite.kubernetes_versions.clone()
    } else {
        versions
    };
    let field_validation = suite.field_validation.unwrap_or(field_validation);
    Loaded {
        name,
        text,
        suite,
        crd,
        cases,
        versions,
        field_validation,
    }
}

thread_local! {
    /// Each thread's compiled CRDs by file and version (a `CompiledCrd` stays on its thread):
    /// a CRD is compiled at most once per thread and version, however rayon splits the work.
    /// One run per process, so the indices name the same files throughout.
    static COMPILED: RefCell<HashMap<(usize, usize), Rc<CompiledCrd>>> = RefCell::new(HashMap::new());
}

/// Every unit, in parallel; each thread compiles a suite's CRD once per version.
fn run_all(loaded: &[Loaded], update: bool) -> Vec<Outcome> {
    let mut units = Vec::new();
    for (f, l) in loaded.iter().enumerate() {
        for v in 0..l.versions.len() {
            units.push((f, v, Target::Crd));
            for c in 0..l.suite.cases.len() {
                units.push((f, v, Target::Case(c)));
            }
        }
    }
    let mut outcomes: Vec<Outcome> = units
        .par_iter()
        .map(|&(f, v, target)| {
            let l = loaded.get(f)?;
            let compiled = |crd: &str| {
                COMPILED.with(|cache| {
                    let mut cache = cache.borrow_mut();
                    let entry = cache.entry((f, v));
                    Rc::clone(entry.or_insert_with(|| {
                        let mut c = CompiledCrd::compile(crd, &options(l, v));
                        // Rules that name a time zone evaluate as `check` evaluates them.
                        c.set_time_zones(Some(crate::repo::run::time_zones()));
                        Rc::new(c)
                    }))
                })
            };
            Some(run_unit(l, f, v, target, update, &compiled))
        })
        .flatten()
        .collect();
    outcomes.retain(|o| !o.case.is_empty());
    outcomes
}

/// Every unit of one test file, in order, on this thread: `compiled` gives the CRD compiled at
/// version index `v` (the caller's cache).
pub(crate) fn run_suite(
    l: &Loaded,
    compiled: &dyn Fn(usize, &str) -> Rc<CompiledCrd>,
) -> Vec<Outcome> {
    let mut out = Vec::new();
    for v in 0..l.versions.len() {
        let targets =
            std::iter::once(Target::Crd).chain((0..l.suite.cases.len()).map(Target::Case));
        for target in targets {
            out.push(run_unit(l, 0, v, target, false, &|crd| compiled(v, crd)));
        }
    }
    out.retain(|o| !o.case.is_empty());
    out
}

/// The engine's options for version index `v` of a test file.
pub(crate) fn options(l: &Loaded, v: usize) -> Options {
    Options {
        field_validation: l.field_validation,
        kubernetes_version: l.versions.get(v).copied().unwrap_or_default(),
        ..Options::default()
    }
}

fn failure(expectation: &str, expected: &str, got: String, place: Span) -> TestFailure {
    TestFailure {
        expectation: expectation.to_owned(),
        expected: expected.to_owned(),
        got,
        place,
    }
}

fn run_unit(
    l: &Loaded,
    f: usize,
    v: usize,
    target: Target,
    update: bool,
    compiled: &dyn Fn(&str) -> Rc<CompiledCrd>,
) -> Outcome {
    let version = l.versions.get(v).map(|v| v.to_string()).unwrap_or_default();
    let mut outcome = Outcome {
        file: l.name.clone(),
        case: String::new(),
        version,
        line: 1,
        column: 1,
        failures: Vec::new(),
        index: (f, None),
        snapshot: None,
    };
    if target == Target::Crd {
        // The file's own problems and its CRD expectations, once per version.
        outcome.failures = l
            .suite
            .problems
            .iter()
            .map(|p| failure("test file", "a valid test file", p.message.clone(), p.place))
            .collect();
    }
    let crd = match &l.crd {
        Ok(crd) => crd,
        Err(e) => {
            if target == Target::Crd {
                outcome.case = "crd".into();
                if l.suite.crd.is_some() {
                    let place = l.suite.crd_place;
                    outcome
                        .failures
                        .push(failure("crd", "a readable CRD", e.clone(), place));
                }
            }
            return outcome;
        }
    };
    let Target::Case(c) = target else {
        let analysis = compiled(crd).analyze_objects(&[], None);
        match &l.suite.crd_expect {
            Some(x) => outcome.failures.extend(check_crd(x, &analysis)),
            None if !analysis.crd.accepted => outcome.failures.push(failure(
                "crd",
                "accepted (the CRD serves the cases' objects)",
                analysis
                    .crd
                    .errors
                    .first()
                    .map_or_else(|| "rejected".into(), |e| e.error.clone()),
                l.suite.crd_place,
            )),
            None => {}
        }
        if l.suite.crd_expect.is_some() || !outcome.failures.is_empty() {
            outcome.case = "crd".into();
        }
        return outcome;
    };
    let (Some(case), Some(texts)) = (l.suite.cases.get(c), l.cases.get(c)) else {
        return outcome;
    };
    outcome.case = if case.name.is_empty() {
        format!("case {}", c + 1)
    } else {
        case.name.clone()
    };
    outcome.index = (f, Some(c));
    outcome.line = case.place.start.line;
    outcome.column = case.place.start.column;
    let mut read = |i: usize| match texts.get(i).cloned().flatten() {
        None => None,
        Some(Ok(t)) => Some(t),
        Some(Err(e)) => {
            outcome.failures.push(failure(
                ["object", "oldObject", "oldCrd"]
                    .get(i)
                    .copied()
                    .unwrap_or(""),
                "a readable file",
                e,
                case.place,
            ));
            None
        }
    };
    let (object, old_object, old_crd) = (read(0), read(1), read(2));
    let Some(object) = object else {
        return outcome;
    };
    let objects = [object];
    let analysis = match &old_crd {
        Some(old_crd) => analyze(&Request {
            crd: crd.clone(),
            objects: objects.to_vec(),
            old_object,
            old_crd: Some(old_crd.clone()),
            options: options(l, v),
        }),
        None => compiled(crd).analyze_objects(&objects, old_object.as_deref()),
    };
    let [report] = analysis.objects.as_slice() else {
        let first_error = analysis
            .findings
            .iter()
            .find(|x| x.severity == crd_studio_engine::Severity::Error)
            .map(|x| format!(": {}", x.message))
            .unwrap_or_default();
        outcome.failures.push(failure(
            "object",
            "one object of the CRD",
            format!("{} objects{first_error}", analysis.objects.len()),
            case.place,
        ));
        return outcome;
    };
    outcome.failures.extend(check_case(case, report));
    // The newest version's result is the snapshot; older versions are checked against it.
    if update && case.snapshot && v + 1 == l.versions.len() {
        outcome.snapshot = Some(snapshot_expect(report));
    }
    outcome
}

// ------------------------------------------------------------------------------------------
// --update
// ------------------------------------------------------------------------------------------

/// Writes the snapshots (the newest version's result of each `snapshot: true` case); returns
/// the lines saying what changed, and whether anything else failed (older versions of a
/// snapshot case are checked against the expectations as they were).
fn write_snapshots(loaded: &[Loaded], outcomes: &[Outcome]) -> Result<(Vec<String>, bool), Error> {
    let mut lines = Vec::new();
    let mut pending = false;
    for (f, l) in loaded.iter().enumerate() {
        // (byte range replaced, new text, case name), the newest version's.
        let mut edits: Vec<(std::ops::Range<usize>, String, String)> = Vec::new();
        for o in outcomes.iter().filter(|o| o.index.0 == f) {
            let case = o.index.1.and_then(|c| l.suite.cases.get(c));
            let Some((case, value)) = case.zip(o.snapshot.as_ref()) else {
                pending |= !o.failures.is_empty();
                continue;
            };
            let (range, indent) = match (&case.expect_range, case.first_key) {
                (Some(r), Some((_, col))) => (r.clone(), col.saturating_sub(1)),
                (None, Some((at, col))) => (at..at, col.saturating_sub(1)),
                _ => continue,
            };
            let mut new = format!("expect:{}", block_yaml(value, indent + 2));
            if range.is_empty() {
                new.push('\n');
                new.push_str(&" ".repeat(indent));
            }
            edits.push((range, new, o.case.clone()));
        }
        edits.sort_by_key(|(r, _, _)| std::cmp::Reverse(r.start));
        let mut text = l.text.clone();
        for (range, new, name) in &edits {
            let old = text.get(range.clone()).unwrap_or_default().to_owned();
            if old == *new {
                continue;
            }
            lines.push(format!("{}: updated case {name:?}", l.name));
            for line in old.lines() {
                lines.push(format!("  - {line}"));
            }
            for line in new.trim_end().lines() {
                lines.push(format!("  + {line}"));
            }
            text.replace_range(range.clone(), new);
        }
        if text != l.text {
            std::fs::write(&l.name, &text).map_err(|e| Error::Io(format!("{}: {e}", l.name)))?;
        }
    }
    Ok((lines, pending))
}

/// The order `--update` writes an expectation's keys in (others after them).
const KEY_ORDER: [&str; 5] = ["verdict", "errors", "warnings", "path", "message"];

/// A scalar as YAML: plain when YAML (1.1 and 1.2) reads it back as the same string, else
/// quoted as JSON.
fn scalar(v: &serde_json::Value) -> String {
    if let serde_json::Value::String(s) = v {
        let plain = s.starts_with(|c: char| c.is_ascii_alphabetic())
            && !s.ends_with(' ')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '.' | '_' | '/' | '-'))
            && !["y", "n", "yes", "no", "on", "off", "true", "false", "null"]
                .iter()
                .any(|w| s.eq_ignore_ascii_case(w));
        if plain {
            return s.clone();
        }
    }
    serde_json::to_string(v).unwrap_or_default()
}

/// A JSON value as a YAML block at `indent` (starting with a line break; strings quoted as
/// JSON, which YAML reads the same).
fn block_yaml(value: &serde_json::Value, indent: usize) -> String {
    let pad = " ".repeat(indent);
    match value {
        serde_json::Value::Object(m) if !m.is_empty() => {
            let mut entries: Vec<_> = m.iter().collect();
            entries.sort_by_key(|(k, _)| KEY_ORDER.iter().position(|o| o == k));
            entries
                .into_iter()
                .map(|(k, v)| format!("\n{pad}{k}:{}", nested(v, indent)))
                .collect()
        }
        serde_json::Value::Array(a) if !a.is_empty() => a
            .iter()
            .map(|v| match v {
                serde_json::Value::Object(m) if !m.is_empty() => {
                    let inner = block_yaml(v, indent + 2);
                    format!("\n{pad}- {}", inner.trim_start())
                }
                v => format!("\n{pad}- {}", scalar(v)),
            })
            .collect(),
        v => format!(" {}", scalar(v)),
    }
}

fn nested(v: &serde_json::Value, indent: usize) -> String {
    match v {
        serde_json::Value::Object(m) if !m.is_empty() => block_yaml(v, indent + 2),
        serde_json::Value::Array(a) if !a.is_empty() => block_yaml(v, indent),
        v => block_yaml(v, indent),
    }
}

// ------------------------------------------------------------------------------------------
// Reports
// ------------------------------------------------------------------------------------------

fn title(o: &Outcome, several_versions: bool) -> String {
    if several_versions {
        format!("{} [{}]", o.case, o.version)
    } else {
        o.case.clone()
    }
}

fn several_versions(outcomes: &[Outcome]) -> bool {
    outcomes.windows(2).any(|w| match w {
        [a, b] => a.version != b.version,
        _ => false,
    })
}

fn failure_line(o: &Outcome, x: &TestFailure) -> String {
    format!(
        "{}:{}:{}: {}: expected {}, got {}",
        o.file,
        x.place.start.line.max(1),
        x.place.start.column.max(1),
        x.expectation,
        x.expected,
        x.got
    )
}

fn text(outcomes: &[Outcome], update: bool) -> String {
    let several = several_versions(outcomes);
    let mut out = String::new();
    let mut file = "";
    for o in outcomes {
        if o.file != file {
            file = &o.file;
            out.push_str(&format!("{file}\n"));
        }
        let mark = if update && o.snapshot.is_some() {
            "snap"
        } else if o.failures.is_empty() {
            "ok  "
        } else {
            "FAIL"
        };
        out.push_str(&format!("  {mark} {}\n", title(o, several)));
        for x in &o.failures {
            out.push_str(&format!(
                "       {}:{}:{} {}\n         expected: {}\n         got:      {}\n",
                o.file,
                x.place.start.line.max(1),
                x.place.start.column.max(1),
                x.expectation,
                x.expected,
                x.got.replace('\n', "\n                   ")
            ));
        }
    }
    let failed = outcomes.iter().filter(|o| !o.failures.is_empty()).count();
    out.push_str(&format!(
        "{} passed, {failed} failed\n",
        outcomes.len() - failed
    ));
    out
}

fn json(outcomes: &[Outcome]) -> String {
    let failed = outcomes.iter().filter(|o| !o.failures.is_empty()).count();
    let doc = serde_json::json!({
        "passed": outcomes.len() - failed,
        "failed": failed,
        "cases": outcomes,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

fn junit_report(outcomes: &[Outcome]) -> String {
    let several = several_versions(outcomes);
    let mut files: Vec<&str> = outcomes.iter().map(|o| o.file.as_str()).collect();
    files.dedup();
    let failed_total = outcomes.iter().filter(|o| !o.failures.is_empty()).count();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"crd-studio test\" tests=\"{}\" failures=\"{failed_total}\">\n",
        outcomes.len()
    );
    for file in files {
        let these: Vec<&Outcome> = outcomes.iter().filter(|o| o.file == file).collect();
        let failed = these.iter().filter(|o| !o.failures.is_empty()).count();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\" skipped=\"0\">\n",
            junit::escape(file),
            these.len()
        ));
        for o in these {
            let name = junit::escape(&title(o, several));
            if o.failures.is_empty() {
                out.push_str(&format!(
                    "    <testcase name=\"{name}\" classname=\"{}\"/>\n",
                    junit::escape(file)
                ));
                continue;
            }
            let body: Vec<String> = o.failures.iter().map(|x| failure_line(o, x)).collect();
            out.push_str(&format!(
                "    <testcase name=\"{name}\" classname=\"{}\">\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                junit::escape(file),
                junit::escape(&format!("{} expectation(s) failed", o.failures.len())),
                junit::escape(&body.join("\n"))
            ));
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn github_report(outcomes: &[Outcome]) -> String {
    let several = several_versions(outcomes);
    let mut out = String::new();
    for o in outcomes {
        for x in &o.failures {
            out.push_str(&format!(
                "::error file={},line={},col={},title={}::{}\n",
                github::escape_property(&o.file),
                x.place.start.line.max(1),
                x.place.start.column.max(1),
                github::escape_property(&format!("{}: {}", title(o, several), x.expectation)),
                github::escape_data(&format!("expected {}, got {}", x.expected, x.got))
            ));
        }
    }
    let failed = outcomes.iter().filter(|o| !o.failures.is_empty()).count();
    out.push_str(&format!(
        "{} passed, {failed} failed\n",
        outcomes.len() - failed
    ));
    out
}

fn sarif_report(outcomes: &[Outcome]) -> String {
    let several = several_versions(outcomes);
    let mut b = sarif::Builder::default();
    for o in outcomes {
        for x in &o.failures {
            let span = (x.place.start.line > 0).then_some(x.place);
            b.add(
                "crd-test.failed",
                sarif::Level::Error,
                format!(
                    "{}: {}: expected {}, got {}",
                    title(o, several),
                    x.expectation,
                    x.expected,
                    x.got
                ),
                Some(sarif::Place {
                    file: &o.file,
                    span,
                    label: None,
                }),
                Vec::new(),
            );
        }
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_yaml_reads_back() {
        let cases = [
            serde_json::json!({"verdict": "accepted"}),
            serde_json::json!({"verdict": "rejected", "errors": [{"path": "spec", "message": "a: \"b\""}], "warnings": ["w"]}),
        ];
        for v in cases {
            let text = format!("expect:{}\n", block_yaml(&v, 2));
            let docs = crd_studio_engine::read_documents(&text, crd_studio_engine::SourceId::Crd);
            assert_eq!(docs.findings, vec![], "{text}");
            assert_eq!(docs.values[0].1["expect"], v, "{text}");
        }
    }
}
