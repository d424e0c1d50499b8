//! The CEL tab's rule editor: a new rule text written into the CRD text at the rule's scalar
//! ([`crate::CelRuleReport::text_range`]), as an edit the shell applies ([`rule_edit`]).
//!
//! The rule is written as a YAML double-quoted scalar (valid JSON too), or as a plain scalar
//! when it was written plain and the new text reads back the same as a plain scalar in any
//! context a rule can be in ([`is_safe_plain`]: not a YAML 1.1 boolean or null, no
//! indicator that would end or change the scalar). An anchor or tag before the scalar is
//! kept.

use serde::{Deserialize, Serialize};

use crate::documents::finding::TextEdit;
use crate::documents::position::{LineIndex, Span};

/// How a scalar is written in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScalarStyle {
    /// `self.x > 0`
    Plain,
    /// `'self.x > 0'`
    SingleQuoted,
    /// `"self.x > 0"` (and JSON strings)
    DoubleQuoted,
    /// `|` or `>` block scalars.
    Block,
}

/// The anchor and tag written before a scalar (`&a !!str `), kept by a rewrite, and the rest.
fn split_properties(written: &str) -> (&str, &str) {
    let mut rest = written;
    while rest.starts_with('&') || rest.starts_with('!') {
        let token = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let after = rest.get(token..).unwrap_or("");
        let skipped = after.len() - after.trim_start().len();
        if skipped == 0 {
            break;
        }
        rest = after.get(skipped..).unwrap_or("");
    }
    let properties = written.get(..written.len() - rest.len()).unwrap_or("");
    (properties, rest)
}

/// The style of a scalar as written (anchor and tag ignored). Empty text counts as plain.
pub fn scalar_style(written: &str) -> ScalarStyle {
    let (_, scalar) = split_properties(written);
    match scalar.as_bytes().first() {
        Some(b'"') => ScalarStyle::DoubleQuoted,
        Some(b'\'') => ScalarStyle::SingleQuoted,
        Some(b'|' | b'>') => ScalarStyle::Block,
        _ => ScalarStyle::Plain,
    }
}

/// `s` as a YAML double-quoted scalar that is also a JSON string: `\` and `"` escaped, line
/// breaks as `\n`, other characters YAML or JSON would not take as they are as `\uXXXX`.
pub fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // C0/C1 controls, DEL, YAML 1.1 line breaks (NEL, LS, PS), BOM, non-characters.
            c if (c as u32) < 0x20
                || ('\u{7f}'..='\u{9f}').contains(&c)
                || matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                ) =>
            {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `s` can be written as a plain scalar anywhere a rule is (block or flow context) and
/// still read back as the same string: one line, no surrounding blanks, starting with a
/// letter, `_` or `(`, none of `#`, `:`, `,`, `[`, `]`, `{`, `}`, tabs or other controls, and
/// not a YAML 1.1 boolean or null.
pub fn is_safe_plain(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if !(first.is_ascii_alphabetic() || first == '_' || first == '(') {
        return false;
    }
    if s.trim() != s {
        return false;
    }
    if s.chars().any(|c| {
        matches!(c, '#' | ':' | ',' | '[' | ']' | '{' | '}')
            || c.is_control()
            || matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            )
    }) {
        return false;
    }
    const YAML11_WORDS: [&str; 12] = [
        "y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf", "~",
    ];
    !YAML11_WORDS.contains(&s.to_ascii_lowercase().as_str())
}

/// What [`rule_edit`] gives: the edit, and where the rule's scalar is once it is applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleEdit {
    /// The edit of the CRD text (apply it with [`crate::finding::apply_text_edits`]).
    pub edit: TextEdit,
    /// The byte range of the rule's scalar in the edited text (anchor and tag included, as
    /// the engine reports [`crate::CelRuleReport::text_range`]), for the next keystroke.
    pub range: (usize, usize),
    /// The style written.
    pub style: ScalarStyle,
}

/// The edit that replaces the rule scalar at byte `range` of the CRD text `text` by `rule`:
/// a plain scalar when `plain` is allowed (the rule was written plain: [`scalar_style`] of
/// the analysed scalar) and [`is_safe_plain`] says it can be, else a [`double_quoted`]
/// scalar. An anchor or tag before the scalar is kept; a rule with no text yet (`rule:`)
/// gets a space after the colon. `None` when the range is not in the text.
pub fn rule_edit(text: &str, range: (usize, usize), rule: &str, plain: bool) -> Option<RuleEdit> {
    let (start, end) = range;
    let written = text.get(start..end)?;
    let (properties, _) = split_properties(written);
    let style = if plain && is_safe_plain(rule) {
        ScalarStyle::Plain
    } else {
        ScalarStyle::DoubleQuoted
    };
    let scalar = match style {
        ScalarStyle::Plain => rule.to_owned(),
        _ => double_quoted(rule),
    };
    let gap = if written.is_empty() && text.get(..start)?.ends_with(':') {
        " "
    } else {
        ""
    };
    let new_text = format!("{gap}{properties}{scalar}");
    let lines = LineIndex::new(text);
    let new_start = start + gap.len();
    Some(RuleEdit {
        range: (new_start, start + new_text.len()),
        edit: TextEdit {
            span: Span {
                start: lines.pos_at_offset(text, start),
                end: lines.pos_at_offset(text, end),
            },
            new_text,
        },
        style,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::finding::apply_text_edits;
    use crate::{analyze, Analysis, Request};

    /// `text` with the rule rewritten: the new text and the scalar's range in it.
    fn rewrite(
        text: &str,
        range: (usize, usize),
        rule: &str,
        plain: bool,
    ) -> Option<(String, (usize, usize), ScalarStyle)> {
        let e = rule_edit(text, range, rule, plain)?;
        let out = apply_text_edits(text, std::slice::from_ref(&e.edit))?;
        Some((out, e.range, e.style))
    }

    #[test]
    fn double_quoting() {
        assert_eq!(double_quoted("self.a == 1"), "\"self.a == 1\"");
        assert_eq!(
            double_quoted("self.s == \"x\\y\"\n&& true"),
            r#""self.s == \"x\\y\"\n&& true""#
        );
        assert_eq!(
            double_quoted("a\tb\u{0}\u{85}\u{2028}é😀"),
            "\"a\\tb\\u0000\\u0085\\u2028é😀\""
        );
    }

    #[test]
    fn safe_plain_scalars() {
        for s in [
            "self.size() > 0",
            "self == oldSelf",
            "has(self.a) || self.b != 'x'",
            "(self.a + 1) * 2 > 3",
            "_x == 1",
        ] {
            assert!(is_safe_plain(s), "{s}");
        }
        for s in [
            "",
            " self",
            "self ",
            "!has(self.a)",
            "'a' == self",
            "\"a\" == self",
            "self.x # y",
            "a ? b : c",
            "self in [1, 2]",
            "{'a': 1} == self",
            "self.all(x, x > 0)",
            "a\nb",
            "a\tb",
            "1 < self",
            "-1 < self",
            "true",
            "No",
            "NULL",
            "y",
            "&a",
            "*a",
            "|",
            ">",
            "%a",
            "@a",
            "`a`",
        ] {
            assert!(!is_safe_plain(s), "{s:?}");
        }
    }

    #[test]
    fn styles_as_written() {
        assert_eq!(scalar_style("self > 0"), ScalarStyle::Plain);
        assert_eq!(scalar_style("\"self > 0\""), ScalarStyle::DoubleQuoted);
        assert_eq!(scalar_style("'self > 0'"), ScalarStyle::SingleQuoted);
        assert_eq!(scalar_style("|\n  self > 0"), ScalarStyle::Block);
        assert_eq!(scalar_style(">-\n  self > 0"), ScalarStyle::Block);
        assert_eq!(scalar_style("&a !!str \"self\""), ScalarStyle::DoubleQuoted);
        assert_eq!(scalar_style("!!str self"), ScalarStyle::Plain);
        assert_eq!(split_properties("&a !!str 'x'"), ("&a !!str ", "'x'"));
        assert_eq!(split_properties("!x"), ("", "!x"));
    }

    #[test]
    fn rewrite_keeps_plain_style_when_it_can() {
        let text = "- rule: self.size() > 0\n  message: m\n";
        let range = (8, 23);
        assert_eq!(&text[range.0..range.1], "self.size() > 0");
        let (t, r, style) = rewrite(text, range, "self.size() > 20", true).unwrap();
        assert_eq!(t, "- rule: self.size() > 20\n  message: m\n");
        assert_eq!(style, ScalarStyle::Plain);
        assert_eq!(&t[r.0..r.1], "self.size() > 20");
        let (t, _, style) = rewrite(text, range, "!has(self.x)", true).unwrap();
        assert_eq!(t, "- rule: \"!has(self.x)\"\n  message: m\n");
        assert_eq!(style, ScalarStyle::DoubleQuoted);
        let (t, _, _) = rewrite(text, range, "self.size() > 20", false).unwrap();
        assert_eq!(t, "- rule: \"self.size() > 20\"\n  message: m\n");
        // Out of range or inside a character: nothing.
        assert_eq!(rule_edit(text, (8, 99), "x", true), None);
        assert_eq!(rule_edit("é", (1, 2), "x", true), None);
        // Anchors and tags stay; an empty scalar gets its space.
        let (t, r, _) = rewrite("rule: &r 'a'\n", (6, 12), "b", false).unwrap();
        assert_eq!(t, "rule: &r \"b\"\n");
        assert_eq!(r, (6, 12));
        let (t, r, _) = rewrite("rule:\n", (5, 5), "b", false).unwrap();
        assert_eq!(t, "rule: \"b\"\n");
        assert_eq!(&t[r.0..r.1], "\"b\"");
    }

    /// The edit's span is a place in the text: line, column and UTF-16 column.
    #[test]
    fn the_edit_names_its_place() {
        let text = "a: 1\n- {d: é😀, rule: x}\n";
        assert_eq!(&text[25..26], "x");
        let e = rule_edit(text, (25, 26), "y", true).unwrap();
        let s = e.edit.span;
        assert_eq!(
            (s.start.line, s.start.column, s.start.utf16_column),
            (2, 17, 18)
        );
        assert_eq!(
            (s.end.offset, s.end.column, s.end.utf16_column),
            (26, 18, 19)
        );
    }

    const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec:
                type: string
                x-kubernetes-validations:
                - rule: self.size() > 0
";
    const OBJECT: &str = "apiVersion: example.com/v1
kind: Widget
metadata: {name: a}
spec: {cronSpec: x}
";

    fn run(crd: &str, object: &str) -> Analysis {
        analyze(&Request {
            crd: crd.to_owned(),
            objects: vec![object.to_owned()],
            ..Request::default()
        })
    }

    /// Every rewrite reads back as the rule typed, through the engine, in YAML and JSON CRDs
    /// and whatever the rule was written as before.
    #[test]
    fn rewritten_rules_read_back_exactly() {
        let typed = [
            "self.size() > 20",
            "!has(self.replicas) || self.replicas <= 10",
            "self == \"a \\\"quoted\\\" \\\\ text\"",
            "self.size() > 0 # not a comment",
            "self in ['a', 'b'] ? true : false",
            "self.all(x,\n  x > 0)\n",
            "  self  ",
            "true",
            "self == 'é😀\t\u{85}\u{2028}'",
            "",
        ];
        let cron_rule = run(CRD, OBJECT).versions[0].rules[0].text_range.unwrap();
        let styles = [
            "self.size() > 0",
            "'self.size() > 0'",
            "\"self.size() \\x3E 0\"",
            "|-\n                    self.size() > 0",
            "!!str &a >-\n                    self.size()\n                    > 0",
        ];
        for style in styles {
            let crd = format!("{}{}{}", &CRD[..cron_rule.0], style, &CRD[cron_rule.1..]);
            let before = run(&crd, OBJECT);
            let rules = &before.versions[0].rules;
            let rule = rules
                .iter()
                .find(|r| r.key.contains("[cronSpec]"))
                .unwrap_or_else(|| panic!("{style}: {rules:#?}"));
            assert_eq!(rule.rule, "self.size() > 0", "{style}");
            let range = rule.text_range.unwrap();
            let plain = scalar_style(&crd[range.0..range.1]) == ScalarStyle::Plain;
            assert_eq!(plain, style.starts_with("self"), "{style}");
            for new in typed {
                let (text, range, _) = rewrite(&crd, range, new, plain).unwrap();
                let after = run(&text, OBJECT);
                let got = after.versions[0]
                    .rules
                    .iter()
                    .find(|r| r.key.contains("[cronSpec]"))
                    .unwrap_or_else(|| panic!("{new:?} in\n{text}"));
                assert_eq!(got.rule, new, "{style} → {new:?}:\n{text}");
                assert_eq!(got.text_range, Some(range), "{new:?}\n{text}");
                assert!(
                    after.findings.iter().all(|f| !f.code.starts_with("yaml")),
                    "{new:?}: {:#?}",
                    after.findings
                );
            }
        }
        // A JSON CRD keeps JSON.
        let json = r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "widgets.example.com"},
 "spec": {"group": "example.com", "scope": "Namespaced",
  "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
  "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
   "type": "object",
   "x-kubernetes-validations": [{"rule": "has(self.metadata)"}]}}}]}}"#;
        let a = run(json, "{}");
        let rule = &a.versions[0].rules[0];
        for new in typed {
            let (text, _, _) = rewrite(json, rule.text_range.unwrap(), new, false).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["x-kubernetes-validations"]
                    [0]["rule"],
                new
            );
            assert_eq!(run(&text, "{}").versions[0].rules[0].rule, new);
        }
    }

    /// The rule's place is its scalar: the engine's line and UTF-16 column of its first byte.
    #[test]
    fn rules_are_located_at_their_scalar() {
        let crd = CRD.replace(
            "type: string\n",
            "type: string\n                description: é😀\n",
        );
        let a = run(&crd, OBJECT);
        let rule = &a.versions[0].rules[0];
        let (start, _) = rule.text_range.unwrap();
        let loc = rule.location.unwrap();
        assert_eq!(loc.source, crate::SourceId::Crd);
        assert_eq!(loc.span.start.offset, start);
        assert_eq!((loc.span.start.line, loc.span.start.utf16_column), (24, 25));
        assert_eq!(rule.line, Some(24));
        assert_eq!(rule.column, Some(25));
    }
}
