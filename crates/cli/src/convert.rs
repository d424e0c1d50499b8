//! `crd-studio convert CRD OBJECT --to VERSION [--review-response FILE] [--uid UID]
//! [--format yaml|json]`: conversion between a CRD's versions as the API server does it.
//!
//! * Strategy `None`: prints the converted object (only `apiVersion` changes, then the target
//!   version's schema prunes; the dropped fields are listed on standard error).
//! * Strategy `Webhook`, without `--review-response`: prints the `ConversionReview` request
//!   the server would POST to the webhook.
//! * With `--review-response FILE`: checks the webhook's response as the server does. Exit 1
//!   with the server's messages (located in FILE) when it would fail the request; otherwise
//!   prints the objects the server ends up with (metadata restored, pruned).
//!
//! The objects converted are the ones the server holds after a create in their own version
//! (decoded, defaulted, prepared), as it reads them back. The request uid is `--uid`, or the
//! engine's uid derived from the request (`conversion::webhook::request_uid`: the target
//! version and each object's apiVersion, kind, namespace and name), the one the studio
//! shows, so a request printed once and its response checked later match, here and there.

use std::io::{self, Write};
use std::process::ExitCode;

use crd_studio_engine::{
    check_conversion_response, conversion_review, read_documents, CompiledCrd, ConvertedObject,
    KubernetesVersion, Options, Severity, SourceId, Strategy,
};
use serde_json::{json, Value};

use super::{read_input, Error};
use crate::args::{self, CommandLine};

const USAGE: &str = "\
usage: crd-studio convert CRD OBJECT --to VERSION [--review-response FILE] [--uid UID]
                          [--format yaml|json]

Converts custom objects to another version of their CRD as the API server does. With the
None strategy it prints the converted object. With the Webhook strategy it prints the
ConversionReview request the server would send; with --review-response it checks the
webhook's response as the server does and prints the objects the server ends up with.

options:
  --to VERSION               the version to convert to (a version name of the CRD)
  --review-response FILE     the webhook's response (JSON or YAML) to check
  --uid UID                  the request uid (default: derived from the request, as the studio does)
  --format yaml|json         output format (default yaml)
  --kubernetes-version V     the Kubernetes minor to model (1.30 to 1.37, default 1.37)
  -h, --help                 print this help

exit status: 0 when the server would convert, 1 when it would fail (its messages on
standard error), 2 on usage or I/O errors.";

/// Output formats.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Yaml,
    Json,
}

/// A parsed `convert` command line.
struct Args {
    crd: String,
    object: String,
    to: String,
    response: Option<String>,
    uid: Option<String>,
    format: Format,
    kubernetes_version: KubernetesVersion,
}

fn parse(args: &[String]) -> Result<Args, Error> {
    let usage = |m: String| Err(Error::Usage(m));
    let mut positional = Vec::new();
    let (mut to, mut response, mut uid, mut format) = (None, None, None, Format::Yaml);
    let mut kubernetes_version = Options::default().kubernetes_version;
    let mut line = CommandLine::new(args);
    while let Some((name, inline)) = line.next_option(&mut positional) {
        let mut value = || line.value(&name, inline.clone());
        match name.as_str() {
            "--to" => to = Some(value()?),
            "--review-response" => response = Some(value()?),
            "--uid" => uid = Some(value()?),
            "--kubernetes-version" => kubernetes_version = args::kubernetes_version(&value()?)?,
            "--format" => {
                format = match value()?.as_str() {
                    "yaml" => Format::Yaml,
                    "json" => Format::Json,
                    other => return usage(format!("unknown format `{other}` (yaml or json)")),
                }
            }
            other => return Err(args::unknown(other)),
        }
    }
    let mut positional = positional.into_iter();
    let (Some(crd), Some(object)) = (positional.next(), positional.next()) else {
        return usage("convert needs a CRD file and an object file".into());
    };
    if let Some(extra) = positional.next() {
        return usage(format!("unexpected argument `{extra}`"));
    }
    let Some(to) = to else {
        return usage("missing --to VERSION".into());
    };
    Ok(Args {
        crd,
        object,
        to,
        response,
        uid,
        format,
        kubernetes_version,
    })
}

/// Runs `convert` (the arguments after the command name).
pub(crate) fn run(args: &[String]) -> Result<ExitCode, Error> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    let args = parse(args)?;
    let mut stdin_used = false;
    let crd = read_input(&args.crd, &mut stdin_used)?;
    let object = read_input(&args.object, &mut stdin_used)?;
    let response = args
        .response
        .as_deref()
        .map(|p| read_input(p, &mut stdin_used))
        .transpose()?;
    let options = Options {
        kubernetes_version: args.kubernetes_version,
        ..Options::default()
    };
    let compiled = CompiledCrd::compile(&crd.text, &options);
    let mut err = String::new();
    let Some(facts) = compiled.facts() else {
        for f in compiled.findings() {
            err.push_str(&format!(
                "{}: {}: {}\n",
                crd.name,
                f.severity.as_str(),
                f.message
            ));
        }
        err.push_str(&format!(
            "{}: not a readable CustomResourceDefinition\n",
            crd.name
        ));
        return finish("", &err, 2);
    };
    if let Some(f) = compiled
        .findings()
        .iter()
        .find(|f| f.severity == Severity::Error)
    {
        err.push_str(&format!(
            "{}: warning: the server would reject this CRD: {}\n",
            crd.name, f.message
        ));
    }
    if let Some(v) = facts.versions.iter().find(|v| v.name == args.to) {
        if !v.served {
            err.push_str(&format!(
                "note: {} is not served: no client reads it; the server converts to it only to store objects\n",
                args.to
            ));
        }
    }
    // Every problem with the object text is reported, located, as `check` does: a broken
    // document is never dropped silently (the others would be converted without it).
    let parsed = read_documents(&object.text, SourceId::Object(0));
    let mut broken = false;
    for f in parsed
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
    {
        broken = true;
        let place = match f.location {
            Some(l) => format!(
                "{}:{}:{}",
                object.name, l.span.start.line, l.span.start.column
            ),
            None => object.name.clone(),
        };
        err.push_str(&format!("{place}: error: {}\n", f.message));
    }
    if broken {
        err.push_str(&format!(
            "{}: not converted: the server would refuse this text\n",
            object.name
        ));
        return finish("", &err, 1);
    }
    let objects = held_objects(&compiled, &object.text);
    if objects.is_empty() {
        err.push_str(&format!("{}: no object to convert\n", object.name));
        return finish("", &err, 2);
    }
    let strategy = facts.strategy;
    if let Strategy::Unknown { name } = &strategy {
        err.push_str(&format!(
            "unknown conversion strategy \"{name}\" for CRD {}\n",
            facts.name
        ));
        return finish("", &err, 1);
    }
    if strategy == Strategy::None {
        let mut out = Vec::new();
        for (i, obj) in objects.iter().enumerate() {
            match crd_studio_engine::convert(&compiled, obj, &args.to) {
                Ok(c) => {
                    note_object(&mut err, &object.name, i, objects.len(), &c);
                    out.push(c.object);
                }
                Err(e) => {
                    err.push_str(&format!("error: {e}\n"));
                    return finish("", &err, 1);
                }
            }
        }
        return finish(&render(&as_one(out), args.format), &err, 0);
    }
    // Without --uid, the engine's uid of the request: the one the studio shows.
    let call = match conversion_review(&compiled, &objects, &args.to, args.uid.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            err.push_str(&format!("error: {e}\n"));
            return finish("", &err, 1);
        }
    };
    let Some(response) = response else {
        return match &call.request {
            Some(request) => {
                let out = match args.format {
                    Format::Json => format!("{}\n", request.pretty()),
                    Format::Yaml => render(&request.to_json(), Format::Yaml),
                };
                finish(&out, &err, 0)
            }
            None => {
                err.push_str(&format!(
                    "note: the server does not call the webhook: nothing to convert to {}\n",
                    call.target.text()
                ));
                let check = check_conversion_response(&compiled, &call, "");
                let out: Vec<Value> = check.objects.into_iter().map(|o| o.object).collect();
                finish(&render(&as_one(out), args.format), &err, 0)
            }
        };
    };
    let check = check_conversion_response(&compiled, &call, &response.text);
    for (n, issue) in check.issues.iter().enumerate() {
        let place = match issue.span {
            Some(s) => format!("{}:{}:{}", response.name, s.start.line, s.start.column),
            None => response.name.clone(),
        };
        let lead = if n == 0 { "error" } else { "then" };
        let studio = if issue.studio { " (studio)" } else { "" };
        err.push_str(&format!("{place}: {lead}{studio}: {}\n", issue.message));
    }
    if !check.accepted {
        return finish("", &err, 1);
    }
    let mut out = Vec::new();
    let total = check.objects.len();
    for o in check.objects {
        note_object(&mut err, &object.name, o.input, total, &o);
        out.push(o.object);
    }
    finish(&render(&as_one(out), args.format), &err, 0)
}

/// The objects of `text` as the server holds them after a create in their own version
/// (the object itself when the engine could not take it that far).
fn held_objects(compiled: &CompiledCrd, text: &str) -> Vec<Value> {
    let documents = read_documents(text, SourceId::Object(0));
    let analysis = compiled.analyze_objects(&[text.to_owned()], None);
    documents
        .values
        .into_iter()
        .map(|(index, json)| {
            analysis
                .objects
                .iter()
                .find(|o| o.document == index)
                .map(|o| o.prepared.to_value())
                .filter(|s| !s.is_null())
                .unwrap_or(json)
        })
        .collect()
}

/// Notes on one converted object (standard error).
fn note_object(err: &mut String, file: &str, index: usize, total: usize, o: &ConvertedObject) {
    let which = if total > 1 {
        format!("{file} (object {})", index + 1)
    } else {
        file.to_owned()
    };
    for p in &o.pruned_paths {
        err.push_str(&format!(
            "{which}: note: the target version's schema drops {p}\n"
        ));
    }
    for m in &o.discarded_metadata {
        err.push_str(&format!(
            "{which}: note: the webhook's change of {m} is ignored (the server keeps the original)\n"
        ));
    }
    if let Some(e) = &o.decode_error {
        err.push_str(&format!("{which}: error: {e}\n"));
    }
    for e in &o.target_errors {
        err.push_str(&format!(
            "{which}: note: written back in the target version, the server would say: {}\n",
            e.error
        ));
    }
}

/// One object, or a `List` of several (as `kubectl get -o yaml` prints them).
fn as_one(mut objects: Vec<Value>) -> Value {
    if objects.len() == 1 {
        objects.pop().unwrap_or(Value::Null)
    } else {
        json!({"apiVersion": "v1", "kind": "List", "items": objects})
    }
}

/// Writes the outputs and returns the exit code.
pub(crate) fn finish(out: &str, err: &str, code: u8) -> Result<ExitCode, Error> {
    let mut stdout = io::stdout().lock();
    // A closed pipe (`| head`) is not an error of the conversion.
    let _ = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush());
    let mut stderr = io::stderr().lock();
    let _ = stderr.write_all(err.as_bytes());
    Ok(ExitCode::from(code))
}

/// The output text of a value.
fn render(v: &Value, format: Format) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
            s.push('\n');
            s
        }
        Format::Yaml => {
            let mut out = String::new();
            yaml(v, 0, &mut out);
            out
        }
    }
}

/// Block-style YAML of a JSON value (keys sorted, strings quoted when a YAML reader could
/// take them for something else), ending in a newline.
pub(crate) fn yaml(v: &Value, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, item) in m {
                out.push_str(&format!("{pad}{}:", yaml_scalar(&Value::String(k.clone()))));
                yaml_child(item, indent, out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for item in items {
                out.push_str(&format!("{pad}-"));
                match item {
                    Value::Object(m) if !m.is_empty() => {
                        // The first key on the dash's line.
                        let mut first = true;
                        for (k, val) in m {
                            if first {
                                out.push_str(&format!(
                                    " {}:",
                                    yaml_scalar(&Value::String(k.clone()))
                                ));
                                first = false;
                            } else {
                                out.push_str(&format!(
                                    "{pad}  {}:",
                                    yaml_scalar(&Value::String(k.clone()))
                                ));
                            }
                            yaml_child(val, indent + 1, out);
                        }
                    }
                    _ => yaml_child(item, indent, out),
                }
            }
        }
        other => {
            out.push_str(&pad);
            out.push_str(&yaml_scalar(other));
            out.push('\n');
        }
    }
}

/// The value after `key:` or `-`: inline for scalars and empty containers, else nested.
fn yaml_child(v: &Value, indent: usize, out: &mut String) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            yaml(v, indent + 1, out);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            yaml(v, indent + 1, out);
        }
        other => {
            out.push(' ');
            out.push_str(&yaml_scalar(other));
            out.push('\n');
        }
    }
}

fn yaml_scalar(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(_) => "[]".to_owned(),
        Value::Object(_) => "{}".to_owned(),
        Value::String(s) => {
            let plain = !s.is_empty()
                && s.trim() == s
                && !s.contains(": ")
                && !s.contains(" #")
                && !s.ends_with(':')
                && s.chars().all(|c| !c.is_control())
                && !s.starts_with([
                    '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'',
                    '"', '%', '@', '`', '.', '+', '~',
                ])
                && !s.chars().next().is_some_and(|c| c.is_ascii_digit())
                && !matches!(
                    s.to_ascii_lowercase().as_str(),
                    "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "~"
                );
            if plain {
                s.clone()
            } else {
                serde_json::to_string(s).unwrap_or_default()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_round_trips_through_the_engine_reader() {
        let v = json!({"a": {"b": [1, "x", {"c": "yes", "d": []}], "e": {}},
            "f": "needs: quoting", "g": "", "h": null, "i": "1.5", "j": "plain text",
            "k": [[1, 2], "-x"]});
        let text = render(&v, Format::Yaml);
        let parsed = read_documents(&text, SourceId::Object(0));
        assert!(parsed.findings.is_empty(), "{text}\n{:?}", parsed.findings);
        assert_eq!(parsed.values[0].1, v, "{text}");
    }
}
