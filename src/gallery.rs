//! The examples gallery: curated CRDs and objects the "Examples" control loads, each showing
//! one thing the API server does at its best.
//!
//! The texts live in `examples/<slug>/` (`crd.yaml`, `object.yaml`, and where the example
//! needs them `old-object.yaml` and `webhook-response.yaml`; `examples/README.md` says what
//! each shows) and are compiled in with `include_str!`. Each [`Example`] also says how the
//! studio is set up for it (field validation, the tab to open, the kubectl get tab's field
//! selector, the Conversion tab's target and webhook response) and what the server does with
//! it ([`Expect`]); a test runs every example through the worker's path
//! ([`crate::worker_boundary::answer_with`]) and checks that verdict.
//!
//! The first example, [`CRONTAB`], is the studio's first-visit example
//! ([`crate::view_model::EXAMPLE_CRD`] and [`crate::view_model::EXAMPLE_OBJECT`] are its
//! texts).
//!
//! Plain data, no DOM: compiles natively and on `wasm32`.

use crd_studio_engine::{FieldValidation, Options, Request, Severity};

use crate::studio_state::StudioState;
use crate::worker_boundary::PreviewQuery;

/// A finding an example must produce: a Problems row (a finding, or a warning the server
/// sends with an object) of this severity and code whose message contains `message`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpectedFinding {
    /// How bad it is.
    pub severity: Severity,
    /// The finding's code, e.g. `crd.invalid`.
    pub code: &'static str,
    /// A part of its message, in the server's words.
    pub message: &'static str,
}

/// What the server does with an example: the verdict the studio must show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect {
    /// The status line's verdict: `true` for "Accepted" (the CRD and every object accepted,
    /// no error), `false` for "Rejected".
    pub accepted: bool,
    /// Whether the server accepts the CRD.
    pub crd_accepted: bool,
    /// For each object document of `object.yaml`, in order, whether the server accepts it.
    /// Empty when the CRD is rejected (the server then serves no object at all, so their
    /// verdicts mean nothing).
    pub objects: &'static [bool],
    /// Problems rows that must be listed.
    pub findings: &'static [ExpectedFinding],
    /// For a webhook conversion example: whether the server accepts the webhook's response.
    pub webhook_response_accepted: Option<bool>,
    /// For an example with a field selector: the names of the objects it lists, in order.
    pub selected: &'static [&'static str],
    /// The fields the server prunes from the first object, as field paths (checked when not
    /// empty).
    pub pruned: &'static [&'static str],
    /// The fields the server's defaults set in the first object (checked when not empty).
    pub defaulted: &'static [&'static str],
    /// Whether the CEL tab offers a one-click fix for a cost over the limit (bounds to add),
    /// with which the server accepts the CRD.
    pub cost_fix: bool,
}

impl Expect {
    /// The status line's first word: `Accepted` or `Rejected`.
    pub fn verdict(&self) -> &'static str {
        if self.accepted {
            "Accepted"
        } else {
            "Rejected"
        }
    }
}

/// One curated example.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Example {
    /// Its directory under `examples/`, a stable identifier (e.g. for a link).
    pub slug: &'static str,
    /// Its name in the Examples control.
    pub title: &'static str,
    /// One sentence: what it shows.
    pub summary: &'static str,
    /// The CRD text.
    pub crd: &'static str,
    /// The object text (one or more YAML documents).
    pub object: &'static str,
    /// The old object text (the update path); empty for a create.
    pub old_object: &'static str,
    /// The field validation to select.
    pub field_validation: FieldValidation,
    /// The tab to open: `problems`, `stored`, `cel`, `get` or `conversion`.
    pub tab: &'static str,
    /// The kubectl get tab's `--field-selector` (empty: none).
    pub field_selector: &'static str,
    /// The Conversion tab's target version (empty: the tab's default).
    pub conversion_target: &'static str,
    /// The Conversion tab's webhook response text (empty: none).
    pub webhook_response: &'static str,
    /// What the server does with it.
    pub expect: Expect,
}

impl Example {
    /// The example as a studio state (what the Examples control loads).
    pub fn state(&self) -> StudioState {
        StudioState {
            crd: self.crd.to_owned(),
            object: self.object.to_owned(),
            old_object: self.old_object.to_owned(),
            field_validation: self.field_validation,
            tab: self.tab.to_owned(),
            field_selector: self.field_selector.to_owned(),
            conversion_target: self.conversion_target.to_owned(),
            webhook_response: self.webhook_response.to_owned(),
            ..StudioState::default()
        }
    }

    /// The analysis request the studio makes for this example (as the page builds its job:
    /// the CRD, the object text, the old object when not blank, the field validation).
    pub fn request(&self) -> Request {
        Request {
            crd: self.crd.to_owned(),
            objects: vec![self.object.to_owned()],
            old_object: (!self.old_object.trim().is_empty()).then(|| self.old_object.to_owned()),
            old_crd: None,
            options: Options {
                field_validation: self.field_validation,
                ..Options::default()
            },
        }
    }

    /// What the kubectl get and Conversion tabs ask for this example, with the clock `now`
    /// (RFC 3339; the page passes the browser's).
    pub fn query(&self, now: &str) -> PreviewQuery {
        PreviewQuery {
            field_selector: self.field_selector.to_owned(),
            target: self.conversion_target.to_owned(),
            webhook_response: self.webhook_response.to_owned(),
            mappings: String::new(),
            now: now.to_owned(),
            ..PreviewQuery::default()
        }
    }
}

/// A create with `kubectl`'s defaults and no preview input: the fields most examples share.
const BASE: Example = Example {
    slug: "",
    title: "",
    summary: "",
    crd: "",
    object: "",
    old_object: "",
    field_validation: FieldValidation::Strict,
    tab: "problems",
    field_selector: "",
    conversion_target: "",
    webhook_response: "",
    expect: Expect {
        accepted: true,
        crd_accepted: true,
        objects: &[true],
        findings: &[],
        webhook_response_accepted: None,
        selected: &[],
        pruned: &[],
        defaulted: &[],
        cost_fix: false,
    },
};

const fn error(code: &'static str, message: &'static str) -> ExpectedFinding {
    ExpectedFinding {
        severity: Severity::Error,
        code,
        message,
    }
}

const fn warning(code: &'static str, message: &'static str) -> ExpectedFinding {
    ExpectedFinding {
        severity: Severity::Warning,
        code,
        message,
    }
}

/// The CronTab of the Kubernetes documentation, with a few CEL rules: the studio's
/// first-visit example.
pub const CRONTAB: Example = Example {
    slug: "crontab",
    title: "CronTab (the Kubernetes docs' example)",
    summary: "The CronTab CRD of the Kubernetes documentation, with printer columns and three \
              CEL rules (one a transition rule), and a CronTab the server accepts.",
    crd: include_str!("../examples/crontab/crd.yaml"),
    object: include_str!("../examples/crontab/object.yaml"),
    ..BASE
};

const NON_STRUCTURAL: Example = Example {
    slug: "non-structural",
    title: "A non-structural schema",
    summary: "The documentation's example of a non-structural schema in a v1 CRD: the server \
              rejects the CRD and names every rule of structural schemas it breaks.",
    crd: include_str!("../examples/non-structural/crd.yaml"),
    object: include_str!("../examples/non-structural/object.yaml"),
    expect: Expect {
        accepted: false,
        crd_accepted: false,
        objects: &[],
        findings: &[
            error(
                "crd.invalid",
                "spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root",
            ),
            error(
                "crd.invalid",
                "spec.validation.openAPIV3Schema.properties[foo].type: Required value: must not be empty for specified object fields",
            ),
            error(
                "crd.invalid",
                "spec.validation.openAPIV3Schema.properties[bar]: Required value: because it is defined in spec.validation.openAPIV3Schema.anyOf[0].properties[bar]",
            ),
            error(
                "crd.invalid",
                "spec.validation.openAPIV3Schema.anyOf[0].properties[bar].type: Forbidden: must be empty to be structural",
            ),
            error(
                "crd.invalid",
                "spec.validation.openAPIV3Schema.anyOf[0].description: Forbidden: must be empty to be structural",
            ),
            error(
                "crd.invalid",
                "spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName",
            ),
        ],
        ..BASE.expect
    },
    ..BASE
};

const DEFAULTING_PRUNING: Example = Example {
    slug: "defaulting-pruning",
    title: "Defaulting and pruning",
    summary: "Defaults fill in absent fields (nested defaults too), unknown fields are pruned \
              with a warning each under fieldValidation=Warn, and a subtree with \
              x-kubernetes-preserve-unknown-fields keeps them: see what the server stores.",
    crd: include_str!("../examples/defaulting-pruning/crd.yaml"),
    object: include_str!("../examples/defaulting-pruning/object.yaml"),
    field_validation: FieldValidation::Warn,
    tab: "stored",
    expect: Expect {
        findings: &[
            warning(
                "object.unknown-field",
                "unknown field \"spec.target.encryption\"",
            ),
            warning("object.unknown-field", "unknown field \"spec.compress\""),
            warning("object.unknown-field", "unknown field \"notes\""),
        ],
        pruned: &["notes", "spec.compress", "spec.target.encryption"],
        defaulted: &[
            "spec.retention.keepLast",
            "spec.schedule",
            "spec.suspend",
            "spec.target.region",
        ],
        ..BASE.expect
    },
    ..BASE
};

const LIST_TYPES: Example = Example {
    slug: "list-types",
    title: "List types: map and set",
    summary: "A list-type map keyed by port and protocol, and a set of hostnames: the server \
              rejects a duplicate key (here only once protocol is defaulted) and a repeated \
              set value.",
    crd: include_str!("../examples/list-types/crd.yaml"),
    object: include_str!("../examples/list-types/object.yaml"),
    expect: Expect {
        accepted: false,
        objects: &[false],
        findings: &[
            error(
                "object.invalid",
                r#"spec.ports[3]: Duplicate value: {"port":80,"protocol":"TCP"}"#,
            ),
            error(
                "object.invalid",
                r#"spec.hostnames[2]: Duplicate value: "example.com""#,
            ),
        ],
        // The keys collide only once `protocol` is defaulted.
        defaulted: &["spec.ports[0].protocol", "spec.ports[3].protocol"],
        ..BASE.expect
    },
    ..BASE
};

const CEL_MESSAGES_RATCHETING: Example = Example {
    slug: "cel-messages-ratcheting",
    title: "CEL: messages, reasons, field paths and transition rules",
    summary: "An update checked by CEL rules with messageExpression, reason and fieldPath, \
              and transition rules on oldSelf; the unchanged field that breaks a newer rule is \
              ratcheted (a warning, not an error).",
    crd: include_str!("../examples/cel-messages-ratcheting/crd.yaml"),
    object: include_str!("../examples/cel-messages-ratcheting/object.yaml"),
    old_object: include_str!("../examples/cel-messages-ratcheting/old-object.yaml"),
    tab: "cel",
    expect: Expect {
        accepted: false,
        objects: &[false],
        findings: &[
            error(
                "object.invalid",
                "spec.replicas: Forbidden: replicas (7) must not exceed maxReplicas (5)",
            ),
            error(
                "object.invalid",
                "spec.engine: Invalid value: the engine cannot be changed; create a new database instead",
            ),
            error(
                "object.invalid",
                "spec.storageGB: Invalid value: 50: storageGB may grow but not shrink (from 100 to 50)",
            ),
            warning(
                "object.warning",
                "spec.tier: Invalid value: \"gold\": tier must be standard or premium",
            ),
        ],
        ..BASE.expect
    },
    ..BASE
};

const CEL_COST_BUDGET: Example = Example {
    slug: "cel-cost-budget",
    title: "CEL: a rule over the cost budget",
    summary: "A rule comparing every pair of an unbounded list of unbounded strings: the server \
              rejects the CRD for the rule's estimated cost, and the CEL tab offers the \
              maxItems and maxLength that fix it.",
    crd: include_str!("../examples/cel-cost-budget/crd.yaml"),
    object: include_str!("../examples/cel-cost-budget/object.yaml"),
    tab: "cel",
    expect: Expect {
        accepted: false,
        crd_accepted: false,
        objects: &[],
        findings: &[error(
            "crd.invalid",
            "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: \
             Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try \
             simplifying the rule, or adding maxItems, maxProperties, and maxLength where \
             arrays, maps, and strings are declared)",
        )],
        cost_fix: true,
        ..BASE.expect
    },
    ..BASE
};

const MULTI_VERSION: Example = Example {
    slug: "multi-version",
    title: "Versions: None conversion and deprecation",
    summary: "Three served versions converted by the None strategy, two of them deprecated: \
              a request to a deprecated version gets its warning, and every object is stored \
              in the storage version and readable in each version.",
    crd: include_str!("../examples/multi-version/crd.yaml"),
    object: include_str!("../examples/multi-version/object.yaml"),
    tab: "stored",
    expect: Expect {
        objects: &[true, true, true],
        findings: &[
            warning(
                "object.deprecated-version",
                "shop.example.com/v1alpha1 Widget is deprecated and will be removed in a future \
                 release; use shop.example.com/v1",
            ),
            warning(
                "object.deprecated-version",
                "shop.example.com/v1beta1 Widget is deprecated; use shop.example.com/v1 Widget",
            ),
        ],
        ..BASE.expect
    },
    ..BASE
};

const WEBHOOK_CONVERSION: Example = Example {
    slug: "webhook-conversion",
    title: "Webhook conversion",
    summary: "Versions whose shapes differ, converted by a webhook: the ConversionReview the \
              server sends to convert the object to v2, and a webhook response the server \
              accepts.",
    crd: include_str!("../examples/webhook-conversion/crd.yaml"),
    object: include_str!("../examples/webhook-conversion/object.yaml"),
    tab: "conversion",
    conversion_target: "v2",
    webhook_response: include_str!("../examples/webhook-conversion/webhook-response.yaml"),
    expect: Expect {
        webhook_response_accepted: Some(true),
        ..BASE.expect
    },
    ..BASE
};

const PRINTER_COLUMNS_SCALE: Example = Example {
    slug: "printer-columns-scale",
    title: "Printer columns, scale and selectable fields",
    summary: "What kubectl get prints (priority-1 columns with -o wide), the scale \
              subresource's replicas and selector, and a field selector on selectable fields.",
    crd: include_str!("../examples/printer-columns-scale/crd.yaml"),
    object: include_str!("../examples/printer-columns-scale/object.yaml"),
    tab: "get",
    field_selector: "spec.region=eu-west,spec.machineType!=gpu-a100",
    expect: Expect {
        objects: &[true, true, true],
        selected: &["batch-eu"],
        ..BASE.expect
    },
    ..BASE
};

const HTTP_ROUTE: Example = Example {
    slug: "http-route",
    title: "A CEL-heavy routing CRD",
    summary: "A route resource in the style of the Gateway API's HTTPRoute, checked mostly by \
              CEL rules within the cost budget: one route accepted, one rejected with a \
              message from each rule it breaks.",
    crd: include_str!("../examples/http-route/crd.yaml"),
    object: include_str!("../examples/http-route/object.yaml"),
    tab: "cel",
    expect: Expect {
        accepted: false,
        objects: &[true, false],
        findings: &[
            error(
                "object.invalid",
                "spec.parentRefs: Invalid value: a parent (name and sectionName) may be listed only once",
            ),
            error(
                "object.invalid",
                "spec.hostnames[0]: Invalid value: \"10.0.0.1\": a hostname must not be an IP address",
            ),
            error(
                "object.invalid",
                "spec.rules[0].matches[0].path: Invalid value: value must be an absolute path and start with '/'",
            ),
            error(
                "object.invalid",
                "spec.rules[0].filters[0]: Invalid value: requestRedirect must be set for type RequestRedirect",
            ),
            error(
                "object.invalid",
                "spec.rules[0].backendRefs: Forbidden: a rule that redirects has no backends",
            ),
            error(
                "object.invalid",
                "spec.rules[0].backendRefs[0].port: Invalid value: a port is required when the backend is a Service",
            ),
        ],
        ..BASE.expect
    },
    ..BASE
};

static ALL: [Example; 10] = [
    CRONTAB,
    NON_STRUCTURAL,
    DEFAULTING_PRUNING,
    LIST_TYPES,
    CEL_MESSAGES_RATCHETING,
    CEL_COST_BUDGET,
    MULTI_VERSION,
    WEBHOOK_CONVERSION,
    PRINTER_COLUMNS_SCALE,
    HTTP_ROUTE,
];

/// Every example, in the order the Examples control lists them.
pub fn all() -> &'static [Example] {
    &ALL
}

/// Whether these texts are one of the examples, unchanged: replacing them loses nothing, so
/// the studio neither asks first nor puts them aside.
pub fn is_unchanged_example(crd: &str, object: &str, old_object: &str) -> bool {
    ALL.iter()
        .any(|e| e.crd == crd && e.object == object && e.old_object == old_object)
}

/// The example with this slug.
pub fn by_slug(slug: &str) -> Option<&'static Example> {
    ALL.iter().find(|e| e.slug == slug)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unchanged_examples_are_recognised() {
        for e in all() {
            assert!(
                is_unchanged_example(e.crd, e.object, e.old_object),
                "{}",
                e.slug
            );
        }
        let edited = format!("{}\n# mine", CRONTAB.object);
        assert!(!is_unchanged_example(CRONTAB.crd, &edited, ""));
        assert!(!is_unchanged_example("", "", ""));
    }
    use crate::cel_model::{apply_edits, cel_view};
    use crate::view_model::{object_rejected, problem_rows, status};
    use crate::worker_boundary::{answer_with, Reply};
    use crd_studio_engine::CelOutcome;

    /// The clock the page would pass (any fixed instant).
    const NOW: &str = "2026-01-01T00:00:00Z";

    fn run(e: &Example) -> Reply {
        answer_with(&e.request(), &e.query(NOW))
    }

    /// Everything that is wrong with an example's reply, one line each.
    fn problems(e: &Example, reply: &Reply) -> Vec<String> {
        let a = &reply.analysis;
        let x = &e.expect;
        let mut out = Vec::new();
        let s = status(a);
        if s.accepted != x.accepted || !s.text.starts_with(x.verdict()) {
            out.push(format!("status: {}", s.text));
        }
        if a.crd.accepted != x.crd_accepted {
            out.push(format!("crd accepted: {}", a.crd.accepted));
        }
        if !x.objects.is_empty() {
            let got: Vec<bool> = a.objects.iter().map(|o| !object_rejected(a, o)).collect();
            if got != x.objects {
                out.push(format!("objects accepted: {got:?}"));
            }
        }
        let rows = problem_rows(a);
        for f in x.findings {
            let found = rows.iter().any(|r| {
                r.severity == f.severity && r.code == f.code && r.message.contains(f.message)
            });
            if !found {
                out.push(format!("missing finding: {f:?}"));
            }
        }
        let webhook = reply.previews.webhook.as_ref();
        let check = webhook.and_then(|w| w.check.as_ref());
        if check.map(|c| c.accepted) != x.webhook_response_accepted {
            out.push(format!("webhook response check: {check:?}"));
        }
        let first = a.objects.first();
        let pruned: Vec<&str> = first
            .map(|o| o.pruned_paths.iter().map(String::as_str).collect())
            .unwrap_or_default();
        if !x.pruned.is_empty() && pruned != x.pruned {
            out.push(format!("pruned: {pruned:?}"));
        }
        let defaulted: Vec<&str> = first
            .map(|o| o.defaulted_paths.iter().map(String::as_str).collect())
            .unwrap_or_default();
        if !x.defaulted.is_empty() && defaulted != x.defaulted {
            out.push(format!("defaulted: {defaulted:?}"));
        }
        if !e.field_selector.is_empty() {
            let names: Vec<&str> = match &reply.previews.field_selector {
                Some(p) if p.selection.error.is_none() => p
                    .samples
                    .iter()
                    .zip(&p.selection.objects)
                    .filter(|(_, m)| m.matches)
                    .filter_map(|((source, document), _)| {
                        a.objects
                            .iter()
                            .find(|o| o.source == *source && o.document == *document)
                            .map(|o| o.name.as_str())
                    })
                    .collect(),
                other => {
                    out.push(format!("field selector: {other:?}"));
                    Vec::new()
                }
            };
            if names != x.selected {
                out.push(format!("selected: {names:?}"));
            }
        }
        out
    }

    #[test]
    fn every_example_has_its_intended_verdict() {
        let mut wrong = Vec::new();
        for e in all() {
            let reply = run(e);
            let p = problems(e, &reply);
            if !p.is_empty() {
                let rows: Vec<String> = problem_rows(&reply.analysis)
                    .iter()
                    .map(|r| format!("  {:?} {} {}", r.severity, r.code, r.message))
                    .collect();
                wrong.push(format!(
                    "{}:\n  {}\n rows:\n{}",
                    e.slug,
                    p.join("\n  "),
                    rows.join("\n")
                ));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn examples_are_well_formed() {
        let tabs = ["problems", "stored", "cel", "get", "conversion"];
        for (i, e) in all().iter().enumerate() {
            assert!(!e.slug.is_empty() && !e.title.is_empty() && !e.summary.is_empty());
            assert!(
                all()[..i].iter().all(|o| o.slug != e.slug),
                "{} twice",
                e.slug
            );
            assert_eq!(by_slug(e.slug), Some(e));
            assert!(tabs.contains(&e.tab), "{}: tab {}", e.slug, e.tab);
            assert!(!e.crd.trim().is_empty() && !e.object.trim().is_empty());
            // A rejected CRD leaves nothing for the objects' verdicts to mean.
            assert_eq!(
                e.expect.objects.is_empty(),
                !e.expect.crd_accepted,
                "{}",
                e.slug
            );
            assert_eq!(
                e.expect.accepted,
                e.expect.crd_accepted
                    && e.expect.objects.iter().all(|o| *o)
                    && e.expect
                        .findings
                        .iter()
                        .all(|f| f.severity != Severity::Error),
                "{}",
                e.slug
            );
            let reply = run(e);
            let a = &reply.analysis;
            // An old object makes it an update.
            let update = !e.old_object.trim().is_empty();
            assert!(
                a.objects
                    .iter()
                    .all(|o| (o.operation == "update") == update),
                "{}",
                e.slug
            );
            // The conversion target is a version of the CRD, and the webhook response is
            // checked only where the CRD converts by webhook.
            if !e.conversion_target.is_empty() {
                assert!(
                    a.versions.iter().any(|v| v.name == e.conversion_target),
                    "{}",
                    e.slug
                );
                assert_eq!(reply.previews.target, e.conversion_target);
            }
            assert_eq!(
                e.webhook_response.is_empty(),
                e.expect.webhook_response_accepted.is_none(),
                "{}",
                e.slug
            );
            // Every object is read and served, and no rule fails to evaluate (a rule that
            // errors at run time would be a mistake in the example, not what it shows).
            for o in &a.objects {
                assert_eq!(o.object_error, None, "{}", e.slug);
                assert!(
                    o.cel_results.iter().all(|r| r.outcome != CelOutcome::Error),
                    "{}: {:?}",
                    e.slug,
                    o.cel_results
                );
            }
            // The tables of accepted CRDs are printed.
            if e.expect.crd_accepted {
                assert!(reply.previews.kubectl_get.is_some(), "{}", e.slug);
            }
        }
    }

    #[test]
    fn the_cost_example_is_fixed_by_its_one_click_fix() {
        for e in all().iter().filter(|e| e.expect.cost_fix) {
            let a = run(e).analysis;
            let view = cel_view(&a, None);
            let fixes: Vec<_> = view
                .rules
                .iter()
                .flat_map(|r| &r.explanations)
                .filter(|x| x.over)
                .collect();
            assert!(!fixes.is_empty(), "{}: nothing over the limit", e.slug);
            let mut text = e.crd.to_owned();
            for x in fixes {
                let fix = x.suggestion.as_ref().expect("a fix is offered");
                let edits = fix.edits().expect("every bound has its edit");
                let edits: Vec<(usize, usize, &str)> = edits
                    .iter()
                    .map(|e| (e.start, e.end, e.text.as_str()))
                    .collect();
                // One rule over the limit in these examples: its edits apply to the text as
                // written.
                assert_eq!(text, e.crd, "{}: one fix", e.slug);
                text = apply_edits(&text, &edits).expect("the edits apply");
            }
            let request = Request {
                crd: text.clone(),
                ..e.request()
            };
            let reply = answer_with(&request, &e.query(NOW));
            assert!(
                reply.analysis.crd.accepted,
                "{}: {text}\n{:#?}",
                e.slug, reply.analysis.findings
            );
            assert!(status(&reply.analysis).accepted, "{}", e.slug);
        }
        assert!(all().iter().any(|e| e.expect.cost_fix));
    }

    /// The studio's request uid for the webhook example is the engine's derived one, the same
    /// literal `crd-studio convert` prints for these files (crates/cli/tests/convert.rs).
    #[test]
    fn the_webhook_request_uid_is_the_clis() {
        let e = by_slug("webhook-conversion").expect("the example");
        let reply = run(e);
        let webhook = reply.previews.webhook.expect("a webhook preview");
        let request = webhook.call.and_then(|c| c.request).expect("a request");
        assert_eq!(request.uid, "9aec6431-9e20-8826-b563-96703cb782a5");
        assert!(webhook
            .request_text
            .unwrap_or_default()
            .contains("\"uid\": \"9aec6431-9e20-8826-b563-96703cb782a5\""));
    }

    #[test]
    fn the_first_visit_example_is_the_crontab() {
        assert_eq!(all()[0], CRONTAB);
        assert_eq!(crate::view_model::EXAMPLE_CRD, CRONTAB.crd);
        assert_eq!(crate::view_model::EXAMPLE_OBJECT, CRONTAB.object);
    }
}
