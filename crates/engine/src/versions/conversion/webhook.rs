//! The Webhook strategy (`webhook_converter.go`): which objects are sent
//! ([`objects_to_convert`]), the `ConversionReview` request ([`ReviewRequest`], the version
//! chosen from `conversionReviewVersions`), how the server decodes the webhook's body (the
//! webhook client's codec: `apiVersion`/`kind`, the scheme's kinds, Go's typed JSON
//! decoding), the response checks (`getConvertedObjectsFromResponse`, then per object:
//! apiVersion, kind, name, namespace, uid) and the metadata restore
//! ([`restore_object_meta`]: only labels and annotations may change, and must be valid).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

use super::{
    check_versions, list_items, locate_in, nested_str, nop_convert, ConversionIssue,
    ConvertedObject, GroupVersion, Gvk, ResponseCheck, WebhookCall,
};
use crate::documents::document::{Node, Value};
use crate::documents::field_error::{BadValue, FieldError};
use crate::documents::path::FieldPath;
use crate::documents::position::Span;
use crate::object::objectmeta::decoder::Decoder;
use crate::object::objectmeta::validation::{is_qualified_name, is_valid_label_value};
use crd_studio_gostd::strconv::quote as go_quote;

/// The group of `ConversionReview`.
pub const REVIEW_GROUP: &str = "apiextensions.k8s.io";

/// The name of the webhook client's scheme, as the server prints it in "no kind is
/// registered" errors (`runtime.NewScheme()` in `k8s.io/apiserver/pkg/util/webhook/client.go`,
/// `NewClientManager`, at the reference commit).
pub const HOOK_SCHEME_NAME: &str = "k8s.io/apiserver/pkg/util/webhook/client.go:74";

/// A `ConversionReview` version the server speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ReviewVersion {
    /// `apiextensions.k8s.io/v1`.
    #[default]
    #[serde(rename = "v1")]
    V1,
    /// `apiextensions.k8s.io/v1beta1`.
    #[serde(rename = "v1beta1")]
    V1beta1,
}

impl ReviewVersion {
    /// `v1` or `v1beta1`.
    pub fn name(self) -> &'static str {
        match self {
            ReviewVersion::V1 => "v1",
            ReviewVersion::V1beta1 => "v1beta1",
        }
    }

    /// `apiextensions.k8s.io/<version>`.
    pub fn api_version(self) -> String {
        format!("{REVIEW_GROUP}/{}", self.name())
    }

    /// The Go type of the review (`v1.ConversionReview`).
    pub fn go_type(self) -> String {
        format!("{}.ConversionReview", self.name())
    }

    /// `createConversionReviewObjects`' choice: the first entry of `conversionReviewVersions`
    /// the server supports.
    pub fn choose(conversion_review_versions: &[String]) -> Result<ReviewVersion, String> {
        for v in conversion_review_versions {
            match v.as_str() {
                "v1beta1" => return Ok(ReviewVersion::V1beta1),
                "v1" => return Ok(ReviewVersion::V1),
                _ => {}
            }
        }
        Err("no supported conversion review versions".to_owned())
    }
}

/// `getObjectsToConvert`: the list items (with `list`) or the object whose `apiVersion`
/// differs from `api_version`, in order.
pub fn objects_to_convert(obj: &Json, list: bool, api_version: &str) -> Vec<Json> {
    if list {
        list_items(obj)
            .iter()
            .filter(|item| nested_str(item, &["apiVersion"]) != api_version)
            .cloned()
            .collect()
    } else if Gvk::of(obj).group_version.text() != api_version {
        vec![obj.clone()]
    } else {
        Vec::new()
    }
}

/// `isEmptyUnstructuredObject`: an object with exactly `apiVersion` and `kind` (converted
/// as the None strategy does, without calling the webhook).
pub fn is_empty_object(obj: &Json) -> bool {
    match obj {
        Json::Object(m) => m.len() == 2 && m.contains_key("kind") && m.contains_key("apiVersion"),
        _ => false,
    }
}

/// A `ConversionReview` request as the server sends it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReviewRequest {
    /// The review's version (the first of `conversionReviewVersions` the server supports).
    pub review_version: ReviewVersion,
    /// `request.uid`.
    pub uid: String,
    /// `request.desiredAPIVersion`.
    pub desired_api_version: String,
    /// `request.objects`.
    pub objects: Vec<Json>,
}

impl ReviewRequest {
    /// `createConversionReviewObjects(conversionReviewVersions, objects, desired, uid)`.
    pub fn new(
        conversion_review_versions: &[String],
        objects: Vec<Json>,
        desired_api_version: &str,
        uid: &str,
    ) -> Result<ReviewRequest, String> {
        Ok(ReviewRequest {
            review_version: ReviewVersion::choose(conversion_review_versions)?,
            uid: uid.to_owned(),
            desired_api_version: desired_api_version.to_owned(),
            objects,
        })
    }

    /// The body the server POSTs, byte for byte: Go's JSON encoding of the review (fields in
    /// the Go structs' order, objects with sorted keys, HTML-safe escaping, a final newline),
    /// with the empty `response` the server's request struct carries.
    pub fn body(&self) -> String {
        let objects: Vec<String> = self
            .objects
            .iter()
            .map(crd_studio_gostd::json::marshal)
            .collect();
        format!(
            "{{\"kind\":\"ConversionReview\",\"apiVersion\":{},\"request\":{{\"uid\":{},\"desiredAPIVersion\":{},\"objects\":[{}]}},\"response\":{{\"uid\":\"\",\"convertedObjects\":null,\"result\":{{\"metadata\":{{}}}}}}}}\n",
            crd_studio_gostd::json::string(&self.review_version.api_version()),
            crd_studio_gostd::json::string(&self.uid),
            crd_studio_gostd::json::string(&self.desired_api_version),
            objects.join(",")
        )
    }

    /// [`ReviewRequest::body`] indented by two spaces (Go's `json.Indent`), for display.
    pub fn pretty(&self) -> String {
        indent(self.body().trim_end())
    }

    /// The review as a JSON value (what [`ReviewRequest::body`] holds).
    pub fn to_json(&self) -> Json {
        serde_json::json!({
            "kind": "ConversionReview",
            "apiVersion": self.review_version.api_version(),
            "request": {
                "uid": self.uid,
                "desiredAPIVersion": self.desired_api_version,
                "objects": self.objects,
            },
            "response": {"uid": "", "convertedObjects": null, "result": {"metadata": {}}},
        })
    }

    /// The response a correct webhook sends with `converted` (same review version, the
    /// request's uid, status `Success`).
    pub fn success_response(&self, converted: &[Json]) -> Json {
        serde_json::json!({
            "apiVersion": self.review_version.api_version(),
            "kind": "ConversionReview",
            "response": {
                "uid": self.uid,
                "result": {"status": "Success"},
                "convertedObjects": converted,
            },
        })
    }

    /// The response of a webhook that refuses the conversion with `message`.
    pub fn failure_response(&self, message: &str) -> Json {
        serde_json::json!({
            "apiVersion": self.review_version.api_version(),
            "kind": "ConversionReview",
            "response": {
                "uid": self.uid,
                "result": {"status": "Failed", "message": message},
            },
        })
    }
}

/// Go's `json.Indent(dst, src, "", "  ")` of compact JSON.
pub fn indent(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    // Empty: stays `{}` / `[]`.
                    if let Some(cl) = chars.next() {
                        out.push(cl);
                    }
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

/// The default `request.uid` of a review: the server takes a random UID (`uuid.NewUUID()`);
/// the engine has no randomness, so the studio and the CLI both use this one, derived from
/// what the request is about: `desiredAPIVersion` and, for each object sent, its
/// `apiVersion`, `kind`, `metadata.namespace` and `metadata.name` (not the rest of its
/// content, so a response written for a request keeps its uid while the objects' fields are
/// edited). Two 64-bit FNV-1a hashes of those strings (each ended by a NUL byte) give the 128
/// bits, shaped as an RFC 9562 UUID of version 8 (vendor-defined) and variant `10`.
pub fn request_uid(desired_api_version: &str, objects: &[Json]) -> String {
    let mut parts: Vec<&str> = vec![desired_api_version];
    for o in objects {
        parts.push(nested_str(o, &["apiVersion"]));
        parts.push(nested_str(o, &["kind"]));
        parts.push(nested_str(o, &["metadata", "namespace"]));
        parts.push(nested_str(o, &["metadata", "name"]));
    }
    let hash = |seed: u64| {
        let mut h = seed;
        for p in &parts {
            for b in p.bytes().chain(std::iter::once(0)) {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        h
    };
    let (a, b) = (hash(0xcbf2_9ce4_8422_2325), hash(0x6c62_272e_07bb_0142));
    format!(
        "{:08x}-{:04x}-8{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0x0fff,
        ((b >> 48) & 0x3fff) | 0x8000,
        b & 0xffff_ffff_ffff
    )
}

/// Everything the server does before it would POST: the converter's checks, the objects to
/// send, the review version. `objects` are converted alone (one) or as a list (several).
/// `uid` is the request uid; `None` takes [`request_uid`] of the request.
pub(crate) fn prepare_call(
    valid: &[GroupVersion],
    conversion_review_versions: &[String],
    kind: &str,
    objects: &[Json],
    target: &GroupVersion,
    uid: Option<&str>,
) -> Result<WebhookCall, String> {
    let list = objects.len() != 1;
    let desired = target.text();
    let input: Json = if list {
        serde_json::json!({
            "apiVersion": desired,
            "kind": format!("{kind}List"),
            "items": objects,
        })
    } else {
        objects.first().cloned().unwrap_or(Json::Null)
    };
    let to = check_versions(valid, &input, list, target)?;
    let mut call = WebhookCall {
        inputs: objects.to_vec(),
        list,
        target: to.clone(),
        subject: Gvk::of(&input).text(),
        sent: Vec::new(),
        request: None,
    };
    if !list && is_empty_object(&input) {
        call.sent = vec![None];
        return Ok(call);
    }
    let to_send = objects_to_convert(&input, list, &desired);
    let uid = match uid {
        Some(u) => u.to_owned(),
        None => request_uid(&desired, &to_send),
    };
    let request = ReviewRequest::new(conversion_review_versions, to_send, &desired, &uid)?;
    let mut next = 0usize;
    for obj in objects {
        let sent = if list {
            nested_str(obj, &["apiVersion"]) != desired
        } else {
            Gvk::of(obj).group_version.text() != desired
        };
        if sent {
            call.sent.push(Some(next));
            next += 1;
        } else {
            call.sent.push(None);
        }
    }
    if !request.objects.is_empty() {
        call.request = Some(request);
    }
    Ok(call)
}

// ------------------------------------------------------------------------------------------
// Decoding the response body
// ------------------------------------------------------------------------------------------

/// A webhook's response body.
pub struct Body<'a> {
    /// The text.
    pub text: &'a str,
    /// Its first document's value tree, if it has one.
    pub root: Option<&'a Node>,
    /// Syntax errors found reading it (message, where).
    pub syntax_errors: Vec<(String, Option<Span>)>,
}

impl Body<'_> {
    /// Whether the server's JSON serializer takes the body (else its YAML serializer does).
    fn is_json(&self) -> bool {
        self.text
            .trim_start_matches([' ', '\t', '\r', '\n'])
            .starts_with('{')
    }

    /// The raw text of a value as the server keeps it in a `RawExtension`: the bytes of the
    /// JSON body, or the JSON the YAML serializer made of it.
    fn raw(&self, node: &Node) -> String {
        if self.is_json() {
            if let Some(s) = self.text.get(node.span.start.offset..node.span.end.offset) {
                return s.to_owned();
            }
        }
        crd_studio_gostd::json::marshal(&node.to_json())
    }
}

/// One `runtime.RawExtension` of `response.convertedObjects`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawObject {
    /// The raw JSON the server keeps; `None` for `null`.
    pub raw: Option<String>,
    /// The decoded value; `None` for `null`.
    pub value: Option<Json>,
    /// Its path from the response root (`response.convertedObjects[0]`).
    pub path: String,
    /// Where it is in the response text.
    pub span: Option<Span>,
}

/// A `ConversionReview` response after the server decoded it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DecodedReview {
    /// The Go type it was decoded into.
    pub review_version: ReviewVersion,
    /// `apiVersion` as decoded (the body's).
    pub api_version: String,
    /// `kind` as decoded.
    pub kind: String,
    /// `response`, when present and not null.
    pub response: Option<DecodedResponse>,
}

/// `ConversionResponse`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DecodedResponse {
    /// `uid`.
    pub uid: String,
    /// `result.status`.
    pub status: String,
    /// `result.message`.
    pub message: String,
    /// `convertedObjects` (`None`: absent or null).
    pub converted_objects: Option<Vec<RawObject>>,
}

/// A decoding or check error and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Located {
    /// The server's text (or the studio's, with `studio`).
    pub message: String,
    /// The response path.
    pub path: Option<String>,
    /// Where.
    pub span: Option<Span>,
    /// The studio's words.
    pub studio: bool,
}

impl Located {
    fn at(message: String, path: &str, root: Option<&Node>) -> Box<Located> {
        Box::new(Located {
            message,
            path: Some(path.to_owned()),
            span: locate_in(root, path),
            studio: false,
        })
    }
}

/// Go's typed JSON decoding (`sigs.k8s.io/json`, case-sensitive) of the review structs over
/// a value tree: the first type error and where it is; values kept for the checks.
struct Typed<'b, 'a> {
    body: &'b Body<'a>,
    go: Decoder,
    first: Option<(FieldPath, Span)>,
    path: FieldPath,
}

impl<'b, 'a> Typed<'b, 'a> {
    fn new(body: &'b Body<'a>) -> Self {
        Typed {
            body,
            go: Decoder::new(false),
            first: None,
            path: FieldPath::root(),
        }
    }

    fn type_error(&mut self, node: &Node, value: &str, type_name: &str) {
        if self.first.is_none() {
            self.first = Some((self.path.clone(), node.span));
        }
        self.go.type_error(value, type_name);
    }

    /// The literal of a number as written (for "number 1.5" texts).
    fn number_literal(&self, node: &Node) -> String {
        match &node.value {
            Value::Int(i) => i.to_string(),
            _ => self
                .body
                .text
                .get(node.span.start.offset..node.span.end.offset)
                .filter(|s| self.body.is_json() && !s.is_empty())
                .map(str::to_owned)
                .unwrap_or_else(|| crd_studio_gostd::json::marshal(&node.to_json())),
        }
    }

    /// Decodes the fields of a struct: `fields` maps each JSON name to its decoder.
    fn object(
        &mut self,
        node: &Node,
        struct_name: &'static str,
        type_name: &str,
        mut field: impl FnMut(&mut Self, &'static str, &Node),
        names: &[&'static str],
    ) -> bool {
        match &node.value {
            Value::Null => false,
            Value::Map(entries) => {
                for e in entries {
                    let Some(&name) = names.iter().find(|n| **n == e.key) else {
                        continue;
                    };
                    let mark = self.go.enter_field(struct_name, name);
                    let saved = self.path.clone();
                    self.path = self.path.child(name);
                    field(self, name, &e.value);
                    self.path = saved;
                    self.go.leave(mark);
                }
                true
            }
            other => {
                let kind = other.go_json_kind();
                self.type_error(node, kind, type_name);
                false
            }
        }
    }

    fn string(&mut self, node: &Node, type_name: &str) -> Option<String> {
        match &node.value {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => {
                self.type_error(node, other.go_json_kind(), type_name);
                None
            }
        }
    }

    fn int(&mut self, node: &Node, type_name: &str, min: i64, max: i64) {
        match &node.value {
            Value::Null => {}
            Value::Int(i) if (min..=max).contains(i) => {}
            Value::Int(_) | Value::Float(_) => {
                let lit = format!("number {}", self.number_literal(node));
                self.type_error(node, &lit, type_name);
            }
            other => self.type_error(node, other.go_json_kind(), type_name),
        }
    }

    /// `[]runtime.RawExtension`: any JSON value per element.
    fn raw_list(&mut self, node: &Node) -> Option<Vec<RawObject>> {
        match &node.value {
            Value::Null => None,
            Value::Seq(items) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| RawObject {
                        raw: (!matches!(item.value, Value::Null)).then(|| self.body.raw(item)),
                        value: (!matches!(item.value, Value::Null)).then(|| item.to_json()),
                        path: self.path.index(i).to_string(),
                        span: Some(item.span),
                    })
                    .collect(),
            ),
            other => {
                self.type_error(node, other.go_json_kind(), "[]runtime.RawExtension");
                None
            }
        }
    }

    fn status(&mut self, node: &Node, response: &mut DecodedResponse) {
        self.object(
            node,
            "Status",
            "v1.Status",
            |t, name, v| match name {
                "status" => {
                    if let Some(s) = t.string(v, "string") {
                        response.status = s;
                    }
                }
                "message" => {
                    if let Some(s) = t.string(v, "string") {
                        response.message = s;
                    }
                }
                "kind" | "apiVersion" => {
                    t.string(v, "string");
                }
                "reason" => {
                    t.string(v, "v1.StatusReason");
                }
                "code" => t.int(v, "int32", i32::MIN.into(), i32::MAX.into()),
                "metadata" => {
                    t.object(
                        v,
                        "ListMeta",
                        "v1.ListMeta",
                        |t, name, v| match name {
                            "remainingItemCount" => t.int(v, "int64", i64::MIN, i64::MAX),
                            _ => {
                                t.string(v, "string");
                            }
                        },
                        &[
                            "selfLink",
                            "resourceVersion",
                            "continue",
                            "remainingItemCount",
                        ],
                    );
                }
                "details" => t.details(v),
                _ => {}
            },
            &[
                "kind",
                "apiVersion",
                "metadata",
                "status",
                "message",
                "reason",
                "details",
                "code",
            ],
        );
    }

    fn details(&mut self, node: &Node) {
        self.object(
            node,
            "StatusDetails",
            "v1.StatusDetails",
            |t, name, v| match name {
                "uid" => {
                    t.string(v, "types.UID");
                }
                "retryAfterSeconds" => t.int(v, "int32", i32::MIN.into(), i32::MAX.into()),
                "causes" => match &v.value {
                    Value::Null => {}
                    Value::Seq(items) => {
                        for (i, item) in items.iter().enumerate() {
                            let saved = t.path.clone();
                            t.path = t.path.index(i);
                            t.object(
                                item,
                                "StatusCause",
                                "v1.StatusCause",
                                |t, name, v| {
                                    let ty = if name == "reason" {
                                        "v1.CauseType"
                                    } else {
                                        "string"
                                    };
                                    t.string(v, ty);
                                },
                                &["reason", "message", "field"],
                            );
                            t.path = saved;
                        }
                    }
                    other => t.type_error(v, other.go_json_kind(), "[]v1.StatusCause"),
                },
                _ => {
                    t.string(v, "string");
                }
            },
            &[
                "name",
                "group",
                "kind",
                "uid",
                "causes",
                "retryAfterSeconds",
            ],
        );
    }

    /// The review of `version`.
    fn review(&mut self, node: &Node, version: ReviewVersion) -> DecodedReview {
        let mut review = DecodedReview {
            review_version: version,
            ..DecodedReview::default()
        };
        let request_type = format!("{}.ConversionRequest", version.name());
        let response_type = format!("{}.ConversionResponse", version.name());
        let review_type = version.go_type();
        match &node.value {
            Value::Null | Value::Map(_) => {}
            other => {
                // At the top there is no struct field in the context.
                self.type_error(node, other.go_json_kind(), &review_type);
                return review;
            }
        }
        self.object(
            node,
            "ConversionReview",
            &review_type,
            |t, name, v| match name {
                "kind" => {
                    if let Some(s) = t.string(v, "string") {
                        review.kind = s;
                    }
                }
                "apiVersion" => {
                    if let Some(s) = t.string(v, "string") {
                        review.api_version = s;
                    }
                }
                "request" => {
                    t.object(
                        v,
                        "ConversionRequest",
                        &request_type,
                        |t, name, v| match name {
                            "objects" => {
                                t.raw_list(v);
                            }
                            "uid" => {
                                t.string(v, "types.UID");
                            }
                            _ => {
                                t.string(v, "string");
                            }
                        },
                        &["uid", "desiredAPIVersion", "objects"],
                    );
                }
                "response" => {
                    let mut response = DecodedResponse::default();
                    let present = t.object(
                        v,
                        "ConversionResponse",
                        &response_type,
                        |t, name, v| match name {
                            "uid" => {
                                if let Some(s) = t.string(v, "types.UID") {
                                    response.uid = s;
                                }
                            }
                            "convertedObjects" => response.converted_objects = t.raw_list(v),
                            "result" => t.status(v, &mut response),
                            _ => {}
                        },
                        &["uid", "convertedObjects", "result"],
                    );
                    if present {
                        review.response = Some(response);
                    } else {
                        review.response = None;
                    }
                }
                _ => {}
            },
            &["kind", "apiVersion", "request", "response"],
        );
        review
    }

    fn finish(self) -> Result<(), Box<Located>> {
        let root = self.body.root;
        match (self.go.finish(), self.first) {
            (Err(message), Some((path, span))) => Err(Box::new(Located {
                message,
                path: Some(path.to_string()),
                span: Some(span).or_else(|| locate_in(root, &path.to_string())),
                studio: false,
            })),
            (Err(message), None) => Err(Box::new(Located {
                message,
                path: None,
                span: None,
                studio: false,
            })),
            _ => Ok(()),
        }
    }
}

/// Decodes a value tree as a `ConversionReview` of `version` (the struct decoding alone, as
/// when the review was built in Go): the first type error, or the review.
pub fn decode_review_value(
    body: &Body<'_>,
    node: &Node,
    version: ReviewVersion,
) -> Result<DecodedReview, Box<Located>> {
    let mut t = Typed::new(body);
    let review = t.review(node, version);
    t.finish()?;
    Ok(review)
}

/// The kinds the webhook client's scheme knows besides the review itself: the Go type a
/// body of `gvk` is decoded into.
fn registered_go_type(group: &str, version: &str, kind: &str) -> Option<String> {
    const UNVERSIONED: [&str; 5] = [
        "Status",
        "APIVersions",
        "APIGroupList",
        "APIGroup",
        "APIResourceList",
    ];
    const META: [&str; 7] = [
        "WatchEvent",
        "ListOptions",
        "GetOptions",
        "DeleteOptions",
        "CreateOptions",
        "UpdateOptions",
        "PatchOptions",
    ];
    const OWN: [&str; 3] = [
        "CustomResourceDefinition",
        "CustomResourceDefinitionList",
        "ConversionReview",
    ];
    if group == REVIEW_GROUP && (version == "v1" || version == "v1beta1") {
        if OWN.contains(&kind) {
            return Some(format!("{version}.{kind}"));
        }
        if META.contains(&kind) {
            return Some(format!("v1.{kind}"));
        }
    }
    if UNVERSIONED.contains(&kind) {
        return Some(format!("v1.{kind}"));
    }
    None
}

/// `SimpleMetaFactory.Interpret`: `apiVersion` and `kind` read with `encoding/json` (keys
/// matched case-insensitively, the first type error returned).
fn interpret(body: &Body<'_>) -> Result<(String, String), Box<Located>> {
    const FIND_KIND: &str = "struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }";
    let wrap = |m: String| format!("couldn't get version/kind; json parse error: {m}");
    let Some(root) = body.root else {
        return Ok((String::new(), String::new()));
    };
    let entries = match &root.value {
        Value::Null => return Ok((String::new(), String::new())),
        Value::Map(entries) => entries,
        other => {
            return Err(Box::new(Located {
                message: wrap(format!(
                    "json: cannot unmarshal {} into Go value of type {FIND_KIND}",
                    other.go_json_kind()
                )),
                path: Some(String::new()),
                span: Some(root.span),
                studio: false,
            }))
        }
    };
    let (mut api_version, mut kind) = (String::new(), String::new());
    let mut first: Option<Located> = None;
    for e in entries {
        let (field, slot) = if e.key.eq_ignore_ascii_case("apiVersion") {
            ("apiVersion", &mut api_version)
        } else if e.key.eq_ignore_ascii_case("kind") {
            ("kind", &mut kind)
        } else {
            continue;
        };
        match &e.value.value {
            Value::Null => {}
            Value::String(s) => *slot = s.clone(),
            other => {
                if first.is_none() {
                    first = Some(Located {
                        message: wrap(format!(
                            "json: cannot unmarshal {} into Go struct field .{field} of type string",
                            other.go_json_kind()
                        )),
                        path: Some(e.key.clone()),
                        span: Some(e.value.span),
                        studio: false,
                    });
                }
            }
        }
    }
    match first {
        Some(e) => Err(Box::new(e)),
        None => Ok((api_version, kind)),
    }
}

/// What `r.Into(response)` does with the body: the webhook client's codec decodes it into
/// the review type of the request's version (`apiVersion`/`kind` defaulted from it; another
/// registered kind fails to convert; an unknown one is not registered). Errors are the
/// server's texts, before the converter wraps them.
pub fn decode_body(body: &Body<'_>, version: ReviewVersion) -> Result<DecodedReview, Box<Located>> {
    if body.text.is_empty() {
        return Err(Box::new(Located {
            message: "0-length response with status code: 200 and content type: application/json"
                .to_owned(),
            path: None,
            span: None,
            studio: false,
        }));
    }
    if let Some((message, span)) = body.syntax_errors.first() {
        return Err(Box::new(Located {
            message: format!("the response is not valid JSON or YAML: {message}"),
            path: None,
            span: *span,
            studio: true,
        }));
    }
    let (api_version, kind) = interpret(body)?;
    let root = body.root;
    let at_type_meta = |message: String| {
        let path = if kind.is_empty() {
            "apiVersion"
        } else {
            "kind"
        };
        Located::at(message, path, root)
    };
    let gv = GroupVersion::parse(&api_version).map_err(|e| Located::at(e, "apiVersion", root))?;
    // gvkWithDefaults(actual, the review's kind)
    let (mut group, mut ver, mut kind_d) = (gv.group, gv.version, kind.clone());
    if kind_d.is_empty() {
        kind_d = "ConversionReview".to_owned();
    }
    if ver.is_empty() && group.is_empty() {
        group = REVIEW_GROUP.to_owned();
        ver = version.name().to_owned();
    }
    if ver.is_empty() && group == REVIEW_GROUP {
        ver = version.name().to_owned();
    }
    if ver.is_empty() {
        let raw = root
            .map(|r| body.raw(r))
            .unwrap_or_else(|| body.text.to_owned());
        return Err(at_type_meta(format!(
            "Object 'apiVersion' is missing in '{raw}'"
        )));
    }
    let null = Node {
        value: Value::Null,
        span: Span::default(),
    };
    let node = root.unwrap_or(&null);
    if group == REVIEW_GROUP && ver == version.name() && kind_d == "ConversionReview" {
        return decode_review_value(body, node, version);
    }
    let gv_text = GroupVersion::new(&group, &ver).text();
    let Some(go_type) = registered_go_type(&group, &ver, &kind_d) else {
        return Err(at_type_meta(format!(
            "no kind {} is registered for version {} in scheme {}",
            go_quote(&kind_d),
            go_quote(&gv_text),
            go_quote(HOOK_SCHEME_NAME)
        )));
    };
    // The other review version is decoded first (its type errors come first).
    if kind_d == "ConversionReview" {
        let other = if ver == "v1" {
            ReviewVersion::V1
        } else {
            ReviewVersion::V1beta1
        };
        decode_review_value(body, node, other)?;
    }
    Err(at_type_meta(format!(
        "converting ({go_type}) to ({}): unknown conversion",
        version.go_type()
    )))
}

// ------------------------------------------------------------------------------------------
// The checks
// ------------------------------------------------------------------------------------------

/// `getConvertedObjectsFromResponse(expectedUID, response)`: the converted objects (`None`
/// when the response has none), or the server's error and where it is.
pub fn converted_objects_from_response(
    expected_uid: &str,
    review: &DecodedReview,
    root: Option<&Node>,
) -> Result<Option<Vec<RawObject>>, Box<Located>> {
    if review.review_version == ReviewVersion::V1 {
        // TypeMeta.GroupVersionKind(): an unparsable apiVersion gives an empty group/version.
        let got = Gvk {
            group_version: GroupVersion::parse(&review.api_version).unwrap_or_default(),
            kind: review.kind.clone(),
        };
        let want = Gvk {
            group_version: GroupVersion::new(REVIEW_GROUP, "v1"),
            kind: "ConversionReview".to_owned(),
        };
        if got != want {
            let path = if got.group_version != want.group_version {
                "apiVersion"
            } else {
                "kind"
            };
            return Err(Located::at(
                format!(
                    "expected webhook response of {}, got {}",
                    want.text(),
                    got.text()
                ),
                path,
                root,
            ));
        }
    }
    let Some(response) = &review.response else {
        return Err(Located::at(
            "no response provided".to_owned(),
            "response",
            root,
        ));
    };
    if review.review_version == ReviewVersion::V1 && response.uid != expected_uid {
        return Err(Located::at(
            format!(
                "expected response.uid={}, got {}",
                go_quote(expected_uid),
                go_quote(&response.uid)
            ),
            "response.uid",
            root,
        ));
    }
    if response.status != "Success" {
        if !response.message.is_empty() {
            return Err(Located::at(
                response.message.clone(),
                "response.result.message",
                root,
            ));
        }
        return Err(Located::at(
            format!(
                "response.result.status was '{}', not 'Success'",
                response.status
            ),
            "response.result.status",
            root,
        ));
    }
    Ok(response.converted_objects.clone())
}

/// `getRawExtensionObject`: the unstructured object of a raw extension (`Object 'Kind' is
/// missing` when it has no kind).
pub fn raw_object(raw: &RawObject) -> Result<Json, String> {
    let Some(value) = &raw.value else {
        return Err("unexpected end of JSON input".to_owned());
    };
    if !value.is_object() {
        return Err(format!(
            "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            crd_studio_gostd::json::json_kind(value)
        ));
    }
    if Gvk::of(value).kind.is_empty() {
        return Err(format!(
            "Object 'Kind' is missing in '{}'",
            raw.raw.clone().unwrap_or_default()
        ));
    }
    Ok(value.clone())
}

/// `validateConvertedObject(in, out)`: kind, name, namespace and uid unchanged. The error and
/// the field it is about.
pub fn validate_converted_object(
    input: &Json,
    output: &Json,
) -> Result<(), (String, &'static str)> {
    let checks: [(&str, &[&str], &'static str); 4] = [
        ("kind", &["kind"], "kind"),
        ("name", &["metadata", "name"], "metadata.name"),
        (
            "namespace",
            &["metadata", "namespace"],
            "metadata.namespace",
        ),
        ("UID", &["metadata", "uid"], "metadata.uid"),
    ];
    for (what, path, field) in checks {
        let (e, a) = (nested_str(input, path), nested_str(output, path));
        if e != a {
            return Err((format!("must have the same {what}: {e} != {a}"), field));
        }
    }
    Ok(())
}

/// `restoreObjectMeta(original, converted)`: `converted` gets `original`'s metadata, with
/// the labels and annotations `converted` had (validated when they changed). Mutates
/// `converted` as the server does, also when it fails. The error and the metadata field it is
/// about.
pub fn restore_object_meta(
    original: &Json,
    converted: &mut Json,
) -> Result<(), (String, &'static str)> {
    let Json::Object(conv) = converted else {
        return Err((
            "missing metadata in converted object".to_owned(),
            "metadata",
        ));
    };
    let response_meta = match conv.get("metadata") {
        None => {
            return Err((
                "missing metadata in converted object".to_owned(),
                "metadata",
            ))
        }
        Some(Json::Object(m)) => m.clone(),
        Some(other) => {
            return Err((
                format!(
                    "invalid metadata of type {} in converted object",
                    crd_studio_gostd::fmt::type_name(other)
                ),
                "metadata",
            ))
        }
    };
    let restored = match original.get("metadata") {
        None => Json::Object(Map::new()),
        Some(m) => m.clone(),
    };
    conv.insert("metadata".to_owned(), restored);
    let Some(Json::Object(meta)) = conv.get_mut("metadata") else {
        let t = conv
            .get("metadata")
            .map(crd_studio_gostd::fmt::type_name)
            .unwrap_or("<nil>");
        return Err((
            format!("invalid metadata of type {t} in input object"),
            "metadata",
        ));
    };
    for (fld, path) in [
        ("labels", "metadata.labels"),
        ("annotations", "metadata.annotations"),
    ] {
        let response_field = match response_meta.get(fld) {
            None | Some(Json::Null) => {
                meta.remove(fld);
                continue;
            }
            Some(Json::Object(m)) => m,
            Some(other) => {
                return Err((
                    format!(
                        "invalid metadata.{fld} of type {} in converted object",
                        crd_studio_gostd::fmt::type_name(other)
                    ),
                    path,
                ))
            }
        };
        let empty = Map::new();
        let original_field = match meta.get(fld) {
            None | Some(Json::Null) => &empty,
            Some(Json::Object(m)) => m,
            Some(other) => {
                return Err((
                    format!(
                        "invalid metadata.{fld} of type {} in original object",
                        crd_studio_gostd::fmt::type_name(other)
                    ),
                    path,
                ))
            }
        };
        let mut changed = original_field.len() != response_field.len();
        let mut strings: Vec<(&str, &str)> = Vec::new();
        for (k, v) in response_field {
            let Json::String(s) = v else {
                return Err((
                    format!(
                        "metadata.{fld}[{k}] must be a string, but is {} in converted object",
                        crd_studio_gostd::fmt::type_name(v)
                    ),
                    path,
                ));
            };
            if original_field.get(k) != Some(v) {
                changed = true;
            }
            strings.push((k, s));
        }
        if changed {
            let errs = if fld == "labels" {
                validate_labels(&strings, &FieldPath::new("metadata").child("labels"))
            } else {
                validate_annotations(&strings, &FieldPath::new("metadata").child("annotation"))
            };
            if !errs.is_empty() {
                return Err((aggregate(&errs), path));
            }
        }
        let value = Json::Object(response_field.clone());
        meta.insert(fld.to_owned(), value);
    }
    Ok(())
}

/// `metav1validation.ValidateLabels` (keys in sorted order; Go's map order is random).
pub fn validate_labels(labels: &[(&str, &str)], path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (k, v) in labels {
        for m in is_qualified_name(k) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str((*k).to_owned()),
                m,
            ));
        }
        for m in is_valid_label_value(v) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str((*v).to_owned()),
                m,
            ));
        }
    }
    errs
}

/// `apivalidation.ValidateAnnotations`: keys are qualified names whatever their case; the
/// total size is at most 256 KiB.
pub fn validate_annotations(annotations: &[(&str, &str)], path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut total: i64 = 0;
    for (k, v) in annotations {
        let lower: String = k.chars().flat_map(char::to_lowercase).collect();
        for m in is_qualified_name(&lower) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Str((*k).to_owned()),
                m,
            ));
        }
        total = total
            .saturating_add(k.len() as i64)
            .saturating_add(v.len() as i64);
    }
    if total > 256 * 1024 {
        errs.push(FieldError::too_long(path.clone(), 256 * 1024));
    }
    errs
}

/// `errs.ToAggregate().Error()`: duplicates dropped; one error as it is, several in brackets.
pub fn aggregate(errs: &[FieldError]) -> String {
    let mut seen: Vec<String> = Vec::new();
    for e in errs {
        let text = e.error();
        if !seen.contains(&text) {
            seen.push(text);
        }
    }
    if seen.len() == 1 {
        seen.pop().unwrap_or_default()
    } else {
        format!("[{}]", seen.join(", "))
    }
}

/// The webhook converter's work on a response (`webhookConverter.Convert` after the POST):
/// decoding, `getConvertedObjectsFromResponse`, the count, and for each converted object its
/// raw decoding, group/version, kind, `validateConvertedObject` and `restoreObjectMeta`, with
/// the server's messages. The target version's decoding step is the caller's.
pub fn check_response(call: &WebhookCall, body: &Body<'_>) -> ResponseCheck {
    let mut check = ResponseCheck::default();
    let subject = &call.subject;
    let unchanged = |i: usize, obj: &Json| ConvertedObject {
        input: i,
        object: obj.clone(),
        ..ConvertedObject::default()
    };
    let Some(request) = &call.request else {
        // No call: nothing to convert, or converted as None does.
        for (i, obj) in call.inputs.iter().enumerate() {
            let mut o = obj.clone();
            if !call.list && is_empty_object(obj) {
                nop_convert(&mut o, false, &call.target);
            }
            check.objects.push(unchanged(i, &o));
        }
        check.accepted = true;
        return check;
    };
    let root = body.root;
    let fail = |check: &mut ResponseCheck, e: Box<Located>, wrap: bool| {
        let message = if wrap && !e.studio {
            format!("conversion webhook for {subject} failed: {}", e.message)
        } else {
            e.message
        };
        check.issues.push(ConversionIssue {
            message,
            response_path: e.path,
            span: e.span,
            object: None,
            studio: e.studio,
        });
    };
    let review = match decode_body(body, request.review_version) {
        Ok(r) => r,
        Err(e) => {
            fail(&mut check, e, true);
            return check;
        }
    };
    let converted = match converted_objects_from_response(&request.uid, &review, root) {
        Ok(c) => c.unwrap_or_default(),
        Err(e) => {
            fail(&mut check, e, true);
            return check;
        }
    };
    if converted.len() != request.objects.len() {
        let path = "response.convertedObjects";
        check.issues.push(ConversionIssue {
            message: format!(
                "conversion webhook for {subject} returned {} objects, expected {}",
                converted.len(),
                request.objects.len()
            ),
            response_path: Some(path.to_owned()),
            span: locate_in(root, path),
            ..ConversionIssue::default()
        });
        return check;
    }
    let to_text = call.target.text();
    for (i, input) in call.inputs.iter().enumerate() {
        let Some(Some(index)) = call.sent.get(i) else {
            check.objects.push(unchanged(i, input));
            continue;
        };
        let Some(raw) = converted.get(*index) else {
            continue;
        };
        let issue = |message: String, sub: &str| {
            let path = if sub.is_empty() {
                raw.path.clone()
            } else {
                format!("{}.{sub}", raw.path)
            };
            ConversionIssue {
                message,
                span: locate_in(root, &path).or(raw.span),
                response_path: Some(path),
                object: Some(i),
                studio: false,
            }
        };
        let mut result = ConvertedObject {
            input: i,
            sent: true,
            returned: raw.value.clone(),
            object: raw.value.clone().unwrap_or(Json::Null),
            ..ConvertedObject::default()
        };
        let (invalid, invalid_meta) = if call.list {
            (
                format!("conversion webhook for {subject} returned invalid converted object at index {index}"),
                format!("conversion webhook for {subject} returned invalid metadata in object at index {index}"),
            )
        } else {
            (
                format!("conversion webhook for {subject} returned invalid object at index 0"),
                format!("conversion webhook for {subject} returned invalid metadata"),
            )
        };
        let mut out = match raw_object(raw) {
            Ok(o) => o,
            Err(e) => {
                let message = if call.list {
                    format!("{invalid}: {e}")
                } else {
                    e
                };
                check.issues.push(issue(message, ""));
                check.objects.push(result);
                continue;
            }
        };
        let got = Gvk::of(&out);
        if got.group_version != call.target {
            check.issues.push(issue(
                format!(
                    "{invalid}: invalid groupVersion (expected {to_text}, received {})",
                    got.group_version.text()
                ),
                "apiVersion",
            ));
            check.objects.push(result);
            continue;
        }
        let want_kind = Gvk::of(input).kind;
        if got.kind != want_kind {
            check.issues.push(issue(
                format!(
                    "{invalid}: invalid kind (expected {want_kind}, received {})",
                    got.kind
                ),
                "kind",
            ));
            check.objects.push(result);
            continue;
        }
        if let Err((e, field)) = validate_converted_object(input, &out) {
            let message = if call.list {
                format!("{invalid}: {e}")
            } else {
                format!("conversion webhook for {subject} returned invalid object: {e}")
            };
            check.issues.push(issue(message, field));
            check.objects.push(result);
            continue;
        }
        result.discarded_metadata = discarded_metadata(input, &out);
        if let Err((e, field)) = restore_object_meta(input, &mut out) {
            check
                .issues
                .push(issue(format!("{invalid_meta}: {e}"), field));
            result.object = out;
            check.objects.push(result);
            continue;
        }
        result.object = out;
        check.objects.push(result);
    }
    check.accepted = check.issues.is_empty();
    check
}

/// The `metadata` fields (other than labels and annotations) the webhook changed, added or
/// removed: the server puts the original back.
fn discarded_metadata(original: &Json, converted: &Json) -> Vec<String> {
    let empty = Map::new();
    let meta = |o: &Json| -> Map<String, Json> {
        match o.get("metadata") {
            Some(Json::Object(m)) => m.clone(),
            _ => empty.clone(),
        }
    };
    let (a, b) = (meta(original), meta(converted));
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    crd_studio_gostd::sort::stable(&mut keys);
    keys.dedup();
    keys.into_iter()
        .filter(|k| *k != "labels" && *k != "annotations" && a.get(*k) != b.get(*k))
        .map(|k| format!("metadata.{k}"))
        .collect()
}

#[cfg(test)]
mod tests;
