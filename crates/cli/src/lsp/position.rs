//! The protocol's positions (0-based line, UTF-16 character) from the engine's places
//! (1-based line and UTF-16 column) and UTF-16 offsets, and back. No text is parsed here:
//! only line breaks are counted.

use crd_studio_engine::{byte_offset, utf16_offset, utf16_offset_of_line_column, Span};
use lsp_types::{Position, Range};

/// The range of an engine span.
pub(crate) fn range(span: &Span) -> Range {
    let p = |line: usize, col: usize| Position {
        line: u32::try_from(line.saturating_sub(1)).unwrap_or(u32::MAX),
        character: u32::try_from(col.saturating_sub(1)).unwrap_or(u32::MAX),
    };
    Range {
        start: p(span.start.line, span.start.utf16_column),
        end: p(span.end.line, span.end.utf16_column),
    }
}

/// The UTF-16 offset of a position.
pub(crate) fn utf16_at(text: &str, pos: Position) -> usize {
    utf16_offset_of_line_column(text, pos.line as usize + 1, pos.character as usize + 1)
}

/// The byte offset of a position.
pub(crate) fn byte_at(text: &str, pos: Position) -> usize {
    byte_offset(text, utf16_at(text, pos))
}

/// The position of UTF-16 offset `u`.
pub(crate) fn position_of_utf16(text: &str, u: usize) -> Position {
    let b = byte_offset(text, u);
    let before = text.get(..b).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Position {
        line: u32::try_from(before.matches('\n').count()).unwrap_or(u32::MAX),
        character: u32::try_from(utf16_offset(before, b) - utf16_offset(before, line_start))
            .unwrap_or(u32::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let text = "a: é😀\nbb: 1\n";
        for (u, line, character) in [(0, 0, 0), (3, 0, 3), (6, 0, 6), (7, 1, 0), (9, 1, 2)] {
            let p = position_of_utf16(text, u);
            assert_eq!((p.line, p.character), (line, character), "{u}");
            assert_eq!(utf16_at(text, p), u);
        }
    }
}
