//! The command line's common shape, shared by every command: files (positional arguments,
//! `-` for standard input, everything after `--`), `--name value` and `--name=value`
//! options, and the values several commands take (`--format text|json|sarif`,
//! `--field-validation`, `--kubernetes-version`).

use crd_studio_engine::{FieldValidation, KubernetesVersion};

use super::Error;

/// One command-line argument.
pub(crate) enum Arg {
    /// A file (or `-`).
    File(String),
    /// An option: its name and its `=value`, when written inline.
    Opt(String, Option<String>),
}

/// Reads a command's arguments one at a time.
pub(crate) struct CommandLine<'a> {
    it: std::slice::Iter<'a, String>,
    files_only: bool,
}

impl<'a> CommandLine<'a> {
    /// The arguments after the command name.
    pub(crate) fn new(args: &'a [String]) -> CommandLine<'a> {
        CommandLine {
            it: args.iter(),
            files_only: false,
        }
    }

    /// The next argument; `--` makes every later one a file.
    pub(crate) fn next_arg(&mut self) -> Option<Arg> {
        let arg = self.it.next()?;
        if self.files_only || arg == "-" || !arg.starts_with('-') {
            return Some(Arg::File(arg.clone()));
        }
        if arg == "--" {
            self.files_only = true;
            return self.next_arg();
        }
        Some(match arg.split_once('=') {
            Some((n, v)) => Arg::Opt(n.to_owned(), Some(v.to_owned())),
            None => Arg::Opt(arg.clone(), None),
        })
    }

    /// The next option (its name and inline `=value`); the files before it go to `files`.
    pub(crate) fn next_option(
        &mut self,
        files: &mut Vec<String>,
    ) -> Option<(String, Option<String>)> {
        loop {
            match self.next_arg()? {
                Arg::File(f) => files.push(f),
                Arg::Opt(n, i) => return Some((n, i)),
            }
        }
    }

    /// An option's value: written inline, else the next argument.
    pub(crate) fn value(&mut self, name: &str, inline: Option<String>) -> Result<String, Error> {
        inline
            .or_else(|| self.it.next().cloned())
            .ok_or_else(|| Error::Usage(format!("{name} needs a value")))
    }
}

/// `unknown option` as a usage error.
pub(crate) fn unknown(name: &str) -> Error {
    Error::Usage(format!("unknown option `{name}`"))
}

/// The report formats of `check`, `cost` and `diff`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// Lines for people.
    Text,
    /// One JSON document.
    Json,
    /// SARIF 2.1.0.
    Sarif,
}

/// `--format text|json|sarif`.
pub(crate) fn format(value: &str) -> Result<Format, Error> {
    match value {
        "text" => Ok(Format::Text),
        "json" => Ok(Format::Json),
        "sarif" => Ok(Format::Sarif),
        other => Err(Error::Usage(format!(
            "unknown format `{other}` (text, json or sarif)"
        ))),
    }
}

/// `--field-validation Strict|Warn|Ignore` (any case).
pub(crate) fn field_validation(value: &str) -> Result<FieldValidation, Error> {
    FieldValidation::parse(value).map_err(Error::Usage)
}

/// `--kubernetes-version`: one of the modelled minors, or a usage error listing them.
pub(crate) fn kubernetes_version(value: &str) -> Result<KubernetesVersion, Error> {
    KubernetesVersion::parse(value).map_err(|e| Error::Usage(format!("--kubernetes-version: {e}")))
}
