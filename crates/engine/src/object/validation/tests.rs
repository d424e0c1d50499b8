//! Table tests of the validator, in our own words.

use serde_json::{json, Value as Json};

use super::*;

fn props(v: Json) -> JsonSchemaProps {
    let (p, errs) = JsonSchemaProps::from_json(&v);
    assert!(errs.is_empty(), "{errs:?}");
    p
}

fn errors(schema: Json, obj: Json) -> Vec<String> {
    let p = props(schema);
    let mut out: Vec<String> = validate(&obj, Some(&p), &Options::default())
        .iter()
        .map(FieldError::error)
        .collect();
    out.sort();
    out
}

#[test]
fn types_and_nullability() {
    let schema = json!({"type": "object", "properties": {
        "n": {"type": "integer"},
        "o": {"type": "object", "nullable": true},
        "ios": {"x-kubernetes-int-or-string": true},
    }});
    assert_eq!(
        errors(schema.clone(), json!({"n": "7", "o": null, "ios": 1.5})),
        vec![
            "ios: Invalid value: \"number\": ios in body must be of type integer,string: \"number\"",
            "n: Invalid value: \"string\": n in body must be of type integer: \"string\"",
        ]
    );
    assert!(errors(schema.clone(), json!({"n": 7.0, "ios": "x"})).is_empty());
    assert_eq!(
        errors(schema, json!({"n": null})),
        vec!["n: Invalid value: \"null\": n in body must be of type integer: \"null\""]
    );
    assert_eq!(
        errors(json!({"type": "object"}), json!([1])),
        vec!["<nil>: Invalid value: \"array\":  in body must be of type object: \"array\""]
    );
}

#[test]
fn strings_numbers_and_enums() {
    let schema = json!({"type": "object", "properties": {
        "s": {"type": "string", "minLength": 3, "pattern": "^a"},
        "one": {"type": "string", "maxLength": 1},
        "m": {"type": "integer", "minimum": 2, "maximum": 5, "exclusiveMaximum": true, "multipleOf": 2},
        "f": {"type": "number", "maximum": 1.5},
        "e": {"type": "string", "enum": ["x", "y"]},
        "ne": {"type": "integer", "enum": [1, 2]},
    }});
    assert_eq!(
        errors(
            schema.clone(),
            json!({"s": "bc", "one": "xy", "m": 5, "f": 2.25, "e": "z", "ne": 3})
        ),
        vec![
            "e: Unsupported value: \"z\": supported values: \"x\", \"y\"",
            "f: Invalid value: 2.25: f in body should be less than or equal to 1.5",
            "m: Invalid value: 5: m in body should be a multiple of 2",
            "m: Invalid value: 5: m in body should be less than 5",
            "ne: Unsupported value: 3: supported values: \"1\", \"2\"",
            "one: Too long: may not be more than 1 byte",
            "s: Invalid value: \"bc\": s in body should be at least 3 chars long",
        ]
    );
    assert_eq!(
        errors(schema.clone(), json!({"s": "bcd"})),
        vec!["s: Invalid value: \"bcd\": s in body should match '^a'"]
    );
    // An integer matches a float enum value, as Go converts int64 to float64.
    assert!(errors(schema, json!({"ne": 2, "m": 4})).is_empty());
}

#[test]
fn arrays_objects_and_required() {
    let schema = json!({"type": "object", "required": ["a"], "properties": {
        "l": {"type": "array", "minItems": 2, "maxItems": 3, "items": {"type": "string"}},
        "o": {"type": "object", "minProperties": 1, "additionalProperties": {"type": "boolean"}},
    }});
    assert_eq!(
        errors(schema.clone(), json!({"l": [1], "o": {}})),
        vec![
            "a: Required value",
            "l: Invalid value: 1: l in body should have at least 2 items",
            "l[0]: Invalid value: \"integer\": l[0] in body must be of type string: \"integer\"",
            "o: Invalid value: 0: o in body should have at least 1 properties",
        ]
    );
    assert_eq!(
        errors(
            schema,
            json!({"a": 1, "l": ["a", "b", "c", "d"], "o": {"x": 1}})
        ),
        vec![
            "l: Too many: 4: must have at most 3 items",
            "o.x: Invalid value: \"integer\": o.x in body must be of type boolean: \"integer\"",
        ]
    );
}

#[test]
fn junctors_keep_the_best_failure() {
    let schema = json!({"type": "object", "properties": {"v": {
        "anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 1}],
    }}});
    assert!(errors(schema.clone(), json!({"v": "a"})).is_empty());
    assert_eq!(
        errors(schema, json!({"v": true})),
        vec![
            "<nil>: Invalid value: \"\": \"v\" must validate at least one schema (anyOf)",
            "v: Invalid value: \"boolean\": v in body must be of type integer: \"boolean\"",
        ]
    );
    let one_of = json!({"type": "object", "properties": {"v": {
        "oneOf": [{"minimum": 1}, {"maximum": 10}],
    }}});
    assert_eq!(
        errors(one_of, json!({"v": 5})),
        vec![
            "<nil>: Invalid value: \"\": \"v\" must validate one and only one schema (oneOf). Found 2 valid alternatives"
        ]
    );
    let not = json!({"type": "object", "properties": {"v": {"not": {"type": "string"}}}});
    assert_eq!(
        errors(not, json!({"v": "s"})),
        vec!["<nil>: Invalid value: \"\": \"v\" must not validate the schema (not)"]
    );
}

#[test]
fn formats_follow_the_compatibility_version() {
    let schema = props(json!({"type": "object", "properties": {
        "n": {"type": "string", "format": "k8s-short-name"},
        "d": {"type": "string", "format": "date"},
        "u": {"type": "integer", "format": "uuid"},
    }}));
    let obj = json!({"n": "Not_A_Name", "d": "2021-13-01", "u": 3});
    let at = |minor| {
        let o = Options {
            compatibility_version: KubernetesVersion::new(minor),
        };
        let mut e: Vec<String> = validate(&obj, Some(&schema), &o)
            .iter()
            .map(FieldError::error)
            .collect();
        e.sort();
        e
    };
    assert_eq!(
        at(33),
        vec!["d: Invalid value: \"2021-13-01\": d in body must be of type date: \"2021-13-01\""]
    );
    assert_eq!(at(34).len(), 2);
}

#[test]
fn invalid_patterns_report_go_errors() {
    assert_eq!(
        errors(
            json!({"type": "object", "properties": {"p": {"type": "string", "pattern": "a(b"}}}),
            json!({"p": "x"})
        ),
        vec!["p: Invalid value: \"x\": p in body should match 'a(b, but pattern is invalid: error parsing regexp: missing closing ): `a(b`'"]
    );
}

#[test]
fn field_path_prefix() {
    let v = SchemaValidator::new(
        Some(&props(
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        )),
        &Options::default(),
    );
    let errs = v.validate(&FieldPath::new("status"), &json!({"a": 1}));
    assert_eq!(
        errs.iter().map(FieldError::error).collect::<Vec<_>>(),
        vec!["status.a: Invalid value: \"integer\": a in body must be of type string: \"integer\""]
    );
}

#[test]
fn ratcheting_keeps_unchanged_invalid_values() {
    let schema = props(json!({"type": "object", "properties": {
        "a": {"type": "integer", "maximum": 3},
        "b": {"type": "string"},
        "l": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
              "items": {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "integer", "maximum": 1}}}},
        "kind": {"type": "string", "maxLength": 1},
    }}));
    let v = SchemaValidator::new(Some(&schema), &Options::default());
    let old =
        json!({"a": 9, "b": "x", "l": [{"k": "p", "v": 5}, {"k": "q", "v": 1}], "kind": "Long"});
    let new = json!({"a": 9, "b": "y", "l": [{"k": "q", "v": 1}, {"k": "p", "v": 5}, {"k": "r", "v": 7}], "kind": "Long"});
    let out = v.validate_update_detailed(&FieldPath::root(), &new, &old, true);
    let errs: Vec<String> = out.errors.iter().map(FieldError::error).collect();
    assert_eq!(
        errs,
        vec![
            "kind: Too long: may not be more than 1 byte",
            "l[2].v: Invalid value: 7: l[2].v in body should be less than or equal to 1",
        ]
    );
    assert_eq!(out.ratcheted.len(), 2);
    // Without ratcheting every invalid value counts.
    assert_eq!(
        v.validate_update(&FieldPath::root(), &new, &old, false)
            .len(),
        4
    );
}

fn nested(depth: usize) -> (JsonSchemaProps, Json, Json) {
    let mut schema = props(json!({"type": "integer", "maximum": 1}));
    let mut obj = json!(5);
    let mut old = json!(5);
    let wrap = |inner: Json| {
        let mut m = serde_json::Map::new();
        m.insert("n".to_owned(), inner);
        Json::Object(m)
    };
    let any_of = props(json!({"required": ["n"]}));
    for _ in 0..depth {
        let mut p = JsonSchemaProps {
            type_: "object".into(),
            ..JsonSchemaProps::default()
        };
        p.rare.any_of = vec![any_of.clone()];
        p.properties.insert("n".into(), Box::new(schema));
        schema = p;
        obj = wrap(obj);
        old = wrap(old);
    }
    (schema, obj, old)
}

#[test]
fn deep_schemas_and_objects_do_not_exhaust_the_stack() {
    // Far beyond the validation depth, on a test thread's stack: nothing below the limit is
    // checked (the innermost value is invalid), and nothing overflows.
    let (schema, obj, old) = nested(1500);
    let v = SchemaValidator::new(Some(&schema), &Options::default());
    assert!(v.validate(&FieldPath::root(), &obj).is_empty());
    assert!(v
        .validate_update(&FieldPath::root(), &obj, &old, true)
        .is_empty());
    // Within the limit the innermost error is found.
    let (shallow, sobj, _) = nested(40);
    let errs = SchemaValidator::new(Some(&shallow), &Options::default())
        .validate(&FieldPath::root(), &sobj);
    assert_eq!(errs.len(), 1, "{errs:?}");
    std::mem::forget((schema, obj, old, v, shallow, sobj));
}

fn default_errors(schema: Json, default: Json) -> Vec<String> {
    let s = crate::schema::Structural::from_props(&props(schema)).unwrap();
    validate_default_value(&FieldPath::new("default"), &default, &s)
        .iter()
        .map(FieldError::error)
        .collect()
}

/// A schema's `default` keeps its numbers' Go types: apiextensions decodes a v1 `JSON` value
/// with `k8s.io/apimachinery/pkg/util/json.Unmarshal` (`pkg/apis/apiextensions/v1/conversion.go`
/// `Convert_v1_JSON_To_apiextensions_JSON`), which keeps integers as `int64`; kube-openapi's
/// `typeValidator.schemaInfoForType` (`pkg/validation/validate/type.go`) then names an int64
/// `integer`/`int64` and a float64 `number`/`float64`.
#[test]
fn default_numbers_keep_their_go_type() {
    let cases: Vec<(Json, Json, Vec<&str>)> = vec![
        (
            json!({"type": "string"}),
            json!(5),
            vec![
                r#"default: Invalid value: "integer":  in body must be of type string: "integer""#,
            ],
        ),
        (
            json!({"type": "string"}),
            json!(5.5),
            vec![r#"default: Invalid value: "number":  in body must be of type string: "number""#],
        ),
        (
            json!({"type": "boolean"}),
            json!({"a": 1}),
            vec![r#"default: Invalid value: "object":  in body must be of type boolean: "object""#],
        ),
        (
            json!({"type": "object", "properties": {"n": {"type": "string"}}}),
            json!({"n": 7}),
            vec![
                r#"default.n: Invalid value: "integer": n in body must be of type string: "integer""#,
            ],
        ),
        // A format the value's Go type does not match: the Go type's own format is named.
        (
            json!({"type": "string", "format": "date"}),
            json!(5),
            vec![r#"default: Invalid value: "int64":  in body must be of type date: "int64""#],
        ),
        (
            json!({"type": "string", "format": "date"}),
            json!(5.5),
            vec![r#"default: Invalid value: "float64":  in body must be of type date: "float64""#],
        ),
        // An int64 default of a `number`: accepted (`isIntFloat`).
        (json!({"type": "number"}), json!(3), vec![]),
        // An enum of integers: the default's int64 compares equal.
        (json!({"type": "integer", "enum": [1, 2]}), json!(2), vec![]),
        (
            json!({"type": "integer", "enum": [1, 2]}),
            json!(3),
            vec![r#"default: Unsupported value: 3: supported values: "1", "2""#],
        ),
        // The bad value of an int64 prints as one (`%v`), not as the float64 `1e+06`.
        (
            json!({"type": "integer", "enum": [1]}),
            json!(1000000),
            vec![r#"default: Unsupported value: 1000000: supported values: "1""#],
        ),
    ];
    for (schema, default, want) in cases {
        assert_eq!(default_errors(schema.clone(), default), want, "{schema}");
    }
}

/// (kube-openapi validates the value at the path `""`; apiextensions'
/// `kubeOpenAPIResultToFieldErrors` puts the field path in front.)
///
/// `multipleOf: 0` (or negative) with a default: kube-openapi's `numberValidator.Validate`
/// (`pkg/validation/validate/validator.go`) calls `MultipleOfNativeType`
/// (`pkg/validation/validate/values.go`), whose `MultipleOfInt` (int64 data, factor
/// `int64(multipleOf)`) and `MultipleOf` (float64) both return
/// `errors.MultipleOfMustBePositive`: `factor MultipleOf declared for <path> must be
/// positive: <factor>`, even next to a type error.
#[test]
fn multiple_of_must_be_positive_for_defaults() {
    let cases: Vec<(Json, Json, Vec<&str>)> =
        vec![
        (
            json!({"type": "integer", "multipleOf": 0}),
            json!(4),
            vec!["default: Invalid value: 0: factor MultipleOf declared for  must be positive: 0"],
        ),
        (
            json!({"type": "number", "multipleOf": 0}),
            json!(4.5),
            vec!["default: Invalid value: 0: factor MultipleOf declared for  must be positive: 0"],
        ),
        // An int64 default meets `MultipleOfInt` with the factor converted by `int64(f)`:
        // 0.5 becomes 0, so the server reports it as not positive; 2.5 becomes 2.
        (
            json!({"type": "number", "multipleOf": 0.5}),
            json!(3),
            vec!["default: Invalid value: 0: factor MultipleOf declared for  must be positive: 0"],
        ),
        (json!({"type": "number", "multipleOf": 0.5}), json!(3.5), vec![]),
        (
            json!({"type": "number", "multipleOf": 2.5}),
            json!(5),
            vec!["default: Invalid value: 5:  in body should be a multiple of 2"],
        ),
        (json!({"type": "number", "multipleOf": 1.5}), json!(3), vec![]),
        (
            json!({"type": "integer", "multipleOf": -2}),
            json!(4),
            vec![
                "default: Invalid value: -2: factor MultipleOf declared for  must be positive: -2",
            ],
        ),
        (
            json!({"type": "string", "multipleOf": 0}),
            json!(5),
            vec![
                r#"default: Invalid value: "integer":  in body must be of type string: "integer""#,
                "default: Invalid value: 0: factor MultipleOf declared for  must be positive: 0",
            ],
        ),
        (
            json!({"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 0}}}),
            json!({"n": 3}),
            vec![
                "default.n: Invalid value: 0: factor MultipleOf declared for n must be positive: 0",
            ],
        ),
    ];
    for (schema, default, want) in cases {
        assert_eq!(default_errors(schema.clone(), default), want, "{schema}");
    }
}

/// The same through a CRD's YAML: `5` and `5.0` reach the server as the integer 5 (kubectl
/// writes YAML as JSON with `sigs.k8s.io/yaml`, and Go's encoder writes a whole float64
/// without a fraction), `5.5` as a float64.
#[test]
fn crd_default_numbers_reach_messages_as_the_server_decodes_them() {
    let crd = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              a: {type: string, default: 5}
              b: {type: string, default: 5.0}
              c: {type: string, default: 5.5}
              d: {type: integer, multipleOf: 0, default: 4}
              e: {type: number, multipleOf: 0.5, default: 3}
"#;
    let c = crate::report::analysis::CompiledCrd::compile(
        crd,
        &crate::report::analysis::Options::default(),
    );
    let mut got: Vec<String> = c.findings().iter().map(|f| f.message.clone()).collect();
    got.sort();
    let p = "spec.validation.openAPIV3Schema.properties[spec].properties";
    assert_eq!(
        got,
        [
            format!(r#"{p}[a].default: Invalid value: "integer":  in body must be of type string: "integer""#),
            format!(r#"{p}[b].default: Invalid value: "integer":  in body must be of type string: "integer""#),
            format!(r#"{p}[c].default: Invalid value: "number":  in body must be of type string: "number""#),
            format!("{p}[d].default: Invalid value: 0: factor MultipleOf declared for  must be positive: 0"),
            format!("{p}[e].default: Invalid value: 0: factor MultipleOf declared for  must be positive: 0"),
        ]
    );
}
