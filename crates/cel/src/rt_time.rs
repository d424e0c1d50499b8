//! Timestamps and durations with Go's parsing and formatting rules: `time.Parse(time.RFC3339)`,
//! `Time.Format(time.RFC3339Nano)`, `time.ParseDuration`, `Duration.String()`, kube-openapi's
//! `strfmt.ParseDuration` / `ParseDateTime` (the `duration`, `date` and `date-time` formats),
//! civil-date arithmetic for the accessors, and time zones.
//!
//! Time zones: UTC and fixed offsets (`"+05:30"`, `"-08:00"`) are supported. Go loads IANA
//! names (`"America/New_York"`) from its tz database, which is not available here (the engine
//! is pure and runs in the browser): those give Go's `unknown time zone` error.

use crate::value::Timestamp;

/// Unix seconds of Go's zero `time.Time` (0001-01-01T00:00:00Z), cel-go's minimum.
pub const GO_ZERO_TIME_SECS: i64 = -62_135_596_800;
/// Unix seconds of 9999-12-31T23:59:59Z, cel-go's maximum.
pub const MAX_UNIX_SECS: i64 = 253_402_300_799;

const NANOS_PER_SEC: i64 = 1_000_000_000;

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = i64::from(m);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number since 1970-01-01: (year, month 1-12, day 1-31).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Days in a month of a year.
pub fn days_in(m: u32, y: i64) -> u32 {
    match m {
        2 => {
            if is_leap(y) {
                29
            } else {
                28
            }
        }
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The broken-down time of a timestamp in a zone offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    /// Year.
    pub year: i64,
    /// Month 1-12.
    pub month: u32,
    /// Day 1-31.
    pub day: u32,
    /// Hour.
    pub hour: u32,
    /// Minute.
    pub minute: u32,
    /// Second.
    pub second: u32,
    /// Nanosecond.
    pub nanos: u32,
    /// Day of the week, Sunday = 0.
    pub weekday: u32,
    /// Day of the year, 1-based.
    pub yday: u32,
}

/// The civil time of `t` at `offset` seconds east of UTC.
pub fn civil(t: &Timestamp, offset: i32) -> Civil {
    let s = t.secs + i64::from(offset);
    let days = s.div_euclid(86_400);
    let rem = s.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let yday = (days - days_from_civil(year, 1, 1) + 1) as u32;
    Civil {
        year,
        month,
        day,
        hour: (rem / 3600) as u32,
        minute: ((rem % 3600) / 60) as u32,
        second: (rem % 60) as u32,
        nanos: t.nanos,
        weekday: (days + 4).rem_euclid(7) as u32,
        yday,
    }
}

fn push_2(s: &mut String, v: u32) {
    s.push(char::from(b'0' + (v / 10 % 10) as u8));
    s.push(char::from(b'0' + (v % 10) as u8));
}

fn push_zone(s: &mut String, offset: i32) {
    if offset == 0 {
        s.push('Z');
        return;
    }
    s.push(if offset < 0 { '-' } else { '+' });
    let a = offset.unsigned_abs();
    push_2(s, a / 3600);
    s.push(':');
    push_2(s, a / 60 % 60);
}

/// `Time.Format(time.RFC3339Nano)`.
pub fn format_rfc3339_nano(t: &Timestamp) -> String {
    let c = civil(t, t.offset);
    let mut s = String::with_capacity(35);
    if c.year < 0 {
        s.push('-');
    }
    let y = c.year.unsigned_abs();
    s.push_str(&format!("{y:04}"));
    s.push('-');
    push_2(&mut s, c.month);
    s.push('-');
    push_2(&mut s, c.day);
    s.push('T');
    push_2(&mut s, c.hour);
    s.push(':');
    push_2(&mut s, c.minute);
    s.push(':');
    push_2(&mut s, c.second);
    if t.nanos > 0 {
        let frac = format!("{:09}", t.nanos);
        s.push('.');
        s.push_str(frac.trim_end_matches('0'));
    }
    push_zone(&mut s, t.offset);
    s
}

/// Builds a timestamp from a civil date, a time of day (hour, minute, second), nanoseconds
/// and a UTC offset (no range check).
pub fn from_civil(
    (year, month, day): (i64, u32, u32),
    (hour, min, sec): (u32, u32, u32),
    nanos: u32,
    offset: i32,
) -> Timestamp {
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + i64::from(hour) * 3600 + i64::from(min) * 60 + i64::from(sec)
        - i64::from(offset);
    Timestamp {
        secs,
        nanos,
        offset,
    }
}

/// Go's `time.Parse(time.RFC3339, s)` (cel-go's `string` → `timestamp` conversion): `None`
/// when Go rejects it. Go's general layout parser (`gotime`), which accepts all the fast
/// `parseRFC3339` path accepts and more (a one-digit hour, a comma before the fraction).
pub fn parse_rfc3339(s: &str) -> Option<Timestamp> {
    crate::gotime::parse(crate::gotime::RFC3339, s).ok()
}

/// Whether a timestamp is within cel-go's range (years 1 to 9999).
pub fn in_range(t: &Timestamp) -> bool {
    (GO_ZERO_TIME_SECS..=MAX_UNIX_SECS).contains(&t.secs)
}

/// `time.Parse(strfmt.RFC3339FullDate, s)` (the OpenAPI `date` format), with Go's error text.
pub fn parse_date(s: &str) -> Result<Timestamp, String> {
    crate::gotime::parse(crate::gotime::RFC3339_FULL_DATE, s).map_err(|e| e.to_string())
}

/// kube-openapi's `strfmt.ParseDateTime` (the OpenAPI `date-time` format): its layouts in
/// order, the last one's error (see [`crate::gotime::parse_strfmt_date_time`]).
pub fn parse_strfmt_date_time(s: &str) -> Result<Timestamp, String> {
    crate::gotime::parse_strfmt_date_time(s).map_err(|e| e.to_string())
}

/// The time package's `quote` (time errors: `ParseDuration`, `Parse`).
fn time_quote(s: &str) -> String {
    crate::gotime::time_quote(s.as_bytes())
}

/// Go's `strconv.Quote` (what `%q` prints): `\a`, `\b`, `\f`, `\n`, `\r`, `\t`, `\v`, other
/// control bytes as `\xNN`, non-printable characters as `\uNNNN` (see [`crate::debug::go_quote`]).
pub fn go_quote(s: &str) -> String {
    crate::debug::go_quote(s.as_bytes())
}

/// Go's `time.ParseDuration`: nanoseconds, or Go's error text.
pub fn parse_go_duration(orig: &str) -> Result<i64, String> {
    let invalid = || Err(format!("time: invalid duration {}", time_quote(orig)));
    let mut s = orig.as_bytes();
    let mut neg = false;
    if let Some(&c) = s.first() {
        if c == b'-' || c == b'+' {
            neg = c == b'-';
            s = s.get(1..).unwrap_or(&[]);
        }
    }
    if s == b"0" {
        return Ok(0);
    }
    if s.is_empty() {
        return invalid();
    }
    const LIMIT: u64 = 1 << 63;
    let mut d: u64 = 0;
    while !s.is_empty() {
        let c = s.first().copied().unwrap_or(0);
        if !(c == b'.' || c.is_ascii_digit()) {
            return invalid();
        }
        // leadingInt
        let mut v: u64 = 0;
        let mut i = 0;
        while let Some(&c) = s.get(i) {
            if !c.is_ascii_digit() {
                break;
            }
            if v > LIMIT / 10 {
                return invalid();
            }
            v = v * 10 + u64::from(c - b'0');
            if v > LIMIT {
                return invalid();
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
            let mut i = 0;
            let mut overflow = false;
            while let Some(&c) = s.get(i) {
                if !c.is_ascii_digit() {
                    break;
                }
                i += 1;
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
            post = i > 0;
            s = s.get(i..).unwrap_or(&[]);
        }
        if !pre && !post {
            return invalid();
        }
        let mut i = 0;
        while let Some(&c) = s.get(i) {
            if c == b'.' || c.is_ascii_digit() {
                break;
            }
            i += 1;
        }
        if i == 0 {
            return Err(format!(
                "time: missing unit in duration {}",
                time_quote(orig)
            ));
        }
        let u = s.get(..i).unwrap_or(&[]);
        s = s.get(i..).unwrap_or(&[]);
        let unit: u64 = match u {
            b"ns" => 1,
            b"us" => 1_000,
            b"\xc2\xb5s" | b"\xce\xbcs" => 1_000,
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            b"m" => 60 * 1_000_000_000,
            b"h" => 3600 * 1_000_000_000,
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    crate::gotime::time_quote(u),
                    time_quote(orig)
                ))
            }
        };
        if v > LIMIT / unit {
            return invalid();
        }
        v *= unit;
        if f > 0 {
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return invalid();
            }
        }
        d += v;
        if d > LIMIT {
            return invalid();
        }
    }
    if neg {
        return Ok((d as i64).wrapping_neg());
    }
    if d > LIMIT - 1 {
        return invalid();
    }
    Ok(d as i64)
}

/// kube-openapi's `strfmt.ParseDuration`: Go's syntax, else words such as `3 days` or `1w`.
pub fn parse_strfmt_duration(cand: &str) -> Result<i64, String> {
    if let Ok(d) = parse_go_duration(cand) {
        return Ok(d);
    }
    const UNITS: &[(&[&str], i64)] = &[
        (&["ns", "nano"], 1),
        (&["us", "µs", "micro"], 1_000),
        (&["ms", "milli"], 1_000_000),
        (&["s", "sec"], NANOS_PER_SEC),
        (&["m", "min"], 60 * NANOS_PER_SEC),
        (&["h", "hr", "hour"], 3600 * NANOS_PER_SEC),
        (&["d", "day"], 86_400 * NANOS_PER_SEC),
        (&["w", "wk", "week"], 7 * 86_400 * NANOS_PER_SEC),
    ];
    let chars: Vec<char> = cand.chars().collect();
    let mut dur: i64 = 0;
    let mut ok = false;
    let mut i = 0;
    while i < chars.len() {
        if !chars.get(i).is_some_and(char::is_ascii_digit) {
            i += 1;
            continue;
        }
        let ds = i;
        let mut j = i;
        while chars.get(j).is_some_and(char::is_ascii_digit) {
            j += 1;
        }
        let de = j;
        while chars
            .get(j)
            .is_some_and(|c| matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' '))
        {
            j += 1;
        }
        let us = j;
        while chars
            .get(j)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == 'µ')
        {
            j += 1;
        }
        if j == us {
            i = de.max(i + 1);
            continue;
        }
        let num: String = chars.get(ds..de).unwrap_or(&[]).iter().collect();
        let factor: i64 = match num.parse() {
            Ok(f) => f,
            Err(_) => {
                return Err(format!(
                    "strconv.Atoi: parsing {}: value out of range",
                    go_quote(&num)
                ))
            }
        };
        let unit: String = chars
            .get(us..j)
            .unwrap_or(&[])
            .iter()
            .collect::<String>()
            .trim()
            .to_lowercase();
        for (variants, mult) in UNITS {
            let last = variants.len() - 1;
            for (k, v) in variants.iter().enumerate() {
                if (k == last && unit.starts_with(v)) || unit.eq_ignore_ascii_case(v) {
                    ok = true;
                    dur = dur.wrapping_add(factor.wrapping_mul(*mult));
                }
            }
        }
        i = j;
    }
    if ok {
        Ok(dur)
    } else {
        Err(format!("unable to parse {cand} as duration"))
    }
}

/// Go's `Duration.String()` (`1h2m3.5s`, `1.5ms`, `0s`).
pub fn format_go_duration(d: i64) -> String {
    let neg = d < 0;
    let mut u = d.unsigned_abs();
    let mut out = String::new();
    if u < NANOS_PER_SEC as u64 {
        if u == 0 {
            return "0s".into();
        }
        let (prec, unit) = if u < 1_000 {
            (0, "ns")
        } else if u < 1_000_000 {
            (3, "µs")
        } else {
            (6, "ms")
        };
        let (frac, int) = fmt_frac(u, prec);
        out.push_str(&int.to_string());
        out.push_str(&frac);
        out.push_str(unit);
    } else {
        let (frac, secs) = fmt_frac(u, 9);
        u = secs;
        let s = u % 60;
        u /= 60;
        if u > 0 {
            let m = u % 60;
            u /= 60;
            if u > 0 {
                out.push_str(&format!("{u}h"));
            }
            out.push_str(&format!("{m}m"));
        }
        out.push_str(&format!("{s}{frac}s"));
    }
    if neg {
        out.insert(0, '-');
    }
    out
}

/// The fraction `v / 10^prec` as `.123` without trailing zeros, and the integer part.
fn fmt_frac(v: u64, prec: u32) -> (String, u64) {
    let p = 10u64.pow(prec);
    let frac = v % p;
    let int = v / p;
    if frac == 0 {
        return (String::new(), int);
    }
    let s = format!("{:0width$}", frac, width = prec as usize);
    (format!(".{}", s.trim_end_matches('0')), int)
}

/// cel-go's duration to string: Go's `Seconds()` as `FormatFloat(s, 'f', -1, 64)` plus `s`.
pub fn duration_to_cel_string(nanos: i64) -> String {
    let secs = go_duration_units(nanos, 1_000_000_000);
    format!("{}s", crate::stdlib_rt::format_float_f(secs))
}

/// Go's `Duration.Hours()`, `Minutes()` or `Seconds()` (`unit` in nanoseconds): the whole units
/// and the remainder's fraction added in float64 (not `nanos / unit`, which rounds differently).
pub fn go_duration_units(nanos: i64, unit: i64) -> f64 {
    (nanos / unit) as f64 + (nanos % unit) as f64 / unit as f64
}

/// A zone given to a timestamp accessor: a fixed offset `[+-]hh:mm`, or a name (`UTC`).
pub fn zone_offset(tz: &str) -> Result<i32, String> {
    if let Some(ind) = tz.find(':') {
        let hr = go_atoi(tz.get(..ind).unwrap_or(""))?;
        // No range check on the minutes: the accessors' bindings (cel-go's
        // `common/stdlib` `inTimeZone`) take any integer; only `Timestamp.Receive` checks.
        let min = go_atoi(tz.get(ind + 1..).unwrap_or(""))?;
        let offset = if tz.starts_with('-') {
            hr * 60 - min
        } else {
            hr * 60 + min
        };
        return i32::try_from(offset.saturating_mul(60))
            .map_err(|_| "time zone offset out of range".to_string());
    }
    match tz {
        "" | "UTC" | "Local" | "Etc/UTC" | "Etc/GMT" | "GMT" | "Zulu" | "Etc/Zulu" | "UCT"
        | "Etc/UCT" | "Universal" | "Etc/Universal" | "Greenwich" | "Etc/Greenwich" => Ok(0),
        _ => Err(format!("unknown time zone {tz}")),
    }
}

/// Go's `strconv.Atoi` with its error text.
pub fn go_atoi(s: &str) -> Result<i64, String> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "strconv.Atoi: parsing {}: invalid syntax",
            go_quote(s)
        ));
    }
    s.parse::<i64>()
        .map_err(|_| format!("strconv.Atoi: parsing {}: value out of range", go_quote(s)))
}

/// `t + d` with cel-go's checks (`timestamp overflow`, `integer overflow`).
pub fn add_duration(t: &Timestamp, d: i64) -> Result<Timestamp, &'static str> {
    let sec2 = d / NANOS_PER_SEC;
    let nsec2 = d % NANOS_PER_SEC;
    let mut sec = t.secs.checked_add(sec2).ok_or("integer overflow")?;
    let mut nsec = i64::from(t.nanos) + nsec2;
    if !(0..NANOS_PER_SEC).contains(&nsec) {
        sec = sec
            .checked_add(nsec / NANOS_PER_SEC)
            .ok_or("integer overflow")?;
        nsec -= (nsec / NANOS_PER_SEC) * NANOS_PER_SEC;
        if nsec < 0 {
            sec = sec.checked_sub(1).ok_or("integer overflow")?;
            nsec += NANOS_PER_SEC;
        }
    }
    if !(GO_ZERO_TIME_SECS..=MAX_UNIX_SECS).contains(&sec) {
        return Err("timestamp overflow");
    }
    Ok(Timestamp {
        secs: sec,
        nanos: nsec as u32,
        offset: t.offset,
    })
}

/// `a - b` as a duration, with cel-go's `integer overflow`.
pub fn sub_timestamps(a: &Timestamp, b: &Timestamp) -> Result<i64, &'static str> {
    let sec = a.secs.checked_sub(b.secs).ok_or("integer overflow")?;
    let nsec = i64::from(a.nanos) - i64::from(b.nanos);
    let tsec = sec.checked_mul(NANOS_PER_SEC).ok_or("integer overflow")?;
    tsec.checked_add(nsec).ok_or("integer overflow")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_round_trips() {
        let cases = [
            ("2021-01-02T03:04:05Z", Some("2021-01-02T03:04:05Z")),
            ("2021-01-02T03:04:05.120Z", Some("2021-01-02T03:04:05.12Z")),
            (
                "2021-01-02T03:04:05+01:30",
                Some("2021-01-02T03:04:05+01:30"),
            ),
            ("0001-01-01T00:00:00Z", Some("0001-01-01T00:00:00Z")),
            ("2021-02-29T00:00:00Z", None),
            ("2021-01-02 03:04:05Z", None),
            ("1000-01-01T00:00:00ZZ", None),
            ("1000-00-00T00:00:00Z", None),
        ];
        for (i, want) in cases {
            let got = parse_rfc3339(i).map(|t| format_rfc3339_nano(&t));
            assert_eq!(got.as_deref(), want, "{i}");
        }
        let t = parse_rfc3339("1970-01-01T00:00:01Z").unwrap();
        assert_eq!(t.secs, 1);
    }

    #[test]
    fn civil_fields() {
        let t = parse_rfc3339("2024-03-01T12:34:56.789Z").unwrap();
        let c = civil(&t, 0);
        assert_eq!(
            (c.year, c.month, c.day, c.hour, c.minute, c.second),
            (2024, 3, 1, 12, 34, 56)
        );
        assert_eq!(c.weekday, 5);
        assert_eq!(c.yday, 61);
    }

    #[test]
    fn durations() {
        let cases = [
            ("1h", Ok(3_600_000_000_000)),
            ("1.5s", Ok(1_500_000_000)),
            ("-1m30s", Ok(-90_000_000_000)),
            ("1us", Ok(1_000)),
            ("0", Ok(0)),
            ("1", Err("time: missing unit in duration \"1\"".to_string())),
            (
                "1d",
                Err("time: unknown unit \"d\" in duration \"1d\"".to_string()),
            ),
            ("", Err("time: invalid duration \"\"".to_string())),
        ];
        for (i, want) in cases {
            assert_eq!(parse_go_duration(i), want, "{i}");
        }
        assert_eq!(parse_strfmt_duration("1d"), Ok(86_400_000_000_000));
        assert_eq!(
            parse_strfmt_duration("2 weeks"),
            Ok(14 * 86_400_000_000_000)
        );
        assert!(parse_strfmt_duration("xyz").is_err());
        assert_eq!(format_go_duration(3_723_500_000_000), "1h2m3.5s");
        assert_eq!(format_go_duration(1_500_000), "1.5ms");
        assert_eq!(format_go_duration(0), "0s");
        assert_eq!(duration_to_cel_string(1_500_000_000), "1.5s");
        assert_eq!(duration_to_cel_string(3_600_000_000_000), "3600s");
    }

    #[test]
    fn strfmt_date_times() {
        for ok in [
            "2021-01-01T00:00:00Z",
            "2021-01-01T00:00:00.500000+0100",
            "2021-01-01T00:00:00",
            "2021-01-01T00:00",
            "2021-01-01T00:00Z",
            "2021-01-01 00:00:00",
        ] {
            assert!(parse_strfmt_date_time(ok).is_ok(), "{ok}");
        }
        // A one-digit fraction fits no layout with a colon-less offset: `.000000` and `.000`
        // want exactly that many digits (Go `parseNanoseconds`), RFC 3339 wants `-07:00`.
        for bad in [
            "2021-01-01",
            "2021-13-01T00:00:00Z",
            "x",
            "2021-01-01T00:00:00.5+0100",
        ] {
            assert!(parse_strfmt_date_time(bad).is_err(), "{bad}");
        }
        assert!(parse_date("2021-02-28").is_ok());
        assert_eq!(
            parse_date("2021-02-30").unwrap_err(),
            "parsing time \"2021-02-30\": day out of range"
        );
    }

    #[test]
    fn zones() {
        assert_eq!(zone_offset("+05:30"), Ok(19_800));
        assert_eq!(zone_offset("-08:00"), Ok(-28_800));
        assert_eq!(zone_offset("UTC"), Ok(0));
        assert!(zone_offset("America/New_York").is_err());
        assert_eq!(zone_offset("+01:60"), Ok(7_200));
        assert_eq!(zone_offset("+05:-30"), Ok(16_200));
    }
}
