//! `cargo xtask corpus [DIR] [--known-failures FILE] [--update-known-failures] [--verbose]`:
//! runs the engine on the real CRDs and custom objects of `../shared/corpus` and compares with
//! the API server's verdicts recorded in `DIR/oracle`.
//!
//! Every CRD file of `index.json` `crds[]` is compiled once; every custom document the oracle
//! judged (`oracle/objects.json`: `file`, `document`, `crdFile`) is analysed against the CRD
//! file the oracle used. Each measure compares one aspect per CRD, CRD version or object and
//! prints `MEASURE: N/M`; the last line is `P passed, F failed` over every measured item.
//!
//! Pairing: the oracle's `document` is the index among *all* YAML documents of the file as a
//! YAML parser counts them (a leading `---` opens no extra empty document; documents of
//! built-in kinds count), which is also how the engine numbers `ObjectReport::document`.
//! `index.json`'s `documents[].index` counts one more in files that start with `---`, so its
//! numbers are not used for the pairing; the oracle's own `crdFile` is.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::Path;

use crd_studio_engine::{Analysis, CompiledCrd, FieldErrorReport, ObjectReport, Options};
use serde_json::{json, Value};

use crate::conformance::{one_line, Results, TaskArgs};

const HEADER: &str = "\
# Known failures of `cargo xtask corpus`: the items of ../shared/corpus where the engine does
# not agree with the API server's recorded verdict yet, one per line as
# `<measure> :: <file>` (CRD measures), `<measure> :: <file>#<version>` (CEL estimated cost,
# per CRD version) or `<measure> :: <file>#<document>` (object measures).
# A failing item that is not listed here is a regression and fails the task (and CI); a listed
# item that passes is reported as \"now passing, remove from the list\". After fixing items,
# regenerate with `cargo xtask corpus --update-known-failures` and check that the diff only
# removes lines.
";

/// The clock of the oracle run, for `date` printer columns (the engine has none). The oracle
/// did not record it; its age cells bracket it between 2026-11-20T19:23:48Z (`7y280d` after
/// 2019-02-15T19:23:48Z) and 2026-11-21T15:51:10Z (`4y347d` after 2021-12-09T15:51:10Z).
const ORACLE_NOW: &str = "2026-11-21T00:00:00Z";

/// One measured item: its id and whether the engine agrees (else why not).
type Item = (String, Result<(), String>);

/// The measures, in output order.
const MEASURES: [&str; 9] = [
    "crd verdict",
    "crd errors exact",
    "object verdict",
    "object errors exact",
    "pruned paths exact",
    "defaulted exact",
    "cel estimated cost exact",
    "cel runtime cost exact",
    "table cells exact",
];

/// Runs the corpus comparison. Returns whether it passed.
pub fn run(args: &[String]) -> Result<bool, String> {
    let args = TaskArgs::parse(
        "corpus",
        args,
        "../shared/corpus",
        "xtask/known-failures/corpus.txt",
    )?;
    if !args.dir.is_dir() {
        println!("{}", args.skipped_message("corpus"));
        return Ok(true);
    }
    let dir = args.dir.as_path();
    let index = read_json(&dir.join("index.json"))?;
    let crd_oracle = read_json(&dir.join("oracle/crds.json"))?;
    let object_oracle = read_json(&dir.join("oracle/objects.json"))?;
    // The oracle decoded objects with fieldValidation=Ignore: unknown fields are pruned and
    // listed, never warned about nor refused. It ran the strategy in-process, without the
    // registry store ("no system metadata fill"): no name is generated from generateName.
    let options = Options {
        field_validation: crd_studio_engine::FieldValidation::Ignore,
        now: crd_studio_engine::Time::parse_rfc3339(ORACLE_NOW).ok(),
        generate_names: false,
        ..Options::default()
    };

    let mut crds = CrdCache::new(dir, &options);
    let mut items: BTreeMap<&str, Vec<Item>> = MEASURES.iter().map(|m| (*m, Vec::new())).collect();
    let mut notes: Vec<String> = Vec::new();
    let mut push = |measure: &'static str, id: String, r: Result<(), String>| {
        if let Some(list) = items.get_mut(measure) {
            list.push((format!("{measure} :: {id}"), r));
        }
    };

    // The CRDs: verdict, errors, and the CEL estimated cost of each version.
    let oracle_crds = as_array(&crd_oracle, "oracle/crds.json")?;
    let oracle_crd_files: BTreeSet<&str> = oracle_crds
        .iter()
        .filter_map(|e| e.get("file")?.as_str())
        .collect();
    let index_crds = index
        .get("crds")
        .and_then(Value::as_array)
        .ok_or("index.json: no crds[]")?;
    for file in index_crds.iter().filter_map(|e| e.get("file")?.as_str()) {
        if !oracle_crd_files.contains(file) {
            notes.push(format!(
                "{file}: in index.json but not in oracle/crds.json (not measured)"
            ));
        }
    }
    for entry in oracle_crds {
        let file = entry.get("file").and_then(Value::as_str).unwrap_or("?");
        let result = entry.get("result").unwrap_or(&Value::Null);
        let engine = crds.get(file).map(|c| &c.analysis);
        let want = result.get("crd").unwrap_or(&Value::Null);
        push(
            "crd verdict",
            file.to_owned(),
            engine.clone().and_then(|a| {
                same(
                    "accepted",
                    want.get("accepted").unwrap_or(&Value::Null),
                    &json!(a.crd.accepted),
                )
            }),
        );
        push(
            "crd errors exact",
            file.to_owned(),
            engine
                .clone()
                .and_then(|a| errors_exact(want.get("errors"), &a.crd.errors)),
        );
        for version in result
            .get("versions")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let name = version.get("name").and_then(Value::as_str).unwrap_or("?");
            push(
                "cel estimated cost exact",
                format!("{file}#{name}"),
                engine
                    .clone()
                    .and_then(|a| cel_estimated_cost(version, engine_cel_costs(a, name))),
            );
        }
    }

    // The objects, against the CRD file the oracle used.
    let mut analyses: HashMap<(String, String), Result<Analysis, String>> = HashMap::new();
    let oracle_objects = as_array(&object_oracle, "oracle/objects.json")?;
    let judged: BTreeSet<(&str, u64)> = oracle_objects
        .iter()
        .filter_map(|e| Some((e.get("file")?.as_str()?, e.get("document")?.as_u64()?)))
        .collect();
    let index_documents = index
        .get("objects")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .flat_map(|o| {
            let file = o.get("file").and_then(Value::as_str).unwrap_or("?");
            o.get("documents")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .map(move |d| (file, d.get("index").and_then(Value::as_u64).unwrap_or(0)))
        });
    for (file, doc) in index_documents {
        if !judged.contains(&(file, doc)) {
            notes.push(format!(
                "{file}#{doc}: in index.json but not in oracle/objects.json (not measured)"
            ));
        }
    }
    for entry in oracle_objects {
        let file = entry.get("file").and_then(Value::as_str).unwrap_or("?");
        let doc = entry.get("document").and_then(Value::as_u64).unwrap_or(0) as usize;
        let crd_file = entry.get("crdFile").and_then(Value::as_str).unwrap_or("?");
        let id = format!("{file}#{doc}");
        let result = entry.get("result").unwrap_or(&Value::Null);
        let want = result
            .get("versions")
            .and_then(Value::as_array)
            .and_then(|vs| vs.iter().find_map(|v| v.get("object")))
            .unwrap_or(&Value::Null);
        let analysis = analyses
            .entry((file.to_owned(), crd_file.to_owned()))
            .or_insert_with(|| {
                let compiled = crds.get(crd_file)?;
                let text = read_text(&dir.join(file))?;
                Ok(compiled.crd.analyze_objects(&[text], None))
            });
        let got: Result<&ObjectReport, String> = match analysis {
            Err(e) => Err(e.clone()),
            Ok(a) => a.objects.iter().find(|o| o.source == 0 && o.document == doc).ok_or_else(|| {
                let seen: Vec<usize> = a.objects.iter().map(|o| o.document).collect();
                format!("the engine reported no object for document {doc} (it reported documents {seen:?})")
            }),
        };
        if let Some(error) = result.get("objectError").and_then(Value::as_str) {
            // The server could not decode the document or does not serve its version: only
            // that the engine says so too is compared.
            let check = got.and_then(|o| match &o.object_error {
                Some(_) => Ok(()),
                None => Err(format!("no object error, want one like {error:?}")),
            });
            push("object verdict", id.clone(), check.clone());
            push("object errors exact", id, check);
            continue;
        }
        let got = got.and_then(|o| match &o.object_error {
            Some(e) => Err(format!("object error: {e}")),
            None => Ok(o),
        });
        let measure = |f: &dyn Fn(&ObjectReport) -> Result<(), String>| got.clone().and_then(f);
        let field = |k: &str| want.get(k).unwrap_or(&Value::Null);
        push(
            "object verdict",
            id.clone(),
            measure(&|o| same("accepted", field("accepted"), &json!(o.accepted))),
        );
        push(
            "object errors exact",
            id.clone(),
            measure(&|o| errors_exact(want.get("errors"), &o.errors)),
        );
        push(
            "pruned paths exact",
            id.clone(),
            measure(&|o| same("pruned paths", field("prunedPaths"), &json!(o.pruned_paths))),
        );
        push(
            "defaulted exact",
            id.clone(),
            measure(&|o| same("defaulted", field("defaulted"), &o.defaulted.to_value())),
        );
        push(
            "cel runtime cost exact",
            id.clone(),
            measure(&|o| {
                same(
                    "runtime cost",
                    field("celRuntimeCost"),
                    &json!(o.cel_runtime_cost),
                )
            }),
        );
        let want_cells = want
            .get("table")
            .and_then(|t| t.get("cells"))
            .unwrap_or(&Value::Null);
        push(
            "table cells exact",
            id,
            measure(&|o| same("cells", want_cells, &json!(o.table.cells))),
        );
    }

    // Report.
    let mut results = Results::default();
    let (mut passed, mut failed) = (0usize, 0usize);
    for measure in MEASURES {
        let list = items.get(measure).map(Vec::as_slice).unwrap_or_default();
        let ok = list.iter().filter(|(_, r)| r.is_ok()).count();
        println!("{measure}: {ok}/{}", list.len());
        passed += ok;
        failed += list.len() - ok;
        for (id, r) in list {
            match r {
                Ok(()) => {
                    results.passed.insert(id.clone());
                }
                Err(reason) => {
                    if args.verbose {
                        println!("  FAIL {id}: {}", one_line(reason));
                    }
                    results.failed.insert(id.clone(), reason.clone());
                }
            }
        }
    }
    if args.verbose {
        for note in &notes {
            println!("  note: {note}");
        }
    }
    let ok = results.check_known_failures(&args, HEADER)?;
    println!("{passed} passed, {failed} failed");
    Ok(ok)
}

/// A CRD file compiled once, with its analysis (no objects).
struct CompiledEntry {
    crd: CompiledCrd,
    analysis: Analysis,
}

/// CRD files compiled on first use.
struct CrdCache<'a> {
    dir: &'a Path,
    options: &'a Options,
    compiled: HashMap<String, Result<CompiledEntry, String>>,
}

impl<'a> CrdCache<'a> {
    fn new(dir: &'a Path, options: &'a Options) -> CrdCache<'a> {
        CrdCache {
            dir,
            options,
            compiled: HashMap::new(),
        }
    }

    fn get(&mut self, file: &str) -> Result<&CompiledEntry, String> {
        let (dir, options) = (self.dir, self.options);
        self.compiled
            .entry(file.to_owned())
            .or_insert_with(|| {
                let text = read_text(&dir.join(file))?;
                let crd = CompiledCrd::compile(&text, options);
                let analysis = crd.analyze_objects(&[], None);
                Ok(CompiledEntry { crd, analysis })
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// `StaticEstimatedCostLimit`.
const PER_RULE_COST_LIMIT: u64 = 10_000_000;
/// `StaticEstimatedCRDCostLimit`.
const PER_CRD_COST_LIMIT: u64 = 100_000_000;

/// The engine's CEL estimated costs of one CRD version, shaped like the oracle's version
/// entry: `celRules` (per rule: `path`, `rule`, `maxCost`, `maxCardinality`,
/// `schemaCardinality`, `estimatedCost`, `exceedsPerRuleLimit`, `usesOldSelf`, and
/// `messageExpressionMaxCost` / `compileError` when there are), `celTotalEstimatedCost` (the
/// saturating sum of the rules' and messageExpressions' costs) and `celTotalExceedsLimit`.
/// `None` when the engine has no such version.
fn engine_cel_costs(analysis: &Analysis, version: &str) -> Option<Value> {
    let v = analysis.versions.iter().find(|v| v.name == version)?;
    let mut total: u64 = 0;
    let rules: Vec<Value> = v
        .rules
        .iter()
        .map(|r| {
            let estimated = r.estimated_cost.unwrap_or(0);
            total = total.saturating_add(estimated);
            let mut o = json!({
                "path": format!("{}.{}.rule", v.schema_path, r.key),
                "rule": r.rule,
                "maxCost": r.max_cost.unwrap_or(0),
                "maxCardinality": r.max_cardinality.unwrap_or(0),
                "schemaCardinality": r.cardinality,
                "estimatedCost": estimated,
                "exceedsPerRuleLimit": estimated > PER_RULE_COST_LIMIT,
                "usesOldSelf": r.transition,
            });
            if let Some(m) = r.message_expression_max_cost {
                total = total.saturating_add(m);
                o["messageExpressionMaxCost"] = json!(m);
            }
            if let Some(e) = &r.compile_error {
                o["compileError"] = json!(e);
            }
            o
        })
        .collect();
    Some(json!({
        "celRules": rules,
        "celTotalEstimatedCost": total,
        "celTotalExceedsLimit": total > PER_CRD_COST_LIMIT,
    }))
}

/// The oracle's CEL rules of a version against the engine's: every rule (by path) with its
/// cost figures, and the version's total. Without engine data, only a version without rules
/// agrees.
fn cel_estimated_cost(want: &Value, got: Option<Value>) -> Result<(), String> {
    let rules = |v: &Value| -> Vec<Value> {
        let mut list = v
            .get("celRules")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        list.sort_by(|a, b| {
            a.get("path")
                .map(Value::to_string)
                .cmp(&b.get("path").map(Value::to_string))
        });
        list
    };
    let want_rules = rules(want);
    let Some(got) = got else {
        return match want_rules.len() {
            0 => Ok(()),
            n => Err(format!(
                "not implemented: the engine reports no CEL rules; the server has {n}"
            )),
        };
    };
    same("CEL rules", &json!(want_rules), &json!(rules(&got)))?;
    for key in ["celTotalEstimatedCost", "celTotalExceedsLimit"] {
        same(
            key,
            want.get(key).unwrap_or(&Value::Null),
            got.get(key).unwrap_or(&Value::Null),
        )?;
    }
    Ok(())
}

/// The errors as a multiset of (type, field, error text).
fn errors_exact(want: Option<&Value>, got: &[FieldErrorReport]) -> Result<(), String> {
    let key = |t: &Value, f: &Value, e: &Value| (t.to_string(), f.to_string(), e.to_string());
    let mut want_keys: Vec<(String, String, String)> = want
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|e| {
            let g = |k: &str| e.get(k).cloned().unwrap_or(Value::Null);
            key(&g("type"), &g("field"), &g("error"))
        })
        .collect();
    let mut got_keys: Vec<(String, String, String)> = got
        .iter()
        .map(|e| {
            let t = serde_json::to_value(e.error_type).unwrap_or(Value::Null);
            key(&t, &json!(e.field), &json!(e.error))
        })
        .collect();
    want_keys.sort();
    got_keys.sort();
    if want_keys == got_keys {
        return Ok(());
    }
    let missing: Vec<&String> = want_keys
        .iter()
        .filter(|k| !got_keys.contains(k))
        .map(|k| &k.2)
        .collect();
    let extra: Vec<&String> = got_keys
        .iter()
        .filter(|k| !want_keys.contains(k))
        .map(|k| &k.2)
        .collect();
    Err(format!("errors: missing {missing:?}, unexpected {extra:?}"))
}

fn same(what: &str, want: &Value, got: &Value) -> Result<(), String> {
    if want == got {
        return Ok(());
    }
    let short = |v: &Value| {
        let s = v.to_string();
        if s.chars().count() > 200 {
            format!("{}…", s.chars().take(200).collect::<String>())
        } else {
            s
        }
    };
    Err(format!("{what}: got {}, want {}", short(got), short(want)))
}

fn read_text(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn read_json(path: &Path) -> Result<Value, String> {
    serde_json::from_str(&read_text(path)?).map_err(|e| format!("{}: {e}", path.display()))
}

fn as_array<'v>(v: &'v Value, what: &str) -> Result<&'v [Value], String> {
    v.as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| format!("{what}: not a JSON array"))
}
