//! Browser tests of the app with the textarea fallback (the test page has no editor bundle).
//!
//! `cargo test -p crd-studio-web --target wasm32-unknown-unknown` (runner:
//! wasm-bindgen-test-runner, headless Chromium, flags in webdriver.json).
#![cfg(target_arch = "wasm32")]

use std::time::Duration;

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement, HtmlTextAreaElement};

wasm_bindgen_test_configure!(run_in_browser);

/// Mounts a fresh App into its own div (the runner's page has its own `#output`).
async fn mount() -> Element {
    gloo::utils::window()
        .local_storage()
        .ok()
        .flatten()
        .expect("localStorage")
        .clear()
        .expect("clear localStorage");
    let document = gloo::utils::document();
    let root = document.create_element("div").expect("div");
    document
        .body()
        .expect("body")
        .append_child(&root)
        .expect("append");
    yew::Renderer::<crd_studio_web::App>::with_root(root.clone()).render();
    wait_for(&root, "the first analysis", |r| {
        query(r, "[role=status]").is_some() && !text(r, "[role=status]").contains("Analysing")
    })
    .await;
    root
}

fn query(root: &Element, selector: &str) -> Option<Element> {
    root.query_selector(selector).ok().flatten()
}

fn text(root: &Element, selector: &str) -> String {
    query(root, selector)
        .and_then(|e| e.text_content())
        .unwrap_or_default()
}

async fn wait_for(root: &Element, what: &str, cond: impl Fn(&Element) -> bool) {
    for _ in 0..100 {
        if cond(root) {
            return;
        }
        yew::platform::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("timed out waiting for {what}; page: {}", root.inner_html());
}

/// The text autosaved under `key` once it contains `needle` (autosave follows the last edit
/// after a short pause).
async fn saved_with(key: &str, needle: &str) -> String {
    let read = || {
        gloo::utils::window()
            .local_storage()
            .ok()
            .flatten()
            .and_then(|s| s.get_item(key).ok().flatten())
            .unwrap_or_default()
    };
    for _ in 0..100 {
        if read().contains(needle) {
            break;
        }
        yew::platform::time::sleep(Duration::from_millis(20)).await;
    }
    read()
}

fn textarea(root: &Element, label: &str) -> HtmlTextAreaElement {
    query(root, &format!("textarea[aria-label=\"{label}\"]"))
        .unwrap_or_else(|| panic!("no textarea {label}: {}", root.inner_html()))
        .dyn_into()
        .expect("a textarea")
}

/// Replaces a textarea's text the way typing does: set the value, fire `input`.
fn type_into(ta: &HtmlTextAreaElement, value: &str) {
    ta.set_value(value);
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict("input", &init).expect("event");
    ta.dispatch_event(&event).expect("dispatch");
}

#[wasm_bindgen_test]
async fn example_is_shown_and_accepted() {
    let root = mount().await;
    assert!(textarea(&root, "CRD")
        .value()
        .contains("crontabs.stable.example.com"));
    assert!(textarea(&root, "Object")
        .value()
        .contains("my-new-cron-object"));
    let status = text(&root, "[role=status]");
    assert!(status.starts_with("Accepted · "), "{status}");
    assert!(query(&root, "[role=region][aria-label=Problems]").is_some());
    assert!(query(&root, "[role=region][aria-label=\"Stored object\"]").is_some());
    assert!(query(&root, ".problem.error").is_none());
}

#[wasm_bindgen_test]
async fn yaml_syntax_error_appears_in_problems_and_focuses_on_click() {
    let root = mount().await;
    let object = textarea(&root, "Object");
    let broken =
        "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: x\nspec:\n  \
                  cronSpec: \"* * * * */5\"\n  image: my-awesome-cron-image: oops\n";
    type_into(&object, broken);
    wait_for(&root, "the syntax error in Problems", |r| {
        text(r, "[aria-label=Problems]").contains("object.yaml:7:31")
    })
    .await;
    let problems = text(&root, "[aria-label=Problems]");
    assert!(
        problems.contains("mapping values are not allowed"),
        "{problems}"
    );
    assert!(text(&root, "[role=status]").starts_with("Rejected · "));
    // Autosaved.
    let saved = saved_with(crd_studio_web::OBJECT_KEY, "oops").await;
    assert!(saved.contains("oops"), "{saved}");

    // Clicking the problem focuses the Object editor at line 7, column 31.
    let button: HtmlElement = query(&root, ".problem.error button")
        .expect("a clickable problem")
        .dyn_into()
        .expect("an element");
    button.click();
    let active = gloo::utils::document().active_element().expect("focus");
    assert_eq!(
        active.get_attribute("aria-label").as_deref(),
        Some("Object")
    );
    let expected = broken.find(": oops").expect("offset") as u32;
    assert_eq!(object.selection_start().ok().flatten(), Some(expected));
}

#[wasm_bindgen_test]
async fn crd_syntax_error_is_reported_against_the_crd() {
    let root = mount().await;
    type_into(&textarea(&root, "CRD"), "apiVersion: [\n");
    wait_for(&root, "the CRD error", |r| {
        text(r, "[aria-label=Problems]").contains("crd.yaml:")
    })
    .await;
    let status = text(&root, "[role=status]");
    assert!(status.contains("CRD rejected"), "{status}");
}

fn click(root: &Element, selector: &str) {
    let el: HtmlElement = query(root, selector)
        .unwrap_or_else(|| panic!("no {selector}: {}", root.inner_html()))
        .dyn_into()
        .expect("an HTML element");
    el.click();
}

#[wasm_bindgen_test]
async fn field_validation_warn_turns_a_duplicate_field_into_a_warning() {
    let root = mount().await;
    let object = textarea(&root, "Object");
    type_into(
        &object,
        &format!(
            "{}  image: again\n",
            crd_studio_web::view_model::EXAMPLE_OBJECT
        ),
    );
    wait_for(&root, "the duplicate field error", |r| {
        query(r, ".problem.error").is_some()
    })
    .await;
    let select: web_sys::HtmlSelectElement =
        query(&root, "select[aria-label=\"Field validation\"]")
            .expect("the field validation selector")
            .dyn_into()
            .expect("a select");
    assert_eq!(select.value(), "Strict");
    select.set_value("Warn");
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    select
        .dispatch_event(&web_sys::Event::new_with_event_init_dict("change", &init).expect("event"))
        .expect("dispatch");
    wait_for(&root, "the warning", |r| {
        query(r, ".problem.warning").is_some() && query(r, ".problem.error").is_none()
    })
    .await;
    assert!(text(&root, "[aria-label=Problems]").contains("already set in map"));
    assert!(text(&root, "[role=status]").starts_with("Accepted · "));
    let saved = gloo::utils::window()
        .local_storage()
        .ok()
        .flatten()
        .and_then(|s| {
            s.get_item(crd_studio_web::FIELD_VALIDATION_KEY)
                .ok()
                .flatten()
        });
    assert_eq!(saved.as_deref(), Some("\"Warn\""));
}

#[wasm_bindgen_test]
async fn old_object_switches_to_update_and_the_stored_object_is_shown() {
    let root = mount().await;
    assert!(query(&root, "textarea[aria-label=\"Old object\"]").is_none());
    click(&root, "#old-title");
    wait_for(&root, "the old object editor", |r| {
        query(r, "textarea[aria-label=\"Old object\"]").is_some()
    })
    .await;
    type_into(
        &textarea(&root, "Old object"),
        crd_studio_web::view_model::EXAMPLE_OBJECT,
    );
    wait_for(&root, "the update path", |r| {
        text(r, "[role=status]").contains("on update")
    })
    .await;

    click(&root, "#tab-stored");
    wait_for(&root, "the stored object", |r| {
        text(r, "[aria-label=\"Stored object\"] .yaml").contains("image: my-awesome-cron-image")
    })
    .await;
    let panel = text(&root, "[aria-label=\"Stored object\"]");
    assert!(panel.contains("operation: update"), "{panel}");
    assert!(panel.contains("Stored (v1)"), "{panel}");

    click(&root, "#tab-problems");
    wait_for(&root, "the Problems tab", |r| {
        query(r, "#panel-stored[hidden]").is_some()
    })
    .await;
}

#[wasm_bindgen_test]
async fn cel_tab_lists_the_rules_and_an_edited_rule_is_written_into_the_crd() {
    let root = mount().await;
    click(&root, "#tab-cel");
    wait_for(&root, "the CEL rules", |r| {
        text(r, "#panel-cel").contains("3 rules · 0 compile errors")
    })
    .await;
    let panel = text(&root, "#panel-cel");
    assert!(panel.contains(".spec.cronSpec"), "{panel}");
    assert!(panel.contains("transition rule"), "{panel}");
    assert!(
        panel.contains("a transition rule runs only when there is an old value"),
        "{panel}"
    );
    // Each rule's estimated cost against the per-rule limit, and the version's total.
    assert!(panel.contains("est. cost "), "{panel}");
    assert!(panel.contains("per evaluation × cardinality 1"), "{panel}");
    assert!(panel.contains("CRD total"), "{panel}");
    assert!(query(&root, "#panel-problems[hidden]").is_some());

    // Rule 2 is `self.size() > 0` on cronSpec: make it fail on the sample.
    let rule = textarea(&root, "Rule 2");
    assert_eq!(rule.value(), "self.size() > 0");
    type_into(&rule, "self.size() > 20");
    wait_for(&root, "the failure", |r| {
        text(r, "#panel-cel").contains("failed rule: self.size() > 20")
    })
    .await;
    let panel = text(&root, "#panel-cel");
    assert!(panel.contains("1 failing on the sample"), "{panel}");
    // The CRD editor shows the new rule, written plain as before, and it is autosaved.
    let crd = textarea(&root, "CRD").value();
    assert!(crd.contains("- rule: self.size() > 20\n"), "{crd}");
    let saved = saved_with(crd_studio_web::CRD_KEY, "self.size() > 20").await;
    assert!(saved.contains("self.size() > 20"), "{saved}");

    // A rule that cannot stay plain is double-quoted.
    type_into(&textarea(&root, "Rule 2"), "!(self.size() == 0)");
    wait_for(&root, "the quoted rule", |r| {
        textarea(r, "CRD")
            .value()
            .contains("- rule: \"!(self.size() == 0)\"\n")
    })
    .await;
    wait_for(&root, "the rule passing again", |r| {
        text(r, "#panel-cel").contains("0 failing on the sample")
    })
    .await;

    // The rule's place jumps to the CRD editor.
    click(
        &root,
        "#panel-cel .rule-card:nth-child(2) .rule-head button.place",
    );
    let active = gloo::utils::document().active_element().expect("focus");
    assert_eq!(active.get_attribute("aria-label").as_deref(), Some("CRD"));
}

/// A rule iterating an unbounded list of unbounded strings, and a cheap one.
const OVER_BUDGET_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
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
              count:
                type: integer
                x-kubernetes-validations:
                - rule: self >= 0
              names:
                type: array
                items:
                  type: string
                x-kubernetes-validations:
                - rule: \"self.all(x, x.matches('^a+$'))\"
";

#[wasm_bindgen_test]
async fn cel_tab_shows_an_over_budget_rule_and_sorts_by_cost() {
    let root = mount().await;
    click(&root, "#tab-cel");
    type_into(&textarea(&root, "CRD"), OVER_BUDGET_CRD);
    type_into(
        &textarea(&root, "Object"),
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  count: 1\n  names: [a]\n",
    );
    wait_for(&root, "the over-budget rule", |r| {
        text(r, "#panel-cel").contains("1 over the cost limit")
    })
    .await;
    let card = text(&root, "#panel-cel .rule-card.over");
    assert!(card.contains(".spec.names"), "{card}");
    assert!(
        card.contains("estimated rule cost exceeds budget by factor of more than 100x (try"),
        "{card}"
    );
    assert!(card.contains("factor of more than 100x"), "{card}");
    assert!(query(&root, "#panel-cel .cost-total.over").is_some());
    assert!(text(&root, "[role=status]").starts_with("Rejected"));
    // The engine's order first; sorted by cost, the expensive rule leads.
    let first = |r: &Element| text(r, "#panel-cel .rule-card .rule-head > .vpath");
    assert_eq!(first(&root), ".spec.count");
    click(&root, "#panel-cel button.toggle");
    wait_for(&root, "the rules sorted by cost", |r| {
        first(r) == ".spec.names"
    })
    .await;

    // The engine's suggestion, applied, is written into the CRD and makes it acceptable.
    click(
        &root,
        "#panel-cel .rule-card.over .cost-explain .suggestion button.apply",
    );
    wait_for(&root, "the bounded CRD accepted", |r| {
        text(r, "[role=status]").starts_with("Accepted")
    })
    .await;
    let crd = textarea(&root, "CRD").value();
    assert!(crd.contains("maxItems: "), "{crd}");
    assert!(crd.contains("maxLength: "), "{crd}");
    assert!(query(&root, "#panel-cel .rule-card.over").is_none());
    assert!(!text(&root, "#panel-cel").contains("over the cost limit"));
}

/// An editor's texts splice from an earlier one when every edit between them is known, and
/// the splice rebuilds the newer text from the earlier one.
#[wasm_bindgen_test]
fn editor_texts_splice_from_their_editors_earlier_texts() {
    use std::rc::Rc;

    use crd_studio_web::editor_text::{EditorText, Lineage};
    use crd_studio_web::worker_protocol::CrdText;
    use js_sys::JsString;

    // A string stands for CodeMirror's document (its `toString` and `length`).
    let root = EditorText::from_rust("kind: \nspec: {}\n");
    let lineage = Rc::new(Lineage::default());
    lineage.start_from(&root);
    let edit = |text: &str, kept| EditorText::edited(JsString::from(text).into(), &lineage, kept);
    let a = edit("kind: A\nspec: {}\n", Some((6, 10)));
    // Typed "B" after the A, then "C" after the B: the start and the end stay.
    let b = edit("kind: AB\nspec: {}\n", Some((7, 10)));
    let c = edit("kind: ABC\nspec: {}\n", Some((8, 10)));
    let rebuilt = |new: &EditorText, base: &EditorText| {
        let s = new.splice_from(base).expect("a splice");
        let text = String::from(new.js());
        let middle = &text[s.keep_start as usize..text.len() - s.keep_end as usize];
        s.apply(&base.rust(), middle).expect("applies")
    };
    // The editor's first edit splices the text it opened with.
    assert_eq!(rebuilt(&a, &root), "kind: A\nspec: {}\n");
    assert_eq!(rebuilt(&c, &root), "kind: ABC\nspec: {}\n");
    assert_eq!(b.rough_len(), 18);
    assert!(!b.is_blank());
    assert!(b.same_source(&b) && !b.same_source(&c));
    assert_eq!(rebuilt(&b, &a), "kind: AB\nspec: {}\n");
    assert_eq!(rebuilt(&c, &a), "kind: ABC\nspec: {}\n");
    assert_eq!(rebuilt(&c, &b), "kind: ABC\nspec: {}\n");
    assert_eq!(String::from(c.slice(6, 9)), "ABC");
    // Not backwards, not from itself, not across an unknown edit or another editor's text.
    assert_eq!(a.splice_from(&c), None);
    assert_eq!(c.splice_from(&c), None);
    let d = edit("replaced\n", None);
    let e = edit("replaced!\n", Some((8, 1)));
    assert_eq!(d.splice_from(&c), None);
    assert_eq!(e.splice_from(&c), None);
    assert!(e.splice_from(&d).is_some());
    let other = Rc::new(Lineage::default());
    let f = EditorText::edited(JsString::from("replaced!!\n").into(), &other, Some((9, 1)));
    assert_eq!(f.splice_from(&e), None);
    assert_eq!(EditorText::from_rust("x").splice_from(&a), None);
    assert_eq!(f.splice_from(&root), None);
    assert_eq!(
        a.splice_from(&EditorText::from_rust("kind: \nspec: {}\n")),
        None
    );
}
