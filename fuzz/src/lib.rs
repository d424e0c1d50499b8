//! Shared pieces of the fuzz targets (`fuzz_targets/*.rs`, one module per target): input
//! splitting, the fixed CRD set (the gallery's examples), and the `arbitrary` model of a small
//! schema + CEL rule + object that the `cel` target turns into a CRD and an object.

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
