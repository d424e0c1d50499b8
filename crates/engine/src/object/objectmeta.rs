//! ObjectMeta of custom resources: apiextensions-apiserver
//! `pkg/apiserver/schema/objectmeta` (`GetObjectMetaWithOptions`, `SetObjectMeta`,
//! `CoerceWithOptions`, `Validate`) and the decoding step that uses them,
//! `unstructuredSchemaCoercer.apply` in `pkg/apiserver/customresource_handler.go`.
//!
//! The server reads `metadata` by marshalling it to JSON and decoding that into
//! `metav1.ObjectMeta` with `sigs.k8s.io/json` (case-sensitive; strict when the request asks
//! for field validation), then writes the typed struct back (`ToUnstructured`). So unknown
//! metadata fields vanish (`unknown field "metadata.foo"` under Strict/Warn), timestamps are
//! normalised to UTC seconds, empty fields are dropped, and a field of the wrong type fails
//! the request with Go's decoder message — or, when reading from storage, is dropped.
//! [`ObjectMeta`] is that struct; [`decode_object_meta`] and [`ObjectMeta::to_unstructured`]
//! are the two directions.
//!
//! The order of the decoding steps ([`SchemaCoercer::apply`]): read `kind`, `apiVersion` and
//! `metadata` at the root; if the object is of the CRD's group and kind: prune
//! ([`crate::object::pruning::prune`], unless `preserveUnknownFields`), drop non-nullable nulls
//! without default ([`crate::object::defaulting::prune_non_nullable_nulls_without_defaults`]),
//! coerce embedded resources ([`coerce`]); then write `kind`, `apiVersion` and the
//! normalised root `metadata` back. Defaulting ([`crate::object::defaulting::default`]) follows
//! in the codec, after this.
//!
//! Validation of ObjectMeta (`ValidateObjectMeta`, the embedded-resource checks) is in
//! [`validation`].
//!
//! Where Go iterates a map (and so reports in random order), this module goes in key order.

pub mod decoder;
pub mod time;
pub mod validation;

use std::collections::BTreeMap;

use serde_json::{Map, Value as Json};

use crate::documents::field_error::{BadValue, FieldError};
use crate::documents::path::{FieldPath, Segment};
use crate::object::defaulting;
use crate::object::pruning;
use crate::schema::Structural;

use crd_studio_gostd::json::json_kind;
use decoder::{Abort, Decoder};
pub use time::Time;

/// The fields of `metav1.ObjectMeta` (JSON names), in declaration order.
pub const OBJECT_META_FIELDS: [&str; 15] = [
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

/// `metav1.OwnerReference`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OwnerReference {
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `name`.
    pub name: String,
    /// `uid`.
    pub uid: String,
    /// `controller`.
    pub controller: Option<bool>,
    /// `blockOwnerDeletion`.
    pub block_owner_deletion: Option<bool>,
}

/// `metav1.ManagedFieldsEntry`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ManagedFieldsEntry {
    /// `manager`.
    pub manager: String,
    /// `operation`.
    pub operation: String,
    /// `apiVersion`.
    pub api_version: String,
    /// `time` (`Some(Time::ZERO)` is a zero time, written back as null).
    pub time: Option<Time>,
    /// `fieldsType`.
    pub fields_type: String,
    /// `fieldsV1`: any JSON but null, kept as it is.
    pub fields_v1: Option<Json>,
    /// `subresource`.
    pub subresource: String,
}

/// `metav1.ObjectMeta`.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectMeta {
    /// `name`.
    pub name: String,
    /// `generateName`.
    pub generate_name: String,
    /// `namespace`.
    pub namespace: String,
    /// `selfLink`.
    pub self_link: String,
    /// `uid`.
    pub uid: String,
    /// `resourceVersion`.
    pub resource_version: String,
    /// `generation`.
    pub generation: i64,
    /// `creationTimestamp` ([`Time::ZERO`] when unset).
    pub creation_timestamp: Time,
    /// `deletionTimestamp` (`Some(Time::ZERO)` is a zero time, written back as null).
    pub deletion_timestamp: Option<Time>,
    /// `deletionGracePeriodSeconds`.
    pub deletion_grace_period_seconds: Option<i64>,
    /// `labels`.
    pub labels: BTreeMap<String, String>,
    /// `annotations`.
    pub annotations: BTreeMap<String, String>,
    /// `ownerReferences`.
    pub owner_references: Vec<OwnerReference>,
    /// `finalizers`.
    pub finalizers: Vec<String>,
    /// `managedFields`.
    pub managed_fields: Vec<ManagedFieldsEntry>,
}

impl Default for ObjectMeta {
    fn default() -> ObjectMeta {
        ObjectMeta {
            name: String::new(),
            generate_name: String::new(),
            namespace: String::new(),
            self_link: String::new(),
            uid: String::new(),
            resource_version: String::new(),
            generation: 0,
            creation_timestamp: Time::ZERO,
            deletion_timestamp: None,
            deletion_grace_period_seconds: None,
            labels: BTreeMap::new(),
            annotations: BTreeMap::new(),
            owner_references: Vec::new(),
            finalizers: Vec::new(),
            managed_fields: Vec::new(),
        }
    }
}

// ------------------------------------------------------------------------------------------
// Decoding (json.Unmarshal into metav1.ObjectMeta)
// ------------------------------------------------------------------------------------------

/// `metav1.Time.UnmarshalJSON`: null is the zero time, a string is parsed as RFC 3339,
/// anything else fails as a string would (with the field's context).
fn decode_time(d: &Decoder, v: &Json) -> Result<Time, Abort> {
    match v {
        Json::Null => Ok(Time::ZERO),
        Json::String(s) => time::parse_rfc3339(s).map_err(Abort),
        other => Err(Abort(d.type_error_text(json_kind(other), "string"))),
    }
}

/// A `map[string]string` field.
fn decode_string_map(d: &mut Decoder, v: &Json, out: &mut BTreeMap<String, String>) {
    match v {
        Json::Null => out.clear(),
        Json::Object(map) => {
            for (k, item) in map {
                let mark = d.enter_key(k);
                let value = d.string(item, "string").unwrap_or_default();
                out.insert(k.clone(), value);
                d.leave(mark);
            }
        }
        other => d.type_error(json_kind(other), "map[string]string"),
    }
}

/// A `[]string` field.
fn decode_string_list(d: &mut Decoder, v: &Json, out: &mut Vec<String>) {
    match v {
        Json::Null => out.clear(),
        Json::Array(items) => {
            out.clear();
            for (i, item) in items.iter().enumerate() {
                let mark = d.enter_index(i);
                out.push(d.string(item, "string").unwrap_or_default());
                d.leave(mark);
            }
        }
        other => d.type_error(json_kind(other), "[]string"),
    }
}

/// Decodes one struct of a list from its JSON object.
type StructDecoder<T> = fn(&mut Decoder, &Map<String, Json>, &mut T) -> Result<(), Abort>;

/// A `[]T` field of structs, each decoded by `each`.
fn decode_struct_list<T: Default>(
    d: &mut Decoder,
    v: &Json,
    list_type: &str,
    item_type: &str,
    out: &mut Vec<T>,
    each: StructDecoder<T>,
) -> Result<(), Abort> {
    match v {
        Json::Null => out.clear(),
        Json::Array(items) => {
            out.clear();
            for (i, item) in items.iter().enumerate() {
                let mark = d.enter_index(i);
                let mut x = T::default();
                match item {
                    Json::Object(m) => each(d, m, &mut x)?,
                    Json::Null => {}
                    other => d.type_error(json_kind(other), item_type),
                }
                out.push(x);
                d.leave(mark);
            }
        }
        other => d.type_error(json_kind(other), list_type),
    }
    Ok(())
}

fn set<T>(slot: &mut T, v: Option<T>) {
    if let Some(v) = v {
        *slot = v;
    }
}

fn decode_owner_reference(
    d: &mut Decoder,
    m: &Map<String, Json>,
    o: &mut OwnerReference,
) -> Result<(), Abort> {
    const ST: &str = "OwnerReference";
    for (k, v) in m {
        let mark = match k.as_str() {
            "apiVersion" => d.enter_field(ST, "apiVersion"),
            "kind" => d.enter_field(ST, "kind"),
            "name" => d.enter_field(ST, "name"),
            "uid" => d.enter_field(ST, "uid"),
            "controller" => d.enter_field(ST, "controller"),
            "blockOwnerDeletion" => d.enter_field(ST, "blockOwnerDeletion"),
            _ => {
                d.unknown_field(k);
                continue;
            }
        };
        match k.as_str() {
            "apiVersion" => set(&mut o.api_version, d.string(v, "string")),
            "kind" => set(&mut o.kind, d.string(v, "string")),
            "name" => set(&mut o.name, d.string(v, "string")),
            "uid" => set(&mut o.uid, d.string(v, "types.UID")),
            "controller" => {
                o.controller = if v.is_null() {
                    None
                } else {
                    d.bool(v).or(o.controller)
                }
            }
            _ => {
                o.block_owner_deletion = if v.is_null() {
                    None
                } else {
                    d.bool(v).or(o.block_owner_deletion)
                }
            }
        }
        d.leave(mark);
    }
    Ok(())
}

fn decode_managed_fields_entry(
    d: &mut Decoder,
    m: &Map<String, Json>,
    e: &mut ManagedFieldsEntry,
) -> Result<(), Abort> {
    const ST: &str = "ManagedFieldsEntry";
    for (k, v) in m {
        let mark = match k.as_str() {
            "manager" => d.enter_field(ST, "manager"),
            "operation" => d.enter_field(ST, "operation"),
            "apiVersion" => d.enter_field(ST, "apiVersion"),
            "time" => d.enter_field(ST, "time"),
            "fieldsType" => d.enter_field(ST, "fieldsType"),
            "fieldsV1" => d.enter_field(ST, "fieldsV1"),
            "subresource" => d.enter_field(ST, "subresource"),
            _ => {
                d.unknown_field(k);
                continue;
            }
        };
        match k.as_str() {
            "manager" => set(&mut e.manager, d.string(v, "string")),
            "operation" => set(
                &mut e.operation,
                d.string(v, "v1.ManagedFieldsOperationType"),
            ),
            "apiVersion" => set(&mut e.api_version, d.string(v, "string")),
            "time" => {
                e.time = if v.is_null() {
                    None
                } else {
                    Some(decode_time(d, v)?)
                }
            }
            "fieldsType" => set(&mut e.fields_type, d.string(v, "string")),
            "fieldsV1" => e.fields_v1 = (!v.is_null()).then(|| v.clone()),
            _ => set(&mut e.subresource, d.string(v, "string")),
        }
        d.leave(mark);
    }
    Ok(())
}

/// One field of ObjectMeta (`key` is matched case-sensitively; unknown keys are recorded).
fn decode_meta_field(
    d: &mut Decoder,
    key: &str,
    v: &Json,
    meta: &mut ObjectMeta,
) -> Result<(), Abort> {
    const ST: &str = "ObjectMeta";
    let Some(name) = OBJECT_META_FIELDS.iter().find(|f| **f == key) else {
        d.unknown_field(key);
        return Ok(());
    };
    let mark = d.enter_field(ST, name);
    match *name {
        "name" => set(&mut meta.name, d.string(v, "string")),
        "generateName" => set(&mut meta.generate_name, d.string(v, "string")),
        "namespace" => set(&mut meta.namespace, d.string(v, "string")),
        "selfLink" => set(&mut meta.self_link, d.string(v, "string")),
        "uid" => set(&mut meta.uid, d.string(v, "types.UID")),
        "resourceVersion" => set(&mut meta.resource_version, d.string(v, "string")),
        "generation" => set(&mut meta.generation, d.int64(v)),
        "creationTimestamp" => meta.creation_timestamp = decode_time(d, v)?,
        "deletionTimestamp" => {
            meta.deletion_timestamp = if v.is_null() {
                None
            } else {
                Some(decode_time(d, v)?)
            }
        }
        "deletionGracePeriodSeconds" => {
            meta.deletion_grace_period_seconds = if v.is_null() {
                None
            } else {
                Some(d.int64(v).unwrap_or(0))
            }
        }
        "labels" => decode_string_map(d, v, &mut meta.labels),
        "annotations" => decode_string_map(d, v, &mut meta.annotations),
        "ownerReferences" => decode_struct_list(
            d,
            v,
            "[]v1.OwnerReference",
            "v1.OwnerReference",
            &mut meta.owner_references,
            decode_owner_reference,
        )?,
        "finalizers" => decode_string_list(d, v, &mut meta.finalizers),
        _ => decode_struct_list(
            d,
            v,
            "[]v1.ManagedFieldsEntry",
            "v1.ManagedFieldsEntry",
            &mut meta.managed_fields,
            decode_managed_fields_entry,
        )?,
    }
    d.leave(mark);
    Ok(())
}

/// `json.Unmarshal` (or, with `strict`, `UnmarshalStrict`) of a metadata value into
/// `metav1.ObjectMeta`: the struct and the unknown field paths (relative to `metadata`, in
/// the order found, only with `strict`), or Go's error text.
pub fn decode_object_meta(v: &Json, strict: bool) -> Result<(ObjectMeta, Vec<String>), String> {
    let mut d = Decoder::new(strict);
    let mut meta = ObjectMeta::default();
    match v {
        Json::Null => {}
        Json::Object(m) => {
            for (k, item) in m {
                decode_meta_field(&mut d, k, item, &mut meta).map_err(|a| a.0)?;
            }
        }
        other => d.type_error(json_kind(other), "v1.ObjectMeta"),
    }
    d.finish().map(|unknown| (meta, unknown))
}

/// How [`get_object_meta`] reads metadata (`ObjectMetaOptions`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ObjectMetaOptions {
    /// Drop the fields that do not decode instead of failing (reading from storage).
    pub drop_malformed_fields: bool,
    /// Decode strictly and return the unknown fields' paths.
    pub return_unknown_field_paths: bool,
}

/// What [`get_object_meta`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct FoundObjectMeta {
    /// The typed metadata.
    pub meta: ObjectMeta,
    /// Paths of unknown fields, `<parent>.metadata.<field>` (only when asked for).
    pub unknown_field_paths: Vec<String>,
}

/// `GetObjectMetaWithOptions(obj, opts)` with `ParentPath = parent`: the `metadata` of
/// `obj`, `Ok(None)` when there is none, or Go's decoding error.
pub fn get_object_meta(
    obj: &Map<String, Json>,
    opts: ObjectMetaOptions,
    parent: &FieldPath,
) -> Result<Option<FoundObjectMeta>, String> {
    let Some(metadata) = obj.get("metadata") else {
        return Ok(None);
    };
    let prefix = parent_child(parent, "metadata").to_string();
    let with_prefix = |paths: Vec<String>| -> Vec<String> {
        paths.into_iter().map(|p| format!("{prefix}.{p}")).collect()
    };
    let err = match decode_object_meta(metadata, opts.return_unknown_field_paths) {
        Ok((meta, unknown)) => {
            return Ok(Some(FoundObjectMeta {
                meta,
                unknown_field_paths: with_prefix(unknown),
            }))
        }
        Err(e) => e,
    };
    if !opts.drop_malformed_fields {
        return Err(err);
    }
    let Json::Object(fields) = metadata else {
        return Err(format!(
            "invalid metadata: expected object, got {}",
            crd_studio_gostd::fmt::type_name(metadata)
        ));
    };
    // Field by field: keep those that decode on their own.
    let mut meta = ObjectMeta::default();
    let mut unknown = Vec::new();
    for (k, v) in fields {
        let mut trial = ObjectMeta::default();
        let mut d = Decoder::new(false);
        let ok = decode_meta_field(&mut d, k, v, &mut trial).is_ok() && d.finish().is_ok();
        if ok {
            let mut d = Decoder::new(opts.return_unknown_field_paths);
            if decode_meta_field(&mut d, k, v, &mut meta).is_ok() {
                if let Ok(u) = d.finish() {
                    unknown.extend(u);
                }
            }
        }
    }
    Ok(Some(FoundObjectMeta {
        meta,
        unknown_field_paths: with_prefix(unknown),
    }))
}

/// `parent.Child(name)` where `parent` may be the nil path.
fn parent_child(parent: &FieldPath, name: &str) -> FieldPath {
    let mut p = parent.clone();
    p.0.push(Segment::Field(name.to_owned()));
    p
}

// ------------------------------------------------------------------------------------------
// Encoding (runtime.DefaultUnstructuredConverter.ToUnstructured)
// ------------------------------------------------------------------------------------------

fn put_str(m: &mut Map<String, Json>, k: &str, v: &str) {
    if !v.is_empty() {
        m.insert(k.to_owned(), Json::String(v.to_owned()));
    }
}

fn time_json(t: &Time) -> Json {
    if t.is_zero() {
        Json::Null
    } else {
        Json::String(t.rfc3339())
    }
}

fn string_map(m: &BTreeMap<String, String>) -> Json {
    Json::Object(
        m.iter()
            .map(|(k, v)| (k.clone(), Json::String(v.clone())))
            .collect(),
    )
}

impl OwnerReference {
    /// The reference as the server writes it (`apiVersion`, `kind`, `name`, `uid` always).
    pub fn to_unstructured(&self) -> Json {
        let mut m = Map::new();
        m.insert("apiVersion".into(), Json::String(self.api_version.clone()));
        m.insert("kind".into(), Json::String(self.kind.clone()));
        m.insert("name".into(), Json::String(self.name.clone()));
        m.insert("uid".into(), Json::String(self.uid.clone()));
        if let Some(b) = self.controller {
            m.insert("controller".into(), Json::Bool(b));
        }
        if let Some(b) = self.block_owner_deletion {
            m.insert("blockOwnerDeletion".into(), Json::Bool(b));
        }
        Json::Object(m)
    }

    /// `json.Marshal` of the struct (fields in declaration order), for field-error values.
    pub fn go_json(&self) -> String {
        let mut s = format!(
            "{{\"apiVersion\":{},\"kind\":{},\"name\":{},\"uid\":{}",
            crd_studio_gostd::json::string(&self.api_version),
            crd_studio_gostd::json::string(&self.kind),
            crd_studio_gostd::json::string(&self.name),
            crd_studio_gostd::json::string(&self.uid)
        );
        if let Some(b) = self.controller {
            s.push_str(&format!(",\"controller\":{b}"));
        }
        if let Some(b) = self.block_owner_deletion {
            s.push_str(&format!(",\"blockOwnerDeletion\":{b}"));
        }
        s.push('}');
        s
    }
}

impl ManagedFieldsEntry {
    /// The entry as the server writes it.
    pub fn to_unstructured(&self) -> Json {
        let mut m = Map::new();
        put_str(&mut m, "manager", &self.manager);
        put_str(&mut m, "operation", &self.operation);
        put_str(&mut m, "apiVersion", &self.api_version);
        if let Some(t) = &self.time {
            m.insert("time".into(), time_json(t));
        }
        put_str(&mut m, "fieldsType", &self.fields_type);
        if let Some(f) = &self.fields_v1 {
            m.insert("fieldsV1".into(), f.clone());
        }
        put_str(&mut m, "subresource", &self.subresource);
        Json::Object(m)
    }
}

impl ObjectMeta {
    /// `ToUnstructured(&objectMeta)`: what `SetObjectMeta` writes as `metadata` (empty
    /// fields left out, timestamps in UTC seconds, a zero creation timestamp left out).
    pub fn to_unstructured(&self) -> Json {
        let mut m = Map::new();
        put_str(&mut m, "name", &self.name);
        put_str(&mut m, "generateName", &self.generate_name);
        put_str(&mut m, "namespace", &self.namespace);
        put_str(&mut m, "selfLink", &self.self_link);
        put_str(&mut m, "uid", &self.uid);
        put_str(&mut m, "resourceVersion", &self.resource_version);
        if self.generation != 0 {
            m.insert("generation".into(), Json::from(self.generation));
        }
        if !self.creation_timestamp.is_zero() {
            m.insert(
                "creationTimestamp".into(),
                time_json(&self.creation_timestamp),
            );
        }
        if let Some(t) = &self.deletion_timestamp {
            m.insert("deletionTimestamp".into(), time_json(t));
        }
        if let Some(s) = self.deletion_grace_period_seconds {
            m.insert("deletionGracePeriodSeconds".into(), Json::from(s));
        }
        if !self.labels.is_empty() {
            m.insert("labels".into(), string_map(&self.labels));
        }
        if !self.annotations.is_empty() {
            m.insert("annotations".into(), string_map(&self.annotations));
        }
        if !self.owner_references.is_empty() {
            let refs = self
                .owner_references
                .iter()
                .map(OwnerReference::to_unstructured);
            m.insert("ownerReferences".into(), Json::Array(refs.collect()));
        }
        if !self.finalizers.is_empty() {
            let f = self.finalizers.iter().cloned().map(Json::String);
            m.insert("finalizers".into(), Json::Array(f.collect()));
        }
        if !self.managed_fields.is_empty() {
            let e = self
                .managed_fields
                .iter()
                .map(ManagedFieldsEntry::to_unstructured);
            m.insert("managedFields".into(), Json::Array(e.collect()));
        }
        Json::Object(m)
    }
}

/// `SetObjectMeta(obj, meta)`.
pub fn set_object_meta(obj: &mut Map<String, Json>, meta: &ObjectMeta) {
    obj.insert("metadata".into(), meta.to_unstructured());
}

// ------------------------------------------------------------------------------------------
// Coercion of embedded resources (CoerceWithOptions)
// ------------------------------------------------------------------------------------------

/// Options of [`coerce`] (`CoerceOptions`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoerceOptions {
    /// Drop `apiVersion`/`kind` that are not strings and metadata fields that do not decode,
    /// instead of failing (reading from storage).
    pub drop_invalid_fields: bool,
    /// Return the paths of unknown metadata fields.
    pub return_unknown_field_paths: bool,
}

/// The bad value of a field error holding a JSON value, printed as the server prints it
/// (`%q`/`%v` for scalars, `json.Marshal` for objects and lists).
pub fn bad_value(v: &Json) -> BadValue {
    match v {
        Json::Array(_) | Json::Object(_) => BadValue::Raw(crd_studio_gostd::json::marshal(v)),
        other => BadValue::from_json(other),
    }
}

/// `CoerceWithOptions(path, obj, s, isResourceRoot, opts)`: in every object the schema marks
/// `x-kubernetes-embedded-resource` (and at the root with `is_resource_root`), checks that
/// `apiVersion` and `kind` are strings and normalises `metadata` through
/// `metav1.ObjectMeta`. Returns the first error (`<path>.kind: Invalid value: 1: must be a
/// string`, `<path>.metadata: Invalid value: {...}: json: cannot unmarshal ...`) and the
/// sorted paths of unknown metadata fields (`spec.template.metadata.foo`).
pub fn coerce(
    path: &FieldPath,
    obj: &mut Json,
    s: Option<&Structural>,
    is_resource_root: bool,
    opts: CoerceOptions,
) -> (Option<FieldError>, Vec<String>) {
    let empty = Structural::default();
    let root_schema = match (s, is_resource_root) {
        (None, true) => Some(&empty),
        (s, _) => s,
    };
    let mut unknown = Vec::new();
    let mut stack: Vec<(&mut Json, &Structural, FieldPath, bool)> = Vec::new();
    if let Some(rs) = root_schema {
        let embedded = is_resource_root || rs.extensions.x_embedded_resource;
        stack.push((obj, rs, path.clone(), embedded));
    }
    let mut error = None;
    while let Some((x, s, pth, embedded)) = stack.pop() {
        match x {
            Json::Object(map) => {
                if embedded {
                    if let Err(e) = coerce_embedded(map, &pth, opts, &mut unknown) {
                        error = Some(e);
                        break;
                    }
                }
                // Children in reverse key order so that they are visited in key order.
                let mut children = Vec::new();
                for (k, v) in map.iter_mut() {
                    if let Some(prop) = s.properties.get(k).map(Box::as_ref) {
                        let p = parent_child(&pth, k);
                        children.push((v, prop, p, prop.extensions.x_embedded_resource));
                    } else if let Some(ap) = s.additional_properties_schema() {
                        let p = pth.key(k);
                        children.push((v, ap, p, ap.extensions.x_embedded_resource));
                    }
                }
                stack.extend(children.into_iter().rev());
            }
            Json::Array(items) => {
                if let Some(item_schema) = s.items.as_deref() {
                    let embedded = item_schema.extensions.x_embedded_resource;
                    let children: Vec<_> = items
                        .iter_mut()
                        .enumerate()
                        .map(|(i, v)| (v, item_schema, pth.index(i), embedded))
                        .collect();
                    stack.extend(children.into_iter().rev());
                }
            }
            _ => {}
        }
    }
    crd_studio_gostd::sort::stable(&mut unknown);
    (error, unknown)
}

/// The checks of one embedded resource object.
fn coerce_embedded(
    map: &mut Map<String, Json>,
    pth: &FieldPath,
    opts: CoerceOptions,
    unknown: &mut Vec<String>,
) -> Result<(), FieldError> {
    for k in ["apiVersion", "kind"] {
        match map.get(k) {
            Some(Json::String(_)) | None => {}
            Some(_) if opts.drop_invalid_fields => {
                map.remove(k);
            }
            Some(v) => {
                return Err(FieldError::invalid(
                    parent_child(pth, k),
                    bad_value(v),
                    "must be a string",
                ))
            }
        }
    }
    let found = get_object_meta(
        map,
        ObjectMetaOptions {
            drop_malformed_fields: opts.drop_invalid_fields,
            return_unknown_field_paths: opts.return_unknown_field_paths,
        },
        pth,
    );
    match found {
        Err(e) => {
            if !opts.drop_invalid_fields {
                let v = map.get("metadata").unwrap_or(&Json::Null);
                return Err(FieldError::invalid(
                    parent_child(pth, "metadata"),
                    bad_value(v),
                    e,
                ));
            }
        }
        Ok(Some(found)) => {
            unknown.extend(found.unknown_field_paths);
            set_object_meta(map, &found.meta);
        }
        Ok(None) => {}
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------
// The decoding step (unstructuredSchemaCoercer.apply)
// ------------------------------------------------------------------------------------------

/// `unstructuredSchemaCoercer`: how objects of one CRD are coerced when decoded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchemaCoercer {
    /// The CRD's group.
    pub group: String,
    /// The CRD's kind.
    pub kind: String,
    /// `spec.preserveUnknownFields` of the CRD (no pruning).
    pub preserve_unknown_fields: bool,
    /// Drop malformed metadata instead of failing: `true` when reading from storage,
    /// `false` for request bodies.
    pub drop_invalid_metadata: bool,
    /// Set a missing generation to 1 (storage reads).
    pub repair_generation: bool,
    /// Return unknown field paths: `true` when the request asks for field validation
    /// `Strict` or `Warn` (the server then decodes with a strict serializer).
    pub return_unknown_field_paths: bool,
}

/// Why the decoding step rejects an object.
#[derive(Clone, Debug, PartialEq)]
pub enum CoerceError {
    /// An error message (accessor, group-version or metadata decoding errors), as the
    /// server's `err.Error()`.
    Message(String),
    /// A field error of an embedded resource.
    Field(FieldError),
}

impl CoerceError {
    /// The error's text (`err.Error()`).
    pub fn text(&self) -> String {
        match self {
            CoerceError::Message(m) => m.clone(),
            CoerceError::Field(f) => f.error(),
        }
    }
}

/// `unstructured.NestedString(obj, key)`: the string, whether it was there, or the error.
fn nested_string(obj: &Map<String, Json>, key: &str) -> Result<Option<String>, String> {
    match obj.get(key) {
        None => Ok(None),
        Some(Json::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(format!(
            ".{key} accessor error: {} is of the type {}, expected string",
            crd_studio_gostd::fmt::v(v),
            crd_studio_gostd::fmt::type_name(v)
        )),
    }
}

/// `schema.ParseGroupVersion`: `(group, version)` or the error text.
pub fn parse_group_version(gv: &str) -> Result<(String, String), String> {
    if gv.is_empty() || gv == "/" {
        return Ok((String::new(), String::new()));
    }
    match gv.matches('/').count() {
        0 => Ok((String::new(), gv.to_owned())),
        1 => {
            let (g, v) = gv.split_once('/').unwrap_or((gv, ""));
            Ok((g.to_owned(), v.to_owned()))
        }
        _ => Err(format!("unexpected GroupVersion string: {gv}")),
    }
}

/// The text of one unknown field in a strict decoding error or warning.
pub fn unknown_field_message(path: &str) -> String {
    format!("unknown field \"{path}\"")
}

impl SchemaCoercer {
    /// Whether the codec's defaulter (`unstructuredDefaulter.Default`) defaults `obj`: only
    /// objects whose `apiVersion` group and `kind` are the CRD's get
    /// [`crate::object::defaulting::default`]; others are left alone.
    pub fn defaults_apply_to(&self, obj: &Json) -> bool {
        let field = |k: &str| obj.get(k).and_then(Json::as_str).unwrap_or("");
        match parse_group_version(field("apiVersion")) {
            Ok((group, _)) => group == self.group && field("kind") == self.kind,
            Err(_) => self.group.is_empty() && self.kind.is_empty(),
        }
    }

    /// `apply(u)`: coerces a decoded object in place and returns the unknown field paths in
    /// the server's order (root metadata first, then pruned fields, then embedded metadata),
    /// each to be reported as [`unknown_field_message`]. `schema_of` gives the structural
    /// schema of a version (`None`: no schema, as a nil `*Structural`). Objects that are
    /// not JSON objects are left alone. Defaulting is not part of this step.
    pub fn apply<'s>(
        &self,
        obj: &mut Json,
        schema_of: &dyn Fn(&str) -> Option<&'s Structural>,
    ) -> Result<Vec<String>, CoerceError> {
        let Json::Object(map) = obj else {
            return Ok(Vec::new());
        };
        let kind = nested_string(map, "kind").map_err(CoerceError::Message)?;
        let api_version = nested_string(map, "apiVersion").map_err(CoerceError::Message)?;
        let found = get_object_meta(
            map,
            ObjectMetaOptions {
                drop_malformed_fields: self.drop_invalid_metadata,
                return_unknown_field_paths: self.return_unknown_field_paths,
            },
            &FieldPath::root(),
        )
        .map_err(CoerceError::Message)?;
        let mut unknown = Vec::new();
        let mut meta = found.map(|f| {
            unknown.extend(f.unknown_field_paths);
            f.meta
        });
        let (group, version) = parse_group_version(api_version.as_deref().unwrap_or(""))
            .map_err(CoerceError::Message)?;
        if group == self.group && kind.as_deref().unwrap_or("") == self.kind {
            let schema = schema_of(&version);
            if !self.preserve_unknown_fields {
                unknown.extend(pruning::prune(obj, schema, true));
                defaulting::prune_non_nullable_nulls_without_defaults(obj, schema);
            }
            let (err, paths) = coerce(
                &FieldPath::root(),
                obj,
                schema,
                false,
                CoerceOptions {
                    drop_invalid_fields: self.drop_invalid_metadata,
                    return_unknown_field_paths: self.return_unknown_field_paths,
                },
            );
            if let Some(e) = err {
                return Err(CoerceError::Field(e));
            }
            unknown.extend(paths);
            if let Some(m) = meta.as_mut() {
                if self.repair_generation && m.generation == 0 {
                    m.generation = 1;
                }
            }
        }
        if let Json::Object(map) = obj {
            if let Some(k) = kind {
                map.insert("kind".into(), Json::String(k));
            }
            if let Some(v) = api_version {
                map.insert("apiVersion".into(), Json::String(v));
            }
            if let Some(m) = &meta {
                set_object_meta(map, m);
            }
        }
        Ok(unknown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::JsonSchemaProps;
    use serde_json::json;

    fn schema(v: Json) -> Structural {
        let (props, errors) = JsonSchemaProps::from_json(&v);
        assert!(errors.is_empty(), "{errors:?}");
        Structural::from_props(&props).unwrap()
    }

    #[test]
    fn decoding_errors_read_like_go() {
        let err = |v: Json| decode_object_meta(&v, false).unwrap_err();
        assert_eq!(
            err(json!({"name": "a", "annotations": 11})),
            "json: cannot unmarshal number into Go struct field ObjectMeta.annotations of type map[string]string"
        );
        assert_eq!(
            err(json!({"labels": {"a": 1}})),
            "json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string"
        );
        assert_eq!(
            err(json!({"generation": 1.5})),
            "json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.generation of type int64"
        );
        assert_eq!(
            err(json!({"ownerReferences": [{"uid": 3}]})),
            "json: cannot unmarshal number into Go struct field OwnerReference.ownerReferences.uid of type types.UID"
        );
        // A time error ends decoding at once and wins over an earlier type error.
        assert_eq!(
            err(json!({"annotations": 1, "creationTimestamp": 5})),
            "json: cannot unmarshal number into Go struct field ObjectMeta.creationTimestamp of type string"
        );
        assert_eq!(
            err(json!({"finalizers": {}})),
            "json: cannot unmarshal object into Go struct field ObjectMeta.finalizers of type []string"
        );
        assert_eq!(
            err(json!([1])),
            "json: cannot unmarshal array into Go value of type v1.ObjectMeta"
        );
    }

    #[test]
    fn round_trip_normalises() {
        let (meta, unknown) = decode_object_meta(
            &json!({"name": "n", "Name": "x", "generateName": null, "generation": 0,
                "labels": {"a": null}, "creationTimestamp": "2021-01-01T01:00:00.5+01:00",
                "ownerReferences": [{"kind": "K", "extra": 1}], "annotations": {}}),
            true,
        )
        .unwrap();
        assert_eq!(unknown, ["Name", "ownerReferences[0].extra"]);
        assert_eq!(
            meta.to_unstructured(),
            json!({"name": "n", "labels": {"a": ""}, "creationTimestamp": "2021-01-01T00:00:00Z",
                "ownerReferences": [{"apiVersion": "", "kind": "K", "name": "", "uid": ""}]})
        );
    }

    #[test]
    fn get_object_meta_drops_malformed_fields() {
        let obj = json!({"metadata": {"name": "n", "labels": {"a": 1}, "unknown": 1}});
        let Json::Object(obj) = obj else { panic!() };
        let opts = ObjectMetaOptions {
            drop_malformed_fields: true,
            return_unknown_field_paths: true,
        };
        let found = get_object_meta(&obj, opts, &FieldPath::new("spec"))
            .unwrap()
            .unwrap();
        assert_eq!(found.meta.to_unstructured(), json!({"name": "n"}));
        assert_eq!(found.unknown_field_paths, ["spec.metadata.unknown"]);
        let bad = json!({"metadata": "x"});
        let Json::Object(bad) = bad else { panic!() };
        assert_eq!(
            get_object_meta(&bad, opts, &FieldPath::root()),
            Err("invalid metadata: expected object, got string".to_owned())
        );
    }

    #[test]
    fn coerce_embedded_resources() {
        let s = schema(json!({"type": "object", "properties": {
            "e": {"type": "object", "x-kubernetes-embedded-resource": true,
                  "x-kubernetes-preserve-unknown-fields": true},
            "l": {"type": "array", "items": {"type": "object", "x-kubernetes-embedded-resource": true,
                  "x-kubernetes-preserve-unknown-fields": true}}}}));
        let mut obj = json!({"metadata": {"odd": 1},
            "e": {"kind": "K", "metadata": {"name": "a", "odd": 1}, "x": 1},
            "l": [{"metadata": {"zzz": true}}]});
        let opts = CoerceOptions {
            drop_invalid_fields: false,
            return_unknown_field_paths: true,
        };
        let (err, unknown) = coerce(&FieldPath::root(), &mut obj, Some(&s), false, opts);
        assert_eq!(err, None);
        assert_eq!(unknown, ["e.metadata.odd", "l[0].metadata.zzz"]);
        assert_eq!(
            obj,
            json!({"metadata": {"odd": 1}, "e": {"kind": "K", "metadata": {"name": "a"}, "x": 1},
                "l": [{"metadata": {}}]})
        );
        let mut bad = json!({"e": {"kind": 1}});
        let (err, _) = coerce(&FieldPath::root(), &mut bad, Some(&s), false, opts);
        assert_eq!(
            err.map(|e| e.error()),
            Some("e.kind: Invalid value: 1: must be a string".to_owned())
        );
        let mut bad = json!({"e": {"metadata": {"labels": []}}});
        let (err, _) = coerce(&FieldPath::root(), &mut bad, Some(&s), false, opts);
        assert_eq!(
            err.map(|e| e.error()),
            Some("e.metadata: Invalid value: {\"labels\":[]}: json: cannot unmarshal array into Go struct field ObjectMeta.labels of type map[string]string".to_owned())
        );
    }

    #[test]
    fn apply_orders_steps_like_the_server() {
        let s = schema(json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"a": {"type": "string"},
                "n": {"type": "string"}}}}}));
        let c = SchemaCoercer {
            group: "example.com".into(),
            kind: "Foo".into(),
            return_unknown_field_paths: true,
            ..SchemaCoercer::default()
        };
        let mut obj = json!({"apiVersion": "example.com/v1", "kind": "Foo",
            "metadata": {"name": "x", "bogus": 1, "creationTimestamp": null},
            "spec": {"a": "1", "b": 2, "n": null}, "status": {}});
        let unknown = c.apply(&mut obj, &|_| Some(&s)).unwrap();
        assert_eq!(unknown, ["metadata.bogus", "spec.b", "status"]);
        assert_eq!(
            obj,
            json!({"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "x"},
                "spec": {"a": "1"}})
        );
        assert!(c.defaults_apply_to(&obj));
        assert!(!c.defaults_apply_to(&json!({"apiVersion": "example.com/v1", "kind": "Bar"})));
        let mut bad = json!({"apiVersion": "a/b/c", "kind": "Foo"});
        assert_eq!(
            c.apply(&mut bad, &|_| Some(&s)).map_err(|e| e.text()),
            Err("unexpected GroupVersion string: a/b/c".to_owned())
        );
        let mut bad = json!({"kind": 5});
        assert_eq!(
            c.apply(&mut bad, &|_| Some(&s)).map_err(|e| e.text()),
            Err(".kind accessor error: 5 is of the type int64, expected string".to_owned())
        );
    }
}
