//! `cargo xtask test [--no-browser]`: everything CI checks (`.ci/run` runs it on a clean clone).
//!
//! Each step runs even if an earlier one failed, so one run shows all problems; the task fails
//! if any step failed. Every step line and the summary give the wall time, the CPU time (user +
//! system of the step's processes: what it costs whatever else runs on the machine) and the
//! load average.
//!
//! CI has two cores, and much of a run keeps only one busy (a test binary's single-threaded
//! tests, the measurement runs, the release page's link-time optimisation, libFuzzer, the
//! browser tests waiting for the page). So two lanes run in the background from the start, as
//! child processes of this task with their output in `<target>/xtask-logs/` (printed when
//! they end):
//! - the end-to-end tests (`cargo xtask e2e`: the release test page, then `e2e/*.test.mjs` in
//!   headless Chromium), the page built in a target directory of its own, `<target>/e2e-page`
//!   (it shares no artifact with the debug builds, and so waits for no lock);
//! - brief fuzzing ([`fuzz::brief_targets`]: a third of the targets, a different third each
//!   day, 15 s each on their committed corpus, in `$CARGO_TARGET_DIR-fuzz`; `cargo xtask fuzz`
//!   is the long run, and `cargo test` replays every committed fuzz input in
//!   `crates/engine/tests/fuzz_regressions.rs`).
//!
//! The foreground runs formatting, clippy, the native tests, the measurement suites against
//! their known failures and the wasm tests, then waits for the lanes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Instant;

use crate::{
    cel_spec, cmd, conformance, corpus, fuzz, lsp, peer, root, run, setup, step, target_dir,
};

/// One finished step.
struct Outcome {
    name: String,
    ok: bool,
    wall: f64,
    cpu: f64,
}

/// The steps run so far, in order.
#[derive(Default)]
struct Steps(Vec<Outcome>);

impl Steps {
    /// Runs a step in this process and its children, and records it.
    fn run(&mut self, name: &str, f: impl FnOnce() -> Result<bool, String>) -> bool {
        step(name);
        let t = Instant::now();
        let cpu = cpu_seconds();
        let ok = f().unwrap_or_else(|e| {
            eprintln!("{name}: {e}");
            false
        });
        self.record(name, ok, t.elapsed().as_secs_f64(), cpu_seconds() - cpu)
    }

    fn record(&mut self, name: &str, ok: bool, wall: f64, cpu: f64) -> bool {
        println!(
            "--- {name}: {} in {wall:.1} s (CPU {cpu:.1} s, load {})",
            if ok { "ok" } else { "FAILED" },
            load_average()
        );
        self.0.push(Outcome {
            name: name.to_owned(),
            ok,
            wall,
            cpu,
        });
        ok
    }
}

/// A step running as a child process (this xtask with other arguments), its output in a log.
struct Background {
    name: String,
    child: Result<Child, String>,
    log: PathBuf,
    started: Instant,
}

impl Background {
    fn start(name: &str, args: &[&str], envs: &[(&str, &Path)]) -> Self {
        let log = target_dir()
            .join("xtask-logs")
            .join(format!("{}.log", args.join("-").replace(['/', ' '], "_")));
        let child = (|| {
            let exe = std::env::current_exe().map_err(|e| format!("this xtask's path: {e}"))?;
            if let Some(dir) = log.parent() {
                fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            let out = fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
            let err = out
                .try_clone()
                .map_err(|e| format!("{}: {e}", log.display()))?;
            let mut c = cmd(&exe.display().to_string());
            c.args(args)
                .env(crate::SETUP_DONE, "1")
                .stdin(Stdio::null())
                .stdout(Stdio::from(out))
                .stderr(Stdio::from(err));
            for (k, v) in envs {
                c.env(k, v);
            }
            c.spawn().map_err(|e| format!("{c:?}: {e}"))
        })();
        println!(
            "\n==> started in the background: {name} (log {})",
            log.display()
        );
        Background {
            name: name.to_owned(),
            child,
            log,
            started: Instant::now(),
        }
    }

    /// Waits for the step, prints its log and records it (its CPU time is its process tree's,
    /// counted when it is waited for).
    fn finish(self, steps: &mut Steps) -> bool {
        step(&format!("{} (ran in the background)", self.name));
        let cpu = cpu_seconds();
        let ok = match self.child {
            Ok(mut child) => match child.wait() {
                Ok(status) => status.success(),
                Err(e) => {
                    eprintln!("{}: {e}", self.name);
                    false
                }
            },
            Err(e) => {
                eprintln!("{}: {e}", self.name);
                false
            }
        };
        let cpu = cpu_seconds() - cpu;
        print!("{}", fs::read_to_string(&self.log).unwrap_or_default());
        steps.record(&self.name, ok, self.started.elapsed().as_secs_f64(), cpu)
    }
}

/// The task.
pub fn run_task(args: &[String]) -> Result<bool, String> {
    let quick = args.iter().any(|a| a == "--no-browser");
    setup(!quick)?;
    if !quick {
        fuzz::install()?;
    }
    let started = Instant::now();
    let cpu_started = cpu_seconds();
    let mut steps = Steps::default();
    let background = (!quick).then(|| {
        let targets = fuzz::brief_targets();
        let mut fuzz_args = vec!["fuzz", "--seconds", "15", "--committed-only"];
        fuzz_args.extend(targets.iter().copied());
        [
            Background::start(
                "end-to-end (release page in headless Chromium)",
                &["e2e"],
                &[("CARGO_TARGET_DIR", &target_dir().join("e2e-page"))],
            ),
            Background::start(
                &format!(
                    "fuzz ({} 15 s each on the committed corpus)",
                    targets.join(", ")
                ),
                &fuzz_args,
                &[],
            ),
        ]
    });

    steps.run("cargo fmt --check", || {
        run(cmd("cargo").args(["fmt", "--all", "--", "--check"])).map(|_| true)
    });
    steps.run("clippy (native)", || {
        run(cmd("cargo").args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--locked",
            "--",
            "-D",
            "warnings",
        ]))
        .map(|_| true)
    });
    steps.run("clippy (wasm32)", || {
        run(cmd("cargo").args([
            "clippy",
            "--locked",
            "--target",
            "wasm32-unknown-unknown",
            "-p",
            "crd-studio-web",
            "-p",
            "crd-studio-engine",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]))
        .map(|_| true)
    });
    steps.run("python test tools (pre-commit, xmlschema)", || {
        // The CLI's CI tests run `pre-commit try-repo` and validate JUnit with `xmlschema`
        // (crates/cli/tests/ci_integrations.rs, repo.rs); without them those parts say
        // "skipped". Best effort: a machine without pip still runs the rest.
        let have = |args: &[&str]| {
            Command::new("python3")
                .args(args)
                .output()
                .is_ok_and(|o| o.status.success())
        };
        if !have(&["-m", "pre_commit", "--version"]) || !have(&["-c", "import xmlschema"]) {
            let ok = Command::new("python3")
                .args(["-m", "pip", "install", "--quiet", "pre-commit", "xmlschema"])
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                println!("could not install pre-commit and xmlschema: those checks are skipped");
            }
        }
        Ok(true)
    });
    steps.run("native tests", || {
        run(cmd("cargo").args(["test", "--workspace", "--locked"])).map(|_| true)
    });
    steps.run("lsp in Neovim (headless, vim.lsp)", lsp::nvim_e2e);
    steps.run("conformance (against known failures)", || {
        conformance::run(&[])
    });
    steps.run("corpus (against known failures)", || corpus::run(&[]));
    steps.run("peer suites (against known failures)", || {
        if root().join("../shared/peer-suites").is_dir() {
            peer::run(&[])
        } else {
            println!("skipped: ../shared/peer-suites is absent");
            Ok(true)
        }
    });
    steps.run("cel-spec (against known failures)", || cel_spec::run(&[]));
    if !quick {
        // Only the test binaries that hold `#[wasm_bindgen_test]`s: wasm-bindgen-test-runner
        // runs nothing else, so building the other test binaries for wasm32 checked nothing.
        steps.run(
            "wasm tests (engine in Node, app in headless Chromium)",
            || {
                run(cmd("cargo").args([
                    "test",
                    "--locked",
                    "--target",
                    "wasm32-unknown-unknown",
                    "-p",
                    "crd-studio-engine",
                    "--test",
                    "both_targets",
                ]))?;
                run(cmd("cargo").args([
                    "test",
                    "--locked",
                    "--target",
                    "wasm32-unknown-unknown",
                    "-p",
                    "crd-studio-web",
                    "--test",
                    "app",
                ]))
                .map(|_| true)
            },
        );
    }
    for lane in background.into_iter().flatten() {
        lane.finish(&mut steps);
    }

    println!(
        "\n==> summary ({:.0} s, CPU {:.0} s, load {})",
        started.elapsed().as_secs_f64(),
        cpu_seconds() - cpu_started,
        load_average()
    );
    for o in &steps.0 {
        println!(
            "{:>8}  {} ({:.1} s, CPU {:.1} s)",
            if o.ok { "ok" } else { "FAILED" },
            o.name,
            o.wall,
            o.cpu
        );
    }
    let failed = steps.0.iter().filter(|o| !o.ok).count();
    println!("steps: {} passed, {failed} failed", steps.0.len() - failed);
    Ok(failed == 0)
}

/// CPU time (user + system, seconds) of this process (the suites run in it) and of the
/// finished child processes it waited for, and theirs: what the steps cost apart from the
/// machine's load. 0 where `/proc` is absent.
pub(crate) fn cpu_seconds() -> f64 {
    let stat = fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (which may hold spaces) in its parentheses; utime,
    // stime, cutime and cstime are fields 14 to 17 of the line, in clock ticks.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12) + ticks(13) + ticks(14)) / clock_ticks_per_second()
}

/// `getconf CLK_TCK` (asked once: its own CPU time would count), 100 where it can't say.
fn clock_ticks_per_second() -> f64 {
    static HZ: OnceLock<f64> = OnceLock::new();
    *HZ.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .trim()
                    .parse::<f64>()
                    .ok()
            })
            .unwrap_or(100.0)
    })
}

/// The one-minute load average (what else runs on the machine), as `/proc/loadavg` says.
fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}
