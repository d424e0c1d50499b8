//! Printer columns (`kubectl get`): see `crate::printing::table`.

use super::{CompiledCrd, TableColumnReport, TableRow, VersionReport};
use crate::crd::apiext::InternalCrd;
use crate::documents::document::{Node, ParsedText};
use crate::documents::finding::{Finding, Location, SourceId};
use crate::documents::path::{locate, FieldPath};
use crate::pipeline::CompiledVersion;

impl TableColumnReport {
    /// The column as the server's table defines it.
    pub fn definition(&self) -> crate::printing::table::ColumnDefinition {
        crate::printing::table::ColumnDefinition {
            name: self.name.clone(),
            type_: self.type_.clone(),
            format: self.format.clone(),
            description: self.description.clone(),
            priority: self.priority,
        }
    }
}

/// The span of `spec.versions[i].additionalPrinterColumns[j].jsonPath`'s value in the CRD
/// text (the nearest existing parent when it is missing).
fn column_json_path_span(
    root: &Node,
    version: usize,
    column: usize,
) -> crate::documents::position::Span {
    let value = root
        .get("spec")
        .and_then(|s| s.get("versions"))
        .and_then(|v| v.as_seq()?.get(version))
        .and_then(|v| v.get("additionalPrinterColumns"))
        .and_then(|c| c.as_seq()?.get(column))
        .and_then(|c| c.entry("jsonPath"))
        .map(|e| e.value.span);
    value.unwrap_or_else(|| {
        locate(
            root,
            &FieldPath::parse(&format!(
                "spec.versions[{version}].additionalPrinterColumns[{column}].jsonPath"
            )),
        )
        .span
    })
}

/// Each compiled version's table convertor; fills [`VersionReport::columns`] and adds a
/// warning for every column that cannot work ([`crate::printing::table::column_findings`]).
pub(super) fn table_columns(
    crd: Option<&InternalCrd>,
    compiled: &[CompiledVersion],
    parsed: &ParsedText,
    versions: &mut [VersionReport],
    findings: &mut Vec<Finding>,
) -> Vec<crate::printing::table::Convertor> {
    let Some(crd) = crd else {
        return Vec::new();
    };
    let root = parsed.values().next();
    let mut tables = Vec::new();
    for (i, v) in compiled.iter().enumerate() {
        let declared = crd
            .spec
            .versions
            .iter()
            .find(|x| x.name == v.name)
            .is_some_and(|x| !x.additional_printer_columns.is_empty())
            || !crd.spec.additional_printer_columns.is_empty();
        let crd_columns = crate::printing::table::crd_columns_for_version(crd, &v.name);
        let (convertor, _) = crate::printing::table::Convertor::new(&crd_columns);
        let span_of = |j: usize| root.map(|(doc, r)| (doc.index, column_json_path_span(r, i, j)));
        if let Some(report) = versions.iter_mut().find(|r| r.name == v.name) {
            report.columns = convertor
                .headers()
                .iter()
                .enumerate()
                .map(|(k, h)| {
                    let declared_column = k.checked_sub(1).filter(|_| declared);
                    let span = declared_column.and_then(span_of).map(|(_, s)| s);
                    TableColumnReport {
                        name: h.name.clone(),
                        type_: h.type_.clone(),
                        format: h.format.clone(),
                        description: h.description.clone(),
                        priority: h.priority,
                        json_path: k
                            .checked_sub(1)
                            .and_then(|j| crd_columns.get(j))
                            .map_or(".metadata.name".to_owned(), |c| c.json_path.clone()),
                        implicit: declared_column.is_none(),
                        line: span.map(|s| s.start.line),
                        column: span.map(|s| s.start.column),
                    }
                })
                .collect();
        }
        if declared {
            for problem in
                crate::printing::table::column_findings(&crd_columns, v.structural.as_deref())
            {
                let mut f = Finding::warning("crd.printer-column", problem.message);
                f.field = Some(format!(
                    "spec.versions[{i}].additionalPrinterColumns[{}].jsonPath",
                    problem.index
                ));
                if let Some((document, span)) = span_of(problem.index) {
                    f = f.at(Location {
                        source: SourceId::Crd,
                        document,
                        span,
                    });
                }
                findings.push(f);
            }
        }
        tables.push(convertor);
    }
    tables
}

impl CompiledCrd {
    /// The `kubectl get` row of an object as stored, in its version's table.
    pub(super) fn table_row(&self, version: &str, stored: &serde_json::Value) -> TableRow {
        let Some(convertor) = self
            .compiled
            .iter()
            .position(|v| v.name == version)
            .and_then(|i| self.tables.get(i))
        else {
            return TableRow::default();
        };
        let now = self.options.now;
        match convertor.convert_to_table(stored, false, now) {
            Ok(table) => TableRow {
                version: version.to_owned(),
                columns: convertor.headers().iter().map(|h| h.name.clone()).collect(),
                cells: table
                    .rows
                    .first()
                    .map(|r| {
                        r.iter()
                            .map(crate::printing::table::Cell::to_wire)
                            .collect()
                    })
                    .unwrap_or_default(),
            },
            Err(_) => TableRow::default(),
        }
    }

    /// The table convertor of a version, when the version exists.
    pub fn table_convertor(&self, version: &str) -> Option<&crate::printing::table::Convertor> {
        self.compiled
            .iter()
            .position(|v| v.name == version)
            .and_then(|i| self.tables.get(i))
    }
}
