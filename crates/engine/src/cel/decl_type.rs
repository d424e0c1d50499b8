//! The CEL type of a structural schema, as the API server declares it for
//! `x-kubernetes-validations` rules (`k8s.io/apiserver/pkg/cel/common.SchemaDeclType` over the
//! apiextensions structural-schema adaptor, then `DeclType.MaybeAssignTypeName`).
//!
//! * `x-kubernetes-int-or-string` is `dyn`; `x-kubernetes-preserve-unknown-fields` is ignored
//!   (an object without properties is an object type without fields).
//! * A resource root (the schema root and `x-kubernetes-embedded-resource` nodes) gets
//!   `apiVersion`, `kind` and `metadata` (with only `name` and `generateName`) added
//!   (`WithTypeAndObjectMeta`).
//! * `array` with items: `list(T)`; `object` with an `additionalProperties` schema:
//!   `map(string, T)`; `object` otherwise: an object type whose fields are the properties with
//!   escaped names (properties whose names cannot be escaped, or whose types are unknown, are
//!   left out); strings with format `byte`, `duration`, `date`/`date-time`: bytes, duration,
//!   timestamp; `boolean`, `integer`, `number`: bool, int, double. Anything else has no type.
//! * Object types are named from the root name down: `<root>.<field>`, `<list>.@idx`,
//!   `<map>.@elem`.

use std::collections::BTreeMap;

use cel_core::checker::CEL_RESERVED_SYMBOLS;
use cel_core::types::{ObjectType, Type};

use crate::apiext::CelStep;
use crate::schema::structural::{Generic, Structural};

/// How deep the conversion follows a schema (structural schemas from CRD text are bounded by
/// the document depth; this keeps the recursion bounded whatever the input).
const MAX_DEPTH: u32 = 512;

/// A declared type before naming (`apiservercel.DeclType`, the parts the checker needs).
#[derive(Clone, Debug, PartialEq)]
pub enum DeclType {
    /// A scalar (or `dyn`).
    Simple(Type),
    /// `list(elem)`.
    List(Box<DeclType>),
    /// `map(string, elem)`.
    Map(Box<DeclType>),
    /// An (unnamed) object with its escaped field names.
    Object(BTreeMap<String, DeclType>),
}

/// `apiservercel.Escape`: the CEL field name of a property, or `None` when it can't have one.
pub fn escape(ident: &str) -> Option<String> {
    let first = ident.bytes().next()?;
    if first.is_ascii_digit() {
        return None;
    }
    if CEL_RESERVED_SYMBOLS.contains(&ident) {
        return Some(format!("__{ident}__"));
    }
    let mut out = String::with_capacity(ident.len());
    let mut rest = ident;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("__") {
            out.push_str("__underscores__");
            rest = rest.get(2..).unwrap_or("");
            continue;
        }
        match c {
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            c => out.push(c),
        }
        rest = rest.get(c.len_utf8()..).unwrap_or("");
    }
    let mut chars = out.chars();
    let valid = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some(out)
}

/// `WithTypeAndObjectMeta`: the schema with `kind`, `apiVersion` and `metadata.{name,
/// generateName}` (unless it already declares them all as such).
fn with_type_and_object_meta(s: &Structural) -> std::borrow::Cow<'_, Structural> {
    fn ty(p: Option<&Structural>) -> &str {
        p.map(|p| p.generic.type_.as_str()).unwrap_or("")
    }
    let meta = s.properties.get("metadata");
    if !s.properties.is_empty()
        && ty(s.properties.get("kind")) == "string"
        && ty(s.properties.get("apiVersion")) == "string"
        && ty(meta) == "object"
        && meta.is_some_and(|m| {
            !m.properties.is_empty()
                && ty(m.properties.get("name")) == "string"
                && ty(m.properties.get("generateName")) == "string"
        })
    {
        return std::borrow::Cow::Borrowed(s);
    }
    let string = Structural {
        generic: Generic {
            type_: "string".to_owned(),
            ..Generic::default()
        },
        ..Structural::default()
    };
    let mut out = s.clone();
    out.properties.insert("kind".to_owned(), string.clone());
    out.properties
        .insert("apiVersion".to_owned(), string.clone());
    let mut meta_props = BTreeMap::new();
    meta_props.insert("name".to_owned(), string.clone());
    meta_props.insert("generateName".to_owned(), string);
    out.properties.insert(
        "metadata".to_owned(),
        Structural {
            generic: Generic {
                type_: "object".to_owned(),
                ..Generic::default()
            },
            properties: meta_props,
            ..Structural::default()
        },
    );
    std::borrow::Cow::Owned(out)
}

/// `SchemaDeclType(s, isResourceRoot)`: the declared type of a structural schema, `None` when
/// it has none.
pub fn schema_decl_type(s: &Structural, is_resource_root: bool) -> Option<DeclType> {
    decl(s, is_resource_root, 0)
}

fn decl(s: &Structural, is_resource_root: bool, depth: u32) -> Option<DeclType> {
    if depth > MAX_DEPTH {
        return None;
    }
    if s.extensions.x_int_or_string {
        return Some(DeclType::Simple(Type::Dyn));
    }
    let s = if is_resource_root {
        with_type_and_object_meta(s)
    } else {
        std::borrow::Cow::Borrowed(s)
    };
    match s.generic.type_.as_str() {
        "array" => {
            let items = s.items.as_deref()?;
            let t = decl(items, items.extensions.x_embedded_resource, depth + 1)?;
            Some(DeclType::List(Box::new(t)))
        }
        "object" => {
            if let Some(ap) = s
                .additional_properties
                .as_ref()
                .and_then(|a| a.structural.as_deref())
            {
                let t = decl(ap, ap.extensions.x_embedded_resource, depth + 1)?;
                return Some(DeclType::Map(Box::new(t)));
            }
            let mut fields = BTreeMap::new();
            for (name, prop) in &s.properties {
                if let Some(t) = decl(prop, prop.extensions.x_embedded_resource, depth + 1) {
                    if let Some(n) = escape(name) {
                        fields.insert(n, t);
                    }
                }
            }
            Some(DeclType::Object(fields))
        }
        "string" => {
            let format = s
                .value_validation
                .as_ref()
                .map(|v| v.format.as_str())
                .unwrap_or("");
            Some(DeclType::Simple(match format {
                "byte" => Type::Bytes,
                "duration" => Type::Duration,
                "date" | "date-time" => Type::Timestamp,
                _ => Type::String,
            }))
        }
        "boolean" => Some(DeclType::Simple(Type::Bool)),
        "number" => Some(DeclType::Simple(Type::Double)),
        "integer" => Some(DeclType::Simple(Type::Int)),
        _ => None,
    }
}

/// The type information of a node as `CELSchemaContext.TypeInfo` finds it: the scope root's
/// declared type followed along `steps` (the accessors), `None` when a step finds nothing.
pub fn follow<'s>(
    scope_root: &'s Structural,
    decl: DeclType,
    steps: &[CelStep],
) -> Option<(&'s Structural, DeclType)> {
    let mut schema = scope_root;
    let mut t = decl;
    for step in steps {
        match step {
            CelStep::Property(name) => {
                let prop = schema.properties.get(name)?;
                let DeclType::Object(mut fields) = t else {
                    return None;
                };
                t = fields.remove(&escape(name)?)?;
                schema = prop;
            }
            CelStep::Items => {
                let items = schema.items.as_deref()?;
                let DeclType::List(e) = t else { return None };
                t = *e;
                schema = items;
            }
            CelStep::AdditionalProperties => {
                let ap = schema
                    .additional_properties
                    .as_ref()
                    .and_then(|a| a.structural.as_deref())?;
                let DeclType::Map(e) = t else { return None };
                t = *e;
                schema = ap;
            }
        }
    }
    Some((schema, t))
}

impl DeclType {
    /// The CEL type with object types named from `name` down (`MaybeAssignTypeName`, then
    /// `CelType`).
    pub fn to_cel(&self, name: &str) -> Type {
        self.named(name, 0)
    }

    fn named(&self, name: &str, depth: u32) -> Type {
        if depth > MAX_DEPTH {
            return Type::Dyn;
        }
        match self {
            DeclType::Simple(t) => t.clone(),
            DeclType::List(e) => Type::list(e.named(&format!("{name}.@idx"), depth + 1)),
            DeclType::Map(e) => {
                Type::map(Type::String, e.named(&format!("{name}.@elem"), depth + 1))
            }
            DeclType::Object(fields) => Type::object(ObjectType::new(
                name,
                fields
                    .iter()
                    .map(|(f, t)| (f.clone(), t.named(&format!("{name}.{f}"), depth + 1)))
                    .collect(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape("foo").as_deref(), Some("foo"));
        assert_eq!(
            escape("a.b-c/d").as_deref(),
            Some("a__dot__b__dash__c__slash__d")
        );
        assert_eq!(escape("a__b").as_deref(), Some("a__underscores__b"));
        assert_eq!(escape("namespace").as_deref(), Some("__namespace__"));
        assert_eq!(escape("self").as_deref(), Some("self"));
        assert_eq!(escape("1a"), None);
        assert_eq!(escape(""), None);
        assert_eq!(escape("a b"), None);
        assert_eq!(escape("a@b"), None);
    }
}
