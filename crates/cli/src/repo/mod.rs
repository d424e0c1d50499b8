//! `crd-studio check PATH...` on a whole repository: every CRD found is compiled once, every
//! other document is matched to its CRD by group and kind and analysed by the engine, in
//! parallel, with a stable output order and CI formats (JUnit, GitHub workflow commands).
//!
//! The modules, in the order a run goes through them: [`discover`] (paths, directories,
//! globs, standard input, read once), [`matching`] (CRDs by group and kind, built-in kinds,
//! old objects and old CRDs), [`shard`] (`--shard K/N`), [`run`] (the engine, in parallel),
//! [`versions`] (`--kubernetes-version` lists and ranges), then the formats: [`text`],
//! [`junit`], [`github`], and JSON and SARIF in [`text`] too.
//!
//! Positions all come from the engine: a finding's `Location`, found in a file's text with
//! the other documents blanked in place (`DocumentTexts::keep_only`).

use std::io::Write;
use std::process::ExitCode;

use crd_studio_engine::{ChangeSeverity, FieldValidation, KubernetesVersion, Options};

use crate::{args, Error};

pub(crate) mod discover;
pub(crate) mod github;
pub(crate) mod junit;
pub(crate) mod matching;
pub(crate) mod run;
pub(crate) mod shard;
pub(crate) mod text;
pub(crate) mod versions;

/// The output formats of repository mode.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum RepoFormat {
    /// Lines for people.
    Text,
    /// One JSON document.
    Json,
    /// SARIF 2.1.0.
    Sarif,
    /// JUnit XML: a test case per CRD and per object.
    Junit,
    /// GitHub Actions workflow commands (`::error file=…`).
    Github,
}

/// A parsed repository-mode command line.
#[derive(Debug)]
pub(crate) struct RepoCheck {
    /// Files, directories, globs and `-`.
    pub paths: Vec<String>,
    /// More places to take CRDs (only CRDs) from.
    pub crds: Vec<String>,
    /// The previous tree of objects (the update path).
    pub old: Vec<String>,
    /// The previous tree of CRDs (each CRD checked as an update).
    pub old_crds: Vec<String>,
    /// Documents without a CRD are not findings.
    pub ignore_missing_crds: bool,
    /// `--shard K/N`.
    pub shard: Option<shard::Shard>,
    /// The format.
    pub format: RepoFormat,
    /// Unknown and duplicate fields.
    pub field_validation: FieldValidation,
    /// The clock (RFC 3339).
    pub now: Option<String>,
    /// The Kubernetes versions to model (one, or a list or range).
    pub versions: Vec<KubernetesVersion>,
    /// CRD changes (`--old-crds`) that fail the run: breaking (the default), risky or none.
    pub fail_on: Option<ChangeSeverity>,
}

/// What the command line asks for: today's single-CRD check, or a repository.
enum Mode {
    Single,
    Repository(Box<RepoCheck>),
}

/// Runs `check` in repository mode when the command line asks for it (a directory or glob, a
/// repository option or format, a version list, or a first file holding several documents
/// with a CRD among them); `None` leaves the command line to today's single-CRD check.
pub(crate) fn run_if_repository(args: &[String]) -> Result<Option<ExitCode>, Error> {
    match mode(args)? {
        Mode::Single => Ok(None),
        Mode::Repository(check) => run_check(&check).map(Some),
    }
}

fn mode(args: &[String]) -> Result<Mode, Error> {
    let Some((command, rest)) = args.split_first() else {
        return Ok(Mode::Single);
    };
    if command != "check"
        || args
            .iter()
            .any(|a| a == "--help" || a == "-h" || a == "--version")
    {
        return Ok(Mode::Single);
    }
    let mut check = RepoCheck {
        paths: Vec::new(),
        crds: Vec::new(),
        old: Vec::new(),
        old_crds: Vec::new(),
        ignore_missing_crds: false,
        shard: None,
        format: RepoFormat::Text,
        field_validation: FieldValidation::Strict,
        now: None,
        versions: vec![Options::default().kubernetes_version],
        fail_on: Some(ChangeSeverity::Breaking),
    };
    let mut repository = false;
    let mut single_only = None;
    let mut line = args::CommandLine::new(rest);
    while let Some((name, inline)) = line.next_option(&mut check.paths) {
        let mut value = || line.value(&name, inline.clone());
        match name.as_str() {
            "--crds" => check.crds.push(value()?),
            "--old" => check.old.push(value()?),
            "--old-crds" => check.old_crds.push(value()?),
            "--ignore-missing-crds" => {
                if inline.is_some() {
                    return Err(Error::Usage("--ignore-missing-crds takes no value".into()));
                }
            }
            "--fail-on" => {
                check.fail_on = match value()?.as_str() {
                    "breaking" => Some(ChangeSeverity::Breaking),
                    "risky" => Some(ChangeSeverity::Risky),
                    "none" => None,
                    other => {
                        return Err(Error::Usage(format!(
                            "--fail-on: unknown value `{other}` (breaking, risky or none)"
                        )))
                    }
                }
            }
            "--shard" => check.shard = Some(shard::Shard::parse(&value()?)?),
            "--format" => match value()?.as_str() {
                "junit" => check.format = RepoFormat::Junit,
                "github" => check.format = RepoFormat::Github,
                other => {
                    check.format = match args::format(other)? {
                        args::Format::Text => RepoFormat::Text,
                        args::Format::Json => RepoFormat::Json,
                        args::Format::Sarif => RepoFormat::Sarif,
                    };
                    continue;
                }
            },
            "--kubernetes-version" => {
                check.versions = versions::parse_list(&value()?)?;
                if check.versions.len() == 1 {
                    continue;
                }
            }
            "--field-validation" => {
                check.field_validation = args::field_validation(&value()?)?;
                continue;
            }
            "--now" => {
                check.now = Some(value()?);
                continue;
            }
            "--old-object" | "--old-crd" => {
                single_only = Some(name.clone());
                let _ = value()?;
                continue;
            }
            // Today's check reports it.
            _ => return Ok(Mode::Single),
        }
        if name == "--ignore-missing-crds" {
            check.ignore_missing_crds = true;
        }
        repository = true;
    }
    if !repository {
        repository = check
            .paths
            .iter()
            .any(|p| discover::is_glob(p) || std::path::Path::new(p).is_dir())
            || first_is_a_bundle(&check.paths);
    }
    if !repository {
        return Ok(Mode::Single);
    }
    if let Some(option) = single_only {
        return Err(Error::Usage(format!(
            "{option} is for one CRD; with several, use --old DIR (objects) or --old-crds DIR (CRDs)"
        )));
    }
    if check.paths.is_empty() {
        return Err(Error::Usage(
            "missing the files or directories to check".into(),
        ));
    }
    Ok(Mode::Repository(Box::new(check)))
}

/// Whether the first file (or standard input) holds several documents, a CRD among them:
/// a bundle for repository mode rather than today's one CRD. Standard input read here is kept
/// for whichever mode reads it.
fn first_is_a_bundle(paths: &[String]) -> bool {
    let Some(first) = paths.first() else {
        return false;
    };
    if first == "-" {
        let text = discover::stdin_text();
        return matching::is_bundle(&text);
    }
    // A file to be read anyway: a cheap look at its text first.
    match std::fs::read(first) {
        // UTF-8 checked by the standard library's fast validation first: the lossy
        // conversion's own was a fiftieth of a large CRD's check.
        Ok(bytes) if bytes.len() <= crd_studio_engine::MAX_REQUEST_BYTES => {
            match std::str::from_utf8(&bytes) {
                Ok(text) => matching::is_bundle(text),
                Err(_) => matching::is_bundle(&String::from_utf8_lossy(&bytes)),
            }
        }
        _ => false,
    }
}

/// The whole run: read, match, analyse (per Kubernetes version when several), print.
fn run_check(check: &RepoCheck) -> Result<ExitCode, Error> {
    let now = match &check.now {
        Some(text) => crd_studio_engine::Time::parse_rfc3339(text)
            .map_err(|e| Error::Usage(format!("--now: {e}")))?,
        None => crate::get::system_now(),
    };
    let tree = discover::read_trees(check)?;
    let plan = matching::plan(&tree, check);
    let newest = check
        .versions
        .iter()
        .copied()
        .max()
        .unwrap_or(KubernetesVersion::DEFAULT);
    let options = |v: KubernetesVersion| Options {
        field_validation: check.field_validation,
        now: Some(now),
        kubernetes_version: v,
        ..Options::default()
    };
    let report = run::run(&tree, &plan, check, &options(newest));
    let across = (check.versions.len() > 1).then(|| versions::across(&report, &check.versions));
    let out = match check.format {
        RepoFormat::Text => text::text(&report, across.as_ref()),
        RepoFormat::Json => text::json(&report, across.as_ref()),
        RepoFormat::Sarif => text::sarif(&report),
        RepoFormat::Junit => junit::junit(&report),
        RepoFormat::Github => github::github(&report, across.as_ref()),
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush());
    let versions_ok = across.as_ref().is_none_or(|a| a.all_accepted());
    crate::exit_without_freeing(i32::from(!(report.accepted() && versions_ok)))
}
