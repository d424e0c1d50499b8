//! Help while writing: completion and hover for the CRD editor, the object editor and the
//! CEL rules inside the CRD ([`complete`], [`hover`]), and the text edits that repair the
//! findings with an obvious repair ([`fixes`]).
//!
//! The cursor may be in broken, half-typed YAML: its context comes from the indentation of
//! the lines above it ([`yaml_context`]), and the schema from the compiled CRD (the last
//! one that compiled). In a JSON document (one whose first character is `{` or `[`,
//! decided per `---` document: [`json_context::is_json`]) a tolerant scan of its tokens
//! gives the same context ([`json_context`]), and the items insert JSON: keys quoted with
//! `: `, string values quoted, numbers and booleans bare.

pub mod cel_assist;
pub mod docs;
pub mod editor_units;
pub mod fixes;
pub mod fixes_selectable;
pub mod json_context;
pub mod rule_edit;
pub mod version_note;
pub mod yaml_context;

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::report::analysis::CompiledCrd;
use crate::schema::Structural;
use json_context::JsonContext;
use yaml_context::{Context, Place, Seg};

/// Which editor asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Editor {
    /// The CRD text.
    Crd,
    /// An object text.
    Object,
}

/// One completion item.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CompletionItem {
    /// What is shown and matched.
    pub label: String,
    /// `property`, `keyword`, `enum`, `constant`, `function`, `method`, `variable`, `type`.
    pub kind: String,
    /// A short line beside the label: the type, `required`, a signature.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
    /// The documentation line.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub info: String,
    /// The text inserted, when not the label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apply: Option<String>,
    /// The text the typed word is matched against, when not the label: in JSON, the label
    /// after the opening quote the user typed (the replaced range starts at that quote).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter_text: Option<String>,
}

/// Completions for a range of the text (the word being typed): byte offsets.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Completions {
    /// Start of the replaced word.
    pub from: usize,
    /// End (the cursor).
    pub to: usize,
    /// The items, in the order to show.
    pub items: Vec<CompletionItem>,
    /// Where a `,` is inserted with the chosen item (JSON: a member typed after one that
    /// has none yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comma_at: Option<usize>,
}

/// What hovering shows: a title line and lines of documentation, for a byte range.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Hover {
    /// Start of the thing hovered.
    pub from: usize,
    /// Its end.
    pub to: usize,
    /// `name: type` or a signature.
    pub title: String,
    /// Description, bounds, default, required-ness.
    pub lines: Vec<String>,
}

fn item(label: &str, kind: &str, detail: String, info: String) -> CompletionItem {
    CompletionItem {
        label: label.to_owned(),
        kind: kind.to_owned(),
        detail,
        info,
        apply: None,
        filter_text: None,
    }
}

// ----------------------------------------------------------------------------------------
// YAML or JSON
// ----------------------------------------------------------------------------------------

/// The cursor's context: from the JSON reader when the document around the cursor is JSON
/// (with its JSON details), else from the YAML reader.
fn read_context(text: &str, offset: usize) -> Option<(Context, Option<JsonContext>)> {
    if json_context::is_json(text, offset) {
        let j = json_context::context(text, offset)?;
        Some((j.ctx.clone(), Some(j)))
    } else {
        yaml_context::context(text, offset).map(|c| (c, None))
    }
}

/// The cursor's context in a YAML or JSON document ([`read_context`] without the JSON
/// details).
pub(crate) fn context_at(text: &str, offset: usize) -> Option<Context> {
    read_context(text, offset).map(|(c, _)| c)
}

/// The key under byte `offset`, from the JSON or the YAML reader (see [`read_context`]).
pub(crate) fn key_at(text: &str, offset: usize) -> Option<(Vec<Seg>, String, usize, usize)> {
    if json_context::is_json(text, offset) {
        json_context::key_at(text, offset)
    } else {
        yaml_context::key_at(text, offset)
    }
}

/// Whether a value's label is written bare in JSON (a number, a boolean, null).
fn json_literal(label: &str) -> bool {
    serde_json::from_str::<Json>(label).is_ok_and(|v| !v.is_string())
}

/// The completions for `items` at the context: the keys' and values' inserted text (YAML, or
/// JSON quoting) and the replaced range.
fn finish(
    mut items: Vec<CompletionItem>,
    ctx: &Context,
    json: Option<&JsonContext>,
    offset: usize,
) -> Completions {
    let Some(j) = json else {
        if ctx.place == Place::Key {
            for i in &mut items {
                i.apply = Some(format!("{}: ", i.label));
            }
        }
        return Completions {
            from: ctx.from,
            to: offset,
            items,
            comma_at: None,
        };
    };
    for i in &mut items {
        if ctx.place == Place::Key {
            let quoted = serde_json::to_string(&i.label).unwrap_or_default();
            i.apply = Some(if j.colon_follows {
                quoted
            } else {
                format!("{quoted}: ")
            });
        } else if i.apply.is_none() && !json_literal(&i.label) {
            i.apply = Some(serde_json::to_string(&i.label).unwrap_or_default());
        } else if i.apply.is_none() {
            i.apply = Some(i.label.clone());
        }
        if j.quote.is_some() {
            i.filter_text = Some(format!("\"{}", i.label));
        }
    }
    Completions {
        from: j.quote.unwrap_or(ctx.from),
        to: j.end,
        comma_at: j
            .comma_at
            .filter(|_| ctx.place == Place::Key && !items.is_empty()),
        items,
    }
}

/// The first line of a description.
pub fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").trim().to_owned()
}

/// The type a schema node shows: `string`, `integer`, `[]string`, `map[string]integer`,
/// `int-or-string`, `object`.
pub fn type_text(s: &Structural) -> String {
    if s.extensions.x_int_or_string {
        return "int-or-string".to_owned();
    }
    match s.generic.type_.as_str() {
        "array" => match &s.items {
            Some(i) => format!("[]{}", type_text(i)),
            None => "array".to_owned(),
        },
        "object" if s.properties.is_empty() => {
            match s
                .additional_properties
                .as_ref()
                .and_then(|a| a.structural.as_deref())
            {
                Some(v) => format!("map[string]{}", type_text(v)),
                None => "object".to_owned(),
            }
        }
        "" => "any".to_owned(),
        t => t.to_owned(),
    }
}

fn json_text(v: &Json) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// The hover lines of a schema node: description, type facts, bounds, default, required.
pub fn node_lines(s: &Structural, required: bool) -> Vec<String> {
    let mut out = Vec::new();
    if !s.generic.description.is_empty() {
        out.push(s.generic.description.to_string());
    }
    let mut facts = Vec::new();
    if required {
        facts.push("required".to_owned());
    }
    if let Some(v) = &s.value_validation {
        if !v.format.is_empty() {
            facts.push(format!("format: {}", v.format));
        }
        let bound = |name: &str, n: Option<f64>, excl: bool| {
            n.map(|n| format!("{name}{}: {n}", if excl { " (exclusive)" } else { "" }))
        };
        facts.extend(bound("minimum", v.minimum, v.exclusive_minimum));
        facts.extend(bound("maximum", v.maximum, v.exclusive_maximum));
        let int = |name: &str, n: Option<i64>| n.map(|n| format!("{name}: {n}"));
        facts.extend(int("minLength", v.min_length));
        facts.extend(int("maxLength", v.max_length));
        facts.extend(int("minItems", v.min_items));
        facts.extend(int("maxItems", v.max_items));
        facts.extend(int("minProperties", v.min_properties));
        facts.extend(int("maxProperties", v.max_properties));
        if !v.pattern.is_empty() {
            facts.push(format!("pattern: {}", v.pattern));
        }
        if !v.enum_.is_empty() {
            let vals: Vec<String> = v.enum_.iter().map(json_text).collect();
            facts.push(format!("enum: {}", vals.join(", ")));
        }
    }
    if let Some(d) = &s.generic.default {
        facts.push(format!("default: {}", json_text(d)));
    }
    if s.generic.nullable {
        facts.push("nullable".to_owned());
    }
    if let Some(t) = &s.extensions.x_list_type {
        facts.push(format!("list type: {t}"));
    }
    if !facts.is_empty() {
        out.push(facts.join(" · "));
    }
    out
}

fn is_required(parent: &Structural, key: &str) -> bool {
    parent
        .value_validation
        .as_ref()
        .is_some_and(|v| v.required.iter().any(|r| r == key))
}

/// The child of a schema node along one path step.
pub fn child<'a>(s: &'a Structural, seg: &Seg) -> Option<&'a Structural> {
    match seg {
        Seg::Key(k) => s.properties.get(k).map(Box::as_ref).or_else(|| {
            s.additional_properties
                .as_ref()
                .and_then(|a| a.structural.as_deref())
        }),
        Seg::Item(_) => s.items.as_deref(),
    }
}

// ----------------------------------------------------------------------------------------
// The object editor
// ----------------------------------------------------------------------------------------

/// The value of a top-level `key:` in the YAML document around `offset` (`"key": "value"`
/// in a JSON document).
fn top_level_value(text: &str, offset: usize, key: &str) -> Option<String> {
    if json_context::is_json(text, offset) {
        return json_context::top_level_string(text, offset, key);
    }
    let before = text.get(..offset)?;
    let doc_start = before
        .match_indices("\n---")
        .last()
        .map_or(0, |(i, _)| i + 4);
    let after = text.get(doc_start..)?;
    let doc_end = after.find("\n---").unwrap_or(after.len());
    let prefix = format!("{key}:");
    after
        .get(..doc_end)?
        .lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .map(|v| {
            v.split(" #")
                .next()
                .unwrap_or("")
                .trim()
                .trim_matches(['"', '\''])
                .to_owned()
        })
        .filter(|v| !v.is_empty())
}

/// The root schema of the object's version (from its `apiVersion`; else the storage
/// version's).
pub(crate) fn object_root<'a>(
    crd: &'a CompiledCrd,
    text: &str,
    offset: usize,
) -> Option<&'a Structural> {
    let versions = crd.compiled_versions();
    let named = top_level_value(text, offset, "apiVersion")
        .and_then(|av| av.rsplit('/').next().map(str::to_owned));
    let by_name = named.and_then(|n| versions.iter().find(|v| v.name == n));
    by_name
        .or_else(|| versions.iter().find(|v| v.storage))
        .or_else(|| versions.first())
        .and_then(|v| v.structural.as_deref())
}

fn served_api_versions(crd: &CompiledCrd) -> Vec<String> {
    let group = crd
        .model()
        .and_then(|m| m.group.as_ref().map(|g| g.value.clone()))
        .unwrap_or_default();
    crd.compiled_versions()
        .iter()
        .filter(|v| v.served)
        .map(|v| format!("{group}/{}", v.name))
        .collect()
}

fn crd_kind(crd: &CompiledCrd) -> Option<String> {
    crd.model()
        .and_then(|m| m.names.kind.as_ref())
        .map(|k| k.value.clone())
}

/// What a node under `metadata` or at the root offers beyond the schema.
fn meta_node(path: &[Seg]) -> Option<&'static [(&'static str, &'static str, &'static str)]> {
    match path {
        [Seg::Key(m)] if m == "metadata" => Some(docs::OBJECT_META),
        _ => None,
    }
}

fn object_complete(crd: &CompiledCrd, text: &str, offset: usize) -> Option<Completions> {
    let (mut ctx, json) = read_context(text, offset)?;
    let root = object_root(crd, text, offset);
    // A YAML list item (`- |`) of scalars: a value of the list's key (its items' values).
    if let (Place::Key, [.., Seg::Key(k), Seg::Item(_)]) = (&ctx.place, ctx.path.as_slice()) {
        if walk(root, &ctx.path).is_some_and(|n| n.generic.type_ != "object") {
            let key = k.clone();
            ctx.path.truncate(ctx.path.len().saturating_sub(2));
            ctx.place = Place::Value {
                key,
                start: ctx.from,
            };
        }
    }
    let mut items = Vec::new();
    match &ctx.place {
        Place::Key => {
            if ctx.path.is_empty() {
                for (name, detail, info) in docs::OBJECT_ROOT {
                    items.push(item(
                        name,
                        "property",
                        (*detail).to_owned(),
                        (*info).to_owned(),
                    ));
                }
            }
            if let Some(fields) = meta_node(&ctx.path) {
                for (name, detail, info) in fields {
                    items.push(item(
                        name,
                        "property",
                        (*detail).to_owned(),
                        (*info).to_owned(),
                    ));
                }
            } else if let Some(node) = walk(root, &ctx.path) {
                for (name, s) in &node.properties {
                    if ctx.path.is_empty()
                        && ["apiVersion", "kind", "metadata"].contains(&name.as_str())
                    {
                        continue;
                    }
                    let req = is_required(node, name);
                    let detail = if req {
                        format!("{} · required", type_text(s))
                    } else {
                        type_text(s)
                    };
                    items.push(item(
                        name,
                        "property",
                        detail,
                        first_line(&s.generic.description),
                    ));
                }
            }
            items.retain(|i| !ctx.siblings.contains(&i.label));
            // Required fields first.
            crd_studio_gostd::sort::stable_by_key(&mut items, |i| !i.detail.contains("required"));
        }
        Place::Value { key, .. } => {
            if ctx.path.is_empty() && key == "apiVersion" {
                for v in served_api_versions(crd) {
                    items.push(item(
                        &v,
                        "constant",
                        "served version".to_owned(),
                        String::new(),
                    ));
                }
            } else if ctx.path.is_empty() && key == "kind" {
                if let Some(k) = crd_kind(crd) {
                    items.push(item(&k, "constant", "kind".to_owned(), String::new()));
                }
            } else {
                let mut path = ctx.path.clone();
                path.push(Seg::Key(key.clone()));
                if let Some(node) = walk(root, &path) {
                    // A list's values are its items' (the cursor is in an item: `- |`,
                    // `[|`).
                    let node = match (node.generic.type_.as_str(), node.items.as_deref()) {
                        ("array", Some(items)) => items,
                        _ => node,
                    };
                    items.extend(value_items(node, json.is_some()));
                }
            }
        }
    }
    Some(finish(items, &ctx, json.as_ref(), offset))
}

/// Enum values, booleans and nulls a value may take (in JSON, each inserted as its JSON
/// text: a string enum value quoted even when it reads as a number or a boolean).
fn value_items(node: &Structural, json: bool) -> Vec<CompletionItem> {
    let mut out = Vec::new();
    if let Some(v) = &node.value_validation {
        for e in &v.enum_ {
            let label = match e {
                Json::String(s) => s.clone(),
                other => json_text(other),
            };
            let mut i = item(&label, "enum", "enum".to_owned(), String::new());
            if json {
                i.apply = Some(json_text(e));
            }
            out.push(i);
        }
    }
    if out.is_empty() && node.generic.type_ == "boolean" {
        out.push(item(
            "true",
            "constant",
            "boolean".to_owned(),
            String::new(),
        ));
        out.push(item(
            "false",
            "constant",
            "boolean".to_owned(),
            String::new(),
        ));
    }
    if let Some(d) = &node.generic.default {
        let label = match d {
            Json::String(s) => s.clone(),
            other => json_text(other),
        };
        if !out.iter().any(|i| i.label == label) && !label.starts_with(['{', '[']) {
            let mut i = item(&label, "constant", "default".to_owned(), String::new());
            if json {
                i.apply = Some(json_text(d));
            }
            out.push(i);
        }
    }
    out
}

pub(crate) fn walk<'a>(root: Option<&'a Structural>, path: &[Seg]) -> Option<&'a Structural> {
    let mut node = root?;
    for seg in path {
        node = child(node, seg)?;
    }
    Some(node)
}

fn object_hover(crd: &CompiledCrd, text: &str, offset: usize) -> Option<Hover> {
    let (path, key, from, to) = key_at(text, offset)?;
    let root = object_root(crd, text, offset);
    let (title, lines) =
        if path.is_empty() && !root.is_some_and(|r| r.properties.contains_key(&key)) {
            let (_, detail, info) = docs::OBJECT_ROOT.iter().find(|(n, _, _)| *n == key)?;
            (format!("{key}: {detail}"), vec![(*info).to_owned()])
        } else if let Some(meta) = meta_node(&path) {
            let (_, detail, info) = meta.iter().find(|(n, _, _)| *n == key)?;
            (format!("{key}: {detail}"), vec![(*info).to_owned()])
        } else {
            let parent = walk(root, &path)?;
            let node = child(parent, &Seg::Key(key.clone()))?;
            (
                format!("{key}: {}", type_text(node)),
                node_lines(node, is_required(parent, &key)),
            )
        };
    Some(Hover {
        from,
        to,
        title,
        lines,
    })
}

// ----------------------------------------------------------------------------------------
// The CRD editor
// ----------------------------------------------------------------------------------------

/// Where a CRD path is: in a schema (which version's, the steps to the node, and what
/// follows the node) or elsewhere.
pub struct SchemaPlace {
    /// `spec.versions[i]`, when the path is under one.
    pub version: Option<usize>,
    /// The steps from `openAPIV3Schema` to the node (`Key(prop)`, `Item`).
    pub steps: Vec<Seg>,
    /// The path after the node (empty at the node itself).
    pub rest: Vec<Seg>,
}

/// Splits a CRD path at its schema: `None` when it is not inside `openAPIV3Schema`.
pub fn schema_place(path: &[Seg]) -> Option<SchemaPlace> {
    let at = path
        .iter()
        .position(|s| s.key() == Some("openAPIV3Schema"))?;
    let version = match path {
        [Seg::Key(s), Seg::Key(v), Seg::Item(i), ..] if s == "spec" && v == "versions" => Some(*i),
        _ => None,
    };
    let mut steps = Vec::new();
    let mut i = at + 1;
    loop {
        let seg = path.get(i);
        match seg.and_then(Seg::key) {
            Some("properties") => match path.get(i + 1) {
                Some(Seg::Key(p)) => {
                    steps.push(Seg::Key(p.clone()));
                    i += 2;
                }
                _ => break,
            },
            Some("items") => {
                steps.push(Seg::Item(0));
                i += 1;
            }
            Some("additionalProperties") => {
                steps.push(Seg::Key(String::new()));
                i += 1;
            }
            _ => break,
        }
    }
    Some(SchemaPlace {
        version,
        steps,
        rest: path.get(i..).unwrap_or(&[]).to_vec(),
    })
}

/// The structural node at a schema place (the version's, else the first version's that has it).
pub fn schema_node<'a>(crd: &'a CompiledCrd, place: &SchemaPlace) -> Option<&'a Structural> {
    let versions = crd.compiled_versions();
    let find = |v: &'a crate::pipeline::CompiledVersion| {
        walk_steps(v.structural.as_deref()?, &place.steps)
    };
    place
        .version
        .and_then(|i| versions.get(i))
        .and_then(find)
        .or_else(|| versions.iter().find_map(find))
}

/// The node `steps` (from [`schema_place`]) reach from `root`.
pub fn walk_steps<'a>(root: &'a Structural, steps: &[Seg]) -> Option<&'a Structural> {
    let mut node = root;
    for s in steps {
        node = match s {
            Seg::Key(k) if k.is_empty() => {
                node.additional_properties.as_ref()?.structural.as_deref()?
            }
            Seg::Key(k) => node.properties.get(k)?,
            Seg::Item(_) => node.items.as_deref()?,
        };
    }
    Some(node)
}

/// Whether a value at `place` is a CEL rule's text.
fn is_rule(key: &str, place: &SchemaPlace) -> bool {
    (key == "rule" || key == "messageExpression")
        && matches!(place.rest.as_slice(), [Seg::Key(x), Seg::Item(_)] if x == "x-kubernetes-validations")
}

/// Completion inside a rule written as a JSON string whose opening quote is at `quote`: the
/// string's text before the cursor decoded (escapes read), so that escapes before the
/// cursor do not shift the CEL offsets; the word completed has no escapes, so its range
/// is the same in the text.
fn json_rule_complete(
    crd: &CompiledCrd,
    node: Option<&Structural>,
    text: &str,
    quote: usize,
    offset: usize,
) -> Option<Completions> {
    let (decoded, _) = json_context::decode(text.get(quote + 1..offset)?)?;
    let expr = format!("\"{decoded}");
    let c = cel_assist::complete(crd, node, &expr, 0, expr.len())?;
    let len = c.to.checked_sub(c.from)?;
    Some(Completions {
        from: offset.checked_sub(len)?,
        to: offset,
        items: c.items,
        comma_at: None,
    })
}

/// Hover inside a rule written as a JSON string whose opening quote is at `quote`: the
/// string decoded, the hovered range mapped back through its escapes.
fn json_rule_hover(
    crd: &CompiledCrd,
    node: Option<&Structural>,
    text: &str,
    quote: usize,
    offset: usize,
) -> Option<Hover> {
    let line_end = text
        .get(quote..)?
        .find('\n')
        .map_or(text.len(), |i| quote + i);
    let end = json_context::value_end(text, quote)
        .map_or(line_end, |e| e - 1)
        .min(line_end);
    let (decoded, map) = json_context::decode(text.get(quote + 1..end)?)?;
    let rel = offset.checked_sub(quote + 1)?;
    let at = map.iter().position(|&m| m >= rel)?;
    let expr = format!("\"{decoded}");
    let h = cel_assist::hover(crd, node, &expr, 0, at + 1)?;
    let back = |d: usize| map.get(d.checked_sub(1)?).map(|m| quote + 1 + m);
    Some(Hover {
        from: back(h.from)?,
        to: back(h.to)?,
        ..h
    })
}

fn crd_complete(crd: &CompiledCrd, text: &str, offset: usize) -> Option<Completions> {
    let (ctx, json) = read_context(text, offset)?;
    let mut items = Vec::new();
    if let Some(place) = schema_place(&ctx.path) {
        if let Place::Value { key, start } = &ctx.place {
            if is_rule(key, &place) {
                let node = schema_node(crd, &place);
                if let Some(q) = json.as_ref().and_then(|j| j.quote) {
                    return json_rule_complete(crd, node, text, q, offset);
                }
                return cel_assist::complete(crd, node, text, *start, offset);
            }
        }
        match (&ctx.place, place.rest.as_slice()) {
            (Place::Key, []) => {
                for (name, detail, info) in docs::SCHEMA_KEYWORDS {
                    items.push(item(
                        name,
                        "keyword",
                        (*detail).to_owned(),
                        (*info).to_owned(),
                    ));
                }
            }
            (Place::Key, [Seg::Key(x), Seg::Item(_)]) if x == "x-kubernetes-validations" => {
                for (name, detail, info) in docs::VALIDATION_RULE {
                    items.push(item(
                        name,
                        "property",
                        (*detail).to_owned(),
                        (*info).to_owned(),
                    ));
                }
            }
            (Place::Value { key, .. }, []) => {
                items.extend(schema_values(crd, key));
            }
            _ => {}
        }
    } else {
        let shape = docs::crd_node(&ctx.path);
        match &ctx.place {
            Place::Key => {
                for (name, detail, info) in shape.unwrap_or(&[]) {
                    items.push(item(
                        name,
                        "property",
                        (*detail).to_owned(),
                        (*info).to_owned(),
                    ));
                }
            }
            Place::Value { key, .. } => {
                for v in docs::crd_values(&ctx.path, key) {
                    items.push(item(v, "constant", String::new(), String::new()));
                }
            }
        }
    }
    if ctx.place == Place::Key {
        items.retain(|i| !ctx.siblings.contains(&i.label));
    }
    Some(finish(items, &ctx, json.as_ref(), offset))
}

fn schema_values(crd: &CompiledCrd, key: &str) -> Vec<CompletionItem> {
    let words: Vec<&str> = match key {
        "type" => vec!["object", "array", "string", "integer", "number", "boolean"],
        "format" => crate::object::validation::formats::supported_formats(
            crd.options().kubernetes_version.compatibility(),
        ),
        "x-kubernetes-list-type" => vec!["atomic", "set", "map"],
        "x-kubernetes-map-type" => vec!["granular", "atomic"],
        "x-kubernetes-preserve-unknown-fields"
        | "x-kubernetes-embedded-resource"
        | "x-kubernetes-int-or-string"
        | "nullable"
        | "uniqueItems"
        | "exclusiveMinimum"
        | "exclusiveMaximum" => vec!["true", "false"],
        _ => vec![],
    };
    words
        .into_iter()
        .map(|w| item(w, "constant", key.to_owned(), String::new()))
        .collect()
}

fn crd_hover(crd: &CompiledCrd, text: &str, offset: usize) -> Option<Hover> {
    if let Some((ctx, json)) = read_context(text, offset) {
        if let (Some(place), Place::Value { key, start }) = (schema_place(&ctx.path), &ctx.place) {
            if (key == "rule" || key == "messageExpression") && offset >= *start {
                let node = schema_node(crd, &place);
                let h = match json.as_ref().and_then(|j| j.quote) {
                    Some(q) => json_rule_hover(crd, node, text, q, offset),
                    None => cel_assist::hover(crd, node, text, *start, offset),
                };
                if h.is_some() {
                    return h;
                }
            }
        }
    }
    let (path, key, from, to) = key_at(text, offset)?;
    let (title, lines) = match schema_place(&path) {
        Some(place) if place.rest.last().and_then(Seg::key) == Some("properties") => {
            // A property's name: the node it declares.
            let mut steps = place.steps.clone();
            steps.push(Seg::Key(key.clone()));
            let node_place = SchemaPlace {
                version: place.version,
                steps,
                rest: Vec::new(),
            };
            let node = schema_node(crd, &node_place)?;
            let parent = schema_node(crd, &place);
            (
                format!("{key}: {}", type_text(node)),
                node_lines(node, parent.is_some_and(|p| is_required(p, &key))),
            )
        }
        // A keyword: what it takes, in parentheses (`type (string)`), never in the shape of a
        // YAML line: beside `type: strin`, a title `type: string` reads as what is written.
        Some(place) if place.rest.is_empty() => {
            let (_, detail, info) = docs::SCHEMA_KEYWORDS.iter().find(|(n, _, _)| *n == key)?;
            (format!("{key} ({detail})"), vec![(*info).to_owned()])
        }
        Some(_) => return None,
        None => {
            let (_, detail, info) = docs::crd_node(&path)?.iter().find(|(n, _, _)| *n == key)?;
            (format!("{key} ({detail})"), vec![(*info).to_owned()])
        }
    };
    Some(Hover {
        from,
        to,
        title,
        lines,
    })
}

/// Completion items at byte `offset` of `text`, an object text or the CRD text (`crd` is the
/// last compiled CRD, whose schemas and CEL environment apply).
pub fn complete(
    crd: &CompiledCrd,
    editor: Editor,
    text: &str,
    offset: usize,
) -> Option<Completions> {
    match editor {
        Editor::Object => object_complete(crd, text, offset),
        Editor::Crd => crd_complete(crd, text, offset),
    }
    .map(|mut c| {
        // The word typed (in JSON the range may start at the opening quote and end after the
        // closing one).
        let partial = text
            .get(c.from..offset.max(c.from).min(c.to))
            .unwrap_or("")
            .trim_start_matches('"')
            .to_owned();
        // Only the items that can match what is typed (CodeMirror filters again, fuzzily).
        if !partial.is_empty() && !partial.ends_with('.') {
            let lower = partial.to_lowercase();
            c.items.retain(|i| {
                let l = i.label.to_lowercase();
                lower.chars().all(|ch| l.contains(ch))
            });
        }
        c
    })
}

/// What hovering byte `offset` of `text` shows, if anything.
pub fn hover(crd: &CompiledCrd, editor: Editor, text: &str, offset: usize) -> Option<Hover> {
    match editor {
        Editor::Object => object_hover(crd, text, offset),
        Editor::Crd => crd_hover(crd, text, offset),
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod json_tests;
