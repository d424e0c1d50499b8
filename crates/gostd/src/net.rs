//! Go's `net` and `net/netip`: addresses and prefixes as `netip` parses, prints and compares
//! them, with Go's error texts (`ParseAddr("x"): unable to parse IP`); `net.ParseIP` (`netip`
//! without zones); `net.ParseMAC`; and the pre-Go 1.17 parser that `k8s.io/utils/net` forked
//! as `ParseIPSloppy`/`ParseCIDRSloppy` (leading zeros allowed).

use std::fmt;

use crate::strconv::quote as go_quote;

/// An IP address (`netip.Addr` without its zone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ip {
    bytes: [u8; 16],
    v4: bool,
}

/// A prefix (`netip.Prefix`): an address (kept unmasked, as Go does) and a length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    addr: Ip,
    bits: u8,
}

fn addr_err(input: &str, msg: &str, at: Option<&str>) -> String {
    match at {
        Some(a) if !a.is_empty() => {
            format!("ParseAddr({}): {msg} (at {})", go_quote(input), go_quote(a))
        }
        _ => format!("ParseAddr({}): {msg}", go_quote(input)),
    }
}

fn parse_v4_fields(input: &str, s: &str, out: &mut [u8; 4]) -> Result<(), String> {
    let b = s.as_bytes();
    let mut val: u32 = 0;
    let mut pos = 0;
    let mut dig_len = 0;
    for (i, &c) in b.iter().enumerate() {
        if c.is_ascii_digit() {
            if dig_len == 1 && val == 0 {
                return Err(addr_err(
                    input,
                    "IPv4 field has octet with leading zero",
                    None,
                ));
            }
            val = val * 10 + u32::from(c - b'0');
            dig_len += 1;
            if val > 255 {
                return Err(addr_err(input, "IPv4 field has value >255", None));
            }
        } else if c == b'.' {
            if i == 0 || i == b.len() - 1 || b.get(i - 1) == Some(&b'.') {
                return Err(addr_err(
                    input,
                    "IPv4 field must have at least one digit",
                    s.get(i..),
                ));
            }
            if pos == 3 {
                return Err(addr_err(input, "IPv4 address too long", None));
            }
            if let Some(slot) = out.get_mut(pos) {
                *slot = val as u8;
            }
            pos += 1;
            val = 0;
            dig_len = 0;
        } else {
            return Err(addr_err(input, "unexpected character", s.get(i..)));
        }
    }
    if pos < 3 {
        return Err(addr_err(input, "IPv4 address too short", None));
    }
    out[3] = val as u8;
    Ok(())
}

/// `netip.ParseAddr`: the address and whether it had a zone.
pub fn parse_addr(input: &str) -> Result<(Ip, bool), String> {
    for c in input.bytes() {
        match c {
            b'.' => {
                let mut f = [0u8; 4];
                parse_v4_fields(input, input, &mut f)?;
                let mut bytes = [0u8; 16];
                bytes[..4].copy_from_slice(&f);
                return Ok((Ip { bytes, v4: true }, false));
            }
            b':' => return parse_v6(input),
            b'%' => return Err(addr_err(input, "missing IPv6 address", None)),
            _ => {}
        }
    }
    Err(addr_err(input, "unable to parse IP", None))
}

fn parse_v6(input: &str) -> Result<(Ip, bool), String> {
    let mut s = input;
    let mut zone = "";
    if let Some(i) = input.find('%') {
        s = input.get(..i).unwrap_or("");
        zone = input.get(i + 1..).unwrap_or("");
        if zone.is_empty() {
            return Err(addr_err(input, "zone must be a non-empty string", None));
        }
    }
    let has_zone = !zone.is_empty();
    let mut ip = [0u8; 16];
    let mut ellipsis: i32 = -1;
    if s.starts_with("::") {
        ellipsis = 0;
        s = s.get(2..).unwrap_or("");
        if s.is_empty() {
            return Ok((
                Ip {
                    bytes: ip,
                    v4: false,
                },
                has_zone,
            ));
        }
    }
    let mut i: usize = 0;
    while i < 16 {
        let b = s.as_bytes();
        let mut off = 0;
        let mut acc: u32 = 0;
        while let Some(&c) = b.get(off) {
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            };
            acc = (acc << 4) + u32::from(d);
            if off > 3 {
                return Err(addr_err(
                    input,
                    "each colon-separated field must have at most 4 hex digits",
                    Some(s),
                ));
            }
            if acc > 0xffff {
                return Err(addr_err(input, "IPv6 field has value >=2^16", Some(s)));
            }
            off += 1;
        }
        if off == 0 {
            return Err(addr_err(
                input,
                "each colon-separated field must have at least one digit",
                Some(s),
            ));
        }
        if b.get(off) == Some(&b'.') {
            if ellipsis < 0 && i != 12 {
                return Err(addr_err(
                    input,
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    Some(s),
                ));
            }
            if i + 4 > 16 {
                return Err(addr_err(
                    input,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    Some(s),
                ));
            }
            let mut f = [0u8; 4];
            parse_v4_fields(input, s, &mut f)?;
            for (slot, v) in ip.iter_mut().skip(i).zip(f) {
                *slot = v;
            }
            s = "";
            i += 4;
            break;
        }
        if let Some(slot) = ip.get_mut(i) {
            *slot = (acc >> 8) as u8;
        }
        if let Some(slot) = ip.get_mut(i + 1) {
            *slot = acc as u8;
        }
        i += 2;
        s = s.get(off..).unwrap_or("");
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return Err(addr_err(input, "unexpected character, want colon", Some(s)));
        } else if s.len() == 1 {
            return Err(addr_err(
                input,
                "colon must be followed by more characters",
                Some(s),
            ));
        }
        s = s.get(1..).unwrap_or("");
        if s.starts_with(':') {
            if ellipsis >= 0 {
                return Err(addr_err(input, "multiple :: in address", Some(s)));
            }
            ellipsis = i as i32;
            s = s.get(1..).unwrap_or("");
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(addr_err(input, "trailing garbage after address", Some(s)));
    }
    if i < 16 {
        if ellipsis < 0 {
            return Err(addr_err(input, "address string too short", None));
        }
        let e = ellipsis as usize;
        let n = 16 - i;
        let mut j = i;
        while j > e {
            j -= 1;
            let v = ip.get(j).copied().unwrap_or(0);
            if let Some(slot) = ip.get_mut(j + n) {
                *slot = v;
            }
        }
        for b in ip.iter_mut().skip(e).take(n) {
            *b = 0;
        }
    } else if ellipsis >= 0 {
        return Err(addr_err(
            input,
            "the :: must expand to at least one field of zeros",
            None,
        ));
    }
    Ok((
        Ip {
            bytes: ip,
            v4: false,
        },
        has_zone,
    ))
}

impl Ip {
    /// `Is4In6`: an IPv4-mapped IPv6 address.
    pub fn is_4in6(&self) -> bool {
        !self.v4
            && self.bytes[..10].iter().all(|&b| b == 0)
            && self.bytes[10] == 0xff
            && self.bytes[11] == 0xff
    }

    /// 4 or 6.
    pub fn family(&self) -> i64 {
        if self.v4 {
            4
        } else {
            6
        }
    }

    fn bit_len(&self) -> u32 {
        if self.v4 {
            32
        } else {
            128
        }
    }

    fn v4(&self) -> [u8; 4] {
        [self.bytes[0], self.bytes[1], self.bytes[2], self.bytes[3]]
    }

    /// `IsUnspecified`.
    pub fn is_unspecified(&self) -> bool {
        self.bytes.iter().all(|&b| b == 0)
    }

    /// `IsLoopback`.
    pub fn is_loopback(&self) -> bool {
        if self.v4 {
            return self.bytes[0] == 127;
        }
        self.bytes[..15].iter().all(|&b| b == 0) && self.bytes[15] == 1
    }

    fn is_multicast(&self) -> bool {
        if self.v4 {
            return self.bytes[0] & 0xf0 == 0xe0;
        }
        self.bytes[0] == 0xff
    }

    /// `IsLinkLocalMulticast`.
    pub fn is_link_local_multicast(&self) -> bool {
        if self.v4 {
            return self.bytes[0] == 224 && self.bytes[1] == 0 && self.bytes[2] == 0;
        }
        self.bytes[0] == 0xff && self.bytes[1] & 0x0f == 0x02
    }

    /// `IsLinkLocalUnicast`.
    pub fn is_link_local_unicast(&self) -> bool {
        if self.v4 {
            return self.bytes[0] == 169 && self.bytes[1] == 254;
        }
        self.bytes[0] == 0xfe && self.bytes[1] & 0xc0 == 0x80
    }

    /// `IsGlobalUnicast`.
    pub fn is_global_unicast(&self) -> bool {
        if self.v4 && (self.is_unspecified() || self.v4() == [255, 255, 255, 255]) {
            return false;
        }
        !self.is_unspecified()
            && !self.is_loopback()
            && !self.is_multicast()
            && !self.is_link_local_unicast()
    }

    /// `Prefix(bits)`'s address: the first `bits` bits kept, the rest zero.
    pub fn masked(&self, bits: u32) -> Ip {
        let mut out = *self;
        let len = if self.v4 { 4 } else { 16 };
        for (i, b) in out.bytes.iter_mut().enumerate().take(len) {
            let start = (i as u32) * 8;
            if start >= bits {
                *b = 0;
            } else if start + 8 > bits {
                let keep = bits - start;
                *b &= 0xffu8 << (8 - keep);
            }
        }
        out
    }
}

impl fmt::Display for Ip {
    /// `Addr.String()`: dotted quad, or RFC 5952 IPv6.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.v4 {
            let [a, b, c, d] = self.v4();
            return write!(f, "{a}.{b}.{c}.{d}");
        }
        if self.is_4in6() {
            return write!(
                f,
                "::ffff:{}.{}.{}.{}",
                self.bytes[12], self.bytes[13], self.bytes[14], self.bytes[15]
            );
        }
        let groups: Vec<u16> = self
            .bytes
            .chunks(2)
            .map(|c| {
                u16::from(c.first().copied().unwrap_or(0)) << 8
                    | u16::from(c.get(1).copied().unwrap_or(0))
            })
            .collect();
        let (mut zs, mut ze) = (usize::MAX, usize::MAX);
        let mut i = 0;
        while i < 8 {
            let mut j = i;
            while j < 8 && groups.get(j) == Some(&0) {
                j += 1;
            }
            if j - i >= 2 && (zs == usize::MAX || j - i > ze - zs) {
                zs = i;
                ze = j;
            }
            i = j.max(i + 1);
        }
        let mut s = String::new();
        let mut i = 0;
        while i < 8 {
            if i == zs {
                s.push_str("::");
                i = ze;
                if i >= 8 {
                    break;
                }
            } else if i > 0 {
                s.push(':');
            }
            s.push_str(&format!("{:x}", groups.get(i).copied().unwrap_or(0)));
            i += 1;
        }
        f.write_str(&s)
    }
}

impl Cidr {
    /// The address.
    pub fn ip(&self) -> Ip {
        self.addr
    }

    /// The prefix length.
    pub fn prefix_length(&self) -> i64 {
        i64::from(self.bits)
    }

    /// `Masked()`.
    pub fn masked(&self) -> Cidr {
        Cidr {
            addr: self.addr.masked(u32::from(self.bits)),
            bits: self.bits,
        }
    }

    /// `Contains(ip)`.
    pub fn contains_ip(&self, ip: &Ip) -> bool {
        if ip.v4 != self.addr.v4 {
            return false;
        }
        ip.masked(u32::from(self.bits)) == self.addr.masked(u32::from(self.bits))
    }
}

/// `netip.ParsePrefix`, with its error text.
pub fn parse_prefix(s: &str) -> Result<Cidr, String> {
    let e = |m: &str| format!("netip.ParsePrefix({}): {m}", go_quote(s));
    let Some(i) = s.rfind('/') else {
        return Err(e("no '/'"));
    };
    let (ip, zone) = parse_addr(s.get(..i).unwrap_or("")).map_err(|x| e(&x))?;
    if !ip.v4 && zone {
        return Err(e("IPv6 zones cannot be present in a prefix"));
    }
    let bits_str = s.get(i + 1..).unwrap_or("");
    let bad = || e(&format!("bad bits after slash: {}", go_quote(bits_str)));
    let first = bits_str.as_bytes().first().copied().unwrap_or(0);
    if bits_str.len() > 1 && !(b'1'..=b'9').contains(&first) {
        return Err(bad());
    }
    let bits: i64 = crate::strconv::atoi(bits_str).map_err(|_| bad())?;
    if bits < 0 || bits > i64::from(ip.bit_len()) {
        return Err(e("prefix length out of range"));
    }
    Ok(Cidr {
        addr: ip,
        bits: bits as u8,
    })
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.bits)
    }
}

impl Ip {
    /// `As16`: the 16-byte form (an IPv4 address mapped into IPv6).
    pub fn as16(&self) -> [u8; 16] {
        if !self.v4 {
            return self.bytes;
        }
        let mut ip = [0u8; 16];
        ip[10] = 0xff;
        ip[11] = 0xff;
        ip[12..].copy_from_slice(&self.v4());
        ip
    }
}

/// `net.ParseIP(s)` in its 16-byte form (IPv4 addresses mapped into IPv6): `netip.ParseAddr`,
/// and no zone.
pub fn parse_ip(s: &str) -> Option<[u8; 16]> {
    match parse_addr(s) {
        Ok((ip, false)) => Some(ip.as16()),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------
// The pre-Go 1.17 parser (k8s.io/utils/net's fork) and MACs
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

/// `ParseIPSloppy(s) != nil` (the fork of the pre-Go 1.17 `net.ParseIP`).
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

/// `ParseCIDRSloppy(s)` succeeds (the fork of the pre-Go 1.17 `net.ParseCIDR`).
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

/// `IP.To4() != nil` for a 16-byte address.
pub fn is_v4_mapped(ip: &[u8; 16]) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_prefixes() {
        for (s, canon) in [
            ("192.168.0.1", "192.168.0.1"),
            ("2001:db8::1", "2001:db8::1"),
            ("2001:0db8:0:0:0:0:0:1", "2001:db8::1"),
            ("::", "::"),
            ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
        ] {
            assert_eq!(parse_addr(s).unwrap().0.to_string(), canon, "{s}");
        }
        assert_eq!(
            parse_addr("1.2.3").unwrap_err(),
            "ParseAddr(\"1.2.3\"): IPv4 address too short"
        );
        assert!(parse_addr("::ffff:1.2.3.4").unwrap().0.is_4in6());
        assert!(parse_addr("fe80::1%eth0").unwrap().1);
        assert!(parse_prefix("1.2.3.4/33")
            .unwrap_err()
            .contains("prefix length out of range"));
        assert_eq!(
            parse_prefix("192.168.1.5/16").unwrap().masked().to_string(),
            "192.168.0.0/16"
        );
    }

    #[test]
    fn ips_and_macs() {
        assert!(parse_ip_sloppy_ok("010.1.1.1"));
        assert!(parse_ip("010.1.1.1").is_none());
        assert!(parse_ip("::ffff:1.2.3.4").is_some());
        assert!(parse_ip("1::2::3").is_none());
        assert!(parse_ip("12345::").is_none());
        assert!(parse_ip("fe80::1%eth0").is_none());
        assert!(parse_cidr_sloppy_ok("10.0.0.0/8"));
        assert!(!parse_cidr_sloppy_ok("10.0.0.0/33"));
        assert!(parse_cidr_sloppy_ok("::/0"));
        assert!(is_mac("00:00:5e:00:53:01"));
        assert!(is_mac("0000.5e00.5301"));
        assert!(!is_mac("00:00:5e:00:53"));
        assert!(!is_mac("00:00-5e:00:53:01"));
    }
}
