//! `cargo xtask conformance [DIR] [--known-failures FILE] [--update-known-failures] [--verbose]`:
//! runs the cases extracted from the Kubernetes API server's own tests
//! (`../shared/conformance`, format in its README) against the engine.
//!
//! Every `*.json` file under DIR is a JSON array of cases (`kubectl-validate/crds.json` is data
//! the kubectl-validate cases load, not cases). A file's *area* is its first directory
//! (`pruning/`, `cel-eval/`, ...) and its *test* is its file name without `.json`
//! (`validation_test.TestRatcheting`); [`AREAS`] maps each area to its checker, and a checker
//! dispatches on the test where the README gives a file its own `expect` semantics.
//!
//! A checker reads the case, asks the engine through the adapters in [`engine`] (one function
//! per engine entry point the README's Go calls map to), and compares with `expect` through the
//! matchers in [`expect`]. Adapters for entry points the engine does not have yet return
//! "not implemented: <area>", so those cases count as failed, never as skipped; once the engine
//! has the function, filling in the adapter is all an area needs. A case is *skipped* only when
//! this runner cannot interpret it (a file it does not know, a field it cannot read, an internal
//! Go state no CRD text can produce), always with the reason.
//!
//! Output: `FILE: P passed, F failed, S skipped` per file, then `P passed, F failed` (`, S
//! skipped` when there are any). The known-failures list (default
//! `xtask/known-failures/conformance.txt`) turns the run into a regression check: a failing case
//! that is not listed fails the task; a listed case that passes is reported for removal.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Component, Path, PathBuf};

use crd_studio_engine::{CompiledCrd, FieldErrorReport, Options};
use serde_json::{json, Value};

// ------------------------------------------------------------------------------------------
// The task
// ------------------------------------------------------------------------------------------

/// The known-failures file's header.
const HEADER: &str = "\
# Known failures of `cargo xtask conformance`: the conformance cases (../shared/conformance)
# the engine does not pass yet, one per line as `<file relative to DIR> :: <case name>`.
# A failing case that is not listed here is a regression and fails the task (and CI); a listed
# case that passes is reported as \"now passing, remove from the list\". After fixing cases,
# regenerate with `cargo xtask conformance --update-known-failures` and check that the diff
# only removes lines. Case names repeated within a file get ` #2`, ` #3`, ... in order; a
# backslash, newline, carriage return or tab in a name is written `\\\\`, `\\n`, `\\r`, `\\t`.
";

/// Runs the conformance cases in `args` (a directory, options). Returns whether it passed.
pub fn run(args: &[String]) -> Result<bool, String> {
    let args = TaskArgs::parse(
        "conformance",
        args,
        "../shared/conformance",
        "xtask/known-failures/conformance.txt",
    )?;
    if !args.dir.is_dir() {
        println!("{}", args.skipped_message("conformance"));
        return Ok(true);
    }
    // DIR may be one area of the conformance set (`../shared/conformance/cel-eval`): the
    // case ids stay relative to the set's root, and only that area runs.
    let (root, files) = match area_subset(&args.dir) {
        Some(root) => {
            if args.update {
                return Err("--update-known-failures needs the whole conformance set, \
                            not one area"
                    .to_owned());
            }
            let files = case_files(&root)?
                .into_iter()
                .filter(|f| f.starts_with(&args.dir))
                .collect::<Vec<_>>();
            (root, files)
        }
        None => (args.dir.clone(), case_files(&args.dir)?),
    };
    let args = TaskArgs { dir: root, ..args };
    let mut ctx = Ctx {
        dir: args.dir.clone(),
        test: String::new(),
        kubectl_crds: BTreeMap::new(),
    };
    let mut results = Results::default();
    let mut totals = [0usize; 3];
    let quiet_panics = QuietPanics::install();
    for file in &files {
        let rel = relative(&args.dir, file);
        let cases = load_cases(file)?;
        let (area, test) = area_and_test(&rel);
        ctx.test = test;
        let spec = AREAS.iter().find(|a| a.dir == area);
        let mut counts = [0usize; 3];
        let mut details = Vec::new();
        for (id, case) in case_ids(&rel, &cases) {
            let outcome = match (spec, Case::new(case)) {
                (None, _) => Outcome::Skip(format!(
                    "unknown area `{area}`: this runner does not know its expect semantics"
                )),
                (_, None) => Outcome::Skip("the case is not an object with a name".to_owned()),
                (Some(spec), Some(case)) => run_one(spec.check, &mut ctx, &case),
            };
            match &outcome {
                Outcome::Pass => {
                    counts[0] += 1;
                    results.passed.insert(id);
                }
                Outcome::Fail(reason) => {
                    counts[1] += 1;
                    details.push(format!("  FAIL {id}: {}", one_line(reason)));
                    results.failed.insert(id, reason.clone());
                }
                Outcome::Skip(reason) => {
                    counts[2] += 1;
                    details.push(format!("  SKIP {id}: {}", one_line(reason)));
                }
            }
        }
        println!(
            "{rel}: {} passed, {} failed, {} skipped",
            counts[0], counts[1], counts[2]
        );
        if args.verbose {
            for line in details {
                println!("{line}");
            }
        }
        for (t, c) in totals.iter_mut().zip(counts) {
            *t += c;
        }
    }
    drop(quiet_panics);
    let ok = results.check_known_failures(&args, HEADER)?;
    let skipped = if totals[2] > 0 {
        format!(", {} skipped", totals[2])
    } else {
        String::new()
    };
    println!("{} passed, {} failed{skipped}", totals[0], totals[1]);
    Ok(ok)
}

/// When `dir` is one area directory of a conformance set (its name is a known area), the
/// set's root.
fn area_subset(dir: &Path) -> Option<PathBuf> {
    let name = dir.file_name()?.to_str()?;
    AREAS
        .iter()
        .any(|a| a.dir == name)
        .then(|| dir.parent().map(Path::to_path_buf))?
}

/// Runs one checker, turning a panic (in the engine or the checker) into a failure.
fn run_one(check: Checker, ctx: &mut Ctx, case: &Case) -> Outcome {
    match panic::catch_unwind(AssertUnwindSafe(|| check(ctx, case))) {
        Ok(Ok(())) => Outcome::Pass,
        Ok(Err(Problem::Fail(reason))) => Outcome::Fail(reason),
        Ok(Err(Problem::Skip(reason))) => Outcome::Skip(reason),
        Err(payload) => {
            let text = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "(no message)".to_owned());
            Outcome::Fail(format!("panicked: {text}"))
        }
    }
}

/// A panic hook, as `std::panic::take_hook` returns it.
type PanicHook = Box<dyn Fn(&panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

/// Silences the default panic hook while cases run (a panic is reported as a failed case).
struct QuietPanics {
    previous: Option<PanicHook>,
}

impl QuietPanics {
    fn install() -> QuietPanics {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(|_| {}));
        QuietPanics {
            previous: Some(previous),
        }
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            panic::set_hook(previous);
        }
    }
}

/// Every `*.json` file under `dir`, sorted, except the data file `kubectl-validate/crds.json`.
fn case_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("{}: {e}", d.display()))?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }
    out.sort();
    // The one data file among the case files: an object, not an array of cases.
    out.retain(|p| relative(dir, p) != "kubectl-validate/crds.json");
    Ok(out)
}

fn load_cases(file: &Path) -> Result<Vec<Value>, String> {
    let text = fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    match value {
        Value::Array(cases) => Ok(cases),
        _ => Err(format!(
            "{}: not a JSON array of cases (the format of ../shared/conformance/README.md)",
            file.display()
        )),
    }
}

/// `pruning/algorithm_test.json` → (`pruning`, `algorithm_test`).
fn area_and_test(rel: &str) -> (String, String) {
    let (area, rest) = rel.split_once('/').unwrap_or(("", rel));
    let file = rest.rsplit('/').next().unwrap_or(rest);
    (
        area.to_owned(),
        file.strip_suffix(".json").unwrap_or(file).to_owned(),
    )
}

/// The ids of a file's cases: `<file> :: <name>`, with ` #n` on the n-th repeat of a name and
/// control characters escaped, so that each id is one unique line of the known-failures list.
fn case_ids<'a>(rel: &str, cases: &'a [Value]) -> Vec<(String, &'a Value)> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    cases
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let name = match case.get("name").and_then(Value::as_str) {
                Some(n) => escape_name(n),
                None => format!("#{}", i + 1),
            };
            let n = seen.entry(name.clone()).or_insert(0);
            *n += 1;
            let name = if *n > 1 { format!("{name} #{n}") } else { name };
            (format!("{rel} :: {name}"), case)
        })
        .collect()
}

/// A case name as the known-failures lists write it (`\\`, `\n`, `\r`, `\t` escaped).
pub(crate) fn escape_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

// ------------------------------------------------------------------------------------------
// Shared with `corpus`: arguments, paths, the known-failures list
// ------------------------------------------------------------------------------------------

/// The arguments both measurement tasks take.
pub(crate) struct TaskArgs {
    /// The data directory.
    pub dir: PathBuf,
    /// The known-failures list.
    pub known_failures: PathBuf,
    /// Rewrite the list from this run.
    pub update: bool,
    /// Print every failing item with its reason.
    pub verbose: bool,
}

impl TaskArgs {
    /// Parses `[DIR] [--known-failures FILE] [--update-known-failures] [--verbose]`. Defaults
    /// are relative to the workspace root; paths given on the command line to the current
    /// directory.
    pub fn parse(
        task: &str,
        args: &[String],
        default_dir: &str,
        default_list: &str,
    ) -> Result<TaskArgs, String> {
        let root = workspace_root();
        let mut dir = None;
        let mut known_failures = None;
        let mut update = false;
        let mut verbose = false;
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            match arg.as_str() {
                "--known-failures" => {
                    let file = it
                        .next()
                        .ok_or("--known-failures needs a file".to_owned())?;
                    known_failures = Some(PathBuf::from(file));
                }
                "--update-known-failures" => update = true,
                "--verbose" | "-v" => verbose = true,
                "--help" | "-h" => {
                    return Err(format!(
                        "usage: cargo xtask {task} [DIR] [--known-failures FILE] \
                         [--update-known-failures] [--verbose]\n\
                         DIR defaults to {default_dir}, FILE to {default_list} (both relative \
                         to the workspace root)"
                    ))
                }
                other if other.starts_with('-') => {
                    return Err(format!("unknown option `{other}`"));
                }
                other if dir.is_none() => dir = Some(PathBuf::from(other)),
                other => return Err(format!("unexpected argument `{other}`")),
            }
        }
        Ok(TaskArgs {
            dir: normalize(&dir.unwrap_or_else(|| root.join(default_dir))),
            known_failures: known_failures.unwrap_or_else(|| root.join(default_list)),
            update,
            verbose,
        })
    }

    /// The line printed when the data directory is missing.
    pub fn skipped_message(&self, task: &str) -> String {
        format!(
            "{task}: skipped: {} not found (the shared data sits beside the checkout in CI)",
            self.dir.display()
        )
    }
}

/// The workspace root (the xtask package's parent directory).
pub(crate) fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(Path::to_path_buf).unwrap_or(manifest)
}

/// Removes `.` and `..` components without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// `file` relative to `dir`, with `/` separators.
pub(crate) fn relative(dir: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(dir).unwrap_or(file);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The first line of a reason, shortened, for one-line listings.
pub(crate) fn one_line(reason: &str) -> String {
    let line = reason.lines().next().unwrap_or("");
    let mut out: String = line.chars().take(400).collect();
    if out.len() < line.len() || reason.lines().nth(1).is_some() {
        out.push_str(" …");
    }
    out
}

/// The items of a run, by id.
#[derive(Default)]
pub(crate) struct Results {
    /// Ids of the items that passed.
    pub passed: BTreeSet<String>,
    /// Ids of the items that failed, with the reason.
    pub failed: BTreeMap<String, String>,
}

impl Results {
    /// Compares the run with the known-failures list (or rewrites it with
    /// `--update-known-failures`), printing regressions and items that now pass. Returns
    /// whether the task passed: no regressions, or no failures at all when there is no list.
    pub fn check_known_failures(&self, args: &TaskArgs, header: &str) -> Result<bool, String> {
        let path = &args.known_failures;
        if args.update {
            let mut text = header.to_owned();
            for id in self.failed.keys() {
                text.push_str(id);
                text.push('\n');
            }
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            println!(
                "wrote {} known failures to {}",
                self.failed.len(),
                path.display()
            );
            return Ok(true);
        }
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(self.failed.is_empty());
            }
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let known: BTreeSet<&str> = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .collect();
        let regressions: Vec<(&String, &String)> = self
            .failed
            .iter()
            .filter(|(id, _)| !known.contains(id.as_str()))
            .collect();
        let now_passing: Vec<&&str> = known
            .iter()
            .filter(|id| self.passed.contains(**id))
            .collect();
        for id in &now_passing {
            println!("now passing, remove from the list: {id}");
        }
        for (id, reason) in &regressions {
            println!(
                "REGRESSION (fails, not in the known-failures list): {id}: {}",
                one_line(reason)
            );
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
}

// ------------------------------------------------------------------------------------------
// Cases, outcomes, areas
// ------------------------------------------------------------------------------------------

/// What the run says about a case.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    Pass,
    Fail(String),
    Skip(String),
}

/// Why a check did not pass: the engine's answer differs from `expect` or the engine cannot
/// answer (`Fail`), or this runner cannot interpret the case (`Skip`).
use crd_studio_engine::conformance::Problem;

type Checked = Result<(), Problem>;
type Checker = fn(&mut Ctx, &Case) -> Checked;

fn fail<T>(reason: impl Into<String>) -> Result<T, Problem> {
    Err(Problem::Fail(reason.into()))
}

fn skip<T>(reason: impl Into<String>) -> Result<T, Problem> {
    Err(Problem::Skip(reason.into()))
}

/// What checkers share: where the data is, which test file is running, loaded data.
struct Ctx {
    dir: PathBuf,
    /// The file's test name (`validation_test.TestRatcheting`).
    test: String,
    /// kubectl-validate's local CRDs, by `localCrds` reference.
    kubectl_crds: BTreeMap<String, Vec<CompiledCrd>>,
}

impl Ctx {
    fn unknown_test<T>(&self, area: &str) -> Result<T, Problem> {
        skip(format!(
            "unknown test file `{}` in area `{area}`: this runner does not know its expect semantics",
            self.test
        ))
    }
}

/// One case: `name`, `schema`, `input`, `expect`.
struct Case<'a> {
    name: &'a str,
    value: &'a Value,
}

static NULL: Value = Value::Null;

impl<'a> Case<'a> {
    fn new(value: &'a Value) -> Option<Case<'a>> {
        Some(Case {
            name: value.get("name")?.as_str()?,
            value,
        })
    }

    /// `schema` (JSON `null` when absent: a nil schema).
    fn schema(&self) -> &'a Value {
        self.value.get("schema").unwrap_or(&NULL)
    }

    /// `input.<key>`, if present.
    fn input_opt(&self, key: &str) -> Option<&'a Value> {
        self.value.get("input").and_then(|i| i.get(key))
    }

    /// `input.<key>`; a case without it cannot be run.
    fn input(&self, key: &str) -> Result<&'a Value, Problem> {
        match self.input_opt(key) {
            Some(v) => Ok(v),
            None => skip(format!("case `{}` has no input.{key}", self.name)),
        }
    }

    fn input_bool(&self, key: &str, default: bool) -> bool {
        self.input_opt(key)
            .and_then(Value::as_bool)
            .unwrap_or(default)
    }

    fn input_i64(&self, key: &str, default: i64) -> i64 {
        self.input_opt(key)
            .and_then(Value::as_i64)
            .unwrap_or(default)
    }

    fn input_str(&self, key: &str) -> Result<&'a str, Problem> {
        match self.input(key)?.as_str() {
            Some(s) => Ok(s),
            None => skip(format!("input.{key} is not a string")),
        }
    }

    /// `expect.<key>`, if present.
    fn expect_opt(&self, key: &str) -> Option<&'a Value> {
        self.value.get("expect").and_then(|e| e.get(key))
    }

    fn expect(&self, key: &str) -> Result<&'a Value, Problem> {
        match self.expect_opt(key) {
            Some(v) => Ok(v),
            None => skip(format!("case `{}` has no expect.{key}", self.name)),
        }
    }

    fn expect_array(&self, key: &str) -> Result<&'a [Value], Problem> {
        match self.expect(key)?.as_array() {
            Some(a) => Ok(a),
            None => skip(format!("expect.{key} is not an array")),
        }
    }

    fn expect_strings(&self, key: &str) -> Result<Vec<&'a str>, Problem> {
        self.expect_array(key)?
            .iter()
            .map(|v| match v.as_str() {
                Some(s) => Ok(s),
                None => skip(format!("expect.{key} holds a non-string")),
            })
            .collect()
    }
}

#[path = "conformance_crd.rs"]
mod conformance_crd;
#[path = "conformance_structural.rs"]
mod conformance_structural;

/// The areas of ../shared/conformance, by directory, with their checkers. Adding an area is
/// one line here and one function; enabling one the engine now implements is filling in its
/// adapter in [`engine`].
const AREAS: &[AreaSpec] = &[
    AreaSpec {
        dir: "cel-cost",
        check: areas::cel_cost,
    },
    AreaSpec {
        dir: "pruning",
        check: areas::pruning,
    },
    AreaSpec {
        dir: "defaulting",
        check: areas::defaulting,
    },
    AreaSpec {
        dir: "structural",
        check: conformance_structural::check,
    },
    AreaSpec {
        dir: "cel-eval",
        check: areas::cel_eval,
    },
    AreaSpec {
        dir: "printer-columns",
        check: areas::printer_columns,
    },
    AreaSpec {
        dir: "crd-validation",
        check: conformance_crd::check,
    },
    AreaSpec {
        dir: "conversion",
        check: areas::conversion,
    },
    AreaSpec {
        dir: "validation",
        check: areas::validation,
    },
    AreaSpec {
        dir: "listtype",
        check: areas::listtype,
    },
    AreaSpec {
        dir: "ratcheting",
        check: areas::ratcheting,
    },
    AreaSpec {
        dir: "cel-compile",
        check: areas::cel_compile,
    },
    AreaSpec {
        dir: "kubectl-validate",
        check: areas::kubectl_validate,
    },
];

/// One area: its directory and its checker.
struct AreaSpec {
    dir: &'static str,
    check: Checker,
}

// ------------------------------------------------------------------------------------------
// The checkers: one per area, dispatching on the test where the README says so
// ------------------------------------------------------------------------------------------

mod areas {
    use super::engine::{self, CelRequest, ExprEnv};
    use super::expect;
    use super::*;

    /// `PerCallLimit` (k8s.io/apiserver/pkg/apis/cel/config.go).
    const PER_CALL_LIMIT: u64 = 1_000_000;
    /// `RuntimeCELCostBudget`.
    const RUNTIME_BUDGET: i64 = 10_000_000;

    pub(super) fn cel_cost(ctx: &mut Ctx, case: &Case) -> Checked {
        match ctx.test.as_str() {
            "celcoststability_test" => {
                if let Some(want) = case.expect_opt("runtimeCost") {
                    let run = engine::cel_validate(&CelRequest {
                        schema: case.schema(),
                        object: case.input("object")?,
                        old_object: None,
                        is_resource_root: true,
                        cost_budget: RUNTIME_BUDGET,
                        per_call_limit: PER_CALL_LIMIT,
                        ratcheting: false,
                    })?;
                    expect::field_errors_multiset(case.expect_array("errors")?, &run.errors)?;
                    expect::json_eq(
                        "runtime cost",
                        want,
                        &json!(RUNTIME_BUDGET - run.remaining_budget),
                    )
                } else if let Some(want) = case.expect_opt("estimatedMaxCost") {
                    let rules = engine::compile_rules(case.schema(), false, ExprEnv::New)?;
                    let rule = only_rule(&rules, true)?;
                    if let Some(e) = &rule.error {
                        return fail(format!("compile error: {e}"));
                    }
                    expect::json_eq("estimated max cost", want, &json!(rule.max_cost))
                } else {
                    skip("expect has neither runtimeCost nor estimatedMaxCost")
                }
            }
            "compilation_test.TestCostEstimation" => {
                let rules = engine::compile_rules(case.schema(), false, ExprEnv::New)?;
                let rule = only_rule(&rules, false)?;
                let want_errors = case.expect_strings("compileErrors")?;
                let got_errors: Vec<String> = rule.error.iter().map(ToString::to_string).collect();
                if want_errors.is_empty() {
                    if let Some(e) = got_errors.first() {
                        return fail(format!("compile error: {e}"));
                    }
                } else {
                    expect::each_contained_somewhere(&want_errors, &got_errors)?;
                }
                if let Some(at_least) = case.expect_opt("estimatedMaxCostAtLeast") {
                    let min = at_least.as_u64().unwrap_or(u64::MAX);
                    if rule.max_cost < min {
                        return fail(format!("max cost {} < {min}", rule.max_cost));
                    }
                    Ok(())
                } else if case.expect_opt("unchecked") == Some(&Value::Bool(true)) {
                    Ok(()) // the Go test skips the comparison when it expects 0
                } else {
                    expect::json_eq(
                        "estimated max cost",
                        case.expect("estimatedMaxCost")?,
                        &json!(rule.max_cost),
                    )
                }
            }
            "validation_test.TestCostInfo" => {
                let Some(chain) = case.schema().as_array() else {
                    return skip("schema is not the list of nested schemas");
                };
                let got = engine::max_cardinality(chain)?;
                expect::json_eq(
                    "max cardinality",
                    case.expect("maxCardinality")?,
                    &json!(got),
                )
            }
            "validation_test.TestPerCRDEstimatedCost" => {
                let costs: Vec<u64> = case
                    .input("expressionCosts")?
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_u64).collect())
                    .unwrap_or_default();
                let (total, most) = engine::per_crd_estimated_cost(&costs)?;
                expect::json_eq("total", case.expect("total")?, &json!(total))?;
                expect::json_eq(
                    "most expensive",
                    case.expect("mostExpensive")?,
                    &json!(most),
                )
            }
            _ => ctx.unknown_test("cel-cost"),
        }
    }

    /// The one rule of a schema (at the root when `root_only`).
    fn only_rule(
        rules: &[engine::CompiledRule],
        root_only: bool,
    ) -> Result<&engine::CompiledRule, Problem> {
        let rules: Vec<&engine::CompiledRule> = rules
            .iter()
            .filter(|r| !root_only || r.schema_path.is_empty())
            .collect();
        match rules.as_slice() {
            [rule] => Ok(rule),
            _ => fail(format!(
                "expected exactly one compiled rule, got {}",
                rules.len()
            )),
        }
    }

    pub(super) fn pruning(ctx: &mut Ctx, case: &Case) -> Checked {
        match ctx.test.as_str() {
            "algorithm_test" => {
                let (object, paths) = engine::prune(
                    case.schema(),
                    case.input("object")?,
                    case.input_bool("isResourceRoot", false),
                )?;
                expect::json_eq("pruned object", case.expect("object")?, &object)?;
                expect::json_eq("pruned paths", case.expect("prunedPaths")?, &json!(paths))
            }
            _ => ctx.unknown_test("pruning"),
        }
    }

    pub(super) fn defaulting(ctx: &mut Ctx, case: &Case) -> Checked {
        match ctx.test.as_str() {
            "algorithm_test" => {
                let got = engine::default(case.schema(), case.input("object")?)?;
                expect::json_eq("defaulted object", case.expect("object")?, &got)
            }
            "prunenulls_test" => {
                let got = engine::prune_non_nullable_nulls(case.schema(), case.input("object")?)?;
                expect::json_eq("object", case.expect("object")?, &got)
            }
            "validation_test" => {
                let type_meta = case.input("rootTypeMeta")?;
                let prefix = case
                    .input_opt("pathPrefix")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if let Some(by_budget) = case.expect_opt("byCostBudget") {
                    for entry in by_budget.as_array().map(Vec::as_slice).unwrap_or_default() {
                        let budget = entry
                            .get("costBudget")
                            .and_then(Value::as_i64)
                            .unwrap_or(RUNTIME_BUDGET);
                        let errors =
                            engine::validate_defaults(case.schema(), type_meta, prefix, budget)
                                .map_err(|p| with_context(p, &format!("budget {budget}")))?;
                        check_budget_entry(entry, &errors)
                            .map_err(|p| with_context(p, &format!("budget {budget}")))?;
                    }
                    Ok(())
                } else {
                    let budget = case.input_i64("costBudget", RUNTIME_BUDGET);
                    let errors =
                        engine::validate_defaults(case.schema(), type_meta, prefix, budget)?;
                    let want = case.expect_strings("errorsContain")?;
                    let got: Vec<String> = errors.iter().map(|e| e.error.clone()).collect();
                    expect::each_contains_one_of(&got, &want)?;
                    expect::each_contained_somewhere(&want, &got)
                }
            }
            _ => ctx.unknown_test("defaulting"),
        }
    }

    fn check_budget_entry(entry: &Value, errors: &[FieldErrorReport]) -> Checked {
        if let Some(want) = entry.get("errors") {
            return expect::field_errors_multiset(
                want.as_array().map(Vec::as_slice).unwrap_or_default(),
                errors,
            );
        }
        let Some(counts) = entry
            .get("errorsContainingCount")
            .and_then(Value::as_object)
        else {
            return skip("byCostBudget entry has neither errors nor errorsContainingCount");
        };
        if let Some(t) = entry.get("errorType").and_then(Value::as_str) {
            expect::all_of_type(errors, t)?;
        }
        for (substring, n) in counts {
            let got = errors
                .iter()
                .filter(|e| e.error.contains(substring.as_str()))
                .count();
            if Some(got as u64) != n.as_u64() {
                return fail(format!(
                    "{got} errors contain {substring:?}, want {n}; errors: {}",
                    expect::show_errors(errors)
                ));
            }
        }
        Ok(())
    }

    fn with_context(p: Problem, context: &str) -> Problem {
        match p {
            Problem::Fail(r) => Problem::Fail(format!("{context}: {r}")),
            Problem::Skip(r) => Problem::Skip(format!("{context}: {r}")),
        }
    }

    pub(super) fn cel_eval(ctx: &mut Ctx, case: &Case) -> Checked {
        let test = ctx.test.as_str();
        if test.ends_with("TestValidateFieldPath") {
            return field_path(case, true);
        }
        const VALIDATOR_TESTS: &[&str] = &[
            "validation_test.TestValidationExpressions",
            "validation_test.TestCELMaxRecursionDepth",
            "validation_test.TestValidationExpressionsAtSchemaLevels",
            "validation_test.TestOptionalOldSelf",
            "validation_test.TestOptionalOldSelfIsOptionalType",
            "validation_test.TestOptionalOldSelfCheckForNull",
            "validation_test.TestReasonAndFldPath",
            "validation_test.TestMessageExpression",
            "validation_test.TestCELValidationLimit",
            "validation_test.TestRatcheting",
        ];
        if !VALIDATOR_TESTS.contains(&test) {
            return ctx.unknown_test("cel-eval");
        }
        let failing = case
            .expect_opt("errorsContain")
            .is_some_and(Value::is_string);
        let request = CelRequest {
            schema: case.schema(),
            object: case.input("object")?,
            old_object: case.input_opt("oldObject"),
            // The README: failing TestValidationExpressions cases run with isResourceRoot=true.
            is_resource_root: (failing && test == "validation_test.TestValidationExpressions")
                || case.input_bool("isResourceRoot", false),
            cost_budget: case.input_i64("costBudget", RUNTIME_BUDGET),
            per_call_limit: case
                .input_opt("perCallLimit")
                .and_then(Value::as_u64)
                .unwrap_or(PER_CALL_LIMIT),
            ratcheting: case.input_bool("ratcheting", false),
        };
        let wanted_type = case
            .expect_opt("errorType")
            .and_then(Value::as_str)
            .unwrap_or("FieldValueInvalid");
        match test {
            "validation_test.TestValidationExpressions"
            | "validation_test.TestCELMaxRecursionDepth" => {
                let run = engine::cel_validate(&request)?;
                if let Some(sub) = case.expect_opt("errorsContain").and_then(Value::as_str) {
                    if run.errors.is_empty() {
                        return fail(format!("no errors, want one containing {sub:?}"));
                    }
                    expect::all_of_type(&run.errors, wanted_type)?;
                    expect::all_contain(&run.errors, sub)
                } else {
                    expect::field_errors_multiset(case.expect_array("errors")?, &run.errors)?;
                    let cost = request.cost_budget - run.remaining_budget;
                    if case.expect_opt("skipped") == Some(&Value::Bool(true)) && cost != 0 {
                        return fail(format!("the rule should not run, but cost {cost}"));
                    }
                    match case.expect_opt("runtimeCost") {
                        Some(want) => expect::json_eq("runtime cost", want, &json!(cost)),
                        None => Ok(()),
                    }
                }
            }
            "validation_test.TestValidationExpressionsAtSchemaLevels"
            | "validation_test.TestOptionalOldSelf"
            | "validation_test.TestOptionalOldSelfIsOptionalType" => {
                let run = engine::cel_validate(&request)?;
                expect::all_of_type(&run.errors, wanted_type)?;
                let want = case.expect_strings("errorsContainUnordered")?;
                let got: Vec<String> = run.errors.iter().map(|e| e.error.clone()).collect();
                expect::consume_substrings(&want, &got)
            }
            "validation_test.TestOptionalOldSelfCheckForNull" => {
                let run = engine::cel_validate(&request)?;
                expect::field_errors_multiset(case.expect_array("errors")?, &run.errors)
            }
            "validation_test.TestReasonAndFldPath" => {
                let run = engine::cel_validate(&request)?;
                expect::field_errors_multiset(case.expect_array("errorsExact")?, &run.errors)
            }
            "validation_test.TestMessageExpression" => {
                let run = engine::cel_validate(&request)?;
                expect::count("errors", case.expect_opt("errorCount"), run.errors.len())?;
                if let Some(sub) = case.expect_opt("errorContains").and_then(Value::as_str) {
                    expect::all_contain(&run.errors, sub)?;
                }
                let log = run.log.join("\n");
                if let Some(sub) = case.expect_opt("logContains").and_then(Value::as_str) {
                    if !log.contains(sub) {
                        return fail(format!("log {log:?} does not contain {sub:?}"));
                    }
                }
                if case.expect_opt("logEmpty") == Some(&Value::Bool(true)) && !log.is_empty() {
                    return fail(format!("log should be empty: {log:?}"));
                }
                match case.expect_opt("remainingBudget") {
                    Some(want) => {
                        expect::json_eq("remaining budget", want, &json!(run.remaining_budget))
                    }
                    None => Ok(()),
                }
            }
            "validation_test.TestCELValidationLimit" => {
                let run = engine::cel_validate(&request)?;
                expect::all_of_type(&run.errors, wanted_type)?;
                expect::count("errors", case.expect_opt("errorCount"), run.errors.len())?;
                if let Some(sub) = case
                    .expect_opt("errorsContainExactlyOnce")
                    .and_then(Value::as_str)
                {
                    let n = run.errors.iter().filter(|e| e.error.contains(sub)).count();
                    if n != 1 {
                        return fail(format!(
                            "{n} errors contain {sub:?}, want exactly 1: {}",
                            expect::show_errors(&run.errors)
                        ));
                    }
                }
                if let Some(sub) = case.expect_opt("someErrorContains").and_then(Value::as_str) {
                    if !run.errors.iter().any(|e| e.error.contains(sub)) {
                        return fail(format!(
                            "no error contains {sub:?}: {}",
                            expect::show_errors(&run.errors)
                        ));
                    }
                }
                Ok(())
            }
            "validation_test.TestRatcheting" => {
                let run = engine::cel_validate(&request)?;
                expect::count("errors", case.expect_opt("errorCount"), run.errors.len())?;
                expect::count(
                    "warnings",
                    case.expect_opt("warningCount"),
                    run.warnings.len(),
                )?;
                let errors: Vec<String> = run.errors.iter().map(|e| e.error.clone()).collect();
                expect::each_contained_somewhere(&case.expect_strings("errorsContain")?, &errors)?;
                for want in case.expect_strings("warningsExact")? {
                    if !run.warnings.iter().any(|w| w == want) {
                        return fail(format!("no warning {want:?} in {:?}", run.warnings));
                    }
                }
                Ok(())
            }
            _ => ctx.unknown_test("cel-eval"),
        }
    }

    /// `ValidFieldPath`: `expect.valid`, `errorContains`, `resolvedPath`.
    fn field_path(case: &Case, with_resolved: bool) -> Checked {
        let path = case.input_str("fieldPath")?;
        let prefix = case
            .input_opt("pathOfFieldPath")
            .and_then(Value::as_str)
            .unwrap_or("");
        let got = engine::valid_field_path(case.schema(), path, prefix)?;
        let valid = case.expect("valid")?.as_bool().unwrap_or(false);
        match got {
            Ok(resolved) => {
                if !valid {
                    return fail(format!(
                        "accepted (resolved to {resolved:?}), want an error"
                    ));
                }
                match case.expect_opt("resolvedPath").filter(|_| with_resolved) {
                    Some(want) => expect::json_eq("resolved path", want, &json!(resolved)),
                    None => Ok(()),
                }
            }
            Err(error) => {
                if valid {
                    return fail(format!("rejected: {error}"));
                }
                match case.expect_opt("errorContains").and_then(Value::as_str) {
                    Some(sub) if !error.contains(sub) => {
                        fail(format!("error {error:?} does not contain {sub:?}"))
                    }
                    _ => Ok(()),
                }
            }
        }
    }

    pub(super) fn printer_columns(ctx: &mut Ctx, case: &Case) -> Checked {
        match ctx.test.as_str() {
            "tableconvertor_test.Test_cellForJSONValue" => {
                let (cell, go_type) = engine::cell_for_json_value(
                    case.input_str("columnType")?,
                    case.input("value")?,
                    case.input_opt("goValueType")
                        .and_then(Value::as_str)
                        .unwrap_or(""),
                )?;
                expect::json_eq("cell", case.expect("cell")?, &cell)?;
                match case.expect_opt("cellGoType") {
                    Some(want) => expect::json_eq("cell Go type", want, &json!(go_type)),
                    None => Ok(()),
                }
            }
            "tableconvertor_test.Test_convertor_ConvertToTable" => {
                let no_headers = case
                    .input_opt("tableOptions")
                    .and_then(|o| o.get("noHeaders"))
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                let got = engine::convert_to_table(
                    case.input("headers")?,
                    case.input("additionalColumns")?,
                    case.input("object")?,
                    no_headers,
                )?;
                let want_error = case
                    .expect_opt("error")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                let table = match (got, want_error) {
                    (Err(e), false) => return fail(format!("error: {e}")),
                    (Err(_), true) => return Ok(()),
                    (Ok(_), true) => return fail("no error, want one"),
                    (Ok(table), false) => table,
                };
                expect::json_eq(
                    "column definitions",
                    case.expect("columnDefinitions")?,
                    &table.column_definitions,
                )?;
                let want_rows = case.expect_array("rows")?;
                let want_cells: Vec<&Value> = want_rows
                    .iter()
                    .map(|r| r.get("cells").unwrap_or(&NULL))
                    .collect();
                expect::json_eq("row cells", &json!(want_cells), &json!(table.rows))
            }
            "integration.table_test" => table_integration(case),
            _ => ctx.unknown_test("printer-columns"),
        }
    }

    /// A CRD serving `servedVersion` with the given columns and an allow-all schema; the object
    /// is read at that version (None conversion changes only `apiVersion`).
    fn table_integration(case: &Case) -> Checked {
        let columns = case.input("additionalPrinterColumns")?;
        let version = case.input_str("servedVersion")?;
        let mut object = case.input("object")?.clone();
        let api_version = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let group = api_version
            .split_once('/')
            .map(|(g, _)| g)
            .unwrap_or("")
            .to_owned();
        let kind = object
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if let Some(map) = object.as_object_mut() {
            map.insert("apiVersion".into(), json!(format!("{group}/{version}")));
        }
        let plural = format!("{}s", kind.to_lowercase());
        let crd = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("{plural}.{group}")},
            "spec": {
                "group": group,
                "scope": "Cluster",
                "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind, "listKind": format!("{kind}List")},
                "versions": [{
                    "name": version, "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                    "additionalPrinterColumns": columns,
                }],
            },
        });
        // The test creates the object through an API server, which sets
        // `metadata.creationTimestamp` to the request time; the engine fills no system fields
        // and has no clock, so both are given.
        let now = "2026-01-01T00:00:00Z";
        if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.insert("creationTimestamp".into(), json!(now));
        }
        let options = Options {
            now: crd_studio_engine::Time::parse_rfc3339(now).ok(),
            ..Options::default()
        };
        let compiled = CompiledCrd::compile(&crd.to_string(), &options);
        let analysis = compiled.analyze_objects(&[object.to_string()], None);
        let Some(report) = analysis.objects.first() else {
            return fail("the engine reported no object");
        };
        if let Some(e) = &report.object_error {
            return fail(format!("object error: {e}"));
        }
        let want_count = case.expect("columnCount")?.as_u64().unwrap_or(0) as usize;
        expect::count(
            "columns",
            Some(&json!(want_count)),
            report.table.columns.len(),
        )?;
        let want_defs = case.expect_array("columnDefinitionsFromIndex1")?;
        let want_names: Vec<&Value> = want_defs
            .iter()
            .map(|d| d.get("name").unwrap_or(&NULL))
            .collect();
        expect::json_eq(
            "column names",
            &json!(want_names),
            &json!(report.table.columns.get(1..).unwrap_or_default()),
        )?;
        let want_rows = case.expect_array("rows")?;
        let want_cells = want_rows
            .first()
            .and_then(|r| r.get("cells"))
            .and_then(Value::as_array);
        let Some(want_cells) = want_cells else {
            return skip("expect.rows[0].cells missing");
        };
        expect::cells(want_cells, &report.table.cells)?;
        // Type, format, description and priority of the columns: the engine's TableRow has
        // only names.
        engine::column_definitions(&analysis, version).and_then(|defs| {
            expect::json_eq(
                "column definitions",
                &Value::Array(want_defs.to_vec()),
                &Value::Array(defs.get(1..).unwrap_or_default().to_vec()),
            )
        })
    }

    pub(super) fn conversion(ctx: &mut Ctx, case: &Case) -> Checked {
        match ctx.test.as_str() {
            "converter_test.TestConversion" => {
                let got = engine::convert_none(
                    case.input("servedVersions")?,
                    case.input_bool("clusterScoped", false),
                    case.input_str("toVersion")?,
                    case.input("object")?,
                    case.input_bool("objectIsList", false),
                )?;
                result_or_error(case, "object", got)
            }
            "webhook_converter_test.TestRestoreObjectMeta" => {
                let (converted, error) =
                    engine::restore_object_meta(case.input("original")?, case.input("converted")?)?;
                expect::json_eq("error", case.expect("error")?, &json!(error))?;
                expect::json_eq("converted", case.expect("converted")?, &converted)
            }
            "webhook_converter_test.TestGetObjectsToConvert" => {
                let got = engine::objects_to_convert(
                    case.input("object")?,
                    case.input_bool("objectIsList", false),
                    case.input_str("apiVersion")?,
                )?;
                let got = if got.is_empty() {
                    Value::Null
                } else {
                    Value::Array(got)
                };
                expect::json_eq("objects", case.expect("objects")?, &got)
            }
            "webhook_converter_test.TestCreateConversionReviewObjects" => {
                let got = engine::create_conversion_review(
                    case.input("conversionReviewVersions")?,
                    case.input("objects")?,
                    case.input_str("desiredAPIVersion")?,
                    case.input_str("uid")?,
                )?;
                match (
                    got,
                    case.expect_opt("errorContains").and_then(Value::as_str),
                ) {
                    (Err(e), Some(sub)) if e.contains(sub) => Ok(()),
                    (Err(e), _) => fail(format!("error: {e}")),
                    (Ok(_), Some(sub)) => fail(format!("no error, want one containing {sub:?}")),
                    (Ok((request, response)), None) => {
                        expect::json_eq("request", case.expect("request")?, &request)?;
                        expect::json_eq("response", case.expect("response")?, &response)
                    }
                }
            }
            "webhook_converter_test.TestGetConvertedObjectsFromResponse" => {
                let got = engine::converted_objects_from_response(
                    case.input_str("expectedUID")?,
                    case.input("response")?,
                )?;
                result_or_error(
                    case,
                    "objects",
                    got.map(|o| o.map_or(Value::Null, Value::Array)),
                )
            }
            _ => ctx.unknown_test("conversion"),
        }
    }

    /// `expect.<key>` on success, or `expect.errorContains`.
    fn result_or_error(case: &Case, key: &str, got: Result<Value, String>) -> Checked {
        match (
            got,
            case.expect_opt("errorContains").and_then(Value::as_str),
        ) {
            (Err(e), Some(sub)) if e.contains(sub) => Ok(()),
            (Err(e), Some(sub)) => fail(format!("error {e:?} does not contain {sub:?}")),
            (Err(e), None) => fail(format!("error: {e}")),
            (Ok(v), Some(sub)) => fail(format!(
                "got {}, want an error containing {sub:?}",
                expect::show(&v)
            )),
            (Ok(v), None) => expect::json_eq(key, case.expect(key)?, &v),
        }
    }

    pub(super) fn validation(ctx: &mut Ctx, case: &Case) -> Checked {
        let compat = case
            .input_opt("compatibilityVersion")
            .and_then(Value::as_str);
        let errors = || {
            engine::validate_custom_resource(
                case.schema(),
                case.input("object")?,
                case.input_opt("oldObject"),
                compat,
            )
        };
        match ctx.test.as_str() {
            "validation_test.TestValidateCustomResource" => {
                let got = errors()?;
                if let Some(want) = case.expect_opt("errorStringsExact") {
                    let want: BTreeSet<&str> = want
                        .as_array()
                        .map(|a| a.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    let got: BTreeSet<&str> = got.iter().map(String::as_str).collect();
                    if want != got {
                        return fail(format!("errors {got:?}, want {want:?}"));
                    }
                    Ok(())
                } else if case.expect_array("errors")?.is_empty() {
                    match got.is_empty() {
                        true => Ok(()),
                        false => fail(format!("unexpected errors {got:?}")),
                    }
                } else {
                    skip("expect.errors is not empty: the README defines only errorStringsExact for failures")
                }
            }
            "validation_test.TestItemsProperty" => {
                let got = errors()?;
                let want = case.expect("hasErrors")?.as_bool().unwrap_or(false);
                if want == got.is_empty() {
                    return fail(format!("hasErrors {want}, got {got:?}"));
                }
                Ok(())
            }
            _ => ctx.unknown_test("validation"),
        }
    }

    pub(super) fn listtype(ctx: &mut Ctx, case: &Case) -> Checked {
        match ctx.test.as_str() {
            "validation_test" => {
                let errors =
                    engine::validate_list_sets_and_maps(case.schema(), case.input("object")?)?;
                expect::field_errors_multiset(case.expect_array("errors")?, &errors)
            }
            _ => ctx.unknown_test("listtype"),
        }
    }

    pub(super) fn ratcheting(ctx: &mut Ctx, case: &Case) -> Checked {
        match ctx.test.as_str() {
            "ratcheting_test" => {
                let valid = engine::ratcheting_validate_update(
                    case.schema(),
                    case.input("object")?,
                    case.input("oldObject")?,
                )?;
                expect::json_eq("valid", case.expect("valid")?, &json!(valid))
            }
            _ => ctx.unknown_test("ratcheting"),
        }
    }

    pub(super) fn cel_compile(ctx: &mut Ctx, case: &Case) -> Checked {
        match ctx.test.as_str() {
            "compilation_test.TestCelCompilation" => {
                let env = match case.input_opt("exprEnv").and_then(Value::as_str) {
                    Some("stored") => ExprEnv::Stored,
                    _ => ExprEnv::New,
                };
                let rules = engine::compile_rules(case.schema(), false, env)?;
                let root: Vec<&engine::CompiledRule> =
                    rules.iter().filter(|r| r.schema_path.is_empty()).collect();
                let want = case.expect_array("results")?;
                if root.len() != want.len() {
                    return fail(format!("{} results, want {}", root.len(), want.len()));
                }
                for (i, (want, got)) in want.iter().zip(root).enumerate() {
                    compile_result(want, got).map_err(|p| with_context(p, &format!("rule {i}")))?;
                }
                Ok(())
            }
            _ => ctx.unknown_test("cel-compile"),
        }
    }

    fn compile_result(want: &Value, got: &engine::CompiledRule) -> Checked {
        let flag = |k: &str| want.get(k).and_then(Value::as_bool);
        if flag("noError") == Some(true) {
            if let Some(e) = &got.error {
                return fail(format!("compile error: {e}"));
            }
        }
        let check_error =
            |kind_key: &str, text_key: &str, error: &Option<engine::CelError>| -> Checked {
                let kind = want.get(kind_key).and_then(Value::as_str);
                let text = want.get(text_key).and_then(Value::as_str);
                if kind.is_none() && text.is_none() {
                    return Ok(());
                }
                let Some(e) = error else {
                    return fail(format!("no error, want {kind:?} containing {text:?}"));
                };
                if kind.is_some_and(|k| k != e.kind) {
                    return fail(format!("error type {}, want {kind:?}", e.kind));
                }
                if text.is_some_and(|t| !e.detail.contains(t)) {
                    return fail(format!("error {e} does not contain {text:?}"));
                }
                Ok(())
            };
        check_error("errorType", "errorContains", &got.error)?;
        check_error(
            "messageExpressionErrorType",
            "messageExpressionErrorContains",
            &got.message_expression_error,
        )?;
        if let Some(want) = flag("usesOldSelf") {
            if want != got.uses_old_self {
                return fail(format!("usesOldSelf {}, want {want}", got.uses_old_self));
            }
        }
        if let Some(want) = flag("programIsNil") {
            if want != got.program_is_nil {
                return fail(format!("programIsNil {}, want {want}", got.program_is_nil));
            }
        }
        Ok(())
    }

    pub(super) fn kubectl_validate(ctx: &mut Ctx, case: &Case) -> Checked {
        match ctx.test.as_str() {
            "testcases" => kubectl::check(ctx, case),
            _ => ctx.unknown_test("kubectl-validate"),
        }
    }
}

// ------------------------------------------------------------------------------------------
// kubectl-validate: manifests checked against local CRDs, one metav1.Status per document
// ------------------------------------------------------------------------------------------

mod kubectl {
    use super::expect::error_type;
    use super::*;

    pub(super) fn check(ctx: &mut Ctx, case: &Case) -> Checked {
        let raw = case.input_str("rawYaml")?;
        let reference = case.input_str("localCrds")?;
        let want = case.expect_array("statuses")?;
        let crds = local_crds(ctx, reference)?;
        let chunks = split_documents(raw);
        if chunks.len() != want.len() {
            return skip(format!(
                "the manifest splits into {} documents here, the case expects {} statuses",
                chunks.len(),
                want.len()
            ));
        }
        let mut any_failure = false;
        for (i, (chunk, want)) in chunks.iter().zip(want).enumerate() {
            let got = status(chunk, crds)?;
            any_failure |= got.get("status").and_then(Value::as_str) == Some("Failure");
            let (want_n, got_n) = (normalize_status(want), normalize_status(&got));
            if want_n != got_n {
                return fail(format!(
                    "document {i}: status {}, want {}",
                    expect::show(&got_n),
                    expect::show(&want_n)
                ));
            }
        }
        match case.expect_opt("commandFails").and_then(Value::as_bool) {
            Some(want) if want != any_failure => {
                fail(format!("commandFails {any_failure}, want {want}"))
            }
            _ => Ok(()),
        }
    }

    /// The CRDs of `kubectl-validate/crds.json (testcases/crds)`: the file, and the folder whose
    /// CRDs are loaded. Objects that are not CRDs are ignored, as kubectl-validate does.
    fn local_crds<'c>(ctx: &'c mut Ctx, reference: &str) -> Result<&'c [CompiledCrd], Problem> {
        if !ctx.kubectl_crds.contains_key(reference) {
            let (file, folder) = match reference.split_once(" (") {
                Some((f, rest)) => (f, rest.trim_end_matches(')')),
                None => (reference, ""),
            };
            let path = ctx.dir.join(file);
            let text = match fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) => return skip(format!("{}: {e}", path.display())),
            };
            let data: Value = match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(e) => return skip(format!("{}: {e}", path.display())),
            };
            let compiled = data
                .get("crds")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .filter(|c| {
                    c.get("file")
                        .and_then(Value::as_str)
                        .is_some_and(|f| folder.is_empty() || f.starts_with(&format!("{folder}/")))
                })
                .filter_map(|c| c.get("object"))
                .filter(|o| {
                    o.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
                })
                .map(|o| CompiledCrd::compile(&o.to_string(), &Options::default()))
                .collect();
            ctx.kubectl_crds.insert(reference.to_owned(), compiled);
        }
        Ok(ctx
            .kubectl_crds
            .get(reference)
            .map(Vec::as_slice)
            .unwrap_or_default())
    }

    /// Splits a manifest like `k8s.io/apimachinery`'s YAMLReader: at lines starting with `---`
    /// followed by nothing but blanks or a comment; empty chunks are dropped, comment-only
    /// chunks kept.
    pub(super) fn split_documents(raw: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut current = String::new();
        for line in raw.split_inclusive('\n') {
            let rest = line.strip_prefix("---").map(str::trim);
            if rest.is_some_and(|r| r.is_empty() || r.starts_with('#')) {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                continue;
            }
            current.push_str(line);
        }
        if !current.is_empty() {
            out.push(current);
        }
        out
    }

    /// What kubectl-validate prints for one document.
    fn status(chunk: &str, crds: &[CompiledCrd]) -> Result<Value, Problem> {
        let doc = engine::kubectl_document(chunk);
        if !doc.syntax_errors.is_empty() {
            return Ok(json!({
                "status": "Failure",
                "message": "failed to unmarshal document to YAML",
                "reason": "BadRequest",
                "code": 400,
                "details": {"causes": doc.syntax_errors.iter().map(|m| json!({"message": m})).collect::<Vec<_>>()},
            }));
        }
        let Some((api_version, kind)) = &doc.type_meta else {
            return Ok(json!({"status": "Success"}));
        };
        let (api_version, kind) = (api_version.as_str(), kind.as_str());
        let (group, _) = api_version.split_once('/').unwrap_or(("", api_version));
        if kind == "CustomResourceDefinition" && group == "apiextensions.k8s.io" {
            let compiled = CompiledCrd::compile(chunk, &Options::default());
            let report = compiled.analyze_objects(&[], None).crd;
            let name = report.name.clone().unwrap_or_default();
            return Ok(invalid_status(
                kind,
                group,
                &name,
                report.accepted,
                &report.errors,
            ));
        }
        let served = engine::serving(crds, api_version);
        let Some(crd) = served else {
            return fail(format!(
                "not implemented: kubectl-validate (built-in kind {kind} {api_version} needs the \
                 built-in Kubernetes OpenAPI schemas)"
            ));
        };
        let analysis = crd.analyze_objects(&[chunk.to_owned()], None);
        let Some(report) = analysis.objects.first() else {
            return fail("the engine reported no object");
        };
        if let Some(e) = &report.object_error {
            return fail(format!("object error: {e}"));
        }
        Ok(invalid_status(
            kind,
            group,
            &report.name,
            report.accepted,
            &report.errors,
        ))
    }

    /// `Success`, or the `Invalid` status the server builds (`apierrors.NewInvalid`).
    fn invalid_status(
        kind: &str,
        group: &str,
        name: &str,
        accepted: bool,
        errors: &[FieldErrorReport],
    ) -> Value {
        if accepted && errors.is_empty() {
            return json!({"status": "Success"});
        }
        let mut messages: Vec<&str> = Vec::new();
        for e in errors {
            if !messages.contains(&e.error.as_str()) {
                messages.push(&e.error);
            }
        }
        let aggregate = match messages.as_slice() {
            [one] => (*one).to_owned(),
            many => format!("[{}]", many.join(", ")),
        };
        let qualified = if group.is_empty() {
            kind.to_owned()
        } else {
            format!("{kind}.{group}")
        };
        let causes: Vec<Value> = errors
            .iter()
            .map(|e| {
                let message = e
                    .error
                    .strip_prefix(&format!("{}: ", e.field))
                    .unwrap_or(&e.error);
                json!({"reason": error_type(e), "message": message, "field": e.field})
            })
            .collect();
        json!({
            "status": "Failure",
            "message": format!("{qualified} {name:?} is invalid: {aggregate}"),
            "reason": "Invalid",
            "code": 422,
            "details": {"name": name, "group": group, "kind": kind, "causes": causes},
        })
    }

    /// The parts of a Status the README says are compared, with Go's zero values filled in.
    fn normalize_status(s: &Value) -> Value {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_owned();
        let causes: Vec<Value> = s
            .get("details")
            .and_then(|d| d.get("causes"))
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|c| json!({"reason": text(c.get("reason")), "message": text(c.get("message")), "field": text(c.get("field"))}))
            .collect();
        json!({
            "status": text(s.get("status")),
            "message": text(s.get("message")),
            "reason": text(s.get("reason")),
            "code": s.get("code").and_then(Value::as_i64).unwrap_or(0),
            "causes": causes,
        })
    }
}

// ------------------------------------------------------------------------------------------
// The engine, as the conformance cases need it
// ------------------------------------------------------------------------------------------

/// One function per engine entry point the cases need, in the engine behind its
/// `conformance` feature (pure functions from a case's JSON to the engine's answer).
use crd_studio_engine::conformance as engine;

// ------------------------------------------------------------------------------------------
// Matchers for the README's `expect` shapes
// ------------------------------------------------------------------------------------------

mod expect {
    use super::*;

    /// The server's name of an error's type (`FieldValueInvalid`).
    pub(crate) fn error_type(e: &FieldErrorReport) -> String {
        serde_json::to_value(e.error_type)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    }

    pub(super) fn type_is(e: &FieldErrorReport, t: &str) -> bool {
        error_type(e) == t
    }

    /// A short rendering of a value for failure reasons.
    pub(crate) fn show(v: &Value) -> String {
        let s = v.to_string();
        if s.chars().count() > 300 {
            format!("{}…", s.chars().take(300).collect::<String>())
        } else {
            s
        }
    }

    pub(crate) fn show_errors(errors: &[FieldErrorReport]) -> String {
        if errors.is_empty() {
            return "no errors".to_owned();
        }
        let all: Vec<String> = errors
            .iter()
            .map(|e| format!("{} {}", error_type(e), e.error))
            .collect();
        show(&json!(all))
    }

    pub(super) fn json_eq(what: &str, want: &Value, got: &Value) -> Checked {
        if want == got {
            Ok(())
        } else {
            fail(format!("{what}: got {}, want {}", show(got), show(want)))
        }
    }

    /// Every key of `want` (recursively for objects) has the same value in `got`.
    pub(super) fn json_subset(what: &str, want: &Value, got: &Value) -> Checked {
        fn subset(want: &Value, got: &Value) -> bool {
            match (want, got) {
                (Value::Object(w), Value::Object(g)) => w
                    .iter()
                    .all(|(k, v)| g.get(k).is_some_and(|gv| subset(v, gv))),
                _ => want == got,
            }
        }
        if subset(want, got) {
            Ok(())
        } else {
            fail(format!("{what}: got {}, want {}", show(got), show(want)))
        }
    }

    pub(super) fn count(what: &str, want: Option<&Value>, got: usize) -> Checked {
        match want.and_then(Value::as_u64) {
            Some(n) if n != got as u64 => fail(format!("{got} {what}, want {n}")),
            _ => Ok(()),
        }
    }

    pub(super) fn no_errors(errors: &[FieldErrorReport]) -> Checked {
        if errors.is_empty() {
            Ok(())
        } else {
            fail(format!("unexpected errors: {}", show_errors(errors)))
        }
    }

    pub(super) fn all_of_type(errors: &[FieldErrorReport], t: &str) -> Checked {
        match errors.iter().find(|e| !type_is(e, t)) {
            Some(e) => fail(format!(
                "error of type {}, want {t}: {}",
                error_type(e),
                e.error
            )),
            None => Ok(()),
        }
    }

    pub(super) fn all_contain(errors: &[FieldErrorReport], sub: &str) -> Checked {
        match errors.iter().find(|e| !e.error.contains(sub)) {
            Some(e) => fail(format!("error {:?} does not contain {sub:?}", e.error)),
            None => Ok(()),
        }
    }

    /// The errors match `want` exactly as a multiset: each `{type, field, contains?, detail?}`
    /// consumes one error with that type and field (whose `Error()` contains `contains` and
    /// whose detail is `detail`, when given), and no error is left over.
    pub(super) fn field_errors_multiset(want: &[Value], got: &[FieldErrorReport]) -> Checked {
        let fits = |i: usize, j: usize| {
            let (Some(w), Some(g)) = (want.get(i), got.get(j)) else {
                return false;
            };
            let text = |k: &str| w.get(k).and_then(Value::as_str);
            text("type").is_none_or(|t| type_is(g, t))
                && text("field").is_none_or(|f| f == g.field)
                && text("contains").is_none_or(|c| g.error.contains(c))
                && text("detail").is_none_or(|d| d == g.detail)
        };
        let (missing, extra) = match_all(want.len(), got.len(), fits);
        if missing.is_empty() && extra.is_empty() {
            return Ok(());
        }
        let missing: Vec<String> = missing
            .iter()
            .filter_map(|&i| want.get(i))
            .map(show)
            .collect();
        let extra: Vec<String> = extra
            .iter()
            .filter_map(|&j| got.get(j))
            .map(|e| format!("{} {}", error_type(e), e.error))
            .collect();
        fail(format!("missing {missing:?}, unexpected {extra:?}"))
    }

    /// Every error consumes a distinct expected substring and every substring is consumed.
    pub(super) fn consume_substrings(want: &[&str], got: &[String]) -> Checked {
        let fits = |i: usize, j: usize| match (want.get(i), got.get(j)) {
            (Some(w), Some(g)) => g.contains(w),
            _ => false,
        };
        let (missing, extra) = match_all(want.len(), got.len(), fits);
        if missing.is_empty() && extra.is_empty() {
            return Ok(());
        }
        let missing: Vec<&&str> = missing.iter().filter_map(|&i| want.get(i)).collect();
        let extra: Vec<&String> = extra.iter().filter_map(|&j| got.get(j)).collect();
        fail(format!(
            "unmatched substrings {missing:?}, unmatched errors {extra:?}"
        ))
    }

    /// Every expected substring is in some message.
    pub(super) fn each_contained_somewhere(want: &[&str], got: &[String]) -> Checked {
        match want.iter().find(|w| !got.iter().any(|g| g.contains(*w))) {
            Some(w) => fail(format!("no error contains {w:?}: {got:?}")),
            None => Ok(()),
        }
    }

    /// Every message contains one of the expected substrings (none expected: no messages).
    pub(super) fn each_contains_one_of(got: &[String], want: &[&str]) -> Checked {
        match got.iter().find(|g| !want.iter().any(|w| g.contains(w))) {
            Some(g) => fail(format!("unexpected error {g:?}")),
            None => Ok(()),
        }
    }

    /// Table cells: equal, except `{ageDurationAbsSecondsAtMost: n}`, which wants a Go
    /// duration string within n seconds of zero.
    pub(super) fn cells(want: &[Value], got: &[Value]) -> Checked {
        if want.len() != got.len() {
            return fail(format!(
                "cells {}, want {}",
                show(&json!(got)),
                show(&json!(want))
            ));
        }
        for (i, (w, g)) in want.iter().zip(got).enumerate() {
            if let Some(limit) = w.get("ageDurationAbsSecondsAtMost").and_then(Value::as_f64) {
                let secs = g.as_str().and_then(go_duration_seconds);
                if !secs.is_some_and(|s| s.abs() <= limit) {
                    return fail(format!("cell {i}: {g}, want an age within {limit} s"));
                }
            } else if w != g {
                return fail(format!("cell {i}: {g}, want {w}"));
            }
        }
        Ok(())
    }

    /// Seconds of a Go duration string (`1m30s`, `-2h`, `500ms`, `0s`).
    fn go_duration_seconds(s: &str) -> Option<f64> {
        let (sign, mut rest) = match s.strip_prefix('-') {
            Some(r) => (-1.0, r),
            None => (1.0, s.strip_prefix('+').unwrap_or(s)),
        };
        if rest == "0" {
            return Some(0.0);
        }
        let mut total = 0.0;
        let mut any = false;
        while !rest.is_empty() {
            let digits = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            let number: f64 = rest.get(..digits)?.parse().ok()?;
            rest = rest.get(digits..)?;
            let unit_len = rest
                .find(|c: char| c.is_ascii_digit() || c == '.')
                .unwrap_or(rest.len());
            let unit = rest.get(..unit_len)?;
            rest = rest.get(unit_len..)?;
            let scale = match unit {
                "ns" => 1e-9,
                "us" | "µs" | "μs" => 1e-6,
                "ms" => 1e-3,
                "s" => 1.0,
                "m" => 60.0,
                "h" => 3600.0,
                _ => return None,
            };
            total += number * scale;
            any = true;
        }
        any.then_some(sign * total)
    }

    /// A maximum matching between expected items and actual items (`fits(i, j)`): the
    /// expected items left unmatched and the actual items left unmatched (augmenting paths,
    /// so an early greedy choice never hides a perfect matching).
    pub(super) fn match_all(
        n_want: usize,
        n_got: usize,
        fits: impl Fn(usize, usize) -> bool,
    ) -> (Vec<usize>, Vec<usize>) {
        let edges: Vec<Vec<usize>> = (0..n_want)
            .map(|i| (0..n_got).filter(|&j| fits(i, j)).collect())
            .collect();
        let mut owner: Vec<Option<usize>> = vec![None; n_got];
        fn augment(
            i: usize,
            edges: &[Vec<usize>],
            owner: &mut [Option<usize>],
            seen: &mut [bool],
        ) -> bool {
            for &j in edges.get(i).map(Vec::as_slice).unwrap_or_default() {
                if seen.get(j).copied().unwrap_or(true) {
                    continue;
                }
                if let Some(s) = seen.get_mut(j) {
                    *s = true;
                }
                let current = owner.get(j).copied().flatten();
                if current.is_none_or(|k| augment(k, edges, owner, seen)) {
                    if let Some(o) = owner.get_mut(j) {
                        *o = Some(i);
                    }
                    return true;
                }
            }
            false
        }
        let mut unmatched_want = Vec::new();
        for i in 0..n_want {
            let mut seen = vec![false; n_got];
            if !augment(i, &edges, &mut owner, &mut seen) {
                unmatched_want.push(i);
            }
        }
        let unmatched_got = (0..n_got)
            .filter(|&j| owner.get(j).copied().flatten().is_none())
            .collect();
        (unmatched_want, unmatched_got)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_lines() {
        let cases = vec![
            json!({"name": "a"}),
            json!({"name": "a"}),
            json!({"name": "x\ny"}),
            json!({}),
        ];
        let ids: Vec<String> = case_ids("f.json", &cases)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(
            ids,
            [
                "f.json :: a",
                "f.json :: a #2",
                "f.json :: x\\ny",
                "f.json :: #4"
            ]
        );
    }

    #[test]
    fn matching_finds_perfect_assignments() {
        // Greedy would give "ab" to the first wanted "a" and leave "b" without a partner.
        let want = ["a", "b"];
        let got = ["ab".to_owned(), "a".to_owned()];
        assert!(expect::consume_substrings(&want, &got).is_ok());
        assert!(expect::consume_substrings(&["a"], &got).is_err());
    }

    #[test]
    fn splits_like_yamlreader() {
        let docs = kubectl::split_documents("---\na: 1\n--- # c\n# only a comment\n---\n");
        assert_eq!(docs, ["a: 1\n", "# only a comment\n"]);
    }
}
