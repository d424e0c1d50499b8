//! `kubectl explain` for a CRD's resource: the OpenAPI v3 schema the API server publishes for
//! one version of the CRD (apiextensions-apiserver `controller/openapi/builder`: the
//! structural schema with `apiVersion`, `kind` and `metadata` added at the root and in every
//! `x-kubernetes-embedded-resource`), rendered as kubectl's `pkg/explain/v2` plaintext
//! template renders it: `GROUP`/`KIND`/`VERSION`, `FIELD` with `ENUM`, `DESCRIPTION` wrapped
//! at 76 columns (go-wordwrap), `FIELDS` sorted by name with `<type>`, `-required-` and
//! `enum:`, or with `--recursive` the nested field names only.
//!
//! `metadata` is a `$ref` to ObjectMeta, published with the types it refers to
//! (`object_meta.rs`: the server's own descriptions), so a path below `metadata` and
//! `--recursive` go through it as kubectl goes through any `$ref`.

use serde_json::{json, Map, Value as Json};

/// The reference the builder gives `metadata`.
const OBJECT_META_REF: &str =
    "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// `TypeMeta`'s `apiVersion` description.
const API_VERSION_DOC: &str = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
/// `TypeMeta`'s `kind` description.
const KIND_DOC: &str = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
/// The embedded resource's `apiVersion` description (`addEmbeddedProperties`).
const EMBEDDED_API_VERSION_DOC: &str = "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
/// The embedded resource's `kind` description.
const EMBEDDED_KIND_DOC: &str = "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
/// `PartialObjectMetadata`'s `metadata` description.
const METADATA_DOC: &str = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/// What to explain.
#[derive(Clone, Debug, Default)]
pub struct ExplainRequest<'a> {
    /// The API group.
    pub group: &'a str,
    /// The version explained.
    pub version: &'a str,
    /// The kind.
    pub kind: &'a str,
    /// The version's `openAPIV3Schema` (v1 JSON), when it has one.
    pub schema: Option<&'a Json>,
    /// The field path below the resource (`spec`, `replicas`).
    pub field_path: &'a [String],
    /// `--recursive`.
    pub recursive: bool,
}

/// `kubectl explain RESOURCE[.FIELD.PATH] [--api-version V] [--recursive]` for
/// the CRD `compiled`: the version is `api_version` (`v1` or
/// `group/v1`; it must be served) or the preferred version; `path` is dot-separated and may
/// start with the resource's plural, singular, kind or a short name. A CRD the server would
/// reject is not published, so it has no explanation.
pub fn explain_crd(
    compiled: &crate::report::analysis::CompiledCrd,
    api_version: Option<&str>,
    path: &str,
    recursive: bool,
) -> Result<String, String> {
    let Some(crd) = compiled.internal() else {
        return Err("the CRD text holds no CustomResourceDefinition".to_owned());
    };
    if compiled
        .findings()
        .iter()
        .any(|f| f.severity == crate::documents::finding::Severity::Error)
    {
        return Err(
            "the API server would reject this CRD, so it publishes no schema to explain".to_owned(),
        );
    }
    let group = crd.spec.group.as_str();
    let names = &crd.spec.names;
    let version = match api_version.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => {
            let name = v.strip_prefix(&format!("{group}/")).unwrap_or(v);
            if !crd.spec.versions.iter().any(|x| x.served && x.name == name) {
                return Err(format!(
                    "couldn't find resource for \"{group}/{name}, Resource={}\"",
                    names.plural
                ));
            }
            name.to_owned()
        }
        None => crate::versions::overview::preferred_version(crd)
            .ok_or_else(|| "the CRD serves no version".to_owned())?,
    };
    let mut segments: Vec<String> = path
        .split('.')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    if let Some(first) = segments.first() {
        let f = first.to_ascii_lowercase();
        let names_it = f == names.plural.to_ascii_lowercase()
            || f == names.singular.to_ascii_lowercase()
            || f == names.kind.to_ascii_lowercase()
            || names
                .short_names
                .iter()
                .any(|n| n.to_ascii_lowercase() == f);
        if names_it {
            segments.remove(0);
        }
    }
    // The compile's v1 JSON (the text is not parsed again: megabytes for a big CRD).
    let v1 = compiled.v1_json();
    let schema = v1.as_deref().and_then(|v1| {
        v1.get("spec")?
            .get("versions")?
            .as_array()?
            .iter()
            .find(|v| v.get("name").and_then(Json::as_str) == Some(version.as_str()))?
            .get("schema")?
            .get("openAPIV3Schema")
    });
    explain(&ExplainRequest {
        group,
        version: &version,
        kind: &names.kind,
        schema,
        field_path: &segments,
        recursive,
    })
}

/// The published OpenAPI document the template reads: the resource's schema and the
/// referenced metadata types.
struct Document {
    root: Json,
    schemas: Map<String, Json>,
}

/// kubectl explain's text, or its error (`field "x" does not exist`), without kubectl's
/// `error: ` prefix.
pub fn explain(req: &ExplainRequest<'_>) -> Result<String, String> {
    let doc = Document {
        root: published_schema(req.schema),
        schemas: object_meta::schemas(),
    };
    let mut out = String::new();
    if !req.group.is_empty() {
        out.push_str(&format!("GROUP:      {}\n", req.group));
    }
    out.push_str(&format!("KIND:       {}\n", req.kind));
    out.push_str(&format!("VERSION:    {}\n", req.version));
    out.push('\n');
    let body = doc.output(&doc.root, &[], req.field_path, req.recursive);
    if body.is_empty() {
        let last = req.field_path.last().cloned().unwrap_or_default();
        return Err(format!("field \"{last}\" does not exist"));
    }
    out.push_str(&body);
    out.push('\n');
    Ok(out)
}

/// The schema `BuildOpenAPIV3` publishes for a version: `{type: object}` without a schema;
/// otherwise the schema with `metadata`, `apiVersion` and `kind` at the root and the
/// embedded resources' properties.
pub fn published_schema(schema: Option<&Json>) -> Json {
    let Some(Json::Object(s)) = schema else {
        return json!({"type": "object"});
    };
    let mut root = Json::Object(s.clone());
    set_property(&mut root, "metadata", metadata_ref());
    set_property(
        &mut root,
        "apiVersion",
        json!({"type": "string", "description": API_VERSION_DOC}),
    );
    set_property(
        &mut root,
        "kind",
        json!({"type": "string", "description": KIND_DOC}),
    );
    add_embedded_properties(&mut root, 0);
    root
}

fn metadata_ref() -> Json {
    json!({"allOf": [{"$ref": OBJECT_META_REF}], "description": METADATA_DOC})
}

fn set_property(s: &mut Json, name: &str, value: Json) {
    if let Json::Object(m) = s {
        let props = m
            .entry("properties")
            .or_insert_with(|| Json::Object(Map::new()));
        if let Json::Object(p) = props {
            p.insert(name.to_owned(), value);
        }
    }
}

fn add_embedded_properties(s: &mut Json, depth: usize) {
    if depth > 200 {
        return;
    }
    let Json::Object(m) = s else { return };
    if let Some(Json::Object(props)) = m.get_mut("properties") {
        for v in props.values_mut() {
            add_embedded_properties(v, depth + 1);
        }
    }
    if let Some(items) = m.get_mut("items") {
        add_embedded_properties(items, depth + 1);
    }
    if let Some(ap @ Json::Object(_)) = m.get_mut("additionalProperties") {
        add_embedded_properties(ap, depth + 1);
    }
    if m.get("x-kubernetes-embedded-resource") == Some(&Json::Bool(true)) {
        set_property(
            s,
            "apiVersion",
            json!({"type": "string", "description": EMBEDDED_API_VERSION_DOC}),
        );
        set_property(
            s,
            "kind",
            json!({"type": "string", "description": EMBEDDED_KIND_DOC}),
        );
        set_property(s, "metadata", metadata_ref());
        if let Json::Object(m) = s {
            let req = m
                .entry("required")
                .or_insert_with(|| Json::Array(Vec::new()));
            if let Json::Array(r) = req {
                for name in ["kind", "apiVersion"] {
                    if !r.iter().any(|x| x.as_str() == Some(name)) {
                        r.push(Json::String(name.to_owned()));
                    }
                }
            }
        }
    }
}

/// Go template truthiness of a decoded JSON value.
fn truthy(v: Option<&Json>) -> bool {
    match v {
        None | Some(Json::Null) => false,
        Some(Json::Bool(b)) => *b,
        Some(Json::String(s)) => !s.is_empty(),
        Some(Json::Array(a)) => !a.is_empty(),
        Some(Json::Object(o)) => !o.is_empty(),
        Some(Json::Number(n)) => n.as_f64() != Some(0.0),
    }
}

fn ref_of(s: &Json) -> &str {
    s.get("$ref").and_then(Json::as_str).unwrap_or("")
}

/// `additionalProperties` when it is a schema (not a boolean).
fn additional(s: &Json) -> Option<&Json> {
    s.get("additionalProperties")
        .filter(|a| a.is_object() && truthy(Some(a)))
}

fn all_of(s: &Json) -> &[Json] {
    s.get("allOf")
        .and_then(Json::as_array)
        .map_or(&[], Vec::as_slice)
}

/// kubectl's `indent`: the pad before the text and after every newline.
fn indent(amount: usize, s: &str) -> String {
    let pad = " ".repeat(amount);
    format!("{pad}{}", s.replace('\n', &format!("\n{pad}")))
}

impl Document {
    /// `resolveRef`: a `#/components/schemas/<name>` reference.
    fn resolve(&self, r: &str) -> Option<&Json> {
        let name = r.strip_prefix("#/components/schemas/")?;
        self.schemas.get(name)
    }

    fn resolved<'a>(&'a self, s: &'a Json) -> &'a Json {
        self.resolve(ref_of(s)).unwrap_or(s)
    }

    /// The template's `output`.
    fn output(
        &self,
        schema: &Json,
        history: &[String],
        path: &[String],
        recursive: bool,
    ) -> String {
        if history.len() > 64 {
            return String::new();
        }
        let r = ref_of(schema);
        let mut next = history.to_vec();
        next.push(r.to_owned());
        let resolved = self.resolved(schema);
        let Some((first, rest)) = path.split_first() else {
            let mut out = String::from("DESCRIPTION:\n");
            let d = self.description(resolved, 0);
            let d = if d.is_empty() {
                "<empty>".to_owned()
            } else {
                d
            };
            out.push_str(&indent(4, &wrap(76, &d)));
            out.push('\n');
            let docs = external_docs(resolved, 0, 4, 76);
            if !docs.is_empty() {
                out.push('\n');
                out.push_str(&docs);
            }
            let fields = self.field_list(resolved, 1, &[], recursive);
            if !fields.is_empty() {
                out.push_str("FIELDS:\n");
                out.push_str(&fields);
            }
            return out;
        };
        if !r.is_empty() && history.iter().any(|h| h == r) {
            return String::new();
        }
        let prop = resolved.get("properties").and_then(|p| p.get(first));
        if truthy(resolved.get("properties")) && truthy(prop) {
            let Some(sub) = prop else {
                return String::new();
            };
            let mut out = String::new();
            if rest.is_empty() {
                out.push_str(&format!("FIELD: {first} <{}>\n", self.type_guess(sub, 0)));
                out.push_str(&extract_enum(sub, true, -1, 0));
                out.push_str("\n\n");
            }
            out.push_str(&self.output(sub, &[], rest, recursive));
            return out;
        }
        if let Some(items) = resolved.get("items").filter(|i| truthy(Some(i))) {
            return self.output(items, &next, path, recursive);
        }
        if let Some(ap) = additional(resolved) {
            return self.output(ap, &next, path, recursive);
        }
        for sub in all_of(resolved) {
            let o = self.output(sub, &next, path, recursive);
            if !o.is_empty() {
                return o;
            }
        }
        String::new()
    }

    /// The template's `description`.
    fn description(&self, schema: &Json, depth: usize) -> String {
        let s = self.resolved(schema);
        if depth > 64 || !truthy(Some(s)) {
            return String::new();
        }
        let mut out = String::new();
        if let Some(d) = s
            .get("description")
            .and_then(Json::as_str)
            .filter(|d| !d.is_empty())
        {
            out.push_str(d);
            out.push('\n');
        }
        for sub in all_of(s) {
            out.push_str(&self.description(sub, depth + 1));
        }
        if let Some(items) = s.get("items").filter(|i| truthy(Some(i))) {
            out.push_str(&self.description(items, depth + 1));
        }
        if let Some(ap) = additional(s) {
            out.push_str(&self.description(ap, depth + 1));
        }
        out
    }

    /// The template's `fieldList`.
    fn field_list(
        &self,
        schema: &Json,
        level: usize,
        history: &[String],
        recursive: bool,
    ) -> String {
        let r = ref_of(schema);
        if !r.is_empty() && history.iter().any(|h| h == r) || history.len() > 64 || level > 64 {
            return String::new();
        }
        let mut next = history.to_vec();
        next.push(r.to_owned());
        let resolved = self.resolved(schema);
        let mut out = String::new();
        if let Some(Json::Object(props)) = resolved.get("properties") {
            let mut names: Vec<&String> = props.keys().collect();
            crd_studio_gostd::sort::stable(&mut names);
            for name in names {
                out.push_str(&self.field_detail(name, resolved, recursive, level));
                if recursive {
                    if let Some(v) = props.get(name) {
                        out.push_str(&self.field_list(v, level + 1, &next, recursive));
                    }
                }
            }
        }
        for sub in all_of(resolved) {
            out.push_str(&self.field_list(sub, level, &next, recursive));
        }
        if let Some(items) = resolved.get("items").filter(|i| truthy(Some(i))) {
            out.push_str(&self.field_list(items, level, &next, recursive));
        }
        if let Some(ap) = additional(resolved) {
            out.push_str(&self.field_list(ap, level, &next, recursive));
        }
        out
    }

    /// The template's `fieldDetail`.
    fn field_detail(&self, name: &str, parent: &Json, short: bool, level: usize) -> String {
        let ia = level * 2;
        let null = Json::Null;
        let field = parent
            .get("properties")
            .and_then(|p| p.get(name))
            .unwrap_or(&null);
        let mut out = indent(ia, name);
        out.push('\t');
        out.push_str(&format!("<{}>", self.type_guess(field, 0)));
        let required = parent
            .get("required")
            .and_then(Json::as_array)
            .is_some_and(|r| r.iter().any(|x| x.as_str() == Some(name)));
        if required {
            out.push_str(" -required-");
        }
        out.push_str(&extract_enum(field, false, 4, ia));
        out.push('\n');
        if !short {
            let d = field
                .get("description")
                .and_then(Json::as_str)
                .filter(|d| !d.is_empty())
                .unwrap_or("<no description>");
            out.push_str(&indent(ia + 2, &wrap(78usize.saturating_sub(ia), d)));
            out.push('\n');
            let docs = external_docs(field, ia + 2, ia + 4, 76usize.saturating_sub(ia));
            if !docs.is_empty() {
                out.push('\n');
                out.push_str(&docs);
            }
            out.push('\n');
        }
        out
    }

    /// The template's `typeGuess`.
    fn type_guess(&self, s: &Json, depth: usize) -> String {
        if depth > 64 {
            return "Object".to_owned();
        }
        if let Some(items) = s.get("items").filter(|i| truthy(Some(i))) {
            return format!("[]{}", self.type_guess(items, depth + 1));
        }
        if let Some(ap) = additional(s) {
            return format!("map[string]{}", self.type_guess(ap, depth + 1));
        }
        let all = all_of(s);
        if let (Some(one), 1, false) = (all.first(), all.len(), truthy(s.get("properties"))) {
            return self.type_guess(one, depth + 1);
        }
        let r = ref_of(s);
        let ty = |v: &Json| {
            v.get("type")
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_owned()
        };
        if !r.is_empty() {
            let target = self.resolve(r);
            let t = target.map(ty).unwrap_or_default();
            if target.is_none() || t.is_empty() || t == "object" {
                let name = r.rsplit('/').next().unwrap_or("");
                let last = name.rsplit('.').next().unwrap_or("");
                return if last.is_empty() {
                    "Object".to_owned()
                } else {
                    last.to_owned()
                };
            }
            return t;
        }
        match ty(s).as_str() {
            "object" | "" => "Object".to_owned(),
            t => t.to_owned(),
        }
    }
}

/// The template's `externalDocs` (at indent 0, for the explained schema) and its inline form in
/// `fieldDetail` (at the field's description indent).
fn external_docs(s: &Json, heading: usize, content: usize, width: usize) -> String {
    let Some(docs) = s.get("externalDocs").filter(|d| truthy(Some(d))) else {
        return String::new();
    };
    let mut out = indent(heading, "EXTERNAL DOCS:");
    out.push('\n');
    if let Some(d) = docs
        .get("description")
        .and_then(Json::as_str)
        .filter(|d| !d.is_empty())
    {
        out.push_str(&indent(content, &wrap(width, d)));
        out.push('\n');
    }
    if let Some(u) = docs
        .get("url")
        .and_then(Json::as_str)
        .filter(|u| !u.is_empty())
    {
        out.push_str(&indent(content, &format!("URL: {u}")));
        out.push('\n');
    }
    out
}

/// The template's `extractEnum`.
fn extract_enum(s: &Json, long: bool, limit: i64, indent_amount: usize) -> String {
    let Some(values) = s
        .get("enum")
        .and_then(Json::as_array)
        .filter(|e| !e.is_empty())
    else {
        return String::new();
    };
    let mut out = if long {
        "ENUM:".to_owned()
    } else {
        format!("\n{}enum: ", " ".repeat(indent_amount))
    };
    for (i, e) in values.iter().enumerate() {
        if limit > -1 && i as i64 >= limit {
            out.push_str(", ....");
            break;
        }
        if i > 0 && !long {
            out.push_str(", ");
        } else if long {
            out.push_str("\n    ");
        }
        match e {
            Json::String(x) if x.is_empty() => out.push_str("\"\""),
            // encoding/json decodes every number as float64.
            Json::Number(n) => out.push_str(&crd_studio_gostd::strconv::format_float_g(
                n.as_f64().unwrap_or(0.0),
            )),
            other => out.push_str(&crd_studio_gostd::fmt::v(other)),
        }
    }
    out
}

/// go-wordwrap's `WrapString` (the `wrap` template function): breaks lines at whitespace
/// (not a no-break space) before a word would pass `lim` characters; a word longer than `lim`
/// is not broken.
pub fn wrap(lim: usize, s: &str) -> String {
    let mut buf = String::with_capacity(s.len());
    let mut current = 0usize;
    let (mut word, mut space) = (String::new(), String::new());
    let (mut word_len, mut space_len) = (0usize, 0usize);
    for c in s.chars() {
        if c == '\n' {
            if word.is_empty() {
                if current + space_len <= lim {
                    buf.push_str(&space);
                }
            } else {
                buf.push_str(&space);
                buf.push_str(&word);
                word.clear();
                word_len = 0;
            }
            space.clear();
            space_len = 0;
            buf.push(c);
            current = 0;
        } else if c.is_whitespace() && c != '\u{a0}' {
            if space.is_empty() || !word.is_empty() {
                current += space_len + word_len;
                buf.push_str(&space);
                buf.push_str(&word);
                space.clear();
                word.clear();
                space_len = 0;
                word_len = 0;
            }
            space.push(c);
            space_len += 1;
        } else {
            word.push(c);
            word_len += 1;
            if current + word_len + space_len > lim && word_len < lim {
                buf.push('\n');
                current = 0;
                space.clear();
                space_len = 0;
            }
        }
    }
    if word.is_empty() {
        if current + space_len <= lim {
            buf.push_str(&space);
        }
    } else {
        buf.push_str(&space);
        buf.push_str(&word);
    }
    buf
}

pub mod object_meta;

#[cfg(test)]
mod tests;
