//! `JSONSchemaProps`: the OpenAPI v3 schema of a CRD version as the server decodes it
//! (apiextensions' internal type; the JSON names are those of `apiextensions.k8s.io/v1`).
//!
//! Decoding follows Go's `encoding/json` into the typed struct: a field of the wrong JSON
//! type is an error naming the field, `items` may be a schema or an array of schemas,
//! `additionalProperties`/`additionalItems` a schema or a bool, `dependencies` values a schema
//! or a list of strings. Unknown keys are collected for strict decoding.

use std::collections::BTreeMap;

use serde_json::Value as Json;

/// `x-kubernetes-validations[i]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValidationRule {
    /// `rule`.
    pub rule: String,
    /// `message`.
    pub message: String,
    /// `messageExpression`.
    pub message_expression: String,
    /// `reason`.
    pub reason: Option<String>,
    /// `fieldPath`.
    pub field_path: String,
    /// `optionalOldSelf`.
    pub optional_old_self: Option<bool>,
}

/// `items`: one schema or (not supported by the server) an array of schemas.
#[derive(Clone, Debug, PartialEq)]
pub enum SchemaOrArray {
    /// A single schema.
    Schema(Box<JsonSchemaProps>),
    /// An array of schemas.
    Array(Vec<JsonSchemaProps>),
}

/// `additionalProperties` / `additionalItems`: a schema, or a bool.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaOrBool {
    /// Whether additional entries are allowed (true when a schema is given).
    pub allows: bool,
    /// The schema, when one is given.
    pub schema: Option<Box<JsonSchemaProps>>,
}

/// A `dependencies` value: a schema or a list of property names.
#[derive(Clone, Debug, PartialEq)]
pub enum SchemaOrStringArray {
    /// A schema.
    Schema(Box<JsonSchemaProps>),
    /// Property names.
    Property(Vec<String>),
}

/// `externalDocs`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExternalDocumentation {
    /// `description`.
    pub description: String,
    /// `url`.
    pub url: String,
}

/// The OpenAPI v3 schema object of a CRD (`JSONSchemaProps`).
#[derive(Clone, Debug, Default, PartialEq)]
#[allow(missing_docs)]
pub struct JsonSchemaProps {
    /// `description`: shared with the structural schemas made from this one (descriptions
    /// are most of a large CRD's text).
    pub description: std::sync::Arc<str>,
    pub type_: String,
    pub nullable: bool,
    pub format: String,
    /// `default`; `Some(Json::Null)` is never stored (a literal null is no default).
    pub default: Option<Json>,
    pub maximum: Option<f64>,
    pub exclusive_maximum: bool,
    pub minimum: Option<f64>,
    pub exclusive_minimum: bool,
    pub max_length: Option<i64>,
    pub min_length: Option<i64>,
    pub pattern: String,
    pub max_items: Option<i64>,
    pub min_items: Option<i64>,
    pub unique_items: bool,
    pub enum_: Vec<Json>,
    pub required: Vec<String>,
    pub items: Option<SchemaOrArray>,
    /// `properties` (the schemas boxed, as in `patternProperties` and `definitions`: a map
    /// node holds eleven values, so inline schemas made most of a large CRD's schema tree
    /// empty slots).
    pub properties: BTreeMap<String, Box<JsonSchemaProps>>,
    pub additional_properties: Option<SchemaOrBool>,
    pub x_preserve_unknown_fields: Option<bool>,
    pub x_embedded_resource: bool,
    pub x_int_or_string: bool,
    pub x_list_map_keys: Vec<String>,
    pub x_list_type: Option<String>,
    pub x_validations: Vec<ValidationRule>,
    /// Whether `x-kubernetes-validations` was present (even empty).
    pub has_x_validations: bool,
    /// The list and map keywords given empty (`[]`, `{}`): Go's decoder makes non-nil empty
    /// slices and maps of them, which `json.Marshal` prints as `[]` and `{}` (not `null`) in
    /// an `Invalid value` holding the schema.
    pub given_empty: GivenEmpty,
    /// The keywords CRDs seldom set, apart (most nodes hold none of them).
    pub rare: Rare,
}

/// The keywords of a [`JsonSchemaProps`] that CRDs seldom set (a large CRD's schema has
/// thousands of nodes, nearly all without any of them).
#[derive(Clone, Debug, Default, PartialEq)]
#[allow(missing_docs)]
pub struct RareProps {
    pub id: String,
    pub schema: String,
    pub ref_: Option<String>,
    pub title: String,
    pub multiple_of: Option<f64>,
    pub max_properties: Option<i64>,
    pub min_properties: Option<i64>,
    pub all_of: Vec<JsonSchemaProps>,
    pub one_of: Vec<JsonSchemaProps>,
    pub any_of: Vec<JsonSchemaProps>,
    pub not: Option<Box<JsonSchemaProps>>,
    pub pattern_properties: BTreeMap<String, Box<JsonSchemaProps>>,
    pub dependencies: BTreeMap<String, SchemaOrStringArray>,
    pub additional_items: Option<SchemaOrBool>,
    pub definitions: BTreeMap<String, Box<JsonSchemaProps>>,
    pub external_docs: Option<ExternalDocumentation>,
    pub example: Option<Json>,
    pub x_map_type: Option<String>,
}

/// The empty [`RareProps`] every node without any of its keywords reads.
static NO_RARE_PROPS: RareProps = RareProps {
    id: String::new(),
    schema: String::new(),
    ref_: None,
    title: String::new(),
    example: None,
    multiple_of: None,
    max_properties: None,
    min_properties: None,
    all_of: Vec::new(),
    one_of: Vec::new(),
    any_of: Vec::new(),
    not: None,
    pattern_properties: BTreeMap::new(),
    dependencies: BTreeMap::new(),
    additional_items: None,
    definitions: BTreeMap::new(),
    external_docs: None,
    x_map_type: None,
};

/// The [`RareProps`] of a node, allocated when one is first set: it reads as (and equals)
/// the empty one until then, and writing through it allocates it.
#[derive(Clone, Default)]
pub struct Rare(Option<Box<RareProps>>);

impl std::ops::Deref for Rare {
    type Target = RareProps;
    fn deref(&self) -> &RareProps {
        self.0.as_deref().unwrap_or(&NO_RARE_PROPS)
    }
}

impl std::ops::DerefMut for Rare {
    fn deref_mut(&mut self) -> &mut RareProps {
        self.0.get_or_insert_with(Box::default)
    }
}

impl PartialEq for Rare {
    fn eq(&self, other: &Rare) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Rare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

/// The list and map keywords of a [`JsonSchemaProps`] given empty. Never part of equality:
/// apimachinery's `Semantic.DeepEqual`, which the server compares schemas with, treats nil
/// and empty slices and maps alike.
#[derive(Clone, Copy, Debug, Default)]
pub struct GivenEmpty(u16);

impl PartialEq for GivenEmpty {
    fn eq(&self, _: &GivenEmpty) -> bool {
        true
    }
}

impl GivenEmpty {
    /// The keywords tracked, in bit order.
    pub const KEYWORDS: [&'static str; 10] = [
        "required",
        "enum",
        "allOf",
        "oneOf",
        "anyOf",
        "properties",
        "patternProperties",
        "dependencies",
        "definitions",
        "x-kubernetes-list-map-keys",
    ];

    fn bit(keyword: &str) -> Option<u16> {
        Self::KEYWORDS
            .iter()
            .position(|k| *k == keyword)
            .map(|i| 1u16 << i)
    }

    /// Whether `keyword` (its JSON name) was given empty.
    pub fn has(self, keyword: &str) -> bool {
        Self::bit(keyword).is_some_and(|b| self.0 & b != 0)
    }

    /// Records `keyword` given as `value` (an empty array or object sets it).
    pub fn record(&mut self, keyword: &str, value: &Json) {
        let empty = match value {
            Json::Array(a) => a.is_empty(),
            Json::Object(m) => m.is_empty(),
            _ => false,
        };
        if let (true, Some(b)) = (empty, Self::bit(keyword)) {
            self.0 |= b;
        }
    }
}

/// A problem found while decoding a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// The JSON path of the offending value, dotted (`properties.spec.type`), relative to the
    /// schema root.
    pub path: String,
    /// Go's message, e.g. `json: cannot unmarshal string into Go struct field
    /// JSONSchemaProps.maxLength of type int64`.
    pub message: String,
    /// `true` for an unknown field (a strict-decoding problem, not a decode failure).
    pub unknown_field: bool,
}

/// The words Go's JSON decoder uses for a value's kind.
pub use crd_studio_gostd::json::json_kind as go_json_kind;

struct Decoder {
    errors: Vec<DecodeError>,
    /// Maximum schema nesting we follow (the document layer already bounds depth; this keeps
    /// recursion here bounded independently).
    depth_left: usize,
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

impl Decoder {
    fn type_error(&mut self, path: &str, field: &str, value: &Json, go_type: &str) {
        let go_path = join(path, field);
        self.errors.push(DecodeError {
            message: format!(
                "json: cannot unmarshal {} into Go struct field JSONSchemaProps.{} of type {}",
                go_json_kind(value),
                go_path,
                go_type
            ),
            path: go_path,
            unknown_field: false,
        });
    }

    fn string(&mut self, path: &str, key: &str, v: &Json) -> String {
        match v {
            Json::String(s) => s.clone(),
            Json::Null => String::new(),
            _ => {
                self.type_error(path, key, v, "string");
                String::new()
            }
        }
    }

    fn boolean(&mut self, path: &str, key: &str, v: &Json) -> bool {
        match v {
            Json::Bool(b) => *b,
            Json::Null => false,
            _ => {
                self.type_error(path, key, v, "bool");
                false
            }
        }
    }

    fn float(&mut self, path: &str, key: &str, v: &Json) -> Option<f64> {
        match v {
            Json::Number(n) => n.as_f64(),
            Json::Null => None,
            _ => {
                self.type_error(path, key, v, "float64");
                None
            }
        }
    }

    fn int(&mut self, path: &str, key: &str, v: &Json) -> Option<i64> {
        match v {
            Json::Number(n) => match n.as_i64() {
                Some(i) => Some(i),
                None => {
                    self.errors.push(DecodeError {
                        path: join(path, key),
                        message: format!(
                            "json: cannot unmarshal number {n} into Go struct field JSONSchemaProps.{} of type int64",
                            join(path, key)
                        ),
                        unknown_field: false,
                    });
                    None
                }
            },
            Json::Null => None,
            _ => {
                self.type_error(path, key, v, "int64");
                None
            }
        }
    }

    fn strings(&mut self, path: &str, key: &str, v: &Json) -> Vec<String> {
        match v {
            Json::Array(items) => items
                .iter()
                .filter_map(|i| match i {
                    Json::String(s) => Some(s.clone()),
                    other => {
                        self.type_error(path, key, other, "string");
                        None
                    }
                })
                .collect(),
            Json::Null => Vec::new(),
            _ => {
                self.type_error(path, key, v, "[]string");
                Vec::new()
            }
        }
    }

    fn schema_list(&mut self, path: &str, key: &str, v: &Json) -> Vec<JsonSchemaProps> {
        match v {
            Json::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| self.props(&format!("{}[{i}]", join(path, key)), item))
                .collect(),
            Json::Null => Vec::new(),
            _ => {
                self.type_error(path, key, v, "[]v1.JSONSchemaProps");
                Vec::new()
            }
        }
    }

    fn schema_map(
        &mut self,
        path: &str,
        key: &str,
        v: &Json,
    ) -> BTreeMap<String, Box<JsonSchemaProps>> {
        match v {
            Json::Object(m) => m
                .iter()
                .map(|(k, item)| {
                    let p = join(&join(path, key), k);
                    (k.clone(), Box::new(self.props(&p, item)))
                })
                .collect(),
            Json::Null => BTreeMap::new(),
            _ => {
                self.type_error(path, key, v, "map[string]v1.JSONSchemaProps");
                BTreeMap::new()
            }
        }
    }

    fn schema_or_bool(&mut self, path: &str, key: &str, v: &Json) -> Option<SchemaOrBool> {
        match v {
            Json::Object(_) => Some(SchemaOrBool {
                allows: true,
                schema: Some(Box::new(self.props(&join(path, key), v))),
            }),
            Json::Bool(b) => Some(SchemaOrBool {
                allows: *b,
                schema: None,
            }),
            Json::Null => None,
            _ => {
                self.errors.push(DecodeError {
                    path: join(path, key),
                    message: "boolean or JSON schema expected".to_owned(),
                    unknown_field: false,
                });
                None
            }
        }
    }

    fn rules(&mut self, path: &str, v: &Json) -> Vec<ValidationRule> {
        let key = "x-kubernetes-validations";
        let Json::Array(items) = v else {
            if !v.is_null() {
                self.type_error(path, key, v, "v1.ValidationRules");
            }
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let p = format!("{}[{i}]", join(path, key));
            let Json::Object(m) = item else {
                self.type_error(path, key, item, "v1.ValidationRule");
                continue;
            };
            let mut rule = ValidationRule::default();
            for (k, val) in m {
                match k.as_str() {
                    "rule" => rule.rule = self.string(&p, k, val),
                    "message" => rule.message = self.string(&p, k, val),
                    "messageExpression" => rule.message_expression = self.string(&p, k, val),
                    "reason" => {
                        rule.reason = match val {
                            Json::Null => None,
                            _ => Some(self.string(&p, k, val)),
                        }
                    }
                    "fieldPath" => rule.field_path = self.string(&p, k, val),
                    "optionalOldSelf" => {
                        rule.optional_old_self = match val {
                            Json::Null => None,
                            _ => Some(self.boolean(&p, k, val)),
                        }
                    }
                    _ => self.errors.push(DecodeError {
                        path: join(&p, k),
                        message: format!("unknown field \"{}\"", join(&p, k)),
                        unknown_field: true,
                    }),
                }
            }
            out.push(rule);
        }
        out
    }

    fn props(&mut self, path: &str, v: &Json) -> JsonSchemaProps {
        let mut s = JsonSchemaProps::default();
        let Json::Object(m) = v else {
            if !v.is_null() {
                self.errors.push(DecodeError {
                    path: path.to_owned(),
                    message: format!(
                        "json: cannot unmarshal {} into Go value of type v1.JSONSchemaProps",
                        go_json_kind(v)
                    ),
                    unknown_field: false,
                });
            }
            return s;
        };
        if self.depth_left == 0 {
            return s;
        }
        self.depth_left -= 1;
        for (k, val) in m {
            let key = k.as_str();
            s.given_empty.record(key, val);
            match key {
                "id" => s.rare.id = self.string(path, key, val),
                "$schema" => s.rare.schema = self.string(path, key, val),
                "$ref" => {
                    s.rare.ref_ = match val {
                        Json::Null => None,
                        _ => Some(self.string(path, key, val)),
                    }
                }
                "description" => s.description = self.string(path, key, val).into(),
                "type" => s.type_ = self.string(path, key, val),
                "nullable" => s.nullable = self.boolean(path, key, val),
                "format" => s.format = self.string(path, key, val),
                "title" => s.rare.title = self.string(path, key, val),
                "default" => s.default = (!val.is_null()).then(|| val.clone()),
                "example" => s.rare.example = (!val.is_null()).then(|| val.clone()),
                "maximum" => s.maximum = self.float(path, key, val),
                "exclusiveMaximum" => s.exclusive_maximum = self.boolean(path, key, val),
                "minimum" => s.minimum = self.float(path, key, val),
                "exclusiveMinimum" => s.exclusive_minimum = self.boolean(path, key, val),
                "maxLength" => s.max_length = self.int(path, key, val),
                "minLength" => s.min_length = self.int(path, key, val),
                "pattern" => s.pattern = self.string(path, key, val),
                "maxItems" => s.max_items = self.int(path, key, val),
                "minItems" => s.min_items = self.int(path, key, val),
                "uniqueItems" => s.unique_items = self.boolean(path, key, val),
                "multipleOf" => s.rare.multiple_of = self.float(path, key, val),
                "enum" => match val {
                    Json::Array(items) => s.enum_ = items.clone(),
                    Json::Null => {}
                    _ => self.type_error(path, key, val, "[]v1.JSON"),
                },
                "maxProperties" => s.rare.max_properties = self.int(path, key, val),
                "minProperties" => s.rare.min_properties = self.int(path, key, val),
                "required" => s.required = self.strings(path, key, val),
                "items" => {
                    s.items = match val {
                        Json::Object(_) => Some(SchemaOrArray::Schema(Box::new(
                            self.props(&join(path, key), val),
                        ))),
                        Json::Array(_) => {
                            Some(SchemaOrArray::Array(self.schema_list(path, key, val)))
                        }
                        Json::Null => None,
                        _ => {
                            self.errors.push(DecodeError {
                                path: join(path, key),
                                message: "input does not look like a JSON schema or array of JSON schemas".to_owned(),
                                unknown_field: false,
                            });
                            None
                        }
                    }
                }
                "allOf" => s.rare.all_of = self.schema_list(path, key, val),
                "oneOf" => s.rare.one_of = self.schema_list(path, key, val),
                "anyOf" => s.rare.any_of = self.schema_list(path, key, val),
                "not" => {
                    s.rare.not = match val {
                        Json::Null => None,
                        _ => Some(Box::new(self.props(&join(path, key), val))),
                    }
                }
                "properties" => s.properties = self.schema_map(path, key, val),
                "additionalProperties" => {
                    s.additional_properties = self.schema_or_bool(path, key, val)
                }
                "patternProperties" => s.rare.pattern_properties = self.schema_map(path, key, val),
                "dependencies" => match val {
                    Json::Object(m) => {
                        for (dk, dv) in m {
                            let p = join(&join(path, key), dk);
                            let entry = match dv {
                                Json::Object(_) => {
                                    SchemaOrStringArray::Schema(Box::new(self.props(&p, dv)))
                                }
                                _ => SchemaOrStringArray::Property(self.strings(path, key, dv)),
                            };
                            s.rare.dependencies.insert(dk.clone(), entry);
                        }
                    }
                    Json::Null => {}
                    _ => self.type_error(path, key, val, "v1.JSONSchemaDependencies"),
                },
                "additionalItems" => s.rare.additional_items = self.schema_or_bool(path, key, val),
                "definitions" => s.rare.definitions = self.schema_map(path, key, val),
                "externalDocs" => match val {
                    Json::Object(m) => {
                        let p = join(path, key);
                        let mut d = ExternalDocumentation::default();
                        for (dk, dv) in m {
                            match dk.as_str() {
                                "description" => d.description = self.string(&p, dk, dv),
                                "url" => d.url = self.string(&p, dk, dv),
                                _ => self.errors.push(DecodeError {
                                    path: join(&p, dk),
                                    message: format!("unknown field \"{}\"", join(&p, dk)),
                                    unknown_field: true,
                                }),
                            }
                        }
                        s.rare.external_docs = Some(d);
                    }
                    Json::Null => {}
                    _ => self.type_error(path, key, val, "v1.ExternalDocumentation"),
                },
                "x-kubernetes-preserve-unknown-fields" => {
                    s.x_preserve_unknown_fields = match val {
                        Json::Null => None,
                        _ => Some(self.boolean(path, key, val)),
                    }
                }
                "x-kubernetes-embedded-resource" => {
                    s.x_embedded_resource = self.boolean(path, key, val)
                }
                "x-kubernetes-int-or-string" => s.x_int_or_string = self.boolean(path, key, val),
                "x-kubernetes-list-map-keys" => s.x_list_map_keys = self.strings(path, key, val),
                "x-kubernetes-list-type" => {
                    s.x_list_type = match val {
                        Json::Null => None,
                        _ => Some(self.string(path, key, val)),
                    }
                }
                "x-kubernetes-map-type" => {
                    s.rare.x_map_type = match val {
                        Json::Null => None,
                        _ => Some(self.string(path, key, val)),
                    }
                }
                "x-kubernetes-validations" => {
                    s.has_x_validations = !val.is_null();
                    s.x_validations = self.rules(path, val);
                }
                _ => self.errors.push(DecodeError {
                    path: join(path, key),
                    message: format!("unknown field \"{}\"", join(path, key)),
                    unknown_field: true,
                }),
            }
        }
        self.depth_left += 1;
        s
    }
}

/// The deepest schema nesting decoded (far beyond any real CRD; the document layer bounds
/// nesting anyway).
pub const MAX_SCHEMA_DEPTH: usize = 2_000;

impl JsonSchemaProps {
    /// Decodes a schema from JSON. Decoding never fails: problems are returned beside the
    /// (partial) schema.
    pub fn from_json(v: &Json) -> (JsonSchemaProps, Vec<DecodeError>) {
        let mut d = Decoder {
            errors: Vec::new(),
            depth_left: MAX_SCHEMA_DEPTH,
        };
        let s = d.props("", v);
        (s, d.errors)
    }

    /// The single `items` schema, if `items` is a schema.
    pub fn items_schema(&self) -> Option<&JsonSchemaProps> {
        match &self.items {
            Some(SchemaOrArray::Schema(s)) => Some(s),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn seldom_set_keywords_are_kept_apart() {
        // A large CRD has thousands of nodes, nearly all without the rare keywords (424
        // bytes on 64-bit targets with them apart, about 840 with them inline).
        let size = std::mem::size_of::<JsonSchemaProps>();
        assert!(size <= 448, "JsonSchemaProps is {size} bytes");
        let mut p = JsonSchemaProps::default();
        assert_eq!(p.rare.title, "");
        assert!(p.rare.all_of.is_empty() && p.rare.not.is_none());
        // Written (and so allocated) with the empty values, it is still the empty node.
        p.rare.title = String::new();
        assert_eq!(p, JsonSchemaProps::default());
        p.rare.title = "t".to_owned();
        assert_ne!(p, JsonSchemaProps::default());
        let (decoded, _) = JsonSchemaProps::from_json(&json!({"type": "object", "title": "t"}));
        assert_eq!(decoded.rare.title, "t");
        assert_eq!(decoded.type_, "object");
    }

    #[test]
    fn decodes_every_kind_of_field() {
        let (s, errors) = JsonSchemaProps::from_json(&json!({
            "type": "object",
            "properties": {"a": {"type": "string", "maxLength": 5, "enum": ["x", 1]}},
            "additionalProperties": false,
            "items": [{"type": "string"}],
            "default": null,
            "x-kubernetes-validations": [{"rule": "self.a == 'x'", "reason": "FieldValueForbidden"}],
            "x-kubernetes-preserve-unknown-fields": false,
            "dependencies": {"a": ["b"], "c": {"type": "string"}},
        }));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(s.type_, "object");
        assert_eq!(s.properties.get("a").and_then(|a| a.max_length), Some(5));
        assert_eq!(
            s.additional_properties,
            Some(SchemaOrBool {
                allows: false,
                schema: None
            })
        );
        assert!(matches!(s.items, Some(SchemaOrArray::Array(ref v)) if v.len() == 1));
        assert_eq!(s.default, None);
        assert_eq!(s.x_preserve_unknown_fields, Some(false));
        assert_eq!(
            s.x_validations.first().and_then(|r| r.reason.clone()),
            Some("FieldValueForbidden".into())
        );
        assert_eq!(s.rare.dependencies.len(), 2);
    }

    #[test]
    fn wrong_types_and_unknown_fields() {
        let (_, errors) = JsonSchemaProps::from_json(&json!({
            "properties": {"a": {"maxLength": "5", "bogus": 1}},
            "additionalProperties": 3,
        }));
        let msgs: Vec<_> = errors
            .iter()
            .map(|e| (e.path.as_str(), e.unknown_field))
            .collect();
        assert!(
            msgs.contains(&("properties.a.maxLength", false)),
            "{msgs:?}"
        );
        assert!(msgs.contains(&("properties.a.bogus", true)), "{msgs:?}");
        assert!(msgs.contains(&("additionalProperties", false)), "{msgs:?}");
    }
}
