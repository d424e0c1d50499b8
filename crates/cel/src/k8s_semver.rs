//! Semantic versions as `github.com/blang/semver/v4` parses and orders them, for Kubernetes'
//! semver library (`semver()`, `isSemver()`, normalization, `compareTo`), with its error texts.

use std::cmp::Ordering;
use std::fmt;

use crd_studio_gostd::strconv::quote as go_quote;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Pre {
    Num(u64),
    Str(String),
}

/// A semantic version.
#[derive(Debug, Clone)]
pub struct Semver {
    /// Major.
    pub major: u64,
    /// Minor.
    pub minor: u64,
    /// Patch.
    pub patch: u64,
    pre: Vec<Pre>,
    build: Vec<String>,
}

impl PartialEq for Semver {
    /// `EQ` (build metadata ignored).
    fn eq(&self, other: &Self) -> bool {
        self.cmp_value(other) == Ordering::Equal
    }
}

const ALPHANUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-";

fn only(s: &str, set: &str) -> bool {
    s.chars().all(|c| set.contains(c))
}

fn only_digits(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit())
}

fn leading_zero(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// `strconv.ParseUint(s, 10, 64)` (on digits only).
fn parse_uint(s: &str) -> Result<u64, String> {
    crd_studio_gostd::strconv::parse_uint(s, 10)
}

impl Semver {
    /// `semver.Parse`.
    pub fn parse(s: &str) -> Result<Semver, String> {
        if s.is_empty() {
            return Err("Version string empty".into());
        }
        let parts: Vec<&str> = s.splitn(3, '.').collect();
        let [maj, min, rest] = parts[..] else {
            return Err("No Major.Minor.Patch elements found".into());
        };
        let num = |p: &str, what: &str, cap: &str| -> Result<u64, String> {
            if !only_digits(p) {
                return Err(format!(
                    "Invalid character(s) found in {what} number {}",
                    go_quote(p)
                ));
            }
            if leading_zero(p) {
                return Err(format!(
                    "{cap} number must not contain leading zeroes {}",
                    go_quote(p)
                ));
            }
            parse_uint(p)
        };
        let major = num(maj, "major", "Major")?;
        let minor = num(min, "minor", "Minor")?;
        let mut patch_str = rest;
        let mut build = Vec::new();
        let mut pre_strs: Vec<&str> = Vec::new();
        if let Some(i) = patch_str.find('+') {
            build = patch_str
                .get(i + 1..)
                .unwrap_or("")
                .split('.')
                .map(str::to_string)
                .collect();
            patch_str = patch_str.get(..i).unwrap_or("");
        }
        if let Some(i) = patch_str.find('-') {
            pre_strs = patch_str.get(i + 1..).unwrap_or("").split('.').collect();
            patch_str = patch_str.get(..i).unwrap_or("");
        }
        let patch = num(patch_str, "patch", "Patch")?;
        let mut pre = Vec::new();
        for p in pre_strs {
            if p.is_empty() {
                return Err("Prerelease is empty".into());
            }
            if only_digits(p) {
                if leading_zero(p) {
                    return Err(format!(
                        "Numeric PreRelease version must not contain leading zeroes {}",
                        go_quote(p)
                    ));
                }
                pre.push(Pre::Num(parse_uint(p)?));
            } else if only(p, ALPHANUM) {
                pre.push(Pre::Str(p.to_string()));
            } else {
                return Err(format!(
                    "Invalid character(s) found in prerelease {}",
                    go_quote(p)
                ));
            }
        }
        for b in &build {
            if b.is_empty() {
                return Err("Build meta data is empty".into());
            }
            if !only(b, ALPHANUM) {
                return Err(format!(
                    "Invalid character(s) found in build meta data {}",
                    go_quote(b)
                ));
            }
        }
        Ok(Semver {
            major,
            minor,
            patch,
            pre,
            build,
        })
    }

    /// Kubernetes' `normalizeAndParse`: a leading `v` dropped, leading zeros removed, missing
    /// minor/patch filled with 0.
    pub fn parse_normalized(s: &str) -> Result<Semver, String> {
        let s = s.strip_prefix('v').unwrap_or(s);
        let mut parts: Vec<String> = s.splitn(3, '.').map(str::to_string).collect();
        for p in parts.iter_mut() {
            if p.len() > 1 {
                let mut t = p.trim_start_matches('0').to_string();
                if t.is_empty() || !t.starts_with(|c: char| c.is_ascii_digit()) {
                    t.insert(0, '0');
                }
                *p = t;
            }
        }
        if parts.len() < 3 {
            if parts.last().is_some_and(|l| l.contains(['+', '-'])) {
                return Err("short version cannot contain PreRelease/Build meta data".into());
            }
            while parts.len() < 3 {
                parts.push("0".into());
            }
        }
        Semver::parse(&parts.join("."))
    }

    /// `Compare`.
    pub fn cmp_value(&self, o: &Semver) -> Ordering {
        let c = (self.major, self.minor, self.patch).cmp(&(o.major, o.minor, o.patch));
        if c != Ordering::Equal {
            return c;
        }
        match (self.pre.is_empty(), o.pre.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => {}
        }
        for (a, b) in self.pre.iter().zip(&o.pre) {
            let c = match (a, b) {
                (Pre::Num(x), Pre::Num(y)) => x.cmp(y),
                (Pre::Num(_), Pre::Str(_)) => Ordering::Less,
                (Pre::Str(_), Pre::Num(_)) => Ordering::Greater,
                (Pre::Str(x), Pre::Str(y)) => x.cmp(y),
            };
            if c != Ordering::Equal {
                return c;
            }
        }
        self.pre.len().cmp(&o.pre.len())
    }
}

impl fmt::Display for Semver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        for (i, p) in self.pre.iter().enumerate() {
            f.write_str(if i == 0 { "-" } else { "." })?;
            match p {
                Pre::Num(n) => write!(f, "{n}")?,
                Pre::Str(s) => f.write_str(s)?,
            }
        }
        for (i, b) in self.build.iter().enumerate() {
            f.write_str(if i == 0 { "+" } else { "." })?;
            f.write_str(b)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_order() {
        let v = |s: &str| Semver::parse(s).unwrap();
        assert!(v("1.0.0-alpha").cmp_value(&v("1.0.0-alpha.1")) == Ordering::Less);
        assert!(v("1.0.0-alpha.1").cmp_value(&v("1.0.0-alpha.beta")) == Ordering::Less);
        assert!(v("1.0.0-rc.1").cmp_value(&v("1.0.0")) == Ordering::Less);
        assert!(v("1.0.0+build") == v("1.0.0"));
        assert_eq!(
            Semver::parse("1.0").unwrap_err(),
            "No Major.Minor.Patch elements found"
        );
        assert_eq!(
            Semver::parse("01.0.0").unwrap_err(),
            "Major number must not contain leading zeroes \"01\""
        );
        assert_eq!(
            Semver::parse_normalized("v1.02").unwrap().to_string(),
            "1.2.0"
        );
        assert!(Semver::parse_normalized("1.2-rc").is_err());
    }
}
