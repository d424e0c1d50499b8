//! `kubectl get --field-selector` on custom resources, as the API server evaluates it.
//!
//! * Parsing is apimachinery's `fields.ParseSelector`: terms split on unescaped `,`, sorted,
//!   each split at its first `!=`, `==` or `=` (the field name has no escaping), the value
//!   unescaped (`\\`, `\,`, `\=`; an unescaped `,`/`=` or another escape is an error).
//! * The field labels a version supports are the custom-resource converter's
//!   `ConvertFieldLabel`: `metadata.name`, `metadata.namespace` for namespaced resources, and
//!   each `selectableFields[].jsonPath` of the version without its leading `.`. Any other label
//!   fails the whole list request: `field label not supported: <label>` (400 Bad Request).
//! * The values are the strategy's `GetAttrs`: `metadata.name`/`metadata.namespace`, and for each
//!   selectable field the value at its JSONPath (missing keys allowed) formatted with
//!   `fmt.Sprint` (strings as they are, integers in decimal, `true`/`false`, floats as Go's
//!   `%v`), or the empty string when the field is missing or null.
//! * A term `f=v` (or `f==v`) matches when the value of `f` is `v`; `f!=v` when it is not; terms
//!   are ANDed.
//!
//! The objects are taken as the server filters them: the stored objects, read in the requested
//! version.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crd_studio_gostd::fmt::v as go_v;
use crd_studio_gostd::strconv::quote as go_quote;

/// The operator of a term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Operator {
    /// `=` or `==`.
    Equals,
    /// `!=`.
    NotEquals,
}

/// One term of a selector.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Requirement {
    /// The field label.
    pub field: String,
    /// The operator.
    pub operator: Operator,
    /// The value, unescaped.
    pub value: String,
}

impl Requirement {
    /// Whether the fields satisfy the term (a field not in the set is the empty string, as
    /// `fields.Set.Get`).
    pub fn matches(&self, fields: &BTreeMap<String, String>) -> bool {
        let v = fields.get(&self.field).map(String::as_str).unwrap_or("");
        match self.operator {
            Operator::Equals => v == self.value,
            Operator::NotEquals => v != self.value,
        }
    }

    /// The term as `Selector.String()` writes it (value escaped).
    pub fn text(&self) -> String {
        let op = match self.operator {
            Operator::Equals => "=",
            Operator::NotEquals => "!=",
        };
        format!("{}{op}{}", self.field, escape_value(&self.value))
    }
}

/// `fields.EscapeValue`: `\`, `,` and `=` prefixed with a backslash.
pub fn escape_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | ',' | '=') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `fields.UnescapeValue`, with its error texts.
pub fn unescape_value(s: &str) -> Result<String, String> {
    if !s.contains(['\\', ',', '=']) {
        return Ok(s.to_owned());
    }
    let mut out = String::with_capacity(s.len());
    let mut in_slash = false;
    for c in s.chars() {
        if in_slash {
            match c {
                '\\' | ',' | '=' => out.push(c),
                other => {
                    return Err(format!(
                        "invalid field selector: invalid escape sequence: \\{other}"
                    ))
                }
            }
            in_slash = false;
            continue;
        }
        match c {
            '\\' => in_slash = true,
            // `%v` of a rune prints its number.
            ',' | '=' => {
                return Err(format!(
                    "invalid field selector: unescaped character in value: {}",
                    u32::from(c)
                ))
            }
            c => out.push(c),
        }
    }
    if in_slash {
        return Err("invalid field selector: invalid escape sequence: \\".to_owned());
    }
    Ok(out)
}

/// `splitTerms`: the terms between unescaped commas (escapes kept).
fn split_terms(selector: &str) -> Vec<&str> {
    if selector.is_empty() {
        return Vec::new();
    }
    let mut terms = Vec::new();
    let mut start = 0;
    let mut in_slash = false;
    for (i, c) in selector.char_indices() {
        if in_slash {
            in_slash = false;
        } else if c == '\\' {
            in_slash = true;
        } else if c == ',' {
            terms.push(selector.get(start..i).unwrap_or(""));
            start = i + 1;
        }
    }
    terms.push(selector.get(start..).unwrap_or(""));
    terms
}

/// `splitTerm`: the field, operator and raw value at the first operator.
fn split_term(term: &str) -> Option<(&str, Operator, &str)> {
    for (i, _) in term.char_indices() {
        let rest = term.get(i..).unwrap_or("");
        for (op, operator) in [
            ("!=", Operator::NotEquals),
            ("==", Operator::Equals),
            ("=", Operator::Equals),
        ] {
            if rest.starts_with(op) {
                return Some((
                    term.get(..i).unwrap_or(""),
                    operator,
                    rest.get(op.len()..).unwrap_or(""),
                ));
            }
        }
    }
    None
}

/// `fields.ParseSelector`: the terms in the order the server evaluates them (sorted by their
/// text), or the server's error text.
pub fn parse(selector: &str) -> Result<Vec<Requirement>, String> {
    let mut parts = split_terms(selector);
    parts.sort_unstable();
    let mut out = Vec::new();
    for part in parts {
        if part.is_empty() {
            continue;
        }
        let Some((field, operator, raw)) = split_term(part) else {
            return Err(format!(
                "invalid selector: '{selector}'; can't understand '{part}'"
            ));
        };
        out.push(Requirement {
            field: field.to_owned(),
            operator,
            value: unescape_value(raw)?,
        });
    }
    Ok(out)
}

/// The selector-relevant facts of one CRD version.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectorVersion {
    /// `spec.group`.
    pub group: String,
    /// The version name.
    pub version: String,
    /// `spec.names.plural`.
    pub plural: String,
    /// `scope: Namespaced`.
    pub namespaced: bool,
    /// The version's `selectableFields[].jsonPath`.
    pub selectable_fields: Vec<String>,
}

impl SelectorVersion {
    /// The field labels the version supports, in the order the server lists them in the field
    /// set: `metadata.name`, `metadata.namespace` (namespaced only), then the selectable fields.
    pub fn supported_fields(&self) -> Vec<String> {
        let mut out = vec!["metadata.name".to_owned()];
        if self.namespaced {
            out.push("metadata.namespace".to_owned());
        }
        for f in &self.selectable_fields {
            let label = f.strip_prefix('.').unwrap_or(f).to_owned();
            if !out.contains(&label) {
                out.push(label);
            }
        }
        out
    }

    /// `ConvertFieldLabel`: `Err` is the server's text.
    pub fn convert_field_label(&self, label: &str) -> Result<(), String> {
        let supported = label == "metadata.name"
            || (self.namespaced && label == "metadata.namespace")
            || self
                .selectable_fields
                .iter()
                .any(|f| f.strip_prefix('.').unwrap_or(f) == label);
        if supported {
            Ok(())
        } else {
            Err(format!("field label not supported: {label}"))
        }
    }

    /// `GetAttrs`'s field set of an object (as stored, read in this version), or the
    /// strategy's error for a selectable field whose path yields several values.
    pub fn field_set(&self, obj: &Json) -> Result<BTreeMap<String, String>, String> {
        let meta = obj.get("metadata");
        let meta_str = |k: &str| {
            meta.and_then(|m| m.get(k))
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let mut out = BTreeMap::new();
        out.insert("metadata.name".to_owned(), meta_str("name"));
        if self.namespaced {
            out.insert("metadata.namespace".to_owned(), meta_str("namespace"));
        }
        for f in &self.selectable_fields {
            let name = f.strip_prefix('.').unwrap_or(f).to_owned();
            let value = match json_path_values(obj, f).as_slice() {
                [] => String::new(),
                [one] => match one {
                    Json::Null => String::new(),
                    v => go_v(v),
                },
                _ => return Err("unexpectedly received more than one JSON path result".to_owned()),
            };
            // The selectable fields overwrite the metadata ones (`MergeFieldsSets`).
            out.insert(name, value);
        }
        Ok(out)
    }

    /// The resource as `kubectl` names it in its errors (`GroupVersionResource.String()`).
    pub fn resource(&self) -> String {
        format!("{}/{}, Resource={}", self.group, self.version, self.plural)
    }
}

/// The values at a simple JSONPath (`.a.b`; a `*` step takes every value of a map or list), as
/// client-go's `jsonpath` finds them with missing keys allowed: steps through anything but a
/// map (or a list for `*`) find nothing.
fn json_path_values<'a>(obj: &'a Json, path: &str) -> Vec<&'a Json> {
    let trimmed = path.strip_prefix('.').unwrap_or(path);
    let mut cur: Vec<&Json> = vec![obj];
    for step in trimmed.split('.') {
        // The parser drops backslashes from field names.
        let step = step.replace('\\', "");
        let mut next = Vec::new();
        for v in cur {
            match (v, step.as_str()) {
                (Json::Object(m), "*") => next.extend(m.values()),
                (Json::Array(items), "*") => next.extend(items.iter()),
                (Json::Object(m), name) => next.extend(m.get(name)),
                _ => {}
            }
        }
        cur = next;
    }
    cur
}

/// The API error a list request with a bad field selector gets.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectorError {
    /// The HTTP status code (400).
    pub code: u16,
    /// The status reason (`BadRequest`).
    pub reason: String,
    /// The status message.
    pub message: String,
    /// What `kubectl get --field-selector` prints.
    pub kubectl: String,
}

/// The verdict on one object.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMatch {
    /// Whether the object is listed.
    pub matches: bool,
    /// The object's field set (label → value) the terms are checked against.
    pub fields: BTreeMap<String, String>,
    /// The indexes (in [`Selection::requirements`]) of the terms the object fails.
    pub failed: Vec<usize>,
    /// The strategy's error for this object, when its field set cannot be built.
    pub error: Option<String>,
}

/// The result of a field selector on a version's objects.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Selection {
    /// The selector as the server writes it back (`Selector.String()`: sorted, escaped).
    pub normalized: String,
    /// The terms, in the server's order.
    pub requirements: Vec<Requirement>,
    /// The field labels the version supports.
    pub supported_fields: Vec<String>,
    /// The error of the whole request (nothing is listed then).
    pub error: Option<SelectorError>,
    /// One verdict per object (empty when [`Selection::error`] is set).
    pub objects: Vec<ObjectMatch>,
}

fn bad_request(version: &SelectorVersion, selector: &str, message: String) -> SelectorError {
    SelectorError {
        code: 400,
        reason: "BadRequest".to_owned(),
        kubectl: format!(
            "Error from server (BadRequest): Unable to find {} that match label selector \"\", field selector {}: {message}",
            go_quote(&version.resource()),
            go_quote(selector)
        ),
        message,
    }
}

/// Evaluates `kubectl get --field-selector <selector>` at `version` over `objects` (stored
/// objects read in that version).
pub fn select(version: &SelectorVersion, selector: &str, objects: &[Json]) -> Selection {
    let mut out = Selection {
        supported_fields: version.supported_fields(),
        ..Selection::default()
    };
    let requirements = match parse(selector) {
        Ok(r) => r,
        Err(e) => {
            out.error = Some(bad_request(version, selector, e));
            return out;
        }
    };
    out.normalized = requirements
        .iter()
        .map(Requirement::text)
        .collect::<Vec<_>>()
        .join(",");
    // Transform: every label converted, in order; the first failure fails the request.
    if let Some(e) = requirements
        .iter()
        .find_map(|r| version.convert_field_label(&r.field).err())
    {
        out.requirements = requirements;
        out.error = Some(bad_request(version, selector, e));
        return out;
    }
    out.objects = objects
        .iter()
        .map(|obj| match version.field_set(obj) {
            Ok(fields) => {
                let failed: Vec<usize> = requirements
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| !r.matches(&fields))
                    .map(|(i, _)| i)
                    .collect();
                ObjectMatch {
                    matches: failed.is_empty(),
                    fields,
                    failed,
                    error: None,
                }
            }
            Err(e) => ObjectMatch {
                error: Some(e),
                ..ObjectMatch::default()
            },
        })
        .collect();
    out.requirements = requirements;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shirts() -> SelectorVersion {
        SelectorVersion {
            group: "stable.example.com".into(),
            version: "v1".into(),
            plural: "shirts".into(),
            namespaced: true,
            selectable_fields: vec![".spec.color".into(), ".spec.size".into()],
        }
    }

    fn shirt(name: &str, color: &str, size: &str) -> Json {
        json!({"apiVersion": "stable.example.com/v1", "kind": "Shirt",
               "metadata": {"name": name, "namespace": "default"},
               "spec": {"color": color, "size": size}})
    }

    fn listed(sel: &Selection) -> Vec<usize> {
        sel.objects
            .iter()
            .enumerate()
            .filter(|(_, o)| o.matches)
            .map(|(i, _)| i)
            .collect()
    }

    #[test]
    fn the_documented_shirt_example() {
        let objs = [
            shirt("example1", "blue", "S"),
            shirt("example2", "blue", "M"),
            shirt("example3", "green", "M"),
        ];
        let v = shirts();
        assert_eq!(listed(&select(&v, "spec.color=blue", &objs)), [0, 1]);
        assert_eq!(
            listed(&select(&v, "spec.color=green,spec.size=M", &objs)),
            [2]
        );
        assert_eq!(listed(&select(&v, "spec.color!=blue", &objs)), [2]);
        assert_eq!(listed(&select(&v, "spec.size==M", &objs)), [1, 2]);
        assert_eq!(listed(&select(&v, "", &objs)), [0, 1, 2]);
        assert_eq!(listed(&select(&v, ",", &objs)), [0, 1, 2]);
        assert_eq!(listed(&select(&v, "metadata.name=example2", &objs)), [1]);
        let s = select(&v, "spec.size=M,spec.color=green", &objs);
        assert_eq!(s.normalized, "spec.color=green,spec.size=M");
        assert_eq!(s.objects[1].failed, [0]);
    }

    #[test]
    fn unsupported_labels_fail_the_request() {
        let objs = [shirt("a", "blue", "S")];
        let s = select(&shirts(), "spec.price=1", &objs);
        let e = s.error.unwrap();
        assert_eq!(e.code, 400);
        assert_eq!(e.message, "field label not supported: spec.price");
        assert_eq!(
            e.kubectl,
            "Error from server (BadRequest): Unable to find \"stable.example.com/v1, Resource=shirts\" that match label selector \"\", field selector \"spec.price=1\": field label not supported: spec.price"
        );
        assert!(s.objects.is_empty());
        // The first label in sorted order is reported.
        let s = select(&shirts(), "z=1,spec.b=2", &objs);
        assert_eq!(
            s.error.unwrap().message,
            "field label not supported: spec.b"
        );
        // Spaces are part of the label.
        let s = select(&shirts(), "spec.color = blue", &objs);
        assert_eq!(
            s.error.unwrap().message,
            "field label not supported: spec.color "
        );
        // metadata.namespace only for namespaced resources.
        let mut cluster = shirts();
        cluster.namespaced = false;
        assert_eq!(
            select(&cluster, "metadata.namespace=x", &objs)
                .error
                .unwrap()
                .message,
            "field label not supported: metadata.namespace"
        );
        assert_eq!(
            cluster.supported_fields(),
            ["metadata.name", "spec.color", "spec.size"]
        );
    }

    #[test]
    fn parse_errors_are_apimachinery_texts() {
        assert_eq!(
            parse("spec.color"),
            Err("invalid selector: 'spec.color'; can't understand 'spec.color'".into())
        );
        assert_eq!(
            parse("a=1,b"),
            Err("invalid selector: 'a=1,b'; can't understand 'b'".into())
        );
        assert_eq!(
            parse("a=b=c"),
            Err("invalid field selector: unescaped character in value: 61".into())
        );
        assert_eq!(
            parse("a===b"),
            Err("invalid field selector: unescaped character in value: 61".into())
        );
        assert_eq!(
            parse(r"a=b\x"),
            Err(r"invalid field selector: invalid escape sequence: \x".into())
        );
        assert_eq!(
            parse(r"a=b\"),
            Err(r"invalid field selector: invalid escape sequence: \".into())
        );
    }

    #[test]
    fn escapes_and_operators() {
        let r = parse(r"a=x\,y\=z\\,b!=").unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].field, "a");
        assert_eq!(r[0].value, r"x,y=z\");
        assert_eq!(r[1].operator, Operator::NotEquals);
        assert_eq!(r[1].value, "");
        assert_eq!(r[0].text(), r"a=x\,y\=z\\");
        // The field name has no escaping: the first operator splits.
        let r = parse("a!b=c").unwrap();
        assert_eq!(r[0].field, "a!b");
        // `!=` is found before `=` at the same place.
        let r = parse("a!=b").unwrap();
        assert_eq!(
            (r[0].field.as_str(), r[0].operator),
            ("a", Operator::NotEquals)
        );
        // An empty field name is kept (and rejected by the label conversion).
        assert_eq!(parse("=x").unwrap()[0].field, "");
    }

    #[test]
    fn values_are_formatted_as_fmt_sprint() {
        let v = SelectorVersion {
            selectable_fields: vec![
                ".spec.n".into(),
                ".spec.b".into(),
                ".spec.f".into(),
                ".spec.missing".into(),
                ".spec.nul".into(),
                ".spec.n.deeper".into(),
            ],
            ..shirts()
        };
        let obj = json!({"metadata": {"name": "x"},
                         "spec": {"n": 42, "b": true, "f": 1000000.0, "nul": null}});
        let f = v.field_set(&obj).unwrap();
        assert_eq!(f["spec.n"], "42");
        assert_eq!(f["spec.b"], "true");
        assert_eq!(f["spec.f"], "1e+06");
        assert_eq!(f["spec.missing"], "");
        assert_eq!(f["spec.nul"], "");
        assert_eq!(f["spec.n.deeper"], "");
        assert_eq!(f["metadata.namespace"], "");
        let s = select(&v, "spec.b=true,spec.n!=41", &[obj]);
        assert!(s.objects[0].matches);
    }

    #[test]
    fn a_wildcard_with_several_values_is_an_object_error() {
        let v = SelectorVersion {
            selectable_fields: vec![".spec.m.*".into()],
            ..shirts()
        };
        let obj = json!({"metadata": {"name": "x"}, "spec": {"m": {"a": "1", "b": "2"}}});
        let s = select(&v, "metadata.name=x", &[obj]);
        assert_eq!(
            s.objects[0].error.as_deref(),
            Some("unexpectedly received more than one JSON path result")
        );
        assert!(!s.objects[0].matches);
    }
}
