//! Completion and hover in JSON texts: the object editor, the CRD editor and a CEL rule, each
//! item applied and the result read back as JSON.

use super::tests::CRD;
use super::*;
use crate::documents::finding::SourceId;
use crate::report::analysis::Options;

fn compiled() -> CompiledCrd {
    CompiledCrd::compile(CRD, &Options::default())
}

/// The test CRD written as JSON (pretty, two-space indents).
fn crd_json() -> String {
    let parsed = crate::documents::document::parse(CRD, SourceId::Crd);
    let (_, root) = parsed.values().next().unwrap();
    serde_json::to_string_pretty(&root.to_json()).unwrap()
}

/// The completions at the `|` of `text`, and the text without the `|`.
fn at(crd: &CompiledCrd, editor: Editor, text: &str) -> (Completions, String) {
    let offset = text.find('|').unwrap();
    let t = text.replacen('|', "", 1);
    (complete(crd, editor, &t, offset).unwrap(), t)
}

fn labels(c: &Completions) -> Vec<&str> {
    c.items.iter().map(|i| i.label.as_str()).collect()
}

/// `text` with item `label` of `c` applied, as CodeMirror does it.
fn pick(c: &Completions, text: &str, label: &str) -> String {
    let i = c.items.iter().find(|i| i.label == label).unwrap();
    let insert = i.apply.clone().unwrap_or_else(|| i.label.clone());
    let picked = format!("{}{insert}{}", &text[..c.from], &text[c.to..]);
    match c.comma_at {
        Some(at) => format!("{},{}", &picked[..at], &picked[at..]),
        None => picked,
    }
}

fn valid(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

const HEAD: &str =
    r#"{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},"#;

#[test]
fn object_keys_in_json() {
    let crd = compiled();
    // After `{` of spec: the fields, required first, inserted quoted with `: `.
    let (c, t) = at(&crd, Editor::Object, &format!("{HEAD} \"spec\": {{|}}}}"));
    assert_eq!(labels(&c).first(), Some(&"replicas"));
    assert!(labels(&c).contains(&"my-label"), "{c:?}");
    let r = pick(&c, &t, "replicas");
    assert!(r.ends_with("\"spec\": {\"replicas\": }}"), "{r}");
    valid(&r.replace(": }", ": 2}"));
    // The opening quote typed: the range starts at it, matched with it.
    let (c, t) = at(
        &crd,
        Editor::Object,
        &format!("{HEAD} \"spec\": {{\"mode\": \"Fast\",\n  \"re|"),
    );
    assert_eq!(labels(&c), vec!["replicas"]);
    assert_eq!(&t[c.from..c.from + 1], "\"");
    assert_eq!(c.items[0].filter_text.as_deref(), Some("\"replicas"));
    let r = pick(&c, &t, "replicas");
    valid(&format!("{r}3}}}}"));
    // Without the quote, after a comma; keys there already are not offered.
    let (c, t) = at(
        &crd,
        Editor::Object,
        &format!("{HEAD} \"spec\": {{\"replicas\": 1, pa|}}}}"),
    );
    assert_eq!(labels(&c), vec!["paused"]);
    let r = pick(&c, &t, "paused");
    valid(&r.replace(": }", ": true}"));
    // Editing a key whose colon is there: only the name changes.
    let (c, t) = at(
        &crd,
        Editor::Object,
        &format!("{HEAD} \"spec\": {{\"ta|x\": []}}}}"),
    );
    let r = pick(&c, &t, "tags");
    assert_eq!(valid(&r)["spec"]["tags"], serde_json::json!([]));
    // The object's top level: apiVersion, kind, metadata, spec.
    let (c, _) = at(&crd, Editor::Object, "{\n  |\n}");
    assert!(
        ["apiVersion", "kind", "metadata", "spec"]
            .iter()
            .all(|w| labels(&c).contains(w)),
        "{c:?}"
    );
    // metadata's fields.
    let (c, _) = at(&crd, Editor::Object, "{\"metadata\": {\"|");
    assert!(labels(&c).contains(&"namespace"), "{c:?}");
}

#[test]
fn a_member_after_one_without_a_comma_brings_the_comma() {
    let crd = compiled();
    let (c, t) = at(
        &crd,
        Editor::Object,
        &format!("{HEAD} \"spec\": {{\"replicas\": 1\n    \"mo|\n}}}}"),
    );
    assert_eq!(c.comma_at, Some(t.find("1\n").unwrap() + 1));
    let picked = pick(&c, &t, "mode");
    assert!(
        picked.contains("\"replicas\": 1,\n    \"mode\": "),
        "{picked}"
    );
    valid(&picked.replace("\"mode\": ", "\"mode\": \"Fast\""));
    // With a comma already: none added.
    let (c, _) = at(
        &crd,
        Editor::Object,
        &format!("{HEAD} \"spec\": {{\"replicas\": 1, \"mo|}}}}"),
    );
    assert_eq!(c.comma_at, None);
}

#[test]
fn array_items_in_json() {
    let crd = compiled();
    let (c, t) = at(
        &crd,
        Editor::Object,
        &format!("{HEAD} \"spec\": {{\"replicas\": 1, \"zones\": [\"east\", |]}}}}"),
    );
    assert_eq!(labels(&c), vec!["east", "west"]);
    assert_eq!(valid(&pick(&c, &t, "west"))["spec"]["zones"][1], "west");
}

#[test]
fn object_values_in_json() {
    let crd = compiled();
    let (c, t) = at(
        &crd,
        Editor::Object,
        &format!("{HEAD} \"spec\": {{\"replicas\": 1, \"mode\": |}}}}"),
    );
    assert_eq!(labels(&c), vec!["Fast", "Slow"]);
    assert_eq!(valid(&pick(&c, &t, "Slow"))["spec"]["mode"], "Slow");
    // Inside the string, closing quote there: replaced with it.
    let (c, t) = at(
        &crd,
        Editor::Object,
        &format!("{HEAD} \"spec\": {{\"replicas\": 1, \"mode\": \"S|\"}}}}"),
    );
    assert!(labels(&c).contains(&"Slow"), "{c:?}");
    assert_eq!(valid(&pick(&c, &t, "Slow"))["spec"]["mode"], "Slow");
    // Booleans bare.
    let (c, t) = at(
        &crd,
        Editor::Object,
        &format!("{HEAD} \"spec\": {{\"replicas\": 1, \"paused\": |}}}}"),
    );
    assert_eq!(labels(&c), vec!["true", "false"]);
    assert_eq!(valid(&pick(&c, &t, "false"))["spec"]["paused"], false);
    // apiVersion and kind quoted.
    let (c, t) = at(
        &crd,
        Editor::Object,
        "{\"apiVersion\": |, \"kind\": \"Widget\"}",
    );
    assert_eq!(
        valid(&pick(&c, &t, "example.com/v1"))["apiVersion"],
        "example.com/v1"
    );
    let (c, t) = at(&crd, Editor::Object, "{\"kind\": \"W|\"}");
    assert_eq!(valid(&pick(&c, &t, "Widget"))["kind"], "Widget");
}

#[test]
fn object_hover_in_json() {
    let crd = compiled();
    let t = format!("{HEAD} \"spec\": {{\"replicas\": 0}}}}");
    let h = hover(&crd, Editor::Object, &t, t.find("plicas").unwrap()).unwrap();
    assert_eq!(h.title, "replicas: integer");
    assert_eq!(
        h.lines,
        vec!["How many copies run.", "required · minimum: 1"]
    );
    assert_eq!(t.get(h.from..h.to), Some("\"replicas\""));
    let h = hover(&crd, Editor::Object, &t, t.find("Version").unwrap()).unwrap();
    assert!(h.title.starts_with("apiVersion"), "{h:?}");
}

#[test]
fn a_yaml_document_with_flow_mappings_stays_yaml() {
    let crd = compiled();
    let (c, _) = at(
        &crd,
        Editor::Object,
        "apiVersion: example.com/v1\nmetadata: {name: w}\nspec:\n  |",
    );
    let i = c.items.iter().find(|i| i.label == "replicas").unwrap();
    assert_eq!(i.apply.as_deref(), Some("replicas: "));
    // A YAML document, then a JSON one: each its own reader.
    let (c, _) = at(
        &crd,
        Editor::Object,
        "spec:\n  mode: Fast\n---\n{\"spec\": {\"mode\": |",
    );
    assert_eq!(c.items[0].apply.as_deref(), Some("\"Fast\""));
    let (c, _) = at(
        &crd,
        Editor::Object,
        "{\"spec\": {}}\n---\nspec:\n  mode: |",
    );
    assert_eq!(c.items[0].apply, None);
}

#[test]
fn crd_in_json() {
    let crd = compiled();
    let json = crd_json();
    // A schema node: its keywords, `type` there already.
    let at_paused = json.replace("\"paused\": {\n", "\"paused\": {\n|");
    let (c, t) = at(&crd, Editor::Crd, &at_paused);
    assert!(
        labels(&c).contains(&"description") && !labels(&c).contains(&"type"),
        "{c:?}"
    );
    let r = pick(&c, &t, "description");
    assert!(r.contains("\"paused\": {\n\"description\": "), "{r}");
    // `type` values quoted.
    let typed = json.replace("\"type\": \"boolean\"", "\"type\": \"b|\"");
    let (c, t) = at(&crd, Editor::Crd, &typed);
    assert!(labels(&c).contains(&"boolean"), "{c:?}");
    let r = pick(&c, &t, "boolean");
    assert_eq!(r, json);
    // The CRD's own fields.
    let (c, _) = at(
        &crd,
        Editor::Crd,
        &json.replace("\"scope\": \"Namespaced\"", "\"scope\": |"),
    );
    assert_eq!(labels(&c), vec!["Namespaced", "Cluster"]);
    assert_eq!(c.items[0].apply.as_deref(), Some("\"Namespaced\""));
    let (c, _) = at(
        &crd,
        Editor::Crd,
        &json.replace("\"served\": true", "\"served\": |"),
    );
    assert_eq!(c.items[0].apply.as_deref(), Some("true"));
    // Hover on a property's name and on a keyword.
    let h = hover(
        &crd,
        Editor::Crd,
        &json,
        json.find("\"replicas\": {").unwrap() + 2,
    )
    .unwrap();
    assert_eq!(h.title, "replicas: integer");
    let h = hover(
        &crd,
        Editor::Crd,
        &json,
        json.find("\"minimum\"").unwrap() + 2,
    )
    .unwrap();
    assert!(h.title.starts_with("minimum (number)"), "{h:?}");
}

#[test]
fn cel_rule_in_json() {
    let crd = compiled();
    let json = crd_json();
    let (c, t) = at(
        &crd,
        Editor::Crd,
        &json.replace("self.replicas > 0", "self.|"),
    );
    assert!(
        ["replicas", "mode", "my__dash__label", "tags"]
            .iter()
            .all(|w| labels(&c).contains(w)),
        "{c:?}"
    );
    assert_eq!(c.from, c.to);
    let r = pick(&c, &t, "replicas");
    assert!(r.contains("\"rule\": \"self.replicas\""), "{r}");
    let (c, _) = at(
        &crd,
        Editor::Crd,
        &json.replace("self.replicas > 0", "self.mode.st|"),
    );
    assert!(labels(&c).contains(&"startsWith"), "{c:?}");
    assert_eq!(c.to - c.from, 2);
    // Escapes before the cursor: read through them.
    let escaped = json.replace(
        "self.replicas > 0",
        r#"self.mode != \"x\\\" \" && self.ta|"#,
    );
    let (c, t) = at(&crd, Editor::Crd, &escaped);
    assert_eq!(labels(&c), vec!["tags"]);
    assert_eq!(&t[c.from..c.to], "ta");
    // Hover inside the rule, after escapes.
    let rule = json.replace(
        "self.replicas > 0",
        r#"self.mode != \"\\\"\" || self.replicas > 0"#,
    );
    let h = hover(&crd, Editor::Crd, &rule, rule.find("plicas > 0").unwrap()).unwrap();
    assert_eq!(h.title, "replicas: integer");
    assert_eq!(rule.get(h.from..h.to), Some("replicas"));
}

mod fixes_in_json {
    use super::crd_json;
    use crate::documents::finding::{apply_text_edits, Finding, SourceId};
    use crate::{analyze, Analysis, Options, Request};

    const OBJECT: &str = "{\n  \"apiVersion\": \"example.com/v1\",\n  \"kind\": \"Widget\",\n  \"metadata\": {\"name\": \"w\"},\n  \"spec\": {\n    \"replicas\": 2\n  }\n}\n";

    fn run(crd: &str, object: &str) -> Analysis {
        analyze(&Request {
            crd: crd.to_owned(),
            objects: vec![object.to_owned()],
            options: Options::default(),
            ..Request::default()
        })
    }

    fn key(f: &Finding) -> (String, Option<String>, String) {
        (f.code.clone(), f.field.clone(), f.message.clone())
    }

    /// Applies each fix of the finding with `code`: the result is JSON, the finding is gone
    /// and nothing new came; returns the fixes' titles.
    fn check(crd: &str, object: &str, code: &str) -> Vec<String> {
        let before = run(crd, object);
        let Some(f) = before
            .findings
            .iter()
            .find(|f| f.code == code && !f.fixes.is_empty())
        else {
            return Vec::new();
        };
        let mut titles = Vec::new();
        for fix in &f.fixes {
            let source = fix.source.or(f.location.map(|l| l.source)).unwrap();
            let (c, o) = match source {
                SourceId::Crd => (
                    apply_text_edits(crd, &fix.edits).unwrap(),
                    object.to_owned(),
                ),
                _ => (
                    crd.to_owned(),
                    apply_text_edits(object, &fix.edits).unwrap(),
                ),
            };
            for t in [&c, &o] {
                if let Err(e) = serde_json::from_str::<serde_json::Value>(t) {
                    panic!("`{}` leaves invalid JSON ({e}):\n{t}", fix.title);
                }
            }
            let after = run(&c, &o);
            let old: Vec<_> = before.findings.iter().map(key).collect();
            assert!(
                !after.findings.iter().any(|g| key(g) == key(f)),
                "{code}: the finding stays after `{}`:\n{c}\n{o}",
                fix.title
            );
            let added: Vec<&Finding> = after
                .findings
                .iter()
                .filter(|g| !old.contains(&key(g)) && !g.note)
                .collect();
            assert!(
                added.is_empty(),
                "`{}` adds {added:#?}\n{c}\n{o}",
                fix.title
            );
            titles.push(fix.title.clone());
        }
        titles
    }

    #[test]
    fn each_fix_is_json_in_json() {
        let crd = crd_json();
        // Missing type, inferred from the node's keys.
        let t = crd.replace("\"type\": \"boolean\"", "\"default\": true");
        assert_eq!(
            check(&t, OBJECT, "crd.invalid"),
            vec!["Add `type: boolean`"]
        );
        let t = crd.replace(
            "\"tags\": {\n                    \"items\": {\n                      \"type\": \"string\"\n                    },\n                    \"type\": \"array\"\n",
            "\"tags\": {\n                    \"items\": {\n                      \"type\": \"string\"\n                    }\n",
        );
        assert_ne!(t, crd);
        assert_eq!(check(&t, OBJECT, "crd.invalid"), vec!["Add `type: array`"]);
        // An undefined CEL field.
        let t = crd.replace("self.replicas > 0", "self.replica > 0");
        assert_eq!(
            check(&t, OBJECT, "crd.invalid"),
            vec!["Did you mean `replicas`?"]
        );
        // A printer column that can never show a value.
        let t = crd.replacen(
            "\"name\": \"v1\",",
            "\"additionalPrinterColumns\": [{\"name\": \"Mode\", \"type\": \"string\", \"jsonPath\": \".spec.mdoe\"}],\n\"name\": \"v1\",",
            1,
        );
        assert_ne!(t, crd);
        assert_eq!(check(&t, OBJECT, "crd.printer-column"), vec!["Use `mode`"]);
        // An unknown field: renamed, or removed (with its comma), last or not.
        let o = OBJECT.replace("\"replicas\": 2", "\"replicas\": 2,\n    \"pasued\": true");
        assert_eq!(
            check(&crd, &o, "object.unknown-field"),
            vec!["Rename to `paused`", "Remove `pasued`"]
        );
        let o = OBJECT.replace(
            "\"replicas\": 2",
            "\"zzz\": {\"deep\": [1, \"}\"]}, \"replicas\": 2",
        );
        assert_eq!(
            check(&crd, &o, "object.unknown-field"),
            vec!["Remove `zzz`"]
        );
        // An enum value.
        let o = OBJECT.replace("\"replicas\": 2", "\"replicas\": 2, \"mode\": \"fats\"");
        assert_eq!(check(&crd, &o, "object.invalid"), vec!["Change to `Fast`"]);
        // `no such key`: the rule in the JSON CRD guarded with has().
        let t = crd
            .replace("self.replicas > 0", "self.mode.size() > 0")
            .replace("\"default\": \"Fast\",\n", "");
        assert_ne!(t, crd.replace("self.replicas > 0", "self.mode.size() > 0"));
        assert_eq!(
            check(&t, OBJECT, "object.invalid"),
            vec!["Guard the rule with `has(self.mode)`"]
        );
    }
}
