//! The ConversionReview response check: any text as the webhook's answer to the request for
//! the webhook example's object, converted to v2 (and, by the first byte's low bit, to v1).
#![no_main]

use crd_studio_engine::{check_conversion_response, conversion_review, read_documents, SourceId};
use libfuzzer_sys::fuzz_target;

/// The webhook-conversion example.
const WEBHOOK: usize = 9;

fuzz_target!(|data: &[u8]| {
    let Some((first, rest)) = data.split_first() else {
        return;
    };
    let response = crd_studio_fuzz::text(rest);
    let to = if first & 1 == 0 { "v2" } else { "v1" };
    crd_studio_fuzz::with_example(WEBHOOK, |example, compiled| {
        let documents = read_documents(example.object, SourceId::Object(0));
        let objects: Vec<_> = documents
            .values
            .into_iter()
            .map(|(_, value)| value)
            .collect();
        if let Ok(call) = conversion_review(compiled, &objects, to, None) {
            let _ = check_conversion_response(compiled, &call, &response);
        }
    });
});
