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

/// A rule that runs on the explicit frame stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    Expr,
    Or,
    And,
    /// `relation` with its precedence argument.
    Rel(u8),
    /// `calc` with its precedence argument.
    Calc(u8),
    Unary,
    Member,
    Primary,
    ExprList,
    ListInit,
    MapInit,
    FieldInit,
    OptExpr,
}

impl Rule {
    fn index(self) -> usize {
        match self {
            Rule::Expr => R_EXPR,
            Rule::Or => R_OR,
            Rule::And => R_AND,
            Rule::Rel(_) => R_REL,
            Rule::Calc(_) => R_CALC,
            Rule::Unary => R_UNARY,
            Rule::Member => R_MEMBER,
            Rule::Primary => R_PRIMARY,
            Rule::ExprList => R_EXPRLIST,
            Rule::ListInit => R_LISTINIT,
            Rule::MapInit => R_MAPINIT,
            Rule::FieldInit => R_FIELDINIT,
            Rule::OptExpr => R_OPTEXPR,
        }
    }
}

/// What a rule invocation has built so far.
enum Data {
    Expr {
        cond: Option<N>,
        op: Option<T>,
        e1: Option<N>,
        e2: Option<N>,
    },
    Logic {
        and: bool,
        first: Option<N>,
        ops: Vec<T>,
        rest: Vec<Option<N>>,
    },
    /// Left-recursive rules: the expression so far, and the node awaiting its operand.
    Chain {
        cur: Option<N>,
        node: Option<N>,
    },
    Unary {
        /// `None`: no alternative was chosen (VisitUnary's "<<error>>").
        out: Option<Option<N>>,
        node: Option<N>,
    },
    Primary {
        out: Option<N>,
    },
    Exprs(Vec<Option<N>>),
    Elems(ListElems),
    Map(MapInit),
    Fields(FieldInit),
    OptExpr(Option<T>, Option<N>),
}

/// One rule invocation on the frame stack.
struct Frame {
    rule: Rule,
    /// Where to resume after a sub-rule returns (0: the rule's start).
    state: u8,
    /// The rule's start token.
    start: T,
    data: Data,
}

impl Frame {
    fn new(rule: Rule, start: T) -> Self {
        let data = match rule {
            Rule::Expr => Data::Expr {
                cond: None,
                op: None,
                e1: None,
                e2: None,
            },
            Rule::Or | Rule::And => Data::Logic {
                and: rule == Rule::And,
                first: None,
                ops: Vec::new(),
                rest: Vec::new(),
            },
            Rule::Rel(_) | Rule::Calc(_) | Rule::Member => Data::Chain {
                cur: None,
                node: None,
            },
            Rule::Unary => Data::Unary {
                out: None,
                node: None,
            },
            Rule::Primary => Data::Primary { out: None },
            Rule::ExprList => Data::Exprs(Vec::new()),
            Rule::ListInit => Data::Elems(Vec::new()),
            Rule::MapInit => Data::Map(MapInit::default()),
            Rule::FieldInit => Data::Fields(FieldInit {
                start,
                ..FieldInit::default()
            }),
            Rule::OptExpr => Data::OptExpr(None, None),
        };
        Frame {
            rule,
            state: 0,
            start,
            data,
        }
    }
}

/// What a finished rule hands back to its caller.
enum Ret {
    None,
    Node(Option<N>),
    Exprs(Vec<Option<N>>),
    Elems(ListElems),
    Map(MapInit),
    Fields(FieldInit),
    OptExpr(T, Option<T>, Option<N>),
}

impl Ret {
    fn node(self) -> Option<N> {
        match self {
            Ret::Node(n) => n,
            _ => None,
        }
    }
    fn exprs(self) -> Vec<Option<N>> {
        match self {
            Ret::Exprs(v) => v,
            _ => Vec::new(),
        }
    }
    fn elems(self) -> ListElems {
        match self {
            Ret::Elems(v) => v,
            _ => Vec::new(),
        }
    }
    fn map(self) -> MapInit {
        match self {
            Ret::Map(m) => m,
            _ => MapInit::default(),
        }
    }
    fn fields(self) -> FieldInit {
        match self {
            Ret::Fields(f) => f,
            _ => FieldInit::default(),
        }
    }
    fn opt_expr(self) -> (T, Option<T>, Option<N>) {
        match self {
            Ret::OptExpr(s, q, e) => (s, q, e),
            _ => (0, None, None),
        }
    }
}

/// What one step of a rule asks the driver to do.
enum Ctl {
    /// Invoke a rule with this follow, then resume the caller at this state.
    Call(Rule, Local, u8),
    /// The rule is finished.
    Done,
    /// A recognition error (caught by this rule) or an abort.
    Fail(Fail),
}

/// `?` for steps: a failure ends the step with [`Ctl::Fail`].
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(f) => return Ctl::Fail(f),
        }
    };
}

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

    // ----- rules -----
    //
    // The rules that nest (everything from `expr` down to `primary` and the list, map and
    // argument rules) run on an explicit stack of frames, so nesting costs heap, not native
    // stack. Each frame is one ANTLR rule invocation: `step` runs it until it calls a sub-rule
    // (the frame records where to resume), finishes, or fails (then the rule-level catch
    // reports, recovers, and the rule returns what it built, as ANTLR's generated code does).

    fn start(&mut self) -> Result<Option<N>, Abort> {
        // start: expr EOF (its context has no invoking state, so no follow frame).
        let e = self.run_rules(Rule::Expr, l(one(Tok::Eof), false))?.node();
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

    fn run_rules(&mut self, rule: Rule, follow: Local) -> Result<Ret, Abort> {
        let mut stack: Vec<Frame> = Vec::new();
        self.enter(rule.index(), follow)?;
        stack.push(Frame::new(rule, self.cur()));
        let mut incoming = Ret::None;
        loop {
            let Some(frame) = stack.last_mut() else {
                return Ok(incoming);
            };
            let ctl = self.step(frame, std::mem::replace(&mut incoming, Ret::None));
            match ctl {
                Ctl::Call(rule, follow, resume) => {
                    frame.state = resume;
                    if self.enter(rule.index(), follow).is_err() {
                        self.unwind(&stack);
                        return Err(Abort);
                    }
                    let start = self.cur();
                    stack.push(Frame::new(rule, start));
                }
                Ctl::Done => {
                    if let Some(f) = stack.pop() {
                        self.exit(f.rule.index());
                        incoming = self.finish(f);
                    }
                }
                Ctl::Fail(Fail::Abort) => {
                    self.unwind(&stack);
                    return Err(Abort);
                }
                Ctl::Fail(f) => {
                    let state = match &f {
                        Fail::Mismatch { state, .. } | Fail::NoViable { state, .. } => *state,
                        Fail::Abort => 0,
                    };
                    if self.report_error(&f).is_err() || self.recover(state).is_err() {
                        self.unwind(&stack);
                        return Err(Abort);
                    }
                    if let Some(f) = stack.pop() {
                        self.exit(f.rule.index());
                        incoming = self.finish(f);
                    }
                }
            }
        }
    }

    fn unwind(&mut self, stack: &[Frame]) {
        for f in stack.iter().rev() {
            self.exit(f.rule.index());
        }
    }

    /// What a rule returns, from what it built (also after an error).
    fn finish(&mut self, f: Frame) -> Ret {
        match f.data {
            Data::Expr { cond, op, e1, e2 } => Ret::Node(match op {
                None => cond,
                Some(op) => Some(self.push(Node::Ternary { cond, op, e1, e2 })),
            }),
            Data::Logic {
                and,
                first,
                ops,
                rest,
            } => {
                if ops.is_empty() {
                    Ret::Node(first)
                } else {
                    Ret::Node(Some(self.push(Node::Logic {
                        and,
                        start: f.start,
                        first,
                        ops,
                        rest,
                    })))
                }
            }
            Data::Chain { cur, .. } => Ret::Node(cur),
            Data::Unary { out, .. } => Ret::Node(match out {
                Some(n) => n,
                None => Some(self.push(Node::UnaryError { start: f.start })),
            }),
            Data::Primary { out } => Ret::Node(Some(match out {
                Some(n) => n,
                None => self.push(Node::Unknown),
            })),
            Data::Exprs(v) => Ret::Exprs(v),
            Data::Elems(v) => Ret::Elems(v),
            Data::Map(m) => Ret::Map(m),
            Data::Fields(fi) => Ret::Fields(fi),
            Data::OptExpr(q, e) => Ret::OptExpr(f.start, q, e),
        }
    }

    fn step(&mut self, f: &mut Frame, incoming: Ret) -> Ctl {
        match f.rule {
            Rule::Expr => self.step_expr(f, incoming),
            Rule::Or | Rule::And => self.step_logic(f, incoming),
            Rule::Rel(prec) => self.step_relation(f, prec, incoming),
            Rule::Calc(prec) => self.step_calc(f, prec, incoming),
            Rule::Unary => self.step_unary(f, incoming),
            Rule::Member => self.step_member(f, incoming),
            Rule::Primary => self.step_primary(f, incoming),
            Rule::ExprList => self.step_expr_list(f, incoming),
            Rule::ListInit => self.step_list_init(f, incoming),
            Rule::MapInit => self.step_map_init(f, incoming),
            Rule::FieldInit => self.step_field_init(f, incoming),
            Rule::OptExpr => self.step_opt_expr(f, incoming),
        }
    }

    // expr: e=conditionalOr (op='?' e1=conditionalOr ':' e2=expr)?
    fn step_expr(&mut self, f: &mut Frame, incoming: Ret) -> Ctl {
        let Data::Expr { cond, op, e1, e2 } = &mut f.data else {
            return Ctl::Done;
        };
        match f.state {
            0 => Ctl::Call(Rule::Or, l(one(Tok::Question), true), 1),
            1 => {
                *cond = incoming.node();
                tri!(self.sync(line!(), l(one(Tok::Question), true), false));
                if self.la1() != Tok::Question {
                    return Ctl::Done;
                }
                *op = Some(tri!(self.expect(Tok::Question, l(EXPR_START, false), 2)));
                Ctl::Call(Rule::Or, l(one(Tok::Colon), false), 2)
            }
            2 => {
                *e1 = incoming.node();
                tri!(self.expect(Tok::Colon, l(EXPR_START, false), 3));
                Ctl::Call(Rule::Expr, l(NONE, true), 3)
            }
            _ => {
                *e2 = incoming.node();
                Ctl::Done
            }
        }
    }

    // conditionalOr: conditionalAnd ('||' conditionalAnd)*
    // conditionalAnd: relation ('&&' relation)*
    fn step_logic(&mut self, f: &mut Frame, incoming: Ret) -> Ctl {
        let Data::Logic {
            and,
            first,
            ops,
            rest,
        } = &mut f.data
        else {
            return Ctl::Done;
        };
        let (op, sub) = if *and {
            (Tok::LogicalAnd, Rule::Rel(0))
        } else {
            (Tok::LogicalOr, Rule::And)
        };
        match f.state {
            0 => return Ctl::Call(sub, l(one(op), true), 1),
            1 => *first = incoming.node(),
            _ => rest.push(incoming.node()),
        }
        tri!(self.sync(line!(), l(one(op), true), false));
        if self.la1() != op {
            return Ctl::Done;
        }
        ops.push(tri!(self.expect(op, l(EXPR_START, false), 4)));
        Ctl::Call(sub, l(one(op), true), 2)
    }

    // relation: calc | relation op=('<'|'<='|'>='|'>'|'=='|'!='|'in') relation
    fn step_relation(&mut self, f: &mut Frame, prec: u8, incoming: Ret) -> Ctl {
        let Data::Chain { cur, node } = &mut f.data else {
            return Ctl::Done;
        };
        match f.state {
            0 => return Ctl::Call(Rule::Calc(0), l(RELOPS, true), 1),
            1 => *cur = incoming.node(),
            _ => {
                let rhs = incoming.node();
                if let Some(Node::Binary { rhs: r, .. }) =
                    node.and_then(|n| self.nodes.get_mut(n as usize))
                {
                    *r = rhs;
                }
            }
        }
        tri!(self.sync(line!(), l(RELOPS, true), false));
        if !(RELOPS.has(self.la1()) && prec <= 1) {
            return Ctl::Done;
        }
        self.end_error();
        let op = self.consume();
        let n = self.push(Node::Binary {
            lhs: *cur,
            op,
            rhs: None,
        });
        *cur = Some(n);
        *node = Some(n);
        Ctl::Call(Rule::Rel(2), l(RELOPS, true), 2)
    }

    // calc: unary | calc op=('*'|'/'|'%') calc | calc op=('+'|'-') calc
    fn step_calc(&mut self, f: &mut Frame, prec: u8, incoming: Ret) -> Ctl {
        let Data::Chain { cur, node } = &mut f.data else {
            return Ctl::Done;
        };
        match f.state {
            0 => return Ctl::Call(Rule::Unary, l(CALCOPS, true), 1),
            1 => *cur = incoming.node(),
            _ => {
                let rhs = incoming.node();
                if let Some(Node::Binary { rhs: r, .. }) =
                    node.and_then(|n| self.nodes.get_mut(n as usize))
                {
                    *r = rhs;
                }
            }
        }
        tri!(self.sync(line!(), l(CALCOPS, true), false));
        let la = self.la1();
        let next_prec = if MULOPS.has(la) && prec <= 2 {
            3
        } else if ADDOPS.has(la) && prec <= 1 {
            2
        } else {
            return Ctl::Done;
        };
        self.end_error();
        let op = self.consume();
        let n = self.push(Node::Binary {
            lhs: *cur,
            op,
            rhs: None,
        });
        *cur = Some(n);
        *node = Some(n);
        Ctl::Call(Rule::Calc(next_prec), l(CALCOPS, true), 2)
    }

    // unary: member | ('!')+ member | ('-')+ member
    fn step_unary(&mut self, f: &mut Frame, incoming: Ret) -> Ctl {
        let Data::Unary { out, node } = &mut f.data else {
            return Ctl::Done;
        };
        match f.state {
            0 => {}
            1 => {
                *out = Some(incoming.node());
                return Ctl::Done;
            }
            _ => {
                let m = incoming.node();
                match node.and_then(|n| self.nodes.get_mut(n as usize)) {
                    Some(Node::Not { member, .. }) | Some(Node::Neg { member, .. }) => *member = m,
                    _ => {}
                }
                return Ctl::Done;
            }
        }
        tri!(self.sync(1005, l(EXPR_START, false), false));
        let alt = match self.la1() {
            Tok::Exclam => 2,
            Tok::Minus => match self.la(1) {
                Tok::NumInt | Tok::NumFloat => 1,
                t if MEMBER_START.has(t) => 3,
                _ => {
                    return Ctl::Fail(Fail::NoViable {
                        start: self.pos,
                        offending: self.pos + 1,
                        state: 1005,
                    })
                }
            },
            t if MEMBER_START.has(t) => 1,
            _ => {
                return Ctl::Fail(Fail::NoViable {
                    start: self.pos,
                    offending: self.pos,
                    state: 1005,
                })
            }
        };
        if alt == 1 {
            return Ctl::Call(Rule::Member, l(NONE, true), 1);
        }
        let first = self.cur();
        let n = self.push(if alt == 2 {
            Node::Not {
                first,
                count: 0,
                member: None,
            }
        } else {
            Node::Neg {
                first,
                count: 0,
                member: None,
            }
        });
        *out = Some(Some(n));
        *node = Some(n);
        let mut count = 0;
        if alt == 2 {
            loop {
                tri!(self.expect(
                    Tok::Exclam,
                    l(MEMBER_START.with(one(Tok::Exclam)), false),
                    6
                ));
                count += 1;
                if let Some(Node::Not { count: c, .. }) = self.nodes.get_mut(n as usize) {
                    *c = count;
                }
                tri!(self.sync(line!(), l(MEMBER_START.with(one(Tok::Exclam)), false), true));
                if self.la1() != Tok::Exclam {
                    break;
                }
            }
        } else {
            loop {
                tri!(self.expect(Tok::Minus, l(MEMBER_START, false), 7));
                count += 1;
                if let Some(Node::Neg { count: c, .. }) = self.nodes.get_mut(n as usize) {
                    *c = count;
                }
                tri!(self.sync(1008, l(MEMBER_START, false), true));
                // Decision 7: another '-' (ambiguity with a negative literal resolves to
                // looping), or exit to member.
                match self.la1() {
                    Tok::Minus => match self.la(1) {
                        t if MEMBER_START.has(t) => continue,
                        _ => {
                            return Ctl::Fail(Fail::NoViable {
                                start: self.pos,
                                offending: self.pos + 1,
                                state: 1008,
                            })
                        }
                    },
                    t if MEMBER_START.has(t) => break,
                    _ => {
                        return Ctl::Fail(Fail::NoViable {
                            start: self.pos,
                            offending: self.pos,
                            state: 1008,
                        })
                    }
                }
            }
        }
        Ctl::Call(Rule::Member, l(NONE, true), 2)
    }

    // member: primary | member '.' '?'? escapeIdent | member '.' IDENTIFIER '(' exprList? ')'
    //       | member '[' '?'? expr ']'
    fn step_member(&mut self, f: &mut Frame, incoming: Ret) -> Ctl {
        let Data::Chain { cur, node } = &mut f.data else {
            return Ctl::Done;
        };
        match f.state {
            0 => return Ctl::Call(Rule::Primary, l(DOT_BRACKET, true), 1),
            1 => *cur = incoming.node(),
            2 => {
                // Call arguments came back.
                let a = incoming.exprs();
                if let Some(Node::MemberCall { args, .. }) =
                    node.and_then(|n| self.nodes.get_mut(n as usize))
                {
                    *args = Some(a);
                }
                tri!(self.expect(Tok::RParen, l(DOT_BRACKET, true), 15));
            }
            _ => {
                // The index came back.
                let e = incoming.node();
                if let Some(Node::Index { index, .. }) =
                    node.and_then(|n| self.nodes.get_mut(n as usize))
                {
                    *index = e;
                }
                tri!(self.expect(Tok::RBracket, l(DOT_BRACKET, true), 18));
            }
        }
        loop {
            tri!(self.sync(line!(), l(DOT_BRACKET, true), false));
            if !DOT_BRACKET.has(self.la1()) {
                return Ctl::Done;
            }
            tri!(self.sync(1009, l(DOT_BRACKET, false), false));
            let alt = match self.la1() {
                Tok::LBracket => 3,
                _ => match self.la(1) {
                    Tok::Question | Tok::EscIdentifier => 1,
                    Tok::Identifier => {
                        if self.la(2) == Tok::LParen {
                            2
                        } else {
                            1
                        }
                    }
                    _ => {
                        return Ctl::Fail(Fail::NoViable {
                            start: self.pos,
                            offending: self.pos + 1,
                            state: 1009,
                        })
                    }
                },
            };
            match alt {
                1 => {
                    let op = tri!(self.expect(Tok::Dot, l(OPT_FIELD_START, false), 10));
                    let n = self.push(Node::Select {
                        operand: *cur,
                        op,
                        opt: None,
                        id: None,
                    });
                    *cur = Some(n);
                    tri!(self.sync(line!(), l(OPT_FIELD_START, false), false));
                    if self.la1() == Tok::Question {
                        let q = tri!(self.expect(Tok::Question, l(ESC_START, false), 11));
                        if let Some(Node::Select { opt, .. }) = self.nodes.get_mut(n as usize) {
                            *opt = Some(q);
                        }
                    }
                    let e = match self.escape_ident(l(DOT_BRACKET, true)) {
                        Ok(e) => e,
                        Err(_) => return Ctl::Fail(Fail::Abort),
                    };
                    if let Some(Node::Select { id, .. }) = self.nodes.get_mut(n as usize) {
                        *id = Some(e);
                    }
                }
                2 => {
                    let start = self.cur();
                    let n = self.push(Node::MemberCall {
                        operand: *cur,
                        start,
                        id: None,
                        open: None,
                        args: None,
                    });
                    *cur = Some(n);
                    *node = Some(n);
                    tri!(self.expect(Tok::Dot, l(one(Tok::Identifier), false), 12));
                    let idt = tri!(self.expect(Tok::Identifier, l(one(Tok::LParen), false), 13));
                    if let Some(Node::MemberCall { id, .. }) = self.nodes.get_mut(n as usize) {
                        *id = Some(idt);
                    }
                    let o = tri!(self.expect(
                        Tok::LParen,
                        l(EXPR_START.with(one(Tok::RParen)), false),
                        14
                    ));
                    if let Some(Node::MemberCall { open, .. }) = self.nodes.get_mut(n as usize) {
                        *open = Some(o);
                    }
                    tri!(self.sync(line!(), l(EXPR_START.with(one(Tok::RParen)), false), false));
                    if EXPR_START.has(self.la1()) {
                        return Ctl::Call(Rule::ExprList, l(one(Tok::RParen), false), 2);
                    }
                    tri!(self.expect(Tok::RParen, l(DOT_BRACKET, true), 15));
                }
                _ => {
                    let op = tri!(self.expect(Tok::LBracket, l(OPT_EXPR_START, false), 16));
                    let n = self.push(Node::Index {
                        operand: *cur,
                        op,
                        opt: None,
                        index: None,
                    });
                    *cur = Some(n);
                    *node = Some(n);
                    tri!(self.sync(line!(), l(OPT_EXPR_START, false), false));
                    if self.la1() == Tok::Question {
                        let q = tri!(self.expect(Tok::Question, l(EXPR_START, false), 17));
                        if let Some(Node::Index { opt, .. }) = self.nodes.get_mut(n as usize) {
                            *opt = Some(q);
                        }
                    }
                    return Ctl::Call(Rule::Expr, l(one(Tok::RBracket), false), 3);
                }
            }
        }
    }

    fn step_primary(&mut self, f: &mut Frame, incoming: Ret) -> Ctl {
        let Data::Primary { out } = &mut f.data else {
            return Ctl::Done;
        };
        let close_list = TokSet::of(&[Tok::Comma, Tok::RBracket]);
        let close_map = TokSet::of(&[Tok::Comma, Tok::RBrace]);
        match f.state {
            0 => {}
            // GlobalCall arguments.
            1 => {
                let a = incoming.exprs();
                if let Some(Node::GlobalCall { args, .. }) =
                    out.and_then(|n| self.nodes.get_mut(n as usize))
                {
                    *args = Some(a);
                }
                tri!(self.expect(Tok::RParen, l(NONE, true), 23));
                return Ctl::Done;
            }
            // Nested expression.
            2 => {
                *out = incoming.node();
                tri!(self.expect(Tok::RParen, l(NONE, true), 25));
                return Ctl::Done;
            }
            // List elements.
            3 => {
                let elems = incoming.elems();
                if let Some(Node::List { elems: e, .. }) =
                    out.and_then(|n| self.nodes.get_mut(n as usize))
                {
                    *e = elems;
                }
                return self.close_literal(close_list, Tok::RBracket, 27, 28);
            }
            // Map entries.
            4 => {
                let m = incoming.map();
                if let Some(Node::Map { entries, .. }) =
                    out.and_then(|n| self.nodes.get_mut(n as usize))
                {
                    *entries = Some(m);
                }
                return self.close_literal(close_map, Tok::RBrace, 30, 31);
            }
            // Message fields.
            _ => {
                let fi = incoming.fields();
                if let Some(Node::Message { fields, .. }) =
                    out.and_then(|n| self.nodes.get_mut(n as usize))
                {
                    *fields = Some(fi);
                }
                return self.close_literal(close_map, Tok::RBrace, 37, 38);
            }
        }
        tri!(self.sync(1019, l(MEMBER_START, false), false));
        let start = self.cur();
        let la1 = self.la1();
        // Prediction (alternatives 1 Ident, 2 GlobalCall, 3 Nested, 4 list, 5 map, 6 message,
        // 7 literal).
        let alt = match la1 {
            Tok::LParen => 3,
            Tok::LBracket => 4,
            Tok::LBrace => 5,
            t if LITERAL_START.has(t) => 7,
            Tok::Dot | Tok::Identifier => {
                let mut i = usize::from(la1 == Tok::Dot);
                if self.la(i) != Tok::Identifier {
                    return Ctl::Fail(Fail::NoViable {
                        start: self.pos,
                        offending: self.pos + i,
                        state: 1019,
                    });
                }
                i += 1;
                match self.la(i) {
                    Tok::LParen => 2,
                    Tok::LBrace => 6,
                    _ => {
                        while self.la(i) == Tok::Dot && self.la(i + 1) == Tok::Identifier {
                            i += 2;
                        }
                        if self.la(i) == Tok::LBrace {
                            6
                        } else {
                            1
                        }
                    }
                }
            }
            _ => {
                return Ctl::Fail(Fail::NoViable {
                    start: self.pos,
                    offending: self.pos,
                    state: 1019,
                })
            }
        };
        match alt {
            1 | 2 => {
                let n = self.push(if alt == 1 {
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
                *out = Some(n);
                tri!(self.sync(
                    line!(),
                    l(TokSet::of(&[Tok::Dot, Tok::Identifier]), false),
                    false
                ));
                if self.la1() == Tok::Dot {
                    tri!(self.expect(Tok::Dot, l(one(Tok::Identifier), false), 20));
                    match self.nodes.get_mut(n as usize) {
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
                let idt = tri!(self.expect(Tok::Identifier, after, 21));
                match self.nodes.get_mut(n as usize) {
                    Some(Node::Ident { id, .. }) | Some(Node::GlobalCall { id, .. }) => {
                        *id = Some(idt)
                    }
                    _ => {}
                }
                if alt == 1 {
                    return Ctl::Done;
                }
                let o =
                    tri!(self.expect(Tok::LParen, l(EXPR_START.with(one(Tok::RParen)), false), 22));
                if let Some(Node::GlobalCall { op, .. }) = self.nodes.get_mut(n as usize) {
                    *op = Some(o);
                }
                tri!(self.sync(line!(), l(EXPR_START.with(one(Tok::RParen)), false), false));
                if EXPR_START.has(self.la1()) {
                    return Ctl::Call(Rule::ExprList, l(one(Tok::RParen), false), 1);
                }
                tri!(self.expect(Tok::RParen, l(NONE, true), 23));
                Ctl::Done
            }
            3 => {
                tri!(self.expect(Tok::LParen, l(EXPR_START, false), 24));
                Ctl::Call(Rule::Expr, l(one(Tok::RParen), false), 2)
            }
            4 => {
                let op =
                    tri!(self.expect(Tok::LBracket, l(OPT_EXPR_START.with(close_list), false), 26));
                let n = self.push(Node::List {
                    op,
                    elems: Vec::new(),
                });
                *out = Some(n);
                tri!(self.sync(line!(), l(OPT_EXPR_START.with(close_list), false), false));
                if OPT_EXPR_START.has(self.la1()) {
                    return Ctl::Call(Rule::ListInit, l(close_list, false), 3);
                }
                self.close_literal(close_list, Tok::RBracket, 27, 28)
            }
            5 => {
                let op =
                    tri!(self.expect(Tok::LBrace, l(OPT_EXPR_START.with(close_map), false), 29));
                let n = self.push(Node::Map { op, entries: None });
                *out = Some(n);
                tri!(self.sync(line!(), l(OPT_EXPR_START.with(close_map), false), false));
                if OPT_EXPR_START.has(self.la1()) {
                    return Ctl::Call(Rule::MapInit, l(close_map, false), 4);
                }
                self.close_literal(close_map, Tok::RBrace, 30, 31)
            }
            6 => {
                let n = self.push(Node::Message {
                    dot: false,
                    ids: Vec::new(),
                    op: None,
                    fields: None,
                });
                *out = Some(n);
                tri!(self.sync(
                    line!(),
                    l(TokSet::of(&[Tok::Dot, Tok::Identifier]), false),
                    false
                ));
                if self.la1() == Tok::Dot {
                    tri!(self.expect(Tok::Dot, l(one(Tok::Identifier), false), 32));
                    if let Some(Node::Message { dot, .. }) = self.nodes.get_mut(n as usize) {
                        *dot = true;
                    }
                }
                let path_next = TokSet::of(&[Tok::Dot, Tok::LBrace]);
                let first = tri!(self.expect(Tok::Identifier, l(path_next, false), 33));
                if let Some(Node::Message { ids, .. }) = self.nodes.get_mut(n as usize) {
                    ids.push(first);
                }
                tri!(self.sync(line!(), l(path_next, false), false));
                while self.la1() == Tok::Dot {
                    tri!(self.expect(Tok::Dot, l(one(Tok::Identifier), false), 34));
                    let id = tri!(self.expect(Tok::Identifier, l(path_next, false), 35));
                    if let Some(Node::Message { ids, .. }) = self.nodes.get_mut(n as usize) {
                        ids.push(id);
                    }
                    tri!(self.sync(line!(), l(path_next, false), true));
                }
                let o =
                    tri!(self.expect(Tok::LBrace, l(OPT_FIELD_START.with(close_map), false), 36));
                if let Some(Node::Message { op, .. }) = self.nodes.get_mut(n as usize) {
                    *op = Some(o);
                }
                tri!(self.sync(line!(), l(OPT_FIELD_START.with(close_map), false), false));
                if OPT_FIELD_START.has(self.la1()) {
                    return Ctl::Call(Rule::FieldInit, l(close_map, false), 5);
                }
                self.close_literal(close_map, Tok::RBrace, 37, 38)
            }
            _ => match self.literal(l(NONE, true)) {
                Ok(n) => {
                    *out = n;
                    Ctl::Done
                }
                Err(_) => Ctl::Fail(Fail::Abort),
            },
        }
    }

    /// The end of a list, map or message literal: `','? close`.
    fn close_literal(&mut self, close: TokSet, end: Tok, comma_state: u32, end_state: u32) -> Ctl {
        tri!(self.sync(line!(), l(close, false), false));
        if self.la1() == Tok::Comma {
            tri!(self.expect(Tok::Comma, l(one(end), false), comma_state));
        }
        tri!(self.expect(end, l(NONE, true), end_state));
        Ctl::Done
    }

    // exprList: expr (',' expr)*
    fn step_expr_list(&mut self, f: &mut Frame, incoming: Ret) -> Ctl {
        let Data::Exprs(out) = &mut f.data else {
            return Ctl::Done;
        };
        if f.state == 0 {
            return Ctl::Call(Rule::Expr, l(one(Tok::Comma), true), 1);
        }
        out.push(incoming.node());
        tri!(self.sync(line!(), l(one(Tok::Comma), true), false));
        if self.la1() != Tok::Comma {
            return Ctl::Done;
        }
        tri!(self.expect(Tok::Comma, l(EXPR_START, false), 39));
        Ctl::Call(Rule::Expr, l(one(Tok::Comma), true), 1)
    }

    // optExpr: '?'? expr
    fn step_opt_expr(&mut self, f: &mut Frame, incoming: Ret) -> Ctl {
        let Data::OptExpr(q, e) = &mut f.data else {
            return Ctl::Done;
        };
        if f.state == 1 {
            *e = incoming.node();
            return Ctl::Done;
        }
        tri!(self.sync(line!(), l(OPT_EXPR_START, false), false));
        if self.la1() == Tok::Question {
            *q = Some(tri!(self.expect(Tok::Question, l(EXPR_START, false), 40)));
        }
        Ctl::Call(Rule::Expr, l(NONE, true), 1)
    }

    // listInit: optExpr (',' optExpr)*
    fn step_list_init(&mut self, f: &mut Frame, incoming: Ret) -> Ctl {
        let Data::Elems(out) = &mut f.data else {
            return Ctl::Done;
        };
        if f.state == 0 {
            return Ctl::Call(Rule::OptExpr, l(one(Tok::Comma), true), 1);
        }
        let (_, q, e) = incoming.opt_expr();
        out.push((q, e));
        tri!(self.sync(line!(), l(one(Tok::Comma), true), false));
        if !(self.la1() == Tok::Comma && OPT_EXPR_START.has(self.la(1))) {
            return Ctl::Done;
        }
        tri!(self.expect(Tok::Comma, l(OPT_EXPR_START, false), 41));
        Ctl::Call(Rule::OptExpr, l(one(Tok::Comma), true), 1)
    }

    // mapInitializerList: optExpr ':' expr (',' optExpr ':' expr)*
    fn step_map_init(&mut self, f: &mut Frame, incoming: Ret) -> Ctl {
        let Data::Map(m) = &mut f.data else {
            return Ctl::Done;
        };
        match f.state {
            0 => return Ctl::Call(Rule::OptExpr, l(one(Tok::Colon), false), 1),
            1 => {
                m.keys.push(incoming.opt_expr());
                m.cols
                    .push(tri!(self.expect(Tok::Colon, l(EXPR_START, false), 42)));
                return Ctl::Call(Rule::Expr, l(one(Tok::Comma), true), 2);
            }
            _ => m.values.push(incoming.node()),
        }
        tri!(self.sync(line!(), l(one(Tok::Comma), true), false));
        if !(self.la1() == Tok::Comma && OPT_EXPR_START.has(self.la(1))) {
            return Ctl::Done;
        }
        tri!(self.expect(Tok::Comma, l(OPT_EXPR_START, false), 43));
        Ctl::Call(Rule::OptExpr, l(one(Tok::Colon), false), 1)
    }

    // fieldInitializerList: optField ':' expr (',' optField ':' expr)*
    fn step_field_init(&mut self, f: &mut Frame, incoming: Ret) -> Ctl {
        let Data::Fields(fi) = &mut f.data else {
            return Ctl::Done;
        };
        if f.state == 1 {
            fi.values.push(incoming.node());
            tri!(self.sync(line!(), l(one(Tok::Comma), true), false));
            if !(self.la1() == Tok::Comma && OPT_FIELD_START.has(self.la(1))) {
                return Ctl::Done;
            }
            tri!(self.expect(Tok::Comma, l(OPT_FIELD_START, false), 45));
        }
        let of = match self.opt_field(l(one(Tok::Colon), false)) {
            Ok(v) => v,
            Err(_) => return Ctl::Fail(Fail::Abort),
        };
        fi.fields.push(of);
        fi.cols
            .push(tri!(self.expect(Tok::Colon, l(EXPR_START, false), 44)));
        Ctl::Call(Rule::Expr, l(one(Tok::Comma), true), 1)
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
