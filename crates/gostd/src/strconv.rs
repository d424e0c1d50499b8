//! Go's `strconv`: `Quote` (what `%q` prints), `Atoi`, `ParseBool`, `ParseInt`, `ParseUint`,
//! `ParseFloat`, and `FormatFloat` in the `'g'` and `'f'` forms with the shortest digits that
//! round-trip (`-1` precision).

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
            Some(c) if is_print(c) => out.push(c),
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

/// Go's `strconv.IsPrint` (letters, marks, numbers, punctuation, symbols and the ASCII space),
/// approximated: Rust's control and white-space classes plus the format (Cf), private-use and
/// noncharacter code points are not printable; unassigned code points are taken as printable.
pub fn is_print(c: char) -> bool {
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

/// Go's `strconv.ParseBool`: `None` where Go reports an error.
pub fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Why a `ParseInt`/`ParseUint` failed (`strconv.ErrSyntax`, `strconv.ErrRange`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NumError {
    Syntax,
    Range,
}

/// Go's `*strconv.NumError` text: `strconv.ParseInt: parsing "x": invalid syntax`.
fn num_error(func: &str, s: &str, e: NumError) -> String {
    let why = match e {
        NumError::Syntax => "invalid syntax",
        NumError::Range => "value out of range",
    };
    format!("strconv.{func}: parsing {}: {why}", quote(s))
}

fn parse_uint_inner(s: &str, base: u32) -> Result<u64, NumError> {
    if s.is_empty() {
        return Err(NumError::Syntax);
    }
    let base0 = base == 0;
    let (base, digits) = if base0 {
        let b = s.as_bytes();
        let prefixed = |c: u8| b.len() >= 3 && b.get(1).map(u8::to_ascii_lowercase) == Some(c);
        let rest = |from: usize| s.get(from..).ok_or(NumError::Syntax);
        if b.first() != Some(&b'0') {
            (10, s)
        } else if prefixed(b'b') {
            (2, rest(2)?)
        } else if prefixed(b'o') {
            (8, rest(2)?)
        } else if prefixed(b'x') {
            (16, rest(2)?)
        } else {
            (8, rest(1)?)
        }
    } else if (2..=36).contains(&base) {
        (base, s)
    } else {
        return Err(NumError::Syntax);
    };
    let mut n: u64 = 0;
    let mut underscores = false;
    for c in digits.chars() {
        if c == '_' && base0 {
            underscores = true;
            continue;
        }
        let d = c.to_digit(base).ok_or(NumError::Syntax)?;
        n = n
            .checked_mul(u64::from(base))
            .and_then(|n| n.checked_add(u64::from(d)))
            .ok_or(NumError::Range)?;
    }
    if underscores && !underscore_ok(s) {
        return Err(NumError::Syntax);
    }
    Ok(n)
}

/// Go's `strconv.ParseUint(s, base, 64)`, with its error text
/// (`strconv.ParseUint: parsing "x": invalid syntax`, `... value out of range`). Base 0 reads
/// Go's prefixes (`0x`, `0o`, `0b`, and a leading `0` for octal) and allows `_` between digits
/// as Go's integer literals do; other bases (2 to 36) take digits only.
pub fn parse_uint(s: &str, base: u32) -> Result<u64, String> {
    parse_uint_inner(s, base).map_err(|e| num_error("ParseUint", s, e))
}

/// Go's `strconv.ParseInt(s, base, 64)`: an optional sign, then the digits as
/// [`parse_uint`] reads them; Go's error text (`strconv.ParseInt: parsing ...`).
pub fn parse_int(s: &str, base: u32) -> Result<i64, String> {
    let err = |e| num_error("ParseInt", s, e);
    let (neg, body) = match s.as_bytes().first() {
        Some(b'+') => (false, s.get(1..).unwrap_or("")),
        Some(b'-') => (true, s.get(1..).unwrap_or("")),
        _ => (false, s),
    };
    let magnitude = parse_uint_inner(body, base).map_err(err)?;
    if neg {
        if magnitude == 1 << 63 {
            Ok(i64::MIN)
        } else {
            i64::try_from(magnitude)
                .map(|v| -v)
                .map_err(|_| err(NumError::Range))
        }
    } else {
        i64::try_from(magnitude).map_err(|_| err(NumError::Range))
    }
}

/// Go's `strconv.ParseFloat(s, 64)`: `None` where Go reports an error. The syntax is Go's float
/// literal syntax: an optional sign, `inf`/`infinity` (any case, signed or not) or `nan` (any
/// case, unsigned), decimal digits with an optional `e` exponent, or hexadecimal digits after
/// `0x` with a mandatory `p` exponent; `_` may separate digits. Results beyond the double range
/// are an error (Go's `ErrRange`); underflow rounds to zero.
pub fn parse_float(s: &str) -> Option<f64> {
    if let Some(v) = float_special(s) {
        return Some(v);
    }
    let b = s.as_bytes();
    let mut i = 0;
    let neg = match b.first() {
        Some(b'+') => {
            i = 1;
            false
        }
        Some(b'-') => {
            i = 1;
            true
        }
        _ => false,
    };
    let hex =
        b.len() > i + 2 && b.get(i) == Some(&b'0') && matches!(b.get(i + 1), Some(b'x' | b'X'));
    if hex {
        i += 2;
    }
    let exp_char = if hex { b'p' } else { b'e' };
    let mut underscores = false;
    let mut saw_dot = false;
    let mut saw_digits = false;
    // Hexadecimal mantissa as Go's readFloat keeps it: at most 16 significant digits, the
    // rest folded into a sticky bit.
    let mut mantissa: u64 = 0;
    let mut trunc = false;
    let (mut nd, mut nd_mant, mut dp): (i64, i64, i64) = (0, 0, 0);
    while let Some(&c) = b.get(i) {
        let digit = match c {
            b'_' => {
                underscores = true;
                i += 1;
                continue;
            }
            b'.' => {
                if saw_dot {
                    break;
                }
                saw_dot = true;
                dp = nd;
                i += 1;
                continue;
            }
            b'0'..=b'9' => u64::from(c - b'0'),
            b'a'..=b'f' | b'A'..=b'F' if hex => u64::from(c.to_ascii_lowercase() - b'a' + 10),
            _ => break,
        };
        saw_digits = true;
        i += 1;
        if c == b'0' && nd == 0 {
            dp -= 1;
            continue;
        }
        nd += 1;
        if nd_mant < 16 {
            mantissa = mantissa * 16 + digit;
            nd_mant += 1;
        } else if c != b'0' {
            trunc = true;
        }
    }
    if !saw_digits {
        return None;
    }
    if !saw_dot {
        dp = nd;
    }
    if hex {
        dp *= 4;
        nd_mant *= 4;
    }
    if b.get(i).map(u8::to_ascii_lowercase) == Some(exp_char) {
        i += 1;
        let mut esign = 1;
        match b.get(i) {
            Some(b'+') => i += 1,
            Some(b'-') => {
                i += 1;
                esign = -1;
            }
            _ => {}
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        let mut e: i64 = 0;
        while let Some(&c) = b.get(i) {
            match c {
                b'_' => underscores = true,
                b'0'..=b'9' => {
                    if e < 10_000 {
                        e = e * 10 + i64::from(c - b'0');
                    }
                }
                _ => break,
            }
            i += 1;
        }
        dp += e * esign;
    } else if hex {
        return None;
    }
    if i != b.len() || (underscores && !underscore_ok(s)) {
        return None;
    }
    let v = if hex {
        let exp = if mantissa != 0 { dp - nd_mant } else { 0 };
        hex_float(mantissa, exp, trunc)?
    } else {
        // The syntax is Go's; the value is the correctly rounded decimal, as Rust computes it.
        let cleaned: String = s.chars().filter(|&c| c != '_').collect();
        let v = cleaned.parse::<f64>().ok()?;
        if v.is_infinite() {
            return None;
        }
        return Some(v);
    };
    Some(if neg { -v } else { v })
}

/// Go's `special`: the whole string is an infinity or a NaN.
fn float_special(s: &str) -> Option<f64> {
    let (neg, rest, signed) = match s.as_bytes().first() {
        Some(b'+') => (false, s.get(1..).unwrap_or(""), true),
        Some(b'-') => (true, s.get(1..).unwrap_or(""), true),
        _ => (false, s, false),
    };
    let lower = rest.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "infinity" => Some(if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }),
        "nan" if !signed => Some(f64::NAN),
        _ => None,
    }
}

/// Go's `underscoreOK`: underscores only between digits, or between a base prefix and a digit.
fn underscore_ok(s: &str) -> bool {
    let mut b = s.as_bytes();
    if let Some(b'+' | b'-') = b.first() {
        b = b.get(1..).unwrap_or(&[]);
    }
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if b.len() >= 2
        && b.first() == Some(&b'0')
        && matches!(
            b.get(1).map(u8::to_ascii_lowercase),
            Some(b'b' | b'o' | b'x')
        )
    {
        i = 2;
        saw = b'0';
        hex = b.get(1).map(u8::to_ascii_lowercase) == Some(b'x');
    }
    while let Some(&c) = b.get(i) {
        i += 1;
        if c.is_ascii_digit() || hex && c.is_ascii_hexdigit() {
            saw = b'0';
            continue;
        }
        if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
            continue;
        }
        if saw == b'_' {
            return false;
        }
        saw = b'!';
    }
    saw != b'_'
}

/// Go's `atofHex` for float64: `mantissa * 2^exp` (with `trunc`, a lost non-zero bit) rounded
/// to nearest even; `None` beyond the double range.
fn hex_float(mut mantissa: u64, exp: i64, trunc: bool) -> Option<f64> {
    const MANT_BITS: u32 = 52;
    const BIAS: i64 = -1023;
    let max_exp = (1i64 << 11) + BIAS - 2;
    let min_exp = BIAS + 1;
    let mut exp = exp + i64::from(MANT_BITS);
    while mantissa != 0 && mantissa >> (MANT_BITS + 2) == 0 {
        mantissa <<= 1;
        exp -= 1;
    }
    if trunc {
        mantissa |= 1;
    }
    while mantissa >> (1 + MANT_BITS + 2) != 0 {
        mantissa = (mantissa >> 1) | (mantissa & 1);
        exp += 1;
    }
    while mantissa > 1 && exp < min_exp - 2 {
        mantissa = (mantissa >> 1) | (mantissa & 1);
        exp += 1;
    }
    let mut round = mantissa & 3;
    mantissa >>= 2;
    round |= mantissa & 1;
    exp += 2;
    if round == 3 {
        mantissa += 1;
        if mantissa == 1 << (1 + MANT_BITS) {
            mantissa >>= 1;
            exp += 1;
        }
    }
    if mantissa >> MANT_BITS == 0 {
        exp = BIAS;
    }
    if exp > max_exp {
        return None;
    }
    let bits = (mantissa & ((1 << MANT_BITS) - 1)) | ((((exp - BIAS) as u64) & 0x7ff) << MANT_BITS);
    Some(f64::from_bits(bits))
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

    #[test]
    fn parse_ints_like_go() {
        let cases: &[(&str, u32, Option<i64>)] = &[
            ("-9223372036854775808", 10, Some(i64::MIN)),
            ("9223372036854775808", 10, None),
            ("9223372036854775807", 10, Some(i64::MAX)),
            ("-ff", 16, Some(-255)),
            ("", 10, None),
            ("+", 10, None),
            ("+-1", 10, None),
            ("0x1F", 0, Some(31)),
            ("0o17", 0, Some(15)),
            ("017", 0, Some(15)),
            ("-0b11", 0, Some(-3)),
            ("0", 0, Some(0)),
            ("0x", 0, None),
            ("08", 0, None),
            ("1_000", 0, Some(1000)),
            ("1__0", 0, None),
            ("1_000", 10, None),
        ];
        for (text, base, want) in cases {
            assert_eq!(parse_int(text, *base).ok(), *want, "{text} {base}");
        }
        assert_eq!(parse_uint("18446744073709551615", 0), Ok(u64::MAX));
        assert_eq!(
            parse_uint("18446744073709551616", 0).unwrap_err(),
            "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"
        );
        assert_eq!(
            parse_uint("-1", 10).unwrap_err(),
            "strconv.ParseUint: parsing \"-1\": invalid syntax"
        );
        assert_eq!(
            parse_int("9223372036854775808", 10).unwrap_err(),
            "strconv.ParseInt: parsing \"9223372036854775808\": value out of range"
        );
        assert_eq!(parse_bool("True"), Some(true));
        assert_eq!(parse_bool("yes"), None);
    }

    #[test]
    fn parse_floats_like_go() {
        assert_eq!(parse_float("1.5e3"), Some(1500.0));
        assert_eq!(parse_float(".5"), Some(0.5));
        assert_eq!(parse_float("-Infinity"), Some(f64::NEG_INFINITY));
        assert!(parse_float("nan").is_some_and(f64::is_nan));
        assert_eq!(parse_float("-nan"), None);
        assert_eq!(parse_float("0x1p-2"), Some(0.25));
        assert_eq!(parse_float("0x1.8"), None);
        assert_eq!(parse_float("1e400"), None);
        assert_eq!(parse_float("1_0.5"), Some(10.5));
        assert_eq!(parse_float("1__0.5"), None);
        assert_eq!(parse_float("0x_1p0"), Some(1.0));
    }
}
