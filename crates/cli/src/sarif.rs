//! SARIF 2.1.0 output (`--format sarif`) for `check`, `cost` and `diff`: one run of the
//! `crd-studio` tool, rule ids = finding or change codes, each result with a physical
//! location (the file path as given on the command line, 1-based line and column region, in
//! UTF-16 code units as the run's `columnKind` says).
//!
//! Small serde structs rather than a SARIF crate: the output needs a dozen of the format's
//! hundreds of properties, and `serde-sarif` generates its types from the schema in a build
//! script (schemafy, syn, prettyplease) and pulls typed-builder, strum and thiserror: far more
//! build than the output needs. The CLI's tests check every SARIF output against the SARIF
//! 2.1.0 JSON schema with `jsonschema` (a dev-dependency without default features: no HTTP
//! resolver, no TLS), the schema vendored as test data in `crates/cli/tests/data/` (from the
//! `serde-sarif` crate, its MIT licence beside it).

use serde::Serialize;

use crd_studio_engine::Span;

/// The schema URI SARIF files name.
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// `sarifLog`.
#[derive(Serialize)]
pub(crate) struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    column_kind: &'static str,
    results: Vec<SarifResult>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
struct Driver {
    name: &'static str,
    version: &'static str,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: String,
    short_description: Message,
}

#[derive(Serialize)]
struct Message {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: String,
    rule_index: usize,
    level: &'static str,
    message: Message,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<SarifLocation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<SarifLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Message>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

/// SARIF's result levels.
#[derive(Clone, Copy)]
pub(crate) enum Level {
    Error,
    Warning,
    Note,
}

impl Level {
    fn text(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }
}

/// A place in a file: the file as given, and a range in it (none: the whole file).
pub(crate) struct Place<'a> {
    pub file: &'a str,
    pub span: Option<Span>,
    /// What the place is, for a related location.
    pub label: Option<String>,
}

impl Place<'_> {
    fn sarif(&self, id: Option<usize>) -> SarifLocation {
        SarifLocation {
            id,
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri: self.file.to_owned(),
                },
                region: self.span.map(|s| Region {
                    start_line: s.start.line.max(1),
                    start_column: s.start.utf16_column.max(1),
                    end_line: s.end.line.max(s.start.line).max(1),
                    end_column: if s.end.line > s.start.line {
                        s.end.utf16_column.max(1)
                    } else {
                        s.end.utf16_column.max(s.start.utf16_column).max(1)
                    },
                }),
            },
            message: self.label.clone().map(|text| Message { text }),
        }
    }
}

/// A line/column point as a span (for reports that carry only a start).
pub(crate) fn point(line: usize, column: usize) -> Span {
    let pos = crd_studio_engine::Pos {
        offset: 0,
        line,
        column,
        utf16_column: column,
    };
    Span::point(pos)
}

/// Builds one SARIF log.
#[derive(Default)]
pub(crate) struct Builder {
    rules: Vec<Rule>,
    results: Vec<SarifResult>,
}

impl Builder {
    /// Adds a result: its rule (by code), level, message, where it is and other places.
    pub(crate) fn add(
        &mut self,
        code: &str,
        level: Level,
        message: String,
        place: Option<Place<'_>>,
        related: Vec<Place<'_>>,
    ) {
        let rule_index = match self.rules.iter().position(|r| r.id == code) {
            Some(i) => i,
            None => {
                self.rules.push(Rule {
                    id: code.to_owned(),
                    short_description: Message {
                        text: code.to_owned(),
                    },
                });
                self.rules.len() - 1
            }
        };
        self.results.push(SarifResult {
            rule_id: code.to_owned(),
            rule_index,
            level: level.text(),
            message: Message { text: message },
            locations: place.map(|p| p.sarif(None)).into_iter().collect(),
            related_locations: related
                .iter()
                .enumerate()
                .map(|(i, p)| p.sarif(Some(i + 1)))
                .collect(),
        });
    }

    /// The log as pretty JSON with a final newline.
    pub(crate) fn finish(self) -> String {
        let log = Log {
            schema: SCHEMA,
            version: "2.1.0",
            runs: vec![Run {
                tool: Tool {
                    driver: Driver {
                        name: "crd-studio",
                        version: env!("CARGO_PKG_VERSION"),
                        rules: self.rules,
                    },
                },
                column_kind: "utf16CodeUnits",
                results: self.results,
            }],
        };
        let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
        s.push('\n');
        s
    }
}
