//! Sample objects for a CRD version: the smallest object the version's schema accepts
//! (`apiVersion`, `kind`, `metadata.name`, the required fields, an allowed enum value,
//! minimums, lengths, item and property counts, a matching pattern where a simple candidate
//! matches, list-map keys and set items unique; fields with a default are left to the
//! server's defaulting; an optional `spec` with required fields of its own is filled in),
//! or with `all_fields` every declared field.
//!
//! CEL rules are not solved: a sample can break one, and the corpus measurement
//! (`crates/engine/tests/sample_corpus.rs`) lists those by reason.

use serde_json::{json, Map, Value as Json};

use crate::schema::structural::Structural;

/// Limits on how deep and how wide a sample grows.
const MAX_DEPTH: usize = 24;
const MAX_ITEMS: usize = 16;

/// A sample object for `version` of the compiled CRD, or why there is none.
pub fn sample_for(
    compiled: &crate::report::analysis::CompiledCrd,
    version: Option<&str>,
    all_fields: bool,
) -> Result<Json, String> {
    let Some(crd) = compiled.internal() else {
        return Err("the CRD text holds no CustomResourceDefinition".to_owned());
    };
    let name = match version.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => v.to_owned(),
        None => crate::versions::overview::preferred_version(crd)
            .ok_or_else(|| "the CRD serves no version".to_owned())?,
    };
    let Some(cv) = compiled.compiled_versions().iter().find(|v| v.name == name) else {
        let names: Vec<&str> = crd.spec.versions.iter().map(|v| v.name.as_str()).collect();
        return Err(format!(
            "the CRD has no version `{name}` (it has {})",
            names.join(", ")
        ));
    };
    Ok(sample(
        &crd.spec.group,
        &name,
        &crd.spec.names.kind,
        cv.structural.as_deref(),
        all_fields,
    ))
}

/// A sample object of `kind` in `group/version` for the version's structural schema.
pub fn sample(
    group: &str,
    version: &str,
    kind: &str,
    schema: Option<&Structural>,
    all_fields: bool,
) -> Json {
    let api_version = if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    };
    let mut out = Map::new();
    out.insert("apiVersion".into(), Json::String(api_version));
    out.insert("kind".into(), Json::String(kind.to_owned()));
    out.insert(
        "metadata".into(),
        json!({"name": format!("{}-sample", kind.to_ascii_lowercase())}),
    );
    if let Some(s) = schema {
        let g = Gen { all: all_fields };
        for (name, prop) in &s.properties {
            if matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
                continue;
            }
            // An optional `spec` that has required fields of its own is filled in too: an
            // object without its spec says little.
            let spec_needed = name == "spec"
                && prop
                    .value_validation
                    .as_ref()
                    .is_some_and(|v| !v.required.is_empty());
            if !g.wanted(s, name, prop) && !spec_needed {
                continue;
            }
            if let Some(v) = g.value(prop, 1, 0) {
                out.insert(name.clone(), v);
            }
        }
    }
    Json::Object(out)
}

struct Gen {
    all: bool,
}

impl Gen {
    /// Whether the field goes into the sample: every field with `all`, else the required
    /// fields the server does not default.
    fn wanted(&self, parent: &Structural, name: &str, prop: &Structural) -> bool {
        if self.all {
            return true;
        }
        let required = parent
            .value_validation
            .as_ref()
            .is_some_and(|v| v.required.iter().any(|r| r == name));
        required && prop.generic.default.is_none()
    }

    /// A value for `s`; `variant` makes sibling items differ (set items, list-map keys).
    fn value(&self, s: &Structural, depth: usize, variant: usize) -> Option<Json> {
        if depth > MAX_DEPTH {
            return None;
        }
        let vv = s.value_validation.clone().unwrap_or_default();
        if let Some(first) = vv.enum_.get(variant % vv.enum_.len().max(1)) {
            return Some(first.clone());
        }
        if self.all {
            if let (Some(d), 0) = (&s.generic.default, variant) {
                return Some(d.clone());
            }
        }
        if s.extensions.x_int_or_string {
            return Some(number(&vv, true, variant));
        }
        match s.generic.type_.as_str() {
            "object" => Some(self.object(s, depth, variant)),
            "array" => Some(self.array(s, depth)),
            "string" => Some(Json::String(string(&vv, variant))),
            "integer" => Some(number(&vv, true, variant)),
            "number" => Some(number(&vv, false, variant)),
            "boolean" => Some(Json::Bool(variant % 2 == 1)),
            _ if s.extensions.x_preserve_unknown_fields => Some(Json::Object(Map::new())),
            _ => None,
        }
    }

    fn object(&self, s: &Structural, depth: usize, variant: usize) -> Json {
        let vv = s.value_validation.clone().unwrap_or_default();
        let mut out = Map::new();
        if s.extensions.x_embedded_resource {
            out.insert("apiVersion".into(), json!("v1"));
            out.insert("kind".into(), json!("ConfigMap"));
        }
        let keys = &s.extensions.x_list_map_keys;
        for (name, prop) in &s.properties {
            if out.contains_key(name) {
                continue;
            }
            // A list-map key is always set, so that items are told apart.
            let is_key = keys.iter().any(|k| k == name);
            if !is_key && !self.wanted(s, name, prop) {
                continue;
            }
            if let Some(v) = self.value(prop, depth + 1, variant) {
                out.insert(name.clone(), v);
            }
        }
        // More properties to reach minProperties: the declared ones first, then map keys.
        let min = usize::try_from(vv.min_properties.unwrap_or(0))
            .unwrap_or(0)
            .min(MAX_ITEMS);
        for (name, prop) in &s.properties {
            if out.len() >= min {
                break;
            }
            if !out.contains_key(name) {
                if let Some(v) = self.value(prop, depth + 1, variant) {
                    out.insert(name.clone(), v);
                }
            }
        }
        if let Some(ap) = s
            .additional_properties
            .as_ref()
            .and_then(|a| a.structural.as_deref())
        {
            let want = if self.all { min.max(1) } else { min };
            let mut i = 0;
            while out.len() < want && i < MAX_ITEMS {
                if let Some(v) = self.value(ap, depth + 1, i) {
                    out.insert(format!("key{}", i + 1), v);
                }
                i += 1;
            }
        } else if s.additional_properties.as_ref().is_some_and(|a| a.bool_) {
            let mut i = 0;
            while out.len() < min && i < MAX_ITEMS {
                out.insert(format!("key{}", i + 1), json!("value"));
                i += 1;
            }
        }
        Json::Object(out)
    }

    fn array(&self, s: &Structural, depth: usize) -> Json {
        let vv = s.value_validation.clone().unwrap_or_default();
        let min = usize::try_from(vv.min_items.unwrap_or(0))
            .unwrap_or(0)
            .min(MAX_ITEMS);
        let mut n = if self.all { min.max(1) } else { min };
        if let Some(max) = vv.max_items.and_then(|m| usize::try_from(m).ok()) {
            n = n.min(max);
        }
        let Some(items) = s.items.as_deref() else {
            return Json::Array(Vec::new());
        };
        let mut out: Vec<Json> = Vec::new();
        for i in 0..n {
            if let Some(v) = self.value(items, depth + 1, i) {
                out.push(v);
            }
        }
        Json::Array(out)
    }
}

/// A string meeting the format, length and (for simple patterns) pattern bounds.
fn string(vv: &crate::schema::structural::ValueValidation, variant: usize) -> String {
    let by_format = match crate::object::validation::formats::normalize(&vv.format).as_str() {
        "datetime" => Some("2024-01-01T00:00:00Z"),
        "date" => Some("2024-01-01"),
        "duration" => Some("1s"),
        "byte" => Some("YQ=="),
        "email" => Some("user@example.com"),
        "hostname" | "k8slongname" => Some("example.com"),
        "k8sshortname" => Some("example"),
        "ipv4" => Some("192.0.2.1"),
        "ipv6" => Some("2001:db8::1"),
        "cidr" => Some("192.0.2.0/24"),
        "mac" => Some("00:00:5e:00:53:01"),
        "uuid" | "uuid4" => Some("123e4567-e89b-42d3-a456-426614174000"),
        "uuid3" => Some("123e4567-e89b-32d3-a456-426614174000"),
        "uuid5" => Some("123e4567-e89b-52d3-a456-426614174000"),
        "uri" => Some("https://example.com"),
        "hexcolor" => Some("#ffffff"),
        "rgbcolor" => Some("rgb(0,0,0)"),
        "isbn" | "isbn10" => Some("0306406152"),
        "isbn13" => Some("9780306406157"),
        "creditcard" => Some("4111111111111111"),
        "ssn" => Some("078-05-1120"),
        "bsonobjectid" => Some("507f1f77bcf86cd799439011"),
        _ => None,
    };
    if let Some(v) = by_format {
        if variant == 0 {
            return v.to_owned();
        }
    }
    let candidates: Vec<String> = {
        let base = [
            "example",
            "a",
            "1",
            "example.com",
            "Example",
            "example-1",
            "a1",
            "A",
            "x.y/z",
            "1.0.0",
            "v1",
            "true",
            "192.0.2.1",
            "1s",
            "https://example.com",
            "http://example.com",
            "oci://example.com/a",
            "ssh://example.com/a",
            "0",
            "1m",
            "1MB",
            "1Gi",
            "[1-2]",
            "@daily",
            "* * * * *",
            "10:00",
            "1%",
            "a=b",
            "abort",
            "monday",
            "a.yaml",
            "2024",
        ];
        let mut c: Vec<String> = base.iter().map(|b| (*b).to_owned()).collect();
        if variant > 0 {
            c = c
                .into_iter()
                .flat_map(|b| {
                    [
                        format!("{b}{variant}"),
                        format!("{b}-{variant}"),
                        format!("{variant}{b}"),
                    ]
                })
                .collect();
        }
        c
    };
    let min = usize::try_from(vv.min_length.unwrap_or(0))
        .unwrap_or(0)
        .min(4096);
    let max = vv.max_length.and_then(|m| usize::try_from(m).ok());
    let fit = |s: &str| -> String {
        let mut s: String = s.to_owned();
        while s.chars().count() < min {
            s.push('a');
        }
        if let Some(max) = max {
            s = s.chars().take(max).collect();
        }
        s
    };
    if vv.pattern.is_empty() {
        return fit(candidates.first().map_or("example", String::as_str));
    }
    let re = gostd::regexp::compile(&vv.pattern).ok();
    for c in &candidates {
        let s = fit(c);
        if re.as_ref().and_then(|r| r.is_match(&s)) == Some(true) {
            return s;
        }
    }
    fit(candidates.first().map_or("example", String::as_str))
}

/// A number meeting minimum, maximum and multipleOf (an integer when `integer`).
fn number(vv: &crate::schema::structural::ValueValidation, integer: bool, variant: usize) -> Json {
    let step = vv.multiple_of.filter(|m| *m > 0.0).unwrap_or(1.0);
    let mut x: f64 = 0.0;
    if let Some(min) = vv.minimum {
        x = if vv.exclusive_minimum {
            min + step.min(1.0)
        } else {
            min
        };
    } else if let Some(max) = vv.maximum {
        if max < 0.0 || (max <= 0.0 && vv.exclusive_maximum) {
            x = if vv.exclusive_maximum { max - 1.0 } else { max };
        }
    }
    x += variant as f64 * step;
    if let Some(m) = vv.multiple_of.filter(|m| *m > 0.0) {
        x = (x / m).ceil() * m;
    }
    if integer {
        x = x.ceil();
    }
    if let Some(max) = vv.maximum {
        if x > max || (vv.exclusive_maximum && x >= max) {
            x = if vv.exclusive_maximum { max - 1.0 } else { max };
        }
    }
    if (integer || x.fract() == 0.0) && x.abs() < 9.0e15 {
        return json!(x as i64);
    }
    serde_json::Number::from_f64(x).map_or(json!(0), Json::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::analysis::{analyze, CompiledCrd, Options, Request};

    const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        required: [spec]
        properties:
          spec:
            type: object
            required: [name, size, mode, ports, when, replicas, labels]
            properties:
              name: {type: string, minLength: 10, maxLength: 12, pattern: '^[a-z]+$'}
              size: {type: integer, minimum: 3, maximum: 9, multipleOf: 2}
              mode: {type: string, enum: [slow, fast]}
              when: {type: string, format: date-time}
              replicas: {type: integer, default: 1}
              labels: {type: object, minProperties: 2, additionalProperties: {type: string}}
              optional: {type: string}
              ports:
                type: array
                minItems: 2
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port]
                items:
                  type: object
                  required: [port]
                  properties:
                    port: {type: integer, minimum: 1}
                    name: {type: string}
              tags: {type: array, x-kubernetes-list-type: set, minItems: 3, items: {type: string}}
"#;

    fn accepted(all: bool) -> (Json, bool) {
        let compiled = CompiledCrd::compile(CRD, &Options::default());
        let s = sample_for(&compiled, None, all).unwrap();
        let a = analyze(&Request {
            crd: CRD.to_owned(),
            objects: vec![serde_json::to_string(&s).unwrap()],
            ..Request::default()
        });
        let ok = a.objects.iter().all(|o| o.accepted) && !a.objects.is_empty();
        (s, ok)
    }

    #[test]
    fn minimal_sample() {
        let (s, ok) = accepted(false);
        assert!(ok, "{s}");
        assert_eq!(
            s,
            json!({
                "apiVersion": "example.com/v1", "kind": "Widget",
                "metadata": {"name": "widget-sample"},
                "spec": {
                    "labels": {"key1": "example", "key2": "example1"},
                    "mode": "slow", "name": "exampleaaa",
                    "ports": [{"port": 1}, {"port": 2}],
                    "size": 4, "when": "2024-01-01T00:00:00Z"
                }
            })
        );
    }

    #[test]
    fn all_fields_sample() {
        let (s, ok) = accepted(true);
        assert!(ok, "{s}");
        let spec = s.get("spec").unwrap();
        for f in ["optional", "replicas", "tags", "name"] {
            assert!(spec.get(f).is_some(), "{f}: {s}");
        }
        assert_eq!(spec.get("tags").unwrap().as_array().unwrap().len(), 3);
        assert_eq!(
            spec.get("ports").unwrap().get(0).unwrap().get("name"),
            Some(&json!("example"))
        );
    }

    #[test]
    fn no_crd_or_version() {
        let compiled = CompiledCrd::compile(CRD, &Options::default());
        assert_eq!(
            sample_for(&compiled, Some("v9"), false).unwrap_err(),
            "the CRD has no version `v9` (it has v1)"
        );
        let none = CompiledCrd::compile("a: 1\n", &Options::default());
        assert!(sample_for(&none, None, false).is_err());
    }
}
