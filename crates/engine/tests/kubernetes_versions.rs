//! What a server of each modelled Kubernetes minor does differently (issue 15, part 1): CEL
//! functions arrive with the compatibility version one minor behind the server, formats
//! likewise, and feature-gate defaults.

use crd_studio_engine::{analyze, KubernetesVersion, Options, Request};

fn crd(rule: &str, format: &str, extra: &str) -> String {
    format!(
        r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {{kind: Widget, plural: widgets}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
{extra}    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: {rule:?}
            properties:
              a: {{type: string, maxLength: 63{format}}}
"#
    )
}

fn run(crd: &str, object: &str, minor: u32) -> crd_studio_engine::Analysis {
    analyze(&Request {
        crd: crd.to_owned(),
        objects: vec![object.to_owned()],
        options: Options {
            kubernetes_version: KubernetesVersion::new(minor),
            ..Options::default()
        },
        ..Request::default()
    })
}

const OBJECT: &str =
    "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {a: \"10.0.0.1\"}\n";

/// A rule using a function of a later library: accepted from its first server minor, and
/// rejected before with the server's compile error.
#[test]
fn functions_arrive_with_their_version() {
    // (rule, first server minor, the undeclared name)
    let table = [
        ("!has(self.a) || isIP(self.a)", 31, "isIP"),
        ("!has(self.a) || ip(self.a).family() == 4", 31, "ip"),
        (
            "!has(self.a) || format.dns1123Label().validate(self.a).hasValue()",
            32,
            "format",
        ),
        ("[1, 2].all(i, v, v > i)", 33, ""),
        ("isSemver('1.2.3', true)", 34, ""),
        ("[2, 1].sort() == [1, 2]", 35, ""),
    ];
    for (rule, first, name) in table {
        let text = crd(rule, "", "");
        for minor in 30..=37 {
            let a = run(&text, OBJECT, minor);
            let errors: Vec<String> = a.crd.errors.iter().map(|e| e.error.clone()).collect();
            if minor >= first {
                assert!(errors.is_empty(), "{rule} at 1.{minor}: {errors:?}");
            } else {
                let e = errors
                    .first()
                    .unwrap_or_else(|| panic!("{rule} at 1.{minor} accepted"));
                assert!(
                    e.starts_with(
                        "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "
                    ) && e.contains(": compilation failed: ERROR: <input>:1:"),
                    "{rule} at 1.{minor}: {e}"
                );
                if !name.is_empty() {
                    assert!(
                        e.contains(&format!(
                            "undeclared reference to '{name}' (in container '')"
                        )),
                        "{rule} at 1.{minor}: {e}"
                    );
                }
            }
        }
    }
}

/// The server's whole message for a function of a later version.
#[test]
fn the_servers_message() {
    let a = run(&crd("!has(self.a) || isIP(self.a)", "", ""), OBJECT, 30);
    let errors: Vec<&str> = a.crd.errors.iter().map(|e| e.error.as_str()).collect();
    assert_eq!(
        errors,
        [concat!(
            "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: ",
            "Invalid value: {\"Rule\":\"!has(self.a) || isIP(self.a)\",\"Message\":\"\",",
            "\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}: ",
            "compilation failed: ERROR: <input>:1:21: undeclared reference to 'isIP' (in container '')\n",
            " | !has(self.a) || isIP(self.a)\n",
            " | ....................^"
        )]
    );
}

/// `k8s-short-name` is a format from compatibility version 1.34 (server 1.35); before, the
/// format is stripped and any string passes.
#[test]
fn formats_follow_the_server_version() {
    let text = crd("true", ", format: k8s-short-name", "");
    let object = OBJECT.replace("10.0.0.1", "Not_A_Label");
    for minor in 30..=37 {
        let a = run(&text, &object, minor);
        let rejected = a.objects.iter().any(|o| !o.accepted);
        assert_eq!(rejected, minor >= 35, "1.{minor}");
    }
}

/// `CustomResourceFieldSelectors` is off by default in 1.30: selectableFields are dropped
/// (an info finding says so) and a field selector on them is refused.
#[test]
fn selectable_fields_gate() {
    let text = crd(
        "true",
        "",
        "    selectableFields:\n    - jsonPath: .spec.a\n",
    );
    for minor in [30, 31, 37] {
        let a = run(&text, OBJECT, minor);
        let notes: Vec<&str> = a
            .findings
            .iter()
            .filter(|f| f.code == "crd.feature-gate-off")
            .map(|f| f.message.as_str())
            .collect();
        if minor == 30 {
            assert_eq!(
                notes,
                ["selectableFields is dropped on create: the CustomResourceFieldSelectors feature gate is off by default in Kubernetes 1.30"]
            );
        } else {
            assert!(notes.is_empty(), "1.{minor}: {notes:?}");
        }
        assert!(a.crd.accepted, "1.{minor}");
    }
}
