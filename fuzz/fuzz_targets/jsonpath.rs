//! JSONPath as printer columns use it: `template 0xFF json-data`; the template is parsed
//! (client-go's parser) and executed on the data (or, when the data is no JSON, on an example
//! object), with and without allowMissingKeys.
#![no_main]

use crd_studio_engine::jsonpath;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let mut parts = crd_studio_fuzz::parts(data).into_iter();
    let template = parts.next().unwrap_or_default();
    let json: Value = parts
        .next()
        .and_then(|d| serde_json::from_str(&d).ok())
        .unwrap_or_else(|| {
            serde_json::json!({
                "apiVersion": "x.example.com/v1", "kind": "K",
                "metadata": {"name": "n", "labels": {"a": "b"}},
                "spec": {"replicas": 3, "list": [{"name": "a", "v": 1.5}, {"name": "b", "v": null}],
                         "flag": true, "s": "text"}
            })
        });
    let _ = jsonpath(&template, &json, false);
    let _ = jsonpath(&template, &json, true);
});
