//! What a round trip changed: the first difference, the rule to blame, and the paths a
//! mapping writes that the target schema does not know.

use super::*;

/// The first difference between two objects.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Difference {
    /// Where (a mapping path: `.spec.a['b.c'][0]`).
    pub path: String,
    /// The value in the original (`None`: absent).
    pub before: Option<Json>,
    /// The value after the round trip (`None`: absent).
    pub after: Option<Json>,
}

/// The first difference between `before` and `after`, walking object keys in sorted order
/// (the union of both sides) and list elements in order.
pub fn first_difference(before: &Json, after: &Json) -> Option<(Vec<Step>, Difference)> {
    let mut stack: Vec<(Vec<Step>, Option<&Json>, Option<&Json>)> =
        vec![(Vec::new(), Some(before), Some(after))];
    while let Some((path, b, a)) = stack.pop() {
        match (b, a) {
            (Some(Json::Object(bm)), Some(Json::Object(am))) => {
                let keys: BTreeSet<&String> = bm.keys().chain(am.keys()).collect();
                for k in keys.into_iter().rev() {
                    let mut p = path.clone();
                    p.push(Step::Key(k.clone()));
                    stack.push((p, bm.get(k), am.get(k)));
                }
            }
            (Some(Json::Array(bl)), Some(Json::Array(al))) if bl.len() == al.len() => {
                for i in (0..bl.len()).rev() {
                    let mut p = path.clone();
                    p.push(Step::Index(i));
                    stack.push((p, bl.get(i), al.get(i)));
                }
            }
            (b, a) => {
                if b != a {
                    let diff = Difference {
                        path: if path.is_empty() {
                            ".".to_owned()
                        } else {
                            path_text(&path)
                        },
                        before: b.cloned(),
                        after: a.cloned(),
                    };
                    return Some((path, diff));
                }
            }
        }
    }
    None
}

/// Whether one path is a prefix of the other (the rule touches the place).
pub(super) fn related(a: &[Step], b: &[Step]) -> bool {
    let n = a.len().min(b.len());
    a.get(..n) == b.get(..n)
}

/// The rule to blame for a round-trip difference at `path` (in the source version's
/// coordinates), `via` being the object in the other version (after the way out) and
/// `via_schema` that version's schema, when known:
///
/// 1. a rule of the way back that writes `path` but reads a place `via` has no value at and
///    the other version's schema has no place for (so no way-out rule could fill it): its
///    source is wrong (a typo in the reverse mapping); or a rule of the way back that drops
///    the field;
/// 2. else the first rule of the way out that reads `path`: when it moves or copies the value
///    to `q` and a rule of the way back reads `q` but writes elsewhere, that rule's target is
///    wrong (a typo in the reverse mapping); otherwise the way-out rule;
/// 3. else the first rule of the way back that writes there; else the mapping out.
pub fn blame(
    out: &Mapping,
    back: &Mapping,
    path: &[Step],
    via: Option<&Json>,
    via_schema: Option<&crate::schema::structural::Structural>,
) -> MappingLocation {
    let touches = |paths: Vec<&[Step]>, at: &[Step]| paths.into_iter().any(|p| related(p, at));
    for b in &back.rules {
        let (targets, source): (Vec<&[Step]>, Option<&[Step]>) = match &b.kind {
            RuleKind::Move { from, to } | RuleKind::Copy { from, to } => (vec![to], Some(from)),
            RuleKind::Drop { path } => (vec![path], None),
            RuleKind::Set { .. } | RuleKind::Cel { .. } => continue,
        };
        if !touches(targets, path) {
            continue;
        }
        let reads_nothing = match (source, via) {
            (Some(from), Some(via)) => {
                get_path(via, from).is_none()
                    && match via_schema {
                        Some(schema) => unknown_in_schema(schema, from).is_some(),
                        None => !out.rules.iter().any(|r| touches(r.writes(), from)),
                    }
            }
            (Some(_), None) => false,
            // A drop on the way back removes what came back.
            (None, _) => true,
        };
        if reads_nothing {
            return b.location;
        }
    }
    if let Some(r) = out.rules.iter().find(|r| touches(r.reads(), path)) {
        if let RuleKind::Move { to, .. } | RuleKind::Copy { to, .. } = &r.kind {
            let reverse = back
                .rules
                .iter()
                .find(|b| touches(b.reads(), to) && !matches!(b.kind, RuleKind::Drop { .. }));
            if let Some(b) = reverse {
                if !touches(b.writes(), path) {
                    return b.location;
                }
            }
        }
        return r.location;
    }
    if let Some(r) = back.rules.iter().find(|r| touches(r.writes(), path)) {
        return r.location;
    }
    out.location
}

/// Whether a schema node lets any field in without a schema of its own.
pub(super) fn open_object(s: &crate::schema::structural::Structural) -> bool {
    s.extensions.x_preserve_unknown_fields
        || s.additional_properties
            .as_ref()
            .is_some_and(|a| a.structural.is_none() && a.bool_)
}

/// Where a mapping path leaves `schema` (the root of a version's structural schema): the
/// path of the first step the schema has no place for, and what the schema has there
/// instead. `None` when the schema has a place for the whole path (or leaves it open:
/// `x-kubernetes-preserve-unknown-fields`, maps, `metadata`, `apiVersion`, `kind`).
pub fn unknown_in_schema(
    schema: &crate::schema::structural::Structural,
    path: &[Step],
) -> Option<(String, String)> {
    // The server handles these itself; every object has them.
    if let Some(Step::Key(first)) = path.first() {
        if matches!(first.as_str(), "apiVersion" | "kind" | "metadata") {
            return None;
        }
    }
    let mut node = schema;
    for (i, step) in path.iter().enumerate() {
        let so_far = || path_text(path.get(..=i).unwrap_or(path));
        let parent = || {
            if i == 0 {
                "the root".to_owned()
            } else {
                path_text(path.get(..i).unwrap_or(path))
            }
        };
        if node.extensions.x_preserve_unknown_fields || node.extensions.x_int_or_string {
            return None;
        }
        match step {
            Step::Key(k) => {
                if let Some(next) = node.properties.get(k) {
                    node = next;
                    continue;
                }
                if let Some(next) = node
                    .additional_properties
                    .as_ref()
                    .and_then(|a| a.structural.as_deref())
                {
                    node = next;
                    continue;
                }
                if open_object(node)
                    || (node.extensions.x_embedded_resource
                        && matches!(k.as_str(), "apiVersion" | "kind" | "metadata"))
                {
                    return None;
                }
                let kind = node.generic.type_.as_str();
                let what = if kind.is_empty() || kind == "object" {
                    let known: Vec<&str> = node.properties.keys().map(String::as_str).collect();
                    if known.is_empty() {
                        format!("{} has no properties", parent())
                    } else {
                        format!("{} has {}", parent(), known.join(", "))
                    }
                } else {
                    format!("{} is of type {kind}", parent())
                };
                return Some((so_far(), what));
            }
            Step::Index(_) => match node.items.as_deref() {
                Some(next) => node = next,
                None => {
                    let kind = node.generic.type_.as_str();
                    return Some((
                        so_far(),
                        format!("{} is of type {kind}, not a list", parent()),
                    ));
                }
            },
        }
    }
    None
}

/// The paths a rule writes in the target version (its targets), and the ones it reads in
/// the source version.
pub(super) fn targets_and_sources(rule: &Rule) -> (Vec<&[Step]>, Vec<&[Step]>) {
    match &rule.kind {
        RuleKind::Move { from, to } | RuleKind::Copy { from, to } => (vec![to], vec![from]),
        RuleKind::Set { path, .. } | RuleKind::Cel { path, .. } => (vec![path], Vec::new()),
        // Removing a field the target schema does not have is harmless (pruning would).
        RuleKind::Drop { .. } => (Vec::new(), Vec::new()),
    }
}

/// Checks every rule's paths against the versions' schemas: a target the target version's
/// schema has no place for (the server would prune what the rule writes), a source the
/// source version's schema has none for (the rule reads nothing there). `schema_of` gives a
/// version's structural schema.
pub fn check_paths<'s>(
    set: &MappingSet,
    schema_of: impl Fn(&str) -> Option<&'s crate::schema::structural::Structural>,
) -> Vec<MappingIssue> {
    let mut issues = Vec::new();
    for m in &set.mappings {
        for rule in &m.rules {
            let (targets, sources) = targets_and_sources(rule);
            if let Some(schema) = schema_of(&m.to) {
                for t in targets {
                    if let Some((at, what)) = unknown_in_schema(schema, t) {
                        issues.push(MappingIssue::new(
                            Severity::Error,
                            "mapping.unknown-target",
                            format!(
                                "{}: target field {at} is not in the schema of {} ({what}): the server would prune what the rule writes",
                                rule.summary(),
                                m.to
                            ),
                            Some(rule.location),
                        ));
                    }
                }
            }
            if let Some(schema) = schema_of(&m.from) {
                for src in sources {
                    if let Some((at, what)) = unknown_in_schema(schema, src) {
                        issues.push(MappingIssue::new(
                            Severity::Warning,
                            "mapping.unknown-source",
                            format!(
                                "{}: source field {at} is not in the schema of {} ({what}): the rule never finds a value there",
                                rule.summary(),
                                m.from
                            ),
                            Some(rule.location),
                        ));
                    }
                }
            }
        }
    }
    issues
}
