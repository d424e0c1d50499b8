//! Macros, expanded exactly as cel-go expands them (same AST shape, same id order): the
//! standard macros (`has`, `all`, `exists`, `exists_one`, `existsOne`, `map`, `filter`), the
//! two-variable comprehensions of `ext.TwoVarComprehensions`, `cel.bind` of `ext.Bindings`,
//! `optMap`/`optFlatMap` of the optional library, and `sortBy` of `ext.Lists` (version 2 on).

use crate::ast::{CallExpr, ComprehensionExpr, Expr, ExprKind, ListExpr, Literal, MapExpr};
use crate::ast::{MapEntry, SelectExpr, StructExpr, StructField};

/// One macro: a function name, arity and call style, and how it expands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Macro {
    /// `has(a.f)`: a presence test.
    Has,
    /// `r.all(x, p)`.
    All,
    /// `r.exists(x, p)`.
    Exists,
    /// `r.exists_one(x, p)`.
    ExistsOne,
    /// `r.existsOne(x, p)` (in cel-go's `parser.AllMacros`, not in `cel.StandardMacros`).
    ExistsOneCamel,
    /// `r.map(x, f)`.
    Map,
    /// `r.map(x, p, f)`.
    MapFilter,
    /// `r.filter(x, p)`.
    Filter,
    /// `r.all(k, v, p)` (two-variable comprehensions).
    AllTwoVar,
    /// `r.exists(k, v, p)`.
    ExistsTwoVar,
    /// `r.existsOne(k, v, p)`.
    ExistsOneTwoVar,
    /// `r.exists_one(k, v, p)`.
    ExistsOneSnakeTwoVar,
    /// `r.transformList(k, v, f)`.
    TransformList,
    /// `r.transformList(k, v, p, f)`.
    TransformListFilter,
    /// `r.transformMap(k, v, f)`.
    TransformMap,
    /// `r.transformMap(k, v, p, f)`.
    TransformMapFilter,
    /// `r.transformMapEntry(k, v, f)`.
    TransformMapEntry,
    /// `r.transformMapEntry(k, v, p, f)`.
    TransformMapEntryFilter,
    /// `cel.bind(v, init, expr)`.
    Bind,
    /// `opt.optMap(x, f)`.
    OptMap,
    /// `opt.optFlatMap(x, f)`.
    OptFlatMap,
    /// `l.sortBy(e, key)` (`ext.Lists`, version 2 on).
    SortBy,
}

impl Macro {
    /// (function name, argument count, receiver style).
    pub fn signature(self) -> (&'static str, usize, bool) {
        match self {
            Macro::Has => ("has", 1, false),
            Macro::All => ("all", 2, true),
            Macro::Exists => ("exists", 2, true),
            Macro::ExistsOne => ("exists_one", 2, true),
            Macro::ExistsOneCamel => ("existsOne", 2, true),
            Macro::Map => ("map", 2, true),
            Macro::MapFilter => ("map", 3, true),
            Macro::Filter => ("filter", 2, true),
            Macro::AllTwoVar => ("all", 3, true),
            Macro::ExistsTwoVar => ("exists", 3, true),
            Macro::ExistsOneTwoVar => ("existsOne", 3, true),
            Macro::ExistsOneSnakeTwoVar => ("exists_one", 3, true),
            Macro::TransformList => ("transformList", 3, true),
            Macro::TransformListFilter => ("transformList", 4, true),
            Macro::TransformMap => ("transformMap", 3, true),
            Macro::TransformMapFilter => ("transformMap", 4, true),
            Macro::TransformMapEntry => ("transformMapEntry", 3, true),
            Macro::TransformMapEntryFilter => ("transformMapEntry", 4, true),
            Macro::Bind => ("bind", 3, true),
            Macro::OptMap => ("optMap", 2, true),
            Macro::OptFlatMap => ("optFlatMap", 2, true),
            Macro::SortBy => ("sortBy", 2, true),
        }
    }
}

/// The set of enabled macros.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MacroSet {
    macros: Vec<Macro>,
}

impl MacroSet {
    /// No macros.
    pub fn none() -> Self {
        MacroSet { macros: Vec::new() }
    }

    /// `cel.StandardMacros`, what `cel.StdLib()` (and so Kubernetes) enables: has, all, exists,
    /// exists_one, map (2 and 3 arguments), filter. Not `existsOne` with 2 arguments.
    pub fn standard() -> Self {
        MacroSet {
            macros: vec![
                Macro::Has,
                Macro::All,
                Macro::Exists,
                Macro::ExistsOne,
                Macro::Map,
                Macro::MapFilter,
                Macro::Filter,
            ],
        }
    }

    /// `parser.AllMacros`: the standard set plus `existsOne` with 2 arguments.
    pub fn parser_all() -> Self {
        let mut m = Self::standard();
        m.add(Macro::ExistsOneCamel);
        m
    }

    /// Adds the macros of `ext.TwoVarComprehensions()`.
    pub fn with_two_var_comprehensions(mut self) -> Self {
        for m in [
            Macro::AllTwoVar,
            Macro::ExistsTwoVar,
            Macro::ExistsOneTwoVar,
            Macro::ExistsOneSnakeTwoVar,
            Macro::TransformList,
            Macro::TransformListFilter,
            Macro::TransformMap,
            Macro::TransformMapFilter,
            Macro::TransformMapEntry,
            Macro::TransformMapEntryFilter,
        ] {
            self.add(m);
        }
        self
    }

    /// Adds `cel.bind` (`ext.Bindings()`).
    pub fn with_bindings(mut self) -> Self {
        self.add(Macro::Bind);
        self
    }

    /// Adds the optional library's macros: `optMap`, and `optFlatMap` from version 1.
    pub fn with_optional(mut self, version: u32) -> Self {
        self.add(Macro::OptMap);
        if version >= 1 {
            self.add(Macro::OptFlatMap);
        }
        self
    }

    /// Adds the macros of `ext.Lists` at a version: `sortBy` from version 2.
    pub fn with_lists(mut self, version: u32) -> Self {
        if version >= 2 {
            self.add(Macro::SortBy);
        }
        self
    }

    /// Adds one macro (replacing one with the same signature, as cel-go's map does).
    pub fn add(&mut self, m: Macro) {
        let sig = m.signature();
        self.macros.retain(|x| x.signature() != sig);
        self.macros.push(m);
    }

    /// The enabled macros.
    pub fn macros(&self) -> &[Macro] {
        &self.macros
    }

    /// The macro for a call, if any.
    pub fn find(&self, function: &str, argc: usize, receiver: bool) -> Option<Macro> {
        self.macros.iter().copied().find(|m| {
            let (f, n, r) = m.signature();
            f == function && n == argc && r == receiver
        })
    }
}

/// What the expander needs from the parser: fresh ids placed at the macro call.
pub(crate) trait MacroIds {
    /// A fresh id at the macro call's location (cel-go's `nextMacroID`).
    fn next_macro_id(&mut self) -> i64;
    /// A fresh id with the same offsets as `id` (cel-go's `Copy`).
    fn copy_id(&mut self, id: i64) -> i64;
}

/// A macro argument error: the id whose location the error takes, and the message.
pub(crate) struct MacroError {
    pub id: i64,
    pub message: String,
}

/// Outcome of an expansion.
pub(crate) enum Expansion {
    Expanded(Expr),
    /// The macro declined (cel.bind on a target other than `cel`): the call stays a call.
    NotApplicable(Option<Expr>, Vec<Expr>),
    Error(MacroError),
}

const ACCUMULATOR_NAME: &str = "__result__";
const UNUSED_ITER_VAR: &str = "#unused";
/// The variable `sortBy` binds its target to.
const SORT_BY_INPUT: &str = "@__sortBy_input__";

struct H<'a> {
    ids: &'a mut dyn MacroIds,
    accu: &'a str,
}

impl H<'_> {
    fn id(&mut self) -> i64 {
        self.ids.next_macro_id()
    }
    fn lit(&mut self, v: Literal) -> Expr {
        let id = self.id();
        Expr::new(id, ExprKind::Literal(v))
    }
    fn accu(&mut self) -> Expr {
        let id = self.id();
        Expr::new(id, ExprKind::Ident(self.accu.to_string()))
    }
    fn ident(&mut self, name: &str) -> Expr {
        let id = self.id();
        Expr::new(id, ExprKind::Ident(name.to_string()))
    }
    fn call(&mut self, function: &str, args: Vec<Expr>) -> Expr {
        let id = self.id();
        Expr::new(
            id,
            ExprKind::Call(Box::new(CallExpr {
                function: function.to_string(),
                target: None,
                args,
            })),
        )
    }
    fn member_call(&mut self, function: &str, target: Expr, args: Vec<Expr>) -> Expr {
        let id = self.id();
        Expr::new(
            id,
            ExprKind::Call(Box::new(CallExpr {
                function: function.to_string(),
                target: Some(target),
                args,
            })),
        )
    }
    fn list(&mut self, elements: Vec<Expr>) -> Expr {
        let id = self.id();
        Expr::new(
            id,
            ExprKind::List(ListExpr {
                elements,
                optional_indices: Vec::new(),
            }),
        )
    }
    fn map(&mut self) -> Expr {
        let id = self.id();
        Expr::new(
            id,
            ExprKind::Map(MapExpr {
                entries: Vec::new(),
            }),
        )
    }
    #[allow(clippy::too_many_arguments)]
    fn fold(
        &mut self,
        iter_range: Expr,
        iter_var: &str,
        iter_var2: &str,
        accu_var: &str,
        accu_init: Expr,
        loop_condition: Expr,
        loop_step: Expr,
        result: Expr,
    ) -> Expr {
        let id = self.id();
        Expr::new(
            id,
            ExprKind::Comprehension(Box::new(ComprehensionExpr {
                iter_range,
                iter_var: iter_var.to_string(),
                iter_var2: iter_var2.to_string(),
                accu_var: accu_var.to_string(),
                accu_init,
                loop_condition,
                loop_step,
                result,
            })),
        )
    }

    /// cel-go's `ExprHelper.Copy`: a deep copy with fresh ids (pre-order), each keeping the
    /// original's offsets; entries take macro ids.
    fn copy(&mut self, e: &Expr) -> Expr {
        let id = self.ids.copy_id(e.id);
        let kind = match &e.kind {
            ExprKind::Unspecified => ExprKind::Unspecified,
            ExprKind::Literal(l) => ExprKind::Literal(l.clone()),
            ExprKind::Ident(n) => ExprKind::Ident(n.clone()),
            ExprKind::Select(s) => {
                let operand = self.copy(&s.operand);
                ExprKind::Select(Box::new(SelectExpr {
                    operand,
                    field: s.field.clone(),
                    test_only: s.test_only,
                }))
            }
            ExprKind::Call(c) => {
                let args: Vec<Expr> = c.args.iter().map(|a| self.copy(a)).collect();
                let target = c.target.as_ref().map(|t| self.copy(t));
                ExprKind::Call(Box::new(CallExpr {
                    function: c.function.clone(),
                    target,
                    args,
                }))
            }
            ExprKind::List(l) => ExprKind::List(ListExpr {
                elements: l.elements.iter().map(|x| self.copy(x)).collect(),
                optional_indices: l.optional_indices.clone(),
            }),
            ExprKind::Map(m) => {
                let mut entries = Vec::with_capacity(m.entries.len());
                for en in &m.entries {
                    let eid = self.id();
                    let key = self.copy(&en.key);
                    let value = self.copy(&en.value);
                    entries.push(MapEntry {
                        id: eid,
                        key,
                        value,
                        optional: en.optional,
                    });
                }
                ExprKind::Map(MapExpr { entries })
            }
            ExprKind::Struct(s) => {
                let mut fields = Vec::with_capacity(s.fields.len());
                for f in &s.fields {
                    let fid = self.id();
                    let value = self.copy(&f.value);
                    fields.push(StructField {
                        id: fid,
                        name: f.name.clone(),
                        value,
                        optional: f.optional,
                    });
                }
                ExprKind::Struct(StructExpr {
                    type_name: s.type_name.clone(),
                    fields,
                })
            }
            ExprKind::Comprehension(c) => {
                let iter_range = self.copy(&c.iter_range);
                let accu_init = self.copy(&c.accu_init);
                let loop_condition = self.copy(&c.loop_condition);
                let loop_step = self.copy(&c.loop_step);
                let result = self.copy(&c.result);
                ExprKind::Comprehension(Box::new(ComprehensionExpr {
                    iter_range,
                    iter_var: c.iter_var.clone(),
                    iter_var2: c.iter_var2.clone(),
                    accu_var: c.accu_var.clone(),
                    accu_init,
                    loop_condition,
                    loop_step,
                    result,
                }))
            }
        };
        Expr::new(id, kind)
    }
}

fn err(id: i64, message: impl Into<String>) -> Expansion {
    Expansion::Error(MacroError {
        id,
        message: message.into(),
    })
}

fn arg(args: &mut Vec<Expr>) -> Expr {
    if args.is_empty() {
        Expr::unspecified(0)
    } else {
        args.remove(0)
    }
}

/// Expands `m` over `target` and `args` (the arity already matches the macro's).
pub(crate) fn expand(
    m: Macro,
    ids: &mut dyn MacroIds,
    accu: &str,
    target: Option<Expr>,
    mut args: Vec<Expr>,
) -> Expansion {
    let mut h = H { ids, accu };
    let target_expr = || target.clone().unwrap_or_else(|| Expr::unspecified(0));
    match m {
        Macro::Has => {
            let a = arg(&mut args);
            match a.kind {
                ExprKind::Select(s) => {
                    let id = h.id();
                    Expansion::Expanded(Expr::new(
                        id,
                        ExprKind::Select(Box::new(SelectExpr {
                            operand: s.operand,
                            field: s.field,
                            test_only: true,
                        })),
                    ))
                }
                _ => err(a.id, "invalid argument to has() macro"),
            }
        }
        Macro::All | Macro::Exists | Macro::ExistsOne | Macro::ExistsOneCamel => {
            let v_expr = arg(&mut args);
            let pred = arg(&mut args);
            let Some(v) = v_expr.as_ident().map(str::to_string) else {
                return err(v_expr.id, "argument must be a simple name");
            };
            if v == accu || v == ACCUMULATOR_NAME {
                return err(
                    v_expr.id,
                    "iteration variable overwrites accumulator variable",
                );
            }
            let (init, cond, step, result) = quantifier(&mut h, m, pred);
            Expansion::Expanded(h.fold(target_expr(), &v, "", accu, init, cond, step, result))
        }
        Macro::Map | Macro::MapFilter | Macro::Filter => {
            let v_expr = arg(&mut args);
            let Some(v) = v_expr.as_ident().map(str::to_string) else {
                return err(v_expr.id, "argument is not an identifier");
            };
            if v == accu || v == ACCUMULATOR_NAME {
                return err(
                    v_expr.id,
                    "iteration variable overwrites accumulator variable",
                );
            }
            let init = h.list(Vec::new());
            let cond = h.lit(Literal::Bool(true));
            let step = if m == Macro::Filter {
                let filter = arg(&mut args);
                let a = h.accu();
                let l = h.list(vec![v_expr]);
                let add = h.call("_+_", vec![a, l]);
                let a2 = h.accu();
                h.call("_?_:_", vec![filter, add, a2])
            } else {
                let (filter, f) = if m == Macro::MapFilter {
                    let filter = arg(&mut args);
                    (Some(filter), arg(&mut args))
                } else {
                    (None, arg(&mut args))
                };
                let a = h.accu();
                let l = h.list(vec![f]);
                let add = h.call("_+_", vec![a, l]);
                match filter {
                    Some(filter) => {
                        let a2 = h.accu();
                        h.call("_?_:_", vec![filter, add, a2])
                    }
                    None => add,
                }
            };
            let result = h.accu();
            Expansion::Expanded(h.fold(target_expr(), &v, "", accu, init, cond, step, result))
        }
        Macro::AllTwoVar
        | Macro::ExistsTwoVar
        | Macro::ExistsOneTwoVar
        | Macro::ExistsOneSnakeTwoVar
        | Macro::TransformList
        | Macro::TransformListFilter
        | Macro::TransformMap
        | Macro::TransformMapFilter
        | Macro::TransformMapEntry
        | Macro::TransformMapEntryFilter => {
            let a0 = arg(&mut args);
            let a1 = arg(&mut args);
            let (v1, v2) = match iter_vars(&a0, &a1, accu) {
                Ok(v) => v,
                Err(e) => return e,
            };
            let (init, cond, step, result) = match m {
                Macro::AllTwoVar | Macro::ExistsTwoVar => {
                    let which = if m == Macro::AllTwoVar {
                        Macro::All
                    } else {
                        Macro::Exists
                    };
                    quantifier(&mut h, which, arg(&mut args))
                }
                Macro::ExistsOneTwoVar | Macro::ExistsOneSnakeTwoVar => {
                    quantifier(&mut h, Macro::ExistsOne, arg(&mut args))
                }
                _ => {
                    let filtered = matches!(
                        m,
                        Macro::TransformListFilter
                            | Macro::TransformMapFilter
                            | Macro::TransformMapEntryFilter
                    );
                    let filter = if filtered { Some(arg(&mut args)) } else { None };
                    let transform = arg(&mut args);
                    let mut step = match m {
                        Macro::TransformList | Macro::TransformListFilter => {
                            let a = h.accu();
                            let l = h.list(vec![transform]);
                            h.call("_+_", vec![a, l])
                        }
                        Macro::TransformMap | Macro::TransformMapFilter => {
                            let a = h.accu();
                            let k = h.ident(&v1);
                            h.call("cel.@mapInsert", vec![a, k, transform])
                        }
                        _ => {
                            let a = h.accu();
                            h.call("cel.@mapInsert", vec![a, transform])
                        }
                    };
                    if let Some(filter) = filter {
                        let a = h.accu();
                        step = h.call("_?_:_", vec![filter, step, a]);
                    }
                    let init = if matches!(m, Macro::TransformList | Macro::TransformListFilter) {
                        h.list(Vec::new())
                    } else {
                        h.map()
                    };
                    let cond = h.lit(Literal::Bool(true));
                    let result = h.accu();
                    (init, cond, step, result)
                }
            };
            Expansion::Expanded(h.fold(target_expr(), &v1, &v2, accu, init, cond, step, result))
        }
        Macro::Bind => {
            let is_cel = matches!(&target, Some(t) if t.as_ident() == Some("cel"));
            if !is_cel {
                return Expansion::NotApplicable(target, args);
            }
            let var = arg(&mut args);
            let init_expr = arg(&mut args);
            let body = arg(&mut args);
            let Some(name) = var.as_ident().map(str::to_string) else {
                return err(
                    var.id,
                    "cel.bind() variable names must be simple identifiers",
                );
            };
            let range = h.list(Vec::new());
            let cond = h.lit(Literal::Bool(false));
            let step = h.ident(&name);
            Expansion::Expanded(h.fold(
                range,
                UNUSED_ITER_VAR,
                "",
                &name,
                init_expr,
                cond,
                step,
                body,
            ))
        }
        Macro::SortBy => {
            // cel-go's `sortByMacro`: `cel.bind(@__sortBy_input__, target,
            // @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key)))`.
            let t = target_expr();
            if !matches!(
                t.kind,
                ExprKind::List(_)
                    | ExprKind::Select(_)
                    | ExprKind::Ident(_)
                    | ExprKind::Comprehension(_)
                    | ExprKind::Call(_)
            ) {
                return err(
                    t.id,
                    "sortBy can only be applied to a list, identifier, comprehension, call or select expression",
                );
            }
            let var = h.ident(SORT_BY_INPUT);
            let map_target = h.copy(&var);
            let map = match expand(Macro::Map, &mut *h.ids, accu, Some(map_target), args) {
                Expansion::Expanded(e) => e,
                other => return other,
            };
            let call_target = h.copy(&var);
            let call = h.member_call("@sortByAssociatedKeys", call_target, vec![map]);
            let range = h.list(Vec::new());
            let cond = h.lit(Literal::Bool(false));
            Expansion::Expanded(h.fold(
                range,
                UNUSED_ITER_VAR,
                "",
                SORT_BY_INPUT,
                t,
                cond,
                var,
                call,
            ))
        }
        Macro::OptMap | Macro::OptFlatMap => {
            let var = arg(&mut args);
            let map_expr = arg(&mut args);
            let Some(name) = var.as_ident().map(str::to_string) else {
                let what = if m == Macro::OptMap {
                    "optMap() variable name must be a simple identifier"
                } else {
                    "optFlatMap() variable name must be a simple identifier"
                };
                return err(var.id, what);
            };
            let t = target_expr();
            let has_value = h.member_call("hasValue", t.clone(), Vec::new());
            let range = h.list(Vec::new());
            let copied = h.copy(&t);
            let value = h.member_call("value", copied, Vec::new());
            let cond = h.lit(Literal::Bool(false));
            let step = h.ident(&name);
            let fold = h.fold(
                range,
                UNUSED_ITER_VAR,
                "",
                &name,
                value,
                cond,
                step,
                map_expr,
            );
            let middle = if m == Macro::OptMap {
                h.call("optional.of", vec![fold])
            } else {
                fold
            };
            let none = h.call("optional.none", Vec::new());
            Expansion::Expanded(h.call("_?_:_", vec![has_value, middle, none]))
        }
    }
}

fn iter_vars(a0: &Expr, a1: &Expr, accu: &str) -> Result<(String, String), Expansion> {
    let Some(v1) = a0.as_ident() else {
        return Err(err(a0.id, "argument must be a simple name"));
    };
    let Some(v2) = a1.as_ident() else {
        return Err(err(a1.id, "argument must be a simple name"));
    };
    if v1 == v2 {
        return Err(err(a1.id, format!("duplicate variable name: {v1}")));
    }
    if v1 == accu || v1 == ACCUMULATOR_NAME {
        return Err(err(
            a0.id,
            "iteration variable overwrites accumulator variable",
        ));
    }
    if v2 == accu || v2 == ACCUMULATOR_NAME {
        return Err(err(
            a1.id,
            "iteration variable overwrites accumulator variable",
        ));
    }
    Ok((v1.to_string(), v2.to_string()))
}

/// init, condition, step, result of all / exists / exists_one, in cel-go's id order.
fn quantifier(h: &mut H<'_>, m: Macro, pred: Expr) -> (Expr, Expr, Expr, Expr) {
    match m {
        Macro::All => {
            let init = h.lit(Literal::Bool(true));
            let a = h.accu();
            let cond = h.call("@not_strictly_false", vec![a]);
            let a = h.accu();
            let step = h.call("_&&_", vec![a, pred]);
            let result = h.accu();
            (init, cond, step, result)
        }
        Macro::Exists => {
            let init = h.lit(Literal::Bool(false));
            let a = h.accu();
            let not = h.call("!_", vec![a]);
            let cond = h.call("@not_strictly_false", vec![not]);
            let a = h.accu();
            let step = h.call("_||_", vec![a, pred]);
            let result = h.accu();
            (init, cond, step, result)
        }
        _ => {
            let init = h.lit(Literal::Int(0));
            let cond = h.lit(Literal::Bool(true));
            let a = h.accu();
            let one = h.lit(Literal::Int(1));
            let add = h.call("_+_", vec![a, one]);
            let a = h.accu();
            let step = h.call("_?_:_", vec![pred, add, a]);
            let a = h.accu();
            let one = h.lit(Literal::Int(1));
            let result = h.call("_==_", vec![a, one]);
            (init, cond, step, result)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::debug::{to_debug_string, Adorn};
    use crate::{Parser, ParserOptions, Source};

    fn flat(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn lists_parser() -> Parser {
        Parser::new(ParserOptions {
            macros: MacroSet::standard().with_lists(3),
            ..ParserOptions::default()
        })
    }

    fn tree(text: &str, adorn: Adorn) -> String {
        let src = Source::new(text);
        let (p, e) = lists_parser().parse(&src);
        assert!(e.is_empty(), "{text:?}: {}", e.to_display_string(&src));
        flat(&to_debug_string(&p, adorn))
    }

    fn errors(text: &str) -> String {
        let src = Source::new(text);
        let (_, e) = lists_parser().parse(&src);
        e.to_display_string(&src)
    }

    /// `sortBy` expands as cel-go's `sortByMacro`: `cel.bind(@__sortBy_input__, target,
    /// @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key)))`, ids in the
    /// order cel-go allocates them (the bound identifier first, its two copies, the map
    /// expansion between them), every macro id at the call's `(`.
    #[test]
    fn sort_by_expansion() {
        let want = "__comprehension__( // Variable #unused, // Target []^#17:*expr.Expr_ListExpr#, \
            // Accumulator @__sortBy_input__, // Init l^#1:*expr.Expr_IdentExpr#, \
            // LoopCondition false^#18:*expr.Constant_BoolValue#, \
            // LoopStep @__sortBy_input__^#6:*expr.Expr_IdentExpr#, \
            // Result @__sortBy_input__^#15:*expr.Expr_IdentExpr#.@sortByAssociatedKeys( \
            __comprehension__( // Variable e, // Target @__sortBy_input__^#7:*expr.Expr_IdentExpr#, \
            // Accumulator @result, // Init []^#8:*expr.Expr_ListExpr#, \
            // LoopCondition true^#9:*expr.Constant_BoolValue#, \
            // LoopStep _+_( @result^#10:*expr.Expr_IdentExpr#, [ -_( e^#5:*expr.Expr_IdentExpr# \
            )^#4:*expr.Expr_CallExpr# ]^#11:*expr.Expr_ListExpr# )^#12:*expr.Expr_CallExpr#, \
            // Result @result^#13:*expr.Expr_IdentExpr#)^#14:*expr.Expr_ComprehensionExpr# \
            )^#16:*expr.Expr_CallExpr#)^#19:*expr.Expr_ComprehensionExpr#";
        assert_eq!(tree("l.sortBy(e, -e)", Adorn::KindAndId), flat(want));
        // Macro ids sit at the call's `(`; the copies keep the bound identifier's place.
        let located = tree("l.sortBy(e, e)", Adorn::Location);
        assert!(
            located.starts_with("__comprehension__( // Variable #unused, // Target []^#16[1,8]#"),
            "{located}"
        );
        assert!(located.contains("// Init l^#1[1,0]#"), "{located}");
        assert!(
            located.contains("// Target @__sortBy_input__^#6[1,8]#"),
            "{located}"
        );
        // Every target kind cel-go accepts.
        for ok in [
            "[1].sortBy(e, e)",
            "a.b.sortBy(e, e)",
            "f(x).sortBy(e, e)",
            "l.map(x, x).sortBy(e, e)",
        ] {
            assert!(
                tree(ok, Adorn::None).contains("@sortByAssociatedKeys"),
                "{ok}"
            );
        }
        // Without the lists library (or before version 2) it stays a call.
        let plain = Parser::new(ParserOptions {
            macros: MacroSet::standard().with_lists(1),
            ..ParserOptions::default()
        });
        let (p, e) = plain.parse(&Source::new("l.sortBy(e, e)"));
        assert!(e.is_empty());
        assert_eq!(flat(&to_debug_string(&p, Adorn::None)), "l.sortBy( e, e )");
    }

    #[test]
    fn sort_by_errors() {
        let cases = [
            (
                "{}.sortBy(e, e)",
                "ERROR: <input>:1:1: sortBy can only be applied to a list, identifier, comprehension, call or select expression\n | {}.sortBy(e, e)\n | ^",
            ),
            (
                "'abc'.sortBy(e, e)",
                "ERROR: <input>:1:1: sortBy can only be applied to a list, identifier, comprehension, call or select expression\n | 'abc'.sortBy(e, e)\n | ^",
            ),
            (
                "l.sortBy(e.f, e)",
                "ERROR: <input>:1:11: argument is not an identifier\n | l.sortBy(e.f, e)\n | ..........^",
            ),
            (
                "l.sortBy(__result__, 1)",
                "ERROR: <input>:1:10: iteration variable overwrites accumulator variable\n | l.sortBy(__result__, 1)\n | .........^",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(errors(text), want, "{text}");
        }
    }

    #[test]
    fn sets() {
        let s = MacroSet::standard();
        assert_eq!(s.find("all", 2, true), Some(Macro::All));
        assert_eq!(s.find("all", 3, true), None);
        assert_eq!(s.find("existsOne", 2, true), None);
        assert_eq!(
            MacroSet::parser_all().find("existsOne", 2, true),
            Some(Macro::ExistsOneCamel)
        );
        let t = MacroSet::standard().with_two_var_comprehensions();
        assert_eq!(
            t.find("exists_one", 3, true),
            Some(Macro::ExistsOneSnakeTwoVar)
        );
        assert_eq!(
            t.find("transformMap", 4, true),
            Some(Macro::TransformMapFilter)
        );
        assert_eq!(
            MacroSet::none()
                .with_optional(0)
                .find("optFlatMap", 2, true),
            None
        );
        assert_eq!(
            MacroSet::none()
                .with_optional(1)
                .find("optFlatMap", 2, true),
            Some(Macro::OptFlatMap)
        );
        assert_eq!(
            MacroSet::none().with_bindings().find("bind", 3, true),
            Some(Macro::Bind)
        );
        assert_eq!(s.find("has", 1, true), None);
    }
}
