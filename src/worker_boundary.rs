//! The one place the page calls the engine.
//!
//! Everything else in the app sends a [`Request`] to [`run`] and renders the [`Analysis`] it
//! gets back; nothing else imports the engine's analysis functions. Both types are plain serde
//! data, so moving the engine into a Web Worker later (to keep typing smooth on big CRDs) means
//! rewriting only the body of [`run`] — post the request as JSON, await the reply — and moving
//! [`analyze_cached`] into the worker. No caller changes.
//!
//! The CRD changes rarely and the object on every keystroke, so the compiled CRD is kept and
//! reused until the CRD text or the options change.

use std::cell::RefCell;

use crd_studio_engine::{Analysis, CompiledCrd, Options, Request};

struct Cache {
    crd: String,
    options: Options,
    compiled: CompiledCrd,
}

thread_local! {
    static CACHE: RefCell<Option<Cache>> = const { RefCell::new(None) };
}

/// Analyses a request. Async so that a Web Worker can stand behind it without changing callers.
pub async fn run(request: Request) -> Analysis {
    analyze_cached(&request)
}

/// Analyses a request, recompiling the CRD only when its text or the options differ from the
/// previous call's.
pub fn analyze_cached(request: &Request) -> Analysis {
    CACHE.with(|cell| {
        let mut cache = cell.borrow_mut();
        let fresh = match cache.as_ref() {
            Some(c) => c.crd != request.crd || c.options != request.options,
            None => true,
        };
        if fresh {
            *cache = Some(Cache {
                crd: request.crd.clone(),
                options: request.options.clone(),
                compiled: CompiledCrd::compile(&request.crd, &request.options),
            });
        }
        match cache.as_ref() {
            Some(c) => c
                .compiled
                .analyze_objects(&request.objects, request.old_object.as_deref()),
            None => crd_studio_engine::analyze(request),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view_model::{EXAMPLE_CRD, EXAMPLE_OBJECT};

    #[test]
    fn cached_result_equals_a_fresh_analysis() {
        let mut request = Request {
            crd: EXAMPLE_CRD.to_owned(),
            objects: vec![EXAMPLE_OBJECT.to_owned()],
            ..Request::default()
        };
        assert_eq!(
            analyze_cached(&request),
            crd_studio_engine::analyze(&request)
        );
        // Same CRD, new object: the cached CRD is reused.
        request.objects = vec!["kind: [".to_owned()];
        assert_eq!(
            analyze_cached(&request),
            crd_studio_engine::analyze(&request)
        );
        // New CRD: recompiled.
        request.crd = "kind: [".to_owned();
        assert_eq!(
            analyze_cached(&request),
            crd_studio_engine::analyze(&request)
        );
        CACHE.with(|c| assert_eq!(c.borrow().as_ref().map(|c| c.crd.as_str()), Some("kind: [")));
    }
}
