//! One CRD across Kubernetes versions: its verdict (create) at each modelled minor, the
//! oldest minor from which every later one accepts it, and the first error that differs from
//! the newest minor's, said in one line ("accepted by 1.31–1.37; 1.30 rejects: …").
//!
//! [`VersionSpan::from_verdicts`] and [`VersionSpan::line`] are the one implementation: the
//! CLI feeds them its runs at each `--kubernetes-version`, the studio's worker
//! [`CompiledCrd::verdict_at`] one version per step after the CRD's reply.
//!
//! [`CompiledCrd::verdict_at`] checks again only what can differ at the version
//! ([`CompiledCrd::recheck_plan`], `api/version_gates.rs`): the rule sites whose expressions
//! name a version-gated CEL function, macro or type (compiled again alone and compared with
//! the compile's), and the field-selector gate for a CRD with `selectableFields`. Only when
//! something does differ is CRD validation run again whole at that version (no reports, no
//! cost analyses, no samples). A CRD whose rules name nothing gated (argo-workflows' 32
//! rules) has every version's verdict from the one compile; so has one without rules or
//! selectable fields ([`CompiledCrd::depends_on_version`]) and one rejected for what no
//! version changes (parse, decode, printer-column errors).

use super::version_gates::{self, Gates, RecheckPlan};
use crate::crd::apiext;
use crate::documents::finding::Severity;
use crate::documents::kube_version::{FeatureGate, KubernetesVersion};
use crate::report::analysis::CompiledCrd;

/// The CRD's verdict at one version.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VersionVerdict {
    /// The version.
    pub version: KubernetesVersion,
    /// Whether a server of that version accepts the CRD.
    pub accepted: bool,
    /// Its errors in plain words (each finding's summary, else its message's first line).
    pub errors: Vec<String>,
}

/// One CRD across versions (see the module's documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VersionSpan {
    /// The versions, oldest first.
    pub versions: Vec<KubernetesVersion>,
    /// The verdict at each version.
    pub accepted: Vec<bool>,
    /// The oldest version at and after which every later one accepts the CRD.
    pub oldest: Option<KubernetesVersion>,
    /// The first version (oldest first) whose errors differ from the newest's, and the first
    /// error that differs.
    pub first_difference: Option<(KubernetesVersion, String)>,
}

impl VersionSpan {
    /// The span of verdicts given oldest first (the newest is the reference).
    pub fn from_verdicts(verdicts: &[VersionVerdict]) -> VersionSpan {
        let versions: Vec<KubernetesVersion> = verdicts.iter().map(|v| v.version).collect();
        let accepted: Vec<bool> = verdicts.iter().map(|v| v.accepted).collect();
        // The oldest version from which every later one accepts.
        let from = accepted.iter().rposition(|a| !a).map_or(0, |i| i + 1);
        let oldest = versions.get(from).copied();
        let empty = Vec::new();
        let reference = verdicts.last().map_or(&empty, |v| &v.errors);
        let first_difference = verdicts.iter().find_map(|v| {
            v.errors
                .iter()
                .find(|m| !reference.contains(m))
                .or_else(|| reference.iter().find(|m| !v.errors.contains(m)))
                .map(|m| (v.version, m.clone()))
        });
        VersionSpan {
            versions,
            accepted,
            oldest,
            first_difference,
        }
    }

    /// Whether every version accepts the CRD.
    pub fn all_accepted(&self) -> bool {
        self.accepted.iter().all(|a| *a)
    }

    /// The one line: `accepted by 1.31–1.37; 1.30 rejects: …`. When the newest version
    /// rejects the CRD and an older one accepts it: `rejected by 1.31–1.37; 1.30 differs: …`
    /// (the versions after the newest that accepts).
    pub fn line(&self) -> String {
        let range = |a: KubernetesVersion, b: KubernetesVersion| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        };
        let first = self.versions.first().copied();
        let last = self.versions.last().copied();
        let mut out = match (self.oldest, first, last) {
            (None, _, Some(l)) => {
                let after = self.accepted.iter().rposition(|a| *a).map(|i| i + 1);
                match after.and_then(|i| self.versions.get(i)) {
                    Some(r) => format!("rejected by {}", range(*r, l)),
                    None => "rejected by every version checked".to_owned(),
                }
            }
            (None, _, None) => "rejected by every version checked".to_owned(),
            (Some(o), Some(f), Some(l)) if o == f => format!("accepted by {}", range(f, l)),
            (Some(o), _, Some(l)) => format!("accepted by {}", range(o, l)),
            (Some(o), _, None) => format!("accepted by {o}"),
        };
        if let Some((v, message)) = &self.first_difference {
            let i = self.versions.iter().position(|x| x == v);
            let verdict = i
                .and_then(|i| self.accepted.get(i))
                .copied()
                .unwrap_or(true);
            out.push_str(&format!(
                "; {v} {}: {message}",
                if verdict { "differs" } else { "rejects" }
            ));
        }
        out
    }

    /// This span with its first difference said shortly when it is a CEL name that arrived
    /// in a later version (`isIP needs 1.31`, from the CEL crate's table): for the studio's
    /// line, where the server's whole message is one click away.
    pub fn with_short_difference(mut self) -> VersionSpan {
        if let Some((v, message)) = &mut self.first_difference {
            if let Some(note) = crate::authoring::assist::version_note::note_for(message, *v) {
                *message = format!("{} needs {}", note.name, note.available_from);
            }
        }
        self
    }
}

/// A finding's words for comparing versions: its summary, else its message's first line.
fn plain(summary: Option<&str>, message: &str) -> String {
    summary.map_or_else(
        || message.lines().next().unwrap_or("").to_owned(),
        ToOwned::to_owned,
    )
}

impl CompiledCrd {
    /// Whether the CRD's verdict may differ between versions: its text has CEL rules
    /// (`x-kubernetes-validations`) or `selectableFields`, and it decoded without errors that
    /// every version gives alike. Otherwise [`CompiledCrd::verdict_at`] copies this compile's.
    pub fn depends_on_version(&self) -> bool {
        let text = self.text();
        (text.contains("x-kubernetes-validations") || text.contains("selectableFields"))
            && self.internal().is_some()
            && !self
                .findings()
                .iter()
                .any(|f| f.severity == Severity::Error && f.code != "crd.invalid")
    }

    /// What [`CompiledCrd::verdict_at`] checks again at other versions: the rule sites that
    /// name something version-gated, and the field-selector gate when the CRD has
    /// `selectableFields` (see `api/version_gates.rs`). Computed from the compile, without
    /// compiling anything.
    pub fn recheck_plan(&self) -> RecheckPlan {
        let compiled_at = self.options().kubernetes_version;
        let uniform = RecheckPlan {
            compiled_at,
            uniform: true,
            ..RecheckPlan::default()
        };
        let text = self.text();
        let has_rules = text.contains("x-kubernetes-validations");
        let selectable_fields = text.contains("selectableFields");
        let Some(internal) = self.internal() else {
            return uniform;
        };
        let (sites, whole) = if has_rules {
            match (
                self.validation_memo(),
                version_gates::gated_sites(internal, Gates::modelled()),
            ) {
                (Some(_), Some(sites)) => (sites, false),
                _ => (Vec::new(), true),
            }
        } else {
            (Vec::new(), false)
        };
        if sites.is_empty() && !whole && !selectable_fields {
            return uniform;
        }
        RecheckPlan {
            compiled_at,
            uniform: false,
            sites,
            selectable_fields,
            whole,
        }
    }

    /// Whether a compile at `version` gives this compile's errors, to the letter (CRD
    /// validation, as a create or as this compile's update): nothing in `plan` differs there.
    /// Compiles only the plan's rule sites at `version`; `false` when they compile otherwise
    /// or the version is on the other side of the field-selector gate with
    /// `selectableFields` (then only a compile at `version` tells).
    pub fn same_verdict_at(&self, plan: &RecheckPlan, version: KubernetesVersion) -> bool {
        if !plan.needs_recheck(version) {
            return true;
        }
        if plan.whole_at(version) {
            return false;
        }
        let (Some(internal), Some((_, records))) = (self.internal(), self.validation_memo()) else {
            return false;
        };
        version_gates::sites_compile_alike(internal, &plan.sites, records, version)
    }

    /// The CRD's verdict (create) at `version` ([`CompiledCrd::verdict_at_with`] with this
    /// compile's [`CompiledCrd::recheck_plan`]).
    pub fn verdict_at(&self, version: KubernetesVersion) -> VersionVerdict {
        self.verdict_at_with(&self.recheck_plan(), version)
    }

    /// The CRD's verdict (create) at `version`: this compile's when the verdict cannot depend
    /// on the version ([`CompiledCrd::depends_on_version`]) or `plan` finds nothing that
    /// differs there ([`CompiledCrd::same_verdict_at`]); else CRD validation run again at
    /// that version, with the rest of this compile's findings.
    pub fn verdict_at_with(
        &self,
        plan: &RecheckPlan,
        version: KubernetesVersion,
    ) -> VersionVerdict {
        if version == self.options().kubernetes_version || !self.depends_on_version() {
            return self.compiled_verdict(version);
        }
        let errors = if self.same_verdict_at(plan, version) {
            self.validation_errors()
                .unwrap_or_else(|| self.validation_errors_at(version))
        } else {
            self.validation_errors_at(version)
        };
        VersionVerdict {
            version,
            accepted: errors.is_empty(),
            errors,
        }
    }

    /// This compile's CRD validation errors in plain words, in validation's order: what
    /// [`CompiledCrd::validation_errors_at`] gives at a version where nothing differs.
    fn validation_errors(&self) -> Option<Vec<String>> {
        let (errors, _) = self.validation_memo()?;
        let v1 = self.v1_json()?;
        Some(
            errors
                .iter()
                .map(|e| e.summary(&apiext::v1_path(&e.field, Some(&v1)).to_string()))
                .collect(),
        )
    }

    /// The compile's own verdict.
    fn compiled_verdict(&self, version: KubernetesVersion) -> VersionVerdict {
        let errors: Vec<String> = self
            .findings()
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| plain(f.summary.as_deref(), &f.message))
            .collect();
        VersionVerdict {
            version,
            accepted: errors.is_empty(),
            errors,
        }
    }

    /// CRD validation's errors at `version` (the compile's own steps: decode, the gate's
    /// dropped fields, validation with the version's CEL compiler), in plain words.
    fn validation_errors_at(&self, version: KubernetesVersion) -> Vec<String> {
        let Some(v1) = self.v1_json() else {
            return Vec::new();
        };
        let (mut icrd, _) = apiext::from_v1_json(v1.as_ref());
        if !FeatureGate::CustomResourceFieldSelectors.enabled_in(version) {
            icrd.spec.selectable_fields.clear();
            for v in &mut icrd.spec.versions {
                v.selectable_fields.clear();
            }
        }
        let default_rules = crate::cel::validator::DefaultsRules::new();
        let defaults = apiext::defaults::DefaultsValidation {
            cel: Some(&default_rules),
            ..apiext::defaults::DefaultsValidation::without_cel()
        };
        let cel = crate::cel::RuleCompiler::new(version);
        let cache = apiext::StructuralCache::new();
        let errors = apiext::validate_create_with_cache(
            &icrd,
            apiext::Hooks {
                cel: Some(&cel),
                defaults: Some(&defaults),
            },
            &cache,
        );
        errors
            .iter()
            .map(|e| e.summary(&apiext::v1_path(&e.field, Some(&v1)).to_string()))
            .collect()
    }

    /// The CRD across every modelled version (oldest first), its difference said shortly
    /// ([`VersionSpan::with_short_difference`]): [`CompiledCrd::verdict_at`] at each.
    pub fn version_span(&self) -> VersionSpan {
        let plan = self.recheck_plan();
        let verdicts: Vec<VersionVerdict> = KubernetesVersion::all()
            .map(|v| self.verdict_at_with(&plan, v))
            .collect();
        VersionSpan::from_verdicts(&verdicts).with_short_difference()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::analysis::Options;

    fn v(minor: u32) -> KubernetesVersion {
        KubernetesVersion::new(minor)
    }

    fn verdict(minor: u32, errors: &[&str]) -> VersionVerdict {
        VersionVerdict {
            version: v(minor),
            accepted: errors.is_empty(),
            errors: errors.iter().map(|e| (*e).to_owned()).collect(),
        }
    }

    #[test]
    fn lines() {
        for (verdicts, want) in [
            (vec![verdict(30, &[])], "accepted by 1.30"),
            (
                vec![verdict(30, &[]), verdict(31, &[]), verdict(32, &[])],
                "accepted by 1.30–1.32",
            ),
            (
                vec![verdict(30, &["isIP"]), verdict(31, &[]), verdict(32, &[])],
                "accepted by 1.31–1.32; 1.30 rejects: isIP",
            ),
            (
                vec![verdict(30, &["a"]), verdict(31, &["a"]), verdict(32, &[])],
                "accepted by 1.32; 1.30 rejects: a",
            ),
            (
                vec![verdict(30, &["a"]), verdict(31, &["a"])],
                "rejected by every version checked",
            ),
            (
                vec![verdict(30, &["old"]), verdict(31, &["new"])],
                "rejected by every version checked; 1.30 rejects: old",
            ),
            // Rejected by a newer version only: the oldest accepting is none after it.
            (
                vec![verdict(30, &[]), verdict(31, &["gone"])],
                "rejected by 1.31; 1.30 differs: gone",
            ),
            (
                vec![verdict(30, &[]), verdict(31, &["gone"]), verdict(32, &[])],
                "accepted by 1.32; 1.31 rejects: gone",
            ),
            (
                vec![verdict(30, &[]), verdict(31, &["x"]), verdict(32, &["x"])],
                "rejected by 1.31–1.32; 1.30 differs: x",
            ),
            (vec![], "rejected by every version checked"),
        ] {
            let span = VersionSpan::from_verdicts(&verdicts);
            assert_eq!(span.line(), want, "{verdicts:?}");
            assert_eq!(
                span.all_accepted(),
                verdicts.iter().all(|v| v.accepted),
                "{want}"
            );
        }
    }

    #[test]
    fn short_difference() {
        let m = "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: \
                 Invalid value: \"isIP(self.a)\": compilation failed: ERROR: <input>:1:1: \
                 undeclared reference to 'isIP' (in container '')";
        let span = VersionSpan::from_verdicts(&[verdict(30, &[m]), verdict(31, &[])]);
        assert_eq!(
            span.clone().with_short_difference().line(),
            "accepted by 1.31; 1.30 rejects: isIP needs 1.31"
        );
        // Not a CEL name: the message stays.
        let span = VersionSpan::from_verdicts(&[verdict(30, &["x"]), verdict(31, &[])]);
        assert_eq!(
            span.with_short_difference().line(),
            "accepted by 1.31; 1.30 rejects: x"
        );
    }

    fn crd(rule: &str, extra: &str) -> String {
        let rules = if rule.is_empty() {
            String::new()
        } else {
            format!("            x-kubernetes-validations:\n            - rule: \"{rule}\"\n")
        };
        format!(
            r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {{kind: Widget, plural: widgets}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
{extra}    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              a: {{type: string, maxLength: 20}}
              l: {{type: array, maxItems: 5, items: {{type: string, maxLength: 5}}}}
{rules}"#
        )
    }

    #[test]
    fn spans_of_crds() {
        let sf = "    selectableFields:\n    - jsonPath: .spec.b\n";
        for (text, compiled_at, depends, want) in [
            (
                crd("self.a.size() > 0", ""),
                37,
                true,
                "accepted by 1.30–1.37",
            ),
            (
                crd("isIP(self.a)", ""),
                37,
                true,
                "accepted by 1.31–1.37; 1.30 rejects: isIP needs 1.31",
            ),
            // Compiled at the old version: the same span.
            (
                crd("isIP(self.a)", ""),
                30,
                true,
                "accepted by 1.31–1.37; 1.30 rejects: isIP needs 1.31",
            ),
            (
                crd("self.l.all(i, x, x != '')", ""),
                37,
                true,
                "accepted by 1.33–1.37; 1.30 rejects: all needs 1.33",
            ),
            // A selectable field naming no field: 1.30 drops selectableFields (gate off).
            (
                crd("true", sf),
                37,
                true,
                "rejected by 1.31–1.37; 1.30 differs: ",
            ),
            // No rules, no selectable fields: nothing is validated again.
            (crd("", ""), 37, false, "accepted by 1.30–1.37"),
        ] {
            let options = Options {
                kubernetes_version: v(compiled_at),
                ..Options::default()
            };
            let compiled = CompiledCrd::compile(&text, &options);
            assert_eq!(compiled.depends_on_version(), depends, "{text}");
            let line = compiled.version_span().line();
            assert!(line.starts_with(want), "{line}\n{text}");
        }
    }

    /// The versions whose verdict needs a compile again, and how many rule sites each.
    fn rechecks(text: &str, compiled_at: u32) -> (Vec<u32>, usize, Vec<u32>) {
        let compiled = CompiledCrd::compile(
            text,
            &Options {
                kubernetes_version: v(compiled_at),
                ..Options::default()
            },
        );
        let plan = compiled.recheck_plan();
        let needs = KubernetesVersion::all()
            .filter(|v| plan.needs_recheck(*v))
            .map(|v| v.minor)
            .collect();
        let differ = KubernetesVersion::all()
            .filter(|v| !compiled.same_verdict_at(&plan, *v))
            .map(|v| v.minor)
            .collect();
        (needs, plan.sites(), differ)
    }

    #[test]
    fn only_what_depends_on_the_version_is_checked_again() {
        let others = |but: u32| (30..=37).filter(|m| *m != but).collect::<Vec<u32>>();
        let sf = "    selectableFields:\n    - jsonPath: .spec.a\n";
        for (text, compiled_at, want) in [
            // No rules: nothing.
            (crd("", ""), 37, (vec![], 0, vec![])),
            // Rules naming nothing version-gated (argo-workflows' kind): nothing either.
            (crd("self.a.size() > 0", ""), 37, (vec![], 0, vec![])),
            (crd("self.l.all(x, x != '')", ""), 37, (vec![], 0, vec![])),
            (
                crd("has(self.a) && self.a.matches('^[a-z]+$')", ""),
                30,
                (vec![], 0, vec![]),
            ),
            // isIP: its one site at every other version; only 1.30 differs.
            (crd("isIP(self.a)", ""), 37, (others(37), 1, vec![30])),
            (
                crd("isIP(self.a)", ""),
                30,
                (others(30), 1, (31..=37).collect()),
            ),
            // In a string only: not gated.
            (crd("self.a != 'isIP'", ""), 37, (vec![], 0, vec![])),
            (
                crd("self.l.all(i, x, x != '')", ""),
                37,
                (others(37), 1, vec![30, 31, 32]),
            ),
            // Selectable fields: 1.30 (gate off) validated again whole.
            (crd("", sf), 37, (vec![30], 0, vec![30])),
            (
                crd("", sf),
                30,
                ((31..=37).collect(), 0, (31..=37).collect()),
            ),
            (crd("self.a.size() > 0", sf), 35, (vec![30], 0, vec![30])),
        ] {
            assert_eq!(
                rechecks(&text, compiled_at),
                want,
                "1.{compiled_at}\n{text}"
            );
        }
    }

    #[test]
    fn a_version_found_alike_validates_alike() {
        // Where the plan finds nothing different, validating again gives the compile's
        // errors in the same order; where a rule site compiles otherwise, they do differ.
        let sf = "    selectableFields:\n    - jsonPath: .spec.a\n";
        for (rule, extra) in [
            ("isIP(self.a) && self.a.size() > 100", ""),
            ("self.l.all(i, x, x != '') || self.a.size() > 100", ""),
            ("semver(self.a).major() > 1", ""),
            ("self.a.size() > 0", sf),
            ("self.nope > 0", ""),
        ] {
            let text = crd(rule, extra);
            let compiled = CompiledCrd::compile(&text, &Options::default());
            let plan = compiled.recheck_plan();
            let own = compiled.validation_errors().expect("a memo");
            for version in KubernetesVersion::all() {
                let again = compiled.validation_errors_at(version);
                if compiled.same_verdict_at(&plan, version) {
                    assert_eq!(again, own, "{version} {rule}");
                } else if !plan.whole_at(version) {
                    assert_ne!(again, own, "{version} {rule}");
                }
            }
        }
    }

    #[test]
    fn verdict_at_the_compiled_version_is_the_compile() {
        // The version validated again gives what the compile at that version gives.
        let text = crd("isIP(self.a) && self.a.size() > 100", "");
        for minor in [30, 31, 37] {
            let at = CompiledCrd::compile(
                &text,
                &Options {
                    kubernetes_version: v(minor),
                    ..Options::default()
                },
            );
            let other = CompiledCrd::compile(&text, &Options::default());
            let mut want = at.compiled_verdict(v(minor));
            let mut got = other.validation_errors_at(v(minor));
            want.errors.sort();
            got.sort();
            assert_eq!(want.errors, got, "1.{minor}");
        }
    }
}
