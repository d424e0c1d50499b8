//! The options of an embedded playground (`<crd-studio>` on a docs page, upgraded by
//! `static/crd-studio-embed.js`), and the [`StudioState`] they start it with.
//!
//! The script reads the element's attributes and hands them over as JSON; everything is
//! forgiving: an unknown tab or field validation mode falls back to the default (with a
//! note the script logs), so a typo in a docs page never leaves a blank box.

use crd_studio_engine::{FieldValidation, KubernetesVersion};
use serde::Deserialize;

use crate::studio_state::StudioState;

/// The tabs a studio can open on (`tab` attribute), as [`StudioState::tab`] names them.
pub const TABS: [&str; 7] = [
    "problems",
    "stored",
    "cel",
    "get",
    "conversion",
    "explain",
    "tests",
];

/// What the embed script passes to `mount_embed` as JSON (camelCase keys, all optional).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct EmbedOptions {
    /// The `tab` attribute: the tab the studio opens on.
    pub tab: String,
    /// The `field-validation` attribute: `Strict`, `Warn` or `Ignore` (any case).
    pub field_validation: String,
    /// The `kubernetes-version` attribute: a minor version such as `1.33`.
    pub kubernetes_version: String,
    /// `lock="crd"`: the CRD editor is read-only.
    pub lock_crd: bool,
    /// The URL of the full studio (`index.html` beside the script), for "Open in CRD Studio".
    pub open_url: String,
    /// The text of a `<script type="application/yaml" data-tests>` child: a test file (its
    /// `cases:`) whose cases fill the Tests tab.
    pub tests: String,
}

/// A studio's starting state from an embed's texts and options, and the notes about
/// attribute values that were not understood (and replaced by the default).
pub fn initial_state(
    crd: String,
    object: String,
    options: &EmbedOptions,
) -> (StudioState, Vec<String>) {
    let mut notes = Vec::new();
    let tab = options.tab.trim().to_ascii_lowercase();
    let tab = match tab.as_str() {
        "" => String::new(),
        // The tab's visible names, as a docs author may write them.
        "kubectl-get" | "kubectl get" => "get".to_owned(),
        "stored-object" | "stored object" => "stored".to_owned(),
        t if TABS.contains(&t) => tab,
        _ => {
            notes.push(format!(
                "tab=\"{}\" is not one of {}; opening on problems",
                options.tab,
                TABS.join(", ")
            ));
            String::new()
        }
    };
    let field_validation = match options.field_validation.trim() {
        "" => FieldValidation::Strict,
        text => FieldValidation::parse(text).unwrap_or_else(|_| {
            notes.push(format!(
                "field-validation=\"{}\" is not Strict, Warn or Ignore; using Strict",
                options.field_validation
            ));
            FieldValidation::Strict
        }),
    };
    let kubernetes_version = match options.kubernetes_version.trim() {
        "" => KubernetesVersion::default(),
        text => KubernetesVersion::parse(text).unwrap_or_else(|_| {
            notes.push(format!(
                "kubernetes-version=\"{}\" is not a version such as 1.33; using the default",
                options.kubernetes_version
            ));
            KubernetesVersion::default()
        }),
    };
    let state = StudioState {
        crd,
        object,
        tab,
        field_validation,
        kubernetes_version,
        ..StudioState::default()
    };
    (state, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(json: &str) -> EmbedOptions {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn options_become_the_starting_state() {
        let o = options(
            r#"{"tab":"CEL","fieldValidation":"warn","kubernetesVersion":"v1.31","lockCrd":true,"openUrl":"https://x/index.html"}"#,
        );
        assert!(o.lock_crd);
        let (s, notes) = initial_state("crd".into(), "obj".into(), &o);
        assert_eq!(notes, Vec::<String>::new());
        assert_eq!(s.tab, "cel");
        assert_eq!(s.field_validation, FieldValidation::Warn);
        assert_eq!(s.kubernetes_version, KubernetesVersion::new(31));
        assert_eq!((s.crd.as_str(), s.object.as_str()), ("crd", "obj"));
    }

    #[test]
    fn missing_and_unknown_values_take_the_defaults_with_a_note() {
        let (s, notes) = initial_state(String::new(), String::new(), &options("{}"));
        assert_eq!(s, StudioState::default());
        assert!(notes.is_empty());
        let o = options(
            r#"{"tab":"yaml","fieldValidation":"loose","kubernetesVersion":"latest","unknown":1}"#,
        );
        let (s, notes) = initial_state(String::new(), String::new(), &o);
        assert_eq!(s, StudioState::default());
        assert_eq!(notes.len(), 3, "{notes:?}");
        let (s, _) = initial_state(
            String::new(),
            String::new(),
            &options(r#"{"tab":"kubectl get"}"#),
        );
        assert_eq!(s.tab, "get");
    }
}
