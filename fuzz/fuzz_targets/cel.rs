//! CEL parse/check/evaluate with random schemas: an `arbitrary` schema with rules (and
//! messageExpressions), an object and maybe an old object, as a CRD and object texts through
//! the whole engine.
#![no_main]

use crd_studio_engine::{analyze, KubernetesVersion, Options, Request};
use crd_studio_fuzz::cel_model::CelCase;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|case: CelCase| {
    let request = Request {
        crd: case.crd(),
        objects: vec![CelCase::object_text(&case.object)],
        old_object: case.old.as_ref().map(CelCase::object_text),
        old_crd: None,
        options: Options {
            // Read at the edge as every shell reads it: an unmodelled version is the default.
            kubernetes_version: KubernetesVersion::parse(case.version()).unwrap_or_default(),
            ..crd_studio_fuzz::options()
        },
    };
    // Running the target on one saved input with this variable set writes the texts it
    // derived (`version 0xFF crd 0xFF object [0xFF old]`): the form the engine's
    // `tests/fuzz_regressions.rs` keeps.
    if let Some(path) = std::env::var_os("CRD_STUDIO_FUZZ_CEL_CASE") {
        let mut out = Vec::new();
        for (i, part) in [Some(case.version()), Some(request.crd.as_str())]
            .into_iter()
            .chain(request.objects.iter().map(|o| Some(o.as_str())))
            .chain([request.old_object.as_deref()])
            .flatten()
            .enumerate()
        {
            if i > 0 {
                out.push(crd_studio_fuzz::SEP);
            }
            out.extend_from_slice(part.as_bytes());
        }
        let _ = std::fs::write(path, out);
    }
    let _ = analyze(&request);
});
