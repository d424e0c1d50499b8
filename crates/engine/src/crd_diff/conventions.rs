//! Kubernetes API conventions a new revision starts to break (the checks of
//! openshift/crd-schema-checker's linters): booleans, floats, unsigned integers, maps, lists
//! without a server-side-apply list type, `conditions` lists that are not `metav1.Condition`
//! map lists, and a status schema without the status subresource. Each check runs on the new
//! revision and, when there is one, on the old; what the old revision already did is not
//! reported (ratcheting), so only new violations show. They break nothing: compatible.

use serde_json::Value as Json;

use super::sites::{field_text, Revision, Site, VersionNode};
use super::{ChangeDetail, ChangeSeverity};
use crate::documents::document::Node;
use crate::documents::finding::Location;

/// One convention violation in one revision.
struct Violation {
    code: &'static str,
    version: String,
    field: String,
    value: Option<String>,
    message: String,
    location: Location,
}

fn str_at<'a>(n: &'a Node, k: &str) -> &'a str {
    n.get(k).and_then(Node::as_str).unwrap_or_default()
}

/// The attributes a `metav1.Condition` item schema must have.
const CONDITION_ATTRIBUTES: &[&str] = &[
    "type",
    "status",
    "observedGeneration",
    "lastTransitionTime",
    "reason",
    "message",
];

fn site_violations(
    r: &Revision<'_>,
    v: &VersionNode<'_>,
    site: &Site<'_>,
    out: &mut Vec<Violation>,
) {
    let field = field_text(&site.steps);
    let n = site.node;
    let ty = str_at(n, "type");
    let at = |k: &str| {
        r.at(n
            .entry(k)
            .map(|e| super::entry_span(e.key_span, &e.value))
            .unwrap_or(site.key_span))
    };
    let mut push =
        |code: &'static str, value: Option<String>, message: String, location: Location| {
            out.push(Violation {
                code,
                version: v.name.clone(),
                field: field.clone(),
                value,
                message: format!("{field}: {message}"),
                location,
            })
        };
    match ty {
        "boolean" => push(
            "convention-boolean",
            None,
            "a boolean: API conventions prefer an enum of named states, which can grow".to_owned(),
            at("type"),
        ),
        "number" => push(
            "convention-float",
            None,
            "a float: API conventions avoid floats (not portable, not exact); use an integer or a quantity string".to_owned(),
            at("type"),
        ),
        _ => {}
    }
    if str_at(n, "format") == "uint" {
        push(
            "convention-uint",
            None,
            "an unsigned integer: API conventions avoid unsigned types (not every language has them)".to_owned(),
            at("format"),
        );
    }
    if ty == "object" && n.get("additionalProperties").is_some() {
        push(
            "convention-map",
            None,
            "a map: API conventions prefer a list of objects with a name key".to_owned(),
            at("additionalProperties"),
        );
    }
    if ty == "array" {
        let list_type = str_at(n, "x-kubernetes-list-type");
        if list_type.is_empty() {
            push(
                "convention-list-type",
                None,
                "a list without x-kubernetes-list-type: server-side apply replaces it whole"
                    .to_owned(),
                at("type"),
            );
        }
        if field.contains(".conditions") {
            if list_type != "map" {
                push(
                    "convention-conditions-list-type",
                    None,
                    "a conditions list must be x-kubernetes-list-type: map".to_owned(),
                    at("x-kubernetes-list-type"),
                );
            }
            let keys: Vec<&str> = n
                .get("x-kubernetes-list-map-keys")
                .and_then(Node::as_seq)
                .unwrap_or_default()
                .iter()
                .filter_map(Node::as_str)
                .collect();
            if keys != ["type"] {
                push(
                    "convention-conditions-map-keys",
                    None,
                    "a conditions list must have x-kubernetes-list-map-keys: [type]".to_owned(),
                    at("x-kubernetes-list-map-keys"),
                );
            }
            if let Some(items) = n.get("items").filter(|i| i.as_map().is_some()) {
                let props = items.get("properties");
                for a in CONDITION_ATTRIBUTES {
                    if props.and_then(|p| p.get(a)).is_none() {
                        push(
                            "convention-condition-attribute",
                            Some((*a).to_owned()),
                            format!(
                                "a condition item must have the metav1.Condition attribute {a}"
                            ),
                            r.at(n
                                .entry("items")
                                .map(|e| e.key_span)
                                .unwrap_or(site.key_span)),
                        );
                    }
                }
            }
        }
    }
}

fn violations(r: &Revision<'_>) -> Vec<Violation> {
    let mut out = Vec::new();
    for v in &r.versions {
        for site in &v.sites.list {
            site_violations(r, v, site, &mut out);
        }
        let has_status_schema = v.sites.get("^.status").is_some();
        let has_status_subresource = v
            .node
            .get("subresources")
            .and_then(|s| s.get("status"))
            .is_some();
        if has_status_schema && !has_status_subresource {
            let span = v
                .sites
                .get("^.status")
                .map(|s| s.key_span)
                .unwrap_or(v.node.span);
            out.push(Violation {
                code: "convention-status-subresource",
                version: v.name.clone(),
                field: ".status".to_owned(),
                value: None,
                message: format!(
                    "version {} has a status schema but no status subresource: status is written with the rest of the object",
                    v.name
                ),
                location: r.at(span),
            });
        }
    }
    out
}

/// The convention violations of `new` that `old` did not already have (all of them without
/// `old`).
pub fn convention_changes(old: Option<&Revision<'_>>, new: &Revision<'_>) -> Vec<ChangeDetail> {
    let before = old.map(violations).unwrap_or_default();
    violations(new)
        .into_iter()
        .filter(|v| {
            !before.iter().any(|b| {
                b.code == v.code
                    && b.version == v.version
                    && b.field == v.field
                    && b.value == v.value
            })
        })
        .map(|v| {
            let mut d = ChangeDetail::new(
                v.code,
                ChangeSeverity::Compatible,
                Some(&v.version),
                v.message,
            )
            .at(None, Some(v.location));
            d.change.field = Some(v.field);
            d.values = v.value.map(Json::from).into_iter().collect();
            d
        })
        .collect()
}
