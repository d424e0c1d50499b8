//! CEL types as cel-go's type checker sees them (`common/types.Type` and the assignability rules
//! of `checker/types.go`): primitives, `list(E)`, `map(K, V)`, object types with named fields,
//! opaque types (`optional_type(T)`, `net.IP`, ...), type-of-type, type parameters, `dyn`,
//! `null` and the error type.
//!
//! [`Type::fmt`] (`Display`) is cel-go's `FormatCELType`, the text the checker puts in its
//! error messages (`list(int)`, `map(string, dyn)`, `optional_type(int)`, `type(int)`,
//! `duration`, `null`, `!error!`). [`Type::type_name`] is the runtime type name
//! (`google.protobuf.Duration`, `null_type`, `list`, ...).
//!
//! Object types compare by name only (as cel-go's struct types do); their fields are carried
//! for the environment's type provider and for the engine.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

/// How deep the type functions recurse before giving up (types nested deeper than this are not
/// produced by any expression the parser accepts; the bound keeps the stack safe anyway).
const MAX_TYPE_DEPTH: u32 = 1024;

/// A CEL type.
#[derive(Debug, Clone)]
pub enum Type {
    /// `dyn`: any value; assignable to and from every type.
    Dyn,
    /// The error type (`!error!`), given to expressions that failed to check.
    Error,
    /// The type of `null` (`null_type` at runtime, `null` in messages).
    Null,
    /// `bool`.
    Bool,
    /// `int` (64-bit signed).
    Int,
    /// `uint` (64-bit unsigned).
    Uint,
    /// `double`.
    Double,
    /// `string`.
    String,
    /// `bytes`.
    Bytes,
    /// `duration` (`google.protobuf.Duration`).
    Duration,
    /// `timestamp` (`google.protobuf.Timestamp`).
    Timestamp,
    /// `list(E)`.
    List(Box<Type>),
    /// `map(K, V)`, as `[K, V]`.
    Map(Box<[Type; 2]>),
    /// An object (struct) type: schema objects, or library types such as `kubernetes.URL`.
    Object(Arc<ObjectType>),
    /// An opaque type with type parameters: `optional_type(T)`, `net.IP`, `net.CIDR`.
    Opaque(Arc<str>, Vec<Type>),
    /// `type` (no parameter) or `type(T)`: the type of a type value.
    Type(Option<Box<Type>>),
    /// A type parameter (`A`, `_var0`), resolved during checking.
    TypeParam(Arc<str>),
}

/// The kind of a type (cel-go's `types.Kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `dyn`.
    Dyn,
    /// The error type.
    Error,
    /// `null`.
    Null,
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `uint`.
    Uint,
    /// `double`.
    Double,
    /// `string`.
    String,
    /// `bytes`.
    Bytes,
    /// `duration`.
    Duration,
    /// `timestamp`.
    Timestamp,
    /// `list`.
    List,
    /// `map`.
    Map,
    /// An object type.
    Struct,
    /// An opaque type.
    Opaque,
    /// A type-of-type.
    Type,
    /// A type parameter.
    TypeParam,
}

/// An object type: a name and its fields (already escaped as CEL sees them, e.g.
/// `x__dash__y`). Two object types are the same type when their names are equal.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObjectType {
    /// The fully qualified name (`selfType123.spec`, `kubernetes.URL`).
    pub name: String,
    /// Field name to field type.
    pub fields: BTreeMap<String, Type>,
}

impl ObjectType {
    /// An object type with fields.
    pub fn new(name: impl Into<String>, fields: BTreeMap<String, Type>) -> Self {
        ObjectType {
            name: name.into(),
            fields,
        }
    }

    /// The type of a field.
    pub fn field(&self, name: &str) -> Option<&Type> {
        self.fields.get(name)
    }
}

/// The name of cel-go's optional type.
pub const OPTIONAL_TYPE_NAME: &str = "optional_type";

impl Type {
    /// `list(elem)`.
    pub fn list(elem: Type) -> Type {
        Type::List(Box::new(elem))
    }

    /// `map(key, value)`.
    pub fn map(key: Type, value: Type) -> Type {
        Type::Map(Box::new([key, value]))
    }

    /// `optional_type(t)`.
    pub fn optional(t: Type) -> Type {
        Type::Opaque(Arc::from(OPTIONAL_TYPE_NAME), vec![t])
    }

    /// An opaque type without parameters (`net.IP`).
    pub fn opaque(name: &str) -> Type {
        Type::Opaque(Arc::from(name), Vec::new())
    }

    /// An opaque type with parameters.
    pub fn opaque_with(name: &str, params: Vec<Type>) -> Type {
        Type::Opaque(Arc::from(name), params)
    }

    /// An object type.
    pub fn object(t: ObjectType) -> Type {
        Type::Object(Arc::new(t))
    }

    /// An object type known only by name (library types such as `kubernetes.Quantity`).
    pub fn named_object(name: &str) -> Type {
        Type::Object(Arc::new(ObjectType::new(name, BTreeMap::new())))
    }

    /// `type(t)`.
    pub fn type_of(t: Type) -> Type {
        Type::Type(Some(Box::new(t)))
    }

    /// A type parameter.
    pub fn param(name: &str) -> Type {
        Type::TypeParam(Arc::from(name))
    }

    /// The kind.
    pub fn kind(&self) -> Kind {
        match self {
            Type::Dyn => Kind::Dyn,
            Type::Error => Kind::Error,
            Type::Null => Kind::Null,
            Type::Bool => Kind::Bool,
            Type::Int => Kind::Int,
            Type::Uint => Kind::Uint,
            Type::Double => Kind::Double,
            Type::String => Kind::String,
            Type::Bytes => Kind::Bytes,
            Type::Duration => Kind::Duration,
            Type::Timestamp => Kind::Timestamp,
            Type::List(_) => Kind::List,
            Type::Map(_) => Kind::Map,
            Type::Object(_) => Kind::Struct,
            Type::Opaque(..) => Kind::Opaque,
            Type::Type(_) => Kind::Type,
            Type::TypeParam(_) => Kind::TypeParam,
        }
    }

    /// The type parameters (element, key and value, opaque parameters, the type of a type).
    pub fn params(&self) -> &[Type] {
        match self {
            Type::List(e) => std::slice::from_ref(&**e),
            Type::Map(kv) => &kv[..],
            Type::Opaque(_, p) => p,
            Type::Type(Some(t)) => std::slice::from_ref(&**t),
            _ => &[],
        }
    }

    /// The runtime type name (cel-go's `TypeName()`): `int`, `list`, `map`,
    /// `google.protobuf.Duration`, `null_type`, `optional_type`, an object's name, a type
    /// parameter's name.
    pub fn type_name(&self) -> &str {
        match self {
            Type::Dyn => "dyn",
            Type::Error => "error",
            Type::Null => "null_type",
            Type::Bool => "bool",
            Type::Int => "int",
            Type::Uint => "uint",
            Type::Double => "double",
            Type::String => "string",
            Type::Bytes => "bytes",
            Type::Duration => "google.protobuf.Duration",
            Type::Timestamp => "google.protobuf.Timestamp",
            Type::List(_) => "list",
            Type::Map(_) => "map",
            Type::Object(o) => &o.name,
            Type::Opaque(n, _) => n,
            Type::Type(_) => "type",
            Type::TypeParam(n) => n,
        }
    }

    /// True for `dyn`.
    pub fn is_dyn(&self) -> bool {
        matches!(self, Type::Dyn)
    }

    /// True for the error type.
    pub fn is_error(&self) -> bool {
        matches!(self, Type::Error)
    }

    /// True for `dyn` or the error type.
    pub fn is_dyn_or_error(&self) -> bool {
        matches!(self, Type::Dyn | Type::Error)
    }

    /// True for `optional_type(T)`.
    pub fn is_optional(&self) -> bool {
        matches!(self, Type::Opaque(n, _) if &**n == OPTIONAL_TYPE_NAME)
    }

    /// The `T` of `optional_type(T)`, and whether this was an optional (cel-go's
    /// `maybeUnwrapOptional`).
    pub fn maybe_unwrap_optional(&self) -> (&Type, bool) {
        match self {
            Type::Opaque(n, p) if &**n == OPTIONAL_TYPE_NAME => match p.first() {
                Some(inner) => (inner, true),
                None => (self, false),
            },
            _ => (self, false),
        }
    }

    /// The object type, if this is one.
    pub fn as_object(&self) -> Option<&ObjectType> {
        match self {
            Type::Object(o) => Some(o),
            _ => None,
        }
    }

    /// True when the two types are the same (cel-go's `IsExactType`): same kind, name and
    /// parameters; type parameters must have the same name.
    pub fn is_exact_type(&self, other: &Type) -> bool {
        self.is_type_internal(other, true, 0)
    }

    /// As [`Type::is_exact_type`], but any two type parameters are equivalent (cel-go's
    /// `IsEquivalentType`).
    pub fn is_equivalent_type(&self, other: &Type) -> bool {
        self.is_type_internal(other, false, 0)
    }

    fn is_type_internal(&self, other: &Type, check_param_name: bool, depth: u32) -> bool {
        if depth > MAX_TYPE_DEPTH {
            return false;
        }
        let (k1, k2) = (self.kind(), other.kind());
        if k1 != k2 || self.params().len() != other.params().len() {
            return false;
        }
        if (check_param_name || k1 != Kind::TypeParam) && self.type_name() != other.type_name() {
            return false;
        }
        self.params()
            .iter()
            .zip(other.params())
            .all(|(a, b)| a.is_type_internal(b, check_param_name, depth + 1))
    }

    /// cel-go's `Type.IsAssignableType` (the default rule; there are no nullable wrapper types
    /// in this crate): `dyn` and type parameters accept everything, otherwise kinds, names and
    /// parameters must agree.
    pub fn is_assignable_type(&self, from: &Type) -> bool {
        self.is_assignable_type_depth(from, 0)
    }

    fn is_assignable_type_depth(&self, from: &Type, depth: u32) -> bool {
        if depth > MAX_TYPE_DEPTH {
            return false;
        }
        if matches!(self, Type::Dyn | Type::TypeParam(_)) {
            return true;
        }
        if self.kind() != from.kind()
            || self.type_name() != from.type_name()
            || self.params().len() != from.params().len()
        {
            return false;
        }
        self.params()
            .iter()
            .zip(from.params())
            .all(|(a, b)| a.is_assignable_type_depth(b, depth + 1))
    }

    fn fmt_depth(&self, f: &mut fmt::Formatter<'_>, depth: u32) -> fmt::Result {
        if depth > MAX_TYPE_DEPTH {
            return f.write_str("...");
        }
        match self {
            Type::Null => return f.write_str("null"),
            Type::Error => return f.write_str("!error!"),
            Type::Duration => return f.write_str("duration"),
            Type::Timestamp => return f.write_str("timestamp"),
            Type::TypeParam(n) => return f.write_str(n),
            _ => {}
        }
        let params = self.params();
        f.write_str(self.type_name())?;
        if params.is_empty() {
            return Ok(());
        }
        f.write_str("(")?;
        for (i, p) in params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            p.fmt_depth(f, depth + 1)?;
        }
        f.write_str(")")
    }
}

impl PartialEq for Type {
    fn eq(&self, other: &Type) -> bool {
        self.is_exact_type(other)
    }
}

impl Eq for Type {}

impl fmt::Display for Type {
    /// cel-go's `FormatCELType`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_depth(f, 0)
    }
}

/// Formats a function signature as cel-go's `formatFunctionDeclType` without a result type:
/// `(int, string)`, or `target.(args)` for a receiver-style call.
pub fn format_call_signature(args: &[Type], is_instance: bool) -> String {
    let mut out = String::new();
    let mut rest = args;
    if is_instance {
        if let Some((target, tail)) = args.split_first() {
            out.push_str(&target.to_string());
            out.push('.');
            rest = tail;
        }
    }
    out.push('(');
    for (i, a) in rest.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&a.to_string());
    }
    out.push(')');
    out
}

/// Type-parameter substitutions found while checking (cel-go's `mapping`), with a journal so a
/// failed assignability test can be undone (cel-go works on a copy instead).
#[derive(Debug, Clone, Default)]
pub struct Mapping {
    subs: HashMap<Arc<str>, Type>,
    journal: Vec<(Arc<str>, Option<Type>)>,
}

impl Mapping {
    /// An empty mapping.
    pub fn new() -> Self {
        Self::default()
    }

    /// The substitution of a type parameter.
    pub fn find(&self, t: &Type) -> Option<&Type> {
        match t {
            Type::TypeParam(n) => self.subs.get(n),
            _ => None,
        }
    }

    fn add(&mut self, param: &Type, to: Type) {
        if let Type::TypeParam(n) = param {
            let old = self.subs.insert(n.clone(), to);
            self.journal.push((n.clone(), old));
        }
    }

    /// Adds a substitution directly (used to instantiate an overload's type parameters).
    pub fn insert(&mut self, param: &str, to: Type) {
        self.subs.insert(Arc::from(param), to);
    }

    fn rollback(&mut self, mark: usize) {
        while self.journal.len() > mark {
            match self.journal.pop() {
                Some((k, Some(v))) => {
                    self.subs.insert(k, v);
                }
                Some((k, None)) => {
                    self.subs.remove(&k);
                }
                None => break,
            }
        }
    }

    /// cel-go's `isAssignable(m, t1, t2)`: whether a value of `t2` may be used where `t1` is
    /// expected, binding type parameters on success; on failure the mapping is unchanged.
    pub fn is_assignable(&mut self, t1: &Type, t2: &Type) -> bool {
        let mark = self.journal.len();
        if self.internal_is_assignable(t1, t2, 0) {
            self.journal.truncate(mark);
            true
        } else {
            self.rollback(mark);
            false
        }
    }

    /// cel-go's `isAssignableList`: pairwise [`Mapping::is_assignable`], all or nothing.
    pub fn is_assignable_list(&mut self, l1: &[Type], l2: &[Type]) -> bool {
        let mark = self.journal.len();
        if self.internal_is_assignable_list(l1, l2, 0) {
            self.journal.truncate(mark);
            true
        } else {
            self.rollback(mark);
            false
        }
    }

    fn internal_is_assignable_list(&mut self, l1: &[Type], l2: &[Type], depth: u32) -> bool {
        if l1.len() != l2.len() {
            return false;
        }
        l1.iter()
            .zip(l2)
            .all(|(a, b)| self.internal_is_assignable(a, b, depth + 1))
    }

    fn internal_is_assignable(&mut self, t1: &Type, t2: &Type, depth: u32) -> bool {
        if depth > MAX_TYPE_DEPTH {
            return false;
        }
        let (k1, k2) = (t1.kind(), t2.kind());
        if k2 == Kind::TypeParam {
            let (valid, t2_has_sub) = self.is_valid_type_substitution(t1, t2, depth);
            if valid {
                return true;
            }
            if t2_has_sub {
                return false;
            }
        }
        if k1 == Kind::TypeParam {
            let (valid, _) = self.is_valid_type_substitution(t2, t1, depth);
            return valid;
        }
        if t1.is_dyn_or_error() || t2.is_dyn_or_error() {
            return true;
        }
        if k1 == Kind::Null {
            return is_assignable_null(t2);
        }
        if k2 == Kind::Null {
            return is_assignable_null(t1);
        }
        match k1 {
            Kind::Bool
            | Kind::Bytes
            | Kind::Double
            | Kind::Int
            | Kind::String
            | Kind::Uint
            | Kind::Duration
            | Kind::Timestamp
            | Kind::Struct => t2.is_assignable_type(t1),
            Kind::Type => k2 == Kind::Type,
            Kind::Opaque | Kind::List | Kind::Map => {
                k1 == k2
                    && t1.type_name() == t2.type_name()
                    && self.internal_is_assignable_list(t1.params(), t2.params(), depth)
            }
            _ => false,
        }
    }

    fn is_valid_type_substitution(&mut self, t1: &Type, t2: &Type, depth: u32) -> (bool, bool) {
        if t1.kind() == t2.kind() && t1.is_exact_type(t2) {
            return (true, true);
        }
        if let Some(t2_sub) = self.find(t2).cloned() {
            if t1.kind() == t2_sub.kind() && t1.is_exact_type(&t2_sub) {
                return (true, true);
            }
            if self.internal_is_assignable(t1, &t2_sub, depth + 1) {
                let t2_new = most_general(t1, &t2_sub).clone();
                if self.not_referenced_in(t2, &t2_new, 0) {
                    self.add(t2, t2_new);
                }
                return (true, true);
            }
            return (false, true);
        }
        if self.not_referenced_in(t2, t1, 0) {
            self.add(t2, t1.clone());
            return (true, false);
        }
        (false, false)
    }

    fn not_referenced_in(&self, t: &Type, within: &Type, depth: u32) -> bool {
        if depth > MAX_TYPE_DEPTH {
            return false;
        }
        if t.is_exact_type(within) {
            return false;
        }
        match within.kind() {
            Kind::TypeParam => match self.find(within) {
                None => true,
                Some(sub) => self.not_referenced_in(t, sub, depth + 1),
            },
            Kind::Opaque | Kind::List | Kind::Map | Kind::Type => within
                .params()
                .iter()
                .all(|p| self.not_referenced_in(t, p, depth + 1)),
            _ => true,
        }
    }

    /// cel-go's `substitute`: replaces bound type parameters (recursively); unbound ones become
    /// `dyn` when `type_param_to_dyn`.
    pub fn substitute(&self, t: &Type, type_param_to_dyn: bool) -> Type {
        self.substitute_depth(t, type_param_to_dyn, 0)
    }

    fn substitute_depth(&self, t: &Type, to_dyn: bool, depth: u32) -> Type {
        if depth > MAX_TYPE_DEPTH {
            return Type::Dyn;
        }
        if let Some(sub) = self.find(t) {
            return self.substitute_depth(sub, to_dyn, depth + 1);
        }
        match t {
            Type::TypeParam(_) if to_dyn => Type::Dyn,
            Type::Opaque(n, p) => Type::Opaque(
                n.clone(),
                p.iter()
                    .map(|x| self.substitute_depth(x, to_dyn, depth + 1))
                    .collect(),
            ),
            Type::List(e) => Type::list(self.substitute_depth(e, to_dyn, depth + 1)),
            Type::Map(kv) => {
                let [k, v] = &**kv;
                Type::map(
                    self.substitute_depth(k, to_dyn, depth + 1),
                    self.substitute_depth(v, to_dyn, depth + 1),
                )
            }
            Type::Type(Some(p)) => Type::type_of(self.substitute_depth(p, to_dyn, depth + 1)),
            _ => t.clone(),
        }
    }
}

fn is_assignable_null(t: &Type) -> bool {
    // isLegacyNullable: opaque, struct, (any,) duration and timestamp accept null; otherwise
    // only types assignable from null (dyn, type parameters).
    matches!(
        t.kind(),
        Kind::Opaque | Kind::Struct | Kind::Duration | Kind::Timestamp
    ) || t.is_assignable_type(&Type::Null)
}

/// cel-go's `isEqualOrLessSpecific`: whether `t1` is `dyn`, a type parameter, or the same as
/// `t2` up to less specific parameters.
pub fn is_equal_or_less_specific(t1: &Type, t2: &Type) -> bool {
    is_equal_or_less_specific_depth(t1, t2, 0)
}

fn is_equal_or_less_specific_depth(t1: &Type, t2: &Type, depth: u32) -> bool {
    if depth > MAX_TYPE_DEPTH {
        return false;
    }
    let (k1, k2) = (t1.kind(), t2.kind());
    if k1 == Kind::Dyn || k1 == Kind::TypeParam {
        return true;
    }
    if k2 == Kind::Dyn || k2 == Kind::TypeParam {
        return false;
    }
    if k1 != k2 {
        return false;
    }
    match k1 {
        Kind::Opaque => {
            t1.type_name() == t2.type_name()
                && t1.params().len() == t2.params().len()
                && t1
                    .params()
                    .iter()
                    .zip(t2.params())
                    .all(|(a, b)| is_equal_or_less_specific_depth(a, b, depth + 1))
        }
        Kind::List | Kind::Map => t1
            .params()
            .iter()
            .zip(t2.params())
            .all(|(a, b)| is_equal_or_less_specific_depth(a, b, depth + 1)),
        Kind::Type => true,
        _ => t1.is_exact_type(t2),
    }
}

/// cel-go's `mostGeneral`: `t1` when it is equal or less specific than `t2`, else `t2`.
pub fn most_general<'a>(t1: &'a Type, t2: &'a Type) -> &'a Type {
    if is_equal_or_less_specific(t1, t2) {
        t1
    } else {
        t2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(name: &str) -> Type {
        Type::named_object(name)
    }

    #[test]
    fn formats_as_cel_go() {
        let cases: Vec<(Type, &str)> = vec![
            (Type::Int, "int"),
            (Type::Uint, "uint"),
            (Type::Null, "null"),
            (Type::Error, "!error!"),
            (Type::Duration, "duration"),
            (Type::Timestamp, "timestamp"),
            (Type::Dyn, "dyn"),
            (Type::list(Type::String), "list(string)"),
            (Type::map(Type::String, Type::Dyn), "map(string, dyn)"),
            (Type::optional(Type::Int), "optional_type(int)"),
            (Type::opaque("net.IP"), "net.IP"),
            (Type::Type(None), "type"),
            (Type::type_of(Type::Int), "type(int)"),
            (Type::param("_var0"), "_var0"),
            (obj("selfType1.spec"), "selfType1.spec"),
            (
                Type::list(Type::map(Type::Duration, Type::Timestamp)),
                "list(map(duration, timestamp))",
            ),
        ];
        for (t, want) in cases {
            assert_eq!(t.to_string(), want);
        }
        assert_eq!(Type::Duration.type_name(), "google.protobuf.Duration");
        assert_eq!(Type::Null.type_name(), "null_type");
        assert_eq!(
            format_call_signature(&[Type::Int, Type::String], false),
            "(int, string)"
        );
        assert_eq!(
            format_call_signature(&[Type::String, Type::Int], true),
            "string.(int)"
        );
        assert_eq!(format_call_signature(&[Type::Int], true), "int.()");
    }

    #[test]
    fn exact_and_equivalent() {
        assert_eq!(obj("a"), obj("a"));
        assert_ne!(obj("a"), obj("b"));
        assert!(!Type::param("A").is_exact_type(&Type::param("B")));
        assert!(Type::list(Type::param("A")).is_equivalent_type(&Type::list(Type::param("B"))));
        assert!(!Type::list(Type::Int).is_equivalent_type(&Type::list(Type::Dyn)));
    }

    #[test]
    fn assignability_table() {
        // (expected, actual, assignable)
        let a = Type::param("A");
        let cases: Vec<(Type, Type, bool)> = vec![
            (Type::Int, Type::Int, true),
            (Type::Int, Type::Uint, false),
            (Type::Int, Type::Dyn, true),
            (Type::Dyn, Type::String, true),
            (Type::Error, Type::String, true),
            (Type::list(Type::Int), Type::list(Type::Dyn), true),
            (Type::list(Type::Int), Type::list(Type::String), false),
            (
                Type::map(Type::String, Type::Int),
                Type::map(Type::String, Type::Int),
                true,
            ),
            (Type::Null, Type::Int, false),
            (Type::Null, obj("x"), true),
            (Type::Null, Type::Duration, true),
            (Type::Null, Type::optional(Type::Int), true),
            (Type::Null, Type::String, false),
            (Type::type_of(Type::Int), Type::type_of(Type::String), true),
            (
                Type::optional(Type::Int),
                Type::optional(Type::String),
                false,
            ),
            (Type::optional(Type::Int), Type::optional(Type::Dyn), true),
            (obj("x"), obj("x"), true),
            (obj("x"), obj("y"), false),
            (a.clone(), Type::Int, true),
        ];
        for (t1, t2, want) in cases {
            let mut m = Mapping::new();
            assert_eq!(m.is_assignable(&t1, &t2), want, "{t1} <- {t2}");
        }
    }

    #[test]
    fn type_params_bind_and_roll_back() {
        let a = Type::param("A");
        let mut m = Mapping::new();
        assert!(m.is_assignable_list(&[Type::Int, Type::Int], &[a.clone(), a.clone()]));
        assert_eq!(m.substitute(&a, false), Type::Int);
        let mut m = Mapping::new();
        assert!(!m.is_assignable_list(&[Type::Int, Type::String], &[a.clone(), a.clone()]));
        assert!(m.find(&a).is_none(), "failed test leaves no binding");
        // dyn widens the binding: int then dyn gives dyn.
        let mut m = Mapping::new();
        assert!(m.is_assignable_list(&[Type::Int, Type::Dyn], &[a.clone(), a.clone()]));
        assert_eq!(m.substitute(&a, false), Type::Dyn);
        // Unbound parameters become dyn only when asked.
        let m = Mapping::new();
        assert_eq!(
            m.substitute(&Type::list(a.clone()), true),
            Type::list(Type::Dyn)
        );
        assert_eq!(m.substitute(&Type::list(a.clone()), false), Type::list(a));
    }

    #[test]
    fn most_general_prefers_less_specific() {
        assert_eq!(most_general(&Type::Int, &Type::Dyn), &Type::Dyn);
        assert_eq!(most_general(&Type::Dyn, &Type::Int), &Type::Dyn);
        let l = Type::list(Type::param("_var0"));
        assert_eq!(most_general(&l, &Type::list(Type::Int)), &l);
        assert_eq!(most_general(&Type::Int, &Type::Int), &Type::Int);
    }
}
