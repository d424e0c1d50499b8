//! Incremental parsing: [`reparse_tracked`] parses again only the entries an edit touched (of the
//! root mapping, or of the deepest block mapping that holds the edit) and shifts the others'
//! positions.

use super::*;

/// Where [`reparse_tracked`] put the entries it parsed again: in the block mapping reached
/// from the root by `path` (at each step the index of an entry of a mapping or of an item of
/// a sequence; empty for the root), the old entries `old` were replaced by the new entries
/// `new`. Everything else in the tree is the old parse's, positions shifted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The steps from the root to the mapping whose entries changed.
    pub path: Vec<usize>,
    /// The indices of the replaced entries in the old mapping.
    pub old: std::ops::Range<usize>,
    /// The indices of their replacements in the new one.
    pub new: std::ops::Range<usize>,
}

/// A [`reparse_tracked`] parse and where its new entries are.
#[derive(Clone, Debug)]
pub struct Reparsed {
    /// What `parse(new, source)` gives.
    pub parsed: ParsedText,
    /// Which entries were parsed again.
    pub change: Change,
}

/// The changed bytes of an edit: `old[prefix..old_end]` became `new[prefix..old_end + delta]`.
struct Edit {
    prefix: usize,
    old_end: usize,
    delta: isize,
}

/// `parse(new, source)` computed from `old`, the parse of the text `old_text`, when an edit
/// changed only some entries of a single block mapping document, with where the entries it
/// parsed again are; `None` whenever that is not certainly what a full parse gives (then
/// parse in full).
///
/// The text of whole entries is parsed alone, and the other entries are taken from `old`
/// with their spans shifted. The entries are those of the deepest block mapping holding the
/// edit whose entries start lines (their keys after `n` spaces), from the last entry whose
/// key starts before the first changed byte to the first entry whose line starts after the
/// last one; the lines between, each empty or starting with `n` spaces, are parsed with those
/// `n` spaces removed and the positions mapped back. Failing that, the root mapping's entries
/// from the last one starting before the change to the first one starting after it.
///
/// Why it is the same: at the start of such a key's line, in a block mapping with nothing
/// open, libyaml's scanner is always in the same state (the indentation of the enclosing
/// block collections, no flow collection, no pending simple key), and the key's column is the
/// mapping's indentation, so the tokens of a run of whole entries do not depend on the text
/// around them, and with `n` spaces removed from each of their lines they are the same tokens
/// `n` columns to the left (the collections they open end where the next entry's key is,
/// the end of the part); positions come from byte offsets only ([`LineIndex`]), so they shift
/// with the bytes. What could tie entries together is refused: aliases and merge keys (in
/// `old` or in the re-parsed entries), duplicate keys, any finding, document markers and
/// directives (but a first `---` line), `\r` line breaks, a BOM, several documents.
pub fn reparse_tracked(
    old: &ParsedText,
    old_text: &str,
    new: &str,
    source: SourceId,
) -> Option<Reparsed> {
    if old.aliased
        || !old.findings.is_empty()
        || !old.plain
        || old.source != source
        || new.len() > MAX_REQUEST_BYTES
    {
        return None;
    }
    let [doc] = old.documents.as_slice() else {
        return None;
    };
    let root = doc.root.as_ref().filter(|_| !doc.failed)?;
    let edit = changed_bytes(old_text, new)?;
    // `old_text` has neither (`old.plain`): `new` has one only where it changed.
    let changed = new.get(edit.prefix..edit.old_end.checked_add_signed(edit.delta)?)?;
    if changed.contains('\r') || changed.contains('\u{feff}') {
        return None;
    }
    match reparse_nested(old, doc, root, old_text, new, &edit, source) {
        Nested::Done(r) => Some(r),
        Nested::Refused => None,
        Nested::Elsewhere => reparse_root(old, doc, root, old_text, new, &edit, source),
    }
}

/// Where `old` and `new` differ (the longest common prefix and suffix; the prefix at a
/// character boundary).
fn changed_bytes(old_text: &str, new: &str) -> Option<Edit> {
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
    let full_suffix = tail
        + ob.get(..ob.len() - tail)?
            .iter()
            .rev()
            .zip(nb.get(..nb.len() - tail)?.iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
    let suffix = full_suffix.min(max_suffix);
    // Bytes inserted or deleted where the text around repeats them (a line typed before
    // another with the same indentation) may be placed anywhere from `low` to `prefix`:
    // at a line start, when there is one, so that they are whole lines.
    let removed = ob.len().saturating_sub(nb.len());
    let low = ob.len().saturating_sub(full_suffix + removed);
    if ob.len() != nb.len() && low < prefix {
        let window = ob.get(low.max(prefix.saturating_sub(4096))..prefix)?;
        if let Some(nl) = window.iter().rposition(|&c| c == b'\n') {
            let at = prefix - window.len() + nl + 1;
            return Some(Edit {
                prefix: at,
                old_end: at + removed,
                delta: nb.len() as isize - ob.len() as isize,
            });
        }
    }
    Some(Edit {
        prefix,
        old_end: ob.len() - suffix,
        delta: nb.len() as isize - ob.len() as isize,
    })
}

/// The parse of a part of a text: one block mapping document without findings; its entries.
fn parse_part(part: &str, source: SourceId) -> Result<(Vec<Entry>, Span, Span, LineIndex), bool> {
    let mut parsed = parse(part, source);
    // `true`: the part itself is wrong (a full parse would say so too, likely).
    if parsed.aliased || !parsed.findings.is_empty() {
        return Err(true);
    }
    let [part_doc] = parsed.documents.as_mut_slice() else {
        return Err(false);
    };
    let failed = part_doc.failed;
    let doc_span = part_doc.span;
    let part_root = part_doc.root.as_mut().filter(|_| !failed).ok_or(false)?;
    let root_span = part_root.span;
    let Value::Map(entries) = std::mem::replace(&mut part_root.value, Value::Null) else {
        return Err(false);
    };
    if entries.first().map(|e| e.key_span.start) != Some(root_span.start)
        || entries.iter().any(|e| e.key_span.start.column != 1)
    {
        return Err(false);
    }
    Ok((entries, root_span, doc_span, parsed.lines))
}

/// Whether the texts parsed again have no document marker or directive (but a `---` line
/// that starts the text when `at_start`).
fn has_marker(t: &str, at_start: bool) -> bool {
    let t = if at_start {
        t.strip_prefix("---\n").unwrap_or(t)
    } else {
        t
    };
    t.split('\n')
        .any(|l| l.starts_with("---") || l.starts_with("...") || l.starts_with('%'))
}

/// The root's entries parsed again (see [`reparse_tracked`]).
fn reparse_root(
    old: &ParsedText,
    doc: &Document,
    root: &Node,
    old_text: &str,
    new: &str,
    edit: &Edit,
    source: SourceId,
) -> Option<Reparsed> {
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
    let ob = old_text.as_bytes();
    let nb = new.as_bytes();
    // Entries a..b (b exclusive) are parsed again: from the last entry that starts before the
    // change (an insertion at an entry's start may continue the entry before it) to the first
    // one that starts after it.
    let a = starts.iter().rposition(|&s| s < edit.prefix).unwrap_or(0);
    let b = starts
        .iter()
        .position(|&s| s > edit.old_end)
        .unwrap_or(starts.len())
        .max(a + 1);
    let old_start = *starts.get(a)?;
    let old_end = starts.get(b).copied().unwrap_or(ob.len());
    let delta = edit.delta;
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
    if has_marker(old_part, old_start == 0) || has_marker(new_part, old_start == 0) {
        return None;
    }
    let (part_entries, part_root_span, part_doc_span, part_lines) =
        parse_part(new_part, source).ok()?;
    // Lines before the re-parsed text, and how many lines it gained.
    let line_before = old.lines.line_of_offset(old_start)?.checked_sub(1)?;
    let lines_of = |t: &str| t.bytes().filter(|&c| c == b'\n').count() as isize;
    let line_delta = lines_of(new_part) - lines_of(old_part);
    let added = part_entries.len();
    let mut out_entries: Vec<Entry> = Vec::with_capacity(entries.len() + added);
    out_entries.extend(entries.get(..a)?.iter().cloned());
    for mut e in part_entries {
        shift_entry(&mut e, old_start as isize, line_before as isize);
        out_entries.push(e);
    }
    for e in entries.get(b..)? {
        out_entries.push(shifted_entry(e, delta, line_delta));
    }
    if !unique_keys(&out_entries) {
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
        .spliced(old_start, old_end, &part_lines, new.len())?;
    Some(Reparsed {
        parsed: ParsedText {
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
            plain: true,
        },
        change: Change {
            path: Vec::new(),
            old: a..b,
            new: a..a + added,
        },
    })
}

/// Whether no two entries have the same key.
fn unique_keys(entries: &[Entry]) -> bool {
    let mut keys = HashSet::with_capacity(entries.len());
    entries.iter().all(|e| keys.insert(e.key.as_str()))
}

/// What [`reparse_nested`] did.
enum Nested {
    /// Parsed in part inside a nested mapping.
    Done(Reparsed),
    /// No nested mapping holds the edit in whole entries: try the root's entries.
    Elsewhere,
    /// The entries parsed again have a problem: parse in full.
    Refused,
}

/// Entries `a..b` of a nested block mapping, indented by `indent` spaces, their text from
/// byte `start` to `end` (line starts) of the old text.
struct Cut {
    path: Vec<usize>,
    a: usize,
    b: usize,
    indent: usize,
    start: usize,
    end: usize,
}

/// The start of the line of an entry's key when only `column - 1` spaces precede it there.
fn clean_line_start(text: &str, key: Pos) -> Option<usize> {
    let indent = key.column.checked_sub(1)?;
    let start = key.offset.checked_sub(indent)?;
    let lead = text.as_bytes().get(start..key.offset)?;
    let at_line_start = start == 0 || text.as_bytes().get(start - 1) == Some(&b'\n');
    (at_line_start && lead.iter().all(|&c| c == b' ')).then_some(start)
}

/// The cut of `entries` (a nested block mapping) around the edit, if it has one.
fn cut_of(entries: &[Entry], node: &Node, text: &str, edit: &Edit, path: &[usize]) -> Option<Cut> {
    // A block mapping starts at its first key (a flow mapping at its `{`).
    if entries.first().map(|e| e.key_span.start) != Some(node.span.start) {
        return None;
    }
    let a = entries
        .iter()
        .rposition(|e| e.key_span.start.offset < edit.prefix)?;
    let ea = entries.get(a)?;
    let start = clean_line_start(text, ea.key_span.start)?;
    let indent = ea.key_span.start.column.saturating_sub(1);
    if indent == 0 {
        return None;
    }
    let (b, end) = entries.iter().enumerate().skip(a + 1).find_map(|(i, e)| {
        let s = e.key_span.start.offset;
        let line = s.checked_sub(e.key_span.start.column.checked_sub(1)?)?;
        (line >= edit.old_end).then_some((i, e))
    })?;
    let end = clean_line_start(text, end.key_span.start)?;
    if entries.get(b)?.key_span.start.column.saturating_sub(1) != indent {
        return None;
    }
    Some(Cut {
        path: path.to_vec(),
        a,
        b,
        indent,
        start,
        end,
    })
}

/// The deepest nested block mapping holding the edit in whole entries, parsed in part.
fn reparse_nested(
    old: &ParsedText,
    doc: &Document,
    root: &Node,
    old_text: &str,
    new: &str,
    edit: &Edit,
    source: SourceId,
) -> Nested {
    // Down the tree along the edit's start, keeping the deepest cut.
    let mut path = Vec::new();
    let mut node = root;
    let mut cut = None;
    loop {
        let next = match &node.value {
            Value::Map(entries) => {
                if !path.is_empty() {
                    if let Some(c) = cut_of(entries, node, old_text, edit, &path) {
                        cut = Some(c);
                    }
                }
                entries
                    .iter()
                    .rposition(|e| e.key_span.start.offset < edit.prefix)
                    .and_then(|i| Some((i, &entries.get(i)?.value)))
            }
            Value::Seq(items) => items
                .iter()
                .rposition(|n| n.span.start.offset < edit.prefix)
                .and_then(|i| Some((i, items.get(i)?))),
            _ => None,
        };
        let Some((i, child)) = next else {
            break;
        };
        if path.len() >= MAX_DEPTH / 4 {
            break;
        }
        path.push(i);
        node = child;
    }
    let Some(cut) = cut else {
        return Nested::Elsewhere;
    };
    match parse_cut(old, doc, root, new, edit, &cut, source) {
        Ok(r) => Nested::Done(r),
        Err(true) => Nested::Refused,
        Err(false) => Nested::Elsewhere,
    }
}

/// Parses the entries of `cut` in the new text and puts them in the old tree
/// (`Err(true)`: their text has a problem).
fn parse_cut(
    old: &ParsedText,
    doc: &Document,
    root: &Node,
    new: &str,
    edit: &Edit,
    cut: &Cut,
    source: SourceId,
) -> Result<Reparsed, bool> {
    let n = cut.indent;
    let delta = edit.delta;
    let new_end = cut.end.checked_add_signed(delta).ok_or(false)?;
    if new_end <= cut.start || new.as_bytes().get(new_end - 1) != Some(&b'\n') {
        return Err(false);
    }
    let new_part = new.get(cut.start..new_end).ok_or(false)?;
    if new_part.len() > new.len() / 2 {
        return Err(false);
    }
    // The part without the mapping's indentation; for each of its lines, whether it had it
    // and whether a token starts the line without it.
    let mut dedented = String::with_capacity(new_part.len());
    let mut indented_lines = Vec::new();
    for line in new_part.split_inclusive('\n') {
        if line == "\n" {
            dedented.push('\n');
            indented_lines.push((false, false));
            continue;
        }
        let rest = line
            .as_bytes()
            .get(..n)
            .filter(|lead| lead.iter().all(|&c| c == b' '))
            .and_then(|_| line.get(n..))
            .ok_or(false)?;
        dedented.push_str(rest);
        let token = !matches!(rest.as_bytes().first(), Some(b' ' | b'#' | b'\n') | None);
        indented_lines.push((true, token));
    }
    // The next entry's key line, where the part ends.
    indented_lines.push((true, true));
    if has_marker(&dedented, false) {
        return Err(false);
    }
    let (part_entries, _, _, _) = parse_part(&dedented, source)?;
    // The nesting the full parse would see.
    if cut.path.len() + 1 + depth(&part_entries) + 2 >= MAX_DEPTH {
        return Err(false);
    }
    let line_before = old.lines.line_of_offset(cut.start).ok_or(false)? - 1;
    // Bytes removed before each part line (0-based), and whether it was indented.
    let mut removed = Vec::with_capacity(indented_lines.len());
    let mut total = 0usize;
    for &(indented, token) in &indented_lines {
        removed.push((total, indented, token));
        if indented {
            total += n;
        }
    }
    // A position at the start of a part line is where a token starts there (after the
    // indentation) when one does, but for the end of a block scalar; else the line's start
    // (the end of a block scalar, or of the collection it ends, before a comment line).
    let map = |p: Pos, block_end: bool| -> Pos {
        let i = p
            .line
            .saturating_sub(1)
            .min(removed.len().saturating_sub(1));
        let (before, indented, token) = removed.get(i).copied().unwrap_or((total, true, true));
        let extra = if indented && (p.column != 1 || (token && !block_end)) {
            n
        } else {
            0
        };
        Pos {
            offset: cut.start + p.offset + before + extra,
            line: p.line + line_before,
            column: p.column + extra,
            utf16_column: p.utf16_column + extra,
        }
    };
    let lines_of = |t: &str| t.bytes().filter(|&c| c == b'\n').count() as isize;
    let old_part_lines = old
        .lines
        .line_of_offset(cut.end)
        .ok_or(false)?
        .checked_sub(line_before + 1)
        .ok_or(false)?;
    let line_delta = lines_of(new_part) - old_part_lines as isize;
    let added = part_entries.len();
    let mut part_entries = Some(part_entries);
    let mut splice = |entries: &[Entry]| -> Option<Vec<Entry>> {
        let mut out = Vec::with_capacity(entries.len() + added);
        out.extend(entries.get(..cut.a)?.iter().cloned());
        for mut e in part_entries.take()? {
            map_entry(&mut e, &map);
            out.push(e);
        }
        for e in entries.get(cut.b..)? {
            out.push(shifted_entry(e, delta, line_delta));
        }
        unique_keys(&out).then_some(out)
    };
    let new_root = rebuild(root, &cut.path, delta, line_delta, &mut splice).ok_or(false)?;
    let lines = old
        .lines
        .spliced(cut.start, cut.end, &LineIndex::new(new_part), new.len())
        .ok_or(false)?;
    let root_end = new_root.span.end;
    Ok(Reparsed {
        parsed: ParsedText {
            source,
            documents: vec![Document {
                index: 0,
                root: Some(new_root),
                span: Span {
                    start: doc.span.start,
                    end: root_end,
                },
                failed: false,
            }],
            findings: Vec::new(),
            lines,
            aliased: false,
            plain: true,
        },
        change: Change {
            path: cut.path.clone(),
            old: cut.a..cut.b,
            new: cut.a..cut.a + added,
        },
    })
}

/// How deep collections nest in `entries` (a mapping's: 1 for scalars only).
fn depth(entries: &[Entry]) -> usize {
    let mut deepest = 1;
    let mut stack: Vec<(&Node, usize)> = entries.iter().map(|e| (&e.value, 2)).collect();
    while let Some((node, d)) = stack.pop() {
        match &node.value {
            Value::Seq(items) => {
                deepest = deepest.max(d);
                stack.extend(items.iter().map(|n| (n, d + 1)));
            }
            Value::Map(entries) => {
                deepest = deepest.max(d);
                stack.extend(entries.iter().map(|e| (&e.value, d + 1)));
            }
            _ => {}
        }
    }
    deepest
}

/// `node` with the mapping at `path` spliced by `splice`, what follows it shifted by `delta`
/// bytes and `lines` lines, and what precedes it as it was.
fn rebuild(
    node: &Node,
    path: &[usize],
    delta: isize,
    lines: isize,
    splice: &mut dyn FnMut(&[Entry]) -> Option<Vec<Entry>>,
) -> Option<Node> {
    let value = match (path.split_first(), &node.value) {
        (None, Value::Map(entries)) => Value::Map(splice(entries)?),
        (Some((&i, rest)), Value::Map(entries)) => {
            let mut out = Vec::with_capacity(entries.len());
            for (j, e) in entries.iter().enumerate() {
                out.push(match j.cmp(&i) {
                    std::cmp::Ordering::Less => e.clone(),
                    std::cmp::Ordering::Equal => Entry {
                        key: e.key.clone(),
                        key_span: e.key_span,
                        value: rebuild(&e.value, rest, delta, lines, splice)?,
                    },
                    std::cmp::Ordering::Greater => shifted_entry(e, delta, lines),
                });
            }
            Value::Map(out)
        }
        (Some((&i, rest)), Value::Seq(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (j, n) in items.iter().enumerate() {
                out.push(match j.cmp(&i) {
                    std::cmp::Ordering::Less => n.clone(),
                    std::cmp::Ordering::Equal => rebuild(n, rest, delta, lines, splice)?,
                    std::cmp::Ordering::Greater => shifted_node(n, delta, lines),
                });
            }
            Value::Seq(out)
        }
        _ => return None,
    };
    Some(Node {
        value,
        span: Span {
            start: node.span.start,
            end: shift_pos(node.span.end, delta, lines),
        },
    })
}

/// A copy of `e` moved by `offset` bytes and `lines` lines (see [`shift_pos`]), in one pass.
fn shifted_entry(e: &Entry, offset: isize, lines: isize) -> Entry {
    if offset == 0 && lines == 0 {
        return e.clone();
    }
    let mut span = e.key_span;
    shift_span(&mut span, offset, lines);
    Entry {
        key: e.key.clone(),
        key_span: span,
        value: shifted_node(&e.value, offset, lines),
    }
}

/// A copy of `node` moved by `offset` bytes and `lines` lines (as deep as `Clone` goes: the
/// parser's depth limit bounds both).
fn shifted_node(node: &Node, offset: isize, lines: isize) -> Node {
    let mut span = node.span;
    shift_span(&mut span, offset, lines);
    let value = match &node.value {
        Value::Seq(items) => Value::Seq(
            items
                .iter()
                .map(|n| shifted_node(n, offset, lines))
                .collect(),
        ),
        Value::Map(entries) => Value::Map(
            entries
                .iter()
                .map(|e| shifted_entry(e, offset, lines))
                .collect(),
        ),
        other => other.clone(),
    };
    Node { value, span }
}

/// Maps every position of an entry with `map`, telling it which are the end of a block
/// scalar at a line start (a scalar ending at the start of a later line than its own: a
/// plain or quoted one ends after a character, an empty one where it starts).
fn map_entry(e: &mut Entry, map: &dyn Fn(Pos, bool) -> Pos) {
    let span = |s: &mut Span, scalar: bool| {
        let block_end = scalar && s.end.column == 1 && s.end.line > s.start.line;
        s.start = map(s.start, false);
        s.end = map(s.end, block_end);
    };
    span(&mut e.key_span, true);
    let mut stack: Vec<&mut Node> = vec![&mut e.value];
    while let Some(node) = stack.pop() {
        let scalar = !matches!(node.value, Value::Seq(_) | Value::Map(_));
        span(&mut node.span, scalar);
        match &mut node.value {
            Value::Seq(items) => stack.extend(items.iter_mut()),
            Value::Map(entries) => {
                for e in entries.iter_mut() {
                    span(&mut e.key_span, true);
                    stack.push(&mut e.value);
                }
            }
            _ => {}
        }
    }
}

/// `p` moved by `offset` bytes and `lines` lines (its columns stay: it is on a line that
/// starts where it started).
pub(super) fn shift_pos(p: Pos, offset: isize, lines: isize) -> Pos {
    Pos {
        offset: p.offset.saturating_add_signed(offset),
        line: p.line.saturating_add_signed(lines),
        ..p
    }
}

pub(super) fn shift_span(s: &mut Span, offset: isize, lines: isize) {
    s.start = shift_pos(s.start, offset, lines);
    s.end = shift_pos(s.end, offset, lines);
}

/// Moves every span of an entry (see [`shift_pos`]).
pub(super) fn shift_entry(e: &mut Entry, offset: isize, lines: isize) {
    shift_span(&mut e.key_span, offset, lines);
    shift_node(&mut e.value, offset, lines);
}

/// Moves every span of a node (see [`shift_pos`]).
pub(super) fn shift_node(node: &mut Node, offset: isize, lines: isize) {
    let mut stack: Vec<&mut Node> = vec![node];
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
