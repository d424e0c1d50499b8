//! Kubernetes' IP and CIDR libraries (`ip()`, `cidr()`, `containsCIDR`, ...) on Go's `netip`
//! ([`crd_studio_gostd::net`]): Kubernetes rejects zones and IPv4-mapped IPv6 addresses, with its own
//! error texts around Go's.

pub use crd_studio_gostd::net::{Cidr, Ip};
use crd_studio_gostd::strconv::quote as go_quote;

/// Kubernetes' `parseIPAddr`: `netip.ParseAddr`, without zones or IPv4-mapped IPv6. The error
/// is the full text of `ip()`'s error.
pub fn parse_ip(raw: &str) -> Result<Ip, String> {
    let (ip, zone) = crd_studio_gostd::net::parse_addr(raw).map_err(|e| {
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

/// Kubernetes' `parseCIDR`: `netip.ParsePrefix`, without IPv4-mapped IPv6 addresses. The
/// error is the full text of `cidr()`'s error.
pub fn parse_cidr(raw: &str) -> Result<Cidr, String> {
    let p = crd_studio_gostd::net::parse_prefix(raw)
        .map_err(|e| format!("network address parse error during conversion from string: {e}"))?;
    if p.ip().is_4in6() {
        return Err(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            go_quote(raw)
        ));
    }
    Ok(p)
}

/// Kubernetes' `containsCIDR`: overlapping and at most as specific.
pub fn contains_cidr(c: &Cidr, other: &Cidr) -> bool {
    if other.ip().family() != c.ip().family() {
        return false;
    }
    let (bits, other_bits) = (c.prefix_length() as u32, other.prefix_length() as u32);
    let min = bits.min(other_bits);
    let overlaps = c.ip().masked(min) == other.ip().masked(min);
    overlaps && bits <= other_bits
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
            assert_eq!(parse_ip(s).unwrap().to_string(), canon, "{s}");
        }
        assert_eq!(
            parse_ip("1.2.3").unwrap_err(),
            "IP Address \"1.2.3\" parse error during conversion from string: ParseAddr(\"1.2.3\"): IPv4 address too short"
        );
        assert!(parse_ip("::ffff:1.2.3.4")
            .unwrap_err()
            .contains("IPv4-mapped"));
        assert!(parse_ip("fe80::1%eth0").unwrap_err().contains("zone value"));
        assert!(parse_ip("01.2.3.4").is_err());
        let ip = parse_ip("224.0.0.1").unwrap();
        assert!(ip.is_link_local_multicast() && !ip.is_global_unicast());
        assert!(parse_ip("10.0.0.1").unwrap().is_global_unicast());
    }

    #[test]
    fn prefixes() {
        let c = parse_cidr("192.168.0.0/24").unwrap();
        assert!(c.contains_ip(&parse_ip("192.168.0.1").unwrap()));
        assert!(contains_cidr(&c, &parse_cidr("192.168.0.0/25").unwrap()));
        assert!(!contains_cidr(&c, &parse_cidr("192.168.0.0/23").unwrap()));
        assert_eq!(
            parse_cidr("192.168.1.5/16").unwrap().masked().to_string(),
            "192.168.0.0/16"
        );
        assert!(parse_cidr("1.2.3.4/33")
            .unwrap_err()
            .contains("prefix length out of range"));
        assert!(parse_cidr("1.2.3.4/01")
            .unwrap_err()
            .contains("bad bits after slash"));
    }
}
