//! A version's OpenAPI validator built on first use ([`LazyValidator`]): a CRD checked
//! without objects never builds it, and a check with objects builds it after the CRD's
//! validation has let go of its working data (a large CRD's peak memory, issue 29).

use std::cell::OnceCell;
use std::rc::Rc;

use crate::crd::apiext::InternalCrd;
use crate::object::validation::{Options, SchemaValidator};
use crate::schema::JsonSchemaProps;

/// Where a version's schema is in its CRD (`None`: the version has none).
pub type SchemaOf = fn(&InternalCrd, usize) -> Option<&JsonSchemaProps>;

/// A CRD version's [`SchemaValidator`], built from the CRD when first asked for.
#[derive(Clone, Debug)]
pub struct LazyValidator(Rc<Inner>);

#[derive(Debug)]
struct Inner {
    /// The CRD and the version's index in it, with the lookup of its schema; `None` when
    /// the validator was built up front.
    source: Option<(Rc<InternalCrd>, usize, SchemaOfDebug)>,
    options: Options,
    built: OnceCell<SchemaValidator>,
}

/// [`SchemaOf`] with a `Debug` that names no address.
#[derive(Clone, Copy)]
struct SchemaOfDebug(SchemaOf);

impl std::fmt::Debug for SchemaOfDebug {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SchemaOf")
    }
}

impl LazyValidator {
    /// The validator of version `index` of `crd` (its schema found by `schema_of`), built
    /// with `options` on first use.
    pub fn new(crd: Rc<InternalCrd>, index: usize, schema_of: SchemaOf, options: Options) -> Self {
        LazyValidator(Rc::new(Inner {
            source: Some((crd, index, SchemaOfDebug(schema_of))),
            options,
            built: OnceCell::new(),
        }))
    }

    /// A validator built already.
    pub fn ready(validator: SchemaValidator) -> Self {
        LazyValidator(Rc::new(Inner {
            source: None,
            options: Options::default(),
            built: OnceCell::from(validator),
        }))
    }

    /// The validator, built now if it was not yet.
    pub fn get(&self) -> &SchemaValidator {
        let inner = &*self.0;
        inner.built.get_or_init(|| {
            let schema = inner
                .source
                .as_ref()
                .and_then(|(crd, i, schema_of)| (schema_of.0)(crd, *i));
            SchemaValidator::new(schema, &inner.options)
        })
    }

    /// The validator if it has been built.
    pub fn built(&self) -> Option<&SchemaValidator> {
        self.0.built.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::documents::path::FieldPath;

    fn crd(schema: serde_json::Value) -> Rc<InternalCrd> {
        let v1 = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "crontabs.example.com"},
            "spec": {
                "group": "example.com",
                "scope": "Namespaced",
                "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab",
                          "listKind": "CronTabList"},
                "versions": [
                    {"name": "v1", "served": true, "storage": true,
                     "schema": {"openAPIV3Schema": schema}},
                    {"name": "v2", "served": true, "storage": false}
                ]
            }
        });
        Rc::new(crate::crd::apiext::from_v1_json(&v1).0)
    }

    fn version_schema(crd: &InternalCrd, i: usize) -> Option<&JsonSchemaProps> {
        crd.spec
            .versions
            .get(i)?
            .schema
            .as_ref()?
            .open_api_v3_schema
            .as_deref()
    }

    #[test]
    fn built_on_first_use_with_the_eager_validators_errors() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "cron": {"type": "string", "pattern": "^a+$"},
                "replicas": {"type": "integer", "maximum": 3}
            }}
        }});
        let c = crd(schema);
        let options = Options::default();
        let objects = [
            json!({"spec": {"cron": "aa", "replicas": 1}}),
            json!({"spec": {"cron": "b", "replicas": 9}}),
            json!({"spec": "x"}),
        ];
        // (version index, lazily built, built up front)
        for i in [0, 1, 2] {
            let lazy = LazyValidator::new(Rc::clone(&c), i, version_schema, options);
            assert!(lazy.built().is_none(), "version {i}: built before use");
            let eager = SchemaValidator::new(version_schema(&c, i), &options);
            for o in &objects {
                assert_eq!(
                    lazy.get().validate(&FieldPath::root(), o),
                    eager.validate(&FieldPath::root(), o),
                    "version {i}, {o}"
                );
            }
            assert!(lazy.built().is_some(), "version {i}: not kept once built");
            // A clone shares the built validator; `ready` wraps one.
            assert!(lazy.clone().built().is_some());
            let ready = LazyValidator::ready(eager.clone());
            assert_eq!(
                ready.get().validate(&FieldPath::root(), &objects[1]),
                eager.validate(&FieldPath::root(), &objects[1])
            );
        }
        // The second object breaks both rules of version 0.
        let errors = LazyValidator::new(Rc::clone(&c), 0, version_schema, options)
            .get()
            .validate(&FieldPath::root(), &objects[1]);
        assert_eq!(errors.len(), 2, "{errors:?}");
    }
}
