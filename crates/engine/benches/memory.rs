//! `cargo bench -p crd-studio-engine --bench memory` (run by `cargo xtask bench`): peak heap
//! memory and time of a full analysis (`analyze`: parse, compile the CRD, analyse the objects)
//! for the corpus's largest CRDs and the hostile inputs of issue 17, beside a baseline measured
//! in the same run: the bytes of input and the peak and time of merely parsing the same texts
//! into document trees. A counting global allocator measures the heap. Printed, never asserted.
//!
//! # The bound
//!
//! Parsing holds the document tree (`Node` 96 bytes, `Entry` 184: 4–5 bytes per input byte for
//! real CRDs, 60–90 for objects of one-key maps, the worst shape); a full analysis holds the
//! tree plus at most **two** `serde_json::Value` copies of the object at any moment (a one-key
//! map is a B-tree leaf of about 640 bytes: 45–65 bytes per input byte per copy for that
//! shape). Measured: a 3.1 MB object of one-key maps 480 MB (155 bytes per input byte), a
//! 3.1 MB list of one-key maps 714 MB (230), a 2 MB list-type map 212 MB (106), the corpus's
//! largest CRDs 25–35, a 3 MB string 15. The Go server holds about one
//! `map[string]interface{}` copy per stage (a one-key map some 300 bytes): the same order of
//! magnitude. Before issue 17: 1.09 GB, 1.64 GB and 0.48 GB for the three hostile shapes.
//!
//! How: a report keeps each object snapshot (`pruned`, `defaulted`, `prepared`, `stored`, one
//! per served version) as its compact JSON text (`JsonText`: serialized verbatim, parsed back
//! on demand by the views), never as a `Value`; the request body is moved through the
//! pipeline (`pipeline::decode` works in place and copies only to list what defaulting added,
//! when the schema has defaults); the storage round trip frees the prepared object once
//! converted and reads back one version at a time; scale and status facts are taken on the
//! way instead of a second round trip.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crd_studio_engine::{analyze, DocumentTrees, Request, SourceId};

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only counters change.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = IN_USE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) };
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Peak heap bytes above what was in use before `f`, and its time in ms.
fn measure<T>(f: impl FnOnce() -> T) -> (usize, f64) {
    let base = IN_USE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let t = Instant::now();
    let out = f();
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    drop(std::hint::black_box(out));
    (peak, ms)
}

const HEAD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: ";

const OBJECT: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec:\n";

/// Lines `line(i)` after `head` until the text reaches `bytes`.
fn fill(head: &str, bytes: usize, line: impl Fn(usize) -> String) -> String {
    let mut text = head.to_owned();
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(&line(i));
        i += 1;
    }
    text
}

/// The hostile cases: (name, CRD, object).
fn hostile() -> Vec<(String, String, String)> {
    let small_maps = fill(OBJECT, 3_100_000, |i| {
        format!("  k{i}: {{a: {}}}\n", i % 10)
    });
    let list = fill(&format!("{OBJECT}  l:\n"), 3_100_000, |i| {
        format!("  - {{a: {}}}\n", i % 10)
    });
    let list_map = fill(&format!("{OBJECT}  l:\n"), 2_000_000, |i| {
        format!("  - {{name: n{i}, v: {}}}\n", i % 10)
    });
    let long = format!("{OBJECT}  s: \"{}\"\n", "a".repeat(3_000_000));
    let wide: Vec<String> = (0..100_000)
        .map(|i| format!("p{i}: {{type: string}}"))
        .collect();
    vec![
        (
            "3.1 MB of one-key maps".to_owned(),
            format!("{HEAD}{{type: object, x-kubernetes-preserve-unknown-fields: true}}\n"),
            small_maps,
        ),
        (
            "3.1 MB list of one-key maps".to_owned(),
            format!(
                "{HEAD}{{type: object, properties: {{l: {{type: array, items: {{type: object, \
                 properties: {{a: {{type: integer}}}}}}}}}}}}\n"
            ),
            list,
        ),
        (
            "2 MB list-type map".to_owned(),
            format!(
                "{HEAD}{{type: object, properties: {{l: {{type: array, x-kubernetes-list-type: \
                 map, x-kubernetes-list-map-keys: [name], items: {{type: object, required: \
                 [name], properties: {{name: {{type: string}}, v: {{type: integer}}}}}}}}}}}}\n"
            ),
            list_map,
        ),
        (
            "3 MB string, pattern [\\w\\W]{500}b".to_owned(),
            format!(
                "{HEAD}{{type: object, properties: {{s: {{type: string, pattern: \
                 '[\\w\\W]{{500}}b'}}}}}}\n"
            ),
            long,
        ),
        (
            "CRD of 100,000 properties".to_owned(),
            format!(
                "{HEAD}{{type: object, properties: {{{}}}}}\n",
                wide.join(", ")
            ),
            format!("{OBJECT}  p1: x\n"),
        ),
    ]
}

fn row(name: &str, crd: &str, objects: &[String]) {
    let bytes = crd.len() + objects.iter().map(String::len).sum::<usize>();
    let (parse_peak, parse_ms) = measure(|| {
        let mut trees = vec![DocumentTrees::parse(crd, SourceId::Crd)];
        trees.extend(
            objects
                .iter()
                .enumerate()
                .map(|(i, o)| DocumentTrees::parse(o, SourceId::Object(i))),
        );
        trees
    });
    let request = Request {
        crd: crd.to_owned(),
        objects: objects.to_vec(),
        ..Request::default()
    };
    let (peak, ms) = measure(|| analyze(&request));
    let per = |p: usize| p as f64 / bytes.max(1) as f64;
    println!(
        "{:<68} {:>9} {:>9.1} {:>6.0} {:>8.0} {:>9.1} {:>6.0} {:>8.0}",
        name,
        bytes,
        parse_peak as f64 / 1e6,
        per(parse_peak),
        parse_ms,
        peak as f64 / 1e6,
        per(peak),
        ms
    );
}

fn main() {
    println!(
        "{:<68} {:>9} {:>9} {:>6} {:>8} {:>9} {:>6} {:>8}",
        "input", "bytes", "parse MB", "B/B", "parse ms", "full MB", "B/B", "full ms"
    );
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/crds");
    for name in [
        "argo-workflows/full-argoproj.io_workflows.yaml",
        "prometheus-operator/monitoring.coreos.com_prometheuses.yaml",
        "prometheus-operator/monitoring.coreos.com_alertmanagerconfigs.yaml",
    ] {
        match std::fs::read_to_string(corpus.join(name)) {
            Ok(text) => row(name, &text, &[]),
            Err(_) => println!("{name}: not found (../shared/corpus)"),
        }
    }
    for (name, crd, object) in hostile() {
        row(&name, &crd, &[object]);
    }
}
