//! The Explain tab's and the "Generate sample" button's pure side: what the worker adds to
//! its reply (the engine's `kubectl explain` text for the query's field path, the minimal
//! sample object as YAML, both for the version of the first object when the CRD has it, else
//! the preferred version), the explained text split into lines whose field names descend,
//! and the Object text a sample is added to. Compiles everywhere; tested natively.

use serde::{Deserialize, Serialize};

use crd_studio_engine::{Analysis, CompiledCrd};

use crate::preview_model::yaml_text;

/// The engine's answer for the Explain tab.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplainPreview {
    /// The version explained.
    pub version: String,
    /// kubectl explain's output.
    pub text: Option<String>,
    /// kubectl's error instead (without `error: `).
    pub error: Option<String>,
}

/// The version the Explain tab and the sample are for: the first object's, when the CRD
/// has that version, else none (the preferred one).
pub fn object_version(compiled: &CompiledCrd, analysis: &Analysis) -> Option<String> {
    let crd = compiled.facts()?;
    let v = analysis
        .objects
        .first()?
        .api_version
        .rsplit('/')
        .next()?
        .to_owned();
    crd.versions
        .iter()
        .any(|x| x.name == v && x.served)
        .then_some(v)
}

/// The longest all-fields sample a reply carries (characters): it travels with every
/// analysis, so a huge schema's is left out (the CLI's `sample --all-fields` writes it).
pub const MAX_ALL_FIELDS_SAMPLE: usize = 64 * 1024;

/// The Explain preview, the minimal sample's YAML and the all-fields sample's (when not over
/// [`MAX_ALL_FIELDS_SAMPLE`]).
pub fn answer(
    compiled: &CompiledCrd,
    analysis: &Analysis,
    path: &str,
    recursive: bool,
) -> (Option<ExplainPreview>, Option<String>, Option<String>) {
    answer_for(
        compiled,
        object_version(compiled, analysis).as_deref(),
        path,
        recursive,
    )
}

/// [`answer`] for the version [`object_version`] found (`None`: the preferred one).
pub fn answer_for(
    compiled: &CompiledCrd,
    version: Option<&str>,
    path: &str,
    recursive: bool,
) -> (Option<ExplainPreview>, Option<String>, Option<String>) {
    if compiled.facts().is_none() {
        return (None, None, None);
    }
    let version = version.map(str::to_owned);
    let explained = compiled.explain(version.as_deref(), path, recursive);
    let shown_version = version.clone().or_else(|| compiled.preferred_version());
    let preview = ExplainPreview {
        version: shown_version.unwrap_or_default(),
        text: explained.as_ref().ok().cloned(),
        error: explained.err(),
    };
    let sample = compiled
        .sample(version.as_deref(), false)
        .ok()
        .map(|v| yaml_text(&v));
    let all_fields = compiled
        .sample_within(version.as_deref(), true, MAX_ALL_FIELDS_SAMPLE)
        .ok()
        .flatten()
        .map(|v| yaml_text(&v))
        .filter(|t| t.len() <= MAX_ALL_FIELDS_SAMPLE);
    (Some(preview), sample, all_fields)
}

/// One line of the explained text: a field heading (`  name<TAB><type>...` at the first
/// level) names a field to descend into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExplainLine {
    /// A plain line.
    Text(String),
    /// A field: its indent, name and the rest of the line.
    Field {
        /// The spaces before the name.
        indent: String,
        /// The field name.
        name: String,
        /// The tab, type and markers after it.
        rest: String,
    },
}

/// The explained text as lines; first-level field headings become [`ExplainLine::Field`]
/// (with `recursive`, every heading, each descending from the path by its own name only
/// when at the first level).
pub fn lines(text: &str) -> Vec<ExplainLine> {
    let mut in_fields = false;
    text.lines()
        .map(|l| {
            if l == "FIELDS:" {
                in_fields = true;
            }
            let heading =
                in_fields && l.starts_with("  ") && !l.starts_with("   ") && l.contains('\t');
            match (heading, l.split_once('\t')) {
                (true, Some((name, rest))) => ExplainLine::Field {
                    indent: "  ".to_owned(),
                    name: name.trim_start().to_owned(),
                    rest: format!("\t{rest}"),
                },
                _ => ExplainLine::Text(l.to_owned()),
            }
        })
        .collect()
}

/// The path one level down: `path.name`.
pub fn descend(path: &str, name: &str) -> String {
    let p = path.trim().trim_end_matches('.');
    if p.is_empty() {
        name.to_owned()
    } else {
        format!("{p}.{name}")
    }
}

/// The path one level up.
pub fn ascend(path: &str) -> String {
    let p = path.trim().trim_end_matches('.');
    p.rsplit_once('.')
        .map(|(a, _)| a.to_owned())
        .unwrap_or_default()
}

/// The Object text with `sample` added: the sample alone when the text is blank (nothing
/// typed is lost), else the text, then `---` and the sample as a new document, renamed
/// (`-2`, `-3`, …) when the text already holds an object of the sample's name.
pub fn with_sample(object_text: &str, sample: &str) -> String {
    if object_text.trim().is_empty() {
        return sample.to_owned();
    }
    let name = sample
        .lines()
        .find_map(|l| l.strip_prefix("  name: "))
        .unwrap_or("")
        .to_owned();
    let taken = |n: &str| {
        object_text
            .lines()
            .any(|l| l.trim() == format!("name: {n}"))
    };
    let mut sample = sample.to_owned();
    if !name.is_empty() && taken(&name) {
        let mut i = 2;
        while taken(&format!("{name}-{i}")) && i < 10_000 {
            i += 1;
        }
        sample = sample.replacen(
            &format!("  name: {name}\n"),
            &format!("  name: {name}-{i}\n"),
            1,
        );
    }
    let mut out = object_text.to_owned();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("---\n");
    out.push_str(&sample);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_paths_and_samples() {
        let text = "KIND:       W\nVERSION:    v1\n\nDESCRIPTION:\n    x\n    \nFIELDS:\n  spec\t<Object>\n    The spec.\n\n";
        let l = lines(text);
        assert_eq!(
            l.get(7),
            Some(&ExplainLine::Field {
                indent: "  ".into(),
                name: "spec".into(),
                rest: "\t<Object>".into()
            })
        );
        assert_eq!(l.get(8), Some(&ExplainLine::Text("    The spec.".into())));
        assert_eq!(descend("", "spec"), "spec");
        assert_eq!(descend("spec", "a"), "spec.a");
        assert_eq!(ascend("spec.a"), "spec");
        assert_eq!(ascend("spec"), "");
        assert_eq!(with_sample("  \n", "a: 1\n"), "a: 1\n");
        assert_eq!(with_sample("x: 1", "a: 1\n"), "x: 1\n---\na: 1\n");
        let s = "metadata:\n  name: w-sample\n";
        let twice = with_sample(&with_sample("x: 1\n", s), s);
        assert_eq!(
            twice,
            "x: 1\n---\nmetadata:\n  name: w-sample\n---\nmetadata:\n  name: w-sample-2\n"
        );
    }

    #[test]
    fn worker_answer() {
        let crd = include_str!("../examples/crontab/crd.yaml");
        let compiled = CompiledCrd::compile(crd, &crd_studio_engine::Options::default());
        let analysis = compiled.analyze_objects(&[], None);
        let (preview, sample, all_fields) = answer(&compiled, &analysis, "spec", false);
        let preview = preview.unwrap();
        assert!(preview.text.unwrap().contains("FIELD: spec <Object>"));
        assert!(sample
            .unwrap()
            .starts_with("apiVersion: stable.example.com/"));
        // The all-fields sample has every field of the schema (issue 30).
        let all_fields = all_fields.unwrap();
        for field in ["cronSpec:", "image:", "replicas:"] {
            assert!(all_fields.contains(field), "{all_fields}");
        }
    }
}
