//! Incremental parsing: [`reparse`] parses again only the top-level entries an edit touched
//! and shifts the others' positions.

use super::*;

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
