use super::*;
use serde_json::json;

fn set(texts: &[&str]) -> MappingSet {
    let texts: Vec<String> = texts.iter().map(|t| (*t).to_owned()).collect();
    read_mappings(
        &texts,
        &["v1".to_owned(), "v2".to_owned()],
        KubernetesVersion::DEFAULT,
    )
}

fn messages(s: &MappingSet) -> Vec<String> {
    s.issues.iter().map(|i| i.message.clone()).collect()
}

const V1_TO_V2: &str = r#"from: v1
to: v2
rules:
  - move: {from: .spec.cronSpec, to: .spec.schedule}
  - set: {path: .spec.mode, value: "auto"}
  - cel: {path: .spec.replicas, expr: "self.spec.size * 2"}
  - drop: .spec.legacy
"#;

#[test]
fn paths() {
    let p = parse_path(".metadata.annotations['example.com/mode'][0].x").unwrap();
    assert_eq!(
        p,
        [
            Step::Key("metadata".into()),
            Step::Key("annotations".into()),
            Step::Key("example.com/mode".into()),
            Step::Index(0),
            Step::Key("x".into())
        ]
    );
    assert_eq!(
        path_text(&p),
        ".metadata.annotations['example.com/mode'][0].x"
    );
    assert_eq!(
        parse_path(r".a['it\'s']").unwrap()[1],
        Step::Key("it's".into())
    );
    for bad in [
        "spec", ".", ".a..b", ".a[x]", ".a['x'", ".a['x']y", ".a[]", ".a]",
    ] {
        assert!(parse_path(bad).is_err(), "{bad}");
    }
}

#[test]
fn set_and_remove() {
    let mut o = json!({"spec": {"l": [1, 2], "s": "x", "n": null}});
    set_path(&mut o, &parse_path(".spec.a.b").unwrap(), json!(1)).unwrap();
    set_path(&mut o, &parse_path(".spec.l[1]").unwrap(), json!(3)).unwrap();
    set_path(&mut o, &parse_path(".spec.n.x").unwrap(), json!(true)).unwrap();
    assert_eq!(
        o,
        json!({"spec": {"l": [1, 3], "s": "x", "a": {"b": 1}, "n": {"x": true}}})
    );
    assert_eq!(
        set_path(&mut o, &parse_path(".spec.s.x").unwrap(), json!(1)),
        Err("cannot write .spec.s.x: .spec.s is a string".into())
    );
    assert_eq!(
        set_path(&mut o, &parse_path(".spec.l[5]").unwrap(), json!(1)),
        Err(".spec.l[5] does not exist: the list has 2 items".into())
    );
    assert_eq!(
        set_path(&mut o, &parse_path(".spec.m[0]").unwrap(), json!(1)),
        Err(".spec.m is missing: a list is not created by index".into())
    );
    assert_eq!(
        remove_path(&mut o, &parse_path(".spec.l[0]").unwrap()),
        Some(json!(1))
    );
    assert_eq!(
        remove_path(&mut o, &parse_path(".spec.zz.y").unwrap()),
        None
    );
}

#[test]
fn the_documented_mapping_applies() {
    let s = set(&[V1_TO_V2]);
    assert!(s.issues.is_empty(), "{:?}", messages(&s));
    let m = s.find("v1", "v2").unwrap();
    assert_eq!(m.rules.len(), 4);
    let src = json!({"apiVersion": "example.com/v1", "kind": "CronTab",
                         "metadata": {"name": "a"},
                         "spec": {"cronSpec": "* * * * */5", "size": 3, "legacy": true}});
    let (out, notes) = apply(m, &src, "example.com").unwrap();
    assert!(notes.is_empty());
    assert_eq!(
        out,
        json!({"apiVersion": "example.com/v2", "kind": "CronTab", "metadata": {"name": "a"},
                   "spec": {"schedule": "* * * * */5", "mode": "auto", "size": 3, "replicas": 6}})
    );
    // A missing source is a note; a CEL error fails the object.
    let src = json!({"apiVersion": "example.com/v1", "kind": "CronTab", "spec": {}});
    let e = apply(m, &src, "example.com").unwrap_err();
    assert_eq!(e.rule, 2);
    assert_eq!(e.message, "rule 3 (cel .spec.replicas): no such key: size");
    assert_eq!(e.location.unwrap().span.start.line, 6);
}

#[test]
fn rules_read_the_source_so_moves_swap() {
    let s = set(&[
        "from: v1\nto: v2\nrules:\n- move: {from: .a, to: .b}\n- move: {from: .b, to: .a}\n",
    ]);
    let m = s.find("v1", "v2").unwrap();
    let (out, _) = apply(m, &json!({"a": 1, "b": 2}), "g").unwrap();
    assert_eq!(out, json!({"apiVersion": "g/v2", "a": 2, "b": 1}));
}

#[test]
fn cel_values() {
    let s = set(&[r#"from: v1
to: v2
rules:
- cel: {path: .a, expr: "optional.none()"}
- cel: {path: .b, expr: "optional.of(self.x)"}
- cel: {path: .c, expr: "duration('1h30m')"}
- cel: {path: .d, expr: "timestamp('2024-01-02T03:04:05Z')"}
- cel: {path: .e, expr: "{'k': [2.0, 2.5]}"}
- cel: {path: .h, expr: "[dyn(1), dyn('x'), dyn(null), dyn(true)]"}
- cel: {path: .f, expr: "b'hi'"}
- cel: {path: .g, expr: "self.metadata.labels['app.kubernetes.io/name'] + '-x'"}
"#]);
    assert!(s.issues.is_empty(), "{:?}", messages(&s));
    let m = s.find("v1", "v2").unwrap();
    let src =
        json!({"a": 1, "x": {"y": 1}, "metadata": {"labels": {"app.kubernetes.io/name": "n"}}});
    let (out, _) = apply(m, &src, "g").unwrap();
    assert_eq!(out.get("a"), None);
    assert_eq!(out["b"], json!({"y": 1}));
    assert_eq!(out["c"], json!("5400s"));
    assert_eq!(out["d"], json!("2024-01-02T03:04:05Z"));
    assert_eq!(out["e"], json!({"k": [2, 2.5]}));
    assert_eq!(out["h"], json!([1, "x", null, true]));
    assert_eq!(out["f"], json!("aGk="));
    assert_eq!(out["g"], json!("n-x"));
    let s = set(&["from: v1\nto: v2\nrules:\n- cel: {path: .a, expr: \"quantity('1Gi')\"}\n"]);
    let e = apply(s.find("v1", "v2").unwrap(), &json!({}), "g").unwrap_err();
    assert!(
        e.message.contains("cannot be written as JSON"),
        "{}",
        e.message
    );
}

#[test]
fn reading_errors_are_located() {
    let s = set(&[r#"from: v1
to: v3
rules:
- move: {from: spec.a, to: .b}
- cel: {path: .a, expr: "self.x +"}
- frob: .a
- set: {path: .a}
"#]);
    let m = messages(&s);
    assert!(
        m.iter()
            .any(|x| x == "v3 is not a version of the CRD (v1, v2)"),
        "{m:?}"
    );
    assert!(m.iter().any(|x| x.contains("must start with '.'")), "{m:?}");
    assert!(
        m.iter()
            .any(|x| x.starts_with("compilation failed: ERROR: <input>:1:9: Syntax error")),
        "{m:?}"
    );
    assert!(
        m.iter().any(|x| x.starts_with("unknown rule \"frob\"")),
        "{m:?}"
    );
    assert!(m.iter().any(|x| x == "set needs `value`"), "{m:?}");
    let cel = s.issues.iter().find(|i| i.code == "mapping.cel").unwrap();
    let span = cel.location.unwrap().span;
    // Line 5, at the end of the expression inside the quotes.
    assert_eq!((span.start.line, span.start.column), (5, 34));
    assert!(s.mappings.is_empty());
}

#[test]
fn duplicates_and_yaml_errors() {
    let s = set(&[V1_TO_V2, V1_TO_V2, "from: [v1\n"]);
    assert_eq!(s.mappings.len(), 1);
    assert!(s.issues.iter().any(|i| i.code == "mapping.duplicate"));
    assert!(s
        .issues
        .iter()
        .any(|i| i.code == "mapping.syntax" && i.location.map(|l| l.mapping) == Some(2)));
}

#[test]
fn first_differences() {
    let a = json!({"spec": {"a": 1, "b": [1, 2], "c": "x"}});
    assert_eq!(first_difference(&a, &a), None);
    let b = json!({"spec": {"a": 1, "b": [1, 3], "c": "y"}});
    let (_, d) = first_difference(&a, &b).unwrap();
    assert_eq!(d.path, ".spec.b[1]");
    assert_eq!((d.before, d.after), (Some(json!(2)), Some(json!(3))));
    let c = json!({"spec": {"a": 1, "b": [1, 2], "c": "x", "aa": 0}});
    let (_, d) = first_difference(&a, &c).unwrap();
    assert_eq!(d.path, ".spec.aa");
    assert_eq!(d.before, None);
}

#[test]
fn blame_prefers_the_rule_that_reads_the_lost_field() {
    let s = set(&[
        V1_TO_V2,
        "from: v2\nto: v1\nrules:\n- move: {from: .spec.schedule, to: .spec.cronSpec}\n",
    ]);
    let out = s.find("v1", "v2").unwrap();
    let back = s.find("v2", "v1").unwrap();
    let loc = blame(out, back, &parse_path(".spec.legacy").unwrap(), None, None);
    assert_eq!((loc.mapping, loc.span.start.line), (0, 7));
    let loc = blame(
        out,
        back,
        &parse_path(".spec.cronSpec").unwrap(),
        None,
        None,
    );
    assert_eq!(loc.span.start.line, 4);
    let loc = blame(out, back, &parse_path(".spec.other").unwrap(), None, None);
    assert_eq!(loc.span.start.line, 1);
}

const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: crontabs, kind: CronTab}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: ["v1"]
      clientConfig: {url: "https://example.com/convert"}
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
              cronSpec: {type: string}
              size: {type: integer}
              legacy: {type: boolean}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              schedule: {type: string, minLength: 3}
              replicas: {type: integer}
"#;

const THERE_AND_BACK: &str = r#"from: v1
to: v2
rules:
- move: {from: .spec.cronSpec, to: .spec.schedule}
- cel: {path: .spec.replicas, expr: "self.spec.size * 2"}
- drop: .spec.size
---
from: v2
to: v1
rules:
- move: {from: .spec.schedule, to: .spec.cronSpec}
- cel: {path: .spec.size, expr: "self.spec.replicas / 2"}
- drop: .spec.replicas
"#;

fn samples(objects: &[&str]) -> (crate::report::analysis::CompiledCrd, Vec<Sample>) {
    let crd = crate::report::analysis::CompiledCrd::compile(
        CRD,
        &crate::report::analysis::Options::default(),
    );
    assert!(crd.findings().is_empty(), "{:?}", crd.findings());
    let texts: Vec<String> = objects.iter().map(|o| (*o).to_owned()).collect();
    let a = crd.analyze_objects(&texts, None);
    let samples = a
        .objects
        .iter()
        .map(|o| Sample {
            source: o.source,
            document: o.document,
            object: o.prepared.to_value(),
        })
        .collect();
    (crd, samples)
}

const SAMPLE: &str = "apiVersion: example.com/v1\nkind: CronTab\nmetadata: {name: a, namespace: ns}\nspec: {cronSpec: '* * * * *', size: 3}\n";

#[test]
fn preview_converts_through_the_server_and_round_trips() {
    let (crd, samples) = samples(&[SAMPLE]);
    let p = preview(&crd, &samples, &[THERE_AND_BACK.to_owned()], "v2");
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(p.error, None);
    // The engine's uid of the request, the one the CLI and the webhook check use too.
    let uid = crate::versions::conversion::webhook::request_uid(
        "example.com/v2",
        &[samples[0].object.clone()],
    );
    assert!(p.request_text.as_deref().unwrap().contains(&uid));
    let check = p.check.unwrap();
    assert!(check.accepted, "{:?}", check.issues);
    assert_eq!(
        check.objects[0].object["spec"],
        json!({"schedule": "* * * * *", "replicas": 6})
    );
    assert_eq!(p.objects[0].from, "v1");
    assert!(p.objects[0].sent);
    assert_eq!(p.round_trips.len(), 1);
    assert!(p.round_trips[0].lossless, "{:?}", p.round_trips[0]);
    assert_eq!(p.round_trips[0].result.as_ref(), Some(&samples[0].object));
}

#[test]
fn a_field_the_target_schema_drops_is_a_lossy_round_trip() {
    let obj = "apiVersion: example.com/v1\nkind: CronTab\nmetadata: {name: a}\nspec: {cronSpec: '* * * * *', size: 3, legacy: true}\n";
    let (crd, samples) = samples(&[obj]);
    let p = preview(&crd, &samples, &[THERE_AND_BACK.to_owned()], "v2");
    let rt = &p.round_trips[0];
    assert!(!rt.lossless);
    let d = rt.difference.as_ref().unwrap();
    assert_eq!(d.path, ".spec.legacy");
    assert_eq!(
        (d.before.clone(), d.after.clone()),
        (Some(json!(true)), None)
    );
    // No rule reads or writes it: the mapping out is to blame.
    assert_eq!(rt.location.unwrap().span.start.line, 1);
    let issue = p
        .issues
        .iter()
        .find(|i| i.code == "conversion.round-trip")
        .unwrap();
    assert_eq!(
        issue.message,
        "round trip v1 → v2 → v1 of a changes .spec.legacy: true → (absent)"
    );
    // The conversion itself is accepted: the server prunes the field.
    let check = p.check.unwrap();
    assert!(check.accepted);
    assert_eq!(check.objects[0].pruned_paths, ["spec.legacy"]);
}

#[test]
fn failures_become_failed_responses() {
    let obj = "apiVersion: example.com/v1\nkind: CronTab\nmetadata: {name: a}\nspec: {cronSpec: '* * * * *'}\n";
    let (crd, samples) = samples(&[obj]);
    let p = preview(&crd, &samples, &[THERE_AND_BACK.to_owned()], "v2");
    assert_eq!(
        p.response.as_ref().unwrap()["response"]["result"],
        json!({"status": "Failed", "message": "rule 2 (cel .spec.replicas): no such key: size"})
    );
    let check = p.check.unwrap();
    assert!(!check.accepted);
    assert_eq!(
            check.error().unwrap().message,
            "conversion webhook for example.com/v1, Kind=CronTab failed: rule 2 (cel .spec.replicas): no such key: size"
        );
    let issue = p
        .issues
        .iter()
        .find(|i| i.code == "conversion.rule-failed")
        .unwrap();
    assert_eq!(issue.location.unwrap().span.start.line, 5);
    // No mapping for the pair at all.
    let p = preview(&crd, &samples, &[], "v2");
    assert!(p.issues.iter().any(
        |i| i.code == "mapping.missing" && i.message == "a (v1 → v2): no mapping from v1 to v2"
    ));
    assert!(p.round_trips.is_empty());
    // An unknown target version is the converter's error.
    let p = preview(&crd, &samples, &[], "v9");
    assert!(p.error.is_some());
}

#[test]
fn metadata_changes_are_restored_but_annotations_carry_data() {
    let mapping = r#"from: v1
to: v2
rules:
- move: {from: .spec.cronSpec, to: .spec.schedule}
- cel: {path: .spec.replicas, expr: "self.spec.size * 2"}
- drop: .spec.size
- copy: {from: .spec.legacy, to: ".metadata.annotations['example.com/legacy']"}
- cel: {path: ".metadata.annotations['example.com/legacy']", expr: "string(self.spec.legacy)"}
- drop: .spec.legacy
- set: {path: .metadata.generation, value: 7}
---
from: v2
to: v1
rules:
- move: {from: .spec.schedule, to: .spec.cronSpec}
- cel: {path: .spec.size, expr: "self.spec.replicas / 2"}
- drop: .spec.replicas
- cel: {path: .spec.legacy, expr: "self.metadata.annotations['example.com/legacy'] == 'true'"}
- drop: .metadata.annotations
"#;
    let obj = "apiVersion: example.com/v1\nkind: CronTab\nmetadata: {name: a}\nspec: {cronSpec: '* * * * *', size: 3, legacy: true}\n";
    let (crd, samples) = samples(&[obj]);
    let p = preview(&crd, &samples, &[mapping.to_owned()], "v2");
    let check = p.check.as_ref().unwrap();
    assert!(check.accepted, "{:?}", check.issues);
    let converted = &check.objects[0];
    assert_eq!(
        converted.object["metadata"]["annotations"],
        json!({"example.com/legacy": "true"})
    );
    assert_eq!(converted.object["metadata"]["generation"], json!(1));
    assert!(p.round_trips[0].lossless, "{:?}", p.round_trips[0]);
}

#[test]
fn objects_already_in_the_target_are_not_sent() {
    let v2 = "apiVersion: example.com/v2\nkind: CronTab\nmetadata: {name: b}\nspec: {schedule: '1 * * * *', replicas: 4}\n";
    let (crd, samples) = samples(&[SAMPLE, v2]);
    let p = preview(&crd, &samples, &[THERE_AND_BACK.to_owned()], "v2");
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    let call = p.call.as_ref().unwrap();
    assert!(call.list);
    assert_eq!(call.request.as_ref().unwrap().objects.len(), 1);
    assert_eq!(
        p.objects.iter().map(|o| o.sent).collect::<Vec<_>>(),
        [true, false]
    );
    let check = p.check.unwrap();
    assert!(check.accepted, "{:?}", check.issues);
    assert_eq!(check.objects.len(), 2);
    assert_eq!(check.objects[1].object["spec"]["replicas"], json!(4));
    // Both samples round-trip: v1 through v2, v2 through v1.
    let trips: Vec<(&str, &str, bool)> = p
        .round_trips
        .iter()
        .map(|r| (r.from.as_str(), r.via.as_str(), r.lossless))
        .collect();
    assert_eq!(trips, [("v1", "v2", true), ("v2", "v1", true)]);
}

const FORWARD: &str = "from: v1\nto: v2\nrules:\n- move: {from: .spec.cronSpec, to: .spec.schedule}\n- move: {from: .spec.size, to: .spec.replicas}\n";

fn reverse(second_rule: &str) -> String {
    format!("from: v2\nto: v1\nrules:\n- move: {{from: .spec.schedule, to: .spec.cronSpec}}\n- {second_rule}\n")
}

/// The round trip's warning and the line of the rule it is located at.
fn round_trip_blame(mappings: &[String]) -> (String, usize, usize) {
    let (crd, samples) = samples(&[SAMPLE]);
    let p = preview(&crd, &samples, mappings, "v2");
    let rt = p
        .issues
        .iter()
        .find(|i| i.code == "conversion.round-trip")
        .unwrap_or_else(|| panic!("no round-trip issue: {:?}", p.issues));
    let loc = rt.location.unwrap();
    (rt.message.clone(), loc.mapping, loc.span.start.line)
}

/// Issue 14, item 7f: a typo in the reverse mapping is blamed on the reverse rule, at its
/// line, not on the forward rule that moved the field.
#[test]
fn a_typo_in_the_reverse_mapping_is_blamed_on_the_reverse_rule() {
    // A typo in the reverse rule's source: line 5 of the second text.
    let typo_from = reverse("move: {from: .spec.replicsa, to: .spec.size}");
    let (message, mapping, line) = round_trip_blame(&[FORWARD.to_owned(), typo_from]);
    assert!(
        message.contains("changes .spec.size: 3 → (absent)"),
        "{message}"
    );
    assert_eq!((mapping, line), (1, 5), "{message}");
    // A typo in the reverse rule's target.
    let typo_to = reverse("move: {from: .spec.replicas, to: .spec.sise}");
    let (_, mapping, line) = round_trip_blame(&[FORWARD.to_owned(), typo_to]);
    assert_eq!((mapping, line), (1, 5));
    // A typo in the forward rule's target stays the forward rule's.
    let forward_typo = FORWARD.replace("to: .spec.replicas", "to: .spec.replcias");
    let good_back = reverse("move: {from: .spec.replicas, to: .spec.size}");
    let (_, mapping, line) = round_trip_blame(&[forward_typo, good_back]);
    assert_eq!((mapping, line), (0, 5));
    // A field the way back drops is blamed on the drop.
    let drops = format!(
        "{}- drop: .spec.size\n",
        reverse("move: {from: .spec.replicas, to: .spec.size}")
    );
    let (_, mapping, line) = round_trip_blame(&[FORWARD.to_owned(), drops]);
    assert_eq!((mapping, line), (1, 6));
}

/// Issue 14, item 7f: mapping targets are checked against the target version's schema
/// (an error at the rule naming the field and the version); sources against the source's.
#[test]
fn mapping_paths_are_checked_against_the_schemas() {
    let (crd, samples) = samples(&[SAMPLE]);
    let texts = [
        FORWARD.replace("to: .spec.replicas", "to: .spec.replcias"),
        reverse("move: {from: .spec.replicsa, to: .spec.size}"),
    ];
    let p = preview(&crd, &samples, &texts, "v2");
    let found: Vec<(String, String, usize, usize)> = p
        .issues
        .iter()
        .filter(|i| i.code.starts_with("mapping.unknown"))
        .map(|i| {
            let l = i.location.unwrap();
            (
                i.code.clone(),
                i.message.clone(),
                l.mapping,
                l.span.start.line,
            )
        })
        .collect();
    assert_eq!(
            found,
            [
                (
                    "mapping.unknown-target".to_owned(),
                    "move .spec.size → .spec.replcias: target field .spec.replcias is not in the schema of v2 (.spec has replicas, schedule): the server would prune what the rule writes".to_owned(),
                    0,
                    5
                ),
                (
                    "mapping.unknown-source".to_owned(),
                    "move .spec.replicsa → .spec.size: source field .spec.replicsa is not in the schema of v2 (.spec has replicas, schedule): the rule never finds a value there".to_owned(),
                    1,
                    5
                ),
            ]
        );
    // Metadata is the server's; a path through a scalar has no place either.
    let p = preview(
            &crd,
            &samples,
            &["from: v1\nto: v2\nrules:\n- set: {path: .metadata.labels.x, value: y}\n- set: {path: .spec.schedule.x, value: 1}\n".to_owned()],
            "v2",
        );
    let found: Vec<&str> = p
        .issues
        .iter()
        .filter(|i| i.code.starts_with("mapping.unknown"))
        .map(|i| i.message.as_str())
        .collect();
    assert_eq!(
            found,
            ["set .spec.schedule.x: target field .spec.schedule.x is not in the schema of v2 (.spec.schedule is of type string): the server would prune what the rule writes"]
        );
}
