//! The front door: the engine's whole public API, and the only one the shells (the CLI, the
//! page and its worker, the fuzz targets) use. Stage 12, after the report (10) and authoring
//! help (11).
//!
//! - **In**: a [`Request`] (texts) and typed [`Options`]: [`KubernetesVersion`],
//!   [`FieldValidation`], the clock (`now`), name generation. Text is read once, at the edge,
//!   with each type's `parse` and its one error text.
//! - **Through**: [`analyze`] for one call, or [`CompiledCrd::compile`] once and
//!   [`CompiledCrd::analyze_objects`] per object edit ([`CompiledCrd::recompile`] after a CRD
//!   edit reuses what the edit left as it was).
//! - **Out**: an [`Analysis`]: the CRD's and each object's verdict and reports, and every
//!   problem as a [`Finding`] with the server's field path and message, a plain-words summary,
//!   its [`Location`] in the user's text (line, column, UTF-16 column, span) and its fixes.
//! - **Authoring help** on a compiled CRD: [`CompiledCrd::complete`], [`CompiledCrd::hover`],
//!   [`CompiledCrd::explain`], [`CompiledCrd::sample`].
//!
//! The fixes (`Finding::fixes`) are authoring help too: the report stage leaves them out and
//! this door adds them, so that the analysis never depends on the stage after it.

use std::rc::Rc;
use std::sync::Arc;

mod consequences;
mod crd_test_assist;
mod crd_test_cases;
mod crd_tests;
mod repository;

use crate::authoring::assist::{self, fixes};
use crate::authoring::{explain, sample};

mod crd_facts;
mod one_shot;
mod selectable_fields;
mod standalone;
mod version_gates;
mod version_span;
mod workspace;

pub use crd_facts::{CrdFacts, DeclaredVersion};
pub use selectable_fields::selectable_field_fix;
pub use standalone::{
    jsonpath, select_by_field_selector, DocumentTrees, SelectorVersion, MAX_DEPTH,
};
pub use version_gates::RecheckPlan;
pub use version_span::{VersionSpan, VersionVerdict};
pub use workspace::{
    document_headers, document_symbols, isolate_document, DocumentHeader, Symbol, SymbolKind,
};

// ------------------------------------------------------------------------------------------
// In: the request and its typed options
// ------------------------------------------------------------------------------------------

pub use crate::documents::kube_version::KubernetesVersion;
pub use crate::object::objectmeta::time::Time;
pub use crate::report::analysis::{FieldValidation, Options, Request};

/// CEL's time-zone database (named zones), given by the caller: see
/// [`CompiledCrd::set_time_zones`].
pub use crd_studio_cel::tz::TimeZoneDb;

// ------------------------------------------------------------------------------------------
// Out: the analysis, its reports and findings
// ------------------------------------------------------------------------------------------

pub use crate::documents::finding::{
    apply_text_edits, ErrorType, Finding, Location, Severity, SourceId, TextEdit, VersionNote,
};
pub use crate::documents::json_text::JsonText;
pub use crate::documents::path::FieldPath;
pub use crate::documents::position::{
    byte_offset, utf16_offset, utf16_offset_of_line_column, Pos, Span,
};
pub use crate::report::analysis::{
    cost_error_message, rule_key, Analysis, BoundFix, BoundKind, CelOutcome, CelRuleReport,
    CelRuleResult, ChangeSeverity, CompiledCrd, CostDriver, CostReport, CrdChange, CrdReport,
    DriverRole, ExpressionCost, ExpressionKind, FieldErrorReport, FieldSelectorPreview, Fix,
    ObjectReport, Operator, PreviousCrd, Progress, RequestVerdict, Requirement, Selection,
    ServedObject, StoredEffect, Strategy, TableColumnReport, TableRow, VersionReport,
    STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT,
};
pub use crate::report::places::{FieldPlace, ObjectPlaces};
pub use crd_test_assist::{
    crd_test_complete, crd_test_complete_utf16, crd_test_hover, crd_test_hover_utf16, FormatKey,
};
pub use crd_test_cases::{
    read_test_file, write_test_file, CaseResult, CaseSuite, CaseTexts, OpenedTests,
};
pub use crd_tests::{
    check_case, check_crd, snapshot_expect, CaseExpect, Cell, CrdExpect, Matcher, MessageExpect,
    Placed, TestCase, TestFailure, TestProblem, TestSource, TestSuite,
};
pub use repository::DocumentTexts;

// ------------------------------------------------------------------------------------------
// Beside the analysis: kubectl get, conversion, changes between revisions
// ------------------------------------------------------------------------------------------

pub use crate::crd_diff::{diff_crds, is_crd_text};
pub use crate::documents::document::MAX_REQUEST_BYTES;
pub use crate::printing::table::PrintOptions;
pub use crate::report::get::{
    kubectl_get_list, kubectl_get_objects, GetOutput, LeftOut, ListOutput,
};
pub use crate::versions::authored_conversion::ConversionPreview;
pub use crate::versions::conversion::{
    check_conversion_response, conversion_review, convert, ConversionIssue, ConvertedObject,
    ResponseCheck, WebhookCall,
};

// ------------------------------------------------------------------------------------------
// Authoring help
// ------------------------------------------------------------------------------------------

pub use crate::authoring::assist::rule_edit::{rule_edit, scalar_style, RuleEdit, ScalarStyle};
pub use crate::authoring::assist::{CompletionItem, Completions, Editor, Hover};

// ------------------------------------------------------------------------------------------
// The door's own functions
// ------------------------------------------------------------------------------------------

/// Compiles the CRD and analyses every object: the one-call form of the engine.
pub fn analyze(request: &Request) -> Analysis {
    analyze_with_time_zones(request, None)
}

/// [`analyze`] with a time-zone database for CEL's named zones.
pub fn analyze_with_time_zones(request: &Request, time_zones: Option<Arc<TimeZoneDb>>) -> Analysis {
    let previous = request
        .old_crd
        .as_deref()
        .map(|t| Rc::new(PreviousCrd::compile(t, &request.options)));
    let mut compiled =
        CompiledCrd::compile(&request.crd, &request.options).with_previous(&request.crd, previous);
    compiled.set_time_zones(time_zones);
    compiled.analyze_objects(&request.objects, request.old_object.as_deref())
}

impl CompiledCrd {
    /// Reads and validates a CRD text. Never fails: problems become findings, with their fixes.
    pub fn compile(text: &str, options: &Options) -> CompiledCrd {
        CompiledCrd::compile_without_fixes(text, options).with_crd_fixes()
    }

    /// Compiles `text` after an edit of the text this CRD was compiled from: the same result
    /// as [`CompiledCrd::compile`], reusing what the edit left as it was (the report stage's
    /// `recompile_without_fixes` says what).
    pub fn recompile(&self, text: &str, options: &Options) -> CompiledCrd {
        self.recompile_without_fixes(text, options).with_crd_fixes()
    }

    fn with_crd_fixes(mut self) -> CompiledCrd {
        let mut findings = std::mem::take(self.findings_mut());
        fixes::add_crd_fixes(&mut findings, self.text(), self.compiled_versions());
        crate::authoring::assist::version_note::add_version_notes(
            &mut findings,
            self.options().kubernetes_version,
        );
        *self.findings_mut() = findings;
        self
    }

    /// Analyses object texts against this CRD. `old_object` switches to the update path.
    pub fn analyze_objects(&self, objects: &[String], old_object: Option<&str>) -> Analysis {
        self.analyze_objects_with_progress(objects, old_object, &mut |_| {})
    }

    /// Like [`CompiledCrd::analyze_objects`], telling `progress` after each object document
    /// (the shells show it and decide whether to go on waiting; the engine keeps no clock).
    pub fn analyze_objects_with_progress(
        &self,
        objects: &[String],
        old_object: Option<&str>,
        progress: &mut dyn FnMut(Progress),
    ) -> Analysis {
        let mut analysis = self.analyze_objects_without_fixes(objects, old_object, progress);
        fixes::add_object_fixes(&mut analysis.findings, objects, self);
        consequences::mark(&mut analysis.findings);
        analysis
    }

    /// Completion items at byte `offset` of `text`, an object text or this CRD's text.
    pub fn complete(&self, editor: Editor, text: &str, offset: usize) -> Option<Completions> {
        assist::complete(self, editor, text, offset)
    }

    /// What to show on hovering byte `offset` of `text`, an object text or this CRD's text.
    pub fn hover(&self, editor: Editor, text: &str, offset: usize) -> Option<Hover> {
        assist::hover(self, editor, text, offset)
    }

    /// [`CompiledCrd::complete`] in an editor's units: `offset` and the items' ranges count
    /// UTF-16 code units, as CodeMirror and the Language Server Protocol do.
    pub fn complete_utf16(&self, editor: Editor, text: &str, offset: usize) -> Option<Completions> {
        assist::editor_units::complete_utf16(self, editor, text, offset)
    }

    /// [`CompiledCrd::hover`] in an editor's units (UTF-16 code units).
    pub fn hover_utf16(&self, editor: Editor, text: &str, offset: usize) -> Option<Hover> {
        assist::editor_units::hover_utf16(self, editor, text, offset)
    }

    /// `kubectl explain` of `path` (`widgets.spec.size`) in version `api_version` (`v1` or
    /// `group/v1`; `None`: the preferred version), or kubectl's error text.
    pub fn explain(
        &self,
        api_version: Option<&str>,
        path: &str,
        recursive: bool,
    ) -> Result<String, String> {
        explain::explain_crd(self, api_version, path, recursive)
    }

    /// A sample object for `version` (`None`: the preferred version): the fields it must
    /// have, or with `all_fields` every field; or why there is none.
    pub fn sample(
        &self,
        version: Option<&str>,
        all_fields: bool,
    ) -> Result<serde_json::Value, String> {
        sample::sample_for(self, version, all_fields)
    }

    /// [`CompiledCrd::sample`], or `Ok(None)` when the sample is longer than `max_bytes` as
    /// compact JSON (decided before the costly part, which a caller showing at most that much
    /// would waste: the page's "All fields" sample of a megabyte CRD).
    pub fn sample_within(
        &self,
        version: Option<&str>,
        all_fields: bool,
        max_bytes: usize,
    ) -> Result<Option<serde_json::Value>, String> {
        sample::sample_within(self, version, all_fields, max_bytes)
    }

    /// The version `kubectl` reads when none is named (`preferred_version`): the served
    /// version of highest priority.
    pub fn preferred_version(&self) -> Option<String> {
        self.internal()
            .and_then(crate::versions::overview::preferred_version)
    }
}

/// The documents of a text (YAML, possibly several, or JSON) as `kubectl` turns them into
/// JSON for the server, and the problems reading it (located findings). For shells that hand
/// documents on as they are (the CLI's `convert`); everything the engine judges comes with the
/// [`Analysis`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Documents {
    /// Each document that has a value: its index in the text (0-based, as YAML counts
    /// documents) and its JSON.
    pub values: Vec<(usize, serde_json::Value)>,
    /// Syntax errors, limits, duplicate keys, YAML 1.1 surprises.
    pub findings: Vec<Finding>,
}

/// Reads the documents of `text` (see [`Documents`]).
pub fn read_documents(text: &str, source: SourceId) -> Documents {
    let parsed = crate::documents::document::parse(text, source);
    Documents {
        values: parsed
            .values()
            .map(|(doc, root)| (doc.index, root.to_json()))
            .collect(),
        findings: parsed.findings,
    }
}

/// Locates findings a shell made about byte ranges of `text` before the engine read it (the
/// CLI's decoding of a file's bytes as kubectl does): each gets its [`Location`] (line,
/// column, UTF-16 column, span, and the document of `text` the range starts in).
pub fn locate_findings(
    text: &str,
    source: SourceId,
    findings: Vec<(std::ops::Range<usize>, Finding)>,
) -> Vec<Finding> {
    if findings.is_empty() {
        return Vec::new();
    }
    let lines = crate::documents::position::LineIndex::new(text);
    let parsed = crate::documents::document::parse(text, source);
    findings
        .into_iter()
        .map(|(range, finding)| {
            let start = lines.pos_at_offset(text, range.start);
            let end = lines.pos_at_offset(text, range.end.max(range.start));
            let document = parsed
                .documents
                .iter()
                .find(|d| {
                    d.span.start.offset <= range.start
                        && range.start < d.span.end.offset.max(d.span.start.offset + 1)
                })
                .map_or(0, |d| d.index);
            finding.at(Location {
                source,
                document,
                span: Span { start, end },
            })
        })
        .collect()
}

impl WebhookCall {
    /// The `ConversionReview` response that would answer this call as a webhook that only
    /// sets each object's `apiVersion` (what the `None` strategy does): the template the
    /// studio offers for writing a response by hand. `None` when no request is sent.
    pub fn response_template(&self) -> Option<serde_json::Value> {
        let request = self.request.as_ref()?;
        let converted: Vec<serde_json::Value> = request
            .objects
            .iter()
            .map(|o| {
                let mut o = o.clone();
                crate::versions::conversion::nop_convert(&mut o, false, &self.target);
                o
            })
            .collect();
        Some(request.success_response(&converted))
    }
}

impl PreviousCrd {
    /// Reads the previous revision's text (compiled as for a create).
    pub fn compile(text: &str, options: &Options) -> PreviousCrd {
        PreviousCrd::new(text, CompiledCrd::compile(text, options))
    }
}

#[cfg(feature = "conformance")]
pub mod conformance;
