//! The recognizer: a hand-written recursive-descent parser for cel-go's `CEL.g4` that follows
//! the ANTLR-generated parser's control flow (rules, `sync` points, predictions, single-token
//! insertion and deletion, rule-level recovery) so that syntax errors read as cel-go's do.
//! It builds a concrete syntax tree ([`Cst`]) in an arena; `visit` turns it into the AST.
//!
//! Nesting is bounded as cel-go's parse listener bounds it (each grammar rule may be active at
//! most `max_recursion_depth` times), which also bounds this parser's own recursion.

use crate::lexer::{quote_token_text, LexError, Tok, TokSet, Token};
use crate::source::{Location, Source};

pub(crate) type N = u32;

/// A token reference: index into [`Recognizer::toks`].
pub(crate) type T = usize;

/// List elements: the `?` token if any, and the element.
type ListElems = Vec<(Option<T>, Option<N>)>;

/// How an escaped-or-simple identifier came out.
#[derive(Debug, Clone, Copy)]
pub(crate) enum EscId {
    Simple(T),
    Escaped(T),
    /// The rule failed before matching; the token is the rule's start token.
    Failed(T),
}

/// Kinds of literal alternatives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LitKind {
    Int,
    Uint,
    Double,
    String,
    Bytes,
    True,
    False,
    Null,
}

/// One optional-field entry of a message literal.
#[derive(Debug, Clone, Default)]
pub(crate) struct FieldInit {
    /// (start token of optField, `?` token, escape ident if invoked)
    pub fields: Vec<(T, Option<T>, Option<EscId>)>,
    pub cols: Vec<T>,
    pub values: Vec<Option<N>>,
    pub start: T,
}

/// Map literal entries.
#[derive(Debug, Clone, Default)]
pub(crate) struct MapInit {
    /// (start token of optExpr, `?` token, expr)
    pub keys: Vec<(T, Option<T>, Option<N>)>,
    pub cols: Vec<T>,
    pub values: Vec<Option<N>>,
}

/// Concrete syntax nodes: the ANTLR contexts the visitor distinguishes, after "unnesting".
#[derive(Debug, Clone)]
pub(crate) enum Node {
    Ternary {
        cond: Option<N>,
        op: T,
        e1: Option<N>,
        e2: Option<N>,
    },
    Logic {
        and: bool,
        start: T,
        first: Option<N>,
        ops: Vec<T>,
        rest: Vec<Option<N>>,
    },
    Binary {
        lhs: Option<N>,
        op: T,
        rhs: Option<N>,
    },
    Not {
        first: T,
        count: usize,
        member: Option<N>,
    },
    Neg {
        first: T,
        count: usize,
        member: Option<N>,
    },
    UnaryError {
        start: T,
    },
    Select {
        operand: Option<N>,
        op: T,
        opt: Option<T>,
        id: Option<EscId>,
    },
    MemberCall {
        operand: Option<N>,
        start: T,
        id: Option<T>,
        open: Option<T>,
        args: Option<Vec<Option<N>>>,
    },
    Index {
        operand: Option<N>,
        op: T,
        opt: Option<T>,
        index: Option<N>,
    },
    Ident {
        start: T,
        dot: bool,
        id: Option<T>,
    },
    GlobalCall {
        start: T,
        dot: bool,
        id: Option<T>,
        op: Option<T>,
        args: Option<Vec<Option<N>>>,
    },
    List {
        op: T,
        elems: ListElems,
    },
    Map {
        op: T,
        entries: Option<MapInit>,
    },
    Message {
        dot: bool,
        ids: Vec<T>,
        op: Option<T>,
        fields: Option<FieldInit>,
    },
    Literal {
        kind: LitKind,
        start: T,
        sign: Option<T>,
        tok: Option<T>,
    },
    Unknown,
}

/// What the parse produced: the arena, the root, and the tokens.
pub(crate) struct Cst {
    pub nodes: Vec<Node>,
    pub root: Option<N>,
    pub toks: Vec<Token>,
}

/// The recognizer's result.
pub(crate) struct Outcome {
    pub cst: Cst,
    pub aborted: bool,
    pub syntax: Vec<(Location, String)>,
    pub internal: Vec<String>,
}

/// Options the recognizer needs.
pub(crate) struct RecognizerLimits {
    pub max_depth: u32,
    pub error_recovery_limit: u32,
    pub lookahead_limit: u32,
    pub error_reporting_limit: u32,
}

/// Abort: a limit was hit (the errors are already reported).
pub(crate) struct Abort;

enum Fail {
    Abort,
    Mismatch {
        expected: TokSet,
        state: u32,
    },
    NoViable {
        start: usize,
        offending: usize,
        state: u32,
    },
}

impl From<Abort> for Fail {
    fn from(_: Abort) -> Self {
        Fail::Abort
    }
}

/// The follow of a rule invocation (what may come after it in the caller) or the lookahead of
/// a state within a rule: tokens, and whether the rule's end is reachable (epsilon).
#[derive(Debug, Clone, Copy)]
struct Local {
    set: TokSet,
    eps: bool,
}

const fn l(set: TokSet, eps: bool) -> Local {
    Local { set, eps }
}

const EXPR_START: TokSet = TokSet::of(&[
    Tok::LBracket,
    Tok::LBrace,
    Tok::LParen,
    Tok::Dot,
    Tok::Minus,
    Tok::Exclam,
    Tok::True,
    Tok::False,
    Tok::Null,
    Tok::NumFloat,
    Tok::NumInt,
    Tok::NumUint,
    Tok::String,
    Tok::Bytes,
    Tok::Identifier,
]);
const MEMBER_START: TokSet = TokSet::of(&[
    Tok::LBracket,
    Tok::LBrace,
    Tok::LParen,
    Tok::Dot,
    Tok::Minus,
    Tok::True,
    Tok::False,
    Tok::Null,
    Tok::NumFloat,
    Tok::NumInt,
    Tok::NumUint,
    Tok::String,
    Tok::Bytes,
    Tok::Identifier,
]);
const LITERAL_START: TokSet = TokSet::of(&[
    Tok::Minus,
    Tok::True,
    Tok::False,
    Tok::Null,
    Tok::NumFloat,
    Tok::NumInt,
    Tok::NumUint,
    Tok::String,
    Tok::Bytes,
]);
const RELOPS: TokSet = TokSet::of(&[
    Tok::Equals,
    Tok::NotEquals,
    Tok::In,
    Tok::Less,
    Tok::LessEquals,
    Tok::GreaterEquals,
    Tok::Greater,
]);
const MULOPS: TokSet = TokSet::of(&[Tok::Star, Tok::Slash, Tok::Percent]);
const ADDOPS: TokSet = TokSet::of(&[Tok::Plus, Tok::Minus]);
const CALCOPS: TokSet = MULOPS.with(ADDOPS);
const OPT_EXPR_START: TokSet = EXPR_START.with(TokSet::of(&[Tok::Question]));
const ESC_START: TokSet = TokSet::of(&[Tok::Identifier, Tok::EscIdentifier]);
const OPT_FIELD_START: TokSet = ESC_START.with(TokSet::of(&[Tok::Question]));
const DOT_BRACKET: TokSet = TokSet::of(&[Tok::Dot, Tok::LBracket]);
const NONE: TokSet = TokSet::EMPTY;

fn one(t: Tok) -> TokSet {
    TokSet(1u64 << (t as u8))
}

// Rule indices (for the nesting counters, as cel-go's recursion listener counts them).
const R_EXPR: usize = 1;
const R_OR: usize = 2;
const R_AND: usize = 3;
const R_REL: usize = 4;
const R_CALC: usize = 5;
const R_UNARY: usize = 6;
const R_MEMBER: usize = 7;
const R_PRIMARY: usize = 8;
const R_EXPRLIST: usize = 9;
const R_LISTINIT: usize = 10;
const R_FIELDINIT: usize = 11;
const R_OPTFIELD: usize = 12;
const R_MAPINIT: usize = 13;
const R_ESCIDENT: usize = 14;
const R_OPTEXPR: usize = 15;
const R_LITERAL: usize = 16;

/// The recognizer state.
pub(crate) struct Recognizer<'a> {
    src: &'a Source,
    chars: &'a [char],
    pub toks: Vec<Token>,
    /// Indices of the on-channel tokens (EOF last).
    vis: Vec<usize>,
    /// Position in `vis`.
    pos: usize,
    pub nodes: Vec<Node>,
    follow: Vec<Local>,
    depth: [u32; 17],
    limits: RecognizerLimits,
    /// Reported errors: (location, message).
    pub errors: Vec<(Location, String)>,
    /// Internal (location-less) errors, such as the nesting limit.
    pub internal: Vec<String>,
    syntax_reports: u32,
    recovery_mode: bool,
    last_error_index: Option<usize>,
    last_error_states: Vec<u32>,
    recovery_attempts: u32,
    lookahead_consumed: u32,
    /// The lexer's errors, reported when the token after each is first fetched, as ANTLR's
    /// token stream does.
    lex_errors: Vec<LexError>,
    next_lex: usize,
    /// The lexer's errors hit the error limit: the parse stops.
    lex_abort: bool,
}

enum Step {
    Ok,
    Err(Fail),
}

impl<'a> Recognizer<'a> {
    pub fn new(
        src: &'a Source,
        chars: &'a [char],
        toks: Vec<Token>,
        lex_errors: Vec<LexError>,
        limits: RecognizerLimits,
    ) -> Self {
        let vis = toks
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.hidden)
            .map(|(i, _)| i)
            .collect();
        Recognizer {
            src,
            chars,
            toks,
            vis,
            pos: 0,
            nodes: Vec::new(),
            follow: Vec::new(),
            depth: [0; 17],
            limits,
            errors: Vec::new(),
            internal: Vec::new(),
            syntax_reports: 0,
            recovery_mode: false,
            last_error_index: None,
            last_error_states: Vec::new(),
            recovery_attempts: 0,
            lookahead_consumed: 0,
            lex_errors,
            next_lex: 0,
            lex_abort: false,
        }
    }

    /// Reports the lexer errors that precede token `idx` (fetching it, as ANTLR's token
    /// stream reports them while lexing ahead for the parser).
    fn fetch(&mut self, idx: usize) {
        while let Some(e) = self.lex_errors.get(self.next_lex) {
            if e.before_token > idx {
                break;
            }
            let (line, col, msg) = (e.line, e.column, e.message.clone());
            self.next_lex += 1;
            if !self.lex_abort && self.syntax_error_at(line, col, msg).is_err() {
                self.lex_abort = true;
            }
        }
    }

    /// Parses `start: expr EOF`: the tree, whether the parse was aborted, the syntax errors and
    /// the internal (location-less) errors.
    pub fn run(mut self) -> Outcome {
        self.cur();
        let mut root = if self.lex_abort {
            Err(Abort)
        } else {
            self.start()
        };
        if root.is_ok() {
            // Matching EOF fetched every token.
            self.fetch(usize::MAX);
            if self.lex_abort {
                root = Err(Abort);
            }
        }
        Outcome {
            aborted: root.is_err(),
            cst: Cst {
                nodes: self.nodes,
                root: root.unwrap_or(None),
                toks: self.toks,
            },
            syntax: self.errors,
            internal: self.internal,
        }
    }

    // ----- token stream -----

    fn tok_at(&mut self, k: usize) -> T {
        let i = (self.pos + k).min(self.vis.len().saturating_sub(1));
        let idx = self.vis.get(i).copied().unwrap_or(0);
        if self.next_lex < self.lex_errors.len() {
            self.fetch(idx);
        }
        idx
    }

    fn la(&mut self, k: usize) -> Tok {
        let t = self.tok_at(k);
        self.toks.get(t).map_or(Tok::Eof, |t| t.kind)
    }

    fn la1(&mut self) -> Tok {
        self.la(0)
    }

    fn cur(&mut self) -> T {
        self.tok_at(0)
    }

    fn consume(&mut self) -> T {
        let t = self.cur();
        if self.la1() != Tok::Eof {
            self.pos += 1;
            self.cur();
        }
        t
    }

    fn counted_consume(&mut self) -> Result<T, Fail> {
        if self.lookahead_consumed >= self.limits.lookahead_limit {
            self.internal.push(format!(
                "error recovery token lookahead limit exceeded: {}",
                self.limits.lookahead_limit
            ));
            return Err(Fail::Abort);
        }
        self.lookahead_consumed += 1;
        Ok(self.consume())
    }

    fn push(&mut self, n: Node) -> N {
        self.nodes.push(n);
        u32::try_from(self.nodes.len() - 1).unwrap_or(u32::MAX)
    }

    fn node_mut(&mut self, n: N) -> Option<&mut Node> {
        self.nodes.get_mut(n as usize)
    }

    /// The source text of tokens `from..=to` (hidden ones included), as ANTLR's
    /// `TokenStream.getText(start, stop)`.
    fn text_between(&self, from: T, to: T) -> String {
        let mut out = String::new();
        for t in self.toks.get(from..=to.max(from)).unwrap_or(&[]) {
            if t.kind == Tok::Eof {
                break;
            }
            out.push_str(&self.tok_text(t));
        }
        out
    }

    fn tok_text(&self, t: &Token) -> String {
        if t.conjured {
            return if t.kind == Tok::Eof {
                "<missing EOF>".to_string()
            } else {
                format!("<missing {}>", t.kind.display_name())
            };
        }
        self.chars
            .get(t.start..t.end)
            .unwrap_or(&[])
            .iter()
            .collect()
    }

    fn tok_display(&self, t: T) -> String {
        match self.toks.get(t) {
            Some(tok) if tok.kind == Tok::Eof && !tok.conjured => "'<EOF>'".to_string(),
            Some(tok) => quote_token_text(&self.tok_text(tok)),
            None => "'<EOF>'".to_string(),
        }
    }

    // ----- errors -----

    fn syntax_error_at(&mut self, line: i32, col: i32, msg: String) -> Result<(), Abort> {
        let offset = self.src.compute_offset(line, col);
        let loc = self.src.location_of_offset(offset);
        if self.syntax_reports < self.limits.error_reporting_limit {
            self.syntax_reports += 1;
            self.errors.push((loc, format!("Syntax error: {msg}")));
            Ok(())
        } else {
            self.errors.push((
                loc,
                format!(
                    "Syntax error: More than {} syntax errors",
                    self.limits.error_reporting_limit
                ),
            ));
            Err(Abort)
        }
    }

    fn notify(&mut self, t: T, msg: String) -> Result<(), Abort> {
        if self.lex_abort {
            return Err(Abort);
        }
        let (line, col) = self
            .toks
            .get(t)
            .map_or((1, 0), |tok| (tok.line, tok.column));
        self.syntax_error_at(line, col, msg)
    }

    /// `getExpectedTokens` for a state with lookahead `local`.
    fn expected(&self, local: Local) -> TokSet {
        let mut set = local.set;
        if !local.eps {
            return set;
        }
        for f in self.follow.iter().rev() {
            set = set.with(f.set);
            if !f.eps {
                return set;
            }
        }
        set.with(one(Tok::Eof))
    }

    fn recovery_set(&self) -> TokSet {
        self.follow
            .iter()
            .fold(TokSet::EMPTY, |acc, f| acc.with(f.set))
    }

    fn begin_error(&mut self) {
        self.recovery_mode = true;
    }

    fn end_error(&mut self) {
        self.recovery_mode = false;
        self.last_error_states.clear();
        self.last_error_index = None;
    }

    fn report_unwanted(&mut self, expected: TokSet) -> Result<(), Abort> {
        if self.recovery_mode {
            return Ok(());
        }
        self.begin_error();
        let t = self.cur();
        let msg = format!(
            "extraneous input {} expecting {}",
            self.tok_display(t),
            expected.display()
        );
        self.notify(t, msg)
    }

    fn report_missing(&mut self, expected: TokSet) -> Result<(), Abort> {
        if self.recovery_mode {
            return Ok(());
        }
        self.begin_error();
        let t = self.cur();
        let msg = format!("missing {} at {}", expected.display(), self.tok_display(t));
        self.notify(t, msg)
    }

    fn check_attempts(&mut self) -> Result<(), Fail> {
        if self.recovery_attempts == self.limits.error_recovery_limit {
            self.recovery_attempts += 1;
            let msg = format!(
                "error recovery attempt limit exceeded: {}",
                self.limits.error_recovery_limit
            );
            let t = self.cur();
            self.notify(t, msg)?;
            return Err(Fail::Abort);
        }
        self.recovery_attempts += 1;
        Ok(())
    }

    /// Reports a recognition error caught at a rule, unless already recovering.
    #[inline(never)]
    #[cold]
    fn report_error(&mut self, f: &Fail) -> Result<(), Abort> {
        if self.recovery_mode {
            return Ok(());
        }
        self.begin_error();
        match f {
            Fail::Abort => Ok(()),
            Fail::Mismatch { expected, .. } => {
                let t = self.cur();
                let msg = format!(
                    "mismatched input {} expecting {}",
                    self.tok_display(t),
                    expected.display()
                );
                self.notify(t, msg)
            }
            Fail::NoViable {
                start, offending, ..
            } => {
                let st = self.vis.get(*start).copied().unwrap_or(0);
                let off = self
                    .vis
                    .get(*offending)
                    .copied()
                    .unwrap_or_else(|| self.vis.last().copied().unwrap_or(0));
                let input = if self.toks.get(st).is_none_or(|t| t.kind == Tok::Eof) {
                    "<EOF>".to_string()
                } else {
                    // ANTLR's getText fills the token stream first: every remaining lexer
                    // error is reported before this one.
                    self.fetch(usize::MAX);
                    self.text_between(st, off)
                };
                let mut msg = format!(
                    "no viable alternative at input {}",
                    quote_token_text(&input)
                );
                // cel-go rewrites "no viable alternative at input '.true'" (any one character
                // before true/false/null) for reserved words used as identifiers.
                msg = rewrite_reserved(&msg);
                self.notify(off, msg)
            }
        }
    }

    /// The rule-level `recover`: skip to a token in the recovery set.
    #[inline(never)]
    #[cold]
    fn recover(&mut self, state: u32) -> Result<(), Abort> {
        match self.recover_inner(state) {
            Ok(()) => Ok(()),
            Err(_) => Err(Abort),
        }
    }

    fn recover_inner(&mut self, state: u32) -> Result<(), Fail> {
        self.check_attempts()?;
        self.lookahead_consumed = 0;
        if self.last_error_index == Some(self.pos) && self.last_error_states.contains(&state) {
            self.counted_consume()?;
        }
        self.last_error_index = Some(self.pos);
        self.last_error_states.push(state);
        let set = self.recovery_set();
        while self.la1() != Tok::Eof && !set.has(self.la1()) {
            self.counted_consume()?;
        }
        Ok(())
    }

    /// `sync` before a decision.
    #[inline(always)]
    fn sync(&mut self, state: u32, local: Local, loop_back: bool) -> Result<(), Fail> {
        if self.recovery_mode || local.eps || local.set.has(self.la1()) {
            return Ok(());
        }
        self.sync_slow(state, local, loop_back)
    }

    #[inline(never)]
    #[cold]
    fn sync_slow(&mut self, state: u32, local: Local, loop_back: bool) -> Result<(), Fail> {
        if loop_back {
            self.report_unwanted(local.set)?;
            let set = local.set.with(self.recovery_set());
            while self.la1() != Tok::Eof && !set.has(self.la1()) {
                self.consume();
            }
            return Ok(());
        }
        if local.set.has(self.la(1)) {
            self.report_unwanted(local.set)?;
            self.consume();
            self.end_error();
            return Ok(());
        }
        Err(Fail::Mismatch {
            expected: local.set,
            state,
        })
    }

    /// `match(t)`: `after` is the lookahead after `t` (for single-token insertion).
    #[inline(always)]
    fn expect(&mut self, t: Tok, after: Local, state: u32) -> Result<T, Fail> {
        if self.la1() == t {
            self.end_error();
            return Ok(self.consume());
        }
        self.expect_slow(t, after, state)
    }

    #[inline(never)]
    #[cold]
    fn expect_slow(&mut self, t: Tok, after: Local, state: u32) -> Result<T, Fail> {
        self.check_attempts()?;
        self.lookahead_consumed = 0;
        let expected = one(t);
        if self.la(1) == t {
            self.report_unwanted(expected)?;
            self.counted_consume()?;
            self.end_error();
            return self.counted_consume();
        }
        if self.expected(after).has(self.la1()) {
            self.report_missing(expected)?;
            let c = self.cur();
            let cur = self.toks.get(c).copied();
            if let Some(c) = cur {
                self.toks.push(Token {
                    kind: t,
                    start: c.start,
                    end: c.start,
                    line: c.line,
                    column: c.column,
                    hidden: true,
                    conjured: true,
                });
                return Ok(self.toks.len() - 1);
            }
        }
        Err(Fail::Mismatch { expected, state })
    }

    fn enter(&mut self, rule: usize, follow: Local) -> Result<(), Abort> {
        self.cur();
        if self.lex_abort {
            return Err(Abort);
        }
        if let Some(d) = self.depth.get_mut(rule) {
            *d += 1;
            if *d > self.limits.max_depth {
                self.internal.push(format!(
                    "expression recursion limit exceeded: {}",
                    self.limits.max_depth
                ));
                return Err(Abort);
            }
        }
        self.follow.push(follow);
        Ok(())
    }

    fn exit(&mut self, rule: usize) {
        if let Some(d) = self.depth.get_mut(rule) {
            *d = d.saturating_sub(1);
        }
        self.follow.pop();
    }

    /// Runs a rule body with ANTLR's catch: report, recover, return what was built.
    #[inline(always)]
    fn rule<R>(
        &mut self,
        rule: usize,
        follow: Local,
        init: R,
        body: impl FnOnce(&mut Self, &mut R) -> Result<(), Fail>,
    ) -> Result<R, Abort> {
        self.enter(rule, follow)?;
        let mut out = init;
        let r = body(self, &mut out);
        let step = match r {
            Ok(()) => Step::Ok,
            Err(f) => Step::Err(f),
        };
        if let Step::Err(f) = step {
            if let Fail::Abort = f {
                self.exit(rule);
                return Err(Abort);
            }
            let state = match &f {
                Fail::Mismatch { state, .. } | Fail::NoViable { state, .. } => *state,
                Fail::Abort => 0,
            };
            let rep = self.report_error(&f);
            if rep.is_err() {
                self.exit(rule);
                return Err(Abort);
            }
            if self.recover(state).is_err() {
                self.exit(rule);
                return Err(Abort);
            }
        }
        self.exit(rule);
        Ok(out)
    }

    #[inline(always)]
    fn lift(r: Result<Option<N>, Abort>) -> Result<Option<N>, Fail> {
        r.map_err(|_| Fail::Abort)
    }

    // ----- rules -----

    fn start(&mut self) -> Result<Option<N>, Abort> {
        // start: expr EOF (its context has no invoking state, so no follow frame).
        let e = self.expr(l(one(Tok::Eof), false))?;
        if self.la1() != Tok::Eof {
            let r = self.expect(Tok::Eof, l(NONE, false), 1);
            if let Err(f) = r {
                if let Fail::Abort = f {
                    return Err(Abort);
                }
                self.report_error(&f)?;
                self.recover(1)?;
            }
        }
        Ok(e)
    }

    fn expr(&mut self, follow: Local) -> Result<Option<N>, Abort> {
        struct S {
            cond: Option<N>,
            op: Option<T>,
            e1: Option<N>,
            e2: Option<N>,
        }
        let s = self.rule(
            R_EXPR,
            follow,
            S {
                cond: None,
                op: None,
                e1: None,
                e2: None,
            },
            |p, s| {
                s.cond = Self::lift(p.cond_or(l(one(Tok::Question), true)))?;
                p.sync(line!(), l(one(Tok::Question), true), false)?;
                if p.la1() == Tok::Question {
                    s.op = Some(p.expect(Tok::Question, l(EXPR_START, false), 2)?);
                    s.e1 = Self::lift(p.cond_or(l(one(Tok::Colon), false)))?;
                    p.expect(Tok::Colon, l(EXPR_START, false), 3)?;
                    s.e2 = Self::lift(p.expr(l(NONE, true)))?;
                }
                Ok(())
            },
        )?;
        Ok(match s.op {
            None => s.cond,
            Some(op) => Some(self.push(Node::Ternary {
                cond: s.cond,
                op,
                e1: s.e1,
                e2: s.e2,
            })),
        })
    }

    fn logic(&mut self, and: bool, follow: Local) -> Result<Option<N>, Abort> {
        let (rule, op) = if and {
            (R_AND, Tok::LogicalAnd)
        } else {
            (R_OR, Tok::LogicalOr)
        };
        let start = self.cur();
        struct S {
            first: Option<N>,
            ops: Vec<T>,
            rest: Vec<Option<N>>,
        }
        let s = self.rule(
            rule,
            follow,
            S {
                first: None,
                ops: Vec::new(),
                rest: Vec::new(),
            },
            |p, s| {
                let sub = |p: &mut Self| {
                    if and {
                        p.relation(0, l(one(op), true))
                    } else {
                        p.logic(true, l(one(op), true))
                    }
                };
                s.first = Self::lift(sub(p))?;
                p.sync(line!(), l(one(op), true), false)?;
                while p.la1() == op {
                    s.ops.push(p.expect(op, l(EXPR_START, false), 4)?);
                    s.rest.push(Self::lift(sub(p))?);
                    p.sync(line!(), l(one(op), true), false)?;
                }
                Ok(())
            },
        )?;
        if s.ops.is_empty() {
            return Ok(s.first);
        }
        Ok(Some(self.push(Node::Logic {
            and,
            start,
            first: s.first,
            ops: s.ops,
            rest: s.rest,
        })))
    }

    fn cond_or(&mut self, follow: Local) -> Result<Option<N>, Abort> {
        self.logic(false, follow)
    }

    fn relation(&mut self, prec: u8, follow: Local) -> Result<Option<N>, Abort> {
        let s = self.rule(R_REL, follow, None::<N>, |p, cur| {
            *cur = Self::lift(p.calc(0, l(RELOPS, true)))?;
            loop {
                p.sync(line!(), l(RELOPS, true), false)?;
                if !(RELOPS.has(p.la1()) && prec <= 1) {
                    break;
                }
                p.end_error();
                let op = p.consume();
                let node = p.push(Node::Binary {
                    lhs: *cur,
                    op,
                    rhs: None,
                });
                *cur = Some(node);
                let rhs = Self::lift(p.relation(2, l(RELOPS, true)))?;
                if let Some(Node::Binary { rhs: r, .. }) = p.node_mut(node) {
                    *r = rhs;
                }
            }
            Ok(())
        })?;
        Ok(s)
    }

    fn calc(&mut self, prec: u8, follow: Local) -> Result<Option<N>, Abort> {
        let s = self.rule(R_CALC, follow, None::<N>, |p, cur| {
            *cur = Self::lift(p.unary(l(CALCOPS, true)))?;
            loop {
                p.sync(line!(), l(CALCOPS, true), false)?;
                let la = p.la1();
                let next_prec = if MULOPS.has(la) && prec <= 2 {
                    3
                } else if ADDOPS.has(la) && prec <= 1 {
                    2
                } else {
                    break;
                };
                p.end_error();
                let op = p.consume();
                let node = p.push(Node::Binary {
                    lhs: *cur,
                    op,
                    rhs: None,
                });
                *cur = Some(node);
                let rhs = Self::lift(p.calc(next_prec, l(CALCOPS, true)))?;
                if let Some(Node::Binary { rhs: r, .. }) = p.node_mut(node) {
                    *r = rhs;
                }
            }
            Ok(())
        })?;
        Ok(s)
    }

    fn unary(&mut self, follow: Local) -> Result<Option<N>, Abort> {
        let start = self.cur();
        // None: no alternative chosen (VisitUnary's "<<error>>").
        let s = self.rule(R_UNARY, follow, None::<Option<N>>, |p, out| {
            p.sync(1005, l(EXPR_START, false), false)?;
            let la1 = p.la1();
            let alt = match la1 {
                Tok::Exclam => 2,
                Tok::Minus => match p.la(1) {
                    Tok::NumInt | Tok::NumFloat => 1,
                    t if MEMBER_START.has(t) => 3,
                    _ => {
                        return Err(Fail::NoViable {
                            start: p.pos,
                            offending: p.pos + 1,
                            state: 1005,
                        })
                    }
                },
                t if MEMBER_START.has(t) => 1,
                _ => {
                    return Err(Fail::NoViable {
                        start: p.pos,
                        offending: p.pos,
                        state: 1005,
                    })
                }
            };
            match alt {
                1 => {
                    *out = Some(Self::lift(p.member(l(NONE, true)))?);
                }
                2 => {
                    let first = p.cur();
                    let node = p.push(Node::Not {
                        first,
                        count: 0,
                        member: None,
                    });
                    *out = Some(Some(node));
                    let mut count = 0;
                    loop {
                        p.expect(
                            Tok::Exclam,
                            l(MEMBER_START.with(one(Tok::Exclam)), false),
                            6,
                        )?;
                        count += 1;
                        if let Some(Node::Not { count: c, .. }) = p.node_mut(node) {
                            *c = count;
                        }
                        p.sync(line!(), l(MEMBER_START.with(one(Tok::Exclam)), false), true)?;
                        if p.la1() != Tok::Exclam {
                            break;
                        }
                    }
                    let m = Self::lift(p.member(l(NONE, true)))?;
                    if let Some(Node::Not { member, .. }) = p.node_mut(node) {
                        *member = m;
                    }
                }
                _ => {
                    let first = p.cur();
                    let node = p.push(Node::Neg {
                        first,
                        count: 0,
                        member: None,
                    });
                    *out = Some(Some(node));
                    let mut count = 0;
                    loop {
                        p.expect(Tok::Minus, l(MEMBER_START, false), 7)?;
                        count += 1;
                        if let Some(Node::Neg { count: c, .. }) = p.node_mut(node) {
                            *c = count;
                        }
                        p.sync(1008, l(MEMBER_START, false), true)?;
                        // Decision 7: another '-' (ambiguity with a negative literal resolves
                        // to looping), or exit to member.
                        match p.la1() {
                            Tok::Minus => match p.la(1) {
                                t if MEMBER_START.has(t) => continue,
                                _ => {
                                    return Err(Fail::NoViable {
                                        start: p.pos,
                                        offending: p.pos + 1,
                                        state: 1008,
                                    })
                                }
                            },
                            t if MEMBER_START.has(t) => break,
                            _ => {
                                return Err(Fail::NoViable {
                                    start: p.pos,
                                    offending: p.pos,
                                    state: 1008,
                                })
                            }
                        }
                    }
                    let m = Self::lift(p.member(l(NONE, true)))?;
                    if let Some(Node::Neg { member, .. }) = p.node_mut(node) {
                        *member = m;
                    }
                }
            }
            Ok(())
        })?;
        Ok(match s {
            Some(n) => n,
            None => Some(self.push(Node::UnaryError { start })),
        })
    }

    fn member(&mut self, follow: Local) -> Result<Option<N>, Abort> {
        let s = self.rule(R_MEMBER, follow, None::<N>, |p, cur| {
            *cur = Self::lift(p.primary(l(DOT_BRACKET, true)))?;
            loop {
                p.sync(line!(), l(DOT_BRACKET, true), false)?;
                if !DOT_BRACKET.has(p.la1()) {
                    break;
                }
                p.sync(1009, l(DOT_BRACKET, false), false)?;
                let alt = match p.la1() {
                    Tok::LBracket => 3,
                    _ => match p.la(1) {
                        Tok::Question | Tok::EscIdentifier => 1,
                        Tok::Identifier => {
                            if p.la(2) == Tok::LParen {
                                2
                            } else {
                                1
                            }
                        }
                        _ => {
                            return Err(Fail::NoViable {
                                start: p.pos,
                                offending: p.pos + 1,
                                state: 1009,
                            })
                        }
                    },
                };
                match alt {
                    1 => {
                        let op = p.expect(Tok::Dot, l(OPT_FIELD_START, false), 10)?;
                        let node = p.push(Node::Select {
                            operand: *cur,
                            op,
                            opt: None,
                            id: None,
                        });
                        *cur = Some(node);
                        p.sync(line!(), l(OPT_FIELD_START, false), false)?;
                        if p.la1() == Tok::Question {
                            let q = p.expect(Tok::Question, l(ESC_START, false), 11)?;
                            if let Some(Node::Select { opt, .. }) = p.node_mut(node) {
                                *opt = Some(q);
                            }
                        }
                        let e = p
                            .escape_ident(l(DOT_BRACKET, true))
                            .map_err(|_| Fail::Abort)?;
                        if let Some(Node::Select { id, .. }) = p.node_mut(node) {
                            *id = Some(e);
                        }
                    }
                    2 => {
                        let start = p.cur();
                        let node = p.push(Node::MemberCall {
                            operand: *cur,
                            start,
                            id: None,
                            open: None,
                            args: None,
                        });
                        *cur = Some(node);
                        p.expect(Tok::Dot, l(one(Tok::Identifier), false), 12)?;
                        let idt = p.expect(Tok::Identifier, l(one(Tok::LParen), false), 13)?;
                        if let Some(Node::MemberCall { id, .. }) = p.node_mut(node) {
                            *id = Some(idt);
                        }
                        let o =
                            p.expect(Tok::LParen, l(EXPR_START.with(one(Tok::RParen)), false), 14)?;
                        if let Some(Node::MemberCall { open, .. }) = p.node_mut(node) {
                            *open = Some(o);
                        }
                        p.sync(line!(), l(EXPR_START.with(one(Tok::RParen)), false), false)?;
                        if EXPR_START.has(p.la1()) {
                            let a = p
                                .expr_list(l(one(Tok::RParen), false))
                                .map_err(|_| Fail::Abort)?;
                            if let Some(Node::MemberCall { args, .. }) = p.node_mut(node) {
                                *args = Some(a);
                            }
                        }
                        p.expect(Tok::RParen, l(DOT_BRACKET, true), 15)?;
                    }
                    _ => {
                        let op = p.expect(Tok::LBracket, l(OPT_EXPR_START, false), 16)?;
                        let node = p.push(Node::Index {
                            operand: *cur,
                            op,
                            opt: None,
                            index: None,
                        });
                        *cur = Some(node);
                        p.sync(line!(), l(OPT_EXPR_START, false), false)?;
                        if p.la1() == Tok::Question {
                            let q = p.expect(Tok::Question, l(EXPR_START, false), 17)?;
                            if let Some(Node::Index { opt, .. }) = p.node_mut(node) {
                                *opt = Some(q);
                            }
                        }
                        let e = Self::lift(p.expr(l(one(Tok::RBracket), false)))?;
                        if let Some(Node::Index { index, .. }) = p.node_mut(node) {
                            *index = e;
                        }
                        p.expect(Tok::RBracket, l(DOT_BRACKET, true), 18)?;
                    }
                }
            }
            Ok(())
        })?;
        Ok(s)
    }

    fn primary(&mut self, follow: Local) -> Result<Option<N>, Abort> {
        let s = self.rule(R_PRIMARY, follow, None::<N>, |p, out| {
            p.sync(1019, l(MEMBER_START, false), false)?;
            let start = p.cur();
            let la1 = p.la1();
            // Prediction (alternatives 1 Ident, 2 GlobalCall, 3 Nested, 4 list, 5 map,
            // 6 message, 7 literal).
            let alt = match la1 {
                Tok::LParen => 3,
                Tok::LBracket => 4,
                Tok::LBrace => 5,
                t if LITERAL_START.has(t) => 7,
                Tok::Dot | Tok::Identifier => {
                    let mut i = usize::from(la1 == Tok::Dot);
                    if p.la(i) != Tok::Identifier {
                        return Err(Fail::NoViable {
                            start: p.pos,
                            offending: p.pos + i,
                            state: 1019,
                        });
                    }
                    i += 1;
                    match p.la(i) {
                        Tok::LParen => 2,
                        Tok::LBrace => 6,
                        _ => {
                            while p.la(i) == Tok::Dot && p.la(i + 1) == Tok::Identifier {
                                i += 2;
                            }
                            if p.la(i) == Tok::LBrace {
                                6
                            } else {
                                1
                            }
                        }
                    }
                }
                _ => {
                    return Err(Fail::NoViable {
                        start: p.pos,
                        offending: p.pos,
                        state: 1019,
                    })
                }
            };
            match alt {
                1 | 2 => {
                    let node = p.push(if alt == 1 {
                        Node::Ident {
                            start,
                            dot: false,
                            id: None,
                        }
                    } else {
                        Node::GlobalCall {
                            start,
                            dot: false,
                            id: None,
                            op: None,
                            args: None,
                        }
                    });
                    *out = Some(node);
                    p.sync(
                        line!(),
                        l(TokSet::of(&[Tok::Dot, Tok::Identifier]), false),
                        false,
                    )?;
                    if p.la1() == Tok::Dot {
                        p.expect(Tok::Dot, l(one(Tok::Identifier), false), 20)?;
                        match p.node_mut(node) {
                            Some(Node::Ident { dot, .. }) | Some(Node::GlobalCall { dot, .. }) => {
                                *dot = true
                            }
                            _ => {}
                        }
                    }
                    let after = if alt == 1 {
                        l(NONE, true)
                    } else {
                        l(one(Tok::LParen), false)
                    };
                    let idt = p.expect(Tok::Identifier, after, 21)?;
                    match p.node_mut(node) {
                        Some(Node::Ident { id, .. }) | Some(Node::GlobalCall { id, .. }) => {
                            *id = Some(idt)
                        }
                        _ => {}
                    }
                    if alt == 2 {
                        let o =
                            p.expect(Tok::LParen, l(EXPR_START.with(one(Tok::RParen)), false), 22)?;
                        if let Some(Node::GlobalCall { op, .. }) = p.node_mut(node) {
                            *op = Some(o);
                        }
                        p.sync(line!(), l(EXPR_START.with(one(Tok::RParen)), false), false)?;
                        if EXPR_START.has(p.la1()) {
                            let a = p
                                .expr_list(l(one(Tok::RParen), false))
                                .map_err(|_| Fail::Abort)?;
                            if let Some(Node::GlobalCall { args, .. }) = p.node_mut(node) {
                                *args = Some(a);
                            }
                        }
                        p.expect(Tok::RParen, l(NONE, true), 23)?;
                    }
                }
                3 => {
                    p.expect(Tok::LParen, l(EXPR_START, false), 24)?;
                    *out = Self::lift(p.expr(l(one(Tok::RParen), false)))?;
                    p.expect(Tok::RParen, l(NONE, true), 25)?;
                }
                4 => {
                    let op = p.expect(
                        Tok::LBracket,
                        l(
                            OPT_EXPR_START.with(TokSet::of(&[Tok::Comma, Tok::RBracket])),
                            false,
                        ),
                        26,
                    )?;
                    let node = p.push(Node::List {
                        op,
                        elems: Vec::new(),
                    });
                    *out = Some(node);
                    let close = TokSet::of(&[Tok::Comma, Tok::RBracket]);
                    p.sync(line!(), l(OPT_EXPR_START.with(close), false), false)?;
                    if OPT_EXPR_START.has(p.la1()) {
                        let elems = p.list_init(l(close, false)).map_err(|_| Fail::Abort)?;
                        if let Some(Node::List { elems: e, .. }) = p.node_mut(node) {
                            *e = elems;
                        }
                    }
                    p.sync(line!(), l(close, false), false)?;
                    if p.la1() == Tok::Comma {
                        p.expect(Tok::Comma, l(one(Tok::RBracket), false), 27)?;
                    }
                    p.expect(Tok::RBracket, l(NONE, true), 28)?;
                }
                5 => {
                    let op = p.expect(
                        Tok::LBrace,
                        l(
                            OPT_EXPR_START.with(TokSet::of(&[Tok::Comma, Tok::RBrace])),
                            false,
                        ),
                        29,
                    )?;
                    let node = p.push(Node::Map { op, entries: None });
                    *out = Some(node);
                    let close = TokSet::of(&[Tok::Comma, Tok::RBrace]);
                    p.sync(line!(), l(OPT_EXPR_START.with(close), false), false)?;
                    if OPT_EXPR_START.has(p.la1()) {
                        let m = p.map_init(l(close, false)).map_err(|_| Fail::Abort)?;
                        if let Some(Node::Map { entries, .. }) = p.node_mut(node) {
                            *entries = Some(m);
                        }
                    }
                    p.sync(line!(), l(close, false), false)?;
                    if p.la1() == Tok::Comma {
                        p.expect(Tok::Comma, l(one(Tok::RBrace), false), 30)?;
                    }
                    p.expect(Tok::RBrace, l(NONE, true), 31)?;
                }
                6 => {
                    let node = p.push(Node::Message {
                        dot: false,
                        ids: Vec::new(),
                        op: None,
                        fields: None,
                    });
                    *out = Some(node);
                    p.sync(
                        line!(),
                        l(TokSet::of(&[Tok::Dot, Tok::Identifier]), false),
                        false,
                    )?;
                    if p.la1() == Tok::Dot {
                        p.expect(Tok::Dot, l(one(Tok::Identifier), false), 32)?;
                        if let Some(Node::Message { dot, .. }) = p.node_mut(node) {
                            *dot = true;
                        }
                    }
                    let path_next = TokSet::of(&[Tok::Dot, Tok::LBrace]);
                    let first = p.expect(Tok::Identifier, l(path_next, false), 33)?;
                    if let Some(Node::Message { ids, .. }) = p.node_mut(node) {
                        ids.push(first);
                    }
                    p.sync(line!(), l(path_next, false), false)?;
                    while p.la1() == Tok::Dot {
                        p.expect(Tok::Dot, l(one(Tok::Identifier), false), 34)?;
                        let id = p.expect(Tok::Identifier, l(path_next, false), 35)?;
                        if let Some(Node::Message { ids, .. }) = p.node_mut(node) {
                            ids.push(id);
                        }
                        p.sync(line!(), l(path_next, false), true)?;
                    }
                    let close = TokSet::of(&[Tok::Comma, Tok::RBrace]);
                    let o = p.expect(Tok::LBrace, l(OPT_FIELD_START.with(close), false), 36)?;
                    if let Some(Node::Message { op, .. }) = p.node_mut(node) {
                        *op = Some(o);
                    }
                    p.sync(line!(), l(OPT_FIELD_START.with(close), false), false)?;
                    if OPT_FIELD_START.has(p.la1()) {
                        let f = p.field_init(l(close, false)).map_err(|_| Fail::Abort)?;
                        if let Some(Node::Message { fields, .. }) = p.node_mut(node) {
                            *fields = Some(f);
                        }
                    }
                    p.sync(line!(), l(close, false), false)?;
                    if p.la1() == Tok::Comma {
                        p.expect(Tok::Comma, l(one(Tok::RBrace), false), 37)?;
                    }
                    p.expect(Tok::RBrace, l(NONE, true), 38)?;
                }
                _ => {
                    *out = Self::lift(p.literal(l(NONE, true)))?;
                }
            }
            Ok(())
        })?;
        Ok(Some(match s {
            Some(n) => n,
            None => self.push(Node::Unknown),
        }))
    }

    fn expr_list(&mut self, follow: Local) -> Result<Vec<Option<N>>, Abort> {
        self.rule(R_EXPRLIST, follow, Vec::new(), |p, out| {
            out.push(Self::lift(p.expr(l(one(Tok::Comma), true)))?);
            p.sync(line!(), l(one(Tok::Comma), true), false)?;
            while p.la1() == Tok::Comma {
                p.expect(Tok::Comma, l(EXPR_START, false), 39)?;
                out.push(Self::lift(p.expr(l(one(Tok::Comma), true)))?);
                p.sync(line!(), l(one(Tok::Comma), true), false)?;
            }
            Ok(())
        })
    }

    fn opt_expr(&mut self, follow: Local) -> Result<(T, Option<T>, Option<N>), Abort> {
        let start = self.cur();
        self.rule(R_OPTEXPR, follow, (start, None, None), |p, out| {
            p.sync(line!(), l(OPT_EXPR_START, false), false)?;
            if p.la1() == Tok::Question {
                out.1 = Some(p.expect(Tok::Question, l(EXPR_START, false), 40)?);
            }
            out.2 = Self::lift(p.expr(l(NONE, true)))?;
            Ok(())
        })
    }

    fn list_init(&mut self, follow: Local) -> Result<ListElems, Abort> {
        self.rule(R_LISTINIT, follow, Vec::new(), |p, out| {
            let (_, q, e) = p
                .opt_expr(l(one(Tok::Comma), true))
                .map_err(|_| Fail::Abort)?;
            out.push((q, e));
            loop {
                p.sync(line!(), l(one(Tok::Comma), true), false)?;
                if !(p.la1() == Tok::Comma && OPT_EXPR_START.has(p.la(1))) {
                    break;
                }
                p.expect(Tok::Comma, l(OPT_EXPR_START, false), 41)?;
                let (_, q, e) = p
                    .opt_expr(l(one(Tok::Comma), true))
                    .map_err(|_| Fail::Abort)?;
                out.push((q, e));
            }
            Ok(())
        })
    }

    fn map_init(&mut self, follow: Local) -> Result<MapInit, Abort> {
        self.rule(R_MAPINIT, follow, MapInit::default(), |p, m| {
            loop {
                let k = p
                    .opt_expr(l(one(Tok::Colon), false))
                    .map_err(|_| Fail::Abort)?;
                m.keys.push(k);
                m.cols.push(p.expect(Tok::Colon, l(EXPR_START, false), 42)?);
                m.values.push(Self::lift(p.expr(l(one(Tok::Comma), true)))?);
                p.sync(line!(), l(one(Tok::Comma), true), false)?;
                if !(p.la1() == Tok::Comma && OPT_EXPR_START.has(p.la(1))) {
                    break;
                }
                p.expect(Tok::Comma, l(OPT_EXPR_START, false), 43)?;
            }
            Ok(())
        })
    }

    fn field_init(&mut self, follow: Local) -> Result<FieldInit, Abort> {
        let start = self.cur();
        self.rule(
            R_FIELDINIT,
            follow,
            FieldInit {
                start,
                ..FieldInit::default()
            },
            |p, f| {
                loop {
                    let of = p
                        .opt_field(l(one(Tok::Colon), false))
                        .map_err(|_| Fail::Abort)?;
                    f.fields.push(of);
                    f.cols.push(p.expect(Tok::Colon, l(EXPR_START, false), 44)?);
                    f.values.push(Self::lift(p.expr(l(one(Tok::Comma), true)))?);
                    p.sync(line!(), l(one(Tok::Comma), true), false)?;
                    if !(p.la1() == Tok::Comma && OPT_FIELD_START.has(p.la(1))) {
                        break;
                    }
                    p.expect(Tok::Comma, l(OPT_FIELD_START, false), 45)?;
                }
                Ok(())
            },
        )
    }

    fn opt_field(&mut self, follow: Local) -> Result<(T, Option<T>, Option<EscId>), Abort> {
        let start = self.cur();
        self.rule(R_OPTFIELD, follow, (start, None, None), |p, out| {
            p.sync(line!(), l(OPT_FIELD_START, false), false)?;
            if p.la1() == Tok::Question {
                out.1 = Some(p.expect(Tok::Question, l(ESC_START, false), 46)?);
            }
            out.2 = Some(p.escape_ident(l(NONE, true)).map_err(|_| Fail::Abort)?);
            Ok(())
        })
    }

    fn escape_ident(&mut self, follow: Local) -> Result<EscId, Abort> {
        let start = self.cur();
        self.rule(R_ESCIDENT, follow, EscId::Failed(start), |p, out| {
            p.sync(1049, l(ESC_START, false), false)?;
            match p.la1() {
                Tok::Identifier => {
                    *out = EscId::Simple(p.expect(Tok::Identifier, l(NONE, true), 47)?);
                }
                Tok::EscIdentifier => {
                    *out = EscId::Escaped(p.expect(Tok::EscIdentifier, l(NONE, true), 48)?);
                }
                _ => {
                    return Err(Fail::NoViable {
                        start: p.pos,
                        offending: p.pos,
                        state: 1049,
                    })
                }
            }
            Ok(())
        })
    }

    fn literal(&mut self, follow: Local) -> Result<Option<N>, Abort> {
        let start = self.cur();
        let s = self.rule(R_LITERAL, follow, None::<N>, |p, out| {
            p.sync(1050, l(LITERAL_START, false), false)?;
            let kind = match p.la1() {
                Tok::Minus => match p.la(1) {
                    Tok::NumInt => LitKind::Int,
                    Tok::NumFloat => LitKind::Double,
                    _ => {
                        return Err(Fail::NoViable {
                            start: p.pos,
                            offending: p.pos + 1,
                            state: 1050,
                        })
                    }
                },
                Tok::NumInt => LitKind::Int,
                Tok::NumUint => LitKind::Uint,
                Tok::NumFloat => LitKind::Double,
                Tok::String => LitKind::String,
                Tok::Bytes => LitKind::Bytes,
                Tok::True => LitKind::True,
                Tok::False => LitKind::False,
                Tok::Null => LitKind::Null,
                _ => {
                    return Err(Fail::NoViable {
                        start: p.pos,
                        offending: p.pos,
                        state: 1050,
                    })
                }
            };
            let node = p.push(Node::Literal {
                kind,
                start,
                sign: None,
                tok: None,
            });
            *out = Some(node);
            let tok_kind = match kind {
                LitKind::Int => Tok::NumInt,
                LitKind::Uint => Tok::NumUint,
                LitKind::Double => Tok::NumFloat,
                LitKind::String => Tok::String,
                LitKind::Bytes => Tok::Bytes,
                LitKind::True => Tok::True,
                LitKind::False => Tok::False,
                LitKind::Null => Tok::Null,
            };
            if matches!(kind, LitKind::Int | LitKind::Double) {
                p.sync(
                    line!(),
                    l(TokSet::of(&[Tok::Minus, tok_kind]), false),
                    false,
                )?;
                if p.la1() == Tok::Minus {
                    let s = p.expect(Tok::Minus, l(one(tok_kind), false), 51)?;
                    if let Some(Node::Literal { sign, .. }) = p.node_mut(node) {
                        *sign = Some(s);
                    }
                }
            }
            let t = p.expect(tok_kind, l(NONE, true), 52)?;
            if let Some(Node::Literal { tok, .. }) = p.node_mut(node) {
                *tok = Some(t);
            }
            Ok(())
        })?;
        Ok(Some(match s {
            Some(n) => n,
            None => self.push(Node::Unknown),
        }))
    }
}

/// cel-go's rewrite of "no viable alternative at input '?true'" (any one character, then
/// true/false/null) into "mismatched input 'true' expecting IDENTIFIER".
fn rewrite_reserved(msg: &str) -> String {
    const PREFIX: &str = "no viable alternative at input '";
    let mut out = String::new();
    let mut rest = msg;
    while let Some(i) = rest.find(PREFIX) {
        let (before, after) = rest.split_at(i);
        out.push_str(before);
        let tail = after.get(PREFIX.len()..).unwrap_or("");
        let mut chars = tail.chars();
        let replaced = chars.next().filter(|c| *c != '\n').and_then(|_| {
            let t = chars.as_str();
            ["true", "false", "null"].iter().find_map(|w| {
                t.strip_prefix(w)
                    .and_then(|r| r.strip_prefix('\''))
                    .map(|r| (*w, r))
            })
        });
        match replaced {
            Some((w, r)) => {
                out.push_str(&format!("mismatched input '{w}' expecting IDENTIFIER"));
                rest = r;
            }
            None => {
                out.push_str(PREFIX);
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_rewrite() {
        assert_eq!(
            rewrite_reserved("no viable alternative at input '.true'"),
            "mismatched input 'true' expecting IDENTIFIER"
        );
        assert_eq!(
            rewrite_reserved("no viable alternative at input '. true'"),
            "no viable alternative at input '. true'"
        );
        assert_eq!(
            rewrite_reserved("no viable alternative at input 'x'"),
            "no viable alternative at input 'x'"
        );
    }
}
