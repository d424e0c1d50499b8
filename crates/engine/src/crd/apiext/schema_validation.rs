//! The validation of a CRD's OpenAPI schema: `validateCustomResourceDefinitionValidation` and
//! `ValidateCustomResourceDefinitionOpenAPISchema` of
//! `pkg/apis/apiextensions/validation/validation.go`, with every `validationOptions` switch,
//! the structural checks, and the CEL rule checks that need no CEL (rule, message and
//! fieldPath syntax); CEL compilation and cost estimation go through [`Hooks`].

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::sync::Arc;

use crate::documents::field_error::{BadValue, FieldError};
use crate::documents::path::FieldPath;
use crate::schema::props::{JsonSchemaProps, SchemaOrArray};
use crate::schema::structural::{ConversionError, Structural};

use super::field_path::valid_field_path;
use super::hooks::{
    CelCompileFailure, CelErrorKind, CelRuleSite, CelStep, Hooks, PreexistingExpressions,
};
use super::internal::{items_json, rule_json, schema_json, CustomResourceValidation};
use super::lazy_path::LazyPath;
use super::structural_validation::validate_structural;

/// `StaticEstimatedCostLimit`: the largest estimated cost of one expression.
pub const STATIC_ESTIMATED_COST_LIMIT: u64 = 10_000_000;
/// `StaticEstimatedCRDCostLimit`: the largest estimated cost of all rules of a schema.
pub const STATIC_ESTIMATED_CRD_COST_LIMIT: u64 = 100_000_000;

/// `validationOptions`: which checks apply (create turns all on; update relaxes those the old
/// CRD already violated).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValidationOptions {
    /// `allowDefaults`.
    pub allow_defaults: bool,
    /// `disallowDefaultsReason`.
    pub disallow_defaults_reason: String,
    /// `requireRecognizedConversionReviewVersion`.
    pub require_recognized_conversion_review_version: bool,
    /// `requireImmutableNames`.
    pub require_immutable_names: bool,
    /// `requireOpenAPISchema`.
    pub require_open_api_schema: bool,
    /// `requireValidPropertyType`.
    pub require_valid_property_type: bool,
    /// `requireStructuralSchema`.
    pub require_structural_schema: bool,
    /// `requirePrunedDefaults`.
    pub require_pruned_defaults: bool,
    /// `requireAtomicSetType`.
    pub require_atomic_set_type: bool,
    /// `requireMapListKeysMapSetValidation`.
    pub require_map_list_keys_map_set_validation: bool,
    /// `preexistingExpressions` (update only).
    pub preexisting_expressions: Option<PreexistingExpressions>,
    /// `versionsWithUnchangedSchemas` (update only).
    pub versions_with_unchanged_schemas: BTreeSet<String>,
    /// `suppressPerExpressionCost`.
    pub suppress_per_expression_cost: bool,
    /// The CEL environment compatibility version (`None`: the default).
    pub cel_environment_version: Option<String>,
    /// `allowInvalidCABundle`.
    pub allow_invalid_ca_bundle: bool,
    /// `allowTooManySelectableFields`: versions (`""` for the top level) allowed to keep more
    /// than 8 selectable fields.
    pub allow_too_many_selectable_fields: BTreeSet<String>,
}

/// The schema fields allowed at the root when the status subresource is on.
const ALLOWED_FIELDS_AT_ROOT: &[&str] = &[
    "Description",
    "Type",
    "Format",
    "Title",
    "Maximum",
    "ExclusiveMaximum",
    "Minimum",
    "ExclusiveMinimum",
    "MaxLength",
    "MinLength",
    "Pattern",
    "MaxItems",
    "MinItems",
    "UniqueItems",
    "MultipleOf",
    "Required",
    "Items",
    "Properties",
    "ExternalDocs",
    "Example",
    "XPreserveUnknownFields",
    "XValidations",
];

/// The Go names of the schema's non-zero fields, in declaration order.
fn set_fields(s: &JsonSchemaProps) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut add = |set: bool, name: &'static str| {
        if set {
            out.push(name);
        }
    };
    add(!s.rare.id.is_empty(), "ID");
    add(!s.rare.schema.is_empty(), "Schema");
    add(s.rare.ref_.is_some(), "Ref");
    add(!s.description.is_empty(), "Description");
    add(!s.type_.is_empty(), "Type");
    add(s.nullable, "Nullable");
    add(!s.format.is_empty(), "Format");
    add(!s.rare.title.is_empty(), "Title");
    add(s.default.is_some(), "Default");
    add(s.maximum.is_some(), "Maximum");
    add(s.exclusive_maximum, "ExclusiveMaximum");
    add(s.minimum.is_some(), "Minimum");
    add(s.exclusive_minimum, "ExclusiveMinimum");
    add(s.max_length.is_some(), "MaxLength");
    add(s.min_length.is_some(), "MinLength");
    add(!s.pattern.is_empty(), "Pattern");
    add(s.max_items.is_some(), "MaxItems");
    add(s.min_items.is_some(), "MinItems");
    add(s.unique_items, "UniqueItems");
    add(s.rare.multiple_of.is_some(), "MultipleOf");
    add(!s.enum_.is_empty(), "Enum");
    add(s.rare.max_properties.is_some(), "MaxProperties");
    add(s.rare.min_properties.is_some(), "MinProperties");
    add(!s.required.is_empty(), "Required");
    add(s.items.is_some(), "Items");
    add(!s.rare.all_of.is_empty(), "AllOf");
    add(!s.rare.one_of.is_empty(), "OneOf");
    add(!s.rare.any_of.is_empty(), "AnyOf");
    add(s.rare.not.is_some(), "Not");
    add(!s.properties.is_empty(), "Properties");
    add(s.additional_properties.is_some(), "AdditionalProperties");
    add(!s.rare.pattern_properties.is_empty(), "PatternProperties");
    add(!s.rare.dependencies.is_empty(), "Dependencies");
    add(s.rare.additional_items.is_some(), "AdditionalItems");
    add(!s.rare.definitions.is_empty(), "Definitions");
    add(s.rare.external_docs.is_some(), "ExternalDocs");
    add(s.rare.example.is_some(), "Example");
    add(
        s.x_preserve_unknown_fields.is_some(),
        "XPreserveUnknownFields",
    );
    add(s.x_embedded_resource, "XEmbeddedResource");
    add(s.x_int_or_string, "XIntOrString");
    add(!s.x_list_map_keys.is_empty(), "XListMapKeys");
    add(s.x_list_type.is_some(), "XListType");
    add(s.rare.x_map_type.is_some(), "XMapType");
    add(s.has_x_validations, "XValidations");
    out
}

/// `TotalCost`: the estimated cost of all rules of a schema.
#[derive(Clone, Debug, Default)]
pub struct TotalCost {
    /// `Total`: the saturating sum of every observed cost.
    pub total: u64,
    /// `MostExpensive`: the top 4 costs (descending) among those of at least 1% of
    /// [`STATIC_ESTIMATED_CRD_COST_LIMIT`], with their paths.
    pub most_expensive: Vec<(FieldPath, u64)>,
}

impl TotalCost {
    /// `ObserveExpressionCost`: adds one expression's cost.
    pub fn observe(&mut self, path: FieldPath, cost: u64) {
        self.total = self.total.saturating_add(cost);
        if cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100 {
            return;
        }
        self.most_expensive.push((path, cost));
        crd_studio_gostd::sort::stable_by_key(&mut self.most_expensive, |e| std::cmp::Reverse(e.1));
        self.most_expensive.truncate(4);
    }
}

/// `getCostErrorMessage`.
pub fn cost_error_message(cost_name: &str, cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    let factor = if factor > 100.0 {
        "more than 100x".to_owned()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    };
    format!("{cost_name} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)")
}

/// `extractMaxElements`: how many values of a child a value of this schema holds (`None`:
/// unbounded).
fn max_elements(s: &JsonSchemaProps) -> Option<u64> {
    match s.type_.as_str() {
        "object" => {
            if s.additional_properties.is_some() {
                s.rare.max_properties.map(|m| m.max(0) as u64)
            } else {
                Some(1)
            }
        }
        "array" => s.max_items.map(|m| m.max(0) as u64),
        _ => Some(1),
    }
}

/// `multiplyWithOverflowGuard`.
fn multiply(base: u64, cardinality: u64) -> u64 {
    if base == 0 {
        0
    } else {
        base.saturating_mul(cardinality)
    }
}

/// The cardinality of a child of `parent` (`childContext`): the parent's cardinality times
/// its `maxItems` (arrays) or `maxProperties` (maps), saturating; `None` (unbounded) when the
/// parent's is or the bound is missing. The root's cardinality is `Some(1)`.
pub fn child_cardinality(parent: &JsonSchemaProps, parent_cardinality: Option<u64>) -> Option<u64> {
    let card = parent_cardinality?;
    max_elements(parent).map(|m| multiply(card, m))
}

/// `getExpressionCost`: the estimated cost of a rule whose compilation gave `max_cost` and
/// `max_cardinality`, on a node of `cardinality` (`None`: unbounded, then `max_cardinality`
/// is used). Saturating; 0 when `max_cost` is 0.
pub fn expression_cost(max_cost: u64, max_cardinality: u64, cardinality: Option<u64>) -> u64 {
    multiply(max_cost, cardinality.unwrap_or(max_cardinality))
}

/// The CEL schema context of a node (`CELSchemaContext`).
#[derive(Clone)]
struct CelCtx<'a> {
    /// `withinValidationRuleScope`.
    within_scope: bool,
    /// `MaxCardinality` (`None`: unbounded).
    max_cardinality: Option<u64>,
    /// The schema the context is for (`None` for a missing child schema).
    schema: Option<&'a JsonSchemaProps>,
    /// The outermost ancestor in the rule scope, whether it is a resource root, and the
    /// steps from it to this node.
    scope: Option<(&'a JsonSchemaProps, bool, Vec<CelStep>)>,
}

impl<'a> CelCtx<'a> {
    fn root(schema: &'a JsonSchemaProps) -> CelCtx<'a> {
        let within = !schema.x_validations.is_empty();
        CelCtx {
            within_scope: within,
            max_cardinality: Some(1),
            schema: Some(schema),
            scope: within.then(|| (schema, true, Vec::new())),
        }
    }

    fn child(&self, child: Option<&'a JsonSchemaProps>, step: CelStep) -> CelCtx<'a> {
        let has_rules = child.is_some_and(|c| !c.x_validations.is_empty());
        let within = self.within_scope || has_rules;
        let scope = match (&self.scope, child) {
            (Some((root, is_root, steps)), _) if self.within_scope => {
                let mut steps = steps.clone();
                steps.push(step);
                Some((*root, *is_root, steps))
            }
            (_, Some(c)) if has_rules => Some((c, c.x_embedded_resource, Vec::new())),
            _ => None,
        };
        let max_cardinality = match self.schema {
            Some(parent) => child_cardinality(parent, self.max_cardinality),
            None => None,
        };
        CelCtx {
            within_scope: within,
            max_cardinality,
            schema: child,
            scope,
        }
    }
}

/// `specStandardValidatorV3`.
#[derive(Clone, Copy, Debug)]
struct Ssv<'a> {
    allow_defaults: bool,
    disallow_defaults_reason: &'a str,
    inside_resource_meta: bool,
    require_valid_property_type: bool,
    uncorrelatable_path: Option<LazyPath<'a>>,
}

/// The `disallowDefaultsReason` of the root's `metadata`, `kind` and `apiVersion`
/// (`"in top-level " + name`).
fn top_level_reason(name: &str) -> &'static str {
    match name {
        "metadata" => "in top-level metadata",
        "kind" => "in top-level kind",
        _ => "in top-level apiVersion",
    }
}

impl<'a> Ssv<'a> {
    fn with_forbidden_defaults(self, reason: &'a str) -> Ssv<'a> {
        Ssv {
            allow_defaults: false,
            disallow_defaults_reason: reason,
            ..self
        }
    }

    fn with_inside_resource_meta(self) -> Ssv<'a> {
        Ssv {
            inside_resource_meta: true,
            ..self
        }
    }

    fn with_forbid_old_self(self, path: LazyPath<'a>) -> Ssv<'a> {
        if self.uncorrelatable_path.is_some() {
            return self;
        }
        Ssv {
            uncorrelatable_path: Some(path),
            ..self
        }
    }

    /// `validate`: the OpenAPI v3 restrictions of one node.
    fn validate(&self, s: &JsonSchemaProps, path: &LazyPath<'_>, errs: &mut Vec<FieldError>) {
        if self.require_valid_property_type
            && !s.type_.is_empty()
            && !OPENAPI_V3_TYPES.contains(&s.type_.as_str())
        {
            errs.push(FieldError::not_supported(
                path.child("type").to_path(),
                BadValue::Str(s.type_.clone()),
                OPENAPI_V3_TYPES,
            ));
        }
        if s.default.is_some() && !self.allow_defaults {
            let mut detail = "must not be set".to_owned();
            if !self.disallow_defaults_reason.is_empty() {
                detail.push(' ');
                detail.push_str(self.disallow_defaults_reason);
            }
            errs.push(FieldError::forbidden(
                path.child("default").to_path(),
                detail,
            ));
        }
        if !s.rare.id.is_empty() {
            errs.push(FieldError::forbidden(
                path.child("id").to_path(),
                "id is not supported",
            ));
        }
        if s.rare.additional_items.is_some() {
            errs.push(FieldError::forbidden(
                path.child("additionalItems").to_path(),
                "additionalItems is not supported",
            ));
        }
        if !s.rare.pattern_properties.is_empty() {
            errs.push(FieldError::forbidden(
                path.child("patternProperties").to_path(),
                "patternProperties is not supported",
            ));
        }
        if !s.rare.definitions.is_empty() {
            errs.push(FieldError::forbidden(
                path.child("definitions").to_path(),
                "definitions is not supported",
            ));
        }
        if !s.rare.dependencies.is_empty() {
            errs.push(FieldError::forbidden(
                path.child("dependencies").to_path(),
                "dependencies is not supported",
            ));
        }
        if s.rare.ref_.is_some() {
            errs.push(FieldError::forbidden(
                path.child_name("$ref").to_path(),
                "$ref is not supported",
            ));
        }
        if s.type_ == "null" {
            errs.push(FieldError::forbidden(
                path.child("type").to_path(),
                "type cannot be set to null, use nullable as an alternative",
            ));
        }
        if matches!(&s.items, Some(SchemaOrArray::Array(a)) if !a.is_empty()) {
            errs.push(FieldError::forbidden(
                path.child("items").to_path(),
                "items must be a schema object and not an array",
            ));
        }
        if self.inside_resource_meta && s.x_embedded_resource {
            errs.push(FieldError::forbidden(
                path.child("x-kubernetes-embedded-resource").to_path(),
                "must not be used inside of resource meta",
            ));
        }
    }
}

/// `openapiV3Types`, sorted as the server lists them.
const OPENAPI_V3_TYPES: &[&str] = &["array", "boolean", "integer", "number", "object", "string"];

/// The schema errors and CEL errors of a subtree (`OpenAPISchemaErrorList`).
#[derive(Default)]
struct ErrorList {
    schema: Vec<FieldError>,
    cel: Vec<FieldError>,
}

impl ErrorList {
    fn append(&mut self, other: ErrorList) {
        self.schema.extend(other.schema);
        self.cel.extend(other.cel);
    }
}

/// Walks a schema (`ValidateCustomResourceDefinitionOpenAPISchema`).
struct Walker<'o> {
    opts: &'o ValidationOptions,
    hooks: Hooks<'o>,
    total_cost: TotalCost,
    depth: usize,
    /// The CEL compiler's scope types, shared by the rule sites of this walk.
    scope_cache: super::hooks::ScopeCache,
}

fn has_newlines(s: &str) -> bool {
    s.contains(['\n', '\r'])
}

const SUPPORTED_REASONS: &[&str] = &[
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];

impl<'o> Walker<'o> {
    fn walk<'a>(
        &mut self,
        schema: Option<&'a JsonSchemaProps>,
        path: &LazyPath<'_>,
        ssv: Ssv<'_>,
        is_root: bool,
        cel: Option<CelCtx<'a>>,
    ) -> ErrorList {
        let mut errs = ErrorList::default();
        let Some(schema) = schema else {
            return errs;
        };
        if self.depth > crate::schema::props::MAX_SCHEMA_DEPTH {
            return errs;
        }
        self.depth += 1;
        ssv.validate(schema, path, &mut errs.schema);
        if schema.unique_items {
            errs.schema.push(FieldError::forbidden(
                path.child("uniqueItems").to_path(),
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            ));
        }
        if let Some(ap) = &schema.additional_properties {
            if !schema.properties.is_empty() && (!ap.allows || ap.schema.is_some()) {
                errs.schema.push(FieldError::forbidden(
                    path.child("additionalProperties").to_path(),
                    "additionalProperties and properties are mutual exclusive",
                ));
            }
            let sub = if ssv.inside_resource_meta {
                ssv.with_forbidden_defaults(
                    "inside additionalProperties applying to object metadata",
                )
            } else {
                ssv
            };
            let child_cel = cel
                .as_ref()
                .map(|c| c.child(ap.schema.as_deref(), CelStep::AdditionalProperties));
            let e = self.walk(
                ap.schema.as_deref(),
                &path.child("additionalProperties"),
                sub,
                false,
                child_cel,
            );
            errs.append(e);
        }
        let properties = path.child("properties");
        for (name, prop) in &schema.properties {
            let mut sub = ssv;
            let correlatable = matches!(
                schema.rare.x_map_type.as_deref(),
                None | Some("granular") | Some("atomic")
            );
            if !correlatable {
                sub = sub.with_forbid_old_self(*path);
            }
            if (is_root || schema.x_embedded_resource)
                && matches!(name.as_str(), "metadata" | "kind" | "apiVersion")
            {
                sub = sub.with_inside_resource_meta();
                if is_root {
                    sub = sub.with_forbidden_defaults(top_level_reason(name));
                }
            }
            let child_cel = cel
                .as_ref()
                .map(|c| c.child(Some(prop), CelStep::Property(name.clone())));
            let e = self.walk(Some(prop), &properties.key(name), sub, false, child_cel);
            errs.append(e);
        }
        let e = self.walk(
            schema.rare.not.as_deref(),
            &path.child("not"),
            ssv,
            false,
            None,
        );
        errs.append(e);
        for (key, list) in [
            ("allOf", &schema.rare.all_of),
            ("oneOf", &schema.rare.one_of),
            ("anyOf", &schema.rare.any_of),
        ] {
            let list_path = path.child(key);
            for (i, s) in list.iter().enumerate() {
                let e = self.walk(Some(s), &list_path.index(i), ssv, false, None);
                errs.append(e);
            }
        }
        let definitions = path.child("definitions");
        for (name, s) in &schema.rare.definitions {
            let e = self.walk(Some(s), &definitions.key(name), ssv, false, None);
            errs.append(e);
        }
        if let Some(items) = &schema.items {
            let sub = if schema.x_list_type.as_deref() != Some("map") {
                ssv.with_forbid_old_self(*path)
            } else {
                ssv
            };
            let items_path = path.child("items");
            match items {
                SchemaOrArray::Schema(item) => {
                    let child_cel = cel.as_ref().map(|c| c.child(Some(item), CelStep::Items));
                    let e = self.walk(Some(item), &items_path, sub, false, child_cel);
                    errs.append(e);
                }
                SchemaOrArray::Array(list) => {
                    // `items.Schema` is nil: its walk reports nothing.
                    for (i, item) in list.iter().enumerate() {
                        let child_cel = cel.as_ref().map(|c| c.child(Some(item), CelStep::Items));
                        let e = self.walk(Some(item), &items_path.index(i), sub, false, child_cel);
                        errs.append(e);
                    }
                }
            }
        }
        let dependencies = path.child("dependencies");
        for (name, dep) in &schema.rare.dependencies {
            if let crate::schema::props::SchemaOrStringArray::Schema(s) = dep {
                let e = self.walk(Some(s), &dependencies.key(name), ssv, false, None);
                errs.append(e);
            }
        }
        self.extensions(schema, path, &mut errs.schema);
        if self.opts.require_map_list_keys_map_set_validation {
            map_list_keys_map_set(schema, path, &mut errs.schema);
        }
        if !schema.x_validations.is_empty() {
            self.rules(schema, path, ssv, cel.as_ref(), &mut errs);
        }
        self.depth -= 1;
        errs
    }

    /// The `x-kubernetes-*` list and map checks.
    fn extensions(
        &self,
        schema: &JsonSchemaProps,
        path: &LazyPath<'_>,
        errs: &mut Vec<FieldError>,
    ) {
        if schema.x_preserve_unknown_fields == Some(false) {
            errs.push(FieldError::invalid(
                path.child("x-kubernetes-preserve-unknown-fields").to_path(),
                BadValue::Bool(false),
                "must be true or undefined",
            ));
        }
        let type_ = schema.type_.as_str();
        if let Some(map_type) = &schema.rare.x_map_type {
            if type_ != "object" {
                if type_.is_empty() {
                    errs.push(FieldError::required(
                        path.child("type").to_path(),
                        "must be object if x-kubernetes-map-type is specified",
                    ));
                } else {
                    errs.push(FieldError::invalid(
                        path.child("type").to_path(),
                        BadValue::Str(type_.to_owned()),
                        "must be object if x-kubernetes-map-type is specified",
                    ));
                }
            }
            if map_type != "atomic" && map_type != "granular" {
                errs.push(FieldError::not_supported(
                    path.child("x-kubernetes-map-type").to_path(),
                    BadValue::Str(map_type.clone()),
                    &["atomic", "granular"],
                ));
            }
        }
        let list_type = schema.x_list_type.as_deref();
        let item = schema.items_schema();
        if list_type.is_some() && type_ != "array" {
            if type_.is_empty() {
                errs.push(FieldError::required(
                    path.child("type").to_path(),
                    "must be array if x-kubernetes-list-type is specified",
                ));
            } else {
                errs.push(FieldError::invalid(
                    path.child("type").to_path(),
                    BadValue::Str(type_.to_owned()),
                    "must be array if x-kubernetes-list-type is specified",
                ));
            }
        } else if self.opts.require_atomic_set_type && list_type == Some("set") {
            if let Some(is) = item {
                // A `*string`: printed as JSON, `null` when unset.
                let item_list_type = || match &is.x_list_type {
                    Some(t) => BadValue::Raw(crd_studio_gostd::json::string(t)),
                    None => BadValue::Null,
                };
                match is.type_.as_str() {
                    "array" if is.x_list_type.as_deref().is_some_and(|t| t != "atomic") => {
                        errs.push(FieldError::invalid(
                            path.child("items")
                                .child("x-kubernetes-list-type")
                                .to_path(),
                            item_list_type(),
                            "must be atomic as item of a list with x-kubernetes-list-type=set",
                        ));
                    }
                    // The server prints the items' list type here too.
                    "object" if is.rare.x_map_type.as_deref() != Some("atomic") => {
                        errs.push(FieldError::invalid(
                            path.child("items").child("x-kubernetes-map-type").to_path(),
                            item_list_type(),
                            "must be atomic as item of a list with x-kubernetes-list-type=set",
                        ));
                    }
                    _ => {}
                }
            }
        }
        if let Some(lt) = list_type {
            if !matches!(lt, "atomic" | "set" | "map") {
                errs.push(FieldError::not_supported(
                    path.child("x-kubernetes-list-type").to_path(),
                    BadValue::Str(lt.to_owned()),
                    &["atomic", "set", "map"],
                ));
            }
        }
        if !schema.x_list_map_keys.is_empty() {
            match list_type {
                None => errs.push(FieldError::required(
                    path.child("x-kubernetes-list-type").to_path(),
                    "must be map if x-kubernetes-list-map-keys is non-empty",
                )),
                Some("map") => {}
                Some(lt) => errs.push(FieldError::invalid(
                    path.child("x-kubernetes-list-type").to_path(),
                    BadValue::Str(lt.to_owned()),
                    "must be map if x-kubernetes-list-map-keys is non-empty",
                )),
            }
        }
        if list_type == Some("map") {
            let keys_json =
                || BadValue::Raw(crd_studio_gostd::json::strings(&schema.x_list_map_keys));
            if schema.x_list_map_keys.is_empty() {
                errs.push(FieldError::required(
                    path.child("x-kubernetes-list-map-keys").to_path(),
                    "must not be empty if x-kubernetes-list-type is map",
                ));
            }
            match &schema.items {
                None => errs.push(FieldError::required(
                    path.child("items").to_path(),
                    "must have a schema if x-kubernetes-list-type is map",
                )),
                Some(items @ SchemaOrArray::Array(_)) => errs.push(FieldError::invalid(
                    path.child("items").to_path(),
                    BadValue::Raw(items_json(items)),
                    "must only have a single schema if x-kubernetes-list-type is map",
                )),
                Some(SchemaOrArray::Schema(is)) => {
                    if is.type_ != "object" {
                        errs.push(FieldError::invalid(
                            path.child("items").child("type").to_path(),
                            BadValue::Str(is.type_.clone()),
                            "must be object if parent array's x-kubernetes-list-type is map",
                        ));
                    } else {
                        let mut seen = BTreeSet::new();
                        for k in &schema.x_list_map_keys {
                            match is.properties.get(k) {
                                Some(p) => {
                                    if p.type_ == "array" || p.type_ == "object" {
                                        // The server prints the item's type here.
                                        errs.push(FieldError::invalid(
                                            path.child("items")
                                                .child("properties")
                                                .key(k)
                                                .child("type").to_path(),
                                            BadValue::Str(is.type_.clone()),
                                            "must be a scalar type if parent array's x-kubernetes-list-type is map",
                                        ));
                                    }
                                }
                                None => errs.push(FieldError::invalid(
                                    path.child("x-kubernetes-list-map-keys").to_path(),
                                    keys_json(),
                                    "entries must all be names of item properties",
                                )),
                            }
                            if !seen.insert(k.as_str()) {
                                errs.push(FieldError::invalid(
                                    path.child("x-kubernetes-list-map-keys").to_path(),
                                    keys_json(),
                                    "must not contain duplicate entries",
                                ));
                            }
                        }
                    }
                }
            }
        }
    }

    /// The `x-kubernetes-validations` checks of one node.
    fn rules(
        &mut self,
        schema: &JsonSchemaProps,
        path: &LazyPath<'_>,
        ssv: Ssv<'_>,
        cel: Option<&CelCtx<'_>>,
        errs: &mut ErrorList,
    ) {
        let rules_path = path.child("x-kubernetes-validations");
        for (i, rule) in schema.x_validations.iter().enumerate() {
            let rp = rules_path.index(i);
            let trimmed_rule = rule.rule.trim();
            let trimmed_msg = rule.message.trim();
            let trimmed_msg_expr = rule.message_expression.trim();
            if trimmed_rule.is_empty() {
                errs.schema.push(FieldError::required(
                    rp.child("rule").to_path(),
                    "rule is not specified",
                ));
            } else if !rule.message.is_empty() && trimmed_msg.is_empty() {
                errs.schema.push(FieldError::invalid(
                    rp.child("message").to_path(),
                    BadValue::Str(rule.message.clone()),
                    "must be non-empty if specified",
                ));
            } else if has_newlines(trimmed_msg) {
                errs.schema.push(FieldError::invalid(
                    rp.child("message").to_path(),
                    BadValue::Str(rule.message.clone()),
                    "must not contain line breaks",
                ));
            } else if has_newlines(trimmed_rule) && trimmed_msg.is_empty() {
                errs.schema.push(FieldError::required(
                    rp.child("message").to_path(),
                    "message must be specified if rule contains line breaks",
                ));
            }
            if !rule.message_expression.is_empty() && trimmed_msg_expr.is_empty() {
                errs.schema.push(FieldError::required(
                    rp.child("messageExpression").to_path(),
                    "messageExpression must be non-empty if specified",
                ));
            }
            if let Some(reason) = &rule.reason {
                if !SUPPORTED_REASONS.contains(&reason.as_str()) {
                    errs.schema.push(FieldError::not_supported(
                        rp.child("reason").to_path(),
                        BadValue::Str(reason.clone()),
                        SUPPORTED_REASONS,
                    ));
                }
            }
            let trimmed_field_path = rule.field_path.trim();
            if !rule.field_path.is_empty() && trimmed_field_path.is_empty() {
                errs.schema.push(FieldError::invalid(
                    rp.child("fieldPath").to_path(),
                    BadValue::Str(rule.field_path.clone()),
                    "must be non-empty if specified",
                ));
            }
            if has_newlines(&rule.field_path) {
                errs.schema.push(FieldError::invalid(
                    rp.child("fieldPath").to_path(),
                    BadValue::Str(rule.field_path.clone()),
                    "must not contain line breaks",
                ));
            }
            if !rule.field_path.is_empty() && !path_valid(schema, &rule.field_path) {
                errs.schema.push(FieldError::invalid(
                    rp.child("fieldPath").to_path(),
                    BadValue::Str(rule.field_path.clone()),
                    "must be a valid path",
                ));
            }
        }
        // CEL compilation only when nothing is wrong with the schema at this level or below.
        if !errs.schema.is_empty() {
            return;
        }
        let Some(ctx) = cel else { return };
        let Some(compiler) = self.hooks.cel else {
            return;
        };
        let Some((scope_root, scope_is_root, steps)) = &ctx.scope else {
            return;
        };
        let owned_path = path.to_path();
        let site = CelRuleSite {
            schema,
            path: &owned_path,
            scope_root,
            scope_root_is_resource_root: *scope_is_root,
            steps: steps.clone(),
            preexisting: self.opts.preexisting_expressions.as_ref(),
            environment_version: self.opts.cel_environment_version.as_deref(),
            scope_cache: Some(&self.scope_cache),
        };
        let results = match compiler.compile(&site) {
            Ok(r) => r,
            Err(f) => {
                let detail = match f {
                    CelCompileFailure::TypeInfo(e) => format!("internal error: failed to construct type information for x-kubernetes-validations rules: {e}"),
                    CelCompileFailure::NoTypeInfo => "internal error: failed to retrieve type information for x-kubernetes-validations".to_owned(),
                    CelCompileFailure::Compile(e) => e,
                };
                errs.cel
                    .push(FieldError::internal(rules_path.to_path(), detail));
                return;
            }
        };
        for (i, cr) in results.iter().enumerate() {
            let rp = rules_path.index(i);
            let rule = schema.x_validations.get(i);
            let rule_value = || {
                rule.map(|r| BadValue::Raw(rule_json(r)))
                    .unwrap_or(BadValue::Null)
            };
            let cost = expression_cost(cr.max_cost, cr.max_cardinality, ctx.max_cardinality);
            if !self.opts.suppress_per_expression_cost && cost > STATIC_ESTIMATED_COST_LIMIT {
                errs.cel.push(FieldError::forbidden(
                    rp.child("rule").to_path(),
                    cost_error_message("estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT),
                ));
            }
            self.total_cost.observe(rp.child("rule").to_path(), cost);
            if let Some((kind, detail)) = &cr.error {
                match kind {
                    CelErrorKind::Required => errs.cel.push(FieldError::required(
                        rp.child("rule").to_path(),
                        detail.clone(),
                    )),
                    CelErrorKind::Invalid => errs.cel.push(FieldError::invalid(
                        rp.child("rule").to_path(),
                        rule_value(),
                        detail.clone(),
                    )),
                }
            }
            if let Some(detail) = &cr.message_expression_error {
                errs.cel.push(FieldError::invalid(
                    rp.child("messageExpression").to_path(),
                    rule_value(),
                    detail.clone(),
                ));
            } else if cr.has_message_expression {
                if !self.opts.suppress_per_expression_cost
                    && cr.message_expression_max_cost > STATIC_ESTIMATED_COST_LIMIT
                {
                    errs.cel.push(FieldError::forbidden(
                        rp.child("messageExpression").to_path(),
                        cost_error_message(
                            "estimated messageExpression cost",
                            cr.message_expression_max_cost,
                            STATIC_ESTIMATED_COST_LIMIT,
                        ),
                    ));
                }
                self.total_cost.observe(
                    rp.child("messageExpression").to_path(),
                    cr.message_expression_max_cost,
                );
            }
            if cr.uses_old_self {
                if let Some(up) = &ssv.uncorrelatable_path {
                    errs.cel.push(FieldError::invalid(
                        rp.child("rule").to_path(),
                        BadValue::Str(rule.map(|r| r.rule.clone()).unwrap_or_default()),
                        format!("oldSelf cannot be used on the uncorrelatable portion of the schema within {up}"),
                    ));
                }
            } else if let Some(oos) = rule.and_then(|r| r.optional_old_self) {
                errs.cel.push(FieldError::invalid(
                    rp.child("optionalOldSelf").to_path(),
                    BadValue::Bool(oos),
                    "may not be set if oldSelf is not used in rule",
                ));
            }
        }
    }
}

/// `pathValid`: a rule's `fieldPath` resolves in the node's schema (always true when the node
/// has no structural form).
fn path_valid(schema: &JsonSchemaProps, path: &str) -> bool {
    match Structural::from_props(schema) {
        Ok(ss) => valid_field_path(path, &ss, true).is_ok(),
        Err(_) => true,
    }
}

/// `validateMapListKeysMapSet`: list-type `map`/`set` items must not be nullable, and map keys
/// must be required or defaulted and not nullable.
pub fn validate_map_list_keys_map_set(
    schema: &JsonSchemaProps,
    path: &FieldPath,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    map_list_keys_map_set(schema, &LazyPath::new(path), &mut errs);
    errs
}

/// [`validate_map_list_keys_map_set`], adding to `errs`.
fn map_list_keys_map_set(
    schema: &JsonSchemaProps,
    path: &LazyPath<'_>,
    errs: &mut Vec<FieldError>,
) {
    let Some(item) = schema.items_schema() else {
        return;
    };
    let Some(lt) = schema.x_list_type.as_deref() else {
        return;
    };
    if lt != "set" && lt != "map" {
        return;
    }
    if item.nullable {
        errs.push(FieldError::forbidden(
            path.child("items").child("nullable").to_path(),
            format!("cannot be nullable when x-kubernetes-list-type is {lt}"),
        ));
    }
    if lt == "map" {
        for k in &schema.x_list_map_keys {
            let Some(p) = item.properties.get(k) else {
                continue;
            };
            if !item.required.contains(k) && p.default.is_none() {
                errs.push(FieldError::required(
                    path.child("items").child("properties").key(k).child("default").to_path(),
                    "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                ));
            }
            if p.nullable {
                errs.push(FieldError::forbidden(
                    path.child("items")
                        .child("properties")
                        .key(k)
                        .child("nullable")
                        .to_path(),
                    "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                ));
            }
        }
    }
}

/// The structural forms (`NewStructural`) of a CRD's schemas, each converted once: CRD
/// validation converts every schema it checks (and the schemas of selectable fields), and a
/// caller that needs the same forms afterwards (the analysis compiling the versions) takes
/// them from here instead of converting again. Schemas are told apart by address, so a cache
/// serves the schemas of one CRD value it borrows.
#[derive(Debug, Default)]
pub struct StructuralCache<'a> {
    entries: RefCell<Vec<CacheEntry<'a>>>,
}

type CacheEntry<'a> = (
    &'a JsonSchemaProps,
    Result<Arc<Structural>, ConversionError>,
);

impl<'a> StructuralCache<'a> {
    /// An empty cache.
    pub fn new() -> StructuralCache<'a> {
        StructuralCache::default()
    }

    /// `NewStructural(schema)`, converted on first use.
    pub fn get(&self, schema: &'a JsonSchemaProps) -> Result<Arc<Structural>, ConversionError> {
        if let Some((_, found)) = self
            .entries
            .borrow()
            .iter()
            .find(|(s, _)| std::ptr::eq(*s, schema))
        {
            return found.clone();
        }
        let converted = Structural::from_props(schema).map(Arc::new);
        self.entries.borrow_mut().push((schema, converted.clone()));
        converted
    }
}

/// `validateCustomResourceDefinitionValidation(ctx, validation, statusEnabled, opts, path)`:
/// the errors of one `spec.validation` / `spec.versions[i].schema`.
#[cfg(any(test, feature = "conformance"))]
pub fn validate_crd_validation(
    validation: Option<&CustomResourceValidation>,
    status_enabled: bool,
    opts: &ValidationOptions,
    path: &FieldPath,
    hooks: Hooks<'_>,
) -> Vec<FieldError> {
    validate_crd_validation_cached(
        validation,
        status_enabled,
        opts,
        path,
        hooks,
        &StructuralCache::new(),
    )
}

/// [`validate_crd_validation`], taking the schema's structural form from `cache` (converting
/// it there on first use).
pub fn validate_crd_validation_cached<'a>(
    validation: Option<&'a CustomResourceValidation>,
    status_enabled: bool,
    opts: &ValidationOptions,
    path: &FieldPath,
    hooks: Hooks<'_>,
    cache: &StructuralCache<'a>,
) -> Vec<FieldError> {
    let mut all = Vec::new();
    let Some(validation) = validation else {
        return all;
    };
    let schema_path = path.child("openAPIV3Schema");
    if let Some(schema) = validation.open_api_v3_schema.as_deref() {
        if status_enabled {
            for field in set_fields(schema) {
                if field == "Type" {
                    if schema.type_ != "object" {
                        all.push(FieldError::invalid(
                            schema_path.child("type"),
                            BadValue::Str(schema.type_.clone()),
                            "only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled",
                        ));
                        break;
                    }
                    continue;
                }
                if !ALLOWED_FIELDS_AT_ROOT.contains(&field) {
                    all.push(FieldError::invalid(
                        schema_path.clone(),
                        BadValue::Raw(schema_json(schema)),
                        format!(
                            "only [{}] fields are allowed at the root of the schema if the status subresource is enabled",
                            ALLOWED_FIELDS_AT_ROOT.join(" ")
                        ),
                    ));
                    break;
                }
            }
        }
        if schema.nullable {
            all.push(FieldError::forbidden(
                schema_path.child("nullable"),
                "nullable cannot be true at the root",
            ));
        }
        let ssv = Ssv {
            allow_defaults: opts.allow_defaults,
            disallow_defaults_reason: &opts.disallow_defaults_reason,
            inside_resource_meta: false,
            require_valid_property_type: opts.require_valid_property_type,
            uncorrelatable_path: None,
        };
        let mut cel_ctx = None;
        let mut structural_init_errs = Vec::new();
        if opts.require_structural_schema {
            match cache.get(schema) {
                Err(e) => structural_init_errs.push(FieldError::invalid(
                    schema_path.clone(),
                    BadValue::Str(String::new()),
                    e.0,
                )),
                Ok(ss) => {
                    let structural_errs = validate_structural(&schema_path, &ss);
                    if !structural_errs.is_empty() {
                        all.extend(structural_errs);
                    } else {
                        let defaults = match hooks.defaults {
                            Some(d) => d.validate_defaults(
                                &schema_path,
                                &ss,
                                true,
                                opts.require_pruned_defaults,
                            ),
                            None => Ok(Vec::new()),
                        };
                        match defaults {
                            Err(e) => all.push(FieldError::invalid(
                                schema_path.clone(),
                                BadValue::Str(String::new()),
                                e,
                            )),
                            Ok(errs) if !errs.is_empty() => all.extend(errs),
                            // The CEL context only serves the compiler: without one, no
                            // rule is compiled and no cost is counted.
                            Ok(_) if hooks.cel.is_some() => cel_ctx = Some(CelCtx::root(schema)),
                            Ok(_) => {}
                        }
                    }
                }
            }
        }
        let mut walker = Walker {
            opts,
            hooks,
            total_cost: TotalCost::default(),
            depth: 0,
            scope_cache: super::hooks::ScopeCache::default(),
        };
        let has_cel = cel_ctx.is_some();
        let errs = walker.walk(
            Some(schema),
            &LazyPath::new(&schema_path),
            ssv,
            true,
            cel_ctx,
        );
        all.extend(errs.schema);
        all.extend(errs.cel);
        if all.is_empty() {
            all.extend(structural_init_errs);
        }
        if has_cel && walker.total_cost.total > STATIC_ESTIMATED_CRD_COST_LIMIT {
            for (p, _) in &walker.total_cost.most_expensive {
                all.push(FieldError::forbidden(
                    p.clone(),
                    "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
                ));
            }
            all.push(FieldError::forbidden(
                schema_path,
                cost_error_message(
                    "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                    walker.total_cost.total,
                    STATIC_ESTIMATED_CRD_COST_LIMIT,
                ),
            ));
        }
    }
    all
}

// ------------------------------------------------------------------------------------------
// Schema predicates (`SchemaHas` and the helpers that pick update options)
// ------------------------------------------------------------------------------------------

/// `SchemaHas`: whether `pred` holds for the schema or any schema inside it (items, allOf,
/// anyOf, oneOf, not, properties, additionalProperties, patternProperties, additionalItems,
/// definitions, dependencies).
pub fn schema_has(s: &JsonSchemaProps, pred: &dyn Fn(&JsonSchemaProps) -> bool) -> bool {
    let mut stack: Vec<&JsonSchemaProps> = vec![s];
    while let Some(s) = stack.pop() {
        if pred(s) {
            return true;
        }
        match &s.items {
            Some(SchemaOrArray::Schema(i)) => stack.push(i),
            Some(SchemaOrArray::Array(list)) => stack.extend(list.iter()),
            None => {}
        }
        stack.extend(s.rare.all_of.iter());
        stack.extend(s.rare.any_of.iter());
        stack.extend(s.rare.one_of.iter());
        if let Some(n) = &s.rare.not {
            stack.push(n);
        }
        stack.extend(s.properties.values().map(Box::as_ref));
        if let Some(ap) = s
            .additional_properties
            .as_ref()
            .and_then(|a| a.schema.as_deref())
        {
            stack.push(ap);
        }
        stack.extend(s.rare.pattern_properties.values().map(Box::as_ref));
        if let Some(ai) = s
            .rare
            .additional_items
            .as_ref()
            .and_then(|a| a.schema.as_deref())
        {
            stack.push(ai);
        }
        stack.extend(s.rare.definitions.values().map(Box::as_ref));
        for d in s.rare.dependencies.values() {
            if let crate::schema::props::SchemaOrStringArray::Schema(x) = d {
                stack.push(x);
            }
        }
    }
    false
}

/// `schemaHasDefaults`.
pub fn schema_has_defaults(s: &JsonSchemaProps) -> bool {
    schema_has(s, &|s| s.default.is_some())
}

/// `schemaHasKubernetesExtensions`.
pub fn schema_has_kubernetes_extensions(s: &JsonSchemaProps) -> bool {
    schema_has(s, &|s| {
        s.x_embedded_resource
            || s.x_preserve_unknown_fields.is_some()
            || s.x_int_or_string
            || !s.x_list_map_keys.is_empty()
            || s.x_list_type.is_some()
            || !s.x_validations.is_empty()
    })
}

/// `schemaIsNonStructural`.
pub fn schema_is_non_structural(s: &JsonSchemaProps) -> bool {
    match Structural::from_props(s) {
        Err(_) => true,
        Ok(ss) => !validate_structural(&FieldPath::root(), &ss).is_empty(),
    }
}

/// `SchemaHasInvalidTypes`.
pub fn schema_has_invalid_types(s: &JsonSchemaProps) -> bool {
    schema_has(s, &|s| {
        !s.type_.is_empty() && !OPENAPI_V3_TYPES.contains(&s.type_.as_str())
    })
}

/// `hasNonAtomicSetType`.
pub fn has_non_atomic_set_type(s: &JsonSchemaProps) -> bool {
    schema_has(s, &|s| {
        if s.x_list_type.as_deref() != Some("set") {
            return false;
        }
        match s.items_schema() {
            Some(is) => match is.type_.as_str() {
                "array" => is.x_list_type.as_deref().is_some_and(|t| t != "atomic"),
                "object" => is.rare.x_map_type.as_deref() != Some("atomic"),
                _ => false,
            },
            None => false,
        }
    })
}

/// `hasInvalidMapListKeysMapSet`.
pub fn has_invalid_map_list_keys_map_set(s: &JsonSchemaProps) -> bool {
    schema_has(s, &|s| {
        !validate_map_list_keys_map_set(s, &FieldPath::root()).is_empty()
    })
}

/// `findPreexistingExpressionsInSchema`: every rule and messageExpression of the schema.
pub fn collect_expressions(s: &JsonSchemaProps, out: &mut PreexistingExpressions) {
    let rules = std::cell::RefCell::new(Vec::new());
    schema_has(s, &|s| {
        rules.borrow_mut().extend(s.x_validations.iter().cloned());
        false
    });
    for r in rules.into_inner() {
        if !r.message_expression.is_empty() {
            out.message_expressions.insert(r.message_expression);
        }
        out.rules.insert(r.rule);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn validate(schema: serde_json::Value, status: bool, opts: ValidationOptions) -> Vec<String> {
        let (props, e) = JsonSchemaProps::from_json(&schema);
        assert!(e.is_empty(), "{e:?}");
        let v = CustomResourceValidation {
            open_api_v3_schema: Some(Box::new(props)),
        };
        validate_crd_validation(
            Some(&v),
            status,
            &opts,
            &FieldPath::new("spec").child("validation"),
            Hooks::default(),
        )
        .iter()
        .map(FieldError::error)
        .collect()
    }

    #[test]
    fn root_fields_with_status() {
        let errs = validate(
            json!({"type": "object", "enum": ["a"]}),
            true,
            ValidationOptions::default(),
        );
        assert_eq!(errs.len(), 1);
        assert!(
            errs[0].starts_with("spec.validation.openAPIV3Schema: Invalid value: {\"ID\":\"\""),
            "{errs:?}"
        );
        let errs = validate(
            json!({"type": "string"}),
            true,
            ValidationOptions::default(),
        );
        assert_eq!(errs, vec!["spec.validation.openAPIV3Schema.type: Invalid value: \"string\": only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled"]);
    }

    #[test]
    fn list_and_map_extensions() {
        let errs = validate(
            json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k", "k"],
                   "items": {"type": "object", "properties": {"k": {"type": "object"}}}}),
            false,
            ValidationOptions::default(),
        );
        assert_eq!(errs, vec![
            "spec.validation.openAPIV3Schema.items.properties[k].type: Invalid value: \"object\": must be a scalar type if parent array's x-kubernetes-list-type is map",
            "spec.validation.openAPIV3Schema.items.properties[k].type: Invalid value: \"object\": must be a scalar type if parent array's x-kubernetes-list-type is map",
            "spec.validation.openAPIV3Schema.x-kubernetes-list-map-keys: Invalid value: [\"k\",\"k\"]: must not contain duplicate entries",
        ]);
    }

    #[test]
    fn structural_errors_only_when_required() {
        let opts = ValidationOptions {
            require_structural_schema: true,
            ..ValidationOptions::default()
        };
        assert_eq!(
            validate(json!({"properties": {"a": {}}}), false, opts.clone()),
            vec![
                "spec.validation.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields",
                "spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root",
            ]
        );
        assert!(validate(
            json!({"properties": {"a": {}}}),
            false,
            ValidationOptions::default()
        )
        .is_empty());
        // A NewStructural error shows only when nothing else is wrong.
        assert_eq!(
            validate(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": false}), false, opts),
            vec!["spec.validation.openAPIV3Schema.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined"]
        );
    }

    #[test]
    fn rule_syntax() {
        let errs = validate(
            json!({"type": "object", "x-kubernetes-validations": [
                {"rule": " "}, {"rule": "a\nb"}, {"rule": "x", "reason": "Nope"}, {"rule": "x", "fieldPath": ".nope"}]}),
            false,
            ValidationOptions::default(),
        );
        let fields: Vec<&str> = errs
            .iter()
            .map(|e| e.split(':').next().unwrap_or(""))
            .collect();
        assert_eq!(
            fields,
            vec![
                "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule",
                "spec.validation.openAPIV3Schema.x-kubernetes-validations[1].message",
                "spec.validation.openAPIV3Schema.x-kubernetes-validations[2].reason",
                "spec.validation.openAPIV3Schema.x-kubernetes-validations[3].fieldPath",
            ]
        );
    }

    #[test]
    fn cost_messages() {
        assert_eq!(
            cost_error_message("estimated rule cost", 12_000_000, STATIC_ESTIMATED_COST_LIMIT),
            "estimated rule cost exceeds budget by factor of 1.200000x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
        );
        assert!(
            cost_error_message("x", 25_000_000, STATIC_ESTIMATED_COST_LIMIT)
                .contains("factor of 2.5x")
        );
        assert!(
            cost_error_message("x", u64::MAX, STATIC_ESTIMATED_COST_LIMIT)
                .contains("more than 100x")
        );
    }

    #[test]
    fn schema_predicates() {
        let (s, _) = JsonSchemaProps::from_json(
            &json!({"type": "object", "properties": {"a": {"allOf": [{"default": 1}]}}}),
        );
        assert!(schema_has_defaults(&s));
        assert!(!schema_has_kubernetes_extensions(&s));
        assert!(schema_is_non_structural(&s));
    }
}
