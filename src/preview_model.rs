//! Pure view logic of the "kubectl get" and "Conversion" tabs: what each row says, computed
//! from the engine's [`Analysis`] and [`Previews`] (no Kubernetes logic here: every verdict and
//! message is the engine's). Compiles everywhere, so `cargo test` checks it natively.

use crd_studio_engine::{Analysis, FieldSelectorPreview, Operator, Requirement, Span, Strategy};
use serde_json::Value;

use crate::stored_model::{render, YamlLine};

/// A value as block YAML (`kubectl get -o yaml` style).
pub fn yaml_text(value: &Value) -> String {
    let mut lines: Vec<YamlLine> = Vec::new();
    render(value, &mut lines);
    let mut out = String::new();
    for l in &lines {
        out.push_str(&l.text());
        out.push('\n');
    }
    out
}

/// A value in one line: compact JSON, or `(missing)`.
pub fn value_text(value: Option<&Value>) -> String {
    match value {
        None => "(missing)".to_owned(),
        Some(v) => serde_json::to_string(v).unwrap_or_default(),
    }
}

/// How a sample is named in the tabs: its `metadata.name`, else its document.
pub fn object_label(analysis: &Analysis, source: usize, document: usize) -> String {
    let name = analysis
        .objects
        .iter()
        .find(|o| o.source == source && o.document == document)
        .map(|o| o.name.clone())
        .unwrap_or_default();
    if name.is_empty() {
        format!("document {}", document + 1)
    } else {
        name
    }
}

/// `line:column` of the start of a span.
pub fn place(span: &Span) -> String {
    format!("{}:{}", span.start.line, span.start.column)
}

/// The strategy as the CRD writes it.
pub fn strategy_name(strategy: &Strategy) -> String {
    match strategy {
        Strategy::None => "None".to_owned(),
        Strategy::Webhook { .. } => "Webhook".to_owned(),
        Strategy::Unknown { name } => name.clone(),
    }
}

/// One sample's verdict under a field selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectorRow {
    /// The object's name.
    pub label: String,
    /// `Some(true)`: listed; `Some(false)`: filtered out; `None`: not checked.
    pub matches: Option<bool>,
    /// The object's field set, `label=value`, comma separated.
    pub fields: String,
    /// The terms the object fails, or why it was not checked, or the strategy's error.
    pub note: String,
}

/// The rows of the field selector preview (empty when the request as a whole fails).
pub fn selector_rows(analysis: &Analysis, preview: &FieldSelectorPreview) -> Vec<SelectorRow> {
    let mut rows = Vec::new();
    if preview.selection.error.is_some() {
        return rows;
    }
    for (i, (source, document)) in preview.samples.iter().enumerate() {
        let Some(m) = preview.selection.objects.get(i) else {
            continue;
        };
        let fields = m
            .fields
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ");
        let note = if let Some(e) = &m.error {
            e.clone()
        } else {
            m.failed
                .iter()
                .filter_map(|t| preview.selection.requirements.get(*t))
                .map(|r| format!("fails {}", requirement_text(r)))
                .collect::<Vec<_>>()
                .join("; ")
        };
        rows.push(SelectorRow {
            label: object_label(analysis, *source, *document),
            matches: Some(m.matches),
            fields,
            note,
        });
    }
    for (source, document, reason) in &preview.left_out {
        rows.push(SelectorRow {
            label: object_label(analysis, *source, *document),
            matches: None,
            fields: String::new(),
            note: reason.clone(),
        });
    }
    rows
}

fn requirement_text(r: &Requirement) -> String {
    let op = match r.operator {
        Operator::Equals => "=",
        Operator::NotEquals => "!=",
    };
    format!("{}{op}{}", r.field, r.value)
}

/// The versions a conversion can target: every version of the CRD, in its order.
pub fn version_names(analysis: &Analysis) -> Vec<String> {
    analysis.versions.iter().map(|v| v.name.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view_model::{EXAMPLE_CRD, EXAMPLE_OBJECT};
    use crate::worker_boundary::{answer_with, PreviewQuery};
    use crd_studio_engine::Request;

    fn request(crd: &str, objects: &[&str]) -> Request {
        Request {
            crd: crd.to_owned(),
            objects: objects.iter().map(|s| (*s).to_owned()).collect(),
            ..Request::default()
        }
    }

    #[test]
    fn yaml_and_values() {
        let v = serde_json::json!({"a": {"b": [1, "x"]}});
        assert_eq!(yaml_text(&v), "a:\n  b:\n  - 1\n  - x\n");
        assert_eq!(value_text(None), "(missing)");
        assert_eq!(value_text(Some(&serde_json::json!("s"))), "\"s\"");
    }

    #[test]
    fn field_selector_rows_follow_the_engine() {
        let other = EXAMPLE_OBJECT.replace("my-new-cron-object", "other");
        let req = request(EXAMPLE_CRD, &[&format!("{EXAMPLE_OBJECT}---\n{other}")]);
        let query = PreviewQuery {
            field_selector: "metadata.name=other".to_owned(),
            ..PreviewQuery::default()
        };
        let reply = answer_with(&req, &query);
        let preview = reply.previews.field_selector.expect("a selector preview");
        let rows = selector_rows(&reply.analysis, &preview);
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(rows[0].label, "my-new-cron-object");
        assert_eq!(rows[0].matches, Some(false));
        assert!(rows[0].note.contains("metadata.name"), "{:?}", rows[0]);
        assert_eq!(rows[1].matches, Some(true));

        let query = PreviewQuery {
            field_selector: "spec.image=x".to_owned(),
            ..PreviewQuery::default()
        };
        let reply = answer_with(&req, &query);
        let preview = reply.previews.field_selector.expect("a selector preview");
        assert!(selector_rows(&reply.analysis, &preview).is_empty());
        let error = preview.selection.error.expect("an error");
        assert!(error
            .kubectl
            .contains("field label not supported: spec.image"));
    }

    #[test]
    fn strategy_and_target_default() {
        let req = request(EXAMPLE_CRD, &[EXAMPLE_OBJECT]);
        let reply = answer_with(&req, &PreviewQuery::default());
        assert_eq!(
            reply
                .previews
                .strategy
                .as_ref()
                .map(strategy_name)
                .as_deref(),
            Some("None")
        );
        assert_eq!(reply.previews.target, "v1");
        assert!(reply.previews.webhook.is_none());
        assert_eq!(version_names(&reply.analysis), ["v1"]);
    }
}
