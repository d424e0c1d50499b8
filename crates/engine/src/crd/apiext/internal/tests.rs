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
