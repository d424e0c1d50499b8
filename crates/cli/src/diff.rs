//! `crd-studio diff OLD_CRD NEW_CRD [OBJECT...] [--format text|json|sarif]
//! [--fail-on breaking|risky|none] [--kubernetes-version X]`: the changes from a previous revision of a CRD to a new
//! one (the engine's `crd_diff`), each with its severity and its place in both files, and the
//! objects checked against the new revision.
//!
//! Text: one line per change, `file:line:col: severity: message [code]` (the new file's place,
//! or the old file's for a change only there), grouped by version, then the objects'
//! findings as `check` prints them and a summary; the update's verdict (the server validates
//! the new revision as an update of the old) with the errors that refuse it. Exit status: 1
//! when a change at or above the `--fail-on` threshold exists (default `breaking`), the update
//! is refused or the new CRD rejects an object (not with `--fail-on none`), 0 otherwise, 2 on
//! usage or I/O errors.

use std::io::{self, Write};
use std::process::ExitCode;

use crd_studio_engine::{
    analyze, diff_crds, is_crd_text, ChangeSeverity, CrdChange, KubernetesVersion, Options,
    Request, SourceId,
};
use serde_json::json;

use super::{read_input, Error, Input, Names};
use crate::args::{self, CommandLine, Format};
use crate::sarif;

const USAGE: &str = "\
usage: crd-studio diff OLD_CRD NEW_CRD [OBJECT ...] [--format text|json|sarif]
                       [--fail-on breaking|risky|none] [--kubernetes-version X]

Compares two revisions of a CustomResourceDefinition version by version and reports each
change with how bad it is: breaking (for every stored object or client: a removed field or
version, a type change, a scope change), risky (breaking for some objects: a tightened bound,
a new required field, a new CEL rule, a higher CEL cost) or compatible. Each change is located
in both files, and whether the API server accepts the new revision as an update of the old one
(the errors that refuse it, as `crd-studio check --old-crd` prints them). OBJECT files are
checked against the new revision as `crd-studio check` does.

options:
  --format text|json|sarif   output format (default text; sarif: SARIF 2.1.0, rule ids are
                             the change codes, breaking = error, risky = warning,
                             compatible = note)
  --fail-on breaking|risky|none
                             the severity from which a change fails the run (default
                             breaking)
  --kubernetes-version X     the Kubernetes minor the update goes to (1.30 to 1.37, default
                             1.37): its CEL environment compiles the rules whose costs are
                             compared, and the objects are checked as it checks them
  -h, --help                 print this help

exit status: 1 when a change at or above the --fail-on threshold exists, the server refuses
the update or the new CRD rejects an object (never with --fail-on none), 0 otherwise, 2 on
usage or I/O errors.";

/// A parsed `diff` command line.
struct Args {
    old: String,
    new: String,
    objects: Vec<String>,
    format: Format,
    fail_on: Option<ChangeSeverity>,
    kubernetes_version: KubernetesVersion,
}

fn parse(args: &[String]) -> Result<Args, Error> {
    let usage = |m: String| Err(Error::Usage(m));
    let mut positional = Vec::new();
    let (mut format, mut fail_on) = (Format::Text, Some(ChangeSeverity::Breaking));
    let mut kubernetes_version = Options::default().kubernetes_version;
    let mut line = CommandLine::new(args);
    while let Some((name, inline)) = line.next_option(&mut positional) {
        let mut value = || line.value(&name, inline.clone());
        match name.as_str() {
            "--format" => format = args::format(&value()?)?,
            "--fail-on" => {
                fail_on = match value()?.as_str() {
                    "breaking" => Some(ChangeSeverity::Breaking),
                    "risky" => Some(ChangeSeverity::Risky),
                    "none" => None,
                    other => {
                        return usage(format!(
                            "unknown --fail-on `{other}` (breaking, risky or none)"
                        ))
                    }
                }
            }
            "--kubernetes-version" => kubernetes_version = args::kubernetes_version(&value()?)?,
            other => return Err(args::unknown(other)),
        }
    }
    let mut positional = positional.into_iter();
    let (Some(old), Some(new)) = (positional.next(), positional.next()) else {
        return usage("`diff` needs the old and the new CRD files".into());
    };
    Ok(Args {
        old,
        new,
        objects: positional.collect(),
        format,
        fail_on,
        kubernetes_version,
    })
}

/// A finding as `file:line:col: severity: message`, as `check` prints it.
fn finding_line(f: &crd_studio_engine::Finding, names: &Names) -> String {
    let file = names.of_finding(f).1;
    let place = match f.location {
        Some(l) => format!("{file}:{}:{}", l.span.start.line, l.span.start.column),
        None => file.to_owned(),
    };
    format!("{place}: {}: {}\n", f.severity.as_str(), f.message)
}

fn severity_text(s: ChangeSeverity) -> &'static str {
    match s {
        ChangeSeverity::Breaking => "breaking",
        ChangeSeverity::Risky => "risky",
        ChangeSeverity::Compatible => "compatible",
    }
}

/// Runs `diff` (the arguments after the command name).
pub(crate) fn run(args: &[String]) -> Result<ExitCode, Error> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    let args = parse(args)?;
    let mut stdin_used = false;
    let old = read_input(&args.old, &mut stdin_used)?;
    let new = read_input(&args.new, &mut stdin_used)?;
    let objects = args
        .objects
        .iter()
        .map(|p| read_input(p, &mut stdin_used))
        .collect::<Result<Vec<Input>, _>>()?;
    for input in [&old, &new] {
        if !is_crd_text(&input.text) {
            eprintln!(
                "crd-studio: {}: no CustomResourceDefinition to compare",
                input.name
            );
            return Ok(ExitCode::from(2));
        }
    }
    let kube = args.kubernetes_version;
    let changes = diff_crds(&old.text, &new.text, kube);
    // The objects under the new revision, as `check` sees them, and as stored under the
    // previous one (`check --old-crd`'s stored-object effects).
    // Always analysed: the update's verdict (the server may refuse the new revision as an
    // update of the old one) comes from the CRD analysis.
    let mut full = analyze(&Request {
        crd: new.text.clone(),
        objects: objects.iter().map(|o| o.text.clone()).collect(),
        old_crd: Some(old.text.clone()),
        options: Options {
            kubernetes_version: args.kubernetes_version,
            ..Options::default()
        },
        ..Request::default()
    });
    // Where kubectl reads the files differently from their bytes.
    full.findings.extend(new.encoding_findings(SourceId::Crd));
    full.findings
        .extend(old.encoding_findings(SourceId::OldCrd));
    for (i, o) in objects.iter().enumerate() {
        full.findings
            .extend(o.encoding_findings(SourceId::Object(i)));
    }
    let update_rejected = !full.crd.accepted;
    let crd_findings: Vec<&crd_studio_engine::Finding> = full
        .findings
        .iter()
        .filter(|f| {
            f.location
                .is_some_and(|l| matches!(l.source, SourceId::Crd | SourceId::OldCrd))
                && f.severity != crd_studio_engine::Severity::Info
        })
        .collect();
    let analysis = (!objects.is_empty()).then_some(&full);
    let names = Names {
        crd: &new.name,
        objects: objects.iter().map(|o| o.name.as_str()).collect(),
        old: None,
        old_crd: Some(&old.name),
    };
    let object_findings: Vec<&crd_studio_engine::Finding> = analysis
        .iter()
        .flat_map(|a| a.findings.iter())
        .filter(|f| {
            f.location
                .is_some_and(|l| matches!(l.source, SourceId::Object(_)))
        })
        .collect();
    let objects_rejected = analysis
        .as_ref()
        .map(|a| a.objects.iter().filter(|o| !o.accepted).count())
        .unwrap_or(0);
    let failed = match args.fail_on {
        None => false,
        Some(threshold) => {
            changes.iter().any(|c| c.severity <= threshold)
                || objects_rejected > 0
                || update_rejected
        }
    };
    let file_of = |c: &CrdChange| match (c.new, c.old) {
        (Some(l), _) => (new.name.as_str(), Some(l)),
        (None, Some(l)) => (old.name.as_str(), Some(l)),
        (None, None) => (new.name.as_str(), None),
    };
    let count = |s: ChangeSeverity| changes.iter().filter(|c| c.severity == s).count();
    let out = match args.format {
        Format::Text => {
            let mut out = String::new();
            let mut groups: Vec<Option<&str>> = Vec::new();
            for c in &changes {
                if !groups.contains(&c.version.as_deref()) {
                    groups.push(c.version.as_deref());
                }
            }
            groups.sort_by_key(|g| g.is_some());
            for g in groups {
                match g {
                    None => out.push_str("CRD:\n"),
                    Some(v) => out.push_str(&format!("version {v}:\n")),
                }
                for c in changes.iter().filter(|c| c.version.as_deref() == g) {
                    let (file, loc) = file_of(c);
                    let place = match loc {
                        Some(l) => format!("{file}:{}:{}", l.span.start.line, l.span.start.column),
                        None => file.to_owned(),
                    };
                    // The previous revision's place, when the line shows the new one.
                    let was = match (c.new, c.old) {
                        (Some(_), Some(l)) => format!(
                            " (previously {}:{}:{})",
                            old.name, l.span.start.line, l.span.start.column
                        ),
                        _ => String::new(),
                    };
                    out.push_str(&format!(
                        "{place}: {}: {}{was} [{}]\n",
                        severity_text(c.severity),
                        c.message,
                        c.code
                    ));
                }
            }
            out.push_str(&format!(
                "update of {} to {}: {}\n",
                old.name,
                new.name,
                if update_rejected {
                    "rejected"
                } else {
                    "accepted"
                }
            ));
            for f in &crd_findings {
                out.push_str(&finding_line(f, &names));
            }
            if let Some(a) = &analysis {
                out.push_str(&format!("objects under {}:\n", new.name));
                for f in &object_findings {
                    out.push_str(&finding_line(f, &names));
                }
                out.push_str(&super::changes::effects_text(
                    a,
                    &new.name,
                    &old.name,
                    &names.objects,
                ));
                out.push_str(&format!(
                    "{} of {} objects rejected by the new revision\n",
                    objects_rejected,
                    a.objects.len()
                ));
            }
            out.push_str(&format!(
                "{}: {} changes: {} breaking, {} risky, {} compatible\n",
                if failed { "failed" } else { "ok" },
                changes.len(),
                count(ChangeSeverity::Breaking),
                count(ChangeSeverity::Risky),
                count(ChangeSeverity::Compatible),
            ));
            out
        }
        Format::Json => {
            let list: Vec<_> = changes
                .iter()
                .map(|c| {
                    let mut v = serde_json::to_value(c).unwrap_or_default();
                    if let Some(map) = v.as_object_mut() {
                        if c.old.is_some() {
                            map.insert("oldFile".into(), json!(old.name));
                        }
                        if c.new.is_some() {
                            map.insert("newFile".into(), json!(new.name));
                        }
                    }
                    v
                })
                .collect();
            let mut s = serde_json::to_string_pretty(&json!({
                "old": old.name,
                "new": new.name,
                "failOn": args.fail_on.map(severity_text).unwrap_or("none"),
                "failed": failed,
                "summary": {
                    "breaking": count(ChangeSeverity::Breaking),
                    "risky": count(ChangeSeverity::Risky),
                    "compatible": count(ChangeSeverity::Compatible),
                },
                "changes": list,
                "update": {
                    "accepted": !update_rejected,
                    "findings": crd_findings.iter().map(|f| super::finding_json(f, &names)).collect::<Vec<_>>(),
                },
                "objects": analysis.as_ref().map(|a| super::json_output(a, &names)["objects"].clone()),
                "storedEffects": analysis.as_ref().map(|a| {
                    super::changes::json_parts(a, &new.name, &old.name, &names.objects)["storedEffects"].clone()
                }),
            }))
            .map_err(|e| Error::Io(format!("cannot write JSON: {e}")))?;
            s.push('\n');
            s
        }
        Format::Sarif => {
            let mut b = sarif::Builder::default();
            for c in &changes {
                let level = match c.severity {
                    ChangeSeverity::Breaking => sarif::Level::Error,
                    ChangeSeverity::Risky => sarif::Level::Warning,
                    ChangeSeverity::Compatible => sarif::Level::Note,
                };
                let new_place = c.new.map(|l| sarif::Place {
                    file: &new.name,
                    span: Some(l.span),
                    label: None,
                });
                let old_place = c.old.map(|l| sarif::Place {
                    file: &old.name,
                    span: Some(l.span),
                    label: Some("in the previous revision".to_owned()),
                });
                let (place, related) = match new_place {
                    Some(p) => (Some(p), old_place.into_iter().collect()),
                    None => (
                        old_place.map(|mut p| {
                            p.label = None;
                            p
                        }),
                        Vec::new(),
                    ),
                };
                b.add(&c.code, level, c.message.clone(), place, related);
            }
            for f in crd_findings.iter().chain(&object_findings) {
                super::add_finding(&mut b, f, &names);
            }
            b.finish()
        }
    };
    let mut stdout = io::stdout().lock();
    let _ = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush());
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
