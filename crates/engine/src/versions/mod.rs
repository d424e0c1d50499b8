//! Stage 8, versions: kube-aware version priority, deprecation and removal ([`overview`](mod@overview),
//! re-exported here), conversion between versions as the server does it, including webhooks
//! ([`conversion`]), and the studio's declarative conversions with their round trip
//! ([`authored_conversion`]).
//!
//! Uses every earlier stage, through [`conversion::CompiledCrdParts`] for the compiled CRD
//! (which the report stage builds).

pub mod authored_conversion;
pub mod conversion;
pub mod overview;
pub mod report;

pub use overview::*;
