//! CRD-wide changes and per-version settings: group, scope, names, versions (removed,
//! unserved, storage), conversion, subresources, printer columns and selectable fields.

use serde_json::Value as Json;

use super::sites::Revision;
use super::ChangeDetail;
use super::ChangeSeverity::{Breaking, Compatible, Risky};
use crate::documents::document::Node;

fn json(n: Option<&Node>) -> Option<Json> {
    n.map(Node::to_json)
}

fn text(v: &Option<Json>) -> String {
    match v {
        Some(Json::String(s)) => s.clone(),
        Some(v) => serde_json::to_string(v).unwrap_or_default(),
        None => "unset".to_owned(),
    }
}

fn bool_at(n: &Node, k: &str) -> bool {
    n.get(k)
        .and_then(|v| v.to_json().as_bool())
        .unwrap_or(false)
}

/// The versions of `status.storedVersions`, or the storage version when there is none.
fn stored_versions(r: &Revision<'_>) -> (Vec<String>, bool) {
    let listed: Vec<String> = r
        .get(&["status", "storedVersions"])
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    if !listed.is_empty() {
        return (listed, true);
    }
    let storage = r
        .versions
        .iter()
        .filter(|v| bool_at(v.node, "storage"))
        .map(|v| v.name.clone())
        .collect();
    (storage, false)
}

/// The CRD-wide and per-version-setting changes.
pub fn crd_changes(old: &Revision<'_>, new: &Revision<'_>) -> Vec<ChangeDetail> {
    let mut out = Vec::new();
    let both = |keys: &[&str]| (old.get(keys), new.get(keys));
    let locs = |keys: &[&str]| {
        (
            Some(old.at(old.span_of(keys))),
            Some(new.at(new.span_of(keys))),
        )
    };

    // Group, scope, names.
    let fields: &[(&[&str], &str, super::ChangeSeverity, &str)] = &[
        (&["spec", "group"], "group-changed", Breaking, "every client's apiVersion and the CRD's name change; stored objects are not carried over"),
        (&["spec", "scope"], "scope-changed", Breaking, "every client's URLs change and stored objects are not carried over"),
        (&["spec", "names", "plural"], "names-changed", Breaking, "the resource's URLs and the CRD's name change"),
        (&["spec", "names", "kind"], "names-changed", Breaking, "objects written with the old kind are rejected"),
        (&["spec", "names", "singular"], "names-changed", Risky, "kubectl commands using the old singular name fail"),
        (&["spec", "names", "listKind"], "names-changed", Risky, "clients decoding lists by kind break"),
        (&["spec", "names", "shortNames"], "names-changed", Risky, "kubectl commands using a removed short name fail"),
        (&["spec", "names", "categories"], "names-changed", Compatible, "kubectl get <category> lists change"),
    ];
    for (keys, code, sev, why) in fields {
        let (a, b) = both(keys);
        let (a, b) = (json(a), json(b));
        if a == b {
            continue;
        }
        let name = keys.last().copied().unwrap_or_default();
        let (old_loc, new_loc) = locs(keys);
        // Only additions to a list are compatible.
        let sev = match (&a, &b) {
            (Some(Json::Array(x)), Some(Json::Array(y))) if x.iter().all(|v| y.contains(v)) => {
                Compatible
            }
            (None, Some(_)) if name == "shortNames" || name == "categories" => Compatible,
            _ => *sev,
        };
        out.push(
            ChangeDetail::new(
                code,
                sev,
                None,
                format!("{name} changed from {} to {}: {why}", text(&a), text(&b)),
            )
            .keyword(name)
            .values(a, b)
            .at(old_loc, new_loc),
        );
    }

    // Versions.
    let (stored, from_status) = stored_versions(old);
    for ov in &old.versions {
        let vloc = Some(old.at(ov.node.span));
        match new.version(&ov.name) {
            None => {
                let is_stored = stored.contains(&ov.name);
                let mut d = ChangeDetail::new(
                    "version-removed",
                    if is_stored || bool_at(ov.node, "served") { Breaking } else { Compatible },
                    Some(&ov.name),
                    if is_stored {
                        format!(
                            "version {} removed while objects may be stored in it ({}): the server rejects the update until it is removed from status.storedVersions",
                            ov.name,
                            if from_status { "status.storedVersions" } else { "the storage version" }
                        )
                    } else {
                        format!("version {} removed: clients using it get 404", ov.name)
                    },
                )
                .keyword("versions")
                .at(vloc, Some(new.at(new.span_of(&["spec", "versions"]))));
                d.values = vec![Json::from(ov.name.clone())];
                // `after`: whether the version is a stored version as status.storedVersions says.
                d.after = Some(Json::from(is_stored && from_status));
                out.push(d);
            }
            Some(nv) => {
                let nloc = |k: &str| {
                    Some(
                        new.at(nv
                            .node
                            .entry(k)
                            .map(|e| super::entry_span(e.key_span, &e.value))
                            .unwrap_or(nv.node.span)),
                    )
                };
                let oloc = |k: &str| {
                    Some(
                        old.at(ov
                            .node
                            .entry(k)
                            .map(|e| super::entry_span(e.key_span, &e.value))
                            .unwrap_or(ov.node.span)),
                    )
                };
                let v = Some(ov.name.as_str());
                if bool_at(ov.node, "served") && !bool_at(nv.node, "served") {
                    out.push(
                        ChangeDetail::new(
                            "version-unserved",
                            Breaking,
                            v,
                            format!(
                                "version {} no longer served: clients using it get 404",
                                ov.name
                            ),
                        )
                        .keyword("served")
                        .at(oloc("served"), nloc("served")),
                    );
                } else if !bool_at(ov.node, "served") && bool_at(nv.node, "served") {
                    out.push(
                        ChangeDetail::new(
                            "version-served",
                            Compatible,
                            v,
                            format!("version {} now served", ov.name),
                        )
                        .keyword("served")
                        .at(oloc("served"), nloc("served")),
                    );
                }
                if bool_at(ov.node, "storage") != bool_at(nv.node, "storage")
                    && bool_at(nv.node, "storage")
                {
                    out.push(
                        ChangeDetail::new(
                            "storage-version-changed",
                            Risky,
                            v,
                            format!("storage version is now {}: new writes are stored in it, objects stored in the old one stay until rewritten (keep the old version in status.storedVersions until then)", ov.name),
                        )
                        .keyword("storage")
                        .at(oloc("storage"), nloc("storage")),
                    );
                }
                if !bool_at(ov.node, "deprecated") && bool_at(nv.node, "deprecated") {
                    out.push(
                        ChangeDetail::new(
                            "version-deprecated",
                            Compatible,
                            v,
                            format!("version {} deprecated: clients get a warning", ov.name),
                        )
                        .keyword("deprecated")
                        .at(oloc("deprecated"), nloc("deprecated")),
                    );
                }
                // Subresources.
                for (k, what) in [
                    ("status", "status subresource"),
                    ("scale", "scale subresource"),
                ] {
                    let a = ov
                        .node
                        .get("subresources")
                        .and_then(|s| s.get(k))
                        .map(Node::to_json);
                    let b = nv
                        .node
                        .get("subresources")
                        .and_then(|s| s.get(k))
                        .map(Node::to_json);
                    if a != b {
                        let msg = match (&a, &b) {
                            (None, Some(_)) if k == "status" => format!("{what} added: status in create and update requests is now ignored; clients must update /status"),
                            (Some(_), None) if k == "status" => format!("{what} removed: clients using /status get 404"),
                            (None, Some(_)) => format!("{what} added"),
                            (Some(_), None) => format!("{what} removed: clients using /scale (autoscalers) get 404"),
                            _ => format!("{what} changed: autoscalers read and write other fields"),
                        };
                        let sev = if a.is_none() && k == "scale" {
                            Compatible
                        } else {
                            Risky
                        };
                        out.push(
                            ChangeDetail::new("subresource-changed", sev, v, msg)
                                .keyword(k)
                                .values(a, b)
                                .at(oloc("subresources"), nloc("subresources")),
                        );
                    }
                }
                // Printer columns, by name.
                out.extend(named_list_changes(
                    old,
                    new,
                    ov.node,
                    nv.node,
                    v,
                    "additionalPrinterColumns",
                    "name",
                    "printer-column",
                    "printer column",
                    "kubectl get shows other columns",
                ));
                // Selectable fields, by JSONPath.
                out.extend(named_list_changes(
                    old,
                    new,
                    ov.node,
                    nv.node,
                    v,
                    "selectableFields",
                    "jsonPath",
                    "selectable-field",
                    "selectable field",
                    "field selectors using it are rejected",
                ));
            }
        }
    }
    for nv in &new.versions {
        if old.version(&nv.name).is_none() {
            out.push(
                ChangeDetail::new(
                    "version-added",
                    Compatible,
                    Some(&nv.name),
                    format!("version {} added", nv.name),
                )
                .keyword("versions")
                .at(
                    Some(old.at(old.span_of(&["spec", "versions"]))),
                    Some(new.at(nv.node.span)),
                ),
            );
        }
    }

    // Conversion.
    let (a, b) = both(&["spec", "conversion", "strategy"]);
    let strat = |n: Option<&Node>| n.and_then(Node::as_str).unwrap_or("None").to_owned();
    if strat(a) != strat(b) {
        let (ol, nl) = locs(&["spec", "conversion", "strategy"]);
        out.push(
            ChangeDetail::new(
                "conversion-changed",
                Risky,
                None,
                format!("conversion strategy changed from {} to {}: objects are converted differently between versions", strat(a), strat(b)),
            )
            .keyword("strategy")
            .values(Some(Json::from(strat(a))), Some(Json::from(strat(b))))
            .at(ol, nl),
        );
    }
    for k in ["webhook", "webhookClientConfig"] {
        let (a, b) = both(&["spec", "conversion", k]);
        let (a, b) = (json(a), json(b));
        if a != b && a.is_some() && b.is_some() {
            let (ol, nl) = locs(&["spec", "conversion", k]);
            out.push(
                ChangeDetail::new("conversion-changed", Risky, None, "conversion webhook changed: objects are converted by another endpoint or review version".to_owned())
                    .keyword(k)
                    .values(a, b)
                    .at(ol, nl),
            );
        }
    }
    let (a, b) = both(&["spec", "preserveUnknownFields"]);
    let t = |n: Option<&Node>| n.and_then(|v| v.to_json().as_bool()).unwrap_or(false);
    if t(a) != t(b) {
        let (ol, nl) = locs(&["spec", "preserveUnknownFields"]);
        out.push(
            ChangeDetail::new(
                "preserve-unknown-fields-changed",
                if t(a) { Breaking } else { Compatible },
                None,
                if t(a) {
                    "spec.preserveUnknownFields turned off: stored fields not in the schema are pruned on the next read".to_owned()
                } else {
                    "spec.preserveUnknownFields turned on".to_owned()
                },
            )
            .keyword("preserveUnknownFields")
            .at(ol, nl),
        );
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn named_list_changes(
    old: &Revision<'_>,
    new: &Revision<'_>,
    ov: &Node,
    nv: &Node,
    version: Option<&str>,
    list_key: &str,
    name_key: &str,
    code: &str,
    what: &str,
    why: &str,
) -> Vec<ChangeDetail> {
    let empty: &[Node] = &[];
    let ol = ov.get(list_key).and_then(Node::as_seq).unwrap_or(empty);
    let nl = nv.get(list_key).and_then(Node::as_seq).unwrap_or(empty);
    let name = |n: &Node| {
        n.get(name_key)
            .and_then(Node::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let list_span =
        |r: &Revision<'_>, v: &Node| r.at(v.entry(list_key).map(|e| e.key_span).unwrap_or(v.span));
    let mut out = Vec::new();
    for o in ol {
        let n = name(o);
        match nl.iter().find(|x| name(x) == n) {
            None => out.push(
                ChangeDetail::new(
                    &format!("{code}-removed"),
                    Risky,
                    version,
                    format!("{what} {n} removed: {why}"),
                )
                .keyword(list_key)
                .at(Some(old.at(o.span)), Some(list_span(new, nv))),
            ),
            Some(x) if x.to_json() != o.to_json() => out.push(
                ChangeDetail::new(
                    &format!("{code}-changed"),
                    Risky,
                    version,
                    format!("{what} {n} changed: {why}"),
                )
                .keyword(list_key)
                .values(Some(o.to_json()), Some(x.to_json()))
                .at(Some(old.at(o.span)), Some(new.at(x.span))),
            ),
            _ => {}
        }
    }
    for x in nl {
        let n = name(x);
        if !ol.iter().any(|o| name(o) == n) {
            out.push(
                ChangeDetail::new(
                    &format!("{code}-added"),
                    Compatible,
                    version,
                    format!("{what} {n} added"),
                )
                .keyword(list_key)
                .at(Some(list_span(old, ov)), Some(new.at(x.span))),
            );
        }
    }
    out
}
