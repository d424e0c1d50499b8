//! One object keystroke in the worker's engine, natively (`cargo run --release --example
//! keystroke`): argo-workflows' CRD and an example object, an unknown top-level field renamed
//! one character at a time as the browser benchmark does; the median time of the worker's
//! answer (analysis, previews, Explain and sample) and of serializing it for the page.

use std::time::Instant;

use crd_studio_engine::Request;
use crd_studio_web::worker_boundary::{Engine, PreviewQuery};

fn main() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let crd =
        std::fs::read_to_string(corpus.join("crds/argo-workflows/full-argoproj.io_workflows.yaml"))
            .expect("corpus");
    let object =
        std::fs::read_to_string(corpus.join("objects/argo-workflows/examples__steps.yaml"))
            .expect("corpus");
    let query = PreviewQuery {
        now: "2026-01-01T00:00:00Z".into(),
        ..PreviewQuery::default()
    };
    let mut engine = Engine::default();
    let mut request = Request {
        crd,
        objects: vec![format!("z: 1\n{object}")],
        old_object: None,
        ..Request::default()
    };
    let t = Instant::now();
    engine.answer("s", &request, &query);
    println!("first (compile) {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let mut name = "z".to_string();
    let mut total = vec![];
    let mut ser = vec![];
    for i in 0..20u8 {
        name.push((b'a' + i) as char);
        request.objects = vec![format!("{name}: 1\n{object}")];
        let t = Instant::now();
        let reply = engine.answer_known("s", &request, &query, true, &mut |_| {});
        total.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let json = serde_json::to_string(&reply).unwrap_or_default();
        ser.push(t.elapsed().as_secs_f64() * 1e3);
        if i == 0 {
            println!("reply json {} bytes", json.len());
        }
    }
    total.sort_by(|a, b| a.total_cmp(b));
    ser.sort_by(|a, b| a.total_cmp(b));
    let p50 = |xs: &[f64]| xs.get(xs.len() / 2).copied().unwrap_or(f64::NAN);
    println!(
        "object keystroke: answer p50 {:.1} ms, serialize p50 {:.1} ms",
        p50(&total),
        p50(&ser)
    );
    // CRD keystrokes: the same unknown top-level field typed into the CRD text.
    let crd = request.crd.clone();
    let mut crd_total = vec![];
    let mut name = "z".to_string();
    for i in 0..8u8 {
        name.push((b'a' + i) as char);
        request.crd = format!("{name}: 1\n{crd}");
        let t = Instant::now();
        engine.answer_known("s", &request, &query, false, &mut |_| {});
        crd_total.push(t.elapsed().as_secs_f64() * 1e3);
    }
    crd_total.sort_by(|a, b| a.total_cmp(b));
    let options = crd_studio_engine::Options::default();
    let compiled = crd_studio_engine::CompiledCrd::compile(&request.crd, &options);
    let t = Instant::now();
    let _ = compiled.recompile(&format!("zz{}", request.crd), &options);
    let recompile = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let _ = compiled.explain(None, "", false);
    let explain = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let _ = compiled.sample(None, false);
    let sample = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "CRD keystroke: answer p50 {:.1} ms (recompile {recompile:.1}, explain {explain:.1}, \
         sample {sample:.1})",
        p50(&crd_total)
    );
}
