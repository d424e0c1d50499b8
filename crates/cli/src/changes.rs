//! `crd-studio check --old-crd FILE`: the CRD checked as an update of its previous revision,
//! the changes between the revisions, and what the new revision does to each object as stored
//! under the previous one (text and JSON parts of `check`'s output).

use crd_studio_engine::{Analysis, ChangeSeverity, RequestVerdict, StoredEffect};
use serde_json::{json, Value};

/// The text section: the update's verdict, the changes, the stored-object effects.
pub fn text_section(analysis: &Analysis, crd: &str, old_crd: &str, objects: &[&str]) -> String {
    let mut out = format!(
        "CRD update of {old_crd} to {crd}: {}\n",
        if analysis.crd.accepted {
            "accepted"
        } else {
            "rejected"
        }
    );
    if analysis.changes.is_empty() {
        out.push_str("changes: none found\n");
    } else {
        out.push_str("changes:\n");
        for c in &analysis.changes {
            let at = |file: &str, l: Option<crd_studio_engine::Location>| {
                l.map(|l| format!("{file}:{}:{}", l.span.start.line, l.span.start.column))
            };
            let places: Vec<String> = [at(old_crd, c.old), at(crd, c.new)]
                .into_iter()
                .flatten()
                .collect();
            out.push_str(&format!(
                "  {}: {}{}{} [{}]{}\n",
                severity_word(c.severity),
                c.version
                    .as_deref()
                    .map(|v| format!("{v}: "))
                    .unwrap_or_default(),
                c.field
                    .as_deref()
                    .filter(|f| !c.message.starts_with(f))
                    .map(|f| format!("{f}: "))
                    .unwrap_or_default(),
                c.message,
                c.code,
                if places.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", places.join(" → "))
                }
            ));
        }
    }
    out.push_str(&effects_text(analysis, crd, old_crd, objects));
    out
}

/// The stored-object effects part of [`text_section`] (also printed by `crd-studio diff`).
pub fn effects_text(analysis: &Analysis, crd: &str, old_crd: &str, objects: &[&str]) -> String {
    let mut out = String::new();
    if !analysis.stored_effects.is_empty() {
        out.push_str(&format!(
            "objects as stored under {old_crd}, under {crd}:\n"
        ));
    }
    for e in &analysis.stored_effects {
        let file = objects.get(e.source).copied().unwrap_or("<object>");
        out.push_str(&format!(
            "  {file}#{} {}/{}:",
            e.document + 1,
            e.kind,
            e.name
        ));
        if let Some(note) = &e.note {
            out.push_str(&format!(" {note}\n"));
            continue;
        }
        if e.read_pruned.is_empty() {
            out.push_str(" read keeps every field;");
        } else {
            out.push_str(&format!(
                " read drops {} (data lost);",
                e.read_pruned.join(", ")
            ));
        }
        if !e.read_defaulted.is_empty() {
            out.push_str(&format!(" read defaults {};", e.read_defaulted.join(", ")));
        }
        out.push_str(&format!(
            " unchanged update {}; create {}\n",
            verdict_words(&e.update),
            verdict_words(&e.create)
        ));
    }
    out
}

pub(crate) fn severity_word(s: ChangeSeverity) -> &'static str {
    match s {
        ChangeSeverity::Breaking => "breaking",
        ChangeSeverity::Risky => "risky",
        ChangeSeverity::Compatible => "compatible",
    }
}

fn verdict_words(v: &RequestVerdict) -> String {
    if v.accepted {
        return "accepted".to_owned();
    }
    let why = v
        .decode_error
        .clone()
        .or_else(|| v.errors.first().map(|e| e.error.clone()))
        .unwrap_or_default();
    let more = v.errors.len().saturating_sub(1);
    if more > 0 {
        format!("rejected ({why}; {more} more)")
    } else {
        format!("rejected ({why})")
    }
}

/// The JSON parts: `changes` (each with the files its locations are in) and `storedEffects`
/// (each with its object's file).
pub fn json_parts(analysis: &Analysis, crd: &str, old_crd: &str, objects: &[&str]) -> Value {
    let changes: Vec<Value> = analysis
        .changes
        .iter()
        .map(|c| {
            let mut v = serde_json::to_value(c).unwrap_or(Value::Null);
            if let Some(map) = v.as_object_mut() {
                for (key, file) in [("old", old_crd), ("new", crd)] {
                    if let Some(Value::Object(l)) = map.get_mut(key) {
                        l.insert("file".into(), json!(file));
                    }
                }
            }
            v
        })
        .collect();
    let effects: Vec<Value> = analysis
        .stored_effects
        .iter()
        .map(|e: &StoredEffect| {
            let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
            if let Some(map) = v.as_object_mut() {
                map.remove("source");
                map.insert(
                    "file".into(),
                    json!(objects.get(e.source).copied().unwrap_or("<object>")),
                );
            }
            v
        })
        .collect();
    json!({ "previousFile": old_crd, "changes": changes, "storedEffects": effects })
}
