//! The one place the engine is called: the worker's side of the boundary.
//!
//! The page never calls the engine: it posts a [`crate::worker_protocol::Job`] to the Web
//! Worker (`src/worker.rs`), whose [`Engine`] answers with a [`Reply`]: the [`Analysis`] and
//! the kubectl get and Conversion tabs' [`Previews`]. Every place in the user's texts the
//! views link to (findings, pruned fields, the values CEL rules ran on, rules) is a
//! `Location` in the analysis, found by the engine while it parsed the text: neither the
//! worker nor the page parses YAML or counts columns. Both types are plain serde data.
//!
//! The CRD changes rarely and the object on every keystroke, so each studio's compiled CRD is
//! kept and reused until its CRD text or the options change.

use std::collections::HashMap;

use crd_studio_engine::{
    Analysis, CaseResult, CaseSuite, CaseTexts, CompiledCrd, ConversionPreview,
    FieldSelectorPreview, LeftOut, ListOutput, Options, PreviousCrd, Progress, Request,
    ResponseCheck, Strategy, WebhookCall,
};
use serde::{Deserialize, Serialize};

/// What the page gets back for a [`Request`]: plain data, so it can cross a worker boundary.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reply {
    /// The engine's answer.
    pub analysis: Analysis,
    /// The kubectl get and Conversion tabs' answers to the [`PreviewQuery`].
    pub previews: Previews,
    /// The CRD across Kubernetes versions, when the worker has it for this CRD (else it
    /// follows as its own message: `crate::versions_line`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub versions: Option<crate::versions_line::VersionsLine>,
    /// The Tests tab: each case's result, in the job's order (none without cases).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<CaseResult>,
}

/// What the kubectl get and Conversion tabs ask, beside the texts of the [`Request`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreviewQuery {
    /// `kubectl get --field-selector` text (blank: no selector preview).
    pub field_selector: String,
    /// The conversion target version (empty: the first version the samples are not in).
    pub target: String,
    /// The conversion webhook's response text (blank: not checked).
    pub webhook_response: String,
    /// The authored mapping text (blank: no authored conversion).
    pub mappings: String,
    /// The clock for the table's ages, RFC 3339 (blank or unparsable: ages read `0s`, as
    /// for an object created this instant). The app passes the browser's clock; it is not
    /// saved.
    #[serde(default)]
    pub now: String,
    /// The Explain tab's field path (`spec.replicas`; blank: the resource).
    #[serde(default)]
    pub explain_path: String,
    /// The Explain tab's `--recursive`.
    #[serde(default)]
    pub explain_recursive: bool,
}

/// The engine's answers for the kubectl get and Conversion tabs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Previews {
    /// The field selector over the samples, when a selector was given.
    pub field_selector: Option<FieldSelectorPreview>,
    /// The CRD's conversion strategy (`None` when there is no readable CRD).
    pub strategy: Option<Strategy>,
    /// The target version used (the query's, else a default).
    pub target: String,
    /// The webhook call the server would make for the samples (Webhook strategy).
    pub webhook: Option<WebhookPreview>,
    /// The authored conversion, when mappings were given.
    pub authored: Option<ConversionPreview>,
    /// What `kubectl get -f` prints for the samples.
    pub kubectl_get: Option<String>,
    /// What `kubectl get -f ... -o wide` prints for the samples.
    pub kubectl_get_wide: Option<String>,
    /// The samples without a row in `kubectl get -f`, why, and where.
    #[serde(default)]
    pub kubectl_get_left_out: Vec<LeftOut>,
    /// `kubectl get <resource> --field-selector ...` over the samples, when a selector was
    /// given: normal and `-o wide`.
    #[serde(default)]
    pub kubectl_list: Option<ListOutput>,
    /// The same with `-o wide`.
    #[serde(default)]
    pub kubectl_list_wide: Option<ListOutput>,
    /// kubectl explain for the Explain tab's path.
    #[serde(default)]
    pub explain: Option<crate::explain_model::ExplainPreview>,
    /// The minimal sample object (YAML) for "Generate sample".
    #[serde(default)]
    pub sample: Option<String>,
    /// The sample with every field of the schema (YAML), for "All fields"; none when over
    /// [`crate::explain_model::MAX_ALL_FIELDS_SAMPLE`].
    #[serde(default)]
    pub sample_all_fields: Option<String>,
}

/// The conversion webhook call for the samples, and the server's verdict on the response.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookPreview {
    /// The call the server would make.
    pub call: Option<WebhookCall>,
    /// The server's error before any call (an unknown target version, ...).
    pub error: Option<String>,
    /// The request body as the server sends it, indented.
    pub request_text: Option<String>,
    /// A response a correct webhook could start from: the request's objects with only
    /// `apiVersion` changed (what the None strategy would do), status `Success`.
    pub template: Option<String>,
    /// The server's checks of the query's response text.
    pub check: Option<ResponseCheck>,
}

/// One studio's compiled CRD and the inputs it was compiled from.
struct Compiled {
    crd: String,
    options: Options,
    /// The previous revision's text, and that revision compiled (kept while it stays).
    old_crd: Option<(String, std::rc::Rc<PreviousCrd>)>,
    compiled: CompiledCrd,
    /// The last compile that had schemas, kept while the text does not (a rule being typed
    /// inside an unclosed quote breaks the YAML): completion and hover read it.
    last_schemas: Option<CompiledCrd>,
    /// The Explain tab's and the sample's answer for `compiled`, and what it was asked for
    /// (they depend on the CRD, never on the object's content: an object keystroke reuses
    /// them; the sample's repair alone analyses up to megabytes of candidates).
    explained: Option<(ExplainKey, ExplainAnswer)>,
}

/// What the Explain answer was computed for: the version, the path, `--recursive`, and
/// whether the CRD has an error (a rejected CRD publishes nothing to explain).
type ExplainKey = (Option<String>, String, bool, bool);
/// The Explain preview, the sample's YAML and the all-fields sample's.
type ExplainAnswer = (
    Option<crate::explain_model::ExplainPreview>,
    Option<String>,
    Option<String>,
);

fn has_schemas(c: &CompiledCrd) -> bool {
    c.has_structural_schema()
}

/// The worker's engine: one compiled CRD per studio, reused while the studio's CRD text and
/// options stay the same.
#[derive(Default)]
pub struct Engine {
    studios: HashMap<String, Compiled>,
    /// Each studio's Tests tab cases, read.
    suites: HashMap<String, CaseSuite>,
    /// CEL's time-zone database, once loaded (the worker fetches it when an analysis needs a
    /// named zone).
    time_zones: Option<std::sync::Arc<crd_studio_engine::TimeZoneDb>>,
    /// A compile an edit replaced, dropped after the answer is posted
    /// ([`Engine::drop_retired`]): freeing a big CRD's trees took as long as parsing its
    /// edit again.
    retired: Option<CompiledCrd>,
}

impl Engine {
    /// Analyses `request` for `studio` and answers the preview tabs' `query`.
    pub fn answer(&mut self, studio: &str, request: &Request, query: &PreviewQuery) -> Reply {
        self.answer_known(studio, request, query, false, &mut |_| {})
    }

    /// Like [`Engine::answer`], told whether `request.crd` is known to be the text of the
    /// studio's previous request (the job did not carry a new one): then the texts are not
    /// compared (megabytes, byte by byte, on every object keystroke). `progress` hears after
    /// each object document.
    pub fn answer_known(
        &mut self,
        studio: &str,
        request: &Request,
        query: &PreviewQuery,
        crd_unchanged: bool,
        progress: &mut dyn FnMut(Progress),
    ) -> Reply {
        let entry = self.compiled(studio, request, crd_unchanged);
        let compiled = &entry.compiled;
        let analysis = compiled.analyze_objects_with_progress(
            &request.objects,
            request.old_object.as_deref(),
            progress,
        );
        let mut previews = previews(compiled, &analysis, query);
        let key: ExplainKey = (
            crate::explain_model::object_version(compiled, &analysis),
            query.explain_path.clone(),
            query.explain_recursive,
            compiled
                .findings()
                .iter()
                .any(|f| f.severity == crd_studio_engine::Severity::Error),
        );
        let answer = match &entry.explained {
            Some((k, answer)) if *k == key => answer.clone(),
            _ => {
                let answer =
                    crate::explain_model::answer_for(compiled, key.0.as_deref(), &key.1, key.2);
                entry.explained = Some((key, answer.clone()));
                answer
            }
        };
        (
            previews.explain,
            previews.sample,
            previews.sample_all_fields,
        ) = answer;
        Reply {
            analysis,
            previews,
            versions: None,
            tests: Vec::new(),
        }
    }

    /// Runs the Tests tab's cases against the studio's CRD as last compiled (nothing, and
    /// no cost, without cases); the cases are read again only when they change.
    pub fn run_tests(&mut self, studio: &str, tests: &[CaseTexts]) -> Vec<CaseResult> {
        if tests.is_empty() {
            self.suites.remove(studio);
            return Vec::new();
        }
        let Some(c) = self.studios.get(studio) else {
            return Vec::new();
        };
        let suite = self
            .suites
            .entry(studio.to_owned())
            .or_insert_with(|| CaseSuite::new(tests));
        if suite.cases() != tests {
            *suite = CaseSuite::new(tests);
        }
        suite.run(&c.compiled)
    }

    /// Gives the engine CEL's time-zone database: every compiled CRD resolves named zones
    /// from now on.
    pub fn set_time_zones(&mut self, db: std::sync::Arc<crd_studio_engine::TimeZoneDb>) {
        for c in self.studios.values_mut() {
            c.compiled.set_time_zones(Some(db.clone()));
            // The sample's repair may run rules that name a zone.
            c.explained = None;
        }
        self.time_zones = Some(db);
    }

    /// Whether the time-zone database is loaded.
    pub fn has_time_zones(&self) -> bool {
        self.time_zones.is_some()
    }

    /// The studio's compiled CRD, once it has one.
    pub fn compiled_crd(&self, studio: &str) -> Option<&CompiledCrd> {
        self.studios.get(studio).map(|c| &c.compiled)
    }

    /// Drops a studio's compiled CRD.
    pub fn forget(&mut self, studio: &str) {
        self.studios.remove(studio);
        self.suites.remove(studio);
    }

    /// Answers a completion or hover request with the studio's compiled CRD (the last one
    /// analysed; before any, the CRD editor's own text compiled).
    pub fn assist(&self, request: &crate::assist::AssistRequest) -> crate::assist::AssistAnswer {
        use crate::assist::AssistKind;
        let help = matches!(request.kind, AssistKind::Complete | AssistKind::Hover);
        match self.studios.get(&request.studio) {
            // The tests use the CRD as it is now, even while its text is broken.
            Some(c) if !help => crate::assist::answer(&c.compiled, request),
            Some(c) => {
                crate::assist::answer(c.last_schemas.as_ref().unwrap_or(&c.compiled), request)
            }
            None if request.kind == AssistKind::ReadTests => {
                crate::assist::answer(&CompiledCrd::compile("", &Options::default()), request)
            }
            None => {
                let text = match request.editor {
                    crd_studio_engine::Editor::Crd => request.text.as_str(),
                    crd_studio_engine::Editor::Object => "",
                };
                let compiled = CompiledCrd::compile(text, &Options::default());
                crate::assist::answer(&compiled, request)
            }
        }
    }

    /// Whether a replaced compile waits to be dropped ([`Engine::drop_retired`]).
    pub fn has_retired(&self) -> bool {
        self.retired.is_some()
    }

    /// Drops the compile the last edit replaced: the worker calls it when idle, after
    /// posting the answer, so the keystroke's answer never waits for it.
    pub fn drop_retired(&mut self) {
        self.retired = None;
    }

    /// How many studios have a compiled CRD.
    pub fn studios(&self) -> usize {
        self.studios.len()
    }

    /// The studio's compiled CRD (`crd_unchanged`: the caller knows the text is the previous
    /// request's), compiled again only when the CRD text or the options differ
    /// from the previous request's, then from the previous compile
    /// ([`CompiledCrd::recompile`]: an edit that leaves the CRD's content as it was reuses
    /// its schema work).
    fn compiled(&mut self, studio: &str, request: &Request, crd_unchanged: bool) -> &mut Compiled {
        let time_zones = self.time_zones.clone();
        let retired = &mut self.retired;
        let entry = self.studios.entry(studio.to_owned()).or_insert_with(|| {
            let mut compiled = CompiledCrd::compile(&request.crd, &request.options);
            compiled.set_time_zones(time_zones.clone());
            Compiled {
                crd: request.crd.clone(),
                options: request.options.clone(),
                old_crd: None,
                compiled,
                last_schemas: None,
                explained: None,
            }
        });
        let options_changed = entry.options != request.options;
        let old_changed = entry.old_crd.as_ref().map(|(t, _)| t) != request.old_crd.as_ref();
        if (!crd_unchanged && entry.crd != request.crd) || options_changed || old_changed {
            // The previous revision is compiled again only when its text or the options
            // change; the new one is recompiled (its content work reused) and checked as an
            // update of it.
            if options_changed || old_changed {
                entry.old_crd = request.old_crd.as_ref().map(|t| {
                    (
                        t.clone(),
                        std::rc::Rc::new(PreviousCrd::compile(t, &request.options)),
                    )
                });
            }
            let previous_crd = entry.old_crd.as_ref().map(|(_, p)| p.clone());
            let mut next = entry
                .compiled
                .recompile(&request.crd, &request.options)
                .with_previous(&request.crd, previous_crd);
            next.set_time_zones(time_zones);
            // The last compile with schemas answers completion while the CRD text is broken.
            // What is replaced is dropped later (`retired`; one at a time: an older one is
            // dropped now, when the worker had no idle moment since, and so is a text
            // without schemas replaced while one with schemas was kept).
            let previous = std::mem::replace(&mut entry.compiled, next);
            let replaced = if has_schemas(&entry.compiled) {
                // The compile kept for completion is the big one (the replaced one then had
                // no schemas).
                entry.last_schemas.take().or(Some(previous))
            } else if has_schemas(&previous) {
                entry.last_schemas.replace(previous)
            } else {
                Some(previous)
            };
            if replaced.is_some() {
                *retired = replaced;
            }
            entry.crd = request.crd.clone();
            entry.options = request.options.clone();
            // Explain and the samples depend only on the CRD's content (and Explain on whether
            // the CRD has an error: in the key): an edit that left the content as it was (a
            // comment, the layout, an unknown top-level field) keeps them (the all-fields
            // sample of a big CRD costs tens of milliseconds per keystroke).
            if options_changed || !entry.compiled.content_reused() {
                entry.explained = None;
            }
        }
        entry
    }
}

/// Analyses a request with a fresh engine (tests, and callers without a worker).
pub fn answer(request: &Request) -> Reply {
    answer_with(request, &PreviewQuery::default())
}

/// Analyses a request and answers the preview tabs' query with a fresh engine.
pub fn answer_with(request: &Request, query: &PreviewQuery) -> Reply {
    Engine::default().answer("", request, query)
}

/// The target version: the query's when it names a version of the CRD, else the first
/// version (in the CRD's order) that some stored sample is not in, else the first version.
fn target_version(analysis: &Analysis, wanted: &str) -> String {
    let names: Vec<&str> = analysis.versions.iter().map(|v| v.name.as_str()).collect();
    if names.contains(&wanted) {
        return wanted.to_owned();
    }
    let sample_versions: Vec<&str> = analysis
        .objects
        .iter()
        .filter(|o| o.accepted && !o.prepared.is_null())
        .filter_map(|o| o.api_version.rsplit('/').next())
        .collect();
    names
        .iter()
        .find(|n| !sample_versions.contains(n))
        .or(names.first())
        .map(|n| (*n).to_owned())
        .unwrap_or_default()
}

fn previews(crd: &CompiledCrd, analysis: &Analysis, query: &PreviewQuery) -> Previews {
    let mut out = Previews {
        target: target_version(analysis, &query.target),
        ..Previews::default()
    };
    let Some(facts) = crd.facts() else {
        return out;
    };
    // Without a clock there are no ages to print (the app always passes the browser's).
    if let Ok(now) = crd_studio_engine::Time::parse_rfc3339(query.now.trim()) {
        let print = |wide: bool| {
            let options = crd_studio_engine::PrintOptions {
                wide,
                ..Default::default()
            };
            crd_studio_engine::kubectl_get_objects(crd, analysis, now, options)
        };
        let normal = print(false);
        out.kubectl_get_left_out = normal.left_out;
        out.kubectl_get = (!normal.text.is_empty()).then_some(normal.text);
        out.kubectl_get_wide = Some(print(true).text).filter(|t| !t.is_empty());
        if !query.field_selector.trim().is_empty() {
            let list = |wide: bool| {
                let options = crd_studio_engine::PrintOptions {
                    wide,
                    ..Default::default()
                };
                crd_studio_engine::kubectl_get_list(
                    crd,
                    analysis,
                    &query.field_selector,
                    now,
                    options,
                )
            };
            let normal = list(false);
            out.field_selector = Some(normal.preview.clone());
            out.kubectl_list = Some(normal);
            out.kubectl_list_wide = Some(list(true));
        }
    }
    if out.field_selector.is_none() && !query.field_selector.trim().is_empty() {
        out.field_selector = Some(crd.select_fields(analysis, "", &query.field_selector));
    }
    let strategy = facts.strategy;
    if matches!(strategy, Strategy::Webhook { .. }) && !out.target.is_empty() {
        let objects: Vec<serde_json::Value> = analysis
            .objects
            .iter()
            .filter(|o| o.accepted && !o.prepared.is_null())
            .map(|o| o.prepared.to_value())
            .collect();
        let call = crd_studio_engine::conversion_review(crd, &objects, &out.target, None);
        let request = call.as_ref().ok().and_then(|c| c.request.as_ref());
        let request_text = request.map(|r| r.pretty());
        let template = call
            .as_ref()
            .ok()
            .and_then(|c| c.response_template())
            .and_then(|t| serde_json::to_string_pretty(&t).ok());
        let check = match &call {
            Ok(c) if !query.webhook_response.trim().is_empty() => Some(
                crd_studio_engine::check_conversion_response(crd, c, &query.webhook_response),
            ),
            _ => None,
        };
        let (call, error) = match call {
            Ok(c) => (Some(c), None),
            Err(e) => (None, Some(e)),
        };
        out.webhook = Some(WebhookPreview {
            call,
            error,
            request_text,
            template,
            check,
        });
    }
    out.strategy = Some(strategy);
    if !query.mappings.trim().is_empty() && !out.target.is_empty() {
        out.authored = Some(crd.authored_conversion(
            analysis,
            std::slice::from_ref(&query.mappings),
            &out.target,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view_model::{EXAMPLE_CRD, EXAMPLE_OBJECT};

    #[test]
    fn cached_result_equals_a_fresh_analysis() {
        let mut engine = Engine::default();
        let mut request = Request {
            crd: EXAMPLE_CRD.to_owned(),
            objects: vec![EXAMPLE_OBJECT.to_owned()],
            ..Request::default()
        };
        let q = PreviewQuery::default();
        let fresh = |r: &Request| crd_studio_engine::analyze(r);
        assert_eq!(engine.answer("a", &request, &q).analysis, fresh(&request));
        // Same CRD, new object: the cached CRD is reused.
        request.objects = vec!["kind: [".to_owned()];
        assert_eq!(engine.answer("a", &request, &q).analysis, fresh(&request));
        // New CRD: recompiled.
        request.crd = "kind: [".to_owned();
        assert_eq!(engine.answer("a", &request, &q).analysis, fresh(&request));
        assert_eq!(
            engine.studios.get("a").map(|c| c.crd.as_str()),
            Some("kind: [")
        );
    }

    /// The Previous CRD: its answers equal a fresh analysis's while the CRD, the objects and
    /// the previous text change one at a time, and back to a create without it.
    #[test]
    fn previous_crd_answers_equal_a_fresh_analysis() {
        let mut engine = Engine::default();
        let q = PreviewQuery::default();
        let fresh = |r: &Request| crd_studio_engine::analyze(r);
        let mut request = Request {
            crd: EXAMPLE_CRD.to_owned(),
            objects: vec![EXAMPLE_OBJECT.to_owned()],
            old_crd: Some(EXAMPLE_CRD.replace("scope: Namespaced", "scope: Cluster")),
            ..Request::default()
        };
        let a = engine.answer("a", &request, &q).analysis;
        assert_eq!(a, fresh(&request));
        assert_eq!(a.crd.operation, "update");
        assert!(
            !a.crd.accepted,
            "the scope of an established CRD is immutable"
        );
        assert_eq!(a.stored_effects.len(), 1);
        request.objects = vec![EXAMPLE_OBJECT.replace("my-awesome-cron-image", "x")];
        assert_eq!(engine.answer("a", &request, &q).analysis, fresh(&request));
        request.old_crd = Some(EXAMPLE_CRD.to_owned());
        let a = engine.answer("a", &request, &q).analysis;
        assert_eq!(a, fresh(&request));
        assert!(a.crd.accepted);
        request.crd = EXAMPLE_CRD.replace("scope: Namespaced", "scope: Cluster");
        assert_eq!(engine.answer("a", &request, &q).analysis, fresh(&request));
        request.old_crd = None;
        let a = engine.answer("a", &request, &q).analysis;
        assert_eq!(a, fresh(&request));
        assert_eq!(a.crd.operation, "create");
        assert!(a.stored_effects.is_empty());
    }

    /// A job without a new CRD text reuses the compiled CRD without comparing texts, and
    /// answers as a full request does; options still count.
    #[test]
    fn a_known_unchanged_crd_is_not_compared_but_options_are() {
        let mut engine = Engine::default();
        let q = PreviewQuery::default();
        let mut request = Request {
            crd: EXAMPLE_CRD.to_owned(),
            objects: vec![EXAMPLE_OBJECT.to_owned()],
            ..Request::default()
        };
        engine.answer("s", &request, &q);
        request.objects = vec![format!("{EXAMPLE_OBJECT}extra: 1\n")];
        assert_eq!(
            engine
                .answer_known("s", &request, &q, true, &mut |_| {})
                .analysis,
            crd_studio_engine::analyze(&request)
        );
        request.options.field_validation = crd_studio_engine::FieldValidation::Ignore;
        assert_eq!(
            engine
                .answer_known("s", &request, &q, true, &mut |_| {})
                .analysis,
            crd_studio_engine::analyze(&request)
        );
    }

    /// The Explain tab's and the sample's answer is kept while the CRD stays: after object
    /// edits (one that changes the object's version among them) and query changes, the whole
    /// reply equals a fresh engine's.
    #[test]
    fn kept_explain_and_sample_equal_a_fresh_answer() {
        let mut engine = Engine::default();
        let mut request = Request {
            crd: EXAMPLE_CRD.to_owned(),
            objects: vec![EXAMPLE_OBJECT.to_owned()],
            ..Request::default()
        };
        let mut q = PreviewQuery::default();
        let check = |engine: &mut Engine, request: &Request, q: &PreviewQuery| {
            let kept = engine.answer_known("s", request, q, true, &mut |_| {});
            assert_eq!(kept, answer_with(request, q));
            kept
        };
        engine.answer("s", &request, &q);
        let first = check(&mut engine, &request, &q);
        assert!(first.previews.sample.is_some());
        request.objects = vec![format!("{EXAMPLE_OBJECT}extra: 1\n")];
        check(&mut engine, &request, &q);
        request.objects = vec![EXAMPLE_OBJECT.replace("/v1", "/v9")];
        check(&mut engine, &request, &q);
        q.explain_path = "spec".to_owned();
        check(&mut engine, &request, &q);
        q.explain_recursive = true;
        check(&mut engine, &request, &q);
        // CRD edits that leave its content (kept) and that change it (computed again).
        for crd in [
            format!("# a comment\n{EXAMPLE_CRD}"),
            format!("{EXAMPLE_CRD}unknownTopLevel: 1\n"),
            EXAMPLE_CRD.replace("cronSpec", "cronSpek"),
            format!("{EXAMPLE_CRD}unknownTopLevel: 1\n"),
            EXAMPLE_CRD.to_owned(),
        ] {
            request.crd = crd;
            let reply = engine.answer("s", &request, &q);
            assert_eq!(reply, answer_with(&request, &q), "{}", request.crd);
        }
        request.crd = format!("# again\n{EXAMPLE_CRD}");
        engine.answer("s", &request, &q);
        let entry = engine.studios.get("s");
        assert!(entry.is_some_and(|c| c.compiled.content_reused() && c.explained.is_some()));
    }

    #[test]
    fn a_replaced_compile_waits_to_be_dropped_and_answers_stay_the_same() {
        let mut engine = Engine::default();
        let q = PreviewQuery::default();
        let request = |crd: String| Request {
            crd,
            objects: vec![EXAMPLE_OBJECT.to_owned()],
            ..Request::default()
        };
        let edited = format!("zz: 1\n{EXAMPLE_CRD}");
        // (CRD text, whether a compile is retired after answering it)
        let steps = [
            (EXAMPLE_CRD.to_owned(), false),
            (edited.clone(), true),
            // Broken: the compile it replaced is kept for completion, nothing retired.
            ("kind: [".to_owned(), false),
            // Fixed: both the broken compile and the one kept for completion go.
            (edited, true),
        ];
        for (crd, retired) in steps {
            let r = request(crd);
            let reply = engine.answer("s", &r, &q);
            assert_eq!(engine.has_retired(), retired, "{}", r.crd);
            assert_eq!(reply, answer(&r), "{}", r.crd);
            engine.drop_retired();
            assert!(!engine.has_retired());
        }
    }

    #[test]
    fn studios_keep_their_own_compiled_crd() {
        let mut engine = Engine::default();
        let q = PreviewQuery::default();
        let example = Request {
            crd: EXAMPLE_CRD.to_owned(),
            objects: vec![EXAMPLE_OBJECT.to_owned()],
            ..Request::default()
        };
        let broken = Request {
            crd: "kind: [".to_owned(),
            objects: vec![EXAMPLE_OBJECT.to_owned()],
            ..Request::default()
        };
        for _ in 0..2 {
            assert!(engine.answer("one", &example, &q).analysis.crd.accepted);
            assert!(!engine.answer("two", &broken, &q).analysis.crd.accepted);
        }
        assert_eq!(engine.studios(), 2);
        engine.forget("one");
        assert_eq!(engine.studios(), 1);
    }
}
