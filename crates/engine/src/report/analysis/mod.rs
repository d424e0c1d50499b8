//! The engine's public API: texts and options in, an [`Analysis`] out.
//!
//! The CRD changes rarely and objects change on every keystroke, so the work is split:
//! [`CompiledCrd::compile`] does everything that depends only on the CRD text (parsing, the
//! typed model, CRD validation, and later structural schemas and compiled CEL programs), and
//! [`CompiledCrd::analyze_objects`] runs the per-object pipeline against it. [`analyze`] does
//! both for callers that hold only texts (the CLI, tests).
//!
//! Everything that crosses the API is plain data with `serde` derives, so the web app can move
//! the engine into a Web Worker and pass [`Request`] and [`Analysis`] as JSON without change.
//!
//! Beside the server's errors, turned into located findings with plain-words summaries, the
//! analysis adds the studio's info findings and `ObjectReport::notes` on what the server does
//! quietly (`quiet_notes`: status reset by the status subresource, values kept by ratcheting,
//! defaults not applied). [`CompiledCrd::recompile`] reuses the previous compile on a CRD edit
//! with the result of a full compile (how: `tests/incremental.rs`).

use std::rc::Rc;

mod columns;
mod compile;
mod objects;
mod served;
#[cfg(test)]
mod tests;
mod update;
mod version_reuse;

use compile::ContentMemo;
pub use served::{FieldSelectorPreview, SubresourceReport};
pub use update::{PreviousCrd, RequestVerdict, StoredEffect};

use serde::{Deserialize, Serialize};

pub use crate::cel::report::{
    rule_key, CelOutcome, CelRuleReport, CelRuleResult, TableColumnReport, VersionReport,
};
pub use crate::versions::report::{FieldErrorReport, ServedObject};

// What the reports carry, from the stages that fill them, so that code showing an analysis
// (the web app's view models) needs no other engine module.
pub use crate::cel::cost_explain::{
    BoundFix, BoundKind, CostDriver, CostReport, DriverRole, ExpressionCost, ExpressionKind, Fix,
};
pub use crate::crd::apiext::schema_validation::{
    cost_error_message, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT,
};
pub use crate::crd_diff::{ChangeSeverity, CrdChange};
pub use crate::documents::position::Span;
pub use crate::printing::field_selector::{Operator, Requirement, Selection};
pub use crate::versions::conversion::Strategy;

use crate::crd::apiext::InternalCrd;
use crate::crd::Crd;
use crate::documents::document::{Node, ParsedText};
use crate::documents::field_error::FieldError;
use crate::documents::finding::{Finding, Location, Severity, SourceId};
use crate::documents::json_text::JsonText;
use crate::documents::kube_version::KubernetesVersion;
use crate::documents::path::{locate, FieldPath};
use crate::pipeline::{CompiledVersion, CrdFacts};

/// How the server treats unknown and duplicate fields (`kubectl --validate=...`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FieldValidation {
    /// Reject the request (`kubectl`'s default).
    #[default]
    Strict,
    /// Accept it and return warnings.
    Warn,
    /// Accept it silently.
    Ignore,
}

impl FieldValidation {
    /// Every value, in the order a user is offered them.
    pub const ALL: [FieldValidation; 3] = [
        FieldValidation::Strict,
        FieldValidation::Warn,
        FieldValidation::Ignore,
    ];

    /// The name as the server and `kubectl --validate` spell it: `Strict`, `Warn`, `Ignore`.
    pub fn name(self) -> &'static str {
        match self {
            FieldValidation::Strict => "Strict",
            FieldValidation::Warn => "Warn",
            FieldValidation::Ignore => "Ignore",
        }
    }

    /// Reads a name in any case (`strict`, `Warn`); anything else is an error naming the
    /// three.
    pub fn parse(text: &str) -> Result<FieldValidation, String> {
        let t = text.trim();
        FieldValidation::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(t))
            .ok_or_else(|| format!("unknown field validation `{t}` (Strict, Warn or Ignore)"))
    }
}

/// Options of an analysis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Options {
    /// Unknown/duplicate field handling.
    pub field_validation: FieldValidation,
    /// The Kubernetes server minor version to model (default 1.37): its CEL compatibility
    /// version, formats and feature gates (see [`crate::documents::kube_version`]).
    pub kubernetes_version: KubernetesVersion,
    /// The namespace of the request (`kubectl`'s current namespace), given to namespaced
    /// objects that name none.
    pub namespace: String,
    /// The clock for `date` printer columns (RFC 3339, e.g. the browser's time), so that
    /// ages read as `kubectl get` prints them at that moment (a date more than a second
    /// ahead of it reads `<invalid>`, as `duration.HumanDuration` prints a negative age).
    /// The engine has no clock of its own: without `now` (or when it does not parse) it
    /// cannot tell a date's age, nor whether it is in the future, and every valid date cell
    /// reads `0s`, the age a row has the moment its timestamp is written. Callers that show
    /// ages pass a clock (the CLI's `check` and `get`, the app's kubectl get view).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now: Option<crate::object::objectmeta::time::Time>,
    /// Whether an object with `metadata.generateName` and no `name` gets its name before
    /// validation, as the registry store of a real server gives it (`Store.create` calls
    /// the strategy's name generator, then `BeforeCreate`): on by default. The suffix is
    /// a deterministic stand-in for the server's random one, and a `studio.generated-name`
    /// note says so. Off, the object meets the strategy's validation as written (what the
    /// corpus oracle ran: the strategy in-process, without the store).
    pub generate_names: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            field_validation: FieldValidation::Strict,
            kubernetes_version: KubernetesVersion::DEFAULT,
            namespace: "default".to_owned(),
            now: None,
            generate_names: true,
        }
    }
}

/// Everything an analysis needs: the texts and the options.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Request {
    /// The CRD text (YAML or JSON).
    pub crd: String,
    /// Object texts; each may hold several YAML documents.
    pub objects: Vec<String>,
    /// The old object (update path, ratcheting), if any.
    pub old_object: Option<String>,
    /// The previous revision of the CRD, if any: the CRD is then validated as an update of
    /// it, and the analysis reports the changes and what happens to stored objects.
    pub old_crd: Option<String>,
    /// Options.
    pub options: Options,
}

/// The verdict on the CRD itself.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdReport {
    /// `metadata.name`, when there is one.
    pub name: Option<String>,
    /// Whether the server would accept the CRD (the create, or the update of the previous
    /// revision when one is given).
    pub accepted: bool,
    /// The server's validation errors.
    pub errors: Vec<FieldErrorReport>,
    /// `create`, or `update` when a previous revision was given.
    #[serde(default)]
    pub operation: String,
}

/// The result for one custom object (one YAML document).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectReport {
    /// Which object text (0-based).
    pub source: usize,
    /// Which document of that text (0-based).
    pub document: usize,
    /// Set when the document could not be analysed (unreadable, not served by this CRD).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_error: Option<String>,
    /// Set when the server would refuse to decode the request (400 Bad Request), e.g.
    /// unknown fields under `fieldValidation=Strict`; nothing was validated then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_error: Option<String>,
    /// `create`, or `update` when an old object was given.
    pub operation: String,
    /// The object's `apiVersion`.
    pub api_version: String,
    /// The object's `kind`.
    pub kind: String,
    /// `metadata.name`.
    pub name: String,
    /// Paths of the fields the server would drop.
    pub pruned_paths: Vec<String>,
    /// The object after pruning.
    pub pruned: JsonText,
    /// The object after pruning and defaulting.
    pub defaulted: JsonText,
    /// Paths of the fields defaulting set (absent before, present after).
    pub defaulted_paths: Vec<String>,
    /// The object after the create/update strategy (`status` dropped when the status
    /// subresource is on, `metadata.generation` set, ...), still in the request's version:
    /// what the server hands to storage, and what the request's version reads back.
    #[serde(default)]
    pub prepared: JsonText,
    /// The object the server would persist in etcd: [`ObjectReport::prepared`] converted to
    /// the storage version and pruned by that version's schema
    /// ([`crate::versions::conversion::to_storage`]). `null` when the engine cannot tell (see
    /// [`ObjectReport::stored_note`]).
    pub stored: JsonText,
    /// The version [`ObjectReport::stored`] is in (the storage version); empty when there is
    /// no stored object.
    #[serde(default)]
    pub stored_version: String,
    /// Fields the storage version's schema drops on write (after [`ObjectReport::pruned_paths`],
    /// which the request version's schema dropped). Paths of the object converted to the
    /// storage version; the None strategy changes only `apiVersion`, so they are also paths
    /// of the request object's text.
    #[serde(default)]
    pub stored_pruned_paths: Vec<String>,
    /// Why there is no stored object although the object was prepared (the conversion to the
    /// storage version needs the webhook, say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored_note: Option<String>,
    /// The object as each served version would return it once stored
    /// ([`crate::versions::conversion::served_as`]: converted to the storage version and pruned, then
    /// read back with the storage version's defaults, converted and pruned by the read
    /// version's schema). Versions that need the conversion webhook are left out.
    pub served_as: Vec<ServedObject>,
    /// Warnings the server would return with the response (unknown fields under `Warn`,
    /// deprecated version, finalizer names, ...), in its words.
    pub warnings: Vec<String>,
    /// Schema (OpenAPI, list-type, metadata) errors.
    pub schema_errors: Vec<FieldErrorReport>,
    /// CEL rule errors.
    pub cel_errors: Vec<FieldErrorReport>,
    /// Runtime CEL cost spent on the object.
    pub cel_runtime_cost: u64,
    /// A CEL rule named a time zone (`getHours('America/New_York')`) and the analysis had no
    /// time-zone database: the rule failed with `unknown time zone NAME` (as a server without
    /// tzdata would); give [`CompiledCrd::set_time_zones`] a database and analyse again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub needs_time_zones: bool,
    /// Every rule evaluation on the object, in the order the server runs them.
    #[serde(default)]
    pub cel_results: Vec<CelRuleResult>,
    /// All errors, as the server would return them.
    pub errors: Vec<FieldErrorReport>,
    /// Whether the server would accept the object.
    pub accepted: bool,
    /// The `kubectl get` row.
    pub table: TableRow,
    /// What the status and scale subresources show for the object.
    #[serde(default)]
    pub subresources: Option<SubresourceReport>,
    /// What the server did without a word about it: `status` reset by the status
    /// subresource, invalid values kept by ratcheting, defaults not applied. Each is also an
    /// info finding (or, for a ratcheted CEL rule, the server's warning) in the object's
    /// document.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<ObjectNote>,
    /// Where the pruned and defaulted fields and the values the CEL rules ran on are in the
    /// object's text.
    #[serde(default)]
    pub places: crate::report::places::ObjectPlaces,
}

/// One thing the server did quietly to an object ([`ObjectReport::notes`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectNote {
    /// The finding's code: `studio.status-subresource`, `studio.ratcheted` (and
    /// `object.warning` for a ratcheted CEL rule), `studio.default-not-applied`.
    pub code: String,
    /// The field it is about (the server's path form; empty for the object).
    pub field: String,
    /// A few words, e.g. `status dropped`.
    pub title: String,
    /// The explanation, in plain words, after the title and the field (the finding's
    /// message without them).
    pub message: String,
}

/// A `kubectl get` row for one object: the server's table for the object as stored, in
/// the object's version (the columns are that version's [`VersionReport::columns`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    /// The version whose columns the row follows.
    #[serde(default)]
    pub version: String,
    /// Column names.
    pub columns: Vec<String>,
    /// Cells as the server's JSON carries them: strings, integers, floats (an integral float
    /// is written without a fraction, so it reads back as an integer), booleans, and `null`
    /// where the server leaves the cell empty (kubectl prints nothing there).
    pub cells: Vec<serde_json::Value>,
}

/// How far an analysis of object texts is ([`CompiledCrd::analyze_objects_with_progress`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Object documents analysed.
    pub done: usize,
    /// Object documents known so far (a text not read yet counts as one).
    pub total: usize,
}

/// Everything the engine found, as plain data.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    /// The CRD verdict.
    pub crd: CrdReport,
    /// Per-version facts.
    pub versions: Vec<VersionReport>,
    /// One entry per custom object document.
    pub objects: Vec<ObjectReport>,
    /// Every finding, with its location, sorted by location.
    pub findings: Vec<Finding>,
    /// The versions as clients meet them: priority order, preferred version, deprecation
    /// warnings, what removing each would mean ([`crate::versions`]).
    #[serde(default)]
    pub version_overview: Option<crate::versions::VersionOverview>,
    /// Some object's CEL rule needed a named time zone and no database was given (see
    /// [`ObjectReport::needs_time_zones`]): load the database (`TimeZoneDb::from_bundle`) and
    /// analyse again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub needs_time_zones: bool,
    /// The changes from the previous revision of the CRD ([`Request::old_crd`]).
    #[serde(default)]
    pub changes: Vec<CrdChange>,
    /// What the new revision does to each object document stored under the previous one
    /// (only with [`Request::old_crd`]).
    #[serde(default)]
    pub stored_effects: Vec<StoredEffect>,
}

impl Analysis {
    /// Whether the CRD and every object would be accepted.
    pub fn accepted(&self) -> bool {
        self.crd.accepted
            && self.objects.iter().all(|o| o.accepted)
            && !self.findings.iter().any(|f| f.severity == Severity::Error)
    }
}

/// A CRD read and checked once, reused for every object analysis.
#[derive(Clone, Debug)]
pub struct CompiledCrd {
    /// The table convertor of each compiled version (same order).
    tables: Vec<crate::printing::table::Convertor>,
    parsed: Rc<ParsedText>,
    model: Option<Crd>,
    internal: Option<Rc<InternalCrd>>,
    facts: CrdFacts,
    compiled: Rc<Vec<CompiledVersion>>,
    findings: Vec<Finding>,
    report: CrdReport,
    versions: Vec<VersionReport>,
    options: Options,
    version_overview: Option<crate::versions::VersionOverview>,
    /// Named time zones for CEL (Go's tzdata); given by the caller, never read by the engine.
    time_zones: Option<std::sync::Arc<crd_studio_cel::tz::TimeZoneDb>>,
    /// What the compile derived from the CRD's content alone, for [`CompiledCrd::recompile`].
    memo: Option<Rc<ContentMemo>>,
    /// Whether [`CompiledCrd::recompile`] reused the previous compile's content work.
    reused: bool,
    /// The last CRD text whose parse [`document::reparse_tracked`] can start from (this one,
    /// or the previous base when this text's parse has findings), and that parse.
    parse_base: Option<(Rc<str>, Rc<ParsedText>)>,
    /// Whether [`CompiledCrd::recompile`] parsed only the entries around the edit.
    reparsed: bool,
    /// The previous revision ([`CompiledCrd::with_previous`]).
    previous: Option<Rc<PreviousCrd>>,
    /// The changes from the previous revision.
    changes: Vec<CrdChange>,
    /// The CRD text (for the fixes of object findings that edit a rule).
    text: Rc<str>,
}

impl crate::versions::conversion::CompiledCrdParts for CompiledCrd {
    fn internal(&self) -> Option<&InternalCrd> {
        CompiledCrd::internal(self)
    }

    fn compiled_versions(&self) -> &[CompiledVersion] {
        CompiledCrd::compiled_versions(self)
    }

    fn request_namespace(&self) -> &str {
        &self.options.namespace
    }

    fn generate_names(&self) -> bool {
        self.options.generate_names
    }

    fn kubernetes_version(&self) -> KubernetesVersion {
        self.options.kubernetes_version
    }

    fn time_zones(&self) -> Option<&crd_studio_cel::tz::TimeZoneDb> {
        CompiledCrd::time_zones(self)
    }
}

/// The path to locate a field error at: its own, except for the scale subresource's errors,
/// whose path is the whole JSON path as one name (`field.NewPath(".spec.replicas")` in
/// apiextensions-apiserver `customResourceValidator.ValidateScaleSpec`): those point at the
/// field the JSON path names (or its nearest existing parent).
fn location_path(field: &FieldPath) -> std::borrow::Cow<'_, FieldPath> {
    match field.0.as_slice() {
        [crate::documents::path::Segment::Field(name)] if name.starts_with('.') => {
            std::borrow::Cow::Owned(FieldPath::parse(name.trim_start_matches('.')))
        }
        _ => std::borrow::Cow::Borrowed(field),
    }
}

/// Turns a server field error into a finding located in a document.
fn locate_error(
    e: &FieldError,
    code: &str,
    root: Option<&Node>,
    source: SourceId,
    document: usize,
    path: &FieldPath,
) -> Finding {
    let f = e.to_finding(code);
    match root {
        Some(root) => {
            let hit = locate(root, &location_path(path));
            f.at(Location {
                source,
                document,
                span: hit.span,
            })
        }
        None => f,
    }
}

impl CompiledCrd {
    /// Gives CEL a time-zone database for named zones (`getHours('America/New_York')`), as
    /// Go's tzdata gives it to the server. Without one, such a rule fails with `unknown time
    /// zone NAME` and the analysis reports [`Analysis::needs_time_zones`], so a shell can load
    /// the database lazily (its bundle: [`crd_studio_cel::tz::TimeZoneDb::from_bundle`]) and analyse
    /// again.
    pub fn set_time_zones(&mut self, db: Option<std::sync::Arc<crd_studio_cel::tz::TimeZoneDb>>) {
        self.time_zones = db;
    }

    /// The time-zone database given, if any.
    pub fn time_zones(&self) -> Option<&crd_studio_cel::tz::TimeZoneDb> {
        self.time_zones.as_deref()
    }

    /// Whether this compile ([`CompiledCrd::recompile`]) reused the work of the previous one
    /// that depends only on the CRD's content (for tests and benchmarks).
    pub fn content_reused(&self) -> bool {
        self.reused
    }

    /// Whether this compile ([`CompiledCrd::recompile`]) parsed only the entries the edit
    /// changed ([`document::reparse_tracked`]; for tests and benchmarks).
    pub fn reparsed(&self) -> bool {
        self.reparsed
    }

    /// The CRD text this was compiled from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The typed model, when the text held a readable CRD.
    pub(crate) fn model(&self) -> Option<&Crd> {
        self.model.as_ref()
    }

    /// The CRD as the server holds it internally (after v1 defaulting and conversion).
    pub(crate) fn internal(&self) -> Option<&InternalCrd> {
        self.internal.as_deref()
    }

    /// The compiled versions.
    pub(crate) fn compiled_versions(&self) -> &[CompiledVersion] {
        &self.compiled
    }

    /// Findings about the CRD text.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The CRD's findings, for the front door to add their fixes.
    pub(crate) fn findings_mut(&mut self) -> &mut Vec<Finding> {
        &mut self.findings
    }

    /// The CRD document's v1 JSON: the one this compile decoded (kept, not built again), or
    /// when it kept none, built from the parsed text. `None` without a document.
    pub(crate) fn v1_json(&self) -> Option<std::borrow::Cow<'_, serde_json::Value>> {
        if let (Some(memo), Some(internal)) = (&self.memo, &self.internal) {
            if let (true, Some(v1)) = (Rc::ptr_eq(&memo.internal, internal), &memo.v1) {
                return Some(std::borrow::Cow::Borrowed(v1));
            }
        }
        let (_, root) = self.parsed.values().next()?;
        Some(std::borrow::Cow::Owned(root.to_json()))
    }

    /// CRD validation's errors (in its order) and the rule compiler's results of this
    /// compile, for checking other Kubernetes versions (`api/version_gates.rs`).
    pub(crate) fn validation_memo(
        &self,
    ) -> Option<(&[FieldError], &crate::cel::rules_view::CompileRecords)> {
        let (memo, internal) = (self.memo.as_ref()?, self.internal.as_ref()?);
        Rc::ptr_eq(&memo.internal, internal).then(|| (memo.errors.as_slice(), &memo.cel_records))
    }

    /// The parsed CRD text.
    pub(crate) fn parsed(&self) -> &ParsedText {
        &self.parsed
    }

    /// The options the CRD was compiled with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The source location of a server field path in the CRD text (nearest existing parent).
    pub fn locate(&self, path: &FieldPath) -> Option<Location> {
        let doc = self.parsed.values().next()?;
        let hit = locate(doc.1, path);
        Some(Location {
            source: SourceId::Crd,
            document: doc.0.index,
            span: hit.span,
        })
    }
}
