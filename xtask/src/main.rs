//! The project's tasks, run as `cargo xtask <task>` (`HELP` lists them; a test checks that it
//! and the README's task table name every task):
//!
//! - `setup [--browser] [--fuzz]`: install what is missing (wasm32 target, trunk,
//!   wasm-bindgen-cli at the Cargo.lock version, Node.js, npm packages with wasm-opt, Debian's
//!   binaryen for `wasm-split`; with `--browser` Chromium and chromedriver, with `--fuzz`
//!   cargo-fuzz), skipping what is there.
//! - `serve`: set up, then serve the studio on <http://127.0.0.1:8080> with the CronTab example.
//! - `build`: set up, then build the release page into `dist/` for static hosting (its wasm
//!   split in two, `wasm_split.rs`), with the embed script's manifest (`embed_dist.rs`) and
//!   the demo docs page (`dist/demo/`).
//! - `test [--no-browser]`: everything CI checks (`ci.rs`).
//! - `dist [--target TRIPLE]`: the CLI as a static musl binary with its checksums (`cli_dist.rs`).
//! - `conformance [DIR]`, `corpus [DIR]`, `peer [DIR]`, `cel-spec [DIR]`: the measurement tasks.
//! - `fuzz [TARGET...] [--seconds N]`: coverage-guided fuzzing of the engine (`fuzz.rs`).
//! - `tzdb [OUT]`: the time-zone bundle the page loads lazily for CEL's named zones.
//! - `bench`: analysis time of the largest corpus CRDs as a ratio to parsing them, then peak
//!   heap and time of the largest corpus CRDs and the hostile inputs beside parsing them,
//!   then how the analysis grows with rules, properties, enum values, list items, documents;
//!   then CEL at the per-object cost budget (`crates/engine/benches/cel_budget.rs`), and the
//!   interpreter alone on the same rules (`crates/cel/benches/interp.rs`);
//!   then the corpus through `crd-studio check` in one run and per CRD (`cli_bench.rs`);
//!   1,000 `crd-studio test` cases against one CRD beside a process per case (`crdtest_bench.rs`);
//!   `bench --browser [DIST]`: the release page in headless Chromium beside an echo page
//!   (keystroke → Problems, long tasks, cold load, memory).
//! - `e2e [FILE...]`: build the release page with the test hooks and run the
//!   end-to-end tests (`e2e/*.test.mjs`, their shared helpers in `e2e/harness.mjs`) on it.
//! - `serve-dir DIR [PORT]`: serve a folder on 127.0.0.1 with the page's
//!   Content-Security-Policy as a header (`serve_dir.rs`).

mod cel_spec;
mod ci;
mod cli_bench;
mod cli_dist;
mod conformance;
mod corpus;
mod crdtest_bench;
mod dist;
mod embed_dist;
mod fuzz;
mod kubeconform_bench;
mod lsp;
mod peer;
mod serve_dir;
mod tzdb;
mod wasm_split;

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
        "setup" => setup(rest.iter().any(|a| a == "--browser"))
            .and_then(|_| {
                if rest.iter().any(|a| a == "--fuzz") {
                    fuzz::install()
                } else {
                    Ok(())
                }
            })
            .map(|_| true),
        "serve" => serve(),
        "build" => build().map(|_| true),
        "test" => ci::run_task(rest),
        "dist" => cli_dist::run_task(rest),
        "conformance" => conformance::run(rest),
        "corpus" => corpus::run(rest),
        "peer" => peer::run(rest),
        "cel-spec" => cel_spec::run(rest),
        "tzdb" => tzdb::run(rest),
        "fuzz" => fuzz::run_task(rest),
        "serve-dir" => serve_dir_task(rest),
        "e2e" => e2e(rest),
        "bench" if rest.iter().any(|a| a == "--browser") => bench_browser(rest),
        "bench" if rest.iter().any(|a| a == "--cli") => cli_bench::run_task(rest),
        "bench" if rest.iter().any(|a| a == "--crdtest") => crdtest_bench::run_task(rest),
        "bench" if rest.iter().any(|a| a == "--kubeconform") => kubeconform_bench::run_task(rest),
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
                .and_then(|_| {
                    step("scaling benchmark");
                    run(cmd("cargo").args([
                        "bench",
                        "-p",
                        "crd-studio-engine",
                        "--bench",
                        "scaling",
                    ]))
                })
                .and_then(|_| {
                    step("CEL at the per-object budget");
                    run(cmd("cargo").args([
                        "bench",
                        "-p",
                        "crd-studio-engine",
                        "--bench",
                        "cel_budget",
                    ]))
                })
                .and_then(|_| {
                    step("CEL interpreter alone (the same rules, and `string == 'value'`)");
                    run(cmd("cargo").args(["bench", "-p", "crd-studio-cel", "--bench", "interp"]))
                })
                .and_then(|_| cli_bench::run_task(&[]))
                .and_then(|_| crdtest_bench::run_task(&[]))
                .and_then(|_| {
                    step("language server benchmark");
                    lsp::bench()
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
  test [--no-browser]   run every check CI runs (--no-browser: the native part only)
  build                 build the release page into dist/ and the VS Code extension
  dist [--target TRIPLE]
                        the CLI as a static musl binary (+ kubectl plugin, krew manifest,
                        SHA256SUMS) in <target>/cli-dist/ (default x86_64-unknown-linux-musl)
  setup [--browser] [--fuzz]
                        install the tools (and Chromium + chromedriver, cargo-fuzz)
  conformance [DIR]     run the conformance cases (default ../shared/conformance)
  corpus [DIR]          compare with the server's verdicts (default ../shared/corpus)
  peer [DIR]            run the crdify and crd-schema-checker suites through `diff`
                        (default ../shared/peer-suites; --verbose shows each failure)
  cel-spec [DIR]        run the CEL conformance suite through crd_studio_cel in the Kubernetes
                        configuration (default ../shared/cel-spec)
  fuzz [TARGET...] [--seconds N] [--runs N] [--committed-only]
                        coverage-guided fuzzing (cargo-fuzz/libFuzzer, installed if missing):
                        each target (all by default) N s (default 20) on fuzz/corpus and seeds
                        from ../shared; prints executions, exec/s, cov/ft, crashes
  tzdb [OUT]            write CEL's time-zone bundle (default target/tzdb.bin), print its size
  bench                 time a full analysis of the largest corpus CRDs against parsing them;
                        peak memory and time of those and of the hostile inputs; growth
                        with rules, properties, enum values, list items and documents; an
                        object spending the CEL cost budget and `string == 'value'`; the
                        whole corpus through `crd-studio check` in one run beside one
                        process per CRD; the language server's edit -> diagnostics and
                        corpus indexing
  bench --cli [BINARY]  only the `crd-studio check` part (builds the shipped `cli` profile unless named)
  bench --crdtest [BINARY]
                        1,000 `crd-studio test` cases against the argo-workflows CRD beside
                        one `crd-studio check` process per case (50 timed, extrapolated)
  bench --kubeconform [BINARY]
                        kubeconform (built from KUBECONFORM_GIT_DIR with the local Go) on
                        the corpus with JSON Schemas from its CRDs, beside `crd-studio check`
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

/// Cargo's target directory: `CARGO_TARGET_DIR`, or `target/` in the workspace.
fn target_dir() -> PathBuf {
    match env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => root().join("target"),
    }
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

/// Set in the environment of the tasks `cargo xtask test` starts as child processes, once it
/// has run `setup`.
const SETUP_DONE: &str = "XTASK_SETUP_DONE";

/// Installs what is missing; skips what is there.
fn setup(browser: bool) -> Result<(), String> {
    // A step `cargo xtask test` runs as a child process: the parent has set up.
    if env::var_os(SETUP_DONE).is_some() {
        return Ok(());
    }
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
    // binaryen's wasm-split splits the page's wasm (wasm_split.rs); npm's binaryen has none.
    if have("wasm-split") {
        println!("wasm-split: present");
    } else {
        println!("wasm-split: installing binaryen from apt");
        apt_install(&["binaryen"])?;
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
    // The wasm split measures its profile in headless Chromium.
    setup(true)?;
    step("build release page");
    build_dist(&[])?;
    println!("dist/ is ready for static hosting: copy it to any path of any static host");
    step("VS Code extension");
    lsp::vscode_extension()
}

/// Builds the release page into dist/ (the editor bundle, Trunk with `extra` arguments, the
/// wasm split, minified scripts and CSS, then the embed script's manifest and the service
/// worker, which caches it too).
fn build_dist(extra: &[&str]) -> Result<(), String> {
    bundle_editor()?;
    run(cmd("trunk")
        .args(["build", "index.html", "--release", "--offline"])
        .args(extra))?;
    let work = env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
        .join("wasm-split");
    wasm_split::run_split(&root().join("dist"), &work)?;
    // The page's own scripts and CSS, minified (`web/minify.mjs`) before the payload is measured.
    run(cmd("node")
        .arg(root().join("web/minify.mjs"))
        .arg(root().join("dist")))?;
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

/// `cargo xtask e2e [FILE...]`: builds the release page with the test hooks, then runs the
/// end-to-end tests on it.
fn e2e(files: &[String]) -> Result<bool, String> {
    setup(true)?;
    step("build the release test page");
    // The test build: `test-hooks` lets the crash-recovery test make the worker panic (never
    // in `cargo xtask build`).
    build_dist(&["--features", "test-hooks"])?;
    step("end-to-end tests");
    e2e_tests(files)
}

/// Serves the built `dist/` and runs the `e2e/*.test.mjs` files (or the ones named) in
/// headless Chromium.
fn e2e_tests(files: &[String]) -> Result<bool, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The task names `main` dispatches on (the string patterns of its `match task`).
    fn tasks() -> Vec<String> {
        let source = include_str!("main.rs");
        let start = source.find("let result = match task {").unwrap_or(0);
        let end = start + source[start..].find("other => Err").unwrap_or(0);
        let mut names: Vec<String> = source[start..end]
            .lines()
            .filter_map(|l| l.trim().strip_prefix('"'))
            .filter_map(|l| l.split_once('"'))
            .filter(|(_, rest)| [" =>", " if", " |"].iter().any(|p| rest.starts_with(p)))
            .map(|(name, _)| name.to_owned())
            .filter(|name| name != "help")
            .collect();
        names.dedup();
        names
    }

    /// Whether `text` holds `cargo xtask <name>` followed by something other than a task
    /// name's letters (so `serve` is not found in `serve-dir`).
    fn mentions(text: &str, name: &str) -> bool {
        let needle = format!("cargo xtask {name}");
        text.match_indices(&needle).any(|(i, _)| {
            !text[i + needle.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
        })
    }

    #[test]
    fn help_and_readme_name_every_task() {
        let names = tasks();
        assert_eq!(names.len(), 14, "{names:?}");
        let readme = std::fs::read_to_string(root().join("README.md")).unwrap_or_default();
        for name in &names {
            let listed = format!("\n  {name} ");
            assert!(
                HELP.contains(&listed) || HELP.contains(&format!("\n  {name}\n")),
                "`cargo xtask help` leaves out `{name}`"
            );
            assert!(
                mentions(&readme, name),
                "README.md leaves out `cargo xtask {name}`"
            );
        }
    }
}
