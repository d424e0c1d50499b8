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
//! ARCHITECTURE.md lists the modelled differences with their upstream sources.

pub use cel_core::version::{KubernetesVersion, NEWEST_MINOR, OLDEST_MINOR};

/// An apiextensions feature gate whose default differs between modelled versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureGate {
    /// `CRDValidationRatcheting`: alpha 1.28 (off), beta 1.30 (on), GA 1.33.
    CrdValidationRatcheting,
    /// `CustomResourceFieldSelectors`: alpha 1.30 (off), beta 1.31 (on), GA 1.32.
    CustomResourceFieldSelectors,
}

impl FeatureGate {
    /// The gate's name as the server spells it.
    pub fn name(self) -> &'static str {
        match self {
            FeatureGate::CrdValidationRatcheting => "CRDValidationRatcheting",
            FeatureGate::CustomResourceFieldSelectors => "CustomResourceFieldSelectors",
        }
    }

    /// The first minor whose default is on.
    fn on_since(self) -> u32 {
        match self {
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
