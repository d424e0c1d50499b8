//! The structural form of a schema (`schema.Structural`): the type skeleton that pruning,
//! defaulting and validation walk, with value validations (including `allOf`/`anyOf`/`oneOf`/
//! `not`) kept apart from the skeleton.

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock};

use serde_json::Value as Json;

use super::props::{JsonSchemaProps, SchemaOrArray, ValidationRule};

/// Type-level facts of a schema node (`schema.Generic`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Generic {
    /// `description` (shared with the [`JsonSchemaProps`] it was made from).
    pub description: Arc<str>,
    /// `type`.
    pub type_: String,
    /// `title`.
    pub title: String,
    /// `default` (never `Json::Null`: a literal null is no default).
    pub default: Option<Json>,
    /// `nullable`.
    pub nullable: bool,
    /// `example`.
    pub example: Option<Json>,
    /// Whether `externalDocs` is set.
    pub has_external_docs: bool,
}

/// The Kubernetes extensions of a schema node (`schema.Extensions`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extensions {
    /// `x-kubernetes-preserve-unknown-fields: true`.
    pub x_preserve_unknown_fields: bool,
    /// `x-kubernetes-embedded-resource`.
    pub x_embedded_resource: bool,
    /// `x-kubernetes-int-or-string`.
    pub x_int_or_string: bool,
    /// `x-kubernetes-list-map-keys`.
    pub x_list_map_keys: Vec<String>,
    /// `x-kubernetes-list-type`.
    pub x_list_type: Option<String>,
    /// `x-kubernetes-map-type`.
    pub x_map_type: Option<String>,
}

impl Extensions {
    /// Whether any extension is set (the server forbids them inside value validations).
    pub fn is_set(&self) -> bool {
        self.x_preserve_unknown_fields
            || self.x_embedded_resource
            || self.x_int_or_string
            || !self.x_list_map_keys.is_empty()
            || self.x_list_type.is_some()
            || self.x_map_type.is_some()
    }
}

/// Value validations of a node (`schema.ValueValidation`).
#[derive(Clone, Debug, Default, PartialEq)]
#[allow(missing_docs)]
pub struct ValueValidation {
    pub format: String,
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
    pub multiple_of: Option<f64>,
    pub enum_: Vec<Json>,
    pub max_properties: Option<i64>,
    pub min_properties: Option<i64>,
    pub required: Vec<String>,
    pub all_of: Vec<NestedValueValidation>,
    pub one_of: Vec<NestedValueValidation>,
    pub any_of: Vec<NestedValueValidation>,
    pub not: Option<Box<NestedValueValidation>>,
}

/// A value validation inside `allOf`/`anyOf`/`oneOf`/`not` (`schema.NestedValueValidation`):
/// it may not carry type-level facts; those it has anyway are kept as "forbidden" so
/// structural validation can report them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NestedValueValidation {
    /// The value validations.
    pub value_validation: ValueValidation,
    /// CEL rules written inside the junctor (forbidden).
    pub x_validations: Vec<ValidationRule>,
    /// `items`.
    pub items: Option<Box<NestedValueValidation>>,
    /// `properties`.
    pub properties: BTreeMap<String, NestedValueValidation>,
    /// `additionalProperties` (a schema, or `true` as an empty one).
    pub additional_properties: Option<Box<NestedValueValidation>>,
    /// Type-level facts written here (forbidden).
    pub forbidden_generics: Generic,
    /// Extensions written here (forbidden).
    pub forbidden_extensions: Extensions,
}

/// `additionalProperties` of a structural schema.
#[derive(Clone, Debug, PartialEq)]
pub struct StructuralOrBool {
    /// The schema, when one is given.
    pub structural: Option<Box<Structural>>,
    /// The boolean (true when a schema is given).
    pub bool_: bool,
}

/// A structural schema node (`schema.Structural`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Structural {
    /// `items`.
    pub items: Option<Box<Structural>>,
    /// `properties` (boxed: a map node holds eleven values, so inline schemas made most of a
    /// large CRD's structural form empty slots).
    pub properties: BTreeMap<String, Box<Structural>>,
    /// `additionalProperties`.
    pub additional_properties: Option<StructuralOrBool>,
    /// Type-level facts.
    pub generic: Generic,
    /// Kubernetes extensions.
    pub extensions: Extensions,
    /// `x-kubernetes-validations`.
    pub x_validations: Vec<ValidationRule>,
    /// Value validations (always present after conversion, as in the server). Shared: the
    /// nodes without any (most of a large CRD's) hold one empty value, not a copy each.
    pub value_validation: Option<Arc<ValueValidation>>,
}

/// Why a schema can't be turned into its structural form (`NewStructural`'s error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversionError(pub String);

fn generic(s: &JsonSchemaProps) -> Generic {
    Generic {
        description: s.description.clone(),
        type_: s.type_.clone(),
        title: s.rare.title.clone(),
        default: s.default.clone(),
        nullable: s.nullable,
        example: s.rare.example.clone(),
        has_external_docs: s.rare.external_docs.is_some(),
    }
}

fn extensions(s: &JsonSchemaProps) -> Result<Extensions, ConversionError> {
    if s.x_preserve_unknown_fields == Some(false) {
        return Err(ConversionError(
            "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
                .into(),
        ));
    }
    Ok(Extensions {
        x_preserve_unknown_fields: s.x_preserve_unknown_fields == Some(true),
        x_embedded_resource: s.x_embedded_resource,
        x_int_or_string: s.x_int_or_string,
        x_list_map_keys: s.x_list_map_keys.clone(),
        x_list_type: s.x_list_type.clone(),
        x_map_type: s.rare.x_map_type.clone(),
    })
}

fn unsupported(s: &JsonSchemaProps) -> Result<(), ConversionError> {
    let err = |what: &str| {
        Err(ConversionError(format!(
            "OpenAPIV3Schema '{what}' is not supported"
        )))
    };
    if !s.rare.id.is_empty() {
        return err("id");
    }
    if !s.rare.schema.is_empty() {
        return err("schema");
    }
    if s.rare.ref_.as_ref().is_some_and(|r| !r.is_empty()) {
        return err("$ref");
    }
    if !s.rare.pattern_properties.is_empty() {
        return err("patternProperties");
    }
    if !s.rare.dependencies.is_empty() {
        return err("dependencies");
    }
    if s.rare.additional_items.is_some() {
        return err("additionalItems");
    }
    if !s.rare.definitions.is_empty() {
        return err("definitions");
    }
    Ok(())
}

fn value_validation(s: &JsonSchemaProps, depth: usize) -> Result<ValueValidation, ConversionError> {
    let nested = |list: &[JsonSchemaProps]| {
        list.iter()
            .map(|x| nested_value_validation(x, depth + 1))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(ValueValidation {
        format: s.format.clone(),
        maximum: s.maximum,
        exclusive_maximum: s.exclusive_maximum,
        minimum: s.minimum,
        exclusive_minimum: s.exclusive_minimum,
        max_length: s.max_length,
        min_length: s.min_length,
        pattern: s.pattern.clone(),
        max_items: s.max_items,
        min_items: s.min_items,
        unique_items: s.unique_items,
        multiple_of: s.rare.multiple_of,
        enum_: s.enum_.clone(),
        max_properties: s.rare.max_properties,
        min_properties: s.rare.min_properties,
        required: s.required.clone(),
        not: match &s.rare.not {
            Some(n) => Some(Box::new(nested_value_validation(n, depth + 1)?)),
            None => None,
        },
        all_of: nested(&s.rare.all_of)?,
        any_of: nested(&s.rare.any_of)?,
        one_of: nested(&s.rare.one_of)?,
    })
}

fn too_deep() -> ConversionError {
    ConversionError("schema nesting is too deep".into())
}

fn items_schema(s: &JsonSchemaProps) -> Result<Option<&JsonSchemaProps>, ConversionError> {
    match &s.items {
        None => Ok(None),
        Some(SchemaOrArray::Schema(i)) => Ok(Some(i)),
        Some(SchemaOrArray::Array(list)) if list.is_empty() => Ok(None),
        Some(SchemaOrArray::Array(_)) => Err(ConversionError(
            "OpenAPIV3Schema 'items' must be a schema, but is an array".into(),
        )),
    }
}

fn nested_value_validation(
    s: &JsonSchemaProps,
    depth: usize,
) -> Result<NestedValueValidation, ConversionError> {
    if depth > super::props::MAX_SCHEMA_DEPTH {
        return Err(too_deep());
    }
    unsupported(s)?;
    let mut v = NestedValueValidation {
        value_validation: value_validation(s, depth)?,
        x_validations: s.x_validations.clone(),
        forbidden_generics: generic(s),
        forbidden_extensions: extensions(s)?,
        ..NestedValueValidation::default()
    };
    if let Some(item) = items_schema(s)? {
        v.items = Some(Box::new(nested_value_validation(item, depth + 1)?));
    }
    for (k, x) in &s.properties {
        v.properties
            .insert(k.clone(), nested_value_validation(x, depth + 1)?);
    }
    if let Some(ap) = &s.additional_properties {
        if let Some(schema) = &ap.schema {
            v.additional_properties = Some(Box::new(nested_value_validation(schema, depth + 1)?));
        } else if ap.allows {
            v.additional_properties = Some(Box::default());
        }
    }
    Ok(v)
}

/// The empty value validation the nodes without any share.
static EMPTY: LazyLock<Arc<ValueValidation>> = LazyLock::new(Arc::default);

/// `v` as a node holds it: the shared empty one when it is empty.
fn shared(v: ValueValidation) -> Arc<ValueValidation> {
    if v == ValueValidation::default() {
        Arc::clone(&EMPTY)
    } else {
        Arc::new(v)
    }
}

impl Structural {
    /// `NewStructural`: the structural form of a schema, or why it can't have one.
    pub fn from_props(s: &JsonSchemaProps) -> Result<Structural, ConversionError> {
        Structural::convert(s, 0)
    }

    fn convert(s: &JsonSchemaProps, depth: usize) -> Result<Structural, ConversionError> {
        if depth > super::props::MAX_SCHEMA_DEPTH {
            return Err(too_deep());
        }
        unsupported(s)?;
        let mut ss = Structural {
            value_validation: Some(shared(value_validation(s, depth)?)),
            generic: generic(s),
            extensions: extensions(s)?,
            x_validations: s.x_validations.clone(),
            ..Structural::default()
        };
        if let Some(item) = items_schema(s)? {
            ss.items = Some(Box::new(Structural::convert(item, depth + 1)?));
        }
        for (k, x) in &s.properties {
            ss.properties
                .insert(k.clone(), Box::new(Structural::convert(x, depth + 1)?));
        }
        if let Some(ap) = &s.additional_properties {
            ss.additional_properties = Some(match &ap.schema {
                Some(schema) => StructuralOrBool {
                    structural: Some(Box::new(Structural::convert(schema, depth + 1)?)),
                    bool_: true,
                },
                None => StructuralOrBool {
                    structural: None,
                    bool_: ap.allows,
                },
            });
        }
        Ok(ss)
    }

    /// The `additionalProperties` schema, if there is one.
    pub fn additional_properties_schema(&self) -> Option<&Structural> {
        self.additional_properties
            .as_ref()
            .and_then(|a| a.structural.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn structural(v: Json) -> Result<Structural, ConversionError> {
        let (props, errors) = JsonSchemaProps::from_json(&v);
        assert!(errors.is_empty(), "{errors:?}");
        Structural::from_props(&props)
    }

    #[test]
    fn converts_skeleton_and_value_validations() {
        let s = structural(json!({
            "type": "object",
            "properties": {"a": {"type": "array", "items": {"type": "string", "maxLength": 3}}},
            "additionalProperties": {"type": "integer"},
            "anyOf": [{"required": ["a"]}, {"properties": {"a": {"minItems": 1}}}],
        }));
        let Ok(s) = s else { panic!("{s:?}") };
        assert_eq!(s.generic.type_, "object");
        let item = s.properties.get("a").and_then(|a| a.items.as_deref());
        assert_eq!(
            item.and_then(|i| i.value_validation.as_ref())
                .and_then(|v| v.max_length),
            Some(3)
        );
        assert_eq!(
            s.additional_properties_schema()
                .map(|a| a.generic.type_.as_str()),
            Some("integer")
        );
        assert_eq!(s.value_validation.map(|v| v.any_of.len()), Some(2));
    }

    #[test]
    fn unsupported_keywords() {
        assert_eq!(
            structural(json!({"$ref": "#/x"})),
            Err(ConversionError(
                "OpenAPIV3Schema '$ref' is not supported".into()
            ))
        );
        assert!(structural(json!({"items": [{}, {}]})).is_err());
        assert!(structural(json!({"x-kubernetes-preserve-unknown-fields": false})).is_err());
    }
}
