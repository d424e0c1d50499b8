//! YAML and JSON texts parsed into value trees that remember where every node came from.
//!
//! The API server never sees YAML: `kubectl` (through `sigs.k8s.io/yaml`, a YAML 1.1 decoder
//! derived from go-yaml v2) turns it into JSON first. This module follows that conversion, so a
//! node's value is what the server receives, and it reports where the conversion surprises
//! people (`country: NO` became `false`).
//!
//! Syntax comes from libyaml ([`crate::documents::yaml_events`]) — the C library go-yaml v2 itself was
//! ported from, so the same texts are accepted and rejected with the same problem messages. Scalar resolution, anchors, aliases,
//! merge keys, duplicate keys and the limits are ours, written after go-yaml v2's rules.

use std::collections::{HashMap, HashSet};

use crate::documents::yaml_events::{
    Error as YamlError, ErrorKind, Event, EventData, Mark, Parser, ScalarStyle,
};

use crate::documents::finding::{Finding, Location, SourceId};
use crate::documents::position::{LineIndex, Pos, Span};
use crd_studio_gostd::strconv::quote as go_quote;

/// The largest request body the API server accepts (`MaxRequestBodyBytes`, 3 MiB).
pub const MAX_REQUEST_BYTES: usize = 3 * 1024 * 1024;

/// The deepest nesting the server's decoders accept (go-yaml's and the JSON decoder's limit).
pub const SERVER_MAX_DEPTH: usize = 10_000;

/// The deepest nesting CRD Studio analyses. Every later step (pruning, validation, the
/// browser's own call stack when dropping deep values) is bounded by it; real CRDs and
/// objects nest a few dozen levels.
pub const MAX_DEPTH: usize = 512;

/// The most aliases may add to one text, all its documents together (24 MiB: 8 ×
/// [`MAX_REQUEST_BYTES`]), counted as the JSON the expanded values would take, and checked at
/// each alias before its value is copied.
///
/// go-yaml's alias ratio counts nodes, not bytes, so a few aliases of a large scalar pass it,
/// and the server would build the whole expansion. It could never store it: etcd refuses a
/// request over 1.5 MiB by default, so no object (and no CRD) that expands past a few MiB
/// exists in a cluster. Eight times the request limit leaves room for every document the
/// server could keep while bounding what one text can make CRD Studio allocate.
pub const MAX_ALIAS_EXPANSION_BYTES: usize = 8 * MAX_REQUEST_BYTES;

/// A value as the server receives it, with the range of text it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where it is in the text (for a value reached through an alias: the alias).
    pub span: Span,
}

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer that fits in 64 bits.
    Int(i64),
    /// Any other number.
    Float(f64),
    /// A string.
    String(String),
    /// An array.
    Seq(Vec<Node>),
    /// An object, keys in the order they were written (each key once).
    Map(Vec<Entry>),
}

/// One key of an object.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The key, as a JSON string.
    pub key: String,
    /// Where the key is written.
    pub key_span: Span,
    /// The value.
    pub value: Node,
}

impl Value {
    /// The word Go's JSON decoder uses for this kind of value in "cannot unmarshal X" errors
    /// (`UnmarshalTypeError.Value`): `null`, `bool`, `number`, `string`, `array`, `object`.
    pub fn go_json_kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::Float(_) => "number",
            Value::String(_) => "string",
            Value::Seq(_) => "array",
            Value::Map(_) => "object",
        }
    }
}

impl Node {
    /// The value of `key` if this node is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries.iter().find(|e| e.key == key).map(|e| &e.value),
            _ => None,
        }
    }

    /// The entry of `key` if this node is an object that has it.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        match &self.value {
            Value::Map(entries) => entries.iter().find(|e| e.key == key),
            _ => None,
        }
    }

    /// The string value, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The entries, if this is an object.
    pub fn as_map(&self) -> Option<&[Entry]> {
        match &self.value {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The JSON type name of the value (`object`, `array`, `string`, `integer`, `number`,
    /// `boolean`, `null`).
    pub fn type_name(&self) -> &'static str {
        match &self.value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "number",
            Value::String(_) => "string",
            Value::Seq(_) => "array",
            Value::Map(_) => "object",
        }
    }

    /// The value as `serde_json` data (object keys sorted, as Go's encoder writes them).
    /// Iterative, so any depth the parser accepted is safe.
    pub fn to_json(&self) -> serde_json::Value {
        to_json(self)
    }
}

/// Converts a node to `serde_json` without recursion.
fn to_json(root: &Node) -> serde_json::Value {
    enum Work<'a> {
        Visit(&'a Node),
        BuildSeq(usize),
        BuildMap(Vec<&'a str>),
    }
    let mut work = vec![Work::Visit(root)];
    let mut out: Vec<serde_json::Value> = Vec::new();
    while let Some(item) = work.pop() {
        match item {
            Work::Visit(node) => match &node.value {
                Value::Null => out.push(serde_json::Value::Null),
                Value::Bool(b) => out.push(serde_json::Value::Bool(*b)),
                Value::Int(i) => out.push(serde_json::Value::from(*i)),
                Value::Float(f) => out.push(
                    serde_json::Number::from_f64(*f)
                        .map(serde_json::Value::Number)
                        .unwrap_or(serde_json::Value::Null),
                ),
                Value::String(s) => out.push(serde_json::Value::String(s.clone())),
                Value::Seq(items) => {
                    work.push(Work::BuildSeq(items.len()));
                    work.extend(items.iter().rev().map(Work::Visit));
                }
                Value::Map(entries) => {
                    work.push(Work::BuildMap(
                        entries.iter().map(|e| e.key.as_str()).collect(),
                    ));
                    work.extend(entries.iter().rev().map(|e| Work::Visit(&e.value)));
                }
            },
            Work::BuildSeq(n) => {
                let items = out.split_off(out.len().saturating_sub(n));
                out.push(serde_json::Value::Array(items));
            }
            Work::BuildMap(keys) => {
                let values = out.split_off(out.len().saturating_sub(keys.len()));
                let map = keys
                    .into_iter()
                    .map(str::to_owned)
                    .zip(values)
                    .collect::<serde_json::Map<_, _>>();
                out.push(serde_json::Value::Object(map));
            }
        }
    }
    out.pop().unwrap_or(serde_json::Value::Null)
}

impl Drop for Node {
    /// Drops deep trees without deep recursion.
    fn drop(&mut self) {
        let mut stack: Vec<Node> = Vec::new();
        take_children(&mut self.value, &mut stack);
        while let Some(mut node) = stack.pop() {
            take_children(&mut node.value, &mut stack);
        }
    }
}

fn take_children(value: &mut Value, stack: &mut Vec<Node>) {
    match value {
        Value::Seq(items) => stack.append(items),
        Value::Map(entries) => stack.extend(std::mem::take(entries).into_iter().map(|e| e.value)),
        _ => {}
    }
}

/// One YAML document of a text.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// 0-based index of the document in its text.
    pub index: usize,
    /// The root value; `None` for an empty document or one that could not be read.
    pub root: Option<Node>,
    /// Where the document is.
    pub span: Span,
    /// Whether reading the document failed (the findings say why).
    pub failed: bool,
}

/// A parsed text: its documents and what was found while reading it.
#[derive(Clone, Debug)]
pub struct ParsedText {
    /// Which text this is.
    pub source: SourceId,
    /// The documents, in order.
    pub documents: Vec<Document>,
    /// Syntax errors, limits, duplicate keys, YAML 1.1 surprises.
    pub findings: Vec<Finding>,
    /// Line index of the text, to turn offsets into positions later.
    pub lines: LineIndex,
    /// Whether an alias was expanded or a merge key applied ([`reparse_tracked`] then parses in full).
    pub(crate) aliased: bool,
    /// Whether the text has neither a `\r` nor a BOM (else [`reparse_tracked`] parses in full).
    pub(crate) plain: bool,
}

impl ParsedText {
    /// The documents that have a value.
    pub fn values(&self) -> impl Iterator<Item = (&Document, &Node)> {
        self.documents
            .iter()
            .filter_map(|d| d.root.as_ref().map(|r| (d, r)))
    }
}

/// Parses `text` (YAML, possibly several documents, or JSON) as `kubectl` would turn it into
/// JSON for the server. Never fails: problems become findings.
pub fn parse(text: &str, source: SourceId) -> ParsedText {
    let lines = LineIndex::new(text);
    let mut out = ParsedText {
        source,
        documents: Vec::new(),
        findings: Vec::new(),
        lines,
        aliased: false,
        plain: !text.as_bytes().contains(&b'\r') && !text.contains('\u{feff}'),
    };
    if text.len() > MAX_REQUEST_BYTES {
        let span = Span::point(Pos {
            offset: 0,
            line: 1,
            column: 1,
            utf16_column: 1,
        });
        out.findings.push(
            Finding::error(
                "request.too-large",
                format!("Request entity too large: limit is {MAX_REQUEST_BYTES}"),
            )
            .at(Location {
                source,
                document: 0,
                span,
            }),
        );
        return out;
    }
    let mut builder = Builder {
        text,
        last_pos: std::cell::Cell::new(Pos::default()),
        source,
        lines: &out.lines,
        findings: Vec::new(),
        documents: Vec::new(),
        aliased: false,
        stop: false,
        alias_bytes: 0,
    };
    builder.run();
    out.findings = builder.findings;
    out.documents = builder.documents;
    out.aliased = builder.aliased;
    out
}

mod reparse;
pub use reparse::*;

/// A node being built: a collection waiting for its children.
enum Frame {
    Seq {
        items: Vec<Node>,
        start: Pos,
        anchor: Option<String>,
        size: usize,
        bytes: usize,
    },
    Map {
        entries: Vec<Entry>,
        index: HashMap<String, usize>,
        key: Option<KeyState>,
        start: Pos,
        anchor: Option<String>,
        size: usize,
        bytes: usize,
        merged: HashSet<String>,
    },
}

/// The key of a mapping entry, once read.
enum KeyState {
    Key(String, Span),
    Merge(Span),
    Invalid,
}

/// A finished node plus facts the parent needs.
struct Built {
    node: Node,
    /// Nodes decoded to produce it (go-yaml's `decodeCount` share), for the alias limit.
    size: usize,
    /// About the length of its JSON text (for the alias expansion limit).
    bytes: usize,
    /// For scalars: was it written as a plain `<<`?
    merge_key: bool,
    /// A scalar (or an alias of one): its value may be a key ([`key_text`] says whether it
    /// can). Collections can't.
    keyable: bool,
}

struct Builder<'a> {
    text: &'a str,
    /// The last position computed (see [`Builder::pos`]).
    last_pos: std::cell::Cell<Pos>,
    source: SourceId,
    lines: &'a LineIndex,
    findings: Vec<Finding>,
    documents: Vec<Document>,
    /// Whether an alias was expanded or a merge key applied.
    aliased: bool,
    /// Set when reading must stop at once (see [`Builder::run`]).
    stop: bool,
    /// Bytes added by aliases so far, in all documents of the text (see
    /// [`MAX_ALIAS_EXPANSION_BYTES`]).
    alias_bytes: usize,
}

/// Per-document state.
struct DocState {
    stack: Vec<Frame>,
    /// Each anchor's node, its `size` and its `bytes` (see [`Built`]).
    anchors: HashMap<String, (Node, usize, usize)>,
    root: Option<Node>,
    decode_count: usize,
    alias_count: usize,
    start: Pos,
    failed: bool,
}

impl DocState {
    fn new(start: Pos) -> DocState {
        DocState {
            stack: Vec::new(),
            anchors: HashMap::new(),
            root: None,
            decode_count: 0,
            alias_count: 0,
            start,
            failed: false,
        }
    }
}

/// go-yaml v2's limit on how much of a document may come from alias expansion.
fn allowed_alias_ratio(decode_count: usize) -> f64 {
    const LOW: f64 = 400_000.0;
    const HIGH: f64 = 4_000_000.0;
    let n = decode_count as f64;
    if n <= LOW {
        0.99
    } else if n >= HIGH {
        0.10
    } else {
        0.99 - 0.89 * ((n - LOW) / (HIGH - LOW))
    }
}

impl<'a> Builder<'a> {
    fn pos(&self, m: &Mark) -> Pos {
        // libyaml counts `index` in bytes. Marks arrive mostly left to right: continue from
        // the last one so long lines cost linear time.
        let offset = m.index;
        let pos = self
            .lines
            .pos_at_offset_from(self.text, offset, Some(self.last_pos.get()));
        self.last_pos.set(pos);
        pos
    }

    fn span(&self, e: &Event) -> Span {
        Span {
            start: self.pos(&e.start),
            end: self.pos(&e.end),
        }
    }

    fn loc(&self, document: usize, span: Span) -> Location {
        Location {
            source: self.source,
            document,
            span,
        }
    }

    fn push_finding(&mut self, document: usize, span: Span, finding: Finding) {
        let loc = self.loc(document, span);
        self.findings.push(finding.at(loc));
    }

    fn run(&mut self) {
        let Some(mut parser) = Parser::new(self.text) else {
            self.findings
                .push(Finding::error("yaml.internal", "yaml: out of memory"));
            return;
        };
        let mut doc: Option<DocState> = None;
        while let Some(next) = parser.next_event() {
            let event = match next {
                Ok(ev) => ev,
                Err(err) => {
                    self.syntax_error(&err, doc.as_ref().map(|d| d.start));
                    return;
                }
            };
            let span = self.span(&event);
            match event.data {
                EventData::StreamEnd => break,
                EventData::StreamStart => {}
                EventData::DocumentStart => doc = Some(DocState::new(span.start)),
                EventData::DocumentEnd => {
                    if let Some(state) = doc.take() {
                        let index = self.documents.len();
                        let end = state.root.as_ref().map(|r| r.span.end).unwrap_or(span.end);
                        self.documents.push(Document {
                            index,
                            // An empty document (or one holding only `null`) is skipped, as
                            // kubectl skips it.
                            root: if state.failed {
                                None
                            } else {
                                state.root.filter(|r| r.value != Value::Null)
                            },
                            span: Span {
                                start: state.start,
                                end,
                            },
                            failed: state.failed,
                        });
                    }
                }
                other => {
                    let Some(state) = doc.as_mut() else { continue };
                    if state.failed {
                        continue;
                    }
                    self.event(state, other, span);
                    if self.stop {
                        // Too deep: libyaml's scanner does work per token for every open
                        // flow level, so reading on through a million `[` would take
                        // quadratic time. The rest of the text is not read.
                        let index = self.documents.len();
                        self.documents.push(Document {
                            index,
                            root: None,
                            span: Span {
                                start: state.start,
                                end: span.end,
                            },
                            failed: true,
                        });
                        return;
                    }
                }
            }
        }
    }

    /// Reports a libyaml error as go-yaml words it (`yaml: line N: <problem>`; go-yaml
    /// numbers parser errors from 0 and scanner errors from 1) at the problem's position.
    fn syntax_error(&mut self, err: &YamlError, doc_start: Option<Pos>) {
        let pos = if err.kind == ErrorKind::Reader {
            self.lines.pos_at_offset(self.text, err.problem_offset)
        } else {
            self.pos(&err.problem_mark)
        };
        let problem_line = err.problem_mark.line;
        let go_line = if problem_line != 0 {
            problem_line + usize::from(err.kind == ErrorKind::Scanner)
        } else {
            err.context_mark.line
        };
        let problem = if err.problem.is_empty() {
            "unknown problem parsing YAML content"
        } else {
            err.problem.as_str()
        };
        let message = if go_line != 0 {
            format!("yaml: line {go_line}: {problem}")
        } else {
            format!("yaml: {problem}")
        };
        let line_span = self.lines.line_span(self.text, pos.line);
        let span = Span {
            start: pos,
            end: if line_span.end.offset > pos.offset {
                line_span.end
            } else {
                pos
            },
        };
        let index = self.documents.len();
        self.push_finding(index, span, Finding::error("yaml.syntax", message));
        self.documents.push(Document {
            index,
            root: None,
            span: Span {
                start: doc_start.unwrap_or(pos),
                end: pos,
            },
            failed: true,
        });
    }

    fn fail(&mut self, state: &mut DocState, span: Span, finding: Finding) {
        let index = self.documents.len();
        self.push_finding(index, span, finding);
        state.failed = true;
        state.stack.clear();
    }

    fn event(&mut self, state: &mut DocState, event: EventData, span: Span) {
        match event {
            EventData::Scalar {
                value,
                style,
                anchor,
                tag,
            } => {
                let built = self.scalar(value, style, tag.as_deref(), span);
                if let Some(anchor) = anchor {
                    state
                        .anchors
                        .insert(anchor, (built.node.clone(), 1, built.bytes));
                }
                self.complete(state, built);
            }
            EventData::SequenceStart { .. } | EventData::MappingStart { .. } => {
                let is_seq = matches!(event, EventData::SequenceStart { .. });
                let (EventData::SequenceStart { anchor, .. }
                | EventData::MappingStart { anchor, .. }) = event
                else {
                    return;
                };
                if state.stack.len() >= MAX_DEPTH {
                    self.fail(
                        state,
                        span,
                        Finding::error(
                            "studio.too-deep",
                            format!(
                                "this document nests more than {MAX_DEPTH} levels deep: CRD Studio \
                                 does not analyse it (the server accepts up to {SERVER_MAX_DEPTH})"
                            ),
                        ),
                    );
                    self.stop = true;
                    return;
                }
                let frame = if is_seq {
                    Frame::Seq {
                        items: Vec::new(),
                        start: span.start,
                        anchor,
                        size: 1,
                        bytes: 2,
                    }
                } else {
                    Frame::Map {
                        entries: Vec::new(),
                        index: HashMap::new(),
                        key: None,
                        start: span.start,
                        anchor,
                        size: 1,
                        bytes: 2,
                        merged: HashSet::new(),
                    }
                };
                state.stack.push(frame);
            }
            EventData::SequenceEnd | EventData::MappingEnd => {
                let Some(frame) = state.stack.pop() else {
                    return;
                };
                // The tree is kept as long as the text's analysis (a large CRD's is most of
                // the CLI's peak memory): each collection gives back what its growth left over.
                let (value, start, anchor, size, bytes) = match frame {
                    Frame::Seq {
                        mut items,
                        start,
                        anchor,
                        size,
                        bytes,
                    } => {
                        items.shrink_to_fit();
                        (Value::Seq(items), start, anchor, size, bytes)
                    }
                    Frame::Map {
                        mut entries,
                        start,
                        anchor,
                        size,
                        bytes,
                        ..
                    } => {
                        entries.shrink_to_fit();
                        (Value::Map(entries), start, anchor, size, bytes)
                    }
                };
                let last_end = match &value {
                    Value::Seq(items) => items.last().map(|n| n.span.end),
                    Value::Map(entries) => entries.iter().map(|e| e.value.span.end).max(),
                    _ => None,
                };
                // Block collections "end" where the next token starts; stop at the last child.
                let end = match last_end {
                    Some(last) if last.line != span.end.line => last,
                    _ => span.end,
                };
                let node = Node {
                    value,
                    span: Span { start, end },
                };
                if let Some(anchor) = anchor {
                    state.anchors.insert(anchor, (node.clone(), size, bytes));
                }
                self.complete(
                    state,
                    Built {
                        node,
                        size,
                        bytes,
                        merge_key: false,
                        keyable: false,
                    },
                );
            }
            EventData::Alias { anchor } => {
                self.aliased = true;
                let Some(&(_, size, bytes)) = state.anchors.get(&anchor) else {
                    self.fail(
                        state,
                        span,
                        Finding::error(
                            "yaml.unknown-anchor",
                            format!("yaml: unknown anchor '{anchor}' referenced"),
                        ),
                    );
                    return;
                };
                state.decode_count = state.decode_count.saturating_add(size + 1);
                state.alias_count = state.alias_count.saturating_add(size);
                if state.alias_count > 100
                    && state.decode_count > 1000
                    && (state.alias_count as f64 / state.decode_count as f64)
                        > allowed_alias_ratio(state.decode_count)
                {
                    self.fail(
                        state,
                        span,
                        Finding::error(
                            "yaml.excessive-aliasing",
                            "yaml: document contains excessive aliasing",
                        ),
                    );
                    return;
                }
                if state.decode_count > MAX_REQUEST_BYTES {
                    self.fail(
                        state,
                        span,
                        Finding::error(
                            "request.too-large",
                            format!(
                                "Request entity too large: limit is {MAX_REQUEST_BYTES} \
                                 (after alias expansion)"
                            ),
                        ),
                    );
                    return;
                }
                self.alias_bytes = self.alias_bytes.saturating_add(bytes);
                if self.alias_bytes > MAX_ALIAS_EXPANSION_BYTES {
                    self.fail(
                        state,
                        span,
                        Finding::error(
                            "studio.alias-expansion",
                            format!(
                                "aliases make this text larger than \
                                 {MAX_ALIAS_EXPANSION_BYTES} bytes: CRD Studio does not analyse \
                                 this document (the limit is 8 times the server's {MAX_REQUEST_BYTES}-byte \
                                 request limit; etcd refuses objects over 1.5 MiB)"
                            ),
                        ),
                    );
                    return;
                }
                // Checked: now the copy is bounded.
                let Some((node, _, _)) = state.anchors.get(&anchor).cloned() else {
                    return;
                };
                let keyable = !matches!(node.value, Value::Map(_) | Value::Seq(_));
                let mut node = node;
                node.span = span;
                self.complete(
                    state,
                    Built {
                        node,
                        size,
                        bytes,
                        merge_key: false,
                        keyable,
                    },
                );
            }
            _ => {}
        }
    }

    /// Hands a finished node to its parent (or makes it the document root).
    fn complete(&mut self, state: &mut DocState, mut built: Built) {
        state.decode_count = state.decode_count.saturating_add(1);
        let document = self.documents.len();
        let Some(frame) = state.stack.last_mut() else {
            state.root = Some(built.node);
            return;
        };
        match frame {
            Frame::Seq {
                items, size, bytes, ..
            } => {
                *size += built.size;
                *bytes = bytes.saturating_add(built.bytes + 1);
                items.push(built.node);
            }
            Frame::Map {
                entries,
                index,
                key,
                size,
                bytes,
                merged,
                ..
            } => {
                *size += built.size;
                *bytes = bytes.saturating_add(built.bytes + 1);
                match key.take() {
                    None => {
                        let span = built.node.span;
                        *key = Some(if built.merge_key {
                            KeyState::Merge(span)
                        } else {
                            let kind = built.node.type_name();
                            let key_text = built.keyable.then(|| {
                                key_text(std::mem::replace(&mut built.node.value, Value::Null))
                            });
                            match key_text {
                                Some(Ok(k)) => KeyState::Key(k, span),
                                Some(Err(msg)) => {
                                    self.findings.push(
                                        Finding::error("yaml.unsupported-key", msg).at(Location {
                                            source: self.source,
                                            document,
                                            span,
                                        }),
                                    );
                                    KeyState::Invalid
                                }
                                None => {
                                    self.findings.push(
                                        Finding::error(
                                            "yaml.unsupported-key",
                                            format!(
                                                "yaml: invalid map key: a{} {} cannot be a key",
                                                "n", kind
                                            ),
                                        )
                                        .at(Location {
                                            source: self.source,
                                            document,
                                            span,
                                        }),
                                    );
                                    KeyState::Invalid
                                }
                            }
                        });
                    }
                    Some(KeyState::Invalid) => {}
                    Some(KeyState::Merge(span)) => {
                        self.aliased = true;
                        let mut sources: Vec<&Node> = Vec::new();
                        let ok = match &built.node.value {
                            Value::Map(_) => {
                                sources.push(&built.node);
                                true
                            }
                            // Earlier maps of the sequence take precedence: apply them last.
                            Value::Seq(list) => list.iter().rev().all(|n| {
                                sources.push(n);
                                matches!(n.value, Value::Map(_))
                            }),
                            _ => false,
                        };
                        if !ok {
                            self.findings.push(
                                Finding::error(
                                    "yaml.merge",
                                    "yaml: map merge requires map or sequence of maps as the value",
                                )
                                .at(Location {
                                    source: self.source,
                                    document,
                                    span,
                                }),
                            );
                            return;
                        }
                        for src in sources {
                            for e in src.as_map().unwrap_or(&[]) {
                                merged.insert(e.key.clone());
                                set_entry(entries, index, e.clone());
                            }
                        }
                    }
                    Some(KeyState::Key(k, key_span)) => {
                        if position(entries, index, &k).is_some() && !merged.contains(&k) {
                            // go-yaml reports the line of the value, not of the key.
                            self.findings.push(
                                Finding::error(
                                    "yaml.duplicate-key",
                                    format!(
                                        "line {}: key {} already set in map",
                                        built.node.span.start.line,
                                        go_quote(&k)
                                    ),
                                )
                                .at(Location {
                                    source: self.source,
                                    document,
                                    span: key_span,
                                }),
                            );
                        }
                        if !merged.is_empty() {
                            merged.remove(&k);
                        }
                        set_entry(
                            entries,
                            index,
                            Entry {
                                key: k,
                                key_span,
                                value: built.node,
                            },
                        );
                    }
                }
            }
        }
    }

    /// Resolves a scalar as go-yaml v2 does (YAML 1.1 rules), then as `sigs.k8s.io/yaml` turns
    /// it into JSON.
    fn scalar(&mut self, text: String, style: ScalarStyle, tag: Option<&str>, span: Span) -> Built {
        let merge_key = matches!(style, ScalarStyle::Plain) && text == "<<";
        // The text and quotes (escapes may add a little; this is a bound's measure).
        let bytes = text.len() + 2;
        let plain = matches!(style, ScalarStyle::Plain);
        let document = self.documents.len();
        let forced_string = matches!(
            tag,
            Some("tag:yaml.org,2002:str" | "!!str" | "!" | "tag:yaml.org,2002:binary" | "!!binary")
        );
        let resolve = (plain || tag.is_some()) && !forced_string;
        let value = if resolve {
            resolve_plain(&text)
        } else {
            Resolved::Str
        };
        let value = match value {
            Resolved::Str => Value::String(text),
            Resolved::Null => Value::Null,
            Resolved::Bool(b) => {
                if !matches!(
                    text.as_str(),
                    "true" | "false" | "True" | "False" | "TRUE" | "FALSE"
                ) {
                    self.findings.push(
                        Finding::warning(
                            "yaml.yaml11-bool",
                            format!(
                                "`{text}` became {b}: YAML 1.1 reads it as a boolean; quote it (\"{text}\") to keep the string"
                            ),
                        )
                        .at(self.loc(document, span)),
                    );
                }
                Value::Bool(b)
            }
            Resolved::Int(i) => {
                if looks_surprising_int(&text) {
                    self.findings.push(
                        Finding::warning(
                            "yaml.yaml11-int",
                            format!(
                                "`{text}` became {i}: YAML 1.1 reads it as a number in another base or with digit separators; quote it to keep the string"
                            ),
                        )
                        .at(self.loc(document, span)),
                    );
                }
                Value::Int(i)
            }
            Resolved::Float(f) => {
                if !f.is_finite() {
                    self.findings.push(
                        Finding::error(
                            "yaml.unsupported-number",
                            format!(
                                "error converting YAML to JSON: json: unsupported value: {}",
                                go_float_name(f)
                            ),
                        )
                        .at(self.loc(document, span)),
                    );
                    Value::Null
                } else {
                    json_number(f)
                }
            }
        };
        Built {
            merge_key,
            node: Node { value, span },
            size: 1,
            bytes,
            keyable: true,
        }
    }
}

/// The text a scalar key becomes ([`scalar_key_text`]), taking a string's text as it is.
fn key_text(value: Value) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s),
        v => scalar_key_text(&v),
    }
}

/// From this many entries on, a map being built keeps a key index; smaller maps (nearly all)
/// are searched in order, without a copy of each key.
const INDEX_FROM: usize = 16;

/// Where `key` is among the entries of a map being built (`index` is empty until the map has
/// [`INDEX_FROM`] entries).
fn position(entries: &[Entry], index: &HashMap<String, usize>, key: &str) -> Option<usize> {
    if index.is_empty() {
        entries.iter().position(|e| e.key == key)
    } else {
        index.get(key).copied()
    }
}

/// Sets `entry` in a map being built: a later value of the same key replaces the earlier one.
fn set_entry(entries: &mut Vec<Entry>, index: &mut HashMap<String, usize>, entry: Entry) {
    match position(entries, index, &entry.key) {
        Some(i) => {
            if let Some(slot) = entries.get_mut(i) {
                *slot = entry;
            }
        }
        None => {
            if !index.is_empty() {
                index.insert(entry.key.clone(), entries.len());
            }
            entries.push(entry);
            if index.is_empty() && entries.len() >= INDEX_FROM {
                *index = entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (e.key.clone(), i))
                    .collect();
            }
        }
    }
}

mod scalars;
use scalars::*;

#[cfg(test)]
mod tests;
