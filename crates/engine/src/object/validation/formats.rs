//! String formats: which ones a CRD schema may use at a compatibility version
//! (apiextensions-apiserver `pkg/apiserver/validation/formats.go`), and kube-openapi's
//! `strfmt.Default` registry that checks them.
//!
//! Format names are normalized the go-openapi way, by deleting every `-` (`date-time` is
//! `datetime`, `k8s-short-name` is `k8sshortname`).

use crd_studio_gostd::regexp::{compile_fixed, GoRegexp};

use crate::documents::kube_version::KubernetesVersion;

/// The formats CRD schemas may use, with the 1.x minor that introduced them (normalized).
const VERSIONED_FORMATS: &[(u32, &[&str])] = &[
    (
        0,
        &[
            "bsonobjectid",
            "uri",
            "email",
            "hostname",
            "ipv4",
            "ipv6",
            "cidr",
            "mac",
            "uuid",
            "uuid3",
            "uuid4",
            "uuid5",
            "isbn",
            "isbn10",
            "isbn13",
            "creditcard",
            "ssn",
            "hexcolor",
            "rgbcolor",
            "byte",
            "password",
            "date",
            "duration",
            "datetime",
        ],
    ),
    (34, &["k8sshortname", "k8slongname"]),
];

/// The formats a CRD schema may name at `version`, as users write them (`date-time`).
pub fn supported_formats(version: KubernetesVersion) -> Vec<&'static str> {
    let mut out = vec!["int32", "int64", "float", "double"];
    for (minor, names) in VERSIONED_FORMATS {
        if version >= KubernetesVersion::new(*minor) {
            out.extend(
                names
                    .iter()
                    .map(|n| if *n == "datetime" { "date-time" } else { n }),
            );
        }
    }
    out
}

/// go-openapi's name normalization: `-` removed.
pub fn normalize(name: &str) -> String {
    name.replace('-', "")
}

/// Whether a string format is supported by CRD schemas at `version`
/// (`supportedFormatsAtVersion(version).supported.Has(normalized)`).
pub fn supported_at(format: &str, version: KubernetesVersion) -> bool {
    let n = normalize(format);
    VERSIONED_FORMATS.iter().any(|(minor, names)| {
        version >= KubernetesVersion::new(*minor) && names.contains(&n.as_str())
    })
}

/// `StripUnsupportedFormatsPostProcessorForVersion`: the format a schema node keeps, given its
/// types and the compatibility version.
pub fn strip_unsupported<T: AsRef<str>>(
    format: &str,
    types: &[T],
    version: KubernetesVersion,
) -> String {
    if format.is_empty() {
        return String::new();
    }
    let single = if types.len() == 1 {
        types.first().map(AsRef::as_ref).unwrap_or("")
    } else {
        ""
    };
    let keep = match single {
        "" | "string" => supported_at(format, version),
        "integer" => format == "int32" || format == "int64",
        "number" => format == "float" || format == "double",
        _ => false,
    };
    if keep {
        format.to_owned()
    } else {
        String::new()
    }
}

/// The formats of kube-openapi's `strfmt.Default` registry (normalized names).
const REGISTRY: &[&str] = &[
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "datetime",
    "duration",
    "bsonobjectid",
    "k8sshortname",
    "k8slongname",
];

/// `strfmt.Default.ContainsName(format)`.
pub fn is_registered(format: &str) -> bool {
    REGISTRY.contains(&normalize(format).as_str())
}

const HOSTNAME: &str = r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$";
const UUID: &str = r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$";
const UUID3: &str = r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$";
const UUID4: &str =
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$";
const UUID5: &str =
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$";
const CREDIT_CARD: &str = r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$";
const ISBN10: &str = r"^(?:[0-9]{9}X|[0-9]{10})$";
const ISBN13: &str = r"^(?:[0-9]{13})$";
const HEX_COLOR: &str = r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$";
const RGB_COLOR: &str = r"^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$";
const BASE64: &str =
    r"^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$";
const SSN: &str = r"^\d{3}[- ]?\d{2}[- ]?\d{4}$";
const DATE_TIME: &str = r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$";
const SHORT_NAME: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";
const LONG_NAME: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

/// A compiled checker for one registered format.
#[derive(Clone, Debug)]
pub struct FormatChecker {
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Uri,
    Email,
    Hostname(GoRegexp),
    Ipv4,
    Ipv6,
    Cidr,
    Mac,
    Regex(GoRegexp),
    Isbn(GoRegexp, GoRegexp),
    Isbn10(GoRegexp),
    Isbn13(GoRegexp),
    CreditCard(GoRegexp),
    Ssn(GoRegexp),
    Password,
    Date,
    DateTime(GoRegexp),
    Duration,
    BsonObjectId,
    MaxLenRegex(usize, GoRegexp),
}

fn matches(re: &GoRegexp, s: &str) -> bool {
    re.is_match(s).unwrap_or(false)
}

impl FormatChecker {
    /// The checker for a registered format name, or `None` when `strfmt.Default` does not
    /// know it.
    pub fn new(format: &str) -> Option<FormatChecker> {
        let kind = match normalize(format).as_str() {
            "uri" => Kind::Uri,
            "email" => Kind::Email,
            "hostname" => Kind::Hostname(compile_fixed(HOSTNAME)),
            "ipv4" => Kind::Ipv4,
            "ipv6" => Kind::Ipv6,
            "cidr" => Kind::Cidr,
            "mac" => Kind::Mac,
            "uuid" => Kind::Regex(compile_fixed(UUID)),
            "uuid3" => Kind::Regex(compile_fixed(UUID3)),
            "uuid4" => Kind::Regex(compile_fixed(UUID4)),
            "uuid5" => Kind::Regex(compile_fixed(UUID5)),
            "isbn" => Kind::Isbn(compile_fixed(ISBN10), compile_fixed(ISBN13)),
            "isbn10" => Kind::Isbn10(compile_fixed(ISBN10)),
            "isbn13" => Kind::Isbn13(compile_fixed(ISBN13)),
            "creditcard" => Kind::CreditCard(compile_fixed(CREDIT_CARD)),
            "ssn" => Kind::Ssn(compile_fixed(SSN)),
            "hexcolor" => Kind::Regex(compile_fixed(HEX_COLOR)),
            "rgbcolor" => Kind::Regex(compile_fixed(RGB_COLOR)),
            "byte" => Kind::Regex(compile_fixed(BASE64)),
            "password" => Kind::Password,
            "date" => Kind::Date,
            "datetime" => Kind::DateTime(compile_fixed(DATE_TIME)),
            "duration" => Kind::Duration,
            "bsonobjectid" => Kind::BsonObjectId,
            "k8sshortname" => Kind::MaxLenRegex(63, compile_fixed(SHORT_NAME)),
            "k8slongname" => Kind::MaxLenRegex(253, compile_fixed(LONG_NAME)),
            _ => return None,
        };
        Some(FormatChecker { kind })
    }

    /// `strfmt.Default.Validates(format, s)`.
    pub fn validates(&self, s: &str) -> bool {
        match &self.kind {
            Kind::Uri => crd_studio_gostd::url::Url::parse_request_uri(s).is_ok(),
            Kind::Email => crd_studio_gostd::mail::is_email(s),
            Kind::Hostname(re) => {
                matches(re, s) && s.len() <= 255 && s.split('.').all(|p| p.len() <= 63)
            }
            Kind::Ipv4 => crd_studio_gostd::net::parse_ip_sloppy_ok(s) && s.contains('.'),
            Kind::Ipv6 => crd_studio_gostd::net::parse_ip(s).is_some() && s.contains(':'),
            Kind::Cidr => crd_studio_gostd::net::parse_cidr_sloppy_ok(s),
            Kind::Mac => crd_studio_gostd::net::is_mac(s),
            Kind::Regex(re) => matches(re, s),
            Kind::Isbn(r10, r13) => is_isbn10(r10, s) || is_isbn13(r13, s),
            Kind::Isbn10(re) => is_isbn10(re, s),
            Kind::Isbn13(re) => is_isbn13(re, s),
            Kind::CreditCard(re) => is_credit_card(re, s),
            Kind::Ssn(re) => s.len() == 11 && matches(re, s),
            Kind::Password => true,
            Kind::Date => {
                crd_studio_gostd::time::parse(crd_studio_gostd::time::RFC3339_FULL_DATE, s).is_ok()
            }
            Kind::DateTime(re) => is_date_time(re, s),
            Kind::Duration => {
                crd_studio_gostd::time::parse_duration(s).is_ok() || duration_words(s)
            }
            Kind::BsonObjectId => s.len() == 24 && s.bytes().all(|b| b.is_ascii_hexdigit()),
            Kind::MaxLenRegex(max, re) => s.len() <= *max && matches(re, s),
        }
    }
}

/// govalidator's ISBN sanitizing: whitespace (ASCII, as Go's `\s`) and `-` removed.
fn isbn_sanitize(s: &str) -> Vec<u8> {
    s.bytes()
        .filter(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'-'))
        .collect()
}

fn is_isbn10(re: &GoRegexp, s: &str) -> bool {
    let d = isbn_sanitize(s);
    let Ok(text) = std::str::from_utf8(&d) else {
        return false;
    };
    if !matches(re, text) {
        return false;
    }
    let digit = |i: usize| i32::from(d.get(i).copied().unwrap_or(b'0')) - i32::from(b'0');
    let mut sum: i32 = (0..9).map(|i| (i as i32 + 1) * digit(i)).sum();
    if d.get(9) == Some(&b'X') {
        sum += 100;
    } else {
        sum += 10 * digit(9);
    }
    sum % 11 == 0
}

fn is_isbn13(re: &GoRegexp, s: &str) -> bool {
    let d = isbn_sanitize(s);
    let Ok(text) = std::str::from_utf8(&d) else {
        return false;
    };
    if !matches(re, text) {
        return false;
    }
    let digit = |i: usize| i32::from(d.get(i).copied().unwrap_or(b'0')) - i32::from(b'0');
    let sum: i32 = (0..12)
        .map(|i| if i % 2 == 0 { digit(i) } else { 3 * digit(i) })
        .sum();
    digit(12) - ((10 - (sum % 10)) % 10) == 0
}

fn is_credit_card(re: &GoRegexp, s: &str) -> bool {
    let digits: String = s.chars().filter(char::is_ascii_digit).collect();
    if !matches(re, &digits) {
        return false;
    }
    let mut sum = 0;
    let mut double = false;
    for b in digits.bytes().rev() {
        let mut n = u32::from(b - b'0');
        if double {
            n *= 2;
            if n >= 10 {
                n = n % 10 + 1;
            }
        }
        sum += n;
        double = !double;
    }
    sum % 10 == 0
}

/// strfmt's `IsDateTime`.
fn is_date_time(re: &GoRegexp, s: &str) -> bool {
    if s.len() < 4 {
        return false;
    }
    let lower = s.to_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    if crd_studio_gostd::time::parse(crd_studio_gostd::time::RFC3339_FULL_DATE, date).is_err() {
        return false;
    }
    if !matches(re, time) {
        return false;
    }
    // The regexp matched, so the first eight bytes are "hh:mm:ss".
    let field = |r: std::ops::Range<usize>| time.get(r).unwrap_or("99");
    field(0..2) <= "23" && field(3..5) <= "59" && field(6..8) <= "59"
}

/// The fallback of strfmt's `ParseDuration` after `time.ParseDuration`: every match of
/// `((\d+)\s*([A-Za-zµ]+))`; an integer overflow fails the whole string, any known unit makes
/// it valid.
fn duration_words(s: &str) -> bool {
    const UNITS: &[&[&str]] = &[
        &["ns", "nano"],
        &["us", "µs", "micro"],
        &["ms", "milli"],
        &["s", "sec"],
        &["m", "min"],
        &["h", "hr", "hour"],
        &["d", "day"],
        &["w", "wk", "week"],
    ];
    let mut ok = false;
    // Scan like `((\d+)\s*([A-Za-zµ]+))` with leftmost, non-overlapping matches.
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let is_digit = |k: usize| chars.get(k).is_some_and(|(_, c)| c.is_ascii_digit());
        if !is_digit(i) {
            i += 1;
            continue;
        }
        let digits_start = i;
        let mut j = i;
        while is_digit(j) {
            j += 1;
        }
        let digits_end = j;
        while chars
            .get(j)
            .is_some_and(|(_, c)| matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' '))
        {
            j += 1;
        }
        let unit_start = j;
        while chars
            .get(j)
            .is_some_and(|(_, c)| c.is_ascii_alphabetic() || *c == 'µ')
        {
            j += 1;
        }
        if j == unit_start {
            // No unit after these digits: the match can start at a later digit only if the
            // digits are followed by a unit, which they are not; move past them.
            i = digits_end.max(i + 1);
            continue;
        }
        let text = |a: usize, b: usize| {
            let from = chars.get(a).map_or(s.len(), |(p, _)| *p);
            let to = chars.get(b).map_or(s.len(), |(p, _)| *p);
            s.get(from..to).unwrap_or("")
        };
        // strconv.Atoi of the digits: an overflow makes ParseDuration fail.
        if text(digits_start, digits_end).parse::<i64>().is_err() {
            return false;
        }
        let unit = text(unit_start, j).trim().to_lowercase();
        for variants in UNITS {
            let last = variants.len() - 1;
            for (k, v) in variants.iter().enumerate() {
                if (k == last && unit.starts_with(v)) || unit == *v {
                    ok = true;
                }
            }
        }
        i = j;
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(format: &str, s: &str) -> bool {
        FormatChecker::new(format)
            .map(|c| c.validates(s))
            .unwrap_or_else(|| panic!("unknown format {format}"))
    }

    #[test]
    fn versions_and_stripping() {
        let v133 = KubernetesVersion::new(33);
        let v134 = KubernetesVersion::new(34);
        assert!(!supported_at("k8s-short-name", v133));
        assert!(supported_at("k8s-short-name", v134));
        assert!(supported_at("date-time", v133));
        let s = |t: &str| vec![t.to_owned()];
        assert_eq!(strip_unsupported("int32", &s("integer"), v133), "int32");
        assert_eq!(strip_unsupported("uuid", &s("integer"), v133), "");
        assert_eq!(strip_unsupported("email", &s("object"), v133), "");
        assert_eq!(strip_unsupported("int-or-string", &s("string"), v133), "");
    }

    #[test]
    fn checkers() {
        assert!(check("k8s-long-name", "a.b-c"));
        assert!(!check("k8s-long-name", "a.-"));
        assert!(!check("k8s-short-name", "a.b"));
        assert!(check("uuid", "123E4567-e89b-12d3-a456-426614174000"));
        assert!(check("date-time", "2024-01-02T03:04:05Z"));
        assert!(check("datetime", "2024-01-02t03:04:05.123+01:00"));
        assert!(!check("datetime", "2024-01-02T24:04:05Z"));
        assert!(check("duration", "3 days"));
        assert!(check("duration", "1h5m"));
        assert!(!check("duration", "soon"));
        assert!(check("hostname", "example.com"));
        assert!(!check("hostname", "-bad.com"));
        assert!(check("isbn", "978-0321751041"));
        assert!(check("isbn10", "0321751043"));
        assert!(check("creditcard", "4111 1111 1111 1111"));
        assert!(check("ssn", "111-11-1111"));
        assert!(check("byte", "aGVsbG8="));
        assert!(!check("byte", "aGVsbG8"));
        assert!(check("bsonobjectid", "507f1f77bcf86cd799439011"));
        assert!(check("rgbcolor", "rgb(255, 0, 10)"));
        assert!(check("ipv4", "1.2.3.4"));
        assert!(!check("ipv4", "::1"));
        assert!(check("ipv6", "::1"));
        assert!(check("cidr", "192.168.0.0/16"));
    }
}
