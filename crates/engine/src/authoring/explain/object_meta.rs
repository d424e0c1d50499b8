//! ObjectMeta and the types it refers to (`ManagedFieldsEntry`, `OwnerReference`, `Time`,
//! `FieldsV1`) as the API server publishes them in a CRD's OpenAPI v3 document: the
//! definitions `k8s.io/apiextensions-apiserver/pkg/generated/openapi` generates for
//! `k8s.io/apimachinery/pkg/apis/meta/v1` (their `Description`s are the Go doc comments),
//! after kube-openapi's `builder3` wraps every `$ref` that has siblings in `allOf`
//! (`builder3/util.WrapRefs`). The descriptions are the server's data, reproduced verbatim.
//!
//! Read from apiextensions-apiserver master of July 2026 (1.37): the descriptions are the
//! same at kubernetes-1.30.0 through 1.36.0; only `default`s differ (1.30–1.34 also give
//! `finalizers`' and `managedFields`' items defaults), which `kubectl explain` does not
//! print, so the newest text serves every modelled minor.

use serde_json::{json, Map, Value as Json};

/// The components' name prefix.
pub const PREFIX: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.";

const FIELDS_V1_DOC: &str = "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.\n\nEach key is either a '.' representing the field itself, and will always map to an empty set, or a string representing a sub-field or item. The string will follow one of these four formats: 'f:<name>', where <name> is the name of a field in a struct, or key in a map 'v:<value>', where <value> is the exact json formatted value of a list item 'i:<index>', where <index> is position of a item in a list 'k:<keys>', where <keys> is a map of  a list item's key fields to their unique values If a key maps to an empty Fields value, the field that key represents is part of the set.\n\nThe exact format is defined in sigs.k8s.io/structured-merge-diff";
const MF_DOC: &str = "ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.";
const MF_MANAGER: &str = "Manager is an identifier of the workflow managing these fields.";
const MF_OPERATION: &str = "Operation is the type of operation which lead to this ManagedFieldsEntry being created. The only valid values for this field are 'Apply' and 'Update'.";
const MF_API_VERSION: &str = "APIVersion defines the version of this resource that this field set applies to. The format is \"group/version\" just like the top-level APIVersion field. It is necessary to track the version of a field set because it cannot be automatically converted.";
const MF_TIME: &str = "Time is the timestamp of when the ManagedFields entry was added. The timestamp will also be updated if a field is added, the manager changes any of the owned fields value or removes a field. The timestamp does not update when a field is removed from the entry because another manager took it over.";
const MF_FIELDS_TYPE: &str = "FieldsType is the discriminator for the different fields format and version. There is currently only one possible value: \"FieldsV1\"";
const MF_FIELDS_V1: &str =
    "FieldsV1 holds the first JSON version format as described in the \"FieldsV1\" type.";
const MF_SUBRESOURCE: &str = "Subresource is the name of the subresource used to update that object, or empty string if the object was updated through the main resource. The value of this field is used to distinguish between managers, even if they share the same name. For example, a status update will be distinct from a regular update using the same manager name. Note that the APIVersion field is not related to the Subresource field and it always corresponds to the version of the main resource.";
const OM_DOC: &str = "ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.";
const OM_NAME: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const OM_GENERATE_NAME: &str = "GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided. If this field is used, the name returned to the client will be different than the name passed. This value will also be combined with a unique suffix. The provided value has the same validation rules as the Name field, and may be truncated by the length of the suffix required to make the value unique on the server.\n\nIf this field is specified and the generated name exists, the server will return a 409.\n\nApplied only if Name is not specified. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#idempotency";
const OM_NAMESPACE: &str = "Namespace defines the space within which each name must be unique. An empty namespace is equivalent to the \"default\" namespace, but \"default\" is the canonical representation. Not all objects are required to be scoped to a namespace - the value of this field for those objects will be empty.\n\nMust be a DNS_LABEL. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces";
const OM_SELF_LINK: &str =
    "Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.";
const OM_UID: &str = "UID is the unique in time and space value for this object. It is typically generated by the server on successful creation of a resource and is not allowed to change on PUT operations.\n\nPopulated by the system. Read-only. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids";
const OM_RESOURCE_VERSION: &str = "An opaque value that represents the internal version of this object that can be used by clients to determine when objects have changed. May be used for optimistic concurrency, change detection, and the watch operation on a resource or set of resources. Clients must treat these values as opaque and passed unmodified back to the server. They may only be valid for a particular resource or set of resources.\n\nPopulated by the system. Read-only. Value must be treated as opaque by clients and . More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency";
const OM_GENERATION: &str = "A sequence number representing a specific generation of the desired state. Populated by the system. Read-only.";
const OM_CREATION_TIMESTAMP: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const OM_DELETION_TIMESTAMP: &str = "DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted. This field is set by the server when a graceful deletion is requested by the user, and is not directly settable by a client. The resource is expected to be deleted (no longer visible from resource lists, and not reachable by name) after the time in this field, once the finalizers list is empty. As long as the finalizers list contains items, deletion is blocked. Once the deletionTimestamp is set, this value may not be unset or be set further into the future, although it may be shortened or the resource may be deleted prior to this time. For example, a user may request that a pod is deleted in 30 seconds. The Kubelet will react by sending a graceful termination signal to the containers in the pod. After that 30 seconds, the Kubelet will send a hard termination signal (SIGKILL) to the container and after cleanup, remove the pod from the API. In the presence of network partitions, this object may still exist after this timestamp, until an administrator or automated process can determine the resource is fully terminated. If not set, graceful deletion of the object has not been requested.\n\nPopulated by the system when a graceful deletion is requested. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const OM_DELETION_GRACE_PERIOD_SECONDS: &str = "Number of seconds allowed for this object to gracefully terminate before it will be removed from the system. Only set when deletionTimestamp is also set. May only be shortened. Read-only.";
const OM_LABELS: &str = "Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels";
const OM_ANNOTATIONS: &str = "Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations";
const OM_OWNER_REFERENCES: &str = "List of objects depended by this object. If ALL objects in the list have been deleted, this object will be garbage collected. If this object is managed by a controller, then an entry in this list will point to this controller, with the controller field set to true. There cannot be more than one managing controller.";
const OM_FINALIZERS: &str = "Must be empty before the object is deleted from the registry. Each entry is an identifier for the responsible component that will remove the entry from the list. If the deletionTimestamp of the object is non-nil, entries in this list can only be removed. Finalizers may be processed and removed in any order.  Order is NOT enforced because it introduces significant risk of stuck finalizers. finalizers is a shared field, any actor with permission can reorder it. If the finalizer list is processed in order, then this can lead to a situation in which the component responsible for the first finalizer in the list is waiting for a signal (field value, external system, or other) produced by a component responsible for a finalizer later in the list, resulting in a deadlock. Without enforced ordering finalizers are free to order amongst themselves and are not vulnerable to ordering changes in the list.";
const OM_MANAGED_FIELDS: &str = "ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow. This is mostly for internal housekeeping, and users typically shouldn't need to set or understand this field. A workflow can be the user's name, a controller's name, or the name of a specific apply path like \"ci-cd\". The set of fields is always in the version that the workflow used when modifying the object.";
const OR_DOC: &str = "OwnerReference contains enough information to let you identify an owning object. An owning object must be in the same namespace as the dependent, or be cluster-scoped, so there is no namespace field.";
const OR_API_VERSION: &str = "API version of the referent.";
const OR_KIND: &str = "Kind of the referent. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
const OR_NAME: &str = "Name of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const OR_UID: &str = "UID of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids";
const OR_CONTROLLER: &str = "If true, this reference points to the managing controller.";
const OR_BLOCK_OWNER_DELETION: &str = "If true, AND if the owner has the \"foregroundDeletion\" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed. See https://kubernetes.io/docs/concepts/architecture/garbage-collection/#foreground-deletion for how the garbage collector interacts with this field and enforces the foreground deletion. Defaults to false. To set this field, a user needs \"delete\" permission of the owner, otherwise 422 (Unprocessable Entity) will be returned.";
const TIME_DOC: &str = "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers are provided for many of the factory methods that the time package offers.";

/// A field's published description: `type_name` is `ObjectMeta`, `OwnerReference` or
/// `ManagedFieldsEntry`.
#[cfg(test)]
pub fn field_description(type_name: &str, field: &str) -> Option<&'static str> {
    let d = match (type_name, field) {
        ("ObjectMeta", "annotations") => OM_ANNOTATIONS,
        ("ObjectMeta", "creationTimestamp") => OM_CREATION_TIMESTAMP,
        ("ObjectMeta", "deletionGracePeriodSeconds") => OM_DELETION_GRACE_PERIOD_SECONDS,
        ("ObjectMeta", "deletionTimestamp") => OM_DELETION_TIMESTAMP,
        ("ObjectMeta", "finalizers") => OM_FINALIZERS,
        ("ObjectMeta", "generateName") => OM_GENERATE_NAME,
        ("ObjectMeta", "generation") => OM_GENERATION,
        ("ObjectMeta", "labels") => OM_LABELS,
        ("ObjectMeta", "managedFields") => OM_MANAGED_FIELDS,
        ("ObjectMeta", "name") => OM_NAME,
        ("ObjectMeta", "namespace") => OM_NAMESPACE,
        ("ObjectMeta", "ownerReferences") => OM_OWNER_REFERENCES,
        ("ObjectMeta", "resourceVersion") => OM_RESOURCE_VERSION,
        ("ObjectMeta", "selfLink") => OM_SELF_LINK,
        ("ObjectMeta", "uid") => OM_UID,
        ("OwnerReference", "apiVersion") => OR_API_VERSION,
        ("OwnerReference", "blockOwnerDeletion") => OR_BLOCK_OWNER_DELETION,
        ("OwnerReference", "controller") => OR_CONTROLLER,
        ("OwnerReference", "kind") => OR_KIND,
        ("OwnerReference", "name") => OR_NAME,
        ("OwnerReference", "uid") => OR_UID,
        ("ManagedFieldsEntry", "apiVersion") => MF_API_VERSION,
        ("ManagedFieldsEntry", "fieldsType") => MF_FIELDS_TYPE,
        ("ManagedFieldsEntry", "fieldsV1") => MF_FIELDS_V1,
        ("ManagedFieldsEntry", "manager") => MF_MANAGER,
        ("ManagedFieldsEntry", "operation") => MF_OPERATION,
        ("ManagedFieldsEntry", "subresource") => MF_SUBRESOURCE,
        ("ManagedFieldsEntry", "time") => MF_TIME,
        _ => return None,
    };
    Some(d)
}

/// `#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.<name>`.
fn reference(name: &str) -> Json {
    json!({"$ref": format!("#/components/schemas/{PREFIX}{name}")})
}

/// A `$ref` with a description, as `WrapRefs` publishes it.
fn wrapped(name: &str, description: &str) -> Json {
    json!({"allOf": [reference(name)], "description": description})
}

fn string(description: &str) -> Json {
    json!({"description": description, "type": "string"})
}

fn int64(description: &str) -> Json {
    json!({"description": description, "format": "int64", "type": "integer"})
}

fn string_map(description: &str) -> Json {
    json!({"additionalProperties": {"type": "string"}, "description": description, "type": "object"})
}

/// The published components, keyed by their full names.
pub fn schemas() -> Map<String, Json> {
    let mut m = Map::new();
    m.insert(
        format!("{PREFIX}ObjectMeta"),
        json!({
            "description": OM_DOC,
            "properties": {
                "annotations": string_map(OM_ANNOTATIONS),
                "creationTimestamp": wrapped("Time", OM_CREATION_TIMESTAMP),
                "deletionGracePeriodSeconds": int64(OM_DELETION_GRACE_PERIOD_SECONDS),
                "deletionTimestamp": wrapped("Time", OM_DELETION_TIMESTAMP),
                "finalizers": {
                    "description": OM_FINALIZERS,
                    "items": {"type": "string"},
                    "type": "array",
                    "x-kubernetes-list-type": "set",
                    "x-kubernetes-patch-strategy": "merge",
                },
                "generateName": string(OM_GENERATE_NAME),
                "generation": int64(OM_GENERATION),
                "labels": string_map(OM_LABELS),
                "managedFields": {
                    "description": OM_MANAGED_FIELDS,
                    "items": reference("ManagedFieldsEntry"),
                    "type": "array",
                    "x-kubernetes-list-type": "atomic",
                },
                "name": string(OM_NAME),
                "namespace": string(OM_NAMESPACE),
                "ownerReferences": {
                    "description": OM_OWNER_REFERENCES,
                    "items": reference("OwnerReference"),
                    "type": "array",
                    "x-kubernetes-list-map-keys": ["uid"],
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-patch-merge-key": "uid",
                    "x-kubernetes-patch-strategy": "merge",
                },
                "resourceVersion": string(OM_RESOURCE_VERSION),
                "selfLink": string(OM_SELF_LINK),
                "uid": string(OM_UID),
            },
            "type": "object",
        }),
    );
    m.insert(
        format!("{PREFIX}Time"),
        json!({"description": TIME_DOC, "format": "date-time", "type": "string"}),
    );
    m.insert(
        format!("{PREFIX}FieldsV1"),
        json!({"description": FIELDS_V1_DOC, "type": "object"}),
    );
    m.insert(
        format!("{PREFIX}ManagedFieldsEntry"),
        json!({
            "description": MF_DOC,
            "properties": {
                "apiVersion": string(MF_API_VERSION),
                "fieldsType": string(MF_FIELDS_TYPE),
                "fieldsV1": wrapped("FieldsV1", MF_FIELDS_V1),
                "manager": string(MF_MANAGER),
                "operation": string(MF_OPERATION),
                "subresource": string(MF_SUBRESOURCE),
                "time": wrapped("Time", MF_TIME),
            },
            "type": "object",
        }),
    );
    let required_string = |d: &str| json!({"default": "", "description": d, "type": "string"});
    m.insert(
        format!("{PREFIX}OwnerReference"),
        json!({
            "description": OR_DOC,
            "properties": {
                "apiVersion": required_string(OR_API_VERSION),
                "blockOwnerDeletion": {"description": OR_BLOCK_OWNER_DELETION, "type": "boolean"},
                "controller": {"description": OR_CONTROLLER, "type": "boolean"},
                "kind": required_string(OR_KIND),
                "name": required_string(OR_NAME),
                "uid": required_string(OR_UID),
            },
            "required": ["apiVersion", "kind", "name", "uid"],
            "type": "object",
            "x-kubernetes-map-type": "atomic",
        }),
    );
    m
}
