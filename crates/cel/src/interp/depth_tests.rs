use super::*;

/// Parses on a big stack, then evaluates on `stack` bytes.
fn eval_on_stack(src: String, stack: usize) -> bool {
    let p = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || crate::parse(&src).unwrap())
        .unwrap()
        .join()
        .unwrap();
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || {
            let prog = Program::from_parsed(&p.expr).unwrap();
            let mut act = Activation::new();
            act.bind("x", Value::Bool(true));
            let mut t = CostTracker::kubernetes(None);
            prog.eval(&act, &mut t).unwrap().as_bool() == Some(true)
        })
        .unwrap()
        .join()
        .unwrap_or(false)
}

#[test]
fn deepest_parsable_expressions_fit_a_small_stack() {
    // Kubernetes' TestCELMaxRecursionDepth (249 nested `==`), nested parentheses and
    // ternaries: planned and evaluated within 1 MiB (the browser's stack) in debug builds
    // (release needs about 0.5 KiB per level).
    let chain = vec!["x"; 250].join(" == ");
    assert!(eval_on_stack(chain, 1 << 20));
    let nested = format!("{}x{}", "(".repeat(240), ")".repeat(240));
    assert!(eval_on_stack(nested, 1 << 20));
    let ternaries = format!("{}x{}", "true ? (".repeat(120), " ) : false".repeat(120));
    assert!(eval_on_stack(ternaries, 1 << 20));
}

#[test]
fn deep_data_equality_fits_a_small_stack() {
    // 500 nested arrays (the engine accepts documents up to 512 levels).
    let mut json = serde_json::json!(1);
    let mut schema = serde_json::json!({"type": "integer"});
    for _ in 0..500 {
        json = serde_json::Value::Array(vec![json]);
        schema = serde_json::json!({"type": "array", "items": schema});
    }
    let ok = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let schema = crate::unstructured::Schema::from_json(&schema);
            let p = crate::parse("self == oldSelf && self != []").unwrap();
            let prog = Program::from_parsed(&p.expr).unwrap();
            let mut act = Activation::new();
            act.bind_json("self", &json, &schema);
            act.bind_json("oldSelf", &json, &schema);
            let mut t = CostTracker::kubernetes(None);
            let r = prog.eval(&act, &mut t).unwrap().as_bool() == Some(true);
            // Drop the deep trees on this thread's stack too.
            drop(act);
            r
        })
        .unwrap()
        .join()
        .unwrap_or(false);
    assert!(ok);
}
