//! Subresources, field selectors, versions and authored conversion
//! (`crate::printing::scale`, `crate::printing::field_selector`, `crate::versions`,
//! `crate::versions::authored_conversion`), and the quiet notes on what the server did.

use serde::{Deserialize, Serialize};

use super::{Analysis, CompiledCrd, ObjectNote, ObjectReport, Span};
use crate::documents::document::Node;
use crate::documents::finding::{Finding, Location};
use crate::documents::path::{locate, FieldPath};
use crate::pipeline::{self, CompiledVersion};
use crate::printing::scale::ScaleReport;

/// What the status and scale subresources show for one object.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubresourceReport {
    /// The status subresource's effect on the write.
    pub status: crate::printing::scale::StatusFacts,
    /// `GET .../scale` in each served version with the scale subresource that the object
    /// can be read in without a conversion webhook.
    pub scale: Vec<crate::printing::scale::ScaleReport>,
}

/// `kubectl get <plural> --field-selector ...` over the samples.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldSelectorPreview {
    /// The version listed (the preferred version when none was asked for).
    pub version: String,
    /// The verdict (its `objects` follow [`FieldSelectorPreview::samples`]).
    pub selection: crate::printing::field_selector::Selection,
    /// The objects checked: (object text, document).
    pub samples: Vec<(usize, usize)>,
    /// Objects not checked, with the reason: (object text, document, reason).
    pub left_out: Vec<(usize, usize, String)>,
    /// The namespace listed (`kubectl get -n`): the samples' namespace when they share one,
    /// else the request's (`default`); empty for a cluster-scoped resource.
    #[serde(default)]
    pub namespace: String,
}

impl CompiledCrd {
    /// The version overview (priority order, preferred version, deprecation, removal).
    pub fn version_overview(&self) -> Option<&crate::versions::VersionOverview> {
        self.version_overview.as_ref()
    }

    /// The studio's info findings (and the object report's notes) on what the server did to
    /// an object without a word: the status subresource's reset of `status`, invalid values
    /// ratcheting kept, defaults not applied.
    pub(super) fn quiet_notes(
        &self,
        out: &pipeline::Outcome,
        version: &str,
        root: &Node,
        loc: &dyn Fn(Span) -> Location,
        notes: &mut Vec<ObjectNote>,
    ) -> Vec<Finding> {
        let mut findings = Vec::new();
        let mut note = |f: Finding, title: &str| {
            // The report's note says what the title and the field do not: the finding's
            // message after `field: ` and the few words that repeat the title.
            let field = f.field.clone().unwrap_or_default();
            let rest = f
                .message
                .strip_prefix(&format!("{field}: "))
                .unwrap_or(&f.message);
            let rest = ["dropped: ", "change ignored: ", "removal ignored: "]
                .iter()
                .find_map(|p| rest.strip_prefix(p))
                .unwrap_or(rest);
            notes.push(ObjectNote {
                code: f.code.clone(),
                field,
                title: title.to_owned(),
                message: rest.to_owned(),
            });
            findings.push(f);
        };
        let at = |path: &str| loc(locate(root, &FieldPath::parse(path)).span);
        let first_line = loc(Span::point(root.span.start));
        match out.status_reset {
            Some(pipeline::StatusReset::DroppedOnCreate) => note(
                Finding::info(
                    "studio.status-subresource",
                    format!("status: dropped: version {version} has the status subresource, so a create cannot set status (the server removes it before validation and storage); set it afterwards with a request to the /status subresource"),
                )
                .with_field("status")
                .at(at("status")),
                "status dropped",
            ),
            Some(pipeline::StatusReset::KeptOnUpdate { in_request: true }) => note(
                Finding::info(
                    "studio.status-subresource",
                    format!("status: change ignored: version {version} has the status subresource, so an update keeps the old object's status (the server puts it in place of the request's before validation and storage); change status with a request to the /status subresource"),
                )
                .with_field("status")
                .at(at("status")),
                "status change ignored",
            ),
            Some(pipeline::StatusReset::KeptOnUpdate { in_request: false }) => note(
                Finding::info(
                    "studio.status-subresource",
                    format!("status: removal ignored: version {version} has the status subresource, so an update keeps the old object's status although the request has none"),
                )
                .with_field("status")
                .as_note()
                .at(first_line),
                "status removal ignored",
            ),
            None => {}
        }
        for e in &out.ratcheted {
            let path = e.field.to_string();
            let subject = if path.is_empty() {
                "the object"
            } else {
                path.as_str()
            };
            note(
                Finding::info(
                    "studio.ratcheted",
                    format!("{subject}: accepted although invalid, because the value is unchanged from the old object (validation ratcheting); a create, or a change to this value, is rejected with: {}", e.error()),
                )
                .with_field(path.clone())
                .at(at(&path)),
                "kept by ratcheting",
            );
        }
        let shown = |v: &serde_json::Value| {
            let t = serde_json::to_string(v).unwrap_or_default();
            if t.chars().count() > 60 {
                let mut c: String = t.chars().take(59).collect();
                c.push('…');
                c
            } else {
                t
            }
        };
        for skipped in &out.skipped_defaults {
            match skipped {
                crate::object::defaulting::SkippedDefault::ParentAbsent {
                    parent,
                    null,
                    fields,
                } => {
                    let parent_text = parent.to_string();
                    let list: Vec<String> = fields
                        .iter()
                        .map(|(k, d)| format!("{} (default {})", parent.child_name(k), shown(d)))
                        .collect();
                    let (word, verb) = if fields.len() == 1 {
                        ("default", "is")
                    } else {
                        ("defaults", "are")
                    };
                    let state = if *null { "null" } else { "absent" };
                    let name = match parent.0.last() {
                        Some(crate::documents::path::Segment::Field(n)) => n.clone(),
                        _ => parent_text.clone(),
                    };
                    let f = Finding::info(
                        "studio.default-not-applied",
                        format!("{parent_text}: {state}, so the {word} of {} {verb} not applied: the server fills in defaults only inside objects that are present; write `{name}: {{}}` or give {parent_text} a default of {{}}", list.join(", ")),
                    )
                    .with_field(parent_text.clone());
                    let f = if *null {
                        f.at(at(&parent_text))
                    } else {
                        f.as_note().at(at(&parent_text))
                    };
                    note(f, "default not applied");
                }
                crate::object::defaulting::SkippedDefault::NullableNull { field, default } => {
                    let path = field.to_string();
                    note(
                        Finding::info(
                            "studio.default-not-applied",
                            format!("{path}: null and nullable, so the server keeps the null and does not apply its default {}", shown(default)),
                        )
                        .with_field(path.clone())
                        .at(at(&path)),
                        "default not applied",
                    );
                }
            }
        }
        findings
    }

    /// The warning every request to `version` gets, when it is deprecated and served.
    pub fn deprecation_warning(&self, version: &str) -> Option<String> {
        self.version_overview
            .as_ref()?
            .versions
            .iter()
            .find(|v| v.name == version)?
            .warning
            .clone()
    }

    /// The status and scale facts of an object of `version`: `request` is the decoded
    /// request object, `stored` what the strategy persists.
    /// What the status and scale subresources show: `status` and `own_scale` are of the
    /// prepared object (in the request's version), `read_scales` of the object as each served
    /// version reads it back from storage.
    pub(super) fn subresource_report(
        &self,
        version: &CompiledVersion,
        status: crate::printing::scale::StatusFacts,
        own_scale: Option<ScaleReport>,
        read_scales: &[(String, ScaleReport)],
    ) -> SubresourceReport {
        let mut own_scale = own_scale;
        let scale = self
            .compiled
            .iter()
            .filter(|v| v.served)
            .filter_map(|v| {
                v.scale.as_ref()?;
                match read_scales.iter().find(|(name, _)| *name == v.name) {
                    Some((_, view)) => Some(view.clone()),
                    // The version the object was written in reads as written when the
                    // storage round trip is not known (it needs the conversion webhook).
                    None if v.name == version.name => own_scale.take(),
                    None => None,
                }
            })
            .collect();
        SubresourceReport { status, scale }
    }

    /// `kubectl get <plural> --field-selector <selector>` in `version` (the preferred version
    /// when empty) over the stored samples of `analysis`, each read in that version (objects
    /// only a conversion webhook could return in it are left out).
    pub fn select_fields(
        &self,
        analysis: &Analysis,
        version: &str,
        selector: &str,
    ) -> FieldSelectorPreview {
        self.select_fields_read(analysis, version, selector).0
    }

    /// [`CompiledCrd::select_fields`], with the checked objects as read in the version (in
    /// the order of [`FieldSelectorPreview::samples`]).
    pub(crate) fn select_fields_read(
        &self,
        analysis: &Analysis,
        version: &str,
        selector: &str,
    ) -> (FieldSelectorPreview, Vec<serde_json::Value>) {
        let mut out = FieldSelectorPreview::default();
        let Some(internal) = &self.internal else {
            return (out, Vec::new());
        };
        let version = if version.is_empty() {
            crate::versions::preferred_version(internal).unwrap_or_default()
        } else {
            version.to_owned()
        };
        let selectable = internal
            .spec
            .versions
            .iter()
            .find(|v| v.name == version)
            .map(|v| {
                if v.selectable_fields.is_empty() {
                    &internal.spec.selectable_fields
                } else {
                    &v.selectable_fields
                }
            })
            .map(|f| f.iter().map(|f| f.json_path.clone()).collect())
            .unwrap_or_default();
        let sv = crate::printing::field_selector::SelectorVersion {
            group: internal.spec.group.clone(),
            version: version.clone(),
            plural: internal.spec.names.plural.clone(),
            namespaced: self.facts.namespaced,
            selectable_fields: selectable,
        };
        let namespace_of = |o: &ObjectReport| {
            o.prepared
                .to_value()
                .pointer("/metadata/namespace")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        // kubectl lists one namespace: the samples' when they are all in one, else the
        // request's.
        if self.facts.namespaced {
            let mut stored = analysis
                .objects
                .iter()
                .filter(|o| o.accepted && !o.prepared.is_null())
                .map(namespace_of);
            out.namespace = match stored.next() {
                Some(first) if !first.is_empty() && stored.all(|n| n == first) => first,
                _ => self.options.namespace.clone(),
            };
        }
        let mut objects = Vec::new();
        for o in &analysis.objects {
            if !o.accepted || o.prepared.is_null() {
                out.left_out.push((
                    o.source,
                    o.document,
                    "not stored: the server rejects the object".to_owned(),
                ));
                continue;
            }
            // The report's read of the stored object in every served version.
            let obj = match o.served_as.iter().find(|r| r.version == version) {
                Some(r) => r.object.to_value(),
                None if o.api_version.rsplit('/').next() == Some(version.as_str()) => {
                    o.prepared.to_value()
                }
                None => {
                    out.left_out.push((
                        o.source,
                        o.document,
                        format!("reading it in {version} needs the conversion webhook"),
                    ));
                    continue;
                }
            };
            if self.facts.namespaced && namespace_of(o) != out.namespace {
                out.left_out.push((
                    o.source,
                    o.document,
                    format!(
                        "in namespace {}: the list is of namespace {}",
                        namespace_of(o),
                        out.namespace
                    ),
                ));
                continue;
            }
            out.samples.push((o.source, o.document));
            objects.push(obj);
        }
        out.selection = crate::printing::field_selector::select(&sv, selector, &objects);
        out.version = version;
        (out, objects)
    }

    /// The authored conversion of the stored samples of `analysis` to `target` with the
    /// mapping texts ([`crate::versions::authored_conversion`]).
    pub fn authored_conversion(
        &self,
        analysis: &Analysis,
        mappings: &[String],
        target: &str,
    ) -> crate::versions::authored_conversion::ConversionPreview {
        let samples: Vec<crate::versions::authored_conversion::Sample> = analysis
            .objects
            .iter()
            .filter(|o| o.accepted && !o.prepared.is_null())
            .map(|o| crate::versions::authored_conversion::Sample {
                source: o.source,
                document: o.document,
                object: o.prepared.to_value(),
            })
            .collect();
        crate::versions::authored_conversion::preview(self, &samples, mappings, target)
    }
}
