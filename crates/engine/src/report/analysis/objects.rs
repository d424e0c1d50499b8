//! The per-object pipeline against a compiled CRD ([`CompiledCrd::analyze_objects`]): each
//! object document decoded, defaulted, pruned, validated (schema and CEL), converted and
//! stored, its findings located and its report filled.

use super::{
    locate_error, location_path, Analysis, CompiledCrd, FieldErrorReport, FieldValidation,
    ObjectNote, ObjectReport, Progress, Span,
};
use crate::documents::document::{self, Node};
use crate::documents::field_error::FieldError;
use crate::documents::finding::{sort_findings, Finding, Location, Severity, SourceId};
use crate::documents::json_text::JsonText;
use crate::documents::path::{locate, FieldPath};
use crate::pipeline::{self, UnknownFields};
use crate::printing::scale::ScaleReport;

impl CompiledCrd {
    /// Analyses object texts against this CRD, telling `progress` after each object document
    /// (the shells show it and decide whether to go on waiting; the engine itself keeps no
    /// clock). `old_object` switches to the update path. Without the findings' fixes: the
    /// front door's `CompiledCrd::analyze_objects` adds them.
    pub(crate) fn analyze_objects_without_fixes(
        &self,
        objects: &[String],
        old_object: Option<&str>,
        progress: &mut dyn FnMut(Progress),
    ) -> Analysis {
        let mut findings = self.findings.clone();
        let mut reports = Vec::new();
        let old = old_object.map(|t| document::parse(t, SourceId::OldObject));
        if let Some(old) = &old {
            findings.extend(old.findings.iter().cloned());
        }
        let old_root = old
            .as_ref()
            .and_then(|o| o.values().next().map(|(_, r)| r.to_json()));
        let mut done = 0;
        let mut stored_effects = Vec::new();
        for (i, text) in objects.iter().enumerate() {
            let parsed = document::parse(text, SourceId::Object(i));
            // Documents known so far, and at least one for each text not read yet.
            let total = done + parsed.values().count() + (objects.len() - i - 1);
            findings.extend(
                parsed
                    .findings
                    .iter()
                    .filter_map(|f| apply_field_validation(f, self.options.field_validation)),
            );
            for (doc, root) in parsed.values() {
                let (report, mut object_findings) =
                    self.analyze_object(i, doc.index, root, old_root.as_ref());
                findings.append(&mut object_findings);
                let create = old_root.is_none().then_some(&report);
                if let Some((effect, mut effect_findings)) =
                    self.stored_effect(i, doc.index, root, create)
                {
                    findings.append(&mut effect_findings);
                    stored_effects.push(effect);
                }
                reports.push(report);
                done += 1;
                progress(Progress { done, total });
            }
        }
        sort_findings(&mut findings);
        Analysis {
            crd: self.report.clone(),
            versions: self.versions.clone(),
            needs_time_zones: reports.iter().any(|r: &ObjectReport| r.needs_time_zones),
            objects: reports,
            findings,
            version_overview: self.version_overview.clone(),
            changes: self.changes.clone(),
            stored_effects,
        }
    }

    pub(super) fn analyze_object(
        &self,
        source: usize,
        document: usize,
        root: &Node,
        old: Option<&serde_json::Value>,
    ) -> (ObjectReport, Vec<Finding>) {
        let mut findings = Vec::new();
        let loc = |span| Location {
            source: SourceId::Object(source),
            document,
            span,
        };
        let api_version = root.get("apiVersion").and_then(Node::as_str).unwrap_or("");
        let kind = root.get("kind").and_then(Node::as_str).unwrap_or("");
        let name = root
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Node::as_str)
            .unwrap_or("");
        let mut report = ObjectReport {
            source,
            document,
            operation: if old.is_some() { "update" } else { "create" }.to_owned(),
            api_version: api_version.to_owned(),
            kind: kind.to_owned(),
            name: name.to_owned(),
            ..ObjectReport::default()
        };
        let json = root.to_json();
        let Some(model) = &self.model else {
            report.object_error =
                Some("there is no readable CRD to check the object against".into());
            return (report, findings);
        };
        if let Some(problem) = model.serves(api_version) {
            let span = root
                .entry("apiVersion")
                .map(|e| e.value.span)
                .unwrap_or(root.span);
            findings.push(Finding::error("object.not-served", problem.clone()).at(loc(span)));
            report.object_error = Some(problem);
            return (report, findings);
        }
        let version_name = api_version.split_once('/').map(|(_, v)| v).unwrap_or("");
        let Some(version) = self.compiled.iter().find(|v| v.name == version_name) else {
            report.object_error = Some(format!("version {version_name:?} is not compiled"));
            return (report, findings);
        };
        let mode = match self.options.field_validation {
            FieldValidation::Strict => UnknownFields::Fail,
            FieldValidation::Warn => UnknownFields::Warn,
            FieldValidation::Ignore => UnknownFields::Ignore,
        };
        let mut out = pipeline::run(
            json,
            old,
            &self.facts,
            &self.compiled,
            version,
            mode,
            self.time_zones.as_deref(),
        );
        // Unknown fields, each at its place in the text.
        if mode != UnknownFields::Ignore {
            for p in &out.pruned_paths {
                let hit = locate(root, &FieldPath::parse(p));
                let severity = if mode == UnknownFields::Fail {
                    Severity::Error
                } else {
                    Severity::Warning
                };
                let mut f = Finding::new(
                    severity,
                    "object.unknown-field",
                    crate::object::objectmeta::unknown_field_message(p),
                )
                .at(loc(hit.span));
                f.field = Some(p.clone());
                findings.push(f);
            }
        }
        if let Some(e) = &out.decode_error {
            if !out.pruned_paths.is_empty() && mode == UnknownFields::Fail {
                // Already reported field by field above.
            } else {
                findings.push(Finding::error("object.decode", e.clone()).at(loc(root.span)));
            }
        }
        // One finding per distinct error text, as the server's message words the list
        // (`ErrorList.ToAggregate` drops repeated texts); the report's `errors` keep every
        // cause, repeats included (an update checks ObjectMeta twice).
        let mut seen: Vec<String> = Vec::new();
        let gate = out.cel_errors.first().filter(|_| out.cel_skipped);
        for e in out.errors() {
            let text = e.error();
            if seen.contains(&text) {
                continue;
            }
            seen.push(text);
            if gate.is_some_and(|g| std::ptr::eq(g, e)) {
                // The CEL gate is about the errors before it, not about a place: a note at
                // the object's first line, marking nothing.
                findings.push(
                    e.to_finding("object.invalid")
                        .with_summary(
                            "the x-kubernetes-validations rules were not run: the server checks them only once the errors above are fixed",
                        )
                        .as_note()
                        .at(loc(Span::point(root.span.start))),
                );
                continue;
            }
            // A rule that did not run (compile error, budget) names the field's type as its
            // value: the summary leaves that out.
            let type_as_value = out.cel_errors.iter().any(|c| std::ptr::eq(c, e))
                && matches!(&e.bad_value, crate::documents::field_error::BadValue::Str(t)
                    if ["string", "integer", "number", "boolean", "object", "array"].contains(&t.as_str()));
            let path = e.field.to_string();
            let summary = if type_as_value {
                e.summary_without_value(&path)
            } else {
                e.summary(&path)
            };
            findings.push(
                locate_error(
                    e,
                    "object.invalid",
                    Some(root),
                    SourceId::Object(source),
                    document,
                    &e.field,
                )
                .with_summary(summary),
            );
        }
        // Studio notes on what the handler and the registry store did before validation.
        if let Some(generated) = &out.generated_name {
            let prefix = root
                .get("metadata")
                .and_then(|m| m.get("generateName"))
                .and_then(Node::as_str)
                .unwrap_or("");
            let hit = locate(root, &FieldPath::parse("metadata.generateName"));
            findings.push(
                Finding::new(
                    Severity::Info,
                    "studio.generated-name",
                    format!(
                        "the server names the object from generateName {}: the prefix{} plus 5 random characters; this analysis validates it as {} (the real name will differ)",
                        crd_studio_gostd::strconv::quote(prefix),
                        if prefix.len() > 58 { " (cut to 58 bytes)" } else { "" },
                        crd_studio_gostd::strconv::quote(generated)
                    ),
                )
                .at(loc(hit.span)),
            );
            report.name = generated.clone();
        }
        if let Some(ns) = &out.cleared_namespace {
            let hit = locate(root, &FieldPath::parse("metadata.namespace"));
            findings.push(
                Finding::new(
                    Severity::Info,
                    "studio.namespace-cleared",
                    format!(
                        "{} is cluster-scoped: the server clears metadata.namespace ({}) before validation and stores the object without one",
                        self.facts.kind,
                        crd_studio_gostd::strconv::quote(ns)
                    ),
                )
                .at(loc(hit.span)),
            );
        }
        // Patterns beyond the studio's regular-expression bounds (a deviation, documented in
        // ARCHITECTURE.md): the values they apply to were not checked against them.
        for text in &out.unevaluated_patterns {
            findings.push(
                Finding::info(
                    "studio.pattern-not-evaluated",
                    format!(
                        "pattern '{text}' was not evaluated on some values of this object: it is beyond CRD Studio's bounds for regular expressions (more states than it compiles for one schema, or a search past its work limit), so those values were not checked against it; the server checks them",
                    ),
                )
                .with_summary(format!(
                    "pattern '{}' was not checked here: too large for CRD Studio to evaluate",
                    crate::documents::field_error::shorten(text, 60)
                ))
                .as_note()
                .at(loc(Span::point(root.span.start))),
            );
        }
        // Ratcheted CEL failures are warnings at their field.
        for e in &out.cel_warnings {
            let path = e.field.to_string();
            let why = "the value is unchanged from the old object, so ratcheting makes the failed rule a warning instead of an error";
            let mut f = locate_error(
                e,
                "object.warning",
                Some(root),
                SourceId::Object(source),
                document,
                &e.field,
            )
            .with_summary(format!("{}; {why}", e.summary_without_value(&path)));
            f.severity = Severity::Warning;
            findings.push(f);
            report.notes.push(ObjectNote {
                code: "object.warning".to_owned(),
                field: path,
                title: "kept by ratcheting".to_owned(),
                message: format!("{why}: {}", e.error()),
            });
        }
        // What the server does quietly: studio notes.
        for f in self.quiet_notes(&out, version_name, root, &loc, &mut report.notes) {
            findings.push(f);
        }
        for w in &out.warnings {
            let ratcheted = out.cel_warnings.iter().any(|e| &e.error() == w);
            if !w.starts_with("unknown field ") && !ratcheted {
                findings.push(Finding::warning("object.warning", w.clone()).at(loc(root.span)));
            }
        }
        let to_report = |e: &FieldError| {
            let hit = locate(root, &location_path(&e.field));
            FieldErrorReport::from_field_error(e, Some(loc(hit.span)))
        };
        report.schema_errors = out.schema_errors.iter().map(to_report).collect();
        report.cel_errors = out.cel_errors.iter().map(to_report).collect();
        report.cel_runtime_cost = out.cel_runtime_cost;
        report.needs_time_zones = out.time_zones_needed;
        report.cel_results = out.cel_results.clone();
        report.errors = out.errors().map(to_report).collect();
        report.accepted = out.decode_error.is_none() && report.errors.is_empty();
        report.pruned_paths = out.pruned_paths.clone();
        report.defaulted_paths = out.defaulted_paths.clone();
        report.warnings = out.warnings.clone();
        // The handler adds a deprecated version's warning to every request, first.
        if let Some(w) = self.deprecation_warning(version_name) {
            let span = root
                .entry("apiVersion")
                .map(|e| e.value.span)
                .unwrap_or(root.span);
            findings.push(Finding::warning("object.deprecated-version", w.clone()).at(loc(span)));
            report.warnings.retain(|x| x != &w);
            report.warnings.insert(0, w);
        }
        report.decode_error = out.decode_error.clone();
        report.pruned = std::mem::take(&mut out.pruned);
        report.defaulted = std::mem::take(&mut out.defaulted);
        let prepared = std::mem::take(&mut out.stored);
        report.table = self.table_row(version_name, &prepared);
        report.prepared = JsonText::from_value(&prepared);
        // What the subresources show of the prepared object, taken before it is freed.
        let status_and_scale = (!prepared.is_null()).then(|| {
            let status = crate::printing::scale::status_facts(
                out.request_status.as_ref(),
                &prepared,
                version.status,
            );
            let own_scale = version
                .scale
                .as_ref()
                .map(|s| crate::printing::scale::scale_of(&prepared, s, &version.name));
            (status, own_scale)
        });
        // --- conversion (owner: conversion.rs) ---
        // The object the write starts from: the prepared object, or (a request the server
        // refuses to decode) the object as decoded, to show what it would have stored.
        let written = if prepared.is_null() {
            report.defaulted.to_value()
        } else {
            prepared
        };
        // What each served version's /scale shows, taken from the object as read in it.
        let mut read_scales: Vec<(String, ScaleReport)> = Vec::new();
        // The write: conversion to the storage version and its pruning.
        if !written.is_null() {
            match crate::versions::conversion::to_storage(self, &written) {
                Ok(p) => {
                    // Only one copy of the object at a time from here on.
                    drop(written);
                    // Studio note: the server drops these silently on write (no warning, no
                    // error); under the None strategy the path names the request's field.
                    for path in &p.pruned_paths {
                        let hit = locate(root, &FieldPath::parse(path));
                        findings.push(
                            Finding::new(
                                Severity::Info,
                                "studio.pruned-on-write",
                                format!(
                                    "{path}: not in the schema of the storage version {}: the server drops it when it stores the object",
                                    p.version
                                ),
                            )
                            .with_field(path.clone())
                            .at(loc(hit.span)),
                        );
                    }
                    // The object as every served version returns it once stored: the
                    // storage round trip (the write, above; then, on read, the storage
                    // version's decoding and defaults, conversion and the read version's
                    // pruning).
                    report.stored = JsonText::from_value(&p.object);
                    report.served_as = crate::versions::conversion::served_from_storage_with(
                        self,
                        &p.version,
                        p.object,
                        &p.pruned_paths,
                        &mut |name, object| {
                            let scale = self
                                .compiled
                                .iter()
                                .find(|v| v.name == name)
                                .and_then(|v| v.scale.as_ref());
                            if let Some(scale) = scale {
                                read_scales.push((
                                    name.to_owned(),
                                    crate::printing::scale::scale_of(object, scale, name),
                                ));
                            }
                        },
                    );
                    report.stored_version = p.version;
                    report.stored_pruned_paths = p.pruned_paths;
                }
                Err(e) => report.stored_note = Some(e),
            }
        }
        if let Some((status, own_scale)) = status_and_scale {
            report.subresources =
                Some(self.subresource_report(version, status, own_scale, &read_scales));
        }
        // --- end conversion ---
        report.places = crate::report::places::place_object(root, &report);
        (report, findings)
    }
}

/// Duplicate keys are strict-decoding problems: an error under `Strict`, a warning (the
/// server's warning text) under `Warn`, nothing under `Ignore`.
fn apply_field_validation(f: &Finding, mode: FieldValidation) -> Option<Finding> {
    if f.code != "yaml.duplicate-key" {
        return Some(f.clone());
    }
    match mode {
        FieldValidation::Strict => Some(f.clone()),
        FieldValidation::Warn => {
            let mut w = f.clone();
            w.severity = Severity::Warning;
            Some(w)
        }
        FieldValidation::Ignore => None,
    }
}
