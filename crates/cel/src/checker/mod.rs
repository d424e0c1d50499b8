//! The type checker, as cel-go's `checker` package runs it inside Kubernetes: identifiers
//! (with cel-go's container rules), field selection on objects, maps and `dyn`, overload
//! resolution with type parameters, comprehensions (the macros' expanded forms, one and two
//! iteration variables), optional field selection and indexing, homogeneous aggregate literals,
//! and then the AST validators Kubernetes enables (duration, timestamp and regex literals,
//! homogeneous literals, `format` strings).
//!
//! The result is a [`CheckedExpr`]: the AST as the checker rewrites it (qualified identifiers,
//! namespaced functions such as `optional.of` without their pseudo-target), a type per node id
//! and a reference per identifier or call (the variable name, or the cel-go overload ids the call
//! may dispatch to). Errors carry cel-go's exact messages and positions; render them with
//! [`Errors::to_display_string`].
//!
//! An [`Env`] holds the declarations: variables, functions (see [`crate::decls`]), the type
//! identifiers and the declared object types. [`EnvBuilder::kubernetes`] builds the Kubernetes
//! base environment for a compatibility version; extend it per rule with the rule's types:
//!
//! ```
//! use crd_studio_cel::checker::EnvBuilder;
//! use crd_studio_cel::decls::EnvVersion;
//! use crd_studio_cel::KubernetesVersion;
//! use crd_studio_cel::types::{ObjectType, Type};
//!
//! // Once per CRD: the base environment for new expressions (1.36) or stored expressions.
//! let base = EnvBuilder::kubernetes(EnvVersion::NewExpressions(KubernetesVersion::DEFAULT.compatibility())).build();
//! // Per schema node: `self` (and `oldSelf`) typed from the schema; register the object types.
//! let spec = Type::object(ObjectType::new(
//!     "selfType1",
//!     [("replicas".to_string(), Type::Int)].into(),
//! ));
//! let env = base
//!     .extend()
//!     .decl_types(std::slice::from_ref(&spec))
//!     .variable("self", spec.clone())
//!     .variable("oldSelf", spec)
//!     .build();
//! let checked = env.compile("self.replicas >= oldSelf.replicas").unwrap();
//! assert_eq!(checked.output_type(), Type::Bool);
//! assert!(checked.references_ident("oldSelf"));
//! let failure = env.compile("self.replica > 0").unwrap_err();
//! assert_eq!(
//!     failure.to_string(),
//!     "ERROR: <input>:1:5: undefined field 'replica'\n | self.replica > 0\n | ....^"
//! );
//! ```

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::ast::{Expr, ExprKind, Literal, ParsedExpr, SourceInfo};
use crate::decls::{
    kubernetes_options, EnvOption, EnvVersion, FunctionDecl, FunctionTable, Library,
    CROSS_TYPE_NUMERIC_COMPARISON_OVERLOADS,
};
use crate::errors::Errors;
use crate::macros::MacroSet;
use crate::source::{Location, Source};
use crate::types::{format_call_signature, most_general, Kind, Mapping, Type};
use crate::{Parser, ParserOptions};

/// Checker switches (cel-go's checker options).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CheckerOptions {
    /// `CrossTypeNumericComparisons`: when off, the int/uint/double mixed comparison overloads
    /// are hidden (until the first comprehension scope, as in cel-go).
    pub cross_type_numeric_comparisons: bool,
    /// The checker's own homogeneous-literal rule (`checker.HomogeneousAggregateLiterals`):
    /// a mixed list or map literal is a type mismatch during checking. Off in Kubernetes, whose
    /// `cel.HomogeneousAggregateLiterals()` is the validator [`Validator::HomogeneousLiterals`]
    /// (mixed literals check as `dyn`, then the validator rejects them).
    pub homogeneous_aggregate_literals: bool,
    /// The declared-type provider finds `__word__` properties under the bare reserved word.
    pub recognize_keyword_as_field_name: bool,
}

/// An AST validator, run in order after a successful check (cel-go's `ASTValidator`s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Validator {
    /// `cel.validator.homogeneous_literals`: list and map literals must not mix element types
    /// (lists inside a `format` call are exempt when [`Validator::StringFormat`] is present).
    HomogeneousLiterals,
    /// `cel.validator.duration`: `duration('<literal>')` must evaluate ([`LiteralChecks`]).
    DurationLiterals,
    /// `cel.validator.timestamp`: `timestamp(<literal>)` must evaluate ([`LiteralChecks`]).
    TimestampLiterals,
    /// `cel.validator.matches`: the first literal argument of `matches` must compile
    /// ([`LiteralChecks`]).
    RegexLiterals,
    /// `cel.validator.string_format` of `ext.Strings` versions 1 to 3: literal format strings
    /// against literal argument lists.
    StringFormat,
}

/// Hooks for the literal validators (cel-go evaluates `duration('...')`, `timestamp('...')` and
/// compiles regex literals with Go's `regexp`); this crate's checker has no evaluator, so the
/// embedding supplies them. A missing hook accepts every literal.
#[derive(Debug, Clone, Copy, Default)]
pub struct LiteralChecks {
    /// True when `duration(<literal>)` evaluates without error.
    pub duration: Option<fn(&Literal) -> bool>,
    /// True when `timestamp(<literal>)` evaluates without error (string or int literal).
    pub timestamp: Option<fn(&Literal) -> bool>,
    /// True when the pattern compiles as a Go (RE2) regular expression.
    pub regex: Option<fn(&str) -> bool>,
}

/// What an identifier or a call refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    /// A variable (or type identifier), by its fully qualified name (with a leading dot when it
    /// needed disambiguation from a local).
    Ident(String),
    /// A call: the ids of the overloads that matched the argument types, in declaration order.
    Function(Vec<String>),
}

/// A type-checked expression.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedExpr {
    /// The AST as the checker rewrote it: identifiers and namespaced function names fully
    /// qualified, `a.b.c` resolved to a qualified identifier where one is declared.
    pub expr: Expr,
    /// Source positions (entries of nodes the rewrite removed are dropped).
    pub source_info: SourceInfo,
    /// The type of every node (type parameters substituted, unbound ones as `dyn`).
    pub types: HashMap<i64, Type>,
    /// The reference of every identifier, qualified identifier and call.
    pub references: HashMap<i64, Reference>,
}

impl CheckedExpr {
    /// The type of the whole expression (cel-go's `OutputType`).
    pub fn output_type(&self) -> Type {
        self.types
            .get(&self.expr.id)
            .cloned()
            .unwrap_or(Type::Error)
    }

    /// The type of a node.
    pub fn type_of(&self, id: i64) -> Option<&Type> {
        self.types.get(&id)
    }

    /// The reference of a node.
    pub fn reference(&self, id: i64) -> Option<&Reference> {
        self.references.get(&id)
    }

    /// The overload ids of a call node (empty when none).
    pub fn overload_ids(&self, id: i64) -> &[String] {
        match self.references.get(&id) {
            Some(Reference::Function(ids)) => ids,
            _ => &[],
        }
    }

    /// True when some identifier refers to the variable `name` (Kubernetes' `UsesOldSelf`
    /// test: a reference named `oldSelf`).
    pub fn references_ident(&self, name: &str) -> bool {
        self.references
            .values()
            .any(|r| matches!(r, Reference::Ident(n) if n == name))
    }
}

/// A failed compilation: the errors (parse or check) and the source they point into.
#[derive(Debug, Clone, PartialEq)]
pub struct CompileFailure {
    /// The errors.
    pub errors: Errors,
    /// The source.
    pub source: Source,
}

impl std::fmt::Display for CompileFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.errors.to_display_string(&self.source))
    }
}

impl std::error::Error for CompileFailure {}

/// A checking environment: variables, functions, type identifiers, declared object types and
/// options. Cheap to clone and to extend (the function table is shared).
#[derive(Debug, Clone)]
pub struct Env {
    container: String,
    variables: BTreeMap<String, Type>,
    functions: Arc<FunctionTable>,
    type_idents: BTreeMap<String, Type>,
    decl_types: BTreeMap<String, Type>,
    decl_type_provider: bool,
    options: CheckerOptions,
    validators: Vec<Validator>,
    parser_options: ParserOptions,
    literal_checks: LiteralChecks,
}

/// Builds an [`Env`].
#[derive(Debug, Clone)]
pub struct EnvBuilder {
    env: Env,
    functions: Option<FunctionTable>,
}

impl Default for EnvBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl EnvBuilder {
    /// An empty environment: no functions, no variables, no type identifiers, cel-go's default
    /// parser options with no macros.
    pub fn new() -> Self {
        EnvBuilder {
            env: Env {
                container: String::new(),
                variables: BTreeMap::new(),
                functions: Arc::new(FunctionTable::new()),
                type_idents: BTreeMap::new(),
                decl_types: BTreeMap::new(),
                decl_type_provider: false,
                options: CheckerOptions::default(),
                validators: Vec::new(),
                parser_options: ParserOptions {
                    macros: MacroSet::none(),
                    ..ParserOptions::default()
                },
                literal_checks: LiteralChecks::default(),
            },
            functions: None,
        }
    }

    /// The Kubernetes base environment (`environment.MustBaseEnvSet`) for new expressions at a
    /// compatibility version, or for stored expressions; no variables yet.
    pub fn kubernetes(version: EnvVersion) -> Self {
        let mut b = EnvBuilder::new();
        for o in kubernetes_options(version) {
            b = b.option(o);
        }
        b
    }

    /// Applies one option of the base environment.
    pub fn option(mut self, option: EnvOption) -> Self {
        match option {
            EnvOption::Library(lib) => return self.library(lib),
            EnvOption::HomogeneousAggregateLiterals => {
                return self.validator(Validator::HomogeneousLiterals)
            }
            EnvOption::CrossTypeNumericComparisons => {
                self.env.options.cross_type_numeric_comparisons = true
            }
            EnvOption::AstValidators => {
                return self
                    .validator(Validator::DurationLiterals)
                    .validator(Validator::TimestampLiterals)
                    .validator(Validator::RegexLiterals)
                    .validator(Validator::HomogeneousLiterals)
            }
            EnvOption::RecognizeKeywordAsFieldName => {
                self.env.options.recognize_keyword_as_field_name = true
            }
        }
        self
    }

    /// Adds a library: its functions, type identifiers, macros and parser options.
    pub fn library(mut self, lib: Library) -> Self {
        {
            let table = self.table();
            for f in lib.functions() {
                table.add(f);
            }
        }
        for (name, t) in lib.type_idents() {
            self.env.type_idents.insert(name.to_string(), t);
        }
        let po = &mut self.env.parser_options;
        match lib {
            Library::Std => {
                for m in MacroSet::standard().macros() {
                    po.macros.add(*m);
                }
            }
            Library::Optional(v) => {
                po.enable_optional_syntax = true;
                po.macros = std::mem::take(&mut po.macros).with_optional(v);
            }
            Library::TwoVarComprehensions => {
                po.macros = std::mem::take(&mut po.macros).with_two_var_comprehensions();
            }
            Library::ExtLists(v) => {
                po.macros = std::mem::take(&mut po.macros).with_lists(v);
            }
            Library::ExtStrings(v) if (1..4).contains(&v) => {
                return self.validator(Validator::StringFormat);
            }
            _ => {}
        }
        self
    }

    /// Adds an AST validator (once; cel-go's `ASTValidators` skips a validator already
    /// present).
    pub fn validator(mut self, v: Validator) -> Self {
        if !self.env.validators.contains(&v) {
            self.env.validators.push(v);
        }
        self
    }

    fn table(&mut self) -> &mut FunctionTable {
        let env_functions = &self.env.functions;
        self.functions
            .get_or_insert_with(|| (**env_functions).clone())
    }

    /// Sets the container (cel-go's `cel.Container`); Kubernetes uses none.
    pub fn container(mut self, name: &str) -> Self {
        self.env.container = name.to_string();
        self
    }

    /// Declares a variable.
    pub fn variable(mut self, name: &str, t: Type) -> Self {
        self.env.variables.insert(name.to_string(), t);
        self
    }

    /// Declares (merges) a function.
    pub fn function(mut self, decl: FunctionDecl) -> Self {
        self.table().add(decl);
        self
    }

    /// Registers declared types with the type provider, as Kubernetes' `DeclTypeProvider`
    /// does for a rule's `self` type: every object type by name (and lists and maps under
    /// their paths), and the scalar type names (`duration`, `timestamp`, ...) as type
    /// identifiers. Field selection on an object type finds its fields here.
    pub fn decl_types(mut self, roots: &[Type]) -> Self {
        self.env.decl_type_provider = true;
        for root in roots {
            let path = match root {
                Type::Object(o) => o.name.clone(),
                other => other.type_name().to_string(),
            };
            register_decl_types(&path, root, &mut self.env.decl_types, 0);
        }
        self
    }

    /// Sets the literal validators' hooks.
    pub fn literal_checks(mut self, checks: LiteralChecks) -> Self {
        self.env.literal_checks = checks;
        self
    }

    /// Overrides the checker options.
    pub fn checker_options(mut self, options: CheckerOptions) -> Self {
        self.env.options = options;
        self
    }

    /// Overrides the parser options.
    pub fn parser_options(mut self, options: ParserOptions) -> Self {
        self.env.parser_options = options;
        self
    }

    /// The environment.
    pub fn build(mut self) -> Env {
        if let Some(t) = self.functions.take() {
            self.env.functions = Arc::new(t);
        }
        self.env
    }
}

fn register_decl_types(path: &str, t: &Type, out: &mut BTreeMap<String, Type>, depth: u32) {
    if depth > 1024 {
        return;
    }
    match t {
        Type::Object(o) => {
            out.insert(o.name.clone(), t.clone());
            for (name, ft) in &o.fields {
                register_decl_types(&format!("{path}.{name}"), ft, out, depth + 1);
            }
        }
        Type::Map(kv) => {
            let [_, v] = &**kv;
            register_decl_types(&format!("{path}.@elem"), v, out, depth + 1);
            out.insert(path.to_string(), t.clone());
        }
        Type::List(e) => {
            register_decl_types(&format!("{path}.@idx"), e, out, depth + 1);
            out.insert(path.to_string(), t.clone());
        }
        _ => {}
    }
}

/// The scalar type names Kubernetes' `DeclTypeProvider.FindStructType` knows (`findScalar`).
fn decl_scalar(name: &str) -> Option<Type> {
    Some(match name {
        "bool" => Type::Bool,
        "bytes" => Type::Bytes,
        "double" => Type::Double,
        "duration" => Type::Duration,
        "int" => Type::Int,
        "null_type" => Type::Null,
        "string" => Type::String,
        "timestamp" => Type::Timestamp,
        "uint" => Type::Uint,
        "list" => Type::list(Type::Dyn),
        "map" => Type::map(Type::Dyn, Type::Dyn),
        _ => return None,
    })
}

impl Env {
    /// An environment builder starting from this environment.
    pub fn extend(&self) -> EnvBuilder {
        EnvBuilder {
            env: self.clone(),
            functions: None,
        }
    }

    /// The container name.
    pub fn container(&self) -> &str {
        &self.container
    }

    /// The declared variables.
    pub fn variables(&self) -> &BTreeMap<String, Type> {
        &self.variables
    }

    /// The function table.
    pub fn functions(&self) -> &FunctionTable {
        &self.functions
    }

    /// The checker options.
    pub fn options(&self) -> &CheckerOptions {
        &self.options
    }

    /// The AST validators, in order.
    pub fn validators(&self) -> &[Validator] {
        &self.validators
    }

    /// The parser options matching this environment (macros, optional syntax).
    pub fn parser_options(&self) -> &ParserOptions {
        &self.parser_options
    }

    /// A declared object type by name.
    pub fn object_type(&self, name: &str) -> Option<&Type> {
        self.decl_types
            .get(name)
            .filter(|t| t.kind() == Kind::Struct)
    }

    /// Type-checks a parsed expression (cel-go's `Env.Check`): the checked expression, or the
    /// errors. The AST validators run when checking succeeded.
    pub fn check(&self, parsed: &ParsedExpr) -> Result<CheckedExpr, Errors> {
        let (checked, errors) = check(parsed, self);
        if errors.is_empty() {
            Ok(checked)
        } else {
            Err(errors)
        }
    }

    /// Parses (with [`Env::parser_options`]) and checks a text (cel-go's `Env.Compile`).
    pub fn compile(&self, text: &str) -> Result<CheckedExpr, Box<CompileFailure>> {
        let source = Source::new(text);
        let parser = Parser::new(self.parser_options.clone());
        let (parsed, errors) = parser.parse(&source);
        if !errors.is_empty() {
            return Err(Box::new(CompileFailure { errors, source }));
        }
        let (checked, errors) = check_owned(parsed, self);
        if errors.is_empty() {
            Ok(checked)
        } else {
            Err(Box::new(CompileFailure { errors, source }))
        }
    }

    fn candidate_names(&self, name: &str) -> Vec<String> {
        if let Some(stripped) = name.strip_prefix('.') {
            return vec![stripped.to_string()];
        }
        if self.container.is_empty() {
            return vec![name.to_string()];
        }
        let mut out = vec![format!("{}.{}", self.container, name)];
        let mut cont = self.container.as_str();
        while let Some(i) = cont.rfind('.') {
            cont = cont.get(..i).unwrap_or("");
            out.push(format!("{cont}.{name}"));
        }
        out.push(name.to_string());
        out
    }

    fn find_struct_type(&self, name: &str) -> Option<Type> {
        if let Some(t) = self.decl_types.get(name) {
            return Some(t.clone());
        }
        if self.decl_type_provider {
            return decl_scalar(name);
        }
        None
    }

    /// cel-go's `lookupGlobalIdent`: declarations, then type identifiers, then struct types.
    fn lookup_global(&self, candidate: &str) -> Option<Type> {
        if let Some(t) = self.variables.get(candidate) {
            return Some(t.clone());
        }
        if let Some(t) = self.type_idents.get(candidate) {
            return Some(Type::type_of(t.clone()));
        }
        self.find_struct_type(candidate).map(Type::type_of)
    }

    fn lookup_function(&self, name: &str) -> Option<&FunctionDecl> {
        self.candidate_names(name)
            .iter()
            .find_map(|c| self.functions.get(c.trim_start_matches('.')))
    }

    fn resolve_type_ident(&self, name: &str) -> Option<(String, Type)> {
        for c in self.candidate_names(name) {
            if let Some(t) = self.type_idents.get(&c) {
                return Some((c, Type::type_of(t.clone())));
            }
            if let Some(t) = self.find_struct_type(&c) {
                return Some((c, Type::type_of(t)));
            }
        }
        None
    }
}

/// Type-checks a parsed expression against an environment, as cel-go's `checker.Check` followed
/// by the environment's AST validators: always a checked expression (meaningful only without
/// errors) and the errors.
pub fn check(parsed: &ParsedExpr, env: &Env) -> (CheckedExpr, Errors) {
    let owned = ParsedExpr {
        expr: clone_expr(&parsed.expr),
        source_info: parsed.source_info.clone(),
    };
    check_owned(owned, env)
}

/// As [`check`], taking the parsed expression by value (no copy of the tree).
pub fn check_owned(parsed: ParsedExpr, env: &Env) -> (CheckedExpr, Errors) {
    let ParsedExpr {
        mut expr,
        mut source_info,
    } = parsed;
    let mut c = Checker {
        env,
        info: &source_info,
        errors: Errors::new(),
        types: HashMap::new(),
        refs: HashMap::new(),
        mapping: Mapping::new(),
        var_counter: 0,
        scopes: Vec::new(),
        filter_cross_type: !env.options.cross_type_numeric_comparisons,
    };
    c.check(&mut expr);
    let Checker {
        mut errors,
        types,
        refs,
        mapping,
        ..
    } = c;
    let types: HashMap<i64, Type> = types
        .into_iter()
        .map(|(id, t)| (id, mapping.substitute(&t, true)))
        .collect();
    let ids: std::collections::HashSet<i64> = expr.ids().into_iter().collect();
    source_info.offsets.retain(|id, _| ids.contains(id));
    let checked = CheckedExpr {
        expr,
        source_info,
        types,
        references: refs,
    };
    if errors.is_empty() {
        validate(env, &checked, &mut errors);
    }
    (checked, errors)
}

/// A copy of an expression tree with small stack frames per level (the derived `Clone` needs
/// over a kilobyte per nesting level in release builds).
fn clone_expr(e: &Expr) -> Expr {
    Expr {
        id: e.id,
        kind: clone_kind(&e.kind),
    }
}

#[inline(never)]
fn clone_kind(k: &ExprKind) -> ExprKind {
    match k {
        ExprKind::Unspecified => ExprKind::Unspecified,
        ExprKind::Literal(l) => ExprKind::Literal(l.clone()),
        ExprKind::Ident(n) => ExprKind::Ident(n.clone()),
        ExprKind::Select(s) => clone_select(s),
        ExprKind::Call(c) => clone_call(c),
        ExprKind::List(l) => clone_list(l),
        ExprKind::Map(m) => clone_map(m),
        ExprKind::Struct(s) => clone_struct(s),
        ExprKind::Comprehension(c) => clone_comprehension(c),
    }
}

#[inline(never)]
fn clone_select(s: &crate::ast::SelectExpr) -> ExprKind {
    ExprKind::Select(Box::new(crate::ast::SelectExpr {
        operand: clone_expr(&s.operand),
        field: s.field.clone(),
        test_only: s.test_only,
    }))
}

#[inline(never)]
fn clone_call(c: &crate::ast::CallExpr) -> ExprKind {
    ExprKind::Call(Box::new(crate::ast::CallExpr {
        function: c.function.clone(),
        target: c.target.as_ref().map(clone_expr),
        args: c.args.iter().map(clone_expr).collect(),
    }))
}

#[inline(never)]
fn clone_list(l: &crate::ast::ListExpr) -> ExprKind {
    ExprKind::List(crate::ast::ListExpr {
        elements: l.elements.iter().map(clone_expr).collect(),
        optional_indices: l.optional_indices.clone(),
    })
}

#[inline(never)]
fn clone_map(m: &crate::ast::MapExpr) -> ExprKind {
    ExprKind::Map(crate::ast::MapExpr {
        entries: m
            .entries
            .iter()
            .map(|en| crate::ast::MapEntry {
                id: en.id,
                key: clone_expr(&en.key),
                value: clone_expr(&en.value),
                optional: en.optional,
            })
            .collect(),
    })
}

#[inline(never)]
fn clone_struct(s: &crate::ast::StructExpr) -> ExprKind {
    ExprKind::Struct(crate::ast::StructExpr {
        type_name: s.type_name.clone(),
        fields: s
            .fields
            .iter()
            .map(|f| crate::ast::StructField {
                id: f.id,
                name: f.name.clone(),
                value: clone_expr(&f.value),
                optional: f.optional,
            })
            .collect(),
    })
}

#[inline(never)]
fn clone_comprehension(c: &crate::ast::ComprehensionExpr) -> ExprKind {
    ExprKind::Comprehension(Box::new(crate::ast::ComprehensionExpr {
        iter_range: clone_expr(&c.iter_range),
        iter_var: c.iter_var.clone(),
        iter_var2: c.iter_var2.clone(),
        accu_var: c.accu_var.clone(),
        accu_init: clone_expr(&c.accu_init),
        loop_condition: clone_expr(&c.loop_condition),
        loop_step: clone_expr(&c.loop_step),
        result: clone_expr(&c.result),
    }))
}

struct Checker<'e> {
    env: &'e Env,
    info: &'e SourceInfo,
    errors: Errors,
    types: HashMap<i64, Type>,
    refs: HashMap<i64, Reference>,
    mapping: Mapping,
    var_counter: u64,
    scopes: Vec<Vec<(String, Type)>>,
    filter_cross_type: bool,
}

struct Resolution {
    name: String,
    ty: Type,
    disambiguate: bool,
}

fn literal_type(l: &Literal) -> Type {
    match l {
        Literal::Null => Type::Null,
        Literal::Bool(_) => Type::Bool,
        Literal::Int(_) => Type::Int,
        Literal::Uint(_) => Type::Uint,
        Literal::Double(_) => Type::Double,
        Literal::String(_) => Type::String,
        Literal::Bytes(_) => Type::Bytes,
    }
}

/// `a.b.c` as a qualified name, when the expression is a chain of (non-test) selections on an
/// identifier (cel-go's `containers.ToQualifiedName`).
fn to_qualified_name(e: &Expr) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    let mut cur = e;
    loop {
        match &cur.kind {
            ExprKind::Ident(n) => {
                parts.push(n);
                break;
            }
            ExprKind::Select(s) if !s.test_only => {
                parts.push(&s.field);
                cur = &s.operand;
            }
            _ => return None,
        }
    }
    parts.reverse();
    Some(parts.join("."))
}

/// The qualifiers of `a.b.c` (`[a, b, c]`) when the select chain ends in an identifier and has
/// no presence test (cel-go's `computeQualifiers`).
fn compute_qualifiers(e: &Expr) -> Option<Vec<String>> {
    let mut q: Vec<String> = Vec::new();
    let mut cur = e;
    while let ExprKind::Select(s) = &cur.kind {
        if s.test_only {
            return None;
        }
        q.push(s.field.clone());
        cur = &s.operand;
        if let ExprKind::Ident(n) = &cur.kind {
            q.push(n.clone());
            q.reverse();
            return Some(q);
        }
    }
    None
}

impl Checker<'_> {
    fn location(&self, id: i64) -> Location {
        self.info.start_location(id)
    }

    fn report(&mut self, id: i64, message: String) {
        let loc = self.location(id);
        self.errors.report(id, loc, message);
    }

    fn set_type(&mut self, id: i64, t: Type) {
        self.types.insert(id, t);
    }

    fn get_type(&self, id: i64) -> Type {
        self.types.get(&id).cloned().unwrap_or(Type::Error)
    }

    fn set_reference(&mut self, id: i64, r: Reference) {
        self.refs.insert(id, r);
    }

    fn new_type_var(&mut self) -> Type {
        let id = self.var_counter;
        self.var_counter = self.var_counter.saturating_add(1);
        Type::param(&format!("_var{id}"))
    }

    fn enter_scope(&mut self) {
        // cel-go's Env.enterScope builds an Env without the filtered overload ids: from the
        // first comprehension on, the cross-type comparison overloads are no longer hidden.
        self.filter_cross_type = false;
        self.scopes.push(Vec::new());
    }

    fn exit_scope(&mut self) {
        self.scopes.pop();
    }

    fn add_local(&mut self, name: &str, t: Type) {
        if let Some(scope) = self.scopes.last_mut() {
            match scope.iter_mut().find(|(n, _)| n == name) {
                Some(existing) => {
                    if existing.1.is_equivalent_type(&t) {
                        existing.1 = t;
                    }
                }
                None => scope.push((name.to_string(), t)),
            }
        }
    }

    fn lookup_local(&self, name: &str) -> Option<Type> {
        let name = name.strip_prefix('.').unwrap_or(name);
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.iter().find(|(n, _)| n == name).map(|(_, t)| t.clone()))
    }

    #[inline(never)]
    fn resolve_simple_ident(&self, name: &str) -> Option<Resolution> {
        let local = self.lookup_local(name);
        if let Some(t) = &local {
            if !name.starts_with('.') {
                return Some(Resolution {
                    name: name.to_string(),
                    ty: t.clone(),
                    disambiguate: false,
                });
            }
        }
        for c in self.env.candidate_names(name) {
            if let Some(t) = self.env.lookup_global(&c) {
                return Some(Resolution {
                    name: c,
                    ty: t,
                    disambiguate: local.is_some(),
                });
            }
        }
        None
    }

    #[inline(never)]
    fn resolve_qualified_ident(&self, qualifiers: &[String]) -> Option<Resolution> {
        match qualifiers {
            [one] => self.resolve_simple_ident(one),
            [first, ..] => {
                let local = self.lookup_local(first);
                if local.is_some() && !first.starts_with('.') {
                    return None;
                }
                let name = qualifiers.join(".");
                for c in self.env.candidate_names(&name) {
                    if let Some(t) = self.env.lookup_global(&c) {
                        return Some(Resolution {
                            name: c,
                            ty: t,
                            disambiguate: local.is_some(),
                        });
                    }
                }
                None
            }
            [] => None,
        }
    }

    fn check(&mut self, e: &mut Expr) {
        match &e.kind {
            ExprKind::Literal(l) => {
                let t = literal_type(l);
                self.set_type(e.id, t);
            }
            ExprKind::Ident(_) => self.check_ident(e),
            ExprKind::Select(_) => self.check_select(e),
            ExprKind::Call(_) => self.check_call(e),
            ExprKind::List(_) => self.check_create_list(e),
            ExprKind::Map(_) => self.check_create_map(e),
            ExprKind::Struct(_) => self.check_create_struct(e),
            ExprKind::Comprehension(_) => self.check_comprehension(e),
            ExprKind::Unspecified => {
                self.report(e.id, "unexpected unspecified type: ".to_string());
            }
        }
    }

    #[inline(never)]
    fn check_ident(&mut self, e: &mut Expr) {
        let name = match &e.kind {
            ExprKind::Ident(n) => n.clone(),
            _ => return,
        };
        match self.resolve_simple_ident(&name) {
            Some(res) => {
                let mut n = res.name.trim_start_matches('.').to_string();
                if res.disambiguate {
                    n.insert(0, '.');
                }
                self.set_type(e.id, res.ty);
                self.set_reference(e.id, Reference::Ident(n.clone()));
                e.kind = ExprKind::Ident(n);
            }
            None => {
                self.set_type(e.id, Type::Error);
                let msg = undeclared_reference(&self.env.container, &name);
                self.report(e.id, msg);
            }
        }
    }

    #[inline(never)]
    fn check_select(&mut self, e: &mut Expr) {
        if self.check_qualified_ident(e) {
            return;
        }
        let id = e.id;
        let ExprKind::Select(sel) = &mut e.kind else {
            return;
        };
        let test_only = sel.test_only;
        let mut result = self.check_select_field(id, &mut sel.operand, &sel.field, false);
        if test_only {
            result = Type::Bool;
        }
        let t = self.mapping.substitute(&result, false);
        self.set_type(id, t);
    }

    /// Resolves `a.b.c` as a qualified identifier when one is declared, rewriting the node.
    #[inline(never)]
    fn check_qualified_ident(&mut self, e: &mut Expr) -> bool {
        let Some(q) = compute_qualifiers(e) else {
            return false;
        };
        let Some(res) = self.resolve_qualified_ident(&q) else {
            return false;
        };
        let mut n = res.name;
        if res.disambiguate {
            n.insert(0, '.');
        }
        self.set_type(e.id, res.ty);
        self.set_reference(e.id, Reference::Ident(n.clone()));
        e.kind = ExprKind::Ident(n);
        true
    }

    #[inline(never)]
    fn check_select_field(
        &mut self,
        id: i64,
        operand: &mut Expr,
        field: &str,
        optional: bool,
    ) -> Type {
        self.check(operand);
        let operand_type = self.mapping.substitute(&self.get_type(operand.id), false);
        let (target, is_opt) = operand_type.maybe_unwrap_optional();
        let result = match target.kind() {
            Kind::Map => target.params().get(1).cloned().unwrap_or(Type::Error),
            Kind::Struct => self
                .lookup_field_type(id, target.type_name(), field)
                .unwrap_or(Type::Error),
            Kind::TypeParam => {
                let target = target.clone();
                self.mapping.is_assignable(&Type::Dyn, &target);
                Type::Dyn
            }
            _ => {
                if !target.is_dyn_or_error() {
                    let msg = format!("type '{target}' does not support field selection");
                    self.report(id, msg);
                }
                Type::Dyn
            }
        };
        if is_opt || optional {
            Type::optional(result)
        } else {
            result
        }
    }

    #[inline(never)]
    fn lookup_field_type(&mut self, id: i64, struct_name: &str, field: &str) -> Option<Type> {
        let Some(st) = self.env.find_struct_type(struct_name) else {
            self.report(
                id,
                format!("unexpected failed resolution of '{struct_name}'"),
            );
            return None;
        };
        let found = match &st {
            Type::Object(o) => {
                let mut f = o.fields.get(field).cloned();
                if f.is_none()
                    && self.env.options.recognize_keyword_as_field_name
                    && crate::RESERVED_WORDS.contains(&field)
                {
                    f = o.fields.get(&format!("__{field}__")).cloned();
                }
                f
            }
            // A map registered under its path answers with its value type.
            Type::Map(kv) => {
                let [_, v] = &**kv;
                Some(v.clone())
            }
            _ => None,
        };
        if found.is_none() {
            self.report(id, format!("undefined field '{field}'"));
        }
        found
    }

    #[inline(never)]
    fn check_call(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::Call(call) = &mut e.kind else {
            return;
        };
        if call.function == "_?._" {
            self.check_opt_select(id, call);
            return;
        }
        for arg in call.args.iter_mut() {
            self.check(arg);
        }
        let env = self.env;
        let Some(target) = call.target.as_mut() else {
            match env.lookup_function(&call.function) {
                None => {
                    let msg = undeclared_reference(&env.container, &call.function);
                    self.report(id, msg);
                    self.set_type(id, Type::Error);
                }
                Some(fd) => {
                    call.function = fd.name.clone();
                    self.resolve_overload_or_error(id, fd, None, &call.args);
                }
            }
            return;
        };
        if let Some(prefix) = to_qualified_name(target) {
            let qualified = format!("{prefix}.{}", call.function);
            if let Some(fd) = env.lookup_function(&qualified) {
                call.function = fd.name.clone();
                call.target = None;
                self.resolve_overload_or_error(id, fd, None, &call.args);
                return;
            }
        }
        self.check(target);
        match env.lookup_function(&call.function) {
            Some(fd) => {
                let target_type = self.get_type(target.id);
                self.resolve_overload_or_error(id, fd, Some(target_type), &call.args);
            }
            None => {
                self.set_type(id, Type::Error);
                let msg = undeclared_reference(&env.container, &call.function);
                self.report(id, msg);
            }
        }
    }

    #[inline(never)]
    fn check_opt_select(&mut self, id: i64, call: &mut crate::ast::CallExpr) {
        if call.args.len() != 2 || call.target.is_some() {
            let t = if call.target.is_some() {
                " member call with"
            } else {
                ""
            };
            let msg = format!(
                "unsupported optional field selection: incorrect signature.{t} argument count: {}",
                call.args.len()
            );
            self.report(id, msg);
            return;
        }
        let [operand, field] = &mut call.args[..] else {
            return;
        };
        let field_name = match &field.kind {
            ExprKind::Literal(Literal::String(s)) => s.clone(),
            _ => {
                let msg = format!("unsupported optional field selection: {field:?}");
                self.report(field.id, msg);
                return;
            }
        };
        let result = self.check_select_field(id, operand, &field_name, true);
        let t = self.mapping.substitute(&result, false);
        self.set_type(id, t);
        self.set_reference(
            id,
            Reference::Function(vec!["select_optional_field".to_string()]),
        );
    }

    #[inline(never)]
    fn resolve_overload_or_error(
        &mut self,
        id: i64,
        fd: &FunctionDecl,
        target: Option<Type>,
        args: &[Expr],
    ) {
        match self.resolve_overload(id, fd, target, args) {
            Some((t, r)) => {
                self.set_type(id, t);
                self.set_reference(id, r);
            }
            None => self.set_type(id, Type::Error),
        }
    }

    fn is_overload_disabled(&self, overload_id: &str) -> bool {
        self.filter_cross_type && CROSS_TYPE_NUMERIC_COMPARISON_OVERLOADS.contains(&overload_id)
    }

    fn resolve_overload(
        &mut self,
        call_id: i64,
        fd: &FunctionDecl,
        target: Option<Type>,
        args: &[Expr],
    ) -> Option<(Type, Reference)> {
        let is_member = target.is_some();
        let mut arg_types: Vec<Type> = Vec::with_capacity(args.len() + 1);
        if let Some(t) = target {
            arg_types.push(t);
        }
        for a in args {
            arg_types.push(self.get_type(a.id));
        }
        let mut result: Option<Type> = None;
        let mut ids: Vec<String> = Vec::new();
        for ov in &fd.overloads {
            if self.is_overload_disabled(&ov.id) {
                continue;
            }
            if is_member != ov.member {
                continue;
            }
            if fd.name == "_&&_" || fd.name == "_||_" {
                let mut failed = false;
                for (i, at) in arg_types.iter().enumerate() {
                    if !self.mapping.is_assignable(at, &Type::Bool) {
                        if let Some(arg) = args.get(i) {
                            let msg = type_mismatch(&Type::Bool, at);
                            self.report(arg.id, msg);
                        }
                        failed = true;
                    }
                }
                if failed {
                    return None;
                }
                return Some((Type::Bool, Reference::Function(vec![ov.id.clone()])));
            }
            let params = ov.type_params();
            let (cand_args, cand_result) = if params.is_empty() {
                (ov.args.clone(), ov.result.clone())
            } else {
                let mut subs = Mapping::new();
                for p in &params {
                    let v = self.new_type_var();
                    subs.insert(p, v);
                }
                (
                    ov.args.iter().map(|a| subs.substitute(a, false)).collect(),
                    subs.substitute(&ov.result, false),
                )
            };
            if self.mapping.is_assignable_list(&arg_types, &cand_args) {
                ids.push(ov.id.clone());
                let fn_result = self.mapping.substitute(&cand_result, false);
                result = match result {
                    None => Some(fn_result),
                    Some(r) if !r.is_dyn() && !fn_result.is_exact_type(&r) => Some(Type::Dyn),
                    Some(r) => Some(r),
                };
            }
        }
        match result {
            Some(r) => Some((r, Reference::Function(ids))),
            None => {
                let shown: Vec<Type> = arg_types
                    .iter()
                    .map(|t| self.mapping.substitute(t, true))
                    .collect();
                let msg = format!(
                    "found no matching overload for '{}' applied to '{}'",
                    fd.name,
                    format_call_signature(&shown, is_member)
                );
                self.report(call_id, msg);
                None
            }
        }
    }

    #[inline(never)]
    fn check_create_list(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::List(list) = &mut e.kind else {
            return;
        };
        let mut elems_type: Option<Type> = None;
        for (i, el) in list.elements.iter_mut().enumerate() {
            self.check(el);
            let mut et = self.get_type(el.id);
            if list
                .optional_indices
                .iter()
                .any(|x| usize::try_from(*x).ok() == Some(i))
            {
                let (inner, is_opt) = et.maybe_unwrap_optional();
                let inner = inner.clone();
                if !is_opt && !et.is_dyn() {
                    let msg = type_mismatch(&Type::optional(inner.clone()), &inner);
                    self.report(el.id, msg);
                }
                et = inner;
            }
            elems_type = Some(self.join_types(el.id, elems_type, et));
        }
        let elems = match elems_type {
            Some(t) => t,
            None => self.new_type_var(),
        };
        self.set_type(id, Type::list(elems));
    }

    #[inline(never)]
    fn check_create_map(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::Map(map) = &mut e.kind else {
            return;
        };
        let mut key_type: Option<Type> = None;
        let mut value_type: Option<Type> = None;
        for entry in map.entries.iter_mut() {
            self.check(&mut entry.key);
            let kt = self.get_type(entry.key.id);
            key_type = Some(self.join_types(entry.key.id, key_type, kt));
            self.check(&mut entry.value);
            let mut vt = self.get_type(entry.value.id);
            if entry.optional {
                let (inner, is_opt) = vt.maybe_unwrap_optional();
                let inner = inner.clone();
                if !is_opt && !vt.is_dyn() {
                    let msg = type_mismatch(&Type::optional(inner.clone()), &inner);
                    self.report(entry.value.id, msg);
                }
                vt = inner;
            }
            value_type = Some(self.join_types(entry.value.id, value_type, vt));
        }
        let (k, v) = match (key_type, value_type) {
            (Some(k), Some(v)) => (k, v),
            _ => (self.new_type_var(), self.new_type_var()),
        };
        self.set_type(id, Type::map(k, v));
    }

    #[inline(never)]
    fn check_create_struct(&mut self, e: &mut Expr) {
        let id = e.id;
        let env = self.env;
        let ExprKind::Struct(st) = &mut e.kind else {
            return;
        };
        let Some((name, ident_type)) = env.resolve_type_ident(&st.type_name) else {
            let msg = undeclared_reference(&env.container, &st.type_name);
            self.report(id, msg);
            self.set_type(id, Type::Error);
            return;
        };
        if st.type_name != name {
            st.type_name = name.clone();
        }
        self.set_reference(id, Reference::Ident(name));
        let mut result = Type::Error;
        let mut type_name = st.type_name.clone();
        match &ident_type {
            Type::Error => {}
            Type::Type(Some(t)) => match t.kind() {
                Kind::Struct => {
                    result = (**t).clone();
                    type_name = t.type_name().to_string();
                }
                Kind::Duration | Kind::Timestamp | Kind::Dyn | Kind::Null => {
                    result = (**t).clone();
                    type_name = t.type_name().to_string();
                }
                _ => {
                    let msg = format!("'{}' is not a message type", t.type_name());
                    self.report(id, msg);
                }
            },
            other => {
                let msg = format!("'{}' is not a type", other.type_name());
                self.report(id, msg);
            }
        }
        self.set_type(id, result);
        for field in st.fields.iter_mut() {
            self.check(&mut field.value);
            let ft = self
                .lookup_field_type(field.id, &type_name, &field.name)
                .unwrap_or(Type::Error);
            let mut vt = self.get_type(field.value.id);
            if field.optional {
                let (inner, is_opt) = vt.maybe_unwrap_optional();
                let inner = inner.clone();
                if !is_opt && !vt.is_dyn() {
                    let msg = type_mismatch(&Type::optional(inner.clone()), &inner);
                    self.report(field.value.id, msg);
                }
                vt = inner;
            }
            if !self.mapping.is_assignable(&ft, &vt) {
                let msg = format!(
                    "expected type of field '{}' is '{ft}' but provided type is '{vt}'",
                    field.name
                );
                self.report(field.id, msg);
            }
        }
    }

    #[inline(never)]
    fn check_comprehension(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::Comprehension(comp) = &mut e.kind else {
            return;
        };
        self.check(&mut comp.iter_range);
        self.check(&mut comp.accu_init);
        let range_type = self
            .mapping
            .substitute(&self.get_type(comp.iter_range.id), false);
        let accu_type = self.get_type(comp.accu_init.id);
        self.enter_scope();
        self.add_local(&comp.accu_var, accu_type.clone());
        let two = !comp.iter_var2.is_empty();
        let (var_type, var2_type) = match range_type.kind() {
            Kind::List => {
                let el = range_type.params().first().cloned().unwrap_or(Type::Error);
                if two {
                    (Type::Int, el)
                } else {
                    (el, Type::Error)
                }
            }
            Kind::Map => {
                let k = range_type.params().first().cloned().unwrap_or(Type::Error);
                let v = range_type.params().get(1).cloned().unwrap_or(Type::Error);
                (k, v)
            }
            Kind::Dyn | Kind::Error | Kind::TypeParam => {
                self.mapping.is_assignable(&Type::Dyn, &range_type);
                (Type::Dyn, Type::Dyn)
            }
            _ => {
                let msg = format!(
                    "expression of type '{range_type}' cannot be range of a comprehension (must be list, map, or dynamic)"
                );
                self.report(comp.iter_range.id, msg);
                (Type::Error, Type::Error)
            }
        };
        self.enter_scope();
        self.add_local(&comp.iter_var, var_type);
        if two {
            self.add_local(&comp.iter_var2, var2_type);
        }
        self.check(&mut comp.loop_condition);
        self.assert_type(comp.loop_condition.id, &Type::Bool);
        self.check(&mut comp.loop_step);
        self.assert_type(comp.loop_step.id, &accu_type);
        self.exit_scope();
        self.check(&mut comp.result);
        self.exit_scope();
        let t = self
            .mapping
            .substitute(&self.get_type(comp.result.id), false);
        self.set_type(id, t);
    }

    #[inline(never)]
    fn assert_type(&mut self, id: i64, t: &Type) {
        let actual = self.get_type(id);
        if !self.mapping.is_assignable(t, &actual) {
            let msg = type_mismatch(t, &actual);
            self.report(id, msg);
        }
    }

    #[inline(never)]
    fn join_types(&mut self, id: i64, previous: Option<Type>, current: Type) -> Type {
        let Some(prev) = previous else {
            return current;
        };
        if self.mapping.is_assignable(&prev, &current) {
            return most_general(&prev, &current).clone();
        }
        if !self.env.options.homogeneous_aggregate_literals {
            return Type::Dyn;
        }
        let msg = type_mismatch(&prev, &current);
        self.report(id, msg);
        Type::Error
    }
}

fn undeclared_reference(container: &str, name: &str) -> String {
    format!("undeclared reference to '{name}' (in container '{container}')")
}

fn type_mismatch(expected: &Type, actual: &Type) -> String {
    format!("expected type '{expected}' but found '{actual}'")
}

mod validators;
use validators::*;

#[cfg(test)]
mod tests;
