//! The template parser (client-go `jsonpath/parser.go`): text, fields, arrays, filters,
//! unions, ranges, literals.

use super::*;

/// Parses a template; `depth` counts nested sub-parsers.
pub(super) fn parse(text: &str, depth: usize) -> Result<Vec<Node>, String> {
    if depth > MAX_DEPTH {
        return Err("jsonpath template nested too deeply".to_owned());
    }
    let mut p = Parser {
        input: text,
        pos: 0,
        start: 0,
        width: 0,
        depth,
    };
    p.parse_all()
}

/// `parseAction(name, text)`: parses `{text}` and returns the nodes of its first list.
pub(super) fn parse_action(text: &str, depth: usize) -> Result<Vec<Node>, String> {
    let nodes = parse(&format!("{{{text}}}"), depth + 1)?;
    match nodes.into_iter().next() {
        Some(Node::List(list)) => Ok(list),
        _ => Ok(Vec::new()),
    }
}

pub(super) struct Parser<'a> {
    pub(super) input: &'a str,
    pub(super) pos: usize,
    pub(super) start: usize,
    pub(super) width: usize,
    pub(super) depth: usize,
}

impl Parser<'_> {
    pub(super) fn rest(&self) -> &str {
        self.input.get(self.pos..).unwrap_or("")
    }

    /// `consumeText`: the text since the last call.
    pub(super) fn consume(&mut self) -> String {
        let value = self
            .input
            .get(self.start..self.pos)
            .unwrap_or("")
            .to_owned();
        self.start = self.pos;
        value
    }

    /// `next`: the next rune, `None` at the end.
    pub(super) fn next(&mut self) -> Option<char> {
        match self.rest().chars().next() {
            None => {
                self.width = 0;
                None
            }
            Some(c) => {
                self.width = c.len_utf8();
                self.pos += self.width;
                Some(c)
            }
        }
    }

    pub(super) fn peek(&mut self) -> Option<char> {
        self.rest().chars().next()
    }

    pub(super) fn backup(&mut self) {
        self.pos -= self.width;
    }

    /// The byte two before the current position (`p.input[p.pos-2]`).
    pub(super) fn byte_before_last(&self) -> Option<u8> {
        self.pos
            .checked_sub(2)
            .and_then(|i| self.input.as_bytes().get(i).copied())
    }

    /// `parseText` and everything it chains to, as a loop over the top level.
    pub(super) fn parse_all(&mut self) -> Result<Vec<Node>, String> {
        let mut root = Vec::new();
        loop {
            // parseText
            loop {
                if self.rest().starts_with('{') {
                    break;
                }
                if self.next().is_none() {
                    if self.pos > self.start {
                        root.push(Node::Text(self.consume()));
                    }
                    return Ok(root);
                }
            }
            if self.pos > self.start {
                root.push(Node::Text(self.consume()));
            }
            // parseLeftDelim
            self.pos += 1;
            self.consume();
            let mut list = Vec::new();
            self.parse_inside_action(&mut list)?;
            root.push(Node::List(list));
        }
    }

    /// `parseInsideAction` up to and including the closing `}`.
    pub(super) fn parse_inside_action(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        loop {
            let rest = self.rest();
            if rest.starts_with('}') {
                // parseRightDelim
                self.pos += 1;
                self.consume();
                return Ok(());
            }
            if rest.starts_with("[?(") {
                self.parse_filter(cur)?;
                continue;
            }
            if rest.starts_with("..") {
                self.parse_recursive(cur)?;
                continue;
            }
            match self.next() {
                None | Some('\r' | '\n') => return Err("unclosed action".to_owned()),
                Some(' ' | '@' | '$') => {
                    self.consume();
                }
                Some('[') => self.parse_array(cur)?,
                Some(q @ ('"' | '\'')) => self.parse_quote(cur, q)?,
                Some('.') => self.parse_field(cur),
                Some(c) if c == '+' || c == '-' || is_digit(c) => {
                    self.backup();
                    self.parse_number(cur)?;
                }
                Some(c) if is_alpha_numeric(c) => {
                    self.backup();
                    self.parse_identifier(cur);
                }
                Some(c) => {
                    return Err(format!(
                        "unrecognized character in action: {}",
                        go_unicode_sharp(c)
                    ))
                }
            }
        }
    }

    pub(super) fn parse_identifier(&mut self, cur: &mut Vec<Node>) {
        loop {
            let r = self.next();
            if is_terminator(r) {
                self.backup();
                break;
            }
        }
        let value = self.consume();
        match value.as_str() {
            "true" => cur.push(Node::Bool(true)),
            "false" => cur.push(Node::Bool(false)),
            _ => cur.push(Node::Identifier(value)),
        }
    }

    pub(super) fn parse_recursive(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        if matches!(cur.last(), Some(Node::Recursive)) {
            return Err("invalid multiple recursive descent".to_owned());
        }
        self.pos += 2;
        self.consume();
        cur.push(Node::Recursive);
        if self.peek().is_some_and(is_alpha_numeric) {
            self.parse_field(cur);
        }
        Ok(())
    }

    pub(super) fn parse_number(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        if matches!(self.peek(), Some('+' | '-')) {
            self.next();
        }
        loop {
            match self.next() {
                Some(c) if c == '.' || is_digit(c) => {}
                _ => {
                    self.backup();
                    break;
                }
            }
        }
        let value = self.consume();
        if let Ok(i) = value.parse::<i64>() {
            cur.push(Node::Int(i));
            return Ok(());
        }
        // Go's ParseFloat on `[+-]?[0-9.]*`: the same strings parse as with Rust's parser.
        if value
            .bytes()
            .all(|b| b == b'.' || b == b'+' || b == b'-' || b.is_ascii_digit())
        {
            if let Ok(f) = value.parse::<f64>() {
                cur.push(Node::Float(f));
                return Ok(());
            }
        }
        Err(format!("cannot parse number {value}"))
    }

    pub(super) fn parse_array(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated array".to_owned()),
                Some(']') => break,
                _ => {}
            }
        }
        let consumed = self.consume();
        let mut text = consumed
            .get(1..consumed.len().saturating_sub(1))
            .unwrap_or("")
            .to_owned();
        if text == "*" {
            text = ":".to_owned();
        }
        // union operator
        let parts: Vec<&str> = text.split(',').collect();
        if parts.len() > 1 {
            let mut union = Vec::new();
            for part in parts {
                union.push(parse_action(
                    &format!("[{}]", part.trim_matches(' ')),
                    self.depth,
                )?);
            }
            cur.push(Node::Union(union));
            return Ok(());
        }
        // dict key: ^'([^']*)'$
        if text.len() >= 2
            && text.starts_with('\'')
            && text.ends_with('\'')
            && !text.get(1..text.len() - 1).unwrap_or("'").contains('\'')
        {
            let key = text.get(1..text.len() - 1).unwrap_or("");
            cur.extend(parse_action(&format!(".{key}"), self.depth)?);
            return Ok(());
        }
        // slice operator: ^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$
        let Some(groups) = slice_groups(&text) else {
            return Err(format!("invalid array index {text}"));
        };
        let mut params = [Param::default(); 3];
        for i in 0..3 {
            let group = groups.get(i).copied().flatten();
            let given = group.filter(|g| !g.is_empty());
            let param = match given {
                Some(g) => {
                    let g = if i > 0 { g.get(1..).unwrap_or("") } else { g };
                    if i > 0 && g.is_empty() {
                        Param::default()
                    } else {
                        match crd_studio_gostd::strconv::atoi(g).ok() {
                            Some(v) => Param {
                                value: v,
                                known: true,
                                derived: false,
                            },
                            None => return Err(format!("array index {g} is not a number")),
                        }
                    }
                }
                None if i == 1 => Param {
                    value: params.first().map_or(0, |p| p.value).wrapping_add(1),
                    known: true,
                    derived: true,
                },
                None => Param::default(),
            };
            if let Some(slot) = params.get_mut(i) {
                *slot = param;
            }
        }
        cur.push(Node::Array(params));
        Ok(())
    }

    pub(super) fn parse_filter(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        self.pos += 3;
        self.consume();
        let mut begin = false;
        let mut end = false;
        let mut pair = '\0';
        loop {
            let r = self.next();
            match r {
                None | Some('\n') => return Err("unterminated filter".to_owned()),
                Some(q @ ('"' | '\'')) => {
                    if !begin {
                        begin = true;
                        pair = q;
                        continue;
                    }
                    if self.byte_before_last() != Some(b'\\') && q == pair {
                        end = true;
                    }
                }
                Some(')') => {
                    if begin == end {
                        break;
                    }
                }
                Some(_) => {}
            }
        }
        if self.next() != Some(']') {
            return Err("unclosed array expect ]".to_owned());
        }
        let consumed = self.consume();
        let text = consumed
            .get(..consumed.len().saturating_sub(2))
            .unwrap_or("");
        match filter_parts(text) {
            None => {
                let left = parse_action(text, self.depth)?;
                cur.push(Node::Filter {
                    left,
                    right: Vec::new(),
                    operator: "exists".to_owned(),
                });
            }
            Some((left, operator, right)) => {
                let left = parse_action(left, self.depth)?;
                let right = parse_action(right, self.depth)?;
                cur.push(Node::Filter {
                    left,
                    right,
                    operator: operator.to_owned(),
                });
            }
        }
        Ok(())
    }

    pub(super) fn parse_quote(&mut self, cur: &mut Vec<Node>, end: char) -> Result<(), String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated quoted string".to_owned()),
                Some(c) if c == end => {
                    if self.byte_before_last() != Some(b'\\') {
                        break;
                    }
                }
                Some(_) => {}
            }
        }
        let value = self.consume();
        match unquote_extend(&value) {
            Ok(s) => {
                cur.push(Node::Text(s));
                Ok(())
            }
            Err(e) => Err(format!("unquote string {value} error {e}")),
        }
    }

    pub(super) fn parse_field(&mut self, cur: &mut Vec<Node>) {
        self.consume();
        loop {
            let r = self.next();
            if r == Some('\\') {
                self.next();
            } else if is_terminator(r) {
                self.backup();
                break;
            }
        }
        let value = self.consume();
        if value == "*" {
            cur.push(Node::Wildcard);
        } else {
            cur.push(Node::Field(value.replace('\\', "")));
        }
    }
}

/// The groups of `^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$` (`None` for a group that did not take
/// part), or `None` when the text does not match.
pub(super) fn slice_groups(text: &str) -> Option<[Option<&str>; 3]> {
    fn number(s: &str, from: usize) -> usize {
        let b = s.as_bytes();
        let mut i = from;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    }
    let mut groups = [None; 3];
    let first = number(text, 0);
    groups[0] = text.get(..first);
    let mut at = first;
    for group in groups.iter_mut().skip(1) {
        if text.as_bytes().get(at) == Some(&b':') {
            let end = number(text, at + 1);
            *group = text.get(at..end);
            at = end;
        }
    }
    (at == text.len()).then_some(groups)
}

/// `^([^!<>=]+)([!<>=]+)(.+?)$` on a filter's text: left, operator, right.
pub(super) fn filter_parts(text: &str) -> Option<(&str, &str, &str)> {
    let is_op = |c: char| matches!(c, '!' | '<' | '>' | '=');
    let op_start = text.find(is_op)?;
    if op_start == 0 {
        return None;
    }
    let after = text.get(op_start..)?;
    let mut op_len = after.find(|c: char| !is_op(c)).unwrap_or(after.len());
    if op_len == after.len() {
        // The operator gives its last character back so that `(.+?)` matches.
        op_len -= 1;
        if op_len == 0 {
            return None;
        }
    }
    let right = after.get(op_len..)?;
    // `.` does not match a newline; the filter scanner never lets one through anyway.
    if right.is_empty() || right.contains('\n') {
        return None;
    }
    Some((text.get(..op_start)?, after.get(..op_len)?, right))
}

/// `isTerminator`.
pub(super) fn is_terminator(r: Option<char>) -> bool {
    match r {
        None => true,
        Some(c) => matches!(
            c,
            ' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}'
        ),
    }
}

/// `unicode.IsDigit`.
pub(super) fn is_digit(c: char) -> bool {
    if (c as u32) <= 0xff {
        c.is_ascii_digit()
    } else {
        c.is_numeric()
    }
}

/// `isAlphaNumeric`: `_`, `unicode.IsLetter` or `unicode.IsDigit`.
pub(super) fn is_alpha_numeric(c: char) -> bool {
    c == '_' || is_digit(c) || c.is_alphabetic()
}

/// Go's `%#U`: `U+002A '*'`, without the quoted rune when it is not printable.
pub(super) fn go_unicode_sharp(c: char) -> String {
    let code = format!("U+{:04X}", c as u32);
    if crd_studio_gostd::strconv::is_print(c) {
        format!("{code} '{c}'")
    } else {
        code
    }
}

/// `UnquoteExtend`: `strconv.Unquote` that also takes single-quoted strings.
pub(super) fn unquote_extend(s: &str) -> Result<String, &'static str> {
    const SYNTAX: &str = "invalid syntax";
    let b = s.as_bytes();
    if b.len() < 2 {
        return Err(SYNTAX);
    }
    let quote = b.first().copied().unwrap_or(0);
    if Some(&quote) != b.last() || (quote != b'"' && quote != b'\'') {
        return Err(SYNTAX);
    }
    let inner = b.get(1..b.len() - 1).unwrap_or(&[]);
    if !inner.contains(&b'\\') && !inner.contains(&quote) {
        return Ok(String::from_utf8_lossy(inner).into_owned());
    }
    let mut out: Vec<u8> = Vec::with_capacity(inner.len());
    let mut rest = inner;
    while !rest.is_empty() {
        let (bytes, tail) = unquote_char(rest, quote).ok_or(SYNTAX)?;
        out.extend_from_slice(&bytes);
        rest = tail;
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// `strconv.UnquoteChar`, returning the bytes `UnquoteExtend` appends.
pub(super) fn unquote_char(s: &[u8], quote: u8) -> Option<(Vec<u8>, &[u8])> {
    let c = *s.first()?;
    if c == quote {
        return None;
    }
    if c >= 0x80 {
        // One UTF-8 sequence (the input is a Rust string, so it is valid).
        let len = match c {
            0xf0.. => 4,
            0xe0.. => 3,
            _ => 2,
        };
        let len = len.min(s.len());
        return Some((s.get(..len)?.to_vec(), s.get(len..)?));
    }
    if c != b'\\' {
        return Some((vec![c], s.get(1..)?));
    }
    let esc = *s.get(1)?;
    let mut rest = s.get(2..)?;
    let simple = |b: u8| Some(vec![b]);
    let bytes = match esc {
        b'a' => simple(7),
        b'b' => simple(8),
        b'f' => simple(12),
        b'n' => simple(b'\n'),
        b'r' => simple(b'\r'),
        b't' => simple(b'\t'),
        b'v' => simple(11),
        b'x' | b'u' | b'U' => {
            let n = match esc {
                b'x' => 2,
                b'u' => 4,
                _ => 8,
            };
            let digits = rest.get(..n)?;
            let mut v: u32 = 0;
            for d in digits {
                v = (v << 4) | (*d as char).to_digit(16)?;
            }
            rest = rest.get(n..)?;
            if esc == b'x' {
                Some(vec![v as u8])
            } else {
                let ch = char::from_u32(v)?;
                Some(ch.to_string().into_bytes())
            }
        }
        b'0'..=b'7' => {
            let mut v = u32::from(esc - b'0');
            for d in rest.get(..2)? {
                if !(b'0'..=b'7').contains(d) {
                    return None;
                }
                v = (v << 3) | u32::from(d - b'0');
            }
            rest = rest.get(2..)?;
            if v > 255 {
                return None;
            }
            Some(vec![v as u8])
        }
        b'\\' => simple(b'\\'),
        b'\'' | b'"' if esc == quote => simple(esc),
        _ => None,
    }?;
    Some((bytes, rest))
}
