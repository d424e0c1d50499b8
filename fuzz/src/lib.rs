//! Shared pieces of the fuzz targets (`fuzz_targets/*.rs`, one module per target): input
//! splitting, the fixed CRD set (the gallery's examples), and the `arbitrary` model of a small
//! schema + CEL rule + object that the `cel` target turns into a CRD and an object.
//!
//! # Why this fuzzer, and how
//!
//! cargo-fuzz drives libFuzzer (`libfuzzer-sys`, the C++ runtime built with the system's g++),
//! coverage-guided through LLVM's sanitizer-coverage instrumentation. cargo-fuzz asks for
//! nightly flags; on the stable toolchain `RUSTC_BOOTSTRAP=1` unlocks them, and `--sanitizer
//! none` leaves out AddressSanitizer, which needs a nightly standard library and which the
//! engine does not need (no `unsafe` but the libyaml wrapper; a Rust panic, a stack overflow,
//! a timeout or the RSS limit are what we look for). Chosen over `afl.rs` (its own compiler
//! wrapper, a fork per input: slower for an in-process library) and over a hand-written
//! random-mutation loop (no coverage feedback: it never gets far into the CEL checker or CRD
//! validation). Targets take raw bytes (texts, parts split at the byte 0xFF) so that
//! libFuzzer's mutations and dictionaries work on the text, except `cel`, which builds a
//! structured case with `arbitrary` (a schema with list types, formats, defaults and rules from
//! a small grammar over the schema's field names and the CEL libraries, an object and maybe an
//! old object) and sends it through the whole engine as CRD and object texts. Each input runs
//! under `-timeout=10` and `-rss_limit_mb=2048`, so a slow or huge case is a finding like a
//! panic. A finding is fixed in the engine, and its minimized input is kept under
//! `crates/engine/tests/fuzz-regressions/<target>/`, which `cargo test` replays
//! (`crates/engine/tests/fuzz_regressions.rs`, with every committed corpus input).
//!
//! # Measured
//!
//! November 2026, the 2-core dev machine, one target at a time at `nice` on one core,
//! committed corpus plus the `../shared` seeds: no panic, no timeout, no out-of-memory found.
//!
//! | target | executions | exec/s | cov | ft |
//! | --- | --- | --- | --- | --- |
//! | `documents` | 1,000,000 | 4,016 | 2,640 | 14,317 |
//! | `crd` | 606,259 (15 min) | 668 | 16,860 | 70,769 |
//! | `object` | 1,000,000 | 5,494 | 15,162 | 33,941 |
//! | `crd_object` | 1,000,000 | 1,718 | 15,890 | 58,966 |
//! | `cel` | 429,438 (20 min) | 350 | 19,277 | 88,985 |
//! | `jsonpath` | 1,530,372 (two sessions) | 15,470 / 1,041 | 1,935 | 9,552 |
//! | `field_selector` | 1,000,000 | 8,474 | 1,435 | 5,593 |
//! | `conversion_response` | 1,000,000 | 3,412 | 13,287 | 21,795 |
//! | `share_link` | 1,000,000 | 2,747 | 1,726 | 4,625 |
//!
//! In the `cel` and `crd` targets most of the time is libFuzzer's own bookkeeping of the many
//! features each input reaches (every CRD compile builds the CEL environment of thousands of
//! declarations): about a fifth of the time is the engine. Inside `cargo xtask test` three
//! targets (a different three each day) run 15 s each on the committed corpus, in the
//! background beside the other steps; every committed input is also replayed by `cargo test`
//! (`fuzz_regressions.rs`). The old step (cargo-fuzz installed, all nine targets built, 12 s
//! each) took 875 s wall, 404 s CPU on the shared machine at load 9-10 (the cold build of the
//! nine: 552 s wall); a cold fuzz build takes about 7 min on a quiet one.

use std::fmt::Write as _;

use crd_studio_engine::{CompiledCrd, Options};

pub mod cel_model;

/// The separator between the parts of one input (never valid UTF-8, so it never appears in a
/// text the parts decode to).
pub const SEP: u8 = 0xff;

/// The parts of `data` split at [`SEP`], each decoded as UTF-8 (lossy: the CLI and the page
/// both hand the engine Rust strings).
pub fn parts(data: &[u8]) -> Vec<String> {
    data.split(|b| *b == SEP)
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect()
}

/// `data` as one text.
pub fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// One example of the gallery: CRD, object, old object, webhook response.
pub struct Example {
    /// The example's folder.
    pub name: &'static str,
    /// `crd.yaml`.
    pub crd: &'static str,
    /// `object.yaml`.
    pub object: &'static str,
}

macro_rules! example {
    ($name:literal) => {
        Example {
            name: $name,
            crd: include_str!(concat!("../../examples/", $name, "/crd.yaml")),
            object: include_str!(concat!("../../examples/", $name, "/object.yaml")),
        }
    };
}

/// The fixed CRD set the object targets analyse fuzzed objects against.
pub const EXAMPLES: [Example; 10] = [
    example!("crontab"),
    example!("cel-cost-budget"),
    example!("cel-messages-ratcheting"),
    example!("defaulting-pruning"),
    example!("http-route"),
    example!("list-types"),
    example!("multi-version"),
    example!("non-structural"),
    example!("printer-columns-scale"),
    example!("webhook-conversion"),
];

/// The webhook example's response (the seed shape of the `conversion_response` target).
pub const WEBHOOK_RESPONSE: &str =
    include_str!("../../examples/webhook-conversion/webhook-response.yaml");

/// Options with a fixed clock, so that date columns are computed.
pub fn options() -> Options {
    Options {
        now: crd_studio_engine::Time::parse_rfc3339("2026-01-01T00:00:00Z").ok(),
        ..Options::default()
    }
}

thread_local! {
    static COMPILED: Vec<CompiledCrd> =
        EXAMPLES.iter().map(|e| CompiledCrd::compile(e.crd, &options())).collect();
}

/// Runs `f` on the compiled CRD of example `index` (modulo the set's size).
pub fn with_example<R>(index: usize, f: impl FnOnce(&Example, &CompiledCrd) -> R) -> R {
    let i = index % EXAMPLES.len();
    COMPILED.with(|c| match (EXAMPLES.get(i), c.get(i)) {
        (Some(e), Some(c)) => f(e, c),
        _ => unreachable!("EXAMPLES and COMPILED have the same length"),
    })
}

/// Writes `s` as a JSON string literal.
pub fn json_str(out: &mut String, s: &str) {
    let _ = write!(out, "{}", serde_json::Value::String(s.to_owned()));
}

/// `data` raw-deflated and base64url-encoded as a share link (`s1.` format), so that the
/// `share_link` target's mutations reach the JSON inside a link.
pub fn share_link_of(data: &[u8]) -> String {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;
    let packed = miniz_oxide::deflate::compress_to_vec(data, 1);
    format!("s1.{}", URL_SAFE_NO_PAD.encode(packed))
}
