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

mod parser;
use parser::*;

mod eval;
pub use eval::*;

#[cfg(test)]
mod tests;
