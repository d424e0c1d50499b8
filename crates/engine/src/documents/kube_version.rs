//! The Kubernetes versions the engine models: what a server of each minor does differently.
//!
//! A version is a *server* minor (`1.37`). From it follow:
//! - the CEL compatibility version new expressions compile at, and the formats CRD schemas
//!   know (`environment.DefaultCompatibilityVersion()`: hard-coded `1.29` in the 1.30
//!   server, the effective version's `MinCompatibilityVersion()`, one minor behind, since
//!   1.31);
//! - the default of each apiextensions feature gate the engine models
//!   (`apiextensions-apiserver/pkg/features/kube_features.go`).
//!
//! `Options::kubernetes_version` (the studio's "Kubernetes version" select,
//! `--kubernetes-version`, the embed's `kubernetes-version`) is a server minor, 1.30 to 1.37
//! (default 1.37). Blank or unknown text means the default in the engine (the CLI refuses it,
//! listing the modelled versions). The modelled differences and their upstream sources:
//!
//! | what | how it differs | upstream source |
//! | --- | --- | --- |
//! | CEL environment of new expressions (CRD rules) | compiled at compatibility version = server minor − 1; each library from its `IntroducedVersion`: `ip`/`cidr` (compat 1.30, server 1.31), `format`, `authorizer` selectors and keywords as field names (1.31 → 1.32), two-variable comprehensions (1.32 → 1.33), `semver` v1 (1.33 → 1.34), `ext.Lists` v3 (`sort`, `first`, `range`…, 1.34 → 1.35); `kubernetes.lists` v1 (1.37) arrives only with a 1.38 server | `apiserver/pkg/cel/environment/base.go` (`DefaultCompatibilityVersion`: hard-coded 1.29 in v0.30, `MinCompatibilityVersion()` since v0.31), `crates/cel/src/decls.rs` `KUBERNETES_BASE_OPTIONS` |
//! | formats of CRD schemas | `k8s-short-name`, `k8s-long-name` from compatibility 1.34 (server 1.35); before, the format is stripped and any string passes | `apiextensions-apiserver/pkg/apiserver/validation/formats.go` (`supportedVersionedFormats`, at `DefaultCompatibilityVersion()`) |
//! | `CustomResourceFieldSelectors` | off in 1.30 (alpha): `selectableFields` dropped on create (`dropDisabledFields`), an info finding `crd.feature-gate-off` at each; on from 1.31 | `apiextensions-apiserver/pkg/features/kube_features.go`, `pkg/registry/customresourcedefinition/strategy.go` |
//! | `CRDValidationRatcheting` | on in every modelled version (beta 1.30, GA 1.33): no difference | same `kube_features.go` |
//! | ObjectMeta's published schema (`crd-studio explain`, the Explain tab) | no difference in what `kubectl explain` prints: the descriptions of ObjectMeta, OwnerReference, ManagedFieldsEntry, Time and FieldsV1 are the same from 1.30 to 1.37 (only `default`s of some items and fields differ, which kubectl does not print), so the newest text is used for all | `apiextensions-apiserver/pkg/generated/openapi/zz_generated.openapi.go` at kubernetes-1.30.0 … 1.36.0 and master (July 2026) |
//!
//! Not modelled: `CRDObservedGenerationTracking` (1.35 beta off, 1.36 on: the CRD's own
//! status, which the engine does not produce); the strict cost of library calls
//! (`StrictCostOpt`, added to the runtime cost in 1.31 servers); message texts that changed
//! between minors (none found for the modelled checks).

pub use crd_studio_cel::version::KubernetesVersion;

/// An apiextensions feature gate whose default differs between modelled versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureGate {
    /// `CRDValidationRatcheting`: alpha 1.28 (off), beta 1.30 (on), GA 1.33 (the engine
    /// ratchets in every modelled version; only the tests ask).
    #[cfg(test)]
    CrdValidationRatcheting,
    /// `CustomResourceFieldSelectors`: alpha 1.30 (off), beta 1.31 (on), GA 1.32.
    CustomResourceFieldSelectors,
}

impl FeatureGate {
    /// The gate's name as the server spells it.
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(test)]
            FeatureGate::CrdValidationRatcheting => "CRDValidationRatcheting",
            FeatureGate::CustomResourceFieldSelectors => "CustomResourceFieldSelectors",
        }
    }

    /// The first minor whose default is on.
    fn on_since(self) -> u32 {
        match self {
            #[cfg(test)]
            FeatureGate::CrdValidationRatcheting => 30,
            FeatureGate::CustomResourceFieldSelectors => 31,
        }
    }

    /// Whether the gate is on by default in a server of this version.
    pub fn enabled_in(self, version: KubernetesVersion) -> bool {
        version.minor >= self.on_since()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_by_version() {
        let v = KubernetesVersion::new;
        assert!(!FeatureGate::CustomResourceFieldSelectors.enabled_in(v(30)));
        assert!(FeatureGate::CustomResourceFieldSelectors.enabled_in(v(31)));
        assert!(FeatureGate::CrdValidationRatcheting.enabled_in(v(30)));
    }
}
