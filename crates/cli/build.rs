//! Links `crd-studio` as a position-dependent executable on Linux: the loader then writes no
//! relocations into the binary's read-only data (a PIE dirties every page of `.data.rel.ro`
//! and reads all of `.rela.dyn` at start, about 0.6 MB of a check's peak memory; issue 29).

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
