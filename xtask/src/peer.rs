//! `cargo xtask peer [DIR] [--verbose]`: the two peer tools' suites (`../shared/peer-suites`:
//! kubernetes-sigs/crdify and openshift/crd-schema-checker) run through `crd_diff`. Each
//! case's changes are rendered in the tool's result format by an adapter that maps our change
//! codes (and the data behind them) to the tool's check names and message templates, never
//! looking at the case, and compared with the expected result under the suite's matching rules
//! (see each suite's README). Prints `crdify: P passed, F failed` and
//! `crd-schema-checker: P passed, F failed`; failing cases are checked against
//! `xtask/known-failures/peer.txt` (a failure not listed fails the task, a listed case that
//! passes is reported). A case that needs a check we do not implement fails, never skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crd_studio_engine::conformance::peer::{diff_crds_detailed, ChangeDetail};
use crd_studio_engine::{read_documents, KubernetesVersion, SourceId};
use serde_json::Value as Json;

/// Runs the task.
pub fn run(args: &[String]) -> Result<bool, String> {
    let verbose = args.iter().any(|a| a == "--verbose");
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .unwrap_or_else(|| super::root().join("../shared/peer-suites"));
    if !dir.is_dir() {
        return Err(format!("{}: not found", dir.display()));
    }
    let mut failed: BTreeMap<String, String> = BTreeMap::new();
    let mut passed: BTreeSet<String> = BTreeSet::new();
    for (suite, cases) in [
        ("crdify", crdify_cases(&dir.join("crdify/cases"))?),
        (
            "crd-schema-checker",
            checker_cases(&dir.join("crd-schema-checker/cases"))?,
        ),
    ] {
        let (mut p, mut f) = (0, 0);
        for (name, outcome) in cases {
            let id = format!("{suite} :: {name}");
            match outcome {
                Ok(()) => {
                    p += 1;
                    passed.insert(id);
                }
                Err(why) => {
                    f += 1;
                    if verbose {
                        println!("FAIL {id}\n{why}\n");
                    }
                    failed.insert(id, why);
                }
            }
        }
        println!("{suite}: {p} passed, {f} failed");
    }
    check_known(&failed, &passed)
}

fn check_known(
    failed: &BTreeMap<String, String>,
    passed: &BTreeSet<String>,
) -> Result<bool, String> {
    let path = super::root().join("xtask/known-failures/peer.txt");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let known: BTreeSet<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    for id in known.iter().filter(|id| passed.contains(**id)) {
        println!("now passing, remove from the list: {id}");
    }
    let regressions: Vec<_> = failed
        .iter()
        .filter(|(id, _)| !known.contains(id.as_str()))
        .collect();
    for (id, why) in &regressions {
        println!("REGRESSION (fails, not in the known-failures list): {id}\n{why}");
    }
    if !regressions.is_empty() {
        println!(
            "{} regressions against {}",
            regressions.len(),
            path.display()
        );
    }
    Ok(regressions.is_empty())
}

fn read(p: &Path) -> Result<String, String> {
    fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))
}

fn subdirs(p: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out: Vec<PathBuf> = fs::read_dir(p)
        .map_err(|e| format!("{}: {e}", p.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    Ok(out)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A YAML text as JSON (through the engine's reader).
fn yaml(text: &str) -> Json {
    let documents = read_documents(text, SourceId::Crd);
    let value = documents.values.into_iter().next().map(|(_, v)| v);
    value.unwrap_or(Json::Null)
}

fn crd_name(text: &str) -> String {
    yaml(text)
        .pointer("/metadata/name")
        .and_then(Json::as_str)
        .unwrap_or_default()
        .to_owned()
}

// ------------------------------------------------------------------------------------------
// crdify
// ------------------------------------------------------------------------------------------

type Results = BTreeMap<String, BTreeSet<String>>;

/// A case's name and whether it passed (else why not).
type CaseOutcome = (String, Result<(), String>);

/// crdify's report: CRD-level results and per version, per property, results.
#[derive(Debug, Default, PartialEq)]
struct CrdifyReport {
    crd: Results,
    versions: BTreeMap<String, BTreeMap<String, Results>>,
}

fn crdify_cases(dir: &Path) -> Result<Vec<CaseOutcome>, String> {
    let mut out = Vec::new();
    for case in subdirs(dir)? {
        let a = read(&case.join("a.yaml"))?;
        let b = read(&case.join("b.yaml"))?;
        let expected: Json = serde_json::from_str(&read(&case.join("expected.json"))?)
            .map_err(|e| format!("{}: {e}", case.display()))?;
        let want = crdify_expected(&expected);
        let got = crdify_report(&diff_crds_detailed(
            Some(&a),
            &b,
            KubernetesVersion::DEFAULT,
        ));
        let outcome = if got == want {
            Ok(())
        } else {
            Err(format!("  expected {want:?}\n  got      {got:?}"))
        };
        out.push((file_name(&case), outcome));
    }
    Ok(out)
}

/// Whitespace normalisation: the sequence of non-blank tokens.
fn norm(s: &str) -> String {
    s.split(char::is_whitespace)
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn results(list: Option<&Json>) -> Results {
    let mut out = Results::new();
    for r in list.and_then(Json::as_array).into_iter().flatten() {
        let name = r
            .get("name")
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_owned();
        let set = out.entry(name).or_default();
        for k in ["errors", "warnings"] {
            for m in r.get(k).and_then(Json::as_array).into_iter().flatten() {
                set.insert(norm(m.as_str().unwrap_or_default()));
            }
        }
    }
    out
}

fn crdify_expected(v: &Json) -> CrdifyReport {
    let mut r = CrdifyReport {
        crd: results(v.get("crdValidation")),
        ..Default::default()
    };
    for ver in v
        .get("sameVersionValidation")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        let name = ver
            .get("version")
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_owned();
        let props = r.versions.entry(name).or_default();
        for p in ver
            .get("propertyComparisons")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            let prop = p
                .get("property")
                .and_then(Json::as_str)
                .unwrap_or_default()
                .to_owned();
            props.insert(prop, results(p.get("comparisonResults")));
        }
    }
    r
}

/// Go's `%q`.
fn q(s: &str) -> String {
    crd_studio_gostd::strconv::quote(s)
}

/// Go's `%v` of a float64 or int64 bound.
fn num(v: Option<&Json>) -> String {
    match v {
        Some(Json::Number(n)) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => {
                let f = n.as_f64().unwrap_or(0.0);
                if f.fract() == 0.0 && f.abs() < 1e21 {
                    format!("{f:.0}")
                } else {
                    crd_studio_gostd::strconv::format_float_g(f)
                }
            }
        },
        _ => String::new(),
    }
}

fn json_text(v: Option<&Json>) -> String {
    v.map(|v| serde_json::to_string(v).unwrap_or_default())
        .unwrap_or_default()
}

/// `%v` of a list of raw JSON values, sorted.
fn raw_list(values: &[Json]) -> String {
    let mut texts: Vec<String> = values.iter().map(|v| json_text(Some(v))).collect();
    texts.sort();
    format!("[{}]", texts.join(" "))
}

/// The keywords crdify's property validations handle (the rest is `unhandled`).
fn crdify_handled(keyword: &str) -> bool {
    matches!(
        keyword,
        "default"
            | "enum"
            | "maximum"
            | "maxItems"
            | "maxLength"
            | "maxProperties"
            | "minimum"
            | "minItems"
            | "minLength"
            | "minProperties"
            | "required"
            | "type"
            | "description"
            | "pattern"
            | "nullable"
    )
}

fn code(d: &ChangeDetail) -> &str {
    d.change
        .code
        .strip_prefix("crd.change.")
        .unwrap_or(&d.change.code)
}

fn crdify_report(changes: &[ChangeDetail]) -> CrdifyReport {
    let mut r = CrdifyReport::default();
    let mut stored_removed = Vec::new();
    // Unhandled keyword changes per (version, property).
    let mut unhandled: BTreeMap<(String, String), Vec<&ChangeDetail>> = BTreeMap::new();
    for d in changes {
        let version = d.change.version.clone().unwrap_or_default();
        let path = d
            .schema_path
            .as_deref()
            .map(crd_studio_engine::conformance::peer::schema_path_text);
        match code(d) {
            "scope-changed" => {
                r.crd
                    .entry("scope".into())
                    .or_default()
                    .insert(norm(&format!(
                        "scope changed : {} -> {}",
                        q(d.before.as_ref().and_then(Json::as_str).unwrap_or_default()),
                        q(d.after.as_ref().and_then(Json::as_str).unwrap_or_default())
                    )));
                continue;
            }
            "field-removed" => {
                r.crd
                    .entry("existingFieldRemoval".into())
                    .or_default()
                    .insert(norm(&format!(
                        "removed field : {version}.{}",
                        path.clone().unwrap_or_default()
                    )));
                continue;
            }
            // A version of the old CRD's status.storedVersions missing from the new CRD.
            "version-removed" if d.after == Some(Json::Bool(true)) => {
                stored_removed.push(version.clone());
                continue;
            }
            _ => {}
        }
        // Same-version property comparisons: the keyword changes of paths of the old version
        // (added fields are never compared).
        let (Some(path), Some(keyword)) = (path, d.keyword.as_deref()) else {
            continue;
        };
        if code(d).starts_with("convention-")
            || code(d).starts_with("field-")
            || code(d) == "required-field-added"
        {
            continue;
        }
        if !crdify_handled(keyword) {
            unhandled.entry((version, path)).or_default().push(d);
            continue;
        }
        let (before, after) = (d.before.as_ref(), d.after.as_ref());
        let msg = match (keyword, code(d)) {
            ("default", "default-added") => format!(
                "default added when there was none previously : {}",
                q(&json_text(after))
            ),
            ("default", "default-removed") => {
                format!("default value removed : {}", q(&json_text(before)))
            }
            ("default", _) => format!(
                "default value changed : {} -> {}",
                q(&json_text(before)),
                q(&json_text(after))
            ),
            ("enum", "enum-added") => format!(
                "enum constraint added when there was none previously : {}",
                raw_list(&d.values)
            ),
            ("enum", "enum-values-removed") | ("enum", "enum-removed") => {
                format!("allowed enum values removed : {}", raw_list(&d.values))
            }
            ("enum", "enum-values-added") => {
                // Only the first matching case is reported: removals before additions.
                let removed_too = changes.iter().any(|o| {
                    code(o) == "enum-values-removed"
                        && o.schema_path == d.schema_path
                        && o.change.version == d.change.version
                });
                if removed_too {
                    continue;
                }
                format!("allowed enum values added : {}", raw_list(&d.values))
            }
            (k, "bound-added") => {
                let which = if k.starts_with("max") {
                    "maximum"
                } else {
                    "minimum"
                };
                format!(
                    "{which} constraint added when there was none previously : {}",
                    num(after)
                )
            }
            (k, "bound-tightened") if k.starts_with("max") => {
                format!("maximum decreased : {} -> {}", num(before), num(after))
            }
            (_, "bound-tightened") => {
                format!("minimum increased : {} -> {}", num(before), num(after))
            }
            ("required", "required-added") => format!(
                "new required fields: [{}]",
                d.values
                    .iter()
                    .map(|v| v.as_str().unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            ("type", _) => format!(
                "type changed : {} -> {}",
                q(before.and_then(Json::as_str).unwrap_or_default()),
                q(after.and_then(Json::as_str).unwrap_or_default())
            ),
            ("description", _) => format!(
                "description changed : {} -> {}",
                q(before.and_then(Json::as_str).unwrap_or_default()),
                q(after.and_then(Json::as_str).unwrap_or_default())
            ),
            ("pattern", _) => format!(
                "pattern {} : {} -> {}",
                match code(d) {
                    "pattern-added" => "added",
                    "pattern-removed" => "removed",
                    _ => "changed",
                },
                q(before.and_then(Json::as_str).unwrap_or_default()),
                q(after.and_then(Json::as_str).unwrap_or_default())
            ),
            ("nullable", "nullable-added") => "nullable added : false -> true".to_owned(),
            ("nullable", _) => "nullable removed : true -> false".to_owned(),
            // Loosened bounds, removed requirements: allowed.
            _ => continue,
        };
        r.versions
            .entry(version)
            .or_default()
            .entry(path)
            .or_default()
            .entry(keyword.to_owned())
            .or_default()
            .insert(norm(&msg));
    }
    if !stored_removed.is_empty() {
        r.crd
            .entry("storedVersionRemoval".into())
            .or_default()
            .insert(norm(&format!(
                "stored versions removed : [{}]",
                stored_removed.join(" ")
            )));
    }
    for ((version, path), ds) in unhandled {
        r.versions
            .entry(version)
            .or_default()
            .entry(path)
            .or_default()
            .entry("unhandled".into())
            .or_default()
            .insert(norm(&go_cmp_text(&ds)));
    }
    r
}

/// The fields of `v1.JSONSchemaProps` (apiextensions-apiserver v0.31) in declaration order:
/// Go name, JSON name, and the zero value's rendering.
const GO_FIELDS: &[(&str, &str, &str)] = &[
    ("ID", "id", "\"\""),
    ("Schema", "$schema", "\"\""),
    ("Ref", "$ref", "nil"),
    ("Description", "description", "\"\""),
    ("Type", "type", "\"\""),
    ("Format", "format", "\"\""),
    ("Title", "title", "\"\""),
    ("Default", "default", "nil"),
    ("Maximum", "maximum", "nil"),
    ("ExclusiveMaximum", "exclusiveMaximum", "false"),
    ("Minimum", "minimum", "nil"),
    ("ExclusiveMinimum", "exclusiveMinimum", "false"),
    ("MaxLength", "maxLength", "nil"),
    ("MinLength", "minLength", "nil"),
    ("Pattern", "pattern", "\"\""),
    ("MaxItems", "maxItems", "nil"),
    ("MinItems", "minItems", "nil"),
    ("UniqueItems", "uniqueItems", "false"),
    ("MultipleOf", "multipleOf", "nil"),
    ("Enum", "enum", "nil"),
    ("MaxProperties", "maxProperties", "nil"),
    ("MinProperties", "minProperties", "nil"),
    ("Required", "required", "nil"),
    ("Items", "items", "nil"),
    ("AllOf", "allOf", "nil"),
    ("OneOf", "oneOf", "nil"),
    ("AnyOf", "anyOf", "nil"),
    ("Not", "not", "nil"),
    ("Properties", "properties", "nil"),
    ("AdditionalProperties", "additionalProperties", "nil"),
    ("PatternProperties", "patternProperties", "nil"),
    ("Dependencies", "dependencies", "nil"),
    ("AdditionalItems", "additionalItems", "nil"),
    ("Definitions", "definitions", "nil"),
    ("ExternalDocs", "externalDocs", "nil"),
    ("Example", "example", "nil"),
    ("Nullable", "nullable", "false"),
    (
        "XPreserveUnknownFields",
        "x-kubernetes-preserve-unknown-fields",
        "nil",
    ),
    (
        "XEmbeddedResource",
        "x-kubernetes-embedded-resource",
        "false",
    ),
    ("XIntOrString", "x-kubernetes-int-or-string", "false"),
    ("XListMapKeys", "x-kubernetes-list-map-keys", "nil"),
    ("XListType", "x-kubernetes-list-type", "nil"),
    ("XMapType", "x-kubernetes-map-type", "nil"),
    ("XValidations", "x-kubernetes-validations", "nil"),
];

/// A Go value of a field as go-cmp prints it (strings quoted, bools bare, pointers to
/// scalars with `&`, anything else as its JSON).
fn go_value(json_name: &str, v: Option<&Json>, zero: &str) -> String {
    match v {
        None => zero.to_owned(),
        Some(Json::String(s)) if zero == "nil" => format!("&{}", q(s)),
        Some(Json::String(s)) => q(s),
        Some(Json::Bool(b)) if zero == "nil" => format!("&{b}"),
        Some(Json::Bool(b)) => b.to_string(),
        Some(n @ Json::Number(_)) => format!("&{}", num(Some(n))),
        Some(other) => {
            let _ = json_name;
            json_text(Some(other))
        }
    }
}

/// crdify's `unhandled` text: go-cmp's diff of the two `JSONSchemaProps` after the handled
/// keywords and the child schemas were cleared, with two identical fields of context around
/// each difference and the rest elided.
fn go_cmp_text(changes: &[&ChangeDetail]) -> String {
    let rows: Vec<(&str, Option<(String, String)>)> = GO_FIELDS
        .iter()
        .map(|(go, json, zero)| {
            let d = changes.iter().find(|d| d.keyword.as_deref() == Some(*json));
            (
                *go,
                d.map(|d| {
                    (
                        go_value(json, d.before.as_ref(), zero),
                        go_value(json, d.after.as_ref(), zero),
                    )
                }),
            )
        })
        .collect();
    let near_diff = |i: usize| {
        (i.saturating_sub(2)..=i + 2).any(|j| rows.get(j).is_some_and(|r| r.1.is_some()))
    };
    let mut out = String::from("unhandled changes found :\n  &v1.JSONSchemaProps{\n");
    let mut elided = 0;
    for (i, (go, diff)) in rows.iter().enumerate() {
        if !near_diff(i) {
            elided += 1;
            continue;
        }
        if elided > 0 {
            out.push_str(&format!("  \t... // {elided} identical fields\n"));
            elided = 0;
        }
        match diff {
            Some((a, b)) => {
                out.push_str(&format!("- \t{go}: {a},\n+ \t{go}: {b},\n"));
            }
            None => {
                let zero = GO_FIELDS.get(i).map(|f| f.2).unwrap_or("nil");
                out.push_str(&format!("  \t{go}: {zero},\n"));
            }
        }
    }
    if elided > 0 {
        out.push_str(&format!("  \t... // {elided} identical fields\n"));
    }
    out.push_str("  }\n");
    out
}

// ------------------------------------------------------------------------------------------
// crd-schema-checker
// ------------------------------------------------------------------------------------------

/// The comparators a folder's Go test registers.
fn comparators(folder: &str) -> Vec<&'static str> {
    match folder {
        "conditions_must_have_proper_ssa_tags" => {
            vec!["ConditionsMustHaveProperSSATags", "ListsMustHaveSSATags"]
        }
        "lists_must_have_ssa_tags" => vec!["ListsMustHaveSSATags"],
        "must_have_status" => vec!["MustHaveStatus"],
        "must_not_exceed_cost_budget" => vec!["MustNotExceedCostBudget"],
        "no_bools" => vec!["NoBools"],
        "no_data_type_change" => vec!["NoDataTypeChange"],
        "no_enum_removal" => vec!["NoEnumRemoval"],
        "no_field_removal" => vec!["NoFieldRemoval"],
        "no_floats" => vec!["NoFloats"],
        "no_maps" => vec!["NoMaps"],
        "no_new_required_fields" => vec!["NoNewRequiredFields"],
        "no_uints" => vec!["NoUints"],
        _ => vec![],
    }
}

/// Errors, warnings, infos of one comparator.
type Lists = [Vec<String>; 3];

fn checker_cases(dir: &Path) -> Result<Vec<CaseOutcome>, String> {
    let mut out = Vec::new();
    for folder in subdirs(dir)? {
        let fname = file_name(&folder);
        let registered = comparators(&fname);
        for case in subdirs(&folder)? {
            let existing = case.join("existing.yaml");
            let old = if existing.is_file() {
                Some(read(&existing)?)
            } else {
                None
            };
            let new = read(&case.join("new.yaml"))?;
            let expected = yaml(&read(&case.join("expected.yaml"))?);
            let mut got = checker_results(
                &diff_crds_detailed(old.as_deref(), &new, KubernetesVersion::DEFAULT),
                &crd_name(&new),
                &registered,
            );
            if registered.contains(&"MustNotExceedCostBudget") {
                got.insert(
                    "MustNotExceedCostBudget".to_owned(),
                    cost_budget(old.as_deref(), &new),
                );
            }
            out.push((
                format!("{fname}/{}", file_name(&case)),
                checker_compare(&expected, &got),
            ));
        }
    }
    Ok(out)
}

/// The simple location of a schema path: `^`, `.name`, `[*]` for items and map values.
fn location(d: &ChangeDetail) -> String {
    let field = d.change.field.clone().unwrap_or_default();
    if field == "." {
        "^".to_owned()
    } else {
        format!("^{field}")
    }
}

fn checker_results(
    changes: &[ChangeDetail],
    crd: &str,
    registered: &[&str],
) -> BTreeMap<String, Lists> {
    let mut out: BTreeMap<String, Lists> = BTreeMap::new();
    let mut add = |name: &str, msg: String| {
        if registered.contains(&name) {
            let lists = out.entry(name.to_owned()).or_default();
            if !lists[0].contains(&msg) {
                lists[0].push(msg);
            }
        }
    };
    for d in changes {
        let v = d.change.version.clone().unwrap_or_default();
        let prefix = format!("crd/{crd} version/{v}");
        let loc = location(d);
        match code(d) {
            "field-removed" => add("NoFieldRemoval", format!("{prefix} field/{loc} may not be removed")),
            "enum-values-removed" if d.shown => {
                for value in &d.values {
                    add("NoEnumRemoval", format!("{prefix} enum/{} may not be removed for field/{loc}", json_text(Some(value))));
                }
            }
            "type-changed" if d.shown => add(
                "NoDataTypeChange",
                format!(
                    "{prefix} data type of field/{loc} may not be changed from {} to {}",
                    d.before.as_ref().and_then(Json::as_str).unwrap_or_default(),
                    d.after.as_ref().and_then(Json::as_str).unwrap_or_default()
                ),
            ),
            "required-added" if d.shown => {
                for name in &d.values {
                    add("NoNewRequiredFields", format!("{prefix} field/{loc}.{} is new and may not be required", name.as_str().unwrap_or_default()));
                }
            }
            "required-field-added" => add("NoNewRequiredFields", format!("{prefix} field/{loc} is new and may not be required")),
            "convention-boolean" => add("NoBools", format!("{prefix} field/{loc} may not be a boolean")),
            "convention-float" => add("NoFloats", format!("{prefix} field/{loc} may not be a float")),
            "convention-uint" => add("NoUints", format!("{prefix} field/{loc} may not be a uint")),
            "convention-map" => add("NoMaps", format!("{prefix} field/{loc} may not be a map")),
            "convention-status-subresource" => add(
                "MustHaveStatus",
                format!("{prefix} field/^.status must have a status subresource in .spec.version[name={v}].subresources.status to match its schema."),
            ),
            "convention-list-type" => add("ListsMustHaveSSATags", format!("{prefix} field/{loc} must set x-kubernetes-list-type")),
            "convention-conditions-list-type" => add(
                "ConditionsMustHaveProperSSATags",
                format!("{prefix} field/{loc} must set x-kubernetes-list-type with value \"map\""),
            ),
            "convention-conditions-map-keys" => add(
                "ConditionsMustHaveProperSSATags",
                format!("{prefix} field/{loc} must set x-kubernetes-list-map-keys with single \"type\" value"),
            ),
            "convention-condition-attribute" => {
                for a in &d.values {
                    add(
                        "ConditionsMustHaveProperSSATags",
                        format!(
                            "{prefix} field/^.status.condition must define valid condition properties: {} attribute is missing",
                            a.as_str().unwrap_or_default()
                        ),
                    );
                }
            }
            _ => {}
        }
    }
    out
}

fn strings(v: Option<&Json>) -> Vec<String> {
    let mut out: Vec<String> = v
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .map(|m| m.as_str().unwrap_or_default().to_owned())
        .collect();
    out.sort();
    out
}

/// The Go test's comparison: every expected item matched exactly (sorted lists; an expected
/// item with messages needs a result), every result with messages expected.
fn checker_compare(expected: &Json, got: &BTreeMap<String, Lists>) -> Result<(), String> {
    let items = expected
        .get("items")
        .and_then(Json::as_array)
        .cloned()
        .unwrap_or_default();
    let mut problems = Vec::new();
    for item in &items {
        let name = item.get("name").and_then(Json::as_str).unwrap_or_default();
        let want = [
            strings(item.get("errors")),
            strings(item.get("warnings")),
            strings(item.get("infos")),
        ];
        let mut have = got.get(name).cloned().unwrap_or_default();
        for l in have.iter_mut() {
            l.sort();
        }
        if want != have {
            problems.push(format!(
                "  {name}: expected {want:?}\n  {name}: got      {have:?}"
            ));
        }
    }
    for (name, lists) in got {
        let any = lists.iter().any(|l| !l.is_empty());
        let listed = items
            .iter()
            .any(|i| i.get("name").and_then(Json::as_str) == Some(name));
        if any && !listed {
            problems.push(format!("  {name}: unexpected {lists:?}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// `getCostErrorMessage`: how far over its limit a cost is.
fn cost_error(name: &str, cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    let factor = if factor > 100.0 {
        "more than 100x".to_owned()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    };
    format!("{name} exceeds budget by factor of {factor} (try simplifying the rule(s), or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)")
}

/// crd-schema-checker's `MustNotExceedCostBudget` lists from the engine's cost facts of one
/// revision.
fn cost_lists(text: &str) -> Lists {
    use crd_studio_engine::conformance::peer::{cost_facts, RULE_LIMIT, TOTAL_LIMIT};
    let (mut errors, mut warnings, mut infos) = (Vec::new(), Vec::new(), Vec::new());
    for v in cost_facts(text, KubernetesVersion::DEFAULT) {
        for n in &v.nodes {
            let (loc, path) = (&n.location, &n.schema_path);
            match n.type_.as_str() {
                "string" if n.has_enum => {}
                "string" => match n.max_length {
                    None => warnings.push(format!("{loc}: String has unbounded maxLength. It will be considered to have length {}. Consider adding a maxLength constraint to reduce the raw rule cost.", n.assumed_size)),
                    Some(m) => infos.push(format!("{loc}: String has maxLength of {m}.")),
                },
                "array" => match n.max_items {
                    None => warnings.push(format!("{loc}: Array has unbounded maxItems. It will be considered to have {} items. Consider adding a maxItems constraint to reduce the raw rule cost.", n.assumed_size)),
                    Some(m) => infos.push(format!("{loc}: Array has maxItems of {m}.")),
                },
                _ => {}
            }
            for r in &n.rules {
                match n.cardinality {
                    None => warnings.push(format!(
                        "{loc}: Field has unbounded cardinality. At least one, variable parent field does not have a maxItems or maxProperties constraint: {}. Falling back to CEL calculated worst case of {} executions.",
                        n.unbounded_parents.join(","),
                        r.max_cardinality
                    )),
                    Some(c) => infos.push(format!(
                        "{loc}: Field has a maximum cardinality of {c}.{}",
                        if c > 1 { " This is the calculated, worst case number of times the rule will be evaluated." } else { "" }
                    )),
                }
                if r.estimated_cost > RULE_LIMIT {
                    errors.push(format!(
                        "{path}: Forbidden: {}",
                        cost_error("estimated rule cost", r.estimated_cost, RULE_LIMIT)
                    ));
                }
                match &r.error {
                    Some((true, detail)) => errors.push(format!("{path}: Required value: {detail}")),
                    Some((false, detail)) => errors.push(format!("{path}: Invalid value: {}: {detail}", r.rule_json)),
                    None => infos.push(format!(
                        "{loc}: Rule {} raw cost is {}. Estimated total cost of {}. The maximum allowable value is {RULE_LIMIT}. Rule is {:.2}% of allowed budget.",
                        r.index,
                        r.raw_cost,
                        r.estimated_cost,
                        r.estimated_cost.wrapping_mul(100) as f64 / RULE_LIMIT as f64
                    )),
                }
                if let Some(detail) = &r.message_expression_error {
                    errors.push(format!("{path}: Invalid value: {}: {detail}", r.rule_json));
                } else if let Some(c) = r.message_expression_cost {
                    if c > RULE_LIMIT {
                        errors.push(format!(
                            "{path}: Forbidden: {}",
                            cost_error("estimated messageExpression cost", c, RULE_LIMIT)
                        ));
                    }
                }
            }
        }
        if v.total > TOTAL_LIMIT {
            errors.push(format!(
                "^: Forbidden: {}",
                cost_error("total CRD cost", v.total, TOTAL_LIMIT)
            ));
        }
    }
    [errors, warnings, infos]
}

/// The cost lists of the new revision less what the existing one already had (ratcheting by
/// exact message, list by list).
fn cost_budget(old: Option<&str>, new: &str) -> Lists {
    let before = old.map(cost_lists).unwrap_or_default();
    let mut now = cost_lists(new);
    for (list, old_list) in now.iter_mut().zip(before.iter()) {
        list.retain(|m| !old_list.contains(m));
    }
    now
}
