//! apimachinery's name and label checks, with the server's messages: `pkg/util/validation`
//! (`IsDNS1123Label`, `IsDNS1123Subdomain`, `IsDNS1035Label`: lengths in characters, its
//! `MaxLenError`) and `pkg/api/validate/content` (`IsLabelKey`, `IsLabelValue`, and the
//! `IsDNS1123Subdomain` a label key's prefix meets: lengths in bytes). In Kubernetes 1.37
//! `validation.IsQualifiedName` *is* `content.IsLabelKey` and `validation.IsValidLabelValue`
//! *is* `content.IsLabelValue` (both declared as `var X = content.Y`), so a qualified name or a
//! label value too long is "no more than 63 bytes" wherever the server checks it: ObjectMeta's
//! labels and CEL's `format.qualifiedName()`/`format.labelValue()` alike.
//!
//! The one copy: the CEL format library and the engine's ObjectMeta validation both call it.

/// `RegexError(msg, fmt, examples...)`.
pub fn regex_error(msg: &str, re: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{re}')");
    }
    let mut s = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push_str(&format!("'{e}', "));
    }
    s.push_str(&format!("regex used for validation is '{re}')"));
    s
}

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

fn lower_alnum(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
fn dns1123_label_matches(s: &[u8]) -> bool {
    match (s.first(), s.last()) {
        (Some(&f), Some(&l)) => {
            lower_alnum(f) && lower_alnum(l) && s.iter().all(|&b| lower_alnum(b) || b == b'-')
        }
        _ => false,
    }
}

/// `^<label>(\.<label>)*$`
fn dns1123_subdomain_matches(s: &[u8]) -> bool {
    s.split(|&b| b == b'.').all(dns1123_label_matches)
}

/// `^[a-z]([-a-z0-9]*[a-z0-9])?$`
fn dns1035_label_matches(s: &[u8]) -> bool {
    match (s.first(), s.last()) {
        (Some(&f), Some(&l)) => {
            f.is_ascii_lowercase()
                && lower_alnum(l)
                && s.iter().all(|&b| lower_alnum(b) || b == b'-')
        }
        _ => false,
    }
}

/// `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`
fn label_key_name_matches(s: &[u8]) -> bool {
    match (s.first(), s.last()) {
        (Some(&f), Some(&l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && s.iter()
                    .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// `validation.IsDNS1123Subdomain` (`pkg/util/validation`: lengths in characters).
pub fn is_dns1123_subdomain(value: &(impl AsRef<[u8]> + ?Sized)) -> Vec<String> {
    let value = value.as_ref();
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push("must be no more than 253 characters".to_owned());
    }
    if !dns1123_subdomain_matches(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `content.IsDNS1123Subdomain` (lengths in bytes).
fn content_is_dns1123_subdomain(value: &(impl AsRef<[u8]> + ?Sized)) -> Vec<String> {
    let value = value.as_ref();
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push("must be no more than 253 bytes".to_owned());
    }
    if !dns1123_subdomain_matches(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `validation.IsDNS1123Label`.
pub fn is_dns1123_label(value: &(impl AsRef<[u8]> + ?Sized)) -> Vec<String> {
    let value = value.as_ref();
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push("must be no more than 63 characters".to_owned());
    }
    if !dns1123_label_matches(value) {
        if dns1123_subdomain_matches(value) {
            errs.push("must not contain dots".to_owned());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_MSG,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// `validation.IsDNS1035Label`.
pub fn is_dns1035_label(value: &(impl AsRef<[u8]> + ?Sized)) -> Vec<String> {
    let value = value.as_ref();
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push("must be no more than 63 characters".to_owned());
    }
    if !dns1035_label_matches(value) {
        errs.push(regex_error(
            DNS1035_LABEL_MSG,
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// `validation.IsQualifiedName` (`content.IsLabelKey`).
pub fn is_qualified_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_owned());
            } else {
                for m in content_is_dns1123_subdomain(prefix) {
                    errs.push(format!("prefix part {m}"));
                }
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 bytes".to_owned());
    }
    if !label_key_name_matches(name.as_bytes()) {
        errs.push(format!(
            "name part {}",
            regex_error(
                LABEL_KEY_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// `validation.IsValidLabelValue`.
pub fn is_valid_label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push("must be no more than 63 bytes".to_owned());
    }
    if !value.is_empty() && !label_key_name_matches(value.as_bytes()) {
        errs.push(regex_error(
            LABEL_VALUE_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// apimachinery's `maskTrailingDash` (the `*Prefix` name checks: a generated name's prefix may
/// end in `-`): a trailing `-` on a name of two bytes or more makes its last two bytes `a`.
/// Bytes, as Go slices them: a cut inside a character leaves its first bytes, which then fail
/// the pattern as the server's do.
pub fn mask_trailing_dash(name: &str) -> Vec<u8> {
    let b = name.as_bytes();
    match b {
        [head @ .., _, b'-'] => {
            let mut v = head.to_vec();
            v.push(b'a');
            v
        }
        _ => b.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Go's RegexError writes "'my-name', " then " or ": two spaces before "or".
    const LABEL_REGEX: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric \
        characters or '-', and must start and end with an alphanumeric character (e.g. \
        'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

    #[test]
    fn dns_names_count_characters() {
        // pkg/util/validation: IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label (MaxLenError).
        assert!(is_dns1123_label("my-name").is_empty());
        assert_eq!(is_dns1123_label("a.b"), ["must not contain dots"]);
        assert_eq!(is_dns1123_label("A"), [LABEL_REGEX]);
        assert_eq!(
            is_dns1123_label(&"a".repeat(64)),
            ["must be no more than 63 characters"]
        );
        assert_eq!(
            is_dns1123_subdomain(&"a".repeat(254))[0],
            "must be no more than 253 characters"
        );
        assert!(is_dns1123_subdomain("example.com").is_empty());
        assert_eq!(is_dns1123_subdomain("").len(), 1);
        assert!(is_dns1035_label("abc-123").is_empty());
        assert_eq!(is_dns1035_label("1abc").len(), 1);
        assert_eq!(
            is_dns1035_label(&"a".repeat(64)),
            ["must be no more than 63 characters"]
        );
    }

    #[test]
    fn label_keys_and_values_count_bytes() {
        // pkg/api/validate/content: IsLabelKey (validation.IsQualifiedName), IsLabelValue
        // (validation.IsValidLabelValue), and the prefix's content.IsDNS1123Subdomain.
        assert!(is_qualified_name("example.com/MyName").is_empty());
        assert_eq!(
            is_qualified_name(&"a".repeat(64)),
            ["name part must be no more than 63 bytes"]
        );
        assert_eq!(
            is_qualified_name(&format!("{}/a", "a".repeat(254))),
            ["prefix part must be no more than 253 bytes"]
        );
        assert_eq!(is_qualified_name("/a"), ["prefix part must be non-empty"]);
        assert_eq!(is_qualified_name("a/").len(), 2);
        assert_eq!(is_qualified_name("a/b/c").len(), 1);
        assert!(is_valid_label_value("").is_empty());
        assert_eq!(
            is_valid_label_value(&"a".repeat(64)),
            ["must be no more than 63 bytes"]
        );
        assert_eq!(is_valid_label_value("-x").len(), 1);
    }

    #[test]
    fn trailing_dash_is_masked_in_bytes() {
        assert_eq!(mask_trailing_dash("abc-"), b"aba");
        assert_eq!(mask_trailing_dash("a-"), b"a");
        assert_eq!(mask_trailing_dash("-"), b"-");
        assert_eq!(mask_trailing_dash("ab"), b"ab");
        // A cut inside 'é' (two bytes) keeps its first byte, as Go's slice does.
        assert_eq!(mask_trailing_dash("xé-"), [b'x', 0xc3, b'a']);
    }
}
