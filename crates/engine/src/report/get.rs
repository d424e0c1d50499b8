//! `kubectl get -f` over the sample objects: the tables the server returns for them (its
//! table convertor on each stored object, read in the object's version) printed as kubectl
//! prints them. Shared by the CLI's `get` command and the studio's "kubectl get" tab.

use serde_json::Value;

use crate::object::objectmeta::Time;
use crate::printing::table::{kubectl_get, Cell, PrintOptions, PrintTable};
use crate::report::analysis::{Analysis, CompiledCrd};

/// What `kubectl get -f` prints for the analysed objects.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GetOutput {
    /// Standard output: the table(s), empty when there is no row.
    pub text: String,
    /// One entry per object that has a row, in output order: (source, document).
    pub rows_of: Vec<(usize, usize)>,
    /// Objects without a row (unreadable, not served), with the reason.
    pub left_out: Vec<(usize, usize, String)>,
}

/// The table of every analysed object (rejected objects too, as if they were stored: the
/// caller says so), ages counted at `now`. An object without `metadata.creationTimestamp`
/// gets `now`, as the server sets it on create.
pub fn kubectl_get_objects(
    compiled: &CompiledCrd,
    analysis: &Analysis,
    now: Time,
    options: PrintOptions,
) -> GetOutput {
    let now_text = now.rfc3339();
    let (group, kind) = compiled
        .internal()
        .map(|c| (c.spec.group.clone(), c.spec.names.kind.clone()))
        .unwrap_or_default();
    let group_kind = if group.is_empty() {
        kind
    } else {
        format!("{kind}.{group}")
    };
    let mut out = GetOutput::default();
    let mut tables = Vec::new();
    for report in &analysis.objects {
        let at = (report.source, report.document);
        if let Some(e) = &report.object_error {
            out.left_out.push((at.0, at.1, e.clone()));
            continue;
        }
        let version = report.table.version.as_str();
        let (Some(convertor), Some(columns)) = (
            compiled.table_convertor(version),
            analysis
                .versions
                .iter()
                .find(|v| v.name == version)
                .map(|v| &v.columns),
        ) else {
            out.left_out
                .push((at.0, at.1, format!("no table for version {version:?}")));
            continue;
        };
        let mut stored = report.prepared.clone();
        if let Some(meta) = stored.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.entry("creationTimestamp")
                .or_insert_with(|| Value::String(now_text.clone()));
        }
        let table = match convertor.convert_to_table(&stored, false, Some(now)) {
            Ok(t) => t,
            Err(e) => {
                out.left_out.push((at.0, at.1, e.to_string()));
                continue;
            }
        };
        tables.push(PrintTable {
            resource: version.to_owned(),
            group_kind: group_kind.clone(),
            columns: columns.iter().map(|c| c.definition()).collect(),
            rows: table
                .rows
                .iter()
                .map(|r| r.iter().map(Cell::to_wire).collect())
                .collect(),
        });
        out.rows_of.push(at);
    }
    out.text = kubectl_get(&tables, options);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::objectmeta::time::parse_rfc3339;
    use crate::Options;

    const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
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
            properties:
              cronSpec: {type: string}
              replicas: {type: integer}
    additionalPrinterColumns:
    - {name: Spec, type: string, jsonPath: .spec.cronSpec}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas, priority: 1}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
"#;

    const OBJ: &str = r#"
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: my-new-cron-object, creationTimestamp: "2026-11-21T09:00:00Z"}
spec: {cronSpec: "* * * * */5", replicas: 3}
"#;

    #[test]
    fn normal_and_wide() {
        let compiled = CompiledCrd::compile(CRD, &Options::default());
        let analysis = compiled.analyze_objects(&[OBJ.to_owned()], None);
        let now = parse_rfc3339("2026-11-21T09:05:00Z").unwrap();
        let normal = kubectl_get_objects(&compiled, &analysis, now, PrintOptions::default());
        assert_eq!(
            normal.text,
            "NAME                 SPEC          AGE\nmy-new-cron-object   * * * * */5   5m\n"
        );
        let wide = kubectl_get_objects(
            &compiled,
            &analysis,
            now,
            PrintOptions {
                wide: true,
                ..PrintOptions::default()
            },
        );
        assert_eq!(
            wide.text,
            "NAME                 SPEC          REPLICAS   AGE\nmy-new-cron-object   * * * * */5   3          5m\n"
        );
        assert_eq!(wide.rows_of, vec![(0, 0)]);
    }
}
