use super::*;

/// The scale subresource's errors name the whole JSON path as one field
/// (`field.NewPath(scale.SpecReplicasPath)`, apiextensions-apiserver
/// `pkg/registry/customresource/validator.go`); the finding keeps that path and points at
/// the field it names, or its nearest existing parent.
#[test]
fn scale_errors_point_at_the_replicas_field() {
    let crd = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
";
    let object = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  replicas: \"3\"\nstatus: 4\n";
    let c = CompiledCrd::compile(crd, &Options::default());
    let a = c.analyze_objects(&[object.to_owned()], None);
    let at: Vec<(String, usize, usize)> = a
        .findings
        .iter()
        .filter(|f| f.code == "object.invalid")
        .map(|f| {
            let start = f.location.map(|l| l.span.start).unwrap_or_default();
            (f.message.clone(), start.line, start.column)
        })
        .collect();
    assert_eq!(
            at,
            [
                (
                    ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: 3 is of the type string, expected int64".to_owned(),
                    5,
                    3
                ),
                (
                    ".status.replicas: Invalid value: 0: .status.replicas accessor error: 4 is of the type int64, expected map[string]interface{}".to_owned(),
                    6,
                    1
                ),
            ]
        );
}

/// Progress is told after each object document, with the documents known so far (a text
/// not read yet counts as one).
#[test]
fn progress_is_told_after_each_object_document() {
    let crd = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
";
    let doc = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n";
    let texts = [format!("{doc}---\n{doc}---\n{doc}"), doc.to_owned()];
    let c = CompiledCrd::compile(crd, &Options::default());
    let mut told = Vec::new();
    let a = c.analyze_objects_with_progress(&texts, None, &mut |p| told.push((p.done, p.total)));
    assert_eq!(told, [(1, 4), (2, 4), (3, 4), (4, 4)]);
    assert_eq!(a, c.analyze_objects(&texts, None));
}
