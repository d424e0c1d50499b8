//! Authored conversions: a small declarative mapping per version pair, written in the studio,
//! that stands in for a conversion webhook. It goes beyond the server (which only ever calls a
//! webhook); everything around it is the server's: the `ConversionReview` request the server
//! would send, the response the mapping produces, the server's checks of that response, the
//! target version's decoding step, and a round trip check (A → B → A equals A, the lesson of
//! *Programming Kubernetes* ch. 8: conversions must be lossless).
//!
//! # The mapping format
//!
//! A mapping text is YAML (or JSON) holding one mapping per document:
//!
//! ```yaml
//! from: v1            # the source version
//! to: v2              # the target version
//! rules:              # applied in order
//!   - move: {from: .spec.cronSpec, to: .spec.schedule}
//!   - copy: {from: .spec.image, to: .spec.template.image}
//!   - set: {path: .spec.mode, value: auto}
//!   - cel: {path: .spec.replicas, expr: "self.spec.size * 2"}
//!   - drop: .spec.legacy
//! ---
//! from: v2
//! to: v1
//! rules:
//!   - move: {from: .spec.schedule, to: .spec.cronSpec}
//! ```
//!
//! * The output starts as a copy of the source object with `apiVersion` set to
//!   `<group>/<to>`. Rules **read the source object** (as it was before any rule) and **write
//!   the output**, in order; so rules do not see each other's results, and
//!   `move a → b` + `move b → a` swaps two fields.
//! * `move: {from, to}`: the value at `from` is written at `to` and `from` is removed from the
//!   output. Nothing happens when the source has no value at `from`.
//! * `copy: {from, to}`: as `move`, without removing `from`.
//! * `set: {path, value}`: writes the (YAML) value.
//! * `cel: {path, expr}`: evaluates the CEL expression with `self` = the source object (`dyn`:
//!   maps, lists, ints, doubles, strings, bools, null) in Kubernetes' CEL environment (the
//!   studio's Kubernetes version; per-call cost limit 1,000,000) and writes the result.
//!   `optional.none()` removes the field; `optional.of(x)` writes `x`; timestamps and durations
//!   are written as their `string()` texts; bytes as base64 (as Go's JSON does). A value that
//!   cannot be JSON (a quantity, a type, NaN) is an error.
//! * `drop: <path>` (or `drop: {path: <path>}`): removes the field from the output.
//! * Paths: `.a.b`, `['key.with.dots']` for keys that are not plain names (`\'` and `\\`
//!   escapes), `[N]` for a list element: `.metadata.annotations['example.com/mode']`,
//!   `.spec.ports[0].name`. Writing creates missing objects on the way (not lists); writing
//!   through a scalar, or to a list element that does not exist, is an error.
//! * A rule that fails fails the object: the webhook would answer `Failed` with the message, and
//!   the server fails the request (`conversion webhook for <gvk> failed: <message>`).
//!
//! Metadata: the server keeps only `labels` and `annotations` from a converted object (other
//! metadata changes are ignored; a changed name, namespace or uid fails the request), so
//! mappings may carry data in annotations to make a round trip lossless.
//!
//! # The round trip
//!
//! For every sample stored at version A and every version B with mappings A → B and B → A, the
//! object goes A → B → A the way the server would move it: mapping, the server's response
//! checks and metadata restore, the target version's decoding step (pruning, defaulting); then
//! back. The result is compared with the stored object; the first difference (path, value
//! before, value after, in sorted key order) is reported, located at the rule of either mapping
//! that touches that path (else at the mapping itself).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

use crd_studio_cel::checker::{Env, EnvBuilder};
use crd_studio_cel::decls::EnvVersion;
use crd_studio_cel::interp::{Activation, CostTracker, Program};
use crd_studio_cel::types::Type;
use crd_studio_cel::value::Value;
use crd_studio_cel::KubernetesVersion;

use crate::documents::document::{self, Node};
use crate::documents::finding::{Severity, SourceId};
use crate::documents::position::{LineIndex, Span};
use crate::documents::scalar_pos::ScalarText;

mod paths;
pub use paths::*;

mod cel_values;
pub use cel_values::*;

mod mappings;
pub use mappings::*;

mod differences;
pub use differences::*;

// ------------------------------------------------------------------------------------------
// The preview
// ------------------------------------------------------------------------------------------

/// A sample object to convert: the object as stored (the create strategy's output).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sample {
    /// Which object text (0-based).
    pub source: usize,
    /// Which document of that text.
    pub document: usize,
    /// The stored object.
    pub object: Json,
}

/// What the mapping did to one sample on the way to the target version.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthoredObject {
    /// Which object text.
    pub source: usize,
    /// Which document.
    pub document: usize,
    /// `metadata.name`.
    pub name: String,
    /// The version it is stored in.
    pub from: String,
    /// Whether it is sent for conversion (`false` when already in the target version).
    pub sent: bool,
    /// What the mapping produced (the webhook's answer for it).
    pub mapped: Option<Json>,
    /// Why the mapping failed on it.
    pub failure: Option<RuleFailure>,
    /// Rules that found nothing to move or copy.
    pub notes: Vec<String>,
}

/// One round trip of one sample.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoundTrip {
    /// Which object text.
    pub source: usize,
    /// Which document.
    pub document: usize,
    /// `metadata.name`.
    pub name: String,
    /// The version it is stored in (A).
    pub from: String,
    /// The version it goes through (B).
    pub via: String,
    /// Whether A → B → A gave the stored object back.
    pub lossless: bool,
    /// The first difference.
    pub difference: Option<Difference>,
    /// The object after the round trip.
    pub result: Option<Json>,
    /// Why the round trip could not be completed (a rule failed, the server refused the
    /// answer).
    pub error: Option<String>,
    /// The rule (or mapping) to look at.
    pub location: Option<MappingLocation>,
}

/// The authored conversion of the samples to a target version.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversionPreview {
    /// The target version.
    pub target: String,
    /// Problems in the mappings, failed rules and lossy round trips, located in the mapping
    /// texts where they can be.
    pub issues: Vec<MappingIssue>,
    /// The server's error before any webhook call (an unknown target version, ...).
    pub error: Option<String>,
    /// The conversion as the server makes it (inputs, the `ConversionReview` request).
    pub call: Option<crate::versions::conversion::WebhookCall>,
    /// The request body, indented.
    pub request_text: Option<String>,
    /// The `ConversionReview` response the mappings produce.
    pub response: Option<Json>,
    /// The response as text (the spans of [`ConversionPreview::check`] point into it).
    pub response_text: Option<String>,
    /// The server's verdict on the response, and the objects it ends up with (metadata
    /// restored, pruned by the target schema, with the errors a write in the target version
    /// would meet).
    pub check: Option<crate::versions::conversion::ResponseCheck>,
    /// Per sample, what the mapping did.
    pub objects: Vec<AuthoredObject>,
    /// Per sample and per version with mappings both ways, the round trip.
    pub round_trips: Vec<RoundTrip>,
}

fn version_of(obj: &Json) -> String {
    obj.get("apiVersion")
        .and_then(Json::as_str)
        .and_then(|av| av.rsplit_once('/'))
        .map(|(_, v)| v.to_owned())
        .unwrap_or_default()
}

fn name_of(obj: &Json) -> String {
    obj.get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Json::as_str)
        .unwrap_or("")
        .to_owned()
}

/// The webhook call the server makes for `objects` to `target` (with the CRD's review
/// versions; `v1` when the CRD's strategy is not `Webhook`).
fn prepare(
    crd: &dyn crate::versions::conversion::CompiledCrdParts,
    objects: &[Json],
    target: &str,
) -> Result<crate::versions::conversion::WebhookCall, String> {
    use crate::versions::conversion::{valid_versions, webhook, GroupVersion, Strategy};
    let Some(internal) = crd.internal() else {
        return Err("there is no readable CRD".to_owned());
    };
    let review_versions = match Strategy::of(internal) {
        Strategy::Webhook {
            conversion_review_versions,
        } => conversion_review_versions,
        _ => vec!["v1".to_owned()],
    };
    webhook::prepare_call(
        &valid_versions(crd),
        &review_versions,
        &internal.spec.names.kind,
        objects,
        &GroupVersion::new(&internal.spec.group, target),
        None,
    )
}

/// The mapped objects of a call's request, or the first failure.
fn map_request(
    set: &MappingSet,
    call: &crate::versions::conversion::WebhookCall,
    group: &str,
    target: &str,
) -> Vec<Result<(Json, Vec<String>), RuleFailure>> {
    let Some(request) = &call.request else {
        return Vec::new();
    };
    request
        .objects
        .iter()
        .map(|obj| {
            let from = version_of(obj);
            match set.find(&from, target) {
                Some(m) => apply(m, obj, group),
                None => Err(RuleFailure {
                    rule: 0,
                    message: format!("no mapping from {from} to {target}"),
                    location: None,
                }),
            }
        })
        .collect()
}

/// The response a webhook running the mappings gives: success with every mapped object, or
/// failure with the first rule failure's message.
fn respond(
    call: &crate::versions::conversion::WebhookCall,
    mapped: &[Result<(Json, Vec<String>), RuleFailure>],
) -> Option<Json> {
    let request = call.request.as_ref()?;
    let mut converted = Vec::new();
    for m in mapped {
        match m {
            Ok((obj, _)) => converted.push(obj.clone()),
            Err(f) => return Some(request.failure_response(&f.message)),
        }
    }
    Some(request.success_response(&converted))
}

/// One conversion of one object through the server: the object it ends up with, or the
/// error (and the rule to blame).
fn convert_one(
    crd: &dyn crate::versions::conversion::CompiledCrdParts,
    set: &MappingSet,
    obj: &Json,
    target: &str,
) -> Result<Json, (String, Option<MappingLocation>)> {
    let group = crd
        .internal()
        .map(|c| c.spec.group.clone())
        .unwrap_or_default();
    let call = prepare(crd, std::slice::from_ref(obj), target).map_err(|e| (e, None))?;
    let mapped = map_request(set, &call, &group, target);
    if let Some(Err(f)) = mapped.first() {
        return Err((f.message.clone(), f.location));
    }
    let Some(response) = respond(&call, &mapped) else {
        // Not sent: already in the target version.
        return Ok(obj.clone());
    };
    let text = serde_json::to_string_pretty(&response).unwrap_or_default();
    let check = crate::versions::conversion::check_conversion_response(crd, &call, &text);
    if let Some(e) = check.error() {
        return Err((e.message.clone(), None));
    }
    check
        .objects
        .into_iter()
        .next()
        .map(|o| o.object)
        .ok_or_else(|| ("the server returned no object".to_owned(), None))
}

fn json_text(v: &Option<Json>) -> String {
    match v {
        Some(j) => serde_json::to_string(j).unwrap_or_default(),
        None => "(absent)".to_owned(),
    }
}

/// The authored conversion of `samples` to `target` with the mapping texts: the request the
/// server sends, the response the mappings give, the server's verdict, and the round trips.
pub fn preview(
    crd: &dyn crate::versions::conversion::CompiledCrdParts,
    samples: &[Sample],
    mappings: &[String],
    target: &str,
) -> ConversionPreview {
    let mut out = ConversionPreview {
        target: target.to_owned(),
        ..ConversionPreview::default()
    };
    let Some(internal) = crd.internal() else {
        out.error = Some("there is no readable CRD".to_owned());
        return out;
    };
    let group = internal.spec.group.clone();
    let versions: Vec<String> = internal
        .spec
        .versions
        .iter()
        .map(|v| v.name.clone())
        .collect();
    let set = read_mappings(mappings, &versions, crd.kubernetes_version());
    out.issues = set.issues.clone();
    let compiled = crd.compiled_versions();
    out.issues.extend(check_paths(&set, |v| {
        compiled
            .iter()
            .find(|c| c.name == v)
            .and_then(|c| c.structural.as_deref())
    }));
    if !matches!(
        crate::versions::conversion::Strategy::of(internal),
        crate::versions::conversion::Strategy::Webhook { .. }
    ) {
        out.issues.push(MappingIssue::new(
            Severity::Info,
            "conversion.strategy",
            "the CRD's conversion strategy is not Webhook: the server only rewrites apiVersion; this preview shows what a webhook running these mappings would do",
            None,
        ));
    }

    // The conversion to the target.
    let objects: Vec<Json> = samples.iter().map(|s| s.object.clone()).collect();
    match prepare(crd, &objects, target) {
        Err(e) => out.error = Some(e),
        Ok(call) => {
            let mapped = map_request(&set, &call, &group, target);
            let mut next = 0usize;
            for (i, s) in samples.iter().enumerate() {
                let sent = call.sent.get(i).copied().flatten().is_some();
                let mut obj = AuthoredObject {
                    source: s.source,
                    document: s.document,
                    name: name_of(&s.object),
                    from: version_of(&s.object),
                    sent,
                    ..AuthoredObject::default()
                };
                if sent {
                    match mapped.get(next) {
                        Some(Ok((m, notes))) => {
                            obj.mapped = Some(m.clone());
                            obj.notes = notes.clone();
                        }
                        Some(Err(f)) => {
                            out.issues.push(MappingIssue::new(
                                Severity::Error,
                                if f.location.is_some() {
                                    "conversion.rule-failed"
                                } else {
                                    "mapping.missing"
                                },
                                format!("{} ({} → {}): {}", obj.name, obj.from, target, f.message),
                                f.location,
                            ));
                            obj.failure = Some(f.clone());
                        }
                        None => {}
                    }
                    next += 1;
                }
                out.objects.push(obj);
            }
            if let Some(response) = respond(&call, &mapped) {
                let text = serde_json::to_string_pretty(&response).unwrap_or_default();
                out.check = Some(crate::versions::conversion::check_conversion_response(
                    crd, &call, &text,
                ));
                out.response = Some(response);
                out.response_text = Some(text);
            }
            out.request_text = call.request.as_ref().map(|r| r.pretty());
            out.call = Some(call);
        }
    }

    // The round trips: every sample, every version with mappings both ways.
    for s in samples {
        let from = version_of(&s.object);
        for via in &versions {
            let (Some(there), Some(back)) = (set.find(&from, via), set.find(via, &from)) else {
                continue;
            };
            let mut rt = RoundTrip {
                source: s.source,
                document: s.document,
                name: name_of(&s.object),
                from: from.clone(),
                via: via.clone(),
                ..RoundTrip::default()
            };
            let mut via_obj = None;
            let result = convert_one(crd, &set, &s.object, via).and_then(|b| {
                let back = convert_one(crd, &set, &b, &from);
                via_obj = Some(b);
                back
            });
            match result {
                Err((e, loc)) => {
                    rt.error = Some(e.clone());
                    rt.location = loc.or(Some(there.location));
                    out.issues.push(MappingIssue::new(
                        Severity::Error,
                        "conversion.round-trip",
                        format!("round trip {from} → {via} → {from} of {}: {e}", rt.name),
                        rt.location,
                    ));
                }
                Ok(back_obj) => {
                    match first_difference(&s.object, &back_obj) {
                        None => rt.lossless = true,
                        Some((path, diff)) => {
                            let via_schema = compiled
                                .iter()
                                .find(|c| &c.name == via)
                                .and_then(|c| c.structural.as_deref());
                            let loc = blame(there, back, &path, via_obj.as_ref(), via_schema);
                            out.issues.push(MappingIssue::new(
                                Severity::Warning,
                                "conversion.round-trip",
                                format!(
                                    "round trip {from} → {via} → {from} of {} changes {}: {} → {}",
                                    rt.name,
                                    diff.path,
                                    json_text(&diff.before),
                                    json_text(&diff.after)
                                ),
                                Some(loc),
                            ));
                            rt.location = Some(loc);
                            rt.difference = Some(diff);
                        }
                    }
                    rt.result = Some(back_obj);
                }
            }
            out.round_trips.push(rt);
        }
    }
    out
}

#[cfg(test)]
mod tests;
