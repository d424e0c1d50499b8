//! Findings a person can read (issue 14): a plain-words summary above the server's exact
//! text, the CEL gate as a note after the errors it is about, and the studio's info findings
//! on what the server does quietly (the status subresource's reset of `status`, values kept
//! by ratcheting, defaults not applied), each listed in the object report's notes too.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use crd_studio_engine::{analyze, Analysis, Finding, Request, Severity};

const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size:
                  type: integer
                  x-kubernetes-validations:
                    - rule: "self <= 10"
                      message: size must be at most 10
                name: {type: string, maxLength: 3}
                mode: {type: string, enum: [A, B]}
                backup:
                  type: object
                  properties:
                    schedule: {type: string, default: "@daily"}
                    retain: {type: integer, default: 3}
                label:
                  type: string
                  nullable: true
                  default: none
            status:
              type: object
              properties:
                phase: {type: string, default: Pending}
                detail:
                  type: object
                  properties:
                    code: {type: integer, default: 0}
"#;

fn run(crd: &str, object: &str, old: Option<&str>) -> Analysis {
    analyze(&Request {
        crd: crd.to_owned(),
        objects: vec![object.to_owned()],
        old_object: old.map(str::to_owned),
        ..Request::default()
    })
}

fn with_code<'a>(a: &'a Analysis, code: &str) -> Vec<&'a Finding> {
    a.findings.iter().filter(|f| f.code == code).collect()
}

const HEAD: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n";

#[test]
fn a_cel_compile_error_reads_as_the_rule_and_the_users_path() {
    let crd = CRD.replace("self <= 10", "self.szie <= 10");
    let a = run(&crd, &format!("{HEAD}spec: {{size: 1}}\n"), None);
    let f = with_code(&a, "crd.invalid")[0];
    // The exact text is the server's, Go struct, escapes and caret diagram included.
    assert!(
        f.message.starts_with("spec.validation.openAPIV3Schema.properties[spec].properties[size].x-kubernetes-validations[0].rule: Invalid value: {\"Rule\":\"self.szie \\u003c= 10\""),
        "{}",
        f.message
    );
    assert!(
        f.message.contains("\n | self.szie <= 10\n | "),
        "{}",
        f.message
    );
    assert_eq!(
        f.summary.as_deref(),
        Some("spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.x-kubernetes-validations[0].rule: the rule `self.szie <= 10` does not compile: type 'int' does not support field selection")
    );
    assert_eq!(f.headline(), f.summary.as_deref().unwrap());
}

#[test]
fn object_errors_have_summaries_without_the_path_twice() {
    let a = run(CRD, &format!("{HEAD}spec: {{size: 11, mode: C}}\n"), None);
    let mode = a
        .findings
        .iter()
        .find(|f| f.field.as_deref() == Some("spec.mode"))
        .unwrap();
    assert_eq!(
        mode.message,
        "spec.mode: Unsupported value: \"C\": supported values: \"A\", \"B\""
    );
    assert_eq!(
        mode.summary.as_deref(),
        Some("spec.mode: the value \"C\" is not supported; supported values: \"A\", \"B\"")
    );
    // A failed rule: its message, not the type name the server gives as the value.
    let a = run(CRD, &format!("{HEAD}spec: {{size: 11}}\n"), None);
    let rule = with_code(&a, "object.invalid")[0];
    assert_eq!(
        rule.message,
        "spec.size: Invalid value: 11: size must be at most 10"
    );
    assert_eq!(
        rule.summary.as_deref(),
        Some("spec.size: size must be at most 10 (the value is 11)")
    );
}

#[test]
fn the_cel_gate_is_a_note_after_the_blocking_errors() {
    let a = run(CRD, &format!("{HEAD}spec: {{size: 11, mode: C}}\n"), None);
    let errors: Vec<&Finding> = a
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    let gate = errors.last().unwrap();
    assert_eq!(
        gate.message,
        "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"
    );
    assert!(gate.note);
    assert_eq!(gate.code, "object.invalid");
    let span = gate.location.unwrap().span;
    assert_eq!((span.start.line, span.start.column), (1, 1));
    assert_eq!(span.start, span.end, "a note marks nothing");
    assert!(gate.summary.as_deref().unwrap().contains("were not run"));
    // The blocking error comes first, and is not a note.
    assert!(errors
        .iter()
        .any(|f| !f.note && f.field.as_deref() == Some("spec.mode")));
    let pos = |p: &dyn Fn(&Finding) -> bool| a.findings.iter().position(p).unwrap();
    assert!(pos(&|f| f.note) > pos(&|f| f.field.as_deref() == Some("spec.mode")));
    // Its verdict and the server's list are unchanged.
    let o = &a.objects[0];
    assert!(!o.accepted);
    assert_eq!(o.errors.len(), 2);
}

#[test]
fn status_is_dropped_on_create_with_the_status_subresource() {
    let a = run(
        CRD,
        &format!("{HEAD}spec: {{size: 1}}\nstatus:\n  phase: Ready\n"),
        None,
    );
    let notes = with_code(&a, "studio.status-subresource");
    assert_eq!(notes.len(), 1, "{:?}", a.findings);
    let n = notes[0];
    assert_eq!(n.severity, Severity::Info);
    assert_eq!(n.error_type, None);
    assert!(
        n.message
            .starts_with("status: dropped: version v1 has the status subresource"),
        "{}",
        n.message
    );
    assert_eq!(n.location.unwrap().span.start.line, 6);
    let o = &a.objects[0];
    assert!(o.accepted);
    assert!(o.stored.to_value().get("status").is_none());
    // Beside the note on spec.backup's defaults.
    assert_eq!(o.notes.len(), 2, "{:?}", o.notes);
    assert!(o
        .notes
        .iter()
        .any(|n| n.title == "status dropped" && n.field == "status"));
    // Without status in the request: nothing to say.
    let a = run(CRD, &format!("{HEAD}spec: {{size: 1}}\n"), None);
    assert!(with_code(&a, "studio.status-subresource").is_empty());
    // Without the subresource the status is stored: nothing to say.
    let plain = CRD.replace("      subresources: {status: {}}\n", "");
    let a = run(
        &plain,
        &format!("{HEAD}spec: {{size: 1}}\nstatus:\n  phase: Ready\n"),
        None,
    );
    assert!(with_code(&a, "studio.status-subresource").is_empty());
    assert_eq!(a.objects[0].stored.to_value()["status"]["phase"], "Ready");
}

#[test]
fn status_changes_are_ignored_on_update() {
    let old = format!("{HEAD}spec: {{size: 1}}\nstatus:\n  phase: Old\n");
    let a = run(
        CRD,
        &format!("{HEAD}spec: {{size: 1}}\nstatus:\n  phase: New\n"),
        Some(&old),
    );
    let n = with_code(&a, "studio.status-subresource");
    assert_eq!(n.len(), 1, "{:?}", a.findings);
    assert!(
        n[0].message.starts_with("status: change ignored:"),
        "{}",
        n[0].message
    );
    assert_eq!(a.objects[0].stored.to_value()["status"]["phase"], "Old");
    assert!(a.objects[0]
        .notes
        .iter()
        .any(|n| n.title == "status change ignored"));
    // The same status: nothing to say.
    let a = run(CRD, &old, Some(&old));
    assert!(with_code(&a, "studio.status-subresource").is_empty());
    // Status removed: the old one stays; a note at the first line.
    let a = run(CRD, &format!("{HEAD}spec: {{size: 1}}\n"), Some(&old));
    let n = with_code(&a, "studio.status-subresource");
    assert!(
        n[0].message.starts_with("status: removal ignored:"),
        "{}",
        n[0].message
    );
    assert!(n[0].note);
}

#[test]
fn an_unchanged_invalid_value_kept_by_ratcheting_is_said() {
    let old = format!("{HEAD}spec: {{name: toolong}}\n");
    let a = run(
        CRD,
        &format!("{HEAD}spec: {{name: toolong, size: 2}}\n"),
        Some(&old),
    );
    assert!(a.objects[0].accepted, "{:?}", a.findings);
    let n = with_code(&a, "studio.ratcheted");
    assert_eq!(n.len(), 1, "{:?}", a.findings);
    assert_eq!(n[0].severity, Severity::Info);
    assert_eq!(n[0].field.as_deref(), Some("spec.name"));
    assert!(
        n[0].message
            .ends_with("is rejected with: spec.name: Too long: may not be more than 3 bytes"),
        "{}",
        n[0].message
    );
    assert_eq!(n[0].location.unwrap().span.start.line, 5);
    assert!(a.objects[0]
        .notes
        .iter()
        .any(|n| n.title == "kept by ratcheting"));
    // A changed value is an error, not a note.
    let a = run(
        CRD,
        &format!("{HEAD}spec: {{name: toolonger}}\n"),
        Some(&old),
    );
    assert!(with_code(&a, "studio.ratcheted").is_empty());
    assert!(!a.objects[0].accepted);
    // A ratcheted rule: the server's warning, with the reason in its summary.
    let old = format!("{HEAD}spec: {{size: 11}}\n");
    let a = run(
        CRD,
        &format!("{HEAD}spec: {{size: 11, mode: A}}\n"),
        Some(&old),
    );
    assert!(a.objects[0].accepted, "{:?}", a.findings);
    let w = with_code(&a, "object.warning");
    assert_eq!(w.len(), 1, "{:?}", a.findings);
    assert!(
        w[0].summary.as_deref().unwrap().contains("ratcheting"),
        "{:?}",
        w[0].summary
    );
    assert!(a.objects[0]
        .notes
        .iter()
        .any(|n| n.title == "kept by ratcheting"));
}

#[test]
fn defaults_not_applied_and_why() {
    let a = run(
        CRD,
        &format!("{HEAD}spec:\n  size: 1\n  label: null\n"),
        None,
    );
    let n = with_code(&a, "studio.default-not-applied");
    assert_eq!(n.len(), 2, "{:?}", a.findings);
    // The parent is absent: a note (no mark) where it would go.
    let absent = n
        .iter()
        .find(|f| f.field.as_deref() == Some("spec.backup"))
        .unwrap();
    assert_eq!(
        absent.message,
        "spec.backup: absent, so the defaults of spec.backup.retain (default 3), spec.backup.schedule (default \"@daily\") are not applied: the server fills in defaults only inside objects that are present; write `backup: {}` or give spec.backup a default of {}"
    );
    assert!(absent.note);
    // A nullable null keeps its null.
    let null = n
        .iter()
        .find(|f| f.field.as_deref() == Some("spec.label"))
        .unwrap();
    assert_eq!(
        null.message,
        "spec.label: null and nullable, so the server keeps the null and does not apply its default \"none\""
    );
    assert_eq!(null.location.unwrap().span.start.line, 7);
    assert!(a.objects[0].accepted);
    // Present parents: the defaults are applied, nothing to say; the status subresource's
    // status (absent here) is not reported.
    let a = run(
        CRD,
        &format!("{HEAD}spec:\n  backup: {{}}\n  label: x\n"),
        None,
    );
    assert!(
        with_code(&a, "studio.default-not-applied").is_empty(),
        "{:?}",
        a.findings
    );
    assert_eq!(
        a.objects[0].stored.to_value()["spec"]["backup"]["retain"],
        3
    );
    // Without the subresource, status is the user's: its absent detail is reported.
    let plain = CRD.replace("      subresources: {status: {}}\n", "");
    let a = run(
        &plain,
        &format!("{HEAD}spec:\n  backup: {{}}\n  label: x\nstatus: {{}}\n"),
        None,
    );
    let n = with_code(&a, "studio.default-not-applied");
    assert_eq!(n.len(), 1, "{:?}", a.findings);
    assert_eq!(n[0].field.as_deref(), Some("status.detail"));
}

#[test]
fn info_findings_never_change_a_verdict() {
    for (obj, old) in [
        (
            format!("{HEAD}spec: {{size: 1}}\nstatus: {{phase: x}}\n"),
            None,
        ),
        (
            format!("{HEAD}spec: {{name: toolong}}\n"),
            Some(format!("{HEAD}spec: {{name: toolong}}\n")),
        ),
    ] {
        let a = run(CRD, &obj, old.as_deref());
        assert!(a.accepted(), "{:?}", a.findings);
        assert!(
            a.findings.iter().all(|f| f.severity == Severity::Info),
            "{:?}",
            a.findings
        );
    }
}
