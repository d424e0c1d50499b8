//! Completion and hover requests between the editors and the engine's worker (pure, natively
//! tested): what crosses ([`AssistRequest`], [`AssistAnswer`]) and the worker's answer
//! ([`answer`]); the engine takes and gives the editors' UTF-16 offsets.

use crd_studio_engine::CompiledCrd;
use crd_studio_engine::{
    read_test_file, write_test_file, CaseSuite, CaseTexts, Completions, Editor, Hover, OpenedTests,
};
use serde::{Deserialize, Serialize};

/// Completion or hover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AssistKind {
    /// The items for the word at the offset.
    Complete,
    /// The documentation of what is at the offset.
    Hover,
    /// "Save as test case": the request's `case` with what the studio's CRD does with its
    /// object now as its expectations.
    SaveCase,
    /// "Download tests": the test file of the studio's CRD and options and the request's
    /// `tests`.
    WriteTests,
    /// "Open tests": the CRD and cases of the test file in the request's text.
    ReadTests,
}

/// A completion or hover request from an editor. The editor's text travels beside the
/// JSON, as a job's CRD text does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistRequest {
    /// The studio whose compiled CRD answers.
    pub studio: String,
    /// The request's number (answers come back with it as their `seq`).
    pub id: u64,
    /// Completion or hover.
    pub kind: AssistKind,
    /// Which editor.
    pub editor: Editor,
    /// The cursor, in UTF-16 code units from the start of the text.
    pub offset: usize,
    /// The editor's text (sent beside the JSON).
    #[serde(default, skip)]
    pub text: String,
    /// The case to save ([`AssistKind::SaveCase`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case: Option<CaseTexts>,
    /// The cases to write ([`AssistKind::WriteTests`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<CaseTexts>,
}

/// The answer, offsets in UTF-16 code units.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistAnswer {
    /// Completion items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<Completions>,
    /// Hover documentation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hover: Option<Hover>,
    /// The saved case, or why the object cannot be one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case: Option<Result<CaseTexts, String>>,
    /// The test file written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The test file read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opened: Option<OpenedTests>,
}

/// The answer to `request` from `crd`, the studio's compiled CRD (for the CRD editor with no
/// compiled CRD yet, the request's text compiled).
pub fn answer(crd: &CompiledCrd, request: &AssistRequest) -> AssistAnswer {
    let (text, at) = (request.text.as_str(), request.offset);
    let none = AssistAnswer::default();
    match request.kind {
        AssistKind::Complete => AssistAnswer {
            completions: crd.complete_utf16(request.editor, text, at),
            ..none
        },
        AssistKind::Hover => AssistAnswer {
            hover: crd.hover_utf16(request.editor, text, at),
            ..none
        },
        AssistKind::SaveCase => AssistAnswer {
            case: request
                .case
                .as_ref()
                .map(|c| CaseSuite::snapshot(crd, &c.name, &c.object, c.old_object.as_deref())),
            ..none
        },
        AssistKind::WriteTests => {
            let options = crd.options();
            AssistAnswer {
                file: Some(write_test_file(
                    text,
                    &request.tests,
                    options.field_validation,
                    options.kubernetes_version,
                )),
                ..none
            }
        }
        AssistKind::ReadTests => AssistAnswer {
            opened: Some(read_test_file(text)),
            ..none
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crd_studio_engine::Options;

    #[test]
    fn an_object_completion_through_the_worker_shape() {
        let crd = CompiledCrd::compile(
            include_str!("../examples/crontab/crd.yaml"),
            &Options::default(),
        );
        let text =
            "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: é\nspec:\n  cron";
        let req = AssistRequest {
            studio: "main".into(),
            id: 1,
            kind: AssistKind::Complete,
            editor: Editor::Object,
            offset: crd_studio_engine::utf16_offset(text, text.len()),
            text: text.into(),
            case: None,
            tests: Vec::new(),
        };
        let a = answer(&crd, &req);
        let c = a.completions.unwrap();
        assert!(c.items.iter().any(|i| i.label == "cronSpec"), "{c:?}");
        assert_eq!(c.to - c.from, 4);
        let json = serde_json::to_string(&req).unwrap();
        assert!(
            !json.contains("cron"),
            "the text travels beside the JSON: {json}"
        );
    }
}
