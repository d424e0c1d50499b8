//! Kubernetes' `TestCelCostStability` (from `../shared/conformance/cel-cost`): each rule is
//! evaluated with `self` bound from the case's object at the resource root, parse-only and
//! type-checked, and the runtime cost must equal Kubernetes' (`RuntimeCELCostBudget - remaining
//! budget`). Skips when `../shared` is missing; fails when fewer cases than the recorded floors
//! pass.

mod common;

use common::{fixture, run_rule, Mode, Outcome};
use serde_json::Value as Json;

fn run(cases: &[Json], mode: Mode) -> (usize, Vec<String>) {
    let mut pass = 0;
    let mut failures = Vec::new();
    for case in cases.iter().filter(|c| {
        c.pointer("/source/test").and_then(Json::as_str) == Some("TestCelCostStability")
    }) {
        let name = case.get("name").and_then(Json::as_str).unwrap_or("");
        let want = case.pointer("/expect/runtimeCost").and_then(Json::as_u64);
        let rules: Vec<Json> = case
            .pointer("/schema/x-kubernetes-validations")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default();
        let mut total = 0u64;
        let mut errors = Vec::new();
        for r in &rules {
            match run_rule(case, r, mode, true) {
                Outcome::Ok { cost } => total += cost,
                Outcome::Skipped => {}
                Outcome::Error(e) => errors.push(e),
            }
        }
        if errors.is_empty() && want == Some(total) {
            pass += 1;
        } else {
            failures.push(format!("{name}: want {want:?}, got {total} {errors:?}"));
        }
    }
    (pass, failures)
}

#[test]
fn cel_cost_stability() {
    let Some(cases) = fixture("cel-cost/celcoststability_test.json") else {
        eprintln!("skipped: ../shared/conformance is missing");
        return;
    };
    for mode in [Mode::Parsed, Mode::Checked] {
        let (pass, failures) = run(&cases, mode);
        eprintln!(
            "TestCelCostStability ({mode:?}): {pass} pass, {} fail",
            failures.len()
        );
        for f in &failures {
            eprintln!("FAIL ({mode:?}) {f}");
        }
        let floor = 239;
        assert!(pass >= floor, "{mode:?}: only {pass} cases pass");
    }
}

// ------------------------------------------------------------------------------------------
// TestCelEstimatedCostStability: `CompilationResult.MaxCost` of the root rule, with the
// schema's declared type (`SchemaDeclType(schema, false)`) sizing the variables.
// ------------------------------------------------------------------------------------------

use std::collections::BTreeMap;

use crd_studio_cel::checker::EnvBuilder;
use crd_studio_cel::cost_est::{estimate_cost, AstNode, CostEstimator, CostOptions, SizeEstimate};
use crd_studio_cel::decls::EnvVersion;
use crd_studio_cel::k8s_cost_est::KubernetesCostEstimator;
use crd_studio_cel::types::{ObjectType, Type};
use crd_studio_cel::unstructured::escape;
use crd_studio_cel::KubernetesVersion;

/// `DefaultMaxRequestSizeBytes`.
const MAX_REQUEST: i64 = 3 * 1024 * 1024;

/// A declared type with Kubernetes' size bounds (`apiservercel.DeclType`).
struct Decl {
    ty: Type,
    max_elements: i64,
    min_size: i64,
    fields: BTreeMap<String, Decl>,
    elem: Option<Box<Decl>>,
    key: Option<Box<Decl>>,
}

fn simple(ty: Type, max_elements: i64, min_size: i64) -> Decl {
    Decl {
        ty,
        max_elements,
        min_size,
        fields: BTreeMap::new(),
        elem: None,
        key: None,
    }
}

fn int_field(s: &Json, k: &str) -> Option<i64> {
    s.get(k).and_then(Json::as_i64)
}

/// `WithTypeAndObjectMeta` for a JSON schema.
fn widen(s: &Json) -> Json {
    let p = |path: &str| s.pointer(path).and_then(Json::as_str).unwrap_or("");
    if p("/properties/kind/type") == "string"
        && p("/properties/apiVersion/type") == "string"
        && p("/properties/metadata/type") == "object"
        && p("/properties/metadata/properties/name/type") == "string"
        && p("/properties/metadata/properties/generateName/type") == "string"
    {
        return s.clone();
    }
    let capped = |field: &str, cap: i64| {
        let existing = s
            .pointer(&format!(
                "/properties/metadata/properties/{field}/maxLength"
            ))
            .and_then(Json::as_i64);
        let len = existing.filter(|m| *m < cap).unwrap_or(cap);
        serde_json::json!({"type": "string", "maxLength": len})
    };
    let mut out = s.clone();
    let props = out
        .as_object_mut()
        .map(|o| o.entry("properties").or_insert(serde_json::json!({})));
    if let Some(Json::Object(props)) = props {
        props.insert("kind".into(), serde_json::json!({"type": "string"}));
        props.insert("apiVersion".into(), serde_json::json!({"type": "string"}));
        props.insert(
            "metadata".into(),
            serde_json::json!({"type": "object", "properties": {
                "name": capped("name", 253), "generateName": capped("generateName", 252)}}),
        );
    }
    out
}

/// `SchemaDeclType` with `MaxElements` and `MinSerializedSize`, object types named from `name`.
fn decl(s: &Json, root: bool, name: &str) -> Option<Decl> {
    let max_length = int_field(s, "maxLength");
    let string_max = |format: &str| match format {
        "duration" | "date-time" => 32,
        "date" => 12,
        _ => MAX_REQUEST - 2,
    };
    if s.get("x-kubernetes-int-or-string").and_then(Json::as_bool) == Some(true) {
        let max = max_length.map_or(MAX_REQUEST - 2, |m| m.max(0) * 4);
        return Some(simple(Type::Dyn, max, 1));
    }
    let widened;
    let s = if root {
        widened = widen(s);
        &widened
    } else {
        s
    };
    let embedded = |c: &Json| {
        c.get("x-kubernetes-embedded-resource")
            .and_then(Json::as_bool)
            == Some(true)
    };
    match s.get("type").and_then(Json::as_str).unwrap_or("") {
        "array" => {
            let items = s.get("items")?;
            let e = decl(items, embedded(items), &format!("{name}.@idx"))?;
            let max =
                int_field(s, "maxItems").map_or((MAX_REQUEST - 2) / (e.min_size + 1), |m| m.max(0));
            Some(Decl {
                ty: Type::list(e.ty.clone()),
                max_elements: max,
                min_size: 2,
                fields: BTreeMap::new(),
                elem: Some(Box::new(e)),
                key: None,
            })
        }
        "object" => {
            if let Some(ap) = s.get("additionalProperties").filter(|a| a.is_object()) {
                let e = decl(ap, embedded(ap), &format!("{name}.@elem"))?;
                let max = int_field(s, "maxProperties")
                    .map_or((MAX_REQUEST - 2) / (e.min_size + 6), |m| m.max(0));
                return Some(Decl {
                    ty: Type::map(Type::String, e.ty.clone()),
                    max_elements: max,
                    min_size: 2,
                    fields: BTreeMap::new(),
                    elem: Some(Box::new(e)),
                    key: Some(Box::new(simple(Type::String, 0, 2))),
                });
            }
            let required: Vec<&str> = s
                .get("required")
                .and_then(Json::as_array)
                .map(|a| a.iter().filter_map(Json::as_str).collect())
                .unwrap_or_default();
            let mut fields = BTreeMap::new();
            let mut min_size = 2;
            for (k, p) in s
                .get("properties")
                .and_then(Json::as_object)
                .into_iter()
                .flatten()
            {
                let Some(t) = decl(p, embedded(p), &format!("{name}.{k}")) else {
                    continue;
                };
                if required.contains(&k.as_str()) && p.get("default").is_none_or(Json::is_null) {
                    min_size += k.len() as i64 + t.min_size + 4;
                }
                if let Some(e) = escape(k) {
                    fields.insert(e, t);
                }
            }
            let ty = Type::object(ObjectType::new(
                name,
                fields
                    .iter()
                    .map(|(k, d)| (k.clone(), d.ty.clone()))
                    .collect(),
            ));
            Some(Decl {
                ty,
                max_elements: 0,
                min_size,
                fields,
                elem: None,
                key: None,
            })
        }
        "string" => {
            let format = s.get("format").and_then(Json::as_str).unwrap_or("");
            Some(match format {
                "byte" => simple(
                    Type::Bytes,
                    max_length.map_or(MAX_REQUEST - 2, |m| m.max(0)),
                    2,
                ),
                "duration" => simple(Type::Duration, string_max(format), 3),
                "date" => simple(Type::Timestamp, string_max(format), 12),
                "date-time" => simple(Type::Timestamp, string_max(format), 21),
                _ => {
                    let max = match (max_length, s.get("enum").and_then(Json::as_array)) {
                        (Some(m), _) => m.max(0) * 4,
                        (None, Some(e)) if !e.is_empty() => e
                            .iter()
                            .filter_map(Json::as_str)
                            .map(|v| v.len() as i64)
                            .max()
                            .unwrap_or(0),
                        _ => MAX_REQUEST - 2,
                    };
                    simple(Type::String, max, 2)
                }
            })
        }
        "boolean" => Some(simple(Type::Bool, 0, 4)),
        "number" => Some(simple(Type::Double, 0, 1)),
        "integer" => Some(simple(Type::Int, 0, 1)),
        _ => None,
    }
}

/// The apiextensions `sizeEstimator`: the path after its first element, walked through the
/// declared type.
struct DeclSizes<'a>(&'a Decl);

impl CostEstimator for DeclSizes<'_> {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        let path = node.path();
        if path.is_empty() {
            return None;
        }
        let mut cur = self.0;
        for seg in path.iter().skip(1) {
            cur = match seg.as_str() {
                "@items" | "@values" => cur.elem.as_deref()?,
                "@keys" => cur.key.as_deref()?,
                f => cur.fields.get(f)?,
            };
        }
        Some(SizeEstimate::new(0, cur.max_elements as u64))
    }
}

fn estimated_max_cost(case: &Json) -> Result<u64, String> {
    let schema = case.get("schema").ok_or("no schema")?;
    let rule = schema
        .pointer("/x-kubernetes-validations/0/rule")
        .and_then(Json::as_str)
        .ok_or("no rule")?;
    let d = decl(schema, false, "selfType1").ok_or("no declared type")?;
    let env = EnvBuilder::kubernetes(EnvVersion::NewExpressions(
        KubernetesVersion::DEFAULT.compatibility(),
    ))
    .literal_checks(crd_studio_cel::stdlib_rt::literal_checks())
    .build()
    .extend()
    .decl_types(std::slice::from_ref(&d.ty))
    .variable("self", d.ty.clone())
    .variable("oldSelf", d.ty.clone())
    .build();
    let checked = env.compile(rule).map_err(|e| e.to_string())?;
    let sizes = DeclSizes(&d);
    let est = KubernetesCostEstimator::new(&sizes);
    Ok(estimate_cost(&checked, &est, &CostOptions::KUBERNETES).max)
}

#[test]
fn cel_estimated_cost_stability() {
    let Some(cases) = fixture("cel-cost/celcoststability_test.json") else {
        eprintln!("skipped: ../shared/conformance is missing");
        return;
    };
    let mut pass = 0;
    let mut failures = Vec::new();
    for case in cases.iter().filter(|c| {
        c.pointer("/source/test").and_then(Json::as_str) == Some("TestCelEstimatedCostStability")
    }) {
        let name = case.get("name").and_then(Json::as_str).unwrap_or("");
        let want = case
            .pointer("/expect/estimatedMaxCost")
            .and_then(Json::as_u64);
        match estimated_max_cost(case) {
            Ok(got) if Some(got) == want => pass += 1,
            Ok(got) => failures.push(format!("{name}: want {want:?}, got {got}")),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "TestCelEstimatedCostStability: {pass} pass, {} fail",
        failures.len()
    );
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} cases fail", failures.len());
}
