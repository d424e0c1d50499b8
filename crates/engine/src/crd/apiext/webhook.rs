//! Conversion webhook checks of `k8s.io/apiserver/pkg/util/webhook/validation.go`
//! (`ValidateWebhookURL`, `ValidateWebhookService`, `ValidateCABundle`), with the pieces of
//! the TLS setup they depend on (URLs are parsed by [`crd_studio_gostd::url`]).

use crate::documents::field_error::{BadValue, FieldError};
use crate::documents::path::FieldPath;
use crd_studio_gostd::url::Url;

use crate::object::objectmeta::validation::{is_dns1123_subdomain, is_valid_port_num};

/// `ValidateWebhookURL(path, url, forceHttps)`.
pub fn validate_webhook_url(path: &FieldPath, url: &str, force_https: bool) -> Vec<FieldError> {
    const FORM: &str = "; desired format: https://host[/path]";
    let mut errs = Vec::new();
    match Url::parse(url) {
        Err(e) => errs.push(FieldError::required(
            path.clone(),
            format!("url must be a valid URL: {e}{FORM}"),
        )),
        Ok(u) => {
            if force_https && u.scheme() != "https" {
                errs.push(FieldError::invalid(
                    path.clone(),
                    BadValue::Str(u.scheme().to_owned()),
                    format!("'https' is the only allowed URL scheme{FORM}"),
                ));
            }
            if u.host().is_empty() {
                errs.push(FieldError::invalid(
                    path.clone(),
                    BadValue::Str(u.host().to_owned()),
                    format!("host must be specified{FORM}"),
                ));
            }
            if let Some(user) = u.user() {
                errs.push(FieldError::invalid(
                    path.clone(),
                    BadValue::Str(user),
                    "user information is not permitted in the URL",
                ));
            }
            if !u.fragment().is_empty() {
                errs.push(FieldError::invalid(
                    path.clone(),
                    BadValue::Str(u.fragment().to_owned()),
                    "fragments are not permitted in the URL",
                ));
            }
            if !u.raw_query().is_empty() {
                errs.push(FieldError::invalid(
                    path.clone(),
                    BadValue::Str(u.raw_query().to_owned()),
                    "query parameters are not permitted in the URL",
                ));
            }
        }
    }
    errs
}

/// `ValidateWebhookService(path, namespace, name, path, port)`.
pub fn validate_webhook_service(
    path: &FieldPath,
    namespace: &str,
    name: &str,
    url_path: Option<&str>,
    port: i64,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if name.is_empty() {
        errs.push(FieldError::required(path.child("name"), ""));
    }
    if namespace.is_empty() {
        errs.push(FieldError::required(path.child("namespace"), ""));
    }
    let port_errs = is_valid_port_num(port);
    if !port_errs.is_empty() {
        errs.push(FieldError::invalid(
            path.child("port"),
            BadValue::Int(port),
            format!("port is not valid: {}", port_errs.join(", ")),
        ));
    }
    let Some(url_path) = url_path else {
        return errs;
    };
    if url_path == "/" || url_path.is_empty() {
        return errs;
    }
    let pp = path.child("path");
    let bad = || BadValue::Str(url_path.to_owned());
    if url_path == "//" {
        errs.push(FieldError::invalid(
            pp,
            bad(),
            "segment[0] may not be empty",
        ));
        return errs;
    }
    if !url_path.starts_with('/') {
        errs.push(FieldError::invalid(
            pp.clone(),
            bad(),
            "must start with a '/'",
        ));
    }
    // Go drops the first byte whatever it is.
    let mut check = url_path.get(1..).unwrap_or("");
    if let Some(c) = check.strip_suffix('/') {
        check = c;
    }
    for (i, step) in check.split('/').enumerate() {
        if step.is_empty() {
            errs.push(FieldError::invalid(
                pp.clone(),
                bad(),
                format!("segment[{i}] may not be empty"),
            ));
            continue;
        }
        for failure in is_dns1123_subdomain(step.as_bytes()) {
            errs.push(FieldError::invalid(
                pp.clone(),
                bad(),
                format!("segment[{i}]: {failure}"),
            ));
        }
    }
    errs
}

// ------------------------------------------------------------------------------------------
// CA bundles
// ------------------------------------------------------------------------------------------

/// One PEM block (`pem.Block`).
struct PemBlock {
    type_: String,
    has_headers: bool,
    bytes: Vec<u8>,
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    (0..=hay.len() - needle.len()).find(|&i| hay.get(i..i + needle.len()) == Some(needle))
}

/// `pem.Decode`: the first block in `data` and the rest, or `None` when there is none.
fn pem_decode(data: &[u8]) -> Option<(PemBlock, &[u8])> {
    let mut rest = data;
    loop {
        // The BEGIN line must start the data or a line.
        let start = if rest.starts_with(b"-----BEGIN ") {
            0
        } else {
            find(rest, b"\n-----BEGIN ")? + 1
        };
        let after = rest.get(start + 11..)?;
        let line_end = after
            .iter()
            .position(|b| *b == b'\n')
            .unwrap_or(after.len());
        let line = after.get(..line_end)?;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = trim_trailing_ws(line);
        let Some(type_bytes) = line.strip_suffix(b"-----") else {
            rest = after;
            continue;
        };
        let type_ = String::from_utf8_lossy(type_bytes).into_owned();
        let body = after.get((line_end + 1).min(after.len())..)?;
        // Headers: "Key: value" lines up to a blank line.
        let mut has_headers = false;
        let mut content = body;
        let mut probe = body;
        loop {
            let le = probe.iter().position(|b| *b == b'\n');
            let l = match le {
                Some(i) => probe.get(..i)?,
                None => probe,
            };
            let lt = trim_trailing_ws(l);
            if lt.is_empty() {
                if has_headers {
                    content = le.and_then(|i| probe.get(i + 1..)).unwrap_or(&[]);
                }
                break;
            }
            if lt.contains(&b':') && !lt.starts_with(b"-----") {
                has_headers = true;
                probe = le.and_then(|i| probe.get(i + 1..)).unwrap_or(&[]);
                content = probe;
                continue;
            }
            break;
        }
        let end_marker = format!("-----END {type_}-----");
        let (b64, tail) = if content.starts_with(end_marker.as_bytes()) {
            (&[] as &[u8], content.get(end_marker.len()..).unwrap_or(&[]))
        } else {
            let marker = format!("\n{end_marker}");
            let Some(i) = find(content, marker.as_bytes()) else {
                rest = after;
                continue;
            };
            (
                content.get(..i)?,
                content.get(i + marker.len()..).unwrap_or(&[]),
            )
        };
        let clean: String = b64
            .iter()
            .filter(|b| !b.is_ascii_whitespace())
            .map(|b| *b as char)
            .collect();
        let Some(bytes) = crd_studio_gostd::base64::decode(&clean) else {
            rest = after;
            continue;
        };
        // The END line must end the line.
        let tail_line_end = tail.iter().position(|b| *b == b'\n').unwrap_or(tail.len());
        if !trim_trailing_ws(tail.get(..tail_line_end)?).is_empty() {
            rest = after;
            continue;
        }
        let rest_out = tail
            .get((tail_line_end + 1).min(tail.len())..)
            .unwrap_or(&[]);
        return Some((
            PemBlock {
                type_,
                has_headers,
                bytes,
            },
            rest_out,
        ));
    }
}

fn trim_trailing_ws(b: &[u8]) -> &[u8] {
    let mut end = b.len();
    while end > 0 && matches!(b.get(end - 1), Some(b' ' | b'\t' | b'\r')) {
        end -= 1;
    }
    b.get(..end).unwrap_or(b)
}

/// One DER element: (tag, content, rest).
fn der_element(b: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let tag = *b.first()?;
    let first_len = *b.get(1)?;
    let (len, hdr) = if first_len & 0x80 == 0 {
        (first_len as usize, 2)
    } else {
        let n = (first_len & 0x7f) as usize;
        if n == 0 || n > 4 {
            return None;
        }
        let mut len = 0usize;
        for i in 0..n {
            len = (len << 8) | *b.get(2 + i)? as usize;
        }
        (len, 2 + n)
    };
    let content = b.get(hdr..hdr.checked_add(len)?)?;
    Some((tag, content, b.get(hdr + len..)?))
}

/// A structural check of an X.509 certificate (`x509.ParseCertificate` parses much more):
/// a DER SEQUENCE of the to-be-signed SEQUENCE, the algorithm SEQUENCE and the signature
/// BIT STRING, with nothing after it.
fn parses_as_certificate(der: &[u8]) -> bool {
    let Some((0x30, body, rest)) = der_element(der) else {
        return false;
    };
    if !rest.is_empty() {
        return false;
    }
    let Some((0x30, tbs, body)) = der_element(body) else {
        return false;
    };
    let Some((0x30, _, body)) = der_element(body) else {
        return false;
    };
    let Some((0x03, _, body)) = der_element(body) else {
        return false;
    };
    // The to-be-signed part starts with an optional [0] version, then the serial INTEGER.
    let tbs_ok = match der_element(tbs) {
        Some((0xa0, _, r)) => matches!(der_element(r), Some((0x02, _, _))),
        Some((0x02, _, _)) => true,
        _ => false,
    };
    body.is_empty() && tbs_ok
}

/// Why a CA bundle cannot be used (`transport.TLSConfigFor` with the bundle as CA data), or
/// `None` when it can.
pub fn ca_bundle_error(ca: &[u8]) -> Option<String> {
    if ca.is_empty() {
        return None;
    }
    // AppendCertsFromPEM: any parsable certificate makes the bundle usable.
    let mut rest = ca;
    let mut any = false;
    while let Some((block, r)) = pem_decode(rest) {
        rest = r;
        if block.type_ == "CERTIFICATE" && !block.has_headers && parses_as_certificate(&block.bytes)
        {
            any = true;
            break;
        }
    }
    if any {
        return None;
    }
    // createErrorParsingCAData.
    let mut rest = ca;
    let inner = loop {
        if rest.is_empty() {
            break "no valid certificate authority data seen".to_owned();
        }
        let Some((block, r)) = pem_decode(rest) else {
            break "unable to parse bytes as PEM block".to_owned();
        };
        rest = r;
        if block.type_ != "CERTIFICATE" || block.has_headers {
            continue;
        }
        if !parses_as_certificate(&block.bytes) {
            break "failed to parse certificate: x509: malformed certificate".to_owned();
        }
    };
    Some(format!("unable to load root certificates: {inner}"))
}

/// `ValidateCABundle(path, caBundle)`.
pub fn validate_ca_bundle(path: &FieldPath, ca: &[u8]) -> Vec<FieldError> {
    match ca_bundle_error(ca) {
        None => Vec::new(),
        Some(e) => vec![FieldError::invalid(
            path.clone(),
            BadValue::Raw(crd_studio_gostd::json::bytes(ca)),
            e,
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webhook_url_errors() {
        let errs = validate_webhook_url(&FieldPath::new("url"), "http://a@/x?y#z", true);
        let details: Vec<&str> = errs.iter().map(|e| e.detail.as_str()).collect();
        assert_eq!(details.len(), 5, "{details:?}");
    }

    #[test]
    fn service_paths() {
        let p = FieldPath::new("service");
        assert!(validate_webhook_service(&p, "ns", "n", Some("/convert"), 443).is_empty());
        let errs = validate_webhook_service(&p, "", "", Some("foo//Bar/"), 0);
        let text: Vec<String> = errs.iter().map(FieldError::error).collect();
        assert_eq!(text[0], "service.name: Required value");
        assert_eq!(text[2], "service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive");
        assert!(text.iter().any(|t| t.contains("must start with a '/'")));
        assert!(text
            .iter()
            .any(|t| t.contains("segment[1] may not be empty")));
        assert!(text
            .iter()
            .any(|t| t.contains("segment[2]: a lowercase RFC 1123")));
    }

    #[test]
    fn ca_bundles() {
        assert_eq!(
            ca_bundle_error(b"\n").as_deref(),
            Some("unable to load root certificates: unable to parse bytes as PEM block")
        );
        assert_eq!(
            ca_bundle_error(b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
                .as_deref(),
            Some("unable to load root certificates: failed to parse certificate: x509: malformed certificate")
        );
        // A minimal well-formed structure: SEQ { SEQ { [0] {INT}, INT }, SEQ {}, BIT STRING }.
        let der: Vec<u8> = vec![
            0x30, 0x0e, 0x30, 0x07, 0xa0, 0x03, 0x02, 0x01, 0x02, 0x02, 0x00, 0x30, 0x00, 0x03,
            0x01, 0x00,
        ];
        let pem = format!(
            "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
            crd_studio_gostd::base64::encode(&der)
        );
        assert_eq!(ca_bundle_error(pem.as_bytes()), None);
    }
}
