//! What the page shows, computed from an [`Analysis`] without touching the DOM.
//!
//! Everything here compiles natively and is unit-tested with `cargo test`; the Yew components
//! in `app` only render these values. No Kubernetes knowledge lives here: the engine decides
//! what is wrong, this module only decides how it is listed.

use crd_studio_engine::{Analysis, Finding, Location, ObjectReport, Severity, SourceId, TextEdit};
use serde::Serialize;

/// The CRD of the Kubernetes documentation's CronTab example, shown on a first visit, with
/// three `x-kubernetes-validations` rules (one of them a transition rule) for the CEL view:
/// the gallery's first example ([`crate::gallery::CRONTAB`], `examples/crontab/crd.yaml`).
pub const EXAMPLE_CRD: &str = crate::gallery::CRONTAB.crd;

/// A CronTab object for [`EXAMPLE_CRD`], shown on a first visit
/// (`examples/crontab/object.yaml`).
pub const EXAMPLE_OBJECT: &str = crate::gallery::CRONTAB.object;

/// One of the editors on the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pane {
    /// The CRD editor.
    Crd,
    /// The object editor (object text 0).
    Object,
    /// The old object editor (the update path).
    OldObject,
    /// The Previous CRD editor (the CRD's update path, the Changes tab).
    OldCrd,
}

impl Pane {
    /// The editor's accessible name (its `aria-label`).
    pub fn label(self) -> &'static str {
        match self {
            Pane::Crd => "CRD",
            Pane::Object => "Object",
            Pane::OldObject => "Old object",
            Pane::OldCrd => "Previous CRD",
        }
    }

    /// The editor that shows `source`, if the page has one.
    pub fn of(source: SourceId) -> Option<Pane> {
        match source {
            SourceId::Crd => Some(Pane::Crd),
            SourceId::Object(0) => Some(Pane::Object),
            SourceId::OldObject => Some(Pane::OldObject),
            SourceId::OldCrd => Some(Pane::OldCrd),
            SourceId::Object(_) => None,
        }
    }
}

/// The file name a source is listed under in the Problems panel.
pub fn file_name(source: SourceId) -> String {
    match source {
        SourceId::Crd => "crd.yaml".to_owned(),
        SourceId::Object(0) => "object.yaml".to_owned(),
        SourceId::Object(n) => format!("object-{}.yaml", n + 1),
        SourceId::OldObject => "old-object.yaml".to_owned(),
        SourceId::OldCrd => "previous-crd.yaml".to_owned(),
    }
}

/// Where clicking a problem puts the cursor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FocusTarget {
    /// Which editor.
    pub pane: Pane,
    /// 1-based line.
    pub line: usize,
    /// 1-based column in UTF-16 code units (what the browser counts).
    pub utf16_column: usize,
}

impl FocusTarget {
    /// The start of a place the engine reports, in the editor that shows its text (`None`:
    /// a text no editor shows).
    pub fn at(l: Location) -> Option<FocusTarget> {
        Pane::of(l.source).map(|pane| FocusTarget {
            pane,
            line: l.span.start.line,
            utf16_column: l.span.start.utf16_column,
        })
    }
}

/// One row of the Problems panel.
#[derive(Clone, Debug, PartialEq)]
pub struct ProblemRow {
    /// How bad it is.
    pub severity: Severity,
    /// `file:line:col` (columns counted in characters), or just the file name, or empty.
    pub place: String,
    /// The server's field path, if the finding has one.
    pub field: Option<String>,
    /// What is wrong in plain words, on one line: the finding's summary, else the first
    /// line of its message.
    pub summary: String,
    /// The message, exactly as the server (or the studio) words it, all its lines.
    pub message: String,
    /// Whether the exact text says more than [`ProblemRow::summary`] (then it is shown
    /// beneath it).
    pub show_exact: bool,
    /// A note about the other findings (the server's "rules were not checked" error): shown
    /// as a note after them, counted with the notes.
    pub note: bool,
    /// The rule that produced it, e.g. `yaml.syntax`.
    pub code: String,
    /// Where a click goes, when the finding is in a text shown on the page.
    pub target: Option<FocusTarget>,
    /// The finding's repairs, each with the editor it edits.
    pub fixes: Vec<(Pane, EditorFix)>,
    /// The studio's note on a CEL name of a later Kubernetes version, and that version
    /// (`1.31`), which one click selects.
    pub newer_version: Option<(String, crd_studio_engine::KubernetesVersion)>,
    /// An object in the CRD text (`crd.extra-document` with the engine's summary naming its
    /// kind): the kind and the document's byte range, for "Move the Widget to the Object
    /// editor".
    pub movable: Option<(String, usize, usize)>,
    /// The line of the CRD error this object error only follows from ("follows from the CRD
    /// error at line N"); such rows come after the others.
    pub follows_from: Option<usize>,
}

/// One edit of a repair, in the editor's coordinates (1-based lines, 1-based UTF-16
/// columns), in the shape `web/editor.js` takes (`applyEdits`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditorEdit {
    /// Start line.
    pub from_line: usize,
    /// Start column.
    pub from_col: usize,
    /// End line.
    pub to_line: usize,
    /// End column (exclusive).
    pub to_col: usize,
    /// The new text.
    pub text: String,
}

impl EditorEdit {
    /// The engine's edit in the editor's shape.
    pub fn of(e: &TextEdit) -> EditorEdit {
        EditorEdit {
            from_line: e.span.start.line,
            from_col: e.span.start.utf16_column,
            to_line: e.span.end.line,
            to_col: e.span.end.utf16_column,
            text: e.new_text.clone(),
        }
    }
}

/// A finding's repair for an editor: its title and edits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditorFix {
    /// What it does ("Rename to `replicas`").
    pub title: String,
    /// The edits.
    pub edits: Vec<EditorEdit>,
}

/// The finding's repairs, each with the editor whose text it edits.
pub fn finding_fixes(f: &Finding) -> Vec<(Pane, EditorFix)> {
    f.fixes
        .iter()
        .filter_map(|fix| {
            let source = fix.source.or(f.location.map(|l| l.source))?;
            let pane = Pane::of(source)?;
            let edits = fix.edits.iter().map(EditorEdit::of).collect();
            Some((
                pane,
                EditorFix {
                    title: fix.title.clone(),
                    edits,
                },
            ))
        })
        .collect()
}

fn place(location: Option<&Location>) -> String {
    match location {
        Some(l) => format!(
            "{}:{}:{}",
            file_name(l.source),
            l.span.start.line,
            l.span.start.column
        ),
        None => String::new(),
    }
}

/// Moves the document at bytes `start..end` of the CRD text (with the `---` line before it)
/// to the end of the object text, as a document of its own: the new CRD and object texts.
pub fn move_document(
    crd: &str,
    object: &str,
    start: usize,
    end: usize,
) -> Option<(String, String)> {
    let doc = crd.get(start..end)?.trim_end();
    if doc.is_empty() {
        return None;
    }
    let head = crd.get(..start)?;
    // The line the document starts on, and a `---` line just before it.
    let line_start = head.rfind('\n').map_or(0, |i| i + 1);
    let before = head.get(..line_start)?.trim_end_matches('\n');
    let cut = match before.rfind('\n').map_or(Some(0), |i| Some(i + 1)) {
        Some(i)
            if before
                .get(i..)
                .is_some_and(|l| l.trim_end().starts_with("---")) =>
        {
            i
        }
        _ => line_start,
    };
    let mut new_crd = crd.get(..cut)?.to_owned();
    new_crd.push_str(crd.get(end..)?.trim_start_matches('\n'));
    let new_object = if object.trim().is_empty() {
        format!("{doc}\n")
    } else {
        format!("{}\n---\n{doc}\n", object.trim_end())
    };
    Some((new_crd, new_object))
}

/// The kind and byte range of an object pasted after the CRD in the CRD text.
fn movable(f: &Finding) -> Option<(String, usize, usize)> {
    if f.code != "crd.extra-document" {
        return None;
    }
    let kind = f
        .summary
        .as_deref()?
        .strip_prefix("a ")?
        .split(" in the CRD text")
        .next()?;
    let l = f.location?;
    Some((kind.to_owned(), l.span.start.offset, l.span.end.offset))
}

impl ProblemRow {
    /// The row for one finding.
    pub fn from_finding(f: &Finding) -> ProblemRow {
        let summary = f.headline().to_owned();
        ProblemRow {
            severity: f.severity,
            place: place(f.location.as_ref()),
            field: f.field.clone(),
            show_exact: summary != f.message,
            summary,
            message: f.message.clone(),
            note: f.note,
            code: f.code.clone(),
            target: f.location.and_then(FocusTarget::at),
            fixes: finding_fixes(f),
            newer_version: f
                .newer_version
                .as_ref()
                .map(|n| (n.text.clone(), n.available_from)),
            movable: movable(f),
            follows_from: f.follows_from.map(|l| l.span.start.line),
        }
    }
}

/// Every finding as a Problems row, in the engine's order (errors are not moved first:
/// the engine sorts by location, which reads like the text), then the warnings the server
/// would send back with an object (`ObjectReport::warnings`) that no finding already says.
pub fn problem_rows(analysis: &Analysis) -> Vec<ProblemRow> {
    let mut rows: Vec<ProblemRow> = analysis
        .findings
        .iter()
        .map(ProblemRow::from_finding)
        .collect();
    // Errors that only follow from a CRD error come after it (and the others), in order.
    crd_studio_gostd::sort::stable_by_key(&mut rows, |r| r.follows_from.is_some());
    for o in &analysis.objects {
        let source = SourceId::Object(o.source);
        for w in &o.warnings {
            let said = analysis.findings.iter().any(|f| {
                f.severity == Severity::Warning
                    && f.location
                        .is_none_or(|l| l.source == source && l.document == o.document)
                    && f.message.contains(w.as_str())
            });
            if said {
                continue;
            }
            let mut place = file_name(source);
            if o.document > 0 {
                place.push_str(&format!(" (document {})", o.document + 1));
            }
            rows.push(ProblemRow {
                severity: Severity::Warning,
                place,
                field: None,
                summary: w.lines().next().unwrap_or("").to_owned(),
                show_exact: w.contains('\n'),
                message: w.clone(),
                note: false,
                code: "server.warning".to_owned(),
                target: None,
                fixes: Vec::new(),
                newer_version: None,
                movable: None,
                follows_from: None,
            });
        }
    }
    rows
}

/// An inline marker for the editor, in the shape `web/editor.js` takes (`setDiagnostics`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditorDiagnostic {
    /// 1-based line of the start.
    pub from_line: usize,
    /// 1-based UTF-16 column of the start.
    pub from_col: usize,
    /// 1-based line of the end.
    pub to_line: usize,
    /// 1-based UTF-16 column of the end (exclusive).
    pub to_col: usize,
    /// `error`, `warning` or `info`.
    pub severity: &'static str,
    /// The text shown in the marker's tooltip.
    pub message: String,
    /// The rule that produced it.
    pub source: String,
    /// The repairs that edit this editor's text (buttons in the marker's tooltip).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<EditorFix>,
}

/// The inline markers for one editor.
pub fn editor_diagnostics(analysis: &Analysis, pane: Pane) -> Vec<EditorDiagnostic> {
    analysis
        .findings
        .iter()
        .filter_map(|f| {
            let l = f.location?;
            // A note marks nothing: it is about the findings around it.
            if f.note || Pane::of(l.source)? != pane {
                return None;
            }
            let message = match (&f.summary, &f.field) {
                // The plain words first, then the server's exact text.
                (Some(summary), _) => format!("{summary}\n\n{}", f.message),
                (None, Some(field)) if !f.message.contains(field.as_str()) => {
                    format!("{field}: {}", f.message)
                }
                _ => f.message.clone(),
            };
            Some(EditorDiagnostic {
                from_line: l.span.start.line,
                from_col: l.span.start.utf16_column,
                to_line: l.span.end.line,
                to_col: l.span.end.utf16_column,
                severity: f.severity.as_str(),
                message,
                source: f.code.clone(),
                fixes: finding_fixes(f)
                    .into_iter()
                    .filter(|(p, _)| *p == pane)
                    .map(|(_, fix)| fix)
                    .collect(),
            })
        })
        .collect()
}

/// How many findings of each severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Errors.
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// Infos.
    pub infos: usize,
}

/// Counts the findings by severity.
pub fn counts(findings: &[Finding]) -> Counts {
    let mut c = Counts::default();
    for f in findings {
        match f.severity {
            Severity::Error => c.errors += 1,
            Severity::Warning => c.warnings += 1,
            Severity::Info => c.infos += 1,
        }
    }
    c
}

/// Counts Problems rows by severity (findings plus the server's extra warnings); a note
/// counts with the infos, whatever its severity.
pub fn row_counts(rows: &[ProblemRow]) -> Counts {
    let mut c = Counts::default();
    for r in rows {
        if r.note {
            c.infos += 1;
            continue;
        }
        match r.severity {
            Severity::Error => c.errors += 1,
            Severity::Warning => c.warnings += 1,
            Severity::Info => c.infos += 1,
        }
    }
    c
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The status line: the engine's verdict in one sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// Whether the server would accept the CRD and every object.
    pub accepted: bool,
    /// The sentence.
    pub text: String,
}

/// Whether the server would reject an object: the engine says so, or an error points into
/// its document.
pub fn object_rejected(analysis: &Analysis, o: &ObjectReport) -> bool {
    !o.accepted
        || analysis.findings.iter().any(|f| {
            f.severity == Severity::Error
                && f.location.is_some_and(|l| {
                    l.source == SourceId::Object(o.source) && l.document == o.document
                })
        })
}

/// The status line for an analysis.
pub fn status(analysis: &Analysis) -> Status {
    let crd = match (&analysis.crd.name, analysis.crd.accepted) {
        (Some(name), true) => format!("CRD {name} accepted"),
        (None, true) => "CRD accepted".to_owned(),
        (Some(name), false) => format!("CRD {name} rejected"),
        (None, false) => "CRD rejected".to_owned(),
    };
    let total = analysis.objects.len();
    // An object counts as rejected when the engine says so or when an error points into it.
    let rejected = analysis
        .objects
        .iter()
        .filter(|o| object_rejected(analysis, o))
        .count();
    let mut objects = match (total, rejected) {
        (0, _) => "no object analysed".to_owned(),
        (1, 0) => "1 object accepted".to_owned(),
        (1, _) => "1 object rejected".to_owned(),
        (n, 0) => format!("{n} objects accepted"),
        (n, r) => format!("{r} of {n} objects rejected"),
    };
    if analysis.objects.iter().any(|o| o.operation == "update") {
        objects.push_str(" on update");
    }
    let c = row_counts(&problem_rows(analysis));
    let mut tally = format!(
        "{}, {}",
        plural(c.errors, "error", "errors"),
        plural(c.warnings, "warning", "warnings")
    );
    if c.infos > 0 {
        tally.push_str(&format!(", {}", plural(c.infos, "note", "notes")));
    }
    let accepted = analysis.accepted();
    let verdict = if accepted { "Accepted" } else { "Rejected" };
    Status {
        accepted,
        text: format!("{verdict} · {crd} · {objects} · {tally}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crd_studio_engine::{analyze, Request};

    /// The page's style sheet has every rule closed: a lost `}` silently nests or drops every
    /// later rule (browsers never report it). Comments are skipped; the sheet has no braces in
    /// strings.
    #[test]
    fn style_sheet_braces_balance() {
        let css = include_str!("../static/style.css");
        let mut depth = 0i32;
        let mut rest = css;
        while let Some(i) = rest.find(['{', '}', '/']) {
            let (c, after) = (rest.as_bytes()[i], &rest[i + 1..]);
            rest = after;
            match c {
                b'{' => depth += 1,
                b'}' => depth -= 1,
                _ if after.starts_with('*') => {
                    rest = after.find("*/").map_or("", |e| &after[e + 2..]);
                }
                _ => {}
            }
            assert!(depth >= 0, "an unmatched }} before: {:.60}", rest);
        }
        assert_eq!(depth, 0, "unclosed rules in static/style.css");
    }

    fn run(crd: &str, object: &str) -> Analysis {
        analyze(&Request {
            crd: crd.to_owned(),
            objects: vec![object.to_owned()],
            ..Request::default()
        })
    }

    /// Issue 14, items 1 and 2: a row's headline is the finding's summary, its exact text
    /// the server's message; the CEL gate is a note after the error, counted as a note and
    /// marking nothing in the editor.
    #[test]
    fn rows_have_a_headline_and_the_gate_is_an_unmarked_note() {
        let object = EXAMPLE_OBJECT.replace("cronSpec: \"* * * * */5\"", "cronSpec: 5");
        let a = run(EXAMPLE_CRD, &object);
        let rows = problem_rows(&a);
        assert_eq!(rows.len(), 2, "{rows:?}");
        let (error, gate) = (&rows[0], &rows[1]);
        assert_eq!(
            error.message,
            "spec.cronSpec: Invalid value: \"integer\": spec.cronSpec in body must be of type string: \"integer\""
        );
        assert!(
            error.summary.starts_with("spec.cronSpec: "),
            "{}",
            error.summary
        );
        assert!(error.show_exact && !error.note);
        assert!(gate.note && gate.show_exact);
        assert!(gate
            .message
            .contains("some validation rules were not checked"));
        assert_eq!(gate.target.map(|t| (t.line, t.utf16_column)), Some((1, 1)));
        let c = row_counts(&rows);
        assert_eq!((c.errors, c.infos), (1, 1));
        let marks = editor_diagnostics(&a, Pane::Object);
        assert_eq!(marks.len(), 1, "{marks:?}");
        assert_eq!(marks[0].from_line, 6);
        // The marker's tooltip: the plain words, then the exact text.
        assert!(marks[0]
            .message
            .ends_with(&format!("\n\n{}", error.message)));
        // A finding without a summary reads as its message, shown once.
        let yaml = problem_rows(&run(EXAMPLE_CRD, "kind: [\n"));
        assert!(
            yaml.iter()
                .all(|r| !r.show_exact || r.message.contains('\n')),
            "{yaml:?}"
        );
    }

    #[test]
    fn example_is_accepted_without_errors() {
        let a = run(EXAMPLE_CRD, EXAMPLE_OBJECT);
        assert!(a.crd.accepted, "{:?}", a.findings);
        assert_eq!(a.crd.name.as_deref(), Some("crontabs.stable.example.com"));
        assert_eq!(counts(&a.findings).errors, 0, "{:?}", a.findings);
        assert_eq!(a.objects.len(), 1);
        assert_eq!(a.objects[0].name, "my-new-cron-object");
        let s = status(&a);
        assert!(s.accepted);
        assert!(
            s.text.starts_with(
                "Accepted · CRD crontabs.stable.example.com accepted · 1 object accepted · 0 errors"
            ),
            "{}",
            s.text
        );
    }

    #[test]
    fn yaml_syntax_error_in_object_becomes_a_clickable_row_and_marker() {
        let object = "apiVersion: stable.example.com/v1\nkind: CronTab\nspec: [1, 2\n";
        let a = run(EXAMPLE_CRD, object);
        let rows = problem_rows(&a);
        let row = rows
            .iter()
            .find(|r| r.severity == Severity::Error && r.place.starts_with("object.yaml:"))
            .expect("a syntax error in the object");
        let target = row.target.expect("clickable");
        assert_eq!(target.pane, Pane::Object);
        assert!(target.line >= 3, "{row:?}");
        assert!(row.place.ends_with(&format!(":{}", {
            let f = a
                .findings
                .iter()
                .find(|f| f.message == row.message)
                .unwrap();
            f.location.unwrap().span.start.column
        })));
        let marks = editor_diagnostics(&a, Pane::Object);
        assert!(marks
            .iter()
            .any(|m| m.severity == "error" && m.from_line == target.line));
        assert!(editor_diagnostics(&a, Pane::Crd).is_empty());
        let s = status(&a);
        assert!(!s.accepted);
        assert!(s.text.starts_with("Rejected · "), "{}", s.text);
        assert!(s.text.contains("error"), "{}", s.text);
    }

    #[test]
    fn an_error_inside_a_readable_object_rejects_it() {
        let object =
            "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: a\n  name: b\n";
        let a = run(EXAMPLE_CRD, object);
        assert!(counts(&a.findings).errors > 0, "{:?}", a.findings);
        let s = status(&a);
        assert!(s.text.contains("1 object rejected"), "{}", s.text);
    }

    #[test]
    fn crd_errors_go_to_the_crd_pane() {
        let a = run("kind: [", EXAMPLE_OBJECT);
        let rows = problem_rows(&a);
        assert!(rows.iter().any(
            |r| r.target.map(|t| t.pane) == Some(Pane::Crd) && r.place.starts_with("crd.yaml:")
        ));
        assert!(!editor_diagnostics(&a, Pane::Crd).is_empty());
        assert!(status(&a).text.contains("CRD rejected"));
    }

    #[test]
    fn places_and_names() {
        assert_eq!(file_name(SourceId::Object(2)), "object-3.yaml");
        assert_eq!(Pane::of(SourceId::Object(1)), None);
        assert_eq!(Pane::of(SourceId::OldObject), Some(Pane::OldObject));
        assert_eq!(Pane::OldObject.label(), "Old object");
        assert_eq!(Pane::of(SourceId::OldCrd), Some(Pane::OldCrd));
        assert_eq!(Pane::OldCrd.label(), "Previous CRD");
        assert_eq!(Pane::Crd.label(), "CRD");
        assert_eq!(Pane::Object.label(), "Object");
        assert_eq!(plural(1, "error", "errors"), "1 error");
        assert_eq!(plural(2, "error", "errors"), "2 errors");
    }

    #[test]
    fn unlocated_findings_are_listed_but_not_clickable() {
        let f = Finding::error("crd.empty", "the CRD text holds no document").with_field("spec");
        let row = ProblemRow::from_finding(&f);
        assert_eq!(row.place, "");
        assert_eq!(row.target, None);
        assert_eq!(row.field.as_deref(), Some("spec"));
    }

    #[test]
    fn server_warnings_are_listed_once() {
        let mut a = run(EXAMPLE_CRD, EXAMPLE_OBJECT);
        a.objects[0].warnings = vec![
            "unknown field \"spec.x\"".to_owned(),
            "metadata.finalizers: \"a\": prefer a domain-qualified finalizer name".to_owned(),
        ];
        // The engine already reports the first one as a finding.
        a.findings.push(Finding::warning(
            "object.unknown-field",
            "unknown field \"spec.x\"",
        ));
        let rows = problem_rows(&a);
        let warnings: Vec<(&str, &str)> = rows
            .iter()
            .filter(|r| r.severity == Severity::Warning)
            .map(|r| (r.place.as_str(), r.message.as_str()))
            .collect();
        assert_eq!(
            warnings,
            [
                ("", "unknown field \"spec.x\""),
                (
                    "object.yaml",
                    "metadata.finalizers: \"a\": prefer a domain-qualified finalizer name"
                ),
            ]
        );
        assert!(
            status(&a).text.contains("0 errors, 2 warnings"),
            "{}",
            status(&a).text
        );
    }

    #[test]
    fn field_validation_turns_a_duplicate_field_into_a_warning_or_nothing() {
        use crd_studio_engine::{FieldValidation, Options};
        let object = format!("{EXAMPLE_OBJECT}  image: again\n");
        let with = |field_validation| {
            analyze(&Request {
                crd: EXAMPLE_CRD.to_owned(),
                objects: vec![object.clone()],
                options: Options {
                    field_validation,
                    ..Options::default()
                },
                ..Request::default()
            })
        };
        let strict = row_counts(&problem_rows(&with(FieldValidation::Strict)));
        assert!(strict.errors > 0, "{strict:?}");
        let warn = row_counts(&problem_rows(&with(FieldValidation::Warn)));
        assert_eq!((warn.errors, warn.warnings > 0), (0, true), "{warn:?}");
        let ignore = row_counts(&problem_rows(&with(FieldValidation::Ignore)));
        assert_eq!((ignore.errors, ignore.warnings), (0, 0), "{ignore:?}");
    }

    #[test]
    fn old_object_findings_point_at_the_old_object_editor_and_update_is_said() {
        let a = analyze(&Request {
            crd: EXAMPLE_CRD.to_owned(),
            objects: vec![EXAMPLE_OBJECT.to_owned()],
            old_object: Some("kind: [\n".to_owned()),
            ..Request::default()
        });
        let rows = problem_rows(&a);
        let row = rows
            .iter()
            .find(|r| r.place.starts_with("old-object.yaml:"))
            .expect("a finding in the old object");
        assert_eq!(row.target.map(|t| t.pane), Some(Pane::OldObject));
        assert!(!editor_diagnostics(&a, Pane::OldObject).is_empty());
        assert!(editor_diagnostics(&a, Pane::Object).is_empty());

        let update = analyze(&Request {
            crd: EXAMPLE_CRD.to_owned(),
            objects: vec![EXAMPLE_OBJECT.to_owned()],
            old_object: Some(EXAMPLE_OBJECT.to_owned()),
            ..Request::default()
        });
        assert_eq!(update.objects[0].operation, "update");
        // Accepted or not (the server wants metadata.resourceVersion on an update), the
        // status line says it was an update.
        let s = status(&update);
        assert!(s.text.contains(" on update · "), "{}", s.text);
    }

    #[test]
    fn diagnostics_serialise_in_the_shape_editor_js_reads() {
        let d = EditorDiagnostic {
            from_line: 1,
            from_col: 2,
            to_line: 3,
            to_col: 4,
            severity: "warning",
            message: "m".to_owned(),
            source: "c".to_owned(),
            fixes: Vec::new(),
        };
        assert_eq!(
            serde_json::to_string(&d).unwrap(),
            r#"{"fromLine":1,"fromCol":2,"toLine":3,"toCol":4,"severity":"warning","message":"m","source":"c"}"#
        );
    }

    #[test]
    fn an_object_in_the_crd_text_moves_to_the_object_editor() {
        let crd = "kind: CustomResourceDefinition\nmetadata: {}\n---\nkind: Widget\nspec: {}\n";
        let start = crd.find("kind: Widget").unwrap();
        let (c, o) = move_document(crd, "", start, crd.len()).unwrap();
        assert_eq!(c, "kind: CustomResourceDefinition\nmetadata: {}\n");
        assert_eq!(o, "kind: Widget\nspec: {}\n");
        let (_, o) = move_document(crd, "kind: Widget\nname: a\n", start, crd.len()).unwrap();
        assert_eq!(o, "kind: Widget\nname: a\n---\nkind: Widget\nspec: {}\n");
        // Through the engine: the finding names the kind and the range.
        let a = analyze(&Request {
            crd: format!(
                "{}---\napiVersion: stable.example.com/v1\nkind: CronTab\n",
                crate::gallery::all()[0].state().crd
            ),
            ..Request::default()
        });
        let f = a
            .findings
            .iter()
            .find(|f| f.code == "crd.extra-document")
            .unwrap();
        assert_eq!(movable(f).map(|m| m.0), Some("CronTab".to_owned()));
    }
}
