//! Validation of objects against a CRD's OpenAPI schema, as the server does it with
//! kube-openapi (apiextensions-apiserver `pkg/apiserver/validation`): the schema validator
//! built by `NewSchemaValidatorForVersion`, `ValidateCustomResource`,
//! `ValidateCustomResourceUpdate` with schema-level ratcheting, and the conversion of every
//! kube-openapi error into the `field.Error` the server returns
//! (`kubeOpenAPIResultToFieldErrors`), with exact messages such as
//! `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`.
//!
//! Build a [`SchemaValidator`] once per schema (patterns and format checkers are compiled
//! then) and call [`SchemaValidator::validate`] / [`SchemaValidator::validate_update`]:
//!
//! * [`SchemaValidator::new`] — a CRD version's schema (`JSONSchemaProps`), as the server
//!   builds the validator for objects: formats the compatibility version does not support
//!   are ignored, `x-kubernetes-int-or-string` means `type: [integer, string]`.
//! * [`SchemaValidator::from_structural`] — a structural schema (`ToKubeOpenAPI`), as the
//!   server validates `default` values.
//! * [`SchemaValidator::from_openapi`] — an OpenAPI schema taken as written.
//!
//! Objects are decoded JSON (`serde_json::Value`) with integers as `i64` and other numbers as
//! `f64`, as the server's unstructured objects hold them. Values that come from a schema
//! (`default`, `enum`, `example`) are held the same way: apiextensions decodes a v1 `JSON`
//! field with `k8s.io/apimachinery/pkg/util/json.Unmarshal` (`Convert_v1_JSON_To_apiextensions_JSON`,
//! `sigs.k8s.io/json` `UnmarshalCaseSensitivePreserveInts`), which keeps integers as `int64`.
//!
//! CEL rules (`x-kubernetes-validations`) are not evaluated here, and neither are list-type
//! uniqueness ([`crate::object::listtype`]) and metadata checks: the server runs those separately.

mod openapi;
mod ratcheting;
mod schema;

pub mod formats;

pub use crd_studio_gostd::json::marshal as json_marshal;

use std::sync::Arc;

use serde_json::Value as Json;

use crate::documents::field_error::{BadValue, FieldError};
use crate::documents::finding::ErrorType;
use crate::documents::kube_version::KubernetesVersion;
use crate::documents::path::{FieldPath, Segment};
use crate::schema::{JsonSchemaProps, Structural};
use openapi::{Code, GoPath, OaError, OaResult};
use schema::{Builder, OaSchema};

/// How deep validation follows a schema (properties, items, `allOf`/`anyOf`/`oneOf`/`not`):
/// deeper values are not checked. The server has no such limit; it keeps the stack bounded
/// (real schemas are a few dozen levels deep).
pub const MAX_VALIDATION_DEPTH: usize = 512;

/// How a validator is built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The compatibility version deciding which string formats are validated (formats
    /// introduced later are ignored). The default is the 1.37 server's, 1.36.
    pub compatibility_version: KubernetesVersion,
}

/// A schema validator: the compiled schema (or none, which accepts everything).
#[derive(Clone, Debug)]
pub struct SchemaValidator {
    /// Shared: a recompile reuses the validator of a version whose schema it left as it was.
    root: Option<Arc<OaSchema>>,
    /// The schema's distinct `pattern`s (and pattern-property keys).
    patterns: Vec<Arc<schema::Pattern>>,
}

/// The result of an update validation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateOutcome {
    /// The errors the server returns.
    pub errors: Vec<FieldError>,
    /// Errors that ratcheting turned into warnings (unchanged invalid values); the server
    /// does not report these.
    pub ratcheted: Vec<FieldError>,
}

impl SchemaValidator {
    /// `NewSchemaValidatorForVersion(schema, version)`: the validator for a CRD version's
    /// `openAPIV3Schema` (`None` accepts every object).
    pub fn new(schema: Option<&JsonSchemaProps>, options: &Options) -> SchemaValidator {
        let mut b = Builder::default();
        let root = schema.map(|p| Arc::from(b.props(p, options.compatibility_version, 0)));
        SchemaValidator {
            root,
            patterns: b.patterns(),
        }
    }

    /// `NewSchemaValidatorFromOpenAPI(s.ToKubeOpenAPI())`: the validator for a structural
    /// schema, as used to validate defaults.
    pub fn from_structural(schema: &Structural) -> SchemaValidator {
        let mut b = Builder::default();
        let root = Some(Arc::from(b.structural(schema, 0)));
        SchemaValidator {
            root,
            patterns: b.patterns(),
        }
    }

    /// A validator for an OpenAPI schema taken as written (kube-openapi `spec.Schema`): no
    /// format stripping, `x-kubernetes-int-or-string` is only an extension.
    pub fn from_openapi(schema: &JsonSchemaProps) -> SchemaValidator {
        let mut b = Builder::default();
        let root = Some(Arc::from(b.raw_props(schema, 0)));
        SchemaValidator {
            root,
            patterns: b.patterns(),
        }
    }

    /// How many values each `pattern` of the schema could not be evaluated on so far (CRD
    /// Studio's regular-expression bounds, see `crd_studio_gostd::regexp`), by pattern text: a caller
    /// compares two readings to tell which patterns one validation skipped.
    pub fn unevaluated_patterns(&self) -> Vec<(String, u64)> {
        self.patterns
            .iter()
            .map(|p| (p.text.clone(), p.unevaluated()))
            .collect()
    }

    /// `ValidateCustomResource(fldPath, obj, validator)`: the errors of a create. An empty
    /// `fld_path` is the server's nil path (errors at the root print as `<nil>`).
    pub fn validate(&self, fld_path: &FieldPath, obj: &Json) -> Vec<FieldError> {
        match &self.root {
            None => Vec::new(),
            Some(root) => {
                let res = openapi::validate(root, &GoPath::default(), obj, None, 0);
                to_field_errors(fld_path, &res.errors)
            }
        }
    }

    /// `ValidateCustomResourceUpdate(fldPath, obj, old, validator, WithRatcheting(nil))` with
    /// ratcheting on (the `CRDValidationRatcheting` feature, on by default), or
    /// `ValidateCustomResource` when `ratcheting` is false.
    pub fn validate_update(
        &self,
        fld_path: &FieldPath,
        obj: &Json,
        old: &Json,
        ratcheting: bool,
    ) -> Vec<FieldError> {
        self.validate_update_detailed(fld_path, obj, old, ratcheting)
            .errors
    }

    /// Like [`SchemaValidator::validate_update`], also returning the errors ratcheting
    /// dropped.
    pub fn validate_update_detailed(
        &self,
        fld_path: &FieldPath,
        obj: &Json,
        old: &Json,
        ratcheting: bool,
    ) -> UpdateOutcome {
        let Some(root) = &self.root else {
            return UpdateOutcome::default();
        };
        let res: OaResult = if ratcheting {
            ratcheting::validate_ratcheting(
                root,
                &GoPath::default(),
                obj,
                ratcheting::Corr { old, schema: root },
                0,
            )
        } else {
            openapi::validate(root, &GoPath::default(), obj, None, 0)
        };
        UpdateOutcome {
            errors: to_field_errors(fld_path, &res.errors),
            ratcheted: to_field_errors(fld_path, &res.warnings),
        }
    }
}

/// `ValidateCustomResource(nil, obj, NewSchemaValidatorForVersion(schema, version))`.
#[cfg(test)]
pub fn validate(
    obj: &Json,
    schema: Option<&JsonSchemaProps>,
    options: &Options,
) -> Vec<FieldError> {
    SchemaValidator::new(schema, options).validate(&FieldPath::root(), obj)
}

/// `ValidateCustomResource(path, value, NewSchemaValidatorFromOpenAPI(s.ToKubeOpenAPI()))`,
/// as the server validates a `default` value. The value keeps its numbers' Go types: the
/// server decodes a schema's `default` with `utiljson.Unmarshal` (apiextensions v1
/// `Convert_v1_JSON_To_apiextensions_JSON`), so an integer is an `int64` and kube-openapi's
/// type validator names it `integer`/`int64`. Fits [`crate::crd::apiext::defaults::OpenApiValidate`].
pub fn validate_default_value(path: &FieldPath, value: &Json, s: &Structural) -> Vec<FieldError> {
    SchemaValidator::from_structural(s).validate(path, value)
}

/// The bad value of a kube-openapi error value, as `field.Error` prints it (compound values
/// are printed with `json.Marshal`).
fn bad_value(v: &Json) -> BadValue {
    match v {
        Json::Array(_) | Json::Object(_) => BadValue::Raw(crd_studio_gostd::json::marshal(v)),
        other => BadValue::from_json(other),
    }
}

/// `value := ""; if err.Value != nil { value = err.Value }`.
fn value_or_empty(v: &Json) -> BadValue {
    if v.is_null() {
        BadValue::Str(String::new())
    } else {
        bad_value(v)
    }
}

/// `fldPath.Child(strings.TrimPrefix(name, "."))`, as segments when they print the same.
fn error_path(prefix: &FieldPath, name: &str, segments: &FieldPath) -> FieldPath {
    if name.is_empty() || name == "." {
        return prefix.clone();
    }
    let go_name = name.strip_prefix('.').unwrap_or(name);
    let exact = if prefix.0.is_empty() {
        go_name.to_owned()
    } else {
        format!("{prefix}.{go_name}")
    };
    let mut structured = prefix.clone();
    structured.0.extend(segments.0.iter().cloned());
    if structured.to_string() == exact {
        structured
    } else {
        let mut p = prefix.clone();
        p.0.push(Segment::Field(go_name.to_owned()));
        p
    }
}

/// `field.TooLong(path, "", max)`.
fn too_long(path: FieldPath, max: i64) -> FieldError {
    let detail = if max >= 0 {
        format!(
            "may not be more than {max} {}",
            if max == 1 { "byte" } else { "bytes" }
        )
    } else {
        "value is too long".to_owned()
    };
    FieldError::new(ErrorType::FieldValueTooLong, path, BadValue::Omit, detail)
}

/// `field.TooMany(path, actual, max)`.
fn too_many(path: FieldPath, actual: i64, max: i64) -> FieldError {
    let detail = if max >= 0 {
        format!(
            "must have at most {max} {}",
            if max == 1 { "item" } else { "items" }
        )
    } else {
        "has too many items".to_owned()
    };
    let value = if actual >= 0 {
        BadValue::Int(actual)
    } else {
        BadValue::Omit
    };
    FieldError::new(ErrorType::FieldValueTooMany, path, value, detail)
}

/// `kubeOpenAPIResultToFieldErrors`.
fn to_field_errors(fld_path: &FieldPath, errors: &[OaError]) -> Vec<FieldError> {
    let mut out = Vec::with_capacity(errors.len());
    for e in errors {
        match e {
            OaError::Plain(message) => out.push(FieldError::invalid(
                fld_path.clone(),
                BadValue::Str(String::new()),
                message.clone(),
            )),
            OaError::Validation(v) => {
                let path = error_path(fld_path, &v.name, &v.field);
                let err = match v.code {
                    Code::Required => FieldError::required(path, ""),
                    Code::Enum => {
                        let values: Vec<String> = v
                            .values
                            .iter()
                            .map(|x| match x {
                                Json::String(s) => s.clone(),
                                other => crd_studio_gostd::json::marshal(other),
                            })
                            .collect();
                        let refs: Vec<&str> = values.iter().map(String::as_str).collect();
                        FieldError::not_supported(path, bad_value(&v.value), &refs)
                    }
                    Code::TooLong => too_long(path, v.valid.unwrap_or(-1)),
                    Code::MaxItems | Code::TooManyProperties => {
                        let actual = v.value.as_i64().unwrap_or(-1);
                        too_many(path, actual, v.valid.unwrap_or(-1))
                    }
                    Code::InvalidType => FieldError::new(
                        ErrorType::FieldValueTypeInvalid,
                        path,
                        value_or_empty(&v.value),
                        v.message.clone(),
                    ),
                    _ => FieldError::invalid(path, value_or_empty(&v.value), v.message.clone()),
                };
                out.push(err);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
