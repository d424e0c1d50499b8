//! Changing a CRD (issue 16): the CRD validated as an update of a previous revision, the
//! changes between the two revisions ([`crate::crd_diff`]), and what happens to each sample
//! object as stored under the previous revision once the new one is in place.
//!
//! The update path is the server's (`customResourceDefinitionStrategy`: `BeforeUpdate`'s
//! system fields, `PrepareForUpdate`, `ValidateCustomResourceDefinitionUpdate` with the
//! options the old CRD allows, `WarningsOnUpdate`); the stored-object effects reuse the
//! analysis's own pipeline (the previous revision's create and storage write, the new
//! revision's storage read, and its update path with ratcheting).

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::{locate_error, CompiledCrd, FieldErrorReport, ObjectReport};
use crate::crd::apiext::{self, InternalCrd};
use crate::documents::document::Node;
use crate::documents::field_error::FieldError;
use crate::documents::finding::{sort_findings, Finding, Location, Severity, SourceId};
use crate::documents::json_text::JsonText;
use crate::documents::path::{locate, FieldPath};

/// The previous revision of the CRD, compiled once (as the server created it) and reused
/// while only the new revision or the objects change.
#[derive(Clone, Debug)]
pub struct PreviousCrd {
    text: Rc<str>,
    compiled: CompiledCrd,
}

impl PreviousCrd {
    /// The previous revision's text and its compile (as for a create; the front door's
    /// `PreviousCrd::compile` makes both).
    pub(crate) fn new(text: &str, compiled: CompiledCrd) -> PreviousCrd {
        PreviousCrd {
            text: Rc::from(text),
            compiled,
        }
    }

    /// The previous revision's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The previous revision as compiled for a create.
    pub fn compiled(&self) -> &CompiledCrd {
        &self.compiled
    }
}

/// The server's verdict on one request about a stored object.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestVerdict {
    /// Whether the server would accept it.
    pub accepted: bool,
    /// Why not: the decoding error (400), when the body cannot be decoded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_error: Option<String>,
    /// The errors the server would return, located in the object's text.
    pub errors: Vec<FieldErrorReport>,
    /// The warnings it would return.
    pub warnings: Vec<String>,
}

impl RequestVerdict {
    fn of(report: &ObjectReport) -> RequestVerdict {
        RequestVerdict {
            accepted: report.accepted && report.object_error.is_none(),
            decode_error: report
                .decode_error
                .clone()
                .or_else(|| report.object_error.clone()),
            errors: report.errors.clone(),
            warnings: report.warnings.clone(),
        }
    }
}

/// What the new revision does to one sample object stored under the previous revision.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredEffect {
    /// Which object text (0-based).
    pub source: usize,
    /// Which document of that text (0-based).
    pub document: usize,
    /// The object's `apiVersion`, `kind` and `metadata.name`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `metadata.name`.
    pub name: String,
    /// Whether the previous revision accepts the object (a create). When it does not, the
    /// object is taken as stored anyway (it may predate a rule), as the previous revision
    /// would have written it.
    pub previously_accepted: bool,
    /// The previous revision's storage version, the version the object is stored in.
    pub stored_version: String,
    /// The object as stored under the previous revision (converted to its storage version,
    /// pruned, defaulted).
    pub stored: JsonText,
    /// Why the effects could not be worked out (the previous revision does not serve the
    /// object, the new one cannot read the stored version, a conversion needs the webhook);
    /// the fields below are then empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The version the read is in: the object's own version when the new revision still
    /// has it, else the new storage version.
    pub read_version: String,
    /// What a read returns under the new revision.
    pub read: JsonText,
    /// Fields of the stored object a read drops: data lost (the next write stores the
    /// object without them).
    pub read_pruned: Vec<String>,
    /// Fields the new revision's defaults set on read.
    pub read_defaulted: Vec<String>,
    /// An unchanged update (`kubectl apply` of the same object) under the new revision: the
    /// object read as the old object, the object text as the new one, so ratcheting applies.
    pub update: RequestVerdict,
    /// A create of the same object under the new revision.
    pub create: RequestVerdict,
}

/// The system fields the request gets from the live object: `kubectl apply` patches it, so
/// the request carries its resource version, and `rest.BeforeUpdate` keeps its uid (when the
/// request has none), creation time and generation.
fn before_update_meta(new: &mut InternalCrd, old: &InternalCrd) {
    // `kubectl apply` patches the live object: the request carries its resource version.
    if new.metadata.resource_version.is_empty() {
        new.metadata.resource_version = old.metadata.resource_version.clone();
    }
    if new.metadata.uid.is_empty() {
        new.metadata.uid = old.metadata.uid.clone();
    }
    if !old.metadata.creation_timestamp.is_zero() {
        new.metadata.creation_timestamp = old.metadata.creation_timestamp;
    }
    new.metadata.generation = old.metadata.generation;
}

/// The previous revision as the server holds it: a text without status conditions (the file
/// the CRD was applied from) stands for a CRD the server created, with the status its
/// controllers then wrote: the storage version stored (already done on reading), and
/// * the naming controller (`pkg/controller/status/naming_controller.go`,
///   `calculateNamesAndConditions`): its names accepted (no other CRD is known to claim them),
///   `NamesAccepted` true, `Established` false ("Installing");
/// * the establishing controller (`pkg/controller/establish/establishing_controller.go`,
///   `sync`): `Established` true, unless the conversion webhook's `caBundle` is invalid
///   (`webhook.ValidateCABundle`): then `Established` stays false ("InvalidCABundle"), and
///   the update's strategy reads a CRD that was never established (names and scope may
///   change, `requireImmutableNames` is off; an invalid `caBundle` is allowed).
fn as_stored(old: &InternalCrd) -> InternalCrd {
    let mut old = old.clone();
    if old.status.conditions.is_empty() {
        let condition =
            |type_: &str, status: &str, reason: &str, message: &str| apiext::internal::Condition {
                type_: type_.to_owned(),
                status: status.to_owned(),
                reason: reason.to_owned(),
                message: message.to_owned(),
            };
        old.status.accepted_names = old.spec.names.clone();
        old.status.conditions.push(condition(
            "NamesAccepted",
            "True",
            "NoConflicts",
            "no conflicts found",
        ));
        let invalid_ca_bundle = old
            .spec
            .conversion
            .as_ref()
            .and_then(|c| c.webhook_client_config.as_ref())
            .is_some_and(|cc| apiext::webhook::ca_bundle_error(&cc.ca_bundle).is_some());
        old.status.conditions.push(if invalid_ca_bundle {
            condition(
                "Established",
                "False",
                "InvalidCABundle",
                "The conversion webhook CABundle is invalid",
            )
        } else {
            condition(
                "Established",
                "True",
                "InitialNamesAccepted",
                "the initial names have been accepted",
            )
        });
    }
    if old.metadata.generation == 0 {
        old.metadata.generation = 1;
    }
    // Every stored object has a resource version; the text's stands for it, or any.
    if old.metadata.resource_version.is_empty() {
        old.metadata.resource_version = "1".to_owned();
    }
    old
}

/// A CRD body the server cannot decode (a type error such as a string where a number
/// belongs, `crd.decode`) is answered with the decode error alone: the handler
/// (apiserver `pkg/endpoints/handlers/create.go` / `update.go`) returns 400 before the
/// strategy runs, and a strict-decoding complaint comes only with a decoded body
/// (apimachinery `runtime/serializer/json` `Decode` returns the decode error first). What the
/// studio found besides (validation errors and warnings, unknown fields) stays, as notes of
/// what the server reports once the body decodes. Returns whether the body is undecodable.
pub(super) fn answer_decode_error_alone(findings: &mut [Finding]) -> bool {
    let in_crd = |f: &Finding| f.location.is_none_or(|l| l.source == SourceId::Crd);
    let undecodable = findings
        .iter()
        .any(|f| f.code == "crd.decode" && f.severity == Severity::Error && in_crd(f));
    if !undecodable {
        return false;
    }
    for f in findings.iter_mut() {
        let kind = f.code.as_str();
        if !in_crd(f)
            || f.note
            || !matches!(kind, "crd.invalid" | "crd.warning" | "crd.unknown-field")
        {
            continue;
        }
        let what = f.summary.clone().unwrap_or_else(|| f.message.clone());
        f.summary = Some(format!(
            "not in the server's answer, which is the decode error alone; once the body decodes, it reports: {what}"
        ));
        // Validation's findings are the studio's now; an unknown field keeps its code (the
        // update path redoes validation, not decoding).
        if kind != "crd.unknown-field" {
            f.code = "studio.after-decode".to_owned();
        }
        f.severity = Severity::Info;
        f.note = true;
    }
    true
}

/// The update's findings and report, in place of the create's.
impl CompiledCrd {
    /// This CRD as an update of `previous` (`None`: back to a create). Replaces the create's
    /// validation errors and warnings by the update's (the server's messages and paths, as on
    /// create), adds the changes between the revisions, and keeps `previous` for the
    /// stored-object effects of [`CompiledCrd::analyze_objects`]. `text` is this CRD's text.
    pub fn with_previous(mut self, text: &str, previous: Option<Rc<PreviousCrd>>) -> CompiledCrd {
        let Some(prev) = previous else {
            return self;
        };
        // The previous text's own problems (it does not parse, or is not a CRD) are in that
        // editor, as warnings: the verdict is about the request.
        for f in prev.compiled.parsed().findings.iter().chain(
            prev.compiled
                .findings()
                .iter()
                .filter(|f| f.code.starts_with("crd.") && f.code.contains("read")),
        ) {
            let mut f = f.clone();
            if let Some(l) = f.location.as_mut() {
                l.source = SourceId::OldCrd;
            }
            if f.severity == Severity::Error {
                f.severity = Severity::Warning;
            }
            self.findings.push(f);
        }
        self.changes =
            crate::crd_diff::diff_crds(&prev.text, text, self.options.kubernetes_version);
        let (Some(new), Some(old), Some((doc, root))) = (
            self.internal.as_deref(),
            prev.compiled.internal(),
            self.parsed.values().next(),
        ) else {
            if self.internal.is_some() {
                self.findings.push(Finding::warning(
                    "crd.previous-unreadable",
                    "the previous CRD text holds no readable CustomResourceDefinition: the CRD is checked as a create",
                ));
            }
            sort_findings(&mut self.findings);
            self.previous = Some(prev);
            return self;
        };
        let index = doc.index;
        let old = as_stored(old);
        let mut new = new.clone();
        before_update_meta(&mut new, &old);
        let default_rules = crate::cel::validator::DefaultsRules::new();
        let defaults = apiext::defaults::DefaultsValidation {
            cel: Some(&default_rules),
            ..apiext::defaults::DefaultsValidation::without_cel()
        };
        let kube = self.options.kubernetes_version;
        let cel = crate::cel::RuleCompiler::new(kube);
        let errors = apiext::validate_update(
            &new,
            &old,
            apiext::Hooks {
                cel: Some(&cel),
                defaults: Some(&defaults),
            },
        );
        let v1 = root.to_json();
        let text_lines = &self.parsed.lines;
        self.findings.retain(|f| {
            f.code != "crd.invalid" && f.code != "crd.warning" && f.code != "studio.after-decode"
        });
        let mut located = Vec::new();
        // The server's causes repeat an error several checks find (ObjectMeta's, by
        // `validateCommonFields` and the strategy); its message (`ToAggregate`) shows it once,
        // and so do the findings.
        let mut shown = std::collections::BTreeSet::new();
        for e in &errors {
            let v1_path = apiext::v1_path(&e.field, Some(&v1));
            let mut f = locate_error(e, "crd.invalid", Some(root), SourceId::Crd, index, &v1_path);
            f.summary = Some(e.summary(&v1_path.to_string()));
            if let (Some(loc), Some(span)) = (
                f.location.as_mut(),
                crate::cel::rules_view::cel_error_span(text, text_lines, root, &v1_path, &e.detail),
            ) {
                loc.span = span;
            }
            // A stored version removed: the status is the previous revision's (the new text
            // usually has none), so the place to act is the new text's `spec.versions`.
            if e.field.to_string().starts_with("status.storedVersions")
                && root.get("status").is_none()
            {
                if let (Some(loc), Some(versions)) = (
                    f.location.as_mut(),
                    root.get("spec").and_then(|s| s.entry("versions")),
                ) {
                    loc.span = versions.key_span;
                }
            }
            located.push(f.location);
            if shown.insert(e.error()) {
                self.findings.push(f);
            }
        }
        for w in apiext::warnings_on_update(&new, &old) {
            self.findings
                .push(Finding::warning("crd.warning", w).at(Location {
                    source: SourceId::Crd,
                    document: index,
                    span: root.span,
                }));
        }
        let undecodable = answer_decode_error_alone(&mut self.findings);
        sort_findings(&mut self.findings);
        self.report.operation = "update".to_owned();
        self.report.errors = if undecodable {
            Vec::new()
        } else {
            errors
                .iter()
                .zip(located)
                .map(|(e, l): (&FieldError, _)| FieldErrorReport::from_field_error(e, l))
                .collect()
        };
        self.report.accepted = !self.findings.iter().any(|f| f.severity == Severity::Error);
        self.previous = Some(prev);
        self
    }

    /// The previous revision given to [`CompiledCrd::with_previous`].
    pub fn previous(&self) -> Option<&PreviousCrd> {
        self.previous.as_deref()
    }

    /// What the new revision does to one object document stored under the previous one, and
    /// the data-loss findings in the object's text. `create` is the object's create report
    /// under this revision, when the caller has it.
    pub(super) fn stored_effect(
        &self,
        source: usize,
        document: usize,
        root: &Node,
        create: Option<&ObjectReport>,
    ) -> Option<(StoredEffect, Vec<Finding>)> {
        let prev = self.previous.as_deref()?;
        let mut findings = Vec::new();
        let (before, _) = prev.compiled.analyze_object(source, document, root, None);
        let mut effect = StoredEffect {
            source,
            document,
            api_version: before.api_version.clone(),
            kind: before.kind.clone(),
            name: before.name.clone(),
            previously_accepted: before.accepted,
            stored_version: before.stored_version.clone(),
            stored: before.stored.clone(),
            ..StoredEffect::default()
        };
        let create_report;
        let create = match create {
            Some(c) => c,
            None => {
                create_report = self.analyze_object(source, document, root, None).0;
                &create_report
            }
        };
        effect.create = RequestVerdict::of(create);
        if let Some(e) = &before.object_error {
            effect.note = Some(format!("the previous revision cannot store it: {e}"));
            return Some((effect, findings));
        }
        if before.stored.is_null() {
            effect.note = Some(match (&before.decode_error, &before.stored_note) {
                (Some(e), _) => format!("the previous revision cannot store it: {e}"),
                (None, Some(n)) => format!("the previous revision's stored object is unknown: {n}"),
                (None, None) => "the previous revision cannot store it".to_owned(),
            });
            return Some((effect, findings));
        }
        let object_version = before
            .api_version
            .split_once('/')
            .map(|(_, v)| v)
            .unwrap_or("");
        let read_version = if self.compiled.iter().any(|v| v.name == object_version) {
            object_version.to_owned()
        } else {
            match self.compiled.iter().find(|v| v.storage) {
                Some(v) => v.name.clone(),
                None => object_version.to_owned(),
            }
        };
        effect.read_version = read_version.clone();
        let read = match crate::versions::conversion::read_from_storage(
            self,
            &before.stored_version,
            &before.stored.to_value(),
            &read_version,
        ) {
            Ok(r) => r,
            Err(e) => {
                effect.note = Some(e);
                return Some((effect, findings));
            }
        };
        for path in &read.pruned_paths {
            let hit = locate(root, &FieldPath::parse(path));
            findings.push(
                Finding::warning(
                    "studio.lost-on-read",
                    format!(
                        "{path}: stored under the previous revision, but the new revision's schema does not have it: a read no longer returns it, and the next write of the object drops it from storage (data lost)"
                    ),
                )
                .with_field(path.clone())
                .at(Location {
                    source: SourceId::Object(source),
                    document,
                    span: hit.span,
                }),
            );
        }
        effect.read_pruned = read.pruned_paths;
        effect.read_defaulted = read.defaulted_paths;
        // `kubectl apply` of the unchanged object: the stored object, as read, is the old one.
        let (update, _) = self.analyze_object(source, document, root, Some(&read.object));
        effect.update = RequestVerdict::of(&update);
        effect.read = JsonText::from_value(&read.object);
        Some((effect, findings))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{analyze, Request};

    fn crd(fields: &str, extra: &str) -> String {
        format!(
            r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {{plural: widgets, kind: Widget}}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
{fields}
{extra}"#
        )
    }

    const OBJECT: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n  color: red\n";

    #[test]
    fn removed_field_is_lost_on_read() {
        let old = crd(
            "              size: {type: integer}\n              color: {type: string}",
            "",
        );
        let new = crd("              size: {type: integer, maximum: 2}", "");
        let a = analyze(&Request {
            crd: new,
            objects: vec![OBJECT.to_owned(), OBJECT.replace("  color: red\n", "")],
            old_crd: Some(old),
            ..Request::default()
        });
        assert_eq!(a.crd.operation, "update");
        assert!(a.crd.accepted, "{:?}", a.crd.errors);
        let e = &a.stored_effects[0];
        assert_eq!(e.note, None);
        assert_eq!(e.stored_version, "v1");
        assert_eq!(e.read_pruned, vec!["spec.color".to_owned()]);
        // `kubectl apply` of the same file now names an unknown field (strict decoding).
        assert!(!e.update.accepted);
        assert_eq!(
            e.update.decode_error.as_deref(),
            Some("Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: unknown field \"spec.color\"")
        );
        // Without it, the unchanged update keeps the too-large size (ratcheting); a create
        // does not.
        let e = &a.stored_effects[1];
        assert!(e.read_pruned.is_empty());
        assert!(e.update.accepted, "{:?}", e.update);
        assert!(!e.create.accepted);
        assert_eq!(
            e.create.errors[0].error,
            "spec.size: Invalid value: 3: spec.size in body should be less than or equal to 2"
        );
        let lost: Vec<_> = a
            .findings
            .iter()
            .filter(|f| f.code == "studio.lost-on-read")
            .collect();
        assert_eq!(lost.len(), 1);
        assert_eq!(lost[0].location.unwrap().source, SourceId::Object(0));
    }

    #[test]
    fn update_rules_apply() {
        // Changing the scope of an established CRD is refused on update, not on create.
        let old = crd("              size: {type: integer}", "");
        let new = old.replace("scope: Namespaced", "scope: Cluster");
        let a = analyze(&Request {
            crd: new.clone(),
            old_crd: Some(old),
            ..Request::default()
        });
        assert!(!a.crd.accepted);
        assert_eq!(
            a.crd.errors[0].error,
            "spec.scope: Invalid value: \"Cluster\": field is immutable"
        );
        let f = a.findings.iter().find(|f| f.code == "crd.invalid").unwrap();
        assert_eq!(f.location.unwrap().source, SourceId::Crd);
        let created = analyze(&Request {
            crd: new,
            ..Request::default()
        });
        assert!(created.crd.accepted);
        assert_eq!(created.crd.operation, "create");
        assert!(created.stored_effects.is_empty());
    }

    #[test]
    fn removing_a_stored_version_is_refused() {
        let old = crd("              size: {type: integer}", "");
        let new = old.replace("name: v1\n", "name: v2\n");
        let new_text = new.clone();
        let a = analyze(&Request {
            crd: new,
            objects: vec![OBJECT.to_owned()],
            old_crd: Some(old),
            ..Request::default()
        });
        assert!(!a.crd.accepted);
        assert!(
            a.crd.errors.iter().any(|e| e.error.starts_with(
                "status.storedVersions[0]: Invalid value: \"v1\": missing from spec.versions; v1 was previously a storage version"
            )),
            "{:?}",
            a.crd.errors
        );
        // Located at the new text's `spec.versions`, where the version must come back.
        let versions_line = new_text
            .lines()
            .position(|l| l.trim_start().starts_with("versions:"))
            .unwrap()
            + 1;
        let stored = a
            .findings
            .iter()
            .find(|f| f.message.starts_with("status.storedVersions[0]"))
            .unwrap();
        assert_eq!(stored.location.unwrap().span.start.line, versions_line);
        let e = &a.stored_effects[0];
        assert!(
            e.note.as_deref().unwrap().contains("no longer has"),
            "{e:?}"
        );
    }

    /// apimachinery `pkg/util/validation/field/errors.go` `Error.ErrorBody`: `json.Marshal`
    /// of the bad value, so `spec.versions: []` (a non-nil empty slice after decoding and
    /// the v1 → internal conversion) prints `[]`, a missing `versions` `null`; on create and on
    /// update (apiextensions `validateCustomResourceDefinitionSpec`: "must have exactly one
    /// version marked as storage version").
    #[test]
    fn empty_versions_print_as_an_empty_list() {
        let old = crd("              size: {type: integer}", "");
        let start = old.find("  versions:").unwrap();
        let without = |replacement: &str| format!("{}{replacement}", &old[..start]);
        let cases: Vec<(String, &str)> = vec![
            (without("  versions: []\n"), "spec.versions: Invalid value: []: must have exactly one version marked as storage version"),
            (without(""), "spec.versions: Invalid value: null: must have exactly one version marked as storage version"),
        ];
        for (new, want) in cases {
            for old_crd in [None, Some(old.clone())] {
                let update = old_crd.is_some();
                let a = analyze(&Request {
                    crd: new.clone(),
                    old_crd,
                    ..Request::default()
                });
                let errors: Vec<&str> = a.crd.errors.iter().map(|e| e.error.as_str()).collect();
                assert!(errors.contains(&want), "update {update}: {errors:#?}");
            }
        }
    }

    /// apiserver `pkg/registry/rest/update.go` `BeforeUpdate`: `validateCommonFields`
    /// (`ValidateObjectMetaAccessor`, `ValidateObjectMetaAccessorUpdate`) then the strategy's
    /// `ValidateCustomResourceDefinitionUpdate` (`ValidateObjectMetaUpdate` again): a bad label
    /// is three causes, a changed name two (`field.ErrorList` as `errors.NewInvalid` keeps it);
    /// the message (`ToAggregate`) and the findings show each once.
    #[test]
    fn update_causes_keep_the_servers_repeats() {
        let old = crd("              size: {type: integer}", "");
        let cases: Vec<(String, Vec<&str>)> = vec![
            (
                old.replace("  name: widgets.example.com\n", "  name: widgets.example.com\n  labels: {\"a b\": x}\n"),
                vec![
                    "metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
                    3
                ],
            ),
            (
                old.replace("  name: widgets.example.com\n", "  name: gadgets.example.com\n"),
                vec!["metadata.name: Invalid value: \"gadgets.example.com\": field is immutable"; 2],
            ),
        ];
        for (new, want) in cases {
            let a = analyze(&Request {
                crd: new,
                old_crd: Some(old.clone()),
                ..Request::default()
            });
            let errors: Vec<&str> = a.crd.errors.iter().map(|e| e.error.as_str()).collect();
            assert_eq!(errors, want);
            let findings: Vec<&str> = a
                .findings
                .iter()
                .filter(|f| f.code == "crd.invalid")
                .map(|f| f.message.as_str())
                .collect();
            assert_eq!(findings, want[..1]);
        }
    }

    /// The old CRD as the controllers left it (`establishing_controller.go` `sync`: an invalid
    /// conversion `caBundle` keeps `Established` false), as the strategy reads it
    /// (`ValidateCustomResourceDefinitionUpdate`: `requireImmutableNames` only when the old
    /// CRD is established, `allowInvalidCABundle` when it is not).
    #[test]
    fn old_crd_never_established() {
        let webhook = |ca: &str| {
            format!(
                "  conversion:\n    strategy: Webhook\n    webhook:\n      conversionReviewVersions: [v1]\n      clientConfig:\n        url: https://example.com/convert\n{ca}"
            )
        };
        let invalid = webhook("        caBundle: Zm9v\n");
        let cases: Vec<(String, Vec<&str>)> = vec![
            // Never established: scope and kind may change, the invalid bundle is kept.
            (invalid.clone(), vec![]),
            // No bundle (the system's roots): established, names and scope are immutable.
            (
                webhook(""),
                vec![
                    "spec.scope: Invalid value: \"Cluster\": field is immutable",
                    "spec.names.kind: Invalid value: \"Gadget\": field is immutable",
                ],
            ),
        ];
        for (extra, want) in cases {
            let old = crd("              size: {type: integer}", &extra);
            let new = old
                .replace("scope: Namespaced", "scope: Cluster")
                .replace("kind: Widget}", "kind: Gadget}");
            let a = analyze(&Request {
                crd: new,
                old_crd: Some(old),
                ..Request::default()
            });
            let errors: Vec<&str> = a.crd.errors.iter().map(|e| e.error.as_str()).collect();
            assert_eq!(errors, want, "{extra}");
        }
        // Established with a valid text status: the status given is the stored one.
        let old = crd("              size: {type: integer}", &invalid);
        let old = format!("{old}status:\n  conditions:\n  - {{type: Established, status: \"True\"}}\n  storedVersions: [v1]\n");
        let a = analyze(&Request {
            crd: old.replace("scope: Namespaced", "scope: Cluster"),
            old_crd: Some(old.clone()),
            ..Request::default()
        });
        let errors: Vec<&str> = a.crd.errors.iter().map(|e| e.error.as_str()).collect();
        assert_eq!(
            errors,
            ["spec.scope: Invalid value: \"Cluster\": field is immutable"]
        );
    }

    /// A body the server cannot decode: apiserver `pkg/endpoints/handlers/update.go` /
    /// `create.go` answer 400 with the decoder's error before the strategy validates
    /// anything; the studio keeps the rest as notes.
    #[test]
    fn undecodable_body_is_answered_with_the_decode_error_alone() {
        let old = crd("              size: {type: integer}", "");
        let new = old.replace("scope: Namespaced", "scope: Cluster").replace(
            "size: {type: integer}",
            "size: {type: integer, maximum: \"2\"}",
        );
        for old_crd in [Some(old.clone()), None] {
            let update = old_crd.is_some();
            let a = analyze(&Request {
                crd: new.clone(),
                old_crd,
                ..Request::default()
            });
            assert!(!a.crd.accepted);
            assert!(
                a.crd.errors.is_empty(),
                "update {update}: {:?}",
                a.crd.errors
            );
            let errors: Vec<&str> = a
                .findings
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .map(|f| f.code.as_str())
                .collect();
            assert_eq!(errors, ["crd.decode"], "update {update}");
            let notes: Vec<&str> = a
                .findings
                .iter()
                .filter(|f| f.code == "studio.after-decode")
                .map(|f| f.message.as_str())
                .collect();
            if update {
                assert_eq!(
                    notes,
                    ["spec.scope: Invalid value: \"Cluster\": field is immutable"]
                );
            }
            assert!(a
                .findings
                .iter()
                .filter(|f| f.code == "studio.after-decode")
                .all(|f| f.note && f.severity == Severity::Info));
        }
    }

    #[test]
    fn unreadable_previous_text_is_a_warning_there() {
        let new = crd("              size: {type: integer}", "");
        let a = analyze(&Request {
            crd: new,
            old_crd: Some("a: [".to_owned()),
            ..Request::default()
        });
        assert!(a.crd.accepted);
        assert!(a
            .findings
            .iter()
            .any(|f| f.location.is_some_and(|l| l.source == SourceId::OldCrd)));
    }
}
