//! The lexer: cel-go's ANTLR lexer rules (`CEL.g4`), with ANTLR's semantics (longest match,
//! ties to the earlier rule, and on failure a `token recognition error` covering the text up to
//! and including the first character no rule can take, which is then skipped).

/// Token types, numbered as ANTLR numbers them (so sets print in ANTLR's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum Tok {
    Eof = 0,
    Equals = 1,
    NotEquals = 2,
    In = 3,
    Less = 4,
    LessEquals = 5,
    GreaterEquals = 6,
    Greater = 7,
    LogicalAnd = 8,
    LogicalOr = 9,
    LBracket = 10,
    RBracket = 11,
    LBrace = 12,
    RBrace = 13,
    LParen = 14,
    RParen = 15,
    Dot = 16,
    Comma = 17,
    Minus = 18,
    Exclam = 19,
    Question = 20,
    Colon = 21,
    Plus = 22,
    Star = 23,
    Slash = 24,
    Percent = 25,
    True = 26,
    False = 27,
    Null = 28,
    Whitespace = 29,
    Comment = 30,
    NumFloat = 31,
    NumInt = 32,
    NumUint = 33,
    String = 34,
    Bytes = 35,
    Identifier = 36,
    EscIdentifier = 37,
}

impl Tok {
    /// The name ANTLR shows in "expecting" sets: the literal (`'=='`) or the symbolic name.
    pub fn display_name(self) -> &'static str {
        match self {
            Tok::Eof => "<EOF>",
            Tok::Equals => "'=='",
            Tok::NotEquals => "'!='",
            Tok::In => "'in'",
            Tok::Less => "'<'",
            Tok::LessEquals => "'<='",
            Tok::GreaterEquals => "'>='",
            Tok::Greater => "'>'",
            Tok::LogicalAnd => "'&&'",
            Tok::LogicalOr => "'||'",
            Tok::LBracket => "'['",
            Tok::RBracket => "']'",
            Tok::LBrace => "'{'",
            Tok::RBrace => "'}'",
            Tok::LParen => "'('",
            Tok::RParen => "')'",
            Tok::Dot => "'.'",
            Tok::Comma => "','",
            Tok::Minus => "'-'",
            Tok::Exclam => "'!'",
            Tok::Question => "'?'",
            Tok::Colon => "':'",
            Tok::Plus => "'+'",
            Tok::Star => "'*'",
            Tok::Slash => "'/'",
            Tok::Percent => "'%'",
            Tok::True => "'true'",
            Tok::False => "'false'",
            Tok::Null => "'null'",
            Tok::Whitespace => "WHITESPACE",
            Tok::Comment => "COMMENT",
            Tok::NumFloat => "NUM_FLOAT",
            Tok::NumInt => "NUM_INT",
            Tok::NumUint => "NUM_UINT",
            Tok::String => "STRING",
            Tok::Bytes => "BYTES",
            Tok::Identifier => "IDENTIFIER",
            Tok::EscIdentifier => "ESC_IDENTIFIER",
        }
    }

    const ALL: [Tok; 38] = [
        Tok::Eof,
        Tok::Equals,
        Tok::NotEquals,
        Tok::In,
        Tok::Less,
        Tok::LessEquals,
        Tok::GreaterEquals,
        Tok::Greater,
        Tok::LogicalAnd,
        Tok::LogicalOr,
        Tok::LBracket,
        Tok::RBracket,
        Tok::LBrace,
        Tok::RBrace,
        Tok::LParen,
        Tok::RParen,
        Tok::Dot,
        Tok::Comma,
        Tok::Minus,
        Tok::Exclam,
        Tok::Question,
        Tok::Colon,
        Tok::Plus,
        Tok::Star,
        Tok::Slash,
        Tok::Percent,
        Tok::True,
        Tok::False,
        Tok::Null,
        Tok::Whitespace,
        Tok::Comment,
        Tok::NumFloat,
        Tok::NumInt,
        Tok::NumUint,
        Tok::String,
        Tok::Bytes,
        Tok::Identifier,
        Tok::EscIdentifier,
    ];
}

/// A set of token types (EOF included), printed as ANTLR prints an `IntervalSet`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TokSet(pub u64);

impl TokSet {
    /// The empty set.
    pub const EMPTY: TokSet = TokSet(0);

    /// A set from a list.
    pub const fn of(toks: &[Tok]) -> TokSet {
        let mut bits = 0u64;
        let mut rest = toks;
        while let [first, tail @ ..] = rest {
            bits |= 1u64 << (*first as u8);
            rest = tail;
        }
        TokSet(bits)
    }

    /// Membership.
    pub const fn has(self, t: Tok) -> bool {
        self.0 & (1u64 << (t as u8)) != 0
    }

    /// Union.
    pub const fn with(self, other: TokSet) -> TokSet {
        TokSet(self.0 | other.0)
    }

    /// True when empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// ANTLR's `IntervalSet.toString(literalNames, symbolicNames)`: one element bare, several in
    /// braces, `<EOF>` first, then by token type.
    pub fn display(self) -> String {
        let names: Vec<&str> = Tok::ALL
            .iter()
            .filter(|t| self.has(**t))
            .map(|t| t.display_name())
            .collect();
        match names.len() {
            0 => "{}".to_string(),
            1 => names.concat(),
            _ => format!("{{{}}}", names.join(", ")),
        }
    }
}

/// One token: its type, code-point range and ANTLR position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// The type.
    pub kind: Tok,
    /// Start, in code points.
    pub start: usize,
    /// End (exclusive), in code points.
    pub end: usize,
    /// 1-based line.
    pub line: i32,
    /// 0-based column in code points.
    pub column: i32,
    /// Whitespace and comments (ANTLR's hidden channel).
    pub hidden: bool,
    /// A token conjured by error recovery ("missing X"); it has no text in the source.
    pub conjured: bool,
}

/// A lexer error: `token recognition error at: '...'` at a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    /// The message.
    pub message: String,
    /// Line of the failed token's start.
    pub line: i32,
    /// Column of the failed token's start.
    pub column: i32,
    /// Index of the next token produced after this error (errors are reported in order).
    pub before_token: usize,
}

/// Splits the text into tokens (hidden ones included, EOF last) and lexer errors.
pub fn tokenize(chars: &[char]) -> (Vec<Token>, Vec<LexError>) {
    let mut toks = Vec::new();
    let mut errs = Vec::new();
    let mut pos = 0usize;
    let mut line = 1i32;
    let mut col = 0i32;
    let advance = |from: usize, to: usize, line: &mut i32, col: &mut i32| {
        for c in chars.get(from..to).unwrap_or(&[]) {
            if *c == '\n' {
                *line += 1;
                *col = 0;
            } else {
                *col += 1;
            }
        }
    };
    loop {
        if pos >= chars.len() {
            toks.push(Token {
                kind: Tok::Eof,
                start: chars.len(),
                end: chars.len(),
                line,
                column: col,
                hidden: false,
                conjured: false,
            });
            break;
        }
        let m = scan(chars, pos);
        match m.accept {
            Some((len, kind)) => {
                let end = pos + len;
                toks.push(Token {
                    kind,
                    start: pos,
                    end,
                    line,
                    column: col,
                    hidden: matches!(kind, Tok::Whitespace | Tok::Comment),
                    conjured: false,
                });
                advance(pos, end, &mut line, &mut col);
                pos = end;
            }
            None => {
                let fail = pos + m.alive;
                let text_end = (fail + 1).min(chars.len());
                let text: String = chars.get(pos..text_end).unwrap_or(&[]).iter().collect();
                errs.push(LexError {
                    message: format!("token recognition error at: '{}'", error_display(&text)),
                    line,
                    column: col,
                    before_token: toks.len(),
                });
                let next = if fail < chars.len() {
                    fail + 1
                } else {
                    chars.len()
                };
                advance(pos, next, &mut line, &mut col);
                pos = next;
            }
        }
    }
    (toks, errs)
}

/// ANTLR's `Lexer.getErrorDisplay`: newline, carriage return and tab escaped.
fn error_display(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// ANTLR's `escapeWSAndQuote` for parser messages: `'text'` with `\n`, `\r`, `\t` escaped.
pub fn quote_token_text(s: &str) -> String {
    format!("'{}'", error_display(s))
}

struct Match {
    /// Longest accepted length and its token type (earliest rule on ties).
    accept: Option<(usize, Tok)>,
    /// How many characters the automaton consumed before every rule died.
    alive: usize,
}

/// The lexer rules' order in CEL.g4 (ties go to the earlier rule).
fn rule_order(t: Tok) -> u8 {
    t as u8
}

struct Scan<'a> {
    chars: &'a [char],
    start: usize,
    accept: Option<(usize, Tok)>,
    alive: usize,
}

impl Scan<'_> {
    fn at(&self, i: usize) -> Option<char> {
        self.chars.get(self.start + i).copied()
    }
    fn accept(&mut self, len: usize, kind: Tok) {
        self.alive = self.alive.max(len);
        match self.accept {
            Some((l, k)) if l > len || (l == len && rule_order(k) <= rule_order(kind)) => {}
            _ => self.accept = Some((len, kind)),
        }
    }
    fn reached(&mut self, len: usize) {
        self.alive = self.alive.max(len);
    }
    fn digits(&self, from: usize, hex: bool) -> usize {
        let mut n = 0;
        while let Some(c) = self.at(from + n) {
            if c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()) {
                n += 1;
            } else {
                break;
            }
        }
        n
    }
}

fn scan(chars: &[char], start: usize) -> Match {
    let mut s = Scan {
        chars,
        start,
        accept: None,
        alive: 0,
    };
    let c0 = s.at(0).unwrap_or('\0');
    let c1 = s.at(1);
    // Fixed tokens.
    let fixed: &[(&str, Tok)] = &[
        ("==", Tok::Equals),
        ("!=", Tok::NotEquals),
        ("in", Tok::In),
        ("<", Tok::Less),
        ("<=", Tok::LessEquals),
        (">=", Tok::GreaterEquals),
        (">", Tok::Greater),
        ("&&", Tok::LogicalAnd),
        ("||", Tok::LogicalOr),
        ("[", Tok::LBracket),
        ("]", Tok::RBracket),
        ("{", Tok::LBrace),
        ("}", Tok::RBrace),
        ("(", Tok::LParen),
        (")", Tok::RParen),
        (".", Tok::Dot),
        (",", Tok::Comma),
        ("-", Tok::Minus),
        ("!", Tok::Exclam),
        ("?", Tok::Question),
        (":", Tok::Colon),
        ("+", Tok::Plus),
        ("*", Tok::Star),
        ("/", Tok::Slash),
        ("%", Tok::Percent),
        ("true", Tok::True),
        ("false", Tok::False),
        ("null", Tok::Null),
    ];
    for (lit, kind) in fixed {
        // All fixed tokens are ASCII.
        let mut n = 0;
        for (i, lc) in lit.bytes().enumerate() {
            if s.at(i) == Some(char::from(lc)) {
                n += 1;
            } else {
                break;
            }
        }
        if n == lit.len() {
            s.accept(n, *kind);
        } else {
            s.reached(n);
        }
    }
    // Whitespace.
    let mut n = 0;
    while matches!(s.at(n), Some('\t' | ' ' | '\r' | '\n' | '\u{000C}')) {
        n += 1;
    }
    if n > 0 {
        s.accept(n, Tok::Whitespace);
    }
    // Comment.
    if c0 == '/' && c1 == Some('/') {
        let mut n = 2;
        while matches!(s.at(n), Some(c) if c != '\n') {
            n += 1;
        }
        s.accept(n, Tok::Comment);
    }
    scan_numbers(&mut s);
    // Identifiers.
    if c0.is_ascii_alphabetic() || c0 == '_' {
        let mut n = 1;
        while matches!(s.at(n), Some(c) if c.is_ascii_alphanumeric() || c == '_') {
            n += 1;
        }
        s.accept(n, Tok::Identifier);
    }
    // Strings and bytes.
    scan_string(&mut s, 0, Tok::String);
    if c0 == 'b' || c0 == 'B' {
        scan_string(&mut s, 1, Tok::Bytes);
    }
    // Escaped identifiers.
    if c0 == '`' {
        let mut n = 1;
        while matches!(s.at(n), Some(c) if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/' | ' '))
        {
            n += 1;
        }
        if n > 1 && s.at(n) == Some('`') {
            s.accept(n + 1, Tok::EscIdentifier);
        } else {
            s.reached(n);
        }
    }
    Match {
        accept: s.accept,
        alive: s.alive,
    }
}

/// Exponent at `from`: returns (accepted end if complete, furthest reached).
fn exponent(s: &Scan<'_>, from: usize) -> (Option<usize>, usize) {
    if !matches!(s.at(from), Some('e' | 'E')) {
        return (None, from);
    }
    let mut q = from + 1;
    if matches!(s.at(q), Some('+' | '-')) {
        q += 1;
    }
    let k = s.digits(q, false);
    if k == 0 {
        (None, q)
    } else {
        (Some(q + k), q + k)
    }
}

fn scan_numbers(s: &mut Scan<'_>) {
    let d = s.digits(0, false);
    if d > 0 {
        // NUM_INT / NUM_UINT decimal.
        s.accept(d, Tok::NumInt);
        if matches!(s.at(d), Some('u' | 'U')) {
            s.accept(d + 1, Tok::NumUint);
        }
        // NUM_FLOAT: DIGIT+ '.' DIGIT+ EXPONENT?
        if s.at(d) == Some('.') {
            let m = s.digits(d + 1, false);
            if m == 0 {
                s.reached(d + 1);
            } else {
                s.accept(d + 1 + m, Tok::NumFloat);
                let (acc, reach) = exponent(s, d + 1 + m);
                s.reached(reach);
                if let Some(e) = acc {
                    s.accept(e, Tok::NumFloat);
                }
            }
        }
        // NUM_FLOAT: DIGIT+ EXPONENT
        let (acc, reach) = exponent(s, d);
        s.reached(reach);
        if let Some(e) = acc {
            s.accept(e, Tok::NumFloat);
        }
        // Hex.
        if s.at(0) == Some('0') && s.at(1) == Some('x') {
            let h = s.digits(2, true);
            if h == 0 {
                s.reached(2);
            } else {
                s.accept(2 + h, Tok::NumInt);
                if matches!(s.at(2 + h), Some('u' | 'U')) {
                    s.accept(3 + h, Tok::NumUint);
                }
            }
        }
    } else if s.at(0) == Some('.') {
        // '.' DIGIT+ EXPONENT?
        let m = s.digits(1, false);
        if m > 0 {
            s.accept(1 + m, Tok::NumFloat);
            let (acc, reach) = exponent(s, 1 + m);
            s.reached(reach);
            if let Some(e) = acc {
                s.accept(e, Tok::NumFloat);
            }
        }
    }
}

fn is_hex(c: Option<char>) -> bool {
    matches!(c, Some(c) if c.is_ascii_hexdigit())
}

/// Length of an escape sequence starting with the backslash at `at`, or the reach at which
/// it died.
fn escape(s: &Scan<'_>, at: usize) -> Result<usize, usize> {
    match s.at(at + 1) {
        Some('a' | 'b' | 'f' | 'n' | 'r' | 't' | 'v' | '"' | '\'' | '\\' | '?' | '`') => Ok(2),
        Some('0'..='3') => {
            for i in 2..4 {
                if !matches!(s.at(at + i), Some('0'..='7')) {
                    return Err(at + i);
                }
            }
            Ok(4)
        }
        Some('x' | 'X') => {
            for i in 2..4 {
                if !is_hex(s.at(at + i)) {
                    return Err(at + i);
                }
            }
            Ok(4)
        }
        Some('u') => {
            for i in 2..6 {
                if !is_hex(s.at(at + i)) {
                    return Err(at + i);
                }
            }
            Ok(6)
        }
        Some('U') => {
            for i in 2..10 {
                if !is_hex(s.at(at + i)) {
                    return Err(at + i);
                }
            }
            Ok(10)
        }
        _ => Err(at + 1),
    }
}

/// STRING (or BYTES, with `offset` 1 for the `b` prefix) starting at `offset`.
fn scan_string(s: &mut Scan<'_>, offset: usize, kind: Tok) {
    let mut p = offset;
    let raw = matches!(s.at(p), Some('r' | 'R'));
    if raw {
        p += 1;
    }
    let q = match s.at(p) {
        Some(c @ ('"' | '\'')) => c,
        _ => {
            if raw || offset > 0 {
                s.reached(p);
            }
            return;
        }
    };
    // Single-line form.
    let mut i = p + 1;
    loop {
        match s.at(i) {
            None => {
                s.reached(i);
                break;
            }
            Some(c) if c == q => {
                s.accept(i + 1, kind);
                break;
            }
            Some('\n' | '\r') => {
                s.reached(i);
                break;
            }
            Some('\\') if !raw => match escape(s, i) {
                Ok(n) => i += n,
                Err(r) => {
                    s.reached(r);
                    break;
                }
            },
            Some(_) => i += 1,
        }
    }
    // Triple-quoted form: ends at the first closing triple quote.
    if s.at(p + 1) == Some(q) && s.at(p + 2) == Some(q) {
        let mut i = p + 3;
        loop {
            match s.at(i) {
                None => {
                    s.reached(i);
                    break;
                }
                Some(c) if c == q && s.at(i + 1) == Some(q) && s.at(i + 2) == Some(q) => {
                    s.accept(i + 3, kind);
                    break;
                }
                Some('\\') if !raw => match escape(s, i) {
                    Ok(n) => i += n,
                    Err(r) => {
                        s.reached(r);
                        break;
                    }
                },
                Some(_) => i += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Tok, std::string::String)> {
        let chars: Vec<char> = text.chars().collect();
        let (toks, errs) = tokenize(&chars);
        assert!(errs.is_empty(), "{text:?}: {errs:?}");
        toks.iter()
            .filter(|t| !t.hidden && t.kind != Tok::Eof)
            .map(|t| (t.kind, chars[t.start..t.end].iter().collect()))
            .collect()
    }

    #[test]
    fn token_kinds() {
        use Tok::*;
        let cases: &[(&str, &[(Tok, &str)])] = &[
            ("1e3", &[(NumFloat, "1e3")]),
            ("1e", &[(NumInt, "1"), (Identifier, "e")]),
            (".5e-2", &[(NumFloat, ".5e-2")]),
            ("1.", &[(NumInt, "1"), (Dot, ".")]),
            ("0x1Fu", &[(NumUint, "0x1Fu")]),
            ("0X1", &[(NumInt, "0"), (Identifier, "X1")]),
            ("7U", &[(NumUint, "7U")]),
            ("trueish true", &[(Identifier, "trueish"), (True, "true")]),
            ("in inx", &[(In, "in"), (Identifier, "inx")]),
            (
                "b'x' B\"y\" br'z'",
                &[(Bytes, "b'x'"), (Bytes, "B\"y\""), (Bytes, "br'z'")],
            ),
            ("rb'x'", &[(Identifier, "rb"), (String, "'x'")]),
            ("'''a'b'''", &[(String, "'''a'b'''")]),
            ("`a.b-c/d e`", &[(EscIdentifier, "`a.b-c/d e`")]),
            (
                "a<=b>=c",
                &[
                    (Identifier, "a"),
                    (LessEquals, "<="),
                    (Identifier, "b"),
                    (GreaterEquals, ">="),
                    (Identifier, "c"),
                ],
            ),
            ("x // note\n+", &[(Identifier, "x"), (Plus, "+")]),
            ("r'\\d'", &[(String, "r'\\d'")]),
        ];
        for (text, want) in cases {
            let got = kinds(text);
            let want: Vec<(Tok, std::string::String)> =
                want.iter().map(|(k, s)| (*k, s.to_string())).collect();
            assert_eq!(got, want, "{text:?}");
        }
    }

    #[test]
    fn recognition_errors() {
        let cases: &[(&str, &[&str])] = &[
            ("#", &["token recognition error at: '#'"]),
            ("\"abc", &["token recognition error at: '\"abc'"]),
            (
                "'a\nb'",
                &[
                    "token recognition error at: ''a\\n'",
                    "token recognition error at: '''",
                ],
            ),
            (
                "\"\\q\"",
                &[
                    "token recognition error at: '\"\\q'",
                    "token recognition error at: '\"'",
                ],
            ),
            ("``", &["token recognition error at: '``'"]),
        ];
        for (text, want) in cases {
            let chars: Vec<char> = text.chars().collect();
            let (_, errs) = tokenize(&chars);
            let got: Vec<&str> = errs.iter().map(|e| e.message.as_str()).collect();
            assert_eq!(got, *want, "{text:?}");
        }
    }

    #[test]
    fn set_display() {
        assert_eq!(TokSet::of(&[Tok::Colon]).display(), "':'");
        assert_eq!(
            TokSet::of(&[Tok::RBrace, Tok::Comma, Tok::Eof]).display(),
            "{<EOF>, '}', ','}"
        );
    }
}
