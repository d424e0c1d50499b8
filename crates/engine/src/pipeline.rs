//! The per-object pipeline, in the server's order: the decoding step of the custom-resource
//! handler (`unstructuredSchemaCoercer.apply`: metadata, pruning, null pruning, embedded
//! metadata), defaulting, the registry strategy's `PrepareForCreate`/`PrepareForUpdate`, then
//! its `Validate`/`ValidateUpdate` (type meta, root ObjectMeta, OpenAPI schema with ratcheting,
//! scale paths, embedded ObjectMeta, list types, then the `x-kubernetes-validations` rules, or
//! the CEL gate when an error blocks them).
//!
//! Everything here works on one CRD version, compiled once ([`CompiledVersion`]).

use std::rc::Rc;
use std::sync::Arc;

use serde_json::{Map, Value as Json};

use crate::analysis::CelRuleResult;
use crate::apiext::internal::Scale;
use crate::cel::validator::{ValidateOptions, Validator, RUNTIME_CEL_COST_BUDGET};
use crate::field_error::{BadValue, FieldError};
use crate::finding::ErrorType;
use crate::objectmeta::validation as meta_validation;
use crate::objectmeta::{self, SchemaCoercer};
use crate::path::FieldPath;
use crate::schema::Structural;
use crate::validation::SchemaValidator;
use crate::{defaulting, listtype};

/// One version of a CRD, compiled for object analysis.
#[derive(Clone, Debug)]
pub struct CompiledVersion {
    /// The version name.
    pub name: String,
    /// Whether it is served.
    pub served: bool,
    /// Whether it is the storage version.
    pub storage: bool,
    /// Whether it is deprecated.
    pub deprecated: bool,
    /// Its deprecation warning, when set.
    pub deprecation_warning: Option<String>,
    /// The structural form of its schema, when it has one (shared with the versions that
    /// have the same schema). The schema as written is the CRD's
    /// ([`crate::CompiledCrd::internal`]).
    pub structural: Option<Arc<Structural>>,
    /// The OpenAPI validator.
    pub validator: SchemaValidator,
    /// Whether any `x-kubernetes-validations` rule exists in the schema.
    pub has_rules: bool,
    /// The compiled rules (`cel.NewValidator(schema, true, PerCallLimit)`), when the schema
    /// has any (shared with the versions that have the same schema).
    pub cel: Option<Rc<Validator>>,
    /// Whether the status subresource is on.
    pub status: bool,
    /// The scale subresource, when on.
    pub scale: Option<Scale>,
}

/// The CRD-level facts the pipeline needs.
#[derive(Clone, Debug, Default)]
pub struct CrdFacts {
    /// `spec.group`.
    pub group: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// `spec.scope == Namespaced`.
    pub namespaced: bool,
    /// `spec.preserveUnknownFields`.
    pub preserve_unknown_fields: bool,
    /// The namespace of the request (`kubectl`'s current namespace), set on namespaced
    /// objects that name none.
    pub request_namespace: String,
}

/// How the request treats unknown fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownFields {
    /// `fieldValidation=Strict`: the request fails.
    Fail,
    /// `fieldValidation=Warn`: warnings.
    Warn,
    /// `fieldValidation=Ignore`: silently pruned.
    Ignore,
}

/// What the pipeline produced for one object.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// A CEL rule named a time zone and no time-zone database was given.
    pub time_zones_needed: bool,
    /// The decoding step failed (the server answers 400 with this text); nothing else ran.
    pub decode_error: Option<String>,
    /// Paths of unknown fields the decoding step dropped, in the server's order.
    pub pruned_paths: Vec<String>,
    /// The object after the decoding step.
    pub pruned: Json,
    /// The object after defaulting.
    pub defaulted: Json,
    /// Paths of fields defaulting added.
    pub defaulted_paths: Vec<String>,
    /// The object after the strategy's preparation: what is validated and stored.
    pub stored: Json,
    /// Schema, metadata, scale and list-type errors.
    pub schema_errors: Vec<FieldError>,
    /// CEL errors (including the "not checked" error when a blocking error exists).
    pub cel_errors: Vec<FieldError>,
    /// Whether CEL was skipped because of blocking errors.
    pub cel_skipped: bool,
    /// CEL failures on values unchanged from the old object, returned as warnings
    /// (ratcheting); their texts are in [`Outcome::warnings`] too.
    pub cel_warnings: Vec<FieldError>,
    /// The runtime cost the rules spent (`RuntimeCELCostBudget` minus the remaining budget).
    pub cel_runtime_cost: u64,
    /// Every rule evaluation, in the server's order (`version` set).
    pub cel_results: Vec<CelRuleResult>,
    /// Warnings returned with the response.
    pub warnings: Vec<String>,
}

impl Outcome {
    /// Every error, schema errors first.
    pub fn errors(&self) -> impl Iterator<Item = &FieldError> {
        self.schema_errors.iter().chain(self.cel_errors.iter())
    }
}

/// The decoding step plus defaulting, as the server applies them to a request body (or,
/// with `from_storage`, to a stored object being read).
pub fn decode(
    obj: &Json,
    crd: &CrdFacts,
    versions: &[CompiledVersion],
    from_storage: bool,
) -> Result<(Json, Vec<String>, Json), String> {
    let coercer = SchemaCoercer {
        group: crd.group.clone(),
        kind: crd.kind.clone(),
        preserve_unknown_fields: crd.preserve_unknown_fields,
        drop_invalid_metadata: from_storage,
        repair_generation: from_storage,
        return_unknown_field_paths: true,
    };
    let mut obj = obj.clone();
    let schema_of = |v: &str| {
        versions
            .iter()
            .find(|cv| cv.name == v)
            .and_then(|cv| cv.structural.as_deref())
    };
    let unknown = coercer.apply(&mut obj, &schema_of).map_err(|e| e.text())?;
    let pruned = obj.clone();
    if coercer.defaults_apply_to(&obj) {
        let version = obj
            .get("apiVersion")
            .and_then(Json::as_str)
            .and_then(|av| objectmeta::parse_group_version(av).ok())
            .map(|(_, v)| v)
            .unwrap_or_default();
        defaulting::default(&mut obj, schema_of(&version));
    }
    Ok((pruned, unknown, obj))
}

/// Runs the create (or, with `old`, update) pipeline for one object of `version`.
pub fn run(
    obj: &Json,
    old: Option<&Json>,
    crd: &CrdFacts,
    versions: &[CompiledVersion],
    version: &CompiledVersion,
    unknown_fields: UnknownFields,
    time_zones: Option<&cel_core::tz::TimeZoneDb>,
) -> Outcome {
    let mut out = Outcome::default();
    let kind = &crd.kind;
    let (pruned, unknown, defaulted) = match decode(obj, crd, versions, false) {
        Ok(r) => r,
        Err(e) => {
            out.decode_error = Some(format!(
                "{kind} in version {:?} cannot be handled as a {kind}: {e}",
                version.name
            ));
            return out;
        }
    };
    out.pruned_paths = unknown.clone();
    out.defaulted_paths = added_paths(&pruned, &defaulted);
    out.pruned = pruned;
    out.defaulted = defaulted.clone();
    match unknown_fields {
        UnknownFields::Fail if !unknown.is_empty() => {
            let list: Vec<String> = unknown
                .iter()
                .map(|p| objectmeta::unknown_field_message(p))
                .collect();
            out.decode_error = Some(format!(
                "{kind} in version {:?} cannot be handled as a {kind}: strict decoding error: {}",
                version.name,
                list.join(", ")
            ));
            return out;
        }
        UnknownFields::Warn => out
            .warnings
            .extend(unknown.iter().map(|p| objectmeta::unknown_field_message(p))),
        _ => {}
    }

    // An old object is read from storage: decoded with the storage coercer. A stored object
    // always has its namespace and a resourceVersion.
    let old = old.and_then(|o| decode(o, crd, versions, true).ok().map(|(_, _, d)| d));
    let old = old.map(|mut o| {
        if crd.namespaced {
            fill_namespace(&mut o, &crd.request_namespace);
        }
        set_meta_if_missing(&mut o, "resourceVersion", &Json::String("1".to_owned()));
        o
    });

    let mut stored = defaulted;
    if crd.namespaced {
        fill_namespace(&mut stored, &crd.request_namespace);
    }
    // An update (`kubectl apply`/`edit`) carries the stored object's system fields.
    if let Some(old) = &old {
        for field in ["resourceVersion", "uid", "creationTimestamp"] {
            if let Some(v) = old.get("metadata").and_then(|m| m.get(field)) {
                set_meta_if_missing(&mut stored, field, v);
            }
        }
    }
    match &old {
        None => prepare_for_create(&mut stored, version.status),
        Some(old) => prepare_for_update(&mut stored, old, version.status),
    }

    let s = version.structural.as_deref();
    let mut errs: Vec<FieldError> = Vec::new();
    // customResourceValidator.Validate / ValidateUpdate.
    let type_errs =
        meta_validation::validate_type_meta(&stored, &crd.group, &version.name, &crd.kind);
    if type_errs.is_empty() {
        match &old {
            None => errs.extend(meta_validation::validate_root_object_meta(
                &stored,
                crd.namespaced,
            )),
            Some(old) => errs.extend(meta_validation::validate_root_object_meta_update(
                &stored, old,
            )),
        }
        match &old {
            None => errs.extend(version.validator.validate(&FieldPath::root(), &stored)),
            Some(old) => errs.extend(version.validator.validate_update(
                &FieldPath::root(),
                &stored,
                old,
                true,
            )),
        }
        if let Some(scale) = &version.scale {
            if old.is_none() {
                errs.extend(validate_scale_spec(&stored, scale));
            }
            errs.extend(validate_scale_status(&stored, scale));
        }
    } else {
        errs.extend(type_errs);
    }
    // The strategy's own checks.
    errs.extend(meta_validation::validate_embedded(
        &FieldPath::root(),
        &stored,
        s,
        false,
    ));
    let lists_ok_before = old
        .as_ref()
        .map(|o| {
            listtype::validate_list_sets_and_maps(&FieldPath::root(), s, o.as_object()).is_empty()
        })
        .unwrap_or(true);
    if lists_ok_before {
        errs.extend(listtype::validate_list_sets_and_maps(
            &FieldPath::root(),
            s,
            stored.as_object(),
        ));
    }
    // The x-kubernetes-validations rules, unless an error blocks them. The rules are
    // evaluated either way: the runtime cost is what they cost on this object.
    if let Some(cel) = &version.cel {
        let eval = cel.validate(
            &FieldPath::root(),
            &stored,
            old.as_ref(),
            RUNTIME_CEL_COST_BUDGET,
            ValidateOptions {
                ratcheting: old.is_some(),
                time_zones,
            },
        );
        out.time_zones_needed = eval.time_zones_needed;
        out.cel_runtime_cost =
            u64::try_from(RUNTIME_CEL_COST_BUDGET.saturating_sub(eval.remaining_budget))
                .unwrap_or(0);
        if errs.iter().any(is_blocking) {
            out.cel_skipped = true;
            out.cel_errors.push(FieldError::invalid(
                FieldPath::root(),
                BadValue::Null,
                "some validation rules were not checked because the object was invalid; \
                 correct the existing errors to complete validation",
            ));
            out.cel_results = cel.skipped(
                &FieldPath::root(),
                &stored,
                old.as_ref(),
                "the object has errors that block CEL validation",
            );
        } else {
            out.cel_errors = eval.errors;
            out.cel_results = eval.results;
            // The warning recorder keeps one of each text.
            for w in eval.warnings {
                if !out.warnings.contains(&w) {
                    out.warnings.push(w);
                }
            }
            out.cel_warnings = eval.ratcheted;
        }
        for r in &mut out.cel_results {
            r.version = version.name.clone();
        }
    }
    out.schema_errors = errs;

    // Warnings: finalizers the request adds.
    let new_meta = meta_validation::root_object_meta(&stored).ok();
    let old_meta = old
        .as_ref()
        .and_then(|o| meta_validation::root_object_meta(o).ok());
    if let Some(meta) = &new_meta {
        out.warnings
            .extend(meta_validation::finalizer_warnings(meta, old_meta.as_ref()));
    }
    out.stored = stored;
    out
}

/// `EnsureObjectNamespaceMatchesRequestNamespace` for an object without a namespace: it
/// takes the request's.
fn fill_namespace(obj: &mut Json, namespace: &str) {
    let Json::Object(map) = obj else { return };
    let meta = map
        .entry("metadata")
        .or_insert_with(|| Json::Object(Map::new()));
    if let Json::Object(m) = meta {
        let empty = m
            .get("namespace")
            .and_then(Json::as_str)
            .unwrap_or("")
            .is_empty();
        if empty && !namespace.is_empty() {
            m.insert("namespace".to_owned(), Json::String(namespace.to_owned()));
        }
    }
}

/// Sets `metadata.<field>` unless the object has it.
fn set_meta_if_missing(obj: &mut Json, field: &str, value: &Json) {
    let Json::Object(map) = obj else { return };
    let meta = map
        .entry("metadata")
        .or_insert_with(|| Json::Object(Map::new()));
    if let Json::Object(m) = meta {
        if !m.contains_key(field) {
            m.insert(field.to_owned(), value.clone());
        }
    }
}

/// `hasBlockingErr`: errors after which CEL rules are not evaluated.
fn is_blocking(e: &FieldError) -> bool {
    matches!(
        e.error_type,
        ErrorType::FieldValueNotSupported
            | ErrorType::FieldValueRequired
            | ErrorType::FieldValueTooLong
            | ErrorType::FieldValueTooMany
            | ErrorType::FieldValueTypeInvalid
    )
}

/// `PrepareForCreate`: `status` dropped when the status subresource is on; generation 1.
fn prepare_for_create(obj: &mut Json, status: bool) {
    let Json::Object(map) = obj else { return };
    if status {
        map.remove("status");
    }
    set_generation(map, 1);
}

/// `PrepareForUpdate`: `status` kept from the old object when the status subresource is on;
/// generation bumped when anything but metadata changed.
fn prepare_for_update(obj: &mut Json, old: &Json, status: bool) {
    let Json::Object(map) = obj else { return };
    let old_map = old.as_object();
    if status {
        match old_map.and_then(|o| o.get("status")) {
            Some(s) => {
                map.insert("status".to_owned(), s.clone());
            }
            None => {
                map.remove("status");
            }
        }
    }
    let strip = |m: &Map<String, Json>| {
        m.iter()
            .filter(|(k, _)| k.as_str() != "metadata")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<Map<String, Json>>()
    };
    let changed = old_map.map(|o| strip(o) != strip(map)).unwrap_or(true);
    let old_generation = old
        .get("metadata")
        .and_then(|m| m.get("generation"))
        .and_then(Json::as_i64)
        .unwrap_or(0);
    if changed {
        set_generation(map, old_generation + 1);
    } else {
        set_generation(map, old_generation);
    }
}

fn set_generation(map: &mut Map<String, Json>, generation: i64) {
    let meta = map
        .entry("metadata")
        .or_insert_with(|| Json::Object(Map::new()));
    if let Json::Object(m) = meta {
        if generation == 0 {
            m.remove("generation");
        } else {
            m.insert("generation".to_owned(), Json::from(generation));
        }
    }
}

/// `unstructured.NestedInt64` along a scale path (leading `.` ignored): the value (0 when
/// missing) or the accessor error text.
fn nested_int64(obj: &Json, path: &str) -> Result<i64, String> {
    let trimmed = path.strip_prefix('.').unwrap_or(path);
    let mut cur = obj;
    let fields: Vec<&str> = trimmed.split('.').collect();
    for (i, f) in fields.iter().enumerate() {
        match cur {
            Json::Object(m) => match m.get(*f) {
                Some(v) => cur = v,
                None => return Ok(0),
            },
            other => {
                let done = fields.get(..i).map(|s| s.join(".")).unwrap_or_default();
                return Err(format!(
                    "value cannot be found on path {done:?}: {} is of the type {}, expected map[string]interface{{}}",
                    objectmeta::gojson::go_v(other),
                    objectmeta::gojson::go_type(other)
                ));
            }
        }
    }
    match cur {
        Json::Number(n) if n.is_i64() => Ok(n.as_i64().unwrap_or(0)),
        other => Err(format!(
            ".{trimmed} accessor error: {} is of the type {}, expected int64",
            objectmeta::gojson::go_v(other),
            objectmeta::gojson::go_type(other)
        )),
    }
}

fn scale_replicas_errors(obj: &Json, path: &str) -> Vec<FieldError> {
    let field = FieldPath(vec![crate::path::Segment::Field(path.to_owned())]);
    match nested_int64(obj, path) {
        Err(e) => vec![FieldError::invalid(field, BadValue::Int(0), e)],
        Ok(n) if n < 0 => vec![FieldError::invalid(
            field,
            BadValue::Int(n),
            "should be a non-negative integer",
        )],
        Ok(n) if n > i64::from(i32::MAX) => vec![FieldError::invalid(
            field,
            BadValue::Int(n),
            format!("should be less than or equal to {}", i32::MAX),
        )],
        Ok(_) => Vec::new(),
    }
}

/// `ValidateScaleSpec`.
fn validate_scale_spec(obj: &Json, scale: &Scale) -> Vec<FieldError> {
    scale_replicas_errors(obj, &scale.spec_replicas_path)
}

/// `ValidateScaleStatus`.
fn validate_scale_status(obj: &Json, scale: &Scale) -> Vec<FieldError> {
    let mut errs = scale_replicas_errors(obj, &scale.status_replicas_path);
    if let Some(selector) = &scale.label_selector_path {
        let trimmed = selector.strip_prefix('.').unwrap_or(selector);
        let mut cur = Some(obj);
        for f in trimmed.split('.') {
            cur = cur.and_then(|c| c.get(f));
        }
        if let Some(v) = cur {
            if !v.is_string() {
                errs.push(FieldError::invalid(
                    FieldPath(vec![crate::path::Segment::Field(selector.clone())]),
                    BadValue::Str(String::new()),
                    format!(
                        ".{trimmed} accessor error: {} is of the type {}, expected string",
                        objectmeta::gojson::go_v(v),
                        objectmeta::gojson::go_type(v)
                    ),
                ));
            }
        }
    }
    errs
}

/// Paths (server style, `a.b[0].c`) of the fields present in `after` but not in `before`.
pub fn added_paths(before: &Json, after: &Json) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<(FieldPath, Option<&Json>, &Json)> =
        vec![(FieldPath::root(), Some(before), after)];
    while let Some((path, b, a)) = stack.pop() {
        match (b, a) {
            (None, _) => out.push(path.to_string()),
            (Some(Json::Object(bm)), Json::Object(am)) => {
                for (k, av) in am {
                    stack.push((path.child_name(k), bm.get(k), av));
                }
            }
            (Some(Json::Array(bl)), Json::Array(al)) => {
                for (i, av) in al.iter().enumerate() {
                    stack.push((path.index(i), bl.get(i), av));
                }
            }
            _ => {}
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn added_paths_lists_new_fields() {
        let before = json!({"spec": {"a": 1, "l": [{"x": 1}]}});
        let after = json!({"spec": {"a": 1, "b": 2, "l": [{"x": 1, "y": 2}]}, "status": {}});
        assert_eq!(
            added_paths(&before, &after),
            vec!["spec.b", "spec.l[0].y", "status"]
        );
    }

    #[test]
    fn generation_and_status_on_create_and_update() {
        let mut obj = json!({"spec": {"a": 1}, "status": {"s": 1}});
        prepare_for_create(&mut obj, true);
        assert_eq!(
            obj,
            json!({"spec": {"a": 1}, "metadata": {"generation": 1}})
        );
        let old = json!({"spec": {"a": 1}, "status": {"s": 2}, "metadata": {"generation": 3}});
        let mut new = json!({"spec": {"a": 2}, "status": {"s": 9}, "metadata": {}});
        prepare_for_update(&mut new, &old, true);
        assert_eq!(
            new,
            json!({"spec": {"a": 2}, "status": {"s": 2}, "metadata": {"generation": 4}})
        );
    }

    /// A CRD whose spec has a plain rule, a transition rule and a rule with a fieldPath.
    const RULES_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
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
            required: [size]
            properties:
              size: {type: integer}
              mode: {type: string}
            x-kubernetes-validations:
            - rule: self.size <= 10
              message: too big
            - rule: self.mode == oldSelf.mode
              message: mode is immutable
              fieldPath: .mode
";

    fn analyze(obj: &str, old: Option<&str>) -> crate::analysis::Analysis {
        crate::analysis::analyze(&crate::analysis::Request {
            crd: RULES_CRD.to_owned(),
            objects: vec![obj.to_owned()],
            old_object: old.map(str::to_owned),
            options: crate::analysis::Options::default(),
        })
    }

    const OBJ: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n";

    #[test]
    fn cel_rules_run_after_schema_validation() {
        let a = analyze(&format!("{OBJ}spec: {{size: 11, mode: a}}\n"), None);
        let o = a.objects.first().unwrap();
        assert!(!o.accepted);
        let errors: Vec<&str> = o.cel_errors.iter().map(|e| e.error.as_str()).collect();
        assert_eq!(errors, vec!["spec: Invalid value: too big"]);
        assert!(o.cel_runtime_cost > 0);
        // The transition rule is skipped on create.
        let outcomes: Vec<(&str, crate::analysis::CelOutcome)> = o
            .cel_results
            .iter()
            .map(|r| (r.rule.as_str(), r.outcome))
            .collect();
        assert_eq!(
            outcomes,
            vec![
                (
                    "properties[spec].x-kubernetes-validations[0]",
                    crate::analysis::CelOutcome::Failed
                ),
                (
                    "properties[spec].x-kubernetes-validations[1]",
                    crate::analysis::CelOutcome::Skipped
                ),
            ]
        );
        assert!(o
            .cel_results
            .iter()
            .all(|r| r.version == "v1" && r.path == "spec"));
        // The finding is located at the field.
        let f = a
            .findings
            .iter()
            .find(|f| f.message == "spec: Invalid value: too big")
            .unwrap();
        assert_eq!(f.location.unwrap().span.start.line, 4);
    }

    #[test]
    fn blocking_errors_gate_the_rules_but_not_their_cost() {
        let a = analyze(&format!("{OBJ}spec: {{mode: a}}\n"), None);
        let o = a.objects.first().unwrap();
        let errors: Vec<&str> = o.errors.iter().map(|e| e.error.as_str()).collect();
        assert_eq!(
            errors,
            vec![
                "spec.size: Required value",
                "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            ]
        );
        // The rules were evaluated for their cost (the first one errors on the missing
        // field) but are reported as skipped.
        assert!(o.cel_runtime_cost > 0);
        assert!(o
            .cel_results
            .iter()
            .all(|r| r.outcome == crate::analysis::CelOutcome::Skipped));
    }

    #[test]
    fn transition_rules_and_ratcheting_on_update() {
        let old = format!("{OBJ}spec: {{size: 20, mode: a}}\n");
        // The spec changed (its mode): no ratcheting for its rules; the transition rule
        // reports at its fieldPath.
        let a = analyze(&format!("{OBJ}spec: {{size: 20, mode: b}}\n"), Some(&old));
        let o = a.objects.first().unwrap();
        let errors: Vec<&str> = o.errors.iter().map(|e| e.error.as_str()).collect();
        assert_eq!(
            errors,
            vec![
                "spec: Invalid value: too big",
                "spec.mode: Invalid value: mode is immutable"
            ]
        );
        assert!(o.warnings.is_empty(), "{:?}", o.warnings);
        // With the spec unchanged, the failure is a warning.
        let a = analyze(&old, Some(&old));
        let o = a.objects.first().unwrap();
        assert!(o.accepted, "{:?}", o.errors);
        assert_eq!(o.warnings, vec!["spec: Invalid value: too big"]);
        assert!(a
            .findings
            .iter()
            .any(|f| f.message == "spec: Invalid value: too big"
                && f.severity == crate::finding::Severity::Warning));
    }

    #[test]
    fn scale_paths() {
        let scale = Scale {
            spec_replicas_path: ".spec.replicas".into(),
            status_replicas_path: ".status.replicas".into(),
            label_selector_path: None,
        };
        assert!(validate_scale_spec(&json!({"spec": {"replicas": 3}}), &scale).is_empty());
        let errs = validate_scale_spec(&json!({"spec": {"replicas": -1}}), &scale);
        assert_eq!(
            errs.first().map(FieldError::error),
            Some(".spec.replicas: Invalid value: -1: should be a non-negative integer".into())
        );
    }
}
