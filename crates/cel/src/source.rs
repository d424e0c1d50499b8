//! The expression text as cel-go's `common.Source` sees it: code points, line offsets and
//! locations (1-based lines, 0-based code-point columns), and the snippet of one line.

/// A location in the source: 1-based line and 0-based column, both counted in code points as
/// cel-go does. cel-go's `NoLocation` is line -1, column -1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Location {
    /// 1-based line (-1 for "no location").
    pub line: i32,
    /// 0-based column in code points (-1 for "no location").
    pub column: i32,
}

impl Location {
    /// cel-go's `common.NoLocation`.
    pub const NONE: Location = Location {
        line: -1,
        column: -1,
    };

    /// A new location.
    pub const fn new(line: i32, column: i32) -> Self {
        Location { line, column }
    }
}

/// The text of an expression with cel-go's line offsets.
///
/// Offsets are code-point offsets (cel-go's `runes.Buffer`), not bytes: every position in the
/// AST's [`crate::SourceInfo`] is such an offset. `line_offsets` holds, for each `\n`, the offset
/// just after it, then `len + 1` (so an expression of one line has `[len + 1]`; the empty text
/// has `[0]`), exactly as cel-go computes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    text: String,
    description: String,
    /// Byte offset of each code point, plus the text length at the end.
    char_bytes: Vec<u32>,
    line_offsets: Vec<i32>,
}

impl Source {
    /// A source named `<input>`, as cel-go's `common.NewTextSource`.
    pub fn new(text: &str) -> Self {
        Self::with_description(text, "<input>")
    }

    /// A source with a description (the name shown in error messages).
    pub fn with_description(text: &str, description: &str) -> Self {
        let mut char_bytes = Vec::with_capacity(text.len() + 1);
        let mut line_offsets = Vec::new();
        let mut count: i32 = 0;
        for (i, c) in text.char_indices() {
            char_bytes.push(u32::try_from(i).unwrap_or(u32::MAX));
            count = count.saturating_add(1);
            if c == '\n' {
                line_offsets.push(count);
            }
        }
        char_bytes.push(u32::try_from(text.len()).unwrap_or(u32::MAX));
        if text.is_empty() {
            line_offsets.push(0);
        } else {
            line_offsets.push(count.saturating_add(1));
        }
        Source {
            text: text.to_string(),
            description: description.to_string(),
            char_bytes,
            line_offsets,
        }
    }

    /// The full text.
    pub fn content(&self) -> &str {
        &self.text
    }

    /// The description, `<input>` by default.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Number of code points.
    pub fn len_chars(&self) -> usize {
        self.char_bytes.len().saturating_sub(1)
    }

    /// cel-go's line offsets (see the type's documentation).
    pub fn line_offsets(&self) -> &[i32] {
        &self.line_offsets
    }

    /// The byte offset of a code-point offset (clamped to the text).
    pub fn byte_offset(&self, char_offset: usize) -> usize {
        let last = self.char_bytes.len().saturating_sub(1);
        self.char_bytes
            .get(char_offset.min(last))
            .map_or(self.text.len(), |b| *b as usize)
    }

    /// Text between two code-point offsets (clamped).
    pub fn slice_chars(&self, start: usize, end: usize) -> &str {
        let s = self.byte_offset(start);
        let e = self.byte_offset(end.max(start));
        self.text.get(s..e).unwrap_or("")
    }

    fn find_line_offset(&self, line: i32) -> Option<i32> {
        if line == 1 {
            return Some(0);
        }
        if line > 1 && (line as usize) <= self.line_offsets.len() {
            return self.line_offsets.get((line - 2) as usize).copied();
        }
        None
    }

    /// The text of a 1-based line without its newline (cel-go's `Snippet`); `None` when the
    /// line does not exist or the source is empty.
    pub fn snippet(&self, line: i32) -> Option<&str> {
        let start = self.find_line_offset(line)?;
        if self.len_chars() == 0 {
            return None;
        }
        let start = usize::try_from(start).ok()?;
        match self.find_line_offset(line.saturating_add(1)) {
            Some(end) => {
                let end = usize::try_from(end.saturating_sub(1)).ok()?;
                Some(self.slice_chars(start, end))
            }
            None => Some(self.slice_chars(start, self.len_chars())),
        }
    }

    /// The location of a code-point offset, as cel-go's `SourceInfo.GetLocationByOffset`.
    pub fn location_of_offset(&self, offset: i32) -> Location {
        location_by_offset(&self.line_offsets, offset)
    }

    /// The code-point offset of a 1-based line and 0-based column, as cel-go's
    /// `ComputeOffsetAbsolute` (-1 when the line does not exist).
    pub fn compute_offset_absolute(&self, line: i32, column: i32) -> i32 {
        compute_offset_absolute(&self.line_offsets, line, column)
    }

    /// cel-go's `SourceInfo.ComputeOffset`: relative to the location of offset 0 (which is
    /// line 2 for the empty text, a quirk kept for exact error positions).
    pub fn compute_offset(&self, line: i32, column: i32) -> i32 {
        let (base_line, base_col) = self.base();
        compute_offset_absolute(
            &self.line_offsets,
            base_line.saturating_add(line),
            base_col.saturating_add(column),
        )
    }

    fn base(&self) -> (i32, i32) {
        // Source.OffsetLocation(0): findLine(0).
        let mut line = 1;
        for lo in &self.line_offsets {
            if *lo > 0 {
                break;
            }
            line += 1;
        }
        let line_offset = if line == 1 {
            0
        } else {
            self.line_offsets
                .get((line - 2) as usize)
                .copied()
                .unwrap_or(0)
        };
        (line - 1, -line_offset)
    }
}

/// `SourceInfo.GetLocationByOffset` over line offsets.
pub(crate) fn location_by_offset(line_offsets: &[i32], offset: i32) -> Location {
    let mut line = 1;
    let mut col = offset;
    for lo in line_offsets {
        if *lo > offset {
            break;
        }
        line += 1;
        col = offset - lo;
    }
    Location::new(line, col)
}

/// `SourceInfo.ComputeOffsetAbsolute` over line offsets.
pub(crate) fn compute_offset_absolute(line_offsets: &[i32], line: i32, column: i32) -> i32 {
    if line == 1 {
        return column;
    }
    if line < 1 || line as usize > line_offsets.len() {
        return -1;
    }
    match line_offsets.get((line - 2) as usize) {
        Some(o) => o.saturating_add(column),
        None => -1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_offsets_as_cel_go() {
        let cases: &[(&str, &[i32])] = &[
            ("", &[0]),
            ("ab", &[3]),
            ("a\nb", &[2, 4]),
            ("a\n", &[2, 3]),
            ("é\nx", &[2, 4]),
        ];
        for (text, want) in cases {
            assert_eq!(Source::new(text).line_offsets(), *want, "{text:?}");
        }
    }

    #[test]
    fn snippets() {
        let s = Source::new("first\nsecond\n");
        assert_eq!(s.snippet(1), Some("first"));
        assert_eq!(s.snippet(2), Some("second"));
        assert_eq!(s.snippet(3), Some(""));
        assert_eq!(s.snippet(4), None);
        assert_eq!(s.snippet(-1), None);
        assert_eq!(Source::new("").snippet(1), None);
    }

    #[test]
    fn offsets_and_locations() {
        let s = Source::new("ab\ncdé\nf");
        assert_eq!(s.location_of_offset(0), Location::new(1, 0));
        assert_eq!(s.location_of_offset(4), Location::new(2, 1));
        assert_eq!(s.location_of_offset(7), Location::new(3, 0));
        assert_eq!(s.compute_offset(2, 2), 5);
        assert_eq!(s.compute_offset(9, 0), -1);
        // The empty text: offset 0 is on "line 2", so line 1 maps to nothing.
        let e = Source::new("");
        assert_eq!(e.compute_offset(1, 0), -1);
        assert_eq!(e.location_of_offset(-1), Location::new(1, -1));
    }
}
