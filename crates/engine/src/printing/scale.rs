//! The `/scale` subresource of a custom resource: the `autoscaling/v1` `Scale` object
//! `GET .../<plural>/<name>/scale` returns, computed as the custom-resource storage does
//! (`scaleFromCustomResource` in `pkg/registry/customresource/etcd.go`).
//!
//! * `spec.replicas` is the integer at `specReplicasPath`; when the path holds nothing the GET
//!   fails with an internal error (`the spec replicas field ".spec.replicas" does not exist`).
//! * `status.replicas` is the integer at `statusReplicasPath`, 0 when missing.
//! * `status.selector` is the string at `labelSelectorPath`, empty when missing or unset.
//! * The paths are split on `.` (leading `.` dropped) and read with `unstructured.NestedInt64`
//!   / `NestedString`: a value of another type (a float, a string, `null`) or a step through
//!   a non-object is an error with apimachinery's accessor text, and the GET fails with it.
//! * The replicas are `int32` in `Scale`: larger values wrap as Go's conversion does (object
//!   validation rejects them on write: `should be less than or equal to 2147483647`).
//! * The Scale's metadata copies the object's name, namespace, uid, resourceVersion and
//!   creationTimestamp (what the object has; the server fills uid, resourceVersion and
//!   creationTimestamp when it stores an object).
//!
//! [`StatusFacts`] adds what the status subresource does to the object on create.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

use crate::crd::apiext::internal::Scale;
use crd_studio_gostd::fmt::{type_name as go_type, v as go_v};

/// `unstructured.NestedFieldNoCopy`: the value (`None` when missing, or when a step meets
/// `null`), or the accessor error.
fn nested_field<'a>(obj: &'a Json, fields: &[&str]) -> Result<Option<&'a Json>, String> {
    let mut val = obj;
    for (i, f) in fields.iter().enumerate() {
        match val {
            Json::Null => return Ok(None),
            Json::Object(m) => match m.get(*f) {
                Some(v) => val = v,
                None => return Ok(None),
            },
            other => {
                let done = fields.get(..=i).unwrap_or(fields);
                return Err(format!(
                    "{} accessor error: {} is of the type {}, expected map[string]interface{{}}",
                    json_path(done),
                    go_v(other),
                    go_type(other)
                ));
            }
        }
    }
    Ok(Some(val))
}

/// `jsonPath(fields)`: `.a.b`.
fn json_path(fields: &[&str]) -> String {
    format!(".{}", fields.join("."))
}

/// `splitReplicasPath`.
fn split_path(path: &str) -> Vec<&str> {
    path.strip_prefix('.').unwrap_or(path).split('.').collect()
}

/// `unstructured.NestedInt64` along a scale path: `(value, found)` or the error text.
pub fn nested_int64(obj: &Json, path: &str) -> Result<(i64, bool), String> {
    let fields = split_path(path);
    match nested_field(obj, &fields)? {
        None => Ok((0, false)),
        Some(Json::Number(n)) if n.is_i64() => Ok((n.as_i64().unwrap_or(0), true)),
        Some(v) => Err(format!(
            "{} accessor error: {} is of the type {}, expected int64",
            json_path(&fields),
            go_v(v),
            go_type(v)
        )),
    }
}

/// `unstructured.NestedString` along a scale path: `(value, found)` or the error text.
pub fn nested_string(obj: &Json, path: &str) -> Result<(String, bool), String> {
    let fields = split_path(path);
    match nested_field(obj, &fields)? {
        None => Ok((String::new(), false)),
        Some(Json::String(s)) => Ok((s.clone(), true)),
        Some(v) => Err(format!(
            "{} accessor error: {} is of the type {}, expected string",
            json_path(&fields),
            go_v(v),
            go_type(v)
        )),
    }
}

/// The error a `GET /scale` gets.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleError {
    /// The HTTP status code (500: both errors are internal errors).
    pub code: u16,
    /// The status message.
    pub message: String,
}

/// The `/scale` of one object in one version.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleReport {
    /// The version whose scale subresource is read.
    pub version: String,
    /// `specReplicasPath`.
    pub spec_replicas_path: String,
    /// `statusReplicasPath`.
    pub status_replicas_path: String,
    /// `labelSelectorPath`, when set.
    pub label_selector_path: Option<String>,
    /// The `autoscaling/v1` `Scale` the GET returns (`None` when it fails).
    pub scale: Option<Json>,
    /// Why the GET fails.
    pub error: Option<ScaleError>,
    /// Whether `specReplicasPath` holds a value (a `kubectl scale` on an object without it
    /// still works: the server writes the field).
    pub spec_replicas_found: bool,
}

/// `scaleFromCustomResource` + `ScaleREST.Get` for `obj` (the stored object, read in
/// `version`).
pub fn scale_of(obj: &Json, scale: &Scale, version: &str) -> ScaleReport {
    let mut report = ScaleReport {
        version: version.to_owned(),
        spec_replicas_path: scale.spec_replicas_path.clone(),
        status_replicas_path: scale.status_replicas_path.clone(),
        label_selector_path: scale.label_selector_path.clone(),
        ..ScaleReport::default()
    };
    let internal = |message: String| ScaleError { code: 500, message };
    let computed = (|| -> Result<(i64, bool, i64, String), String> {
        let (spec, found) = nested_int64(obj, &scale.spec_replicas_path)?;
        let (status, _) = nested_int64(obj, &scale.status_replicas_path)?;
        let selector = match scale.label_selector_path.as_deref() {
            Some(p) if !p.is_empty() => nested_string(obj, p)?.0,
            _ => String::new(),
        };
        Ok((spec, found, status, selector))
    })();
    let (spec, found, status, selector) = match computed {
        Ok(c) => c,
        Err(e) => {
            report.error = Some(internal(e));
            return report;
        }
    };
    report.spec_replicas_found = found;
    if !found {
        report.error = Some(internal(format!(
            "Internal error occurred: the spec replicas field {} does not exist",
            crd_studio_gostd::strconv::quote(&scale.spec_replicas_path)
        )));
        return report;
    }
    report.scale = Some(scale_object(obj, spec, status, &selector));
    report
}

/// The `Scale` JSON as the server writes it (`int32` replicas; `spec.replicas` and
/// `status.selector` omitted when empty, metadata fields when unset).
fn scale_object(obj: &Json, spec: i64, status: i64, selector: &str) -> Json {
    let meta = obj.get("metadata").and_then(Json::as_object);
    let mut m = Map::new();
    for key in [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
    ] {
        if let Some(Json::String(s)) = meta.and_then(|m| m.get(key)) {
            if !s.is_empty() {
                m.insert(key.to_owned(), Json::String(s.clone()));
            }
        }
    }
    // Go's int32(x) conversion keeps the low 32 bits.
    let int32 = |x: i64| i64::from(x as i32);
    let mut spec_obj = Map::new();
    if int32(spec) != 0 {
        spec_obj.insert("replicas".to_owned(), Json::from(int32(spec)));
    }
    let mut status_obj = Map::new();
    status_obj.insert("replicas".to_owned(), Json::from(int32(status)));
    if !selector.is_empty() {
        status_obj.insert("selector".to_owned(), Json::String(selector.to_owned()));
    }
    let mut out = Map::new();
    out.insert("kind".to_owned(), Json::String("Scale".to_owned()));
    out.insert(
        "apiVersion".to_owned(),
        Json::String("autoscaling/v1".to_owned()),
    );
    out.insert("metadata".to_owned(), Json::Object(m));
    out.insert("spec".to_owned(), Json::Object(spec_obj));
    out.insert("status".to_owned(), Json::Object(status_obj));
    Json::Object(out)
}

/// What the status subresource did to an object on write.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusFacts {
    /// Whether the version has the status subresource.
    pub enabled: bool,
    /// Whether the request's `status` was dropped (the main resource ignores it: only
    /// `PUT .../status` writes it).
    pub status_dropped: bool,
    /// The `status` the request carried, when it was dropped.
    pub dropped_status: Option<Json>,
    /// `metadata.generation` of the stored object (1 on create; on update it increments when
    /// anything but `metadata` (and `status`, with the subresource) changed).
    pub generation: Option<i64>,
}

/// The status facts of one write: `request_status` is the `status` of the object as sent
/// (after decoding), `stored` the object the server persists.
pub fn status_facts(request_status: Option<&Json>, stored: &Json, enabled: bool) -> StatusFacts {
    let sent = request_status;
    let kept = stored.get("status");
    let dropped = enabled && sent.is_some() && kept != sent;
    StatusFacts {
        enabled,
        status_dropped: dropped,
        dropped_status: if dropped { sent.cloned() } else { None },
        generation: stored
            .get("metadata")
            .and_then(|m| m.get("generation"))
            .and_then(Json::as_i64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scale(selector: Option<&str>) -> Scale {
        Scale {
            spec_replicas_path: ".spec.replicas".into(),
            status_replicas_path: ".status.replicas".into(),
            label_selector_path: selector.map(str::to_owned),
        }
    }

    #[test]
    fn the_documented_crontab_scale() {
        let obj = json!({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
            "metadata": {"name": "my-new-cron-object", "namespace": "default", "uid": "u1", "resourceVersion": "7"},
            "spec": {"replicas": 5},
            "status": {"replicas": 3, "labelSelector": "app=cron"}});
        let r = scale_of(&obj, &scale(Some(".status.labelSelector")), "v1");
        assert_eq!(r.error, None);
        assert_eq!(
            r.scale.unwrap(),
            json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
                   "metadata": {"name": "my-new-cron-object", "namespace": "default", "uid": "u1", "resourceVersion": "7"},
                   "spec": {"replicas": 5},
                   "status": {"replicas": 3, "selector": "app=cron"}})
        );
    }

    #[test]
    fn missing_values_default_or_fail() {
        // No status: status.replicas 0, selector empty (omitted).
        let obj = json!({"metadata": {"name": "a"}, "spec": {"replicas": 0}});
        let r = scale_of(&obj, &scale(Some(".status.labelSelector")), "v1");
        assert_eq!(
            r.scale.unwrap(),
            json!({"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": {"name": "a"},
                   "spec": {}, "status": {"replicas": 0}})
        );
        // No spec replicas: the GET is an internal error.
        let obj = json!({"metadata": {"name": "a"}, "spec": {}});
        let r = scale_of(&obj, &scale(None), "v1");
        assert!(!r.spec_replicas_found);
        assert_eq!(
            r.error,
            Some(ScaleError {
                code: 500,
                message: "Internal error occurred: the spec replicas field \".spec.replicas\" does not exist".into()
            })
        );
    }

    #[test]
    fn accessor_errors() {
        let s = scale(Some(".status.labelSelector"));
        let err = |obj: Json| scale_of(&obj, &s, "v1").error.map(|e| e.message);
        assert_eq!(
            err(json!({"spec": {"replicas": "3"}})),
            Some(".spec.replicas accessor error: 3 is of the type string, expected int64".into())
        );
        assert_eq!(
            err(json!({"spec": {"replicas": 1.5}})),
            Some(
                ".spec.replicas accessor error: 1.5 is of the type float64, expected int64".into()
            )
        );
        assert_eq!(
            err(json!({"spec": {"replicas": null}})),
            Some(
                ".spec.replicas accessor error: <nil> is of the type <nil>, expected int64".into()
            )
        );
        assert_eq!(
            err(json!({"spec": "x"})),
            Some(".spec.replicas accessor error: x is of the type string, expected map[string]interface{}".into())
        );
        assert_eq!(
            err(json!({"spec": {"replicas": 1}, "status": {"labelSelector": {"matchLabels": {"a": "b"}}}})),
            Some(".status.labelSelector accessor error: map[matchLabels:map[a:b]] is of the type map[string]interface {}, expected string".into())
        );
        // A null step is "not found".
        assert_eq!(err(json!({"spec": {"replicas": 1}, "status": null})), None);
    }

    #[test]
    fn replicas_wrap_as_int32() {
        let obj = json!({"spec": {"replicas": 4294967297_i64}, "status": {"replicas": -1}});
        let r = scale_of(&obj, &scale(None), "v1").scale.unwrap();
        assert_eq!(r["spec"]["replicas"], json!(1));
        assert_eq!(r["status"]["replicas"], json!(-1));
    }

    #[test]
    fn status_dropped_on_create() {
        let sent = json!({"spec": {}, "status": {"replicas": 2}});
        let stored = json!({"spec": {}, "metadata": {"generation": 1}});
        let f = status_facts(sent.get("status"), &stored, true);
        assert!(f.status_dropped);
        assert_eq!(f.dropped_status, Some(json!({"replicas": 2})));
        assert_eq!(f.generation, Some(1));
        let f = status_facts(sent.get("status"), &sent, false);
        assert!(!f.status_dropped);
    }
}
