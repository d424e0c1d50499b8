//! Whether Go's `regexp.Compile` accepts a pattern, and its error text when it does not
//! (`error parsing regexp: missing closing ): `(a``).
//!
//! This follows the parser of Go's `regexp/syntax` with the `Perl` flags `regexp.Compile`
//! uses, keeping only what decides acceptance: the parse stack (groups, alternations,
//! operands of repetition operators), escapes, character classes, named classes, Unicode
//! class names, Perl flag groups, named captures and repeat counts (at most 1000, also as a
//! product of nested counted repetitions). Not modelled: the size and nesting-depth limits
//! for enormous expressions (`expression too large`, `expression nests too deeply`).

/// An error of Go's regexp parser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoRegexpError {
    /// The error code text, e.g. `missing closing )`.
    pub code: &'static str,
    /// The offending part of the expression.
    pub expr: String,
}

impl std::fmt::Display for GoRegexpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error parsing regexp: {}: `{}`", self.code, self.expr)
    }
}

const INVALID_CHAR_RANGE: &str = "invalid character class range";
const INVALID_ESCAPE: &str = "invalid escape sequence";
const INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const MISSING_BRACKET: &str = "missing closing ]";
const MISSING_PAREN: &str = "missing closing )";
const MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const UNEXPECTED_PAREN: &str = "unexpected )";

const MAX_REPEAT: i64 = 1000;

fn err(code: &'static str, expr: &str) -> GoRegexpError {
    GoRegexpError {
        code,
        expr: expr.to_owned(),
    }
}

/// A parsed expression, reduced to what repeat-count validation needs: counted repetitions
/// and their nesting.
#[derive(Clone, Debug, Default)]
struct Node {
    /// `Some((min, max))` for a counted repetition `x{min,max}` (`max` -1 when open).
    repeat: Option<(i64, i64)>,
    subs: Vec<Node>,
}

enum Item {
    LeftParen,
    VerticalBar,
    Expr(Node),
}

struct Parser<'a> {
    whole: &'a str,
    stack: Vec<Item>,
}

impl Parser<'_> {
    fn push(&mut self, n: Node) {
        self.stack.push(Item::Expr(n));
    }

    fn leaf(&mut self) {
        self.push(Node::default());
    }

    /// Pops the expressions above the topmost pseudo-operator.
    fn take_exprs(&mut self) -> Vec<Node> {
        let mut i = self.stack.len();
        while i > 0 && matches!(self.stack.get(i - 1), Some(Item::Expr(_))) {
            i -= 1;
        }
        self.stack
            .split_off(i)
            .into_iter()
            .filter_map(|it| match it {
                Item::Expr(n) => Some(n),
                _ => None,
            })
            .collect()
    }

    fn concat(&mut self) {
        let subs = self.take_exprs();
        self.push(Node { repeat: None, subs });
    }

    fn alternate(&mut self) {
        self.concat_like_alternate();
    }

    fn concat_like_alternate(&mut self) {
        let subs = self.take_exprs();
        self.push(Node { repeat: None, subs });
    }

    /// `swapVerticalBar`: moves the expression on top below a `|` right under it.
    fn swap_vertical_bar(&mut self) -> bool {
        let n = self.stack.len();
        if n >= 2 && matches!(self.stack.get(n - 2), Some(Item::VerticalBar)) {
            self.stack.swap(n - 2, n - 1);
            return true;
        }
        false
    }

    fn vertical_bar(&mut self) {
        self.concat();
        if !self.swap_vertical_bar() {
            self.stack.push(Item::VerticalBar);
        }
    }

    fn right_paren(&mut self) -> Result<(), GoRegexpError> {
        self.concat();
        if self.swap_vertical_bar() {
            self.stack.pop();
        }
        self.alternate();
        let n = self.stack.len();
        if n < 2 {
            return Err(err(UNEXPECTED_PAREN, self.whole));
        }
        let re1 = self.stack.pop();
        let re2 = self.stack.pop();
        match (re1, re2) {
            (Some(Item::Expr(e)), Some(Item::LeftParen)) => {
                self.push(Node {
                    repeat: None,
                    subs: vec![e],
                });
                Ok(())
            }
            _ => Err(err(UNEXPECTED_PAREN, self.whole)),
        }
    }

    /// `repeat`: applies a repetition operator to the expression on top of the stack.
    fn repeat(
        &mut self,
        counted: Option<(i64, i64)>,
        before: &str,
        mut after: &str,
        last_repeat: &str,
    ) -> Result<usize, GoRegexpError> {
        if let Some(rest) = after.strip_prefix('?') {
            after = rest;
        }
        if !last_repeat.is_empty() {
            let end = last_repeat.len().saturating_sub(after.len());
            return Err(err(INVALID_REPEAT_OP, last_repeat.get(..end).unwrap_or("")));
        }
        let op_text = before.get(..before.len() - after.len()).unwrap_or("");
        let sub = match self.stack.pop() {
            Some(Item::Expr(n)) => n,
            other => {
                if let Some(o) = other {
                    self.stack.push(o);
                }
                return Err(err(MISSING_REPEAT_ARGUMENT, op_text));
            }
        };
        let node = Node {
            repeat: counted,
            subs: vec![sub],
        };
        if let Some((min, max)) = counted {
            if (min >= 2 || max >= 2) && !repeat_is_valid(&node, MAX_REPEAT, 0) {
                return Err(err(INVALID_REPEAT_SIZE, op_text));
            }
        }
        self.push(node);
        Ok(before.len() - after.len())
    }
}

/// `repeatIsValid`: the product of nested counted repetitions stays within `n`.
fn repeat_is_valid(re: &Node, mut n: i64, depth: usize) -> bool {
    if depth > 2000 {
        return true;
    }
    if let Some((min, max)) = re.repeat {
        let mut m = max;
        if m == 0 {
            return true;
        }
        if m < 0 {
            m = min;
        }
        if m > n {
            return false;
        }
        if m > 0 {
            n /= m;
        }
    }
    re.subs.iter().all(|s| repeat_is_valid(s, n, depth + 1))
}

fn is_alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

fn unhex(c: char) -> Option<u32> {
    c.to_digit(16)
}

/// The first character of `s` and the rest. An empty `s` gives U+FFFD and an empty rest, as
/// Go's `utf8.DecodeRuneInString` does.
fn next_rune(s: &str) -> (char, &str) {
    let mut it = s.chars();
    match it.next() {
        Some(c) => (c, it.as_str()),
        None => ('\u{fffd}', ""),
    }
}

/// `parseEscape`: an escape at the start of `s` (which begins with `\`); returns the rest.
fn parse_escape(s: &str) -> Result<&str, GoRegexpError> {
    let t = s.get(1..).unwrap_or("");
    if t.is_empty() {
        return Err(err(TRAILING_BACKSLASH, ""));
    }
    let (c, mut t) = next_rune(t);
    let invalid = |t: &str| err(INVALID_ESCAPE, s.get(..s.len() - t.len()).unwrap_or(s));
    match c {
        '1'..='7' => {
            if !t.starts_with(|d: char| ('0'..='7').contains(&d)) {
                return Err(invalid(t));
            }
            for _ in 1..3 {
                if !t.starts_with(|d: char| ('0'..='7').contains(&d)) {
                    break;
                }
                t = t.get(1..).unwrap_or("");
            }
            Ok(t)
        }
        '0' => {
            for _ in 1..3 {
                if !t.starts_with(|d: char| ('0'..='7').contains(&d)) {
                    break;
                }
                t = t.get(1..).unwrap_or("");
            }
            Ok(t)
        }
        'x' => {
            if t.is_empty() {
                return Err(invalid(t));
            }
            let (c2, t2) = next_rune(t);
            t = t2;
            if c2 == '{' {
                let mut nhex = 0;
                let mut r: u32 = 0;
                loop {
                    if t.is_empty() {
                        return Err(invalid(t));
                    }
                    let (c3, t3) = next_rune(t);
                    t = t3;
                    if c3 == '}' {
                        break;
                    }
                    let Some(v) = unhex(c3) else {
                        return Err(invalid(t));
                    };
                    r = r.saturating_mul(16).saturating_add(v);
                    if r > 0x10ffff {
                        return Err(invalid(t));
                    }
                    nhex += 1;
                }
                if nhex == 0 {
                    return Err(invalid(t));
                }
                return Ok(t);
            }
            let x = unhex(c2);
            let (c3, t3) = next_rune(t);
            t = t3;
            if x.is_none() || unhex(c3).is_none() {
                return Err(invalid(t));
            }
            Ok(t)
        }
        'a' | 'f' | 'n' | 'r' | 't' | 'v' => Ok(t),
        c if (c as u32) < 0x80 && !is_alnum(c) => Ok(t),
        _ => Err(invalid(t)),
    }
}

/// `\d`, `\D`, `\s`, `\S`, `\w`, `\W`.
fn perl_class_escape(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    if b.first() == Some(&b'\\')
        && matches!(b.get(1), Some(b'd' | b'D' | b's' | b'S' | b'w' | b'W'))
    {
        return s.get(2..);
    }
    None
}

const POSIX_CLASSES: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// `parseNamedClass`: `[:alpha:]` at the start of `s`. `Ok(None)` when there is none.
fn named_class(s: &str) -> Result<Option<&str>, GoRegexpError> {
    if !s.starts_with("[:") {
        return Ok(None);
    }
    let Some(i) = s.get(2..).and_then(|r| r.find(":]")) else {
        return Ok(None);
    };
    let end = i + 4;
    let name = s.get(..end).unwrap_or(s);
    let inner = name.get(2..name.len() - 2).unwrap_or("");
    let inner = inner.strip_prefix('^').unwrap_or(inner);
    if !POSIX_CLASSES.contains(&inner) {
        return Err(err(INVALID_CHAR_RANGE, name));
    }
    Ok(Some(s.get(end..).unwrap_or("")))
}

/// `canonicalName`: a leading capital, then lower case, without `_`, `-` and spaces.
fn canonical_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut first = true;
    for c in name.chars() {
        if matches!(c, '_' | '-' | ' ') {
            continue;
        }
        if first {
            out.push(c.to_ascii_uppercase());
            first = false;
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

const CATEGORIES: &[&str] = &[
    "C", "Cc", "Cf", "Cn", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn",
    "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm",
    "So", "Z", "Zl", "Zp", "Zs",
];

const CATEGORY_ALIASES: &[&str] = &[
    "Cased_Letter",
    "Close_Punctuation",
    "Combining_Mark",
    "Connector_Punctuation",
    "Control",
    "Currency_Symbol",
    "Dash_Punctuation",
    "Decimal_Number",
    "Enclosing_Mark",
    "Final_Punctuation",
    "Format",
    "Initial_Punctuation",
    "Letter",
    "Letter_Number",
    "Line_Separator",
    "Lowercase_Letter",
    "Mark",
    "Math_Symbol",
    "Modifier_Letter",
    "Modifier_Symbol",
    "Nonspacing_Mark",
    "Number",
    "Open_Punctuation",
    "Other",
    "Other_Letter",
    "Other_Number",
    "Other_Punctuation",
    "Other_Symbol",
    "Paragraph_Separator",
    "Private_Use",
    "Punctuation",
    "Separator",
    "Space_Separator",
    "Spacing_Mark",
    "Surrogate",
    "Symbol",
    "Titlecase_Letter",
    "Unassigned",
    "Uppercase_Letter",
    "cntrl",
    "digit",
    "punct",
];

const SCRIPTS: &[&str] = &[
    "Adlam",
    "Ahom",
    "Anatolian_Hieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Bassa_Vah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Canadian_Aboriginal",
    "Carian",
    "Caucasian_Albanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Chorasmian",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cypro_Minoan",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Dives_Akuru",
    "Dogra",
    "Duployan",
    "Egyptian_Hieroglyphs",
    "Elbasan",
    "Elymaic",
    "Ethiopic",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gunjala_Gondi",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hanifi_Rohingya",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Imperial_Aramaic",
    "Inherited",
    "Inscriptional_Pahlavi",
    "Inscriptional_Parthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kawi",
    "Kayah_Li",
    "Kharoshthi",
    "Khitan_Small_Script",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Linear_A",
    "Linear_B",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Makasar",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Masaram_Gondi",
    "Medefaidrin",
    "Meetei_Mayek",
    "Mende_Kikakui",
    "Meroitic_Cursive",
    "Meroitic_Hieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "Nag_Mundari",
    "Nandinagari",
    "New_Tai_Lue",
    "Newa",
    "Nko",
    "Nushu",
    "Nyiakeng_Puachue_Hmong",
    "Ogham",
    "Ol_Chiki",
    "Old_Hungarian",
    "Old_Italic",
    "Old_North_Arabian",
    "Old_Permic",
    "Old_Persian",
    "Old_Sogdian",
    "Old_South_Arabian",
    "Old_Turkic",
    "Old_Uyghur",
    "Oriya",
    "Osage",
    "Osmanya",
    "Pahawh_Hmong",
    "Palmyrene",
    "Pau_Cin_Hau",
    "Phags_Pa",
    "Phoenician",
    "Psalter_Pahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "Sogdian",
    "Sora_Sompeng",
    "Soyombo",
    "Sundanese",
    "Syloti_Nagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Tai_Le",
    "Tai_Tham",
    "Tai_Viet",
    "Takri",
    "Tamil",
    "Tangsa",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Toto",
    "Ugaritic",
    "Vai",
    "Vithkuqi",
    "Wancho",
    "Warang_Citi",
    "Yezidi",
    "Yi",
    "Zanabazar_Square",
];

/// `unicodeTable`: whether a `\p{...}` name is known.
fn unicode_name_known(name: &str) -> bool {
    let c = canonical_name(name);
    if matches!(c.as_str(), "Any" | "Assigned" | "Ascii" | "Lc") {
        return true;
    }
    CATEGORIES.contains(&c.as_str())
        || SCRIPTS
            .iter()
            .chain(CATEGORY_ALIASES)
            .any(|s| canonical_name(s) == c)
}

/// `parseUnicodeClass`: `\pL`, `\p{Greek}`, `\P{^Greek}` at the start of `s`. `Ok(None)` when
/// `s` does not start with one.
fn unicode_class(s: &str) -> Result<Option<&str>, GoRegexpError> {
    let b = s.as_bytes();
    if b.len() < 2 || b.first() != Some(&b'\\') || !matches!(b.get(1), Some(b'p' | b'P')) {
        return Ok(None);
    }
    let t = s.get(2..).unwrap_or("");
    let (c, t) = next_rune(t);
    let (seq, name, rest) = if c != '{' {
        let seq = s.get(..s.len() - t.len()).unwrap_or(s);
        (seq, seq.get(2..).unwrap_or(""), t)
    } else {
        let Some(end) = s.find('}') else {
            return Err(err(INVALID_CHAR_RANGE, s));
        };
        (
            s.get(..end + 1).unwrap_or(s),
            s.get(3..end).unwrap_or(""),
            s.get(end + 1..).unwrap_or(""),
        )
    };
    let name = name.strip_prefix('^').unwrap_or(name);
    if !unicode_name_known(name) {
        return Err(err(INVALID_CHAR_RANGE, seq));
    }
    Ok(Some(rest))
}

/// `parseClassChar`: one class character; returns it and the rest.
fn class_char<'a>(s: &'a str, whole_class: &str) -> Result<(Option<char>, &'a str), GoRegexpError> {
    if s.is_empty() {
        return Err(err(MISSING_BRACKET, whole_class));
    }
    if s.starts_with('\\') {
        let rest = parse_escape(s)?;
        return Ok((escape_value(s, rest), rest));
    }
    let (c, rest) = next_rune(s);
    Ok((Some(c), rest))
}

/// The character an escape (already validated) stands for.
fn escape_value(s: &str, rest: &str) -> Option<char> {
    let body = s.get(1..s.len() - rest.len())?;
    let mut it = body.chars();
    let c = it.next()?;
    let tail: String = it.collect();
    match c {
        '0'..='7' => u32::from_str_radix(body, 8).ok().and_then(char::from_u32),
        'x' => {
            let hex = tail.trim_start_matches('{').trim_end_matches('}');
            u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
        }
        'a' => Some('\u{7}'),
        'f' => Some('\u{c}'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\u{b}'),
        c => Some(c),
    }
}

/// `parseClass`: a character class starting at `s` (`[`); returns the rest.
fn parse_class(s: &str) -> Result<&str, GoRegexpError> {
    let mut t = s.get(1..).unwrap_or("");
    if let Some(r) = t.strip_prefix('^') {
        t = r;
    }
    let mut first = true;
    while t.is_empty() || !t.starts_with(']') || first {
        first = false;
        if t.len() > 2 && t.starts_with("[:") {
            if let Some(rest) = named_class(t)? {
                t = rest;
                continue;
            }
        }
        if let Some(rest) = unicode_class(t)? {
            t = rest;
            continue;
        }
        if let Some(rest) = perl_class_escape(t) {
            t = rest;
            continue;
        }
        let rng = t;
        let (lo, rest) = class_char(t, s)?;
        t = rest;
        let b = t.as_bytes();
        if b.len() >= 2 && b.first() == Some(&b'-') && b.get(1) != Some(&b']') {
            t = t.get(1..).unwrap_or("");
            let (hi, rest) = class_char(t, s)?;
            t = rest;
            if let (Some(lo), Some(hi)) = (lo, hi) {
                if hi < lo {
                    return Err(err(
                        INVALID_CHAR_RANGE,
                        rng.get(..rng.len() - t.len()).unwrap_or(rng),
                    ));
                }
            }
        }
    }
    Ok(t.get(1..).unwrap_or(""))
}

/// `parseInt`: a decimal number without leading zeros; -1 when too big.
fn parse_int(s: &str) -> Option<(i64, &str)> {
    let b = s.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    if b.len() >= 2 && b.first() == Some(&b'0') && b.get(1).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut n: i64 = 0;
    for c in b.iter().take(digits) {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + i64::from(c - b'0');
    }
    Some((n, s.get(digits..).unwrap_or("")))
}

/// `parseRepeat`: `{n}`, `{n,}` or `{n,m}`; `None` when `s` is not of that form.
fn parse_repeat(s: &str) -> Option<(i64, i64, &str)> {
    let s = s.strip_prefix('{')?;
    let (mut min, s) = parse_int(s)?;
    let max;
    let s = if let Some(s) = s.strip_prefix(',') {
        if s.starts_with('}') {
            max = -1;
            s
        } else {
            let (m, s) = parse_int(s)?;
            max = m;
            if max < 0 {
                min = -1;
            }
            s
        }
    } else {
        if s.is_empty() {
            return None;
        }
        max = min;
        s
    };
    let rest = s.strip_prefix('}')?;
    Some((min, max, rest))
}

/// `parsePerlFlags`: `(?i)`, `(?:`, `(?i-s:`, `(?P<name>`, `(?<name>`. Returns the rest and
/// whether a group was opened.
fn perl_flags<'a>(s: &'a str, p: &mut Parser<'_>) -> Result<&'a str, GoRegexpError> {
    let b = s.as_bytes();
    let starts_with_p = b.len() > 4 && b.get(2) == Some(&b'P') && b.get(3) == Some(&b'<');
    let starts_with_name = b.len() > 3 && b.get(2) == Some(&b'<');
    if starts_with_p || starts_with_name {
        let expr_start = if starts_with_name { 3 } else { 4 };
        let Some(end) = s.find('>') else {
            return Err(err(INVALID_NAMED_CAPTURE, s));
        };
        let capture = s.get(..end + 1).unwrap_or(s);
        let name = s.get(expr_start..end).unwrap_or("");
        if name.is_empty() || !name.chars().all(|c| c == '_' || is_alnum(c)) {
            return Err(err(INVALID_NAMED_CAPTURE, capture));
        }
        p.stack.push(Item::LeftParen);
        return Ok(s.get(end + 1..).unwrap_or(""));
    }
    let mut t = s.get(2..).unwrap_or("");
    let mut negated = false;
    let mut saw_flag = false;
    while !t.is_empty() {
        let (c, rest) = next_rune(t);
        t = rest;
        match c {
            'i' | 'm' | 's' | 'U' => saw_flag = true,
            '-' => {
                if negated {
                    break;
                }
                negated = true;
                saw_flag = false;
            }
            ':' | ')' => {
                if negated && !saw_flag {
                    break;
                }
                if c == ':' {
                    p.stack.push(Item::LeftParen);
                }
                return Ok(t);
            }
            _ => break,
        }
    }
    Err(err(
        INVALID_PERL_OP,
        s.get(..s.len() - t.len()).unwrap_or(s),
    ))
}

/// `regexp.Compile(pattern)`: `Ok` when Go accepts the pattern, else Go's error.
pub fn compile(pattern: &str) -> Result<(), GoRegexpError> {
    let mut p = Parser {
        whole: pattern,
        stack: Vec::new(),
    };
    let mut t = pattern;
    let mut last_repeat: &str = "";
    while !t.is_empty() {
        let mut repeat: &str = "";
        let first = t.as_bytes().first().copied().unwrap_or(0);
        match first {
            b'(' => {
                if t.as_bytes().get(1) == Some(&b'?') {
                    t = perl_flags(t, &mut p)?;
                } else {
                    p.stack.push(Item::LeftParen);
                    t = t.get(1..).unwrap_or("");
                }
            }
            b'|' => {
                p.vertical_bar();
                t = t.get(1..).unwrap_or("");
            }
            b')' => {
                p.right_paren()?;
                t = t.get(1..).unwrap_or("");
            }
            b'^' | b'$' | b'.' => {
                p.leaf();
                t = t.get(1..).unwrap_or("");
            }
            b'[' => {
                t = parse_class(t)?;
                p.leaf();
            }
            b'*' | b'+' | b'?' => {
                let before = t;
                let after = t.get(1..).unwrap_or("");
                let used = p.repeat(None, before, after, last_repeat)?;
                repeat = before;
                t = before.get(used..).unwrap_or("");
            }
            b'{' => {
                let before = t;
                match parse_repeat(t) {
                    None => {
                        p.leaf();
                        t = t.get(1..).unwrap_or("");
                    }
                    Some((min, max, after)) => {
                        if !(0..=MAX_REPEAT).contains(&min)
                            || max > MAX_REPEAT
                            || (max >= 0 && min > max)
                        {
                            return Err(err(
                                INVALID_REPEAT_SIZE,
                                before.get(..before.len() - after.len()).unwrap_or(before),
                            ));
                        }
                        let used = p.repeat(Some((min, max)), before, after, last_repeat)?;
                        repeat = before;
                        t = before.get(used..).unwrap_or("");
                    }
                }
            }
            b'\\' => {
                let second = t.as_bytes().get(1).copied();
                match second {
                    Some(b'A' | b'b' | b'B' | b'z') => {
                        p.leaf();
                        t = t.get(2..).unwrap_or("");
                    }
                    Some(b'C') => return Err(err(INVALID_ESCAPE, t.get(..2).unwrap_or(t))),
                    Some(b'Q') => {
                        let body = t.get(2..).unwrap_or("");
                        let (lit, rest) = match body.find("\\E") {
                            Some(i) => {
                                (body.get(..i).unwrap_or(""), body.get(i + 2..).unwrap_or(""))
                            }
                            None => (body, ""),
                        };
                        for _ in lit.chars() {
                            p.leaf();
                        }
                        t = rest;
                    }
                    _ => {
                        if let Some(rest) = unicode_class(t)? {
                            t = rest;
                        } else if let Some(rest) = perl_class_escape(t) {
                            t = rest;
                        } else {
                            t = parse_escape(t)?;
                        }
                        p.leaf();
                    }
                }
            }
            _ => {
                let (_, rest) = next_rune(t);
                p.leaf();
                t = rest;
            }
        }
        last_repeat = repeat;
    }
    p.concat();
    if p.swap_vertical_bar() {
        p.stack.pop();
    }
    p.alternate();
    if p.stack.len() != 1 {
        return Err(err(MISSING_PAREN, pattern));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(p: &str) -> String {
        match compile(p) {
            Ok(()) => "ok".to_owned(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn accepted() {
        for p in [
            "",
            "abc",
            "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
            "a|b|",
            "()*",
            "^*",
            "a{2}",
            "a{,5}",
            "(?i)abc",
            "(?P<name>x)",
            "(?<n>x)",
            "[[:alpha:]]",
            "\\p{Greek}\\pL",
            "\\d+\\.\\d*",
            "[\\]]",
            "[]a]",
            "a{1000}",
            "(?:a|b)+?",
            "\\Qa.b",
            "[a-]",
            "\\x{10FFFF}",
            "\\_",
        ] {
            assert_eq!(e(p), "ok", "{p}");
        }
    }

    #[test]
    fn rejected_like_go() {
        assert_eq!(e("(abc"), "error parsing regexp: missing closing ): `(abc`");
        assert_eq!(e("abc)"), "error parsing regexp: unexpected ): `abc)`");
        assert_eq!(e("[a"), "error parsing regexp: missing closing ]: `[a`");
        assert_eq!(
            e("*a"),
            "error parsing regexp: missing argument to repetition operator: `*`"
        );
        assert_eq!(
            e("a**"),
            "error parsing regexp: invalid nested repetition operator: `**`"
        );
        assert_eq!(
            e("a{1001}"),
            "error parsing regexp: invalid repeat count: `{1001}`"
        );
        assert_eq!(
            e("(a{500}){3}"),
            "error parsing regexp: invalid repeat count: `{3}`"
        );
        assert_eq!(
            e("\\q"),
            "error parsing regexp: invalid escape sequence: `\\q`"
        );
        assert_eq!(
            e("a\\"),
            "error parsing regexp: trailing backslash at end of expression: ``"
        );
        assert_eq!(
            e("[z-a]"),
            "error parsing regexp: invalid character class range: `z-a`"
        );
        assert_eq!(
            e("(?=a)"),
            "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"
        );
        assert_eq!(
            e("(?P<a-b>x)"),
            "error parsing regexp: invalid named capture: `(?P<a-b>`"
        );
        assert_eq!(
            e("[[:foo:]]"),
            "error parsing regexp: invalid character class range: `[:foo:]`"
        );
        assert_eq!(
            e("\\p{Foo}"),
            "error parsing regexp: invalid character class range: `\\p{Foo}`"
        );
        assert_eq!(
            e("\\1"),
            "error parsing regexp: invalid escape sequence: `\\1`"
        );
        assert_eq!(
            e("a|*"),
            "error parsing regexp: missing argument to repetition operator: `*`"
        );
    }
}
