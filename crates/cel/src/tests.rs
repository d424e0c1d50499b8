//! End-to-end tables for the parser: AST shapes and ids, locations, error texts, limits.

use crate::debug::{to_debug_string, Adorn};
use crate::*;

fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn opts_all() -> ParserOptions {
    ParserOptions {
        enable_optional_syntax: true,
        macros: MacroSet::standard()
            .with_two_var_comprehensions()
            .with_bindings()
            .with_optional(2),
        ..ParserOptions::default()
    }
}

fn tree(o: &ParserOptions, text: &str, adorn: Adorn) -> String {
    let src = Source::new(text);
    let (p, e) = Parser::new(o.clone()).parse(&src);
    assert!(e.is_empty(), "{text:?}: {}", e.to_display_string(&src));
    flat(&to_debug_string(&p, adorn))
}

fn errors(o: &ParserOptions, text: &str) -> String {
    let src = Source::new(text);
    let (_, e) = Parser::new(o.clone()).parse(&src);
    assert!(!e.is_empty(), "{text:?} parsed");
    e.to_display_string(&src)
}

/// Runs `f` on a thread with 1 MiB of stack (the browser's default; the wasm build links 8 MiB),
/// in debug builds, which use several times the stack of release builds.
fn small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn shapes() {
    let o = opts_all();
    let cases: &[(&str, &str)] = &[
        ("self.spec.replicas", "self.spec.replicas"),
        ("!!ok", "ok"),
        ("!ok", "!_( ok )"),
        ("--7", "7"),
        ("---7", "-_( 7 )"),
        ("-7.5", "-7.5"),
        ("- 3", "-3"),
        ("-x", "-_( x )"),
        ("-(1)", "-_( 1 )"),
        ("-1u", "-_( 1u )"),
        ("-9223372036854775808", "-9223372036854775808"),
        (
            "1 + 2 * 3 - 4 % 5",
            "_-_( _+_( 1, _*_( 2, 3 ) ), _%_( 4, 5 ) )",
        ),
        ("a < b == c", "_==_( _<_( a, b ), c )"),
        ("x in [1] && y", "_&&_( @in( x, [ 1 ] ), y )"),
        ("a ? b : c ? d : e", "_?_:_( a, b, _?_:_( c, d, e ) )"),
        ("a || b || c", "_||_( _||_( a, b ), c )"),
        ("f(g(x), .h)", "f( g( x ), .h )"),
        (".a.b(c)[d]", "_[_]( .a.b( c ), d )"),
        ("a.b.C{x: 1}", "a.b.C{ x:1 }"),
        ("{1: 'one', ?2: y}", "{ 1:\"one\", ?2:y }"),
        ("[?maybe, 2,]", "[ maybe, 2 ]"),
        ("a.?b[?0]", "_[?_]( _?._( a, \"b\" ), 0 )"),
        ("x.`a-b/c.d`", "x.a-b/c.d"),
        ("b'\\x00\\xff' + 'é\\n'", "_+_( b\"\\x00\\xff\", \"é\\n\" )"),
        (
            "r'\\d+' + '''two\nlines'''",
            "_+_( \"\\\\d+\", \"two\\nlines\" )",
        ),
        (
            "0x10 + 0x10u + 1e3 + .25 + 2.",
            "_+_( _+_( _+_( 16, 16u ), 1000 ), 0.25 )",
        ),
        ("has(a.b.c)", "a.b.c~test-only~"),
    ];
    for (text, want) in cases {
        if text.ends_with("2.") {
            // `2.` is the integer 2 followed by a dot: a syntax error.
            assert!(errors(&o, text).contains("Syntax error"), "{text}");
            continue;
        }
        assert_eq!(tree(&o, text, Adorn::None), *want, "{text}");
    }
}

#[test]
fn macro_shapes_and_ids() {
    let o = opts_all();
    let cases: &[(&str, &str)] = &[
        (
            "l.exists_one(e, e)",
            "__comprehension__( // Variable e, // Target l^#1:*expr.Expr_IdentExpr#, \
             // Accumulator @result, // Init 0^#5:*expr.Constant_Int64Value#, \
             // LoopCondition true^#6:*expr.Constant_BoolValue#, \
             // LoopStep _?_:_( e^#4:*expr.Expr_IdentExpr#, _+_( @result^#7:*expr.Expr_IdentExpr#, \
             1^#8:*expr.Constant_Int64Value# )^#9:*expr.Expr_CallExpr#, @result^#10:*expr.Expr_IdentExpr# \
             )^#11:*expr.Expr_CallExpr#, // Result _==_( @result^#12:*expr.Expr_IdentExpr#, \
             1^#13:*expr.Constant_Int64Value# )^#14:*expr.Expr_CallExpr#)^#15:*expr.Expr_ComprehensionExpr#",
        ),
        (
            "l.filter(e, e)",
            "__comprehension__( // Variable e, // Target l^#1:*expr.Expr_IdentExpr#, \
             // Accumulator @result, // Init []^#5:*expr.Expr_ListExpr#, \
             // LoopCondition true^#6:*expr.Constant_BoolValue#, \
             // LoopStep _?_:_( e^#4:*expr.Expr_IdentExpr#, _+_( @result^#7:*expr.Expr_IdentExpr#, \
             [ e^#3:*expr.Expr_IdentExpr# ]^#8:*expr.Expr_ListExpr# )^#9:*expr.Expr_CallExpr#, \
             @result^#10:*expr.Expr_IdentExpr# )^#11:*expr.Expr_CallExpr#, \
             // Result @result^#12:*expr.Expr_IdentExpr#)^#13:*expr.Expr_ComprehensionExpr#",
        ),
        (
            "m.transformList(i, v, v > 0, v)",
            "__comprehension__( // Variable i, v, // Target m^#1:*expr.Expr_IdentExpr#, \
             // Accumulator @result, // Init []^#14:*expr.Expr_ListExpr#, \
             // LoopCondition true^#15:*expr.Constant_BoolValue#, \
             // LoopStep _?_:_( _>_( v^#5:*expr.Expr_IdentExpr#, 0^#7:*expr.Constant_Int64Value# \
             )^#6:*expr.Expr_CallExpr#, _+_( @result^#9:*expr.Expr_IdentExpr#, \
             [ v^#8:*expr.Expr_IdentExpr# ]^#10:*expr.Expr_ListExpr# )^#11:*expr.Expr_CallExpr#, \
             @result^#12:*expr.Expr_IdentExpr# )^#13:*expr.Expr_CallExpr#, \
             // Result @result^#16:*expr.Expr_IdentExpr#)^#17:*expr.Expr_ComprehensionExpr#",
        ),
        (
            "m.transformMapEntry(k, v, {v: k})",
            "__comprehension__( // Variable k, v, // Target m^#1:*expr.Expr_IdentExpr#, \
             // Accumulator @result, // Init {}^#11:*expr.Expr_StructExpr#, \
             // LoopCondition true^#12:*expr.Constant_BoolValue#, \
             // LoopStep cel.@mapInsert( @result^#9:*expr.Expr_IdentExpr#, \
             { v^#7:*expr.Expr_IdentExpr#:k^#8:*expr.Expr_IdentExpr#^#6:*expr.Expr_CreateStruct_Entry# \
             }^#5:*expr.Expr_StructExpr# )^#10:*expr.Expr_CallExpr#, \
             // Result @result^#13:*expr.Expr_IdentExpr#)^#14:*expr.Expr_ComprehensionExpr#",
        ),
        (
            "o.optFlatMap(x, x.y)",
            "_?_:_( o^#1:*expr.Expr_IdentExpr#.hasValue()^#6:*expr.Expr_CallExpr#, \
             __comprehension__( // Variable #unused, // Target []^#7:*expr.Expr_ListExpr#, \
             // Accumulator x, // Init o^#8:*expr.Expr_IdentExpr#.value()^#9:*expr.Expr_CallExpr#, \
             // LoopCondition false^#10:*expr.Constant_BoolValue#, \
             // LoopStep x^#11:*expr.Expr_IdentExpr#, \
             // Result x^#4:*expr.Expr_IdentExpr#.y^#5:*expr.Expr_SelectExpr#)^#12:*expr.Expr_ComprehensionExpr#, \
             optional.none()^#13:*expr.Expr_CallExpr# )^#14:*expr.Expr_CallExpr#",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(tree(&o, text, Adorn::KindAndId), flat(want), "{text}");
    }
    // cel.bind only expands on the `cel` namespace; elsewhere it stays a call.
    assert_eq!(
        tree(&o, "x.bind(a, 1, a)", Adorn::None),
        "x.bind( a, 1, a )"
    );
    // The hidden accumulator can be turned off.
    let legacy = ParserOptions {
        enable_hidden_accumulator_name: false,
        ..ParserOptions::default()
    };
    assert!(tree(&legacy, "l.all(e, e)", Adorn::None).contains("__result__"));
    // Without the two-variable library, the 3-argument forms are plain calls.
    assert_eq!(
        tree(&ParserOptions::default(), "m.all(k, v, v)", Adorn::None),
        "m.all( k, v, v )"
    );
}

#[test]
fn locations() {
    let o = opts_all();
    let cases: &[(&str, &str)] = &[
        (
            "a.b +\n  c[0]",
            "_+_( a^#1[1,0]#.b^#2[1,1]#, _[_]( c^#4[2,2]#, 0^#6[2,4]# )^#5[2,3]# )^#3[1,4]#",
        ),
        (
            "x.all(y, y)",
            "__comprehension__( // Variable y, // Target x^#1[1,0]#, // Accumulator @result, \
             // Init true^#5[1,5]#, // LoopCondition @not_strictly_false( @result^#6[1,5]# )^#7[1,5]#, \
             // LoopStep _&&_( @result^#8[1,5]#, y^#4[1,9]# )^#9[1,5]#, \
             // Result @result^#10[1,5]#)^#11[1,5]#",
        ),
        ("'é' + x", "_+_( \"é\"^#1[1,0]#, x^#3[1,6]# )^#2[1,4]#"),
    ];
    for (text, want) in cases {
        assert_eq!(tree(&o, text, Adorn::Location), flat(want), "{text}");
    }
    // Offsets are code points; stops add the token's byte length, as cel-go does.
    let p = Parser::new(o).parse_text("'é' + x").unwrap();
    assert_eq!(
        p.source_info.offset_range(1),
        Some(OffsetRange { start: 0, stop: 4 })
    );
}

#[test]
fn error_texts() {
    let std = ParserOptions::default();
    let cases: &[(&str, &str)] = &[
        (
            "a +",
            "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | a +\n | ...^",
        ),
        (
            "a b",
            "ERROR: <input>:1:3: Syntax error: extraneous input 'b' expecting <EOF>\n | a b\n | ..^",
        ),
        (
            "f(a",
            "ERROR: <input>:1:4: Syntax error: missing ')' at '<EOF>'\n | f(a\n | ...^",
        ),
        (
            "x.false",
            "ERROR: <input>:1:3: Syntax error: mismatched input 'false' expecting IDENTIFIER\n | x.false\n | ..^",
        ),
        (
            "x. null",
            "ERROR: <input>:1:4: Syntax error: no viable alternative at input '. null'\n | x. null\n | ...^",
        ),
        (
            "c ? t",
            "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting ':'\n | c ? t\n | .....^",
        ),
        (
            "{'k': 1",
            "ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting {'}', ','}\n | {'k': 1\n | .......^",
        ),
        (
            "x #",
            "ERROR: <input>:1:3: Syntax error: token recognition error at: '#'\n | x #\n | ..^",
        ),
        (
            "'open\n+ 1",
            "ERROR: <input>:1:1: Syntax error: token recognition error at: ''open\\n'\n | 'open\n | ^\nERROR: <input>:2:1: Syntax error: extraneous input '+' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | + 1\n | ^",
        ),
        (
            "while",
            "ERROR: <input>:1:1: reserved identifier: while\n | while\n | ^",
        ),
        ("if(x)", "ERROR: <input>:1:1: reserved identifier: if\n | if(x)\n | ^"),
        ("a.?b", "ERROR: <input>:1:2: unsupported syntax '.?'\n | a.?b\n | .^"),
        ("a[?0]", "ERROR: <input>:1:2: unsupported syntax '[?'\n | a[?0]\n | .^"),
        ("[?a]", "ERROR: <input>:1:2: unsupported syntax '?'\n | [?a]\n | .^"),
        ("{?a: 1}", "ERROR: <input>:1:2: unsupported syntax '?'\n | {?a: 1}\n | .^"),
        (
            "l.all(f(x), x)",
            "ERROR: <input>:1:8: argument must be a simple name\n | l.all(f(x), x)\n | .......^",
        ),
        (
            "l.map(1, x)",
            "ERROR: <input>:1:7: argument is not an identifier\n | l.map(1, x)\n | ......^",
        ),
        (
            "l.exists(@result, x)",
            "ERROR: <input>:1:10: Syntax error: token recognition error at: '@'\n | l.exists(@result, x)\n | .........^",
        ),
        (
            "l.exists(__result__, x)",
            "ERROR: <input>:1:10: iteration variable overwrites accumulator variable\n | l.exists(__result__, x)\n | .........^",
        ),
        ("has(x)", "ERROR: <input>:1:5: invalid argument to has() macro\n | has(x)\n | ....^"),
        (
            "9223372036854775808",
            "ERROR: <input>:1:1: invalid int literal\n | 9223372036854775808\n | ^",
        ),
        (
            "18446744073709551616u",
            "ERROR: <input>:1:1: invalid uint literal\n | 18446744073709551616u\n | ^",
        ),
        ("1e999", "ERROR: <input>:1:1: invalid double literal\n | 1e999\n | ^"),
        (
            "b'\\u00e9'",
            "ERROR: <input>:1:1: unable to unescape string\n | b'\\u00e9'\n | ^",
        ),
        (
            "'\\ud800'",
            "ERROR: <input>:1:1: invalid unicode code point\n | '\\ud800'\n | ^",
        ),
        (
            "\tx +",
            "ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n |  x +\n | ....^",
        ),
        (
            "'日本' +",
            "ERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | '日本' +\n | .．．...^",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(errors(&std, text), *want, "{text}");
    }
    // Escaped identifiers can be disabled.
    let no_escape = ParserOptions {
        enable_ident_escape_syntax: false,
        ..ParserOptions::default()
    };
    assert_eq!(
        errors(&no_escape, "a.`b c`"),
        "ERROR: <input>:1:3: unsupported syntax: '`'\n | a.`b c`\n | ..^"
    );
    // Two-variable macro argument errors.
    let o = opts_all();
    assert_eq!(
        errors(&o, "m.all(k, k, true)"),
        "ERROR: <input>:1:10: duplicate variable name: k\n | m.all(k, k, true)\n | .........^"
    );
    assert_eq!(
        errors(&o, "cel.bind(a.b, 1, 2)"),
        "ERROR: <input>:1:11: cel.bind() variable names must be simple identifiers\n | cel.bind(a.b, 1, 2)\n | ..........^"
    );
    assert_eq!(
        errors(&o, "o.optMap(1, 2)"),
        "ERROR: <input>:1:10: optMap() variable name must be a simple identifier\n | o.optMap(1, 2)\n | .........^"
    );
}

#[test]
fn recursion_limits_as_kubernetes_tests_them() {
    small_stack(|| {
        let std = ParserOptions::default();
        // 249 chained `==` parse; 250 exceed cel-go's visitor depth.
        let ok = format!("{}self.val1", "self.val1 == ".repeat(249));
        assert!(Parser::new(std.clone()).parse_text(&ok).is_ok());
        let deep = format!("{}self.val1", "self.val1 == ".repeat(250));
        assert_eq!(
            Parser::new(std.clone())
                .parse_text(&deep)
                .unwrap_err()
                .to_string(),
            "ERROR: <input>:-1:0: max recursion depth exceeded"
        );
        // Nesting is bounded by the parse listener, per grammar rule.
        let nested = |n: usize| format!("{}x{}", "[".repeat(n), "]".repeat(n));
        assert!(Parser::new(std.clone()).parse_text(&nested(249)).is_ok());
        assert_eq!(
            Parser::new(std.clone())
                .parse_text(&nested(250))
                .unwrap_err()
                .to_string(),
            "ERROR: <input>:-1:0: expression recursion limit exceeded: 250"
        );
        // Long chains are loops in the parser, and the visitor stops at the depth limit.
        let chain = format!("{}x", "x + ".repeat(10_000));
        assert_eq!(
            Parser::new(std.clone())
                .parse_text(&chain)
                .unwrap_err()
                .to_string(),
            "ERROR: <input>:-1:0: max recursion depth exceeded"
        );
        // `||` and `&&` chains are balanced trees, not limited by depth.
        let ors = format!("{}x", "x || ".repeat(10_000));
        assert!(Parser::new(std.clone()).parse_text(&ors).is_ok());
        // A configured limit below the default.
        let small = ParserOptions {
            max_recursion_depth: 3,
            ..ParserOptions::default()
        };
        assert!(Parser::new(small.clone()).parse_text("a.b.c.d").is_ok());
        assert!(Parser::new(small).parse_text("a.b.c.d.e").is_err());
    });
}

#[test]
fn deepest_inputs_fit_a_small_stack() {
    small_stack(|| {
        let n = 249;
        let cases = [
            format!("{}x{}", "(".repeat(n), ")".repeat(n)),
            format!("{}x{}", "[".repeat(n), "]".repeat(n)),
            format!("{}x{}", "f(".repeat(n), ")".repeat(n)),
            format!("{}x{}", "{x: ".repeat(n), "}".repeat(n)),
            format!("x{}{}", "[x".repeat(n), "]".repeat(n)),
            format!("{}z", "a ? b : ".repeat(n - 1)),
            format!("x{}", ".y".repeat(n)),
            format!("{}x", "x * ".repeat(n)),
            format!("{}x{}", "[1].all(x, ".repeat(120), ")".repeat(120)),
        ];
        for text in cases {
            let r = parse(&text);
            assert!(r.is_ok(), "{}", r.unwrap_err());
        }
        let long = format!("x{}", ".y".repeat(100_000 / 2 - 1));
        assert!(parse(&long).is_err());
    });
}

#[test]
fn size_and_error_count_limits() {
    let big = "1".repeat(100_001);
    assert_eq!(
        parse(&big).unwrap_err().to_string(),
        "ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100001, limit 100000"
    );
    assert!(parse(&"1".repeat(100_000))
        .unwrap_err()
        .to_string()
        .contains("invalid int literal"));
    // Error recovery gives up after 30 attempts.
    let junk = "+ ".repeat(50);
    let shown = parse(&format!("1 {junk}")).unwrap_err().to_string();
    assert!(
        shown.contains("error recovery attempt limit exceeded: 30"),
        "{shown}"
    );
    // 100 errors are shown, the rest counted.
    let hashes = "#".repeat(150);
    let shown = parse(&hashes).unwrap_err().to_string();
    assert!(shown.ends_with("1 more errors were truncated"), "{shown}");
    // The 101st report is "More than 100 syntax errors", which is counted but not kept.
    assert_eq!(shown.matches("token recognition error").count(), 100);
}

#[test]
fn never_panics_on_junk() {
    small_stack(|| {
        let pieces = [
            "(", ")", "[", "]", "{", "}", ".", ",", ":", "?", "!", "-", "+", "==", "in", "&&",
            "||", "x", "1", "2.5", "3u", "'s'", "b'b'", "`a b`", "has", "all", "cel", "bind", "\n",
            "\"", "#", "r'", "'''", "\\", "é", "0x", "1e", ".?", "[?", "{?",
        ];
        // A small deterministic generator (no randomness in the crate).
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let o = opts_all();
        for _ in 0..3000 {
            let mut text = String::new();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let n = (state % 30) as usize;
            for _ in 0..n {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push_str(pieces[(state % pieces.len() as u64) as usize]);
            }
            let src = Source::new(&text);
            let (_, e) = Parser::new(o.clone()).parse(&src);
            let _ = e.to_display_string(&src);
        }
        // Deep junk of every nesting kind stops at the limits.
        for open in ["(", "[", "{", "f(", "x[", "!(", "-(", "a ? b : ", "{x: "] {
            let text = open.repeat(5000);
            assert!(parse(&text).is_err());
        }
    });
}
