//! Named time zones (`getHours('America/New_York')`), as cel-go resolves them with Go's
//! `time.LoadLocation`: a database the caller provides, never read from the system (this crate
//! does no I/O and keeps no globals).
//!
//! - [`TimeZoneDb`]: a compact bundle of TZif files by zone name (RFC 8536, the format Go's
//!   `LoadLocationFromTZData` reads). Build it from `(name, TZif bytes)` pairs
//!   ([`TimeZoneDb::from_zones`], identical data stored once), write it with
//!   [`TimeZoneDb::to_bundle`] and read it back with [`TimeZoneDb::from_bundle`] (so a web page
//!   can fetch it lazily, only when an expression names a zone).
//! - [`Zone`]: one parsed TZif file; [`Zone::offset_at`] is Go's `Location.lookup`: the
//!   transition in effect, the first standard zone before the first transition
//!   (`lookupFirstZone`), and after the last transition the POSIX TZ footer (`tzset`), so the
//!   compact "slim" TZif data gives the same offsets as Go's fat files.
//!
//! [`resolve`] is cel-go's `timeZone` lookup of a zone name: fixed offsets (`+05:30`), the UTC
//! names every Go binary knows without data, then the database. Without a database a named
//! zone is "unknown time zone NAME", as on a server without tzdata, and
//! [`ZoneError::NeedsDatabase`] tells the caller a database would have answered.

use std::collections::BTreeMap;

use crate::rt_time;

/// The bundle's magic bytes (followed by a format version byte).
const MAGIC: &[u8; 7] = b"CELTZDB";
const BUNDLE_VERSION: u8 = 1;

/// A time-zone database: TZif data by zone name (names are case-sensitive, as Go's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimeZoneDb {
    /// Name → (offset, length) in `data`.
    names: BTreeMap<String, (u32, u32)>,
    /// The TZif files, each stored once.
    data: Vec<u8>,
}

fn read_u32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 4)?;
    Some(u32::from_be_bytes([
        *s.first()?,
        *s.get(1)?,
        *s.get(2)?,
        *s.get(3)?,
    ]))
}

impl TimeZoneDb {
    /// A database of these zones (`(name, TZif bytes)`); identical TZif data (links such as
    /// `US/Eastern` and `America/New_York`) is stored once.
    pub fn from_zones<'z>(zones: impl IntoIterator<Item = (&'z str, &'z [u8])>) -> TimeZoneDb {
        let mut db = TimeZoneDb::default();
        let mut seen: BTreeMap<&'z [u8], (u32, u32)> = BTreeMap::new();
        for (name, tzif) in zones {
            let at = *seen.entry(tzif).or_insert_with(|| {
                let at = (db.data.len() as u32, tzif.len() as u32);
                db.data.extend_from_slice(tzif);
                at
            });
            db.names.insert(name.to_string(), at);
        }
        db
    }

    /// Reads a bundle written by [`TimeZoneDb::to_bundle`].
    pub fn from_bundle(bytes: &[u8]) -> Result<TimeZoneDb, String> {
        let bad = |what: &str| format!("time-zone bundle: {what}");
        if bytes.get(..7) != Some(&MAGIC[..]) {
            return Err(bad("not a time-zone bundle"));
        }
        if bytes.get(7) != Some(&BUNDLE_VERSION) {
            return Err(bad("unsupported version"));
        }
        let count = read_u32(bytes, 8).ok_or_else(|| bad("truncated"))? as usize;
        let mut at = 12;
        let mut entries = Vec::with_capacity(count.min(4096));
        for _ in 0..count {
            let len = usize::from(*bytes.get(at).ok_or_else(|| bad("truncated"))?);
            let name = bytes
                .get(at + 1..at + 1 + len)
                .and_then(|n| std::str::from_utf8(n).ok())
                .ok_or_else(|| bad("bad name"))?;
            at += 1 + len;
            let off = read_u32(bytes, at).ok_or_else(|| bad("truncated"))?;
            let n = read_u32(bytes, at + 4).ok_or_else(|| bad("truncated"))?;
            at += 8;
            entries.push((name.to_string(), (off, n)));
        }
        let data = bytes.get(at..).unwrap_or(&[]).to_vec();
        for (_, (off, n)) in &entries {
            if (*off as usize).saturating_add(*n as usize) > data.len() {
                return Err(bad("entry out of range"));
            }
        }
        Ok(TimeZoneDb {
            names: entries.into_iter().collect(),
            data,
        })
    }

    /// The bundle: `CELTZDB`, version 1, the entry count, per entry (by name) a length-prefixed
    /// name and the (offset, length) of its TZif data (big-endian u32), then the data.
    pub fn to_bundle(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.data.len() + self.names.len() * 24 + 12);
        out.extend_from_slice(MAGIC);
        out.push(BUNDLE_VERSION);
        let names: Vec<(&String, &(u32, u32))> = self
            .names
            .iter()
            .filter(|(n, _)| n.len() <= usize::from(u8::MAX))
            .collect();
        out.extend_from_slice(&(names.len() as u32).to_be_bytes());
        for (name, (off, n)) in names {
            out.push(name.len() as u8);
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&off.to_be_bytes());
            out.extend_from_slice(&n.to_be_bytes());
        }
        out.extend_from_slice(&self.data);
        out
    }

    /// The number of zone names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are no zones.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The zone names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.keys().map(String::as_str)
    }

    /// The TZif data of a zone.
    pub fn tzif(&self, name: &str) -> Option<&[u8]> {
        let (off, n) = *self.names.get(name)?;
        self.data
            .get(off as usize..(off as usize).checked_add(n as usize)?)
    }

    /// A zone, parsed (`None` when the name is not in the database or its data is invalid,
    /// as Go's `LoadLocation` then fails).
    pub fn zone(&self, name: &str) -> Option<Zone> {
        Zone::from_tzif(self.tzif(name)?).ok()
    }
}

/// One zone: the transitions, the local time types and the POSIX TZ footer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Zone {
    /// Transition times (Unix seconds) and the index of the type in effect from then on.
    transitions: Vec<(i64, u8)>,
    /// Local time types: UTC offset in seconds and whether it is daylight saving time.
    types: Vec<(i32, bool)>,
    /// The POSIX TZ string for times after the last transition (`extend`).
    extend: String,
}

/// `Σ count × width`, or an error when it overflows (counts come from the data).
fn block_size(parts: &[(usize, usize)]) -> Result<usize, String> {
    parts
        .iter()
        .try_fold(0usize, |acc, &(n, w)| acc.checked_add(n.checked_mul(w)?))
        .ok_or_else(|| "malformed time zone information".to_string())
}

struct Reader<'b> {
    b: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Result<&'b [u8], String> {
        let s = self
            .b
            .get(self.at..self.at.checked_add(n).ok_or("bad TZif")?)
            .ok_or_else(|| "truncated TZif data".to_string())?;
        self.at += n;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let s = self.take(4)?;
        read_u32(s, 0).ok_or_else(|| "truncated TZif data".to_string())
    }
}

impl Zone {
    /// Parses TZif data (versions 1 to 4) as Go's `LoadLocationFromTZData`.
    pub fn from_tzif(b: &[u8]) -> Result<Zone, String> {
        let bad = || "malformed time zone information".to_string();
        let mut r = Reader { b, at: 0 };
        if r.take(4)? != b"TZif" {
            return Err(bad());
        }
        let version = *r.take(16)?.first().ok_or_else(bad)?;
        let is_v2 = matches!(version, b'2'..=b'9');
        let header = |r: &mut Reader<'_>| -> Result<[usize; 6], String> {
            let mut n = [0usize; 6];
            for slot in &mut n {
                *slot = r.u32()? as usize;
            }
            Ok(n)
        };
        // [isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt]
        let mut n = header(&mut r)?;
        let mut time_size = 4;
        if is_v2 {
            let [isut, isstd, leap, time, typ, chars] = n;
            r.take(block_size(&[
                (time, 5),
                (typ, 6),
                (chars, 1),
                (leap, 8),
                (isstd, 1),
                (isut, 1),
            ])?)?;
            if r.take(4)? != b"TZif" {
                return Err(bad());
            }
            r.take(16)?;
            n = header(&mut r)?;
            time_size = 8;
        }
        let [isut, isstd, leap, time, typ, chars] = n;
        if typ == 0 || typ > 256 {
            return Err(bad());
        }
        let times = r.take(block_size(&[(time, time_size)])?)?;
        let indices = r.take(time)?;
        let infos = r.take(block_size(&[(typ, 6)])?)?;
        r.take(block_size(&[
            (chars, 1),
            (leap, time_size + 4),
            (isstd, 1),
            (isut, 1),
        ])?)?;
        let mut types = Vec::with_capacity(typ);
        for info in infos.chunks_exact(6) {
            let off = read_u32(info, 0).ok_or_else(bad)? as i32;
            let dst = info.get(4).copied().unwrap_or(0) != 0;
            types.push((off, dst));
        }
        let mut transitions = Vec::with_capacity(indices.len());
        for (i, &idx) in indices.iter().enumerate() {
            let when = if time_size == 8 {
                let s = times.get(i * 8..(i + 1) * 8).ok_or_else(bad)?;
                let mut a = [0u8; 8];
                a.copy_from_slice(s);
                i64::from_be_bytes(a)
            } else {
                i64::from(read_u32(times, i * 4).ok_or_else(bad)? as i32)
            };
            if usize::from(idx) >= types.len() {
                return Err(bad());
            }
            transitions.push((when, idx));
        }
        let mut extend = String::new();
        if is_v2 {
            let rest = b.get(r.at..).unwrap_or(&[]);
            if rest.len() > 2 && rest.first() == Some(&b'\n') && rest.last() == Some(&b'\n') {
                extend = String::from_utf8_lossy(rest.get(1..rest.len() - 1).unwrap_or(&[]))
                    .into_owned();
            }
        }
        if transitions.is_empty() {
            // Go: "Build fake transition to cover all time." (`alpha`, type 0)
            transitions.push((i64::MIN, 0));
        }
        Ok(Zone {
            transitions,
            types,
            extend,
        })
    }

    /// Go's `lookupFirstZone`: the type in effect before the first transition.
    fn first_zone(&self) -> usize {
        let used = self.transitions.iter().any(|&(_, i)| i == 0);
        if !used {
            return 0;
        }
        if let Some(&(_, first)) = self.transitions.first() {
            if self.types.get(usize::from(first)).is_some_and(|t| t.1) {
                for zi in (0..usize::from(first)).rev() {
                    if self.types.get(zi).is_some_and(|t| !t.1) {
                        return zi;
                    }
                }
            }
        }
        self.types.iter().position(|t| !t.1).unwrap_or(0)
    }

    /// The UTC offset (seconds east) in effect at a Unix time (Go's `Location.lookup`).
    pub fn offset_at(&self, sec: i64) -> i32 {
        let type_offset = |i: usize| self.types.get(i).map(|t| t.0).unwrap_or(0);
        match self.transitions.first() {
            Some(&(first, _)) if sec >= first => {}
            _ => return type_offset(self.first_zone()),
        }
        // The last transition at or before `sec`.
        let lo = self
            .transitions
            .partition_point(|&(when, _)| when <= sec)
            .saturating_sub(1);
        let idx = self
            .transitions
            .get(lo)
            .map(|t| usize::from(t.1))
            .unwrap_or(0);
        if lo + 1 == self.transitions.len() && !self.extend.is_empty() {
            if let Some(off) = tzset(&self.extend, sec) {
                return off;
            }
        }
        type_offset(idx)
    }
}

// ------------------------------------------------------------------------------------------
// POSIX TZ strings (Go's `tzset`)
// ------------------------------------------------------------------------------------------

const SECS_PER_DAY: i64 = 86_400;

fn tzset_name(s: &str) -> Option<(&str, &str)> {
    if s.is_empty() {
        return None;
    }
    if let Some(rest) = s.strip_prefix('<') {
        let end = rest.find('>')?;
        return Some((rest.get(..end)?, rest.get(end + 1..)?));
    }
    for (i, c) in s.char_indices() {
        if c.is_ascii_digit() || matches!(c, ',' | '-' | '+') {
            if i < 3 {
                return None;
            }
            return Some((s.get(..i)?, s.get(i..)?));
        }
    }
    if s.len() < 3 {
        return None;
    }
    Some((s, ""))
}

fn tzset_num(s: &str, min: i64, max: i64) -> Option<(i64, &str)> {
    if s.is_empty() {
        return None;
    }
    let mut num = 0i64;
    for (i, c) in s.char_indices() {
        let Some(d) = c.to_digit(10) else {
            if i == 0 || num < min {
                return None;
            }
            return Some((num, s.get(i..)?));
        };
        num = num * 10 + i64::from(d);
        if num > max {
            return None;
        }
    }
    if num < min {
        return None;
    }
    Some((num, ""))
}

fn tzset_offset(s: &str) -> Option<(i64, &str)> {
    let (neg, s) = match s.as_bytes().first()? {
        b'+' => (false, s.get(1..)?),
        b'-' => (true, s.get(1..)?),
        _ => (false, s),
    };
    let sign = |off: i64| if neg { -off } else { off };
    let (hours, s) = tzset_num(s, 0, 24 * 7)?;
    let mut off = hours * 3600;
    let Some(s) = s.strip_prefix(':') else {
        return Some((sign(off), s));
    };
    let (mins, s) = tzset_num(s, 0, 59)?;
    off += mins * 60;
    let Some(s) = s.strip_prefix(':') else {
        return Some((sign(off), s));
    };
    let (secs, s) = tzset_num(s, 0, 59)?;
    Some((sign(off + secs), s))
}

#[derive(Clone, Copy)]
enum RuleKind {
    Julian,
    Doy,
    MonthWeekDay,
}

#[derive(Clone, Copy)]
struct Rule {
    kind: RuleKind,
    day: i64,
    week: i64,
    mon: i64,
    time: i64,
}

fn tzset_rule(s: &str) -> Option<(Rule, &str)> {
    let mut r = Rule {
        kind: RuleKind::Doy,
        day: 0,
        week: 0,
        mon: 0,
        time: 2 * 3600,
    };
    let s = if let Some(rest) = s.strip_prefix('J') {
        let (d, s) = tzset_num(rest, 1, 365)?;
        r.kind = RuleKind::Julian;
        r.day = d;
        s
    } else if let Some(rest) = s.strip_prefix('M') {
        let (mon, s) = tzset_num(rest, 1, 12)?;
        let (week, s) = tzset_num(s.strip_prefix('.')?, 1, 5)?;
        let (day, s) = tzset_num(s.strip_prefix('.')?, 0, 6)?;
        r.kind = RuleKind::MonthWeekDay;
        r.day = day;
        r.week = week;
        r.mon = mon;
        s
    } else {
        let (d, s) = tzset_num(s, 0, 365)?;
        r.day = d;
        s
    };
    match s.strip_prefix('/') {
        None => Some((r, s)),
        Some(rest) => {
            let (t, s) = tzset_offset(rest)?;
            r.time = t;
            Some((r, s))
        }
    }
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Go's `tzruleTime`: seconds since the start of `year` (UTC) when the rule fires, for a zone
/// at `off` seconds east before the change.
fn tzrule_time(year: i64, r: Rule, off: i64) -> i64 {
    let s = match r.kind {
        RuleKind::Julian => {
            let mut s = (r.day - 1) * SECS_PER_DAY;
            if is_leap(year) && r.day >= 60 {
                s += SECS_PER_DAY;
            }
            s
        }
        RuleKind::Doy => r.day * SECS_PER_DAY,
        RuleKind::MonthWeekDay => {
            let mon = r.mon as u32;
            let first = crd_studio_gostd::time::days_from_civil(year, mon, 1);
            // 1970-01-01 was a Thursday (4).
            let dow = (first + 4).rem_euclid(7);
            let mut d = (r.day - dow).rem_euclid(7);
            let days_in = i64::from(crd_studio_gostd::time::days_in(mon, year));
            for _ in 1..r.week {
                if d + 7 >= days_in {
                    break;
                }
                d += 7;
            }
            (first - crd_studio_gostd::time::days_from_civil(year, 1, 1) + d) * SECS_PER_DAY
        }
    };
    s + r.time - off
}

/// Go's `tzset`: the UTC offset a POSIX TZ string gives at `sec`, or `None` when the string
/// does not parse.
fn tzset(tz: &str, sec: i64) -> Option<i32> {
    let (_, s) = tzset_name(tz)?;
    let (std_off, s) = tzset_offset(s)?;
    // POSIX offsets are west of UTC.
    let std_off = -std_off;
    if s.is_empty() || s.starts_with(',') {
        return i32::try_from(std_off).ok();
    }
    let (_, s) = tzset_name(s)?;
    let (dst_off, s) = if s.is_empty() || s.starts_with(',') {
        (std_off + 3600, s)
    } else {
        let (o, s) = tzset_offset(s)?;
        (-o, s)
    };
    let s = if s.is_empty() { ",M3.2.0,M11.1.0" } else { s };
    let s = s.strip_prefix(',').or_else(|| s.strip_prefix(';'))?;
    let (start_rule, s) = tzset_rule(s)?;
    let (end_rule, s) = tzset_rule(s.strip_prefix(',')?)?;
    if !s.is_empty() {
        return None;
    }
    let days = sec.div_euclid(SECS_PER_DAY);
    let (year, _, _) = crd_studio_gostd::time::civil_from_days(days);
    let year_start = crd_studio_gostd::time::days_from_civil(year, 1, 1);
    let ysec = (days - year_start) * SECS_PER_DAY + sec.rem_euclid(SECS_PER_DAY);
    let mut start = tzrule_time(year, start_rule, std_off);
    let mut end = tzrule_time(year, end_rule, dst_off);
    let (mut std_o, mut dst_o) = (std_off, dst_off);
    if end < start {
        std::mem::swap(&mut start, &mut end);
        std::mem::swap(&mut std_o, &mut dst_o);
    }
    let off = if ysec < start || ysec >= end {
        std_o
    } else {
        dst_o
    };
    i32::try_from(off).ok()
}

// ------------------------------------------------------------------------------------------
// Zone names as cel-go's `timeZone` resolves them
// ------------------------------------------------------------------------------------------

/// Why a zone name did not resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ZoneError {
    /// The error text cel-go gives (`unknown time zone X`, `time: invalid location name`, an
    /// offset's parse error).
    Invalid(String),
    /// A named zone with no database given: cel-go's text is `unknown time zone X`, but a
    /// database might know the zone (the caller may load one and evaluate again).
    NeedsDatabase(String),
}

impl ZoneError {
    /// The error text cel-go gives.
    pub fn message(&self) -> &str {
        match self {
            ZoneError::Invalid(m) | ZoneError::NeedsDatabase(m) => m,
        }
    }
}

/// A resolved zone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResolvedZone {
    /// A fixed offset (seconds east of UTC).
    Fixed(i32),
    /// A named zone from the database.
    Named(Zone),
}

impl ResolvedZone {
    /// The UTC offset at a Unix time.
    pub fn offset_at(&self, sec: i64) -> i32 {
        match self {
            ResolvedZone::Fixed(o) => *o,
            ResolvedZone::Named(z) => z.offset_at(sec),
        }
    }
}

/// cel-go's `timeZone`: `[+-]HH:MM` offsets, else Go's `time.LoadLocation(name)` — `""`,
/// `UTC` (and `Local`, UTC on a server), the names Go resolves to UTC-only zones, then the
/// database.
pub fn resolve(tz: &str, db: Option<&TimeZoneDb>) -> Result<ResolvedZone, ZoneError> {
    if tz.contains(':') {
        return rt_time::zone_offset(tz)
            .map(ResolvedZone::Fixed)
            .map_err(ZoneError::Invalid);
    }
    if tz.is_empty() || tz == "UTC" || tz == "Local" {
        return Ok(ResolvedZone::Fixed(0));
    }
    // Go's LoadLocation: "No valid IANA Time Zone name contains a single dot, much less dot
    // dot. Likewise, none begin with a slash."
    if tz.contains("..") || tz.starts_with('/') || tz.starts_with('\\') {
        return Err(ZoneError::Invalid("time: invalid location name".into()));
    }
    if let Some(z) = db.and_then(|db| db.zone(tz)) {
        return Ok(ResolvedZone::Named(z));
    }
    match rt_time::zone_offset(tz) {
        Ok(o) => Ok(ResolvedZone::Fixed(o)),
        Err(e) if db.is_some() => Err(ZoneError::Invalid(e)),
        Err(e) => Err(ZoneError::NeedsDatabase(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_rules() {
        // America/New_York's footer: EST5EDT,M3.2.0,M11.1.0.
        let ny = "EST5EDT,M3.2.0,M11.1.0";
        // 2024-03-10 06:59:59Z is 01:59:59 EST; one second later DST starts.
        assert_eq!(tzset(ny, 1_710_053_999), Some(-5 * 3600));
        assert_eq!(tzset(ny, 1_710_054_000), Some(-4 * 3600));
        // 2024-11-03 05:59:59Z is 01:59:59 EDT; one second later EST again.
        assert_eq!(tzset(ny, 1_730_613_599), Some(-4 * 3600));
        assert_eq!(tzset(ny, 1_730_613_600), Some(-5 * 3600));
        // Southern hemisphere (Australia/Sydney): DST over the new year.
        let syd = "AEST-10AEDT,M10.1.0,M4.1.0/3";
        assert_eq!(tzset(syd, 1_234_567_890), Some(11 * 3600));
        assert_eq!(tzset(syd, 1_719_000_000), Some(10 * 3600));
        // Fixed, quoted names.
        assert_eq!(tzset("<+0545>-5:45", 0), Some(5 * 3600 + 45 * 60));
        assert_eq!(tzset("x", 0), None);
    }

    #[test]
    fn bundle_round_trip_and_errors() {
        let db = TimeZoneDb::from_zones([("A/B", &b"TZif-a"[..]), ("C", &b"TZif-a"[..])]);
        assert_eq!(db.len(), 2);
        let back = TimeZoneDb::from_bundle(&db.to_bundle()).unwrap();
        assert_eq!(back, db);
        assert_eq!(back.tzif("C"), Some(&b"TZif-a"[..]));
        assert!(TimeZoneDb::from_bundle(b"nope").is_err());
        assert!(back.zone("A/B").is_none()); // not valid TZif
        assert_eq!(
            resolve("../etc", Some(&db)),
            Err(ZoneError::Invalid("time: invalid location name".into()))
        );
        assert_eq!(
            resolve("America/New_York", None),
            Err(ZoneError::NeedsDatabase(
                "unknown time zone America/New_York".into()
            ))
        );
        assert_eq!(
            resolve("Nowhere/Land", Some(&db)),
            Err(ZoneError::Invalid("unknown time zone Nowhere/Land".into()))
        );
        assert_eq!(resolve("+02:00", None), Ok(ResolvedZone::Fixed(7200)));
    }
}
