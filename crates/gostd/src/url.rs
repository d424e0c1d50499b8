//! Go's `net/url` (Go 1.26): `url.Parse`, `url.ParseRequestURI`, the accessors (`Hostname`,
//! `Port`, `EscapedPath`, `Query`) and `String()`, with Go's error texts
//! (`parse "x": invalid URI for request`).

use std::fmt;

/// A parsed URL (Go's `url.URL`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Url {
    scheme: String,
    opaque: String,
    user: Option<(String, Option<String>)>,
    host: String,
    path: String,
    raw_path: String,
    omit_host: bool,
    force_query: bool,
    raw_query: String,
    fragment: String,
    raw_fragment: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

fn is_hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

fn unhex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if mode == Mode::Host || mode == Mode::Zone {
        match c {
            b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=' | b':'
            | b'[' | b']' | b'<' | b'>' | b'"' => return false,
            _ => {}
        }
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => {
            return match mode {
                Mode::Path => c == b'?',
                Mode::UserPassword => c == b'@' || c == b'/' || c == b'?' || c == b':',
                Mode::QueryComponent => true,
                Mode::Fragment => false,
                _ => true,
            }
        }
        _ => {}
    }
    if mode == Mode::Fragment {
        if let b'!' | b'(' | b')' | b'*' = c {
            return false;
        }
    }
    true
}

/// `strconv.Quote` (what `%q` and the `EscapeError`/`InvalidHostError` texts use): Go's escapes
/// for control and non-printable characters, `\xNN` for bytes that are not UTF-8.
fn go_quote(s: &str) -> String {
    crate::strconv::quote(s)
}

/// `EscapeError(s[i:i+3])` (at most three bytes from the `%`, which may cut a character).
fn escape_error(s: &str, i: usize) -> String {
    let b = s.as_bytes();
    let end = (i + 3).min(b.len());
    format!(
        "invalid URL escape {}",
        crate::strconv::quote_bytes(b.get(i..end).unwrap_or(&[]))
    )
}

/// Go's `url.unescape`.
fn unescape(s: &str, mode: Mode) -> Result<String, String> {
    let b = s.as_bytes();
    let mut n = 0;
    let mut has_plus = false;
    let mut i = 0;
    while i < b.len() {
        match b.get(i).copied().unwrap_or(0) {
            b'%' => {
                n += 1;
                let (Some(&h), Some(&l)) = (b.get(i + 1), b.get(i + 2)) else {
                    return Err(escape_error(s, i));
                };
                if !is_hex(h) || !is_hex(l) {
                    return Err(escape_error(s, i));
                }
                let is_pct25 = b.get(i..i + 3) == Some(b"%25".as_slice());
                if mode == Mode::Host && unhex(h) < 8 && !is_pct25 {
                    return Err(escape_error(s, i));
                }
                if mode == Mode::Zone {
                    let v = unhex(h) << 4 | unhex(l);
                    if !is_pct25 && v != b' ' && should_escape(v, Mode::Host) {
                        return Err(escape_error(s, i));
                    }
                }
                i += 3;
            }
            b'+' => {
                has_plus = mode == Mode::QueryComponent;
                i += 1;
            }
            c => {
                if (mode == Mode::Host || mode == Mode::Zone) && c < 0x80 && should_escape(c, mode)
                {
                    return Err(format!(
                        "invalid character {} in host name",
                        go_quote(&char::from(c).to_string())
                    ));
                }
                i += 1;
            }
        }
    }
    if n == 0 && !has_plus {
        return Ok(s.to_string());
    }
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b.get(i).copied().unwrap_or(0) {
            b'%' => {
                let h = b.get(i + 1).copied().unwrap_or(b'0');
                let l = b.get(i + 2).copied().unwrap_or(b'0');
                out.push(unhex(h) << 4 | unhex(l));
                i += 3;
            }
            b'+' => {
                out.push(if mode == Mode::QueryComponent {
                    b' '
                } else {
                    b'+'
                });
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Go's `url.escape`.
fn escape(s: &str, mode: Mode) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        if should_escape(c, mode) {
            if c == b' ' && mode == Mode::QueryComponent {
                out.push('+');
            } else {
                out.push('%');
                out.push_str(&format!("{c:02X}"));
            }
        } else {
            out.push(char::from(c));
        }
    }
    out
}

fn get_scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' => {
                if i == 0 {
                    return Ok(("", raw));
                }
            }
            b':' => {
                if i == 0 {
                    return Err("missing protocol scheme".into());
                }
                return Ok((raw.get(..i).unwrap_or(""), raw.get(i + 1..).unwrap_or("")));
            }
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

fn valid_optional_port(port: &str) -> bool {
    if port.is_empty() {
        return true;
    }
    let Some(rest) = port.strip_prefix(':') else {
        return false;
    };
    rest.bytes().all(|b| b.is_ascii_digit())
}

/// Go 1.26's `parseHost`: a bracketed host must be an IPv6 address (optionally with a zone)
/// and start the authority; an http or https host may hold one colon only (Go 1.26's default
/// `urlstrictcolons=1`), other schemes take the last colon as the port's.
fn parse_host(scheme: &str, host: &str) -> Result<String, String> {
    match host.rfind('[') {
        Some(open) if open > 0 => return Err("invalid IP-literal".into()),
        Some(_) => {
            let Some(close) = host.rfind(']') else {
                return Err("missing ']' in host".into());
            };
            let colon_port = host.get(close + 1..).unwrap_or("");
            if !valid_optional_port(colon_port) {
                return Err(format!("invalid port {} after host", go_quote(colon_port)));
            }
            let port = unescape(colon_port, Mode::Host)?;
            let hostname = host.get(1..close).unwrap_or("");
            let unescaped = match hostname.find("%25") {
                Some(zone) => {
                    unescape(hostname.get(..zone).unwrap_or(""), Mode::Host)?
                        + &unescape(hostname.get(zone..).unwrap_or(""), Mode::Zone)?
                }
                None => unescape(hostname, Mode::Host)?,
            };
            let (ip, _) =
                crate::net::parse_addr(&unescaped).map_err(|e| format!("invalid host: {e}"))?;
            if ip.family() == 4 {
                return Err("invalid IP-literal".into());
            }
            return Ok(format!("[{unescaped}]{port}"));
        }
        None => {
            if let Some(first) = host.find(':') {
                let last = host.rfind(':').unwrap_or(first);
                let i = if scheme == "http" || scheme == "https" {
                    first
                } else {
                    last
                };
                let colon_port = host.get(i..).unwrap_or("");
                if !valid_optional_port(colon_port) {
                    return Err(format!("invalid port {} after host", go_quote(colon_port)));
                }
            }
        }
    }
    unescape(host, Mode::Host)
}

/// `validUserinfo`: ASCII letters, digits and RFC 3986's userinfo punctuation (and `@`); any
/// other character, non-ASCII included, makes `net/url: invalid userinfo`.
fn valid_userinfo(s: &str) -> bool {
    s.chars().all(|r| {
        r.is_ascii_alphanumeric()
            || matches!(
                r,
                '-' | '.'
                    | '_'
                    | ':'
                    | '~'
                    | '!'
                    | '$'
                    | '&'
                    | '\''
                    | '('
                    | ')'
                    | '*'
                    | '+'
                    | ','
                    | ';'
                    | '='
                    | '%'
                    | '@'
            )
    })
}

impl Url {
    fn set_path(&mut self, p: &str) -> Result<(), String> {
        let path = unescape(p, Mode::Path)?;
        self.raw_path = if escape(&path, Mode::Path) == p {
            String::new()
        } else {
            p.to_string()
        };
        self.path = path;
        Ok(())
    }

    fn parse_inner(raw: &str, via_request: bool) -> Result<Url, String> {
        if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
            return Err("net/url: invalid control character in URL".into());
        }
        if raw.is_empty() && via_request {
            return Err("empty url".into());
        }
        let mut url = Url::default();
        if raw == "*" {
            url.path = "*".into();
            return Ok(url);
        }
        let (scheme, mut rest) = get_scheme(raw)?;
        url.scheme = scheme.to_ascii_lowercase();
        let rest_owned;
        if rest.ends_with('?') && rest.matches('?').count() == 1 {
            url.force_query = true;
            rest_owned = rest.get(..rest.len() - 1).unwrap_or("").to_string();
            rest = &rest_owned;
        } else if let Some((a, q)) = rest.split_once('?') {
            url.raw_query = q.to_string();
            rest = a;
        }
        if !rest.starts_with('/') {
            if !url.scheme.is_empty() {
                url.opaque = rest.to_string();
                return Ok(url);
            }
            if via_request {
                return Err("invalid URI for request".into());
            }
            let segment = rest.split('/').next().unwrap_or("");
            if segment.contains(':') {
                return Err("first path segment in URL cannot contain colon".into());
            }
        }
        let mut path = rest;
        if (!url.scheme.is_empty() || !via_request && !rest.starts_with("///"))
            && rest.starts_with("//")
        {
            let mut authority = rest.get(2..).unwrap_or("");
            path = "";
            if let Some(i) = authority.find('/') {
                path = authority.get(i..).unwrap_or("");
                authority = authority.get(..i).unwrap_or("");
            }
            let (host_part, user_part) = match authority.rfind('@') {
                Some(i) => (
                    authority.get(i + 1..).unwrap_or(""),
                    Some(authority.get(..i).unwrap_or("")),
                ),
                None => (authority, None),
            };
            url.host = parse_host(&url.scheme, host_part)?;
            if let Some(ui) = user_part {
                if !valid_userinfo(ui) {
                    return Err("net/url: invalid userinfo".into());
                }
                url.user = Some(match ui.split_once(':') {
                    None => (unescape(ui, Mode::UserPassword)?, None),
                    Some((u, p)) => (
                        unescape(u, Mode::UserPassword)?,
                        Some(unescape(p, Mode::UserPassword)?),
                    ),
                });
            }
        } else if !url.scheme.is_empty() && rest.starts_with('/') {
            url.omit_host = true;
        }
        url.set_path(path)?;
        Ok(url)
    }

    /// `url.Parse`.
    pub fn parse(raw: &str) -> Result<Url, String> {
        let (u, frag) = match raw.split_once('#') {
            Some((u, f)) => (u, Some(f)),
            None => (raw, None),
        };
        let mut url =
            Url::parse_inner(u, false).map_err(|e| format!("parse {}: {e}", go_quote(u)))?;
        if let Some(frag) = frag {
            if !frag.is_empty() {
                let f = unescape(frag, Mode::Fragment)
                    .map_err(|e| format!("parse {}: {e}", go_quote(raw)))?;
                url.raw_fragment = if escape(&f, Mode::Fragment) == frag {
                    String::new()
                } else {
                    frag.to_string()
                };
                url.fragment = f;
            }
        }
        Ok(url)
    }

    /// `url.ParseRequestURI`.
    pub fn parse_request_uri(raw: &str) -> Result<Url, String> {
        Url::parse_inner(raw, true).map_err(|e| format!("parse {}: {e}", go_quote(raw)))
    }

    /// The scheme (lower case).
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// The host with its port.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// `User.String()` when there is user information: the escaped user name, and `:` and
    /// the escaped password when one was given.
    pub fn user(&self) -> Option<String> {
        self.user.as_ref().map(|(u, p)| {
            let mut s = escape(u, Mode::UserPassword);
            if let Some(p) = p {
                s.push(':');
                s.push_str(&escape(p, Mode::UserPassword));
            }
            s
        })
    }

    /// `RawQuery`: the query without its `?`, as written.
    pub fn raw_query(&self) -> &str {
        &self.raw_query
    }

    /// `Fragment`: the fragment without its `#`, unescaped.
    pub fn fragment(&self) -> &str {
        &self.fragment
    }

    fn split_host_port(&self) -> (&str, &str) {
        let mut host = self.host.as_str();
        let mut port = "";
        if let Some(colon) = host.rfind(':') {
            if valid_optional_port(host.get(colon..).unwrap_or("")) {
                port = host.get(colon + 1..).unwrap_or("");
                host = host.get(..colon).unwrap_or("");
            }
        }
        if host.starts_with('[') && host.ends_with(']') && host.len() >= 2 {
            host = host.get(1..host.len() - 1).unwrap_or("");
        }
        (host, port)
    }

    /// `Hostname()`.
    pub fn hostname(&self) -> &str {
        self.split_host_port().0
    }

    /// `Port()`.
    pub fn port(&self) -> &str {
        self.split_host_port().1
    }

    /// `EscapedPath()`.
    pub fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty() && valid_encoded(&self.raw_path) {
            if let Ok(p) = unescape(&self.raw_path, Mode::Path) {
                if p == self.path {
                    return self.raw_path.clone();
                }
            }
        }
        if self.path == "*" {
            return "*".into();
        }
        escape(&self.path, Mode::Path)
    }

    /// `Query()`: keys in first-appearance order, each with its values.
    pub fn query(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for part in self.raw_query.split('&') {
            if part.is_empty() || part.contains(';') {
                continue;
            }
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            let (Ok(k), Ok(v)) = (
                unescape(k, Mode::QueryComponent),
                unescape(v, Mode::QueryComponent),
            ) else {
                continue;
            };
            match out.iter_mut().find(|(kk, _)| *kk == k) {
                Some((_, vs)) => vs.push(v),
                None => out.push((k, vec![v])),
            }
        }
        out
    }

    fn escaped_fragment(&self) -> String {
        if !self.raw_fragment.is_empty() {
            if let Ok(f) = unescape(&self.raw_fragment, Mode::Fragment) {
                if f == self.fragment {
                    return self.raw_fragment.clone();
                }
            }
        }
        escape(&self.fragment, Mode::Fragment)
    }
}

fn valid_encoded(s: &str) -> bool {
    for &c in s.as_bytes() {
        match c {
            b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=' | b':'
            | b'@' | b'[' | b']' | b'%' => {}
            _ => {
                if should_escape(c, Mode::Path) {
                    return false;
                }
            }
        }
    }
    true
}

impl fmt::Display for Url {
    /// Go's `URL.String()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = String::new();
        if !self.scheme.is_empty() {
            buf.push_str(&self.scheme);
            buf.push(':');
        }
        if !self.opaque.is_empty() {
            buf.push_str(&self.opaque);
        } else {
            if !self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some() {
                if self.omit_host && self.host.is_empty() && self.user.is_none() {
                    // Omit the empty host.
                } else {
                    if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                        buf.push_str("//");
                    }
                    if let Some(user) = self.user() {
                        buf.push_str(&user);
                        buf.push('@');
                    }
                    if !self.host.is_empty() {
                        buf.push_str(&escape(&self.host, Mode::Host));
                    }
                }
            }
            let path = self.escaped_path();
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                buf.push('/');
            }
            if buf.is_empty() {
                let segment = path.split('/').next().unwrap_or("");
                if segment.contains(':') {
                    buf.push_str("./");
                }
            }
            buf.push_str(&path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            buf.push('?');
            buf.push_str(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            buf.push('#');
            buf.push_str(&self.escaped_fragment());
        }
        f.write_str(&buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessors() {
        let u = Url::parse("https://example.com:80/path?k1=a&k2=b&k2=c").unwrap();
        assert_eq!(
            (u.scheme(), u.host(), u.hostname(), u.port()),
            ("https", "example.com:80", "example.com", "80")
        );
        assert_eq!(u.escaped_path(), "/path");
        assert_eq!(
            u.query(),
            vec![
                ("k1".into(), vec!["a".into()]),
                ("k2".into(), vec!["b".into(), "c".into()])
            ]
        );
        let u = Url::parse("https://[::1]:80/").unwrap();
        assert_eq!((u.host(), u.hostname()), ("[::1]:80", "::1"));
        let u = Url::parse("https://example.com/path?key with spaces=value with spaces").unwrap();
        assert_eq!(
            u.query(),
            vec![("key with spaces".into(), vec!["value with spaces".into()])]
        );
        assert_eq!(Url::parse("/path").unwrap().scheme(), "");
    }

    #[test]
    fn request_uris() {
        assert!(
            Url::parse_request_uri("https://user:pass@example.com:80/path?query=val#fragment")
                .is_ok()
        );
        assert!(Url::parse_request_uri("/path").is_ok());
        assert_eq!(
            Url::parse_request_uri("https://a:b:c/").unwrap_err(),
            // Go 1.26: an https host holds one colon at most.
            "parse \"https://a:b:c/\": invalid port \":b:c\" after host"
        );
        assert_eq!(
            Url::parse_request_uri("path").unwrap_err(),
            "parse \"path\": invalid URI for request"
        );
        assert_eq!(
            Url::parse("HTTPS://Example.com/a b").unwrap().to_string(),
            "https://Example.com/a%20b"
        );
    }

    #[test]
    fn parse_error_texts() {
        // Go src/net/url/url.go: `Parse` cuts the fragment first and reports errors before it
        // with the URL without the fragment, fragment errors with the whole URL; `parse` rejects
        // a colon in a relative URL's first segment; `Error.Error` quotes with `%q`.
        let cases: &[(&str, &str)] = &[
            (
                "1a:b/c",
                r#"parse "1a:b/c": first path segment in URL cannot contain colon"#,
            ),
            (
                "http://x/%zz#frag",
                r#"parse "http://x/%zz": invalid URL escape "%zz""#,
            ),
            (
                "http://x/#%zz",
                r#"parse "http://x/#%zz": invalid URL escape "%zz""#,
            ),
            (
                "http://x/#%",
                r#"parse "http://x/#%": invalid URL escape "%""#,
            ),
            (":x", r#"parse ":x": missing protocol scheme"#),
            (
                "http://x\u{1b}/",
                r#"parse "http://x\x1b/": net/url: invalid control character in URL"#,
            ),
            (
                "http://x\u{8}/",
                r#"parse "http://x\b/": net/url: invalid control character in URL"#,
            ),
            (
                "http://x%41.com/",
                r#"parse "http://x%41.com/": invalid URL escape "%41""#,
            ),
            (
                "http://[fe80::1%25%0a]/",
                r#"parse "http://[fe80::1%25%0a]/": invalid URL escape "%0a""#,
            ),
        ];
        for (raw, want) in cases {
            assert_eq!(&Url::parse(raw).unwrap_err(), want, "{raw}");
        }
        assert_eq!(
            Url::parse_request_uri("1a:b/c").unwrap_err(),
            r#"parse "1a:b/c": invalid URI for request"#
        );
    }

    #[test]
    fn request_uris_as_the_uri_format_checks_them() {
        for ok in [
            "http://example.com/a?b",
            "/path",
            "*",
            "mailto:x@y",
            "http://[::1]:80/",
            "ftp://a:1:2/",
        ] {
            assert!(Url::parse_request_uri(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "relative/path",
            ":x",
            "http://a b/",
            "http://host:port/",
            "/%zz",
            // Go 1.26 `parseHost`: one colon in an http(s) host, brackets only around IPv6.
            "http://a:1:2/",
            "http://[1.2.3.4]/",
            "http://x[::1]/",
            // `validUserinfo`: ASCII only.
            "http://usér@x/",
        ] {
            assert!(Url::parse_request_uri(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn parts_the_webhook_checks_read() {
        let u = Url::parse("https://user@example.com:8443/p?q=1#frag").unwrap();
        assert_eq!(u.scheme(), "https");
        assert_eq!(u.host(), "example.com:8443");
        assert_eq!(u.user().as_deref(), Some("user"));
        assert_eq!(u.raw_query(), "q=1");
        assert_eq!(u.fragment(), "frag");
        assert_eq!(
            Url::parse(":foo").err().as_deref(),
            Some("parse \":foo\": missing protocol scheme")
        );
        assert_eq!(
            Url::parse("http://host:port").err().as_deref(),
            Some("parse \"http://host:port\": invalid port \":port\" after host")
        );
        assert_eq!(
            Url::parse("a:b/c").map(|u| u.scheme().to_owned()),
            Ok("a".to_owned())
        );
        assert!(
            Url::parse_request_uri("https://github.com/kubernetes/enhancements/pull/1111")
                .is_ok_and(|u| !u.host().is_empty())
        );
        assert!(Url::parse_request_uri("not a url").is_err());
    }
}
