//! The internal `apiextensions.CustomResourceDefinition` (the hub type every validation runs
//! on), how it is read from a `apiextensions.k8s.io/v1` CRD (decoding, v1 defaulting, the
//! v1 → internal conversion) or from the internal JSON shape the conformance data uses, and the
//! Go JSON form of its parts that error messages print.
//!
//! The v1 → internal conversion (`pkg/apis/apiextensions/v1/conversion.go`) copies
//! `versions[0].name` to `spec.version`, and when every version has the same schema,
//! subresources, printer columns or selectable fields, moves that value to the top level
//! (`spec.validation`, `spec.subresources`, ...) and clears it in the versions. That is why
//! the server reports a single-version CRD's schema errors under `spec.validation`.

use std::collections::BTreeMap;

use serde_json::{Map, Value as Json};

use crate::object::objectmeta::time::parse_rfc3339;
pub use crate::object::objectmeta::{ObjectMeta, OwnerReference, Time};
use crate::schema::props::{
    go_json_kind, JsonSchemaProps, SchemaOrArray, SchemaOrBool, SchemaOrStringArray, ValidationRule,
};
use crd_studio_gostd::json::Obj;

/// A CustomResourceDefinition in the server's internal form.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InternalCrd {
    /// `metadata`.
    pub metadata: ObjectMeta,
    /// `spec`.
    pub spec: CrdSpec,
    /// `status`.
    pub status: CrdStatus,
}

/// `CustomResourceDefinitionSpec` (internal).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrdSpec {
    /// `group`.
    pub group: String,
    /// `version`: the first version's name.
    pub version: String,
    /// `names`.
    pub names: Names,
    /// `scope`.
    pub scope: String,
    /// `validation`: the schema shared by all versions.
    pub validation: Option<CustomResourceValidation>,
    /// `subresources` shared by all versions.
    pub subresources: Option<Subresources>,
    /// `versions`.
    pub versions: Vec<CrdVersion>,
    /// Whether `versions` was given as a list (Go's non-nil slice: empty, it prints `[]` in
    /// an `Invalid value`, where a missing or `null` one prints `null`).
    pub versions_set: bool,
    /// `additionalPrinterColumns` shared by all versions.
    pub additional_printer_columns: Vec<ColumnDefinition>,
    /// `selectableFields` shared by all versions.
    pub selectable_fields: Vec<SelectableField>,
    /// `conversion`.
    pub conversion: Option<Conversion>,
    /// `preserveUnknownFields` (always set when read from v1).
    pub preserve_unknown_fields: Option<bool>,
}

/// `CustomResourceValidation`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CustomResourceValidation {
    /// `openAPIV3Schema`.
    pub open_api_v3_schema: Option<Box<JsonSchemaProps>>,
}

/// `CustomResourceSubresources`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Subresources {
    /// Whether `status` is set (the status subresource is an empty struct).
    pub status: bool,
    /// `scale`.
    pub scale: Option<Scale>,
}

/// `CustomResourceSubresourceScale`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scale {
    /// `specReplicasPath`.
    pub spec_replicas_path: String,
    /// `statusReplicasPath`.
    pub status_replicas_path: String,
    /// `labelSelectorPath`.
    pub label_selector_path: Option<String>,
}

/// `CustomResourceDefinitionVersion` (internal).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrdVersion {
    /// `name`.
    pub name: String,
    /// `served`.
    pub served: bool,
    /// `storage`.
    pub storage: bool,
    /// `deprecated`.
    pub deprecated: bool,
    /// `deprecationWarning`.
    pub deprecation_warning: Option<String>,
    /// `schema`.
    pub schema: Option<CustomResourceValidation>,
    /// `subresources`.
    pub subresources: Option<Subresources>,
    /// `additionalPrinterColumns`.
    pub additional_printer_columns: Vec<ColumnDefinition>,
    /// Whether `additionalPrinterColumns` was given as a list (see [`CrdSpec::versions_set`]).
    pub additional_printer_columns_set: bool,
    /// `selectableFields`.
    pub selectable_fields: Vec<SelectableField>,
    /// Whether `selectableFields` was given as a list (see [`CrdSpec::versions_set`]).
    pub selectable_fields_set: bool,
}

/// `CustomResourceColumnDefinition`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ColumnDefinition {
    /// `name`.
    pub name: String,
    /// `type`.
    pub type_: String,
    /// `format`.
    pub format: String,
    /// `description`.
    pub description: String,
    /// `priority`.
    pub priority: i64,
    /// `jsonPath` (internal `JSONPath`).
    pub json_path: String,
}

/// `SelectableField`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelectableField {
    /// `jsonPath`.
    pub json_path: String,
}

/// `CustomResourceDefinitionNames`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Names {
    /// `plural`.
    pub plural: String,
    /// `singular`.
    pub singular: String,
    /// `shortNames`.
    pub short_names: Vec<String>,
    /// `kind`.
    pub kind: String,
    /// `listKind`.
    pub list_kind: String,
    /// `categories`.
    pub categories: Vec<String>,
}

/// `CustomResourceConversion` (internal: the webhook fields are flattened).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conversion {
    /// `strategy`.
    pub strategy: String,
    /// `webhookClientConfig` (v1: `webhook.clientConfig`).
    pub webhook_client_config: Option<WebhookClientConfig>,
    /// `conversionReviewVersions` (v1: `webhook.conversionReviewVersions`).
    pub conversion_review_versions: Vec<String>,
}

/// `WebhookClientConfig`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WebhookClientConfig {
    /// `url`.
    pub url: Option<String>,
    /// `service`.
    pub service: Option<ServiceReference>,
    /// `caBundle` (decoded bytes).
    pub ca_bundle: Vec<u8>,
}

/// `ServiceReference` (internal: `port` is not a pointer; v1 defaults it to 443).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServiceReference {
    /// `namespace`.
    pub namespace: String,
    /// `name`.
    pub name: String,
    /// `path`.
    pub path: Option<String>,
    /// `port`.
    pub port: i64,
}

/// `CustomResourceDefinitionStatus`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrdStatus {
    /// `conditions`.
    pub conditions: Vec<Condition>,
    /// `acceptedNames`.
    pub accepted_names: Names,
    /// `storedVersions`.
    pub stored_versions: Vec<String>,
}

/// `CustomResourceDefinitionCondition` (the fields validation reads).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Condition {
    /// `type`.
    pub type_: String,
    /// `status`.
    pub status: String,
    /// `reason`.
    pub reason: String,
    /// `message`.
    pub message: String,
}

impl InternalCrd {
    /// `apiextensions.IsCRDConditionTrue`.
    pub fn condition_true(&self, condition: &str) -> bool {
        self.status
            .conditions
            .iter()
            .any(|c| c.type_ == condition && c.status == "True")
    }

    /// `apiextensions.IsStoredVersion`.
    pub fn is_stored_version(&self, version: &str) -> bool {
        self.status.stored_versions.iter().any(|v| v == version)
    }

    /// `apiextensions.GetSchemaForVersion`: the top-level schema when no version has its
    /// own (whatever the version), else the version's. `None` where Go returns an error (both
    /// kinds of schema, or the version does not exist).
    pub fn schema_for_version(&self, version: &str) -> Option<Option<&CustomResourceValidation>> {
        if !self.spec.versions.iter().any(|v| v.schema.is_some()) {
            return Some(self.spec.validation.as_ref());
        }
        if self.spec.validation.is_some() {
            return None;
        }
        let v = self.spec.versions.iter().find(|v| v.name == version)?;
        Some(v.schema.as_ref())
    }
}

impl CrdSpec {
    /// Every schema of the spec: the top-level one, then each version's.
    pub fn schemas(&self) -> impl Iterator<Item = &JsonSchemaProps> {
        self.validation
            .iter()
            .chain(self.versions.iter().filter_map(|v| v.schema.as_ref()))
            .filter_map(|v| v.open_api_v3_schema.as_deref())
    }
}

mod go_json;
pub use go_json::*;

mod decode;
pub use decode::*;

/// `strategy.PrepareForCreate` (and the generic create path): the status is reset, the
/// generation set to 1, deletion fields cleared, and the storage version recorded in
/// `status.storedVersions`.
#[cfg(test)]
pub fn prepare_for_create(crd: &mut InternalCrd) {
    prepare_parts_for_create(&mut crd.metadata, &crd.spec, &mut crd.status);
}

/// [`prepare_for_create`] of the CRD made of `metadata`, `spec` and `status` (it changes only
/// the metadata and the status).
pub(crate) fn prepare_parts_for_create(
    metadata: &mut ObjectMeta,
    spec: &CrdSpec,
    status: &mut CrdStatus,
) {
    *status = CrdStatus::default();
    metadata.generation = 1;
    metadata.deletion_timestamp = None;
    metadata.deletion_grace_period_seconds = None;
    if let Some(v) = spec.versions.iter().find(|v| v.storage) {
        if !status.stored_versions.iter().any(|s| s == &v.name) {
            status.stored_versions.push(v.name.clone());
        }
    }
}

/// `strategy.PrepareForUpdate`: the status is the old one, the generation increments when the
/// spec changed, and a new storage version is recorded.
pub fn prepare_for_update(new: &mut InternalCrd, old: &InternalCrd) {
    new.status = old.status.clone();
    new.metadata.generation = if new.spec != old.spec {
        old.metadata.generation + 1
    } else {
        old.metadata.generation
    };
    if let Some(v) = new.spec.versions.iter().find(|v| v.storage) {
        let name = v.name.clone();
        if !new.is_stored_version(&name) {
            new.status.stored_versions.push(name);
        }
    }
}

#[cfg(test)]
mod tests;
