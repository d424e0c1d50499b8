//! `crd-studio get CRD OBJECT... [-o wide] [--no-headers] [--now RFC3339]`: the objects as
//! `kubectl get -f OBJECT...` prints them once they are stored.
//!
//! Each object is read in its own version; the API server builds its row from that version's
//! columns (the implicit NAME, then the CRD's `additionalPrinterColumns`, or AGE when none
//! are declared) and kubectl prints the rows through its tab writer. The engine computes the
//! rows and the text; this module reads files and picks the clock.
//!
//! The API server sets `metadata.creationTimestamp` when it creates an object: an object that
//! has none is shown as created at `--now` (AGE `0s`); an object that has one (copied from a
//! cluster, say) keeps it. Ages are computed against `--now`, by default the current time.

use std::io::{self, Write};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use crd_studio_engine::{
    kubectl_get_list, kubectl_get_objects, CompiledCrd, FieldValidation, KubernetesVersion,
    Options, PrintOptions, Severity, SourceId, Span, Time,
};

use super::{read_input, Error};
use crate::args::{self, Arg, CommandLine};

const USAGE: &str = "\
usage: crd-studio get CRD OBJECT... [-o wide] [--no-headers] [--now RFC3339]
                      [--field-selector SELECTOR] [--field-validation MODE]

Prints custom objects as `kubectl get -f OBJECT...` prints them once the API server has
stored them: the table the server builds for each object in its version (NAME, then the
CRD's additionalPrinterColumns, or AGE when it declares none), aligned as kubectl aligns it.
Objects without metadata.creationTimestamp are shown as created at --now, as the server sets
it on create.

options:
  -o wide                    also the columns with a priority above 0
  --no-headers               no header line
  --now RFC3339              the time ages are computed against (default: the current time)
  --field-selector SELECTOR  list the stored objects as `kubectl get <plural>.<group>
                             --field-selector SELECTOR` lists them: one table in the
                             preferred version, only the objects the selector keeps, or
                             kubectl's No resources found message, or the server's error
  --field-validation MODE    Strict (default), Warn or Ignore: unknown and duplicate fields
  --kubernetes-version V     the Kubernetes minor to model (1.30 to 1.37, default 1.37)
  -h, --help                 print this help

exit status: 0 when every object would be stored, 1 when the server would reject or not
serve one (reported on standard error; a rejected object's row is still printed, as if it
had been stored), 2 on usage or I/O errors.";

/// A parsed `get` command line.
struct Args {
    crd: String,
    objects: Vec<String>,
    wide: bool,
    no_headers: bool,
    now: Option<String>,
    field_validation: FieldValidation,
    field_selector: Option<String>,
    kubernetes_version: KubernetesVersion,
}

fn parse(args: &[String]) -> Result<Args, Error> {
    let usage = |m: String| Err(Error::Usage(m));
    let mut positional = Vec::new();
    let mut wide = false;
    let mut no_headers = false;
    let mut now = None;
    let mut field_validation = FieldValidation::Strict;
    let mut field_selector = None;
    let mut kubernetes_version = Options::default().kubernetes_version;
    let mut line = CommandLine::new(args);
    while let Some(arg) = line.next_arg() {
        let (name, inline) = match arg {
            Arg::File(f) => {
                positional.push(f);
                continue;
            }
            // kubectl's `-owide`.
            Arg::Opt(n, None) if n.starts_with("-o") && n.len() > 2 && !n.starts_with("--") => {
                ("-o".to_owned(), n.get(2..).map(str::to_owned))
            }
            Arg::Opt(n, i) => (n, i),
        };
        if name == "--no-headers" && inline.is_none() {
            no_headers = true;
            continue;
        }
        let mut value = || line.value(&name, inline.clone());
        match name.as_str() {
            "-o" | "--output" => match value()?.as_str() {
                "wide" => wide = true,
                other => {
                    return usage(format!(
                        "unsupported output format `{other}` (get prints tables: -o wide)"
                    ))
                }
            },
            "--now" => now = Some(value()?),
            "--field-selector" => field_selector = Some(value()?),
            "--kubernetes-version" => kubernetes_version = args::kubernetes_version(&value()?)?,
            "--field-validation" => field_validation = args::field_validation(&value()?)?,
            other => return Err(args::unknown(other)),
        }
    }
    let mut positional = positional.into_iter();
    let Some(crd) = positional.next() else {
        return usage("get needs a CRD file and at least one object file".into());
    };
    let objects: Vec<String> = positional.collect();
    if objects.is_empty() {
        return usage("get needs at least one object file".into());
    }
    Ok(Args {
        crd,
        objects,
        wide,
        no_headers,
        now,
        field_validation,
        field_selector,
        kubernetes_version,
    })
}

/// The current time, as the clock `kubectl` reads.
pub(crate) fn system_now() -> Time {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    Time {
        unix: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        nanos: d.subsec_nanos(),
    }
}

/// Runs `get` (the arguments after the command name).
pub(crate) fn run(args: &[String]) -> Result<ExitCode, Error> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    let args = parse(args)?;
    let now = match &args.now {
        Some(text) => Time::parse_rfc3339(text).map_err(|e| Error::Usage(format!("--now: {e}")))?,
        None => system_now(),
    };
    let mut stdin_used = false;
    let crd = read_input(&args.crd, &mut stdin_used)?;
    let objects = args
        .objects
        .iter()
        .map(|p| read_input(p, &mut stdin_used))
        .collect::<Result<Vec<_>, _>>()?;
    let options = Options {
        field_validation: args.field_validation,
        now: Some(now),
        kubernetes_version: args.kubernetes_version,
        ..Options::default()
    };
    let compiled = CompiledCrd::compile(&crd.text, &options);
    let mut err = String::new();
    let mut failed = false;
    for f in compiled.findings() {
        if f.severity == Severity::Error {
            let place = f
                .location
                .filter(|l| l.source == SourceId::Crd)
                .map(|l| format!("{}:{}:{}", crd.name, l.span.start.line, l.span.start.column))
                .unwrap_or_else(|| crd.name.clone());
            err.push_str(&format!("{place}: error: {}\n", f.message));
            failed = true;
        }
    }
    if failed {
        err.push_str(&format!(
            "error: the API server would not create the CustomResourceDefinition in {}\n",
            crd.name
        ));
        eprint!("{err}");
        return Ok(ExitCode::from(1));
    }
    let texts: Vec<String> = objects.iter().map(|o| o.text.clone()).collect();
    let analysis = compiled.analyze_objects(&texts, None);
    let namespaced = compiled.facts().is_some_and(|c| c.namespaced);
    let place = |source: usize, document: usize| {
        let file = objects.get(source).map_or("<object>", |o| o.name.as_str());
        format!("{file}: document {document}")
    };
    let place_at = |source: usize, document: usize, span: Option<Span>| match span {
        Some(s) => {
            let file = objects.get(source).map_or("<object>", |o| o.name.as_str());
            format!("{file}:{}:{}", s.start.line, s.start.column)
        }
        None => place(source, document),
    };
    // A text that does not parse has no object: say why instead of "No resources found".
    for f in analysis
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
    {
        let Some(l) = f.location else { continue };
        let SourceId::Object(i) = l.source else {
            continue;
        };
        let has_report = analysis
            .objects
            .iter()
            .any(|o| o.source == i && o.document == l.document);
        if !has_report {
            err.push_str(&format!(
                "{}: error: {}\n",
                place_at(i, l.document, Some(l.span)),
                f.message
            ));
            failed = true;
        }
    }
    let options = PrintOptions {
        wide: args.wide,
        no_headers: args.no_headers,
    };
    if let Some(selector) = &args.field_selector {
        let list = kubectl_get_list(&compiled, &analysis, selector, now, options);
        for (source, document, why) in &list.preview.left_out {
            err.push_str(&format!(
                "note: {}: not listed: {why}\n",
                place(*source, *document)
            ));
        }
        err.push_str(&list.stderr);
        // Exit 1, as without a selector, when the server would reject or not serve one.
        if list.preview.selection.error.is_some()
            || analysis
                .objects
                .iter()
                .any(|o| o.object_error.is_some() || !o.accepted)
        {
            failed = true;
        }
        eprint!("{err}");
        let mut stdout = io::stdout().lock();
        let _ = stdout
            .write_all(list.text.as_bytes())
            .and_then(|()| stdout.flush());
        return Ok(if failed {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        });
    }
    let got = kubectl_get_objects(&compiled, &analysis, now, options);
    for report in &analysis.objects {
        if !got.rows_of.contains(&(report.source, report.document)) {
            continue;
        }
        if report.object_error.is_none() && !report.accepted {
            let why = report
                .errors
                .first()
                .map(|e| e.error.clone())
                .or_else(|| report.decode_error.clone())
                .unwrap_or_else(|| "rejected".to_owned());
            err.push_str(&format!(
                "warning: {}: the API server would reject this object ({why}); its row shows it as if it were stored\n",
                place(report.source, report.document)
            ));
            failed = true;
        }
    }
    for l in &got.left_out {
        err.push_str(&format!(
            "{}: error: {}\n",
            place_at(l.source, l.document, l.span),
            l.reason
        ));
        failed = true;
    }
    let out = got.text;
    if out.is_empty() && !failed {
        err.push_str(if namespaced {
            "No resources found in default namespace.\n"
        } else {
            "No resources found\n"
        });
    }
    eprint!("{err}");
    let mut stdout = io::stdout().lock();
    // A closed pipe (`| head`) is not an error.
    let _ = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush());
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
