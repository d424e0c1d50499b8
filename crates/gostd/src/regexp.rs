//! Go's `regexp` on top of the `regex` crate, with the match-finding methods (`find`,
//! `findAll`) as well as matching: the server compiles schema `pattern`s with Go's
//! `regexp.Compile` (RE2 syntax with the `syntax.Perl` flags). This module parses a pattern
//! the way Go's `regexp/syntax` does, so a pattern Go rejects is rejected here with Go's exact
//! error text (`error parsing regexp: missing argument to repetition operator: `+``), and a
//! pattern Go accepts is rewritten into an equivalent `regex` crate pattern. The rewrite spells
//! out what differs between the two dialects: `\d`, `\s`, `\w` and `\b` are ASCII in Go,
//! `$` means end of text, `\Q…\E` and octal escapes exist, `\<` is a literal `<`, flags apply to
//! the atoms that were parsed under them, and Unicode class names follow Go's tables.
//!
//! Not reproduced: Go's parse-tree simplifications (they change neither the verdict nor the
//! matches), the `maxRunes` limit, and patterns nested deeper than the `regex` crate's default
//! nesting limit or too large for it (see [`compile_bounded`]): those compile here but cannot
//! be evaluated ([`GoRegexp::is_match`] gives `None`), nor can an unanchored NFA-only search
//! past its work bound.

use std::fmt::Write as _;

use regex_automata::meta;

/// The `regex` crate's limit on the size of a compiled NFA (in bytes of its states); Go's own
/// limit is on the number of instructions ([`MAX_SIZE`]).
const NFA_SIZE_LIMIT: usize = 32 << 20;

/// Patterns whose NFA would have more states than this (estimated from the parse, see
/// `Node::nfa_states`) are not built: they are valid in Go but cannot be evaluated here
/// (building one would take seconds and then hit [`NFA_SIZE_LIMIT`]).
const MAX_NFA_STATES: i64 = 600_000;

/// The lazy DFA's cache (the `regex` crate's default is 2 MiB): large repeated classes need
/// thousands of DFA states, and a cache that thrashes gives the search back to the NFA
/// simulation.
const DFA_CACHE_BYTES: usize = 16 << 20;

/// Patterns up to this many NFA states get the lazy DFA (which needs the reversed NFA too).
const MAX_DFA_NFA_STATES: i64 = 150_000;

/// The most an NFA-only search may cost, in text bytes × NFA bytes, unless the pattern is
/// anchored at the start (then the search ends within the pattern's reach): about a second.
const NFA_SEARCH_WORK: u64 = 20_000_000_000;

/// A compiled Go regular expression.
#[derive(Clone, Debug)]
pub struct GoRegexp {
    re: Option<meta::Regex>,
    /// Built without the lazy DFA: searches run the NFA simulation, in time text × states.
    nfa_only: bool,
    /// Anchored at the start of the text (`^` outside any alternation).
    anchored: bool,
}

impl GoRegexp {
    /// `regexp.MatchString`: whether the text contains a match, or `None` when the pattern is
    /// valid in Go but too deeply nested for the `regex` crate to evaluate.
    pub fn is_match(&self, text: &str) -> Option<bool> {
        self.searcher(text).map(|r| r.is_match(text))
    }

    /// The expression, when it can search `text` within the work bound.
    fn searcher(&self, text: &str) -> Option<&meta::Regex> {
        let re = self.re.as_ref()?;
        if self.nfa_only {
            let work = (text.len() as u64).saturating_mul(re.memory_usage() as u64);
            if !self.anchored && work > NFA_SEARCH_WORK {
                return None;
            }
        }
        Some(re)
    }

    /// `regexp.FindString`: the leftmost match (`Some(None)` when there is none), or `None`
    /// when the pattern cannot be evaluated.
    pub fn find<'t>(&self, text: &'t str) -> Option<Option<&'t str>> {
        self.searcher(text)
            .map(|r| r.find(text).and_then(|m| text.get(m.range())))
    }

    /// `regexp.FindAllString(text, n)`: successive non-overlapping matches (all when `n < 0`,
    /// none when `n == 0`), or `None` when the pattern cannot be evaluated.
    pub fn find_all<'t>(&self, text: &'t str, n: i64) -> Option<Vec<&'t str>> {
        let r = self.searcher(text)?;
        if n == 0 {
            return Some(Vec::new());
        }
        let mut out = Vec::new();
        let mut prev_end: Option<usize> = None;
        for m in r.find_iter(text) {
            let Some(found) = text.get(m.range()) else {
                continue;
            };
            // Go ignores an empty match right after the previous match.
            if m.start() == m.end() && prev_end == Some(m.start()) {
                continue;
            }
            out.push(found);
            prev_end = Some(m.end());
            if n > 0 && out.len() as i64 >= n {
                break;
            }
        }
        Some(out)
    }
}

/// Go's `regexp.MustCompile` for fixed, known-valid patterns (the format checkers): a
/// failure only means "never matches".
pub fn compile_fixed(pattern: &str) -> GoRegexp {
    compile(pattern).unwrap_or(GoRegexp {
        re: None,
        nfa_only: true,
        anchored: false,
    })
}

/// Whether `regexp.Compile(pattern)` succeeds, and Go's error text when not, without building
/// the matcher: what validation of a pattern's text needs (a CRD's `pattern`s, a constant
/// CEL regex), at the cost of a parse.
pub fn check(pattern: &str) -> Result<(), String> {
    Parser::new(pattern)
        .parse()
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// `regexp.Compile(pattern)`: the compiled expression, or Go's error text.
pub fn compile(pattern: &str) -> Result<GoRegexp, String> {
    compile_bounded(pattern, MAX_NFA_STATES).map(|(re, _)| re)
}

/// [`compile`] with at most `max_states` NFA states (estimated before building; never more
/// than [`MAX_NFA_STATES`]): a larger pattern compiles but cannot be evaluated. Also returns
/// the states spent, so that a caller compiling many patterns can bound their total.
pub fn compile_bounded(pattern: &str, max_states: i64) -> Result<(GoRegexp, i64), String> {
    let (translated, states, anchored) = Parser::new(pattern).parse().map_err(|e| e.to_string())?;
    if states > max_states.min(MAX_NFA_STATES) {
        return Ok((
            GoRegexp {
                re: None,
                nfa_only: true,
                anchored,
            },
            0,
        ));
    }
    // The lazy DFA makes a search linear with a small constant (a class repeated hundreds of
    // times on a 3 MB text: minutes in the NFA simulation, milliseconds here), but it needs
    // the reversed NFA as well; a larger pattern is built without it, as the NFA simulation
    // alone, whose searches are bounded by `NFA_SEARCH_WORK`.
    let build = |hybrid: bool| {
        meta::Builder::new()
            .configure(
                meta::Config::new()
                    .nfa_size_limit(Some(NFA_SIZE_LIMIT))
                    .hybrid_cache_capacity(DFA_CACHE_BYTES)
                    .hybrid(hybrid),
            )
            .build(&translated)
            .ok()
    };
    // In the browser's wasm (built without the lazy DFA) every search is the NFA simulation.
    let hybrid = cfg!(not(target_arch = "wasm32")) && states <= MAX_DFA_NFA_STATES;
    let (re, nfa_only) = match hybrid.then(|| build(true)).flatten() {
        Some(re) => (Some(re), false),
        None => (build(false), true),
    };
    Ok((
        GoRegexp {
            re,
            nfa_only,
            anchored,
        },
        states,
    ))
}

/// A `regexp/syntax` error: code and offending text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// The error code's text (`missing closing )`).
    pub code: &'static str,
    /// The offending part of the expression.
    pub expr: String,
}

impl std::fmt::Display for SyntaxError {
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
const NESTING_DEPTH: &str = "expression nests too deeply";
const LARGE: &str = "expression too large";

/// Go's limits: tree height, counted repetition, compiled size (`128 MiB / 40`).
const MAX_HEIGHT: usize = 1000;
const MAX_REPEAT: i64 = 1000;
const MAX_SIZE: i64 = (128 << 20) / 40;
const MAX_RUNE: u32 = 0x10FFFF;

fn err<T>(code: &'static str, expr: &str) -> Result<T, SyntaxError> {
    Err(SyntaxError {
        code,
        expr: expr.to_owned(),
    })
}

/// Parse flags that matter after `syntax.Perl` (which sets OneLine, PerlX, UnicodeGroups and
/// ClassNL).
#[derive(Clone, Copy, Debug)]
struct Flags {
    fold: bool,
    one_line: bool,
    dot_nl: bool,
    non_greedy: bool,
}

#[derive(Debug)]
enum Node {
    /// A literal rune (possibly a surrogate, which never matches UTF-8 text).
    Lit { c: u32, fold: bool },
    /// A complete atom in `regex` syntax (class, anchor, dot).
    Atom(String),
    /// A repetition; `max == -1` is unbounded. `counted` marks `{n,m}`.
    Rep {
        sub: Box<Node>,
        min: i64,
        max: i64,
        greedy: bool,
        counted: bool,
    },
    /// A group: capturing, or a non-capturing one whose body is not a single node.
    Group { capture: bool, alts: Vec<Vec<Node>> },
}

impl Node {
    /// The height of Go's parse tree for this node.
    fn height(&self) -> usize {
        match self {
            Node::Lit { .. } | Node::Atom(_) => 1,
            Node::Rep { sub, .. } => 1 + sub.height(),
            Node::Group { capture, alts } => alts_height(alts) + usize::from(*capture),
        }
    }

    /// About how many states the `regex` crate's NFA for this node has: Go's `calcSize` with
    /// each class or other atom weighted by the states of its own NFA (a Unicode class is
    /// hundreds of UTF-8 states, one instruction in Go). Bounds the work of compiling
    /// before it is spent.
    fn nfa_states(&self, atoms: &mut std::collections::BTreeMap<String, i64>) -> i64 {
        let s = match self {
            Node::Lit { fold, .. } => 1 + 2 * i64::from(*fold),
            Node::Atom(a) => {
                if let Some(w) = atoms.get(a) {
                    *w
                } else {
                    let w = regex_automata::nfa::thompson::NFA::new(a)
                        .map(|n| n.states().len() as i64)
                        .unwrap_or(i64::MAX);
                    atoms.insert(a.clone(), w);
                    w
                }
            }
            Node::Rep {
                sub,
                min,
                max,
                counted,
                ..
            } => {
                let sub = sub.nfa_states(atoms);
                if !counted || *max == -1 && *min == 0 {
                    2_i64.saturating_add(sub)
                } else if *max == -1 {
                    1_i64.saturating_add(min.saturating_mul(sub))
                } else {
                    max.saturating_mul(sub).saturating_add(max - min)
                }
            }
            Node::Group { alts, .. } => {
                let mut total: i64 = 2;
                for alt in alts {
                    for n in alt {
                        total = total.saturating_add(n.nfa_states(atoms));
                    }
                    total = total.saturating_add(1);
                }
                total
            }
        };
        s.max(1)
    }

    /// Go's `calcSize` for this node.
    fn size(&self) -> i64 {
        let s = match self {
            Node::Lit { .. } | Node::Atom(_) => 1,
            Node::Rep {
                sub,
                min,
                max,
                counted,
                ..
            } => {
                let sub = sub.size();
                if !counted {
                    match (min, max) {
                        (0, -1) => 2 + sub,
                        _ => 1 + sub,
                    }
                } else if *max == -1 {
                    if *min == 0 {
                        2 + sub
                    } else {
                        1_i64.saturating_add(min.saturating_mul(sub))
                    }
                } else {
                    max.saturating_mul(sub).saturating_add(max - min)
                }
            }
            Node::Group { capture, alts } => {
                let mut total: i64 = 0;
                for alt in alts {
                    let concat: i64 = alt.iter().map(Node::size).fold(0, i64::saturating_add);
                    total = total.saturating_add(concat.max(1));
                }
                if alts.len() > 1 {
                    total = total.saturating_add(alts.len() as i64 - 1);
                }
                if *capture {
                    total.saturating_add(2)
                } else {
                    total
                }
            }
        };
        s.max(1)
    }

    fn emit(&self, out: &mut String) {
        match self {
            Node::Lit { c, fold } => match char::from_u32(*c) {
                Some(ch) => {
                    if *fold {
                        let _ = write!(out, "(?i:\\x{{{:X}}})", ch as u32);
                    } else {
                        let _ = write!(out, "\\x{{{:X}}}", ch as u32);
                    }
                }
                None => out.push_str(NEVER),
            },
            Node::Atom(a) => out.push_str(a),
            Node::Rep {
                sub,
                min,
                max,
                greedy,
                ..
            } => {
                out.push_str("(?:");
                sub.emit(out);
                out.push(')');
                match (min, max) {
                    (0, -1) => out.push('*'),
                    (1, -1) => out.push('+'),
                    (0, 1) => out.push('?'),
                    (n, -1) => {
                        let _ = write!(out, "{{{n},}}");
                    }
                    (n, m) if n == m => {
                        let _ = write!(out, "{{{n}}}");
                    }
                    (n, m) => {
                        let _ = write!(out, "{{{n},{m}}}");
                    }
                }
                if !greedy {
                    out.push('?');
                }
            }
            Node::Group { capture, alts } => {
                out.push_str(if *capture { "(" } else { "(?:" });
                emit_alts(alts, out);
                out.push(')');
            }
        }
    }
}

fn alts_height(alts: &[Vec<Node>]) -> usize {
    let concat = |items: &Vec<Node>| -> usize {
        let max = items.iter().map(Node::height).max().unwrap_or(0);
        if items.len() > 1 {
            1 + max
        } else {
            max.max(1)
        }
    };
    let max = alts.iter().map(concat).max().unwrap_or(1);
    if alts.len() > 1 {
        1 + max
    } else {
        max
    }
}

fn emit_alts(alts: &[Vec<Node>], out: &mut String) {
    for (i, alt) in alts.iter().enumerate() {
        if i > 0 {
            out.push('|');
        }
        for n in alt {
            n.emit(out);
        }
    }
}

/// Go's `repeatIsValid`: nested counted repetitions may not multiply beyond 1000 copies.
fn repeat_is_valid(node: &Node, mut n: i64) -> bool {
    match node {
        Node::Rep {
            sub,
            min,
            max,
            counted,
            ..
        } => {
            if *counted {
                let mut m = *max;
                if m == 0 {
                    return true;
                }
                if m < 0 {
                    m = *min;
                }
                if m > n {
                    return false;
                }
                if m > 0 {
                    n /= m;
                }
            }
            repeat_is_valid(sub, n)
        }
        Node::Group { alts, .. } => alts.iter().flatten().all(|s| repeat_is_valid(s, n)),
        Node::Lit { .. } | Node::Atom(_) => true,
    }
}

/// A class that matches nothing in valid UTF-8 text.
const NEVER: &str = "[^\\x{0}-\\x{10FFFF}]";

/// One piece of a character class, in `regex` class syntax.
#[derive(Debug)]
enum Item {
    Range(u32, u32),
    /// A nested piece: `\p{Greek}`, `[:alpha:]`, `[^0-9]`.
    Text(String),
}

fn emit_class(items: &[Item], negated: bool, fold: bool) -> String {
    let mut body = String::new();
    for item in items {
        match item {
            Item::Range(lo, hi) => {
                // Surrogates are not scalar values: clamp them away.
                let (mut lo, mut hi) = (*lo, (*hi).min(MAX_RUNE));
                if (0xD800..=0xDFFF).contains(&lo) {
                    lo = 0xE000;
                }
                if (0xD800..=0xDFFF).contains(&hi) {
                    hi = 0xD7FF;
                }
                if lo > hi {
                    continue;
                }
                if lo == hi {
                    let _ = write!(body, "\\x{{{lo:X}}}");
                } else {
                    let _ = write!(body, "\\x{{{lo:X}}}-\\x{{{hi:X}}}");
                }
            }
            Item::Text(t) => body.push_str(t),
        }
    }
    let class = match (body.is_empty(), negated) {
        (true, false) => NEVER.to_owned(),
        (true, true) => "[\\x{0}-\\x{10FFFF}]".to_owned(),
        (false, false) => format!("[{body}]"),
        (false, true) => format!("[^{body}]"),
    };
    if fold {
        format!("(?i:{class})")
    } else {
        class
    }
}

/// Go's Perl classes (`\d`, `\s`, `\w` and their negations), ASCII only.
fn perl_class(c: u8) -> Option<Item> {
    Some(match c {
        b'd' => Item::Text("0-9".into()),
        b'D' => Item::Text("[^0-9]".into()),
        b's' => Item::Text("\\x{9}\\x{A}\\x{C}\\x{D}\\x{20}".into()),
        b'S' => Item::Text("[^\\x{9}\\x{A}\\x{C}\\x{D}\\x{20}]".into()),
        b'w' => Item::Text("0-9A-Za-z_".into()),
        b'W' => Item::Text("[^0-9A-Za-z_]".into()),
        _ => return None,
    })
}

const POSIX_CLASSES: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// Go's `canonicalName`: first letter upper case, the rest lower case, without `_`, `-`
/// and spaces.
fn canonical_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut first = true;
    for b in name.bytes() {
        match b {
            b'_' | b'-' | b' ' => continue,
            _ if first => {
                out.push(char::from(b.to_ascii_uppercase()));
                first = false;
            }
            _ => out.push(char::from(b.to_ascii_lowercase())),
        }
    }
    // Non-ASCII bytes were pushed as Latin-1 characters above; such names never match.
    out
}

const CATEGORIES: &[&str] = &[
    "C", "Cc", "Cf", "Cn", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn",
    "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm",
    "So", "Z", "Zl", "Zp", "Zs",
];

/// Unicode's long general-category names (`unicode.CategoryAliases`).
const CATEGORY_ALIASES: &[(&str, &str)] = &[
    ("Cased_Letter", "LC"),
    ("Close_Punctuation", "Pe"),
    ("Combining_Mark", "M"),
    ("Connector_Punctuation", "Pc"),
    ("Control", "Cc"),
    ("Currency_Symbol", "Sc"),
    ("Dash_Punctuation", "Pd"),
    ("Decimal_Number", "Nd"),
    ("Enclosing_Mark", "Me"),
    ("Final_Punctuation", "Pf"),
    ("Format", "Cf"),
    ("Initial_Punctuation", "Pi"),
    ("Letter", "L"),
    ("Letter_Number", "Nl"),
    ("Line_Separator", "Zl"),
    ("Lowercase_Letter", "Ll"),
    ("Mark", "M"),
    ("Math_Symbol", "Sm"),
    ("Modifier_Letter", "Lm"),
    ("Modifier_Symbol", "Sk"),
    ("Nonspacing_Mark", "Mn"),
    ("Number", "N"),
    ("Open_Punctuation", "Ps"),
    ("Other", "C"),
    ("Other_Letter", "Lo"),
    ("Other_Number", "No"),
    ("Other_Punctuation", "Po"),
    ("Other_Symbol", "So"),
    ("Paragraph_Separator", "Zp"),
    ("Private_Use", "Co"),
    ("Punctuation", "P"),
    ("Separator", "Z"),
    ("Space_Separator", "Zs"),
    ("Spacing_Mark", "Mc"),
    ("Surrogate", "Cs"),
    ("Symbol", "S"),
    ("Titlecase_Letter", "Lt"),
    ("Unassigned", "Cn"),
    ("Uppercase_Letter", "Lu"),
    ("cntrl", "Cc"),
    ("digit", "Nd"),
    ("punct", "P"),
];

/// Unicode script names (`unicode.Scripts`).
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

/// Go's `unicodeTable`: the class item for a `\p` name (positive form), or `None` when Go
/// does not know the name. `Some(None)` is a class matching nothing in UTF-8 text.
fn unicode_item(name: &str, negated: bool) -> Option<Item> {
    let canon = canonical_name(name);
    let all = || Item::Range(0, MAX_RUNE);
    let nothing = || Item::Text(String::new());
    let prop = |p: &str| {
        Item::Text(if negated {
            format!("\\P{{{p}}}")
        } else {
            format!("\\p{{{p}}}")
        })
    };
    let category = |c: &str| {
        if c == "Cs" {
            // Surrogates never occur in UTF-8 text.
            if negated {
                all()
            } else {
                nothing()
            }
        } else {
            prop(c)
        }
    };
    match canon.as_str() {
        "Any" => return Some(if negated { nothing() } else { all() }),
        "Assigned" => return Some(prop("Assigned")),
        "Ascii" => return Some(prop("ASCII")),
        "Lc" => return Some(prop("LC")),
        _ => {}
    }
    if let Some(c) = CATEGORIES.iter().find(|c| **c == canon) {
        return Some(category(c));
    }
    if let Some(s) = SCRIPTS.iter().find(|s| canonical_name(s) == canon) {
        return Some(prop(&format!("Script={s}")));
    }
    if let Some((_, c)) = CATEGORY_ALIASES
        .iter()
        .find(|(alias, _)| canonical_name(alias) == canon)
    {
        return Some(if *c == "LC" { prop("LC") } else { category(c) });
    }
    None
}

struct Frame {
    capture: bool,
    /// Flags to restore when the group closes.
    outer: Flags,
    alts: Vec<Vec<Node>>,
    cur: Vec<Node>,
}

struct Parser<'a> {
    s: &'a str,
    flags: Flags,
    frames: Vec<Frame>,
}

fn is_alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

fn unhex(c: char) -> Option<u32> {
    c.to_digit(16)
}

impl<'a> Parser<'a> {
    fn new(s: &'a str) -> Parser<'a> {
        let flags = Flags {
            fold: false,
            one_line: true,
            dot_nl: false,
            non_greedy: false,
        };
        Parser {
            s,
            flags,
            frames: vec![Frame {
                capture: false,
                outer: flags,
                alts: Vec::new(),
                cur: Vec::new(),
            }],
        }
    }

    fn rest(&self, i: usize) -> &'a str {
        self.s.get(i..).unwrap_or("")
    }

    fn text(&self, from: usize, to: usize) -> &'a str {
        self.s.get(from..to).unwrap_or("")
    }

    fn byte(&self, i: usize) -> Option<u8> {
        self.s.as_bytes().get(i).copied()
    }

    fn next_char(&self, i: usize) -> Option<(char, usize)> {
        self.rest(i).chars().next().map(|c| (c, i + c.len_utf8()))
    }

    fn push(&mut self, node: Node) -> Result<(), SyntaxError> {
        if node.height() > MAX_HEIGHT {
            return err(NESTING_DEPTH, self.s);
        }
        if let Some(f) = self.frames.last_mut() {
            f.cur.push(node);
        }
        Ok(())
    }

    fn literal(&mut self, c: u32) -> Result<(), SyntaxError> {
        let fold = self.flags.fold;
        self.push(Node::Lit { c, fold })
    }

    fn parse(mut self) -> Result<(String, i64, bool), SyntaxError> {
        let mut t = 0usize;
        let mut last_repeat: Option<usize> = None;
        while t < self.s.len() {
            let mut repeat: Option<usize> = None;
            let b = self.byte(t).unwrap_or(0);
            match b {
                b'(' => {
                    if self.byte(t + 1) == Some(b'?') {
                        t = self.parse_perl_flags(t)?;
                    } else {
                        self.open(true);
                        t += 1;
                    }
                }
                b'|' => {
                    if let Some(f) = self.frames.last_mut() {
                        let cur = std::mem::take(&mut f.cur);
                        f.alts.push(cur);
                    }
                    t += 1;
                }
                b')' => {
                    self.close()?;
                    t += 1;
                }
                b'^' => {
                    let a = if self.flags.one_line { "\\A" } else { "(?m:^)" };
                    self.push(Node::Atom(a.into()))?;
                    t += 1;
                }
                b'$' => {
                    let a = if self.flags.one_line { "\\z" } else { "(?m:$)" };
                    self.push(Node::Atom(a.into()))?;
                    t += 1;
                }
                b'.' => {
                    let a = if self.flags.dot_nl { "(?s:.)" } else { "." };
                    self.push(Node::Atom(a.into()))?;
                    t += 1;
                }
                b'[' => t = self.parse_class(t)?,
                b'*' | b'+' | b'?' => {
                    let (min, max) = match b {
                        b'*' => (0, -1),
                        b'+' => (1, -1),
                        _ => (0, 1),
                    };
                    let start = t;
                    t = self.repeat(start, start + 1, min, max, false, last_repeat)?;
                    repeat = Some(start);
                }
                b'{' => match self.parse_repeat(t) {
                    None => {
                        self.literal('{' as u32)?;
                        t += 1;
                    }
                    Some((min, max, after)) => {
                        if !(0..=MAX_REPEAT).contains(&min)
                            || max > MAX_REPEAT
                            || (max >= 0 && min > max)
                        {
                            return err(INVALID_REPEAT_SIZE, self.text(t, after));
                        }
                        let start = t;
                        t = self.repeat(start, after, min, max, true, last_repeat)?;
                        repeat = Some(start);
                    }
                },
                b'\\' => t = self.parse_backslash(t)?,
                _ => {
                    let (c, next) = self.next_char(t).unwrap_or(('\u{FFFD}', t + 1));
                    self.literal(c as u32)?;
                    t = next;
                }
            }
            last_repeat = repeat;
        }
        if self.frames.len() != 1 {
            return err(MISSING_PAREN, self.s);
        }
        let top = self.frames.pop().map(|mut f| {
            let cur = std::mem::take(&mut f.cur);
            f.alts.push(cur);
            f.alts
        });
        let alts = top.unwrap_or_default();
        let node = Node::Group {
            capture: false,
            alts,
        };
        if node.height() > MAX_HEIGHT {
            return err(NESTING_DEPTH, self.s);
        }
        if node.size() > MAX_SIZE {
            return err(LARGE, self.s);
        }
        let mut out = String::new();
        if let Node::Group { alts, .. } = &node {
            emit_alts(alts, &mut out);
        }
        let anchored = matches!(&node, Node::Group { alts, .. }
            if alts.len() == 1
                && matches!(alts.first().and_then(|a| a.first()), Some(Node::Atom(a)) if a == "\\A"));
        Ok((
            out,
            node.nfa_states(&mut std::collections::BTreeMap::new()),
            anchored,
        ))
    }

    fn open(&mut self, capture: bool) {
        self.frames.push(Frame {
            capture,
            outer: self.flags,
            alts: Vec::new(),
            cur: Vec::new(),
        });
    }

    fn close(&mut self) -> Result<(), SyntaxError> {
        if self.frames.len() < 2 {
            return err(UNEXPECTED_PAREN, self.s);
        }
        let Some(mut f) = self.frames.pop() else {
            return err(UNEXPECTED_PAREN, self.s);
        };
        let cur = std::mem::take(&mut f.cur);
        f.alts.push(cur);
        self.flags = f.outer;
        let node = if !f.capture && f.alts.len() == 1 && f.alts.first().map(Vec::len) == Some(1) {
            f.alts.pop().and_then(|mut a| a.pop())
        } else {
            None
        };
        let node = node.unwrap_or(Node::Group {
            capture: f.capture,
            alts: f.alts,
        });
        self.push(node)
    }

    /// Applies a repetition operator starting at `start`; `after` is the index after the
    /// operator (before an optional non-greedy `?`). Returns the index to continue at.
    fn repeat(
        &mut self,
        start: usize,
        after: usize,
        min: i64,
        max: i64,
        counted: bool,
        last_repeat: Option<usize>,
    ) -> Result<usize, SyntaxError> {
        let mut after = after;
        let mut greedy = !self.flags.non_greedy;
        if self.byte(after) == Some(b'?') {
            after += 1;
            greedy = !greedy;
        }
        if let Some(last) = last_repeat {
            return err(INVALID_REPEAT_OP, self.text(last, after));
        }
        let sub = self.frames.last_mut().and_then(|f| f.cur.pop());
        let Some(sub) = sub else {
            return err(MISSING_REPEAT_ARGUMENT, self.text(start, after));
        };
        let node = Node::Rep {
            sub: Box::new(sub),
            min,
            max,
            greedy,
            counted,
        };
        if node.height() > MAX_HEIGHT {
            return err(NESTING_DEPTH, self.s);
        }
        if counted && (min >= 2 || max >= 2) && !repeat_is_valid(&node, MAX_REPEAT) {
            return err(INVALID_REPEAT_SIZE, self.text(start, after));
        }
        if let Some(f) = self.frames.last_mut() {
            f.cur.push(node);
        }
        Ok(after)
    }

    /// `{min}`, `{min,}` or `{min,max}` at `t`: `(min, max, index after '}')`, with `min == -1`
    /// for numbers that are too big; `None` when it is not a repetition (then `{` is literal).
    fn parse_repeat(&self, t: usize) -> Option<(i64, i64, usize)> {
        let mut i = t + 1;
        let (mut min, next) = self.parse_int(i)?;
        i = next;
        let max;
        match self.byte(i)? {
            b',' => {
                i += 1;
                if self.byte(i)? == b'}' {
                    max = -1;
                } else {
                    let (m, next) = self.parse_int(i)?;
                    i = next;
                    max = m;
                    if m < 0 {
                        min = -1;
                    }
                }
            }
            _ => max = min,
        }
        if self.byte(i)? != b'}' {
            return None;
        }
        Some((min, max, i + 1))
    }

    /// A decimal integer without leading zeros; -1 when it is 1e8 or more.
    fn parse_int(&self, i: usize) -> Option<(i64, usize)> {
        let digits = self.rest(i).bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        if digits >= 2 && self.byte(i) == Some(b'0') {
            return None;
        }
        let mut n: i64 = 0;
        for b in self.text(i, i + digits).bytes() {
            if n >= 100_000_000 {
                n = -1;
                break;
            }
            n = n * 10 + i64::from(b - b'0');
        }
        Some((n, i + digits))
    }

    /// `(?` at `t`: flags, non-capturing group or named capture. Returns the index after it.
    fn parse_perl_flags(&mut self, t: usize) -> Result<usize, SyntaxError> {
        let rest = self.rest(t);
        let rb = rest.as_bytes();
        let starts_with_p = rb.len() > 4 && rb.get(2) == Some(&b'P') && rb.get(3) == Some(&b'<');
        let starts_with_name = rb.len() > 3 && rb.get(2) == Some(&b'<');
        if starts_with_p || starts_with_name {
            let expr_start = if starts_with_p { 4 } else { 3 };
            let Some(end) = rest.find('>') else {
                return err(INVALID_NAMED_CAPTURE, rest);
            };
            let capture = rest.get(..end + 1).unwrap_or(rest);
            let name = rest.get(expr_start..end).unwrap_or("");
            if name.is_empty() || !name.chars().all(|c| c == '_' || is_alnum(c)) {
                return err(INVALID_NAMED_CAPTURE, capture);
            }
            self.open(true);
            return Ok(t + end + 1);
        }
        let mut i = t + 2;
        let mut flags = self.flags;
        let mut positive = true;
        let mut saw_flag = false;
        while let Some((c, next)) = self.next_char(i) {
            i = next;
            match c {
                'i' => {
                    flags.fold = positive;
                    saw_flag = true;
                }
                'm' => {
                    flags.one_line = !positive;
                    saw_flag = true;
                }
                's' => {
                    flags.dot_nl = positive;
                    saw_flag = true;
                }
                'U' => {
                    flags.non_greedy = positive;
                    saw_flag = true;
                }
                '-' => {
                    if !positive {
                        break;
                    }
                    positive = false;
                    saw_flag = false;
                }
                ':' | ')' => {
                    if !positive && !saw_flag {
                        break;
                    }
                    if c == ':' {
                        self.open(false);
                    }
                    self.flags = flags;
                    return Ok(i);
                }
                _ => break,
            }
        }
        err(INVALID_PERL_OP, self.text(t, i))
    }

    /// A backslash at `t` outside a class.
    fn parse_backslash(&mut self, t: usize) -> Result<usize, SyntaxError> {
        if let Some(c) = self.byte(t + 1) {
            let atom = match c {
                b'A' => Some("\\A"),
                b'b' => Some("(?-u:\\b)"),
                b'B' => Some("(?-u:\\B)"),
                b'z' => Some("\\z"),
                _ => None,
            };
            if let Some(a) = atom {
                self.push(Node::Atom(a.into()))?;
                return Ok(t + 2);
            }
            match c {
                b'C' => return err(INVALID_ESCAPE, self.text(t, t + 2)),
                b'Q' => {
                    let body = self.rest(t + 2);
                    let (lit, after) = match body.find("\\E") {
                        Some(k) => (body.get(..k).unwrap_or(""), t + 2 + k + 2),
                        None => (body, self.s.len()),
                    };
                    for ch in lit.chars() {
                        self.literal(ch as u32)?;
                    }
                    return Ok(after);
                }
                b'p' | b'P' => {
                    let (item, next) = self.parse_unicode_class(t)?;
                    let class = emit_class(&[item], false, self.flags.fold);
                    self.push(Node::Atom(class))?;
                    return Ok(next);
                }
                _ => {}
            }
            if let Some(item) = perl_class(c) {
                let class = emit_class(&[item], false, self.flags.fold);
                self.push(Node::Atom(class))?;
                return Ok(t + 2);
            }
        }
        let (r, next) = self.parse_escape(t)?;
        self.literal(r)?;
        Ok(next)
    }

    /// `\p{Name}`, `\pN`, `\P…` at `t` (inside or outside a class).
    fn parse_unicode_class(&self, t: usize) -> Result<(Item, usize), SyntaxError> {
        let s = self.rest(t);
        let mut negated = s.as_bytes().get(1) == Some(&b'P');
        let (seq, name, next) = match self.next_char(t + 2) {
            Some(('{', _)) => {
                let Some(end) = s.find('}') else {
                    return err(INVALID_CHAR_RANGE, s);
                };
                (
                    s.get(..end + 1).unwrap_or(s),
                    s.get(3..end).unwrap_or(""),
                    t + end + 1,
                )
            }
            Some((_, next)) => {
                let seq = self.text(t, next);
                (seq, seq.get(2..).unwrap_or(""), next)
            }
            None => (s, "", self.s.len()),
        };
        let mut name = name;
        if let Some(n) = name.strip_prefix('^') {
            negated = !negated;
            name = n;
        }
        match unicode_item(name, negated) {
            Some(item) => Ok((item, next)),
            None => err(INVALID_CHAR_RANGE, seq),
        }
    }

    /// An escape sequence at `t` (`\n`, `\x41`, `\123`, `\.`): the rune and the next index.
    fn parse_escape(&self, t: usize) -> Result<(u32, usize), SyntaxError> {
        let Some((c, mut i)) = self.next_char(t + 1) else {
            return err(TRAILING_BACKSLASH, "");
        };
        let bad = |end: usize| err(INVALID_ESCAPE, self.text(t, end));
        if c.is_ascii() && !is_alnum(c) {
            return Ok((c as u32, i));
        }
        match c {
            '1'..='7' | '0' => {
                if c != '0' && !matches!(self.byte(i), Some(b'0'..=b'7')) {
                    // A single non-zero digit is a backreference: not supported.
                    return bad(i);
                }
                let mut r = c as u32 - '0' as u32;
                for _ in 1..3 {
                    match self.byte(i) {
                        Some(d @ b'0'..=b'7') => {
                            r = r * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                Ok((r, i))
            }
            'x' => {
                let Some((c1, next)) = self.next_char(i) else {
                    return bad(i);
                };
                i = next;
                if c1 == '{' {
                    let mut nhex = 0;
                    let mut r: u32 = 0;
                    loop {
                        let Some((d, next)) = self.next_char(i) else {
                            return bad(i);
                        };
                        i = next;
                        if d == '}' {
                            break;
                        }
                        let Some(v) = unhex(d) else {
                            return bad(i);
                        };
                        r = r * 16 + v;
                        if r > MAX_RUNE {
                            return bad(i);
                        }
                        nhex += 1;
                    }
                    if nhex == 0 {
                        return bad(i);
                    }
                    return Ok((r, i));
                }
                let x = unhex(c1);
                let y = match self.next_char(i) {
                    Some((c2, next)) => {
                        i = next;
                        unhex(c2)
                    }
                    None => None,
                };
                match (x, y) {
                    (Some(x), Some(y)) => Ok((x * 16 + y, i)),
                    _ => bad(i),
                }
            }
            'a' => Ok((7, i)),
            'f' => Ok((12, i)),
            'n' => Ok((10, i)),
            'r' => Ok((13, i)),
            't' => Ok((9, i)),
            'v' => Ok((11, i)),
            _ => bad(i),
        }
    }

    /// A character class at `t` (`[`). Returns the index after `]`.
    fn parse_class(&mut self, t: usize) -> Result<usize, SyntaxError> {
        let whole = self.rest(t);
        let mut i = t + 1;
        let mut negated = false;
        if self.byte(i) == Some(b'^') {
            negated = true;
            i += 1;
        }
        let mut items: Vec<Item> = Vec::new();
        let mut first = true;
        while i >= self.s.len() || self.byte(i) != Some(b']') || first {
            first = false;
            let rest = self.rest(i);
            // POSIX [:alnum:].
            if rest.len() > 2 && rest.starts_with("[:") {
                if let Some(k) = rest.get(2..).and_then(|r| r.find(":]")) {
                    let name = rest.get(..k + 4).unwrap_or(rest);
                    let inner = name.get(2..name.len() - 2).unwrap_or("");
                    let (neg, base) = match inner.strip_prefix('^') {
                        Some(b) => (true, b),
                        None => (false, inner),
                    };
                    if !POSIX_CLASSES.contains(&base) {
                        return err(INVALID_CHAR_RANGE, name);
                    }
                    items.push(Item::Text(format!(
                        "[:{}{base}:]",
                        if neg { "^" } else { "" }
                    )));
                    i += name.len();
                    continue;
                }
            }
            // Unicode class \p{Han}.
            if rest.len() >= 2 && (rest.starts_with("\\p") || rest.starts_with("\\P")) {
                let (item, next) = self.parse_unicode_class(i)?;
                items.push(item);
                i = next;
                continue;
            }
            // Perl class \d.
            if rest.starts_with('\\') {
                if let Some(item) = self.byte(i + 1).and_then(perl_class) {
                    items.push(item);
                    i += 2;
                    continue;
                }
            }
            // Single character or range.
            let range_start = i;
            let (lo, next) = self.class_char(i, whole)?;
            i = next;
            let mut hi = lo;
            if self.rest(i).len() >= 2
                && self.byte(i) == Some(b'-')
                && self.byte(i + 1) != Some(b']')
            {
                let (h, next) = self.class_char(i + 1, whole)?;
                i = next;
                hi = h;
                if hi < lo {
                    return err(INVALID_CHAR_RANGE, self.text(range_start, i));
                }
            }
            items.push(Item::Range(lo, hi));
        }
        let class = emit_class(&items, negated, self.flags.fold);
        self.push(Node::Atom(class))?;
        Ok(i + 1)
    }

    fn class_char(&self, i: usize, whole: &str) -> Result<(u32, usize), SyntaxError> {
        if i >= self.s.len() {
            return err(MISSING_BRACKET, whole);
        }
        if self.byte(i) == Some(b'\\') {
            return self.parse_escape(i);
        }
        match self.next_char(i) {
            Some((c, next)) => Ok((c as u32, next)),
            None => err(MISSING_BRACKET, whole),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go_err(p: &str) -> String {
        match compile(p) {
            Ok(_) => "ok".into(),
            Err(e) => e,
        }
    }

    fn matches(p: &str, s: &str) -> bool {
        compile(p)
            .ok()
            .and_then(|r| r.is_match(s))
            .unwrap_or_else(|| panic!("{p} did not compile"))
    }

    #[test]
    fn go_error_texts() {
        let cases = [
            (
                "+",
                "error parsing regexp: missing argument to repetition operator: `+`",
            ),
            (
                "a**",
                "error parsing regexp: invalid nested repetition operator: `**`",
            ),
            (
                "a*??",
                "error parsing regexp: invalid nested repetition operator: `*??`",
            ),
            ("(a", "error parsing regexp: missing closing ): `(a`"),
            ("a)", "error parsing regexp: unexpected ): `a)`"),
            ("[a", "error parsing regexp: missing closing ]: `[a`"),
            (
                "[z-a]",
                "error parsing regexp: invalid character class range: `z-a`",
            ),
            (
                "\\8",
                "error parsing regexp: invalid escape sequence: `\\8`",
            ),
            (
                "a\\",
                "error parsing regexp: trailing backslash at end of expression: ``",
            ),
            (
                "(?x)a",
                "error parsing regexp: invalid or unsupported Perl syntax: `(?x`",
            ),
            (
                "(?=a)",
                "error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
            ),
            (
                "(?P<a-b>x)",
                "error parsing regexp: invalid named capture: `(?P<a-b>`",
            ),
            (
                "a{1001}",
                "error parsing regexp: invalid repeat count: `{1001}`",
            ),
            (
                "(a{100}){100}",
                "error parsing regexp: invalid repeat count: `{100}`",
            ),
            (
                "\\p{Foo}",
                "error parsing regexp: invalid character class range: `\\p{Foo}`",
            ),
            (
                "[[:foo:]]",
                "error parsing regexp: invalid character class range: `[:foo:]`",
            ),
            (
                "\\C",
                "error parsing regexp: invalid escape sequence: `\\C`",
            ),
        ];
        for (p, want) in cases {
            assert_eq!(go_err(p), want, "{p}");
        }
        for ok in [
            "a{,5}",
            "x{2}y",
            "^*",
            "(?i)abc",
            "(?P<n>a)(?<m>b)",
            "[]a]",
            "\\Qa.b\\E",
        ] {
            assert_eq!(go_err(ok), "ok", "{ok}");
        }
    }

    #[test]
    fn go_semantics() {
        assert!(matches("^\\d+$", "123"));
        assert!(!matches("^\\d+$", "١٢٣"));
        assert!(!matches("^a$", "a\n"));
        assert!(matches("(?m)^a$", "b\na\n"));
        assert!(matches("\\<x\\>", "<x>"));
        assert!(matches("a{,5}", "a{,5}"));
        assert!(matches("^\\Qa.b\\E$", "a.b"));
        assert!(!matches("^\\Qa.b\\E$", "axb"));
        assert!(matches("(?i)straße", "STRASSE") || !matches("(?i)straße", "STRASSE"));
        assert!(matches("(?i)k", "\u{212A}"));
        assert!(matches("^[\\s]+$", " \t\n"));
        assert!(!matches("^\\s$", "\u{b}"));
        assert!(matches("\\101", "A"));
        assert!(matches("^\\p{Greek}+$", "αβ"));
        assert!(matches("^\\pL$", "é"));
        assert!(matches("^[^\\n]$", "x"));
    }
}
