//! The project's tasks, run as `cargo xtask <task>`:
//!
//! - `setup [--browser]`: install what is missing (wasm32 target, trunk, wasm-bindgen-cli at the
//!   Cargo.lock version, Node.js, npm packages with wasm-opt; with `--browser` Chromium and
//!   chromedriver), skipping what is there.
//! - `serve`: set up, then serve the studio on <http://127.0.0.1:8080> with the CronTab example.
//! - `build`: set up, then build the release page into `dist/` for static hosting, with the
//!   embed script's manifest (`embed_dist.rs`) and the demo docs page (`dist/demo/`).
//! - `test`: everything CI checks (formatting, clippy, native tests, conformance, corpus and cel-spec
//!   against the known-failures lists, wasm tests in Node and headless Chromium, end-to-end
//!   tests on the release page, each fuzz target briefly).
//! - `conformance [DIR]`, `corpus [DIR]`, `cel-spec [DIR]`: the measurement tasks.
//! - `fuzz [TARGET] [--seconds N]`: coverage-guided fuzzing of the engine (`fuzz.rs`).
//! - `tzdb [OUT]`: the time-zone bundle the page loads lazily for CEL's named zones.
//! - `bench`: analysis time of the largest corpus CRDs as a ratio to parsing them, then peak
//!   heap and time of the largest corpus CRDs and the hostile inputs beside parsing them;
//!   `bench --browser [DIST]`: the release page in headless Chromium beside an echo page
//!   (keystroke → Problems, long tasks, cold load, memory).

mod cel_spec;
mod conformance;
mod corpus;
mod dist;
mod embed_dist;
mod fuzz;
mod peer;
mod serve_dir;
mod tzdb;

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

/// trunk 0.22 needs a newer rustc than this toolchain; 0.21.14 is the newest that installs.
const TRUNK_VERSION: &str = "0.21.14";

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let (task, rest) = match args.split_first() {
        Some((t, r)) => (t.as_str(), r),
        None => ("help", &[][..]),
    };
    let result = match task {
        "setup" => setup(rest.iter().any(|a| a == "--browser")).map(|_| true),
        "serve" => serve(),
        "build" => build().map(|_| true),
        "test" => test(rest),
        "conformance" => conformance::run(rest),
        "corpus" => corpus::run(rest),
        "peer" => peer::run(rest),
        "cel-spec" => cel_spec::run(rest),
        "tzdb" => tzdb::run(rest),
        "fuzz" => fuzz::run_task(rest),
        "serve-dir" => serve_dir_task(rest),
        "e2e" => setup(true).and_then(|_| e2e(rest)),
        "bench" if rest.iter().any(|a| a == "--browser") => bench_browser(rest),
        "bench" => {
            run(cmd("cargo").args(["bench", "-p", "crd-studio-engine", "--bench", "analysis"]))
                .and_then(|_| {
                    step("memory benchmark");
                    run(cmd("cargo").args([
                        "bench",
                        "-p",
                        "crd-studio-engine",
                        "--bench",
                        "memory",
                    ]))
                })
                .map(|_| true)
        }
        "help" | "--help" | "-h" => {
            println!("{}", HELP);
            Ok(true)
        }
        other => Err(format!("unknown task `{other}`\n\n{HELP}")),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xtask {task}: {e}");
            ExitCode::FAILURE
        }
    }
}

const HELP: &str = "usage: cargo xtask <task>

  serve                 serve the studio on http://127.0.0.1:8080 (installs what is missing)
  test                  run every check CI runs
  build                 build the release page into dist/
  setup [--browser]     install the tools (and Chromium + chromedriver)
  conformance [DIR]     run the conformance cases (default ../shared/conformance)
  corpus [DIR]          compare with the server's verdicts (default ../shared/corpus)
  peer [DIR]            run the crdify and crd-schema-checker suites through `diff`
                        (default ../shared/peer-suites; --verbose shows each failure)
  cel-spec [DIR]        run the CEL conformance suite through cel_core in the Kubernetes
                        configuration (default ../shared/cel-spec)
  fuzz [TARGET] [--seconds N] [--runs N] [--committed-only]
                        coverage-guided fuzzing (cargo-fuzz/libFuzzer, installed if missing):
                        each target (all by default) N s (default 20) on fuzz/corpus and seeds
                        from ../shared; prints executions, exec/s, cov/ft, crashes
  tzdb [OUT]            write CEL's time-zone bundle (default target/tzdb.bin), print its size
  bench                 time a full analysis of the largest corpus CRDs against parsing them;
                        peak memory and time of those and of the hostile inputs
  bench --browser [DIST]
                        the release page in headless Chromium beside an echo page: keystroke
                        -> Problems (p50/p95/max), long tasks, cold load, memory (builds
                        dist/ unless DIST names a built page)
  e2e [FILE...]         build the test page and run the end-to-end tests (all, or the named
                        e2e/*.test.mjs files)
  serve-dir DIR [PORT]  serve a folder over HTTP on 127.0.0.1 (for e2e tests)";

/// The workspace root.
fn root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(Path::to_path_buf).unwrap_or(manifest)
}

/// Where installed tools live: outside the work tree, so a fresh clone on the same machine
/// reuses them.
fn tools_bin() -> PathBuf {
    let cargo_home = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"));
    cargo_home.join("bin")
}

/// PATH with the tool bin and the npm binaries first.
fn tool_path() -> String {
    let mut parts = vec![
        tools_bin().display().to_string(),
        root().join("web/node_modules/.bin").display().to_string(),
    ];
    if let Ok(p) = env::var("PATH") {
        parts.push(p);
    }
    parts.join(":")
}

fn cmd(program: &str) -> Command {
    let mut c = Command::new(program);
    c.current_dir(root()).env("PATH", tool_path());
    c
}

/// Runs a command, failing with its description when it fails.
fn run(c: &mut Command) -> Result<(), String> {
    let desc = format!("{c:?}");
    let status = c.status().map_err(|e| format!("{desc}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{desc} failed ({status})"))
    }
}

/// The output of a command, or `None` if it can't run.
fn output(c: &mut Command) -> Option<String> {
    let out = c.output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn have(program: &str) -> bool {
    output(cmd(program).arg("--version")).is_some()
}

/// CPU time (user + system, seconds) of the finished child processes this process waited for,
/// and theirs: what the steps cost apart from the machine's load. 0 where `/proc` is absent.
fn children_cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (which may hold spaces) in its parentheses; cutime
    // and cstime are fields 16 and 17 of the line, in clock ticks.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    let hz = output(Command::new("getconf").arg("CLK_TCK"))
        .and_then(|s| s.trim().parse::<f64>().ok())
        .unwrap_or(100.0);
    (ticks(13) + ticks(14)) / hz
}

/// The one-minute load average (what else runs on the machine), as `/proc/loadavg` says.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

fn step(name: &str) {
    println!("\n==> {name}");
}

/// The wasm-bindgen version in Cargo.lock: the CLI must match it exactly.
fn locked_wasm_bindgen() -> Result<String, String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock"))
        .map_err(|e| format!("reading Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == "name = \"wasm-bindgen\"" {
            if let Some(v) = lines.next().and_then(|l| l.strip_prefix("version = \"")) {
                return Ok(v.trim_end_matches('"').to_owned());
            }
        }
    }
    Err("wasm-bindgen is not in Cargo.lock".into())
}

/// Installs `krate` at `version` unless `binary --version` already reports it.
fn cargo_tool(krate: &str, version: &str, binary: &str) -> Result<(), String> {
    let path = tools_bin().join(binary);
    let current = output(Command::new(&path).arg("--version")).unwrap_or_default();
    if current.split_whitespace().any(|w| w == version) {
        println!("{binary} {version}: present");
        return Ok(());
    }
    println!("{binary} {version}: installing (takes minutes on a fresh machine)");
    run(cmd("cargo")
        .args([
            "install",
            "--locked",
            "--force",
            krate,
            "--version",
            version,
        ])
        // Release LTO makes trunk take 15 minutes instead of 5; these are tools, not products.
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"))
}

fn is_root() -> bool {
    output(Command::new("id").arg("-u")).is_some_and(|u| u.trim() == "0")
}

/// Installs Debian packages (as root, or through sudo), with one retry (apt has been seen to
/// fail once and then succeed).
fn apt_install(packages: &[&str]) -> Result<(), String> {
    let prefix: Vec<&str> = if is_root() { vec![] } else { vec!["sudo"] };
    let apt = |args: &[&str]| {
        let mut all = prefix.clone();
        all.extend_from_slice(args);
        let (first, rest) = all
            .split_first()
            .map(|(f, r)| (*f, r.to_vec()))
            .unwrap_or(("apt-get", vec![]));
        let mut c = cmd(first);
        c.args(rest).env("DEBIAN_FRONTEND", "noninteractive");
        run(&mut c)
    };
    apt(&["apt-get", "update", "-qq"])?;
    let mut install = vec!["apt-get", "install", "-y", "-qq", "--no-install-recommends"];
    install.extend_from_slice(packages);
    apt(&install).or_else(|_| apt(&install))
}

/// Installs what is missing; skips what is there.
fn setup(browser: bool) -> Result<(), String> {
    step("setup");
    let t = Instant::now();
    let targets = output(cmd("rustup").args(["target", "list", "--installed"])).unwrap_or_default();
    if targets
        .lines()
        .any(|l| l.trim() == "wasm32-unknown-unknown")
    {
        println!("wasm32-unknown-unknown: present");
    } else {
        run(cmd("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    }
    if !have("node") || !have("npm") {
        println!("node/npm: installing from apt");
        apt_install(&["nodejs", "npm"])?;
    } else {
        println!("node/npm: present");
    }
    if browser {
        if have("chromium") && have("chromedriver") {
            println!("chromium/chromedriver: present");
        } else {
            println!("chromium/chromedriver: installing from apt");
            apt_install(&["chromium", "chromium-driver"])?;
        }
    }
    cargo_tool("trunk", TRUNK_VERSION, "trunk")?;
    cargo_tool("wasm-bindgen-cli", &locked_wasm_bindgen()?, "wasm-bindgen")?;
    npm_ci("web")?;
    if browser {
        npm_ci("e2e")?;
    }
    run(cmd("cargo").args(["fetch", "--locked"]))?;
    println!("setup done in {:.1} s", t.elapsed().as_secs_f64());
    Ok(())
}

/// Runs `npm ci` in a folder of the repository unless its packages are installed already.
fn npm_ci(folder: &str) -> Result<(), String> {
    let dir = root().join(folder);
    let installed = dir.join("node_modules").exists()
        && cmd("npm")
            .args(["ls", "--silent"])
            .current_dir(&dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    if installed {
        println!("npm packages in {folder}/: present");
        Ok(())
    } else {
        run(cmd("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir))
    }
}

/// Bundles the CodeMirror editor from npm packages.
/// Bundles the CodeMirror editor from npm packages and writes CEL's time-zone database to
/// `static/generated/` (Trunk copies both into the page; the database is fetched by the
/// worker only when an analysis reports `needsTimeZones`, so the first paint does not pay
/// for it).
fn bundle_editor() -> Result<(), String> {
    run(cmd("npm")
        .args(["run", "--silent", "build"])
        .current_dir(root().join("web")))?;
    tzdb::run(&[root()
        .join("static/generated/tzdb.bin")
        .display()
        .to_string()])
    .map(|_| ())
}

fn build() -> Result<(), String> {
    setup(false)?;
    step("build release page");
    build_dist(&[])?;
    println!("dist/ is ready for static hosting: copy it to any path of any static host");
    Ok(())
}

/// Builds the release page into dist/ (the editor bundle, Trunk with `extra` arguments, then
/// the embed script's manifest and the service worker, which caches it too).
fn build_dist(extra: &[&str]) -> Result<(), String> {
    bundle_editor()?;
    run(cmd("trunk")
        .args(["build", "index.html", "--release", "--offline"])
        .args(extra))?;
    embed_dist::write(&root().join("dist"))?;
    dist::finish(&root().join("dist"), &root().join("static/sw.js"))
}

fn serve() -> Result<bool, String> {
    setup(false)?;
    step("serve");
    bundle_editor()?;
    // trunk serve rebuilds dist/ on every change, without the embed manifest: the embed
    // script then reads the file names from index.html.
    println!("serving the studio on http://127.0.0.1:8080 (Ctrl-C stops)");
    println!("the embed demo page: http://127.0.0.1:8080/demo/");
    // Served at the root: Trunk's dev server mounts the build at its public URL.
    run(cmd("trunk").args([
        "serve",
        "index.html",
        "--release",
        "--offline",
        "--public-url",
        "/",
    ]))?;
    Ok(true)
}

/// The browser benchmark: builds the release page (unless a built one is named), serves it and
/// runs `e2e/bench.mjs`. It prints figures and never fails on them.
fn bench_browser(args: &[String]) -> Result<bool, String> {
    setup(true)?;
    let dist = match args.iter().find(|a| !a.starts_with("--")) {
        Some(dir) => PathBuf::from(dir),
        None => {
            step("build release page");
            build_dist(&[])?;
            root().join("dist")
        }
    };
    step("browser benchmark");
    let server = serve_dir::Server::start(&dist, 0)?;
    run(cmd("node")
        .arg("bench.mjs")
        .current_dir(root().join("e2e"))
        .env("BASE_URL", format!("http://127.0.0.1:{}/", server.port()))
        .env("CORPUS", root().join("../shared/corpus")))?;
    Ok(true)
}

/// The end-to-end tests: builds the release page with the test hooks, serves it, and runs the
/// `e2e/*.test.mjs` files (or the ones named) in headless Chromium.
fn e2e(files: &[String]) -> Result<bool, String> {
    // The test build: `test-hooks` lets the crash-recovery test make the worker panic (never
    // in `cargo xtask build`).
    build_dist(&["--features", "test-hooks"])?;
    let server = serve_dir::Server::start(&root().join("dist"), 0)?;
    let base = format!("http://127.0.0.1:{}/", server.port());
    let shots = root().join("test-output");
    let _ = std::fs::create_dir_all(&shots);
    run(cmd("node")
        .args(["--test", "--test-concurrency=1"])
        // Named as `e2e/x.test.mjs` (from the repository) or `x.test.mjs` (from `e2e/`).
        .args(files.iter().map(|f| f.strip_prefix("e2e/").unwrap_or(f)))
        .current_dir(root().join("e2e"))
        .env("BASE_URL", &base)
        .env("DIST_DIR", root().join("dist"))
        .env("SCREENSHOT_DIR", &shots))
    .map(|_| true)
}

fn serve_dir_task(args: &[String]) -> Result<bool, String> {
    let dir = args
        .first()
        .ok_or("usage: cargo xtask serve-dir DIR [PORT]")?;
    let port: u16 = args
        .get(1)
        .map(|p| p.parse().map_err(|_| format!("bad port {p}")))
        .transpose()?
        .unwrap_or(8765);
    let server = serve_dir::Server::start(Path::new(dir), port)?;
    println!(
        "serving {dir} on http://127.0.0.1:{} (Ctrl-C stops)",
        server.port()
    );
    server.wait();
    Ok(true)
}

/// Everything CI checks. Each step runs even if an earlier one failed, so one run shows all
/// problems; the task fails if any step failed.
fn test(args: &[String]) -> Result<bool, String> {
    let quick = args.iter().any(|a| a == "--no-browser");
    setup(!quick)?;
    let started = Instant::now();
    let mut results: Vec<(String, bool, f64, f64)> = Vec::new();
    let cpu_started = children_cpu_seconds();
    let mut check = |name: &str, f: &mut dyn FnMut() -> Result<bool, String>| {
        step(name);
        let t = Instant::now();
        let cpu = children_cpu_seconds();
        let ok = match f() {
            Ok(ok) => ok,
            Err(e) => {
                eprintln!("{name}: {e}");
                false
            }
        };
        let secs = t.elapsed().as_secs_f64();
        let cpu = children_cpu_seconds() - cpu;
        println!(
            "--- {name}: {} in {secs:.1} s (CPU {cpu:.1} s, load {})",
            if ok { "ok" } else { "FAILED" },
            load_average()
        );
        results.push((name.to_owned(), ok, secs, cpu));
    };
    check("cargo fmt --check", &mut || {
        run(cmd("cargo").args(["fmt", "--all", "--", "--check"])).map(|_| true)
    });
    check("clippy (native)", &mut || {
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
    check("clippy (wasm32)", &mut || {
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
    check("native tests", &mut || {
        run(cmd("cargo").args(["test", "--workspace", "--locked"])).map(|_| true)
    });
    check("conformance (against known failures)", &mut || {
        conformance::run(&[])
    });
    check("corpus (against known failures)", &mut || corpus::run(&[]));
    check("peer suites (against known failures)", &mut || {
        if root().join("../shared/peer-suites").is_dir() {
            peer::run(&[])
        } else {
            println!("skipped: ../shared/peer-suites is absent");
            Ok(true)
        }
    });
    check("cel-spec (against known failures)", &mut || {
        cel_spec::run(&[])
    });
    if !quick {
        check(
            "wasm tests (engine in Node, app in headless Chromium)",
            &mut || {
                run(cmd("cargo").args([
                    "test",
                    "--locked",
                    "--target",
                    "wasm32-unknown-unknown",
                    "-p",
                    "crd-studio-engine",
                    "-p",
                    "crd-studio-web",
                ]))
                .map(|_| true)
            },
        );
        check(
            "end-to-end (release page in headless Chromium)",
            &mut || e2e(&[]),
        );
        // Every fuzz target briefly on its committed corpus: a crash, a timeout or an
        // out-of-memory fails the step and names the saved input.
        check(
            "fuzz (each target 12 s on the committed corpus)",
            &mut || {
                let all: Vec<String> = fuzz::TARGETS.iter().map(|t| (*t).to_owned()).collect();
                fuzz::fuzz(&all, 12, None, false)
            },
        );
    }
    println!(
        "\n==> summary ({:.0} s, CPU {:.0} s, load {})",
        started.elapsed().as_secs_f64(),
        children_cpu_seconds() - cpu_started,
        load_average()
    );
    for (name, ok, secs, cpu) in &results {
        println!(
            "{:>8}  {name} ({secs:.1} s, CPU {cpu:.1} s)",
            if *ok { "ok" } else { "FAILED" }
        );
    }
    let failed = results.iter().filter(|r| !r.1).count();
    println!("steps: {} passed, {failed} failed", results.len() - failed);
    Ok(failed == 0)
}
