//! The examples of the Kubernetes documentation on CRDs, with the findings the docs list
//! (where the docs' wording is older than the server's, the server's current text wins).

use crd_studio_engine::{analyze, Request, Severity};

/// The docs' non-structural schema ("Specifying a structural schema"), inside a CRD.
const NON_STRUCTURAL: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: foos
    singular: foo
    kind: Foo
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        properties:
          foo:
            pattern: \"abc\"
          metadata:
            type: object
            properties:
              name:
                type: string
                pattern: \"^a\"
              finalizers:
                type: array
                items:
                  type: string
                  pattern: \"my-finalizer\"
        anyOf:
        - properties:
            bar:
              type: integer
              minimum: 42
          required: [\"bar\"]
          description: \"foo bar object\"
";

#[test]
fn non_structural_example_gives_the_six_violations_the_docs_list() {
    let analysis = analyze(&Request {
        crd: NON_STRUCTURAL.to_owned(),
        ..Request::default()
    });
    assert!(!analysis.crd.accepted);
    let mut got: Vec<(usize, String)> = analysis
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| {
            (
                f.location.map(|l| l.span.start.line).unwrap_or(0),
                f.message.clone(),
            )
        })
        .collect();
    got.sort();
    let p = "spec.validation.openAPIV3Schema";
    let want = vec![
        // The type at the root is missing.
        (17, format!("{p}.type: Required value: must not be empty at the root")),
        // `bar` inside anyOf is not specified outside (reported where properties are).
        (
            18,
            format!("{p}.properties[bar]: Required value: because it is defined in {p}.anyOf[0].properties[bar]"),
        ),
        // The type of `foo` is missing.
        (
            19,
            format!("{p}.properties[foo].type: Required value: must not be empty for specified object fields"),
        ),
        // metadata may only restrict name and generateName.
        (
            21,
            format!("{p}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"),
        ),
        // `bar`'s type is inside anyOf.
        (
            35,
            format!("{p}.anyOf[0].properties[bar].type: Forbidden: must be empty to be structural"),
        ),
        // The description is inside anyOf.
        (
            38,
            format!("{p}.anyOf[0].description: Forbidden: must be empty to be structural"),
        ),
    ];
    assert_eq!(got, want);
}

#[test]
fn the_docs_structural_version_is_accepted() {
    let fixed = NON_STRUCTURAL
        .replace(
            "      openAPIV3Schema:
        properties:
          foo:
            pattern: \"abc\"
",
            "      openAPIV3Schema:
        type: object
        description: \"foo bar object\"
        properties:
          foo:
            type: string
            pattern: \"abc\"
          bar:
            type: integer
",
        )
        .replace(
            "              finalizers:
                type: array
                items:
                  type: string
                  pattern: \"my-finalizer\"
",
            "",
        )
        .replace(
            "              type: integer
              minimum: 42
          required: [\"bar\"]
          description: \"foo bar object\"
",
            "              minimum: 42
          required: [\"bar\"]
",
        );
    let analysis = analyze(&Request {
        crd: fixed,
        ..Request::default()
    });
    assert!(analysis.crd.accepted, "{:#?}", analysis.findings);
}
