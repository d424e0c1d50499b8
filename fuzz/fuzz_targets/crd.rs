//! CRD compile and validation: `CompiledCrd::compile` of any text (decode, structural schema,
//! CRD validation, CEL rule compilation and cost), then an analysis without objects.
#![no_main]

use crd_studio_engine::CompiledCrd;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = crd_studio_fuzz::text(data);
    let compiled = CompiledCrd::compile(&text, &crd_studio_fuzz::options());
    let _ = compiled.analyze_objects(&[], None);
});
