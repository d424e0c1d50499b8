//! YAML/JSON documents: the engine's document reader (`read_documents`) and the JSON each
//! document's tree becomes.
#![no_main]

use crd_studio_engine::{read_documents, SourceId};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = crd_studio_fuzz::text(data);
    let _ = read_documents(&text, SourceId::Object(0));
});
