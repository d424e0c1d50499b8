use super::*;

fn run(src: &str) -> (Value<'static>, u64) {
    let p = crate::Parser::new(crate::ParserOptions {
        enable_optional_syntax: true,
        macros: crate::MacroSet::standard()
            .with_two_var_comprehensions()
            .with_optional(1),
        ..Default::default()
    })
    .parse_text(src)
    .unwrap();
    let prog = Program::from_parsed(&p.expr).unwrap();
    let act = Activation::new();
    let mut t = CostTracker::kubernetes(None);
    let v = prog.eval(&act, &mut t).unwrap();
    (v, t.actual_cost())
}

#[test]
fn short_circuit_and_error_absorption() {
    let cases = [
        ("false && 1/0 == 1", Some(false)),
        ("1/0 == 1 && false", Some(false)),
        ("true || 1/0 == 1", Some(true)),
        ("1/0 == 1 || true", Some(true)),
        ("[1,0].exists(x, 1/x == 1)", Some(true)),
        ("[0,2].all(x, 1/x == 1)", Some(false)),
        ("[0,1].all(x, 1/x == 1)", None),
        ("[1,2,3].exists_one(x, x > 2)", Some(true)),
        ("true ? true : 1/0 == 1", Some(true)),
    ];
    for (src, want) in cases {
        let (v, _) = run(src);
        assert_eq!(v.as_bool(), want, "{src}: {v:?}");
    }
}

#[test]
fn runtime_costs() {
    let cases = [
        ("1 + 1 == 2", 2),
        ("[1, 2, 3].all(x, x > 0)", 0),
        ("1 in [1, 2, 3]", 0),
        ("'abc'.startsWith('a')", 1),
        ("[1, 2].map(x, x * 2) == [2, 4]", 0),
    ];
    for (src, want) in cases {
        let (v, c) = run(src);
        assert!(!v.is_error(), "{src}: {v:?}");
        if want > 0 {
            assert_eq!(c, want, "{src}");
        }
    }
}

#[test]
fn optional_chains_and_presence() {
    let mut act = Activation::new();
    act.bind(
        "o",
        Value::optional_of(Value::map(vec![(Value::string("a"), Value::Int(1))])),
    );
    act.bind("n", Value::optional_none());
    let cases = [
        ("has(o.a)", Some(true), 1),
        ("has(o.b)", Some(false), 0),
        ("has(n.a)", Some(false), 0),
        ("o.a.orValue(5) == 1", Some(true), 3),
        ("n.a.orValue(5) == 5", Some(true), 2),
        ("o.?b.orValue(7) == 7", Some(true), 2),
    ];
    for (src, want, cost) in cases {
        let p = crate::Parser::new(crate::ParserOptions {
            enable_optional_syntax: true,
            ..Default::default()
        })
        .parse_text(src)
        .unwrap();
        let prog = Program::from_parsed(&p.expr).unwrap();
        let mut t = CostTracker::kubernetes(None);
        let v = prog.eval(&act, &mut t).unwrap();
        assert_eq!(v.as_bool(), want, "{src}: {v:?}");
        assert_eq!(t.actual_cost(), cost, "{src}");
    }
}

#[test]
fn cost_limit_cancels() {
    let p = crate::parse("[1,2,3,4,5,6,7,8,9,10].map(x, x * 2).size() > 0").unwrap();
    let prog = Program::from_parsed(&p.expr).unwrap();
    let act = Activation::new();
    let mut t = CostTracker::kubernetes(Some(5));
    assert!(matches!(prog.eval(&act, &mut t), Err(CostLimitExceeded)));
}

#[test]
fn plan_errors() {
    let p = crate::parse("'x'.matches(')')").unwrap();
    let e = Program::from_parsed(&p.expr).unwrap_err();
    assert_eq!(e.message, "error parsing regexp: unexpected ): `)`");
    let p = crate::parse("int('x') == 1").unwrap();
    let e = Program::from_parsed(&p.expr).unwrap_err();
    assert_eq!(e.message, "type conversion error from 'string' to 'int'");
}

/// `==` / `!=` evaluated in line (operands by reference, cost computed there) give the result
/// and cost of the call's own rule (`cost_rt::call_cost`), for variables, constants and
/// comprehension variables.
#[test]
fn equality_in_line_matches_the_call_rule() {
    let strings = [
        "",
        "a",
        "abcdefghi",
        "abcdefghij",
        "abcdefghijk",
        "ééééééééééé",
        "ééééé",
        "👑👑👑👑👑👑👑👑👑👑👑",
    ];
    let long = "x".repeat(70);
    let long2 = format!("{}y", "x".repeat(69));
    let mut values: Vec<Value<'static>> = strings.iter().map(Value::string).collect();
    values.extend([
        Value::string(&long),
        Value::string(&long2),
        Value::string("x".repeat(130)),
        Value::Int(1),
        Value::Int(2),
        Value::Uint(1),
        Value::Double(1.0),
        Value::Double(f64::NAN),
        Value::Bool(true),
        Value::Null,
        Value::list(vec![Value::Int(1); 25]),
        Value::type_value("string"),
        Value::error("boom"),
        Value::optional_of(Value::string("abcdefghijklmnopqrstuvwxyz")),
    ]);
    for l in &values {
        for r in &values {
            for (op, function, overload) in [("==", "_==_", "equals"), ("!=", "_!=_", "not_equals")]
            {
                let want = {
                    let eq = crate::value::equal(l, r);
                    if l.is_error() {
                        l.clone()
                    } else if r.is_error() {
                        r.clone()
                    } else if op == "==" {
                        eq
                    } else {
                        Value::Bool(!matches!(eq, Value::Bool(true)))
                    }
                };
                let args = [l.clone(), r.clone()];
                let want_cost = crate::cost_rt::call_cost(function, overload, &args, &want, true);
                let mut act = Activation::new();
                act.bind("l", l.clone()).bind("r", r.clone());
                for (src, attrs) in [
                    (format!("l {op} r"), 2),
                    (format!("[l].all(x, [r].all(y, x {op} y))"), 2),
                ] {
                    let p = crate::parse(&src).unwrap();
                    let prog = Program::from_parsed(&p.expr).unwrap();
                    let mut t = CostTracker::kubernetes(None);
                    let v = prog.eval(&act, &mut t).unwrap();
                    let name = format!("{l:?} {op} {r:?} as {src}");
                    if src.starts_with('l') {
                        assert_eq!(format!("{v:?}"), format!("{want:?}"), "{name}");
                        assert_eq!(t.actual_cost(), want_cost + attrs, "{name}");
                    } else {
                        // The comprehensions add their own costs: compare with `l == r`'s.
                        let mut t2 = CostTracker::kubernetes(None);
                        let flat = crate::parse(&format!(
                            "[l].all(x, [r].all(y, {}))",
                            if want.as_bool() == Some(true) {
                                "true"
                            } else {
                                "false"
                            }
                        ))
                        .unwrap();
                        let flat = Program::from_parsed(&flat.expr).unwrap();
                        let _ = flat.eval(&act, &mut t2).unwrap();
                        if !want.is_error() {
                            assert_eq!(
                                t.actual_cost(),
                                t2.actual_cost() + want_cost + attrs,
                                "{name}"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// A field of a map held by a variable (read in place when present) costs the attribute and
/// its qualifier; absent keys and non-maps keep cel-go's errors and costs.
#[test]
fn fields_of_variables() {
    let mut act = Activation::new();
    act.bind(
        "m",
        Value::map(vec![
            (Value::string("a"), Value::Int(1)),
            (Value::string("s"), Value::string("x")),
        ]),
    );
    act.bind("n", Value::Int(3));
    let schema = crate::unstructured::Schema::from_json(&serde_json::json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}
    }));
    let json = serde_json::json!({"a": 1, "b": "not an int"});
    act.bind_json("j", &json, &schema);
    let cases = [
        ("m.a == 1", "Bool(true)", 3),
        ("m.s", "String(Owned(\"x\"))", 2),
        ("m.b", "no such key: b", 2),
        ("n.a", "no such key: a", 2),
        ("j.a == 1", "Bool(true)", 3),
        ("j.b", "invalid data, expected int, got string", 2),
        ("j.c", "no such key: c", 2),
        ("[m].all(x, x.a == 1)", "Bool(true)", 0),
    ];
    for (src, want, cost) in cases {
        let p = crate::parse(src).unwrap();
        let prog = Program::from_parsed(&p.expr).unwrap();
        let mut t = CostTracker::kubernetes(None);
        let v = prog.eval(&act, &mut t).unwrap();
        let got = match &v {
            Value::Error(e) => e.message.clone(),
            other => format!("{other:?}"),
        };
        assert_eq!(got, want, "{src}");
        if cost > 0 {
            assert_eq!(t.actual_cost(), cost, "{src}");
        }
    }
}
