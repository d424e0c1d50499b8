//! Syntax errors against a table of 250 malformed inputs (`syntax_errors.json`).
//!
//! The inputs were generated (mutations of valid expressions, random token sequences, random
//! characters); the expected errors are what ANTLR's own runtime reports for cel-go's grammar
//! (its serialized ATN run by the reference Python runtime, with that runtime's differences from
//! the Go runtime cel-go uses corrected), with cel-go's rewrite of reserved words applied. Each
//! entry is `[input, [[line, column, message], ...]]` in reporting order, the `Syntax error: `
//! prefix left out.

use crd_studio_cel::{Parser, ParserOptions, Source};

#[test]
fn syntax_errors_match_antlr() {
    let table: serde_json::Value =
        serde_json::from_str(include_str!("syntax_errors.json")).expect("valid table");
    let cases = table.as_array().expect("array");
    assert_eq!(cases.len(), 250);
    let parser = Parser::new(ParserOptions {
        enable_optional_syntax: true,
        ..ParserOptions::default()
    });
    let mut failures = Vec::new();
    for case in cases {
        let input = case[0].as_str().expect("input");
        let want: Vec<(i64, i64, String)> = case[1]
            .as_array()
            .expect("errors")
            .iter()
            .map(|e| {
                (
                    e[0].as_i64().expect("line"),
                    e[1].as_i64().expect("column"),
                    e[2].as_str().expect("message").to_string(),
                )
            })
            .collect();
        let (_, errors) = parser.parse(&Source::new(input));
        let got: Vec<(i64, i64, String)> = errors
            .errors()
            .iter()
            .filter_map(|e| {
                e.message.strip_prefix("Syntax error: ").map(|m| {
                    (
                        i64::from(e.location.line),
                        i64::from(e.location.column),
                        m.to_string(),
                    )
                })
            })
            .collect();
        if got != want {
            failures.push(format!("{input:?}\n  got  {got:?}\n  want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
