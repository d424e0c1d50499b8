//! `cargo bench -p crd-studio-engine --bench scaling` (run by `cargo xtask bench`): how a full
//! analysis (`analyze`) grows with the size of one dimension of the input — rules with a
//! `messageExpression`, properties, enum values, list items, documents per file — beside
//! merely parsing the same texts, measured in the same run. For each shape it prints the time
//! at `n` and at `4n`: a linear step grows about 4×, a quadratic one about 16×.
//! `BENCH_SCALE=k` multiplies every `n` by `k`; `BENCH_ONLY=word` runs the shapes named so. Printed, never asserted.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crd_studio_engine::{analyze, DocumentTrees, Request, SourceId};

/// A CRD of one version whose `spec` has the given properties (YAML at 10 spaces' indent).
fn crd(properties: &str, spec_rules: &str) -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1
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
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
{spec_rules}            properties:
{properties}"
    )
}

/// `n` string properties, each with a rule and a `messageExpression`.
fn rules(n: usize) -> (String, String) {
    let mut p = String::new();
    for i in 0..n {
        let _ = write!(
            p,
            "              f{i}:
                type: string
                maxLength: 10
                x-kubernetes-validations:
                - rule: self.size() <= 5
                  messageExpression: \"'f{i} too long: ' + self\"
"
        );
    }
    let mut o =
        String::from("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec:\n");
    for i in 0..n {
        let _ = writeln!(o, "  f{i}: abcdefg");
    }
    (crd(&p, ""), o)
}

/// `n` rules with a `messageExpression` on one object (`spec`).
fn rules_on_one_node(n: usize) -> (String, String) {
    let mut r = String::from("            x-kubernetes-validations:\n");
    for i in 0..n {
        let _ = write!(
            r,
            "            - rule: self.a.size() <= {i} + 5
              messageExpression: \"'rule {i}: ' + self.a\"
"
        );
    }
    let p = "              a: {type: string, maxLength: 10}\n";
    let o = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {a: abc}\n";
    (crd(p, &r), o.to_owned())
}

/// `n` integer properties.
fn properties(n: usize) -> (String, String) {
    let mut p = String::new();
    for i in 0..n {
        let _ = writeln!(p, "              f{i}: {{type: integer}}");
    }
    let mut o =
        String::from("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec:\n");
    for i in 0..n {
        let _ = writeln!(o, "  f{i}: {i}");
    }
    (crd(&p, ""), o)
}

/// One string property with `n` enum values.
fn enum_values(n: usize) -> (String, String) {
    let mut p =
        String::from("              e:\n                type: string\n                enum:\n");
    for i in 0..n {
        let _ = writeln!(p, "                - v{i}");
    }
    let o = format!(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: a}}\nspec:\n  e: v{}\n",
        n / 2
    );
    (crd(&p, ""), o)
}

/// A list-type map of `n` items, with a rule over the list.
fn list_items(n: usize) -> (String, String) {
    let p = "              items:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                maxItems: 1000000
                x-kubernetes-validations:
                - rule: self.all(x, x.value >= 0)
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string, maxLength: 16}
                    value: {type: integer}
";
    let mut o = String::from(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec:\n  items:\n",
    );
    for i in 0..n {
        let _ = writeln!(o, "  - {{name: n{i}, value: {i}}}");
    }
    (crd(p, ""), o)
}

/// `n` object documents in one file.
fn documents(n: usize) -> (String, String) {
    let p = "              size: {type: integer, minimum: 0}\n";
    let mut o = String::new();
    for i in 0..n {
        let _ = writeln!(
            o,
            "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: w{i}}}\nspec: {{size: {i}}}"
        );
    }
    (crd(p, ""), o)
}

fn time(mut f: impl FnMut()) -> Duration {
    // The best of three (the machine is shared; `BENCH_RUNS` changes it).
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let scale: usize = std::env::var("BENCH_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    type Shape = fn(usize) -> (String, String);
    let shapes: [(&str, Shape, usize); 6] = [
        ("rules with messageExpression", rules, 250),
        ("rules on one node", rules_on_one_node, 250),
        ("properties", properties, 2_500),
        ("enum values", enum_values, 2_500),
        ("list-map items", list_items, 2_500),
        ("object documents", documents, 250),
    ];
    println!(
        "{:<30} {:>8} {:>10} {:>10} {:>10} {:>10} {:>7} {:>7}",
        "shape", "n", "parse ms", "full ms", "parse 4n", "full 4n", "ratio", "growth"
    );
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    for (name, shape, n) in shapes {
        if !name.contains(only.as_str()) {
            continue;
        }
        let n = n * scale;
        let measure = |n: usize| {
            let (crd, object) = shape(n);
            let parse_time = time(|| {
                std::hint::black_box(DocumentTrees::parse(&crd, SourceId::Crd));
                std::hint::black_box(DocumentTrees::parse(&object, SourceId::Object(0)));
            });
            let request = Request {
                crd,
                objects: vec![object],
                ..Request::default()
            };
            let full = time(|| {
                std::hint::black_box(analyze(&request));
            });
            (parse_time, full)
        };
        let (p1, f1) = measure(n);
        let (p4, f4) = measure(4 * n);
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "{:<30} {:>8} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>6.1}x {:>6.1}x",
            name,
            n,
            ms(p1),
            ms(f1),
            ms(p4),
            ms(f4),
            ms(f4) / ms(p4).max(1e-9),
            ms(f4) / ms(f1).max(1e-9),
        );
    }
    println!(
        "ratio: full analysis / parse at 4n; growth: full at 4n / full at n (linear: about 4x)"
    );
}
