//! Compiles one CRD file once (for profiling: `valgrind --tool=callgrind`).
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: compile_crd FILE");
        return;
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("cannot read {path}");
        return;
    };
    let c = crd_studio_engine::CompiledCrd::compile(&text, &crd_studio_engine::Options::default());
    println!("{} findings", c.findings().len());
}
