//! The studio's note on a CEL name the selected Kubernetes version does not have yet: the
//! server says only "undeclared reference to 'isIP'"; the note adds "`isIP` is available
//! from Kubernetes 1.31 (selected: 1.30)" ([`Finding::newer_version`]), from the CEL crate's
//! table of when each library arrived (`crd_studio_cel::since`). The server's text stays.

use crd_studio_cel::since::available_from;
use crd_studio_cel::KubernetesVersion;

use crate::documents::finding::{Finding, VersionNote};

/// At most this many findings get a note (each looks at up to eight environments).
const MAX_NOTED: usize = 20;

/// The names of a message's "undeclared reference to 'NAME'" errors, in order, once each.
fn undeclared(message: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for rest in message.split("undeclared reference to '").skip(1) {
        if let Some(name) = rest.split('\'').next() {
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// The note for one finding's message at `selected`: its first undeclared name that a later
/// modelled version has.
pub fn note_for(message: &str, selected: KubernetesVersion) -> Option<VersionNote> {
    undeclared(message).into_iter().find_map(|name| {
        let from = available_from(name, selected)?;
        Some(VersionNote {
            name: name.to_owned(),
            available_from: from,
            selected,
            text: format!("`{name}` is available from Kubernetes {from} (selected: {selected})"),
        })
    })
}

/// Adds the notes to the findings whose message names an undeclared CEL reference.
pub fn add_version_notes(findings: &mut [Finding], selected: KubernetesVersion) {
    let mut noted = 0;
    for f in findings.iter_mut() {
        if noted >= MAX_NOTED {
            break;
        }
        if !f.message.contains("undeclared reference to '") {
            continue;
        }
        noted += 1;
        f.newer_version = note_for(&f.message, selected);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes() {
        let v30 = KubernetesVersion::new(30);
        let m = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].\
                 rule: Invalid value: \"isIP(self.a)\": compilation failed: ERROR: <input>:1:5: \
                 undeclared reference to 'isIP' (in container '')";
        let n = note_for(m, v30).unwrap();
        assert_eq!(
            n.text,
            "`isIP` is available from Kubernetes 1.31 (selected: 1.30)"
        );
        assert_eq!(n.available_from, KubernetesVersion::new(31));
        // The first name a later version has: a misspelt variable first is skipped.
        let m = "undeclared reference to 'k' (in container '') … undeclared reference to 'all' \
                 (in container '')";
        let n = note_for(m, KubernetesVersion::new(32)).unwrap();
        assert_eq!(n.name, "all");
        assert_eq!(n.available_from, KubernetesVersion::new(33));
        assert!(note_for(m, KubernetesVersion::new(33)).is_none());
        assert!(note_for("undeclared reference to 'selff'", v30).is_none());
        assert!(note_for("no such thing", v30).is_none());
    }

    /// Through the front door: the CRD's finding keeps the server's text and gets the note.
    #[test]
    fn compiled_findings_get_the_note() {
        let at = |minor: u32, rule: &str| {
            let crd = super::super::tests::CRD
                .replace("rule: self.replicas > 0", &format!("rule: {rule:?}"));
            let options = crate::Options {
                kubernetes_version: KubernetesVersion::new(minor),
                ..crate::Options::default()
            };
            crate::CompiledCrd::compile(&crd, &options)
                .findings()
                .iter()
                .find(|f| f.message.contains("undeclared reference"))
                .map(|f| (f.message.clone(), f.newer_version.clone()))
        };
        for (minor, rule, name, from) in [
            (30, "isIP(self.mode)", "isIP", 31),
            (
                31,
                "format.dns1123Label().validate(self.mode) == optional.none()",
                "format",
                32,
            ),
            (32, "self.tags.all(i, t, t != '')", "all", 33),
            (34, "self.tags.sort() == self.tags", "sort", 35),
        ] {
            let (message, note) = at(minor, rule).unwrap_or_else(|| panic!("{rule}: no error"));
            assert!(
                message.contains(&format!("undeclared reference to '{name}'")),
                "{message}"
            );
            let note = note.unwrap_or_else(|| panic!("{rule}: no note in {message}"));
            assert_eq!(note.name, name);
            assert_eq!(note.available_from, KubernetesVersion::new(from), "{rule}");
        }
        assert!(at(31, "isIP(self.mode)").is_none());
    }
}
