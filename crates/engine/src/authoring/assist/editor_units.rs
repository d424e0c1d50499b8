//! Completion and hover in a browser editor's units: the cursor and the answer's ranges are
//! UTF-16 offsets (what JavaScript strings and the editors count), converted here from and to
//! the byte offsets [`complete`] and [`hover`] work in, so the shells count nothing.

use crate::documents::position::{byte_offset, utf16_offset};
use crate::report::analysis::CompiledCrd;

use super::{complete, hover, Completions, Editor, Hover};

/// [`complete`] at UTF-16 offset `offset` of `text`, its ranges in UTF-16 offsets.
pub fn complete_utf16(
    crd: &CompiledCrd,
    editor: Editor,
    text: &str,
    offset: usize,
) -> Option<Completions> {
    let mut c = complete(crd, editor, text, byte_offset(text, offset))?;
    c.from = utf16_offset(text, c.from);
    c.to = utf16_offset(text, c.to);
    c.comma_at = c.comma_at.map(|b| utf16_offset(text, b));
    Some(c)
}

/// [`hover`] at UTF-16 offset `offset` of `text`, its range in UTF-16 offsets.
pub fn hover_utf16(crd: &CompiledCrd, editor: Editor, text: &str, offset: usize) -> Option<Hover> {
    let mut h = hover(crd, editor, text, byte_offset(text, offset))?;
    h.from = utf16_offset(text, h.from);
    h.to = utf16_offset(text, h.to);
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;

    const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: the spec
            properties:
              cronSpec: {type: string, description: when}
";

    /// A line with characters of 2 and 4 bytes (1 and 2 UTF-16 units) before the word: the
    /// ranges are the word's in UTF-16 units.
    #[test]
    fn ranges_in_utf16_units() {
        let crd = CompiledCrd::compile(CRD, &Options::default());
        let text =
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: é😀\nspec:\n  cron";
        let units = text.encode_utf16().count();
        let c = complete_utf16(&crd, Editor::Object, text, units).unwrap();
        assert!(c.items.iter().any(|i| i.label == "cronSpec"), "{c:?}");
        assert_eq!((c.from, c.to), (units - 4, units));
        // Hover on `spec`: its key, in units.
        let at = text.find("spec:").unwrap();
        let at_units = text[..at].encode_utf16().count();
        let h = hover_utf16(&crd, Editor::Object, text, at_units + 1).unwrap();
        assert_eq!((h.from, h.to), (at_units, at_units + 4), "{h:?}");
    }
}
