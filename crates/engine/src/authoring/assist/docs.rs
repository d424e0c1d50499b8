//! The studio's own short documentation of the fields completion and hover offer outside a
//! CRD's schema: an object's top level and `metadata`, the OpenAPI keywords of a structural
//! schema, the CRD's own fields, and CEL's functions. Entries are (name, type or
//! signature, one line of documentation).

use super::yaml_context::Seg;

/// One documented field: name, type, documentation line.
pub type Entry = (&'static str, &'static str, &'static str);

/// An object's top-level fields besides its schema's.
pub const OBJECT_ROOT: &[Entry] = &[
    (
        "apiVersion",
        "string · required",
        "The group/version of the resource, one the CRD serves.",
    ),
    (
        "kind",
        "string · required",
        "The kind the CRD names (spec.names.kind).",
    ),
    (
        "metadata",
        "ObjectMeta · required",
        "Name, namespace, labels, annotations and the other standard metadata.",
    ),
];

/// `metadata` fields a user writes, each with the first sentence of the description the server
/// publishes for it (`authoring::explain::object_meta`, checked by its tests).
pub const OBJECT_META: &[Entry] = &[
    ("name", "string", "Name must be unique within a namespace."),
    (
        "generateName",
        "string",
        "GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.",
    ),
    (
        "namespace",
        "string",
        "Namespace defines the space within which each name must be unique.",
    ),
    (
        "labels",
        "map[string]string",
        "Map of string keys and values that can be used to organize and categorize (scope and select) objects.",
    ),
    (
        "annotations",
        "map[string]string",
        "Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.",
    ),
    (
        "finalizers",
        "[]string",
        "Must be empty before the object is deleted from the registry.",
    ),
    (
        "ownerReferences",
        "[]OwnerReference",
        "List of objects depended by this object.",
    ),
];

/// The keywords of a structural schema node (what `apiextensions-apiserver` allows).
pub const SCHEMA_KEYWORDS: &[Entry] = &[
    ("type", "string", "object, array, string, integer, number or boolean; required on every node of a structural schema."),
    ("description", "string", "What the field means; shown by kubectl explain."),
    ("properties", "map[string]schema", "The fields of an object."),
    ("required", "[]string", "The properties that must be present."),
    ("items", "schema", "The schema of each item of an array."),
    ("additionalProperties", "schema | bool", "The schema of a map's values (not together with properties)."),
    ("enum", "[]any", "The only values allowed."),
    ("default", "any", "The value the server sets when the field is absent (needs a structural schema)."),
    ("format", "string", "A string format the server checks (date-time, uri, email, ...), or int32/int64/float/double."),
    ("pattern", "string", "A regular expression (RE2, unanchored) strings must match."),
    ("minimum", "number", "The smallest number allowed."),
    ("maximum", "number", "The largest number allowed."),
    ("exclusiveMinimum", "boolean", "The minimum itself is not allowed."),
    ("exclusiveMaximum", "boolean", "The maximum itself is not allowed."),
    ("multipleOf", "number", "Numbers must be a multiple of this."),
    ("minLength", "integer", "The fewest characters a string may have."),
    ("maxLength", "integer", "The most characters a string may have (bounds CEL cost)."),
    ("minItems", "integer", "The fewest items an array may have."),
    ("maxItems", "integer", "The most items an array may have (bounds CEL cost)."),
    ("uniqueItems", "boolean", "Not allowed to be true in a CRD schema; use x-kubernetes-list-type: set."),
    ("minProperties", "integer", "The fewest properties an object may have."),
    ("maxProperties", "integer", "The most properties an object may have (bounds CEL cost)."),
    ("nullable", "boolean", "null is accepted (and kept) instead of being pruned or rejected."),
    ("title", "string", "A short title."),
    ("example", "any", "An example value."),
    ("externalDocs", "object", "A link to more documentation."),
    ("allOf", "[]schema", "Value validations that must all hold (no types or defaults inside)."),
    ("anyOf", "[]schema", "Value validations of which one at least must hold."),
    ("oneOf", "[]schema", "Value validations of which exactly one must hold."),
    ("not", "schema", "A value validation that must not hold."),
    ("x-kubernetes-preserve-unknown-fields", "boolean", "Fields the schema does not declare are kept instead of pruned."),
    ("x-kubernetes-embedded-resource", "boolean", "The object is a whole Kubernetes object (apiVersion, kind, metadata checked)."),
    ("x-kubernetes-int-or-string", "boolean", "The value is an integer or a string (the type is left out)."),
    ("x-kubernetes-list-type", "string", "atomic, set (unique scalars) or map (items keyed by x-kubernetes-list-map-keys)."),
    ("x-kubernetes-list-map-keys", "[]string", "The keys identifying the items of a list of type map."),
    ("x-kubernetes-map-type", "string", "granular or atomic: how server-side apply merges the object."),
    ("x-kubernetes-validations", "[]rule", "CEL rules the server evaluates with self (and oldSelf on update)."),
];

/// The fields of one `x-kubernetes-validations` rule.
pub const VALIDATION_RULE: &[Entry] = &[
    (
        "rule",
        "string · required",
        "A CEL expression over self (and oldSelf) that must be true.",
    ),
    ("message", "string", "The message when the rule is false."),
    (
        "messageExpression",
        "string",
        "A CEL expression giving the message (a string).",
    ),
    (
        "reason",
        "string",
        "FieldValueInvalid, FieldValueForbidden, FieldValueRequired or FieldValueDuplicate.",
    ),
    (
        "fieldPath",
        "string",
        "Where the error is reported, relative to the rule's node (e.g. .spec.replicas).",
    ),
    (
        "optionalOldSelf",
        "boolean",
        "The rule also runs on create and when oldSelf is absent, with oldSelf an optional.",
    ),
];

const CRD_ROOT: &[Entry] = &[
    ("apiVersion", "string", "apiextensions.k8s.io/v1"),
    ("kind", "string", "CustomResourceDefinition"),
    (
        "metadata",
        "ObjectMeta",
        "The CRD's name must be <plural>.<group>.",
    ),
    (
        "spec",
        "CustomResourceDefinitionSpec",
        "The resource the CRD defines.",
    ),
];
const CRD_SPEC: &[Entry] = &[
    (
        "group",
        "string · required",
        "The API group of the resource (a DNS subdomain with a dot).",
    ),
    (
        "names",
        "CustomResourceDefinitionNames · required",
        "The resource's plural, singular, kind, list kind, short names and categories.",
    ),
    ("scope", "string · required", "Namespaced or Cluster."),
    (
        "versions",
        "[]CustomResourceDefinitionVersion · required",
        "The versions served; exactly one is the storage version.",
    ),
    (
        "conversion",
        "CustomResourceConversion",
        "How objects are converted between versions (None or Webhook).",
    ),
    (
        "preserveUnknownFields",
        "boolean",
        "Must be false in apiextensions.k8s.io/v1.",
    ),
];
const CRD_NAMES: &[Entry] = &[
    (
        "plural",
        "string · required",
        "The resource name in URLs (lowercase); the CRD is named <plural>.<group>.",
    ),
    (
        "singular",
        "string",
        "The singular name (lowercase); defaults to the kind in lowercase.",
    ),
    (
        "kind",
        "string · required",
        "The kind objects carry (CamelCase).",
    ),
    (
        "listKind",
        "string",
        "The kind of lists; defaults to <kind>List.",
    ),
    ("shortNames", "[]string", "Short names kubectl accepts."),
    (
        "categories",
        "[]string",
        "Groups such as all that kubectl get <category> includes.",
    ),
];
const CRD_VERSION: &[Entry] = &[
    (
        "name",
        "string · required",
        "The version name (v1, v1beta1, ...).",
    ),
    (
        "served",
        "boolean · required",
        "Whether the version is served by the REST API.",
    ),
    (
        "storage",
        "boolean · required",
        "Whether objects are stored in this version (exactly one).",
    ),
    (
        "deprecated",
        "boolean",
        "Clients get a deprecation warning.",
    ),
    (
        "deprecationWarning",
        "string",
        "The warning text instead of the default one.",
    ),
    (
        "schema",
        "CustomResourceValidation",
        "The version's openAPIV3Schema.",
    ),
    (
        "subresources",
        "CustomResourceSubresources",
        "status and scale.",
    ),
    (
        "additionalPrinterColumns",
        "[]CustomResourceColumnDefinition",
        "The columns kubectl get prints.",
    ),
    (
        "selectableFields",
        "[]SelectableField",
        "Fields usable in field selectors.",
    ),
];
const CRD_SCHEMA: &[Entry] = &[(
    "openAPIV3Schema",
    "JSONSchemaProps",
    "The structural OpenAPI v3 schema objects are validated, pruned and defaulted with.",
)];
const CRD_SUBRESOURCES: &[Entry] = &[
    (
        "status",
        "object",
        "Enables the /status subresource ({}): status changes only through it.",
    ),
    (
        "scale",
        "CustomResourceSubresourceScale",
        "Enables /scale with these paths.",
    ),
];
const CRD_SCALE: &[Entry] = &[
    (
        "specReplicasPath",
        "string · required",
        "JSON path of the desired replicas, e.g. .spec.replicas.",
    ),
    (
        "statusReplicasPath",
        "string · required",
        "JSON path of the observed replicas, e.g. .status.replicas.",
    ),
    (
        "labelSelectorPath",
        "string",
        "JSON path of the label selector string (for the HPA).",
    ),
];
const CRD_COLUMN: &[Entry] = &[
    ("name", "string · required", "The column header."),
    (
        "type",
        "string · required",
        "integer, number, string, boolean or date.",
    ),
    (
        "jsonPath",
        "string · required",
        "A JSONPath evaluated on each object, e.g. .spec.replicas.",
    ),
    (
        "format",
        "string",
        "A format for the value (e.g. int32, date-time).",
    ),
    ("description", "string", "What the column shows."),
    (
        "priority",
        "integer",
        "Columns above 0 show only with -o wide.",
    ),
];
const CRD_SELECTABLE: &[Entry] = &[(
    "jsonPath",
    "string · required",
    "A JSONPath to a scalar field usable in --field-selector.",
)];
const CRD_CONVERSION: &[Entry] = &[
    (
        "strategy",
        "string · required",
        "None (only apiVersion changes) or Webhook.",
    ),
    (
        "webhook",
        "WebhookConversion",
        "The webhook to call when strategy is Webhook.",
    ),
];
const CRD_WEBHOOK: &[Entry] = &[
    (
        "conversionReviewVersions",
        "[]string · required",
        "The ConversionReview versions the webhook understands, e.g. [v1].",
    ),
    (
        "clientConfig",
        "WebhookClientConfig",
        "Where the webhook is: url or service, and caBundle.",
    ),
];
const CRD_CLIENT: &[Entry] = &[
    ("url", "string", "An https URL of the webhook."),
    ("service", "ServiceReference", "A Service in the cluster."),
    (
        "caBundle",
        "string",
        "PEM CA bundle (base64) to verify the webhook's certificate.",
    ),
];
const CRD_SERVICE: &[Entry] = &[
    ("namespace", "string · required", "The Service's namespace."),
    ("name", "string · required", "The Service's name."),
    ("path", "string", "The URL path."),
    ("port", "integer", "The port (default 443)."),
];

/// The fields of the CRD node at `path` (outside the schema), when it is known.
pub fn crd_node(path: &[Seg]) -> Option<&'static [Entry]> {
    let keys: Vec<Option<&str>> = path.iter().map(Seg::key).collect();
    Some(match keys.as_slice() {
        [] => CRD_ROOT,
        [Some("metadata")] => OBJECT_META,
        [Some("spec")] => CRD_SPEC,
        [Some("spec"), Some("names")] => CRD_NAMES,
        [Some("spec"), Some("versions"), None] => CRD_VERSION,
        [Some("spec"), Some("versions"), None, Some("schema")] => CRD_SCHEMA,
        [Some("spec"), Some("versions"), None, Some("subresources")] => CRD_SUBRESOURCES,
        [Some("spec"), Some("versions"), None, Some("subresources"), Some("scale")] => CRD_SCALE,
        [Some("spec"), Some("versions"), None, Some("additionalPrinterColumns"), None] => {
            CRD_COLUMN
        }
        [Some("spec"), Some("versions"), None, Some("selectableFields"), None] => CRD_SELECTABLE,
        [Some("spec"), Some("conversion")] => CRD_CONVERSION,
        [Some("spec"), Some("conversion"), Some("webhook")] => CRD_WEBHOOK,
        [Some("spec"), Some("conversion"), Some("webhook"), Some("clientConfig")] => CRD_CLIENT,
        [Some("spec"), Some("conversion"), Some("webhook"), Some("clientConfig"), Some("service")] => {
            CRD_SERVICE
        }
        _ => return None,
    })
}

/// The values a CRD field (outside the schema) may take, when they are few.
pub fn crd_values(path: &[Seg], key: &str) -> &'static [&'static str] {
    let keys: Vec<Option<&str>> = path.iter().map(Seg::key).collect();
    match (keys.as_slice(), key) {
        ([], "apiVersion") => &["apiextensions.k8s.io/v1"],
        ([], "kind") => &["CustomResourceDefinition"],
        ([Some("spec")], "scope") => &["Namespaced", "Cluster"],
        ([Some("spec")], "preserveUnknownFields") => &["false"],
        ([Some("spec"), Some("conversion")], "strategy") => &["None", "Webhook"],
        ([Some("spec"), Some("versions"), None], "served" | "storage" | "deprecated") => {
            &["true", "false"]
        }
        (
            [Some("spec"), Some("versions"), None, Some("additionalPrinterColumns"), None],
            "type",
        ) => &["integer", "number", "string", "boolean", "date"],
        _ => &[],
    }
}

/// A documentation line for the CEL functions and macros users meet most.
pub fn cel_doc(name: &str) -> Option<&'static str> {
    Some(match name {
        "has" => "Whether a field is present: has(self.field).",
        "all" => "Whether the predicate holds for every element (or key).",
        "exists" => "Whether the predicate holds for at least one element (or key).",
        "exists_one" => "Whether the predicate holds for exactly one element (or key).",
        "map" => "Transforms each element (optionally only those matching a filter).",
        "filter" => "The elements for which the predicate holds.",
        "size" => "The length of a string, bytes, list or map.",
        "contains" => "Whether the string contains the substring.",
        "startsWith" => "Whether the string starts with the prefix.",
        "endsWith" => "Whether the string ends with the suffix.",
        "matches" => "Whether the string matches the RE2 regular expression.",
        "int" => "Converts to int.",
        "uint" => "Converts to uint.",
        "double" => "Converts to double.",
        "string" => "Converts to string.",
        "bytes" => "Converts to bytes.",
        "bool" => "Converts to bool.",
        "duration" => "Parses a duration string such as 1h30m.",
        "timestamp" => "Parses an RFC 3339 timestamp string.",
        "type" => "The type of a value.",
        "dyn" => "The value, with its type left to runtime.",
        "lowerAscii" => "The string with ASCII letters in lowercase.",
        "upperAscii" => "The string with ASCII letters in uppercase.",
        "trim" => "The string without leading and trailing whitespace.",
        "split" => "Splits the string at each separator.",
        "join" => "Joins a list of strings, with an optional separator.",
        "replace" => "Replaces occurrences of a substring.",
        "indexOf" => "The index of the first occurrence, or -1.",
        "lastIndexOf" => "The index of the last occurrence, or -1.",
        "substring" => "The characters between two indices.",
        "charAt" => "The character at an index.",
        "format" => "Formats values into the string's %s/%d/%f verbs.",
        "isSorted" => "Whether the list is in ascending order.",
        "sum" => "The sum of the list's numbers.",
        "min" => "The smallest element.",
        "max" => "The largest element.",
        "indexOf_list" => "The index of the first equal element.",
        "url" => "Parses a URL.",
        "isURL" => "Whether the string is a URL url() accepts.",
        "quantity" => "Parses a Kubernetes quantity such as 500m or 1Gi.",
        "isQuantity" => "Whether the string is a quantity.",
        "ip" => "Parses an IP address.",
        "isIP" => "Whether the string is an IP address.",
        "cidr" => "Parses a CIDR.",
        "isCIDR" => "Whether the string is a CIDR.",
        "semver" => "Parses a semantic version.",
        "isSemver" => "Whether the string is a semantic version.",
        "find" => "The first match of a regular expression, or the empty string.",
        "findAll" => "All matches of a regular expression.",
        "optional.of" => "An optional holding the value.",
        "optional.none" => "An empty optional.",
        "orValue" => "The optional's value, or the given one when empty.",
        "hasValue" => "Whether the optional holds a value.",
        "value" => "The optional's value (an error when empty).",
        "sets.contains" => "Whether the first list contains every element of the second.",
        "sets.intersects" => "Whether the lists share an element.",
        "sets.equivalent" => "Whether the lists hold the same elements.",
        "getHours" | "getMinutes" | "getSeconds" | "getFullYear" | "getMonth" | "getDayOfMonth"
        | "getDayOfWeek" | "getDayOfYear" | "getMilliseconds" | "getDate" => {
            "A part of the timestamp (UTC, or in the named time zone) or duration."
        }
        _ => return None,
    })
}
