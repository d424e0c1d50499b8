//! Recompiling a CRD after an edit inside one version's schema: what CRD validation derives
//! from a schema alone (each rule's compilation, each default's CEL check) is taken from the
//! previous compile for the schemas the edit left as they were, so only the edited version's
//! rules are compiled again.
//!
//! A schema is the same when its decoded form is equal to the previous one at the same place
//! (`spec.versions[i].schema.openAPIV3Schema`, or the shared `spec.validation`), under the same
//! Kubernetes version (the caller's memo is kept per version). What is reused is keyed by the
//! field path the server's walk reports, which starts with that place; the results depend on
//! nothing outside the schema (rules compile against their scope inside it, defaults are part
//! of it; create has no old CRD and the default CEL environment).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::Value as Json;

use crate::cel::rules_view::CompileRecords;
use crate::crd::apiext::defaults::DefaultsCel;
use crate::crd::apiext::internal::CustomResourceValidation;
use crate::crd::apiext::InternalCrd;
use crate::crd::apiext::{CelCompilation, CelCompileFailure, CelCompiler, CelRuleSite};
use crate::documents::field_error::FieldError;
use crate::documents::path::FieldPath;
use crate::schema::{JsonSchemaProps, Structural};

/// The schema of version `i`: its own, or the CRD's shared one (`spec.validation`: the
/// internal CRD holds the versions' schemas there when they are all the same), with its place.
pub(super) fn version_schema(crd: &InternalCrd, i: usize) -> Option<(&JsonSchemaProps, String)> {
    let v = crd.spec.versions.get(i)?;
    match schema_of(v.schema.as_ref()) {
        Some(s) => Some((s, format!("spec.versions[{i}].schema.openAPIV3Schema"))),
        None => schema_of(crd.spec.validation.as_ref())
            .map(|s| (s, "spec.validation.openAPIV3Schema".to_owned())),
    }
}

/// A validation's schema, when it has one.
fn schema_of(v: Option<&CustomResourceValidation>) -> Option<&JsonSchemaProps> {
    v.and_then(|s| s.open_api_v3_schema.as_deref())
}

/// The schemas an edit left as they were: each one's place (field path text) now and in the
/// previous CRD (the same schema moves between a version and `spec.validation` when the
/// versions' schemas become, or stop being, all the same).
#[derive(Debug, Default)]
pub(super) struct UnchangedSchemas {
    places: Vec<(String, String)>,
}

impl UnchangedSchemas {
    /// The versions' schemas of `new` equal to those of `old` at the same index.
    pub(super) fn between(old: &InternalCrd, new: &InternalCrd) -> UnchangedSchemas {
        let mut places: Vec<(String, String)> = Vec::new();
        for i in 0..new.spec.versions.len() {
            if let (Some((a, was)), Some((b, is))) =
                (version_schema(old, i), version_schema(new, i))
            {
                if a == b && !places.iter().any(|(p, _)| *p == is) {
                    places.push((is, was));
                }
            }
        }
        UnchangedSchemas { places }
    }

    /// The previous place of `path` when it is inside one of the unchanged schemas.
    pub(super) fn previous_path(&self, path: &str) -> Option<String> {
        self.places.iter().find_map(|(is, was)| {
            path.strip_prefix(is.as_str())
                .filter(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
                .map(|rest| format!("{was}{rest}"))
        })
    }
}

/// A [`CelCompiler`] that answers a rule site inside an unchanged schema with the previous
/// compile's result for the same place, and passes the others on.
pub(super) struct ReusingCompiler<'a> {
    pub(super) inner: &'a dyn CelCompiler,
    pub(super) previous: &'a CompileRecords,
    pub(super) unchanged: &'a UnchangedSchemas,
}

impl std::fmt::Debug for ReusingCompiler<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReusingCompiler").finish_non_exhaustive()
    }
}

impl CelCompiler for ReusingCompiler<'_> {
    fn compile(&self, site: &CelRuleSite<'_>) -> Result<Vec<CelCompilation>, CelCompileFailure> {
        if site.preexisting.is_none() && site.environment_version.is_none() {
            // A compilation holds no path: it is the same at the schema's previous place.
            let path = site.path.to_string();
            if let Some(kept) = self
                .unchanged
                .previous_path(&path)
                .and_then(|was| self.previous.get(&was))
            {
                return Ok(kept.clone());
            }
        }
        self.inner.compile(site)
    }
}

/// A default's CEL check as it was called: its path, whether its schema is a resource root
/// and the budget it started with.
type DefaultsKey = (String, bool, i64);

/// What the CEL checks of defaults gave, by [`DefaultsKey`].
pub(super) type DefaultsRecords = BTreeMap<DefaultsKey, Option<(Vec<FieldError>, i64)>>;

/// A [`DefaultsCel`] that records every check (without an old value) and answers one inside
/// an unchanged schema with the previous compile's result for the same call.
pub(super) struct ReusingDefaults<'a> {
    pub(super) inner: &'a dyn DefaultsCel,
    pub(super) previous: Option<(&'a DefaultsRecords, &'a UnchangedSchemas)>,
    pub(super) records: RefCell<DefaultsRecords>,
}

impl ReusingDefaults<'_> {
    /// The records, for the next compile.
    pub(super) fn into_records(self) -> Rc<DefaultsRecords> {
        Rc::new(self.records.into_inner())
    }
}

impl DefaultsCel for ReusingDefaults<'_> {
    fn validate(
        &self,
        path: &FieldPath,
        schema: &Structural,
        is_resource_root: bool,
        value: &Json,
        old: Option<&Json>,
        budget: i64,
    ) -> Option<(Vec<FieldError>, i64)> {
        if old.is_some() {
            return self
                .inner
                .validate(path, schema, is_resource_root, value, old, budget);
        }
        let key = (path.to_string(), is_resource_root, budget);
        // The errors hold their paths: only a schema at the same place is answered.
        let kept = self
            .previous
            .filter(|(_, unchanged)| unchanged.previous_path(&key.0).as_ref() == Some(&key.0))
            .and_then(|(records, _)| records.get(&key).cloned());
        let out = match kept {
            Some(out) => out,
            None => self
                .inner
                .validate(path, schema, is_resource_root, value, None, budget),
        };
        self.records.borrow_mut().insert(key, out.clone());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previous_paths_inside_the_places() {
        let u = UnchangedSchemas {
            places: vec![(
                "spec.versions[1].schema.openAPIV3Schema".to_owned(),
                "spec.validation.openAPIV3Schema".to_owned(),
            )],
        };
        for (path, want) in [
            (
                "spec.versions[1].schema.openAPIV3Schema",
                Some("spec.validation.openAPIV3Schema"),
            ),
            (
                "spec.versions[1].schema.openAPIV3Schema.properties[spec]",
                Some("spec.validation.openAPIV3Schema.properties[spec]"),
            ),
            (
                "spec.versions[1].schema.openAPIV3Schema[0]",
                Some("spec.validation.openAPIV3Schema[0]"),
            ),
            ("spec.versions[1].schema.openAPIV3SchemaX", None),
            (
                "spec.versions[0].schema.openAPIV3Schema.properties[spec]",
                None,
            ),
            ("spec.versions[10].schema.openAPIV3Schema", None),
        ] {
            assert_eq!(u.previous_path(path).as_deref(), want, "{path}");
        }
    }
}
