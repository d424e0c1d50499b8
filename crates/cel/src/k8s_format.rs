//! Kubernetes' format library: `format.named(name)`, `format.<name>()` and
//! `<Format>.validate(s)`, with apimachinery's validation messages (`IsDNS1123Label`,
//! `IsQualifiedName`, ...: the one copy in [`crate::k8s_names`]).

use crate::k8s_names::{
    is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, is_qualified_name,
    is_valid_label_value, mask_trailing_dash,
};

/// The named formats: (library key, `MaxRegexSize` used by the runtime cost).
pub const FORMATS: &[(&str, u64)] = &[
    ("dns1123Label", 30),
    ("dns1123Subdomain", 60),
    ("dns1035Label", 30),
    ("qualifiedName", 60),
    ("dns1123LabelPrefix", 30),
    ("dns1123SubdomainPrefix", 60),
    ("dns1035LabelPrefix", 30),
    ("labelValue", 40),
    ("uri", 1103),
    // len(strfmt.UUIDPattern)
    ("uuid", UUID_PATTERN.len() as u64),
    ("byte", 84),
    // len(strfmt.DateTimePattern)
    ("date", DATE_TIME_PATTERN.len() as u64),
    ("datetime", DATE_TIME_PATTERN.len() as u64),
];

const UUID_PATTERN: &str =
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$";
const DATE_TIME_PATTERN: &str =
    r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$";

/// The static key of a format name, if it is one.
pub fn lookup(name: &str) -> Option<&'static str> {
    FORMATS.iter().find(|(n, _)| *n == name).map(|(n, _)| *n)
}

/// The regex size Kubernetes charges for validating with this format.
pub fn max_regex_size(name: &str) -> u64 {
    FORMATS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(0, |(_, s)| *s)
}

/// Whether `name` is one of the `format.<name>` functions.
pub fn is_format_function(name: &str) -> bool {
    name.strip_prefix("format.")
        .is_some_and(|n| lookup(n).is_some())
}

fn is_uuid(s: &str) -> bool {
    let hex: Vec<u8> = s.bytes().filter(|&b| b != b'-').collect();
    if hex.len() != 32 || !hex.iter().all(u8::is_ascii_hexdigit) {
        return false;
    }
    // Dashes only at the optional positions 8, 13, 18, 23 (with the dashes before them).
    let mut pos = 0;
    let b = s.as_bytes();
    for (i, group) in [8usize, 4, 4, 4, 12].iter().enumerate() {
        if i > 0 && b.get(pos) == Some(&b'-') {
            pos += 1;
        }
        for _ in 0..*group {
            if !b.get(pos).is_some_and(u8::is_ascii_hexdigit) {
                return false;
            }
            pos += 1;
        }
    }
    pos == b.len()
}

fn is_base64_regex(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() || !b.len().is_multiple_of(4) {
        return false;
    }
    let ok = |c: u8| c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
    let (body, tail) = b.split_at(b.len() - 4);
    if !body.iter().all(|&c| ok(c)) {
        return false;
    }
    match tail {
        [a, b2, b'=', b'='] => ok(*a) && ok(*b2),
        [a, b2, c, b'='] => ok(*a) && ok(*b2) && ok(*c),
        [a, b2, c, d] => ok(*a) && ok(*b2) && ok(*c) && ok(*d),
        _ => false,
    }
}

fn is_strfmt_date_time(s: &str) -> bool {
    if s.len() < 4 {
        return false;
    }
    let lower = s.to_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    if crate::rt_time::parse_date(date).is_err() {
        return false;
    }
    // ^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$
    let b = time.as_bytes();
    let d2 = |i: usize| {
        b.get(i..i + 2)
            .is_some_and(|x| x.iter().all(u8::is_ascii_digit))
    };
    if !(d2(0) && b.get(2) == Some(&b':') && d2(3) && b.get(5) == Some(&b':') && d2(6)) {
        return false;
    }
    let mut i = 8;
    if b.get(i).is_some()
        && b.get(i) != Some(&b'z')
        && b.get(i) != Some(&b'+')
        && b.get(i) != Some(&b'-')
    {
        // (.[0-9]+)? — any character then digits.
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    let rest = b.get(i..).unwrap_or(&[]);
    let zone_ok = rest == b"z"
        || (rest.len() == 6
            && matches!(rest.first(), Some(b'+') | Some(b'-'))
            && rest
                .get(1..3)
                .is_some_and(|x| x.iter().all(u8::is_ascii_digit))
            && rest.get(3) == Some(&b':')
            && rest
                .get(4..6)
                .is_some_and(|x| x.iter().all(u8::is_ascii_digit)));
    if !zone_ok {
        return false;
    }
    let field = |r: std::ops::Range<usize>| time.get(r).unwrap_or("99");
    field(0..2) <= "23" && field(3..5) <= "59" && field(6..8) <= "59"
}

/// `<Format>.validate(s)`: the error strings (empty when valid).
pub fn validate(format: &str, s: &str) -> Vec<String> {
    match format {
        "dns1123Label" => is_dns1123_label(s),
        "dns1123LabelPrefix" => is_dns1123_label(&mask_trailing_dash(s)),
        "dns1123Subdomain" => is_dns1123_subdomain(s),
        "dns1123SubdomainPrefix" => is_dns1123_subdomain(&mask_trailing_dash(s)),
        "dns1035Label" => is_dns1035_label(s),
        "dns1035LabelPrefix" => is_dns1035_label(&mask_trailing_dash(s)),
        "qualifiedName" => is_qualified_name(s),
        "labelValue" => is_valid_label_value(s),
        "uri" => match crd_studio_gostd::url::Url::parse_request_uri(s) {
            Ok(_) => Vec::new(),
            Err(e) => vec![e],
        },
        "uuid" => {
            if is_uuid(s) {
                Vec::new()
            } else {
                vec!["does not match the UUID format".into()]
            }
        }
        "byte" => {
            if is_base64_regex(s) {
                Vec::new()
            } else {
                vec!["invalid base64".into()]
            }
        }
        "date" => {
            if crate::rt_time::parse_date(s).is_ok() {
                Vec::new()
            } else {
                vec!["invalid date".into()]
            }
        }
        "datetime" => {
            if is_strfmt_date_time(s) {
                Vec::new()
            } else {
                vec!["invalid datetime".into()]
            }
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validations() {
        assert!(validate("dns1123Subdomain", "apiextensions.k8s.io").is_empty());
        assert!(validate("qualifiedName", "apiextensions.k8s.io/v1beta1").is_empty());
        assert!(validate("dns1123SubdomainPrefix", "mysubdomain.prefix.-").is_empty());
        assert!(validate("dns1035LabelPrefix", "my-label-prefix-").is_empty());
        assert!(validate("uri", "http://example.com").is_empty());
        assert!(validate("date", "2021-01-01").is_empty());
        assert!(validate("datetime", "2021-01-01T00:00:00Z").is_empty());
        assert_eq!(
            validate("dns1123Label", "a.b"),
            vec!["must not contain dots".to_string()]
        );
        assert_eq!(
            validate("dns1123Label", "A"),
            vec!["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".to_string()]
        );
        assert!(validate("uuid", "123e4567-e89b-12d3-a456-426614174000").is_empty());
        assert!(!validate("uuid", "123e4567").is_empty());
        assert!(validate("byte", "Zm9v").is_empty());
        assert_eq!(validate("labelValue", ""), Vec::<String>::new());
    }
}
