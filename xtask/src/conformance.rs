//! `cargo xtask conformance [DIR]` (being written).

/// Runs the conformance cases in `args` (a directory, options). Returns whether it passed.
pub fn run(_args: &[String]) -> Result<bool, String> {
    Err("not written yet".into())
}
