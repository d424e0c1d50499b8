//! The one place the page calls the engine.
//!
//! Everything else in the app sends a [`Request`] to [`run`] and renders the [`Reply`] it
//! gets back (the [`Analysis`], plus where the engine finds each pruned field in the user's
//! text); nothing else imports the engine's analysis functions. Both types are plain serde
//! data, so moving the engine into a Web Worker later (to keep typing smooth on big CRDs) means
//! rewriting only the body of [`run`] — post the request as JSON, await the reply — and moving
//! [`analyze_cached`] into the worker. No caller changes.
//!
//! The CRD changes rarely and the object on every keystroke, so the compiled CRD is kept and
//! reused until the CRD text or the options change.

use std::cell::RefCell;

use crd_studio_engine::document::parse;
use crd_studio_engine::path::locate;
use crd_studio_engine::{Analysis, CompiledCrd, FieldPath, Options, Request, SourceId};
use serde::{Deserialize, Serialize};

use crate::stored_view::FieldLocation;

/// What the page gets back for a [`Request`]: plain data, so it can cross a worker boundary.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reply {
    /// The engine's answer.
    pub analysis: Analysis,
    /// Where each pruned field (of the stored object and of every served version) is in its
    /// object text, found by the engine's path locator; fields it cannot find exactly are
    /// left out.
    pub pruned_locations: Vec<FieldLocation>,
}

struct Cache {
    crd: String,
    options: Options,
    compiled: CompiledCrd,
}

thread_local! {
    static CACHE: RefCell<Option<Cache>> = const { RefCell::new(None) };
}

/// Analyses a request. Async so that a Web Worker can stand behind it without changing callers.
pub async fn run(request: Request) -> Reply {
    answer(&request)
}

/// The synchronous body of [`run`] (what a worker would run).
pub fn answer(request: &Request) -> Reply {
    let analysis = analyze_cached(request);
    let pruned_locations = locate_pruned(request, &analysis);
    Reply {
        analysis,
        pruned_locations,
    }
}

/// Finds the pruned fields in the object texts. Only texts with pruned fields are read again.
fn locate_pruned(request: &Request, analysis: &Analysis) -> Vec<FieldLocation> {
    let mut out = Vec::new();
    for (source, text) in request.objects.iter().enumerate() {
        let reports: Vec<_> = analysis
            .objects
            .iter()
            .filter(|o| {
                o.source == source
                    && (!o.pruned_paths.is_empty()
                        || o.served_as.iter().any(|s| !s.pruned_paths.is_empty()))
            })
            .collect();
        if reports.is_empty() {
            continue;
        }
        let parsed = parse(text, SourceId::Object(source));
        for o in reports {
            let Some((_, root)) = parsed.values().find(|(d, _)| d.index == o.document) else {
                continue;
            };
            let paths = o
                .pruned_paths
                .iter()
                .chain(o.served_as.iter().flat_map(|s| s.pruned_paths.iter()));
            for path in paths {
                if out.iter().any(|l: &FieldLocation| {
                    l.source == source && l.document == o.document && &l.path == path
                }) {
                    continue;
                }
                let hit = locate(root, &FieldPath::parse(path));
                if hit.exact {
                    out.push(FieldLocation {
                        source,
                        document: o.document,
                        path: path.clone(),
                        line: hit.span.start.line,
                        column: hit.span.start.column,
                        utf16_column: hit.span.start.utf16_column,
                    });
                }
            }
        }
    }
    out
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

    #[test]
    fn pruned_fields_are_located_in_their_document() {
        let request = Request {
            crd: EXAMPLE_CRD.to_owned(),
            objects: vec![format!("{EXAMPLE_OBJECT}---\n{EXAMPLE_OBJECT}  extra: 1\n")],
            ..Request::default()
        };
        let mut analysis = crd_studio_engine::analyze(&request);
        // Whatever the engine prunes today, say it pruned spec.extra of document 1 and a
        // field that is not in the text.
        analysis.objects[1].pruned_paths = vec!["spec.extra".to_owned(), "spec.nope".to_owned()];
        assert_eq!(
            locate_pruned(&request, &analysis),
            [FieldLocation {
                source: 0,
                document: 1,
                path: "spec.extra".to_owned(),
                line: 16,
                column: 3,
                utf16_column: 3,
            }]
        );
        assert_eq!(answer(&request).analysis, analyze_cached(&request));
    }
}
