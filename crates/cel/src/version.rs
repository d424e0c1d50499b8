//! The Kubernetes version: the one type the CEL crate, the engine and every shell use for it.
//!
//! A value is a minor of Kubernetes 1 (`1.37`). It names either a server the engine models
//! ([`KubernetesVersion::parse`] accepts only those, `OLDEST_MINOR..=NEWEST_MINOR`) or a CEL
//! compatibility version, which is one minor behind the server
//! ([`KubernetesVersion::compatibility`]: `environment.DefaultCompatibilityVersion()`,
//! hard-coded `1.29` in the 1.30 server, the effective version's
//! `MinCompatibilityVersion()` since 1.31) and may lie below the oldest modelled server.
//!
//! Text is read once, at the edge (a command-line argument, a share link, an embed attribute,
//! the worker protocol), with [`KubernetesVersion::parse`] and its one error text; inside, the
//! value travels typed. It serializes as its text (`"1.37"`).

use std::fmt;

/// The oldest modelled server minor.
pub const OLDEST_MINOR: u32 = 30;
/// The newest modelled server minor (the default).
pub const NEWEST_MINOR: u32 = 37;

/// A Kubernetes 1.x minor version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubernetesVersion {
    /// The minor version (the major is 1).
    pub minor: u32,
}

impl KubernetesVersion {
    /// The default server: the newest modelled, 1.37.
    pub const DEFAULT: KubernetesVersion = KubernetesVersion::new(NEWEST_MINOR);

    /// `1.minor`, whether modelled or not (compatibility versions, tables of when a CEL
    /// function arrived).
    pub const fn new(minor: u32) -> KubernetesVersion {
        KubernetesVersion { minor }
    }

    /// Every modelled server version, oldest first.
    pub fn all() -> impl DoubleEndedIterator<Item = KubernetesVersion> {
        (OLDEST_MINOR..=NEWEST_MINOR).map(KubernetesVersion::new)
    }

    /// The modelled versions as text, oldest first (`1.30, 1.31, …`).
    pub fn list() -> String {
        KubernetesVersion::all()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Reads `1.34`, `v1.34` or `1.34.2` (the patch is ignored); a version the engine does
    /// not model is an error naming those it does.
    pub fn parse(text: &str) -> Result<KubernetesVersion, String> {
        match KubernetesVersion::parse_any(text) {
            Some(v) if (OLDEST_MINOR..=NEWEST_MINOR).contains(&v.minor) => Ok(v),
            _ => Err(format!(
                "unsupported Kubernetes version {:?}: the modelled versions are {}",
                text,
                KubernetesVersion::list()
            )),
        }
    }

    /// Reads any `1.N` (`v1.N`, `1.N.patch`), modelled or not: for data that names versions
    /// outside the modelled range (a CRD's annotations, the CEL conformance suite).
    pub fn parse_any(text: &str) -> Option<KubernetesVersion> {
        let t = text.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let mut parts = t.split('.');
        let major = parts.next()?.parse::<u32>().ok()?;
        let minor = parts.next()?.parse::<u32>().ok()?;
        match parts.next() {
            None => {}
            Some(patch) if patch.parse::<u32>().is_ok() && parts.next().is_none() => {}
            Some(_) => return None,
        }
        (major == 1).then_some(KubernetesVersion::new(minor))
    }

    /// Reads a set of modelled versions, oldest first without repeats: a comma-separated
    /// list of versions (`1.30,1.34`), ranges (`1.30..1.37`, both ends included) and `all`
    /// (every modelled version). Each version is read with [`KubernetesVersion::parse`] and
    /// its error text; a range whose end comes before its start is an error.
    pub fn parse_set(text: &str) -> Result<Vec<KubernetesVersion>, String> {
        let mut out = Vec::new();
        for item in text.split(',').map(str::trim) {
            if item == "all" {
                out.extend(KubernetesVersion::all());
            } else if let Some((from, to)) = item.split_once("..") {
                let (from, to) = (
                    KubernetesVersion::parse(from)?,
                    KubernetesVersion::parse(to)?,
                );
                if to < from {
                    return Err(format!(
                        "the range {item:?} ends before it starts (write {from}..{to} the other way round: {to}..{from})"
                    ));
                }
                out.extend((from.minor..=to.minor).map(KubernetesVersion::new));
            } else {
                out.push(KubernetesVersion::parse(item)?);
            }
        }
        crd_studio_gostd::sort::stable(&mut out);
        out.dedup();
        Ok(out)
    }

    /// The compatibility version new CEL expressions compile at and CRD formats are checked
    /// at: one minor behind the server.
    pub const fn compatibility(self) -> KubernetesVersion {
        KubernetesVersion::new(self.minor.saturating_sub(1))
    }
}

impl Default for KubernetesVersion {
    fn default() -> Self {
        KubernetesVersion::DEFAULT
    }
}

impl fmt::Display for KubernetesVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

impl std::str::FromStr for KubernetesVersion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        KubernetesVersion::parse(s)
    }
}

impl serde::Serialize for KubernetesVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for KubernetesVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        KubernetesVersion::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_modelled_versions_only() {
        for (text, want) in [
            ("1.37", Some(37)),
            ("v1.30", Some(30)),
            ("1.33.4", Some(33)),
            (" 1.31 ", Some(31)),
            ("1.29", None),
            ("1.38", None),
            ("2.30", None),
            ("latest", None),
            ("", None),
            ("1.30.x", None),
        ] {
            assert_eq!(
                KubernetesVersion::parse(text).ok().map(|v| v.minor),
                want,
                "{text}"
            );
        }
        assert_eq!(
            KubernetesVersion::parse("1.29").unwrap_err(),
            "unsupported Kubernetes version \"1.29\": the modelled versions are \
             1.30, 1.31, 1.32, 1.33, 1.34, 1.35, 1.36, 1.37"
        );
    }

    #[test]
    fn parses_lists_and_ranges() {
        let minors = |text: &str| {
            KubernetesVersion::parse_set(text)
                .map(|v| v.iter().map(|v| v.minor).collect::<Vec<_>>())
        };
        for (text, want) in [
            ("1.37", vec![37]),
            ("1.30..1.32", vec![30, 31, 32]),
            ("1.34, 1.30", vec![30, 34]),
            ("1.31..1.31,1.31", vec![31]),
            ("all", (30..=37).collect()),
            ("1.36..1.37,all", (30..=37).collect()),
        ] {
            assert_eq!(minors(text), Ok(want), "{text}");
        }
        for bad in ["", "1.29..1.31", "1.33..1.31", "1.30,,1.31", "latest"] {
            assert!(minors(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn parse_any_reads_unmodelled_minors() {
        for (text, want) in [
            ("1.36", Some(36)),
            ("v1.31", Some(31)),
            ("1.30.2", Some(30)),
            ("1.12", Some(12)),
            ("2.1", None),
            ("1", None),
            ("1.x", None),
            ("1.2.3.4", None),
        ] {
            assert_eq!(
                KubernetesVersion::parse_any(text).map(|v| v.minor),
                want,
                "{text}"
            );
        }
    }

    #[test]
    fn compatibility_is_one_minor_behind() {
        assert_eq!(
            KubernetesVersion::DEFAULT.compatibility().to_string(),
            "1.36"
        );
        assert_eq!(
            KubernetesVersion::new(30).compatibility().to_string(),
            "1.29"
        );
    }

    #[test]
    fn serializes_as_text_and_reads_back_through_parse() {
        let v = KubernetesVersion::new(33);
        let json = serde_json::to_string(&v).unwrap();
        assert_eq!(json, "\"1.33\"");
        assert_eq!(serde_json::from_str::<KubernetesVersion>(&json).unwrap(), v);
        let err = serde_json::from_str::<KubernetesVersion>("\"1.2\"").unwrap_err();
        assert!(err
            .to_string()
            .starts_with("unsupported Kubernetes version"));
    }
}
