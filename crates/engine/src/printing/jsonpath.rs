//! client-go's `util/jsonpath`, the JSONPath dialect of `kubectl get -o jsonpath`, printer
//! columns (`tableconvertor`) and selectable fields: the template parser with its error texts
//! (`parser.go`) and the evaluator over decoded JSON (`jsonpath.go`).
//!
//! The dialect: text outside `{...}` is printed as is; inside, `.a.b` (fields, `\.` escapes a
//! dot), `['a']` (a key), `[0]`, `[-1]`, `[1:3]`, `[::2]`, `[*]`, unions `[0,2]`, `.*`, `..`
//! (recursive descent), filters `[?(@.x == "y")]` (`==`, `!=`, `<`, `>`, `<=`, `>=`, or a bare
//! path for "exists"), quoted text `"..."`, numbers, `true`/`false`, `@` and `$` (the current
//! value, skipped), and `{range ...}...{end}`.
//!
//! The evaluator follows Go's reflection on `map[string]interface{}` values: a value read
//! from a map or a list is an interface (a JSON `null` there is a nil interface, skipped by
//! most steps), text and number nodes give plain Go values, `.*` over a string yields its
//! bytes (`uint8`). Go visits map keys in random order; here they are visited in sorted
//! order, so `.*` and `..` results are deterministic.
//!
//! Deviations, none reachable through a printer column of a real CRD:
//! - `unicode.IsLetter`/`IsDigit` outside Latin-1 are approximated with Rust's
//!   `is_alphabetic`/`is_numeric`, and `strconv.IsPrint` (in the `%#U` of "unrecognized
//!   character" errors) knows the format and private-use characters but not unassigned ones.
//! - A quoted string whose `\x`/octal escapes produce invalid UTF-8 keeps U+FFFD in their
//!   place (Go keeps the raw bytes).
//! - Where Go would panic on a zero `reflect.Value` (an index step on the `nil` a `{range}`
//!   over nothing evaluates its body with), an error is returned.
//! - Go leaves a parsed `JSONPath` with a truncated node list after a `{range}` (later
//!   evaluations of the same object see fewer nodes); every evaluation here is a first one.
//! - Work is bounded: nesting deeper than [`MAX_DEPTH`] or more than [`MAX_VALUES`]
//!   intermediate values is an error (the server has no such limit).

use serde_json::{Map, Value as Json};

use crd_studio_gostd::strconv::format_float_g as go_float_v;

/// Deepest nesting of sub-parsers (union members, filter sides) and of `{range}`s.
pub const MAX_DEPTH: usize = 64;

/// Most intermediate values one evaluation may produce.
pub const MAX_VALUES: usize = 1_000_000;

/// One of the three `[start:end:step]` parameters of an array node (`ParamsEntry`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Param {
    /// The value (Go `int`).
    pub value: i64,
    /// Whether the value was given.
    pub known: bool,
    /// Whether `end` was derived from `start` (`[n]` is `[n:n+1]`).
    pub derived: bool,
}

/// A parse tree node (`jsonpath.Node`). Lists appear only at the top level; union members
/// and filter sides are node sequences.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// Plain text, or a quoted string.
    Text(String),
    /// `[start:end:step]`.
    Array([Param; 3]),
    /// One `{...}` action.
    List(Vec<Node>),
    /// `.name` (escapes removed).
    Field(String),
    /// `range`, `end`, or any other bare word (an error when evaluated).
    Identifier(String),
    /// `[?(left op right)]`; `op` is `exists` for `[?(left)]`.
    Filter {
        /// The left operand.
        left: Vec<Node>,
        /// The right operand (empty for `exists`).
        right: Vec<Node>,
        /// The operator text as written (`==`, `<`, ... or `exists`).
        operator: String,
    },
    /// An integer literal (Go `int`).
    Int(i64),
    /// A float literal.
    Float(f64),
    /// `.*`.
    Wildcard,
    /// `..`.
    Recursive,
    /// `[a,b,...]`.
    Union(Vec<Vec<Node>>),
    /// `true` or `false`.
    Bool(bool),
}

/// A parsed template (`jsonpath.JSONPath` after `Parse`).
#[derive(Clone, Debug, PartialEq)]
pub struct JsonPath {
    nodes: Vec<Node>,
    allow_missing_keys: bool,
}

impl JsonPath {
    /// `Parse(text)`: the template, or client-go's error text.
    pub fn parse(text: &str) -> Result<JsonPath, String> {
        Ok(JsonPath {
            nodes: parse(text, 0)?,
            allow_missing_keys: false,
        })
    }

    /// `AllowMissingKeys(allow)`: a missing field gives no result instead of an error.
    pub fn allow_missing_keys(mut self, allow: bool) -> JsonPath {
        self.allow_missing_keys = allow;
        self
    }

    /// The top-level nodes (`Root.Nodes`).
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// `FindResults(data)`: one result list per top-level node (per `{range}` iteration).
    pub fn find_results<'a>(&self, data: &'a Json) -> Result<Vec<Vec<Value<'a>>>, String> {
        let mut eval = Eval {
            allow_missing_keys: self.allow_missing_keys,
            begin_range: 0,
            in_range: 0,
            end_range: 0,
            last_end: None,
            produced: 0,
        };
        eval.find_results(&self.nodes, 0, Value::of(data), 0)
    }

    /// `Execute(data)`: every result list printed with [`print_results`], concatenated.
    pub fn execute(&self, data: &Json) -> Result<String, String> {
        let mut out = String::new();
        for results in self.find_results(data)? {
            out.push_str(&print_results(&results)?);
        }
        Ok(out)
    }
}

// ---------------------------------------------------------------------------------------
// Parser

/// Parses a template; `depth` counts nested sub-parsers.
fn parse(text: &str, depth: usize) -> Result<Vec<Node>, String> {
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
fn parse_action(text: &str, depth: usize) -> Result<Vec<Node>, String> {
    let nodes = parse(&format!("{{{text}}}"), depth + 1)?;
    match nodes.into_iter().next() {
        Some(Node::List(list)) => Ok(list),
        _ => Ok(Vec::new()),
    }
}

struct Parser<'a> {
    input: &'a str,
    pos: usize,
    start: usize,
    width: usize,
    depth: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        self.input.get(self.pos..).unwrap_or("")
    }

    /// `consumeText`: the text since the last call.
    fn consume(&mut self) -> String {
        let value = self
            .input
            .get(self.start..self.pos)
            .unwrap_or("")
            .to_owned();
        self.start = self.pos;
        value
    }

    /// `next`: the next rune, `None` at the end.
    fn next(&mut self) -> Option<char> {
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

    fn peek(&mut self) -> Option<char> {
        self.rest().chars().next()
    }

    fn backup(&mut self) {
        self.pos -= self.width;
    }

    /// The byte two before the current position (`p.input[p.pos-2]`).
    fn byte_before_last(&self) -> Option<u8> {
        self.pos
            .checked_sub(2)
            .and_then(|i| self.input.as_bytes().get(i).copied())
    }

    /// `parseText` and everything it chains to, as a loop over the top level.
    fn parse_all(&mut self) -> Result<Vec<Node>, String> {
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
    fn parse_inside_action(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
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

    fn parse_identifier(&mut self, cur: &mut Vec<Node>) {
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

    fn parse_recursive(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
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

    fn parse_number(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
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

    fn parse_array(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
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

    fn parse_filter(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
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

    fn parse_quote(&mut self, cur: &mut Vec<Node>, end: char) -> Result<(), String> {
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

    fn parse_field(&mut self, cur: &mut Vec<Node>) {
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
fn slice_groups(text: &str) -> Option<[Option<&str>; 3]> {
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
fn filter_parts(text: &str) -> Option<(&str, &str, &str)> {
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
fn is_terminator(r: Option<char>) -> bool {
    match r {
        None => true,
        Some(c) => matches!(
            c,
            ' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}'
        ),
    }
}

/// `unicode.IsDigit`.
fn is_digit(c: char) -> bool {
    if (c as u32) <= 0xff {
        c.is_ascii_digit()
    } else {
        c.is_numeric()
    }
}

/// `isAlphaNumeric`: `_`, `unicode.IsLetter` or `unicode.IsDigit`.
fn is_alpha_numeric(c: char) -> bool {
    c == '_' || is_digit(c) || c.is_alphabetic()
}

/// Go's `%#U`: `U+002A '*'`, without the quoted rune when it is not printable.
fn go_unicode_sharp(c: char) -> String {
    let code = format!("U+{:04X}", c as u32);
    if crd_studio_gostd::strconv::is_print(c) {
        format!("{code} '{c}'")
    } else {
        code
    }
}

/// `UnquoteExtend`: `strconv.Unquote` that also takes single-quoted strings.
fn unquote_extend(s: &str) -> Result<String, &'static str> {
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
fn unquote_char(s: &[u8], quote: u8) -> Option<(Vec<u8>, &[u8])> {
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

// ---------------------------------------------------------------------------------------
// Values

/// A `reflect.Value` as the evaluator sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// The zero `reflect.Value` (`reflect.ValueOf(nil)`).
    Invalid,
    /// A decoded JSON value. `iface` is true for a value read out of a map or a list (an
    /// `interface{}`; `null` there is a nil interface).
    Json {
        /// The value.
        value: &'a Json,
        /// Whether this is an interface value.
        iface: bool,
    },
    /// A string from a text node.
    Text(String),
    /// A Go `int` from a number node.
    Int(i64),
    /// A `float64` from a number node.
    Float(f64),
    /// A `bool` from a `true`/`false` node.
    Bool(bool),
    /// A `uint8`: a byte of a string, from `.*` or `..`.
    Byte(u8),
}

/// A value with interfaces looked through: what Go's `Kind()` switches on.
#[derive(Clone, Copy, Debug)]
enum Concrete<'v> {
    Invalid,
    NilInterface,
    Map(&'v Map<String, Json>),
    Slice(&'v [Json]),
    Str(&'v str),
    Int64(i64),
    Float64(f64),
    Bool(bool),
    Int(i64),
    Uint8(u8),
}

impl<'a> Value<'a> {
    /// `reflect.ValueOf(data)` for decoded JSON (not an interface; `null` is invalid).
    pub fn of(data: &'a Json) -> Value<'a> {
        match data {
            Json::Null => Value::Invalid,
            value => Value::Json {
                value,
                iface: false,
            },
        }
    }

    /// `reflect.ValueOf(v.Interface())`: the value outside its interface (a nil interface
    /// becomes the zero value).
    pub fn interface(&self) -> Value<'a> {
        match self {
            Value::Json { value, .. } => Value::of(value),
            other => other.clone(),
        }
    }

    /// The JSON value, when this is one.
    pub fn json(&self) -> Option<&'a Json> {
        match self {
            Value::Json { value, .. } => Some(value),
            _ => None,
        }
    }

    fn concrete(&self) -> Concrete<'_> {
        match self {
            Value::Invalid => Concrete::Invalid,
            Value::Json { value, iface } => match value {
                Json::Null if *iface => Concrete::NilInterface,
                Json::Null => Concrete::Invalid,
                Json::Bool(b) => Concrete::Bool(*b),
                Json::Number(n) => match n.as_i64() {
                    Some(i) => Concrete::Int64(i),
                    // Kubernetes decodes integers beyond int64 as float64.
                    None => Concrete::Float64(n.as_f64().unwrap_or(0.0)),
                },
                Json::String(s) => Concrete::Str(s),
                Json::Array(items) => Concrete::Slice(items),
                Json::Object(map) => Concrete::Map(map),
            },
            Value::Text(s) => Concrete::Str(s),
            Value::Int(i) => Concrete::Int(*i),
            Value::Float(f) => Concrete::Float64(*f),
            Value::Bool(b) => Concrete::Bool(*b),
            Value::Byte(b) => Concrete::Uint8(*b),
        }
    }
}

impl Concrete<'_> {
    /// `Type().String()`.
    fn type_name(&self) -> &'static str {
        match self {
            Concrete::Invalid => "<invalid reflect.Value>",
            Concrete::NilInterface => "interface {}",
            Concrete::Map(_) => "map[string]interface {}",
            Concrete::Slice(_) => "[]interface {}",
            Concrete::Str(_) => "string",
            Concrete::Int64(_) => "int64",
            Concrete::Float64(_) => "float64",
            Concrete::Bool(_) => "bool",
            Concrete::Int(_) => "int",
            Concrete::Uint8(_) => "uint8",
        }
    }
}

/// `fmt.Fprint` of a concrete value.
fn go_print(c: &Concrete) -> String {
    match c {
        Concrete::Invalid => "<invalid reflect.Value>".to_owned(),
        Concrete::NilInterface => "<nil>".to_owned(),
        Concrete::Map(m) => crd_studio_gostd::fmt::v(&Json::Object((*m).clone())),
        Concrete::Slice(items) => crd_studio_gostd::fmt::v(&Json::Array(items.to_vec())),
        Concrete::Str(s) => (*s).to_owned(),
        Concrete::Int64(i) | Concrete::Int(i) => i.to_string(),
        Concrete::Float64(f) => go_float_v(*f),
        Concrete::Bool(b) => b.to_string(),
        Concrete::Uint8(b) => b.to_string(),
    }
}

/// `PrintResults(results)`: maps and lists as compact JSON (keys sorted, HTML-escaped, as
/// `json.Marshal` writes them), other values as `fmt.Fprint` prints them (a nil interface
/// read from the data is `null`, the zero value `<no value>`), separated by spaces.
pub fn print_results(results: &[Value]) -> Result<String, String> {
    let mut out = String::new();
    for (i, r) in results.iter().enumerate() {
        let text = match r {
            Value::Json {
                value: value @ (Json::Object(_) | Json::Array(_)),
                ..
            } => crd_studio_gostd::json::marshal(&as_go_numbers(value)),
            Value::Invalid => "<no value>".to_owned(),
            Value::Json {
                value: Json::Null, ..
            } => "null".to_owned(),
            other => go_print(&other.concrete()),
        };
        out.push_str(&text);
        if i + 1 != results.len() {
            out.push(' ');
        }
    }
    Ok(out)
}

/// The value with integers beyond int64 as float64, as Kubernetes decodes them (so
/// `json.Marshal` writes `12345678901234567000`).
fn as_go_numbers(v: &Json) -> std::borrow::Cow<'_, Json> {
    fn has_big(v: &Json) -> bool {
        match v {
            Json::Number(n) => n.is_u64() && n.as_i64().is_none(),
            Json::Array(items) => items.iter().any(has_big),
            Json::Object(map) => map.values().any(has_big),
            _ => false,
        }
    }
    fn convert(v: &Json) -> Json {
        match v {
            Json::Number(n) if n.is_u64() && n.as_i64().is_none() => n
                .as_f64()
                .and_then(serde_json::Number::from_f64)
                .map_or(Json::Null, Json::Number),
            Json::Array(items) => Json::Array(items.iter().map(convert).collect()),
            Json::Object(map) => {
                Json::Object(map.iter().map(|(k, x)| (k.clone(), convert(x))).collect())
            }
            other => other.clone(),
        }
    }
    if has_big(v) {
        std::borrow::Cow::Owned(convert(v))
    } else {
        std::borrow::Cow::Borrowed(v)
    }
}

// ---------------------------------------------------------------------------------------
// Evaluator

/// An evaluation error with the values Go returns beside it (an `exists` filter keeps an
/// element whose left side failed with a non-empty partial result).
struct Fail<'a> {
    partial: Vec<Value<'a>>,
    message: String,
}

type Step<'a> = Result<Vec<Value<'a>>, Fail<'a>>;

fn fail<'a>(partial: Vec<Value<'a>>, message: impl Into<String>) -> Step<'a> {
    Err(Fail {
        partial,
        message: message.into(),
    })
}

struct Eval {
    allow_missing_keys: bool,
    begin_range: u32,
    in_range: u32,
    end_range: u32,
    /// The absolute index of the last `{end}` list met (`lastEndNode`).
    last_end: Option<usize>,
    produced: usize,
}

impl Eval {
    /// `FindResults` on the top-level nodes from `start` on (`Root.Nodes = nodes[i+1:]`).
    fn find_results<'a>(
        &mut self,
        root: &[Node],
        start: usize,
        data: Value<'a>,
        depth: usize,
    ) -> Result<Vec<Vec<Value<'a>>>, String> {
        if depth > MAX_DEPTH {
            return Err("jsonpath ranges nested too deeply".to_owned());
        }
        let cur = vec![data];
        let nodes = root.get(start..).unwrap_or_default();
        let mut full = Vec::new();
        let mut i = 0;
        while let Some(node) = nodes.get(i) {
            let results = self.walk(&cur, node).map_err(|f| f.message)?;
            if self.end_range > 0 && self.end_range <= self.in_range {
                self.end_range -= 1;
                self.last_end = Some(start + i);
                break;
            }
            if self.begin_range > 0 {
                self.begin_range -= 1;
                self.in_range += 1;
                if results.is_empty() {
                    self.find_results(root, start + i + 1, Value::Invalid, depth + 1)?;
                } else {
                    for value in &results {
                        let next =
                            self.find_results(root, start + i + 1, value.interface(), depth + 1)?;
                        full.extend(next);
                    }
                }
                self.in_range -= 1;
                if let Some(k) = (i + 1..nodes.len()).find(|k| Some(start + k) == self.last_end) {
                    i = k;
                }
                i += 1;
                continue;
            }
            full.push(results);
            i += 1;
        }
        Ok(full)
    }

    fn count<'a>(&mut self, values: Vec<Value<'a>>) -> Step<'a> {
        self.produced = self.produced.saturating_add(values.len());
        if self.produced > MAX_VALUES {
            return fail(Vec::new(), "jsonpath evaluation produced too many values");
        }
        Ok(values)
    }

    fn walk<'a>(&mut self, input: &[Value<'a>], node: &Node) -> Step<'a> {
        let out = match node {
            Node::List(nodes) => return self.eval_list(input, nodes),
            Node::Text(t) => Ok(vec![Value::Text(t.clone())]),
            Node::Field(name) => self.eval_field(input, name),
            Node::Array(params) => eval_array(input, params),
            Node::Filter {
                left,
                right,
                operator,
            } => self.eval_filter(input, left, right, operator),
            Node::Int(i) => Ok(vec![Value::Int(*i); input.len()]),
            Node::Float(f) => Ok(vec![Value::Float(*f); input.len()]),
            Node::Bool(b) => Ok(vec![Value::Bool(*b); input.len()]),
            Node::Wildcard => Ok(eval_wildcard(input)),
            Node::Recursive => Ok(eval_recursive(input)),
            Node::Union(lists) => self.eval_union(input, lists),
            Node::Identifier(name) => self.eval_identifier(input, name),
        }?;
        self.count(out)
    }

    fn eval_list<'a>(&mut self, input: &[Value<'a>], nodes: &[Node]) -> Step<'a> {
        let mut cur = input.to_vec();
        for node in nodes {
            cur = self.walk(&cur, node)?;
        }
        Ok(cur)
    }

    fn eval_identifier<'a>(&mut self, input: &[Value<'a>], name: &str) -> Step<'a> {
        match name {
            "range" => {
                self.begin_range += 1;
                Ok(input.to_vec())
            }
            "end" => {
                if self.in_range > 0 {
                    self.end_range += 1;
                    Ok(Vec::new())
                } else {
                    fail(Vec::new(), "not in range, nothing to end")
                }
            }
            _ => fail(input.to_vec(), format!("unrecognized identifier {name}")),
        }
    }

    fn eval_field<'a>(&mut self, input: &[Value<'a>], name: &str) -> Step<'a> {
        let mut results = Vec::new();
        if input.is_empty() {
            return Ok(results);
        }
        for value in input {
            if let Value::Json {
                value: Json::Object(map),
                ..
            } = value
            {
                if let Some(v) = map.get(name) {
                    results.push(Value::Json {
                        value: v,
                        iface: true,
                    });
                }
            }
        }
        if results.is_empty() && !self.allow_missing_keys {
            return fail(results, format!("{name} is not found"));
        }
        Ok(results)
    }

    fn eval_union<'a>(&mut self, input: &[Value<'a>], lists: &[Vec<Node>]) -> Step<'a> {
        let mut result = Vec::new();
        for list in lists {
            match self.eval_list(input, list) {
                Ok(values) => result.extend(values),
                Err(f) => return fail(input.to_vec(), f.message),
            }
        }
        Ok(result)
    }

    fn eval_filter<'a>(
        &mut self,
        input: &[Value<'a>],
        left: &[Node],
        right: &[Node],
        operator: &str,
    ) -> Step<'a> {
        let mut results = Vec::new();
        for value in input {
            let items: &'a [Json] = match value {
                Value::Json {
                    value: Json::Array(items),
                    ..
                } => items,
                other => {
                    return fail(
                        input.to_vec(),
                        format!(
                            "{} is not array or slice and cannot be filtered",
                            go_print(&other.concrete())
                        ),
                    )
                }
            };
            for item in items {
                let temp = [Value::Json {
                    value: item,
                    iface: true,
                }];
                let lefts = self.eval_list(&temp, left);
                if operator == "exists" {
                    let found = match &lefts {
                        Ok(v) => !v.is_empty(),
                        Err(f) => !f.partial.is_empty(),
                    };
                    if found {
                        results.push(Value::Json {
                            value: item,
                            iface: true,
                        });
                    }
                    continue;
                }
                let lefts = match lefts {
                    Ok(v) => v,
                    Err(f) => return fail(input.to_vec(), f.message),
                };
                let l = match lefts.as_slice() {
                    [] => continue,
                    [one] => one.interface(),
                    _ => return fail(input.to_vec(), "can only compare one element at a time"),
                };
                let rights = match self.eval_list(&temp, right) {
                    Ok(v) => v,
                    Err(f) => return fail(input.to_vec(), f.message),
                };
                let r = match rights.as_slice() {
                    [] => continue,
                    [one] => one.interface(),
                    _ => return fail(input.to_vec(), "can only compare one element at a time"),
                };
                let (lc, rc) = (l.concrete(), r.concrete());
                let pass = match operator {
                    "<" => less(&lc, &rc),
                    ">" => less_equal(&lc, &rc).map(|b| !b),
                    "==" => equal(&lc, &rc),
                    "!=" => equal(&lc, &rc).map(|b| !b),
                    "<=" => less_equal(&lc, &rc),
                    ">=" => less(&lc, &rc).map(|b| !b),
                    _ => return fail(results, format!("unrecognized filter operator {operator}")),
                };
                match pass {
                    Ok(true) => results.push(Value::Json {
                        value: item,
                        iface: true,
                    }),
                    Ok(false) => {}
                    Err(e) => return fail(results, e),
                }
            }
        }
        Ok(results)
    }
}

fn eval_array<'a>(input: &[Value<'a>], node: &[Param; 3]) -> Step<'a> {
    let mut result = Vec::new();
    for value in input {
        let items: &'a [Json] = match value {
            Value::Json {
                value: Json::Array(items),
                ..
            } => items,
            Value::Json {
                value: Json::Null,
                iface: true,
            } => continue,
            other => {
                return fail(
                    input.to_vec(),
                    format!("{} is not array or slice", other.concrete().type_name()),
                )
            }
        };
        let [mut p0, mut p1, p2] = *node;
        let len = items.len() as i64;
        if !p0.known {
            p0.value = 0;
        }
        if p0.value < 0 {
            p0.value += len;
        }
        if !p1.known {
            p1.value = len;
        }
        if p1.value < 0 || (p1.value == 0 && p1.derived) {
            p1.value += len;
        }
        if p1.value == p0.value {
            return Ok(result);
        }
        if p0.value >= len || p0.value < 0 {
            return fail(
                input.to_vec(),
                format!(
                    "array index out of bounds: index {}, length {len}",
                    p0.value
                ),
            );
        }
        if p1.value > len || p1.value < 0 {
            return fail(
                input.to_vec(),
                format!(
                    "array index out of bounds: index {}, length {len}",
                    p1.value - 1
                ),
            );
        }
        if p0.value > p1.value {
            return fail(
                input.to_vec(),
                format!(
                    "starting index {} is greater than ending index {}",
                    p0.value, p1.value
                ),
            );
        }
        let slice = items
            .get(p0.value as usize..p1.value as usize)
            .unwrap_or_default();
        let step = if p2.known {
            if p2.value <= 0 {
                return fail(input.to_vec(), "step must be > 0");
            }
            p2.value as usize
        } else {
            1
        };
        result.extend(slice.iter().step_by(step).map(|v| Value::Json {
            value: v,
            iface: true,
        }));
    }
    Ok(result)
}

/// The children `.*` and `..` visit: map values (keys sorted), list items, string bytes.
fn children<'a>(value: &Value<'a>) -> Vec<Value<'a>> {
    match value {
        Value::Json {
            value: Json::Object(map),
            ..
        } => map
            .values()
            .map(|v| Value::Json {
                value: v,
                iface: true,
            })
            .collect(),
        Value::Json {
            value: Json::Array(items),
            ..
        } => items
            .iter()
            .map(|v| Value::Json {
                value: v,
                iface: true,
            })
            .collect(),
        Value::Json {
            value: Json::String(s),
            ..
        } => s.bytes().map(Value::Byte).collect(),
        Value::Text(s) => s.bytes().map(Value::Byte).collect(),
        _ => Vec::new(),
    }
}

fn eval_wildcard<'a>(input: &[Value<'a>]) -> Vec<Value<'a>> {
    input.iter().flat_map(children).collect()
}

/// `..`: every value that has children, before its descendants (pre-order).
fn eval_recursive<'a>(input: &[Value<'a>]) -> Vec<Value<'a>> {
    let mut result = Vec::new();
    let mut stack: Vec<Value<'a>> = input.iter().rev().cloned().collect();
    while let Some(value) = stack.pop() {
        let kids = children(&value);
        if kids.is_empty() {
            continue;
        }
        result.push(value.interface());
        stack.extend(kids.into_iter().rev());
    }
    result
}

// text/template's comparison functions (`eq`, `lt`, ...) on basic kinds.

#[derive(Clone, Copy, PartialEq, Eq)]
enum BasicKind {
    Bool,
    Int,
    Float,
    Str,
    Uint,
}

const BAD_TYPE: &str = "invalid type for comparison";
const BAD_COMPARISON: &str = "incompatible types for comparison";

fn basic_kind(c: &Concrete) -> Result<BasicKind, String> {
    match c {
        Concrete::Bool(_) => Ok(BasicKind::Bool),
        Concrete::Int64(_) | Concrete::Int(_) => Ok(BasicKind::Int),
        Concrete::Uint8(_) => Ok(BasicKind::Uint),
        Concrete::Float64(_) => Ok(BasicKind::Float),
        Concrete::Str(_) => Ok(BasicKind::Str),
        _ => Err(BAD_TYPE.to_owned()),
    }
}

fn as_int(c: &Concrete) -> i64 {
    match c {
        Concrete::Int64(i) | Concrete::Int(i) => *i,
        _ => 0,
    }
}

fn as_uint(c: &Concrete) -> u64 {
    match c {
        Concrete::Uint8(b) => u64::from(*b),
        _ => 0,
    }
}

fn equal(a: &Concrete, b: &Concrete) -> Result<bool, String> {
    let (k1, k2) = (basic_kind(a)?, basic_kind(b)?);
    if k1 != k2 {
        return match (k1, k2) {
            (BasicKind::Int, BasicKind::Uint) => {
                Ok(as_int(a) >= 0 && as_int(a) as u64 == as_uint(b))
            }
            (BasicKind::Uint, BasicKind::Int) => {
                Ok(as_int(b) >= 0 && as_uint(a) == as_int(b) as u64)
            }
            _ => Err(BAD_COMPARISON.to_owned()),
        };
    }
    Ok(match (a, b) {
        (Concrete::Bool(x), Concrete::Bool(y)) => x == y,
        (Concrete::Float64(x), Concrete::Float64(y)) => x == y,
        (Concrete::Str(x), Concrete::Str(y)) => x == y,
        (Concrete::Uint8(x), Concrete::Uint8(y)) => x == y,
        _ => as_int(a) == as_int(b),
    })
}

fn less(a: &Concrete, b: &Concrete) -> Result<bool, String> {
    let (k1, k2) = (basic_kind(a)?, basic_kind(b)?);
    if k1 != k2 {
        return match (k1, k2) {
            (BasicKind::Int, BasicKind::Uint) => {
                Ok(as_int(a) < 0 || (as_int(a) as u64) < as_uint(b))
            }
            (BasicKind::Uint, BasicKind::Int) => {
                Ok(as_int(b) >= 0 && as_uint(a) < as_int(b) as u64)
            }
            _ => Err(BAD_COMPARISON.to_owned()),
        };
    }
    Ok(match (a, b) {
        (Concrete::Bool(_), _) => return Err(BAD_TYPE.to_owned()),
        (Concrete::Float64(x), Concrete::Float64(y)) => x < y,
        (Concrete::Str(x), Concrete::Str(y)) => x < y,
        (Concrete::Uint8(x), Concrete::Uint8(y)) => x < y,
        _ => as_int(a) < as_int(b),
    })
}

fn less_equal(a: &Concrete, b: &Concrete) -> Result<bool, String> {
    let lt = less(a, b)?;
    if lt {
        return Ok(true);
    }
    equal(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(template: &str, data: &Json, allow_missing: bool) -> Result<String, String> {
        JsonPath::parse(template)?
            .allow_missing_keys(allow_missing)
            .execute(data)
    }

    fn p(value: i64, known: bool, derived: bool) -> Param {
        Param {
            value,
            known,
            derived,
        }
    }

    fn field(s: &str) -> Node {
        Node::Field(s.to_owned())
    }

    /// parser_test.go TestParser (the tree, flattened the way the test collects it).
    #[test]
    fn parser_trees() {
        let text = |s: &str| Node::Text(s.to_owned());
        let cases: Vec<(&str, Vec<Node>)> = vec![
            ("hello jsonpath", vec![text("hello jsonpath")]),
            (
                "hello {.jsonpath}",
                vec![text("hello "), Node::List(vec![field("jsonpath")])],
            ),
            (
                "hello {['jsonpath']}",
                vec![text("hello "), Node::List(vec![field("jsonpath")])],
            ),
            (r#"{"{"}"#, vec![Node::List(vec![text("{")])]),
            (
                "{[1:3]}",
                vec![Node::List(vec![Node::Array([
                    p(1, true, false),
                    p(3, true, false),
                    p(0, false, false),
                ])])],
            ),
            (
                "{.book[*].author}",
                vec![Node::List(vec![
                    field("book"),
                    Node::Array([p(0, false, false); 3]),
                    field("author"),
                ])],
            ),
            (
                "{.bicycle.*}",
                vec![Node::List(vec![field("bicycle"), Node::Wildcard])],
            ),
            (
                "{[?(@.price<3)]}",
                vec![Node::List(vec![Node::Filter {
                    left: vec![field("price")],
                    right: vec![Node::Int(3)],
                    operator: "<".into(),
                }])],
            ),
            ("{..}", vec![Node::List(vec![Node::Recursive])]),
            (
                "{..price}",
                vec![Node::List(vec![Node::Recursive, field("price")])],
            ),
            (
                "{['book.price']}",
                vec![Node::List(vec![field("book"), field("price")])],
            ),
            (
                "{['bicycle.price', 3, 'book.price']}",
                vec![Node::List(vec![Node::Union(vec![
                    vec![field("bicycle"), field("price")],
                    vec![Node::Array([
                        p(3, true, false),
                        p(4, true, true),
                        p(0, false, false),
                    ])],
                    vec![field("book"), field("price")],
                ])])],
            ),
            (
                "{range .items}{.name},{end}",
                vec![
                    Node::List(vec![Node::Identifier("range".into()), field("items")]),
                    Node::List(vec![field("name")]),
                    text(","),
                    Node::List(vec![Node::Identifier("end".into())]),
                ],
            ),
            (
                r#"{[?(@.status.nodeInfo.osImage == "()")]}"#,
                vec![Node::List(vec![Node::Filter {
                    left: vec![field("status"), field("nodeInfo"), field("osImage")],
                    right: vec![text("()")],
                    operator: "==".into(),
                }])],
            ),
            (
                r#"{[?(@.status.nodeInfo.osImage == "(\"\")")]}"#,
                vec![Node::List(vec![Node::Filter {
                    left: vec![field("status"), field("nodeInfo"), field("osImage")],
                    right: vec![text("(\"\")")],
                    operator: "==".into(),
                }])],
            ),
            (
                r#"{[?(@.test == "())(")]}"#,
                vec![Node::List(vec![Node::Filter {
                    left: vec![field("test")],
                    right: vec![text("())(")],
                    operator: "==".into(),
                }])],
            ),
            (
                r#"{[?(@.a == "{[()]}")]}"#,
                vec![Node::List(vec![Node::Filter {
                    left: vec![field("a")],
                    right: vec![text("{[()]}")],
                    operator: "==".into(),
                }])],
            ),
            (
                r#"{[?(@.a == '""')]}"#,
                vec![Node::List(vec![Node::Filter {
                    left: vec![field("a")],
                    right: vec![text("\"\"")],
                    operator: "==".into(),
                }])],
            ),
            (
                r"{[?(@.a == '\\\'')]}",
                vec![Node::List(vec![Node::Filter {
                    left: vec![field("a")],
                    right: vec![text("\\'")],
                    operator: "==".into(),
                }])],
            ),
            (
                "{[-5:]}",
                vec![Node::List(vec![Node::Array([
                    p(-5, true, false),
                    p(0, false, false),
                    p(0, false, false),
                ])])],
            ),
            (
                "{[-1]}",
                vec![Node::List(vec![Node::Array([
                    p(-1, true, false),
                    p(0, true, true),
                    p(0, false, false),
                ])])],
            ),
            (
                "{[1:-1]}",
                vec![Node::List(vec![Node::Array([
                    p(1, true, false),
                    p(-1, true, false),
                    p(0, false, false),
                ])])],
            ),
            (
                r"{.a\.b.c}",
                vec![Node::List(vec![field("a.b"), field("c")])],
            ),
            (
                "{.a true 1.5 -2}",
                vec![Node::List(vec![
                    field("a"),
                    Node::Bool(true),
                    Node::Float(1.5),
                    Node::Int(-2),
                ])],
            ),
            ("{.a}", vec![Node::List(vec![field("a")])]),
            ("{.}", vec![Node::List(vec![field("")])]),
            (
                "{$.a[?(@.b)]}",
                vec![Node::List(vec![
                    field("a"),
                    Node::Filter {
                        left: vec![field("b")],
                        right: vec![],
                        operator: "exists".into(),
                    },
                ])],
            ),
        ];
        for (template, want) in cases {
            let got = JsonPath::parse(template).unwrap_or_else(|e| panic!("{template}: {e}"));
            assert_eq!(got.nodes(), want.as_slice(), "{template}");
        }
    }

    /// parser_test.go TestFailParser, and more of the parser's errors.
    #[test]
    fn parser_errors() {
        let cases = [
            ("{.hello", "unclosed action"),
            ("{*}", "unrecognized character in action: U+002A '*'"),
            ("{+12.3.0}", "cannot parse number +12.3.0"),
            ("{[1}", "unterminated array"),
            ("{[?(.price]}", "unterminated filter"),
            ("{........}", "invalid multiple recursive descent"),
            ("{.a\n}", "unclosed action"),
            ("{[a]}", "invalid array index a"),
            ("{[1:-]}", "array index - is not a number"),
            (
                "{[99999999999999999999]}",
                "array index 99999999999999999999 is not a number",
            ),
            ("{[?(@.a==1)x}", "unclosed array expect ]"),
            (r#"{"abc}"#, "unterminated quoted string"),
            (
                r#"{"a\qb"}"#,
                r#"unquote string "a\qb" error invalid syntax"#,
            ),
            ("{\u{7}}", "unrecognized character in action: U+0007"),
            ("{#}", "unrecognized character in action: U+0023 '#'"),
            ("{{.a}}", "unrecognized character in action: U+007B '{'"),
            (
                "{[?(@.a==)]}",
                "unrecognized character in action: U+003D '='",
            ),
            ("{-}", "cannot parse number -"),
            ("{[a,b]}", "invalid array index a"),
        ];
        for (template, want) in cases {
            assert_eq!(
                JsonPath::parse(template).map(|_| ()),
                Err(want.to_owned()),
                "{template}"
            );
        }
    }

    fn types() -> Json {
        json!({
            "bools": [true, false, true, false],
            "integers": [1, 2, 3, 4],
            "floats": [1.0, 2.2, 3.3, 4.0],
            "strings": ["one", "two", "three", "four"],
            "interfaces": [true, "one", 1, 1.1],
            "maps": [
                {"name": "one", "value": 1},
                {"name": "two", "value": 2.02},
                {"name": "three", "value": 3.03},
                {"name": "four", "value": 4.04},
            ],
        })
    }

    /// jsonpath_test.go TestTypesInput (the JSON-shaped part).
    #[test]
    fn slices_of_each_type() {
        let data = types();
        let cases = [
            ("{ .bools }", "[true,false,true,false]"),
            ("{ .bools[0] }", "true"),
            ("{ .bools[-1] }", "false"),
            ("{ .bools[0:2] }", "true false"),
            ("{ .bools[:2] }", "true false"),
            ("{ .bools[:4:2] }", "true true"),
            ("{ .integers }", "[1,2,3,4]"),
            ("{ .integers[-2] }", "3"),
            ("{ .integers[:4:2] }", "1 3"),
            ("{ .floats }", "[1,2.2,3.3,4]"),
            ("{ .floats[0] }", "1"),
            ("{ .floats[-2] }", "3.3"),
            ("{ .floats[:4:2] }", "1 3.3"),
            ("{ .strings }", r#"["one","two","three","four"]"#),
            ("{ .strings[:4:2] }", "one three"),
            ("{ .interfaces }", r#"[true,"one",1,1.1]"#),
            ("{ .interfaces[0:2] }", "true one"),
            ("{ .interfaces[:4:2] }", "true 1"),
            (
                "{ .maps[::2] }",
                r#"{"name":"one","value":1} {"name":"three","value":3.03}"#,
            ),
            (
                "{ .maps[1::2] }",
                r#"{"name":"two","value":2.02} {"name":"four","value":4.04}"#,
            ),
        ];
        for (template, want) in cases {
            assert_eq!(
                run(template, &data, false).as_deref(),
                Ok(want),
                "{template}"
            );
        }
    }

    fn nodes() -> Json {
        json!({
          "kind": "List",
          "items": [
            {"kind": "None",
             "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
             "status": {"capacity": {"cpu": "4"}, "ready": true,
                        "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}]}},
            {"kind": "None",
             "metadata": {"name": "127.0.0.2", "labels": {"kubernetes.io/hostname": "127.0.0.2"}},
             "status": {"capacity": {"cpu": "8"}, "ready": false,
                        "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.2"},
                                      {"type": "another", "address": "127.0.0.3"}]}}
          ],
          "users": [
            {"name": "myself", "user": {}},
            {"name": "e2e", "user": {"username": "admin", "password": "secret"}}
          ]
        })
    }

    /// jsonpath_test.go TestKubernetes, TestJSONInput and the store tests that apply to JSON.
    #[test]
    fn kubernetes_templates() {
        let data = nodes();
        let cases = [
            (
                "{range .items[*]}{.metadata.name}, {end}{.kind}",
                "127.0.0.1, 127.0.0.2, List",
            ),
            (
                r#"{range .items[*]}{.metadata.name}{"\t"}{end}"#,
                "127.0.0.1\t127.0.0.2\t",
            ),
            (
                "{.items[*].status.addresses[*].address}",
                "127.0.0.1 127.0.0.2 127.0.0.3",
            ),
            (
                "{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}",
                "127.0.0.1, 127.0.0.2, 127.0.0.3, ",
            ),
            ("{.items[*].metadata.name}", "127.0.0.1 127.0.0.2"),
            (
                "{.items[*]['metadata.name', 'status.capacity']}",
                r#"127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}"#,
            ),
            (
                "{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}",
                r#"[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] "#,
            ),
            (r#"{.users[?(@.name=="e2e")].user.password}"#, "secret"),
            (
                r"{.items[0].metadata.labels.kubernetes\.io/hostname}",
                "127.0.0.1",
            ),
            (
                r#"{.items[?(@.metadata.labels.kubernetes\.io/hostname=="127.0.0.1")].kind}"#,
                "None",
            ),
            ("{.items[?(@..ready==true)].metadata.name}", "127.0.0.1"),
            // Map keys are visited in sorted order.
            ("{..name}", "127.0.0.1 127.0.0.2 myself e2e"),
            ("hello {.kind}", "hello List"),
            (r#"{"{"}"#, "{"),
        ];
        for (template, want) in cases {
            assert_eq!(
                run(template, &data, false).as_deref(),
                Ok(want),
                "{template}"
            );
        }
        let points = json!([
            {"id": "i1", "x": 4, "y": -5},
            {"id": "i2", "x": -2, "y": -5, "z": 1},
            {"id": "i3", "x": 8, "y": 3},
            {"id": "i4", "x": -6, "y": -1},
            {"id": "i5", "x": 0, "y": 2, "z": 1},
            {"id": "i6", "x": 1, "y": 4},
            {"id": "i7", "x": null, "y": 4}
        ]);
        assert_eq!(run("{[?(@.z)].id}", &points, false).as_deref(), Ok("i2 i5"));
        assert_eq!(run("{[0]['id']}", &points, false).as_deref(), Ok("i1"));
        assert_eq!(run("{[-1]['x']}", &points, false).as_deref(), Ok("null"));
        assert_eq!(
            run("{..}", &json!([1, 2, 3]), false).as_deref(),
            Ok("[1,2,3]")
        );
        assert_eq!(
            run("{[?(@<5)]}", &json!([2, 6, 3, 7]), false).as_deref(),
            Ok("2 3")
        );
        assert_eq!(
            run("{[1,3,4]}", &json!([0, 1, 2, 3, 4]), false).as_deref(),
            Ok("1 3 4")
        );
    }

    /// Evaluation errors (jsonpath_test.go failStoreTests on JSON data, and more).
    #[test]
    fn evaluation_errors() {
        let data = json!({"Labels": {"a": 1}, "Book": [{"Price": 8}], "s": "x", "f": 1.5});
        let cases = [
            ("{hello}", "unrecognized identifier hello"),
            ("{.hello}", "hello is not found"),
            (
                "{.Labels[0]}",
                "map[string]interface {} is not array or slice",
            ),
            ("{.s[0]}", "string is not array or slice"),
            ("{.Book[?(@.Price<>10)]}", "unrecognized filter operator <>"),
            (
                "{range .Labels.*}{@}{end}{end}",
                "not in range, nothing to end",
            ),
            (
                "{.Book[?(@.Price==1.5)]}",
                "incompatible types for comparison",
            ),
            (
                "{.Book[?(@.Price==true)]}",
                "incompatible types for comparison",
            ),
            ("{.Book[?(@==1)]}", "invalid type for comparison"),
            (
                "{.Labels[?(@.a)]}",
                "map[a:1] is not array or slice and cannot be filtered",
            ),
            ("{.Book[5]}", "array index out of bounds: index 5, length 1"),
            (
                "{.Book[0:3]}",
                "array index out of bounds: index 2, length 1",
            ),
            ("{.Book[0:1:0]}", "step must be > 0"),
        ];
        for (template, want) in cases {
            assert_eq!(
                run(template, &data, false),
                Err(want.to_owned()),
                "{template}"
            );
        }
    }

    /// TestNegativeIndex, TestStep, TestEmptyRange, TestNestedRanges, the missing-key filter.
    #[test]
    fn indexes_ranges_and_missing_keys() {
        let names: Vec<Json> = (0..6)
            .map(|i| json!({"image": "busybox", "name": format!("fake{i}")}))
            .collect();
        let four = json!({"spec": {"containers": names.get(..4).unwrap()}});
        let six = json!({"spec": {"containers": names}});
        let ok = [
            (&four, "{.spec.containers[0].name}", "fake0"),
            (&four, "{.spec.containers[0:0].name}", ""),
            (&four, "{.spec.containers[0:-1].name}", "fake0 fake1 fake2"),
            (&four, "{.spec.containers[-1].name}", "fake3"),
            (&four, "{.spec.containers[-2:].name}", "fake2 fake3"),
            (&four, "{.spec.containers[-4].name}", "fake0"),
            (&four, "{.spec.containers[5:5].name}", ""),
            (&four, "{.spec.containers[-5:-5].name}", ""),
            (
                &six,
                "{.spec.containers[0:6:].name}",
                "fake0 fake1 fake2 fake3 fake4 fake5",
            ),
            (&six, "{.spec.containers[1:4:2].name}", "fake1 fake3"),
            (&six, "{.spec.containers[0:6:5].name}", "fake0 fake5"),
            (&six, "{.spec.containers[0:6:6].name}", "fake0"),
        ];
        for (data, template, want) in ok {
            assert_eq!(
                run(template, data, false).as_deref(),
                Ok(want),
                "{template}"
            );
        }
        for template in [
            "{.spec.containers[-1:0].name}",
            "{.spec.containers[-5].name}",
            "{.spec.containers[3:1].name}",
            "{.spec.containers[-1:-2].name}",
        ] {
            assert!(run(template, &four, false).is_err(), "{template}");
        }
        let empty = json!({"items": []});
        assert_eq!(
            run("{range .items[*]}{.metadata.name}{end}", &empty, true).as_deref(),
            Ok("")
        );
        assert_eq!(
            run(
                r#"{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}"#,
                &empty,
                true
            )
            .as_deref(),
            Ok("")
        );
        let pods = json!({"items": [
            {"metadata": {"name": "pod1"}, "spec": {"containers": [
                {"name": "foo", "another": [{"name": "value1"}, {"name": "value2"}]},
                {"name": "bar", "another": [{"name": "value1"}, {"name": "value2"}]}]}},
            {"metadata": {"name": "pod2"}, "spec": {"containers": [
                {"name": "baz", "another": [{"name": "value1"}, {"name": "value2"}]}]}}
        ]});
        assert_eq!(
            run(
                r#"{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}"#,
                &pods,
                false
            )
            .as_deref(),
            Ok("pod1:foo,bar,+pod2:baz,+")
        );
        assert_eq!(
            run(
                r##"{range .items[*]}{.metadata.name}{"~"}{range @.spec.containers[*]}{.name}{":"}{range @.another[*]}{.name}{","}{end}{"+"}{end}{"#"}{end}"##,
                &pods,
                false
            )
            .as_deref(),
            Ok("pod1~foo:value1,value2,+bar:value1,value2,+#pod2~baz:value1,value2,+#")
        );
        let annotated = json!({"items": [
            {"metadata": {"name": "pod1", "annotations": {"color": "blue"}}},
            {"metadata": {"name": "pod2"}},
            {"metadata": {"name": "pod3", "annotations": {"color": "green"}}},
            {"metadata": {"name": "pod4", "annotations": {"color": "blue"}}}
        ]});
        let t = r#"{.items[?(@.metadata.annotations.color=="blue")].metadata.name}"#;
        assert_eq!(run(t, &annotated, true).as_deref(), Ok("pod1 pod4"));
        assert!(run(t, &annotated, false).is_err());
        let running = json!({"items": [
            {"metadata": {"name": "pod1"}, "status": {"phase": "Running"}},
            {"metadata": {"name": "pod2"}, "status": {"phase": "Running"}},
            {"resourceVersion": ""}
        ]});
        assert_eq!(
            run(
                r#"{range .items[?(.status.phase=="Running")]}{.metadata.name}{" is Running\n"}{end}"#,
                &running,
                true
            )
            .as_deref(),
            Ok("pod1 is Running\npod2 is Running\n")
        );
    }

    /// Go reflection details the table convertor depends on.
    #[test]
    fn go_value_details() {
        let data = json!({"s": "ab", "n": null, "m": {"b": 2, "a": [1, "x"]}, "big": 1e21});
        // A string's bytes under `.*`.
        assert_eq!(run("{.s.*}", &data, false).as_deref(), Ok("97 98"));
        // Maps and lists as json.Marshal writes them; numbers with %v.
        assert_eq!(
            run("{.m}", &data, false).as_deref(),
            Ok(r#"{"a":[1,"x"],"b":2}"#)
        );
        assert_eq!(run("{.big}", &data, false).as_deref(), Ok("1e+21"));
        // A null read from the data prints `null`; the same value outside its interface is
        // the zero value, `<no value>`.
        assert_eq!(run("{.n}", &data, false).as_deref(), Ok("null"));
        let results = JsonPath::parse("{.n}")
            .unwrap()
            .find_results(&data)
            .unwrap();
        let first = results[0][0].interface();
        assert_eq!(print_results(&[first]).as_deref(), Ok("<no value>"));
        // Number and bool nodes map every input to themselves.
        assert_eq!(run("{.s 5}", &data, false).as_deref(), Ok("5"));
        // `..` lists the values with children only (a non-empty string has bytes).
        assert_eq!(
            run("{.m..}", &data, false).as_deref(),
            Ok(r#"{"a":[1,"x"],"b":2} [1,"x"] x"#)
        );
    }

    /// Work is bounded.
    #[test]
    fn bounded_work() {
        let data = json!({"a": [[1, 2], [3, 4]]});
        let union = format!("{{.a{}}}", "[0,0,0,0]".repeat(12));
        assert!(run(&union, &data, true).is_err());
        let deep = format!("{}{{.a}}", "{range .a[*]}".repeat(100));
        assert!(run(&deep, &data, true).is_err());
    }
}
