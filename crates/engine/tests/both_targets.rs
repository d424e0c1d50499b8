//! Engine tests that run natively and in wasm32 (Node), where stack and allocation limits
//! differ: deep documents, garbage input, and a whole analysis.

use crd_studio_engine::{analyze, Request, Severity, SourceId};
use wasm_bindgen_test::wasm_bindgen_test;

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
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
                cronSpec:
                  type: string
                image:
                  type: string
                replicas:
                  type: integer
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames:
    - ct
";

const OBJECT: &str = "apiVersion: \"stable.example.com/v1\"
kind: CronTab
metadata:
  name: my-new-cron-object
spec:
  cronSpec: \"* * * * */5\"
  image: my-awesome-cron-image
";

fn request(objects: &[&str]) -> Request {
    Request {
        crd: CRD.to_owned(),
        objects: objects.iter().map(|s| (*s).to_owned()).collect(),
        ..Request::default()
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn crontab_example_is_accepted() {
    let analysis = analyze(&request(&[OBJECT]));
    assert!(analysis.crd.accepted, "{:?}", analysis.findings);
    assert_eq!(
        analysis.crd.name.as_deref(),
        Some("crontabs.stable.example.com")
    );
    assert_eq!(analysis.objects.len(), 1);
    assert!(analysis.accepted());
}

#[wasm_bindgen_test(unsupported = test)]
fn syntax_error_in_object_is_located() {
    let broken = "apiVersion: stable.example.com/v1\nkind: CronTab\nspec: [unclosed\n";
    let analysis = analyze(&request(&[broken]));
    let f = analysis
        .findings
        .iter()
        .find(|f| f.code == "yaml.syntax")
        .cloned();
    let loc = f.and_then(|f| f.location);
    assert_eq!(loc.map(|l| l.source), Some(SourceId::Object(0)));
    assert!(loc.is_some_and(|l| l.span.start.line >= 3));
    assert!(!analysis.accepted());
}

#[wasm_bindgen_test(unsupported = test)]
fn object_of_another_group_is_not_served() {
    let other = "apiVersion: example.com/v1\nkind: CronTab\nmetadata:\n  name: x\n";
    let analysis = analyze(&request(&[other]));
    let report = analysis.objects.first();
    assert!(report.is_some_and(|r| r.object_error.is_some()));
    assert!(analysis
        .findings
        .iter()
        .any(|f| f.severity == Severity::Error));
}

#[wasm_bindgen_test(unsupported = test)]
fn deep_documents_do_not_exhaust_the_stack() {
    use crd_studio_engine::MAX_DEPTH;
    // A CronTab with a deep unknown field (pruned) and a deep value where a string belongs
    // (a validation error): every step walks the whole depth.
    let n = MAX_DEPTH - 4;
    let nest = "[".repeat(n) + "1" + &"]".repeat(n);
    let deep = format!("{OBJECT}  extra: {nest}\n  replicas: {nest}\n");
    let analysis = analyze(&request(&[&deep]));
    assert_eq!(analysis.objects.len(), 1);
    let too_deep = "- ".repeat(MAX_DEPTH + 1) + "x";
    let analysis = analyze(&request(&[&too_deep]));
    assert!(analysis
        .findings
        .iter()
        .any(|f| f.code == "studio.too-deep"));
}

#[wasm_bindgen_test(unsupported = test)]
fn garbage_never_panics() {
    for text in [
        "",
        ":",
        "{",
        "- - [",
        "a: *b",
        "\u{0}",
        "🙂: 🙂",
        "---\n---\n",
        "[1, {a: }]",
    ] {
        let mut req = request(&[text]);
        req.crd = text.to_owned();
        let _ = analyze(&req);
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn duplicate_keys_follow_field_validation() {
    use crd_studio_engine::FieldValidation;
    let dup = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: a\n  name: b\n";
    let mut req = request(&[dup]);
    let severities = |req: &Request| {
        analyze(req)
            .findings
            .iter()
            .filter(|f| f.code == "yaml.duplicate-key")
            .map(|f| f.severity)
            .collect::<Vec<_>>()
    };
    assert_eq!(severities(&req), vec![Severity::Error]);
    req.options.field_validation = FieldValidation::Warn;
    assert_eq!(severities(&req), vec![Severity::Warning]);
    req.options.field_validation = FieldValidation::Ignore;
    assert_eq!(severities(&req), Vec::<Severity>::new());
}

#[wasm_bindgen_test(unsupported = test)]
fn an_unchanged_object_updates_cleanly() {
    let mut req = request(&[OBJECT]);
    req.old_object = Some(OBJECT.to_owned());
    let analysis = analyze(&req);
    let report = analysis.objects.first();
    assert_eq!(report.map(|r| r.operation.as_str()), Some("update"));
    assert!(analysis.accepted(), "{:#?}", analysis.findings);
}

#[wasm_bindgen_test(unsupported = test)]
fn deeply_nested_schemas_compile_without_exhausting_the_stack() {
    // Natively, run on a thread with the main thread's 8 MiB (what the CLI has); the wasm
    // build has its own 8 MiB stack (.cargo/config.toml).
    #[cfg(not(target_arch = "wasm32"))]
    {
        let handle = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(deep_schema_case);
        assert!(handle.map(|h| h.join().is_ok()).unwrap_or(false));
    }
    #[cfg(target_arch = "wasm32")]
    deep_schema_case();
}

fn deep_schema_case() {
    // 200 nested object properties: 400 levels of YAML, under the 512-level limit.
    let depth = 200;
    let mut schema = String::from("type: string\n");
    for _ in 0..depth {
        let indented: String = schema.lines().map(|l| format!("    {l}\n")).collect();
        schema = format!("type: object\nproperties:\n  a:\n{indented}");
    }
    let indented: String = schema.lines().map(|l| format!("        {l}\n")).collect();
    let crd = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: deeps.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names:\n    plural: deeps\n    kind: Deep\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n{indented}"
    );
    let req = Request {
        crd,
        objects: vec!["apiVersion: example.com/v1\nkind: Deep\nmetadata:\n  name: d\n".to_owned()],
        ..Request::default()
    };
    let analysis = analyze(&req);
    assert!(analysis.crd.accepted, "{:#?}", analysis.findings.first());
    assert_eq!(analysis.objects.len(), 1);
}
