//! Compiled rules shared between rule validators ([`ProgramMemo`]).
//!
//! A CRD's compile builds several validators over the same rules: CRD validation checks
//! every `default` with a validator of the default's schema node (`ValidateDefaults`, one per
//! default, each compiling every rule below it), and each version's schema gets one for its
//! objects. A node's rules compile (`compile_programs`) to the same programs whenever they
//! meet the same `self` type, so the memo compiles each (rules, declared type) once and hands
//! out copies.
//!
//! What a copy cannot give is the `selfType<N>` name of the compile it skipped (the server
//! names each compile's type with the clock; CRD Studio counts, per compiler). The name shows
//! only in compile errors, or when a rule names the type itself: rules that failed to compile
//! are not kept (they are compiled again, and so reported as before), rules whose text holds
//! `selfType` are not looked up, and a copy still takes a number from the asking compiler,
//! so every later compile gets the name it had without the memo.

use std::cell::RefCell;
use std::collections::BTreeMap;

use super::super::decl_type::DeclType;
use super::super::{RuleCompiler, RuleProgram};
use crate::schema::props::ValidationRule;

/// One node's rules compiled against one declared type.
#[derive(Debug)]
struct Entry {
    rules: Vec<ValidationRule>,
    decl: DeclType,
    programs: Vec<RuleProgram>,
}

/// The rules already compiled (with the stored-expressions environment, which is the same
/// for every [`RuleCompiler::new`]), by (rules, declared type of `self`).
#[derive(Debug, Default)]
pub struct ProgramMemo {
    /// By the first rule's text.
    entries: RefCell<BTreeMap<String, Vec<Entry>>>,
}

impl ProgramMemo {
    /// An empty memo.
    pub fn new() -> ProgramMemo {
        ProgramMemo::default()
    }

    /// `compiler.compile_programs(rules, decl)`, or a copy of an earlier equal compile.
    pub(super) fn compile(
        &self,
        compiler: &RuleCompiler,
        rules: &[ValidationRule],
        decl: &DeclType,
    ) -> Vec<RuleProgram> {
        let Some(first) = rules.first() else {
            return Vec::new();
        };
        if !compiler.has_standard_envs() || rules.iter().any(names_self_type) {
            return compiler.compile_programs(rules, decl);
        }
        if let Some(kept) = self.entries.borrow().get(&first.rule).and_then(|es| {
            es.iter()
                .find(|e| e.rules == rules && e.decl == *decl)
                .map(|e| e.programs.clone())
        }) {
            // The number the skipped compile would have taken.
            let _ = compiler.type_name();
            return kept;
        }
        let programs = compiler.compile_programs(rules, decl);
        let clean = programs.iter().all(|p| {
            p.compilation.error.is_none() && p.compilation.message_expression_error.is_none()
        });
        if clean {
            self.entries
                .borrow_mut()
                .entry(first.rule.clone())
                .or_default()
                .push(Entry {
                    rules: rules.to_vec(),
                    decl: decl.clone(),
                    programs: programs.clone(),
                });
        }
        programs
    }
}

/// Whether a rule's expressions could name a `selfType<N>`.
fn names_self_type(rule: &ValidationRule) -> bool {
    rule.rule.contains("selfType") || rule.message_expression.contains("selfType")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cel::decl_type::schema_decl_type;
    use crate::cel::validator::{
        has_x_validations, DefaultsRules, ValidateOptions, Validator, PER_CALL_LIMIT,
        RUNTIME_CEL_COST_BUDGET,
    };
    use crate::crd::apiext::defaults::{DefaultsCel, DefaultsValidation};
    use crate::documents::field_error::FieldError;
    use crate::documents::kube_version::KubernetesVersion;
    use crate::documents::path::FieldPath;
    use crate::schema::{JsonSchemaProps, Structural};
    use serde_json::{json, Value as Json};
    use std::sync::Arc;

    fn structural(schema: Json) -> Structural {
        let (p, e) = JsonSchemaProps::from_json(&schema);
        assert!(e.is_empty(), "{e:?}");
        Structural::from_props(&p).unwrap()
    }

    fn decl(schema: Json) -> DeclType {
        schema_decl_type(&structural(schema), false).unwrap()
    }

    fn rule(text: &str) -> ValidationRule {
        ValidationRule {
            rule: text.to_owned(),
            ..ValidationRule::default()
        }
    }

    fn errors(ps: &[RuleProgram]) -> Vec<Option<String>> {
        ps.iter()
            .map(|p| p.compilation.error.as_ref().map(|(_, d)| d.clone()))
            .collect()
    }

    fn compiler() -> RuleCompiler {
        RuleCompiler::new(KubernetesVersion::DEFAULT)
    }

    /// Each case compiles (rules, type) pairs in order with and without the memo: the
    /// results (compile errors with their type names, costs, programs) are the same.
    #[test]
    fn same_results_as_compiling_each_time() {
        let obj = decl(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
        let other = decl(json!({"type": "object", "properties": {"a": {"type": "integer"}}}));
        let list = decl(json!({"type": "array", "maxItems": 3, "items": {"type": "string"}}));
        let good = vec![rule("self.a == 'x'")];
        // The error names the type: `(selfType<N>, int)`.
        let bad = vec![rule("self + 1 == 2")];
        let named = vec![rule("type(self) == selfType2")];
        let sized = vec![rule("self.all(x, x.size() < 10)")];
        type Calls<'a> = Vec<(&'a Vec<ValidationRule>, &'a DeclType)>;
        let cases: Vec<(&str, Calls<'_>)> = vec![
            ("repeat", vec![(&good, &obj), (&good, &obj), (&good, &obj)]),
            (
                "other type",
                vec![(&good, &obj), (&good, &other), (&good, &obj)],
            ),
            (
                "error names",
                vec![(&good, &obj), (&bad, &obj), (&good, &obj), (&bad, &obj)],
            ),
            (
                "named type",
                vec![(&good, &obj), (&named, &obj), (&named, &obj)],
            ),
            (
                "costs",
                vec![(&sized, &list), (&good, &obj), (&sized, &list)],
            ),
        ];
        for (name, calls) in cases {
            let plain = compiler();
            let shared = compiler();
            let memo = ProgramMemo::new();
            for (i, (rules, d)) in calls.iter().enumerate() {
                let want = plain.compile_programs(rules, d);
                let got = memo.compile(&shared, rules, d);
                assert_eq!(errors(&got), errors(&want), "{name} #{i}");
                for (g, w) in got.iter().zip(&want) {
                    assert_eq!(g.compilation, w.compilation, "{name} #{i}");
                    assert_eq!(g.program.is_some(), w.program.is_some(), "{name} #{i}");
                }
            }
            assert_eq!(shared.type_name(), plain.type_name(), "{name}: next name");
        }
        let e = errors(&memo_twice(&bad, &obj));
        assert!(
            e.iter().flatten().all(|d| d.contains("selfType")),
            "the error names the type: {e:?}"
        );
    }

    fn memo_twice(rules: &[ValidationRule], d: &DeclType) -> Vec<RuleProgram> {
        let memo = ProgramMemo::new();
        let c = compiler();
        memo.compile(&c, rules, d);
        memo.compile(&c, rules, d)
    }

    #[test]
    fn equal_compiles_are_kept_once() {
        let obj = decl(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
        let memo = ProgramMemo::new();
        let c = compiler();
        let rules = vec![rule("self.a == 'x'"), rule("self.a != 'y'")];
        memo.compile(&c, &rules, &obj);
        memo.compile(&c, &rules, &obj);
        memo.compile(&c, &[rule("self + 1 == 2")], &obj);
        memo.compile(&c, &[rule("self == selfType1")], &obj);
        let kept: usize = memo.entries.borrow().values().map(Vec::len).sum();
        assert_eq!(kept, 1);
    }

    /// The defaults' CEL check as it was: a validator compiled afresh for each default.
    struct Fresh(RuleCompiler);

    impl DefaultsCel for Fresh {
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
            let v = Validator::with_compiler(
                &self.0,
                Arc::new(schema.clone()),
                is_resource_root,
                PER_CALL_LIMIT,
            )?;
            let out = v.validate(path, value, old, budget, ValidateOptions::default());
            Some((out.errors, out.remaining_budget))
        }
    }

    fn defaults_findings(cel: &dyn DefaultsCel, s: &Structural, budget: i64) -> Vec<String> {
        let v = DefaultsValidation {
            cel: Some(cel),
            ..DefaultsValidation::without_cel()
        };
        v.validate_with_budget(&FieldPath::new("schema"), s, true, true, budget)
            .unwrap()
            .iter()
            .map(FieldError::error)
            .collect()
    }

    /// Defaults checked with shared compiles report what validators compiled afresh for each
    /// default report (paths, messages, order); so do the version's validator built after
    /// them from the same memo, and a budget that runs out midway.
    #[test]
    fn defaults_findings_are_those_of_fresh_validators() {
        let rule_on = |r: &str| json!([{"rule": r}]);
        let cases = [
            (
                "two defaults under a node with a rule, one invalid",
                json!({"type": "object", "properties": {"spec": {"type": "object",
                    "x-kubernetes-validations": rule_on("self.a != self.b"),
                    "default": {"a": "x", "b": "x"},
                    "properties": {
                        "a": {"type": "string", "default": "xa",
                            "x-kubernetes-validations": rule_on("self.startsWith('x')")},
                        "b": {"type": "string", "default": "yb",
                            "x-kubernetes-validations": rule_on("self.startsWith('x')")}}}}}),
                json!({"spec": {"a": "y", "b": "y"}}),
            ),
            (
                "list items with defaults, messageExpression and fieldPath",
                json!({"type": "object", "properties": {"list": {"type": "array",
                    "default": [{"n": 1}, {"n": 5}],
                    "items": {"type": "object", "default": {"n": 7},
                        "x-kubernetes-validations": [{"rule": "self.n < 4",
                            "messageExpression": "'n is ' + string(self.n)",
                            "fieldPath": ".n"}],
                        "properties": {"n": {"type": "integer", "default": 2}}}}}}),
                json!({"list": [{"n": 9}]}),
            ),
            (
                "a rule that does not compile, met by several defaults",
                json!({"type": "object", "properties": {"o": {"type": "object",
                    "default": {"p": {"q": "v"}},
                    "properties": {"p": {"type": "object", "default": {"q": "w"},
                        "x-kubernetes-validations": rule_on("self + 1 == 2"),
                        "properties": {"q": {"type": "string", "default": "z",
                            "x-kubernetes-validations": rule_on("self != 'z'")}}}}}}}),
                json!({"o": {"p": {"q": "z"}}}),
            ),
            (
                "transition rules with optionalOldSelf",
                json!({"type": "object", "properties": {"t": {"type": "object",
                    "default": {"v": 1},
                    "x-kubernetes-validations": [{"rule": "oldSelf.hasValue() || self.v > 2",
                        "optionalOldSelf": true}],
                    "properties": {"v": {"type": "integer", "default": 3,
                        "x-kubernetes-validations": rule_on("self > 2")}}}}}),
                json!({"t": {"v": 0}}),
            ),
        ];
        for (name, schema, object) in cases {
            let s = structural(schema);
            for budget in [RUNTIME_CEL_COST_BUDGET, 3, 0] {
                let fresh = Fresh(compiler());
                let shared = DefaultsRules::new();
                let want = defaults_findings(&fresh, &s, budget);
                let got = defaults_findings(&shared, &s, budget);
                assert_eq!(got, want, "{name}, budget {budget}");
                if budget == RUNTIME_CEL_COST_BUDGET {
                    assert!(!want.is_empty(), "{name}: the case finds something");
                }
            }
            // The version's validator after the defaults' checks.
            let shared = DefaultsRules::new();
            defaults_findings(&shared, &s, RUNTIME_CEL_COST_BUDGET);
            let s = Arc::new(s);
            let version = compiler();
            let with_memo =
                Validator::with_memo(&version, shared.programs(), s.clone(), true, PER_CALL_LIMIT)
                    .unwrap();
            let fresh = Validator::with_compiler(&compiler(), s, true, PER_CALL_LIMIT).unwrap();
            let run = |v: &Validator| -> Vec<String> {
                let out = v.validate(
                    &FieldPath::root(),
                    &object,
                    None,
                    RUNTIME_CEL_COST_BUDGET,
                    ValidateOptions::default(),
                );
                out.errors.iter().map(FieldError::error).collect()
            };
            let want = run(&fresh);
            assert_eq!(run(&with_memo), want, "{name}: object");
            assert!(!want.is_empty(), "{name}: the object fails");
        }
    }
}
