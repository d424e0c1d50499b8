//! Go's `strconv`: `Quote` (what `%q` prints), `Atoi`, and `FormatFloat` in the `'g'` and `'f'`
//! forms with the shortest digits that round-trip (`-1` precision).

use std::fmt::Write as _;

/// Go's `strconv.Quote` over bytes (invalid UTF-8 bytes as `\x..`).
pub fn quote_bytes(b: &[u8]) -> String {
    let mut out = String::from("\"");
    let mut rest = b;
    while !rest.is_empty() {
        let (c, size) = decode_utf8(rest);
        match c {
            None => {
                let _ = write!(out, "\\x{:02x}", rest.first().copied().unwrap_or(0));
            }
            Some('\u{7}') => out.push_str("\\a"),
            Some('\u{8}') => out.push_str("\\b"),
            Some('\u{c}') => out.push_str("\\f"),
            Some('\n') => out.push_str("\\n"),
            Some('\r') => out.push_str("\\r"),
            Some('\t') => out.push_str("\\t"),
            Some('\u{b}') => out.push_str("\\v"),
            Some('\\') => out.push_str("\\\\"),
            Some('"') => out.push_str("\\\""),
            Some(c) if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            Some(c) if is_go_printable(c) => out.push(c),
            Some(c) if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            Some(c) => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
        rest = rest.get(size.max(1)..).unwrap_or(&[]);
    }
    out.push('"');
    out
}

fn decode_utf8(b: &[u8]) -> (Option<char>, usize) {
    for len in 1..=4.min(b.len()) {
        if let Some(s) = b.get(..len).and_then(|p| std::str::from_utf8(p).ok()) {
            return (s.chars().next(), len);
        }
    }
    (None, 1)
}

/// An approximation of Go's `strconv.IsPrint` (graphic characters and the ASCII space): Rust's
/// control and white-space classes plus the format (Cf), private-use and noncharacter code
/// points; unassigned code points are taken as printable.
fn is_go_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    !(c.is_control()
        || c.is_whitespace()
        || matches!(c as u32,
            0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x890..=0x891 | 0x8e2 | 0x180e
            | 0x200b..=0x200f | 0x2028..=0x202e | 0x2060..=0x206f | 0xfeff | 0xfff9..=0xfffb
            | 0xe000..=0xf8ff | 0xfdd0..=0xfdef | 0x110bd | 0x110cd | 0x13430..=0x1343f
            | 0x1bca0..=0x1bca3 | 0x1d173..=0x1d17a | 0xe0001 | 0xe0020..=0xe007f
            | 0xf0000..=0x10ffff)
        || (c as u32 & 0xfffe) == 0xfffe)
}

/// Go's `strconv.Quote` of a string (see [`quote_bytes`]).
pub fn quote(s: &str) -> String {
    quote_bytes(s.as_bytes())
}

/// Go's `strconv.Atoi` with its error text (`strconv.Atoi: parsing "x": invalid syntax`).
pub fn atoi(s: &str) -> Result<i64, String> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "strconv.Atoi: parsing {}: invalid syntax",
            quote(s)
        ));
    }
    s.parse::<i64>()
        .map_err(|_| format!("strconv.Atoi: parsing {}: value out of range", quote(s)))
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`, which is also what `fmt`'s `%v` prints for a float64:
/// the shortest digits that round-trip, in exponent form when the decimal exponent is below -4
/// or at least 6 (`1e+06`, `1e-05`).
pub fn format_float_g(f: f64) -> String {
    format_g(f, &format!("{f:e}"))
}

/// `strconv.FormatFloat(float64(f), 'g', -1, 32)`: as [`format_float_g`], with the shortest
/// digits that round-trip through a float32.
pub fn format_float_g32(f: f32) -> String {
    format_g(f64::from(f), &format!("{f:e}"))
}

/// The `'g'` layout of `f`, given Rust's shortest `{:e}` text of it at the wanted precision.
fn format_g(f: f64, e: &str) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    let (mantissa, exp) = e.split_once('e').unwrap_or((e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let body = if !(-4..6).contains(&exp) {
        let mut m = String::new();
        let mut it = digits.chars();
        if let Some(c) = it.next() {
            m.push(c);
        }
        let rest: String = it.collect();
        if !rest.is_empty() {
            m.push('.');
            m.push_str(&rest);
        }
        format!(
            "{m}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.unsigned_abs()
        )
    } else if exp < 0 {
        format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            format!("{digits}{}", "0".repeat(int_len - digits.len()))
        } else {
            let (a, b) = digits.split_at(int_len);
            format!("{a}.{b}")
        }
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`: the shortest digits that round-trip, never with an
/// exponent (Rust's `Display` for `f64` prints exactly this).
pub fn format_float_f(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    format!("{f}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_as_go() {
        assert_eq!(quote_bytes(b"a\"b\\\n"), r#""a\"b\\\n""#);
        assert_eq!(quote_bytes(&[0xff, b'a']), r#""\xffa""#);
        assert_eq!(quote("é😀"), "\"é😀\"");
        assert_eq!(quote("\u{1}"), r#""\x01""#);
        assert_eq!(quote("\u{feff}\u{200b}"), r#""\ufeff\u200b""#);
    }

    #[test]
    fn atoi_like_go() {
        assert_eq!(atoi("+12"), Ok(12));
        assert_eq!(
            atoi("1x").unwrap_err(),
            "strconv.Atoi: parsing \"1x\": invalid syntax"
        );
        assert_eq!(
            atoi("99999999999999999999").unwrap_err(),
            "strconv.Atoi: parsing \"99999999999999999999\": value out of range"
        );
    }

    #[test]
    fn format_float_like_go() {
        assert_eq!(format_float_g(1.5), "1.5");
        assert_eq!(format_float_g(100000.0), "100000");
        assert_eq!(format_float_g(1e6), "1e+06");
        assert_eq!(format_float_g(1234567.0), "1.234567e+06");
        assert_eq!(format_float_g(1e21), "1e+21");
        assert_eq!(format_float_g(0.0001), "0.0001");
        assert_eq!(format_float_g(0.00001), "1e-05");
        assert_eq!(format_float_g(-2.25), "-2.25");
        assert_eq!(format_float_g(-0.0), "-0");
        assert_eq!(format_float_g32(0.1), "0.1");
        assert_eq!(format_float_g32(1e7), "1e+07");
        assert_eq!(format_float_f(1e21), "1000000000000000000000");
        assert_eq!(format_float_f(f64::NAN), "NaN");
    }
}
