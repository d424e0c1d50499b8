//! A debug printer in the format of cel-go's `common/debug` (used by cel-go's parser tests), with
//! optional adornments: `^#id:kind#` as the parser tests print them, or `^#id[line,col]#`.

use crate::ast::{Expr, ExprKind, Literal, ParsedExpr};

/// What is appended after each node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Adorn {
    /// Nothing (`debug.ToDebugString`).
    None,
    /// `^#<id>:<proto kind>#`, as cel-go's parser tests print the structure.
    KindAndId,
    /// `^#<id>[<line>,<column>]#`, as cel-go's parser tests print locations.
    Location,
}

/// Renders an expression as cel-go's debug writer does.
pub fn to_debug_string(parsed: &ParsedExpr, adorn: Adorn) -> String {
    let mut w = Writer {
        out: String::new(),
        indent: 0,
        line_start: true,
        adorn,
        parsed,
    };
    w.expr(&parsed.expr);
    w.out
}

struct Writer<'a> {
    out: String,
    indent: usize,
    line_start: bool,
    adorn: Adorn,
    parsed: &'a ParsedExpr,
}

impl Writer<'_> {
    fn append(&mut self, s: &str) {
        if self.line_start {
            self.line_start = false;
            for _ in 0..self.indent {
                self.out.push_str("  ");
            }
        }
        self.out.push_str(s);
    }

    fn newline(&mut self) {
        self.out.push('\n');
        self.line_start = true;
    }

    fn adorn_expr(&mut self, e: &Expr) {
        let s = match self.adorn {
            Adorn::None => String::new(),
            Adorn::KindAndId => format!("^#{}:{}#", e.id, kind_name(e)),
            Adorn::Location => self.location(e.id),
        };
        self.append(&s);
    }

    fn adorn_entry(&mut self, id: i64) {
        let s = match self.adorn {
            Adorn::None => String::new(),
            Adorn::KindAndId => format!("^#{id}:*expr.Expr_CreateStruct_Entry#"),
            Adorn::Location => self.location(id),
        };
        self.append(&s);
    }

    fn location(&self, id: i64) -> String {
        let loc = self.parsed.source_info.start_location(id);
        format!("^#{}[{},{}]#", id, loc.line, loc.column)
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Unspecified => {}
            ExprKind::Literal(l) => {
                let s = format_literal(l);
                self.append(&s);
            }
            ExprKind::Ident(n) => self.append(n),
            ExprKind::Select(s) => {
                self.expr(&s.operand);
                self.append(".");
                self.append(&s.field);
                if s.test_only {
                    self.append("~test-only~");
                }
            }
            ExprKind::Call(c) => {
                if let Some(t) = &c.target {
                    self.expr(t);
                    self.append(".");
                }
                self.append(&c.function);
                self.append("(");
                if !c.args.is_empty() {
                    self.indent += 1;
                    self.newline();
                    for (i, a) in c.args.iter().enumerate() {
                        if i > 0 {
                            self.append(",");
                            self.newline();
                        }
                        self.expr(a);
                    }
                    self.indent -= 1;
                    self.newline();
                }
                self.append(")");
            }
            ExprKind::List(l) => {
                self.append("[");
                if !l.elements.is_empty() {
                    self.newline();
                    self.indent += 1;
                    for (i, x) in l.elements.iter().enumerate() {
                        if i > 0 {
                            self.append(",");
                            self.newline();
                        }
                        self.expr(x);
                    }
                    self.indent -= 1;
                    self.newline();
                }
                self.append("]");
            }
            ExprKind::Map(m) => {
                self.append("{");
                if !m.entries.is_empty() {
                    self.newline();
                    self.indent += 1;
                    for (i, en) in m.entries.iter().enumerate() {
                        if i > 0 {
                            self.append(",");
                            self.newline();
                        }
                        if en.optional {
                            self.append("?");
                        }
                        self.expr(&en.key);
                        self.append(":");
                        self.expr(&en.value);
                        self.adorn_entry(en.id);
                    }
                    self.indent -= 1;
                    self.newline();
                }
                self.append("}");
            }
            ExprKind::Struct(s) => {
                self.append(&s.type_name);
                self.append("{");
                if !s.fields.is_empty() {
                    self.newline();
                    self.indent += 1;
                    for (i, f) in s.fields.iter().enumerate() {
                        if i > 0 {
                            self.append(",");
                            self.newline();
                        }
                        if f.optional {
                            self.append("?");
                        }
                        self.append(&f.name);
                        self.append(":");
                        self.expr(&f.value);
                        self.adorn_entry(f.id);
                    }
                    self.indent -= 1;
                    self.newline();
                }
                self.append("}");
            }
            ExprKind::Comprehension(c) => {
                self.append("__comprehension__(");
                self.indent += 1;
                self.newline();
                self.append("// Variable");
                self.newline();
                self.append(&c.iter_var);
                self.append(",");
                self.newline();
                if !c.iter_var2.is_empty() {
                    self.append(&c.iter_var2);
                    self.append(",");
                    self.newline();
                }
                let parts: [(&str, Option<&Expr>); 6] = [
                    ("// Target", Some(&c.iter_range)),
                    ("// Accumulator", None),
                    ("// Init", Some(&c.accu_init)),
                    ("// LoopCondition", Some(&c.loop_condition)),
                    ("// LoopStep", Some(&c.loop_step)),
                    ("// Result", Some(&c.result)),
                ];
                for (i, (label, e)) in parts.iter().enumerate() {
                    self.append(label);
                    self.newline();
                    match e {
                        Some(e) => self.expr(e),
                        None => self.append(&c.accu_var),
                    }
                    if i < 5 {
                        self.append(",");
                        self.newline();
                    }
                }
                self.append(")");
                self.indent -= 1;
            }
        }
        self.adorn_expr(e);
    }
}

fn kind_name(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Call(_) => "*expr.Expr_CallExpr",
        ExprKind::Comprehension(_) => "*expr.Expr_ComprehensionExpr",
        ExprKind::Ident(_) => "*expr.Expr_IdentExpr",
        ExprKind::Literal(l) => match l {
            Literal::Bool(_) => "*expr.Constant_BoolValue",
            Literal::Bytes(_) => "*expr.Constant_BytesValue",
            Literal::Double(_) => "*expr.Constant_DoubleValue",
            Literal::Int(_) => "*expr.Constant_Int64Value",
            Literal::Null => "*expr.Constant_NullValue",
            Literal::String(_) => "*expr.Constant_StringValue",
            Literal::Uint(_) => "*expr.Constant_Uint64Value",
        },
        ExprKind::List(_) => "*expr.Expr_ListExpr",
        ExprKind::Map(_) | ExprKind::Struct(_) => "*expr.Expr_StructExpr",
        ExprKind::Select(_) => "*expr.Expr_SelectExpr",
        ExprKind::Unspecified => "",
    }
}

/// A literal as cel-go's debug printer writes it (Go's `%v` for doubles, `strconv.Quote` for
/// strings and bytes).
pub fn format_literal(l: &Literal) -> String {
    match l {
        Literal::Null => "null".to_string(),
        Literal::Bool(b) => b.to_string(),
        Literal::Int(i) => i.to_string(),
        Literal::Uint(u) => format!("{u}u"),
        Literal::Double(d) => go_float(*d),
        Literal::String(s) => crd_studio_gostd::strconv::quote_bytes(s.as_bytes()),
        Literal::Bytes(b) => format!("b{}", crd_studio_gostd::strconv::quote_bytes(b)),
    }
}

/// Go's `%v` for a float64 (`strconv.FormatFloat(f, 'g', -1, 64)` with Go's exponent rules:
/// exponent form when the exponent is < -4 or >= 21).
pub fn go_float(d: f64) -> String {
    if d.is_nan() {
        return "NaN".to_string();
    }
    if d.is_infinite() {
        return if d > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // Shortest round-trip digits from Rust's `{:e}`.
    let e = format!("{d:e}");
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..21).contains(&exp) {
        let s = format!("{d}");
        return s;
    }
    let sign = if exp < 0 { '-' } else { '+' };
    let abs = exp.unsigned_abs();
    if abs < 10 {
        format!("{mant}e{sign}0{abs}")
    } else {
        format!("{mant}e{sign}{abs}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_as_go() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1"),
            (0.5, "0.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (-2.25, "-2.25"),
            (1e100, "1e+100"),
        ];
        for (v, want) in cases {
            assert_eq!(go_float(*v), *want, "{v}");
        }
    }
}
