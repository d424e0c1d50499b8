//! `crd-studio explain` (kubectl explain for the CRD's resource) and `crd-studio sample` (a
//! sample object for a version): issue 15's help while writing. The text and the sample are
//! the engine's (`CompiledCrd::explain`, `CompiledCrd::sample`).

use std::process::ExitCode;

use crd_studio_engine::{CompiledCrd, Options};
use serde_json::Value;

use super::convert::{finish, yaml};
use super::{read_input, Error};
use crate::args::{self, CommandLine};

const EXPLAIN_USAGE: &str = "\
usage: crd-studio explain CRD [FIELD.PATH] [--recursive] [--api-version V]
                          [--kubernetes-version V]

Prints what `kubectl explain <resource>[.FIELD.PATH]` prints for the CRD's resource once the
API server serves it: the OpenAPI v3 schema the server publishes for the version, through
kubectl's plaintext template. FIELD.PATH may start with the resource's plural, singular,
kind or a short name (`widgets.spec.size`, `spec.size`).

options:
  --recursive                the nested field names and types, without descriptions
  --api-version V            the version to explain (`v1` or `group/v1`; default: the
                             preferred version, the highest-priority served one)
  --kubernetes-version V     the Kubernetes minor to model (1.30 to 1.37, default 1.37)
  -h, --help                 print this help

exit status: 0 when explained, 1 when the field or version does not exist or the server
would reject the CRD (kubectl's `error: ...` on standard error), 2 on usage or I/O errors.";

const SAMPLE_USAGE: &str = "\
usage: crd-studio sample CRD [--version V] [--all-fields] [--format yaml|json]
                         [--kubernetes-version V]

Prints a sample object for a version of the CRD: apiVersion, kind, metadata.name and the
required fields (an allowed enum value, minimums, lengths, item counts, simple patterns and
formats met, list-map keys unique; fields with a default left to the server), or with
--all-fields every declared field. CEL rules are not solved: check the sample with
`crd-studio check CRD sample.yaml`.

options:
  --version V                the CRD version (default: the preferred version)
  --all-fields               every declared field, not only the required ones
  --format yaml|json         output format (default yaml)
  --kubernetes-version V     the Kubernetes minor to model (1.30 to 1.37, default 1.37)
  -h, --help                 print this help

exit status: 0 when a sample was printed, 1 when the CRD has no such version or no CRD,
2 on usage or I/O errors.";

/// An option given: its name and value (empty for a flag).
type Opt = (String, String);

/// Reads `--name value` / `--name=value` options and positional arguments; `flags` take no
/// value.
fn parse(
    args: &[String],
    flags: &[&str],
    valued: &[&str],
) -> Result<(Vec<String>, Vec<Opt>), Error> {
    let mut positional = Vec::new();
    let mut options = Vec::new();
    let mut line = CommandLine::new(args);
    while let Some((name, inline)) = line.next_option(&mut positional) {
        if flags.contains(&name.as_str()) && inline.is_none() {
            options.push((name, String::new()));
        } else if valued.contains(&name.as_str()) {
            let value = line.value(&name, inline)?;
            options.push((name, value));
        } else {
            return Err(args::unknown(&name));
        }
    }
    Ok((positional, options))
}

fn option<'a>(options: &'a [Opt], name: &str) -> Option<&'a str> {
    options
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

fn compile(crd: &str, options: &[Opt]) -> Result<CompiledCrd, Error> {
    let mut o = Options::default();
    if let Some(v) = option(options, "--kubernetes-version") {
        o.kubernetes_version = args::kubernetes_version(v)?;
    }
    Ok(CompiledCrd::compile(crd, &o))
}

/// Runs `explain` (the arguments after the command name).
pub(crate) fn run_explain(args: &[String]) -> Result<ExitCode, Error> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{EXPLAIN_USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    let (positional, options) = parse(
        args,
        &["--recursive"],
        &["--api-version", "--kubernetes-version"],
    )?;
    let mut positional = positional.into_iter();
    let Some(crd_path) = positional.next() else {
        return Err(Error::Usage("explain needs a CRD file".into()));
    };
    let path = positional.next().unwrap_or_default();
    if let Some(extra) = positional.next() {
        return Err(Error::Usage(format!("unexpected argument `{extra}`")));
    }
    // Options are checked before any file is read.
    drop(compile("", &options)?);
    let mut stdin_used = false;
    let crd = read_input(&crd_path, &mut stdin_used)?;
    let compiled = compile(&crd.text, &options)?;
    match compiled.explain(
        option(&options, "--api-version"),
        &path,
        option(&options, "--recursive").is_some(),
    ) {
        Ok(text) => finish(&text, "", 0),
        Err(e) => finish("", &format!("error: {e}\n"), 1),
    }
}

/// Runs `sample` (the arguments after the command name).
pub(crate) fn run_sample(args: &[String]) -> Result<ExitCode, Error> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{SAMPLE_USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    let (positional, options) = parse(
        args,
        &["--all-fields"],
        &["--version", "--format", "--kubernetes-version"],
    )?;
    let json = match option(&options, "--format") {
        None | Some("yaml") => false,
        Some("json") => true,
        Some(other) => {
            return Err(Error::Usage(format!(
                "unknown format `{other}` (yaml or json)"
            )))
        }
    };
    let mut positional = positional.into_iter();
    let Some(crd_path) = positional.next() else {
        return Err(Error::Usage("sample needs a CRD file".into()));
    };
    if let Some(extra) = positional.next() {
        return Err(Error::Usage(format!("unexpected argument `{extra}`")));
    }
    // Options are checked before any file is read.
    drop(compile("", &options)?);
    let mut stdin_used = false;
    let crd = read_input(&crd_path, &mut stdin_used)?;
    let compiled = compile(&crd.text, &options)?;
    match compiled.sample(
        option(&options, "--version"),
        option(&options, "--all-fields").is_some(),
    ) {
        Ok(v) => finish(&render(&v, json), "", 0),
        Err(e) => finish("", &format!("crd-studio: {e}\n"), 1),
    }
}

fn render(v: &Value, json: bool) -> String {
    if json {
        let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
        s.push('\n');
        s
    } else {
        let mut out = String::new();
        yaml(v, 0, &mut out);
        out
    }
}
