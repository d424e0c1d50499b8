use super::*;
use serde_json::json;

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn review_version_is_the_first_supported() {
    assert_eq!(
        ReviewVersion::choose(&strings(&["vx"])),
        Err("no supported conversion review versions".to_owned())
    );
    assert_eq!(
        ReviewVersion::choose(&strings(&["v2", "v1beta1", "v1"])),
        Ok(ReviewVersion::V1beta1)
    );
    assert_eq!(
        ReviewVersion::choose(&strings(&["v1", "v1beta1"])),
        Ok(ReviewVersion::V1)
    );
    assert_eq!(ReviewVersion::V1beta1.go_type(), "v1beta1.ConversionReview");
}

#[test]
fn body_is_go_json() {
    let r = ReviewRequest::new(
        &strings(&["v1"]),
        vec![
            json!({"kind": "CronTab", "apiVersion": "stable.example.com/v1beta1",
            "metadata": {"name": "a<b"}, "spec": {"n": 1.0, "m": 1e21}}),
        ],
        "stable.example.com/v1",
        "705ab4f5",
    )
    .unwrap();
    assert_eq!(
        r.body(),
        "{\"kind\":\"ConversionReview\",\"apiVersion\":\"apiextensions.k8s.io/v1\",\
         \"request\":{\"uid\":\"705ab4f5\",\"desiredAPIVersion\":\"stable.example.com/v1\",\
         \"objects\":[{\"apiVersion\":\"stable.example.com/v1beta1\",\"kind\":\"CronTab\",\
         \"metadata\":{\"name\":\"a\\u003cb\"},\"spec\":{\"m\":1e+21,\"n\":1}}]},\
         \"response\":{\"uid\":\"\",\"convertedObjects\":null,\"result\":{\"metadata\":{}}}}\n"
    );
    let pretty = r.pretty();
    assert!(pretty.starts_with("{\n  \"kind\": \"ConversionReview\",\n"));
    assert!(pretty.contains("\"metadata\": {}\n"));
    assert_eq!(
        serde_json::from_str::<Json>(&pretty).unwrap(),
        serde_json::from_str::<Json>(&r.body()).unwrap()
    );
    assert_eq!(r.to_json()["request"]["uid"], json!("705ab4f5"));
}

#[test]
fn indent_keeps_strings_and_empty_containers() {
    assert_eq!(
        indent(r#"{"a":[],"b":{"c":"x,{}:\"y"}}"#),
        "{\n  \"a\": [],\n  \"b\": {\n    \"c\": \"x,{}:\\\"y\"\n  }\n}"
    );
}

#[test]
fn objects_to_convert_skips_the_desired_version() {
    let v1 = json!({"apiVersion": "foo/v1", "kind": "W"});
    let v2 = json!({"apiVersion": "foo/v2", "kind": "W"});
    let list = json!({"items": [v1, v2, v1]});
    assert_eq!(objects_to_convert(&list, true, "foo/v1"), vec![v2.clone()]);
    assert!(objects_to_convert(&v1, false, "foo/v1").is_empty());
    assert_eq!(objects_to_convert(&v2, false, "foo/v1"), vec![v2.clone()]);
    // A single object's apiVersion is compared after parsing: one that does not parse is
    // never in the desired version.
    let bad = json!({"apiVersion": "a/b/c", "kind": "W"});
    assert_eq!(objects_to_convert(&bad, false, ""), Vec::<Json>::new());
    assert_eq!(objects_to_convert(&bad, false, "a/b/c"), vec![bad.clone()]);
}

#[test]
fn restore_keeps_only_labels_and_annotations() {
    let original = json!({"metadata": {"name": "n", "uid": "1", "resourceVersion": "5",
        "labels": {"a": "A"}}, "spec": {}});
    let mut converted = json!({"metadata": {"name": "n", "uid": "1", "resourceVersion": "9",
        "labels": {"a": "B", "c": "C"}, "annotations": {"x": "y"}}, "spec": {"z": 1}});
    restore_object_meta(&original, &mut converted).unwrap();
    assert_eq!(
        converted,
        json!({"metadata": {"name": "n", "uid": "1", "resourceVersion": "5",
            "labels": {"a": "B", "c": "C"}, "annotations": {"x": "y"}}, "spec": {"z": 1}})
    );
}

#[test]
fn restore_errors_read_like_the_server() {
    let err = |original: Json, mut converted: Json| {
        restore_object_meta(&original, &mut converted)
            .unwrap_err()
            .0
    };
    assert_eq!(
        err(json!({"metadata": {}}), json!({"spec": {}})),
        "missing metadata in converted object"
    );
    assert_eq!(
        err(json!({"metadata": {}}), json!({"metadata": ["foo"]})),
        "invalid metadata of type []interface {} in converted object"
    );
    assert_eq!(
        err(json!({"metadata": "x"}), json!({"metadata": {}})),
        "invalid metadata of type string in input object"
    );
    assert_eq!(
        err(
            json!({"metadata": {}}),
            json!({"metadata": {"labels": ["a"]}})
        ),
        "invalid metadata.labels of type []interface {} in converted object"
    );
    assert_eq!(
        err(
            json!({"metadata": {"annotations": "x"}}),
            json!({"metadata": {"annotations": {}}})
        ),
        "invalid metadata.annotations of type string in original object"
    );
    assert_eq!(
        err(
            json!({"metadata": {}}),
            json!({"metadata": {"labels": {"a": 1}}})
        ),
        "metadata.labels[a] must be a string, but is int64 in converted object"
    );
    assert_eq!(
        err(json!({"metadata": {}}), json!({"metadata": {"labels": {"foo": "üäö"}}})),
        "metadata.labels: Invalid value: \"üäö\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
    );
    let long = "x".repeat(64);
    assert_eq!(
        err(
            json!({"metadata": {}}),
            json!({"metadata": {"labels": {"foo": long}}})
        ),
        format!("metadata.labels: Invalid value: \"{long}\": must be no more than 63 bytes")
    );
    // The server names the annotations path `metadata.annotation`.
    let big = "x".repeat(256 * 1024);
    assert_eq!(
        err(
            json!({"metadata": {}}),
            json!({"metadata": {"annotations": {"a": big}}})
        ),
        "metadata.annotation: Too long: may not be more than 262144 bytes"
    );
    // Several errors: aggregated in brackets.
    let e = err(
        json!({"metadata": {}}),
        json!({"metadata": {"labels": {"-a": "-b"}}}),
    );
    assert!(
        e.starts_with("[metadata.labels: Invalid value: \"-a\": name part"),
        "{e}"
    );
    assert!(
        e.contains(", metadata.labels: Invalid value: \"-b\": a valid label"),
        "{e}"
    );
    assert!(e.ends_with(']'), "{e}");
}

#[test]
fn unchanged_invalid_labels_are_not_validated() {
    // Only a change triggers validation (labels stored before a rule tightened stay).
    let original = json!({"metadata": {"labels": {"a": "-bad-"}}});
    let mut converted = original.clone();
    restore_object_meta(&original, &mut converted).unwrap();
    assert_eq!(converted, original);
}

#[test]
fn converted_object_identity_checks() {
    let input = json!({"kind": "K", "metadata": {"name": "a", "namespace": "ns", "uid": "1"}});
    let with = |f: &dyn Fn(&mut Json)| {
        let mut o = input.clone();
        f(&mut o);
        validate_converted_object(&input, &o).unwrap_err()
    };
    assert_eq!(
        with(&|o| o["metadata"]["name"] = json!("b")),
        (
            "must have the same name: a != b".to_owned(),
            "metadata.name"
        )
    );
    assert_eq!(
        with(&|o| o["metadata"]["namespace"] = json!("other")),
        (
            "must have the same namespace: ns != other".to_owned(),
            "metadata.namespace"
        )
    );
    assert_eq!(
        with(&|o| {
            o["metadata"].as_object_mut().unwrap().remove("uid");
        }),
        ("must have the same UID: 1 != ".to_owned(), "metadata.uid")
    );
    assert_eq!(
        with(&|o| o["kind"] = json!("L")),
        ("must have the same kind: K != L".to_owned(), "kind")
    );
}

#[test]
fn raw_objects_need_a_kind() {
    let raw = |v: Json, text: &str| RawObject {
        raw: Some(text.to_owned()),
        value: Some(v),
        ..RawObject::default()
    };
    assert_eq!(
        raw_object(&raw(
            json!({"apiVersion": "a/v1"}),
            "{ \"apiVersion\": \"a/v1\" }"
        )),
        Err("Object 'Kind' is missing in '{ \"apiVersion\": \"a/v1\" }'".to_owned())
    );
    assert_eq!(
        raw_object(&raw(json!([1]), "[1]")),
        Err(
            "json: cannot unmarshal array into Go value of type map[string]interface {}".to_owned()
        )
    );
    assert_eq!(
        raw_object(&RawObject::default()),
        Err("unexpected end of JSON input".to_owned())
    );
}
