//! Go's `net/mail`: `ParseAddress`, as a validity check (with a non-empty address).

use crate::net::{is_v4_mapped, parse_ip};

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
            Some(addr) => parse_ip(addr).map(|_| ()).ok_or(()),
            None => match parse_ip(dtext) {
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
        "B" | "b" => crate::base64::decode(text).is_some(),
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
