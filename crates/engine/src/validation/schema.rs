//! The schema the validator walks: the fields of kube-openapi's `spec.Schema` that validation
//! reads, built the three ways the server builds one:
//!
//! * from a CRD's `JSONSchemaProps` (`ConvertJSONSchemaPropsWithPostProcess` with the
//!   unsupported-format stripper of a compatibility version): `x-kubernetes-int-or-string`
//!   becomes `type: [integer, string]`;
//! * from a structural schema (`Structural.ToKubeOpenAPI`): no format stripping, int-or-string
//!   stays an extension, nested value validations lose `additionalProperties`;
//! * from an OpenAPI schema as written (`spec.Schema` decoded directly, as the ratcheting tests
//!   build it).
//!
//! Patterns and formats are compiled once here.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value as Json;

use super::formats::{self, CompatibilityVersion, FormatChecker};
use super::goregex::{self, GoRegexp};
use super::govalue::decoded_as_go_json;
use crate::schema::props::{JsonSchemaProps, SchemaOrArray, SchemaOrStringArray, MAX_SCHEMA_DEPTH};
use crate::schema::structural::{NestedValueValidation, Structural, ValueValidation};

/// A compiled `pattern`: Go's compile error text, or the expression.
#[derive(Clone, Debug)]
pub(crate) struct Pattern {
    pub text: String,
    pub compiled: Result<GoRegexp, String>,
}

/// `items`.
#[derive(Clone, Debug)]
pub(crate) enum Items {
    Schema(Box<OaSchema>),
    Array(Vec<OaSchema>),
}

/// `additionalProperties` / `additionalItems`.
#[derive(Clone, Debug)]
pub(crate) struct SchemaOrBool {
    pub allows: bool,
    pub schema: Option<Box<OaSchema>>,
}

/// A `dependencies` value.
#[derive(Clone, Debug)]
pub(crate) enum Dependency {
    Schema(Box<OaSchema>),
    Properties(Vec<String>),
}

/// One node of kube-openapi's `spec.Schema`, as validation sees it.
#[derive(Clone, Debug, Default)]
pub(crate) struct OaSchema {
    pub types: Vec<String>,
    pub nullable: bool,
    pub format: String,
    /// The `strfmt.Default` checker for `format`, when the registry knows it.
    pub format_checker: Option<Arc<FormatChecker>>,
    pub maximum: Option<f64>,
    pub exclusive_maximum: bool,
    pub minimum: Option<f64>,
    pub exclusive_minimum: bool,
    pub max_length: Option<i64>,
    pub min_length: Option<i64>,
    pub pattern: Option<Pattern>,
    pub max_items: Option<i64>,
    pub min_items: Option<i64>,
    pub unique_items: bool,
    pub multiple_of: Option<f64>,
    /// Enum values as Go decodes them from the CRD (every number a float64).
    pub enum_: Vec<Json>,
    pub max_properties: Option<i64>,
    pub min_properties: Option<i64>,
    pub required: Vec<String>,
    pub items: Option<Items>,
    pub all_of: Vec<OaSchema>,
    pub one_of: Vec<OaSchema>,
    pub any_of: Vec<OaSchema>,
    pub not: Option<Box<OaSchema>>,
    pub properties: BTreeMap<String, OaSchema>,
    pub additional_properties: Option<SchemaOrBool>,
    /// `patternProperties`: the pattern, its Go compilation (an invalid one never matches)
    /// and the schema.
    pub pattern_properties: Vec<(String, Option<GoRegexp>, OaSchema)>,
    pub additional_items: Option<SchemaOrBool>,
    pub dependencies: BTreeMap<String, Dependency>,
    /// `x-kubernetes-list-type`, as the ratcheting correlation reads it.
    pub list_type: Option<String>,
    /// `x-kubernetes-list-map-keys`, when readable as a string list.
    pub list_map_keys: Option<Vec<String>>,
}

/// Shared state while building: compiled format checkers by name.
#[derive(Default)]
pub(crate) struct Builder {
    checkers: BTreeMap<String, Option<Arc<FormatChecker>>>,
}

impl Builder {
    fn checker(&mut self, format: &str) -> Option<Arc<FormatChecker>> {
        if format.is_empty() || !formats::is_registered(format) {
            return None;
        }
        let key = formats::normalize(format);
        self.checkers
            .entry(key)
            .or_insert_with(|| FormatChecker::new(format).map(Arc::new))
            .clone()
    }

    fn pattern(pattern: &str) -> Option<Pattern> {
        if pattern.is_empty() {
            return None;
        }
        Some(Pattern {
            text: pattern.to_owned(),
            compiled: goregex::compile(pattern),
        })
    }

    /// How the server converts a CRD schema.
    pub fn props(
        &mut self,
        p: &JsonSchemaProps,
        version: CompatibilityVersion,
        depth: usize,
    ) -> OaSchema {
        let mut types = Vec::new();
        if !p.type_.is_empty() {
            types.push(p.type_.clone());
        }
        if p.x_int_or_string {
            types = vec!["integer".to_owned(), "string".to_owned()];
        }
        self.props_node(p, types, Some(version), depth)
    }

    /// `spec.Schema` as written: `type` as given, no stripping.
    pub fn raw_props(&mut self, p: &JsonSchemaProps, depth: usize) -> OaSchema {
        let types = if p.type_.is_empty() {
            Vec::new()
        } else {
            vec![p.type_.clone()]
        };
        self.props_node(p, types, None, depth)
    }

    fn child(
        &mut self,
        p: &JsonSchemaProps,
        version: Option<CompatibilityVersion>,
        depth: usize,
    ) -> OaSchema {
        if depth > MAX_SCHEMA_DEPTH {
            return OaSchema::default();
        }
        match version {
            Some(v) => self.props(p, v, depth),
            None => self.raw_props(p, depth),
        }
    }

    fn props_node(
        &mut self,
        p: &JsonSchemaProps,
        types: Vec<String>,
        version: Option<CompatibilityVersion>,
        depth: usize,
    ) -> OaSchema {
        let d = depth + 1;
        let format = match version {
            Some(v) => formats::strip_unsupported(&p.format, &types, v),
            None => p.format.clone(),
        };
        let mut s = OaSchema {
            format_checker: self.checker(&format),
            format,
            types,
            nullable: p.nullable,
            maximum: p.maximum,
            exclusive_maximum: p.exclusive_maximum,
            minimum: p.minimum,
            exclusive_minimum: p.exclusive_minimum,
            max_length: p.max_length,
            min_length: p.min_length,
            pattern: Builder::pattern(&p.pattern),
            max_items: p.max_items,
            min_items: p.min_items,
            unique_items: p.unique_items,
            multiple_of: p.multiple_of,
            enum_: p.enum_.iter().map(decoded_as_go_json).collect(),
            max_properties: p.max_properties,
            min_properties: p.min_properties,
            required: p.required.clone(),
            list_type: p.x_list_type.clone(),
            list_map_keys: if p.x_list_map_keys.is_empty() {
                None
            } else {
                Some(p.x_list_map_keys.clone())
            },
            ..OaSchema::default()
        };
        s.all_of = p.all_of.iter().map(|x| self.child(x, version, d)).collect();
        s.one_of = p.one_of.iter().map(|x| self.child(x, version, d)).collect();
        s.any_of = p.any_of.iter().map(|x| self.child(x, version, d)).collect();
        s.not = p.not.as_ref().map(|x| Box::new(self.child(x, version, d)));
        for (k, x) in &p.properties {
            let c = self.child(x, version, d);
            s.properties.insert(k.clone(), c);
        }
        for (k, x) in &p.pattern_properties {
            let c = self.child(x, version, d);
            s.pattern_properties
                .push((k.clone(), goregex::compile(k).ok(), c));
        }
        if let Some(ap) = &p.additional_properties {
            s.additional_properties = Some(SchemaOrBool {
                allows: ap.allows,
                schema: ap
                    .schema
                    .as_ref()
                    .map(|x| Box::new(self.child(x, version, d))),
            });
        }
        if let Some(ai) = &p.additional_items {
            s.additional_items = Some(SchemaOrBool {
                allows: ai.allows,
                schema: ai
                    .schema
                    .as_ref()
                    .map(|x| Box::new(self.child(x, version, d))),
            });
        }
        s.items = match &p.items {
            None => None,
            Some(SchemaOrArray::Schema(x)) => {
                Some(Items::Schema(Box::new(self.child(x, version, d))))
            }
            Some(SchemaOrArray::Array(list)) => Some(Items::Array(
                list.iter().map(|x| self.child(x, version, d)).collect(),
            )),
        };
        for (k, dep) in &p.dependencies {
            let v = match dep {
                SchemaOrStringArray::Schema(x) => {
                    Dependency::Schema(Box::new(self.child(x, version, d)))
                }
                SchemaOrStringArray::Property(names) => Dependency::Properties(names.clone()),
            };
            s.dependencies.insert(k.clone(), v);
        }
        s
    }

    /// `Structural.ToKubeOpenAPI()`.
    pub fn structural(&mut self, st: &Structural, depth: usize) -> OaSchema {
        if depth > MAX_SCHEMA_DEPTH {
            return OaSchema::default();
        }
        let d = depth + 1;
        let mut s = OaSchema {
            types: if st.generic.type_.is_empty() {
                Vec::new()
            } else {
                vec![st.generic.type_.clone()]
            },
            nullable: st.generic.nullable,
            list_type: st.extensions.x_list_type.clone(),
            // ToKubeOpenAPI stores the keys as a []string, which the correlation's
            // GetStringSlice does not read.
            list_map_keys: None,
            ..OaSchema::default()
        };
        if let Some(vv) = &st.value_validation {
            self.value_validation(&mut s, vv, d);
        }
        if let Some(items) = &st.items {
            s.items = Some(Items::Schema(Box::new(self.structural(items, d))));
        }
        for (k, x) in &st.properties {
            let c = self.structural(x, d);
            s.properties.insert(k.clone(), c);
        }
        if let Some(ap) = &st.additional_properties {
            s.additional_properties = Some(SchemaOrBool {
                allows: ap.bool_,
                schema: ap
                    .structural
                    .as_ref()
                    .map(|x| Box::new(self.structural(x, d))),
            });
        }
        s
    }

    fn value_validation(&mut self, s: &mut OaSchema, v: &ValueValidation, d: usize) {
        s.format = v.format.clone();
        s.format_checker = self.checker(&v.format);
        s.maximum = v.maximum;
        s.exclusive_maximum = v.exclusive_maximum;
        s.minimum = v.minimum;
        s.exclusive_minimum = v.exclusive_minimum;
        s.max_length = v.max_length;
        s.min_length = v.min_length;
        s.pattern = Builder::pattern(&v.pattern);
        s.max_items = v.max_items;
        s.min_items = v.min_items;
        s.unique_items = v.unique_items;
        s.multiple_of = v.multiple_of;
        s.enum_ = v.enum_.iter().map(decoded_as_go_json).collect();
        s.max_properties = v.max_properties;
        s.min_properties = v.min_properties;
        s.required = v.required.clone();
        s.all_of = v.all_of.iter().map(|x| self.nested(x, d)).collect();
        s.any_of = v.any_of.iter().map(|x| self.nested(x, d)).collect();
        s.one_of = v.one_of.iter().map(|x| self.nested(x, d)).collect();
        s.not = v.not.as_ref().map(|x| Box::new(self.nested(x, d)));
    }

    /// `NestedValueValidation.toKubeOpenAPI()`: no `additionalProperties`; forbidden type-level
    /// facts are kept.
    fn nested(&mut self, v: &NestedValueValidation, depth: usize) -> OaSchema {
        if depth > MAX_SCHEMA_DEPTH {
            return OaSchema::default();
        }
        let d = depth + 1;
        let mut s = OaSchema::default();
        self.value_validation(&mut s, &v.value_validation, d);
        if let Some(items) = &v.items {
            s.items = Some(Items::Schema(Box::new(self.nested(items, d))));
        }
        for (k, x) in &v.properties {
            let c = self.nested(x, d);
            s.properties.insert(k.clone(), c);
        }
        let g = &v.forbidden_generics;
        if !g.type_.is_empty() {
            s.types = vec![g.type_.clone()];
        }
        s.nullable = g.nullable;
        s.list_type = v.forbidden_extensions.x_list_type.clone();
        s
    }
}
