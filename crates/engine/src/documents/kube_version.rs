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

use std::fmt;

/// A Kubernetes server minor version the engine models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubernetesVersion {
    /// The minor version (the major is 1).
    pub minor: u32,
}

/// The oldest modelled minor.
pub const OLDEST_MINOR: u32 = 30;
/// The newest modelled minor (the default).
pub const NEWEST_MINOR: u32 = 37;

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
}

impl KubernetesVersion {
    /// The default: the newest modelled server, 1.37.
    pub const DEFAULT: KubernetesVersion = KubernetesVersion {
        minor: NEWEST_MINOR,
    };

    /// Every modelled version, oldest first.
    pub fn all() -> impl DoubleEndedIterator<Item = KubernetesVersion> {
        (OLDEST_MINOR..=NEWEST_MINOR).map(|minor| KubernetesVersion { minor })
    }

    /// The modelled versions as text, oldest first (`1.30, 1.31, …`).
    pub fn list() -> String {
        KubernetesVersion::all()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Reads `1.34`, `v1.34` or `1.34.2` (the patch is ignored); a version the engine does
    /// not model is an error naming those it does.
    pub fn parse(text: &str) -> Result<KubernetesVersion, String> {
        let t = text.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let mut parts = t.split('.');
        let major = parts.next().and_then(|p| p.parse::<u32>().ok());
        let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
        let patch_ok = match parts.next() {
            None => true,
            Some(p) => p.parse::<u32>().is_ok() && parts.next().is_none(),
        };
        match (major, minor) {
            (Some(1), Some(minor))
                if patch_ok && (OLDEST_MINOR..=NEWEST_MINOR).contains(&minor) =>
            {
                Ok(KubernetesVersion { minor })
            }
            _ => Err(format!(
                "unsupported Kubernetes version {:?}: the modelled versions are {}",
                text,
                KubernetesVersion::list()
            )),
        }
    }

    /// [`parse`](Self::parse), or the default when blank or not modelled.
    pub fn parse_or_default(text: &str) -> KubernetesVersion {
        KubernetesVersion::parse(text).unwrap_or(KubernetesVersion::DEFAULT)
    }

    /// The compatibility version new CEL expressions compile at and CRD formats are
    /// checked at: one minor behind the server.
    pub fn compatibility_minor(self) -> u32 {
        self.minor.saturating_sub(1)
    }

    /// [`compatibility_minor`](Self::compatibility_minor) as `1.N`.
    pub fn compatibility_version(self) -> String {
        format!("1.{}", self.compatibility_minor())
    }

    /// Whether the gate is on by default in this version.
    pub fn gate_enabled(self, gate: FeatureGate) -> bool {
        self.minor >= gate.on_since()
    }
}

impl Default for KubernetesVersion {
    fn default() -> Self {
        KubernetesVersion::DEFAULT
    }
}

impl fmt::Display for KubernetesVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_modelled_versions_only() {
        for (text, want) in [
            ("1.37", Some(37)),
            ("v1.30", Some(30)),
            ("1.33.4", Some(33)),
            (" 1.31 ", Some(31)),
            ("1.29", None),
            ("1.38", None),
            ("2.30", None),
            ("latest", None),
            ("", None),
            ("1.30.x", None),
        ] {
            assert_eq!(
                KubernetesVersion::parse(text).ok().map(|v| v.minor),
                want,
                "{text}"
            );
        }
        assert_eq!(
            KubernetesVersion::parse("1.29").unwrap_err(),
            "unsupported Kubernetes version \"1.29\": the modelled versions are \
             1.30, 1.31, 1.32, 1.33, 1.34, 1.35, 1.36, 1.37"
        );
        assert_eq!(KubernetesVersion::parse_or_default("x").minor, 37);
    }

    #[test]
    fn compatibility_and_gates() {
        let v = |minor| KubernetesVersion { minor };
        assert_eq!(v(37).compatibility_version(), "1.36");
        assert_eq!(v(30).compatibility_version(), "1.29");
        assert!(!v(30).gate_enabled(FeatureGate::CustomResourceFieldSelectors));
        assert!(v(31).gate_enabled(FeatureGate::CustomResourceFieldSelectors));
        assert!(v(30).gate_enabled(FeatureGate::CrdValidationRatcheting));
    }
}
