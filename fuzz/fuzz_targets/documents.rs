//! YAML/JSON documents: the engine's document reader (`document::parse`) and the JSON each
//! document's tree becomes.
#![no_main]

use crd_studio_engine::documents::document;
use crd_studio_engine::SourceId;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = crd_studio_fuzz::text(data);
    let parsed = document::parse(&text, SourceId::Object(0));
    for (_, root) in parsed.values() {
        let _ = root.to_json();
    }
});
