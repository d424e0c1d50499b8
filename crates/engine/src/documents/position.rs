//! Positions in the user's text: byte offsets, 1-based lines and columns, and UTF-16 columns
//! (what the browser's editor counts in).

use serde::{Deserialize, Serialize};

/// One point in a text.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "camelCase")]
pub struct Pos {
    /// Byte offset from the start of the text.
    pub offset: usize,
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, counted in Unicode scalar values (what a person counts).
    pub column: usize,
    /// 1-based column, counted in UTF-16 code units (what JavaScript strings count).
    pub utf16_column: usize,
}

/// A half-open range `[start, end)` in a text.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Span {
    /// First position inside the range.
    pub start: Pos,
    /// First position after the range.
    pub end: Pos,
}

impl Span {
    /// An empty range at `pos`.
    pub fn point(pos: Pos) -> Span {
        Span {
            start: pos,
            end: pos,
        }
    }
}

/// Maps line/column pairs and byte offsets of one text onto [`Pos`] values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    /// Byte offset at which each line starts; `line_starts[0] == 0`.
    line_starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    /// Indexes `text`. Lines end at `\n`, `\r\n` or a lone `\r`, as YAML counts them.
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        let mut i = 0;
        while let Some(found) = bytes
            .get(i..)
            .and_then(|rest| rest.iter().position(|&b| b == b'\n' || b == b'\r'))
        {
            i += found;
            if bytes.get(i) == Some(&b'\r') && bytes.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
            line_starts.push(i + 1);
            i += 1;
        }
        LineIndex {
            line_starts,
            len: text.len(),
        }
    }

    /// The 1-based line that starts at byte `offset`, when a line starts there.
    pub fn line_of_offset(&self, offset: usize) -> Option<usize> {
        self.line_starts.binary_search(&offset).ok().map(|i| i + 1)
    }

    /// The index of a text whose bytes `start..old_end` (both line starts, or `old_end` the
    /// end) were replaced by a text indexed by `part` (from a line start), making it `new_len`
    /// bytes long: what [`LineIndex::new`] gives for the new text when neither text has `\r`.
    pub fn spliced(
        &self,
        start: usize,
        old_end: usize,
        part: &LineIndex,
        new_len: usize,
    ) -> Option<LineIndex> {
        let delta = new_len as isize - self.len as isize;
        let before = self.line_starts.partition_point(|&s| s <= start);
        let after = self.line_starts.partition_point(|&s| s <= old_end);
        let mut line_starts = Vec::with_capacity(self.line_starts.len() + part.line_starts.len());
        // Up to `start`; the part's own (its first is `start`); then the old ones after
        // `old_end` (`old_end` itself is the part's last when the part ends a line).
        line_starts.extend(self.line_starts.get(..before)?);
        line_starts.extend(part.line_starts.iter().skip(1).map(|s| s + start));
        for s in self.line_starts.get(after..)? {
            line_starts.push(s.checked_add_signed(delta)?);
        }
        Some(LineIndex {
            line_starts,
            len: new_len,
        })
    }

    /// Number of lines (a text without any line break has one).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Byte range of the 1-based `line` without its line break, clamped to the text.
    fn line_range(&self, text: &str, line: usize) -> (usize, usize) {
        let idx = line
            .saturating_sub(1)
            .min(self.line_starts.len().saturating_sub(1));
        let start = self
            .line_starts
            .get(idx)
            .copied()
            .unwrap_or(0)
            .min(self.len);
        let mut end = self
            .line_starts
            .get(idx + 1)
            .copied()
            .unwrap_or(self.len)
            .min(self.len);
        let bytes = text.as_bytes();
        while end > start && matches!(bytes.get(end - 1), Some(b'\n' | b'\r')) {
            end -= 1;
        }
        (start, end)
    }

    /// The position of the `char_col`-th character (0-based) of the 1-based `line`.
    /// Columns past the end of the line are clamped to the end of the line.
    #[cfg(test)]
    pub fn pos_at_line_char(&self, text: &str, line: usize, char_col: usize) -> Pos {
        self.pos_at_line_char_from(text, line, char_col, None)
    }

    /// Like [`LineIndex::pos_at_line_char`], but continues from `hint` when it is an earlier
    /// position on the same line: walking a long line left to right then costs O(line), not
    /// O(line²).
    #[cfg(test)]
    pub fn pos_at_line_char_from(
        &self,
        text: &str,
        line: usize,
        char_col: usize,
        hint: Option<Pos>,
    ) -> Pos {
        let line = line.clamp(1, self.line_count());
        let (start, end) = self.line_range(text, line);
        let (mut offset, mut utf16, mut col) = match hint {
            Some(h) if h.line == line && h.column >= 1 && h.column - 1 <= char_col => {
                (h.offset, h.utf16_column - 1, h.column - 1)
            }
            _ => (start, 0, 0),
        };
        let slice = text.get(offset..end).unwrap_or("");
        for ch in slice.chars() {
            if col == char_col {
                break;
            }
            offset += ch.len_utf8();
            utf16 += ch.len_utf16();
            col += 1;
        }
        Pos {
            offset,
            line,
            column: col + 1,
            utf16_column: utf16 + 1,
        }
    }

    /// The position of byte `offset` (rounded down to a character boundary, clamped to the text).
    pub fn pos_at_offset(&self, text: &str, offset: usize) -> Pos {
        self.pos_at_offset_from(text, offset, None)
    }

    /// Like [`LineIndex::pos_at_offset`], but counts columns on from `hint` when it is an
    /// earlier position on the same line, so walking a long line left to right is linear.
    pub fn pos_at_offset_from(&self, text: &str, offset: usize, hint: Option<Pos>) -> Pos {
        let mut offset = offset.min(self.len);
        while offset > 0 && !text.is_char_boundary(offset) {
            offset -= 1;
        }
        // The hint's line, when `offset` is on it (the common case: no search).
        let on_hint_line = hint.and_then(|h| {
            let i = h.line.checked_sub(1)?;
            let start = *self.line_starts.get(i)?;
            let next = self.line_starts.get(i + 1).copied().unwrap_or(usize::MAX);
            (start <= offset && offset < next).then_some(i)
        });
        let line_idx =
            on_hint_line.unwrap_or_else(|| match self.line_starts.binary_search(&offset) {
                Ok(i) => i,
                Err(i) => i.saturating_sub(1),
            });
        let line_start = self.line_starts.get(line_idx).copied().unwrap_or(0);
        let (start, column, utf16_column) = match hint {
            Some(h) if h.line == line_idx + 1 && h.offset <= offset && h.offset >= line_start => {
                (h.offset, h.column, h.utf16_column)
            }
            _ => (line_start, 1, 1),
        };
        let prefix = text.get(start..offset).unwrap_or("");
        let (chars, units) = if prefix.is_ascii() {
            (prefix.len(), prefix.len())
        } else {
            (prefix.chars().count(), prefix.encode_utf16().count())
        };
        Pos {
            offset,
            line: line_idx + 1,
            column: column + chars,
            utf16_column: utf16_column + units,
        }
    }

    /// The span of the whole 1-based `line` (without its line break).
    pub fn line_span(&self, text: &str, line: usize) -> Span {
        let line = line.clamp(1, self.line_count());
        let (start, end) = self.line_range(text, line);
        Span {
            start: self.pos_at_offset(text, start),
            end: self.pos_at_offset(text, end),
        }
    }
}

/// The UTF-16 offset (what JavaScript strings and browser editors count) of byte offset `b`
/// of `text`; a byte past the text or inside a character counts as the start of the text.
pub fn utf16_offset(text: &str, b: usize) -> usize {
    text.get(..b).map_or(0, |t| t.encode_utf16().count())
}

/// The byte offset of UTF-16 offset `u` of `text`: the start of the character that unit is
/// in (a unit inside a surrogate pair rounds up past the pair), clamped to the text.
pub fn byte_offset(text: &str, u: usize) -> usize {
    let mut units = 0;
    for (i, c) in text.char_indices() {
        if units >= u {
            return i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// The UTF-16 offset of 1-based `line` and 1-based UTF-16 `utf16_column` of `text` (lines
/// split at `\n`), clamped to the end of that line and to the end of the text: where a
/// plain text area puts a cursor for a place the engine reports.
pub fn utf16_offset_of_line_column(text: &str, line: usize, utf16_column: usize) -> usize {
    let mut offset = 0;
    let mut lines = text.split('\n');
    for _ in 1..line {
        match lines.next() {
            Some(l) => offset += l.encode_utf16().count() + 1,
            None => return text.encode_utf16().count(),
        }
    }
    let this_line = lines.next().map_or(0, |l| l.encode_utf16().count());
    (offset + utf16_column.max(1) - 1).min(offset + this_line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_and_byte_offsets() {
        // 'é' is 2 bytes / 1 unit, '😀' 4 bytes / 2 units.
        let t = "é😀a";
        for (bytes, units) in [(0, 0), (2, 1), (6, 3), (7, 4)] {
            assert_eq!(utf16_offset(t, bytes), units, "{bytes}");
            assert_eq!(byte_offset(t, units), bytes, "{units}");
        }
        assert_eq!(byte_offset(t, 99), t.len());
        assert_eq!(utf16_offset(t, 99), 0);
        assert_eq!(utf16_offset(t, 1), 0);
    }

    #[test]
    fn utf16_offsets_of_lines_and_columns() {
        let text = "ab\né😀x\nlast";
        for (line, column, want) in [
            (1, 1, 0),
            (1, 3, 2),
            (1, 99, 2),
            (2, 1, 3),
            (2, 4, 6),
            (3, 2, 9),
            (9, 1, 12),
            (0, 0, 0),
        ] {
            assert_eq!(
                utf16_offset_of_line_column(text, line, column),
                want,
                "{line}:{column}"
            );
        }
    }

    #[test]
    fn ascii_positions() {
        let text = "a: 1\nbb: 2\n";
        let idx = LineIndex::new(text);
        let p = idx.pos_at_line_char(text, 2, 4);
        assert_eq!((p.offset, p.line, p.column, p.utf16_column), (9, 2, 5, 5));
        assert_eq!(idx.pos_at_offset(text, 9), p);
    }

    #[test]
    fn multibyte_positions() {
        // 'é' is 2 bytes / 1 UTF-16 unit, '😀' is 4 bytes / 2 UTF-16 units.
        let text = "k: é😀x\n";
        let idx = LineIndex::new(text);
        let p = idx.pos_at_line_char(text, 1, 5);
        assert_eq!(p.offset, 3 + 2 + 4);
        assert_eq!(p.column, 6);
        assert_eq!(p.utf16_column, 7);
        assert_eq!(idx.pos_at_offset(text, p.offset), p);
        // An offset inside a character is rounded down to its start.
        assert_eq!(idx.pos_at_offset(text, 6).offset, 5);
    }

    #[test]
    fn crlf_and_clamping() {
        let text = "a\r\nb\rc";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_count(), 3);
        assert_eq!(idx.pos_at_line_char(text, 3, 0).offset, 5);
        assert_eq!(idx.pos_at_line_char(text, 1, 99).column, 2);
        assert_eq!(idx.pos_at_line_char(text, 99, 0).line, 3);
        assert_eq!(idx.pos_at_offset(text, 999).offset, text.len());
    }

    #[test]
    fn hinted_positions_match_unhinted_ones() {
        for text in ["", "a", "ab\ncd\n", "a\r\nbé\rc\n\n😀x\nlast", "\n\n\r\r\n"] {
            let idx = LineIndex::new(text);
            let plain: Vec<Pos> = (0..=text.len() + 1)
                .map(|o| idx.pos_at_offset(text, o))
                .collect();
            // Every earlier position as a hint, including ones on other lines.
            for (o, want) in plain.iter().enumerate() {
                for hint in plain.iter().take(o + 1) {
                    assert_eq!(
                        idx.pos_at_offset_from(text, o, Some(*hint)),
                        *want,
                        "{text:?} at {o} from {hint:?}"
                    );
                }
            }
        }
    }
}
