//! A compile for one use (the CLI's `check`): the result of [`CompiledCrd::compile`] (and
//! [`CompiledCrd::with_previous`]) with less kept for a later [`CompiledCrd::recompile`], so
//! that a large CRD's peak memory is lower.

use std::rc::Rc;

use crate::{CompiledCrd, Options, PreviousCrd};

impl CompiledCrd {
    /// [`CompiledCrd::compile`] then [`CompiledCrd::with_previous`], for a CRD text that is
    /// not edited afterwards: the same findings, reports and analyses, keeping the text given
    /// (not a copy) and not the CRD's v1 JSON (several times a large CRD's text). A
    /// [`CompiledCrd::recompile`] from it gives the right result, comparing the next
    /// revision's parse tree with the one kept.
    pub fn compile_once(
        text: String,
        options: &Options,
        previous: Option<Rc<PreviousCrd>>,
    ) -> CompiledCrd {
        let text: Rc<str> = Rc::from(text);
        let compiled =
            CompiledCrd::compile_once_without_fixes(Rc::clone(&text), options).with_crd_fixes();
        compiled.with_previous(&text, previous)
    }
}

#[cfg(test)]
mod tests {
    use crate::{CompiledCrd, Options};

    const VALID: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
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
            x-kubernetes-validations:
            - rule: self.size > 1
            properties:
              size: {type: integer, default: 3}
";

    const OBJECT: &str = "apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec: {size: 1}
";

    /// A CEL compile error (its v1 path built again), an unknown field, a bad default.
    fn invalid() -> String {
        VALID
            .replace("self.size > 1", "self.size > 'a'")
            .replace("scope: Namespaced", "scope: Namespaced\n  extra: 1")
            .replace("default: 3", "default: x")
    }

    #[test]
    fn compile_once_is_compile() {
        let options = Options::default();
        let codes: Vec<_> = CompiledCrd::compile_once(invalid(), &options, None)
            .findings()
            .iter()
            .map(|f| f.code.clone())
            .collect();
        assert!(
            codes.iter().any(|c| c == "crd.invalid")
                && codes.iter().any(|c| c == "crd.unknown-field"),
            "{codes:?}"
        );
        for text in [
            VALID.to_owned(),
            invalid(),
            String::new(),
            "kind: [".to_owned(),
        ] {
            let full = CompiledCrd::compile(&text, &options);
            let once = CompiledCrd::compile_once(text.clone(), &options, None);
            assert_eq!(once.findings(), full.findings(), "{text}");
            assert_eq!(once.text(), full.text());
            let objects = [OBJECT.to_owned()];
            assert_eq!(
                once.analyze_objects(&objects, None),
                full.analyze_objects(&objects, None),
                "{text}"
            );
            // The parse kept is what a recompile compares with: the content work of a CRD is
            // reused, to the same result.
            let again = once.recompile(&text, &options);
            assert_eq!(again.content_reused(), once.internal().is_some(), "{text}");
            assert_eq!(again.findings(), full.findings(), "{text}");
        }
    }
}
