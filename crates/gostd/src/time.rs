//! Go's `time` package: `Time.Format(time.RFC3339Nano)`, `time.Parse` with its layouts and
//! `ParseError` texts ([`layout`]), `time.ParseDuration`, `Duration.String()`, and the
//! civil-date arithmetic behind them (proleptic Gregorian, as Go's `absDate`).
//!
//! Only fixed offsets are known here: Go loads IANA zone names from its tz database, which
//! callers supply on their own (CEL's `tz` module reads TZif data).

pub mod layout;

pub use layout::{parse, ParseError, RFC3339, RFC3339_FULL_DATE, RFC3339_NANO};

/// An instant: seconds and nanoseconds since the Unix epoch (UTC), and the UTC offset of the
/// zone it was written in (Go keeps a location on `time.Time`; only fixed offsets here), which
/// only affects formatting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timestamp {
    /// Seconds since 1970-01-01T00:00:00Z.
    pub secs: i64,
    /// Nanoseconds, 0..1e9.
    pub nanos: u32,
    /// The zone's offset in seconds east of UTC (display only).
    pub offset: i32,
}

/// Unix seconds of Go's zero `time.Time` (0001-01-01T00:00:00Z).
pub const GO_ZERO_TIME_SECS: i64 = -62_135_596_800;

/// Nanoseconds in a second.
pub const NANOS_PER_SEC: i64 = 1_000_000_000;

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

/// `time.Parse(time.RFC3339, s)`: `None` when Go rejects it. Go's general layout parser
/// ([`layout::parse`]), which accepts all the fast `parseRFC3339` path accepts, with the same
/// result, and more (a one-digit hour, a comma before the fraction).
pub fn parse_rfc3339(s: &str) -> Option<Timestamp> {
    parse(RFC3339, s).ok()
}

/// `t.UTC().Format(time.RFC3339)` of an instant given as Unix seconds: no fraction, `Z`.
pub fn format_rfc3339_utc(secs: i64) -> String {
    format_rfc3339_nano(&Timestamp {
        secs,
        nanos: 0,
        offset: 0,
    })
}

/// The time package's `quote` (time errors: `ParseDuration`, `Parse`).
fn time_quote(s: &str) -> String {
    layout::time_quote(s.as_bytes())
}

/// Go's `time.ParseDuration`: nanoseconds, or Go's error text.
pub fn parse_duration(orig: &str) -> Result<i64, String> {
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
                    layout::time_quote(u),
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

/// Go's `Duration.String()` (`1h2m3.5s`, `1.5ms`, `0s`).
pub fn format_duration(d: i64) -> String {
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

/// Go's `Duration.Hours()`, `Minutes()` or `Seconds()` (`unit` in nanoseconds): the whole units
/// and the remainder's fraction added in float64 (not `nanos / unit`, which rounds differently).
pub fn duration_units(nanos: i64, unit: i64) -> f64 {
    (nanos / unit) as f64 + (nanos % unit) as f64 / unit as f64
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
            assert_eq!(parse_duration(i), want, "{i}");
        }
        assert_eq!(format_duration(3_723_500_000_000), "1h2m3.5s");
        assert_eq!(format_duration(1_500_000), "1.5ms");
        assert_eq!(format_duration(0), "0s");
    }
}
