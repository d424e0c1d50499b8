//! kubectl's own template test expectations (`pkg/explain/v2/templates/plaintext_test.go`)
//! and whole outputs for a CRD, worked out from the template.

use super::*;

fn doc() -> Document {
    Document {
        root: Json::Null,
        schemas: meta_schemas(),
    }
}

#[test]
fn kubectl_sub_template_cases() {
    let d = doc();
    // typeGuess
    for (schema, want) in [
        (json!({"type": "string"}), "string"),
        (
            json!({"type": "string", "additionalProperties": true}),
            "string",
        ),
        (json!({"type": "array"}), "array"),
        (json!({"type": "object"}), "Object"),
        (
            json!({"type": "array", "items": {"type": "number"}}),
            "[]number",
        ),
        (
            json!({"type": "array", "items": {"type": "object", "additionalProperties": {"type": "string"}}}),
            "[]map[string]string",
        ),
        (
            json!({"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}}),
            "map[string][]string",
        ),
        (
            json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}),
            "Object",
        ),
        (
            json!({"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time"}),
            "string",
        ),
        (metadata_ref(), "ObjectMeta"),
    ] {
        assert_eq!(d.type_guess(&schema, 0), want, "{schema}");
    }
    // fieldDetail
    let parent = json!({"type": "object", "description": "not printed",
        "properties": {"thefield": {"type": "string", "description": "a description that should be printed"}},
        "required": ["thefield"]});
    assert_eq!(
        d.field_detail("thefield", &parent, true, 0),
        "thefield\t<string> -required-\n"
    );
    assert_eq!(
        d.field_detail("thefield", &parent, false, 0),
        "thefield\t<string> -required-\n  a description that should be printed\n\n"
    );
    assert_eq!(
        d.field_detail("thefield", &parent, true, 5),
        "          thefield\t<string> -required-\n"
    );
    let with_docs = json!({"properties": {"thefield": {"type": "string", "description": "a description",
        "externalDocs": {"description": "Find more info here", "url": "https://example.com/docs"}}}});
    assert_eq!(
        d.field_detail("thefield", &with_docs, true, 0),
        "thefield\t<string>\n"
    );
    assert_eq!(
        d.field_detail("thefield", &with_docs, false, 0),
        "thefield\t<string>\n  a description\n\n  EXTERNAL DOCS:\n    Find more info here\n    URL: https://example.com/docs\n\n"
    );
    // extractEnum
    assert_eq!(extract_enum(&json!({"enum": []}), true, -1, 0), "");
    assert_eq!(
        extract_enum(&json!({"enum": [0, 1, 2, 3]}), true, -1, 0),
        "ENUM:\n    0\n    1\n    2\n    3"
    );
    assert_eq!(
        extract_enum(&json!({"enum": [0, 1, 2, 3]}), false, -1, 2),
        "\n  enum: 0, 1, 2, 3"
    );
    assert_eq!(
        extract_enum(&json!({"enum": [0, 1, 2, 3]}), false, 2, 2),
        "\n  enum: 0, 1, ...."
    );
    assert_eq!(
        extract_enum(&json!({"enum": [0, 1, 2, 3]}), true, 2, 2),
        "ENUM:\n    0\n    1, ...."
    );
    assert_eq!(
        extract_enum(&json!({"enum": ["Block", "File", ""]}), true, -1, 0),
        "ENUM:\n    Block\n    File\n    \"\""
    );
    assert_eq!(
        extract_enum(&json!({"enum": [1000000, 0.5]}), false, 4, 0),
        "\nenum: 1e+06, 0.5"
    );
}

#[test]
fn wraps_as_go_wordwrap() {
    assert_eq!(wrap(10, "aaa bbb ccc ddd"), "aaa bbb\nccc ddd");
    assert_eq!(wrap(5, "abcdefghij k"), "abcdefghij\nk");
    assert_eq!(wrap(76, "one\ntwo  three\n"), "one\ntwo  three\n");
    assert_eq!(wrap(4, "ab  \ncd"), "ab  \ncd");
}

fn widget_schema() -> Json {
    json!({
        "description": "Widget is a thing with a rather long description that goes on and on past the seventy-six columns.",
        "type": "object",
        "properties": {
            "spec": {
                "description": "The desired state.",
                "type": "object",
                "required": ["size"],
                "properties": {
                    "size": {"type": "integer", "description": "How big."},
                    "mode": {"type": "string", "enum": ["a", "b", "c", "d", "e"]},
                    "tags": {"type": "array", "items": {"type": "object", "properties": {"key": {"type": "string"}}}},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "template": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
                }
            },
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
        }
    })
}

fn run(path: &[&str], recursive: bool) -> Result<String, String> {
    let schema = widget_schema();
    let path: Vec<String> = path.iter().map(|s| (*s).to_owned()).collect();
    explain(&ExplainRequest {
        group: "example.com",
        version: "v1",
        kind: "Widget",
        schema: Some(&schema),
        field_path: &path,
        recursive,
    })
}

#[test]
fn the_resource() {
    assert_eq!(
        run(&[], false).unwrap(),
        "GROUP:      example.com
KIND:       Widget
VERSION:    v1

DESCRIPTION:
    Widget is a thing with a rather long description that goes on and on past
    the seventy-six columns.
    
FIELDS:
  apiVersion\t<string>
    APIVersion defines the versioned schema of this representation of an object.
    Servers should convert recognized schemas to the latest internal value, and
    may reject unrecognized values. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources

  kind\t<string>
    Kind is a string value representing the REST resource this object
    represents. Servers may infer this from the endpoint the client submits
    requests to. Cannot be updated. In CamelCase. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds

  metadata\t<ObjectMeta>
    Standard object's metadata. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

  spec\t<Object>
    The desired state.

  status\t<Object>
    <no description>


"
    );
}

#[test]
fn a_field_with_enum_and_arrays() {
    assert_eq!(
        run(&["spec"], false).unwrap(),
        "GROUP:      example.com
KIND:       Widget
VERSION:    v1

FIELD: spec <Object>


DESCRIPTION:
    The desired state.
    
FIELDS:
  labels\t<map[string]string>
    <no description>

  mode\t<string>
  enum: a, b, c, d, ....
    <no description>

  size\t<integer> -required-
    How big.

  tags\t<[]Object>
    <no description>

  template\t<Object>
    <no description>


"
    );
    assert_eq!(
        run(&["spec", "mode"], false).unwrap(),
        "GROUP:      example.com
KIND:       Widget
VERSION:    v1

FIELD: mode <string>
ENUM:
    a
    b
    c
    d
    e

DESCRIPTION:
    <empty>

"
    );
    // Through an array to its items' fields.
    assert!(run(&["spec", "tags", "key"], false)
        .unwrap()
        .contains("FIELD: key <string>\n\n\nDESCRIPTION:\n    <empty>\n"));
    assert_eq!(
        run(&["spec", "nope"], false),
        Err("field \"nope\" does not exist".to_owned())
    );
    assert_eq!(
        run(&["spec", "nope", "deeper"], false),
        Err("field \"deeper\" does not exist".to_owned())
    );
}

#[test]
fn recursive_and_embedded_resources() {
    let out = run(&["spec"], true).unwrap();
    assert_eq!(
        out,
        "GROUP:      example.com
KIND:       Widget
VERSION:    v1

FIELD: spec <Object>


DESCRIPTION:
    The desired state.
    
FIELDS:
  labels\t<map[string]string>
  mode\t<string>
  enum: a, b, c, d, ....
  size\t<integer> -required-
  tags\t<[]Object>
    key\t<string>
  template\t<Object>
    apiVersion\t<string> -required-
    kind\t<string> -required-
    metadata\t<ObjectMeta>
      annotations\t<map[string]string>
      creationTimestamp\t<string>
      deletionGracePeriodSeconds\t<integer>
      deletionTimestamp\t<string>
      finalizers\t<[]string>
      generateName\t<string>
      generation\t<integer>
      labels\t<map[string]string>
      managedFields\t<[]ManagedFieldsEntry>
        apiVersion\t<string>
        fieldsType\t<string>
        fieldsV1\t<FieldsV1>
        manager\t<string>
        operation\t<string>
        subresource\t<string>
        time\t<string>
      name\t<string>
      namespace\t<string>
      ownerReferences\t<[]OwnerReference>
        apiVersion\t<string> -required-
        blockOwnerDeletion\t<boolean>
        controller\t<boolean>
        kind\t<string> -required-
        name\t<string> -required-
        uid\t<string> -required-
      resourceVersion\t<string>
      selfLink\t<string>
      uid\t<string>

"
    );
    assert!(run(&["metadata"], false).is_err());
    // No schema: an object without fields.
    let none = explain(&ExplainRequest {
        group: "",
        version: "v1",
        kind: "Widget",
        ..ExplainRequest::default()
    })
    .unwrap();
    assert_eq!(
        none,
        "KIND:       Widget\nVERSION:    v1\n\nDESCRIPTION:\n    <empty>\n\n"
    );
}
