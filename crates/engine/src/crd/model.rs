//! The typed model of an `apiextensions.k8s.io/v1` CustomResourceDefinition, read from a
//! value tree without losing positions.
//!
//! Reading is lenient: a field of the wrong type is reported where it is written (as the
//! server's decoder would refuse it) and the rest of the CRD is still read, so later checks
//! can run on what is there.

use crate::documents::document::{Node, Value};
use crate::documents::finding::{Finding, Location, SourceId};
use crate::documents::position::Span;
use crd_studio_gostd::strconv::quote as go_quote;

/// The only API version of CRDs the server still serves.
pub const CRD_API_VERSION: &str = "apiextensions.k8s.io/v1";

/// A string with the span it was written at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Str {
    /// The value.
    pub value: String,
    /// Where it is written.
    pub span: Span,
}

/// `spec.names`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Names {
    /// `plural`.
    pub plural: Option<Str>,
    /// `singular`.
    pub singular: Option<Str>,
    /// `kind`.
    pub kind: Option<Str>,
    /// `listKind`.
    pub list_kind: Option<Str>,
    /// `shortNames`.
    pub short_names: Vec<Str>,
    /// `categories`.
    pub categories: Vec<Str>,
}

/// One entry of `spec.versions`.
#[derive(Clone, Debug, PartialEq)]
pub struct Version {
    /// `name`.
    pub name: Str,
    /// `served`.
    pub served: bool,
    /// `storage`.
    pub storage: bool,
    /// `deprecated`.
    pub deprecated: bool,
    /// `deprecationWarning`.
    pub deprecation_warning: Option<Str>,
    /// Where `schema.openAPIV3Schema` is written.
    pub schema: Option<Span>,
    /// Where `subresources` is written.
    pub subresources: Option<Span>,
    /// Where `additionalPrinterColumns` is written.
    pub additional_printer_columns: Option<Span>,
    /// Where `selectableFields` is written.
    pub selectable_fields: Option<Span>,
    /// Where the whole entry is written.
    pub span: Span,
}

/// A CustomResourceDefinition.
#[derive(Clone, Debug, PartialEq)]
pub struct Crd {
    /// The YAML document it came from.
    pub document: usize,
    /// Where the whole document is.
    pub span: Span,
    /// `metadata.name`.
    pub name: Option<Str>,
    /// `spec.group`.
    pub group: Option<Str>,
    /// `spec.names`.
    pub names: Names,
    /// `spec.scope`.
    pub scope: Option<Str>,
    /// `spec.versions`.
    pub versions: Vec<Version>,
    /// Where `spec.conversion` is written.
    pub conversion: Option<Span>,
    /// `spec.preserveUnknownFields`.
    pub preserve_unknown_fields: bool,
}

impl Crd {
    /// `None` when this CRD serves `apiVersion` (its group, one of its served versions);
    /// otherwise why not, in words. A wrong `kind` is a validation error, not this.
    pub fn serves(&self, api_version: &str) -> Option<String> {
        let group = self.group.as_ref().map(|g| g.value.as_str()).unwrap_or("");
        let (g, v) = api_version.split_once('/').unwrap_or(("", api_version));
        let served: Vec<String> = self
            .versions
            .iter()
            .filter(|ver| ver.served)
            .map(|ver| format!("{group}/{}", ver.name.value))
            .collect();
        if g == group && served.iter().any(|s| s == api_version) {
            return None;
        }
        let serves = if served.is_empty() {
            "this CRD serves no version".to_owned()
        } else {
            format!("this CRD serves {}", served.join(", "))
        };
        let problem = if api_version.is_empty() {
            "the object has no apiVersion".to_owned()
        } else if g != group {
            format!(
                "apiVersion {}: group {} is not this CRD's group {}",
                go_quote(api_version),
                go_quote(g),
                go_quote(group)
            )
        } else if self.versions.iter().any(|ver| ver.name.value == v) {
            format!(
                "apiVersion {}: version {} is not served (served: false)",
                go_quote(api_version),
                go_quote(v)
            )
        } else {
            format!(
                "apiVersion {}: version {} is not a version of this CRD",
                go_quote(api_version),
                go_quote(v)
            )
        };
        Some(format!("{problem}; {serves}"))
    }
}

struct Reader {
    document: usize,
    findings: Vec<Finding>,
}

impl Reader {
    fn loc(&self, span: Span) -> Location {
        Location {
            source: SourceId::Crd,
            document: self.document,
            span,
        }
    }

    fn type_error(&mut self, node: &Node, path: &str, want: &str) {
        let f = Finding::error(
            "crd.decode",
            format!(
                "json: cannot unmarshal {} into Go struct field {path} of type {want}",
                node.value.go_json_kind()
            ),
        )
        .with_field(path);
        let loc = self.loc(node.span);
        self.findings.push(f.at(loc));
    }

    fn string(&mut self, parent: &Node, key: &str, path: &str) -> Option<Str> {
        let node = parent.get(key)?;
        match &node.value {
            Value::String(s) => Some(Str {
                value: s.clone(),
                span: node.span,
            }),
            Value::Null => None,
            _ => {
                self.type_error(node, &format!("{path}.{key}"), "string");
                None
            }
        }
    }

    fn boolean(&mut self, parent: &Node, key: &str, path: &str) -> bool {
        match parent.get(key).map(|n| (n, &n.value)) {
            Some((_, Value::Bool(b))) => *b,
            Some((_, Value::Null)) | None => false,
            Some((node, _)) => {
                self.type_error(node, &format!("{path}.{key}"), "bool");
                false
            }
        }
    }

    fn strings(&mut self, parent: &Node, key: &str, path: &str) -> Vec<Str> {
        let Some(node) = parent.get(key) else {
            return Vec::new();
        };
        match &node.value {
            Value::Seq(items) => items
                .iter()
                .filter_map(|item| match &item.value {
                    Value::String(s) => Some(Str {
                        value: s.clone(),
                        span: item.span,
                    }),
                    _ => {
                        self.type_error(item, &format!("{path}.{key}"), "string");
                        None
                    }
                })
                .collect(),
            Value::Null => Vec::new(),
            _ => {
                self.type_error(node, &format!("{path}.{key}"), "[]string");
                Vec::new()
            }
        }
    }

    fn object<'n>(&mut self, parent: &'n Node, key: &str, path: &str) -> Option<&'n Node> {
        let node = parent.get(key)?;
        match &node.value {
            Value::Map(_) => Some(node),
            Value::Null => None,
            _ => {
                self.type_error(node, &format!("{path}.{key}"), "object");
                None
            }
        }
    }
}

/// Reads a CRD from a document's root. Returns the model (when the document is a v1 CRD)
/// and what was found on the way.
pub fn read(root: &Node, document: usize) -> (Option<Crd>, Vec<Finding>) {
    let mut r = Reader {
        document,
        findings: Vec::new(),
    };
    if !matches!(root.value, Value::Map(_)) {
        let loc = r.loc(root.span);
        r.findings.push(
            Finding::error(
                "crd.not-an-object",
                format!(
                    "json: cannot unmarshal {} into Go value of type v1.CustomResourceDefinition",
                    root.value.go_json_kind()
                ),
            )
            .at(loc),
        );
        return (None, r.findings);
    }
    let api_version = root.get("apiVersion").and_then(Node::as_str).unwrap_or("");
    let kind = root.get("kind").and_then(Node::as_str).unwrap_or("");
    if kind != "CustomResourceDefinition" || api_version != CRD_API_VERSION {
        let span = root
            .entry("kind")
            .or_else(|| root.entry("apiVersion"))
            .map(|e| e.value.span)
            .unwrap_or(root.span);
        let message =
            if kind.is_empty() {
                "Object 'Kind' is missing: the CRD text must be a CustomResourceDefinition \
             (apiVersion: apiextensions.k8s.io/v1)"
                    .to_owned()
            } else if kind == "CustomResourceDefinition" {
                format!(
                    "no matches for kind \"CustomResourceDefinition\" in version {}: the server \
                 only serves CustomResourceDefinitions as {CRD_API_VERSION}",
                    go_quote(api_version)
                )
            } else {
                format!(
                "this document is a {} ({}), not a CustomResourceDefinition ({CRD_API_VERSION})",
                kind,
                if api_version.is_empty() { "no apiVersion" } else { api_version }
            )
            };
        let loc = r.loc(span);
        r.findings
            .push(Finding::error("crd.not-a-crd", message).at(loc));
        return (None, r.findings);
    }
    let name = root
        .get("metadata")
        .and_then(|m| r.string(m, "name", "metadata"));
    let spec_node = r.object(root, "spec", "CustomResourceDefinition");
    let empty = Node {
        value: Value::Map(Vec::new()),
        span: root.span,
    };
    let spec = spec_node.unwrap_or(&empty);
    let group = r.string(spec, "group", "spec");
    let scope = r.string(spec, "scope", "spec");
    let names = match r.object(spec, "names", "spec") {
        Some(n) => Names {
            plural: r.string(n, "plural", "spec.names"),
            singular: r.string(n, "singular", "spec.names"),
            kind: r.string(n, "kind", "spec.names"),
            list_kind: r.string(n, "listKind", "spec.names"),
            short_names: r.strings(n, "shortNames", "spec.names"),
            categories: r.strings(n, "categories", "spec.names"),
        },
        None => Names::default(),
    };
    let mut versions = Vec::new();
    if let Some(list) = spec.get("versions") {
        match &list.value {
            Value::Seq(items) => {
                for item in items {
                    if !matches!(item.value, Value::Map(_)) {
                        r.type_error(item, "spec.versions", "v1.CustomResourceDefinitionVersion");
                        continue;
                    }
                    let path = "spec.versions";
                    let name = r.string(item, "name", path).unwrap_or(Str {
                        value: String::new(),
                        span: item.span,
                    });
                    let schema = r
                        .object(item, "schema", path)
                        .and_then(|s| r.object(s, "openAPIV3Schema", "spec.versions.schema"))
                        .map(|n| n.span);
                    versions.push(Version {
                        served: r.boolean(item, "served", path),
                        storage: r.boolean(item, "storage", path),
                        deprecated: r.boolean(item, "deprecated", path),
                        deprecation_warning: r.string(item, "deprecationWarning", path),
                        subresources: r.object(item, "subresources", path).map(|n| n.span),
                        additional_printer_columns: item
                            .get("additionalPrinterColumns")
                            .map(|n| n.span),
                        selectable_fields: item.get("selectableFields").map(|n| n.span),
                        schema,
                        name,
                        span: item.span,
                    });
                }
            }
            Value::Null => {}
            _ => r.type_error(
                list,
                "spec.versions",
                "[]v1.CustomResourceDefinitionVersion",
            ),
        }
    }
    let conversion = r.object(spec, "conversion", "spec").map(|n| n.span);
    let preserve_unknown_fields = r.boolean(spec, "preserveUnknownFields", "spec");
    let crd = Crd {
        document,
        span: root.span,
        name,
        group,
        names,
        scope,
        versions,
        conversion,
        preserve_unknown_fields,
    };
    (Some(crd), r.findings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::document::parse;

    fn read_text(text: &str) -> (Option<Crd>, Vec<Finding>) {
        let p = parse(text, SourceId::Crd);
        match p.documents.first().and_then(|d| d.root.as_ref()) {
            Some(root) => read(root, 0),
            None => (None, p.findings),
        }
    }

    #[test]
    fn reads_a_crd() {
        let (crd, findings) = read_text(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: crontabs.stable.example.com\nspec:\n  group: stable.example.com\n  scope: Namespaced\n  names:\n    plural: crontabs\n    kind: CronTab\n    shortNames: [ct]\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n",
        );
        assert!(findings.is_empty(), "{findings:?}");
        let Some(crd) = crd else { panic!("no model") };
        assert_eq!(
            crd.name.map(|n| n.value),
            Some("crontabs.stable.example.com".into())
        );
        assert_eq!(crd.names.short_names.len(), 1);
        let v = crd.versions.first();
        assert_eq!(
            v.map(|v| (v.served, v.storage, v.schema.is_some())),
            Some((true, true, true))
        );
        assert_eq!(v.map(|v| v.name.span.start.line), Some(13));
    }

    #[test]
    fn not_a_crd() {
        let (crd, findings) = read_text("apiVersion: v1\nkind: ConfigMap\n");
        assert!(crd.is_none());
        assert_eq!(
            findings.first().map(|f| f.code.as_str()),
            Some("crd.not-a-crd")
        );
        let (_, findings) =
            read_text("apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n");
        assert!(findings
            .first()
            .is_some_and(|f| f.message.contains("no matches for kind")));
    }

    #[test]
    fn wrong_types_are_located() {
        let (crd, findings) = read_text(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  versions:\n  - name: v1\n    served: \"yes\"\n",
        );
        assert!(crd.is_some());
        let f = findings.first();
        assert_eq!(
            f.and_then(|f| f.location).map(|l| l.span.start.line),
            Some(6)
        );
        assert!(f.is_some_and(|f| f.message.contains("cannot unmarshal string")));
    }
}
