//! Sample objects for a CRD version: the smallest object the version's schema accepts
//! (`apiVersion`, `kind`, `metadata.name`, the required fields, an allowed enum value,
//! minimums, lengths, item and property counts, a matching pattern where a simple candidate
//! matches, list-map keys and set items unique; fields with a default are left to the
//! server's defaulting; an optional `spec` with required fields of its own is filled in),
//! or with `all_fields` every declared field.
//!
//! Junctors (`oneOf`, `anyOf`, `allOf`, `not`) are met by trying their branches. CEL rules
//! are not solved but searched: a sample a rule rejects is changed where the rule complains
//! (made minimal, one optional field more or less) while that lowers the number of errors,
//! within a budget of analyses ([`repair`]). The corpus measurement
//! (`crates/engine/tests/sample_corpus.rs`) lists what is still rejected, by reason.

use std::cell::Cell;

use serde_json::{json, Map, Value as Json};

use crate::authoring::assist::yaml_context::Seg;
use crate::report::analysis::CompiledCrd;
use crate::schema::structural::{NestedValueValidation, Structural, ValueValidation};

/// Limits on how deep and how wide a sample grows.
const MAX_DEPTH: usize = 24;
const MAX_ITEMS: usize = 16;

/// A sample object for `version` of the compiled CRD, or why there is none.
pub fn sample_for(
    compiled: &CompiledCrd,
    version: Option<&str>,
    all_fields: bool,
) -> Result<Json, String> {
    sample_within(compiled, version, all_fields, usize::MAX).map(|s| s.unwrap_or(Json::Null))
}

/// [`sample_for`], or `Ok(None)` when the sample, before any repair, is longer than
/// `max_bytes` as compact JSON: the repair analyses candidates of that size, which for a big
/// CRD's all-fields sample costs a good part of a second that a caller showing at most
/// `max_bytes` would throw away.
pub fn sample_within(
    compiled: &CompiledCrd,
    version: Option<&str>,
    all_fields: bool,
    max_bytes: usize,
) -> Result<Option<Json>, String> {
    let Some(crd) = compiled.internal() else {
        return Err("the CRD text holds no CustomResourceDefinition".to_owned());
    };
    let name = match version.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => v.to_owned(),
        None => crate::versions::overview::preferred_version(crd)
            .ok_or_else(|| "the CRD serves no version".to_owned())?,
    };
    let Some(cv) = compiled.compiled_versions().iter().find(|v| v.name == name) else {
        let names: Vec<&str> = crd.spec.versions.iter().map(|v| v.name.as_str()).collect();
        return Err(format!(
            "the CRD has no version `{name}` (it has {})",
            names.join(", ")
        ));
    };
    let first = sample(
        &crd.spec.group,
        &name,
        &crd.spec.names.kind,
        cv.structural.as_deref(),
        all_fields,
    );
    if max_bytes != usize::MAX && json_len_exceeds(&first, max_bytes) {
        return Ok(None);
    }
    Ok(Some(match cv.structural.as_deref() {
        Some(schema) => repair(compiled, schema, first, all_fields),
        None => first,
    }))
}

/// Whether `value` as compact JSON is longer than `max` bytes.
fn json_len_exceeds(value: &Json, max: usize) -> bool {
    struct Counter {
        len: usize,
        max: usize,
    }
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.len = self.len.saturating_add(buf.len());
            if self.len > self.max {
                // Stops the serialization: the answer is known.
                return Err(std::io::Error::other("over"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter { len: 0, max };
    serde_json::to_writer(&mut counter, value).is_err()
}

/// At most this many analyses of candidate samples while repairing one, and at most this
/// many bytes of candidate samples analysed in all (a big CRD's all-fields sample is
/// hundreds of kilobytes, and each analysis of it takes a good part of a second).
const MAX_REPAIR_TRIES: usize = 48;
const MAX_REPAIR_BYTES: usize = 2 << 20;

/// What the server does with a candidate sample.
enum Verdict {
    /// Accepted.
    Accepted,
    /// Only CEL rules reject it: how many errors, and the field of each CEL error.
    Cel(usize, Vec<String>),
    /// Something else rejects it.
    Other,
}

fn verdict(compiled: &CompiledCrd, text: String) -> Verdict {
    let a = compiled.analyze_objects_without_fixes(&[text], None, &mut |_| {});
    match a.objects.first() {
        Some(r) if r.accepted => Verdict::Accepted,
        Some(r) if !r.cel_errors.is_empty() && r.schema_errors.is_empty() => Verdict::Cel(
            r.cel_errors.len() + r.errors.len(),
            r.cel_errors.iter().map(|e| e.field.clone()).collect(),
        ),
        _ => Verdict::Other,
    }
}

/// A field path as the server prints it (`spec.rules[0].backendRefs[0]`, `spec.map[key]`)
/// as steps.
fn field_steps(field: &str) -> Vec<Seg> {
    let mut out = Vec::new();
    for part in field.split('.') {
        let (name, rest) = part.split_at(part.find('[').unwrap_or(part.len()));
        if !name.is_empty() {
            out.push(Seg::Key(name.to_owned()));
        }
        for b in rest.split('[').filter(|b| !b.is_empty()) {
            let b = b.trim_end_matches(']');
            out.push(match b.parse::<usize>() {
                Ok(n) => Seg::Item(n),
                Err(_) => Seg::Key(b.to_owned()),
            });
        }
    }
    out
}

fn value_at_mut<'a>(v: &'a mut Json, steps: &[Seg]) -> Option<&'a mut Json> {
    let mut v = v;
    for s in steps {
        v = match s {
            Seg::Key(k) => v.as_object_mut()?.get_mut(k)?,
            Seg::Item(i) => v.as_array_mut()?.get_mut(*i)?,
        };
    }
    Some(v)
}

/// The analyses a repair may still run.
struct Budget {
    tries: usize,
    bytes: usize,
}

impl Budget {
    /// The candidate's text when the budget allows analysing it.
    fn take(&mut self, candidate: &Json) -> Option<String> {
        let text = serde_json::to_string(candidate).ok()?;
        if self.tries == 0 || text.len() > self.bytes {
            self.tries = 0;
            return None;
        }
        self.tries -= 1;
        self.bytes -= text.len();
        Some(text)
    }
}

/// Candidates for one node a rule complains about (an object): each with one optional
/// field more ("either a or b must be set"), each with one optional field less ("only
/// one of a and b"), and the node made minimal but for one of its optional fields ("exactly
/// one of a, b and c"); an all-fields sample tries the removals first, a minimal one only
/// gains fields.
fn node_candidates(
    node: &Structural,
    map: &Map<String, Json>,
    depth: usize,
    all: bool,
) -> Vec<Json> {
    let required = node
        .value_validation
        .as_ref()
        .map(|v| v.required.clone())
        .unwrap_or_default();
    let mut fewer = Vec::new();
    let mut more = Vec::new();
    for (name, prop) in &node.properties {
        let mut c = map.clone();
        if c.contains_key(name) {
            if !required.contains(name) {
                c.remove(name);
                fewer.push(Json::Object(c));
            }
            continue;
        }
        let Some(v) = Gen::new(false)
            .value(prop, depth, 0)
            .filter(|v| !is_empty_container(v))
            .or_else(|| Gen::new(true).value(prop, depth, 0))
        else {
            continue;
        };
        c.insert(name.clone(), v);
        more.push(Json::Object(c));
    }
    // The node made minimal, keeping one of its optional fields ("exactly one of").
    let mut one = Vec::new();
    let minimal = Gen::new(false).value(node, depth.saturating_sub(1), 0);
    if let Some(Json::Object(min)) = minimal {
        for (name, v) in map {
            if !min.contains_key(name) && !required.contains(name) {
                let mut c = min.clone();
                c.insert(name.clone(), v.clone());
                one.push(Json::Object(c));
            }
        }
    }
    if all {
        fewer.extend(one);
        fewer.extend(more);
        fewer
    } else {
        // A minimal sample holds what it needs: it only gains fields.
        more
    }
}

/// A sample only CEL rules reject, changed where the rules complain while that lowers the
/// number of errors. CEL rules are not solved, only searched, within a [`Budget`]:
/// - an all-fields sample first has every node a rule complains about made minimal (its
///   required fields only: "at most one of these locations", "only one of count or end");
/// - then, one node at a time (the error's node, then its parent; never the object's top
///   level), one optional field more or less.
fn repair(compiled: &CompiledCrd, schema: &Structural, mut current: Json, all: bool) -> Json {
    let mut budget = Budget {
        tries: MAX_REPAIR_TRIES,
        bytes: MAX_REPAIR_BYTES,
    };
    let Some(text) = budget.take(&current) else {
        return current;
    };
    let Verdict::Cel(mut count, mut fields) = verdict(compiled, text) else {
        return current;
    };
    // Whether `next` is accepted (`Ok`), or its rejections when it has fewer errors.
    let try_next = |next: &Json, count: usize, budget: &mut Budget| {
        let text = budget.take(next)?;
        match verdict(compiled, text) {
            Verdict::Accepted => Some(Ok(())),
            Verdict::Cel(n, f) if n < count => Some(Err((n, f))),
            _ => None,
        }
    };
    if all {
        for _ in 0..3 {
            let mut next = current.clone();
            let mut steps: Vec<Vec<Seg>> = fields.iter().map(|f| field_steps(f)).collect();
            // Outer nodes first: a node made minimal drops what was below it.
            crd_studio_gostd::sort::stable_by_key(&mut steps, Vec::len);
            // Never the object itself: its `spec` and the like stay.
            for at in steps.iter().filter(|at| !at.is_empty()) {
                let Some(node) = crate::authoring::assist::walk(Some(schema), at) else {
                    continue;
                };
                if let (Some(slot), Some(v)) = (
                    value_at_mut(&mut next, at),
                    Gen::new(false).value(node, at.len() + 1, 0),
                ) {
                    *slot = v;
                }
            }
            match try_next(&next, count, &mut budget) {
                Some(Ok(())) => return next,
                Some(Err((n, f))) => (current, count, fields) = (next, n, f),
                None => break,
            }
        }
    }
    'rounds: while budget.tries > 0 {
        for field in &fields {
            let steps = field_steps(field);
            for cut in [steps.len(), steps.len().saturating_sub(1)] {
                let at = steps.get(..cut).unwrap_or(&[]);
                if at.is_empty() {
                    continue;
                }
                let Some(node) = crate::authoring::assist::walk(Some(schema), at) else {
                    continue;
                };
                let mut base = current.clone();
                let Some(Json::Object(map)) = value_at_mut(&mut base, at) else {
                    continue;
                };
                for c in node_candidates(node, map, at.len() + 1, all) {
                    if budget.tries == 0 {
                        break 'rounds;
                    }
                    let mut next = current.clone();
                    if let Some(slot) = value_at_mut(&mut next, at) {
                        *slot = c;
                    }
                    match try_next(&next, count, &mut budget) {
                        Some(Ok(())) => return next,
                        Some(Err((n, f))) => {
                            (current, count, fields) = (next, n, f);
                            continue 'rounds;
                        }
                        None => {}
                    }
                }
            }
        }
        break;
    }
    current
}

fn is_empty_container(v: &Json) -> bool {
    match v {
        Json::Array(a) => a.is_empty(),
        Json::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// A sample object of `kind` in `group/version` for the version's structural schema.
pub fn sample(
    group: &str,
    version: &str,
    kind: &str,
    schema: Option<&Structural>,
    all_fields: bool,
) -> Json {
    let api_version = if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    };
    let mut out = Map::new();
    out.insert("apiVersion".into(), Json::String(api_version));
    out.insert("kind".into(), Json::String(kind.to_owned()));
    out.insert(
        "metadata".into(),
        json!({"name": format!("{}-sample", kind.to_ascii_lowercase())}),
    );
    if let Some(s) = schema {
        let g = Gen::new(all_fields);
        for (name, prop) in &s.properties {
            if matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
                continue;
            }
            // An optional `spec` that has required fields of its own (or junctors, which may
            // require some) is filled in too: an object without its spec says little.
            let spec_needed = name == "spec"
                && prop
                    .value_validation
                    .as_ref()
                    .is_some_and(|v| !v.required.is_empty() || has_junctors(v));
            if !g.wanted(s, name, prop) && !spec_needed {
                continue;
            }
            if let Some(v) = g.value(prop, 1, 0) {
                out.insert(name.clone(), v);
            }
        }
    }
    Json::Object(out)
}

/// How many values and junctor checks one sample may cost: trying each branch of a junctor
/// at every level multiplies with the depth (a hostile schema of 24 nested `oneOf`s would
/// take 3^24 values), so past this budget values are made without trying branches and
/// unchecked junctors count as holding.
const MAX_GEN_STEPS: usize = 200_000;

struct Gen {
    all: bool,
    /// Steps left of [`MAX_GEN_STEPS`].
    steps: Cell<usize>,
}

impl Gen {
    fn new(all: bool) -> Gen {
        Gen {
            all,
            steps: Cell::new(MAX_GEN_STEPS),
        }
    }

    /// Takes one step of the budget; `false` when it is spent.
    fn step(&self) -> bool {
        take(&self.steps)
    }

    /// Whether the field goes into the sample: every field with `all`, else the required
    /// fields the server does not default.
    fn wanted(&self, parent: &Structural, name: &str, prop: &Structural) -> bool {
        if self.all {
            return true;
        }
        let required = parent
            .value_validation
            .as_ref()
            .is_some_and(|v| v.required.iter().any(|r| r == name));
        required && prop.generic.default.is_none()
    }

    /// A value for `s`; `variant` makes sibling items differ (set items, list-map keys).
    /// Where the node has `allOf`/`anyOf`/`oneOf`/`not`, the plain value is kept when it
    /// satisfies them; else each `oneOf`/`anyOf` branch in turn is merged into the node (its
    /// enums, formats, bounds and required fields) and the first value that satisfies them
    /// all is taken.
    fn value(&self, s: &Structural, depth: usize, variant: usize) -> Option<Json> {
        if depth > MAX_DEPTH {
            return None;
        }
        let base = self.plain_value(s, depth, variant)?;
        let Some(vv) = s.value_validation.as_ref().filter(|v| has_junctors(v)) else {
            return Some(base);
        };
        if !self.step() || junctors_hold(vv, &base, 0, &self.steps) {
            return Some(base);
        }
        for branch in vv.one_of.iter().chain(&vv.any_of) {
            if !self.step() {
                break;
            }
            let mut merged = s.clone();
            merge_into(&mut merged, branch, 0, &self.steps);
            if let Some(c) = self.plain_value(&merged, depth, variant) {
                if junctors_hold(vv, &c, 0, &self.steps) {
                    return Some(c);
                }
            }
        }
        Some(base)
    }

    /// A value for `s` from its own keywords, its junctors aside.
    fn plain_value(&self, s: &Structural, depth: usize, variant: usize) -> Option<Json> {
        let vv = s.value_validation.clone().unwrap_or_default();
        if let Some(first) = vv.enum_.get(variant % vv.enum_.len().max(1)) {
            return Some(first.clone());
        }
        if self.all {
            if let (Some(d), 0) = (&s.generic.default, variant) {
                return Some(d.clone());
            }
        }
        if s.extensions.x_int_or_string {
            return Some(number(&vv, true, variant));
        }
        match s.generic.type_.as_str() {
            "object" => Some(self.object(s, depth, variant)),
            "array" => Some(self.array(s, depth)),
            "string" => Some(Json::String(string(&vv, variant))),
            "integer" => Some(number(&vv, true, variant)),
            "number" => Some(number(&vv, false, variant)),
            "boolean" => Some(Json::Bool(variant % 2 == 1)),
            _ if s.extensions.x_preserve_unknown_fields => Some(Json::Object(Map::new())),
            _ => None,
        }
    }

    fn object(&self, s: &Structural, depth: usize, variant: usize) -> Json {
        let vv = s.value_validation.clone().unwrap_or_default();
        let mut out = Map::new();
        if s.extensions.x_embedded_resource {
            out.insert("apiVersion".into(), json!("v1"));
            out.insert("kind".into(), json!("ConfigMap"));
        }
        let keys = &s.extensions.x_list_map_keys;
        for (name, prop) in &s.properties {
            if out.contains_key(name) {
                continue;
            }
            // A list-map key is always set, so that items are told apart.
            let is_key = keys.iter().any(|k| k == name);
            if !is_key && !self.wanted(s, name, prop) {
                continue;
            }
            if let Some(v) = self.value(prop, depth + 1, variant) {
                out.insert(name.clone(), v);
            }
        }
        // More properties to reach minProperties: the declared ones first, then map keys.
        let min = usize::try_from(vv.min_properties.unwrap_or(0))
            .unwrap_or(0)
            .min(MAX_ITEMS);
        for (name, prop) in &s.properties {
            if out.len() >= min {
                break;
            }
            if !out.contains_key(name) {
                if let Some(v) = self.value(prop, depth + 1, variant) {
                    out.insert(name.clone(), v);
                }
            }
        }
        if let Some(ap) = s
            .additional_properties
            .as_ref()
            .and_then(|a| a.structural.as_deref())
        {
            let want = if self.all { min.max(1) } else { min };
            let mut i = 0;
            while out.len() < want && i < MAX_ITEMS {
                if let Some(v) = self.value(ap, depth + 1, i) {
                    out.insert(format!("key{}", i + 1), v);
                }
                i += 1;
            }
        } else if s.additional_properties.as_ref().is_some_and(|a| a.bool_) {
            let mut i = 0;
            while out.len() < min && i < MAX_ITEMS {
                out.insert(format!("key{}", i + 1), json!("value"));
                i += 1;
            }
        }
        Json::Object(out)
    }

    fn array(&self, s: &Structural, depth: usize) -> Json {
        let vv = s.value_validation.clone().unwrap_or_default();
        let min = usize::try_from(vv.min_items.unwrap_or(0))
            .unwrap_or(0)
            .min(MAX_ITEMS);
        let mut n = if self.all { min.max(1) } else { min };
        if let Some(max) = vv.max_items.and_then(|m| usize::try_from(m).ok()) {
            n = n.min(max);
        }
        let Some(items) = s.items.as_deref() else {
            return Json::Array(Vec::new());
        };
        let mut out: Vec<Json> = Vec::new();
        for i in 0..n {
            if let Some(v) = self.value(items, depth + 1, i) {
                out.push(v);
            }
        }
        Json::Array(out)
    }
}

/// How deep junctors nest before the checks below stop (and assume they hold).
const MAX_JUNCTOR_DEPTH: usize = 16;

fn has_junctors(v: &ValueValidation) -> bool {
    !v.all_of.is_empty() || !v.one_of.is_empty() || !v.any_of.is_empty() || v.not.is_some()
}

/// Whether `value` satisfies the junctors of `v` (`allOf` all, `oneOf` exactly one, `anyOf`
/// at least one, `not` none).
fn junctors_hold(v: &ValueValidation, value: &Json, depth: usize, steps: &Cell<usize>) -> bool {
    if depth > MAX_JUNCTOR_DEPTH || !take(steps) {
        return true;
    }
    let holds = |n: &NestedValueValidation| nested_holds(n, value, depth + 1, steps);
    v.all_of.iter().all(holds)
        && (v.one_of.is_empty() || v.one_of.iter().filter(|n| holds(n)).count() == 1)
        && (v.any_of.is_empty() || v.any_of.iter().any(holds))
        && !v.not.as_deref().is_some_and(holds)
}

/// Whether `value` satisfies a junctor branch: the keywords a sample is made to meet (enum,
/// format, lengths, bounds, pattern, counts, required), its properties and items, and its
/// own junctors. Keywords not checked here count as satisfied.
fn nested_holds(
    n: &NestedValueValidation,
    value: &Json,
    depth: usize,
    steps: &Cell<usize>,
) -> bool {
    if depth > MAX_JUNCTOR_DEPTH || !take(steps) {
        return true;
    }
    let v = &n.value_validation;
    if !v.enum_.is_empty() && !v.enum_.contains(value) {
        return false;
    }
    match value {
        Json::String(s) => {
            let len = i64::try_from(s.chars().count()).unwrap_or(i64::MAX);
            if v.min_length.is_some_and(|m| len < m) || v.max_length.is_some_and(|m| len > m) {
                return false;
            }
            if !v.format.is_empty() {
                let checker = crate::object::validation::formats::FormatChecker::new(&v.format);
                if checker.is_some_and(|c| !c.validates(s)) {
                    return false;
                }
            }
            if !v.pattern.is_empty()
                && crd_studio_gostd::regexp::compile(&v.pattern)
                    .ok()
                    .and_then(|r| r.is_match(s))
                    == Some(false)
            {
                return false;
            }
        }
        Json::Number(num) => {
            let x = num.as_f64().unwrap_or(0.0);
            let below = |m: f64, excl: bool| if excl { x <= m } else { x < m };
            let above = |m: f64, excl: bool| if excl { x >= m } else { x > m };
            if v.minimum.is_some_and(|m| below(m, v.exclusive_minimum))
                || v.maximum.is_some_and(|m| above(m, v.exclusive_maximum))
            {
                return false;
            }
        }
        Json::Array(items) => {
            let len = i64::try_from(items.len()).unwrap_or(i64::MAX);
            if v.min_items.is_some_and(|m| len < m) || v.max_items.is_some_and(|m| len > m) {
                return false;
            }
            if let Some(i) = &n.items {
                if !items.iter().all(|x| nested_holds(i, x, depth + 1, steps)) {
                    return false;
                }
            }
        }
        Json::Object(map) => {
            let len = i64::try_from(map.len()).unwrap_or(i64::MAX);
            if v.min_properties.is_some_and(|m| len < m)
                || v.max_properties.is_some_and(|m| len > m)
                || !v.required.iter().all(|r| map.contains_key(r))
            {
                return false;
            }
            for (k, x) in map {
                let child = n.properties.get(k).or(n.additional_properties.as_deref());
                if child.is_some_and(|c| !nested_holds(c, x, depth + 1, steps)) {
                    return false;
                }
            }
        }
        _ => {}
    }
    junctors_hold(v, value, depth + 1, steps)
}

/// Takes one step of a budget; `false` when it is spent.
fn take(steps: &Cell<usize>) -> bool {
    let left = steps.get();
    steps.set(left.saturating_sub(1));
    left > 0
}

/// `s` narrowed by a junctor branch: its enum, format, pattern, bounds and required fields
/// added to the node's, down its properties and items (a nested `anyOf`/`oneOf` by its
/// first branch, `allOf` by all). `not` is left to the checks.
fn merge_into(s: &mut Structural, n: &NestedValueValidation, depth: usize, steps: &Cell<usize>) {
    if depth > MAX_JUNCTOR_DEPTH || !take(steps) {
        return;
    }
    let b = &n.value_validation;
    let v = std::sync::Arc::make_mut(s.value_validation.get_or_insert_with(Default::default));
    if !b.enum_.is_empty() {
        let kept: Vec<Json> = if v.enum_.is_empty() {
            b.enum_.clone()
        } else {
            v.enum_
                .iter()
                .filter(|e| b.enum_.contains(e))
                .cloned()
                .collect()
        };
        if !kept.is_empty() {
            v.enum_ = kept;
        }
    }
    if !b.format.is_empty() {
        v.format = b.format.clone();
    }
    if !b.pattern.is_empty() && v.pattern.is_empty() {
        v.pattern = b.pattern.clone();
    }
    let tighter_min = |a: Option<i64>, b: Option<i64>| a.max(b);
    let tighter_max = |a: Option<i64>, b: Option<i64>| match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    v.min_length = tighter_min(v.min_length, b.min_length);
    v.max_length = tighter_max(v.max_length, b.max_length);
    v.min_items = tighter_min(v.min_items, b.min_items);
    v.max_items = tighter_max(v.max_items, b.max_items);
    v.min_properties = tighter_min(v.min_properties, b.min_properties);
    v.max_properties = tighter_max(v.max_properties, b.max_properties);
    if b.minimum.is_some() && v.minimum.is_none_or(|m| b.minimum.is_some_and(|x| x > m)) {
        v.minimum = b.minimum;
        v.exclusive_minimum = b.exclusive_minimum;
    }
    if b.maximum.is_some() && v.maximum.is_none_or(|m| b.maximum.is_some_and(|x| x < m)) {
        v.maximum = b.maximum;
        v.exclusive_maximum = b.exclusive_maximum;
    }
    for r in &b.required {
        if !v.required.contains(r) {
            v.required.push(r.clone());
        }
    }
    let nested: Vec<&NestedValueValidation> = b
        .all_of
        .iter()
        .chain(b.any_of.first())
        .chain(b.one_of.first())
        .collect();
    for x in nested {
        merge_into(s, x, depth + 1, steps);
    }
    for (k, child) in &n.properties {
        if let Some(p) = s.properties.get_mut(k) {
            merge_into(p, child, depth + 1, steps);
        }
    }
    if let (Some(items), Some(i)) = (s.items.as_deref_mut(), n.items.as_deref()) {
        merge_into(items, i, depth + 1, steps);
    }
}

/// A string meeting the format, length and (for simple patterns) pattern bounds.
fn string(vv: &crate::schema::structural::ValueValidation, variant: usize) -> String {
    let by_format = match crate::object::validation::formats::normalize(&vv.format).as_str() {
        "datetime" => Some("2024-01-01T00:00:00Z"),
        "date" => Some("2024-01-01"),
        "duration" => Some("1s"),
        "byte" => Some("YQ=="),
        "email" => Some("user@example.com"),
        "hostname" | "k8slongname" => Some("example.com"),
        "k8sshortname" => Some("example"),
        "ipv4" => Some("192.0.2.1"),
        "ipv6" => Some("2001:db8::1"),
        "cidr" => Some("192.0.2.0/24"),
        "mac" => Some("00:00:5e:00:53:01"),
        "uuid" | "uuid4" => Some("123e4567-e89b-42d3-a456-426614174000"),
        "uuid3" => Some("123e4567-e89b-32d3-a456-426614174000"),
        "uuid5" => Some("123e4567-e89b-52d3-a456-426614174000"),
        "uri" => Some("https://example.com"),
        "hexcolor" => Some("#ffffff"),
        "rgbcolor" => Some("rgb(0,0,0)"),
        "isbn" | "isbn10" => Some("0306406152"),
        "isbn13" => Some("9780306406157"),
        "creditcard" => Some("4111111111111111"),
        "ssn" => Some("078-05-1120"),
        "bsonobjectid" => Some("507f1f77bcf86cd799439011"),
        _ => None,
    };
    if let Some(v) = by_format {
        if variant == 0 {
            return v.to_owned();
        }
    }
    let candidates: Vec<String> = {
        let base = [
            "example",
            "a",
            "1",
            "example.com",
            "Example",
            "example-1",
            "a1",
            "A",
            "x.y/z",
            "1.0.0",
            "v1",
            "true",
            "192.0.2.1",
            "1s",
            "https://example.com",
            "http://example.com",
            "oci://example.com/a",
            "ssh://example.com/a",
            "0",
            "1m",
            "1MB",
            "1Gi",
            "[1-2]",
            "@daily",
            "* * * * *",
            "10:00",
            "1%",
            "a=b",
            "abort",
            "monday",
            "a.yaml",
            "2024",
        ];
        let mut c: Vec<String> = base.iter().map(|b| (*b).to_owned()).collect();
        if variant > 0 {
            c = c
                .into_iter()
                .flat_map(|b| {
                    [
                        format!("{b}{variant}"),
                        format!("{b}-{variant}"),
                        format!("{variant}{b}"),
                    ]
                })
                .collect();
        }
        c
    };
    let min = usize::try_from(vv.min_length.unwrap_or(0))
        .unwrap_or(0)
        .min(4096);
    let max = vv.max_length.and_then(|m| usize::try_from(m).ok());
    let fit = |s: &str| -> String {
        let mut s: String = s.to_owned();
        while s.chars().count() < min {
            s.push('a');
        }
        if let Some(max) = max {
            s = s.chars().take(max).collect();
        }
        s
    };
    if vv.pattern.is_empty() {
        return fit(candidates.first().map_or("example", String::as_str));
    }
    let re = crd_studio_gostd::regexp::compile(&vv.pattern).ok();
    for c in &candidates {
        let s = fit(c);
        if re.as_ref().and_then(|r| r.is_match(&s)) == Some(true) {
            return s;
        }
    }
    fit(candidates.first().map_or("example", String::as_str))
}

/// A number meeting minimum, maximum and multipleOf (an integer when `integer`).
fn number(vv: &crate::schema::structural::ValueValidation, integer: bool, variant: usize) -> Json {
    let step = vv.multiple_of.filter(|m| *m > 0.0).unwrap_or(1.0);
    let mut x: f64 = 0.0;
    if let Some(min) = vv.minimum {
        x = if vv.exclusive_minimum {
            min + step.min(1.0)
        } else {
            min
        };
    } else if let Some(max) = vv.maximum {
        if max < 0.0 || (max <= 0.0 && vv.exclusive_maximum) {
            x = if vv.exclusive_maximum { max - 1.0 } else { max };
        }
    }
    x += variant as f64 * step;
    if let Some(m) = vv.multiple_of.filter(|m| *m > 0.0) {
        x = (x / m).ceil() * m;
    }
    if integer {
        x = x.ceil();
    }
    if let Some(max) = vv.maximum {
        if x > max || (vv.exclusive_maximum && x >= max) {
            x = if vv.exclusive_maximum { max - 1.0 } else { max };
        }
    }
    if (integer || x.fract() == 0.0) && x.abs() < 9.0e15 {
        return json!(x as i64);
    }
    serde_json::Number::from_f64(x).map_or(json!(0), Json::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{analyze, CompiledCrd, Options, Request};

    const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        required: [spec]
        properties:
          spec:
            type: object
            required: [name, size, mode, ports, when, replicas, labels]
            properties:
              name: {type: string, minLength: 10, maxLength: 12, pattern: '^[a-z]+$'}
              size: {type: integer, minimum: 3, maximum: 9, multipleOf: 2}
              mode: {type: string, enum: [slow, fast]}
              when: {type: string, format: date-time}
              replicas: {type: integer, default: 1}
              labels: {type: object, minProperties: 2, additionalProperties: {type: string}}
              optional: {type: string}
              ports:
                type: array
                minItems: 2
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port]
                items:
                  type: object
                  required: [port]
                  properties:
                    port: {type: integer, minimum: 1}
                    name: {type: string}
              tags: {type: array, x-kubernetes-list-type: set, minItems: 3, items: {type: string}}
"#;

    fn accepted(all: bool) -> (Json, bool) {
        let compiled = CompiledCrd::compile(CRD, &Options::default());
        let s = sample_for(&compiled, None, all).unwrap();
        let a = analyze(&Request {
            crd: CRD.to_owned(),
            objects: vec![serde_json::to_string(&s).unwrap()],
            ..Request::default()
        });
        let ok = a.objects.iter().all(|o| o.accepted) && !a.objects.is_empty();
        (s, ok)
    }

    #[test]
    fn minimal_sample() {
        let (s, ok) = accepted(false);
        assert!(ok, "{s}");
        assert_eq!(
            s,
            json!({
                "apiVersion": "example.com/v1", "kind": "Widget",
                "metadata": {"name": "widget-sample"},
                "spec": {
                    "labels": {"key1": "example", "key2": "example1"},
                    "mode": "slow", "name": "exampleaaa",
                    "ports": [{"port": 1}, {"port": 2}],
                    "size": 4, "when": "2024-01-01T00:00:00Z"
                }
            })
        );
    }

    #[test]
    fn all_fields_sample() {
        let (s, ok) = accepted(true);
        assert!(ok, "{s}");
        let spec = s.get("spec").unwrap();
        for f in ["optional", "replicas", "tags", "name"] {
            assert!(spec.get(f).is_some(), "{f}: {s}");
        }
        assert_eq!(spec.get("tags").unwrap().as_array().unwrap().len(), 3);
        assert_eq!(
            spec.get("ports").unwrap().get(0).unwrap().get("name"),
            Some(&json!("example"))
        );
    }

    /// A CRD whose `spec` has the given schema lines (indented under `spec:`).
    fn with_spec(spec: &str) -> String {
        let spec: String = spec.lines().map(|l| format!("            {l}\n")).collect();
        format!(
            "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: widgets.example.com}}
spec:
  group: example.com
  names: {{kind: Widget, plural: widgets}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
{spec}"
        )
    }

    fn sample_accepted(crd: &str, all: bool) -> (Json, bool) {
        let compiled = CompiledCrd::compile(crd, &Options::default());
        let s = sample_for(&compiled, None, all).unwrap();
        let a = analyze(&Request {
            crd: crd.to_owned(),
            objects: vec![serde_json::to_string(&s).unwrap()],
            ..Request::default()
        });
        (s, a.objects.first().is_some_and(|o| o.accepted))
    }

    #[test]
    fn junctors_pick_a_branch_that_holds() {
        // Gateway API's address: an IP address type needs an IP value; any other type is
        // anything but IPAddress (exactly one branch must hold).
        let crd = with_spec(
            "type: object
properties:
  address:
    type: object
    properties:
      type: {type: string, default: IPAddress}
      value: {type: string}
    oneOf:
    - properties:
        type: {enum: [IPAddress]}
        value:
          anyOf:
          - format: ipv4
          - format: ipv6
    - properties:
        type:
          not: {enum: [IPAddress]}",
        );
        let (s, ok) = sample_accepted(&crd, true);
        assert!(ok, "{s}");
        assert_eq!(
            s.pointer("/spec/address"),
            Some(&json!({"type": "IPAddress", "value": "192.0.2.1"}))
        );
        // One of two fields required: the minimal sample sets the first.
        let crd = with_spec(
            "type: object
properties:
  a: {type: string}
  b: {type: string}
oneOf:
- required: [a]
- required: [b]",
        );
        let (s, ok) = sample_accepted(&crd, false);
        assert!(ok, "{s}");
        assert_eq!(s.pointer("/spec"), Some(&json!({"a": "example"})));
    }

    #[test]
    fn samples_a_rule_rejects_are_repaired() {
        let crd = with_spec(
            "type: object
properties:
  source:
    type: object
    properties:
      git: {type: string}
      http: {type: string}
      s3: {type: string}
    x-kubernetes-validations:
    - rule: '(has(self.git) ? 1 : 0) + (has(self.http) ? 1 : 0) + (has(self.s3) ? 1 : 0) == 1'
      message: exactly one location
required: [source]",
        );
        // Minimal: one location added; all fields: the node made minimal, then one added.
        for all in [false, true] {
            let (s, ok) = sample_accepted(&crd, all);
            assert!(ok, "{s}");
            let source = s.pointer("/spec/source").and_then(Json::as_object).unwrap();
            assert_eq!(source.len(), 1, "{s}");
        }
    }

    #[test]
    fn nested_junctors_that_never_hold_stay_within_the_budget() {
        // Each level's `oneOf` has two branches that both hold: it never holds, and trying
        // each branch at each of 24 levels would make 3^24 values without the step budget.
        let mut node = "type: string".to_owned();
        for _ in 0..24 {
            let inner: String = node.lines().map(|l| format!("    {l}\n")).collect();
            node = format!(
                "type: object\nrequired: [a]\noneOf:\n- required: [a]\n- required: [a]\nproperties:\n  a:\n{inner}"
            );
        }
        let crd = with_spec(&node);
        let compiled = CompiledCrd::compile(&crd, &Options::default());
        let s = sample_for(&compiled, None, false).unwrap();
        assert!(s.pointer("/spec/a/a/a").is_some(), "{s}");
    }

    #[test]
    fn no_crd_or_version() {
        let compiled = CompiledCrd::compile(CRD, &Options::default());
        assert_eq!(
            sample_for(&compiled, Some("v9"), false).unwrap_err(),
            "the CRD has no version `v9` (it has v1)"
        );
        let none = CompiledCrd::compile("a: 1\n", &Options::default());
        assert!(sample_for(&none, None, false).is_err());
    }

    #[test]
    fn a_sample_over_the_callers_size_is_not_repaired_but_refused() {
        let compiled = CompiledCrd::compile(CRD, &Options::default());
        let full = sample_for(&compiled, None, true).unwrap();
        let len = serde_json::to_string(&full).unwrap().len();
        assert_eq!(
            sample_within(&compiled, None, true, len + 64).unwrap(),
            Some(full)
        );
        assert_eq!(sample_within(&compiled, None, true, 8).unwrap(), None);
        assert!(json_len_exceeds(&json!({"a": "bcd"}), 10));
        assert!(!json_len_exceeds(&json!({"a": "bcd"}), 11));
    }
}
