//! The keywords of one schema node, old against new (child schemas are compared at their own
//! sites): type, format, bounds, enum, pattern, nullable, default, required, the
//! `x-kubernetes-*` extensions, documentation, and any other keyword.

use serde_json::Value as Json;

use super::sites::CHILD_KEYWORDS;
use super::ChangeSeverity::{self, Breaking, Compatible, Risky};
use crate::documents::document::Node;

/// One keyword difference at a schema node.
#[derive(Clone, Debug, PartialEq)]
pub struct KeywordChange {
    /// The change code without the `crd.change.` prefix.
    pub code: &'static str,
    /// The keyword (where it is located).
    pub keyword: String,
    /// How bad it is.
    pub severity: ChangeSeverity,
    /// What changed (the field is added by the caller).
    pub message: String,
    /// The old value.
    pub before: Option<Json>,
    /// The new value.
    pub after: Option<Json>,
    /// The values the change is about (enum values, required names), as JSON.
    pub values: Vec<Json>,
}

/// Keywords compared elsewhere: child schemas at their sites, rules by `rules.rs`.
fn compared_elsewhere(k: &str) -> bool {
    CHILD_KEYWORDS.contains(&k) || k == "x-kubernetes-validations"
}

/// The node's keywords as JSON (child schemas left out); `additionalProperties` only in its
/// boolean form.
fn keywords(node: Option<&Node>) -> Vec<(String, Json)> {
    let mut out = Vec::new();
    for e in node.and_then(Node::as_map).unwrap_or_default() {
        if compared_elsewhere(&e.key)
            || (e.key == "additionalProperties" && e.value.as_map().is_some())
        {
            continue;
        }
        out.push((e.key.clone(), e.value.to_json()));
    }
    out
}

fn get<'a>(kws: &'a [(String, Json)], k: &str) -> Option<&'a Json> {
    kws.iter().find(|(key, _)| key == k).map(|(_, v)| v)
}

fn text(v: &Json) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn truthy(v: Option<&Json>) -> bool {
    v.and_then(Json::as_bool).unwrap_or(false)
}

/// Lists of JSON values, sorted by their JSON text.
fn sorted_texts(v: Option<&Json>) -> Vec<(String, Json)> {
    let mut out: Vec<(String, Json)> = v
        .and_then(Json::as_array)
        .map(|a| a.iter().map(|x| (text(x), x.clone())).collect())
        .unwrap_or_default();
    crd_studio_gostd::sort::stable_by(&mut out, |a, b| a.0.cmp(&b.0));
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

#[allow(clippy::too_many_arguments)]
fn change(
    code: &'static str,
    keyword: &str,
    severity: ChangeSeverity,
    message: String,
    before: Option<&Json>,
    after: Option<&Json>,
    values: Vec<Json>,
) -> KeywordChange {
    KeywordChange {
        code,
        keyword: keyword.to_owned(),
        severity,
        message,
        before: before.cloned(),
        after: after.cloned(),
        values,
    }
}

const UPPER_BOUNDS: &[&str] = &["maximum", "maxLength", "maxItems", "maxProperties"];
const LOWER_BOUNDS: &[&str] = &["minimum", "minLength", "minItems", "minProperties"];
const DOCS: &[&str] = &["title", "example", "externalDocs", "$schema", "id", "$ref"];

/// The keyword differences from `old` to `new` (either may be absent: compared with an empty
/// schema), in a fixed keyword order.
pub fn keyword_changes(old: Option<&Node>, new: Option<&Node>) -> Vec<KeywordChange> {
    let o = keywords(old);
    let n = keywords(new);
    let mut out = Vec::new();
    let mut handled: Vec<&str> = Vec::new();

    // type
    handled.push("type");
    let (ot, nt) = (get(&o, "type"), get(&n, "type"));
    if ot != nt {
        let os = ot.and_then(Json::as_str).unwrap_or_default();
        let ns = nt.and_then(Json::as_str).unwrap_or_default();
        let (sev, msg) = match (os.is_empty(), ns.is_empty()) {
            (false, false) => (
                Breaking,
                format!(
                    "type changed from {os} to {ns}: stored values of type {os} no longer validate"
                ),
            ),
            (true, _) => (
                Risky,
                format!("type {ns} added: values of other types are rejected"),
            ),
            (false, true) => (
                Compatible,
                format!("type {os} removed: any type is accepted"),
            ),
        };
        out.push(change("type-changed", "type", sev, msg, ot, nt, vec![]));
    }

    // format
    handled.push("format");
    let (of, nf) = (get(&o, "format"), get(&n, "format"));
    if of != nf {
        let os = of.and_then(Json::as_str).unwrap_or_default();
        let ns = nf.and_then(Json::as_str).unwrap_or_default();
        let (sev, msg) = if ns.is_empty() {
            (Compatible, format!("format {os} removed"))
        } else if os.is_empty() {
            (
                Risky,
                format!("format {ns} added: values not in that format are rejected"),
            )
        } else {
            (
                Risky,
                format!("format changed from {os} to {ns}: values valid before may be rejected"),
            )
        };
        out.push(change("format-changed", "format", sev, msg, of, nf, vec![]));
    }

    // description
    handled.push("description");
    let (od, nd) = (get(&o, "description"), get(&n, "description"));
    if od != nd {
        out.push(change(
            "description-changed",
            "description",
            Compatible,
            "description changed".to_owned(),
            od,
            nd,
            vec![],
        ));
    }

    // default
    handled.push("default");
    let (odf, ndf) = (get(&o, "default"), get(&n, "default"));
    match (odf, ndf) {
        (None, Some(d)) => out.push(change(
            "default-added",
            "default",
            Risky,
            format!("default {} added: stored objects without the field read it with the default", text(d)),
            odf,
            ndf,
            vec![],
        )),
        (Some(d), None) => out.push(change(
            "default-removed",
            "default",
            Risky,
            format!("default {} removed: objects without the field no longer get it", text(d)),
            odf,
            ndf,
            vec![],
        )),
        (Some(a), Some(b)) if a != b => out.push(change(
            "default-changed",
            "default",
            Risky,
            format!(
                "default changed from {} to {}: stored objects without the field read the new value",
                text(a),
                text(b)
            ),
            odf,
            ndf,
            vec![],
        )),
        _ => {}
    }

    // enum
    handled.push("enum");
    let (oe, ne) = (get(&o, "enum"), get(&n, "enum"));
    if oe != ne {
        let ov = sorted_texts(oe);
        let nv = sorted_texts(ne);
        let list = |v: &[(String, Json)]| {
            v.iter()
                .map(|(t, _)| t.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match (oe.is_some(), ne.is_some()) {
            (false, true) => out.push(change(
                "enum-added",
                "enum",
                Risky,
                format!("enum added: only {} are accepted", list(&nv)),
                oe,
                ne,
                nv.iter().map(|(_, v)| v.clone()).collect(),
            )),
            (true, false) => out.push(change(
                "enum-removed",
                "enum",
                Compatible,
                "enum removed: any value is accepted".to_owned(),
                oe,
                ne,
                ov.iter().map(|(_, v)| v.clone()).collect(),
            )),
            _ => {
                let removed: Vec<(String, Json)> = ov
                    .iter()
                    .filter(|(t, _)| !nv.iter().any(|(u, _)| u == t))
                    .cloned()
                    .collect();
                let added: Vec<(String, Json)> = nv
                    .iter()
                    .filter(|(t, _)| !ov.iter().any(|(u, _)| u == t))
                    .cloned()
                    .collect();
                if !removed.is_empty() {
                    out.push(change(
                        "enum-values-removed",
                        "enum",
                        Risky,
                        format!(
                            "enum values {} removed: objects holding them are rejected on create, and on update unless the value is unchanged (ratcheting)",
                            list(&removed)
                        ),
                        oe,
                        ne,
                        removed.into_iter().map(|(_, v)| v).collect(),
                    ));
                }
                if !added.is_empty() {
                    out.push(change(
                        "enum-values-added",
                        "enum",
                        Compatible,
                        format!(
                            "enum values {} added: clients that know only the old values may not handle them",
                            list(&added)
                        ),
                        oe,
                        ne,
                        added.into_iter().map(|(_, v)| v).collect(),
                    ));
                }
            }
        }
    }

    // bounds
    for (keywords, upper) in [(UPPER_BOUNDS, true), (LOWER_BOUNDS, false)] {
        for k in keywords.iter().copied() {
            handled.push(k);
            let (a, b) = (get(&o, k), get(&n, k));
            if a == b {
                continue;
            }
            let (af, bf) = (a.and_then(Json::as_f64), b.and_then(Json::as_f64));
            let c = match (af, bf) {
                (None, Some(y)) => Some(change(
                    "bound-added",
                    k,
                    Risky,
                    format!(
                        "{k} {} added: values beyond it are rejected",
                        text_num(b, y)
                    ),
                    a,
                    b,
                    vec![],
                )),
                (Some(x), None) => Some(change(
                    "bound-removed",
                    k,
                    Compatible,
                    format!("{k} {} removed", text_num(a, x)),
                    a,
                    b,
                    vec![],
                )),
                (Some(x), Some(y)) if (upper && y < x) || (!upper && y > x) => Some(change(
                    "bound-tightened",
                    k,
                    Risky,
                    format!(
                        "{k} {} from {} to {}: values between them are rejected on create, and on update unless unchanged (ratcheting)",
                        if upper { "lowered" } else { "raised" },
                        text_num(a, x),
                        text_num(b, y)
                    ),
                    a,
                    b,
                    vec![],
                )),
                (Some(x), Some(y)) if x != y => Some(change(
                    "bound-loosened",
                    k,
                    Compatible,
                    format!(
                        "{k} {} from {} to {}",
                        if upper { "raised" } else { "lowered" },
                        text_num(a, x),
                        text_num(b, y)
                    ),
                    a,
                    b,
                    vec![],
                )),
                _ => None,
            };
            out.extend(c);
        }
    }
    for k in ["exclusiveMaximum", "exclusiveMinimum"] {
        handled.push(k);
        let (a, b) = (get(&o, k), get(&n, k));
        if truthy(a) != truthy(b) {
            out.push(if truthy(b) {
                change(
                    "bound-tightened",
                    k,
                    Risky,
                    format!("{k} set: the bound itself is rejected"),
                    a,
                    b,
                    vec![],
                )
            } else {
                change(
                    "bound-loosened",
                    k,
                    Compatible,
                    format!("{k} unset: the bound itself is accepted"),
                    a,
                    b,
                    vec![],
                )
            });
        }
    }
    handled.push("multipleOf");
    let (a, b) = (get(&o, "multipleOf"), get(&n, "multipleOf"));
    if a != b {
        out.push(if b.is_none() {
            change(
                "multiple-of-changed",
                "multipleOf",
                Compatible,
                "multipleOf removed".to_owned(),
                a,
                b,
                vec![],
            )
        } else {
            change(
                "multiple-of-changed",
                "multipleOf",
                Risky,
                format!(
                    "multipleOf {} set: values valid before may be rejected",
                    b.map(text).unwrap_or_default()
                ),
                a,
                b,
                vec![],
            )
        });
    }
    handled.push("uniqueItems");
    let (a, b) = (get(&o, "uniqueItems"), get(&n, "uniqueItems"));
    if truthy(a) != truthy(b) {
        out.push(if truthy(b) {
            change(
                "unique-items-changed",
                "uniqueItems",
                Risky,
                "uniqueItems set: lists with duplicates are rejected".to_owned(),
                a,
                b,
                vec![],
            )
        } else {
            change(
                "unique-items-changed",
                "uniqueItems",
                Compatible,
                "uniqueItems unset".to_owned(),
                a,
                b,
                vec![],
            )
        });
    }

    // pattern
    handled.push("pattern");
    let (a, b) = (get(&o, "pattern"), get(&n, "pattern"));
    if a != b {
        let (code, sev, msg) = match (a, b) {
            (None, Some(p)) => (
                "pattern-added",
                Risky,
                format!(
                    "pattern {} added: values not matching it are rejected",
                    text(p)
                ),
            ),
            (Some(p), None) => (
                "pattern-removed",
                Compatible,
                format!("pattern {} removed", text(p)),
            ),
            _ => (
                "pattern-changed",
                Risky,
                format!(
                    "pattern changed from {} to {}: values valid before may be rejected",
                    a.map(text).unwrap_or_default(),
                    b.map(text).unwrap_or_default()
                ),
            ),
        };
        out.push(change(code, "pattern", sev, msg, a, b, vec![]));
    }

    // nullable
    handled.push("nullable");
    let (a, b) = (get(&o, "nullable"), get(&n, "nullable"));
    if truthy(a) != truthy(b) {
        out.push(if truthy(b) {
            change(
                "nullable-added",
                "nullable",
                Compatible,
                "nullable added: null is accepted".to_owned(),
                a,
                b,
                vec![],
            )
        } else {
            change(
                "nullable-removed",
                "nullable",
                Risky,
                "nullable removed: null is pruned or rejected, stored nulls are dropped".to_owned(),
                a,
                b,
                vec![],
            )
        });
    }

    // required
    handled.push("required");
    let (a, b) = (get(&o, "required"), get(&n, "required"));
    if a != b {
        let on = sorted_texts(a);
        let nn = sorted_texts(b);
        let added: Vec<Json> = nn
            .iter()
            .filter(|(t, _)| !on.iter().any(|(u, _)| u == t))
            .map(|(_, v)| v.clone())
            .collect();
        let removed: Vec<Json> = on
            .iter()
            .filter(|(t, _)| !nn.iter().any(|(u, _)| u == t))
            .map(|(_, v)| v.clone())
            .collect();
        let names = |v: &[Json]| {
            v.iter()
                .map(|x| x.as_str().unwrap_or_default().to_owned())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !added.is_empty() {
            // Kubernetes' API change guidelines (community
            // `contributors/devel/sig-architecture/api_changes.md`, "On compatibility"): a
            // compatible change "does not add a new required field" nor changes "which fields
            // are required": every client that creates objects without it breaks. Stored
            // objects are ratcheted on update.
            out.push(change(
                "required-added",
                "required",
                Breaking,
                format!(
                    "{} now required: every client that creates objects without it is rejected; stored objects without it are still accepted on update while that part is unchanged (ratcheting)",
                    names(&added)
                ),
                a,
                b,
                added,
            ));
        }
        if !removed.is_empty() {
            out.push(change(
                "required-removed",
                "required",
                Compatible,
                format!(
                    "{} no longer required: clients may see it absent",
                    names(&removed)
                ),
                a,
                b,
                removed,
            ));
        }
    }

    // list and map types
    for (k, code, what) in [
        ("x-kubernetes-list-type", "list-type-changed", "list type"),
        (
            "x-kubernetes-list-map-keys",
            "list-map-keys-changed",
            "list map keys",
        ),
        ("x-kubernetes-map-type", "map-type-changed", "map type"),
    ] {
        handled.push(k);
        let (a, b) = (get(&o, k), get(&n, k));
        if a != b {
            out.push(change(
                code,
                k,
                Risky,
                format!(
                    "{what} changed from {} to {}: server-side apply merges differently and duplicates may be rejected",
                    a.map(text).unwrap_or_else(|| "unset".to_owned()),
                    b.map(text).unwrap_or_else(|| "unset".to_owned())
                ),
                a,
                b,
                vec![],
            ));
        }
    }

    // preserve-unknown-fields, embedded resources, int-or-string, additionalProperties
    handled.push("x-kubernetes-preserve-unknown-fields");
    let (a, b) = (
        get(&o, "x-kubernetes-preserve-unknown-fields"),
        get(&n, "x-kubernetes-preserve-unknown-fields"),
    );
    if truthy(a) != truthy(b) {
        out.push(if truthy(b) {
            change("preserve-unknown-fields-changed", "x-kubernetes-preserve-unknown-fields", Compatible, "unknown fields are now kept".to_owned(), a, b, vec![])
        } else {
            change(
                "preserve-unknown-fields-changed",
                "x-kubernetes-preserve-unknown-fields",
                Breaking,
                "unknown fields are no longer kept: stored data not in the schema is pruned on the next read".to_owned(),
                a,
                b,
                vec![],
            )
        });
    }
    handled.push("x-kubernetes-embedded-resource");
    let (a, b) = (
        get(&o, "x-kubernetes-embedded-resource"),
        get(&n, "x-kubernetes-embedded-resource"),
    );
    if truthy(a) != truthy(b) {
        out.push(change(
            "embedded-resource-changed",
            "x-kubernetes-embedded-resource",
            Risky,
            if truthy(b) {
                "now an embedded resource: apiVersion, kind and metadata are required and validated"
                    .to_owned()
            } else {
                "no longer an embedded resource: its metadata is pruned like any object".to_owned()
            },
            a,
            b,
            vec![],
        ));
    }
    handled.push("x-kubernetes-int-or-string");
    let (a, b) = (
        get(&o, "x-kubernetes-int-or-string"),
        get(&n, "x-kubernetes-int-or-string"),
    );
    if truthy(a) != truthy(b) {
        out.push(if truthy(b) {
            change("int-or-string-changed", "x-kubernetes-int-or-string", Compatible, "now accepts an integer or a string".to_owned(), a, b, vec![])
        } else {
            change(
                "int-or-string-changed",
                "x-kubernetes-int-or-string",
                Breaking,
                "no longer accepts both an integer and a string: stored values of the other type no longer validate".to_owned(),
                a,
                b,
                vec![],
            )
        });
    }
    handled.push("additionalProperties");
    let (a, b) = (
        get(&o, "additionalProperties"),
        get(&n, "additionalProperties"),
    );
    if a != b {
        out.push(change(
            "additional-properties-changed",
            "additionalProperties",
            Risky,
            format!(
                "additionalProperties changed from {} to {}",
                a.map(text).unwrap_or_else(|| "unset".to_owned()),
                b.map(text).unwrap_or_else(|| "unset".to_owned())
            ),
            a,
            b,
            vec![],
        ));
    }

    // documentation
    for k in DOCS.iter().copied() {
        handled.push(k);
        let (a, b) = (get(&o, k), get(&n, k));
        if a != b {
            out.push(change(
                "doc-changed",
                k,
                Compatible,
                format!("{k} changed"),
                a,
                b,
                vec![],
            ));
        }
    }

    // anything else
    let mut others: Vec<&str> = o
        .iter()
        .chain(n.iter())
        .map(|(k, _)| k.as_str())
        .filter(|k| !handled.contains(k))
        .collect();
    others.sort_unstable();
    others.dedup();
    for k in others {
        let (a, b) = (get(&o, k), get(&n, k));
        if a != b {
            out.push(change(
                "schema-changed",
                k,
                Risky,
                format!("{k} changed"),
                a,
                b,
                vec![],
            ));
        }
    }
    out
}

/// A number as written (integers without a fraction).
fn text_num(v: Option<&Json>, f: f64) -> String {
    v.map(text).unwrap_or_else(|| f.to_string())
}
