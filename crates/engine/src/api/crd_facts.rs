//! What the shells read of a compiled CRD's spec besides the analysis: its name, scope,
//! declared versions and conversion strategy (the CLI's `get` and `convert`, the page's
//! previews and Explain tab).

use crate::{CompiledCrd, Strategy};

/// A version as the CRD's `spec.versions` declares it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeclaredVersion {
    /// `name`.
    pub name: String,
    /// `served`.
    pub served: bool,
    /// `storage`.
    pub storage: bool,
}

/// The facts of a readable CRD (see [`CompiledCrd::facts`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrdFacts {
    /// `metadata.name`.
    pub name: String,
    /// `spec.scope` is `Namespaced`.
    pub namespaced: bool,
    /// `spec.versions`, in the CRD's order.
    pub versions: Vec<DeclaredVersion>,
    /// `spec.conversion.strategy`.
    pub strategy: Strategy,
}

impl CompiledCrd {
    /// The CRD's name, scope, versions and conversion strategy as the server holds them;
    /// `None` when the text is no readable CustomResourceDefinition.
    pub fn facts(&self) -> Option<CrdFacts> {
        let crd = self.internal()?;
        Some(CrdFacts {
            name: crd.metadata.name.clone(),
            namespaced: crd.spec.scope == "Namespaced",
            versions: crd
                .spec
                .versions
                .iter()
                .map(|v| DeclaredVersion {
                    name: v.name.clone(),
                    served: v.served,
                    storage: v.storage,
                })
                .collect(),
            strategy: Strategy::of(crd),
        })
    }

    /// Whether any version has a structural schema (completion and hover need one).
    pub fn has_structural_schema(&self) -> bool {
        self.compiled_versions()
            .iter()
            .any(|v| v.structural.is_some())
    }
}
