//! Whether a schema is structural: `ValidateStructural` (`pkg/apiserver/schema/validation.go`)
//! and `validateStructuralCompleteness` (`complete.go`), with the server's paths and messages.
//!
//! The errors of [`validate_structural`] are sorted by their `Error()` text, as the server
//! sorts them.

use std::collections::BTreeMap;

use crate::documents::field_error::{BadValue, FieldError};
use crate::documents::path::FieldPath;

use super::lazy_path::LazyPath;
use crate::schema::structural::{
    Extensions, Generic, NestedValueValidation, Structural, ValueValidation,
};

/// `schema.ValidationOptions`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StructuralOptions {
    /// `AllowNestedAdditionalProperties`: `additionalProperties` inside `allOf`/`anyOf`/...
    pub allow_nested_additional_properties: bool,
    /// `AllowNestedXValidations`: `x-kubernetes-validations` inside `allOf`.
    pub allow_nested_x_validations: bool,
    /// `AllowValidationPropertiesWithAdditionalProperties`: `allOf[].properties[x]` covered by
    /// a structural `additionalProperties`.
    pub allow_validation_properties_with_additional_properties: bool,
}

/// Where a schema node sits (`level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// The root of the schema.
    Root,
    /// An `items` schema.
    Item,
    /// A property or `additionalProperties` schema.
    Field,
}

/// `ValidateStructural(fldPath, s)`: the invariants of a structural schema and its
/// completeness, errors sorted by text. The options are all off, as for CRDs.
pub fn validate_structural(path: &FieldPath, s: &Structural) -> Vec<FieldError> {
    validate_structural_with_options(path, s, StructuralOptions::default())
}

/// `ValidateStructuralWithOptions`.
pub fn validate_structural_with_options(
    path: &FieldPath,
    s: &Structural,
    opts: StructuralOptions,
) -> Vec<FieldError> {
    let path = LazyPath::new(path);
    let mut errs = Vec::new();
    invariants(Some(s), Level::Root, &path, opts, &mut errs);
    if let Some(v) = &s.value_validation {
        vv_completeness(v, Some(s), &path, &path, opts, &mut errs);
    }
    errs.sort_by_cached_key(FieldError::error);
    errs
}

fn int_or_string_any_of() -> [NestedValueValidation; 2] {
    let with_type = |t: &str| NestedValueValidation {
        forbidden_generics: Generic {
            type_: t.to_owned(),
            ..Generic::default()
        },
        ..NestedValueValidation::default()
    };
    [with_type("integer"), with_type("string")]
}

/// Whether `any_of` is `[{type: integer}, {type: string}]` (nothing else set).
fn is_int_or_string(any_of: &[NestedValueValidation]) -> bool {
    // Only a list of two can match: build the expected value only then.
    any_of.len() == 2 && any_of == int_or_string_any_of().as_slice()
}

fn is_int_or_string_any_of(s: &Structural) -> bool {
    s.value_validation
        .as_ref()
        .is_some_and(|v| is_int_or_string(&v.any_of))
}

fn is_int_or_string_all_of(s: &Structural) -> bool {
    s.value_validation.as_ref().is_some_and(|v| {
        v.all_of
            .first()
            .is_some_and(|a| is_int_or_string(&a.value_validation.any_of))
    })
}

/// `validateStructuralInvariants`.
fn invariants(
    s: Option<&Structural>,
    lvl: Level,
    path: &LazyPath<'_>,
    opts: StructuralOptions,
    errs: &mut Vec<FieldError>,
) {
    let Some(s) = s else { return };
    if s.generic.type_ == "array" && s.items.is_none() {
        errs.push(FieldError::required(
            path.child("items").to_path(),
            "must be specified",
        ));
    }
    invariants(
        s.items.as_deref(),
        Level::Item,
        &path.child("items"),
        opts,
        errs,
    );
    let properties = path.child("properties");
    for (k, v) in &s.properties {
        invariants(Some(v), Level::Field, &properties.key(k), opts, errs);
    }
    if let Some(ap) = &s.additional_properties {
        if lvl == Level::Root {
            errs.push(FieldError::forbidden(
                path.child("additionalProperties").to_path(),
                "must not be used at the root",
            ));
        }
        if let Some(aps) = &ap.structural {
            invariants(
                Some(aps),
                Level::Field,
                &path.child("additionalProperties"),
                opts,
                errs,
            );
        }
    }
    validate_extensions(&s.extensions, path, errs);
    let skip_any_of = is_int_or_string_any_of(s);
    let skip_first_all_of_any_of = is_int_or_string_all_of(s);
    if let Some(vv) = &s.value_validation {
        value_validation(
            vv,
            skip_any_of,
            skip_first_all_of_any_of,
            lvl,
            path,
            opts,
            errs,
        );
    }
    let x = &s.extensions;
    let type_ = s.generic.type_.as_str();
    let check_metadata = lvl == Level::Root || x.x_embedded_resource;
    if x.x_embedded_resource && type_ != "object" {
        if type_.is_empty() {
            errs.push(FieldError::required(
                path.child("type").to_path(),
                "must be object if x-kubernetes-embedded-resource is true",
            ));
        } else {
            errs.push(FieldError::invalid(
                path.child("type").to_path(),
                BadValue::Str(type_.to_owned()),
                "must be object if x-kubernetes-embedded-resource is true",
            ));
        }
    } else if type_.is_empty() && !x.x_int_or_string && !x.x_preserve_unknown_fields {
        let detail = match lvl {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        errs.push(FieldError::required(path.child("type").to_path(), detail));
    }
    if x.x_embedded_resource && s.additional_properties.is_some() {
        errs.push(FieldError::forbidden(
            path.child("additionalProperties").to_path(),
            "must not be used if x-kubernetes-embedded-resource is set",
        ));
    }
    if lvl == Level::Root && !type_.is_empty() && type_ != "object" {
        errs.push(FieldError::invalid(
            path.child("type").to_path(),
            BadValue::Str(type_.to_owned()),
            "must be object at the root",
        ));
    }
    for meta_field in ["kind", "apiVersion"] {
        if let Some(p) = s.properties.get(meta_field) {
            if check_metadata && p.generic.type_ != "string" {
                errs.push(FieldError::invalid(
                    properties.key(meta_field).child("type").to_path(),
                    BadValue::Str(p.generic.type_.clone()),
                    "must be string",
                ));
            }
        }
    }
    if let Some(metadata) = s.properties.get("metadata") {
        errs.extend(validate_structural_metadata_invariants(
            metadata,
            check_metadata,
            lvl,
            &properties.key("metadata").to_path(),
        ));
    }
    if x.x_embedded_resource && !x.x_preserve_unknown_fields && s.properties.is_empty() {
        errs.push(FieldError::required(
            path.child("properties").to_path(),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ));
    }
}

/// `validateStructuralMetadataInvariants`: the schema of a `metadata` property. It must be an
/// object where metadata is checked, and at the root it may only restrict `name` and
/// `generateName`.
pub fn validate_structural_metadata_invariants(
    s: &Structural,
    check_metadata: bool,
    lvl: Level,
    path: &FieldPath,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if check_metadata && s.generic.type_ != "object" {
        errs.push(FieldError::invalid(
            path.child("type"),
            BadValue::Str(s.generic.type_.clone()),
            "must be object",
        ));
    }
    if lvl == Level::Root {
        let mut m = s.clone();
        let name = m.properties.contains_key("name");
        let generate_name = m.properties.contains_key("generateName");
        if (name && generate_name && m.properties.len() == 2)
            || ((name || generate_name) && m.properties.len() == 1)
        {
            m.properties = BTreeMap::new();
        }
        m.generic.type_ = String::new();
        m.generic.default = None;
        if m.value_validation.is_none() {
            m.value_validation = Some(Default::default());
        }
        let allowed = Structural {
            value_validation: Some(Default::default()),
            ..Structural::default()
        };
        if m != allowed {
            errs.push(FieldError::forbidden(
                path.clone(),
                "must not specify anything other than name and generateName, but metadata is implicitly specified",
            ));
        }
    }
    errs
}

/// `validateExtensions`.
fn validate_extensions(x: &Extensions, path: &LazyPath<'_>, errs: &mut Vec<FieldError>) {
    if x.x_int_or_string && x.x_preserve_unknown_fields {
        errs.push(FieldError::invalid(
            path.child("x-kubernetes-preserve-unknown-fields").to_path(),
            BadValue::Bool(x.x_preserve_unknown_fields),
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    if x.x_int_or_string && x.x_embedded_resource {
        errs.push(FieldError::invalid(
            path.child("x-kubernetes-embedded-resource").to_path(),
            BadValue::Bool(x.x_embedded_resource),
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
}

/// `validateValueValidation`.
fn value_validation(
    v: &ValueValidation,
    skip_any_of: bool,
    skip_first_all_of_any_of: bool,
    lvl: Level,
    path: &LazyPath<'_>,
    opts: StructuralOptions,
    errs: &mut Vec<FieldError>,
) {
    let no_cel = StructuralOptions {
        allow_nested_x_validations: false,
        ..opts
    };
    if !skip_any_of {
        let any_of = path.child("anyOf");
        for (i, a) in v.any_of.iter().enumerate() {
            nested(Some(a), false, false, lvl, &any_of.index(i), no_cel, errs);
        }
    }
    let all_of = path.child("allOf");
    for (i, a) in v.all_of.iter().enumerate() {
        let skip = skip_first_all_of_any_of && i == 0;
        nested(Some(a), skip, false, lvl, &all_of.index(i), opts, errs);
    }
    let one_of = path.child("oneOf");
    for (i, a) in v.one_of.iter().enumerate() {
        nested(Some(a), false, false, lvl, &one_of.index(i), no_cel, errs);
    }
    nested(
        v.not.as_deref(),
        false,
        false,
        lvl,
        &path.child("not"),
        no_cel,
        errs,
    );
    if !v.pattern.is_empty() {
        if let Err(e) = crd_studio_gostd::regexp::check(&v.pattern) {
            errs.push(FieldError::invalid(
                path.child("pattern").to_path(),
                BadValue::Str(v.pattern.clone()),
                format!("must be a valid regular expression, but isn't: {e}"),
            ));
        }
    }
}

/// `validateNestedValueValidation`.
fn nested(
    v: Option<&NestedValueValidation>,
    skip_any_of: bool,
    skip_all_of_any_of: bool,
    lvl: Level,
    path: &LazyPath<'_>,
    opts: StructuralOptions,
    errs: &mut Vec<FieldError>,
) {
    let Some(v) = v else { return };
    value_validation(
        &v.value_validation,
        skip_any_of,
        skip_all_of_any_of,
        lvl,
        path,
        opts,
        errs,
    );
    nested(
        v.items.as_deref(),
        false,
        false,
        lvl,
        &path.child("items"),
        opts,
        errs,
    );
    let properties = path.child("properties");
    for (k, f) in &v.properties {
        nested(
            Some(f),
            false,
            false,
            Level::Field,
            &properties.key(k),
            opts,
            errs,
        );
    }
    let forbidden =
        |name: &str, detail: &str| FieldError::forbidden(path.child(name).to_path(), detail);
    let g = &v.forbidden_generics;
    if !g.type_.is_empty() {
        errs.push(forbidden("type", "must be empty to be structural"));
    }
    if v.additional_properties.is_some() && !opts.allow_nested_additional_properties {
        errs.push(forbidden(
            "additionalProperties",
            "must be undefined to be structural",
        ));
    } else {
        nested(
            v.additional_properties.as_deref(),
            false,
            false,
            lvl,
            &path.child("additionalProperties"),
            opts,
            errs,
        );
    }
    if g.default.is_some() {
        errs.push(forbidden("default", "must be undefined to be structural"));
    }
    if !g.title.is_empty() {
        errs.push(forbidden("title", "must be empty to be structural"));
    }
    if !g.description.is_empty() {
        errs.push(forbidden("description", "must be empty to be structural"));
    }
    if g.nullable {
        errs.push(forbidden("nullable", "must be false to be structural"));
    }
    let x = &v.forbidden_extensions;
    if x.x_preserve_unknown_fields {
        errs.push(forbidden(
            "x-kubernetes-preserve-unknown-fields",
            "must be false to be structural",
        ));
    }
    if x.x_embedded_resource {
        errs.push(forbidden(
            "x-kubernetes-embedded-resource",
            "must be false to be structural",
        ));
    }
    if x.x_int_or_string {
        errs.push(forbidden(
            "x-kubernetes-int-or-string",
            "must be false to be structural",
        ));
    }
    if !x.x_list_map_keys.is_empty() {
        errs.push(forbidden(
            "x-kubernetes-list-map-keys",
            "must be empty to be structural",
        ));
    }
    if x.x_list_type.is_some() {
        errs.push(forbidden(
            "x-kubernetes-list-type",
            "must be undefined to be structural",
        ));
    }
    if x.x_map_type.is_some() {
        errs.push(forbidden(
            "x-kubernetes-map-type",
            "must be undefined to be structural",
        ));
    }
    if !v.x_validations.is_empty() && !opts.allow_nested_x_validations {
        errs.push(forbidden(
            "x-kubernetes-validations",
            "must be empty to be structural",
        ));
    }
    if v.properties.contains_key("metadata") {
        errs.push(FieldError::forbidden(
            properties.key("metadata").to_path(),
            "must not be specified in a nested context",
        ));
    }
}

/// `validateStructuralCompleteness`: every property, `items` and `additionalProperties` a
/// value validation (`allOf`, `anyOf`, `oneOf`, `not`) mentions must exist in the structural
/// part of the schema.
#[cfg(any(test, feature = "conformance"))]
pub fn validate_structural_completeness(
    path: &FieldPath,
    s: &Structural,
    opts: StructuralOptions,
) -> Vec<FieldError> {
    let path = LazyPath::new(path);
    let mut errs = Vec::new();
    if let Some(v) = &s.value_validation {
        vv_completeness(v, Some(s), &path, &path, opts, &mut errs);
    }
    errs
}

fn required_because(s_path: &LazyPath<'_>, v_path: &LazyPath<'_>) -> FieldError {
    FieldError::required(
        s_path.to_path(),
        format!("because it is defined in {v_path}"),
    )
}

fn vv_completeness(
    v: &ValueValidation,
    s: Option<&Structural>,
    s_path: &LazyPath<'_>,
    v_path: &LazyPath<'_>,
    opts: StructuralOptions,
    errs: &mut Vec<FieldError>,
) {
    let Some(s) = s else {
        errs.push(required_because(s_path, v_path));
        return;
    };
    nested_completeness(
        v.not.as_deref(),
        Some(s),
        s_path,
        &v_path.child("not"),
        opts,
        errs,
    );
    for (key, list) in [
        ("allOf", &v.all_of),
        ("anyOf", &v.any_of),
        ("oneOf", &v.one_of),
    ] {
        let list_path = v_path.child(key);
        for (i, a) in list.iter().enumerate() {
            nested_completeness(Some(a), Some(s), s_path, &list_path.index(i), opts, errs);
        }
    }
}

fn nested_completeness(
    v: Option<&NestedValueValidation>,
    s: Option<&Structural>,
    s_path: &LazyPath<'_>,
    v_path: &LazyPath<'_>,
    opts: StructuralOptions,
    errs: &mut Vec<FieldError>,
) {
    let Some(v) = v else { return };
    let Some(s) = s else {
        errs.push(required_because(s_path, v_path));
        return;
    };
    vv_completeness(&v.value_validation, Some(s), s_path, v_path, opts, errs);
    nested_completeness(
        v.items.as_deref(),
        s.items.as_deref(),
        &s_path.child("items"),
        &v_path.child("items"),
        opts,
        errs,
    );
    let s_ap = s.additional_properties_schema();
    let s_properties = s_path.child("properties");
    let v_properties = v_path.child("properties");
    for (k, f) in &v.properties {
        let vp = v_properties.key(k);
        match s.properties.get(k) {
            Some(sf) => {
                nested_completeness(Some(f), Some(sf), &s_properties.key(k), &vp, opts, errs)
            }
            None => match s_ap {
                Some(ap) if opts.allow_validation_properties_with_additional_properties => {
                    nested_completeness(
                        Some(f),
                        Some(ap),
                        &s_path.child("additionalProperties"),
                        &vp,
                        opts,
                        errs,
                    )
                }
                _ => errs.push(required_because(&s_properties.key(k), &vp)),
            },
        }
    }
    if v.additional_properties.is_some() && opts.allow_nested_additional_properties {
        nested_completeness(
            v.additional_properties.as_deref(),
            s_ap,
            &s_path.child("additionalProperties"),
            &v_path.child("additionalProperties"),
            opts,
            errs,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::JsonSchemaProps;
    use serde_json::json;

    fn structural(v: serde_json::Value) -> Structural {
        let (p, e) = JsonSchemaProps::from_json(&v);
        assert!(e.is_empty(), "{e:?}");
        Structural::from_props(&p).unwrap()
    }

    fn errors(v: serde_json::Value) -> Vec<String> {
        validate_structural(&FieldPath::new("schema"), &structural(v))
            .iter()
            .map(FieldError::error)
            .collect()
    }

    #[test]
    fn types_are_required() {
        assert_eq!(
            errors(json!({"properties": {"a": {}}, "type": "object", "items": {}})),
            vec![
                "schema.items.type: Required value: must not be empty for specified array items",
                "schema.properties[a].type: Required value: must not be empty for specified object fields",
            ]
        );
        assert_eq!(
            errors(json!({})),
            vec!["schema.type: Required value: must not be empty at the root"]
        );
        assert!(errors(json!({"type": "object", "properties": {"a": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}}})).is_empty());
    }

    #[test]
    fn nested_value_validations_are_restricted() {
        let errs = errors(json!({
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "anyOf": [{"type": "string", "description": "d", "properties": {"b": {}}}],
        }));
        assert_eq!(
            errs,
            vec![
                "schema.anyOf[0].description: Forbidden: must be empty to be structural",
                "schema.anyOf[0].type: Forbidden: must be empty to be structural",
                "schema.properties[b]: Required value: because it is defined in schema.anyOf[0].properties[b]",
            ]
        );
    }

    #[test]
    fn patterns_must_compile_in_go() {
        assert_eq!(
            errors(json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "a{2,1}"}}})),
            vec!["schema.properties[a].pattern: Invalid value: \"a{2,1}\": must be a valid regular expression, but isn't: error parsing regexp: invalid repeat count: `{2,1}`"]
        );
        assert!(errors(json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^\\p{Greek}+$"}}})).is_empty());
    }

    #[test]
    fn metadata_at_the_root() {
        let ok = structural(json!({"type": "object", "properties": {"name": {"type": "string"}}}));
        assert!(validate_structural_metadata_invariants(
            &ok,
            true,
            Level::Root,
            &FieldPath::root()
        )
        .is_empty());
        let bad =
            structural(json!({"type": "object", "properties": {"labels": {"type": "object"}}}));
        assert_eq!(
            validate_structural_metadata_invariants(&bad, true, Level::Root, &FieldPath::root())
                .len(),
            1
        );
        let arr = structural(json!({"type": "array"}));
        assert_eq!(
            validate_structural_metadata_invariants(&arr, true, Level::Field, &FieldPath::root())
                .first()
                .map(FieldError::error),
            Some("type: Invalid value: \"array\": must be object".to_owned())
        );
    }

    #[test]
    fn completeness_options() {
        let s = structural(json!({
            "additionalProperties": {"type": "object"},
            "allOf": [{"properties": {"foo": {"minLength": 2}}}],
        }));
        let strict =
            validate_structural_completeness(&FieldPath::root(), &s, StructuralOptions::default());
        assert_eq!(strict.len(), 1);
        let relaxed = validate_structural_completeness(
            &FieldPath::root(),
            &s,
            StructuralOptions {
                allow_validation_properties_with_additional_properties: true,
                ..StructuralOptions::default()
            },
        );
        assert!(relaxed.is_empty());
    }
}
