//! Compiling a CRD text ([`CompiledCrd::compile`]) and recompiling it after an edit
//! ([`CompiledCrd::recompile`]): parsing, the typed and internal models, CRD validation,
//! the compiled versions and their rules, and what is kept between edits ([`ContentMemo`]).

use std::rc::Rc;
use std::sync::Arc;

use super::version_reuse;
use super::{
    locate_error, CompiledCrd, CrdReport, FieldErrorReport, FieldValidation, Options, VersionReport,
};
use crate::crd;
use crate::crd::apiext::{self, InternalCrd};
use crate::documents::document::{self, Node, ParsedText, Value};
use crate::documents::field_error::FieldError;
use crate::documents::finding::{sort_findings, Finding, Location, Severity, SourceId};
use crate::documents::kube_version::{FeatureGate, KubernetesVersion};
use crate::documents::path::{locate, FieldPath};
use crate::pipeline::LazyValidator;
use crate::pipeline::{self, CompiledVersion, CrdFacts};
use crate::schema::Structural;

/// Everything [`CompiledCrd::compile`] derives from the content of the CRD (its v1 JSON
/// without unknown top-level fields) and the Kubernetes version alone, never from positions
/// in the text: kept so that [`CompiledCrd::recompile`] reuses it when an edit leaves that
/// content as it was.
#[derive(Debug)]
pub(super) struct ContentMemo {
    /// The parsed text whose first document is the CRD this content is of (the compile's
    /// own, shared): a recompile compares its tree with the new one, only where the edit
    /// changed it when the new text was parsed from this one ([`document::reparse_tracked`]).
    parsed: Rc<ParsedText>,
    /// The CRD document's v1 JSON, when the compile built it (not when it reused the
    /// content) and kept it (not after a compile for one use,
    /// [`CompiledCrd::compile_once_without_fixes`]: a large CRD's is several times its text).
    pub(super) v1: Option<serde_json::Value>,
    /// Whether `v1` holds a float `-0.0` (see [`same_decoded`]).
    negative_zero: bool,
    /// [`Options::kubernetes_version`].
    kubernetes_version: KubernetesVersion,
    /// How many of `problems` are [`apiext::internal::root_key_problems`] of `v1`.
    root_problems: usize,
    /// `from_v1_json(v1)`'s problems.
    problems: Vec<apiext::DecodeProblem>,
    /// CRD validation's errors.
    pub(super) errors: Vec<FieldError>,
    /// The warnings on create ([`apiext::warnings_on_create`]).
    warnings: Vec<String>,
    /// The rule compiler's results during CRD validation.
    pub(super) cel_records: crate::cel::rules_view::CompileRecords,
    /// The CEL checks of defaults during CRD validation.
    defaults_records: Rc<version_reuse::DefaultsRecords>,
    /// The version reports as [`version_reports`] builds them (rules placed in the text of
    /// that compile; no columns, no cost), and each rule's steps.
    versions: Vec<VersionReport>,
    rule_steps: Vec<crate::cel::rules_view::RuleSteps>,
    /// The cost analyses of the versions' schemas.
    costs: crate::cel::cost_explain::SchemaCosts,
    /// The version overview.
    version_overview: Option<crate::versions::VersionOverview>,
    /// The internal CRD.
    pub(super) internal: Rc<InternalCrd>,
    /// The compiled versions.
    compiled: Rc<Vec<CompiledVersion>>,
}

/// Whether two values are the same wherever they were written: equal scalars (a float to
/// the bit), the same keys in the same order. Then their JSON is the same, to the bit.
fn same_node(a: &Node, b: &Node) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        match (&a.value, &b.value) {
            (Value::Null, Value::Null) => {}
            (Value::Bool(x), Value::Bool(y)) if x == y => {}
            (Value::Int(x), Value::Int(y)) if x == y => {}
            (Value::Float(x), Value::Float(y)) if x.to_bits() == y.to_bits() => {}
            (Value::String(x), Value::String(y)) if x == y => {}
            (Value::Seq(x), Value::Seq(y)) if x.len() == y.len() => stack.extend(x.iter().zip(y)),
            (Value::Map(x), Value::Map(y)) if x.len() == y.len() => {
                for (x, y) in x.iter().zip(y) {
                    if x.key != y.key {
                        return false;
                    }
                    stack.push((&x.value, &y.value));
                }
            }
            _ => return false,
        }
    }
    true
}

/// The node reached from `node` by `path` (entry or item indices).
fn descend<'a>(mut node: &'a Node, path: &[usize]) -> Option<&'a Node> {
    for &i in path {
        node = match &node.value {
            Value::Map(entries) => &entries.get(i)?.value,
            Value::Seq(items) => items.get(i)?,
            _ => return None,
        };
    }
    Some(node)
}

/// Whether two CRD documents have the same content for [`apiext::from_v1_json`] (the same
/// known top-level fields, [`apiext::internal::V1_ROOT_KEYS`]; only the unknown ones may
/// differ: they give `from_v1_json`'s first problems and nothing else), by [`same_node`].
/// With `change`, `new` was parsed from `old` by [`document::reparse_tracked`], and only
/// what it parsed again is compared: the rest is `old`'s.
fn same_crd_content(old: &Node, new: &Node, change: Option<&document::Change>) -> bool {
    let (Some(old_entries), Some(new_entries)) = (old.as_map(), new.as_map()) else {
        return false;
    };
    let known = |k: &str| apiext::internal::V1_ROOT_KEYS.contains(&k);
    match change {
        Some(c) => match c.path.split_first() {
            // Inside one top-level entry: only the mapping's entries parsed again.
            Some((&top, rest)) => {
                let (Some(o), Some(n)) = (old_entries.get(top), new_entries.get(top)) else {
                    return false;
                };
                if o.key != n.key {
                    return false;
                }
                if !known(&o.key) {
                    return true;
                }
                let (Some(om), Some(nm)) = (descend(&o.value, rest), descend(&n.value, rest))
                else {
                    return false;
                };
                match (
                    om.as_map().and_then(|e| e.get(c.old.clone())),
                    nm.as_map().and_then(|e| e.get(c.new.clone())),
                ) {
                    (Some(a), Some(b)) => {
                        a.len() == b.len()
                            && a.iter()
                                .zip(b)
                                .all(|(x, y)| x.key == y.key && same_node(&x.value, &y.value))
                    }
                    _ => false,
                }
            }
            // Top-level entries: a known field outside the ranges is the old entry (keys are
            // unique in both).
            None => apiext::internal::V1_ROOT_KEYS.iter().all(|k| {
                let o = old_entries.iter().position(|e| e.key == *k);
                let n = new_entries.iter().position(|e| e.key == *k);
                match (o, n) {
                    (None, None) => true,
                    (Some(i), Some(j)) => {
                        (!c.old.contains(&i) && !c.new.contains(&j))
                            || old_entries
                                .get(i)
                                .zip(new_entries.get(j))
                                .is_some_and(|(x, y)| same_node(&x.value, &y.value))
                    }
                    _ => false,
                }
            }),
        },
        None => apiext::internal::V1_ROOT_KEYS
            .iter()
            .all(|k| match (old.get(k), new.get(k)) {
                (None, None) => true,
                (Some(x), Some(y)) => same_node(x, y),
                _ => false,
            }),
    }
}

/// The first document's root of a parsed text.
fn first_root(parsed: &ParsedText) -> Option<&Node> {
    parsed.values().next().map(|(_, r)| r)
}

/// The top-level keys of a document as a JSON object (`null` values): what
/// [`apiext::internal::root_key_problems`] reads.
fn root_keys(root: &Node) -> serde_json::Value {
    serde_json::Value::Object(
        root.as_map()
            .unwrap_or_default()
            .iter()
            .map(|e| (e.key.clone(), serde_json::Value::Null))
            .collect(),
    )
}

/// Whether a node holds a float `-0.0` anywhere (see [`has_negative_zero`]).
fn node_has_negative_zero(node: &Node) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match &n.value {
            Value::Float(f) if *f == 0.0 && f.is_sign_negative() => return true,
            Value::Seq(items) => stack.extend(items),
            Value::Map(entries) => stack.extend(entries.iter().map(|e| &e.value)),
            _ => {}
        }
    }
    false
}

/// Whether the v1 JSON holds a float `-0.0` anywhere (`==` takes it for `0.0`; the server's
/// messages do not).
fn has_negative_zero(v: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            J::Number(n) => {
                if n.as_f64().is_some_and(|f| f == 0.0 && f.is_sign_negative()) {
                    return true;
                }
            }
            J::Array(items) => stack.extend(items),
            J::Object(map) => stack.extend(map.values()),
            J::Null | J::Bool(_) | J::String(_) => {}
        }
    }
    false
}

/// Whether `icrd`, decoded from the document `root` (with [`drop_disabled_fields`]), is the
/// internal CRD of `memo` to the bit, so that everything [`ContentMemo`] keeps (a function of
/// the internal CRD and the Kubernetes version; the version overview also reads `status` from
/// the v1 JSON) holds for it too. The texts' v1 JSON differ only in what the decoder drops:
/// unknown fields anywhere, `null` for an absent field. Floats compare by `==`, so neither
/// side may hold a `-0.0` (the caller checks `root`'s).
fn same_decoded(memo: &ContentMemo, icrd: &InternalCrd, root: &Node) -> bool {
    *memo.internal == *icrd
        && first_root(&memo.parsed).is_some_and(|old| {
            match (old.get("status"), root.get("status")) {
                (None, None) => true,
                (Some(a), Some(b)) => same_node(a, b),
                _ => false,
            }
        })
        && !memo.negative_zero
}

/// The CRD strategy's `dropDisabledFields` on create: with `CustomResourceFieldSelectors`
/// off (1.30's default), `selectableFields` are dropped before validation.
fn drop_disabled_fields(crd: &mut InternalCrd, kube: KubernetesVersion) {
    if !FeatureGate::CustomResourceFieldSelectors.enabled_in(kube) {
        crd.spec.selectable_fields.clear();
        for v in &mut crd.spec.versions {
            v.selectable_fields.clear();
        }
    }
}

/// An info finding at each `selectableFields` the server drops at `kube` (its feature gate
/// is off by default there).
fn gate_notes(root: &Node, document: usize, kube: KubernetesVersion, findings: &mut Vec<Finding>) {
    let mut paths = vec![FieldPath::parse("spec.selectableFields")];
    let count = root
        .get("spec")
        .and_then(|s| s.get("versions"))
        .and_then(|v| v.as_seq())
        .map_or(0, |s| s.len());
    for i in 0..count {
        paths.push(FieldPath::parse(&format!(
            "spec.versions[{i}].selectableFields"
        )));
    }
    for path in paths {
        let hit = locate(root, &path);
        if !hit.exact {
            continue;
        }
        let mut f = Finding::new(
            Severity::Info,
            "crd.feature-gate-off",
            format!(
                "selectableFields is dropped on create: the {} feature gate is off by default in Kubernetes {kube}",
                FeatureGate::CustomResourceFieldSelectors.name()
            ),
        )
        .at(Location {
            source: SourceId::Crd,
            document,
            span: hit.span,
        });
        f.field = Some(path.to_string());
        findings.push(f);
    }
}

/// The compiled versions of an internal CRD: schema (per version or shared), structural
/// form (from `cache`, where CRD validation left it), validator, subresources.
///
/// With the previous content's CRD and compiled versions (same Kubernetes version), a version
/// whose schema is the same as the previous one at its index keeps that one's compiled rules
/// and validator: an edit inside one version's schema compiles that version's only.
fn compile_versions<'a>(
    crd: &'a Rc<InternalCrd>,
    kube: KubernetesVersion,
    cache: &apiext::StructuralCache<'a>,
    previous: Option<(&InternalCrd, &[CompiledVersion])>,
    programs: &crate::cel::validator::ProgramMemo,
) -> Vec<CompiledVersion> {
    let vopts = crate::object::validation::Options {
        compatibility_version: kube.compatibility(),
    };
    // The rules are compiled once per schema (versions may share one), with the
    // stored-expressions environment, as the custom-resource strategy does.
    let compiler = crate::cel::RuleCompiler::new(kube);
    let mut rule_validators: Vec<(Arc<Structural>, Rc<crate::cel::validator::Validator>)> =
        Vec::new();
    crd.spec
        .versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let props = version_reuse::version_schema(crd, i).map(|(s, _)| s);
            let structural = props.and_then(|p| cache.get(p).ok());
            let subresources = v.subresources.as_ref().or(crd.spec.subresources.as_ref());
            let kept = previous
                .filter(|(old, _)| {
                    props.is_some()
                        && version_reuse::version_schema(old, i).map(|(s, _)| s) == props
                })
                .and_then(|(_, compiled)| compiled.get(i));
            let cel = structural.as_ref().and_then(|s| {
                if let Some((_, v)) = rule_validators.iter().find(|(k, _)| Arc::ptr_eq(k, s)) {
                    return Some(v.clone());
                }
                if let Some(kept) = kept {
                    let v = kept.cel.clone()?;
                    rule_validators.push((s.clone(), v.clone()));
                    return Some(v);
                }
                let v = Rc::new(crate::cel::validator::Validator::with_memo(
                    &compiler,
                    programs,
                    s.clone(),
                    true,
                    crate::cel::validator::PER_CALL_LIMIT,
                )?);
                rule_validators.push((s.clone(), v.clone()));
                Some(v)
            });
            CompiledVersion {
                cel,
                name: v.name.clone(),
                served: v.served,
                storage: v.storage,
                deprecated: v.deprecated,
                deprecation_warning: v.deprecation_warning.clone(),
                // Built on first use (a CRD checked alone never builds it); a kept one is
                // shared once built.
                validator: match kept.and_then(|k| k.validator.built()) {
                    Some(built) => LazyValidator::ready(built.clone()),
                    None => LazyValidator::new(
                        Rc::clone(crd),
                        i,
                        |crd, i| version_reuse::version_schema(crd, i).map(|(s, _)| s),
                        vopts,
                    ),
                },
                has_rules: structural.as_deref().is_some_and(has_rules),
                has_defaults: structural.as_deref().is_some_and(pipeline::has_defaults),
                structural,
                status: subresources.is_some_and(|s| s.status),
                scale: subresources.and_then(|s| s.scale.clone()),
            }
        })
        .collect()
}

/// Whether a structural schema has any `x-kubernetes-validations` rule (`hasXValidations`).
fn has_rules(s: &Structural) -> bool {
    let mut stack = vec![s];
    while let Some(s) = stack.pop() {
        if !s.x_validations.is_empty() {
            return true;
        }
        stack.extend(s.properties.values().map(Box::as_ref));
        stack.extend(s.items.as_deref());
        stack.extend(s.additional_properties_schema());
    }
    false
}

/// The version reports of an internal CRD, each with the rules of its schema.
fn version_reports(
    c: &InternalCrd,
    text: &str,
    parsed: &ParsedText,
    errors: &[FieldError],
    records: &crate::cel::rules_view::CompileRecords,
) -> (Vec<VersionReport>, Vec<crate::cel::rules_view::RuleSteps>) {
    use crate::cel::rules_view;
    let first = parsed.values().next();
    let input = rules_view::RulesInput {
        text,
        root: first.map(|(_, r)| r),
        document: first.map_or(0, |(d, _)| d.index),
        records,
    };
    let by_path = rules_view::errors_by_path(errors);
    let shared = c.spec.validation.is_some();
    c.spec
        .versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let schema_path = if shared {
                "spec.validation.openAPIV3Schema".to_owned()
            } else {
                format!("spec.versions[{i}].schema.openAPIV3Schema")
            };
            let schema = v
                .schema
                .as_ref()
                .or(c.spec.validation.as_ref())
                .and_then(|s| s.open_api_v3_schema.as_deref());
            let (rules, steps) = schema
                .map(|s| rules_view::version_rules_with_steps(&input, &by_path, s, i, &schema_path))
                .unwrap_or_default();
            let report = VersionReport {
                name: v.name.clone(),
                served: v.served,
                storage: v.storage,
                columns: Vec::new(),
                has_schema: shared
                    || v.schema
                        .as_ref()
                        .is_some_and(|s| s.open_api_v3_schema.is_some()),
                schema_path,
                rules,
                cost: None,
            };
            (report, steps)
        })
        .unzip()
}

impl CompiledCrd {
    /// Reads and validates a CRD text. Never fails: problems become findings. Without the
    /// findings' fixes: the front door's `CompiledCrd::compile` adds them.
    pub(crate) fn compile_without_fixes(text: &str, options: &Options) -> CompiledCrd {
        CompiledCrd::compile_with(text, options, None, None, None, true, None)
    }

    /// [`CompiledCrd::compile_without_fixes`] for a compile that is never recompiled (the
    /// CLI's): the same result, without keeping the CRD's v1 JSON for a recompile's
    /// comparison (what needs it later builds it again from the parsed text), and keeping
    /// the given text itself (no copy).
    pub(crate) fn compile_once_without_fixes(text: Rc<str>, options: &Options) -> CompiledCrd {
        let read = Rc::clone(&text);
        CompiledCrd::compile_with(&read, options, None, None, None, false, Some(text))
    }

    /// Compiles `text` after an edit of the text this CRD was compiled from: the same result
    /// as [`CompiledCrd::compile`] (every finding, span and report). The text is parsed again
    /// only around the edit: the entries it touched of the deepest block mapping holding it,
    /// or of the root ([`document::reparse_tracked`], when that certainly gives the full
    /// parse's tree), and what depends only on the CRD's content is reused when the edit left
    /// it as it was. The CRD's content is its tree without unknown top-level fields (its v1
    /// JSON), compared with the previous one where the edit changed it (scalars to the bit,
    /// keys in order; only the entries parsed again when the text was parsed from the
    /// previous content's parse), and the Kubernetes version; what is reused from it (the
    /// internal CRD, CRD validation's errors and compiled rules, the compiled versions, the
    /// cost analyses, the version overview, the warnings) never holds a position, and
    /// everything positional (findings' spans, rule positions, cost edits, printer columns)
    /// is computed again in the new text.
    /// Without the findings' fixes, as [`CompiledCrd::compile_without_fixes`].
    pub(crate) fn recompile_without_fixes(&self, text: &str, options: &Options) -> CompiledCrd {
        let parsed = self.parse_base.as_ref().and_then(|(base, parsed)| {
            document::reparse_tracked(parsed, base, text, SourceId::Crd)
        });
        let reparsed = parsed.is_some();
        let mut out = CompiledCrd::compile_with(
            text,
            options,
            self.memo.as_ref(),
            parsed,
            self.parse_base.as_ref(),
            true,
            None,
        );
        out.reparsed = reparsed;
        // The time-zone database is the caller's input, kept across edits.
        out.time_zones = self.time_zones.clone();
        out
    }

    fn compile_with(
        text: &str,
        options: &Options,
        previous: Option<&Rc<ContentMemo>>,
        reparsed: Option<document::Reparsed>,
        parse_base: Option<&(Rc<str>, Rc<ParsedText>)>,
        keep_v1: bool,
        shared: Option<Rc<str>>,
    ) -> CompiledCrd {
        // What the edit changed in the tree of the previous content's parse, when the text was
        // parsed from that one.
        let (parsed, change) = match reparsed {
            Some(r) => {
                let from_content = previous
                    .zip(parse_base)
                    .is_some_and(|(m, (_, base))| Rc::ptr_eq(&m.parsed, base));
                (r.parsed, from_content.then_some(r.change))
            }
            None => (document::parse(text, SourceId::Crd), None),
        };
        let kube = options.kubernetes_version;
        let mut findings = parsed.findings.clone();
        let mut model = None;
        let mut internal: Option<Rc<InternalCrd>> = None;
        let mut seen = false;
        let mut errors: Vec<FieldError> = Vec::new();
        let mut compiled = Rc::new(Vec::new());
        let mut cel_records = crate::cel::rules_view::CompileRecords::new();
        let mut defaults_records = Rc::default();
        // The v1 JSON kept for the next compile (when `keep_v1`) and whether it holds a
        // `-0.0`, once the document is read as a CRD.
        let mut content: Option<(Option<serde_json::Value>, bool)> = None;
        let mut fresh_overview = None;
        let mut problems_memo = (0, Vec::new());
        let mut warnings = Vec::new();
        let mut reused: Option<&Rc<ContentMemo>> = None;
        for (doc, root) in parsed.values() {
            if seen {
                let mut extra = Finding::new(
                    Severity::Info,
                    "crd.extra-document",
                    "only the first CustomResourceDefinition of the CRD text is analysed",
                )
                .at(Location {
                    source: SourceId::Crd,
                    document: doc.index,
                    span: root.span,
                });
                // An object pasted after the CRD: the headline says where it goes (the page
                // offers the move for a finding with this summary).
                if let Some(kind) = root
                    .get("kind")
                    .and_then(|k| k.as_str())
                    .filter(|k| *k != "CustomResourceDefinition" && !k.is_empty())
                {
                    extra = extra.with_summary(format!(
                        "a {kind} in the CRD text is not analysed (only the first \
                         CustomResourceDefinition is): objects go in the Object editor"
                    ));
                }
                findings.push(extra);
                continue;
            }
            seen = true;
            let (crd, mut crd_findings) = crd::read(root, doc.index);
            let is_crd = crd.is_some();
            findings.append(&mut crd_findings);
            model = crd;
            if !is_crd {
                continue;
            }
            // The previous compile's content, when this text has the same.
            let previous = previous.filter(|m| m.kubernetes_version == options.kubernetes_version);
            let mut same = previous.filter(|m| {
                first_root(&m.parsed)
                    .is_some_and(|old| same_crd_content(old, root, change.as_ref()))
            });
            // The v1 JSON, built when the content is decoded.
            let mut v1 = None;
            // Whether the v1 JSON holds a `-0.0`.
            let negative_zero;
            let root_problems = apiext::internal::root_key_problems(&root_keys(root));
            let (icrd, problems) = match same {
                Some(m) => {
                    // The known fields are the kept ones: only the unknown top-level fields
                    // are looked through for a `-0.0`.
                    negative_zero = m.negative_zero
                        || root.as_map().is_some_and(|entries| {
                            entries.iter().any(|e| {
                                !apiext::internal::V1_ROOT_KEYS.contains(&e.key.as_str())
                                    && node_has_negative_zero(&e.value)
                            })
                        });
                    // `from_v1_json`'s problems: the unknown top-level fields of this text,
                    // then those of the (same) known fields.
                    let mut problems = root_problems.clone();
                    problems.extend(m.problems.iter().skip(m.root_problems).cloned());
                    (m.internal.clone(), problems)
                }
                None => {
                    let json = root.to_json();
                    let (mut icrd, problems) = apiext::from_v1_json(&json);
                    drop_disabled_fields(&mut icrd, kube);
                    // An edit that the decoder drops (an unknown field inside a schema or a
                    // version, being typed) leaves the internal CRD as it was: the content
                    // work is reused as for an unknown top-level field.
                    let nz = has_negative_zero(&json);
                    negative_zero = nz;
                    if previous.is_some() {
                        same = previous.filter(|m| !nz && same_decoded(m, &icrd, root));
                    }
                    v1 = Some(json);
                    match same {
                        Some(m) => (m.internal.clone(), problems),
                        None => (Rc::new(icrd), problems),
                    }
                }
            };
            reused = same;
            if !FeatureGate::CustomResourceFieldSelectors.enabled_in(kube) {
                gate_notes(root, doc.index, kube, &mut findings);
            }
            for p in &problems {
                let path = FieldPath::parse(&p.path);
                let hit = locate(root, &path);
                let (severity, code) = if p.unknown_field {
                    (Severity::Error, "crd.unknown-field")
                } else {
                    (Severity::Error, "crd.decode")
                };
                let mut f = Finding::new(severity, code, p.message.clone()).at(Location {
                    source: SourceId::Crd,
                    document: doc.index,
                    span: hit.span,
                });
                f.field = Some(p.path.clone());
                // Unknown fields follow the request's field validation, like objects.
                if p.unknown_field {
                    match options.field_validation {
                        FieldValidation::Strict => {}
                        FieldValidation::Warn => f.severity = Severity::Warning,
                        FieldValidation::Ignore => continue,
                    }
                }
                findings.push(f);
            }
            problems_memo = (root_problems.len(), problems);
            if let (None, Some(v1)) = (reused, &v1) {
                fresh_overview = Some(crate::versions::overview(v1, &icrd));
            }
            let nz = negative_zero;
            // Not kept, the v1 JSON is dropped here, before CRD validation and the versions'
            // compile (a large CRD's peak): the errors' v1 paths build it again, if any.
            // (`filter` consumes it: a variable moved in one branch of an `if` only would
            // live on to the end of the loop's body.)
            let kept = v1.filter(|_| keep_v1);
            let mut rebuilt = None;
            match same {
                Some(m) => {
                    errors = m.errors.clone();
                    cel_records = m.cel_records.clone();
                    defaults_records = m.defaults_records.clone();
                    compiled = m.compiled.clone();
                }
                None => {
                    // The schemas this edit left as they were (after an edit inside one
                    // version's schema, the others): what validation derives from them alone
                    // is the previous compile's.
                    let unchanged = previous
                        .map(|m| version_reuse::UnchangedSchemas::between(&m.internal, &icrd))
                        .unwrap_or_default();
                    // Defaults are validated with their schemas' CEL rules, too.
                    let default_rules = crate::cel::validator::DefaultsRules::new();
                    let reusing_defaults = version_reuse::ReusingDefaults {
                        inner: &default_rules,
                        previous: previous.map(|m| (&*m.defaults_records, &unchanged)),
                        records: Default::default(),
                    };
                    let defaults = apiext::defaults::DefaultsValidation {
                        cel: Some(&reusing_defaults),
                        ..apiext::defaults::DefaultsValidation::without_cel()
                    };
                    // Validation converts each schema to its structural form once; the
                    // versions are compiled with the same forms.
                    let cache = apiext::StructuralCache::new();
                    let cel = crate::cel::RuleCompiler::new(kube);
                    let no_records = crate::cel::rules_view::CompileRecords::new();
                    let reusing = version_reuse::ReusingCompiler {
                        inner: &cel,
                        previous: previous.map_or(&no_records, |m| &m.cel_records),
                        unchanged: &unchanged,
                    };
                    // The compile results are kept for the rules of the version reports.
                    let recorder = crate::cel::rules_view::RecordingCompiler::new(&reusing);
                    errors = apiext::validate_create_with_cache(
                        &icrd,
                        apiext::Hooks {
                            cel: Some(&recorder),
                            defaults: Some(&defaults),
                        },
                        &cache,
                    );
                    cel_records = recorder.into_records();
                    defaults_records = reusing_defaults.into_records();
                    compiled = Rc::new(compile_versions(
                        &icrd,
                        kube,
                        &cache,
                        previous.map(|m| (&*m.internal, m.compiled.as_slice())),
                        // The defaults' checks compiled many of the same rules.
                        default_rules.programs(),
                    ));
                }
            }
            for e in &errors {
                let v1 = match &kept {
                    Some(v1) => v1,
                    None => rebuilt.get_or_insert_with(|| root.to_json()),
                };
                let v1_path = apiext::v1_path(&e.field, Some(v1));
                let mut f = locate_error(
                    e,
                    "crd.invalid",
                    Some(root),
                    SourceId::Crd,
                    doc.index,
                    &v1_path,
                );
                f.summary = Some(e.summary(&v1_path.to_string()));
                // A CEL compile error points at its character inside the expression.
                if let (Some(loc), Some(span)) = (
                    f.location.as_mut(),
                    crate::cel::rules_view::cel_error_span(
                        text,
                        &parsed.lines,
                        root,
                        &v1_path,
                        &e.detail,
                    ),
                ) {
                    loc.span = span;
                }
                findings.push(f);
            }
            warnings = match same {
                Some(m) => m.warnings.clone(),
                None => apiext::warnings_on_create(&icrd),
            };
            for w in warnings.iter().cloned() {
                findings.push(Finding::warning("crd.warning", w).at(Location {
                    source: SourceId::Crd,
                    document: doc.index,
                    span: root.span,
                }));
            }
            internal = Some(icrd);
            content = Some((kept, nz));
        }
        if !seen && !findings.iter().any(|f| f.severity == Severity::Error) {
            findings.push(Finding::error(
                "crd.empty",
                "the CRD text holds no document",
            ));
        }
        let facts = internal
            .as_ref()
            .map(|c| CrdFacts {
                group: c.spec.group.clone(),
                kind: c.spec.names.kind.clone(),
                namespaced: c.spec.scope == "Namespaced",
                preserve_unknown_fields: c.spec.preserve_unknown_fields == Some(true),
                request_namespace: options.namespace.clone(),
                generate_names: options.generate_names,
            })
            .unwrap_or_default();
        let first = parsed.values().next();
        let root = first.map(|(_, r)| r);
        let document = first.map_or(0, |(d, _)| d.index);
        // The version reports with their rules, and the rules' CEL cost analyses.
        let (base_versions, rule_steps, costs) = match (internal.as_deref(), reused) {
            (Some(_), Some(m)) => {
                let mut versions = m.versions.clone();
                for (i, (v, steps)) in versions.iter_mut().zip(&m.rule_steps).enumerate() {
                    crate::cel::rules_view::place_rules(
                        text,
                        document,
                        root,
                        i,
                        &mut v.rules,
                        steps,
                    );
                }
                (versions, m.rule_steps.clone(), m.costs.clone())
            }
            (Some(c), None) => {
                let (versions, steps) = version_reports(c, text, &parsed, &errors, &cel_records);
                let costs = crate::cel::cost_explain::schema_costs(&versions, c, kube);
                (versions, steps, costs)
            }
            (None, _) => Default::default(),
        };
        let mut versions = base_versions.clone();
        // The CEL cost reports (costs, what drives them, bounds that fix them).
        if internal.is_some() {
            crate::cel::cost_explain::place_cost_reports(
                &mut versions,
                &costs,
                text,
                document,
                root,
            );
        }
        // Printer columns: each version's table convertor, its columns in the version reports,
        // and findings for the columns that cannot work.
        let tables = super::columns::table_columns(
            internal.as_deref(),
            &compiled,
            &parsed,
            &mut versions,
            &mut findings,
        );
        let undecodable = super::update::answer_decode_error_alone(&mut findings);
        sort_findings(&mut findings);
        let report = CrdReport {
            name: model
                .as_ref()
                .and_then(|m| m.name.as_ref().map(|n| n.value.clone())),
            accepted: !findings.iter().any(|f| f.severity == Severity::Error),
            errors: errors
                .iter()
                .filter(|_| !undecodable)
                .map(|e| {
                    let f = findings.iter().find(|f| {
                        f.code == "crd.invalid"
                            && f.field.as_deref() == Some(e.field.to_string().as_str())
                            && f.message == e.error()
                    });
                    FieldErrorReport::from_field_error(e, f.and_then(|f| f.location))
                })
                .collect(),
            operation: "create".to_owned(),
        };
        let version_overview = match reused {
            Some(m) => m.version_overview.clone(),
            None => fresh_overview,
        };
        let parsed = Rc::new(parsed);
        // A text without a CRD keeps the previous content work, for the next edit.
        let memo = match (content, internal.clone()) {
            (Some((v1, negative_zero)), Some(internal)) => Some(Rc::new(ContentMemo {
                parsed: parsed.clone(),
                warnings,
                negative_zero,
                v1,
                kubernetes_version: options.kubernetes_version,
                root_problems: problems_memo.0,
                problems: problems_memo.1,
                errors,
                cel_records,
                defaults_records,
                versions: base_versions,
                rule_steps,
                costs,
                version_overview: version_overview.clone(),
                internal,
                compiled: compiled.clone(),
            })),
            _ => previous.cloned(),
        };
        // A text with parse findings (a keystroke in the middle of a word) keeps the previous
        // base, so that the next edit is parsed in part again.
        // One copy of the text for both.
        let text: Rc<str> = shared.unwrap_or_else(|| Rc::from(text));
        let parse_base = if parsed.findings.is_empty() && !parsed.aliased {
            Some((text.clone(), parsed.clone()))
        } else {
            parse_base.cloned()
        };
        CompiledCrd {
            tables,
            parsed,
            model,
            internal,
            facts,
            compiled,
            findings,
            report,
            versions,
            options: options.clone(),
            version_overview,
            time_zones: None,
            memo,
            reused: reused.is_some(),
            parse_base,
            reparsed: false,
            previous: None,
            changes: Vec::new(),
            text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::has_negative_zero;
    use serde_json::json;

    #[test]
    fn negative_zero_is_found_anywhere() {
        let cases = [
            (json!(0), false),
            (json!(0.0), false),
            (json!(-0.0), true),
            (json!(-1.5), false),
            (json!({"a": [1, {"b": -0.0}]}), true),
            (json!({"a": [1, {"b": "-0.0"}], "c": null}), false),
            (json!([[], {}, true]), false),
        ];
        for (value, want) in cases {
            assert_eq!(has_negative_zero(&value), want, "{value}");
        }
    }
}
