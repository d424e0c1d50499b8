//! The front door's help for a whole repository of manifests (the CLI's `check PATH...`): a
//! file's documents with their values and where each one is, and the file's text with only
//! some documents left in it, so that the engine analyses those documents against one CRD and
//! every [`Location`](crate::Location) it gives still points into the file as written.

use std::ops::Range;

use crate::documents::document;
use crate::{Finding, SourceId};

/// A text's documents (YAML, possibly several, or JSON), read once: their values, the
/// problems reading them, and each document's byte range.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DocumentTexts {
    /// Each document that has a value: its index in the text (0-based, as YAML counts
    /// documents) and its JSON.
    pub values: Vec<(usize, serde_json::Value)>,
    /// Syntax errors, limits, duplicate keys, YAML 1.1 surprises (located in `source`).
    pub findings: Vec<Finding>,
    /// Every document read (with a value or not): its index and byte range.
    spans: Vec<(usize, Range<usize>)>,
}

impl DocumentTexts {
    /// Reads the documents of `text`; findings are located in `source`.
    pub fn read(text: &str, source: SourceId) -> DocumentTexts {
        Self::read_with(text, source, document::Node::to_json)
    }

    /// Like [`read`](Self::read), but each value holds only the fields that name a document
    /// (`apiVersion`, `kind`, `metadata.name`, `metadata.namespace`, `spec.group`,
    /// `spec.names.kind`), each as written, so a repository's 3 MB CRDs are not turned into
    /// JSON only to be matched; a document that is not an object gets `null`. The documents,
    /// findings and ranges are those of `read`.
    pub fn read_heads(text: &str, source: SourceId) -> DocumentTexts {
        Self::read_with(text, source, head_json)
    }

    /// The documents of `text`, each value as `value` makes it from the document's root.
    fn read_with(
        text: &str,
        source: SourceId,
        value: fn(&document::Node) -> serde_json::Value,
    ) -> DocumentTexts {
        let parsed = document::parse(text, source);
        DocumentTexts {
            values: parsed
                .values()
                .map(|(doc, root)| (doc.index, value(root)))
                .collect(),
            spans: parsed
                .documents
                .iter()
                .map(|d| (d.index, d.span.start.offset..d.span.end.offset))
                .collect(),
            findings: parsed.findings,
        }
    }

    /// The byte range of document `index`, when it was read.
    pub fn range(&self, index: usize) -> Option<Range<usize>> {
        self.spans
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, r)| r.clone())
    }

    /// `text` (the text these documents were read from) with every document but those whose
    /// index is in `keep` blanked: each of their bytes but line breaks and document markers
    /// (`---`, `...` at a line's start) becomes a space. Byte offsets, lines, columns and
    /// document indices stay as they were, so findings about the kept documents are located
    /// in `text`; a blanked document is empty and has no value.
    pub fn keep_only(&self, text: &str, keep: &[usize]) -> String {
        let mut bytes = text.as_bytes().to_vec();
        for (index, span) in &self.spans {
            if keep.contains(index) {
                continue;
            }
            let end = span.end.min(bytes.len());
            let mut at = span.start.min(end);
            // A first document without a `---` before it would no longer count once blank
            // (the next `---` would start document 0): it becomes an empty `---` document.
            let first = !text
                .get(..at)
                .unwrap_or_default()
                .lines()
                .any(|l| is_marker(l.as_bytes()));
            if first && end - at >= 3 && !is_marker(bytes.get(at..).unwrap_or_default()) {
                if let Some(head) = bytes.get_mut(at..at + 3) {
                    if !head.contains(&b'\n') && !head.contains(&b'\r') {
                        head.copy_from_slice(b"---");
                        at += 3;
                    }
                }
            }
            while at < end {
                let line_start = at == 0 || bytes.get(at - 1) == Some(&b'\n');
                if line_start && is_marker(bytes.get(at..).unwrap_or_default()) {
                    at += 3;
                    continue;
                }
                if let Some(b) = bytes.get_mut(at) {
                    if *b != b'\n' && *b != b'\r' {
                        *b = b' ';
                    }
                }
                at += 1;
            }
        }
        // Only whole characters were replaced, by ASCII spaces: still UTF-8.
        String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into())
    }
}

/// The fields of a document's root that name it (see [`DocumentTexts::read_heads`]).
fn head_json(root: &document::Node) -> serde_json::Value {
    if root.as_map().is_none() {
        return serde_json::Value::Null;
    }
    let mut out = serde_json::Map::new();
    let put = |out: &mut serde_json::Map<String, serde_json::Value>, path: &[&str]| {
        let mut at = root;
        for key in path {
            match at.get(key) {
                Some(next) => at = next,
                None => return,
            }
        }
        let mut slot = out;
        let (last, parents) = match path.split_last() {
            Some(split) => split,
            None => return,
        };
        for key in parents {
            let entry = slot
                .entry((*key).to_owned())
                .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
            match entry {
                serde_json::Value::Object(map) => slot = map,
                _ => return,
            }
        }
        slot.insert((*last).to_owned(), at.to_json());
    };
    for path in [
        &["apiVersion"][..],
        &["kind"],
        &["metadata", "name"],
        &["metadata", "namespace"],
        &["spec", "group"],
        &["spec", "names", "kind"],
    ] {
        put(&mut out, path);
    }
    serde_json::Value::Object(out)
}

/// Whether `rest` (a line's start) is a document marker: `---` or `...` then a blank or the
/// line's end.
fn is_marker(rest: &[u8]) -> bool {
    (rest.starts_with(b"---") || rest.starts_with(b"..."))
        && matches!(rest.get(3), None | Some(b' ' | b'\t' | b'\n' | b'\r'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(usize, String)> {
        DocumentTexts::read(text, SourceId::Object(0))
            .values
            .into_iter()
            .map(|(i, v)| (i, v["kind"].as_str().unwrap_or("").to_owned()))
            .collect()
    }

    /// `read_heads` keeps exactly the naming fields of `read`'s values, as written, and the
    /// same documents, ranges and findings.
    #[test]
    fn heads_are_the_naming_fields_of_the_full_read() {
        let cases: &[(&str, &[&str])] = &[
            (
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
                 metadata: {name: a.example.com, labels: {x: y}}\n\
                 spec: {group: example.com, names: {kind: A, plural: as}, scope: Namespaced}\n",
                &[r#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"a.example.com"},"spec":{"group":"example.com","names":{"kind":"A"}}}"#],
            ),
            (
                "apiVersion: example.com/v1\nkind: A\nmetadata: {name: x, namespace: ns}\nspec: {a: 1}\n---\n- 1\n---\n---\nkind: 3\nmetadata: text\nspec: {names: []}\n",
                &[
                    r#"{"apiVersion":"example.com/v1","kind":"A","metadata":{"name":"x","namespace":"ns"}}"#,
                    "null",
                    r#"{"kind":3}"#,
                ],
            ),
            ("key: [unclosed\n", &[]),
        ];
        for (text, want) in cases {
            let heads = DocumentTexts::read_heads(text, SourceId::Object(0));
            let full = DocumentTexts::read(text, SourceId::Object(0));
            let got: Vec<String> = heads.values.iter().map(|(_, v)| v.to_string()).collect();
            assert_eq!(&got, want, "{text}");
            let indices = |d: &DocumentTexts| d.values.iter().map(|(i, _)| *i).collect::<Vec<_>>();
            assert_eq!(indices(&heads), indices(&full), "{text}");
            assert_eq!(heads.spans, full.spans, "{text}");
            assert_eq!(heads.findings, full.findings, "{text}");
        }
    }

    #[test]
    fn keeps_chosen_documents_in_place() {
        // (text, documents kept, the kinds read back with their document index)
        type Case<'a> = (&'a str, &'a [usize], &'a [(usize, &'a str)]);
        let cases: &[Case] = &[
            ("kind: A\n---\nkind: B\n---\nkind: C\n", &[1], &[(1, "B")]),
            ("---\nkind: A\n---\nkind: B\n", &[0], &[(0, "A")]),
            (
                "kind: A\n---\nkind: B\n...\n---\nkind: C\n",
                &[0, 2],
                &[(0, "A"), (2, "C")],
            ),
            ("kind: é\n---\nkind: B\n", &[1], &[(1, "B")]),
            (
                "kind: A\n---\nspec:\n  x: [1,\n    2]\n---\nkind: C\n",
                &[2],
                &[(2, "C")],
            ),
            ("{\"kind\": \"J\"}", &[], &[]),
            ("{\"kind\": \"J\"}", &[0], &[(0, "J")]),
            ("# c\nkind: A\n---\nkind: B\n", &[1], &[(1, "B")]),
        ];
        for (text, keep, want) in cases {
            let docs = DocumentTexts::read(text, SourceId::Object(0));
            let kept = docs.keep_only(text, keep);
            assert_eq!(kept.len(), text.len(), "{text:?}");
            assert_eq!(kept.lines().count(), text.lines().count(), "{text:?}");
            let want: Vec<(usize, String)> =
                want.iter().map(|(i, k)| (*i, (*k).to_owned())).collect();
            assert_eq!(kinds(&kept), want, "{text:?} keeping {keep:?}: {kept:?}");
        }
    }

    #[test]
    fn kept_documents_keep_their_findings_places() {
        let text = "kind: A\n---\nkind: B\nkind: B\n";
        let docs = DocumentTexts::read(text, SourceId::Object(0));
        let kept = docs.keep_only(text, &[1]);
        let again = DocumentTexts::read(&kept, SourceId::Object(0));
        assert_eq!(again.findings, docs.findings);
    }
}
