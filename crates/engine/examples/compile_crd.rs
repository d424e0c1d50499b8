//! Compiles one CRD file once (for profiling: `valgrind --tool=callgrind`).
//!
//! `compile_crd FILE top` then recompiles it after typing an unknown top-level field
//! (`zabc: 1` at the first line), `compile_crd FILE desc` after an edit of the first
//! description inside the schema (`CompiledCrd::recompile`; profile its inclusive count),
//! `compile_crd FILE schema` after an edit of a description deep inside the schema (the first
//! from the middle of the text on), `compile_crd FILE field` after typing an unknown field
//! inside the schema (timed).
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: compile_crd FILE [top|desc|schema|field]");
        return;
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("cannot read {path}");
        return;
    };
    let options = crd_studio_engine::Options::default();
    let c = crd_studio_engine::CompiledCrd::compile(&text, &options);
    println!("{} findings", c.findings().len());
    let edited = match std::env::args().nth(2).as_deref() {
        Some("top") => format!("zabc: 1\n{text}"),
        Some("desc") => {
            let at = text
                .find("openAPIV3Schema")
                .and_then(|s| text[s..].find("description: ").map(|d| s + d + 13));
            match at {
                Some(at) => format!("{}X{}", &text[..at], &text[at..]),
                None => text.clone(),
            }
        }
        Some("schema") => {
            // A description deep inside a version's schema: the first one from the middle
            // of the text on.
            let at = text
                .find("openAPIV3Schema")
                .map(|s| s.max(text.len() / 2))
                .and_then(|s| text[s..].find("description: ").map(|d| s + d + 13));
            match at {
                Some(at) => format!("{}X{}", &text[..at], &text[at..]),
                None => text.clone(),
            }
        }
        Some("field") => {
            // An unknown field typed inside the first property's schema (the browser
            // benchmark's "typing in its schema"): `z: 1` above its first `description:`.
            let at = text
                .find("openAPIV3Schema")
                .and_then(|s| text[s..].find("properties:").map(|p| s + p))
                .and_then(|p| text[p..].find("description: ").map(|d| p + d));
            match at {
                Some(at) => {
                    let line = text[..at].rfind('\n').map_or(0, |n| n + 1);
                    let indent = &text[line..at];
                    let with =
                        |name: &str| format!("{}{name}: 1\n{indent}{}", &text[..at], &text[at..]);
                    let base = c.recompile(&with("z"), &options);
                    let started = std::time::Instant::now();
                    let again = base.recompile(&with("za"), &options);
                    println!(
                        "field: {:?}, content reused: {}",
                        started.elapsed(),
                        again.content_reused()
                    );
                    with("zab")
                }
                None => text.clone(),
            }
        }
        _ => return,
    };
    let started = std::time::Instant::now();
    let again = c.recompile(&edited, &options);
    println!(
        "recompiled in {:?}: {} findings, content reused: {}",
        started.elapsed(),
        again.findings().len(),
        again.content_reused()
    );
}
