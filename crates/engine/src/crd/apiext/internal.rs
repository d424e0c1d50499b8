//! The internal `apiextensions.CustomResourceDefinition` (the hub type every validation runs
//! on), how it is read from a `apiextensions.k8s.io/v1` CRD (decoding, v1 defaulting, the
//! v1 → internal conversion) or from the internal JSON shape the conformance data uses, and the
//! Go JSON form of its parts that error messages print.
//!
//! The v1 → internal conversion (`pkg/apis/apiextensions/v1/conversion.go`) copies
//! `versions[0].name` to `spec.version`, and when every version has the same schema,
//! subresources, printer columns or selectable fields, moves that value to the top level
//! (`spec.validation`, `spec.subresources`, ...) and clears it in the versions. That is why
//! the server reports a single-version CRD's schema errors under `spec.validation`.

use std::collections::BTreeMap;

use serde_json::{Map, Value as Json};

use crate::object::objectmeta::time::parse_rfc3339;
pub use crate::object::objectmeta::{ObjectMeta, OwnerReference, Time};
use crate::schema::props::{
    go_json_kind, JsonSchemaProps, SchemaOrArray, SchemaOrBool, SchemaOrStringArray, ValidationRule,
};
use crd_studio_gostd::json::Obj;

/// A CustomResourceDefinition in the server's internal form.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InternalCrd {
    /// `metadata`.
    pub metadata: ObjectMeta,
    /// `spec`.
    pub spec: CrdSpec,
    /// `status`.
    pub status: CrdStatus,
}

/// `CustomResourceDefinitionSpec` (internal).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrdSpec {
    /// `group`.
    pub group: String,
    /// `version`: the first version's name.
    pub version: String,
    /// `names`.
    pub names: Names,
    /// `scope`.
    pub scope: String,
    /// `validation`: the schema shared by all versions.
    pub validation: Option<CustomResourceValidation>,
    /// `subresources` shared by all versions.
    pub subresources: Option<Subresources>,
    /// `versions`.
    pub versions: Vec<CrdVersion>,
    /// Whether `versions` was given as a list (Go's non-nil slice: empty, it prints `[]` in
    /// an `Invalid value`, where a missing or `null` one prints `null`).
    pub versions_set: bool,
    /// `additionalPrinterColumns` shared by all versions.
    pub additional_printer_columns: Vec<ColumnDefinition>,
    /// `selectableFields` shared by all versions.
    pub selectable_fields: Vec<SelectableField>,
    /// `conversion`.
    pub conversion: Option<Conversion>,
    /// `preserveUnknownFields` (always set when read from v1).
    pub preserve_unknown_fields: Option<bool>,
}

/// `CustomResourceValidation`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CustomResourceValidation {
    /// `openAPIV3Schema`.
    pub open_api_v3_schema: Option<Box<JsonSchemaProps>>,
}

/// `CustomResourceSubresources`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Subresources {
    /// Whether `status` is set (the status subresource is an empty struct).
    pub status: bool,
    /// `scale`.
    pub scale: Option<Scale>,
}

/// `CustomResourceSubresourceScale`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scale {
    /// `specReplicasPath`.
    pub spec_replicas_path: String,
    /// `statusReplicasPath`.
    pub status_replicas_path: String,
    /// `labelSelectorPath`.
    pub label_selector_path: Option<String>,
}

/// `CustomResourceDefinitionVersion` (internal).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrdVersion {
    /// `name`.
    pub name: String,
    /// `served`.
    pub served: bool,
    /// `storage`.
    pub storage: bool,
    /// `deprecated`.
    pub deprecated: bool,
    /// `deprecationWarning`.
    pub deprecation_warning: Option<String>,
    /// `schema`.
    pub schema: Option<CustomResourceValidation>,
    /// `subresources`.
    pub subresources: Option<Subresources>,
    /// `additionalPrinterColumns`.
    pub additional_printer_columns: Vec<ColumnDefinition>,
    /// Whether `additionalPrinterColumns` was given as a list (see [`CrdSpec::versions_set`]).
    pub additional_printer_columns_set: bool,
    /// `selectableFields`.
    pub selectable_fields: Vec<SelectableField>,
    /// Whether `selectableFields` was given as a list (see [`CrdSpec::versions_set`]).
    pub selectable_fields_set: bool,
}

/// `CustomResourceColumnDefinition`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ColumnDefinition {
    /// `name`.
    pub name: String,
    /// `type`.
    pub type_: String,
    /// `format`.
    pub format: String,
    /// `description`.
    pub description: String,
    /// `priority`.
    pub priority: i64,
    /// `jsonPath` (internal `JSONPath`).
    pub json_path: String,
}

/// `SelectableField`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelectableField {
    /// `jsonPath`.
    pub json_path: String,
}

/// `CustomResourceDefinitionNames`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Names {
    /// `plural`.
    pub plural: String,
    /// `singular`.
    pub singular: String,
    /// `shortNames`.
    pub short_names: Vec<String>,
    /// `kind`.
    pub kind: String,
    /// `listKind`.
    pub list_kind: String,
    /// `categories`.
    pub categories: Vec<String>,
}

/// `CustomResourceConversion` (internal: the webhook fields are flattened).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conversion {
    /// `strategy`.
    pub strategy: String,
    /// `webhookClientConfig` (v1: `webhook.clientConfig`).
    pub webhook_client_config: Option<WebhookClientConfig>,
    /// `conversionReviewVersions` (v1: `webhook.conversionReviewVersions`).
    pub conversion_review_versions: Vec<String>,
}

/// `WebhookClientConfig`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WebhookClientConfig {
    /// `url`.
    pub url: Option<String>,
    /// `service`.
    pub service: Option<ServiceReference>,
    /// `caBundle` (decoded bytes).
    pub ca_bundle: Vec<u8>,
}

/// `ServiceReference` (internal: `port` is not a pointer; v1 defaults it to 443).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServiceReference {
    /// `namespace`.
    pub namespace: String,
    /// `name`.
    pub name: String,
    /// `path`.
    pub path: Option<String>,
    /// `port`.
    pub port: i64,
}

/// `CustomResourceDefinitionStatus`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrdStatus {
    /// `conditions`.
    pub conditions: Vec<Condition>,
    /// `acceptedNames`.
    pub accepted_names: Names,
    /// `storedVersions`.
    pub stored_versions: Vec<String>,
}

/// `CustomResourceDefinitionCondition` (the fields validation reads).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Condition {
    /// `type`.
    pub type_: String,
    /// `status`.
    pub status: String,
    /// `reason`.
    pub reason: String,
    /// `message`.
    pub message: String,
}

impl InternalCrd {
    /// `apiextensions.IsCRDConditionTrue`.
    pub fn condition_true(&self, condition: &str) -> bool {
        self.status
            .conditions
            .iter()
            .any(|c| c.type_ == condition && c.status == "True")
    }

    /// `apiextensions.IsStoredVersion`.
    pub fn is_stored_version(&self, version: &str) -> bool {
        self.status.stored_versions.iter().any(|v| v == version)
    }

    /// `apiextensions.GetSchemaForVersion`: the top-level schema when no version has its
    /// own (whatever the version), else the version's. `None` where Go returns an error (both
    /// kinds of schema, or the version does not exist).
    pub fn schema_for_version(&self, version: &str) -> Option<Option<&CustomResourceValidation>> {
        if !self.spec.versions.iter().any(|v| v.schema.is_some()) {
            return Some(self.spec.validation.as_ref());
        }
        if self.spec.validation.is_some() {
            return None;
        }
        let v = self.spec.versions.iter().find(|v| v.name == version)?;
        Some(v.schema.as_ref())
    }
}

impl CrdSpec {
    /// Every schema of the spec: the top-level one, then each version's.
    pub fn schemas(&self) -> impl Iterator<Item = &JsonSchemaProps> {
        self.validation
            .iter()
            .chain(self.versions.iter().filter_map(|v| v.schema.as_ref()))
            .filter_map(|v| v.open_api_v3_schema.as_deref())
    }
}

// ------------------------------------------------------------------------------------------
// Go JSON of internal values (printed as bad values)
// ------------------------------------------------------------------------------------------

/// The Go JSON of an internal schema (`apiextensions.JSONSchemaProps`, Go field names).
pub fn schema_json(s: &JsonSchemaProps) -> String {
    schema_json_depth(s, 0)
}

fn schema_json_depth(s: &JsonSchemaProps, depth: usize) -> String {
    if depth > crate::schema::props::MAX_SCHEMA_DEPTH {
        return "null".to_owned();
    }
    let sub = |x: &JsonSchemaProps| schema_json_depth(x, depth + 1);
    let list = |xs: &[JsonSchemaProps]| crd_studio_gostd::json::list(xs.iter().map(sub));
    let map = |m: &BTreeMap<String, JsonSchemaProps>| {
        if m.is_empty() {
            "null".to_owned()
        } else {
            let items: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}:{}", crd_studio_gostd::json::string(k), sub(v)))
                .collect();
            format!("{{{}}}", items.join(","))
        }
    };
    // A keyword given empty: Go's non-nil empty slice or map (`[]`, `{}`), not `null`.
    let given = |keyword: &str, json: String| {
        if json == "null" && s.given_empty.has(keyword) {
            let map = matches!(
                keyword,
                "properties" | "patternProperties" | "dependencies" | "definitions"
            );
            if map { "{}" } else { "[]" }.to_owned()
        } else {
            json
        }
    };
    let or_bool = |b: &Option<SchemaOrBool>| match b {
        None => "null".to_owned(),
        Some(b) => Obj::new()
            .bool("Allows", b.allows)
            .raw(
                "Schema",
                b.schema
                    .as_deref()
                    .map(sub)
                    .unwrap_or_else(|| "null".into()),
            )
            .finish(),
    };
    let items = match &s.items {
        None => "null".to_owned(),
        Some(SchemaOrArray::Schema(x)) => Obj::new()
            .raw("Schema", sub(x))
            .raw("JSONSchemas", "null")
            .finish(),
        Some(SchemaOrArray::Array(xs)) => Obj::new()
            .raw("Schema", "null")
            .raw("JSONSchemas", list(xs))
            .finish(),
    };
    let dependencies = if s.dependencies.is_empty() {
        "null".to_owned()
    } else {
        let items: Vec<String> = s
            .dependencies
            .iter()
            .map(|(k, d)| {
                let v = match d {
                    SchemaOrStringArray::Schema(x) => Obj::new()
                        .raw("Schema", sub(x))
                        .raw("Property", "null")
                        .finish(),
                    SchemaOrStringArray::Property(p) => Obj::new()
                        .raw("Schema", "null")
                        .raw("Property", crd_studio_gostd::json::strings(p))
                        .finish(),
                };
                format!("{}:{v}", crd_studio_gostd::json::string(k))
            })
            .collect();
        format!("{{{}}}", items.join(","))
    };
    let json_opt = |v: &Option<Json>| {
        v.as_ref()
            .map(crd_studio_gostd::json::marshal)
            .unwrap_or("null".into())
    };
    Obj::new()
        .str("ID", &s.id)
        .str("Schema", &s.schema)
        .opt_str("Ref", s.ref_.as_deref())
        .str("Description", &s.description)
        .str("Type", &s.type_)
        .bool("Nullable", s.nullable)
        .str("Format", &s.format)
        .str("Title", &s.title)
        .raw("Default", json_opt(&s.default))
        .opt_float("Maximum", s.maximum)
        .bool("ExclusiveMaximum", s.exclusive_maximum)
        .opt_float("Minimum", s.minimum)
        .bool("ExclusiveMinimum", s.exclusive_minimum)
        .opt_int("MaxLength", s.max_length)
        .opt_int("MinLength", s.min_length)
        .str("Pattern", &s.pattern)
        .opt_int("MaxItems", s.max_items)
        .opt_int("MinItems", s.min_items)
        .bool("UniqueItems", s.unique_items)
        .opt_float("MultipleOf", s.multiple_of)
        .raw(
            "Enum",
            given(
                "enum",
                crd_studio_gostd::json::list(s.enum_.iter().map(crd_studio_gostd::json::marshal)),
            ),
        )
        .opt_int("MaxProperties", s.max_properties)
        .opt_int("MinProperties", s.min_properties)
        .raw(
            "Required",
            given("required", crd_studio_gostd::json::strings(&s.required)),
        )
        .raw("Items", items)
        .raw("AllOf", given("allOf", list(&s.all_of)))
        .raw("OneOf", given("oneOf", list(&s.one_of)))
        .raw("AnyOf", given("anyOf", list(&s.any_of)))
        .raw(
            "Not",
            s.not.as_deref().map(sub).unwrap_or_else(|| "null".into()),
        )
        .raw("Properties", given("properties", map(&s.properties)))
        .raw("AdditionalProperties", or_bool(&s.additional_properties))
        .raw(
            "PatternProperties",
            given("patternProperties", map(&s.pattern_properties)),
        )
        .raw("Dependencies", given("dependencies", dependencies))
        .raw("AdditionalItems", or_bool(&s.additional_items))
        .raw("Definitions", given("definitions", map(&s.definitions)))
        .raw(
            "ExternalDocs",
            s.external_docs
                .as_ref()
                .map(|d| {
                    Obj::new()
                        .str("Description", &d.description)
                        .str("URL", &d.url)
                        .finish()
                })
                .unwrap_or_else(|| "null".into()),
        )
        .raw("Example", json_opt(&s.example))
        .opt_bool("XPreserveUnknownFields", s.x_preserve_unknown_fields)
        .bool("XEmbeddedResource", s.x_embedded_resource)
        .bool("XIntOrString", s.x_int_or_string)
        .raw(
            "XListMapKeys",
            given(
                "x-kubernetes-list-map-keys",
                crd_studio_gostd::json::strings(&s.x_list_map_keys),
            ),
        )
        .opt_str("XListType", s.x_list_type.as_deref())
        .opt_str("XMapType", s.x_map_type.as_deref())
        .raw(
            "XValidations",
            empty_or(
                s.has_x_validations,
                crd_studio_gostd::json::list(s.x_validations.iter().map(rule_json)),
            ),
        )
        .finish()
}

/// The Go JSON of a `ValidationRule`.
pub fn rule_json(r: &ValidationRule) -> String {
    Obj::new()
        .str("Rule", &r.rule)
        .str("Message", &r.message)
        .str("MessageExpression", &r.message_expression)
        .opt_str("Reason", r.reason.as_deref())
        .str("FieldPath", &r.field_path)
        .opt_bool("OptionalOldSelf", r.optional_old_self)
        .finish()
}

/// The Go JSON of `items` (`JSONSchemaPropsOrArray`).
pub fn items_json(items: &SchemaOrArray) -> String {
    match items {
        SchemaOrArray::Schema(x) => Obj::new()
            .raw("Schema", schema_json(x))
            .raw("JSONSchemas", "null")
            .finish(),
        SchemaOrArray::Array(xs) => Obj::new()
            .raw("Schema", "null")
            .raw(
                "JSONSchemas",
                crd_studio_gostd::json::list(xs.iter().map(schema_json)),
            )
            .finish(),
    }
}

fn validation_json(v: &Option<CustomResourceValidation>) -> String {
    match v {
        None => "null".to_owned(),
        Some(v) => Obj::new()
            .raw(
                "OpenAPIV3Schema",
                v.open_api_v3_schema
                    .as_deref()
                    .map(schema_json)
                    .unwrap_or_else(|| "null".into()),
            )
            .finish(),
    }
}

fn subresources_json(s: &Option<Subresources>) -> String {
    match s {
        None => "null".to_owned(),
        Some(s) => Obj::new()
            .raw("Status", if s.status { "{}" } else { "null" })
            .raw(
                "Scale",
                s.scale
                    .as_ref()
                    .map(|sc| {
                        Obj::new()
                            .str("SpecReplicasPath", &sc.spec_replicas_path)
                            .str("StatusReplicasPath", &sc.status_replicas_path)
                            .opt_str("LabelSelectorPath", sc.label_selector_path.as_deref())
                            .finish()
                    })
                    .unwrap_or_else(|| "null".into()),
            )
            .finish(),
    }
}

fn column_json(c: &ColumnDefinition) -> String {
    Obj::new()
        .str("Name", &c.name)
        .str("Type", &c.type_)
        .str("Format", &c.format)
        .str("Description", &c.description)
        .int("Priority", c.priority)
        .str("JSONPath", &c.json_path)
        .finish()
}

/// The Go JSON of `spec.versions` (`[]apiextensions.CustomResourceDefinitionVersion`).
pub fn versions_json(versions: &[CrdVersion]) -> String {
    crd_studio_gostd::json::list(versions.iter().map(version_json))
}

/// Go's `json.Marshal` of `spec.versions` as validation holds it (`field.Invalid`'s value,
/// apimachinery `field.Error.ErrorBody`): a nil slice is `null`, an empty one `[]`
/// (`autoConvert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec`
/// keeps the decoded slice as it is).
pub fn spec_versions_json(spec: &CrdSpec) -> String {
    empty_or(spec.versions_set, versions_json(&spec.versions))
}

/// `[]` for an empty but non-nil slice, else `json` (which is `null` when empty).
fn empty_or(set: bool, json: String) -> String {
    if set && json == "null" {
        "[]".to_owned()
    } else {
        json
    }
}

fn version_json(v: &CrdVersion) -> String {
    Obj::new()
        .str("Name", &v.name)
        .bool("Served", v.served)
        .bool("Storage", v.storage)
        .bool("Deprecated", v.deprecated)
        .opt_str("DeprecationWarning", v.deprecation_warning.as_deref())
        .raw("Schema", validation_json(&v.schema))
        .raw("Subresources", subresources_json(&v.subresources))
        .raw(
            "AdditionalPrinterColumns",
            empty_or(
                v.additional_printer_columns_set,
                crd_studio_gostd::json::list(v.additional_printer_columns.iter().map(column_json)),
            ),
        )
        .raw(
            "SelectableFields",
            empty_or(
                v.selectable_fields_set,
                crd_studio_gostd::json::list(
                    v.selectable_fields
                        .iter()
                        .map(|f| Obj::new().str("JSONPath", &f.json_path).finish()),
                ),
            ),
        )
        .finish()
}

// ------------------------------------------------------------------------------------------
// Reading
// ------------------------------------------------------------------------------------------

/// Whether `key` holds a JSON array: Go's decoder makes a non-nil slice of it, even empty.
fn is_list(m: &Map<String, Json>, key: &str) -> bool {
    matches!(m.get(key), Some(Json::Array(_)))
}

/// A problem found while decoding a CRD: what the server's decoder would refuse (or, for an
/// unknown field, warn about or refuse depending on field validation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeProblem {
    /// The JSON path of the value (`spec.versions[0].served`).
    pub path: String,
    /// The decoder's message.
    pub message: String,
    /// `true` for an unknown field (strict decoding), `false` for a value of the wrong type.
    pub unknown_field: bool,
}

/// Which JSON shape is being read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `apiextensions.k8s.io/v1`.
    V1,
    /// The internal type with v1beta1-style names (the conformance data).
    Internal,
}

struct Reader {
    shape: Shape,
    problems: Vec<DecodeProblem>,
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The path without list indexes, as Go's decoder names fields.
fn go_field_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => in_index = true,
            ']' => in_index = false,
            c if !in_index => out.push(c),
            _ => {}
        }
    }
    out
}

impl Reader {
    fn type_error(&mut self, path: &str, go_struct: &str, value: &Json, go_type: &str) {
        let kind = match value {
            Json::Number(n) if go_type.starts_with("int") || go_type.starts_with("uint") => {
                format!("number {n}")
            }
            other => go_json_kind(other).to_owned(),
        };
        self.problems.push(DecodeProblem {
            path: path.to_owned(),
            message: format!(
                "json: cannot unmarshal {kind} into Go struct field {go_struct}.{} of type {go_type}",
                go_field_path(path)
            ),
            unknown_field: false,
        });
    }

    fn unknown(&mut self, path: &str) {
        self.problems.push(DecodeProblem {
            path: path.to_owned(),
            message: format!("unknown field {}", crd_studio_gostd::strconv::quote(path)),
            unknown_field: true,
        });
    }

    /// The object at `value`, or `None` (reporting a type error unless null).
    fn object<'j>(
        &mut self,
        value: Option<&'j Json>,
        path: &str,
        go_struct: &str,
        go_type: &str,
    ) -> Option<&'j Map<String, Json>> {
        match value? {
            Json::Object(m) => Some(m),
            Json::Null => None,
            other => {
                self.type_error(path, go_struct, other, go_type);
                None
            }
        }
    }

    fn check_keys(&mut self, m: &Map<String, Json>, path: &str, known: &[&str]) {
        for k in m.keys() {
            if !known.contains(&k.as_str()) {
                self.unknown(&join(path, k));
            }
        }
    }

    fn string(&mut self, m: &Map<String, Json>, key: &str, path: &str, go_struct: &str) -> String {
        self.opt_string(m, key, path, go_struct).unwrap_or_default()
    }

    fn opt_string(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
    ) -> Option<String> {
        match m.get(key)? {
            Json::String(s) => Some(s.clone()),
            Json::Null => None,
            other => {
                self.type_error(&join(path, key), go_struct, other, "string");
                None
            }
        }
    }

    fn boolean(&mut self, m: &Map<String, Json>, key: &str, path: &str, go_struct: &str) -> bool {
        self.opt_bool(m, key, path, go_struct).unwrap_or(false)
    }

    fn opt_bool(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
    ) -> Option<bool> {
        match m.get(key)? {
            Json::Bool(b) => Some(*b),
            Json::Null => None,
            other => {
                self.type_error(&join(path, key), go_struct, other, "bool");
                None
            }
        }
    }

    fn int(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
        go_type: &str,
    ) -> Option<i64> {
        let v = m.get(key)?;
        let (lo, hi) = if go_type == "int32" {
            (i32::MIN as i64, i32::MAX as i64)
        } else {
            (i64::MIN, i64::MAX)
        };
        match v {
            Json::Number(n) => match n.as_i64() {
                Some(i) if (lo..=hi).contains(&i) => Some(i),
                _ => {
                    self.type_error(&join(path, key), go_struct, v, go_type);
                    None
                }
            },
            Json::Null => None,
            other => {
                self.type_error(&join(path, key), go_struct, other, go_type);
                None
            }
        }
    }

    fn strings(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
    ) -> Vec<String> {
        match m.get(key) {
            Some(Json::Array(items)) => {
                let p = join(path, key);
                items
                    .iter()
                    .filter_map(|i| match i {
                        Json::String(s) => Some(s.clone()),
                        // A null element decodes to the zero value.
                        Json::Null => Some(String::new()),
                        other => {
                            self.type_error(&p, go_struct, other, "string");
                            None
                        }
                    })
                    .collect()
            }
            Some(Json::Null) | None => Vec::new(),
            Some(other) => {
                self.type_error(&join(path, key), go_struct, other, "[]string");
                Vec::new()
            }
        }
    }

    fn string_map(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
    ) -> BTreeMap<String, String> {
        match m.get(key) {
            Some(Json::Object(items)) => {
                let p = join(path, key);
                items
                    .iter()
                    .filter_map(|(k, v)| match v {
                        Json::String(s) => Some((k.clone(), s.clone())),
                        Json::Null => Some((k.clone(), String::new())),
                        other => {
                            self.type_error(&p, go_struct, other, "string");
                            None
                        }
                    })
                    .collect()
            }
            Some(Json::Null) | None => BTreeMap::new(),
            Some(other) => {
                self.type_error(&join(path, key), go_struct, other, "map[string]string");
                BTreeMap::new()
            }
        }
    }

    /// A list of objects, each read with `read`.
    fn list<T>(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
        go_elem: &str,
        mut read: impl FnMut(&mut Reader, &Map<String, Json>, &str) -> T,
    ) -> Vec<T> {
        let p = join(path, key);
        match m.get(key) {
            Some(Json::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let ip = format!("{p}[{i}]");
                    match item {
                        Json::Object(im) => out.push(read(self, im, &ip)),
                        Json::Null => out.push(read(self, &Map::new(), &ip)),
                        other => self.type_error(&p, go_struct, other, go_elem),
                    }
                }
                out
            }
            Some(Json::Null) | None => Vec::new(),
            Some(other) => {
                self.type_error(&p, go_struct, other, &format!("[]{go_elem}"));
                Vec::new()
            }
        }
    }

    fn metadata(&mut self, v: Option<&Json>) -> ObjectMeta {
        let path = "metadata";
        let Some(m) = self.object(v, path, "CustomResourceDefinition", "v1.ObjectMeta") else {
            return ObjectMeta::default();
        };
        let st = "ObjectMeta";
        self.check_keys(m, path, &crate::object::objectmeta::OBJECT_META_FIELDS);
        let owner_references = self.list(
            m,
            "ownerReferences",
            path,
            st,
            "v1.OwnerReference",
            |r, om, p| {
                let st = "OwnerReference";
                r.check_keys(
                    om,
                    p,
                    &[
                        "apiVersion",
                        "kind",
                        "name",
                        "uid",
                        "controller",
                        "blockOwnerDeletion",
                    ],
                );
                OwnerReference {
                    api_version: r.string(om, "apiVersion", p, st),
                    kind: r.string(om, "kind", p, st),
                    name: r.string(om, "name", p, st),
                    uid: r.string(om, "uid", p, st),
                    controller: r.opt_bool(om, "controller", p, st),
                    block_owner_deletion: r.opt_bool(om, "blockOwnerDeletion", p, st),
                }
            },
        );
        ObjectMeta {
            name: self.string(m, "name", path, st),
            generate_name: self.string(m, "generateName", path, st),
            namespace: self.string(m, "namespace", path, st),
            uid: self.string(m, "uid", path, st),
            resource_version: self.string(m, "resourceVersion", path, st),
            generation: self.int(m, "generation", path, st, "int64").unwrap_or(0),
            creation_timestamp: self
                .time(m, "creationTimestamp", path, st)
                .unwrap_or(Time::ZERO),
            deletion_timestamp: self.time(m, "deletionTimestamp", path, st),
            deletion_grace_period_seconds: self.int(
                m,
                "deletionGracePeriodSeconds",
                path,
                st,
                "int64",
            ),
            labels: self.string_map(m, "labels", path, st),
            annotations: self.string_map(m, "annotations", path, st),
            owner_references,
            finalizers: self.strings(m, "finalizers", path, st),
            ..ObjectMeta::default()
        }
    }

    /// A `metav1.Time` field: `time.Parse(time.RFC3339, s)` of a string (its error is the
    /// decode error, as `Time.UnmarshalJSON` returns it), `None` when absent or null.
    fn time(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
    ) -> Option<Time> {
        let text = self.opt_string(m, key, path, go_struct)?;
        match parse_rfc3339(&text) {
            Ok(t) => Some(t),
            Err(message) => {
                self.problems.push(DecodeProblem {
                    path: join(path, key),
                    message,
                    unknown_field: false,
                });
                None
            }
        }
    }

    fn names(&mut self, v: Option<&Json>, path: &str, go_struct: &str) -> Names {
        let Some(m) = self.object(v, path, go_struct, "v1.CustomResourceDefinitionNames") else {
            return Names::default();
        };
        let st = "CustomResourceDefinitionNames";
        self.check_keys(
            m,
            path,
            &[
                "plural",
                "singular",
                "shortNames",
                "kind",
                "listKind",
                "categories",
            ],
        );
        Names {
            plural: self.string(m, "plural", path, st),
            singular: self.string(m, "singular", path, st),
            short_names: self.strings(m, "shortNames", path, st),
            kind: self.string(m, "kind", path, st),
            list_kind: self.string(m, "listKind", path, st),
            categories: self.strings(m, "categories", path, st),
        }
    }

    fn validation(
        &mut self,
        v: Option<&Json>,
        path: &str,
        go_struct: &str,
    ) -> Option<CustomResourceValidation> {
        let m = self.object(v, path, go_struct, "v1.CustomResourceValidation")?;
        self.check_keys(m, path, &["openAPIV3Schema"]);
        let p = join(path, "openAPIV3Schema");
        let schema = match m.get("openAPIV3Schema") {
            None | Some(Json::Null) => None,
            Some(s @ Json::Object(_)) => {
                let (props, errors) = JsonSchemaProps::from_json(s);
                for e in errors {
                    let full = join(&p, &e.path);
                    self.problems.push(DecodeProblem {
                        message: if e.unknown_field {
                            format!("unknown field {}", crd_studio_gostd::strconv::quote(&full))
                        } else {
                            e.message
                        },
                        path: full,
                        unknown_field: e.unknown_field,
                    });
                }
                Some(Box::new(props))
            }
            Some(other) => {
                self.type_error(&p, "CustomResourceValidation", other, "v1.JSONSchemaProps");
                None
            }
        };
        Some(CustomResourceValidation {
            open_api_v3_schema: schema,
        })
    }

    fn subresources(
        &mut self,
        v: Option<&Json>,
        path: &str,
        go_struct: &str,
    ) -> Option<Subresources> {
        let m = self.object(v, path, go_struct, "v1.CustomResourceSubresources")?;
        let st = "CustomResourceSubresources";
        self.check_keys(m, path, &["status", "scale"]);
        let status = match m.get("status") {
            None | Some(Json::Null) => false,
            Some(Json::Object(sm)) => {
                self.check_keys(sm, &join(path, "status"), &[]);
                true
            }
            Some(other) => {
                self.type_error(
                    &join(path, "status"),
                    st,
                    other,
                    "v1.CustomResourceSubresourceStatus",
                );
                false
            }
        };
        let sp = join(path, "scale");
        let scale = self
            .object(m.get("scale"), &sp, st, "v1.CustomResourceSubresourceScale")
            .map(|sm| {
                let st = "CustomResourceSubresourceScale";
                self.check_keys(
                    sm,
                    &sp,
                    &[
                        "specReplicasPath",
                        "statusReplicasPath",
                        "labelSelectorPath",
                    ],
                );
                Scale {
                    spec_replicas_path: self.string(sm, "specReplicasPath", &sp, st),
                    status_replicas_path: self.string(sm, "statusReplicasPath", &sp, st),
                    label_selector_path: self.opt_string(sm, "labelSelectorPath", &sp, st),
                }
            });
        Some(Subresources { status, scale })
    }

    fn columns(
        &mut self,
        m: &Map<String, Json>,
        path: &str,
        go_struct: &str,
    ) -> Vec<ColumnDefinition> {
        let shape = self.shape;
        self.list(
            m,
            "additionalPrinterColumns",
            path,
            go_struct,
            "v1.CustomResourceColumnDefinition",
            |r, cm, p| {
                let st = "CustomResourceColumnDefinition";
                let json_path_key = if shape == Shape::Internal && cm.contains_key("JSONPath") {
                    "JSONPath"
                } else {
                    "jsonPath"
                };
                r.check_keys(
                    cm,
                    p,
                    &[
                        "name",
                        "type",
                        "format",
                        "description",
                        "priority",
                        json_path_key,
                    ],
                );
                ColumnDefinition {
                    name: r.string(cm, "name", p, st),
                    type_: r.string(cm, "type", p, st),
                    format: r.string(cm, "format", p, st),
                    description: r.string(cm, "description", p, st),
                    priority: r.int(cm, "priority", p, st, "int32").unwrap_or(0),
                    json_path: r.string(cm, json_path_key, p, st),
                }
            },
        )
    }

    fn selectable_fields(
        &mut self,
        m: &Map<String, Json>,
        path: &str,
        go_struct: &str,
    ) -> Vec<SelectableField> {
        let shape = self.shape;
        self.list(
            m,
            "selectableFields",
            path,
            go_struct,
            "v1.SelectableField",
            |r, fm, p| {
                let key = if shape == Shape::Internal && fm.contains_key("JSONPath") {
                    "JSONPath"
                } else {
                    "jsonPath"
                };
                r.check_keys(fm, p, &[key]);
                SelectableField {
                    json_path: r.string(fm, key, p, "SelectableField"),
                }
            },
        )
    }

    fn version(&mut self, m: &Map<String, Json>, path: &str) -> CrdVersion {
        let st = "CustomResourceDefinitionVersion";
        self.check_keys(
            m,
            path,
            &[
                "name",
                "served",
                "storage",
                "deprecated",
                "deprecationWarning",
                "schema",
                "subresources",
                "additionalPrinterColumns",
                "selectableFields",
            ],
        );
        CrdVersion {
            name: self.string(m, "name", path, st),
            served: self.boolean(m, "served", path, st),
            storage: self.boolean(m, "storage", path, st),
            deprecated: self.boolean(m, "deprecated", path, st),
            deprecation_warning: self.opt_string(m, "deprecationWarning", path, st),
            schema: self.validation(m.get("schema"), &join(path, "schema"), st),
            subresources: self.subresources(m.get("subresources"), &join(path, "subresources"), st),
            additional_printer_columns: self.columns(m, path, st),
            additional_printer_columns_set: is_list(m, "additionalPrinterColumns"),
            selectable_fields: self.selectable_fields(m, path, st),
            selectable_fields_set: is_list(m, "selectableFields"),
        }
    }

    fn service(&mut self, v: Option<&Json>, path: &str) -> Option<ServiceReference> {
        let m = self.object(v, path, "WebhookClientConfig", "v1.ServiceReference")?;
        let st = "ServiceReference";
        self.check_keys(m, path, &["namespace", "name", "path", "port"]);
        let port = self.int(m, "port", path, st, "int32");
        Some(ServiceReference {
            namespace: self.string(m, "namespace", path, st),
            name: self.string(m, "name", path, st),
            path: self.opt_string(m, "path", path, st),
            // v1 defaults a missing port to 443 (SetDefaults_ServiceReference); the internal
            // type has a plain int32 whose zero value is 0.
            port: port.unwrap_or(if self.shape == Shape::V1 { 443 } else { 0 }),
        })
    }

    fn client_config(
        &mut self,
        v: Option<&Json>,
        path: &str,
        go_struct: &str,
    ) -> Option<WebhookClientConfig> {
        let m = self.object(v, path, go_struct, "v1.WebhookClientConfig")?;
        let st = "WebhookClientConfig";
        self.check_keys(m, path, &["url", "service", "caBundle"]);
        let ca_bundle = match m.get("caBundle") {
            None | Some(Json::Null) => Vec::new(),
            Some(Json::String(s)) => match crd_studio_gostd::base64::decode(s) {
                Some(b) => b,
                None if self.shape == Shape::Internal => s.as_bytes().to_vec(),
                None => {
                    self.problems.push(DecodeProblem {
                        path: join(path, "caBundle"),
                        message: "illegal base64 data at input byte 0".to_owned(),
                        unknown_field: false,
                    });
                    Vec::new()
                }
            },
            Some(other) => {
                self.type_error(&join(path, "caBundle"), st, other, "[]uint8");
                Vec::new()
            }
        };
        Some(WebhookClientConfig {
            url: self.opt_string(m, "url", path, st),
            service: self.service(m.get("service"), &join(path, "service")),
            ca_bundle,
        })
    }

    fn conversion(&mut self, v: Option<&Json>, path: &str) -> Option<Conversion> {
        let m = self.object(
            v,
            path,
            "CustomResourceDefinitionSpec",
            "v1.CustomResourceConversion",
        )?;
        let st = "CustomResourceConversion";
        let strategy = self.string(m, "strategy", path, st);
        match self.shape {
            Shape::V1 => {
                self.check_keys(m, path, &["strategy", "webhook"]);
                let wp = join(path, "webhook");
                let mut c = Conversion {
                    strategy,
                    ..Conversion::default()
                };
                if let Some(wm) = self.object(m.get("webhook"), &wp, st, "v1.WebhookConversion") {
                    self.check_keys(wm, &wp, &["clientConfig", "conversionReviewVersions"]);
                    c.conversion_review_versions =
                        self.strings(wm, "conversionReviewVersions", &wp, "WebhookConversion");
                    c.webhook_client_config = self.client_config(
                        wm.get("clientConfig"),
                        &join(&wp, "clientConfig"),
                        "WebhookConversion",
                    );
                }
                Some(c)
            }
            Shape::Internal => {
                self.check_keys(
                    m,
                    path,
                    &[
                        "strategy",
                        "webhookClientConfig",
                        "conversionReviewVersions",
                    ],
                );
                Some(Conversion {
                    strategy,
                    webhook_client_config: self.client_config(
                        m.get("webhookClientConfig"),
                        &join(path, "webhookClientConfig"),
                        st,
                    ),
                    conversion_review_versions: self.strings(
                        m,
                        "conversionReviewVersions",
                        path,
                        st,
                    ),
                })
            }
        }
    }

    fn status(&mut self, v: Option<&Json>) -> CrdStatus {
        let path = "status";
        let Some(m) = self.object(
            v,
            path,
            "CustomResourceDefinition",
            "v1.CustomResourceDefinitionStatus",
        ) else {
            return CrdStatus::default();
        };
        let st = "CustomResourceDefinitionStatus";
        self.check_keys(
            m,
            path,
            &[
                "conditions",
                "acceptedNames",
                "storedVersions",
                "observedGeneration",
            ],
        );
        let conditions = self.list(
            m,
            "conditions",
            path,
            st,
            "v1.CustomResourceDefinitionCondition",
            |r, cm, p| {
                let st = "CustomResourceDefinitionCondition";
                r.check_keys(
                    cm,
                    p,
                    &[
                        "type",
                        "status",
                        "lastTransitionTime",
                        "reason",
                        "message",
                        "observedGeneration",
                    ],
                );
                Condition {
                    type_: r.string(cm, "type", p, st),
                    status: r.string(cm, "status", p, st),
                    reason: r.string(cm, "reason", p, st),
                    message: r.string(cm, "message", p, st),
                }
            },
        );
        CrdStatus {
            conditions,
            accepted_names: self.names(m.get("acceptedNames"), "status.acceptedNames", st),
            stored_versions: self.strings(m, "storedVersions", path, st),
        }
    }

    fn crd(&mut self, v: &Json) -> InternalCrd {
        let Json::Object(root) = v else {
            self.problems.push(DecodeProblem {
                path: String::new(),
                message: format!(
                    "json: cannot unmarshal {} into Go value of type v1.CustomResourceDefinition",
                    go_json_kind(v)
                ),
                unknown_field: false,
            });
            return InternalCrd::default();
        };
        self.check_keys(root, "", V1_ROOT_KEYS);
        let metadata = self.metadata(root.get("metadata"));
        let status = self.status(root.get("status"));
        let mut spec = CrdSpec::default();
        if let Some(m) = self.object(
            root.get("spec"),
            "spec",
            "CustomResourceDefinition",
            "v1.CustomResourceDefinitionSpec",
        ) {
            let path = "spec";
            let st = "CustomResourceDefinitionSpec";
            let mut known = vec![
                "group",
                "names",
                "scope",
                "versions",
                "conversion",
                "preserveUnknownFields",
            ];
            if self.shape == Shape::Internal {
                known.extend([
                    "version",
                    "validation",
                    "subresources",
                    "additionalPrinterColumns",
                    "selectableFields",
                ]);
            }
            self.check_keys(m, path, &known);
            spec.group = self.string(m, "group", path, st);
            spec.names = self.names(m.get("names"), "spec.names", st);
            spec.scope = self.string(m, "scope", path, st);
            spec.versions_set = is_list(m, "versions");
            spec.versions = self.list(
                m,
                "versions",
                path,
                st,
                "v1.CustomResourceDefinitionVersion",
                |r, vm, p| r.version(vm, p),
            );
            spec.conversion = self.conversion(m.get("conversion"), "spec.conversion");
            match self.shape {
                Shape::V1 => {
                    spec.preserve_unknown_fields =
                        Some(self.boolean(m, "preserveUnknownFields", path, st));
                }
                Shape::Internal => {
                    spec.preserve_unknown_fields =
                        self.opt_bool(m, "preserveUnknownFields", path, st);
                    spec.version = self.string(m, "version", path, st);
                    spec.validation = self.validation(m.get("validation"), "spec.validation", st);
                    spec.subresources =
                        self.subresources(m.get("subresources"), "spec.subresources", st);
                    spec.additional_printer_columns = self.columns(m, path, st);
                    spec.selectable_fields = self.selectable_fields(m, path, st);
                }
            }
        }
        InternalCrd {
            metadata,
            spec,
            status,
        }
    }
}

/// Reads the conformance data's internal CRD shape (v1beta1-style names: `spec.version`,
/// `spec.validation.openAPIV3Schema`, top-level `subresources`, `additionalPrinterColumns`
/// with `JSONPath` or `jsonPath`, `conversion.webhookClientConfig`). No defaulting or
/// conversion is applied. A `caBundle` that is not base64 is taken as the raw bytes (the data
/// writes PEM text as is).
#[cfg(any(test, feature = "conformance"))]
pub fn from_internal_json(v: &Json) -> (InternalCrd, Vec<DecodeProblem>) {
    let mut r = Reader {
        shape: Shape::Internal,
        problems: Vec::new(),
    };
    let crd = r.crd(v);
    (crd, r.problems)
}

/// Reads an `apiextensions.k8s.io/v1` CRD as the server does on a request: decoding (problems
/// are returned beside the partial result), v1 defaulting (`SetObjectDefaults_
/// CustomResourceDefinition`: singular, listKind, conversion strategy `None`, service port 443,
/// storedVersions) and the v1 → internal conversion.
pub fn from_v1_json(v: &Json) -> (InternalCrd, Vec<DecodeProblem>) {
    let mut r = Reader {
        shape: Shape::V1,
        problems: Vec::new(),
    };
    let mut crd = r.crd(v);
    set_v1_defaults(&mut crd);
    convert_v1_to_internal(&mut crd.spec);
    (crd, r.problems)
}

/// The problems [`from_v1_json`] reports first for `v`, a JSON object: its unknown top-level
/// fields (the check of the root's keys, done before anything else is read). The rest of its
/// problems depend only on the known top-level fields (`apiVersion`, `kind`, `metadata`,
/// `spec`, `status`), as does the CRD it returns.
pub fn root_key_problems(v: &Json) -> Vec<DecodeProblem> {
    let mut r = Reader {
        shape: Shape::V1,
        problems: Vec::new(),
    };
    if let Json::Object(root) = v {
        r.check_keys(root, "", V1_ROOT_KEYS);
    }
    r.problems
}

/// The top-level fields of a v1 CRD.
pub const V1_ROOT_KEYS: &[&str] = &["apiVersion", "kind", "metadata", "spec", "status"];

/// `SetObjectDefaults_CustomResourceDefinition` (on the v1 form; the service port default is
/// applied while reading).
fn set_v1_defaults(crd: &mut InternalCrd) {
    let spec = &mut crd.spec;
    if spec.names.singular.is_empty() {
        spec.names.singular = spec.names.kind.to_lowercase();
    }
    if spec.names.list_kind.is_empty() && !spec.names.kind.is_empty() {
        spec.names.list_kind = format!("{}List", spec.names.kind);
    }
    if spec.conversion.is_none() {
        spec.conversion = Some(Conversion {
            strategy: "None".to_owned(),
            ..Conversion::default()
        });
    }
    if crd.status.stored_versions.is_empty() {
        if let Some(v) = spec.versions.iter().find(|v| v.storage) {
            crd.status.stored_versions.push(v.name.clone());
        }
    }
}

/// `Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec`:
/// `version` from `versions[0]`, and per-version fields that are identical in every version
/// moved to the top level.
fn convert_v1_to_internal(spec: &mut CrdSpec) {
    let Some(first) = spec.versions.first() else {
        return;
    };
    spec.version = first.name.clone();
    let same_subresources = spec
        .versions
        .iter()
        .all(|v| v.subresources == first.subresources);
    let same_schema = spec.versions.iter().all(|v| v.schema == first.schema);
    let same_columns = spec
        .versions
        .iter()
        .all(|v| v.additional_printer_columns == first.additional_printer_columns);
    let same_fields = spec
        .versions
        .iter()
        .all(|v| v.selectable_fields == first.selectable_fields);
    if same_subresources {
        spec.subresources = first.subresources.clone();
    }
    if same_schema {
        spec.validation = first.schema.clone();
    }
    if same_columns {
        spec.additional_printer_columns = first.additional_printer_columns.clone();
    }
    if same_fields {
        spec.selectable_fields = first.selectable_fields.clone();
    }
    for v in &mut spec.versions {
        if same_subresources {
            v.subresources = None;
        }
        if same_schema {
            v.schema = None;
        }
        if same_columns {
            v.additional_printer_columns.clear();
        }
        if same_fields {
            v.selectable_fields.clear();
        }
    }
}

/// `strategy.PrepareForCreate` (and the generic create path): the status is reset, the
/// generation set to 1, deletion fields cleared, and the storage version recorded in
/// `status.storedVersions`.
#[cfg(test)]
pub fn prepare_for_create(crd: &mut InternalCrd) {
    prepare_parts_for_create(&mut crd.metadata, &crd.spec, &mut crd.status);
}

/// [`prepare_for_create`] of the CRD made of `metadata`, `spec` and `status` (it changes only
/// the metadata and the status).
pub(crate) fn prepare_parts_for_create(
    metadata: &mut ObjectMeta,
    spec: &CrdSpec,
    status: &mut CrdStatus,
) {
    *status = CrdStatus::default();
    metadata.generation = 1;
    metadata.deletion_timestamp = None;
    metadata.deletion_grace_period_seconds = None;
    if let Some(v) = spec.versions.iter().find(|v| v.storage) {
        if !status.stored_versions.iter().any(|s| s == &v.name) {
            status.stored_versions.push(v.name.clone());
        }
    }
}

/// `strategy.PrepareForUpdate`: the status is the old one, the generation increments when the
/// spec changed, and a new storage version is recorded.
pub fn prepare_for_update(new: &mut InternalCrd, old: &InternalCrd) {
    new.status = old.status.clone();
    new.metadata.generation = if new.spec != old.spec {
        old.metadata.generation + 1
    } else {
        old.metadata.generation
    };
    if let Some(v) = new.spec.versions.iter().find(|v| v.storage) {
        let name = v.name.clone();
        if !new.is_stored_version(&name) {
            new.status.stored_versions.push(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v1(versions: Json) -> Json {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "scope": "Namespaced",
                "names": {"plural": "widgets", "kind": "Widget"},
                "versions": versions,
            }
        })
    }

    #[test]
    fn single_version_is_hoisted_and_defaulted() {
        let (crd, problems) = from_v1_json(&v1(json!([{
            "name": "v1", "served": true, "storage": true,
            "schema": {"openAPIV3Schema": {"type": "object"}},
            "additionalPrinterColumns": [{"name": "A", "type": "string", "jsonPath": ".a"}],
        }])));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(crd.spec.version, "v1");
        assert!(crd.spec.validation.is_some());
        assert!(crd.spec.versions[0].schema.is_none());
        assert_eq!(crd.spec.additional_printer_columns[0].json_path, ".a");
        assert_eq!(crd.spec.names.singular, "widget");
        assert_eq!(crd.spec.names.list_kind, "WidgetList");
        assert_eq!(
            crd.spec.conversion.as_ref().map(|c| c.strategy.as_str()),
            Some("None")
        );
        assert_eq!(crd.spec.preserve_unknown_fields, Some(false));
        assert_eq!(crd.status.stored_versions, vec!["v1".to_owned()]);
    }

    #[test]
    fn different_schemas_stay_per_version() {
        let (crd, _) = from_v1_json(&v1(json!([
            {"name": "v1", "served": true, "storage": true,
             "schema": {"openAPIV3Schema": {"type": "object"}}},
            {"name": "v2", "served": true, "storage": false,
             "schema": {"openAPIV3Schema": {"type": "object", "description": "x"}}},
        ])));
        assert!(crd.spec.validation.is_none());
        assert!(crd.spec.versions.iter().all(|v| v.schema.is_some()));
        // No subresources anywhere: identical (absent) values are "hoisted" as absent.
        assert!(crd.spec.subresources.is_none());
    }

    #[test]
    fn decode_problems_name_the_field() {
        let (_, problems) = from_v1_json(&v1(json!([{"name": "v1", "served": "yes", "bogus": 1}])));
        let msgs: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        assert!(msgs.contains(&"json: cannot unmarshal string into Go struct field CustomResourceDefinitionVersion.spec.versions.served of type bool"), "{msgs:?}");
        assert!(
            msgs.contains(&"unknown field \"spec.versions[0].bogus\""),
            "{msgs:?}"
        );
    }

    #[test]
    fn webhook_conversion_is_flattened() {
        let mut crd = v1(json!([{"name": "v1", "served": true, "storage": true}]));
        crd["spec"]["conversion"] = json!({
            "strategy": "Webhook",
            "webhook": {"conversionReviewVersions": ["v1"],
                        "clientConfig": {"service": {"name": "s", "namespace": "n"}, "caBundle": "Cg=="}},
        });
        let (crd, problems) = from_v1_json(&crd);
        assert!(problems.is_empty(), "{problems:?}");
        let c = crd.spec.conversion.unwrap();
        assert_eq!(c.conversion_review_versions, vec!["v1".to_owned()]);
        let cc = c.webhook_client_config.unwrap();
        assert_eq!(cc.ca_bundle, b"\n".to_vec());
        assert_eq!(cc.service.map(|s| s.port), Some(443));
    }

    #[test]
    fn internal_shape() {
        let (crd, problems) = from_internal_json(&json!({
            "metadata": {"name": "plural.group.com"},
            "spec": {"group": "group.com", "version": "v1",
                     "validation": {"openAPIV3Schema": {"type": "object"}},
                     "additionalPrinterColumns": [{"name": "a", "type": "string", "JSONPath": ".a"}],
                     "versions": [{"name": "v1", "served": true, "storage": true}],
                     "preserveUnknownFields": false},
            "status": {"storedVersions": ["v1"]},
        }));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(crd.spec.additional_printer_columns[0].json_path, ".a");
        assert_eq!(crd.spec.preserve_unknown_fields, Some(false));
        assert!(crd.spec.conversion.is_none());
    }

    /// apimachinery `field.Error.ErrorBody` prints a complex bad value with `json.Marshal`: a
    /// nil slice is `null`, an empty one `[]`; the v1 → internal conversion
    /// (`autoConvert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec`,
    /// `..._CustomResourceDefinitionVersion_...`, `..._JSONSchemaProps_...`) keeps the slice
    /// the JSON decoder made (`[]` → empty, missing or `null` → nil).
    #[test]
    fn empty_lists_print_as_go_marshals_them() {
        let read = |versions: Json| {
            let mut v1 = serde_json::json!({
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": "widgets.example.com"},
                "spec": {"group": "example.com", "scope": "Namespaced",
                         "names": {"plural": "widgets", "kind": "Widget"}},
            });
            if !versions.is_null() {
                v1["spec"]["versions"] = versions;
            }
            from_v1_json(&v1).0
        };
        let cases: Vec<(Json, &str)> = vec![(serde_json::json!([]), "[]"), (Json::Null, "null")];
        for (versions, want) in cases {
            let crd = read(versions.clone());
            let got = spec_versions_json(&crd.spec);
            assert!(got.starts_with(want), "{versions}: {got}");
        }
        let crd = read(
            serde_json::json!([{"name": "v1", "additionalPrinterColumns": [], "selectableFields": null}]),
        );
        let got = spec_versions_json(&crd.spec);
        assert!(
            got.ends_with(r#""AdditionalPrinterColumns":[],"SelectableFields":null}]"#),
            "{got}"
        );
        // Every list and map keyword of a schema (the conversion keeps the decoded value).
        let (schema, _) = JsonSchemaProps::from_json(&serde_json::json!({
            "type": "object", "required": [], "enum": [], "allOf": [], "oneOf": [], "anyOf": [],
            "properties": {}, "patternProperties": {}, "dependencies": {}, "definitions": {},
            "x-kubernetes-list-map-keys": [],
        }));
        let got = schema_json(&schema);
        for want in [
            r#""Required":[]"#,
            r#""Enum":[]"#,
            r#""AllOf":[]"#,
            r#""OneOf":[]"#,
            r#""AnyOf":[]"#,
            r#""Properties":{}"#,
            r#""PatternProperties":{}"#,
            r#""Dependencies":{}"#,
            r#""Definitions":{}"#,
            r#""XListMapKeys":[]"#,
        ] {
            assert!(got.contains(want), "{want}: {got}");
        }
        let (schema, _) = JsonSchemaProps::from_json(&serde_json::json!({"type": "object"}));
        assert!(schema_json(&schema).contains(r#""Required":null"#));
        for (rules, want) in [
            (serde_json::json!([]), r#""XValidations":[]}"#),
            (Json::Null, r#""XValidations":null}"#),
        ] {
            let (schema, _) = JsonSchemaProps::from_json(
                &serde_json::json!({"type": "object", "x-kubernetes-validations": rules}),
            );
            let got = schema_json(&schema);
            assert!(got.ends_with(want), "{got}");
        }
    }

    #[test]
    fn go_json_of_versions() {
        let v = CrdVersion {
            name: "v1".into(),
            served: true,
            ..CrdVersion::default()
        };
        assert_eq!(
            versions_json(&[v]),
            r#"[{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]"#
        );
    }
}
