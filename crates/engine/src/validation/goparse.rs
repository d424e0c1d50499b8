//! The Go standard-library parsers behind kube-openapi's string formats, as validity checks:
//! `net/url.ParseRequestURI`, `net/mail.ParseAddress`, `net.ParseIP` (strict, `netip`-based),
//! `k8s.io/utils/net.ParseIPSloppy`/`ParseCIDRSloppy` (leading zeros allowed), `net.ParseMAC`,
//! `time.Parse("2006-01-02", …)` and `time.ParseDuration`.

/// `url.ParseRequestURI(s)` succeeds: the CEL library's `net/url` port (Go 1.26: strict colons
/// in http and https hosts, bracketed hosts must be IPv6 addresses, ASCII-only userinfo), so
/// the `uri` format and CEL's `isURL` agree as they do on the server.
pub fn is_request_uri(raw: &str) -> bool {
    cel_core::k8s_url::Url::parse_request_uri(raw).is_ok()
}

// ---------------------------------------------------------------------------------------
// IP addresses and MACs
// ---------------------------------------------------------------------------------------

/// The forked (pre-Go 1.17) decimal parser: digits, stopping at 0xFFFFFF.
fn dtoi(s: &[u8]) -> Option<(u32, usize)> {
    let mut n: u32 = 0;
    let mut i = 0;
    while let Some(c @ b'0'..=b'9') = s.get(i).copied() {
        n = n * 10 + u32::from(c - b'0');
        if n >= 0xFF_FFFF {
            return None;
        }
        i += 1;
    }
    if i == 0 {
        None
    } else {
        Some((n, i))
    }
}

fn xtoi(s: &[u8]) -> Option<(u32, usize)> {
    let mut n: u32 = 0;
    let mut i = 0;
    while let Some(d) = s.get(i).and_then(|c| (*c as char).to_digit(16)) {
        n = n * 16 + d;
        if n >= 0xFF_FFFF {
            return None;
        }
        i += 1;
    }
    if i == 0 {
        None
    } else {
        Some((n, i))
    }
}

/// The sloppy IPv4 parser (leading zeros allowed): the four bytes.
fn sloppy_v4(s: &[u8]) -> Option<[u8; 4]> {
    let mut p = [0u8; 4];
    let mut s = s;
    for (i, slot) in p.iter_mut().enumerate() {
        if s.is_empty() {
            return None;
        }
        if i > 0 {
            if s.first() != Some(&b'.') {
                return None;
            }
            s = s.get(1..)?;
        }
        let (n, c) = dtoi(s)?;
        if n > 0xFF {
            return None;
        }
        s = s.get(c..)?;
        *slot = n as u8;
    }
    if s.is_empty() {
        Some(p)
    } else {
        None
    }
}

/// The sloppy IPv6 parser of the same fork.
fn sloppy_v6(s: &[u8]) -> Option<[u8; 16]> {
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    let mut s = s;
    if s.len() >= 2 && s.first() == Some(&b':') && s.get(1) == Some(&b':') {
        ellipsis = Some(0);
        s = s.get(2..)?;
        if s.is_empty() {
            return Some(ip);
        }
    }
    let mut i = 0;
    while i < 16 {
        let (n, c) = xtoi(s)?;
        if n > 0xFFFF {
            return None;
        }
        if s.get(c) == Some(&b'.') {
            if ellipsis.is_none() && i != 12 {
                return None;
            }
            if i + 4 > 16 {
                return None;
            }
            let v4 = sloppy_v4(s)?;
            ip.get_mut(i..i + 4)?.copy_from_slice(&v4);
            s = &[];
            i += 4;
            break;
        }
        *ip.get_mut(i)? = (n >> 8) as u8;
        *ip.get_mut(i + 1)? = n as u8;
        i += 2;
        s = s.get(c..)?;
        if s.is_empty() {
            break;
        }
        if s.first() != Some(&b':') || s.len() == 1 {
            return None;
        }
        s = s.get(1..)?;
        if s.first() == Some(&b':') {
            if ellipsis.is_some() {
                return None;
            }
            ellipsis = Some(i);
            s = s.get(1..)?;
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return None;
    }
    if i < 16 {
        let e = ellipsis?;
        let n = 16 - i;
        for j in (e..i).rev() {
            let v = *ip.get(j)?;
            *ip.get_mut(j + n)? = v;
        }
        for j in e..e + n {
            *ip.get_mut(j)? = 0;
        }
    } else if ellipsis.is_some() {
        return None;
    }
    Some(ip)
}

/// `k8s.io/utils/net.ParseIPSloppy(s) != nil`.
pub fn parse_ip_sloppy_ok(s: &str) -> bool {
    for b in s.bytes() {
        match b {
            b'.' => return sloppy_v4(s.as_bytes()).is_some(),
            b':' => return sloppy_v6(s.as_bytes()).is_some(),
            _ => {}
        }
    }
    false
}

/// `k8s.io/utils/net.ParseCIDRSloppy(s)` succeeds.
pub fn parse_cidr_sloppy_ok(s: &str) -> bool {
    let Some(i) = s.find('/') else {
        return false;
    };
    let (addr, mask) = (&s[..i], &s[i + 1..]);
    let iplen = if sloppy_v4(addr.as_bytes()).is_some() {
        4
    } else if sloppy_v6(addr.as_bytes()).is_some() {
        16
    } else {
        return false;
    };
    match dtoi(mask.as_bytes()) {
        Some((n, used)) => used == mask.len() && n <= 8 * iplen,
        None => false,
    }
}

/// The strict IPv4 parser of `net/netip` (no leading zeros).
fn strict_v4(s: &[u8]) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut field = 0usize;
    let mut val: u32 = 0;
    let mut digits = 0;
    for &c in s {
        if c.is_ascii_digit() {
            if digits == 1 && val == 0 {
                return None; // leading zero
            }
            val = val * 10 + u32::from(c - b'0');
            digits += 1;
            if val > 255 {
                return None;
            }
        } else if c == b'.' {
            if digits == 0 || field == 3 {
                return None;
            }
            *out.get_mut(field)? = val as u8;
            field += 1;
            val = 0;
            digits = 0;
        } else {
            return None;
        }
    }
    if field != 3 || digits == 0 {
        return None;
    }
    *out.get_mut(3)? = val as u8;
    Some(out)
}

/// The strict IPv6 parser of `net/netip` (at most four hex digits a field; a zone makes
/// `net.ParseIP` fail).
fn strict_v6(s: &[u8]) -> Option<[u8; 16]> {
    if s.contains(&b'%') {
        return None;
    }
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    let mut s = s;
    if s.len() >= 2 && s.first() == Some(&b':') && s.get(1) == Some(&b':') {
        ellipsis = Some(0);
        s = s.get(2..)?;
        if s.is_empty() {
            return Some(ip);
        }
    }
    let mut i = 0;
    while i < 16 {
        let mut off = 0;
        let mut acc: u32 = 0;
        while let Some(d) = s.get(off).and_then(|c| (*c as char).to_digit(16)) {
            acc = (acc << 4) + d;
            if off > 3 || acc > 0xFFFF {
                return None;
            }
            off += 1;
        }
        if off == 0 {
            return None;
        }
        if s.get(off) == Some(&b'.') {
            if ellipsis.is_none() && i != 12 {
                return None;
            }
            if i + 4 > 16 {
                return None;
            }
            let v4 = strict_v4(s)?;
            ip.get_mut(i..i + 4)?.copy_from_slice(&v4);
            s = &[];
            i += 4;
            break;
        }
        *ip.get_mut(i)? = (acc >> 8) as u8;
        *ip.get_mut(i + 1)? = acc as u8;
        i += 2;
        s = s.get(off..)?;
        if s.is_empty() {
            break;
        }
        if s.first() != Some(&b':') || s.len() == 1 {
            return None;
        }
        s = s.get(1..)?;
        if s.first() == Some(&b':') {
            if ellipsis.is_some() {
                return None;
            }
            ellipsis = Some(i);
            s = s.get(1..)?;
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return None;
    }
    if i < 16 {
        let e = ellipsis?;
        let n = 16 - i;
        for j in (e..i).rev() {
            let v = *ip.get(j)?;
            *ip.get_mut(j + n)? = v;
        }
        for j in e..e + n {
            *ip.get_mut(j)? = 0;
        }
    } else if ellipsis.is_some() {
        return None;
    }
    Some(ip)
}

/// `net.ParseIP(s)` in its 16-byte form (IPv4 addresses mapped into IPv6).
pub fn parse_ip_strict(s: &str) -> Option<[u8; 16]> {
    for b in s.bytes() {
        match b {
            b'.' => {
                let v4 = strict_v4(s.as_bytes())?;
                let mut ip = [0u8; 16];
                ip[10] = 0xff;
                ip[11] = 0xff;
                ip[12..].copy_from_slice(&v4);
                return Some(ip);
            }
            b':' => return strict_v6(s.as_bytes()),
            b'%' => return None,
            _ => {}
        }
    }
    None
}

/// `IP.To4() != nil` for a 16-byte address.
fn is_v4_mapped(ip: &[u8; 16]) -> bool {
    ip[..10].iter().all(|b| *b == 0) && ip[10] == 0xff && ip[11] == 0xff
}

/// `net.ParseMAC(s)` succeeds.
pub fn is_mac(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 14 {
        return false;
    }
    let hex2 = |x: usize| -> bool {
        matches!((b.get(x), b.get(x + 1)), (Some(h), Some(l)) if h.is_ascii_hexdigit() && l.is_ascii_hexdigit())
    };
    let sep2 = b.get(2).copied().unwrap_or(0);
    if sep2 == b':' || sep2 == b'-' {
        if !(b.len() + 1).is_multiple_of(3) {
            return false;
        }
        let n = (b.len() + 1) / 3;
        if n != 6 && n != 8 && n != 20 {
            return false;
        }
        (0..n).all(|i| {
            let x = i * 3;
            hex2(x) && (x + 2 >= b.len() || b.get(x + 2) == Some(&sep2))
        })
    } else if b.get(4) == Some(&b'.') {
        if !(b.len() + 1).is_multiple_of(5) {
            return false;
        }
        let n = 2 * (b.len() + 1) / 5;
        if n != 6 && n != 8 && n != 20 {
            return false;
        }
        (0..n / 2).all(|g| {
            let x = g * 5;
            hex2(x) && hex2(x + 2) && (x + 4 >= b.len() || b.get(x + 4) == Some(&b'.'))
        })
    } else {
        false
    }
}

// ---------------------------------------------------------------------------------------
// net/mail.ParseAddress
// ---------------------------------------------------------------------------------------

/// `mail.ParseAddress(s)` succeeds (with a non-empty address).
pub fn is_email(s: &str) -> bool {
    let mut p = AddrParser { s };
    match p.parse_address(true) {
        Ok(n) => {
            if !p.skip_cfws() {
                return false;
            }
            p.s.is_empty() && n == 1
        }
        Err(()) => false,
    }
}

struct AddrParser<'a> {
    s: &'a str,
}

fn is_vchar(r: char) -> bool {
    ('!'..='~').contains(&r) || (r as u32) >= 0x80
}

fn is_atext(r: char, dot: bool) -> bool {
    match r {
        '.' => dot,
        '(' | ')' | '<' | '>' | '[' | ']' | ':' | ';' | '@' | '\\' | ',' | '"' => false,
        _ => is_vchar(r),
    }
}

fn is_qtext(r: char) -> bool {
    r != '\\' && r != '"' && is_vchar(r)
}

fn is_wsp(r: char) -> bool {
    r == ' ' || r == '\t'
}

fn is_dtext(r: char) -> bool {
    r != '[' && r != ']' && r != '\\' && is_vchar(r)
}

impl<'a> AddrParser<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().first().copied()
    }

    fn consume(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.s = &self.s[1..];
            true
        } else {
            false
        }
    }

    fn skip_space(&mut self) {
        self.s = self.s.trim_start_matches([' ', '\t']);
    }

    fn skip_cfws(&mut self) -> bool {
        self.skip_space();
        while self.consume(b'(') {
            if self.consume_comment().is_none() {
                return false;
            }
            self.skip_space();
        }
        true
    }

    /// After '(': the comment, or `None` when unbalanced.
    fn consume_comment(&mut self) -> Option<String> {
        let mut depth = 1;
        let mut comment = String::new();
        while !self.s.is_empty() && depth > 0 {
            let b = self.s.as_bytes();
            if b.first() == Some(&b'\\') && b.len() > 1 {
                self.s = &self.s[1..];
            } else if b.first() == Some(&b'(') {
                depth += 1;
            } else if b.first() == Some(&b')') {
                depth -= 1;
            }
            // Byte-wise, as Go does; keep whole characters for the text we return.
            let c = self.s.chars().next().unwrap_or(' ');
            if depth > 0 {
                comment.push(c);
            }
            let n = if self.s.as_bytes().first().is_some_and(|b| *b < 0x80) {
                1
            } else {
                c.len_utf8()
            };
            self.s = self.s.get(n..).unwrap_or("");
        }
        if depth == 0 {
            Some(comment)
        } else {
            None
        }
    }

    /// The number of addresses parsed.
    fn parse_address(&mut self, handle_group: bool) -> Result<usize, ()> {
        self.skip_space();
        if self.s.is_empty() {
            return Err(());
        }
        if self.consume_addr_spec().is_ok() {
            self.skip_space();
            if self.peek() == Some(b'(') {
                self.consume_display_name_comment()?;
            }
            return Ok(1);
        }
        if self.peek() != Some(b'<') {
            self.consume_phrase()?;
        }
        self.skip_space();
        if handle_group && self.consume(b':') {
            return self.consume_group_list();
        }
        if !self.consume(b'<') {
            return Err(());
        }
        self.consume_addr_spec()?;
        if !self.consume(b'>') {
            return Err(());
        }
        Ok(1)
    }

    fn consume_group_list(&mut self) -> Result<usize, ()> {
        let mut n = 0;
        self.skip_space();
        if self.consume(b';') {
            if !self.skip_cfws() {
                return Err(());
            }
            return Ok(0);
        }
        loop {
            self.skip_space();
            n += self.parse_address(false)?;
            if !self.skip_cfws() {
                return Err(());
            }
            if self.consume(b';') {
                if !self.skip_cfws() {
                    return Err(());
                }
                break;
            }
            if !self.consume(b',') {
                return Err(());
            }
        }
        Ok(n)
    }

    fn consume_addr_spec(&mut self) -> Result<(), ()> {
        let orig = self.s;
        let r = self.addr_spec_inner();
        if r.is_err() {
            self.s = orig;
        }
        r
    }

    fn addr_spec_inner(&mut self) -> Result<(), ()> {
        self.skip_space();
        if self.s.is_empty() {
            return Err(());
        }
        if self.peek() == Some(b'"') {
            let local = self.consume_quoted_string()?;
            if local.is_empty() {
                return Err(());
            }
        } else {
            self.consume_atom(true, false)?;
        }
        if !self.consume(b'@') {
            return Err(());
        }
        self.skip_space();
        if self.s.is_empty() {
            return Err(());
        }
        if self.peek() == Some(b'[') {
            self.consume_domain_literal()
        } else {
            self.consume_atom(true, false).map(|_| ())
        }
    }

    fn consume_phrase(&mut self) -> Result<(), ()> {
        let mut words = 0;
        loop {
            if words > 0 && !self.skip_cfws() {
                return Err(());
            }
            self.skip_space();
            if self.s.is_empty() {
                break;
            }
            let ok = if self.peek() == Some(b'"') {
                self.consume_quoted_string().is_ok()
            } else {
                match self.consume_atom(true, true) {
                    Ok(word) => !encoded_word_has_unsupported_charset(word),
                    Err(()) => false,
                }
            };
            if !ok {
                break;
            }
            words += 1;
        }
        if words == 0 {
            Err(())
        } else {
            Ok(())
        }
    }

    fn consume_quoted_string(&mut self) -> Result<String, ()> {
        let mut out = String::new();
        let mut escaped = false;
        let mut chars = self.s.char_indices().skip(1);
        loop {
            let Some((i, r)) = chars.next() else {
                return Err(());
            };
            if escaped {
                if !is_vchar(r) && !is_wsp(r) {
                    return Err(());
                }
                out.push(r);
                escaped = false;
            } else if is_qtext(r) || is_wsp(r) {
                out.push(r);
            } else if r == '"' {
                self.s = &self.s[i + 1..];
                return Ok(out);
            } else if r == '\\' {
                escaped = true;
            } else {
                return Err(());
            }
        }
    }

    fn consume_atom(&mut self, dot: bool, permissive: bool) -> Result<&'a str, ()> {
        let end = self
            .s
            .char_indices()
            .find(|(_, r)| !is_atext(*r, dot))
            .map_or(self.s.len(), |(i, _)| i);
        if end == 0 {
            return Err(());
        }
        let atom = &self.s[..end];
        self.s = &self.s[end..];
        if !permissive && (atom.starts_with('.') || atom.contains("..") || atom.ends_with('.')) {
            return Err(());
        }
        Ok(atom)
    }

    fn consume_domain_literal(&mut self) -> Result<(), ()> {
        if !self.consume(b'[') {
            return Err(());
        }
        let end = self.s.find(']').ok_or(())?;
        let dtext = &self.s[..end];
        if !dtext.chars().all(is_dtext) {
            return Err(());
        }
        self.s = &self.s[end + 1..];
        match dtext.strip_prefix("IPv6:") {
            Some(addr) => parse_ip_strict(addr).map(|_| ()).ok_or(()),
            None => match parse_ip_strict(dtext) {
                Some(ip) if is_v4_mapped(&ip) => Ok(()),
                _ => Err(()),
            },
        }
    }

    fn consume_display_name_comment(&mut self) -> Result<(), ()> {
        if !self.consume(b'(') {
            return Err(());
        }
        let comment = self.consume_comment().ok_or(())?;
        for word in comment.split([' ', '\t']).filter(|w| !w.is_empty()) {
            if encoded_word_has_unsupported_charset(word) {
                return Err(());
            }
        }
        Ok(())
    }
}

/// Whether `mime.WordDecoder.Decode(word)` (as `net/mail` calls it) fails because of the
/// charset: a well-formed RFC 2047 word whose charset is not utf-8, iso-8859-1 or us-ascii.
fn encoded_word_has_unsupported_charset(word: &str) -> bool {
    if word.len() < 8
        || !word.starts_with("=?")
        || !word.ends_with("?=")
        || word.matches('?').count() != 4
    {
        return false;
    }
    let inner = &word[2..word.len() - 2];
    let Some((charset, rest)) = inner.split_once('?') else {
        return false;
    };
    if charset.is_empty() {
        return false;
    }
    let (encoding, text) = rest.split_once('?').unwrap_or((rest, ""));
    if encoding.len() != 1 {
        return false;
    }
    let decodes = match encoding {
        "B" | "b" => base64_std_decodes(text),
        "Q" | "q" => q_decodes(text),
        _ => false,
    };
    if !decodes {
        return false;
    }
    !["utf-8", "iso-8859-1", "us-ascii"]
        .iter()
        .any(|c| c.eq_ignore_ascii_case(charset))
}

fn q_decodes(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'_' => {}
            b'=' => {
                match (b.get(i + 1), b.get(i + 2)) {
                    (Some(h), Some(l)) if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => {}
                    _ => return false,
                }
                i += 2;
            }
            b' '..=b'~' | b'\n' | b'\r' | b'\t' => {}
            _ => return false,
        }
        i += 1;
    }
    true
}

/// `base64.StdEncoding.DecodeString(s)` succeeds (newlines are ignored, padding required).
fn base64_std_decodes(s: &str) -> bool {
    let chars: Vec<u8> = s.bytes().filter(|b| *b != b'\r' && *b != b'\n').collect();
    if !chars.len().is_multiple_of(4) {
        return false;
    }
    let is_b64 = |b: u8| b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
    let n = chars.len();
    for (i, &b) in chars.iter().enumerate() {
        if b == b'=' {
            // Padding only in the last quantum: "xx==" or "xxx=".
            let in_last = i + 4 >= n;
            let pos = i % 4;
            let ok = in_last
                && (pos == 3 || (pos == 2 && chars.get(i + 1) == Some(&b'=')))
                && chars.iter().skip(i).all(|c| *c == b'=');
            if !ok {
                return false;
            }
            return true;
        }
        if !is_b64(b) {
            return false;
        }
    }
    true
}

// ---------------------------------------------------------------------------------------
// time
// ---------------------------------------------------------------------------------------

/// `time.Parse("2006-01-02", s)` succeeds (Go's layout parser, shared with CEL's `date`
/// binding).
pub fn is_date(s: &str) -> bool {
    cel_core::gotime::parse(cel_core::gotime::RFC3339_FULL_DATE, s).is_ok()
}

/// `time.ParseDuration(s)` succeeds.
pub fn is_go_duration(orig: &str) -> bool {
    let mut s = orig.as_bytes();
    if let Some(&c) = s.first() {
        if c == b'-' || c == b'+' {
            s = s.get(1..).unwrap_or(&[]);
        }
    }
    if s == b"0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    const LIMIT: u64 = 1 << 63;
    let mut total: u64 = 0;
    while !s.is_empty() {
        let first = s.first().copied().unwrap_or(0);
        if !(first == b'.' || first.is_ascii_digit()) {
            return false;
        }
        // Leading integer.
        let mut v: u64 = 0;
        let mut i = 0;
        while let Some(c @ b'0'..=b'9') = s.get(i).copied() {
            if v > LIMIT / 10 {
                return false;
            }
            v = v * 10 + u64::from(c - b'0');
            if v > LIMIT {
                return false;
            }
            i += 1;
        }
        let pre = i > 0;
        s = s.get(i..).unwrap_or(&[]);
        let mut f: u64 = 0;
        let mut scale: f64 = 1.0;
        let mut post = false;
        if s.first() == Some(&b'.') {
            s = s.get(1..).unwrap_or(&[]);
            let mut j = 0;
            let mut overflow = false;
            while let Some(c @ b'0'..=b'9') = s.get(j).copied() {
                j += 1;
                if overflow {
                    continue;
                }
                if f > (LIMIT - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let y = f * 10 + u64::from(c - b'0');
                if y > LIMIT {
                    overflow = true;
                    continue;
                }
                f = y;
                scale *= 10.0;
            }
            post = j > 0;
            s = s.get(j..).unwrap_or(&[]);
        }
        if !pre && !post {
            return false;
        }
        let unit_len = s
            .iter()
            .position(|c| *c == b'.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if unit_len == 0 {
            return false;
        }
        let unit: u64 = match s.get(..unit_len).unwrap_or(&[]) {
            b"ns" => 1,
            b"us" | [0xC2, 0xB5, b's'] | [0xCE, 0xBC, b's'] => 1_000,
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            b"m" => 60_000_000_000,
            b"h" => 3_600_000_000_000,
            _ => return false,
        };
        s = s.get(unit_len..).unwrap_or(&[]);
        if v > LIMIT / unit {
            return false;
        }
        v *= unit;
        if f > 0 {
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return false;
            }
        }
        total += v;
        if total > LIMIT {
            return false;
        }
    }
    let neg = orig.starts_with('-');
    neg || total < LIMIT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_uris() {
        for ok in [
            "http://example.com/a?b",
            "/path",
            "*",
            "mailto:x@y",
            "http://[::1]:80/",
            "ftp://a:1:2/",
        ] {
            assert!(is_request_uri(ok), "{ok}");
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
            assert!(!is_request_uri(bad), "{bad}");
        }
    }

    #[test]
    fn ips_and_macs() {
        assert!(parse_ip_sloppy_ok("010.1.1.1"));
        assert!(parse_ip_strict("010.1.1.1").is_none());
        assert!(parse_ip_strict("::ffff:1.2.3.4").is_some());
        assert!(parse_ip_strict("1::2::3").is_none());
        assert!(parse_ip_strict("12345::").is_none());
        assert!(parse_ip_strict("fe80::1%eth0").is_none());
        assert!(parse_cidr_sloppy_ok("10.0.0.0/8"));
        assert!(!parse_cidr_sloppy_ok("10.0.0.0/33"));
        assert!(parse_cidr_sloppy_ok("::/0"));
        assert!(is_mac("00:00:5e:00:53:01"));
        assert!(is_mac("0000.5e00.5301"));
        assert!(!is_mac("00:00:5e:00:53"));
        assert!(!is_mac("00:00-5e:00:53:01"));
    }

    #[test]
    fn emails() {
        for ok in [
            "a@b.c",
            "John <john@example.com>",
            "\"q\"@x",
            "a@[1.2.3.4]",
            "a@b (c)",
        ] {
            assert!(is_email(ok), "{ok}");
        }
        for bad in [
            "",
            "a",
            "a@",
            "@b",
            "a..b@c",
            "<a@b",
            "a@b c",
            "=?x?q?a?= <a@b>",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
    }

    #[test]
    fn dates_and_durations() {
        assert!(is_date("2024-02-29"));
        assert!(!is_date("2023-02-29"));
        assert!(!is_date("2023-2-01"));
        assert!(is_go_duration("1h30m"));
        assert!(is_go_duration("-1.5s"));
        assert!(is_go_duration("0"));
        assert!(!is_go_duration("1"));
        assert!(!is_go_duration("1x"));
        assert!(!is_go_duration("9999999999999999999h"));
    }
}
