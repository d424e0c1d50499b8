//! The validation of a schema's `default` values (`structuraldefaulting.ValidateDefaults`,
//! `pkg/apiserver/schema/defaulting/validation.go`): every default must be pruned (no unknown
//! fields), give valid metadata where it applies to `apiVersion`, `kind` or `metadata` of a
//! resource, validate against its schema, and pass the schema's CEL rules.
//!
//! Pruning and the ObjectMeta checks are the engine's ([`crate::object::pruning`],
//! [`crate::object::objectmeta`]); the OpenAPI validation and the CEL rules are passed in
//! ([`DefaultsValidation::openapi`], [`DefaultsValidation::cel`]) so this module does not depend
//! on how they are built. [`DefaultsValidation`] implements the [`DefaultsValidator`] hook of
//! CRD validation.

use serde_json::{Map, Value as Json};

use crate::documents::field_error::FieldError;
use crate::documents::path::FieldPath;
use crate::object::objectmeta::{self, CoerceOptions};
use crate::schema::structural::Structural;

use super::hooks::DefaultsValidator;
use super::lazy_path::LazyPath;

/// `celconfig.RuntimeCELCostBudget`.
pub const RUNTIME_CEL_COST_BUDGET: i64 = 10_000_000;

/// Runs the CEL rules of a schema on a value (`cel.NewValidator(s, isResourceRoot,
/// PerCallLimit).Validate(ctx, path, s, value, old, budget)`).
pub trait DefaultsCel {
    /// The errors and the remaining budget, or `None` when the schema (and everything below)
    /// has no rules (the server then builds no validator).
    fn validate(
        &self,
        path: &FieldPath,
        schema: &Structural,
        is_resource_root: bool,
        value: &Json,
        old: Option<&Json>,
        budget: i64,
    ) -> Option<(Vec<FieldError>, i64)>;
}

/// `apiservervalidation.ValidateCustomResource(path, value, NewSchemaValidatorFromOpenAPI(
/// s.ToKubeOpenAPI()))`: the OpenAPI errors of `value` against the structural schema `s`.
pub type OpenApiValidate<'a> = &'a dyn Fn(&FieldPath, &Json, &Structural) -> Vec<FieldError>;

/// The engine's OpenAPI validation of a default ([`crate::object::validation::SchemaValidator::
/// from_structural`]), for [`DefaultsValidation::openapi`].
pub fn engine_openapi(path: &FieldPath, value: &Json, s: &Structural) -> Vec<FieldError> {
    // Numbers of a schema's default reach the validator as Go decodes them (see
    // `validate_default_value`).
    crate::object::validation::validate_default_value(path, value, s)
}

/// The default-value validation, with the OpenAPI and CEL validators it calls.
#[derive(Clone, Copy, Default)]
pub struct DefaultsValidation<'a> {
    /// The OpenAPI validation; `None` reports no OpenAPI errors.
    pub openapi: Option<OpenApiValidate<'a>>,
    /// The CEL rules; `None` runs none.
    pub cel: Option<&'a dyn DefaultsCel>,
}

impl DefaultsValidation<'static> {
    /// The engine's OpenAPI validation ([`engine_openapi`]) and no CEL.
    pub fn without_cel() -> DefaultsValidation<'static> {
        DefaultsValidation {
            openapi: Some(&engine_openapi),
            cel: None,
        }
    }
}

impl std::fmt::Debug for DefaultsValidation<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DefaultsValidation")
            .field("openapi", &self.openapi.is_some())
            .field("cel", &self.cel.is_some())
            .finish()
    }
}

/// A step from the resource (the root or an embedded resource) to a default
/// (`SurroundingObjectFunc.Child` / `.Index`).
#[derive(Clone, Debug)]
enum Step {
    Child(String),
    Index,
}

/// `NewRootObjectFunc().WithTypeMeta(validation/v1, Validation)` followed by the steps: the
/// object surrounding a default that sits at `steps` below the resource.
fn surrounding_object(steps: &[Step], focus: Json) -> Result<Map<String, Json>, String> {
    let mut x = focus;
    for s in steps.iter().rev() {
        x = match s {
            Step::Child(k) => {
                let mut m = Map::new();
                m.insert(k.clone(), x);
                Json::Object(m)
            }
            Step::Index => Json::Array(vec![x]),
        };
    }
    let Json::Object(mut obj) = x else {
        return Err("object root default value must be of object type".to_owned());
    };
    obj.entry("kind")
        .or_insert_with(|| Json::String("Validation".to_owned()));
    obj.entry("apiVersion")
        .or_insert_with(|| Json::String("validation/v1".to_owned()));
    Ok(obj)
}

/// The steps from the resource to a node, as a chain on the stack (turned into a list of
/// [`Step`]s only for a default that needs its surrounding object).
#[derive(Clone, Copy)]
enum Steps<'a> {
    /// At the resource.
    Resource,
    /// `parent` then `.name`.
    Child(&'a Steps<'a>, &'a str),
    /// `parent` then `[]`.
    Index(&'a Steps<'a>),
}

impl Steps<'_> {
    fn to_vec(self) -> Vec<Step> {
        let mut out = Vec::new();
        let mut cur = self;
        loop {
            match cur {
                Steps::Resource => break,
                Steps::Child(parent, name) => {
                    out.push(Step::Child(name.to_owned()));
                    cur = *parent;
                }
                Steps::Index(parent) => {
                    out.push(Step::Index);
                    cur = *parent;
                }
            }
        }
        out.reverse();
        out
    }
}

/// The resource a node belongs to: a node marked `x-kubernetes-embedded-resource`, or the
/// schema root, which `ValidateDefaults` marks as one when it is a resource root (on a copy,
/// made only if a check needs it).
#[derive(Clone, Copy)]
enum Resource<'s> {
    Node(&'s Structural),
    Root,
}

struct Walk<'v, 'a, 'r> {
    v: &'v DefaultsValidation<'a>,
    require_pruned: bool,
    errs: Vec<FieldError>,
    remaining: i64,
    /// The schema root as given.
    root: &'r Structural,
    /// Whether the root is to be taken as marked `x-kubernetes-embedded-resource` though it
    /// is not.
    mark_root: bool,
    /// The marked copy of the root, once needed.
    marked_root: &'r std::cell::OnceCell<Structural>,
}

impl<'r> Walk<'_, '_, 'r> {
    /// The schema the checks of `resource` use.
    fn resource(&self, resource: Resource<'r>) -> &'r Structural {
        match resource {
            Resource::Node(s) => s,
            Resource::Root => self.root_as_checked(),
        }
    }

    /// The root as the checks see it: marked as an embedded resource when `mark_root`.
    fn root_as_checked(&self) -> &'r Structural {
        if !self.mark_root {
            return self.root;
        }
        let root = self.root;
        self.marked_root.get_or_init(|| {
            let mut marked = root.clone();
            marked.extensions.x_embedded_resource = true;
            marked
        })
    }

    /// The CEL part of a default's checks. Returns `false` when the budget ran out.
    fn cel(
        &mut self,
        path: &FieldPath,
        s: &Structural,
        is_resource_root: bool,
        value: &Json,
    ) -> bool {
        let Some(cel) = self.v.cel else { return true };
        let Some((errs, mut rm)) = cel.validate(
            path,
            s,
            is_resource_root,
            value,
            Some(value),
            self.remaining,
        ) else {
            return true;
        };
        let ok = errs.is_empty();
        self.errs.extend(errs);
        if ok {
            // With ratcheting, also as an update from nothing (rules using optionalOldSelf).
            if let Some((errs2, rm2)) =
                cel.validate(path, s, is_resource_root, value, None, self.remaining)
            {
                self.errs.extend(errs2);
                rm = rm.min(rm2);
            }
        }
        self.remaining = rm;
        self.remaining >= 0
    }

    /// `validate`: the checks of `s`'s default and then of its children. Returns `Err` for the
    /// function's own error, `Ok(false)` when the CEL budget ran out. `is_root` is set for the
    /// schema root (whose `x-kubernetes-embedded-resource` may be taken as set, see
    /// [`Walk::mark_root`]).
    #[allow(clippy::too_many_arguments)]
    fn walk(
        &mut self,
        path: &LazyPath<'_>,
        s: &'r Structural,
        is_root: bool,
        resource: Resource<'r>,
        root_steps: Steps<'_>,
        mut inside_meta: bool,
        is_resource_root: bool,
        depth: usize,
    ) -> Result<bool, String> {
        if depth > crate::schema::props::MAX_SCHEMA_DEPTH {
            return Ok(true);
        }
        let embedded = s.extensions.x_embedded_resource || (is_root && self.mark_root);
        let (resource, steps) = if embedded {
            inside_meta = false;
            let own = if is_root {
                Resource::Root
            } else {
                Resource::Node(s)
            };
            (own, Steps::Resource)
        } else {
            (resource, root_steps)
        };
        let is_resource_root = is_resource_root || embedded;
        if let Some(default) = &s.generic.default {
            // The node as the checks see it (the marked copy, for a marked root).
            let s = if is_root { self.root_as_checked() } else { s };
            let dp = path.child("default").to_path();
            if inside_meta {
                let root = self.resource(resource);
                let obj = surrounding_object(&steps.to_vec(), default.clone())?;
                let mut obj = Json::Object(obj);
                let (coerce_err, _) = objectmeta::coerce(
                    &FieldPath::root(),
                    &mut obj,
                    Some(root),
                    true,
                    CoerceOptions::default(),
                );
                if let Some(e) = coerce_err {
                    self.errs.push(FieldError::invalid(
                        dp,
                        objectmeta::bad_value(default),
                        format!("must result in valid metadata: {}", e.error()),
                    ));
                } else {
                    let meta_errs = objectmeta::validation::validate_embedded(
                        &FieldPath::root(),
                        &obj,
                        Some(root),
                        true,
                    );
                    if !meta_errs.is_empty() {
                        self.errs.push(FieldError::invalid(
                            dp,
                            objectmeta::bad_value(default),
                            format!(
                                "must result in valid metadata: {}",
                                super::aggregate_error(&meta_errs)
                            ),
                        ));
                    } else if !self.openapi(&dp, default, s)
                        && !self.cel(&dp, s, is_resource_root, default)
                    {
                        return Ok(false);
                    }
                }
            } else {
                if self.require_pruned {
                    let mut pruned = default.clone();
                    crate::object::pruning::prune(
                        &mut pruned,
                        Some(s),
                        s.extensions.x_embedded_resource,
                    );
                    if &pruned != default {
                        self.errs.push(FieldError::invalid(
                            dp.clone(),
                            objectmeta::bad_value(default),
                            "must not have unknown fields",
                        ));
                    }
                }
                let mut value = default.clone();
                let (coerce_err, _) = objectmeta::coerce(
                    &dp,
                    &mut value,
                    Some(s),
                    s.extensions.x_embedded_resource,
                    CoerceOptions::default(),
                );
                if let Some(e) = coerce_err {
                    self.errs.push(e);
                } else {
                    let meta_errs = objectmeta::validation::validate_embedded(
                        &dp,
                        &value,
                        Some(s),
                        s.extensions.x_embedded_resource,
                    );
                    if !meta_errs.is_empty() {
                        self.errs.extend(meta_errs);
                    } else if !self.openapi(&dp, &value, s)
                        && !self.cel(&dp, s, is_resource_root, &value)
                    {
                        return Ok(false);
                    }
                }
            }
        }
        if let Some(items) = s.items.as_deref() {
            if !self.walk(
                &path.child("items"),
                items,
                false,
                resource,
                Steps::Index(&steps),
                inside_meta,
                false,
                depth + 1,
            )? {
                return Ok(false);
            }
        }
        let properties = path.child("properties");
        for (k, sub) in &s.properties {
            let sub_inside_meta = inside_meta
                || (embedded && matches!(k.as_str(), "metadata" | "apiVersion" | "kind"));
            if !self.walk(
                &properties.key(k),
                sub,
                false,
                resource,
                Steps::Child(&steps, k),
                sub_inside_meta,
                false,
                depth + 1,
            )? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The OpenAPI check; `true` when it reported errors (the CEL check is then skipped).
    fn openapi(&mut self, path: &FieldPath, value: &Json, s: &Structural) -> bool {
        let Some(f) = self.v.openapi else {
            return false;
        };
        let errs = f(path, value, s);
        let any = !errs.is_empty();
        self.errs.extend(errs);
        any
    }
}

impl DefaultsValidation<'_> {
    /// `ValidateDefaults(ctx, path, s, isResourceRoot, requirePrunedDefaults)` with the given
    /// CEL cost budget (the server uses [`RUNTIME_CEL_COST_BUDGET`]).
    pub fn validate_with_budget(
        &self,
        path: &FieldPath,
        s: &Structural,
        is_resource_root: bool,
        require_pruned_defaults: bool,
        budget: i64,
    ) -> Result<Vec<FieldError>, String> {
        // The server marks a copy of the root as an embedded resource; the copy is made only
        // if a check uses it (a default at the root or in the root's metadata).
        let marked_root = std::cell::OnceCell::new();
        let mut w = Walk {
            v: self,
            require_pruned: require_pruned_defaults,
            errs: Vec::new(),
            remaining: budget,
            root: s,
            mark_root: is_resource_root && !s.extensions.x_embedded_resource,
            marked_root: &marked_root,
        };
        w.walk(
            &LazyPath::new(path),
            s,
            true,
            Resource::Root,
            Steps::Resource,
            false,
            true,
            0,
        )?;
        Ok(w.errs)
    }
}

impl DefaultsValidator for DefaultsValidation<'_> {
    fn validate_defaults(
        &self,
        path: &FieldPath,
        schema: &Structural,
        is_resource_root: bool,
        require_pruned_defaults: bool,
    ) -> Result<Vec<FieldError>, String> {
        self.validate_with_budget(
            path,
            schema,
            is_resource_root,
            require_pruned_defaults,
            RUNTIME_CEL_COST_BUDGET,
        )
    }

    fn has_unpruned_defaults(&self, schema: &Structural) -> Option<bool> {
        Some(has_unpruned_defaults(schema))
    }
}

/// `accessor(obj)` of the surrounding-object functions: the value at `steps` below `obj`
/// (`None` when not found), or an error when a step meets the wrong type.
fn access(obj: &Json, steps: &[Step]) -> Result<Option<Json>, String> {
    let mut x = obj;
    for s in steps {
        match s {
            Step::Child(k) => {
                let Json::Object(m) = x else {
                    return Err(format!(".{k} must be of object type"));
                };
                match m.get(k) {
                    Some(v) => x = v,
                    None => return Ok(None),
                }
            }
            Step::Index => {
                let Json::Array(a) = x else {
                    return Err("[] must be of array type".to_owned());
                };
                match a.first() {
                    Some(v) => x = v,
                    None => return Ok(None),
                }
            }
        }
    }
    Ok(Some(x.clone()))
}

/// `schemaHasUnprunedDefaults` after the structural checks: whether `PruneDefaults` changes a
/// default (each default is placed in an object at its position from the root, its metadata
/// coerced, the object pruned from the root, and the default read back). `false` when
/// `PruneDefaults` fails, as the server then ignores the result.
pub fn has_unpruned_defaults(root: &Structural) -> bool {
    let mut stack: Vec<(&Structural, Vec<Step>)> = vec![(root, Vec::new())];
    let mut changed = false;
    while let Some((s, steps)) = stack.pop() {
        if let Some(d) = &s.generic.default {
            let mut x = d.clone();
            for st in steps.iter().rev() {
                x = match st {
                    Step::Child(k) => {
                        let mut m = Map::new();
                        m.insert(k.clone(), x);
                        Json::Object(m)
                    }
                    Step::Index => Json::Array(vec![x]),
                };
            }
            if !x.is_object() {
                return false;
            }
            let (err, _) = objectmeta::coerce(
                &FieldPath::root(),
                &mut x,
                Some(root),
                true,
                CoerceOptions {
                    drop_invalid_fields: true,
                    return_unknown_field_paths: false,
                },
            );
            if err.is_some() {
                return false;
            }
            crate::object::pruning::prune(&mut x, Some(root), true);
            match access(&x, &steps) {
                Err(_) => return false,
                Ok(v) => changed |= v.as_ref() != Some(d),
            }
        }
        if let Some(ap) = s.additional_properties_schema() {
            let mut st = steps.clone();
            st.push(Step::Child("*".to_owned()));
            stack.push((ap, st));
        }
        if let Some(i) = s.items.as_deref() {
            let mut st = steps.clone();
            st.push(Step::Index);
            stack.push((i, st));
        }
        for (k, p) in &s.properties {
            let mut st = steps.clone();
            st.push(Step::Child(k.clone()));
            stack.push((p, st));
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::field_error::BadValue;
    use crate::schema::JsonSchemaProps;
    use serde_json::json;

    fn structural(v: Json) -> Structural {
        let (p, e) = JsonSchemaProps::from_json(&v);
        assert!(e.is_empty(), "{e:?}");
        Structural::from_props(&p).unwrap()
    }

    fn run(v: &DefaultsValidation<'_>, s: Json) -> Vec<String> {
        v.validate_defaults(&FieldPath::new("schema"), &structural(s), true, true)
            .unwrap()
            .iter()
            .map(FieldError::error)
            .collect()
    }

    #[test]
    fn defaults_must_be_pruned() {
        let v = DefaultsValidation::default();
        let errs = run(
            &v,
            json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}, "default": {"b": "x", "c": 1}}}}),
        );
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].starts_with("schema.properties[a].default: Invalid value:"),
            "{errs:?}"
        );
        assert!(
            errs[0].ends_with("must not have unknown fields"),
            "{errs:?}"
        );
    }

    #[test]
    fn metadata_defaults_must_be_valid_metadata() {
        let v = DefaultsValidation::default();
        let errs = run(
            &v,
            json!({"type": "object", "properties": {"e": {"type": "object", "x-kubernetes-embedded-resource": true,
                "properties": {"kind": {"type": "string", "default": 1}}}}}),
        );
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].starts_with("schema.properties[e].properties[kind].default: Invalid value: 1: must result in valid metadata"), "{errs:?}");
    }

    #[test]
    fn openapi_hook_is_called() {
        let f = |p: &FieldPath, _: &Json, s: &Structural| {
            if s.generic.type_ == "integer" {
                vec![FieldError::invalid(
                    p.clone(),
                    BadValue::Str("x".into()),
                    "bad",
                )]
            } else {
                Vec::new()
            }
        };
        let v = DefaultsValidation {
            openapi: Some(&f),
            cel: None,
        };
        let errs = run(
            &v,
            json!({"type": "object", "properties": {"n": {"type": "integer", "default": "x"}}}),
        );
        assert_eq!(
            errs,
            vec!["schema.properties[n].default: Invalid value: \"x\": bad"]
        );
    }
}
