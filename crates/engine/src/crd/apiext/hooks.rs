//! Where CRD validation calls into other parts of the engine: CEL compilation of
//! `x-kubernetes-validations` rules, and the validation of the schema's `default` values
//! (pruning, OpenAPI validation, metadata checks, CEL). Both default to "no errors", so CRD
//! validation runs without them; the CEL and defaulting modules plug in by implementing the
//! traits and passing them in [`Hooks`].

use std::collections::BTreeSet;

use crate::documents::field_error::FieldError;
use crate::documents::path::FieldPath;
use crate::schema::props::JsonSchemaProps;
use crate::schema::structural::Structural;

/// The CEL expressions an old CRD already had (`preexistingExpressions`): those compile with
/// the stored-expressions environment, new ones with the new-expressions environment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PreexistingExpressions {
    /// Rule texts.
    pub rules: BTreeSet<String>,
    /// `messageExpression` texts.
    pub message_expressions: BTreeSet<String>,
}

/// One step from a schema node to a child, as the CEL type information is walked
/// (`propertyTypeInfoAccessor`, `itemsTypeInfoAccessor`, `additionalItemsTypeInfoAccessor`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CelStep {
    /// `properties[name]`.
    Property(String),
    /// `items`.
    Items,
    /// `additionalProperties`.
    AdditionalProperties,
}

/// What `cel.Compile` needs for the rules of one schema node (the `CELSchemaContext`
/// type information of `validateCustomResourceDefinitionOpenAPISchema`).
///
/// The server builds the CEL type of the node by converting the outermost ancestor that is
/// inside the "validation rule scope" (the highest ancestor, on the chain of properties,
/// items and additionalProperties from the root, from which on every node has rules or is
/// below one that has) with `SchemaDeclType(NewStructural(scope_root), scope_root_is_resource_root)`
/// and then following `steps` through the declared type; when a step finds nothing (a
/// property whose name cannot be escaped, or whose type is unknown), it converts the node
/// itself (`SchemaDeclType(NewStructural(node), node.x-kubernetes-embedded-resource)`).
#[derive(Clone, Debug)]
pub struct CelRuleSite<'a> {
    /// The node whose `x-kubernetes-validations` are compiled.
    pub schema: &'a JsonSchemaProps,
    /// Its field path (`...openAPIV3Schema.properties[spec]`).
    pub path: &'a FieldPath,
    /// The outermost ancestor in the rule scope (may be the node itself).
    pub scope_root: &'a JsonSchemaProps,
    /// Whether the scope root is the schema root or an embedded resource (the `isRoot` of
    /// the converter).
    pub scope_root_is_resource_root: bool,
    /// The steps from the scope root to the node.
    pub steps: Vec<CelStep>,
    /// The old CRD's expressions, on update.
    pub preexisting: Option<&'a PreexistingExpressions>,
    /// The CEL environment compatibility version (`None`: the default one).
    pub environment_version: Option<&'a str>,
    /// Where the compiler may keep what it derives from scope roots (their structural form
    /// and declared type) for the other sites of the same walk; `None`: derive it afresh.
    pub scope_cache: Option<&'a ScopeCache>,
}

/// What a [`CelCompiler`] derives from a scope root, kept for the other rule sites of one walk
/// over a schema that does not change while the walk runs (so a scope root's address names
/// it): the server derives the declared type of a scope once (`CELSchemaContext`), and so
/// must we, or a schema with many rules is converted once per rule.
#[derive(Default)]
pub struct ScopeCache {
    entries: std::cell::RefCell<Vec<ScopeEntry>>,
}

/// One scope root of a [`ScopeCache`]: its address, whether it is a resource root, and what
/// the compiler derived from it.
type ScopeEntry = (usize, bool, std::rc::Rc<dyn std::any::Any>);

impl std::fmt::Debug for ScopeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ScopeCache({} entries)", self.entries.borrow().len())
    }
}

impl ScopeCache {
    /// The value kept for `root` (as a resource root or not), computed by `make` on first use.
    pub fn get_or_insert<T: 'static>(
        &self,
        root: &JsonSchemaProps,
        is_resource_root: bool,
        make: impl FnOnce() -> T,
    ) -> Option<std::rc::Rc<T>> {
        let key = root as *const JsonSchemaProps as usize;
        let found = self
            .entries
            .borrow()
            .iter()
            .find(|(k, r, _)| *k == key && *r == is_resource_root)
            .map(|(_, _, v)| v.clone());
        let value = match found {
            Some(v) => v,
            None => {
                let v: std::rc::Rc<dyn std::any::Any> = std::rc::Rc::new(make());
                self.entries
                    .borrow_mut()
                    .push((key, is_resource_root, v.clone()));
                v
            }
        };
        value.downcast::<T>().ok()
    }
}

/// The kind of a rule compilation error (`cel.Error.Type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CelErrorKind {
    /// `ErrorTypeRequired`: reported as `field.Required`.
    Required,
    /// Anything else: reported as `field.Invalid` with the rule as bad value.
    Invalid,
}

/// The result of compiling one rule (`cel.CompilationResult`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CelCompilation {
    /// The estimated maximum cost of the rule.
    pub max_cost: u64,
    /// The cardinality CEL computed for the node (`MaxCardinality`).
    pub max_cardinality: u64,
    /// The rule's compile error, if any: kind and detail.
    pub error: Option<(CelErrorKind, String)>,
    /// The `messageExpression` compile error detail, if any.
    pub message_expression_error: Option<String>,
    /// Whether a `messageExpression` was compiled.
    pub has_message_expression: bool,
    /// The estimated maximum cost of the `messageExpression`.
    pub message_expression_max_cost: u64,
    /// Whether the rule uses `oldSelf`.
    pub uses_old_self: bool,
}

/// Why the rules of a node could not be compiled at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CelCompileFailure {
    /// The type information could not be built (the converter's error).
    TypeInfo(String),
    /// There was no type information.
    NoTypeInfo,
    /// `cel.Compile` failed as a whole.
    Compile(String),
}

/// Compiles the `x-kubernetes-validations` rules of a schema node (`cel.Compile`), one result
/// per rule, in order.
pub trait CelCompiler {
    /// Compiles the node's rules.
    fn compile(&self, site: &CelRuleSite<'_>) -> Result<Vec<CelCompilation>, CelCompileFailure>;
}

/// Validates the `default` values of a structural schema (`structuraldefaulting.
/// ValidateDefaults(ctx, path, schema, isResourceRoot, requirePrunedDefaults)`): defaults must
/// be pruned, must give valid metadata and must validate against the schema and its rules.
pub trait DefaultsValidator {
    /// The errors; `Err` is the function's own error (reported as an invalid schema).
    fn validate_defaults(
        &self,
        path: &FieldPath,
        schema: &Structural,
        is_resource_root: bool,
        require_pruned_defaults: bool,
    ) -> Result<Vec<FieldError>, String>;

    /// `schemaHasUnprunedDefaults` for a structural schema: whether pruning its defaults
    /// (`PruneDefaults`) changes it. `None` when unknown; an update then keeps requiring
    /// pruned defaults.
    fn has_unpruned_defaults(&self, schema: &Structural) -> Option<bool> {
        let _ = schema;
        None
    }
}

/// The hooks CRD validation calls. `Hooks::default()` has none: no CEL compilation errors and
/// no default-value errors are reported.
#[derive(Clone, Copy, Default)]
pub struct Hooks<'a> {
    /// CEL rule compilation.
    pub cel: Option<&'a dyn CelCompiler>,
    /// Default-value validation.
    pub defaults: Option<&'a dyn DefaultsValidator>,
}

impl std::fmt::Debug for Hooks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("cel", &self.cel.is_some())
            .field("defaults", &self.defaults.is_some())
            .finish()
    }
}
