//! `kubectl get` for custom resources: the server's table convertor
//! (apiextensions-apiserver `pkg/registry/customresource/tableconvertor`: `New`,
//! `ConvertToTable`, `cellForJSONValue`), the columns it serves per version
//! (`getColumnsForVersion`: the declared `additionalPrinterColumns`, or a default `Age`
//! column, always after the implicit `Name` column), the age texts (apimachinery
//! `duration.HumanDuration`), and kubectl's rendering of the `metav1.Table` it receives
//! (cli-runtime `printers.HumanReadablePrinter` writing through `liggitt/tabwriter` with
//! kubectl's settings: minimum width 6, padding 3, space padding, remembered widths).
//!
//! The engine has no clock: ages are computed against the `now` the caller passes, and a date
//! more than a second after it reads `<invalid>` (`HumanDuration` of a negative duration).
//! Without one, every valid date reads `0s` (the age the row has the moment the timestamp is
//! written, which is what `kubectl get` shows right after `kubectl create`); the engine cannot
//! tell a future date then, so callers that show ages pass a clock.
//!
//! Beyond the server, [`column_findings`] says when a column's JSONPath cannot be parsed (the
//! server then serves only the columns before it) and when it can never match anything the
//! version's schema allows, or always holds a value of the wrong type for the column.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::crd::apiext::internal::ColumnDefinition as CrdColumn;
use crate::object::objectmeta::{time::parse_rfc3339, Time};
use crate::printing::jsonpath::{print_results, JsonPath, Node, Value};
use crate::schema::Structural;
use crd_studio_gostd::strconv::{format_float_g as go_float_v, quote as go_quote};

/// `metav1.ObjectMeta{}.SwaggerDoc()["name"]`: the Name column's description.
pub const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

/// `metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]`: the default Age column's
/// description.
pub const CREATION_TIMESTAMP_DESCRIPTION: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/// A column of a served table (`metav1.TableColumnDefinition`; every field is written, as
/// Go's JSON tags have no `omitempty`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ColumnDefinition {
    /// `name`.
    pub name: String,
    /// `type`: `string`, `integer`, `number`, `boolean` or `date`.
    #[serde(rename = "type")]
    pub type_: String,
    /// `format` (`name` for the Name column).
    pub format: String,
    /// `description`.
    pub description: String,
    /// `priority`: 0 is shown by `kubectl get`, more only by `kubectl get -o wide`.
    pub priority: i64,
}

/// One table cell as the server computes it (the Go value in `TableRow.Cells`).
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// `nil`: no value (printed empty by kubectl).
    Null,
    /// `int64`.
    Int(i64),
    /// `float64`.
    Float(f64),
    /// `bool`.
    Bool(bool),
    /// `string`.
    Str(String),
}

impl Cell {
    /// The Go type of the cell (`%T`), `None` for `nil`.
    pub fn go_type(&self) -> Option<&'static str> {
        match self {
            Cell::Null => None,
            Cell::Int(_) => Some("int64"),
            Cell::Float(_) => Some("float64"),
            Cell::Bool(_) => Some("bool"),
            Cell::Str(_) => Some("string"),
        }
    }

    /// The cell as a typed JSON value (a `float64` stays a float, even when integral).
    pub fn to_value(&self) -> Json {
        match self {
            Cell::Null => Json::Null,
            Cell::Int(i) => Json::from(*i),
            Cell::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
            Cell::Bool(b) => Json::Bool(*b),
            Cell::Str(s) => Json::String(s.clone()),
        }
    }

    /// The cell as the server's JSON response carries it and a client reads it back: Go's
    /// `json.Marshal` writes an integral `float64` without a fraction (`42`), so it comes
    /// back as an integer.
    pub fn to_wire(&self) -> Json {
        match self {
            Cell::Float(f) if f.is_finite() => {
                serde_json::from_str(&crd_studio_gostd::json::float_text(*f)).unwrap_or(Json::Null)
            }
            Cell::Float(_) => Json::Null,
            other => other.to_value(),
        }
    }
}

/// A table as the server returns it for one object (`metav1.Table` with one row).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// `columnDefinitions` (empty with `noHeaders`).
    pub column_definitions: Vec<ColumnDefinition>,
    /// The rows' cells.
    pub rows: Vec<Vec<Cell>>,
}

/// `apihelpers.GetColumnsForVersion` as the handler serves it: the version's columns (or the
/// top-level ones, which the internal CRD holds when every version declares the same), or
/// the default Age column when none are declared.
pub fn crd_columns_for_version(
    crd: &crate::crd::apiext::InternalCrd,
    version: &str,
) -> Vec<CrdColumn> {
    let declared = crd
        .spec
        .versions
        .iter()
        .find(|v| v.name == version)
        .map(|v| v.additional_printer_columns.as_slice())
        .filter(|c| !c.is_empty())
        .unwrap_or(crd.spec.additional_printer_columns.as_slice());
    if declared.is_empty() {
        vec![default_age_column()]
    } else {
        declared.to_vec()
    }
}

/// `serveDefaultColumnsIfEmpty`'s column.
pub fn default_age_column() -> CrdColumn {
    CrdColumn {
        name: "Age".to_owned(),
        type_: "date".to_owned(),
        format: String::new(),
        description: CREATION_TIMESTAMP_DESCRIPTION.to_owned(),
        priority: 0,
        json_path: ".metadata.creationTimestamp".to_owned(),
    }
}

/// The column that `tableconvertor.New` could not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnParseError {
    /// Its index among the CRD columns.
    pub index: usize,
    /// Its `jsonPath`.
    pub json_path: String,
    /// The JSONPath parser's error.
    pub parse_error: String,
}

impl ColumnParseError {
    /// The error `New` returns (the server logs it).
    pub fn server_text(&self) -> String {
        format!(
            "unrecognized column definition {}",
            go_quote(&self.json_path)
        )
    }
}

/// The server's table convertor for one version (`tableconvertor.convertor`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Convertor {
    headers: Vec<ColumnDefinition>,
    columns: Vec<JsonPath>,
}

impl Convertor {
    /// `New(crdColumns)`: the Name column, then one column per CRD column, each JSONPath parsed
    /// as `{jsonPath}` with missing keys allowed. At the first column that does not parse, the
    /// convertor built so far is returned with the error (the handler serves it as is).
    pub fn new(crd_columns: &[CrdColumn]) -> (Convertor, Option<ColumnParseError>) {
        let mut c = Convertor {
            headers: vec![ColumnDefinition {
                name: "Name".to_owned(),
                type_: "string".to_owned(),
                format: "name".to_owned(),
                description: NAME_DESCRIPTION.to_owned(),
                priority: 0,
            }],
            columns: Vec::new(),
        };
        for (index, col) in crd_columns.iter().enumerate() {
            let path = match JsonPath::parse(&format!("{{{}}}", col.json_path)) {
                Ok(p) => p.allow_missing_keys(true),
                Err(parse_error) => {
                    return (
                        c,
                        Some(ColumnParseError {
                            index,
                            json_path: col.json_path.clone(),
                            parse_error,
                        }),
                    )
                }
            };
            let description = if col.description.is_empty() {
                format!(
                    "Custom resource definition column (in JSONPath format): {}",
                    col.json_path
                )
            } else {
                col.description.clone()
            };
            c.columns.push(path);
            c.headers.push(ColumnDefinition {
                name: col.name.clone(),
                type_: col.type_.clone(),
                format: col.format.clone(),
                description,
                priority: col.priority,
            });
        }
        (c, None)
    }

    /// A convertor from explicit headers (Name first) and parsed column paths, as
    /// `tableconvertor_test.go` builds one.
    pub fn from_parts(headers: Vec<ColumnDefinition>, columns: Vec<JsonPath>) -> Convertor {
        Convertor { headers, columns }
    }

    /// The column definitions (Name first).
    pub fn headers(&self) -> &[ColumnDefinition] {
        &self.headers
    }

    /// `ConvertToTable(obj, tableOptions)` for one object: the Name cell (`metadata.name`),
    /// then per column the first result of its JSONPath (none, or an evaluation error, is a
    /// `nil` cell), printed as JSONPath prints it for `string` columns, else through
    /// [`cell_for_json_value`]. Ages are computed against `now`.
    pub fn convert_to_table(
        &self,
        object: &Json,
        no_headers: bool,
        now: Option<Time>,
    ) -> Result<Table, String> {
        let Json::Object(map) = object else {
            return Err("object does not implement the Object interfaces".to_owned());
        };
        let name = map
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Json::as_str)
            .unwrap_or("");
        let mut cells = vec![Cell::Str(name.to_owned())];
        for (i, column) in self.columns.iter().enumerate() {
            let Some(header) = self.headers.get(i + 1) else {
                return Err(format!("column {i} has no header"));
            };
            let value = match column.find_results(object) {
                Ok(results) => results
                    .first()
                    .and_then(|r| r.first())
                    .map(Value::interface),
                Err(_) => None,
            };
            let Some(value) = value else {
                cells.push(Cell::Null);
                continue;
            };
            if header.type_ == "string" {
                cells.push(match print_results(&[value]) {
                    Ok(s) => Cell::Str(s),
                    Err(_) => Cell::Null,
                });
            } else {
                cells.push(cell_for_json_value(&header.type_, &value, now));
            }
        }
        Ok(Table {
            column_definitions: if no_headers {
                Vec::new()
            } else {
                self.headers.clone()
            },
            rows: vec![cells],
        })
    }
}

/// `cellForJSONValue(headerType, value)`: the cell of a typed column. `integer` takes int64
/// and float64 (truncated), `number` int64 (as float64) and float64, `boolean` and `string`
/// only their own type, `date` a string: its age (`<invalid>` when it is not RFC 3339,
/// `<unknown>` for an empty string, `null` or the zero time). Anything else is `nil`.
pub fn cell_for_json_value(column_type: &str, value: &Value, now: Option<Time>) -> Cell {
    let json = value.json();
    match (column_type, value, json) {
        (_, Value::Invalid, _) | (_, _, Some(Json::Null)) => Cell::Null,
        ("integer", _, Some(Json::Number(n))) => match n.as_i64() {
            Some(i) => Cell::Int(i),
            None => Cell::Int(go_float_to_int64(n.as_f64().unwrap_or(0.0))),
        },
        ("integer", Value::Float(f), _) => Cell::Int(go_float_to_int64(*f)),
        ("number", _, Some(Json::Number(n))) => Cell::Float(n.as_f64().unwrap_or(0.0)),
        ("number", Value::Float(f), _) => Cell::Float(*f),
        ("boolean", _, Some(Json::Bool(b))) | ("boolean", Value::Bool(b), _) => Cell::Bool(*b),
        ("string", _, Some(Json::String(s))) => Cell::Str(s.clone()),
        ("string", Value::Text(s), _) => Cell::Str(s.clone()),
        ("date", _, Some(Json::String(s))) => Cell::Str(date_cell(s, now)),
        ("date", Value::Text(s), _) => Cell::Str(date_cell(s, now)),
        _ => Cell::Null,
    }
}

/// Go's `int64(f)` on amd64: truncation toward zero; NaN and values out of range give the
/// "integer indefinite" value, the minimum int64.
fn go_float_to_int64(f: f64) -> i64 {
    if f.is_nan() || !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        i64::MIN
    } else {
        f.trunc() as i64
    }
}

/// `metav1.Time.UnmarshalQueryParameter` then `ConvertToHumanReadableDateType`.
fn date_cell(s: &str, now: Option<Time>) -> String {
    let time = if s.is_empty() || s == "null" {
        Time::ZERO
    } else {
        match parse_rfc3339(s) {
            Ok(t) => t,
            Err(_) => return "<invalid>".to_owned(),
        }
    };
    if time.is_zero() {
        return "<unknown>".to_owned();
    }
    human_duration(since(now.unwrap_or(time), time))
}

/// `now.Sub(t)` in nanoseconds, saturated to Go's `Duration` range.
pub fn since(now: Time, t: Time) -> i64 {
    let nanos = |t: Time| i128::from(t.unix) * 1_000_000_000 + i128::from(t.nanos);
    let d = nanos(now) - nanos(t);
    d.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// `duration.HumanDuration`: about two to three significant figures (`45s`, `5m3s`, `12m`,
/// `3h4m`, `10h`, `2d5h`, `30d`, `2y10d`, `9y`); `<invalid>` below -1 s, `0s` just below 0.
pub fn human_duration(d: i64) -> String {
    const SECOND: i64 = 1_000_000_000;
    const MINUTE: i64 = 60 * SECOND;
    const HOUR: i64 = 60 * MINUTE;
    let seconds = d / SECOND;
    if seconds < -1 {
        return "<invalid>".to_owned();
    } else if seconds < 0 {
        return "0s".to_owned();
    } else if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = d / MINUTE;
    if minutes < 10 {
        let s = (d / SECOND) % 60;
        if s == 0 {
            return format!("{minutes}m");
        }
        return format!("{minutes}m{s}s");
    } else if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = d / HOUR;
    if hours < 8 {
        let m = (d / MINUTE) % 60;
        if m == 0 {
            return format!("{hours}h");
        }
        format!("{hours}h{m}m")
    } else if hours < 48 {
        format!("{hours}h")
    } else if hours < 24 * 8 {
        let h = hours % 24;
        if h == 0 {
            return format!("{}d", hours / 24);
        }
        format!("{}d{h}h", hours / 24)
    } else if hours < 24 * 365 * 2 {
        format!("{}d", hours / 24)
    } else if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        if dy == 0 {
            return format!("{}y", hours / 24 / 365);
        }
        format!("{}y{dy}d", hours / 24 / 365)
    } else {
        format!("{}y", hours / 24 / 365)
    }
}

// ---------------------------------------------------------------------------------------
// kubectl's rendering

/// One object's table as `kubectl get` receives it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrintTable {
    /// The resource it was read from (`group/version/plural`): kubectl starts a new table,
    /// after a blank line, whenever this changes.
    pub resource: String,
    /// The object's `Kind.group` (kubectl's `GroupKind`), shown before names
    /// (`kind.group/name`, lowercased) when the objects are of several GVKs.
    pub group_kind: String,
    /// The column definitions (Name first).
    pub columns: Vec<ColumnDefinition>,
    /// The rows, cells as the JSON response carries them ([`Cell::to_wire`]).
    pub rows: Vec<Vec<Json>>,
}

/// `kubectl get` output options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// `-o wide`: also the columns with a priority above 0.
    pub wide: bool,
    /// `--no-headers`.
    pub no_headers: bool,
}

/// What `kubectl get` prints for the tables the server returned, one per object in the order
/// kubectl fetched them (`kubectl get -f FILE...`): headers once per run of objects of one
/// resource, the columns aligned by the tab writer. Empty when there is nothing to print.
pub fn kubectl_get(tables: &[PrintTable], options: PrintOptions) -> String {
    let with_kind = tables
        .first()
        .is_some_and(|first| tables.iter().any(|t| t.resource != first.resource));
    let mut sink = Sink::default();
    let mut w = TabWriter::default();
    let mut last_resource: Option<&str> = None;
    let mut printer = Printer::default();
    for table in tables {
        if last_resource != Some(table.resource.as_str()) {
            w.flush(&mut sink);
            w.max_widths.clear();
            if last_resource.is_some() && !options.no_headers && sink.written > 0 {
                sink.ready = true;
            }
            printer = Printer::default();
            last_resource = Some(&table.resource);
        }
        printer.print(table, options, with_kind, &mut w, &mut sink);
    }
    w.flush(&mut sink);
    sink.out
}

/// `HumanReadablePrinter`'s state.
#[derive(Default)]
struct Printer {
    last_columns: Vec<ColumnDefinition>,
    printed_headers: bool,
}

impl Printer {
    /// `PrintObj` for a table, then `printTable`.
    fn print(
        &mut self,
        table: &PrintTable,
        options: PrintOptions,
        with_kind: bool,
        w: &mut TabWriter,
        sink: &mut Sink,
    ) {
        let mut no_headers = options.no_headers;
        if self.printed_headers && (table.columns.is_empty() || table.columns == self.last_columns)
        {
            no_headers = true;
        }
        let columns = if table.columns.is_empty() {
            self.last_columns.clone()
        } else {
            if table.columns != self.last_columns {
                self.last_columns = table.columns.clone();
                self.printed_headers = false;
            }
            table.columns.clone()
        };
        if !table.rows.is_empty() {
            self.printed_headers = true;
        }
        // decorateTable: `kind.group/name` in the Name column.
        let mut rows = table.rows.clone();
        if with_kind && !table.group_kind.is_empty() {
            if let Some(name_col) = columns
                .iter()
                .position(|c| c.format == "name" && c.type_ == "string")
            {
                for row in &mut rows {
                    if let Some(cell) = row.get_mut(name_col) {
                        let name = match &*cell {
                            Json::String(s) => s.clone(),
                            Json::Null => "%!s(<nil>)".to_owned(),
                            other => go_sprint(other),
                        };
                        *cell = Json::String(format!("{}/{name}", table.group_kind.to_lowercase()));
                    }
                }
            }
        }
        print_table(&columns, &rows, options.wide, no_headers, w, sink);
    }
}

/// `fmt.Sprint` of a cell read back from JSON (integers as int64, other numbers float64).
fn go_sprint(cell: &Json) -> String {
    match cell {
        Json::String(s) => s.clone(),
        Json::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => go_float_v(n.as_f64().unwrap_or(0.0)),
        },
        Json::Bool(b) => b.to_string(),
        Json::Null => "<nil>".to_owned(),
        other => other.to_string(),
    }
}

/// Go's `strings.ToUpper`: the simple upper-case mapping of each rune.
fn go_to_upper(s: &str) -> String {
    s.chars()
        .map(|c| {
            let mut up = c.to_uppercase();
            match (up.next(), up.next()) {
                (Some(u), None) => u,
                _ => c,
            }
        })
        .collect()
}

/// `printTable` writing to the tab writer.
fn print_table(
    columns: &[ColumnDefinition],
    rows: &[Vec<Json>],
    wide: bool,
    no_headers: bool,
    w: &mut TabWriter,
    sink: &mut Sink,
) {
    let visible = |i: usize| wide || columns.get(i).is_some_and(|c| c.priority == 0);
    let mut max_widths = vec![0usize; if rows.is_empty() { 0 } else { columns.len() }];
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(columns.len()) {
            if !visible(i) || cell.is_null() {
                continue;
            }
            let l = go_sprint(cell).len();
            if let Some(m) = max_widths.get_mut(i) {
                *m = (*m).max(l);
            }
        }
    }
    let last_visible = (0..columns.len()).rev().find(|i| visible(*i));
    if !no_headers {
        if rows.is_empty() {
            return;
        }
        let mut line = String::new();
        let mut first = true;
        for (i, column) in columns.iter().enumerate() {
            if !visible(i) {
                continue;
            }
            if !first {
                line.push('\t');
            }
            first = false;
            let name = go_to_upper(&column.name);
            line.push_str(&name);
            if Some(i) != last_visible {
                if let Some(m) = max_widths.get(i) {
                    line.push_str(&" ".repeat(m.saturating_sub(name.len())));
                }
            }
        }
        line.push('\n');
        w.write(&line, sink);
    }
    let pad_first_row = no_headers && !max_widths.is_empty();
    for (ri, row) in rows.iter().enumerate() {
        let mut line = String::new();
        let mut first = true;
        for (i, cell) in row.iter().enumerate().take(columns.len()) {
            if !visible(i) {
                continue;
            }
            if !first {
                line.push('\t');
            }
            first = false;
            let mut cell_len = 0;
            if !cell.is_null() {
                let text = go_sprint(cell);
                cell_len = text.len();
                line.push_str(&cell_text(&text));
            }
            if pad_first_row && ri == 0 && Some(i) != last_visible {
                if let Some(m) = max_widths.get(i) {
                    line.push_str(&" ".repeat(m.saturating_sub(cell_len)));
                }
            }
        }
        line.push('\n');
        w.write(&line, sink);
        if (ri + 1) % 100 == 0 {
            w.flush(sink);
        }
    }
}

/// `appendCellValue`: cut at the first form feed, newline or carriage return (adding `...`),
/// and escape ESC as `^[` (and `\r` as `\r`, unreachable after the cut).
fn cell_text(value: &str) -> String {
    let (text, cut) = match value.find(['\u{c}', '\n', '\r']) {
        Some(i) => (value.get(..i).unwrap_or(""), true),
        None => (value, false),
    };
    let mut out = text.replace('\u{1b}', "^[").replace('\r', "\\r");
    if cut {
        out.push_str("...");
    }
    out
}

/// kubectl's output stream: the separator writer (a blank line before the next output once
/// `ready`) and the tracking writer (bytes written).
#[derive(Default)]
struct Sink {
    out: String,
    ready: bool,
    written: usize,
}

impl Sink {
    fn write(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        if self.ready {
            self.out.push('\n');
            self.written += 1;
            self.ready = false;
        }
        self.out.push_str(s);
        self.written += s.len();
    }
}

/// A cell of the tab writer: its text and width in runes.
#[derive(Clone, Debug, Default)]
struct TwCell {
    text: String,
    width: usize,
}

/// `text/tabwriter` as forked by liggitt (`RememberWidths`), with kubectl's settings.
struct TabWriter {
    lines: Vec<Vec<TwCell>>,
    cell: String,
    widths: Vec<usize>,
    max_widths: Vec<usize>,
}

impl Default for TabWriter {
    fn default() -> TabWriter {
        TabWriter {
            lines: vec![Vec::new()],
            cell: String::new(),
            widths: Vec::new(),
            max_widths: Vec::new(),
        }
    }
}

const MIN_WIDTH: usize = 6;
const PADDING: usize = 3;

impl TabWriter {
    fn terminate_cell(&mut self) -> usize {
        let text = std::mem::take(&mut self.cell);
        let cell = TwCell {
            width: text.chars().count(),
            text,
        };
        if self.lines.is_empty() {
            self.lines.push(Vec::new());
        }
        match self.lines.last_mut() {
            Some(line) => {
                line.push(cell);
                line.len()
            }
            None => 0,
        }
    }

    fn write(&mut self, text: &str, sink: &mut Sink) {
        for ch in text.chars() {
            match ch {
                '\t' | '\u{b}' | '\n' | '\u{c}' => {
                    let ncells = self.terminate_cell();
                    if ch == '\n' || ch == '\u{c}' {
                        self.lines.push(Vec::new());
                        if ch == '\u{c}' || ncells == 1 {
                            self.flush(sink);
                        }
                    }
                }
                c => self.cell.push(c),
            }
        }
    }

    fn flush(&mut self, sink: &mut Sink) {
        if !self.cell.is_empty() {
            self.terminate_cell();
        }
        self.format(sink);
        self.lines = vec![Vec::new()];
        self.cell.clear();
        self.widths.clear();
    }

    /// `format(0, 0, len(lines))`, the recursion over column blocks as an explicit stack.
    fn format(&mut self, sink: &mut Sink) {
        struct Frame {
            line0: usize,
            this: usize,
            line1: usize,
        }
        let cells_in = |lines: &[Vec<TwCell>], i: usize| lines.get(i).map_or(0, Vec::len);
        let mut stack = vec![Frame {
            line0: 0,
            this: 0,
            line1: self.lines.len(),
        }];
        while let Some(frame) = stack.last_mut() {
            let column = self.widths.len();
            while frame.this < frame.line1 && column + 1 >= cells_in(&self.lines, frame.this) {
                frame.this += 1;
            }
            if frame.this < frame.line1 {
                let (line0, start) = (frame.line0, frame.this);
                // The block: the lines from `start` that have a cell in this column.
                let mut end = start;
                let mut width = MIN_WIDTH;
                while end < frame.line1 && column + 1 < cells_in(&self.lines, end) {
                    if let Some(c) = self.lines.get(end).and_then(|l| l.get(column)) {
                        width = width.max(c.width + PADDING);
                    }
                    end += 1;
                }
                frame.line0 = end;
                frame.this = end + 1;
                self.write_lines(line0, start, sink);
                // RememberWidths.
                if self.max_widths.len() < self.widths.len() {
                    let from = self.max_widths.len();
                    self.max_widths
                        .extend_from_slice(self.widths.get(from..).unwrap_or_default());
                }
                match self.max_widths.get_mut(column) {
                    None => self.max_widths.push(width),
                    Some(m) if *m > width => width = *m,
                    Some(m) => *m = width,
                }
                self.widths.push(width);
                stack.push(Frame {
                    line0: start,
                    this: start,
                    line1: end,
                });
            } else {
                let (line0, line1) = (frame.line0, frame.line1);
                self.write_lines(line0, line1, sink);
                stack.pop();
                if !stack.is_empty() {
                    self.widths.pop();
                }
            }
        }
    }

    fn write_lines(&self, line0: usize, line1: usize, sink: &mut Sink) {
        for i in line0..line1 {
            let Some(line) = self.lines.get(i) else {
                continue;
            };
            let mut out = String::new();
            for (j, c) in line.iter().enumerate() {
                out.push_str(&c.text);
                if let Some(w) = self.widths.get(j) {
                    out.push_str(&" ".repeat(w.saturating_sub(c.width)));
                }
            }
            if i + 1 != self.lines.len() {
                out.push('\n');
            }
            sink.write(&out);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Columns that cannot work

/// A problem with one printer column of one version, found without an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnProblem {
    /// The column's index among the version's declared columns.
    pub index: usize,
    /// What is wrong, in words.
    pub message: String,
}

/// Where a path step may be in the schema.
#[derive(Clone, Copy)]
enum At<'s> {
    /// A schema node; `resource` when it is an object root or embedded resource (so it has
    /// `apiVersion`, `kind` and `metadata` without declaring them).
    Schema(&'s Structural, bool),
    /// `metadata` (ObjectMeta).
    Meta,
    /// Anything (unknown fields kept, int-or-string, a subtree not followed further).
    Any,
}

/// The problems of a version's columns that the server does not report: a JSONPath it
/// cannot parse (it then serves only the columns before it), a path that can never match
/// anything the schema allows, a column type that can never show the field's values.
/// Paths through unknown fields (`x-kubernetes-preserve-unknown-fields`), int-or-string
/// values, `..`, unions and `{range}` are not judged.
pub fn column_findings(columns: &[CrdColumn], schema: Option<&Structural>) -> Vec<ColumnProblem> {
    let mut problems = Vec::new();
    for (index, column) in columns.iter().enumerate() {
        let path = match JsonPath::parse(&format!("{{{}}}", column.json_path)) {
            Ok(p) => p,
            Err(e) => {
                let later = columns.len() - index - 1;
                problems.push(ColumnProblem {
                    index,
                    message: format!(
                        "the API server cannot parse this printer column's JSONPath ({}: {e}): \
                         it serves `kubectl get` with the columns before this one only{}",
                        ColumnParseError {
                            index,
                            json_path: column.json_path.clone(),
                            parse_error: e.clone(),
                        }
                        .server_text(),
                        match later {
                            0 => String::new(),
                            1 => " (this column and the 1 after it are not shown)".to_owned(),
                            n => format!(" (this column and the {n} after it are not shown)"),
                        }
                    ),
                });
                // The server stops at the first column it cannot parse.
                break;
            }
        };
        let Some(schema) = schema else {
            continue;
        };
        if let Some(message) = judge_path(&path, column, schema) {
            problems.push(ColumnProblem { index, message });
        }
    }
    problems
}

/// Follows a simple path (fields, indexes, filters) through the schema.
fn judge_path(path: &JsonPath, column: &CrdColumn, schema: &Structural) -> Option<String> {
    let [Node::List(steps)] = path.nodes() else {
        return None;
    };
    let mut at = At::Schema(schema, true);
    let mut walked = String::new();
    for step in steps {
        match step {
            Node::Field(name) => {
                let next = match at {
                    At::Any => At::Any,
                    At::Meta => {
                        if crate::object::objectmeta::OBJECT_META_FIELDS.contains(&name.as_str()) {
                            At::Any
                        } else {
                            return Some(format!(
                                "this column can never show a value: `{}` has no field `{name}` (ObjectMeta has no such field)",
                                display(&walked)
                            ));
                        }
                    }
                    At::Schema(s, resource) => {
                        if resource && (name == "apiVersion" || name == "kind") {
                            At::Any
                        } else if resource && name == "metadata" {
                            At::Meta
                        } else if let Some(child) = s.properties.get(name) {
                            let embedded = child.extensions.x_embedded_resource;
                            At::Schema(child, embedded)
                        } else if let Some(ap) = s.additional_properties_schema() {
                            At::Schema(ap, ap.extensions.x_embedded_resource)
                        } else if s.additional_properties.as_ref().is_some_and(|a| a.bool_)
                            || s.extensions.x_preserve_unknown_fields
                            || s.extensions.x_int_or_string
                        {
                            At::Any
                        } else if s.generic.type_ == "object" {
                            return Some(format!(
                                "this column can never show a value: the schema has no field `{name}` under `{}`",
                                display(&walked)
                            ));
                        } else if s.generic.type_.is_empty() {
                            At::Any
                        } else {
                            return Some(format!(
                                "this column can never show a value: `{}` is {}, which has no field `{name}`",
                                display(&walked),
                                a_type(&s.generic.type_)
                            ));
                        }
                    }
                };
                walked.push('.');
                walked.push_str(name);
                at = next;
            }
            Node::Array(_) | Node::Filter { .. } => {
                let next = match at {
                    At::Any => At::Any,
                    At::Meta => {
                        return Some(format!(
                            "this column can never show a value: `{}` is an object, not a list",
                            display(&walked)
                        ))
                    }
                    At::Schema(s, _) => {
                        if s.extensions.x_int_or_string || s.generic.type_.is_empty() {
                            At::Any
                        } else if s.generic.type_ == "array" {
                            match s.items.as_deref() {
                                Some(items) => {
                                    At::Schema(items, items.extensions.x_embedded_resource)
                                }
                                None => At::Any,
                            }
                        } else {
                            return Some(format!(
                                "this column can never show a value: `{}` is {}, not a list",
                                display(&walked),
                                a_type(&s.generic.type_)
                            ));
                        }
                    }
                };
                walked.push_str(if matches!(step, Node::Filter { .. }) {
                    "[?(...)]"
                } else {
                    "[...]"
                });
                at = next;
            }
            // `.*`, `..`, unions, literals and `{range}` are not followed.
            _ => return None,
        }
    }
    // The value's type against the column's type.
    let At::Schema(s, _) = at else {
        return None;
    };
    if s.extensions.x_int_or_string || s.generic.type_.is_empty() {
        return None;
    }
    let t = s.generic.type_.as_str();
    let fits = match column.type_.as_str() {
        "integer" | "number" => matches!(t, "integer" | "number"),
        "boolean" => t == "boolean",
        "date" => t == "string",
        _ => true,
    };
    (!fits).then(|| {
        format!(
            "this {} column is always empty: `{}` is {}, and the server shows {} here",
            column.type_,
            display(&walked),
            a_type(t),
            match column.type_.as_str() {
                "integer" | "number" => "only numbers",
                "boolean" => "only booleans",
                _ => "only strings (timestamps)",
            }
        )
    })
}

fn display(walked: &str) -> &str {
    if walked.is_empty() {
        "."
    } else {
        walked
    }
}

fn a_type(t: &str) -> String {
    match t {
        "array" => "a list".to_owned(),
        "object" => "an object".to_owned(),
        "integer" => "an integer".to_owned(),
        other => format!("a {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SECOND: i64 = 1_000_000_000;
    const MINUTE: i64 = 60 * SECOND;
    const HOUR: i64 = 60 * MINUTE;
    const DAY: i64 = 24 * HOUR;

    /// apimachinery duration_test.go TestHumanDuration and TestHumanDurationBoundaries.
    #[test]
    fn human_durations() {
        let cases = [
            (SECOND, "1s"),
            (70 * SECOND, "70s"),
            (190 * SECOND, "3m10s"),
            (70 * MINUTE, "70m"),
            (47 * HOUR, "47h"),
            (49 * HOUR, "2d1h"),
            ((8 * 24 + 2) * HOUR, "8d"),
            (367 * DAY, "367d"),
            ((365 * 2 * 24 + 25) * HOUR, "2y1d"),
            ((365 * 8 * 24 + 2) * HOUR, "8y"),
            (-2 * SECOND, "<invalid>"),
            (-2 * SECOND + 1, "0s"),
            (0, "0s"),
            (SECOND - 1_000_000, "0s"),
            (2 * MINUTE - 1_000_000, "119s"),
            (2 * MINUTE, "2m"),
            (2 * MINUTE + SECOND, "2m1s"),
            (10 * MINUTE - 1_000_000, "9m59s"),
            (10 * MINUTE + SECOND, "10m"),
            (3 * HOUR - 1_000_000, "179m"),
            (3 * HOUR, "3h"),
            (3 * HOUR + MINUTE, "3h1m"),
            (8 * HOUR - 1_000_000, "7h59m"),
            (8 * HOUR + 59 * MINUTE, "8h"),
            (2 * DAY - 1_000_000, "47h"),
            (2 * DAY, "2d"),
            (8 * DAY - 1_000_000, "7d23h"),
            (8 * DAY + 23 * HOUR, "8d"),
            (2 * 365 * DAY - 1_000_000, "729d"),
            (2 * 365 * DAY, "2y"),
            (2 * 365 * DAY + DAY, "2y1d"),
            (8 * 365 * DAY - 1_000_000, "7y364d"),
            (8 * 365 * DAY + 364 * DAY, "8y"),
            (i64::MAX, "292y"),
        ];
        for (d, want) in cases {
            assert_eq!(human_duration(d), want, "{d}");
        }
    }

    fn t(s: &str) -> Time {
        parse_rfc3339(s).unwrap()
    }

    /// tableconvertor_test.go Test_cellForJSONValue, and the date texts.
    #[test]
    fn cells_for_json_values() {
        let now = Some(t("2026-01-02T12:30:00Z"));
        let cases: [(&str, Json, Cell); 19] = [
            ("integer", json!(42), Cell::Int(42)),
            ("integer", json!(3.25), Cell::Int(3)),
            ("integer", json!(-3.9), Cell::Int(-3)),
            ("integer", json!(true), Cell::Null),
            ("integer", json!("foo"), Cell::Null),
            ("number", json!(42), Cell::Float(42.0)),
            ("number", json!(3.25), Cell::Float(3.25)),
            ("number", json!(true), Cell::Null),
            ("boolean", json!(42), Cell::Null),
            ("boolean", json!(true), Cell::Bool(true)),
            ("string", json!(42), Cell::Null),
            ("string", json!("foo"), Cell::Str("foo".into())),
            ("date", json!(42), Cell::Null),
            (
                "date",
                json!("2026-01-02T00:00:00Z"),
                Cell::Str("12h".into()),
            ),
            (
                "date",
                json!("2026-01-02T12:29:58.5Z"),
                Cell::Str("1s".into()),
            ),
            ("date", json!("yesterday"), Cell::Str("<invalid>".into())),
            ("date", json!(""), Cell::Str("<unknown>".into())),
            (
                "date",
                json!("0001-01-01T00:00:00Z"),
                Cell::Str("<unknown>".into()),
            ),
            ("unknown", json!("foo"), Cell::Null),
        ];
        for (column_type, value, want) in cases {
            let got = cell_for_json_value(column_type, &Value::of(&value), now);
            assert_eq!(got, want, "{column_type} {value}");
        }
        // Without a clock every valid date reads `0s`.
        let old = json!("2019-02-15T19:23:48Z");
        assert_eq!(
            cell_for_json_value("date", &Value::of(&old), None),
            Cell::Str("0s".into())
        );
        // Dates after the clock: `HumanDuration(time.Since(t))` (apimachinery
        // `pkg/util/duration`) reads `<invalid>` once `int(d.Seconds()) < -1`, `0s` within
        // the two seconds it tolerates; `time.Since` saturates for far dates.
        for (date, want) in [
            ("2026-01-03T00:00:00Z", "<invalid>"),
            ("2026-01-02T12:30:01.9Z", "0s"),
            ("2026-01-02T12:30:02Z", "<invalid>"),
            ("9999-12-31T23:59:59Z", "<invalid>"),
        ] {
            assert_eq!(
                cell_for_json_value("date", &Value::of(&json!(date)), now),
                Cell::Str(want.into()),
                "{date}"
            );
        }
        // Go types and the JSON the server writes.
        assert_eq!(Cell::Float(42.0).go_type(), Some("float64"));
        assert_eq!(Cell::Float(42.0).to_wire(), json!(42));
        assert_eq!(Cell::Float(1e21).to_wire(), json!(1e21));
        assert_eq!(Cell::Float(42.0).to_value(), json!(42.0));
        assert_eq!(Cell::Null.go_type(), None);
    }

    fn column(name: &str, type_: &str, json_path: &str) -> CrdColumn {
        CrdColumn {
            name: name.into(),
            type_: type_.into(),
            json_path: json_path.into(),
            ..CrdColumn::default()
        }
    }

    /// Test_convertor_ConvertToTable and the integration test's cells.
    #[test]
    fn convert_to_table() {
        let object = json!({
            "apiVersion": "example.istio.io/v1alpha1", "kind": "Blah",
            "metadata": {"name": "blah", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {
                "servers": [{"hosts": ["foo"]}, {"hosts": ["bar", "baz"]}],
                "foo": [{"bar": [1]}, {"bar": [2, 3]}],
                "alpha": "foo_123", "beta": 10, "gamma": "bar", "epsilon": [1, 2, 3],
                "nothing": null, "html": {"a": "<b>"}, "big": 1e6
            }
        });
        let columns = [
            column("valueOnly", "string", ".spec.servers[0].hosts[0]"),
            column("single1", "string", ".spec.servers[0].hosts"),
            column("multi", "string", ".spec.servers[*].hosts"),
            column("int", "integer", ".spec.foo[0].bar[0]"),
            column("intList", "integer", ".spec.foo[0].bar"),
            column("Age", "date", ".metadata.creationTimestamp"),
            column("Gamma", "integer", ".spec.gamma"),
            column("Epsilon", "string", ".spec.epsilon"),
            column("Missing", "string", ".spec.missing"),
            column("Null", "string", ".spec.nothing"),
            column("Html", "string", ".spec.html"),
            column("Big", "string", ".spec.big"),
            column("BadIndex", "string", ".spec.epsilon[7]"),
        ];
        let (c, err) = Convertor::new(&columns);
        assert_eq!(err, None);
        let table = c
            .convert_to_table(&object, false, Some(t("2026-01-01T00:05:00Z")))
            .unwrap();
        let cells: Vec<Json> = table.rows[0].iter().map(Cell::to_value).collect();
        assert_eq!(
            cells,
            vec![
                json!("blah"),
                json!("foo"),
                json!(r#"["foo"]"#),
                json!(r#"["foo"]"#),
                json!(1),
                Json::Null,
                json!("5m"),
                Json::Null,
                json!("[1,2,3]"),
                Json::Null,
                json!("<no value>"),
                json!(r#"{"a":"\u003cb\u003e"}"#),
                json!("1e+06"),
                Json::Null,
            ]
        );
        assert_eq!(table.column_definitions.len(), columns.len() + 1);
        assert_eq!(table.column_definitions[0].format, "name");
        assert_eq!(
            table.column_definitions[1].description,
            "Custom resource definition column (in JSONPath format): .spec.servers[0].hosts[0]"
        );
        let no_headers = c.convert_to_table(&object, true, None).unwrap();
        assert!(no_headers.column_definitions.is_empty());
    }

    /// `New` stops at the first column it cannot parse.
    #[test]
    fn unparsable_column() {
        let columns = [
            column("A", "string", ".a"),
            column("B", "string", ".b["),
            column("C", "string", ".c"),
        ];
        let (c, err) = Convertor::new(&columns);
        assert_eq!(c.headers().len(), 2);
        let err = err.unwrap();
        assert_eq!(err.index, 1);
        assert_eq!(err.server_text(), r#"unrecognized column definition ".b[""#);
        assert_eq!(err.parse_error, "unterminated array");
    }

    fn defs(cols: &[(&str, i64)]) -> Vec<ColumnDefinition> {
        cols.iter()
            .map(|(n, p)| ColumnDefinition {
                name: (*n).into(),
                type_: "string".into(),
                priority: *p,
                ..ColumnDefinition::default()
            })
            .collect()
    }

    fn pods() -> Vec<Vec<Json>> {
        vec![
            vec![
                json!("test1"),
                json!("1/1"),
                json!("podPhase"),
                json!(5),
                json!("20h"),
            ],
            vec![
                json!("test2"),
                json!("1/2"),
                json!("podPhase"),
                json!(30),
                json!("21h"),
            ],
            vec![
                json!("test3"),
                json!("4/4"),
                json!("podPhase"),
                json!(1),
                json!("22h"),
            ],
        ]
    }

    fn print(
        columns: Vec<ColumnDefinition>,
        rows: Vec<Vec<Json>>,
        options: PrintOptions,
    ) -> String {
        kubectl_get(
            &[PrintTable {
                resource: "r".into(),
                group_kind: "Pod".into(),
                columns,
                rows,
            }],
            options,
        )
    }

    /// cli-runtime tableprinter_test.go: priorities, headers, no headers, strings.
    #[test]
    fn kubectl_tables() {
        let five = [
            ("Name", 0),
            ("Ready", 0),
            ("Status", 0),
            ("Retries", 1),
            ("Age", 1),
        ];
        let plain = PrintOptions::default();
        let wide = PrintOptions {
            wide: true,
            ..plain
        };
        let no_headers = PrintOptions {
            no_headers: true,
            ..plain
        };
        assert_eq!(print(defs(&five), Vec::new(), plain), "");
        assert_eq!(
            print(defs(&five), pods()[..1].to_vec(), plain),
            "NAME    READY   STATUS\ntest1   1/1     podPhase\n"
        );
        assert_eq!(
            print(defs(&five), pods(), plain),
            "NAME    READY   STATUS\ntest1   1/1     podPhase\ntest2   1/2     podPhase\ntest3   4/4     podPhase\n"
        );
        assert_eq!(
            print(defs(&five), pods(), wide),
            "NAME    READY   STATUS     RETRIES   AGE\n\
             test1   1/1     podPhase   5         20h\n\
             test2   1/2     podPhase   30        21h\n\
             test3   4/4     podPhase   1         22h\n"
        );
        let all = [
            ("Name", 0),
            ("Ready", 0),
            ("Status", 0),
            ("Retries", 0),
            ("Age", 0),
        ];
        assert_eq!(
            print(defs(&all), pods(), no_headers),
            "test1   1/1   podPhase   5     20h\ntest2   1/2   podPhase   30    21h\ntest3   4/4   podPhase   1     22h\n"
        );
        let three = [("Name", 0), ("Age", 0), ("Description", 0)];
        let row = |d: &str| vec![vec![json!("test1"), json!("20h"), json!(d)]];
        assert_eq!(
            print(
                defs(&three),
                row("This is first line\nThis is second line\n"),
                plain
            ),
            "NAME    AGE   DESCRIPTION\ntest1   20h   This is first line...\n"
        );
        assert_eq!(
            print(
                defs(&[("Name", 0)]),
                vec![vec![json!("test1\u{1b}")]],
                plain
            ),
            "NAME\ntest1^[\n"
        );
        // A nil cell is empty; a float prints as Go's %v.
        assert_eq!(
            print(
                defs(&[("Name", 0), ("Size", 0), ("Ratio", 0)]),
                vec![vec![json!("a"), Json::Null, json!(1e-7)]],
                plain
            ),
            "NAME   SIZE   RATIO\na             1e-07\n"
        );
    }

    /// Rows of several resources: a blank line and new headers for each run, names prefixed
    /// with the kind; widths are not shared across runs.
    #[test]
    fn kubectl_several_resources() {
        let cols = defs(&[("Name", 0), ("Color", 0)]);
        let mut cols_named = cols.clone();
        cols_named[0].format = "name".into();
        let table = |resource: &str, name: &str, color: &str| PrintTable {
            resource: resource.into(),
            group_kind: "Shirt.stable.example.com".into(),
            columns: cols_named.clone(),
            rows: vec![vec![json!(name), json!(color)]],
        };
        let out = kubectl_get(
            &[
                table("v1", "example1", "blue"),
                table("v1", "example-two", "green"),
                table("v2", "x", "red"),
            ],
            PrintOptions::default(),
        );
        assert_eq!(
            out,
            "NAME                                   COLOR\n\
             shirt.stable.example.com/example1      blue\n\
             shirt.stable.example.com/example-two   green\n\
             \n\
             NAME                         COLOR\n\
             shirt.stable.example.com/x   red\n"
        );
        // One resource: plain names, one header, aligned over every row.
        let out = kubectl_get(
            &[
                table("v1", "example1", "blue"),
                table("v1", "example-two", "green"),
            ],
            PrintOptions::default(),
        );
        assert_eq!(
            out,
            "NAME          COLOR\nexample1      blue\nexample-two   green\n"
        );
    }

    /// Widths stay aligned across the flush every 100 rows.
    #[test]
    fn kubectl_alignment_across_flushes() {
        let mut rows: Vec<Vec<Json>> = (0..250)
            .map(|_| vec![json!("a"), json!("Running")])
            .collect();
        rows.push(vec![
            json!("a-name-that-is-significantly-wider"),
            json!("Running"),
        ]);
        let out = print(
            defs(&[("Name", 0), ("Status", 0)]),
            rows,
            PrintOptions::default(),
        );
        let starts: Vec<usize> = out
            .lines()
            .map(|l| l.find("Running").or(l.find("STATUS")).unwrap())
            .collect();
        assert!(starts.iter().all(|s| *s == starts[0]), "{starts:?}");
        assert_eq!(starts[0], "a-name-that-is-significantly-wider".len() + 3);
    }

    fn schema(v: Json) -> Structural {
        let (props, errors) = crate::schema::JsonSchemaProps::from_json(&v);
        assert!(errors.is_empty());
        Structural::from_props(&props).unwrap()
    }

    /// Columns that can never show a value.
    #[test]
    fn column_problems() {
        let s = schema(json!({
            "type": "object",
            "properties": {
                "spec": {"type": "object", "properties": {
                    "replicas": {"type": "integer"},
                    "name": {"type": "string"},
                    "items": {"type": "array", "items": {"type": "object", "properties": {"type": {"type": "string"}}}},
                    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                    "port": {"x-kubernetes-int-or-string": true},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}}
                }},
                "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}
            }
        }));
        let cases = [
            (".spec.replicas", "integer", None),
            (".spec.foo", "string", Some("this column can never show a value: the schema has no field `foo` under `.spec`")),
            (".spec.replicas.x", "string", Some("this column can never show a value: `.spec.replicas` is an integer, which has no field `x`")),
            (".spec.name[0]", "string", Some("this column can never show a value: `.spec.name` is a string, not a list")),
            (".spec.items[?(@.type==\"A\")].type", "string", None),
            (".spec.items[0].nope", "string", Some("this column can never show a value: the schema has no field `nope` under `.spec.items[...]`")),
            (".spec.free.anything.deep", "string", None),
            (".spec.port", "integer", None),
            (".spec.port.x", "string", None),
            (".spec.labels.app", "string", None),
            (".metadata.name", "string", None),
            (".metadata.nmae", "string", Some("this column can never show a value: `.metadata` has no field `nmae` (ObjectMeta has no such field)")),
            (".metadata.labels.x", "string", None),
            (".apiVersion", "string", None),
            (".spec..name", "string", None),
            (".spec.name", "integer", Some("this integer column is always empty: `.spec.name` is a string, and the server shows only numbers here")),
            (".status.ready", "date", Some("this date column is always empty: `.status.ready` is a boolean, and the server shows only strings (timestamps) here")),
            (".spec.replicas", "number", None),
        ];
        for (path, type_, want) in cases {
            let got = column_findings(&[column("C", type_, path)], Some(&s));
            assert_eq!(got.first().map(|p| p.message.as_str()), want, "{path}");
        }
        let got = column_findings(
            &[
                column("A", "string", ".a["),
                column("B", "string", ".b"),
                column("C", "string", ".zzz"),
            ],
            Some(&s),
        );
        assert_eq!(got.len(), 1);
        assert_eq!(
            got[0].message,
            "the API server cannot parse this printer column's JSONPath (unrecognized column definition \".a[\": unterminated array): it serves `kubectl get` with the columns before this one only (this column and the 2 after it are not shown)"
        );
    }
}
