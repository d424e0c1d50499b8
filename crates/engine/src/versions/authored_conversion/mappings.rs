//! Mappings: reading a mapping text (located issues) and applying a mapping to an object.

use super::*;

/// Where something is in the mapping texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MappingLocation {
    /// Which mapping text (0-based).
    pub mapping: usize,
    /// The range in that text.
    pub span: Span,
}

/// A problem or note about the mappings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MappingIssue {
    /// Error, warning or info.
    pub severity: Severity,
    /// A stable code (`mapping.syntax`, `mapping.cel`, `conversion.round-trip`, ...).
    pub code: String,
    /// The message.
    pub message: String,
    /// Where it is, when it is in a mapping text.
    pub location: Option<MappingLocation>,
}

impl MappingIssue {
    pub(super) fn new(
        severity: Severity,
        code: &str,
        message: impl Into<String>,
        location: Option<MappingLocation>,
    ) -> MappingIssue {
        MappingIssue {
            severity,
            code: code.to_owned(),
            message: message.into(),
            location,
        }
    }
}

/// What a rule does.
#[derive(Clone, Debug)]
pub enum RuleKind {
    /// `move: {from, to}`.
    Move {
        /// Read from the source, removed from the output.
        from: Vec<Step>,
        /// Written.
        to: Vec<Step>,
    },
    /// `copy: {from, to}`.
    Copy {
        /// Read from the source.
        from: Vec<Step>,
        /// Written.
        to: Vec<Step>,
    },
    /// `set: {path, value}`.
    Set {
        /// Written.
        path: Vec<Step>,
        /// The value.
        value: Json,
    },
    /// `cel: {path, expr}`.
    Cel {
        /// Written.
        path: Vec<Step>,
        /// The compiled program.
        program: Box<Program>,
    },
    /// `drop: path`.
    Drop {
        /// Removed from the output.
        path: Vec<Step>,
    },
}

/// One rule of a mapping.
#[derive(Clone, Debug)]
pub struct Rule {
    /// What it does.
    pub kind: RuleKind,
    /// Where the rule item is.
    pub location: MappingLocation,
}

impl Rule {
    /// A short text: `move .spec.a → .spec.b`.
    pub fn summary(&self) -> String {
        match &self.kind {
            RuleKind::Move { from, to } => format!("move {} → {}", path_text(from), path_text(to)),
            RuleKind::Copy { from, to } => format!("copy {} → {}", path_text(from), path_text(to)),
            RuleKind::Set { path, .. } => format!("set {}", path_text(path)),
            RuleKind::Cel { path, .. } => format!("cel {}", path_text(path)),
            RuleKind::Drop { path } => format!("drop {}", path_text(path)),
        }
    }

    /// The paths the rule reads in the source (its "from" side).
    pub(super) fn reads(&self) -> Vec<&[Step]> {
        match &self.kind {
            RuleKind::Move { from, .. } | RuleKind::Copy { from, .. } => vec![from],
            RuleKind::Drop { path } => vec![path],
            _ => Vec::new(),
        }
    }

    /// The paths the rule writes in the output.
    pub(super) fn writes(&self) -> Vec<&[Step]> {
        match &self.kind {
            RuleKind::Move { from, to } => vec![to, from],
            RuleKind::Copy { to, .. } => vec![to],
            RuleKind::Set { path, .. } | RuleKind::Cel { path, .. } | RuleKind::Drop { path } => {
                vec![path]
            }
        }
    }
}

/// One mapping (a version pair).
#[derive(Clone, Debug)]
pub struct Mapping {
    /// The source version.
    pub from: String,
    /// The target version.
    pub to: String,
    /// The rules, in order.
    pub rules: Vec<Rule>,
    /// Where the mapping document is.
    pub location: MappingLocation,
}

/// The mappings of all texts, and what is wrong with them.
#[derive(Clone, Debug, Default)]
pub struct MappingSet {
    /// The valid mappings.
    pub mappings: Vec<Mapping>,
    /// Problems found reading them.
    pub issues: Vec<MappingIssue>,
}

impl MappingSet {
    /// The mapping from one version to another.
    pub fn find(&self, from: &str, to: &str) -> Option<&Mapping> {
        self.mappings.iter().find(|m| m.from == from && m.to == to)
    }
}

pub(super) struct Reader<'a> {
    pub(super) mapping: usize,
    pub(super) text: &'a str,
    pub(super) lines: &'a LineIndex,
    pub(super) issues: Vec<MappingIssue>,
    pub(super) env: &'a Env,
    pub(super) versions: &'a [String],
}

impl Reader<'_> {
    pub(super) fn at(&self, span: Span) -> Option<MappingLocation> {
        Some(MappingLocation {
            mapping: self.mapping,
            span,
        })
    }

    pub(super) fn error(&mut self, span: Span, message: impl Into<String>) {
        let loc = self.at(span);
        self.issues.push(MappingIssue::new(
            Severity::Error,
            "mapping.invalid",
            message,
            loc,
        ));
    }

    pub(super) fn string<'n>(&mut self, node: &'n Node, what: &str) -> Option<&'n str> {
        match node.as_str() {
            Some(s) => Some(s),
            None => {
                self.error(
                    node.span,
                    format!("{what} must be a string, not {}", node.type_name()),
                );
                None
            }
        }
    }

    pub(super) fn path(&mut self, node: &Node, what: &str) -> Option<Vec<Step>> {
        let text = self.string(node, what)?;
        match parse_path(text) {
            Ok(p) => Some(p),
            Err(e) => {
                self.error(node.span, e);
                None
            }
        }
    }

    /// The fields of a rule's map, checking that only `allowed` ones are given and `required`
    /// ones are.
    pub(super) fn fields<'n>(
        &mut self,
        node: &'n Node,
        kind: &str,
        allowed: &[&str],
    ) -> Option<Vec<Option<&'n Node>>> {
        let Some(entries) = node.as_map() else {
            self.error(
                node.span,
                format!(
                    "{kind} takes a map with {}",
                    allowed
                        .iter()
                        .map(|a| format!("`{a}`"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
            );
            return None;
        };
        let mut ok = true;
        for e in entries {
            if !allowed.contains(&e.key.as_str()) {
                self.error(
                    e.key_span,
                    format!(
                        "unknown field {:?} in {kind} (expected {})",
                        e.key,
                        allowed.join(", ")
                    ),
                );
                ok = false;
            }
        }
        let mut out = Vec::new();
        for a in allowed {
            let v = node.get(a);
            if v.is_none() {
                self.error(node.span, format!("{kind} needs `{a}`"));
                ok = false;
            }
            out.push(v);
        }
        ok.then_some(out)
    }

    pub(super) fn rule(&mut self, item: &Node) -> Option<Rule> {
        let location = MappingLocation {
            mapping: self.mapping,
            span: item.span,
        };
        let Some(entries) = item.as_map() else {
            self.error(
                item.span,
                "a rule is a map with one of move, copy, set, cel, drop",
            );
            return None;
        };
        let [entry] = entries else {
            self.error(
                item.span,
                "a rule has exactly one of move, copy, set, cel, drop",
            );
            return None;
        };
        let v = &entry.value;
        let kind = match entry.key.as_str() {
            k @ ("move" | "copy") => {
                let f = self.fields(v, k, &["from", "to"])?;
                let from = self.path(f.first().copied().flatten()?, "from")?;
                let to = self.path(f.get(1).copied().flatten()?, "to")?;
                if k == "move" {
                    RuleKind::Move { from, to }
                } else {
                    RuleKind::Copy { from, to }
                }
            }
            "set" => {
                let f = self.fields(v, "set", &["path", "value"])?;
                let path = self.path(f.first().copied().flatten()?, "path")?;
                let value = f.get(1).copied().flatten()?.to_json();
                RuleKind::Set { path, value }
            }
            "cel" => {
                let f = self.fields(v, "cel", &["path", "expr"])?;
                let path = self.path(f.first().copied().flatten()?, "path")?;
                let expr_node = f.get(1).copied().flatten()?;
                let expr = self.string(expr_node, "expr")?.to_owned();
                let program = self.compile(expr_node, &expr)?;
                RuleKind::Cel {
                    path,
                    program: Box::new(program),
                }
            }
            "drop" => {
                let node = if v.as_map().is_some() {
                    self.fields(v, "drop", &["path"])?
                        .first()
                        .copied()
                        .flatten()?
                } else {
                    v
                };
                RuleKind::Drop {
                    path: self.path(node, "drop")?,
                }
            }
            other => {
                self.error(
                    entry.key_span,
                    format!("unknown rule {other:?} (expected move, copy, set, cel or drop)"),
                );
                return None;
            }
        };
        Some(Rule { kind, location })
    }

    pub(super) fn compile(&mut self, node: &Node, expr: &str) -> Option<Program> {
        let checked = match self.env.compile(expr) {
            Ok(c) => c,
            Err(e) => {
                let message = e.to_string();
                let span = cel_error_span(self.text, self.lines, node, expr, &message)
                    .unwrap_or(node.span);
                let loc = self.at(span);
                self.issues.push(MappingIssue::new(
                    Severity::Error,
                    "mapping.cel",
                    format!("compilation failed: {message}"),
                    loc,
                ));
                return None;
            }
        };
        match Program::from_checked(&checked) {
            Ok(p) => Some(p),
            Err(e) => {
                self.error(node.span, format!("compilation failed: {e:?}"));
                None
            }
        }
    }

    pub(super) fn mapping(&mut self, root: &Node) -> Option<Mapping> {
        let location = MappingLocation {
            mapping: self.mapping,
            span: root.span,
        };
        let Some(entries) = root.as_map() else {
            self.error(
                root.span,
                "a mapping is a map with `from`, `to` and `rules`",
            );
            return None;
        };
        for e in entries {
            if !matches!(e.key.as_str(), "from" | "to" | "rules") {
                self.error(
                    e.key_span,
                    format!(
                        "unknown field {:?} in a mapping (expected from, to, rules)",
                        e.key
                    ),
                );
            }
        }
        let version = |this: &mut Self, key: &str| -> Option<String> {
            let Some(node) = root.get(key) else {
                this.error(root.span, format!("a mapping needs `{key}`"));
                return None;
            };
            let v = this.string(node, key)?.to_owned();
            if !this.versions.contains(&v) {
                let known = this.versions.join(", ");
                this.error(
                    node.span,
                    format!("{v} is not a version of the CRD ({known})"),
                );
                return None;
            }
            Some(v)
        };
        let from = version(self, "from");
        let to = version(self, "to");
        let mut rules = Vec::new();
        match root.get("rules") {
            None => {}
            Some(node) => match node.as_seq() {
                Some(items) => {
                    for item in items {
                        if let Some(r) = self.rule(item) {
                            rules.push(r);
                        }
                    }
                }
                None if matches!(node.value, document::Value::Null) => {}
                None => self.error(node.span, "rules must be a list"),
            },
        }
        let (from, to) = (from?, to?);
        if from == to {
            self.error(
                root.span,
                format!("a mapping from {from} to itself is never used"),
            );
            return None;
        }
        Some(Mapping {
            from,
            to,
            rules,
            location,
        })
    }
}

/// The span of a CEL compile error (`ERROR: <input>:L:C: ...`) inside the expression's
/// scalar, when it can be located.
pub(super) fn cel_error_span(
    text: &str,
    lines: &LineIndex,
    node: &Node,
    expr: &str,
    message: &str,
) -> Option<Span> {
    let (line, column) = crate::cel::rules_view::cel_error_location(message)?;
    let index = crate::cel::rules_view::code_point_index(expr, line, column)?;
    let read = ScalarText::read(text, node.span.start.offset, node.span.end.offset, expr)?;
    let (start, end) = read.source_of(index)?;
    Some(Span {
        start: lines.pos_at_offset(text, start),
        end: lines.pos_at_offset(text, end.max(start)),
    })
}

/// Reads the mapping texts against the CRD's version names, compiling the CEL expressions
/// in the environment of a Kubernetes server of `kubernetes_version`.
pub fn read_mappings(
    texts: &[String],
    versions: &[String],
    kubernetes_version: KubernetesVersion,
) -> MappingSet {
    let env = cel_env(kubernetes_version);
    let mut set = MappingSet::default();
    for (i, text) in texts.iter().enumerate() {
        let parsed = document::parse(text, SourceId::Crd);
        for f in &parsed.findings {
            set.issues.push(MappingIssue::new(
                f.severity,
                "mapping.syntax",
                f.message.clone(),
                f.location.map(|l| MappingLocation {
                    mapping: i,
                    span: l.span,
                }),
            ));
        }
        let mut reader = Reader {
            mapping: i,
            text,
            lines: &parsed.lines,
            issues: Vec::new(),
            env: &env,
            versions,
        };
        for (_, root) in parsed.values() {
            if matches!(root.value, document::Value::Null) {
                continue;
            }
            if let Some(m) = reader.mapping(root) {
                if let Some(prev) = set
                    .mappings
                    .iter()
                    .find(|p| p.from == m.from && p.to == m.to)
                {
                    let first = prev.location;
                    reader.issues.push(MappingIssue::new(
                        Severity::Error,
                        "mapping.duplicate",
                        format!(
                            "a second mapping from {} to {}: the first one (text {}, line {}) is used",
                            m.from,
                            m.to,
                            first.mapping + 1,
                            first.span.start.line
                        ),
                        Some(m.location),
                    ));
                } else {
                    set.mappings.push(m);
                }
            }
        }
        set.issues.append(&mut reader.issues);
    }
    set
}

/// Why a mapping failed on an object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleFailure {
    /// 0-based rule index.
    pub rule: usize,
    /// The message (what the webhook would answer with `Failed`).
    pub message: String,
    /// Where the rule is (`None`: no mapping exists for the version pair).
    pub location: Option<MappingLocation>,
}

/// Applies a mapping to a source object: the output object, and notes (rules that found
/// nothing to move or copy).
pub fn apply(
    mapping: &Mapping,
    source: &Json,
    group: &str,
) -> Result<(Json, Vec<String>), RuleFailure> {
    let mut out = source.clone();
    let mut notes = Vec::new();
    // The places earlier rules wrote: a move does not remove what they wrote.
    let mut written: Vec<&[Step]> = Vec::new();
    if let Json::Object(m) = &mut out {
        m.insert(
            "apiVersion".to_owned(),
            Json::String(format!("{group}/{}", mapping.to)),
        );
    }
    for (i, rule) in mapping.rules.iter().enumerate() {
        let fail = |message: String| RuleFailure {
            rule: i,
            message: format!("rule {} ({}): {message}", i + 1, rule.summary()),
            location: Some(rule.location),
        };
        match &rule.kind {
            RuleKind::Move { from, to } | RuleKind::Copy { from, to } => {
                match get_path(source, from) {
                    Some(v) => {
                        let v = v.clone();
                        let overwritten = written.iter().any(|w| related(w, from));
                        if matches!(rule.kind, RuleKind::Move { .. }) && !overwritten {
                            remove_path(&mut out, from);
                        }
                        set_path(&mut out, to, v).map_err(fail)?;
                    }
                    None => notes.push(format!(
                        "rule {} ({}): {} is missing; nothing to {}",
                        i + 1,
                        rule.summary(),
                        path_text(from),
                        if matches!(rule.kind, RuleKind::Move { .. }) {
                            "move"
                        } else {
                            "copy"
                        }
                    )),
                }
            }
            RuleKind::Set { path, value } => {
                set_path(&mut out, path, value.clone()).map_err(fail)?
            }
            RuleKind::Cel { path, program, .. } => match eval_cel(program, source).map_err(fail)? {
                Some(v) => set_path(&mut out, path, v).map_err(fail)?,
                None => {
                    remove_path(&mut out, path);
                }
            },
            RuleKind::Drop { path } => {
                remove_path(&mut out, path);
            }
        }
        if let RuleKind::Move { to, .. }
        | RuleKind::Copy { to, .. }
        | RuleKind::Set { path: to, .. }
        | RuleKind::Cel { path: to, .. } = &rule.kind
        {
            written.push(to);
        }
    }
    Ok((out, notes))
}
