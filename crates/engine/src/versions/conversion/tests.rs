use super::webhook::ReviewVersion;
use super::*;
use crate::report::analysis::{CompiledCrd, Options};
use serde_json::json;

const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, listKind: CronTabList}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: ["v1", "v1beta1"]
      clientConfig:
        url: https://example.com/convert
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              hostPort: {type: string}
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
              host: {type: string}
              port: {type: string, pattern: '^[0-9]+$'}
"#;

fn crd(text: &str) -> CompiledCrd {
    let c = CompiledCrd::compile(text, &Options::default());
    assert!(c.findings().is_empty(), "{:?}", c.findings());
    c
}

fn none_crd() -> CompiledCrd {
    crd(&CRD.replace(
        "    strategy: Webhook\n    webhook:\n      conversionReviewVersions: [\"v1\", \"v1beta1\"]\n      clientConfig:\n        url: https://example.com/convert\n",
        "    strategy: None\n",
    ))
}

fn object(name: &str) -> Json {
    json!({
        "apiVersion": "stable.example.com/v1beta1",
        "kind": "CronTab",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
            "resourceVersion": "143", "labels": {"app": "cron"}},
        "spec": {"hostPort": "localhost:1234"},
    })
}

fn converted(name: &str) -> Json {
    json!({
        "apiVersion": "stable.example.com/v1",
        "kind": "CronTab",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
            "resourceVersion": "143", "labels": {"app": "cron"}},
        "spec": {"host": "localhost", "port": "1234"},
    })
}

fn call(objects: &[Json]) -> (CompiledCrd, WebhookCall) {
    let c = crd(CRD);
    let call = conversion_review(&c, objects, "v1", Some("u-1")).unwrap();
    (c, call)
}

/// Checks `response` (made into pretty JSON) for a call converting `objects`.
fn check(objects: &[Json], response: Json) -> ResponseCheck {
    let (c, call) = call(objects);
    let text = serde_json::to_string_pretty(&response).unwrap();
    check_conversion_response(&c, &call, &text)
}

fn only_error(check: &ResponseCheck) -> &str {
    assert!(!check.accepted);
    check.issues.first().map(|i| i.message.as_str()).unwrap()
}

fn success(objects: Vec<Json>) -> Json {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "response": {"uid": "u-1", "result": {"status": "Success"},
            "convertedObjects": objects}})
}

#[test]
fn the_request_is_the_servers() {
    let (_, call) = call(&[object("a")]);
    assert!(!call.list);
    assert_eq!(call.subject, "stable.example.com/v1beta1, Kind=CronTab");
    assert_eq!(call.sent, vec![Some(0)]);
    let request = call.request.unwrap();
    assert_eq!(request.review_version, ReviewVersion::V1);
    assert_eq!(request.desired_api_version, "stable.example.com/v1");
    assert_eq!(request.uid, "u-1");
    assert_eq!(request.objects, vec![object("a")]);
}

#[test]
fn objects_in_the_desired_version_are_not_sent() {
    // One object already in the version: no call at all.
    let (_, single) = call(&[converted("a")]);
    assert_eq!(single.request, None);
    // Several: a list; only the others are sent.
    let (c, list) = call(&[converted("a"), object("b")]);
    assert!(list.list);
    assert_eq!(list.subject, "stable.example.com/v1, Kind=CronTabList");
    assert_eq!(list.sent, vec![None, Some(0)]);
    assert_eq!(list.request.as_ref().unwrap().objects, vec![object("b")]);
    let text = serde_json::to_string(&success(vec![converted("b")])).unwrap();
    let check = check_conversion_response(&c, &list, &text);
    assert!(check.accepted, "{:?}", check.issues);
    assert_eq!(check.objects.len(), 2);
    assert!(!check.objects[0].sent);
    assert_eq!(check.objects[1].object, converted("b"));
}

#[test]
fn the_review_version_follows_the_crd() {
    let c = crd(&CRD.replace("[\"v1\", \"v1beta1\"]", "[\"v1beta1\", \"v1\"]"));
    let call = conversion_review(&c, &[object("a")], "v1", Some("u")).unwrap();
    assert_eq!(call.request.unwrap().review_version, ReviewVersion::V1beta1);
}

#[test]
fn invalid_versions_fail_before_the_call() {
    let c = crd(CRD);
    assert_eq!(
        conversion_review(&c, &[object("a")], "v3", Some("u")).unwrap_err(),
        "request to convert CR to an invalid group/version: stable.example.com/v3"
    );
    let mut other = object("a");
    other["apiVersion"] = json!("other.example.com/v1");
    assert_eq!(
        conversion_review(&c, &[other], "v1", Some("u")).unwrap_err(),
        "other.example.com/v1, Kind=CronTab is unstructured and is not suitable for converting to \"stable.example.com/v1\""
    );
    let mut old = object("a");
    old["apiVersion"] = json!("stable.example.com/v1alpha1");
    assert_eq!(
        conversion_review(&c, &[object("b"), old], "v1", Some("u")).unwrap_err(),
        "request to convert CR list failed, list index 1 has invalid group/version: stable.example.com/v1alpha1"
    );
}

#[test]
fn a_correct_response_is_accepted() {
    let check = check(&[object("a")], success(vec![converted("a")]));
    assert!(check.accepted, "{:?}", check.issues);
    let o = &check.objects[0];
    assert!(o.sent);
    assert_eq!(o.object, converted("a"));
    assert!(o.pruned_paths.is_empty());
    assert!(o.target_errors.is_empty(), "{:?}", o.target_errors);
}

#[test]
fn uid_mismatch() {
    let mut r = success(vec![converted("a")]);
    r["response"]["uid"] = json!("u-2");
    let check = check(&[object("a")], r);
    assert_eq!(
        only_error(&check),
        "conversion webhook for stable.example.com/v1beta1, Kind=CronTab failed: expected response.uid=\"u-1\", got \"u-2\""
    );
    let issue = &check.issues[0];
    assert_eq!(issue.response_path.as_deref(), Some("response.uid"));
    // Pretty JSON: "response" is on line 5 (keys sorted), its "uid" on its last line.
    assert!(issue.span.unwrap().start.line > 1);
}

#[test]
fn failed_status_with_and_without_message() {
    let failed = |message: Option<&str>| {
        let mut result = json!({"status": "Failed"});
        if let Some(m) = message {
            result["message"] = json!(m);
        }
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "response": {"uid": "u-1", "result": result}})
    };
    let check1 = check(
        &[object("a")],
        failed(Some(
            "hostPort could not be parsed into a separate host and port",
        )),
    );
    assert_eq!(
        only_error(&check1),
        "conversion webhook for stable.example.com/v1beta1, Kind=CronTab failed: hostPort could not be parsed into a separate host and port"
    );
    assert_eq!(
        check1.issues[0].response_path.as_deref(),
        Some("response.result.message")
    );
    let check2 = check(&[object("a")], failed(None));
    assert_eq!(
        only_error(&check2),
        "conversion webhook for stable.example.com/v1beta1, Kind=CronTab failed: response.result.status was 'Failed', not 'Success'"
    );
}

#[test]
fn count_mismatch() {
    let check = check(&[object("a")], success(vec![]));
    assert_eq!(
        only_error(&check),
        "conversion webhook for stable.example.com/v1beta1, Kind=CronTab returned 0 objects, expected 1"
    );
    let check = check_list_of_two(success(vec![converted("a")]));
    assert_eq!(
        only_error(&check),
        "conversion webhook for stable.example.com/v1, Kind=CronTabList returned 1 objects, expected 2"
    );
}

fn check_list_of_two(response: Json) -> ResponseCheck {
    check(&[object("a"), object("b")], response)
}

#[test]
fn changed_name_is_rejected() {
    let mut c = converted("a");
    c["metadata"]["name"] = json!("renamed");
    let single = check(&[object("a")], success(vec![c.clone()]));
    assert_eq!(
        only_error(&single),
        "conversion webhook for stable.example.com/v1beta1, Kind=CronTab returned invalid object: must have the same name: a != renamed"
    );
    assert_eq!(
        single.issues[0].response_path.as_deref(),
        Some("response.convertedObjects[0].metadata.name")
    );
    let mut c2 = converted("b");
    c2["metadata"]["namespace"] = json!("elsewhere");
    let list = check_list_of_two(success(vec![converted("a"), c2]));
    assert_eq!(
        only_error(&list),
        "conversion webhook for stable.example.com/v1, Kind=CronTabList returned invalid converted object at index 1: must have the same namespace: default != elsewhere"
    );
    assert_eq!(list.issues[0].object, Some(1));
    // The request fails: the server ends up with no object, not even the valid first one.
    assert!(single.objects.is_empty(), "{:?}", single.objects);
    assert!(list.objects.is_empty(), "{:?}", list.objects);
    assert_eq!(
        list.error().map(|i| i.message.as_str()),
        Some(list.issues[0].message.as_str())
    );
}

#[test]
fn changed_labels_are_kept_other_metadata_restored() {
    let mut c = converted("a");
    c["metadata"]["labels"] = json!({"app": "cron", "converted": "yes"});
    c["metadata"]["annotations"] = json!({"example.com/from": "v1beta1"});
    c["metadata"]["resourceVersion"] = json!("999");
    c["metadata"]["generation"] = json!(7);
    let check = check(&[object("a")], success(vec![c]));
    assert!(check.accepted, "{:?}", check.issues);
    let o = &check.objects[0];
    assert_eq!(
        o.object["metadata"],
        json!({"name": "a", "namespace": "default", "uid": "uid-a", "resourceVersion": "143",
            "labels": {"app": "cron", "converted": "yes"},
            "annotations": {"example.com/from": "v1beta1"}})
    );
    assert_eq!(
        o.discarded_metadata,
        vec!["metadata.generation", "metadata.resourceVersion"]
    );
}

#[test]
fn invalid_label_value_is_rejected() {
    let mut c = converted("a");
    c["metadata"]["labels"] = json!({"app": "not valid!"});
    let check = check(&[object("a")], success(vec![c]));
    assert_eq!(
        only_error(&check),
        "conversion webhook for stable.example.com/v1beta1, Kind=CronTab returned invalid metadata: metadata.labels: Invalid value: \"not valid!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
    );
    assert_eq!(
        check.issues[0].response_path.as_deref(),
        Some("response.convertedObjects[0].metadata.labels")
    );
}

#[test]
fn kind_and_api_version_mismatch() {
    let mut c = converted("a");
    c["kind"] = json!("CronJob");
    assert_eq!(
        only_error(&check(&[object("a")], success(vec![c]))),
        "conversion webhook for stable.example.com/v1beta1, Kind=CronTab returned invalid object at index 0: invalid kind (expected CronTab, received CronJob)"
    );
    let c = object("a");
    let check1 = check(&[object("a")], success(vec![c]));
    assert_eq!(
        only_error(&check1),
        "conversion webhook for stable.example.com/v1beta1, Kind=CronTab returned invalid object at index 0: invalid groupVersion (expected stable.example.com/v1, received stable.example.com/v1beta1)"
    );
    assert_eq!(
        check1.issues[0].response_path.as_deref(),
        Some("response.convertedObjects[0].apiVersion")
    );
    let mut c = converted("b");
    c["kind"] = json!("CronJob");
    assert_eq!(
        only_error(&check_list_of_two(success(vec![converted("a"), c]))),
        "conversion webhook for stable.example.com/v1, Kind=CronTabList returned invalid converted object at index 1: invalid kind (expected CronTab, received CronJob)"
    );
}

#[test]
fn a_converted_object_without_kind() {
    let (c, call) = call(&[object("a")]);
    let text = r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
  "response": {"uid": "u-1", "result": {"status": "Success"},
    "convertedObjects": [ {"apiVersion": "stable.example.com/v1"} ]}}"#;
    let check = check_conversion_response(&c, &call, text);
    assert_eq!(
        only_error(&check),
        "Object 'Kind' is missing in '{\"apiVersion\": \"stable.example.com/v1\"}'"
    );
}

#[test]
fn how_the_body_is_decoded() {
    let (c, call) = call(&[object("a")]);
    let run = |text: &str| check_conversion_response(&c, &call, text);
    let prefix = "conversion webhook for stable.example.com/v1beta1, Kind=CronTab failed: ";
    let first = |check: ResponseCheck| check.issues[0].message.clone();
    assert_eq!(
        first(run(r#"{"apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "ConversionReview", "response": {}}"#)),
        format!("{prefix}converting (v1beta1.ConversionReview) to (v1.ConversionReview): unknown conversion")
    );
    assert_eq!(
        first(run(r#"{"apiVersion": "apiextensions.k8s.io/v2", "kind": "ConversionReview"}"#)),
        format!("{prefix}no kind \"ConversionReview\" is registered for version \"apiextensions.k8s.io/v2\" in scheme \"k8s.io/apiserver/pkg/util/webhook/client.go:74\"")
    );
    assert_eq!(
        first(run(r#"{"kind": "ConversionReview", "response": {"uid": "u-1", "result": {"status": "Success"}}}"#)),
        format!("{prefix}expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /, Kind=ConversionReview")
    );
    assert_eq!(
        first(run(r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "response": {"uid": 5}}"#)),
        format!("{prefix}json: cannot unmarshal number into Go struct field ConversionResponse.response.uid of type types.UID")
    );
    assert_eq!(
        first(run(r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "response": {"result": {"code": 1.5}}}"#)),
        format!("{prefix}json: cannot unmarshal number 1.5 into Go struct field Status.response.result.code of type int32")
    );
    assert_eq!(
        first(run(r#"{"apiVersion": 1}"#)),
        format!("{prefix}couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .apiVersion of type string")
    );
    assert_eq!(
        first(run(
            r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"}"#
        )),
        format!("{prefix}no response provided")
    );
    assert_eq!(
        first(run("")),
        "conversion webhook for stable.example.com/v1beta1, Kind=CronTab failed: 0-length response with status code: 200 and content type: application/json"
    );
    let syntax = run("{\"response\": ");
    assert!(syntax.issues[0].studio);
    // A YAML body is decoded too (the codec's YAML serializer).
    let yaml = "apiVersion: apiextensions.k8s.io/v1\nkind: ConversionReview\nresponse:\n  uid: u-1\n  result: {status: Success}\n  convertedObjects:\n  - apiVersion: stable.example.com/v1\n    kind: CronTab\n    metadata: {name: a, namespace: default, uid: uid-a}\n";
    let check = run(yaml);
    assert!(check.accepted, "{:?}", check.issues);
}

#[test]
fn the_target_schema_prunes_and_notes_errors() {
    let mut c = converted("a");
    c["spec"]["hostPort"] = json!("left over");
    c["spec"]["port"] = json!("http");
    let check = check(&[object("a")], success(vec![c]));
    assert!(check.accepted, "{:?}", check.issues);
    let o = &check.objects[0];
    assert_eq!(o.pruned_paths, vec!["spec.hostPort"]);
    assert_eq!(
        o.object["spec"],
        json!({"host": "localhost", "port": "http"})
    );
    assert_eq!(o.target_errors.len(), 1);
    assert_eq!(
        o.target_errors[0].error,
        "spec.port: Invalid value: \"http\": spec.port in body should match '^[0-9]+$'"
    );
}

#[test]
fn none_conversion_rewrites_api_version_and_prunes() {
    let c = none_crd();
    let out = convert(&c, &object("a"), "v1").unwrap();
    assert_eq!(out.object["apiVersion"], json!("stable.example.com/v1"));
    assert_eq!(out.pruned_paths, vec!["spec.hostPort"]);
    assert_eq!(out.object["spec"], json!({}));
    assert_eq!(
        convert(&c, &object("a"), "v9").unwrap_err(),
        "request to convert CR to an invalid group/version: stable.example.com/v9"
    );
    // A webhook CRD converts only what needs no webhook.
    let w = crd(CRD);
    assert!(convert(&w, &object("a"), "v1").is_err());
    assert_eq!(
        convert(&w, &object("a"), "v1beta1").unwrap().object,
        object("a")
    );
    assert!(conversion_review(&c, &[object("a")], "v1", Some("u")).is_err());
}

#[test]
fn served_as_goes_through_storage() {
    let c = none_crd();
    // Stored from v1beta1: the storage version (v1) drops hostPort on write.
    let served = served_as(&c, &object("a"));
    assert_eq!(served.len(), 2);
    for s in &served {
        assert_eq!(s.pruned_paths, vec!["spec.hostPort"], "{}", s.version);
        assert_eq!(s.object.to_value()["spec"], json!({}));
        assert_eq!(
            s.object.to_value()["apiVersion"],
            json!(format!("stable.example.com/{}", s.version))
        );
    }
    // A webhook CRD: only the versions that need no webhook.
    let w = crd(CRD);
    assert!(served_as(&w, &object("a")).is_empty());
    let from_storage = served_as(&w, &converted("a"));
    assert_eq!(from_storage.len(), 1);
    assert_eq!(from_storage[0].version, "v1");
}

/// The stored object of a multi-version CRD (apiextensions-apiserver
/// `pkg/apiserver/customresource_handler.go`: the storage codec's `schemaCoercingConverter`
/// converts to the storage version with `crConverter`, then `unstructuredSchemaCoercer.apply`
/// prunes with the storage version's schema): an object created in v1beta1 is persisted as
/// `stable.example.com/v1`, without the field v1 does not have.
#[test]
fn stored_objects_are_in_the_storage_version() {
    let c = none_crd();
    let p = to_storage(&c, &object("a")).unwrap();
    assert_eq!(p.version, "v1");
    assert_eq!(p.pruned_paths, vec!["spec.hostPort"]);
    assert_eq!(p.object["apiVersion"], json!("stable.example.com/v1"));
    assert_eq!(p.object["spec"], json!({}));
    // Already in the storage version: nothing to convert or drop.
    let p = to_storage(&c, &converted("a")).unwrap();
    assert_eq!(p.object, converted("a"));
    assert!(p.pruned_paths.is_empty());
    // The webhook would convert it: the engine cannot tell what is stored.
    let w = crd(CRD);
    assert_eq!(
        to_storage(&w, &object("a")).unwrap_err(),
        "converting it to the storage version v1 needs the conversion webhook"
    );
    assert!(to_storage(&w, &converted("a")).is_ok());

    // Through the analysis: `stored` is the persisted object, `prepared` the request's.
    let text = "apiVersion: stable.example.com/v1beta1\nkind: CronTab\nmetadata: {name: a}\nspec: {hostPort: 'localhost:1'}\n";
    let a = c.analyze_objects(&[text.to_owned()], None);
    let r = &a.objects[0];
    assert!(r.accepted, "{:?}", r.errors);
    assert_eq!(
        r.prepared.to_value()["apiVersion"],
        json!("stable.example.com/v1beta1")
    );
    assert_eq!(
        r.prepared.to_value()["spec"],
        json!({"hostPort": "localhost:1"})
    );
    assert_eq!(
        r.stored.to_value()["apiVersion"],
        json!("stable.example.com/v1")
    );
    assert_eq!(r.stored.to_value()["spec"], json!({}));
    assert_eq!(r.stored_version, "v1");
    assert!(r.pruned_paths.is_empty());
    assert_eq!(r.stored_pruned_paths, vec!["spec.hostPort"]);
    assert_eq!(r.stored_note, None);
    let served = r.served_as.iter().find(|s| s.version == "v1beta1").unwrap();
    assert_eq!(served.pruned_on_write, 1);
    // A studio note (not a server message) at the field in the object's text.
    let note = a
        .findings
        .iter()
        .find(|f| f.code == "studio.pruned-on-write")
        .unwrap();
    assert_eq!(
        note.message,
        "spec.hostPort: not in the schema of the storage version v1: the server drops it when it stores the object"
    );
    assert_eq!(note.severity, crate::documents::finding::Severity::Info);
    let at = note.location.unwrap().span.start;
    assert_eq!((at.line, at.column), (4, 8));
    let a = w.analyze_objects(&[text.to_owned()], None);
    let r = &a.objects[0];
    assert!(r.stored.is_null());
    assert_eq!(r.stored_version, "");
    assert_eq!(
        r.stored_note.as_deref(),
        Some("converting it to the storage version v1 needs the conversion webhook")
    );
}

#[test]
fn empty_objects_are_not_sent() {
    let (c, call) = call(&[json!({"apiVersion": "stable.example.com/v1beta1", "kind": "CronTab"})]);
    assert_eq!(call.request, None);
    let check = check_conversion_response(&c, &call, "");
    assert!(check.accepted);
    assert_eq!(
        check.objects[0].object,
        json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab"})
    );
}

/// The default request uid: a UUID-shaped hash of the target version and each sent object's
/// apiVersion, kind, namespace and name; the same for the same request, whoever asks (the
/// CLI and the studio both call `conversion_review` without a uid).
#[test]
fn default_request_uid_is_derived_from_the_request() {
    use crate::versions::conversion::webhook::request_uid;
    let a = json!({"apiVersion": "repo.example.com/v1", "kind": "Mirror",
        "metadata": {"name": "eu", "namespace": "default"}, "spec": {"port": 1}});
    let uid = request_uid("repo.example.com/v2", std::slice::from_ref(&a));
    // The example's webhook response (examples/webhook-conversion) carries this one.
    assert_eq!(uid, "9aec6431-9e20-8826-b563-96703cb782a5");
    let shape: Vec<usize> = uid.split('-').map(str::len).collect();
    assert_eq!(shape, [8, 4, 4, 4, 12]);
    assert!(uid.as_bytes()[14] == b'8', "version 8: {uid}");
    assert!(
        matches!(uid.as_bytes()[19], b'8' | b'9' | b'a' | b'b'),
        "variant: {uid}"
    );
    // The objects' other fields do not change it; their identity and the target do.
    let mut b = a.clone();
    b["spec"]["port"] = json!(2);
    assert_eq!(request_uid("repo.example.com/v2", &[b]), uid);
    let mut c = a.clone();
    c["metadata"]["name"] = json!("us");
    assert_ne!(request_uid("repo.example.com/v2", &[c]), uid);
    assert_ne!(
        request_uid("repo.example.com/v3", std::slice::from_ref(&a)),
        uid
    );
    assert_ne!(request_uid("repo.example.com/v2", &[a.clone(), a]), uid);
}

#[test]
fn conversion_review_without_a_uid_takes_the_derived_one() {
    let c = crd(CRD);
    let call = conversion_review(&c, &[object("a")], "v1", None).unwrap();
    let request = call.request.unwrap();
    assert_eq!(
        request.uid,
        crate::versions::conversion::webhook::request_uid(
            &request.desired_api_version,
            &request.objects
        )
    );
}
