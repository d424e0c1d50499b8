//! IP addresses and prefixes as Go's `net/netip` parses, prints and compares them, for
//! Kubernetes' IP and CIDR libraries (`ip()`, `cidr()`, `containsIP`, ...), with Go's error
//! texts (`ParseAddr("x"): unable to parse IP`).

use std::fmt;

use crate::rt_time::go_quote;

/// An IP address (no zone: Kubernetes rejects zones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ip {
    bytes: [u8; 16],
    v4: bool,
}

/// A prefix: an address (kept unmasked, as Go does) and a length.
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
pub(crate) fn parse_addr_zone(input: &str) -> Result<(Ip, bool), String> {
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
    /// Kubernetes' `parseIPAddr`: `netip.ParseAddr`, without zones or IPv4-mapped IPv6.
    pub fn parse(raw: &str) -> Result<Ip, String> {
        let (ip, zone) = parse_addr_zone(raw).map_err(|e| {
            format!(
                "IP Address {} parse error during conversion from string: {e}",
                go_quote(raw)
            )
        })?;
        if zone {
            return Err(format!(
                "IP address {} with zone value is not allowed",
                go_quote(raw)
            ));
        }
        if ip.is_4in6() {
            return Err(format!(
                "IPv4-mapped IPv6 address {} is not allowed",
                go_quote(raw)
            ));
        }
        Ok(ip)
    }

    fn is_4in6(&self) -> bool {
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

    fn masked(&self, bits: u32) -> Ip {
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
    /// Kubernetes' `parseCIDR`: `netip.ParsePrefix`, without IPv4-mapped IPv6 addresses. The
    /// error is the full text of `cidr()`'s error.
    pub fn parse(raw: &str) -> Result<Cidr, String> {
        let p = parse_prefix(raw).map_err(|e| {
            format!("network address parse error during conversion from string: {e}")
        })?;
        if p.addr.is_4in6() {
            return Err(format!(
                "IPv4-mapped IPv6 address {} is not allowed",
                go_quote(raw)
            ));
        }
        Ok(p)
    }

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

    /// Kubernetes' `containsCIDR`: overlapping and at most as specific.
    pub fn contains_cidr(&self, other: &Cidr) -> bool {
        if other.addr.v4 != self.addr.v4 {
            return false;
        }
        let min = u32::from(self.bits.min(other.bits));
        let overlaps = self.addr.masked(min) == other.addr.masked(min);
        overlaps && self.bits <= other.bits
    }
}

fn parse_prefix(s: &str) -> Result<Cidr, String> {
    let e = |m: &str| format!("netip.ParsePrefix({}): {m}", go_quote(s));
    let Some(i) = s.rfind('/') else {
        return Err(e("no '/'"));
    };
    let (ip, zone) = parse_addr_zone(s.get(..i).unwrap_or("")).map_err(|x| e(&x))?;
    if !ip.v4 && zone {
        return Err(e("IPv6 zones cannot be present in a prefix"));
    }
    let bits_str = s.get(i + 1..).unwrap_or("");
    let bad = || e(&format!("bad bits after slash: {}", go_quote(bits_str)));
    let first = bits_str.as_bytes().first().copied().unwrap_or(0);
    if bits_str.len() > 1 && !(b'1'..=b'9').contains(&first) {
        return Err(bad());
    }
    let bits: i64 = crate::rt_time::go_atoi(bits_str).map_err(|_| bad())?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        for (s, canon) in [
            ("192.168.0.1", "192.168.0.1"),
            ("2001:db8::1", "2001:db8::1"),
            ("2001:0db8:0:0:0:0:0:1", "2001:db8::1"),
            ("::", "::"),
            ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
        ] {
            assert_eq!(Ip::parse(s).unwrap().to_string(), canon, "{s}");
        }
        assert_eq!(
            Ip::parse("1.2.3").unwrap_err(),
            "IP Address \"1.2.3\" parse error during conversion from string: ParseAddr(\"1.2.3\"): IPv4 address too short"
        );
        assert!(Ip::parse("::ffff:1.2.3.4")
            .unwrap_err()
            .contains("IPv4-mapped"));
        assert!(Ip::parse("fe80::1%eth0")
            .unwrap_err()
            .contains("zone value"));
        assert!(Ip::parse("01.2.3.4").is_err());
        let ip = Ip::parse("224.0.0.1").unwrap();
        assert!(ip.is_link_local_multicast() && !ip.is_global_unicast());
        assert!(Ip::parse("10.0.0.1").unwrap().is_global_unicast());
    }

    #[test]
    fn prefixes() {
        let c = Cidr::parse("192.168.0.0/24").unwrap();
        assert!(c.contains_ip(&Ip::parse("192.168.0.1").unwrap()));
        assert!(c.contains_cidr(&Cidr::parse("192.168.0.0/25").unwrap()));
        assert!(!c.contains_cidr(&Cidr::parse("192.168.0.0/23").unwrap()));
        assert_eq!(
            Cidr::parse("192.168.1.5/16").unwrap().masked().to_string(),
            "192.168.0.0/16"
        );
        assert!(Cidr::parse("1.2.3.4/33")
            .unwrap_err()
            .contains("prefix length out of range"));
        assert!(Cidr::parse("1.2.3.4/01")
            .unwrap_err()
            .contains("bad bits after slash"));
    }
}
