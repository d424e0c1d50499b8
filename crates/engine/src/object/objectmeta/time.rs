//! `metav1.Time` as the server reads and writes it: `time.Parse(time.RFC3339, s)` when decoding
//! and `Time.ToUnstructured` (`t.UTC().Format(time.RFC3339)`) when encoding, both from
//! [`crd_studio_gostd::time`]. Fractions of a second are kept (the server compares times with them) but,
//! as in the server, not written back.

/// An instant, as `metav1.Time` holds it (the location does not matter to the server's
/// output, which is always UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Time {
    /// Seconds since the Unix epoch.
    pub unix: i64,
    /// Nanoseconds within the second.
    pub nanos: u32,
}

impl Time {
    /// Go's zero `time.Time` (`metav1.Time{}`).
    pub const ZERO: Time = Time {
        unix: crd_studio_gostd::time::GO_ZERO_TIME_SECS,
        nanos: 0,
    };

    /// `IsZero()`.
    pub fn is_zero(&self) -> bool {
        *self == Time::ZERO
    }

    /// `time.Parse(time.RFC3339, value)`: the instant, or Go's error text.
    pub fn parse_rfc3339(value: &str) -> Result<Time, String> {
        parse_rfc3339(value)
    }

    /// `t.UTC().Format(time.RFC3339)`: `2006-01-02T15:04:05Z`, no fraction.
    pub fn rfc3339(&self) -> String {
        crd_studio_gostd::time::format_rfc3339_utc(self.unix)
    }
}

/// `time.Parse(time.RFC3339, value)`: the instant, or Go's error text.
pub fn parse_rfc3339(value: &str) -> Result<Time, String> {
    crd_studio_gostd::time::parse(crd_studio_gostd::time::RFC3339, value)
        .map(|t| Time {
            unix: t.secs,
            nanos: t.nanos,
        })
        .map_err(|e| e.to_string())
}

/// As its RFC 3339 text (`2026-01-01T00:00:00Z`, whole seconds), read back through
/// [`parse_rfc3339`] (Go's error text when it does not parse).
impl serde::Serialize for Time {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.rfc3339())
    }
}

impl<'de> serde::Deserialize<'de> for Time {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        parse_rfc3339(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_formats_like_the_server() {
        let t = parse_rfc3339("2020-01-02T03:04:05.123+02:00").unwrap();
        assert_eq!(t.rfc3339(), "2020-01-02T01:04:05Z");
        assert_eq!(t.nanos, 123_000_000);
        assert!(parse_rfc3339("0001-01-01T00:00:00Z").unwrap().is_zero());
        assert!(parse_rfc3339("2020-13-01T00:00:00Z").is_err());
    }
}
