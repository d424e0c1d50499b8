//! What a studio edits, as it is between renders: the texts ([`Texts`]), the settings
//! ([`Live`]), the editors' reload counters ([`Generations`]), the result tab
//! ([`BottomTab`]), and the conversions between them and a [`StudioState`] (a share link,
//! an example, the autosave). No DOM and no storage here.

use yew::AttrValue;

use crd_studio_engine::{FieldValidation, KubernetesVersion};

use crate::editor_text::EditorText;
use crate::gallery;
use crate::studio_state::StudioState;
use crate::view_model::{EXAMPLE_CRD, EXAMPLE_OBJECT};
use crate::worker_boundary::PreviewQuery;

/// The texts being edited, as they are now. The editors own what the user types and report
/// each edit here without a re-render of the page (a keystroke costs the page only the job it
/// posts); the app's own replacements bump [`Generations`] so the editors reload.
#[derive(Clone, Default)]
pub(crate) struct Texts {
    /// The CRD.
    pub(crate) crd: EditorText,
    /// The objects.
    pub(crate) object: EditorText,
    /// Empty when there is no old object.
    pub(crate) old_object: EditorText,
    /// The Previous CRD; empty when there is none.
    pub(crate) old_crd: EditorText,
}

impl Texts {
    /// The texts of a state.
    pub(crate) fn of(state: &StudioState) -> Texts {
        Texts {
            crd: EditorText::from_rust(state.crd.clone()),
            object: EditorText::from_rust(state.object.clone()),
            old_object: EditorText::from_rust(state.old_object.clone()),
            old_crd: EditorText::from_rust(state.old_crd.clone()),
        }
    }
}

/// Bumped when the app replaces a text (the example, a rule edited in the CEL panel, the
/// old object copied or cleared): the editor showing it reloads it.
#[derive(Clone, Copy, Default, PartialEq)]
pub(crate) struct Generations {
    /// The Object editor's.
    pub(crate) object: u32,
    /// The CRD editor's.
    pub(crate) crd: u32,
    /// The Old object editor's.
    pub(crate) old: u32,
    /// The Previous CRD editor's.
    pub(crate) old_crd: u32,
}

/// What the callbacks read between renders: the texts and the settings as they are now.
pub(crate) struct Live {
    /// The texts.
    pub(crate) texts: Texts,
    /// The field validation mode.
    pub(crate) mode: FieldValidation,
    /// What the kubectl get, Conversion and Explain tabs ask.
    pub(crate) query: PreviewQuery,
    /// The Kubernetes minor version to model (blank: the engine's default).
    pub(crate) kubernetes_version: KubernetesVersion,
    /// The version selected in the Stored object tab (blank: the stored object).
    pub(crate) version: AttrValue,
    /// The Tests tab's cases.
    pub(crate) tests: Vec<crd_studio_engine::CaseTexts>,
}

/// A text the app puts in place of the user's.
pub(crate) enum Replace {
    /// The CRD text (a rule edited in the CEL tab).
    Crd(String),
    /// The Object text (a generated sample added).
    Object(String),
    /// The Old object text (copied from the Object, or cleared).
    OldObject(EditorText),
    /// The Previous CRD text (copied from the CRD).
    OldCrd(EditorText),
    /// Every text and setting (an example, restored work).
    State(Box<StudioState>),
}

/// The tabs of the bottom area.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum BottomTab {
    /// The findings.
    Problems,
    /// The stored object.
    Stored,
    /// The CEL rules.
    Cel,
    /// kubectl get.
    Get,
    /// Conversion.
    Conversion,
    /// The CRD update.
    Changes,
    /// kubectl explain.
    Explain,
    /// The test cases.
    Tests,
}

impl BottomTab {
    /// The tab a state names (unknown names: Problems).
    pub(crate) fn of(name: &str) -> BottomTab {
        match name {
            "stored" => BottomTab::Stored,
            "cel" => BottomTab::Cel,
            "get" => BottomTab::Get,
            "conversion" => BottomTab::Conversion,
            "changes" => BottomTab::Changes,
            "explain" => BottomTab::Explain,
            "tests" => BottomTab::Tests,
            _ => BottomTab::Problems,
        }
    }

    /// The tab's name in a state.
    pub(crate) fn name(self) -> &'static str {
        match self {
            BottomTab::Problems => "problems",
            BottomTab::Stored => "stored",
            BottomTab::Cel => "cel",
            BottomTab::Get => "get",
            BottomTab::Conversion => "conversion",
            BottomTab::Changes => "changes",
            BottomTab::Explain => "explain",
            BottomTab::Tests => "tests",
        }
    }
}

/// The old object to send: `None` (the create path) when its text is blank.
pub(crate) fn old_object_of(text: &EditorText) -> Option<String> {
    (!text.is_blank()).then(|| text.rust().to_string())
}

/// The settings part of a state as the preview query.
pub(crate) fn query_of(state: &StudioState) -> PreviewQuery {
    PreviewQuery {
        field_selector: state.field_selector.clone(),
        target: state.conversion_target.clone(),
        webhook_response: state.webhook_response.clone(),
        mappings: state.mappings.clone(),
        ..PreviewQuery::default()
    }
}

/// The state of a studio's texts and settings, with the open tab.
pub(crate) fn state_of(live: &Live, tab: BottomTab) -> StudioState {
    StudioState {
        crd: live.texts.crd.rust().to_string(),
        object: live.texts.object.rust().to_string(),
        old_object: live.texts.old_object.rust().to_string(),
        old_crd: live.texts.old_crd.rust().to_string(),
        field_validation: live.mode,
        kubernetes_version: live.kubernetes_version,
        version: live.version.to_string(),
        tab: tab.name().to_owned(),
        field_selector: live.query.field_selector.clone(),
        conversion_target: live.query.target.clone(),
        webhook_response: live.query.webhook_response.clone(),
        mappings: live.query.mappings.clone(),
        tests: live.tests.clone(),
    }
}

/// Whether a state's texts are an example's, unchanged (nothing to lose by replacing them).
pub(crate) fn is_unchanged_example(state: &StudioState) -> bool {
    // No example has a Previous CRD: one typed is the user's work.
    gallery::is_unchanged_example(&state.crd, &state.object, &state.old_object)
        && state.old_crd.trim().is_empty()
}

/// The first-visit example as a state.
pub(crate) fn example_state() -> StudioState {
    StudioState {
        crd: EXAMPLE_CRD.to_owned(),
        object: EXAMPLE_OBJECT.to_owned(),
        ..StudioState::default()
    }
}
