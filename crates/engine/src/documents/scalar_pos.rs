//! From a character of a YAML or JSON scalar's value back to where it is written.
//!
//! A CEL error names a line and a column of the rule's *value* (`ERROR: <input>:1:6:`); the
//! rule is written as a YAML scalar whose text differs from its value: quotes, `''` and `\`
//! escapes, line folding, block indentation. [`ScalarText::decode`] reads a scalar again as
//! libyaml does (`yaml_parser_scan_flow_scalar`, `yaml_parser_scan_plain_scalar`,
//! `yaml_parser_scan_block_scalar`) and keeps, for every code point of the value, the bytes of
//! the text it came from; [`locate_in_scalar`] checks the decoded value against the value the
//! document reader produced, so a scalar this module reads differently is never mislocated: it
//! is not located at all.
//!
//! Line breaks are `\n`, `\r\n` and `\r`. The other YAML 1.1 breaks (NEL, LS, PS) are read as
//! ordinary characters; a scalar using them as breaks fails the check and is not located.

/// One code point of a scalar's value and the byte range of the text it came from: the
/// character itself, a whole escape (`\n`, `\u00e9`, `''`), or the line break a folded space
/// or newline stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceChar {
    /// The code point of the value.
    pub ch: char,
    /// Byte offset in the text where its source starts.
    pub start: usize,
    /// Byte offset in the text where its source ends.
    pub end: usize,
}

/// A scalar's value as decoded from its text, each code point with its source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScalarText {
    /// The code points of the value.
    pub chars: Vec<SourceChar>,
}

impl ScalarText {
    /// The decoded value.
    pub fn value(&self) -> String {
        self.chars.iter().map(|c| c.ch).collect()
    }

    /// The source of the `index`-th code point (0-based); one past the last code point is the
    /// empty range after the last content character.
    pub fn source_of(&self, index: usize) -> Option<(usize, usize)> {
        if let Some(c) = self.chars.get(index) {
            return Some((c.start, c.end));
        }
        if index == self.chars.len() {
            // After the value: just after the last character that is not a trailing line
            // break (a block scalar's final break is not where an expression ends).
            let last = self
                .chars
                .iter()
                .rev()
                .find(|c| c.ch != '\n')
                .or(self.chars.last())?;
            return Some((last.end, last.end));
        }
        None
    }

    /// The reading of the scalar written at `text[start..end]` that gives `value` (what the
    /// document reader read there); `None` when no reading does.
    pub fn read(text: &str, start: usize, end: usize, value: &str) -> Option<ScalarText> {
        ScalarText::decode(text, start, end)
            .into_iter()
            .find(|s| s.chars.len() == value.chars().count() && s.value() == value)
    }

    /// Every reading of the scalar written at `text[start..end]` (a node's span, which may
    /// begin with a tag or an anchor): one for most scalars, several for a block scalar with
    /// an explicit indentation indicator (it is relative to the parent's indentation, which
    /// the scalar's text does not tell). Empty for an alias or a range that is not a scalar.
    pub fn decode(text: &str, start: usize, end: usize) -> Vec<ScalarText> {
        let end = end.min(text.len());
        let Some(pos) = skip_properties(text, start, end) else {
            return Vec::new();
        };
        let mut r = Reader {
            text,
            pos,
            limit: end,
        };
        match r.peek() {
            Some('"') => {
                r.bump();
                r.flow(Flow::Double).into_iter().collect()
            }
            Some('\'') => {
                r.bump();
                r.flow(Flow::Single).into_iter().collect()
            }
            Some(c @ ('|' | '>')) => {
                r.bump();
                block(r, c == '|')
            }
            Some('*') | None => Vec::new(),
            Some(_) => r.flow(Flow::Plain).into_iter().collect(),
        }
    }
}

/// The byte range in `text` where the `index`-th code point (0-based) of `value` is written,
/// `value` being the string the scalar at `text[start..end]` was read as. `None` when the
/// scalar cannot be read back to exactly `value` (an alias, a style this module reads
/// differently) or `index` is past the end of the value.
#[cfg(test)]
pub fn locate_in_scalar(
    text: &str,
    start: usize,
    end: usize,
    value: &str,
    index: usize,
) -> Option<(usize, usize)> {
    ScalarText::read(text, start, end, value)?.source_of(index)
}

/// Skips a node's tag and anchor (`!!str &a "x"`): the position of the scalar itself.
fn skip_properties(text: &str, start: usize, end: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut pos = start;
    while matches!(bytes.get(pos), Some(b'!' | b'&')) {
        while pos < end && !matches!(bytes.get(pos), Some(b' ' | b'\t' | b'\r' | b'\n') | None) {
            pos += 1;
        }
        while pos < end && matches!(bytes.get(pos), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            pos += 1;
        }
    }
    (pos <= end).then_some(pos)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    Plain,
    Single,
    Double,
}

struct Reader<'a> {
    text: &'a str,
    pos: usize,
    limit: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        if self.pos >= self.limit {
            return None;
        }
        self.text.get(self.pos..)?.chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        if self.pos >= self.limit {
            return None;
        }
        self.text.get(self.pos..)?.chars().nth(n)
    }

    /// Moves past the current character.
    fn bump(&mut self) {
        if let Some(c) = self.peek() {
            self.pos += c.len_utf8();
        }
    }

    /// The length in bytes of the line break at the current position, if there is one.
    fn break_len(&self) -> Option<usize> {
        match self.peek() {
            Some('\r') if self.peek_at(1) == Some('\n') => Some(2),
            Some('\r' | '\n') => Some(1),
            _ => None,
        }
    }

    fn blank(&self) -> bool {
        matches!(self.peek(), Some(' ' | '\t'))
    }

    /// A flow scalar (`yaml_parser_scan_flow_scalar`) after its opening quote, or a plain
    /// scalar (`yaml_parser_scan_plain_scalar`, which ends where the node's span ends).
    fn flow(&mut self, style: Flow) -> Option<ScalarText> {
        let mut out = Vec::new();
        loop {
            // A run of non-blank characters.
            let mut leading_blanks = false;
            loop {
                let Some(c) = self.peek() else {
                    // Plain scalars end at the end of their span; quoted ones never do.
                    return (style == Flow::Plain).then_some(ScalarText { chars: out });
                };
                if c == ' ' || c == '\t' || self.break_len().is_some() {
                    break;
                }
                let at = self.pos;
                match style {
                    Flow::Single if c == '\'' && self.peek_at(1) == Some('\'') => {
                        self.pos += 2;
                        out.push(SourceChar {
                            ch: '\'',
                            start: at,
                            end: self.pos,
                        });
                    }
                    Flow::Single if c == '\'' => return Some(ScalarText { chars: out }),
                    Flow::Double if c == '"' => return Some(ScalarText { chars: out }),
                    Flow::Double if c == '\\' => {
                        self.bump();
                        if let Some(n) = self.break_len() {
                            // An escaped line break: the lines join without a space.
                            self.pos += n;
                            leading_blanks = true;
                            break;
                        }
                        let ch = self.escape()?;
                        out.push(SourceChar {
                            ch,
                            start: at,
                            end: self.pos,
                        });
                    }
                    _ => {
                        self.bump();
                        out.push(SourceChar {
                            ch: c,
                            start: at,
                            end: self.pos,
                        });
                    }
                }
            }
            // Blanks and line breaks.
            let mut whitespaces: Vec<SourceChar> = Vec::new();
            let mut leading_break: Option<(usize, usize)> = None;
            let mut trailing_breaks: Vec<(usize, usize)> = Vec::new();
            loop {
                if self.blank() {
                    let at = self.pos;
                    let c = self.peek().unwrap_or(' ');
                    self.bump();
                    if !leading_blanks {
                        whitespaces.push(SourceChar {
                            ch: c,
                            start: at,
                            end: self.pos,
                        });
                    }
                } else if let Some(n) = self.break_len() {
                    let range = (self.pos, self.pos + n);
                    self.pos += n;
                    if !leading_blanks {
                        whitespaces.clear();
                        leading_break = Some(range);
                        leading_blanks = true;
                    } else {
                        trailing_breaks.push(range);
                    }
                } else {
                    break;
                }
            }
            if style == Flow::Plain && self.peek().is_none() {
                // Trailing blanks are not part of a plain scalar.
                return Some(ScalarText { chars: out });
            }
            if leading_blanks {
                let breaks = trailing_breaks.iter().map(|&(start, end)| SourceChar {
                    ch: '\n',
                    start,
                    end,
                });
                match leading_break {
                    Some((start, end)) if trailing_breaks.is_empty() => out.push(SourceChar {
                        ch: ' ',
                        start,
                        end,
                    }),
                    _ => out.extend(breaks),
                }
            } else {
                out.extend(whitespaces);
            }
        }
    }

    /// The character of a double-quoted escape, the reader just after the `\`.
    fn escape(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.bump();
        let simple = match c {
            '0' => Some('\0'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            't' | '\t' => Some('\t'),
            'n' => Some('\n'),
            'v' => Some('\u{b}'),
            'f' => Some('\u{c}'),
            'r' => Some('\r'),
            'e' => Some('\u{1b}'),
            ' ' => Some(' '),
            '"' => Some('"'),
            '/' => Some('/'),
            '\'' => Some('\''),
            '\\' => Some('\\'),
            'N' => Some('\u{85}'),
            '_' => Some('\u{a0}'),
            'L' => Some('\u{2028}'),
            'P' => Some('\u{2029}'),
            _ => None,
        };
        if simple.is_some() {
            return simple;
        }
        let digits = match c {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            _ => return None,
        };
        let hex = self.text.get(self.pos..self.pos + digits)?;
        let code = u32::from_str_radix(hex, 16).ok()?;
        self.pos += digits;
        if (0xD800..0xDC00).contains(&code) {
            // A UTF-16 surrogate pair written as two escapes (JSON's form).
            let low = self
                .text
                .get(self.pos..self.pos + 6)
                .and_then(|s| s.strip_prefix("\\u"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .filter(|l| (0xDC00..0xE000).contains(l))?;
            self.pos += 6;
            return char::from_u32(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00));
        }
        char::from_u32(code)
    }
}

/// The readings of a block scalar, the reader just after its `|` or `>`.
fn block(mut r: Reader<'_>, literal: bool) -> Vec<ScalarText> {
    // The header: chomping and indentation indicators, in either order, and a comment.
    let mut chomping = 0i8;
    let mut increment = 0usize;
    for _ in 0..2 {
        match r.peek() {
            Some('+') => chomping = 1,
            Some('-') => chomping = -1,
            Some(d @ '1'..='9') => increment = d.to_digit(10).map_or(0, |d| d as usize),
            _ => break,
        }
        r.bump();
    }
    while r.blank() {
        r.bump();
    }
    if r.peek() == Some('#') {
        while r.peek().is_some() && r.break_len().is_none() {
            r.bump();
        }
    }
    match r.break_len() {
        Some(n) => r.pos += n,
        None if r.peek().is_none() => {}
        None => return Vec::new(),
    }
    let body = r.pos;
    if increment == 0 {
        return block_body(&mut Reader { pos: body, ..r }, literal, chomping, 0)
            .into_iter()
            .collect();
    }
    // The indentation is the parent's plus the indicator; try every parent indentation the
    // first content line allows.
    let first_indent = r
        .text
        .get(body..r.limit)
        .unwrap_or("")
        .lines()
        .find(|l| !l.trim().is_empty())
        .map_or(0, |l| l.len() - l.trim_start_matches(' ').len());
    (increment..=first_indent.max(increment))
        .filter_map(|indent| block_body(&mut Reader { pos: body, ..r }, literal, chomping, indent))
        .collect()
}

/// A block scalar's content (`yaml_parser_scan_block_scalar` after the header); `indent` 0
/// detects the indentation.
fn block_body(
    r: &mut Reader<'_>,
    literal: bool,
    chomping: i8,
    indent: usize,
) -> Option<ScalarText> {
    let mut out = Vec::new();
    let mut indent = indent;
    let mut trailing_breaks: Vec<(usize, usize)> = Vec::new();
    let mut line_start = r.pos;
    block_breaks(r, &mut indent, &mut trailing_breaks, &mut line_start);
    let mut leading_break: Option<(usize, usize)> = None;
    let mut leading_blank = false;
    let column = |r: &Reader<'_>, line_start: usize| {
        r.text
            .get(line_start..r.pos)
            .map_or(0, |s| s.chars().count())
    };
    while column(r, line_start) == indent && r.peek().is_some() {
        let trailing_blank = r.blank();
        let breaks = |v: &[(usize, usize)]| {
            v.iter()
                .map(|&(start, end)| SourceChar {
                    ch: '\n',
                    start,
                    end,
                })
                .collect::<Vec<_>>()
        };
        // Folding (`>`): a break between two lines that do not start with a blank becomes a
        // space, or nothing when empty lines follow it (they stay newlines).
        let fold = !literal && !leading_blank && !trailing_blank;
        match leading_break {
            Some((start, end)) if fold && trailing_breaks.is_empty() => out.push(SourceChar {
                ch: ' ',
                start,
                end,
            }),
            Some(_) if fold => {}
            Some(b) => out.extend(breaks(&[b])),
            None => {}
        }
        out.extend(breaks(&trailing_breaks));
        trailing_breaks.clear();
        leading_blank = r.blank();
        while let Some(c) = r.peek() {
            if r.break_len().is_some() {
                break;
            }
            let at = r.pos;
            r.bump();
            out.push(SourceChar {
                ch: c,
                start: at,
                end: r.pos,
            });
        }
        leading_break = match r.break_len() {
            Some(n) => {
                let b = (r.pos, r.pos + n);
                r.pos += n;
                line_start = r.pos;
                Some(b)
            }
            None => None,
        };
        if leading_break.is_none() {
            // The end of the span or of the text: the last line has no break.
            break;
        }
        block_breaks(r, &mut indent, &mut trailing_breaks, &mut line_start);
    }
    let nl = |(start, end): (usize, usize)| SourceChar {
        ch: '\n',
        start,
        end,
    };
    if chomping != -1 {
        out.extend(leading_break.map(nl));
    }
    if chomping == 1 {
        out.extend(trailing_breaks.into_iter().map(nl));
    }
    Some(ScalarText { chars: out })
}

/// `yaml_parser_scan_block_scalar_breaks`: indentation and empty lines before a content line;
/// sets `indent` when it is 0 (detection: the deepest of those lines, at least 1).
fn block_breaks(
    r: &mut Reader<'_>,
    indent: &mut usize,
    breaks: &mut Vec<(usize, usize)>,
    line_start: &mut usize,
) {
    let mut max_indent = 0;
    loop {
        while (*indent == 0 || r.pos - *line_start < *indent) && r.peek() == Some(' ') {
            r.bump();
        }
        max_indent = max_indent.max(r.pos - *line_start);
        let Some(n) = r.break_len() else { break };
        breaks.push((r.pos, r.pos + n));
        r.pos += n;
        *line_start = r.pos;
    }
    if *indent == 0 {
        *indent = max_indent.max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes the scalar that is the value of the first `k:` in `doc` (the span runs to the
    /// end of the text, minus trailing whitespace for flow scalars, as libyaml's marks do).
    fn decode_value(doc: &str) -> ScalarText {
        let parsed =
            crate::documents::document::parse(doc, crate::documents::finding::SourceId::Crd);
        let (_, root) = parsed
            .values()
            .next()
            .unwrap_or_else(|| panic!("{doc:?}: {:?}", parsed.findings));
        let node = root
            .get("k")
            .or_else(|| {
                root.as_seq()
                    .and_then(|s| s.first())
                    .and_then(|n| n.get("k"))
            })
            .expect("k");
        let value = node.as_str().expect("a string").to_owned();
        let all = ScalarText::decode(doc, node.span.start.offset, node.span.end.offset);
        let found = all
            .into_iter()
            .find(|s| s.value() == value)
            .unwrap_or_else(|| panic!("{doc:?}: no reading gives {value:?}"));
        found
    }

    /// `(document, value, [(index, text at the source of that code point)])`.
    #[test]
    fn every_style_maps_back() {
        type Case = (&'static str, &'static str, &'static [(usize, &'static str)]);
        let cases: &[Case] = &[
            // plain
            (
                "k: self.foo == 1\n",
                "self.foo == 1",
                &[(0, "s"), (5, "f"), (12, "1")],
            ),
            // plain over several lines: a break folds to a space, an empty line to `\n`
            (
                "k: self.a\n  && self.b\n\n  || c\nx: 1\n",
                "self.a && self.b\n|| c",
                &[
                    (6, "\n"),
                    (7, "&"),
                    (10, "s"),
                    (16, "\n"),
                    (17, "|"),
                    (20, "c"),
                ],
            ),
            // single-quoted with '' escapes
            (
                "k: 'self.a == ''x'' '\n",
                "self.a == 'x' ",
                &[(10, "''"), (11, "x"), (12, "''"), (13, " ")],
            ),
            // single-quoted over lines: trailing and leading blanks dropped
            ("k: 'a  \n    b'\n", "a b", &[(0, "a"), (1, "\n"), (2, "b")]),
            // double-quoted escapes
            (
                "k: \"self.x == \\\"\\u00e9\\\" \\n&& \\ty\"\n",
                "self.x == \"é\" \n&& \ty",
                &[
                    (10, "\\\""),
                    (11, "\\u00e9"),
                    (12, "\\\""),
                    (14, "\\n"),
                    (15, "&"),
                    (18, "\\t"),
                    (19, "y"),
                ],
            ),
            // double-quoted line folding and an escaped line break
            (
                "k: \"self.a &&\n   self.b ||\\\n   c\"\n",
                "self.a && self.b ||c",
                &[(9, "\n"), (10, "s"), (19, "c")],
            ),
            // double-quoted with an empty line: a newline
            ("k: \"a\n\n  b\"\n", "a\nb", &[(1, "\n"), (2, "b")]),
            // \x, \U, \/ escapes
            (
                "k: \"\\x41\\U0001F600\\/z\"\n",
                "A😀/z",
                &[(0, "\\x41"), (1, "\\U0001F600"), (2, "\\/"), (3, "z")],
            ),
            // literal block: indentation stripped, breaks kept
            (
                "k: |\n  self.a &&\n    self.b\nx: 1\n",
                "self.a &&\n  self.b\n",
                &[(0, "s"), (9, "\n"), (10, " "), (12, "s"), (18, "\n")],
            ),
            // literal block, strip chomping, comment in the header, leading empty line
            (
                "k: |- # the rule\n\n   a\n   b\n\n",
                "\na\nb",
                &[(0, "\n"), (1, "a"), (3, "b")],
            ),
            // literal block, keep chomping
            ("k: |+\n  a\n\n\nx: 1\n", "a\n\n\n", &[(0, "a"), (1, "\n")]),
            // literal block with an explicit indentation indicator
            (
                "k: |2\n   a\n  b\n",
                " a\nb\n",
                &[(0, " "), (1, "a"), (3, "b")],
            ),
            // folded block: breaks fold to spaces, empty lines to newlines, more-indented
            // lines keep theirs
            (
                "k: >\n  self.a &&\n  self.b\n\n  c\n    d\n  e\n",
                "self.a && self.b\nc\n  d\ne\n",
                &[
                    (9, "\n"),
                    (10, "s"),
                    (16, "\n"),
                    (17, "c"),
                    (18, "\n"),
                    (19, " "),
                    (21, "d"),
                    (22, "\n"),
                    (23, "e"),
                ],
            ),
            // tagged scalars
            ("k: !!str 'a''b'\n", "a'b", &[(1, "''"), (2, "b")]),
            ("k: !!str |\n  ab\n", "ab\n", &[(1, "b")]),
            // multi-byte characters
            ("k: 'é + ü'\n", "é + ü", &[(0, "é"), (4, "ü")]),
            // CRLF line breaks
            ("k: \"a\r\n  b\"\r\n", "a b", &[(1, "\r\n"), (2, "b")]),
            ("k: |\r\n  a\r\n  b\r\n", "a\nb\n", &[(1, "\r\n"), (2, "b")]),
            // JSON
            (
                "{\"k\": \"self.x == \\\"a\\\\b\\\" && y\"}",
                "self.x == \"a\\b\" && y",
                &[(10, "\\\""), (11, "a"), (12, "\\\\"), (13, "b"), (19, "y")],
            ),
            // a plain scalar ends before its comment
            ("k: a  b # c\n", "a  b", &[(3, "b")]),
            // inside a sequence item, and a plain scalar continued under a sequence
            (
                "- x: 1\n  k: self.a\n    + 1\n",
                "self.a + 1",
                &[(6, "\n"), (9, "1")],
            ),
            // tabs inside quotes are content; around a fold they go
            (
                "k: \"a\tb \t\n\t c\"\n",
                "a\tb c",
                &[(1, "\t"), (3, "\n"), (4, "c")],
            ),
            // a folded block whose first line is more indented keeps its break
            (
                "k: >2\n    a\n  b\n",
                "  a\nb\n",
                &[(0, " "), (2, "a"), (3, "\n"), (4, "b")],
            ),
            // a flow mapping's plain scalar ends at the comma
            ("{k: a b, x: 1}", "a b", &[(2, "b")]),
        ];
        for (doc, want, points) in cases {
            let s = decode_value(doc);
            assert_eq!(s.value(), *want, "{doc:?}");
            for (index, text) in *points {
                let (start, end) = s.source_of(*index).expect("in range");
                assert_eq!(&doc[start..end], *text, "{doc:?} [{index}]");
            }
        }
    }

    #[test]
    fn nested_block_with_indicator() {
        let doc = "p:\n  k: |1\n    a\n   b\n";
        let parsed =
            crate::documents::document::parse(doc, crate::documents::finding::SourceId::Crd);
        let (_, root) = parsed.values().next().unwrap();
        let node = root.get("p").unwrap().get("k").unwrap();
        let value = node.as_str().unwrap();
        assert_eq!(value, " a\nb\n");
        let (start, end) =
            locate_in_scalar(doc, node.span.start.offset, node.span.end.offset, value, 3).unwrap();
        assert_eq!(&doc[start..end], "b");
        assert_eq!(start, doc.rfind('b').unwrap());
    }

    #[test]
    fn end_of_value_and_out_of_range() {
        let doc = "k: |\n  self.a ==\nx: 1\n";
        let s = decode_value(doc);
        // One past the last code point: after the last content character.
        let (start, end) = s.source_of(s.chars.len()).unwrap();
        assert_eq!(
            (start, end),
            (doc.find("==").unwrap() + 2, doc.find("==").unwrap() + 2)
        );
        // One past the value: nothing.
        assert_eq!(s.source_of(s.chars.len() + 1), None);
        let doc = "k: 'ab'\n";
        let s = decode_value(doc);
        assert_eq!(s.source_of(2), Some((6, 6)));
    }

    #[test]
    fn mismatches_are_not_located() {
        // An alias, and a value that is not what the text says.
        let doc = "a: &x 'v'\nk: *x\n";
        let start = doc.find("*x").unwrap();
        assert!(ScalarText::decode(doc, start, start + 2).is_empty());
        assert_eq!(locate_in_scalar(doc, start, start + 2, "v", 0), None);
        assert_eq!(locate_in_scalar("k: 'ab'", 3, 7, "ba", 0), None);
        // An unterminated quote (a range cut short).
        assert_eq!(locate_in_scalar("k: 'ab", 3, 6, "ab", 0), None);
        // Out-of-range positions do not panic.
        assert_eq!(locate_in_scalar("k: a", 10, 20, "a", 0), None);
        assert!(ScalarText::decode("k: \"\\u12", 3, 8).is_empty());
    }
}
