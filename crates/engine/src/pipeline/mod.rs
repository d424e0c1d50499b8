//! Stage 7, the per-object pipeline, in the server's order: the decoding step of the custom-resource
//! handler (`unstructuredSchemaCoercer.apply`: metadata, pruning, null pruning, embedded
//! metadata), defaulting, the handler's and the registry's metadata steps (the namespace the
//! kind's scope expects, a name generated from `generateName` on create, `BeforeUpdate`'s
//! system fields on update), the registry strategy's `PrepareForCreate`/`PrepareForUpdate`,
//! then on update `rest.ValidateUpdate`'s common ObjectMeta checks, and the strategy's
//! `Validate`/`ValidateUpdate` (type meta, root ObjectMeta, OpenAPI schema with ratcheting,
//! scale paths, embedded ObjectMeta, list types, then the `x-kubernetes-validations` rules, or
//! the CEL gate when an error blocks them).
//!
//! Everything here works on one CRD version, compiled once ([`CompiledVersion`]).
//!
//! Uses [`crate::documents`], [`crate::schema`], [`crate::object`], [`crate::crd`],
//! [`crate::cel`] and [`crate::printing`] (the `/scale` paths).

use std::rc::Rc;
use std::sync::Arc;

use serde_json::{Map, Value as Json};

use crate::cel::report::CelRuleResult;
use crate::cel::validator::{ValidateOptions, Validator, RUNTIME_CEL_COST_BUDGET};
use crate::crd::apiext::internal::Scale;
use crate::documents::field_error::{BadValue, FieldError};
use crate::documents::finding::ErrorType;
use crate::documents::json_text::JsonText;
use crate::documents::path::FieldPath;
use crate::object::objectmeta::validation as meta_validation;
use crate::object::objectmeta::{self, SchemaCoercer};
use crate::object::{defaulting, listtype};
use crate::schema::Structural;

mod lazy_validator;
pub use lazy_validator::LazyValidator;

/// One version of a CRD, compiled for object analysis.
#[derive(Clone, Debug)]
pub struct CompiledVersion {
    /// The version name.
    pub name: String,
    /// Whether it is served.
    pub served: bool,
    /// Whether it is the storage version.
    pub storage: bool,
    /// Whether it is deprecated.
    pub deprecated: bool,
    /// Its deprecation warning, when set.
    pub deprecation_warning: Option<String>,
    /// The structural form of its schema, when it has one (shared with the versions that
    /// have the same schema). The schema as written is the CRD's
    /// ([`crate::CompiledCrd::internal`]).
    pub structural: Option<Arc<Structural>>,
    /// The OpenAPI validator (built on first use).
    pub validator: LazyValidator,
    /// Whether any `x-kubernetes-validations` rule exists in the schema.
    pub has_rules: bool,
    /// Whether the schema sets a default anywhere ([`has_defaults`]), so that decoding knows,
    /// without walking the schema per object, whether defaulting can add a field.
    pub has_defaults: bool,
    /// The compiled rules (`cel.NewValidator(schema, true, PerCallLimit)`), when the schema
    /// has any (shared with the versions that have the same schema).
    pub cel: Option<Rc<Validator>>,
    /// Whether the status subresource is on.
    pub status: bool,
    /// The scale subresource, when on.
    pub scale: Option<Scale>,
}

/// The CRD-level facts the pipeline needs.
#[derive(Clone, Debug, Default)]
pub struct CrdFacts {
    /// `spec.group`.
    pub group: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// `spec.scope == Namespaced`.
    pub namespaced: bool,
    /// `spec.preserveUnknownFields`.
    pub preserve_unknown_fields: bool,
    /// The namespace of the request (`kubectl`'s current namespace), set on namespaced
    /// objects that name none.
    pub request_namespace: String,
    /// Whether the registry store's name generator runs on create
    /// ([`crate::Options::generate_names`]).
    pub generate_names: bool,
}

/// How the request treats unknown fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownFields {
    /// `fieldValidation=Strict`: the request fails.
    Fail,
    /// `fieldValidation=Warn`: warnings.
    Warn,
    /// `fieldValidation=Ignore`: silently pruned.
    Ignore,
}

/// What the pipeline produced for one object.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// A CEL rule named a time zone and no time-zone database was given.
    pub time_zones_needed: bool,
    /// The decoding step failed (the server answers 400 with this text); nothing else ran.
    pub decode_error: Option<String>,
    /// Paths of unknown fields the decoding step dropped, in the server's order.
    pub pruned_paths: Vec<String>,
    /// The object after the decoding step.
    pub pruned: JsonText,
    /// The object after defaulting.
    pub defaulted: JsonText,
    /// Paths of fields defaulting added.
    pub defaulted_paths: Vec<String>,
    /// The object after the strategy's preparation: what is validated and stored.
    pub stored: Json,
    /// The request's `status` after defaulting (what the status subresource may drop).
    pub request_status: Option<Json>,
    /// `pattern`s the schema validation could not evaluate on some value of this object
    /// (CRD Studio's regular-expression bounds): those values were not checked against them.
    pub unevaluated_patterns: Vec<String>,
    /// Schema, metadata, scale and list-type errors.
    pub schema_errors: Vec<FieldError>,
    /// CEL errors (including the "not checked" error when a blocking error exists).
    pub cel_errors: Vec<FieldError>,
    /// Whether CEL was skipped because of blocking errors.
    pub cel_skipped: bool,
    /// CEL failures on values unchanged from the old object, returned as warnings
    /// (ratcheting); their texts are in [`Outcome::warnings`] too.
    pub cel_warnings: Vec<FieldError>,
    /// The runtime cost the rules spent (`RuntimeCELCostBudget` minus the remaining budget).
    pub cel_runtime_cost: u64,
    /// Every rule evaluation, in the server's order (`version` set).
    pub cel_results: Vec<CelRuleResult>,
    /// Warnings returned with the response.
    pub warnings: Vec<String>,
    /// The name the registry store generated from `metadata.generateName` (create only):
    /// the prefix plus a deterministic stand-in for the server's random suffix.
    pub generated_name: Option<String>,
    /// The `metadata.namespace` the handler cleared because the kind is cluster-scoped.
    pub cleared_namespace: Option<String>,
    /// What the status subresource did to the request's `status`, when it changed anything.
    pub status_reset: Option<StatusReset>,
    /// Schema errors that ratcheting dropped on update (unchanged invalid values): the
    /// server accepts them without a word.
    pub ratcheted: Vec<FieldError>,
    /// Defaults that defaulting did not apply, where a person may wonder why.
    pub skipped_defaults: Vec<defaulting::SkippedDefault>,
}

/// What `PrepareForCreate`/`PrepareForUpdate` did to `status` because the version has the
/// status subresource (`customResourceStrategy` in apiextensions-apiserver
/// `pkg/registry/customresource/strategy.go`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusReset {
    /// A create carried a `status`: it was removed.
    DroppedOnCreate,
    /// An update carried a `status` different from the old object's (or none while the old
    /// object had one): the old object's status was kept (or none, when it had none).
    KeptOnUpdate {
        /// Whether the request has a `status` at all.
        in_request: bool,
    },
}

impl Outcome {
    /// Every error, schema errors first.
    pub fn errors(&self) -> impl Iterator<Item = &FieldError> {
        self.schema_errors.iter().chain(self.cel_errors.iter())
    }
}

/// What [`decode`] made of an object.
#[derive(Clone, Debug, Default)]
pub struct Decoded {
    /// The object after the decoding step and defaulting.
    pub object: Json,
    /// Paths of the unknown fields the decoding step dropped, in the server's order.
    pub unknown: Vec<String>,
    /// With `snapshot`: the object after the decoding step, before defaulting.
    pub pruned: Option<JsonText>,
    /// With `snapshot`: the paths of the fields defaulting added.
    pub defaulted_paths: Vec<String>,
}

/// The decoding step plus defaulting, as the server applies them to a request body (or,
/// with `from_storage`, to a stored object being read). Works on `obj` in place; with
/// `snapshot`, also keeps the object as pruned (as text) and what defaulting added, without
/// holding a second copy of the object past this call.
pub fn decode(
    mut obj: Json,
    crd: &CrdFacts,
    versions: &[CompiledVersion],
    from_storage: bool,
    snapshot: bool,
) -> Result<Decoded, String> {
    let coercer = SchemaCoercer {
        group: crd.group.clone(),
        kind: crd.kind.clone(),
        preserve_unknown_fields: crd.preserve_unknown_fields,
        drop_invalid_metadata: from_storage,
        repair_generation: from_storage,
        return_unknown_field_paths: true,
    };
    let schema_of = |v: &str| {
        versions
            .iter()
            .find(|cv| cv.name == v)
            .and_then(|cv| cv.structural.as_deref())
    };
    let unknown = coercer.apply(&mut obj, &schema_of).map_err(|e| e.text())?;
    let pruned = snapshot.then(|| JsonText::from_value(&obj));
    let mut defaulted_paths = Vec::new();
    if coercer.defaults_apply_to(&obj) {
        let version = obj
            .get("apiVersion")
            .and_then(Json::as_str)
            .and_then(|av| objectmeta::parse_group_version(av).ok())
            .map(|(_, v)| v)
            .unwrap_or_default();
        let schema = schema_of(&version);
        let defaults = versions
            .iter()
            .find(|cv| cv.name == version)
            .is_some_and(|cv| cv.has_defaults);
        if snapshot && defaults {
            let before = obj.clone();
            defaulting::default(&mut obj, schema);
            defaulted_paths = added_paths(&before, &obj);
        } else {
            defaulting::default(&mut obj, schema);
        }
    }
    Ok(Decoded {
        object: obj,
        unknown,
        pruned,
        defaulted_paths,
    })
}

/// Whether a schema sets a default anywhere (defaulting cannot add a field otherwise).
pub fn has_defaults(s: &Structural) -> bool {
    let mut stack = vec![s];
    while let Some(s) = stack.pop() {
        if s.generic.default.is_some() {
            return true;
        }
        stack.extend(s.properties.values().map(Box::as_ref));
        stack.extend(s.items.as_deref());
        stack.extend(
            s.additional_properties
                .as_ref()
                .and_then(|a| a.structural.as_deref()),
        );
    }
    false
}

/// Runs the create (or, with `old`, update) pipeline for one object of `version`.
pub fn run(
    obj: Json,
    old: Option<&Json>,
    crd: &CrdFacts,
    versions: &[CompiledVersion],
    version: &CompiledVersion,
    unknown_fields: UnknownFields,
    time_zones: Option<&crd_studio_cel::tz::TimeZoneDb>,
) -> Outcome {
    let mut out = Outcome::default();
    let kind = &crd.kind;
    let decoded = match decode(obj, crd, versions, false, true) {
        Ok(r) => r,
        Err(e) => {
            out.decode_error = Some(format!(
                "{kind} in version {:?} cannot be handled as a {kind}: {e}",
                version.name
            ));
            return out;
        }
    };
    let defaulted = decoded.object;
    let unknown = decoded.unknown;
    out.pruned_paths = unknown.clone();
    out.defaulted_paths = decoded.defaulted_paths;
    out.pruned = decoded.pruned.unwrap_or_default();
    out.defaulted = JsonText::from_value(&defaulted);
    out.request_status = defaulted.get("status").cloned();
    match unknown_fields {
        UnknownFields::Fail if !unknown.is_empty() => {
            let list: Vec<String> = unknown
                .iter()
                .map(|p| objectmeta::unknown_field_message(p))
                .collect();
            out.decode_error = Some(format!(
                "{kind} in version {:?} cannot be handled as a {kind}: strict decoding error: {}",
                version.name,
                list.join(", ")
            ));
            return out;
        }
        UnknownFields::Warn => out
            .warnings
            .extend(unknown.iter().map(|p| objectmeta::unknown_field_message(p))),
        _ => {}
    }

    // An old object is read from storage: decoded with the storage coercer. A stored object
    // always has its namespace (none when cluster-scoped) and a resourceVersion.
    let old = old.and_then(|o| {
        decode(o.clone(), crd, versions, true, false)
            .ok()
            .map(|d| d.object)
    });
    let mut old = old.map(|mut o| {
        ensure_namespace(&mut o, crd);
        set_meta_if_missing(&mut o, "resourceVersion", &Json::String("1".to_owned()));
        o
    });

    let mut stored = defaulted;
    // The handler (create.go/update.go) and BeforeCreate/BeforeUpdate:
    // EnsureObjectNamespaceMatchesRequestNamespace(ExpectedNamespaceForScope(..)).
    out.cleared_namespace = ensure_namespace(&mut stored, crd);
    // A stored object always has a uid and a creation timestamp (FillObjectMetaSystemFields
    // on create); when the old text gives none, it is taken to be the new object's (which
    // `kubectl apply`/`edit` copies from the live object).
    if let Some(o) = old.as_mut() {
        for field in ["uid", "creationTimestamp"] {
            if let Some(v) = stored.get("metadata").and_then(|m| m.get(field)) {
                set_meta_if_missing(o, field, v);
            }
        }
    }
    if version.status {
        let new_status = stored.get("status");
        out.status_reset = match &old {
            None => new_status.map(|_| StatusReset::DroppedOnCreate),
            Some(old) => (new_status != old.get("status")).then_some(StatusReset::KeptOnUpdate {
                in_request: new_status.is_some(),
            }),
        };
    }
    out.skipped_defaults =
        defaulting::skipped_defaults(&stored, version.structural.as_deref(), version.status);
    match &old {
        None => {
            // Store.create: the name is generated before BeforeCreate (which prepares and
            // validates the object).
            if crd.generate_names {
                out.generated_name = generate_missing_name(&mut stored);
            }
            prepare_for_create(&mut stored, version.status);
        }
        Some(old) => {
            // An update (`kubectl apply`/`edit`) carries the stored object's resourceVersion.
            if let Some(v) = old.get("metadata").and_then(|m| m.get("resourceVersion")) {
                set_meta_if_missing(&mut stored, "resourceVersion", v);
            }
            before_update(&mut stored, old, version.status);
        }
    }

    let s = version.structural.as_deref();
    // rest.ValidateUpdate runs validateCommonFields before the strategy's ValidateUpdate:
    // the create checks of ObjectMeta (names as path segments) and ValidateObjectMetaUpdate.
    // The strategy's CEL gate only sees the strategy's own errors.
    let common: Vec<FieldError> = match &old {
        Some(old) => meta_validation::validate_update_common_fields(&stored, old, crd.namespaced),
        None => Vec::new(),
    };
    let mut errs: Vec<FieldError> = Vec::new();
    // customResourceValidator.Validate / ValidateUpdate.
    let type_errs =
        meta_validation::validate_type_meta(&stored, &crd.group, &version.name, &crd.kind);
    if type_errs.is_empty() {
        match &old {
            None => errs.extend(meta_validation::validate_root_object_meta(
                &stored,
                crd.namespaced,
            )),
            Some(old) => errs.extend(meta_validation::validate_root_object_meta_update(
                &stored, old,
            )),
        }
        let validator = version.validator.get();
        let patterns_before = validator.unevaluated_patterns();
        match &old {
            None => errs.extend(validator.validate(&FieldPath::root(), &stored)),
            Some(old) => {
                let res =
                    validator.validate_update_detailed(&FieldPath::root(), &stored, old, true);
                errs.extend(res.errors);
                out.ratcheted = res.ratcheted;
            }
        }
        out.unevaluated_patterns = validator
            .unevaluated_patterns()
            .into_iter()
            .zip(patterns_before)
            .filter(|((_, after), (_, before))| after > before)
            .map(|((text, _), _)| text)
            .collect();
        // Validate and ValidateUpdate alike: ValidateScaleSpec, then ValidateScaleStatus.
        if let Some(scale) = &version.scale {
            errs.extend(validate_scale_spec(&stored, scale));
            errs.extend(validate_scale_status(&stored, scale));
        }
    } else {
        errs.extend(type_errs);
    }
    // The strategy's own checks.
    errs.extend(meta_validation::validate_embedded(
        &FieldPath::root(),
        &stored,
        s,
        false,
    ));
    let lists_ok_before = old
        .as_ref()
        .map(|o| {
            listtype::validate_list_sets_and_maps(&FieldPath::root(), s, o.as_object()).is_empty()
        })
        .unwrap_or(true);
    if lists_ok_before {
        errs.extend(listtype::validate_list_sets_and_maps(
            &FieldPath::root(),
            s,
            stored.as_object(),
        ));
    }
    // The x-kubernetes-validations rules, unless an error blocks them. The rules are
    // evaluated either way: the runtime cost is what they cost on this object.
    if let Some(cel) = &version.cel {
        let eval = cel.validate(
            &FieldPath::root(),
            &stored,
            old.as_ref(),
            RUNTIME_CEL_COST_BUDGET,
            ValidateOptions {
                ratcheting: old.is_some(),
                time_zones,
            },
        );
        out.time_zones_needed = eval.time_zones_needed;
        out.cel_runtime_cost =
            u64::try_from(RUNTIME_CEL_COST_BUDGET.saturating_sub(eval.remaining_budget))
                .unwrap_or(0);
        if errs.iter().any(is_blocking) {
            out.cel_skipped = true;
            out.cel_errors.push(FieldError::invalid(
                FieldPath::root(),
                BadValue::Null,
                "some validation rules were not checked because the object was invalid; \
                 correct the existing errors to complete validation",
            ));
            out.cel_results = cel.skipped(
                &FieldPath::root(),
                &stored,
                old.as_ref(),
                "the object has errors that block CEL validation",
            );
        } else {
            out.cel_errors = eval.errors;
            out.cel_results = eval.results;
            // The warning recorder keeps one of each text.
            for w in eval.warnings {
                if !out.warnings.contains(&w) {
                    out.warnings.push(w);
                }
            }
            out.cel_warnings = eval.ratcheted;
        }
        for r in &mut out.cel_results {
            r.version = version.name.clone();
        }
    }
    // rest.ValidateCreate: only when the strategy found nothing, the common ObjectMeta
    // checks with names as path segments.
    if old.is_none() && errs.is_empty() && out.cel_errors.is_empty() {
        errs.extend(meta_validation::validate_root_object_meta_with(
            &stored,
            crd.namespaced,
            meta_validation::NameRule::PathSegment,
        ));
    }
    out.schema_errors = common;
    out.schema_errors.extend(errs);

    // Warnings: finalizers the request adds.
    let new_meta = meta_validation::root_object_meta(&stored).ok();
    let old_meta = old
        .as_ref()
        .and_then(|o| meta_validation::root_object_meta(o).ok());
    if let Some(meta) = &new_meta {
        out.warnings
            .extend(meta_validation::finalizer_warnings(meta, old_meta.as_ref()));
    }
    out.stored = stored;
    out
}

/// `EnsureObjectNamespaceMatchesRequestNamespace(ExpectedNamespaceForScope(request
/// namespace, namespaced), meta)` (apiserver `pkg/registry/rest/meta.go`, run by the create
/// and update handlers and again by `BeforeCreate`/`BeforeUpdate`): a namespaced object
/// without a namespace takes the request's; a cluster-scoped object's namespace is cleared
/// (the request of a cluster-scoped kind has none; `kubectl` sends none). Returns the
/// namespace it cleared.
fn ensure_namespace(obj: &mut Json, crd: &CrdFacts) -> Option<String> {
    if crd.namespaced {
        fill_namespace(obj, &crd.request_namespace);
        return None;
    }
    let m = obj.get_mut("metadata").and_then(Json::as_object_mut)?;
    // Unstructured.SetNamespace("") removes the field.
    match m.remove("namespace") {
        Some(Json::String(ns)) if !ns.is_empty() => Some(ns),
        _ => None,
    }
}

/// `EnsureObjectNamespaceMatchesRequestNamespace` for an object without a namespace: it
/// takes the request's.
fn fill_namespace(obj: &mut Json, namespace: &str) {
    let Json::Object(map) = obj else { return };
    let meta = map
        .entry("metadata")
        .or_insert_with(|| Json::Object(Map::new()));
    if let Json::Object(m) = meta {
        let empty = m
            .get("namespace")
            .and_then(Json::as_str)
            .unwrap_or("")
            .is_empty();
        if empty && !namespace.is_empty() {
            m.insert("namespace".to_owned(), Json::String(namespace.to_owned()));
        }
    }
}

/// Sets `metadata.<field>` unless the object has it.
fn set_meta_if_missing(obj: &mut Json, field: &str, value: &Json) {
    let Json::Object(map) = obj else { return };
    let meta = map
        .entry("metadata")
        .or_insert_with(|| Json::Object(Map::new()));
    if let Json::Object(m) = meta {
        if !m.contains_key(field) {
            m.insert(field.to_owned(), value.clone());
        }
    }
}

/// `hasBlockingErr`: errors after which CEL rules are not evaluated.
fn is_blocking(e: &FieldError) -> bool {
    matches!(
        e.error_type,
        ErrorType::FieldValueNotSupported
            | ErrorType::FieldValueRequired
            | ErrorType::FieldValueTooLong
            | ErrorType::FieldValueTooMany
            | ErrorType::FieldValueTypeInvalid
    )
}

/// The alphabet of apimachinery's `utilrand.String` (`pkg/util/rand/rand.go`: no vowels).
const NAME_SUFFIX_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
/// `names.simpleNameGenerator` (apiserver `pkg/storage/names/generate.go`): `randomLength`.
const NAME_SUFFIX_LENGTH: usize = 5;
/// `MaxGeneratedNameLength` (`maxNameLength` 63 minus `randomLength`): longer prefixes are
/// cut to this many bytes.
const MAX_GENERATED_NAME_PREFIX: usize = 63 - NAME_SUFFIX_LENGTH;

/// `SimpleNameGenerator.GenerateName(base)` without randomness: the base cut to
/// [`MAX_GENERATED_NAME_PREFIX`] bytes, then [`NAME_SUFFIX_LENGTH`] characters of
/// [`NAME_SUFFIX_ALPHABET`] chosen by a hash of the cut base (FNV-1a, then a 64-bit mixer),
/// so the same prefix always gets the same name. Go cuts bytes even inside a UTF-8
/// character; here such a cut character becomes U+FFFD (both are invalid names anyway).
pub fn generate_name(base: &str) -> String {
    let bytes = base.as_bytes();
    let cut = bytes.get(..MAX_GENERATED_NAME_PREFIX).unwrap_or(bytes);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in cut {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // splitmix64's finalizer: every input bit moves every suffix character.
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    let mut name = String::from_utf8_lossy(cut).into_owned();
    let n = NAME_SUFFIX_ALPHABET.len() as u64;
    for _ in 0..NAME_SUFFIX_LENGTH {
        let i = usize::try_from(h % n).unwrap_or(0);
        h /= n;
        name.push(char::from(
            NAME_SUFFIX_ALPHABET.get(i).copied().unwrap_or(b'x'),
        ));
    }
    name
}

/// `Store.create`'s name step: `if len(GetGenerateName()) > 0 && len(GetName()) == 0 {
/// SetName(GenerateName(generateName)) }`. Returns the generated name.
fn generate_missing_name(obj: &mut Json) -> Option<String> {
    let m = obj.get_mut("metadata").and_then(Json::as_object_mut)?;
    let prefix = m.get("generateName").and_then(Json::as_str).unwrap_or("");
    let name = m.get("name").and_then(Json::as_str).unwrap_or("");
    if prefix.is_empty() || !name.is_empty() {
        return None;
    }
    let generated = generate_name(prefix);
    m.insert("name".to_owned(), Json::String(generated.clone()));
    Some(generated)
}

/// `rest.BeforeUpdate` (apiserver `pkg/registry/rest/update.go`) up to validation: the
/// generation is the old one (requests cannot set it), `PrepareForUpdate`, then the system
/// fields an update cannot change: the old `uid` when none is given, the old
/// `creationTimestamp` and `deletionTimestamp` when the old ones are set, the old
/// `deletionGracePeriodSeconds` when the new object has none.
fn before_update(obj: &mut Json, old: &Json, status: bool) {
    let old_meta = meta_validation::root_object_meta(old).ok();
    let new_meta = meta_validation::root_object_meta(obj).ok();
    let old_field = |f: &str| old.get("metadata").and_then(|m| m.get(f)).cloned();
    // objectMeta.SetGeneration(oldMeta.GetGeneration()), then PrepareForUpdate bumps it.
    prepare_for_update(obj, old, status);
    let (Some(old_meta), Some(new_meta)) = (old_meta, new_meta) else {
        return;
    };
    let mut set = |field: &str| {
        if let Some(v) = old_field(field) {
            set_meta(obj, field, v);
        }
    };
    if new_meta.uid.is_empty() {
        set("uid");
    }
    if !old_meta.creation_timestamp.is_zero() {
        set("creationTimestamp");
    }
    if old_meta.deletion_timestamp.is_some_and(|t| !t.is_zero()) {
        set("deletionTimestamp");
    }
    if old_meta.deletion_grace_period_seconds.is_some()
        && new_meta.deletion_grace_period_seconds.is_none()
    {
        set("deletionGracePeriodSeconds");
    }
}

/// Sets `metadata.<field>`.
fn set_meta(obj: &mut Json, field: &str, value: Json) {
    let Json::Object(map) = obj else { return };
    let meta = map
        .entry("metadata")
        .or_insert_with(|| Json::Object(Map::new()));
    if let Json::Object(m) = meta {
        m.insert(field.to_owned(), value);
    }
}

/// `PrepareForCreate`: `status` dropped when the status subresource is on; generation 1.
fn prepare_for_create(obj: &mut Json, status: bool) {
    let Json::Object(map) = obj else { return };
    if status {
        map.remove("status");
    }
    set_generation(map, 1);
}

/// `PrepareForUpdate`: `status` kept from the old object when the status subresource is on;
/// generation bumped when anything but metadata changed.
fn prepare_for_update(obj: &mut Json, old: &Json, status: bool) {
    let Json::Object(map) = obj else { return };
    let old_map = old.as_object();
    if status {
        match old_map.and_then(|o| o.get("status")) {
            Some(s) => {
                map.insert("status".to_owned(), s.clone());
            }
            None => {
                map.remove("status");
            }
        }
    }
    let strip = |m: &Map<String, Json>| {
        m.iter()
            .filter(|(k, _)| k.as_str() != "metadata")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<Map<String, Json>>()
    };
    let changed = old_map.map(|o| strip(o) != strip(map)).unwrap_or(true);
    let old_generation = old
        .get("metadata")
        .and_then(|m| m.get("generation"))
        .and_then(Json::as_i64)
        .unwrap_or(0);
    if changed {
        set_generation(map, old_generation + 1);
    } else {
        set_generation(map, old_generation);
    }
}

fn set_generation(map: &mut Map<String, Json>, generation: i64) {
    let meta = map
        .entry("metadata")
        .or_insert_with(|| Json::Object(Map::new()));
    if let Json::Object(m) = meta {
        if generation == 0 {
            m.remove("generation");
        } else {
            m.insert("generation".to_owned(), Json::from(generation));
        }
    }
}

/// The replicas checks of `ValidateScaleSpec` / `ValidateScaleStatus`
/// (`pkg/registry/customresource/validator.go`): `unstructured.NestedInt64` along the path
/// (leading `.` trimmed), its accessor error as the message with the zero value, then the
/// range checks. A missing field (or a `null` on the way) reads 0.
fn scale_replicas_errors(obj: &Json, path: &str) -> Vec<FieldError> {
    let field = FieldPath(vec![crate::documents::path::Segment::Field(
        path.to_owned(),
    )]);
    match crate::printing::scale::nested_int64(obj, path).map(|(n, _)| n) {
        Err(e) => vec![FieldError::invalid(field, BadValue::Int(0), e)],
        Ok(n) if n < 0 => vec![FieldError::invalid(
            field,
            BadValue::Int(n),
            "should be a non-negative integer",
        )],
        Ok(n) if n > i64::from(i32::MAX) => vec![FieldError::invalid(
            field,
            BadValue::Int(n),
            format!("should be less than or equal to {}", i32::MAX),
        )],
        Ok(_) => Vec::new(),
    }
}

/// `ValidateScaleSpec`.
fn validate_scale_spec(obj: &Json, scale: &Scale) -> Vec<FieldError> {
    scale_replicas_errors(obj, &scale.spec_replicas_path)
}

/// `ValidateScaleStatus`.
fn validate_scale_status(obj: &Json, scale: &Scale) -> Vec<FieldError> {
    let mut errs = scale_replicas_errors(obj, &scale.status_replicas_path);
    // `unstructured.NestedString`: a non-string value, or a step through a non-object, is
    // an accessor error (the zero value "" as the bad value).
    if let Some(selector) = &scale.label_selector_path {
        if let Err(e) = crate::printing::scale::nested_string(obj, selector) {
            errs.push(FieldError::invalid(
                FieldPath(vec![crate::documents::path::Segment::Field(
                    selector.clone(),
                )]),
                BadValue::Str(String::new()),
                e,
            ));
        }
    }
    errs
}

/// Paths (server style, `a.b[0].c`) of the fields present in `after` but not in `before`.
pub fn added_paths(before: &Json, after: &Json) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<(FieldPath, Option<&Json>, &Json)> =
        vec![(FieldPath::root(), Some(before), after)];
    while let Some((path, b, a)) = stack.pop() {
        match (b, a) {
            (None, _) => out.push(path.to_string()),
            (Some(Json::Object(bm)), Json::Object(am)) => {
                for (k, av) in am {
                    stack.push((path.child_name(k), bm.get(k), av));
                }
            }
            (Some(Json::Array(bl)), Json::Array(al)) => {
                for (i, av) in al.iter().enumerate() {
                    stack.push((path.index(i), bl.get(i), av));
                }
            }
            _ => {}
        }
    }
    crd_studio_gostd::sort::stable(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn added_paths_lists_new_fields() {
        let before = json!({"spec": {"a": 1, "l": [{"x": 1}]}});
        let after = json!({"spec": {"a": 1, "b": 2, "l": [{"x": 1, "y": 2}]}, "status": {}});
        assert_eq!(
            added_paths(&before, &after),
            vec!["spec.b", "spec.l[0].y", "status"]
        );
    }

    #[test]
    fn generation_and_status_on_create_and_update() {
        let mut obj = json!({"spec": {"a": 1}, "status": {"s": 1}});
        prepare_for_create(&mut obj, true);
        assert_eq!(
            obj,
            json!({"spec": {"a": 1}, "metadata": {"generation": 1}})
        );
        let old = json!({"spec": {"a": 1}, "status": {"s": 2}, "metadata": {"generation": 3}});
        let mut new = json!({"spec": {"a": 2}, "status": {"s": 9}, "metadata": {}});
        prepare_for_update(&mut new, &old, true);
        assert_eq!(
            new,
            json!({"spec": {"a": 2}, "status": {"s": 2}, "metadata": {"generation": 4}})
        );
    }

    /// A CRD whose spec has a plain rule, a transition rule and a rule with a fieldPath.
    const RULES_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
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
            required: [size]
            properties:
              size: {type: integer}
              mode: {type: string}
            x-kubernetes-validations:
            - rule: self.size <= 10
              message: too big
            - rule: self.mode == oldSelf.mode
              message: mode is immutable
              fieldPath: .mode
";

    fn analyze(obj: &str, old: Option<&str>) -> crate::report::analysis::Analysis {
        crate::analyze(&crate::report::analysis::Request {
            crd: RULES_CRD.to_owned(),
            objects: vec![obj.to_owned()],
            old_object: old.map(str::to_owned),
            old_crd: None,
            options: crate::report::analysis::Options::default(),
        })
    }

    const OBJ: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n";

    #[test]
    fn cel_rules_run_after_schema_validation() {
        let a = analyze(&format!("{OBJ}spec: {{size: 11, mode: a}}\n"), None);
        let o = a.objects.first().unwrap();
        assert!(!o.accepted);
        let errors: Vec<&str> = o.cel_errors.iter().map(|e| e.error.as_str()).collect();
        assert_eq!(errors, vec!["spec: Invalid value: too big"]);
        assert!(o.cel_runtime_cost > 0);
        // The transition rule is skipped on create.
        let outcomes: Vec<(&str, crate::report::analysis::CelOutcome)> = o
            .cel_results
            .iter()
            .map(|r| (r.rule.as_str(), r.outcome))
            .collect();
        assert_eq!(
            outcomes,
            vec![
                (
                    "properties[spec].x-kubernetes-validations[0]",
                    crate::report::analysis::CelOutcome::Failed
                ),
                (
                    "properties[spec].x-kubernetes-validations[1]",
                    crate::report::analysis::CelOutcome::Skipped
                ),
            ]
        );
        assert!(o
            .cel_results
            .iter()
            .all(|r| r.version == "v1" && r.path == "spec"));
        // The finding is located at the field.
        let f = a
            .findings
            .iter()
            .find(|f| f.message == "spec: Invalid value: too big")
            .unwrap();
        assert_eq!(f.location.unwrap().span.start.line, 4);
    }

    #[test]
    fn blocking_errors_gate_the_rules_but_not_their_cost() {
        let a = analyze(&format!("{OBJ}spec: {{mode: a}}\n"), None);
        let o = a.objects.first().unwrap();
        let errors: Vec<&str> = o.errors.iter().map(|e| e.error.as_str()).collect();
        assert_eq!(
            errors,
            vec![
                "spec.size: Required value",
                "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            ]
        );
        // The rules were evaluated for their cost (the first one errors on the missing
        // field) but are reported as skipped.
        assert!(o.cel_runtime_cost > 0);
        assert!(o
            .cel_results
            .iter()
            .all(|r| r.outcome == crate::report::analysis::CelOutcome::Skipped));
    }

    #[test]
    fn transition_rules_and_ratcheting_on_update() {
        let old = format!("{OBJ}spec: {{size: 20, mode: a}}\n");
        // The spec changed (its mode): no ratcheting for its rules; the transition rule
        // reports at its fieldPath.
        let a = analyze(&format!("{OBJ}spec: {{size: 20, mode: b}}\n"), Some(&old));
        let o = a.objects.first().unwrap();
        let errors: Vec<&str> = o.errors.iter().map(|e| e.error.as_str()).collect();
        assert_eq!(
            errors,
            vec![
                "spec: Invalid value: too big",
                "spec.mode: Invalid value: mode is immutable"
            ]
        );
        assert!(o.warnings.is_empty(), "{:?}", o.warnings);
        // With the spec unchanged, the failure is a warning.
        let a = analyze(&old, Some(&old));
        let o = a.objects.first().unwrap();
        assert!(o.accepted, "{:?}", o.errors);
        assert_eq!(o.warnings, vec!["spec: Invalid value: too big"]);
        assert!(a
            .findings
            .iter()
            .any(|f| f.message == "spec: Invalid value: too big"
                && f.severity == crate::documents::finding::Severity::Warning));
    }

    fn analyze_with(
        crd: &str,
        obj: &str,
        old: Option<&str>,
        options: crate::report::analysis::Options,
    ) -> crate::report::analysis::Analysis {
        crate::analyze(&crate::report::analysis::Request {
            crd: crd.to_owned(),
            objects: vec![obj.to_owned()],
            old_object: old.map(str::to_owned),
            old_crd: None,
            options,
        })
    }

    fn error_texts(o: &crate::report::analysis::ObjectReport) -> Vec<&str> {
        o.errors.iter().map(|e| e.error.as_str()).collect()
    }

    /// The `date-time` binding on the update path: apiserver `pkg/cel/common/valuesunstructured.go`
    /// `UnstructuredToVal` calls kube-openapi `strfmt.ParseDateTime`, whose five
    /// `dateTimeFormats` (`pkg/validation/strfmt/time.go`) end with `ISO8601LocalTime`. On
    /// update an unchanged value's format error is ratcheted (`validation.WithRatcheting`), so
    /// a rule on its changed parent reaches the binding with a value `IsDateTime` rejects.
    #[test]
    fn date_time_binding_on_update() {
        let crd = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
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
              t: {type: string, format: date-time}
              n: {type: integer}
            x-kubernetes-validations:
            - rule: self.t > timestamp('2000-01-01T00:00:00Z')
";
        let cases: Vec<(&str, &str)> = vec![
            (
                "2021-02-03 10:00:00",
                r#"parsing time "2021-02-03 10:00:00" as "2006-01-02T15:04:05": cannot parse " 10:00:00" as "T""#,
            ),
            (
                "2021-02-03T10:00Z",
                r#"parsing time "2021-02-03T10:00Z" as "2006-01-02T15:04:05": cannot parse "Z" as ":""#,
            ),
            (
                "2021-02-03T10:00:00+0100",
                r#"parsing time "2021-02-03T10:00:00+0100": extra text: "+0100""#,
            ),
        ];
        for (t, want) in cases {
            let old = format!("{OBJ}spec: {{t: '{t}', n: 1}}\n");
            let new = format!("{OBJ}spec: {{t: '{t}', n: 2}}\n");
            let a = analyze_with(
                crd,
                &new,
                Some(&old),
                crate::report::analysis::Options::default(),
            );
            let o = a.objects.first().unwrap();
            let errors = error_texts(o);
            assert_eq!(errors.len(), 1, "{t}: {errors:?}");
            let e = errors.first().copied().unwrap_or("");
            assert!(e.starts_with("spec: Invalid value: "), "{t}: {e}");
            assert!(
                e.contains(&format!("Invalid date-time formatted string {t}: {want}")),
                "{t}: {e}"
            );
        }
    }

    /// apiextensions-apiserver `pkg/registry/customresource/validator.go`:
    /// `customResourceValidator.ValidateUpdate` runs `ValidateScaleSpec` and
    /// `ValidateScaleStatus` after `ValidateCustomResourceUpdate`, as `Validate` does on
    /// create (strategy.go `ValidateUpdate` calls it with `a.scale`).
    #[test]
    fn scale_checks_on_update() {
        let crd = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-preserve-unknown-fields: true
";
        let old = format!("{OBJ}spec: {{replicas: 1}}\n");
        let cases: Vec<(&str, Vec<&str>)> = vec![
            ("replicas: 2", vec![]),
            (
                "replicas: -1",
                vec![".spec.replicas: Invalid value: -1: should be a non-negative integer"],
            ),
            (
                "replicas: 'x'",
                vec![".spec.replicas: Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected int64"],
            ),
            (
                "replicas: 1.5",
                vec![".spec.replicas: Invalid value: 0: .spec.replicas accessor error: 1.5 is of the type float64, expected int64"],
            ),
            (
                "replicas: 2147483648",
                vec![".spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647"],
            ),
        ];
        for (spec, want) in cases {
            let new = format!("{OBJ}spec: {{{spec}}}\n");
            for old in [None, Some(old.as_str())] {
                let a = analyze_with(crd, &new, old, crate::report::analysis::Options::default());
                let o = a.objects.first().unwrap();
                assert_eq!(error_texts(o), want, "{spec} (update: {})", old.is_some());
            }
        }
    }

    /// apiserver `pkg/storage/names/generate.go` `simpleNameGenerator.GenerateName`: the
    /// base cut to `MaxGeneratedNameLength` (63 - 5) bytes, then `utilrand.String(5)`, whose
    /// alphabet is `alphanums` of apimachinery `pkg/util/rand/rand.go`.
    #[test]
    fn generated_names_have_the_servers_shape() {
        let in_alphabet = |s: &str| s.bytes().all(|b| NAME_SUFFIX_ALPHABET.contains(&b));
        let cases: [(&str, usize, &str); 4] = [
            // (base, expected length, expected prefix)
            ("w-", 7, "w-"),
            ("x", 6, "x"),
            (&"a".repeat(58), 63, &"a".repeat(58)),
            (&"b".repeat(70), 63, &"b".repeat(58)),
        ];
        for (base, len, prefix) in cases {
            let name = generate_name(base);
            assert_eq!(name.len(), len, "{name}");
            assert!(name.starts_with(prefix), "{name}");
            assert!(in_alphabet(&name[prefix.len()..]), "{name}");
            // No randomness: the same prefix gets the same name.
            assert_eq!(generate_name(base), name);
        }
        assert_ne!(generate_name("w-"), generate_name("v-"));
        // Go cuts bytes; a character cut in two is U+FFFD here.
        let name = generate_name(&format!("{}é", "a".repeat(57)));
        assert!(
            name.starts_with(&format!("{}\u{fffd}", "a".repeat(57))),
            "{name}"
        );
    }

    /// registry `Store.create` sets the generated name before `rest.BeforeCreate`
    /// (`PrepareForCreate`, then the strategy's `Validate`): the name is validated, stored
    /// and listed; the CEL rules are no longer gated by "name or generateName is required".
    #[test]
    fn generate_name_names_the_object_before_validation() {
        let obj = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {generateName: w-}\nspec: {size: 11, mode: a}\n";
        let a = analyze(obj, None);
        let o = a.objects.first().unwrap();
        let name = generate_name("w-");
        assert_eq!(error_texts(o), vec!["spec: Invalid value: too big"]);
        assert_eq!(o.name, name);
        assert_eq!(
            o.stored.to_value()["metadata"]["name"],
            Json::String(name.clone())
        );
        assert_eq!(o.table.cells.first(), Some(&Json::String(name.clone())));
        let note = a
            .findings
            .iter()
            .find(|f| f.code == "studio.generated-name")
            .unwrap();
        assert_eq!(note.severity, crate::documents::finding::Severity::Info);
        assert!(
            note.message.contains(&format!("{name:?}")),
            "{}",
            note.message
        );
        assert_eq!(note.location.unwrap().span.start.line, 3);

        // A name given beside generateName is kept: no note.
        let named = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: given, generateName: w-}\nspec: {size: 1}\n";
        let a = analyze(named, None);
        assert!(
            a.objects.first().unwrap().accepted,
            "{:?} {:?}",
            a.objects.first().unwrap().decode_error,
            a.findings
        );
        assert_eq!(
            a.objects.first().unwrap().stored.to_value()["metadata"]["name"],
            "given"
        );
        assert!(!a.findings.iter().any(|f| f.code == "studio.generated-name"));

        // ValidateObjectMetaAccessor checks the prefix (its trailing dash masked as
        // maskTrailingDash does) and the generated name.
        let bad = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {generateName: Wx-}\nspec: {size: 1}\n";
        let a = analyze(bad, None);
        let o = a.objects.first().unwrap();
        let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
        assert_eq!(
            error_texts(o),
            vec![
                format!("metadata.generateName: Invalid value: \"Wx-\": {subdomain}"),
                format!(
                    "metadata.name: Invalid value: \"{}\": {subdomain}",
                    generate_name("Wx-")
                ),
            ]
        );

        // Without the store (the corpus oracle): the strategy meets no name.
        let options = crate::report::analysis::Options {
            generate_names: false,
            ..crate::report::analysis::Options::default()
        };
        let a = analyze_with(RULES_CRD, obj, None, options);
        let o = a.objects.first().unwrap();
        assert_eq!(
            error_texts(o),
            vec![
                "metadata.name: Required value: name or generateName is required",
                "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            ]
        );
        assert!(!a.findings.iter().any(|f| f.code == "studio.generated-name"));
    }

    /// The create and update handlers (apiserver `pkg/endpoints/handlers/create.go`,
    /// `update.go`) and `rest.BeforeCreate`/`BeforeUpdate` call
    /// `EnsureObjectNamespaceMatchesRequestNamespace` with `ExpectedNamespaceForScope(ns,
    /// false) == ""` for a cluster-scoped kind: the object's namespace is cleared, not
    /// refused, before `ValidateObjectMeta` could say "not allowed on this type".
    #[test]
    fn cluster_scoped_objects_lose_their_namespace() {
        let crd = RULES_CRD.replace("scope: Namespaced", "scope: Cluster");
        let obj = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: team-a}\nspec: {size: 1, mode: a}\n";
        let a = analyze_with(&crd, obj, None, crate::report::analysis::Options::default());
        let o = a.objects.first().unwrap();
        assert!(o.accepted, "{:?}", o.errors);
        assert_eq!(
            o.stored.to_value()["metadata"],
            serde_json::json!({"name": "w", "generation": 1})
        );
        let note = a
            .findings
            .iter()
            .find(|f| f.code == "studio.namespace-cleared")
            .unwrap();
        assert_eq!(note.severity, crate::documents::finding::Severity::Info);
        assert_eq!(note.location.unwrap().span.start.line, 3);
        // On update too, against an old object that (as stored) has none.
        let a = analyze_with(
            &crd,
            obj,
            Some(obj),
            crate::report::analysis::Options::default(),
        );
        let o = a.objects.first().unwrap();
        assert!(o.accepted, "{:?}", o.errors);
        assert!(o.stored.to_value()["metadata"].get("namespace").is_none());
    }

    /// Update: `rest.BeforeUpdate` (apiserver `pkg/registry/rest/update.go`) resets the
    /// generation and the system fields from the old object, then `rest.ValidateUpdate` runs
    /// `validateCommonFields` (`ValidateObjectMetaAccessor` with `validatePathSegment`, then
    /// `ValidateObjectMetaAccessorUpdate`, apimachinery `pkg/api/validation/objectmeta.go`)
    /// before the strategy's `ValidateUpdate`, which runs `ValidateObjectMetaUpdate` again
    /// (apiextensions-apiserver `pkg/registry/customresource/validator.go`).
    #[test]
    fn object_meta_on_update() {
        let old = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, uid: u1, generation: 5, creationTimestamp: \"2020-01-01T00:00:00Z\", deletionGracePeriodSeconds: 30}\nspec: {size: 1, mode: a}\n";
        let obj = |meta: &str| {
            format!("apiVersion: example.com/v1\nkind: Widget\nmetadata: {{{meta}}}\nspec: {{size: 1, mode: a}}\n")
        };
        let label = "metadata.labels: Invalid value: \"-b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
        let finalizer = "metadata.finalizers: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
        let cases: Vec<(&str, String, Vec<String>)> = vec![
            // Nothing but system fields given differently: the old ones win, no error
            // (generation is the old one; creationTimestamp the old one; the missing grace
            // period and uid the old ones).
            (
                "system fields reset",
                obj("name: w, generation: 1, creationTimestamp: \"2021-01-01T00:00:00Z\""),
                vec![],
            ),
            // A changed name: immutable, once from validateCommonFields and once from the
            // strategy.
            (
                "name",
                obj("name: x"),
                vec!["metadata.name: Invalid value: \"x\": field is immutable".into(); 2],
            ),
            (
                "namespace",
                obj("name: w, namespace: other"),
                vec!["metadata.namespace: Invalid value: \"other\": field is immutable".into(); 2],
            ),
            (
                "uid",
                obj("name: w, uid: u2"),
                vec!["metadata.uid: Invalid value: \"u2\": field is immutable".into(); 2],
            ),
            (
                "deletion grace period",
                obj("name: w, deletionGracePeriodSeconds: 10"),
                vec!["metadata.deletionGracePeriodSeconds: Invalid value: 10: field is immutable".into(); 2],
            ),
            (
                "deletion timestamp",
                obj("name: w, deletionTimestamp: \"2030-01-01T00:00:00Z\""),
                vec!["metadata.deletionTimestamp: Invalid value: \"2030-01-01T00:00:00Z\": field is immutable".into(); 2],
            ),
            // Labels: the create checks, the update checks, the strategy's update checks.
            ("labels", obj("name: w, labels: {a: \"-b\"}"), vec![label.into(); 3]),
            // Finalizer names are only in the create checks, which an update runs too.
            ("finalizers", obj("name: w, finalizers: [\"a/b/c\"]"), vec![finalizer.into()]),
            // generateName is not used on update: the name is missing and changed.
            (
                "generateName on update",
                obj("generateName: w-"),
                vec![
                    "metadata.name: Required value: name or generateName is required".into(),
                    "metadata.name: Invalid value: \"\": field is immutable".into(),
                    "metadata.name: Invalid value: \"\": field is immutable".into(),
                ],
            ),
        ];
        for (what, new, want) in cases {
            let a = analyze(&new, Some(old));
            let o = a.objects.first().unwrap();
            assert_eq!(error_texts(o), want, "{what}");
            // One finding per distinct text.
            let mut distinct = want.clone();
            distinct.sort();
            distinct.dedup();
            let mut found: Vec<&str> = a
                .findings
                .iter()
                .filter(|f| f.code == "object.invalid")
                .map(|f| f.message.as_str())
                .collect();
            found.sort_unstable();
            assert_eq!(found, distinct, "{what}");
        }
        // What BeforeUpdate stored.
        let a = analyze(
            &obj("name: w, generation: 1, creationTimestamp: \"2021-01-01T00:00:00Z\""),
            Some(old),
        );
        let meta = &a.objects.first().unwrap().stored.to_value()["metadata"];
        assert_eq!(meta["generation"], 5);
        assert_eq!(meta["creationTimestamp"], "2020-01-01T00:00:00Z");
        assert_eq!(meta["uid"], "u1");
        assert_eq!(meta["deletionGracePeriodSeconds"], 30);
    }

    #[test]
    fn scale_paths() {
        let scale = Scale {
            spec_replicas_path: ".spec.replicas".into(),
            status_replicas_path: ".status.replicas".into(),
            label_selector_path: None,
        };
        assert!(validate_scale_spec(&json!({"spec": {"replicas": 3}}), &scale).is_empty());
        let errs = validate_scale_spec(&json!({"spec": {"replicas": -1}}), &scale);
        assert_eq!(
            errs.first().map(FieldError::error),
            Some(".spec.replicas: Invalid value: -1: should be a non-negative integer".into())
        );
    }

    /// `customResourceValidator.ValidateScaleSpec` / `ValidateScaleStatus`
    /// (apiextensions-apiserver `pkg/registry/customresource/validator.go`): the error of
    /// `unstructured.NestedInt64` / `NestedString` (apimachinery
    /// `pkg/apis/meta/v1/unstructured/helpers.go`: `%v accessor error: %v is of the type %T,
    /// expected int64`, and `NestedFieldNoCopy`'s `... expected map[string]interface{}` for a
    /// step through a non-map, with the path up to the key it was about to read) as the message of
    /// `field.Invalid(NewPath(path), <zero value>, err.Error())`. A `null` on the way is "not
    /// found" (no error); a `null` at the end is a `<nil>` of the wrong type.
    #[test]
    fn scale_accessor_errors() {
        let scale = Scale {
            spec_replicas_path: ".spec.replicas".into(),
            status_replicas_path: ".status.replicas".into(),
            label_selector_path: Some(".status.labelSelector".into()),
        };
        let cases: Vec<(Json, Vec<&str>)> = vec![
            (json!({"spec": {"replicas": 2}, "status": {"replicas": 1, "labelSelector": "a=b"}}), vec![]),
            (
                json!({"spec": {"replicas": "3"}}),
                vec![".spec.replicas: Invalid value: 0: .spec.replicas accessor error: 3 is of the type string, expected int64"],
            ),
            (
                json!({"spec": {"replicas": 1.5}}),
                vec![".spec.replicas: Invalid value: 0: .spec.replicas accessor error: 1.5 is of the type float64, expected int64"],
            ),
            (
                json!({"spec": {"replicas": true}}),
                vec![".spec.replicas: Invalid value: 0: .spec.replicas accessor error: true is of the type bool, expected int64"],
            ),
            (
                json!({"spec": {"replicas": null}}),
                vec![".spec.replicas: Invalid value: 0: .spec.replicas accessor error: <nil> is of the type <nil>, expected int64"],
            ),
            (
                json!({"spec": {"replicas": [1]}}),
                vec![".spec.replicas: Invalid value: 0: .spec.replicas accessor error: [1] is of the type []interface {}, expected int64"],
            ),
            (
                json!({"spec": {"replicas": {"n": 1}}}),
                vec![".spec.replicas: Invalid value: 0: .spec.replicas accessor error: map[n:1] is of the type map[string]interface {}, expected int64"],
            ),
            (
                json!({"spec": "x"}),
                vec![".spec.replicas: Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected map[string]interface{}"],
            ),
            (
                json!({"spec": [1, 2]}),
                vec![".spec.replicas: Invalid value: 0: .spec.replicas accessor error: [1 2] is of the type []interface {}, expected map[string]interface{}"],
            ),
            // A null parent: not found, no error.
            (json!({"spec": null, "status": null}), vec![]),
            (
                json!({"status": {"replicas": 7, "labelSelector": 5}}),
                vec![".status.labelSelector: Invalid value: \"\": .status.labelSelector accessor error: 5 is of the type int64, expected string"],
            ),
            (
                json!({"status": 4}),
                vec![
                    ".status.replicas: Invalid value: 0: .status.replicas accessor error: 4 is of the type int64, expected map[string]interface{}",
                    ".status.labelSelector: Invalid value: \"\": .status.labelSelector accessor error: 4 is of the type int64, expected map[string]interface{}",
                ],
            ),
        ];
        for (obj, want) in cases {
            let got: Vec<String> = validate_scale_spec(&obj, &scale)
                .into_iter()
                .chain(validate_scale_status(&obj, &scale))
                .map(|e| e.error())
                .collect();
            assert_eq!(got, want, "{obj}");
        }
    }
}
