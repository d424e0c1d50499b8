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
