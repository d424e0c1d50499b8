//! The fix behind kubectl's "field label not supported": list the field in the version's
//! `selectableFields` (the page's `kubectl get` tab offers it under the selector's error).

use crate::authoring::assist::fixes_selectable;
use crate::documents::finding::TextEdit;

/// The insertion that adds `.{label}` (a field selector's label as kubectl names it, e.g.
/// `spec.color`) to the `selectableFields` of `version` in the CRD's YAML `text`; `None`
/// when the text has no obvious place for it (JSON, a flow-style version, already listed).
pub fn selectable_field_fix(text: &str, version: &str, label: &str) -> Option<TextEdit> {
    fixes_selectable::add_selectable_field(text, version, label)
}
