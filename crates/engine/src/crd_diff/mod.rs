//! Stage 9, breaking-change analysis between two revisions of a CRD (issue 16): what changed
//! from the previous revision to the new one, version by version, each change located in both
//! texts with how bad it is for clients and stored objects.
//!
//! This module goes beyond the server (which only validates the update): its codes start with
//! `crd.change.` and its messages are ours.
//!
//! # The severity model
//!
//! Each change is judged by who it breaks, not by how big it looks:
//!
//! - **breaking**: every stored object or client, whatever it holds: a field removed (stored
//!   values are pruned on the next read: data lost), a type changed, a version removed or no
//!   longer served, a version still in `status.storedVersions` (or the storage version)
//!   removed, group/scope/plural/kind changed, `x-kubernetes-preserve-unknown-fields` or
//!   `spec.preserveUnknownFields` turned off, int-or-string dropped, `required` added in an
//!   existing version (or a new field required all the way up from an existing object): the
//!   API change guidelines (`contributors/devel/sig-architecture/api_changes.md`, "On
//!   compatibility") count a new required field as incompatible, as every client written
//!   before it omits it; stored objects are still ratcheted on update, which the message says.
//! - **risky** (breaking for some objects or clients): a bound added or tightened, an enum
//!   added or values removed, a pattern or format added or changed, nullable removed, a default added,
//!   changed or removed (stored objects read differently), list/map types or keys changed,
//!   embedded-resource changed, a CEL rule added or changed (transition rules check updates
//!   only), optionalOldSelf changed, a rule's estimated cost increased (the analysis's
//!   numbers), storage version changed, conversion strategy or webhook changed, subresources
//!   changed, printer columns or selectable fields removed or changed. The guidelines call
//!   every tightening incompatible ("valid values do not become invalid"); these stay risky
//!   because they break only the values or clients outside the new constraint.
//! - **compatible**: loosened or removed bounds and constraints, new optional fields and
//!   versions, description and other documentation, enum values added (clients with an
//!   exhaustive switch may still care), rules removed, their messages changed, and
//!   API-convention violations a revision introduces (they break nothing).
//!
//! Versions are matched by name; a version only in the new revision is compared with nothing.
//! Within a version, every schema node of the old revision is compared with the node at the
//! same path in the new (child schemas at their own paths), and every new node is checked for
//! being required. The CLI's `--fail-on` threshold and SARIF levels (error / warning / note)
//! follow these three severities.
//!
//! # Files
//!
//! [`diff_crds`] (and `diff_crds_detailed`, with the data behind each message for adapters such
//! as `cargo xtask peer`) returns [`CrdChange`]s, each with a `Location` in the old text
//! (`SourceId::OldCrd`) and in the new (`SourceId::Crd`). `sites.rs` reads a revision and
//! flattens each version's schema into sites keyed by path (crdify's `^.spec.list.items`);
//! `crd_level.rs` compares the CRD-level fields; `keywords.rs` one schema node keyword by
//! keyword; `rules.rs` the CEL rules and their estimated costs (compiled in the environment of
//! the selected Kubernetes version; a rule that does not compile there has no estimate);
//! `conventions.rs` the API-convention violations a revision introduces, ratcheted against the
//! old; `cost_budget.rs` every rule's cost facts (crd-schema-checker's budget); `tests.rs` one
//! snippet pair per change kind with both locations.

use serde::{Deserialize, Serialize};

use serde_json::Value as Json;

use crate::documents::finding::{Location, SourceId};
use crate::documents::kube_version::KubernetesVersion;
use crate::documents::position::Span;

pub mod conventions;
#[cfg(any(test, feature = "conformance"))]
pub mod cost_budget;
mod crd_level;
pub mod keywords;
pub mod rules;
pub mod sites;
#[cfg(test)]
mod tests;

use sites::{entry_span, parse_text, Revision, Site, VersionNode};
pub use sites::{field_text, schema_path_text, SchemaStep};

/// How bad a change is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeSeverity {
    /// Breaks clients or stored objects whatever they hold (a removed field, a removed version,
    /// a new required field: no client written before it sends it).
    Breaking,
    /// Breaks only some objects or clients (a tightened bound, a new rule).
    Risky,
    /// Safe for every object and client (a loosened bound, a new optional field).
    Compatible,
}

/// One change between the previous and the new revision of a CRD.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdChange {
    /// A stable identifier of the kind of change, e.g. `crd.change.field-removed`.
    pub code: String,
    /// How bad it is.
    pub severity: ChangeSeverity,
    /// The CRD version the change is in (`spec.versions[].name`), `None` for CRD-wide changes
    /// (group, scope, names, conversion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The object field the change is about, as a field path (`.spec.replicas`), when it is
    /// about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// What changed, in plain words, on one line.
    pub message: String,
    /// Where it is in the previous revision (`SourceId::OldCrd`), when it is there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Location>,
    /// Where it is in the new revision (`SourceId::Crd`), when it is there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Location>,
}

/// A change with the data behind its message, for adapters that render it in another tool's
/// words (`cargo xtask peer`) and for the views.
#[derive(Clone, Debug, PartialEq)]
pub struct ChangeDetail {
    /// The change as [`diff_crds`] returns it.
    pub change: CrdChange,
    /// The schema keyword, CRD field or rule property the change is about.
    pub keyword: Option<String>,
    /// The schema node's path from the version's `openAPIV3Schema`, for schema changes.
    pub schema_path: Option<Vec<SchemaStep>>,
    /// The old value, as JSON.
    pub before: Option<Json>,
    /// The new value, as JSON.
    pub after: Option<Json>,
    /// The values the change is about (enum values, required names, versions), as JSON.
    pub values: Vec<Json>,
    /// Whether [`diff_crds`] lists it. Hidden details: the keywords of a removed field
    /// compared with an empty schema (its removal says it all), and fields added below an
    /// added field.
    pub shown: bool,
}

impl ChangeDetail {
    fn new(
        code: &str,
        severity: ChangeSeverity,
        version: Option<&str>,
        message: String,
    ) -> ChangeDetail {
        ChangeDetail {
            change: CrdChange {
                code: format!("crd.change.{code}"),
                severity,
                version: version.map(str::to_owned),
                field: None,
                message,
                old: None,
                new: None,
            },
            keyword: None,
            schema_path: None,
            before: None,
            after: None,
            values: Vec::new(),
            shown: true,
        }
    }

    fn keyword(mut self, k: &str) -> ChangeDetail {
        self.keyword = Some(k.to_owned());
        self
    }

    fn values(mut self, before: Option<Json>, after: Option<Json>) -> ChangeDetail {
        self.before = before;
        self.after = after;
        self
    }

    fn at(mut self, old: Option<Location>, new: Option<Location>) -> ChangeDetail {
        self.change.old = old;
        self.change.new = new;
        self
    }
}

/// The changes from `old_text` (the previous revision) to `new_text`, in the order of the new
/// text (changes only in the old text after them). Texts that do not parse as a CRD give no
/// changes: their problems are the CRD analysis's findings. `kube` is the server the update
/// goes to: its CEL environment compiles the rules whose estimated costs are compared.
pub fn diff_crds(old_text: &str, new_text: &str, kube: KubernetesVersion) -> Vec<CrdChange> {
    diff_crds_detailed(Some(old_text), new_text, kube)
        .into_iter()
        .filter(|d| d.shown)
        .map(|d| d.change)
        .collect()
}

/// [`diff_crds`] with the data behind each change, hidden details included. Without an old
/// text (a CRD being created), only the API-convention checks run, on the new text alone.
pub fn diff_crds_detailed(
    old_text: Option<&str>,
    new_text: &str,
    kube: KubernetesVersion,
) -> Vec<ChangeDetail> {
    let new_parsed = parse_text(new_text, SourceId::Crd);
    let Some(new) = Revision::read(&new_parsed) else {
        return Vec::new();
    };
    let old_parsed = old_text.map(|t| parse_text(t, SourceId::OldCrd));
    let old = match &old_parsed {
        Some(p) => match Revision::read(p) {
            Some(r) => Some(r),
            None => return Vec::new(),
        },
        None => None,
    };
    let mut out = Vec::new();
    if let Some(old) = &old {
        out.extend(crd_level::crd_changes(old, &new));
        let old_costs = rules::CostModel::new(old.root, kube);
        let new_costs = rules::CostModel::new(new.root, kube);
        for nv in &new.versions {
            if let Some(ov) = old.version(&nv.name) {
                out.extend(schema_changes(old, &new, ov, nv, &old_costs, &new_costs));
            }
        }
    }
    out.extend(conventions::convention_changes(old.as_ref(), &new));
    sort_changes(&mut out);
    out
}

/// New-text order, then old-text order for changes only in the old text.
fn sort_changes(out: &mut [ChangeDetail]) {
    crd_studio_gostd::sort::stable_by_key(out, |d| {
        (
            d.change.new.is_none(),
            d.change.new.map(|l| l.span.start.offset),
            d.change.old.map(|l| l.span.start.offset),
        )
    });
}

/// The span of `keyword` in a schema node: the entry, else the site's key.
fn keyword_span(site: &Site<'_>, keyword: &str) -> Span {
    match site.node.entry(keyword) {
        Some(e) => entry_span(e.key_span, &e.value),
        None => site.key_span,
    }
}

/// Whether every added node from `site` up to the first node the old version has is
/// required by its parent (so objects written before must now hold the field).
fn required_chain(new_v: &VersionNode<'_>, old_v: &VersionNode<'_>, site_index: usize) -> bool {
    let mut i = site_index;
    loop {
        let Some(site) = new_v.sites.list.get(i) else {
            return false;
        };
        if old_v.sites.get(&schema_path_text(&site.steps)).is_some() {
            return true;
        }
        let Some(p) = site.parent else { return false };
        let Some(parent) = new_v.sites.list.get(p) else {
            return false;
        };
        let required = match site.steps.last() {
            Some(SchemaStep::Property(name)) => parent
                .node
                .get("required")
                .and_then(|r| r.as_seq())
                .is_some_and(|r| r.iter().any(|n| n.as_str() == Some(name))),
            // Every element schema of a list that must not be empty.
            Some(SchemaStep::Items) => parent
                .node
                .get("minItems")
                .and_then(|m| m.to_json().as_f64())
                .is_some_and(|m| m > 0.0),
            // allOf branches apply whenever their parent does.
            Some(SchemaStep::AllOf(_)) => true,
            _ => false,
        };
        if !required {
            return false;
        }
        i = p;
    }
}

/// The schema changes of one version present in both revisions.
fn schema_changes(
    old: &Revision<'_>,
    new: &Revision<'_>,
    ov: &VersionNode<'_>,
    nv: &VersionNode<'_>,
    old_costs: &rules::CostModel,
    new_costs: &rules::CostModel,
) -> Vec<ChangeDetail> {
    let version = Some(nv.name.as_str());
    let mut out = Vec::new();
    // The nearest site of the new version for an old path (for removed fields).
    let nearest_new = |site: &Site<'_>| -> Option<Location> {
        let mut steps = site.steps.clone();
        while !steps.is_empty() {
            steps.pop();
            if let Some(s) = nv.sites.get(&schema_path_text(&steps)) {
                return Some(new.at(s.key_span));
            }
        }
        None
    };
    for os in &ov.sites.list {
        let path = schema_path_text(&os.steps);
        let field = field_text(&os.steps);
        let with_field = |mut d: ChangeDetail| {
            d.change.field = Some(field.clone());
            d.schema_path = Some(os.steps.clone());
            d
        };
        match nv.sites.get(&path) {
            None => {
                let parent_removed = os
                    .parent
                    .and_then(|p| ov.sites.list.get(p))
                    .is_some_and(|p| nv.sites.get(&schema_path_text(&p.steps)).is_none());
                out.push(with_field(
                    ChangeDetail::new(
                        "field-removed",
                        ChangeSeverity::Breaking,
                        version,
                        format!(
                            "{field} removed from {}: stored values are pruned on the next read (data lost){}",
                            nv.name,
                            if parent_removed { ", with its parent" } else { "" }
                        ),
                    )
                    .values(Some(os.node.to_json()), None)
                    .at(Some(old.at(os.key_span)), nearest_new(os)),
                ));
                for k in keywords::keyword_changes(Some(os.node), None) {
                    let mut d = with_field(
                        ChangeDetail::new(
                            k.code,
                            k.severity,
                            version,
                            format!("{field}: {}", k.message),
                        )
                        .keyword(&k.keyword)
                        .values(k.before, k.after)
                        .at(Some(old.at(keyword_span(os, &k.keyword))), None),
                    );
                    d.values = k.values;
                    d.shown = false;
                    out.push(d);
                }
            }
            Some(ns) => {
                for k in keywords::keyword_changes(Some(os.node), Some(ns.node)) {
                    let mut d = with_field(
                        ChangeDetail::new(
                            k.code,
                            k.severity,
                            version,
                            format!("{field}: {}", k.message),
                        )
                        .keyword(&k.keyword)
                        .values(k.before, k.after)
                        .at(
                            Some(old.at(keyword_span(os, &k.keyword))),
                            Some(new.at(keyword_span(ns, &k.keyword))),
                        ),
                    );
                    d.values = k.values;
                    out.push(d);
                }
                let oc = old_costs.costs(&ov.name, &os.steps);
                let nc = new_costs.costs(&nv.name, &ns.steps);
                let orules = os
                    .node
                    .get("x-kubernetes-validations")
                    .and_then(|v| v.as_seq());
                let nrules = ns
                    .node
                    .get("x-kubernetes-validations")
                    .and_then(|v| v.as_seq());
                for r in rules::rule_changes(os.node, ns.node, oc.as_deref(), nc.as_deref()) {
                    let oloc = r
                        .old_index
                        .and_then(|i| orules.and_then(|s| s.get(i)))
                        .map(|n| old.at(n.span))
                        .or_else(|| Some(old.at(keyword_span(os, "x-kubernetes-validations"))));
                    let nloc = r
                        .new_index
                        .and_then(|i| nrules.and_then(|s| s.get(i)))
                        .map(|n| new.at(n.span))
                        .or_else(|| Some(new.at(keyword_span(ns, "x-kubernetes-validations"))));
                    let mut d = with_field(
                        ChangeDetail::new(
                            r.code,
                            r.severity,
                            version,
                            format!("{field}: {}", r.message),
                        )
                        .keyword("x-kubernetes-validations")
                        .at(oloc, nloc),
                    );
                    if let Some((a, b)) = r.costs {
                        d.before = Some(Json::from(a));
                        d.after = Some(Json::from(b));
                    }
                    out.push(d);
                }
            }
        }
    }
    // Added fields.
    for (i, ns) in nv.sites.list.iter().enumerate() {
        let path = schema_path_text(&ns.steps);
        if ov.sites.get(&path).is_some() {
            continue;
        }
        let parent_existed = ns
            .parent
            .and_then(|p| nv.sites.list.get(p))
            .is_some_and(|p| ov.sites.get(&schema_path_text(&p.steps)).is_some());
        let field = field_text(&ns.steps);
        let nearest_old = {
            let mut steps = ns.steps.clone();
            let mut found = None;
            while !steps.is_empty() {
                steps.pop();
                if let Some(s) = ov.sites.get(&schema_path_text(&steps)) {
                    found = Some(old.at(s.key_span));
                    break;
                }
            }
            found
        };
        let required =
            matches!(ns.steps.last(), Some(SchemaStep::Property(_))) && required_chain(nv, ov, i);
        let mut d = if required {
            // api_changes.md ("On compatibility"): a new required field in an existing
            // version breaks every client written before it (they cannot send it).
            ChangeDetail::new(
                "required-field-added",
                ChangeSeverity::Breaking,
                version,
                format!("{field} added as a required field: every client that creates objects without it is rejected; stored objects without it are still accepted on update while that part is unchanged (ratcheting)"),
            )
        } else {
            ChangeDetail::new(
                "field-added",
                ChangeSeverity::Compatible,
                version,
                format!("{field} added"),
            )
        };
        d.shown = required || parent_existed;
        d.change.field = Some(field);
        d.schema_path = Some(ns.steps.clone());
        d.after = Some(ns.node.to_json());
        out.push(d.at(nearest_old, Some(new.at(ns.key_span))));
    }
    out
}

/// Whether `text` holds a CRD [`diff_crds`] can compare (a document of kind
/// CustomResourceDefinition, or an object with a `spec`).
pub fn is_crd_text(text: &str) -> bool {
    Revision::read(&parse_text(text, SourceId::Crd)).is_some()
}
