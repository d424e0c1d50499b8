//! [`StudioCtx`]: the state a studio's parts share (the texts and settings, the analysis
//! shown, the messages, the editors' controls) and the actions on it that more than one
//! part takes (replace the texts, put the work aside, ask first, put the cursor in an
//! editor). The [`Studio`](crate::studio::Studio) component makes one per render and hands
//! it to each part.

use std::cell::RefCell;
use std::rc::Rc;

use crd_studio_engine::{FieldValidation, KubernetesVersion};
use gloo::storage::{LocalStorage, Storage};
use gloo::timers::callback::Timeout;
use yew::prelude::*;

use crate::analyser::Analyser;
use crate::editor::EditorControl;
use crate::editor_text::EditorText;
use crate::shown::Shown;
use crate::storage::{save, Autosave, BACKUP_KEY};
use crate::studio_live::{
    is_unchanged_example, old_object_of, query_of, state_of, BottomTab, Generations, Live, Replace,
    Texts,
};
use crate::studio_state::StudioState;
use crate::view_model::{FocusTarget, Pane};
use crate::worker_boundary::PreviewQuery;

/// A message above the editors, optionally with a button bringing back the work a link or
/// an example put aside.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    /// What happened, in plain words.
    pub text: String,
    /// Whether the work put aside can be restored (shows a "Restore" button).
    pub restorable: bool,
}

/// A replacement of the user's texts waiting for the user's yes.
#[derive(Clone)]
pub(crate) struct Pending {
    /// The dialog's question.
    pub(crate) title: String,
    /// The confirming button's label.
    pub(crate) confirm: String,
    /// What replaces the current state.
    pub(crate) next: StudioState,
    /// The notice after the replacement.
    pub(crate) what: String,
}

/// The handles that drive the four editors (focus at a place, apply a fix).
#[derive(Clone, Default)]
pub(crate) struct Controls {
    /// The CRD editor.
    pub(crate) crd: EditorControl,
    /// The Object editor.
    pub(crate) object: EditorControl,
    /// The Old object editor.
    pub(crate) old: EditorControl,
    /// The Previous CRD editor.
    pub(crate) old_crd: EditorControl,
}

impl Controls {
    /// The control of a pane's editor.
    pub(crate) fn of(&self, pane: Pane) -> &EditorControl {
        match pane {
            Pane::Crd => &self.crd,
            Pane::Object => &self.object,
            Pane::OldObject => &self.old,
            Pane::OldCrd => &self.old_crd,
        }
    }
}

/// What a studio's parts share, as of one render of the studio.
#[derive(Clone)]
pub(crate) struct StudioCtx {
    /// Embedded in another page (no autosave, compact).
    pub(crate) embed: bool,
    /// The CRD editor is read-only.
    pub(crate) lock_crd: bool,
    /// The address of the full studio, for "Open in CRD Studio".
    pub(crate) open_url: AttrValue,
    /// An embed's test file (its cases are loaded when the Tests tab first renders).
    pub(crate) tests_file: Option<AttrValue>,
    /// The texts and settings as they are now (edits land here without a render).
    pub(crate) live: Rc<RefCell<Live>>,
    /// The editors' reload counters.
    pub(crate) generations: Rc<RefCell<Generations>>,
    /// Renders the studio again (after a text is replaced).
    pub(crate) rerender: UseForceUpdateHandle,
    /// Posts the analyses.
    pub(crate) analyser: Rc<Analyser>,
    /// Saves the texts.
    pub(crate) autosave: Rc<Autosave>,
    /// The editors' controls.
    pub(crate) controls: Rc<Controls>,
    /// The newest analysis shown.
    pub(crate) shown: UseStateHandle<Option<Rc<Shown>>>,
    /// The newest analysis has run for a moment: the results are dimmed.
    pub(crate) working: UseStateHandle<bool>,
    /// The engine's crash message.
    pub(crate) crash: UseStateHandle<Option<String>>,
    /// Seconds the analysis in flight has run.
    pub(crate) elapsed: UseStateHandle<u32>,
    /// Object documents done and known, during a long analysis.
    pub(crate) progress: UseStateHandle<Option<(usize, usize)>>,
    /// The user stopped the analysis after this many seconds.
    pub(crate) stopped: UseStateHandle<Option<u32>>,
    /// The texts wait for the user: the engine crashed on them last time.
    pub(crate) paused: UseStateHandle<bool>,
    /// The field validation mode.
    pub(crate) field_validation: UseStateHandle<FieldValidation>,
    /// The Kubernetes version to model (blank: the engine's default).
    pub(crate) kubernetes_version: UseStateHandle<KubernetesVersion>,
    /// What the kubectl get, Conversion and Explain tabs ask.
    pub(crate) query: UseStateHandle<PreviewQuery>,
    /// The result tab shown.
    pub(crate) bottom: UseStateHandle<BottomTab>,
    /// The Object is analysed as an update (the old object is not blank).
    pub(crate) old_in_use: UseStateHandle<bool>,
    /// The Old object editor is open.
    pub(crate) old_open: UseStateHandle<bool>,
    /// The Previous CRD editor is open.
    pub(crate) old_crd_open: UseStateHandle<bool>,
    /// The message above the editors.
    pub(crate) notice: UseStateHandle<Option<Notice>>,
    /// What the Share button last said, with a download when the link was too big.
    pub(crate) share_message: UseStateHandle<Option<(String, Option<String>)>>,
    /// The replacement the confirmation dialog asks about.
    pub(crate) pending: UseStateHandle<Option<Rc<Pending>>>,
    /// Another tab saved different texts; this tab saves nothing until the user chooses.
    pub(crate) conflict: UseStateHandle<bool>,
    /// Why the last save failed, with a download of the texts.
    pub(crate) save_error: UseStateHandle<Option<(String, String)>>,
}

/// Never equal: the parts render whenever the studio does, as they read the texts kept
/// outside Yew's state ([`Live`], [`Generations`]), which change without a new value.
impl PartialEq for StudioCtx {
    fn eq(&self, _: &StudioCtx) -> bool {
        false
    }
}

impl StudioCtx {
    /// Analyses the texts and settings as they are now.
    pub(crate) fn analyse(&self) {
        self.analyser.run(&self.live.borrow());
    }

    /// An edit in a pane's editor: the job is posted at once, from the editor's change
    /// handler, and the page does not re-render (only the answer does); saving waits for a
    /// pause.
    pub(crate) fn edit(&self, pane: Pane) -> Callback<EditorText> {
        let ctx = self.clone();
        Callback::from(move |text: EditorText| {
            let mut state = ctx.live.borrow_mut();
            let slot = match pane {
                Pane::Crd => &mut state.texts.crd,
                Pane::Object => &mut state.texts.object,
                Pane::OldObject => &mut state.texts.old_object,
                Pane::OldCrd => &mut state.texts.old_crd,
            };
            *slot = text;
            ctx.analyser.run(&state);
            if !ctx.embed {
                ctx.autosave.schedule(state.texts.clone());
                crate::share_view::forget_stale_link(&ctx.share_message);
            }
            if pane == Pane::OldObject {
                ctx.old_in_use
                    .set(old_object_of(&state.texts.old_object).is_some());
            }
        })
    }

    /// The app puts a text in place of the user's: the editor reloads it.
    pub(crate) fn replace(&self, what: Replace) {
        {
            let mut state = self.live.borrow_mut();
            let mut g = self.generations.borrow_mut();
            match what {
                Replace::Crd(text) => {
                    state.texts.crd = EditorText::from_rust(text);
                    g.crd += 1;
                }
                Replace::OldObject(text) => {
                    state.texts.old_object = text;
                    g.old += 1;
                }
                Replace::OldCrd(text) => {
                    state.texts.old_crd = text;
                    g.old_crd += 1;
                }
                Replace::Object(text) => {
                    state.texts.object = EditorText::from_rust(text);
                    g.object += 1;
                }
                Replace::State(next) => {
                    state.texts = Texts::of(&next);
                    state.mode = next.field_validation;
                    state.query = query_of(&next);
                    state.kubernetes_version = next.kubernetes_version;
                    state.version = next.version.clone().into();
                    state.tests = next.tests.clone();
                    if !self.embed {
                        crate::storage::save(crate::storage::TESTS_KEY, &next.tests);
                    }
                    self.field_validation.set(next.field_validation);
                    self.kubernetes_version.set(next.kubernetes_version);
                    self.query.set(query_of(&next));
                    self.bottom.set(BottomTab::of(&next.tab));
                    g.object += 1;
                    g.crd += 1;
                    g.old += 1;
                    g.old_crd += 1;
                }
            }
        }
        let state = self.live.borrow();
        self.analyser.run(&state);
        if !self.embed {
            self.autosave.schedule(state.texts.clone());
            crate::share_view::forget_stale_link(&self.share_message);
            self.share_message.set(None);
        }
        self.old_in_use
            .set(old_object_of(&state.texts.old_object).is_some());
        self.rerender.force_update();
    }

    /// The Tests tab's cases changed (saved, renamed, deleted, opened): they are saved and
    /// run at once.
    pub(crate) fn set_tests(&self, tests: Vec<crd_studio_engine::CaseTexts>) {
        if !self.embed {
            save(crate::storage::TESTS_KEY, &tests);
            crate::share_view::forget_stale_link(&self.share_message);
        }
        self.live.borrow_mut().tests = tests;
        self.analyser.run(&self.live.borrow());
        self.rerender.force_update();
    }

    /// The state as it is now (for Share, and to put aside before a replacement).
    pub(crate) fn current(&self) -> StudioState {
        state_of(&self.live.borrow(), *self.bottom)
    }

    /// Replaces everything, putting the current work aside (restorable in one click). An
    /// unchanged example is not put aside: it would push the user's own work out of the
    /// slot.
    pub(crate) fn load(&self, next: StudioState, what: String) {
        let now = self.current();
        let have_backup = LocalStorage::raw()
            .get_item(BACKUP_KEY)
            .ok()
            .flatten()
            .is_some();
        let text = if have_backup && is_unchanged_example(&now) {
            format!("{what} Your work from before is still kept:")
        } else {
            save(BACKUP_KEY, &now);
            format!("{what} Your previous work is kept:")
        };
        self.replace(Replace::State(Box::new(next)));
        self.notice.set(Some(Notice {
            text,
            restorable: true,
        }));
    }

    /// Replaces the texts with `ask.next` after asking, when they are the user's own work.
    pub(crate) fn ask_then_load(&self, ask: Pending) {
        if is_unchanged_example(&self.current()) {
            self.load(ask.next, ask.what);
        } else {
            self.pending.set(Some(Rc::new(ask)));
        }
    }

    /// Puts the cursor in an editor; the old object and Previous CRD editors are opened
    /// first when collapsed (they exist only while open, so the focus waits for the next
    /// render).
    pub(crate) fn focus(&self) -> Callback<FocusTarget> {
        let ctx = self.clone();
        Callback::from(move |t: FocusTarget| {
            let control = ctx.controls.of(t.pane).clone();
            if t.pane == Pane::OldCrd && !*ctx.old_crd_open {
                ctx.old_crd_open.set(true);
                Timeout::new(0, move || control.focus_at(t.line, t.utf16_column)).forget();
            } else if t.pane == Pane::OldObject && !*ctx.old_open {
                ctx.old_open.set(true);
                Timeout::new(0, move || control.focus_at(t.line, t.utf16_column)).forget();
            } else {
                control.focus_at(t.line, t.utf16_column);
            }
        })
    }
}
