//! Which parts of a CRD's validation can differ between the modelled Kubernetes versions, so
//! that [`crate::CompiledCrd::verdict_at`] checks again only those ([`RecheckPlan`]).
//!
//! CRD validation (create) depends on the version in two places only
//! (`documents/kube_version.rs`): the CEL environment rules compile in (libraries arrive with
//! a compatibility version; from 1.32 a reserved word names a `__word__` property), and the
//! `CustomResourceFieldSelectors` gate (off in 1.30: `selectableFields` dropped). Formats do
//! not enter CRD validation (they differ for objects only).
//!
//! The names whose declarations differ between the environments of the modelled versions
//! ([`Gates`]) are found by building those environments and comparing them, never listed by
//! hand: functions (every `.`-part of a namespaced name), type identifiers, macros (by name,
//! argument count and receiver style), and the reserved-word switch. A rule site (a schema
//! node with `x-kubernetes-validations`) whose rules and message expressions mention none of
//! them (read with the CEL lexer: string literals never count) compiles alike at every
//! version; the others are compiled again at the version asked and compared with what CRD
//! validation compiled. A CRD whose rules name nothing version-gated (argo-workflows' 32
//! rules) has its whole span from the one compile.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use crd_studio_cel::checker::EnvBuilder;
use crd_studio_cel::decls::{kubernetes_options, EnvOption, EnvVersion, FunctionDecl};
use crd_studio_cel::lexer::{tokenize, Tok};

use crate::cel::rules_view::CompileRecords;
use crate::crd::apiext::hooks::CelStep;
use crate::crd::apiext::InternalCrd;
use crate::documents::kube_version::{FeatureGate, KubernetesVersion};
use crate::schema::props::{JsonSchemaProps, SchemaOrArray};

/// What differs between the CEL environments of the modelled versions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Gates {
    /// Identifiers declared differently: a mention may compile differently.
    names: BTreeSet<String>,
    /// Macros present in some versions only: name → (argument count, receiver style).
    macros: BTreeMap<String, BTreeSet<(usize, bool)>>,
    /// Whether a reserved word after `.` may name a field differently.
    keywords: bool,
    /// Whether something else differs (an operator, a checker or parser switch): every rule
    /// may compile differently.
    everything: bool,
}

/// One environment's declarations, for comparing.
#[derive(Default)]
struct Declared {
    functions: BTreeMap<String, FunctionDecl>,
    type_idents: BTreeSet<String>,
    macros: BTreeSet<(&'static str, usize, bool)>,
    /// The checker options without the reserved-word switch, the validators and the parser
    /// options without the macros, as text.
    rest: String,
    keywords: bool,
}

fn declared(version: KubernetesVersion) -> Declared {
    let env_version = EnvVersion::NewExpressions(version.compatibility());
    let env = EnvBuilder::kubernetes(env_version).build();
    let functions = env
        .functions()
        .iter()
        .map(|f| (f.name.clone(), f.clone()))
        .collect();
    let mut type_idents = BTreeSet::new();
    for o in kubernetes_options(env_version) {
        if let EnvOption::Library(lib) = o {
            type_idents.extend(lib.type_idents().into_iter().map(|(n, _)| n.to_owned()));
        }
    }
    let macros = env
        .parser_options()
        .macros
        .macros()
        .iter()
        .map(|m| m.signature())
        .collect();
    let mut options = *env.options();
    let keywords = options.recognize_keyword_as_field_name;
    options.recognize_keyword_as_field_name = false;
    let mut parser = env.parser_options().clone();
    parser.macros = crd_studio_cel::MacroSet::none();
    Declared {
        functions,
        type_idents,
        macros,
        rest: format!("{options:?} {:?} {parser:?}", env.validators()),
        keywords,
    }
}

/// Whether a function name is one the lexer reads as identifiers (`isIP`, `format.named`),
/// not an operator (`_+_`, `@in`).
fn identifier_like(name: &str) -> bool {
    !name.is_empty()
        && name
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

impl Gates {
    /// The differences between the environments of these versions.
    fn between(versions: &[KubernetesVersion]) -> Gates {
        let all: Vec<Declared> = versions.iter().map(|v| declared(*v)).collect();
        let mut gates = Gates::default();
        let Some(first) = all.first() else {
            return gates;
        };
        let mark = |name: &str, gates: &mut Gates| {
            if name.contains('@') {
                // A macro's helper (`@sortByAssociatedKeys`, `cel.@mapInsert`): no text names
                // it; its macro is gated.
            } else if identifier_like(name) {
                gates.names.extend(name.split('.').map(ToOwned::to_owned));
            } else {
                gates.everything = true;
            }
        };
        for d in &all {
            let names: BTreeSet<&String> =
                d.functions.keys().chain(first.functions.keys()).collect();
            for name in names {
                if d.functions.get(name) != first.functions.get(name) {
                    mark(name, &mut gates);
                }
            }
            for name in d.type_idents.symmetric_difference(&first.type_idents) {
                mark(name, &mut gates);
            }
            for (name, argc, receiver) in d.macros.symmetric_difference(&first.macros) {
                gates
                    .macros
                    .entry((*name).to_owned())
                    .or_default()
                    .insert((*argc, *receiver));
            }
            gates.keywords |= d.keywords != first.keywords;
            gates.everything |= d.rest != first.rest;
        }
        gates
    }

    /// The differences between the modelled versions (computed once).
    pub(crate) fn modelled() -> &'static Gates {
        static GATES: OnceLock<Gates> = OnceLock::new();
        GATES.get_or_init(|| {
            let versions: Vec<KubernetesVersion> = KubernetesVersion::all().collect();
            Gates::between(&versions)
        })
    }

    /// Whether an expression may compile differently between the versions: it mentions a
    /// gated name, calls a gated macro with its arity, selects a field named by a reserved
    /// word (when that differs), or does not lex.
    pub(crate) fn touches(&self, expression: &str) -> bool {
        if expression.is_empty() {
            return false;
        }
        if self.everything {
            return true;
        }
        let chars: Vec<char> = expression.chars().collect();
        let (tokens, errors) = tokenize(&chars);
        if !errors.is_empty() {
            return true;
        }
        let tokens: Vec<_> = tokens.into_iter().filter(|t| !t.hidden).collect();
        let text = |i: usize| -> String {
            tokens
                .get(i)
                .and_then(|t| chars.get(t.start..t.end))
                .map(|c| c.iter().collect())
                .unwrap_or_default()
        };
        let kinds: Vec<Tok> = tokens.iter().map(|t| t.kind).collect();
        let kind = |i: usize| kinds.get(i).copied();
        for i in 0..kinds.len() {
            let after_dot = i.checked_sub(1).and_then(kind) == Some(Tok::Dot)
                || (i >= 2 && kind(i - 1) == Some(Tok::Question) && kind(i - 2) == Some(Tok::Dot));
            match kind(i) {
                Some(Tok::Identifier) => {
                    let word = text(i);
                    if self.names.contains(&word) {
                        return true;
                    }
                    if self.keywords && crd_studio_cel::RESERVED_WORDS.contains(&word.as_str()) {
                        return true;
                    }
                    if let Some(signatures) = self.macros.get(&word) {
                        let receiver = i.checked_sub(1).and_then(kind) == Some(Tok::Dot);
                        match call_arity(&kinds, i) {
                            Some(Some(argc)) if signatures.contains(&(argc, receiver)) => {
                                return true
                            }
                            Some(None) => return true,
                            _ => {}
                        }
                    }
                }
                Some(Tok::In | Tok::True | Tok::False | Tok::Null)
                    if self.keywords && after_dot =>
                {
                    return true;
                }
                _ => {}
            }
        }
        false
    }
}

/// The argument count of the call whose name is token `at`: `None` when no `(` follows,
/// `Some(None)` when its parentheses do not close.
fn call_arity(kinds: &[Tok], at: usize) -> Option<Option<usize>> {
    if kinds.get(at + 1) != Some(&Tok::LParen) {
        return None;
    }
    let mut depth = 0usize;
    let mut commas = 0usize;
    let mut empty = true;
    for k in kinds.iter().skip(at + 1) {
        match k {
            Tok::LParen | Tok::LBracket | Tok::LBrace => {
                if depth > 0 {
                    empty = false;
                }
                depth += 1;
            }
            Tok::RParen | Tok::RBracket | Tok::RBrace => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(Some(if empty { 0 } else { commas + 1 }));
                }
            }
            Tok::Comma if depth == 1 => {
                commas += 1;
                empty = false;
            }
            Tok::Eof => break,
            _ => empty = false,
        }
    }
    Some(None)
}

/// A rule site to compile again at another version: its schema's root (a version's, or the
/// shared `spec.validation`), the steps to the node and the node's path (the key of
/// [`CompileRecords`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GatedSite {
    /// `Some(i)`: `spec.versions[i].schema`; `None`: `spec.validation`.
    version: Option<usize>,
    steps: Vec<CelStep>,
    path: String,
}

/// What [`crate::CompiledCrd::verdict_at`] must check again at other versions: the rule
/// sites naming something version-gated, and whether the CRD has `selectableFields` (then
/// the versions on the other side of the field-selector gate are validated again whole).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecheckPlan {
    /// The version compiled.
    pub(crate) compiled_at: KubernetesVersion,
    /// Nothing can differ: every version has the compile's verdict.
    pub(crate) uniform: bool,
    /// The sites to compile again.
    pub(crate) sites: Vec<GatedSite>,
    /// Whether the text has `selectableFields`.
    pub(crate) selectable_fields: bool,
    /// A gated rule is where the walk does not reach (or the compile left no records): every
    /// version but the compiled one is validated again whole.
    pub(crate) whole: bool,
}

impl RecheckPlan {
    /// Whether the verdict at `version` needs any CEL compile or validation again (`false`:
    /// it is the compile's).
    pub fn needs_recheck(&self, version: KubernetesVersion) -> bool {
        version != self.compiled_at
            && !self.uniform
            && (self.whole || !self.sites.is_empty() || self.gate_differs(version))
    }

    /// Whether `version` validates again whole: the field-selector gate differs from the
    /// compiled version's and the CRD has `selectableFields`, or the plan says so.
    pub(crate) fn whole_at(&self, version: KubernetesVersion) -> bool {
        version != self.compiled_at && !self.uniform && (self.whole || self.gate_differs(version))
    }

    fn gate_differs(&self, version: KubernetesVersion) -> bool {
        let gate = FeatureGate::CustomResourceFieldSelectors;
        self.selectable_fields && gate.enabled_in(version) != gate.enabled_in(self.compiled_at)
    }

    /// How many rule sites are compiled again at each version that needs it.
    pub fn sites(&self) -> usize {
        self.sites.len()
    }
}

/// The rule sites of a CRD's schemas (walked as CRD validation walks them: properties,
/// `items`, `additionalProperties`) whose expressions [`Gates::touches`]; `None` when some
/// node the walk does not reach has a gated rule.
pub(crate) fn gated_sites(crd: &InternalCrd, gates: &Gates) -> Option<Vec<GatedSite>> {
    let gated = |s: &JsonSchemaProps| {
        s.x_validations
            .iter()
            .any(|r| gates.touches(&r.rule) || gates.touches(&r.message_expression))
    };
    let mut schemas: Vec<(Option<usize>, String, &JsonSchemaProps)> = Vec::new();
    if let Some(s) = crd
        .spec
        .validation
        .as_ref()
        .and_then(|v| v.open_api_v3_schema.as_deref())
    {
        schemas.push((None, "spec.validation.openAPIV3Schema".to_owned(), s));
    }
    for (i, v) in crd.spec.versions.iter().enumerate() {
        if let Some(s) = v
            .schema
            .as_ref()
            .and_then(|v| v.open_api_v3_schema.as_deref())
        {
            schemas.push((
                Some(i),
                format!("spec.versions[{i}].schema.openAPIV3Schema"),
                s,
            ));
        }
    }
    let mut out = Vec::new();
    for (version, root_path, root) in schemas {
        // Every gated node anywhere in the schema (allOf, not, …), counted without
        // allocating: most schemas have none, and then nothing more is walked.
        let count = std::cell::Cell::new(0usize);
        crate::crd::apiext::schema_validation::schema_has(root, &|s| {
            if gated(s) {
                count.set(count.get() + 1);
            }
            false
        });
        if count.get() == 0 {
            continue;
        }
        let walked_before = out.len();
        let mut stack: Vec<(&JsonSchemaProps, Vec<CelStep>)> = vec![(root, Vec::new())];
        while let Some((node, steps)) = stack.pop() {
            if gated(node) {
                out.push(GatedSite {
                    version,
                    path: node_path(&root_path, &steps),
                    steps: steps.clone(),
                });
            }
            for (name, prop) in &node.properties {
                let mut s = steps.clone();
                s.push(CelStep::Property(name.clone()));
                stack.push((prop, s));
            }
            if let Some(SchemaOrArray::Schema(items)) = &node.items {
                let mut s = steps.clone();
                s.push(CelStep::Items);
                stack.push((items, s));
            }
            if let Some(ap) = node
                .additional_properties
                .as_ref()
                .and_then(|a| a.schema.as_deref())
            {
                let mut s = steps.clone();
                s.push(CelStep::AdditionalProperties);
                stack.push((ap, s));
            }
        }
        // The walk must reach every gated node.
        if count.get() != out.len() - walked_before {
            return None;
        }
    }
    Some(out)
}

/// The internal field path of a node (`…openAPIV3Schema.properties[spec].items`), as CRD
/// validation names the rule sites it compiles.
fn node_path(root: &str, steps: &[CelStep]) -> String {
    let mut out = root.to_owned();
    for step in steps {
        match step {
            CelStep::Property(name) => {
                out.push_str(".properties[");
                out.push_str(name);
                out.push(']');
            }
            CelStep::Items => out.push_str(".items"),
            CelStep::AdditionalProperties => out.push_str(".additionalProperties"),
        }
    }
    out
}

/// Whether every gated site compiles at `version` as CRD validation compiled it (`records`):
/// a site validation did not compile (its schema has errors) is not compiled at any version.
pub(crate) fn sites_compile_alike(
    crd: &InternalCrd,
    sites: &[GatedSite],
    records: &CompileRecords,
    version: KubernetesVersion,
) -> bool {
    let compiler = crate::cel::RuleCompiler::new(version);
    sites.iter().all(|site| {
        let Some(recorded) = records.get(&site.path) else {
            return true;
        };
        let root = match site.version {
            Some(i) => crd.spec.versions.get(i).and_then(|v| v.schema.as_ref()),
            None => crd.spec.validation.as_ref(),
        }
        .and_then(|s| s.open_api_v3_schema.as_deref());
        let Some(root) = root else {
            return false;
        };
        matches!(compiler.compile_at(root, &site.steps), Ok((c, _)) if c == *recorded)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_of_the_modelled_versions() {
        let g = Gates::modelled();
        assert!(!g.everything, "{g:?}");
        assert!(g.keywords);
        for name in ["isIP", "ip", "cidr", "format", "semver", "isSemver", "sort"] {
            assert!(g.names.contains(name), "{name}: {g:?}");
        }
        for name in [
            "size",
            "matches",
            "self",
            "has",
            "all",
            "exists",
            "quantity",
            "lowerAscii",
        ] {
            assert!(!g.names.contains(name), "{name}");
        }
        assert!(g.macros.get("all").is_some_and(|s| s.contains(&(3, true))));
        assert!(!g.macros.get("all").is_some_and(|s| s.contains(&(2, true))));
    }

    #[test]
    fn expressions_touching_a_gate() {
        let g = Gates::modelled();
        for (expression, want) in [
            ("self.a.size() > 0", false),
            ("", false),
            ("isIP(self.a)", true),
            ("ip(self.a).family() == 4", true),
            ("self.l.all(x, x != '')", false),
            ("self.l.all(i, x, x != '')", true),
            ("self.l.all(x, f(x, 1))", false),
            ("self.l.exists(x, [1, 2].all(y, y > 0))", false),
            ("self.m.transformMap(k, v, v + 1)", true),
            // Inside a string: not a mention.
            ("self.a == 'isIP'", false),
            ("\"%s\".format([self.a])", true),
            ("self.namespace == 'x'", true),
            ("has(self.?namespace)", true),
            ("self.x == true", false),
            ("self.a.matches('^[a-z]+$')", false),
            ("self.a.lowerAscii() == 'x'", false),
            // Does not lex: counted as touching.
            ("self.a == #", true),
        ] {
            assert_eq!(g.touches(expression), want, "{expression}");
        }
    }

    #[test]
    fn arities() {
        use Tok::*;
        for (kinds, want) in [
            (vec![Identifier, LParen, RParen], Some(Some(0))),
            (vec![Identifier, LParen, Identifier, RParen], Some(Some(1))),
            (
                vec![
                    Identifier, LParen, Identifier, Comma, LBracket, NumInt, Comma, NumInt,
                    RBracket, RParen,
                ],
                Some(Some(2)),
            ),
            (vec![Identifier, Dot], None),
            (vec![Identifier, LParen, Identifier, Eof], Some(None)),
        ] {
            assert_eq!(call_arity(&kinds, 0), want, "{kinds:?}");
        }
    }
}
