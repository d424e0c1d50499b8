//! The second phase, cel-go's parse-tree visitor: builds the AST from the concrete syntax tree,
//! allocating ids in cel-go's order, expanding macros, and reporting cel-go's non-syntax parse
//! errors (reserved identifiers, literal errors, unsupported syntax, macro argument errors, and
//! "max recursion depth exceeded").

use std::collections::BTreeMap;

use crate::ast::{CallExpr, Expr, ExprKind, ListExpr, Literal, MapEntry, MapExpr, OffsetRange};
use crate::ast::{SelectExpr, StructExpr, StructField};
use crate::errors::Errors;
use crate::lexer::{Tok, Token};
use crate::macros::{expand, Expansion, MacroIds, MacroSet};
use crate::parser::{Cst, EscId, FieldInit, LitKind, MapInit, Node, N, T};
use crate::source::{Location, Source};
use crate::unescape::unescape;

pub(crate) struct VisitOptions<'a> {
    pub max_depth: u32,
    pub optional_syntax: bool,
    pub ident_escape: bool,
    pub accumulator: &'a str,
    pub macros: &'a MacroSet,
}

pub(crate) struct Abort;

pub(crate) struct Visitor<'a> {
    src: &'a Source,
    cst: &'a Cst,
    opts: VisitOptions<'a>,
    pub errors: &'a mut Errors,
    pub next_id: i64,
    pub offsets: BTreeMap<i64, OffsetRange>,
    depth: u32,
    macro_at: i64,
}

/// Where an error or id is placed.
enum Ctx {
    Tok(T),
    /// A rule context: its start token and the byte length of its text.
    Rule(T, i32),
    Loc(Location),
}

impl<'a> Visitor<'a> {
    pub fn new(
        src: &'a Source,
        cst: &'a Cst,
        opts: VisitOptions<'a>,
        errors: &'a mut Errors,
    ) -> Self {
        Visitor {
            src,
            cst,
            opts,
            errors,
            next_id: 1,
            offsets: BTreeMap::new(),
            depth: 0,
            macro_at: 0,
        }
    }

    fn tok(&self, t: T) -> Option<&Token> {
        self.cst.toks.get(t)
    }

    fn text(&self, t: T) -> String {
        match self.tok(t) {
            Some(tok) if tok.conjured => format!("<missing {}>", tok.kind.display_name()),
            Some(tok) => self.src.slice_chars(tok.start, tok.end).to_string(),
            None => String::new(),
        }
    }

    /// The byte length of a token's text (cel-go's `len(token.GetText())`).
    fn byte_len(&self, t: T) -> i32 {
        let len = match self.tok(t) {
            Some(tok) if tok.conjured => format!("<missing {}>", tok.kind.display_name()).len(),
            Some(tok) => self
                .src
                .byte_offset(tok.end)
                .saturating_sub(self.src.byte_offset(tok.start)),
            None => 0,
        };
        i32::try_from(len).unwrap_or(i32::MAX)
    }

    fn tok_offset(&self, t: T) -> i32 {
        match self.tok(t) {
            Some(tok) => self.src.compute_offset(tok.line, tok.column),
            None => -1,
        }
    }

    fn id(&mut self, ctx: &Ctx) -> i64 {
        let range = match ctx {
            Ctx::Tok(t) => {
                let start = self.tok_offset(*t);
                OffsetRange {
                    start,
                    stop: start.saturating_add(self.byte_len(*t)),
                }
            }
            Ctx::Rule(t, len) => {
                let start = self.tok_offset(*t);
                OffsetRange {
                    start,
                    stop: start.saturating_add(*len),
                }
            }
            Ctx::Loc(loc) => {
                let start = self.src.compute_offset_absolute(loc.line, loc.column);
                OffsetRange { start, stop: start }
            }
        };
        self.id_range(range)
    }

    fn id_range(&mut self, range: OffsetRange) -> i64 {
        let id = self.next_id;
        self.offsets.insert(id, range);
        self.next_id += 1;
        id
    }

    fn delete_id(&mut self, id: i64) {
        self.offsets.remove(&id);
        if id == self.next_id - 1 {
            self.next_id -= 1;
        }
    }

    fn start_location(&self, id: i64) -> Location {
        match self.offsets.get(&id) {
            Some(r) => self.src.location_of_offset(r.start),
            None => Location::NONE,
        }
    }

    #[inline(never)]
    fn report(&mut self, ctx: Ctx, msg: impl Into<String>) -> Expr {
        let id = self.id(&ctx);
        let loc = match ctx {
            Ctx::Loc(l) => l,
            _ => self.start_location(id),
        };
        self.errors.report(id, loc, msg);
        Expr::unspecified(id)
    }

    #[inline(never)]
    fn unspecified(&mut self, ctx: Ctx) -> Expr {
        let id = self.id(&ctx);
        Expr::unspecified(id)
    }

    fn node(&self, n: N) -> Option<&'a Node> {
        self.cst.nodes.get(n as usize)
    }

    /// cel-go's `Visit`, with its recursion counting on the counted contexts.
    pub fn visit(&mut self, n: Option<N>) -> Result<Expr, Abort> {
        let Some(node) = n.and_then(|n| self.node(n)) else {
            return Ok(self.visit_unknown("<<nil>>"));
        };
        let counted = matches!(
            node,
            Node::Ternary { .. }
                | Node::Binary { .. }
                | Node::Select { .. }
                | Node::MemberCall { .. }
                | Node::Index { .. }
        );
        if counted {
            self.depth += 1;
            if self.depth > self.opts.max_depth {
                self.errors
                    .report(0, Location::NONE, "max recursion depth exceeded");
                return Err(Abort);
            }
        }
        let out = self.visit_node(node);
        if counted {
            self.depth -= 1;
        }
        out
    }

    #[inline(never)]
    fn visit_unknown(&mut self, what: &str) -> Expr {
        if self.errors.is_empty() {
            return self.report(
                Ctx::Loc(Location::NONE),
                format!("unknown parse element encountered: {what}"),
            );
        }
        self.unspecified(Ctx::Loc(Location::NONE))
    }

    /// Dispatches to one function per context kind, so the recursive path keeps small frames.
    fn visit_node(&mut self, node: &'a Node) -> Result<Expr, Abort> {
        match node {
            Node::Ternary { .. } => self.visit_ternary(node),
            Node::Logic { .. } => self.visit_logic(node),
            Node::Binary { .. } => self.visit_binary(node),
            Node::Not { .. } | Node::Neg { .. } => self.visit_unary_op(node),
            Node::UnaryError { .. } => self.visit_unary_error(node),
            Node::Select { .. } => self.visit_select(node),
            Node::MemberCall { .. } => self.visit_member_call(node),
            Node::Index { .. } => self.visit_index(node),
            Node::Ident { .. } => self.visit_ident(node),
            Node::GlobalCall { .. } => self.visit_global_call(node),
            Node::List { .. } => self.visit_create_list(node),
            Node::Map { .. } => self.visit_map(node),
            Node::Message { .. } => self.visit_message(node),
            Node::Literal {
                kind,
                start,
                sign,
                tok,
            } => Ok(self.visit_literal(*kind, *start, *sign, *tok)),
            Node::Unknown => Ok(self.visit_unknown("<<*gen.PrimaryContext>>")),
        }
    }

    #[inline(never)]
    fn visit_ternary(&mut self, node: &'a Node) -> Result<Expr, Abort> {
        match node {
            Node::Ternary { cond, op, e1, e2 } => {
                let c = self.visit(*cond)?;
                let op_id = self.id(&Ctx::Tok(*op));
                let t = self.visit(*e1)?;
                let f = self.visit(*e2)?;
                Ok(self.global_call_or_macro(op_id, "_?_:_", vec![c, t, f]))
            }
            _ => Ok(Expr::unspecified(0)),
        }
    }

    #[inline(never)]
    fn visit_logic(&mut self, node: &'a Node) -> Result<Expr, Abort> {
        match node {
            Node::Logic {
                and,
                start,
                first,
                ops,
                rest,
            } => {
                let function = if *and { "_&&_" } else { "_||_" };
                let mut terms = vec![self.visit(*first)?];
                let mut op_ids = Vec::new();
                for (i, op) in ops.iter().enumerate() {
                    let Some(next) = rest.get(i) else {
                        let wanted = if *and { "'&&'" } else { "'||'" };
                        return Ok(self.report(
                            Ctx::Rule(*start, self.byte_len(*start)),
                            format!("unexpected character, wanted {wanted}"),
                        ));
                    };
                    let e = self.visit(*next)?;
                    let op_id = self.id(&Ctx::Tok(*op));
                    terms.push(e);
                    op_ids.push(op_id);
                }
                Ok(balanced(function, terms, &op_ids))
            }
            _ => Ok(Expr::unspecified(0)),
        }
    }

    #[inline(never)]
    fn visit_binary(&mut self, node: &'a Node) -> Result<Expr, Abort> {
        match node {
            Node::Binary { lhs, op, rhs } => {
                let l = self.visit(*lhs)?;
                let op_id = self.id(&Ctx::Tok(*op));
                let r = self.visit(*rhs)?;
                let function = match self.tok(*op).map(|t| t.kind) {
                    Some(Tok::Equals) => "_==_",
                    Some(Tok::NotEquals) => "_!=_",
                    Some(Tok::In) => "@in",
                    Some(Tok::Less) => "_<_",
                    Some(Tok::LessEquals) => "_<=_",
                    Some(Tok::GreaterEquals) => "_>=_",
                    Some(Tok::Greater) => "_>_",
                    Some(Tok::Plus) => "_+_",
                    Some(Tok::Minus) => "_-_",
                    Some(Tok::Star) => "_*_",
                    Some(Tok::Slash) => "_/_",
                    _ => "_%_",
                };
                Ok(self.global_call_or_macro(op_id, function, vec![l, r]))
            }
            _ => Ok(Expr::unspecified(0)),
        }
    }

    #[inline(never)]
    fn visit_unary_op(&mut self, node: &'a Node) -> Result<Expr, Abort> {
        match node {
            Node::Not {
                first,
                count,
                member,
            }
            | Node::Neg {
                first,
                count,
                member,
            } => {
                if count % 2 == 0 {
                    return self.visit(*member);
                }
                let function = if matches!(node, Node::Not { .. }) {
                    "!_"
                } else {
                    "-_"
                };
                let op_id = self.id(&Ctx::Tok(*first));
                let target = self.visit(*member)?;
                Ok(self.global_call_or_macro(op_id, function, vec![target]))
            }
            _ => Ok(Expr::unspecified(0)),
        }
    }

    #[inline(never)]
    fn visit_unary_error(&mut self, node: &'a Node) -> Result<Expr, Abort> {
        match node {
            Node::UnaryError { start } => {
                let id = self.id(&Ctx::Rule(*start, 0));
                Ok(Expr::new(
                    id,
                    ExprKind::Literal(Literal::String("<<error>>".to_string())),
                ))
            }
            _ => Ok(Expr::unspecified(0)),
        }
    }

    #[inline(never)]
    fn visit_select(&mut self, node: &'a Node) -> Result<Expr, Abort> {
        match node {
            Node::Select {
                operand,
                op,
                opt,
                id,
            } => {
                let operand = self.visit(*operand)?;
                let Some(esc) = id else {
                    return Ok(self.unspecified(Ctx::Tok(*op)));
                };
                let (name, id_tok) = match self.normalize_ident(Some(*esc)) {
                    Ok(v) => v,
                    Err((msg, t)) => {
                        self.report(Ctx::Rule(t, self.byte_len(t)), msg);
                        (String::new(), t)
                    }
                };
                if opt.is_some() {
                    if !self.opts.optional_syntax {
                        return Ok(self.report(Ctx::Tok(*op), "unsupported syntax '.?'"));
                    }
                    let lit_id = self.id(&Ctx::Rule(id_tok, self.byte_len(id_tok)));
                    let lit = Expr::new(lit_id, ExprKind::Literal(Literal::String(name)));
                    let call_id = self.id(&Ctx::Tok(*op));
                    return Ok(Expr::new(
                        call_id,
                        ExprKind::Call(Box::new(CallExpr {
                            function: "_?._".to_string(),
                            target: None,
                            args: vec![operand, lit],
                        })),
                    ));
                }
                let sel_id = self.id(&Ctx::Tok(*op));
                Ok(Expr::new(
                    sel_id,
                    ExprKind::Select(Box::new(SelectExpr {
                        operand,
                        field: name,
                        test_only: false,
                    })),
                ))
            }
            _ => Ok(Expr::unspecified(0)),
        }
    }

    #[inline(never)]
    fn visit_member_call(&mut self, node: &'a Node) -> Result<Expr, Abort> {
        match node {
            Node::MemberCall {
                operand,
                start,
                id,
                open,
                args,
            } => {
                let operand = self.visit(*operand)?;
                let Some(id) = id else {
                    return Ok(self.unspecified(Ctx::Rule(*start, 0)));
                };
                let name = self.text(*id);
                let op_id = match open {
                    Some(o) => self.id(&Ctx::Tok(*o)),
                    None => -1,
                };
                let args = self.visit_list(args.as_deref())?;
                Ok(self.receiver_call_or_macro(op_id, &name, operand, args))
            }
            _ => Ok(Expr::unspecified(0)),
        }
    }

    #[inline(never)]
    fn visit_index(&mut self, node: &'a Node) -> Result<Expr, Abort> {
        match node {
            Node::Index {
                operand,
                op,
                opt,
                index,
            } => {
                let target = self.visit(*operand)?;
                let op_id = self.id(&Ctx::Tok(*op));
                let index = self.visit(*index)?;
                let function = if opt.is_some() {
                    if !self.opts.optional_syntax {
                        return Ok(self.report(Ctx::Tok(*op), "unsupported syntax '[?'"));
                    }
                    "_[?_]"
                } else {
                    "_[_]"
                };
                Ok(self.global_call_or_macro(op_id, function, vec![target, index]))
            }
            _ => Ok(Expr::unspecified(0)),
        }
    }

    #[inline(never)]
    fn visit_ident(&mut self, node: &'a Node) -> Result<Expr, Abort> {
        match node {
            Node::Ident { start, dot, id } => {
                let Some(id) = id else {
                    return Ok(self.unspecified(Ctx::Rule(*start, 0)));
                };
                let name = self.text(*id);
                if crate::RESERVED_WORDS.contains(&name.as_str()) {
                    let len = self.byte_len(*start);
                    return Ok(self.report(
                        Ctx::Rule(*start, len),
                        format!("reserved identifier: {name}"),
                    ));
                }
                let full = if *dot { format!(".{name}") } else { name };
                let ident_id = self.id(&Ctx::Tok(*id));
                Ok(Expr::new(ident_id, ExprKind::Ident(full)))
            }
            _ => Ok(Expr::unspecified(0)),
        }
    }

    #[inline(never)]
    fn visit_global_call(&mut self, node: &'a Node) -> Result<Expr, Abort> {
        match node {
            Node::GlobalCall {
                start,
                dot,
                id,
                op,
                args,
            } => {
                let Some(id) = id else {
                    return Ok(self.unspecified(Ctx::Rule(*start, 0)));
                };
                let name = self.text(*id);
                if crate::RESERVED_WORDS.contains(&name.as_str()) {
                    let len = self.byte_len(*start);
                    return Ok(self.report(
                        Ctx::Rule(*start, len),
                        format!("reserved identifier: {name}"),
                    ));
                }
                let full = if *dot { format!(".{name}") } else { name };
                let op_id = match op {
                    Some(o) => self.id(&Ctx::Tok(*o)),
                    None => -1,
                };
                let args = self.visit_list(args.as_deref())?;
                Ok(self.global_call_or_macro(op_id, &full, args))
            }
            _ => Ok(Expr::unspecified(0)),
        }
    }

    #[inline(never)]
    fn visit_create_list(&mut self, node: &'a Node) -> Result<Expr, Abort> {
        match node {
            Node::List { op, elems } => {
                let list_id = self.id(&Ctx::Tok(*op));
                let mut elements = Vec::with_capacity(elems.len());
                let mut optional_indices = Vec::new();
                for (i, (q, e)) in elems.iter().enumerate() {
                    let ex = self.visit(*e)?;
                    elements.push(ex);
                    if let Some(q) = q {
                        if !self.opts.optional_syntax {
                            self.report(Ctx::Tok(*q), "unsupported syntax '?'");
                            continue;
                        }
                        optional_indices.push(i32::try_from(i).unwrap_or(i32::MAX));
                    }
                }
                Ok(Expr::new(
                    list_id,
                    ExprKind::List(ListExpr {
                        elements,
                        optional_indices,
                    }),
                ))
            }
            _ => Ok(Expr::unspecified(0)),
        }
    }

    #[inline(never)]
    fn visit_map(&mut self, node: &'a Node) -> Result<Expr, Abort> {
        match node {
            Node::Map { op, entries } => {
                let map_id = self.id(&Ctx::Tok(*op));
                let entries = match entries {
                    Some(m) => self.visit_map_init(m)?,
                    None => Vec::new(),
                };
                Ok(Expr::new(map_id, ExprKind::Map(MapExpr { entries })))
            }
            _ => Ok(Expr::unspecified(0)),
        }
    }

    #[inline(never)]
    fn visit_message(&mut self, node: &'a Node) -> Result<Expr, Abort> {
        match node {
            Node::Message {
                dot,
                ids,
                op,
                fields,
            } => {
                let mut name = ids
                    .iter()
                    .map(|t| self.text(*t))
                    .collect::<Vec<_>>()
                    .join(".");
                if *dot {
                    name = format!(".{name}");
                }
                let obj_id = match op {
                    Some(o) => self.id(&Ctx::Tok(*o)),
                    None => -1,
                };
                let fields = match fields {
                    Some(f) => self.visit_field_init(f)?,
                    None => Vec::new(),
                };
                Ok(Expr::new(
                    obj_id,
                    ExprKind::Struct(StructExpr {
                        type_name: name,
                        fields,
                    }),
                ))
            }
            _ => Ok(Expr::unspecified(0)),
        }
    }
    #[inline(never)]
    fn normalize_ident(&self, id: Option<EscId>) -> Result<(String, T), (String, T)> {
        match id {
            Some(EscId::Simple(t)) => Ok((self.text(t), t)),
            Some(EscId::Escaped(t)) => {
                if !self.opts.ident_escape {
                    return Err(("unsupported syntax: '`'".to_string(), t));
                }
                let text: Vec<char> = self.text(t).chars().collect();
                if text.len() <= 2 {
                    return Err(("invalid escaped identifier: underflow".to_string(), t));
                }
                Ok((
                    text.get(1..text.len() - 1).unwrap_or(&[]).iter().collect(),
                    t,
                ))
            }
            Some(EscId::Failed(t)) => Err(("unsupported ident kind".to_string(), t)),
            None => Err(("unsupported ident kind".to_string(), 0)),
        }
    }

    fn visit_list(&mut self, args: Option<&[Option<N>]>) -> Result<Vec<Expr>, Abort> {
        let mut out = Vec::new();
        for a in args.unwrap_or(&[]) {
            out.push(self.visit(*a)?);
        }
        Ok(out)
    }

    #[inline(never)]
    fn visit_map_init(&mut self, m: &'a MapInit) -> Result<Vec<MapEntry>, Abort> {
        if m.keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for (i, col) in m.cols.iter().enumerate() {
            let col_id = self.id(&Ctx::Tok(*col));
            let (Some((kstart, q, key)), Some(value)) = (m.keys.get(i), m.values.get(i)) else {
                return Ok(Vec::new());
            };
            if q.is_some() && !self.opts.optional_syntax {
                let len = self.byte_len(*kstart);
                self.report(Ctx::Rule(*kstart, len), "unsupported syntax '?'");
                continue;
            }
            let key = self.visit(*key)?;
            let value = self.visit(*value)?;
            out.push(MapEntry {
                id: col_id,
                key,
                value,
                optional: q.is_some(),
            });
        }
        Ok(out)
    }

    #[inline(never)]
    fn visit_field_init(&mut self, f: &'a FieldInit) -> Result<Vec<StructField>, Abort> {
        let mut out = Vec::new();
        for (i, (fstart, q, esc)) in f.fields.iter().enumerate() {
            let (Some(col), Some(value)) = (f.cols.get(i), f.values.get(i)) else {
                return Ok(Vec::new());
            };
            let init_id = self.id(&Ctx::Tok(*col));
            if q.is_some() && !self.opts.optional_syntax {
                let len = self.byte_len(*fstart);
                self.report(Ctx::Rule(*fstart, len), "unsupported syntax '?'");
                continue;
            }
            let name = match self.normalize_ident(*esc) {
                Ok((n, _)) => n,
                Err((msg, _)) => {
                    let len = self.byte_len(f.start);
                    self.report(Ctx::Rule(f.start, len), msg);
                    continue;
                }
            };
            let value = self.visit(*value)?;
            out.push(StructField {
                id: init_id,
                name,
                value,
                optional: q.is_some(),
            });
        }
        Ok(out)
    }

    #[inline(never)]
    fn visit_literal(&mut self, kind: LitKind, start: T, sign: Option<T>, tok: Option<T>) -> Expr {
        let tok_text = tok.map(|t| self.text(t)).unwrap_or_default();
        let sign_text = sign.map(|t| self.text(t)).unwrap_or_default();
        let len = i32::try_from(sign_text.len() + tok_text.len()).unwrap_or(i32::MAX);
        let ctx = Ctx::Rule(start, len);
        let value = match kind {
            LitKind::Int => {
                let (digits, radix) = match tok_text.strip_prefix("0x") {
                    Some(h) => (h, 16),
                    None => (tok_text.as_str(), 10),
                };
                let text = format!("{sign_text}{digits}");
                match crd_studio_gostd::strconv::parse_int(&text, radix).ok() {
                    Some(v) => Literal::Int(v),
                    None => return self.report(ctx, "invalid int literal"),
                }
            }
            LitKind::Uint => {
                let mut text = tok_text.clone();
                text.pop();
                let (digits, radix) = match text.strip_prefix("0x") {
                    Some(h) => (h.to_string(), 16),
                    None => (text.clone(), 10),
                };
                match u64::from_str_radix(&digits, radix) {
                    Ok(v) if !digits.starts_with('+') && !digits.is_empty() => Literal::Uint(v),
                    _ => return self.report(ctx, "invalid uint literal"),
                }
            }
            LitKind::Double => {
                let text = format!("{sign_text}{tok_text}");
                match text.parse::<f64>() {
                    Ok(v) if v.is_finite() => Literal::Double(v),
                    _ => return self.report(ctx, "invalid double literal"),
                }
            }
            LitKind::String => match unescape(&tok_text, false) {
                Ok(b) => Literal::String(String::from_utf8_lossy(&b).into_owned()),
                Err(msg) => {
                    self.report(Ctx::Rule(start, len), msg);
                    Literal::String(tok_text.clone())
                }
            },
            LitKind::Bytes => {
                let body = tok_text.get(1..).unwrap_or("");
                match unescape(body, true) {
                    Ok(b) => Literal::Bytes(b),
                    Err(msg) => {
                        self.report(Ctx::Rule(start, len), msg);
                        Literal::Bytes(body.as_bytes().to_vec())
                    }
                }
            }
            LitKind::True => Literal::Bool(true),
            LitKind::False => Literal::Bool(false),
            LitKind::Null => Literal::Null,
        };
        let id = self.id(&ctx);
        Expr::new(id, ExprKind::Literal(value))
    }

    fn global_call_or_macro(&mut self, id: i64, function: &str, args: Vec<Expr>) -> Expr {
        self.call_or_macro(id, function, None, args)
    }

    fn receiver_call_or_macro(
        &mut self,
        id: i64,
        function: &str,
        target: Expr,
        args: Vec<Expr>,
    ) -> Expr {
        self.call_or_macro(id, function, Some(target), args)
    }

    #[inline(never)]
    fn call_or_macro(
        &mut self,
        id: i64,
        function: &str,
        target: Option<Expr>,
        args: Vec<Expr>,
    ) -> Expr {
        let found = self
            .opts
            .macros
            .find(function, args.len(), target.is_some());
        let (target, args) = match found {
            None => (target, args),
            Some(m) => {
                self.macro_at = id;
                let accu = self.opts.accumulator;
                match expand(m, self, accu, target, args) {
                    Expansion::Expanded(e) => {
                        self.delete_id(id);
                        return e;
                    }
                    Expansion::Error(e) => {
                        // cel-go's macro errors carry the argument's start location
                        // (NoLocation when it has none).
                        let loc = self.start_location(e.id);
                        self.delete_id(id);
                        return self.report(Ctx::Loc(loc), e.message);
                    }
                    Expansion::NotApplicable(t, a) => (t, a),
                }
            }
        };
        Expr::new(
            id,
            ExprKind::Call(Box::new(CallExpr {
                function: function.to_string(),
                target,
                args,
            })),
        )
    }
}

impl MacroIds for Visitor<'_> {
    fn next_macro_id(&mut self) -> i64 {
        let loc = self.start_location(self.macro_at);
        self.id(&Ctx::Loc(loc))
    }

    fn copy_id(&mut self, id: i64) -> i64 {
        let range = self
            .offsets
            .get(&id)
            .copied()
            .unwrap_or(OffsetRange { start: 0, stop: 0 });
        self.id_range(range)
    }
}

/// cel-go's balancing logic manager: `a || b || c || d` becomes a balanced tree whose nodes
/// take the operator ids.
fn balanced(function: &str, terms: Vec<Expr>, ops: &[i64]) -> Expr {
    if terms.len() == 1 || ops.is_empty() {
        return terms
            .into_iter()
            .next()
            .unwrap_or_else(|| Expr::unspecified(0));
    }
    let mut slots: Vec<Option<Expr>> = terms.into_iter().map(Some).collect();
    build(function, &mut slots, ops, 0, ops.len() - 1)
}

fn build(function: &str, terms: &mut [Option<Expr>], ops: &[i64], lo: usize, hi: usize) -> Expr {
    let mid = (lo + hi).div_ceil(2);
    let left = if mid == lo {
        take(terms, mid)
    } else {
        build(function, terms, ops, lo, mid - 1)
    };
    let right = if mid == hi {
        take(terms, mid + 1)
    } else {
        build(function, terms, ops, mid + 1, hi)
    };
    Expr::new(
        ops.get(mid).copied().unwrap_or(0),
        ExprKind::Call(Box::new(CallExpr {
            function: function.to_string(),
            target: None,
            args: vec![left, right],
        })),
    )
}

fn take(terms: &mut [Option<Expr>], i: usize) -> Expr {
    terms
        .get_mut(i)
        .and_then(Option::take)
        .unwrap_or_else(|| Expr::unspecified(0))
}
