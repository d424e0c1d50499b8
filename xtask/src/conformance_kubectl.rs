//! kubectl-validate: manifests checked against local CRDs, one `metav1.Status` per document.

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
            .filter(|o| o.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition"))
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
