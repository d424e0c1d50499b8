//! The `x-kubernetes-validations` rule validator (apiextensions `schema/cel/validation.go`,
//! `cel.Validator`): the rules of every schema node compiled once, then evaluated on an
//! object (and, on update, its old object) with the server's walk, budget, messages and
//! ratcheting.
//!
//! * [`Validator::new`] follows `NewValidator` / `validator`: a tree parallel to the structural
//!   schema holding the compiled rules of each node (with the stored-expressions environment),
//!   built only where rules exist below; `allOf` branches are validators on the same node.
//!   The CEL type of each node is the root's declared type followed through fields and
//!   element types (a property whose name cannot be escaped gets its own declared type;
//!   properties without a type are left out, rules and all).
//! * [`Validator::validate`] follows `Validate`: at each node the rules run in order with
//!   `self` bound to the value (`UnstructuredToVal`; the resource root and embedded resources
//!   also see `apiVersion`, `kind` and `metadata.name`/`generateName`) and `oldSelf` to the
//!   correlated old value; transition rules run only with an old value unless
//!   `optionalOldSelf` is set (then `oldSelf` is an optional). Then `allOf` branches, then the
//!   children: for objects the `additionalProperties` values and then the declared
//!   properties, each in the object's key order (Go iterates its maps in random order; the
//!   order decides only which rule meets an exhausted budget first); for arrays the items in
//!   order. Old values follow object keys (maps that are `granular` or `atomic`) and
//!   `x-kubernetes-list-type: map` keys; nothing else is correlated.
//! * Each evaluation is charged to the budget (and limited by the per-call limit); a failed
//!   rule reports `message`, or the evaluated `messageExpression` (its cost charged too; its
//!   problems logged and the static message used instead), at the field, or at `fieldPath`
//!   below it, with the error type `reason` names.
//! * Ratcheting (`WithRatcheting`): a failure of a rule that does not use `oldSelf`, on a
//!   value equal to its correlated old value (or under an unchanged correlatable ancestor),
//!   becomes a warning.

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crd_studio_cel::interp::{Activation, CostTracker};
use crd_studio_cel::unstructured::{self, Schema as RtSchema};
use crd_studio_cel::value::Value;
use serde_json::Value as Json;

use super::decl_type::{
    decl_shape_at, decl_type_at, escape, schema_decl_type, DeclShape, DeclType,
};
use super::{RuleCompiler, RuleProgram, OLD_SCOPED_VAR_NAME, SCOPED_VAR_NAME};
use crate::cel::report::{CelOutcome, CelRuleResult};
use crate::crd::apiext::field_path::valid_field_path;
use crate::documents::field_error::{BadValue, FieldError};
use crate::documents::path::{FieldPath, Segment};
use crate::schema::props::ValidationRule;
use crate::schema::structural::{NestedValueValidation, Structural};
use crd_studio_gostd::strconv::quote as go_quote;

/// `celconfig.PerCallLimit`.
pub const PER_CALL_LIMIT: u64 = 1_000_000;
/// `celconfig.RuntimeCELCostBudget`.
pub const RUNTIME_CEL_COST_BUDGET: i64 = 10_000_000;
/// `celconfig.MaxEvaluatedMessageExpressionSizeBytes`.
pub const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES: usize = 5 * 1024;

/// The out-of-budget detail of rule evaluation.
pub const OUT_OF_BUDGET: &str =
    "validation failed due to running out of cost budget, no further validation rules will be run";

/// How deep the validator follows schemas and data (both are bounded before they get here;
/// this keeps the recursion bounded whatever the input).
const MAX_DEPTH: usize = 1_000;

/// The rules of a structural schema, compiled, ready to validate objects.
#[derive(Clone, Debug)]
pub struct Validator {
    schema: Arc<Structural>,
    runtime: RtSchema,
    /// `WithTypeAndObjectMeta` of the root's runtime schema, for `self` at a resource root
    /// that is not itself marked as an embedded resource.
    root_self: Option<RtSchema>,
    root: VNode,
    per_call_limit: u64,
}

/// One node of the validator tree.
#[derive(Clone, Debug, Default)]
struct VNode {
    /// [`rule_key`] of the node's rule 0 without the `x-kubernetes-validations[0]` tail.
    key_prefix: String,
    is_resource_root: bool,
    /// `compilationErr`.
    init_error: Option<String>,
    rules: Vec<NodeRule>,
    /// Whether any rule uses `oldSelf` (the activation then binds it).
    uses_old_self: bool,
    items: Option<Box<VNode>>,
    properties: BTreeMap<String, VNode>,
    additional: Option<Box<VNode>>,
    all_of: Vec<VNode>,
    /// The runtime schema of this property when it differs from the parent runtime schema's
    /// (`apiVersion`, `kind`, `metadata` of an embedded resource, whose runtime schema has
    /// them replaced for values read through the parent).
    runtime_override: Option<Box<RtSchema>>,
}

#[derive(Clone, Debug)]
struct NodeRule {
    rule: ValidationRule,
    compiled: RuleProgram,
    /// `NormalizedRuleFieldPath` as path segments.
    field_path: Option<Vec<Segment>>,
}

/// What a validation produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evaluation {
    /// The errors, in the order the server returns them.
    pub errors: Vec<FieldError>,
    /// Ratcheted failures (`warning.AddWarning`), as their `Error()` texts.
    pub warnings: Vec<String>,
    /// The ratcheted failures as errors (where they are).
    pub ratcheted: Vec<FieldError>,
    /// The budget left (negative when it ran out or evaluation was stopped).
    pub remaining_budget: i64,
    /// Every rule evaluation (and skipped rule), in order (`version` left empty).
    pub results: Vec<CelRuleResult>,
    /// What the server logs (klog, verbosity 2): messageExpression problems.
    pub log: Vec<String>,
    /// A rule asked for a named time zone (`getHours('America/New_York')`) and no
    /// time-zone database was given: evaluating again with one may change the outcome.
    pub time_zones_needed: bool,
}

/// Options of one validation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ValidateOptions<'z> {
    /// `WithRatcheting(NewCorrelatedObject(obj, old, schema))`: failures on unchanged values
    /// become warnings (needs an old object).
    pub ratcheting: bool,
    /// The time-zone database named zones resolve in (Go's tzdata); without one a named zone
    /// is `unknown time zone NAME` and [`Evaluation::time_zones_needed`] is set.
    pub time_zones: Option<&'z crd_studio_cel::tz::TimeZoneDb>,
}

/// A view of a validation schema: the structural schema itself or an `allOf` branch
/// (`nestedToStructural`).
#[derive(Clone, Copy)]
enum VSchema<'a> {
    S(&'a Structural),
    N(&'a NestedValueValidation),
}

impl<'a> VSchema<'a> {
    fn rules(self) -> &'a [ValidationRule] {
        match self {
            VSchema::S(s) => &s.x_validations,
            VSchema::N(n) => &n.x_validations,
        }
    }

    fn items(self) -> Option<VSchema<'a>> {
        match self {
            VSchema::S(s) => s.items.as_deref().map(VSchema::S),
            VSchema::N(n) => n.items.as_deref().map(VSchema::N),
        }
    }

    fn additional(self) -> Option<VSchema<'a>> {
        match self {
            VSchema::S(s) => s.additional_properties_schema().map(VSchema::S),
            VSchema::N(n) => n.additional_properties.as_deref().map(VSchema::N),
        }
    }

    fn properties(self) -> Vec<(&'a str, VSchema<'a>)> {
        match self {
            VSchema::S(s) => s
                .properties
                .iter()
                .map(|(k, v)| (k.as_str(), VSchema::S(v)))
                .collect(),
            VSchema::N(n) => n
                .properties
                .iter()
                .map(|(k, v)| (k.as_str(), VSchema::N(v)))
                .collect(),
        }
    }

    fn all_of(self) -> &'a [NestedValueValidation] {
        match self {
            VSchema::S(s) => s
                .value_validation
                .as_ref()
                .map(|v| v.all_of.as_slice())
                .unwrap_or_default(),
            VSchema::N(n) => &n.value_validation.all_of,
        }
    }
}

/// Whether `vs` or anything under it (items, additionalProperties, properties, `allOf`) has
/// rules: what [`build`] keeps.
fn any_rules(vs: VSchema<'_>) -> bool {
    let mut stack = vec![vs];
    while let Some(vs) = stack.pop() {
        if !vs.rules().is_empty() {
            return true;
        }
        stack.extend(vs.items());
        stack.extend(vs.additional());
        match vs {
            VSchema::S(s) => stack.extend(s.properties.values().map(|p| VSchema::S(p))),
            VSchema::N(n) => stack.extend(n.properties.values().map(VSchema::N)),
        }
        stack.extend(vs.all_of().iter().map(VSchema::N));
    }
    false
}

/// `hasXValidations`: rules on the node, its items, additionalProperties or properties (not
/// `allOf`).
pub fn has_x_validations(s: &Structural) -> bool {
    let mut stack = vec![s];
    while let Some(s) = stack.pop() {
        if !s.x_validations.is_empty() {
            return true;
        }
        stack.extend(s.items.as_deref());
        stack.extend(s.additional_properties_schema());
        stack.extend(s.properties.values().map(Box::as_ref));
    }
    false
}

/// The runtime view of a structural schema for `UnstructuredToVal`; embedded resources get
/// `apiVersion`, `kind` and `metadata` as the server adds them when reading values.
pub fn runtime_schema(s: &Structural) -> RtSchema {
    runtime_schema_at(s, 0)
}

fn runtime_schema_at(s: &Structural, depth: usize) -> RtSchema {
    let mut r = RtSchema {
        type_: s.generic.type_.clone(),
        format: s
            .value_validation
            .as_ref()
            .map(|v| v.format.clone())
            .unwrap_or_default(),
        nullable: s.generic.nullable,
        int_or_string: s.extensions.x_int_or_string,
        embedded_resource: s.extensions.x_embedded_resource,
        preserve_unknown_fields: s.extensions.x_preserve_unknown_fields,
        list_type: s.extensions.x_list_type.clone(),
        list_map_keys: s.extensions.x_list_map_keys.clone(),
        enum_values: s
            .value_validation
            .as_ref()
            .map(|v| v.enum_.clone())
            .unwrap_or_default(),
        ..RtSchema::default()
    };
    if depth < MAX_DEPTH {
        if !s.properties.is_empty() {
            r.properties = Some(
                s.properties
                    .iter()
                    .map(|(k, v)| (k.clone(), Box::new(runtime_schema_at(v, depth + 1))))
                    .collect(),
            );
        }
        r.additional_properties = s
            .additional_properties_schema()
            .map(|a| Box::new(runtime_schema_at(a, depth + 1)));
        r.items = s
            .items
            .as_deref()
            .map(|i| Box::new(runtime_schema_at(i, depth + 1)));
    }
    if r.embedded_resource {
        r = r.with_type_and_object_meta();
    }
    r
}

/// Whether a validator node has rules of its own, or in its `allOf` branches (which are on
/// the same schema node).
fn has_own_rules(v: &VNode) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        if !v.rules.is_empty() {
            return true;
        }
        stack.extend(&v.all_of);
    }
    false
}

/// `ruleErrorString`.
fn rule_error_string(rule: &ValidationRule) -> &str {
    if !rule.message.is_empty() {
        rule.message.trim()
    } else {
        rule.rule.trim()
    }
}

/// `ruleMessageOrDefault`.
fn rule_message_or_default(rule: &ValidationRule) -> String {
    if rule.message.is_empty() {
        format!("failed rule: {}", rule_error_string(rule))
    } else {
        rule.message.trim().to_owned()
    }
}

/// `fieldErrorForReason`.
fn field_error_for_reason(
    path: FieldPath,
    value: BadValue,
    detail: String,
    reason: Option<&str>,
) -> FieldError {
    match reason {
        Some("FieldValueForbidden") => FieldError::forbidden(path, detail),
        Some("FieldValueRequired") => FieldError::required(path, detail),
        Some("FieldValueDuplicate") => FieldError::duplicate(path, value),
        _ => FieldError::invalid(path, value, detail),
    }
}

impl Validator {
    /// `NewValidator(s, isResourceRoot, perCallLimit)` with its own compiler; `None` when the
    /// schema has no rules.
    pub fn new(
        schema: Arc<Structural>,
        is_resource_root: bool,
        per_call_limit: u64,
    ) -> Option<Validator> {
        let compiler =
            RuleCompiler::new(crate::documents::kube_version::KubernetesVersion::DEFAULT);
        Validator::with_compiler(&compiler, schema, is_resource_root, per_call_limit)
    }

    /// `NewValidator` compiling with `compiler`'s stored-expressions environment.
    pub fn with_compiler(
        compiler: &RuleCompiler,
        schema: Arc<Structural>,
        is_resource_root: bool,
        per_call_limit: u64,
    ) -> Option<Validator> {
        if !has_x_validations(&schema) {
            return None;
        }
        Validator::tree(compiler, schema, is_resource_root, per_call_limit)
    }

    /// `validator(s, s, isResourceRoot, SchemaDeclType(s, isResourceRoot), perCallLimit)`:
    /// like [`Validator::with_compiler`] without the first check, so rules that only exist
    /// in `allOf` branches are found too; `None` when there are none.
    pub fn tree(
        compiler: &RuleCompiler,
        schema: Arc<Structural>,
        is_resource_root: bool,
        per_call_limit: u64,
    ) -> Option<Validator> {
        Validator::tree_with(
            Programs {
                compiler,
                memo: None,
            },
            schema,
            is_resource_root,
            per_call_limit,
        )
    }

    /// Like [`Validator::with_compiler`], taking the rules compiled before from `memo` (and
    /// keeping those it compiles there): the same validator, built faster when validators
    /// share rules.
    pub fn with_memo(
        compiler: &RuleCompiler,
        memo: &ProgramMemo,
        schema: Arc<Structural>,
        is_resource_root: bool,
        per_call_limit: u64,
    ) -> Option<Validator> {
        if !has_x_validations(&schema) {
            return None;
        }
        Validator::tree_with(
            Programs {
                compiler,
                memo: Some(memo),
            },
            schema,
            is_resource_root,
            per_call_limit,
        )
    }

    fn tree_with(
        programs: Programs<'_>,
        schema: Arc<Structural>,
        is_resource_root: bool,
        per_call_limit: u64,
    ) -> Option<Validator> {
        let root = build(
            programs,
            VSchema::S(&schema),
            &schema,
            is_resource_root,
            NodeDecl::Lazy(0),
            String::new(),
            0,
        )?;
        let runtime = runtime_schema(&schema);
        // Only rules on the root node itself (or its `allOf` branches) see it: a copy of the
        // whole runtime schema, made only for them.
        let root_self =
            (is_resource_root && !schema.extensions.x_embedded_resource && has_own_rules(&root))
                .then(|| runtime.with_type_and_object_meta());
        Some(Validator {
            schema,
            runtime,
            root_self,
            root,
            per_call_limit,
        })
    }

    /// The structural schema.
    pub fn schema(&self) -> &Structural {
        &self.schema
    }

    /// `Validate(ctx, path, s, obj, oldObj, budget, opts...)`.
    pub fn validate(
        &self,
        path: &FieldPath,
        obj: &Json,
        old: Option<&Json>,
        budget: i64,
        options: ValidateOptions<'_>,
    ) -> Evaluation {
        let mut w = Walk {
            v: self,
            out: Evaluation::default(),
            dry: None,
            zones: options.time_zones,
        };
        let root_corr = match old {
            Some(o) if options.ratcheting => Some(Corr::new(obj, o, Some(&self.schema))),
            _ => None,
        };
        let ratchet = Ratchet {
            current: root_corr.as_ref(),
            parent: None,
        };
        let remaining = w.validate(
            &self.root,
            &self.schema,
            &self.runtime,
            path,
            obj,
            old,
            ratchet,
            budget,
            0,
        );
        w.out.remaining_budget = remaining;
        w.out
    }
}

impl Validator {
    /// The rules that would run on `obj`, each recorded as [`CelOutcome::Skipped`] for
    /// `why` (the strategy skipped CEL validation); nothing is evaluated.
    pub fn skipped(
        &self,
        path: &FieldPath,
        obj: &Json,
        old: Option<&Json>,
        why: &str,
    ) -> Vec<CelRuleResult> {
        let mut w = Walk {
            v: self,
            out: Evaluation::default(),
            dry: Some(why),
            zones: None,
        };
        w.validate(
            &self.root,
            &self.schema,
            &self.runtime,
            path,
            obj,
            old,
            Ratchet::default(),
            RUNTIME_CEL_COST_BUDGET,
            0,
        );
        w.out.results
    }
}

/// `validator(validationSchema, nodeSchema, isResourceRoot, declType, perCallLimit)`.
/// The declared type [`build`] has for a node: `SchemaDeclType` of the schema root followed
/// to the node, computed where a rule needs it. The root's type of a large schema is most of
/// a compile of it when few nodes have rules (argo-workflows: 38 rules in some 10,000 nodes);
/// a node's part of it depends only on the node's subtree, so each node with rules computes
/// its own.
#[derive(Clone, Copy, Debug)]
enum NodeDecl<'d> {
    /// Computed: the node's type (`None` when it has none).
    Known(Option<&'d DeclType>),
    /// Not computed: the node's type is [`decl_type_at`]`(node, is_resource_root, depth)`.
    Lazy(u32),
}

/// Where [`build`] gets a node's compiled rules.
#[derive(Clone, Copy)]
struct Programs<'c> {
    compiler: &'c RuleCompiler,
    memo: Option<&'c ProgramMemo>,
}

impl Programs<'_> {
    fn compile(self, rules: &[ValidationRule], decl: &DeclType) -> Vec<RuleProgram> {
        match self.memo {
            Some(m) => m.compile(self.compiler, rules, decl),
            None => self.compiler.compile_programs(rules, decl),
        }
    }
}

fn build(
    compiler: Programs<'_>,
    vs: VSchema<'_>,
    node: &Structural,
    is_resource_root: bool,
    decl: NodeDecl<'_>,
    key_prefix: String,
    depth: usize,
) -> Option<VNode> {
    // A subtree without rules builds nothing (`keep` below is false all the way down): it
    // is not walked, which spared most of a large CRD's schema (argo-workflows: 38 rules
    // among some 60,000 nodes) the key prefixes, escapes and declaration lookups.
    if depth > MAX_DEPTH || !any_rules(vs) {
        return None;
    }
    let mut v = VNode {
        key_prefix,
        is_resource_root,
        ..VNode::default()
    };
    let rules = vs.rules();
    // The type is computed here when the node has rules, or when the children's types cannot
    // be told apart from it without it: the `apiVersion`, `kind` and `metadata` of a resource
    // root (`WithTypeAndObjectMeta` may replace them), or a node with both `items` and an
    // `additionalProperties` schema (both children get its one element type).
    let own_decl;
    let decl = match decl {
        NodeDecl::Lazy(at)
            if !rules.is_empty()
                || (is_resource_root
                    && vs.properties().into_iter().any(|(k, vp)| {
                        matches!(k, "apiVersion" | "kind" | "metadata") && any_rules(vp)
                    }))
                || (node.items.is_some() && node.additional_properties_schema().is_some()) =>
        {
            own_decl = decl_type_at(node, is_resource_root, at);
            NodeDecl::Known(own_decl.as_ref())
        }
        other => other,
    };
    // The shape of a type not computed.
    let lazy_shape = match decl {
        NodeDecl::Lazy(at) => Some((decl_shape_at(node, at), at)),
        NodeDecl::Known(_) => None,
    };
    if !rules.is_empty() {
        let NodeDecl::Known(decl) = decl else {
            return None;
        };
        match decl {
            None => {
                v.init_error =
                    Some("failed to convert to declType for CEL validation rules".to_owned())
            }
            Some(d) => {
                let compiled = compiler.compile(rules, d);
                for (rule, compiled) in rules.iter().zip(compiled) {
                    let field_path = if !rule.field_path.is_empty()
                        && compiled.compilation.error.is_none()
                        && compiled.compilation.message_expression_error.is_none()
                        && compiled.program.is_some()
                    {
                        valid_field_path(&rule.field_path, node, true)
                            .ok()
                            .map(|(p, _)| p.0)
                    } else {
                        None
                    };
                    v.uses_old_self |= compiled.compilation.uses_old_self;
                    v.rules.push(NodeRule {
                        rule: rule.clone(),
                        compiled,
                        field_path,
                    });
                }
            }
        }
    }
    let elem = match (decl, lazy_shape) {
        (NodeDecl::Known(d), _) => NodeDecl::Known(d.and_then(DeclType::elem)),
        (NodeDecl::Lazy(_), Some((DeclShape::List | DeclShape::Map, at))) => NodeDecl::Lazy(at + 1),
        (NodeDecl::Lazy(_), _) => NodeDecl::Known(None),
    };
    if let (Some(vi), Some(ni)) = (vs.items(), node.items.as_deref()) {
        v.items = build(
            compiler,
            vi,
            ni,
            ni.extensions.x_embedded_resource,
            elem,
            format!("{}items.", v.key_prefix),
            depth + 1,
        )
        .map(Box::new);
    }
    for (k, vp) in vs.properties() {
        let Some(np) = node.properties.get(k) else {
            continue;
        };
        if !any_rules(vp) {
            // `build` would give nothing: not even the field's type is looked up.
            continue;
        }
        let own;
        let field_type = match escape(k) {
            Some(escaped) => match (decl, lazy_shape) {
                (NodeDecl::Known(d), _) => {
                    let Some(fields) = d.and_then(DeclType::fields) else {
                        continue;
                    };
                    match fields.get(&escaped) {
                        Some(t) => NodeDecl::Known(Some(t)),
                        None => continue,
                    }
                }
                // An object type has a field for each property with a type (escaping is
                // one-to-one).
                (NodeDecl::Lazy(_), Some((DeclShape::Object, at)))
                    if decl_shape_at(np, at + 1) != DeclShape::None =>
                {
                    NodeDecl::Lazy(at + 1)
                }
                (NodeDecl::Lazy(_), _) => continue,
            },
            None => {
                own = schema_decl_type(np, np.extensions.x_embedded_resource);
                match &own {
                    Some(t) => NodeDecl::Known(Some(t)),
                    None => continue,
                }
            }
        };
        if let Some(mut child) = build(
            compiler,
            vp,
            np,
            np.extensions.x_embedded_resource,
            field_type,
            format!("{}properties[{k}].", v.key_prefix),
            depth + 1,
        ) {
            if node.extensions.x_embedded_resource
                && matches!(k, "apiVersion" | "kind" | "metadata")
            {
                child.runtime_override = Some(Box::new(runtime_schema(np)));
            }
            v.properties.insert(k.to_owned(), child);
        }
    }
    if let (Some(va), Some(na)) = (vs.additional(), node.additional_properties_schema()) {
        v.additional = build(
            compiler,
            va,
            na,
            na.extensions.x_embedded_resource,
            elem,
            format!("{}additionalProperties.", v.key_prefix),
            depth + 1,
        )
        .map(Box::new);
    }
    for (i, nested) in vs.all_of().iter().enumerate() {
        if let Some(a) = build(
            compiler,
            VSchema::N(nested),
            node,
            is_resource_root,
            decl,
            format!("{}allOf[{i}].", v.key_prefix),
            depth + 1,
        ) {
            v.all_of.push(a);
        }
    }
    let keep = !rules.is_empty()
        || v.init_error.is_some()
        || v.items.is_some()
        || v.additional.is_some()
        || !v.properties.is_empty()
        || !v.all_of.is_empty();
    keep.then_some(v)
}

mod correlation;
use correlation::*;
mod programs;
pub use programs::ProgramMemo;

// ------------------------------------------------------------------------------------------
// The walk
// ------------------------------------------------------------------------------------------

struct Walk<'v> {
    v: &'v Validator,
    out: Evaluation,
    /// Set when no rule is evaluated: each is recorded as skipped for this reason.
    dry: Option<&'v str>,
    /// The time-zone database for named zones.
    zones: Option<&'v crd_studio_cel::tz::TimeZoneDb>,
}

/// What `evalMessageExpression` returned.
enum MessageOutcome {
    Message(String, i64),
    /// `ErrorTypeInvalid`: reported, evaluation stops.
    Invalid(String),
    /// Any other error: logged, the static message is used.
    Logged(String, i64),
}

/// A field path as text, `<root>` for the empty one.
fn path_text(p: &FieldPath) -> String {
    let s = p.to_string();
    if s.is_empty() {
        "<root>".to_owned()
    } else {
        s
    }
}

impl Walk<'_> {
    #[allow(clippy::too_many_arguments)]
    fn validate(
        &mut self,
        node: &VNode,
        s: &Structural,
        r: &RtSchema,
        path: &FieldPath,
        obj: &Json,
        old: Option<&Json>,
        ratchet: Ratchet<'_, '_>,
        budget: i64,
        depth: usize,
    ) -> i64 {
        if obj.is_null() || depth > MAX_DEPTH {
            return budget;
        }
        let old = old.filter(|o| !o.is_null());
        let mut remaining = self.expressions(node, s, r, path, obj, old, ratchet, budget);
        if remaining < 0 {
            return remaining;
        }
        for a in &node.all_of {
            let branch = Ratchet {
                current: None,
                parent: ratchet.parent,
            };
            remaining = self.validate(a, s, r, path, obj, old, branch, remaining, depth + 1);
            if remaining < 0 {
                return remaining;
            }
        }
        match obj {
            Json::Array(items) => {
                self.validate_array(node, s, r, path, items, old, ratchet, remaining, depth)
            }
            Json::Object(m) => {
                self.validate_map(node, s, r, path, m, old, ratchet, remaining, depth)
            }
            _ => remaining,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn validate_map(
        &mut self,
        node: &VNode,
        s: &Structural,
        r: &RtSchema,
        path: &FieldPath,
        obj: &serde_json::Map<String, Json>,
        old: Option<&Json>,
        ratchet: Ratchet<'_, '_>,
        budget: i64,
        depth: usize,
    ) -> i64 {
        let mut remaining = budget;
        if remaining < 0 {
            return remaining;
        }
        let correlatable = matches!(
            s.extensions.x_map_type.as_deref(),
            None | Some("granular") | Some("atomic")
        );
        let old_map = old.and_then(Json::as_object);
        let old_of = |k: &str| {
            if correlatable {
                old_map.and_then(|m| m.get(k))
            } else {
                None
            }
        };
        if let (Some(ap), Some(s_ap), Some(r_ap)) = (
            node.additional.as_deref(),
            s.additional_properties_schema(),
            r.additional_properties.as_deref(),
        ) {
            for (k, v) in obj {
                let child = ratchet.current.and_then(|c| c.key(k));
                let opts = key_ratchet(ratchet, k, child.as_ref());
                remaining = self.validate(
                    ap,
                    s_ap,
                    r_ap,
                    &path.key(k),
                    v,
                    old_of(k),
                    opts,
                    remaining,
                    depth + 1,
                );
                if remaining < 0 {
                    return remaining;
                }
            }
        }
        if !node.properties.is_empty() {
            for (k, v) in obj {
                let Some(sub) = node.properties.get(k) else {
                    continue;
                };
                let Some(s_sub) = s.properties.get(k) else {
                    continue;
                };
                let r_sub = match &sub.runtime_override {
                    Some(o) => Some(&**o),
                    None => r
                        .properties
                        .as_ref()
                        .and_then(|p| p.get(k))
                        .map(Box::as_ref),
                };
                let Some(r_sub) = r_sub else { continue };
                let child = ratchet.current.and_then(|c| c.key(k));
                let opts = key_ratchet(ratchet, k, child.as_ref());
                remaining = self.validate(
                    sub,
                    s_sub,
                    r_sub,
                    &path.child_name(k),
                    v,
                    old_of(k),
                    opts,
                    remaining,
                    depth + 1,
                );
                if remaining < 0 {
                    return remaining;
                }
            }
        }
        remaining
    }

    #[allow(clippy::too_many_arguments)]
    fn validate_array(
        &mut self,
        node: &VNode,
        s: &Structural,
        r: &RtSchema,
        path: &FieldPath,
        items: &[Json],
        old: Option<&Json>,
        ratchet: Ratchet<'_, '_>,
        budget: i64,
        depth: usize,
    ) -> i64 {
        let mut remaining = budget;
        if remaining < 0 {
            return remaining;
        }
        let (Some(iv), Some(s_items), Some(r_items)) = (
            node.items.as_deref(),
            s.items.as_deref(),
            r.items.as_deref(),
        ) else {
            return remaining;
        };
        let old_items = old.and_then(Json::as_array).map(Vec::as_slice);
        let old_list = MapList::new(s, old_items.unwrap_or_default());
        // The ratchet correlation of a map-type list looks items up by key, too.
        let corr_list = ratchet
            .current
            .and_then(|c| match (c.new, c.old, c.schema) {
                (Json::Array(_), Json::Array(o), Some(cs))
                    if cs.extensions.x_list_type.as_deref() == Some("map") =>
                {
                    Some(MapList::new(cs, o))
                }
                _ => None,
            });
        for (i, item) in items.iter().enumerate() {
            let child = match (ratchet.current, &corr_list) {
                (Some(c), Some(list)) => {
                    match (list.get(item), c.schema.and_then(|cs| cs.items.as_deref())) {
                        (Some(old_item), Some(is)) => Some(Corr::new(item, old_item, Some(is))),
                        _ => None,
                    }
                }
                (Some(c), None) => c.index(i),
                _ => None,
            };
            let opts = match ratchet.current {
                None => ratchet,
                Some(c) => Ratchet {
                    current: child.as_ref(),
                    parent: Some(c),
                },
            };
            remaining = self.validate(
                iv,
                s_items,
                r_items,
                &path.index(i),
                item,
                old_list.get(item),
                opts,
                remaining,
                depth + 1,
            );
            if remaining < 0 {
                return remaining;
            }
        }
        remaining
    }

    #[allow(clippy::too_many_arguments)]
    fn result(
        &mut self,
        node: &VNode,
        index: usize,
        path: &FieldPath,
        outcome: CelOutcome,
        message: Option<String>,
        detail: Option<String>,
        cost: u64,
    ) {
        self.out.results.push(CelRuleResult {
            rule: format!("{}x-kubernetes-validations[{index}]", node.key_prefix),
            version: String::new(),
            path: path_text(path),
            outcome,
            message,
            detail,
            cost,
        });
    }

    /// Marks the rules from `from` on as not run (the evaluation stopped).
    fn skip_rest(&mut self, node: &VNode, from: usize, path: &FieldPath, why: &str) {
        for i in from..node.rules.len() {
            self.result(
                node,
                i,
                path,
                CelOutcome::Skipped,
                None,
                Some(why.to_owned()),
                0,
            );
        }
    }

    /// `validateExpressions`.
    #[allow(clippy::too_many_arguments)]
    fn expressions(
        &mut self,
        node: &VNode,
        s: &Structural,
        r: &RtSchema,
        path: &FieldPath,
        obj: &Json,
        old: Option<&Json>,
        ratchet: Ratchet<'_, '_>,
        budget: i64,
    ) -> i64 {
        let mut remaining = budget;
        if let Some(why) = self.dry {
            for (i, nr) in node.rules.iter().enumerate() {
                if nr.compiled.program.is_some() || nr.compiled.compilation.error.is_some() {
                    self.result(
                        node,
                        i,
                        path,
                        CelOutcome::Skipped,
                        None,
                        Some(why.to_owned()),
                        0,
                    );
                }
            }
            return remaining;
        }
        let ty = || BadValue::Str(s.generic.type_.clone());
        if let Some(e) = &node.init_error {
            self.out.errors.push(FieldError::invalid(
                path.clone(),
                ty(),
                format!("rule compiler initialization error: {e}"),
            ));
            return remaining;
        }
        if node.rules.is_empty() {
            return remaining;
        }
        if remaining <= 0 {
            self.out
                .errors
                .push(FieldError::invalid(path.clone(), ty(), OUT_OF_BUDGET));
            self.skip_rest(node, 0, path, "the cost budget ran out");
            return -1;
        }
        let self_schema = match &self.v.root_self {
            Some(rs) if node.is_resource_root && !s.extensions.x_embedded_resource => rs,
            _ => r,
        };
        let self_val = unstructured::to_value(obj, self_schema);
        let old_val = old.map(|o| unstructured::to_value(o, self_schema));
        let mut plain = Activation::new();
        plain.with_time_zones(self.zones);
        plain.bind(SCOPED_VAR_NAME, self_val.clone());
        let mut optional = plain.clone();
        if node.uses_old_self {
            if let Some(o) = &old_val {
                plain.bind(OLD_SCOPED_VAR_NAME, o.clone());
            }
            optional.bind(
                OLD_SCOPED_VAR_NAME,
                match &old_val {
                    Some(o) => Value::optional_of(o.clone()),
                    None => Value::optional_none(),
                },
            );
        }
        for (i, nr) in node.rules.iter().enumerate() {
            let rule = &nr.rule;
            if let Some((_, detail)) = &nr.compiled.compilation.error {
                // Whatever its type, a compile error is reported as an invalid value.
                let e = FieldError::invalid(
                    path.clone(),
                    ty(),
                    format!("rule compile error: {detail}"),
                );
                self.result(
                    node,
                    i,
                    path,
                    CelOutcome::Error,
                    Some(e.error()),
                    Some(detail.clone()),
                    0,
                );
                self.out.errors.push(e);
                continue;
            }
            let Some(program) = &nr.compiled.program else {
                continue;
            };
            let optional_rule = rule.optional_old_self == Some(true);
            let uses_old_self = nr.compiled.compilation.uses_old_self;
            if uses_old_self && old.is_none() && !optional_rule {
                self.result(
                    node,
                    i,
                    path,
                    CelOutcome::Skipped,
                    None,
                    Some("a transition rule runs only when there is an old value".to_owned()),
                    0,
                );
                continue;
            }
            let activation = if optional_rule { &optional } else { &plain };
            let mut tracker = CostTracker::kubernetes(Some(self.v.per_call_limit));
            let result = program.eval(activation, &mut tracker);
            self.out.time_zones_needed |= activation.time_zones_needed();
            let cost = tracker.actual_cost();
            if cost > i64::MAX as u64 || cost as i64 > remaining {
                let e = FieldError::invalid(path.clone(), ty(), OUT_OF_BUDGET);
                self.result(
                    node,
                    i,
                    path,
                    CelOutcome::Error,
                    Some(e.error()),
                    Some(OUT_OF_BUDGET.to_owned()),
                    cost,
                );
                self.out.errors.push(e);
                self.skip_rest(node, i + 1, path, "the cost budget ran out");
                return -1;
            }
            remaining -= cost as i64;
            let value = match result {
                Err(limit) => {
                    let e = FieldError::invalid(
                        path.clone(),
                        ty(),
                        format!(
                            "'{limit}': no further validation rules will be run due to call cost exceeds limit for rule: {}",
                            rule_error_string(rule)
                        ),
                    );
                    self.result(
                        node,
                        i,
                        path,
                        CelOutcome::Error,
                        Some(e.error()),
                        Some(limit.to_string()),
                        cost,
                    );
                    self.out.errors.push(e);
                    self.skip_rest(node, i + 1, path, "the per-call cost limit was exceeded");
                    return -1;
                }
                Ok(v) => v,
            };
            if let Value::Error(err) = &value {
                let msg = &err.message;
                let detail = if msg.starts_with(crd_studio_cel::value::NO_SUCH_OVERLOAD) {
                    format!(
                        "'{msg}': call arguments did not match a supported operator, function or macro signature for rule: {}",
                        rule_error_string(rule)
                    )
                } else {
                    format!("{msg} evaluating rule: {}", rule_error_string(rule))
                };
                let e = FieldError::invalid(path.clone(), ty(), detail);
                self.result(
                    node,
                    i,
                    path,
                    CelOutcome::Error,
                    Some(e.error()),
                    Some(msg.clone()),
                    cost,
                );
                self.out.errors.push(e);
                continue;
            }
            if matches!(value, Value::Bool(true)) {
                self.result(node, i, path, CelOutcome::Passed, None, None, cost);
                continue;
            }
            // The rule failed: the error is at the field, or at fieldPath below it.
            let mut current = path.clone();
            if let Some(fp) = &nr.field_path {
                if matches!(fp.first(), Some(Segment::Key(_))) {
                    // `Child("[k]...")` writes a dot before the bracket.
                    current.0.push(Segment::Field(String::new()));
                }
                current.0.extend(fp.iter().cloned());
            }
            let ratchets = !uses_old_self && ratchet.should_ratchet();
            let mut total_cost = cost;
            let mut detail = None;
            if let Some(msg_program) = &nr.compiled.message_expression {
                match self.message_expression(
                    msg_program,
                    &rule.message_expression,
                    &plain,
                    remaining,
                ) {
                    MessageOutcome::Message(m, rem) => {
                        total_cost = total_cost.saturating_add((remaining - rem).max(0) as u64);
                        remaining = rem;
                        detail = Some(m);
                    }
                    MessageOutcome::Invalid(d) => {
                        let e = FieldError::invalid(current.clone(), ty(), d.clone());
                        self.add_error(node, i, path, e, ratchets, Some(d), total_cost);
                        self.skip_rest(node, i + 1, path, "the cost budget ran out");
                        return -1;
                    }
                    MessageOutcome::Logged(d, rem) => {
                        total_cost = total_cost.saturating_add((remaining - rem).max(0) as u64);
                        remaining = rem;
                        self.out.log.push(format!(
                            "\"messageExpression evaluation failed\" err={}",
                            go_quote(&d)
                        ));
                    }
                }
            }
            let detail = detail.unwrap_or_else(|| rule_message_or_default(rule));
            let value = if matches!(s.generic.type_.as_str(), "object" | "array") {
                BadValue::Omit
            } else {
                BadValue::from_json(obj)
            };
            let e = field_error_for_reason(current, value, detail, rule.reason.as_deref());
            self.add_error(node, i, path, e, ratchets, None, total_cost);
        }
        remaining
    }

    /// `addErr`: the error, or a warning when the failure ratchets.
    #[allow(clippy::too_many_arguments)]
    fn add_error(
        &mut self,
        node: &VNode,
        index: usize,
        path: &FieldPath,
        e: FieldError,
        ratchets: bool,
        detail: Option<String>,
        cost: u64,
    ) {
        let text = e.error();
        let outcome = if detail.is_some() {
            CelOutcome::Error
        } else {
            CelOutcome::Failed
        };
        if ratchets {
            let why =
                "the value is unchanged from the old object: the failure is a warning (ratcheting)";
            self.result(
                node,
                index,
                path,
                outcome,
                Some(text.clone()),
                Some(detail.map_or_else(|| why.to_owned(), |d| format!("{d} ({why})"))),
                cost,
            );
            self.out.warnings.push(text);
            self.out.ratcheted.push(e);
        } else {
            self.result(node, index, path, outcome, Some(text), detail, cost);
            self.out.errors.push(e);
        }
    }

    /// `evalMessageExpression`.
    fn message_expression(
        &mut self,
        program: &crd_studio_cel::interp::Program,
        source: &str,
        activation: &Activation<'_>,
        remaining: i64,
    ) -> MessageOutcome {
        let mut tracker = CostTracker::kubernetes(Some(self.v.per_call_limit));
        let result = program.eval(activation, &mut tracker);
        self.out.time_zones_needed |= activation.time_zones_needed();
        let cost = tracker.actual_cost();
        if cost > i64::MAX as u64 || cost as i64 > remaining {
            return MessageOutcome::Invalid(
                "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run".to_owned(),
            );
        }
        let left = remaining - cost as i64;
        let value = match result {
            Err(_) => {
                return MessageOutcome::Invalid(format!(
                    "no further validation rules will be run due to call cost exceeds limit for messageExpression: {}",
                    go_quote(source)
                ))
            }
            Ok(v) => v,
        };
        let text = match &value {
            Value::Error(e) => {
                return MessageOutcome::Logged(
                    format!("messageExpression evaluation failed due to: {}", e.message),
                    left,
                )
            }
            Value::String(s) => s.as_str(),
            _ => {
                return MessageOutcome::Logged(
                    "messageExpression failed to convert to string".to_owned(),
                    left,
                )
            }
        };
        let trimmed = text.trim();
        if trimmed.len() > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES {
            MessageOutcome::Logged(
                format!(
                    "messageExpression beyond allowable length of {MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES}"
                ),
                left,
            )
        } else if trimmed.contains('\n') {
            MessageOutcome::Logged(
                "messageExpression should not contain line breaks".to_owned(),
                left,
            )
        } else if trimmed.is_empty() {
            MessageOutcome::Logged(
                "messageExpression should evaluate to a non-empty string".to_owned(),
                left,
            )
        } else {
            MessageOutcome::Message(trimmed.to_owned(), left)
        }
    }
}

/// `ratchetingOptions.key(field)`.
fn key_ratchet<'c, 'a>(
    r: Ratchet<'c, 'a>,
    field: &str,
    child: Option<&'c Corr<'a>>,
) -> Ratchet<'c, 'a> {
    match r.current {
        None => r,
        Some(_) if r.parent.is_none() && matches!(field, "apiVersion" | "kind") => {
            Ratchet::default()
        }
        Some(c) => Ratchet {
            current: child,
            parent: Some(c),
        },
    }
}

/// The CEL part of default-value validation ([`crate::crd::apiext::defaults::DefaultsCel`]):
/// `cel.NewValidator(s, isResourceRoot, PerCallLimit).Validate(ctx, path, s, default, old,
/// budget)`, one validator per default, compiled with one shared compiler. The validators of
/// defaults nest (a default's schema holds the schemas of the defaults below it) and each
/// default is checked twice: a node's rules are compiled once ([`ProgramMemo`]).
#[derive(Debug)]
pub struct DefaultsRules {
    compiler: RuleCompiler,
    programs: ProgramMemo,
}

impl Default for DefaultsRules {
    fn default() -> Self {
        DefaultsRules::new()
    }
}

impl DefaultsRules {
    /// A validator of defaults' rules with the stored-expressions environment.
    pub fn new() -> DefaultsRules {
        DefaultsRules {
            compiler: RuleCompiler::new(crate::documents::kube_version::KubernetesVersion::DEFAULT),
            programs: ProgramMemo::new(),
        }
    }

    /// The rules compiled so far, for the versions' validators ([`Validator::with_memo`]).
    pub fn programs(&self) -> &ProgramMemo {
        &self.programs
    }
}

impl crate::crd::apiext::defaults::DefaultsCel for DefaultsRules {
    fn validate(
        &self,
        path: &FieldPath,
        schema: &Structural,
        is_resource_root: bool,
        value: &Json,
        old: Option<&Json>,
        budget: i64,
    ) -> Option<(Vec<FieldError>, i64)> {
        if !has_x_validations(schema) {
            return None;
        }
        let v = Validator::with_memo(
            &self.compiler,
            &self.programs,
            Arc::new(schema.clone()),
            is_resource_root,
            PER_CALL_LIMIT,
        )?;
        let out = v.validate(path, value, old, budget, ValidateOptions::default());
        Some((out.errors, out.remaining_budget))
    }
}

#[cfg(test)]
mod tests;
