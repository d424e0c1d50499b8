//! Schema checks of the CI output formats, shared by the tests of `check PATH...` and of
//! `test`: JUnit XML against `tests/data/junit.xsd` and SARIF against the SARIF 2.1.0 schema.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Validates `xml` against `tests/data/junit.xsd` with python's `xmlschema`; says "skipped"
/// when python or the package is not installed (`pip install xmlschema`).
pub fn validate_junit_with_xsd(xml: &str) {
    let xsd = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/junit.xsd");
    let script =
        "import sys, xmlschema\nxmlschema.XMLSchema(sys.argv[1]).validate(sys.stdin.read())\n";
    let has = Command::new("python3")
        .args(["-c", "import xmlschema"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        eprintln!("skipped: the XSD check of the JUnit output needs python3 with xmlschema (pip install xmlschema)");
        return;
    }
    let mut child = Command::new("python3")
        .args(["-c", script])
        .arg(&xsd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3");
    let _ = child.stdin.take().expect("stdin").write_all(xml.as_bytes());
    let out = child.wait_with_output().expect("python3");
    assert!(
        out.status.success(),
        "JUnit XML not valid: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Parses `stdout` as a SARIF log and checks it against the SARIF 2.1.0 schema (with formats).
pub fn valid_sarif(stdout: &[u8]) -> serde_json::Value {
    // The schema's one pattern that the regex crate reads differently from ECMAScript.
    let text_schema = include_str!("../data/sarif-schema-2.1.0.json")
        .replace("[a-zA-Z]{2}]?$", "[a-zA-Z]{2}\\\\]?$");
    let schema: serde_json::Value = serde_json::from_str(&text_schema).expect("schema");
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("schema compiles");
    let log: serde_json::Value = serde_json::from_slice(stdout).expect("SARIF JSON");
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    log
}
