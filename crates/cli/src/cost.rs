//! `crd-studio cost CRD [--version V] [--format text|json|sarif] [--kubernetes-version X]`: the
//! estimated CEL cost of every `x-kubernetes-validations` expression as the API server checks
//! it when the CRD is written, what drives it, and the bounds that would bring it under the
//! limits (the engine's `cost_explain` report).
//!
//! Text: per version, a table of every rule and `messageExpression` sorted by cost (highest
//! first) with its share of the 10,000,000 per-expression limit, its cardinality and the
//! suggested bounds, the reasons under the rows that need them, then the schema total against
//! 100,000,000. JSON: the reports as the engine serializes them. Exit status: 0 when every
//! cost is within its limit, 1 when one is over, 2 on usage or I/O errors.

use std::io::{self, Write};
use std::process::ExitCode;

use crd_studio_engine::{
    analyze, Analysis, BoundFix, CostDriver, CostReport, DriverRole, ExpressionCost, Fix,
    KubernetesVersion, Options, Request, Severity,
};
use serde_json::json;

use super::{read_input, Error};
use crate::args::{self, CommandLine, Format};

const USAGE: &str = "\
usage: crd-studio cost CRD [--version VERSION] [--format text|json|sarif] [--kubernetes-version X]

Estimates the cost of the CRD's CEL rules (x-kubernetes-validations) as the API server does
when the CRD is created: each rule's estimated cost times how often it can run, against the
limit of 10,000,000 per expression and 100,000,000 per schema. Explains what drives each cost
(lists, maps and strings without maxItems, maxProperties or maxLength) and suggests bounds
that bring it under the limits, each checked by estimating again.

options:
  --version VERSION          only this version of the CRD (default: every version with rules)
  --format text|json|sarif   output format (default text; sarif: SARIF 2.1.0, rule ids
                             cel.cost.expression and cel.cost.total)
  --kubernetes-version X     the Kubernetes minor to model (1.30 to 1.37, default 1.37): its
                             CEL libraries
  -h, --help                 print this help

exit status: 0 when every cost is within its limit, 1 when one is over, 2 on usage or I/O
errors.";

/// A parsed `cost` command line.
struct Args {
    crd: String,
    version: Option<String>,
    format: Format,
    kubernetes_version: Option<KubernetesVersion>,
}

fn parse(args: &[String]) -> Result<Args, Error> {
    let usage = |m: String| Err(Error::Usage(m));
    let mut positional = Vec::new();
    let (mut version, mut format, mut kubernetes_version) = (None, Format::Text, None);
    let mut line = CommandLine::new(args);
    while let Some((name, inline)) = line.next_option(&mut positional) {
        let mut value = || line.value(&name, inline.clone());
        match name.as_str() {
            "--version" => version = Some(value()?),
            "--kubernetes-version" => {
                kubernetes_version = Some(args::kubernetes_version(&value()?)?)
            }
            "--format" => format = args::format(&value()?)?,
            other => return Err(args::unknown(other)),
        }
    }
    let mut positional = positional.into_iter();
    let Some(crd) = positional.next() else {
        return usage("cost needs a CRD file".into());
    };
    if let Some(extra) = positional.next() {
        return usage(format!("unexpected argument `{extra}`"));
    }
    Ok(Args {
        crd,
        version,
        format,
        kubernetes_version,
    })
}

/// Runs `cost` (the arguments after the command name).
pub(crate) fn run(args: &[String]) -> Result<ExitCode, Error> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    let args = parse(args)?;
    let mut stdin_used = false;
    let crd = read_input(&args.crd, &mut stdin_used)?;
    let mut options = Options::default();
    if let Some(v) = &args.kubernetes_version {
        options.kubernetes_version = *v;
    }
    let analysis = analyze(&Request {
        crd: crd.text.clone(),
        options,
        ..Request::default()
    });
    if analysis.versions.is_empty() {
        let mut err = String::new();
        for f in analysis
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
        {
            err.push_str(&format!("{}: error: {}\n", crd.name, f.message));
        }
        err.push_str(&format!(
            "crd-studio: {}: no CustomResourceDefinition with versions to estimate\n",
            crd.name
        ));
        eprint!("{err}");
        return Ok(ExitCode::from(2));
    }
    if let Some(v) = &args.version {
        if !analysis.versions.iter().any(|r| &r.name == v) {
            let names: Vec<&str> = analysis.versions.iter().map(|r| r.name.as_str()).collect();
            return Err(Error::Usage(format!(
                "the CRD has no version `{v}` (it has {})",
                names.join(", ")
            )));
        }
    }
    let selected: Vec<(&str, Option<&CostReport>)> = analysis
        .versions
        .iter()
        .filter(|r| args.version.as_ref().is_none_or(|v| &r.name == v))
        .map(|r| (r.name.as_str(), r.cost.as_ref()))
        .collect();
    let over = selected
        .iter()
        .any(|(_, c)| c.is_some_and(CostReport::over_limit));
    let out = match args.format {
        Format::Text => text_output(&crd.name, &analysis, &selected),
        Format::Json => {
            let versions: Vec<_> = selected
                .iter()
                .map(|(name, cost)| {
                    let mut v = json!({"name": name, "cost": cost});
                    crate::without_editor_places(&mut v);
                    v
                })
                .collect();
            let mut s = serde_json::to_string_pretty(&json!({
                "file": crd.name,
                "crd": analysis.crd.name,
                "overLimit": over,
                "versions": versions,
            }))
            .map_err(|e| Error::Io(format!("cannot write JSON: {e}")))?;
            s.push('\n');
            s
        }
        Format::Sarif => sarif_output(&crd.name, &selected),
    };
    let mut stdout = io::stdout().lock();
    let _ = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush());
    Ok(if over {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `1234567` as `1,234,567`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A share of a limit: `82.2%`, or `>100x` past a hundred times the limit.
fn share(s: f64) -> String {
    if s > 100.0 {
        ">100x".to_owned()
    } else {
        format!("{:.1}%", s * 100.0)
    }
}

/// A place in the CRD text: `crd.yaml:25:17`.
fn at(file: &str, line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("{file}:{l}:{c}"),
        _ => file.to_owned(),
    }
}

/// A node for people: its place in objects (`.spec.names[*]`), `<root>` for the root.
fn value_path(p: &str) -> &str {
    if p.is_empty() {
        "<root>"
    } else {
        p
    }
}

fn cardinality(e: &ExpressionCost) -> String {
    match e.cardinality {
        Some(c) => grouped(c),
        None => format!("unbounded ({})", grouped(e.max_cardinality)),
    }
}

/// Where the schema nodes of a report are: schema path → (object path, line, column).
type Nodes = Vec<(String, String, Option<usize>, Option<usize>)>;

/// `maxItems: 5000 at .spec.names [crd.yaml:25:17]` for a bound.
fn bound(file: &str, b: &BoundFix, nodes: &Nodes) -> String {
    let (node, place) = match nodes.iter().find(|(path, ..)| path == &b.path) {
        Some((_, v, line, column)) => (
            value_path(v).to_owned(),
            format!(" [{}]", at(file, *line, *column)),
        ),
        None if b.path.is_empty() => ("<root>".to_owned(), String::new()),
        None => (b.path.clone(), String::new()),
    };
    format!("{}: {} at {node}{place}", b.bound.keyword(), b.value)
}

fn fix_text(file: &str, f: &Fix, nodes: &Nodes, what: &str) -> String {
    let bounds: Vec<String> = f.bounds.iter().map(|b| bound(file, b, nodes)).collect();
    format!("{} → {what}{}", bounds.join(", "), grouped(f.cost))
}

/// Why a driver matters, in words.
fn why(file: &str, d: &CostDriver) -> String {
    let noun = d.bound.noun();
    let units = match noun {
        "list" => " items",
        "map" => " entries",
        _ => "",
    };
    let node = value_path(&d.value_path);
    let place = at(file, d.line, d.column);
    let keyword = d.bound.keyword();
    let size = match (noun, d.current, d.element_min_size) {
        ("string", None, _) => format!(
            "size {} (as long as a 3 MiB request allows)",
            grouped(d.assumed_size)
        ),
        ("string", _, _) => format!("size {}", grouped(d.assumed_size)),
        (_, None, Some(min)) => format!(
            "{}{units} (as many as fit in 3 MiB at {min} bytes each)",
            grouped(d.assumed_size)
        ),
        _ => format!("{}{units}", grouped(d.assumed_size)),
    };
    let text = match (d.role, d.current) {
        (DriverRole::Cardinality, None) => format!(
            "{noun} {node} has no {keyword}: the rule runs for each of its{units}, assumed {size}"
        ),
        (DriverRole::Cardinality, Some(c)) => format!(
            "{noun} {node} has {keyword}: {}: the rule runs for each of its up to {}{units}",
            grouped(c),
            grouped(c)
        ),
        (DriverRole::InSelf, None) => {
            format!("reads {noun} {node}, which has no {keyword}: assumed {size}")
        }
        (DriverRole::InSelf, Some(c)) => format!(
            "reads {noun} {node} with {keyword}: {}: assumed {size}",
            grouped(c)
        ),
    };
    let alone = match &d.fix {
        Some(f) => match f.largest {
            Some(l) if l > f.value => format!(
                " (alone: {keyword}: {} fits, up to {})",
                f.value,
                grouped(l)
            ),
            _ => format!(" (alone: {keyword}: {} fits)", f.value),
        },
        None => String::new(),
    };
    format!("{text} [{place}]{alone}")
}

fn text_output(
    file: &str,
    analysis: &Analysis,
    selected: &[(&str, Option<&CostReport>)],
) -> String {
    let mut out = String::new();
    for (name, cost) in selected {
        out.push_str(&format!("{file}: version {name}\n"));
        let Some(report) = cost else {
            out.push_str("  no CEL rule compiled\n");
            continue;
        };
        // Nodes by schema path, for the bounds' object paths and places.
        let mut nodes: Nodes = Vec::new();
        for e in &report.expressions {
            for d in &e.drivers {
                nodes.push((d.path.clone(), d.value_path.clone(), d.line, d.column));
            }
        }
        let mut rows: Vec<&ExpressionCost> = report.expressions.iter().collect();
        rows.sort_by_key(|e| std::cmp::Reverse(e.estimated_cost));
        let header = ["COST", "SHARE", "CARDINALITY", "EXPRESSION", "SUGGESTION"];
        let cells: Vec<[String; 5]> = rows
            .iter()
            .map(|e| {
                [
                    grouped(e.estimated_cost),
                    share(e.share),
                    cardinality(e),
                    format!("{} ({})", e.field, at(file, e.line, e.column)),
                    match &e.suggestion {
                        Some(f) => fix_text(file, f, &nodes, ""),
                        None if e.over_limit => match &e.expensive_call {
                            Some(c) => {
                                format!("none: change {} at {}:{}", c.function, c.line, c.column)
                            }
                            None => "none: simplify the expression".to_owned(),
                        },
                        None => "-".to_owned(),
                    },
                ]
            })
            .collect();
        let mut widths = header.map(str::len);
        for row in &cells {
            for (w, c) in widths.iter_mut().zip(row) {
                *w = (*w).max(c.chars().count());
            }
        }
        let line = |cols: [&str; 5], mark: &str| {
            let mut s = format!("{mark} ");
            for (i, (c, w)) in cols.iter().zip(widths).enumerate() {
                let pad = w.saturating_sub(c.chars().count());
                match i {
                    // Numbers right-aligned.
                    0 | 1 => s.push_str(&format!("{}{c}  ", " ".repeat(pad))),
                    4 => s.push_str(c),
                    _ => s.push_str(&format!("{c}{}  ", " ".repeat(pad))),
                }
            }
            s.trim_end().to_owned() + "\n"
        };
        out.push_str(&line(header, " "));
        for (e, row) in rows.iter().zip(&cells) {
            let cols = [
                row[0].as_str(),
                row[1].as_str(),
                row[2].as_str(),
                row[3].as_str(),
                row[4].as_str(),
            ];
            out.push_str(&line(cols, if e.over_limit { "!" } else { " " }));
            if let Some(m) = &e.message {
                out.push_str(&format!("      over the limit: {m}\n"));
            }
            if e.over_limit || e.share >= 0.1 {
                for d in &e.drivers {
                    out.push_str(&format!("      why: {}\n", why(file, d)));
                }
            }
            if let Some(n) = &e.note {
                out.push_str(&format!("      note: {n}\n"));
            }
        }
        out.push_str(&format!(
            "{} total: {} of {} ({}){}\n",
            if report.total_over_limit { "!" } else { " " },
            grouped(report.total),
            grouped(report.total_limit),
            share(report.total_share),
            if report.total_over_limit {
                ": over the limit"
            } else {
                ""
            }
        ));
        if let Some(m) = &report.total_message {
            out.push_str(&format!("      {m}\n"));
            for c in &report.top_contributors {
                out.push_str(&format!(
                    "      contributes {}: {}\n",
                    grouped(c.cost),
                    c.field
                ));
            }
        }
        if let Some(f) = &report.fix {
            out.push_str(&format!(
                "  fix for every limit: {}\n",
                fix_text(file, f, &nodes, "total ")
            ));
        } else if let Some(n) = &report.fix_note {
            out.push_str(&format!("  no fix: {n}\n"));
        }
    }
    if !analysis.crd.accepted
        && !selected
            .iter()
            .any(|(_, c)| c.is_some_and(CostReport::over_limit))
    {
        out.push_str(&format!(
            "note: the server rejects {file} for other reasons (see `crd-studio check`)\n"
        ));
    }
    out
}

/// The cost reports as SARIF 2.1.0: one result per expression (`cel.cost.expression`: an
/// error when over its limit, else a note) and per schema over its total limit
/// (`cel.cost.total`).
fn sarif_output(file: &str, selected: &[(&str, Option<&CostReport>)]) -> String {
    use crate::sarif::{point, Builder, Level, Place};
    let mut b = Builder::default();
    for (version, cost) in selected {
        let Some(cost) = cost else { continue };
        for e in &cost.expressions {
            let place = Place {
                file,
                span: e.line.zip(e.column).map(|(l, c)| point(l, c)),
                label: None,
            };
            b.add(
                "cel.cost.expression",
                if e.over_limit {
                    Level::Error
                } else {
                    Level::Note
                },
                format!(
                    "{version} {}: `{}` estimated cost {} ({} of the {} limit)",
                    e.field,
                    e.expression,
                    grouped(e.estimated_cost),
                    share(e.share),
                    grouped(e.limit)
                ),
                Some(place),
                Vec::new(),
            );
        }
        if cost.total_over_limit {
            b.add(
                "cel.cost.total",
                Level::Error,
                format!(
                    "{version}: total estimated cost {} ({} of the {} limit)",
                    grouped(cost.total),
                    share(cost.total_share),
                    grouped(cost.total_limit)
                ),
                Some(Place {
                    file,
                    span: None,
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
    fn numbers() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(659_710_961_252), "659,710,961,252");
        assert_eq!(share(0.822), "82.2%");
        assert_eq!(share(3.3), "330.0%");
        assert_eq!(share(101.0), ">100x");
    }
}
