//! Stage 5, CEL for CRDs: the schema → CEL type mapping ([`decl_type`], with the size bounds of the
//! cost estimate), the compiler of `x-kubernetes-validations` rules that CRD validation calls
//! ([`RuleCompiler`], the apiextensions `cel.Compile`: compile errors, `MaxCost`,
//! `MaxCardinality`, `MessageExpressionMaxCost`), and the rule validator that evaluates them
//! on objects ([`validator::Validator`], the apiextensions `cel.Validator`).
//!
//! Cost figures for views and explanations: [`rule_cost`] (from a compile result and the
//! node's [`schema_cardinality`]) gives a [`RuleCost`] (`max_cost`, `max_cardinality`,
//! `cardinality`, `estimated_cost` as CRD validation checks it); [`RuleCompiler::rule_costs_at`]
//! computes them for the node at some steps below a version's schema, and
//! [`RuleCompiler::cost_details`] gives the per-node estimate of one expression.
//!
//! The report types this stage fills are in [`report`]. Uses [`crate::documents`],
//! [`crate::schema`], [`crate::object`] and [`crate::crd`].

pub mod cost_explain;
pub mod decl_type;
pub mod report;
pub mod rules_view;
pub mod validator;

use std::cell::{Cell, OnceCell};

use crd_studio_cel::checker::{CheckedExpr, CompileFailure, Env, EnvBuilder, LiteralChecks};
use crd_studio_cel::cost_est::{
    estimate_cost, estimate_cost_details, CostDetails, CostEstimator, CostOptions,
};
use crd_studio_cel::decls::EnvVersion;
use crd_studio_cel::interp::Program;
use crd_studio_cel::k8s_cost_est::KubernetesCostEstimator;
use crd_studio_cel::types::Type;
use crd_studio_cel::KubernetesVersion;

use crate::crd::apiext::{
    CelCompilation, CelCompileFailure, CelCompiler, CelErrorKind, CelRuleSite, CelStep,
    PreexistingExpressions,
};
use crate::documents::path::FieldPath;
use crate::schema::props::{JsonSchemaProps, ValidationRule};
use crate::schema::structural::Structural;

use decl_type::{max_cardinality, schema_decl_type, DeclSizeEstimator, DeclType};

/// `ScopedVarName`.
pub const SCOPED_VAR_NAME: &str = "self";
/// `OldScopedVarName`.
pub const OLD_SCOPED_VAR_NAME: &str = "oldSelf";

/// The literal checks of cel-go's AST validators: duration and timestamp literals are
/// evaluated by the runtime, regex literals compile as Go `regexp`.
fn literal_checks() -> LiteralChecks {
    crd_studio_cel::stdlib_rt::literal_checks()
}

/// Compiles the rules of a CRD's schemas: the base environments are built once (per CRD
/// validation) and extended per rule site with `self` and `oldSelf`.
pub struct RuleCompiler {
    version: KubernetesVersion,
    new_env: OnceCell<Env>,
    stored_env: OnceCell<Env>,
    other_envs: std::cell::RefCell<Vec<(KubernetesVersion, Env)>>,
    /// The number in the next `selfType<N>` name (the server uses the clock's nanoseconds).
    next_type: Cell<u64>,
    /// Whether the base environments are the ones [`RuleCompiler::new`] builds (not
    /// [`RuleCompiler::with_base_envs`]'): compiles can then be shared between compilers.
    standard_envs: bool,
}

impl std::fmt::Debug for RuleCompiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuleCompiler")
            .field("version", &self.version)
            .finish()
    }
}

fn base_env(version: EnvVersion) -> Env {
    EnvBuilder::kubernetes(version)
        .literal_checks(literal_checks())
        .build()
}

impl RuleCompiler {
    /// A compiler for the new expressions a server of this version compiles: at its CEL
    /// compatibility version, one minor behind ([`KubernetesVersion::compatibility`]).
    pub fn new(server: KubernetesVersion) -> RuleCompiler {
        let version = server.compatibility();
        RuleCompiler {
            version,
            new_env: OnceCell::new(),
            stored_env: OnceCell::new(),
            other_envs: std::cell::RefCell::new(Vec::new()),
            next_type: Cell::new(1),
            standard_envs: true,
        }
    }

    /// A compiler with these base environments (new expressions, stored expressions), for
    /// embeddings that declare more than Kubernetes does (tests); the literal checks are
    /// added.
    pub fn with_base_envs(new_env: EnvBuilder, stored_env: EnvBuilder) -> RuleCompiler {
        let stored = OnceCell::new();
        let _ = stored.set(stored_env.literal_checks(literal_checks()).build());
        let new = OnceCell::new();
        let _ = new.set(new_env.literal_checks(literal_checks()).build());
        RuleCompiler {
            version: KubernetesVersion::DEFAULT.compatibility(),
            new_env: new,
            stored_env: stored,
            other_envs: std::cell::RefCell::new(Vec::new()),
            next_type: Cell::new(1),
            standard_envs: false,
        }
    }

    /// Whether the base environments are [`RuleCompiler::new`]'s.
    fn has_standard_envs(&self) -> bool {
        self.standard_envs
    }

    /// Compiles the rules of one schema node on its own (`cel.Compile(s,
    /// SchemaDeclType(s, isResourceRoot), ...)`): with the stored-expressions environment
    /// when `stored`, else the new-expressions one.
    pub fn compile_schema(
        &self,
        schema: &JsonSchemaProps,
        is_resource_root: bool,
        stored: bool,
    ) -> Result<Vec<CelCompilation>, CelCompileFailure> {
        let path = FieldPath::default();
        let preexisting = stored.then(|| PreexistingExpressions {
            rules: schema
                .x_validations
                .iter()
                .map(|r| r.rule.clone())
                .collect(),
            message_expressions: schema
                .x_validations
                .iter()
                .map(|r| r.message_expression.clone())
                .collect(),
        });
        self.compile(&CelRuleSite {
            schema,
            path: &path,
            scope_root: schema,
            scope_root_is_resource_root: is_resource_root,
            steps: Vec::new(),
            preexisting: preexisting.as_ref(),
            environment_version: None,
            scope_cache: None,
        })
    }

    fn stored(&self) -> &Env {
        self.stored_env.get_or_init(|| base_env(EnvVersion::Stored))
    }

    /// The new-expressions base environment for a site's version.
    fn new_env_for(&self, version: Option<&str>) -> Env {
        let v = match version.and_then(KubernetesVersion::parse_any) {
            Some(v) if v != self.version => v,
            _ => {
                return self
                    .new_env
                    .get_or_init(|| base_env(EnvVersion::NewExpressions(self.version)))
                    .clone()
            }
        };
        let mut others = self.other_envs.borrow_mut();
        if let Some((_, e)) = others.iter().find(|(ov, _)| *ov == v) {
            return e.clone();
        }
        let e = base_env(EnvVersion::NewExpressions(v));
        others.push((v, e.clone()));
        e
    }

    fn type_name(&self) -> String {
        let n = self.next_type.get();
        self.next_type.set(n.wrapping_add(1));
        format!("selfType{n}")
    }
}

/// The `self` declared type of a rule site (`CELSchemaContext.TypeInfo`), with the bounds the
/// cost estimate reads (`MaxElements`, `MinSerializedSize`).
pub fn site_decl_type(site: &CelRuleSite<'_>) -> Result<DeclType, CelCompileFailure> {
    let structural =
        |props| Structural::from_props(props).map_err(|e| CelCompileFailure::TypeInfo(e.0));
    let convert = |props, is_root| -> Result<(Structural, DeclType), CelCompileFailure> {
        let ss = structural(props)?;
        let decl = schema_decl_type(&ss, is_root).ok_or_else(|| {
            CelCompileFailure::TypeInfo(
                "unable to convert structural schema to CEL declarations".to_owned(),
            )
        })?;
        Ok((ss, decl))
    };
    let is_root = site.scope_root_is_resource_root;
    // A scope's structural form is kept only once a site below the scope root needs it (to
    // follow its steps): while a rule compiles, a large scope's form would otherwise stay
    // beside the declared type (a large CRD's peak memory).
    let scoped = |need_structural: bool| -> Result<ScopeTypes, CelCompileFailure> {
        let (ss, decl) = convert(site.scope_root, is_root)?;
        let kept = std::cell::OnceCell::new();
        if need_structural {
            let _ = kept.set(ss);
        }
        Ok(ScopeTypes {
            decl,
            structural: kept,
        })
    };
    let need_structural = !site.steps.is_empty();
    let scope = match site.scope_cache {
        Some(cache) => cache
            .get_or_insert(site.scope_root, is_root, || scoped(need_structural))
            .unwrap_or_else(|| std::rc::Rc::new(scoped(need_structural))),
        None => std::rc::Rc::new(scoped(need_structural)),
    };
    let scope = match scope.as_ref() {
        Ok(s) => s,
        Err(e) => return Err(e.clone()),
    };
    if site.steps.is_empty() {
        return Ok(scope.decl.clone());
    }
    if scope.structural.get().is_none() {
        // The conversion succeeded when the scope was first seen: it does again.
        let _ = scope.structural.set(structural(site.scope_root)?);
    }
    let found = scope
        .structural
        .get()
        .and_then(|ss| decl_type::follow_ref(ss, &scope.decl, &site.steps));
    match found {
        Some((_, t)) => Ok(t),
        None => convert(site.schema, site.schema.x_embedded_resource).map(|(_, d)| d),
    }
}

/// What [`site_decl_type`] derives from a scope root: its declared type, and its structural
/// form once a site needs it.
struct ScopeTypes {
    decl: DeclType,
    structural: std::cell::OnceCell<Structural>,
}

/// One compiled expression or the server's error detail.
fn compile_in(env: &Env, text: &str) -> Result<CheckedExpr, Box<CompileFailure>> {
    env.compile(text)
}

/// One rule compiled for evaluation: the compile result CRD validation reports, and the
/// programs the validator runs (`CompilationResult.Program`, `.MessageExpression`).
#[derive(Clone, Debug, Default)]
pub struct RuleProgram {
    /// The compile result (error, `usesOldSelf`, messageExpression error).
    pub compilation: CelCompilation,
    /// The rule's program; `None` for an empty rule or a compile error.
    pub program: Option<Program>,
    /// The messageExpression's program; `None` when there is none or it did not compile.
    pub message_expression: Option<Program>,
}

/// Which environment a rule's expressions compile in.
#[derive(Clone, Copy, Debug)]
enum EnvChoice<'p> {
    /// The stored-expressions environment for everything (`StoredExpressionsEnvLoader`, what
    /// the object validator uses).
    Stored,
    /// The new-expressions environment, unless the old CRD had the expression.
    New(Option<&'p PreexistingExpressions>),
}

impl RuleCompiler {
    /// `Compile(s, declType, ...)` with the stored-expressions environment: every rule of
    /// `rules` compiled against `self` of type `decl` (the rule validator's compilation).
    pub fn compile_programs(&self, rules: &[ValidationRule], decl: &DeclType) -> Vec<RuleProgram> {
        if rules.is_empty() {
            return Vec::new();
        }
        let base = self.stored().clone();
        self.compile_with(rules, decl, &base, EnvChoice::Stored)
    }

    fn compile_with(
        &self,
        rules: &[ValidationRule],
        decl: &DeclType,
        new_base: &Env,
        choice: EnvChoice<'_>,
    ) -> Vec<RuleProgram> {
        let self_ty = decl.to_cel(&self.type_name());
        let extend = |base: &Env, optional_old_self: bool| -> Env {
            let old = if optional_old_self {
                Type::optional(self_ty.clone())
            } else {
                self_ty.clone()
            };
            base.extend()
                .decl_types(std::slice::from_ref(&self_ty))
                .variable(SCOPED_VAR_NAME, self_ty.clone())
                .variable(OLD_SCOPED_VAR_NAME, old)
                .build()
        };
        // Environments built on demand: (stored?, optionalOldSelf?).
        let mut envs: [Option<Env>; 4] = [None, None, None, None];
        let mut env_for = |stored: bool, optional: bool| -> Env {
            let i = usize::from(stored) * 2 + usize::from(optional);
            if let Some(Some(e)) = envs.get(i) {
                return e.clone();
            }
            let e = if stored {
                extend(self.stored(), optional)
            } else {
                extend(new_base, optional)
            };
            if let Some(slot) = envs.get_mut(i) {
                *slot = Some(e.clone());
            }
            e
        };
        // `newCostEstimator(declType)` and `maxCardinality(declType.MinSerializedSize)`.
        let sizes = DeclSizeEstimator::new(decl);
        let estimator = KubernetesCostEstimator::new(&sizes);
        let cardinality = max_cardinality(decl.min_serialized_size);
        let mut out = Vec::with_capacity(rules.len());
        for rule in rules {
            out.push(compile_rule(
                rule,
                choice,
                &mut env_for,
                &estimator,
                cardinality,
            ));
        }
        out
    }
}

/// `compileRule`: one rule and its messageExpression.
fn compile_rule(
    rule: &ValidationRule,
    choice: EnvChoice<'_>,
    env_for: &mut dyn FnMut(bool, bool) -> Env,
    estimator: &dyn CostEstimator,
    max_cardinality: u64,
) -> RuleProgram {
    let mut out = RuleProgram::default();
    if rule.rule.trim().is_empty() {
        return out;
    }
    let optional = rule.optional_old_self == Some(true);
    let stored_rule = match choice {
        EnvChoice::Stored => true,
        EnvChoice::New(p) => p.is_some_and(|p| p.rules.contains(&rule.rule)),
    };
    let env = env_for(stored_rule, optional);
    let result = &mut out.compilation;
    let checked = match compile_in(&env, &rule.rule) {
        Ok(c) => c,
        Err(f) => {
            result.error = Some((CelErrorKind::Invalid, format!("compilation failed: {f}")));
            return out;
        }
    };
    if !matches!(checked.output_type(), Type::Bool) {
        result.error = Some((
            CelErrorKind::Invalid,
            "cel expression must evaluate to a bool".to_owned(),
        ));
        return out;
    }
    result.uses_old_self = checked.references_ident(OLD_SCOPED_VAR_NAME);
    match Program::from_checked(&checked) {
        Ok(p) => out.program = Some(p),
        Err(e) => {
            out.compilation.error = Some((
                CelErrorKind::Invalid,
                format!("program instantiation failed: {e}"),
            ));
            return out;
        }
    }
    let result = &mut out.compilation;
    result.max_cost = estimate_cost(&checked, estimator, &CostOptions::KUBERNETES).max;
    result.max_cardinality = max_cardinality;
    if !rule.message_expression.is_empty() {
        result.has_message_expression = true;
        let stored_msg = match choice {
            EnvChoice::Stored => true,
            EnvChoice::New(p) => {
                p.is_some_and(|p| p.message_expressions.contains(&rule.message_expression))
            }
        };
        let msg_env = env_for(stored_msg, optional);
        match compile_in(&msg_env, &rule.message_expression) {
            Err(f) => {
                result.message_expression_error =
                    Some(format!("messageExpression compilation failed: {f}"));
            }
            Ok(c) if !matches!(c.output_type(), Type::String) => {
                result.message_expression_error =
                    Some("messageExpression must evaluate to a string".to_owned());
            }
            Ok(c) => match Program::from_checked(&c) {
                Ok(p) => {
                    result.message_expression_max_cost =
                        estimate_cost(&c, estimator, &CostOptions::KUBERNETES).max;
                    out.message_expression = Some(p);
                }
                Err(e) => {
                    result.message_expression_error =
                        Some(format!("messageExpression instantiation failed: {e}"));
                }
            },
        }
    }
    out
}

impl CelCompiler for RuleCompiler {
    fn compile(&self, site: &CelRuleSite<'_>) -> Result<Vec<CelCompilation>, CelCompileFailure> {
        let rules = &site.schema.x_validations;
        if rules.is_empty() {
            return Ok(Vec::new());
        }
        let decl = site_decl_type(site)?;
        let new_base = self.new_env_for(site.environment_version);
        Ok(self
            .compile_with(rules, &decl, &new_base, EnvChoice::New(site.preexisting))
            .into_iter()
            .map(|r| r.compilation)
            .collect())
    }
}

// ------------------------------------------------------------------------------------------
// Cost figures, for the views and explanations
// ------------------------------------------------------------------------------------------

/// The estimated cost figures of one rule, as CRD validation computes and checks them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuleCost {
    /// `MaxCost`: the estimated worst-case cost of one evaluation of the rule.
    pub max_cost: u64,
    /// `MaxCardinality`: how many values of the rule's node fit in one request (3 MiB over
    /// the node's minimum JSON size plus a comma); used when `cardinality` is unbounded.
    pub max_cardinality: u64,
    /// The schema cardinality of the node: the product of the `maxItems`/`maxProperties` of
    /// the lists and maps above it; `None` when one of them has no bound.
    pub cardinality: Option<u64>,
    /// `getExpressionCost`: `max_cost × cardinality` (`× max_cardinality` when unbounded),
    /// saturating; what is compared with the per-rule limit (10,000,000) and added to the
    /// CRD total (limit 100,000,000).
    pub estimated_cost: u64,
    /// `MessageExpressionMaxCost`, when the rule has a `messageExpression` that compiled
    /// (checked against 10,000,000 without cardinality, and added to the total).
    pub message_expression_max_cost: Option<u64>,
}

/// The cost figures of a rule from its compile result and the schema cardinality of its node
/// (see [`schema_cardinality`]).
pub fn rule_cost(compilation: &CelCompilation, cardinality: Option<u64>) -> RuleCost {
    RuleCost {
        max_cost: compilation.max_cost,
        max_cardinality: compilation.max_cardinality,
        cardinality,
        estimated_cost: crate::crd::apiext::schema_validation::expression_cost(
            compilation.max_cost,
            compilation.max_cardinality,
            cardinality,
        ),
        message_expression_max_cost: (compilation.has_message_expression
            && compilation.message_expression_error.is_none())
        .then_some(compilation.message_expression_max_cost),
    }
}

/// The schema cardinality of the node `steps` below `root` (the version's
/// `openAPIV3Schema`): `Some(1)` at the root, times each array's `maxItems` and each map's
/// `maxProperties` on the way; `None` (unbounded) when one is missing or a step does not
/// exist.
pub fn schema_cardinality(root: &JsonSchemaProps, steps: &[CelStep]) -> Option<u64> {
    let mut card = Some(1u64);
    let mut node = root;
    for step in steps {
        card = crate::crd::apiext::schema_validation::child_cardinality(node, card);
        node = match step {
            CelStep::Property(name) => node.properties.get(name)?,
            CelStep::Items => match &node.items {
                Some(crate::schema::props::SchemaOrArray::Schema(s)) => s,
                _ => return None,
            },
            CelStep::AdditionalProperties => node
                .additional_properties
                .as_ref()
                .and_then(|a| a.schema.as_deref())?,
        };
    }
    card
}

impl RuleCompiler {
    /// The cost figures of the rules of a site (compiled as CRD validation compiles them),
    /// with the schema cardinality of its node.
    pub fn rule_costs(
        &self,
        site: &CelRuleSite<'_>,
        cardinality: Option<u64>,
    ) -> Result<Vec<RuleCost>, CelCompileFailure> {
        Ok(self
            .compile(site)?
            .iter()
            .map(|c| rule_cost(c, cardinality))
            .collect())
    }

    /// The cost figures of the rules of the node `steps` below a version's
    /// `openAPIV3Schema` (`root`, the server's internal schema), as CRD validation computes
    /// them: the site's type from the outermost ancestor in the rule scope (the first node on
    /// the way that has rules; a resource root when it is `root` or an embedded resource),
    /// new-expressions environment, and the node's schema cardinality. `Ok(vec![])` when the
    /// node has no rules; `Err(NoTypeInfo)` when `steps` leads nowhere.
    pub fn rule_costs_at(
        &self,
        root: &JsonSchemaProps,
        steps: &[CelStep],
    ) -> Result<Vec<RuleCost>, CelCompileFailure> {
        let (compilations, cardinality) = self.compile_at(root, steps)?;
        Ok(compilations
            .iter()
            .map(|c| rule_cost(c, cardinality))
            .collect())
    }

    /// The compile results of the rules of the node `steps` below a version's
    /// `openAPIV3Schema` (compiled as [`RuleCompiler::rule_costs_at`] does), with the node's
    /// schema cardinality.
    pub fn compile_at(
        &self,
        root: &JsonSchemaProps,
        steps: &[CelStep],
    ) -> Result<(Vec<CelCompilation>, Option<u64>), CelCompileFailure> {
        let mut node = root;
        let mut scope: Option<(&JsonSchemaProps, bool, usize)> =
            (!root.x_validations.is_empty()).then_some((root, true, 0));
        for (i, step) in steps.iter().enumerate() {
            node = match step {
                CelStep::Property(name) => node.properties.get(name).map(Box::as_ref),
                CelStep::Items => match &node.items {
                    Some(crate::schema::props::SchemaOrArray::Schema(s)) => Some(&**s),
                    _ => None,
                },
                CelStep::AdditionalProperties => node
                    .additional_properties
                    .as_ref()
                    .and_then(|a| a.schema.as_deref()),
            }
            .ok_or(CelCompileFailure::NoTypeInfo)?;
            if scope.is_none() && !node.x_validations.is_empty() {
                scope = Some((node, node.x_embedded_resource, i + 1));
            }
        }
        let Some((scope_root, is_root, from)) = scope else {
            return Ok((Vec::new(), None));
        };
        let path = FieldPath::default();
        let site = CelRuleSite {
            schema: node,
            path: &path,
            scope_root,
            scope_root_is_resource_root: is_root,
            steps: steps.get(from..).unwrap_or_default().to_vec(),
            preexisting: None,
            environment_version: None,
            scope_cache: None,
        };
        Ok((self.compile(&site)?, schema_cardinality(root, steps)))
    }

    /// The estimate of one expression (a rule or a messageExpression) at a site, with every
    /// node's cost, size and path (for explanations): compiled with the new-expressions
    /// environment of the site's version, `oldSelf` optional when `optional_old_self`.
    /// `Err` is the compile error text.
    pub fn cost_details(
        &self,
        site: &CelRuleSite<'_>,
        expression: &str,
        optional_old_self: bool,
    ) -> Result<(CheckedExpr, CostDetails), String> {
        let decl = site_decl_type(site).map_err(|e| format!("{e:?}"))?;
        let self_ty = decl.to_cel(&self.type_name());
        let old = if optional_old_self {
            Type::optional(self_ty.clone())
        } else {
            self_ty.clone()
        };
        let env = self
            .new_env_for(site.environment_version)
            .extend()
            .decl_types(std::slice::from_ref(&self_ty))
            .variable(SCOPED_VAR_NAME, self_ty.clone())
            .variable(OLD_SCOPED_VAR_NAME, old)
            .build();
        let checked = env.compile(expression).map_err(|e| e.to_string())?;
        let sizes = DeclSizeEstimator::new(&decl);
        let estimator = KubernetesCostEstimator::new(&sizes);
        let details = estimate_cost_details(&checked, &estimator, &CostOptions::KUBERNETES);
        Ok((checked, details))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn compile(schema: serde_json::Value, root: bool) -> Vec<CelCompilation> {
        let (props, _) = JsonSchemaProps::from_json(&schema);
        RuleCompiler::new(KubernetesVersion::DEFAULT)
            .compile_schema(&props, root, true)
            .unwrap()
    }

    /// `TestMetadataNameCostIsBounded`: the widened root's `metadata.name` is at most 253
    /// characters (1012 bytes) and `generateName` 252, so `contains` is cheap.
    #[test]
    fn metadata_name_cost_is_bounded() {
        for (rule, want) in [
            ("self.metadata.name.contains('x')", 105),
            ("self.metadata.generateName.contains('x')", 104),
        ] {
            let r = compile(
                json!({"type": "object", "x-kubernetes-validations": [{"rule": rule}]}),
                true,
            );
            assert_eq!(r[0].error, None);
            assert_eq!(r[0].max_cost, want, "{rule}");
        }
        // A smaller maxLength of the schema's own metadata.name wins.
        let r = compile(
            json!({"type": "object",
                "properties": {"metadata": {"type": "object", "properties": {
                    "name": {"type": "string", "maxLength": 10}}}},
                "x-kubernetes-validations": [{"rule": "self.metadata.name.contains('x')"}]}),
            true,
        );
        assert_eq!(r[0].max_cost, 3 + 4);
    }

    #[test]
    fn cardinality_and_rule_costs() {
        let schema = json!({"type": "object", "properties": {"items": {
            "type": "array", "maxItems": 10, "items": {"type": "object",
            "required": ["name"], "properties": {"name": {"type": "string", "maxLength": 5}},
            "x-kubernetes-validations": [{"rule": "self.name.startsWith('a')",
                "messageExpression": "self.name + '!'"}]}}}});
        let (props, _) = JsonSchemaProps::from_json(&schema);
        let steps = vec![CelStep::Property("items".to_owned()), CelStep::Items];
        assert_eq!(schema_cardinality(&props, &steps), Some(10));
        assert_eq!(schema_cardinality(&props, &steps[..1]), Some(1));
        let item = schema.pointer("/properties/items/items").unwrap().clone();
        let c = compile(item, false);
        // self.name: 2; startsWith('a'): ceil(1 × 0.1) = 1.
        assert_eq!(c[0].max_cost, 3);
        // {"name":""}: 2 + 4 + 2 + 4 = 12 bytes, 3 MiB / 13 values.
        assert_eq!(c[0].max_cardinality, 3_145_728 / 13);
        let rc = rule_cost(&c[0], Some(10));
        assert_eq!(rc.estimated_cost, 30);
        // self.name + '!': 2 + ceil((20 + 1) × 0.1) = 5.
        assert_eq!(rc.message_expression_max_cost, Some(5));
        assert_eq!(rule_cost(&c[0], None).estimated_cost, 3 * (3_145_728 / 13));
        // The same from the version's root.
        let at = RuleCompiler::new(KubernetesVersion::DEFAULT)
            .rule_costs_at(&props, &steps)
            .unwrap();
        assert_eq!(at, vec![rc]);
        assert_eq!(
            RuleCompiler::new(KubernetesVersion::DEFAULT).rule_costs_at(&props, &steps[..1]),
            Ok(vec![])
        );
    }
}
