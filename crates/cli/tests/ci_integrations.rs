//! Where CI lives: the GitHub Action's script (`packaging/action.sh`, the steps of
//! `action.yml`) run locally against the repository fixture and a scratch git repository
//! with a base revision; the pre-commit hooks (`.pre-commit-hooks.yaml`) through `pre-commit
//! try-repo` on a scratch repository (skipped, saying why, when `pre-commit` is not
//! installed: `pip install pre-commit`); the Dockerfile's and krew template's shape.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{temp_dir, text};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/repo")
}

const BIN: &str = env!("CARGO_BIN_EXE_crd-studio");

fn has(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn action(dir: &Path, step: &str, envs: &[(&str, &str)]) -> Output {
    let mut c = Command::new("bash");
    c.arg(repo_root().join("packaging/action.sh"))
        .arg(step)
        .current_dir(dir)
        .env("CRD_STUDIO", BIN)
        .env_remove("GITHUB_PATH")
        .env_remove("GITHUB_OUTPUT");
    for (k, v) in envs {
        c.env(k, v);
    }
    c.output().expect("bash")
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

/// Copies the fixture's file `from` to `dir/to`.
fn put(dir: &Path, from: &str, to: &str) {
    let to = dir.join(to);
    std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
    std::fs::copy(fixture().join(from), to).expect("copy");
}

#[test]
fn action_yml_passes_every_input_to_the_script() {
    let yml = std::fs::read_to_string(repo_root().join("action.yml")).expect("action.yml");
    let script =
        std::fs::read_to_string(repo_root().join("packaging/action.sh")).expect("action.sh");
    assert!(yml.contains("using: composite"));
    let inputs = yml
        .split("\ninputs:\n")
        .nth(1)
        .and_then(|s| s.split("\noutputs:").next())
        .expect("inputs");
    let names: Vec<&str> = inputs
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   ") && l.ends_with(':'))
        .map(|l| l.trim().trim_end_matches(':'))
        .collect();
    assert!(names.len() >= 10, "{names:?}");
    for name in names {
        let var = format!("INPUT_{}", name.to_uppercase().replace('-', "_"));
        assert!(
            yml.contains(&format!("{var}: ${{{{ inputs.{name} }}}}")),
            "action.yml does not pass {name} as {var}"
        );
        assert!(script.contains(&var), "action.sh ignores {var}");
    }
}

#[test]
fn action_install_and_run() {
    let d = temp_dir("ci", "action-run", &[("x", "")]);
    let github_path = d.join("github_path");
    let github_output = d.join("github_output");
    let out = action(
        &d,
        "install",
        &[
            ("GITHUB_PATH", github_path.to_str().unwrap_or("")),
            ("GITHUB_OUTPUT", github_output.to_str().unwrap_or("")),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bin_dir = std::fs::read_to_string(&github_path).expect("GITHUB_PATH written");
    assert!(Path::new(BIN).starts_with(bin_dir.trim()), "{bin_dir}");
    // The run step on the fixture: annotations, the summary, the exit code as an output.
    let out = action(
        &fixture(),
        "run",
        &[
            ("INPUT_PATHS", "config\nmanifests"),
            ("INPUT_FORMAT", "github"),
            ("INPUT_IGNORE_MISSING_CRDS", "true"),
            ("GITHUB_OUTPUT", github_output.to_str().unwrap_or("")),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("::error file=manifests/app/widgets.yaml,line=23,col=3,"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("1 object without a CRD ignored\n"),
        "{stdout}"
    );
    let outputs = std::fs::read_to_string(&github_output).expect("outputs");
    assert!(outputs.contains("exit-code=1"), "{outputs}");
}

#[test]
fn action_with_a_base_ref_checks_updates() {
    if !has("git") {
        eprintln!("skipped: git is not installed");
        return;
    }
    let d = temp_dir("ci", "action-base", &[("x", "")]);
    git(&d, &["init", "-q", "-b", "main"]);
    put(&d, "old/config/crd/widgets.yaml", "config/widgets.yaml");
    put(
        &d,
        "old/manifests/app/widgets.yaml",
        "manifests/widgets.yaml",
    );
    git(&d, &["add", "."]);
    git(&d, &["commit", "-q", "-m", "base"]);
    put(&d, "config/crd/widgets.yaml", "config/widgets.yaml");
    put(&d, "manifests/app/widgets.yaml", "manifests/widgets.yaml");
    git(&d, &["commit", "-q", "-am", "change"]);
    let runner_temp = d.join("runner-temp");
    std::fs::create_dir_all(&runner_temp).expect("mkdir");
    let out = action(
        &d,
        "run",
        &[
            ("INPUT_PATHS", "config manifests"),
            ("INPUT_BASE_REF", "HEAD~1"),
            ("INPUT_FORMAT", "text"),
            ("RUNNER_TEMP", runner_temp.to_str().unwrap_or("")),
        ],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("CRD widgets.example.com accepted (update of "),
        "{stdout}"
    );
    assert!(
        stdout.contains("breaking: v1: .spec.color removed"),
        "{stdout}"
    );
    // The unchanged invalid size is ratcheted against the base's object.
    assert!(
        stdout.contains("manifests/widgets.yaml:23:3: info: spec.size: accepted although invalid"),
        "{stdout}"
    );
    // --fail-on none: only the new object's own errors fail it... here none are left.
    let out = action(
        &d,
        "run",
        &[
            ("INPUT_PATHS", "config manifests"),
            ("INPUT_BASE_REF", "HEAD~1"),
            ("INPUT_FAIL_ON", "none"),
            ("RUNNER_TEMP", runner_temp.to_str().unwrap_or("")),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

#[test]
fn pre_commit_hooks_through_try_repo() {
    if !has("pre-commit") || !has("git") {
        eprintln!("skipped: pre-commit (pip install pre-commit) or git is not installed");
        return;
    }
    // The hook repository: the hooks file and their script, committed.
    let hooks = temp_dir("ci", "pre-commit-hooks", &[("x", "")]);
    std::fs::remove_file(hooks.join("x")).expect("rm");
    git(&hooks, &["init", "-q", "-b", "main"]);
    std::fs::copy(
        repo_root().join(".pre-commit-hooks.yaml"),
        hooks.join(".pre-commit-hooks.yaml"),
    )
    .expect("copy hooks");
    std::fs::create_dir_all(hooks.join("packaging")).expect("mkdir");
    std::fs::copy(
        repo_root().join("packaging/pre-commit.sh"),
        hooks.join("packaging/pre-commit.sh"),
    )
    .expect("copy script");
    git(&hooks, &["add", "."]);
    git(&hooks, &["commit", "-q", "-m", "hooks"]);
    // A project: a base commit on main, then a branch changing a CRD and an object.
    let project = temp_dir("ci", "pre-commit-project", &[("x", "")]);
    git(&project, &["init", "-q", "-b", "main"]);
    put(
        &project,
        "old/config/crd/widgets.yaml",
        "config/widgets.yaml",
    );
    put(
        &project,
        "manifests/nested/gizmo.yml",
        "manifests/gizmo.yml",
    );
    put(&project, "config/crd/gadgets.yaml", "config/gadgets.yaml");
    git(&project, &["add", "."]);
    git(&project, &["commit", "-q", "-m", "base"]);
    git(&project, &["checkout", "-q", "-b", "feature"]);
    put(&project, "config/crd/widgets.yaml", "config/widgets.yaml");
    put(
        &project,
        "manifests/app/widgets.yaml",
        "manifests/widgets.yaml",
    );
    git(&project, &["add", "."]);
    let home = project.join(".pre-commit-home");
    let try_repo = |hook: &str, files: &[&str]| {
        Command::new("pre-commit")
            .args([
                "try-repo",
                hooks.to_str().unwrap_or(""),
                hook,
                "--verbose",
                "--files",
            ])
            .args(files)
            .current_dir(&*project)
            .env("PRE_COMMIT_HOME", &home)
            .env("CRD_STUDIO", BIN)
            .env("CRD_STUDIO_BASE", "main")
            .output()
            .expect("pre-commit")
    };
    // Every document accepted: the hook passes.
    let out = try_repo(
        "crd-studio-check",
        &["config/gadgets.yaml", "manifests/gizmo.yml"],
    );
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("accepted: 0 errors"),
        "{}",
        text(&out.stdout)
    );
    // The changed widgets: the object breaks the new CRD's bounds.
    let out = try_repo(
        "crd-studio-check",
        &["config/widgets.yaml", "manifests/widgets.yaml"],
    );
    assert!(!out.status.success());
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("manifests/widgets.yaml:23:3: error: spec.size"),
        "{stdout}"
    );
    // The CRD against the merge base: a field removed is breaking.
    let out = try_repo(
        "crd-studio-diff",
        &["config/widgets.yaml", "manifests/widgets.yaml"],
    );
    let stdout = text(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("== config/widgets.yaml (against main at "),
        "{stdout}"
    );
    assert!(stdout.contains(".spec.color"), "{stdout}");
}

#[test]
fn dockerfile_and_krew_template() {
    let docker = std::fs::read_to_string(repo_root().join("Dockerfile")).expect("Dockerfile");
    assert!(docker.contains("-p crd-studio-cli --target x86_64-unknown-linux-musl"));
    assert!(docker.contains("FROM scratch"));
    assert!(docker.contains("ENTRYPOINT [\"/crd-studio\"]"));
    let krew = std::fs::read_to_string(repo_root().join("packaging/krew/crd-studio.yaml"))
        .expect("krew template");
    for want in [
        "kind: Plugin",
        "bin: kubectl-crd_studio",
        "{{SHA256_LINUX_AMD64}}",
        "{{VERSION}}",
    ] {
        assert!(krew.contains(want), "{want}");
    }
}

#[test]
fn kubectl_plugin_name() {
    // kubectl runs `kubectl-crd_studio` for `kubectl crd-studio`: the same binary, whatever
    // its file name.
    if !cfg!(unix) {
        return;
    }
    let d = temp_dir("ci", "kubectl-plugin", &[("x", "")]);
    let plugin = d.join("kubectl-crd_studio");
    std::fs::copy(BIN, &plugin).expect("copy");
    let out = Command::new(&plugin)
        .arg("--version")
        .output()
        .expect("run plugin");
    assert!(text(&out.stdout).starts_with("crd-studio "));
}
