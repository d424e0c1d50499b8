//! The expression AST as cel-go's `common/ast`: plain data, every node with the id the parser
//! gave it, and a [`SourceInfo`] mapping ids to code-point offsets.
//!
//! The tree's depth is bounded by the parser's limits (nesting and cel-go's recursion depth),
//! so recursive walks over a parsed [`Expr`] stay within a few hundred levels.

use std::collections::BTreeMap;

use crate::source::{location_by_offset, Location};

/// An expression node: its id and what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// The id (unique within one parse; cel-go's numbering).
    pub id: i64,
    /// The node's kind and children.
    pub kind: ExprKind,
}

/// The kinds of expression, as cel-go's `ast.ExprKind`.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// No expression (only in ASTs of failed parses).
    Unspecified,
    /// A literal value.
    Literal(Literal),
    /// An identifier, possibly qualified by a leading dot (`.a`).
    Ident(String),
    /// A field selection, or a presence test made by `has()`.
    Select(Box<SelectExpr>),
    /// A function call, global or receiver-style.
    Call(Box<CallExpr>),
    /// A list literal.
    List(ListExpr),
    /// A map literal.
    Map(MapExpr),
    /// A message literal (`a.b.C{f: v}`).
    Struct(StructExpr),
    /// A fold, produced by macros.
    Comprehension(Box<ComprehensionExpr>),
}

/// A literal value.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A signed 64-bit integer.
    Int(i64),
    /// An unsigned 64-bit integer (`1u`).
    Uint(u64),
    /// A double.
    Double(f64),
    /// A string (always valid UTF-8).
    String(String),
    /// Bytes (`b"..."`).
    Bytes(Vec<u8>),
}

/// `operand.field`, or `has(operand.field)` when `test_only`.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectExpr {
    /// What is selected from.
    pub operand: Expr,
    /// The field name (unescaped when it was backquoted).
    pub field: String,
    /// True for a presence test (`has()`).
    pub test_only: bool,
}

/// A call: `function(args)` or `target.function(args)`.
#[derive(Debug, Clone, PartialEq)]
pub struct CallExpr {
    /// The function name: an operator name such as `_+_`, or a (possibly dotted) function.
    pub function: String,
    /// The receiver of a receiver-style call.
    pub target: Option<Expr>,
    /// The arguments.
    pub args: Vec<Expr>,
}

/// `[e1, ?e2, ...]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ListExpr {
    /// The elements.
    pub elements: Vec<Expr>,
    /// Indices of the elements written `?e` (optional elements).
    pub optional_indices: Vec<i32>,
}

/// `{k: v, ?k2: v2}`.
#[derive(Debug, Clone, PartialEq)]
pub struct MapExpr {
    /// The entries, in source order.
    pub entries: Vec<MapEntry>,
}

/// One map literal entry; its id is the id of its `:`.
#[derive(Debug, Clone, PartialEq)]
pub struct MapEntry {
    /// The entry's id.
    pub id: i64,
    /// The key.
    pub key: Expr,
    /// The value.
    pub value: Expr,
    /// True for `?k: v`.
    pub optional: bool,
}

/// `Type{f: v, ?g: w}`.
#[derive(Debug, Clone, PartialEq)]
pub struct StructExpr {
    /// The message name as written (with a leading dot when there was one).
    pub type_name: String,
    /// The field initializers.
    pub fields: Vec<StructField>,
}

/// One message literal field; its id is the id of its `:`.
#[derive(Debug, Clone, PartialEq)]
pub struct StructField {
    /// The field's id.
    pub id: i64,
    /// The field name.
    pub name: String,
    /// The value.
    pub value: Expr,
    /// True for `?f: v`.
    pub optional: bool,
}

/// A comprehension (fold), as produced by the macros.
#[derive(Debug, Clone, PartialEq)]
pub struct ComprehensionExpr {
    /// The range iterated over (list or map).
    pub iter_range: Expr,
    /// The iteration variable (the element, or the index/key for two-variable forms).
    pub iter_var: String,
    /// The second iteration variable (the value), empty for one-variable comprehensions.
    pub iter_var2: String,
    /// The accumulator variable (`@result` for the standard macros).
    pub accu_var: String,
    /// The accumulator's initial value.
    pub accu_init: Expr,
    /// The condition checked before each iteration.
    pub loop_condition: Expr,
    /// The next accumulator value.
    pub loop_step: Expr,
    /// The result, computed from the accumulator.
    pub result: Expr,
}

impl Expr {
    /// A node.
    pub fn new(id: i64, kind: ExprKind) -> Self {
        Expr { id, kind }
    }

    /// The unspecified expression with this id.
    pub fn unspecified(id: i64) -> Self {
        Expr::new(id, ExprKind::Unspecified)
    }

    /// The call, if this is one.
    pub fn as_call(&self) -> Option<&CallExpr> {
        match &self.kind {
            ExprKind::Call(c) => Some(c),
            _ => None,
        }
    }

    /// The identifier name, if this is one.
    pub fn as_ident(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Ident(n) => Some(n),
            _ => None,
        }
    }

    /// The literal, if this is one.
    pub fn as_literal(&self) -> Option<&Literal> {
        match &self.kind {
            ExprKind::Literal(l) => Some(l),
            _ => None,
        }
    }

    /// The ids of this node and all nodes below it (entries included), in pre-order.
    pub fn ids(&self) -> Vec<i64> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            out.push(e.id);
            let mut kids: Vec<&Expr> = Vec::new();
            match &e.kind {
                ExprKind::Unspecified | ExprKind::Literal(_) | ExprKind::Ident(_) => {}
                ExprKind::Select(s) => kids.push(&s.operand),
                ExprKind::Call(c) => {
                    if let Some(t) = &c.target {
                        kids.push(t);
                    }
                    kids.extend(c.args.iter());
                }
                ExprKind::List(l) => kids.extend(l.elements.iter()),
                ExprKind::Map(m) => {
                    for en in &m.entries {
                        out.push(en.id);
                        kids.push(&en.key);
                        kids.push(&en.value);
                    }
                }
                ExprKind::Struct(s) => {
                    for f in &s.fields {
                        out.push(f.id);
                        kids.push(&f.value);
                    }
                }
                ExprKind::Comprehension(c) => {
                    kids.extend([
                        &c.iter_range,
                        &c.accu_init,
                        &c.loop_condition,
                        &c.loop_step,
                        &c.result,
                    ]);
                }
            }
            stack.extend(kids.into_iter().rev());
        }
        out
    }
}

/// A code-point offset range `[start, stop)` in the source (cel-go's `ast.OffsetRange`; its stop
/// is the start plus the byte length of the token text, as cel-go computes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetRange {
    /// Start offset in code points.
    pub start: i32,
    /// Stop offset, as cel-go records it.
    pub stop: i32,
}

/// Where each node came from: cel-go's `ast.SourceInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourceInfo {
    /// The source description (`<input>`).
    pub description: String,
    /// cel-go's line offsets (see [`crate::Source`]).
    pub line_offsets: Vec<i32>,
    /// Offsets by node id.
    pub offsets: BTreeMap<i64, OffsetRange>,
}

impl SourceInfo {
    /// The offset range of a node.
    pub fn offset_range(&self, id: i64) -> Option<OffsetRange> {
        self.offsets.get(&id).copied()
    }

    /// The start location of a node ([`Location::NONE`] when unknown), as cel-go's
    /// `GetStartLocation`.
    pub fn start_location(&self, id: i64) -> Location {
        match self.offsets.get(&id) {
            Some(r) => self.location_of_offset(r.start),
            None => Location::NONE,
        }
    }

    /// The location of a code-point offset.
    pub fn location_of_offset(&self, offset: i32) -> Location {
        location_by_offset(&self.line_offsets, offset)
    }
}

/// A parsed expression: the tree and where its nodes are.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedExpr {
    /// The root.
    pub expr: Expr,
    /// Offsets of every node.
    pub source_info: SourceInfo,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_in_preorder_with_entries() {
        let lit = |id, v| Expr::new(id, ExprKind::Literal(Literal::Int(v)));
        let map = Expr::new(
            1,
            ExprKind::Map(MapExpr {
                entries: vec![MapEntry {
                    id: 2,
                    key: lit(3, 1),
                    value: lit(4, 2),
                    optional: false,
                }],
            }),
        );
        assert_eq!(map.ids(), vec![1, 2, 3, 4]);
    }

    #[test]
    fn start_locations() {
        let mut si = SourceInfo {
            description: "<input>".into(),
            line_offsets: vec![3, 6],
            offsets: BTreeMap::new(),
        };
        si.offsets.insert(7, OffsetRange { start: 4, stop: 5 });
        assert_eq!(si.start_location(7), Location::new(2, 1));
        assert_eq!(si.start_location(8), Location::NONE);
    }
}
