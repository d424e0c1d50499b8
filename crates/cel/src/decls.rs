//! Function declarations (cel-go's `common/decls`): functions with overloads named by cel-go's
//! overload ids (`add_int64`, `size_string`, `contains_string`, ...) and the Kubernetes library
//! ids (`string_to_quantity`, `list_a_index_of_int`, ...). The overload id is the contract with
//! the interpreter: a checked call carries the ids of the overloads it may dispatch to.
//!
//! The libraries are those of the Kubernetes CEL base environment
//! (`k8s.io/apiserver/pkg/cel/environment/base.go`): cel-go's standard library, the optional
//! types, `ext.Strings`, `ext.Sets`, `ext.Lists`, `ext.TwoVarComprehensions`, and the Kubernetes
//! libraries (URLs, regex, lists, authz, quantity, IP, CIDR, format, semver). Each entry of
//! [`KUBERNETES_BASE_OPTIONS`] carries the Kubernetes version that introduced it (and removed
//! it), so an environment can be built for a compatibility version.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::types::Type;
use crate::version::KubernetesVersion;

/// One overload of a function.
#[derive(Debug, Clone, PartialEq)]
pub struct OverloadDecl {
    /// The overload id (cel-go's or the Kubernetes library's).
    pub id: String,
    /// True for a receiver-style overload (`target.f(args)`); the target is `args[0]`.
    pub member: bool,
    /// The argument types (the target first for a member overload).
    pub args: Vec<Type>,
    /// The result type.
    pub result: Type,
}

impl OverloadDecl {
    /// A global overload `f(args) -> result`.
    pub fn global(id: &str, args: Vec<Type>, result: Type) -> Self {
        OverloadDecl {
            id: id.to_string(),
            member: false,
            args,
            result,
        }
    }

    /// A receiver-style overload `args[0].f(args[1..]) -> result`.
    pub fn member(id: &str, args: Vec<Type>, result: Type) -> Self {
        OverloadDecl {
            id: id.to_string(),
            member: true,
            args,
            result,
        }
    }

    /// The names of the type parameters in the signature (result first, then the arguments,
    /// each name once).
    pub fn type_params(&self) -> Vec<Arc<str>> {
        let mut out: Vec<Arc<str>> = Vec::new();
        collect_params(&self.result, &mut out, 0);
        for a in &self.args {
            collect_params(a, &mut out, 0);
        }
        out
    }

    /// cel-go's `SignatureOverlaps`: same call style and arity, and each argument type
    /// assignable one way or the other.
    pub fn signature_overlaps(&self, other: &OverloadDecl) -> bool {
        self.member == other.member
            && self.args.len() == other.args.len()
            && self
                .args
                .iter()
                .zip(&other.args)
                .all(|(a, b)| a.is_assignable_type(b) || b.is_assignable_type(a))
    }
}

fn collect_params(t: &Type, out: &mut Vec<Arc<str>>, depth: u32) {
    if depth > 64 {
        return;
    }
    if let Type::TypeParam(n) = t {
        if !out.iter().any(|x| x == n) {
            out.push(n.clone());
        }
    }
    for p in t.params() {
        collect_params(p, out, depth + 1);
    }
}

/// A function: a name and its overloads, in declaration order.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDecl {
    /// The function name: an operator (`_+_`), a plain name (`size`) or a namespaced one
    /// (`optional.of`, `sets.contains`).
    pub name: String,
    /// The overloads.
    pub overloads: Vec<OverloadDecl>,
}

impl FunctionDecl {
    /// A function with overloads.
    pub fn new(name: &str, overloads: Vec<OverloadDecl>) -> Self {
        FunctionDecl {
            name: name.to_string(),
            overloads,
        }
    }

    /// Merges another declaration of the same function (cel-go's `FunctionDecl.Merge`): its
    /// overloads are appended, an overload with an id already present is kept once.
    pub fn merge(&mut self, other: &FunctionDecl) {
        for o in &other.overloads {
            if !self.overloads.iter().any(|x| x.id == o.id) {
                self.overloads.push(o.clone());
            }
        }
    }
}

/// Which Kubernetes environment: new expressions at a compatibility version, or the stored
/// expressions environment, which has every option (`environment.StoredExpressions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EnvVersion {
    /// `NewExpressions` at this compatibility version.
    NewExpressions(KubernetesVersion),
    /// `StoredExpressions`: everything, whatever the version.
    Stored,
}

impl Default for EnvVersion {
    fn default() -> Self {
        EnvVersion::NewExpressions(KubernetesVersion::DEFAULT.compatibility())
    }
}

/// A library of declarations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Library {
    /// cel-go's standard library (`cel.lib.std`).
    Std,
    /// `cel.OptionalTypes()` at a version (Kubernetes uses the latest).
    Optional(u32),
    /// `ext.Strings` at a version (`cel.lib.ext.strings`).
    ExtStrings(u32),
    /// `ext.Sets` (`cel.lib.ext.sets`).
    ExtSets,
    /// `ext.Lists` at a version (`cel.lib.ext.lists`).
    ExtLists(u32),
    /// `ext.TwoVarComprehensions` (`cel.lib.ext.comprev2`).
    TwoVarComprehensions,
    /// `library.URLs` (`kubernetes.urls`).
    KubeUrls,
    /// `library.Regex` (`kubernetes.regex`).
    KubeRegex,
    /// `library.Lists` at a version (`kubernetes.lists`).
    KubeLists(u32),
    /// `library.Authz` (`kubernetes.authz`).
    KubeAuthz,
    /// `library.AuthzSelectors` (`kubernetes.authzSelectors`).
    KubeAuthzSelectors,
    /// `library.Quantity` (`kubernetes.quantity`).
    KubeQuantity,
    /// `library.IP` (`kubernetes.net.ip`).
    KubeIp,
    /// `library.CIDR` (`kubernetes.net.cidr`).
    KubeCidr,
    /// `library.Format` (`kubernetes.format`).
    KubeFormat,
    /// `library.SemverLib` at a version (`kubernetes.Semver`).
    KubeSemver(u32),
}

/// An option of the Kubernetes base environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EnvOption {
    /// A library.
    Library(Library),
    /// `cel.HomogeneousAggregateLiterals()`: list and map literals must not mix types.
    HomogeneousAggregateLiterals,
    /// `cel.CrossTypeNumericComparisons(true)`: `<`, `<=`, `>`, `>=` between int, uint and
    /// double.
    CrossTypeNumericComparisons,
    /// `cel.ASTValidators(ValidateDurationLiterals, ValidateTimestampLiterals,
    /// ValidateRegexLiterals, ValidateHomogeneousAggregateLiterals)`.
    AstValidators,
    /// The declared-type provider recognizes a reserved word as a field name
    /// (`self.namespace` finds the property escaped as `__namespace__`); set by
    /// `environment.go` from compatibility version 1.31.
    RecognizeKeywordAsFieldName,
}

/// One entry of the base environment: an option and the versions bounding it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionedOption {
    /// The version that introduced it.
    pub introduced: KubernetesVersion,
    /// The version that removed it, if any.
    pub removed: Option<KubernetesVersion>,
    /// The option.
    pub option: EnvOption,
}

const fn since(minor: u32, option: EnvOption) -> VersionedOption {
    VersionedOption {
        introduced: KubernetesVersion::new(minor),
        removed: None,
        option,
    }
}

const fn between(from: u32, to: u32, option: EnvOption) -> VersionedOption {
    VersionedOption {
        introduced: KubernetesVersion::new(from),
        removed: Some(KubernetesVersion::new(to)),
        option,
    }
}

/// The Kubernetes CEL base environment (`environment/base.go`, Kubernetes 1.37), in order,
/// plus the standard library (always present: `cel.NewEnv()`) and the keyword-as-field-name
/// switch of `environment.go`.
pub const KUBERNETES_BASE_OPTIONS: &[VersionedOption] = &[
    since(0, EnvOption::Library(Library::Std)),
    since(0, EnvOption::HomogeneousAggregateLiterals),
    since(0, EnvOption::Library(Library::KubeUrls)),
    since(0, EnvOption::Library(Library::KubeRegex)),
    between(0, 37, EnvOption::Library(Library::KubeLists(0))),
    since(27, EnvOption::Library(Library::KubeAuthz)),
    since(28, EnvOption::CrossTypeNumericComparisons),
    since(28, EnvOption::Library(Library::Optional(u32::MAX))),
    since(28, EnvOption::Library(Library::KubeQuantity)),
    since(29, EnvOption::AstValidators),
    between(0, 29, EnvOption::Library(Library::ExtStrings(0))),
    since(29, EnvOption::Library(Library::ExtStrings(2))),
    since(29, EnvOption::Library(Library::ExtSets)),
    since(30, EnvOption::Library(Library::KubeIp)),
    since(30, EnvOption::Library(Library::KubeCidr)),
    since(31, EnvOption::Library(Library::KubeFormat)),
    since(31, EnvOption::Library(Library::KubeAuthzSelectors)),
    since(31, EnvOption::RecognizeKeywordAsFieldName),
    since(32, EnvOption::Library(Library::TwoVarComprehensions)),
    since(33, EnvOption::Library(Library::KubeSemver(1))),
    since(34, EnvOption::Library(Library::ExtLists(3))),
    since(37, EnvOption::Library(Library::KubeLists(1))),
];

/// The options of the environment for a version, in order. For the stored-expressions
/// environment every option is present; a library listed at two versions appears once, at its
/// first position, with its highest version (as the Kubernetes tests expect: stored
/// expressions have `format` and `includes`).
pub fn kubernetes_options(version: EnvVersion) -> Vec<EnvOption> {
    let mut out: Vec<EnvOption> = Vec::new();
    for vo in KUBERNETES_BASE_OPTIONS {
        let allowed = match version {
            EnvVersion::Stored => true,
            EnvVersion::NewExpressions(v) => v >= vo.introduced && vo.removed.is_none_or(|r| v < r),
        };
        if !allowed {
            continue;
        }
        if let EnvOption::Library(lib) = vo.option {
            if let Some(existing) = out.iter_mut().find(|o| match o {
                EnvOption::Library(l) => l.name() == lib.name(),
                _ => false,
            }) {
                if let EnvOption::Library(l) = existing {
                    if lib.version() > l.version() {
                        *existing = EnvOption::Library(lib);
                    }
                }
                continue;
            }
        }
        out.push(vo.option);
    }
    out
}

// Type shorthands.
const BOOL: Type = Type::Bool;
const INT: Type = Type::Int;
const UINT: Type = Type::Uint;
const DOUBLE: Type = Type::Double;
const STRING: Type = Type::String;
const BYTES: Type = Type::Bytes;
const DURATION: Type = Type::Duration;
const TIMESTAMP: Type = Type::Timestamp;
const DYN: Type = Type::Dyn;

fn p(name: &str) -> Type {
    Type::param(name)
}

fn list(t: Type) -> Type {
    Type::list(t)
}

fn opt(t: Type) -> Type {
    Type::optional(t)
}

fn g(id: &str, args: Vec<Type>, result: Type) -> OverloadDecl {
    OverloadDecl::global(id, args, result)
}

fn m(id: &str, args: Vec<Type>, result: Type) -> OverloadDecl {
    OverloadDecl::member(id, args, result)
}

fn f(name: &str, overloads: Vec<OverloadDecl>) -> FunctionDecl {
    FunctionDecl::new(name, overloads)
}

/// The Kubernetes `kubernetes.URL` type.
pub fn url_type() -> Type {
    Type::named_object("kubernetes.URL")
}

/// The Kubernetes `kubernetes.Quantity` type.
pub fn quantity_type() -> Type {
    Type::named_object("kubernetes.Quantity")
}

/// The Kubernetes `kubernetes.Semver` type.
pub fn semver_type() -> Type {
    Type::named_object("kubernetes.Semver")
}

/// The Kubernetes `kubernetes.NamedFormat` type.
pub fn format_type() -> Type {
    Type::named_object("kubernetes.NamedFormat")
}

/// The Kubernetes `net.IP` type.
pub fn ip_type() -> Type {
    Type::opaque("net.IP")
}

/// The Kubernetes `net.CIDR` type.
pub fn cidr_type() -> Type {
    Type::opaque("net.CIDR")
}

fn authz(name: &str) -> Type {
    Type::named_object(&format!("kubernetes.authorization.{name}"))
}

/// The named formats of `library.Format` (`format.<name>()`), in the order of the Go source.
pub const FORMAT_NAMES: &[&str] = &[
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
];

impl Library {
    /// The library's name as cel-go or Kubernetes registers it.
    pub fn name(&self) -> &'static str {
        match self {
            Library::Std => "cel.lib.std",
            Library::Optional(_) => "cel.lib.optional",
            Library::ExtStrings(_) => "cel.lib.ext.strings",
            Library::ExtSets => "cel.lib.ext.sets",
            Library::ExtLists(_) => "cel.lib.ext.lists",
            Library::TwoVarComprehensions => "cel.lib.ext.comprev2",
            Library::KubeUrls => "kubernetes.urls",
            Library::KubeRegex => "kubernetes.regex",
            Library::KubeLists(_) => "kubernetes.lists",
            Library::KubeAuthz => "kubernetes.authz",
            Library::KubeAuthzSelectors => "kubernetes.authzSelectors",
            Library::KubeQuantity => "kubernetes.quantity",
            Library::KubeIp => "kubernetes.net.ip",
            Library::KubeCidr => "kubernetes.net.cidr",
            Library::KubeFormat => "kubernetes.format",
            Library::KubeSemver(_) => "kubernetes.Semver",
        }
    }

    /// The library's version (0 for unversioned libraries).
    pub fn version(&self) -> u32 {
        match self {
            Library::Optional(v)
            | Library::ExtStrings(v)
            | Library::ExtLists(v)
            | Library::KubeLists(v)
            | Library::KubeSemver(v) => *v,
            _ => 0,
        }
    }

    /// Type identifiers the library registers with the type provider: `name` resolves to a
    /// value of type `type(T)`.
    pub fn type_idents(&self) -> Vec<(&'static str, Type)> {
        match self {
            Library::Std => vec![
                ("bool", BOOL),
                ("bytes", BYTES),
                ("double", DOUBLE),
                ("google.protobuf.Duration", DURATION),
                ("int", INT),
                ("list", list(DYN)),
                ("map", Type::map(DYN, DYN)),
                ("null_type", Type::Null),
                ("string", STRING),
                ("google.protobuf.Timestamp", TIMESTAMP),
                ("type", Type::Type(None)),
                ("uint", UINT),
            ],
            Library::Optional(_) => vec![("optional_type", opt(DYN))],
            Library::KubeIp => vec![("net.IP", ip_type())],
            Library::KubeCidr => vec![("net.CIDR", cidr_type())],
            _ => Vec::new(),
        }
    }

    /// The library's function declarations.
    pub fn functions(&self) -> Vec<FunctionDecl> {
        match self {
            Library::Std => std_functions(),
            Library::Optional(v) => optional_functions(*v),
            Library::ExtStrings(v) => ext_strings_functions(*v),
            Library::ExtSets => ext_sets_functions(),
            Library::ExtLists(v) => ext_lists_functions(*v),
            Library::TwoVarComprehensions => two_var_functions(),
            Library::KubeUrls => kube_urls_functions(),
            Library::KubeRegex => kube_regex_functions(),
            Library::KubeLists(v) => kube_lists_functions(*v),
            Library::KubeAuthz => kube_authz_functions(),
            Library::KubeAuthzSelectors => kube_authz_selectors_functions(),
            Library::KubeQuantity => kube_quantity_functions(),
            Library::KubeIp => kube_ip_functions(),
            Library::KubeCidr => kube_cidr_functions(),
            Library::KubeFormat => kube_format_functions(),
            Library::KubeSemver(v) => kube_semver_functions(*v),
        }
    }
}

fn comparison(name: &str, prefix: &str) -> FunctionDecl {
    let id = |suffix: &str| format!("{prefix}_{suffix}");
    let pairs: [(&str, Type, Type); 14] = [
        ("bool", BOOL, BOOL),
        ("int64", INT, INT),
        ("int64_double", INT, DOUBLE),
        ("int64_uint64", INT, UINT),
        ("uint64", UINT, UINT),
        ("uint64_double", UINT, DOUBLE),
        ("uint64_int64", UINT, INT),
        ("double", DOUBLE, DOUBLE),
        ("double_int64", DOUBLE, INT),
        ("double_uint64", DOUBLE, UINT),
        ("string", STRING, STRING),
        ("bytes", BYTES, BYTES),
        ("timestamp", TIMESTAMP, TIMESTAMP),
        ("duration", DURATION, DURATION),
    ];
    f(
        name,
        pairs
            .into_iter()
            .map(|(s, a, b)| g(&id(s), vec![a, b], BOOL))
            .collect(),
    )
}

/// The overload ids of the cross-type numeric comparisons, disabled unless
/// `CrossTypeNumericComparisons` is on.
pub const CROSS_TYPE_NUMERIC_COMPARISON_OVERLOADS: &[&str] = &[
    "less_double_int64",
    "less_double_uint64",
    "less_equals_double_int64",
    "less_equals_double_uint64",
    "greater_double_int64",
    "greater_double_uint64",
    "greater_equals_double_int64",
    "greater_equals_double_uint64",
    "less_int64_double",
    "less_int64_uint64",
    "less_equals_int64_double",
    "less_equals_int64_uint64",
    "greater_int64_double",
    "greater_int64_uint64",
    "greater_equals_int64_double",
    "greater_equals_int64_uint64",
    "less_uint64_double",
    "less_uint64_int64",
    "less_equals_uint64_double",
    "less_equals_uint64_int64",
    "greater_uint64_double",
    "greater_uint64_int64",
    "greater_equals_uint64_double",
    "greater_equals_uint64_int64",
];

fn timestamp_accessor(
    name: &str,
    id: &str,
    tz_id: &str,
    duration_id: Option<&str>,
) -> FunctionDecl {
    let mut ov = vec![
        m(id, vec![TIMESTAMP], INT),
        m(tz_id, vec![TIMESTAMP, STRING], INT),
    ];
    if let Some(d) = duration_id {
        ov.push(m(d, vec![DURATION], INT));
    }
    f(name, ov)
}

fn std_functions() -> Vec<FunctionDecl> {
    let a = || p("A");
    let b = || p("B");
    let list_a = || list(p("A"));
    let map_ab = || Type::map(p("A"), p("B"));
    vec![
        f("_?_:_", vec![g("conditional", vec![BOOL, a(), a()], a())]),
        f("_&&_", vec![g("logical_and", vec![BOOL, BOOL], BOOL)]),
        f("_||_", vec![g("logical_or", vec![BOOL, BOOL], BOOL)]),
        f("!_", vec![g("logical_not", vec![BOOL], BOOL)]),
        f(
            "@not_strictly_false",
            vec![g("not_strictly_false", vec![BOOL], BOOL)],
        ),
        f("_==_", vec![g("equals", vec![a(), a()], BOOL)]),
        f("_!=_", vec![g("not_equals", vec![a(), a()], BOOL)]),
        f(
            "_+_",
            vec![
                g("add_bytes", vec![BYTES, BYTES], BYTES),
                g("add_double", vec![DOUBLE, DOUBLE], DOUBLE),
                g("add_duration_duration", vec![DURATION, DURATION], DURATION),
                g(
                    "add_duration_timestamp",
                    vec![DURATION, TIMESTAMP],
                    TIMESTAMP,
                ),
                g(
                    "add_timestamp_duration",
                    vec![TIMESTAMP, DURATION],
                    TIMESTAMP,
                ),
                g("add_int64", vec![INT, INT], INT),
                g("add_list", vec![list_a(), list_a()], list_a()),
                g("add_string", vec![STRING, STRING], STRING),
                g("add_uint64", vec![UINT, UINT], UINT),
            ],
        ),
        f(
            "_/_",
            vec![
                g("divide_double", vec![DOUBLE, DOUBLE], DOUBLE),
                g("divide_int64", vec![INT, INT], INT),
                g("divide_uint64", vec![UINT, UINT], UINT),
            ],
        ),
        f(
            "_%_",
            vec![
                g("modulo_int64", vec![INT, INT], INT),
                g("modulo_uint64", vec![UINT, UINT], UINT),
            ],
        ),
        f(
            "_*_",
            vec![
                g("multiply_double", vec![DOUBLE, DOUBLE], DOUBLE),
                g("multiply_int64", vec![INT, INT], INT),
                g("multiply_uint64", vec![UINT, UINT], UINT),
            ],
        ),
        f(
            "-_",
            vec![
                g("negate_double", vec![DOUBLE], DOUBLE),
                g("negate_int64", vec![INT], INT),
            ],
        ),
        f(
            "_-_",
            vec![
                g("subtract_double", vec![DOUBLE, DOUBLE], DOUBLE),
                g(
                    "subtract_duration_duration",
                    vec![DURATION, DURATION],
                    DURATION,
                ),
                g("subtract_int64", vec![INT, INT], INT),
                g(
                    "subtract_timestamp_duration",
                    vec![TIMESTAMP, DURATION],
                    TIMESTAMP,
                ),
                g(
                    "subtract_timestamp_timestamp",
                    vec![TIMESTAMP, TIMESTAMP],
                    DURATION,
                ),
                g("subtract_uint64", vec![UINT, UINT], UINT),
            ],
        ),
        comparison("_<_", "less"),
        comparison("_<=_", "less_equals"),
        comparison("_>_", "greater"),
        comparison("_>=_", "greater_equals"),
        f(
            "_[_]",
            vec![
                g("index_list", vec![list_a(), INT], a()),
                g("index_map", vec![map_ab(), a()], b()),
            ],
        ),
        f(
            "@in",
            vec![
                g("in_list", vec![a(), list_a()], BOOL),
                g("in_map", vec![a(), map_ab()], BOOL),
            ],
        ),
        f(
            "size",
            vec![
                g("size_bytes", vec![BYTES], INT),
                m("bytes_size", vec![BYTES], INT),
                g("size_list", vec![list_a()], INT),
                m("list_size", vec![list_a()], INT),
                g("size_map", vec![map_ab()], INT),
                m("map_size", vec![map_ab()], INT),
                g("size_string", vec![STRING], INT),
                m("string_size", vec![STRING], INT),
            ],
        ),
        f("type", vec![g("type", vec![a()], Type::type_of(a()))]),
        f(
            "bool",
            vec![
                g("bool_to_bool", vec![BOOL], BOOL),
                g("string_to_bool", vec![STRING], BOOL),
            ],
        ),
        f(
            "bytes",
            vec![
                g("bytes_to_bytes", vec![BYTES], BYTES),
                g("string_to_bytes", vec![STRING], BYTES),
            ],
        ),
        f(
            "double",
            vec![
                g("double_to_double", vec![DOUBLE], DOUBLE),
                g("int64_to_double", vec![INT], DOUBLE),
                g("string_to_double", vec![STRING], DOUBLE),
                g("uint64_to_double", vec![UINT], DOUBLE),
            ],
        ),
        f(
            "duration",
            vec![
                g("duration_to_duration", vec![DURATION], DURATION),
                g("string_to_duration", vec![STRING], DURATION),
            ],
        ),
        f("dyn", vec![g("to_dyn", vec![a()], DYN)]),
        f(
            "int",
            vec![
                g("int64_to_int64", vec![INT], INT),
                g("double_to_int64", vec![DOUBLE], INT),
                g("duration_to_int64", vec![DURATION], INT),
                g("string_to_int64", vec![STRING], INT),
                g("timestamp_to_int64", vec![TIMESTAMP], INT),
                g("uint64_to_int64", vec![UINT], INT),
            ],
        ),
        f(
            "string",
            vec![
                g("string_to_string", vec![STRING], STRING),
                g("bool_to_string", vec![BOOL], STRING),
                g("bytes_to_string", vec![BYTES], STRING),
                g("double_to_string", vec![DOUBLE], STRING),
                g("duration_to_string", vec![DURATION], STRING),
                g("int64_to_string", vec![INT], STRING),
                g("timestamp_to_string", vec![TIMESTAMP], STRING),
                g("uint64_to_string", vec![UINT], STRING),
            ],
        ),
        f(
            "timestamp",
            vec![
                g("timestamp_to_timestamp", vec![TIMESTAMP], TIMESTAMP),
                g("int64_to_timestamp", vec![INT], TIMESTAMP),
                g("string_to_timestamp", vec![STRING], TIMESTAMP),
            ],
        ),
        f(
            "uint",
            vec![
                g("uint64_to_uint64", vec![UINT], UINT),
                g("double_to_uint64", vec![DOUBLE], UINT),
                g("int64_to_uint64", vec![INT], UINT),
                g("string_to_uint64", vec![STRING], UINT),
            ],
        ),
        f(
            "contains",
            vec![m("contains_string", vec![STRING, STRING], BOOL)],
        ),
        f(
            "endsWith",
            vec![m("ends_with_string", vec![STRING, STRING], BOOL)],
        ),
        f(
            "startsWith",
            vec![m("starts_with_string", vec![STRING, STRING], BOOL)],
        ),
        f(
            "matches",
            vec![
                g("matches", vec![STRING, STRING], BOOL),
                m("matches_string", vec![STRING, STRING], BOOL),
            ],
        ),
        timestamp_accessor(
            "getFullYear",
            "timestamp_to_year",
            "timestamp_to_year_with_tz",
            None,
        ),
        timestamp_accessor(
            "getMonth",
            "timestamp_to_month",
            "timestamp_to_month_with_tz",
            None,
        ),
        timestamp_accessor(
            "getDayOfYear",
            "timestamp_to_day_of_year",
            "timestamp_to_day_of_year_with_tz",
            None,
        ),
        timestamp_accessor(
            "getDayOfMonth",
            "timestamp_to_day_of_month",
            "timestamp_to_day_of_month_with_tz",
            None,
        ),
        timestamp_accessor(
            "getDate",
            "timestamp_to_day_of_month_1_based",
            "timestamp_to_day_of_month_1_based_with_tz",
            None,
        ),
        timestamp_accessor(
            "getDayOfWeek",
            "timestamp_to_day_of_week",
            "timestamp_to_day_of_week_with_tz",
            None,
        ),
        timestamp_accessor(
            "getHours",
            "timestamp_to_hours",
            "timestamp_to_hours_with_tz",
            Some("duration_to_hours"),
        ),
        timestamp_accessor(
            "getMinutes",
            "timestamp_to_minutes",
            "timestamp_to_minutes_with_tz",
            Some("duration_to_minutes"),
        ),
        timestamp_accessor(
            "getSeconds",
            "timestamp_to_seconds",
            "timestamp_to_seconds_tz",
            Some("duration_to_seconds"),
        ),
        timestamp_accessor(
            "getMilliseconds",
            "timestamp_to_milliseconds",
            "timestamp_to_milliseconds_with_tz",
            Some("duration_to_milliseconds"),
        ),
    ]
}

fn optional_functions(version: u32) -> Vec<FunctionDecl> {
    let v = || p("V");
    let k = || p("K");
    let opt_v = || opt(p("V"));
    let list_v = || list(p("V"));
    let map_kv = || Type::map(p("K"), p("V"));
    let mut out = vec![
        f("optional.of", vec![g("optional_of", vec![v()], opt_v())]),
        f(
            "optional.ofNonZeroValue",
            vec![g("optional_ofNonZeroValue", vec![v()], opt_v())],
        ),
        f("optional.none", vec![g("optional_none", vec![], opt_v())]),
        f("value", vec![m("optional_value", vec![opt_v()], v())]),
        f(
            "hasValue",
            vec![m("optional_hasValue", vec![opt_v()], BOOL)],
        ),
        f(
            "or",
            vec![m("optional_or_optional", vec![opt_v(), opt_v()], opt_v())],
        ),
        f(
            "orValue",
            vec![m("optional_orValue_value", vec![opt_v(), v()], v())],
        ),
        f(
            "_?._",
            vec![g("select_optional_field", vec![DYN, STRING], opt_v())],
        ),
        f(
            "_[?_]",
            vec![
                g("list_optindex_optional_int", vec![list_v(), INT], opt_v()),
                g(
                    "optional_list_optindex_optional_int",
                    vec![opt(list_v()), INT],
                    opt_v(),
                ),
                g("map_optindex_optional_value", vec![map_kv(), k()], opt_v()),
                g(
                    "optional_map_optindex_optional_value",
                    vec![opt(map_kv()), k()],
                    opt_v(),
                ),
            ],
        ),
        f(
            "_[_]",
            vec![
                g("optional_list_index_int", vec![opt(list_v()), INT], opt_v()),
                g(
                    "optional_map_index_value",
                    vec![opt(map_kv()), k()],
                    opt_v(),
                ),
            ],
        ),
    ];
    if version >= 2 {
        out.push(f("last", vec![m("list_last", vec![list_v()], opt_v())]));
        out.push(f("first", vec![m("list_first", vec![list_v()], opt_v())]));
        out.push(f(
            "optional.unwrap",
            vec![g("optional_unwrap", vec![list(opt_v())], list_v())],
        ));
        out.push(f(
            "unwrapOpt",
            vec![m("optional_unwrapOpt", vec![list(opt_v())], list_v())],
        ));
    }
    out
}

fn ext_strings_functions(version: u32) -> Vec<FunctionDecl> {
    let mut out = vec![
        f(
            "charAt",
            vec![m("string_char_at_int", vec![STRING, INT], STRING)],
        ),
        f(
            "indexOf",
            vec![
                m("string_index_of_string", vec![STRING, STRING], INT),
                m("string_index_of_string_int", vec![STRING, STRING, INT], INT),
            ],
        ),
        f(
            "lastIndexOf",
            vec![
                m("string_last_index_of_string", vec![STRING, STRING], INT),
                m(
                    "string_last_index_of_string_int",
                    vec![STRING, STRING, INT],
                    INT,
                ),
            ],
        ),
        f(
            "lowerAscii",
            vec![m("string_lower_ascii", vec![STRING], STRING)],
        ),
        f(
            "replace",
            vec![
                m(
                    "string_replace_string_string",
                    vec![STRING, STRING, STRING],
                    STRING,
                ),
                m(
                    "string_replace_string_string_int",
                    vec![STRING, STRING, STRING, INT],
                    STRING,
                ),
            ],
        ),
        f(
            "split",
            vec![
                m("string_split_string", vec![STRING, STRING], list(STRING)),
                m(
                    "string_split_string_int",
                    vec![STRING, STRING, INT],
                    list(STRING),
                ),
            ],
        ),
        f(
            "substring",
            vec![
                m("string_substring_int", vec![STRING, INT], STRING),
                m("string_substring_int_int", vec![STRING, INT, INT], STRING),
            ],
        ),
        f("trim", vec![m("string_trim", vec![STRING], STRING)]),
        f(
            "upperAscii",
            vec![m("string_upper_ascii", vec![STRING], STRING)],
        ),
    ];
    if version >= 1 {
        out.push(f(
            "format",
            vec![m("string_format", vec![STRING, list(DYN)], STRING)],
        ));
        out.push(f(
            "strings.quote",
            vec![g("strings_quote", vec![STRING], STRING)],
        ));
    }
    out.push(f(
        "join",
        vec![
            m("list_join", vec![list(STRING)], STRING),
            m("list_join_string", vec![list(STRING), STRING], STRING),
        ],
    ));
    if version >= 3 {
        out.push(f(
            "reverse",
            vec![m("string_reverse", vec![STRING], STRING)],
        ));
    }
    out
}

fn ext_sets_functions() -> Vec<FunctionDecl> {
    let l = || list(p("T"));
    vec![
        f(
            "sets.contains",
            vec![g("list_sets_contains_list", vec![l(), l()], BOOL)],
        ),
        f(
            "sets.equivalent",
            vec![g("list_sets_equivalent_list", vec![l(), l()], BOOL)],
        ),
        f(
            "sets.intersects",
            vec![g("list_sets_intersects_list", vec![l(), l()], BOOL)],
        ),
    ]
}

/// The comparable element types of `ext.Lists`' `sort` (named by their runtime type name in the
/// overload ids: `list_int_sort`, `list_google.protobuf.Duration_sort`).
fn ext_lists_comparable() -> [Type; 8] {
    [INT, UINT, DOUBLE, BOOL, DURATION, TIMESTAMP, STRING, BYTES]
}

fn ext_lists_functions(version: u32) -> Vec<FunctionDecl> {
    let list_t = || list(p("T"));
    let mut out = vec![f(
        "slice",
        vec![m("list_slice", vec![list_t(), INT, INT], list_t())],
    )];
    if version >= 1 {
        out.push(f(
            "flatten",
            vec![
                m("list_flatten", vec![list(list_t())], list_t()),
                m("list_flatten_int", vec![list(DYN), INT], list(DYN)),
            ],
        ));
    }
    if version >= 2 {
        out.push(f(
            "sort",
            ext_lists_comparable()
                .into_iter()
                .map(|c| {
                    m(
                        &format!("list_{}_sort", c.type_name()),
                        vec![list(c.clone())],
                        list(c),
                    )
                })
                .collect(),
        ));
        out.push(f(
            "@sortByAssociatedKeys",
            ext_lists_comparable()
                .into_iter()
                .map(|u| {
                    m(
                        &format!("list_{}_sortByAssociatedKeys", u.type_name()),
                        vec![list_t(), list(u)],
                        list_t(),
                    )
                })
                .collect(),
        ));
        out.push(f(
            "lists.range",
            vec![g("lists_range", vec![INT], list(INT))],
        ));
        out.push(f(
            "reverse",
            vec![m("list_reverse", vec![list_t()], list_t())],
        ));
        out.push(f(
            "distinct",
            vec![m("list_distinct", vec![list_t()], list_t())],
        ));
    }
    out
}

fn two_var_functions() -> Vec<FunctionDecl> {
    let map_kv = || Type::map(p("K"), p("V"));
    vec![f(
        "cel.@mapInsert",
        vec![
            g(
                "@mapInsert_map_key_value",
                vec![map_kv(), p("K"), p("V")],
                map_kv(),
            ),
            g("@mapInsert_map_map", vec![map_kv(), map_kv()], map_kv()),
        ],
    )]
}

fn kube_urls_functions() -> Vec<FunctionDecl> {
    let u = url_type;
    vec![
        f("url", vec![g("string_to_url", vec![STRING], u())]),
        f("getScheme", vec![m("url_get_scheme", vec![u()], STRING)]),
        f("getHost", vec![m("url_get_host", vec![u()], STRING)]),
        f(
            "getHostname",
            vec![m("url_get_hostname", vec![u()], STRING)],
        ),
        f("getPort", vec![m("url_get_port", vec![u()], STRING)]),
        f(
            "getEscapedPath",
            vec![m("url_get_escaped_path", vec![u()], STRING)],
        ),
        f(
            "getQuery",
            vec![m(
                "url_get_query",
                vec![u()],
                Type::map(STRING, list(STRING)),
            )],
        ),
        f("isURL", vec![g("is_url_string", vec![STRING], BOOL)]),
    ]
}

fn kube_regex_functions() -> Vec<FunctionDecl> {
    vec![
        f(
            "find",
            vec![m("string_find_string", vec![STRING, STRING], STRING)],
        ),
        f(
            "findAll",
            vec![
                m("string_find_all_string", vec![STRING, STRING], list(STRING)),
                m(
                    "string_find_all_string_int",
                    vec![STRING, STRING, INT],
                    list(STRING),
                ),
            ],
        ),
    ]
}

fn kube_lists_functions(version: u32) -> Vec<FunctionDecl> {
    let summable: [(&str, Type); 4] = [
        ("int", INT),
        ("uint", UINT),
        ("double", DOUBLE),
        ("duration", DURATION),
    ];
    let comparable: [(&str, Type); 8] = [
        ("int", INT),
        ("uint", UINT),
        ("double", DOUBLE),
        ("bool", BOOL),
        ("duration", DURATION),
        ("timestamp", TIMESTAMP),
        ("string", STRING),
        ("bytes", BYTES),
    ];
    let mut out = vec![
        f(
            "isSorted",
            comparable
                .iter()
                .map(|(n, t)| {
                    m(
                        &format!("list_{n}_is_sorted_bool"),
                        vec![list(t.clone())],
                        BOOL,
                    )
                })
                .collect(),
        ),
        f(
            "sum",
            summable
                .iter()
                .map(|(n, t)| {
                    m(
                        &format!("list_{n}_sum_{n}"),
                        vec![list(t.clone())],
                        t.clone(),
                    )
                })
                .collect(),
        ),
        f(
            "max",
            comparable
                .iter()
                .map(|(n, t)| {
                    m(
                        &format!("list_{n}_max_{n}"),
                        vec![list(t.clone())],
                        t.clone(),
                    )
                })
                .collect(),
        ),
        f(
            "min",
            comparable
                .iter()
                .map(|(n, t)| {
                    m(
                        &format!("list_{n}_min_{n}"),
                        vec![list(t.clone())],
                        t.clone(),
                    )
                })
                .collect(),
        ),
        f(
            "indexOf",
            vec![m("list_a_index_of_int", vec![list(p("A")), p("A")], INT)],
        ),
        f(
            "lastIndexOf",
            vec![m(
                "list_a_last_index_of_int",
                vec![list(p("A")), p("A")],
                INT,
            )],
        ),
    ];
    if version >= 1 {
        out.push(f(
            "includes",
            vec![m("list_includes_dyn_dyn", vec![DYN, DYN], BOOL)],
        ));
    }
    out
}

fn kube_authz_functions() -> Vec<FunctionDecl> {
    let authorizer = || authz("Authorizer");
    let path_check = || authz("PathCheck");
    let group_check = || authz("GroupCheck");
    let resource_check = || authz("ResourceCheck");
    let decision = || authz("Decision");
    vec![
        f(
            "path",
            vec![m(
                "authorizer_path",
                vec![authorizer(), STRING],
                path_check(),
            )],
        ),
        f(
            "group",
            vec![m(
                "authorizer_group",
                vec![authorizer(), STRING],
                group_check(),
            )],
        ),
        f(
            "serviceAccount",
            vec![m(
                "authorizer_serviceaccount",
                vec![authorizer(), STRING, STRING],
                authorizer(),
            )],
        ),
        f(
            "resource",
            vec![m(
                "groupcheck_resource",
                vec![group_check(), STRING],
                resource_check(),
            )],
        ),
        f(
            "subresource",
            vec![m(
                "resourcecheck_subresource",
                vec![resource_check(), STRING],
                resource_check(),
            )],
        ),
        f(
            "namespace",
            vec![m(
                "resourcecheck_namespace",
                vec![resource_check(), STRING],
                resource_check(),
            )],
        ),
        f(
            "name",
            vec![m(
                "resourcecheck_name",
                vec![resource_check(), STRING],
                resource_check(),
            )],
        ),
        f(
            "check",
            vec![
                m("pathcheck_check", vec![path_check(), STRING], decision()),
                m(
                    "resourcecheck_check",
                    vec![resource_check(), STRING],
                    decision(),
                ),
            ],
        ),
        f(
            "errored",
            vec![m("decision_errored", vec![decision()], BOOL)],
        ),
        f("error", vec![m("decision_error", vec![decision()], STRING)]),
        f(
            "allowed",
            vec![m("decision_allowed", vec![decision()], BOOL)],
        ),
        f(
            "reason",
            vec![m("decision_reason", vec![decision()], STRING)],
        ),
    ]
}

fn kube_authz_selectors_functions() -> Vec<FunctionDecl> {
    let rc = || authz("ResourceCheck");
    vec![
        f(
            "fieldSelector",
            vec![m("authorizer_fieldselector", vec![rc(), STRING], rc())],
        ),
        f(
            "labelSelector",
            vec![m("authorizer_labelselector", vec![rc(), STRING], rc())],
        ),
    ]
}

fn kube_quantity_functions() -> Vec<FunctionDecl> {
    let q = quantity_type;
    vec![
        f("quantity", vec![g("string_to_quantity", vec![STRING], q())]),
        f(
            "isQuantity",
            vec![g("is_quantity_string", vec![STRING], BOOL)],
        ),
        // Declared global in library/quantity.go: `sign(q)`, not `q.sign()`.
        f("sign", vec![g("quantity_sign", vec![q()], INT)]),
        f(
            "isGreaterThan",
            vec![m("quantity_is_greater_than", vec![q(), q()], BOOL)],
        ),
        f(
            "isLessThan",
            vec![m("quantity_is_less_than", vec![q(), q()], BOOL)],
        ),
        f(
            "compareTo",
            vec![m("quantity_compare_to", vec![q(), q()], INT)],
        ),
        f(
            "asApproximateFloat",
            vec![m("quantity_get_float", vec![q()], DOUBLE)],
        ),
        f("asInteger", vec![m("quantity_get_int", vec![q()], INT)]),
        f("isInteger", vec![m("quantity_is_integer", vec![q()], BOOL)]),
        f(
            "add",
            vec![
                m("quantity_add", vec![q(), q()], q()),
                m("quantity_add_int", vec![q(), INT], q()),
            ],
        ),
        f(
            "sub",
            vec![
                m("quantity_sub", vec![q(), q()], q()),
                m("quantity_sub_int", vec![q(), INT], q()),
            ],
        ),
    ]
}

fn kube_ip_functions() -> Vec<FunctionDecl> {
    let ip = ip_type;
    vec![
        f("ip", vec![g("string_to_ip", vec![STRING], ip())]),
        f("family", vec![m("ip_family", vec![ip()], INT)]),
        f(
            "ip.isCanonical",
            vec![g("ip_is_canonical", vec![STRING], BOOL)],
        ),
        f(
            "isUnspecified",
            vec![m("ip_is_unspecified", vec![ip()], BOOL)],
        ),
        f("isLoopback", vec![m("ip_is_loopback", vec![ip()], BOOL)]),
        f(
            "isLinkLocalMulticast",
            vec![m("ip_is_link_local_multicast", vec![ip()], BOOL)],
        ),
        f(
            "isLinkLocalUnicast",
            vec![m("ip_is_link_local_unicast", vec![ip()], BOOL)],
        ),
        f(
            "isGlobalUnicast",
            vec![m("ip_is_global_unicast", vec![ip()], BOOL)],
        ),
        f("isIP", vec![g("is_ip", vec![STRING], BOOL)]),
        f("string", vec![g("ip_to_string", vec![ip()], STRING)]),
    ]
}

fn kube_cidr_functions() -> Vec<FunctionDecl> {
    let ip = ip_type;
    let cidr = cidr_type;
    vec![
        f("cidr", vec![g("string_to_cidr", vec![STRING], cidr())]),
        f(
            "containsIP",
            vec![
                m("cidr_contains_ip_string", vec![cidr(), STRING], BOOL),
                m("cidr_contains_ip_ip", vec![cidr(), ip()], BOOL),
            ],
        ),
        f(
            "containsCIDR",
            vec![
                m("cidr_contains_cidr_string", vec![cidr(), STRING], BOOL),
                m("cidr_contains_cidr", vec![cidr(), cidr()], BOOL),
            ],
        ),
        f("ip", vec![m("cidr_ip", vec![cidr()], ip())]),
        f(
            "prefixLength",
            vec![m("cidr_prefix_length", vec![cidr()], INT)],
        ),
        f("masked", vec![m("cidr_masked", vec![cidr()], cidr())]),
        f("isCIDR", vec![g("is_cidr", vec![STRING], BOOL)]),
        f("string", vec![g("cidr_to_string", vec![cidr()], STRING)]),
    ]
}

fn kube_format_functions() -> Vec<FunctionDecl> {
    let mut out = vec![
        f(
            "validate",
            vec![m(
                "format-validate",
                vec![format_type(), STRING],
                opt(list(STRING)),
            )],
        ),
        f(
            "format.named",
            vec![g("format-named", vec![STRING], opt(format_type()))],
        ),
    ];
    for name in FORMAT_NAMES {
        let full = format!("format.{name}");
        out.push(f(&full, vec![g(&full, vec![], format_type())]));
    }
    out
}

fn kube_semver_functions(version: u32) -> Vec<FunctionDecl> {
    let s = semver_type;
    let mut semver = vec![g("string_to_semver", vec![STRING], s())];
    let mut is_semver = vec![g("is_semver_string", vec![STRING], BOOL)];
    if version >= 1 {
        semver.push(g("string_bool_to_semver", vec![STRING, BOOL], s()));
        is_semver.push(g("is_semver_string_bool", vec![STRING, BOOL], BOOL));
    }
    vec![
        f("semver", semver),
        f("isSemver", is_semver),
        f(
            "isGreaterThan",
            vec![m("semver_is_greater_than", vec![s(), s()], BOOL)],
        ),
        f(
            "isLessThan",
            vec![m("semver_is_less_than", vec![s(), s()], BOOL)],
        ),
        f(
            "compareTo",
            vec![m("semver_compare_to", vec![s(), s()], INT)],
        ),
        f("major", vec![m("semver_major", vec![s()], INT)]),
        f("minor", vec![m("semver_minor", vec![s()], INT)]),
        f("patch", vec![m("semver_patch", vec![s()], INT)]),
    ]
}

/// A table of functions by name, merged from libraries in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FunctionTable {
    functions: BTreeMap<String, FunctionDecl>,
}

impl FunctionTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (merges) a function declaration.
    pub fn add(&mut self, decl: FunctionDecl) {
        match self.functions.get_mut(&decl.name) {
            Some(existing) => existing.merge(&decl),
            None => {
                self.functions.insert(decl.name.clone(), decl);
            }
        }
    }

    /// The declaration of a function.
    pub fn get(&self, name: &str) -> Option<&FunctionDecl> {
        self.functions.get(name)
    }

    /// All declarations, by name.
    pub fn iter(&self) -> impl Iterator<Item = &FunctionDecl> {
        self.functions.values()
    }

    /// The number of functions.
    pub fn len(&self) -> usize {
        self.functions.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }
}

#[cfg(test)]
fn is_primitive(t: &Type) -> bool {
    use crate::types::Kind;
    matches!(
        t.kind(),
        Kind::Int
            | Kind::Uint
            | Kind::Double
            | Kind::Bool
            | Kind::String
            | Kind::Bytes
            | Kind::Duration
            | Kind::Timestamp
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(version: EnvVersion) -> FunctionTable {
        let mut t = FunctionTable::new();
        for o in kubernetes_options(version) {
            if let EnvOption::Library(l) = o {
                for fd in l.functions() {
                    t.add(fd);
                }
            }
        }
        t
    }

    fn has_overload(t: &FunctionTable, func: &str, id: &str) -> bool {
        t.get(func)
            .is_some_and(|f| f.overloads.iter().any(|o| o.id == id))
    }

    #[test]
    fn options_follow_versions() {
        let libs = |v| -> Vec<Library> {
            kubernetes_options(v)
                .into_iter()
                .filter_map(|o| match o {
                    EnvOption::Library(l) => Some(l),
                    _ => None,
                })
                .collect()
        };
        let v = |minor| EnvVersion::NewExpressions(KubernetesVersion::new(minor));
        assert!(libs(v(23)).contains(&Library::ExtStrings(0)));
        assert!(!libs(v(23)).contains(&Library::KubeQuantity));
        assert!(libs(v(28)).contains(&Library::KubeQuantity));
        assert!(libs(v(29)).contains(&Library::ExtStrings(2)));
        assert!(!libs(v(29)).contains(&Library::ExtStrings(0)));
        assert!(libs(v(36)).contains(&Library::KubeLists(0)));
        assert!(libs(v(37)).contains(&Library::KubeLists(1)));
        assert!(!libs(v(37)).contains(&Library::KubeLists(0)));
        let stored = libs(EnvVersion::Stored);
        assert!(stored.contains(&Library::ExtStrings(2)));
        assert!(stored.contains(&Library::KubeLists(1)));
        assert_eq!(
            stored
                .iter()
                .filter(|l| l.name() == "kubernetes.lists")
                .count(),
            1
        );
        let opts = kubernetes_options(v(27));
        assert!(!opts.contains(&EnvOption::CrossTypeNumericComparisons));
        assert!(kubernetes_options(v(28)).contains(&EnvOption::CrossTypeNumericComparisons));
        assert!(!kubernetes_options(v(30)).contains(&EnvOption::RecognizeKeywordAsFieldName));
        assert!(kubernetes_options(v(31)).contains(&EnvOption::RecognizeKeywordAsFieldName));
    }

    #[test]
    fn functions_by_version() {
        let v = |minor| table(EnvVersion::NewExpressions(KubernetesVersion::new(minor)));
        let cases: &[(u32, &str, &str, bool)] = &[
            (23, "_+_", "add_int64", true),
            (23, "join", "list_join", true),
            (23, "format", "string_format", false),
            (29, "format", "string_format", true),
            (28, "quantity", "string_to_quantity", true),
            (27, "quantity", "string_to_quantity", false),
            (29, "sets.contains", "list_sets_contains_list", true),
            (30, "ip", "string_to_ip", true),
            (30, "ip", "cidr_ip", true),
            (30, "string", "ip_to_string", true),
            (30, "string", "cidr_to_string", true),
            (31, "format.dns1123Label", "format.dns1123Label", true),
            (32, "cel.@mapInsert", "@mapInsert_map_map", true),
            (33, "semver", "string_bool_to_semver", true),
            (34, "sort", "list_google.protobuf.Duration_sort", true),
            (34, "lists.range", "lists_range", true),
            (36, "includes", "list_includes_dyn_dyn", false),
            (37, "includes", "list_includes_dyn_dyn", true),
            (36, "indexOf", "list_a_index_of_int", true),
            (36, "indexOf", "string_index_of_string", true),
            (36, "isGreaterThan", "quantity_is_greater_than", true),
            (36, "isGreaterThan", "semver_is_greater_than", true),
            (36, "_[_]", "optional_list_index_int", true),
            (36, "first", "list_first", true),
        ];
        for (minor, func, id, want) in cases {
            assert_eq!(
                has_overload(&v(*minor), func, id),
                *want,
                "1.{minor} {func} {id}"
            );
        }
        let stored = table(EnvVersion::Stored);
        assert!(has_overload(&stored, "includes", "list_includes_dyn_dyn"));
        assert!(has_overload(&stored, "format", "string_format"));
    }

    #[test]
    fn no_overload_signatures_collide() {
        // cel-go refuses an environment whose overloads overlap (same style and arity,
        // assignable arguments) under different ids.
        let t = table(EnvVersion::Stored);
        for fd in t.iter() {
            for (i, a) in fd.overloads.iter().enumerate() {
                for b in fd.overloads.iter().skip(i + 1) {
                    assert!(
                        a.id == b.id || !a.signature_overlaps(b),
                        "{}: {} overlaps {}",
                        fd.name,
                        a.id,
                        b.id
                    );
                }
            }
        }
        // Overload ids are unique across the whole table.
        let mut ids: Vec<&str> = t
            .iter()
            .flat_map(|f| f.overloads.iter().map(|o| o.id.as_str()))
            .collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n);
    }

    #[test]
    fn parses_versions() {
        let cases: &[(&str, Option<KubernetesVersion>)] = &[
            ("1.36", Some(KubernetesVersion::new(36))),
            ("v1.31", Some(KubernetesVersion::new(31))),
            ("1.30.2", Some(KubernetesVersion::new(30))),
            ("1", None),
            ("1.x", None),
            ("1.2.3.4", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(KubernetesVersion::parse_any(text), *want, "{text}");
        }
        assert_eq!(
            KubernetesVersion::DEFAULT.compatibility().to_string(),
            "1.36"
        );
    }

    #[test]
    fn type_params_in_order() {
        let o = g("x", vec![Type::map(p("K"), p("V")), p("K")], opt(p("V")));
        let names: Vec<String> = o.type_params().iter().map(|s| s.to_string()).collect();
        assert_eq!(names, vec!["V", "K"]);
        assert!(ext_lists_comparable().iter().all(is_primitive));
    }
}
