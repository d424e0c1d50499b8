//! The schema the validator walks: the fields of kube-openapi's `spec.Schema` that validation
//! reads, built the three ways the server builds one:
//!
//! * from a CRD's `JSONSchemaProps` (`ConvertJSONSchemaPropsWithPostProcess` with the
//!   unsupported-format stripper of a compatibility version): `x-kubernetes-int-or-string`
//!   becomes `type: [integer, string]`;
//! * from a structural schema (`Structural.ToKubeOpenAPI`): no format stripping, int-or-string
//!   stays an extension, nested value validations lose `additionalProperties`;
//! * from an OpenAPI schema as written (`spec.Schema` decoded directly, as the ratcheting tests
//!   build it).
//!
//! Patterns and formats are compiled once here.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use serde_json::Value as Json;

use super::formats::{self, FormatChecker};
use crate::documents::kube_version::KubernetesVersion;
use crate::schema::props::{JsonSchemaProps, SchemaOrArray, SchemaOrStringArray};
use crate::schema::structural::{NestedValueValidation, Structural, ValueValidation};
use crd_studio_gostd::regexp::{self as goregex, GoRegexp};

/// A `pattern`: its text and, once a value has needed it, its compilation (Go's compile error
/// text, or the expression). Nodes with the same pattern text share one `Pattern` (one
/// compilation per schema), and a pattern no value reaches is never compiled: a CRD with
/// thousands of patterns costs only the parse that checked them.
#[derive(Debug)]
pub(crate) struct Pattern {
    pub text: String,
    compiled: OnceLock<Result<GoRegexp, String>>,
    /// NFA states the schema's patterns may still spend ([`PATTERN_STATES_BUDGET`]).
    budget: Arc<AtomicI64>,
    /// How many values the pattern could not be evaluated on (over the budget, too large to
    /// build, or a search past its work bound): the analysis tells the user.
    unevaluated: AtomicU64,
}

/// The NFA states all the patterns of one schema may compile to (about 50 bytes each: some
/// 100 MB). Patterns of thousands of Unicode-class repetitions (each valid in Go, where a class
/// is one instruction) would otherwise take tens of megabytes and a third of a second each;
/// past the budget a pattern is kept but cannot be evaluated (it accepts every value, and the
/// analysis adds a `studio.pattern-not-evaluated` note to the object).
pub(crate) const PATTERN_STATES_BUDGET: i64 = 2_000_000;

impl Pattern {
    fn new(text: &str, budget: Arc<AtomicI64>) -> Pattern {
        Pattern {
            text: text.to_owned(),
            compiled: OnceLock::new(),
            budget,
            unevaluated: AtomicU64::new(0),
        }
    }

    /// Counts a value the pattern could not be evaluated on.
    pub fn note_unevaluated(&self) {
        self.unevaluated.fetch_add(1, Ordering::Relaxed);
    }

    /// How many values the pattern could not be evaluated on so far.
    pub fn unevaluated(&self) -> u64 {
        self.unevaluated.load(Ordering::Relaxed)
    }

    /// The compiled expression, compiled on first use.
    pub fn compiled(&self) -> &Result<GoRegexp, String> {
        self.compiled.get_or_init(|| {
            let left = self.budget.load(Ordering::Relaxed);
            goregex::compile_bounded(&self.text, left).map(|(re, spent)| {
                self.budget.fetch_sub(spent, Ordering::Relaxed);
                re
            })
        })
    }
}

/// `items`.
// Boxed nodes: a child is built on the heap and moved by pointer, keeping the recursive
// builder's frames small.
#[allow(clippy::vec_box)]
#[derive(Clone, Debug)]
pub(crate) enum Items {
    Schema(Box<OaSchema>),
    Array(Vec<Box<OaSchema>>),
}

/// `additionalProperties` / `additionalItems`.
#[derive(Clone, Debug)]
pub(crate) struct SchemaOrBool {
    pub allows: bool,
    pub schema: Option<Box<OaSchema>>,
}

/// A `dependencies` value.
#[derive(Clone, Debug)]
pub(crate) enum Dependency {
    Schema(Box<OaSchema>),
    Properties(Vec<String>),
}

/// One node of kube-openapi's `spec.Schema`, as validation sees it. Child nodes are boxed
/// (see [`Items`]). The numeric limits and the rarely written keywords are kept apart, boxed
/// only when a node has some: most nodes of a large CRD have neither.
#[allow(clippy::vec_box)]
#[derive(Clone, Debug, Default)]
pub(crate) struct OaSchema {
    pub types: Types,
    pub nullable: bool,
    pub pattern: Option<Arc<Pattern>>,
    pub unique_items: bool,
    pub items: Option<Items>,
    pub properties: Properties,
    pub additional_properties: Option<SchemaOrBool>,
    /// The numeric limits, when any is set ([`OaSchema::limits`]).
    limits: Option<Box<Limits>>,
    /// The rarely written keywords, when any is ([`OaSchema::rare`]).
    rare: Option<Box<Rare>>,
}

/// A node's `type`s: the usual names are static (no allocation per node), others owned.
pub(crate) type Types = Cow<'static, [Cow<'static, str>]>;

/// `[t]` (empty for an empty `t`), without allocating for the usual type names.
fn one_type(t: &str) -> Types {
    static OBJECT: [Cow<'static, str>; 1] = [Cow::Borrowed("object")];
    static STRING: [Cow<'static, str>; 1] = [Cow::Borrowed("string")];
    static INTEGER: [Cow<'static, str>; 1] = [Cow::Borrowed("integer")];
    static NUMBER: [Cow<'static, str>; 1] = [Cow::Borrowed("number")];
    static BOOLEAN: [Cow<'static, str>; 1] = [Cow::Borrowed("boolean")];
    static ARRAY: [Cow<'static, str>; 1] = [Cow::Borrowed("array")];
    match t {
        "" => Cow::Borrowed(&[]),
        "object" => Cow::Borrowed(&OBJECT),
        "string" => Cow::Borrowed(&STRING),
        "integer" => Cow::Borrowed(&INTEGER),
        "number" => Cow::Borrowed(&NUMBER),
        "boolean" => Cow::Borrowed(&BOOLEAN),
        "array" => Cow::Borrowed(&ARRAY),
        other => Cow::Owned(vec![Cow::Owned(other.to_owned())]),
    }
}

/// `integer` and `string`: `x-kubernetes-int-or-string` as the server converts it.
static INT_OR_STRING: [Cow<'static, str>; 2] = [Cow::Borrowed("integer"), Cow::Borrowed("string")];

/// `properties`: by name, in name order (a sorted list: a map's node would take a few
/// hundred bytes for the one to three properties most schema nodes have).
#[derive(Clone, Debug, Default)]
pub(crate) struct Properties(Vec<(String, Box<OaSchema>)>);

impl Properties {
    /// Room for `n` properties (a node's are added at once).
    fn reserve_exact(&mut self, n: usize) {
        self.0.reserve_exact(n);
    }

    /// Adds a property, or replaces the one of that name.
    fn insert(&mut self, name: String, schema: Box<OaSchema>) {
        match self.0.binary_search_by(|(k, _)| k.as_str().cmp(&name)) {
            Ok(i) => {
                if let Some(slot) = self.0.get_mut(i) {
                    slot.1 = schema;
                }
            }
            Err(i) => self.0.insert(i, (name, schema)),
        }
    }

    /// The schema of property `name`.
    pub fn get(&self, name: &str) -> Option<&OaSchema> {
        self.0
            .binary_search_by(|(k, _)| k.as_str().cmp(name))
            .ok()
            .and_then(|i| self.0.get(i))
            .map(|(_, s)| &**s)
    }

    /// Whether `name` is a property.
    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The properties in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &OaSchema)> {
        self.0.iter().map(|(k, s)| (k, &**s))
    }
}

/// The numeric limits of a node.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Limits {
    pub maximum: Option<f64>,
    pub exclusive_maximum: bool,
    pub minimum: Option<f64>,
    pub exclusive_minimum: bool,
    pub max_length: Option<i64>,
    pub min_length: Option<i64>,
    pub max_items: Option<i64>,
    pub min_items: Option<i64>,
    pub multiple_of: Option<f64>,
    pub max_properties: Option<i64>,
    pub min_properties: Option<i64>,
}

/// The keywords few nodes have: `format`, `enum`, `required`, the list type and map keys,
/// the junctors, `patternProperties`, `additionalItems` and `dependencies`.
#[allow(clippy::vec_box)]
#[derive(Clone, Debug, Default)]
pub(crate) struct Rare {
    pub format: String,
    /// The `strfmt.Default` checker for `format`, when the registry knows it.
    pub format_checker: Option<Arc<FormatChecker>>,
    /// Enum values as the server holds them (`utiljson`: integers `int64`, other numbers `float64`).
    pub enum_: Vec<Json>,
    pub required: Vec<String>,
    /// `x-kubernetes-list-type`, as the ratcheting correlation reads it.
    pub list_type: Option<String>,
    /// `x-kubernetes-list-map-keys`, when readable as a string list.
    pub list_map_keys: Option<Vec<String>>,
    pub all_of: Vec<Box<OaSchema>>,
    pub one_of: Vec<Box<OaSchema>>,
    pub any_of: Vec<Box<OaSchema>>,
    pub not: Option<Box<OaSchema>>,
    /// `patternProperties`: the pattern, its Go compilation (an invalid one never matches)
    /// and the schema.
    pub pattern_properties: Vec<(String, Arc<Pattern>, Box<OaSchema>)>,
    pub additional_items: Option<SchemaOrBool>,
    pub dependencies: BTreeMap<String, Dependency>,
}

/// What a node without limits reads.
static NO_LIMITS: Limits = Limits {
    maximum: None,
    exclusive_maximum: false,
    minimum: None,
    exclusive_minimum: false,
    max_length: None,
    min_length: None,
    max_items: None,
    min_items: None,
    multiple_of: None,
    max_properties: None,
    min_properties: None,
};

/// What a node without the rare keywords reads.
static NO_RARE: Rare = Rare {
    format: String::new(),
    format_checker: None,
    enum_: Vec::new(),
    required: Vec::new(),
    list_type: None,
    list_map_keys: None,
    all_of: Vec::new(),
    one_of: Vec::new(),
    any_of: Vec::new(),
    not: None,
    pattern_properties: Vec::new(),
    additional_items: None,
    dependencies: BTreeMap::new(),
};

impl OaSchema {
    /// The numeric limits (none set when the node has none).
    pub fn limits(&self) -> &Limits {
        self.limits.as_deref().unwrap_or(&NO_LIMITS)
    }

    /// The rare keywords (all empty when the node has none).
    pub fn rare(&self) -> &Rare {
        self.rare.as_deref().unwrap_or(&NO_RARE)
    }

    /// The rare keywords, to write (boxed on first write).
    fn rare_mut(&mut self) -> &mut Rare {
        self.rare.get_or_insert_with(Box::default)
    }

    /// Sets `format` and its checker (the rare keywords are boxed only when it is set).
    fn set_format(&mut self, format: String, checker: Option<Arc<FormatChecker>>) {
        if !format.is_empty() || checker.is_some() {
            let r = self.rare_mut();
            r.format = format;
            r.format_checker = checker;
        }
    }

    /// Sets `enum` and `required` (boxed only when set).
    fn set_enum_required(&mut self, enum_: &[Json], required: &[String]) {
        if !enum_.is_empty() {
            self.rare_mut().enum_ = enum_.to_vec();
        }
        if !required.is_empty() {
            self.rare_mut().required = required.to_vec();
        }
    }

    /// Sets `x-kubernetes-list-type` (boxed only when set).
    fn set_list_type(&mut self, list_type: Option<&String>) {
        if let Some(t) = list_type {
            self.rare_mut().list_type = Some(t.clone());
        }
    }

    /// Sets the numeric limits (boxed only when one is set).
    fn set_limits(&mut self, limits: Limits) {
        self.limits = (limits != NO_LIMITS).then(|| Box::new(limits));
    }
}

/// Schema nodes deeper than this are left empty: validation stops at
/// [`super::openapi::MAX_VALIDATION_DEPTH`] anyway.
const MAX_BUILD_DEPTH: usize = super::openapi::MAX_VALIDATION_DEPTH + 1;

/// Shared state while building: compiled format checkers by name, patterns by text.
pub(crate) struct Builder {
    checkers: BTreeMap<String, Option<Arc<FormatChecker>>>,
    patterns: BTreeMap<String, Arc<Pattern>>,
    pattern_budget: Arc<AtomicI64>,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder {
            checkers: BTreeMap::new(),
            patterns: BTreeMap::new(),
            pattern_budget: Arc::new(AtomicI64::new(PATTERN_STATES_BUDGET)),
        }
    }
}

impl Builder {
    /// The distinct patterns built so far.
    pub fn patterns(&self) -> Vec<Arc<Pattern>> {
        self.patterns.values().cloned().collect()
    }

    fn checker(&mut self, format: &str) -> Option<Arc<FormatChecker>> {
        if format.is_empty() || !formats::is_registered(format) {
            return None;
        }
        let key = formats::normalize(format);
        self.checkers
            .entry(key)
            .or_insert_with(|| FormatChecker::new(format).map(Arc::new))
            .clone()
    }

    fn pattern(&mut self, pattern: &str) -> Option<Arc<Pattern>> {
        if pattern.is_empty() {
            return None;
        }
        Some(self.pattern_always(pattern))
    }

    /// A pattern property's key, compiled on first use (the empty key too).
    fn pattern_always(&mut self, pattern: &str) -> Arc<Pattern> {
        if let Some(p) = self.patterns.get(pattern) {
            return Arc::clone(p);
        }
        let p = Arc::new(Pattern::new(pattern, Arc::clone(&self.pattern_budget)));
        self.patterns.insert(pattern.to_owned(), Arc::clone(&p));
        p
    }

    /// How the server converts a CRD schema.
    pub fn props(
        &mut self,
        p: &JsonSchemaProps,
        version: KubernetesVersion,
        depth: usize,
    ) -> Box<OaSchema> {
        self.props_node(p, Some(version), depth)
    }

    /// `spec.Schema` as written: `type` as given, no stripping.
    pub fn raw_props(&mut self, p: &JsonSchemaProps, depth: usize) -> Box<OaSchema> {
        self.props_node(p, None, depth)
    }

    /// The fields of one node that need no recursion (kept out of the recursive frame).
    #[inline(never)]
    fn props_scalars(
        &mut self,
        s: &mut OaSchema,
        p: &JsonSchemaProps,
        version: Option<KubernetesVersion>,
    ) {
        s.types = one_type(&p.type_);
        if version.is_some() && p.x_int_or_string {
            s.types = Cow::Borrowed(&INT_OR_STRING);
        }
        let format = match version {
            Some(v) => formats::strip_unsupported(&p.format, &s.types, v),
            None => p.format.clone(),
        };
        let checker = self.checker(&format);
        s.set_format(format, checker);
        s.nullable = p.nullable;
        s.set_limits(Limits {
            maximum: p.maximum,
            exclusive_maximum: p.exclusive_maximum,
            minimum: p.minimum,
            exclusive_minimum: p.exclusive_minimum,
            max_length: p.max_length,
            min_length: p.min_length,
            max_items: p.max_items,
            min_items: p.min_items,
            multiple_of: p.rare.multiple_of,
            max_properties: p.rare.max_properties,
            min_properties: p.rare.min_properties,
        });
        s.pattern = self.pattern(&p.pattern);
        s.unique_items = p.unique_items;
        s.set_enum_required(&p.enum_, &p.required);
        s.set_list_type(p.x_list_type.as_ref());
        if !p.x_list_map_keys.is_empty() {
            s.rare_mut().list_map_keys = Some(p.x_list_map_keys.clone());
        }
    }

    /// One node (recursive): children are boxed so the frame stays small (and built without
    /// closures, which would add frames).
    #[allow(clippy::manual_map)]
    fn props_node(
        &mut self,
        p: &JsonSchemaProps,
        version: Option<KubernetesVersion>,
        depth: usize,
    ) -> Box<OaSchema> {
        let mut s: Box<OaSchema> = Box::default();
        if depth > MAX_BUILD_DEPTH {
            return s;
        }
        let d = depth + 1;
        self.props_scalars(&mut s, p, version);
        for x in &p.rare.all_of {
            let c = self.props_node(x, version, d);
            s.rare_mut().all_of.push(c);
        }
        for x in &p.rare.one_of {
            let c = self.props_node(x, version, d);
            s.rare_mut().one_of.push(c);
        }
        for x in &p.rare.any_of {
            let c = self.props_node(x, version, d);
            s.rare_mut().any_of.push(c);
        }
        if let Some(x) = &p.rare.not {
            s.rare_mut().not = Some(self.props_node(x, version, d));
        }
        s.properties.reserve_exact(p.properties.len());
        for (k, x) in &p.properties {
            let c = self.props_node(x, version, d);
            s.properties.insert(k.clone(), c);
        }
        for (k, x) in &p.rare.pattern_properties {
            let c = self.props_node(x, version, d);
            s.rare_mut()
                .pattern_properties
                .push((k.clone(), self.pattern_always(k), c));
        }
        if let Some(ap) = &p.additional_properties {
            let schema = match &ap.schema {
                Some(x) => Some(self.props_node(x, version, d)),
                None => None,
            };
            s.additional_properties = Some(SchemaOrBool {
                allows: ap.allows,
                schema,
            });
        }
        if let Some(ai) = &p.rare.additional_items {
            let schema = match &ai.schema {
                Some(x) => Some(self.props_node(x, version, d)),
                None => None,
            };
            s.rare_mut().additional_items = Some(SchemaOrBool {
                allows: ai.allows,
                schema,
            });
        }
        match &p.items {
            None => {}
            Some(SchemaOrArray::Schema(x)) => {
                s.items = Some(Items::Schema(self.props_node(x, version, d)));
            }
            Some(SchemaOrArray::Array(list)) => {
                let mut out = Vec::with_capacity(list.len());
                for x in list {
                    out.push(self.props_node(x, version, d));
                }
                s.items = Some(Items::Array(out));
            }
        }
        for (k, dep) in &p.rare.dependencies {
            let v = match dep {
                SchemaOrStringArray::Schema(x) => {
                    Dependency::Schema(self.props_node(x, version, d))
                }
                SchemaOrStringArray::Property(names) => Dependency::Properties(names.clone()),
            };
            s.rare_mut().dependencies.insert(k.clone(), v);
        }
        s
    }

    /// `Structural.ToKubeOpenAPI()`.
    #[allow(clippy::manual_map)]
    pub fn structural(&mut self, st: &Structural, depth: usize) -> Box<OaSchema> {
        let mut s: Box<OaSchema> = Box::default();
        if depth > MAX_BUILD_DEPTH {
            return s;
        }
        let d = depth + 1;
        s.types = one_type(&st.generic.type_);
        s.nullable = st.generic.nullable;
        s.set_list_type(st.extensions.x_list_type.as_ref());
        // ToKubeOpenAPI stores the list-map keys as a []string, which the correlation's
        // GetStringSlice does not read: list_map_keys stays None.
        if let Some(vv) = &st.value_validation {
            self.value_validation(&mut s, vv, d);
        }
        if let Some(items) = &st.items {
            s.items = Some(Items::Schema(self.structural(items, d)));
        }
        s.properties.reserve_exact(st.properties.len());
        for (k, x) in &st.properties {
            let c = self.structural(x, d);
            s.properties.insert(k.clone(), c);
        }
        if let Some(ap) = &st.additional_properties {
            let schema = match &ap.structural {
                Some(x) => Some(self.structural(x, d)),
                None => None,
            };
            s.additional_properties = Some(SchemaOrBool {
                allows: ap.bool_,
                schema,
            });
        }
        s
    }

    fn value_validation(&mut self, s: &mut OaSchema, v: &ValueValidation, d: usize) {
        let checker = self.checker(&v.format);
        s.set_format(v.format.clone(), checker);
        s.set_limits(Limits {
            maximum: v.maximum,
            exclusive_maximum: v.exclusive_maximum,
            minimum: v.minimum,
            exclusive_minimum: v.exclusive_minimum,
            max_length: v.max_length,
            min_length: v.min_length,
            max_items: v.max_items,
            min_items: v.min_items,
            multiple_of: v.multiple_of,
            max_properties: v.max_properties,
            min_properties: v.min_properties,
        });
        s.pattern = self.pattern(&v.pattern);
        s.unique_items = v.unique_items;
        s.set_enum_required(&v.enum_, &v.required);
        for x in &v.all_of {
            let c = self.nested(x, d);
            s.rare_mut().all_of.push(c);
        }
        for x in &v.any_of {
            let c = self.nested(x, d);
            s.rare_mut().any_of.push(c);
        }
        for x in &v.one_of {
            let c = self.nested(x, d);
            s.rare_mut().one_of.push(c);
        }
        if let Some(x) = &v.not {
            s.rare_mut().not = Some(self.nested(x, d));
        }
    }

    /// `NestedValueValidation.toKubeOpenAPI()`: no `additionalProperties`; forbidden type-level
    /// facts are kept.
    fn nested(&mut self, v: &NestedValueValidation, depth: usize) -> Box<OaSchema> {
        let mut s: Box<OaSchema> = Box::default();
        if depth > MAX_BUILD_DEPTH {
            return s;
        }
        let d = depth + 1;
        self.value_validation(&mut s, &v.value_validation, d);
        if let Some(items) = &v.items {
            s.items = Some(Items::Schema(self.nested(items, d)));
        }
        s.properties.reserve_exact(v.properties.len());
        for (k, x) in &v.properties {
            let c = self.nested(x, d);
            s.properties.insert(k.clone(), c);
        }
        let g = &v.forbidden_generics;
        s.types = one_type(&g.type_);
        s.nullable = g.nullable;
        s.set_list_type(v.forbidden_extensions.x_list_type.as_ref());
        s
    }
}
