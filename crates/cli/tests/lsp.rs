//! `crd-studio lsp` at the protocol level: the binary is spawned and driven over stdio by a
//! small JSON-RPC client, on a workspace made in a temporary folder.

use std::path::PathBuf;

use serde_json::{json, Value};

#[path = "common/lsp_client.rs"]
mod lsp_client;
use lsp_client::{url, Client};

const CRD: &str = include_str!("../../../examples/crontab/crd.yaml");

fn workspace(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("crd-studio-lsp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

fn messages(d: &[Value]) -> Vec<String> {
    d.iter()
        .map(|d| d["message"].as_str().unwrap().to_owned())
        .collect()
}

const BAD: &str = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: a\nspec:\n  cronSpec: \"* * * * */5\"\n  replicas: 20\n";
const TYPO: &str = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: a\nspec:\n  cronSpec: \"* * * * */5\"\n  replicas: 2\n  replica: 3\n";

#[test]
fn diagnostics_for_objects_and_crds() {
    let root = workspace(
        "diag",
        &[
            ("crds/crontab.yaml", CRD),
            ("objects/bad.yaml", BAD),
            ("objects/typo.yaml", TYPO),
            ("objects/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"),
            ("objects/nocrd.yaml", "apiVersion: other.example.com/v1\nkind: Gadget\n"),
            ("objects/both.json", "{\"apiVersion\": \"stable.example.com/v1\", \"kind\": \"CronTab\", \"metadata\": {\"name\": \"j\"}, \"spec\": {\"cronSpec\": 3}}"),
            ("objects/excluded/x.yaml", BAD),
            (".crd-studio.yaml", "exclude: [\"objects/excluded/**\"]\n"),
        ],
    );
    let mut c = Client::start(&root, Value::Null);
    let bad = root.join("objects/bad.yaml");
    let bad_d = c.diagnostics(&bad, |d| !d.is_empty());
    let m = messages(&bad_d);
    assert!(
        m.iter().any(|m| m.contains("replicas must be at most 10")),
        "{m:?}"
    );
    let d = c.diagnostics(&root.join("objects/typo.yaml"), |d| !d.is_empty());
    let unknown = d
        .iter()
        .find(|d| {
            d["message"]
                .as_str()
                .unwrap()
                .contains("unknown field \"spec.replica\"")
        })
        .unwrap();
    assert_eq!(unknown["source"], "crd-studio");
    assert_eq!(unknown["range"]["start"]["line"], 7);
    assert!(unknown["code"].is_string());
    // The CEL error's related information: the schema node in the CRD.
    let cel = bad_d
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("at most 10"))
        .unwrap();
    let related = cel["relatedInformation"].as_array().unwrap();
    assert!(
        related
            .iter()
            .any(|r| r["location"]["uri"] == url(&root.join("crds/crontab.yaml"))),
        "{related:?}"
    );
    // ... and the rule that failed, at its place in the CRD.
    let rule = related
        .iter()
        .find(|r| r["message"] == "rule: !has(self.replicas) || self.replicas <= 10")
        .unwrap_or_else(|| panic!("{related:?}"));
    assert_eq!(
        rule["location"]["uri"],
        url(&root.join("crds/crontab.yaml"))
    );
    let line = rule["location"]["range"]["start"]["line"].as_u64().unwrap() as usize;
    let character = rule["location"]["range"]["start"]["character"]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(
        CRD.lines().nth(line).unwrap().get(character..),
        Some("\"!has(self.replicas) || self.replicas <= 10\""),
        "{rule}"
    );

    let nocrd = c.diagnostics(&root.join("objects/nocrd.yaml"), |d| !d.is_empty());
    assert!(messages(&nocrd)[0]
        .contains("no CustomResourceDefinition in the workspace defines kind Gadget"));
    let json_doc = c.diagnostics(&root.join("objects/both.json"), |d| !d.is_empty());
    assert!(
        messages(&json_doc)
            .iter()
            .any(|m| m.contains("spec.cronSpec")),
        "{json_doc:?}"
    );
    let log = c.wait("the built-in kinds line", |v| {
        v["method"] == "window/logMessage"
            && v["params"]["message"]
                .as_str()
                .unwrap()
                .contains("built-in kinds (ConfigMap")
    });
    assert_eq!(log["params"]["type"], 3);

    // An open buffer wins over the disk; fixing the object clears its diagnostics.
    c.open(&bad, BAD, 1);
    c.change(&bad, &BAD.replace("  replicas: 20\n", "  replicas: 2\n"), 2);
    let d = c.diagnostics(&bad, |d| d.is_empty());
    assert!(d.is_empty());
    // A CRD edit re-publishes the objects of its kind in other files.
    c.change(&bad, BAD, 3);
    c.diagnostics(&bad, |d| {
        messages(d).iter().any(|m| m.contains("at most 10"))
    });
    let crd_path = root.join("crds/crontab.yaml");
    c.open(
        &crd_path,
        &CRD.replace("self.replicas <= 10", "self.replicas <= 30"),
        1,
    );
    c.diagnostics(&bad, |d| d.is_empty());
    // A CRD defined twice says so on the objects and the CRDs.
    c.open(&root.join("crds/copy.yaml"), CRD, 1);
    let d = c.diagnostics(&bad, |d| {
        messages(d)
            .iter()
            .any(|m| m.contains("CustomResourceDefinitions in the workspace define kind CronTab"))
    });
    assert!(!d.is_empty());
    // A file written on disk, told by the client's watcher.
    let new = root.join("objects/new.yaml");
    std::fs::write(&new, BAD.replace("name: a", "name: b")).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": url(&new), "type": 1}]}),
    );
    let d = c.diagnostics(&new, |d| !d.is_empty());
    assert!(!d.is_empty());
    // Nothing about the excluded file.
    assert!(!c.seen.iter().any(|v| v["params"]["uri"]
        .as_str()
        .is_some_and(|u| u.contains("excluded"))));
    c.stop();
}

#[test]
fn completion_hover_definition_code_action() {
    let root = workspace("features", &[("crd.yaml", CRD), ("obj.yaml", TYPO)]);
    let mut c = Client::start(&root, json!({"fieldValidation": "Strict"}));
    let obj = root.join("obj.yaml");
    c.open(&obj, TYPO, 1);
    c.diagnostics(&obj, |d| !d.is_empty());

    // Completion of a field under spec (a new line after `spec:`).
    let text = TYPO.replace("spec:\n", "spec:\n  im\n");
    c.change(&obj, &text, 2);
    let r = c.at("textDocument/completion", &obj, 5, 4);
    let labels: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert!(labels.contains(&"image"), "{labels:?}");
    c.change(&obj, TYPO, 3);

    // Hover on `cronSpec`.
    let r = c.at("textDocument/hover", &obj, 5, 4);
    let value = r["result"]["contents"]["value"].as_str().unwrap();
    assert!(value.contains("cronSpec"), "{value}");
    assert_eq!(r["result"]["range"]["start"]["line"], 5);

    // Go to definition: the field's schema node, and `kind` to the CRD's names.kind.
    let r = c.at("textDocument/definition", &obj, 5, 4);
    assert_eq!(r["result"]["uri"], url(&root.join("crd.yaml")));
    let line = r["result"]["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(
        CRD.lines().nth(line).unwrap().contains("cronSpec:"),
        "{line}"
    );
    let r = c.at("textDocument/definition", &obj, 1, 8);
    let line = r["result"]["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(
        CRD.lines().nth(line).unwrap().contains("kind: CronTab"),
        "{line}"
    );

    // A code lens on each CEL rule of the CRD: its cost against the limit.
    let id = c.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": url(&root.join("crd.yaml"))}}),
    );
    let r = c.response(id);
    let lenses = r["result"].as_array().unwrap();
    assert_eq!(lenses.len(), 3, "{lenses:?}");
    let first = &lenses[0];
    let line = first["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(CRD.lines().nth(line).unwrap().contains("rule:"), "{first}");
    let title = first["command"]["title"].as_str().unwrap();
    assert!(
        title.starts_with("v1: cost ") && title.contains(" of 10,000,000 ("),
        "{title}"
    );

    // The outline of the CRD: its version, schema tree and rules.
    let id = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": url(&root.join("crd.yaml"))}}),
    );
    let r = c.response(id);
    let doc = &r["result"][0];
    assert_eq!(
        doc["name"],
        "CustomResourceDefinition crontabs.stable.example.com"
    );
    let spec = &doc["children"][0]["children"][0];
    assert_eq!(
        (spec["name"].as_str(), spec["detail"].as_str()),
        (Some("spec"), Some("object"))
    );
    assert_eq!(
        spec["children"][0]["name"],
        "!has(self.replicas) || self.replicas <= 10"
    );

    // The did-you-mean fix of the unknown field.
    let id = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": url(&obj)}, "range": {"start": {"line": 7, "character": 2}, "end": {"line": 7, "character": 2}}, "context": {"diagnostics": []}}),
    );
    let r = c.response(id);
    let actions = r["result"].as_array().unwrap();
    let edit = actions
        .iter()
        .find_map(|a| a["edit"]["changes"][url(&obj)].as_array().cloned())
        .unwrap_or_else(|| panic!("{actions:?}"));
    assert_eq!(edit[0]["range"]["start"]["line"], 7, "{edit:?}");
    c.stop();
}

#[test]
fn cancellation_panics_and_settings() {
    let old = BAD.replace("  replicas: 20\n", "  image: a\n");
    let new = format!(
        "# crd-studio: old=old.yaml\n{}",
        old.replace("image: a", "image: b")
    );
    let root = workspace(
        "robust",
        &[("crd.yaml", CRD), ("old.yaml", &old), ("new.yaml", &new)],
    );
    let mut c = Client::start(&root, Value::Null);
    // The update path, from the modeline: the immutable image.
    let d = c.diagnostics(&root.join("new.yaml"), |d| !d.is_empty());
    assert!(
        messages(&d)
            .iter()
            .any(|m| m.contains("image is immutable")),
        "{d:?}"
    );

    // A request cancelled while the analysis thread is busy is answered RequestCanceled.
    let busy = c.request("crd-studio/test-sleep", Value::Null);
    let id = c.request("textDocument/hover", json!({"textDocument": {"uri": url(&root.join("new.yaml"))}, "position": {"line": 6, "character": 4}}));
    c.notify("$/cancelRequest", json!({"id": id}));
    c.response(busy);
    let r = c.response(id);
    assert_eq!(r["error"]["code"], -32800, "{r}");

    // A panicking request, then a panicking check: errors, and the server goes on.
    let id = c.request("crd-studio/test-panic", Value::Null);
    assert_eq!(c.response(id)["error"]["code"], -32603);
    let boom = root.join("boom.yaml");
    c.open(
        &boom,
        "# crd-studio-test: panic\napiVersion: stable.example.com/v1\nkind: CronTab\n",
        1,
    );
    let d = c.diagnostics(&boom, |d| !d.is_empty());
    assert!(messages(&d)[0].contains("internal error"), "{d:?}");
    let r = c.at("textDocument/hover", &root.join("new.yaml"), 6, 4);
    assert!(
        r["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("cronSpec"),
        "{r}"
    );
    c.stop();
}

#[test]
fn superseded_requests() {
    let root = workspace("supersede", &[("crd.yaml", CRD), ("obj.yaml", BAD)]);
    let mut c = Client::start(&root, Value::Null);
    let obj = root.join("obj.yaml");
    c.open(&obj, BAD, 1);
    // While the analysis thread sleeps, a hover then an edit of the same document queue up:
    // the hover is answered ContentModified, and the next one for the new text.
    let busy = c.request("crd-studio/test-sleep", Value::Null);
    let id = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": url(&obj)}, "position": {"line": 5, "character": 4}}),
    );
    c.change(&obj, &BAD.replace("replicas: 20", "replicas: 2"), 2);
    c.response(busy);
    assert_eq!(c.response(id)["error"]["code"], -32801);
    let r = c.at("textDocument/hover", &obj, 5, 4);
    assert!(
        r["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("cronSpec"),
        "{r}"
    );
    c.stop();
}

#[test]
fn cel_errors_in_the_rule_and_version_notes() {
    // A rule that does not compile (the error inside its text) and one that names a function
    // Kubernetes 1.30 lacks.
    let crd = CRD
        .replace("rule: self.size() > 0", "rule: isIP(self)")
        .replace("rule: self == oldSelf", "rule: self.foo == oldSelf");
    let root = workspace(
        "cel",
        &[
            ("crd.yaml", &crd),
            (
                ".crd-studio.yaml",
                "# settings\nkubernetesVersion: \"1.30\"\n",
            ),
        ],
    );
    let mut c = Client::start(&root, Value::Null);
    let path = root.join("crd.yaml");
    let d = c.diagnostics(&path, |d| d.len() >= 2);
    let line_of = |needle: &str| crd.lines().position(|l| l.contains(needle)).unwrap();
    // The compile error: its range starts at `.foo`, inside the rule.
    let foo = d
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("foo"))
        .unwrap_or_else(|| panic!("{d:?}"));
    let start = &foo["range"]["start"];
    let line = line_of("self.foo == oldSelf");
    assert_eq!(start["line"].as_u64(), Some(line as u64), "{foo}");
    let text = crd.lines().nth(line).unwrap();
    assert_eq!(
        text.get(start["character"].as_u64().unwrap() as usize..),
        Some(".foo == oldSelf"),
        "{foo}"
    );
    // The version note: a line after the server's message (itself several lines: the rule and
    // a caret), and related information.
    let ip = d
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("isIP"))
        .unwrap_or_else(|| panic!("{d:?}"));
    let message = ip["message"].as_str().unwrap();
    let (server, note) = message.rsplit_once('\n').unwrap();
    assert!(
        server.contains("undeclared reference to 'isIP'") && server.ends_with("^"),
        "{message}"
    );
    assert_eq!(
        note,
        "`isIP` is available from Kubernetes 1.31 (selected: 1.30)"
    );
    assert!(
        ip["relatedInformation"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["message"] == note),
        "{ip}"
    );
    // The code action selects 1.31 in .crd-studio.yaml (its kubernetesVersion line).
    let id = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": url(&path)}, "range": ip["range"], "context": {"diagnostics": []}}),
    );
    let r = c.response(id);
    let actions = r["result"].as_array().unwrap();
    let settings = url(&root.join(".crd-studio.yaml"));
    let action = actions
        .iter()
        .find(|a| a["edit"]["changes"][&settings].is_array())
        .unwrap_or_else(|| panic!("{actions:?}"));
    assert!(
        action["title"]
            .as_str()
            .unwrap()
            .starts_with("Select Kubernetes 1.31 in .crd-studio.yaml"),
        "{action}"
    );
    let edit = &action["edit"]["changes"][&settings][0];
    assert_eq!(edit["newText"], "kubernetesVersion: \"1.31\"");
    assert_eq!(edit["range"]["start"], json!({"line": 1, "character": 0}));
    assert_eq!(edit["range"]["end"], json!({"line": 1, "character": 25}));
    c.stop();

    // Without a settings file (the version from the client), the action creates it.
    let root = workspace("cel-nofile", &[("crd.yaml", &crd)]);
    let mut c = Client::start(&root, json!({"kubernetesVersion": "1.30"}));
    let path = root.join("crd.yaml");
    let d = c.diagnostics(&path, |d| d.len() >= 2);
    let ip = d
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("isIP"))
        .unwrap_or_else(|| panic!("{d:?}"));
    let id = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": url(&path)}, "range": ip["range"], "context": {"diagnostics": []}}),
    );
    let r = c.response(id);
    let settings = url(&root.join(".crd-studio.yaml"));
    let ops = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|a| a["edit"]["documentChanges"].as_array())
        .unwrap_or_else(|| panic!("{r}"));
    assert_eq!(ops[0]["kind"], "create", "{ops:?}");
    assert_eq!(ops[0]["uri"], settings.as_str());
    assert_eq!(
        ops[1]["edits"][0]["newText"],
        "kubernetesVersion: \"1.31\"\n"
    );
    c.stop();
}

/// A test file: its failing expectation is a diagnostic at the expectation's place, cleared
/// when fixed; editing the CRD it names runs it again; a problem reading it is one at its
/// place; completion offers the format's keys and, in an inline object, the CRD's fields.
#[test]
fn test_files_diagnostics_and_completion() {
    const TEST: &str = "crd: ../crds/crontab.yaml\ncases:\n- name: too many\n  object:\n    apiVersion: stable.example.com/v1\n    kind: CronTab\n    metadata: {name: a}\n    spec:\n      cronSpec: '* * * * */5'\n      replicas: 20\n  expect:\n    verdict: rejected\n    errors:\n    - path: spec\n      message: replicas must be at most 11\n";
    let root = workspace(
        "tests",
        &[
            ("crds/crontab.yaml", CRD),
            ("tests/crontab.crdtest.yaml", TEST),
        ],
    );
    let mut c = Client::start(&root, Value::Null);
    let test = root.join("tests/crontab.crdtest.yaml");
    // A workspace test file is run without being opened.
    let d = c.diagnostics(&test, |d| !d.is_empty());
    assert_eq!(d.len(), 2, "{d:?}");
    let unmatched = d
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("expect.errors[0]"))
        .unwrap_or_else(|| panic!("{d:?}"));
    assert_eq!(
        unmatched["message"],
        "too many: expect.errors[0]: expected spec: \"replicas must be at most 11\", got spec: Invalid value: replicas must be at most 10"
    );
    // The expectation's place: line 14 (`- path: spec`), column 7, 0-based in the protocol.
    assert_eq!(
        unmatched["range"]["start"],
        json!({"line": 13, "character": 6})
    );
    assert_eq!(unmatched["code"], "crd-test.failed");
    assert_eq!(unmatched["severity"], 1);
    // Fixed: cleared.
    c.open(&test, TEST, 1);
    let fixed = TEST.replace("at most 11", "at most 10");
    c.change(&test, &fixed, 2);
    c.diagnostics(&test, |d| d.is_empty());
    // The CRD it names changes (an open buffer): the case runs again and fails.
    let crd_path = root.join("crds/crontab.yaml");
    c.open(
        &crd_path,
        &CRD.replace("replicas must be at most 10", "at most ten replicas"),
        1,
    );
    // (Picked by content: publications of the file's earlier states, passed over while
    // waiting above, are kept by the client and would match `!d.is_empty()`.)
    let d = c.diagnostics(&test, |d| {
        messages(d)
            .iter()
            .any(|m| m.contains("got spec: Invalid value: at most ten replicas"))
    });
    assert!(!d.is_empty());
    c.change(&crd_path, CRD, 2);
    c.diagnostics(&test, |d| d.is_empty());
    // A problem reading the test file: at its place.
    c.change(&test, &fixed.replace("  expect:\n", "  expectt:\n"), 3);
    let d = c.diagnostics(&test, |d| {
        d.iter().any(|d| d["message"] == "unknown field `expectt`")
    });
    let unknown = d
        .iter()
        .find(|d| d["message"] == "unknown field `expectt`")
        .unwrap_or_else(|| panic!("{d:?}"));
    assert_eq!(
        unknown["range"]["start"],
        json!({"line": 10, "character": 2})
    );
    assert_eq!(unknown["code"], "crd-test.invalid");

    // Completion: the format's keys (a case's), then the CRD's fields in the inline object.
    let typing = "crd: ../crds/crontab.yaml\ncases:\n- name: a\n  ex\n";
    c.change(&test, typing, 4);
    let r = c.at("textDocument/completion", &test, 3, 4);
    let labels: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["expect"], "{r}");
    assert_eq!(r["result"][0]["textEdit"]["newText"], "expect: ");
    assert_eq!(
        r["result"][0]["textEdit"]["range"],
        json!({"start": {"line": 3, "character": 2}, "end": {"line": 3, "character": 4}})
    );
    let typing = "crd: ../crds/crontab.yaml\ncases:\n- name: a\n  object:\n    apiVersion: stable.example.com/v1\n    kind: CronTab\n    spec:\n      \n";
    c.change(&test, typing, 5);
    let r = c.at("textDocument/completion", &test, 7, 6);
    let labels: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    for field in ["cronSpec", "image", "replicas"] {
        assert!(labels.contains(&field), "{field} in {labels:?}");
    }
    assert_eq!(
        r["result"][0]["textEdit"]["range"],
        json!({"start": {"line": 7, "character": 6}, "end": {"line": 7, "character": 6}})
    );
    // Hover on a format key.
    let h = c.at("textDocument/hover", &test, 3, 3);
    assert!(
        h["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("**object"),
        "{h}"
    );
    c.stop();
}
