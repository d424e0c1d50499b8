//! From the internal field paths the server reports back to the `apiextensions.k8s.io/v1`
//! fields the user wrote, so findings can be placed in the editor.
//!
//! The server validates the internal form of a CRD, where fields shared by every version sit
//! at the top level. The mapping:
//!
//! | internal | v1 |
//! | --- | --- |
//! | `spec.version` | `spec.versions[0].name` |
//! | `spec.validation...` | `spec.versions[i].schema...` (the first version with a schema) |
//! | `spec.subresources...` | `spec.versions[0].subresources...` |
//! | `spec.additionalPrinterColumns[j]...` | `spec.versions[0].additionalPrinterColumns[j]...` |
//! | `spec.selectableFields[j]...` | `spec.versions[0].selectableFields[j]...` |
//! | `...additionalPrinterColumns[j].JSONPath` | `...additionalPrinterColumns[j].jsonPath` |
//! | `spec.conversion.webhookClientConfig...` | `spec.conversion.webhook.clientConfig...` |
//! | `spec.conversion.conversionReviewVersions` | `spec.conversion.webhook.conversionReviewVersions` |
//!
//! Map keys (`properties[spec]`) become fields (`properties.spec`) unless the key holds a `.`,
//! `[` or `]`; a path element written with a dot (`schema.openAPIV3Schema`) is split.

use serde_json::Value as Json;

use crate::documents::path::{FieldPath, Segment};

/// Translates an internal field path to the v1 path of the field in the user's CRD.
/// `v1_crd` is the CRD as written (its `spec.versions` decide which version a top-level
/// schema is shown in); `None` uses the first version.
pub fn v1_path(internal: &FieldPath, v1_crd: Option<&Json>) -> FieldPath {
    // Split dotted field names first.
    let mut segs: Vec<Segment> = Vec::with_capacity(internal.0.len());
    for s in &internal.0 {
        match s {
            Segment::Field(f) if f.contains('.') => {
                segs.extend(f.split('.').map(|p| Segment::Field(p.to_owned())))
            }
            other => segs.push(other.clone()),
        }
    }
    let field = |i: usize| match segs.get(i) {
        Some(Segment::Field(f)) => Some(f.as_str()),
        _ => None,
    };
    let versions = v1_crd
        .and_then(|c| c.get("spec"))
        .and_then(|s| s.get("versions"))
        .and_then(Json::as_array);
    let first_with = |key: &str| -> usize {
        versions
            .and_then(|vs| {
                vs.iter()
                    .position(|v| v.get(key).is_some_and(|x| !x.is_null()))
            })
            .unwrap_or(0)
    };
    let mut out: Vec<Segment> = Vec::with_capacity(segs.len() + 2);
    let mut rest_start = 0;
    if field(0) == Some("spec") {
        let versions_at = |i: usize| {
            vec![
                Segment::Field("spec".to_owned()),
                Segment::Field("versions".to_owned()),
                Segment::Index(i),
            ]
        };
        match field(1) {
            Some("version") if segs.len() == 2 => {
                out = versions_at(0);
                out.push(Segment::Field("name".to_owned()));
                rest_start = 2;
            }
            Some("validation") => {
                out = versions_at(first_with("schema"));
                out.push(Segment::Field("schema".to_owned()));
                rest_start = 2;
            }
            Some(f @ ("subresources" | "additionalPrinterColumns" | "selectableFields")) => {
                out = versions_at(first_with(f));
                out.push(Segment::Field(f.to_owned()));
                rest_start = 2;
            }
            Some("conversion") => match field(2) {
                Some("webhookClientConfig") => {
                    out = ["spec", "conversion", "webhook", "clientConfig"]
                        .iter()
                        .map(|s| Segment::Field((*s).to_owned()))
                        .collect();
                    rest_start = 3;
                }
                Some("conversionReviewVersions") => {
                    out = ["spec", "conversion", "webhook", "conversionReviewVersions"]
                        .iter()
                        .map(|s| Segment::Field((*s).to_owned()))
                        .collect();
                    rest_start = 3;
                }
                _ => {}
            },
            _ => {}
        }
    }
    for s in segs.iter().skip(rest_start) {
        out.push(match s {
            Segment::Key(k) if !k.contains(['.', '[', ']']) && !k.is_empty() => {
                Segment::Field(k.clone())
            }
            other => other.clone(),
        });
    }
    // `additionalPrinterColumns[j].JSONPath` is `jsonPath` in v1.
    let mut fixed = Vec::with_capacity(out.len());
    for (i, s) in out.iter().enumerate() {
        let after_columns = i >= 2
            && matches!(out.get(i - 2), Some(Segment::Field(f)) if f == "additionalPrinterColumns")
            && matches!(out.get(i - 1), Some(Segment::Index(_)));
        match s {
            Segment::Field(f) if f == "JSONPath" && after_columns => {
                fixed.push(Segment::Field("jsonPath".to_owned()))
            }
            other => fixed.push(other.clone()),
        }
    }
    FieldPath(fixed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn t(p: &str) -> String {
        v1_path(&FieldPath::parse(p), None).to_string()
    }

    #[test]
    fn maps_internal_paths() {
        assert_eq!(
            t("spec.validation.openAPIV3Schema.properties[spec].type"),
            "spec.versions[0].schema.openAPIV3Schema.properties.spec.type"
        );
        assert_eq!(t("spec.version"), "spec.versions[0].name");
        assert_eq!(
            t("spec.additionalPrinterColumns[1].JSONPath"),
            "spec.versions[0].additionalPrinterColumns[1].jsonPath"
        );
        assert_eq!(
            t("spec.versions[2].additionalPrinterColumns[0].JSONPath"),
            "spec.versions[2].additionalPrinterColumns[0].jsonPath"
        );
        assert_eq!(
            t("spec.conversion.webhookClientConfig.service.port"),
            "spec.conversion.webhook.clientConfig.service.port"
        );
        assert_eq!(
            t("spec.subresources.scale.specReplicasPath"),
            "spec.versions[0].subresources.scale.specReplicasPath"
        );
        assert_eq!(t("metadata.name"), "metadata.name");
        assert_eq!(
            t("spec.versions[1].schema.openAPIV3Schema.properties[a.b].default"),
            "spec.versions[1].schema.openAPIV3Schema.properties[a.b].default"
        );
    }

    #[test]
    fn dotted_children_are_split() {
        let mut p = FieldPath::new("spec").child("versions").index(0);
        p.0.push(Segment::Field("schema.openAPIV3Schema".into()));
        assert_eq!(
            v1_path(&p, None).0.len(),
            5,
            "spec, versions, [0], schema, openAPIV3Schema"
        );
    }

    #[test]
    fn picks_the_first_version_with_a_schema() {
        let crd = json!({"spec": {"versions": [{"name": "v1"}, {"name": "v2", "schema": {}}]}});
        assert_eq!(
            v1_path(
                &FieldPath::parse("spec.validation.openAPIV3Schema"),
                Some(&crd)
            )
            .to_string(),
            "spec.versions[1].schema.openAPIV3Schema"
        );
    }
}
