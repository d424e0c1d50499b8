//! [`Shown`]: one analysis as the page shows it, computed once when the worker's answer
//! arrives and handed to every result view. The views import it from here (not from the
//! studio component that owns it).

use std::rc::Rc;

use crate::cel_model::tab_badge;
use crate::editor_text::EditorText;
use crate::view_model::{
    editor_diagnostics, problem_rows, status, EditorDiagnostic, Pane, ProblemRow, Status,
};
use crate::worker_boundary::Reply;

/// What the page shows for one analysis, computed once when it arrives. Two are equal when
/// they show the same analysis (`seq`): panels compare them on every render, and comparing
/// the texts and the analysis itself would cost milliseconds per keystroke on a big CRD.
pub(crate) struct Shown {
    /// Counts the analyses shown, so panels can tell a new one cheaply.
    pub(crate) seq: u64,
    /// The status line's verdict.
    pub(crate) status: Status,
    /// The Problems tab's rows.
    pub(crate) rows: Vec<ProblemRow>,
    /// The marks in the CRD editor.
    pub(crate) crd_marks: Rc<Vec<EditorDiagnostic>>,
    /// The marks in the Object editor.
    pub(crate) object_marks: Rc<Vec<EditorDiagnostic>>,
    /// The marks in the Old object editor.
    pub(crate) old_marks: Rc<Vec<EditorDiagnostic>>,
    /// The marks in the Previous CRD editor.
    pub(crate) old_crd_marks: Rc<Vec<EditorDiagnostic>>,
    /// The CEL tab's badge: rules, and whether one is broken or failing.
    pub(crate) cel_badge: (usize, bool),
    /// The Changes tab's badge: breaking changes and stored objects that lose data or
    /// cannot be updated.
    pub(crate) changes_badge: usize,
    /// The worker's answer.
    pub(crate) reply: Reply,
    /// The CRD text the analysis was made from.
    pub(crate) crd: EditorText,
}

impl PartialEq for Shown {
    fn eq(&self, other: &Shown) -> bool {
        self.seq == other.seq
    }
}

impl Shown {
    /// The analysis numbered `seq`, made from the CRD text `crd`.
    pub(crate) fn of(seq: u64, reply: Reply, crd: EditorText) -> Shown {
        let analysis = &reply.analysis;
        Shown {
            cel_badge: tab_badge(analysis),
            changes_badge: crate::changes_model::changes_model(analysis).breaking,
            seq,
            status: status(analysis),
            rows: problem_rows(analysis),
            crd_marks: Rc::new(editor_diagnostics(analysis, Pane::Crd)),
            object_marks: Rc::new(editor_diagnostics(analysis, Pane::Object)),
            old_marks: Rc::new(editor_diagnostics(analysis, Pane::OldObject)),
            old_crd_marks: Rc::new(editor_diagnostics(analysis, Pane::OldCrd)),
            reply,
            crd,
        }
    }
}
