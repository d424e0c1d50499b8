//! The conformance harness's engine side (feature `conformance`): the functions the cases of
//! `../shared/conformance` and the peer suites call, as the Kubernetes Go tests call the
//! server's functions (`NewValidator(...).Validate`, `Prune`, `ValidateCustomResourceDefinition`,
//! ...), on the JSON the cases hold. `cargo xtask conformance` and `cargo xtask peer` read the
//! files, keep the known-failure lists and compare with `expect`; everything that turns a case
//! into engine calls is here, so that the stages stay private to the crate.
//!
//! Not part of the front door: only the harness enables the feature.

use serde_json::{json, Value};

use crate::documents::document;
use crate::schema::{JsonSchemaProps, Structural};
use crate::{FieldErrorReport, SourceId};

pub mod crd;
pub mod peer;
pub mod structural;
pub mod validation;

/// Why a case could not be checked.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// The engine's answer differs from `expect`, or the engine cannot answer.
    Fail(String),
    /// The harness cannot interpret the case.
    Skip(String),
}

impl From<String> for Problem {
    fn from(reason: String) -> Problem {
        Problem::Fail(reason)
    }
}

fn fail<T>(reason: impl Into<String>) -> Result<T, Problem> {
    Err(Problem::Fail(reason.into()))
}

fn skip<T>(reason: impl Into<String>) -> Result<T, Problem> {
    Err(Problem::Skip(reason.into()))
}

/// A JSON `null`, for missing values.
static NULL: Value = Value::Null;

/// What `NewValidator(...).Validate(path "root", object, oldObject, budget)` returns.
pub struct CelRun {
    /// The validation errors.
    pub errors: Vec<FieldErrorReport>,
    /// The warnings (rules that could not run).
    pub warnings: Vec<String>,
    /// The budget left.
    pub remaining_budget: i64,
    /// What the validator did, for the cases that compare it.
    pub log: Vec<String>,
}

/// A CEL validation of one value against a schema's rules.
pub struct CelRequest<'a> {
    /// The schema holding the rules (`null`: none).
    pub schema: &'a Value,
    /// The value validated.
    pub object: &'a Value,
    /// The old value (an update).
    pub old_object: Option<&'a Value>,
    /// Whether the schema is a resource's root (`apiVersion`, `kind`, `metadata` declared).
    pub is_resource_root: bool,
    /// The runtime cost budget.
    pub cost_budget: i64,
    /// The cost limit of one rule's evaluation.
    pub per_call_limit: u64,
    /// `WithRatcheting`: unchanged values keep passing.
    pub ratcheting: bool,
}

/// `NewValidator(schema, isResourceRoot, perCallLimit).Validate(path "root", object,
/// oldObject, budget[, WithRatcheting(...)])`.
pub fn cel_validate(r: &CelRequest) -> Result<CelRun, Problem> {
    use crate::cel::validator::{ValidateOptions, Validator};
    let Some(schema) = structural(r.schema)? else {
        return Ok(CelRun {
            errors: Vec::new(),
            warnings: Vec::new(),
            remaining_budget: r.cost_budget,
            log: Vec::new(),
        });
    };
    // The Go tests call `validator(s, s, ...)` or `NewValidator(s, ...)`; they differ only
    // for rules that exist in `allOf` branches alone, which `validator` finds.
    let compiler = crate::cel::RuleCompiler::new(crate::KubernetesVersion::DEFAULT);
    let Some(validator) = Validator::tree(
        &compiler,
        std::sync::Arc::new(schema),
        r.is_resource_root,
        r.per_call_limit,
    ) else {
        return Ok(CelRun {
            errors: Vec::new(),
            warnings: Vec::new(),
            remaining_budget: r.cost_budget,
            log: Vec::new(),
        });
    };
    let out = validator.validate(
        &crate::FieldPath::new("root"),
        r.object,
        r.old_object,
        r.cost_budget,
        ValidateOptions {
            ratcheting: r.ratcheting,
            time_zones: None,
        },
    );
    Ok(CelRun {
        errors: out
            .errors
            .iter()
            .map(|e| FieldErrorReport::from_field_error(e, None))
            .collect(),
        warnings: out.warnings,
        remaining_budget: out.remaining_budget,
        log: out.log,
    })
}

/// Which CEL environment loader compiles the rules.
#[derive(Clone, Copy, Debug)]
pub enum ExprEnv {
    /// `NewExpressionsEnvLoader`: rules being written now.
    New,
    /// `StoredExpressionsEnvLoader`: rules already stored.
    Stored,
}

/// A CEL compile error: `cel.Error` type (`RuleInvalid`, ...) and detail.
#[derive(Clone, Debug)]
pub struct CelError {
    /// The Go type of the error (`RuleInvalid`, `FieldValueRequired`).
    pub kind: String,
    /// Its detail.
    pub detail: String,
}

impl std::fmt::Display for CelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

/// One rule's `CompilationResult`.
pub struct CompiledRule {
    /// Where the rule's schema is, relative to the root (`""` for the root).
    pub schema_path: String,
    /// The rule's compile error.
    pub error: Option<CelError>,
    /// The message expression's compile error.
    pub message_expression_error: Option<CelError>,
    /// Whether the rule reads `oldSelf`.
    pub uses_old_self: bool,
    /// The rule's estimated cost.
    pub max_cost: u64,
    /// Whether no program was built (an error, or an empty rule).
    pub program_is_nil: bool,
}

/// The compiler of the cel-compile cases: the base environments with the test library
/// (`fakeFunction(string) string`, introduced at 1.999: only stored expressions have it).
fn test_rule_compiler() -> crate::cel::RuleCompiler {
    use crd_studio_cel::checker::EnvBuilder;
    use crd_studio_cel::decls::{EnvVersion, FunctionDecl, OverloadDecl};
    use crd_studio_cel::types::Type;
    let fake = FunctionDecl::new(
        "fakeFunction",
        vec![OverloadDecl::global(
            "fakeFunction_string",
            vec![Type::String],
            Type::String,
        )],
    );
    crate::cel::RuleCompiler::with_base_envs(
        EnvBuilder::kubernetes(EnvVersion::default()),
        EnvBuilder::kubernetes(EnvVersion::Stored).function(fake),
    )
}

/// `cel.Compile` of the root schema's rules (only the root's: the schema path is `""`).
pub fn compile_rules(
    schema: &Value,
    root: bool,
    env: ExprEnv,
) -> Result<Vec<CompiledRule>, Problem> {
    let (props, errors) = JsonSchemaProps::from_json(schema);
    if let Some(e) = errors.iter().find(|e| !e.unknown_field) {
        return fail(format!(
            "the engine cannot read the schema: {}: {}",
            e.path, e.message
        ));
    }
    let results = test_rule_compiler()
        .compile_schema(&props, root, matches!(env, ExprEnv::Stored))
        .map_err(|e| Problem::Fail(format!("compile failed as a whole: {e:?}")))?;
    let kind = |k: crate::crd::apiext::CelErrorKind| match k {
        crate::crd::apiext::CelErrorKind::Required => "FieldValueRequired".to_owned(),
        crate::crd::apiext::CelErrorKind::Invalid => "RuleInvalid".to_owned(),
    };
    Ok(results
        .into_iter()
        .zip(&props.x_validations)
        .map(|(r, rule)| CompiledRule {
            schema_path: String::new(),
            program_is_nil: r.error.is_some() || rule.rule.trim().is_empty(),
            error: r.error.map(|(k, detail)| CelError {
                kind: kind(k),
                detail,
            }),
            message_expression_error: r.message_expression_error.map(|detail| CelError {
                kind: "RuleInvalid".to_owned(),
                detail,
            }),
            uses_old_self: r.uses_old_self,
            max_cost: r.max_cost,
        })
        .collect())
}

/// `RootCELContext(chain[0])`, then `childContext` of each next schema: the last one's
/// `MaxCardinality` (`None`: unbounded).
pub fn max_cardinality(chain: &[Value]) -> Result<Option<u64>, Problem> {
    let mut schemas = Vec::with_capacity(chain.len());
    for v in chain {
        let (props, errors) = JsonSchemaProps::from_json(v);
        if let Some(e) = errors.iter().find(|e| !e.unknown_field) {
            return fail(format!(
                "the engine cannot read the schema: {}: {}",
                e.path, e.message
            ));
        }
        schemas.push(props);
    }
    Ok(crate::cel::cost_explain::chain_cardinality(&schemas))
}

/// `TotalCost.ObserveExpressionCost` of each cost in order: `Total` and the costs of
/// `MostExpensive`.
pub fn per_crd_estimated_cost(costs: &[u64]) -> Result<(u64, Vec<u64>), Problem> {
    Ok(crate::cel::cost_explain::total_cost(costs))
}

/// `ValidFieldPath`: the resolved path (`pathOfFieldPath` + the field) or the error text.
pub fn valid_field_path(
    schema: &Value,
    path: &str,
    prefix: &str,
) -> Result<Result<String, String>, Problem> {
    let Some(schema) = structural(schema)? else {
        return fail("ValidFieldPath needs a schema");
    };
    // `field.NewPath(pathOfFieldPath).Child(validField.String())`: a dot follows the
    // prefix even when it is empty.
    Ok(
        crate::crd::apiext::field_path::valid_field_path(path, &schema, true)
            .map(|(p, _)| format!("{prefix}.{p}")),
    )
}

/// A case's schema as the engine's `*Structural` (JSON `null`: a nil schema). A schema
/// the engine cannot read is a failure: the Go test could build it.
fn structural(schema: &Value) -> Result<Option<Structural>, Problem> {
    if schema.is_null() {
        return Ok(None);
    }
    let (props, errors) = JsonSchemaProps::from_json(schema);
    if let Some(e) = errors.iter().find(|e| !e.unknown_field) {
        return fail(format!(
            "the engine cannot read the schema: {}: {}",
            e.path, e.message
        ));
    }
    match Structural::from_props(&props) {
        Ok(s) => Ok(Some(s)),
        Err(e) => fail(format!(
            "the engine cannot make the schema structural: {}",
            e.0
        )),
    }
}

/// `PruneWithOptions(obj, schema, isResourceRoot, {TrackUnknownFieldPaths: true})`: the
/// pruned value and the pruned paths.
pub fn prune(schema: &Value, object: &Value, root: bool) -> Result<(Value, Vec<String>), Problem> {
    let schema = structural(schema)?;
    let mut object = object.clone();
    let paths = crate::object::pruning::prune(&mut object, schema.as_ref(), root);
    Ok((object, paths))
}

/// `Default(obj, schema)`.
pub fn default(schema: &Value, object: &Value) -> Result<Value, Problem> {
    let schema = structural(schema)?;
    let mut object = object.clone();
    crate::object::defaulting::default(&mut object, schema.as_ref());
    Ok(object)
}

/// `PruneNonNullableNullsWithoutDefaults(obj, schema)`.
pub fn prune_non_nullable_nulls(schema: &Value, object: &Value) -> Result<Value, Problem> {
    let schema = structural(schema)?;
    let mut object = object.clone();
    crate::object::defaulting::prune_non_nullable_nulls_without_defaults(
        &mut object,
        schema.as_ref(),
    );
    Ok(object)
}

/// Validation of a schema's `default` values under a CEL cost budget.
/// The defaulting package's internal `validate(ctx, path prefix, s, s, rootObjectFunc
/// (validation/v1 Validation), insideMeta=false, requirePrunedDefaults=false, budget)`:
/// the root is the resource root but is not marked as an embedded resource.
pub fn validate_defaults(
    schema: &Value,
    _type_meta: &Value,
    prefix: &str,
    budget: i64,
) -> Result<Vec<FieldErrorReport>, Problem> {
    use crate::crd::apiext::defaults::{engine_openapi, DefaultsValidation};
    let Some(schema) = structural(schema)? else {
        return Ok(Vec::new());
    };
    let rules = crate::cel::validator::DefaultsRules::new();
    let v = DefaultsValidation {
        openapi: Some(&engine_openapi),
        cel: Some(&rules),
    };
    let path = if prefix.is_empty() {
        crate::FieldPath::root()
    } else {
        crate::FieldPath::new(prefix)
    };
    match v.validate_with_budget(&path, &schema, false, false, budget) {
        Ok(errors) => Ok(errors
            .iter()
            .map(|e| FieldErrorReport::from_field_error(e, None))
            .collect()),
        Err(e) => fail(format!("default validation failed: {e}")),
    }
}

/// A printer-column cell for a value of a column type, and the Go type of the cell. A
/// value given as `{"nowOffset": "-12h30m"}` is the time that far from "now" (a fixed
/// instant passed to the engine as its clock), written in RFC 3339.
pub fn cell_for_json_value(
    column_type: &str,
    value: &Value,
    go_type: &str,
) -> Result<(Value, Option<String>), Problem> {
    use crate::object::objectmeta::Time;
    use crate::printing::table;
    let now = Time {
        unix: 1_767_225_600, // 2026-01-01T00:00:00Z
        nanos: 0,
    };
    let value = match value.get("nowOffset").and_then(Value::as_str) {
        Some(offset) => {
            let Some(secs) = go_duration_seconds(offset) else {
                return fail(format!("cannot read the offset {offset:?}"));
            };
            let at = Time {
                unix: now.unix.saturating_add(secs),
                nanos: 0,
            };
            json!(at.rfc3339())
        }
        // A float64 written without a fraction.
        None if go_type == "float64" => value
            .as_f64()
            .map(Value::from)
            .unwrap_or_else(|| value.clone()),
        None => value.clone(),
    };
    let cell = table::cell_for_json_value(
        column_type,
        &crate::printing::jsonpath::Value::of(&value),
        Some(now),
    );
    Ok((cell.to_value(), cell.go_type().map(str::to_owned)))
}

/// Whole seconds of a Go duration such as `-12h30m` or `90s`.
fn go_duration_seconds(s: &str) -> Option<i64> {
    let (sign, mut rest): (i64, &str) = match s.strip_prefix('-') {
        Some(r) => (-1, r),
        None => (1, s),
    };
    let mut total = 0i64;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit())?;
        let n: i64 = rest.get(..digits)?.parse().ok()?;
        let unit = rest.get(digits..digits + 1)?;
        let seconds = match unit {
            "h" => 3600,
            "m" => 60,
            "s" => 1,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(seconds)?)?;
        rest = rest.get(digits + 1..)?;
    }
    sign.checked_mul(total)
}

/// A `kubectl get` table from explicit headers and JSONPath columns.
pub struct Table {
    /// The column definitions, zero fields left out.
    pub column_definitions: Value,
    /// The rows' cells.
    pub rows: Vec<Vec<Value>>,
}

/// `convertor{headers, additionalColumns}.ConvertToTable`: the test builds the
/// convertor itself, its JSONPaths (`{...}` already) parsed without `AllowMissingKeys`.
/// Column definitions are written as the case writes Go structs: zero fields left out.
pub fn convert_to_table(
    headers: &Value,
    columns: &Value,
    object: &Value,
    no_headers: bool,
) -> Result<Result<Table, String>, Problem> {
    use crate::printing::jsonpath::JsonPath;
    use crate::printing::table::{Cell, ColumnDefinition, Convertor};
    let headers: Vec<ColumnDefinition> = match serde_json::from_value(headers.clone()) {
        Ok(h) => h,
        Err(e) => return fail(format!("headers: {e}")),
    };
    let mut paths = Vec::new();
    for c in columns.as_array().map(Vec::as_slice).unwrap_or_default() {
        let text = c.get("jsonPath").and_then(Value::as_str).unwrap_or("");
        match JsonPath::parse(text) {
            Ok(p) => paths.push(p),
            Err(e) => return Ok(Err(format!("{text}: {e}"))),
        }
    }
    let convertor = Convertor::from_parts(headers, paths);
    let table = match convertor.convert_to_table(object, no_headers, None) {
        Ok(t) => t,
        Err(e) => return Ok(Err(e)),
    };
    let definitions = table
        .column_definitions
        .iter()
        .map(|d| {
            let mut v = serde_json::to_value(d).unwrap_or(Value::Null);
            if let Value::Object(m) = &mut v {
                m.retain(|_, x| !(x == "" || x == 0));
            }
            v
        })
        .collect();
    Ok(Ok(Table {
        column_definitions: Value::Array(definitions),
        rows: table
            .rows
            .iter()
            .map(|r| r.iter().map(Cell::to_value).collect())
            .collect(),
    }))
}

/// The column definitions (name, type, format, description, priority) of a version's
/// table, Name column first.
pub fn column_definitions(
    analysis: &crate::Analysis,
    version: &str,
) -> Result<Vec<Value>, Problem> {
    let Some(v) = analysis.versions.iter().find(|v| v.name == version) else {
        return fail(format!("the engine reported no version {version}"));
    };
    Ok(v.columns
        .iter()
        .map(|c| serde_json::to_value(c.definition()).unwrap_or(Value::Null))
        .collect())
}

/// `safeConverter.ConvertToVersion(obj, target)` of a None-strategy CRD with the given
/// versions (`group/version` each).
pub fn convert_none(
    served: &Value,
    _cluster: bool,
    to: &str,
    object: &Value,
    list: bool,
) -> Result<Result<Value, String>, Problem> {
    use crate::versions::conversion::{self, GroupVersion};
    let valid = served
        .as_array()
        .map(|a| {
            a.iter()
                .map(|v| GroupVersion::parse(v.as_str().unwrap_or("")).unwrap_or_default())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let Ok(target) = GroupVersion::parse(to) else {
        return fail(format!("unparsable target {to:?}"));
    };
    Ok(conversion::convert_none(&valid, object, list, &target))
}

/// `restoreObjectMeta(original, converted)`: `converted` after the call (the server
/// mutates it also when it fails) and whether it failed.
pub fn restore_object_meta(original: &Value, converted: &Value) -> Result<(Value, bool), Problem> {
    let mut out = converted.clone();
    let failed =
        crate::versions::conversion::webhook::restore_object_meta(original, &mut out).is_err();
    Ok((out, failed))
}

/// `getObjectsToConvert(obj, apiVersion)`.
pub fn objects_to_convert(
    object: &Value,
    list: bool,
    api_version: &str,
) -> Result<Vec<Value>, Problem> {
    Ok(crate::versions::conversion::webhook::objects_to_convert(
        object,
        list,
        api_version,
    ))
}

/// `createConversionReviewObjects(...)`: the request and the empty response as
/// `{goType, value}` (the Go structs: no TypeMeta, an empty `response` in the request).
pub fn create_conversion_review(
    versions: &Value,
    objects: &Value,
    desired: &str,
    uid: &str,
) -> Result<Result<(Value, Value), String>, Problem> {
    use crate::versions::conversion::ReviewRequest;
    let versions: Vec<String> = versions
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let objects = objects.as_array().cloned().unwrap_or_default();
    Ok(
        ReviewRequest::new(&versions, objects, desired, uid).map(|r| {
            let go_type = r.review_version.go_type();
            (
                json!({"goType": go_type, "value": {
                    "request": {
                        "uid": r.uid,
                        "desiredAPIVersion": r.desired_api_version,
                        "objects": r.objects,
                    },
                    "response": {},
                }}),
                json!({"goType": go_type, "value": {}}),
            )
        }),
    )
}

/// `getConvertedObjectsFromResponse(uid, response)` on a review given as
/// `{goType, value}`: the converted objects (`None`: a nil slice) or the error.
pub fn converted_objects_from_response(
    uid: &str,
    response: &Value,
) -> Result<Result<Option<Vec<Value>>, String>, Problem> {
    use crate::versions::conversion::webhook::ReviewVersion;
    use crate::versions::conversion::webhook::{self, Body};
    let go_type = response.get("goType").and_then(Value::as_str).unwrap_or("");
    let version = match go_type {
        "v1.ConversionReview" => ReviewVersion::V1,
        "v1beta1.ConversionReview" => ReviewVersion::V1beta1,
        other => return Ok(Err(format!("unrecognized response type: {other}"))),
    };
    let text = response.get("value").unwrap_or(&NULL).to_string();
    let parsed = document::parse(&text, SourceId::Object(0));
    let Some((_, root)) = parsed.values().next() else {
        return fail("the review value does not parse");
    };
    let body = Body {
        text: &text,
        root: Some(root),
        syntax_errors: Vec::new(),
    };
    let review = match webhook::decode_review_value(&body, root, version) {
        Ok(r) => r,
        Err(e) => return Ok(Err(e.message)),
    };
    Ok(
        webhook::converted_objects_from_response(uid, &review, Some(root))
            .map(|objects| {
                objects.map(|list| {
                    list.into_iter()
                        .map(|o| o.value.unwrap_or(Value::Null))
                        .collect()
                })
            })
            .map_err(|e| e.message),
    )
}

/// OpenAPI (and CEL) validation of an object: the `Error()` texts.
pub fn validate_custom_resource(
    schema: &Value,
    object: &Value,
    old: Option<&Value>,
    compat: Option<&str>,
) -> Result<Vec<String>, Problem> {
    validation::validate_custom_resource(schema, object, old, compat)
}

/// `ValidateListSetsAndMaps(path "root", schema, object)`.
pub fn validate_list_sets_and_maps(
    schema: &Value,
    object: &Value,
) -> Result<Vec<FieldErrorReport>, Problem> {
    validation::validate_list_sets_and_maps(schema, object)
}

/// `NewRatchetingSchemaValidator(schema).ValidateUpdate(...).IsValid()`.
pub fn ratcheting_validate_update(
    schema: &Value,
    object: &Value,
    old: &Value,
) -> Result<bool, Problem> {
    validation::ratcheting_validate_update(schema, object, old)
}

/// What kubectl-validate reads of one document of a manifest: its syntax errors, and the
/// `apiVersion` and `kind` of its value (`None`: the document has no value).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KubectlDocument {
    /// The messages of the reader's errors.
    pub syntax_errors: Vec<String>,
    /// `apiVersion` and `kind` (empty when missing).
    pub type_meta: Option<(String, String)>,
}

/// Reads one document of a manifest as kubectl-validate does.
pub fn kubectl_document(chunk: &str) -> KubectlDocument {
    use crate::documents::document::Node;
    let parsed = document::parse(chunk, SourceId::Object(0));
    let syntax_errors = parsed
        .findings
        .iter()
        .filter(|f| f.severity == crate::Severity::Error)
        .map(|f| f.message.clone())
        .collect();
    let type_meta = parsed.values().next().map(|(_, root)| {
        let text = |key: &str| {
            root.get(key)
                .and_then(Node::as_str)
                .unwrap_or("")
                .to_owned()
        };
        (text("apiVersion"), text("kind"))
    });
    KubectlDocument {
        syntax_errors,
        type_meta,
    }
}

/// The first of `crds` that serves `api_version` (`group/version`).
pub fn serving<'a>(
    crds: &'a [crate::CompiledCrd],
    api_version: &str,
) -> Option<&'a crate::CompiledCrd> {
    crds.iter()
        .find(|c| c.model().is_some_and(|m| m.serves(api_version).is_none()))
}
