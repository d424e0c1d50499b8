//! The Go JSON form of the internal CRD's parts, as the server's error messages print them
//! (`%#v`-free `json.Marshal` of schemas, rules, versions).

use super::*;

/// The Go JSON of an internal schema (`apiextensions.JSONSchemaProps`, Go field names).
pub fn schema_json(s: &JsonSchemaProps) -> String {
    schema_json_depth(s, 0)
}

pub(super) fn schema_json_depth(s: &JsonSchemaProps, depth: usize) -> String {
    if depth > crate::schema::props::MAX_SCHEMA_DEPTH {
        return "null".to_owned();
    }
    let sub = |x: &JsonSchemaProps| schema_json_depth(x, depth + 1);
    let list = |xs: &[JsonSchemaProps]| crd_studio_gostd::json::list(xs.iter().map(sub));
    let map = |m: &BTreeMap<String, Box<JsonSchemaProps>>| {
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
    let dependencies = if s.rare.dependencies.is_empty() {
        "null".to_owned()
    } else {
        let items: Vec<String> = s
            .rare
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
        .str("ID", &s.rare.id)
        .str("Schema", &s.rare.schema)
        .opt_str("Ref", s.rare.ref_.as_deref())
        .str("Description", &s.description)
        .str("Type", &s.type_)
        .bool("Nullable", s.nullable)
        .str("Format", &s.format)
        .str("Title", &s.rare.title)
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
        .opt_float("MultipleOf", s.rare.multiple_of)
        .raw(
            "Enum",
            given(
                "enum",
                crd_studio_gostd::json::list(s.enum_.iter().map(crd_studio_gostd::json::marshal)),
            ),
        )
        .opt_int("MaxProperties", s.rare.max_properties)
        .opt_int("MinProperties", s.rare.min_properties)
        .raw(
            "Required",
            given("required", crd_studio_gostd::json::strings(&s.required)),
        )
        .raw("Items", items)
        .raw("AllOf", given("allOf", list(&s.rare.all_of)))
        .raw("OneOf", given("oneOf", list(&s.rare.one_of)))
        .raw("AnyOf", given("anyOf", list(&s.rare.any_of)))
        .raw(
            "Not",
            s.rare
                .not
                .as_deref()
                .map(sub)
                .unwrap_or_else(|| "null".into()),
        )
        .raw("Properties", given("properties", map(&s.properties)))
        .raw("AdditionalProperties", or_bool(&s.additional_properties))
        .raw(
            "PatternProperties",
            given("patternProperties", map(&s.rare.pattern_properties)),
        )
        .raw("Dependencies", given("dependencies", dependencies))
        .raw("AdditionalItems", or_bool(&s.rare.additional_items))
        .raw(
            "Definitions",
            given("definitions", map(&s.rare.definitions)),
        )
        .raw(
            "ExternalDocs",
            s.rare
                .external_docs
                .as_ref()
                .map(|d| {
                    Obj::new()
                        .str("Description", &d.description)
                        .str("URL", &d.url)
                        .finish()
                })
                .unwrap_or_else(|| "null".into()),
        )
        .raw("Example", json_opt(&s.rare.example))
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
        .opt_str("XMapType", s.rare.x_map_type.as_deref())
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

pub(super) fn validation_json(v: &Option<CustomResourceValidation>) -> String {
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

pub(super) fn subresources_json(s: &Option<Subresources>) -> String {
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

pub(super) fn column_json(c: &ColumnDefinition) -> String {
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
pub(super) fn empty_or(set: bool, json: String) -> String {
    if set && json == "null" {
        "[]".to_owned()
    } else {
        json
    }
}

pub(super) fn version_json(v: &CrdVersion) -> String {
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
