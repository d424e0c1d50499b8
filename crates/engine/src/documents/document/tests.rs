use super::*;
use crate::documents::finding::Severity;

fn one(text: &str) -> ParsedText {
    parse(text, SourceId::Object(0))
}

fn root_json(text: &str) -> serde_json::Value {
    let p = one(text);
    p.documents
        .first()
        .and_then(|d| d.root.as_ref())
        .map(Node::to_json)
        .unwrap_or(serde_json::Value::Null)
}

#[test]
fn yaml11_scalars() {
    let v = root_json(
        "a: yes\nb: NO\nc: on\nd: ~\ne: 0777\nf: 1_000\ng: 0x1F\nh: 0b101\ni: 1.0\nj: 1.5\nk: 'yes'\nl: 2001-12-14\nm: 1e3\nhalf: .5\no: 08\np: -0b11\nq: +12\nr: 12345678901234567890\ns:\nt: 0o17\ny: key\n",
    );
    assert_eq!(
        v,
        serde_json::json!({
            "a": true, "b": false, "c": true, "d": null, "e": 511, "f": 1000, "g": 31,
            "h": 5, "i": 1, "j": 1.5, "k": "yes", "l": "2001-12-14", "m": 1000, "half": 0.5,
            "o": 8, "p": -3, "q": 12, "r": 12345678901234567890.0, "s": null, "t": 15,
            "true": "key"
        })
    );
}

#[test]
fn yaml11_surprises_are_warnings_at_their_location() {
    let p = one("country: NO\nmode: 0755\nok: true\n");
    let codes: Vec<_> = p
        .findings
        .iter()
        .map(|f| {
            (
                f.code.as_str(),
                f.severity,
                f.location.map(|l| l.span.start.line),
            )
        })
        .collect();
    assert_eq!(
        codes,
        vec![
            ("yaml.yaml11-bool", Severity::Warning, Some(1)),
            ("yaml.yaml11-int", Severity::Warning, Some(2)),
        ]
    );
    let first = p
        .findings
        .first()
        .map(|f| f.message.clone())
        .unwrap_or_default();
    assert!(first.contains("`NO` became false"), "{first}");
    let loc = p
        .findings
        .first()
        .and_then(|f| f.location)
        .map(|l| l.span.start.column);
    assert_eq!(loc, Some(10));
}

#[test]
fn non_finite_numbers_are_errors() {
    let p = one("a: .nan\n");
    assert_eq!(p.findings.len(), 1);
    assert_eq!(
        p.findings.first().map(|f| f.message.as_str()),
        Some("error converting YAML to JSON: json: unsupported value: NaN")
    );
}

#[test]
fn positions_with_multibyte_characters() {
    let text = "name: \"héllo😀\"\nnext: x\n";
    let p = one(text);
    let root = p.documents.first().and_then(|d| d.root.as_ref()).cloned();
    let root = root.unwrap_or(Node {
        value: Value::Null,
        span: Span::default(),
    });
    let name = root.get("name").map(|n| n.span).unwrap_or_default();
    assert_eq!(
        (name.start.line, name.start.column, name.start.offset),
        (1, 7, 6)
    );
    // "héllo😀" with quotes: 8 chars, 9 UTF-16 units, 12 bytes.
    assert_eq!(name.end.column, 15);
    assert_eq!(name.end.utf16_column, 16);
    assert_eq!(name.end.offset, 6 + 12);
    let next = root.entry("next").map(|e| e.key_span).unwrap_or_default();
    assert_eq!(
        (next.start.line, next.start.column, next.start.offset),
        (2, 1, 19)
    );
}

#[test]
fn anchors_aliases_and_merge_keys() {
    let v = root_json(
        "base: &b {x: 1, z: 2}\nlist: &l [1, 2]\ncopy: *b\nlist2: *l\nmerged:\n  <<: *b\n  z: 3\nmulti:\n  <<: [{a: 1}, {a: 2, b: 2}]\n",
    );
    assert_eq!(
        v,
        serde_json::json!({
            "base": {"x": 1, "z": 2}, "list": [1, 2], "copy": {"x": 1, "z": 2},
            "list2": [1, 2], "merged": {"x": 1, "z": 3}, "multi": {"a": 1, "b": 2}
        })
    );
}

#[test]
fn alias_bomb_is_refused() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let prev = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
        ));
    }
    let p = one(&text);
    assert!(p
        .findings
        .iter()
        .any(|f| f.code == "yaml.excessive-aliasing"));
    assert!(p.documents.iter().all(|d| d.root.is_none()));
}

#[test]
fn multi_document_files() {
    let p = one("a: 1\n---\n# only a comment\n---\nb: 2\n...\n---\n[1, 2]\n");
    let roots: Vec<_> = p
        .documents
        .iter()
        .map(|d| d.root.as_ref().map(Node::to_json))
        .collect();
    assert_eq!(
        roots,
        vec![
            Some(serde_json::json!({"a": 1})),
            None,
            Some(serde_json::json!({"b": 2})),
            Some(serde_json::json!([1, 2])),
        ]
    );
    let b = p
        .documents
        .get(2)
        .and_then(|d| d.root.as_ref())
        .map(|r| r.span.start.line);
    assert_eq!(b, Some(5));
}

#[test]
fn duplicate_keys_are_findings_and_the_last_value_wins() {
    let p = one("spec:\n  a: 1\n  b: 2\n  a: 3\n");
    assert_eq!(p.findings.len(), 1);
    let f = p.findings.first().cloned();
    let f = f.unwrap_or_else(|| Finding::error("x", "x"));
    assert_eq!(f.code, "yaml.duplicate-key");
    assert_eq!(
        f.location.map(|l| (l.span.start.line, l.span.start.column)),
        Some((4, 3))
    );
    assert_eq!(
        p.documents
            .first()
            .and_then(|d| d.root.as_ref())
            .map(Node::to_json),
        Some(serde_json::json!({"spec": {"a": 3, "b": 2}}))
    );
}

#[test]
fn duplicate_keys_in_maps_large_enough_for_a_key_index() {
    // 20 keys: past `INDEX_FROM`, duplicates of keys before and after the index was built.
    let mut text = String::from("spec:\n");
    for i in 0..20 {
        text.push_str(&format!("  k{i}: {i}\n"));
    }
    text.push_str("  k0: first\n  k19: last\n  k20: new\n");
    let p = one(&text);
    let codes: Vec<&str> = p.findings.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["yaml.duplicate-key", "yaml.duplicate-key"]);
    let root = p
        .documents
        .first()
        .and_then(|d| d.root.as_ref())
        .map(Node::to_json);
    let spec = root.as_ref().and_then(|r| r.get("spec"));
    assert_eq!(
        spec.and_then(|s| s.get("k0")),
        Some(&serde_json::json!("first"))
    );
    assert_eq!(
        spec.and_then(|s| s.get("k19")),
        Some(&serde_json::json!("last"))
    );
    assert_eq!(spec.and_then(|s| s.as_object()).map(|m| m.len()), Some(21));
    // Keys keep their written order.
    let keys: Vec<String> = p
        .documents
        .first()
        .and_then(|d| d.root.as_ref())
        .and_then(|r| r.get("spec"))
        .and_then(Node::as_map)
        .map(|m| m.iter().map(|e| e.key.clone()).collect())
        .unwrap_or_default();
    assert_eq!(keys.first().map(String::as_str), Some("k0"));
    assert_eq!(keys.last().map(String::as_str), Some("k20"));
}

#[test]
fn non_string_keys_keep_their_text() {
    let p = one("m:\n  1: a\n  true: b\n  1.5: c\n  [x]: d\n");
    let codes: Vec<&str> = p.findings.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["yaml.unsupported-key"]);
    let msg = p.findings.first().map(|f| f.message.clone());
    assert_eq!(
        msg.as_deref(),
        Some("yaml: invalid map key: an array cannot be a key")
    );
}

#[test]
fn go_yaml_accepts_what_libyaml_accepts() {
    // A quoted scalar continued on a line indented like its key: libyaml (and so go-yaml)
    // accepts it; stricter YAML 1.2 parsers do not.
    let v = root_json("spec:\n  args: ['\n    echo 1;\n  ']\n");
    assert_eq!(v, serde_json::json!({"spec": {"args": [" echo 1; "]}}));
}

#[test]
fn syntax_error_messages_follow_go_yaml() {
    let msg = |text: &str| {
        let p = one(text);
        p.findings
            .first()
            .map(|f| f.message.clone())
            .unwrap_or_default()
    };
    assert_eq!(
        msg("a: 1\nb: c: d\n"),
        "yaml: line 2: mapping values are not allowed in this context"
    );
    // go-yaml leaves the line out when the problem is on the first line (0-based line 0).
    assert_eq!(
        msg("a: b: c\n"),
        "yaml: mapping values are not allowed in this context"
    );
}

#[test]
fn syntax_errors_keep_earlier_documents() {
    let p = one("a: 1\n---\nb: [1, 2\nc: 3\n");
    assert_eq!(p.findings.len(), 1);
    let f = p
        .findings
        .first()
        .cloned()
        .unwrap_or_else(|| Finding::error("x", "x"));
    assert_eq!(f.code, "yaml.syntax");
    assert!(f.location.is_some());
    assert_eq!(
        p.documents
            .first()
            .and_then(|d| d.root.as_ref())
            .map(Node::to_json),
        Some(serde_json::json!({"a": 1}))
    );
}

#[test]
fn json_documents() {
    let v = root_json("{\"a\": [1, 2.5, true, null, \"s\"], \"b\": {\"c\": -1}}");
    assert_eq!(
        v,
        serde_json::json!({"a": [1, 2.5, true, null, "s"], "b": {"c": -1}})
    );
}

#[test]
fn non_string_keys() {
    let v = root_json("1: a\ntrue: b\n1.5: c\n");
    assert_eq!(v, serde_json::json!({"1": "a", "true": "b", "1.5": "c"}));
    let p = one("? [1, 2]\n: x\n~: y\n");
    assert_eq!(
        p.findings
            .iter()
            .filter(|f| f.code == "yaml.unsupported-key")
            .count(),
        2
    );
}

#[test]
fn size_limit() {
    let text = "a: ".to_owned() + &"x".repeat(MAX_REQUEST_BYTES);
    let p = one(&text);
    assert_eq!(p.documents.len(), 0);
    assert_eq!(
        p.findings.first().map(|f| f.message.as_str()),
        Some("Request entity too large: limit is 3145728")
    );
}

#[test]
fn depth_limit_and_deep_trees_do_not_overflow() {
    // Block sequences can nest on one line: `- - - x`.
    let deep_ok = "- ".repeat(MAX_DEPTH - 1) + "x";
    let p = one(&deep_ok);
    assert!(p.findings.is_empty(), "{:?}", p.findings.first());
    let json = p
        .documents
        .first()
        .and_then(|d| d.root.as_ref())
        .map(Node::to_json);
    assert!(json.is_some());
    let too_deep = "- ".repeat(MAX_DEPTH + 1) + "x";
    let p = one(&too_deep);
    assert!(p.findings.iter().any(|f| f.severity == Severity::Error));
    assert!(p.documents.iter().all(|d| d.root.is_none()));
}

#[test]
fn garbage_never_panics() {
    for text in [
        "",
        "\u{feff}",
        ":",
        "- - -",
        "{",
        "]",
        "a: *nope",
        "&a [*a]",
        "? ? ?",
        "\t- x",
        "a: |\n  b\n c",
        "'unterminated",
        "a: \"\\u12\"",
        "<<: 5",
        "<<: [1]",
        "---\n...\n...",
        "\u{0}",
        "a:\u{85}b",
        "%YAML 1.1\n---\na: b",
        "!!binary aGVsbG8=",
        "!foo bar",
    ] {
        let _ = one(text);
    }
}

#[test]
fn float_keys_use_go_formatting() {
    assert_eq!(format_float_key(1.5), "1.5");
    assert_eq!(format_float_key(1e30), "1e+30");
    assert_eq!(format_float_key(0.1), "0.1");
    assert_eq!(format_float_key(-2.25), "-2.25");
    assert_eq!(format_float_key(123456789.123), "1.2345679e+08");
    assert_eq!(format_float_key(1000.0), "1000");
}

#[test]
fn yaml_style_float_regex() {
    for ok in ["1.", ".5", "1.5e3", "-1", "+1.0E-2", "08"] {
        assert!(yaml_style_float(ok), "{ok}");
    }
    for bad in ["", ".", "e3", "1e", "1.5.5", "0x1", "1_0"] {
        assert!(!yaml_style_float(bad), "{bad}");
    }
}
