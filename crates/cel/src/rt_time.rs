//! CEL's timestamps and durations on top of Go's `time` ([`crd_studio_gostd::time`]): cel-go's range
//! (years 1 to 9999) and overflow checks, its duration-to-string conversion, the zones its
//! accessors take, and kube-openapi's `strfmt` formats (`duration`, `date`, `date-time`) that
//! bind schema strings to timestamps and durations.

use crate::value::Timestamp;
use crd_studio_gostd::strconv::{atoi as go_atoi, quote as go_quote};
pub use crd_studio_gostd::time::GO_ZERO_TIME_SECS;
use crd_studio_gostd::time::{parse_duration as parse_go_duration, NANOS_PER_SEC};

/// Unix seconds of 9999-12-31T23:59:59Z, cel-go's maximum.
pub const MAX_UNIX_SECS: i64 = 253_402_300_799;

/// Whether a timestamp is within cel-go's range (years 1 to 9999).
pub fn in_range(t: &Timestamp) -> bool {
    (GO_ZERO_TIME_SECS..=MAX_UNIX_SECS).contains(&t.secs)
}

/// `time.Parse(strfmt.RFC3339FullDate, s)` (the OpenAPI `date` format), with Go's error text.
pub fn parse_date(s: &str) -> Result<Timestamp, String> {
    crd_studio_gostd::time::parse(crd_studio_gostd::time::RFC3339_FULL_DATE, s)
        .map_err(|e| e.to_string())
}

/// kube-openapi `pkg/validation/strfmt/time.go` `dateTimeFormats`, in the order `ParseDateTime`
/// tries them: `RFC3339Micro`, `RFC3339Millis`, `time.RFC3339`, `time.RFC3339Nano`,
/// `ISO8601LocalTime`. (Kubernetes' fork keeps five of go-openapi's ten layouts: no
/// colon-less offsets, no minute precision, no space for the `T`.)
pub const STRFMT_DATE_TIME_FORMATS: [&str; 5] = [
    "2006-01-02T15:04:05.000000Z07:00",
    "2006-01-02T15:04:05.000Z07:00",
    crd_studio_gostd::time::RFC3339,
    crd_studio_gostd::time::RFC3339_NANO,
    "2006-01-02T15:04:05",
];

/// kube-openapi's `strfmt.ParseDateTime` (the OpenAPI `date-time` format): the empty string is
/// the Unix epoch; otherwise the first layout of [`STRFMT_DATE_TIME_FORMATS`] that parses, or
/// the last layout's error text.
pub fn parse_strfmt_date_time(s: &str) -> Result<Timestamp, String> {
    if s.is_empty() {
        return Ok(Timestamp {
            secs: 0,
            nanos: 0,
            offset: 0,
        });
    }
    let mut last = String::new();
    for layout in STRFMT_DATE_TIME_FORMATS {
        match crd_studio_gostd::time::parse(layout, s) {
            Ok(t) => return Ok(t),
            Err(e) => last = e.to_string(),
        }
    }
    Err(last)
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

/// cel-go's duration to string: Go's `Seconds()` as `FormatFloat(s, 'f', -1, 64)` plus `s`.
pub fn duration_to_cel_string(nanos: i64) -> String {
    let secs = crd_studio_gostd::time::duration_units(nanos, 1_000_000_000);
    format!("{}s", crd_studio_gostd::strconv::format_float_f(secs))
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
    use crd_studio_gostd::time::{format_rfc3339_nano, parse_rfc3339};

    #[test]
    fn strfmt_durations() {
        assert_eq!(parse_strfmt_duration("1d"), Ok(86_400_000_000_000));
        assert_eq!(
            parse_strfmt_duration("2 weeks"),
            Ok(14 * 86_400_000_000_000)
        );
        assert!(parse_strfmt_duration("xyz").is_err());
        assert_eq!(duration_to_cel_string(1_500_000_000), "1.5s");
        assert_eq!(duration_to_cel_string(3_600_000_000_000), "3600s");
        let t = parse_rfc3339("2021-01-02T03:04:05Z").unwrap();
        assert_eq!(format_rfc3339_nano(&t), "2021-01-02T03:04:05Z");
    }

    #[test]
    fn strfmt_date_times() {
        for ok in [
            "2021-01-01T00:00:00Z",
            "2021-01-01T00:00:00.500000+01:00",
            "2021-01-01T00:00:00.5+01:00",
            "2021-01-01T00:00:00",
        ] {
            assert!(parse_strfmt_date_time(ok).is_ok(), "{ok}");
        }
        // kube-openapi's five layouts have no colon-less offset, no minute precision and no
        // space for the `T` (go-openapi's `RFC3339MicroNoColon`, `ISO8601TimeWithReducedPrecision`
        // and `ISO8601TimeUniversalSortableDateTimePattern` are not in its list).
        for bad in [
            "2021-01-01",
            "2021-13-01T00:00:00Z",
            "x",
            "2021-01-01T00:00:00.5+0100",
            "2021-01-01T00:00:00.500000+0100",
            "2021-01-01T00:00",
            "2021-01-01T00:00Z",
            "2021-01-01 00:00:00",
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

    #[test]
    fn strfmt_date_time_reports_the_last_layout() {
        // kube-openapi `pkg/validation/strfmt/time.go` `ParseDateTime`: `time.Parse` with each
        // of `dateTimeFormats` in order, the last one's error (`ISO8601LocalTime`,
        // "2006-01-02T15:04:05"); Go's `time.Parse` reports extra text before a day out of range.
        let cases: &[(&str, &str)] = &[
            (
                "2021-02-03T10:00:00Zjunk",
                r#"parsing time "2021-02-03T10:00:00Zjunk": extra text: "Zjunk""#,
            ),
            (
                "2021-13-03T10:00:00Z",
                r#"parsing time "2021-13-03T10:00:00Z": month out of range"#,
            ),
            (
                "2021-02-30T10:00:00Z",
                r#"parsing time "2021-02-30T10:00:00Z": extra text: "Z""#,
            ),
            (
                "2021-02-30T10:00:00",
                r#"parsing time "2021-02-30T10:00:00": day out of range"#,
            ),
            (
                "2021-02-03 10:61:00",
                r#"parsing time "2021-02-03 10:61:00" as "2006-01-02T15:04:05": cannot parse " 10:61:00" as "T""#,
            ),
            (
                "2021-02-03 10:00:00",
                r#"parsing time "2021-02-03 10:00:00" as "2006-01-02T15:04:05": cannot parse " 10:00:00" as "T""#,
            ),
            (
                "2021-02-03t10:00:00z",
                r#"parsing time "2021-02-03t10:00:00z" as "2006-01-02T15:04:05": cannot parse "t10:00:00z" as "T""#,
            ),
            (
                "2021-02-03T10:00:00+25:00",
                r#"parsing time "2021-02-03T10:00:00+25:00": extra text: "+25:00""#,
            ),
            (
                "2021-02-03T10:00Z",
                r#"parsing time "2021-02-03T10:00Z" as "2006-01-02T15:04:05": cannot parse "Z" as ":""#,
            ),
            (
                "today",
                r#"parsing time "today" as "2006-01-02T15:04:05": cannot parse "today" as "2006""#,
            ),
        ];
        for (value, want) in cases {
            assert_eq!(&parse_strfmt_date_time(value).unwrap_err(), want, "{value}");
        }
        for ok in [
            "2021-02-03T10:00:00Z",
            "2021-02-03T10:00:00.123456+01:00",
            "2021-02-03T10:00:00.5",
        ] {
            assert!(parse_strfmt_date_time(ok).is_ok(), "{ok}");
        }
    }
}
