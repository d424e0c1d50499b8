//! # crd-studio-gostd (`gostd`)
//!
//! Go standard-library semantics, in pure Rust, for code that must print and parse exactly as a
//! Go program does: the Kubernetes API server's messages quote values with `strconv.Quote`,
//! marshal them with `encoding/json`, parse times, durations, URLs and addresses with Go's
//! parsers (and their error texts), and compile patterns with Go's `regexp`. This crate knows
//! nothing of Kubernetes or CEL; the CEL crate and the engine both build on it, so each Go
//! function is implemented once.
//!
//! | module | Go package |
//! | --- | --- |
//! | [`time`] (and [`time::layout`]) | `time`: `Parse` with layouts and `ParseError`, RFC 3339, `ParseDuration`, `Duration.String` |
//! | [`strconv`] | `strconv`: `Quote`, `IsPrint`, `Atoi`, `ParseBool`, `ParseInt`, `ParseUint`, `ParseFloat`, `FormatFloat` (`'g'`, `'f'`) |
//! | [`fmt`] | `fmt`: `%v` and `%T` of decoded JSON values |
//! | [`json`] | `encoding/json`: `Marshal` (escaping, float format, map key order, structs) |
//! | [`base64`] | `encoding/base64` (`StdEncoding`) |
//! | [`value`] | decoded JSON as Go holds it: `int64`/`float64`, `reflect.DeepEqual`, float → int |
//! | [`net`] | `net` and `net/netip`: addresses, prefixes, `ParseIP`, `ParseMAC`, the pre-1.17 parser |
//! | [`url`] | `net/url`: `Parse`, `ParseRequestURI`, accessors, `String` |
//! | [`mail`] | `net/mail`: `ParseAddress` |
//! | [`regexp`] | `regexp`: RE2 syntax with Go's errors, translated to the `regex` crate |
//! | [`sort`] | `sort`: `SliceStable`, compiled once in the browser's wasm |
//!
//! Nothing here panics on input, and recursion over values is bounded or iterative.

#![deny(unsafe_code)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

pub mod base64;
pub mod fmt;
pub mod json;
pub mod mail;
pub mod net;
pub mod regexp;
pub mod sort;
pub mod strconv;
pub mod time;
pub mod url;
pub mod value;
