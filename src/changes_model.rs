//! The Changes tab's view model (pure, natively tested): the CRD checked as an update of the
//! Previous CRD, the changes between the two revisions grouped by version, and what the new
//! revision does to each sample object as stored under the previous one.

use crd_studio_engine::{Analysis, Location, SourceId};
use crd_studio_engine::{ChangeSeverity, CrdChange, RequestVerdict, StoredEffect};

use crate::view_model::{file_name, FocusTarget, Pane, ProblemRow};

/// A place a row links to: `file:line:col` and where a click puts the cursor.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    /// `file:line:col`.
    pub text: String,
    /// The editor and position, when the text is on the page.
    pub target: Option<FocusTarget>,
}

impl Place {
    fn of(l: &Location) -> Place {
        Place {
            text: format!(
                "{}:{}:{}",
                file_name(l.source),
                l.span.start.line,
                l.span.start.column
            ),
            target: Pane::of(l.source).map(|pane| FocusTarget {
                pane,
                line: l.span.start.line,
                utf16_column: l.span.start.utf16_column,
            }),
        }
    }
}

/// One change between the revisions.
#[derive(Clone, Debug, PartialEq)]
pub struct ChangeRow {
    /// How bad it is.
    pub severity: ChangeSeverity,
    /// `breaking`, `risky` or `compatible`.
    pub severity_label: &'static str,
    /// The object field it is about, if any.
    pub field: Option<String>,
    /// What changed.
    pub message: String,
    /// The change's code.
    pub code: String,
    /// Where it is in the Previous CRD.
    pub old: Option<Place>,
    /// Where it is in the CRD.
    pub new: Option<Place>,
}

/// The changes of one version (or of the whole CRD).
#[derive(Clone, Debug, PartialEq)]
pub struct ChangeGroup {
    /// `Version v1`, or `The whole CRD`.
    pub title: String,
    /// Its changes, worst first.
    pub rows: Vec<ChangeRow>,
}

/// A verdict on one request about a stored object.
#[derive(Clone, Debug, PartialEq)]
pub struct VerdictRow {
    /// Whether the server accepts it.
    pub accepted: bool,
    /// `accepted`, or `rejected` and the first reason.
    pub text: String,
}

impl VerdictRow {
    fn of(v: &RequestVerdict) -> VerdictRow {
        if v.accepted {
            return VerdictRow {
                accepted: true,
                text: "accepted".to_owned(),
            };
        }
        let first = v
            .decode_error
            .clone()
            .or_else(|| v.errors.first().map(|e| e.error.clone()))
            .unwrap_or_default();
        let more = v.errors.len().saturating_sub(1);
        VerdictRow {
            accepted: false,
            text: if more > 0 {
                format!("rejected: {first} (and {more} more)")
            } else {
                format!("rejected: {first}")
            },
        }
    }
}

/// What the new revision does to one stored object.
#[derive(Clone, Debug, PartialEq)]
pub struct EffectRow {
    /// `object.yaml · Widget w` (the document's number when the text has several).
    pub title: String,
    /// Why the effects are unknown, if they are.
    pub note: Option<String>,
    /// Whether the previous revision accepts the object.
    pub previously_accepted: bool,
    /// The fields a read drops (data lost), each where it is in the object's text.
    pub lost: Vec<(String, Option<Place>)>,
    /// The fields the new defaults set on read.
    pub defaulted: Vec<String>,
    /// An unchanged update (`kubectl apply` of the same object).
    pub update: VerdictRow,
    /// A create of the same object.
    pub create: VerdictRow,
}

/// Everything the Changes tab shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChangesModel {
    /// Whether a previous revision was given (the CRD was checked as an update).
    pub update: bool,
    /// Whether the server accepts the update.
    pub accepted: bool,
    /// The update's findings: the server's errors and warnings on the CRD, and the
    /// Previous CRD text's own problems.
    pub findings: Vec<ProblemRow>,
    /// The changes, by version (CRD-wide first).
    pub groups: Vec<ChangeGroup>,
    /// The stored-object effects.
    pub effects: Vec<EffectRow>,
    /// Counts for the tab's badge: breaking changes, objects losing data or refused.
    pub breaking: usize,
}

fn severity_label(s: ChangeSeverity) -> &'static str {
    match s {
        ChangeSeverity::Breaking => "breaking",
        ChangeSeverity::Risky => "risky",
        ChangeSeverity::Compatible => "compatible",
    }
}

fn groups(changes: &[CrdChange]) -> Vec<ChangeGroup> {
    let mut groups: Vec<(Option<String>, Vec<ChangeRow>)> = Vec::new();
    for c in changes {
        let row = ChangeRow {
            severity: c.severity,
            severity_label: severity_label(c.severity),
            // The field is shown apart only when the message does not start with it.
            field: c
                .field
                .clone()
                .filter(|f| !c.message.starts_with(f.as_str())),
            message: c.message.clone(),
            code: c.code.clone(),
            old: c.old.as_ref().map(Place::of),
            new: c.new.as_ref().map(Place::of),
        };
        match groups.iter_mut().find(|(v, _)| *v == c.version) {
            Some((_, rows)) => rows.push(row),
            None => groups.push((c.version.clone(), vec![row])),
        }
    }
    // CRD-wide changes first, then the versions in the order met; worst first in each.
    crd_studio_gostd::sort::stable_by_key(&mut groups, |(v, _)| v.is_some());
    groups
        .into_iter()
        .map(|(v, mut rows)| {
            crd_studio_gostd::sort::stable_by_key(&mut rows, |r| r.severity);
            ChangeGroup {
                title: match v {
                    Some(v) => format!("Version {v}"),
                    None => "The whole CRD".to_owned(),
                },
                rows,
            }
        })
        .collect()
}

fn effect_row(analysis: &Analysis, e: &StoredEffect, several: bool) -> EffectRow {
    let file = file_name(SourceId::Object(e.source));
    let doc = if several {
        format!(" (document {})", e.document + 1)
    } else {
        String::new()
    };
    let lost = e
        .read_pruned
        .iter()
        .map(|path| {
            let place = analysis
                .findings
                .iter()
                .find(|f| {
                    f.code == "studio.lost-on-read"
                        && f.field.as_deref() == Some(path.as_str())
                        && f.location.is_some_and(|l| {
                            l.source == SourceId::Object(e.source) && l.document == e.document
                        })
                })
                .and_then(|f| f.location.as_ref())
                .map(Place::of);
            (path.clone(), place)
        })
        .collect();
    EffectRow {
        title: format!("{file}{doc} · {} {}", e.kind, e.name),
        note: e.note.clone(),
        previously_accepted: e.previously_accepted,
        lost,
        defaulted: e.read_defaulted.clone(),
        update: VerdictRow::of(&e.update),
        create: VerdictRow::of(&e.create),
    }
}

/// The Changes tab's model of an analysis.
pub fn changes_model(analysis: &Analysis) -> ChangesModel {
    let update = analysis.crd.operation == "update";
    if !update {
        return ChangesModel::default();
    }
    let findings = analysis
        .findings
        .iter()
        .filter(|f| {
            f.code == "crd.invalid"
                || f.code == "crd.warning"
                || f.code == "crd.previous-unreadable"
                || f.location.is_some_and(|l| l.source == SourceId::OldCrd)
        })
        .map(ProblemRow::from_finding)
        .collect();
    let several = |source: usize| {
        analysis
            .stored_effects
            .iter()
            .filter(|x| x.source == source)
            .count()
            > 1
    };
    let effects: Vec<EffectRow> = analysis
        .stored_effects
        .iter()
        .map(|e| effect_row(analysis, e, several(e.source)))
        .collect();
    let breaking = analysis
        .changes
        .iter()
        .filter(|c| c.severity == ChangeSeverity::Breaking)
        .count()
        + effects
            .iter()
            .filter(|e| !e.lost.is_empty() || !e.update.accepted)
            .count();
    ChangesModel {
        update,
        accepted: analysis.crd.accepted,
        findings,
        groups: groups(&analysis.changes),
        effects,
        breaking,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crd_studio_engine::{analyze, Pos, Request, Span};

    const OLD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
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
              color: {type: string}
";

    const OBJECT: &str =
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n  color: red\n";

    #[test]
    fn no_previous_crd_no_model() {
        let a = analyze(&Request {
            crd: OLD.to_owned(),
            objects: vec![OBJECT.to_owned()],
            ..Request::default()
        });
        assert_eq!(changes_model(&a), ChangesModel::default());
    }

    #[test]
    fn a_removed_field_is_lost_on_read_and_located() {
        let a = analyze(&Request {
            crd: OLD.replace("              color: {type: string}\n", ""),
            objects: vec![OBJECT.to_owned()],
            old_crd: Some(OLD.to_owned()),
            ..Request::default()
        });
        let m = changes_model(&a);
        assert!(m.update && m.accepted);
        let e = &m.effects[0];
        assert_eq!(e.title, "object.yaml · Widget w");
        assert_eq!(e.lost.len(), 1);
        assert_eq!(e.lost[0].0, "spec.color");
        let place = e.lost[0].1.as_ref().unwrap();
        assert_eq!(place.text, "object.yaml:7:3");
        assert_eq!(place.target.unwrap().pane, Pane::Object);
        assert!(!e.update.accepted);
        assert!(e.update.text.starts_with("rejected: Widget in version"));
        assert!(m.breaking >= 1);
    }

    #[test]
    fn changes_are_grouped_by_version_and_located_in_both_editors() {
        let at = |source, line| Location {
            source,
            document: 0,
            span: Span::point(Pos {
                offset: 0,
                line,
                column: 3,
                utf16_column: 3,
            }),
        };
        let mut a = Analysis::default();
        a.crd.operation = "update".to_owned();
        a.changes = vec![
            CrdChange {
                code: "crd.change.bound-tightened".to_owned(),
                severity: ChangeSeverity::Risky,
                version: Some("v1".to_owned()),
                field: Some(".spec.size".to_owned()),
                message: "maximum lowered".to_owned(),
                old: Some(at(SourceId::OldCrd, 20)),
                new: Some(at(SourceId::Crd, 20)),
            },
            CrdChange {
                code: "crd.change.field-removed".to_owned(),
                severity: ChangeSeverity::Breaking,
                version: Some("v1".to_owned()),
                field: Some(".spec.color".to_owned()),
                message: "field removed".to_owned(),
                old: Some(at(SourceId::OldCrd, 21)),
                new: None,
            },
            CrdChange {
                code: "crd.change.scope".to_owned(),
                severity: ChangeSeverity::Breaking,
                version: None,
                field: None,
                message: "scope changed".to_owned(),
                old: None,
                new: Some(at(SourceId::Crd, 7)),
            },
        ];
        let m = changes_model(&a);
        assert_eq!(m.groups.len(), 2);
        assert_eq!(m.groups[0].title, "The whole CRD");
        assert_eq!(m.groups[1].title, "Version v1");
        let removed = &m.groups[1].rows[0];
        assert_eq!(removed.severity_label, "breaking");
        let old = removed.old.as_ref().unwrap();
        assert_eq!(old.text, "previous-crd.yaml:21:3");
        assert_eq!(old.target.unwrap().pane, Pane::OldCrd);
        assert_eq!(
            m.groups[1].rows[1].new.as_ref().unwrap().text,
            "crd.yaml:20:3"
        );
        assert_eq!(m.breaking, 2);
    }
}
