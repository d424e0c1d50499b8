use super::*;
use serde_json::json;

fn run(template: &str, data: &Json, allow_missing: bool) -> Result<String, String> {
    JsonPath::parse(template)?
        .allow_missing_keys(allow_missing)
        .execute(data)
}

fn p(value: i64, known: bool, derived: bool) -> Param {
    Param {
        value,
        known,
        derived,
    }
}

fn field(s: &str) -> Node {
    Node::Field(s.to_owned())
}

/// parser_test.go TestParser (the tree, flattened the way the test collects it).
#[test]
fn parser_trees() {
    let text = |s: &str| Node::Text(s.to_owned());
    let cases: Vec<(&str, Vec<Node>)> = vec![
        ("hello jsonpath", vec![text("hello jsonpath")]),
        (
            "hello {.jsonpath}",
            vec![text("hello "), Node::List(vec![field("jsonpath")])],
        ),
        (
            "hello {['jsonpath']}",
            vec![text("hello "), Node::List(vec![field("jsonpath")])],
        ),
        (r#"{"{"}"#, vec![Node::List(vec![text("{")])]),
        (
            "{[1:3]}",
            vec![Node::List(vec![Node::Array([
                p(1, true, false),
                p(3, true, false),
                p(0, false, false),
            ])])],
        ),
        (
            "{.book[*].author}",
            vec![Node::List(vec![
                field("book"),
                Node::Array([p(0, false, false); 3]),
                field("author"),
            ])],
        ),
        (
            "{.bicycle.*}",
            vec![Node::List(vec![field("bicycle"), Node::Wildcard])],
        ),
        (
            "{[?(@.price<3)]}",
            vec![Node::List(vec![Node::Filter {
                left: vec![field("price")],
                right: vec![Node::Int(3)],
                operator: "<".into(),
            }])],
        ),
        ("{..}", vec![Node::List(vec![Node::Recursive])]),
        (
            "{..price}",
            vec![Node::List(vec![Node::Recursive, field("price")])],
        ),
        (
            "{['book.price']}",
            vec![Node::List(vec![field("book"), field("price")])],
        ),
        (
            "{['bicycle.price', 3, 'book.price']}",
            vec![Node::List(vec![Node::Union(vec![
                vec![field("bicycle"), field("price")],
                vec![Node::Array([
                    p(3, true, false),
                    p(4, true, true),
                    p(0, false, false),
                ])],
                vec![field("book"), field("price")],
            ])])],
        ),
        (
            "{range .items}{.name},{end}",
            vec![
                Node::List(vec![Node::Identifier("range".into()), field("items")]),
                Node::List(vec![field("name")]),
                text(","),
                Node::List(vec![Node::Identifier("end".into())]),
            ],
        ),
        (
            r#"{[?(@.status.nodeInfo.osImage == "()")]}"#,
            vec![Node::List(vec![Node::Filter {
                left: vec![field("status"), field("nodeInfo"), field("osImage")],
                right: vec![text("()")],
                operator: "==".into(),
            }])],
        ),
        (
            r#"{[?(@.status.nodeInfo.osImage == "(\"\")")]}"#,
            vec![Node::List(vec![Node::Filter {
                left: vec![field("status"), field("nodeInfo"), field("osImage")],
                right: vec![text("(\"\")")],
                operator: "==".into(),
            }])],
        ),
        (
            r#"{[?(@.test == "())(")]}"#,
            vec![Node::List(vec![Node::Filter {
                left: vec![field("test")],
                right: vec![text("())(")],
                operator: "==".into(),
            }])],
        ),
        (
            r#"{[?(@.a == "{[()]}")]}"#,
            vec![Node::List(vec![Node::Filter {
                left: vec![field("a")],
                right: vec![text("{[()]}")],
                operator: "==".into(),
            }])],
        ),
        (
            r#"{[?(@.a == '""')]}"#,
            vec![Node::List(vec![Node::Filter {
                left: vec![field("a")],
                right: vec![text("\"\"")],
                operator: "==".into(),
            }])],
        ),
        (
            r"{[?(@.a == '\\\'')]}",
            vec![Node::List(vec![Node::Filter {
                left: vec![field("a")],
                right: vec![text("\\'")],
                operator: "==".into(),
            }])],
        ),
        (
            "{[-5:]}",
            vec![Node::List(vec![Node::Array([
                p(-5, true, false),
                p(0, false, false),
                p(0, false, false),
            ])])],
        ),
        (
            "{[-1]}",
            vec![Node::List(vec![Node::Array([
                p(-1, true, false),
                p(0, true, true),
                p(0, false, false),
            ])])],
        ),
        (
            "{[1:-1]}",
            vec![Node::List(vec![Node::Array([
                p(1, true, false),
                p(-1, true, false),
                p(0, false, false),
            ])])],
        ),
        (
            r"{.a\.b.c}",
            vec![Node::List(vec![field("a.b"), field("c")])],
        ),
        (
            "{.a true 1.5 -2}",
            vec![Node::List(vec![
                field("a"),
                Node::Bool(true),
                Node::Float(1.5),
                Node::Int(-2),
            ])],
        ),
        ("{.a}", vec![Node::List(vec![field("a")])]),
        ("{.}", vec![Node::List(vec![field("")])]),
        (
            "{$.a[?(@.b)]}",
            vec![Node::List(vec![
                field("a"),
                Node::Filter {
                    left: vec![field("b")],
                    right: vec![],
                    operator: "exists".into(),
                },
            ])],
        ),
    ];
    for (template, want) in cases {
        let got = JsonPath::parse(template).unwrap_or_else(|e| panic!("{template}: {e}"));
        assert_eq!(got.nodes(), want.as_slice(), "{template}");
    }
}

/// parser_test.go TestFailParser, and more of the parser's errors.
#[test]
fn parser_errors() {
    let cases = [
        ("{.hello", "unclosed action"),
        ("{*}", "unrecognized character in action: U+002A '*'"),
        ("{+12.3.0}", "cannot parse number +12.3.0"),
        ("{[1}", "unterminated array"),
        ("{[?(.price]}", "unterminated filter"),
        ("{........}", "invalid multiple recursive descent"),
        ("{.a\n}", "unclosed action"),
        ("{[a]}", "invalid array index a"),
        ("{[1:-]}", "array index - is not a number"),
        (
            "{[99999999999999999999]}",
            "array index 99999999999999999999 is not a number",
        ),
        ("{[?(@.a==1)x}", "unclosed array expect ]"),
        (r#"{"abc}"#, "unterminated quoted string"),
        (
            r#"{"a\qb"}"#,
            r#"unquote string "a\qb" error invalid syntax"#,
        ),
        ("{\u{7}}", "unrecognized character in action: U+0007"),
        ("{#}", "unrecognized character in action: U+0023 '#'"),
        ("{{.a}}", "unrecognized character in action: U+007B '{'"),
        (
            "{[?(@.a==)]}",
            "unrecognized character in action: U+003D '='",
        ),
        ("{-}", "cannot parse number -"),
        ("{[a,b]}", "invalid array index a"),
    ];
    for (template, want) in cases {
        assert_eq!(
            JsonPath::parse(template).map(|_| ()),
            Err(want.to_owned()),
            "{template}"
        );
    }
}

fn types() -> Json {
    json!({
        "bools": [true, false, true, false],
        "integers": [1, 2, 3, 4],
        "floats": [1.0, 2.2, 3.3, 4.0],
        "strings": ["one", "two", "three", "four"],
        "interfaces": [true, "one", 1, 1.1],
        "maps": [
            {"name": "one", "value": 1},
            {"name": "two", "value": 2.02},
            {"name": "three", "value": 3.03},
            {"name": "four", "value": 4.04},
        ],
    })
}

/// jsonpath_test.go TestTypesInput (the JSON-shaped part).
#[test]
fn slices_of_each_type() {
    let data = types();
    let cases = [
        ("{ .bools }", "[true,false,true,false]"),
        ("{ .bools[0] }", "true"),
        ("{ .bools[-1] }", "false"),
        ("{ .bools[0:2] }", "true false"),
        ("{ .bools[:2] }", "true false"),
        ("{ .bools[:4:2] }", "true true"),
        ("{ .integers }", "[1,2,3,4]"),
        ("{ .integers[-2] }", "3"),
        ("{ .integers[:4:2] }", "1 3"),
        ("{ .floats }", "[1,2.2,3.3,4]"),
        ("{ .floats[0] }", "1"),
        ("{ .floats[-2] }", "3.3"),
        ("{ .floats[:4:2] }", "1 3.3"),
        ("{ .strings }", r#"["one","two","three","four"]"#),
        ("{ .strings[:4:2] }", "one three"),
        ("{ .interfaces }", r#"[true,"one",1,1.1]"#),
        ("{ .interfaces[0:2] }", "true one"),
        ("{ .interfaces[:4:2] }", "true 1"),
        (
            "{ .maps[::2] }",
            r#"{"name":"one","value":1} {"name":"three","value":3.03}"#,
        ),
        (
            "{ .maps[1::2] }",
            r#"{"name":"two","value":2.02} {"name":"four","value":4.04}"#,
        ),
    ];
    for (template, want) in cases {
        assert_eq!(
            run(template, &data, false).as_deref(),
            Ok(want),
            "{template}"
        );
    }
}

fn nodes() -> Json {
    json!({
      "kind": "List",
      "items": [
        {"kind": "None",
         "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
         "status": {"capacity": {"cpu": "4"}, "ready": true,
                    "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}]}},
        {"kind": "None",
         "metadata": {"name": "127.0.0.2", "labels": {"kubernetes.io/hostname": "127.0.0.2"}},
         "status": {"capacity": {"cpu": "8"}, "ready": false,
                    "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.2"},
                                  {"type": "another", "address": "127.0.0.3"}]}}
      ],
      "users": [
        {"name": "myself", "user": {}},
        {"name": "e2e", "user": {"username": "admin", "password": "secret"}}
      ]
    })
}

/// jsonpath_test.go TestKubernetes, TestJSONInput and the store tests that apply to JSON.
#[test]
fn kubernetes_templates() {
    let data = nodes();
    let cases = [
        (
            "{range .items[*]}{.metadata.name}, {end}{.kind}",
            "127.0.0.1, 127.0.0.2, List",
        ),
        (
            r#"{range .items[*]}{.metadata.name}{"\t"}{end}"#,
            "127.0.0.1\t127.0.0.2\t",
        ),
        (
            "{.items[*].status.addresses[*].address}",
            "127.0.0.1 127.0.0.2 127.0.0.3",
        ),
        (
            "{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}",
            "127.0.0.1, 127.0.0.2, 127.0.0.3, ",
        ),
        ("{.items[*].metadata.name}", "127.0.0.1 127.0.0.2"),
        (
            "{.items[*]['metadata.name', 'status.capacity']}",
            r#"127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}"#,
        ),
        (
            "{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}",
            r#"[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] "#,
        ),
        (r#"{.users[?(@.name=="e2e")].user.password}"#, "secret"),
        (
            r"{.items[0].metadata.labels.kubernetes\.io/hostname}",
            "127.0.0.1",
        ),
        (
            r#"{.items[?(@.metadata.labels.kubernetes\.io/hostname=="127.0.0.1")].kind}"#,
            "None",
        ),
        ("{.items[?(@..ready==true)].metadata.name}", "127.0.0.1"),
        // Map keys are visited in sorted order.
        ("{..name}", "127.0.0.1 127.0.0.2 myself e2e"),
        ("hello {.kind}", "hello List"),
        (r#"{"{"}"#, "{"),
    ];
    for (template, want) in cases {
        assert_eq!(
            run(template, &data, false).as_deref(),
            Ok(want),
            "{template}"
        );
    }
    let points = json!([
        {"id": "i1", "x": 4, "y": -5},
        {"id": "i2", "x": -2, "y": -5, "z": 1},
        {"id": "i3", "x": 8, "y": 3},
        {"id": "i4", "x": -6, "y": -1},
        {"id": "i5", "x": 0, "y": 2, "z": 1},
        {"id": "i6", "x": 1, "y": 4},
        {"id": "i7", "x": null, "y": 4}
    ]);
    assert_eq!(run("{[?(@.z)].id}", &points, false).as_deref(), Ok("i2 i5"));
    assert_eq!(run("{[0]['id']}", &points, false).as_deref(), Ok("i1"));
    assert_eq!(run("{[-1]['x']}", &points, false).as_deref(), Ok("null"));
    assert_eq!(
        run("{..}", &json!([1, 2, 3]), false).as_deref(),
        Ok("[1,2,3]")
    );
    assert_eq!(
        run("{[?(@<5)]}", &json!([2, 6, 3, 7]), false).as_deref(),
        Ok("2 3")
    );
    assert_eq!(
        run("{[1,3,4]}", &json!([0, 1, 2, 3, 4]), false).as_deref(),
        Ok("1 3 4")
    );
}

/// Evaluation errors (jsonpath_test.go failStoreTests on JSON data, and more).
#[test]
fn evaluation_errors() {
    let data = json!({"Labels": {"a": 1}, "Book": [{"Price": 8}], "s": "x", "f": 1.5});
    let cases = [
        ("{hello}", "unrecognized identifier hello"),
        ("{.hello}", "hello is not found"),
        (
            "{.Labels[0]}",
            "map[string]interface {} is not array or slice",
        ),
        ("{.s[0]}", "string is not array or slice"),
        ("{.Book[?(@.Price<>10)]}", "unrecognized filter operator <>"),
        (
            "{range .Labels.*}{@}{end}{end}",
            "not in range, nothing to end",
        ),
        (
            "{.Book[?(@.Price==1.5)]}",
            "incompatible types for comparison",
        ),
        (
            "{.Book[?(@.Price==true)]}",
            "incompatible types for comparison",
        ),
        ("{.Book[?(@==1)]}", "invalid type for comparison"),
        (
            "{.Labels[?(@.a)]}",
            "map[a:1] is not array or slice and cannot be filtered",
        ),
        ("{.Book[5]}", "array index out of bounds: index 5, length 1"),
        (
            "{.Book[0:3]}",
            "array index out of bounds: index 2, length 1",
        ),
        ("{.Book[0:1:0]}", "step must be > 0"),
    ];
    for (template, want) in cases {
        assert_eq!(
            run(template, &data, false),
            Err(want.to_owned()),
            "{template}"
        );
    }
}

/// TestNegativeIndex, TestStep, TestEmptyRange, TestNestedRanges, the missing-key filter.
#[test]
fn indexes_ranges_and_missing_keys() {
    let names: Vec<Json> = (0..6)
        .map(|i| json!({"image": "busybox", "name": format!("fake{i}")}))
        .collect();
    let four = json!({"spec": {"containers": names.get(..4).unwrap()}});
    let six = json!({"spec": {"containers": names}});
    let ok = [
        (&four, "{.spec.containers[0].name}", "fake0"),
        (&four, "{.spec.containers[0:0].name}", ""),
        (&four, "{.spec.containers[0:-1].name}", "fake0 fake1 fake2"),
        (&four, "{.spec.containers[-1].name}", "fake3"),
        (&four, "{.spec.containers[-2:].name}", "fake2 fake3"),
        (&four, "{.spec.containers[-4].name}", "fake0"),
        (&four, "{.spec.containers[5:5].name}", ""),
        (&four, "{.spec.containers[-5:-5].name}", ""),
        (
            &six,
            "{.spec.containers[0:6:].name}",
            "fake0 fake1 fake2 fake3 fake4 fake5",
        ),
        (&six, "{.spec.containers[1:4:2].name}", "fake1 fake3"),
        (&six, "{.spec.containers[0:6:5].name}", "fake0 fake5"),
        (&six, "{.spec.containers[0:6:6].name}", "fake0"),
    ];
    for (data, template, want) in ok {
        assert_eq!(
            run(template, data, false).as_deref(),
            Ok(want),
            "{template}"
        );
    }
    for template in [
        "{.spec.containers[-1:0].name}",
        "{.spec.containers[-5].name}",
        "{.spec.containers[3:1].name}",
        "{.spec.containers[-1:-2].name}",
    ] {
        assert!(run(template, &four, false).is_err(), "{template}");
    }
    let empty = json!({"items": []});
    assert_eq!(
        run("{range .items[*]}{.metadata.name}{end}", &empty, true).as_deref(),
        Ok("")
    );
    assert_eq!(
        run(
            r#"{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}"#,
            &empty,
            true
        )
        .as_deref(),
        Ok("")
    );
    let pods = json!({"items": [
        {"metadata": {"name": "pod1"}, "spec": {"containers": [
            {"name": "foo", "another": [{"name": "value1"}, {"name": "value2"}]},
            {"name": "bar", "another": [{"name": "value1"}, {"name": "value2"}]}]}},
        {"metadata": {"name": "pod2"}, "spec": {"containers": [
            {"name": "baz", "another": [{"name": "value1"}, {"name": "value2"}]}]}}
    ]});
    assert_eq!(
        run(
            r#"{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}"#,
            &pods,
            false
        )
        .as_deref(),
        Ok("pod1:foo,bar,+pod2:baz,+")
    );
    assert_eq!(
        run(
            r##"{range .items[*]}{.metadata.name}{"~"}{range @.spec.containers[*]}{.name}{":"}{range @.another[*]}{.name}{","}{end}{"+"}{end}{"#"}{end}"##,
            &pods,
            false
        )
        .as_deref(),
        Ok("pod1~foo:value1,value2,+bar:value1,value2,+#pod2~baz:value1,value2,+#")
    );
    let annotated = json!({"items": [
        {"metadata": {"name": "pod1", "annotations": {"color": "blue"}}},
        {"metadata": {"name": "pod2"}},
        {"metadata": {"name": "pod3", "annotations": {"color": "green"}}},
        {"metadata": {"name": "pod4", "annotations": {"color": "blue"}}}
    ]});
    let t = r#"{.items[?(@.metadata.annotations.color=="blue")].metadata.name}"#;
    assert_eq!(run(t, &annotated, true).as_deref(), Ok("pod1 pod4"));
    assert!(run(t, &annotated, false).is_err());
    let running = json!({"items": [
        {"metadata": {"name": "pod1"}, "status": {"phase": "Running"}},
        {"metadata": {"name": "pod2"}, "status": {"phase": "Running"}},
        {"resourceVersion": ""}
    ]});
    assert_eq!(
        run(
            r#"{range .items[?(.status.phase=="Running")]}{.metadata.name}{" is Running\n"}{end}"#,
            &running,
            true
        )
        .as_deref(),
        Ok("pod1 is Running\npod2 is Running\n")
    );
}

/// Go reflection details the table convertor depends on.
#[test]
fn go_value_details() {
    let data = json!({"s": "ab", "n": null, "m": {"b": 2, "a": [1, "x"]}, "big": 1e21});
    // A string's bytes under `.*`.
    assert_eq!(run("{.s.*}", &data, false).as_deref(), Ok("97 98"));
    // Maps and lists as json.Marshal writes them; numbers with %v.
    assert_eq!(
        run("{.m}", &data, false).as_deref(),
        Ok(r#"{"a":[1,"x"],"b":2}"#)
    );
    assert_eq!(run("{.big}", &data, false).as_deref(), Ok("1e+21"));
    // A null read from the data prints `null`; the same value outside its interface is
    // the zero value, `<no value>`.
    assert_eq!(run("{.n}", &data, false).as_deref(), Ok("null"));
    let results = JsonPath::parse("{.n}")
        .unwrap()
        .find_results(&data)
        .unwrap();
    let first = results[0][0].interface();
    assert_eq!(print_results(&[first]).as_deref(), Ok("<no value>"));
    // Number and bool nodes map every input to themselves.
    assert_eq!(run("{.s 5}", &data, false).as_deref(), Ok("5"));
    // `..` lists the values with children only (a non-empty string has bytes).
    assert_eq!(
        run("{.m..}", &data, false).as_deref(),
        Ok(r#"{"a":[1,"x"],"b":2} [1,"x"] x"#)
    );
}

/// Work is bounded.
#[test]
fn bounded_work() {
    let data = json!({"a": [[1, 2], [3, 4]]});
    let union = format!("{{.a{}}}", "[0,0,0,0]".repeat(12));
    assert!(run(&union, &data, true).is_err());
    let deep = format!("{}{{.a}}", "{range .a[*]}".repeat(100));
    assert!(run(&deep, &data, true).is_err());
}
