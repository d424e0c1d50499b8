//! A fuzzed CRD and a fuzzed object: `crd 0xFF object [0xFF old-object]` through `analyze`.
#![no_main]

use crd_studio_engine::{analyze, Request};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut parts = crd_studio_fuzz::parts(data).into_iter();
    let crd = parts.next().unwrap_or_default();
    let objects = parts.next().into_iter().collect();
    let old_object = parts.next();
    let _ = analyze(&Request {
        crd,
        objects,
        old_object,
        old_crd: None,
        options: crd_studio_fuzz::options(),
    });
});
