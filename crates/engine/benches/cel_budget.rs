//! `cargo bench -p crd-studio-engine --bench cel_budget` (part of `cargo xtask bench`): CEL at
//! the per-object budget (issue 29).
//!
//! - An object whose rules spend the whole 10,000,000-unit per-object cost budget (list items
//!   with nested comprehensions over strings, field access on objects in loops, string
//!   functions), analysed through the engine's front door; beside it, the same object under
//!   the CRD without its rules (parsing and schema validation) and the rules on a tiny object.
//!   The Go server's code took about 5.3 s where the engine took 4.4 s (issue 29's object);
//!   the goal is at least twice as fast as the server's code.
//! - cel-go's own micro benchmark anchor: `string == 'value'` (a checked program) in ns per
//!   evaluation, beside cel-go's published figure (about 59 ns/op); as the planner resolves
//!   `string` to the type before a variable of that name, also `s == 'value'` on a bound
//!   string variable, and `true` (what any evaluation costs) as the floor.
//!
//! Figures are printed, never asserted (absolute times depend on the machine).

use std::time::{Duration, Instant};

use crd_studio_cel::checker::{EnvBuilder, Reference};
use crd_studio_cel::decls::EnvVersion;
use crd_studio_cel::interp::{
    Activation, CostTracker, PlanOptions, Program, ReferenceInfo, References,
};
use crd_studio_cel::types::Type;
use crd_studio_cel::value::Value;
use crd_studio_engine::{CompiledCrd, Options};

const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: budgets.bench.example.com
spec:
  group: bench.example.com
  names:
    kind: Budget
    listKind: BudgetList
    plural: budgets
    singular: budget
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
            x-kubernetes-validations:
            - rule: "self.groups.all(g, g.name.size() > 0 && g.name.startsWith('group-'))"
              message: group names
            properties:
              groups:
                type: array
                maxItems: 100
                items:
                  type: object
                  x-kubernetes-validations:
                  - rule: "self.tags.all(a, self.tags.exists_one(b, a == b))"
                    message: tags must be unique
                  - rule: "self.ports.all(p, p.port > 0 && p.port < 65536 && p.name.startsWith('port-') && self.ports.exists(q, q.name == p.name && q.port == p.port))"
                    message: ports
                  - rule: "self.labels.all(k, self.labels[k].size() <= 63 && !k.contains('/'))"
                    message: labels
                  properties:
                    name:
                      type: string
                      maxLength: 63
                    tags:
                      type: array
                      maxItems: 200
                      items:
                        type: string
                        maxLength: 32
                    ports:
                      type: array
                      maxItems: 100
                      items:
                        type: object
                        properties:
                          name:
                            type: string
                            maxLength: 15
                          port:
                            type: integer
                    labels:
                      type: object
                      maxProperties: 64
                      additionalProperties:
                        type: string
                        maxLength: 63
"#;

/// An object with `groups` groups of `tags` tags, `ports` ports and 16 labels each.
fn object(groups: usize, tags: usize, ports: usize) -> String {
    let mut out = String::from(
        "apiVersion: bench.example.com/v1\nkind: Budget\nmetadata:\n  name: b\nspec:\n  groups:\n",
    );
    for g in 0..groups {
        out.push_str(&format!("  - name: group-{g}\n    tags:\n"));
        for t in 0..tags {
            out.push_str(&format!("    - tag-{g}-{t}\n"));
        }
        out.push_str("    ports:\n");
        for p in 0..ports {
            out.push_str(&format!("    - name: port-{p}\n      port: {}\n", 1000 + p));
        }
        out.push_str("    labels:\n");
        for l in 0..16 {
            out.push_str(&format!("      label-{l}: value-{g}-{l}\n"));
        }
    }
    out
}

/// The CRD without its rules (what analysing the object costs besides CEL).
fn without_rules(crd: &str) -> String {
    crd.lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("x-kubernetes-validations:")
                || t.starts_with("- rule:")
                || t.starts_with("message:"))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The CPU time this thread has run (Linux's `/proc/thread-self/schedstat`), so that the figures
/// hold on a loaded machine; elsewhere `None` (then wall time is measured).
fn cpu_time() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Median of `runs` timings of `f` (CPU time where the system tells it, else wall time).
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let c = cpu_time();
            let t = Instant::now();
            f();
            match (c, cpu_time()) {
                (Some(a), Some(b)) => b.saturating_sub(a),
                _ => t.elapsed(),
            }
        })
        .collect();
    times.sort();
    times.get(runs / 2).copied().unwrap_or_default()
}

fn main() {
    let options = Options::default();
    let compiled = CompiledCrd::compile(CRD, &options);
    let big = object(100, 200, 100);
    let tiny = object(1, 2, 2);
    let analysis = compiled.analyze_objects(std::slice::from_ref(&big), None);
    let out_of_budget = analysis
        .findings
        .iter()
        .any(|f| f.message.contains("running out of cost budget"));
    let big_time = median(5, || {
        std::hint::black_box(compiled.analyze_objects(std::slice::from_ref(&big), None));
    });
    // Wall time: a thread's CPU time is only brought up to date at scheduler ticks.
    let tiny_time = {
        let t = Instant::now();
        for _ in 0..20 {
            std::hint::black_box(compiled.analyze_objects(std::slice::from_ref(&tiny), None));
        }
        t.elapsed() / 20
    };
    let no_rules = CompiledCrd::compile(&without_rules(CRD), &options);
    let no_rules_time = median(5, || {
        std::hint::black_box(no_rules.analyze_objects(std::slice::from_ref(&big), None));
    });
    let cel = big_time.saturating_sub(no_rules_time);
    println!(
        "CEL at the per-object budget: an object of {} bytes {} ms ({}); the same object \
         without the rules {} ms, the same rules on a tiny object {:.2} ms",
        big.len(),
        format_ms(big_time),
        if out_of_budget {
            "spends the 10,000,000 budget"
        } else {
            "DID NOT spend the budget"
        },
        format_ms(no_rules_time),
        tiny_time.as_secs_f64() * 1e3,
    );
    println!(
        "  the rules' share {} ms, {:.0} ns per cost unit (issue 29's object: the server's code \
         about 530 ns per unit over the whole request; the goal is half of it)",
        format_ms(cel),
        cel.as_secs_f64() * 1e9 / 10_000_000.0,
    );
    if cpu_time().is_some() {
        println!("(times are this thread's CPU time, the tiny object's wall time)");
    }
    // cel-go's anchor, then the same comparison on a variable whose name is not a type
    // identifier (the planner resolves `string` to the type `string`, as a constant, before
    // the variable), then the fixed cost of an evaluation (`true`) as the floor.
    for (expr, note) in [
        ("string == 'value'", "; cel-go's benchmark about 59 ns/op"),
        ("s == 'value'", ""),
        ("true", " (the floor: one evaluation of a constant)"),
    ] {
        let (ns, cost) = micro_ns(expr);
        println!("CEL micro `{expr}`: {ns:.1} ns/op (cost {cost}){note}");
    }
}

fn format_ms(d: Duration) -> String {
    format!("{:.0}", d.as_secs_f64() * 1e3)
}

/// `expr` checked in Kubernetes' base environment with `string` and `s` string variables
/// (both `"value"`), evaluated with a cost tracker: ns per evaluation and the cost of one.
fn micro_ns(expr: &str) -> (f64, u64) {
    let env = EnvBuilder::kubernetes(EnvVersion::Stored)
        .build()
        .extend()
        .variable("string", Type::String)
        .variable("s", Type::String)
        .build();
    let Ok(checked) = env.compile(expr) else {
        return (f64::NAN, 0);
    };
    let refs: References = checked
        .references
        .iter()
        .map(|(id, r)| {
            let info = match r {
                Reference::Ident(n) => ReferenceInfo {
                    name: n.clone(),
                    overload_ids: Vec::new(),
                },
                Reference::Function(ids) => ReferenceInfo {
                    name: String::new(),
                    overload_ids: ids.clone(),
                },
            };
            (*id, info)
        })
        .collect();
    let Ok(program) = Program::new(&checked.expr, Some(&refs), PlanOptions::default()) else {
        return (f64::NAN, 0);
    };
    let mut act = Activation::new();
    act.bind("string", Value::string("value"));
    act.bind("s", Value::string("value"));
    let n = 2_000_000u32;
    let mut cost = 0;
    let time = median(5, || {
        for _ in 0..n {
            let mut tracker = CostTracker::kubernetes(Some(1_000_000));
            let v = program.eval(std::hint::black_box(&act), &mut tracker);
            std::hint::black_box(&v);
            cost = tracker.actual_cost();
        }
    });
    (time.as_secs_f64() * 1e9 / f64::from(n), cost)
}
