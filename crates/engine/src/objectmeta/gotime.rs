//! `metav1.Time` as the server reads and writes it: Go's `time.Parse(time.RFC3339, s)` (the
//! fast path `parseRFC3339` and, when it declines, the general layout parser with its exact
//! `ParseError` texts) and `Time.ToUnstructured` (`t.UTC().Format(time.RFC3339)`).
//!
//! Only what that one layout needs is here: the chunks `2006`, `-`, `01`, `-`, `02`, `T`,
//! `15`, `:`, `04`, `:`, `05`, `Z07:00`. Fractions of a second are accepted and kept (the
//! server compares times with them) but, as in the server, not written back.

/// The RFC 3339 layout string, as Go quotes it in parse errors.
const LAYOUT: &str = "2006-01-02T15:04:05Z07:00";

/// Seconds from the Unix epoch to Go's zero time (January 1, year 1, 00:00:00 UTC).
const ZERO_UNIX: i64 = -62_135_596_800;

/// An instant, as `metav1.Time` holds it (the location does not matter to the server's
/// output, which is always UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Time {
    /// Seconds since the Unix epoch.
    pub unix: i64,
    /// Nanoseconds within the second.
    pub nanos: u32,
}

impl Time {
    /// Go's zero `time.Time` (`metav1.Time{}`).
    pub const ZERO: Time = Time {
        unix: ZERO_UNIX,
        nanos: 0,
    };

    /// `IsZero()`.
    pub fn is_zero(&self) -> bool {
        *self == Time::ZERO
    }

    /// `t.UTC().Format(time.RFC3339)`: `2006-01-02T15:04:05Z`, no fraction.
    pub fn rfc3339(&self) -> String {
        let days = self.unix.div_euclid(86_400);
        let secs = self.unix.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        let mut out = String::new();
        // Go's appendInt(year, 4): a sign, then at least four digits.
        if y < 0 {
            out.push('-');
        }
        out.push_str(&format!("{:04}", y.unsigned_abs()));
        out.push_str(&format!(
            "-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        ));
        out
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in(m: i64, y: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `Date(year, month, day, hour, min, sec, nsec, UTC)` minus a zone offset (seconds east).
fn instant(fields: [i64; 6], nsec: u32, offset: i64) -> Time {
    let [y, mo, d, h, mi, s] = fields;
    Time {
        unix: days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s - offset,
        nanos: nsec,
    }
}

/// Go's `time.quote`: non-ASCII and control bytes as `\xNN`, `"` and `\` escaped.
pub fn time_quote(s: &[u8]) -> String {
    let mut out = String::from("\"");
    let mut i = 0;
    while let Some(&b) = s.get(i) {
        if !(b' '..0x80).contains(&b) {
            // One UTF-8 sequence (or one invalid byte) at a time, as Go's range loop decodes.
            let (width, is_rune_error) = match utf8_width(s.get(i..).unwrap_or_default()) {
                Some(3) if s.get(i..i + 3) == Some("\u{fffd}".as_bytes()) => (3, true),
                Some(w) => (w, false),
                None => (1, false),
            };
            // For U+FFFD Go prints three bytes only when more text follows it.
            let printed = if is_rune_error && i + 2 >= s.len() {
                1
            } else {
                width
            };
            for j in 0..printed {
                if let Some(byte) = s.get(i + j) {
                    out.push_str(&format!("\\x{byte:02x}"));
                }
            }
            i += width;
        } else {
            if b == b'"' || b == b'\\' {
                out.push('\\');
            }
            out.push(b as char);
            i += 1;
        }
    }
    out.push('"');
    out
}

/// The length of the valid UTF-8 sequence at the start of `s`, if there is one.
fn utf8_width(s: &[u8]) -> Option<usize> {
    let first = *s.first()?;
    let w = match first {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return None,
    };
    let seq = s.get(..w)?;
    std::str::from_utf8(seq).ok().map(|_| w)
}

fn digit(s: &[u8], i: usize) -> Option<i64> {
    s.get(i)
        .filter(|c| c.is_ascii_digit())
        .map(|c| i64::from(c - b'0'))
}

/// `parseRFC3339`: the strict fast path. `None` when it declines.
fn parse_fast(s: &[u8]) -> Option<Time> {
    if s.len() < 19 {
        return None;
    }
    let num = |from: usize, to: usize, min: i64, max: i64| -> Option<i64> {
        let mut x: i64 = 0;
        for i in from..to {
            x = x * 10 + digit(s, i)?;
        }
        (min..=max).contains(&x).then_some(x)
    };
    let year = num(0, 4, 0, 9999);
    let month = num(5, 7, 1, 12);
    let day = num(8, 10, 1, days_in(month.unwrap_or(1), year.unwrap_or(0)));
    let hour = num(11, 13, 0, 23);
    let min = num(14, 16, 0, 59);
    let sec = num(17, 19, 0, 59);
    let seps = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')];
    if !seps.iter().all(|(i, c)| s.get(*i) == Some(c)) {
        return None;
    }
    let (year, month, day, hour, min, sec) = (year?, month?, day?, hour?, min?, sec?);
    let mut rest = s.get(19..)?;
    let mut nsec = 0;
    if rest.len() >= 2 && rest.first() == Some(&b'.') && digit(rest, 1).is_some() {
        let mut n = 2;
        while digit(rest, n).is_some() {
            n += 1;
        }
        nsec = nanoseconds(rest, n)?;
        rest = rest.get(n..)?;
    }
    let offset = if rest == b"Z" {
        0
    } else {
        if rest.len() != 6 {
            return None;
        }
        let hr = (digit(rest, 1)? * 10 + digit(rest, 2)?).min(99);
        let mm = digit(rest, 4)? * 10 + digit(rest, 5)?;
        if hr > 23 || mm > 59 || rest.get(3) != Some(&b':') {
            return None;
        }
        match rest.first() {
            Some(b'+') => (hr * 60 + mm) * 60,
            Some(b'-') => -(hr * 60 + mm) * 60,
            _ => return None,
        }
    };
    Some(instant([year, month, day, hour, min, sec], nsec, offset))
}

/// `parseNanoseconds(value, n)`: `value[0]` is `.` or `,`, digits follow; more than nine
/// are cut.
fn nanoseconds(value: &[u8], n: usize) -> Option<u32> {
    let n = n.min(10);
    let mut ns: u32 = 0;
    for i in 1..n {
        ns = ns * 10 + u32::try_from(digit(value, i)?).ok()?;
    }
    for _ in n..10 {
        ns *= 10;
    }
    Some(ns)
}

/// `getnum(s, fixed)`: one or two digits (exactly two when fixed).
fn getnum(s: &[u8], fixed: bool) -> Option<(i64, &[u8])> {
    let a = digit(s, 0)?;
    match digit(s, 1) {
        Some(b) => Some((a * 10 + b, s.get(2..)?)),
        None if fixed => None,
        None => Some((a, s.get(1..)?)),
    }
}

/// A `time.ParseError`, rendered.
fn parse_error(value: &[u8], layout_elem: &str, value_elem: &[u8]) -> String {
    format!(
        "parsing time {} as {}: cannot parse {} as {}",
        time_quote(value),
        time_quote(LAYOUT.as_bytes()),
        time_quote(value_elem),
        time_quote(layout_elem.as_bytes())
    )
}

fn message_error(value: &[u8], message: &str) -> String {
    format!("parsing time {}{message}", time_quote(value))
}

/// `skip(value, sep)` of the general parser: the rest after the separator, or the error.
fn skip<'a>(v: &[u8], rest: &'a [u8], sep: u8, name: &str) -> Result<&'a [u8], String> {
    match rest.first() {
        Some(c) if *c == sep => Ok(rest.get(1..).unwrap_or_default()),
        _ => Err(parse_error(v, name, rest)),
    }
}

/// `time.Parse(time.RFC3339, value)`: the instant, or Go's error text.
pub fn parse_rfc3339(value: &str) -> Result<Time, String> {
    let v = value.as_bytes();
    if let Some(t) = parse_fast(v) {
        return Ok(t);
    }
    // The general parser, specialised to the RFC 3339 layout.
    let mut rest: &[u8] = v;
    // stdLongYear
    let hold = rest;
    let year = match (rest.get(..4), digit(rest, 0)) {
        (Some(p), Some(_)) if p.iter().all(u8::is_ascii_digit) => {
            rest = rest.get(4..).unwrap_or_default();
            p.iter().fold(0i64, |a, c| a * 10 + i64::from(c - b'0'))
        }
        _ => return Err(parse_error(v, "2006", hold)),
    };
    // stdZeroMonth
    rest = skip(v, rest, b'-', "-")?;
    let hold = rest;
    let (month, r) = getnum(rest, true).ok_or_else(|| parse_error(v, "01", hold))?;
    rest = r;
    if !(1..=12).contains(&month) {
        return Err(message_error(v, ": month out of range"));
    }
    // stdZeroDay
    rest = skip(v, rest, b'-', "-")?;
    let hold = rest;
    let (day, r) = getnum(rest, true).ok_or_else(|| parse_error(v, "02", hold))?;
    rest = r;
    // stdHour
    rest = skip(v, rest, b'T', "T")?;
    let hold = rest;
    let (hour, r) = getnum(rest, false).ok_or_else(|| parse_error(v, "15", hold))?;
    rest = r;
    if hour >= 24 {
        return Err(message_error(v, ": hour out of range"));
    }
    // stdZeroMinute
    rest = skip(v, rest, b':', ":")?;
    let hold = rest;
    let (min, r) = getnum(rest, true).ok_or_else(|| parse_error(v, "04", hold))?;
    rest = r;
    if min >= 60 {
        return Err(message_error(v, ": minute out of range"));
    }
    // stdZeroSecond, with a fraction the layout does not name
    rest = skip(v, rest, b':', ":")?;
    let hold = rest;
    let (sec, r) = getnum(rest, true).ok_or_else(|| parse_error(v, "05", hold))?;
    rest = r;
    if sec >= 60 {
        return Err(message_error(v, ": second out of range"));
    }
    let mut nsec = 0;
    if rest.len() >= 2 && matches!(rest.first(), Some(b'.' | b',')) && digit(rest, 1).is_some() {
        let mut n = 2;
        while digit(rest, n).is_some() {
            n += 1;
        }
        nsec = nanoseconds(rest, n).ok_or_else(|| parse_error(v, "05", hold))?;
        rest = rest.get(n..).unwrap_or_default();
    }
    // stdISO8601ColonTZ
    let hold = rest;
    let offset = if rest.first() == Some(&b'Z') {
        rest = rest.get(1..).unwrap_or_default();
        0
    } else {
        let bad = || parse_error(v, "Z07:00", hold);
        if rest.len() < 6 || rest.get(3) != Some(&b':') {
            return Err(bad());
        }
        let hr = getnum(rest.get(1..3).unwrap_or_default(), true).map(|x| x.0);
        let mm = hr.and(getnum(rest.get(4..6).unwrap_or_default(), true).map(|x| x.0));
        let sign = rest.first().copied();
        rest = rest.get(6..).unwrap_or_default();
        let (h, m) = (hr.unwrap_or(0), mm.unwrap_or(0));
        // Range errors are reported before syntax errors.
        if m > 60 {
            return Err(message_error(v, ": time zone offset minute out of range"));
        }
        if h > 24 {
            return Err(message_error(v, ": time zone offset hour out of range"));
        }
        if hr.is_none() || mm.is_none() {
            return Err(bad());
        }
        match sign {
            Some(b'+') => (h * 60 + m) * 60,
            Some(b'-') => -(h * 60 + m) * 60,
            _ => return Err(bad()),
        }
    };
    if !rest.is_empty() {
        return Err(message_error(
            v,
            &format!(": extra text: {}", time_quote(rest)),
        ));
    }
    if day < 1 || day > days_in(month, year) {
        return Err(message_error(v, ": day out of range"));
    }
    Ok(instant([year, month, day, hour, min, sec], nsec, offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_formats_like_go() {
        let ok = |s: &str| parse_rfc3339(s).map(|t| t.rfc3339());
        assert_eq!(ok("2020-01-02T03:04:05Z").unwrap(), "2020-01-02T03:04:05Z");
        assert_eq!(
            ok("2020-01-02T03:04:05.123+02:00").unwrap(),
            "2020-01-02T01:04:05Z"
        );
        assert_eq!(ok("2020-01-02T3:04:05Z").unwrap(), "2020-01-02T03:04:05Z");
        assert_eq!(
            ok("2020-01-02T03:04:05,5-24:00").unwrap(),
            "2020-01-03T03:04:05Z"
        );
        assert_eq!(
            ok("0000-01-01T00:00:00+01:00").unwrap(),
            "-0001-12-31T23:00:00Z"
        );
        assert!(parse_rfc3339("0001-01-01T00:00:00Z").unwrap().is_zero());
    }

    #[test]
    fn errors_like_go() {
        let err = |s: &str| parse_rfc3339(s).unwrap_err();
        assert_eq!(
            err("a"),
            r#"parsing time "a" as "2006-01-02T15:04:05Z07:00": cannot parse "a" as "2006""#
        );
        assert_eq!(
            err("2020-13-01T00:00:00Z"),
            r#"parsing time "2020-13-01T00:00:00Z": month out of range"#
        );
        assert_eq!(
            err("2020-02-30T00:00:00Z"),
            r#"parsing time "2020-02-30T00:00:00Z": day out of range"#
        );
        assert_eq!(
            err("2020-01-01"),
            r#"parsing time "2020-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T""#
        );
        assert_eq!(
            err("2020-01-01T00:00:00Zx"),
            r#"parsing time "2020-01-01T00:00:00Zx": extra text: "x""#
        );
        assert_eq!(
            err("2020-01-01T00:00:00z"),
            r#"parsing time "2020-01-01T00:00:00z" as "2006-01-02T15:04:05Z07:00": cannot parse "z" as "Z07:00""#
        );
        assert_eq!(
            err("2020-01-01T00:00:00+25:00"),
            r#"parsing time "2020-01-01T00:00:00+25:00": time zone offset hour out of range"#
        );
        assert_eq!(time_quote("é\"".as_bytes()), r#""\xc3\xa9\"""#);
    }
}
