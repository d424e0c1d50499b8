//! Runs `crd-studio cost` on small CRDs: the table sorted by cost, the reasons and the
//! suggested bounds, the total line, JSON, the exit codes.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::{run_in, temp_dir, text, TempDir};

/// A CRD whose version `v1` has the given `openAPIV3Schema` (YAML).
fn crd(schema: &str) -> String {
    let schema: String = schema.lines().map(|l| format!("        {l}\n")).collect();
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {{kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
{schema}"
    )
}

/// One rule over the limit (an unbounded list of unbounded strings), one under it.
const EXPENSIVE: &str = r#"type: object
x-kubernetes-validations:
- rule: has(self.spec)
properties:
  spec:
    type: object
    properties:
      names:
        type: array
        items:
          type: string
        x-kubernetes-validations:
        - rule: self.all(n, n.matches('^[a-z]+$'))
      items:
        type: array
        maxItems: 10
        items:
          type: object
          properties:
            name:
              type: string
          x-kubernetes-validations:
          - rule: self.name.contains('x')
"#;

fn dir_with(test: &str, files: &[(&str, &str)]) -> TempDir {
    temp_dir("cost", test, files)
}

fn run(dir: &Path, args: &[&str]) -> Output {
    run_in(dir, &[&["cost"], args].concat())
}

#[test]
fn over_the_limit_exits_one_with_reasons_and_bounds() {
    let dir = dir_with("over", &[("crd.yaml", &crd(EXPENSIVE))]);
    let out = run(&dir, &["crd.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "crd.yaml: version v1");
    assert!(
        lines[1].contains("COST") && lines[1].contains("SUGGESTION"),
        "{stdout}"
    );
    // Sorted by cost, highest first; the one over the limit is marked.
    let rows: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.contains(".rule (crd.yaml:"))
        .collect();
    assert_eq!(rows.len(), 3, "{stdout}");
    assert!(
        rows[0].starts_with("! 659,710,961,252  >100x  1 "),
        "{stdout}"
    );
    assert!(rows[0].contains(
        "properties[spec].properties[names].x-kubernetes-validations[0].rule (crd.yaml:27:25)"
    ));
    assert!(rows[0].ends_with(
        "maxItems: 5000 at .spec.names [crd.yaml:22:15], maxLength: 2048 at .spec.names[*] [crd.yaml:24:17] → 8,220,002"
    ), "{stdout}");
    assert!(
        rows[1].starts_with("        3,145,750  31.5%  10 "),
        "{stdout}"
    );
    assert!(rows[2].contains("x-kubernetes-validations[0].rule (crd.yaml:17:17)"));
    assert!(stdout.contains(
        "      over the limit: estimated rule cost exceeds budget by factor of more than 100x"
    ));
    assert!(stdout.contains(
        "      why: reads list .spec.names, which has no maxItems: assumed 1,048,575 items (as many as fit in 3 MiB at 2 bytes each) [crd.yaml:22:15] (alone: maxItems: 10 fits, up to 15)"
    ), "{stdout}");
    assert!(stdout.contains(
        "      why: list .spec.items has maxItems: 10: the rule runs for each of its up to 10 items [crd.yaml:28:15]"
    ), "{stdout}");
    assert!(
        stdout.contains("! total: 659,714,107,003 of 100,000,000 (>100x): over the limit"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  fix for every limit: maxItems: 5000 at .spec.names"),
        "{stdout}"
    );
}

#[test]
fn within_the_limits_exits_zero() {
    let fixed = EXPENSIVE.replace(
        "        type: array\n        items:\n          type: string\n",
        "        type: array\n        maxItems: 100\n        items:\n          type: string\n          maxLength: 64\n",
    );
    let dir = dir_with("ok", &[("crd.yaml", &crd(&fixed))]);
    let out = run(&dir, &["crd.yaml", "--version", "v1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let stdout = text(&out.stdout);
    assert!(!stdout.contains('!'), "{stdout}");
    assert!(stdout.contains("  total: "), "{stdout}");
}

#[test]
fn json_has_the_engine_report() {
    let dir = dir_with("json", &[("crd.yaml", &crd(EXPENSIVE))]);
    let out = run(
        &dir,
        &["crd.yaml", "--format=json", "--kubernetes-version", "1.34"],
    );
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["file"], "crd.yaml");
    assert_eq!(v["crd"], "widgets.example.com");
    assert_eq!(v["overLimit"], true);
    let cost = &v["versions"][0]["cost"];
    assert_eq!(v["versions"][0]["name"], "v1");
    assert_eq!(cost["totalLimit"], 100_000_000);
    let e = &cost["expressions"][2];
    assert_eq!(
        e["field"],
        "properties[spec].properties[names].x-kubernetes-validations[0].rule"
    );
    assert_eq!(e["overLimit"], true);
    assert_eq!(e["drivers"][0]["bound"], "maxItems");
    let edit = &e["suggestion"]["bounds"][0]["edit"];
    assert_eq!(edit["text"], "maxItems: 5000\n                ");
    assert_eq!(edit["start"], edit["end"]);
}

#[test]
fn usage_errors_exit_two() {
    let dir = dir_with(
        "usage",
        &[("crd.yaml", &crd(EXPENSIVE)), ("x.yaml", "a: 1\n")],
    );
    let unknown = run(&dir, &["crd.yaml", "--version", "v9"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(text(&unknown.stderr).contains("the CRD has no version `v9` (it has v1)"));
    assert_eq!(run(&dir, &[]).status.code(), Some(2));
    assert_eq!(
        run(&dir, &["crd.yaml", "--format", "xml"]).status.code(),
        Some(2)
    );
    assert_eq!(run(&dir, &["missing.yaml"]).status.code(), Some(2));
    let not_a_crd = run(&dir, &["x.yaml"]);
    assert_eq!(not_a_crd.status.code(), Some(2));
    assert!(text(&not_a_crd.stderr).contains("no CustomResourceDefinition"));
    let help = run(&dir, &["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(text(&help.stdout).starts_with("usage: crd-studio cost CRD"));
}

#[test]
fn check_points_at_cost() {
    let dir = dir_with("hint", &[("crd.yaml", &crd(EXPENSIVE))]);
    let out = Command::new(env!("CARGO_BIN_EXE_crd-studio"))
        .args(["check", "crd.yaml"])
        .current_dir(&*dir)
        .output()
        .expect("run crd-studio");
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout
            .contains("Forbidden: estimated rule cost exceeds budget by factor of more than 100x"),
        "{stdout}"
    );
    assert!(stdout.contains(
        "hint: `crd-studio cost crd.yaml` explains these CEL cost estimates and suggests bounds\n"
    ), "{stdout}");
    assert!(stdout.lines().last().unwrap().starts_with("rejected: "));
}

/// Issue 14, item 7g: when no bound lowers a cost, the report names the expensive call and
/// what to do, instead of "simplify the expression".
#[test]
fn no_bound_names_the_expensive_call() {
    let crd = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
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
        x-kubernetes-validations:
        - rule: has(self.spec)
          messageExpression: \"'count is ' + string(self.spec.count)\"
        properties:
          spec:
            type: object
            properties:
              count: {type: integer}
";
    let dir = dir_with("expensive-call", &[("crd.yaml", crd)]);
    let out = run(&dir, &["crd.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("none: change + at 1:13"), "{stdout}");
    assert!(
        stdout.contains("the expensive call is the + operator at 1:13 of the expression, about 100% of its estimated cost"),
        "{stdout}"
    );
    assert!(stdout.contains("string(…) at 1:15"), "{stdout}");
}
