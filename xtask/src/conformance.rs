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

#[path = "conformance_areas.rs"]
mod areas;

#[path = "conformance_kubectl.rs"]
mod kubectl;

// ------------------------------------------------------------------------------------------
// The engine, as the conformance cases need it
// ------------------------------------------------------------------------------------------

/// One function per engine entry point the cases need, in the engine behind its
/// `conformance` feature (pure functions from a case's JSON to the engine's answer).
use crd_studio_engine::conformance as engine;

#[path = "conformance_expect.rs"]
mod expect;

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
