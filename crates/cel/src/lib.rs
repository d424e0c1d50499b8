#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

pub mod ast;
pub mod checker;
pub mod cost_est;
pub mod cost_rt;
pub mod debug;
pub mod decls;
pub mod errors;
pub mod ext_format;
pub mod ext_rt;
pub mod interp;
pub mod k8s_cost_est;
pub mod k8s_format;
pub mod k8s_names;
pub mod k8s_net;
pub mod k8s_quantity;
pub mod k8s_rt;
pub mod k8s_semver;
pub mod lexer;
pub mod macros;
mod parser;
pub mod rt_time;
pub mod since;
pub mod source;
pub mod stdlib_rt;
pub mod types;
pub mod tz;
mod unescape;
pub mod unstructured;
pub mod value;
pub mod version;
mod visit;

#[cfg(test)]
mod tests;

pub use ast::{
    CallExpr, ComprehensionExpr, Expr, ExprKind, ListExpr, Literal, MapEntry, MapExpr, OffsetRange,
    ParsedExpr, SelectExpr, SourceInfo, StructExpr, StructField,
};
pub use errors::{Error, Errors};
pub use macros::{Macro, MacroSet};
pub use source::{Location, Source};
pub use version::KubernetesVersion;

/// CEL's reserved words: the identifiers cel-go's parser refuses (`reservedIds`), which are
/// also the property names Kubernetes escapes as `__word__` (`celReservedSymbols` in
/// `apiserver/pkg/cel/escaping.go`, the same set). The one list: the parser, the checker's
/// declared types and `unstructured`'s `Escape`/`Unescape` read it.
pub const RESERVED_WORDS: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "else",
    "false",
    "for",
    "function",
    "if",
    "import",
    "in",
    "let",
    "loop",
    "namespace",
    "null",
    "package",
    "return",
    "true",
    "var",
    "void",
    "while",
];

/// The accumulator name of cel-go's macros when the hidden accumulator is enabled (default).
pub const HIDDEN_ACCUMULATOR_NAME: &str = "@result";
/// The traditional accumulator name.
pub const ACCUMULATOR_NAME: &str = "__result__";

/// The most nesting this parser accepts whatever the options say. The parser itself keeps its
/// rules on a heap stack; the nesting bounds the AST's depth, and with it the recursion of the
/// visitor here and of later passes (measured: the deepest inputs allowed by default need about
/// 0.15 MiB of native stack in release builds, 0.7 MiB in debug builds).
pub const HARD_NESTING_LIMIT: u32 = 500;

/// Parser options, as cel-go's `parser.Option`s. `Default` is cel-go's `NewParser()` defaults
/// with `cel.StandardMacros`, which is what Kubernetes uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParserOptions {
    /// Maximum recursion depth (cel-go's `MaxRecursionDepth`; 250). It bounds both the parse
    /// listener's nesting ("expression recursion limit exceeded: N") and the visitor's depth
    /// ("max recursion depth exceeded"). Capped at [`HARD_NESTING_LIMIT`]; negative means the cap.
    pub max_recursion_depth: i32,
    /// Syntax errors reported before "More than N syntax errors" stops the parse (100).
    pub error_reporting_limit: u32,
    /// Error recovery attempts before "error recovery attempt limit exceeded: N" (30).
    pub error_recovery_limit: u32,
    /// Tokens one recovery may skip (256).
    pub error_recovery_lookahead_limit: u32,
    /// Maximum expression size in code points (100,000).
    pub expression_size_code_point_limit: usize,
    /// `a.?b`, `a[?b]`, `[?a]`, `{?k: v}` (enabled by cel-go's optional library).
    pub enable_optional_syntax: bool,
    /// Backquoted identifiers in selections and field names (on by default in cel-go).
    pub enable_ident_escape_syntax: bool,
    /// `@result` as the macros' accumulator (on by default); `__result__` otherwise.
    pub enable_hidden_accumulator_name: bool,
    /// The macros to expand.
    pub macros: MacroSet,
}

impl Default for ParserOptions {
    fn default() -> Self {
        ParserOptions {
            max_recursion_depth: 250,
            error_reporting_limit: 100,
            error_recovery_limit: 30,
            error_recovery_lookahead_limit: 256,
            expression_size_code_point_limit: 100_000,
            enable_optional_syntax: false,
            enable_ident_escape_syntax: true,
            enable_hidden_accumulator_name: true,
            macros: MacroSet::standard(),
        }
    }
}

/// A parser with fixed options.
#[derive(Debug, Clone, Default)]
pub struct Parser {
    options: ParserOptions,
}

/// A failed parse: the errors and the source they point into.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseFailure {
    /// The errors.
    pub errors: Errors,
    /// The source.
    pub source: Source,
}

impl std::fmt::Display for ParseFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.errors.to_display_string(&self.source))
    }
}

impl std::error::Error for ParseFailure {}

impl Parser {
    /// A parser with these options.
    pub fn new(options: ParserOptions) -> Self {
        Parser { options }
    }

    /// The options.
    pub fn options(&self) -> &ParserOptions {
        &self.options
    }

    /// Parses as cel-go's `Parser.Parse`: always an AST (meaningful only without errors) and the
    /// errors.
    pub fn parse(&self, source: &Source) -> (ParsedExpr, Errors) {
        let o = &self.options;
        let mut errors = Errors::new();
        let mut source_info = SourceInfo {
            description: source.description().to_string(),
            line_offsets: source.line_offsets().to_vec(),
            offsets: Default::default(),
        };
        let size = source.len_chars();
        if size > o.expression_size_code_point_limit {
            source_info.offsets.insert(
                1,
                OffsetRange {
                    start: -1,
                    stop: -1,
                },
            );
            errors.report(
                1,
                Location::NONE,
                format!(
                    "expression code point size exceeds limit: size: {}, limit {}",
                    size, o.expression_size_code_point_limit
                ),
            );
            return (
                ParsedExpr {
                    expr: Expr::unspecified(1),
                    source_info,
                },
                errors,
            );
        }
        let max_depth = if o.max_recursion_depth < 0 {
            HARD_NESTING_LIMIT
        } else {
            (o.max_recursion_depth as u32).min(HARD_NESTING_LIMIT)
        };
        let chars: Vec<char> = source.content().chars().collect();
        let (toks, lex_errors) = lexer::tokenize(&chars);
        let rec = parser::Recognizer::new(
            source,
            &chars,
            toks,
            lex_errors,
            parser::RecognizerLimits {
                max_depth,
                error_recovery_limit: o.error_recovery_limit,
                lookahead_limit: o.error_recovery_lookahead_limit,
                error_reporting_limit: o.error_reporting_limit,
            },
        );
        let parser::Outcome {
            cst,
            aborted,
            syntax,
            internal,
        } = rec.run();
        for (loc, msg) in syntax {
            errors.report(0, loc, msg);
        }
        for msg in internal {
            errors.report(0, Location::NONE, msg);
        }
        let accumulator = if o.enable_hidden_accumulator_name {
            HIDDEN_ACCUMULATOR_NAME
        } else {
            ACCUMULATOR_NAME
        };
        if aborted {
            return (
                ParsedExpr {
                    expr: Expr::unspecified(0),
                    source_info,
                },
                errors,
            );
        }
        let mut v = visit::Visitor::new(
            source,
            &cst,
            visit::VisitOptions {
                max_depth,
                optional_syntax: o.enable_optional_syntax,
                ident_escape: o.enable_ident_escape_syntax,
                accumulator,
                macros: &o.macros,
            },
            &mut errors,
        );
        let expr = v.visit(cst.root).unwrap_or_else(|_| Expr::unspecified(0));
        source_info.offsets = std::mem::take(&mut v.offsets);
        (ParsedExpr { expr, source_info }, errors)
    }

    /// Parses a text (`<input>`), returning the AST or the errors.
    pub fn parse_text(&self, text: &str) -> Result<ParsedExpr, Box<ParseFailure>> {
        let source = Source::new(text);
        let (parsed, errors) = self.parse(&source);
        if errors.is_empty() {
            Ok(parsed)
        } else {
            Err(Box::new(ParseFailure { errors, source }))
        }
    }
}

/// Parses with the default options (Kubernetes' parser configuration without the optional
/// syntax).
pub fn parse(text: &str) -> Result<ParsedExpr, Box<ParseFailure>> {
    Parser::default().parse_text(text)
}
