//! Completion and hover inside a CEL rule (`rule`, `messageExpression`) of a CRD schema:
//! the fields of `self`/`oldSelf` at the rule's node (named as CEL needs them,
//! `apiservercel.Escape`), and the functions, macros and receiver methods of the selected
//! Kubernetes version's environment with their signatures.

use crd_studio_cel::decls::{
    kubernetes_options, EnvOption, EnvVersion, FunctionDecl, OverloadDecl,
};
use crd_studio_cel::KubernetesVersion;

use super::docs::cel_doc;
use super::{first_line, item, node_lines, type_text, CompletionItem, Completions, Hover};
use crate::cel::decl_type::escape;
use crate::report::analysis::CompiledCrd;
use crate::schema::Structural;

/// The functions new expressions may call on a server of `version`, merged by name, in name
/// order.
pub fn functions(version: KubernetesVersion) -> Vec<FunctionDecl> {
    let v = version.compatibility();
    let mut out: Vec<FunctionDecl> = Vec::new();
    for option in kubernetes_options(EnvVersion::NewExpressions(v)) {
        if let EnvOption::Library(lib) = option {
            for f in lib.functions() {
                match out.iter_mut().find(|o| o.name == f.name) {
                    Some(o) => o.merge(&f),
                    None => out.push(f),
                }
            }
        }
    }
    out.retain(|f| {
        f.name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
    });
    crd_studio_gostd::sort::stable_by(&mut out, |a, b| a.name.cmp(&b.name));
    out
}

/// `target.name(args) -> result` or `name(args) -> result`.
pub fn signature(name: &str, o: &OverloadDecl) -> String {
    let args: Vec<String> = o.args.iter().map(|a| a.to_string()).collect();
    if o.member {
        let (target, rest) = args
            .split_first()
            .map_or(("", &[][..]), |(t, r)| (t.as_str(), r));
        format!("{target}.{name}({}) -> {}", rest.join(", "), o.result)
    } else {
        format!("{name}({}) -> {}", args.join(", "), o.result)
    }
}

/// The CEL type name of a schema node, as far as receivers go.
fn cel_kind(s: &Structural) -> &'static str {
    if s.extensions.x_int_or_string || (s.generic.type_.is_empty()) {
        return "dyn";
    }
    let format = s
        .value_validation
        .as_ref()
        .map_or("", |v| v.format.as_str());
    match (s.generic.type_.as_str(), format) {
        ("string", "byte") => "bytes",
        ("string", "duration") => "google.protobuf.Duration",
        ("string", "date" | "date-time") => "google.protobuf.Timestamp",
        ("string", _) => "string",
        ("integer", _) => "int",
        ("number", _) => "double",
        ("boolean", _) => "bool",
        ("array", _) => "list",
        ("object", _) if s.properties.is_empty() && s.additional_properties.is_some() => "map",
        ("object", _) => "object",
        _ => "dyn",
    }
}

fn receives(o: &OverloadDecl, kind: &str) -> bool {
    if !o.member {
        return false;
    }
    let Some(target) = o.args.first().map(|t| t.to_string()) else {
        return false;
    };
    match kind {
        "dyn" => true,
        "list" => target.starts_with("list("),
        "map" => target.starts_with("map("),
        "object" => false,
        k => target == k,
    }
}

const MACROS: &[(&str, &str, &str)] = &[
    ("all", "e.all(x, p) -> bool", "all"),
    ("exists", "e.exists(x, p) -> bool", "exists"),
    ("exists_one", "e.exists_one(x, p) -> bool", "exists_one"),
    ("map", "e.map(x, t) -> list", "map"),
    ("filter", "e.filter(x, p) -> list", "filter"),
];

fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The schema node a `self.a.b` chain reaches (`None` when the chain is not one).
pub fn resolve<'a>(node: Option<&'a Structural>, chain: &str) -> Option<&'a Structural> {
    let mut parts = chain.split('.');
    let head = parts.next()?;
    if head != "self" && head != "oldSelf" {
        return None;
    }
    let mut n = node?;
    for p in parts {
        n = n
            .properties
            .iter()
            .find(|(name, _)| escape(name).as_deref() == Some(p))
            .map(|(_, s)| s)?;
    }
    Some(n)
}

/// The rule's text from its start to `offset` (without an opening quote).
fn expression(text: &str, start: usize, offset: usize) -> Option<&str> {
    let e = text.get(start..offset)?;
    Some(e.strip_prefix(['"', '\'']).unwrap_or(e))
}

fn trailing(s: &str, f: impl Fn(char) -> bool) -> &str {
    let n: usize = s
        .chars()
        .rev()
        .take_while(|&c| f(c))
        .map(char::len_utf8)
        .sum();
    s.get(s.len() - n..).unwrap_or("")
}

fn function_item(f: &FunctionDecl, o: &OverloadDecl, kind: &str) -> CompletionItem {
    let more = f.overloads.len().saturating_sub(1);
    let detail = if more > 0 {
        format!("{} (+{more})", signature(&f.name, o))
    } else {
        signature(&f.name, o)
    };
    let arity = o.args.len() - usize::from(o.member);
    let mut i = item(
        &f.name,
        kind,
        detail,
        cel_doc(&f.name).unwrap_or("").to_owned(),
    );
    i.apply = Some(if arity == 0 {
        format!("{}()", f.name)
    } else {
        format!("{}(", f.name)
    });
    i
}

/// Whether the end of `expr` (a rule's text up to the cursor) is inside a string literal or a
/// number literal (`10`, `1.5`, `0x1F`, `3u`, `1e9`): nothing completes there. A number starts
/// with a digit, an identifier never does.
fn in_literal(expr: &str) -> bool {
    const QUOTES: [&str; 4] = ["\"\"\"", "'''", "\"", "'"];
    let mut open: Option<&str> = None;
    let mut chars = expr.char_indices();
    while let Some((i, c)) = chars.next() {
        let rest = expr.get(i..).unwrap_or("");
        match open {
            Some(q) => {
                if c == '\\' {
                    chars.next();
                } else if rest.starts_with(q) {
                    for _ in 1..q.len() {
                        chars.next();
                    }
                    open = None;
                }
            }
            None => {
                if let Some(q) = QUOTES.iter().find(|q| rest.starts_with(**q)) {
                    for _ in 1..q.len() {
                        chars.next();
                    }
                    open = Some(q);
                }
            }
        }
    }
    if open.is_some() {
        return true;
    }
    // The last token, dots included (`1.5`, `self.a`): a number when a part starts with a digit.
    let token = trailing(expr, |c| ident_char(c) || c == '.');
    token
        .split('.')
        .any(|part| part.starts_with(|c: char| c.is_ascii_digit()))
}

/// Completion inside a rule whose text starts at `start`, the cursor at `offset`; `node` is
/// the rule's schema node.
pub fn complete(
    crd: &CompiledCrd,
    node: Option<&Structural>,
    text: &str,
    start: usize,
    offset: usize,
) -> Option<Completions> {
    let expr = expression(text, start, offset)?;
    if in_literal(expr) {
        return None;
    }
    let partial = trailing(expr, ident_char);
    let before = expr.get(..expr.len() - partial.len()).unwrap_or("");
    let fns = functions(crd.options().kubernetes_version);
    let mut items = Vec::new();
    if let Some(receiver) = before.strip_suffix('.') {
        let chain = trailing(receiver, |c| ident_char(c) || c == '.');
        let target = resolve(node, chain);
        let kind = target.map_or("dyn", cel_kind);
        if let Some(t) = target {
            for (name, s) in &t.properties {
                if let Some(cel_name) = escape(name) {
                    items.push(item(
                        &cel_name,
                        "property",
                        type_text(s),
                        first_line(&s.generic.description),
                    ));
                }
            }
        }
        for f in &fns {
            if let Some(o) = f.overloads.iter().find(|o| receives(o, kind)) {
                items.push(function_item(f, o, "method"));
            }
        }
        if matches!(kind, "list" | "map" | "dyn") {
            for (name, sig, doc) in MACROS {
                let mut i = item(
                    name,
                    "function",
                    (*sig).to_owned(),
                    cel_doc(doc).unwrap_or("").to_owned(),
                );
                i.apply = Some(format!("{name}("));
                items.push(i);
            }
        }
    } else {
        let ty = node.map(type_text).unwrap_or_else(|| "dyn".to_owned());
        let desc = node
            .map(|n| first_line(&n.generic.description))
            .unwrap_or_default();
        items.push(item("self", "variable", ty.clone(), desc.clone()));
        items.push(item(
            "oldSelf",
            "variable",
            ty,
            "The value before the update (transition rules).".to_owned(),
        ));
        let mut has = item(
            "has",
            "function",
            "has(e.f) -> bool".to_owned(),
            cel_doc("has").unwrap_or("").to_owned(),
        );
        has.apply = Some("has(".to_owned());
        items.push(has);
        for f in &fns {
            if let Some(o) = f.overloads.iter().find(|o| !o.member) {
                items.push(function_item(f, o, "function"));
            }
        }
        for k in ["true", "false", "null"] {
            items.push(item(k, "constant", String::new(), String::new()));
        }
    }
    Some(Completions {
        from: offset - partial.len(),
        to: offset,
        items,
        comma_at: None,
    })
}

/// Hover inside a rule whose text starts at `start`: the identifier at `offset`.
pub fn hover(
    crd: &CompiledCrd,
    node: Option<&Structural>,
    text: &str,
    start: usize,
    offset: usize,
) -> Option<Hover> {
    let line_end = text
        .get(offset..)?
        .find('\n')
        .map_or(text.len(), |i| offset + i);
    let head = expression(text, start, offset)?;
    let left = trailing(head, ident_char);
    let right: &str = {
        let t = text.get(offset..line_end)?;
        let n: usize = t
            .chars()
            .take_while(|&c| ident_char(c))
            .map(char::len_utf8)
            .sum();
        t.get(..n)?
    };
    let word = format!("{left}{right}");
    if word.is_empty() {
        return None;
    }
    let from = offset - left.len();
    let to = offset + right.len();
    let before = head.get(..head.len() - left.len()).unwrap_or("");
    let after = text.get(to..line_end).unwrap_or("").trim_start();
    if word == "self" || word == "oldSelf" {
        let n = node?;
        return Some(Hover {
            from,
            to,
            title: format!("{word}: {}", type_text(n)),
            lines: node_lines(n, false),
        });
    }
    if let Some(receiver) = before.strip_suffix('.') {
        if !after.starts_with('(') {
            let chain = trailing(receiver, |c| ident_char(c) || c == '.');
            let field = resolve(node, &format!("{chain}.{word}"))?;
            return Some(Hover {
                from,
                to,
                title: format!("{word}: {}", type_text(field)),
                lines: node_lines(field, false),
            });
        }
    }
    let fns = functions(crd.options().kubernetes_version);
    let (title, mut lines) = match fns.iter().find(|f| f.name == word) {
        Some(f) => {
            let sigs: Vec<String> = f.overloads.iter().map(|o| signature(&f.name, o)).collect();
            let title = sigs.first().cloned().unwrap_or_default();
            (title, sigs.into_iter().skip(1).collect::<Vec<_>>())
        }
        None => {
            let (_, sig, _) = MACROS.iter().find(|(n, _, _)| *n == word)?;
            ((*sig).to_owned(), Vec::new())
        }
    };
    if let Some(doc) = cel_doc(&word) {
        lines.insert(0, doc.to_owned());
    }
    Some(Hover {
        from,
        to,
        title,
        lines,
    })
}
