//! Compiles one CRD file once (for profiling: `valgrind --tool=callgrind`).
//!
//! `compile_crd FILE top` then recompiles it after typing an unknown top-level field
//! (`zabc: 1` at the first line), `compile_crd FILE desc` after an edit of the first
//! description inside the schema (`CompiledCrd::recompile`; profile its inclusive count).
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: compile_crd FILE [top|desc]");
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
        _ => return,
    };
    let again = c.recompile(&edited, &options);
    println!(
        "recompiled: {} findings, content reused: {}",
        again.findings().len(),
        again.content_reused()
    );
}
