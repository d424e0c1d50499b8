//! The analysis entry points of field selectors, the scale subresource, the version overview
//! and authored conversions, on whole CRD and object texts.

use crd_studio_engine::{CompiledCrd, Options};
use serde_json::json;

const SHIRTS: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: shirts.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: shirts
    singular: shirt
    kind: Shirt
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
            properties:
              color:
                type: string
              size:
                type: string
    selectableFields:
    - jsonPath: .spec.color
    - jsonPath: .spec.size
"#;

fn shirt(name: &str, color: &str, size: &str) -> String {
    format!(
        "apiVersion: stable.example.com/v1\nkind: Shirt\nmetadata:\n  name: {name}\nspec:\n  color: {color}\n  size: {size}\n"
    )
}

#[test]
fn field_selector_preview_lists_the_documented_shirts() {
    let crd = CompiledCrd::compile(SHIRTS, &Options::default());
    let objects = vec![
        shirt("example1", "blue", "S"),
        shirt("example2", "blue", "M"),
        shirt("example3", "green", "M"),
    ];
    let a = crd.analyze_objects(&objects, None);
    let names = |selector: &str| -> Vec<String> {
        let p = crd.select_fields(&a, "", selector);
        assert_eq!(p.version, "v1");
        p.selection
            .objects
            .iter()
            .zip(&p.samples)
            .filter(|(m, _)| m.matches)
            .map(|(_, (source, _))| a.objects[*source].name.clone())
            .collect()
    };
    assert_eq!(names("spec.color=blue"), ["example1", "example2"]);
    assert_eq!(names("spec.color=green,spec.size=M"), ["example3"]);
    assert_eq!(
        names("metadata.namespace=default"),
        ["example1", "example2", "example3"]
    );
    let p = crd.select_fields(&a, "v1", "spec.weight=1");
    assert_eq!(
        p.selection.error.unwrap().message,
        "field label not supported: spec.weight"
    );
    assert_eq!(
        p.selection.supported_fields,
        [
            "metadata.name",
            "metadata.namespace",
            "spec.color",
            "spec.size"
        ]
    );
}

const CRONTABS: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  versions:
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec: {type: string}
              replicas: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
              labelSelector: {type: string}
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.labelSelector
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec: {type: string}
              replicas: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
              labelSelector: {type: string}
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.labelSelector
"#;

#[test]
fn scale_and_status_of_a_created_object() {
    let crd = CompiledCrd::compile(CRONTABS, &Options::default());
    assert!(crd.findings().is_empty(), "{:?}", crd.findings());
    let obj = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: my-new-cron-object}\nspec: {cronSpec: '* * * * */5', replicas: 3}\nstatus: {replicas: 2, labelSelector: app=cron}\n";
    let a = crd.analyze_objects(&[obj.to_owned()], None);
    let o = &a.objects[0];
    assert!(o.accepted, "{:?}", o.errors);
    let sub = o.subresources.as_ref().unwrap();
    // The status is dropped on create: the scale's status is empty.
    assert!(sub.status.enabled && sub.status.status_dropped);
    assert_eq!(sub.status.generation, Some(1));
    let versions: Vec<&str> = sub.scale.iter().map(|s| s.version.as_str()).collect();
    assert_eq!(versions, ["v1beta1", "v1"]);
    for s in &sub.scale {
        assert_eq!(s.error, None);
        assert_eq!(
            s.scale.as_ref().unwrap(),
            &json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
                    "metadata": {"name": "my-new-cron-object", "namespace": "default"},
                    "spec": {"replicas": 3}, "status": {"replicas": 0}})
        );
    }
    // Without spec.replicas the GET fails.
    let obj = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: b}\nspec: {}\n";
    let a = crd.analyze_objects(&[obj.to_owned()], None);
    let s = &a.objects[0].subresources.as_ref().unwrap().scale[1];
    assert_eq!(
        s.error.as_ref().unwrap().message,
        "Internal error occurred: the spec replicas field \".spec.replicas\" does not exist"
    );
}

#[test]
fn version_overview_is_in_the_analysis() {
    let crd = CompiledCrd::compile(CRONTABS, &Options::default());
    let a = crd.analyze_objects(&[], None);
    let o = a.version_overview.unwrap();
    assert_eq!(o.order, ["v1", "v1beta1"]);
    assert_eq!(o.preferred.as_deref(), Some("v1"));
    assert_eq!(o.storage.as_deref(), Some("v1"));
    assert_eq!(
        o.versions[0].warning.as_deref(),
        Some("stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab")
    );
    assert!(o.versions[0].removal.allowed);
    assert!(!o.versions[1].removal.allowed);
}

#[test]
fn authored_conversion_entry_point() {
    let crd = CompiledCrd::compile(CRONTABS, &Options::default());
    let obj = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: a}\nspec: {cronSpec: '* * * * */5', replicas: 3}\n";
    let a = crd.analyze_objects(&[obj.to_owned()], None);
    let mappings = vec![
        "from: v1\nto: v1beta1\nrules: []\n---\nfrom: v1beta1\nto: v1\nrules:\n- set: {path: .spec.replicas, value: 1}\n"
            .to_owned(),
    ];
    let p = crd.authored_conversion(&a, &mappings, "v1beta1");
    assert!(p.check.as_ref().unwrap().accepted);
    let rt = &p.round_trips[0];
    assert!(!rt.lossless);
    let d = rt.difference.as_ref().unwrap();
    assert_eq!(d.path, ".spec.replicas");
    assert_eq!(
        (d.before.clone(), d.after.clone()),
        (Some(json!(3)), Some(json!(1)))
    );
    // Blamed on the rule of the way back that writes it (line 8 of the mapping text).
    assert_eq!(rt.location.unwrap().span.start.line, 8);
    // The None strategy is noted.
    assert!(p.issues.iter().any(|i| i.code == "conversion.strategy"));
}

#[test]
fn requests_to_a_deprecated_version_get_its_warning() {
    let crd = CompiledCrd::compile(CRONTABS, &Options::default());
    let obj = "apiVersion: stable.example.com/v1beta1\nkind: CronTab\nmetadata: {name: a}\nspec: {replicas: 1}\n";
    let a = crd.analyze_objects(&[obj.to_owned()], None);
    let text =
        "stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab";
    assert_eq!(a.objects[0].warnings, [text]);
    let f = a
        .findings
        .iter()
        .find(|f| f.code == "object.deprecated-version")
        .unwrap();
    assert_eq!(f.message, text);
    assert_eq!(f.location.unwrap().span.start.line, 1);
    // Not for the GA version.
    let obj = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: a}\nspec: {replicas: 1}\n";
    let a = crd.analyze_objects(&[obj.to_owned()], None);
    assert!(a.objects[0].warnings.is_empty());
}

/// An object named by `generateName`: the registry store (`Store.create`, apiserver
/// `pkg/registry/generic/registry/store.go`) names it before validation, so the stored
/// object, `kubectl get` and field selectors all see the generated name (the prefix and five
/// characters; the pipeline's unit tests check how they are chosen).
#[test]
fn generated_names_reach_the_table_and_the_field_selectors() {
    let crd = CompiledCrd::compile(SHIRTS, &Options::default());
    let object = "apiVersion: stable.example.com/v1\nkind: Shirt\nmetadata:\n  generateName: tee-\nspec:\n  color: red\n";
    let a = crd.analyze_objects(&[object.to_owned()], None);
    let o = &a.objects[0];
    let name = o.name.clone();
    assert!(
        name.starts_with("tee-") && name.len() == "tee-".len() + 5,
        "{name}"
    );
    assert!(o.accepted, "{:?}", o.errors);
    assert_eq!(o.name, name);
    assert_eq!(o.stored.to_value()["metadata"]["name"], json!(name));
    assert!(a
        .findings
        .iter()
        .any(|f| f.code == "studio.generated-name" && f.message.contains(&name)));

    let p = crd.select_fields(&a, "", &format!("metadata.name={name}"));
    assert_eq!(p.selection.error, None);
    assert!(p.selection.objects.iter().all(|m| m.matches));
    assert_eq!(p.selection.objects.len(), 1);

    let now = crd_studio_engine::Time::parse_rfc3339("2026-01-01T00:00:00Z").unwrap();
    let get = crd_studio_engine::kubectl_get_objects(
        &crd,
        &a,
        now,
        crd_studio_engine::PrintOptions::default(),
    );
    assert_eq!(
        get.text.lines().nth(1).unwrap().split_whitespace().next(),
        Some(name.as_str())
    );
}
