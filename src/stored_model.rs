//! The "Stored object" panel, computed from an [`Analysis`] without touching the DOM.
//!
//! For one object document the panel shows the object the server would persist (or return
//! when read in another served version) as read-only YAML, one [`YamlLine`] per line, with the
//! fields set by defaulting marked, and lists the fields pruning dropped. Nothing here decides
//! what the server does: the engine's `ObjectReport` says what was stored, pruned and
//! defaulted; this module only lays it out.

use crd_studio_engine::{Analysis, ObjectReport, SourceId};
use serde_json::Value;

use crate::view_model::{file_name, FocusTarget};

/// Lines shown at most; the rest is summarised in [`ObjectView::hidden_lines`].
pub const MAX_LINES: usize = 4000;
/// Nesting shown at most; deeper values are summarised on one line.
pub const MAX_DEPTH: usize = 64;

/// One object document the panel can show (the selector's entries).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectChoice {
    /// Index into `Analysis::objects`.
    pub report: usize,
    /// The document's 0-based index in the object text.
    pub document: usize,
    /// What the selector says, e.g. `CronTab my-cron (document 2)`.
    pub label: String,
}

/// The object documents of the Object editor (object text 0), in text order.
pub fn object_choices(analysis: &Analysis) -> Vec<ObjectChoice> {
    let shown: Vec<(usize, &ObjectReport)> = analysis
        .objects
        .iter()
        .enumerate()
        .filter(|(_, o)| o.source == 0)
        .collect();
    let several = shown.len() > 1;
    shown
        .into_iter()
        .map(|(report, o)| {
            let mut label = match (o.kind.is_empty(), o.name.is_empty()) {
                (false, false) => format!("{} {}", o.kind, o.name),
                (false, true) => format!("{} (no name)", o.kind),
                (true, false) => o.name.clone(),
                (true, true) => "object".to_owned(),
            };
            if several {
                label = format!("{}. {label}", o.document + 1);
            }
            ObjectChoice {
                report,
                document: o.document,
                label,
            }
        })
        .collect()
}

/// The warnings shown with an object: what the server would send back with the response
/// (`ObjectReport::warnings`), then warning findings in the object's document that say
/// something else.
pub fn object_warnings(analysis: &Analysis, report: &ObjectReport) -> Vec<String> {
    let mut out = report.warnings.clone();
    for f in &analysis.findings {
        let here = f.location.is_some_and(|l| {
            l.source == SourceId::Object(report.source) && l.document == report.document
        });
        if f.severity == crd_studio_engine::Severity::Warning
            && here
            && !out.iter().any(|w| f.message.contains(w.as_str()))
        {
            out.push(f.message.clone());
        }
    }
    out
}

/// One thing the server did to the object without a word, as the panel lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuietNote {
    /// A few words, e.g. `status dropped`.
    pub title: String,
    /// The field (the server's path), `the object` when it is about the whole object.
    pub field: String,
    /// The explanation.
    pub message: String,
}

/// What the server did to the object without a word (`ObjectReport::notes`: status reset by
/// the status subresource, values kept by ratcheting, defaults not applied).
pub fn quiet_notes(report: &ObjectReport) -> Vec<QuietNote> {
    report
        .notes
        .iter()
        .map(|n| QuietNote {
            title: n.title.clone(),
            field: if n.field.is_empty() {
                "the object".to_owned()
            } else {
                n.field.clone()
            },
            message: n.message.clone(),
        })
        .collect()
}

/// Which rendering of an object a tab shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VersionTab {
    /// What the server persists (in the storage version).
    Stored,
    /// The object as `served_as[i]` returns it.
    Served(usize),
}

/// A tab of the version selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionTabInfo {
    /// Which rendering.
    pub tab: VersionTab,
    /// The tab's text.
    pub label: String,
    /// Its tooltip.
    pub title: String,
}

/// The storage version's name, from the analysis' version list.
pub fn storage_version(analysis: &Analysis) -> Option<&str> {
    analysis
        .versions
        .iter()
        .find(|v| v.storage)
        .map(|v| v.name.as_str())
}

/// The tabs for one object: the stored object first, then one per served version.
pub fn version_tabs(analysis: &Analysis, report: &ObjectReport) -> Vec<VersionTabInfo> {
    let storage = if report.stored_version.is_empty() {
        storage_version(analysis)
    } else {
        Some(report.stored_version.as_str())
    };
    let (label, title) = match storage {
        Some(v) => (
            format!("Stored ({v})"),
            format!(
                "The object the server would persist in etcd: converted to the storage version {v} and pruned by its schema"
            ),
        ),
        None => (
            "Stored".to_owned(),
            "The object the server would persist in etcd".to_owned(),
        ),
    };
    let mut tabs = vec![VersionTabInfo {
        tab: VersionTab::Stored,
        label,
        title,
    }];
    tabs.extend(
        report
            .served_as
            .iter()
            .enumerate()
            .map(|(i, s)| VersionTabInfo {
                tab: VersionTab::Served(i),
                label: format!("Served as {}", s.version),
                title: format!(
                    "The object as a client reading version {} would get it back",
                    s.version
                ),
            }),
    );
    tabs
}

/// `tab` when the object still has it, else [`VersionTab::Stored`] (after an edit removed
/// a version, say).
pub fn clamp_tab(report: &ObjectReport, tab: VersionTab) -> VersionTab {
    match tab {
        VersionTab::Served(i) if i < report.served_as.len() => tab,
        _ => VersionTab::Stored,
    }
}

/// How a line of the rendered object is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineMark {
    /// Nothing special.
    Plain,
    /// Set by defaulting; `badge` on the first line of each defaulted field.
    Defaulted {
        /// Show the "default" badge on this line.
        badge: bool,
    },
}

/// One line of the rendered object: `lead` `key:` `value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlLine {
    /// Indentation and list dashes, e.g. `"  - "`.
    pub lead: String,
    /// The map key, when the line has one.
    pub key: Option<String>,
    /// The scalar (or `{}`/`[]`), YAML-quoted where needed; `None` when children follow.
    pub value: Option<String>,
    /// The field path of the value on this line, as the server writes paths
    /// (`spec.items[0].name`).
    pub path: String,
    /// Default marking.
    pub mark: LineMark,
}

impl YamlLine {
    /// The line as text.
    pub fn text(&self) -> String {
        let mut s = self.lead.clone();
        if let Some(k) = &self.key {
            s.push_str(k);
            s.push(':');
            if self.value.is_some() {
                s.push(' ');
            }
        }
        if let Some(v) = &self.value {
            s.push_str(v);
        }
        s
    }
}

/// A field pruning dropped, with where it was in the user's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrunedField {
    /// The server's path of the field.
    pub path: String,
    /// Whose schema dropped it, and so which version's object the path refers to, e.g.
    /// `the v1 schema (storage version, on write)`.
    pub dropped_by: String,
    /// `object.yaml:line:col`, when located.
    pub place: String,
    /// Where clicking puts the cursor.
    pub target: Option<FocusTarget>,
}

/// A field defaulting set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefaultedField {
    /// The server's path of the field.
    pub path: String,
    /// Index of its first line in [`ObjectView::lines`], when shown.
    pub line: Option<usize>,
}

/// Everything the panel shows for one object in one tab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectView {
    /// The rendered object; empty when there is none.
    pub lines: Vec<YamlLine>,
    /// Lines left out after [`MAX_LINES`].
    pub hidden_lines: usize,
    /// Fields dropped by pruning.
    pub pruned: Vec<PrunedField>,
    /// Fields set by defaulting.
    pub defaulted: Vec<DefaultedField>,
    /// Why there is no object to show, when there is none.
    pub note: Option<String>,
}

/// The view of `report` in `tab`.
pub fn object_view(report: &ObjectReport, tab: VersionTab) -> ObjectView {
    let request_version = version_of(&report.api_version);
    let by = |version: &str, role: &str| -> String {
        if version.is_empty() {
            format!("the schema ({role})")
        } else {
            format!("the {version} schema ({role})")
        }
    };
    let request_by = by(request_version, "the request's version");
    let write_by = by(&report.stored_version, "storage version, on write");
    // Each pruned path with whose schema dropped it: the request version's pruning, then
    // the storage version's on write, then (served tabs) the read version's.
    let mut pruned: Vec<(&String, String)> = Vec::new();
    let (object, defaulted, note) = match clamp_tab(report, tab) {
        VersionTab::Served(i) => match report.served_as.get(i) {
            Some(s) => {
                let read_by = by(&s.version, "the version read");
                for (n, p) in s.pruned_paths.iter().enumerate() {
                    let who = if n < s.pruned_on_write {
                        write_by.clone()
                    } else {
                        read_by.clone()
                    };
                    pruned.push((p, who));
                }
                (s.object.to_value(), &s.defaulted_paths, None)
            }
            None => (Value::Null, &report.defaulted_paths, None),
        },
        VersionTab::Stored => {
            pruned.extend(report.pruned_paths.iter().map(|p| (p, request_by.clone())));
            pruned.extend(
                report
                    .stored_pruned_paths
                    .iter()
                    .map(|p| (p, write_by.clone())),
            );
            if !report.stored.is_null() {
                (report.stored.to_value(), &report.defaulted_paths, None)
            } else if let Some(why) = &report.stored_note {
                (
                    Value::Null,
                    &report.defaulted_paths,
                    Some(format!("Nothing to show: {why}.")),
                )
            } else {
                (report.defaulted.to_value(), &report.defaulted_paths, None)
            }
        }
    };
    let note = if object.is_null() {
        Some(note.unwrap_or_else(|| match &report.object_error {
            Some(e) => format!("Nothing to show: {e}"),
            None => "Nothing to show: the engine returned no object for this document.".to_owned(),
        }))
    } else {
        None
    };
    let mut lines = Vec::new();
    if !object.is_null() {
        render(&object, &mut lines);
    }
    let hidden_lines = lines.len().saturating_sub(MAX_LINES);
    lines.truncate(MAX_LINES);
    let defaults: Vec<String> = defaulted.iter().map(|p| normalise_path(p)).collect();
    let mut first_line: Vec<Option<usize>> = vec![None; defaults.len()];
    for (n, line) in lines.iter_mut().enumerate() {
        let mut badge = false;
        let mut hit = false;
        for (d, first) in defaults.iter().zip(first_line.iter_mut()) {
            if is_within(&line.path, d) {
                hit = true;
                if first.is_none() {
                    *first = Some(n);
                    badge = true;
                }
            }
        }
        if hit {
            line.mark = LineMark::Defaulted { badge };
        }
    }
    ObjectView {
        lines,
        hidden_lines,
        pruned: pruned
            .into_iter()
            .map(|(p, who)| pruned_field(report, p, who))
            .collect(),
        defaulted: defaulted
            .iter()
            .cloned()
            .zip(first_line)
            .map(|(path, line)| DefaultedField { path, line })
            .collect(),
        note,
    }
}

/// The version part of an `apiVersion` (`v1` of `stable.example.com/v1`).
fn version_of(api_version: &str) -> &str {
    api_version.rsplit('/').next().unwrap_or_default()
}

fn pruned_field(report: &ObjectReport, path: &str, dropped_by: String) -> PrunedField {
    // The engine's place of the field in the object's text, when it found it there.
    let place = report.places.pruned(path).map(|p| p.location);
    PrunedField {
        path: path.to_owned(),
        dropped_by,
        place: place.map_or_else(String::new, |l| {
            format!(
                "{}:{}:{}",
                file_name(l.source),
                l.span.start.line,
                l.span.start.column
            )
        }),
        target: place.and_then(FocusTarget::at),
    }
}

/// A path with `[key]` map keys written as `.key`, the way line paths are built here
/// (`[0]` indexes are kept).
pub fn normalise_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let inner = &after[..close];
        if !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_digit()) {
            out.push('[');
            out.push_str(inner);
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(inner);
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Whether `path` is `ancestor` or lies below it.
pub fn is_within(path: &str, ancestor: &str) -> bool {
    if ancestor.is_empty() {
        return true;
    }
    match path.strip_prefix(ancestor) {
        Some("") => true,
        Some(rest) => rest.starts_with('.') || rest.starts_with('['),
        None => false,
    }
}

fn child_path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// Renders a JSON value as block YAML, `kubectl get -o yaml` style (list dashes at the
/// parent key's indentation, map keys in the value's order).
pub fn render(value: &Value, out: &mut Vec<YamlLine>) {
    match value {
        Value::Object(m) if !m.is_empty() => emit_map(value, "", 0, String::new(), 0, out),
        Value::Array(a) if !a.is_empty() => emit_seq(value, "", 0, String::new(), 0, out),
        _ => out.push(line(
            String::new(),
            None,
            Some(scalar(value)),
            String::new(),
        )),
    }
}

fn line(lead: String, key: Option<String>, value: Option<String>, path: String) -> YamlLine {
    YamlLine {
        lead,
        key,
        value,
        path,
        mark: LineMark::Plain,
    }
}

fn too_many(out: &[YamlLine]) -> bool {
    // A little past the limit, so the hidden count says there is more.
    out.len() > MAX_LINES
}

fn emit_map(
    value: &Value,
    path: &str,
    indent: usize,
    first_lead: String,
    depth: usize,
    out: &mut Vec<YamlLine>,
) {
    let Value::Object(map) = value else { return };
    let mut first = Some(first_lead);
    for (k, v) in map {
        if too_many(out) {
            return;
        }
        let lead = first.take().unwrap_or_else(|| " ".repeat(indent));
        let p = child_path(path, k);
        let key = Some(quote_if_needed(k));
        match v {
            Value::Object(m) if !m.is_empty() => {
                if depth >= MAX_DEPTH {
                    out.push(line(lead, key, Some("{…}".to_owned()), p));
                } else {
                    out.push(line(lead, key, None, p.clone()));
                    emit_map(v, &p, indent + 2, " ".repeat(indent + 2), depth + 1, out);
                }
            }
            Value::Array(a) if !a.is_empty() => {
                if depth >= MAX_DEPTH {
                    out.push(line(lead, key, Some("[…]".to_owned()), p));
                } else {
                    out.push(line(lead, key, None, p.clone()));
                    emit_seq(v, &p, indent, " ".repeat(indent), depth + 1, out);
                }
            }
            _ => out.push(line(lead, key, Some(scalar(v)), p)),
        }
    }
}

fn emit_seq(
    value: &Value,
    path: &str,
    indent: usize,
    first_lead: String,
    depth: usize,
    out: &mut Vec<YamlLine>,
) {
    let Value::Array(items) = value else { return };
    let mut first = Some(first_lead);
    for (i, item) in items.iter().enumerate() {
        if too_many(out) {
            return;
        }
        let lead = first.take().unwrap_or_else(|| " ".repeat(indent));
        let item_lead = format!("{lead}- ");
        let p = format!("{path}[{i}]");
        match item {
            Value::Object(m) if !m.is_empty() && depth < MAX_DEPTH => {
                emit_map(item, &p, indent + 2, item_lead, depth + 1, out)
            }
            Value::Array(a) if !a.is_empty() && depth < MAX_DEPTH => {
                emit_seq(item, &p, indent + 2, item_lead, depth + 1, out)
            }
            Value::Object(m) if !m.is_empty() => {
                out.push(line(item_lead, None, Some("{…}".to_owned()), p))
            }
            Value::Array(a) if !a.is_empty() => {
                out.push(line(item_lead, None, Some("[…]".to_owned()), p))
            }
            _ => out.push(line(item_lead, None, Some(scalar(item)), p)),
        }
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => quote_if_needed(s),
        Value::Object(_) => "{}".to_owned(),
        Value::Array(_) => "[]".to_owned(),
    }
}

/// `s` as a YAML scalar: plain when a YAML 1.1 reader would read it back as the same
/// string, else double-quoted (JSON escapes are valid YAML).
pub fn quote_if_needed(s: &str) -> String {
    if plain_is_safe(s) {
        s.to_owned()
    } else {
        serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
    }
}

fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.trim() != s || s.ends_with(':') {
        return false;
    }
    if "-?:,[]{}#&*!|>'\"%@`+.~=<".contains(first) || first.is_ascii_digit() {
        return false;
    }
    if s.contains(": ") || s.contains(" #") || s.chars().any(|c| c.is_control()) {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    !matches!(
        lower.as_str(),
        "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | ".nan" | ".inf"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view_model::Pane;
    use crd_studio_engine::{
        FieldPlace, JsonText, Location, Pos, ServedObject, Span, VersionReport,
    };
    use serde_json::json;

    fn texts(lines: &[YamlLine]) -> Vec<String> {
        lines.iter().map(YamlLine::text).collect()
    }

    #[test]
    fn renders_block_yaml_like_kubectl() {
        let v = json!({
            "apiVersion": "stable.example.com/v1",
            "kind": "CronTab",
            "metadata": {"name": "x", "labels": {}},
            "spec": {
                "cronSpec": "* * * * */5",
                "replicas": 3,
                "on": true,
                "tags": ["a", "yes", ""],
                "containers": [{"name": "c", "ports": [80, 443]}, {}],
                "nested": [[1, 2], []],
                "note": "line1\nline2",
                "nothing": null
            }
        });
        let mut lines = Vec::new();
        render(&v, &mut lines);
        assert_eq!(
            texts(&lines),
            [
                "apiVersion: stable.example.com/v1",
                "kind: CronTab",
                "metadata:",
                "  labels: {}",
                "  name: x",
                "spec:",
                "  containers:",
                "  - name: c",
                "    ports:",
                "    - 80",
                "    - 443",
                "  - {}",
                "  cronSpec: \"* * * * */5\"",
                "  nested:",
                "  - - 1",
                "    - 2",
                "  - []",
                "  note: \"line1\\nline2\"",
                "  nothing: null",
                "  \"on\": true",
                "  replicas: 3",
                "  tags:",
                "  - a",
                "  - \"yes\"",
                "  - \"\"",
            ]
        );
        let paths: Vec<&str> = lines.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(paths[7], "spec.containers[0].name");
        assert_eq!(paths[9], "spec.containers[0].ports[0]");
        assert_eq!(paths[11], "spec.containers[1]");
        assert_eq!(paths[14], "spec.nested[0][0]");
        assert_eq!(paths[15], "spec.nested[0][1]");
    }

    #[test]
    fn scalars_that_would_read_back_differently_are_quoted() {
        for plain in [
            "abc",
            "my-awesome-cron-image",
            "app.kubernetes.io/name",
            "a b",
            "x:y",
        ] {
            assert_eq!(quote_if_needed(plain), plain);
        }
        for quoted in [
            "",
            " a",
            "a ",
            "1",
            "1.5",
            "0x1F",
            "-a",
            "- a",
            "true",
            "No",
            "~",
            "null",
            "a: b",
            "a #c",
            "*x",
            "{a}",
            "end:",
            "tab\there",
        ] {
            assert!(quote_if_needed(quoted).starts_with('"'), "{quoted:?}");
        }
        let mut lines = Vec::new();
        render(&json!("x"), &mut lines);
        assert_eq!(texts(&lines), ["x"]);
    }

    #[test]
    fn paths_compare_like_the_server_writes_them() {
        assert_eq!(normalise_path("spec.m[a.b].c"), "spec.m.a.b.c");
        assert_eq!(normalise_path("spec.items[0].x"), "spec.items[0].x");
        assert_eq!(normalise_path("[0][k]"), "[0].k");
        assert_eq!(normalise_path("a[unclosed"), "a[unclosed");
        assert!(is_within("spec.a", "spec"));
        assert!(is_within("spec.items[0].a", "spec.items"));
        assert!(is_within("spec", "spec"));
        assert!(!is_within("specx", "spec"));
        assert!(!is_within("spec", "spec.a"));
    }

    fn report() -> ObjectReport {
        ObjectReport {
            source: 0,
            document: 1,
            kind: "CronTab".to_owned(),
            name: "c".to_owned(),
            operation: "create".to_owned(),
            stored: json!({
                "kind": "CronTab",
                "spec": {"image": "i", "replicas": 1, "policy": {"a": 1, "b": 2}, "items": [{"first": 1, "last": 2}]}
            }).into(),
            defaulted_paths: vec![
                "spec.replicas".to_owned(),
                "spec.policy".to_owned(),
                "spec.items[0].last".to_owned(),
                "spec.gone".to_owned(),
            ],
            pruned_paths: vec!["spec.extra".to_owned(), "spec.unlocated".to_owned()],
            api_version: "stable.example.com/v1".to_owned(),
            stored_version: "v1".to_owned(),
            served_as: vec![ServedObject {
                version: "v2".to_owned(),
                object: json!({"kind": "CronTab", "spec": {"size": 5}}).into(),
                pruned_paths: vec!["spec.image".to_owned()],
                defaulted_paths: vec!["spec.size".to_owned()],
                pruned_on_write: 0,
            }],
            ..ObjectReport::default()
        }
    }

    #[test]
    fn defaults_are_marked_with_one_badge_each() {
        let view = object_view(&report(), VersionTab::Stored);
        let marked: Vec<(String, LineMark)> = view
            .lines
            .iter()
            .filter(|l| l.mark != LineMark::Plain)
            .map(|l| (l.text(), l.mark))
            .collect();
        assert_eq!(
            marked,
            [
                (
                    "    last: 2".to_owned(),
                    LineMark::Defaulted { badge: true }
                ),
                ("  policy:".to_owned(), LineMark::Defaulted { badge: true }),
                ("    a: 1".to_owned(), LineMark::Defaulted { badge: false }),
                ("    b: 2".to_owned(), LineMark::Defaulted { badge: false }),
                (
                    "  replicas: 1".to_owned(),
                    LineMark::Defaulted { badge: true }
                ),
            ]
        );
        let lines: Vec<(&str, Option<String>)> = view
            .defaulted
            .iter()
            .map(|d| (d.path.as_str(), d.line.map(|n| view.lines[n].text())))
            .collect();
        assert_eq!(
            lines,
            [
                ("spec.replicas", Some("  replicas: 1".to_owned())),
                ("spec.policy", Some("  policy:".to_owned())),
                ("spec.items[0].last", Some("    last: 2".to_owned())),
                ("spec.gone", None),
            ]
        );
        assert_eq!(view.note, None);
        assert_eq!(view.hidden_lines, 0);
    }

    #[test]
    fn pruned_fields_are_listed_and_located_when_the_engine_found_them() {
        let mut report = report();
        let place = |document: usize, path: &str, line: usize, column: usize| FieldPlace {
            path: path.to_owned(),
            location: Location {
                source: SourceId::Object(0),
                document,
                span: Span::point(Pos {
                    offset: 0,
                    line,
                    column,
                    utf16_column: column + 1,
                }),
            },
            exact: true,
        };
        report.places.pruned = vec![place(1, "spec.extra", 9, 3)];
        let view = object_view(&report, VersionTab::Stored);
        assert_eq!(
            view.pruned,
            [
                PrunedField {
                    path: "spec.extra".to_owned(),
                    dropped_by: "the v1 schema (the request's version)".to_owned(),
                    place: "object.yaml:9:3".to_owned(),
                    target: Some(FocusTarget {
                        pane: Pane::Object,
                        line: 9,
                        utf16_column: 4
                    }),
                },
                PrunedField {
                    path: "spec.unlocated".to_owned(),
                    dropped_by: "the v1 schema (the request's version)".to_owned(),
                    place: String::new(),
                    target: None,
                },
            ]
        );
    }

    #[test]
    fn version_tabs_follow_served_as() {
        let analysis = Analysis {
            versions: vec![
                VersionReport {
                    name: "v1".to_owned(),
                    served: true,
                    storage: true,
                    ..VersionReport::default()
                },
                VersionReport {
                    name: "v2".to_owned(),
                    served: true,
                    ..VersionReport::default()
                },
            ],
            ..Analysis::default()
        };
        let r = report();
        let tabs = version_tabs(&analysis, &r);
        let labels: Vec<&str> = tabs.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(labels, ["Stored (v1)", "Served as v2"]);
        assert_eq!(tabs[1].tab, VersionTab::Served(0));

        let served = object_view(&r, VersionTab::Served(0));
        assert_eq!(
            texts(&served.lines),
            ["kind: CronTab", "spec:", "  size: 5"]
        );
        assert_eq!(served.lines[2].mark, LineMark::Defaulted { badge: true });
        assert_eq!(served.pruned[0].path, "spec.image");

        // A tab that no longer exists falls back to the stored object.
        assert_eq!(clamp_tab(&r, VersionTab::Served(3)), VersionTab::Stored);
        let no_versions = ObjectReport::default();
        assert_eq!(
            version_tabs(&Analysis::default(), &no_versions)
                .iter()
                .map(|t| t.label.as_str())
                .collect::<Vec<_>>(),
            ["Stored"]
        );
    }

    #[test]
    fn falls_back_to_the_defaulted_object_then_explains() {
        let mut r = ObjectReport {
            defaulted: json!({"kind": "A"}).into(),
            ..ObjectReport::default()
        };
        assert_eq!(
            texts(&object_view(&r, VersionTab::Stored).lines),
            ["kind: A"]
        );
        r.defaulted = JsonText::null();
        r.object_error = Some("the server could not find the requested resource".to_owned());
        let view = object_view(&r, VersionTab::Stored);
        assert!(view.lines.is_empty());
        assert_eq!(
            view.note.as_deref(),
            Some("Nothing to show: the server could not find the requested resource")
        );
    }

    #[test]
    fn big_and_deep_objects_are_cut() {
        let big = Value::Array((0..MAX_LINES + 50).map(|i| json!(i)).collect());
        let view = object_view(
            &ObjectReport {
                stored: json!({ "items": big }).into(),
                ..ObjectReport::default()
            },
            VersionTab::Stored,
        );
        assert_eq!(view.lines.len(), MAX_LINES);
        assert!(view.hidden_lines > 0);

        let mut deep = json!(1);
        for _ in 0..MAX_DEPTH * 3 {
            deep = json!({ "a": deep });
        }
        let mut lines = Vec::new();
        render(&deep, &mut lines);
        assert!(lines.len() <= MAX_DEPTH + 2, "{}", lines.len());
        assert_eq!(lines.last().and_then(|l| l.value.as_deref()), Some("{…}"));
    }

    #[test]
    fn choices_name_each_document() {
        let mut a = Analysis::default();
        a.objects.push(ObjectReport {
            kind: "CronTab".to_owned(),
            name: "one".to_owned(),
            ..ObjectReport::default()
        });
        assert_eq!(object_choices(&a)[0].label, "CronTab one");
        a.objects.push(ObjectReport {
            document: 1,
            kind: "CronTab".to_owned(),
            ..ObjectReport::default()
        });
        a.objects.push(ObjectReport {
            source: 1,
            ..ObjectReport::default()
        });
        let labels: Vec<String> = object_choices(&a).into_iter().map(|c| c.label).collect();
        assert_eq!(labels, ["1. CronTab one", "2. CronTab (no name)"]);
    }

    #[test]
    fn warnings_join_the_report_and_the_document_findings() {
        use crd_studio_engine::{Finding, Location, Pos, Span};
        let at = |document| Location {
            source: SourceId::Object(0),
            document,
            span: Span {
                start: Pos::default(),
                end: Pos::default(),
            },
        };
        let r = ObjectReport {
            document: 1,
            warnings: vec!["unknown field \"spec.x\"".to_owned()],
            ..ObjectReport::default()
        };
        let a = Analysis {
            findings: vec![
                Finding::warning("a", "unknown field \"spec.x\"").at(at(1)),
                Finding::warning("b", "line 3: key \"a\" already set in map").at(at(1)),
                Finding::warning("c", "elsewhere").at(at(0)),
                Finding::error("d", "an error").at(at(1)),
            ],
            ..Analysis::default()
        };
        assert_eq!(
            object_warnings(&a, &r),
            [
                "unknown field \"spec.x\"",
                "line 3: key \"a\" already set in map"
            ]
        );
    }

    #[test]
    fn the_example_is_shown_with_its_fields() {
        use crate::view_model::{EXAMPLE_CRD, EXAMPLE_OBJECT};
        let a = crd_studio_engine::analyze(&crd_studio_engine::Request {
            crd: EXAMPLE_CRD.to_owned(),
            objects: vec![EXAMPLE_OBJECT.to_owned()],
            ..Default::default()
        });
        let choices = object_choices(&a);
        assert_eq!(choices.len(), 1);
        let r = &a.objects[choices[0].report];
        let text = texts(&object_view(r, VersionTab::Stored).lines).join("\n");
        assert!(text.contains("  cronSpec: \"* * * * */5\""), "{text}");
        assert!(text.contains("  image: my-awesome-cron-image"), "{text}");
        assert!(text.contains("  name: my-new-cron-object"), "{text}");
    }

    /// A CRD whose storage version (v1) lacks a field the served v1beta1 has.
    const TWO_VERSIONS: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
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
              size: {type: integer}
              legacy: {type: string}
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
              size: {type: integer}
"#;

    /// An object created in v1beta1 is persisted in the storage version v1 and pruned by
    /// v1's schema (apiextensions-apiserver: the storage codec's `schemaCoercingConverter`
    /// converts to the storage version, then prunes with its schema), so the Stored tab shows
    /// `example.com/v1` without `spec.legacy`, and says which schema dropped each field and
    /// where it is in the object's text.
    #[test]
    fn the_stored_tab_shows_the_storage_version() {
        let object = "apiVersion: example.com/v1beta1\nkind: Widget\nmetadata: {name: w}\nspec:\n  size: 2\n  legacy: old\n  typo: 1\n";
        let request = crd_studio_engine::Request {
            crd: TWO_VERSIONS.to_owned(),
            objects: vec![object.to_owned()],
            ..Default::default()
        };
        let reply = crate::worker_boundary::answer(&request);
        let a = &reply.analysis;
        let r = &a.objects[0];
        let tabs = version_tabs(a, r);
        assert_eq!(tabs[0].label, "Stored (v1)");
        let view = object_view(r, VersionTab::Stored);
        let text = texts(&view.lines).join("\n");
        assert!(text.contains("apiVersion: example.com/v1\n"), "{text}");
        assert!(!text.contains("legacy"), "{text}");
        assert!(text.contains("  size: 2"), "{text}");
        let pruned: Vec<(&str, &str, &str)> = view
            .pruned
            .iter()
            .map(|p| (p.path.as_str(), p.dropped_by.as_str(), p.place.as_str()))
            .collect();
        assert_eq!(
            pruned,
            [
                (
                    "spec.typo",
                    "the v1beta1 schema (the request's version)",
                    "object.yaml:7:3"
                ),
                (
                    "spec.legacy",
                    "the v1 schema (storage version, on write)",
                    "object.yaml:6:3"
                ),
            ]
        );
        // Read back as v1beta1: the field v1 dropped on write is gone for good.
        let i = r
            .served_as
            .iter()
            .position(|s| s.version == "v1beta1")
            .unwrap();
        let served = object_view(r, VersionTab::Served(i));
        assert_eq!(served.pruned[0].path, "spec.legacy");
        assert_eq!(
            served.pruned[0].dropped_by,
            "the v1 schema (storage version, on write)"
        );
    }

    #[test]
    fn a_stored_object_the_engine_cannot_compute_is_explained() {
        let r = ObjectReport {
            prepared: json!({"kind": "A"}).into(),
            defaulted: json!({"kind": "A"}).into(),
            stored_note: Some(
                "converting it to the storage version v1 needs the conversion webhook".to_owned(),
            ),
            ..ObjectReport::default()
        };
        let view = object_view(&r, VersionTab::Stored);
        assert!(view.lines.is_empty());
        assert_eq!(
            view.note.as_deref(),
            Some("Nothing to show: converting it to the storage version v1 needs the conversion webhook.")
        );
    }

    /// Issue 14, item 3: the panel says what the server did quietly.
    #[test]
    fn quiet_notes_name_what_the_server_did() {
        let crd = crate::view_model::EXAMPLE_CRD
            .replace(
                "      additionalPrinterColumns:",
                "      subresources:\n        status: {}\n      additionalPrinterColumns:",
            )
            .replace(
                "          properties:\n            spec:",
                "          properties:\n            status:\n              type: object\n              x-kubernetes-preserve-unknown-fields: true\n            spec:",
            );
        let object = format!("{}status:\n  phase: x\n", crate::view_model::EXAMPLE_OBJECT);
        let a = crd_studio_engine::analyze(&crd_studio_engine::Request {
            crd,
            objects: vec![object],
            ..crd_studio_engine::Request::default()
        });
        let notes = quiet_notes(&a.objects[0]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(notes[0].title, "status dropped");
        assert_eq!(notes[0].field, "status");
        assert!(
            notes[0].message.starts_with(
                "version v1 has the status subresource, so a create cannot set status"
            ),
            "{}",
            notes[0].message
        );
    }
}
