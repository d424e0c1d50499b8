//! The CEL type of a structural schema, as the API server declares it for
//! `x-kubernetes-validations` rules (`k8s.io/apiserver/pkg/cel/common.SchemaDeclType` over the
//! apiextensions structural-schema adaptor, then `DeclType.MaybeAssignTypeName`).
//!
//! * `x-kubernetes-int-or-string` is `dyn`; `x-kubernetes-preserve-unknown-fields` is ignored
//!   (an object without properties is an object type without fields).
//! * A resource root (the schema root and `x-kubernetes-embedded-resource` nodes) gets
//!   `apiVersion`, `kind` and `metadata` (with only `name` and `generateName`) added
//!   (`WithTypeAndObjectMeta`).
//! * `array` with items: `list(T)`; `object` with an `additionalProperties` schema:
//!   `map(string, T)`; `object` otherwise: an object type whose fields are the properties with
//!   escaped names (properties whose names cannot be escaped, or whose types are unknown, are
//!   left out); strings with format `byte`, `duration`, `date`/`date-time`: bytes, duration,
//!   timestamp; `boolean`, `integer`, `number`: bool, int, double. Anything else has no type.
//! * Object types are named from the root name down: `<root>.<field>`, `<list>.@idx`,
//!   `<map>.@elem`.

use std::collections::BTreeMap;
use std::sync::Arc;

use crd_studio_cel::cost_est::{AstNode, CostEstimator, SizeEstimate};
use crd_studio_cel::types::{ObjectType, Type};

use crate::crd::apiext::CelStep;
use crate::schema::structural::{Generic, Structural, ValueValidation};

/// How deep the conversion follows a schema (structural schemas from CRD text are bounded by
/// the document depth; this keeps the recursion bounded whatever the input).
const MAX_DEPTH: u32 = 512;

/// `DefaultMaxRequestSizeBytes` (`MaxRequestSizeBytes`, 3 MiB).
pub const MAX_REQUEST_SIZE_BYTES: i64 = 3 * 1024 * 1024;
/// `MaxDurationSizeJSON`.
const MAX_DURATION_SIZE_JSON: i64 = 32;
/// `MaxDatetimeSizeJSON`.
const MAX_DATETIME_SIZE_JSON: i64 = 32;
/// `MinDurationSizeJSON`.
const MIN_DURATION_SIZE_JSON: i64 = 3;
/// `JSONDateSize`.
const JSON_DATE_SIZE: i64 = 12;
/// `MinDatetimeSizeJSON`.
const MIN_DATETIME_SIZE_JSON: i64 = 21;
/// `MinStringSize`.
const MIN_STRING_SIZE: i64 = 2;
/// `MinBoolSize`.
const MIN_BOOL_SIZE: i64 = 4;
/// `MinNumberSize`.
const MIN_NUMBER_SIZE: i64 = 1;
/// `DNS1123SubdomainMaxLength`: the cap on `metadata.name` in the widened resource root
/// (`generateName` gets one less).
const NAME_MAX_LENGTH: i64 = 253;

/// `apiservercel.StringType`, the key type of every map.
static MAP_KEY_TYPE: DeclType = DeclType {
    kind: DeclKind::Simple(Type::String),
    max_elements: 0,
    min_serialized_size: MIN_STRING_SIZE,
};

/// A declared type before naming (`apiservercel.DeclType`): the CEL type's shape with the
/// bounds the cost estimate uses.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclType {
    /// The type's shape.
    pub kind: DeclKind,
    /// `MaxElements`: the largest size of a value (code points ×4 or bytes of a string,
    /// items of a list, entries of a map; 0 for objects and scalars).
    pub max_elements: i64,
    /// `MinSerializedSize`: the fewest bytes a value takes in JSON.
    pub min_serialized_size: i64,
}

/// The shape of a [`DeclType`]. Element and field types are shared, not copied, when a
/// type is cloned (a rule site's type is a subtree of its scope root's, and the compiled
/// rules keep the type they were compiled against).
#[derive(Clone, Debug, PartialEq)]
pub enum DeclKind {
    /// A scalar (or `dyn`).
    Simple(Type),
    /// `list(elem)`.
    List(Arc<DeclType>),
    /// `map(string, elem)`.
    Map(Arc<DeclType>),
    /// An (unnamed) object with its escaped field names.
    Object(DeclFields),
}

/// The fields of an object [`DeclType`] by escaped name: a shared slice sorted by name (a
/// schema's objects mostly have a few fields, which a map would hold in nodes of eleven).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeclFields(Arc<[(String, DeclType)]>);

impl DeclFields {
    /// The type of field `name`.
    pub fn get(&self, name: &str) -> Option<&DeclType> {
        let i = self
            .0
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()?;
        self.0.get(i).map(|(_, t)| t)
    }

    /// The fields in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &DeclType)> {
        self.0.iter().map(|(n, t)| (n, t))
    }

    /// How many fields there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<BTreeMap<String, DeclType>> for DeclFields {
    fn from(m: BTreeMap<String, DeclType>) -> DeclFields {
        DeclFields(m.into_iter().collect())
    }
}

impl DeclType {
    fn simple(t: Type, max_elements: i64, min_serialized_size: i64) -> DeclType {
        DeclType {
            kind: DeclKind::Simple(t),
            max_elements,
            min_serialized_size,
        }
    }

    /// The element type of a list or the value type of a map (`ElemType`).
    pub fn elem(&self) -> Option<&DeclType> {
        match &self.kind {
            DeclKind::List(e) | DeclKind::Map(e) => Some(e),
            _ => None,
        }
    }

    /// The fields of an object type (`Fields`, by escaped name).
    pub fn fields(&self) -> Option<&DeclFields> {
        match &self.kind {
            DeclKind::Object(f) => Some(f),
            _ => None,
        }
    }

    /// `KeyType`: a map's keys are `apiservercel.StringType` (whose `MaxElements` is 0).
    pub fn key_type(&self) -> Option<&'static DeclType> {
        match &self.kind {
            DeclKind::Map(_) => Some(&MAP_KEY_TYPE),
            _ => None,
        }
    }
}

/// `maxCardinality(minSize)`: how many values of at least `min_serialized_size` bytes fit in
/// one request (one comma between them), the worst-case cardinality of a node under
/// unbounded lists and maps.
pub fn max_cardinality(min_serialized_size: i64) -> u64 {
    let sz = min_serialized_size.saturating_add(1);
    if sz <= 0 {
        return 0;
    }
    (MAX_REQUEST_SIZE_BYTES / sz) as u64
}

/// `apiservercel.Escape`: the CEL field name of a property, or `None` when it can't have one
/// (the CEL crate's, the one copy).
pub use crd_studio_cel::unstructured::escape;

/// `WithTypeAndObjectMeta`: the schema with `kind`, `apiVersion` and `metadata.{name,
/// generateName}` (unless it already declares them all as such). The added `metadata` has
/// only those two strings, `name` capped at 253 characters and `generateName` at 252 (or the
/// schema's own smaller `maxLength`), so rules on them have bounded costs.
fn with_type_and_object_meta(s: &Structural) -> std::borrow::Cow<'_, Structural> {
    fn ty(p: Option<&Structural>) -> &str {
        p.map(|p| p.generic.type_.as_str()).unwrap_or("")
    }
    fn prop<'s>(s: &'s Structural, name: &str) -> Option<&'s Structural> {
        s.properties.get(name).map(Box::as_ref)
    }
    let meta = prop(s, "metadata");
    if !s.properties.is_empty()
        && ty(prop(s, "kind")) == "string"
        && ty(prop(s, "apiVersion")) == "string"
        && ty(meta) == "object"
        && meta.is_some_and(|m| {
            !m.properties.is_empty()
                && ty(prop(m, "name")) == "string"
                && ty(prop(m, "generateName")) == "string"
        })
    {
        return std::borrow::Cow::Borrowed(s);
    }
    let string = Structural {
        generic: Generic {
            type_: "string".to_owned(),
            ..Generic::default()
        },
        ..Structural::default()
    };
    // `cappedLengthStringType`.
    let capped = |existing: Option<&Structural>, cap: i64| -> Structural {
        let own = existing
            .and_then(|e| e.value_validation.as_ref())
            .and_then(|v| v.max_length);
        let max_length = match own {
            Some(m) if m < cap => m,
            _ => cap,
        };
        Structural {
            generic: Generic {
                type_: "string".to_owned(),
                ..Generic::default()
            },
            value_validation: Some(std::sync::Arc::new(ValueValidation {
                max_length: Some(max_length),
                ..ValueValidation::default()
            })),
            ..Structural::default()
        }
    };
    let meta_prop = |name: &str| meta.and_then(|m| prop(m, name));
    let mut out = s.clone();
    out.properties
        .insert("kind".to_owned(), Box::new(string.clone()));
    out.properties
        .insert("apiVersion".to_owned(), Box::new(string));
    let mut meta_props = BTreeMap::new();
    meta_props.insert(
        "name".to_owned(),
        Box::new(capped(meta_prop("name"), NAME_MAX_LENGTH)),
    );
    meta_props.insert(
        "generateName".to_owned(),
        Box::new(capped(meta_prop("generateName"), NAME_MAX_LENGTH - 1)),
    );
    out.properties.insert(
        "metadata".to_owned(),
        Box::new(Structural {
            generic: Generic {
                type_: "object".to_owned(),
                ..Generic::default()
            },
            properties: meta_props,
            ..Structural::default()
        }),
    );
    std::borrow::Cow::Owned(out)
}

/// `SchemaDeclType(s, isResourceRoot)`: the declared type of a structural schema, `None` when
/// it has none.
pub fn schema_decl_type(s: &Structural, is_resource_root: bool) -> Option<DeclType> {
    decl(s, is_resource_root, 0)
}

/// The declared type of `s` at `depth` below the root of the type being declared: the part
/// of that root's [`schema_decl_type`] that `s` has (`s` not being a resource root whose
/// `apiVersion`, `kind` or `metadata` the caller looks into).
pub fn decl_type_at(s: &Structural, is_resource_root: bool, depth: u32) -> Option<DeclType> {
    decl(s, is_resource_root, depth)
}

/// The outer shape of the type [`decl_type_at`] gives, without building it: `None` when it
/// gives none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclShape {
    /// No declared type.
    None,
    /// A scalar or `dyn`.
    Simple,
    /// `list(elem)`: the element is the type of `items`.
    List,
    /// `map(string, elem)`: the element is the type of the `additionalProperties` schema.
    Map,
    /// An object type: its fields are the properties that have types, by escaped name.
    Object,
}

/// [`DeclShape`] of [`decl_type_at`]`(s, _, depth)` (`WithTypeAndObjectMeta` only adds
/// properties, so the shape does not depend on whether `s` is a resource root).
pub fn decl_shape_at(s: &Structural, depth: u32) -> DeclShape {
    if depth > MAX_DEPTH {
        return DeclShape::None;
    }
    if s.extensions.x_int_or_string {
        return DeclShape::Simple;
    }
    let has = |c: &Structural| decl_shape_at(c, depth + 1) != DeclShape::None;
    match s.generic.type_.as_str() {
        "array" => match s.items.as_deref() {
            Some(items) if has(items) => DeclShape::List,
            _ => DeclShape::None,
        },
        "object" => match s
            .additional_properties
            .as_ref()
            .and_then(|a| a.structural.as_deref())
        {
            Some(ap) if has(ap) => DeclShape::Map,
            Some(_) => DeclShape::None,
            None => DeclShape::Object,
        },
        "string" | "boolean" | "number" | "integer" => DeclShape::Simple,
        _ => DeclShape::None,
    }
}

fn zero_if_negative(v: i64) -> i64 {
    v.max(0)
}

/// `estimateMaxStringLengthPerRequest` for a string schema of this format.
fn max_string_length_per_request(format: &str) -> i64 {
    match format {
        "duration" => MAX_DURATION_SIZE_JSON,
        "date" => JSON_DATE_SIZE,
        "date-time" => MAX_DATETIME_SIZE_JSON,
        _ => MAX_REQUEST_SIZE_BYTES - 2,
    }
}

fn decl(s: &Structural, is_resource_root: bool, depth: u32) -> Option<DeclType> {
    if depth > MAX_DEPTH {
        return None;
    }
    let vv = s.value_validation.as_ref();
    let max_length = vv.and_then(|v| v.max_length);
    if s.extensions.x_int_or_string {
        // `estimateMaxElementsFromMaxLength`, or the largest string of a request.
        let max = match max_length {
            Some(m) => zero_if_negative(m).saturating_mul(4),
            None => MAX_REQUEST_SIZE_BYTES - 2,
        };
        return Some(DeclType::simple(Type::Dyn, max, 1));
    }
    let s = if is_resource_root {
        with_type_and_object_meta(s)
    } else {
        std::borrow::Cow::Borrowed(s)
    };
    let vv = s.value_validation.as_ref();
    match s.generic.type_.as_str() {
        "array" => {
            let items = s.items.as_deref()?;
            let t = decl(items, items.extensions.x_embedded_resource, depth + 1)?;
            let max = match vv.and_then(|v| v.max_items) {
                Some(m) => zero_if_negative(m),
                // `estimateMaxArrayItemsFromMinSize`.
                None => (MAX_REQUEST_SIZE_BYTES - 2) / t.min_serialized_size.saturating_add(1),
            };
            Some(DeclType {
                kind: DeclKind::List(Arc::new(t)),
                max_elements: max,
                min_serialized_size: 2,
            })
        }
        "object" => {
            if let Some(ap) = s
                .additional_properties
                .as_ref()
                .and_then(|a| a.structural.as_deref())
            {
                let t = decl(ap, ap.extensions.x_embedded_resource, depth + 1)?;
                let max = match vv.and_then(|v| v.max_properties) {
                    Some(m) => zero_if_negative(m),
                    // `estimateMaxAdditionalPropertiesFromMinSize`.
                    None => (MAX_REQUEST_SIZE_BYTES - 2) / t.min_serialized_size.saturating_add(6),
                };
                return Some(DeclType {
                    kind: DeclKind::Map(Arc::new(t)),
                    max_elements: max,
                    min_serialized_size: 2,
                });
            }
            let required = vv.map(|v| v.required.as_slice()).unwrap_or_default();
            let mut fields = BTreeMap::new();
            // `{}`, plus each required property without a default.
            let mut min_size: i64 = 2;
            for (name, prop) in &s.properties {
                let Some(t) = decl(prop, prop.extensions.x_embedded_resource, depth + 1) else {
                    continue;
                };
                let has_default = prop.generic.default.as_ref().is_some_and(|d| !d.is_null());
                if required.contains(name) && !has_default {
                    min_size = min_size
                        .saturating_add(name.len() as i64)
                        .saturating_add(t.min_serialized_size)
                        .saturating_add(4);
                }
                if let Some(n) = escape(name) {
                    fields.insert(n, t);
                }
            }
            Some(DeclType {
                kind: DeclKind::Object(DeclFields::from(fields)),
                max_elements: 0,
                min_serialized_size: min_size,
            })
        }
        "string" => {
            let format = vv.map(|v| v.format.as_str()).unwrap_or("");
            Some(match format {
                "byte" => DeclType::simple(
                    Type::Bytes,
                    match max_length {
                        Some(m) => zero_if_negative(m),
                        None => max_string_length_per_request(format),
                    },
                    MIN_STRING_SIZE,
                ),
                "duration" => DeclType::simple(
                    Type::Duration,
                    max_string_length_per_request(format),
                    MIN_DURATION_SIZE_JSON,
                ),
                "date" => DeclType::simple(
                    Type::Timestamp,
                    max_string_length_per_request(format),
                    JSON_DATE_SIZE,
                ),
                "date-time" => DeclType::simple(
                    Type::Timestamp,
                    max_string_length_per_request(format),
                    MIN_DATETIME_SIZE_JSON,
                ),
                _ => {
                    let enum_ = vv.map(|v| v.enum_.as_slice()).unwrap_or_default();
                    let max = match max_length {
                        // `estimateMaxElementsFromMaxLength`: code points, up to 4 bytes each.
                        Some(m) => zero_if_negative(m).saturating_mul(4),
                        // `estimateMaxStringEnumLength`: the longest value, in bytes.
                        None if !enum_.is_empty() => enum_
                            .iter()
                            .filter_map(|e| e.as_str())
                            .map(|e| e.len() as i64)
                            .max()
                            .unwrap_or(0),
                        None => max_string_length_per_request(format),
                    };
                    DeclType::simple(Type::String, max, MIN_STRING_SIZE)
                }
            })
        }
        "boolean" => Some(DeclType::simple(Type::Bool, 0, MIN_BOOL_SIZE)),
        "number" => Some(DeclType::simple(Type::Double, 0, MIN_NUMBER_SIZE)),
        "integer" => Some(DeclType::simple(Type::Int, 0, MIN_NUMBER_SIZE)),
        _ => None,
    }
}

/// The apiextensions `sizeEstimator` over a rule's `self` type: a node's path without its
/// first element (whatever variable it names) is followed through the declared type
/// (`@items` and `@values` to the element type, `@keys` to the key type, a name to that
/// field), and the size is `[0, MaxElements]` of what it reaches.
#[derive(Clone, Copy, Debug)]
pub struct DeclSizeEstimator<'a> {
    root: &'a DeclType,
}

impl<'a> DeclSizeEstimator<'a> {
    /// The estimator for rules whose `self` has type `root`.
    pub fn new(root: &'a DeclType) -> DeclSizeEstimator<'a> {
        DeclSizeEstimator { root }
    }
}

impl CostEstimator for DeclSizeEstimator<'_> {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        let path = node.path();
        if path.is_empty() {
            return None;
        }
        let mut cur = self.root;
        for name in path.iter().skip(1) {
            cur = match name.as_str() {
                "@items" | "@values" => cur.elem()?,
                "@keys" => cur.key_type()?,
                f => cur.fields()?.get(f)?,
            };
        }
        // Go converts the int64 with `uint64(...)`.
        Some(SizeEstimate::new(0, cur.max_elements as u64))
    }
}

/// The type information of a node as `CELSchemaContext.TypeInfo` finds it: the scope root's
/// declared type followed along `steps` (the accessors), `None` when a step finds nothing.
pub fn follow_ref<'s>(
    scope_root: &'s Structural,
    decl: &DeclType,
    steps: &[CelStep],
) -> Option<(&'s Structural, DeclType)> {
    let mut schema = scope_root;
    let mut t = decl;
    for step in steps {
        match step {
            CelStep::Property(name) => {
                let prop = schema.properties.get(name)?;
                let DeclKind::Object(fields) = &t.kind else {
                    return None;
                };
                t = fields.get(&escape(name)?)?;
                schema = prop;
            }
            CelStep::Items => {
                let items = schema.items.as_deref()?;
                let DeclKind::List(e) = &t.kind else {
                    return None;
                };
                t = e;
                schema = items;
            }
            CelStep::AdditionalProperties => {
                let ap = schema
                    .additional_properties
                    .as_ref()
                    .and_then(|a| a.structural.as_deref())?;
                let DeclKind::Map(e) = &t.kind else {
                    return None;
                };
                t = e;
                schema = ap;
            }
        }
    }
    Some((schema, t.clone()))
}

impl DeclType {
    /// The CEL type with object types named from `name` down (`MaybeAssignTypeName`, then
    /// `CelType`).
    pub fn to_cel(&self, name: &str) -> Type {
        self.named(name, 0)
    }

    fn named(&self, name: &str, depth: u32) -> Type {
        if depth > MAX_DEPTH {
            return Type::Dyn;
        }
        match &self.kind {
            DeclKind::Simple(t) => t.clone(),
            DeclKind::List(e) => Type::list(e.named(&format!("{name}.@idx"), depth + 1)),
            DeclKind::Map(e) => {
                Type::map(Type::String, e.named(&format!("{name}.@elem"), depth + 1))
            }
            DeclKind::Object(fields) => Type::object(ObjectType::new(
                name,
                fields
                    .iter()
                    .map(|(f, t)| (f.clone(), t.named(&format!("{name}.{f}"), depth + 1)))
                    .collect(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape("foo").as_deref(), Some("foo"));
        assert_eq!(
            escape("a.b-c/d").as_deref(),
            Some("a__dot__b__dash__c__slash__d")
        );
        assert_eq!(escape("a__b").as_deref(), Some("a__underscores__b"));
        assert_eq!(escape("namespace").as_deref(), Some("__namespace__"));
        assert_eq!(escape("self").as_deref(), Some("self"));
        assert_eq!(escape("1a"), None);
        assert_eq!(escape(""), None);
        assert_eq!(escape("a b"), None);
        assert_eq!(escape("a@b"), None);
    }

    fn decl_of(schema: serde_json::Value, root: bool) -> DeclType {
        let (props, _) = crate::schema::props::JsonSchemaProps::from_json(&schema);
        let ss = Structural::from_props(&props).unwrap();
        schema_decl_type(&ss, root).unwrap()
    }

    #[test]
    fn shapes_match_the_types() {
        use serde_json::json;
        let shape_of = |d: Option<&DeclType>| match d.map(|d| &d.kind) {
            None => DeclShape::None,
            Some(DeclKind::Simple(_)) => DeclShape::Simple,
            Some(DeclKind::List(_)) => DeclShape::List,
            Some(DeclKind::Map(_)) => DeclShape::Map,
            Some(DeclKind::Object(_)) => DeclShape::Object,
        };
        let cases = [
            json!({"type": "string", "format": "byte"}),
            json!({"type": "integer"}),
            json!({"x-kubernetes-int-or-string": true}),
            json!({"type": "array", "items": {"type": "string"}}),
            json!({"type": "array", "items": {"type": "array", "items": {}}}),
            json!({"type": "array"}),
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            json!({"type": "object", "additionalProperties": {"type": "array"}}),
            json!({"type": "object", "additionalProperties": true}),
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            json!({"type": "object", "x-kubernetes-embedded-resource": true}),
            json!({}),
        ];
        for case in cases {
            let (props, _) = crate::schema::props::JsonSchemaProps::from_json(&case);
            let ss = Structural::from_props(&props).unwrap();
            for root in [false, true] {
                for depth in [0, 3] {
                    assert_eq!(
                        decl_shape_at(&ss, depth),
                        shape_of(decl_type_at(&ss, root, depth).as_ref()),
                        "{case} root {root} depth {depth}"
                    );
                }
            }
            // Beyond the depth bound there is no type.
            assert_eq!(decl_shape_at(&ss, MAX_DEPTH + 1), DeclShape::None);
            assert_eq!(decl_type_at(&ss, false, MAX_DEPTH + 1), None);
        }
    }

    #[test]
    fn max_elements_and_min_sizes() {
        let bounds = |d: &DeclType| (d.max_elements, d.min_serialized_size);
        let cases = [
            (serde_json::json!({"type": "string"}), (3_145_726, 2)),
            (
                serde_json::json!({"type": "string", "maxLength": 10}),
                (40, 2),
            ),
            (
                serde_json::json!({"type": "string", "maxLength": -1}),
                (0, 2),
            ),
            (
                serde_json::json!({"type": "string", "enum": ["a", "ééé"]}),
                (6, 2),
            ),
            (
                serde_json::json!({"type": "string", "format": "byte", "maxLength": 10}),
                (10, 2),
            ),
            (
                serde_json::json!({"type": "string", "format": "duration", "maxLength": 10}),
                (32, 3),
            ),
            (
                serde_json::json!({"type": "string", "format": "date"}),
                (12, 12),
            ),
            (
                serde_json::json!({"type": "string", "format": "date-time"}),
                (32, 21),
            ),
            (
                serde_json::json!({"x-kubernetes-int-or-string": true}),
                (3_145_726, 1),
            ),
            (
                serde_json::json!({"x-kubernetes-int-or-string": true, "maxLength": 5}),
                (20, 1),
            ),
            (serde_json::json!({"type": "integer"}), (0, 1)),
            (serde_json::json!({"type": "boolean"}), (0, 4)),
            (
                serde_json::json!({"type": "array", "items": {"type": "integer"}}),
                (1_572_863, 2),
            ),
            (
                serde_json::json!({"type": "array", "maxItems": 7, "items": {"type": "integer"}}),
                (7, 2),
            ),
            (
                serde_json::json!({"type": "object", "additionalProperties": {"type": "number"}}),
                (449_389, 2),
            ),
            (
                serde_json::json!({"type": "object", "required": ["ab", "c"], "properties": {
                    "ab": {"type": "string"}, "c": {"type": "integer", "default": 1},
                    "d": {"type": "boolean"}}}),
                (0, 2 + 2 + 2 + 4),
            ),
        ];
        for (schema, want) in cases {
            assert_eq!(bounds(&decl_of(schema.clone(), false)), want, "{schema}");
        }
        // The widened resource root: metadata.name is capped at 253 code points.
        let root = decl_of(serde_json::json!({"type": "object"}), true);
        let meta = root.fields().unwrap().get("metadata").unwrap();
        let name = meta.fields().unwrap().get("name").unwrap();
        let gen = meta.fields().unwrap().get("generateName").unwrap();
        assert_eq!((name.max_elements, gen.max_elements), (1012, 1008));
        assert_eq!(max_cardinality(2), 1_048_576);
    }
}
