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
use std::sync::Arc;

mod update;
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

use crate::crd::apiext::{self, InternalCrd};
use crate::crd::{self, Crd};
use crate::documents::document::{self, Node, ParsedText};
use crate::documents::field_error::FieldError;
use crate::documents::finding::{sort_findings, Finding, Location, Severity, SourceId};
use crate::documents::json_text::JsonText;
use crate::documents::kube_version::{FeatureGate, KubernetesVersion};
use crate::documents::path::{locate, FieldPath};
use crate::object::validation::SchemaValidator;
use crate::pipeline::{self, CompiledVersion, CrdFacts, UnknownFields};
use crate::printing::scale::ScaleReport;
use crate::schema::Structural;

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
    /// The last CRD text whose parse [`document::reparse`] can start from (this one, or the
    /// previous base when this text's parse has findings), and that parse.
    parse_base: Option<(Rc<str>, Rc<ParsedText>)>,
    /// Whether [`CompiledCrd::recompile`] parsed only the changed top-level entries.
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

/// Everything [`CompiledCrd::compile`] derives from the content of the CRD (its v1 JSON
/// without unknown top-level fields) and the Kubernetes version alone, never from positions
/// in the text: kept so that [`CompiledCrd::recompile`] reuses it when an edit leaves that
/// content as it was.
#[derive(Debug)]
struct ContentMemo {
    /// The CRD document's v1 JSON.
    v1: serde_json::Value,
    /// [`Options::kubernetes_version`].
    kubernetes_version: KubernetesVersion,
    /// How many of `problems` are [`apiext::internal::root_key_problems`] of `v1`.
    root_problems: usize,
    /// `from_v1_json(v1)`'s problems.
    problems: Vec<apiext::DecodeProblem>,
    /// CRD validation's errors.
    errors: Vec<FieldError>,
    /// The rule compiler's results during CRD validation.
    cel_records: crate::cel::rules_view::CompileRecords,
    /// The version reports as [`version_reports`] builds them (rules placed in the text of
    /// that compile; no columns, no cost), and each rule's steps.
    versions: Vec<VersionReport>,
    rule_steps: Vec<crate::cel::rules_view::RuleSteps>,
    /// The cost analyses of the versions' schemas.
    costs: crate::cel::cost_explain::SchemaCosts,
    /// The version overview.
    version_overview: Option<crate::versions::VersionOverview>,
    /// The internal CRD.
    internal: Rc<InternalCrd>,
    /// The compiled versions.
    compiled: Rc<Vec<CompiledVersion>>,
}

/// Whether two JSON values are the same, to the bit (an `f64` is compared by its bits, so
/// `0.0` and `-0.0` differ; object keys in order).
fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (a, b) {
        (J::Null, J::Null) => true,
        (J::Bool(x), J::Bool(y)) => x == y,
        (J::Number(x), J::Number(y)) => {
            x.is_u64() == y.is_u64()
                && x.is_i64() == y.is_i64()
                && x.is_f64() == y.is_f64()
                && x.as_u64() == y.as_u64()
                && x.as_i64() == y.as_i64()
                && x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits)
        }
        (J::String(x), J::String(y)) => x == y,
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same_json(vx, vy))
        }
        _ => false,
    }
}

/// Whether two v1 CRD documents have the same content for [`apiext::from_v1_json`]: both
/// objects, with the same known top-level fields ([`apiext::internal::V1_ROOT_KEYS`]). Only
/// the unknown top-level fields may differ; they give `from_v1_json`'s first problems and
/// nothing else.
fn same_crd_content(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return false;
    };
    apiext::internal::V1_ROOT_KEYS
        .iter()
        .all(|k| match (a.get(*k), b.get(*k)) {
            (None, None) => true,
            (Some(x), Some(y)) => same_json(x, y),
            _ => false,
        })
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

/// The CRD strategy's `dropDisabledFields` on create: with `CustomResourceFieldSelectors`
/// off (1.30's default), `selectableFields` are dropped before validation.
fn drop_disabled_fields(crd: &mut InternalCrd, kube: KubernetesVersion) {
    if !FeatureGate::CustomResourceFieldSelectors.enabled_in(kube) {
        crd.spec.selectable_fields.clear();
        for v in &mut crd.spec.versions {
            v.selectable_fields.clear();
        }
    }
}

/// An info finding at each `selectableFields` the server drops at `kube` (its feature gate
/// is off by default there).
fn gate_notes(root: &Node, document: usize, kube: KubernetesVersion, findings: &mut Vec<Finding>) {
    let mut paths = vec![FieldPath::parse("spec.selectableFields")];
    let count = root
        .get("spec")
        .and_then(|s| s.get("versions"))
        .and_then(|v| v.as_seq())
        .map_or(0, |s| s.len());
    for i in 0..count {
        paths.push(FieldPath::parse(&format!(
            "spec.versions[{i}].selectableFields"
        )));
    }
    for path in paths {
        let hit = locate(root, &path);
        if !hit.exact {
            continue;
        }
        let mut f = Finding::new(
            Severity::Info,
            "crd.feature-gate-off",
            format!(
                "selectableFields is dropped on create: the {} feature gate is off by default in Kubernetes {kube}",
                FeatureGate::CustomResourceFieldSelectors.name()
            ),
        )
        .at(Location {
            source: SourceId::Crd,
            document,
            span: hit.span,
        });
        f.field = Some(path.to_string());
        findings.push(f);
    }
}

/// The compiled versions of an internal CRD: schema (per version or shared), structural
/// form (from `cache`, where CRD validation left it), validator, subresources.
fn compile_versions<'a>(
    crd: &'a InternalCrd,
    kube: KubernetesVersion,
    cache: &apiext::StructuralCache<'a>,
) -> Vec<CompiledVersion> {
    let vopts = crate::object::validation::Options {
        compatibility_version: kube.compatibility(),
    };
    // The rules are compiled once per schema (versions may share one), with the
    // stored-expressions environment, as the custom-resource strategy does.
    let compiler = crate::cel::RuleCompiler::new(kube);
    let mut rule_validators: Vec<(Arc<Structural>, Rc<crate::cel::validator::Validator>)> =
        Vec::new();
    crd.spec
        .versions
        .iter()
        .map(|v| {
            let props = v
                .schema
                .as_ref()
                .or(crd.spec.validation.as_ref())
                .and_then(|s| s.open_api_v3_schema.as_deref());
            let structural = props.and_then(|p| cache.get(p).ok());
            let subresources = v.subresources.as_ref().or(crd.spec.subresources.as_ref());
            let cel = structural.as_ref().and_then(|s| {
                if let Some((_, v)) = rule_validators.iter().find(|(k, _)| Arc::ptr_eq(k, s)) {
                    return Some(v.clone());
                }
                let v = Rc::new(crate::cel::validator::Validator::with_compiler(
                    &compiler,
                    s.clone(),
                    true,
                    crate::cel::validator::PER_CALL_LIMIT,
                )?);
                rule_validators.push((s.clone(), v.clone()));
                Some(v)
            });
            CompiledVersion {
                cel,
                name: v.name.clone(),
                served: v.served,
                storage: v.storage,
                deprecated: v.deprecated,
                deprecation_warning: v.deprecation_warning.clone(),
                validator: SchemaValidator::new(props, &vopts),
                has_rules: structural.as_deref().is_some_and(has_rules),
                has_defaults: structural.as_deref().is_some_and(pipeline::has_defaults),
                structural,
                status: subresources.is_some_and(|s| s.status),
                scale: subresources.and_then(|s| s.scale.clone()),
            }
        })
        .collect()
}

/// Whether a structural schema has any `x-kubernetes-validations` rule (`hasXValidations`).
fn has_rules(s: &Structural) -> bool {
    let mut stack = vec![s];
    while let Some(s) = stack.pop() {
        if !s.x_validations.is_empty() {
            return true;
        }
        stack.extend(s.properties.values());
        stack.extend(s.items.as_deref());
        stack.extend(s.additional_properties_schema());
    }
    false
}

/// The version reports of an internal CRD, each with the rules of its schema.
fn version_reports(
    c: &InternalCrd,
    text: &str,
    parsed: &ParsedText,
    errors: &[FieldError],
    records: &crate::cel::rules_view::CompileRecords,
) -> (Vec<VersionReport>, Vec<crate::cel::rules_view::RuleSteps>) {
    use crate::cel::rules_view;
    let first = parsed.values().next();
    let input = rules_view::RulesInput {
        text,
        root: first.map(|(_, r)| r),
        document: first.map_or(0, |(d, _)| d.index),
        records,
    };
    let by_path = rules_view::errors_by_path(errors);
    let shared = c.spec.validation.is_some();
    c.spec
        .versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let schema_path = if shared {
                "spec.validation.openAPIV3Schema".to_owned()
            } else {
                format!("spec.versions[{i}].schema.openAPIV3Schema")
            };
            let schema = v
                .schema
                .as_ref()
                .or(c.spec.validation.as_ref())
                .and_then(|s| s.open_api_v3_schema.as_deref());
            let (rules, steps) = schema
                .map(|s| rules_view::version_rules_with_steps(&input, &by_path, s, i, &schema_path))
                .unwrap_or_default();
            let report = VersionReport {
                name: v.name.clone(),
                served: v.served,
                storage: v.storage,
                columns: Vec::new(),
                has_schema: shared
                    || v.schema
                        .as_ref()
                        .is_some_and(|s| s.open_api_v3_schema.is_some()),
                schema_path,
                rules,
                cost: None,
            };
            (report, steps)
        })
        .unzip()
}

impl CompiledCrd {
    /// Reads and validates a CRD text. Never fails: problems become findings. Without the
    /// findings' fixes: the front door's `CompiledCrd::compile` adds them.
    pub(crate) fn compile_without_fixes(text: &str, options: &Options) -> CompiledCrd {
        CompiledCrd::compile_with(text, options, None, None, None)
    }

    /// Compiles `text` after an edit of the text this CRD was compiled from: the same result
    /// as [`CompiledCrd::compile`] (every finding, span and report). The text is parsed again
    /// only from the first top-level entry the edit touched to the last
    /// ([`document::reparse`], when that certainly gives the full parse's tree), and what
    /// depends only on the CRD's content is reused when the edit left it as it was. The CRD's content is its v1
    /// JSON without unknown top-level fields, compared to the bit with the previous one, and
    /// the Kubernetes version; what is reused from it (the internal CRD, CRD validation's
    /// errors and compiled rules, the compiled versions, the cost analyses, the version
    /// overview) never holds a position, and everything positional (findings' spans, rule
    /// positions, cost edits, printer columns) is computed again in the new text.
    /// Without the findings' fixes, as [`CompiledCrd::compile_without_fixes`].
    pub(crate) fn recompile_without_fixes(&self, text: &str, options: &Options) -> CompiledCrd {
        let parsed = self
            .parse_base
            .as_ref()
            .and_then(|(base, parsed)| document::reparse(parsed, base, text, SourceId::Crd));
        let reparsed = parsed.is_some();
        let mut out = CompiledCrd::compile_with(
            text,
            options,
            self.memo.as_ref(),
            parsed,
            self.parse_base.as_ref(),
        );
        out.reparsed = reparsed;
        // The time-zone database is the caller's input, kept across edits.
        out.time_zones = self.time_zones.clone();
        out
    }

    fn compile_with(
        text: &str,
        options: &Options,
        previous: Option<&Rc<ContentMemo>>,
        parsed: Option<ParsedText>,
        parse_base: Option<&(Rc<str>, Rc<ParsedText>)>,
    ) -> CompiledCrd {
        let parsed = parsed.unwrap_or_else(|| document::parse(text, SourceId::Crd));
        let kube = options.kubernetes_version;
        let mut findings = parsed.findings.clone();
        let mut model = None;
        let mut internal: Option<Rc<InternalCrd>> = None;
        let mut seen = false;
        let mut errors: Vec<FieldError> = Vec::new();
        let mut compiled = Rc::new(Vec::new());
        let mut cel_records = crate::cel::rules_view::CompileRecords::new();
        let mut v1_json = None;
        let mut problems_memo = (0, Vec::new());
        let mut reused: Option<&Rc<ContentMemo>> = None;
        for (doc, root) in parsed.values() {
            if seen {
                let mut extra = Finding::new(
                    Severity::Info,
                    "crd.extra-document",
                    "only the first CustomResourceDefinition of the CRD text is analysed",
                )
                .at(Location {
                    source: SourceId::Crd,
                    document: doc.index,
                    span: root.span,
                });
                // An object pasted after the CRD: the headline says where it goes (the page
                // offers the move for a finding with this summary).
                if let Some(kind) = root
                    .get("kind")
                    .and_then(|k| k.as_str())
                    .filter(|k| *k != "CustomResourceDefinition" && !k.is_empty())
                {
                    extra = extra.with_summary(format!(
                        "a {kind} in the CRD text is not analysed (only the first \
                         CustomResourceDefinition is): objects go in the Object editor"
                    ));
                }
                findings.push(extra);
                continue;
            }
            seen = true;
            let (crd, mut crd_findings) = crd::read(root, doc.index);
            let is_crd = crd.is_some();
            findings.append(&mut crd_findings);
            model = crd;
            if !is_crd {
                continue;
            }
            let v1 = root.to_json();
            // The previous compile's content, when this text has the same.
            let same = previous.filter(|m| {
                m.kubernetes_version == options.kubernetes_version && same_crd_content(&m.v1, &v1)
            });
            reused = same;
            let (icrd, problems) = match same {
                Some(m) => {
                    // `from_v1_json`'s problems: the unknown top-level fields of this text,
                    // then those of the (same) known fields.
                    let mut problems = apiext::internal::root_key_problems(&v1);
                    problems.extend(m.problems.iter().skip(m.root_problems).cloned());
                    (m.internal.clone(), problems)
                }
                None => {
                    let (mut icrd, problems) = apiext::from_v1_json(&v1);
                    drop_disabled_fields(&mut icrd, kube);
                    (Rc::new(icrd), problems)
                }
            };
            if !FeatureGate::CustomResourceFieldSelectors.enabled_in(kube) {
                gate_notes(root, doc.index, kube, &mut findings);
            }
            for p in &problems {
                let path = FieldPath::parse(&p.path);
                let hit = locate(root, &path);
                let (severity, code) = if p.unknown_field {
                    (Severity::Error, "crd.unknown-field")
                } else {
                    (Severity::Error, "crd.decode")
                };
                let mut f = Finding::new(severity, code, p.message.clone()).at(Location {
                    source: SourceId::Crd,
                    document: doc.index,
                    span: hit.span,
                });
                f.field = Some(p.path.clone());
                // Unknown fields follow the request's field validation, like objects.
                if p.unknown_field {
                    match options.field_validation {
                        FieldValidation::Strict => {}
                        FieldValidation::Warn => f.severity = Severity::Warning,
                        FieldValidation::Ignore => continue,
                    }
                }
                findings.push(f);
            }
            problems_memo = (apiext::internal::root_key_problems(&v1).len(), problems);
            match same {
                Some(m) => {
                    errors = m.errors.clone();
                    cel_records = m.cel_records.clone();
                    compiled = m.compiled.clone();
                }
                None => {
                    // Defaults are validated with their schemas' CEL rules, too.
                    let default_rules = crate::cel::validator::DefaultsRules::new();
                    let defaults = apiext::defaults::DefaultsValidation {
                        cel: Some(&default_rules),
                        ..apiext::defaults::DefaultsValidation::without_cel()
                    };
                    // Validation converts each schema to its structural form once; the
                    // versions are compiled with the same forms.
                    let cache = apiext::StructuralCache::new();
                    let cel = crate::cel::RuleCompiler::new(kube);
                    // The compile results are kept for the rules of the version reports.
                    let recorder = crate::cel::rules_view::RecordingCompiler::new(&cel);
                    errors = apiext::validate_create_with_cache(
                        &icrd,
                        apiext::Hooks {
                            cel: Some(&recorder),
                            defaults: Some(&defaults),
                        },
                        &cache,
                    );
                    cel_records = recorder.into_records();
                    compiled = Rc::new(compile_versions(&icrd, kube, &cache));
                }
            }
            for e in &errors {
                let v1_path = apiext::v1_path(&e.field, Some(&v1));
                let mut f = locate_error(
                    e,
                    "crd.invalid",
                    Some(root),
                    SourceId::Crd,
                    doc.index,
                    &v1_path,
                );
                f.summary = Some(e.summary(&v1_path.to_string()));
                // A CEL compile error points at its character inside the expression.
                if let (Some(loc), Some(span)) = (
                    f.location.as_mut(),
                    crate::cel::rules_view::cel_error_span(
                        text,
                        &parsed.lines,
                        root,
                        &v1_path,
                        &e.detail,
                    ),
                ) {
                    loc.span = span;
                }
                findings.push(f);
            }
            for w in apiext::warnings_on_create(&icrd) {
                findings.push(Finding::warning("crd.warning", w).at(Location {
                    source: SourceId::Crd,
                    document: doc.index,
                    span: root.span,
                }));
            }
            internal = Some(icrd);
            v1_json = Some(v1);
        }
        if !seen && !findings.iter().any(|f| f.severity == Severity::Error) {
            findings.push(Finding::error(
                "crd.empty",
                "the CRD text holds no document",
            ));
        }
        let facts = internal
            .as_ref()
            .map(|c| CrdFacts {
                group: c.spec.group.clone(),
                kind: c.spec.names.kind.clone(),
                namespaced: c.spec.scope == "Namespaced",
                preserve_unknown_fields: c.spec.preserve_unknown_fields == Some(true),
                request_namespace: options.namespace.clone(),
                generate_names: options.generate_names,
            })
            .unwrap_or_default();
        let first = parsed.values().next();
        let root = first.map(|(_, r)| r);
        let document = first.map_or(0, |(d, _)| d.index);
        // The version reports with their rules, and the rules' CEL cost analyses.
        let (base_versions, rule_steps, costs) = match (internal.as_deref(), reused) {
            (Some(_), Some(m)) => {
                let mut versions = m.versions.clone();
                for (i, (v, steps)) in versions.iter_mut().zip(&m.rule_steps).enumerate() {
                    crate::cel::rules_view::place_rules(
                        text,
                        document,
                        root,
                        i,
                        &mut v.rules,
                        steps,
                    );
                }
                (versions, m.rule_steps.clone(), m.costs.clone())
            }
            (Some(c), None) => {
                let (versions, steps) = version_reports(c, text, &parsed, &errors, &cel_records);
                let costs = crate::cel::cost_explain::schema_costs(&versions, c, kube);
                (versions, steps, costs)
            }
            (None, _) => Default::default(),
        };
        let mut versions = base_versions.clone();
        // The CEL cost reports (costs, what drives them, bounds that fix them).
        if internal.is_some() {
            crate::cel::cost_explain::place_cost_reports(
                &mut versions,
                &costs,
                text,
                document,
                root,
            );
        }
        // Printer columns: each version's table convertor, its columns in the version reports,
        // and findings for the columns that cannot work.
        let tables = table_columns(
            internal.as_deref(),
            &compiled,
            &parsed,
            &mut versions,
            &mut findings,
        );
        let undecodable = update::answer_decode_error_alone(&mut findings);
        sort_findings(&mut findings);
        let report = CrdReport {
            name: model
                .as_ref()
                .and_then(|m| m.name.as_ref().map(|n| n.value.clone())),
            accepted: !findings.iter().any(|f| f.severity == Severity::Error),
            errors: errors
                .iter()
                .filter(|_| !undecodable)
                .map(|e| {
                    let f = findings.iter().find(|f| {
                        f.code == "crd.invalid"
                            && f.field.as_deref() == Some(e.field.to_string().as_str())
                            && f.message == e.error()
                    });
                    FieldErrorReport::from_field_error(e, f.and_then(|f| f.location))
                })
                .collect(),
            operation: "create".to_owned(),
        };
        let version_overview = match reused {
            Some(m) => m.version_overview.clone(),
            None => internal
                .as_deref()
                .zip(v1_json.as_ref())
                .map(|(c, v1)| crate::versions::overview(v1, c)),
        };
        // A text without a CRD keeps the previous content work, for the next edit.
        let memo = match (v1_json, internal.clone()) {
            (Some(v1), Some(internal)) => Some(Rc::new(ContentMemo {
                v1,
                kubernetes_version: options.kubernetes_version,
                root_problems: problems_memo.0,
                problems: problems_memo.1,
                errors,
                cel_records,
                versions: base_versions,
                rule_steps,
                costs,
                version_overview: version_overview.clone(),
                internal,
                compiled: compiled.clone(),
            })),
            _ => previous.cloned(),
        };
        // A text with parse findings (a keystroke in the middle of a word) keeps the previous
        // base, so that the next edit is parsed in part again.
        let parsed = Rc::new(parsed);
        let parse_base = if parsed.findings.is_empty() && !parsed.aliased {
            Some((Rc::from(text), parsed.clone()))
        } else {
            parse_base.cloned()
        };
        CompiledCrd {
            tables,
            parsed,
            model,
            internal,
            facts,
            compiled,
            findings,
            report,
            versions,
            options: options.clone(),
            version_overview,
            time_zones: None,
            memo,
            reused: reused.is_some(),
            parse_base,
            reparsed: false,
            previous: None,
            changes: Vec::new(),
            text: Rc::from(text),
        }
    }

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

    /// Whether this compile ([`CompiledCrd::recompile`]) parsed only the top-level entries
    /// the edit changed ([`document::reparse`]; for tests and benchmarks).
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
            if Rc::ptr_eq(&memo.internal, internal) {
                return Some(std::borrow::Cow::Borrowed(&memo.v1));
            }
        }
        let (_, root) = self.parsed.values().next()?;
        Some(std::borrow::Cow::Owned(root.to_json()))
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

    /// Analyses object texts against this CRD, telling `progress` after each object document
    /// (the shells show it and decide whether to go on waiting; the engine itself keeps no
    /// clock). `old_object` switches to the update path. Without the findings' fixes: the
    /// front door's `CompiledCrd::analyze_objects` adds them.
    pub(crate) fn analyze_objects_without_fixes(
        &self,
        objects: &[String],
        old_object: Option<&str>,
        progress: &mut dyn FnMut(Progress),
    ) -> Analysis {
        let mut findings = self.findings.clone();
        let mut reports = Vec::new();
        let old = old_object.map(|t| document::parse(t, SourceId::OldObject));
        if let Some(old) = &old {
            findings.extend(old.findings.iter().cloned());
        }
        let old_root = old
            .as_ref()
            .and_then(|o| o.values().next().map(|(_, r)| r.to_json()));
        let mut done = 0;
        let mut stored_effects = Vec::new();
        for (i, text) in objects.iter().enumerate() {
            let parsed = document::parse(text, SourceId::Object(i));
            // Documents known so far, and at least one for each text not read yet.
            let total = done + parsed.values().count() + (objects.len() - i - 1);
            findings.extend(
                parsed
                    .findings
                    .iter()
                    .filter_map(|f| apply_field_validation(f, self.options.field_validation)),
            );
            for (doc, root) in parsed.values() {
                let (report, mut object_findings) =
                    self.analyze_object(i, doc.index, root, old_root.as_ref());
                findings.append(&mut object_findings);
                let create = old_root.is_none().then_some(&report);
                if let Some((effect, mut effect_findings)) =
                    self.stored_effect(i, doc.index, root, create)
                {
                    findings.append(&mut effect_findings);
                    stored_effects.push(effect);
                }
                reports.push(report);
                done += 1;
                progress(Progress { done, total });
            }
        }
        sort_findings(&mut findings);
        Analysis {
            crd: self.report.clone(),
            versions: self.versions.clone(),
            needs_time_zones: reports.iter().any(|r: &ObjectReport| r.needs_time_zones),
            objects: reports,
            findings,
            version_overview: self.version_overview.clone(),
            changes: self.changes.clone(),
            stored_effects,
        }
    }

    fn analyze_object(
        &self,
        source: usize,
        document: usize,
        root: &Node,
        old: Option<&serde_json::Value>,
    ) -> (ObjectReport, Vec<Finding>) {
        let mut findings = Vec::new();
        let loc = |span| Location {
            source: SourceId::Object(source),
            document,
            span,
        };
        let api_version = root.get("apiVersion").and_then(Node::as_str).unwrap_or("");
        let kind = root.get("kind").and_then(Node::as_str).unwrap_or("");
        let name = root
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Node::as_str)
            .unwrap_or("");
        let mut report = ObjectReport {
            source,
            document,
            operation: if old.is_some() { "update" } else { "create" }.to_owned(),
            api_version: api_version.to_owned(),
            kind: kind.to_owned(),
            name: name.to_owned(),
            ..ObjectReport::default()
        };
        let json = root.to_json();
        let Some(model) = &self.model else {
            report.object_error =
                Some("there is no readable CRD to check the object against".into());
            return (report, findings);
        };
        if let Some(problem) = model.serves(api_version) {
            let span = root
                .entry("apiVersion")
                .map(|e| e.value.span)
                .unwrap_or(root.span);
            findings.push(Finding::error("object.not-served", problem.clone()).at(loc(span)));
            report.object_error = Some(problem);
            return (report, findings);
        }
        let version_name = api_version.split_once('/').map(|(_, v)| v).unwrap_or("");
        let Some(version) = self.compiled.iter().find(|v| v.name == version_name) else {
            report.object_error = Some(format!("version {version_name:?} is not compiled"));
            return (report, findings);
        };
        let mode = match self.options.field_validation {
            FieldValidation::Strict => UnknownFields::Fail,
            FieldValidation::Warn => UnknownFields::Warn,
            FieldValidation::Ignore => UnknownFields::Ignore,
        };
        let mut out = pipeline::run(
            json,
            old,
            &self.facts,
            &self.compiled,
            version,
            mode,
            self.time_zones.as_deref(),
        );
        // Unknown fields, each at its place in the text.
        if mode != UnknownFields::Ignore {
            for p in &out.pruned_paths {
                let hit = locate(root, &FieldPath::parse(p));
                let severity = if mode == UnknownFields::Fail {
                    Severity::Error
                } else {
                    Severity::Warning
                };
                let mut f = Finding::new(
                    severity,
                    "object.unknown-field",
                    crate::object::objectmeta::unknown_field_message(p),
                )
                .at(loc(hit.span));
                f.field = Some(p.clone());
                findings.push(f);
            }
        }
        if let Some(e) = &out.decode_error {
            if !out.pruned_paths.is_empty() && mode == UnknownFields::Fail {
                // Already reported field by field above.
            } else {
                findings.push(Finding::error("object.decode", e.clone()).at(loc(root.span)));
            }
        }
        // One finding per distinct error text, as the server's message words the list
        // (`ErrorList.ToAggregate` drops repeated texts); the report's `errors` keep every
        // cause, repeats included (an update checks ObjectMeta twice).
        let mut seen: Vec<String> = Vec::new();
        let gate = out.cel_errors.first().filter(|_| out.cel_skipped);
        for e in out.errors() {
            let text = e.error();
            if seen.contains(&text) {
                continue;
            }
            seen.push(text);
            if gate.is_some_and(|g| std::ptr::eq(g, e)) {
                // The CEL gate is about the errors before it, not about a place: a note at
                // the object's first line, marking nothing.
                findings.push(
                    e.to_finding("object.invalid")
                        .with_summary(
                            "the x-kubernetes-validations rules were not run: the server checks them only once the errors above are fixed",
                        )
                        .as_note()
                        .at(loc(Span::point(root.span.start))),
                );
                continue;
            }
            // A rule that did not run (compile error, budget) names the field's type as its
            // value: the summary leaves that out.
            let type_as_value = out.cel_errors.iter().any(|c| std::ptr::eq(c, e))
                && matches!(&e.bad_value, crate::documents::field_error::BadValue::Str(t)
                    if ["string", "integer", "number", "boolean", "object", "array"].contains(&t.as_str()));
            let path = e.field.to_string();
            let summary = if type_as_value {
                e.summary_without_value(&path)
            } else {
                e.summary(&path)
            };
            findings.push(
                locate_error(
                    e,
                    "object.invalid",
                    Some(root),
                    SourceId::Object(source),
                    document,
                    &e.field,
                )
                .with_summary(summary),
            );
        }
        // Studio notes on what the handler and the registry store did before validation.
        if let Some(generated) = &out.generated_name {
            let prefix = root
                .get("metadata")
                .and_then(|m| m.get("generateName"))
                .and_then(Node::as_str)
                .unwrap_or("");
            let hit = locate(root, &FieldPath::parse("metadata.generateName"));
            findings.push(
                Finding::new(
                    Severity::Info,
                    "studio.generated-name",
                    format!(
                        "the server names the object from generateName {}: the prefix{} plus 5 random characters; this analysis validates it as {} (the real name will differ)",
                        crd_studio_gostd::strconv::quote(prefix),
                        if prefix.len() > 58 { " (cut to 58 bytes)" } else { "" },
                        crd_studio_gostd::strconv::quote(generated)
                    ),
                )
                .at(loc(hit.span)),
            );
            report.name = generated.clone();
        }
        if let Some(ns) = &out.cleared_namespace {
            let hit = locate(root, &FieldPath::parse("metadata.namespace"));
            findings.push(
                Finding::new(
                    Severity::Info,
                    "studio.namespace-cleared",
                    format!(
                        "{} is cluster-scoped: the server clears metadata.namespace ({}) before validation and stores the object without one",
                        self.facts.kind,
                        crd_studio_gostd::strconv::quote(ns)
                    ),
                )
                .at(loc(hit.span)),
            );
        }
        // Patterns beyond the studio's regular-expression bounds (a deviation, documented in
        // ARCHITECTURE.md): the values they apply to were not checked against them.
        for text in &out.unevaluated_patterns {
            findings.push(
                Finding::info(
                    "studio.pattern-not-evaluated",
                    format!(
                        "pattern '{text}' was not evaluated on some values of this object: it is beyond CRD Studio's bounds for regular expressions (more states than it compiles for one schema, or a search past its work limit), so those values were not checked against it; the server checks them",
                    ),
                )
                .with_summary(format!(
                    "pattern '{}' was not checked here: too large for CRD Studio to evaluate",
                    crate::documents::field_error::shorten(text, 60)
                ))
                .as_note()
                .at(loc(Span::point(root.span.start))),
            );
        }
        // Ratcheted CEL failures are warnings at their field.
        for e in &out.cel_warnings {
            let path = e.field.to_string();
            let why = "the value is unchanged from the old object, so ratcheting makes the failed rule a warning instead of an error";
            let mut f = locate_error(
                e,
                "object.warning",
                Some(root),
                SourceId::Object(source),
                document,
                &e.field,
            )
            .with_summary(format!("{}; {why}", e.summary_without_value(&path)));
            f.severity = Severity::Warning;
            findings.push(f);
            report.notes.push(ObjectNote {
                code: "object.warning".to_owned(),
                field: path,
                title: "kept by ratcheting".to_owned(),
                message: format!("{why}: {}", e.error()),
            });
        }
        // What the server does quietly: studio notes.
        for f in self.quiet_notes(&out, version_name, root, &loc, &mut report.notes) {
            findings.push(f);
        }
        for w in &out.warnings {
            let ratcheted = out.cel_warnings.iter().any(|e| &e.error() == w);
            if !w.starts_with("unknown field ") && !ratcheted {
                findings.push(Finding::warning("object.warning", w.clone()).at(loc(root.span)));
            }
        }
        let to_report = |e: &FieldError| {
            let hit = locate(root, &location_path(&e.field));
            FieldErrorReport::from_field_error(e, Some(loc(hit.span)))
        };
        report.schema_errors = out.schema_errors.iter().map(to_report).collect();
        report.cel_errors = out.cel_errors.iter().map(to_report).collect();
        report.cel_runtime_cost = out.cel_runtime_cost;
        report.needs_time_zones = out.time_zones_needed;
        report.cel_results = out.cel_results.clone();
        report.errors = out.errors().map(to_report).collect();
        report.accepted = out.decode_error.is_none() && report.errors.is_empty();
        report.pruned_paths = out.pruned_paths.clone();
        report.defaulted_paths = out.defaulted_paths.clone();
        report.warnings = out.warnings.clone();
        // The handler adds a deprecated version's warning to every request, first.
        if let Some(w) = self.deprecation_warning(version_name) {
            let span = root
                .entry("apiVersion")
                .map(|e| e.value.span)
                .unwrap_or(root.span);
            findings.push(Finding::warning("object.deprecated-version", w.clone()).at(loc(span)));
            report.warnings.retain(|x| x != &w);
            report.warnings.insert(0, w);
        }
        report.decode_error = out.decode_error.clone();
        report.pruned = std::mem::take(&mut out.pruned);
        report.defaulted = std::mem::take(&mut out.defaulted);
        let prepared = std::mem::take(&mut out.stored);
        report.table = self.table_row(version_name, &prepared);
        report.prepared = JsonText::from_value(&prepared);
        // What the subresources show of the prepared object, taken before it is freed.
        let status_and_scale = (!prepared.is_null()).then(|| {
            let status = crate::printing::scale::status_facts(
                out.request_status.as_ref(),
                &prepared,
                version.status,
            );
            let own_scale = version
                .scale
                .as_ref()
                .map(|s| crate::printing::scale::scale_of(&prepared, s, &version.name));
            (status, own_scale)
        });
        // --- conversion (owner: conversion.rs) ---
        // The object the write starts from: the prepared object, or (a request the server
        // refuses to decode) the object as decoded, to show what it would have stored.
        let written = if prepared.is_null() {
            report.defaulted.to_value()
        } else {
            prepared
        };
        // What each served version's /scale shows, taken from the object as read in it.
        let mut read_scales: Vec<(String, ScaleReport)> = Vec::new();
        // The write: conversion to the storage version and its pruning.
        if !written.is_null() {
            match crate::versions::conversion::to_storage(self, &written) {
                Ok(p) => {
                    // Only one copy of the object at a time from here on.
                    drop(written);
                    // Studio note: the server drops these silently on write (no warning, no
                    // error); under the None strategy the path names the request's field.
                    for path in &p.pruned_paths {
                        let hit = locate(root, &FieldPath::parse(path));
                        findings.push(
                            Finding::new(
                                Severity::Info,
                                "studio.pruned-on-write",
                                format!(
                                    "{path}: not in the schema of the storage version {}: the server drops it when it stores the object",
                                    p.version
                                ),
                            )
                            .with_field(path.clone())
                            .at(loc(hit.span)),
                        );
                    }
                    // The object as every served version returns it once stored: the
                    // storage round trip (the write, above; then, on read, the storage
                    // version's decoding and defaults, conversion and the read version's
                    // pruning).
                    report.stored = JsonText::from_value(&p.object);
                    report.served_as = crate::versions::conversion::served_from_storage_with(
                        self,
                        &p.version,
                        p.object,
                        &p.pruned_paths,
                        &mut |name, object| {
                            let scale = self
                                .compiled
                                .iter()
                                .find(|v| v.name == name)
                                .and_then(|v| v.scale.as_ref());
                            if let Some(scale) = scale {
                                read_scales.push((
                                    name.to_owned(),
                                    crate::printing::scale::scale_of(object, scale, name),
                                ));
                            }
                        },
                    );
                    report.stored_version = p.version;
                    report.stored_pruned_paths = p.pruned_paths;
                }
                Err(e) => report.stored_note = Some(e),
            }
        }
        if let Some((status, own_scale)) = status_and_scale {
            report.subresources =
                Some(self.subresource_report(version, status, own_scale, &read_scales));
        }
        // --- end conversion ---
        report.places = crate::report::places::place_object(root, &report);
        (report, findings)
    }
}

/// Duplicate keys are strict-decoding problems: an error under `Strict`, a warning (the
/// server's warning text) under `Warn`, nothing under `Ignore`.
fn apply_field_validation(f: &Finding, mode: FieldValidation) -> Option<Finding> {
    if f.code != "yaml.duplicate-key" {
        return Some(f.clone());
    }
    match mode {
        FieldValidation::Strict => Some(f.clone()),
        FieldValidation::Warn => {
            let mut w = f.clone();
            w.severity = Severity::Warning;
            Some(w)
        }
        FieldValidation::Ignore => None,
    }
}

// ---------------------------------------------------------------------------------------
// Printer columns (`kubectl get`): see `crate::printing::table`.

impl TableColumnReport {
    /// The column as the server's table defines it.
    pub fn definition(&self) -> crate::printing::table::ColumnDefinition {
        crate::printing::table::ColumnDefinition {
            name: self.name.clone(),
            type_: self.type_.clone(),
            format: self.format.clone(),
            description: self.description.clone(),
            priority: self.priority,
        }
    }
}

/// The span of `spec.versions[i].additionalPrinterColumns[j].jsonPath`'s value in the CRD
/// text (the nearest existing parent when it is missing).
fn column_json_path_span(
    root: &Node,
    version: usize,
    column: usize,
) -> crate::documents::position::Span {
    let value = root
        .get("spec")
        .and_then(|s| s.get("versions"))
        .and_then(|v| v.as_seq()?.get(version))
        .and_then(|v| v.get("additionalPrinterColumns"))
        .and_then(|c| c.as_seq()?.get(column))
        .and_then(|c| c.entry("jsonPath"))
        .map(|e| e.value.span);
    value.unwrap_or_else(|| {
        locate(
            root,
            &FieldPath::parse(&format!(
                "spec.versions[{version}].additionalPrinterColumns[{column}].jsonPath"
            )),
        )
        .span
    })
}

/// Each compiled version's table convertor; fills [`VersionReport::columns`] and adds a
/// warning for every column that cannot work ([`crate::printing::table::column_findings`]).
fn table_columns(
    crd: Option<&InternalCrd>,
    compiled: &[CompiledVersion],
    parsed: &ParsedText,
    versions: &mut [VersionReport],
    findings: &mut Vec<Finding>,
) -> Vec<crate::printing::table::Convertor> {
    let Some(crd) = crd else {
        return Vec::new();
    };
    let root = parsed.values().next();
    let mut tables = Vec::new();
    for (i, v) in compiled.iter().enumerate() {
        let declared = crd
            .spec
            .versions
            .iter()
            .find(|x| x.name == v.name)
            .is_some_and(|x| !x.additional_printer_columns.is_empty())
            || !crd.spec.additional_printer_columns.is_empty();
        let crd_columns = crate::printing::table::crd_columns_for_version(crd, &v.name);
        let (convertor, _) = crate::printing::table::Convertor::new(&crd_columns);
        let span_of = |j: usize| root.map(|(doc, r)| (doc.index, column_json_path_span(r, i, j)));
        if let Some(report) = versions.iter_mut().find(|r| r.name == v.name) {
            report.columns = convertor
                .headers()
                .iter()
                .enumerate()
                .map(|(k, h)| {
                    let declared_column = k.checked_sub(1).filter(|_| declared);
                    let span = declared_column.and_then(span_of).map(|(_, s)| s);
                    TableColumnReport {
                        name: h.name.clone(),
                        type_: h.type_.clone(),
                        format: h.format.clone(),
                        description: h.description.clone(),
                        priority: h.priority,
                        json_path: k
                            .checked_sub(1)
                            .and_then(|j| crd_columns.get(j))
                            .map_or(".metadata.name".to_owned(), |c| c.json_path.clone()),
                        implicit: declared_column.is_none(),
                        line: span.map(|s| s.start.line),
                        column: span.map(|s| s.start.column),
                    }
                })
                .collect();
        }
        if declared {
            for problem in
                crate::printing::table::column_findings(&crd_columns, v.structural.as_deref())
            {
                let mut f = Finding::warning("crd.printer-column", problem.message);
                f.field = Some(format!(
                    "spec.versions[{i}].additionalPrinterColumns[{}].jsonPath",
                    problem.index
                ));
                if let Some((document, span)) = span_of(problem.index) {
                    f = f.at(Location {
                        source: SourceId::Crd,
                        document,
                        span,
                    });
                }
                findings.push(f);
            }
        }
        tables.push(convertor);
    }
    tables
}

impl CompiledCrd {
    /// The `kubectl get` row of an object as stored, in its version's table.
    fn table_row(&self, version: &str, stored: &serde_json::Value) -> TableRow {
        let Some(convertor) = self
            .compiled
            .iter()
            .position(|v| v.name == version)
            .and_then(|i| self.tables.get(i))
        else {
            return TableRow::default();
        };
        let now = self.options.now;
        match convertor.convert_to_table(stored, false, now) {
            Ok(table) => TableRow {
                version: version.to_owned(),
                columns: convertor.headers().iter().map(|h| h.name.clone()).collect(),
                cells: table
                    .rows
                    .first()
                    .map(|r| {
                        r.iter()
                            .map(crate::printing::table::Cell::to_wire)
                            .collect()
                    })
                    .unwrap_or_default(),
            },
            Err(_) => TableRow::default(),
        }
    }

    /// The table convertor of a version, when the version exists.
    pub fn table_convertor(&self, version: &str) -> Option<&crate::printing::table::Convertor> {
        self.compiled
            .iter()
            .position(|v| v.name == version)
            .and_then(|i| self.tables.get(i))
    }
}

// ------------------------------------------------------------------------------------------
// Subresources, field selectors, versions, authored conversion (`crate::printing::scale`,
// `crate::printing::field_selector`, `crate::versions`, `crate::versions::authored_conversion`)
// ------------------------------------------------------------------------------------------

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
    fn quiet_notes(
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
    fn subresource_report(
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The scale subresource's errors name the whole JSON path as one field
    /// (`field.NewPath(scale.SpecReplicasPath)`, apiextensions-apiserver
    /// `pkg/registry/customresource/validator.go`); the finding keeps that path and points at
    /// the field it names, or its nearest existing parent.
    #[test]
    fn scale_errors_point_at_the_replicas_field() {
        let crd = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
";
        let object = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  replicas: \"3\"\nstatus: 4\n";
        let c = CompiledCrd::compile(crd, &Options::default());
        let a = c.analyze_objects(&[object.to_owned()], None);
        let at: Vec<(String, usize, usize)> = a
            .findings
            .iter()
            .filter(|f| f.code == "object.invalid")
            .map(|f| {
                let start = f.location.map(|l| l.span.start).unwrap_or_default();
                (f.message.clone(), start.line, start.column)
            })
            .collect();
        assert_eq!(
            at,
            [
                (
                    ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: 3 is of the type string, expected int64".to_owned(),
                    5,
                    3
                ),
                (
                    ".status.replicas: Invalid value: 0: .status.replicas accessor error: 4 is of the type int64, expected map[string]interface{}".to_owned(),
                    6,
                    1
                ),
            ]
        );
    }

    /// Progress is told after each object document, with the documents known so far (a text
    /// not read yet counts as one).
    #[test]
    fn progress_is_told_after_each_object_document() {
        let crd = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
";
        let doc = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n";
        let texts = [format!("{doc}---\n{doc}---\n{doc}"), doc.to_owned()];
        let c = CompiledCrd::compile(crd, &Options::default());
        let mut told = Vec::new();
        let a =
            c.analyze_objects_with_progress(&texts, None, &mut |p| told.push((p.done, p.total)));
        assert_eq!(told, [(1, 4), (2, 4), (3, 4), (4, 4)]);
        assert_eq!(a, c.analyze_objects(&texts, None));
    }
}
