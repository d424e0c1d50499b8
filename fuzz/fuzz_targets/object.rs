//! Object analysis, create and update, against the fixed CRD set (the gallery's examples):
//! the first byte picks the CRD (low bits) and create or update (high bit); the rest is the
//! object text, for an update `object 0xFF old-object`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((first, rest)) = data.split_first() else {
        return;
    };
    let update = first & 0x80 != 0;
    crd_studio_fuzz::with_example(usize::from(first & 0x7f), |_, compiled| {
        let mut parts = crd_studio_fuzz::parts(rest).into_iter();
        let object = parts.next().unwrap_or_default();
        let old = if update { parts.next() } else { None };
        let _ = compiled.analyze_objects(&[object], old.as_deref());
    });
});
