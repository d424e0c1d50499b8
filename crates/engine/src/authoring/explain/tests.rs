//! kubectl's own template test expectations (`pkg/explain/v2/templates/plaintext_test.go`)
//! and whole outputs for a CRD, worked out from the template.

use super::*;

fn doc() -> Document {
    Document {
        root: Json::Null,
        schemas: object_meta::schemas(),
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

// `metadata` and below: ObjectMeta's published schema (`object_meta.rs`) through kubectl's
// plaintext template (kubectl master of July 2026, `pkg/explain/v2/templates/plaintext.tmpl`):
// `output` follows `metadata`'s `allOf` to ObjectMeta, a field's DESCRIPTION is its own
// description then the referenced type's (`description` walks `allOf` and `items`), FIELDS
// come from the reference, `fieldDetail` wraps at 78 - 2 and indents by 4, refs to object
// types show their last name segment (`<[]OwnerReference>`, `<FieldsV1>`), `Time` (a string)
// shows `<string>`, OwnerReference's required fields `-required-`.

const METADATA: &str = "FIELD: metadata <ObjectMeta>


DESCRIPTION:
    Standard object's metadata. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
    ObjectMeta is metadata that all persisted resources must have, which
    includes all objects users must create.
    
FIELDS:
  annotations\t<map[string]string>
    Annotations is an unstructured key value map stored with a resource that may
    be set by external tools to store and retrieve arbitrary metadata. They are
    not queryable and should be preserved when modifying objects. More info:
    https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations

  creationTimestamp\t<string>
    CreationTimestamp is a timestamp representing the server time when this
    object was created. It is not guaranteed to be set in happens-before order
    across separate operations. Clients may not set this value. It is
    represented in RFC3339 form and is in UTC.
    
    Populated by the system. Read-only. Null for lists. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

  deletionGracePeriodSeconds\t<integer>
    Number of seconds allowed for this object to gracefully terminate before it
    will be removed from the system. Only set when deletionTimestamp is also
    set. May only be shortened. Read-only.

  deletionTimestamp\t<string>
    DeletionTimestamp is RFC 3339 date and time at which this resource will be
    deleted. This field is set by the server when a graceful deletion is
    requested by the user, and is not directly settable by a client. The
    resource is expected to be deleted (no longer visible from resource lists,
    and not reachable by name) after the time in this field, once the finalizers
    list is empty. As long as the finalizers list contains items, deletion is
    blocked. Once the deletionTimestamp is set, this value may not be unset or
    be set further into the future, although it may be shortened or the resource
    may be deleted prior to this time. For example, a user may request that a
    pod is deleted in 30 seconds. The Kubelet will react by sending a graceful
    termination signal to the containers in the pod. After that 30 seconds, the
    Kubelet will send a hard termination signal (SIGKILL) to the container and
    after cleanup, remove the pod from the API. In the presence of network
    partitions, this object may still exist after this timestamp, until an
    administrator or automated process can determine the resource is fully
    terminated. If not set, graceful deletion of the object has not been
    requested.
    
    Populated by the system when a graceful deletion is requested. Read-only.
    More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata

  finalizers\t<[]string>
    Must be empty before the object is deleted from the registry. Each entry is
    an identifier for the responsible component that will remove the entry from
    the list. If the deletionTimestamp of the object is non-nil, entries in this
    list can only be removed. Finalizers may be processed and removed in any
    order.  Order is NOT enforced because it introduces significant risk of
    stuck finalizers. finalizers is a shared field, any actor with permission
    can reorder it. If the finalizer list is processed in order, then this can
    lead to a situation in which the component responsible for the first
    finalizer in the list is waiting for a signal (field value, external system,
    or other) produced by a component responsible for a finalizer later in the
    list, resulting in a deadlock. Without enforced ordering finalizers are free
    to order amongst themselves and are not vulnerable to ordering changes in
    the list.

  generateName\t<string>
    GenerateName is an optional prefix, used by the server, to generate a unique
    name ONLY IF the Name field has not been provided. If this field is used,
    the name returned to the client will be different than the name passed. This
    value will also be combined with a unique suffix. The provided value has the
    same validation rules as the Name field, and may be truncated by the length
    of the suffix required to make the value unique on the server.
    
    If this field is specified and the generated name exists, the server will
    return a 409.
    
    Applied only if Name is not specified. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#idempotency

  generation\t<integer>
    A sequence number representing a specific generation of the desired state.
    Populated by the system. Read-only.

  labels\t<map[string]string>
    Map of string keys and values that can be used to organize and categorize
    (scope and select) objects. May match selectors of replication controllers
    and services. More info:
    https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

  managedFields\t<[]ManagedFieldsEntry>
    ManagedFields maps workflow-id and version to the set of fields that are
    managed by that workflow. This is mostly for internal housekeeping, and
    users typically shouldn't need to set or understand this field. A workflow
    can be the user's name, a controller's name, or the name of a specific apply
    path like \"ci-cd\". The set of fields is always in the version that the
    workflow used when modifying the object.

  name\t<string>
    Name must be unique within a namespace. Is required when creating resources,
    although some resources may allow a client to request the generation of an
    appropriate name automatically. Name is primarily intended for creation
    idempotence and configuration definition. Cannot be updated. More info:
    https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names

  namespace\t<string>
    Namespace defines the space within which each name must be unique. An empty
    namespace is equivalent to the \"default\" namespace, but \"default\" is the
    canonical representation. Not all objects are required to be scoped to a
    namespace - the value of this field for those objects will be empty.
    
    Must be a DNS_LABEL. Cannot be updated. More info:
    https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces

  ownerReferences\t<[]OwnerReference>
    List of objects depended by this object. If ALL objects in the list have
    been deleted, this object will be garbage collected. If this object is
    managed by a controller, then an entry in this list will point to this
    controller, with the controller field set to true. There cannot be more than
    one managing controller.

  resourceVersion\t<string>
    An opaque value that represents the internal version of this object that can
    be used by clients to determine when objects have changed. May be used for
    optimistic concurrency, change detection, and the watch operation on a
    resource or set of resources. Clients must treat these values as opaque and
    passed unmodified back to the server. They may only be valid for a
    particular resource or set of resources.
    
    Populated by the system. Read-only. Value must be treated as opaque by
    clients and . More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency

  selfLink\t<string>
    Deprecated: selfLink is a legacy read-only field that is no longer populated
    by the system.

  uid\t<string>
    UID is the unique in time and space value for this object. It is typically
    generated by the server on successful creation of a resource and is not
    allowed to change on PUT operations.
    
    Populated by the system. Read-only. More info:
    https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids


";

const LABELS: &str = "FIELD: labels <map[string]string>


DESCRIPTION:
    Map of string keys and values that can be used to organize and categorize
    (scope and select) objects. May match selectors of replication controllers
    and services. More info:
    https://kubernetes.io/docs/concepts/overview/working-with-objects/labels
    

";

const OWNER_REFERENCES: &str = "FIELD: ownerReferences <[]OwnerReference>


DESCRIPTION:
    List of objects depended by this object. If ALL objects in the list have
    been deleted, this object will be garbage collected. If this object is
    managed by a controller, then an entry in this list will point to this
    controller, with the controller field set to true. There cannot be more than
    one managing controller.
    OwnerReference contains enough information to let you identify an owning
    object. An owning object must be in the same namespace as the dependent, or
    be cluster-scoped, so there is no namespace field.
    
FIELDS:
  apiVersion\t<string> -required-
    API version of the referent.

  blockOwnerDeletion\t<boolean>
    If true, AND if the owner has the \"foregroundDeletion\" finalizer, then the
    owner cannot be deleted from the key-value store until this reference is
    removed. See
    https://kubernetes.io/docs/concepts/architecture/garbage-collection/#foreground-deletion
    for how the garbage collector interacts with this field and enforces the
    foreground deletion. Defaults to false. To set this field, a user needs
    \"delete\" permission of the owner, otherwise 422 (Unprocessable Entity) will
    be returned.

  controller\t<boolean>
    If true, this reference points to the managing controller.

  kind\t<string> -required-
    Kind of the referent. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds

  name\t<string> -required-
    Name of the referent. More info:
    https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names

  uid\t<string> -required-
    UID of the referent. More info:
    https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids


";

const CREATION_TIMESTAMP: &str = "FIELD: creationTimestamp <string>


DESCRIPTION:
    CreationTimestamp is a timestamp representing the server time when this
    object was created. It is not guaranteed to be set in happens-before order
    across separate operations. Clients may not set this value. It is
    represented in RFC3339 form and is in UTC.
    
    Populated by the system. Read-only. Null for lists. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
    Time is a wrapper around time.Time which supports correct marshaling to YAML
    and JSON.  Wrappers are provided for many of the factory methods that the
    time package offers.
    

";

const OWNER_UID: &str = "FIELD: uid <string>


DESCRIPTION:
    UID of the referent. More info:
    https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids
    

";

const METADATA_RECURSIVE: &str = "FIELD: metadata <ObjectMeta>


DESCRIPTION:
    Standard object's metadata. More info:
    https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
    ObjectMeta is metadata that all persisted resources must have, which
    includes all objects users must create.
    
FIELDS:
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

";

const HEAD: &str = "GROUP:      example.com\nKIND:       Widget\nVERSION:    v1\n\n";

#[test]
fn metadata_and_its_fields() {
    for (path, recursive, want) in [
        (&["metadata"][..], false, METADATA),
        (&["metadata", "labels"], false, LABELS),
        (&["metadata", "ownerReferences"], false, OWNER_REFERENCES),
        (
            &["metadata", "creationTimestamp"],
            false,
            CREATION_TIMESTAMP,
        ),
        (&["metadata", "ownerReferences", "uid"], false, OWNER_UID),
        (&["metadata"], true, METADATA_RECURSIVE),
    ] {
        assert_eq!(
            run(path, recursive),
            Ok(format!("{HEAD}{want}")),
            "{path:?} recursive={recursive}"
        );
    }
    // kubectl's own error for a field ObjectMeta does not have, at any depth.
    assert_eq!(
        run(&["metadata", "nope"], false),
        Err("field \"nope\" does not exist".to_owned())
    );
    assert_eq!(
        run(&["metadata", "labels", "app"], false),
        Err("field \"app\" does not exist".to_owned())
    );
    assert_eq!(
        run(
            &["spec", "template", "metadata", "ownerReferences", "bogus"],
            false
        ),
        Err("field \"bogus\" does not exist".to_owned())
    );
    // An embedded resource's metadata is the same ObjectMeta.
    assert_eq!(
        run(&["spec", "template", "metadata", "labels"], false),
        Ok(format!("{HEAD}{LABELS}"))
    );
}

#[test]
fn object_meta_descriptions_are_the_published_ones() {
    let schemas = object_meta::schemas();
    let om = &schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"];
    let props = om["properties"].as_object().unwrap();
    assert_eq!(props.len(), 15);
    for (name, p) in props {
        let d = p["description"].as_str().unwrap();
        assert_eq!(object_meta::field_description("ObjectMeta", name), Some(d));
    }
    assert_eq!(
        object_meta::field_description("OwnerReference", "controller"),
        Some("If true, this reference points to the managing controller.")
    );
    assert_eq!(object_meta::field_description("ObjectMeta", "nope"), None);
}

/// Completion and hover under `metadata` show the first sentence of these descriptions.
#[test]
fn assist_uses_the_first_sentence_of_the_published_descriptions() {
    for (name, _, doc) in crate::authoring::assist::docs::OBJECT_META {
        let published = object_meta::field_description("ObjectMeta", name).unwrap();
        let first = published.find(". ").map_or(published, |i| &published[..=i]);
        assert_eq!(*doc, first, "{name}");
    }
}
