//! The AST validators run after a successful check (cel-go's `cel/validator.go` and
//! `ext/formatting.go`): homogeneous literals, literal checks (regexes, durations,
//! timestamps, ...), string formats.

use super::*;

pub(super) fn validate(env: &Env, checked: &CheckedExpr, errors: &mut Errors) {
    let nodes = preorder(&checked.expr);
    let format_exempt = env.validators.contains(&Validator::StringFormat);
    let lc = env.literal_checks;
    for v in &env.validators {
        match v {
            Validator::HomogeneousLiterals => {
                validate_homogeneous_literals(checked, &nodes, format_exempt, errors)
            }
            Validator::DurationLiterals => {
                if let Some(h) = lc.duration {
                    validate_literal_args(
                        checked,
                        &nodes,
                        "duration",
                        LiteralHook::Literal(h),
                        errors,
                    )
                }
            }
            Validator::TimestampLiterals => {
                if let Some(h) = lc.timestamp {
                    validate_literal_args(
                        checked,
                        &nodes,
                        "timestamp",
                        LiteralHook::Literal(h),
                        errors,
                    )
                }
            }
            Validator::RegexLiterals => {
                if let Some(h) = lc.regex {
                    validate_literal_args(
                        checked,
                        &nodes,
                        "matches",
                        LiteralHook::Pattern(h),
                        errors,
                    )
                }
            }
            Validator::StringFormat => validate_format_calls(checked, &nodes, errors),
        }
    }
}

/// cel-go's `formatValidator`: the first argument of every call to `func`, when a literal, must
/// pass the hook ("invalid <func> argument" at the literal).
pub(super) fn validate_literal_args(
    checked: &CheckedExpr,
    nodes: &[(&Expr, bool)],
    func: &str,
    hook: LiteralHook,
    errors: &mut Errors,
) {
    for (e, _) in nodes {
        let Some(call) = e.as_call() else { continue };
        if call.function != func {
            continue;
        }
        let Some(arg) = call.args.first() else {
            continue;
        };
        let Some(lit) = arg.as_literal() else {
            continue;
        };
        let ok = match hook {
            LiteralHook::Literal(h) => h(lit),
            LiteralHook::Pattern(h) => match lit {
                Literal::String(s) => h(s),
                _ => true,
            },
        };
        if !ok {
            errors.report(
                arg.id,
                checked.source_info.start_location(arg.id),
                format!("invalid {func} argument"),
            );
        }
    }
}

#[derive(Clone, Copy)]
pub(super) enum LiteralHook {
    Literal(fn(&Literal) -> bool),
    Pattern(fn(&str) -> bool),
}

/// Every node in pre-order, with whether a call named `format` is among its ancestors.
pub(super) fn preorder(root: &Expr) -> Vec<(&Expr, bool)> {
    let mut out = Vec::new();
    let mut stack: Vec<(&Expr, bool)> = vec![(root, false)];
    while let Some((e, in_format)) = stack.pop() {
        out.push((e, in_format));
        let mut kids: Vec<&Expr> = Vec::new();
        let mut child_in_format = in_format;
        match &e.kind {
            ExprKind::Unspecified | ExprKind::Literal(_) | ExprKind::Ident(_) => {}
            ExprKind::Select(s) => kids.push(&s.operand),
            ExprKind::Call(c) => {
                if c.function == "format" {
                    child_in_format = true;
                }
                if let Some(t) = &c.target {
                    kids.push(t);
                }
                kids.extend(c.args.iter());
            }
            ExprKind::List(l) => kids.extend(l.elements.iter()),
            ExprKind::Map(m) => {
                for en in &m.entries {
                    kids.push(&en.key);
                    kids.push(&en.value);
                }
            }
            ExprKind::Struct(s) => kids.extend(s.fields.iter().map(|f| &f.value)),
            ExprKind::Comprehension(c) => kids.extend([
                &c.iter_range,
                &c.accu_init,
                &c.loop_condition,
                &c.loop_step,
                &c.result,
            ]),
        }
        stack.extend(kids.into_iter().rev().map(|k| (k, child_in_format)));
    }
    out
}

pub(super) fn validate_homogeneous_literals(
    checked: &CheckedExpr,
    nodes: &[(&Expr, bool)],
    format_exempt: bool,
    errors: &mut Errors,
) {
    let type_of = |id: i64| checked.types.get(&id).cloned().unwrap_or(Type::Error);
    let unwrap = |t: Type| match t {
        Type::Opaque(_, p) => p.into_iter().next().unwrap_or(Type::Dyn),
        other => other,
    };
    let mut report = |id: i64, expected: &Type, actual: &Type| {
        errors.report(
            id,
            checked.source_info.start_location(id),
            type_mismatch(expected, actual),
        );
    };
    for (e, in_format) in nodes {
        if *in_format && format_exempt {
            continue;
        }
        match &e.kind {
            ExprKind::List(l) => {
                let mut first: Option<Type> = None;
                for (i, el) in l.elements.iter().enumerate() {
                    let mut et = type_of(el.id);
                    if l.optional_indices
                        .iter()
                        .any(|x| usize::try_from(*x).ok() == Some(i))
                    {
                        et = unwrap(et);
                    }
                    match &first {
                        None => first = Some(et),
                        Some(ft) => {
                            if !ft.is_equivalent_type(&et) {
                                report(el.id, ft, &et);
                                break;
                            }
                        }
                    }
                }
            }
            ExprKind::Map(m) => {
                let mut first: Option<(Type, Type)> = None;
                for en in &m.entries {
                    let kt = type_of(en.key.id);
                    let mut vt = type_of(en.value.id);
                    if en.optional {
                        vt = unwrap(vt);
                    }
                    match &first {
                        None => first = Some((kt, vt)),
                        Some((fk, fv)) => {
                            if !fk.is_equivalent_type(&kt) {
                                report(en.key.id, fk, &kt);
                            }
                            if !fv.is_equivalent_type(&vt) {
                                report(en.value.id, fv, &vt);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// The `ext.Strings` (versions 1 to 3) check of `'<literal>'.format([<list literal>])`.
pub(super) fn validate_format_calls(
    checked: &CheckedExpr,
    nodes: &[(&Expr, bool)],
    errors: &mut Errors,
) {
    for (e, _) in nodes {
        let ExprKind::Call(call) = &e.kind else {
            continue;
        };
        if call.function != "format" {
            continue;
        }
        let Some(target) = &call.target else { continue };
        let ids = checked.overload_ids(e.id);
        if !ids.is_empty() && !ids.iter().any(|i| i == "string_format") {
            continue;
        }
        let Some(Literal::String(format)) = target.as_literal() else {
            continue;
        };
        let [arg] = &call.args[..] else { continue };
        let ExprKind::List(list) = &arg.kind else {
            continue;
        };
        let mut fc = FormatChecker {
            args: &list.elements,
            requested: 0,
            current: 0,
            checked,
        };
        match parse_format_string(format, &mut fc) {
            Err(err) => {
                let id = err.id.unwrap_or(e.id);
                errors.report(id, checked.source_info.start_location(id), err.message);
            }
            Ok(()) => {
                if list.elements.len() > fc.requested {
                    errors.report(
                        e.id,
                        checked.source_info.start_location(e.id),
                        format!(
                            "too many arguments supplied to string.format (expected {}, got {})",
                            fc.requested,
                            list.elements.len()
                        ),
                    );
                }
            }
        }
    }
}

pub(super) struct FormatError {
    pub(super) message: String,
    pub(super) id: Option<i64>,
}

impl FormatError {
    pub(super) fn plain(message: String) -> Self {
        FormatError { message, id: None }
    }

    pub(super) fn wrap(self, prefix: &str) -> Self {
        FormatError {
            message: format!("{prefix}: {}", self.message),
            id: self.id,
        }
    }
}

pub(super) struct FormatChecker<'a> {
    pub(super) args: &'a [Expr],
    pub(super) requested: usize,
    pub(super) current: usize,
    pub(super) checked: &'a CheckedExpr,
}

#[derive(Clone, Copy)]
pub(super) enum Clause {
    String,
    Decimal,
    Fixed,
    Scientific,
    Binary,
    Hex,
    Octal,
}

impl FormatChecker<'_> {
    pub(super) fn type_of(&self, id: i64) -> Type {
        self.checked.types.get(&id).cloned().unwrap_or(Type::Error)
    }

    pub(super) fn one_of(&self, id: i64, kinds: &[Kind]) -> bool {
        let t = self.type_of(id);
        t.is_dyn() || kinds.contains(&t.kind())
    }

    pub(super) fn verify_string(&self, e: &Expr, depth: u32) -> Result<(), i64> {
        let kinds = [
            Kind::List,
            Kind::Map,
            Kind::Int,
            Kind::Uint,
            Kind::Double,
            Kind::Bool,
            Kind::String,
            Kind::Timestamp,
            Kind::Bytes,
            Kind::Duration,
            Kind::Type,
            Kind::Null,
        ];
        if !self.one_of(e.id, &kinds) {
            return Err(e.id);
        }
        if depth > 256 {
            return Ok(());
        }
        match &e.kind {
            ExprKind::List(l) => {
                for el in &l.elements {
                    self.verify_string(el, depth + 1)?;
                }
                Ok(())
            }
            ExprKind::Map(m) => {
                for en in &m.entries {
                    self.verify_string(&en.key, depth + 1)?;
                    self.verify_string(&en.value, depth + 1)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    pub(super) fn apply(&self, clause: Clause) -> Result<(), FormatError> {
        let Some(arg) = self.args.get(self.current) else {
            return Ok(());
        };
        let id = arg.id;
        let bad = |id: i64, text: &str| {
            Err(FormatError {
                message: format!("{text}, was given {}", self.type_of(id).type_name()),
                id: Some(id),
            })
        };
        match clause {
            Clause::String => match self.verify_string(arg, 0) {
                Ok(()) => Ok(()),
                Err(bad_id) => bad(
                    bad_id,
                    "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps",
                ),
            },
            Clause::Decimal => {
                if self.one_of(id, &[Kind::Int, Kind::Uint]) {
                    Ok(())
                } else {
                    bad(id, "decimal clause can only be used on integers")
                }
            }
            Clause::Fixed => {
                if self.one_of(id, &[Kind::Double, Kind::String]) {
                    Ok(())
                } else {
                    bad(id, "fixed-point clause can only be used on doubles")
                }
            }
            Clause::Scientific => {
                if self.one_of(id, &[Kind::Double, Kind::String]) {
                    Ok(())
                } else {
                    bad(id, "scientific clause can only be used on doubles")
                }
            }
            Clause::Binary => {
                if self.one_of(id, &[Kind::Int, Kind::Uint, Kind::Bool]) {
                    Ok(())
                } else {
                    bad(id, "only integers and bools can be formatted as binary")
                }
            }
            Clause::Hex => {
                if self.one_of(id, &[Kind::Int, Kind::Uint, Kind::String, Kind::Bytes]) {
                    Ok(())
                } else {
                    bad(
                        id,
                        "only integers, byte buffers, and strings can be formatted as hex",
                    )
                }
            }
            Clause::Octal => {
                if self.one_of(id, &[Kind::Int, Kind::Uint]) {
                    Ok(())
                } else {
                    bad(id, "octal clause can only be used on integers")
                }
            }
        }
    }
}

/// cel-go's `parseFormatString` with the checker as interpolator (strings library before
/// version 4, no precision limit).
pub(super) fn parse_format_string(
    format: &str,
    fc: &mut FormatChecker<'_>,
) -> Result<(), FormatError> {
    let b = format.as_bytes();
    let mut i = 0usize;
    let mut arg_index = 0usize;
    while let Some(&c) = b.get(i) {
        if c != b'%' {
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'%') {
            i += 2;
            continue;
        }
        fc.requested += 1;
        fc.current = arg_index;
        if i + 1 >= b.len() {
            return Err(FormatError::plain("unexpected end of string".to_string()));
        }
        if arg_index >= fc.args.len() {
            return Err(FormatError::plain(format!(
                "index {arg_index} out of range"
            )));
        }
        let rest = b.get(i + 1..).unwrap_or(&[]);
        let (read, clause) = parse_formatting_clause(rest)
            .map_err(|e| e.wrap("could not parse formatting clause"))?;
        fc.apply(clause)
            .map_err(|e| e.wrap("error during formatting"))?;
        i += 1 + read;
        arg_index += 1;
    }
    Ok(())
}

pub(super) fn parse_formatting_clause(s: &[u8]) -> Result<(usize, Clause), FormatError> {
    let read = parse_precision(s).map_err(|e| e.wrap("error while parsing precision"))?;
    let Some(&r) = s.get(read) else {
        return Err(FormatError::plain(
            "could not find end of precision specifier".to_string(),
        ));
    };
    let clause = match r {
        b's' => Clause::String,
        b'd' => Clause::Decimal,
        b'f' => Clause::Fixed,
        b'e' => Clause::Scientific,
        b'b' => Clause::Binary,
        b'x' | b'X' => Clause::Hex,
        b'o' => Clause::Octal,
        other => {
            return Err(FormatError::plain(format!(
                "unrecognized formatting clause \"{}\"",
                char::from(other)
            )))
        }
    };
    Ok((read + 1, clause))
}

pub(super) fn parse_precision(s: &[u8]) -> Result<usize, FormatError> {
    if s.first() != Some(&b'.') {
        return Ok(0);
    }
    let mut i = 1usize;
    loop {
        match s.get(i) {
            None => {
                return Err(FormatError::plain(
                    "could not find end of precision specifier".to_string(),
                ))
            }
            Some(c) if c.is_ascii_digit() => i += 1,
            Some(_) => break,
        }
    }
    let digits = std::str::from_utf8(s.get(1..i).unwrap_or(&[])).unwrap_or("");
    if let Err(e) = crd_studio_gostd::strconv::atoi(digits) {
        return Err(FormatError::plain(format!(
            "error while converting precision to integer: {e}"
        )));
    }
    Ok(i)
}
