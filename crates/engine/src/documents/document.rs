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
    /// Whether an alias was expanded or a merge key applied ([`reparse`] then parses in full).
    pub(crate) aliased: bool,
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

/// `parse(new, source)` computed from `old`, the parse of the text `old_text`, when an edit
/// changed only some top-level entries of a single block mapping document: the text from the
/// start of the first changed entry to the start of the first unchanged entry after the edit
/// is parsed alone, and the other entries are taken from `old` with their spans shifted.
/// `None` whenever that is not certainly what a full parse gives (then parse in full).
///
/// Why it is the same: the top-level entries of `old` start at column 0 (their keys' spans),
/// and at such a line start, in the root block mapping with nothing open, libyaml's scanner is
/// always in the same state (indentation 0, no flow collection, no pending simple key), so the
/// tokens of a run of whole entries do not depend on the text around them; positions come from
/// byte offsets only ([`LineIndex`]), so they shift with the bytes. What could tie entries
/// together is refused: aliases and merge keys (in `old` or in the re-parsed entries),
/// duplicate keys, any finding, document markers and directives (but a first `---` line),
/// `\r` line breaks, a BOM, several documents.
pub fn reparse(
    old: &ParsedText,
    old_text: &str,
    new: &str,
    source: SourceId,
) -> Option<ParsedText> {
    if old.aliased
        || !old.findings.is_empty()
        || old.source != source
        || new.len() > MAX_REQUEST_BYTES
        || new.contains('\r')
        || old_text.contains('\r')
        || new.contains('\u{feff}')
        || old_text.contains('\u{feff}')
    {
        return None;
    }
    let [doc] = old.documents.as_slice() else {
        return None;
    };
    let root = doc.root.as_ref().filter(|_| !doc.failed)?;
    let Value::Map(entries) = &root.value else {
        return None;
    };
    // A block mapping starts at its first key (a flow mapping at its `{`).
    if entries.first().map(|e| e.key_span.start) != Some(root.span.start) {
        return None;
    }
    // Where each top-level entry starts: its key, at column 0 (the first one at 0).
    let mut starts = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let start = e.key_span.start;
        if start.column != 1 || starts.last().is_some_and(|&l| l >= start.offset) {
            return None;
        }
        starts.push(if i == 0 { 0 } else { start.offset });
    }
    // The changed bytes: old_text[prefix..old_len - suffix] became new[prefix..new_len - suffix].
    let (ob, nb) = (old_text.as_bytes(), new.as_bytes());
    // (Whole blocks first: a byte-by-byte walk of megabytes costs more than the rest.)
    const BLOCK: usize = 64;
    let blocks = ob
        .chunks(BLOCK)
        .zip(nb.chunks(BLOCK))
        .take_while(|(a, b)| a == b)
        .count();
    let mut prefix = blocks * BLOCK;
    prefix = prefix.min(ob.len()).min(nb.len());
    prefix += ob
        .get(prefix..)?
        .iter()
        .zip(nb.get(prefix..)?)
        .take_while(|(a, b)| a == b)
        .count();
    while !old_text.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = ob.len().min(nb.len()) - prefix;
    let blocks = ob
        .rchunks(BLOCK)
        .zip(nb.rchunks(BLOCK))
        .take_while(|(a, b)| a == b)
        .count();
    let tail = (blocks * BLOCK).min(ob.len()).min(nb.len());
    let suffix = (tail
        + ob.get(..ob.len() - tail)?
            .iter()
            .rev()
            .zip(nb.get(..nb.len() - tail)?.iter().rev())
            .take_while(|(a, b)| a == b)
            .count())
    .min(max_suffix);
    let changed_end = ob.len() - suffix;
    // Entries a..b (b exclusive) are parsed again: from the last entry that starts before the
    // change (an insertion at an entry's start may continue the entry before it) to the first
    // one that starts after it.
    let a = starts.iter().rposition(|&s| s < prefix).unwrap_or(0);
    let b = starts
        .iter()
        .position(|&s| s > changed_end)
        .unwrap_or(starts.len())
        .max(a + 1);
    let old_start = *starts.get(a)?;
    let old_end = starts.get(b).copied().unwrap_or(ob.len());
    let delta = nb.len() as isize - ob.len() as isize;
    let new_end = old_end.checked_add_signed(delta)?;
    if new_end < old_start || (b < starts.len() && nb.get(new_end.checked_sub(1)?) != Some(&b'\n'))
    {
        return None;
    }
    let old_part = old_text.get(old_start..old_end)?;
    let new_part = new.get(old_start..new_end)?;
    // Parsing most of the text in part costs more than parsing all of it.
    if new_part.len() > new.len() / 2 {
        return None;
    }
    // No document markers or directives in the text parsed again, but for a `---` line that
    // starts the text (the same bytes start both texts then, and the part is parsed from them).
    let marker = |t: &str| {
        let t = if old_start == 0 {
            t.strip_prefix("---\n").unwrap_or(t)
        } else {
            t
        };
        t.split('\n')
            .any(|l| l.starts_with("---") || l.starts_with("...") || l.starts_with('%'))
    };
    if marker(old_part) || marker(new_part) {
        return None;
    }
    let mut part = parse(new_part, source);
    if part.aliased || !part.findings.is_empty() {
        return None;
    }
    let [part_doc] = part.documents.as_mut_slice() else {
        return None;
    };
    let part_failed = part_doc.failed;
    let part_doc_span = part_doc.span;
    let part_root = part_doc.root.as_mut().filter(|_| !part_failed)?;
    let part_root_span = part_root.span;
    let Value::Map(part_entries) = std::mem::replace(&mut part_root.value, Value::Null) else {
        return None;
    };
    if part_entries.first().map(|e| e.key_span.start) != Some(part_root_span.start)
        || part_entries.iter().any(|e| e.key_span.start.column != 1)
    {
        return None;
    }
    // Lines before the re-parsed text, and how many lines it gained.
    let line_before = old.lines.line_of_offset(old_start)?.checked_sub(1)?;
    let lines_of = |t: &str| t.bytes().filter(|&c| c == b'\n').count() as isize;
    let line_delta = lines_of(new_part) - lines_of(old_part);
    let mut out_entries: Vec<Entry> = Vec::with_capacity(entries.len() + part_entries.len());
    out_entries.extend(entries.get(..a)?.iter().cloned());
    for mut e in part_entries {
        shift_entry(&mut e, old_start as isize, line_before as isize);
        out_entries.push(e);
    }
    for e in entries.get(b..)? {
        let mut e = e.clone();
        shift_entry(&mut e, delta, line_delta);
        out_entries.push(e);
    }
    let mut keys = HashSet::with_capacity(out_entries.len());
    if !out_entries.iter().all(|e| keys.insert(e.key.as_str())) {
        return None;
    }
    // The root's and the document's span: their start from the first entry's text, their
    // end from the last one's.
    let shift_part = |p: Pos| shift_pos(p, old_start as isize, line_before as isize);
    let (root_start, doc_start) = if a == 0 {
        (
            shift_part(part_root_span.start),
            shift_part(part_doc_span.start),
        )
    } else {
        (root.span.start, doc.span.start)
    };
    let root_end = if b == starts.len() {
        shift_part(part_root_span.end)
    } else {
        shift_pos(root.span.end, delta, line_delta)
    };
    let lines = old
        .lines
        .spliced(old_start, old_end, &part.lines, new.len())?;
    Some(ParsedText {
        source,
        documents: vec![Document {
            index: 0,
            root: Some(Node {
                value: Value::Map(out_entries),
                span: Span {
                    start: root_start,
                    end: root_end,
                },
            }),
            span: Span {
                start: doc_start,
                end: root_end,
            },
            failed: false,
        }],
        findings: Vec::new(),
        lines,
        aliased: false,
    })
}

/// `p` moved by `offset` bytes and `lines` lines (its columns stay: it is on a line that
/// starts where it started).
fn shift_pos(p: Pos, offset: isize, lines: isize) -> Pos {
    Pos {
        offset: p.offset.saturating_add_signed(offset),
        line: p.line.saturating_add_signed(lines),
        ..p
    }
}

fn shift_span(s: &mut Span, offset: isize, lines: isize) {
    s.start = shift_pos(s.start, offset, lines);
    s.end = shift_pos(s.end, offset, lines);
}

/// Moves every span of an entry (see [`shift_pos`]).
fn shift_entry(e: &mut Entry, offset: isize, lines: isize) {
    shift_span(&mut e.key_span, offset, lines);
    let mut stack: Vec<&mut Node> = vec![&mut e.value];
    while let Some(node) = stack.pop() {
        shift_span(&mut node.span, offset, lines);
        match &mut node.value {
            Value::Seq(items) => stack.extend(items.iter_mut()),
            Value::Map(entries) => {
                for e in entries.iter_mut() {
                    shift_span(&mut e.key_span, offset, lines);
                    stack.push(&mut e.value);
                }
            }
            _ => {}
        }
    }
}

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
    /// For scalars: the resolved value is something a key can't be.
    key_text: Option<Result<String, String>>,
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
                let built = self.scalar(&value, style, tag.as_deref(), span);
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
                let (value, start, anchor, size, bytes) = match frame {
                    Frame::Seq {
                        items,
                        start,
                        anchor,
                        size,
                        bytes,
                    } => (Value::Seq(items), start, anchor, size, bytes),
                    Frame::Map {
                        entries,
                        start,
                        anchor,
                        size,
                        bytes,
                        ..
                    } => (Value::Map(entries), start, anchor, size, bytes),
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
                        key_text: None,
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
                let key_text = match &node.value {
                    Value::Map(_) | Value::Seq(_) => None,
                    v => Some(scalar_key_text(v)),
                };
                let mut node = node;
                node.span = span;
                self.complete(
                    state,
                    Built {
                        node,
                        size,
                        bytes,
                        merge_key: false,
                        key_text,
                    },
                );
            }
            _ => {}
        }
    }

    /// Hands a finished node to its parent (or makes it the document root).
    fn complete(&mut self, state: &mut DocState, built: Built) {
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
                            match built.key_text {
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
                                                "n",
                                                built.node.type_name()
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
                        if index.contains_key(&k) && !merged.contains(&k) {
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
                        merged.remove(&k);
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
    fn scalar(&mut self, text: &str, style: ScalarStyle, tag: Option<&str>, span: Span) -> Built {
        let plain = matches!(style, ScalarStyle::Plain);
        let document = self.documents.len();
        let forced_string = matches!(
            tag,
            Some("tag:yaml.org,2002:str" | "!!str" | "!" | "tag:yaml.org,2002:binary" | "!!binary")
        );
        let resolve = (plain || tag.is_some()) && !forced_string;
        let value = if resolve {
            resolve_plain(text)
        } else {
            Resolved::Str
        };
        let value = match value {
            Resolved::Str => Value::String(text.to_owned()),
            Resolved::Null => Value::Null,
            Resolved::Bool(b) => {
                if !matches!(text, "true" | "false" | "True" | "False" | "TRUE" | "FALSE") {
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
                if looks_surprising_int(text) {
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
        let key_text = Some(scalar_key_text(&value));
        Built {
            merge_key: plain && text == "<<",
            node: Node { value, span },
            size: 1,
            // The text and quotes (escapes may add a little; this is a bound's measure).
            bytes: text.len() + 2,
            key_text,
        }
    }
}

/// Sets `entry` in a map being built: a later value of the same key replaces the earlier one.
fn set_entry(entries: &mut Vec<Entry>, index: &mut HashMap<String, usize>, entry: Entry) {
    match index.get(&entry.key) {
        Some(&i) => {
            if let Some(slot) = entries.get_mut(i) {
                *slot = entry;
            }
        }
        None => {
            index.insert(entry.key.clone(), entries.len());
            entries.push(entry);
        }
    }
}

/// How `sigs.k8s.io/yaml` writes a scalar map key as a JSON string.
fn scalar_key_text(value: &Value) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Int(i) => Ok(i.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Float(f) => Ok(format_float_key(*f)),
        Value::Null => Err(
            "error converting YAML to JSON: unsupported map key of type: %!s(<nil>), key: <nil>"
                .to_owned(),
        ),
        Value::Seq(_) | Value::Map(_) => Err("yaml: invalid map key".to_owned()),
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)` for the values a YAML key can hold.
fn format_float_key(f: f64) -> String {
    let f32v = f as f32;
    if f32v.is_nan() {
        return ".nan".to_owned();
    }
    if f32v.is_infinite() {
        return if f32v > 0.0 { ".inf" } else { "-.inf" }.to_owned();
    }
    crd_studio_gostd::strconv::format_float_g32(f32v)
}

fn go_float_name(f: f64) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "+Inf"
    } else {
        "-Inf"
    }
}

/// A float as it reaches the server: Go's JSON encoder writes integral values below 1e21
/// without a fraction or exponent, and the server then decodes them as integers.
fn json_number(f: f64) -> Value {
    if f.fract() == 0.0
        && f.abs() < 1e21
        && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f)
    {
        Value::Int(f as i64)
    } else {
        Value::Float(f)
    }
}

/// The result of resolving a plain scalar.
#[derive(Debug, PartialEq)]
enum Resolved {
    Str,
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
}

/// go-yaml v2's `resolve` for a plain scalar, followed by the JSON round trip.
fn resolve_plain(s: &str) -> Resolved {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return Resolved::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return Resolved::Bool(false)
        }
        ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Resolved::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Resolved::Float(f64::NEG_INFINITY),
        _ => {}
    }
    let Some(first) = s.chars().next() else {
        return Resolved::Null;
    };
    match first {
        '.' => match crd_studio_gostd::strconv::parse_float(s) {
            Some(f) => Resolved::Float(f),
            None => Resolved::Str,
        },
        '0'..='9' | '+' | '-' => {
            if looks_like_timestamp(s) {
                // A timestamp decoded into an interface stays the original string.
                return Resolved::Str;
            }
            let plain: String = s.chars().filter(|&c| c != '_').collect();
            if let Ok(i) = crd_studio_gostd::strconv::parse_int(&plain, 0) {
                return Resolved::Int(i);
            }
            if let Ok(u) = crd_studio_gostd::strconv::parse_uint(&plain, 0) {
                // Too big for int64: the server's JSON decoder makes it a float.
                return Resolved::Float(u as f64);
            }
            if yaml_style_float(&plain) {
                if let Some(f) = crd_studio_gostd::strconv::parse_float(&plain) {
                    return Resolved::Float(f);
                }
            }
            if let Some(rest) = plain.strip_prefix("0b") {
                if let Ok(i) = crd_studio_gostd::strconv::parse_int(rest, 2) {
                    return Resolved::Int(i);
                }
            } else if let Some(rest) = plain.strip_prefix("-0b") {
                if let Ok(i) = crd_studio_gostd::strconv::parse_int(&format!("-{rest}"), 2) {
                    return Resolved::Int(i);
                }
            }
            Resolved::Str
        }
        _ => Resolved::Str,
    }
}

/// Integers YAML 1.1 reads differently from what JSON/YAML 1.2 readers expect.
fn looks_surprising_int(text: &str) -> bool {
    let t = text.trim_start_matches(['+', '-']);
    text.contains('_')
        || t.starts_with("0b")
        || t.starts_with("0o")
        || (t.len() > 1 && t.starts_with('0') && !t.starts_with("0x") && !t.starts_with("0X"))
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while matches!(b.get(*i), Some(c) if c.is_ascii_digit()) {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// go-yaml v2's timestamp forms: `YYYY-MM-DD` optionally followed by a time.
fn looks_like_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    // Go requires a 4-digit year, '-', then month and day (1 or 2 digits each).
    if b.len() < 8 {
        return false;
    }
    let year_ok = b.iter().take(4).all(u8::is_ascii_digit) && b.get(4) == Some(&b'-');
    if !year_ok {
        return false;
    }
    let rest = s.get(5..).unwrap_or("");
    let mut parts = rest.splitn(2, '-');
    let month = parts.next().unwrap_or("");
    let tail = parts.next().unwrap_or("");
    let day: String = tail.chars().take_while(char::is_ascii_digit).collect();
    let after = tail.get(day.len()..).unwrap_or("");
    let small = |p: &str| !p.is_empty() && p.len() <= 2 && p.bytes().all(|c| c.is_ascii_digit());
    if !small(month) || !small(&day) {
        return false;
    }
    // Date only, or date followed by 'T'/'t'/space and a time.
    after.is_empty() || (after.starts_with(['T', 't', ' ']) && after.len() > 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::finding::Severity;

    fn one(text: &str) -> ParsedText {
        parse(text, SourceId::Object(0))
    }

    fn root_json(text: &str) -> serde_json::Value {
        let p = one(text);
        p.documents
            .first()
            .and_then(|d| d.root.as_ref())
            .map(Node::to_json)
            .unwrap_or(serde_json::Value::Null)
    }

    #[test]
    fn yaml11_scalars() {
        let v = root_json(
            "a: yes\nb: NO\nc: on\nd: ~\ne: 0777\nf: 1_000\ng: 0x1F\nh: 0b101\ni: 1.0\nj: 1.5\nk: 'yes'\nl: 2001-12-14\nm: 1e3\nhalf: .5\no: 08\np: -0b11\nq: +12\nr: 12345678901234567890\ns:\nt: 0o17\ny: key\n",
        );
        assert_eq!(
            v,
            serde_json::json!({
                "a": true, "b": false, "c": true, "d": null, "e": 511, "f": 1000, "g": 31,
                "h": 5, "i": 1, "j": 1.5, "k": "yes", "l": "2001-12-14", "m": 1000, "half": 0.5,
                "o": 8, "p": -3, "q": 12, "r": 12345678901234567890.0, "s": null, "t": 15,
                "true": "key"
            })
        );
    }

    #[test]
    fn yaml11_surprises_are_warnings_at_their_location() {
        let p = one("country: NO\nmode: 0755\nok: true\n");
        let codes: Vec<_> = p
            .findings
            .iter()
            .map(|f| {
                (
                    f.code.as_str(),
                    f.severity,
                    f.location.map(|l| l.span.start.line),
                )
            })
            .collect();
        assert_eq!(
            codes,
            vec![
                ("yaml.yaml11-bool", Severity::Warning, Some(1)),
                ("yaml.yaml11-int", Severity::Warning, Some(2)),
            ]
        );
        let first = p
            .findings
            .first()
            .map(|f| f.message.clone())
            .unwrap_or_default();
        assert!(first.contains("`NO` became false"), "{first}");
        let loc = p
            .findings
            .first()
            .and_then(|f| f.location)
            .map(|l| l.span.start.column);
        assert_eq!(loc, Some(10));
    }

    #[test]
    fn non_finite_numbers_are_errors() {
        let p = one("a: .nan\n");
        assert_eq!(p.findings.len(), 1);
        assert_eq!(
            p.findings.first().map(|f| f.message.as_str()),
            Some("error converting YAML to JSON: json: unsupported value: NaN")
        );
    }

    #[test]
    fn positions_with_multibyte_characters() {
        let text = "name: \"héllo😀\"\nnext: x\n";
        let p = one(text);
        let root = p.documents.first().and_then(|d| d.root.as_ref()).cloned();
        let root = root.unwrap_or(Node {
            value: Value::Null,
            span: Span::default(),
        });
        let name = root.get("name").map(|n| n.span).unwrap_or_default();
        assert_eq!(
            (name.start.line, name.start.column, name.start.offset),
            (1, 7, 6)
        );
        // "héllo😀" with quotes: 8 chars, 9 UTF-16 units, 12 bytes.
        assert_eq!(name.end.column, 15);
        assert_eq!(name.end.utf16_column, 16);
        assert_eq!(name.end.offset, 6 + 12);
        let next = root.entry("next").map(|e| e.key_span).unwrap_or_default();
        assert_eq!(
            (next.start.line, next.start.column, next.start.offset),
            (2, 1, 19)
        );
    }

    #[test]
    fn anchors_aliases_and_merge_keys() {
        let v = root_json(
            "base: &b {x: 1, z: 2}\nlist: &l [1, 2]\ncopy: *b\nlist2: *l\nmerged:\n  <<: *b\n  z: 3\nmulti:\n  <<: [{a: 1}, {a: 2, b: 2}]\n",
        );
        assert_eq!(
            v,
            serde_json::json!({
                "base": {"x": 1, "z": 2}, "list": [1, 2], "copy": {"x": 1, "z": 2},
                "list2": [1, 2], "merged": {"x": 1, "z": 3}, "multi": {"a": 1, "b": 2}
            })
        );
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let prev = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
            ));
        }
        let p = one(&text);
        assert!(p
            .findings
            .iter()
            .any(|f| f.code == "yaml.excessive-aliasing"));
        assert!(p.documents.iter().all(|d| d.root.is_none()));
    }

    #[test]
    fn multi_document_files() {
        let p = one("a: 1\n---\n# only a comment\n---\nb: 2\n...\n---\n[1, 2]\n");
        let roots: Vec<_> = p
            .documents
            .iter()
            .map(|d| d.root.as_ref().map(Node::to_json))
            .collect();
        assert_eq!(
            roots,
            vec![
                Some(serde_json::json!({"a": 1})),
                None,
                Some(serde_json::json!({"b": 2})),
                Some(serde_json::json!([1, 2])),
            ]
        );
        let b = p
            .documents
            .get(2)
            .and_then(|d| d.root.as_ref())
            .map(|r| r.span.start.line);
        assert_eq!(b, Some(5));
    }

    #[test]
    fn duplicate_keys_are_findings_and_the_last_value_wins() {
        let p = one("spec:\n  a: 1\n  b: 2\n  a: 3\n");
        assert_eq!(p.findings.len(), 1);
        let f = p.findings.first().cloned();
        let f = f.unwrap_or_else(|| Finding::error("x", "x"));
        assert_eq!(f.code, "yaml.duplicate-key");
        assert_eq!(
            f.location.map(|l| (l.span.start.line, l.span.start.column)),
            Some((4, 3))
        );
        assert_eq!(
            p.documents
                .first()
                .and_then(|d| d.root.as_ref())
                .map(Node::to_json),
            Some(serde_json::json!({"spec": {"a": 3, "b": 2}}))
        );
    }

    #[test]
    fn go_yaml_accepts_what_libyaml_accepts() {
        // A quoted scalar continued on a line indented like its key: libyaml (and so go-yaml)
        // accepts it; stricter YAML 1.2 parsers do not.
        let v = root_json("spec:\n  args: ['\n    echo 1;\n  ']\n");
        assert_eq!(v, serde_json::json!({"spec": {"args": [" echo 1; "]}}));
    }

    #[test]
    fn syntax_error_messages_follow_go_yaml() {
        let msg = |text: &str| {
            let p = one(text);
            p.findings
                .first()
                .map(|f| f.message.clone())
                .unwrap_or_default()
        };
        assert_eq!(
            msg("a: 1\nb: c: d\n"),
            "yaml: line 2: mapping values are not allowed in this context"
        );
        // go-yaml leaves the line out when the problem is on the first line (0-based line 0).
        assert_eq!(
            msg("a: b: c\n"),
            "yaml: mapping values are not allowed in this context"
        );
    }

    #[test]
    fn syntax_errors_keep_earlier_documents() {
        let p = one("a: 1\n---\nb: [1, 2\nc: 3\n");
        assert_eq!(p.findings.len(), 1);
        let f = p
            .findings
            .first()
            .cloned()
            .unwrap_or_else(|| Finding::error("x", "x"));
        assert_eq!(f.code, "yaml.syntax");
        assert!(f.location.is_some());
        assert_eq!(
            p.documents
                .first()
                .and_then(|d| d.root.as_ref())
                .map(Node::to_json),
            Some(serde_json::json!({"a": 1}))
        );
    }

    #[test]
    fn json_documents() {
        let v = root_json("{\"a\": [1, 2.5, true, null, \"s\"], \"b\": {\"c\": -1}}");
        assert_eq!(
            v,
            serde_json::json!({"a": [1, 2.5, true, null, "s"], "b": {"c": -1}})
        );
    }

    #[test]
    fn non_string_keys() {
        let v = root_json("1: a\ntrue: b\n1.5: c\n");
        assert_eq!(v, serde_json::json!({"1": "a", "true": "b", "1.5": "c"}));
        let p = one("? [1, 2]\n: x\n~: y\n");
        assert_eq!(
            p.findings
                .iter()
                .filter(|f| f.code == "yaml.unsupported-key")
                .count(),
            2
        );
    }

    #[test]
    fn size_limit() {
        let text = "a: ".to_owned() + &"x".repeat(MAX_REQUEST_BYTES);
        let p = one(&text);
        assert_eq!(p.documents.len(), 0);
        assert_eq!(
            p.findings.first().map(|f| f.message.as_str()),
            Some("Request entity too large: limit is 3145728")
        );
    }

    #[test]
    fn depth_limit_and_deep_trees_do_not_overflow() {
        // Block sequences can nest on one line: `- - - x`.
        let deep_ok = "- ".repeat(MAX_DEPTH - 1) + "x";
        let p = one(&deep_ok);
        assert!(p.findings.is_empty(), "{:?}", p.findings.first());
        let json = p
            .documents
            .first()
            .and_then(|d| d.root.as_ref())
            .map(Node::to_json);
        assert!(json.is_some());
        let too_deep = "- ".repeat(MAX_DEPTH + 1) + "x";
        let p = one(&too_deep);
        assert!(p.findings.iter().any(|f| f.severity == Severity::Error));
        assert!(p.documents.iter().all(|d| d.root.is_none()));
    }

    #[test]
    fn garbage_never_panics() {
        for text in [
            "",
            "\u{feff}",
            ":",
            "- - -",
            "{",
            "]",
            "a: *nope",
            "&a [*a]",
            "? ? ?",
            "\t- x",
            "a: |\n  b\n c",
            "'unterminated",
            "a: \"\\u12\"",
            "<<: 5",
            "<<: [1]",
            "---\n...\n...",
            "\u{0}",
            "a:\u{85}b",
            "%YAML 1.1\n---\na: b",
            "!!binary aGVsbG8=",
            "!foo bar",
        ] {
            let _ = one(text);
        }
    }

    #[test]
    fn float_keys_use_go_formatting() {
        assert_eq!(format_float_key(1.5), "1.5");
        assert_eq!(format_float_key(1e30), "1e+30");
        assert_eq!(format_float_key(0.1), "0.1");
        assert_eq!(format_float_key(-2.25), "-2.25");
        assert_eq!(format_float_key(123456789.123), "1.2345679e+08");
        assert_eq!(format_float_key(1000.0), "1000");
    }

    #[test]
    fn yaml_style_float_regex() {
        for ok in ["1.", ".5", "1.5e3", "-1", "+1.0E-2", "08"] {
            assert!(yaml_style_float(ok), "{ok}");
        }
        for bad in ["", ".", "e3", "1e", "1.5.5", "0x1", "1_0"] {
            assert!(!yaml_style_float(bad), "{bad}");
        }
    }
}
