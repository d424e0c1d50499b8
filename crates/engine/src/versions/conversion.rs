//! Conversion of custom objects between the versions of a CRD, as apiextensions-apiserver's
//! `pkg/apiserver/conversion` does it.
//!
//! # What the server does
//!
//! Every conversion goes through `crConverter.ConvertToVersion` ([`check_versions`]): the
//! target kind (`KindForGroupVersionKinds`: the object's group must be the target's), the
//! target and source versions (every version of the CRD counts, served or not) and, for a
//! list, each item's version. Then the CRD's strategy converts:
//!
//! * `None` (`nopConverter`, [`nop_convert`]): only `apiVersion` (and `kind`) are rewritten,
//!   on the list and on every item.
//! * `Webhook` (`webhookConverter`, [`webhook`]): the objects not already in the desired
//!   version are POSTed in a `ConversionReview` ([`webhook::ReviewRequest`]); the response is
//!   decoded and checked ([`webhook::check_response`]), and each converted object gets its
//!   original metadata back except labels and annotations ([`webhook::restore_object_meta`]).
//!
//! The converter is wrapped in `schemaCoercingConverter`: the converted object then goes
//! through the target version's decoding step (`unstructuredSchemaCoercer.apply`: ObjectMeta
//! round trip, pruning by the target version's schema, null pruning). The server does not
//! default or validate a converted object; [`ConvertedObject::target_errors`] is a studio
//! note: the errors the object would meet if it were written back in the target version.
//!
//! # Entry points
//!
//! * [`convert`]: the None strategy on a [`CompiledCrd`](crate::report::analysis::CompiledCrd): the converted object and what the
//!   target version's schema drops.
//! * [`conversion_review`]: for the Webhook strategy, the request the server sends (a
//!   [`WebhookCall`]: the inputs, what was sent, the [`webhook::ReviewRequest`]). The engine
//!   has no randomness: the caller gives the request uid.
//! * [`check_conversion_response`]: the server's verdict on a webhook's response text
//!   ([`ResponseCheck`]: the server's error, located in the response text, and the objects the
//!   server ends up with).
//! * [`served_as`]: how each served version returns a stored object (the storage round trip).
//!
//! The serde types here ([`WebhookCall`], [`webhook::ReviewRequest`], [`ResponseCheck`],
//! [`ConversionIssue`], [`ConvertedObject`]) are a stable contract for other parts of the
//! studio (authored conversions build responses with
//! [`webhook::ReviewRequest::success_response`] and check them with
//! [`check_conversion_response`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

use super::report::{FieldErrorReport, ServedObject};
use crate::documents::document::{self, Node};
use crate::documents::finding::SourceId;
use crate::documents::json_text::JsonText;
use crate::documents::path::{locate, FieldPath};
use crate::documents::position::Span;
use crate::object::objectmeta::{self, SchemaCoercer};
use crate::pipeline::{self, CompiledVersion, CrdFacts, UnknownFields};

pub mod webhook;

pub use webhook::ReviewRequest;

// ------------------------------------------------------------------------------------------
// Group, version, kind
// ------------------------------------------------------------------------------------------

/// `schema.GroupVersion`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GroupVersion {
    /// The API group (empty for the core group).
    pub group: String,
    /// The version.
    pub version: String,
}

impl GroupVersion {
    /// A group and version.
    pub fn new(group: &str, version: &str) -> GroupVersion {
        GroupVersion {
            group: group.to_owned(),
            version: version.to_owned(),
        }
    }

    /// `schema.ParseGroupVersion`: `group/version`, `version`, or the server's error text.
    pub fn parse(text: &str) -> Result<GroupVersion, String> {
        objectmeta::parse_group_version(text)
            .map(|(group, version)| GroupVersion { group, version })
    }

    /// `String()`: `group/version`, or just `version` for the core group.
    pub fn text(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// `schema.GroupVersionKind`, as an unstructured object reports its own.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Gvk {
    /// Group and version.
    pub group_version: GroupVersion,
    /// Kind.
    pub kind: String,
}

impl Gvk {
    /// `Unstructured.GroupVersionKind()`: from `apiVersion` and `kind` (strings, else empty);
    /// all empty when `apiVersion` does not parse.
    pub fn of(obj: &Json) -> Gvk {
        match GroupVersion::parse(nested_str(obj, &["apiVersion"])) {
            Ok(group_version) => Gvk {
                group_version,
                kind: nested_str(obj, &["kind"]).to_owned(),
            },
            Err(_) => Gvk::default(),
        }
    }

    /// `String()`: `group/version, Kind=kind` (how the server prints it in its errors).
    pub fn text(&self) -> String {
        format!(
            "{}/{}, Kind={}",
            self.group_version.group, self.group_version.version, self.kind
        )
    }
}

/// `unstructured`'s `getNestedString`: the string at `path`, or `""`.
pub(crate) fn nested_str<'a>(obj: &'a Json, path: &[&str]) -> &'a str {
    let mut v = obj;
    for key in path {
        match v.get(key) {
            Some(next) => v = next,
            None => return "",
        }
    }
    v.as_str().unwrap_or("")
}

/// `SetGroupVersionKind`: sets `apiVersion` and `kind` (both, even when empty).
fn set_gvk(obj: &mut Json, gv: &GroupVersion, kind: &str) {
    if !obj.is_object() {
        *obj = Json::Object(Map::new());
    }
    if let Json::Object(m) = obj {
        m.insert("apiVersion".to_owned(), Json::String(gv.text()));
        m.insert("kind".to_owned(), Json::String(kind.to_owned()));
    }
}

/// The items of an `UnstructuredList` in its JSON form (`items`), mutable.
fn list_items_mut(list: &mut Json) -> Vec<&mut Json> {
    match list.get_mut("items") {
        Some(Json::Array(items)) => items.iter_mut().collect(),
        _ => Vec::new(),
    }
}

/// The items of an `UnstructuredList` in its JSON form.
pub(crate) fn list_items(list: &Json) -> &[Json] {
    match list.get("items") {
        Some(Json::Array(items)) => items,
        _ => &[],
    }
}

// ------------------------------------------------------------------------------------------
// crConverter and the None strategy
// ------------------------------------------------------------------------------------------

/// The conversion strategy of a CRD (`spec.conversion.strategy`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "strategy")]
pub enum Strategy {
    /// `None`: only `apiVersion` changes.
    #[default]
    None,
    /// `Webhook`: the server calls the conversion webhook.
    Webhook {
        /// `conversionReviewVersions`, in the CRD's order.
        conversion_review_versions: Vec<String>,
    },
    /// Any other value: the server builds no converter for the CRD.
    Unknown {
        /// The strategy as written.
        name: String,
    },
}

impl Strategy {
    /// The strategy of a CRD as the server holds it.
    pub fn of(crd: &crate::crd::apiext::InternalCrd) -> Strategy {
        match &crd.spec.conversion {
            None => Strategy::None,
            Some(c) => match c.strategy.as_str() {
                "None" => Strategy::None,
                "Webhook" => Strategy::Webhook {
                    conversion_review_versions: c.conversion_review_versions.clone(),
                },
                other => Strategy::Unknown {
                    name: other.to_owned(),
                },
            },
        }
    }
}

/// `crConverter.ConvertToVersion`'s checks before the strategy runs: the target kind
/// (`KindForGroupVersionKinds` with one target), the target version, the source version and,
/// for a list, every item's version. `valid` holds every version of the CRD. Returns the
/// target group and version, or the server's error.
pub fn check_versions(
    valid: &[GroupVersion],
    obj: &Json,
    list: bool,
    target: &GroupVersion,
) -> Result<GroupVersion, String> {
    let from = Gvk::of(obj);
    if from.group_version.group != target.group {
        return Err(format!(
            "{} is unstructured and is not suitable for converting to {}",
            from.text(),
            crd_studio_gostd::strconv::quote(&target.text())
        ));
    }
    let to = target.clone();
    if !valid.contains(&to) {
        return Err(format!(
            "request to convert CR to an invalid group/version: {}",
            to.text()
        ));
    }
    if !valid.contains(&from.group_version) {
        return Err(format!(
            "request to convert CR from an invalid group/version: {}",
            from.group_version.text()
        ));
    }
    if list {
        for (i, item) in list_items(obj).iter().enumerate() {
            let gv = Gvk::of(item).group_version;
            if !valid.contains(&gv) {
                return Err(format!(
                    "request to convert CR list failed, list index {i} has invalid group/version: {}",
                    gv.text()
                ));
            }
        }
    }
    Ok(to)
}

/// `nopConverter.Convert`: every list item, then the object (or list) itself, gets the
/// target group and version with the kind it had.
pub fn nop_convert(obj: &mut Json, list: bool, to: &GroupVersion) {
    if list {
        for item in list_items_mut(obj) {
            let kind = Gvk::of(item).kind;
            set_gvk(item, to, &kind);
        }
    }
    let kind = Gvk::of(obj).kind;
    set_gvk(obj, to, &kind);
}

/// The None strategy as the server runs it (`safeConverterWrapper` → `crConverter` →
/// `nopConverter`) on a copy of `obj` (an object, or with `list` an `UnstructuredList` in its
/// JSON form: `items` holds the items).
pub fn convert_none(
    valid: &[GroupVersion],
    obj: &Json,
    list: bool,
    target: &GroupVersion,
) -> Result<Json, String> {
    let to = check_versions(valid, obj, list, target)?;
    let mut out = obj.clone();
    nop_convert(&mut out, list, &to);
    Ok(out)
}

// ------------------------------------------------------------------------------------------
// Results
// ------------------------------------------------------------------------------------------

/// One problem with a conversion: a server error, in the server's words, and where it is.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ConversionIssue {
    /// The error text exactly as the server's converter returns it. For a studio note
    /// (`studio: true`) the studio's own words.
    pub message: String,
    /// Where the problem is in the webhook's response, as a field path from the response
    /// root (`response.convertedObjects[0].metadata.name`), when it is about the response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_path: Option<String>,
    /// The range of the response text it is about (the nearest existing parent of
    /// `response_path`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// Which input object (0-based, in [`WebhookCall::inputs`]) it is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<usize>,
    /// `true` when the text is the studio's, not the server's (e.g. a syntax error whose Go
    /// text the studio does not reproduce).
    pub studio: bool,
}

impl ConversionIssue {
    /// A server error with no location.
    pub fn server(message: impl Into<String>) -> ConversionIssue {
        ConversionIssue {
            message: message.into(),
            ..ConversionIssue::default()
        }
    }
}

/// An object after conversion: what the server ends up with in the target version.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ConvertedObject {
    /// Which input object (0-based).
    pub input: usize,
    /// Whether it was sent to the webhook (`false`: already in the desired version, or the
    /// None strategy).
    pub sent: bool,
    /// What the webhook returned for it, as decoded (webhook strategy).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub returned: Option<Json>,
    /// The object after conversion, metadata restoration and the target version's decoding
    /// step (pruning).
    pub object: Json,
    /// Fields the target version's schema drops, in the server's order.
    pub pruned_paths: Vec<String>,
    /// `metadata` fields the webhook changed that the server puts back (only `labels` and
    /// `annotations` may change), as `metadata.<field>` (studio note).
    pub discarded_metadata: Vec<String>,
    /// Studio note: the errors a write of this object in the target version would meet
    /// (the server does not validate converted objects when it reads them).
    pub target_errors: Vec<FieldErrorReport>,
    /// The error the target version's decoding step returns for the object, if any (server
    /// text: the conversion fails with it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_error: Option<String>,
}

/// One webhook conversion as the server would make it: what goes in, what is sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WebhookCall {
    /// The objects to convert, in order (one object, or the items of a list).
    pub inputs: Vec<Json>,
    /// Whether the server converts them as one `UnstructuredList` (several objects). The
    /// server's list conversion does not run the target version's decoding step on the list;
    /// the studio prunes each object as the server does when it reads it.
    pub list: bool,
    /// The target group and version.
    pub target: GroupVersion,
    /// `in.GetObjectKind().GroupVersionKind()` as the server prints it in its errors (the
    /// object's, or the list's `<group>/<desired>, Kind=<Kind>List`).
    pub subject: String,
    /// For each input, its index in the request's `objects`, or `None` when it is not sent
    /// (already in the desired version).
    pub sent: Vec<Option<usize>>,
    /// The request the server POSTs, or `None` when the webhook is not called (nothing to
    /// convert, or an object with only `apiVersion` and `kind`, converted as None does).
    pub request: Option<ReviewRequest>,
}

/// The server's verdict on a webhook's response.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResponseCheck {
    /// Whether the server accepts the response (no issue that is a server error).
    pub accepted: bool,
    /// Every problem, in the order the server checks; the server stops at the first and
    /// returns its message. Later ones are what it would say once the earlier ones are fixed
    /// (the studio goes on where it can: every object is checked).
    pub issues: Vec<ConversionIssue>,
    /// For each input (in order), the object the server ends up with; empty when the
    /// response is rejected (any issue fails the whole request: the server's converter
    /// returns the error and no object).
    pub objects: Vec<ConvertedObject>,
}

impl ResponseCheck {
    /// The error the server returns: the first issue that is the server's (a studio note
    /// comes first only when the studio cannot say the server's text).
    pub fn error(&self) -> Option<&ConversionIssue> {
        self.issues
            .iter()
            .find(|i| !i.studio)
            .or_else(|| self.issues.first())
    }
}

// ------------------------------------------------------------------------------------------
// On a compiled CRD
// ------------------------------------------------------------------------------------------

/// What this stage reads of a compiled CRD. [`crate::report::analysis::CompiledCrd`] implements
/// it: the report stage builds the compiled CRD from every stage, conversion among them, so
/// conversion sees it through this trait and stays ahead of the report stage.
pub trait CompiledCrdParts {
    /// The CRD as the server holds it internally, when the text held one.
    fn internal(&self) -> Option<&crate::crd::apiext::InternalCrd>;
    /// The compiled versions, in the CRD's order.
    fn compiled_versions(&self) -> &[CompiledVersion];
    /// The namespace of the request, given to namespaced objects that name none.
    fn request_namespace(&self) -> &str;
    /// Whether an object with `generateName` and no `name` gets its name before validation.
    fn generate_names(&self) -> bool;
    /// The Kubernetes server version whose rules apply.
    fn kubernetes_version(&self) -> crate::documents::kube_version::KubernetesVersion;
    /// Named time zones for CEL, when the caller gave them.
    fn time_zones(&self) -> Option<&crd_studio_cel::tz::TimeZoneDb>;
}

/// The versions of a CRD the converter accepts (`validVersions`: all of them).
pub fn valid_versions(crd: &dyn CompiledCrdParts) -> Vec<GroupVersion> {
    let Some(internal) = crd.internal() else {
        return Vec::new();
    };
    internal
        .spec
        .versions
        .iter()
        .map(|v| GroupVersion::new(&internal.spec.group, &v.name))
        .collect()
}

fn facts(crd: &dyn CompiledCrdParts) -> CrdFacts {
    crd.internal()
        .map(|c| CrdFacts {
            group: c.spec.group.clone(),
            kind: c.spec.names.kind.clone(),
            namespaced: c.spec.scope == "Namespaced",
            preserve_unknown_fields: c.spec.preserve_unknown_fields == Some(true),
            request_namespace: crd.request_namespace().to_owned(),
            generate_names: crd.generate_names(),
        })
        .unwrap_or_default()
}

fn target_of(crd: &dyn CompiledCrdParts, version: &str) -> GroupVersion {
    let group = crd
        .internal()
        .map(|c| c.spec.group.clone())
        .unwrap_or_default();
    GroupVersion::new(&group, version)
}

/// `schemaCoercingConverter`'s step after conversion: the target version's decoding step
/// (`unstructuredSchemaCoercer.apply` as for a request body, no defaulting).
fn coerce_converted(
    obj: &mut Json,
    facts: &CrdFacts,
    versions: &[CompiledVersion],
) -> Result<Vec<String>, String> {
    let coercer = SchemaCoercer {
        group: facts.group.clone(),
        kind: facts.kind.clone(),
        preserve_unknown_fields: facts.preserve_unknown_fields,
        drop_invalid_metadata: false,
        repair_generation: false,
        // The paths are only reported; what is dropped does not depend on it.
        return_unknown_field_paths: true,
    };
    let schema_of = |v: &str| {
        versions
            .iter()
            .find(|cv| cv.name == v)
            .and_then(|cv| cv.structural.as_deref())
    };
    coercer.apply(obj, &schema_of).map_err(|e| e.text())
}

/// Studio note: the errors the object meets when written in `version` (create).
fn target_errors(
    obj: &Json,
    facts: &CrdFacts,
    crd: &dyn CompiledCrdParts,
    version: &str,
) -> Vec<FieldErrorReport> {
    let versions = crd.compiled_versions();
    let Some(v) = versions.iter().find(|v| v.name == version) else {
        return Vec::new();
    };
    let out = pipeline::run(
        obj.clone(),
        None,
        facts,
        versions,
        v,
        UnknownFields::Ignore,
        crd.time_zones(),
    );
    let mut reports: Vec<FieldErrorReport> = Vec::new();
    if let Some(e) = &out.decode_error {
        reports.push(FieldErrorReport {
            error_type: crate::documents::finding::ErrorType::FieldValueInvalid,
            field: "<nil>".to_owned(),
            detail: e.clone(),
            error: e.clone(),
            line: None,
            column: None,
        });
    }
    reports.extend(
        out.errors()
            .map(|e| FieldErrorReport::from_field_error(e, None)),
    );
    reports
}

/// The None strategy on one object of a compiled CRD: convert `obj` to `version` as the
/// server does (the checks, `apiVersion` rewritten, then the target version's decoding
/// step). An error is the server's text, except for a Webhook CRD and an object the webhook
/// would have to convert (use [`conversion_review`]).
pub fn convert(
    crd: &dyn CompiledCrdParts,
    obj: &Json,
    version: &str,
) -> Result<ConvertedObject, String> {
    let Some(internal) = crd.internal() else {
        return Err("there is no readable CRD".to_owned());
    };
    let valid = valid_versions(crd);
    let target = target_of(crd, version);
    let facts = facts(crd);
    let mut out = match Strategy::of(internal) {
        Strategy::None => convert_none(&valid, obj, false, &target)?,
        Strategy::Webhook { .. } => {
            // The webhook is only called for objects in another version.
            let to = check_versions(&valid, obj, false, &target)?;
            if nested_str(obj, &["apiVersion"]) != to.text() && !webhook::is_empty_object(obj) {
                return Err(
                    "the CRD's conversion strategy is Webhook: the webhook converts this object (use conversion_review)"
                        .to_owned(),
                );
            }
            let mut o = obj.clone();
            if webhook::is_empty_object(obj) {
                nop_convert(&mut o, false, &to);
            }
            o
        }
        Strategy::Unknown { name } => {
            return Err(format!(
                "unknown conversion strategy {} for CRD {}",
                crd_studio_gostd::strconv::quote(&name),
                internal.metadata.name
            ))
        }
    };
    let mut converted = ConvertedObject {
        input: 0,
        object: Json::Null,
        ..ConvertedObject::default()
    };
    match coerce_converted(&mut out, &facts, crd.compiled_versions()) {
        Ok(paths) => converted.pruned_paths = paths,
        Err(e) => converted.decode_error = Some(e),
    }
    converted.target_errors = target_errors(&out, &facts, crd, version);
    converted.object = out;
    Ok(converted)
}

/// For the Webhook strategy: what the server sends to convert `objects` to `version`
/// (`uid` is the request uid; the server takes a random one, and `None` takes the engine's
/// deterministic [`webhook::request_uid`], the one the studio and the CLI use). One object is converted
/// alone; several as one list (`<Kind>List`), as when the server converts a list. An error
/// is the server's text (an invalid version, no supported review version).
pub fn conversion_review(
    crd: &dyn CompiledCrdParts,
    objects: &[Json],
    version: &str,
    uid: Option<&str>,
) -> Result<WebhookCall, String> {
    let Some(internal) = crd.internal() else {
        return Err("there is no readable CRD".to_owned());
    };
    let review_versions = match Strategy::of(internal) {
        Strategy::Webhook {
            conversion_review_versions,
        } => conversion_review_versions,
        Strategy::None => {
            return Err(
                "the CRD's conversion strategy is None: the server calls no webhook".to_owned(),
            )
        }
        Strategy::Unknown { name } => {
            return Err(format!(
                "unknown conversion strategy {} for CRD {}",
                crd_studio_gostd::strconv::quote(&name),
                internal.metadata.name
            ))
        }
    };
    let target = target_of(crd, version);
    webhook::prepare_call(
        &valid_versions(crd),
        &review_versions,
        &internal.spec.names.kind,
        objects,
        &target,
        uid,
    )
}

/// The server's verdict on `response_text` (JSON, or YAML, as the webhook's body) for
/// `call`: every check with the server's message, located in the response text, and the
/// objects the server ends up with (metadata restored, pruned by the target version's
/// schema), each with the studio's target-version errors.
pub fn check_conversion_response(
    crd: &dyn CompiledCrdParts,
    call: &WebhookCall,
    response_text: &str,
) -> ResponseCheck {
    let parsed = document::parse(response_text, SourceId::Object(0));
    let root: Option<&Node> = parsed.values().next().map(|(_, r)| r);
    let body = webhook::Body {
        text: response_text,
        root,
        syntax_errors: parsed
            .findings
            .iter()
            .filter(|f| f.severity == crate::documents::finding::Severity::Error)
            .map(|f| (f.message.clone(), f.location.map(|l| l.span)))
            .collect(),
    };
    let mut check = webhook::check_response(call, &body);
    let facts = facts(crd);
    for obj in &mut check.objects {
        match coerce_converted(&mut obj.object, &facts, crd.compiled_versions()) {
            Ok(paths) => obj.pruned_paths = paths,
            Err(e) => {
                check.issues.push(ConversionIssue {
                    message: e.clone(),
                    object: Some(obj.input),
                    ..ConversionIssue::default()
                });
                obj.decode_error = Some(e);
            }
        }
        obj.target_errors = target_errors(&obj.object, &facts, crd, &call.target.version);
    }
    check.accepted = check.issues.is_empty();
    // A rejected response fails the whole request: the server ends up with no object.
    if !check.accepted {
        check.objects.clear();
    }
    check
}

/// Locates a response path in the response's value tree.
pub(crate) fn locate_in(root: Option<&Node>, path: &str) -> Option<Span> {
    root.map(|r| locate(r, &FieldPath::parse(path)).span)
}

// ------------------------------------------------------------------------------------------
// The storage round trip
// ------------------------------------------------------------------------------------------

/// An object as the server writes it to etcd: converted to the storage version and pruned
/// by that version's schema (apiextensions-apiserver `pkg/apiserver/customresource_handler.go`:
/// the storage codec converts with `schemaCoercingConverter`, i.e. `crConverter` to the
/// storage version, then `unstructuredSchemaCoercer.apply`, which prunes with the storage
/// version's structural schema and coerces metadata).
#[derive(Clone, Debug, PartialEq)]
pub struct Persisted {
    /// The storage version.
    pub version: String,
    /// The object in the storage version.
    pub object: Json,
    /// Paths of the fields the storage version's schema drops on write. They are paths of
    /// the object converted to the storage version; the None strategy changes only
    /// `apiVersion`, so they are also paths of the request object.
    pub pruned_paths: Vec<String>,
}

/// The object the create/update strategy produced (`prepared`, in its request version) as
/// the server persists it ([`Persisted`]), or why the engine cannot tell: no readable CRD or
/// storage version, a conversion error, or a conversion the webhook would have to do.
pub fn to_storage(crd: &dyn CompiledCrdParts, prepared: &Json) -> Result<Persisted, String> {
    let Some(internal) = crd.internal() else {
        return Err("there is no readable CRD".to_owned());
    };
    let versions = crd.compiled_versions();
    let Some(storage) = versions.iter().find(|v| v.storage) else {
        return Err("the CRD has no storage version".to_owned());
    };
    let webhook = !matches!(Strategy::of(internal), Strategy::None);
    let valid = valid_versions(crd);
    let facts = facts(crd);
    let storage_gv = GroupVersion::new(&internal.spec.group, &storage.name);
    let from = Gvk::of(prepared).group_version;
    if webhook && from != storage_gv {
        return Err(format!(
            "converting it to the storage version {} needs the conversion webhook",
            storage.name
        ));
    }
    let mut object = convert_none(&valid, prepared, false, &storage_gv)?;
    let pruned_paths = coerce_converted(&mut object, &facts, versions)?;
    Ok(Persisted {
        version: storage.name.clone(),
        object,
        pruned_paths,
    })
}

/// How every served version returns an object stored from `stored` (the object the create
/// or update strategy produced, in its request version): the write converts it to the
/// storage version and prunes it by that version's schema; a read decodes it from storage
/// (the storage version's decoding step and defaults), converts it to the read version and
/// prunes it by that version's schema. Versions the server needs the conversion webhook for
/// are left out (their object depends on the webhook's answer: see [`conversion_review`]).
#[cfg(test)]
pub fn served_as(crd: &dyn CompiledCrdParts, stored: &Json) -> Vec<ServedObject> {
    match to_storage(crd, stored) {
        Ok(p) => served_from_storage(crd, &p.version, &p.object, &p.pruned_paths),
        Err(_) => Vec::new(),
    }
}

/// [`served_as`] from the object as persisted ([`to_storage`]'s result, which the caller
/// already has: the object is not converted and pruned a second time).
#[cfg(test)]
pub fn served_from_storage(
    crd: &dyn CompiledCrdParts,
    storage_version: &str,
    in_storage: &Json,
    storage_pruned: &[String],
) -> Vec<ServedObject> {
    served_from_storage_with(
        crd,
        storage_version,
        in_storage.clone(),
        storage_pruned,
        &mut |_, _| {},
    )
}

/// [`served_from_storage`], taking the stored object and handing each version's object to
/// `each` (version name, object) before it is kept as text: at most two copies of the object
/// are in memory at a time.
pub fn served_from_storage_with(
    crd: &dyn CompiledCrdParts,
    storage_version: &str,
    in_storage: Json,
    storage_pruned: &[String],
    each: &mut dyn FnMut(&str, &Json),
) -> Vec<ServedObject> {
    let Some(internal) = crd.internal() else {
        return Vec::new();
    };
    let versions = crd.compiled_versions();
    let webhook = !matches!(Strategy::of(internal), Strategy::None);
    let valid = valid_versions(crd);
    let facts = facts(crd);
    let group = &internal.spec.group;
    let storage_gv = GroupVersion::new(group, storage_version);
    // The read: decode from storage and default with the storage version's schema.
    let Ok(read) = pipeline::decode(in_storage.clone(), &facts, versions, true, false) else {
        return Vec::new();
    };
    let read = read.object;
    let defaulted_paths = pipeline::added_paths(&in_storage, &read);
    drop(in_storage);
    let mut out = Vec::new();
    for v in versions.iter().filter(|v| v.served) {
        let gv = GroupVersion::new(group, &v.name);
        if webhook && gv != storage_gv {
            continue;
        }
        let Ok(mut converted) = convert_none(&valid, &read, false, &gv) else {
            continue;
        };
        let Ok(read_pruned) = coerce_converted(&mut converted, &facts, versions) else {
            continue;
        };
        let mut pruned_paths = storage_pruned.to_vec();
        pruned_paths.extend(read_pruned);
        each(&v.name, &converted);
        out.push(ServedObject {
            version: v.name.clone(),
            defaulted_paths: defaulted_paths.clone(),
            object: JsonText::from_value(&converted),
            pruned_paths,
            pruned_on_write: storage_pruned.len(),
        });
    }
    out
}

/// A stored object read back through the (possibly changed) CRD ([`read_from_storage`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ReadBack {
    /// The object as the read returns it, in the read version.
    pub object: Json,
    /// Fields of the stored object the read drops: those the storage version's schema no
    /// longer has (the decoding step), then those the read version's schema drops after
    /// conversion. Paths of the stored object (the None strategy changes only `apiVersion`).
    pub pruned_paths: Vec<String>,
    /// Fields the storage version's defaults set on read.
    pub defaulted_paths: Vec<String>,
}

/// How a read in `read_version` returns an object that is in storage as `in_storage` (in the
/// version `storage_version`, written under this or an earlier revision of the CRD): the
/// storage codec decodes it with the schema of the version it is stored in (pruning and
/// defaulting), converts it to the read version and prunes it by that version's schema. Errors
/// when the stored version is no longer a version of the CRD, or the conversion needs the
/// webhook.
pub fn read_from_storage(
    crd: &dyn CompiledCrdParts,
    storage_version: &str,
    in_storage: &Json,
    read_version: &str,
) -> Result<ReadBack, String> {
    let Some(internal) = crd.internal() else {
        return Err("there is no readable CRD".to_owned());
    };
    let versions = crd.compiled_versions();
    if !versions.iter().any(|v| v.name == storage_version) {
        return Err(format!(
            "the object is stored in version {storage_version}, which the new revision no longer has: the server cannot read it"
        ));
    }
    let webhook = !matches!(Strategy::of(internal), Strategy::None);
    let group = &internal.spec.group;
    let gv = GroupVersion::new(group, read_version);
    if webhook && read_version != storage_version {
        return Err(format!(
            "reading it in version {read_version} needs the conversion webhook"
        ));
    }
    let valid = valid_versions(crd);
    let facts = facts(crd);
    let decoded = pipeline::decode(in_storage.clone(), &facts, versions, true, false)?;
    let (mut pruned_paths, read) = (decoded.unknown, decoded.object);
    let mut converted = convert_none(&valid, &read, false, &gv)?;
    pruned_paths.extend(coerce_converted(&mut converted, &facts, versions)?);
    Ok(ReadBack {
        defaulted_paths: pipeline::added_paths(in_storage, &read),
        object: converted,
        pruned_paths,
    })
}

#[cfg(test)]
mod tests;
