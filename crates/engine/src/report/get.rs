//! `kubectl get -f` over the sample objects: the tables the server returns for them (its
//! table convertor on each stored object, read in the object's version) printed as kubectl
//! prints them. Shared by the CLI's `get` command and the studio's "kubectl get" tab.
//!
//! Each object without a row says what is missing and where (`LeftOut`);
//! `kubectl_get_list` is `kubectl get <plural>.<group> --field-selector`: the kept objects in
//! the preferred version, the command line, and kubectl's `No resources found in <ns>
//! namespace.`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::documents::finding::{Severity, SourceId};
use crate::documents::position::Span;
use crate::object::objectmeta::Time;
use crate::printing::table::{kubectl_get, Cell, PrintOptions, PrintTable};
use crate::report::analysis::{Analysis, CompiledCrd, FieldSelectorPreview, ObjectReport};

/// An object that has no row, why, and where in its text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeftOut {
    /// The object text.
    pub source: usize,
    /// The document in it.
    pub document: usize,
    /// Why it has no row, naming what is missing.
    pub reason: String,
    /// Where: the object's first error finding (its `apiVersion`, or the whole object).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

/// What `kubectl get -f` prints for the analysed objects.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GetOutput {
    /// Standard output: the table(s), empty when there is no row.
    pub text: String,
    /// One entry per object that has a row, in output order: (source, document).
    pub rows_of: Vec<(usize, usize)>,
    /// Objects without a row (not served, not decodable), with the reason.
    pub left_out: Vec<LeftOut>,
}

/// The span of the first error finding about an object.
fn error_span(analysis: &Analysis, report: &ObjectReport) -> Option<Span> {
    analysis
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .filter_map(|f| f.location)
        .find(|l| l.source == SourceId::Object(report.source) && l.document == report.document)
        .map(|l| l.span)
}

/// `Kind.group` as kubectl prints it before names when several kinds are listed.
fn group_kind(compiled: &CompiledCrd) -> String {
    let (group, kind) = compiled
        .internal()
        .map(|c| (c.spec.group.clone(), c.spec.names.kind.clone()))
        .unwrap_or_default();
    if group.is_empty() {
        kind
    } else {
        format!("{kind}.{group}")
    }
}

/// The object as stored, with the `creationTimestamp` the server sets on create when it has
/// none.
fn with_creation_time(object: &Value, now_text: &str) -> Value {
    let mut stored = object.clone();
    if let Some(meta) = stored.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.entry("creationTimestamp")
            .or_insert_with(|| Value::String(now_text.to_owned()));
    }
    stored
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
    let group_kind = group_kind(compiled);
    let mut out = GetOutput::default();
    let mut tables = Vec::new();
    for report in &analysis.objects {
        let at = (report.source, report.document);
        let mut left_out = |reason: String| {
            out.left_out.push(LeftOut {
                source: at.0,
                document: at.1,
                reason,
                span: error_span(analysis, report),
            });
        };
        if let Some(e) = &report.object_error {
            left_out(e.clone());
            continue;
        }
        if report.prepared.is_null() {
            left_out(match &report.decode_error {
                Some(e) => format!(
                    "the server cannot decode the object, so nothing is stored to list: {e}"
                ),
                None => "the server stores nothing for this object, so there is nothing to list"
                    .to_owned(),
            });
            continue;
        }
        let version = report.api_version.rsplit_once('/').map_or("", |(_, v)| v);
        let (Some(convertor), Some(columns)) = (
            compiled.table_convertor(version),
            analysis
                .versions
                .iter()
                .find(|v| v.name == version)
                .map(|v| &v.columns),
        ) else {
            left_out(format!(
                "apiVersion {:?}: the CRD has no version {version:?} to print the object in",
                report.api_version
            ));
            continue;
        };
        let stored = with_creation_time(&report.prepared.to_value(), &now_text);
        let table = match convertor.convert_to_table(&stored, false, Some(now)) {
            Ok(t) => t,
            Err(e) => {
                left_out(e.to_string());
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

/// `kubectl get <plural>.<group> --field-selector <selector>`: the list of the samples the
/// selector keeps, read in the listed (preferred) version, printed as kubectl prints it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListOutput {
    /// The command line, ready to paste into a shell (`-n` when the namespace is not
    /// `default`, `-o wide` when asked).
    pub command: String,
    /// Standard output: the table of the listed objects; empty when none is listed.
    pub text: String,
    /// Standard error: kubectl's `No resources found in <ns> namespace.` (`No resources
    /// found` for a cluster-scoped resource) when nothing is listed, or the server's error.
    pub stderr: String,
    /// The objects listed, in order: (source, document).
    pub rows_of: Vec<(usize, usize)>,
    /// The selector's verdict per sample.
    pub preview: FieldSelectorPreview,
}

/// Quotes a shell word when it needs it (single quotes, `'` written as `'\''`).
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/=,:@%+".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The field selector over the analysed objects as `kubectl get <resource> --field-selector`
/// lists them (see [`ListOutput`]), ages counted at `now`.
pub fn kubectl_get_list(
    compiled: &CompiledCrd,
    analysis: &Analysis,
    selector: &str,
    now: Time,
    options: PrintOptions,
) -> ListOutput {
    let (preview, objects) = compiled.select_fields_read(analysis, "", selector);
    let mut out = ListOutput::default();
    let Some(internal) = compiled.internal() else {
        out.preview = preview;
        return out;
    };
    let resource = format!("{}.{}", internal.spec.names.plural, internal.spec.group);
    let mut command = format!("kubectl get {resource}");
    if !preview.namespace.is_empty() && preview.namespace != "default" {
        command.push_str(&format!(" -n {}", shell_word(&preview.namespace)));
    }
    command.push_str(&format!(
        " --field-selector {}",
        shell_word(selector.trim())
    ));
    if options.wide {
        command.push_str(" -o wide");
    }
    if options.no_headers {
        command.push_str(" --no-headers");
    }
    out.command = command;
    if let Some(e) = &preview.selection.error {
        out.stderr = format!("{}\n", e.kubectl);
        out.preview = preview;
        return out;
    }
    let version = preview.version.as_str();
    let now_text = now.rfc3339();
    let mut rows = Vec::new();
    if let (Some(convertor), Some(columns)) = (
        compiled.table_convertor(version),
        analysis
            .versions
            .iter()
            .find(|v| v.name == version)
            .map(|v| &v.columns),
    ) {
        for ((at, m), object) in preview
            .samples
            .iter()
            .zip(&preview.selection.objects)
            .zip(&objects)
        {
            if !m.matches {
                continue;
            }
            let stored = with_creation_time(object, &now_text);
            if let Ok(table) = convertor.convert_to_table(&stored, false, Some(now)) {
                rows.extend(
                    table
                        .rows
                        .iter()
                        .map(|r| r.iter().map(Cell::to_wire).collect::<Vec<_>>()),
                );
                out.rows_of.push(*at);
            }
        }
        // One table from the server, the list's.
        let table = PrintTable {
            resource: version.to_owned(),
            group_kind: group_kind(compiled),
            columns: columns.iter().map(|c| c.definition()).collect(),
            rows,
        };
        out.text = kubectl_get(std::slice::from_ref(&table), options);
    }
    if out.text.is_empty() {
        // kubectl get: nothing written and no error.
        out.stderr = if preview.namespace.is_empty() {
            "No resources found\n".to_owned()
        } else {
            format!("No resources found in {} namespace.\n", preview.namespace)
        };
    }
    out.preview = preview;
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

    fn now() -> Time {
        parse_rfc3339("2026-11-21T09:05:00Z").unwrap()
    }

    fn two_objects() -> String {
        format!(
            "{OBJ}---\n{}",
            OBJ.replace("my-new-cron-object", "other")
                .replace("*/5", "*/7")
        )
    }

    /// Issue 14, item 7a: the objects a field selector filters out are not in the table;
    /// none left prints kubectl's "No resources found in <ns> namespace.".
    #[test]
    fn field_selector_lists_only_the_kept_objects() {
        let compiled = CompiledCrd::compile(CRD, &Options::default());
        let analysis = compiled.analyze_objects(&[two_objects()], None);
        let list = kubectl_get_list(
            &compiled,
            &analysis,
            "metadata.name=other",
            now(),
            PrintOptions::default(),
        );
        assert_eq!(
            list.command,
            "kubectl get crontabs.stable.example.com --field-selector metadata.name=other"
        );
        assert_eq!(
            list.text,
            "NAME    SPEC          AGE\nother   * * * * */7   5m\n"
        );
        assert_eq!(list.stderr, "");
        assert_eq!(list.rows_of, vec![(0, 1)]);
        let none = kubectl_get_list(
            &compiled,
            &analysis,
            "metadata.name=nope",
            now(),
            PrintOptions {
                wide: true,
                ..PrintOptions::default()
            },
        );
        assert_eq!(none.text, "");
        assert_eq!(none.stderr, "No resources found in default namespace.\n");
        assert_eq!(
            none.command,
            "kubectl get crontabs.stable.example.com --field-selector metadata.name=nope -o wide"
        );
        let bad = kubectl_get_list(
            &compiled,
            &analysis,
            "spec.image = x",
            now(),
            PrintOptions::default(),
        );
        assert_eq!(bad.text, "");
        assert!(
            bad.stderr.starts_with("Error from server (BadRequest): "),
            "{}",
            bad.stderr
        );
        assert_eq!(
            bad.command,
            "kubectl get crontabs.stable.example.com --field-selector 'spec.image = x'"
        );
    }

    #[test]
    fn field_selector_namespace_and_cluster_scope() {
        let compiled = CompiledCrd::compile(CRD, &Options::default());
        let in_prod = OBJ.replace(
            "{name: my-new-cron-object,",
            "{name: my-new-cron-object, namespace: prod,",
        );
        let analysis = compiled.analyze_objects(&[in_prod], None);
        let list = kubectl_get_list(
            &compiled,
            &analysis,
            "metadata.name=x",
            now(),
            PrintOptions::default(),
        );
        assert_eq!(
            list.command,
            "kubectl get crontabs.stable.example.com -n prod --field-selector metadata.name=x"
        );
        assert_eq!(list.stderr, "No resources found in prod namespace.\n");
        let cluster =
            CompiledCrd::compile(&CRD.replace("Namespaced", "Cluster"), &Options::default());
        let analysis = cluster.analyze_objects(&[OBJ.to_owned()], None);
        let list = kubectl_get_list(
            &cluster,
            &analysis,
            "metadata.name=x",
            now(),
            PrintOptions::default(),
        );
        assert_eq!(list.stderr, "No resources found\n");
    }

    /// Issue 14, item 7e: an object without a row says what is missing, at the object.
    #[test]
    fn objects_without_a_row_say_why_and_where() {
        let compiled = CompiledCrd::compile(CRD, &Options::default());
        let texts = [
            "kind: CronTab\nmetadata: {name: a}\n".to_owned(),
            "apiVersion: stable.example.com/v9\nkind: CronTab\nmetadata: {name: b}\n".to_owned(),
            "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: 5\n".to_owned(),
        ];
        let analysis = compiled.analyze_objects(&texts, None);
        let got = kubectl_get_objects(&compiled, &analysis, now(), PrintOptions::default());
        let reasons: Vec<&str> = got.left_out.iter().map(|l| l.reason.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "the object has no apiVersion; this CRD serves stable.example.com/v1",
                "apiVersion \"stable.example.com/v9\": version \"v9\" is not a version of this CRD; this CRD serves stable.example.com/v1",
                "the server cannot decode the object, so nothing is stored to list: CronTab in version \"v1\" cannot be handled as a CronTab: json: cannot unmarshal number into Go value of type v1.ObjectMeta",
            ]
        );
        let places: Vec<Option<(usize, usize)>> = got
            .left_out
            .iter()
            .map(|l| l.span.map(|s| (s.start.line, s.start.column)))
            .collect();
        assert_eq!(places, [Some((1, 1)), Some((1, 13)), Some((1, 1))]);
        assert!(got.left_out.iter().all(|l| !l.reason.contains("no table")));
    }
}
