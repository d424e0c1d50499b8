//! Table tests of the checker: output types, overload ids, cel-go's error texts and positions,
//! the Kubernetes environment by version, schema-like object types and the AST validators.

use super::*;
use crate::decls::OverloadDecl;
use crate::types::ObjectType;
use crate::KubernetesVersion;

fn v(minor: u32) -> EnvVersion {
    EnvVersion::NewExpressions(KubernetesVersion::new(minor))
}

fn base(version: EnvVersion) -> Env {
    EnvBuilder::kubernetes(version).build()
}

fn compile(env: &Env, text: &str) -> Result<CheckedExpr, String> {
    env.compile(text).map_err(|f| f.to_string())
}

fn ok_type(env: &Env, text: &str) -> String {
    match compile(env, text) {
        Ok(c) => c.output_type().to_string(),
        Err(e) => panic!("{text}: unexpected errors:\n{e}"),
    }
}

fn err_text(env: &Env, text: &str) -> String {
    match compile(env, text) {
        Ok(c) => panic!("{text}: expected errors, got type {}", c.output_type()),
        Err(e) => e,
    }
}

fn obj(name: &str, fields: &[(&str, Type)]) -> Type {
    Type::object(ObjectType::new(
        name,
        fields
            .iter()
            .map(|(n, t)| (n.to_string(), t.clone()))
            .collect(),
    ))
}

/// An environment with cel-go's test variables.
fn test_env(version: EnvVersion) -> Env {
    let nested = obj("T.nested", &[("i", Type::Int), ("s", Type::String)]);
    let t = obj(
        "T",
        &[
            ("i", Type::Int),
            ("s", Type::String),
            ("b", Type::Bool),
            ("d", Type::Double),
            ("l", Type::list(Type::Int)),
            ("m", Type::map(Type::String, Type::Int)),
            ("nested", nested),
            ("__namespace__", Type::String),
            ("x__dash__y", Type::Int),
        ],
    );
    EnvBuilder::kubernetes(version)
        .decl_types(std::slice::from_ref(&t))
        .variable("x", t.clone())
        .variable("ox", Type::optional(t))
        .variable("i", Type::Int)
        .variable("u", Type::Uint)
        .variable("s", Type::String)
        .variable("d", Type::Dyn)
        .variable("li", Type::list(Type::Int))
        .variable("ls", Type::list(Type::String))
        .variable("msi", Type::map(Type::String, Type::Int))
        .variable("ts", Type::Timestamp)
        .variable("dur", Type::Duration)
        .build()
}

#[test]
fn output_types() {
    let env = test_env(EnvVersion::Stored);
    let cases: &[(&str, &str)] = &[
        ("1 + 2", "int"),
        ("1u + 2u", "uint"),
        ("1.0 / 2.0", "double"),
        ("'a' + 'b'", "string"),
        ("b'a' + b'b'", "bytes"),
        ("[1] + [2]", "list(int)"),
        ("[] + [2]", "list(int)"),
        ("[]", "list(dyn)"),
        ("{}", "map(dyn, dyn)"),
        ("{'a': 1}", "map(string, int)"),
        ("null", "null"),
        ("x", "T"),
        ("x.i", "int"),
        ("x.nested", "T.nested"),
        ("x.nested.s", "string"),
        ("x.m['a']", "int"),
        ("x.m.a", "int"),
        ("x.l[0]", "int"),
        ("has(x.i)", "bool"),
        ("has(x.m.a)", "bool"),
        ("d.anything.goes", "dyn"),
        ("d[0]", "dyn"),
        ("i == 1 ? 'a' : 'b'", "string"),
        ("i == 1 ? 'a' : d", "dyn"),
        ("size(s)", "int"),
        ("s.size()", "int"),
        ("type(i)", "type(int)"),
        ("int", "type(int)"),
        ("type(i) == int", "bool"),
        ("type(i) == string", "bool"),
        ("google.protobuf.Duration", "type(duration)"),
        ("duration", "type(duration)"),
        ("list", "type(list(dyn))"),
        ("li.all(e, e > 0)", "bool"),
        ("li.exists(e, e > 0)", "bool"),
        ("li.exists_one(e, e > 0)", "bool"),
        ("li.map(e, e * 2)", "list(int)"),
        ("li.map(e, e > 0, string(e))", "list(string)"),
        ("li.filter(e, e > 0)", "list(int)"),
        ("msi.all(k, k != '')", "bool"),
        ("msi.map(k, msi[k])", "list(int)"),
        ("d.all(e, e)", "bool"),
        ("li.all(i, v, i < v)", "bool"),
        ("msi.all(k, v, k.size() < v)", "bool"),
        ("li.transformList(i, v, v * i)", "list(int)"),
        ("msi.transformMap(k, v, v + 1)", "map(string, int)"),
        ("msi.transformMapEntry(k, v, {v: k})", "map(int, string)"),
        ("ts - ts", "duration"),
        ("ts + dur", "timestamp"),
        ("dur.getHours()", "int"),
        ("ts.getHours('UTC')", "int"),
        ("1 < 1.0", "bool"),
        ("1u >= 2", "bool"),
        ("x.?i", "optional_type(int)"),
        ("x.?nested.?i", "optional_type(int)"),
        ("ox.i", "optional_type(int)"),
        ("ox.nested.i", "optional_type(int)"),
        ("ox.i.value()", "int"),
        ("ox.i.orValue(1)", "int"),
        ("msi[?'a']", "optional_type(int)"),
        ("li[?0]", "optional_type(int)"),
        ("optional.of(1)", "optional_type(int)"),
        ("optional.none()", "optional_type(dyn)"),
        ("optional.of(1).or(optional.none())", "optional_type(int)"),
        ("[?optional.of(1), 2]", "list(int)"),
        ("{?'a': optional.of(1)}", "map(string, int)"),
        ("optional.of([1])[0]", "optional_type(int)"),
        ("optional.of(1).optMap(y, y + 1)", "optional_type(int)"),
        (
            "optional.of(1).optFlatMap(y, optional.of(y + 1))",
            "optional_type(int)",
        ),
        ("li.first()", "optional_type(int)"),
        ("optional.unwrap([optional.of(1)])", "list(int)"),
        ("'abc'.charAt(1)", "string"),
        ("'a,b'.split(',')", "list(string)"),
        ("ls.join(',')", "string"),
        ("'%s'.format(['a'])", "string"),
        ("strings.quote('a')", "string"),
        ("sets.contains([1], [1])", "bool"),
        ("li.sort()", "list(int)"),
        ("lists.range(3)", "list(int)"),
        ("[[1]].flatten()", "list(int)"),
        ("li.slice(0, 1)", "list(int)"),
        ("li.isSorted()", "bool"),
        ("li.sum()", "int"),
        ("li.indexOf(1)", "int"),
        ("'abc'.indexOf('b')", "int"),
        ("li.includes(1)", "bool"),
        ("'abc'.includes('b')", "bool"),
        ("'abc'.find('b')", "string"),
        ("'abc'.findAll('b', 1)", "list(string)"),
        ("url('https://x').getHost()", "string"),
        ("url('https://x').getQuery()", "map(string, list(string))"),
        ("quantity('1Gi').add(1)", "kubernetes.Quantity"),
        ("sign(quantity('1'))", "int"),
        ("quantity('1').isGreaterThan(quantity('2'))", "bool"),
        ("semver('1.0.0').isGreaterThan(semver('1.0.1'))", "bool"),
        ("semver('1.0', true).major()", "int"),
        ("ip('1.2.3.4').family()", "int"),
        ("cidr('1.2.3.0/24').ip()", "net.IP"),
        ("cidr('1.2.3.0/24').containsIP('1.2.3.4')", "bool"),
        ("string(ip('1.2.3.4'))", "string"),
        ("net.IP", "type(net.IP)"),
        ("ip.isCanonical('1.2.3.4')", "bool"),
        (
            "format.dns1123Label().validate('a')",
            "optional_type(list(string))",
        ),
        (
            "format.named('uri')",
            "optional_type(kubernetes.NamedFormat)",
        ),
        ("optional_type", "type(optional_type(dyn))"),
        ("x.namespace", "string"),
        ("x.__namespace__", "string"),
        ("x.x__dash__y", "int"),
        ("dyn(1) == 1", "bool"),
        ("[1, 2].all(e, [e].exists(f, f == e))", "bool"),
    ];
    for (text, want) in cases {
        assert_eq!(ok_type(&env, text), *want, "{text}");
    }
}

#[test]
fn references_carry_overload_ids() {
    let env = test_env(EnvVersion::Stored);
    let cases: &[(&str, &[&str])] = &[
        ("1 + 2", &["add_int64"]),
        ("i + 1", &["add_int64"]),
        ("d + 1", &["add_int64"]),
        (
            "d + d",
            &[
                "add_bytes",
                "add_double",
                "add_duration_duration",
                "add_duration_timestamp",
                "add_timestamp_duration",
                "add_int64",
                "add_list",
                "add_string",
                "add_uint64",
            ],
        ),
        ("d == 1", &["equals"]),
        ("size(s)", &["size_string"]),
        ("s.size()", &["string_size"]),
        ("s.contains('a')", &["contains_string"]),
        ("s.matches('a')", &["matches_string"]),
        ("matches(s, 'a')", &["matches"]),
        ("1 < 1.0", &["less_int64_double"]),
        ("li[0]", &["index_list"]),
        ("msi['a']", &["index_map"]),
        ("1 in li", &["in_list"]),
        ("optional.of(1)", &["optional_of"]),
        ("li[?0]", &["list_optindex_optional_int"]),
        ("d.indexOf(1)", &["list_a_index_of_int"]),
        (
            "d.indexOf(d)",
            &["list_a_index_of_int", "string_index_of_string"],
        ),
        ("quantity('1').add(1)", &["quantity_add_int"]),
        ("sets.intersects([1], [2])", &["list_sets_intersects_list"]),
        ("i > 0 && s != ''", &["logical_and"]),
        ("!(i > 0)", &["logical_not"]),
        ("-i", &["negate_int64"]),
    ];
    for (text, want) in cases {
        let c = compile(&env, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let ids = c.overload_ids(c.expr.id);
        assert_eq!(ids, *want, "{text}");
    }
    // Identifiers refer to their variables; namespaced functions lose their target.
    let c = compile(&env, "optional.of(x)").unwrap();
    let ExprKind::Call(call) = &c.expr.kind else {
        panic!("not a call")
    };
    assert_eq!(call.function, "optional.of");
    assert!(call.target.is_none());
    assert!(c.references_ident("x"));
    assert!(!c.references_ident("oldSelf"));
    let c = compile(&env, "net.IP").unwrap();
    assert_eq!(c.expr.kind, ExprKind::Ident("net.IP".to_string()));
    assert_eq!(
        c.reference(c.expr.id),
        Some(&Reference::Ident("net.IP".to_string()))
    );
    // The removed `optional` identifier node no longer has a source position.
    let c = compile(&env, "optional.none()").unwrap();
    assert_eq!(c.source_info.offsets.len(), c.expr.ids().len());
}

#[test]
fn error_texts() {
    let env = test_env(EnvVersion::Stored);
    let cases: &[(&str, &str)] = &[
        (
            "foo",
            "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo\n | ^",
        ),
        (
            "1 + 'a'",
            "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n | 1 + 'a'\n | ..^",
        ),
        (
            "x.nope",
            "ERROR: <input>:1:2: undefined field 'nope'\n | x.nope\n | .^",
        ),
        (
            "x.nested.nope == 1",
            "ERROR: <input>:1:9: undefined field 'nope'\n | x.nested.nope == 1\n | ........^",
        ),
        (
            "1 + x",
            "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, T)'\n | 1 + x\n | ..^",
        ),
        (
            "i == 1.0",
            "ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, double)'\n | i == 1.0\n | ..^",
        ),
        (
            "x.i != null",
            "ERROR: <input>:1:5: found no matching overload for '_!=_' applied to '(int, null)'\n | x.i != null\n | ....^",
        ),
        (
            "size(1)",
            "ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int)'\n | size(1)\n | ....^",
        ),
        (
            "1.size()",
            "ERROR: <input>:1:7: found no matching overload for 'size' applied to 'int.()'\n | 1.size()\n | ......^",
        ),
        (
            "'a'.startsWith(1)",
            "ERROR: <input>:1:15: found no matching overload for 'startsWith' applied to 'string.(int)'\n | 'a'.startsWith(1)\n | ..............^",
        ),
        (
            "fun()",
            "ERROR: <input>:1:4: undeclared reference to 'fun' (in container '')\n | fun()\n | ...^",
        ),
        (
            "'string'.fun()",
            "ERROR: <input>:1:13: undeclared reference to 'fun' (in container '')\n | 'string'.fun()\n | ............^",
        ),
        (
            "[].length",
            "ERROR: <input>:1:3: type 'list(_var0)' does not support field selection\n | [].length\n | ..^",
        ),
        (
            "i.x",
            "ERROR: <input>:1:2: type 'int' does not support field selection\n | i.x\n | .^",
        ),
        (
            "li.exists(y, y > 10) && y < 5",
            "ERROR: <input>:1:25: undeclared reference to 'y' (in container '')\n | li.exists(y, y > 10) && y < 5\n | ........................^",
        ),
        (
            "x.all(e, 0)",
            "ERROR: <input>:1:1: expression of type 'T' cannot be range of a comprehension (must be list, map, or dynamic)\n | x.all(e, 0)\n | ^\nERROR: <input>:1:10: expected type 'bool' but found 'int'\n | x.all(e, 0)\n | .........^",
        ),
        (
            "i.all(e, true)",
            "ERROR: <input>:1:1: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)\n | i.all(e, true)\n | ^",
        ),
        (
            "[].map(x, [].map(y, x in y && y in x))",
            "ERROR: <input>:1:33: found no matching overload for '@in' applied to '(list(dyn), dyn)'\n | [].map(x, [].map(y, x in y && y in x))\n | ................................^",
        ),
        (
            "int{}",
            "ERROR: <input>:1:4: 'int' is not a message type\n | int{}\n | ...^",
        ),
        (
            "Msg{}",
            "ERROR: <input>:1:4: undeclared reference to 'Msg' (in container '')\n | Msg{}\n | ...^",
        ),
        (
            "{?'key': 'hi'}",
            "ERROR: <input>:1:10: expected type 'optional_type(string)' but found 'string'\n | {?'key': 'hi'}\n | .........^",
        ),
        (
            "[?'value']",
            "ERROR: <input>:1:3: expected type 'optional_type(string)' but found 'string'\n | [?'value']\n | ..^",
        ),
        (
            "[1, 'a']",
            "ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a']\n | ....^",
        ),
        (
            "{'a': 1, 'b': 'c'}",
            "ERROR: <input>:1:15: expected type 'int' but found 'string'\n | {'a': 1, 'b': 'c'}\n | ..............^",
        ),
        (
            "i > 0 && 'a'",
            "ERROR: <input>:1:10: expected type 'bool' but found 'string'\n | i > 0 && 'a'\n | .........^",
        ),
        (
            "1 || 2",
            "ERROR: <input>:1:1: expected type 'bool' but found 'int'\n | 1 || 2\n | ^\nERROR: <input>:1:6: expected type 'bool' but found 'int'\n | 1 || 2\n | .....^",
        ),
        (
            "ox.i > 1",
            "ERROR: <input>:1:6: found no matching overload for '_>_' applied to '(optional_type(int), int)'\n | ox.i > 1\n | .....^",
        ),
        (
            "ox.i.orValue('')",
            "ERROR: <input>:1:13: found no matching overload for 'orValue' applied to 'optional_type(int).(string)'\n | ox.i.orValue('')\n | ............^",
        ),
        (
            "url('x').foo",
            "ERROR: <input>:1:9: unexpected failed resolution of 'kubernetes.URL'\n | url('x').foo\n | ........^",
        ),
        (
            "ip('x').foo",
            "ERROR: <input>:1:8: type 'net.IP' does not support field selection\n | ip('x').foo\n | .......^",
        ),
        (
            "quantity('1').sign()",
            "ERROR: <input>:1:19: found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'\n | quantity('1').sign()\n | ..................^",
        ),
        // The sortBy macro (ext lists version 2 on): its target and variable checks.
        (
            "{}.sortBy(e, e)",
            "ERROR: <input>:1:1: sortBy can only be applied to a list, identifier, comprehension, call or select expression\n | {}.sortBy(e, e)\n | ^",
        ),
        (
            "li.sortBy(1, e)",
            "ERROR: <input>:1:11: argument is not an identifier\n | li.sortBy(1, e)\n | ..........^",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(err_text(&env, text), *want, "{text}");
    }
}

#[test]
fn kubernetes_versions() {
    // (version, expression, compiles)
    let cases: &[(EnvVersion, &str, bool)] = &[
        (v(27), "1.5 > 1", false),
        (v(28), "1.5 > 1", true),
        (v(23), "[1, 2].indexOf(2) == 1", true),
        (v(23), "'abc'.contains('bc')", true),
        (v(23), "isURL('http://example.com')", true),
        (v(23), "'a 1 b 2'.find('[0-9]') == '1'", true),
        (v(23), "'abc'.lowerAscii() == 'abc'", true),
        (v(23), "'%s'.format(['a']) == 'a'", false),
        (v(29), "'%s'.format(['a']) == 'a'", true),
        (v(27), "isQuantity('1')", false),
        (v(28), "isQuantity('1')", true),
        (v(28), "sets.contains([1], [1])", false),
        (v(29), "sets.contains([1], [1])", true),
        (v(29), "isIP('1.2.3.4')", false),
        (v(30), "isIP('1.2.3.4')", true),
        (v(30), "isCIDR('1.2.3.0/24')", true),
        (v(30), "format.named('uri').hasValue()", false),
        (v(31), "format.named('uri').hasValue()", true),
        (v(31), "[1].all(i, v, v > i)", false),
        (v(32), "[1].all(i, v, v > i)", true),
        (v(32), "isSemver('1.0.0')", false),
        (v(33), "isSemver('1.0.0')", true),
        (v(33), "[2, 1].sort() == [1, 2]", false),
        (v(34), "[2, 1].sort() == [1, 2]", true),
        (v(36), "[1, 2].includes(2)", false),
        (v(37), "[1, 2].includes(2) == true", true),
        (EnvVersion::Stored, "[1, 2].includes(2) == true", true),
        (v(27), "optional.of(1).hasValue()", false),
        (v(28), "optional.of(1).hasValue()", true),
        (v(36), "[1].exists(x, x == 1)", true),
    ];
    for (ver, text, want) in cases {
        let env = base(*ver);
        let got = compile(&env, text);
        assert_eq!(got.is_ok(), *want, "{ver:?} {text}: {got:?}");
    }
    // Without cross-type comparisons, a comprehension scope lifts the filter (cel-go quirk).
    let env = base(v(27));
    assert!(compile(&env, "[1].all(e, e < 1.5)").is_ok());
    assert!(compile(&env, "[1].all(e, true) && 1 < 1.5").is_ok());
    assert_eq!(
        err_text(&env, "1 <= 1.0 && 1u <= 1.0"),
        "ERROR: <input>:1:3: found no matching overload for '_<=_' applied to '(int, double)'\n | 1 <= 1.0 && 1u <= 1.0\n | ..^\nERROR: <input>:1:16: found no matching overload for '_<=_' applied to '(uint, double)'\n | 1 <= 1.0 && 1u <= 1.0\n | ...............^"
    );
    // Optional syntax only exists with the optional library.
    assert!(compile(&env, "{'a': 1}.?a").is_err());
    // Keyword field names: bare `namespace` finds `__namespace__` from 1.31.
    let t = obj("Gadget", &[("__namespace__", Type::String)]);
    for (ver, want) in [(v(30), false), (v(31), true), (EnvVersion::Stored, true)] {
        let env = EnvBuilder::kubernetes(ver)
            .decl_types(std::slice::from_ref(&t))
            .variable("gadget", t.clone())
            .build();
        assert_eq!(
            compile(&env, "gadget.namespace == 'buzz'").is_ok(),
            want,
            "{ver:?}"
        );
        assert!(compile(&env, "gadget.__namespace__ == 'buzz'").is_ok());
    }
}

#[test]
fn custom_functions_and_containers() {
    let env = base(v(36))
        .extend()
        .function(FunctionDecl::new(
            "fakeFunction",
            vec![OverloadDecl::global(
                "fake_function_string",
                vec![Type::String],
                Type::String,
            )],
        ))
        .build();
    assert_eq!(ok_type(&env, "fakeFunction('abc') == 'ABC'"), "bool");
    assert!(base(v(36))
        .compile("fakeFunction('abc') == 'ABC'")
        .unwrap_err()
        .to_string()
        .contains("undeclared reference to 'fakeFunction'"));
    // Containers: a name resolves in the container first, then outwards.
    let env = EnvBuilder::kubernetes(v(36))
        .container("a.b")
        .variable("a.b.x", Type::Int)
        .variable("a.y", Type::String)
        .variable("z", Type::Bool)
        .build();
    assert_eq!(ok_type(&env, "x"), "int");
    assert_eq!(ok_type(&env, "y"), "string");
    assert_eq!(ok_type(&env, "z"), "bool");
    assert_eq!(ok_type(&env, ".z"), "bool");
    assert_eq!(
        err_text(&env, "w"),
        "ERROR: <input>:1:1: undeclared reference to 'w' (in container 'a.b')\n | w\n | ^"
    );
    let c = compile(&env, "x").unwrap();
    assert_eq!(c.expr.kind, ExprKind::Ident("a.b.x".to_string()));
}

#[test]
fn validators() {
    fn duration_ok(l: &Literal) -> bool {
        matches!(l, Literal::String(s) if s.ends_with('s'))
    }
    fn regex_ok(p: &str) -> bool {
        !p.contains('[')
    }
    let checks = LiteralChecks {
        duration: Some(duration_ok),
        timestamp: None,
        regex: Some(regex_ok),
    };
    let env = base(v(36)).extend().literal_checks(checks).build();
    let cases: &[(&str, Option<&str>)] = &[
        ("duration('1s') > duration('0s')", None),
        (
            "duration('1x') > duration('0s')",
            Some("ERROR: <input>:1:10: invalid duration argument\n | duration('1x') > duration('0s')\n | .........^"),
        ),
        (
            "'a'.matches('[')",
            Some("ERROR: <input>:1:13: invalid matches argument\n | 'a'.matches('[')\n | ............^"),
        ),
        // The global form validates its first argument (cel-go's quirk).
        (
            "matches('[', 'a')",
            Some("ERROR: <input>:1:9: invalid matches argument\n | matches('[', 'a')\n | ........^"),
        ),
        ("matches('a', '[')", None),
        (
            "[1, dyn(2)] == [1]",
            Some("ERROR: <input>:1:8: expected type 'int' but found 'dyn'\n | [1, dyn(2)] == [1]\n | .......^"),
        ),
        (
            "{'a': dyn(1), 'b': 2}.size() == 2",
            Some("ERROR: <input>:1:20: expected type 'dyn' but found 'int'\n | {'a': dyn(1), 'b': 2}.size() == 2\n | ...................^"),
        ),
        ("'%s %d'.format([dyn('a'), 1]) == ''", None),
        ("'%s %d'.format(['a', 1]) == ''", None),
        (
            "'%d'.format(['a']) == ''",
            Some("ERROR: <input>:1:14: error during formatting: decimal clause can only be used on integers, was given string\n | '%d'.format(['a']) == ''\n | .............^"),
        ),
        (
            "'%s %s'.format(['a']) == ''",
            Some("ERROR: <input>:1:15: index 1 out of range\n | '%s %s'.format(['a']) == ''\n | ..............^"),
        ),
        (
            "'%s'.format(['a', 'b']) == ''",
            Some("ERROR: <input>:1:12: too many arguments supplied to string.format (expected 1, got 2)\n | '%s'.format(['a', 'b']) == ''\n | ...........^"),
        ),
        (
            "'%z'.format([1]) == ''",
            Some("ERROR: <input>:1:12: could not parse formatting clause: unrecognized formatting clause \"z\"\n | '%z'.format([1]) == ''\n | ...........^"),
        ),
        (
            "'%.f'.format([1.0]) == ''",
            Some("ERROR: <input>:1:13: could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax\n | '%.f'.format([1.0]) == ''\n | ............^"),
        ),
        (
            "'%.3'.format([1.0]) == ''",
            Some("ERROR: <input>:1:13: could not parse formatting clause: error while parsing precision: could not find end of precision specifier\n | '%.3'.format([1.0]) == ''\n | ............^"),
        ),
        (
            "'%'.format([1]) == ''",
            Some("ERROR: <input>:1:11: unexpected end of string\n | '%'.format([1]) == ''\n | ..........^"),
        ),
        (
            "'%s'.format([[1, optional.of(1)]]) == ''",
            Some("ERROR: <input>:1:29: error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given optional_type\n | '%s'.format([[1, optional.of(1)]]) == ''\n | ............................^"),
        ),
        ("'%.2f %e %x %X %o %b %%'.format([1.0, 2.0, 'a', b'a', 8, true]) == ''", None),
    ];
    let env = env
        .extend()
        .decl_types(&[obj("X", &[])])
        .variable("x", obj("X", &[]))
        .build();
    for (text, want) in cases {
        let got = compile(&env, text);
        match want {
            None => assert!(got.is_ok(), "{text}: {got:?}"),
            Some(w) => assert_eq!(got.unwrap_err(), *w, "{text}"),
        }
    }
    // Before 1.29 the literal validators do not apply; homogeneous literals are validated
    // from 1.0 (`cel.HomogeneousAggregateLiterals()` is the validator).
    let env = base(v(28)).extend().literal_checks(checks).build();
    assert!(compile(&env, "duration('1x') > duration('0s')").is_ok());
    assert!(compile(&env, "[1, dyn(2)] == [1]").is_err());
    // Without the validator, mixed literals check as dyn.
    let env = EnvBuilder::new().library(Library::Std).build();
    assert_eq!(ok_type(&env, "[1, dyn('a')]"), "list(dyn)");
    assert_eq!(ok_type(&env, "[1, 'a']"), "list(dyn)");
    assert_eq!(ok_type(&env, "{1: 'a', 'b': 2}"), "map(dyn, dyn)");
    // The checker's own rule, when asked for, reports during checking.
    let env = EnvBuilder::new()
        .library(Library::Std)
        .checker_options(CheckerOptions {
            homogeneous_aggregate_literals: true,
            ..CheckerOptions::default()
        })
        .build();
    assert_eq!(
        err_text(&env, "[1, 'a']"),
        "ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a']\n | ....^"
    );
}

#[test]
fn object_format_argument_is_rejected() {
    let t = obj("selfType1", &[("a", Type::Int)]);
    let env = base(v(36))
        .extend()
        .decl_types(std::slice::from_ref(&t))
        .variable("self", t)
        .build();
    assert_eq!(
        err_text(&env, "'%s'.format([self]) == ''"),
        "ERROR: <input>:1:14: error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given selfType1\n | '%s'.format([self]) == ''\n | .............^"
    );
}

/// cel-go's `checker_test.go` cases that need no protobuf types (cel-go's default checker:
/// mixed literals are `dyn`, cross-type comparisons on).
#[test]
fn cel_go_checker_cases() {
    let plain = || {
        EnvBuilder::new()
            .library(Library::Std)
            .library(Library::Optional(u32::MAX))
            .option(EnvOption::CrossTypeNumericComparisons)
    };
    type Case = (&'static str, Vec<(&'static str, Type)>, &'static str);
    let cases: Vec<Case> = vec![
        ("[]", vec![], "list(dyn)"),
        ("[1, \"A\"]", vec![], "list(dyn)"),
        ("[] + [1,2,3,] + [4]", vec![], "list(int)"),
        ("[1, 2u] + []", vec![], "list(dyn)"),
        ("{1:2u, 2:3u}", vec![], "map(int, uint)"),
        ("{\"a\":1, \"b\":2}.a", vec![], "int"),
        ("{1:2u, 2u:3}", vec![], "map(dyn, dyn)"),
        ("int(1u) + int(uint(\"1\"))", vec![], "int"),
        ("false && !true || false ? 2 : 3", vec![], "int"),
        ("null == null && null != null", vec![], "bool"),
        ("1 + 2 * 3 - 1 / 2 == 6 % 1", vec![], "bool"),
        (
            "lists.filter(x, x > 1.5)",
            vec![("lists", Type::Dyn)],
            "list(dyn)",
        ),
        ("list == type([1]) && map == type({1:2u})", vec![], "bool"),
        ("1 in [1, 2, 3]", vec![], "bool"),
        ("1 in dyn([1, 2, 3])", vec![], "bool"),
        ("type(null) == null_type", vec![], "bool"),
        ("type(type) == type", vec![], "bool"),
        (
            "([[[1]], [[2]], [[3]]][0][0] + [2, 3, {'four': {'five': 'six'}}])[3]",
            vec![],
            "dyn",
        ),
        ("[1] + [dyn('string')]", vec![], "list(dyn)"),
        ("[dyn('string')] + [1]", vec![], "list(dyn)"),
        (
            "args.user[\"myextension\"].customAttributes.filter(x, x.name == \"hobbies\")",
            vec![("args", Type::map(Type::String, Type::Dyn))],
            "list(dyn)",
        ),
        ("a.b + 1 == a[0]", vec![("a", Type::param("T"))], "bool"),
        (
            "1 >= 1.0 && 1u >= 1.0 && 1.0 >= 1 && 1.0 >= 1u && 1 >= 1u && 1u >= 1",
            vec![],
            "bool",
        ),
        (
            "[1].map(x, [x, x]).map(x, [x, x])",
            vec![],
            "list(list(list(int)))",
        ),
        (
            "values.filter(i, i.content != \"\").map(i, i.content)",
            vec![("values", Type::list(Type::map(Type::String, Type::String)))],
            "list(string)",
        ),
        (
            "[{}.map(c,c,c)]+[{}.map(c,c,c)]",
            vec![],
            "list(list(bool))",
        ),
        (
            "a.?b",
            vec![("a", Type::map(Type::String, Type::String))],
            "optional_type(string)",
        ),
        (
            "type(a.?b) == optional_type",
            vec![("a", Type::map(Type::String, Type::String))],
            "bool",
        ),
        (
            "a.b",
            vec![("a", Type::optional(Type::map(Type::String, Type::String)))],
            "optional_type(string)",
        ),
        (
            "a.dynamic",
            vec![("a", Type::optional(Type::Dyn))],
            "optional_type(dyn)",
        ),
        (
            "has(a.dynamic)",
            vec![("a", Type::optional(Type::Dyn))],
            "bool",
        ),
        (
            "has(a.?b.c)",
            vec![("a", Type::optional(Type::map(Type::String, Type::Dyn)))],
            "bool",
        ),
        ("{?'key': {'a': 'b'}.?value}", vec![], "map(string, string)"),
        ("{?'key': {'a': 'b'}.?value}.key", vec![], "string"),
        (
            "{?'nested': a.b}",
            vec![("a", Type::optional(Type::map(Type::String, Type::String)))],
            "map(string, string)",
        ),
        (
            "[?a, ?b, 'world']",
            vec![
                ("a", Type::optional(Type::String)),
                ("b", Type::optional(Type::String)),
            ],
            "list(string)",
        ),
        ("{}.map(c,[c,type(c)])", vec![], "list(list(dyn))"),
    ];
    for (text, vars, want) in cases {
        let mut b = plain();
        for (n, t) in vars {
            b = b.variable(n, t);
        }
        assert_eq!(ok_type(&b.build(), text), want, "{text}");
    }
}

/// The deepest expressions the parser accepts check on a 1 MiB stack (the browser's), even in
/// debug builds.
#[test]
fn deep_expressions_on_a_small_stack() {
    fn nest(open: &str, inner: &str, close: &str, n: usize) -> String {
        format!("{}{inner}{}", open.repeat(n), close.repeat(n))
    }
    let texts: Vec<String> = vec![
        format!("1{}", " + 1".repeat(249)),
        format!("d{}", ".a".repeat(249)),
        format!("d{}", "[0]".repeat(249)),
        format!("{}true", "true == ".repeat(249)),
        nest("(", "1", " + 1)", 240),
        nest("[", "1", "]", 240),
        nest("size(", "'a'", ")", 240),
        nest("[1].all(x, ", "true", ")", 120),
        nest("{'a': ", "1", "}", 240),
        nest("optional.of(", "1", ")", 240),
    ];
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let env = base(EnvVersion::Stored)
                .extend()
                .variable("d", Type::Dyn)
                .build();
            let mut outcomes = Vec::new();
            for t in &texts {
                outcomes.push(match env.compile(t) {
                    Ok(c) => c.output_type().kind(),
                    Err(_) => Kind::Error,
                });
            }
            outcomes
        })
        .unwrap();
    let outcomes = handle.join().expect("no stack overflow");
    assert_eq!(
        outcomes,
        vec![
            Kind::Int,
            Kind::Dyn,
            Kind::Dyn,
            Kind::Bool,
            Kind::Int,
            Kind::List,
            Kind::Error,
            Kind::Bool,
            Kind::Map,
            Kind::Opaque,
        ]
    );
}
