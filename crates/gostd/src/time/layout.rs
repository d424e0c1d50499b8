//! Go's `time.Parse` for fixed layouts, with its `*time.ParseError` text (Go `src/time/format.go`:
//! `parse`, `nextStdChunk`, `skip`, `getnum`, `atoi`, `parseNanoseconds`, `newParseError`,
//! `ParseError.Error` and the time package's own `quote`).
//!
//! Go walks the layout chunk by chunk (a literal prefix, then one standard element such as
//! `2006` or `Z07:00`) and stops at the first element the value does not match. A syntax
//! failure names that layout element and the value from there on
//! (`parsing time "2021/01" as "2006-01-02": cannot parse "/01" as "-"`); a value read but out
//! of range names neither (`parsing time "2021-13-01": month out of range`); the day is checked
//! against the month only at the end (`: day out of range`), and text left over after the
//! layout is `: extra text: "…"`.
//!
//! Only the elements the callers' layouts use are recognized (numeric dates and times,
//! fractional seconds, ISO 8601 and numeric zones); month and weekday names, `PM` and zone
//! abbreviations are read as literal text. The layouts are constants of this crate, never user
//! input.

use super::Timestamp;
use std::fmt;

/// `time.RFC3339`.
pub const RFC3339: &str = "2006-01-02T15:04:05Z07:00";
/// `time.RFC3339Nano`.
pub const RFC3339_NANO: &str = "2006-01-02T15:04:05.999999999Z07:00";
/// `2006-01-02` (`strfmt.RFC3339FullDate`: a full date, as RFC 3339 writes it).
pub const RFC3339_FULL_DATE: &str = "2006-01-02";

/// Go's `*time.ParseError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The layout.
    pub layout: Vec<u8>,
    /// The value.
    pub value: Vec<u8>,
    /// The layout element that failed (`"2006"`, `"-"`, ...).
    pub layout_elem: Vec<u8>,
    /// The value from the failing element on.
    pub value_elem: Vec<u8>,
    /// A message replacing the "cannot parse" form (`": month out of range"`).
    pub message: String,
}

impl fmt::Display for ParseError {
    /// `ParseError.Error`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(
                f,
                "parsing time {} as {}: cannot parse {} as {}",
                time_quote(&self.value),
                time_quote(&self.layout),
                time_quote(&self.value_elem),
                time_quote(&self.layout_elem)
            )
        } else {
            write!(
                f,
                "parsing time {}{}",
                time_quote(&self.value),
                self.message
            )
        }
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

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Std {
    LongYear,
    Year,
    NumMonth,
    ZeroMonth,
    Day,
    UnderDay,
    ZeroDay,
    Hour,
    Hour12,
    ZeroHour12,
    Minute,
    ZeroMinute,
    Second,
    ZeroSecond,
    /// `.000`: exactly this many digits.
    FracSecond0(usize),
    /// `.999`: any number of digits, or none.
    FracSecond9,
    Iso8601Tz,
    Iso8601ShortTz,
    Iso8601ColonTz,
    NumTz,
    NumShortTz,
    NumColonTz,
}

/// One `nextStdChunk` result: the literal prefix, the standard element and its text (none at
/// the end of the layout), and the rest of the layout.
type Chunk<'l> = (&'l [u8], Option<(Std, &'l [u8])>, &'l [u8]);

/// `nextStdChunk`.
fn next_std_chunk(layout: &[u8]) -> Chunk<'_> {
    let at = |i: usize| layout.get(i).copied().unwrap_or(0);
    let starts = |i: usize, s: &[u8]| layout.get(i..).is_some_and(|r| r.starts_with(s));
    for i in 0..layout.len() {
        let found: Option<(Std, usize)> = match at(i) {
            b'0' if (b'1'..=b'6').contains(&at(i + 1)) => Some((
                match at(i + 1) {
                    b'1' => Std::ZeroMonth,
                    b'2' => Std::ZeroDay,
                    b'3' => Std::ZeroHour12,
                    b'4' => Std::ZeroMinute,
                    b'5' => Std::ZeroSecond,
                    _ => Std::Year,
                },
                2,
            )),
            b'1' if at(i + 1) == b'5' => Some((Std::Hour, 2)),
            b'1' => Some((Std::NumMonth, 1)),
            b'2' if starts(i, b"2006") => Some((Std::LongYear, 4)),
            b'2' => Some((Std::Day, 1)),
            b'_' if at(i + 1) == b'2' && !starts(i + 1, b"2006") => Some((Std::UnderDay, 2)),
            b'3' => Some((Std::Hour12, 1)),
            b'4' => Some((Std::Minute, 1)),
            b'5' => Some((Std::Second, 1)),
            b'-' if starts(i, b"-0700") => Some((Std::NumTz, 5)),
            b'-' if starts(i, b"-07:00") => Some((Std::NumColonTz, 6)),
            b'-' if starts(i, b"-07") => Some((Std::NumShortTz, 3)),
            b'Z' if starts(i, b"Z0700") => Some((Std::Iso8601Tz, 5)),
            b'Z' if starts(i, b"Z07:00") => Some((Std::Iso8601ColonTz, 6)),
            b'Z' if starts(i, b"Z07") => Some((Std::Iso8601ShortTz, 3)),
            b'.' | b',' if matches!(at(i + 1), b'0' | b'9') => {
                let ch = at(i + 1);
                let mut j = i + 1;
                while at(j) == ch {
                    j += 1;
                }
                // String of digits must end here: only fractional second if all zeros or nines.
                if at(j).is_ascii_digit() {
                    None
                } else if ch == b'0' {
                    Some((Std::FracSecond0(j - (i + 1)), j - i))
                } else {
                    Some((Std::FracSecond9, j - i))
                }
            }
            _ => None,
        };
        if let Some((std, len)) = found {
            let text = layout.get(i..i + len).unwrap_or(&[]);
            return (
                layout.get(..i).unwrap_or(&[]),
                Some((std, text)),
                layout.get(i + len..).unwrap_or(&[]),
            );
        }
    }
    (layout, None, &[])
}

/// `skip`: the value after the literal `prefix` (a space matches any run of spaces).
fn skip<'v>(mut value: &'v [u8], mut prefix: &[u8]) -> Result<&'v [u8], &'v [u8]> {
    let cutspace = |s: &[u8]| -> usize { s.iter().take_while(|&&c| c == b' ').count() };
    while let Some(&p) = prefix.first() {
        if p == b' ' {
            if value.first().is_some_and(|&c| c != b' ') {
                return Err(value);
            }
            prefix = prefix.get(cutspace(prefix)..).unwrap_or(&[]);
            value = value.get(cutspace(value)..).unwrap_or(&[]);
            continue;
        }
        if value.first() != Some(&p) {
            return Err(value);
        }
        prefix = prefix.get(1..).unwrap_or(&[]);
        value = value.get(1..).unwrap_or(&[]);
    }
    Ok(value)
}

fn is_digit(s: &[u8], i: usize) -> bool {
    s.get(i).is_some_and(u8::is_ascii_digit)
}

/// `getnum`: one or two digits (two when `fixed`).
fn getnum(s: &[u8], fixed: bool) -> Option<(i64, &[u8])> {
    let d = |i: usize| i64::from(s.get(i).copied().unwrap_or(b'0') - b'0');
    if !is_digit(s, 0) {
        return None;
    }
    if !is_digit(s, 1) {
        if fixed {
            return None;
        }
        return Some((d(0), s.get(1..).unwrap_or(&[])));
    }
    Some((d(0) * 10 + d(1), s.get(2..).unwrap_or(&[])))
}

/// `atoi`: an optional sign and digits filling the whole slice.
fn atoi(s: &[u8]) -> Option<i64> {
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, s.get(1..).unwrap_or(&[])),
        Some(b'+') => (false, s.get(1..).unwrap_or(&[])),
        _ => (false, s),
    };
    // `leadingInt` accepts no digits at all (0), then the rest must be empty.
    let mut x: i64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        x = x.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
    }
    Some(if neg { -x } else { x })
}

/// `parseNanoseconds`: `value` starts with the separator; `nbytes` covers it and the digits.
/// `Err(None)`: a syntax error; `Err(Some(..))`: out of range.
fn parse_nanoseconds(value: &[u8], nbytes: usize) -> Result<i64, Option<&'static str>> {
    if !matches!(value.first(), Some(b'.' | b',')) {
        return Err(None);
    }
    let nbytes = nbytes.min(10);
    let ns = atoi(value.get(1..nbytes).ok_or(None)?).ok_or(None)?;
    if ns < 0 {
        return Err(Some("fractional second"));
    }
    let mut ns = ns;
    for _ in 0..10 - nbytes {
        ns *= 10;
    }
    Ok(ns)
}

fn days_in(month: i64, year: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `time.Parse(layout, value)` (UTC the default and local zone).
pub fn parse(layout: &str, value: &str) -> Result<Timestamp, ParseError> {
    parse_bytes(layout.as_bytes(), value.as_bytes())
}

fn parse_bytes(alayout: &[u8], avalue: &[u8]) -> Result<Timestamp, ParseError> {
    let err = |layout_elem: &[u8], value_elem: &[u8], message: String| ParseError {
        layout: alayout.to_vec(),
        value: avalue.to_vec(),
        layout_elem: layout_elem.to_vec(),
        value_elem: value_elem.to_vec(),
        message,
    };
    let mut layout = alayout;
    let mut value = avalue;
    let (mut year, mut month, mut day) = (0i64, -1i64, -1i64);
    let (mut hour, mut min, mut sec, mut nsec) = (0i64, 0i64, 0i64, 0i64);
    let mut zone_offset: Option<i64> = None;
    loop {
        let (prefix, std, suffix) = next_std_chunk(layout);
        value = skip(value, prefix).map_err(|v| err(prefix, v, String::new()))?;
        let Some((std, stdstr)) = std else {
            if !value.is_empty() {
                return Err(err(
                    &[],
                    value,
                    format!(": extra text: {}", time_quote(value)),
                ));
            }
            break;
        };
        layout = suffix;
        let hold = value;
        let mut range_err: Option<&'static str> = None;
        let mut bad = false;
        match std {
            Std::Year => match value.get(..2).filter(|p| p.iter().all(u8::is_ascii_digit)) {
                Some(p) => {
                    year = atoi(p).unwrap_or(0);
                    year += if year >= 69 { 1900 } else { 2000 };
                    value = value.get(2..).unwrap_or(&[]);
                }
                None => bad = true,
            },
            Std::LongYear => {
                if value.len() < 4 || !is_digit(value, 0) {
                    bad = true;
                } else {
                    match atoi(value.get(..4).unwrap_or(&[])) {
                        Some(y) => year = y,
                        None => bad = true,
                    }
                    value = value.get(4..).unwrap_or(&[]);
                }
            }
            Std::NumMonth | Std::ZeroMonth => match getnum(value, std == Std::ZeroMonth) {
                Some((m, rest)) => {
                    month = m;
                    value = rest;
                    if !(1..=12).contains(&m) {
                        range_err = Some("month");
                    }
                }
                None => bad = true,
            },
            Std::Day | Std::UnderDay | Std::ZeroDay => {
                if std == Std::UnderDay && value.first() == Some(&b' ') {
                    value = value.get(1..).unwrap_or(&[]);
                }
                match getnum(value, std == Std::ZeroDay) {
                    Some((d, rest)) => {
                        day = d;
                        value = rest;
                    }
                    None => bad = true,
                }
            }
            Std::Hour => match getnum(value, false) {
                Some((h, rest)) => {
                    hour = h;
                    value = rest;
                    if h >= 24 {
                        range_err = Some("hour");
                    }
                }
                None => bad = true,
            },
            Std::Hour12 | Std::ZeroHour12 => match getnum(value, std == Std::ZeroHour12) {
                Some((h, rest)) => {
                    hour = h;
                    value = rest;
                    if !(0..=12).contains(&h) {
                        range_err = Some("hour");
                    }
                }
                None => bad = true,
            },
            Std::Minute | Std::ZeroMinute => match getnum(value, std == Std::ZeroMinute) {
                Some((m, rest)) => {
                    min = m;
                    value = rest;
                    if m >= 60 {
                        range_err = Some("minute");
                    }
                }
                None => bad = true,
            },
            Std::Second | Std::ZeroSecond => match getnum(value, std == Std::ZeroSecond) {
                None => bad = true,
                Some((s, rest)) => {
                    sec = s;
                    value = rest;
                    if s >= 60 {
                        range_err = Some("second");
                    } else if value.len() >= 2
                        && matches!(value.first(), Some(b'.' | b','))
                        && is_digit(value, 1)
                    {
                        // A fractional second the layout does not spell out.
                        let next = next_std_chunk(layout).1.map(|(s, _)| s);
                        if !matches!(next, Some(Std::FracSecond0(_) | Std::FracSecond9)) {
                            let mut n = 2;
                            while is_digit(value, n) {
                                n += 1;
                            }
                            match parse_nanoseconds(value, n) {
                                Ok(ns) => nsec = ns,
                                Err(Some(r)) => range_err = Some(r),
                                Err(None) => bad = true,
                            }
                            value = value.get(n..).unwrap_or(&[]);
                        }
                    }
                }
            },
            Std::Iso8601Tz
            | Std::Iso8601ShortTz
            | Std::Iso8601ColonTz
            | Std::NumTz
            | Std::NumShortTz
            | Std::NumColonTz => {
                let iso = matches!(
                    std,
                    Std::Iso8601Tz | Std::Iso8601ShortTz | Std::Iso8601ColonTz
                );
                if iso && value.first() == Some(&b'Z') {
                    value = value.get(1..).unwrap_or(&[]);
                    zone_offset = Some(0);
                } else {
                    let parts: Option<(u8, &[u8], &[u8], usize)> = match std {
                        Std::Iso8601ColonTz | Std::NumColonTz => {
                            if value.len() < 6 || value.get(3) != Some(&b':') {
                                None
                            } else {
                                Some((
                                    value.first().copied().unwrap_or(0),
                                    value.get(1..3).unwrap_or(&[]),
                                    value.get(4..6).unwrap_or(&[]),
                                    6,
                                ))
                            }
                        }
                        Std::Iso8601ShortTz | Std::NumShortTz => (value.len() >= 3).then(|| {
                            (
                                value.first().copied().unwrap_or(0),
                                value.get(1..3).unwrap_or(&[]),
                                &b"00"[..],
                                3,
                            )
                        }),
                        _ => (value.len() >= 5).then(|| {
                            (
                                value.first().copied().unwrap_or(0),
                                value.get(1..3).unwrap_or(&[]),
                                value.get(3..5).unwrap_or(&[]),
                                5,
                            )
                        }),
                    };
                    match parts {
                        None => bad = true,
                        Some((sign, h, m, used)) => {
                            value = value.get(used..).unwrap_or(&[]);
                            // Go reads the minutes only when the hours parsed, and
                            // checks both ranges whatever the syntax said.
                            let hr = getnum(h, true).map(|x| x.0);
                            let mm = hr.and_then(|_| getnum(m, true).map(|x| x.0));
                            let (hv, mv) = (hr.unwrap_or(0), mm.unwrap_or(0));
                            if hv > 24 {
                                range_err = Some("time zone offset hour");
                            }
                            if mv > 60 {
                                range_err = Some("time zone offset minute");
                            }
                            let off = (hv * 60 + mv) * 60;
                            match (hr.and(mm), sign) {
                                (Some(_), b'+') => zone_offset = Some(off),
                                (Some(_), b'-') => zone_offset = Some(-off),
                                _ => bad = true,
                            }
                        }
                    }
                }
            }
            Std::FracSecond0(digits) => {
                let ndigit = 1 + digits;
                if value.len() < ndigit {
                    bad = true;
                } else {
                    match parse_nanoseconds(value, ndigit) {
                        Ok(ns) => nsec = ns,
                        Err(Some(r)) => range_err = Some(r),
                        Err(None) => bad = true,
                    }
                    value = value.get(ndigit..).unwrap_or(&[]);
                }
            }
            Std::FracSecond9 => {
                if value.len() >= 2
                    && matches!(value.first(), Some(b'.' | b','))
                    && is_digit(value, 1)
                {
                    let mut i = 0;
                    while is_digit(value, i + 1) {
                        i += 1;
                    }
                    match parse_nanoseconds(value, 1 + i) {
                        Ok(ns) => nsec = ns,
                        Err(Some(r)) => range_err = Some(r),
                        Err(None) => bad = true,
                    }
                    value = value.get(1 + i..).unwrap_or(&[]);
                }
            }
        }
        if let Some(r) = range_err {
            return Err(err(stdstr, value, format!(": {r} out of range")));
        }
        if bad {
            return Err(err(stdstr, hold, String::new()));
        }
    }
    if month < 0 {
        month = 1;
    }
    if day < 0 {
        day = 1;
    }
    if day < 1 || day > days_in(month, year) {
        return Err(err(&[], value, ": day out of range".to_string()));
    }
    let offset = zone_offset.unwrap_or(0);
    let days = super::days_from_civil(year, month as u32, day as u32);
    let secs = days * 86_400 + hour * 3600 + min * 60 + sec - offset;
    Ok(Timestamp {
        secs,
        nanos: nsec as u32,
        offset: offset as i32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(layout: &str, value: &str) -> String {
        parse(layout, value).unwrap_err().to_string()
    }

    #[test]
    fn parse_errors_name_the_failing_element() {
        // Go src/time/format.go `parse`: the first element that does not match, the value from
        // there on (`hold`), or the range message after the element was read.
        let cases: &[(&str, &str, &str)] = &[
            (
                RFC3339_FULL_DATE,
                "x",
                r#"parsing time "x" as "2006-01-02": cannot parse "x" as "2006""#,
            ),
            (
                RFC3339_FULL_DATE,
                "2021/01/02",
                r#"parsing time "2021/01/02" as "2006-01-02": cannot parse "/01/02" as "-""#,
            ),
            (
                RFC3339_FULL_DATE,
                "2021-1-02",
                r#"parsing time "2021-1-02" as "2006-01-02": cannot parse "1-02" as "01""#,
            ),
            (
                RFC3339_FULL_DATE,
                "2021-13-02",
                r#"parsing time "2021-13-02": month out of range"#,
            ),
            (
                RFC3339_FULL_DATE,
                "2021-02-30",
                r#"parsing time "2021-02-30": day out of range"#,
            ),
            (
                RFC3339_FULL_DATE,
                "2021-02-03T",
                r#"parsing time "2021-02-03T": extra text: "T""#,
            ),
            (
                RFC3339,
                "2021-02-03T25:00:00Z",
                r#"parsing time "2021-02-03T25:00:00Z": hour out of range"#,
            ),
            (
                RFC3339,
                "2021-02-03T10:00:00",
                r#"parsing time "2021-02-03T10:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00""#,
            ),
            (
                RFC3339,
                "2021-02-03 10:00:00Z",
                r#"parsing time "2021-02-03 10:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 10:00:00Z" as "T""#,
            ),
            (
                "2006-01-02T15:04:05.000Z07:00",
                "2021-02-03T10:00:00.1Z",
                r#"parsing time "2021-02-03T10:00:00.1Z" as "2006-01-02T15:04:05.000Z07:00": cannot parse ".1Z" as ".000""#,
            ),
            (
                RFC3339,
                "2021-02-03T10:00:00+25:00",
                r#"parsing time "2021-02-03T10:00:00+25:00": time zone offset hour out of range"#,
            ),
            // The time package's quote: non-ASCII bytes and control characters as \x.
            (
                RFC3339_FULL_DATE,
                "é\n",
                r#"parsing time "\xc3\xa9\x0a" as "2006-01-02": cannot parse "\xc3\xa9\x0a" as "2006""#,
            ),
        ];
        for (layout, value, want) in cases {
            assert_eq!(&e(layout, value), want, "{layout} {value}");
        }
    }

    #[test]
    fn parses_what_go_accepts() {
        // RFC 3339 through the general parser: a one-digit hour (`15` is not fixed-width), a
        // comma before the fraction, an undeclared fraction after the seconds, offsets to 24h.
        let ok = |l: &str, v: &str| parse(l, v).map(|t| super::super::format_rfc3339_nano(&t));
        assert_eq!(
            ok(RFC3339, "2021-02-03T1:02:03Z").unwrap(),
            "2021-02-03T01:02:03Z"
        );
        assert_eq!(
            ok(RFC3339, "2021-02-03T01:02:03,5Z").unwrap(),
            "2021-02-03T01:02:03.5Z"
        );
        assert_eq!(
            ok(RFC3339, "2021-02-03T01:02:03.123456789+01:00").unwrap(),
            "2021-02-03T01:02:03.123456789+01:00"
        );
        assert!(parse(RFC3339, "2021-02-03T01:02:03+24:00").is_ok());
    }

    #[test]
    fn rfc3339_parses_and_formats_like_go() {
        let ok = |s: &str| parse(RFC3339, s).map(|t| super::super::format_rfc3339_utc(t.secs));
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
        assert_eq!(
            parse(RFC3339, "0001-01-01T00:00:00Z").unwrap().secs,
            super::super::GO_ZERO_TIME_SECS
        );
    }

    #[test]
    fn rfc3339_errors_like_go() {
        let err = |s: &str| parse(RFC3339, s).unwrap_err().to_string();
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
