//! Field selectors: `selector [0xFF selectable-field paths, one a line [0xFF objects as a JSON
//! list]]`, evaluated as `kubectl get --field-selector` (`select_by_field_selector`: parse,
//! `ConvertFieldLabel`, `GetAttrs`, match); without the later parts, the printer-columns
//! example's selectable fields and object.
#![no_main]

use crd_studio_engine::{read_documents, select_by_field_selector, SelectorVersion, SourceId};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// The example with `selectableFields`.
const PRINTER_COLUMNS: usize = 8;

thread_local! {
    /// The example's objects as JSON, read once.
    static OBJECTS: Vec<Value> = crd_studio_fuzz::with_example(PRINTER_COLUMNS, |example, _| {
        let documents = read_documents(example.object, SourceId::Object(0));
        documents.values.into_iter().map(|(_, value)| value).collect()
    });
}

fuzz_target!(|data: &[u8]| {
    let mut parts = crd_studio_fuzz::parts(data).into_iter();
    let selector = parts.next().unwrap_or_default();
    let selectable_fields = match parts.next() {
        Some(fields) => fields.lines().map(str::to_owned).collect(),
        None => vec![".spec.region".to_owned(), ".spec.machineType".to_owned()],
    };
    let version = SelectorVersion {
        group: "compute.example.com".to_owned(),
        version: "v1".to_owned(),
        plural: "workerpools".to_owned(),
        namespaced: true,
        selectable_fields,
    };
    let objects: Option<Vec<Value>> = parts.next().and_then(|o| serde_json::from_str(&o).ok());
    match objects {
        Some(objects) => {
            let _ = select_by_field_selector(&version, &selector, &objects);
        }
        None => OBJECTS.with(|objects| {
            let _ = select_by_field_selector(&version, &selector, objects);
        }),
    }
});
